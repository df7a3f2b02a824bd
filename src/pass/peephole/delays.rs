//! Keeping `s_delay_alu` exact under the peephole's rewrites (GFX11+).
//!
//! A rewrite removes a VALU instruction and puts the fused one at the consumer or the
//! producer, so every delay whose distance spans the removed instruction, and every delay on
//! the two matched instructions, changes meaning. [`crate::ir::delay`] models a block's delays
//! as waits between instructions; here the block's planned rewrites say where each instruction
//! goes, the waits follow, and the block's delays are written again: a delay whose meaning is
//! unchanged keeps its bytes, one that now names another distance is replaced, one left with
//! nothing to wait for is deleted, one a moved wait needs is inserted.
//!
//! A rewrite is declined (`delay-alu`) when the block's delays do not follow LLVM's packing (we
//! would re-pack them by another convention), when an instruction outside the pattern waits
//! for one the rewrite removes, when it deletes an instruction inside the reach of an
//! `SALU_CYCLE_n` wait (cycles, which we do not recount), or when the rewrite changes the last
//! VALUs of the block and a delay in a block after it counts back into them (its distance
//! depends on the path).

use super::matcher::Rewrite;
use crate::ir::delay::{self, Alu, Producer, Stream};
use crate::ir::{Function, InstRef};
use crate::isa::operand::Value;
use crate::isa::table::{Opcode, OperandName};
use crate::isa::Inst;
use crate::pass::Ctx;

/// How far back an `SALU_CYCLE_3` wait can reach, in instructions (each issues in a cycle at
/// least).
const SALU_REACH: usize = 3;

/// What the block's edits do, per block position: kept, replaced by new instructions, or
/// removed (deleted, or turned into `s_nop 0`) in favour of the rewrite's replacement.
#[derive(Clone, Debug)]
pub enum Change {
    Replace(Vec<Inst>),
    Nop(Inst),
    Delete,
}

/// The delay immediates of the block after its edits: for each instruction that is not a
/// delay, in order, the delay to put right before it. `Err` says why the rewrites cannot keep
/// the delays' meaning.
pub fn plan(function: &Function, block: usize, rewrites: &[(&Rewrite, Vec<(usize, Change)>)]) -> Result<Vec<Option<u16>>, &'static str> {
    let nodes = &function.blocks[block].nodes;
    let insts: Vec<Inst> = nodes.iter().map(|n| n.inst).collect();
    let old = Stream::read(&insts).map_err(|e| e.0)?;
    if !old.canonical() {
        return Err("s_delay_alu not packed as LLVM packs it");
    }
    // Block position -> what happens to it, and the rewrite it belongs to.
    let mut change: Vec<Option<(&Change, &Rewrite)>> = vec![None; nodes.len()];
    for (r, edits) in rewrites {
        for (i, c) in edits {
            change[*i] = Some((c, r));
        }
    }
    // The new stream, and where each old stream instruction lands in it.
    let mut kinds = Vec::new();
    let mut new_index = vec![usize::MAX; nodes.len()];
    for (s, &p) in old.positions.iter().enumerate() {
        new_index[p] = kinds.len();
        match change[p] {
            None => kinds.push(old.kinds[s]),
            Some((Change::Replace(new), _)) => {
                if new.len() != 1 {
                    return Err("a replacement of several instructions");
                }
                kinds.push(Alu::of(&new[0]));
            }
            Some((Change::Nop(nop), _)) => kinds.push(Alu::of(nop)),
            Some((Change::Delete, _)) => new_index[p] = usize::MAX,
        }
    }
    let mut fate = Vec::with_capacity(old.positions.len());
    let mut place = Vec::with_capacity(old.positions.len());
    for (s, &p) in old.positions.iter().enumerate() {
        place.push((new_index[p] != usize::MAX).then_some(new_index[p]));
        match change[p] {
            None | Some((Change::Replace(_), _)) => fate.push(Some(new_index[p])),
            Some((_, r)) => {
                // Removed: what it computed is now the replacement's, at the rewrite's place.
                if old.kinds[s] == Alu::Trans {
                    return Err("a removed transcendental instruction");
                }
                fate.push(Some(new_index[r.at]));
            }
        }
    }
    // `SALU_CYCLE_n` counts issue cycles from an SALU within the last few instructions: one
    // deleted in between would leave the wait a cycle short.
    for (s, w) in old.waits.iter().enumerate() {
        if w.salu_cycles != 0 && (s.saturating_sub(SALU_REACH)..s).any(|j| place[j].is_none()) {
            return Err("an instruction deleted within an SALU_CYCLE wait");
        }
    }
    let (waits, breaks) = delay::remap(&old, &fate, &place, &kinds).map_err(|e| e.0)?;
    Ok(delay::write(&kinds, &waits, &breaks))
}

/// Whether a delay in a later block counts back into this block's last VALU instructions,
/// which the rewrites change (then its distance would change on this path only).
pub fn reached_from_after(function: &Function, block: usize, rewrites: &[(&Rewrite, Vec<(usize, Change)>)]) -> Result<(), &'static str> {
    // The block's last VALUs before and after: unchanged, nothing after can tell.
    let nodes = &function.blocks[block].nodes;
    let mut touched = vec![false; nodes.len()];
    for (_, edits) in rewrites {
        for (i, _) in edits {
            touched[*i] = true;
        }
    }
    let mut valus_after_last_change = 0;
    for (i, n) in nodes.iter().enumerate().rev() {
        if touched[i] {
            break;
        }
        if Alu::of(&n.inst) == Alu::Valu {
            valus_after_last_change += 1;
        }
    }
    if !touched.iter().any(|t| *t) || valus_after_last_change >= 4 {
        return Ok(());
    }
    // Blocks after it, with the VALUs between this block's end and their start.
    let mut work: Vec<(usize, usize)> = function.blocks[block].successors.iter().map(|&s| (s, valus_after_last_change)).collect();
    let mut seen = 0;
    while let Some((b, between)) = work.pop() {
        seen += 1;
        if seen > 64 {
            return Err("s_delay_alu after the block: too many paths to follow");
        }
        let insts: Vec<Inst> = function.blocks[b].nodes.iter().map(|n| n.inst).collect();
        let stream = Stream::read(&insts).map_err(|e| e.0)?;
        for w in &stream.waits {
            if let Some(Producer::Before(k)) = w.valu
                && usize::from(k) > between
            {
                return Err("an s_delay_alu in a later block counts back into the rewritten VALUs");
            }
        }
        let here = stream.kinds.iter().filter(|k| **k == Alu::Valu).count();
        if between + here < 4 {
            work.extend(function.blocks[b].successors.iter().map(|&s| (s, between + here)));
        }
    }
    Ok(())
}

/// Makes the block's delays those of `wanted` (one entry per instruction that is not a delay,
/// in order): keeps a delay that is already right, replaces or deletes the others, inserts the
/// missing ones.
pub fn apply(function: &mut Function, block: usize, wanted: &[Option<u16>], ctx: &Ctx<'_>, pass: &'static str) -> Result<(), &'static str> {
    // Each instruction with the delays right before it.
    let nodes = &function.blocks[block].nodes;
    let mut groups: Vec<(Vec<usize>, usize)> = Vec::new();
    let mut pending = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        if delay::delay_of(&n.inst).is_some() {
            pending.push(i);
        } else {
            groups.push((std::mem::take(&mut pending), i));
        }
    }
    if groups.len() != wanted.len() {
        return Err("delay: the block changed under the plan");
    }
    let trailing = pending;
    for &i in trailing.iter().rev() {
        function.delete(InstRef { block, index: i }, pass).map_err(|e| e.reason())?;
    }
    for ((delays, inst), want) in groups.into_iter().zip(wanted).rev() {
        let have: Vec<u16> = delays.iter().map(|&i| delay::delay_of(&function.blocks[block].nodes[i].inst).unwrap()).collect();
        let keep = want.and_then(|w| have.iter().position(|&h| h == w));
        // Last position first, so the earlier ones stay where they are.
        for (k, &i) in delays.iter().enumerate().rev() {
            if Some(k) != keep && !(keep.is_none() && want.is_some() && k == 0) {
                function.delete(InstRef { block, index: i }, pass).map_err(|e| e.reason())?;
            }
        }
        match (want, keep, delays.first()) {
            (Some(_), Some(_), _) | (None, _, _) => {}
            (Some(w), None, Some(&first)) => {
                let new = build(*w, ctx)?;
                function.replace(InstRef { block, index: first }, new, pass).map_err(|e| e.reason())?;
            }
            (Some(w), None, None) => {
                let new = build(*w, ctx)?;
                function.insert_before(InstRef { block, index: inst }, new, pass).map_err(|e| e.reason())?;
            }
        }
    }
    Ok(())
}

fn build(imm: u16, ctx: &Ctx<'_>) -> Result<Inst, &'static str> {
    ctx.builder.borrow_mut().build(Opcode::S_DELAY_ALU, &[(OperandName::simm16, Value::Imm(i64::from(imm)))]).ok_or("encode")
}
