//! The `peephole` pass: runs a [`RuleSet`] over every basic block of a function through the
//! edit API.
//!
//! Per block: the matcher ([`Matcher::run_block`]) finds the matches and decides, with a reason,
//! which may be applied; liveness is the program's ([`crate::ir::liveness::Liveness`]) refined inside the
//! block (below). Each applied rewrite replaces the pattern's last instruction with the
//! replacement, encoded by `isa::encode` (which decodes its own output), and deletes the other
//! matched instructions (or replaces them with `s_nop 0` where a GFX9 wait state needs the
//! distance). Every instruction not matched keeps its node, so the layout copies its bytes.
//!
//! A rewrite is applied whole or not at all: a matched instruction the edit API refuses to touch
//! (control flow, a PC-relative chain, an opaque function) or a replacement that does not
//! encode declines the match (`edit: <why>`, `encode`), and the function is left as it was.

use std::collections::BTreeMap;

use super::matcher::{Facts, Matcher, NewInst, Rewrite, RuleStats, Unit, EXEC_HI, EXEC_LO, VGPR0};
use super::RuleSet;
use crate::ir::liveness::{access, Liveness, RegSet};
use crate::ir::{Flow, Function, InstRef, Node};
use crate::isa::operand::{Op, Operands, Value};
use crate::isa::reg::Reg;
use crate::isa::table::{encodings, flag, OperandName};
use crate::isa::{encode, print, Inst, Target};
use crate::pass::{Ctx, Pass, PassStats};

pub const NAME: &str = "peephole";

/// The peephole pass over a rule set (ours, a selection, or ours plus a user's).
pub struct Peephole {
    rules: Option<&'static RuleSet>,
    /// Record each rewrite and each declined match for `--explain`.
    pub explain: bool,
}

/// The registry's entry: every shipped rule, no explanations.
pub static BUILTIN: Peephole = Peephole { rules: None, explain: false };

impl Peephole {
    pub fn new(rules: &'static RuleSet, explain: bool) -> Peephole {
        Peephole { rules: Some(rules), explain }
    }

    pub fn rules(&self) -> &'static RuleSet {
        self.rules.unwrap_or_else(RuleSet::builtin)
    }
}

impl Pass for Peephole {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        "merge dependent instructions by the proven rules of passes/*.rules (peephole:rule,... for some)"
    }

    fn run(&self, function: &mut Function, ctx: &Ctx<'_>, stats: &mut PassStats) {
        let set = self.rules();
        let matcher = Matcher::new(set, ctx.target);
        let mut per_rule: BTreeMap<String, RuleStats> = set.rules.iter().map(|r| (r.rule.name.clone(), RuleStats::default())).collect();
        if matcher.rule_names().is_empty() || function.blocks.iter().all(|b| b.nodes.is_empty()) {
            merge_rules(stats, &per_rule);
            return;
        }
        let liveness = Liveness::compute(function, ctx.target);
        for block in 0..function.blocks.len() {
            let facts: Vec<Facts> = function.blocks[block].nodes.iter().map(|n| Facts::of(&n.inst, ctx.target)).collect();
            let live = BlockLive::new(&function.blocks[block].nodes, &facts, liveness.live_out[block], ctx.target);
            let result = matcher.run_block(&facts, &live, &mut per_rule);
            for d in &result.declines {
                stats.decline(d.reason);
                if self.explain {
                    stats.explain.push(format!(
                        "{} {}: {} declined ({}): {}",
                        function.name,
                        address_of(function, block, d.matched[d.matched.len() - 1]),
                        d.rule,
                        d.reason,
                        texts(function, block, &d.matched, ctx.target)
                    ));
                }
            }
            // Apply from the end of the block so earlier indices stay valid; rewrites never
            // share an instruction but may interleave, so order their edits together.
            let mut rewrites: Vec<&Rewrite> = result.rewrites.iter().collect();
            rewrites.sort_by_key(|r| std::cmp::Reverse(r.matched[0]));
            let mut applied: Vec<(String, &Rewrite)> = Vec::new();
            let mut plans = Vec::new();
            for r in rewrites {
                match plan(function, block, r, ctx) {
                    Ok(p) => plans.push((r, p)),
                    Err(reason) => {
                        let s = per_rule.entry(r.rule.clone()).or_default();
                        s.applied -= 1;
                        *s.declined.entry(reason).or_insert(0) += 1;
                        stats.decline(reason);
                        if self.explain {
                            stats.explain.push(format!(
                                "{} {}: {} declined ({}): {}",
                                function.name,
                                address_of(function, block, *r.matched.last().unwrap()),
                                r.rule,
                                reason,
                                texts(function, block, &r.matched, ctx.target)
                            ));
                        }
                    }
                }
            }
            // Every edit of every planned rewrite, last position first.
            let mut ops: Vec<(usize, Edit)> = Vec::new();
            for (r, p) in &plans {
                let before = texts(function, block, &r.matched, ctx.target);
                let at = address_of(function, block, *r.matched.last().unwrap());
                applied.push((format!("{} {at}: {}: {before} => {}", function.name, r.rule, p.after), r));
                ops.extend(p.edits.iter().cloned());
            }
            ops.sort_by_key(|(i, e)| (std::cmp::Reverse(*i), matches!(e, Edit::Delete)));
            let saved = (function.blocks[block].clone(), function.edits.len());
            let mut failed = None;
            for (index, edit) in ops {
                let at = InstRef { block, index };
                let done = match edit {
                    Edit::Replace(inst, extra) => function.replace(at, inst, NAME).and_then(|()| {
                        extra.iter().rev().try_for_each(|i| function.insert_after(at, *i, NAME))
                    }),
                    Edit::Nop(inst) => function.replace(at, inst, NAME),
                    Edit::Delete => function.delete(at, NAME),
                };
                if let Err(e) = done {
                    failed = Some(e);
                    break;
                }
            }
            if let Some(e) = failed {
                // Checked before, so this is a bug; still, leave the block as it was.
                function.blocks[block] = saved.0;
                function.edits.truncate(saved.1);
                for (_, r) in &applied {
                    let s = per_rule.entry(r.rule.clone()).or_default();
                    s.applied -= 1;
                    *s.declined.entry("edit refused").or_insert(0) += 1;
                    stats.decline(e.reason());
                }
                continue;
            }
            stats.applied += applied.len() as u64;
            if self.explain {
                stats.explain.extend(applied.into_iter().map(|(line, _)| line));
            }
        }
        merge_rules(stats, &per_rule);
    }
}

fn merge_rules(stats: &mut PassStats, per_rule: &BTreeMap<String, RuleStats>) {
    for (name, s) in per_rule {
        let t = stats.rules.entry(name.clone()).or_default();
        t.matched += s.matched;
        t.applied += s.applied;
        for (k, v) in &s.declined {
            *t.declined.entry(k).or_insert(0) += v;
        }
    }
}

#[derive(Clone, Debug)]
enum Edit {
    /// The pattern's last instruction becomes the replacement's first (and the rest follow).
    Replace(Inst, Vec<Inst>),
    /// A removed instruction kept as `s_nop 0` for a wait state.
    Nop(Inst),
    Delete,
}

struct Plan {
    edits: Vec<(usize, Edit)>,
    after: String,
}

/// The edits of one rewrite, checked against what the edit API allows, or why not.
fn plan(function: &Function, block: usize, r: &Rewrite, ctx: &Ctx<'_>) -> Result<Plan, &'static str> {
    if function.opaque.is_some() {
        return Err("edit: opaque function");
    }
    let nodes = &function.blocks[block].nodes;
    for &i in &r.matched {
        let node = nodes.get(i).ok_or("edit: no such instruction")?;
        if node.flow != Flow::Next {
            return Err("edit: control flow");
        }
        if let Some(a) = node.origin.input_address()
            && function.pcrel.iter().any(|c| c.getpc == a || c.add_lo == a || c.add_hi == a || c.sext == Some(a))
        {
            return Err("edit: PC-relative chain");
        }
    }
    let mut new = Vec::new();
    for n in &r.new {
        new.push(encode_new(n, ctx.target).ok_or("encode")?);
    }
    let after: Vec<String> = new.iter().map(|i| print::print(i, ctx.target, 0)).collect();
    let mut edits = Vec::new();
    let last = *r.matched.last().unwrap();
    let (first, rest) = new.split_first().ok_or("encode")?;
    edits.push((last, Edit::Replace(*first, rest.to_vec())));
    let mut after_text = Vec::new();
    for &i in &r.matched[..r.matched.len() - 1] {
        if r.nops.contains(&i) {
            let nop = ctx
                .builder
                .borrow_mut()
                .build(crate::isa::table::Opcode::S_NOP, &[(OperandName::simm16, Value::Imm(0))])
                .ok_or("encode")?;
            edits.push((i, Edit::Nop(nop)));
            after_text.push("s_nop 0".to_owned());
        } else {
            edits.push((i, Edit::Delete));
        }
    }
    after_text.extend(after);
    Ok(Plan { edits, after: after_text.join(" ; ") })
}

/// Encodes a replacement instruction: the rule's operands, every modifier, clamp, omod and
/// op_sel 0. `None` if the encoder refuses (it decodes what it writes and compares).
pub fn encode_new(n: &NewInst, target: &Target) -> Option<Inst> {
    let e = encodings().get(usize::from(n.encoding))?;
    let mut ops = Operands::new();
    for (i, operand) in e.operands.iter().enumerate() {
        let value = match n.operands.iter().find(|(j, _)| *j == i) {
            Some((_, v)) => *v,
            None if matches!(
                operand.name,
                OperandName::src0_modifiers
                    | OperandName::src1_modifiers
                    | OperandName::src2_modifiers
                    | OperandName::clamp
                    | OperandName::omod
                    | OperandName::op_sel
            ) =>
            {
                Value::Imm(0)
            }
            None => return None,
        };
        ops.push(Op { name: operand.name, class: operand.class, value }).ok()?;
    }
    encode::encode(e, &ops, target).ok()
}

/// The input address of an instruction (`+` for one an earlier pass inserted).
fn address_of(function: &Function, block: usize, index: usize) -> String {
    match function.blocks[block].nodes[index].origin.input_address() {
        Some(a) => format!("{a:#x}"),
        None => "+".to_owned(),
    }
}

fn texts(function: &Function, block: usize, matched: &[usize], target: &Target) -> String {
    let b = &function.blocks[block];
    matched
        .iter()
        .map(|&i| print::print(&b.nodes[i].inst, target, b.nodes[i].origin.input_address().unwrap_or(b.address)))
        .collect::<Vec<_>>()
        .join(" ; ")
}

/// Liveness at an instruction of one block: the program's liveness at the block's end,
/// refined inside the block. The program's analysis never lets a VGPR write kill (inactive
/// lanes keep their values); here a later full 32-bit VALU write to the register, with EXEC
/// unchanged since the match, overwrites every lane the removed instruction wrote, so the
/// removed value is dead if nothing reads the register before that write.
pub struct BlockLive<'a> {
    nodes: &'a [Node],
    facts: &'a [Facts],
    live_out: RegSet,
    target: &'a Target,
}

impl<'a> BlockLive<'a> {
    pub fn new(nodes: &'a [Node], facts: &'a [Facts], live_out: RegSet, target: &'a Target) -> BlockLive<'a> {
        BlockLive { nodes, facts, live_out, target }
    }
}

impl super::matcher::Liveness for BlockLive<'_> {
    fn dead_after(&self, index: usize, unit: Unit) -> bool {
        let u = usize::from(unit);
        let mut exec_same = true;
        for (node, f) in self.nodes[index + 1..].iter().zip(&self.facts[index + 1..]) {
            if matches!(node.flow, Flow::Call(_)) {
                return false;
            }
            let a = access(&node.inst, self.target);
            if a.reads.contains(u) || f.reads.contains(&unit) {
                return false;
            }
            if a.kills.contains(u) {
                return true;
            }
            if unit >= VGPR0 && exec_same && a.writes.contains(u) && full_vgpr_write(f, unit) {
                return true;
            }
            if a.writes.contains(usize::from(EXEC_LO)) || a.writes.contains(usize::from(EXEC_HI)) {
                exec_same = false;
            }
        }
        !self.live_out.contains(u)
    }
}

/// Whether `f` writes all 32 bits of `unit` in every lane EXEC enables: a plain VOP1, VOP2 or
/// VOP3 ALU instruction (no DPP row masks, no SDWA selects, no 16-bit halves, no op_sel, not
/// a lane write or relative move) whose destination operand is a VGPR covering `unit`.
fn full_vgpr_write(f: &Facts, unit: Unit) -> bool {
    let Some(e) = f.inst.encoding() else { return false };
    let Some(ops) = &f.operands else { return false };
    if !f.valu || e.flags.has(flag::DPP | flag::SDWA) || !e.flags.has(flag::VOP1 | flag::VOP2 | flag::VOP3) || e.flags.has(flag::VOP3P) {
        return false;
    }
    let m = e.mnemonic();
    if m.contains("16") || m.contains("mix") || m.contains("lane") || m.contains("movrel") || m.contains("swap") || m.contains("mfma") || m.contains("wmma") {
        return false;
    }
    if ops.as_slice().iter().any(|o| o.name == OperandName::op_sel && o.value != Value::Imm(0)) {
        return false;
    }
    ops.as_slice().iter().any(|o| {
        o.name == OperandName::vdst && matches!(o.value, Value::Reg(r @ Reg::Vgpr { .. }) if super::matcher::units(r).contains(&unit))
    })
}
