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

use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeMap, HashMap};

use super::matcher::{needs_kept_distances, Facts, LazyFacts, Matcher, NewInst, Rewrite, RuleStats, Unit, EXEC_HI, EXEC_LO};
use super::delays::{self, Change};
use super::RuleSet;
use crate::ir::liveness::{access_of, live_by_search, Access, BlockEffect, RegSet};
use crate::ir::{Flow, Function, InstRef, Node, Origin, Program};
use crate::isa::operand::{Op, Operands, Value};
use crate::isa::reg::{Reg, Special};
use crate::isa::table::{encodings, flag, Dir, Encoding, OperandName};
use super::matcher::unit_range;
use crate::isa::processor::Generation;
use crate::isa::{encode, print, Inst, Target};
use crate::pass::{Ctx, Pass, PassStats};

pub const NAME: &str = "peephole";

/// The peephole pass over a rule set (ours, a selection, or ours plus a user's).
pub struct Peephole {
    rules: Option<&'static RuleSet>,
    /// Record each rewrite and each declined match for `--explain`.
    pub explain: bool,
    /// Skip blocks in which no rule can match ([`Matcher::may_match`]) and functions without
    /// such a block, and instructions no pattern ends at ([`Matcher::may_anchor`]). Off only to
    /// test that skipping changes nothing.
    prefilter: bool,
}

/// The registry's entry: every shipped rule, no explanations.
pub static BUILTIN: Peephole = Peephole { rules: None, explain: false, prefilter: true };

impl Peephole {
    pub fn new(rules: &'static RuleSet, explain: bool) -> Peephole {
        Peephole { rules: Some(rules), explain, prefilter: true }
    }

    /// This pass looking at every block, even those no rule can match: slower, the same result
    /// (tests/peephole_prefilter.rs compares the two).
    pub fn without_prefilter(&self) -> Peephole {
        Peephole { prefilter: false, ..*self }
    }

    fn matcher(&self, set: &'static RuleSet, target: &Target) -> Matcher<'static> {
        let matcher = Matcher::new(set, target);
        if self.prefilter { matcher } else { matcher.without_anchor_filter() }
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
        let mut matcher = self.matcher(set, ctx.target);
        let mut per_rule = zero_counts(set);
        self.run_function(function, &mut matcher, ctx, stats, &mut per_rule);
        merge_rules(stats, &per_rule);
    }

    /// The rules are resolved for the target once, not per function; per-rule counts are
    /// summed over the program and merged once.
    fn run_program(&self, program: &mut Program, ctx: &Ctx<'_>, stats: &mut PassStats) {
        if program.functions.is_empty() {
            return;
        }
        let set = self.rules();
        let mut matcher = self.matcher(set, ctx.target);
        let mut per_rule = zero_counts(set);
        for function in &mut program.functions {
            self.run_function(function, &mut matcher, ctx, stats, &mut per_rule);
        }
        merge_rules(stats, &per_rule);
    }
}

/// Every rule of `set`, counted zero (the report lists each rule, matched or not).
fn zero_counts(set: &RuleSet) -> BTreeMap<String, RuleStats> {
    set.rules.iter().map(|r| (r.rule.name.clone(), RuleStats::default())).collect()
}

impl Peephole {
    fn run_function(&self, function: &mut Function, matcher: &mut Matcher<'_>, ctx: &Ctx<'_>, stats: &mut PassStats, per_rule: &mut BTreeMap<String, RuleStats>) {
        if matcher.rule_names().is_empty() {
            return;
        }
        // Most blocks of a library hold no instruction some rule ends in: they are skipped
        // before their operands are decoded, and a function with none before its liveness is
        // solved (the matcher would find nothing there: no rewrite, no decline, no count).
        let candidates: Vec<bool> = function.blocks.iter().map(|b| !b.nodes.is_empty() && (!self.prefilter || matcher.may_match(b.nodes.iter().map(|n| &n.inst)))).collect();
        if !candidates.contains(&true) {
            return;
        }
        matcher.keep_distances(needs_kept_distances(ctx.target, function.blocks.iter().flat_map(|b| b.nodes.iter().map(|n| &n.inst))));
        // Liveness is the program's of the function as found: a rewrite only removes reads (and
        // writes of values proven dead), so the sets stay a superset of the truth while blocks
        // are rewritten, which keeps "dead" a proof. Each block's part is made when a question
        // first needs it (most candidate blocks hold no complete match and never ask, and a
        // question reaches few blocks), and at the latest before the block's first edit
        // (`run_round`), so it is always the block as found.
        let mut steps = Steps::new(function);
        for block in (0..candidates.len()).filter(|&b| candidates[b]) {
            // To a fixed point: a rewrite may make another match (a copy folded into the fused op
            // just made). A later round looks only at matches with an instruction the round
            // before produced, so no match is counted twice. Rewrites stay inside their block,
            // so a block no rule could match before stays so.
            let mut fresh_from: Option<usize> = None;
            for _round in 0..ROUNDS {
                let edits_before = function.edits.len();
                if !self.run_round(function, block, matcher, &mut steps, fresh_from, ctx, stats, per_rule) {
                    break;
                }
                fresh_from = Some(edits_before);
            }
        }
    }
}

/// Rounds of matching per block at most (each needs a rewrite of the round before).
const ROUNDS: usize = 4;

impl Peephole {
    /// One round of matching and rewriting over one block; whether anything was rewritten.
    /// With `fresh_from`, only matches including an instruction made by edit number
    /// `fresh_from` or later are considered.
    #[allow(clippy::too_many_arguments)]
    fn run_round(
        &self,
        function: &mut Function,
        block: usize,
        matcher: &Matcher<'_>,
        steps: &mut Steps,
        fresh_from: Option<usize>,
        ctx: &Ctx<'_>,
        stats: &mut PassStats,
        per_rule: &mut BTreeMap<String, RuleStats>,
    ) -> bool {
        let facts = LazyFacts::new(&function.blocks[block].nodes, ctx.target);
        let live = BlockLive::new(function, block, steps, ctx.target);
        let fresh: Option<Vec<bool>> = fresh_from.map(|mark| {
            function.blocks[block]
                .nodes
                .iter()
                .map(|n| matches!(n.origin, Origin::Replaced { edit, .. } | Origin::Inserted { edit } if edit as usize >= mark))
                .collect()
        });
        let result = matcher.run_block_where(&facts, &live, per_rule, &|matched: &[usize]| fresh.as_ref().is_none_or(|f| matched.iter().any(|&i| f[i])));
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
        let decline = |r: &Rewrite, reason: &'static str, why: &str, stats: &mut PassStats, per_rule: &mut BTreeMap<String, RuleStats>| {
            let s = per_rule.entry(r.rule.clone()).or_default();
            s.applied -= 1;
            *s.declined.entry(reason).or_insert(0) += 1;
            stats.decline(reason);
            if self.explain {
                stats.explain.push(format!(
                    "{} {}: {} declined ({reason}{why}): {}",
                    function.name,
                    address_of(function, block, *r.matched.last().unwrap()),
                    r.rule,
                    texts(function, block, &r.matched, ctx.target)
                ));
            }
        };
        for r in rewrites {
            match plan(function, block, r, ctx) {
                Ok(p) => plans.push((r, p)),
                Err(reason) => decline(r, reason, "", stats, per_rule),
            }
        }
        // GFX11+: the block's `s_delay_alu` rewritten with it, plan by plan; a plan whose
        // rewrite cannot keep their meaning is declined.
        let mut delays_wanted = None;
        if ctx.target.generation() >= Generation::Gfx11 && !plans.is_empty() {
            let mut kept: Vec<(&Rewrite, Plan)> = Vec::new();
            for (r, p) in plans {
                let mut trial: Vec<(&Rewrite, Vec<(usize, Change)>)> = kept.iter().map(|(r, p)| (*r, p.changes())).collect();
                trial.push((r, p.changes()));
                match delays::plan(function, block, &trial).and_then(|w| delays::reached_from_after(function, block, &trial).map(|()| w)) {
                    Ok(w) => {
                        delays_wanted = Some(w);
                        kept.push((r, p));
                    }
                    Err(why) => decline(r, "delay-alu", &format!(": {why}"), stats, per_rule),
                }
            }
            plans = kept;
        }
        // Every edit of every planned rewrite, last position first.
        let mut ops: Vec<(usize, Edit)> = Vec::new();
        for (r, p) in &plans {
            let before = texts(function, block, &r.matched, ctx.target);
            let at = address_of(function, block, *r.matched.last().unwrap());
            // The replacement sits at the consumer unless said otherwise.
            let place = if r.at == *r.matched.last().unwrap() { "" } else { " (at the producer)" };
            applied.push((format!("{} {at}: {}: {before} => {}{place}", function.name, r.rule, p.after), r));
            ops.extend(p.edits.iter().cloned());
        }
        ops.sort_by_key(|(i, e)| (std::cmp::Reverse(*i), matches!(e, Edit::Delete)));
        if !ops.is_empty() {
            steps.keep_effect(function, block, ctx.target);
            // The block's steps describe it as it was: made again from its new nodes when asked.
            steps.forget(block);
        }
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
                failed = Some(e.reason());
                break;
            }
        }
        if failed.is_none()
            && let Some(wanted) = &delays_wanted
            && let Err(e) = delays::apply(function, block, wanted, ctx, NAME)
        {
            failed = Some(e);
        }
        if let Some(e) = failed {
            // Checked before, so this is a bug; still, leave the block as it was.
            function.blocks[block] = saved.0;
            function.edits.truncate(saved.1);
            for (_, r) in &applied {
                let s = per_rule.entry(r.rule.clone()).or_default();
                s.applied -= 1;
                *s.declined.entry("edit refused").or_insert(0) += 1;
                stats.decline(e);
            }
            return false;
        }
        let any = !applied.is_empty();
        stats.applied += applied.len() as u64;
        if self.explain {
            stats.explain.extend(applied.into_iter().map(|(line, _)| line));
        }
        any
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
    /// The instruction at the rewrite's place becomes the replacement's first (and the rest follow).
    Replace(Inst, Vec<Inst>),
    /// A removed instruction kept as `s_nop 0` for a wait state.
    Nop(Inst),
    Delete,
}

struct Plan {
    edits: Vec<(usize, Edit)>,
    after: String,
}

impl Plan {
    /// The edits as the delay planner reads them.
    fn changes(&self) -> Vec<(usize, Change)> {
        self.edits
            .iter()
            .map(|(i, e)| {
                let c = match e {
                    Edit::Replace(first, rest) => Change::Replace(std::iter::once(*first).chain(rest.iter().copied()).collect()),
                    Edit::Nop(inst) => Change::Nop(*inst),
                    Edit::Delete => Change::Delete,
                };
                (*i, c)
            })
            .collect()
    }
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
    let (first, rest) = new.split_first().ok_or("encode")?;
    edits.push((r.at, Edit::Replace(*first, rest.to_vec())));
    let mut after_text = Vec::new();
    for &i in r.matched.iter().filter(|&&i| i != r.at) {
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

/// Liveness after an instruction of one block, for the matcher's `dead` conditions: the
/// program's liveness ([`Liveness`](crate::ir::liveness::Liveness)), refined. The program's analysis never lets a VGPR write
/// kill (inactive lanes keep their values). Here a later write of the whole register in every
/// lane EXEC enables (a full 32-bit VALU write, or a load: `overwrites_every_lane`) kills it
/// while EXEC still enables every lane it did at the match (`Exec`): the write overwrites
/// every lane the removed instruction wrote, so the removed value is dead if nothing reads the
/// register before. The walk follows the function's control flow past the block's end (an
/// if/else that overwrites the register on both sides kills it), visiting at most
/// `VISITS` blocks per question and taking the program's answer at a block beyond them or
/// once EXEC may have lost a lane.
pub struct BlockLive<'a> {
    function: &'a Function,
    block: usize,
    steps: &'a Steps,
    target: &'a Target,
}

/// What the walk of [`BlockLive`] needs of one instruction: its reads and writes as bit sets,
/// decoded once per block (a walk visits up to [`VISITS`] blocks per question, and questions
/// come by the thousand per function, mostly over the same blocks).
#[derive(Clone, Copy)]
struct Step {
    /// Units it may read: the program analysis's reads ([`Access`]) and the matcher's
    /// ([`Facts`]), which differ in how conservative they are; the walk takes both.
    reads: RegSet,
    /// Units it overwrites whole (the program analysis's kills).
    kills: RegSet,
    /// The VGPR and AGPR units it overwrites in every lane EXEC enables: written
    /// ([`Access::writes`]) by a write that [`overwrites_every_lane`].
    full_writes: RegSet,
    /// A call: reads everything.
    call: bool,
    /// Writes EXEC, not only widening it ([`widens_exec`]): lanes may be lost after it.
    narrows_exec: bool,
}

impl Step {
    /// The step of `node`, and its [`Access`] (for the block's [`BlockEffect`]).
    fn of(node: &Node, target: &Target) -> (Step, Access) {
        // One decode gives both views: the facts' operands are the program analysis's too.
        let f = Facts::of(&node.inst, target);
        let a = match (node.inst.encoding(), &f.operands) {
            (Some(e), Some(ops)) => access_of(ops.converted.unwrap_or(e), ops),
            _ => Access::UNKNOWN,
        };
        let mut reads = a.reads;
        let mut facts_reads = RegSet::EMPTY;
        // The matcher's units past the program's last (an AGPR tuple running off the file) are
        // never asked about: the program's sets end there.
        for u in f.reads.iter().take_while(|&u| usize::from(u) < crate::ir::liveness::unit::COUNT) {
            facts_reads.insert(usize::from(u));
        }
        reads.union(&facts_reads);
        let traits = EncodingTraits::of(&node.inst);
        let full_writes = overwritten_in_every_lane(&f, traits, &a.writes);
        let narrows_exec = (a.writes.contains(usize::from(EXEC_LO)) || a.writes.contains(usize::from(EXEC_HI))) && !widens_exec(&f, traits, target);
        (Step { reads, kills: a.kills, full_writes, call: matches!(node.flow, Flow::Call(_)), narrows_exec }, a)
    }
}

/// The steps of one block and what they sum to.
struct BlockSteps {
    steps: Box<[Step]>,
    /// Every unit some step reads, kills or overwrites: a walk for another unit, through a
    /// block without calls or EXEC changes, passes it unchanged.
    touched: RegSet,
    calls: bool,
    narrows_exec: bool,
}

impl BlockSteps {
    /// The steps of a block of `nodes`, and its effect on the program's liveness (from the same
    /// decode).
    fn of(nodes: &[Node], target: &Target) -> (BlockSteps, BlockEffect) {
        let mut accesses = Vec::with_capacity(nodes.len());
        let steps: Box<[Step]> = nodes
            .iter()
            .map(|node| {
                let (step, access) = Step::of(node, target);
                accesses.push(access);
                step
            })
            .collect();
        let mut effect = BlockEffect::default();
        for (node, access) in nodes.iter().zip(&accesses).rev() {
            effect.step_back(node.flow, access);
        }
        let mut touched = RegSet::EMPTY;
        for step in &steps {
            touched.union(&step.reads);
            touched.union(&step.kills);
            touched.union(&step.full_writes);
        }
        let calls = steps.iter().any(|s| s.call);
        let narrows_exec = steps.iter().any(|s| s.narrows_exec);
        (BlockSteps { steps, touched, calls, narrows_exec }, effect)
    }
}

/// Per function: each block's steps, made when first needed and made again after the pass
/// edits the block, and each block's effect on the program's liveness ([`Liveness`](crate::ir::liveness::Liveness)) as found,
/// from which the program's answers are searched ([`Steps::program_live`]).
struct Steps {
    blocks: Vec<OnceCell<BlockSteps>>,
    /// Steps of single instructions of a block whose steps are not all made ([`Steps::step`]).
    singles: Vec<OnceCell<Box<[OnceCell<Step>]>>>,
    /// Of each block as the pass found it: made with its steps or when a search first reaches
    /// it, and before the pass first edits it at the latest ([`Steps::keep_effect`]).
    effects: Vec<OnceCell<BlockEffect>>,
    /// The program's answers given so far, by (block, unit, at entry).
    answers: RefCell<HashMap<(usize, Unit, bool), bool>>,
}

impl Steps {
    fn new(function: &Function) -> Steps {
        let n = function.blocks.len();
        Steps {
            blocks: (0..n).map(|_| OnceCell::new()).collect(),
            singles: (0..n).map(|_| OnceCell::new()).collect(),
            effects: (0..n).map(|_| OnceCell::new()).collect(),
            answers: RefCell::default(),
        }
    }

    fn block(&self, function: &Function, block: usize, target: &Target) -> &BlockSteps {
        self.blocks[block].get_or_init(|| {
            let (steps, effect) = BlockSteps::of(&function.blocks[block].nodes, target);
            // An edited block's effect was kept before its edit: this one is of the new nodes.
            let _ = self.effects[block].set(effect);
            steps
        })
    }

    fn effect(&self, function: &Function, block: usize, target: &Target) -> &BlockEffect {
        // From the program analysis's own accesses, not the block's steps: most blocks a search
        // reaches are never walked, and a step costs more to make than an access.
        self.effects[block].get_or_init(|| BlockEffect::of(&function.blocks[block].nodes, target))
    }

    /// Makes sure the effect of `block` as found is kept: called before the pass edits it.
    fn keep_effect(&self, function: &Function, block: usize, target: &Target) {
        self.effect(function, block, target);
    }

    /// Whether the program's liveness ([`Liveness::compute`](crate::ir::liveness::Liveness::compute) of the function as found) holds
    /// `unit` live on entry to `block` (`at_entry`) or after it: searched along the flow
    /// ([`live_by_search`]) with the blocks' effects as found, so only the blocks the search
    /// reaches are decoded. Rewrites stay inside their blocks and keep their control flow, so
    /// the function's blocks and successors are those it was found with.
    fn program_live(&self, function: &Function, block: usize, unit: Unit, at_entry: bool, target: &Target) -> bool {
        let key = (block, unit, at_entry);
        if let Some(&live) = self.answers.borrow().get(&key) {
            return live;
        }
        let live = live_by_search(function, block, usize::from(unit), at_entry, |b| self.effect(function, b, target));
        self.answers.borrow_mut().insert(key, live);
        live
    }

    /// The step of instruction `index` of `block`, made alone when the block's steps are not.
    fn step(&self, function: &Function, block: usize, index: usize, target: &Target) -> &Step {
        if let Some(b) = self.blocks[block].get() {
            return &b.steps[index];
        }
        let nodes = &function.blocks[block].nodes;
        let singles = self.singles[block].get_or_init(|| (0..nodes.len()).map(|_| OnceCell::new()).collect());
        singles[index].get_or_init(|| Step::of(&nodes[index], target).0)
    }

    /// Drops the steps of an edited block.
    fn forget(&mut self, block: usize) {
        self.blocks[block] = OnceCell::new();
        self.singles[block] = OnceCell::new();
    }
}

/// EXEC on the walk, against EXEC at the match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exec {
    /// Every lane enabled at the match still is (unchanged, or only widened: `s_or_b64 exec,
    /// exec, s[4:5]` restoring after an if, `s_or_saveexec`, `s_mov_b64 exec, -1`).
    Covers,
    /// Possibly fewer lanes.
    Unknown,
}

/// Blocks the walk past a block's end visits per question (then the program's liveness).
const VISITS: usize = 32;

impl<'a> BlockLive<'a> {
    /// The steps of `function`'s blocks and their effects come from `steps`, made when first
    /// needed: a block edited since the pass found it must have its effect kept before
    /// ([`Steps::keep_effect`]).
    fn new(function: &'a Function, block: usize, steps: &'a Steps, target: &'a Target) -> BlockLive<'a> {
        BlockLive { function, block, steps, target }
    }

    /// The program's liveness ([`Steps::program_live`]).
    fn program_live(&self, block: usize, unit: Unit, at_entry: bool) -> bool {
        self.steps.program_live(self.function, block, unit, at_entry, self.target)
    }

    fn steps(&self, block: usize) -> &BlockSteps {
        self.steps.block(self.function, block, self.target)
    }

    /// Walks `steps`: `Some(dead)` once the unit is read or killed, `None` at the end, `exec`
    /// updated.
    fn walk<'s>(steps: impl IntoIterator<Item = &'s Step>, unit: Unit, exec: &mut Exec) -> Option<bool> {
        let u = usize::from(unit);
        for s in steps {
            if s.call || s.reads.contains(u) {
                return Some(false);
            }
            if s.kills.contains(u) {
                return Some(true);
            }
            // `full_writes` holds only VGPR and AGPR units.
            if *exec == Exec::Covers && s.full_writes.contains(u) {
                return Some(true);
            }
            if s.narrows_exec {
                *exec = Exec::Unknown;
            }
        }
        None
    }

    /// Whether `unit` is dead on entry to `block` with EXEC as `exec`: no path from there
    /// reads it before a kill. `seen` holds the blocks visited (a path that comes back finds
    /// nothing new).
    fn dead_from(&self, block: usize, unit: Unit, exec: Exec, seen: &mut Vec<(usize, Exec)>) -> bool {
        if exec == Exec::Unknown || seen.len() >= VISITS {
            return !self.program_live(block, unit, true);
        }
        if seen.contains(&(block, exec)) {
            return true;
        }
        seen.push((block, exec));
        let b = self.steps(block);
        let mut exec = exec;
        // A block that neither touches the unit nor calls nor changes EXEC: straight through.
        let untouched = !b.touched.contains(usize::from(unit)) && !b.calls && !b.narrows_exec;
        let outcome = if untouched { None } else { Self::walk(&b.steps, unit, &mut exec) };
        match outcome {
            Some(dead) => dead,
            None => self.dead_at_end(block, unit, exec, seen),
        }
    }

    /// Whether `unit` is dead after the last instruction of `block`.
    fn dead_at_end(&self, block: usize, unit: Unit, exec: Exec, seen: &mut Vec<(usize, Exec)>) -> bool {
        let b = &self.function.blocks[block];
        if exec == Exec::Unknown {
            return !self.program_live(block, unit, false);
        }
        // Leaving the function: nothing is read after the wave ends, anything may be otherwise.
        if b.exits && !matches!(b.nodes.last().map(|n| n.flow), Some(Flow::End)) {
            return false;
        }
        if b.successors.is_empty() {
            return !self.program_live(block, unit, false);
        }
        b.successors.iter().all(|&s| self.dead_from(s, unit, exec, seen))
    }
}

impl super::matcher::Liveness for BlockLive<'_> {
    fn dead_after(&self, index: usize, unit: Unit) -> bool {
        let mut exec = Exec::Covers;
        // Most walks end a few instructions on: the block's own steps are made one by one as
        // the walk reaches them, unless all are made already.
        let outcome = match self.steps.blocks[self.block].get() {
            Some(b) => Self::walk(&b.steps[index + 1..], unit, &mut exec),
            None => {
                let nodes = &self.function.blocks[self.block].nodes;
                Self::walk((index + 1..nodes.len()).map(|i| self.steps.step(self.function, self.block, i, self.target)), unit, &mut exec)
            }
        };
        match outcome {
            Some(dead) => dead,
            None => self.dead_at_end(self.block, unit, exec, &mut Vec::new()),
        }
    }
}

/// What [`widens_exec`], [`full_load`] and [`full_vgpr_write`] decide from an encoding alone
/// (its flags and names): string tests too slow to repeat per instruction, so made once per
/// encoding and kept for the process (the table is the same for every target).
#[derive(Clone, Copy, Debug, Default)]
struct EncodingTraits {
    /// Passes [`full_load`]'s tests of the encoding.
    full_load: bool,
    /// Passes [`full_vgpr_write`]'s tests of the encoding.
    full_vgpr: bool,
    /// `s_or`, `s_mov` or `s_or_saveexec`, and whether its `_b32` form (else `_b64`).
    exec_op: Option<(ExecOp, bool)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExecOp {
    Or,
    Mov,
    OrSaveexec,
}

impl EncodingTraits {
    fn of(inst: &Inst) -> EncodingTraits {
        static ALL: std::sync::OnceLock<Box<[std::sync::OnceLock<EncodingTraits>]>> = std::sync::OnceLock::new();
        let Some(index) = inst.encoding_index() else { return EncodingTraits::default() };
        let all = ALL.get_or_init(|| (0..encodings().len()).map(|_| std::sync::OnceLock::new()).collect());
        *all[usize::from(index)].get_or_init(|| EncodingTraits::compute(&encodings()[usize::from(index)]))
    }

    fn compute(e: &Encoding) -> EncodingTraits {
        let m = e.mnemonic();
        let exec_op = [("_b64", false), ("_b32", true)].into_iter().find_map(|(width, b32)| {
            let op = match m.strip_suffix(width)? {
                "s_or" => ExecOp::Or,
                "s_mov" => ExecOp::Mov,
                "s_or_saveexec" => ExecOp::OrSaveexec,
                _ => return None,
            };
            Some((op, b32))
        });
        EncodingTraits { full_load: full_load_encoding(e), full_vgpr: full_vgpr_encoding(e), exec_op }
    }
}

/// Whether `f`, which writes EXEC, keeps every lane enabled: `s_or_b64 exec, exec, X` (either
/// order), `s_or_saveexec_b64` (EXEC |= S0), `s_mov_b64 exec, -1`; in wave32 also their 32-bit
/// forms on `exec_lo` (the 64-bit ones write `exec_lo` the same way).
fn widens_exec(f: &Facts, traits: EncodingTraits, target: &Target) -> bool {
    let Some(ops) = &f.operands else { return false };
    let Some((op, b32)) = traits.exec_op else { return false };
    // The 32-bit forms count only in wave32 (on `exec_lo`); the 64-bit ones in both.
    let reg = match (b32, target.wave64) {
        (false, _) => Special::Exec,
        (true, false) => Special::ExecLo,
        (true, true) => return false,
    };
    let value = |name: OperandName| ops.as_slice().iter().find(|o| o.name == name).map(|o| o.value);
    let exec = Some(Value::Reg(Reg::Special(reg)));
    let to_exec = value(OperandName::sdst) == exec;
    match op {
        ExecOp::Or => to_exec && (value(OperandName::src0) == exec || value(OperandName::src1) == exec),
        ExecOp::Mov => to_exec && value(OperandName::src0) == Some(Value::InlineInt(-1)),
        // D = EXEC, then EXEC |= S0; with D = EXEC itself the old mask would come back.
        ExecOp::OrSaveexec => !to_exec && value(OperandName::sdst).is_some(),
    }
}

/// The units `f` writes whole (all 32 bits) in every lane EXEC enables, among `written` (the
/// program analysis's writes): the destination of a load ([`full_load`]) or of a plain VOP1,
/// VOP2 or VOP3 ALU instruction ([`full_vgpr_write`]). VGPR and AGPR units only.
fn overwritten_in_every_lane(f: &Facts, traits: EncodingTraits, written: &RegSet) -> RegSet {
    let mut out = RegSet::EMPTY;
    let Some(e) = f.inst.encoding() else { return out };
    let Some(ops) = &f.operands else { return out };
    let mut add = |r: Reg| {
        for u in unit_range(r).map(usize::from) {
            if u < crate::ir::liveness::unit::COUNT && written.contains(u) {
                out.insert(u);
            }
        }
    };
    if traits.full_load && full_load(ops) {
        for (operand, o) in e.operands.iter().zip(ops.as_slice()) {
            if let Value::Reg(r @ (Reg::Vgpr { .. } | Reg::Agpr { .. })) = o.value
                && operand.dir == Dir::Out
            {
                add(r);
            }
        }
    }
    if traits.full_vgpr && f.valu && full_vgpr_write(ops) {
        for o in ops.as_slice() {
            if let Value::Reg(r @ Reg::Vgpr { .. }) = o.value
                && o.name == OperandName::vdst
            {
                add(r);
            }
        }
    }
    out
}

/// A DS, FLAT (global, scratch) or buffer load that returns whole 32-bit registers to every
/// lane EXEC enables: it may load, may not store (atomics do both), is no atomic, no d16
/// half-register load, no transposing load (`_tr`, lanes exchange data), sets neither `tfe` nor
/// `lwe` (which add a status register and may leave data unwritten); what it overwrites is its
/// destination VGPR or AGPR tuple. Images (MIMG) stay out: `dmask` and `d16` decide how much
/// they write. Out-of-range buffer lanes still write (zero). The encoding's part:
fn full_load_encoding(e: &Encoding) -> bool {
    if !e.flags.has(flag::DS | flag::FLAT | flag::MUBUF | flag::MTBUF) || !e.flags.has(flag::MAYLOAD) || e.flags.has(flag::MAYSTORE) {
        return false;
    }
    if e.flags.has(flag::ISATOMICRET | flag::ISATOMICNORET | flag::MIMG | flag::DPP) {
        return false;
    }
    // `tfe` and load-to-LDS are opcodes of their own (BUFFER_LOAD_DWORD_TFE_OFFSET, ..._LDS_...).
    let opcode = e.opcode.name();
    if opcode.contains("_TFE") || opcode.contains("_LDS") {
        return false;
    }
    let m = e.mnemonic();
    !(m.contains("d16") || m.contains("_tr") || m.contains("lds") || m.contains("gws") || m.contains("atomic"))
}

/// [`full_load_encoding`]'s operands' part: neither `tfe` nor `lwe` set.
fn full_load(ops: &Operands) -> bool {
    !ops.as_slice().iter().any(|o| matches!(o.name, OperandName::tfe | OperandName::lwe) && !matches!(o.value, Value::Imm(0) | Value::None))
}

/// A plain VOP1, VOP2 or VOP3 ALU instruction (no DPP row masks, no SDWA selects, no 16-bit
/// halves, no op_sel, not a lane write or relative move) writes all 32 bits of its VGPR
/// destination in every lane EXEC enables. The encoding's part:
fn full_vgpr_encoding(e: &Encoding) -> bool {
    if !e.flags.has(flag::VALU) || e.flags.has(flag::DPP | flag::SDWA) || !e.flags.has(flag::VOP1 | flag::VOP2 | flag::VOP3) || e.flags.has(flag::VOP3P) {
        return false;
    }
    let m = e.mnemonic();
    !(m.contains("16") || m.contains("mix") || m.contains("lane") || m.contains("movrel") || m.contains("swap") || m.contains("mfma") || m.contains("wmma"))
}

/// [`full_vgpr_encoding`]'s operands' part: no op_sel.
fn full_vgpr_write(ops: &Operands) -> bool {
    !ops.as_slice().iter().any(|o| o.name == OperandName::op_sel && o.value != Value::Imm(0))
}
