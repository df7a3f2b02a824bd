//! PC-relative address computations: `s_getpc_b64 s[N:N+1]`, then `s_add_u32 sN, sN, lo` and
//! `s_addc_u32 sN+1, sN+1, hi`, giving `getpc + 4 + hi:lo`: a call or jump target for a later
//! `s_swappc_b64`/`s_setpc_b64`, or the address of data. (GFX12 spells the first
//! `s_getpc_b64` too, GFX1250 `s_get_pc_i64`; it is the same opcode in the tables.) With 64-bit
//! literals (GFX1250) LLVM 22 writes one `s_add_nc_u64 s[N:N+1], s[N:N+1], lit64(c)` instead of
//! the two adds (`SI_PC_ADD_REL_OFFSET64`): the same computation, `add_lo == add_hi`.
//!
//! Recovery is bounded dataflow over a straight run of instructions after the `s_getpc_b64`:
//! the pair's value is tracked through the two adds; any other read of a half-built value, a
//! branch or a block boundary before the chain completes, or a register (not constant) addend
//! makes the function opaque, because moving code would silently change what it computes.

use crate::isa::operand::Value;
use crate::isa::reg::Reg;
use crate::isa::table::{Dir, Opcode, OperandName};
use crate::isa::{Inst, Target};

use super::flow::{classify, Kind};
use super::liveness::{access, operands, unit};

/// How many instructions after an `s_getpc_b64` the chain may span.
const WINDOW: usize = 16;

/// A recovered address computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PcRel {
    /// Input addresses of the `s_getpc_b64`, the `s_add_u32` and the `s_addc_u32` (both the
    /// `s_add_nc_u64` for the one-add form: see [`PcRel::is_wide`]).
    pub getpc: u64,
    pub add_lo: u64,
    pub add_hi: u64,
    /// GFX12's `s_sext_i32_i16 sN+1, sN+1` after the `s_getpc_b64` (the PC is 48 bits wide
    /// and the high half is sign-extended before the add), if present.
    pub sext: Option<u64>,
    /// The address computed, in the input.
    pub target: u64,
    /// The SGPR pair holding it.
    pub sgpr: u16,
}

impl PcRel {
    /// True for the one-add form, `s_add_nc_u64` of a 64-bit constant.
    pub fn is_wide(&self) -> bool {
        self.add_lo == self.add_hi
    }
}

/// What the recovery found in one function.
#[derive(Debug, Default)]
pub struct Recovered {
    pub chains: Vec<PcRel>,
    /// `s_setpc_b64`/`s_swappc_b64` (input address) whose operand is a recovered address.
    pub consumers: Vec<(u64, u64)>,
    /// The first computation that could not be proven: address and why.
    pub unproven: Option<(u64, String)>,
}

/// Recovers every chain in `insts` (a function's instructions in address order, with their
/// input addresses); `is_leader(address)` says where a block starts (a chain may not span one).
pub fn recover(insts: &[(u64, Inst)], is_leader: &dyn Fn(u64) -> bool, target: &Target) -> Recovered {
    let mut out = Recovered::default();
    for (i, &(address, inst)) in insts.iter().enumerate() {
        if inst.encoding().is_none_or(|e| e.opcode != Opcode::S_GETPC_B64) {
            continue;
        }
        match follow(&insts[i..], is_leader, target) {
            Ok((chain, consumers)) => {
                if let Some(chain) = chain {
                    out.chains.push(chain);
                }
                out.consumers.extend(consumers);
            }
            Err(why) => {
                if out.unproven.is_none() {
                    out.unproven = Some((address, why));
                }
            }
        }
    }
    out
}

/// The SGPR a 32-bit scalar operand names, if any.
fn sgpr(value: Option<Value>) -> Option<u16> {
    match value {
        Some(Value::Reg(Reg::Sgpr { index, count: 1 })) => Some(index),
        _ => None,
    }
}

/// The 32-bit constant of an operand (inline or literal).
fn constant(value: Option<Value>) -> Option<u32> {
    match value {
        Some(Value::Literal(v)) => Some(v),
        Some(Value::InlineInt(v)) => Some(v as u32),
        _ => None,
    }
}

/// `s_add_u32 sD, sD, c` or `s_add_u32 sD, c, sD` (and the `addc` forms): the constant.
fn add_constant(inst: &Inst, opcode: Opcode, dst: u16, target: &Target) -> Option<u32> {
    let (e, ops) = operands(inst, target)?;
    if e.opcode != opcode || sgpr(ops.value(OperandName::sdst)) != Some(dst) {
        return None;
    }
    let (a, b) = (ops.value(OperandName::src0), ops.value(OperandName::src1));
    match (sgpr(a), sgpr(b)) {
        (Some(d), None) if d == dst => constant(b),
        (None, Some(d)) if d == dst => constant(a),
        _ => None,
    }
}

/// `s_add_nc_u64 s[D:D+1], s[D:D+1], c` (either order): the 64-bit constant.
fn add_constant64(inst: &Inst, pair: u16, target: &Target) -> Option<u64> {
    let (e, ops) = operands(inst, target)?;
    let is_pair = |v: Option<Value>| v == Some(Value::Reg(Reg::Sgpr { index: pair, count: 2 }));
    if e.opcode != Opcode::S_ADD_U64 || !is_pair(ops.value(OperandName::sdst)) {
        return None;
    }
    let (a, b) = (ops.value(OperandName::src0), ops.value(OperandName::src1));
    match (is_pair(a), is_pair(b)) {
        (true, false) => constant64(b),
        (false, true) => constant64(a),
        _ => None,
    }
}

/// `s_sext_i32_i16 sD, sD`.
fn is_sext_of(inst: &Inst, dst: u16, target: &Target) -> bool {
    operands(inst, target).is_some_and(|(e, ops)| {
        e.opcode == Opcode::S_SEXT_I32_I16 && sgpr(ops.value(OperandName::sdst)) == Some(dst) && sgpr(ops.value(OperandName::src0)) == Some(dst)
    })
}

type Chain = (Option<PcRel>, Vec<(u64, u64)>);

fn follow(insts: &[(u64, Inst)], is_leader: &dyn Fn(u64) -> bool, target: &Target) -> Result<Chain, String> {
    let (getpc, first) = insts[0];
    let (_, ops) = operands(&first, target).ok_or("undecodable s_getpc_b64")?;
    let Some(Value::Reg(Reg::Sgpr { index: pair, count: 2 })) = ops.value(OperandName::sdst) else {
        return Err("s_getpc_b64 into something other than an SGPR pair".into());
    };
    let (lo_unit, hi_unit) = (pair as usize, pair as usize + 1);
    let pc = getpc + 4;
    let mut lo: Option<(u64, u32)> = None;
    let mut hi: Option<(u64, u32)> = None;
    let mut chain: Option<PcRel> = None;
    let mut sext: Option<u64> = None;
    let mut consumers = Vec::new();
    for &(address, inst) in insts.iter().skip(1).take(WINDOW) {
        if is_leader(address) && chain.is_none() {
            return Err(format!("s_getpc_b64 at {getpc:#x}: a block starts before its add chain completes"));
        }
        let a = access(&inst, target);
        let reads = a.reads.contains(lo_unit) || a.reads.contains(hi_unit);
        let writes = a.writes.contains(lo_unit) || a.writes.contains(hi_unit);
        if chain.is_none() {
            if lo.is_none() && sext.is_none() && is_sext_of(&inst, pair + 1, target) {
                sext = Some(address);
                continue;
            }
            if lo.is_none() {
                if let Some(c) = add_constant64(&inst, pair, target) {
                    chain = Some(PcRel { getpc, add_lo: address, add_hi: address, sext, target: pc.wrapping_add(c), sgpr: pair });
                    continue;
                }
                if let Some(c) = add_constant(&inst, Opcode::S_ADD_U32, pair, target) {
                    lo = Some((address, c));
                    continue;
                }
            } else if let Some(c) = add_constant(&inst, Opcode::S_ADDC_U32, pair + 1, target) {
                hi = Some((address, c));
            }
            if let (Some((lo_at, l)), Some((hi_at, h))) = (lo, hi) {
                let offset = ((h as u64) << 32 | l as u64) as i64;
                chain = Some(PcRel { getpc, add_lo: lo_at, add_hi: hi_at, sext, target: pc.wrapping_add_signed(offset), sgpr: pair });
                continue;
            }
            // Anything between the two adds that touches SCC breaks the carry.
            if lo.is_some() && (a.writes.contains(unit::SCC) || a.reads.contains(unit::SCC)) {
                return Err(format!("s_getpc_b64 at {getpc:#x}: SCC is used between s_add_u32 and s_addc_u32"));
            }
            if reads {
                return Err(format!("s_getpc_b64 at {getpc:#x}: its value is read before the add chain completes"));
            }
            if writes {
                // The pair is overwritten before use: the PC value is dead, nothing to re-aim.
                return Ok((None, consumers));
            }
            if classify(&inst, address) != Kind::Next {
                return Err(format!("s_getpc_b64 at {getpc:#x}: control flow before its add chain completes"));
            }
            continue;
        }
        // The chain is complete: record jumps and calls through it; data uses need nothing.
        let kind = classify(&inst, address);
        if reads && matches!(kind, Kind::RegisterCall | Kind::RegisterJump) {
            let (e, ops) = operands(&inst, target).ok_or("undecodable jump")?;
            let src = e.operands.iter().zip(ops.as_slice()).find(|(o, _)| o.dir == Dir::In).map(|(_, op)| op.value);
            if src == Some(Value::Reg(Reg::Sgpr { index: pair, count: 2 })) {
                consumers.push((address, chain.unwrap().target));
            }
        }
        if writes || kind != Kind::Next || is_leader(address) {
            break;
        }
    }
    match chain {
        Some(_) => Ok((chain, consumers)),
        None => Err(format!("s_getpc_b64 at {getpc:#x}: no s_add_u32/s_addc_u32 (or s_add_nc_u64) chain within {WINDOW} instructions")),
    }
}

/// An `s_add_pc_i64 s[N:N+1]` whose pair is proven constant by moves before it in its block:
/// `s_mov_b32 sN, c0` and `s_mov_b32 sN+1, c1`, or `s_mov_b64 s[N:N+1], c`. The jump goes to
/// the next instruction plus the pair's value; the layout re-aims the moves' constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddPcPair {
    /// Input address and size of the `s_add_pc_i64`.
    pub add_pc: u64,
    pub len: u64,
    /// The move that sets the low half (the `s_mov_b64` for both halves).
    pub lo: u64,
    /// The `s_mov_b32` that sets the high half; `None` with an `s_mov_b64`.
    pub hi: Option<u64>,
    /// The address jumped to, in the input.
    pub target: u64,
    pub sgpr: u16,
}

impl AddPcPair {
    /// Input addresses of the moves.
    pub fn moves(&self) -> impl Iterator<Item = u64> {
        std::iter::once(self.lo).chain(self.hi)
    }
}

/// The 64-bit constant an `s_mov_b64` source holds, when established (a 32-bit literal with
/// bit 31 set is not: its extension to 64 bits is not established).
fn constant64(value: Option<Value>) -> Option<u64> {
    match value {
        Some(Value::InlineInt(v)) => Some(v as u64),
        Some(Value::Literal(v)) if v >> 31 == 0 => Some(u64::from(v)),
        Some(Value::Literal64(v)) => Some(v),
        _ => None,
    }
}

/// Proves the SGPR pair of the `s_add_pc_i64` at `insts[at]` by walking back through its block
/// (at most `WINDOW` instructions): `Ok(pair)` or why not.
pub fn add_pc_pair(insts: &[(u64, Inst)], at: usize, is_leader: &dyn Fn(u64) -> bool, target: &Target) -> Result<AddPcPair, String> {
    let (address, inst) = insts[at];
    let (_, ops) = operands(&inst, target).ok_or("undecodable s_add_pc_i64")?;
    let Some(Value::Reg(Reg::Sgpr { index: pair, count: 2 })) = ops.value(OperandName::src0) else {
        return Err(format!("s_add_pc_i64 at {address:#x}: its source is not an SGPR pair"));
    };
    let (lo_unit, hi_unit) = (pair as usize, pair as usize + 1);
    let mut lo: Option<(u64, u32)> = None;
    let mut hi: Option<(u64, u32)> = None;
    let mut wide: Option<(u64, u64)> = None;
    let unproven = || format!("s_add_pc_i64 s[{pair}:{}]: the pair is not proven constant within its block", pair + 1);
    for j in (at.saturating_sub(WINDOW)..at).rev() {
        // Crossing into instruction j from j+1: j+1 must not be entered from elsewhere.
        if is_leader(insts[j + 1].0) {
            break;
        }
        let (a, i) = insts[j];
        if classify(&i, a) != Kind::Next {
            break;
        }
        let acc = access(&i, target);
        let need_lo = lo.is_none() && wide.is_none();
        let need_hi = hi.is_none() && wide.is_none();
        // The moves' constants are re-aimed: nothing between may read them.
        if (need_lo && acc.reads.contains(lo_unit)) || (need_hi && acc.reads.contains(hi_unit)) {
            return Err(format!("s_add_pc_i64 at {address:#x}: s[{pair}:{}] is read before the jump", pair + 1));
        }
        let writes_lo = need_lo && acc.writes.contains(lo_unit);
        let writes_hi = need_hi && acc.writes.contains(hi_unit);
        if !writes_lo && !writes_hi {
            continue;
        }
        let Some((e, ops)) = operands(&i, target) else { return Err(unproven()) };
        let dst = ops.value(OperandName::sdst);
        match (e.opcode, dst) {
            (Opcode::S_MOV_B32, Some(Value::Reg(Reg::Sgpr { index, count: 1 }))) if writes_lo && index == pair => {
                lo = Some((a, constant(ops.value(OperandName::src0)).ok_or_else(unproven)?));
            }
            (Opcode::S_MOV_B32, Some(Value::Reg(Reg::Sgpr { index, count: 1 }))) if writes_hi && index == pair + 1 => {
                hi = Some((a, constant(ops.value(OperandName::src0)).ok_or_else(unproven)?));
            }
            (Opcode::S_MOV_B64, Some(Value::Reg(Reg::Sgpr { index, count: 2 }))) if writes_lo && writes_hi && index == pair => {
                wide = Some((a, constant64(ops.value(OperandName::src0)).ok_or_else(unproven)?));
            }
            _ => return Err(unproven()),
        }
        let len = inst.len() as u64;
        let next = address + len;
        if let Some((w, value)) = wide {
            return Ok(AddPcPair { add_pc: address, len, lo: w, hi: None, target: next.wrapping_add(value), sgpr: pair });
        }
        if let (Some((la, l)), Some((ha, h))) = (lo, hi) {
            let value = (u64::from(h) << 32) | u64::from(l);
            return Ok(AddPcPair { add_pc: address, len, lo: la, hi: Some(ha), target: next.wrapping_add(value), sgpr: pair });
        }
    }
    Err(unproven())
}
