//! Finding rule matches in a block of decoded instructions and deciding, with a reason, which
//! may be applied.
//!
//! A match is anchored at the pattern's last instruction; each earlier pattern instruction is
//! the nearest earlier instruction writing the register a later one reads, so an unrelated
//! instruction in between is allowed as long as it does not redefine that register. Then, in
//! order, a match is declined (and counted by reason) when:
//!
//! - `dpp`, `sdwa`, `modifiers`: a matched instruction carries DPP/SDWA or a clamp, omod,
//!   op_sel or source modifier the rule does not map;
//! - `operand-kind`, `operand-range`: an `is`/`in` condition does not hold;
//! - `intermediate-read`: something in between reads a value the rewrite removes (`%t`, or the
//!   SCC a removed `s_lshl_b32` wrote);
//! - `exec-changed`: EXEC is written in between (the merged instruction would run under
//!   another mask than the removed one did);
//! - `input-redefined`: the replacement fits at neither place. At the consumer (the last pattern
//!   instruction) an input must still hold what the pattern read: no instruction outside the
//!   pattern between its reader and the consumer writes it, and no pattern instruction before
//!   its reader does (a producer overwriting its own source is fine: once it is gone the
//!   source is intact; `%b` aliasing `%t` is not). Else at the producer (the first): the same
//!   input rule there, and nothing in between reads or writes what the pattern writes (the
//!   destination, `%t`, SCC, VCC) or writes what the later pattern instructions read;
//! - `live-after`: a location the rule declares `dead` may be read later ([`Liveness`]);
//! - `operand-class`, `literal`, `constant-bus`: the replacement would be illegal VOP3 on the
//!   target (a VGPR-only operand given something else; a literal before GFX10; more scalar
//!   values than the constant bus carries: one before GFX10, two from GFX10);
//! - `delay-alu` (decided by the pass, [`super::delays`]): on GFX11+, the block's `s_delay_alu`
//!   cannot be rewritten to keep their meaning;
//! - `wait-state`: the rewrite would bring a VALU write of a VGPR right after a store reading
//!   it (the store-data hazard; GFX9-family VALU-to-consumer wait states become `s_nop 0`).
//!
//! On GFX9-family targets a removal shortens the distance between instructions around it; where
//! that would break a VALU-write-to-DPP/readlane/VMEM wait state, the removed instruction
//! becomes `s_nop 0` instead of disappearing ([`Rewrite::nops`]).

use std::cell::OnceCell;
use std::collections::BTreeMap;

use super::rules::{fits, forms_on, plain_form, Form, Role, Slot};
use super::syntax::{Condition, InstPat, Kind, Loc, OperandPat};
use super::{LoadedRule, RuleSet};
use crate::ir::liveness::operands_into;
use crate::ir::Node;
use crate::isa::operand::{Operands, Value};
use crate::isa::processor::Generation;
use crate::isa::reg::{Reg, Special};
use crate::isa::table::{flag, implicit, Dir, OperandName};
use crate::isa::{Inst, Target};

/// A 32-bit register unit: SGPRs 0..=105, then VCC, EXEC, M0, SCC, then VGPRs and AGPRs.
pub type Unit = u16;
pub const VCC_LO: Unit = 106;
pub const VCC_HI: Unit = 107;
pub const EXEC_LO: Unit = 108;
pub const EXEC_HI: Unit = 109;
pub const M0: Unit = 110;
pub const SCC: Unit = 111;
pub const VGPR0: Unit = 128;
pub const AGPR0: Unit = VGPR0 + 512;

/// The units a register covers (none for registers not tracked: trap temporaries, constants).
pub fn units(reg: Reg) -> Vec<Unit> {
    unit_range(reg).collect()
}

/// [`units`] without a vector: every register covers a run of consecutive units.
pub fn unit_range(reg: Reg) -> std::ops::Range<Unit> {
    let run = |base: Unit, index: u16, count: u8| base + index..base + index + u16::from(count);
    match reg {
        Reg::Sgpr { index, count } => run(0, index, count),
        Reg::Vgpr { index, count } => run(VGPR0, index, count),
        Reg::Agpr { index, count } => run(AGPR0, index, count),
        Reg::Vgpr16 { index, .. } => run(VGPR0, index, 1),
        Reg::Ttmp { .. } => 0..0,
        Reg::Special(s) => match s {
            Special::VccLo => VCC_LO..VCC_LO + 1,
            Special::VccHi => VCC_HI..VCC_HI + 1,
            Special::Vcc => VCC_LO..VCC_HI + 1,
            Special::ExecLo => EXEC_LO..EXEC_LO + 1,
            Special::ExecHi => EXEC_HI..EXEC_HI + 1,
            Special::Exec => EXEC_LO..EXEC_HI + 1,
            Special::M0 => M0..M0 + 1,
            _ => 0..0,
        },
    }
}

/// A set of units as bits: what one instruction reads or writes. Facts are made for every
/// instruction of a candidate block, so they hold no heap memory (vectors of units made
/// allocation the pass's largest cost). 1024 bits cover every unit a register operand can
/// name (the last AGPR tuple ends below 1024).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct UnitSet([u64; 16]);

impl UnitSet {
    pub const EMPTY: UnitSet = UnitSet([0; 16]);

    /// The units of `range`.
    pub fn of(range: std::ops::Range<Unit>) -> UnitSet {
        let mut s = UnitSet::EMPTY;
        s.insert_range(range);
        s
    }

    pub fn insert(&mut self, unit: Unit) {
        let u = usize::from(unit);
        if let Some(w) = self.0.get_mut(u / 64) {
            *w |= 1 << (u % 64);
        }
    }

    pub fn insert_range(&mut self, range: std::ops::Range<Unit>) {
        for u in range {
            self.insert(u);
        }
    }

    pub fn contains(&self, unit: Unit) -> bool {
        let u = usize::from(unit);
        self.0.get(u / 64).is_some_and(|w| w & (1 << (u % 64)) != 0)
    }

    pub fn union(&mut self, other: &UnitSet) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a |= b;
        }
    }

    pub fn intersects(&self, other: &UnitSet) -> bool {
        self.0.iter().zip(other.0).any(|(a, b)| a & b != 0)
    }

    /// The bits, 64 units a word (unit `u` is bit `u % 64` of word `u / 64`).
    pub fn words(&self) -> &[u64; 16] {
        &self.0
    }

    /// The units, ascending.
    pub fn iter(&self) -> impl Iterator<Item = Unit> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let bit = w.trailing_zeros() as usize;
                    w &= w - 1;
                    (i * 64 + bit) as Unit
                })
            })
        })
    }
}

impl std::fmt::Debug for UnitSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// "Is this unit's value after instruction `index` never read?" A `true` must be a proof;
/// the rewrite engine's liveness answers it for real code.
pub trait Liveness {
    fn dead_after(&self, index: usize, unit: Unit) -> bool;
}

/// Liveness within one straight-line block: dead after `i` when no later instruction of the
/// block reads it and, at the end, nothing is live (`end_live = false`, a program's end) or
/// everything is (`true`, unknown successors). Only SALU writes kill: a VALU write leaves
/// inactive lanes' values (EXEC masking), so it never proves a VGPR dead.
pub struct BlockLiveness<'a> {
    pub facts: &'a [Facts],
    pub end_live: bool,
}

impl Liveness for BlockLiveness<'_> {
    fn dead_after(&self, index: usize, unit: Unit) -> bool {
        for f in &self.facts[index + 1..] {
            if f.reads.contains(unit) {
                return false;
            }
            if f.salu && f.writes.contains(unit) {
                return true;
            }
        }
        !self.end_live
    }
}

/// What one instruction reads and writes, decoded once.
#[derive(Clone, Debug)]
pub struct Facts {
    pub inst: Inst,
    pub operands: Option<Operands>,
    pub reads: UnitSet,
    pub writes: UnitSet,
    pub salu: bool,
    pub valu: bool,
    /// A transcendental VALU instruction, on GFX940/950 (where its result has a wait state).
    pub trans: bool,
}

impl Facts {
    pub fn of(inst: &Inst, target: &Target) -> Facts {
        let mut f = Facts { inst: *inst, operands: None, reads: UnitSet::EMPTY, writes: UnitSet::EMPTY, salu: false, valu: false, trans: false };
        let Some(e) = inst.encoding() else {
            // Unknown words: assume they read and write everything that matters here.
            f.reads = UnitSet::of(0..AGPR0 + 256);
            f.writes = f.reads;
            return f;
        };
        f.salu = e.flags.has(flag::SALU);
        f.valu = e.flags.has(flag::VALU);
        f.trans = e.flags.has(flag::TRANS) && matches!(target.generation(), Generation::Gfx940 | Generation::Gfx950);
        // Decoded in place: facts are made for every instruction of a candidate block, and an
        // operand list returned by value is copied twice on the way here. The directions are
        // `e`'s, the record decoded (not an image conversion's).
        let ops = f.operands.insert(Operands::new());
        if operands_into(inst, target, ops).is_some() {
            for (operand, op) in e.operands.iter().zip(ops.as_slice()) {
                if let Value::Reg(r) = op.value {
                    let u = unit_range(r);
                    if operand.dir == Dir::Out { f.writes.insert_range(u) } else { f.reads.insert_range(u) }
                }
            }
        } else {
            f.operands = None;
        }
        let wave = |set: &mut UnitSet, lo: Unit, hi: Unit| {
            set.insert(lo);
            if target.wave64 {
                set.insert(hi);
            }
        };
        for (bit, lo, hi) in [(implicit::EXEC, EXEC_LO, EXEC_HI), (implicit::VCC, VCC_LO, VCC_HI)] {
            if e.uses.has(bit) {
                wave(&mut f.reads, lo, hi);
            }
            if e.defs.has(bit) {
                wave(&mut f.writes, lo, hi);
            }
        }
        for (bit, unit) in [(implicit::SCC, SCC), (implicit::M0, M0)] {
            if e.uses.has(bit) {
                f.reads.insert(unit);
            }
            if e.defs.has(bit) {
                f.writes.insert(unit);
            }
        }
        f
    }

    fn mnemonic(&self) -> &'static str {
        self.inst.encoding().map_or("", |e| e.mnemonic())
    }
}

/// The instructions of a block and their [`Facts`], as the matcher reads them: facts made
/// beforehand (a slice), or [`LazyFacts`], made when first looked at.
pub trait FactSource: std::ops::Index<usize, Output = Facts> {
    fn len(&self) -> usize;
    /// The instruction at `index`, without its facts: its encoding alone rules out most
    /// anchors and pattern instructions.
    fn inst(&self, index: usize) -> &Inst;
}

impl FactSource for [Facts] {
    fn len(&self) -> usize {
        <[Facts]>::len(self)
    }

    fn inst(&self, index: usize) -> &Inst {
        &self[index].inst
    }
}

/// The facts of a block's instructions, each decoded when the matcher first asks for it. The
/// matcher looks at few of a block's instructions (anchors of a pattern's last form, the
/// window before them, the span of a match), and decoding the others was the pass's largest
/// cost.
pub struct LazyFacts<'a> {
    nodes: &'a [Node],
    target: &'a Target,
    made: Box<[OnceCell<Box<Facts>>]>,
}

impl<'a> LazyFacts<'a> {
    pub fn new(nodes: &'a [Node], target: &'a Target) -> LazyFacts<'a> {
        LazyFacts { nodes, target, made: (0..nodes.len()).map(|_| OnceCell::new()).collect() }
    }
}

impl std::ops::Index<usize> for LazyFacts<'_> {
    type Output = Facts;

    fn index(&self, index: usize) -> &Facts {
        self.made[index].get_or_init(|| Box::new(Facts::of(&self.nodes[index].inst, self.target)))
    }
}

impl FactSource for LazyFacts<'_> {
    fn len(&self) -> usize {
        self.nodes.len()
    }

    fn inst(&self, index: usize) -> &Inst {
        &self.nodes[index].inst
    }
}

/// A replacement instruction: its form and the value of each written position.
#[derive(Clone, Debug, PartialEq)]
pub struct NewInst {
    pub encoding: u16,
    /// (operand index in the encoding, value), for every written position.
    pub operands: Vec<(usize, Value)>,
    /// As LLVM prints it.
    pub text: String,
}

/// A match that may be applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Rewrite {
    pub rule: String,
    /// Indices of the matched instructions, in order; the one at `at` is replaced by `new`, the
    /// others removed (or turned into `s_nop 0`, see `nops`).
    pub matched: Vec<usize>,
    /// Where the replacement goes: the pattern's last instruction (the consumer) or, when the
    /// consumer would read a changed input there, its first (the producer).
    pub at: usize,
    pub new: Vec<NewInst>,
    /// Removed instructions that must become `s_nop 0` to keep a wait state.
    pub nops: Vec<usize>,
}

/// A match that was declined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decline {
    pub rule: String,
    pub matched: Vec<usize>,
    pub reason: &'static str,
}

/// Per-rule counts.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RuleStats {
    pub matched: u64,
    pub applied: u64,
    pub declined: BTreeMap<&'static str, u64>,
}

/// The outcome of matching one block.
#[derive(Clone, Debug, Default)]
pub struct BlockResult {
    pub rewrites: Vec<Rewrite>,
    pub declines: Vec<Decline>,
}

/// A rule resolved for one target: the alternatives that exist there, with their forms.
struct Compiled<'r> {
    rule: &'r LoadedRule,
    alternatives: Vec<Vec<(&'r InstPat, Vec<Form>)>>,
    replacement: Vec<(&'r InstPat, Form)>,
}

/// The rules of a set that apply on `target`, resolved.
pub struct Matcher<'r> {
    target: Target,
    rules: Vec<Compiled<'r>>,
    /// Keep every removed instruction as `s_nop 0` (see [`Matcher::keep_distances`]).
    keep_distances: bool,
    prefilter: Prefilter,
    tries: Tries,
    /// Skip anchors no pattern ends at ([`Matcher::may_anchor`]); off only to test that
    /// skipping changes nothing.
    anchor_filter: bool,
}

/// Which blocks can hold a match at all, decided on encodings alone (see [`Matcher::may_match`]).
/// Every pattern instruction of every alternative is one position, one bit; a block may match
/// only if, for some alternative, each of its positions has an instruction of one of its forms.
struct Prefilter {
    /// Per encoding index: which position's forms it is one of (an index into `masks`, 0 for none).
    by_encoding: Vec<u16>,
    masks: Vec<u128>,
    /// The positions of each alternative.
    alternatives: Vec<u128>,
    /// The last position of every alternative: where a match is anchored.
    anchors: u128,
    /// More positions than bits: every block is a candidate.
    off: bool,
}

impl Prefilter {
    fn new(rules: &[Compiled<'_>]) -> Prefilter {
        let mut by_encoding = vec![0u16; crate::isa::table::encodings().len()];
        let mut masks = vec![0u128];
        let mut alternatives = Vec::new();
        let mut position = 0usize;
        let mut anchors = 0u128;
        for alt in rules.iter().flat_map(|c| &c.alternatives) {
            // An empty alternative (the syntax has none) would have no anchor: no prefilter.
            if position + alt.len() > 128 || alt.is_empty() {
                return Prefilter { by_encoding: Vec::new(), masks: Vec::new(), alternatives: Vec::new(), anchors: 0, off: true };
            }
            let mut all = 0u128;
            for (_, forms) in alt {
                let bit = 1u128 << position;
                position += 1;
                all |= bit;
                for f in forms {
                    let slot = &mut by_encoding[usize::from(f.index)];
                    if *slot == 0 {
                        *slot = masks.len() as u16;
                        masks.push(0);
                    }
                    masks[usize::from(*slot)] |= bit;
                }
            }
            alternatives.push(all);
            if position > 0 {
                anchors |= 1u128 << (position - 1);
            }
        }
        Prefilter { by_encoding, masks, alternatives, anchors, off: false }
    }
}

/// The alternatives tried at an anchor, as (rule, alternative) indices in the order the rules
/// and their alternatives come: per encoding, those whose last pattern instruction has it as a
/// form (an alternative not listed fails at its anchor's form, so skipping it changes nothing),
/// and every one (to test that).
struct Tries {
    /// Per encoding index: its list in `listed` (0, empty, for none).
    by_encoding: Vec<u16>,
    listed: Vec<Vec<(u16, u16)>>,
    all: Vec<(u16, u16)>,
}

impl Tries {
    fn new(rules: &[Compiled<'_>]) -> Tries {
        let mut by_encoding = vec![0u16; crate::isa::table::encodings().len()];
        let mut listed = vec![Vec::new()];
        let mut all = Vec::new();
        for (r, compiled) in rules.iter().enumerate() {
            for (a, alt) in compiled.alternatives.iter().enumerate() {
                let at = (r as u16, a as u16);
                all.push(at);
                let Some((_, forms)) = alt.last() else { continue };
                for f in forms {
                    let slot = &mut by_encoding[usize::from(f.index)];
                    if *slot == 0 {
                        *slot = listed.len() as u16;
                        listed.push(Vec::new());
                    }
                    let list = &mut listed[usize::from(*slot)];
                    if list.last() != Some(&at) {
                        list.push(at);
                    }
                }
            }
        }
        Tries { by_encoding, listed, all }
    }
}

/// How far back a pattern instruction is looked for.
const WINDOW: usize = 16;

impl<'r> Matcher<'r> {
    pub fn new(set: &'r RuleSet, target: &Target) -> Matcher<'r> {
        let forms = forms_on(target);
        let mut rules = Vec::new();
        for rule in &set.rules {
            if !rule.generations.contains(&target.generation()) {
                continue;
            }
            let Some(replacement) = rule.rule.replacement.iter().map(|p| plain_form(&forms, p).map(|f| (p, f.clone()))).collect::<Option<Vec<_>>>() else {
                continue;
            };
            let alternatives: Vec<_> = rule
                .rule
                .patterns
                .iter()
                .filter_map(|alt| {
                    alt.iter()
                        .map(|p| {
                            let fs: Vec<Form> = forms.get(&p.mnemonic).into_iter().flatten().filter(|f| fits(f, p)).cloned().collect();
                            (!fs.is_empty()).then_some((p, fs))
                        })
                        .collect::<Option<Vec<_>>>()
                })
                .collect();
            if !alternatives.is_empty() {
                rules.push(Compiled { rule, alternatives, replacement });
            }
        }
        let prefilter = Prefilter::new(&rules);
        let tries = Tries::new(&rules);
        Matcher { target: *target, rules, keep_distances: false, prefilter, tries, anchor_filter: true }
    }

    /// Whether a block of these instructions may hold a match of some rule: for some rule's
    /// alternative, each pattern instruction has an instruction of one of its forms here. A
    /// match binds every pattern instruction to an instruction of the block with one of its
    /// forms, so `false` is a proof that [`Matcher::run_block`] finds nothing (no match, no
    /// decline, no count); the pass skips such blocks, and functions without any, before it
    /// decodes operands or solves liveness.
    pub fn may_match<'i>(&self, insts: impl IntoIterator<Item = &'i Inst>) -> bool {
        let p = &self.prefilter;
        if p.off {
            return true;
        }
        let mut present = 0u128;
        for inst in insts {
            if let Some(e) = inst.encoding_index() {
                present |= p.masks[usize::from(p.by_encoding[usize::from(e)])];
            }
        }
        // Every alternative holds its anchor's position: without one, none is complete (most
        // blocks end here).
        present & p.anchors != 0 && p.alternatives.iter().any(|&alt| present & alt == alt)
    }

    /// Whether some rule's pattern may end at `inst`: `false` is a proof that no match is
    /// anchored there (its encoding is no form of any pattern's last instruction).
    pub fn may_anchor(&self, inst: &Inst) -> bool {
        let p = &self.prefilter;
        if p.off || !self.anchor_filter {
            return true;
        }
        inst.encoding_index().is_some_and(|e| p.masks[usize::from(p.by_encoding[usize::from(e)])] & p.anchors != 0)
    }

    /// Tries every rule at every instruction, even where [`Matcher::may_anchor`] proves none
    /// can end (tests/peephole_prefilter.rs compares the two).
    pub fn without_anchor_filter(mut self) -> Self {
        self.anchor_filter = false;
        self
    }

    /// Keeps every removed instruction as `s_nop 0`, so no distance between two other
    /// instructions shrinks. For code whose wait states the matcher does not model: on GFX90A,
    /// GFX940 and GFX950 an MFMA, SMFMAC, DOT or `v_accvgpr_*` instruction needs up to 18 wait
    /// states before its result is read, across blocks too ([`needs_kept_distances`]).
    pub fn keep_distances(&mut self, keep: bool) {
        self.keep_distances = keep;
    }

    /// Names of the rules that apply on the target.
    pub fn rule_names(&self) -> Vec<&str> {
        self.rules.iter().map(|r| r.rule.rule.name.as_str()).collect()
    }

    /// Matches every rule over one block; rewrites do not overlap (the earliest anchor wins).
    pub fn run_block(&self, facts: &[Facts], live: &dyn Liveness, stats: &mut BTreeMap<String, RuleStats>) -> BlockResult {
        self.run_block_where(facts, live, stats, &|_| true)
    }

    /// [`Matcher::run_block`] over the matches `wanted` accepts (by their instruction indices);
    /// the others are neither counted nor applied.
    pub fn run_block_where<F: FactSource + ?Sized>(&self, facts: &F, live: &dyn Liveness, stats: &mut BTreeMap<String, RuleStats>, wanted: &dyn Fn(&[usize]) -> bool) -> BlockResult {
        let mut out = BlockResult::default();
        let mut taken = vec![false; facts.len()];
        // One binding and one list of matched indices, refilled by every attempt (most fail).
        let mut matched = Vec::new();
        let mut bind = Binding::default();
        for anchor in 0..facts.len() {
            if !self.may_anchor(facts.inst(anchor)) {
                continue;
            }
            // Rules in order, each's alternatives in order: the first that binds counts for its
            // rule (the rule's others are not tried); a rewrite ends the anchor's tries (the
            // anchor is taken), a decline goes on with the next rule.
            let tries = match facts.inst(anchor).encoding_index() {
                Some(e) if self.anchor_filter => &self.tries.listed[usize::from(self.tries.by_encoding[usize::from(e)])],
                _ => &self.tries.all,
            };
            let mut declined_rule = None;
            for &(r, a) in tries {
                if declined_rule == Some(r) {
                    continue;
                }
                let compiled = &self.rules[usize::from(r)];
                let name = &compiled.rule.rule.name;
                let alt = &compiled.alternatives[usize::from(a)];
                if self.bind(facts, anchor, alt, &mut matched, &mut bind).is_none() {
                    continue;
                }
                if matched.iter().any(|&i| taken[i]) || !wanted(&matched) {
                    continue;
                }
                if !stats.contains_key(name) {
                    stats.insert(name.clone(), RuleStats::default());
                }
                let s = stats.get_mut(name).expect("inserted above");
                s.matched += 1;
                match self.check(compiled, alt, facts, &matched, &bind, live) {
                    Ok(rewrite) => {
                        s.applied += 1;
                        for &i in &rewrite.matched {
                            taken[i] = true;
                        }
                        out.rewrites.push(rewrite);
                        debug_assert!(taken[anchor], "a match holds its anchor");
                        break;
                    }
                    Err(reason) => {
                        *s.declined.entry(reason).or_insert(0) += 1;
                        out.declines.push(Decline { rule: name.clone(), matched: matched.clone(), reason });
                        declined_rule = Some(r);
                    }
                }
            }
        }
        out
    }

    /// Binds one alternative with its last instruction at `anchor`: the matched indices, in
    /// order, into `matched` and the metavariables' values into `bind` (both emptied first;
    /// on `None` they hold nothing meaningful).
    fn bind<'p, F: FactSource + ?Sized>(&self, facts: &F, anchor: usize, alt: &[(&'p InstPat, Vec<Form>)], matched: &mut Vec<usize>, bind: &mut Binding<'p>) -> Option<()> {
        let (last, forms) = alt.last()?;
        // Most anchors are of no form the pattern ends in: decided before anything is made.
        let index = facts.inst(anchor).encoding_index()?;
        if !forms.iter().any(|f| f.index == index) {
            return None;
        }
        // The instruction before the last is searched for in the window before the anchor
        // among those of its forms (below): with none there the match fails whatever the
        // anchor binds, so it is not decoded.
        if let [.., (_, before), _] = alt
            && !(anchor.saturating_sub(WINDOW)..anchor).any(|i| facts.inst(i).encoding_index().is_some_and(|e| before.iter().any(|f| f.index == e)))
        {
            return None;
        }
        bind.vars.clear();
        bind.forms.clear();
        matched.clear();
        self.unify(&facts[anchor], last, forms, bind)?;
        matched.push(anchor);
        for m in (0..alt.len() - 1).rev() {
            let (pat, forms) = &alt[m];
            // The register this instruction defines, bound by a later one.
            let dest = pat.operands.iter().enumerate().find_map(|(slot, op)| match op {
                OperandPat::Var(v) if forms[0].role(slot) == Some(Role::Dest) => Some(v),
                _ => None,
            })?;
            let Some(&Value::Reg(reg)) = bind.get(dest) else { return None };
            let want = UnitSet::of(unit_range(reg));
            let next = *matched.last().unwrap();
            // The nearest writer must be of one of `forms` to unify: below the lowest
            // instruction of those forms in the window none can be, so the search (which
            // decodes each instruction it passes) stops there.
            let lowest = (next.saturating_sub(WINDOW)..next).find(|&i| facts.inst(i).encoding_index().is_some_and(|e| forms.iter().any(|f| f.index == e)))?;
            let def = (lowest..next).rev().find(|&i| facts[i].writes.intersects(&want))?;
            self.unify(&facts[def], pat, forms, bind)?;
            matched.push(def);
        }
        matched.reverse();
        Some(())
    }

    /// Binds `pat` to the instruction of `facts`. On `None` `bind` may hold part of it: the
    /// caller drops the whole binding then.
    fn unify<'p>(&self, facts: &Facts, pat: &'p InstPat, forms: &[Form], bind: &mut Binding<'p>) -> Option<()> {
        let index = facts.inst.encoding_index()?;
        let form = forms.iter().find(|f| f.index == index)?;
        let ops = facts.operands.as_ref()?;
        for (slot, op) in form.slots.iter().zip(&pat.operands) {
            let value = match slot {
                Slot::Operand(i) => ops.as_slice()[*i].value,
                Slot::Fixed(_) => Value::Reg(vcc(&self.target)),
            };
            match op {
                OperandPat::Var(v) => match bind.get(v) {
                    Some(old) if *old != value => return None,
                    Some(_) => {}
                    None => bind.vars.push((v.as_str(), value)),
                },
                OperandPat::Int(c) => {
                    if constant_of(value) != Some(*c) {
                        return None;
                    }
                }
                OperandPat::Fixed(_) => {
                    if value != Value::Reg(vcc(&self.target)) {
                        return None;
                    }
                }
            }
        }
        bind.forms.push(form.index);
        Some(())
    }

    fn check<F: FactSource + ?Sized>(&self, compiled: &Compiled, alt: &[(&InstPat, Vec<Form>)], facts: &F, matched: &[usize], bind: &Binding, live: &dyn Liveness) -> Result<Rewrite, &'static str> {
        let rule = &compiled.rule.rule;
        let (first, last) = (matched[0], *matched.last().unwrap());
        // Forms and modifiers.
        for &i in matched {
            let e = facts[i].inst.encoding().unwrap();
            if e.flags.has(flag::DPP) {
                return Err("dpp");
            }
            if e.flags.has(flag::SDWA) {
                return Err("sdwa");
            }
            let ops = facts[i].operands.as_ref().unwrap();
            let modified = ops.as_slice().iter().any(|o| {
                matches!(
                    o.name,
                    OperandName::clamp | OperandName::omod | OperandName::op_sel | OperandName::src0_modifiers | OperandName::src1_modifiers | OperandName::src2_modifiers
                ) && matches!(o.value, Value::Imm(v) if v != 0)
            });
            if modified {
                return Err("modifiers");
            }
        }
        // Conditions on operands.
        for c in &rule.conditions {
            match c {
                Condition::Is(v, kind, _) => {
                    let value = bind.get(v).copied().unwrap_or(Value::None);
                    let ok = match (kind, value) {
                        (Kind::Vgpr, Value::Reg(Reg::Vgpr { .. })) | (Kind::Sgpr, Value::Reg(Reg::Sgpr { .. })) | (Kind::Reg, Value::Reg(_)) => true,
                        (Kind::Const, v) => constant_of(v).is_some() || matches!(v, Value::InlineFloat(_)),
                        (Kind::Inline, Value::InlineInt(_) | Value::InlineFloat(_)) => true,
                        _ => false,
                    };
                    if !ok {
                        return Err("operand-kind");
                    }
                }
                Condition::In(v, lo, hi, _) => match bind.get(v).copied().and_then(constant_of) {
                    Some(c) if (*lo..=*hi).contains(&c) => {}
                    _ => return Err("operand-range"),
                },
                Condition::Dead(..) => {}
            }
        }
        let pattern: Vec<&InstPat> = alt.iter().map(|(p, _)| *p).collect();
        let form_of = |m: usize| alt[m].1.iter().find(|f| f.index == bind.forms[alt.len() - 1 - m]).unwrap();
        // Which metavariables the pattern defines, and where.
        let mut defined: BTreeMap<&str, usize> = BTreeMap::new();
        for (m, pat) in pattern.iter().enumerate() {
            for (slot, op) in pat.operands.iter().enumerate() {
                if let OperandPat::Var(v) = op
                    && matches!(form_of(m).role(slot), Some(Role::Dest | Role::Carry))
                {
                    defined.entry(v.as_str()).or_insert(m);
                }
            }
        }
        // Values the rewrite removes are read by nobody in between.
        for &i in &matched[..matched.len() - 1] {
            let removed = &facts[i].writes;
            let between = (i + 1..=last).filter(|j| !matched.contains(j));
            for j in between {
                if facts[j].reads.intersects(removed) {
                    return Err("intermediate-read");
                }
            }
        }
        if (first + 1..last).any(|j| facts[j].writes.contains(EXEC_LO) || facts[j].writes.contains(EXEC_HI)) {
            return Err("exec-changed");
        }
        // Declared-dead locations the pattern writes.
        let dest_units: Vec<Unit> = compiled
            .replacement
            .iter()
            .flat_map(|(pat, form)| {
                pat.operands.iter().enumerate().filter(move |(slot, _)| form.role(*slot) == Some(Role::Dest)).filter_map(|(_, op)| match op {
                    OperandPat::Var(v) => match bind.get(v) {
                        Some(Value::Reg(r)) => Some(units(*r)),
                        _ => None,
                    },
                    _ => None,
                })
            })
            .flatten()
            .collect();
        let mut written = UnitSet::EMPTY;
        for &i in matched {
            written.union(&facts[i].writes);
        }
        // Where the replacement goes: at the consumer (the pattern's last instruction) when its
        // inputs still hold there what the pattern read, else at the producer (the first) when
        // nothing in between touches what the replacement reads or writes.
        let forms: Vec<&Form> = (0..alt.len()).map(form_of).collect();
        let inputs = Self::inputs(compiled, &pattern, &forms, &defined, matched, bind);
        let at = if Self::inputs_hold(facts, matched, &inputs, last) {
            last
        } else if Self::inputs_hold(facts, matched, &inputs, first) && Self::producer_free(facts, matched, &self.replacement_writes(compiled, &dest_units)) {
            first
        } else {
            return Err("input-redefined");
        };
        for c in &rule.conditions {
            let Condition::Dead(loc, _) = c else { continue };
            let u: Vec<Unit> = match loc {
                Loc::Var(v) => match bind.get(v) {
                    Some(Value::Reg(r)) => units(*r),
                    _ => continue,
                },
                Loc::Scc => vec![SCC],
                Loc::Vcc => units(vcc(&self.target)),
            };
            if !u.iter().any(|x| written.contains(*x)) {
                continue;
            }
            // A unit the replacement itself writes is overwritten in exactly the lanes the
            // removed instruction wrote (EXEC is unchanged in between, checked above).
            if u.iter().any(|x| !dest_units.contains(x) && !live.dead_after(last, *x)) {
                return Err("live-after");
            }
        }
        // The replacement, legal on the target.
        let mut new = Vec::new();
        for (pat, form) in &compiled.replacement {
            new.push(self.build(pat, form, bind)?);
        }
        let nops = self.nops_needed(facts, matched, at);
        if self.store_data_hazard(facts, matched, at, &nops, &dest_units) {
            return Err("wait-state");
        }
        Ok(Rewrite { rule: rule.name.clone(), matched: matched.to_vec(), at, new, nops })
    }

    /// The replacement's register inputs: the units each covers and the matched instructions
    /// that read it as that metavariable (the pattern's own results, `%t` and `%d`, are not
    /// inputs).
    fn inputs(compiled: &Compiled, pattern: &[&InstPat], forms: &[&Form], defined: &BTreeMap<&str, usize>, matched: &[usize], bind: &Binding) -> Vec<Input> {
        let mut out: Vec<Input> = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for (pat, _) in &compiled.replacement {
            for op in &pat.operands {
                let OperandPat::Var(v) = op else { continue };
                if defined.contains_key(v.as_str()) || seen.contains(&v.as_str()) {
                    continue;
                }
                seen.push(v);
                let Some(Value::Reg(r)) = bind.get(v) else { continue };
                let reads_it = |m: usize| {
                    pattern[m].operands.iter().enumerate().any(|(slot, o)| matches!(o, OperandPat::Var(w) if w == v) && !matches!(forms[m].role(slot), Some(Role::Dest | Role::Carry)))
                };
                let readers = (0..pattern.len()).filter(|&m| reads_it(m)).map(|m| matched[m]).collect();
                out.push(Input { units: UnitSet::of(unit_range(*r)), readers });
            }
        }
        out
    }

    /// Whether every input holds at `at` the value the pattern read it with. An input read at
    /// `r` keeps it at `at` unless an instruction outside the pattern strictly between `r` and
    /// `at` writes it, or a pattern instruction before `r` does (that write is removed or moved
    /// with the pattern). The pattern's own write after its read does not count: with
    /// `v_add_u32 v14, v15, v14 ; v_add_u32 v14, v14, v19` gone, v14 still holds what the first
    /// add read, so `v_add3_u32 v14, v15, v14, v19` at the second is exact.
    fn inputs_hold<F: FactSource + ?Sized>(facts: &F, matched: &[usize], inputs: &[Input], at: usize) -> bool {
        inputs.iter().all(|input| {
            let writes = |i: usize| facts[i].writes.intersects(&input.units);
            input.readers.iter().all(|&r| {
                let (lo, hi) = (r.min(at), r.max(at));
                !(lo + 1..hi).any(|i| !matched.contains(&i) && writes(i)) && !matched.iter().any(|&w| w < r && writes(w))
            })
        })
    }

    /// What the replacement writes: its destinations and its implicit SCC and VCC.
    fn replacement_writes(&self, compiled: &Compiled, dest_units: &[Unit]) -> Vec<Unit> {
        let mut out = dest_units.to_vec();
        for (_, form) in &compiled.replacement {
            if form.encoding.defs.has(implicit::SCC) {
                out.push(SCC);
            }
            if form.encoding.defs.has(implicit::VCC) {
                out.extend(units(vcc(&self.target)));
            }
        }
        out
    }

    /// Whether the replacement may sit at the pattern's first instruction instead of its last:
    /// nothing outside the pattern in between reads or writes what the pattern or the replacement
    /// writes (the consumer's destination, `%t`, SCC or VCC), and nothing there writes what the
    /// later pattern instructions read (the consumer's other inputs, EXEC). With EXEC unchanged
    /// (checked before) and `%t` dead after the consumer (checked after), the replacement then
    /// computes at the producer what the consumer would have, and leaves it where it would.
    fn producer_free<F: FactSource + ?Sized>(facts: &F, matched: &[usize], replacement_writes: &[Unit]) -> bool {
        let (first, last) = (matched[0], *matched.last().unwrap());
        let mut written = UnitSet::EMPTY;
        for &i in matched {
            written.union(&facts[i].writes);
        }
        for &u in replacement_writes {
            written.insert(u);
        }
        let mut read_later = UnitSet::EMPTY;
        for &i in &matched[1..] {
            read_later.union(&facts[i].reads);
        }
        (first + 1..last).filter(|j| !matched.contains(j)).all(|j| {
            let f = &facts[j];
            !f.reads.intersects(&written) && !f.writes.intersects(&written) && !f.writes.intersects(&read_later)
        })
    }

    fn build(&self, pat: &InstPat, form: &Form, bind: &Binding) -> Result<NewInst, &'static str> {
        let e = form.encoding;
        let generation = self.target.generation();
        let mut operands = Vec::new();
        let mut scalars: Vec<Value> = Vec::new();
        let mut literals: Vec<u32> = Vec::new();
        let mut words = Vec::new();
        for (slot, op) in form.slots.iter().zip(&pat.operands) {
            let value = match op {
                OperandPat::Var(v) => bind.get(v).copied().expect("a replacement names only bound variables"),
                OperandPat::Int(c) => Value::InlineInt(*c),
                OperandPat::Fixed(_) => Value::Reg(vcc(&self.target)),
            };
            words.push(show(value));
            let Slot::Operand(i) = *slot else { continue };
            let operand = &e.operands[i];
            let class = operand.class.info();
            let vgpr_only = class.decoder_method.is_empty() && (class.reg_class.starts_with("VGPR") || class.reg_class.starts_with("VReg"));
            if operand.dir == Dir::In && vgpr_only && !matches!(value, Value::Reg(Reg::Vgpr { .. })) {
                return Err("operand-class");
            }
            if operand.dir == Dir::In {
                match value {
                    Value::Literal(l) => {
                        if e.flags.has(flag::VOP3) && generation < Generation::Gfx10_1 {
                            return Err("literal");
                        }
                        if !literals.contains(&l) {
                            literals.push(l);
                        }
                    }
                    Value::Literal64(_) => return Err("literal"),
                    Value::Reg(Reg::Vgpr { .. } | Reg::Agpr { .. } | Reg::Vgpr16 { .. }) => {}
                    Value::Reg(_) if e.flags.has(flag::VALU) && !scalars.contains(&value) => scalars.push(value),
                    _ => {}
                }
            }
            operands.push((i, value));
        }
        if literals.len() > 1 {
            return Err("literal");
        }
        if e.flags.has(flag::VALU) {
            let limit = if generation.is_gfx10_plus() && !e.opcode.name().contains("_B64") { 2 } else { 1 };
            if scalars.len() + literals.len() > limit {
                return Err("constant-bus");
            }
        }
        let text = if words.is_empty() { e.mnemonic().to_owned() } else { format!("{} {}", e.mnemonic(), words.join(", ")) };
        Ok(NewInst { encoding: form.index, operands, text })
    }

    /// Removed instructions that must stay as `s_nop 0` (GFX9 family): where removing them
    /// would bring a VALU write closer to a DPP, readlane/writelane or VMEM consumer of it than
    /// its wait states allow. The instructions removed before count as gone. The replacement
    /// itself needs no check at either place: at the consumer it writes where the consumer
    /// wrote; at the producer its destination is read only after the consumer, farther away
    /// than before, and it is no consumer these wait states name.
    fn nops_needed<F: FactSource + ?Sized>(&self, facts: &F, matched: &[usize], at: usize) -> Vec<usize> {
        if self.keep_distances {
            return matched.iter().copied().filter(|&i| i != at).collect();
        }
        if !matches!(self.target.generation(), Generation::Gfx9 | Generation::Gfx90a | Generation::Gfx940 | Generation::Gfx950) {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut gone: Vec<usize> = Vec::new();
        for &removed in matched.iter().filter(|&&i| i != at) {
            gone.push(removed);
            let needed = (removed.saturating_sub(6)..removed).any(|p| {
                (removed + 1..(removed + 7).min(facts.len())).any(|c| {
                    let required = wait_states(&facts[p], &facts[c]);
                    let distance: usize = (p + 1..c).filter(|j| !gone.contains(j)).map(|j| nop_weight(&facts[j])).sum();
                    required > 0 && distance < required
                })
            });
            if needed {
                gone.pop();
                out.push(removed);
            }
        }
        out
    }
}

impl Matcher<'_> {
    /// Whether, after the rewrite, a VALU write of a VGPR would follow a VMEM or FLAT store
    /// reading it closer than the hardware allows (LLVM's `has12DWordStoreHazard`, every
    /// generation from GFX7: a store of more than 8 bytes, then a VALU write of its data, needs
    /// 1 wait state, 2 on GFX940/950). Any store counts here, and any VGPR it reads. The
    /// replacement at `at` writes `dest`; removed instructions not kept as `s_nop 0` are gone.
    fn store_data_hazard<F: FactSource + ?Sized>(&self, facts: &F, matched: &[usize], at: usize, nops: &[usize], dest: &[Unit]) -> bool {
        let required = if matches!(self.target.generation(), Generation::Gfx940 | Generation::Gfx950) { 2 } else { 1 };
        let gone = |i: usize| i != at && matched.contains(&i) && !nops.contains(&i);
        let dest = {
            let mut set = UnitSet::EMPTY;
            for &u in dest {
                set.insert(u);
            }
            set
        };
        let (first, last) = (matched[0], *matched.last().unwrap());
        for w in first..(last + required + 2).min(facts.len()) {
            if gone(w) {
                continue;
            }
            let writes: &UnitSet = if w == at {
                &dest
            } else if facts[w].valu {
                &facts[w].writes
            } else {
                continue;
            };
            let mut distance = 0;
            for s in (0..w).rev().filter(|&s| !gone(s)) {
                if distance >= required {
                    break;
                }
                let f = &facts[s];
                let store = f.inst.encoding().is_some_and(|e| e.flags.has(flag::MAYSTORE) && e.flags.has(flag::MUBUF | flag::MTBUF | flag::FLAT | flag::MIMG));
                if store && writes.iter().any(|u| u >= VGPR0 && f.reads.contains(u)) {
                    return true;
                }
                distance += nop_weight(f);
            }
        }
        false
    }
}

/// Wait states an instruction stands for (an `s_nop N` is N + 1).
pub(crate) fn nop_weight(f: &Facts) -> usize {
    match f.mnemonic() {
        "s_nop" => 1 + f.operands.as_ref().map_or(0, |o| o.imm(OperandName::simm16) as usize & 0xf),
        _ => 1,
    }
}

/// GFX9-family wait states between a VALU write and a consumer (LLVM's GCNHazardRecognizer):
/// DPP reading a VGPR (2) or after an EXEC write (5); v_readlane/v_writelane lane select (4);
/// VMEM reading an SGPR (5); v_div_fmas after a VCC write (4).
pub(crate) fn wait_states(producer: &Facts, consumer: &Facts) -> usize {
    if !producer.valu {
        return 0;
    }
    let Some(e) = consumer.inst.encoding() else { return 5 };
    let reads_written = |filter: &dyn Fn(Unit) -> bool| consumer.reads.iter().any(|u| filter(u) && producer.writes.contains(u));
    let mut required = 0;
    if e.flags.has(flag::DPP) {
        if reads_written(&|u| u >= VGPR0) {
            required = required.max(2);
        }
        if producer.writes.contains(EXEC_LO) || producer.writes.contains(EXEC_HI) {
            required = required.max(5);
        }
    }
    let m = e.mnemonic();
    if (m.starts_with("v_readlane") || m.starts_with("v_writelane")) && reads_written(&|u| u < VGPR0) {
        required = required.max(4);
    }
    if e.flags.has(flag::MUBUF | flag::MTBUF | flag::MIMG | flag::FLAT) && reads_written(&|u| u < VGPR0) {
        required = required.max(5);
    }
    if m.starts_with("v_div_fmas") && reads_written(&|u| u == VCC_LO || u == VCC_HI) {
        required = required.max(4);
    }
    // GFX940/950: a transcendental VALU result read by a non-transcendental VALU (1).
    if producer.trans && consumer.valu && !consumer.trans && reads_written(&|u| u >= VGPR0) {
        required = required.max(1);
    }
    required
}

/// Whether a function on `target` holds an instruction whose wait states the matcher does not
/// model (GFX90A, GFX940, GFX950: MFMA, SMFMAC, DOT, `v_accvgpr_*`), so removals must keep
/// every distance ([`Matcher::keep_distances`]).
pub fn needs_kept_distances<'a>(target: &Target, mut insts: impl Iterator<Item = &'a Inst>) -> bool {
    if !matches!(target.generation(), Generation::Gfx90a | Generation::Gfx940 | Generation::Gfx950) {
        return false;
    }
    insts.any(|i| {
        i.encoding().is_none_or(|e| {
            let m = e.mnemonic();
            e.flags.has(flag::ISDOT) || m.starts_with("v_mfma") || m.starts_with("v_smfmac") || m.starts_with("v_accvgpr")
        })
    })
}

/// An input of a replacement: the register units, and where the pattern reads them.
struct Input {
    units: UnitSet,
    readers: Vec<usize>,
}

#[derive(Clone, Debug, Default)]
struct Binding<'p> {
    /// Each metavariable's value, in the order they were bound (a handful: searched in order).
    vars: Vec<(&'p str, Value)>,
    /// Encoding of each matched instruction, last pattern instruction first.
    forms: Vec<u16>,
}

impl Binding<'_> {
    fn get(&self, name: &str) -> Option<&Value> {
        self.vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
}

fn vcc(target: &Target) -> Reg {
    Reg::Special(if target.wave64 { Special::Vcc } else { Special::VccLo })
}

/// The integer a constant operand holds, if it is one.
fn constant_of(v: Value) -> Option<i64> {
    match v {
        Value::InlineInt(c) => Some(c),
        Value::Literal(l) => Some(i64::from(l as i32)),
        _ => None,
    }
}

/// A value as LLVM prints it in an integer operand.
fn show(v: Value) -> String {
    match v {
        Value::Reg(r) => r.to_string(),
        Value::InlineInt(c) => c.to_string(),
        Value::Literal(l) => format!("{l:#x}"),
        Value::Literal64(l) => format!("{l:#x}"),
        Value::InlineFloat(code) => ["0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0", "0.15915494"][usize::from(code - 240).min(8)].to_owned(),
        Value::Imm(i) => i.to_string(),
        Value::None => "off".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit set answers what the vectors of units it replaced answered: the same units,
    /// membership, and overlap, for every kind of register (tuples, specials, untracked).
    #[test]
    fn unit_sets_hold_the_units_of_their_registers() {
        let regs = [
            Reg::Sgpr { index: 0, count: 1 },
            Reg::Sgpr { index: 104, count: 2 },
            Reg::Vgpr { index: 7, count: 4 },
            Reg::Vgpr { index: 508, count: 4 },
            Reg::Agpr { index: 252, count: 4 },
            Reg::Agpr { index: 255, count: 16 },
            Reg::Ttmp { index: 0, count: 2 },
            Reg::Special(Special::Vcc),
            Reg::Special(Special::ExecHi),
            Reg::Special(Special::M0),
        ];
        for r in regs {
            let set = UnitSet::of(unit_range(r));
            assert_eq!(set.iter().collect::<Vec<_>>(), units(r), "{r:?}");
            for u in units(r) {
                assert!(set.contains(u), "{r:?}: {u}");
            }
            for other in regs {
                let overlap = units(other).iter().any(|u| units(r).contains(u));
                assert_eq!(set.intersects(&UnitSet::of(unit_range(other))), overlap, "{r:?} and {other:?}");
            }
        }
        // AGPR a[255:270] ends past unit 896 (the liveness sets' end) and is still held whole.
        assert!(UnitSet::of(unit_range(Reg::Agpr { index: 255, count: 16 })).contains(AGPR0 + 270));
        assert!(!UnitSet::EMPTY.contains(SCC));
    }
}
