//! The code object writer (issue #5): identity is exact, and a `.text` that grows yields an
//! object in which every address, offset and size that named moved bytes names their new place,
//! as LLVM's tools read it.

mod common;

use std::path::{Path, PathBuf};

use gfxpatch::container::elf::{CodeObject, ElfType};
use gfxpatch::container::write::{self, AddressMap, ObjectEdits, TextPatch};
use gfxpatch::isa::decode::Decoder;
use gfxpatch::isa::target::Target;

/// `s_nop 0`, the same word on every generation.
const S_NOP_0: [u8; 4] = 0xbf80_0000u32.to_le_bytes();
/// Bytes inserted before each kernel entry: keeps every entry 256-byte aligned.
const INSERTED: u64 = 256;

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn text_of<'a>(object: &'a CodeObject) -> &'a gfxpatch::container::elf::Section<'a> {
    object.text_sections().next().expect("a code object with .text")
}

/// Every instruction start of `.text` (decoded linearly, as the layout step does) and its end.
fn boundaries(object: &CodeObject) -> Vec<u64> {
    let text = text_of(object);
    let bytes = &object.data[text.offset as usize..(text.offset + text.size) as usize];
    let wave64 = object.kernels.first().is_none_or(|k| !k.descriptor.wave32());
    let decoder = Decoder::new(Target::from_target_id(&object.target, wave64).expect("a known target"));
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < bytes.len() {
        out.push(text.address + at as u64);
        at += decoder.decode(&bytes[at..]).len().max(4);
    }
    out.push(text.address + text.size);
    out
}

/// The identity patch: the old bytes, every boundary mapped to itself.
fn identity_patch(object: &CodeObject) -> TextPatch {
    let text = text_of(object);
    TextPatch {
        bytes: object.data[text.offset as usize..(text.offset + text.size) as usize].to_vec(),
        map: AddressMap::identity(boundaries(object)).unwrap(),
    }
}

/// Inserts 256 bytes of `s_nop 0` before each kernel entry; an entry then maps to the start of
/// its nops. Relative branches inside a function keep their distance; what this synthetic patch
/// does not fix (PC-relative constants between functions) is irrelevant to the structural facts
/// checked here, since nothing runs.
fn grow(object: &CodeObject) -> TextPatch {
    let text = text_of(object);
    let old = &object.data[text.offset as usize..(text.offset + text.size) as usize];
    let mut entries: Vec<u64> = object.kernels.iter().map(|k| k.entry_address).collect();
    entries.sort_unstable();
    entries.dedup();
    let before = |a: u64| entries.iter().filter(|&&e| e < a).count() as u64 * INSERTED;
    let pairs = boundaries(object).into_iter().map(|b| (b, b + before(b))).collect();
    let mut bytes = Vec::with_capacity(old.len() + entries.len() * INSERTED as usize);
    let mut from = 0usize;
    for &e in &entries {
        let at = (e - text.address) as usize;
        bytes.extend_from_slice(&old[from..at]);
        bytes.extend(S_NOP_0.iter().cycle().take(INSERTED as usize));
        from = at;
    }
    bytes.extend_from_slice(&old[from..]);
    TextPatch { bytes, map: AddressMap::new(pairs).unwrap() }
}

fn linked_fixtures() -> Vec<(PathBuf, Vec<u8>)> {
    common::code_object_fixtures()
        .into_iter()
        .map(|p| {
            let bytes = read(&p);
            (p, bytes)
        })
        .filter(|(_, bytes)| CodeObject::parse(bytes).is_ok_and(|o| o.elf_type == ElfType::Shared))
        .collect()
}

#[test]
fn no_edits_give_the_input_bytes() {
    for path in common::code_object_fixtures() {
        let data = read(&path);
        let object = CodeObject::parse(&data).unwrap();
        let written = write::write_object(&object, &ObjectEdits::default()).unwrap();
        assert!(written.bytes == data, "{}: the identity rewrite changed bytes", path.display());
        assert!(written.notes.is_empty());
    }
}

#[test]
fn identity_patch_gives_the_input_bytes() {
    let fixtures = linked_fixtures();
    assert!(fixtures.len() > 150, "only {} linked fixtures", fixtures.len());
    for (path, data) in fixtures {
        let object = CodeObject::parse(&data).unwrap();
        let edits = ObjectEdits { text: Some(identity_patch(&object)), ..Default::default() };
        let written = write::write_object(&object, &edits).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if written.bytes != data {
            let first = written.bytes.iter().zip(&data).position(|(a, b)| a != b);
            panic!(
                "{}: identity patch changed bytes (lengths {} vs {}, first difference at {first:#x?})",
                path.display(),
                written.bytes.len(),
                data.len()
            );
        }
    }
}

#[test]
fn a_map_that_does_not_cover_text_is_refused() {
    let data = read(&common::repo().join("fixtures/co/gfx900/control_flow.O2.co"));
    let object = CodeObject::parse(&data).unwrap();
    let mut patch = identity_patch(&object);
    let mut pairs = patch.map.pairs().to_vec();
    pairs.pop();
    patch.map = AddressMap::new(pairs).unwrap();
    let e = write::write_object(&object, &ObjectEdits { text: Some(patch), ..Default::default() }).unwrap_err();
    assert!(e.to_string().contains("covers"), "{e}");
}

fn containers() -> Vec<PathBuf> {
    let mut files = common::fixture_files("bundle", "hipfb");
    files.extend(common::fixture_files("host", "so"));
    files.push(common::repo().join("fixtures/co/gfx900/control_flow.O2.co"));
    files
}

#[test]
fn write_input_with_nothing_replaced_gives_the_input_bytes() {
    use gfxpatch::container::bundle::DecompressLimits;
    use gfxpatch::container::Input;
    for path in containers() {
        let data = read(&path);
        let input = Input::parse(&data, &DecompressLimits::default()).unwrap();
        assert!(write::write_input(&data, &input, &[]).unwrap() == data, "{}", path.display());
    }
}

#[test]
fn write_input_with_the_same_objects_keeps_every_object() {
    use gfxpatch::container::bundle::DecompressLimits;
    use gfxpatch::container::Input;
    for path in containers() {
        let data = read(&path);
        let input = Input::parse(&data, &DecompressLimits::default()).unwrap();
        let same: Vec<(usize, Vec<u8>)> = input.objects.iter().enumerate().map(|(i, o)| (i, o.bytes.to_vec())).collect();
        let out = write::write_input(&data, &input, &same).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let again = Input::parse(&out, &DecompressLimits::default()).unwrap();
        assert_eq!(again.objects.len(), input.objects.len());
        for (a, b) in again.objects.iter().zip(&input.objects) {
            assert_eq!((&a.bundle_id, a.bytes.as_ref()), (&b.bundle_id, b.bytes.as_ref()), "{}", path.display());
        }
        // An object replaced by its own bytes leaves its bundle as it was, compressed or not.
        assert!(out == data, "{}: re-packing the same objects changed bytes", path.display());
    }
}

/// Every code object of the corpus host libraries: no edits and the identity patch both give
/// the object's bytes, and the library written back with nothing replaced is the library.
#[test]
#[cfg_attr(not(gfxpatch_corpus), ignore = "real-world corpus: scripts/fetch-corpus.sh, then GFXPATCH_CORPUS=1")]
fn corpus_identity_rewrite_is_exact() {
    use gfxpatch::container::bundle::DecompressLimits;
    use gfxpatch::container::input::MappedFile;
    use gfxpatch::container::Input;
    use rayon::prelude::*;
    let mut total = 0;
    for lib in ["librocrand.so.1.1", "librocsparse.so.0.1"] {
        let file = MappedFile::open(&common::corpus_file(lib)).unwrap();
        let data = file.bytes();
        let input = Input::parse(data, &DecompressLimits::default()).unwrap();
        let failures: Vec<String> = input
            .objects
            .par_iter()
            .enumerate()
            .filter_map(|(i, embedded)| {
                let object = CodeObject::parse(&embedded.bytes).unwrap();
                let plain = write::write_object(&object, &ObjectEdits::default()).unwrap();
                let edits = ObjectEdits { text: Some(identity_patch(&object)), ..Default::default() };
                match write::write_object(&object, &edits) {
                    Ok(w) if plain.bytes == *embedded.bytes && w.bytes == *embedded.bytes => None,
                    Ok(_) => Some(format!("{lib}: {}: bytes differ", embedded.describe(i))),
                    Err(e) => Some(format!("{lib}: {}: {e}", embedded.describe(i))),
                }
            })
            .collect();
        assert!(failures.is_empty(), "{} of {} objects:\n{}", failures.len(), input.objects.len(), failures.join("\n"));
        total += input.objects.len();
        assert!(write::write_input(data, &input, &[]).unwrap() == data, "{lib}: write_input changed bytes");
    }
    assert_eq!(total, 777 + 7, "code objects in librocsparse and librocrand");
}
