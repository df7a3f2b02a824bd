//! The encoder: operands back to bytes, the inverse of [`super::operand::decode_operands`].
//!
//! [`encode`] writes an operand list (in exactly the form the decoder produces: MC order, tied
//! operands repeated, MIMG `converted` records, true16 halves, literals and K constants) into an
//! encoding's fields, in the canonical form LLVM's code emitter writes: bits the hardware ignores
//! are 0, except where LLVM's emitter fills them in (see [`canonical_extras`]).
//! [`encode_like`] re-encodes an existing instruction: operands whose value did not change keep
//! their bits exactly, and bits no field covers keep the template's, so
//! `encode_like(inst, decode(inst)) == inst` for every instruction the decoder accepts.
//!
//! Both check their work by decoding the result: the bytes produced must decode, through the same
//! encoding, to exactly the operands asked for. An operand that does not fit its field, a value
//! the operand class cannot hold, two different literals, a tied operand that differs from its
//! partner: each is an [`EncodeError`] naming the operand, never silently different bytes.
//!
//! Canonical `encode` differs from the input bytes only in bits the decoder ignores (and so the
//! operands cannot carry): e.g. ROCm's compiler wrote 0 in the unused destination byte of
//! `v_cmpx_*_e64` on gfx1030 where LLVM writes 0x7e (EXEC_LO); SGPR tuples' low index bits;
//! reserved bits. `encode_like` keeps those.

pub mod build;
pub mod constant;
mod conventions;

pub use build::Builder;
pub use conventions::{Conventions, Observer};

use std::fmt;

use super::inst::Inst;
use super::operand::{decode_operands, has_64bit_literals, DecodeFail, max_inst_bytes, method_of, Method, Op, Operands, Value};
use super::predicates::{self, PredContext};
use super::processor::Generation;
use super::reg::{Reg, Special};
use super::table::{flag, Encoding, FieldBits, Opcode, OperandName};
use super::target::Target;

/// Why operands cannot be encoded. Each names what to change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// The encoding is not from the instruction tables.
    UnknownEncoding,
    /// The encoding is not an instruction of this target (wrong LLVM records or a predicate
    /// such as the generation or wave size does not hold).
    NotOnTarget { opcode: Opcode, suffix: &'static str, target: Target },
    /// The operand list lacks an operand the encoding has.
    MissingOperand { operand: OperandName },
    /// An immediate wider than its field.
    FieldOverflow { operand: OperandName, value: i64, bits: u32 },
    /// A value this operand cannot hold (a register of the wrong file or width, a constant
    /// where only registers go, an unaligned tuple...). `reads_back` is what the field would
    /// decode to, when it decodes at all.
    NotEncodable { operand: OperandName, value: Value, reads_back: Option<Value> },
    /// A literal constant where the encoding has no room for one on this target.
    LiteralNotAllowed { operand: OperandName },
    /// Two different literal constants: an instruction carries at most one.
    TwoLiterals { first: u64, second: u64 },
}

impl std::error::Error for EncodeError {}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EncodeError::UnknownEncoding => f.write_str("the encoding is not one of the instruction tables' records"),
            EncodeError::NotOnTarget { opcode, suffix, target } => {
                write!(f, "{}{suffix} is not an instruction of {target}", opcode.name())
            }
            EncodeError::MissingOperand { operand } => write!(f, "operand {} is missing", operand.name()),
            EncodeError::FieldOverflow { operand, value, bits } => {
                write!(f, "operand {}: {value} does not fit its {bits}-bit field", operand.name())
            }
            EncodeError::NotEncodable { operand, value, reads_back } => {
                write!(f, "operand {}: {} cannot be encoded here", operand.name(), ValueText(value))?;
                match reads_back {
                    Some(back) => write!(f, " (the bits would read back as {})", ValueText(back)),
                    None => Ok(()),
                }
            }
            EncodeError::LiteralNotAllowed { operand } => write!(
                f,
                "operand {}: a literal constant is not allowed in this encoding on this target (use a register or an inline constant)",
                operand.name()
            ),
            EncodeError::TwoLiterals { first, second } => {
                write!(f, "two different literal constants ({first:#x} and {second:#x}); an instruction holds one")
            }
        }
    }
}

/// An operand value as a user reads it.
struct ValueText(Value);

impl fmt::Display for ValueText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Value::Reg(r) => write!(f, "{r}"),
            Value::Imm(v) | Value::InlineInt(v) => write!(f, "{v}"),
            Value::InlineFloat(code) => write!(f, "inline constant {code}"),
            Value::Literal(l) => write!(f, "literal {l:#x}"),
            Value::Literal64(l) => write!(f, "64-bit literal {l:#x}"),
            Value::None => f.write_str("no register"),
        }
    }
}

/// The canonical encoding of `ops` (operand list in `decode_operands` form) in `encoding` for
/// `target`: what LLVM's code emitter writes for the same MCInst.
pub fn encode(encoding: &'static Encoding, ops: &Operands, target: &Target) -> Result<Inst, EncodeError> {
    encode_with(encoding, ops, target, &Conventions::LLVM)
}

/// [`encode`], filling the bits no operand carries as `conventions` say (a code object's
/// producer's, to re-assemble its text to its bytes) instead of as LLVM does.
pub fn encode_with(
    encoding: &'static Encoding,
    ops: &Operands,
    target: &Target,
    conventions: &Conventions,
) -> Result<Inst, EncodeError> {
    let index = encoding_index(encoding)?;
    check_target(encoding, target)?;
    let mut word = encoding.value;
    let mut nsa = Nsa::default();
    let mut literal = LiteralSlot::new(encoding);
    for (i, (operand, bits)) in encoding.operands.iter().zip(encoding.fields).enumerate() {
        let value = operand_value(encoding, ops, i)?;
        if bits.is_empty() {
            continue;
        }
        let Some(value) = value else {
            // An NSA address the converted record dropped: LLVM never sees it; it writes 0.
            continue;
        };
        let code = field_code(operand.name, method_of(operand.class), value, target, &mut literal)?;
        word |= deposit(bits, code);
    }
    word |= canonical_extras(encoding, target, conventions) & !(encoding.mask | covered_bits(encoding));
    nsa.fill(encoding, ops, target, None)?;
    let size = encoding.bits as usize / 8;
    finish(index, encoding, word, size, &literal, &nsa, None, ops, target)
}

/// Re-encodes `template`'s instruction with `ops`: operands equal to the template's keep their
/// bits exactly (ignored bits included); changed operands get canonical fields. With the
/// template's own operands this returns the template.
pub fn encode_like(template: &Inst, ops: &Operands, target: &Target) -> Result<Inst, EncodeError> {
    let encoding = template.encoding().ok_or(EncodeError::UnknownEncoding)?;
    let index = encoding_index(encoding)?;
    check_target(encoding, target)?;
    let bytes = template.bytes();
    let tail_at = template.tail_at();
    let old_word = template.encoded_bits();
    let old = decode_operands(encoding, old_word, &bytes[tail_at.min(bytes.len())..], target).ok();
    let mut word = old_word;
    let mut literal = LiteralSlot::new(encoding);
    for (i, (operand, bits)) in encoding.operands.iter().zip(encoding.fields).enumerate() {
        let Some(value) = operand_value(encoding, ops, i)? else { continue };
        let method = method_of(operand.class);
        let unchanged = old.as_ref().and_then(|o| operand_value(encoding, o, i).ok().flatten()) == Some(value);
        if unchanged {
            // Keep the bits; still account for a literal so a second, different one is caught.
            note_literal(operand.name, method, value, target, &mut literal)?;
            continue;
        }
        if bits.is_empty() {
            continue;
        }
        let code = field_code(operand.name, method, value, target, &mut literal)?;
        word = (word & !deposit(bits, u64::MAX)) | deposit(bits, code);
    }
    let mut nsa = Nsa::default();
    nsa.fill(encoding, ops, target, Some(&bytes))?;
    finish(index, encoding, word, encoding.bits as usize / 8, &literal, &nsa, Some((tail_at, &bytes)), ops, target)
}

/// The value operand `i` of `encoding` takes in `ops`: by position when `ops` is in the
/// encoding's order, by name when it is in a converted record's order (MIMG). `None` for an
/// operand the converted record does not have.
fn operand_value(encoding: &Encoding, ops: &Operands, i: usize) -> Result<Option<Value>, EncodeError> {
    let operand = &encoding.operands[i];
    let list = ops.as_slice();
    if let Some(op) = list.get(i)
        && op.name == operand.name
        && (ops.converted.is_none() || list.len() == encoding.operands.len())
    {
        return Ok(Some(op.value));
    }
    match ops.value(operand.name) {
        Some(v) => Ok(Some(v)),
        None if ops.converted.is_some() => Ok(None),
        None => Err(EncodeError::MissingOperand { operand: operand.name }),
    }
}

fn encoding_index(encoding: &'static Encoding) -> Result<u16, EncodeError> {
    super::table::index_of(encoding).ok_or(EncodeError::UnknownEncoding)
}

/// The record must be one of the target's: its LLVM version, and the predicates the decoder
/// checks (generation, features, wave size) must hold.
fn check_target(encoding: &'static Encoding, target: &Target) -> Result<(), EncodeError> {
    let ctx = PredContext::of(target);
    let holds = encoding.preds.iter().all(|&p| !predicates::checked_by_decoder(p) || predicates::holds(p, &ctx));
    if encoding.llvm != target.llvm_version() || !holds {
        return Err(EncodeError::NotOnTarget { opcode: encoding.opcode, suffix: encoding.suffix, target: *target });
    }
    Ok(())
}

/// The instruction bits `field` occupies through `bits` (field bits not in any run are dropped).
fn deposit(bits: FieldBits, field: u64) -> u128 {
    let mut word = 0u128;
    for &(lo, hi, field_lo) in bits {
        let width = u32::from(hi - lo) + 1;
        let part = (field >> field_lo) & (u64::MAX >> (64 - width));
        word |= u128::from(part) << lo;
    }
    word
}

/// The field bits `bits` can hold.
fn field_mask(bits: FieldBits) -> u64 {
    bits.iter().fold(0, |m, &(lo, hi, field_lo)| m | ((u64::MAX >> (63 - u32::from(hi - lo))) << field_lo))
}

/// Instruction bits covered by any operand field.
fn covered_bits(encoding: &Encoding) -> u128 {
    encoding.fields.iter().fold(0, |m, bits| m | deposit(bits, u64::MAX))
}

/// Bits the encoder sets beyond the operands' fields, as LLVM's code emitter does
/// (`encodeInstruction`):
/// - VOP3P (and GFX908's `v_accvgpr_read/write`) set the op_sel_hi bits of sources the
///   instruction does not have;
/// - GFX10+ `v_cmpx_*_e64` write EXEC_LO (0x7e) in the destination byte the hardware ignores,
///   or what `conventions` say (a producer that left it 0).
///
/// Only bits no field covers and no pattern fixes are taken.
pub fn canonical_extras(encoding: &Encoding, target: &Target, conventions: &Conventions) -> u128 {
    const OP_SEL_HI_0: u128 = 1 << 59;
    const OP_SEL_HI_1: u128 = 1 << 60;
    const OP_SEL_HI_2: u128 = 1 << 14;
    let mut extra = 0;
    let name = encoding.opcode.name();
    let accvgpr_vi = encoding.suffix == "_vi" && matches!(name, "V_ACCVGPR_READ_B32" | "V_ACCVGPR_WRITE_B32");
    if is_vop3p(encoding, target) || accvgpr_vi {
        let has = |n: OperandName| encoding.operand_index(n).is_some();
        extra |= if has(OperandName::op_sel_hi) {
            if has(OperandName::src2) {
                0
            } else if has(OperandName::src1) {
                OP_SEL_HI_2
            } else if has(OperandName::src0) {
                OP_SEL_HI_1 | OP_SEL_HI_2
            } else {
                OP_SEL_HI_0 | OP_SEL_HI_1 | OP_SEL_HI_2
            }
        } else {
            OP_SEL_HI_0 | OP_SEL_HI_1 | OP_SEL_HI_2
        };
    }
    extra | conventions.extras(encoding, target)
}

/// Whether LLVM's TSFlags say VOP3P. Our records carry the flags of LLVM's *real* records, which
/// lack the VOP3P bit their pseudos have; the VOP3P encoding's fixed prefix says it instead
/// (bits 31..23 = 0x1a7 before GFX10, bits 31..24 = 0xcc from GFX10). GFX950's 128-bit
/// `v_mfma_scale_*` (a `v_mfma_ld_scale` prefix, then the MFMA) are MAI, not VOP3P: LLVM 22's
/// encodings leave the prefix's op_sel_hi bits clear.
fn is_vop3p(encoding: &Encoding, target: &Target) -> bool {
    let prefix: u128 = if target.generation().is_gfx10_plus() { 0xff00_0000 } else { 0xff80_0000 };
    let value: u128 = if target.generation().is_gfx10_plus() { 0xcc00_0000 } else { 0xd380_0000 };
    encoding.flags.has(flag::VOP3P) || (matches!(encoding.bits, 64 | 96) && encoding.mask & prefix == prefix && encoding.value & prefix == value)
}

/// The one literal constant an instruction may carry, as the decoder reads it: the first source
/// selecting a literal in MC order fixes its width (4 bytes, or 8 for a GFX1250 64-bit literal).
/// With a K constant in the encoding, sources selecting the literal read the K.
struct LiteralSlot {
    value: Option<u64>,
    bytes: u8,
    /// The encoding holds a K constant: sources' literals must equal it and add no bytes.
    k: bool,
}

impl LiteralSlot {
    fn new(encoding: &Encoding) -> LiteralSlot {
        let k = encoding.operands.iter().any(|o| matches!(method_of(o.class), Method::KImm { .. }));
        LiteralSlot { value: None, bytes: 0, k }
    }

    fn set(&mut self, value: u64, bytes: u8) -> Result<(), EncodeError> {
        match self.value {
            None => {
                self.value = Some(value);
                self.bytes = bytes;
                Ok(())
            }
            // The decoder reuses a literal read once: a 32-bit source of a 64-bit literal reads
            // its low dword, a 64-bit source of a 32-bit literal its zero extension.
            Some(v) if v == value || (bytes == 4 && v as u32 == value as u32) => Ok(()),
            Some(v) => Err(EncodeError::TwoLiterals { first: v, second: value }),
        }
    }
}

/// Accounts for the literal an unchanged operand carries (`encode_like`).
fn note_literal(name: OperandName, method: Method, value: Value, target: &Target, literal: &mut LiteralSlot) -> Result<(), EncodeError> {
    match (method, value) {
        (Method::KImm { .. }, Value::Literal(k)) => literal.set(u64::from(k), 0),
        (Method::KImm { .. }, Value::Literal64(k)) => literal.set(k, 0),
        (Method::Imm, _) => Ok(()),
        (_, Value::Literal(_) | Value::Literal64(_)) => field_code(name, method, value, target, literal).map(drop),
        _ => Ok(()),
    }
}

/// The field value that decodes to `value` under `method`: the inverse of the decoder's
/// per-class methods. Bits the decoder implies (an AGPR or VGPR marker bit outside the field)
/// are dropped when deposited; the final decode check catches any value that does not read back.
fn field_code(name: OperandName, method: Method, value: Value, target: &Target, literal: &mut LiteralSlot) -> Result<u64, EncodeError> {
    let generation = target.generation();
    let not_encodable = || EncodeError::NotEncodable { operand: name, value, reads_back: None };
    let code = match method {
        Method::Src { .. } | Method::AccVector { .. } | Method::Bool => src_code(name, value, target, literal)?,
        Method::Vector { .. } => match value {
            Value::Reg(Reg::Vgpr { index, .. } | Reg::Agpr { index, .. }) => index,
            _ => return Err(not_encodable()),
        },
        Method::Scalar { .. } => match value {
            Value::Reg(r) => scalar_code(r, generation).ok_or_else(not_encodable)?,
            _ => return Err(not_encodable()),
        },
        Method::KImm { .. } => {
            let k = match value {
                Value::Literal(k) => u64::from(k),
                Value::Literal64(k) => k,
                _ => return Err(not_encodable()),
            };
            literal.set(k, 0)?;
            return Ok(k);
        }
        Method::SmemOffset | Method::Imm => match value {
            Value::Imm(v) => return Ok(v as u64),
            _ => return Err(not_encodable()),
        },
        Method::SdwaSrc => match value {
            Value::Reg(Reg::Vgpr { index, .. }) => index,
            Value::Reg(r) => 256 + scalar_code(r, generation).ok_or_else(not_encodable)?,
            Value::InlineInt(v) => 256 + inline_int_code(v).ok_or_else(not_encodable)?,
            Value::InlineFloat(c) => 256 + c,
            _ => return Err(not_encodable()),
        },
        Method::SdwaVopcDst => match value {
            Value::Reg(Reg::Special(Special::Vcc | Special::VccLo)) => 0,
            Value::Reg(r) => 0x80 | scalar_code(r, generation).ok_or_else(not_encodable)?,
            _ => return Err(not_encodable()),
        },
        Method::Dpp8Fi => match value {
            Value::Imm(0) => 0xe9,
            Value::Imm(1) => 0xea,
            _ => return Err(not_encodable()),
        },
        Method::T16 { lo128, src } => match value {
            Value::Reg(Reg::Vgpr16 { index, hi }) => {
                let vgpr = if src { 0x100 } else { 0 };
                if lo128 { vgpr | if hi { 0x80 } else { 0 } | index } else { vgpr | if hi { 0x200 } else { 0 } | index }
            }
            _ if src => src_code(name, value, target, literal)? & 0xff,
            _ => return Err(not_encodable()),
        },
        Method::VopdDstY => match value {
            Value::Reg(Reg::Vgpr { index, .. }) => index,
            _ => return Err(not_encodable()),
        },
    };
    Ok(u64::from(code))
}

/// A 9-bit source code (bit 9 marks AGPRs): registers, inline constants, literals.
fn src_code(name: OperandName, value: Value, target: &Target, literal: &mut LiteralSlot) -> Result<u16, EncodeError> {
    let not_encodable = || EncodeError::NotEncodable { operand: name, value, reads_back: None };
    Ok(match value {
        Value::Reg(Reg::Vgpr { index, .. }) => 256 + index,
        Value::Reg(Reg::Agpr { index, .. }) => 0x200 | (256 + index),
        Value::Reg(Reg::Vgpr16 { index, hi }) => 256 + index + if hi { 0x200 } else { 0 },
        Value::Reg(r) => scalar_code(r, target.generation()).ok_or_else(not_encodable)?,
        Value::InlineInt(v) => inline_int_code(v).ok_or_else(not_encodable)?,
        Value::InlineFloat(c) if (240..=248).contains(&c) => c,
        Value::Literal(l) => {
            literal.set(u64::from(l), 4)?;
            255
        }
        Value::Literal64(l) if has_64bit_literals(target) => {
            literal.set(l, 8)?;
            254
        }
        _ => return Err(not_encodable()),
    })
}

/// The source encoding of an integer inline constant (-16..=64).
fn inline_int_code(v: i64) -> Option<u16> {
    match v {
        0..=64 => Some(128 + v as u16),
        -16..=-1 => Some((192 - v) as u16),
        _ => None,
    }
}

/// The scalar-side encoding of a register: SGPRs, trap temporaries and special registers,
/// whose encodings move between generations (the decoder's `scalar` read backwards).
fn scalar_code(reg: Reg, generation: Generation) -> Option<u16> {
    let gfx10 = generation.is_gfx10_plus();
    let gfx11 = generation >= Generation::Gfx11;
    let gfx8 = generation == Generation::Gfx8;
    Some(match reg {
        Reg::Sgpr { index, .. } => index,
        Reg::Ttmp { index, .. } => index + if generation >= Generation::Gfx9 { 108 } else { 112 },
        Reg::Special(s) => match s {
            Special::FlatScratchLo | Special::FlatScratch if !gfx10 => 102,
            Special::FlatScratchHi if !gfx10 => 103,
            Special::XnackMaskLo | Special::XnackMask if !gfx10 => 104,
            Special::XnackMaskHi if !gfx10 => 105,
            Special::VccLo | Special::Vcc => 106,
            Special::VccHi => 107,
            Special::TbaLo | Special::Tba if gfx8 => 108,
            Special::TbaHi if gfx8 => 109,
            Special::TmaLo | Special::Tma if gfx8 => 110,
            Special::TmaHi if gfx8 => 111,
            Special::M0 => if gfx11 { 125 } else { 124 },
            Special::Null => if gfx11 { 124 } else { 125 },
            Special::ExecLo | Special::Exec => 126,
            Special::ExecHi => 127,
            Special::SrcFlatScratchBaseLo => 230,
            Special::SrcFlatScratchBaseHi => 231,
            Special::SrcSharedBase => 235,
            Special::SrcSharedLimit => 236,
            Special::SrcPrivateBase => 237,
            Special::SrcPrivateLimit => 238,
            Special::SrcPopsExitingWaveId => 239,
            Special::SrcVccz => 251,
            Special::SrcExecz => 252,
            Special::SrcScc => 253,
            Special::LdsDirect => 254,
            _ => return None,
        },
        Reg::Vgpr { .. } | Reg::Agpr { .. } | Reg::Vgpr16 { .. } => return None,
    })
}

/// MIMG NSA (GFX10+): the address VGPRs after `vaddr0`, one byte each in the dwords after the
/// encoding, padded to a dword.
#[derive(Default)]
struct Nsa {
    bytes: Vec<u8>,
}

impl Nsa {
    fn fill(&mut self, encoding: &Encoding, ops: &Operands, target: &Target, template: Option<&[u8]>) -> Result<(), EncodeError> {
        if !encoding.flags.has(flag::MIMG) || !target.generation().is_gfx10_plus() {
            return Ok(());
        }
        let index = |n: OperandName| encoding.operand_index(n);
        let (Some(v0), Some(rsrc)) = (index(OperandName::vaddr0), index(OperandName::srsrc).or_else(|| index(OperandName::rsrc))) else {
            return Ok(());
        };
        let extra = rsrc.saturating_sub(v0 + 1);
        if extra == 0 {
            return Ok(());
        }
        let at = encoding.bits as usize / 8;
        self.bytes = match template {
            Some(t) => t.get(at..at + extra.next_multiple_of(4)).map_or_else(|| vec![0; extra.next_multiple_of(4)], <[u8]>::to_vec),
            None => vec![0; extra.next_multiple_of(4)],
        };
        for i in 0..extra {
            let operand = &encoding.operands[v0 + 1 + i];
            match operand_value(encoding, ops, v0 + 1 + i)? {
                Some(Value::Reg(Reg::Vgpr { index, .. })) if index < 256 => self.bytes[i] = index as u8,
                Some(value) => return Err(EncodeError::NotEncodable { operand: operand.name, value, reads_back: None }),
                None => {}
            }
        }
        Ok(())
    }
}

/// Lays out the bytes (encoded bits, NSA dwords, literal), checks the length, and decodes the
/// result to confirm it reads back as `ops`.
#[allow(clippy::too_many_arguments)]
fn finish(
    index: u16,
    encoding: &'static Encoding,
    word: u128,
    size: usize,
    literal: &LiteralSlot,
    nsa: &Nsa,
    template: Option<(usize, &[u8])>,
    ops: &Operands,
    target: &Target,
) -> Result<Inst, EncodeError> {
    let mut bytes = [0u8; 32];
    bytes[..16].copy_from_slice(&word.to_le_bytes());
    let mut len = size;
    bytes[len..len + nsa.bytes.len()].copy_from_slice(&nsa.bytes);
    len += nsa.bytes.len();
    // The literal follows the encoded bits; a GFX1250 64-bit literal may be read from inside a
    // 96-bit pattern (the template says where).
    let tail_at = template.map_or(size, |(at, _)| at);
    let literal_bytes = if literal.k { 0 } else { literal.bytes as usize };
    if let (Some(value), true) = (literal.value, literal_bytes > 0) {
        if tail_at + literal_bytes > max_inst_bytes(target) {
            let operand = first_literal_operand(ops).unwrap_or(OperandName::ALL[0]);
            return Err(EncodeError::LiteralNotAllowed { operand });
        }
        bytes[tail_at..tail_at + literal_bytes].copy_from_slice(&value.to_le_bytes()[..literal_bytes]);
        len = len.max(tail_at + literal_bytes);
    }
    let word = u128::from_le_bytes(bytes[..16].try_into().unwrap()) & (u128::MAX >> (128 - u32::from(encoding.bits)));
    verify(encoding, word, &bytes[tail_at..len.max(tail_at)], ops, target)?;
    Ok(Inst::new(index, &bytes[..len], tail_at))
}

fn first_literal_operand(ops: &Operands) -> Option<OperandName> {
    ops.as_slice().iter().find(|o| matches!(o.value, Value::Literal(_) | Value::Literal64(_))).map(|o| o.name)
}

/// Decodes the encoded bytes through `encoding` and compares with what was asked for.
fn verify(encoding: &'static Encoding, word: u128, tail: &[u8], ops: &Operands, target: &Target) -> Result<(), EncodeError> {
    let back = decode_operands(encoding, word, tail, target).map_err(|fail| undecodable(encoding, word, ops, fail))?;
    let same_record = match (back.converted, ops.converted) {
        (None, None) => true,
        (Some(a), Some(b)) => std::ptr::eq(a, b),
        _ => false,
    };
    if back.as_slice() == ops.as_slice() && same_record {
        return Ok(());
    }
    // Name the first operand that reads back differently.
    for (i, want) in ops.as_slice().iter().enumerate() {
        let got = back.as_slice().get(i).filter(|g| g.name == want.name).or_else(|| back.get(want.name)).copied();
        if got.map(|g| g.value) != Some(want.value) {
            return Err(mismatch(encoding, *want, got.map(|g| g.value)));
        }
    }
    Err(match back.as_slice().iter().find(|b| ops.get(b.name).is_none()) {
        Some(b) => EncodeError::MissingOperand { operand: b.name },
        // Same operands, another record: a MIMG conversion the operands do not imply.
        None => EncodeError::NotOnTarget { opcode: encoding.opcode, suffix: encoding.suffix, target: *target },
    })
}

/// The error for an operand that reads back as `got`: an immediate wider than its field is an
/// overflow; anything else is not encodable.
fn mismatch(encoding: &Encoding, want: Op, got: Option<Value>) -> EncodeError {
    if let (Value::Imm(v), Some(i)) = (want.value, encoding.operand_index(want.name)) {
        let mask = field_mask(encoding.fields[i]);
        if matches!(method_of(want.class), Method::Imm | Method::SmemOffset) && mask != 0 && (v as u64) & !mask != 0 {
            return EncodeError::FieldOverflow { operand: want.name, value: v, bits: 64 - mask.leading_zeros() };
        }
    }
    EncodeError::NotEncodable { operand: want.name, value: want.value, reads_back: got }
}

/// The error for bytes that do not decode at all: the operand whose field holds the register
/// encoding the decoder refused, or else the first literal (read past the instruction limit).
fn undecodable(encoding: &Encoding, word: u128, ops: &Operands, fail: DecodeFail) -> EncodeError {
    let blame = |op: &Op| EncodeError::NotEncodable { operand: op.name, value: op.value, reads_back: None };
    if let DecodeFail::BadRegister(code) | DecodeFail::BadDpp8Marker(code) = fail {
        for (operand, bits) in encoding.operands.iter().zip(encoding.fields) {
            let field = super::table::extract(bits, word) as u16;
            if !bits.is_empty() && (field == code || field & 0x1ff == code)
                && let Some(op) = ops.get(operand.name)
            {
                return blame(op);
            }
        }
    }
    match ops.as_slice().iter().find(|o| matches!(o.value, Value::Literal(_) | Value::Literal64(_))) {
        Some(op) if fail == DecodeFail::LiteralPastEnd => EncodeError::LiteralNotAllowed { operand: op.name },
        _ => ops.as_slice().first().map_or(EncodeError::UnknownEncoding, blame),
    }
}

#[cfg(test)]
mod tests;
