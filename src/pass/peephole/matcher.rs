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
//! - `input-redefined`: an input the replacement reads is written between the first pattern
//!   instruction and the replacement's position (the pattern's own `%t` aliasing `%a` included);
//! - `intermediate-read`: something in between reads a value the rewrite removes (`%t`, or the
//!   SCC a removed `s_lshl_b32` wrote);
//! - `exec-changed`: EXEC is written in between (the merged instruction would run under
//!   another mask than the removed one did);
//! - `live-after`: a location the rule declares `dead` may be read later ([`Liveness`]);
//! - `operand-class`, `literal`, `constant-bus`: the replacement would be illegal VOP3 on the
//!   target (a VGPR-only operand given something else; a literal before GFX10; more scalar
//!   values than the constant bus carries: one before GFX10, two from GFX10);
//! - `delay-alu`: on GFX11+, an `s_delay_alu` near the match counts VALU instructions across
//!   the one removed.
//!
//! On GFX9-family targets a removal shortens the distance between instructions around it; where
//! that would break a VALU-write-to-DPP/readlane/VMEM wait state, the removed instruction
//! becomes `s_nop 0` instead of disappearing ([`Rewrite::nops`]).

use std::collections::BTreeMap;

use super::rules::{fits, forms_on, plain_form, Form, Role, Slot};
use super::syntax::{Condition, InstPat, Kind, Loc, OperandPat};
use super::{LoadedRule, RuleSet};
use crate::isa::operand::{decode_operands, Operands, Value};
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
    let run = |base: Unit, index: u16, count: u8| (0..u16::from(count)).map(move |i| base + index + i).collect();
    match reg {
        Reg::Sgpr { index, count } => run(0, index, count),
        Reg::Vgpr { index, count } => run(VGPR0, index, count),
        Reg::Agpr { index, count } => run(AGPR0, index, count),
        Reg::Vgpr16 { index, .. } => vec![VGPR0 + index],
        Reg::Ttmp { .. } => Vec::new(),
        Reg::Special(s) => match s {
            Special::VccLo => vec![VCC_LO],
            Special::VccHi => vec![VCC_HI],
            Special::Vcc => vec![VCC_LO, VCC_HI],
            Special::ExecLo => vec![EXEC_LO],
            Special::ExecHi => vec![EXEC_HI],
            Special::Exec => vec![EXEC_LO, EXEC_HI],
            Special::M0 => vec![M0],
            _ => Vec::new(),
        },
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
            if f.reads.contains(&unit) {
                return false;
            }
            if f.salu && f.writes.contains(&unit) {
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
    pub reads: Vec<Unit>,
    pub writes: Vec<Unit>,
    pub salu: bool,
    pub valu: bool,
}

impl Facts {
    pub fn of(inst: &Inst, target: &Target) -> Facts {
        let mut f = Facts { inst: *inst, operands: None, reads: Vec::new(), writes: Vec::new(), salu: false, valu: false };
        let Some(e) = inst.encoding() else {
            // Unknown words: assume they read and write everything that matters here.
            f.reads = (0..AGPR0 + 256).collect();
            f.writes = f.reads.clone();
            return f;
        };
        f.salu = e.flags.has(flag::SALU);
        f.valu = e.flags.has(flag::VALU);
        if let Ok(ops) = decode_operands(e, inst.encoded_bits(), &inst.bytes()[inst.tail_at()..], target) {
            for (operand, op) in e.operands.iter().zip(ops.as_slice()) {
                if let Value::Reg(r) = op.value {
                    let u = units(r);
                    if operand.dir == Dir::Out { f.writes.extend(u) } else { f.reads.extend(u) }
                }
            }
            f.operands = Some(ops);
        }
        let wave = |lo: Unit, hi: Unit| if target.wave64 { vec![lo, hi] } else { vec![lo] };
        for (bit, lo, hi) in [(implicit::EXEC, EXEC_LO, EXEC_HI), (implicit::VCC, VCC_LO, VCC_HI)] {
            if e.uses.has(bit) {
                f.reads.extend(wave(lo, hi));
            }
            if e.defs.has(bit) {
                f.writes.extend(wave(lo, hi));
            }
        }
        for (bit, unit) in [(implicit::SCC, SCC), (implicit::M0, M0)] {
            if e.uses.has(bit) {
                f.reads.push(unit);
            }
            if e.defs.has(bit) {
                f.writes.push(unit);
            }
        }
        f
    }

    fn mnemonic(&self) -> &'static str {
        self.inst.encoding().map_or("", |e| e.mnemonic())
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
    /// Indices of the matched instructions, in order; the last is replaced by `new`, the others
    /// removed (or turned into `s_nop 0`, see `nops`).
    pub matched: Vec<usize>,
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
        Matcher { target: *target, rules }
    }

    /// Names of the rules that apply on the target.
    pub fn rule_names(&self) -> Vec<&str> {
        self.rules.iter().map(|r| r.rule.rule.name.as_str()).collect()
    }

    /// Matches every rule over one block; rewrites do not overlap (the earliest anchor wins).
    pub fn run_block(&self, facts: &[Facts], live: &dyn Liveness, stats: &mut BTreeMap<String, RuleStats>) -> BlockResult {
        let mut out = BlockResult::default();
        let mut taken = vec![false; facts.len()];
        for anchor in 0..facts.len() {
            for compiled in &self.rules {
                let name = &compiled.rule.rule.name;
                for alt in &compiled.alternatives {
                    let Some((matched, bind)) = self.bind(facts, anchor, alt) else { continue };
                    if matched.iter().any(|&i| taken[i]) {
                        continue;
                    }
                    let s = stats.entry(name.clone()).or_default();
                    s.matched += 1;
                    match self.check(compiled, alt, facts, &matched, &bind, live) {
                        Ok(rewrite) => {
                            s.applied += 1;
                            for &i in &rewrite.matched {
                                taken[i] = true;
                            }
                            out.rewrites.push(rewrite);
                        }
                        Err(reason) => {
                            *s.declined.entry(reason).or_insert(0) += 1;
                            out.declines.push(Decline { rule: name.clone(), matched, reason });
                        }
                    }
                    break;
                }
                if taken[anchor] {
                    break;
                }
            }
        }
        out
    }

    /// Binds one alternative with its last instruction at `anchor`: the matched indices and
    /// the metavariables' values.
    fn bind(&self, facts: &[Facts], anchor: usize, alt: &[(&InstPat, Vec<Form>)]) -> Option<(Vec<usize>, Binding)> {
        let mut bind = Binding::default();
        let mut matched = vec![anchor];
        let (last, forms) = alt.last()?;
        self.unify(&facts[anchor], last, forms, &mut bind)?;
        for m in (0..alt.len() - 1).rev() {
            let (pat, forms) = &alt[m];
            // The register this instruction defines, bound by a later one.
            let dest = pat.operands.iter().enumerate().find_map(|(slot, op)| match op {
                OperandPat::Var(v) if forms[0].role(slot) == Some(Role::Dest) => Some(v),
                _ => None,
            })?;
            let Some(&Value::Reg(reg)) = bind.vars.get(dest) else { return None };
            let want = units(reg);
            let next = *matched.last().unwrap();
            let def = (next.saturating_sub(WINDOW)..next).rev().find(|&i| facts[i].writes.iter().any(|u| want.contains(u)))?;
            self.unify(&facts[def], pat, forms, &mut bind)?;
            matched.push(def);
        }
        matched.reverse();
        Some((matched, bind))
    }

    fn unify(&self, facts: &Facts, pat: &InstPat, forms: &[Form], bind: &mut Binding) -> Option<()> {
        let index = facts.inst.encoding_index()?;
        let form = forms.iter().find(|f| f.index == index)?;
        let ops = facts.operands.as_ref()?;
        let mut trial = bind.clone();
        for (slot, op) in form.slots.iter().zip(&pat.operands) {
            let value = match slot {
                Slot::Operand(i) => ops.as_slice()[*i].value,
                Slot::Fixed(_) => Value::Reg(vcc(&self.target)),
            };
            match op {
                OperandPat::Var(v) => match trial.vars.get(v) {
                    Some(old) if *old != value => return None,
                    Some(_) => {}
                    None => {
                        trial.vars.insert(v.clone(), value);
                    }
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
        trial.forms.push(form.index);
        *bind = trial;
        Some(())
    }

    fn check(&self, compiled: &Compiled, alt: &[(&InstPat, Vec<Form>)], facts: &[Facts], matched: &[usize], bind: &Binding, live: &dyn Liveness) -> Result<Rewrite, &'static str> {
        let generation = self.target.generation();
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
                    let value = bind.vars.get(v).copied().unwrap_or(Value::None);
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
                Condition::In(v, lo, hi, _) => match bind.vars.get(v).copied().and_then(constant_of) {
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
        // Inputs keep their values up to the replacement.
        for (pat, _) in &compiled.replacement {
            for op in &pat.operands {
                let OperandPat::Var(v) = op else { continue };
                if defined.contains_key(v.as_str()) {
                    continue;
                }
                if let Some(Value::Reg(r)) = bind.vars.get(v) {
                    let u = units(*r);
                    if (first..last).any(|i| facts[i].writes.iter().any(|w| u.contains(w))) {
                        return Err("input-redefined");
                    }
                }
            }
        }
        // Values the rewrite removes are read by nobody in between.
        for &i in &matched[..matched.len() - 1] {
            let removed = &facts[i].writes;
            let between = (i + 1..=last).filter(|j| !matched.contains(j));
            for j in between {
                if facts[j].reads.iter().any(|u| removed.contains(u)) {
                    return Err("intermediate-read");
                }
            }
        }
        if (first + 1..last).any(|j| facts[j].writes.iter().any(|u| *u == EXEC_LO || *u == EXEC_HI)) {
            return Err("exec-changed");
        }
        // Declared-dead locations the pattern writes.
        let dest_units: Vec<Unit> = compiled
            .replacement
            .iter()
            .flat_map(|(pat, form)| {
                pat.operands.iter().enumerate().filter(move |(slot, _)| form.role(*slot) == Some(Role::Dest)).filter_map(|(_, op)| match op {
                    OperandPat::Var(v) => match bind.vars.get(v) {
                        Some(Value::Reg(r)) => Some(units(*r)),
                        _ => None,
                    },
                    _ => None,
                })
            })
            .flatten()
            .collect();
        let written: Vec<Unit> = matched.iter().flat_map(|&i| facts[i].writes.iter().copied()).collect();
        for c in &rule.conditions {
            let Condition::Dead(loc, _) = c else { continue };
            let u: Vec<Unit> = match loc {
                Loc::Var(v) => match bind.vars.get(v) {
                    Some(Value::Reg(r)) => units(*r),
                    _ => continue,
                },
                Loc::Scc => vec![SCC],
                Loc::Vcc => units(vcc(&self.target)),
            };
            if !u.iter().any(|x| written.contains(x)) {
                continue;
            }
            // A unit the replacement itself writes is overwritten in exactly the lanes the
            // removed instruction wrote (EXEC is unchanged in between, checked above).
            if u.iter().any(|x| !dest_units.contains(x) && !live.dead_after(last, *x)) {
                return Err("live-after");
            }
        }
        if generation >= Generation::Gfx11
            && facts[first..(last + 16).min(facts.len())].iter().any(|f| f.mnemonic() == "s_delay_alu")
        {
            return Err("delay-alu");
        }
        // The replacement, legal on the target.
        let mut new = Vec::new();
        for (pat, form) in &compiled.replacement {
            new.push(self.build(pat, form, bind)?);
        }
        let nops = self.nops_needed(facts, matched);
        Ok(Rewrite { rule: rule.name.clone(), matched: matched.to_vec(), new, nops })
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
                OperandPat::Var(v) => bind.vars[v],
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
    /// its wait states allow.
    fn nops_needed(&self, facts: &[Facts], matched: &[usize]) -> Vec<usize> {
        if !matches!(self.target.generation(), Generation::Gfx9 | Generation::Gfx90a | Generation::Gfx940 | Generation::Gfx950) {
            return Vec::new();
        }
        let mut out = Vec::new();
        for &removed in &matched[..matched.len() - 1] {
            let needed = (removed.saturating_sub(6)..removed).any(|p| {
                (removed + 1..(removed + 7).min(facts.len())).any(|c| {
                    let required = wait_states(&facts[p], &facts[c]);
                    let distance: usize = facts[p + 1..c].iter().map(nop_weight).sum();
                    required > 0 && distance - nop_weight(&facts[removed]) < required
                })
            });
            if needed {
                out.push(removed);
            }
        }
        out
    }
}

/// Wait states an instruction stands for (an `s_nop N` is N + 1).
fn nop_weight(f: &Facts) -> usize {
    match f.mnemonic() {
        "s_nop" => 1 + f.operands.as_ref().map_or(0, |o| o.imm(OperandName::simm16) as usize & 0xf),
        _ => 1,
    }
}

/// GFX9-family wait states between a VALU write and a consumer (LLVM's GCNHazardRecognizer):
/// DPP reading a VGPR (2) or after an EXEC write (5); v_readlane/v_writelane lane select (4);
/// VMEM reading an SGPR (5); v_div_fmas after a VCC write (4).
fn wait_states(producer: &Facts, consumer: &Facts) -> usize {
    if !producer.valu {
        return 0;
    }
    let Some(e) = consumer.inst.encoding() else { return 5 };
    let reads_written = |filter: &dyn Fn(Unit) -> bool| consumer.reads.iter().any(|u| filter(*u) && producer.writes.contains(u));
    let mut required = 0;
    if e.flags.has(flag::DPP) {
        if reads_written(&|u| u >= VGPR0) {
            required = required.max(2);
        }
        if producer.writes.iter().any(|u| *u == EXEC_LO || *u == EXEC_HI) {
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
    required
}

#[derive(Clone, Debug, Default)]
struct Binding {
    vars: BTreeMap<String, Value>,
    /// Encoding of each matched instruction, last pattern instruction first.
    forms: Vec<u16>,
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
