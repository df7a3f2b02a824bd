//! One probe: the instruction sequence that adds to a pair of 64-bit counters, and the
//! registers it needs (scavenged from liveness). See docs/instrumentation.md for the reasoning
//! behind each instruction; in short (wave64 shown; wave32 uses the `_b32` forms on `exec_lo`):
//!
//! ```text
//!   s_cselect_b32 sS, 1, 0             only if SCC is live: save it
//!   s_mov_b64 s[E:E+1], exec           save EXEC
//!   s_bcnt1_i32_b64 sC, exec           active lanes
//!   s_ff1_i32_b64 sA, exec             entry probes: EXEC := its lowest set bit (0 stays 0)
//!   s_lshl_b64 exec, 1, sA
//!   s_and_b64 exec, exec, s[E:E+1]
//!   (s_mov_b64 exec, 1                 exit probes, before s_endpgm: nothing is live, lane 0)
//!   s_getpc_b64 s[A:A+1]               PC-relative address of this probe's counters
//!   s_sext_i32_i16 sA+1, sA+1          GFX12: the PC is 48 bits, sign-extended
//!   s_add_u32 sA, sA, lo               lo/hi: aimed after the layout (placeholder until then)
//!   s_addc_u32 sA+1, sA+1, hi
//!   s_waitcnt_depctr 0xfffe            GFX11+: SALU wrote SGPRs an earlier VALU may read as a mask
//!   v_mov_b32 vO, 0                    the atomic's VGPR offset
//!   v_mov_b32 vL+1, 0
//!   v_mov_b32 vL, 1
//!   s_waitcnt_vscnt null, 0            GFX10.1 only (LDS/VMEM across a branch)
//!   global_atomic_add_x2 vO, v[L:L+1], s[A:A+1]            counter 0: waves
//!   v_mov_b32 vL, sC
//!   global_atomic_add_x2 vO, v[L:L+1], s[A:A+1] offset:8   counter 1: lanes
//!   s_waitcnt vmcnt(0)                 GFX9; s_waitcnt_vscnt null, 0 GFX10/11; s_wait_storecnt 0 GFX12
//!   s_waitcnt_depctr 0xffe3            GFX10.1 only (VMEM read of an SGPR, then an SALU write)
//!   s_mov_b64 exec, s[E:E+1]           restore EXEC
//!   s_cmp_lg_u32 sS, 0                 only if SCC was live: restore it
//! ```

use crate::ir::liveness::{unit, RegSet};
use crate::isa::encode::Builder;
use crate::isa::operand::Value;
use crate::isa::processor::Generation;
use crate::isa::reg::{Reg, Special};
use crate::isa::table::{Opcode, OperandName as N};
use crate::isa::{Inst, Target};

/// The add constants of a probe's address before the layout aims them: not an inline constant,
/// so the adds carry a literal dword the final value overwrites in place.
pub const PLACEHOLDER: u32 = 0x4746_5850;

/// Where the probe runs its memory operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Lanes {
    /// In the lowest active lane: the other lanes' VGPRs may hold values liveness cannot see
    /// (a lane that left a loop keeps its result in a register the loop body overwrites).
    LowestActive,
    /// In lane 0, whatever EXEC is: only before `s_endpgm`, where nothing is live.
    LaneZero,
}

/// Registers one probe uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeRegs {
    /// EXEC's copy: one SGPR (wave32) or an aligned pair (wave64).
    pub exec_save: u16,
    pub lanes: u16,
    /// An aligned SGPR pair: the counters' address.
    pub address: u16,
    /// SCC's copy, when SCC is live.
    pub scc_save: Option<u16>,
    /// The atomic's VGPR offset, and an aligned VGPR pair for its data.
    pub voffset: u16,
    pub vdata: u16,
}

/// Limits on the registers a probe may take.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// SGPRs s0..s(sgprs-1) may be used.
    pub sgprs: u16,
    /// VGPRs v0..v(vgprs-1) may be used.
    pub vgprs: u16,
}

impl Limits {
    /// The target's addressable registers, kept clear of the SGPRs that alias VCC, FLAT_SCRATCH
    /// and XNACK_MASK on GFX9 (s102..s105 in some encodings) and of the top of the file.
    pub fn of(target: &Target) -> Limits {
        let sgprs = if target.generation().is_gfx10_plus() { 104 } else { 100 };
        Limits { sgprs, vgprs: 256 }
    }
}

/// Picks the probe's registers among those not in `live`: the lowest that fit, so that a
/// kernel's allocation grows only when nothing below its top is free. `None` says which class
/// ran out.
pub fn scavenge(live: &RegSet, wave64: bool, scc_live: bool, limits: Limits) -> Result<ProbeRegs, &'static str> {
    let mut taken = *live;
    let mut sgpr = |count: u16, align: u16| -> Option<u16> {
        let mut i = 0u16;
        while i + count <= limits.sgprs {
            if (0..count).all(|k| !taken.contains(usize::from(i + k))) {
                (0..count).for_each(|k| taken.insert(usize::from(i + k)));
                return Some(i);
            }
            i += align;
        }
        None
    };
    let exec_save = if wave64 { sgpr(2, 2) } else { sgpr(1, 1) };
    let address = sgpr(2, 2);
    let lanes = sgpr(1, 1);
    let scc_save = if scc_live { Some(sgpr(1, 1).ok_or("no free SGPR to save SCC")?) } else { None };
    let (Some(exec_save), Some(address), Some(lanes)) = (exec_save, address, lanes) else {
        return Err("no free SGPRs within the target's limit");
    };
    let mut vgpr = |count: u16, align: u16| -> Option<u16> {
        let mut i = 0u16;
        while i + count <= limits.vgprs {
            if (0..count).all(|k| !taken.contains(unit::VGPR0 + usize::from(i + k))) {
                (0..count).for_each(|k| taken.insert(unit::VGPR0 + usize::from(i + k)));
                return Some(i);
            }
            i += align;
        }
        None
    };
    let vdata = vgpr(2, 2).ok_or("no free aligned VGPR pair within the limit")?;
    let voffset = vgpr(1, 1).ok_or("no free VGPR within the limit")?;
    Ok(ProbeRegs { exec_save, lanes, address, scc_save, voffset, vdata })
}

/// Whether the generation has what a probe needs (global atomics with an SGPR base, 64-bit
/// adds) and a hazard story we have written down; `Err` says why not.
pub fn supported(target: &Target) -> Result<(), &'static str> {
    match target.generation() {
        Generation::R600 | Generation::Gfx6 | Generation::Gfx7 | Generation::Gfx8 => Err("no global_* instructions with an SGPR base before GFX9"),
        Generation::Gfx1250 => Err("GFX1250: probe sequence not written for CDNA5 yet"),
        _ => Ok(()),
    }
}

/// Builds the probe sequence; `Err` names the instruction that does not encode.
pub fn sequence(b: &mut Builder, regs: ProbeRegs, lanes: Lanes) -> Result<Vec<Inst>, String> {
    let target = *b.target();
    let g = target.generation();
    let wave64 = target.wave64;
    let s = |index: u16, count: u8| Value::Reg(Reg::Sgpr { index, count });
    let v = |index: u16, count: u8| Value::Reg(Reg::Vgpr { index, count });
    let exec = Value::Reg(Reg::Special(if wave64 { Special::Exec } else { Special::ExecLo }));
    let ecount = if wave64 { 2 } else { 1 };
    let save = s(regs.exec_save, ecount);
    let (mov, bcnt, ff1, lshl, and) = if wave64 {
        (Opcode::S_MOV_B64, Opcode::S_BCNT1_I32_B64, Opcode::S_FF1_I32_B64, Opcode::S_LSHL_B64, Opcode::S_AND_B64)
    } else {
        (Opcode::S_MOV_B32, Opcode::S_BCNT1_I32_B32, Opcode::S_FF1_I32_B32, Opcode::S_LSHL_B32, Opcode::S_AND_B32)
    };
    let mut out = Vec::with_capacity(24);
    let mut put = |b: &mut Builder, what: &str, op: Opcode, ops: &[(N, Value)]| -> Result<(), String> {
        out.push(b.build(op, ops).ok_or_else(|| format!("{what} does not encode for {}", g.name()))?);
        Ok(())
    };
    let gfx11_plus = g >= Generation::Gfx11;
    let gfx10_1 = g == Generation::Gfx10_1;
    if let Some(scc) = regs.scc_save {
        put(b, "s_cselect_b32", Opcode::S_CSELECT_B32, &[(N::sdst, s(scc, 1)), (N::src0, Value::InlineInt(1)), (N::src1, Value::InlineInt(0))])?;
    }
    put(b, "exec save", mov, &[(N::sdst, save), (N::src0, exec)])?;
    put(b, "s_bcnt1", bcnt, &[(N::sdst, s(regs.lanes, 1)), (N::src0, exec)])?;
    match lanes {
        Lanes::LowestActive => {
            put(b, "s_ff1", ff1, &[(N::sdst, s(regs.address, 1)), (N::src0, exec)])?;
            put(b, "s_lshl exec", lshl, &[(N::sdst, exec), (N::src0, Value::InlineInt(1)), (N::src1, s(regs.address, 1))])?;
            put(b, "s_and exec", and, &[(N::sdst, exec), (N::src0, exec), (N::src1, save)])?;
        }
        Lanes::LaneZero => put(b, "exec := 1", mov, &[(N::sdst, exec), (N::src0, Value::InlineInt(1))])?,
    }
    let (lo, hi) = (s(regs.address, 1), s(regs.address + 1, 1));
    put(b, "s_getpc_b64", Opcode::S_GETPC_B64, &[(N::sdst, s(regs.address, 2))])?;
    if g >= Generation::Gfx12 {
        put(b, "s_sext_i32_i16", Opcode::S_SEXT_I32_I16, &[(N::sdst, hi), (N::src0, hi)])?;
    }
    put(b, "s_add_u32", Opcode::S_ADD_U32, &[(N::sdst, lo), (N::src0, lo), (N::src1, Value::Literal(PLACEHOLDER))])?;
    put(b, "s_addc_u32", Opcode::S_ADDC_U32, &[(N::sdst, hi), (N::src0, hi), (N::src1, Value::Literal(PLACEHOLDER))])?;
    if gfx11_plus {
        // Our SALU writes of SGPRs an earlier VALU may have read as a lane mask, before our
        // VALU reads them (LLVM's VALUMaskWriteHazard): wait for SALU SGPR writes.
        put(b, "s_waitcnt_depctr 0xfffe", Opcode::S_WAITCNT_DEPCTR, &[(N::simm16, Value::Imm(0xfffe))])?;
    }
    put(b, "v_mov_b32", Opcode::V_MOV_B32_e32, &[(N::vdst, v(regs.voffset, 1)), (N::src0, Value::InlineInt(0))])?;
    put(b, "v_mov_b32", Opcode::V_MOV_B32_e32, &[(N::vdst, v(regs.vdata + 1, 1)), (N::src0, Value::InlineInt(0))])?;
    put(b, "v_mov_b32", Opcode::V_MOV_B32_e32, &[(N::vdst, v(regs.vdata, 1)), (N::src0, Value::InlineInt(1))])?;
    let null = Value::Reg(Reg::Special(Special::Null));
    if gfx10_1 {
        put(b, "s_waitcnt_vscnt", Opcode::S_WAITCNT_VSCNT, &[(N::sdst, null), (N::simm16, Value::Imm(0))])?;
    }
    let atomic = |offset: i64| [(N::vaddr, v(regs.voffset, 1)), (N::vdata, v(regs.vdata, 2)), (N::saddr, s(regs.address, 2)), (N::offset, Value::Imm(offset)), (N::cpol, Value::Imm(0))];
    put(b, "global_atomic_add_x2", Opcode::GLOBAL_ATOMIC_ADD_X2_SADDR, &atomic(0))?;
    put(b, "v_mov_b32", Opcode::V_MOV_B32_e32, &[(N::vdst, v(regs.vdata, 1)), (N::src0, s(regs.lanes, 1))])?;
    put(b, "global_atomic_add_x2", Opcode::GLOBAL_ATOMIC_ADD_X2_SADDR, &atomic(8))?;
    match g {
        g if g >= Generation::Gfx12 => put(b, "s_wait_storecnt 0", Opcode::S_WAIT_STORECNT, &[(N::simm16, Value::Imm(0))])?,
        g if g.is_gfx10_plus() => put(b, "s_waitcnt_vscnt null, 0", Opcode::S_WAITCNT_VSCNT, &[(N::sdst, null), (N::simm16, Value::Imm(0))])?,
        // vmcnt(0) expcnt(7) lgkmcnt(15): only the vector memory counter waits.
        _ => put(b, "s_waitcnt vmcnt(0)", Opcode::S_WAITCNT, &[(N::simm16, Value::Imm(0x0f70))])?,
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

/// The processors (and wave-size attributes) the probe sequences are built for in the unit
/// tests of this module and of `trace`: every generation with global atomics, wave32 and
/// wave64 where it has both.
#[cfg(test)]
pub(crate) const PROBE_TEST_TARGETS: &[(&str, &[&str])] = &[
    ("gfx900", &[""]),
    ("gfx906", &[""]),
    ("gfx908", &[""]),
    ("gfx90a", &[""]),
    ("gfx942", &[""]),
    ("gfx1010", &["", "+wavefrontsize64"]),
    ("gfx1030", &["", "+wavefrontsize64"]),
    ("gfx1100", &["", "+wavefrontsize64"]),
    ("gfx1151", &[""]),
    ("gfx1200", &["", "+wavefrontsize64"]),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every generation with global atomics builds both probe forms, in wave32 and wave64
    /// where the generation has both, and each instruction round-trips through the decoder
    /// (the builder checks that) to the same text LLVM would print.
    #[test]
    fn probe_sequences_build_on_every_supported_generation() {
        let regs = ProbeRegs { exec_save: 4, lanes: 6, address: 8, scc_save: Some(7), voffset: 2, vdata: 0 };
        for &(name, mattrs) in PROBE_TEST_TARGETS {
            for mattr in mattrs {
                let t = Target::from_name(name, mattr).unwrap();
                assert!(supported(&t).is_ok());
                let mut b = Builder::new(t);
                for lanes in [Lanes::LowestActive, Lanes::LaneZero] {
                    let seq = sequence(&mut b, regs, lanes).unwrap_or_else(|e| panic!("{name} {mattr}: {e}"));
                    let text: Vec<String> = seq.iter().map(|i| crate::isa::print::print(i, &t, 0)).collect();
                    let atomics = text.iter().filter(|t| t.starts_with("global_atomic_add")).count();
                    assert_eq!(atomics, 2, "{name} {mattr}: {text:?}");
                    assert!(text.last().unwrap().starts_with("s_cmp_lg_u32 s7, 0"), "{name}: {text:?}");
                }
            }
        }
        assert!(supported(&Target::from_name("gfx803", "").unwrap()).is_err());
    }

    #[test]
    fn scavenging_skips_live_registers_and_keeps_pairs_aligned() {
        let mut live = RegSet::EMPTY;
        for u in [0, 1, 3, unit::VGPR0, unit::VGPR0 + 3] {
            live.insert(u);
        }
        let r = scavenge(&live, true, true, Limits { sgprs: 104, vgprs: 256 }).unwrap();
        assert_eq!((r.exec_save, r.address, r.lanes, r.scc_save), (4, 6, 2, Some(8)));
        assert_eq!((r.vdata, r.voffset), (4, 1));
        assert!(scavenge(&live, true, false, Limits { sgprs: 6, vgprs: 256 }).is_err());
    }
}
