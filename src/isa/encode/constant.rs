//! Constants in source operands: which values an operand class takes as an inline constant,
//! and where a literal may go. The assembler uses these to pick the shortest legal form; the
//! rules are LLVM's code emitter's (`getLit*Encoding`, `getInlineEncodingV2*`).

use crate::isa::operand::{max_inst_bytes, method_of, Method, Value};
use crate::isa::table::{Encoding, OperandClass};
use crate::isa::target::Target;

/// How an operand reads an immediate, from its LLVM operand type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstantKind {
    Int32,
    Fp32,
    Int64,
    Fp64,
    /// 16-bit integers take 32-bit float patterns as inline floats (LLVM's `getLit16IntEncoding`).
    Int16,
    Fp16,
    Bf16,
    V2Int16,
    V2Fp16,
    V2Bf16,
    /// A K constant inside the encoding: any value, never inline.
    K,
}

impl ConstantKind {
    /// The kind of an operand class, or `None` for classes that take no source constants.
    pub fn of(class: OperandClass) -> Option<ConstantKind> {
        use ConstantKind::*;
        let ty = class.info().operand_type;
        let ty = ty.strip_prefix("OPERAND_")?;
        Some(match ty {
            "KIMM16" | "KIMM32" | "KIMM64" => K,
            "INLINE_SPLIT_BARRIER_INT32" => Int32,
            _ => {
                let kind = ty.strip_prefix("REG_IMM_").or_else(|| ty.strip_prefix("REG_INLINE_C_")).or_else(|| ty.strip_prefix("REG_INLINE_AC_"))?;
                match kind.trim_end_matches("_DEFERRED").trim_end_matches("_SPLAT") {
                    "INT32" | "V2INT32" => Int32,
                    "FP32" | "V2FP32" => Fp32,
                    "INT64" => Int64,
                    "FP64" => Fp64,
                    "INT16" => Int16,
                    "FP16" => Fp16,
                    "BF16" => Bf16,
                    "V2INT16" => V2Int16,
                    "V2FP16" | "NOINLINE_V2FP16" => V2Fp16,
                    "V2BF16" => V2Bf16,
                    _ => return None,
                }
            }
        })
    }
}

/// Float bit patterns of the inline constants 240..=248 (0.5, -0.5, 1, -1, 2, -2, 4, -4, 1/(2pi)).
const F32: [u64; 9] = [0x3f00_0000, 0xbf00_0000, 0x3f80_0000, 0xbf80_0000, 0x4000_0000, 0xc000_0000, 0x4080_0000, 0xc080_0000, 0x3e22_f983];
const F64: [u64; 9] = [
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
const F16: [u64; 9] = [0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118];
const BF16: [u64; 9] = [0x3f00, 0xbf00, 0x3f80, 0xbf80, 0x4000, 0xc000, 0x4080, 0xc080, 0x3e22];

/// The inline constant LLVM encodes `value` as in an operand of `kind` (`value` is the operand's
/// bits: the low 16, 32 or 64 bits count by kind), or `None` when it needs a literal. All
/// generations gfxpatch handles have the 1/(2pi) constant (FeatureInv2PiInlineImm, GFX8+).
pub fn inline_constant(value: u64, kind: ConstantKind) -> Option<Value> {
    use ConstantKind::*;
    let int = |v: i64| (-16..=64).contains(&v).then_some(Value::InlineInt(v));
    let float = |table: &[u64; 9], bits: u64| table.iter().position(|&t| t == bits).map(|i| Value::InlineFloat(240 + i as u16));
    match kind {
        Int32 | Fp32 => int(i64::from(value as u32 as i32)).or_else(|| float(&F32, u64::from(value as u32))),
        Int64 | Fp64 => int(value as i64).or_else(|| float(&F64, value)),
        Int16 => int(i64::from(value as u32 as i32)).or_else(|| float(&F32, u64::from(value as u32))),
        Fp16 => int(i64::from(value as u16 as i16)).or_else(|| float(&F16, u64::from(value as u16))),
        Bf16 => int(i64::from(value as u16 as i16)).or_else(|| float(&BF16, u64::from(value as u16))),
        // Packed: integers are sign-extended 32-bit values; floats sit in the low half.
        V2Int16 => int(i64::from(value as u32 as i32)).or_else(|| float(&F32, u64::from(value as u32))),
        V2Fp16 => int(i64::from(value as u32 as i32)).or_else(|| float(&F16, u64::from(value as u32))),
        V2Bf16 => int(i64::from(value as u32 as i32)).or_else(|| float(&BF16, u64::from(value as u32))),
        K => None,
    }
}

/// Whether operand `index` of `encoding` can take a literal constant on `target` at all: its
/// decoder method reads one, and the instruction with a 4-byte literal stays within the
/// target's instruction limit (no VOP3 literals before GFX10).
pub fn literal_allowed(encoding: &Encoding, index: usize, target: &Target) -> bool {
    let Some(operand) = encoding.operands.get(index) else { return false };
    let reads_literal = match method_of(operand.class) {
        Method::Src { literal, .. } => literal,
        Method::T16 { src, .. } => src,
        Method::KImm { .. } => return true,
        _ => false,
    };
    reads_literal && encoding.bits as usize / 8 + 4 <= max_inst_bytes(target)
}

/// Whether an operand of `class` can hold an inline constant at all (a source, not a register
/// class or a plain immediate).
pub fn takes_inline_constants(class: OperandClass) -> bool {
    matches!(method_of(class), Method::Src { .. } | Method::T16 { src: true, .. } | Method::SdwaSrc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_constants_follow_llvm() {
        assert_eq!(inline_constant(64, ConstantKind::Int32), Some(Value::InlineInt(64)));
        assert_eq!(inline_constant(65, ConstantKind::Int32), None);
        assert_eq!(inline_constant(u64::from((-16i32) as u32), ConstantKind::Int32), Some(Value::InlineInt(-16)));
        assert_eq!(inline_constant(0x3f80_0000, ConstantKind::Fp32), Some(Value::InlineFloat(242)));
        assert_eq!(inline_constant(0x3ff0_0000_0000_0000, ConstantKind::Fp64), Some(Value::InlineFloat(242)));
        // 1.0 as f32 bits is no inline constant of a 64-bit operand.
        assert_eq!(inline_constant(0x3f80_0000, ConstantKind::Fp64), None);
        assert_eq!(inline_constant(0x3c00, ConstantKind::Fp16), Some(Value::InlineFloat(242)));
        assert_eq!(inline_constant(0x3e22, ConstantKind::Bf16), Some(Value::InlineFloat(248)));
        // A 16-bit integer operand takes 32-bit float patterns.
        assert_eq!(inline_constant(0x3f80_0000, ConstantKind::Int16), Some(Value::InlineFloat(242)));
        assert_eq!(inline_constant(0x3c00, ConstantKind::Int16), None);
        assert_eq!(inline_constant(5, ConstantKind::K), None);
    }

    #[test]
    fn kinds_from_operand_types() {
        let kind = |name: &str| {
            let class = OperandClass::ALL.iter().copied().find(|c| c.name() == name).unwrap();
            ConstantKind::of(class)
        };
        assert_eq!(kind("VSrc_f32"), Some(ConstantKind::Fp32));
        assert_eq!(kind("VSrc_b64"), Some(ConstantKind::Int64));
        assert_eq!(kind("VGPR_32"), None);
    }
}
