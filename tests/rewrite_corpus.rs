//! The rewrite engine on the real-world corpus (`GFXPATCH_CORPUS=1`, after
//! scripts/fetch-corpus.sh; best with `--release`): the identity rewrite of both host libraries
//! is byte-identical, and insert-nops rewrites (and verifies, in-process) every code object.

mod common;

#[test]
#[cfg_attr(not(gfxpatch_corpus), ignore = "real-world corpus: scripts/fetch-corpus.sh, then GFXPATCH_CORPUS=1")]
fn identity_rewrite_of_the_corpus_is_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    for lib in ["librocrand.so.1.1", "librocsparse.so.0.1"] {
        let input = common::corpus_file(lib);
        let out = dir.path().join(lib);
        let o = common::gfxpatch(&["rewrite", input.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert!(o.status.success(), "{lib}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(std::fs::read(&input).unwrap() == std::fs::read(&out).unwrap(), "{lib}: identity rewrite differs");
    }
}

#[test]
#[cfg_attr(not(gfxpatch_corpus), ignore = "real-world corpus: scripts/fetch-corpus.sh, then GFXPATCH_CORPUS=1")]
fn insert_nops_rewrites_and_verifies_every_corpus_code_object() {
    use gfxpatch::container::bundle::DecompressLimits;
    use gfxpatch::container::input::Input;
    use gfxpatch::rewrite::{rewrite_object, Options};
    use rayon::prelude::*;
    let options = Options { passes: vec![gfxpatch::pass::find("insert-nops").unwrap()], print_after: None, strip_debug_on_failure: true };
    for lib in ["librocrand.so.1.1", "librocsparse.so.0.1"] {
        let data = std::fs::read(common::corpus_file(lib)).unwrap();
        let input = Input::parse(&data, &DecompressLimits::default()).unwrap();
        let refused: Vec<String> = input
            .objects
            .par_iter()
            .enumerate()
            .filter_map(|(i, o)| {
                // rewrite_object verifies its output against the input (an Err is a failure).
                let out = rewrite_object(&o.bytes, &options).unwrap_or_else(|e| panic!("{lib}: {}: {e:#}", o.describe(i)));
                assert!(out.instructions_after > out.instructions_before || out.refused.is_some());
                out.refused.map(|r| format!("{}: {r}", o.describe(i)))
            })
            .collect();
        assert!(refused.is_empty(), "{lib}: {} refused, first: {}", refused.len(), refused[0]);
    }
}
