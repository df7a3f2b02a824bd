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

/// Runs an LLVM tool and returns (stdout, stderr), failing on a non-zero exit.
fn llvm(tool: &str, args: &[&str]) -> (String, String) {
    let out = std::process::Command::new(tool).args(args).output().unwrap_or_else(|e| panic!("{tool}: {e}"));
    assert!(out.status.success(), "{tool} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn is_alloc(s: &gfxpatch::container::elf::Section) -> bool {
    s.flags & u64::from(object::elf::SHF_ALLOC) != 0
}

/// Writes the grown object of `data` and checks what `CodeObject::parse` reads back.
fn check_growth(path: &Path, data: &[u8]) -> Vec<u8> {
    let object = CodeObject::parse(data).unwrap();
    let patch = grow(&object);
    let text = *text_of(&object);
    let shift = write::address_shift(&object, patch.bytes.len() as u64).unwrap();
    assert!(shift >= patch.bytes.len() as u64 - text.size && shift.is_multiple_of(256), "shift {shift:#x}");
    let map = patch.map.clone();
    let new_len = patch.bytes.len() as u64;
    let edits = ObjectEdits { text: Some(patch), ..Default::default() };
    let written = write::write_object(&object, &edits).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let new = CodeObject::parse(&written.bytes).unwrap_or_else(|e| panic!("{}: output does not parse: {e}", path.display()));
    let name = path.display();
    let text_end = text.address + text.size;
    let moved = |a: u64| if a < text.address { a } else if a < text_end { map.map(a).unwrap() } else { a + shift };

    // Kernels: same descriptors, entries at the start of their inserted nops.
    assert_eq!(new.kernels.len(), object.kernels.len());
    for (a, b) in object.kernels.iter().zip(&new.kernels) {
        assert_eq!((a.name, a.descriptor_address), (b.name, b.descriptor_address), "{name}");
        assert_eq!(b.entry_address, map.map(a.entry_address).unwrap(), "{name}: kernel {} entry", a.name);
        assert_eq!(b.entry_address % 256, 0);
        let nops = &written.bytes[b.entry_offset.unwrap() as usize..][..INSERTED as usize];
        assert!(nops.chunks(4).all(|w| w == S_NOP_0), "{name}: kernel {} does not start with the nops", a.name);
        let code = &written.bytes[(b.entry_offset.unwrap() + INSERTED) as usize..][..16];
        assert_eq!(code, &data[a.entry_offset.unwrap() as usize..][..16], "{name}: kernel {} code moved wrong", a.name);
    }
    // Symbols: values moved; sizes of code symbols span the same instructions.
    assert_eq!(new.symbols.len(), object.symbols.len());
    for (a, b) in object.symbols.iter().zip(&new.symbols) {
        let section = &object.sections[a.section_index as usize];
        if a.section_index == 0 || a.section_index >= 0xff00 || !is_alloc(section) {
            assert_eq!((a.value, a.size), (b.value, b.size), "{name}: symbol {}", a.name);
        } else if a.section_index as usize == text.index {
            assert_eq!(b.value, map.map(a.value).unwrap(), "{name}: symbol {}", a.name);
            assert_eq!(b.value + b.size, map.map(a.value + a.size).unwrap(), "{name}: symbol {} size", a.name);
        } else {
            assert_eq!((b.value, b.size), (moved(a.value), a.size), "{name}: symbol {}", a.name);
        }
    }
    // Sections: before .text in place, after it moved by the shift (non-alloc at least that).
    for (a, b) in object.sections.iter().zip(&new.sections) {
        assert_eq!((a.name, a.sh_type, a.flags), (b.name, b.sh_type, b.flags));
        if a.index == text.index {
            assert_eq!((b.address, b.offset, b.size), (a.address, a.offset, new_len), "{name}: .text");
        } else if is_alloc(a) && a.address >= text_end {
            assert_eq!((b.address, b.offset, b.size), (a.address + shift, a.offset + shift, a.size), "{name}: {}", a.name);
        } else if a.offset >= text.offset + text.size && a.sh_type != 0 {
            assert!(b.offset >= a.offset + shift, "{name}: {}", a.name);
        } else {
            assert_eq!((b.address, b.offset, b.size), (a.address, a.offset, a.size), "{name}: {}", a.name);
        }
        // Contents that hold no addresses are copied.
        let unchanged_contents = !matches!(a.sh_type, 2 | 4 | 6 | 11) && a.index != text.index && !a.name.starts_with(".debug");
        if unchanged_contents && a.sh_type != 8 {
            let old = &data[a.offset as usize..][..a.size as usize];
            let got = &written.bytes[b.offset as usize..][..b.size as usize];
            if a.name != ".rodata" {
                assert!(old == got, "{name}: contents of {} changed", a.name);
            }
        }
    }
    // Segments, .dynamic, relocations.
    for (a, b) in object.segments.iter().zip(&new.segments) {
        if a.offset == text.offset && a.p_type == object::elf::PT_LOAD {
            assert_eq!((b.file_size, b.mem_size), (new_len, new_len));
        } else if a.vaddr >= text_end && a.offset >= text.offset + text.size && a.mem_size > 0 {
            assert_eq!((b.offset, b.vaddr), (a.offset + shift, a.vaddr + shift), "{name}: segment {a:?}");
        } else {
            assert_eq!(a, b);
        }
        if b.p_type == object::elf::PT_LOAD && b.align > 1 {
            assert_eq!(b.offset % b.align, b.vaddr % b.align, "{name}: p_vaddr and p_offset incongruent");
        }
    }
    for (a, b) in object.dynamic.iter().zip(&new.dynamic) {
        let address_tags = [4, 5, 6, 7, 0x6fff_fef5];
        let expected = if address_tags.contains(&a.tag) { moved(a.value) } else { a.value };
        assert_eq!((b.tag, b.value), (a.tag, expected), "{name}: .dynamic");
    }
    for (a, b) in object.relocations.iter().zip(&new.relocations) {
        assert_eq!(b.offset, moved(a.offset), "{name}: relocation");
        if a.r_type == 13 {
            assert_eq!(b.addend as u64, moved(a.addend as u64), "{name}: RELATIVE64 addend");
        }
    }
    written.bytes
}

#[test]
fn growth_moves_everything_after_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (path, data) in linked_fixtures() {
        let has_debug = CodeObject::parse(&data).unwrap().sections.iter().any(|s| s.name.starts_with(".debug_"));
        if has_debug {
            continue; // tests/write_dwarf.rs
        }
        let bytes = check_growth(&path, &data);
        let out = dir.path().join("grown.co");
        std::fs::write(&out, &bytes).unwrap();
        let out = out.to_str().unwrap();
        let (_, stderr) = llvm("llvm-readelf-19", &["-a", out]);
        assert!(stderr.is_empty(), "{}: llvm-readelf-19 -a warns:\n{stderr}", path.display());
        let (listing, stderr) = llvm("llvm-objdump-19", &["-d", out]);
        assert!(stderr.is_empty(), "{}: llvm-objdump-19 -d warns:\n{stderr}", path.display());
        let new = CodeObject::parse(&bytes).unwrap();
        for k in &new.kernels {
            let label = format!("{:016x} <{}>:", k.entry_address, k.name);
            let at = listing.find(&label).unwrap_or_else(|| panic!("{}: no label {label}", path.display()));
            let first: Vec<&str> = listing[at..].lines().skip(1).take(64).collect();
            assert!(first.iter().all(|l| l.trim_start().starts_with("s_nop 0")), "{}: {label} {first:?}", path.display());
        }
        checked += 1;
    }
    assert!(checked > 150, "only {checked} fixtures grown");
}

/// Raises every kernel's counts and checks, through `gfxpatch info --json`, that metadata and
/// descriptor agree on the new counts; counts below the original change nothing.
#[test]
fn raised_register_counts_agree_in_descriptor_and_metadata() {
    use gfxpatch::container::write::KernelRegisters;
    let dir = tempfile::tempdir().unwrap();
    let (mut raised, mut refused, mut moved) = (0, 0, 0);
    for (path, data) in linked_fixtures() {
        let object = CodeObject::parse(&data).unwrap();
        let Some(metadata) = &object.metadata else { continue };
        let unified = object.target.processor.generation.has_unified_agprs();
        let lower: Vec<KernelRegisters> = metadata
            .kernels
            .iter()
            .map(|k| KernelRegisters { kernel: k.name.clone(), vgpr_count: 1, agpr_count: 0, sgpr_count: 1 })
            .collect();
        let same = write::write_object(&object, &ObjectEdits { registers: lower, ..Default::default() }).unwrap();
        assert!(same.bytes == data && same.notes.is_empty(), "{}: lower counts changed the object", path.display());

        let cap = if unified { 512 } else { 256 };
        let wanted: Vec<KernelRegisters> = metadata
            .kernels
            .iter()
            .map(|k| {
                let agprs = k.agpr_count.unwrap_or(0) as u32 + if k.agpr_count.is_some() { 4 } else { 0 };
                // At least 128: msgpack then needs a byte more per count, so objects with a few
                // kernels outgrow the note's room and the tables after it must move.
                let vgprs = (k.vgpr_count.unwrap_or(0) as u32 + 9 + if unified && k.agpr_count.is_some() { 4 } else { 0 })
                    .max(128)
                    .min(cap)
                    .min(if unified { 256 + agprs } else { cap });
                KernelRegisters { kernel: k.name.clone(), vgpr_count: vgprs, agpr_count: agprs, sgpr_count: (k.sgpr_count.unwrap_or(0) as u32 + 9).min(96) }
            })
            .collect();
        let written = match write::write_object(&object, &ObjectEdits { registers: wanted.clone(), ..Default::default() }) {
            Ok(w) => w,
            Err(e) => {
                assert!(e.to_string().contains("the metadata note cannot grow"), "{}: {e}", path.display());
                eprintln!("{}: {e}", path.display());
                refused += 1;
                continue;
            }
        };
        let out = dir.path().join("raised.co");
        std::fs::write(&out, &written.bytes).unwrap();
        if written.notes.iter().any(|n| n.contains("tables after it moved")) {
            // The note outgrew its room and the dynamic-linking tables moved: the loader must
            // still find the same dynamic symbols, and LLVM must read the moved tables.
            let input = path.to_str().unwrap();
            assert_eq!(dynamic_symbols(out.to_str().unwrap()), dynamic_symbols(input), "{}", path.display());
            moved += 1;
        }
        let json = common::info_json(&out);
        for k in json["code_objects"][0]["kernels"].as_array().unwrap() {
            let w = wanted.iter().find(|w| w.kernel == k["name"]).unwrap();
            let old = metadata.kernel(&w.kernel).unwrap();
            assert_eq!(k["disagreements"], serde_json::json!([]), "{}: {}", path.display(), w.kernel);
            assert_eq!(k["vgpr_count"], (w.vgpr_count as u64).max(old.vgpr_count.unwrap()), "{}", path.display());
            assert_eq!(k["sgpr_count"], (w.sgpr_count as u64).max(old.sgpr_count.unwrap()), "{}", path.display());
            if let Some(a) = old.agpr_count {
                assert_eq!(k["agpr_count"], (w.agpr_count as u64).max(a));
            }
            let regs = &k["descriptor_registers"];
            assert!(regs["vgprs"].as_u64().unwrap() >= k["vgpr_count"].as_u64().unwrap(), "{}: {regs}", path.display());
            if let Some(accum) = regs["accum_offset"].as_u64() {
                let agprs = k["agpr_count"].as_u64().unwrap_or(0);
                assert!(accum + agprs <= regs["vgprs"].as_u64().unwrap().max(accum + agprs), "{}", path.display());
                assert!(accum >= k["vgpr_count"].as_u64().unwrap() - agprs, "{}: accum_offset {accum} {regs}", path.display());
            }
        }
        assert!(!written.notes.is_empty());
        raised += 1;
    }
    eprintln!("register counts raised in {raised} fixtures ({moved} with the tables after the note moved), refused in {refused}");
    // Measured when the tables learned to move: 64 of 213 objects needed it, 10 are refused
    // because the padding before .rodata is shorter than the 8 bytes `.dynsym` must move.
    assert!(raised > 150 && moved > 40 && refused * 10 < raised, "raised {raised}, moved {moved}, refused {refused}");
}

/// `llvm-readelf-19 --dyn-syms` rows without their index: value, size, type, binding, name.
fn dynamic_symbols(file: &str) -> Vec<String> {
    let (text, _) = llvm("llvm-readelf-19", &["--dyn-syms", "--wide", file]);
    text.lines().filter_map(|l| l.split_once(": ")).map(|(_, row)| row.split_whitespace().collect::<Vec<_>>().join(" ")).collect()
}

/// Rows of `llvm-dwarfdump-19 --debug-line`: (address, rest of the row).
fn line_rows(file: &str) -> Vec<(u64, String)> {
    let (text, _) = llvm("llvm-dwarfdump-19", &["--debug-line", file]);
    text.lines()
        .filter(|l| l.starts_with("0x") && l.split_whitespace().count() >= 7)
        .map(|l| {
            let (address, rest) = l.split_once(' ').unwrap();
            (u64::from_str_radix(&address[2..], 16).unwrap(), rest.trim().to_owned())
        })
        .collect()
}

/// Address attributes of `llvm-dwarfdump-19 --debug-info`, in order: (attribute, address).
fn address_attributes(file: &str) -> Vec<(String, u64)> {
    let (text, _) = llvm("llvm-dwarfdump-19", &["--debug-info", file]);
    let mut out = Vec::new();
    for l in text.lines().map(str::trim) {
        for attr in ["DW_AT_low_pc", "DW_AT_high_pc", "DW_AT_call_return_pc", "DW_AT_entry_pc"] {
            if let Some(rest) = l.strip_prefix(attr) {
                let value = rest.trim().trim_start_matches('(').split([')', ' ']).next().unwrap();
                if let Some(hex) = value.strip_prefix("0x") {
                    out.push((attr.to_owned(), u64::from_str_radix(hex, 16).unwrap()));
                }
            }
        }
        // Ranges and locations print as [start, end) pairs.
        for pair in l.split('[').skip(1) {
            if let Some((a, b)) = pair.split_once(')').and_then(|(p, _)| p.split_once(", "))
                && let (Some(a), Some(b)) = (a.strip_prefix("0x"), b.strip_prefix("0x")) {
                    out.push(("range start".into(), u64::from_str_radix(a, 16).unwrap()));
                    out.push(("range end".into(), u64::from_str_radix(b, 16).unwrap()));
                }
        }
    }
    out
}

#[test]
fn growth_remaps_dwarf_and_dwarfdump_verifies_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for path in common::code_object_fixtures().into_iter().filter(|p| p.to_str().unwrap().contains("debug_info.O") || p.to_str().unwrap().contains("debug_info_dwarf4.")) {
        let data = read(&path);
        let object = CodeObject::parse(&data).unwrap();
        let patch = grow(&object);
        let map = patch.map.clone();
        let text = *text_of(&object);
        let shift = write::address_shift(&object, patch.bytes.len() as u64).unwrap();
        let moved = |a: u64| if a < text.address { a } else if a <= text.address + text.size { map.map(a).unwrap() } else { a + shift };
        let bytes = check_growth(&path, &data);
        let written = write::write_object(&object, &ObjectEdits { text: Some(patch), ..Default::default() }).unwrap();
        assert!(written.bytes == bytes && written.notes.is_empty(), "{}: {:?}", path.display(), written.notes);
        let (old, new) = (dir.path().join("old.co"), dir.path().join("new.co"));
        std::fs::write(&old, &data).unwrap();
        std::fs::write(&new, &bytes).unwrap();
        let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
        let (verify, _) = llvm("llvm-dwarfdump-19", &["--verify", new]);
        assert!(verify.contains("No errors."), "{}: llvm-dwarfdump-19 --verify:\n{verify}", path.display());
        let (before, after) = (line_rows(old), line_rows(new));
        assert!(!before.is_empty());
        let expected: Vec<(u64, String)> = before.iter().map(|(a, rest)| (moved(*a), rest.clone())).collect();
        assert_eq!(after, expected, "{}: line table rows", path.display());
        let (before, after) = (address_attributes(old), address_attributes(new));
        assert!(before.len() > 5, "{}: {before:?}", path.display());
        let expected: Vec<(String, u64)> = before.iter().map(|(k, a)| (k.clone(), moved(*a))).collect();
        assert_eq!(after, expected, "{}: address attributes and ranges", path.display());
        let (frames, _) = llvm("llvm-dwarfdump-19", &["--debug-frame", new]);
        for fde in frames.lines().filter(|l| l.contains(" FDE ")) {
            let range = fde.split("pc=").nth(1).unwrap();
            let (s, e) = range.split_once("...").unwrap();
            let (s, e) = (u64::from_str_radix(s, 16).unwrap(), u64::from_str_radix(e, 16).unwrap());
            assert!(new_symbol_at(&bytes, s), "{}: FDE starts at {s:#x}, no function there", path.display());
            assert!(e > s);
        }
        checked += 1;
    }
    assert_eq!(checked, 10, "debug_info.O0g and .O2g for four targets, DWARF 4 .O2g for two");
}

fn new_symbol_at(bytes: &[u8], address: u64) -> bool {
    CodeObject::parse(bytes).unwrap().symbols.iter().any(|s| s.value == address && s.size > 0)
}

/// In a host library a smaller object is written in place (its size field updated, the rest
/// zeroed, the file the same size); one that no longer fits moves with its bundle to the end of
/// the host, which grows, and reads back where the wrapper now points.
#[test]
fn host_library_objects_stay_in_their_slot_or_move_with_their_bundle() {
    use gfxpatch::container::bundle::DecompressLimits;
    use gfxpatch::container::Input;
    for name in ["hip_kernels.so", "hip_kernels.ccob.so"] {
        let data = read(&common::repo().join("fixtures/host").join(name));
        let input = Input::parse(&data, &DecompressLimits::default()).unwrap();
        let mut big = input.objects[0].bytes.to_vec();
        big.extend(std::iter::repeat_n(0x5au8, 64 << 10));
        let (out, notes) = write::write_input_noting(&data, &input, &[(0, big.clone())]).unwrap();
        assert!(out.len() > data.len(), "{name}: the host grows");
        assert_eq!(notes.moved.iter().map(|m| m.object).collect::<Vec<_>>(), vec![0], "{name}");
        assert!(notes.moved[0].note.contains("code object 0") && notes.moved[0].note.contains("moved to the end of the last PT_LOAD"), "{}", notes.moved[0].note);
        let again = Input::parse(&out, &DecompressLimits::default()).unwrap();
        assert_eq!(again.objects.len(), input.objects.len(), "{name}");
        assert_eq!(again.objects.iter().filter(|o| o.bytes[..] == big[..]).count(), 1, "{name}: the grown object is there once");
        for o in input.objects.iter().skip(1) {
            assert!(again.objects.iter().any(|a| a.bundle_id == o.bundle_id && a.bytes == o.bytes), "{name}: another object changed");
        }

        let small = input.objects[0].bytes[..input.objects[0].bytes.len() - 64].to_vec();
        let (out, notes) = write::write_input_noting(&data, &input, &[(0, small.clone())]).unwrap();
        if !notes.moved.is_empty() {
            // Our zstd level 3 compresses these bundles a little worse than the bundler that
            // made them, so even a smaller object can miss a compressed slot by a few bytes.
            assert!(input.objects[0].compressed, "{name}: a smaller plain object moved");
            continue;
        }
        assert_eq!(out.len(), data.len(), "{name}: the host library changed size");
        let again = Input::parse(&out, &DecompressLimits::default()).unwrap();
        assert_eq!(again.objects[0].bytes.as_ref(), small.as_slice(), "{name}");
        for (a, b) in again.objects.iter().zip(&input.objects).skip(1) {
            assert_eq!(a.bytes, b.bytes, "{name}: another object changed");
        }
    }
}

/// One object of a bundle grows past its slot, its neighbour shrinks: the bundle moves with
/// both. Where the host cannot grow (e_machine AArch64 here), `write_input_keeping_misfits`
/// keeps the misfit's original bytes and lists it with both sizes and the reason, and the
/// other replacement in the same bundle is still written in place.
#[test]
fn host_library_growth_and_shrinking_mix_and_misfits_are_kept_where_it_cannot_grow() {
    use gfxpatch::container::bundle::DecompressLimits;
    use gfxpatch::container::Input;
    let x86 = read(&common::repo().join("fixtures/host/hip_kernels.so"));
    let input = Input::parse(&x86, &DecompressLimits::default()).unwrap();
    assert!(input.objects.len() >= 2);
    let mut big = input.objects[0].bytes.to_vec();
    big.extend(std::iter::repeat_n(0x5au8, 64 << 10));
    let small = input.objects[1].bytes[..input.objects[1].bytes.len() - 64].to_vec();
    let (out, misfits) = write::write_input_keeping_misfits(&x86, &input, &[(0, big.clone()), (1, small.clone())]).unwrap();
    assert!(misfits.is_empty(), "{misfits:?}");
    let again = Input::parse(&out, &DecompressLimits::default()).unwrap();
    assert_eq!(again.objects[0].bytes.as_ref(), big.as_slice());
    assert_eq!(again.objects[1].bytes.as_ref(), small.as_slice());

    let mut data = x86.clone();
    data[18..20].copy_from_slice(&183u16.to_le_bytes());
    let input = Input::parse(&data, &DecompressLimits::default()).unwrap();
    let (out, misfits) = write::write_input_keeping_misfits(&data, &input, &[(0, big.clone()), (1, small.clone())]).unwrap();
    assert_eq!(misfits.len(), 1, "{misfits:?}");
    assert_eq!((misfits[0].object, misfits[0].needed), (0, big.len() as u64));
    assert!(misfits[0].slot < misfits[0].needed);
    let text = misfits[0].to_string();
    assert!(text.contains("code object 0") && text.contains("the original bytes are kept") && text.contains("x86-64 hosts only"), "{text}");
    assert_eq!(out.len(), data.len());
    let again = Input::parse(&out, &DecompressLimits::default()).unwrap();
    assert_eq!(again.objects[0].bytes, input.objects[0].bytes, "the misfit keeps its bytes");
    assert_eq!(again.objects[1].bytes.as_ref(), small.as_slice(), "the other object is replaced");
    // The strict writer refuses the same request as a whole.
    assert!(write::write_input(&data, &input, &[(0, big), (1, small)]).is_err());
}
