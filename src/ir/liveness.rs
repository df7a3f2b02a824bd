//! Register liveness: which registers may still be read after each instruction.
//!
//! Units are 32-bit registers: SGPRs, VCC, EXEC, M0, SCC, FLAT_SCRATCH, XNACK_MASK, VGPRs and
//! AGPRs. Reads and writes come from the decoded operands (their direction from the tables)
//! plus the tables' implicit uses and defs. The analysis is conservative, so "dead" is a proof:
//!
//! - a VGPR or AGPR write never kills: under EXEC masking it leaves inactive lanes' values;
//! - a 16-bit (true16) write never kills; `s_cmov` writes only when SCC is set;
//! - a call reads every register (arguments, and the callee may read anything it preserves);
//! - a device function's return and unknown exits read every register (results and
//!   callee-saved registers); a kernel's `s_endpgm` reads none;
//! - trap temporaries (`ttmp*`) are not tracked: never reported dead;
//! - registers addressed through M0 (`s_movrel*`, `v_movrel*`) read their whole file.

use crate::isa::inst::MAX_INST_BYTES;
use crate::isa::operand::{decode_operands_into, Operands, Value};
use crate::isa::reg::{Reg, Special};
use crate::isa::table::{implicit, Dir, Encoding, ImplicitRegs, Opcode};
use crate::isa::{Inst, Target};

use super::{Block, Flow, Function, Node};

/// Unit numbers.
pub mod unit {
    pub const SGPRS: usize = 106;
    pub const VCC_LO: usize = 106;
    pub const VCC_HI: usize = 107;
    pub const EXEC_LO: usize = 108;
    pub const EXEC_HI: usize = 109;
    pub const M0: usize = 110;
    pub const SCC: usize = 111;
    pub const FLAT_SCR_LO: usize = 112;
    pub const FLAT_SCR_HI: usize = 113;
    pub const XNACK_LO: usize = 114;
    pub const XNACK_HI: usize = 115;
    pub const VGPR0: usize = 128;
    pub const VGPRS: usize = 512;
    pub const AGPR0: usize = VGPR0 + VGPRS;
    pub const AGPRS: usize = 256;
    pub const COUNT: usize = AGPR0 + AGPRS;
}

const WORDS: usize = unit::COUNT.div_ceil(64);

/// A set of register units.
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct RegSet([u64; WORDS]);

impl RegSet {
    pub const EMPTY: RegSet = RegSet([0; WORDS]);

    /// Every unit.
    pub const fn all() -> RegSet {
        let mut s = RegSet([u64::MAX; WORDS]);
        let extra = WORDS * 64 - unit::COUNT;
        s.0[WORDS - 1] >>= extra;
        s
    }

    pub fn insert(&mut self, unit: usize) {
        self.0[unit / 64] |= 1 << (unit % 64);
    }

    pub fn remove(&mut self, unit: usize) {
        self.0[unit / 64] &= !(1 << (unit % 64));
    }

    pub fn contains(&self, unit: usize) -> bool {
        self.0[unit / 64] & (1 << (unit % 64)) != 0
    }

    pub fn insert_range(&mut self, first: usize, count: usize) {
        for u in first..first + count {
            self.insert(u);
        }
    }

    pub fn union(&mut self, other: &RegSet) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a |= b;
        }
    }

    pub fn subtract(&mut self, other: &RegSet) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a &= !b;
        }
    }

    pub fn intersects(&self, other: &RegSet) -> bool {
        self.0.iter().zip(other.0).any(|(a, b)| a & b != 0)
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The units, ascending.
    pub fn units(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let bit = w.trailing_zeros() as usize;
                    w &= w - 1;
                    i * 64 + bit
                })
            })
        })
    }
}

impl std::fmt::Debug for RegSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.units().map(unit_name)).finish()
    }
}

/// A readable name of a unit (`s4`, `v7`, `vcc_lo`, `scc`).
pub fn unit_name(u: usize) -> String {
    match u {
        u if u < unit::SGPRS => format!("s{u}"),
        unit::VCC_LO => "vcc_lo".into(),
        unit::VCC_HI => "vcc_hi".into(),
        unit::EXEC_LO => "exec_lo".into(),
        unit::EXEC_HI => "exec_hi".into(),
        unit::M0 => "m0".into(),
        unit::SCC => "scc".into(),
        unit::FLAT_SCR_LO => "flat_scratch_lo".into(),
        unit::FLAT_SCR_HI => "flat_scratch_hi".into(),
        unit::XNACK_LO => "xnack_mask_lo".into(),
        unit::XNACK_HI => "xnack_mask_hi".into(),
        u if (unit::VGPR0..unit::AGPR0).contains(&u) => format!("v{}", u - unit::VGPR0),
        u if u >= unit::AGPR0 => format!("a{}", u - unit::AGPR0),
        u => format!("unit{u}"),
    }
}

/// The units a register operand covers; `None` for registers not tracked (ttmp, constants).
pub fn reg_units(reg: Reg) -> Option<(usize, usize)> {
    let range = |base: usize, limit: usize, index: u16, count: u8| {
        let (i, n) = (index as usize, count as usize);
        (i + n <= limit).then_some((base + i, n))
    };
    match reg {
        Reg::Sgpr { index, count } => range(0, unit::SGPRS, index, count),
        Reg::Vgpr { index, count } => range(unit::VGPR0, unit::VGPRS, index, count),
        Reg::Agpr { index, count } => range(unit::AGPR0, unit::AGPRS, index, count),
        Reg::Vgpr16 { index, .. } => range(unit::VGPR0, unit::VGPRS, index, 1),
        Reg::Ttmp { .. } => None,
        Reg::Special(s) => match s {
            Special::VccLo => Some((unit::VCC_LO, 1)),
            Special::VccHi => Some((unit::VCC_HI, 1)),
            Special::Vcc => Some((unit::VCC_LO, 2)),
            Special::ExecLo => Some((unit::EXEC_LO, 1)),
            Special::ExecHi => Some((unit::EXEC_HI, 1)),
            Special::Exec => Some((unit::EXEC_LO, 2)),
            Special::M0 => Some((unit::M0, 1)),
            Special::FlatScratchLo => Some((unit::FLAT_SCR_LO, 1)),
            Special::FlatScratchHi => Some((unit::FLAT_SCR_HI, 1)),
            Special::FlatScratch => Some((unit::FLAT_SCR_LO, 2)),
            Special::XnackMaskLo => Some((unit::XNACK_LO, 1)),
            Special::XnackMaskHi => Some((unit::XNACK_HI, 1)),
            Special::XnackMask => Some((unit::XNACK_LO, 2)),
            Special::SrcVccz => Some((unit::VCC_LO, 2)),
            Special::SrcExecz => Some((unit::EXEC_LO, 2)),
            Special::SrcScc => Some((unit::SCC, 1)),
            _ => None,
        },
    }
}

fn implicit_units(regs: ImplicitRegs, set: &mut RegSet) {
    if regs.has(implicit::EXEC) {
        set.insert_range(unit::EXEC_LO, 2);
    }
    if regs.has(implicit::VCC) {
        set.insert_range(unit::VCC_LO, 2);
    }
    if regs.has(implicit::SCC) {
        set.insert(unit::SCC);
    }
    if regs.has(implicit::M0) {
        set.insert(unit::M0);
    }
    if regs.has(implicit::FLAT_SCR) {
        set.insert_range(unit::FLAT_SCR_LO, 2);
    }
}

/// What one instruction reads and writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// Units whose value the instruction may read.
    pub reads: RegSet,
    /// Units it may write.
    pub writes: RegSet,
    /// Units it certainly overwrites whole, in every lane: the value before is dead.
    pub kills: RegSet,
}

/// The decoded operands of an instruction (in the record the decoder settled on).
pub fn operands(inst: &Inst, target: &Target) -> Option<(&'static Encoding, Operands)> {
    let mut ops = Operands::new();
    let e = operands_into(inst, target, &mut ops)?;
    Some((e, ops))
}

/// [`operands`] into a caller's buffer (an operand list is some 600 bytes: the hot callers
/// decode in place rather than return it by value); the record the decoder settled on, or
/// `None` when `inst` does not decode (`out` then holds nothing meaningful).
pub fn operands_into(inst: &Inst, target: &Target, out: &mut Operands) -> Option<&'static Encoding> {
    let e = inst.encoding()?;
    // The literal or NSA dwords as bytes, on the stack (no allocation per instruction).
    let words = inst.trailing_words();
    let mut tail = [0u8; MAX_INST_BYTES];
    for (bytes, w) in tail.chunks_exact_mut(4).zip(words) {
        bytes.copy_from_slice(&w.to_le_bytes());
    }
    decode_operands_into(e, inst.encoded_bits(), &tail[..words.len() * 4], target, out).ok()?;
    Some(out.converted.unwrap_or(e))
}

/// The registers `inst` names in its operands (read or written), without the conservative
/// widening [`access`] applies: what register counts must cover.
pub fn operand_units(inst: &Inst, target: &Target) -> RegSet {
    let mut set = RegSet::EMPTY;
    let mut ops = Operands::new();
    if operands_into(inst, target, &mut ops).is_some() {
        for op in ops.as_slice() {
            if let Value::Reg(reg) = op.value
                && let Some((first, count)) = reg_units(reg)
            {
                set.insert_range(first, count);
            }
        }
    }
    set
}

/// Reads and writes of `inst`. Undecodable words read and write everything.
pub fn access(inst: &Inst, target: &Target) -> Access {
    let mut ops = Operands::new();
    match operands_into(inst, target, &mut ops) {
        Some(e) => access_of(e, &ops),
        None => Access::UNKNOWN,
    }
}

impl Access {
    /// What undecodable words do: read and write everything, kill nothing.
    pub const UNKNOWN: Access = Access { reads: RegSet::all(), writes: RegSet::all(), kills: RegSet::EMPTY };
}

/// [`access`] of an instruction whose operands `ops` are decoded already, in record `e` (the
/// record [`operands_into`] returned).
pub fn access_of(e: &'static Encoding, ops: &Operands) -> Access {
    let mut a = Access::default();
    for (operand, op) in e.operands.iter().zip(ops.as_slice()) {
        let Value::Reg(reg) = op.value else { continue };
        let Some((first, count)) = reg_units(reg) else { continue };
        match operand.dir {
            Dir::In => a.reads.insert_range(first, count),
            Dir::Out => {
                a.writes.insert_range(first, count);
                let whole = matches!(reg, Reg::Sgpr { .. } | Reg::Special(_));
                if whole {
                    a.kills.insert_range(first, count);
                }
            }
        }
    }
    implicit_units(e.uses, &mut a.reads);
    let mut implicit_defs = RegSet::EMPTY;
    implicit_units(e.defs, &mut implicit_defs);
    a.writes.union(&implicit_defs);
    // Implicit scalar defs (SCC, VCC of a VOPC/carry, EXEC of v_cmpx) are whole writes.
    a.kills.union(&implicit_defs);
    let name = e.opcode.name();
    if matches!(e.opcode, Opcode::S_CMOV_B32 | Opcode::S_CMOV_B64 | Opcode::S_CMOVK_I32) {
        a.reads.union(&a.kills);
        a.kills = RegSet::EMPTY;
    }
    // Relative addressing: the register read or written is base + M0 (or the GPR index mode).
    if name.starts_with("S_MOVREL") {
        a.reads.insert_range(0, unit::SGPRS);
        a.kills = RegSet::EMPTY;
    }
    if name.starts_with("V_MOVREL") || name.starts_with("S_SET_GPR_IDX") {
        a.reads.insert_range(unit::VGPR0, unit::VGPRS);
    }
    // A trap hands every register to the trap handler.
    if e.opcode == Opcode::S_TRAP {
        a.reads = RegSet::all();
    }
    a
}

/// Per-block liveness of one function.
#[derive(Clone, Debug)]
pub struct Liveness {
    /// Units live on entry to each block.
    pub live_in: Vec<RegSet>,
    /// Units live after each block's last instruction.
    pub live_out: Vec<RegSet>,
}

/// Units live after a block ends with `flow`, not counting successor blocks.
fn exit_live(flow: Flow) -> RegSet {
    match flow {
        // The wave ends (in a kernel or a device function alike): nothing is read after it.
        Flow::End => RegSet::EMPTY,
        // Returns, tail calls, unknown jumps, branches into other functions: anything may be read.
        _ => RegSet::all(),
    }
}

/// What one block does to liveness, from its instructions' accesses (last first, through
/// [`BlockEffect::step_back`]): the units it reads before writing them and those it kills.
#[derive(Clone, Copy, Debug, Default)]
pub struct BlockEffect {
    /// Units read before any kill (live on entry whatever follows).
    pub gen_: RegSet,
    /// Units some instruction of the block kills.
    pub kill: RegSet,
}

impl BlockEffect {
    /// Adds the instruction before those stepped so far: `flow` and `a` are its own.
    pub fn step_back(&mut self, flow: Flow, a: &Access) {
        step_with(&mut self.gen_, flow, a);
        self.kill.union(&a.kills);
    }

    /// The effect of a block of `nodes`, from each one's [`access`].
    pub fn of(nodes: &[Node], target: &Target) -> BlockEffect {
        let mut effect = BlockEffect::default();
        for node in nodes.iter().rev() {
            effect.step_back(node.flow, &access(&node.inst, target));
        }
        effect
    }
}

/// Units live after `block` ends, not counting its successors: what leaving the function there
/// may read.
fn exit_of(block: &Block) -> RegSet {
    if block.exits { exit_live(block.nodes.last().map_or(Flow::Next, |n| n.flow)) } else { RegSet::EMPTY }
}

/// Whether `unit` is live on entry to `block` (`at_entry`) or after its last instruction (not
/// `at_entry`) by [`Liveness::solve`] over the effects `effect` gives, found by a search along
/// the flow from there instead of solving every block: the least solution of the equations
/// holds `unit` exactly where some path reaches a block that reads it before a kill, or leaves
/// the function where it may be read, without passing a block that kills it. For a caller that
/// asks about few units of a function and makes a block's effect only when the search reaches
/// it. `unit` must be below [`unit::COUNT`].
pub fn live_by_search<'e>(function: &Function, block: usize, unit: usize, at_entry: bool, mut effect: impl FnMut(usize) -> &'e BlockEffect) -> bool {
    let blocks = &function.blocks;
    let mut seen = vec![false; blocks.len()];
    let mut pending: Vec<usize> = Vec::new();
    let mut reach = |b: usize, pending: &mut Vec<usize>| {
        if !seen[b] {
            seen[b] = true;
            pending.push(b);
        }
    };
    if at_entry {
        reach(block, &mut pending);
    } else {
        if exit_of(&blocks[block]).contains(unit) {
            return true;
        }
        for &s in &blocks[block].successors {
            reach(s, &mut pending);
        }
    }
    while let Some(b) = pending.pop() {
        let e = effect(b);
        if e.gen_.contains(unit) {
            return true;
        }
        if e.kill.contains(unit) {
            continue;
        }
        if exit_of(&blocks[b]).contains(unit) {
            return true;
        }
        for &s in &blocks[b].successors {
            reach(s, &mut pending);
        }
    }
    false
}

impl Liveness {
    /// Solves liveness for `function` (backward, to a fixed point).
    pub fn compute(function: &Function, target: &Target) -> Liveness {
        let effects: Vec<BlockEffect> = function.blocks.iter().map(|block| BlockEffect::of(&block.nodes, target)).collect();
        Liveness::solve(function, &effects)
    }

    /// Solves liveness for `function` given each block's effect (`effects[b]` of block `b`,
    /// made by [`BlockEffect::step_back`] over its instructions): for a caller that decodes the
    /// instructions anyway.
    pub fn solve(function: &Function, effects: &[BlockEffect]) -> Liveness {
        let n = function.blocks.len();
        assert_eq!(effects.len(), n, "one effect per block");
        let exit: Vec<RegSet> = function.blocks.iter().map(exit_of).collect();
        let mut live_in = vec![RegSet::EMPTY; n];
        let mut live_out = vec![RegSet::EMPTY; n];
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..n).rev() {
                let mut out = exit[b];
                for &s in &function.blocks[b].successors {
                    out.union(&live_in[s]);
                }
                let mut inn = out;
                inn.subtract(&effects[b].kill);
                inn.union(&effects[b].gen_);
                if out != live_out[b] || inn != live_in[b] {
                    live_out[b] = out;
                    live_in[b] = inn;
                    changed = true;
                }
            }
        }
        Liveness { live_in, live_out }
    }

    /// Units live just after instruction `index` of block `block`.
    pub fn live_after(&self, function: &Function, target: &Target, block: usize, index: usize) -> RegSet {
        let mut live = self.live_out[block];
        for node in function.blocks[block].nodes[index + 1..].iter().rev() {
            step(&mut live, node, target);
        }
        live
    }

    /// Units live just before instruction `index` of block `block`.
    pub fn live_before(&self, function: &Function, target: &Target, block: usize, index: usize) -> RegSet {
        let mut live = self.live_after(function, target, block, index);
        step(&mut live, &function.blocks[block].nodes[index], target);
        live
    }
}

/// Moves `live` from after `node` to before it.
fn step(live: &mut RegSet, node: &super::Node, target: &Target) {
    step_with(live, node.flow, &access(&node.inst, target));
}

fn step_with(live: &mut RegSet, flow: Flow, a: &Access) {
    live.subtract(&a.kills);
    live.union(&a.reads);
    if matches!(flow, Flow::Call(_)) {
        *live = RegSet::all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Block, FunctionKind, Node, Origin, Padding, Successors};
    use crate::isa::Decoder;

    fn gfx900() -> Target {
        Target::from_name("gfx900", "").unwrap()
    }

    fn node(decoder: &Decoder, word: &[u32], address: u64, flow: Flow) -> Node {
        let bytes: Vec<u8> = word.iter().flat_map(|w| w.to_le_bytes()).collect();
        Node { inst: decoder.decode(&bytes), origin: Origin::Input(address), flow }
    }

    fn kernel(blocks: Vec<Block>) -> Function {
        Function {
            name: "k".into(),
            kind: FunctionKind::Kernel,
            entry: 0,
            end: 0x100,
            blocks,
            padding: Padding::default(),
            opaque: None,
            pcrel: Vec::new(),
            add_pc_pairs: Vec::new(),
            edits: Vec::new(),
        }
    }

    #[test]
    fn scalar_writes_kill_and_reads_revive() {
        let t = gfx900();
        let d = Decoder::new(t);
        // s_mov_b32 s4, 0 ; s_add_u32 s5, s4, s6 ; s_endpgm
        let block = Block {
            address: 0,
            nodes: vec![
                node(&d, &[0xbe840080], 0, Flow::Next),
                node(&d, &[0x80050604], 4, Flow::Next),
                node(&d, &[0xbf810000], 8, Flow::End),
            ],
            successors: Successors::NONE,
            exits: true,
        };
        let f = kernel(vec![block]);
        let l = Liveness::compute(&f, &t);
        // s6 is read before any write: live on entry; s4 is written first: dead on entry.
        assert!(l.live_in[0].contains(6));
        assert!(!l.live_in[0].contains(4));
        // After the s_mov, s4 is live (the add reads it); after the add nothing is live.
        assert!(l.live_after(&f, &t, 0, 0).contains(4));
        assert!(l.live_after(&f, &t, 0, 1).is_empty());
        // The add writes SCC (implicit def from the tables) and kills it.
        let a = access(&f.blocks[0].nodes[1].inst, &t);
        assert!(a.kills.contains(unit::SCC));
        assert!(a.kills.contains(5) && !a.kills.contains(4));
    }

    #[test]
    fn vector_writes_do_not_kill_under_exec() {
        let t = gfx900();
        let d = Decoder::new(t);
        // v_mov_b32 v1, 0 ; v_add_u32 v2, v1, v1 (e32 gfx9: 0x68040301) ; s_endpgm
        let block = Block {
            address: 0,
            nodes: vec![
                node(&d, &[0x7e020280], 0, Flow::Next),
                node(&d, &[0x68040301], 4, Flow::Next),
                node(&d, &[0xbf810000], 8, Flow::End),
            ],
            successors: Successors::NONE,
            exits: true,
        };
        let f = kernel(vec![block]);
        let l = Liveness::compute(&f, &t);
        // v1 is written before it is read, but the write is EXEC-masked: still live on entry.
        assert!(l.live_in[0].contains(unit::VGPR0 + 1));
        // The VALU instructions read EXEC (implicit use).
        assert!(l.live_in[0].contains(unit::EXEC_LO));
    }

    #[test]
    fn loops_and_calls_are_conservative() {
        let t = gfx900();
        let d = Decoder::new(t);
        // b0: s_mov_b32 s4, 0            -> b1
        // b1: s_add_u32 s4, s4, 1 ; s_cbranch_scc1 b1 -> b1, b2
        // b2: s_swappc_b64 s[30:31], s[8:9] ; s_endpgm
        let b0 = Block { address: 0, nodes: vec![node(&d, &[0xbe840080], 0, Flow::Next)], successors: Successors::one(1), exits: false };
        let b1 = Block {
            address: 4,
            nodes: vec![node(&d, &[0x80048104], 4, Flow::Next), node(&d, &[0xbf85fffe], 8, Flow::CondBranch(BranchTarget::Block(1)))],
            successors: Successors::two(1, 2),
            exits: false,
        };
        let b2 = Block {
            address: 12,
            nodes: vec![node(&d, &[0xbe9e1e08], 12, Flow::Call(None)), node(&d, &[0xbf810000], 16, Flow::End)],
            successors: Successors::NONE,
            exits: true,
        };
        let f = kernel(vec![b0, b1, b2]);
        let l = Liveness::compute(&f, &t);
        // The loop reads s4 around the back edge; before the first write it is dead.
        assert!(l.live_in[1].contains(4));
        assert!(!l.live_in[0].contains(4));
        // A call reads everything: every SGPR is live into the call block.
        assert!(l.live_in[2].contains(40));
        // ... and nothing after s_endpgm.
        assert!(l.live_after(&f, &t, 2, 1).is_empty());
    }

    /// The search answers what the solver does, for every block and unit, at entry and at the
    /// end, on random control flow (loops, exits of both kinds, blocks that neither read nor
    /// kill) with random reads and kills.
    #[test]
    fn search_finds_what_the_solver_solves() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let d = Decoder::new(gfx900());
        // s_endpgm and s_setpc_b64 s[30:31]: an exit reading nothing, one reading everything.
        let end = node(&d, &[0xbf810000], 0, Flow::End);
        let ret = node(&d, &[0xbe801d1e], 0, Flow::Return);
        // A few units stand for all: each block reads or kills some of them.
        let units = [0usize, 1, 2, unit::SCC, unit::VGPR0];
        for _ in 0..200 {
            let n = 1 + next(12) as usize;
            let mut blocks = Vec::new();
            let mut effects = Vec::new();
            for _ in 0..n {
                let mut successors = Successors::NONE;
                for _ in 0..next(3) {
                    successors.push(next(n as u64) as usize);
                }
                let exits = successors.is_empty() || next(4) == 0;
                let nodes = if exits { vec![if next(2) == 0 { end } else { ret }] } else { Vec::new() };
                blocks.push(Block { address: 0, nodes, successors, exits });
                let mut effect = BlockEffect::default();
                for &u in &units {
                    match next(4) {
                        0 => effect.gen_.insert(u),
                        1 => effect.kill.insert(u),
                        _ => {}
                    }
                }
                effects.push(effect);
            }
            let f = kernel(blocks);
            let solved = Liveness::solve(&f, &effects);
            for b in 0..n {
                for &u in &units {
                    let search = |at_entry| live_by_search(&f, b, u, at_entry, |i| &effects[i]);
                    assert_eq!(search(true), solved.live_in[b].contains(u), "live in, block {b}, unit {u}: {f:?}");
                    assert_eq!(search(false), solved.live_out[b].contains(u), "live out, block {b}, unit {u}: {f:?}");
                }
            }
        }
    }

    use crate::ir::BranchTarget;
}
