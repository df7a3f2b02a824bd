//! Print methods for scalar control words: branch targets, `s_waitcnt`, `s_delay_alu`,
//! `hwreg(...)`, `sendmsg(...)`, `s_endpgm` operands and the like.
//!
//! Each printer follows LLVM 19's `AMDGPUInstPrinter` (and the tables of `AMDGPUAsmUtils.cpp` /
//! `AMDGPUBaseInfo.cpp` it consults) for the generation of the target. Each printer was checked
//! against `llvm-mc-19 --disassemble` by sweeping its whole 16-bit field (SMEM offsets: sampled)
//! on every generation that has the instruction, and against `llvm-mc-22` for GFX950 / GFX1250,
//! whose records come from LLVM 22.

use std::fmt::Write as _;

use super::Ctx;
use crate::isa::inst::Inst;
use crate::isa::operand::Value;
use crate::isa::processor::Generation;
use crate::isa::table::{OperandClass, extract};

/// Prints operand `index` with LLVM print method `method` if this module implements it.
pub fn print(out: &mut String, ctx: &Ctx<'_>, index: usize, method: &str) -> bool {
    // Two classes whose generic print method is operand.rs's: it declines them, so dispatch
    // reaches this module (`print_branch_target` and `print_version` are public for direct calls).
    match ctx.encoding.operands.get(index).map(|o| o.class) {
        Some(OperandClass::SOPPBrTarget) if method == "printOperand" => {
            print_branch_target(out, ctx, index);
            return true;
        }
        Some(OperandClass::VersionImm) if method == "printU16ImmOperand" => {
            print_version(out, ctx, index);
            return true;
        }
        _ => {}
    }
    let printer: fn(&mut String, &Ctx<'_>, i64) = match method {
        "printSWaitCnt" => waitcnt,
        "printDepCtr" => depctr,
        "printSDelayALU" => delay_alu,
        "printHwreg" => hwreg,
        "printSendMsg" => sendmsg,
        "printEndpgm" => endpgm,
        "printGPRIdxMode" => gpr_idx_mode,
        "printWaitVDST" => |out, _, v| wait_field(out, "wait_vdst", v),
        "printWaitEXP" => |out, _, v| wait_field(out, "wait_exp", v),
        "printWaitVAVDst" => |out, _, v| wait_field(out, "wait_va_vdst", v),
        "printWaitVMVSrc" => |out, _, v| wait_field(out, "wait_vm_vsrc", v),
        "printInterpSlot" => interp_slot,
        "printInterpAttr" => |out, _, v| {
            let _ = write!(out, "attr{}", v as u32);
        },
        "printInterpAttrChan" => |out, _, v| {
            out.push('.');
            out.push(b"xyzw"[(v & 3) as usize] as char);
        },
        "printSMEMOffset" => smem_offset,
        "printSMEMOffsetMod" => |out, ctx, v| {
            out.push_str(" offset:");
            smem_offset(out, ctx, v);
        },
        // SI/CI only (`smrd_offset_8`, `smrd_literal_offset`): printU32ImmOperand.
        "printSMRDOffset8" | "printSMRDLiteralOffset" => |out, _, v| {
            let _ = write!(out, "0x{:x}", v as u64 & 0xffff_ffff);
        },
        _ => return false,
    };
    match imm(ctx, index) {
        Some(v) => printer(out, ctx, v),
        None => {
            let _ = write!(out, "<{method}?>");
        }
    }
    true
}

/// The immediate of operand `index`, or `None` when it does not hold one.
fn imm(ctx: &Ctx<'_>, index: usize) -> Option<i64> {
    match ctx.ops.as_slice().get(index)?.value {
        Value::Imm(v) => Some(v),
        _ => None,
    }
}

/// The branch operand of `s_branch`/`s_cbranch_*`/`s_call_b64` (class `SOPPBrTarget`,
/// OPERAND_PCREL, printed by LLVM's `printOperand`): the raw unsigned 16-bit field in decimal
/// (`s_branch 65394` jumps backwards). objdump appends the resolved target as `<sym+0x..>`
/// itself, see [`branch_target`].
pub fn print_branch_target(out: &mut String, ctx: &Ctx<'_>, index: usize) {
    match imm(ctx, index) {
        Some(v) => {
            let _ = write!(out, "{}", v as u64 & 0xffff);
        }
        None => out.push_str("<branch target?>"),
    }
}

/// `s_version`'s operand (class `VersionImm`, print method printU16ImmOperand, but LLVM's
/// `decodeVersionImm` turns it into an expression): `UC_VERSION_GFX11|UC_VERSION_W32_BIT`
/// and friends, or plain hex when bits outside the version byte and the three flag bits are set.
pub fn print_version(out: &mut String, ctx: &Ctx<'_>, index: usize) {
    match imm(ctx, index) {
        Some(v) => version(out, ctx, v),
        None => out.push_str("<printVersionImm?>"),
    }
}

/// The address a SOPP branch (`s_branch`, `s_cbranch_*`) jumps to: its first operand is the
/// 16-bit signed dword offset from the next instruction. `None` for anything else.
pub fn branch_target(inst: &Inst, address: u64) -> Option<u64> {
    let e = inst.encoding()?;
    let first = e.operands.first()?;
    if first.class != OperandClass::SOPPBrTarget {
        return None;
    }
    let imm = extract(e.fields[0], inst.encoded_bits()) as u16 as i16;
    Some(
        address
            .wrapping_add(4)
            .wrapping_add_signed(i64::from(imm) * 4),
    )
}

fn generation(ctx: &Ctx<'_>) -> Generation {
    ctx.target.generation()
}

/// GFX9 encoding family: GFX9 proper plus the CDNA chips.
fn is_gfx9_family(g: Generation) -> bool {
    matches!(
        g,
        Generation::Gfx9 | Generation::Gfx90a | Generation::Gfx940 | Generation::Gfx950
    )
}

fn is_gfx10(g: Generation) -> bool {
    matches!(g, Generation::Gfx10_1 | Generation::Gfx10_3)
}

fn is_gfx11(g: Generation) -> bool {
    matches!(g, Generation::Gfx11 | Generation::Gfx11_5)
}

/// `printSWaitCnt`: `vmcnt(N) expcnt(N) lgkmcnt(N)`, each only when below its maximum (all
/// three when every one is at its maximum). Field layout by generation (`decodeWaitcnt`).
fn waitcnt(out: &mut String, ctx: &Ctx<'_>, v: i64) {
    let v = v as u32;
    let field = |shift: u32, width: u32| (v >> shift) & ((1 << width) - 1);
    let g = generation(ctx);
    // (value, max) for vmcnt, expcnt, lgkmcnt.
    let (vm, exp, lgkm) = if g >= Generation::Gfx11 {
        ((field(10, 6), 63), (field(0, 3), 7), (field(4, 6), 63))
    } else if g.is_gfx10_plus() {
        (
            (field(0, 4) | field(14, 2) << 4, 63),
            (field(4, 3), 7),
            (field(8, 6), 63),
        )
    } else if is_gfx9_family(g) {
        (
            (field(0, 4) | field(14, 2) << 4, 63),
            (field(4, 3), 7),
            (field(8, 4), 15),
        )
    } else {
        ((field(0, 4), 15), (field(4, 3), 7), (field(8, 4), 15))
    };
    let all = vm.0 == vm.1 && exp.0 == exp.1 && lgkm.0 == lgkm.1;
    let mut sep = "";
    for (name, (val, max)) in [("vmcnt", vm), ("expcnt", exp), ("lgkmcnt", lgkm)] {
        if val != max || all {
            super::num::push_str(out, sep);
            super::num::push_str(out, name);
            out.push('(');
            super::num::push_udec(out, u64::from(val));
            out.push(')');
            sep = " ";
        }
    }
}

/// `s_waitcnt_depctr`'s fields on `generation` as (name, shift, width), in the order LLVM
/// prints them; every field's default is its maximum. `depctr_hold_cnt` exists from GFX10.3
/// (FeatureGFX10_BEncoding: gfx1030 and later RDNA). The parser reads the same fields.
pub(crate) fn depctr_fields(generation: Generation) -> impl Iterator<Item = &'static (&'static str, u32, u32)> {
    const FIELDS: [(&str, u32, u32); 7] = [
        ("depctr_hold_cnt", 7, 1),
        ("depctr_sa_sdst", 0, 1),
        ("depctr_va_vdst", 12, 4),
        ("depctr_va_sdst", 9, 3),
        ("depctr_va_ssrc", 8, 1),
        ("depctr_va_vcc", 1, 1),
        ("depctr_vm_vsrc", 2, 3),
    ];
    let hold_cnt = generation >= Generation::Gfx10_3;
    FIELDS.iter().filter(move |f| hold_cnt || f.0 != "depctr_hold_cnt")
}

/// `printDepCtr` (`s_waitcnt_depctr`, GFX12 `s_wait_alu`): the non-default fields as
/// `name(value)`, all fields when every one is at its default, or hex when a bit outside the
/// known fields is set.
fn depctr(out: &mut String, ctx: &Ctx<'_>, v: i64) {
    let v = (v & 0xffff) as u32;
    let fields: Vec<_> = depctr_fields(generation(ctx)).collect();
    let known: u32 = fields
        .iter()
        .map(|&&(_, shift, width)| ((1 << width) - 1) << shift)
        .sum();
    if v & !known != 0 {
        let _ = write!(out, "0x{v:x}");
        return;
    }
    let value = |shift: u32, width: u32| (v >> shift) & ((1 << width) - 1);
    let any_set = fields.iter().any(|&&(_, s, w)| value(s, w) != (1 << w) - 1);
    let mut sep = "";
    for &&(name, shift, width) in &fields {
        let val = value(shift, width);
        if val != (1 << width) - 1 || !any_set {
            let _ = write!(out, "{sep}{name}({val})");
            sep = " ";
        }
    }
}

/// `printSDelayALU`: `instid0(X) | instskip(Y) | instid1(Z)`, non-zero parts only, or `0`.
fn delay_alu(out: &mut String, _ctx: &Ctx<'_>, v: i64) {
    const INST_IDS: [&str; 12] = [
        "NO_DEP",
        "VALU_DEP_1",
        "VALU_DEP_2",
        "VALU_DEP_3",
        "VALU_DEP_4",
        "TRANS32_DEP_1",
        "TRANS32_DEP_2",
        "TRANS32_DEP_3",
        "FMA_ACCUM_CYCLE_1",
        "SALU_CYCLE_1",
        "SALU_CYCLE_2",
        "SALU_CYCLE_3",
    ];
    const INST_SKIPS: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];
    let v = v as u32;
    let id = |x: u32| {
        INST_IDS
            .get(x as usize)
            .copied()
            .unwrap_or("/* invalid instid value */")
    };
    let skip = |x: u32| {
        INST_SKIPS
            .get(x as usize)
            .copied()
            .unwrap_or("/* invalid instskip value */")
    };
    let mut sep = "";
    for (name, val, text) in [
        ("instid0", v & 0xf, id(v & 0xf)),
        ("instskip", (v >> 4) & 7, skip((v >> 4) & 7)),
        ("instid1", (v >> 7) & 0xf, id((v >> 7) & 0xf)),
    ] {
        if val != 0 {
            let _ = write!(out, "{sep}{name}({text})");
            sep = " | ";
        }
    }
    if sep.is_empty() {
        out.push('0');
    }
}

/// `printHwreg`: `hwreg(NAME)` or `hwreg(NAME, offset, width)`; unknown ids print as numbers.
fn hwreg(out: &mut String, ctx: &Ctx<'_>, v: i64) {
    let v = v as u32;
    let id = v & 0x3f;
    let offset = (v >> 6) & 0x1f;
    let width = ((v >> 11) & 0x1f) + 1;
    out.push_str("hwreg(");
    match hwreg_name(id, generation(ctx)) {
        Some(name) => {
            out.push_str("HW_REG_");
            out.push_str(name);
        }
        None => {
            let _ = write!(out, "{id}");
        }
    }
    if offset != 0 || width != 32 {
        let _ = write!(out, ", {offset}, {width}");
    }
    out.push(')');
}

/// The symbolic name (without `HW_REG_`) of hardware register `id` on generation `g`.
fn hwreg_name(id: u32, g: Generation) -> Option<&'static str> {
    use Generation as G;
    if g == G::Gfx1250 {
        return hwreg_name_gfx1250(id);
    }
    let gfx12 = g >= G::Gfx12;
    let gfx10 = is_gfx10(g);
    let gfx11 = is_gfx11(g);
    let gfx9 = is_gfx9_family(g);
    let gfx940 = matches!(g, G::Gfx940 | G::Gfx950);
    Some(match id {
        1 => "MODE",
        2 => "STATUS",
        3 if !gfx12 => "TRAPSTS",
        4 if !g.is_gfx10_plus() => "HW_ID",
        4 if gfx12 => "STATE_PRIV",
        5 => "GPR_ALLOC",
        6 => "LDS_ALLOC",
        7 => "IB_STS",
        10 if gfx12 => "PERF_SNAPSHOT_DATA",
        11 if gfx12 => "PERF_SNAPSHOT_PC_LO",
        12 if gfx12 => "PERF_SNAPSHOT_PC_HI",
        15 if gfx9 || gfx10 || gfx11 => "SH_MEM_BASES",
        15 if gfx12 => "PERF_SNAPSHOT_DATA1",
        16 if gfx9 || gfx10 => "TBA_LO",
        16 if gfx12 => "PERF_SNAPSHOT_DATA2",
        17 if gfx9 || gfx10 => "TBA_HI",
        17 if gfx12 => "EXCP_FLAG_PRIV",
        18 if gfx9 || gfx10 => "TMA_LO",
        18 if gfx11 => "PERF_SNAPSHOT_PC_LO",
        18 if gfx12 => "EXCP_FLAG_USER",
        19 if gfx9 || gfx10 => "TMA_HI",
        19 if gfx11 => "PERF_SNAPSHOT_PC_HI",
        19 if gfx12 => "TRAP_CTRL",
        20 if gfx10 || gfx11 => "FLAT_SCR_LO",
        20 if gfx12 => "SCRATCH_BASE_LO",
        20 if gfx940 => "XCC_ID",
        21 if gfx10 || gfx11 => "FLAT_SCR_HI",
        21 if gfx12 => "SCRATCH_BASE_HI",
        21 if gfx940 => "SQ_PERF_SNAPSHOT_DATA",
        22 if g == G::Gfx10_1 => "XNACK_MASK",
        22 if gfx940 => "SQ_PERF_SNAPSHOT_DATA1",
        23 if g.is_gfx10_plus() => "HW_ID1",
        23 if gfx940 => "SQ_PERF_SNAPSHOT_PC_LO",
        24 if g.is_gfx10_plus() => "HW_ID2",
        24 if gfx940 => "SQ_PERF_SNAPSHOT_PC_HI",
        25 if gfx10 => "POPS_PACKER",
        27 if gfx11 => "PERF_SNAPSHOT_DATA",
        29 if g == G::Gfx10_3 || gfx11 => "SHADER_CYCLES",
        29 if gfx12 => "SHADER_CYCLES_LO",
        30 if gfx12 => "SHADER_CYCLES_HI",
        31 if gfx12 => "DVGPR_ALLOC_LO",
        32 if gfx12 => "DVGPR_ALLOC_HI",
        _ => return None,
    })
}

/// GFX1250's hardware register names: LLVM 22's table, which renames the wave state registers
/// `HW_REG_WAVE_*` (checked against `llvm-mc-22`).
fn hwreg_name_gfx1250(id: u32) -> Option<&'static str> {
    Some(match id {
        1 => "WAVE_MODE",
        2 => "WAVE_STATUS",
        4 => "WAVE_STATE_PRIV",
        5 => "WAVE_GPR_ALLOC",
        6 => "WAVE_LDS_ALLOC",
        7 => "IB_STS",
        10 => "PERF_SNAPSHOT_DATA",
        11 => "PERF_SNAPSHOT_PC_LO",
        12 => "PERF_SNAPSHOT_PC_HI",
        15 => "PERF_SNAPSHOT_DATA1",
        16 => "PERF_SNAPSHOT_DATA2",
        17 => "WAVE_EXCP_FLAG_PRIV",
        18 => "WAVE_EXCP_FLAG_USER",
        19 => "WAVE_TRAP_CTRL",
        20 => "WAVE_SCRATCH_BASE_LO",
        21 => "WAVE_SCRATCH_BASE_HI",
        23 => "WAVE_HW_ID1",
        24 => "WAVE_HW_ID2",
        26 => "WAVE_SCHED_MODE",
        28 => "IB_STS2",
        29 => "SHADER_CYCLES_LO",
        30 => "SHADER_CYCLES_HI",
        31 => "WAVE_DVGPR_ALLOC_LO",
        32 => "WAVE_DVGPR_ALLOC_HI",
        33 => "XNACK_STATE_PRIV",
        34 => "XNACK_MASK",
        _ => return None,
    })
}

/// `printSendMsg`: `sendmsg(MSG[, OP[, stream]])`, `sendmsg(m, o, s)` for unnamed but
/// well-formed ids, or the plain decimal immediate.
fn sendmsg(out: &mut String, ctx: &Ctx<'_>, v: i64) {
    let imm = (v & 0xffff) as u32;
    let g = generation(ctx);
    let gfx11_plus = g >= Generation::Gfx11;
    let (msg, op, stream) = if gfx11_plus {
        (imm & 0xff, 0, 0)
    } else {
        (imm & 0xf, (imm >> 4) & 7, (imm >> 8) & 3)
    };
    // Pre-GFX11 GS, GS_DONE and SYSMSG take an operation.
    let requires_op = !gfx11_plus && matches!(msg, 2 | 3 | 15);
    let op_name = |op: u32| -> Option<&'static str> {
        if msg == 15 {
            match op {
                1 => Some("SYSMSG_OP_ECC_ERR_INTERRUPT"),
                2 => Some("SYSMSG_OP_REG_RD"),
                3 if g == Generation::Gfx8 => Some("SYSMSG_OP_HOST_TRAP_ACK"),
                4 => Some("SYSMSG_OP_TTRACE_PC"),
                _ => None,
            }
        } else {
            ["GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT"]
                .get(op as usize)
                .copied()
        }
    };
    let valid_op = if requires_op {
        !(msg == 2 && op == 0) && op_name(op).is_some()
    } else {
        op == 0
    };
    let valid_stream = match msg {
        2 if !gfx11_plus => true,
        3 if !gfx11_plus => op != 0 || stream == 0,
        _ => stream == 0,
    };
    match sendmsg_name(msg, g) {
        Some(name) if valid_op && valid_stream => {
            let _ = write!(out, "sendmsg(MSG_{name}");
            if requires_op {
                let _ = write!(out, ", {}", op_name(op).unwrap_or("?"));
                if matches!(msg, 2 | 3) && op != 0 {
                    let _ = write!(out, ", {stream}");
                }
            }
            out.push(')');
        }
        _ if msg | op << 4 | stream << 8 == imm => {
            let _ = write!(out, "sendmsg({msg}, {op}, {stream})");
        }
        _ => {
            let _ = write!(out, "{imm}");
        }
    }
}

/// The message name (without `MSG_`) of id `msg` on generation `g`.
fn sendmsg_name(msg: u32, g: Generation) -> Option<&'static str> {
    use Generation as G;
    let gfx11_plus = g >= G::Gfx11;
    let gfx9_plus = g >= G::Gfx9;
    let gfx9_gfx10 = gfx9_plus && !gfx11_plus;
    Some(match msg {
        1 => "INTERRUPT",
        2 if !gfx11_plus => "GS",
        3 if !gfx11_plus => "GS_DONE",
        2 if gfx11_plus => "HS_TESSFACTOR",
        3 if gfx11_plus => "DEALLOC_VGPRS",
        4 if !gfx11_plus => "SAVEWAVE",
        5 if gfx9_plus && g < G::Gfx12 => "STALL_WAVE_GEN",
        6 if gfx9_plus && g < G::Gfx12 => "HALT_WAVES",
        7 if gfx9_gfx10 => "ORDERED_PS_DONE",
        8 if gfx9_gfx10 => "EARLY_PRIM_DEALLOC",
        9 if gfx9_plus => "GS_ALLOC_REQ",
        10 if gfx9_gfx10 => "GET_DOORBELL",
        11 if is_gfx10(g) => "GET_DDID",
        15 if !gfx11_plus => "SYSMSG",
        128 if gfx11_plus => "RTN_GET_DOORBELL",
        129 if gfx11_plus => "RTN_GET_DDID",
        130 if gfx11_plus => "RTN_GET_TMA",
        131 if gfx11_plus => "RTN_GET_REALTIME",
        132 if gfx11_plus => "RTN_SAVE_WAVE",
        133 if gfx11_plus => "RTN_GET_TBA",
        134 if gfx11_plus => "RTN_GET_TBA_TO_PC",
        135 if g >= G::Gfx12 => "RTN_GET_SE_AID_ID",
        // LLVM 22, GFX1250 only.
        10 if g == G::Gfx1250 => "SAVEWAVE_HAS_TDM",
        136 if g == G::Gfx1250 => "RTN_GET_CLUSTER_BARRIER_STATE",
        _ => return None,
    })
}

/// `printEndpgm`: nothing for 0, else ` N` (`s_endpgm 3`).
fn endpgm(out: &mut String, _ctx: &Ctx<'_>, v: i64) {
    let v = v & 0xffff;
    if v != 0 {
        let _ = write!(out, " {v}");
    }
}

/// `printGPRIdxMode`: `gpr_idx(SRC0,SRC1,SRC2,DST)` for the set bits, or hex when any bit
/// above 3 is set.
fn gpr_idx_mode(out: &mut String, _ctx: &Ctx<'_>, v: i64) {
    if v & !0xf != 0 {
        let _ = write!(out, "0x{:x}", v as u64);
        return;
    }
    out.push_str("gpr_idx(");
    let names: Vec<&str> = ["SRC0", "SRC1", "SRC2", "DST"]
        .iter()
        .enumerate()
        .filter(|(i, _)| v & (1 << i) != 0)
        .map(|(_, n)| *n)
        .collect();
    out.push_str(&names.join(","));
    out.push(')');
}

/// printWaitVDST / printWaitEXP / printWaitVAVDst / printWaitVMVSrc: ` name:N`, printed even
/// when 0 (`printU4ImmDecOperand`).
fn wait_field(out: &mut String, name: &str, v: i64) {
    let _ = write!(out, " {name}:{}", v & 0xf);
}

/// `printInterpSlot`: `p10`, `p20`, `p0`, else `invalid_param_N`.
fn interp_slot(out: &mut String, _ctx: &Ctx<'_>, v: i64) {
    match v {
        0 => out.push_str("p10"),
        1 => out.push_str("p20"),
        2 => out.push_str("p0"),
        _ => {
            let _ = write!(out, "invalid_param_{}", v as u32);
        }
    }
}

/// `printSMEMOffset`: LLVM's `formatHex` of the decoded (already sign-extended) offset:
/// `0x24`, `-0x10`.
fn smem_offset(out: &mut String, _ctx: &Ctx<'_>, v: i64) {
    if v < 0 {
        let _ = write!(out, "-0x{:x}", v.unsigned_abs());
    } else {
        let _ = write!(out, "0x{v:x}");
    }
}

/// `s_version` (see [`print_version`]).
fn version(out: &mut String, _ctx: &Ctx<'_>, v: i64) {
    const W64: i64 = 0x2000;
    const W32: i64 = 0x4000;
    const MDP: i64 = 0x8000;
    let v = v & 0xffff;
    if v & !(0xff | W64 | W32 | MDP) != 0 {
        let _ = write!(out, "0x{v:x}");
        return;
    }
    let mut expr = match v & 0xff {
        0 => "UC_VERSION_GFX7".to_owned(),
        4 => "UC_VERSION_GFX10".to_owned(),
        6 => "UC_VERSION_GFX11".to_owned(),
        9 => "UC_VERSION_GFX12".to_owned(),
        n => n.to_string(),
    };
    // MCBinaryExpr prints a binary left operand in parentheses.
    let mut binary = false;
    for (bit, name) in [
        (W64, "UC_VERSION_W64_BIT"),
        (W32, "UC_VERSION_W32_BIT"),
        (MDP, "UC_VERSION_MDP_BIT"),
    ] {
        if v & bit != 0 {
            expr = if binary {
                format!("({expr})|{name}")
            } else {
                format!("{expr}|{name}")
            };
            binary = true;
        }
    }
    out.push_str(&expr);
}

#[cfg(test)]
mod tests {
    use crate::isa::{Decoder, Target, print};

    /// Decodes `words` on `cpu` and prints the instruction as `print_cpu` (normally the same CPU).
    fn dis_as(cpu: &str, print_cpu: &str, words: &[u32]) -> String {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let inst = Decoder::new(Target::from_name(cpu, "").unwrap()).decode(&bytes);
        print::print(&inst, &Target::from_name(print_cpu, "").unwrap(), 0)
            .trim_start()
            .to_owned()
    }

    /// (cpu, instruction dwords, text): every expectation is `llvm-mc-19 --disassemble` output.
    fn check(cases: &[(&str, &[u32], &str)]) {
        for &(cpu, words, text) in cases {
            assert_eq!(dis_as(cpu, cpu, words), text, "{cpu} {words:08x?}");
        }
    }

    #[test]
    fn waitcnt_layout_per_generation() {
        check(&[
            ("gfx900", &[0xbf8c0f7f], "s_waitcnt vmcnt(15)"),
            (
                "gfx803",
                &[0xbf8cffff],
                "s_waitcnt vmcnt(15) expcnt(7) lgkmcnt(15)",
            ),
            ("gfx1030", &[0xbf8ccf7f], "s_waitcnt lgkmcnt(15)"),
            ("gfx1100", &[0xbf89fc07], "s_waitcnt lgkmcnt(0)"),
            ("gfx1100", &[0xbf8903f7], "s_waitcnt vmcnt(0)"),
            (
                "gfx1200",
                &[0xbf890000],
                "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)",
            ),
        ]);
    }

    #[test]
    fn depctr_fields_and_hex_fallback() {
        check(&[
            ("gfx1010", &[0xbfa3ffe3], "s_waitcnt_depctr 0xffe3"),
            ("gfx1010", &[0xbfa3ff83], "s_waitcnt_depctr 0xff83"),
            (
                "gfx1030",
                &[0xbfa3ff83],
                "s_waitcnt_depctr depctr_vm_vsrc(0)",
            ),
            (
                "gfx1030",
                &[0xbfa3ff9f],
                "s_waitcnt_depctr depctr_hold_cnt(1) depctr_sa_sdst(1) depctr_va_vdst(15) depctr_va_sdst(7) depctr_va_ssrc(1) depctr_va_vcc(1) depctr_vm_vsrc(7)",
            ),
            ("gfx1200", &[0xbf880fff], "s_wait_alu 0xfff"),
        ]);
    }

    #[test]
    fn delay_alu() {
        check(&[
            (
                "gfx1100",
                &[0xbf8700a1],
                "s_delay_alu instid0(VALU_DEP_1) | instskip(SKIP_1) | instid1(VALU_DEP_1)",
            ),
            (
                "gfx1100",
                &[0xbf87000c],
                "s_delay_alu instid0(/* invalid instid value */)",
            ),
            (
                "gfx1100",
                &[0xbf870070],
                "s_delay_alu instskip(/* invalid instskip value */)",
            ),
            ("gfx1100", &[0xbf870000], "s_delay_alu 0"),
        ]);
    }

    #[test]
    fn hwreg_names_per_generation() {
        check(&[
            (
                "gfx900",
                &[0xb880f801],
                "s_getreg_b32 s0, hwreg(HW_REG_MODE)",
            ),
            (
                "gfx900",
                &[0xb8800041],
                "s_getreg_b32 s0, hwreg(HW_REG_MODE, 1, 1)",
            ),
            ("gfx1200", &[0xb880f81a], "s_getreg_b32 s0, hwreg(26)"),
            (
                "gfx942",
                &[0xb880f814],
                "s_getreg_b32 s0, hwreg(HW_REG_XCC_ID)",
            ),
            (
                "gfx1010",
                &[0xb900f816],
                "s_getreg_b32 s0, hwreg(HW_REG_XNACK_MASK)",
            ),
            ("gfx1030", &[0xb900f816], "s_getreg_b32 s0, hwreg(22)"),
            (
                "gfx1100",
                &[0xb880f812],
                "s_getreg_b32 s0, hwreg(HW_REG_PERF_SNAPSHOT_PC_LO)",
            ),
        ]);
    }

    #[test]
    fn sendmsg_named_numeric_and_plain() {
        check(&[
            (
                "gfx900",
                &[0xbf900022],
                "s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT, 0)",
            ),
            ("gfx900", &[0xbf90003f], "s_sendmsg sendmsg(15, 3, 0)"),
            (
                "gfx900",
                &[0xbf900003],
                "s_sendmsg sendmsg(MSG_GS_DONE, GS_OP_NOP)",
            ),
            (
                "gfx900",
                &[0xbf900122],
                "s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT, 1)",
            ),
            (
                "gfx803",
                &[0xbf90003f],
                "s_sendmsg sendmsg(MSG_SYSMSG, SYSMSG_OP_HOST_TRAP_ACK)",
            ),
            (
                "gfx1100",
                &[0xbfb60103],
                "s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)",
            ),
            ("gfx1100", &[0xbfb60087], "s_sendmsg sendmsg(135, 0, 0)"),
            (
                "gfx1200",
                &[0xbfb60087],
                "s_sendmsg sendmsg(MSG_RTN_GET_SE_AID_ID)",
            ),
        ]);
    }

    #[test]
    fn endpgm_and_branch_operands() {
        check(&[
            ("gfx900", &[0xbf810003], "s_endpgm 3"),
            ("gfx900", &[0xbf810000], "s_endpgm"),
            ("gfx900", &[0xbf82ff72], "s_branch 65394"),
            ("gfx1100", &[0xbfa00005], "s_branch 5"),
        ]);
    }

    #[test]
    fn s_version_expressions() {
        check(&[
            (
                "gfx1100",
                &[0xb0806006],
                "s_version (UC_VERSION_GFX11|UC_VERSION_W64_BIT)|UC_VERSION_W32_BIT",
            ),
            ("gfx1100", &[0xb080000a], "s_version 10"),
            ("gfx1100", &[0xb0800100], "s_version 0x100"),
        ]);
    }

    #[test]
    fn gpr_idx_mode() {
        check(&[
            ("gfx900", &[0xbf9d0000], "s_set_gpr_idx_mode gpr_idx()"),
            (
                "gfx900",
                &[0xbf9d0005],
                "s_set_gpr_idx_mode gpr_idx(SRC0,SRC2)",
            ),
            ("gfx900", &[0xbf9d0010], "s_set_gpr_idx_mode 0x10"),
            (
                "gfx900",
                &[0xbf110f00],
                "s_set_gpr_idx_on s0, gpr_idx(SRC0,SRC1,SRC2,DST)",
            ),
        ]);
    }

    #[test]
    fn interp_and_lds_waits() {
        check(&[
            (
                "gfx803",
                &[0xd4020005],
                "v_interp_mov_f32_e32 v0, invalid_param_5, attr0.x",
            ),
            (
                "gfx803",
                &[0xd4000a01],
                "v_interp_p1_f32_e32 v0, v1, attr2.z",
            ),
            (
                "gfx1030",
                &[0xc80a0100],
                "v_interp_mov_f32_e32 v2, p10, attr0.y",
            ),
            (
                "gfx1100",
                &[0xce030901],
                "lds_param_load v1, attr2.y wait_vdst:3",
            ),
            (
                "gfx1200",
                &[0xce830901],
                "ds_param_load v1, attr2.y wait_va_vdst:3 wait_vm_vsrc:1",
            ),
            (
                "gfx1100",
                &[0xcd000600, 0x040e0501],
                "v_interp_p10_f32 v0, v1, v2, v3 wait_exp:6",
            ),
            (
                "gfx1100",
                &[0xcd000000, 0x040e0501],
                "v_interp_p10_f32 v0, v1, v2, v3 wait_exp:0",
            ),
        ]);
    }

    #[test]
    fn smem_offsets() {
        check(&[
            (
                "gfx900",
                &[0xc0020042, 0x001ffff0],
                "s_load_dword s1, s[4:5], -0x10",
            ),
            (
                "gfx803",
                &[0xc0020042, 0x000ffff0],
                "s_load_dword s1, s[4:5], 0xffff0",
            ),
            (
                "gfx900",
                &[0xc0024042, 0x0c000000],
                "s_load_dword s1, s[4:5], s6 offset:0x0",
            ),
            (
                "gfx1030",
                &[0xf4000042, 0xfa000024],
                "s_load_dword s1, s[4:5], 0x24",
            ),
            (
                "gfx1200",
                &[0xf4000042, 0xf87ffff0],
                "s_load_b32 s1, s[4:5], 0x7ffff0",
            ),
            (
                "gfx1200",
                &[0xf4000042, 0x0c000010],
                "s_load_b32 s1, s[4:5], s6 offset:0x10",
            ),
        ]);
    }

    /// GFX1250 (LLVM 22 names, checked with `llvm-mc-22 --mcpu=gfx1250`): decoded with the
    /// identical GFX12 encodings, printed for GFX1250.
    #[test]
    fn gfx1250_names_follow_llvm22() {
        assert_eq!(
            dis_as("gfx1200", "gfx1250", &[0xb880f801]),
            "s_getreg_b32 s0, hwreg(HW_REG_WAVE_MODE)"
        );
        assert_eq!(
            dis_as("gfx1200", "gfx1250", &[0xb880f81c]),
            "s_getreg_b32 s0, hwreg(HW_REG_IB_STS2)"
        );
        assert_eq!(
            dis_as("gfx1200", "gfx1250", &[0xbfb6000a]),
            "s_sendmsg sendmsg(MSG_SAVEWAVE_HAS_TDM)"
        );
        assert_eq!(
            dis_as("gfx1200", "gfx1250", &[0xbfb60088]),
            "s_sendmsg sendmsg(MSG_RTN_GET_CLUSTER_BARRIER_STATE)"
        );
    }

    #[test]
    fn branch_target_address() {
        let target = Target::from_name("gfx900", "").unwrap();
        let inst = Decoder::new(target).decode(&0xbf82ff72u32.to_le_bytes());
        // 0x1000 + 4 + (-142 * 4)
        assert_eq!(
            super::branch_target(&inst, 0x1000),
            Some(0x1000 + 4 - 142 * 4)
        );
        let nop = Decoder::new(target).decode(&0xbf800000u32.to_le_bytes());
        assert_eq!(super::branch_target(&nop, 0x1000), None);
    }
}
