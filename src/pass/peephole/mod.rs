//! The peephole pass: rewrite rules written in assembly, proven against AMD's pseudocode.
//!
//! - [`syntax`]: the rule language (`passes/*.rules`, `passes/*.tests`; see `passes/README.md`).
//! - [`rules`]: rules resolved against the instruction tables (forms, roles, where they apply).
//! - [`meaning`], [`eval`]: what an instruction means on a generation, and running it.
//! - [`prove`]: the semantic check every rule passes when it is loaded.
//! - [`matcher`]: finding matches in a block and deciding, with reasons, which to apply.
//!
//! Our rules are embedded at build time and checked by the tests; a user's (`--rules FILE`)
//! go through the same [`RuleSet::load`], so a wrong rule is rejected with its counterexample
//! before it can touch a kernel.

/// The pseudocode evaluator lives beside the tables it reads, shared with the emulator.
pub use crate::isa::semantics::eval;
pub mod delays;
pub mod matcher;
pub mod meaning;
pub mod pass;
pub mod prove;
pub mod rules;
pub mod syntax;

use std::sync::OnceLock;

use crate::isa::processor::Generation;
use prove::Used;
use syntax::{Rule, RuleError};

/// The rule files shipped with gfxpatch, one topic a file.
pub const BUILTIN: &[(&str, &str)] = &[
    ("passes/valu-combine.rules", include_str!("../../../passes/valu-combine.rules")),
    ("passes/salu-combine.rules", include_str!("../../../passes/salu-combine.rules")),
];

/// The tests beside them.
pub const BUILTIN_TESTS: &[(&str, &str)] = &[
    ("passes/valu-combine.tests", include_str!("../../../passes/valu-combine.tests")),
    ("passes/salu-combine.tests", include_str!("../../../passes/salu-combine.tests")),
];

/// A rule that parsed, resolved and passed its semantic check.
#[derive(Clone, Debug)]
pub struct LoadedRule {
    pub rule: Rule,
    pub file: String,
    /// The generations it applies on (and was proven on).
    pub generations: Vec<Generation>,
    /// The pseudocode each instruction was checked with, per generation.
    pub used: Vec<Used>,
}

/// Rules ready to match.
#[derive(Clone, Debug, Default)]
pub struct RuleSet {
    pub rules: Vec<LoadedRule>,
}

impl RuleSet {
    /// Parses, resolves and proves every rule of one file.
    pub fn load(file: &str, source: &str) -> Result<RuleSet, RuleError> {
        let parsed = syntax::parse(file, source)?;
        let mut set = RuleSet::default();
        for rule in parsed.rules {
            set.add(file, rule)?;
        }
        Ok(set)
    }

    fn add(&mut self, file: &str, rule: Rule) -> Result<(), RuleError> {
        if let Some(other) = self.rules.iter().find(|r| r.rule.name == rule.name) {
            return Err(RuleError {
                file: file.to_owned(),
                pos: rule.pos,
                message: format!("rule `{}` is already defined at {}:{}", rule.name, other.file, other.rule.pos.line),
            });
        }
        rules::check_mnemonics(file, &rule)?;
        let generations = rules::claimed_generations(file, &rule)?;
        if generations.is_empty() {
            return Err(RuleError { file: file.to_owned(), pos: rule.pos, message: format!("rule `{}` applies on no generation", rule.name) });
        }
        let mut used = Vec::new();
        for &g in &generations {
            used.extend(prove::prove(file, &rule, g)?);
        }
        self.rules.push(LoadedRule { rule, file: file.to_owned(), generations, used });
        Ok(())
    }

    /// Adds another set's rules (names must stay unique).
    pub fn extend(&mut self, other: RuleSet) -> Result<(), RuleError> {
        for r in other.rules {
            if let Some(old) = self.rules.iter().find(|o| o.rule.name == r.rule.name) {
                return Err(RuleError {
                    file: r.file.clone(),
                    pos: r.rule.pos,
                    message: format!("rule `{}` is already defined at {}:{}", r.rule.name, old.file, old.rule.pos.line),
                });
            }
            self.rules.push(r);
        }
        Ok(())
    }

    /// The shipped rules, loaded (and proven) once.
    pub fn builtin() -> &'static RuleSet {
        static SET: OnceLock<RuleSet> = OnceLock::new();
        SET.get_or_init(|| {
            let mut set = RuleSet::default();
            for (file, source) in BUILTIN {
                // The tests load every shipped file; a failure here is a bug in a shipped rule.
                set.extend(RuleSet::load(file, source).unwrap_or_else(|e| panic!("shipped rule rejected: {e}"))).unwrap();
            }
            set
        })
    }

    /// Only the named rules (`--passes peephole:lshl-or,add3`).
    pub fn select(&self, names: &[&str]) -> Result<RuleSet, String> {
        let mut out = RuleSet::default();
        for name in names {
            let r = self.rules.iter().find(|r| r.rule.name == *name).ok_or_else(|| {
                let known: Vec<&str> = self.rules.iter().map(|r| r.rule.name.as_str()).collect();
                format!("unknown peephole rule `{name}` (known: {})", known.join(", "))
            })?;
            out.rules.push(r.clone());
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_rule_passes_its_semantic_check() {
        let set = RuleSet::builtin();
        assert!(set.rules.len() >= 10, "{}", set.rules.len());
        for r in &set.rules {
            assert!(!r.generations.is_empty());
            assert!(!r.rule.summary.is_empty());
        }
    }

    #[test]
    fn lshl_or_applies_from_gfx9_and_never_on_gfx8() {
        let r = RuleSet::builtin().rules.iter().find(|r| r.rule.name == "lshl-or").unwrap();
        assert!(!r.generations.contains(&Generation::Gfx8));
        for g in [Generation::Gfx9, Generation::Gfx90a, Generation::Gfx940, Generation::Gfx10_3, Generation::Gfx11, Generation::Gfx12] {
            assert!(r.generations.contains(&g), "{g}");
        }
    }

    #[test]
    fn a_rule_with_swapped_operands_is_rejected_with_a_counterexample() {
        let wrong = "\
# Wrong on purpose: shift count and value swapped in the rewrite.
rule lshl-or-swapped
match
    v_lshlrev_b32 %t, %s, %a
    v_or_b32 %d, %t, %b
rewrite
    v_lshl_or_b32 %d, %s, %a, %b
where
    dead %t
";
        let e = RuleSet::load("user.rules", wrong).unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("user.rules:2:1: rule `lshl-or-swapped` (match 1) is wrong on GFX9: with "), "{text}");
        assert!(text.contains("the pattern leaves %d = "), "{text}");
    }

    #[test]
    fn an_undeclared_dead_intermediate_is_a_counterexample() {
        let rule = "# Forgets that the shift result is dropped.\nrule lshl-or\nmatch\n    v_lshlrev_b32 %t, %s, %a\n    v_or_b32 %d, %t, %b\nrewrite\n    v_lshl_or_b32 %d, %a, %s, %b\n";
        let e = RuleSet::load("user.rules", rule).unwrap_err();
        assert!(e.to_string().contains("the pattern leaves %t = ") && e.to_string().contains("declare it `dead`"), "{e}");
    }

    /// The seed: `D0.u32 = ((S0.u32 << S1.u32[4 : 0].u32) | S2.u32)` against v_lshlrev_b32 +
    /// v_or_b32 for shift counts 0, 31, 32, 33. Both mask the count to five bits, so they agree
    /// on every count; the rule claims every count.
    #[test]
    fn lshl_or_agrees_with_shift_then_or_for_counts_past_31() {
        use eval::{Lane, Program};
        let fused = Program::parse("D0.u32 = ((S0.u32 << S1.u32[4 : 0].u32) | S2.u32)").unwrap();
        let shift = Program::parse("D0.u32 = (S1.u32 << S0[4 : 0].u32)").unwrap();
        let or = Program::parse("D0.u32 = (S0.u32 | S1.u32)").unwrap();
        let lane = || Lane { d0: 0, d0_bits: 32, scc: false, vcc: 0, lane: 0 };
        for count in [0u64, 31, 32, 33] {
            for (a, b) in [(0xffff_ffffu64, 0u64), (0x8000_0001, 0x10), (1, 0xffff_0000)] {
                let mut t = lane();
                shift.run(&mut t, &[(count, 32), (a, 32)]).unwrap();
                let mut d = lane();
                or.run(&mut d, &[(t.d0, 32), (b, 32)]).unwrap();
                let mut f = lane();
                fused.run(&mut f, &[(a, 32), (count, 32), (b, 32)]).unwrap();
                assert_eq!(d.d0, f.d0, "count {count}, a {a:#x}, b {b:#x}");
                assert_eq!(f.d0, ((a << (count & 31)) as u32 as u64) | b);
            }
        }
    }

    /// The same, with the tables' own texts: for every generation `lshl-or` claims, the
    /// pseudocode the proof uses for `v_lshl_or_b32`, `v_lshlrev_b32` and `v_or_b32` agrees for
    /// counts 0, 31, 32, 33; and the fused text is the seed's on the generations whose own
    /// table has it.
    #[test]
    fn lshl_or_tables_agree_on_every_claimed_generation() {
        use eval::Lane;
        use meaning::{meaning, Signature};
        let r = RuleSet::builtin().rules.iter().find(|r| r.rule.name == "lshl-or").unwrap();
        let three = Signature { sources: 3, dest_bits: Some(32), writes_scc: false, writes_vcc: false, reads_scc: false, reads_vcc: false };
        let two = Signature { sources: 2, ..three };
        let mut seed_seen = 0;
        for &g in &r.generations {
            let fused = meaning("V_LSHL_OR_B32", g, &three).unwrap();
            let shift = meaning("V_LSHLREV_B32", g, &two).unwrap();
            let or = meaning("V_OR_B32", g, &two).unwrap();
            if fused.text.contains("D0.u32 = ((S0.u32 << S1.u32[4 : 0].u32) | S2.u32)") {
                seed_seen += 1;
            }
            let lane = || Lane { d0: 0, d0_bits: 32, scc: false, vcc: 0, lane: 0 };
            for count in [0u64, 31, 32, 33] {
                for (a, b) in [(0xffff_ffffu64, 0u64), (0x8000_0001, 0x10), (1, 0xffff_0000), (0x1234_5678, 0x8000_0000)] {
                    let mut t = lane();
                    shift.program.run(&mut t, &[(count, 32), (a, 32)]).unwrap();
                    let mut d = lane();
                    or.program.run(&mut d, &[(t.d0, 32), (b, 32)]).unwrap();
                    let mut f = lane();
                    fused.program.run(&mut f, &[(a, 32), (count, 32), (b, 32)]).unwrap();
                    assert_eq!(d.d0, f.d0, "{g}: count {count}, a {a:#x}, b {b:#x}");
                    assert_eq!(f.d0, ((a << (count & 31)) as u32 as u64) | b, "{g}");
                }
            }
        }
        assert!(seed_seen > 0, "no generation's table has the seed's text");
    }
}
