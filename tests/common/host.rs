//! The whole-library checks (item 5 of the host-growth issue): tests/host_growth.rs,
//! tests/instrument.rs's corpus test and tests/retarget.rs include this with `#[path]`, so
//! that no other test binary compiles it.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use gfxpatch::container::bundle::{parse_bundle, DecompressLimits};
use gfxpatch::container::elf::ElfFile;
use gfxpatch::container::fatbin::HostImage;

pub fn run(tool: &str, args: &[&str]) -> std::process::Output {
    Command::new(tool)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{tool} is required (scripts/setup.sh installs it): {e}"))
}

pub fn run_ok(tool: &str, args: &[&str]) -> (String, String) {
    let o = run(tool, args);
    let (out, err) = (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned());
    assert!(o.status.success(), "{tool} {args:?} failed: {err}{out}");
    (out, err)
}


/// One code object as a wrapper finds it: (wrapper index, bundle entry id) -> bytes.
type Objects = BTreeMap<(usize, String), Vec<u8>>;

/// Every bundle the wrappers point at, read by us: its file extent and its code objects.
pub fn wrapped_bundles(data: &[u8]) -> Vec<(u64, u64, Objects)> {
    let file = ElfFile::parse(data).unwrap();
    let image = HostImage::read(&file).unwrap();
    assert!(!image.wrappers.is_empty());
    image
        .wrappers
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let offset = image.file_offset(w.target, 32).unwrap_or_else(|| panic!("wrapper {i} points at {:#x}, which no PT_LOAD maps", w.target));
            let bundle = parse_bundle(&data[offset as usize..], &DecompressLimits::default()).unwrap();
            let objects = bundle.code_objects().map(|e| ((i, e.id.to_string()), e.bytes.to_vec())).collect();
            (offset, bundle.len, objects)
        })
        .collect()
}

pub fn all_objects(data: &[u8]) -> Objects {
    wrapped_bundles(data).into_iter().flat_map(|(_, _, o)| o).collect()
}

/// What `eu-elflint --gnu-ld` reports, one finding a line.
pub fn elflint(path: &Path) -> BTreeSet<String> {
    let o = run("eu-elflint", &["--gnu-ld", path.to_str().unwrap()]);
    String::from_utf8_lossy(&o.stdout).lines().chain(String::from_utf8_lossy(&o.stderr).lines()).map(str::to_owned).collect()
}

/// Loads a library with ctypes, or runs an executable; panics with what went wrong.
pub fn loads(path: &Path) {
    let data = std::fs::read(path).unwrap();
    let is_exec = u16::from_le_bytes([data[16], data[17]]) == 2;
    let o = if is_exec {
        let mut perms = std::fs::metadata(path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(path, perms).unwrap();
        run(path.to_str().unwrap(), &[])
    } else {
        run("/usr/bin/python3", &["-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])", path.to_str().unwrap()])
    };
    assert!(o.status.success(), "{} does not load: {}{}", path.display(), String::from_utf8_lossy(&o.stderr), String::from_utf8_lossy(&o.stdout));
}

/// The checks of item 5 on `output`, rewritten from `input`. `rewritten` names the objects
/// expected to differ (None: any may); the LLVM tools and `gfxpatch verify` run on the
/// objects that differ (all of them when `check_all`), the rest must be byte-identical.
pub fn check_output(input: &Path, output: &Path, rewritten: Option<&BTreeSet<(usize, String)>>, check_all: bool) -> usize {
    let name = output.display().to_string();
    let dir = tempfile::tempdir().unwrap();
    // eu-elflint: nothing new.
    let (before, after) = (elflint(input), elflint(output));
    let new: Vec<&String> = after.difference(&before).collect();
    assert!(new.is_empty(), "{name}: eu-elflint --gnu-ld reports what it did not on the input: {new:#?}");
    // The loader, before and after strip.
    loads(output);
    let stripped = dir.path().join("stripped");
    run_ok("strip", &["--strip-unneeded", "-o", stripped.to_str().unwrap(), output.to_str().unwrap()]);
    loads(&stripped);
    assert_eq!(all_objects(&std::fs::read(&stripped).unwrap()), all_objects(&std::fs::read(output).unwrap()), "{name}: strip changed a code object");

    let (old, new) = (std::fs::read(input).unwrap(), std::fs::read(output).unwrap());
    let old_objects = all_objects(&old);
    let mut changed = 0;
    for (offset, len, objects) in wrapped_bundles(&new) {
        // LLVM's bundler reads the bundle exactly where the wrapper points.
        let bundle_file = dir.path().join("bundle");
        std::fs::write(&bundle_file, &new[offset as usize..(offset + len) as usize]).unwrap();
        let input_arg = format!("-input={}", bundle_file.display());
        let (listed, _) = run_ok("clang-offload-bundler-19", &["-list", "-type=o", &input_arg]);
        // The host entry is empty (and the bundler cannot name it back): device entries only.
        let ids: Vec<&str> = listed.lines().filter(|id| !id.starts_with("host-")).collect();
        let outputs: Vec<PathBuf> = (0..ids.len()).map(|k| dir.path().join(format!("entry{k}"))).collect();
        let mut args = vec!["-unbundle".to_owned(), "-type=o".to_owned(), input_arg.clone(), format!("-targets={}", ids.join(","))];
        args.extend(outputs.iter().map(|p| format!("-output={}", p.display())));
        run_ok("clang-offload-bundler-19", &args.iter().map(String::as_str).collect::<Vec<_>>());
        let unbundled: BTreeMap<&str, Vec<u8>> = ids.iter().zip(&outputs).map(|(id, p)| (*id, std::fs::read(p).unwrap())).collect();
        assert_eq!(objects.len(), unbundled.len(), "{name}: bundle at {offset:#x}: {listed}");
        for ((wrapper, id), bytes) in &objects {
            assert_eq!(&unbundled[id.as_str()], bytes, "{name}: clang-offload-bundler-19 extracts other bytes for {id}");
            let key = (*wrapper, id.clone());
            let original = &old_objects[&key];
            let differs = original != bytes;
            if let Some(expected) = rewritten {
                assert_eq!(differs, expected.contains(&key), "{name}: wrapper {wrapper} {id}: rewritten {differs}, expected {}", expected.contains(&key));
            }
            changed += usize::from(differs);
            if !(differs || check_all) {
                continue;
            }
            let co = dir.path().join("object.co");
            std::fs::write(&co, bytes).unwrap();
            let co = co.to_str().unwrap();
            let v = crate::common::gfxpatch(&["verify", co]);
            assert!(v.status.success(), "{name}: {id}: gfxpatch verify: {}", String::from_utf8_lossy(&v.stdout));
            let (_, err) = run_ok("llvm-objdump-19", &["-d", co]);
            assert!(err.is_empty(), "{name}: {id}: llvm-objdump-19 -d: {err}");
            run_ok("llvm-dwarfdump-19", &["--verify", co]);
        }
    }
    assert_eq!(old_objects.keys().collect::<Vec<_>>(), all_objects(&new).keys().collect::<Vec<_>>(), "{name}: the wrappers find other objects");
    changed
}
