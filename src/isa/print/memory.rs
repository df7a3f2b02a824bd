//! Print methods for memory instructions and exports: DS offsets and `ds_swizzle` patterns,
//! FLAT/GLOBAL/SCRATCH offsets, MUBUF/MTBUF offsets and the MTBUF `format:`, the cache policy of
//! every generation (`glc slc dlc scc`; GFX940 `sc0 nt sc1`; GFX12 `th:`/`scope:`), MIMG fields
//! (`dmask:`, `dim:`, `r128`/`a16`) and EXP targets and sources.
//!
//! Everything here follows LLVM 19's `AMDGPUInstPrinter`. Single-bit flags (`gds`, `tfe`, `lwe`,
//! `da`, `d16`, `unorm`, `a16`, `compr`, `vm`) are `printNamedBit` operands, printed by
//! [`super::operand::print_named_bit`].

use std::fmt::Write as _;

use super::Ctx;
use crate::isa::operand::Value;
use crate::isa::processor::Generation;
use crate::isa::table::{OperandName, flag};

/// Prints operand `index` with LLVM print method `method` if this module implements it.
pub fn print(out: &mut String, ctx: &Ctx<'_>, index: usize, method: &str) -> bool {
    let printer: fn(&mut String, &Ctx<'_>, usize, i64) = match method {
        "printOffset" => offset,
        "printOffset0" => |out, _, _, imm| {
            if imm != 0 {
                let _ = write!(out, " offset0:{}", imm & 0xff);
            }
        },
        "printOffset1" => |out, _, _, imm| {
            if imm != 0 {
                let _ = write!(out, " offset1:{}", imm & 0xff);
            }
        },
        "printFlatOffset" => flat_offset,
        "printSwizzle" => {
            |out, ctx, _, imm| swizzle(out, imm as u16, ctx.target.llvm_version() >= 22)
        }
        "printCPol" => cpol,
        // The format is printed after `soffset` (see `print_symbolic_format`).
        "printFORMAT" => |_, _, _, _| {},
        "printDMask" => |out, _, _, imm| {
            if imm != 0 {
                out.push_str(" dmask:");
                u16_hex(out, imm);
            }
        },
        "printDim" => |out, _, _, imm| dim(out, imm),
        "printR128A16" => |out, ctx, _, imm| {
            if imm != 0 {
                out.push_str(if has_r128_a16(ctx.target.generation()) {
                    " a16"
                } else {
                    " r128"
                });
            }
        },
        "printExpTgt" => |out, ctx, _, imm| exp_target(out, ctx.target.generation(), imm),
        "printExpSrc0" => |out, ctx, index, _| exp_src(out, ctx, index, 0),
        "printExpSrc1" => |out, ctx, index, _| exp_src(out, ctx, index, 1),
        "printExpSrc2" => |out, ctx, index, _| exp_src(out, ctx, index, 2),
        "printExpSrc3" => |out, ctx, index, _| exp_src(out, ctx, index, 3),
        _ => return false,
    };
    match ctx.op(index).value {
        Value::Imm(imm) => printer(out, ctx, index, imm),
        // EXP sources are registers; the printer reads them itself.
        _ if method.starts_with("printExpSrc") => printer(out, ctx, index, 0),
        other => {
            let _ = write!(out, "<{method} {other:?}?>");
        }
    }
    true
}

/// MTBUF: LLVM prints the symbolic format from `printRegularOperand` right after the `soffset`
/// operand (`printFORMAT` itself prints nothing). Called by the template expansion after the
/// operand at `index` has been printed; prints only when that operand is an MTBUF `soffset`.
pub fn print_after_operand(out: &mut String, ctx: &Ctx<'_>, index: usize) {
    if ctx.encoding.flags.has(flag::MTBUF)
        && ctx.encoding.operands[index].name == OperandName::soffset
    {
        print_symbolic_format(out, ctx);
    }
}

/// LLVM's `printSymbolicFormat`: ` format:[NAME]`, ` format:N`, or nothing for the default.
pub fn print_symbolic_format(out: &mut String, ctx: &Ctx<'_>) {
    let Some(value) = ctx.ops.value(OperandName::format) else {
        out.push_str("<printSymbolicFormat: no format?>");
        return;
    };
    let Value::Imm(value) = value else {
        let _ = write!(out, "<printSymbolicFormat {value:?}?>");
        return;
    };
    let generation = ctx.target.generation();
    if generation.is_gfx10_plus() {
        // Unified format: 1 (BUF_FMT_8_UNORM) is the default.
        if value == 1 {
            return;
        }
        let table: &[&str] = if generation >= Generation::Gfx11 {
            &UFMT_GFX11
        } else {
            &UFMT_GFX10
        };
        match usize::try_from(value).ok().and_then(|v| table.get(v)) {
            Some(name) => {
                let _ = write!(out, " format:[BUF_FMT_{name}]");
            }
            None => {
                let _ = write!(out, " format:{value}");
            }
        }
    } else {
        // dfmt (bits 3:0) and nfmt (bits 6:4); dfmt 1 with nfmt 0 is the default. Every 7-bit
        // value is a valid pair on GFX8/GFX9.
        if value == 1 {
            return;
        }
        if !(0..=0x7f).contains(&value) {
            let _ = write!(out, " format:{value}");
            return;
        }
        let (dfmt, nfmt) = ((value & 0xf) as usize, ((value >> 4) & 7) as usize);
        out.push_str(" format:[");
        if dfmt != 1 {
            let _ = write!(out, "BUF_DATA_FORMAT_{}", DFMT[dfmt]);
            if nfmt != 0 {
                out.push(',');
            }
        }
        if nfmt != 0 {
            let _ = write!(out, "BUF_NUM_FORMAT_{}", NFMT[nfmt]);
        }
        out.push(']');
    }
}

/// GFX8/GFX9 MTBUF data formats (`BUF_DATA_FORMAT_*`), by dfmt.
const DFMT: [&str; 16] = [
    "INVALID",
    "8",
    "16",
    "8_8",
    "32",
    "16_16",
    "10_11_11",
    "11_11_10",
    "10_10_10_2",
    "2_10_10_10",
    "8_8_8_8",
    "32_32",
    "16_16_16_16",
    "32_32_32",
    "32_32_32_32",
    "RESERVED_15",
];

/// GFX8/GFX9 MTBUF numeric formats (`BUF_NUM_FORMAT_*`), by nfmt.
const NFMT: [&str; 8] = [
    "UNORM",
    "SNORM",
    "USCALED",
    "SSCALED",
    "UINT",
    "SINT",
    "RESERVED_6",
    "FLOAT",
];

/// GFX10 unified formats (`BUF_FMT_*`), by value.
const UFMT_GFX10: [&str; 78] = [
    "INVALID",
    "8_UNORM",
    "8_SNORM",
    "8_USCALED",
    "8_SSCALED",
    "8_UINT",
    "8_SINT",
    "16_UNORM",
    "16_SNORM",
    "16_USCALED",
    "16_SSCALED",
    "16_UINT",
    "16_SINT",
    "16_FLOAT",
    "8_8_UNORM",
    "8_8_SNORM",
    "8_8_USCALED",
    "8_8_SSCALED",
    "8_8_UINT",
    "8_8_SINT",
    "32_UINT",
    "32_SINT",
    "32_FLOAT",
    "16_16_UNORM",
    "16_16_SNORM",
    "16_16_USCALED",
    "16_16_SSCALED",
    "16_16_UINT",
    "16_16_SINT",
    "16_16_FLOAT",
    "10_11_11_UNORM",
    "10_11_11_SNORM",
    "10_11_11_USCALED",
    "10_11_11_SSCALED",
    "10_11_11_UINT",
    "10_11_11_SINT",
    "10_11_11_FLOAT",
    "11_11_10_UNORM",
    "11_11_10_SNORM",
    "11_11_10_USCALED",
    "11_11_10_SSCALED",
    "11_11_10_UINT",
    "11_11_10_SINT",
    "11_11_10_FLOAT",
    "10_10_10_2_UNORM",
    "10_10_10_2_SNORM",
    "10_10_10_2_USCALED",
    "10_10_10_2_SSCALED",
    "10_10_10_2_UINT",
    "10_10_10_2_SINT",
    "2_10_10_10_UNORM",
    "2_10_10_10_SNORM",
    "2_10_10_10_USCALED",
    "2_10_10_10_SSCALED",
    "2_10_10_10_UINT",
    "2_10_10_10_SINT",
    "8_8_8_8_UNORM",
    "8_8_8_8_SNORM",
    "8_8_8_8_USCALED",
    "8_8_8_8_SSCALED",
    "8_8_8_8_UINT",
    "8_8_8_8_SINT",
    "32_32_UINT",
    "32_32_SINT",
    "32_32_FLOAT",
    "16_16_16_16_UNORM",
    "16_16_16_16_SNORM",
    "16_16_16_16_USCALED",
    "16_16_16_16_SSCALED",
    "16_16_16_16_UINT",
    "16_16_16_16_SINT",
    "16_16_16_16_FLOAT",
    "32_32_32_UINT",
    "32_32_32_SINT",
    "32_32_32_FLOAT",
    "32_32_32_32_UINT",
    "32_32_32_32_SINT",
    "32_32_32_32_FLOAT",
];

/// GFX11/GFX12 unified formats (`BUF_FMT_*`), by value.
const UFMT_GFX11: [&str; 64] = [
    "INVALID",
    "8_UNORM",
    "8_SNORM",
    "8_USCALED",
    "8_SSCALED",
    "8_UINT",
    "8_SINT",
    "16_UNORM",
    "16_SNORM",
    "16_USCALED",
    "16_SSCALED",
    "16_UINT",
    "16_SINT",
    "16_FLOAT",
    "8_8_UNORM",
    "8_8_SNORM",
    "8_8_USCALED",
    "8_8_SSCALED",
    "8_8_UINT",
    "8_8_SINT",
    "32_UINT",
    "32_SINT",
    "32_FLOAT",
    "16_16_UNORM",
    "16_16_SNORM",
    "16_16_USCALED",
    "16_16_SSCALED",
    "16_16_UINT",
    "16_16_SINT",
    "16_16_FLOAT",
    "10_11_11_FLOAT",
    "11_11_10_FLOAT",
    "10_10_10_2_UNORM",
    "10_10_10_2_SNORM",
    "10_10_10_2_UINT",
    "10_10_10_2_SINT",
    "2_10_10_10_UNORM",
    "2_10_10_10_SNORM",
    "2_10_10_10_USCALED",
    "2_10_10_10_SSCALED",
    "2_10_10_10_UINT",
    "2_10_10_10_SINT",
    "8_8_8_8_UNORM",
    "8_8_8_8_SNORM",
    "8_8_8_8_USCALED",
    "8_8_8_8_SSCALED",
    "8_8_8_8_UINT",
    "8_8_8_8_SINT",
    "32_32_UINT",
    "32_32_SINT",
    "32_32_FLOAT",
    "16_16_16_16_UNORM",
    "16_16_16_16_SNORM",
    "16_16_16_16_USCALED",
    "16_16_16_16_SSCALED",
    "16_16_16_16_UINT",
    "16_16_16_16_SINT",
    "16_16_16_16_FLOAT",
    "32_32_32_UINT",
    "32_32_32_SINT",
    "32_32_32_FLOAT",
    "32_32_32_32_UINT",
    "32_32_32_32_SINT",
    "32_32_32_32_FLOAT",
];

/// `printU16ImmOperand`: hex of the low 16 bits (wider values print as 32-bit hex).
fn u16_hex(out: &mut String, imm: i64) {
    if (-0x8000..=0xffff).contains(&imm) {
        let _ = write!(out, "{:#x}", imm & 0xffff);
    } else {
        let _ = write!(out, "{:#x}", imm & 0xffff_ffff);
    }
}

/// Sign-extends the low `bits` bits of `imm`.
fn sign_extend(imm: i64, bits: u32) -> i64 {
    let shift = 64 - bits;
    (imm << shift) >> shift
}

/// `printOffset` (DS, MUBUF, MTBUF): ` offset:N`, unsigned 16-bit, except GFX12 VBUFFER's signed
/// 24-bit field.
fn offset(out: &mut String, ctx: &Ctx<'_>, _: usize, imm: i64) {
    let imm = imm & 0xffff_ffff;
    if imm == 0 {
        return;
    }
    let vbuffer = ctx.encoding.flags.has(flag::MUBUF | flag::MTBUF);
    if is_gfx12(ctx.target.generation()) && vbuffer {
        let _ = write!(out, " offset:{}", sign_extend(imm, 24));
    } else {
        let _ = write!(out, " offset:{}", imm & 0xffff);
    }
}

/// LLVM's `isGFX12`: GFX12 proper (the GFX12 printer paths key on it; GFX1250 is also GFX12 in
/// LLVM 22).
fn is_gfx12(generation: Generation) -> bool {
    generation >= Generation::Gfx12
}

/// `printFlatOffset`: signed for global/scratch (and every FLAT on GFX12), unsigned for flat.
fn flat_offset(out: &mut String, ctx: &Ctx<'_>, _: usize, imm: i64) {
    let imm = imm & 0xffff_ffff;
    if imm == 0 {
        return;
    }
    let generation = ctx.target.generation();
    let mnemonic = ctx.encoding.mnemonic();
    // TSFlags FlatGlobal / FlatScratch: the global_* and scratch_* instructions.
    let segment = mnemonic.starts_with("global_") || mnemonic.starts_with("scratch_");
    if segment || is_gfx12(generation) {
        let bits = match generation {
            Generation::Gfx10_1 | Generation::Gfx10_3 => 12,
            g if is_gfx12(g) => 24,
            _ => 13,
        };
        let _ = write!(out, " offset:{}", sign_extend(imm, bits));
    } else {
        let _ = write!(out, " offset:{}", imm & 0xffff);
    }
}

/// `printSwizzle` (ds_swizzle_b32 offset): QUAD_PERM, SWAP, REVERSE, BROADCAST, BITMASK_PERM,
/// or the plain number.
fn swizzle(out: &mut String, imm: u16, llvm22: bool) {
    if imm == 0 {
        return;
    }
    out.push_str(" offset:");
    if imm & 0xff00 == 0x8000 {
        let _ = write!(
            out,
            "swizzle(QUAD_PERM,{},{},{},{})",
            imm & 3,
            (imm >> 2) & 3,
            (imm >> 4) & 3,
            (imm >> 6) & 3
        );
    } else if imm & 0x8000 == 0 {
        let and = imm & 0x1f;
        let or = (imm >> 5) & 0x1f;
        let xor = (imm >> 10) & 0x1f;
        let group = 32 - and;
        if and == 0x1f && or == 0 && xor.count_ones() == 1 {
            let _ = write!(out, "swizzle(SWAP,{xor})");
        } else if and == 0x1f && or == 0 && xor > 0 && (xor + 1).is_power_of_two() {
            let _ = write!(out, "swizzle(REVERSE,{})", xor + 1);
        } else if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
            let _ = write!(out, "swizzle(BROADCAST,{group},{or})");
        } else {
            out.push_str("swizzle(BITMASK_PERM,\"");
            let probe0 = or ^ xor;
            let probe1 = ((0x1f & and) | or) ^ xor;
            for bit in (0..5).rev() {
                let (p0, p1) = ((probe0 >> bit) & 1, (probe1 >> bit) & 1);
                out.push(match (p0, p1) {
                    (0, 0) => '0',
                    (1, 1) => '1',
                    (0, 1) => 'p',
                    _ => 'i',
                });
            }
            out.push_str("\")");
        }
    } else if llvm22 && imm & 0xe000 == 0xe000 {
        // LLVM 22: FFT mode (bits 15:13 = 7), the swizzle in bits 4:0.
        let _ = write!(out, "swizzle(FFT,{})", imm & 0x1f);
    } else if llvm22 && imm & 0xe000 == 0xc000 {
        // LLVM 22: rotate mode (bits 15:13 = 6), direction in bit 10, amount in bits 9:5.
        let _ = write!(
            out,
            "swizzle(ROTATE,{},{})",
            (imm >> 10) & 1,
            (imm >> 5) & 0x1f
        );
    } else {
        let _ = write!(out, "{imm}");
    }
}

/// Cache-policy bits (LLVM's `CPol`).
mod cpol_bits {
    pub const GLC: i64 = 1;
    pub const SLC: i64 = 2;
    pub const DLC: i64 = 4;
    pub const SCC: i64 = 16;
    pub const ALL_PRE_GFX12: i64 = GLC | SLC | DLC | SCC;
    pub const TH: i64 = 7;
    pub const SCOPE: i64 = 3 << 3;
    pub const SCOPE_CU: i64 = 0;
    pub const SCOPE_SE: i64 = 1 << 3;
    pub const SCOPE_DEV: i64 = 2 << 3;
    pub const SCOPE_SYS: i64 = 3 << 3;
    pub const NV: i64 = 1 << 5;
    pub const SCAL: i64 = 1 << 11;
}

/// FeatureGFX90AInsts (LLVM's `isGFX90A`): gfx90a, gfx940..942, gfx950.
fn is_gfx90a(generation: Generation) -> bool {
    generation.has_unified_agprs()
}

/// FeatureGFX940Insts (LLVM's `isGFX940`): gfx940..942, gfx950.
fn is_gfx940(generation: Generation) -> bool {
    matches!(generation, Generation::Gfx940 | Generation::Gfx950)
}

/// FeatureR128A16: the GFX9 family, where the MIMG r128 bit means a16.
fn has_r128_a16(generation: Generation) -> bool {
    matches!(
        generation,
        Generation::Gfx9 | Generation::Gfx90a | Generation::Gfx940 | Generation::Gfx950
    )
}

/// `printCPol`.
fn cpol(out: &mut String, ctx: &Ctx<'_>, _: usize, imm: i64) {
    use cpol_bits::*;
    let generation = ctx.target.generation();
    if is_gfx12(generation) {
        // SCAL and NV exist only in GFX1250's fields (LLVM 22); no GFX12 record encodes them.
        if imm & SCAL != 0 {
            out.push_str(" scale_offset");
        }
        let scope = imm & SCOPE;
        temporal_hint(out, ctx, imm & TH, scope);
        match scope {
            SCOPE_CU => {}
            SCOPE_SE => out.push_str(" scope:SCOPE_SE"),
            SCOPE_DEV => out.push_str(" scope:SCOPE_DEV"),
            _ => out.push_str(" scope:SCOPE_SYS"),
        }
        if imm & NV != 0 {
            out.push_str(" nv");
        }
        return;
    }
    let gfx940 = is_gfx940(generation);
    if imm & GLC != 0 {
        out.push_str(if gfx940 && !ctx.encoding.flags.has(flag::SMRD) {
            " sc0"
        } else {
            " glc"
        });
    }
    if imm & SLC != 0 {
        out.push_str(if gfx940 { " nt" } else { " slc" });
    }
    if imm & DLC != 0 && generation.is_gfx10_plus() {
        out.push_str(" dlc");
    }
    if imm & SCC != 0 && is_gfx90a(generation) {
        out.push_str(if gfx940 { " sc1" } else { " scc" });
    }
    if imm & !ALL_PRE_GFX12 != 0 {
        out.push_str(" /* unexpected cache policy bit */");
    }
}

/// `printTH` (GFX12 temporal hint).
fn temporal_hint(out: &mut String, ctx: &Ctx<'_>, th: i64, scope: i64) {
    use cpol_bits::*;
    if th == 0 {
        return;
    }
    let flags = ctx.encoding.flags;
    // LLVM 19: mayStore. LLVM 22 (`getTemporalHintType`): a store unless it also loads, except
    // the async/tensor stores from LDS.
    let mnemonic = ctx.encoding.mnemonic();
    let store = flags.has(flag::MAYSTORE)
        && (ctx.target.llvm_version() < 22
            || !flags.has(flag::MAYLOAD)
            || mnemonic.contains("store_async")
            || mnemonic.starts_with("tensor_store"));
    out.push_str(" th:");
    if flags.has(flag::ISATOMICRET | flag::ISATOMICNORET) {
        out.push_str("TH_ATOMIC_");
        if th & 4 != 0 {
            if scope >= SCOPE_DEV {
                out.push_str(if th & 2 != 0 {
                    "CASCADE_NT"
                } else {
                    "CASCADE_RT"
                });
            } else {
                let _ = write!(out, "{th:#x}");
            }
        } else if th & 2 != 0 {
            out.push_str(if th & 1 != 0 { "NT_RETURN" } else { "NT" });
        } else if th & 1 != 0 {
            out.push_str("RETURN");
        } else {
            let _ = write!(out, "{th:#x}");
        }
        return;
    }
    if !store && th == 7 {
        let _ = write!(out, "{th:#x}");
        return;
    }
    // Neither load nor store (image_get_resinfo and the like) prints the load names.
    out.push_str(if store { "TH_STORE_" } else { "TH_LOAD_" });
    out.push_str(match th {
        1 => "NT",
        2 => "HT",
        3 if scope == SCOPE_SYS => "BYPASS",
        // LLVM 22 renamed TH_STORE_RT_WB to TH_STORE_WB.
        3 if store && ctx.target.llvm_version() >= 22 => "WB",
        3 if store => "RT_WB",
        3 => "LU",
        4 => "NT_RT",
        5 => "RT_NT",
        6 => "NT_HT",
        _ => "NT_WB",
    });
}

/// `printDim`: ` dim:SQ_RSRC_IMG_<suffix>`.
fn dim(out: &mut String, imm: i64) {
    const DIMS: [&str; 8] = [
        "1D",
        "2D",
        "3D",
        "CUBE",
        "1D_ARRAY",
        "2D_ARRAY",
        "2D_MSAA",
        "2D_MSAA_ARRAY",
    ];
    out.push_str(" dim:SQ_RSRC_IMG_");
    match usize::try_from(imm).ok().and_then(|i| DIMS.get(i)) {
        Some(name) => out.push_str(name),
        None => {
            let _ = write!(out, "{imm}");
        }
    }
}

/// `printExpTgt`: the export target, or `invalid_target_N` where this generation lacks it.
fn exp_target(out: &mut String, generation: Generation, imm: i64) {
    let id = imm & 0x3f;
    let gfx10 = generation.is_gfx10_plus();
    let gfx11 = generation >= Generation::Gfx11;
    let _ = match id {
        0..=7 => write!(out, " mrt{id}"),
        8 => write!(out, " mrtz"),
        9 if !gfx11 => write!(out, " null"),
        12..=15 => write!(out, " pos{}", id - 12),
        16 if gfx10 => write!(out, " pos4"),
        20 if gfx10 => write!(out, " prim"),
        21 | 22 if gfx11 => write!(out, " dual_src_blend{}", id - 21),
        32..=63 if !gfx11 => write!(out, " param{}", id - 32),
        _ => write!(out, " invalid_target_{id}"),
    };
}

/// `printExpSrcN`: the register when lane N is enabled, else `off`; with `compr` the lanes show
/// src0, src0, src1, src1.
fn exp_src(out: &mut String, ctx: &Ctx<'_>, index: usize, lane: usize) {
    let en = ctx.ops.imm(OperandName::en);
    let index = if ctx.ops.imm(OperandName::compr) != 0 {
        index - lane + lane / 2
    } else {
        index
    };
    if en & (1 << lane) == 0 {
        out.push_str("off");
        return;
    }
    match ctx.op(index).value {
        Value::Reg(reg) => {
            let _ = write!(out, "{reg}");
        }
        other => {
            let _ = write!(out, "<printExpSrc{lane} {other:?}?>");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use crate::isa::{Decoder, Target, print};

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Decodes `bytes` (hex, memory order) on `cpu` with LLVM's default features (wave32 on
    /// GFX10+) and prints it.
    fn text(cpu: &str, bytes: &str) -> String {
        let target = Target::from_name(cpu, "").unwrap();
        let bytes = hex(bytes);
        let inst = Decoder::new(target).decode(&bytes);
        assert_eq!(inst.len(), bytes.len(), "{inst:?}");
        print::print(&inst, &target, 0)
    }

    /// Each expected text is what `llvm-mc-19 --disassemble -mcpu=<cpu>` prints for the bytes.
    #[track_caller]
    fn check(cpu: &str, bytes: &str, expected: &str) {
        assert_eq!(text(cpu, bytes), expected, "{cpu} {bytes}");
    }

    /// glc/slc/dlc/scc by generation, GFX940 sc0/nt/sc1 (SMEM keeps glc), GFX12 th:/scope:, and
    /// the GLC LLVM forces on returning atomics.
    #[test]
    fn cache_policy() {
        check(
            "gfx900",
            "00000bdd00000000",
            "flat_atomic_add v0, v[0:1], v0 glc slc",
        );
        check(
            "gfx900",
            "ff0f0bdd00000000",
            "flat_atomic_add v0, v[0:1], v0 offset:4095 glc slc",
        );
        check(
            "gfx90a",
            "00c050e000050203",
            "buffer_load_dword v5, off, s[8:11], s3 glc scc",
        );
        check(
            "gfx900",
            "00c050e000050203",
            "buffer_load_dword v5, off, s[8:11], s3 glc",
        );
        check(
            "gfx942",
            "00c052e000050203",
            "buffer_load_dword v5, off, s[8:11], s3 sc0 nt sc1",
        );
        check(
            "gfx942",
            "810003c000000000",
            "s_load_dword s2, s[2:3], 0x0 glc",
        );
        check(
            "gfx1030",
            "009830dc01007d05",
            "global_load_dword v5, v[1:2], off offset:-2048 dlc",
        );
        check(
            "gfx1100",
            "07e0d4dcfeff7cff",
            "flat_atomic_add_u32 v255, v[254:255], v255 offset:7 glc slc dlc",
        );
        check(
            "gfx1100",
            "00f05addffff7aff",
            "global_atomic_add_f32 v255, v255, v255, ttmp[14:15] offset:-4096 glc slc dlc",
        );
        check(
            "gfx1200",
            "420180f500000000",
            "s_load_b32 s5, s[4:5], s0 offset:0x0 th:TH_LOAD_LU",
        );
        check(
            "gfx1200",
            "420160f500000000",
            "s_load_b32 s5, s[4:5], s0 offset:0x0 th:TH_LOAD_HT scope:SCOPE_SYS",
        );
        check(
            "gfx1200",
            "030022c404e0bc0200ffff7f",
            "tbuffer_load_d16_format_x v4, off, ttmp[4:7], s3 format:[BUF_FMT_8_UINT] offset:8388607 th:TH_LOAD_BYPASS scope:SCOPE_SYS",
        );
        check(
            "gfx1200",
            "030023c404e0bc1600ffff7f",
            "tbuffer_store_d16_format_x v4, off, ttmp[4:7], s3 format:[BUF_FMT_8_8_8_8_SSCALED] offset:8388607 th:TH_STORE_BYPASS scope:SCOPE_SYS",
        );
        check(
            "gfx1200",
            "030023c404e0681600ffff7f",
            "tbuffer_store_d16_format_x v4, off, ttmp[4:7], s3 format:[BUF_FMT_8_8_8_8_USCALED] offset:8388607 th:TH_STORE_NT_HT scope:SCOPE_DEV",
        );
        check(
            "gfx1200",
            "034016c40510900000ffff7f",
            "buffer_atomic_pk_add_f16 v5, off, s[8:11], s3 offset:8388607 th:TH_ATOMIC_RETURN",
        );
        check(
            "gfx1200",
            "034016c40510e80000ffff7f",
            "buffer_atomic_pk_add_f16 v5, off, s[8:11], s3 offset:8388607 th:TH_ATOMIC_CASCADE_NT scope:SCOPE_DEV",
        );
        check(
            "gfx1200",
            "034016c40510440000000080",
            "buffer_atomic_pk_add_f16 v5, off, s[8:11], s3 offset:-8388608 th:TH_ATOMIC_0x4 scope:SCOPE_SE",
        );
        check(
            "gfx1200",
            "7c4016ec0100100100c0ffff",
            "flat_atomic_pk_add_f16 v1, v[0:1], v2 offset:-64 th:TH_ATOMIC_RETURN",
        );
    }

    /// Signed global/scratch offsets by field width (13 bits GFX9, 12 GFX10), DS offsets.
    #[test]
    fn offsets() {
        check(
            "gfx900",
            "ff9f40dc01007f05",
            "global_load_ubyte v5, v[1:2], off offset:-1",
        );
        check(
            "gfx1010",
            "008830dc01007d05",
            "global_load_dword v5, v[1:2], off offset:-2048",
        );
        check(
            "gfx900",
            "7fff1cd801020300",
            "ds_write2_b32 v1, v2, v3 offset0:127 offset1:255",
        );
        check(
            "gfx900",
            "ffff6cd801000005",
            "ds_read_b32 v5, v1 offset:65535",
        );
        check(
            "gfx1200",
            "ffff54d800010000",
            "ds_add_f32 v0, v1 offset:65535",
        );
    }

    /// Every ds_swizzle form.
    #[test]
    fn swizzle() {
        check(
            "gfx900",
            "ffff7ad801000005",
            "ds_swizzle_b32 v5, v1 offset:65535",
        );
        check(
            "gfx900",
            "1f047ad801000005",
            "ds_swizzle_b32 v5, v1 offset:swizzle(SWAP,1)",
        );
        check(
            "gfx900",
            "1f0c7ad801000005",
            "ds_swizzle_b32 v5, v1 offset:swizzle(REVERSE,4)",
        );
        check(
            "gfx900",
            "3c007ad801000005",
            "ds_swizzle_b32 v5, v1 offset:swizzle(BROADCAST,4,1)",
        );
        check(
            "gfx900",
            "64007ad801000005",
            "ds_swizzle_b32 v5, v1 offset:swizzle(BITMASK_PERM,\"00p11\")",
        );
        check(
            "gfx900",
            "10407ad801000005",
            "ds_swizzle_b32 v5, v1 offset:swizzle(BITMASK_PERM,\"i0000\")",
        );
        check(
            "gfx900",
            "e4807ad801000005",
            "ds_swizzle_b32 v5, v1 offset:swizzle(QUAD_PERM,0,1,2,3)",
        );
        check(
            "gfx900",
            "00e07ad801000005",
            "ds_swizzle_b32 v5, v1 offset:57344",
        );
        // LLVM 22 (llvm-mc-22): FFT and rotate modes.
        check(
            "gfx950",
            "1fe07ad801000005",
            "ds_swizzle_b32 v5, v1 offset:swizzle(FFT,31)",
        );
        check(
            "gfx950",
            "ffc17ad801000005",
            "ds_swizzle_b32 v5, v1 offset:swizzle(ROTATE,0,15)",
        );
        check(
            "gfx1250",
            "00a0d4d802000008",
            "ds_swizzle_b32 v8, v2 offset:40960",
        );
    }

    /// MTBUF formats: GFX9 dfmt/nfmt pairs, GFX10 and GFX11 unified tables and their ends.
    #[test]
    fn formats() {
        check(
            "gfx900",
            "0000a0eb00010101",
            "tbuffer_load_format_x v1, off, s[4:7], s1 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT]",
        );
        check(
            "gfx900",
            "00007ce900010101",
            "tbuffer_load_format_d16_x v1, off, s[4:7], s1 format:[BUF_DATA_FORMAT_RESERVED_15,BUF_NUM_FORMAT_USCALED]",
        );
        check(
            "gfx900",
            "000088e800010101",
            "tbuffer_load_format_x v1, off, s[4:7], s1 format:[BUF_NUM_FORMAT_SNORM]",
        );
        check(
            "gfx1010",
            "0020fceb01000080",
            "tbuffer_store_format_x v0, v1, s[0:3], 0 format:127 idxen",
        );
        check(
            "gfx1030",
            "000070ea00010101",
            "tbuffer_load_format_x v1, off, s[4:7], s1 format:78",
        );
        check(
            "gfx1100",
            "0000b0e800010101",
            "tbuffer_load_format_x v1, off, s[4:7], s1 format:[BUF_FMT_32_FLOAT]",
        );
        check(
            "gfx1100",
            "000000ea00010101",
            "tbuffer_load_format_x v1, off, s[4:7], s1 format:64",
        );
    }

    /// Targets by generation (null and paramN are gone on GFX11), compr lane pairing.
    #[test]
    fn exports() {
        check(
            "gfx803",
            "0f1c00c400010203",
            "exp mrt0 v0, v0, v1, v1 done compr vm",
        );
        check(
            "gfx803",
            "0a0400c404050607",
            "exp mrt0 off, v4, off, v5 compr",
        );
        check("gfx900", "8f0000c400000000", "exp mrtz v0, v0, v0, v0");
        check(
            "gfx1030",
            "9f0800f800010203",
            "exp null v0, v1, v2, v3 done",
        );
        check("gfx1030", "4f0100f800010203", "exp prim v0, v1, v2, v3");
        check(
            "gfx1100",
            "9f0000f800010203",
            "exp invalid_target_9 v0, v1, v2, v3",
        );
        check(
            "gfx1100",
            "832800f804030000",
            "exp mrtz v4, v3, off, off done row_en",
        );
        check(
            "gfx1200",
            "630100f802030000",
            "export dual_src_blend1 v2, v3, off, off",
        );
    }

    /// dmask, dim, r128 (a16 on the GFX9 family), da, GFX12 th on images.
    #[test]
    fn image_fields() {
        check(
            "gfx1200",
            "000040d00000700000000000",
            "image_load v0, v0, s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_1D th:0x7",
        );
        check(
            "gfx1200",
            "008041d00000300000000000",
            "image_store v0, v0, s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_1D th:TH_STORE_RT_WB",
        );
        check(
            "gfx900",
            "004100f001050200",
            "image_load v5, v1, s[8:15] dmask:0x1 da",
        );
        check(
            "gfx900",
            "008808f1ff056200",
            "image_gather4h v[5:8], v255, s[8:15], s[12:15] dmask:0x8 a16",
        );
        check(
            "gfx90a",
            "00812cf002fc0300",
            "image_store_mip_pck v252, v2, s[12:19] dmask:0x1 a16",
        );
        check(
            "gfx1010",
            "00812cf002fc0300",
            "image_store_mip_pck v252, v[2:3], s[12:19] dmask:0x1 dim:SQ_RSRC_IMG_1D r128",
        );
        check(
            "gfx1100",
            "9c0330f002010300",
            "image_atomic_add v[1:2], v[2:5], s[12:19] dmask:0x3 dim:SQ_RSRC_IMG_2D_MSAA_ARRAY unorm",
        );
    }

    /// decodeAVLdSt: the acc bit counts from GFX90A only, and data operands follow an AGPR vdst.
    #[test]
    fn agprs_and_atomics() {
        check(
            "gfx90a",
            "7fff5cda01020306",
            "ds_wrxchg2_rtn_b32 a[6:7], v1, a2, a3 offset0:127 offset1:255",
        );
        check("gfx90a", "000040da01020005", "ds_add_rtn_u32 a5, v1, a2");
        check("gfx908", "000040da01020005", "ds_add_rtn_u32 v5, v1, v2");
        check(
            "gfx90a",
            "008005dd0202ff01",
            "global_atomic_cmpswap a1, v[2:3], a[2:3], off glc",
        );
        check(
            "gfx908",
            "008050dc0000ff01",
            "global_load_dword v1, v[0:1], off",
        );
        check(
            "gfx942",
            "008050dc0000ff01",
            "global_load_dword a1, v[0:1], off",
        );
    }

    /// convertMIMGInst and NSA: data width from dmask/d16/tfe (LLVM 19's atomic sizes included),
    /// address width from dim/a16 on GFX10+, NSA address bytes, partial NSA, BVH a16, and a tuple
    /// that would pass v255 left as decoded.
    #[test]
    fn image_conversion() {
        check(
            "gfx900",
            "000700f001050200",
            "image_load v[5:7], v1, s[8:15] dmask:0x7",
        );
        check(
            "gfx900",
            "000f00f001ff0200",
            "image_load v255, v1, s[8:15] dmask:0xf",
        );
        check(
            "gfx900",
            "000f01f001050200",
            "image_load v[5:9], v1, s[8:15] dmask:0xf tfe",
        );
        check(
            "gfx900",
            "000f00f001050280",
            "image_load v[5:6], v1, s[8:15] dmask:0xf d16",
        );
        check(
            "gfx803",
            "000f00f001050280",
            "image_load v[5:8], v1, s[8:15] dmask:0xf d16",
        );
        check(
            "gfx900",
            "000f48f001050200",
            "image_atomic_add v[5:9], v1, s[8:15] dmask:0xf",
        );
        check(
            "gfx900",
            "000748f001050200",
            "image_atomic_add v5, v1, s[8:15] dmask:0x7",
        );
        check(
            "gfx900",
            "000f44f001050200",
            "image_atomic_cmpswap v[5:8], v1, s[8:15] dmask:0xf",
        );
        check(
            "gfx900",
            "000149f001050200",
            "image_atomic_add v[5:6], v1, s[8:15] dmask:0x1 tfe",
        );
        check(
            "gfx1010",
            "080f88f000004040",
            "image_sample_d v[0:3], v[0:4], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D a16",
        );
        check(
            "gfx1010",
            "140f88f0000040400102030405060800",
            "image_sample_d  v[0:3], [v0, v1, v2, v3, v4, v5, v6, v8], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_3D a16",
        );
        check(
            "gfx1200",
            "0100c0d30108000002030000",
            "image_load v[1:4], [v2, v3], s[4:11] dmask:0xf dim:SQ_RSRC_IMG_2D",
        );
        check(
            "gfx1100",
            "808f69f001051900",
            "image_bvh64_intersect_ray v[5:8], v[1:9], s[100:103] a16",
        );
        check(
            "gfx1100",
            "850f00f00201010003000000",
            "image_load v[1:4], [v2, v3], s[4:11] dmask:0xf dim:SQ_RSRC_IMG_2D unorm",
        );
        check(
            "gfx1100",
            "050870f02040010410080024",
            "image_sample_d  v64, [v32, v16, v8, v0, v[36:37]], s[4:11], s[4:7] dmask:0x8 dim:SQ_RSRC_IMG_2D",
        );
        check(
            "gfx1100",
            "090370f02040010410080024",
            "image_sample_d  v[64:65], [v32, v16, v8, v0, v[36:40]], s[4:11], s[4:7] dmask:0x3 dim:SQ_RSRC_IMG_3D",
        );
    }

    /// Where the LLVM MC test vectors live (`GFXPATCH_VECTORS` overrides).
    fn vectors_path() -> std::path::PathBuf {
        std::env::var_os("GFXPATCH_VECTORS").map_or_else(
            || "/work/shared/vectors/llvm-19.1.7.jsonl.gz".into(),
            Into::into,
        )
    }

    /// LLVM's disassembler test files for memory instructions and exports.
    fn is_memory_file(name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        [
            "_ds",
            "flat",
            "mubuf",
            "mtbuf",
            "mimg",
            "_exp",
            "smem",
            "vbuffer",
            "vimage",
            "vsample",
            "ldst_acc",
            "buf_fmt",
            "global_load",
        ]
        .iter()
        .any(|k| name.contains(k))
    }

    /// A disassembler check: (test file, bytes, cpu, mattr, asm).
    type Vector = (String, String, String, String, String);

    /// The checks of LLVM's memory disassembler tests, one per distinct (bytes, cpu, mattr).
    fn memory_vectors() -> Option<Vec<Vector>> {
        use std::io::BufRead as _;
        let file = std::fs::File::open(vectors_path()).ok()?;
        let reader = std::io::BufReader::new(flate2::read::GzDecoder::new(file));
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for line in reader.lines() {
            let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
            let Some(name) = v["file"]
                .as_str()
                .and_then(|f| f.strip_prefix("llvm/test/MC/Disassembler/AMDGPU/"))
            else {
                continue;
            };
            let (Some(bytes), Some(asm)) = (v["bytes"].as_str(), v["asm"].as_str()) else {
                continue;
            };
            if !is_memory_file(name) || asm.contains("<unknown>") {
                continue;
            }
            for config in v["configs"].as_array().into_iter().flatten() {
                let cpu = match config["cpu"].as_str().unwrap_or("") {
                    "tonga" | "iceland" => "gfx802",
                    "fiji" => "gfx803",
                    "stoney" => "gfx810",
                    other => other,
                };
                let mattr = config["mattr"].as_str().unwrap_or("").to_ascii_lowercase();
                if seen.insert((bytes.to_owned(), cpu.to_owned(), mattr.clone())) {
                    out.push((
                        name.to_owned(),
                        bytes.to_owned(),
                        cpu.to_owned(),
                        mattr,
                        asm.to_owned(),
                    ));
                }
            }
        }
        Some(out)
    }

    /// Our decoder and printer against LLVM's own memory/export disassembler checks (whitespace
    /// runs compare equal, as in FileCheck), image instructions counted apart. Failures are listed in
    /// `$GFXPATCH_MEMORY_FAILURES` when set.
    #[test]
    fn llvm_memory_vectors() {
        let Some(vectors) = memory_vectors() else {
            eprintln!("skipped: no vectors at {}", vectors_path().display());
            return;
        };
        let mut decoders: std::collections::HashMap<(String, String), Option<(Target, Decoder)>> =
            Default::default();
        let (mut total, mut same, mut image_total, mut image_same) =
            (0usize, 0usize, 0usize, 0usize);
        let mut failures = String::new();
        for (file, bytes, cpu, mattr, asm) in &vectors {
            let entry = decoders
                .entry((cpu.clone(), mattr.clone()))
                .or_insert_with(|| {
                    let target = Target::from_name(cpu, mattr).ok()?;
                    Some((target, Decoder::new(target)))
                });
            let Some((target, decoder)) = entry else {
                continue;
            };
            let raw = hex(bytes);
            let inst = decoder.decode(&raw);
            let ours = if inst.len() == raw.len() {
                print::print(&inst, target, 0)
            } else {
                format!("<length {}> {inst:?}", inst.len())
            };
            let image = asm.starts_with("image_");
            let ok = ours.split_whitespace().eq(asm.split_whitespace());
            if image {
                image_total += 1;
                image_same += usize::from(ok);
            } else {
                total += 1;
                same += usize::from(ok);
            }
            if !ok {
                let record = inst
                    .encoding()
                    .map_or_else(|| "-".to_owned(), |e| e.record_name());
                let _ = writeln!(
                    failures,
                    "{file} {cpu} {mattr} {bytes} {record}: llvm `{asm}` ours `{ours}`"
                );
            }
        }
        if let Some(path) = std::env::var_os("GFXPATCH_MEMORY_FAILURES") {
            std::fs::write(path, &failures).unwrap();
        }
        eprintln!("memory vectors: {same}/{total} identical; image: {image_same}/{image_total}");
        assert!(
            total > 1_000 && image_total > 100,
            "only {total} + {image_total} vectors"
        );
        let first = || failures.lines().take(20).collect::<Vec<_>>().join("\n");
        assert!(
            same as f64 >= 0.99 * total as f64,
            "{same}/{total}; first failures:\n{}",
            first()
        );
        assert!(
            image_same as f64 >= 0.99 * image_total as f64,
            "image {image_same}/{image_total}; first failures:\n{}",
            first()
        );
    }
}
