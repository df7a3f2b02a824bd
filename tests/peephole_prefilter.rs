//! The peephole pass skips blocks in which no rule can match (decided on encodings alone) and
//! functions without such a block, before it decodes operands or solves liveness
//! (`Matcher::may_match`), and within a candidate block every instruction no pattern ends at
//! (`Matcher::may_anchor`). Skipping must change nothing: on every code object fixture the pass
//! with and without the prefilter gives the same bytes and the same counts, per pass and per
//! rule (matched, applied, declined by reason), and the same `--explain` lines. With
//! `GFXPATCH_CORPUS=1` (after scripts/fetch-corpus.sh; use `--release`) the same holds on every
//! `GFXPATCH_PREFILTER_EVERY`th (default 8th) code object of Debian's librocsparse.

mod common;

use gfxpatch::container::bundle::DecompressLimits;
use gfxpatch::container::input::Input;
use gfxpatch::pass::peephole::pass::Peephole;
use gfxpatch::pass::peephole::RuleSet;
use gfxpatch::pass::Pass;
use gfxpatch::rewrite::{rewrite_object, Options};
use rayon::prelude::*;

/// Rewrites `bytes` with the prefilter and without it; panics where they differ. Returns the
/// rewrites applied and whether the object changed.
fn compare(name: &str, bytes: &[u8]) -> (u64, bool) {
    let rules: &'static RuleSet = RuleSet::builtin();
    let with: &'static Peephole = Box::leak(Box::new(Peephole::new(rules, true)));
    let without: &'static Peephole = Box::leak(Box::new(with.without_prefilter()));
    let run = |p: &'static dyn Pass| rewrite_object(bytes, &Options { passes: vec![p], print_after: None, strip_debug_on_failure: false }).unwrap();
    let (a, b) = (run(with), run(without));
    assert_eq!(a.bytes, b.bytes, "{name}: the output differs with the prefilter");
    assert_eq!(a.stats, b.stats, "{name}: the counts differ with the prefilter");
    assert_eq!(a.refused, b.refused, "{name}");
    assert_eq!(a.instructions_after, b.instructions_after, "{name}");
    (a.applied(), a.bytes.as_deref().is_some_and(|o| o != bytes))
}

#[test]
fn prefilter_changes_nothing_on_the_fixtures() {
    let files = common::code_object_fixtures();
    assert!(files.len() > 100, "{} code object fixtures", files.len());
    let results: Vec<(u64, bool)> = files
        .par_iter()
        .map(|f| {
            let bytes = std::fs::read(f).unwrap();
            compare(&f.display().to_string(), &bytes)
        })
        .collect();
    let applied: u64 = results.iter().map(|r| r.0).sum();
    let changed = results.iter().filter(|r| r.1).count();
    // Otherwise the comparison would prove nothing: some fixtures must be rewritten.
    assert!(applied > 0 && changed > 0, "no fixture was rewritten ({applied} applied)");
}

#[test]
#[cfg_attr(not(gfxpatch_corpus), ignore = "real-world corpus: scripts/fetch-corpus.sh, then GFXPATCH_CORPUS=1")]
fn prefilter_changes_nothing_on_rocsparse() {
    let every: usize = std::env::var("GFXPATCH_PREFILTER_EVERY").ok().and_then(|v| v.parse().ok()).filter(|&n| n > 0).unwrap_or(8);
    let data = std::fs::read(common::corpus_file("librocsparse.so.0.1")).unwrap();
    let input = Input::parse(&data, &DecompressLimits::default()).unwrap();
    let results: Vec<(u64, bool)> = input
        .objects
        .par_iter()
        .enumerate()
        .step_by(every)
        .map(|(i, o)| compare(&format!("librocsparse code object {i}"), &o.bytes))
        .collect();
    let applied: u64 = results.iter().map(|r| r.0).sum();
    assert!(applied > 0, "no sampled object was rewritten");
    eprintln!("{} objects compared, {applied} rewrites, {} changed", results.len(), results.iter().filter(|r| r.1).count());
}
