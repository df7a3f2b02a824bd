//! Decode groups: the processors whose decoders share one dispatch tree and one memory.
//!
//! A library ships each kernel once per processor, and processors of a generation mostly run
//! the same code (gfx908's kernels in librocrand are gfx906's, byte for byte; gfx90a ships
//! with xnack on and off). A memo per target decodes each of them afresh. Yet the processors
//! of a generation read bytes alike almost everywhere: they try the same tables in the same
//! order, validate operands by the same rules, and differ only in a few encodings a feature
//! adds (MFMA on gfx908, dot products on gfx906) and in the generation's optional tables
//! (GFX9_DL on the parts with `v_fma_mix`, GFX10_B, GFX80_UNPACKED).
//!
//! So the dispatch tree of a group is built over the union of its processors' candidates, in
//! the order of the union of their plans, and each candidate says which of the group's
//! classes (processors that have exactly the same candidates) it exists for. A decoder skips
//! the candidates its class lacks (phantoms), as if its own tree had left them out: the
//! candidates a processor has keep their order, so every decode is the processor's own. A
//! decode in which every candidate whose pattern matched exists for the whole group is the
//! same for every processor of the group, and the group's memo keeps it for all of them; a
//! decode that met a candidate some class lacks (present or phantom) is kept for the classes
//! that have and lack the matched candidates as its class does (gfx906 and gfx908 both have
//! `v_fmac_f32`, gfx900 has not).

use std::collections::HashMap;

use super::plan::{plan, Attempt};
use super::table_indices;
use crate::isa::predicates::{self, PredContext};
use crate::isa::processor::{Generation, PROCESSORS};
use crate::isa::table::Pred;
use crate::isa::target::Target;

/// Classes a group may have: a result note the memos keep has a bit for each
/// ([`super::EXCLUDED_BITS`]).
pub const MAX_CLASSES: usize = 6;

/// What decides a group: targets that agree on all of it decode by the same rules; their
/// processors differ only in which candidates they have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupKey {
    /// Whose records: LLVM 19's or 22's.
    llvm: u8,
    generation: Generation,
    wave64: bool,
    real_true16: bool,
    /// `HasPackedD16VMem`, which operand decoding reads (image data sizes): gfx810 against
    /// the other GFX8 parts.
    packed_d16: bool,
}

impl GroupKey {
    pub fn of(target: &Target) -> GroupKey {
        GroupKey {
            llvm: target.llvm_version(),
            generation: target.generation(),
            wave64: target.wave64,
            real_true16: target.real_true16,
            packed_d16: predicates::holds(Pred::HasPackedD16VMem, &PredContext::of(target)),
        }
    }
}

/// A group's candidates, for [`super::dispatch::Dispatch::build`].
pub struct GroupTables {
    /// The group's plan: every member's plan, merged in order.
    pub attempts: Vec<Attempt>,
    /// Per attempt, its candidates in table order, each with the classes it exists for.
    pub candidates: Vec<Vec<(u16, u8)>>,
    /// Each member processor's class (by processor name).
    pub classes: Vec<(&'static str, u8)>,
    /// Every class's bit.
    pub all: u8,
    /// A member target, for what the group shares (validation rules, limits).
    pub representative: Target,
}

/// The group's member targets: every known processor whose target in the key's mode has the key.
fn members(key: GroupKey) -> Vec<Target> {
    PROCESSORS
        .iter()
        .filter(|p| p.generation == key.generation)
        .filter_map(|p| {
            let mut target = Target::from_name(p.name, "").ok()?;
            target.wave64 = key.wave64;
            target.real_true16 = key.real_true16;
            (GroupKey::of(&target) == key).then_some(target)
        })
        .collect()
}

/// The group of `key`'s candidates, plan and classes. Panics if the members' plans do not
/// merge into one order or the group has more than [`MAX_CLASSES`] classes (a test builds
/// every group).
pub fn tables(key: GroupKey) -> GroupTables {
    let members = members(key);
    assert!(!members.is_empty(), "no processor has {key:?}");
    let plans: Vec<Vec<Attempt>> = members.iter().map(plan).collect();
    let attempts = merge_plans(&plans).unwrap_or_else(|| panic!("the plans of {key:?} do not merge into one order"));
    // Which members have each candidate, as a bit per member.
    let mut by_member: Vec<Vec<(u16, u64)>> = Vec::new();
    for attempt in &attempts {
        let mut have: HashMap<u16, u64> = HashMap::new();
        for (m, (target, plan)) in members.iter().zip(&plans).enumerate() {
            if !plan.contains(attempt) {
                continue;
            }
            for i in table_indices(key.llvm, attempt.namespace, attempt.bits, &PredContext::of(target)) {
                *have.entry(i).or_default() |= 1 << m;
            }
        }
        let mut have: Vec<(u16, u64)> = have.into_iter().collect();
        have.sort_unstable();
        by_member.push(have);
    }
    // Members with the same candidates form a class: a member's column of bits is its
    // signature.
    let signature = |m: usize| -> Vec<bool> { by_member.iter().flatten().map(|&(_, bits)| bits >> m & 1 != 0).collect() };
    let mut signatures: Vec<Vec<bool>> = Vec::new();
    let mut class_of_member = Vec::new();
    for m in 0..members.len() {
        let s = signature(m);
        let class = signatures.iter().position(|t| *t == s).unwrap_or_else(|| {
            signatures.push(s);
            signatures.len() - 1
        });
        class_of_member.push(class as u8);
    }
    assert!(signatures.len() <= MAX_CLASSES, "{key:?} has {} classes of processors", signatures.len());
    let classes_of = |bits: u64| -> u8 {
        (0..members.len()).filter(|m| bits >> m & 1 != 0).fold(0, |c, m| c | 1 << class_of_member[m])
    };
    GroupTables {
        candidates: by_member.iter().map(|have| have.iter().map(|&(i, bits)| (i, classes_of(bits))).collect()).collect(),
        attempts,
        classes: members.iter().zip(&class_of_member).map(|(t, &c)| (t.processor.name, c)).collect(),
        all: ((1u16 << signatures.len()) - 1) as u8,
        representative: members[0],
    }
}

/// One order holding every plan of `plans` in its own order (each plan a subsequence), if
/// there is one: the generation's optional tables slot into its fixed sequence.
fn merge_plans(plans: &[Vec<Attempt>]) -> Option<Vec<Attempt>> {
    let mut merged: Vec<Attempt> = Vec::new();
    for plan in plans {
        let mut at = 0;
        for attempt in plan {
            match merged[at..].iter().position(|a| a == attempt) {
                Some(k) => at += k + 1,
                None => {
                    merged.insert(at, *attempt);
                    at += 1;
                }
            }
        }
    }
    let keeps_order = |plan: &Vec<Attempt>| {
        let mut rest = merged.iter();
        plan.iter().all(|a| rest.any(|b| b == a))
    };
    let unique = merged.iter().enumerate().all(|(i, a)| !merged[..i].contains(a));
    (unique && plans.iter().all(keeps_order)).then_some(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every processor's group builds: its members' plans merge, it has at most
    /// `MAX_CLASSES` classes, and the processor is a member. The groups that matter most
    /// share: gfx906 and gfx908 (one class each), gfx90a with any xnack.
    #[test]
    fn every_processor_has_a_group() {
        for p in PROCESSORS.iter().filter(|p| p.generation >= Generation::Gfx8) {
            for mattr in ["", "+wavefrontsize64", "+real-true16"] {
                let Ok(target) = Target::from_name(p.name, mattr) else { continue };
                let tables = tables(GroupKey::of(&target));
                assert!(tables.classes.iter().any(|&(name, _)| name == p.name), "{p} {mattr}");
                for (candidates, attempt) in tables.candidates.iter().zip(&tables.attempts) {
                    assert!(candidates.iter().all(|&(_, c)| c != 0 && c & !tables.all == 0), "{p} {attempt:?}");
                }
            }
        }
        let key = |name: &str, mattr: &str| GroupKey::of(&Target::from_name(name, mattr).unwrap());
        assert_eq!(key("gfx906", ""), key("gfx908", ""));
        assert_eq!(key("gfx900", ""), key("gfx908", ""));
        assert_eq!(key("gfx90a", "+xnack"), key("gfx90a", "-xnack"));
        assert_eq!(key("gfx1030", ""), key("gfx1036", ""));
        assert_ne!(key("gfx1030", ""), key("gfx1030", "+wavefrontsize64"));
        assert_ne!(key("gfx803", ""), key("gfx810", ""));
        let gfx9 = tables(key("gfx906", ""));
        let class = |name: &str| gfx9.classes.iter().find(|c| c.0 == name).unwrap().1;
        assert_ne!(class("gfx906"), class("gfx908"));
        assert_ne!(class("gfx900"), class("gfx906"));
    }

    /// Plans merge keeping each one's order; plans that order two tables both ways do not.
    #[test]
    fn plans_merge_in_order() {
        let t = Target::from_name("gfx906", "").unwrap();
        let full = plan(&t);
        let without_first: Vec<Attempt> = full[1..].to_vec();
        let without_last: Vec<Attempt> = full[..full.len() - 1].to_vec();
        assert_eq!(merge_plans(&[without_first.clone(), without_last.clone()]), Some(full.clone()));
        assert_eq!(merge_plans(&[without_last, without_first]), Some(full.clone()));
        let reversed: Vec<Attempt> = full.iter().rev().copied().collect();
        assert_eq!(merge_plans(&[full, reversed]), None);
    }
}
