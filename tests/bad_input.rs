//! Bad input gets one clear line naming the file and the fault, exit status 2, never a panic.

mod common;

use std::path::{Path, PathBuf};

use gfxpatch::container::bundle::{CompressionMethod, write_bundle, write_compressed_bundle};

/// Writes `bytes` to a file in a fresh temporary directory, returns the directory and path.
fn temp_file(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

/// Runs `gfxpatch info` on `path` and checks the failure contract; returns the message.
fn info_fails(path: &Path) -> String {
    let output = common::gfxpatch(&["info", path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}: expected exit 2, stderr: {stderr}",
        path.display()
    );
    assert!(
        !stderr.contains("panicked"),
        "{}: panic: {stderr}",
        path.display()
    );
    assert_eq!(
        stderr.lines().count(),
        1,
        "{}: want one line, got: {stderr}",
        path.display()
    );
    let prefix = format!("gfxpatch: {}: ", path.display());
    assert!(
        stderr.starts_with(&prefix),
        "message does not name the file: {stderr}"
    );
    assert!(
        output.stdout.is_empty(),
        "nothing may be printed on stdout on failure"
    );
    stderr[prefix.len()..].trim_end().to_owned()
}

fn fixture_bytes() -> Vec<u8> {
    let path = common::repo().join("fixtures/co/gfx900/addr_math.O2.co");
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn truncated_elf_names_what_is_missing() {
    let bytes = fixture_bytes();
    for cut in [
        0,
        1,
        16,
        63,
        64,
        200,
        bytes.len() / 2,
        bytes.len() - 64,
        bytes.len() - 1,
    ] {
        let (_dir, path) = temp_file("truncated.co", &bytes[..cut]);
        let message = info_fails(&path);
        let expected = if cut == 0 {
            "empty"
        } else if cut < 16 {
            "not an ELF"
        } else {
            "truncated"
        };
        assert!(
            message.contains(expected) || message.contains("malformed ELF"),
            "cut at {cut}: {message}"
        );
    }
}

#[test]
fn non_amdgpu_elf_is_refused() {
    // The test binary itself: an x86-64 ELF with no .hip_fatbin section.
    let exe = std::env::current_exe().unwrap();
    let message = info_fails(&exe);
    assert!(
        message.contains("not EM_AMDGPU") && message.contains("x86-64"),
        "{message}"
    );
}

#[test]
fn unknown_mach_is_named() {
    let mut bytes = fixture_bytes();
    // e_flags is at offset 48 of an ELF64 header; 0x27 is a reserved EF_AMDGPU_MACH value.
    bytes[48] = 0x27;
    let (_dir, path) = temp_file("unknown_mach.co", &bytes);
    let message = info_fails(&path);
    assert!(
        message.contains("unknown processor: EF_AMDGPU_MACH 0x27"),
        "{message}"
    );
}

#[test]
fn garbage_is_not_a_format() {
    let (_dir, path) = temp_file(
        "garbage.bin",
        b"MZ\x90\x00garbage that is not a code object",
    );
    let message = info_fails(&path);
    assert!(
        message.contains("not an ELF file or offload bundle (first bytes: 4d 5a 90 00"),
        "{message}"
    );
    let (_dir, path) = temp_file("empty.bin", b"");
    assert!(info_fails(&path).contains("empty"));
}

#[test]
fn bundle_entry_past_the_end_is_refused() {
    let object = fixture_bytes();
    let mut bundle = write_bundle(&[
        ("host-x86_64-unknown-linux", &[]),
        ("hipv4-amdgcn-amd-amdhsa--gfx900", &object),
    ]);
    // Header: magic (24), count (8), then entries of (offset, size, id length, id).
    let second_entry = 24 + 8 + 24 + "host-x86_64-unknown-linux".len();
    bundle[second_entry + 8..second_entry + 16]
        .copy_from_slice(&(object.len() as u64 * 4).to_le_bytes());
    let (_dir, path) = temp_file("past_end.hipfb", &bundle);
    let message = info_fails(&path);
    assert!(message.contains("past the end"), "{message}");
}

#[test]
fn compressed_bundle_with_lying_sizes_is_refused() {
    let object = fixture_bytes();
    let bundle = write_bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx900", &object)]);
    for method in [CompressionMethod::Zstd, CompressionMethod::Zlib] {
        let good = write_compressed_bundle(2, method, &bundle);
        // Version 2 header: magic (4), version (2), method (2), total size (4), uncompressed size (4).
        for lie in [bundle.len() as u32 / 2, bundle.len() as u32 + 100, u32::MAX] {
            let mut bad = good.clone();
            bad[12..16].copy_from_slice(&lie.to_le_bytes());
            let (_dir, path) = temp_file("lying.ccob", &bad);
            let message = info_fails(&path);
            assert!(
                message.contains("sizes lie") || message.contains("uncompressed bytes"),
                "{method:?} lie {lie}: {message}"
            );
        }
        // The honest one reads.
        let (_dir, path) = temp_file("honest.ccob", &good);
        let json = common::info_json(&path);
        assert_eq!(json["code_objects"].as_array().unwrap().len(), 1);
    }
}

/// Regression: a directory given as input was mapped, and mmap's ENODEV came out as
/// "No such device (os error 19)", which names nothing the user did wrong.
#[test]
fn directory_input_says_it_is_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let message = info_fails(dir.path());
    assert!(message.contains("is a directory"), "{message}");
}

/// A pipe cannot be mapped; its bytes are read instead, so `gfxpatch info <(zstd -dc ...)`
/// works like a file.
#[test]
fn pipe_input_is_read_like_a_file() {
    let fixture = common::repo().join("fixtures/co/gfx900/addr_math.O2.co");
    let from_file = common::gfxpatch(&["info", fixture.to_str().unwrap()]);
    assert!(from_file.status.success());
    let output = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("\"$0\" info <(cat '{}')", fixture.display()))
        .arg(env!("CARGO_BIN_EXE_gfxpatch"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    // The report names the input; everything after the first line must agree.
    let body = |bytes: &[u8]| String::from_utf8_lossy(bytes).lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&output.stdout), body(&from_file.stdout));
}
