//! Decoded operands: what an instruction's fields mean, in LLVM's MC operand order.
//!
//! [`decode_operands`] turns an encoding plus the instruction bits into [`Operands`], the
//! equivalent of LLVM's `MCInst` after its disassembler's fix-ups: every operand of the
//! encoding's `outs`/`ins` with a [`Value`]. The printer and later passes read operands from
//! here; nothing is stored in [`super::Inst`] itself.

use super::processor::Generation;
use super::reg::{self, Reg, Special};
use super::table::{Encoding, OperandClass, OperandName, extract, flag};
use super::target::Target;

/// What one operand holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    Reg(Reg),
    /// An immediate field (offsets, masks, modifiers, control words) as decoded.
    Imm(i64),
    /// An inline integer constant of a source operand (-16..=64).
    InlineInt(i64),
    /// An inline float constant of a source operand, by its encoding (240..=248).
    InlineFloat(u16),
    /// A literal constant read after the instruction (or a K constant inside it): the dword as
    /// stored. For FP64 operands the dword is the high half of the value.
    Literal(u32),
    /// A 64-bit literal (GFX1250 `KImmFP64` and 64-bit literal forms).
    Literal64(u64),
    /// No register (LLVM's `NoRegister`), e.g. the `old` operand filled in for MAC DPP forms.
    None,
}

/// One decoded operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op {
    pub name: OperandName,
    pub class: OperandClass,
    pub value: Value,
}

/// Most operands any encoding has (MIMG with NSA, VOPD and VOP3P DPP stay well under).
pub const MAX_OPERANDS: usize = 24;

/// An instruction's operands in MC order, with the extra bytes decoding consumed.
#[derive(Clone, Copy, Debug)]
pub struct Operands {
    ops: [Op; MAX_OPERANDS],
    len: u8,
    /// Bytes consumed after the encoded bits: a literal (4) or NSA address dwords.
    pub extra_bytes: u8,
    /// The record LLVM's `convertMIMGInst` switched to: the sibling of the decoded image record
    /// with the data/address widths the dmask, d16, tfe, dim and a16 fields imply. The operands
    /// are then in that record's order, and its AsmString is what prints.
    pub converted: Option<&'static Encoding>,
}

impl Operands {
    /// An empty list.
    pub const fn new() -> Operands {
        let blank = Op {
            name: OperandName::ALL[0],
            class: OperandClass::ALL[0],
            value: Value::None,
        };
        Operands {
            ops: [blank; MAX_OPERANDS],
            len: 0,
            extra_bytes: 0,
            converted: None,
        }
    }

    pub fn as_slice(&self) -> &[Op] {
        &self.ops[..self.len as usize]
    }

    pub fn get(&self, name: OperandName) -> Option<&Op> {
        self.as_slice().iter().find(|o| o.name == name)
    }

    pub fn value(&self, name: OperandName) -> Option<Value> {
        self.get(name).map(|o| o.value)
    }

    /// The immediate of a named operand, or 0 when the operand is absent.
    pub fn imm(&self, name: OperandName) -> i64 {
        match self.value(name) {
            Some(Value::Imm(v)) => v,
            _ => 0,
        }
    }

    pub(crate) fn push(&mut self, op: Op) -> Result<(), DecodeFail> {
        let slot = self.ops.get_mut(self.len as usize).ok_or(DecodeFail::TooManyOperands)?;
        *slot = op;
        self.len += 1;
        Ok(())
    }
}

/// Why an encoding's operands do not decode; LLVM then fails the table and tries the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeFail {
    /// A source selects a literal but fewer than 4 bytes remain within the instruction limit.
    LiteralPastEnd,
    /// A register or special-register encoding that does not exist for this operand.
    BadRegister(u16),
    /// A DPP8 `fi` marker other than 0xE9/0xEA.
    BadDpp8Marker(u16),
    /// More operands than [`MAX_OPERANDS`].
    TooManyOperands,
    /// MIMG NSA address dwords run past the instruction limit.
    NsaPastEnd,
    /// LLVM 22 rejects GFX12+ buffer instructions whose 24-bit offset is negative; the whole
    /// instruction fails (no other table is tried).
    NegativeBufferOffset,
}

/// The most bytes one instruction may span on this target (LLVM's `getMaxInstLength`). LLVM
/// 22 gives GFX950 and GFX1250 16 for their 128-bit encodings (VOP3PX).
pub fn max_inst_bytes(target: &Target) -> usize {
    match target.generation() {
        Generation::Gfx10_1 | Generation::Gfx10_3 | Generation::Gfx11 | Generation::Gfx11_5 => 20,
        Generation::Gfx950 => 16,
        g if g.is_gfx10_plus() => 16,
        _ => 8,
    }
}

/// Feature64BitLiterals (GFX1250): source encoding 254 selects a 64-bit literal.
pub fn has_64bit_literals(target: &Target) -> bool {
    generation_has_64bit_literals(target.generation())
}

/// [`has_64bit_literals`] by generation: source 254 selects a 64-bit literal.
pub(crate) fn generation_has_64bit_literals(generation: Generation) -> bool {
    generation == Generation::Gfx1250
}

/// Whether decoding `e` on `generation` fails on a negative buffer offset (LLVM 22's buffer
/// records on GFX12 and later), which no per-field check of the offset says.
pub(crate) fn rejects_negative_buffer_offsets(e: &Encoding, generation: Generation) -> bool {
    let is_buffer = e.flags.has(flag::MUBUF | flag::MTBUF)
        || (e.flags.has(flag::SMRD) && e.opcode.name().starts_with("S_BUFFER_"));
    e.llvm == 22 && generation >= Generation::Gfx12 && is_buffer
}

/// How an operand class decodes, parsed from LLVM's decoder-method names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    /// `decodeSrcRegOrImm9` and friends: a 9-bit scalar/vector source, maybe a constant.
    Src {
        dwords: u8,
        imm_bits: u8,
        literal: bool,
        deferred: bool,
        agpr: bool,
    },
    /// A 10-bit source whose bit 9 selects AGPRs (`decodeSrcAV10`, `decodeAV10`, AVLdSt).
    /// `ld_st` (`decodeAVLdSt`): the acc bit counts on GFX90A+ only, where it may also be implied.
    AccVector {
        dwords: u8,
        force_vector: bool,
        ld_st: bool,
    },
    /// An 8-bit direct VGPR (or AGPR) index (`Decode<VReg_*>RegisterClass`).
    Vector { dwords: u8, agpr: bool },
    /// A 7-bit scalar register through the source table (`Decode<SReg_*>RegisterClass`).
    Scalar { dwords: u8 },
    /// `decodeBoolReg`: vcc/sN pair by wave size.
    Bool,
    /// A K constant inside the encoding.
    KImm { bits64: bool },
    /// SMEM offsets: signed or unsigned by generation.
    SmemOffset,
    /// SDWA sources (`decodeSDWASrc16/32`).
    SdwaSrc,
    /// SDWA VOPC destination.
    SdwaVopcDst,
    /// DPP8 fi marker in the src0 field.
    Dpp8Fi,
    /// True16 sources and destinations: 16-bit VGPR halves.
    T16 { lo128: bool, src: bool },
    /// VOPD second destination: low bit from the first.
    VopdDstY,
    /// A plain immediate field.
    Imm,
}

fn dwords_of(bits: u32) -> u8 {
    (bits.div_ceil(32)).max(1) as u8
}

/// Width in bits named by a register class (`VReg_64`, `SGPR_128`, `AV_96`, `VS_32`).
fn class_bits(reg_class: &str) -> Option<u32> {
    reg_class
        .split('_')
        .find_map(|part| part.parse::<u32>().ok())
        .map(|b| if b == 1 { 32 } else { b })
}

/// OPW template argument (`AMDGPUDisassembler::OPW64` or a bare `64`) in bits.
fn opw_bits(arg: &str) -> u32 {
    arg.trim()
        .trim_start_matches("AMDGPUDisassembler::OPW")
        .parse()
        .unwrap_or(32)
}

/// The decoding method of `class`, parsed once per class.
pub(crate) fn method_of(class: OperandClass) -> Method {
    static METHODS: std::sync::OnceLock<Vec<Method>> = std::sync::OnceLock::new();
    METHODS.get_or_init(|| {
        OperandClass::ALL
            .iter()
            .map(|&c| compute_method(c))
            .collect()
    })[class as usize]
}

fn compute_method(class: OperandClass) -> Method {
    let info = class.info();
    let dm = info.decoder_method;
    let args: Vec<&str> = dm
        .split_once('<')
        .map(|(_, rest)| rest.trim_end_matches('>').split(',').collect())
        .unwrap_or_default();
    let name = dm.split('<').next().unwrap_or("");
    let first_bits = args.first().map_or(32, |a| opw_bits(a));
    match name {
        "decodeSrcRegOrImm9" | "decodeSrcRegOrImmA9" | "decodeSrcRegOrImmDeferred9" => {
            Method::Src {
                dwords: dwords_of(first_bits),
                imm_bits: args
                    .get(1)
                    .and_then(|a| a.trim().parse().ok())
                    .unwrap_or(32),
                literal: true,
                deferred: name.contains("Deferred"),
                agpr: name.contains("A9"),
            }
        }
        "decodeOperand_VSrc_f64" => Method::Src {
            dwords: 2,
            imm_bits: 64,
            literal: true,
            deferred: false,
            agpr: false,
        },
        "decodeSrcReg9" => Method::Src {
            dwords: dwords_of(first_bits),
            imm_bits: 0,
            literal: true,
            deferred: false,
            agpr: false,
        },
        "decodeSrcA9" => Method::Src {
            dwords: dwords_of(first_bits),
            imm_bits: 0,
            literal: true,
            deferred: false,
            agpr: true,
        },
        "decodeSrcAV10" => Method::AccVector {
            dwords: dwords_of(first_bits),
            force_vector: false,
            ld_st: false,
        },
        "decodeAV10" => Method::AccVector {
            dwords: dwords_of(first_bits),
            force_vector: true,
            ld_st: false,
        },
        "decodeAVLdSt" => Method::AccVector {
            dwords: dwords_of(first_bits),
            force_vector: true,
            ld_st: true,
        },
        "decodeBoolReg" => Method::Bool,
        "decodeOperand_KImmFP" => Method::KImm { bits64: false },
        "decodeOperand_KImmFP64" => Method::KImm { bits64: true },
        "decodeSMEMOffset" => Method::SmemOffset,
        "decodeSDWASrc16" | "decodeSDWASrc32" => Method::SdwaSrc,
        "decodeSDWAVopcDst" => Method::SdwaVopcDst,
        "decodeDpp8FI" => Method::Dpp8Fi,
        "decodeOperand_VSrcT16" => Method::T16 {
            lo128: false,
            src: true,
        },
        "decodeOperand_VSrcT16_Lo128" => Method::T16 {
            lo128: true,
            src: true,
        },
        // LLVM 22: a 10-bit VGPR_16 field (bit 8 is IS_VGPR, bit 9 the high half).
        "decodeOperand_VGPR_16" => Method::T16 {
            lo128: false,
            src: false,
        },
        "DecodeVGPR_16RegisterClass" => Method::T16 {
            lo128: false,
            src: false,
        },
        "DecodeVGPR_16_Lo128RegisterClass" => Method::T16 {
            lo128: true,
            src: false,
        },
        "decodeOperandVOPDDstY" => Method::VopdDstY,
        "decodeSplitBarrier" => Method::Src {
            dwords: 1,
            imm_bits: 0,
            literal: false,
            deferred: false,
            agpr: false,
        },
        _ => {
            // Register classes decode directly; the class name (or its RegClass) says which.
            let rc = if info.reg_class.is_empty() {
                class.name()
            } else {
                info.reg_class
            };
            let bits = class_bits(rc).unwrap_or(32);
            if rc.starts_with("VGPR") || rc.starts_with("VReg") {
                Method::Vector {
                    dwords: dwords_of(bits),
                    agpr: false,
                }
            } else if rc.starts_with("AGPR") || rc.starts_with("AReg") {
                Method::Vector {
                    dwords: dwords_of(bits),
                    agpr: true,
                }
            } else if rc.starts_with("SReg") || rc.starts_with("SGPR") || rc.starts_with("TTMP") {
                Method::Scalar {
                    dwords: dwords_of(bits),
                }
            } else if rc.starts_with("VS_") || rc.starts_with("AV_") {
                Method::Src {
                    dwords: dwords_of(bits),
                    imm_bits: 0,
                    literal: false,
                    deferred: false,
                    agpr: false,
                }
            } else {
                Method::Imm
            }
        }
    }
}

/// Decoding state for one instruction.
struct Ctx<'a> {
    target: &'a Target,
    /// Bytes after the encoded bits, up to the instruction limit.
    tail: &'a [u8],
    literal: Option<u32>,
    /// A 64-bit literal (GFX1250: source 254, or a `KImmFP64` constant).
    literal64: Option<u64>,
    /// Bytes of `tail` a literal was read from.
    read: u8,
    /// The literal is a 32-bit K constant inside the encoding (LLVM 22).
    k32: bool,
}

impl<'a> Ctx<'a> {
    /// Nothing read yet from `tail`.
    fn new(target: &'a Target, tail: &'a [u8]) -> Ctx<'a> {
        Ctx { target, tail, literal: None, literal64: None, read: 0, k32: false }
    }

    fn generation(&self) -> Generation {
        self.target.generation()
    }

    /// Reads (once) the literal dword after the encoded bits.
    fn literal(&mut self) -> Result<u32, DecodeFail> {
        if let Some(l) = self.literal {
            return Ok(l);
        }
        let bytes = self.tail.get(..4).ok_or(DecodeFail::LiteralPastEnd)?;
        let l = u32::from_le_bytes(bytes.try_into().unwrap());
        self.literal = Some(l);
        self.read = 4;
        Ok(l)
    }

    /// LLVM 22's `decodeLiteral64Constant`: reads (once) a 64-bit literal after the encoded
    /// bits; an instruction has one literal, so one already read is reused.
    fn literal64(&mut self) -> Result<u64, DecodeFail> {
        if let Some(l) = self.literal64 {
            return Ok(l);
        }
        if self.k32 {
            // A 32-bit K constant and a 64-bit literal: LLVM's second, different literal fails
            // the instruction (its read past the 12 encoded bytes fails first).
            return Err(DecodeFail::LiteralPastEnd);
        }
        if let Some(l) = self.literal {
            return Ok(u64::from(l));
        }
        let bytes = self.tail.get(..8).ok_or(DecodeFail::LiteralPastEnd)?;
        let l = u64::from_le_bytes(bytes.try_into().unwrap());
        self.literal64 = Some(l);
        self.literal = Some(l as u32);
        self.read = 8;
        Ok(l)
    }

    /// LLVM's `decodeSrcOp`: a 9-bit source (plus an AGPR bit at 9) of `dwords` width.
    fn src(
        &mut self,
        value: u16,
        dwords: u8,
        imm_bits: u8,
        literal_ok: bool,
    ) -> Result<Value, DecodeFail> {
        let generation = self.generation();
        let code = value & 0x1ff;
        if code >= 256 {
            let index = code - 256;
            if index + u16::from(dwords) > 256 {
                return Err(DecodeFail::BadRegister(value));
            }
            return Ok(Value::Reg(if value & 0x200 != 0 {
                Reg::Agpr {
                    index,
                    count: dwords,
                }
            } else {
                Reg::Vgpr {
                    index,
                    count: dwords,
                }
            }));
        }
        if let Some(v) = reg::inline_integer(code) {
            return Ok(Value::InlineInt(v));
        }
        if (240..=248).contains(&code) {
            return Ok(Value::InlineFloat(code));
        }
        if code == 255 {
            return if literal_ok {
                Ok(Value::Literal(self.literal()?))
            } else {
                Err(DecodeFail::BadRegister(code))
            };
        }
        if code == 254 && has_64bit_literals(self.target) {
            return if literal_ok {
                Ok(Value::Literal64(self.literal64()?))
            } else {
                Err(DecodeFail::BadRegister(code))
            };
        }
        let _ = imm_bits;
        scalar(code, dwords, generation).map(Value::Reg)
    }
}

/// Generations decoded like LLVM 22 (see `Target::llvm_version`).
fn llvm22(generation: Generation) -> bool {
    matches!(generation, Generation::Gfx950 | Generation::Gfx1250)
}

/// A scalar-side register encoding (SGPRs, TTMPs, specials) of `dwords` width, aligned as LLVM
/// aligns wide SGPR tuples (rounding down to the tuple start).
pub(crate) fn scalar(code: u16, dwords: u8, generation: Generation) -> Result<Reg, DecodeFail> {
    let align = |index: u16| match dwords {
        1 => index,
        2 => index & !1,
        _ => index & !3,
    };
    let sgpr_max = reg::sgpr_max(generation);
    if code <= sgpr_max {
        let index = align(code);
        if u32::from(index) + u32::from(dwords) > u32::from(sgpr_max) + 1 {
            return Err(DecodeFail::BadRegister(code));
        }
        return Ok(Reg::Sgpr {
            index,
            count: dwords,
        });
    }
    let ttmp_base = if generation >= Generation::Gfx9 {
        108
    } else {
        112
    };
    if (ttmp_base..=123).contains(&code) {
        let index = align(code - ttmp_base);
        if index + u16::from(dwords) > 124 - ttmp_base {
            return Err(DecodeFail::BadRegister(code));
        }
        return Ok(Reg::Ttmp {
            index,
            count: dwords,
        });
    }
    let gfx11 = generation >= Generation::Gfx11;
    let wide = dwords >= 2;
    let special = match (code, wide) {
        (102, false) if !generation.is_gfx10_plus() => Special::FlatScratchLo,
        (103, false) if !generation.is_gfx10_plus() => Special::FlatScratchHi,
        (104, false) if !generation.is_gfx10_plus() => Special::XnackMaskLo,
        (105, false) if !generation.is_gfx10_plus() => Special::XnackMaskHi,
        (102, true) if !generation.is_gfx10_plus() => Special::FlatScratch,
        (104, true) if !generation.is_gfx10_plus() => Special::XnackMask,
        (106, false) => Special::VccLo,
        (108, false) if generation == Generation::Gfx8 => Special::TbaLo,
        (109, false) if generation == Generation::Gfx8 => Special::TbaHi,
        (110, false) if generation == Generation::Gfx8 => Special::TmaLo,
        (111, false) if generation == Generation::Gfx8 => Special::TmaHi,
        (108, true) if generation == Generation::Gfx8 => Special::Tba,
        (110, true) if generation == Generation::Gfx8 => Special::Tma,
        (107, false) => Special::VccHi,
        (106, true) => Special::Vcc,
        (124, false) => {
            if gfx11 {
                Special::Null
            } else {
                Special::M0
            }
        }
        (125, false) => {
            if gfx11 {
                Special::M0
            } else {
                Special::Null
            }
        }
        (124, true) if gfx11 => Special::Null,
        (125, true) if !gfx11 => Special::Null,
        (126, false) => Special::ExecLo,
        (127, false) => Special::ExecHi,
        (126, true) => Special::Exec,
        // LLVM 22 (GFX950, GFX1250): the flat scratch base; 64-bit reads name the low half.
        (230, _) if llvm22(generation) => Special::SrcFlatScratchBaseLo,
        (231, false) if llvm22(generation) => Special::SrcFlatScratchBaseHi,
        (235, _) => Special::SrcSharedBase,
        (236, _) => Special::SrcSharedLimit,
        (237, _) => Special::SrcPrivateBase,
        (238, _) => Special::SrcPrivateLimit,
        (239, _) => Special::SrcPopsExitingWaveId,
        (251, _) => Special::SrcVccz,
        (252, _) => Special::SrcExecz,
        (253, _) => Special::SrcScc,
        (254, false) => Special::LdsDirect,
        _ => return Err(DecodeFail::BadRegister(code)),
    };
    Ok(Reg::Special(special))
}

/// Per operand of an encoding: its decoding method, and for a field of one bit range at
/// most 64 wide, the shift and mask that extract it (mask 0: use [`extract`]).
type Plan = Box<[(Method, u8, u64)]>;

/// The plan of encoding `e` (one of [`encodings`]), built on first use; None for an encoding
/// outside the tables.
fn plan_of(e: &Encoding) -> Option<&'static Plan> {
    use super::table::encodings;
    static PLANS: std::sync::OnceLock<Box<[std::sync::OnceLock<Plan>]>> = std::sync::OnceLock::new();
    let all = encodings();
    let at = (e as *const Encoding as usize).wrapping_sub(all.as_ptr() as usize)
        / std::mem::size_of::<Encoding>();
    let record = all.get(at).filter(|r| std::ptr::eq(*r, e))?;
    let plans = PLANS.get_or_init(|| (0..all.len()).map(|_| std::sync::OnceLock::new()).collect());
    Some(plans[at].get_or_init(|| {
        record
            .operands
            .iter()
            .zip(record.fields)
            .map(|(operand, bits)| {
                let method = method_of(operand.class);
                match **bits {
                    [(lo, hi, 0)] if hi >= lo && hi - lo < 64 => {
                        let width = u32::from(hi - lo) + 1;
                        let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
                        (method, lo, mask)
                    }
                    _ => (method, 0, 0),
                }
            })
            .collect()
    }))
}

/// Decodes every operand of `e` from the encoded bits `word`; `tail` holds the bytes after them
/// (up to the instruction limit), from which a literal may be read.
pub fn decode_operands(
    e: &Encoding,
    word: u128,
    tail: &[u8],
    target: &Target,
) -> Result<Operands, DecodeFail> {
    let mut out = Operands::new();
    decode_operands_into(e, word, tail, target, &mut out)?;
    Ok(out)
}

/// One operand of an encoding [`decode_fast`] takes: its field is one bit range (shift and
/// mask), and its method needs nothing but the field (and the literal after the instruction).
#[derive(Clone, Copy)]
struct FastOp {
    name: OperandName,
    class: OperandClass,
    method: Method,
    /// Where the value comes from.
    source: Source,
    /// A `Vector` operand of a `_Lo128` class without a decoder method (v0..v127 only).
    lo128: bool,
}

#[derive(Clone, Copy)]
enum Source {
    /// One bit range: shift and mask.
    Range { shift: u8, mask: u64 },
    /// Several bit ranges, through [`extract`].
    Bits(super::table::FieldBits),
    /// No bits, tied to the earlier operand at this index: its value.
    Tied(u8),
    /// No bits: this value (LLVM's default, or NoRegister for a tie to no earlier operand).
    Fixed(Value),
}

/// The operands of encoding `e` for [`decode_fast`], built on first use; None when `e` needs
/// the general path: a field that is not one bit range or has no bits (tied, defaulted), a
/// method that reads other operands or a K constant, or any of the fix-ups after the operand
/// loop (returning atomics' GLC, MIMG conversion, K constants, LLVM 22 records, true16 op_sel
/// of VOP3 DPP).
fn fast_plan_of(e: &Encoding) -> Option<&'static [FastOp]> {
    use super::table::encodings;
    static FAST: std::sync::OnceLock<Box<[std::sync::OnceLock<Option<Box<[FastOp]>>>]>> =
        std::sync::OnceLock::new();
    let all = encodings();
    let at = (e as *const Encoding as usize).wrapping_sub(all.as_ptr() as usize)
        / std::mem::size_of::<Encoding>();
    let record = all.get(at).filter(|r| std::ptr::eq(*r, e))?;
    let fast = FAST.get_or_init(|| (0..all.len()).map(|_| std::sync::OnceLock::new()).collect());
    fast[at].get_or_init(|| compile_fast(record)).as_deref()
}

fn compile_fast(e: &Encoding) -> Option<Box<[FastOp]>> {
    let f = e.flags;
    if e.llvm == 22
        || (f.has(flag::ISATOMICRET) && f.has(flag::MUBUF | flag::FLAT | flag::SMRD))
        || f.has(flag::MIMG | flag::VIMAGE | flag::VSAMPLE)
        || (e.operand_index(OperandName::imm).is_some() && !f.has(flag::SOPK))
        || (f.has(flag::DPP) && f.has(flag::VOP3) && !f.has(flag::VOP3P | flag::VOPC))
        || e.operands.len() > MAX_OPERANDS
        || e.operands.len() != e.fields.len()
    {
        return None;
    }
    let plan = plan_of(e)?;
    e.operands
        .iter()
        .zip(plan.iter())
        .zip(e.fields)
        .enumerate()
        .map(|(at, ((operand, &(method, shift, mask)), &bits))| {
            let supported = match method {
                Method::Src { deferred, .. } => !deferred,
                Method::AccVector { ld_st, .. } => !ld_st,
                Method::KImm { .. } | Method::VopdDstY => false,
                _ => true,
            };
            let source = if bits.is_empty() {
                match operand.tied_to {
                    Some(partner) => match e.operands[..at].iter().position(|o| o.name == partner) {
                        Some(i) => Source::Tied(i as u8),
                        None => Source::Fixed(Value::None),
                    },
                    None => Source::Fixed(default_value(e, operand.name)),
                }
            } else if mask != 0 {
                Source::Range { shift, mask }
            } else {
                Source::Bits(bits)
            };
            (supported || bits.is_empty()).then(|| {
                let info = operand.class.info();
                FastOp {
                    name: operand.name,
                    class: operand.class,
                    method,
                    source,
                    lo128: info.decoder_method.is_empty() && info.reg_class.ends_with("_Lo128"),
                }
            })
        })
        .collect()
}

/// [`decode_operands_into`] for an encoding with a [`fast_plan_of`]: each operand is one
/// extraction and its method, the same values as the general loop gives.
fn decode_fast(
    ops: &[FastOp],
    word: u128,
    tail: &[u8],
    target: &Target,
    out: &mut Operands,
) -> Result<(), DecodeFail> {
    out.extra_bytes = 0;
    out.converted = None;
    let mut ctx = Ctx::new(target, tail);
    let generation = target.generation();
    for (at, f) in ops.iter().enumerate() {
        let raw = match f.source {
            Source::Range { shift, mask } => ((word >> shift) as u64) & mask,
            Source::Bits(bits) => extract(bits, word),
            Source::Tied(i) => {
                let value = out.ops[usize::from(i)].value;
                out.ops[at] = Op { name: f.name, class: f.class, value };
                continue;
            }
            Source::Fixed(value) => {
                out.ops[at] = Op { name: f.name, class: f.class, value };
                continue;
            }
        };
        let field = raw as u16;
        let value = match f.method {
            Method::Src {
                dwords,
                imm_bits,
                literal,
                agpr,
                ..
            } => ctx.src(if agpr { field | 0x200 } else { field }, dwords, imm_bits, literal),
            Method::AccVector {
                dwords,
                force_vector,
                ..
            } => {
                let field = if force_vector { field | 0x100 } else { field };
                let field = if generation.has_unified_agprs() || generation == Generation::Gfx9 {
                    field
                } else {
                    field & !0x200
                };
                ctx.src(field, dwords, 0, false)
            }
            Method::Vector { dwords, agpr } => {
                let index = field & 0xff;
                if index + u16::from(dwords) > 256 || (index >= 128 && f.lo128) {
                    Err(DecodeFail::BadRegister(field))
                } else if agpr {
                    Ok(Value::Reg(Reg::Agpr { index, count: dwords }))
                } else {
                    Ok(Value::Reg(Reg::Vgpr { index, count: dwords }))
                }
            }
            Method::Scalar { dwords } => scalar(field, dwords, generation).map(Value::Reg),
            Method::Bool => ctx.src(field, if target.wave64 { 2 } else { 1 }, 0, false),
            Method::SmemOffset => {
                let raw = raw as i64;
                Ok(Value::Imm(match generation {
                    g if g >= Generation::Gfx12 => (raw << 40) >> 40,
                    Generation::Gfx8 => raw & 0xfffff,
                    _ => (raw << 43) >> 43,
                }))
            }
            Method::SdwaSrc => sdwa_src(field, generation),
            Method::SdwaVopcDst => {
                if field & 0x80 == 0 {
                    Ok(Value::Reg(Reg::Special(if target.wave64 {
                        Special::Vcc
                    } else {
                        Special::VccLo
                    })))
                } else {
                    scalar(field & 0x7f, if target.wave64 { 2 } else { 1 }, generation)
                        .map(Value::Reg)
                }
            }
            Method::Dpp8Fi => match field & 0x1ff {
                0xe9 => Ok(Value::Imm(0)),
                0xea => Ok(Value::Imm(1)),
                other => Err(DecodeFail::BadDpp8Marker(other)),
            },
            Method::T16 { lo128, src } => {
                let (is_vgpr, hi, index) = if lo128 {
                    (!src || field & 0x100 != 0, field & 0x80 != 0, field & 0x7f)
                } else {
                    (!src || field & 0x100 != 0, field & 0x200 != 0, field & 0xff)
                };
                if is_vgpr {
                    Ok(Value::Reg(Reg::Vgpr16 { index, hi }))
                } else {
                    ctx.src(field & 0xff, 1, 16, true)
                }
            }
            Method::Imm => Ok(Value::Imm(raw as i64)),
            // Not in fast plans (see `compile_fast`).
            Method::KImm { .. } | Method::VopdDstY => Err(DecodeFail::TooManyOperands),
        };
        match value {
            Ok(value) => {
                out.ops[at] = Op {
                    name: f.name,
                    class: f.class,
                    value,
                }
            }
            Err(fail) => {
                out.len = at as u8;
                return Err(fail);
            }
        }
    }
    out.len = ops.len() as u8;
    out.extra_bytes = ctx.read;
    Ok(())
}

/// [`decode_operands`] into a caller's buffer, which is reset first (the decoder reuses one
/// across its table attempts instead of building and moving a fresh list each time).
pub fn decode_operands_into(
    e: &Encoding,
    word: u128,
    tail: &[u8],
    target: &Target,
    out: &mut Operands,
) -> Result<(), DecodeFail> {
    if let Some(ops) = fast_plan_of(e) {
        return decode_fast(ops, word, tail, target, out);
    }
    decode_operands_general(e, word, tail, target, out)
}

/// [`decode_operands_into`] for every encoding, by the operands' methods and then LLVM's
/// fix-ups.
fn decode_operands_general(
    e: &Encoding,
    word: u128,
    tail: &[u8],
    target: &Target,
    out: &mut Operands,
) -> Result<(), DecodeFail> {
    out.len = 0;
    out.extra_bytes = 0;
    out.converted = None;
    let mut ctx = Ctx::new(target, tail);
    let generation = target.generation();
    // LLVM 22 decodes a K constant as a literal its sources share (`decodeMandatoryLiteral*`),
    // whatever the operand order: a source selecting the literal takes the K value.
    if e.llvm == 22 {
        for (operand, bits) in e.operands.iter().zip(e.fields) {
            if let Method::KImm { bits64 } = method_of(operand.class) {
                let k = extract(bits, word);
                ctx.literal = Some(k as u32);
                if bits64 {
                    ctx.literal64 = Some(k);
                } else {
                    ctx.k32 = true;
                }
            }
        }
    }
    let plan = plan_of(e);
    for (at, (operand, bits)) in e.operands.iter().zip(e.fields).enumerate() {
        // MIMG atomics tie `$vdst = $vdata` with only vdata encoded: vdst decodes from its bits.
        let bits = if bits.is_empty()
            && operand.name == OperandName::vdst
            && e.flags.has(flag::MIMG | flag::VIMAGE)
        {
            e.operand_index(OperandName::vdata).map_or(bits, |i| &e.fields[i])
        } else {
            bits
        };
        let value = if bits.is_empty() {
            match operand.tied_to {
                // A tied operand repeats its partner.
                Some(partner) => out.value(partner).unwrap_or(Value::None),
                None => default_value(e, operand.name),
            }
        } else {
            // The field's value: one shift and mask where the plan has them.
            let (method, raw) = match plan.and_then(|p| p.get(at)) {
                Some(&(method, shift, mask)) if mask != 0 && std::ptr::eq(bits, &e.fields[at]) => {
                    (method, ((word >> shift) as u64) & mask)
                }
                _ => (method_of(operand.class), extract(bits, word)),
            };
            let field = raw as u16;
            match method {
                Method::Src {
                    dwords,
                    imm_bits,
                    literal,
                    deferred,
                    agpr,
                } => {
                    if deferred && field & 0x1ff == 255 {
                        Value::Literal(0) // filled in from the K constant below
                    } else {
                        ctx.src(
                            if agpr { field | 0x200 } else { field },
                            dwords,
                            imm_bits,
                            literal,
                        )?
                    }
                }
                Method::AccVector {
                    dwords,
                    force_vector,
                    ld_st,
                } => {
                    let field = if force_vector { field | 0x100 } else { field };
                    let field = if ld_st {
                        // decodeAVLdSt: before GFX90A the acc bit is dropped; from GFX90A a data
                        // operand after an AGPR vdst (DS data1 after an AGPR data0) is an AGPR.
                        if generation.has_unified_agprs() {
                            field | ld_st_implied_acc(e, operand.name, out)
                        } else {
                            field & !0x200
                        }
                    } else if generation.has_unified_agprs() || generation == Generation::Gfx9 {
                        field
                    } else {
                        field & !0x200
                    };
                    ctx.src(field, dwords, 0, false)?
                }
                Method::Vector { dwords, agpr } => {
                    let index = field & 0xff;
                    if index + u16::from(dwords) > 256 {
                        return Err(DecodeFail::BadRegister(field));
                    }
                    // TableGen's own Decode<VGPR_32_Lo128>RegisterClass (classes with no decoder
                    // method, e.g. the fake16 VOP1/VOP2/DPP vdst) knows only v0..v127.
                    let info = operand.class.info();
                    if index >= 128
                        && info.decoder_method.is_empty()
                        && info.reg_class.ends_with("_Lo128")
                    {
                        return Err(DecodeFail::BadRegister(field));
                    }
                    Value::Reg(if agpr {
                        Reg::Agpr {
                            index,
                            count: dwords,
                        }
                    } else {
                        Reg::Vgpr {
                            index,
                            count: dwords,
                        }
                    })
                }
                Method::Scalar { dwords } => Value::Reg(scalar(field, dwords, generation)?),
                Method::Bool => {
                    let dwords = if target.wave64 { 2 } else { 1 };
                    ctx.src(field, dwords, 0, false)?
                }
                Method::KImm { bits64 } => {
                    let k = raw;
                    ctx.literal = Some(k as u32);
                    if bits64 {
                        Value::Literal64(k)
                    } else {
                        Value::Literal(k as u32)
                    }
                }
                Method::SmemOffset => {
                    let raw = raw as i64;
                    Value::Imm(match generation {
                        g if g >= Generation::Gfx12 => (raw << 40) >> 40,
                        Generation::Gfx8 => raw & 0xfffff,
                        _ => (raw << 43) >> 43,
                    })
                }
                Method::SdwaSrc => sdwa_src(field, generation)?,
                Method::SdwaVopcDst => {
                    if field & 0x80 == 0 {
                        Value::Reg(Reg::Special(if target.wave64 {
                            Special::Vcc
                        } else {
                            Special::VccLo
                        }))
                    } else {
                        Value::Reg(scalar(
                            field & 0x7f,
                            if target.wave64 { 2 } else { 1 },
                            generation,
                        )?)
                    }
                }
                Method::Dpp8Fi => match field & 0x1ff {
                    0xe9 => Value::Imm(0),
                    0xea => Value::Imm(1),
                    other => return Err(DecodeFail::BadDpp8Marker(other)),
                },
                Method::T16 { lo128, src } => {
                    let (is_vgpr, hi, index) = if lo128 {
                        (!src || field & 0x100 != 0, field & 0x80 != 0, field & 0x7f)
                    } else {
                        (!src || field & 0x100 != 0, field & 0x200 != 0, field & 0xff)
                    };
                    if is_vgpr {
                        Value::Reg(Reg::Vgpr16 { index, hi })
                    } else {
                        ctx.src(field & 0xff, 1, 16, true)?
                    }
                }
                Method::VopdDstY => {
                    let x = match out.value(OperandName::vdstX) {
                        Some(Value::Reg(Reg::Vgpr { index, .. })) => index,
                        _ => 0,
                    };
                    let index = (raw as u16) | (!x & 1);
                    Value::Reg(Reg::Vgpr { index, count: 1 })
                }
                Method::Imm => Value::Imm(raw as i64),
            }
        };
        out.push(Op {
            name: operand.name,
            class: operand.class,
            value,
        })?;
    }
    // Returning MUBUF/FLAT/SMRD atomics: LLVM ORs GLC into a decoded cache policy too.
    if e.flags.has(flag::ISATOMICRET) && e.flags.has(flag::MUBUF | flag::FLAT | flag::SMRD) {
        for op in &mut out.ops[..out.len as usize] {
            if let (OperandName::cpol, Value::Imm(v)) = (op.name, op.value) {
                op.value = Value::Imm(v | 1);
            }
        }
    }
    if e.flags.has(flag::MIMG | flag::VIMAGE | flag::VSAMPLE) {
        convert_mimg(e, out, tail, target)?;
    }
    // convertFMAanyK: deferred sources that selected the literal take the K constant.
    if let Some(k) = ctx.literal {
        if e.operand_index(OperandName::imm).is_some() && !e.flags.has(flag::SOPK) {
            for op in &mut out.ops[..out.len as usize] {
                if op.value == Value::Literal(0) && method_of(op.class) != Method::Imm {
                    op.value = Value::Literal(k);
                }
                // The X half's K of a VOPD with two K forms has no bits: LLVM inserts the K
                // (`immDeferred` in LLVM 19's records, `immX` in LLVM 22's).
                if matches!(op.name, OperandName::immDeferred | OperandName::immX)
                    && op.value == Value::Imm(0)
                {
                    op.value = Value::Literal(k);
                }
            }
        }
    }
    // LLVM 22 inserts a zero `gds` operand in DS instructions on targets without GDS (GFX950,
    // GFX1250 have none): whatever the encoded bit, `gds` prints as clear.
    if e.llvm == 22 && e.flags.has(flag::DS) {
        for op in &mut out.ops[..out.len as usize] {
            if op.name == OperandName::gds {
                op.value = Value::Imm(0);
            }
        }
    }
    if rejects_negative_buffer_offsets(e, generation) {
        if let Some(Value::Imm(offset)) = out.value(OperandName::offset)
            && (offset << 40) >> 40 < 0
        {
            return Err(DecodeFail::NegativeBufferOffset);
        }
    }
    let has_k = || {
        e.operands
            .iter()
            .any(|o| matches!(method_of(o.class), Method::KImm { .. }))
    };
    if ctx.read > 0 && !has_k() {
        out.extra_bytes = ctx.read;
    }
    if e.llvm == 22
        || (e.flags.has(flag::DPP)
            && e.flags.has(flag::VOP3)
            && !e.flags.has(flag::VOP3P | flag::VOPC))
    {
        convert_true16_op_sel(e, out);
    }
    if e.llvm == 22 {
        convert_f8f6f4(e, out);
    }
    Ok(())
}

/// LLVM's `convertTrue16OpSel`: a 16-bit VGPR source (or destination) is its high half when
/// the op_sel bit of its modifiers (`src0_modifiers`' DST_OP_SEL for vdst) says so. LLVM 22 does
/// this for every instruction; LLVM 19 only in its VOP3 DPP conversions.
fn convert_true16_op_sel(e: &Encoding, out: &mut Operands) {
    const OP_SEL_0: i64 = 1 << 2;
    const DST_OP_SEL: i64 = 1 << 3;
    let pairs = [
        (OperandName::src0, OperandName::src0_modifiers, OP_SEL_0),
        (OperandName::src1, OperandName::src1_modifiers, OP_SEL_0),
        (OperandName::src2, OperandName::src2_modifiers, OP_SEL_0),
        (OperandName::vdst, OperandName::src0_modifiers, DST_OP_SEL),
    ];
    for (name, mods_name, mask) in pairs {
        let (Some(i), Some(m)) = (e.operand_index(name), e.operand_index(mods_name)) else {
            continue;
        };
        let Value::Imm(mods) = out.ops[m].value else {
            continue;
        };
        if let Value::Reg(Reg::Vgpr16 { index, .. }) = out.ops[i].value
            && mods & mask != 0
        {
            out.ops[i].value = Value::Reg(Reg::Vgpr16 { index, hi: true });
        }
    }
}

/// LLVM 22's `convertMAIInst` / `convertWMMAInst`: the decoder tables hold only the fp8 x fp8
/// form of the f8f6f4 MFMA/WMMA ops; the formats in cbsz/blgp (matrix_a_fmt/matrix_b_fmt)
/// pick the sibling record whose A and B registers have the format's width (fp8 8, fp6 6, fp4
/// 4 registers for MFMA; 16, 12 and 8 for WMMA), keeping the first register.
fn convert_f8f6f4(e: &Encoding, out: &mut Operands) {
    let name = e.opcode.name();
    let Some(at) = name.find("_F8F6F4_f8_f8") else {
        return;
    };
    let imm = |n: OperandName| match e.operand_index(n).map(|i| out.ops[i].value) {
        Some(Value::Imm(v)) => Some(v),
        _ => None,
    };
    let (fa, fb, wmma) = match (imm(OperandName::cbsz), imm(OperandName::blgp)) {
        (Some(a), Some(b)) => (a, b, false),
        _ => match (
            imm(OperandName::matrix_a_fmt),
            imm(OperandName::matrix_b_fmt),
        ) {
            (Some(a), Some(b)) => (a, b, true),
            _ => return,
        },
    };
    // MFMAScaleFormats: 0 FP8 (E4M3), 1 BF8 (E5M2), 2 FP6 (E2M3), 3 BF6 (E3M2), 4 FP4; LLVM
    // sizes any other value as fp8.
    let kind = |f: i64| match f {
        2 | 3 => "f6",
        4 => "f4",
        _ => "f8",
    };
    let start = at + "_F8F6F4_".len();
    let sibling_name = format!(
        "{}{}_{}{}{}",
        &name[..start],
        kind(fa),
        kind(fb),
        &name[start + "f8_f8".len()..],
        e.suffix
    );
    let Some(sibling) = super::table::find_record(e.llvm, &sibling_name) else {
        return;
    };
    if std::ptr::eq(sibling, e) {
        return;
    }
    for (op, operand) in out.ops[..out.len as usize].iter_mut().zip(sibling.operands) {
        op.class = operand.class;
        let dwords = match method_of(operand.class) {
            Method::Src { dwords, .. }
            | Method::Vector { dwords, .. }
            | Method::AccVector { dwords, .. } => dwords,
            _ => continue,
        };
        op.value = match op.value {
            Value::Reg(Reg::Vgpr { index, .. }) => Value::Reg(Reg::Vgpr {
                index,
                count: dwords,
            }),
            Value::Reg(Reg::Agpr { index, .. }) if !(wmma && dwords == 12) => {
                Value::Reg(Reg::Agpr {
                    index,
                    count: dwords,
                })
            }
            Value::Reg(Reg::Sgpr { index, .. }) if dwords != 12 => Value::Reg(Reg::Sgpr {
                index,
                count: dwords,
            }),
            Value::Reg(Reg::Ttmp { index, .. }) if dwords != 12 => Value::Reg(Reg::Ttmp {
                index,
                count: dwords,
            }),
            other => other,
        };
    }
    out.converted = Some(sibling);
}

/// LLVM's image fix-ups. MIMG NSA: the extra address VGPRs, one byte each, in the dwords after
/// the encoding. Then `convertMIMGInst`: BVH ops get their a16 from the opcode; other image ops
/// switch to the sibling record whose data width follows dmask/d16/tfe (gather4: 4) and, from
/// GFX10, whose address width follows dim/a16, with vdata (and a partial-NSA or non-NSA
/// address) widened from the same first register. No sibling, or a widened register past the
/// file, keeps the record as decoded.
fn convert_mimg(
    e: &Encoding,
    out: &mut Operands,
    tail: &[u8],
    target: &Target,
) -> Result<(), DecodeFail> {
    let generation = target.generation();
    let index = |name: OperandName| e.operand_index(name);
    let vaddr0 = index(OperandName::vaddr0);
    let rsrc = index(OperandName::srsrc).or_else(|| index(OperandName::rsrc));
    if let (true, Some(v0), Some(rs)) = (e.flags.has(flag::MIMG), vaddr0, rsrc) {
        let args = rs.saturating_sub(v0 + 1);
        if args > 0 {
            let words = args.div_ceil(4);
            let bytes = tail.get(..4 * words).ok_or(DecodeFail::NsaPastEnd)?;
            for (i, &byte) in bytes.iter().take(args).enumerate() {
                let op = &mut out.ops[v0 + 1 + i];
                let count = vector_dwords(op.class).unwrap_or(1);
                let first = u16::from(byte);
                if first + u16::from(count) > 256 {
                    return Err(DecodeFail::BadRegister(first));
                }
                op.value = Value::Reg(Reg::Vgpr {
                    index: first,
                    count,
                });
            }
            out.extra_bytes = (4 * words) as u8;
        }
    }
    let name = e.opcode.name();
    if name.starts_with("IMAGE_BVH") {
        let a16 = name.split('_').any(|t| t == "a16");
        for op in &mut out.ops[..out.len as usize] {
            if op.name == OperandName::a16 {
                op.value = Value::Imm(i64::from(a16));
            }
        }
        return Ok(());
    }
    let Some((base, _, _, rest)) = mimg_name_parts(name) else {
        return Ok(());
    };
    let (data_dwords, addr_dwords) = mimg_widths(e);
    let nsa = rest.split('_').any(|t| t == "nsa") || generation >= Generation::Gfx12;
    let mut addr_size = addr_dwords;
    let mut partial_nsa = false;
    if generation.is_gfx10_plus() {
        // hasG16 holds for every GFX10+ target as far as this is concerned: llvm-mc-19 sizes
        // gfx1010 a16 gradients unpacked (`image_sample_d v[0:3], v[0:4], ... dim:..._2D a16`).
        let a16 = out.imm(OperandName::a16) != 0;
        let Some(size) = mimg_addr_size(base, out.imm(OperandName::dim), a16, true) else {
            return Ok(());
        };
        addr_size = size;
        if !nsa {
            if !e.flags.has(flag::VSAMPLE) && addr_size > 12 {
                addr_size = 16;
            }
        } else if addr_size > addr_dwords {
            // Partial NSA (the last address operand a tuple) exists from GFX11.
            if generation < Generation::Gfx11 {
                return Ok(());
            }
            partial_nsa = true;
        }
    }
    let dmask = (out.imm(OperandName::dmask) & 0xf) as u32;
    let mut data_size = if e.flags.has(flag::GATHER4) {
        4
    } else {
        dmask.count_ones().max(1)
    };
    let ctx = super::predicates::PredContext::of(target);
    if out.imm(OperandName::d16) != 0
        && super::predicates::holds(super::table::Pred::HasPackedD16VMem, &ctx)
    {
        data_size = data_size.div_ceil(2);
    }
    if out.imm(OperandName::tfe) != 0 {
        data_size += 1;
    }
    if data_size == data_dwords && addr_size == addr_dwords {
        return Ok(());
    }
    let Some(sibling) = mimg_sibling(e, base, rest, data_size, addr_size) else {
        return Ok(());
    };
    let mut old = *out;
    let widen = |ops: &Operands, name: OperandName| -> Option<Value> {
        let i = sibling.operand_index(name)?;
        let count = vector_dwords(sibling.operands[i].class)?;
        let align2 = sibling.operands[i]
            .class
            .info()
            .reg_class
            .contains("Align2");
        match ops.value(name)? {
            Value::Reg(Reg::Vgpr { index, .. })
                if index + u16::from(count) <= 256 && !(align2 && index % 2 == 1) =>
            {
                Some(Value::Reg(Reg::Vgpr { index, count }))
            }
            Value::Reg(Reg::Agpr { index, .. })
                if index + u16::from(count) <= 256 && !(align2 && index % 2 == 1) =>
            {
                Some(Value::Reg(Reg::Agpr { index, count }))
            }
            _ => None,
        }
    };
    let data = if data_size != data_dwords {
        let Some(data) = widen(&old, OperandName::vdata) else {
            return Ok(());
        };
        Some(data)
    } else {
        None
    };
    let addr_operand = if partial_nsa {
        rsrc.and_then(|i| i.checked_sub(1))
            .map(|i| e.operands[i].name)
    } else {
        Some(OperandName::vaddr0)
    };
    let mut addr = None;
    if generation.is_gfx10_plus() && (!nsa || partial_nsa) && addr_size != addr_dwords {
        let Some(name) = addr_operand else {
            return Ok(());
        };
        let Some(value) = widen(&old, name) else {
            return Ok(());
        };
        addr = Some((name, value));
    }
    for op in &mut old.ops[..old.len as usize] {
        match (op.name, data, addr) {
            (OperandName::vdata | OperandName::vdst, Some(data), _) => op.value = data,
            (name, _, Some((addr_name, value))) if name == addr_name => op.value = value,
            _ => {}
        }
    }
    // The sibling's operands, by name: NSA forms with fewer addresses drop the extra ones.
    let blank = Op {
        name: OperandName::ALL[0],
        class: OperandClass::ALL[0],
        value: Value::None,
    };
    let mut new = Operands {
        ops: [blank; MAX_OPERANDS],
        len: 0,
        extra_bytes: old.extra_bytes,
        converted: Some(sibling),
    };
    for operand in sibling.operands {
        let value = old.value(operand.name).unwrap_or(Value::Imm(0));
        new.push(Op {
            name: operand.name,
            class: operand.class,
            value,
        })?;
    }
    *out = new;
    Ok(())
}

/// The dword count of a VGPR/AGPR operand class, or None for other classes.
fn vector_dwords(class: OperandClass) -> Option<u8> {
    match method_of(class) {
        Method::Vector { dwords, .. } | Method::AccVector { dwords, .. } => Some(dwords),
        _ => None,
    }
}

/// `IMAGE_SAMPLE_C_V4_V3_nsa` → (`IMAGE_SAMPLE_C`, 4, 3, `_nsa`): the base opcode, vdata and
/// vaddr dwords, and what follows.
fn mimg_name_parts(name: &str) -> Option<(&str, u32, u32, &str)> {
    let dwords = |t: &str| {
        t.strip_prefix('V')
            .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))?
            .parse()
            .ok()
    };
    let tokens: Vec<&str> = name.split('_').collect();
    let at = (0..tokens.len().saturating_sub(1))
        .rev()
        .find(|&i| dwords(tokens[i]).is_some() && dwords(tokens[i + 1]).is_some())?;
    let base_len = tokens[..at].iter().map(|t| t.len() + 1).sum::<usize>() - 1;
    let rest_start = tokens[..at + 2].iter().map(|t| t.len() + 1).sum::<usize>() - 1;
    Some((
        &name[..base_len],
        dwords(tokens[at])?,
        dwords(tokens[at + 1])?,
        &name[rest_start..],
    ))
}

/// An image record's (VDataDwords, VAddrDwords), from its operand classes. Atomics differ: in
/// LLVM 19 (checked with llvm-mc-19 on gfx802, gfx900, gfx1010, gfx1100) the `_V1/_V2/_V4`
/// records answer data sizes 1/2/4 (cmpswap: `_V1`/`_V2` answer 2/4) whatever their class
/// (`_V4` is VReg_160), and `_V3` answers none.
fn mimg_widths(e: &Encoding) -> (u32, u32) {
    let dwords = |o: &super::table::Operand| u32::from(vector_dwords(o.class).unwrap_or(1));
    let name = e.opcode.name();
    let data = match mimg_name_parts(name) {
        Some((_, n, _, _)) if name.starts_with("IMAGE_ATOMIC_") => {
            match (n, name.contains("CMPSWAP")) {
                (1 | 2 | 4, false) => n,
                (1 | 2, true) => 2 * n,
                _ => 0,
            }
        }
        _ => e
            .operands
            .iter()
            .find(|o| o.name == OperandName::vdata)
            .map_or(0, dwords),
    };
    let addr = e
        .operands
        .iter()
        .filter(|o| o.name.name().starts_with("vaddr"))
        .map(dwords)
        .sum();
    (data, addr)
}

/// LLVM's `getMIMGOpcode`: the record of the same base opcode and encoding family (LLVM
/// version, `_nsa`, generation suffix) with the given data and address dwords.
fn mimg_sibling(
    e: &Encoding,
    base: &str,
    rest: &str,
    data: u32,
    addr: u32,
) -> Option<&'static Encoding> {
    use std::collections::HashMap;
    /// (LLVM version, base opcode, `_nsa` + generation suffix) → (data, address, record index).
    type Families = HashMap<(u8, String, String), Vec<(u32, u32, usize)>>;
    static INDEX: std::sync::OnceLock<Families> = std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut index = Families::new();
        for (i, r) in super::table::encodings().iter().enumerate() {
            if let Some((base, _, _, rest)) = r
                .opcode
                .name()
                .strip_prefix("IMAGE_")
                .and(mimg_name_parts(r.opcode.name()))
            {
                let (d, a) = mimg_widths(r);
                index
                    .entry((r.llvm, base.to_owned(), format!("{rest}{}", r.suffix)))
                    .or_default()
                    .push((d, a, i));
            }
        }
        index
    });
    let family = index.get(&(e.llvm, base.to_owned(), format!("{rest}{}", e.suffix)))?;
    family
        .iter()
        .find(|&&(d, a, _)| d == data && a == addr)
        .map(|&(_, _, i)| &super::table::encodings()[i])
}

/// LLVM's `getAddrSizeMIMGOp`: address dwords of an image op from its base opcode (read from
/// the name: sample/gather4 variant letters, mip, resinfo), its dim and a16. None for an
/// unknown base.
fn mimg_addr_size(base: &str, dim: i64, a16: bool, g16_supported: bool) -> Option<u32> {
    // (coordinates, gradients) by dim encoding.
    const DIMS: [(u32, u32); 8] = [
        (1, 2),
        (2, 4),
        (3, 6),
        (3, 4),
        (2, 2),
        (3, 4),
        (3, 4),
        (4, 4),
    ];
    let (coords, grads) = *DIMS.get(usize::try_from(dim).ok()?)?;
    let op = base.strip_prefix("IMAGE_")?;
    let (mut extra, mut coordinates, mut lod, mut gradients, mut g16) =
        (0u32, true, false, false, false);
    let variant = op
        .strip_prefix("SAMPLE")
        .or_else(|| op.strip_prefix("GATHER4H"))
        .or_else(|| op.strip_prefix("GATHER4"));
    if let Some(variant) = variant {
        for token in variant.split('_').filter(|t| !t.is_empty()) {
            match token {
                "C" | "O" | "B" => extra += 1,
                "D" | "CD" => gradients = true,
                "L" | "CL" => lod = true,
                "G16" => g16 = true,
                "LZ" => {}
                _ => return None,
            }
        }
    } else {
        match op {
            "GET_RESINFO" => (coordinates, lod) = (false, true),
            "LOAD_MIP" | "LOAD_MIP_PCK" | "LOAD_MIP_PCK_SGN" | "STORE_MIP" | "STORE_MIP_PCK" => {
                lod = true
            }
            "GET_LOD" | "LOAD" | "LOAD_PCK" | "LOAD_PCK_SGN" | "STORE" | "STORE_PCK"
            | "MSAA_LOAD" | "MSAA_LOAD_X" => {}
            _ if op.starts_with("ATOMIC_") => {}
            _ => return None,
        }
    }
    let components = if coordinates { coords } else { 0 } + u32::from(lod);
    let mut words = extra
        + if a16 {
            components.div_ceil(2)
        } else {
            components
        };
    if gradients {
        words += if (a16 && !g16_supported) || g16 {
            (grads / 2).next_multiple_of(2)
        } else {
            grads
        };
    }
    Some(words)
}

/// `decodeAVLdSt` on GFX90A+: 0x200 (AGPR) for the data operand (DS `data0`, else `vdata`) when
/// `vdst` decoded as an AGPR, and for DS `data1` when `data0` did; else 0.
fn ld_st_implied_acc(e: &Encoding, name: OperandName, decoded: &Operands) -> u16 {
    let is_agpr = |n: OperandName| matches!(decoded.value(n), Some(Value::Reg(Reg::Agpr { .. })));
    let ds = e.flags.has(flag::DS);
    let data = if ds {
        OperandName::data0
    } else {
        OperandName::vdata
    };
    if (name == data && is_agpr(OperandName::vdst))
        || (ds && name == OperandName::data1 && is_agpr(OperandName::data0))
    {
        0x200
    } else {
        0
    }
}

/// Values LLVM's fix-ups give operands that have no bits in the encoding.
fn default_value(e: &Encoding, name: OperandName) -> Value {
    match name {
        // Returning atomics always carry GLC in their cache policy.
        OperandName::cpol if e.flags.has(flag::ISATOMICRET) => Value::Imm(1),
        // convertSDWAInst: VI VOPC SDWA has no sdst field; it is vcc (the asm spells it out).
        OperandName::sdst if e.flags.has(flag::SDWA) => Value::Reg(Reg::Special(Special::Vcc)),
        // isMacDPP / convertVOPCDPPInst: an untied `old` without bits is NoRegister.
        OperandName::old if e.flags.has(flag::DPP) => Value::None,
        _ => Value::Imm(0),
    }
}

/// LLVM's `decodeSDWASrc`: VGPRs, SGPRs, TTMPs or constants; VI knows only VGPRs.
fn sdwa_src(field: u16, generation: Generation) -> Result<Value, DecodeFail> {
    if generation == Generation::Gfx8 {
        return Ok(Value::Reg(Reg::Vgpr {
            index: field & 0xff,
            count: 1,
        }));
    }
    if field < 256 {
        return Ok(Value::Reg(Reg::Vgpr {
            index: field,
            count: 1,
        }));
    }
    let code = field - 256;
    if let Some(v) = reg::inline_integer(code) {
        return Ok(Value::InlineInt(v));
    }
    if (240..=248).contains(&code) {
        return Ok(Value::InlineFloat(code));
    }
    scalar(code, 1, generation).map(Value::Reg)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast operand loop gives exactly what the general one gives (values, count, extra
    /// bytes, failures) on random words of every encoding it takes, on targets of each
    /// register-file shape.
    #[test]
    fn fast_plan_matches_general_loop() {
        let mut next = crate::isa::xorshift64(0x1234_5678_9abc_def0);
        let mut compared = 0usize;
        for (name, features) in [("gfx803", ""), ("gfx906", ""), ("gfx90a", ""), ("gfx1030", ""), ("gfx1100", ""), ("gfx1100", "+real-true16"), ("gfx1200", "")] {
            let target = Target::from_name(name, features).unwrap();
            for e in super::super::table::encodings() {
                let Some(ops) = fast_plan_of(e) else { continue };
                for _ in 0..3 {
                    let random = u128::from(next()) | u128::from(next()) << 64;
                    let word = (random & !e.mask) | e.value;
                    let tail = next().to_le_bytes();
                    let tail = &tail[..(next() % 9) as usize];
                    let (mut fast, mut general) = (Operands::new(), Operands::new());
                    let a = decode_fast(ops, word, tail, &target, &mut fast);
                    let b = decode_operands_general(e, word, tail, &target, &mut general);
                    assert_eq!(a, b, "{} {name}", e.record_name());
                    if a.is_ok() {
                        assert_eq!(fast.as_slice(), general.as_slice(), "{} {name}", e.record_name());
                        assert_eq!(fast.extra_bytes, general.extra_bytes, "{} {name}", e.record_name());
                        assert!(fast.converted.is_none() && general.converted.is_none());
                    }
                    compared += 1;
                }
            }
        }
        assert!(compared > 10_000, "{compared}");
    }

    /// Regression: real-true16 VOP3 DPP selects `.h` halves through the op_sel bits of the
    /// source modifiers (LLVM's convertTrue16OpSel); we printed `.l`.
    #[test]
    fn true16_dpp_op_sel_selects_high_halves() {
        let target = Target::from_name("gfx1100", "+real-true16").unwrap();
        let decoder = crate::isa::Decoder::new(target);
        let bytes = [
            0x05, 0x48, 0xdc, 0xd5, 0xfa, 0x00, 0x00, 0x08, 0x01, 0x5f, 0x01, 0x01,
        ];
        let text = crate::isa::print::print(&decoder.decode(&bytes), &target, 0);
        assert_eq!(
            text,
            "v_ceil_f16_e64_dpp v5.h, v1.h op_sel:[1,1] mul:2 row_share:15 row_mask:0x0 bank_mask:0x1"
        );
    }

    /// Regression (fuzz `decode_never_panics`, gfx1250): a VOPD K form whose src0X selects the
    /// literal read it from the bytes after the 96-bit instruction (failing at the end of the
    /// code, and failing `decode_operands` on the instruction's own bytes); it is the K.
    #[test]
    fn vopd_k_form_literal_source_is_the_k() {
        let target = Target::from_name("gfx1250", "").unwrap();
        let decoder = crate::isa::Decoder::new(target);
        let bytes = [
            0xff, 0xfe, 0xa1, 0xc8, 0x7c, 0xfe, 0x07, 0xff, 0x56, 0x34, 0x12, 0xaf,
        ];
        for stream in [
            &bytes[..],
            &[&bytes[..], &[0xde, 0xad, 0xbe, 0xef]].concat(),
        ] {
            let inst = decoder.decode_uncached(stream);
            assert_eq!(inst.len(), 12, "{inst:?}");
            let e = inst.encoding().unwrap();
            let ops = decode_operands(e, inst.encoded_bits(), &[], &target).unwrap();
            assert_eq!(
                ops.value(OperandName::src0X),
                Some(Value::Literal(0xaf12_3456))
            );
            assert_eq!(ops.extra_bytes, 0);
            assert_eq!(
                crate::isa::print::print(&inst, &target, 0),
                "v_dual_fmamk_f32 v255, 0xaf123456, 0xaf123456, v255 :: v_dual_add_nc_u32 v6, null, v255"
            );
        }
    }

    #[test]
    fn class_widths() {
        assert_eq!(class_bits("VReg_64"), Some(64));
        assert_eq!(class_bits("SGPR_128"), Some(128));
        assert_eq!(class_bits("VReg_64_AlignTarget"), Some(64));
        assert_eq!(class_bits("SReg_1"), Some(32));
        assert_eq!(opw_bits("AMDGPUDisassembler::OPW1024"), 1024);
        assert_eq!(opw_bits("96"), 96);
    }

    #[test]
    fn scalar_registers_by_generation() {
        assert_eq!(
            scalar(124, 1, Generation::Gfx9),
            Ok(Reg::Special(Special::M0))
        );
        assert_eq!(
            scalar(125, 1, Generation::Gfx9),
            Ok(Reg::Special(Special::Null))
        );
        assert_eq!(
            scalar(110, 1, Generation::Gfx9),
            Ok(Reg::Ttmp { index: 2, count: 1 })
        );
        assert_eq!(
            scalar(5, 2, Generation::Gfx9),
            Ok(Reg::Sgpr { index: 4, count: 2 })
        );
        assert!(scalar(254, 2, Generation::Gfx9).is_err());
        assert!(
            scalar(100, 8, Generation::Gfx9).is_err(),
            "s[100:107] passes s101"
        );
    }
}
