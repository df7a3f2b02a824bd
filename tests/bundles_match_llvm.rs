//! Differential test of bundle reading against clang-offload-bundler (LLVM 19): the same entry
//! ids, and for every AMDGPU entry the same bytes as `-unbundle` writes; plus metadata notes
//! that re-encode to their exact bytes.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use gfxpatch::container::bundle::DecompressLimits;
use gfxpatch::container::{CodeObject, Input};

const BUNDLER: &str = "/usr/lib/llvm-19/bin/clang-offload-bundler";

/// The bundle of `path`: the file itself, or the `.hip_fatbin` section of a host ELF.
fn bundle_file(path: &Path, dir: &Path) -> PathBuf {
    if path.extension().is_some_and(|e| e == "so") {
        let out = dir.join("fatbin");
        let arg = format!(".hip_fatbin={}", out.display());
        common::llvm_tool(
            "llvm-objcopy-19",
            &[
                "--dump-section",
                &arg,
                path.to_str().unwrap(),
                dir.join("scratch").to_str().unwrap(),
            ],
        );
        out
    } else {
        path.to_owned()
    }
}

#[test]
fn bundle_entries_match_clang_offload_bundler() {
    let mut files = common::fixture_files("bundle", "hipfb");
    files.extend(common::fixture_files("host", "so"));
    let mut checked = 0;
    for file in files {
        let dir = tempfile::tempdir().unwrap();
        let bundle = bundle_file(&file, dir.path());
        let listed = common::llvm_tool(
            BUNDLER,
            &["-list", "-type=o", &format!("-input={}", bundle.display())],
        );
        let llvm_ids: BTreeSet<&str> = listed.lines().filter(|id| id.contains("amdgcn")).collect();

        let bytes = std::fs::read(&file).unwrap();
        let input = Input::parse(&bytes, &DecompressLimits::default()).unwrap();
        let our_ids: BTreeSet<&str> = input
            .objects
            .iter()
            .map(|o| o.bundle_id.as_deref().unwrap())
            .collect();
        assert_eq!(our_ids, llvm_ids, "{}: entry ids differ", file.display());

        for object in &input.objects {
            let id = object.bundle_id.as_deref().unwrap();
            let out = dir.path().join("entry");
            common::llvm_tool(
                BUNDLER,
                &[
                    "-unbundle",
                    "-type=o",
                    &format!("-input={}", bundle.display()),
                    &format!("-output={}", out.display()),
                    &format!("-targets={id}"),
                ],
            );
            let expected = std::fs::read(&out).unwrap();
            assert!(
                object.bytes.as_ref() == expected.as_slice(),
                "{}: {id}: bytes differ from -unbundle",
                file.display()
            );
            if !object.compressed {
                let at = &bytes[object.offset as usize..][..object.size as usize];
                assert_eq!(
                    at,
                    expected.as_slice(),
                    "{}: {id}: offset/size do not locate the entry",
                    file.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 18, "only {checked} bundle entries checked");
}

#[test]
fn metadata_notes_reencode_to_their_exact_bytes() {
    for file in common::code_object_fixtures() {
        let bytes = std::fs::read(&file).unwrap();
        let object = CodeObject::parse(&bytes).unwrap();
        // Hand-written objects may carry no metadata note (as PAL/Mesa objects do not); what
        // the compiler wrote always has one.
        let Some(metadata) = object.metadata.as_ref() else {
            assert!(file.to_string_lossy().ends_with(".asm.co"), "{}: no metadata note", file.display());
            continue;
        };
        let (offset, len) = object.metadata_range.unwrap();
        let original = &bytes[offset as usize..][..len as usize];
        assert!(
            metadata.to_msgpack() == original,
            "{}: metadata does not re-encode exactly",
            file.display()
        );
    }
}

/// clang-offload-bundler's default `-bundle-align` is 1, so a bundle made by hand can put a code
/// object at any offset. Its entries are read (copied where the ELF reader needs alignment),
/// rewritten and verified like any other; the identity rewrite is still the input, byte for byte.
#[test]
fn a_bundle_made_by_hand_with_unaligned_entries_is_read_and_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let a = common::repo().join("fixtures/co/gfx900/addr_math.O2.co");
    let b = common::repo().join("fixtures/co/gfx1100/addr_math.O2.co");
    let bundle = dir.path().join("unaligned.hipfb");
    let arg = |flag: &str, p: &Path| format!("{flag}={}", p.display());
    common::llvm_tool(
        BUNDLER,
        &[
            "-type=o",
            "-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx900,hipv4-amdgcn-amd-amdhsa--gfx1100",
            "-input=/dev/null",
            &arg("-input", &a),
            &arg("-input", &b),
            &arg("-output", &bundle),
        ],
    );
    let bytes = std::fs::read(&bundle).unwrap();
    let input = Input::parse(&bytes, &DecompressLimits::default()).unwrap();
    let offsets: Vec<u64> = input.objects.iter().map(|o| o.offset).collect();
    assert!(offsets.iter().any(|o| o % 8 != 0), "the bundler aligned every entry: {offsets:x?}; the test needs one that is not");
    for object in &input.objects {
        CodeObject::parse(&object.bytes).unwrap_or_else(|e| panic!("entry at {:#x}: {e}", object.offset));
    }

    let same = dir.path().join("same.hipfb");
    let run = common::gfxpatch(&["rewrite", bundle.to_str().unwrap(), "-o", same.to_str().unwrap()]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(std::fs::read(&same).unwrap() == bytes, "the identity rewrite changed the bundle");

    let nops = dir.path().join("nops.hipfb");
    let run = common::gfxpatch(&["rewrite", bundle.to_str().unwrap(), "-o", nops.to_str().unwrap(), "--passes", "insert-nops"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let run = common::gfxpatch(&["verify", nops.to_str().unwrap()]);
    assert!(run.status.success(), "{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    let listed = common::llvm_tool(BUNDLER, &["-list", "-type=o", &arg("-input", &nops)]);
    assert_eq!(listed.lines().filter(|l| l.contains("amdgcn")).count(), 2, "{listed}");
}
