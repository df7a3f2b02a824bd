//! Print methods for the operands themselves, as LLVM 19's `AMDGPUInstPrinter` writes them:
//!
//! * `printOperand` / `printRegularOperand`: registers (with LLVM's `/*Invalid register...*/`
//!   remark for a register outside the operand's class), inline integer and float constants
//!   and literals, each by the operand's `OperandType` (`printImmediate32/64/Int16/F16/BF16/
//!   V216`), plain immediates (`s_nop 0x41`) and `/*Invalid immediate*/` for a constant in a
//!   register-only operand;
//! * `printVOPDst` (the `_e32`/`_e64`/`_dpp`/`_e64_dpp`/`_sdwa` suffix and the space after the
//!   mnemonic) and `printVINTRPDst`;
//! * the K-constant printers `printU16ImmOperand`, `printU32ImmOperand`, `printFP64ImmOperand`
//!   (always hex);
//! * the `vcc`/`vcc_lo` operands LLVM's printer inserts by itself (VOPC with an implicit VCC
//!   def, `v_cndmask_b32_e32`, the `v_*_co_ci_u32` carries);
//! * `printNamedBit`, used directly by `super::dispatch`.
//!
//! Other modules print an operand's value through [`print_regular`] (the whole
//! `printRegularOperand`, with its trailing vcc) or [`print_value`] (only the register or
//! constant).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

use super::Ctx;
use crate::isa::operand::Value;
use crate::isa::reg::{Reg, Special};
use crate::isa::table::{Encoding, OperandClass, OperandName, encodings, flag, implicit};

/// Prints operand `index` with LLVM print method `method` if this module implements it.
pub fn print(out: &mut String, ctx: &Ctx<'_>, index: usize, method: &str) -> bool {
    let class = ctx.encoding.operands.get(index).map(|o| o.class);
    match method {
        // Classes without a PrintMethod (plain register classes) use printOperand.
        "" | "printOperand" => {
            // Branch targets belong to the control-word printers.
            if class == Some(OperandClass::SOPPBrTarget) {
                return false;
            }
            print_operand(out, ctx, index);
        }
        "printRegularOperand" => print_regular(out, ctx, index),
        "printVOPDst" => print_vop_dst(out, ctx, index),
        "printVINTRPDst" => {
            // SI/CI print only the space; gfxpatch decodes GFX8 and later.
            out.push_str("_e32 ");
            print_regular(out, ctx, index);
        }
        "printU16ImmOperand" => {
            // s_version's operand is an expression printed by the control-word printers.
            if class == Some(OperandClass::VersionImm) {
                return false;
            }
            match imm_of(ctx, index) {
                Some(v) => print_u16_imm(out, v),
                None => print_regular(out, ctx, index),
            }
        }
        "printU32ImmOperand" => match imm_of(ctx, index) {
            Some(v) => print_u32_imm(out, v),
            None => print_regular(out, ctx, index),
        },
        "printFP64ImmOperand" => match imm_of(ctx, index) {
            Some(v) => print_fp64_imm(out, v as u64),
            None => print_regular(out, ctx, index),
        },
        _ => return false,
    }
    true
}

/// `printNamedBit`: the name when the bit is set.
pub fn print_named_bit(out: &mut String, ctx: &Ctx<'_>, index: usize, name: &str) {
    if let Value::Imm(v) = ctx.op(index).value
        && v != 0
    {
        out.push(' ');
        out.push_str(name);
    }
}

/// LLVM's `printRegularOperand`: the operand's register or constant, then the default
/// `vcc`/`vcc_lo` some carry-in forms print after src1. (LLVM's MTBUF format after `soffset`
/// is printed by [`super::memory::print_after_operand`].)
pub fn print_regular(out: &mut String, ctx: &Ctx<'_>, index: usize) {
    let Some(op) = ctx.ops.as_slice().get(index) else {
        let _ = write!(out, "/*Missing OP{index}*/");
        return;
    };
    print_value(out, ctx, index, op.value);

    let e = ctx.encoding;
    if vcc_after_src1(e) && e.operand_index(OperandName::src1) == Some(index) {
        print_default_vcc(out, ctx, index == 0);
    }
}

/// Prints `value` as operand `index` would hold it: a register (with LLVM's invalid-register
/// remark) or a constant formatted by the operand's type. Nothing else (no implicit vcc, no
/// MTBUF format).
pub fn print_value(out: &mut String, ctx: &Ctx<'_>, index: usize, value: Value) {
    let Some(operand) = ctx.encoding.operands.get(index) else {
        let _ = write!(out, "/*Missing OP{index}*/");
        return;
    };
    let class = operand.class;
    match value {
        Value::Reg(reg) => {
            push_reg(out, reg);
            if needs_remark(ctx, class, reg)
                && let Some(rc) = register_class(ctx, class)
            {
                let _ = write!(
                    out,
                    "/*Invalid register, operand has '{rc}' register class*/"
                );
            }
        }
        // LLVM's NoRegister never reaches a printed operand; make it visible if it does.
        Value::None => out.push_str("<noreg>"),
        _ => {
            if let Some(expr) = literal_expr(ctx, index, value) {
                out.push_str(&expr);
                return;
            }
            let imm = mc_immediate(class, value);
            if ctx.encoding.llvm == 22 {
                print_immediate_22(out, class, imm);
            } else {
                print_immediate(out, class, imm);
            }
        }
    }
}

/// LLVM 22 keeps a literal's encoding on disassembly: a 32-bit literal that the assembler would
/// turn into an inline constant of the operand's type prints as `lit(0x...)`, a 64-bit literal
/// (GFX1250, source 254) whose high half is zero as `lit64(0x...)` (else the 32-bit literal
/// form would be read back). Such an operand is an MCExpr, not an immediate: modifiers print
/// `-` before it, not `neg(...)`. None for LLVM 19 records, registers and inline constants.
pub fn literal_expr(ctx: &Ctx<'_>, index: usize, value: Value) -> Option<String> {
    if ctx.encoding.llvm != 22 {
        return None;
    }
    let ty = ctx.encoding.operands.get(index)?.class.info().operand_type;
    match value {
        Value::Literal(l) if literal_would_inline(ty, l) => Some(format!("lit({l:#x})")),
        Value::Literal64(v) if v >> 32 == 0 && !ty.starts_with("OPERAND_KIMM") => {
            Some(format!("lit64({v:#x})"))
        }
        _ => None,
    }
}

/// Whether the assembler would encode 32-bit literal `l` of operand type `ty` as an inline
/// constant (LLVM 22's disassembler then wraps it in `lit()`), observed with llvm-mc-22 per
/// operand type: 16-bit floats judge the low half, packed halves need a 16-bit value (or, for
/// the splat form, equal halves), 64-bit integers see the literal zero-extended, and FP64
/// (whose 32-bit literal is the high half), K constants and no-inline operands never inline.
fn literal_would_inline(ty: &str, l: u32) -> bool {
    let int32 = inline_int(i64::from(l as i32));
    let lo = l & 0xffff;
    let int16 = inline_int(i64::from(lo as u16 as i16));
    match ty {
        // Register-only operands print the value and `/*Invalid immediate*/`.
        ""
        | "OPERAND_REGISTER"
        | "OPERAND_KIMM16"
        | "OPERAND_KIMM32"
        | "OPERAND_KIMM64"
        | "OPERAND_REG_IMM_NOINLINE_V2FP16" => false,
        t if t.contains("FP64") => false,
        t if t.contains("INT64") => l <= 64,
        "OPERAND_REG_IMM_V2FP16"
        | "OPERAND_REG_INLINE_C_V2FP16"
        | "OPERAND_REG_INLINE_AC_V2FP16" => int32 || (l <= 0xffff && float16_name(l).is_some()),
        "OPERAND_REG_IMM_V2BF16"
        | "OPERAND_REG_INLINE_C_V2BF16"
        | "OPERAND_REG_INLINE_AC_V2BF16" => int32 || (l <= 0xffff && bfloat16_name(l).is_some()),
        "OPERAND_REG_IMM_V2FP16_SPLAT" => int32 || (l >> 16 == lo && float16_name(lo).is_some()),
        t if t.contains("BF16") => int16 || bfloat16_name(lo).is_some(),
        t if t.contains("FP16") => int16 || float16_name(lo).is_some(),
        _ => int32 || float32_name(l).is_some_and(|_| l != 0x8000_0000),
    }
}

/// LLVM 22's immediate printers where they differ from LLVM 19's: 16-bit integers print the
/// low half in hex unless the value is an inline integer, packed values without float names
/// past 16 bits, FP64 values whole unless their low half is zero.
fn print_immediate_22(out: &mut String, class: OperandClass, imm: i64) {
    let ty = class.info().operand_type;
    match ty {
        "OPERAND_REG_INLINE_C_INT16" | "OPERAND_REG_INLINE_AC_INT16" | "OPERAND_REG_IMM_INT16" => {
            if inline_int(i64::from(imm as i32)) {
                super::num::push_dec(out, i64::from(imm as i32));
            } else {
                hex(out, (imm as u64) & 0xffff);
            }
        }
        "OPERAND_REG_IMM_NOINLINE_V2FP16" => {
            if inline_int(i64::from(imm as i32)) {
                super::num::push_dec(out, i64::from(imm as i32));
            } else {
                hex(out, u64::from(imm as u32));
            }
        }
        "OPERAND_REG_IMM_FP64" | "OPERAND_REG_INLINE_C_FP64" | "OPERAND_REG_INLINE_AC_FP64" => {
            let v = imm as u64;
            if inline_int(imm) || float64_name(v).is_some() || v & 0xffff_ffff != 0 {
                print_imm64(out, v, false);
            } else {
                hex(out, v >> 32);
            }
        }
        _ => print_immediate(out, class, imm),
    }
}

/// LLVM's `printOperand`: the implied `vcc`/`vcc_lo` destination of a VOPC that writes VCC,
/// then the operand.
pub(super) fn print_operand(out: &mut String, ctx: &Ctx<'_>, index: usize) {
    if vcc_before_operand(ctx.encoding, index) {
        print_default_vcc(out, ctx, true);
    }
    print_regular(out, ctx, index);
}

/// Whether `printOperand` prints the implied `vcc`/`vcc_lo` before operand `index` of `e` (a
/// fact of the record, computed once per print-program step).
pub(super) fn vcc_before_operand(e: &Encoding, index: usize) -> bool {
    let first = index == 0
        || (index == 1
            && e.flags.has(flag::DPP)
            && e.operand_index(OperandName::src0_modifiers).is_some());
    first && e.flags.has(flag::VOPC) && e.defs.has(implicit::VCC) && !is_vopc_asm_only(e)
}

/// Whether `printRegularOperand` prints the default `vcc`/`vcc_lo` after operand `index` of `e`.
pub(super) fn vcc_after_regular(e: &Encoding, index: usize) -> bool {
    vcc_after_src1(e) && e.operand_index(OperandName::src1) == Some(index)
}

/// Whether `printVOPDst` prints the default carry-out `vcc`/`vcc_lo` after the register.
pub(super) fn vcc_after_vop_dst(e: &Encoding) -> bool {
    vcc_after_vdst(e)
}

/// What `printVOPDst` prints before operand 0: the encoding suffix and the space after the
/// mnemonic.
pub(super) fn vop_dst_prefix(e: &Encoding) -> &'static str {
    let f = e.flags;
    if f.has(flag::VOP3) && f.has(flag::DPP) {
        "_e64_dpp "
    } else if f.has(flag::VOP3) {
        if !vop3_is_single(e) { "_e64 " } else { " " }
    } else if f.has(flag::DPP) {
        "_dpp "
    } else if f.has(flag::SDWA) {
        "_sdwa "
    } else if (f.has(flag::VOP1) || f.has(flag::VOP2)) && !e32_is_single(e) {
        "_e32 "
    } else {
        " "
    }
}

/// LLVM's `printVOPDst`: for operand 0 the encoding suffix and the space after the mnemonic,
/// then the register, then the default carry-out `vcc`/`vcc_lo` of the `*_co_ci_u32` forms.
pub(super) fn print_vop_dst(out: &mut String, ctx: &Ctx<'_>, index: usize) {
    let e = ctx.encoding;
    if index == 0 {
        out.push_str(vop_dst_prefix(e));
    }
    print_regular(out, ctx, index);
    if vcc_after_vdst(e) {
        print_default_vcc(out, ctx, false);
    }
}

/// LLVM's `printDefaultVccOperand`: `vcc` in wave64, `vcc_lo` in wave32, with the comma on the
/// side that joins it to its neighbours.
pub(super) fn print_default_vcc(out: &mut String, ctx: &Ctx<'_>, first_operand: bool) {
    if !first_operand {
        out.push_str(", ");
    }
    super::num::push_str(out, if ctx.target.wave64 { "vcc" } else { "vcc_lo" });
    if first_operand {
        out.push_str(", ");
    }
}

/// The VOPC DPP records that exist only for the assembler (`*_w32`, `*_w64`): their asm
/// already spells the vcc operand out.
fn is_vopc_asm_only(e: &Encoding) -> bool {
    static CACHE: OnceLock<Box<[AtomicU8]>> = OnceLock::new();
    per_record(&CACHE, e, is_vopc_asm_only_uncached)
}

fn is_vopc_asm_only_uncached(e: &Encoding) -> bool {
    let name = e.opcode.name();
    name.contains("_w32") || name.contains("_w64")
}

const CARRY_OPS: [&str; 3] = [
    "V_ADD_CO_CI_U32_",
    "V_SUB_CO_CI_U32_",
    "V_SUBREV_CO_CI_U32_",
];

fn is_gfx10_plus_suffix(suffix: &str) -> bool {
    matches!(suffix, "_gfx10" | "_gfx11" | "_gfx12")
}

/// Records whose printVOPDst appends the carry-out `vcc`/`vcc_lo` (LLVM's list in printVOPDst).
fn vcc_after_vdst(e: &Encoding) -> bool {
    static CACHE: OnceLock<Box<[AtomicU8]>> = OnceLock::new();
    per_record(&CACHE, e, vcc_after_vdst_uncached)
}

fn vcc_after_vdst_uncached(e: &Encoding) -> bool {
    let name = e.opcode.name();
    let Some(form) = CARRY_OPS.iter().find_map(|p| name.strip_prefix(p)) else {
        return false;
    };
    match form {
        "e32" | "dpp" | "dpp8" => is_gfx10_plus_suffix(e.suffix),
        "sdwa" => e.suffix == "_gfx10",
        _ => false,
    }
}

/// Records whose printRegularOperand appends the carry-in / condition `vcc`/`vcc_lo` after
/// src1 (LLVM's list in printRegularOperand; the SDWA and gfx10/11 DPP cndmask and the SDWA
/// carries are printed by the input-modifier printers instead).
fn vcc_after_src1(e: &Encoding) -> bool {
    static CACHE: OnceLock<Box<[AtomicU8]>> = OnceLock::new();
    per_record(&CACHE, e, vcc_after_src1_uncached)
}

fn vcc_after_src1_uncached(e: &Encoding) -> bool {
    let name = e.opcode.name();
    if let Some(form) = name.strip_prefix("V_CNDMASK_B32_") {
        return match form {
            "e32" => is_gfx10_plus_suffix(e.suffix) || matches!(e.suffix, "_vi" | "_gfx6_gfx7"),
            "dpp8" => is_gfx10_plus_suffix(e.suffix),
            "dpp" => e.suffix == "_gfx12",
            _ => false,
        };
    }
    match CARRY_OPS.iter().find_map(|p| name.strip_prefix(p)) {
        Some("e32" | "dpp" | "dpp8") => is_gfx10_plus_suffix(e.suffix),
        _ => false,
    }
}

/// Every record name (opcode + generation suffix) with its flags, for the sibling look-ups of
/// the "IsSingle" rule.
fn records() -> &'static HashMap<String, u64> {
    static RECORDS: OnceLock<HashMap<String, u64>> = OnceLock::new();
    RECORDS.get_or_init(|| {
        encodings()
            .iter()
            .map(|e| (e.record_name(), e.flags.0))
            .collect()
    })
}

fn record_flags(opcode: &str, suffix: &str) -> Option<u64> {
    records().get(&format!("{opcode}{suffix}")).copied()
}

/// LLVM 22 prints GFX1250's v_cvt_pk_f16_bf8/fp8 without `_e32`/`_e64` although both
/// encodings exist (their VOP1 pseudo is marked single; observed with llvm-mc-22 on every
/// record: no other VOP1/VOP2/VOP3 op differs from the sibling rule below).
fn has_doubled_name(e: &Encoding) -> bool {
    let name = e.opcode.name();
    e.llvm == 22
        && (name.starts_with("V_CVT_PK_F16_BF8V_CVT_PK_F16_BF8_")
            || name.starts_with("V_CVT_PK_F16_FP8V_CVT_PK_F16_FP8_"))
}

/// LLVM's `getVOP3IsSingle`: a VOP3 op prints `_e64` only when the same generation also has a
/// 32-bit encoding of it (VOP1/VOP2/VOPC `_e32`, or VINTRP for `v_interp_*_e64`).
fn vop3_is_single(e: &Encoding) -> bool {
    static CACHE: OnceLock<Box<[AtomicU8]>> = OnceLock::new();
    per_record(&CACHE, e, vop3_is_single_uncached)
}

fn vop3_is_single_uncached(e: &Encoding) -> bool {
    if has_doubled_name(e) {
        return true;
    }
    let Some(base) = e.opcode.name().strip_suffix("_e64") else {
        return true;
    };
    if record_flags(&format!("{base}_e32"), e.suffix).is_some() {
        return false;
    }
    record_flags(base, e.suffix).is_none_or(|f| f & flag::VINTRP == 0)
}

/// LLVM's `getVOP1IsSingle`/`getVOP2IsSingle`: a VOP1/VOP2 op prints `_e32` only when the same
/// generation also has its VOP3 (`_e64`) encoding. On GFX8/9 (`_vi` records) every `_e32` op
/// has a VOP3 pseudo, even `v_pk_fmac_f16`, whose VOP3 form has no encoding.
fn e32_is_single(e: &Encoding) -> bool {
    static CACHE: OnceLock<Box<[AtomicU8]>> = OnceLock::new();
    per_record(&CACHE, e, e32_is_single_uncached)
}

/// A per-record fact computed once: `cache` holds 0 (not yet), 1 (false) or 2 (true) per
/// encoding.
fn per_record(cache: &OnceLock<Box<[AtomicU8]>>, e: &Encoding, f: fn(&Encoding) -> bool) -> bool {
    let cache = cache.get_or_init(|| (0..encodings().len()).map(|_| AtomicU8::new(0)).collect());
    let base = encodings().as_ptr() as usize;
    let at = (e as *const Encoding as usize).wrapping_sub(base) / std::mem::size_of::<Encoding>();
    let Some(slot) = cache.get(at) else {
        return f(e);
    };
    match slot.load(Ordering::Relaxed) {
        0 => {
            let v = f(e);
            slot.store(1 + u8::from(v), Ordering::Relaxed);
            v
        }
        v => v == 2,
    }
}

fn e32_is_single_uncached(e: &Encoding) -> bool {
    if has_doubled_name(e) {
        return true;
    }
    let Some(base) = e.opcode.name().strip_suffix("_e32") else {
        return true;
    };
    e.suffix != "_vi" && record_flags(&format!("{base}_e64"), e.suffix).is_none()
}

// ---------------------------------------------------------------------------------------------
// Immediates

/// How the decoder turned an inline float constant into bits (LLVM's `ImmWidth` and
/// `OperandSemantics` template arguments of the operand's decoder method).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sema {
    Int,
    Fp16,
    Bf16,
    Fp32,
    Fp64,
}

/// `(ImmWidth, Sema)` of an operand class's decoder, computed once per class.
fn decoder_semantics(class: OperandClass) -> (u8, Sema) {
    static CACHE: OnceLock<Box<[(u8, Sema)]>> = OnceLock::new();
    CACHE.get_or_init(|| OperandClass::ALL.iter().map(|&c| decoder_semantics_uncached(c)).collect())[class as usize]
}

fn decoder_semantics_uncached(class: OperandClass) -> (u8, Sema) {
    let info = class.info();
    let dm = info.decoder_method;
    let name = dm.split('<').next().unwrap_or("");
    let args: Vec<&str> = dm
        .split_once('<')
        .map(|(_, rest)| {
            rest.trim_end_matches('>')
                .split(',')
                .map(str::trim)
                .collect()
        })
        .unwrap_or_default();
    match name {
        "decodeSrcRegOrImm9" | "decodeSrcRegOrImmA9" | "decodeSrcRegOrImmDeferred9"
            if args.len() == 3 =>
        {
            let width = args[1].parse().unwrap_or(32);
            let sema = match args[2] {
                "1" => Sema::Fp16,
                "2" => Sema::Bf16,
                "3" => Sema::Fp32,
                "4" => Sema::Fp64,
                _ => Sema::Int,
            };
            (width, sema)
        }
        // Newer records name only the register width: the constant follows the operand type.
        "decodeSrcRegOrImm9" | "decodeSrcRegOrImmA9" | "decodeSrcRegOrImmDeferred9" => {
            semantics_of_type(info.operand_type)
        }
        "decodeOperand_VSrc_f64" => (64, Sema::Fp64),
        "decodeSDWASrc16" => (16, Sema::Fp16),
        "decodeSDWASrc32" => (32, Sema::Fp32),
        // True16 sources: 16-bit constants of the operand's kind (f16 or bf16).
        n if n.starts_with("decodeOperand_VSrcT16") => (16, semantics_of_type(info.operand_type).1),
        // Register-only decoders (ImmWidth 0) produce 32-bit float constants.
        _ => (32, Sema::Int),
    }
}

fn semantics_of_type(ty: &str) -> (u8, Sema) {
    if ty.contains("FP64") {
        (64, Sema::Fp64)
    } else if ty.contains("INT64") {
        (64, Sema::Int)
    } else if ty.contains("BF16") {
        (16, Sema::Bf16)
    } else if ty.contains("FP16") {
        (16, Sema::Fp16)
    } else if ty.contains("INT16") {
        (16, Sema::Int)
    } else if ty.contains("FP32") {
        (32, Sema::Fp32)
    } else {
        (32, Sema::Int)
    }
}

/// Bit patterns of the inline float constants 240..=248 (0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0,
/// -4.0, 1/(2*pi)) at each width.
const INLINE_F32: [u64; 9] = [
    0x3f00_0000,
    0xbf00_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x4000_0000,
    0xc000_0000,
    0x4080_0000,
    0xc080_0000,
    0x3e22_f983,
];
const INLINE_F64: [u64; 9] = [
    0x3fe0_0000_0000_0000,
    0xbfe0_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x4000_0000_0000_0000,
    0xc000_0000_0000_0000,
    0x4010_0000_0000_0000,
    0xc010_0000_0000_0000,
    0x3fc4_5f30_6dc9_c882,
];
const INLINE_F16: [u64; 9] = [
    0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118,
];
const INLINE_BF16: [u64; 9] = [
    0x3f00, 0xbf00, 0x3f80, 0xbf80, 0x4000, 0xc000, 0x4080, 0xc080, 0x3e22,
];

/// The immediate LLVM's MCInst holds for a decoded constant of operand class `class`.
fn mc_immediate(class: OperandClass, value: Value) -> i64 {
    match value {
        Value::Imm(v) | Value::InlineInt(v) => v,
        Value::InlineFloat(code) => {
            let i = usize::from(code.clamp(240, 248) - 240);
            let bits = match decoder_semantics(class) {
                (64, _) => INLINE_F64[i],
                (16, Sema::Bf16) => INLINE_BF16[i],
                (16, _) => INLINE_F16[i],
                _ => INLINE_F32[i],
            };
            bits as i64
        }
        Value::Literal(l) => {
            let is_k = matches!(
                class.info().operand_type,
                "OPERAND_KIMM16" | "OPERAND_KIMM32" | "OPERAND_KIMM64"
            );
            if !is_k && decoder_semantics(class).1 == Sema::Fp64 {
                // FP64 sources take a 32-bit literal as the high half of the double.
                (u64::from(l) << 32) as i64
            } else {
                i64::from(l)
            }
        }
        Value::Literal64(v) => v as i64,
        Value::Reg(_) | Value::None => 0,
    }
}

/// The MC immediate of operand `index`, or `None` for a register.
fn imm_of(ctx: &Ctx<'_>, index: usize) -> Option<i64> {
    let op = ctx.ops.as_slice().get(index)?;
    match op.value {
        Value::Reg(_) | Value::None => None,
        v => Some(mc_immediate(op.class, v)),
    }
}

/// How `printRegularOperand` formats an immediate, by the operand type (parsed once per class).
#[derive(Clone, Copy)]
enum ImmKind {
    Imm32,
    Int64,
    Fp64,
    Int16,
    Fp16,
    Bf16,
    V216(Packed),
    Decimal,
    Invalid,
    Unknown,
}

fn imm_kind(class: OperandClass) -> ImmKind {
    static CACHE: OnceLock<Box<[ImmKind]>> = OnceLock::new();
    CACHE.get_or_init(|| {
        OperandClass::ALL
            .iter()
            .map(|c| imm_kind_of(c.info().operand_type))
            .collect()
    })[class as usize]
}

fn imm_kind_of(ty: &str) -> ImmKind {
    match ty {
        "OPERAND_REG_IMM_INT32"
        | "OPERAND_REG_IMM_FP32"
        | "OPERAND_REG_IMM_FP32_DEFERRED"
        | "OPERAND_REG_INLINE_C_INT32"
        | "OPERAND_REG_INLINE_C_FP32"
        | "OPERAND_REG_INLINE_AC_INT32"
        | "OPERAND_REG_INLINE_AC_FP32"
        | "OPERAND_REG_IMM_V2INT32"
        | "OPERAND_REG_IMM_V2FP32"
        | "OPERAND_REG_INLINE_C_V2INT32"
        | "OPERAND_REG_INLINE_C_V2FP32"
        | "OPERAND_IMMEDIATE"
        | "OPERAND_INLINE_SPLIT_BARRIER_INT32" => ImmKind::Imm32,
        "OPERAND_REG_IMM_INT64" | "OPERAND_REG_INLINE_C_INT64" => ImmKind::Int64,
        "OPERAND_REG_IMM_FP64" | "OPERAND_REG_INLINE_C_FP64" | "OPERAND_REG_INLINE_AC_FP64" => {
            ImmKind::Fp64
        }
        "OPERAND_REG_INLINE_C_INT16" | "OPERAND_REG_INLINE_AC_INT16" | "OPERAND_REG_IMM_INT16" => {
            ImmKind::Int16
        }
        "OPERAND_REG_INLINE_C_FP16"
        | "OPERAND_REG_INLINE_AC_FP16"
        | "OPERAND_REG_IMM_FP16"
        | "OPERAND_REG_IMM_FP16_DEFERRED" => ImmKind::Fp16,
        "OPERAND_REG_INLINE_C_BF16"
        | "OPERAND_REG_INLINE_AC_BF16"
        | "OPERAND_REG_IMM_BF16"
        | "OPERAND_REG_IMM_BF16_DEFERRED" => ImmKind::Bf16,
        "OPERAND_REG_IMM_V2INT16"
        | "OPERAND_REG_INLINE_C_V2INT16"
        | "OPERAND_REG_INLINE_AC_V2INT16" => ImmKind::V216(Packed::Int16),
        "OPERAND_REG_IMM_V2FP16"
        | "OPERAND_REG_INLINE_C_V2FP16"
        | "OPERAND_REG_INLINE_AC_V2FP16"
        | "OPERAND_REG_IMM_NOINLINE_V2FP16" => ImmKind::V216(Packed::Fp16),
        "OPERAND_REG_IMM_V2BF16"
        | "OPERAND_REG_INLINE_C_V2BF16"
        | "OPERAND_REG_INLINE_AC_V2BF16" => ImmKind::V216(Packed::Bf16),
        "OPERAND_UNKNOWN" | "OPERAND_PCREL" => ImmKind::Decimal,
        // A register-only operand that decoded to a constant: LLVM prints it as a 32-bit
        // immediate and flags it. Plain register classes have no operand type.
        "OPERAND_REGISTER" | "" => ImmKind::Invalid,
        _ => ImmKind::Unknown,
    }
}

/// `printRegularOperand`'s immediate case: the formatting chosen by the operand type.
fn print_immediate(out: &mut String, class: OperandClass, imm: i64) {
    match imm_kind(class) {
        ImmKind::Imm32 => print_imm32(out, imm as u32),
        ImmKind::Int64 => print_imm64(out, imm as u64, false),
        ImmKind::Fp64 => print_imm64(out, imm as u64, true),
        ImmKind::Int16 => print_imm_int16(out, imm as u32),
        ImmKind::Fp16 => print_imm_f16(out, imm as u32),
        ImmKind::Bf16 => print_imm_bf16(out, imm as u32),
        ImmKind::V216(kind) => print_imm_v216(out, imm as u32, kind),
        ImmKind::Decimal => super::num::push_dec(out, imm),
        ImmKind::Invalid => {
            print_imm32(out, imm as u32);
            out.push_str("/*Invalid immediate*/");
        }
        // LLVM has no printer for these (llvm_unreachable); make it visible.
        ImmKind::Unknown => {
            let other = class.info().operand_type;
            let _ = write!(out, "<imm {imm} of {other}?>");
        }
    }
}

/// LLVM's `formatHex` of an unsigned value.
fn hex(out: &mut String, v: u64) {
    super::num::push_hex(out, v);
}

/// Inline integers: -16..=64 print as decimal.
fn inline_int(v: i64) -> bool {
    (-16..=64).contains(&v)
}

fn float32_name(v: u32) -> Option<&'static str> {
    Some(match v {
        0x0000_0000 => "0.0",
        0x3f80_0000 => "1.0",
        0xbf80_0000 => "-1.0",
        0x3f00_0000 => "0.5",
        0xbf00_0000 => "-0.5",
        0x4000_0000 => "2.0",
        0xc000_0000 => "-2.0",
        0x4080_0000 => "4.0",
        0xc080_0000 => "-4.0",
        // Every GFX8+ target has FeatureInv2PiInlineImm.
        0x3e22_f983 => "0.15915494",
        _ => return None,
    })
}

fn float64_name(v: u64) -> Option<&'static str> {
    Some(match v {
        0 => "0.0",
        0x3ff0_0000_0000_0000 => "1.0",
        0xbff0_0000_0000_0000 => "-1.0",
        0x3fe0_0000_0000_0000 => "0.5",
        0xbfe0_0000_0000_0000 => "-0.5",
        0x4000_0000_0000_0000 => "2.0",
        0xc000_0000_0000_0000 => "-2.0",
        0x4010_0000_0000_0000 => "4.0",
        0xc010_0000_0000_0000 => "-4.0",
        0x3fc4_5f30_6dc9_c882 => "0.15915494309189532",
        _ => return None,
    })
}

fn float16_name(v: u32) -> Option<&'static str> {
    Some(match v {
        0x3c00 => "1.0",
        0xbc00 => "-1.0",
        0x3800 => "0.5",
        0xb800 => "-0.5",
        0x4000 => "2.0",
        0xc000 => "-2.0",
        0x4400 => "4.0",
        0xc400 => "-4.0",
        0x3118 => "0.15915494",
        _ => return None,
    })
}

fn bfloat16_name(v: u32) -> Option<&'static str> {
    Some(match v {
        0x3f80 => "1.0",
        0xbf80 => "-1.0",
        0x3f00 => "0.5",
        0xbf00 => "-0.5",
        0x4000 => "2.0",
        0xc000 => "-2.0",
        0x4080 => "4.0",
        0xc080 => "-4.0",
        0x3e22 => "0.15915494",
        _ => return None,
    })
}

/// `printImmediate32`.
fn print_imm32(out: &mut String, v: u32) {
    let s = v as i32;
    if inline_int(i64::from(s)) {
        super::num::push_dec(out, i64::from(s));
    } else if let Some(name) = float32_name(v) {
        out.push_str(name);
    } else {
        hex(out, u64::from(v));
    }
}

/// `printImmediate64`: FP64 literals are the high half of the double and print as that dword.
fn print_imm64(out: &mut String, v: u64, is_fp: bool) {
    let s = v as i64;
    if inline_int(s) {
        super::num::push_dec(out, i64::from(s));
    } else if let Some(name) = float64_name(v) {
        out.push_str(name);
    } else if is_fp {
        hex(out, v >> 32);
    } else {
        hex(out, v);
    }
}

/// `printImmediateInt16`: 32-bit float names, else the low 16 bits.
fn print_imm_int16(out: &mut String, v: u32) {
    let s = v as i32;
    if inline_int(i64::from(s)) {
        super::num::push_dec(out, i64::from(s));
    } else if let Some(name) = float32_name(v) {
        out.push_str(name);
    } else {
        hex(out, u64::from(v & 0xffff));
    }
}

/// `printImmediateF16`: judged on the low 16 bits.
fn print_imm_f16(out: &mut String, v: u32) {
    let s = v as u16 as i16;
    if inline_int(i64::from(s)) {
        super::num::push_dec(out, i64::from(s));
    } else if let Some(name) = float16_name(v & 0xffff) {
        out.push_str(name);
    } else {
        hex(out, u64::from(v & 0xffff));
    }
}

/// `printImmediateBF16`: the names from the low 16 bits, the hex unmasked.
fn print_imm_bf16(out: &mut String, v: u32) {
    let s = v as u16 as i16;
    if inline_int(i64::from(s)) {
        super::num::push_dec(out, i64::from(s));
    } else if let Some(name) = bfloat16_name(v & 0xffff) {
        out.push_str(name);
    } else {
        hex(out, u64::from(v));
    }
}

#[derive(Clone, Copy)]
enum Packed {
    Int16,
    Fp16,
    Bf16,
}

/// `printImmediateV216`: packed 16-bit operands; float names only for a value that fits in
/// 16 bits (V2INT16 uses the 32-bit names), else the whole dword in hex.
fn print_imm_v216(out: &mut String, v: u32, kind: Packed) {
    let s = v as i32;
    if inline_int(i64::from(s)) {
        super::num::push_dec(out, i64::from(s));
        return;
    }
    let name = match kind {
        Packed::Int16 => float32_name(v),
        Packed::Fp16 if v <= 0xffff => float16_name(v),
        Packed::Bf16 if v <= 0xffff => bfloat16_name(v),
        _ => None,
    };
    match name {
        Some(name) => out.push_str(name),
        None => hex(out, u64::from(v)),
    }
}

/// `printU16ImmOperand`: hex of the low 16 bits, or all 32 when the value does not fit.
fn print_u16_imm(out: &mut String, v: i64) {
    if (-0x8000..=0xffff).contains(&v) {
        hex(out, (v & 0xffff) as u64);
    } else {
        print_u32_imm(out, v);
    }
}

/// `printU32ImmOperand`.
fn print_u32_imm(out: &mut String, v: i64) {
    hex(out, (v & 0xffff_ffff) as u64);
}

/// `printFP64ImmOperand` (GFX1250 `KImmFP64`, LLVM 22): `lit64(...)` when the high dword is
/// zero (a plain 32-bit value would be read back as the high dword), the high dword when the
/// low one is zero, else the whole value (`v_fmaak_f64 v[4:5], v[2:3], v[2:3], 0x405ec66666666666`).
fn print_fp64_imm(out: &mut String, v: u64) {
    if v >> 32 == 0 {
        let _ = write!(out, "lit64({v:#x})");
    } else if v & 0xffff_ffff == 0 {
        hex(out, v >> 32);
    } else {
        hex(out, v);
    }
}

// ---------------------------------------------------------------------------------------------
// Register classes

/// The MC register class an operand class declares, if it is a register operand. LLVM 22's
/// records name some by hardware mode (`VReg_64_AlignTarget`, `AV_LdSt_32_Target`); on GFX950
/// (AGPRs, aligned tuples) and GFX1250 (aligned tuples, no AGPRs) LLVM resolves them as below.
fn register_class(ctx: &Ctx<'_>, class: OperandClass) -> Option<std::borrow::Cow<'static, str>> {
    use std::borrow::Cow;
    let info = class.info();
    let rc: &'static str = if ctx.encoding.llvm == 22 {
        class.reg_class_22()
    } else {
        info.reg_class
    };
    let rc = if !rc.is_empty() {
        rc
    } else if info.operand_type.is_empty() && info.print_method.is_empty() {
        // A plain register class used as an operand class.
        class.name()
    } else {
        return None;
    };
    if ctx.encoding.llvm != 22 {
        return Some(Cow::Borrowed(rc));
    }
    let no_agprs = ctx.target.generation() == crate::isa::processor::Generation::Gfx1250;
    let base = rc.replace("AV_LdSt_", "AV_");
    Some(if let Some(b) = base.strip_suffix("_AlignTarget") {
        let b = if no_agprs {
            b.replace("AV_", "VReg_")
        } else {
            b.to_owned()
        };
        Cow::Owned(format!("{b}_Align2"))
    } else if base == "AV_32_Target" {
        Cow::Borrowed(if no_agprs { "VGPR_32" } else { "AV_32" })
    } else if base != rc {
        Cow::Owned(if no_agprs {
            base.replace("AV_", "VReg_")
        } else {
            base
        })
    } else {
        Cow::Borrowed(rc)
    })
}

/// Registers LLVM never flags (`isInlineValue`): the `src_*` values and `null`.
fn is_inline_value(reg: Reg) -> bool {
    use Special::*;
    matches!(
        reg,
        Reg::Special(
            SrcSharedBase
                | SrcSharedLimit
                | SrcPrivateBase
                | SrcPrivateLimit
                | SrcPopsExitingWaveId
                | SrcFlatScratchBaseLo
                | SrcFlatScratchBaseHi
                | SrcVccz
                | SrcExecz
                | SrcScc
                | Null
        )
    )
}

fn is_scalar32(reg: Reg) -> bool {
    match reg {
        Reg::Sgpr { count, .. } | Reg::Ttmp { count, .. } => count == 1,
        Reg::Special(s) => !matches!(
            s,
            Special::LdsDirect
                | Special::Vcc
                | Special::Exec
                | Special::FlatScratch
                | Special::XnackMask
                | Special::Tba
                | Special::Tma
        ),
        _ => false,
    }
}

fn is_scalar64(reg: Reg) -> bool {
    match reg {
        Reg::Sgpr { count, .. } | Reg::Ttmp { count, .. } => count == 2,
        Reg::Special(s) => {
            matches!(
                s,
                Special::Vcc
                    | Special::Exec
                    | Special::FlatScratch
                    | Special::XnackMask
                    | Special::Tba
                    | Special::Tma
            )
        }
        _ => false,
    }
}

/// Appends `reg` as its `Display` writes it, without the formatting machinery.
fn push_reg(out: &mut String, reg: Reg) {
    let (prefix, index, count): (&[u8], u16, u8) = match reg {
        Reg::Sgpr { index, count } => (b"s", index, count),
        Reg::Vgpr { index, count } => (b"v", index, count),
        Reg::Agpr { index, count } => (b"a", index, count),
        Reg::Ttmp { index, count } => (b"ttmp", index, count),
        Reg::Vgpr16 { index, hi } => {
            out.push('v');
            push_u16(out, index);
            super::num::push_str(out, if hi { ".h" } else { ".l" });
            return;
        }
        Reg::Special(s) => {
            super::num::push_str(out, s.name());
            return;
        }
    };
    // Longest: `ttmp[65535:65535]` (17 bytes), written in place.
    // SAFETY: 18 bytes are reserved past the length and at most 17 are written; they are
    // ASCII, so the String stays valid UTF-8; the length grows by exactly the bytes written.
    unsafe {
        let v = out.as_mut_vec();
        v.reserve(18);
        let base = v.as_mut_ptr().add(v.len());
        let mut n = 0;
        for &b in prefix {
            *base.add(n) = b;
            n += 1;
        }
        if count == 1 {
            n += put_u16(base.add(n), index);
        } else {
            *base.add(n) = b'[';
            n += 1;
            n += put_u16(base.add(n), index);
            *base.add(n) = b':';
            n += 1;
            n += put_u16(base.add(n), index.wrapping_add(u16::from(count)).wrapping_sub(1));
            *base.add(n) = b']';
            n += 1;
        }
        v.set_len(v.len() + n);
    }
}

/// Writes `v` in decimal at `buf` (room for 5 bytes); the length written.
///
/// # Safety
/// `buf` must be valid for 5 bytes of writes.
unsafe fn put_u16(buf: *mut u8, v: u16) -> usize {
    let len = match v {
        0..=9 => 1,
        10..=99 => 2,
        100..=999 => 3,
        1000..=9999 => 4,
        _ => 5,
    };
    let mut v = v;
    for at in (0..len).rev() {
        // SAFETY: at < len <= 5.
        unsafe { *buf.add(at) = b'0' + (v % 10) as u8 };
        v /= 10;
    }
    len
}

/// Appends `v` in decimal.
fn push_u16(out: &mut String, v: u16) {
    super::num::push_udec(out, u64::from(v));
}

/// Whether `reg` printed as an operand of class `class` takes LLVM's invalid-register remark
/// (`register_class` names a class and `class_contains` says the register is not in it).
/// Both depend only on the class, on whether the record is LLVM 22's and the target GFX1250,
/// and on the register's [`reg_shape`], so the answer is remembered per (class, variant,
/// shape) in a lazily filled table.
fn needs_remark(ctx: &Ctx<'_>, class: OperandClass, reg: Reg) -> bool {
    let slow = || {
        register_class(ctx, class).is_some_and(|rc| class_contains(&rc, reg) == Some(false))
    };
    let Some(shape) = reg_shape(reg) else {
        return slow();
    };
    let variant = if ctx.encoding.llvm != 22 {
        0
    } else if ctx.target.generation() == crate::isa::processor::Generation::Gfx1250 {
        2
    } else {
        1
    };
    static TABLE: OnceLock<Box<[OnceLock<Box<[AtomicU8]>>]>> = OnceLock::new();
    let table =
        TABLE.get_or_init(|| (0..OperandClass::ALL.len() * 3).map(|_| OnceLock::new()).collect());
    let Some(slots) = table.get(class as usize * 3 + variant) else {
        return slow();
    };
    let slots = slots.get_or_init(|| (0..REG_SHAPES).map(|_| AtomicU8::new(0)).collect());
    match slots[shape].load(Ordering::Relaxed) {
        0 => {
            let v = slow();
            slots[shape].store(1 + u8::from(v), Ordering::Relaxed);
            v
        }
        v => v == 2,
    }
}

/// Number of distinct [`reg_shape`] values.
const REG_SHAPES: usize = 4 * 64 * 4 + 1 + 64;

/// What [`class_contains`] can see of a register: its file, its width, whether it starts at an
/// even index and whether it lies below v128 (the `_Align2` and `Lo128` tests); every special
/// register apart. None for a width past 63 dwords (then nothing is remembered).
fn reg_shape(reg: Reg) -> Option<usize> {
    let numbered = |file: usize, index: u16, count: u8| {
        (count < 64).then(|| {
            file * 256
                + usize::from(count) * 4
                + usize::from(index & 1)
                + 2 * usize::from(index >= 128)
        })
    };
    match reg {
        Reg::Sgpr { index, count } => numbered(0, index, count),
        Reg::Vgpr { index, count } => numbered(1, index, count),
        Reg::Agpr { index, count } => numbered(2, index, count),
        Reg::Ttmp { index, count } => numbered(3, index, count),
        Reg::Vgpr16 { .. } => Some(4 * 256),
        Reg::Special(s) => Some(4 * 256 + 1 + s as usize).filter(|&i| i < REG_SHAPES),
    }
}

/// Whether MC register class `rc` holds `reg`; `None` where gfxpatch does not model the class
/// (then no remark is printed).
fn class_contains(rc: &str, reg: Reg) -> Option<bool> {
    if is_inline_value(reg) {
        return Some(true);
    }
    // `_Align2` tuples start at an even register; `_Align1` ones anywhere.
    if let Some(base) = rc.strip_suffix("_Align2") {
        let aligned = match reg {
            Reg::Vgpr { index, count } | Reg::Agpr { index, count } => count < 2 || index % 2 == 0,
            _ => true,
        };
        return class_contains(base, reg).map(|c| c && aligned);
    }
    if let Some(base) = rc.strip_suffix("_Align1") {
        return class_contains(base, reg);
    }
    // Alignment-dependent classes differ by target; 16-bit and boolean classes are not modelled.
    if rc.contains("Align")
        || rc.contains("_16")
        || rc.starts_with("SReg_1") && !rc.starts_with("SReg_12")
    {
        return None;
    }
    let lo128 = rc.contains("Lo128");
    let bits: u32 = rc.split('_').find_map(|p| p.parse().ok()).unwrap_or(32);
    let dwords = bits.div_ceil(32) as u8;
    let vgpr = |reg: Reg| match reg {
        Reg::Vgpr { index, count } => count == dwords && (!lo128 || index < 128),
        _ => false,
    };
    let agpr = |reg: Reg| matches!(reg, Reg::Agpr { count, .. } if count == dwords);
    let kind = rc.split('_').next().unwrap_or("");
    Some(match kind {
        "VGPR" | "VReg" => vgpr(reg),
        "AGPR" | "AReg" => agpr(reg),
        "AV" => vgpr(reg) || agpr(reg),
        "VS" if dwords == 1 => {
            vgpr(reg) || is_scalar32(reg) || reg == Reg::Special(Special::LdsDirect)
        }
        "VS" if dwords == 2 => vgpr(reg) || is_scalar64(reg),
        "VRegOrLds" => vgpr(reg) || reg == Reg::Special(Special::LdsDirect),
        "SRegOrLds" => is_scalar32(reg) || reg == Reg::Special(Special::LdsDirect),
        "SReg" | "SGPR" if dwords == 1 => {
            is_scalar32(reg)
                && !(rc.contains("XM0") && reg == Reg::Special(Special::M0))
                && !(rc.contains("XEXEC") && reg == Reg::Special(Special::ExecHi))
                && !(rc.contains("XEXEC")
                    && !rc.contains("XEXEC_HI")
                    && reg == Reg::Special(Special::ExecLo))
                && !(kind == "SGPR" && matches!(reg, Reg::Special(_) | Reg::Ttmp { .. }))
        }
        "SReg" | "SGPR" if dwords == 2 => {
            is_scalar64(reg)
                && !(rc.contains("XEXEC") && reg == Reg::Special(Special::Exec))
                && !(kind == "SGPR" && matches!(reg, Reg::Special(_) | Reg::Ttmp { .. }))
        }
        "SReg" => {
            matches!(reg, Reg::Sgpr { count, .. } | Reg::Ttmp { count, .. } if count == dwords)
        }
        "SGPR" => matches!(reg, Reg::Sgpr { count, .. } if count == dwords),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use crate::isa::{Decoder, Target, print};

    /// Decodes `bytes` on `cpu` (LLVM's default features: wave32 on GFX10+) and prints it.
    fn text(cpu: &str, bytes: &[u8]) -> String {
        let target = Target::from_name(cpu, "").unwrap();
        let inst = Decoder::new(target).decode(bytes);
        print::print(&inst, &target, 0)
    }

    /// Every expected text below is what `llvm-mc-19 --disassemble -mcpu=<cpu>` prints for the
    /// same bytes.
    #[track_caller]
    fn check(cpu: &str, bytes: &[u8], expected: &str) {
        assert_eq!(text(cpu, bytes), expected, "{cpu} {bytes:02x?}");
    }

    #[test]
    fn registers_and_special_registers() {
        check("gfx1100", &[0x80, 0x02, 0x02, 0x7e], "v_mov_b32_e32 v1, 0");
        check("gfx803", &[0x6e, 0x00, 0x80, 0xbe], "s_mov_b32 s0, tma_lo");
        check("gfx803", &[0x6c, 0x01, 0x80, 0xbe], "s_mov_b64 s[0:1], tba");
        // A register outside the operand's class keeps LLVM's remark.
        check(
            "gfx900",
            &[0xfe, 0x00, 0x80, 0xbe],
            "s_mov_b32 s0, src_lds_direct/*Invalid register, operand has 'SReg_32' register class*/",
        );
        // A constant in a register-only operand.
        check(
            "gfx900",
            &[0xc1, 0x04, 0x00, 0x7e],
            "v_readfirstlane_b32 s0, -1/*Invalid immediate*/",
        );
    }

    #[test]
    fn thirty_two_bit_constants() {
        check(
            "gfx1100",
            &[0xff, 0x02, 0x02, 0x7e, 0x83, 0xf9, 0x22, 0x3e],
            "v_mov_b32_e32 v1, 0.15915494",
        );
        check(
            "gfx1100",
            &[0xff, 0x02, 0x02, 0x7e, 0x00, 0x00, 0x00, 0x80],
            "v_mov_b32_e32 v1, 0x80000000",
        );
        check(
            "gfx1100",
            &[0xff, 0x02, 0x02, 0x7e, 0x41, 0x00, 0x00, 0x00],
            "v_mov_b32_e32 v1, 0x41",
        );
        check("gfx900", &[0x41, 0x00, 0x80, 0xbf], "s_nop 0x41");
        check("gfx900", &[0x00, 0xfc, 0x00, 0xb0], "s_movk_i32 s0, 0xfc00");
    }

    #[test]
    fn sixty_four_bit_constants() {
        check(
            "gfx900",
            &[0xff, 0x01, 0x80, 0xbe, 0x00, 0x00, 0x00, 0x80],
            "s_mov_b64 s[0:1], 0x80000000",
        );
        check(
            "gfx900",
            &[0xff, 0x01, 0x80, 0xbe, 0xf0, 0xff, 0xff, 0xff],
            "s_mov_b64 s[0:1], 0xfffffff0",
        );
        check("gfx900", &[0xf2, 0x01, 0x80, 0xbe], "s_mov_b64 s[0:1], 1.0");
        check(
            "gfx900",
            &[0xf8, 0x01, 0x80, 0xbe],
            "s_mov_b64 s[0:1], 0.15915494309189532",
        );
        // FP64 literals are the high dword of the double.
        let fma =
            |lit: [u8; 4]| [&[0x00, 0x00, 0x4c, 0xd5, 0xff, 0x04, 0x12, 0x04][..], &lit].concat();
        check(
            "gfx1030",
            &fma([0x01, 0x00, 0xf0, 0x3f]),
            "v_fma_f64 v[0:1], 0x3ff00001, v[2:3], v[4:5]",
        );
        check(
            "gfx1030",
            &fma([0x00, 0x00, 0xf0, 0x3f]),
            "v_fma_f64 v[0:1], 1.0, v[2:3], v[4:5]",
        );
        check(
            "gfx1030",
            &fma([0x00, 0x00, 0x00, 0x00]),
            "v_fma_f64 v[0:1], 0, v[2:3], v[4:5]",
        );
        check(
            "gfx1030",
            &[0x00, 0x00, 0x4c, 0xd5, 0xf8, 0x04, 0x12, 0x04],
            "v_fma_f64 v[0:1], 0.15915494309189532, v[2:3], v[4:5]",
        );
    }

    #[test]
    fn sixteen_bit_constants() {
        // f16: judged on the low half only.
        check(
            "gfx1100",
            &[0xff, 0x04, 0x00, 0x64, 0x01, 0x3c, 0x34, 0x12],
            "v_add_f16_e32 v0, 0x3c01, v2",
        );
        check(
            "gfx1100",
            &[0xff, 0x04, 0x00, 0x64, 0x00, 0x00, 0x80, 0x3f],
            "v_add_f16_e32 v0, 0, v2",
        );
        check(
            "gfx1100",
            &[0xff, 0x04, 0x00, 0x64, 0xff, 0xff, 0x00, 0x00],
            "v_add_f16_e32 v0, -1, v2",
        );
        // i16: inline float codes are f16 bit patterns, printed as hex; literals keep 16 bits.
        check(
            "gfx900",
            &[0xf2, 0x04, 0x00, 0x4c],
            "v_add_u16_e32 v0, 0x3c00, v2",
        );
        check(
            "gfx900",
            &[0xff, 0x04, 0x00, 0x4c, 0xff, 0xff, 0x00, 0x00],
            "v_add_u16_e32 v0, 0xffff, v2",
        );
        check(
            "gfx900",
            &[0xff, 0x04, 0x00, 0x4c, 0x78, 0x56, 0x34, 0x12],
            "v_add_u16_e32 v0, 0x5678, v2",
        );
        check(
            "gfx900",
            &[0xc1, 0x04, 0x00, 0x4c],
            "v_add_u16_e32 v0, -1, v2",
        );
    }

    #[test]
    fn packed_constants() {
        check(
            "gfx900",
            &[0x00, 0x40, 0x8a, 0xd3, 0xf0, 0x04, 0x02, 0x18],
            "v_pk_add_u16 v0, 0.5, v2",
        );
        check(
            "gfx1100",
            &[
                0x00, 0x40, 0x0a, 0xcc, 0xff, 0x04, 0x02, 0x18, 0x78, 0x56, 0x34, 0x12,
            ],
            "v_pk_add_u16 v0, 0x12345678, v2",
        );
        check(
            "gfx1100",
            &[
                0x00, 0x40, 0x0f, 0xcc, 0xff, 0x04, 0x02, 0x18, 0xff, 0xff, 0x00, 0x00,
            ],
            "v_pk_add_f16 v0, 0xffff, v2",
        );
        check(
            "gfx1100",
            &[
                0x00, 0x40, 0x0f, 0xcc, 0xff, 0x04, 0x02, 0x18, 0x00, 0x3c, 0x00, 0x00,
            ],
            "v_pk_add_f16 v0, 1.0, v2",
        );
        check(
            "gfx1100",
            &[0x00, 0x40, 0x0f, 0xcc, 0xf8, 0x04, 0x02, 0x18],
            "v_pk_add_f16 v0, 0.15915494, v2",
        );
    }

    #[test]
    fn k_constants_are_hex() {
        check(
            "gfx1100",
            &[0x01, 0x05, 0x00, 0x5a, 0x00, 0x00, 0x80, 0x3f],
            "v_fmaak_f32 v0, v1, v2, 0x3f800000",
        );
        check(
            "gfx1100",
            &[0x01, 0x05, 0x0a, 0x5a, 0x00, 0x3c, 0x00, 0x00],
            "v_fmaak_f32 v5, v1, v2, 0x3c00",
        );
        // Both halves of a VOPD print the shared K.
        check(
            "gfx1100",
            &[
                0x04, 0x05, 0x42, 0xc8, 0x01, 0x07, 0x06, 0xff, 0x56, 0x34, 0x12, 0xaf,
            ],
            "v_dual_fmaak_f32 v255, v4, v2, 0xaf123456 :: v_dual_fmaak_f32 v6, v1, v3, 0xaf123456",
        );
    }

    #[test]
    fn encoding_suffixes() {
        check(
            "gfx1030",
            &[0x03, 0x00, 0xff, 0xd6, 0x82, 0x04, 0x02, 0x00],
            "v_lshlrev_b64 v[3:4], 2, v[2:3]",
        );
        check(
            "gfx1200",
            &[0x03, 0x00, 0x1f, 0xd5, 0x82, 0x04, 0x02, 0x00],
            "v_lshlrev_b64_e64 v[3:4], 2, v[2:3]",
        );
        check(
            "gfx900",
            &[0xfa, 0x02, 0x00, 0x7e, 0x01, 0x01, 0x01, 0xff],
            "v_mov_b32_dpp v0, v1 row_shl:1 row_mask:0xf bank_mask:0xf",
        );
        check(
            "gfx900",
            &[0xf9, 0x04, 0x00, 0x02, 0x01, 0x06, 0x06, 0x06],
            "v_add_f32_sdwa v0, v1, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD",
        );
        check(
            "gfx900",
            &[0x01, 0x00, 0x00, 0xd4],
            "v_interp_p1_f32_e32 v0, v1, attr0.x",
        );
        // GFX9 v_pk_fmac_f16 has a VOP3 pseudo, GFX10+ has none.
        check(
            "gfx908",
            &[0x01, 0x05, 0x0a, 0x78],
            "v_pk_fmac_f16_e32 v5, v1, v2",
        );
        check(
            "gfx1030",
            &[0x01, 0x05, 0x0a, 0x78],
            "v_pk_fmac_f16 v5, v1, v2",
        );
    }

    #[test]
    fn implicit_vcc() {
        check(
            "gfx1100",
            &[0x01, 0x05, 0x02, 0x7c],
            "v_cmp_lt_f16_e32 vcc_lo, v1, v2",
        );
        check(
            "gfx900",
            &[0x01, 0x05, 0x82, 0x7c],
            "v_cmp_lt_f32_e32 vcc, v1, v2",
        );
        // GFX8/9 v_cmpx writes VCC too; GFX10+ v_cmpx writes only EXEC.
        check(
            "gfx900",
            &[0x01, 0x05, 0xa2, 0x7c],
            "v_cmpx_lt_f32_e32 vcc, v1, v2",
        );
        check(
            "gfx1030",
            &[0x01, 0x05, 0xa2, 0x7d],
            "v_cmpx_lt_u32_e32 v1, v2",
        );
        check(
            "gfx1100",
            &[0x01, 0x05, 0x00, 0x02],
            "v_cndmask_b32_e32 v0, v1, v2, vcc_lo",
        );
        check(
            "gfx900",
            &[0x01, 0x05, 0x00, 0x00],
            "v_cndmask_b32_e32 v0, v1, v2, vcc",
        );
        check(
            "gfx1030",
            &[0x03, 0x08, 0x08, 0x50],
            "v_add_co_ci_u32_e32 v4, vcc_lo, s3, v4, vcc_lo",
        );
    }
}

#[cfg(test)]
mod push_tests {
    /// `needs_remark` remembers `class_contains` per register shape: registers of one shape
    /// must get one answer from every class the tables name.
    #[test]
    fn class_contains_depends_only_on_the_shape() {
        use crate::isa::reg::{Reg, Special};
        use crate::isa::table::OperandClass;
        let mut classes: Vec<&str> = Vec::new();
        for c in OperandClass::ALL {
            for rc in [c.info().reg_class, c.reg_class_22(), c.name()] {
                for v in [rc.to_owned(), rc.replace("AV_LdSt_", "AV_"), format!("{rc}_Align2")] {
                    classes.push(Box::leak(v.into_boxed_str()));
                }
            }
        }
        let mut regs = Vec::new();
        for index in [0u16, 1, 2, 3, 6, 7, 100, 101, 126, 127, 128, 129, 200, 201, 254, 255] {
            for count in [1u8, 2, 3, 4, 5, 6, 8, 16, 32] {
                regs.push(Reg::Sgpr { index, count });
                regs.push(Reg::Vgpr { index, count });
                regs.push(Reg::Agpr { index, count });
                regs.push(Reg::Ttmp { index, count });
            }
            regs.push(Reg::Vgpr16 { index, hi: false });
            regs.push(Reg::Vgpr16 { index, hi: true });
        }
        let _ = Special::M0;
        for rc in classes {
            let mut seen = std::collections::HashMap::new();
            for &reg in &regs {
                let shape = super::reg_shape(reg).unwrap();
                let v = super::class_contains(rc, reg);
                assert_eq!(*seen.entry(shape).or_insert(v), v, "{rc} {reg:?}");
            }
        }
    }

    #[test]
    fn push_u16_writes_decimal() {
        for v in [0u16, 7, 9, 10, 99, 100, 101, 255, 999, 1000, 1023, 9999, 10000, 65535] {
            let mut s = String::from("x");
            super::push_u16(&mut s, v);
            assert_eq!(s, format!("x{v}"));
        }
    }
}
