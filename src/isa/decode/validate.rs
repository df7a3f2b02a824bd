//! Validation plans: whether a candidate encoding's operands decode, and how many bytes they
//! add, without building the operand list.
//!
//! The decoder only needs two facts from a candidate's operands: does LLVM's operand decoding
//! fail (then the table fails and the next is tried), and does a literal extend the
//! instruction. Of an encoding's operands only a few can decide either: 9-bit sources (a
//! literal, an unknown register encoding, a tuple past the register file), register fields
//! whose tuple may run past the file, DPP8 markers. A plan lists just those fields with what
//! to check, precompiled once per encoding, so accepting a candidate costs a handful of field
//! extractions instead of [`decode_operands_into`].
//!
//! Encodings whose decoding has more to it (K constants, image fix-ups, more operands than an
//! operand list holds, and on GFX12 and later LLVM 22's buffer records) keep the full decode:
//! their plan says so. The unit test at the end checks plans against the full decode on every
//! record.

use std::sync::OnceLock;

use crate::isa::operand::{
    DecodeFail, MAX_OPERANDS, Method, Operands, decode_operands_into, generation_has_64bit_literals, method_of,
    rejects_negative_buffer_offsets, scalar,
};
use crate::isa::processor::Generation;
use crate::isa::reg::inline_integer;
use crate::isa::table::{Encoding, FieldBits, encodings, extract, flag};
use crate::isa::target::Target;

/// A field's bits, with the common case (one run of bits) extracted by a shift and a mask
/// on one 64-bit half where it fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Bits {
    lo: u8,
    width: u8,
    /// Runs of more than one segment: the table's description, extracted in general.
    multi: Option<FieldBits>,
}

impl Bits {
    fn new(bits: FieldBits) -> Bits {
        match bits {
            [(lo, hi, 0)] if hi - lo < 16 => Bits { lo: *lo, width: hi - lo + 1, multi: None },
            _ => Bits { lo: 0, width: 0, multi: Some(bits) },
        }
    }

    #[inline]
    fn get(self, word: u128) -> u16 {
        let Some(multi) = self.multi else {
            let (lo, width) = (u32::from(self.lo), u32::from(self.width));
            let v = if lo >= 64 {
                ((word >> 64) as u64) >> (lo - 64)
            } else if lo + width <= 64 {
                (word as u64) >> lo
            } else {
                (word >> lo) as u64
            };
            return (v & ((1u64 << width) - 1)) as u16;
        };
        extract(multi, word) as u16
    }
}

/// What one field must satisfy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Check {
    /// LLVM's `decodeSrcOp` on `field | or` (a forced VGPR bit): a VGPR tuple within the file,
    /// an inline constant, the literal (if `literal`; it needs 4 bytes), or a scalar register.
    /// `deferred` sources selecting the literal take the K constant later: nothing to check.
    Src { bits: Bits, or: u16, dwords: u8, literal: bool, deferred: bool },
    /// `decodeBoolReg`: a scalar source of the wave's mask width.
    Bool { bits: Bits },
    /// A direct VGPR/AGPR index whose tuple must fit (`lo128`: only v0..v127 exist).
    Vector { bits: Bits, dwords: u8, lo128: bool },
    /// A 7-bit scalar register encoding.
    Scalar { bits: Bits, dwords: u8 },
    /// `decodeSDWASrc`: from GFX9 a field of 256 and up is a scalar source or constant.
    SdwaSrc { bits: Bits },
    /// `decodeSDWAVopcDst`: with bit 7 set, a scalar register of the wave's mask width.
    SdwaVopcDst { bits: Bits },
    /// DPP8's `fi` marker in the src0 field: 0xE9 or 0xEA.
    Dpp8Fi { bits: Bits },
    /// A True16 source: with bit 8 clear, an 8-bit scalar source or constant (literal allowed).
    T16Src { bits: Bits },
}

/// An encoding's plan: its checks, or `None` for "decode the operands in full".
type Plan = Option<Box<[Check]>>;

fn plans() -> &'static [Plan] {
    static PLANS: OnceLock<Vec<Plan>> = OnceLock::new();
    PLANS.get_or_init(|| encodings().iter().map(plan_of).collect())
}

fn plan_of(e: &Encoding) -> Plan {
    // Decoding with fix-ups beyond per-field checks: images (NSA dwords, convertMIMGInst),
    // lists longer than `Operands` holds; K constants below.
    if e.flags.has(flag::MIMG | flag::VIMAGE | flag::VSAMPLE) || e.operands.len() > MAX_OPERANDS {
        return None;
    }
    let mut checks = Vec::new();
    for (operand, &fields) in e.operands.iter().zip(e.fields) {
        if fields.is_empty() {
            continue;
        }
        let bits = Bits::new(fields);
        let check = match method_of(operand.class) {
            // A K constant inside the encoding is the literal its sources share.
            Method::KImm { .. } => return None,
            Method::Src { dwords, literal, deferred, .. } => Check::Src { bits, or: 0, dwords, literal, deferred },
            Method::AccVector { dwords, force_vector, .. } => {
                // The acc bit (0x200) picks AGPR or VGPR of the same index: it cannot fail.
                Check::Src { bits, or: if force_vector { 0x100 } else { 0 }, dwords, literal: false, deferred: false }
            }
            Method::Vector { dwords, .. } => {
                let info = operand.class.info();
                let lo128 = info.decoder_method.is_empty() && info.reg_class.ends_with("_Lo128");
                Check::Vector { bits, dwords, lo128 }
            }
            Method::Scalar { dwords } => Check::Scalar { bits, dwords },
            Method::Bool => Check::Bool { bits },
            Method::SdwaSrc => Check::SdwaSrc { bits },
            Method::SdwaVopcDst => Check::SdwaVopcDst { bits },
            Method::Dpp8Fi => Check::Dpp8Fi { bits },
            Method::T16 { src: true, .. } => Check::T16Src { bits },
            // Fields that decode whatever their value.
            Method::T16 { src: false, .. } | Method::SmemOffset | Method::VopdDstY | Method::Imm => continue,
        };
        checks.push(check);
    }
    Some(checks.into_boxed_slice())
}

/// Encoding `index`'s plan on `target`, if it has one there.
///
/// LLVM 22 decodes as LLVM 19 does but for operand values (`gds`, True16 halves, f8f6f4
/// tuple sizes), none of which decides a decode or its length, and for two rules of GFX12
/// and later: a source may select a 64-bit literal (gfx1250; [`Literal::Qword`], which the
/// checks say), and a negative buffer offset fails the instruction, which no check says, so
/// LLVM 22's buffer records have no plan there.
fn plan(index: u16, target: &Target) -> Option<&'static [Check]> {
    if rejects_negative_buffer_offsets(&encodings()[index as usize], target.generation()) {
        return None;
    }
    plans()[index as usize].as_deref()
}

/// What a source field selects after the encoded bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Literal {
    None,
    /// The literal dword (source 255).
    Dword,
    /// GFX1250's 64-bit literal (source 254, LLVM 22's `LITERAL64_CONST`), 8 bytes.
    Qword,
}

/// Whether encoding `index` is validated on `target` by its plan (reading only the encoded
/// bits and the tail's length), not by a full operand decode (which may read the tail's
/// bytes).
pub(super) fn is_planned(index: u16, target: &Target) -> bool {
    plan(index, target).is_some()
}

/// Bytes from the start through the last bit encoding `index`'s plan on `target` reads (0
/// for a plan with no checks), or `None` without a plan (the full operand decode may read
/// the tail).
pub(super) fn plan_read(index: u16, target: &Target) -> Option<u8> {
    let checks = plan(index, target)?;
    let last_bit = |bits: Bits| match bits.multi {
        None => u32::from(bits.lo) + u32::from(bits.width),
        Some(segments) => segments.iter().map(|&(_, hi, _)| u32::from(hi) + 1).max().unwrap_or(0),
    };
    Some(checks.iter().map(|c| last_bit(c.bits())).max().unwrap_or(0).div_ceil(8) as u8)
}

/// Whether encoding `index`'s operands decode from `word` with `tail` (the bytes after the
/// encoded bits, up to the instruction limit) after them, as [`decode_operands_into`] would
/// say; `Ok` holds the bytes they consume after the encoded bits.
pub(super) fn validate(index: u16, word: u128, tail: &[u8], target: &Target) -> Result<u8, DecodeFail> {
    let Some(checks) = plan(index, target) else {
        let mut ops = Operands::new();
        decode_operands_into(&encodings()[index as usize], word, tail, target, &mut ops)?;
        return Ok(ops.extra_bytes);
    };
    let generation = target.generation();
    let mask_dwords = mask_dwords(target);
    let mut first = Literal::None;
    for &check in checks.iter() {
        let literal = check_field(check, check.bits().get(word), generation, mask_dwords)?;
        if first == Literal::None {
            first = literal;
        }
    }
    // The first source (in operand order, which the checks keep) to select a literal reads
    // it, a dword or a qword; the later ones take what it read.
    let extra = match first {
        Literal::None => return Ok(0),
        Literal::Dword => 4,
        Literal::Qword => 8,
    };
    if tail.len() < extra {
        return Err(DecodeFail::LiteralPastEnd);
    }
    Ok(extra as u8)
}

/// Dwords of a lane mask on `target` (what `decodeBoolReg` and SDWA's VOPC destination read).
fn mask_dwords(target: &Target) -> u8 {
    if target.wave64 { 2 } else { 1 }
}

/// The encoded bits whose values may decide encoding `index`'s planned validation on
/// `target` (the fields of its checks that some value fails or makes select a literal), or
/// `None` without a plan (a full operand decode may read any bit, and the tail).
pub(super) fn plan_decisive_bits(index: u16, target: &Target) -> Option<u128> {
    let checks = plan(index, target)?;
    let generation = target.generation();
    let mask_dwords = mask_dwords(target);
    let decisive = |&c: &&Check| {
        let values = 1u32 << c.bits().value_bits();
        (0..values).any(|v| check_field(*c, v as u16, generation, mask_dwords) != Ok(Literal::None))
    };
    Some(checks.iter().filter(decisive).fold(0, |m, c| m | c.bits().mask()))
}

impl Bits {
    /// How many bits the field's value has.
    fn value_bits(self) -> u32 {
        match self.multi {
            None => u32::from(self.width),
            Some(segments) => segments.iter().map(|&(lo, hi, at)| u32::from(at) + u32::from(hi - lo) + 1).max().unwrap_or(0),
        }
    }

    /// The field's bits in the word.
    fn mask(self) -> u128 {
        let run = |lo: u8, width: u32| (u128::MAX >> (128 - width)) << lo;
        match self.multi {
            None if self.width == 0 => 0,
            None => run(self.lo, u32::from(self.width)),
            Some(segments) => segments.iter().fold(0, |m, &(lo, hi, _)| m | run(lo, u32::from(hi - lo) + 1)),
        }
    }
}

impl Check {
    /// The field this check reads (every variant has one).
    fn bits_mut(&mut self) -> &mut Bits {
        match self {
            Check::Src { bits, .. }
            | Check::Bool { bits }
            | Check::Vector { bits, .. }
            | Check::Scalar { bits, .. }
            | Check::SdwaSrc { bits }
            | Check::SdwaVopcDst { bits }
            | Check::Dpp8Fi { bits }
            | Check::T16Src { bits } => bits,
        }
    }

    fn bits(mut self) -> Bits {
        *self.bits_mut()
    }

    /// The same check on a field at bit 0 (what a verdict table is keyed by).
    fn at_zero(mut self) -> Check {
        self.bits_mut().lo = 0;
        self
    }
}

/// One check on the field value `value` (the field's bits, extracted): `Ok` says which
/// literal it selects, if any.
fn check_field(check: Check, value: u16, generation: Generation, mask_dwords: u8) -> Result<Literal, DecodeFail> {
    match check {
        Check::Src { or, dwords, literal: literal_ok, deferred, .. } => {
            let code = (value | or) & 0x1ff;
            if !(deferred && code == 255) {
                return src(code, dwords, literal_ok, generation);
            }
        }
        Check::Bool { .. } => {
            src(value & 0x1ff, mask_dwords, false, generation)?;
        }
        Check::Vector { dwords, lo128, .. } => {
            let index = value & 0xff;
            if index + u16::from(dwords) > 256 || (lo128 && index >= 128) {
                return Err(DecodeFail::BadRegister(index));
            }
        }
        Check::Scalar { dwords, .. } => {
            scalar(value, dwords, generation)?;
        }
        Check::SdwaSrc { .. } => {
            if generation != Generation::Gfx8 && value >= 256 {
                let code = value - 256;
                if inline_integer(code).is_none() && !(240..=248).contains(&code) {
                    scalar(code, 1, generation)?;
                }
            }
        }
        Check::SdwaVopcDst { .. } => {
            if value & 0x80 != 0 {
                scalar(value & 0x7f, mask_dwords, generation)?;
            }
        }
        Check::Dpp8Fi { .. } => {
            let marker = value & 0x1ff;
            if !matches!(marker, 0xe9 | 0xea) {
                return Err(DecodeFail::BadDpp8Marker(marker));
            }
        }
        Check::T16Src { .. } => {
            if value & 0x100 == 0 {
                return src(value & 0xff, 1, true, generation);
            }
        }
    }
    Ok(Literal::None)
}

/// Verdict of a compiled check on one field value: the field is fine.
pub(super) const VERDICT_OK: u8 = 0;
/// The field selects the literal (4 more bytes, which must be there).
pub(super) const VERDICT_LITERAL: u8 = 1;
/// The operand does not decode: the candidate fails.
pub(super) const VERDICT_FAIL: u8 = 2;
/// The field selects GFX1250's 64-bit literal (8 more bytes, which must be there).
pub(super) const VERDICT_LITERAL64: u8 = 4;
/// Fields select both literals (their verdicts or'ed): which one is read depends on the
/// operands' order, which [`validate`] follows.
pub(super) const VERDICT_LITERALS: u8 = VERDICT_LITERAL | VERDICT_LITERAL64;

/// A plan's check compiled for one target: the field's bits (from `shift`, `mask` their width's
/// low-bit mask) index a verdict table at `table` in [`Compiler::verdicts`], computed once from
/// [`check_field`] for every value the field can hold. Validation is then one extraction and
/// one load per check.
#[derive(Clone, Copy, Debug)]
pub(super) struct FastCheck {
    pub shift: u8,
    pub mask: u16,
    pub table: u32,
}

impl FastCheck {
    /// Bytes from the start through the field's last bit.
    pub fn read(&self) -> u8 {
        (u32::from(self.shift) + u16::BITS - self.mask.leading_zeros()).div_ceil(8) as u8
    }
}

/// The verdict of the compiled `checks` (with their tables in `verdicts`) on `word` (its
/// leading bytes; only the encoded bits are read): the or of the checks' verdicts.
#[inline(always)]
pub(super) fn fast_verdict(checks: &[FastCheck], verdicts: &[u8], word: u128) -> u8 {
    let (low, high) = (word as u64, (word >> 64) as u64);
    let mut verdict = 0u8;
    for c in checks {
        // Compiled fields never straddle bit 64.
        let half = if c.shift < 64 { low } else { high };
        let value = (half >> (c.shift & 63)) as u32 & u32::from(c.mask);
        verdict |= verdicts.get(c.table as usize + value as usize).copied().unwrap_or(VERDICT_FAIL);
    }
    verdict
}

/// The widest field given a verdict table (2^12 entries).
const MAX_TABLE_BITS: u8 = 12;

/// Compiles plans into [`FastCheck`]s for one target (generation and wave size), sharing
/// verdict tables between checks that behave alike.
#[derive(Default)]
pub(super) struct Compiler {
    pub checks: Vec<FastCheck>,
    pub verdicts: Vec<u8>,
    /// Each distinct check's verdict table, and whether every verdict in it is OK.
    tables: std::collections::HashMap<Check, (u32, bool)>,
    /// Each distinct check of a field in pieces: the run it compiles to ([`deciding_piece`]).
    pieces: std::collections::HashMap<Check, Option<Option<Run>>>,
}

/// The bits a compiled check reads: `width` bits from bit `lo` of the word, which are the
/// field value's bits from bit `at` (0 but for a piece of a field in pieces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    lo: u8,
    width: u8,
    at: u8,
}

impl Compiler {
    /// Encoding `index`'s plan compiled for `target`, as a range of [`Compiler::checks`], or
    /// `None` when it has no plan or a field no table covers (then [`validate`] decides).
    pub fn compile(&mut self, index: u16, target: &Target) -> Option<(u32, u8)> {
        let checks = plan(index, target)?;
        if checks.len() > 32 {
            return None;
        }
        let generation = target.generation();
        let mask_dwords = mask_dwords(target);
        let mut runs = Vec::with_capacity(checks.len());
        for &check in checks.iter() {
            let bits = check.bits();
            let run = match bits.multi {
                None => Some(Run { lo: bits.lo, width: bits.width, at: 0 }),
                Some(pieces) => *self.pieces.entry(check.at_zero()).or_insert_with(|| deciding_piece(check, pieces, generation, mask_dwords)).as_ref()?,
            };
            let unfit = |r: &Run| r.width > MAX_TABLE_BITS || (r.lo < 64 && r.lo + r.width > 64);
            if run.as_ref().is_some_and(unfit) {
                return None;
            }
            runs.push((check, run));
        }
        let start = self.checks.len() as u32;
        // (A field in pieces none of which decides anything has no run: no check.)
        for (check, run) in runs.into_iter().filter_map(|(check, run)| Some((check, run?))) {
            let key = check.at_zero();
            let verdicts = &mut self.verdicts;
            let (table, always_ok) = *self.tables.entry(key).or_insert_with(|| {
                let first = verdicts.len() as u32;
                verdicts.extend((0..1u16 << run.width).map(|x| verdict_of(check, x << run.at, generation, mask_dwords)));
                (first, verdicts[first as usize..].iter().all(|&v| v == VERDICT_OK))
            });
            // A field every value of which is fine decides nothing: no check.
            if !always_ok {
                self.checks.push(FastCheck { shift: run.lo, mask: ((1u32 << run.width) - 1) as u16, table });
            }
        }
        Some((start, (self.checks.len() as u32 - start) as u8))
    }
}

/// The verdict of `check` on the field value `value`.
fn verdict_of(check: Check, value: u16, generation: Generation, mask_dwords: u8) -> u8 {
    match check_field(check, value, generation, mask_dwords) {
        Ok(Literal::None) => VERDICT_OK,
        Ok(Literal::Dword) => VERDICT_LITERAL,
        Ok(Literal::Qword) => VERDICT_LITERAL64,
        Err(_) => VERDICT_FAIL,
    }
}

/// Of a field in `pieces` (an AGPR bit beside a register's eight, a base register's bits
/// shifted into place), the one piece whose bits alone decide `check`'s verdict, as the run
/// it compiles to: a check on one run of bits is one extraction. `Some(None)` when every
/// value is fine (no check); `None` when no one piece decides, or the value is too wide to
/// tell (then [`validate`] decides). A source's AGPR bit is one such piece that decides
/// nothing (the 9-bit code it joins keeps its low bits), so a DS or FLAT data register
/// compiles to a check of its eight bits, or to none where every register is fine.
fn deciding_piece(check: Check, pieces: FieldBits, generation: Generation, mask_dwords: u8) -> Option<Option<Run>> {
    let value_bits = check.bits().value_bits();
    if value_bits > u32::from(MAX_TABLE_BITS) {
        return None;
    }
    let mask_of = |&(lo, hi, at): &(u8, u8, u8)| ((1usize << (hi - lo + 1)) - 1) << at;
    // The values the pieces can make (a base shifted into place leaves its low bits clear).
    let made = pieces.iter().fold(0, |m, piece| m | mask_of(piece));
    let values = || (0..1usize << value_bits).filter(move |v| v & !made == 0);
    let verdicts: Vec<u8> = (0..1u16 << value_bits).map(|v| verdict_of(check, v, generation, mask_dwords)).collect();
    if values().all(|v| verdicts[v] == VERDICT_OK) {
        return Some(None);
    }
    let decides = |piece: &&(u8, u8, u8)| values().all(|v| verdicts[v] == verdicts[v & mask_of(piece)]);
    pieces.iter().find(decides).map(|&(lo, hi, at)| Some(Run { lo, width: hi - lo + 1, at }))
}

/// `decodeSrcOp` for a 9-bit source code: the literal it selects, if any.
fn src(code: u16, dwords: u8, literal_ok: bool, generation: Generation) -> Result<Literal, DecodeFail> {
    if code >= 256 {
        if code - 256 + u16::from(dwords) > 256 {
            return Err(DecodeFail::BadRegister(code));
        }
        return Ok(Literal::None);
    }
    if inline_integer(code).is_some() || (240..=248).contains(&code) {
        return Ok(Literal::None);
    }
    let literal = match code {
        255 => Literal::Dword,
        // Elsewhere `lds_direct`, a scalar source.
        254 if generation_has_64bit_literals(generation) => Literal::Qword,
        _ => return scalar(code, dwords, generation).map(|_| Literal::None),
    };
    if literal_ok { Ok(literal) } else { Err(DecodeFail::BadRegister(code)) }
}

/// The fields of encoding `index`'s plan on `target` that are sources (which may select a
/// literal), as `(lo, width)`, for tests that put literal codes there.
#[cfg(test)]
pub(super) fn source_fields(index: u16, target: &Target) -> Vec<(u8, u8)> {
    plan(index, target)
        .unwrap_or_default()
        .iter()
        .filter(|c| matches!(c, Check::Src { .. } | Check::Bool { .. } | Check::T16Src { .. }))
        .map(|c| c.bits())
        .filter(|b| b.multi.is_none())
        .map(|b| (b.lo, b.width))
        .collect()
}

/// `word` with the field at `lo` (`width` bits) set to `value`.
#[cfg(test)]
pub(super) fn with_field(word: u128, (lo, width): (u8, u8), value: u16) -> u128 {
    let mask = ((1u128 << width) - 1) << lo;
    (word & !mask) | ((u128::from(value) << lo) & mask)
}

/// Words over `word` with literal codes in its source fields: 255 (the dword) and 254 (the
/// qword on GFX1250, `lds_direct` elsewhere) in each, and in each ordered pair of fields one of
/// each, so a qword selected before a dword and after one are both met.
#[cfg(test)]
pub(super) fn literal_words(word: u128, fields: &[(u8, u8)]) -> Vec<u128> {
    let mut out = Vec::new();
    for (k, &f) in fields.iter().enumerate() {
        out.extend([254, 255].map(|code| with_field(word, f, code)));
        for &g in &fields[k + 1..] {
            out.push(with_field(with_field(word, f, 254), g, 255));
            out.push(with_field(with_field(word, f, 255), g, 254));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compiled checks give the plan's verdict on every record they compile, on random words
    /// over its fixed bits and with each piece of a field in pieces set and clear; fields in
    /// pieces compile where one piece decides (a DS or global data register beside its AGPR
    /// bit, GFX8/9's shifted SMEM base) and not where two do (an SDWA source's register and
    /// its SGPR bit).
    #[test]
    fn compiled_checks_agree_with_their_plans() {
        let mut next = crate::isa::xorshift64(0x510e_527f_ade6_82d1);
        let mut in_pieces = 0;
        for (cpu, features) in [("gfx803", ""), ("gfx900", ""), ("gfx90a", ""), ("gfx1030", ""), ("gfx1100", "+real-true16"), ("gfx1250", "")] {
            let target = Target::from_name(cpu, features).unwrap();
            let mut compiler = Compiler::default();
            for (i, e) in encodings().iter().enumerate() {
                if e.llvm != target.llvm_version() {
                    continue;
                }
                let Some((first, count)) = compiler.compile(i as u16, &target) else { continue };
                let checks = plan(i as u16, &target).expect("compiled from a plan");
                let pieces: Vec<(u8, u8, u8)> = checks.iter().filter_map(|c| c.bits().multi).flatten().copied().collect();
                in_pieces += usize::from(!pieces.is_empty());
                for round in 0..8 {
                    let random = (u128::from(next()) << 64 | u128::from(next())) & (u128::MAX >> (128 - u32::from(e.bits)));
                    let mut word = (random & !e.mask) | e.value;
                    if let Some(&(lo, hi, _)) = pieces.get(round % pieces.len().max(1)) {
                        let piece = ((1u128 << (hi - lo + 1)) - 1) << lo & !e.mask;
                        word = if round % 2 == 0 { word | piece } else { word & !piece };
                    }
                    let checks = &compiler.checks[first as usize..first as usize + usize::from(count)];
                    let fast = fast_verdict(checks, &compiler.verdicts, word);
                    let tail = [0u8; 8];
                    let planned = match validate(i as u16, word, &tail, &target) {
                        Ok(0) => VERDICT_OK,
                        Ok(4) => VERDICT_LITERAL,
                        Ok(_) => VERDICT_LITERAL64,
                        Err(_) => VERDICT_FAIL,
                    };
                    // Both literals: the plan's order picks one, which the compiled checks leave to it.
                    if fast != VERDICT_LITERALS {
                        assert_eq!(fast & VERDICT_FAIL != 0, planned == VERDICT_FAIL, "{} on {cpu}, word {word:#x}", e.record_name());
                        if fast & VERDICT_FAIL == 0 {
                            assert_eq!(fast, planned, "{} on {cpu}, word {word:#x}", e.record_name());
                        }
                    }
                }
            }
            let mut compiles = |name: &str| {
                let i = encodings().iter().position(|e| e.record_name() == name && e.llvm == target.llvm_version()).unwrap();
                compiler.compile(i as u16, &target).is_some()
            };
            if cpu == "gfx900" {
                for name in ["DS_WRITE_B32_vi", "DS_READ2_B32_vi", "GLOBAL_STORE_DWORD_vi", "S_LOAD_DWORDX4_IMM_vi"] {
                    assert!(compiles(name), "{name} on {cpu}");
                }
                assert!(!compiles("V_XOR_B32_sdwa_gfx9"), "V_XOR_B32_sdwa_gfx9 on {cpu}");
            }
        }
        assert!(in_pieces > 500, "{in_pieces}");
    }

    /// Every record with a plan, on targets of every generation (LLVM 22's records on gfx950
    /// and gfx1250): random words over the record's fixed bits, and the same with literal
    /// codes in the source fields (GFX1250's 64-bit literal before and after a 32-bit one),
    /// with tails of 0..8 bytes, give the full decode's verdict and length.
    #[test]
    fn plans_agree_with_full_decoding() {
        let targets = [
            ("gfx803", ""),
            ("gfx900", "+wavefrontsize64"),
            ("gfx90a", ""),
            ("gfx1030", "+wavefrontsize64"),
            ("gfx1030", ""),
            ("gfx1100", "+real-true16"),
            ("gfx1200", ""),
            ("gfx950", ""),
            ("gfx950", "+wavefrontsize64"),
            ("gfx1250", ""),
        ];
        let mut next = crate::isa::xorshift64(0x9e37_79b9_7f4a_7c15);
        let mut scratch = Operands::new();
        let (mut checked, mut qwords) = (0, 0);
        for (cpu, features) in targets {
            let target = Target::from_name(cpu, features).unwrap();
            let mut records = 0;
            for (i, e) in encodings().iter().enumerate() {
                if e.llvm != target.llvm_version() || plan(i as u16, &target).is_none() {
                    continue;
                }
                let fields = source_fields(i as u16, &target);
                for round in 0..6 {
                    let random = (u128::from(next()) << 64 | u128::from(next())) & (u128::MAX >> (128 - u32::from(e.bits)));
                    let word = (random & !e.mask) | e.value;
                    let tail = [0xabu8; 8];
                    let tail = &tail[..round % 3 * 4];
                    let words = if round < 3 { literal_words(word, &fields) } else { Vec::new() };
                    for word in std::iter::once(word).chain(words) {
                        let planned = validate(i as u16, word, tail, &target).map_err(|_| ());
                        let full =
                            decode_operands_into(e, word, tail, &target, &mut scratch).map(|()| scratch.extra_bytes).map_err(|_| ());
                        assert_eq!(planned, full, "{} on {cpu}{features}, word {word:#x}, tail {}", e.record_name(), tail.len());
                        qwords += usize::from(full == Ok(8));
                        checked += 1;
                    }
                }
                records += 1;
            }
            assert!(records > 1000, "{cpu}{features}: {records} records planned");
        }
        assert!(checked > 100_000, "{checked}");
        // GFX1250's 64-bit literals were met, as the first literal of an instruction.
        assert!(qwords > 1000, "{qwords}");
    }
}
