//! The tests beside the rules (`passes/*.tests`): each snippet is assembled with llvm-mc-19 for
//! every target an expectation names, decoded, matched against the shipped rules, and the
//! outcome (rewritten instructions, the first decline reason, or unchanged) compared exactly.

use std::io::Write as _;
use std::process::{Command, Stdio};

use gfxpatch::isa::{Decoder, Target};
use gfxpatch::pass::peephole::matcher::{BlockLiveness, Facts, Matcher};
use gfxpatch::pass::peephole::syntax::{self, Outcome};
use gfxpatch::pass::peephole::{RuleSet, BUILTIN_TESTS};

/// The bytes llvm-mc-19 encodes `asm` into for `target` (a program: s_endpgm appended).
fn assemble(asm: &str, target: &Target) -> Vec<u8> {
    let mut child = Command::new("llvm-mc-19")
        .args(["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={}", target.processor.name), "-show-encoding"])
        .args(if target.mattr().is_empty() { vec![] } else { vec![format!("-mattr={}", target.mattr())] })
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("llvm-mc-19 runs");
    child.stdin.take().unwrap().write_all(format!("{asm}\ns_endpgm\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "llvm-mc-19 -mcpu={} rejects:\n{asm}\n{}", target.processor.name, String::from_utf8_lossy(&out.stderr));
    let mut bytes = Vec::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let Some((_, enc)) = line.split_once("encoding: [") else { continue };
        for b in enc.trim_end_matches(']').split(',') {
            bytes.push(u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap());
        }
    }
    bytes
}

fn outcome(asm: &str, target: &Target, rules: &RuleSet) -> Outcome {
    let bytes = assemble(asm, target);
    let decoder = Decoder::new(*target);
    let mut facts = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let inst = decoder.decode(&bytes[at..]);
        at += inst.len();
        facts.push(Facts::of(&inst, target));
    }
    let matcher = Matcher::new(rules, target);
    let live = BlockLiveness { facts: &facts, end_live: false };
    let result = matcher.run_block(&facts, &live, &mut Default::default());
    if !result.rewrites.is_empty() {
        let mut text = Vec::new();
        for r in &result.rewrites {
            text.extend(r.nops.iter().map(|_| "s_nop 0".to_owned()));
            text.extend(r.new.iter().map(|n| n.text.clone()));
        }
        return Outcome::Rewritten(text);
    }
    match result.declines.first() {
        Some(d) => Outcome::Declined(d.reason.to_owned()),
        None => Outcome::Unchanged,
    }
}

#[test]
fn rule_tests_hold_on_every_target_they_name() {
    let rules = RuleSet::builtin();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (file, source) in BUILTIN_TESTS {
        let parsed = syntax::parse(file, source).unwrap_or_else(|e| panic!("{e}"));
        assert!(!parsed.tests.is_empty(), "{file} has no tests");
        for test in &parsed.tests {
            let asm: Vec<&str> = test.asm.iter().map(|(l, _)| l.as_str()).collect();
            for expect in &test.expects {
                for name in &expect.targets {
                    let target = Target::from_name(name, "").unwrap_or_else(|e| panic!("{file}:{}: {e}", expect.pos.line));
                    let got = outcome(&asm.join("\n"), &target, rules);
                    checked += 1;
                    if got != expect.outcome {
                        failures.push(format!("{file}:{}: `{}` on {name}: expected {:?}, got {:?}", expect.pos.line, test.name, expect.outcome, got));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {checked} expectations fail:\n{}", failures.len(), failures.join("\n"));
    assert!(checked >= 40, "{checked}");
}
