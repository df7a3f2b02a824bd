//! `s_delay_alu` (GFX11+) as dependencies between instructions, so that an edit can keep what
//! each delay means.
//!
//! An `s_delay_alu` tells the wave to yield until an earlier ALU result is ready, instead of
//! stalling the SIMD. It names its producers by distance, not by register: `instid0(VALU_DEP_2)`
//! means "the next instruction waits for the VALU instruction two VALUs back", and
//! `instskip(NEXT) | instid1(SALU_CYCLE_1)` hangs a second wait on a later instruction. Removing
//! a VALU between a producer and its consumer shifts every such distance; moving a consumer
//! moves its wait. Delays are a performance contract, not a correctness one (the hardware
//! interlocks anyway; LLVM emits none at -O0), yet a stale one silently waits for the wrong
//! instruction, so we keep them exact.
//!
//! The model: a block is a stream of instructions without their delays; each instruction
//! carries a [`Wait`] naming its producers by *identity* (a position in the stream, or the k-th
//! VALU before the block). An edit moves identities; [`write()`] turns waits back into delays by
//! counting distances in the edited stream and packing them exactly as LLVM's
//! `AMDGPUInsertDelayAlu` does (a wait with one field is folded into the previous delay as its
//! second field when at most five instructions lie between). LLVM starts packing afresh at each
//! of its machine basic blocks, and some of those leave no trace in the binary (a fall-through
//! into the "then" side of an `if` whose branch was removed): where a one-field wait was not
//! folded though it could have been, the stream records a *break*, and breaks move with their
//! instructions. A block is only ever rewritten when [`Stream::canonical`] holds: writing the
//! block's own waits reproduces its delays bit for bit, so the convention we re-pack with is
//! the one the code was packed with, and a delay the edit does not concern keeps its bytes.
//!
//! Field values (AMDGPUAsmGFX11.rst, "delay"): 1-4 `VALU_DEP_n` count non-transcendental VALU
//! instructions back, 5-7 `TRANS32_DEP_1..3` count transcendental ones, 9-11 `SALU_CYCLE_1..3`
//! are cycles after an SALU; `FMA_ACCUM_CYCLE_1` (8), which LLVM never writes, is not read.

use crate::isa::table::{flag, Opcode};
use crate::isa::Inst;

/// How an instruction counts for `s_delay_alu`, from its table flags (as LLVM's `getDelayType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alu {
    Valu,
    Trans,
    Salu,
    Other,
}

impl Alu {
    pub fn of(inst: &Inst) -> Alu {
        match inst.encoding() {
            Some(e) if e.flags.has(flag::TRANS) => Alu::Trans,
            Some(e) if e.flags.has(flag::VALU) => Alu::Valu,
            Some(e) if e.flags.has(flag::SALU) => Alu::Salu,
            _ => Alu::Other,
        }
    }
}

/// Whether `inst` is an `s_delay_alu`, and its immediate.
pub fn delay_of(inst: &Inst) -> Option<u16> {
    let e = inst.encoding()?;
    (e.opcode == Opcode::S_DELAY_ALU).then(|| (inst.words()[0] & 0xffff) as u16)
}

/// An instruction another one waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Producer {
    /// The `k`-th instruction of the counted kind before the block's first (k >= 1): the
    /// distance runs through whichever predecessor the wave came from.
    Before(u8),
    /// The instruction at this position of the stream.
    At(usize),
}

impl Producer {
    /// Of two producers of one kind, the later one (waiting for it waits for the other too:
    /// ALU results complete in order).
    fn later(a: Option<Producer>, b: Option<Producer>) -> Option<Producer> {
        match (a, b) {
            (Some(Producer::Before(x)), Some(Producer::Before(y))) => Some(Producer::Before(x.min(y))),
            (Some(x), Some(y)) => Some(x.max(y)),
            (x, None) | (None, x) => x,
        }
    }
}

/// What one instruction waits for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wait {
    pub valu: Option<Producer>,
    pub trans: Option<Producer>,
    /// `SALU_CYCLE_n`: cycles, not an instruction (kept as written when code moves).
    pub salu_cycles: u8,
}

impl Wait {
    pub fn is_empty(&self) -> bool {
        self.valu.is_none() && self.trans.is_none() && self.salu_cycles == 0
    }

    /// Both waits at once: the later producer of each kind, the longer SALU wait.
    pub fn merge(self, other: Wait) -> Wait {
        Wait {
            valu: Producer::later(self.valu, other.valu),
            trans: Producer::later(self.trans, other.trans),
            salu_cycles: self.salu_cycles.max(other.salu_cycles),
        }
    }
}

/// Why a block's delays cannot be modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unreadable(pub &'static str);

/// A block's instructions without their delays, and what each waits for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stream {
    /// The position in the block of each instruction that is not a delay.
    pub positions: Vec<usize>,
    pub kinds: Vec<Alu>,
    pub waits: Vec<Wait>,
    /// The delay immediate right before each instruction, as read.
    pub delays: Vec<Option<u16>>,
    /// Where packing starts afresh: a one-field delay here was not folded into an earlier one
    /// it could have joined.
    pub breaks: Vec<bool>,
}

/// VALU_DEP_1..4, TRANS32_DEP_1..3: the farthest distances a delay can name.
const VALU_MAX: usize = 4;
const TRANS_MAX: usize = 3;

impl Stream {
    /// Reads a block's instructions.
    pub fn read(insts: &[Inst]) -> Result<Stream, Unreadable> {
        let mut s = Stream { positions: Vec::new(), kinds: Vec::new(), waits: Vec::new(), delays: Vec::new(), breaks: Vec::new() };
        // Stream index of each block position (None for delays).
        let mut index = Vec::with_capacity(insts.len());
        for (p, inst) in insts.iter().enumerate() {
            if delay_of(inst).is_some() {
                index.push(None);
            } else {
                index.push(Some(s.positions.len()));
                s.positions.push(p);
                s.kinds.push(Alu::of(inst));
            }
        }
        s.waits = vec![Wait::default(); s.positions.len()];
        s.delays = vec![None; s.positions.len()];
        let mut named = vec![false; s.positions.len()];
        for (p, inst) in insts.iter().enumerate() {
            let Some(imm) = delay_of(inst) else { continue };
            if imm >> 11 != 0 {
                return Err(Unreadable("s_delay_alu with reserved bits set"));
            }
            let first = index.get(p + 1).copied().flatten().ok_or(Unreadable("s_delay_alu not followed by the instruction it delays"))?;
            s.delays[first] = Some(imm);
            let skip = usize::from((imm >> 4) & 7);
            let fields = [(imm & 0xf, first), ((imm >> 7) & 0xf, first + skip)];
            if skip > 5 || (skip > 0 && (p + 1..=p + 1 + skip).any(|q| index.get(q).copied().flatten().is_none())) {
                return Err(Unreadable("s_delay_alu whose second instruction is past the block or another delay"));
            }
            for (n, (field, target)) in fields.into_iter().enumerate() {
                if field == 0 {
                    continue;
                }
                // LLVM names each instruction from one delay at most; a second delay naming it
                // would be a convention we do not re-pack by.
                if named[target] && !(n == 1 && skip == 0) {
                    return Err(Unreadable("two s_delay_alu name one instruction"));
                }
                named[target] = true;
                let mut wait = Wait::default();
                match field {
                    1..=4 => wait.valu = Some(s.producer(target, Alu::Valu, usize::from(field))),
                    5..=7 => wait.trans = Some(s.producer(target, Alu::Trans, usize::from(field - 4))),
                    9..=11 => wait.salu_cycles = (field - 8) as u8,
                    _ => return Err(Unreadable("s_delay_alu field FMA_ACCUM_CYCLE_1 or reserved")),
                }
                s.waits[target] = s.waits[target].merge(wait);
            }
        }
        s.breaks = vec![false; s.positions.len()];
        s.breaks = s.infer_breaks();
        Ok(s)
    }

    /// The instruction `n` instructions of `kind` before `target`.
    fn producer(&self, target: usize, kind: Alu, n: usize) -> Producer {
        let mut seen = 0;
        for j in (0..target).rev() {
            if self.kinds[j] == kind {
                seen += 1;
                if seen == n {
                    return Producer::At(j);
                }
            }
        }
        Producer::Before((n - seen) as u8)
    }

    /// Whether writing the block's waits gives back exactly its delays: the delays follow
    /// LLVM's packing, so re-packing an edited block changes only what the edit changed.
    pub fn canonical(&self) -> bool {
        write(&self.kinds, &self.waits, &self.breaks) == self.delays
    }

    /// The breaks: every instruction with a delay of its own that packing would have folded
    /// into an earlier delay.
    fn infer_breaks(&self) -> Vec<bool> {
        let mut breaks = vec![false; self.kinds.len()];
        loop {
            let written = write(&self.kinds, &self.waits, &breaks);
            // The first instruction whose own delay was folded away.
            match (0..self.kinds.len()).find(|&i| self.delays[i].is_some() && written[i].is_none() && !breaks[i]) {
                Some(i) => breaks[i] = true,
                None => return breaks,
            }
        }
    }
}

/// The delay immediates for a stream of instructions with their waits: for each instruction,
/// the `s_delay_alu` to place right before it, if any. Distances are counted in this stream;
/// a producer farther back than a delay can name is dropped (it has completed: LLVM forgets it
/// at the same distance).
pub fn write(kinds: &[Alu], waits: &[Wait], breaks: &[bool]) -> Vec<Option<u16>> {
    let distance = |target: usize, producer: Producer, kind: Alu| -> usize {
        let within = |from: usize| kinds[from..target].iter().filter(|k| **k == kind).count();
        match producer {
            Producer::At(j) => within(j),
            Producer::Before(k) => usize::from(k) + within(0),
        }
    };
    let mut out: Vec<Option<u16>> = vec![None; kinds.len()];
    // The last delay written with its second field free, and the instruction it delays.
    let mut open: Option<usize> = None;
    for (i, wait) in waits.iter().enumerate() {
        if breaks[i] {
            open = None;
        }
        let mut imm: u16 = 0;
        if let Some(p) = wait.trans {
            let n = distance(i, p, Alu::Trans);
            if (1..=TRANS_MAX).contains(&n) {
                imm |= 4 + n as u16;
            }
        }
        if let Some(p) = wait.valu {
            let n = distance(i, p, Alu::Valu);
            if (1..=VALU_MAX).contains(&n) {
                imm |= if imm & 0xf != 0 { (n as u16) << 7 } else { n as u16 };
            }
        }
        if wait.salu_cycles != 0 {
            let id = u16::from(wait.salu_cycles) + 8;
            if imm & 0x780 != 0 {
                // No field left (LLVM drops it the same way).
            } else if imm & 0xf != 0 {
                imm |= id << 7;
            } else {
                imm |= id;
            }
        }
        if imm == 0 {
            continue;
        }
        if imm & 0x780 == 0
            && let Some(a) = open
            && i - a < 6
        {
            out[a] = out[a].map(|x| x | imm << 7 | ((i - a) as u16) << 4);
            open = None;
            continue;
        }
        out[i] = Some(imm);
        open = (imm & 0x780 == 0).then_some(i);
    }
    out
}

/// Why an edit's delays cannot be kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unkeepable(pub &'static str);

/// The waits and breaks of the edited stream: every old wait moved to where its instruction
/// went, and its producers to where theirs went. `fate[i]` is the index in the new stream of
/// the instruction that now computes what old instruction `i` did (itself, or the instruction
/// it was folded into; `None`: nothing), `place[i]` where old instruction `i` itself sits
/// (`None` if deleted), and `kinds` the new stream's kinds. A wait on a producer folded into
/// the very instruction that now waits is dropped: the dependency is inside one instruction.
/// A break moves to the next instruction that stays.
pub fn remap(old: &Stream, fate: &[Option<usize>], place: &[Option<usize>], kinds: &[Alu]) -> Result<(Vec<Wait>, Vec<bool>), Unkeepable> {
    let mut waits = vec![Wait::default(); kinds.len()];
    let to_new = |p: Producer, target: usize, kind: Alu| -> Result<Option<Producer>, Unkeepable> {
        match p {
            Producer::Before(k) => Ok(Some(Producer::Before(k))),
            Producer::At(j) => {
                let at = fate[j].ok_or(Unkeepable("an instruction waits for one the edit removes"))?;
                if at == target {
                    return Ok(None);
                }
                if at > target {
                    return Err(Unkeepable("an instruction would wait for one placed after it"));
                }
                if kinds[at] != kind {
                    return Err(Unkeepable("a producer's replacement is another kind of ALU instruction"));
                }
                Ok(Some(Producer::At(at)))
            }
        }
    };
    for (i, wait) in old.waits.iter().enumerate() {
        if wait.is_empty() {
            continue;
        }
        let Some(target) = fate[i] else { continue };
        let mut moved = Wait { salu_cycles: wait.salu_cycles, ..Wait::default() };
        if let Some(p) = wait.valu {
            moved.valu = to_new(p, target, Alu::Valu)?;
        }
        if let Some(p) = wait.trans {
            moved.trans = to_new(p, target, Alu::Trans)?;
        }
        waits[target] = waits[target].merge(moved);
    }
    let mut breaks = vec![false; kinds.len()];
    let mut pending = false;
    for (i, at) in place.iter().enumerate() {
        pending |= old.breaks[i];
        if let Some(n) = at {
            breaks[*n] |= pending;
            pending = false;
        }
    }
    Ok((waits, breaks))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Alu> {
        s.chars()
            .map(|c| match c {
                'v' => Alu::Valu,
                't' => Alu::Trans,
                's' => Alu::Salu,
                _ => Alu::Other,
            })
            .collect()
    }

    #[test]
    fn distances_count_only_their_kind_and_reach_before_the_block() {
        let k = kinds("vtvsv");
        let mut w = vec![Wait::default(); 5];
        w[4].valu = Some(Producer::At(0)); // v t v s [v]: two VALUs back (the TRANS does not count)
        w[3].salu_cycles = 2;
        w[1].valu = Some(Producer::Before(1)); // one VALU before the block, one in it: 2
        assert_eq!(write(&k, &w, &vec![false; k.len()]), vec![None, Some(2 | 10 << 7 | 2 << 4), None, None, Some(2)]);
    }

    #[test]
    fn a_wait_folds_into_the_previous_delay_at_most_five_instructions_on() {
        // Instruction 0 waits (VALU_DEP_1 on a VALU before the block); instruction 6 waits too:
        // 6 instructions on, too far to fold; instruction 5 would fold (SKIP_4).
        let k = kinds("vvvvvvv");
        let mut w = vec![Wait::default(); 7];
        w[0].valu = Some(Producer::Before(1));
        w[6].valu = Some(Producer::At(5));
        assert_eq!(write(&k, &w, &vec![false; k.len()]), vec![Some(1), None, None, None, None, None, Some(1)]);
        w[6] = Wait::default();
        w[5].valu = Some(Producer::At(4));
        assert_eq!(write(&k, &w, &vec![false; k.len()])[0], Some(1 | 1 << 7 | 5 << 4));
    }

    #[test]
    fn a_producer_beyond_four_valus_is_not_named() {
        let k = kinds("vvvvvv");
        let mut w = vec![Wait::default(); 6];
        w[5].valu = Some(Producer::At(0));
        assert_eq!(write(&k, &w, &vec![false; k.len()]), vec![None; 6]);
        w[5].valu = Some(Producer::At(1));
        assert_eq!(write(&k, &w, &vec![false; k.len()])[5], Some(4));
    }

    #[test]
    fn remap_moves_waits_with_their_instructions_and_drops_folded_dependencies() {
        // q p c with p waiting on q (VALU_DEP_1) and c on p (VALU_DEP_1); p and c fuse into f
        // at c's place: f waits on q, one VALU back.
        let old = Stream {
            positions: vec![0, 1, 3],
            kinds: kinds("vvv"),
            waits: vec![Wait::default(), Wait { valu: Some(Producer::At(0)), ..Wait::default() }, Wait { valu: Some(Producer::At(1)), ..Wait::default() }],
            delays: vec![None, Some(1), Some(1)],
            breaks: vec![false; 3],
        };
        let fate = [Some(0), Some(1), Some(1)];
        let place = [Some(0), None, Some(1)];
        let new_kinds = kinds("vv");
        let (waits, breaks) = remap(&old, &fate, &place, &new_kinds).unwrap();
        assert_eq!(waits[1].valu, Some(Producer::At(0)));
        assert_eq!(write(&new_kinds, &waits, &breaks), vec![None, Some(1)]);
        // A removed producer another instruction still waits for cannot be kept.
        let fate = [None, Some(0), Some(1)];
        assert!(remap(&old, &fate, &place, &new_kinds).is_err());
    }

    #[test]
    fn an_unfolded_wait_is_a_break_and_reads_back() {
        // v v [d1] v [d1] v: LLVM folds the second wait into the first delay unless one of its
        // blocks (invisible here) starts in between; the break says so and moves with the code.
        let mut old = Stream {
            positions: vec![0, 1, 3, 5],
            kinds: kinds("vvvv"),
            waits: vec![Wait::default(), Wait::default(), Wait { valu: Some(Producer::At(1)), ..Wait::default() }, Wait { valu: Some(Producer::At(2)), ..Wait::default() }],
            delays: vec![None, None, Some(1), Some(1)],
            breaks: vec![false; 4],
        };
        assert!(!old.canonical());
        old.breaks = old.infer_breaks();
        assert_eq!(old.breaks, vec![false, false, false, true]);
        assert!(old.canonical());
        // Instruction 0 deleted: the break stays on the last instruction, the delays as they were.
        let (waits, breaks) = remap(&old, &[None, Some(0), Some(1), Some(2)], &[None, Some(0), Some(1), Some(2)], &kinds("vvv")).unwrap();
        assert_eq!(write(&kinds("vvv"), &waits, &breaks), vec![None, Some(1), Some(1)]);
    }
}
