//! The peephole pass on real LLVM-compiled code (`GFXPATCH_CORPUS=1`, after
//! scripts/fetch-corpus.sh; with `--release`): every librocsparse code object for gfx803,
//! gfx900, gfx90a and gfx1030 is rewritten with every shipped rule. Rules fire on gfx900,
//! gfx90a and gfx1030 and the instruction count drops; every output passes the rewrite's own
//! verification (in-process, against its input), `gfxpatch verify` and `llvm-objdump-19 -d` (no
//! undecodable word, nothing on stderr); DWARF is remapped, never stripped; on gfx803 no rule
//! whose replacement is missing there fires. On the whole library the rules must reach at least
//! [`AT_LEAST`] rewrites per target (issue 34: the sound fusions an independent count finds).
//! The per-target, per-rule and per-reason counts are written to `target/peephole-corpus.txt`
//! (docs/peephole.md records them). `GFXPATCH_PEEPHOLE_OBJECTS=N` takes the first N
//! objects of each target only (and skips the thresholds).

mod common;

use std::collections::BTreeMap;

use gfxpatch::container::bundle::DecompressLimits;
use gfxpatch::container::input::Input;
use gfxpatch::container::target_id::FeatureSetting;
use gfxpatch::container::CodeObject;
use gfxpatch::isa::Generation;
use gfxpatch::pass::peephole::RuleSet;
use gfxpatch::pass::{self, PassStats};
use gfxpatch::rewrite::{rewrite_object, Options};
use rayon::prelude::*;

const TARGETS: &[&str] = &["gfx803", "gfx900", "gfx90a", "gfx1030"];

/// Rewrites the whole library must reach per target: an independent count of the pairs that
/// can become one fused instruction with the intermediate provably dead found 767, 575 and 912
/// pairs; with producer placement, loads as kills and the input rule the rules reach more
/// (some pairs fuse only at the producer, some copies fold afterwards).
const AT_LEAST: &[(&str, u64)] = &[("gfx900", 1000), ("gfx90a-xnack-", 800), ("gfx1030", 1100)];

#[derive(Default)]
struct PerTarget {
    processor: &'static str,
    objects: usize,
    rewritten: usize,
    before: usize,
    after: usize,
    stats: PassStats,
    refused: Vec<String>,
    outputs: Vec<(usize, Vec<u8>)>,
}

#[test]
#[cfg_attr(not(gfxpatch_corpus), ignore = "real-world corpus: scripts/fetch-corpus.sh, then GFXPATCH_CORPUS=1")]
fn peephole_fires_on_rocsparse_and_every_output_verifies() {
    let limit: usize = std::env::var("GFXPATCH_PEEPHOLE_OBJECTS").ok().and_then(|v| v.parse().ok()).unwrap_or(usize::MAX);
    let lib = "librocsparse.so.0.1";
    let data = std::fs::read(common::corpus_file(lib)).unwrap();
    let input = Input::parse(&data, &DecompressLimits::default()).unwrap();
    let options = Options { passes: vec![pass::find("peephole").unwrap()], print_after: None, strip_debug_on_failure: false };
    // (target label, processor, object index); gfx90a is split by its xnack setting.
    let mut chosen: Vec<(String, &str, usize)> = Vec::new();
    let mut taken: BTreeMap<String, usize> = BTreeMap::new();
    for (i, o) in input.objects.iter().enumerate() {
        let object = CodeObject::parse(&o.bytes).unwrap();
        let processor = object.target.processor.name;
        let Some(t) = TARGETS.iter().find(|t| **t == processor) else { continue };
        let label = match (*t, object.target.xnack) {
            ("gfx90a", FeatureSetting::On) => "gfx90a-xnack+".to_owned(),
            ("gfx90a", FeatureSetting::Off) => "gfx90a-xnack-".to_owned(),
            _ => t.to_string(),
        };
        let n = taken.entry(label.clone()).or_default();
        if *n < limit {
            *n += 1;
            chosen.push((label, t, i));
        }
    }
    let outcomes: Vec<(&str, &str, usize, gfxpatch::rewrite::Outcome)> = chosen
        .par_iter()
        .map(|(label, t, i)| {
            let o = &input.objects[*i];
            // rewrite_object verifies its output against its input (an Err is a failure).
            let out = rewrite_object(&o.bytes, &options).unwrap_or_else(|e| panic!("{lib}: {}: {e:#}", o.describe(*i)));
            (label.as_str(), *t, *i, out)
        })
        .collect();
    let mut per: BTreeMap<&str, PerTarget> = BTreeMap::new();
    for (label, t, i, out) in outcomes {
        let p = per.entry(label).or_default();
        p.processor = t;
        p.objects += 1;
        p.before += out.instructions_before;
        p.after += out.instructions_after;
        p.stats.merge(&out.stats[0]);
        if let Some(r) = &out.refused {
            p.refused.push(format!("{}: {r}", input.objects[i].describe(i)));
        }
        if let Some(b) = out.bytes {
            p.rewritten += 1;
            p.outputs.push((i, b));
        }
    }

    let mut text = format!("peephole on {lib} (every shipped rule)\n");
    for (t, p) in &per {
        text.push_str(&format!(
            "{t}: {} objects, {} rewritten, {} refused; instructions {} -> {} (-{}); applied {}\n",
            p.objects,
            p.rewritten,
            p.refused.len(),
            p.before,
            p.after,
            p.before - p.after,
            p.stats.applied
        ));
        let mut reasons: BTreeMap<&str, u64> = BTreeMap::new();
        for s in p.stats.rules.values() {
            for (k, v) in &s.declined {
                *reasons.entry(k).or_default() += v;
            }
        }
        let reasons: Vec<String> = reasons.iter().map(|(k, v)| format!("{k} {v}")).collect();
        text.push_str(&format!("    declined by reason: {}\n", reasons.join(", ")));
        for (rule, s) in p.stats.rules.iter().filter(|(_, s)| s.matched > 0) {
            let declined: Vec<String> = s.declined.iter().map(|(k, v)| format!("{k} {v}")).collect();
            text.push_str(&format!("    {rule}: matched {} applied {} declined: {}\n", s.matched, s.applied, declined.join(", ")));
        }
        for r in p.refused.iter().take(3) {
            text.push_str(&format!("    refused: {r}\n"));
        }
    }
    eprintln!("{text}");
    let _ = std::fs::write(common::repo().join("target/peephole-corpus.txt"), &text);

    let dir = tempfile::tempdir().unwrap();
    for t in TARGETS {
        assert!(per.values().any(|p| p.processor == *t), "no {t} code object in {lib}");
    }
    for (t, p) in &per {
        if p.processor == "gfx803" {
            // Only rules whose every instruction exists on GFX8 may fire there.
            for (rule, s) in &p.stats.rules {
                let r = RuleSet::builtin().rules.iter().find(|r| r.rule.name == *rule).unwrap();
                assert!(s.applied == 0 || r.generations.contains(&Generation::Gfx8), "{rule} fired on gfx803");
            }
            continue;
        }
        assert!(p.stats.applied > 0, "{t}: no rule fired");
        if limit == usize::MAX
            && let Some((_, least)) = AT_LEAST.iter().find(|(name, _)| name == t)
        {
            assert!(p.stats.applied >= *least, "{t}: {} rewrites, fewer than {least}", p.stats.applied);
        }
        assert!(p.after < p.before, "{t}: the instruction count did not drop");
        assert!(p.refused.is_empty(), "{t}: refused: {:?}", p.refused);
        // Every rewritten object, not a sample: our verify from the file, and LLVM reads it.
        let mut merged = false;
        for (i, bytes) in &p.outputs {
            let path = dir.path().join(format!("{t}.{i}.co"));
            std::fs::write(&path, bytes).unwrap();
            let v = common::gfxpatch(&["verify", path.to_str().unwrap()]);
            assert!(v.status.success(), "{t} object {i}: gfxpatch verify: {}{}", String::from_utf8_lossy(&v.stdout), String::from_utf8_lossy(&v.stderr));
            let o = std::process::Command::new("llvm-objdump-19").args(["-d", &format!("--mcpu={}", p.processor), path.to_str().unwrap()]).output().unwrap();
            assert!(o.status.success() && o.stderr.is_empty(), "{t} object {i}: llvm-objdump-19: {}", String::from_utf8_lossy(&o.stderr));
            let listing = String::from_utf8_lossy(&o.stdout);
            assert!(!listing.contains("<unknown>"), "{t} object {i}: llvm-objdump-19 finds undecodable words");
            merged |= ["v_lshl_or_b32", "v_lshl_add_u32", "v_add3_u32", "s_lshl1_add_u32", "s_lshl2_add_u32", "s_lshl3_add_u32"].iter().any(|m| listing.contains(m));
        }
        assert!(merged, "{t}: no merged instruction in any output");
    }
}
