//! Whole-library rewrites: several inputs in one command (`--out-dir`), the report's entry per
//! code object, and `applied` equal to the sum of what the rules applied in each object.
//! `GFXPATCH_CORPUS=1`: the same facts on the whole of Debian's librocsparse.

mod common;

use std::path::Path;

use common::{gfxpatch, repo};

fn report(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).expect("report is not JSON")
}

/// The report's totals agree with its objects: per pass `applied` is the sum of the objects'
/// (one pass here), instruction counts too, and each refused object is listed in `refused`.
fn check_totals(r: &serde_json::Value) {
    let objects = r["objects"].as_array().expect("no objects[] in the report");
    let sum = |key: &str| objects.iter().map(|o| o[key].as_u64().unwrap()).sum::<u64>();
    let applied: u64 = r["passes"].as_array().unwrap().iter().map(|p| p["applied"].as_u64().unwrap()).sum();
    assert_eq!(applied, sum("applied"), "applied is not the sum over the objects");
    let rules: u64 = r["passes"].as_array().unwrap().iter().flat_map(|p| p["rules"].as_object().into_iter().flatten()).map(|(_, s)| s["applied"].as_u64().unwrap()).sum();
    if r["passes"][0]["name"] == "peephole" {
        assert_eq!(applied, rules, "applied is not the sum over the rules");
    }
    assert_eq!(r["instructions_before"].as_u64().unwrap(), sum("instructions_before"));
    assert_eq!(r["instructions_after"].as_u64().unwrap(), sum("instructions_after"));
    let refused = objects.iter().filter(|o| o.get("refused").is_some()).count();
    assert_eq!(refused, r["refused"].as_array().unwrap().len());
    for o in objects {
        assert!(!o["target"].as_str().unwrap().is_empty(), "{o}");
        if o.get("refused").is_some() {
            assert_eq!(o["applied"], 0, "a refused object holds no rewrite: {o}");
        }
    }
}

#[test]
fn several_inputs_share_one_command_and_report_every_object() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [repo().join("fixtures/bundle/hip_kernels.hipfb"), repo().join("fixtures/co/gfx90a/trap_abort.O2.co"), repo().join("fixtures/co/gfx1100/hip_kernels.O2.co")];
    let out = dir.path().join("out");
    let rep = dir.path().join("r.json");
    let mut args = vec!["rewrite"];
    args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
    args.extend(["--out-dir", out.to_str().unwrap(), "--passes", "insert-nops", "--jobs", "2", "--report", rep.to_str().unwrap()]);
    let o = gfxpatch(&args);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    // The summary table: a row per target and the total (stderr is no terminal: no progress bar).
    assert!(stderr.contains("target") && stderr.lines().any(|l| l.starts_with("total ")), "{stderr}");
    assert!(stderr.lines().any(|l| l.starts_with("gfx90a ")), "{stderr}");
    let r = report(&rep);
    check_totals(&r);
    let objects = r["objects"].as_array().unwrap();
    // 7 bundle entries (the host entry is no code object), then 1 and 1.
    assert_eq!(objects.len(), 9, "{r:#}");
    assert_eq!(objects[0]["input"], inputs[0].to_str().unwrap());
    assert!(objects[0]["bundle_id"].as_str().unwrap().starts_with("hipv4-amdgcn-amd-amdhsa--"));
    assert!(objects[7].get("bundle_id").is_none(), "a bare code object has no bundle id");
    for input in &inputs {
        let written = out.join(input.file_name().unwrap());
        let v = gfxpatch(&["verify", written.to_str().unwrap()]);
        assert!(v.status.success(), "{}: {}", written.display(), String::from_utf8_lossy(&v.stdout));
        assert_ne!(std::fs::read(&written).unwrap(), std::fs::read(input).unwrap(), "{}: unchanged", input.display());
    }

    // --quiet: nothing on stderr; the identity: every output byte-identical.
    let id = dir.path().join("id");
    let mut args = vec!["rewrite", "--quiet", "--out-dir", id.to_str().unwrap()];
    args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
    let o = gfxpatch(&args);
    assert!(o.status.success() && o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
    for input in &inputs {
        assert_eq!(std::fs::read(id.join(input.file_name().unwrap())).unwrap(), std::fs::read(input).unwrap());
    }
}

#[test]
fn outputs_are_named_without_ambiguity() {
    let dir = tempfile::tempdir().unwrap();
    let a = repo().join("fixtures/co/gfx90a/trap_abort.O2.co");
    let b = repo().join("fixtures/co/gfx1100/trap_abort.O2.co");
    let out = dir.path().join("x.co");
    let o = gfxpatch(&["rewrite", a.to_str().unwrap(), b.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--out-dir"), "{}", String::from_utf8_lossy(&o.stderr));
    // Two inputs of one name would overwrite each other in the directory.
    let o = gfxpatch(&["rewrite", a.to_str().unwrap(), b.to_str().unwrap(), "--out-dir", dir.path().to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("would both be written to"), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!dir.path().join("trap_abort.O2.co").exists(), "nothing may be written when the command is refused");
}

/// `GFXPATCH_CORPUS=1`: the whole of librocsparse with the peephole pass: no object refused
/// because a function was taken to fall through, and `applied` is what the objects and the rules
/// applied.
#[test]
fn whole_librocsparse_peephole_report_adds_up() {
    if std::env::var_os("GFXPATCH_CORPUS").is_none() {
        return;
    }
    let lib = common::corpus_file("librocsparse.so.0.1");
    let dir = tempfile::tempdir().unwrap();
    let (out, rep) = (dir.path().join("out.so"), dir.path().join("r.json"));
    let o = gfxpatch(&["rewrite", lib.to_str().unwrap(), "-o", out.to_str().unwrap(), "--passes", "peephole", "--quiet", "--report", rep.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = report(&rep);
    check_totals(&r);
    assert_eq!(r["objects"].as_array().unwrap().len(), 777);
    for why in r["refused"].as_array().unwrap() {
        assert!(!why.as_str().unwrap().contains("falls through"), "{why}");
    }
}
