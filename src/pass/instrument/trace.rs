//! `trace-memory`: before every global and flat memory instruction, a probe appends one record
//! (the instruction, the first active lane's address, EXEC) to a ring buffer in
//! `__gfxpatch_counters`, NVBit's `mem_trace` offline. The reasoning behind each instruction and
//! the wait rule are in docs/instrumentation.md; the sequence, wave64 shown (wave32 uses the
//! `_b32` forms on `exec_lo`):
//!
//! ```text
//!   s_cselect_b32 sS, 1, 0                      only if SCC is live: save it
//!   s_mov_b64 s[E:E+1], exec                    save EXEC
//!   s_ff1_i32_b64 sT, exec                      EXEC := its lowest set bit (0 stays 0)
//!   s_lshl_b64 exec, 1, sT
//!   s_and_b64 exec, exec, s[E:E+1]
//!   s_getpc_b64 s[A:A+1]                        the ring's header, PC-relatively
//!   s_sext_i32_i16 sA+1, sA+1                   GFX12
//!   s_add_u32 sA, sA, lo
//!   s_addc_u32 sA+1, sA+1, hi
//!   s_waitcnt_depctr 0xfffe                     GFX11+ (as the count probe)
//!   v_mov_b32 vO, 0
//!   v_mov_b32 vD, 1
//!   v_mov_b32 vD+1, 0
//!   s_waitcnt_vscnt null, 0                     GFX10.1 only
//!   global_atomic_add_x2 v[D:D+1], vO, v[D:D+1], s[A:A+1] glc   reserve: the old write index
//!   s_waitcnt vmcnt(0)                          GFX12: s_wait_loadcnt 0
//!   v_readfirstlane_b32 sT, vD                  slot := index mod records
//!   s_and_b32 sT, sT, records-1
//!   s_lshl_b32 sT, sT, 5                        32 bytes a record
//!   s_add_u32 sA, sA, sT
//!   s_addc_u32 sA+1, sA+1, 0
//!   s_waitcnt_depctr 0xfffe                     GFX11+
//!   global_store_dwordx2 vO, v[D:D+1], s[A:A+1] offset:R+24     the index (sequence number)
//!   v_mov_b32 vD, sE ; v_mov_b32 vD+1, sE+1     (wave32: 0)
//!   global_store_dwordx2 vO, v[D:D+1], s[A:A+1] offset:R+16     EXEC
//!   -- saddr form (global_* vX, s[B:B+1]): base = s[B:B+1], offset32 = vX
//!   v_mov_b32 vD, sB ; v_mov_b32 vD+1, sB+1
//!   global_store_dwordx2 vO, v[D:D+1], s[A:A+1] offset:R+0
//!   global_store_dword vO, vX, s[A:A+1] offset:R+8
//!   v_mov_b32 vD, id
//!   global_store_dword vO, vD, s[A:A+1] offset:R+12
//!   -- 64-bit address form (flat_*, global_* v[X:X+1], off): base = v[X:X+1]
//!   global_store_dwordx2 vO, v[X:X+1], s[A:A+1] offset:R+0
//!   v_mov_b32 vD, 0 ; v_mov_b32 vD+1, id
//!   global_store_dwordx2 vO, v[D:D+1], s[A:A+1] offset:R+8
//!   s_waitcnt vmcnt(0)                          GFX9; s_waitcnt_vscnt null, 0 GFX10/11; s_wait_storecnt 0 GFX12
//!   s_waitcnt_depctr 0xffe3                     GFX10.1 only
//!   s_mov_b64 exec, s[E:E+1]                    restore EXEC
//!   s_cmp_lg_u32 sS, 0                          only if SCC was live: restore it
//! ```
//!
//! The probe never reads an original VGPR with a VALU: the address registers go to memory as
//! store data, read by a VMEM instruction as the traced instruction itself reads them, so no
//! VALU-read hazard of the producer (CDNA's MFMA and transcendental results) can arise that
//! the original code did not already satisfy for its own VMEM read. The instruction's
//! immediate offset is not added on the device: [`super::map::TraceInstruction`] carries it, and
//! [`Record::address`] adds it.

use serde::{Deserialize, Serialize};

use crate::isa::encode::Builder;
use crate::isa::info::{classify, Family};
use crate::isa::operand::Value;
use crate::isa::processor::Generation;
use crate::isa::reg::{Reg, Special};
use crate::isa::table::{Opcode, OperandName as N};
use crate::isa::{Inst, Target};

use super::probe::{ProbeRegs, PLACEHOLDER};

/// Records the ring holds (a power of two); the header's write index counts every record
/// ever appended, so `index / RECORDS` is the number of times the ring wrapped.
pub const RECORDS: u64 = 1 << 16;
/// Bytes of one record.
pub const RECORD_BYTES: u64 = 32;
/// Bytes of the ring's header (the write index, padded to a cache line); the records follow.
pub const HEADER_BYTES: u64 = 64;

/// Where the traced instruction's address comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AddressForm {
    /// `global_* vX, s[B:B+1]`: the SGPR pair plus the lane's 32-bit VGPR (zero-extended).
    Saddr { saddr: u16, vaddr: Option<u16> },
    /// `flat_*`, `global_* v[X:X+1], off`: the lane's 64-bit VGPR pair.
    Vaddr64 { vaddr: u16 },
}

/// A traced instruction: what the probe before it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traced {
    /// Its address in the input code object: the record's instruction id.
    pub id: u32,
    pub form: AddressForm,
    /// The immediate offset, added offline.
    pub offset: i64,
}

/// The global or flat memory instruction `inst` (not `scratch_*`, not LDS-only `ds_*`, not
/// the GFX12 cache controls without an address), and where its address comes from. `None`
/// for every other instruction, and for one whose registers we cannot read.
pub fn traced(inst: &Inst, target: &Target, id: u32) -> Option<Traced> {
    let e = inst.encoding()?;
    let (family, _) = classify(e)?;
    if !matches!(family, Family::Global | Family::Flat) {
        return None;
    }
    let (_, ops) = crate::ir::liveness::operands(inst, target)?;
    let vgpr = |name| match ops.value(name) {
        Some(Value::Reg(Reg::Vgpr { index, .. })) => Some(index),
        _ => None,
    };
    let offset = match ops.value(N::offset) {
        Some(Value::Imm(v)) => v,
        None => 0,
        _ => return None,
    };
    let form = match ops.value(N::saddr) {
        Some(Value::Reg(Reg::Sgpr { index, .. })) => AddressForm::Saddr { saddr: index, vaddr: vgpr(N::vaddr) },
        // `off`, or no saddr operand at all (flat_*).
        Some(Value::Reg(Reg::Special(Special::Null))) | Some(Value::None) | None => AddressForm::Vaddr64 { vaddr: vgpr(N::vaddr)? },
        _ => return None,
    };
    Some(Traced { id, form, offset })
}

/// Builds the probe before `traced`; `Err` names the instruction that does not encode.
pub fn sequence(b: &mut Builder, regs: ProbeRegs, traced: Traced, tag: u32) -> Result<Vec<Inst>, String> {
    let target = *b.target();
    let g = target.generation();
    let wave64 = target.wave64;
    let s = |index: u16, count: u8| Value::Reg(Reg::Sgpr { index, count });
    let v = |index: u16, count: u8| Value::Reg(Reg::Vgpr { index, count });
    let exec = Value::Reg(Reg::Special(if wave64 { Special::Exec } else { Special::ExecLo }));
    let save = s(regs.exec_save, if wave64 { 2 } else { 1 });
    let (mov, ff1, lshl, and) = if wave64 {
        (Opcode::S_MOV_B64, Opcode::S_FF1_I32_B64, Opcode::S_LSHL_B64, Opcode::S_AND_B64)
    } else {
        (Opcode::S_MOV_B32, Opcode::S_FF1_I32_B32, Opcode::S_LSHL_B32, Opcode::S_AND_B32)
    };
    let mut out = Vec::with_capacity(40);
    let mut put = |b: &mut Builder, what: &str, op: Opcode, ops: &[(N, Value)]| -> Result<(), String> {
        out.push(b.build(op, ops).ok_or_else(|| format!("{what} does not encode for {}", g.name()))?);
        Ok(())
    };
    let gfx11_plus = g >= Generation::Gfx11;
    let gfx10_1 = g == Generation::Gfx10_1;
    let (t, lo, hi) = (s(regs.lanes, 1), s(regs.address, 1), s(regs.address + 1, 1));
    let address = s(regs.address, 2);
    let (vo, vd, vd1, vpair) = (v(regs.voffset, 1), v(regs.vdata, 1), v(regs.vdata + 1, 1), v(regs.vdata, 2));
    let null = Value::Reg(Reg::Special(Special::Null));
    if let Some(scc) = regs.scc_save {
        put(b, "s_cselect_b32", Opcode::S_CSELECT_B32, &[(N::sdst, s(scc, 1)), (N::src0, Value::InlineInt(1)), (N::src1, Value::InlineInt(0))])?;
    }
    put(b, "exec save", mov, &[(N::sdst, save), (N::src0, exec)])?;
    put(b, "s_ff1", ff1, &[(N::sdst, t), (N::src0, exec)])?;
    put(b, "s_lshl exec", lshl, &[(N::sdst, exec), (N::src0, Value::InlineInt(1)), (N::src1, t)])?;
    put(b, "s_and exec", and, &[(N::sdst, exec), (N::src0, exec), (N::src1, save)])?;
    put(b, "s_getpc_b64", Opcode::S_GETPC_B64, &[(N::sdst, address)])?;
    if g >= Generation::Gfx12 {
        put(b, "s_sext_i32_i16", Opcode::S_SEXT_I32_I16, &[(N::sdst, hi), (N::src0, hi)])?;
    }
    put(b, "s_add_u32", Opcode::S_ADD_U32, &[(N::sdst, lo), (N::src0, lo), (N::src1, Value::Literal(PLACEHOLDER))])?;
    put(b, "s_addc_u32", Opcode::S_ADDC_U32, &[(N::sdst, hi), (N::src0, hi), (N::src1, Value::Literal(PLACEHOLDER + tag))])?;
    if gfx11_plus {
        put(b, "s_waitcnt_depctr 0xfffe", Opcode::S_WAITCNT_DEPCTR, &[(N::simm16, Value::Imm(0xfffe))])?;
    }
    put(b, "v_mov_b32", Opcode::V_MOV_B32_e32, &[(N::vdst, vo), (N::src0, Value::InlineInt(0))])?;
    put(b, "v_mov_b32", Opcode::V_MOV_B32_e32, &[(N::vdst, vd), (N::src0, Value::InlineInt(1))])?;
    put(b, "v_mov_b32", Opcode::V_MOV_B32_e32, &[(N::vdst, vd1), (N::src0, Value::InlineInt(0))])?;
    if gfx10_1 {
        put(b, "s_waitcnt_vscnt", Opcode::S_WAITCNT_VSCNT, &[(N::sdst, null), (N::simm16, Value::Imm(0))])?;
    }
    // The atomic with return: glc (GFX9-GFX11; sc0 on GFX940), th:TH_ATOMIC_RETURN (GFX12):
    // bit 0 of cpol either way.
    put(
        b,
        "global_atomic_add_x2 (return)",
        Opcode::GLOBAL_ATOMIC_ADD_X2_SADDR_RTN,
        &[(N::vdst, vpair), (N::vaddr, vo), (N::vdata, vpair), (N::saddr, address), (N::offset, Value::Imm(0)), (N::cpol, Value::Imm(1))],
    )?;
    if g >= Generation::Gfx12 {
        put(b, "s_wait_loadcnt 0", Opcode::S_WAIT_LOADCNT, &[(N::simm16, Value::Imm(0))])?;
    } else {
        put(b, "s_waitcnt vmcnt(0)", Opcode::S_WAITCNT, &[(N::simm16, Value::Imm(vmcnt0(g)))])?;
    }
    put(b, "v_readfirstlane_b32", Opcode::V_READFIRSTLANE_B32, &[(N::vdst, t), (N::src0, vd)])?;
    put(b, "s_and_b32", Opcode::S_AND_B32, &[(N::sdst, t), (N::src0, t), (N::src1, Value::Literal((RECORDS - 1) as u32))])?;
    put(b, "s_lshl_b32", Opcode::S_LSHL_B32, &[(N::sdst, t), (N::src0, t), (N::src1, Value::InlineInt(RECORD_BYTES.trailing_zeros() as i64))])?;
    put(b, "s_add_u32", Opcode::S_ADD_U32, &[(N::sdst, lo), (N::src0, lo), (N::src1, t)])?;
    put(b, "s_addc_u32", Opcode::S_ADDC_U32, &[(N::sdst, hi), (N::src0, hi), (N::src1, Value::InlineInt(0))])?;
    if gfx11_plus {
        put(b, "s_waitcnt_depctr 0xfffe", Opcode::S_WAITCNT_DEPCTR, &[(N::simm16, Value::Imm(0xfffe))])?;
    }
    let r = HEADER_BYTES as i64;
    let store = |b: &mut Builder, put: &mut dyn FnMut(&mut Builder, &str, Opcode, &[(N, Value)]) -> Result<(), String>, data: Value, at: i64| {
        let op = if matches!(data, Value::Reg(Reg::Vgpr { count: 2, .. })) { Opcode::GLOBAL_STORE_DWORDX2_SADDR } else { Opcode::GLOBAL_STORE_DWORD_SADDR };
        put(b, "global_store", op, &[(N::vaddr, vo), (N::vdata, data), (N::saddr, address), (N::offset, Value::Imm(r + at)), (N::cpol, Value::Imm(0))])
    };
    store(b, &mut put, vpair, 24)?;
    put(b, "v_mov_b32", Opcode::V_MOV_B32_e32, &[(N::vdst, vd), (N::src0, s(regs.exec_save, 1))])?;
    let exec_hi = if wave64 { s(regs.exec_save + 1, 1) } else { Value::InlineInt(0) };
    put(b, "v_mov_b32", Opcode::V_MOV_B32_e32, &[(N::vdst, vd1), (N::src0, exec_hi)])?;
    store(b, &mut put, vpair, 16)?;
    let id = Value::Literal(traced.id);
    match traced.form {
        AddressForm::Saddr { saddr, vaddr } => {
            put(b, "v_mov_b32", Opcode::V_MOV_B32_e32, &[(N::vdst, vd), (N::src0, s(saddr, 1))])?;
            put(b, "v_mov_b32", Opcode::V_MOV_B32_e32, &[(N::vdst, vd1), (N::src0, s(saddr + 1, 1))])?;
            store(b, &mut put, vpair, 0)?;
            match vaddr {
                Some(x) => {
                    store(b, &mut put, v(x, 1), 8)?;
                    put(b, "v_mov_b32", Opcode::V_MOV_B32_e32, &[(N::vdst, vd), (N::src0, id)])?;
                    store(b, &mut put, vd, 12)?;
                }
                None => {
                    put(b, "v_mov_b32", Opcode::V_MOV_B32_e32, &[(N::vdst, vd), (N::src0, Value::InlineInt(0))])?;
                    put(b, "v_mov_b32", Opcode::V_MOV_B32_e32, &[(N::vdst, vd1), (N::src0, id)])?;
                    store(b, &mut put, vpair, 8)?;
                }
            }
        }
        AddressForm::Vaddr64 { vaddr } => {
            store(b, &mut put, v(vaddr, 2), 0)?;
            put(b, "v_mov_b32", Opcode::V_MOV_B32_e32, &[(N::vdst, vd), (N::src0, Value::InlineInt(0))])?;
            put(b, "v_mov_b32", Opcode::V_MOV_B32_e32, &[(N::vdst, vd1), (N::src0, id)])?;
            store(b, &mut put, vpair, 8)?;
        }
    }
    match g {
        g if g >= Generation::Gfx12 => put(b, "s_wait_storecnt 0", Opcode::S_WAIT_STORECNT, &[(N::simm16, Value::Imm(0))])?,
        g if g.is_gfx10_plus() => put(b, "s_waitcnt_vscnt null, 0", Opcode::S_WAITCNT_VSCNT, &[(N::sdst, null), (N::simm16, Value::Imm(0))])?,
        _ => put(b, "s_waitcnt vmcnt(0)", Opcode::S_WAITCNT, &[(N::simm16, Value::Imm(vmcnt0(g)))])?,
    }
    if gfx10_1 {
        put(b, "s_waitcnt_depctr 0xffe3", Opcode::S_WAITCNT_DEPCTR, &[(N::simm16, Value::Imm(0xffe3))])?;
    }
    put(b, "exec restore", mov, &[(N::sdst, exec), (N::src0, save)])?;
    if let Some(scc) = regs.scc_save {
        put(b, "s_cmp_lg_u32", Opcode::S_CMP_LG_U32, &[(N::src0, s(scc, 1)), (N::src1, Value::InlineInt(0))])?;
    }
    Ok(out)
}

/// `s_waitcnt vmcnt(0)` with every other counter at its maximum (no wait): GFX9 keeps
/// expcnt in 6:4 and lgkmcnt in 11:8; GFX10/11 widen lgkmcnt to 13:8 and move vmcnt's
/// high bits to 15:14 on GFX9+ (zero here), GFX11 moves expcnt to 2:0 and vmcnt to 15:10.
fn vmcnt0(g: Generation) -> i64 {
    match g {
        g if g >= Generation::Gfx11 => 0x03f7,
        g if g.is_gfx10_plus() => 0x3f70,
        _ => 0x0f70,
    }
}

/// One record of the ring, as the probe wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Record {
    /// Its position among every record appended (the ring's write index when it was reserved).
    pub index: u64,
    /// The traced instruction's address in the input code object.
    pub id: u32,
    /// The first active lane's base (the SGPR pair, or its 64-bit VGPR pair) and, in the SGPR
    /// form, its 32-bit VGPR offset.
    pub base: u64,
    pub offset32: u32,
    pub exec: u64,
}

impl Record {
    /// The first active lane's address: base + zero-extended VGPR offset + the instruction's
    /// immediate offset.
    pub fn address(&self, immediate: i64) -> u64 {
        self.base.wrapping_add(u64::from(self.offset32)).wrapping_add(immediate as u64)
    }
}

/// What a dump of the ring holds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Ring {
    /// Records ever appended (the write index at the end of the run).
    pub appended: u64,
    /// Times the ring wrapped: the `appended - RECORDS` oldest were overwritten.
    pub wraps: u64,
    /// The records still held, oldest first.
    pub records: Vec<Record>,
    /// Indexes whose slot holds another record (a wave that reserved a slot in an earlier lap
    /// wrote it after a later one): lost, and said so rather than printed wrong.
    pub lost: Vec<u64>,
}

/// Reads the ring at `header` (a byte offset into the counters' dump) holding `records` slots.
pub fn read_ring(dump: &[u8], header: u64, records: u64) -> Result<Ring, String> {
    let end = header + HEADER_BYTES + records * RECORD_BYTES;
    if (dump.len() as u64) < end {
        return Err(format!("the dump has {} bytes, the trace ring ends at {end}: is it the right object's dump?", dump.len()));
    }
    let u32_at = |at: u64| u32::from_le_bytes(dump[at as usize..at as usize + 4].try_into().unwrap());
    let u64_at = |at: u64| u64::from_le_bytes(dump[at as usize..at as usize + 8].try_into().unwrap());
    let appended = u64_at(header);
    let first = appended.saturating_sub(records);
    let mut ring = Ring { appended, wraps: appended / records, ..Ring::default() };
    for index in first..appended {
        let at = header + HEADER_BYTES + (index % records) * RECORD_BYTES;
        if u64_at(at + 24) != index {
            ring.lost.push(index);
            continue;
        }
        ring.records.push(Record { index, base: u64_at(at), offset32: u32_at(at + 8), id: u32_at(at + 12), exec: u64_at(at + 16) });
    }
    Ok(ring)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pass::instrument::probe::PROBE_TEST_TARGETS;

    /// The trace probe builds on every generation the count probe does, in both address
    /// forms, wave32 and wave64, with one returning atomic and the stores of one record.
    #[test]
    fn trace_sequences_build_on_every_supported_generation() {
        let regs = ProbeRegs { exec_save: 4, lanes: 6, address: 8, scc_save: Some(7), voffset: 2, vdata: 0 };
        for &(name, mattrs) in PROBE_TEST_TARGETS {
            for mattr in mattrs {
                let t = Target::from_name(name, mattr).unwrap();
                let mut b = Builder::new(t);
                for form in [AddressForm::Saddr { saddr: 20, vaddr: Some(10) }, AddressForm::Vaddr64 { vaddr: 10 }] {
                    let traced = Traced { id: 0x1234, form, offset: -8 };
                    let seq = sequence(&mut b, regs, traced, 5).unwrap_or_else(|e| panic!("{name} {mattr}: {e}"));
                    let text: Vec<String> = seq.iter().map(|i| crate::isa::print::print(i, &t, 0)).collect();
                    let atomics = text.iter().filter(|t| t.starts_with("global_atomic_add")).count();
                    assert_eq!(atomics, 1, "{name} {mattr}: {text:?}");
                    let atomic = text.iter().find(|t| t.starts_with("global_atomic_add")).unwrap();
                    assert!(atomic.contains("glc") || atomic.contains("sc0") || atomic.contains("TH_ATOMIC_RETURN"), "{name}: not a returning atomic: {atomic}");
                    assert!(text.iter().filter(|t| t.starts_with("global_store")).count() >= 4, "{name} {mattr}: {text:?}");
                    assert!(text.last().unwrap().starts_with("s_cmp_lg_u32 s7, 0"), "{name}: {text:?}");
                }
            }
        }
    }

    #[test]
    fn a_ring_reads_back_in_order_with_its_wraps() {
        let records = 4;
        let mut dump = vec![0u8; (HEADER_BYTES + records * RECORD_BYTES) as usize];
        let appended = 6u64;
        dump[..8].copy_from_slice(&appended.to_le_bytes());
        for index in 0..appended {
            let at = (HEADER_BYTES + (index % records) * RECORD_BYTES) as usize;
            dump[at..at + 8].copy_from_slice(&(0x1000 + index).to_le_bytes());
            dump[at + 12..at + 16].copy_from_slice(&(index as u32 * 4).to_le_bytes());
            dump[at + 16..at + 24].copy_from_slice(&1u64.to_le_bytes());
            // Index 3's slot was overwritten late by index 3 - 4 (never appended: a stale lap).
            let seq = if index == 3 { 99 } else { index };
            dump[at + 24..at + 32].copy_from_slice(&seq.to_le_bytes());
        }
        let ring = read_ring(&dump, 0, records).unwrap();
        assert_eq!((ring.appended, ring.wraps), (6, 1));
        assert_eq!(ring.records.iter().map(|r| r.index).collect::<Vec<_>>(), vec![2, 4, 5]);
        assert_eq!(ring.lost, vec![3]);
        assert_eq!(ring.records[0].address(-0x10), 0x1002 - 0x10);
        assert!(read_ring(&dump[..40], 0, records).is_err());
    }
}
