//! Instrumentation passes: `count-blocks` (per basic block: wave executions and active lanes,
//! measured on the chords of a spanning tree of the control flow and solved for every block by
//! conservation, see [`flow`]), `count-every-block` (the same counts from a probe in every
//! block) and `count-kernel` (per kernel: waves started, waves ended). Each probe adds to two 64-bit
//! counters in `__gfxpatch_counters`, a zero-initialised device global the rewrite adds to the
//! code object (its own `PT_LOAD`), addressed PC-relatively. The design, the probe sequences
//! per generation and the wait rule are in docs/instrumentation.md.
//!
//! The passes insert probes with placeholder address constants; after the layout, [`aim_constants`] sets
//! each probe's constants to its counters (the address is known only once the writer has placed
//! the new segment), [`sites`] lists the probes for the map file, and [`check`] proves, before
//! anything is written, that removing the probes gives the original instruction stream and that
//! each probe writes only registers dead at its point or registers it restores.

pub mod flow;
pub mod lines;
pub mod map;
pub mod probe;
pub mod trace;

use crate::ir::delay::delay_of;
use crate::ir::liveness::{self, access, unit, Liveness, RegSet};
use crate::ir::{Flow, Function, FunctionKind, InstRef, Origin, Program};
use crate::isa::encode::Builder;
use crate::isa::operand::Value;
use crate::isa::table::{Opcode, OperandName};
use crate::isa::{Inst, Target};

use super::{Ctx, Pass, PassStats};
use probe::{Lanes, PLACEHOLDER};

pub const COUNT_BLOCKS: &str = "count-blocks";
pub const COUNT_EVERY_BLOCK: &str = "count-every-block";
pub const COUNT_KERNEL: &str = "count-kernel";
pub const TRACE_MEMORY: &str = "trace-memory";
/// The symbol of the counters, as `hipModuleGetGlobal` looks it up.
pub const SYMBOL: &str = "__gfxpatch_counters";
/// Counters per probe (two `u64`: waves and lanes).
pub const COUNTERS_PER_PROBE: u64 = 2;

/// True for the passes whose probes [`aim_constants`] and [`check`] handle.
pub fn is_probe_pass(name: &str) -> bool {
    name == COUNT_BLOCKS || name == COUNT_EVERY_BLOCK || name == COUNT_KERNEL || name == TRACE_MEMORY
}

/// What a probe counts; the tag travels in the high add's placeholder until [`aim_constants`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProbeKind {
    /// At a block's start: [waves that ran it with EXEC != 0, active lanes summed].
    Block,
    /// Before a block's terminator: [waves that leave it with EXEC != 0, their active lanes]
    /// (`count-blocks`, at a block that writes EXEC, where what leaves is not what entered).
    BlockEnd,
    /// At a block's start, as [`ProbeKind::Block`], placed because a critical edge of the
    /// control flow could not be measured ([`flow::Reason::CriticalEdge`]).
    BlockCriticalEdge,
    /// At a kernel's entry: [waves started, lanes started].
    KernelStart,
    /// Before an `s_endpgm`: [waves ended here, lanes active at the end].
    KernelEnd,
    /// Before a global or flat memory instruction: a record in the trace ring ([`trace`]).
    TraceMemory,
}

impl ProbeKind {
    fn tag(self) -> u32 {
        match self {
            ProbeKind::Block => 0,
            ProbeKind::KernelStart => 1,
            ProbeKind::KernelEnd => 2,
            ProbeKind::BlockEnd => 3,
            ProbeKind::BlockCriticalEdge => 4,
            ProbeKind::TraceMemory => 5,
        }
    }

    fn from_tag(t: u32) -> Option<ProbeKind> {
        [ProbeKind::Block, ProbeKind::KernelStart, ProbeKind::KernelEnd, ProbeKind::BlockEnd, ProbeKind::BlockCriticalEdge, ProbeKind::TraceMemory].into_iter().find(|k| k.tag() == t)
    }

    /// A `count-blocks` / `count-every-block` probe (the flow solver's measurements).
    pub fn is_block(self) -> bool {
        matches!(self, ProbeKind::Block | ProbeKind::BlockEnd | ProbeKind::BlockCriticalEdge)
    }
}

/// Which functions a probe pass instruments: all, or those whose (mangled) name the regular
/// expression matches anywhere, as `grep` does: `--kernels 'csrmv|bsrmv_general'`,
/// `--kernels '^_Z.*csrmv'`.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    regex: Option<regex_lite::Regex>,
}

impl Filter {
    /// An empty `spec` selects every function.
    pub fn new(spec: &str) -> Result<Filter, String> {
        if spec.is_empty() {
            return Ok(Filter::default());
        }
        regex_lite::Regex::new(spec).map(|r| Filter { regex: Some(r) }).map_err(|e| format!("--kernels {spec:?}: {e}"))
    }

    pub fn matches(&self, name: &str) -> bool {
        self.regex.as_ref().is_none_or(|r| r.is_match(name))
    }
}

/// `count-blocks`: per basic block, waves and lanes, from probes on the chords of a spanning
/// tree of the function's control flow ([`flow::place`]); `count-every-block`
/// (`every_block`): from a probe at the start of every block.
pub struct CountBlocks {
    pub filter: Filter,
    pub every_block: bool,
}

/// `count-kernel`: a probe at each kernel's entry and before each `s_endpgm`.
pub struct CountKernel {
    pub filter: Filter,
}

/// `trace-memory`: a probe before each global and flat memory instruction that appends a
/// record to the trace ring ([`trace`]).
pub struct TraceMemory {
    pub filter: Filter,
}

/// An `s_delay_alu` whose second wait (`instskip`) reaches past a trace probe's point: the
/// probe's instructions would move that wait onto one of its own. It is split: the delay keeps
/// its first wait, and the second gets a delay of its own right before the instruction it
/// names. Where that wait's producer (a VALU) lies before the probe, the probe's own VALUs (at
/// least four, [`trace::sequence`]) put it farther back than `VALU_DEP_4` can name, and the
/// wait is dropped, as LLVM's `AMDGPUInsertDelayAlu` forgets a producer at that distance.
/// `TRANS32_DEP_n` (the probe has no transcendental instruction) and `SALU_CYCLE_n` (cycles,
/// not instructions) keep their value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DelaySplit {
    delay: InstRef,
    /// The delay's immediate with its first wait alone.
    first: u16,
    /// The instruction the second wait names, and its own delay's immediate (`instid0`).
    second: Option<(InstRef, u16)>,
}

/// What a probe does at its point.
#[derive(Clone, Copy, Debug)]
enum Probe {
    /// Adds to its two counters, in the lowest active lane or in lane 0 ([`probe::sequence`]).
    Count(Lanes),
    /// Appends a record of the instruction it stands before ([`trace::sequence`]).
    Trace(trace::Traced),
}

pub static COUNT_BLOCKS_ALL: CountBlocks = CountBlocks { filter: Filter { regex: None }, every_block: false };
pub static COUNT_EVERY_BLOCK_ALL: CountBlocks = CountBlocks { filter: Filter { regex: None }, every_block: true };
pub static COUNT_KERNEL_ALL: CountKernel = CountKernel { filter: Filter { regex: None } };
pub static TRACE_MEMORY_ALL: TraceMemory = TraceMemory { filter: Filter { regex: None } };

impl Pass for CountBlocks {
    fn name(&self) -> &'static str {
        if self.every_block { COUNT_EVERY_BLOCK } else { COUNT_BLOCKS }
    }

    fn description(&self) -> &'static str {
        if self.every_block {
            "count, per basic block, wave executions and active lanes with a probe in every block (into __gfxpatch_counters)"
        } else {
            "count, per basic block, wave executions and active lanes from probes on spanning-tree chords (into __gfxpatch_counters)"
        }
    }

    fn run(&self, function: &mut Function, ctx: &Ctx<'_>, stats: &mut PassStats) {
        if !self.filter.matches(&function.name) {
            return;
        }
        let blocks = flow_blocks(function, &ctx.unnamed.entries, ctx.target);
        // An empty block (none come from the decoder) has no start to probe: every block.
        let every = self.every_block || function.blocks.iter().any(|b| b.nodes.is_empty());
        let placement = if every { flow::every_block(&blocks) } else { flow::place(&blocks, &end_ok(function, ctx.target)) };
        let places: Vec<(InstRef, ProbeKind, Probe)> = placement
            .points
            .iter()
            .filter(|&&(p, _)| !matches!(p, flow::Point::Start(b) if function.blocks[b].nodes.is_empty()))
            .map(|&(p, why)| match p {
                flow::Point::Start(b) => {
                    let kind = if why == flow::Reason::CriticalEdge { ProbeKind::BlockCriticalEdge } else { ProbeKind::Block };
                    (InstRef { block: b, index: 0 }, kind, Probe::Count(Lanes::LowestActive))
                }
                flow::Point::End(b) => (InstRef { block: b, index: function.blocks[b].nodes.len() - 1 }, ProbeKind::BlockEnd, Probe::Count(Lanes::LowestActive)),
            })
            .collect();
        instrument(function, ctx, stats, self.name(), &places, &[]);
    }
}

/// True for an instruction a probe pass inserted.
fn is_probe_node(function: &Function, node: &crate::ir::Node) -> bool {
    matches!(node.origin, Origin::Inserted { edit } if is_probe_pass(function.edits[edit as usize].pass))
}

/// The function's blocks as the flow solver sees them ([`flow::FlowBlock`]), from its
/// instructions other than probes, so that the pass (which may run after `count-kernel`) and
/// the map (built from the program before any probe) describe the same graph. `entries`: the
/// addresses other functions branch or call to.
pub fn flow_blocks(function: &Function, entries: &Entries, target: &Target) -> Vec<flow::FlowBlock> {
    let mut exec = RegSet::EMPTY;
    exec.insert(unit::EXEC_LO);
    exec.insert(unit::EXEC_HI);
    let mut reached = vec![false; function.blocks.len()];
    for b in &function.blocks {
        for &s in &b.successors {
            reached[s] = true;
        }
    }
    function
        .blocks
        .iter()
        .enumerate()
        .map(|(i, block)| {
            let splits = block.nodes.iter().filter(|n| !is_probe_node(function, n)).any(|n| {
                n.inst.encoding().is_none_or(|e| e.mnemonic().contains("movrel")) || matches!(n.flow, Flow::Call(_)) || access(&n.inst, target).writes.intersects(&exec)
            });
            flow::FlowBlock {
                successors: block.successors.to_vec(),
                entered: block.address == function.entry || !reached[i] || entries.may_enter(block.address),
                exits: block.exits,
                splits,
            }
        })
        .collect()
}

/// Per block: whether a probe may go before its last instruction and count what leaves the
/// block. Only before a branch, a return or `s_endpgm` (a fall-through block has no
/// terminator to go before; `s_trap`/`s_sethalt` sequences and PC-relative jumps are left
/// alone), and on GFX11+ not within reach of an `s_delay_alu`, whose skip field could then
/// land on the probe instead of the instruction it was written for.
fn end_ok(function: &Function, target: &Target) -> Vec<bool> {
    let delays = target.generation() >= crate::isa::processor::Generation::Gfx11;
    function
        .blocks
        .iter()
        .map(|block| {
            let Some(last) = block.nodes.last() else { return false };
            let terminator = matches!(last.flow, Flow::Branch(_) | Flow::CondBranch(_) | Flow::Return | Flow::End);
            let n = block.nodes.len();
            let near_delay = delays && block.nodes[n.saturating_sub(8)..n - 1].iter().any(|x| delay_of(&x.inst).is_some());
            terminator && !near_delay
        })
        .collect()
}

impl Pass for CountKernel {
    fn name(&self) -> &'static str {
        COUNT_KERNEL
    }

    fn description(&self) -> &'static str {
        "count, per kernel, waves started and waves ended (into __gfxpatch_counters)"
    }

    fn run(&self, function: &mut Function, ctx: &Ctx<'_>, stats: &mut PassStats) {
        if function.kind != FunctionKind::Kernel || !self.filter.matches(&function.name) {
            return;
        }
        let Some(entry) = function.block_at(function.entry) else {
            stats.decline("kernel entry is no block start");
            return;
        };
        let mut places = vec![(InstRef { block: entry, index: 0 }, ProbeKind::KernelStart, Probe::Count(Lanes::LowestActive))];
        for (b, block) in function.blocks.iter().enumerate() {
            if let Some(last) = block.nodes.last()
                && last.flow == Flow::End
            {
                places.push((InstRef { block: b, index: block.nodes.len() - 1 }, ProbeKind::KernelEnd, Probe::Count(Lanes::LaneZero)));
            }
        }
        instrument(function, ctx, stats, COUNT_KERNEL, &places, &[]);
    }
}

impl Pass for TraceMemory {
    fn name(&self) -> &'static str {
        TRACE_MEMORY
    }

    fn description(&self) -> &'static str {
        "append a record (instruction, first active lane's address, EXEC) per global/flat memory instruction to a ring in __gfxpatch_counters"
    }

    fn run(&self, function: &mut Function, ctx: &Ctx<'_>, stats: &mut PassStats) {
        if !self.filter.matches(&function.name) {
            return;
        }
        match trace_points(function, ctx.target) {
            Ok((places, _)) if places.is_empty() => {}
            Ok((places, splits)) => instrument(function, ctx, stats, TRACE_MEMORY, &places, &splits),
            Err(why) => stats.decline(why),
        }
    }
}

/// Where `trace-memory` probes `function`: before each global or flat memory instruction (not
/// an inserted one). On GFX11+ the probe goes before the `s_delay_alu`s right before the
/// instruction, so that each still describes the instruction it was written for; a delay whose
/// second wait hangs on an instruction after the probe point (`instskip`) is split
/// ([`DelaySplit`]).
fn trace_points(function: &Function, target: &Target) -> Result<(Vec<(InstRef, ProbeKind, Probe)>, Vec<DelaySplit>), &'static str> {
    let delays = target.generation() >= crate::isa::processor::Generation::Gfx11;
    let mut places = Vec::new();
    let mut splits: Vec<DelaySplit> = Vec::new();
    for (b, block) in function.blocks.iter().enumerate() {
        for (i, node) in block.nodes.iter().enumerate() {
            if is_probe_node(function, node) {
                continue;
            }
            let Some(address) = node.origin.input_address() else { continue };
            let Ok(id) = u32::try_from(address) else { return Err("a memory instruction's address does not fit the record's 32-bit id") };
            let Some(traced) = trace::traced(&node.inst, target, id) else { continue };
            let mut at = i;
            if delays {
                while at > 0 && delay_of(&block.nodes[at - 1].inst).is_some() {
                    at -= 1;
                }
                // A delay's reach ends at most 8 instructions after it (`instskip` <= 7).
                for j in at.saturating_sub(8)..at {
                    let Some(delay) = delay_of(&block.nodes[j].inst) else { continue };
                    let (skip, second) = (usize::from((delay >> 4) & 7), (delay >> 7) & 15);
                    let first_target = j + 1;
                    if second != 0 && first_target < at && at <= first_target + skip {
                        // Decided for the last probe in the window: its VALUs are the nearest.
                        let split = split_delay(block, InstRef { block: b, index: j }, at)?;
                        match splits.iter_mut().find(|s| s.delay == split.delay) {
                            Some(s) => *s = split,
                            None => splits.push(split),
                        }
                    }
                }
            }
            places.push((InstRef { block: b, index: at }, ProbeKind::TraceMemory, Probe::Trace(traced)));
        }
    }
    Ok((places, splits))
}

/// The [`DelaySplit`] of the `s_delay_alu` at `delay` for a probe before `block.nodes[at]`,
/// which lies after the delay's first instruction and at or before its second.
fn split_delay(block: &crate::ir::Block, delay: InstRef, at: usize) -> Result<DelaySplit, &'static str> {
    use crate::ir::delay::Alu;
    let imm = delay_of(&block.nodes[delay.index].inst).expect("an s_delay_alu");
    let (skip, field) = (usize::from((imm >> 4) & 7), (imm >> 7) & 15);
    let named = delay.index + 1 + skip;
    // LLVM never puts a delay inside another's reach: where one is, the count is unclear.
    if named >= block.nodes.len() || block.nodes[delay.index + 1..=named].iter().any(|n| delay_of(&n.inst).is_some()) {
        return Err("an s_delay_alu's second wait reaches past its block or another delay");
    }
    // The producer of a VALU_DEP_n wait is the n-th VALU back from the named instruction.
    let valus_after_probe = block.nodes[at..named].iter().filter(|n| Alu::of(&n.inst) == Alu::Valu).count();
    let second = match field {
        1..=4 if usize::from(field) > valus_after_probe => None,
        1..=7 | 9..=11 => Some((InstRef { block: delay.block, index: named }, field)),
        _ => return Err("an s_delay_alu field we do not read (FMA_ACCUM_CYCLE_1 or reserved)"),
    };
    Ok(DelaySplit { delay, first: imm & 0xf, second })
}

/// The registers from which on no function of the program names any: nothing can read them
/// (code names every register it reads, except through `s_movrel*`/`v_movrel*`, and then
/// nothing is known), so a probe may take them anywhere; using them raises the kernel's
/// allocation, which the layout and the writer do.
///
/// It also carries the one other program-wide fact the probes need: `entries`, the addresses
/// branched or called to from another function (sorted), where control enters a function
/// other than at its entry ([`flow_blocks`]).
#[derive(Clone, Debug, Default)]
pub struct Unnamed {
    /// First unnamed SGPR and VGPR; `None`: unknown, everything may be read.
    pub from: Option<(u16, u16)>,
    pub entries: std::sync::Arc<Entries>,
}

impl Unnamed {
    pub fn of(program: &Program) -> Unnamed {
        Unnamed { from: Self::first_unnamed(program), entries: Entries::of(program).into() }
    }

    fn first_unnamed(program: &Program) -> Option<(u16, u16)> {
        let target = &program.target;
        let (mut s, mut v) = (0usize, 0usize);
        for n in program.functions.iter().flat_map(|f| f.nodes()) {
            if n.inst.encoding().is_none_or(|e| e.mnemonic().contains("movrel")) {
                return None;
            }
            for u in liveness::operand_units(&n.inst, target).units() {
                if u < unit::SGPRS {
                    s = s.max(u + 1);
                } else if (unit::VGPR0..unit::AGPR0).contains(&u) {
                    v = v.max(u - unit::VGPR0 + 1);
                }
            }
        }
        Some((s as u16, v as u16))
    }

    /// `live` without the registers nothing names.
    fn prune(&self, live: &RegSet) -> RegSet {
        let mut out = *live;
        if let Some((s, v)) = self.from {
            for u in usize::from(s)..unit::SGPRS {
                out.remove(u);
            }
            for u in unit::VGPR0 + usize::from(v)..unit::AGPR0 {
                out.remove(u);
            }
        }
        out
    }
}

/// Where control may enter a function other than at its entry: the addresses branched, jumped
/// or called to from another function (branches and calls whose target is no block of their
/// own function), and whether an indirect jump nothing proved exists anywhere in the program
/// (then any block may be entered from anywhere).
#[derive(Clone, Debug, Default)]
pub struct Entries {
    /// Sorted, without duplicates.
    addresses: Vec<u64>,
    anywhere: bool,
}

impl Entries {
    pub fn of(program: &Program) -> Entries {
        use crate::ir::flow::Target as T;
        let mut addresses = Vec::new();
        let mut anywhere = false;
        for n in program.functions.iter().flat_map(|f| f.nodes()) {
            match n.flow {
                Flow::Branch(T::Address(a)) | Flow::CondBranch(T::Address(a)) | Flow::Jump(T::Address(a)) | Flow::AddPc(T::Address(a)) | Flow::Call(Some(a)) => addresses.push(a),
                // `s_swappc` to an address nothing proved may call any block; an unproved
                // `s_setpc` may jump to any.
                Flow::Call(None) | Flow::Indirect => anywhere = true,
                _ => {}
            }
        }
        addresses.sort_unstable();
        addresses.dedup();
        Entries { addresses, anywhere }
    }

    /// Control may enter the block at `address` from another function or from an unknown jump.
    pub fn may_enter(&self, address: u64) -> bool {
        self.anywhere || self.addresses.binary_search(&address).is_ok()
    }
}

/// Registers a probe in `function` may take: the target's limits, and on targets whose AGPRs
/// follow the VGPRs in one file, no VGPR above those already used when the function uses AGPRs
/// (the AGPRs start at `accum_offset`, which raising the VGPRs would have to move).
fn limits(function: &Function, target: &Target) -> probe::Limits {
    let mut l = probe::Limits::of(target);
    if target.generation().has_unified_agprs() {
        let mut top_vgpr = 0;
        let mut agprs = false;
        for n in function.nodes() {
            for u in liveness::operand_units(&n.inst, target).units() {
                if (unit::VGPR0..unit::AGPR0).contains(&u) {
                    top_vgpr = top_vgpr.max(u - unit::VGPR0 + 1);
                } else if u >= unit::AGPR0 {
                    agprs = true;
                }
            }
        }
        if agprs {
            l.vgprs = top_vgpr as u16;
        }
    }
    l
}

/// Plans every probe of `function` first and inserts them only if all can be placed: a function
/// is instrumented whole or not at all (a partial block count would mislead).
fn instrument(function: &mut Function, ctx: &Ctx<'_>, stats: &mut PassStats, pass: &'static str, places: &[(InstRef, ProbeKind, Probe)], splits: &[DelaySplit]) {
    if let Err(why) = probe::supported(ctx.target) {
        stats.decline(why);
        return;
    }
    if function.opaque.is_some() {
        stats.decline("opaque function (a probe would change its size)");
        return;
    }
    let live = Liveness::compute(function, ctx.target);
    let limits = limits(function, ctx.target);
    let mut planned = Vec::with_capacity(places.len());
    for &(at, kind, probe) in places {
        let l = ctx.unnamed.prune(&live.live_before(function, ctx.target, at.block, at.index));
        let regs = match probe::scavenge(&l, ctx.target.wave64, l.contains(unit::SCC), limits) {
            Ok(r) => r,
            Err(why) => {
                stats.decline(why);
                return;
            }
        };
        let built = match probe {
            Probe::Count(lanes) => {
                // Two statements: the builder's mutable borrow must end before `tag_probe`
                // borrows it again (as one expression the temporary lived on and panicked).
                let sequence = probe::sequence(&mut ctx.builder.borrow_mut(), regs, lanes);
                sequence.map(|mut seq| {
                    tag_probe(&ctx.builder.borrow(), &mut seq, kind);
                    seq
                })
            }
            Probe::Trace(traced) => trace::sequence(&mut ctx.builder.borrow_mut(), regs, traced, kind.tag()),
        };
        match built {
            Ok(seq) => planned.push((at, seq)),
            Err(why) => {
                stats.decline(&why);
                return;
            }
        }
    }
    let delay = |imm: u16| ctx.builder.borrow_mut().build(Opcode::S_DELAY_ALU, &[(OperandName::simm16, Value::Imm(i64::from(imm)))]);
    let mut firsts = Vec::with_capacity(splits.len());
    // The split delays' second waits go in before the probes: where a probe stands at the
    // same place, it goes before the new delay, which keeps naming its instruction.
    let mut edits: Vec<(InstRef, Vec<Inst>, bool)> = Vec::with_capacity(planned.len() + splits.len());
    for split in splits {
        let Some(first) = delay(split.first) else {
            stats.decline("an s_delay_alu does not encode");
            return;
        };
        firsts.push((split.delay, first));
        if let Some((named, imm)) = split.second {
            let Some(second) = delay(imm) else {
                stats.decline("an s_delay_alu does not encode");
                return;
            };
            edits.push((named, vec![second], false));
        }
    }
    edits.extend(planned.into_iter().map(|(at, seq)| (at, seq, true)));
    // Replacing moves nothing; then back to front (a stable sort), so that each planned
    // position still names the instruction it was made for. The edits cannot fail after the
    // checks above (not opaque, no control flow inserted); the edit API still has the last word.
    for (at, inst) in firsts {
        if let Err(d) = function.replace(at, inst, pass) {
            stats.decline(d.reason());
            return;
        }
    }
    edits.sort_by_key(|&(at, _, _)| std::cmp::Reverse(at));
    for (at, seq, probe) in edits {
        for inst in seq.into_iter().rev() {
            if let Err(d) = function.insert_before(at, inst, pass) {
                stats.decline(d.reason());
                return;
            }
        }
        stats.applied += u64::from(probe);
    }
}

/// Marks the high add's placeholder with the probe's kind.
fn tag_probe(b: &Builder, seq: &mut [Inst], kind: ProbeKind) {
    for inst in seq.iter_mut() {
        if inst.encoding().is_some_and(|e| e.opcode == Opcode::S_ADDC_U32)
            && let Some(t) = b.with_operands(inst, &[(OperandName::src1, Value::Literal(PLACEHOLDER + kind.tag()))])
        {
            *inst = t;
        }
    }
}

/// The literal constant of source 1 (the probe's adds carry their constant there).
fn src1_literal(inst: &Inst, target: &Target) -> Option<u32> {
    let (_, ops) = liveness::operands(inst, target)?;
    match ops.value(OperandName::src1) {
        Some(Value::Literal(v)) => Some(v),
        _ => None,
    }
}

/// One probe of the instrumented program.
#[derive(Clone, Debug)]
pub struct Site {
    pub function: usize,
    pub block: usize,
    pub kind: ProbeKind,
    /// Position of its `s_getpc_b64` among all inserted instructions in program order (the
    /// order of the layout's `inserted`).
    pub getpc: usize,
    /// Positions of its two adds (same numbering).
    pub add_lo: usize,
    pub add_hi: usize,
    /// Byte offset into `__gfxpatch_counters` of what it adds to: its two counters, or (a
    /// trace probe) the ring's header ([`Counters`]).
    pub offset: u64,
    /// A trace probe: the input address of the instruction it records.
    pub traced: Option<u64>,
}

/// How `__gfxpatch_counters` is laid out: two `u64` per counting probe, in [`sites`] order,
/// then, if any trace probe exists, the trace ring (64-byte aligned: its header, the write
/// index, then [`trace::RECORDS`] records of [`trace::RECORD_BYTES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counters {
    pub counting_probes: u64,
    pub trace_header: Option<u64>,
    pub bytes: u64,
}

impl Counters {
    pub fn of(sites: &[Site]) -> Counters {
        let counting_probes = sites.iter().filter(|s| s.kind != ProbeKind::TraceMemory).count() as u64;
        let counts = counting_probes * COUNTERS_PER_PROBE * 8;
        if sites.iter().any(|s| s.kind == ProbeKind::TraceMemory) {
            let header = counts.next_multiple_of(trace::HEADER_BYTES);
            Counters { counting_probes, trace_header: Some(header), bytes: header + trace::HEADER_BYTES + trace::RECORDS * trace::RECORD_BYTES }
        } else {
            Counters { counting_probes, trace_header: None, bytes: counts.max(8) }
        }
    }
}

/// Every probe, in program order; the k-th counting probe's counters are
/// `COUNTERS_PER_PROBE * k ..`, every trace probe aims at the ring ([`Counters`]).
pub fn sites(program: &Program) -> Vec<Site> {
    let target = &program.target;
    let mut out: Vec<Site> = Vec::new();
    let mut ordinal = 0usize;
    for (fi, f) in program.functions.iter().enumerate() {
        for (bi, block) in f.blocks.iter().enumerate() {
            let mut open: Option<(usize, Option<usize>)> = None;
            // A trace probe waits for the next original instruction: the one it records.
            let mut tracing: Option<usize> = None;
            for node in &block.nodes {
                let Origin::Inserted { edit } = node.origin else {
                    if let Some(i) = tracing.take_if(|_| node.inst.encoding().is_some_and(|e| crate::isa::info::classify(e).is_some_and(|(f, _)| matches!(f, crate::isa::info::Family::Global | crate::isa::info::Family::Flat)))) {
                        out[i].traced = node.origin.input_address();
                    }
                    continue;
                };
                let ours = is_probe_pass(f.edits[edit as usize].pass);
                let opcode = node.inst.encoding().map(|e| e.opcode);
                if ours {
                    match opcode {
                        Some(Opcode::S_GETPC_B64) => open = Some((ordinal, None)),
                        Some(Opcode::S_ADD_U32) if src1_literal(&node.inst, target) == Some(PLACEHOLDER) => {
                            if let Some((_, lo)) = open.as_mut() {
                                *lo = Some(ordinal);
                            }
                        }
                        Some(Opcode::S_ADDC_U32) => {
                            if let (Some((getpc, Some(lo))), Some(kind)) = (open, src1_literal(&node.inst, target).and_then(|v| v.checked_sub(PLACEHOLDER)).and_then(ProbeKind::from_tag)) {
                                if kind == ProbeKind::TraceMemory {
                                    tracing = Some(out.len());
                                }
                                out.push(Site { function: fi, block: bi, kind, getpc, add_lo: lo, add_hi: ordinal, offset: 0, traced: None });
                                open = None;
                            }
                        }
                        _ => {}
                    }
                }
                ordinal += 1;
            }
        }
    }
    let layout = Counters::of(&out);
    let mut k = 0;
    for s in &mut out {
        s.offset = match (s.kind, layout.trace_header) {
            (ProbeKind::TraceMemory, Some(header)) => header,
            _ => {
                k += 1;
                (k - 1) * COUNTERS_PER_PROBE * 8
            }
        };
    }
    out
}

/// Bytes of counters `sites` need.
pub fn counters_bytes(sites: &[Site]) -> u64 {
    Counters::of(sites).bytes
}

/// The add constants that aim `site`, whose `s_getpc_b64` is at `getpc` in the output, at what
/// it adds to when `__gfxpatch_counters` is at `counters`.
pub fn aim_constants(site: &Site, getpc: u64, counters: u64) -> (u32, u32) {
    let target = counters + site.offset;
    let offset = target.wrapping_sub(getpc + 4);
    (offset as u32, (offset >> 32) as u32)
}

/// The static check of every instrumented output, before it is written: for each function,
/// removing the probes' instructions gives `original`'s instructions exactly (but for an
/// `s_delay_alu` a trace probe split, which keeps its first wait alone (`DelaySplit`); its
/// second wait is a delay the probe inserted, or dropped), and each probe
/// writes only registers dead at its point in `original`, or EXEC and SCC which it saves first
/// and restores last. `Err` lists every violation.
pub fn check(original: &Program, instrumented: &Program) -> Result<(), Vec<String>> {
    let target = &original.target;
    let unnamed = Unnamed::of(original);
    let mut problems = Vec::new();
    if original.functions.len() != instrumented.functions.len() {
        return Err(vec!["the instrumented program has a different number of functions".into()]);
    }
    for (of, nf) in original.functions.iter().zip(&instrumented.functions) {
        if of.blocks.len() != nf.blocks.len() {
            problems.push(format!("{}: block count changed", nf.name));
            continue;
        }
        let is_probe = |n: &crate::ir::Node| matches!(n.origin, Origin::Inserted { edit } if is_probe_pass(nf.edits[edit as usize].pass));
        let mut live: Option<Liveness> = None;
        for (b, (ob, nb)) in of.blocks.iter().zip(&nf.blocks).enumerate() {
            let kept: Vec<_> = nb.nodes.iter().filter(|n| !is_probe(n)).collect();
            let split = |k: &crate::ir::Node, o: &crate::ir::Node| {
                let by_probe = matches!(k.origin, Origin::Replaced { address, edit } if o.origin == Origin::Input(address) && is_probe_pass(nf.edits[edit as usize].pass));
                let first_wait_alone = matches!((delay_of(&k.inst), delay_of(&o.inst)), (Some(new), Some(old)) if new == old & 0xf);
                by_probe && first_wait_alone
            };
            if kept.len() != ob.nodes.len() || kept.iter().zip(&ob.nodes).any(|(k, o)| (k.origin != o.origin || k.inst != o.inst) && !split(k, o)) {
                problems.push(format!("{}: block at {:#x}: removing the probes does not give the original instructions", nf.name, ob.address));
                continue;
            }
            // Each maximal run of probe instructions, with the original index it stands before.
            let mut i = 0;
            let mut original_index = 0;
            while i < nb.nodes.len() {
                if !is_probe(&nb.nodes[i]) {
                    i += 1;
                    original_index += 1;
                    continue;
                }
                let start = i;
                while i < nb.nodes.len() && is_probe(&nb.nodes[i]) {
                    i += 1;
                }
                if original_index >= ob.nodes.len() {
                    problems.push(format!("{}: probe at the end of block {:#x}", nf.name, ob.address));
                    continue;
                }
                let l = unnamed.prune(&live.get_or_insert_with(|| Liveness::compute(of, target)).live_before(of, target, b, original_index));
                // The run may hold several probes (count-kernel's and count-blocks' at a kernel
                // entry): each was inserted back to front, one edit after another, so a probe's
                // edit numbers fall by one from each instruction to the next.
                let edit = |n: &crate::ir::Node| match n.origin {
                    Origin::Inserted { edit } => edit,
                    _ => unreachable!("a probe instruction is inserted"),
                };
                let mut first = start;
                for j in start + 1..=i {
                    if j < i && edit(&nb.nodes[j]) + 1 == edit(&nb.nodes[j - 1]) {
                        continue;
                    }
                    let run: Vec<Inst> = nb.nodes[first..j].iter().map(|n| n.inst).collect();
                    if let Err(why) = check_probe(&run, &l, target) {
                        problems.push(format!("{}: probe before {:#x}: {why}", nf.name, ob.nodes[original_index].origin.input_address().unwrap_or(ob.address)));
                    }
                    first = j;
                }
            }
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(problems) }
}

/// One probe's writes against the registers live at its point.
fn check_probe(run: &[Inst], live: &RegSet, target: &Target) -> Result<(), String> {
    let accesses: Vec<liveness::Access> = run.iter().map(|i| access(i, target)).collect();
    let mut exec = RegSet::EMPTY;
    exec.insert(unit::EXEC_LO);
    if target.wave64 {
        exec.insert(unit::EXEC_HI);
    }
    let mut scc = RegSet::EMPTY;
    scc.insert(unit::SCC);
    // A register is restored if the first instruction to read it copies it (reads nothing
    // else) into registers S before anything writes it, nothing writes S until the last write
    // of the register, and that last write reads only S.
    let only = |set: &RegSet, within: &RegSet| {
        let mut rest = *set;
        rest.subtract(within);
        rest.is_empty()
    };
    let restored = |what: &RegSet| -> bool {
        let Some(first) = accesses.iter().position(|a| a.reads.intersects(what)) else { return false };
        let save = accesses[first].writes;
        let Some(last) = accesses.iter().rposition(|a| a.writes.intersects(what)) else { return false };
        last > first
            && only(&accesses[first].reads, what)
            && !save.intersects(what)
            && accesses[..=first].iter().all(|a| !a.writes.intersects(what))
            && accesses[first + 1..last].iter().all(|a| !a.writes.intersects(&save))
            && only(&accesses[last].reads, &save)
    };
    // A run that does not write them (a split delay's second wait alone) need not save them.
    let writes = |what: &RegSet| accesses.iter().any(|a| a.writes.intersects(what));
    let mut allowed = RegSet::all();
    allowed.subtract(live);
    if live.intersects(&exec) && writes(&exec) {
        if !restored(&exec) {
            return Err("writes EXEC without saving and restoring it".into());
        }
        allowed.union(&exec);
    }
    if live.intersects(&scc) && writes(&scc) {
        if !restored(&scc) {
            return Err("writes live SCC without saving and restoring it".into());
        }
        allowed.union(&scc);
    }
    for (inst, a) in run.iter().zip(&accesses) {
        let mut bad = a.writes;
        bad.subtract(&allowed);
        if let Some(u) = bad.units().next() {
            let text = crate::isa::print::print(inst, target, 0);
            return Err(format!("`{text}` writes {}, which is live here", liveness::unit_name(u)));
        }
    }
    Ok(())
}
