//! Print methods for VALU modifiers, as LLVM 19's `AMDGPUInstPrinter` writes them:
//!
//! * `printOperandAndFPInputMods` / `printOperandAndIntInputMods`: the `srcN_modifiers` operand
//!   wraps the source after it (`-v1`, `|v2|`, `-|v3|`, `neg(1.0)`, `sext(v1)`); the source
//!   itself is printed by [`super::operand::print_regular`];
//! * `printOModSI` (` mul:2`, ` mul:4`, ` div:2`);
//! * `printOpSel`, `printOpSelHi`, `printNegLo`, `printNegHi`: LLVM's `printPackedModifier`,
//!   which reads the bits back out of the `srcN_modifiers` operands (the `op_sel`... operands
//!   themselves carry nothing the printer uses), with VOP3P's `op_sel_hi` default of 1 for
//!   packed instructions, the VOP3 destination select, WMMA's three values and the
//!   `v_permlane16` / `v_cvt_f32_fp8` special forms;
//! * `printByteSel`, `printCBSZ`, `printABID`, `printBLGP` (gfx940 `neg:[...]` for the F64
//!   MFMAs), `printIndexKey{8,16,32}bit`, the GFX1250 `printMatrix*` formats, `printBitOp3`,
//!   and the `printNamedInt` lambdas (`byte_sel`, `scale_sel`).

use std::fmt::Write as _;

use super::Ctx;
use crate::isa::operand::Value;
use crate::isa::processor::Generation;
use crate::isa::table::{Encoding, OperandName, flag, implicit};

/// LLVM's `SISrcMods` bits of a `srcN_modifiers` operand.
mod src_mods {
    pub const NEG: i64 = 1 << 0;
    pub const ABS: i64 = 1 << 1;
    pub const SEXT: i64 = 1 << 0;
    pub const NEG_HI: i64 = ABS;
    pub const OP_SEL_0: i64 = 1 << 2;
    pub const OP_SEL_1: i64 = 1 << 3;
    pub const DST_OP_SEL: i64 = 1 << 3;
}

/// Prints operand `index` with LLVM print method `method` if this module implements it.
pub fn print(out: &mut String, ctx: &Ctx<'_>, index: usize, method: &str) -> bool {
    match method {
        "printOperandAndFPInputMods" => fp_input_mods(out, ctx, index),
        "printOperandAndIntInputMods" => int_input_mods(out, ctx, index),
        "printOModSI" => match imm(ctx, index) {
            1 => out.push_str(" mul:2"),
            2 => out.push_str(" mul:4"),
            3 => out.push_str(" div:2"),
            _ => {}
        },
        "printOpSel" => op_sel(out, ctx),
        "printOpSelHi" => packed_modifier(out, ctx, " op_sel_hi:[", src_mods::OP_SEL_1),
        "printNegLo" => packed_modifier(out, ctx, " neg_lo:[", src_mods::NEG),
        "printNegHi" => packed_modifier(out, ctx, " neg_hi:[", src_mods::NEG_HI),
        "printByteSel" => {
            // LLVM reads the operand as uint8_t.
            let v = imm(ctx, index) as u8;
            if v != 0 {
                let _ = write!(out, " byte_sel:{v}");
            }
        }
        "printCBSZ" => named_unsigned(out, " cbsz:", imm(ctx, index)),
        "printABID" => named_unsigned(out, " abid:", imm(ctx, index)),
        "printBLGP" => blgp(out, ctx, imm(ctx, index)),
        "printIndexKey8bit" | "printIndexKey16bit" | "printIndexKey32bit" => {
            let v = imm(ctx, index) & 7;
            if v != 0 {
                let _ = write!(out, " index_key:{v}");
            }
        }
        "printMatrixAFMT" => matrix_fmt(out, 'a', imm(ctx, index)),
        "printMatrixBFMT" => matrix_fmt(out, 'b', imm(ctx, index)),
        "printMatrixAScale" => matrix_scale(out, 'a', imm(ctx, index)),
        "printMatrixBScale" => matrix_scale(out, 'b', imm(ctx, index)),
        "printMatrixAScaleFmt" => matrix_scale_fmt(out, 'a', imm(ctx, index)),
        "printMatrixBScaleFmt" => matrix_scale_fmt(out, 'b', imm(ctx, index)),
        "printBitOp3" => {
            let v = imm(ctx, index) as u8;
            if v != 0 {
                if v <= 10 {
                    let _ = write!(out, " bitop3:{v}");
                } else {
                    let _ = write!(out, " bitop3:{v:#x}");
                }
            }
        }
        "printScaleSel" => {
            let v = imm(ctx, index) as u8;
            if v != 0 {
                let _ = write!(out, " scale_sel:{v}");
            }
        }
        _ => match parse_named_int(method) {
            Some(named) => named_int(out, imm(ctx, index), named),
            None => return false,
        },
    }
    true
}

/// The immediate of operand `index`; modifier and control operands always hold one (0 when the
/// decoder filled the operand in).
fn imm(ctx: &Ctx<'_>, index: usize) -> i64 {
    match ctx.ops.as_slice().get(index).map(|o| o.value) {
        Some(Value::Imm(v)) => v,
        _ => 0,
    }
}

/// The immediate of the named operand, if the encoding has it.
fn named_imm(ctx: &Ctx<'_>, name: OperandName) -> Option<i64> {
    ctx.encoding.operand_index(name).map(|i| imm(ctx, i))
}

/// LLVM's `formatDec` of an `unsigned` operand, after a prefix, when non-zero.
fn named_unsigned(out: &mut String, prefix: &str, v: i64) {
    let v = v as u32;
    if v != 0 {
        let _ = write!(out, "{prefix}{v}");
    }
}

/// Whether the record is `opcode` + `suffix` named `name` (LLVM's record name).
fn record_is(e: &Encoding, name: &str) -> bool {
    let opcode = e.opcode.name();
    name.len() == opcode.len() + e.suffix.len()
        && name.starts_with(opcode)
        && name.ends_with(e.suffix)
}

// ---------------------------------------------------------------------------------------------
// Input modifiers.

/// LLVM's `needsImpliedVcc`: the first operand of a VOPC DPP that writes VCC is preceded by the
/// implicit `vcc`/`vcc_lo` destination.
fn needs_implied_vcc(e: &Encoding, index: usize) -> bool {
    index == 0
        && e.flags.has(flag::DPP)
        && e.flags.has(flag::VOPC)
        && !is_vopc_asm_only(e)
        && e.defs.has(implicit::VCC)
}

/// The VOPC DPP records that exist only for the assembler (`*_w32`, `*_w64`): their asm already
/// spells the vcc operand out. The decoder never picks them; LLVM 22 excludes them explicitly.
fn is_vopc_asm_only(e: &Encoding) -> bool {
    let name = e.opcode.name();
    name.contains("_w32") || name.contains("_w64")
}

/// LLVM's `printDefaultVccOperand`.
fn default_vcc(out: &mut String, ctx: &Ctx<'_>, first_operand: bool) {
    if !first_operand {
        out.push_str(", ");
    }
    out.push_str(if ctx.target.wave64 { "vcc" } else { "vcc_lo" });
    if first_operand {
        out.push_str(", ");
    }
}

/// Prints the source operand after the modifiers at `index`.
fn wrapped_source(out: &mut String, ctx: &Ctx<'_>, index: usize) {
    super::operand::print_regular(out, ctx, index + 1);
}

/// `printOperandAndFPInputMods`: `-`/`neg(...)` and `|...|` around the following source.
fn fp_input_mods(out: &mut String, ctx: &Ctx<'_>, index: usize) {
    let e = ctx.encoding;
    if needs_implied_vcc(e, index) {
        default_vcc(out, ctx, true);
    }
    let mods = imm(ctx, index);
    // `neg(...)` instead of `-` for constants: -1 is not the same value as neg(1).
    let mut neg_mnemonic = false;
    if mods & src_mods::NEG != 0 {
        if mods & src_mods::ABS == 0
            && let Some(source) = ctx.ops.as_slice().get(index + 1)
        {
            neg_mnemonic = is_immediate(source.value)
                && super::operand::literal_expr(ctx, index + 1, source.value).is_none();
        }
        out.push_str(if neg_mnemonic { "neg(" } else { "-" });
    }
    if mods & src_mods::ABS != 0 {
        out.push('|');
    }
    wrapped_source(out, ctx, index);
    if mods & src_mods::ABS != 0 {
        out.push('|');
    }
    if neg_mnemonic {
        out.push(')');
    }
    // The carry-in of VOP2b forms printed through modifiers.
    if (record_is(e, "V_CNDMASK_B32_sdwa_gfx10")
        || record_is(e, "V_CNDMASK_B32_dpp_gfx10")
        || record_is(e, "V_CNDMASK_B32_dpp_gfx11"))
        && e.operand_index(OperandName::src1) == Some(index + 1)
    {
        default_vcc(out, ctx, index == 0);
    }
}

/// `printOperandAndIntInputMods`: `sext(...)` around the following source.
fn int_input_mods(out: &mut String, ctx: &Ctx<'_>, index: usize) {
    let e = ctx.encoding;
    if needs_implied_vcc(e, index) {
        default_vcc(out, ctx, true);
    }
    // SISrcMods::SEXT is bit 4; LLVM 19's SDWA records put the encoded sext bit at bit 0 of
    // the modifiers (and its printer agreed), LLVM 22's at bit 4.
    let sext_bit = if e.llvm == 22 { 1 << 4 } else { src_mods::SEXT };
    let sext = imm(ctx, index) & sext_bit != 0;
    if sext {
        out.push_str("sext(");
    }
    wrapped_source(out, ctx, index);
    if sext {
        out.push(')');
    }
    if (record_is(e, "V_ADD_CO_CI_U32_sdwa_gfx10")
        || record_is(e, "V_SUB_CO_CI_U32_sdwa_gfx10")
        || record_is(e, "V_SUBREV_CO_CI_U32_sdwa_gfx10"))
        && e.operand_index(OperandName::src1) == Some(index + 1)
    {
        default_vcc(out, ctx, index == 0);
    }
}

/// Whether LLVM's MCInst holds this operand as an immediate (constants and literals) rather
/// than a register.
fn is_immediate(value: Value) -> bool {
    !matches!(value, Value::Reg(_) | Value::None)
}

// ---------------------------------------------------------------------------------------------
// op_sel / op_sel_hi / neg_lo / neg_hi.

/// Whether the encoding is a VOP3P one (packed math, dot, mix, MFMA/WMMA): its first dword
/// carries the VOP3P prefix (GFX8/9 `0b110100111`, GFX10+ `0xCC`). LLVM's TSFlags say so, but
/// the record flags we have do not carry VOP3P for every generation.
fn is_vop3p(e: &Encoding, generation: Generation) -> bool {
    if e.flags.has(flag::VOP3P) {
        return true;
    }
    if !e.flags.has(flag::VOP3) {
        return false;
    }
    let word = e.value as u32;
    if generation.is_gfx10_plus() {
        word >> 24 == 0xcc
    } else {
        word & 0xff80_0000 == 0xd380_0000
    }
}

/// LLVM's `IsPacked`: VOP3P instructions other than the mixed-precision `v_{mad,fma}_mix*`.
fn is_packed(e: &Encoding, generation: Generation) -> bool {
    e.flags.has(flag::ISPACKED) || (is_vop3p(e, generation) && !e.opcode.name().contains("_MIX"))
}

/// LLVM's `IsWMMA` / `IsSWMMAC`.
fn is_wmma(e: &Encoding) -> bool {
    let name = e.opcode.name();
    name.starts_with("V_WMMA_") || name.starts_with("V_SWMMAC_")
}

/// LLVM's `isPermlane16`.
fn is_permlane16(e: &Encoding) -> bool {
    matches!(
        e.opcode.name(),
        "V_PERMLANE16_B32"
            | "V_PERMLANEX16_B32"
            | "V_PERMLANE16_B32_e64"
            | "V_PERMLANEX16_B32_e64"
            | "V_PERMLANE16_VAR_B32_e64"
            | "V_PERMLANEX16_VAR_B32_e64"
    ) && matches!(e.suffix, "_gfx10" | "_gfx11" | "_gfx12")
}

/// LLVM's `isCvt_F32_Fp8_Bf8_e64`: the GFX12 VOP3 `v_cvt_f32_{fp8,bf8}` forms.
fn is_cvt_f32_fp8_bf8_e64(e: &Encoding) -> bool {
    matches!(
        e.opcode.name(),
        "V_CVT_F32_BF8_e64"
            | "V_CVT_F32_FP8_e64"
            | "V_CVT_F32_BF8_e64_dpp"
            | "V_CVT_F32_FP8_e64_dpp"
            | "V_CVT_F32_BF8_e64_dpp8"
            | "V_CVT_F32_FP8_e64_dpp8"
    ) && e.suffix == "_gfx12"
}

/// `printOpSel`.
fn op_sel(out: &mut String, ctx: &Ctx<'_>) {
    let e = ctx.encoding;
    if is_cvt_f32_fp8_bf8_e64(e) {
        let mods = named_imm(ctx, OperandName::src0_modifiers).unwrap_or(0);
        let index0 = u8::from(mods & src_mods::OP_SEL_0 != 0);
        let index1 = u8::from(mods & src_mods::OP_SEL_1 != 0);
        if index0 != 0 || index1 != 0 {
            let _ = write!(out, " op_sel:[{index0},{index1}]");
        }
        return;
    }
    if is_permlane16(e) {
        let fi = u8::from(
            named_imm(ctx, OperandName::src0_modifiers).unwrap_or(0) & src_mods::OP_SEL_0 != 0,
        );
        let bc = u8::from(
            named_imm(ctx, OperandName::src1_modifiers).unwrap_or(0) & src_mods::OP_SEL_0 != 0,
        );
        if fi != 0 || bc != 0 {
            let _ = write!(out, " op_sel:[{fi},{bc}]");
        }
        return;
    }
    packed_modifier(out, ctx, " op_sel:[", src_mods::OP_SEL_0);
}

/// LLVM's `printPackedModifier`: one bit per source (`src0`..`src2`, stopping at the first
/// missing one), read from its modifiers operand; printed only when some bit differs from the
/// default (`op_sel_hi` defaults to 1 on packed instructions, everything else to 0).
fn packed_modifier(out: &mut String, ctx: &Ctx<'_>, name: &str, modifier: i64) {
    let e = ctx.encoding;
    let generation = ctx.target.generation();
    // A source without a modifiers operand counts as LLVM's `DefaultValue`: the integer 1 for
    // op_sel_hi (whose bit, 8, it does not have), else 0.
    let default_value = i64::from(modifier == src_mods::OP_SEL_1);
    let sources = [
        (OperandName::src0_modifiers, OperandName::src0),
        (OperandName::src1_modifiers, OperandName::src1),
        (OperandName::src2_modifiers, OperandName::src2),
    ];
    let mut ops = [0i64; 3];
    let mut count = 0;
    if is_wmma(e) {
        // WMMA/SWMMAC always print three values.
        for (mods, _) in sources {
            ops[count] = named_imm(ctx, mods).unwrap_or(default_value);
            count += 1;
        }
    } else {
        for (mods, source) in sources {
            if e.operand_index(source).is_none() {
                break;
            }
            ops[count] = named_imm(ctx, mods).unwrap_or(default_value);
            count += 1;
        }
    }
    let vop3p = is_vop3p(e, generation);
    // VOP3 (not VOP3P) instructions with op_sel also select the destination half.
    // (LLVM's VOP3_OPSEL flag: v_cmpx, which has no destination, and the v_cmp VOP3 DPP forms,
    // whose op_sel LLVM's convertVOPC64DPPInst rebuilds from the sources, do not have it.)
    let opcode = e.opcode.name();
    let vopc64_dpp = opcode.starts_with("V_CMPX")
        || (e.flags.has(flag::DPP) && e.flags.has(flag::VOP3) && opcode.starts_with("V_CMP"));
    let has_dst_sel = count > 0
        && modifier == src_mods::OP_SEL_0
        && !vop3p
        && !vopc64_dpp
        && e.operand_index(OperandName::op_sel).is_some();
    let default_bit = is_packed(e, generation) && modifier == src_mods::OP_SEL_1;
    let all_default = ops[..count]
        .iter()
        .all(|&v| (v & modifier != 0) == default_bit)
        && !(has_dst_sel && ops[0] & src_mods::DST_OP_SEL != 0);
    if all_default {
        return;
    }
    out.push_str(name);
    for (i, v) in ops[..count].iter().enumerate() {
        if i != 0 {
            out.push(',');
        }
        out.push(if v & modifier != 0 { '1' } else { '0' });
    }
    if has_dst_sel {
        out.push(',');
        out.push(if ops[0] & src_mods::DST_OP_SEL != 0 {
            '1'
        } else {
            '0'
        });
    }
    out.push(']');
}

// ---------------------------------------------------------------------------------------------
// MFMA, WMMA and other named integers.

/// `printBLGP`: on gfx940 the F64 MFMAs use the field as `neg:[a,b,c]`.
fn blgp(out: &mut String, ctx: &Ctx<'_>, v: i64) {
    let v = v as u32;
    if v == 0 {
        return;
    }
    if matches!(
        ctx.target.generation(),
        Generation::Gfx940 | Generation::Gfx950
    ) {
        let e = ctx.encoding;
        let f64_mfma = [
            "V_MFMA_F64_16X16X4F64_gfx940_acd",
            "V_MFMA_F64_16X16X4F64_gfx940_vcd",
            "V_MFMA_F64_4X4X4F64_gfx940_acd",
            "V_MFMA_F64_4X4X4F64_gfx940_vcd",
        ];
        if f64_mfma.iter().any(|name| record_is(e, name)) {
            let _ = write!(out, " neg:[{},{},{}]", v & 1, (v >> 1) & 1, (v >> 2) & 1);
            return;
        }
    }
    let _ = write!(out, " blgp:{v}");
}

/// `printMatrixFMT` (GFX1250 WMMA `matrix_a_fmt` / `matrix_b_fmt`).
fn matrix_fmt(out: &mut String, a_or_b: char, v: i64) {
    let v = v & 7;
    if v == 0 {
        return;
    }
    let _ = write!(out, " matrix_{a_or_b}_fmt:");
    match v {
        1 => out.push_str("MATRIX_FMT_BF8"),
        2 => out.push_str("MATRIX_FMT_FP6"),
        3 => out.push_str("MATRIX_FMT_BF6"),
        4 => out.push_str("MATRIX_FMT_FP4"),
        _ => {
            let _ = write!(out, "{v}");
        }
    }
}

/// `printMatrixScale` (GFX1250 `matrix_a_scale` / `matrix_b_scale`).
fn matrix_scale(out: &mut String, a_or_b: char, v: i64) {
    if v & 1 != 0 {
        let _ = write!(out, " matrix_{a_or_b}_scale:MATRIX_SCALE_ROW1");
    }
}

/// `printMatrixScaleFmt` (GFX1250 `matrix_a_scale_fmt` / `matrix_b_scale_fmt`).
fn matrix_scale_fmt(out: &mut String, a_or_b: char, v: i64) {
    let v = v & 3;
    if v == 0 {
        return;
    }
    let _ = write!(out, " matrix_{a_or_b}_scale_fmt:");
    match v {
        1 => out.push_str("MATRIX_SCALE_FMT_E5M3"),
        2 => out.push_str("MATRIX_SCALE_FMT_E4M3"),
        _ => {
            let _ = write!(out, "{v}");
        }
    }
}

/// The arguments of a `printNamedInt` lambda print method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct NamedInt<'a> {
    prefix: &'a str,
    hex: bool,
    always: bool,
}

/// Parses `[this](...) { printNamedInt(MI, OpNo, STI, O, "byte_sel", false, false); }`.
fn parse_named_int(method: &str) -> Option<NamedInt<'_>> {
    let args = method.split_once("printNamedInt(")?.1;
    let args = args.split_once(')')?.0;
    let mut parts = args.split(',').map(str::trim).skip(4);
    let prefix = parts.next()?.trim_matches('"');
    let flag = |s: Option<&str>| s.map(|s| s == "true");
    let hex = flag(parts.next()).unwrap_or(false);
    let always = flag(parts.next()).unwrap_or(false);
    Some(NamedInt {
        prefix,
        hex,
        always,
    })
}

/// `printNamedInt`: ` prefix:value`, decimal or hex, when non-zero (or always).
fn named_int(out: &mut String, v: i64, named: NamedInt<'_>) {
    if !named.always && v == 0 {
        return;
    }
    let _ = write!(out, " {}:", named.prefix);
    match (named.hex, v < 0) {
        (true, false) => {
            let _ = write!(out, "{v:#x}");
        }
        (true, true) => {
            let _ = write!(out, "-{:#x}", v.unsigned_abs());
        }
        (false, _) => {
            let _ = write!(out, "{v}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{Decoder, Target, print};

    /// Decodes `bytes` on `cpu` (LLVM's default features: wave32 on GFX10+) and prints the
    /// first instruction.
    fn dis(cpu: &str, bytes: &[u8]) -> String {
        let target = Target::from_name(cpu, "").unwrap();
        let inst = Decoder::new(target).decode(bytes);
        print::print(&inst, &target, 0)
    }

    /// Vectors checked with `llvm-mc-19 --disassemble -mcpu=<cpu>`.
    const VECTORS: &[(&str, &[u8], &str)] = &[
        // neg/abs, clamp, omod; `neg(...)` on a constant; abs of an integer constant.
        (
            "gfx900",
            &[0x00, 0x83, 0x01, 0xd1, 0x01, 0x05, 0x02, 0x28],
            "v_add_f32_e64 v0, -|v1|, |v2| clamp mul:2",
        ),
        (
            "gfx900",
            &[0x00, 0x00, 0x01, 0xd1, 0xf2, 0x04, 0x02, 0x78],
            "v_add_f32_e64 v0, neg(1.0), -v2 div:2",
        ),
        (
            "gfx900",
            &[0x00, 0x01, 0x01, 0xd1, 0x82, 0x04, 0x02, 0x30],
            "v_add_f32_e64 v0, -|2|, v2 mul:4",
        ),
        (
            "gfx900",
            &[0xfa, 0x04, 0x00, 0x02, 0x01, 0xe4, 0xb0, 0xff],
            "v_add_f32_dpp v0, -|v1|, |v2| quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
        ),
        // sext on SDWA integer sources.
        (
            "gfx900",
            &[0xf9, 0x04, 0x00, 0x68, 0x01, 0x06, 0x08, 0x06],
            "v_add_u32_sdwa v0, sext(v1), v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD",
        ),
        // VOP3 op_sel with the destination select as the last value.
        (
            "gfx900",
            &[0x00, 0x68, 0x06, 0xd2, 0x01, 0x05, 0x0e, 0x04],
            "v_fma_f16 v0, v1, v2, v3 op_sel:[1,0,1,1]",
        ),
        (
            "gfx1010",
            &[0x00, 0x58, 0x03, 0xd7, 0x01, 0x05, 0x02, 0x00],
            "v_add_nc_u16 v0, v1, v2 op_sel:[1,1,1]",
        ),
        (
            "gfx1100",
            &[0x00, 0x2a, 0x02, 0xcd, 0x01, 0x05, 0x0e, 0x04],
            "v_interp_p10_f16_f32 v0, v1, v2, v3 op_sel:[1,0,1,0] wait_exp:2",
        ),
        // Packed math: op_sel_hi defaults to 1, printed only when it differs.
        (
            "gfx900",
            &[0x00, 0xca, 0x8f, 0xd3, 0x01, 0x05, 0x02, 0x30],
            "v_pk_add_f16 v0, v1, v2 op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[1,0] neg_hi:[0,1] clamp",
        ),
        (
            "gfx900",
            &[0x00, 0x40, 0x8f, 0xd3, 0x01, 0x05, 0x02, 0x18],
            "v_pk_add_f16 v0, v1, v2",
        ),
        (
            "gfx90a",
            &[0x02, 0x40, 0xb1, 0xd3, 0x04, 0x05, 0x00, 0x10],
            "v_pk_mul_f32 v[2:3], v[4:5], s[2:3] op_sel_hi:[0,1]",
        ),
        (
            "gfx906",
            &[0x00, 0x40, 0xa8, 0xd3, 0x01, 0x05, 0x0e, 0x14],
            "v_dot4_i32_i8 v0, v1, v2, v3 op_sel_hi:[0,1,1]",
        ),
        (
            "gfx906",
            &[0x00, 0x40, 0xa3, 0xd3, 0x01, 0x05, 0x0e, 0xbc],
            "v_dot2_f32_f16 v0, v1, v2, v3 neg_lo:[1,0,1]",
        ),
        (
            "gfx1100",
            &[0x00, 0x42, 0x13, 0xcc, 0x01, 0x05, 0x0e, 0x1c],
            "v_dot2_f32_f16 v0, v1, v2, v3 neg_hi:[0,1,0]",
        ),
        // Mixed precision is not packed: op_sel_hi defaults to 0.
        (
            "gfx900",
            &[0x00, 0x08, 0xa0, 0xd3, 0x01, 0x05, 0x0e, 0x1c],
            "v_mad_mix_f32 v0, v1, v2, v3 op_sel:[1,0,0] op_sel_hi:[1,1,0]",
        ),
        // WMMA/SWMMAC: three values, a source without modifiers counting as default.
        (
            "gfx1100",
            &[0x00, 0x60, 0x42, 0xcc, 0x08, 0x21, 0x02, 0x14],
            "v_wmma_f16_16x16x16_f16 v[0:7], v[8:15], v[16:23], v[0:7] op_sel:[0,0,1] op_sel_hi:[0,1,1]",
        ),
        (
            "gfx1100",
            &[0x00, 0x41, 0x40, 0xcc, 0x08, 0x21, 0x02, 0x3c],
            "v_wmma_f32_16x16x16_f16 v[0:7], v[8:15], v[16:23], v[0:7] neg_lo:[1,0,0] neg_hi:[1,0,0]",
        ),
        (
            "gfx1200",
            &[0x00, 0x40, 0x44, 0xcc, 0x08, 0x15, 0x02, 0x7c],
            "v_wmma_i32_16x16x16_iu8 v[0:7], v[8:9], v[10:11], v[0:7] neg_lo:[1,1,0]",
        ),
        (
            "gfx1200",
            &[0x00, 0x48, 0x50, 0xcc, 0x08, 0x19, 0x52, 0x3c],
            "v_swmmac_f32_16x16x32_f16 v[0:7], v[8:11], v[12:19], v20 index_key:1 neg_lo:[1,0,0]",
        ),
        (
            "gfx1200",
            &[0x00, 0x40, 0x26, 0xcc, 0x01, 0x05, 0x0e, 0x9c],
            "v_dot4_f32_fp8_fp8 v0, v1, v2, v3 neg_lo:[0,0,1]",
        ),
        // v_permlane16: op_sel:[FI,BC] from the src0/src1 modifiers.
        (
            "gfx1010",
            &[0x00, 0x08, 0x77, 0xd7, 0x01, 0x05, 0x0c, 0x00],
            "v_permlane16_b32 v0, v1, s2, s3 op_sel:[1,0]",
        ),
        (
            "gfx1200",
            &[0x00, 0x08, 0xec, 0xd5, 0x01, 0x01, 0x00, 0x00],
            "v_cvt_f32_fp8_e64 v0, v1 byte_sel:2",
        ),
        // MFMA controls; gfx940 F64 MFMAs print blgp as neg.
        (
            "gfx908",
            &[0x00, 0x11, 0xc0, 0xd3, 0x00, 0x03, 0x02, 0x64],
            "v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31] cbsz:1 abid:2 blgp:3",
        ),
        (
            "gfx942",
            &[0x00, 0x00, 0xee, 0xd3, 0x00, 0x05, 0x02, 0xa4],
            "v_mfma_f64_16x16x4_f64 v[0:7], v[0:1], v[2:3], v[0:7] neg:[1,0,1]",
        ),
        // Implied vcc: VOPC DPP destination, carry-in after src1 of VOP2b DPP/SDWA.
        (
            "gfx1100",
            &[0xfa, 0x04, 0x24, 0x7c, 0x01, 0xe4, 0x90, 0xff],
            "v_cmp_eq_f32 vcc_lo, -v1, |v2| quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
        ),
        (
            "gfx1100",
            &[
                0x7e, 0x01, 0xfe, 0xd4, 0xfa, 0x04, 0x02, 0x20, 0x01, 0xe4, 0x00, 0xff,
            ],
            "v_cmpx_class_f32_e64_dpp -|v1|, v2 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
        ),
        (
            "gfx1010",
            &[0xfa, 0x04, 0x00, 0x02, 0x01, 0xe4, 0x90, 0xff],
            "v_cndmask_b32_dpp v0, -v1, |v2|, vcc_lo quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
        ),
        (
            "gfx1010",
            &[0xf9, 0x06, 0x02, 0x50, 0x02, 0x06, 0x08, 0x06],
            "v_add_co_ci_u32_sdwa v1, vcc_lo, sext(v2), v3, vcc_lo dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD",
        ),
    ];

    #[test]
    fn modifiers_print_like_llvm() {
        let mut failures = Vec::new();
        for &(cpu, bytes, expected) in VECTORS {
            let text = dis(cpu, bytes);
            if text.trim_start() != expected {
                failures.push(format!(
                    "{cpu} {bytes:02x?}: llvm `{expected}` ours `{}`",
                    text.trim_start()
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn named_int_lambda_is_parsed() {
        let m = "[this](const MCInst *MI, unsigned OpNo, const MCSubtargetInfo &STI, raw_ostream &O) { printNamedInt(MI, OpNo, STI, O, \"byte_sel\", false, false); }";
        assert_eq!(
            parse_named_int(m),
            Some(NamedInt {
                prefix: "byte_sel",
                hex: false,
                always: false
            })
        );
        assert_eq!(parse_named_int("printOpSel"), None);
        let mut s = String::new();
        named_int(
            &mut s,
            0,
            NamedInt {
                prefix: "x",
                hex: true,
                always: true,
            },
        );
        named_int(
            &mut s,
            26,
            NamedInt {
                prefix: "y",
                hex: true,
                always: false,
            },
        );
        named_int(
            &mut s,
            0,
            NamedInt {
                prefix: "z",
                hex: false,
                always: false,
            },
        );
        assert_eq!(s, " x:0x0 y:0x1a");
    }
}
