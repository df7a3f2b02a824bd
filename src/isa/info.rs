//! What the tables know about one instruction across generations: `gfxpatch isa MNEMONIC`.
//!
//! For each generation (one representative processor each, [`GENERATIONS`]) the encodings of the
//! instruction that decode there: the LLVM records whose LLVM version, decoder namespace
//! (the decoder's [`plan`]) and checked predicates admit them, exactly as
//! the decoder selects them. For each encoding:
//!
//! - **family**: AMD's encoding name, from the record's TSFlags (`VOP1`, `VOPC`, `VOP3`, `SOP2`,
//!   `SMRD` -> `SMEM`, `FLAT` split by name into `FLAT`/`GLOBAL`/`SCRATCH`, ...), refined by
//!   the operand fields (a VOP3 record with an `sdst` field at bit 8 is `VOP3SD`) and the
//!   encoding bits (GFX10+ records flagged only `VOP3` whose bits 31:24 are `0xCC` are `VOP3P`;
//!   DPP and SDWA records carry no VOP1/VOP2/VOPC flag, so their first word's fixed bits decide).
//!   GFX12 and later use AMD's new names (`VGLOBAL`, `VBUFFER`, `VEXPORT`, ...). The **form**
//!   (`DPP16`, `DPP8`, `SDWA`) comes from the variant and the record name.
//! - **opcode**: the value of the family's opcode field in the record's fixed bits. The
//!   positions ([`opcode_fields`]) are AMD's encoding diagrams (the same fields as LLVM's `*e`
//!   encoding classes): VOP3 `OP` is bits 25:16 on every generation, VOPC 24:17, VOP1 16:9,
//!   VOP2 30:25, SMEM 25:18 until GFX11 and 18:13 from GFX12, and so on. They are checked
//!   against the data in the tests: every record of a family has all opcode bits fixed, and the
//!   value equals AMD's opcode for the instruction in AMD's own tables (`semantics`) for all
//!   but a handful of records whose LLVM and AMD names differ.
//! - **layout**: every bit of the encoding, MSB first, as runs labelled with AMD-style field
//!   names (VDST, SRC0, ABS, OPSEL, CLAMP, OP, OMOD, NEG, ...) and what the record puts there:
//!   an operand (and which of its bits), the opcode, the encoding identifier, other fixed bits,
//!   or nothing (bits the record leaves undefined). Field names are the family's
//!   ([`family_layout`]): per bit, the name most records of the family give it on that
//!   generation, so a record without modifiers still shows where ABS and NEG sit.
//! - **operands**: LLVM's outs and ins, with class and bits.
//! - **AMD**: the entry of AMD's table for the family's encoding and opcode (see
//!   [`semantics`] for which table serves which generation and for which
//!   pseudocode is shown), AMD's name for the instruction, and its pseudocode.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use super::decode::{Attempt, plan};
use super::predicates::{self, PredContext};
use super::processor::{Generation, PROCESSORS, Processor};
use super::semantics::{self, Arch, Pseudocode, Semantics};
use super::table::{Dir, Encoding, OperandName, Variant, encodings, flag};
use super::target::Target;

/// The generations `gfxpatch isa` reports, each with the processor that stands for it.
pub const GENERATIONS: [(Generation, &str); 11] = [
    (Generation::Gfx8, "gfx803"),
    (Generation::Gfx9, "gfx900"),
    (Generation::Gfx90a, "gfx90a"),
    (Generation::Gfx940, "gfx942"),
    (Generation::Gfx950, "gfx950"),
    (Generation::Gfx10_1, "gfx1010"),
    (Generation::Gfx10_3, "gfx1030"),
    (Generation::Gfx11, "gfx1100"),
    (Generation::Gfx11_5, "gfx1151"),
    (Generation::Gfx12, "gfx1200"),
    (Generation::Gfx1250, "gfx1250"),
];

/// An AMD encoding family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    Sop1,
    Sop2,
    Sopc,
    Sopk,
    Sopp,
    Smem,
    Vop1,
    Vop2,
    Vopc,
    Vop3,
    Vop3sd,
    Vop3p,
    Vopd,
    Vopd3,
    Vintrp,
    Vinterp,
    Ldsdir,
    Ds,
    Flat,
    Global,
    Scratch,
    Mubuf,
    Mtbuf,
    Mimg,
    Vimage,
    Vsample,
    Exp,
}

impl Family {
    /// AMD's name for the family on `generation` (GFX12 renamed the memory and export ones).
    pub fn name(self, generation: Generation) -> &'static str {
        let gfx12 = generation >= Generation::Gfx12;
        match self {
            Family::Sop1 => "SOP1",
            Family::Sop2 => "SOP2",
            Family::Sopc => "SOPC",
            Family::Sopk => "SOPK",
            Family::Sopp => "SOPP",
            Family::Smem => "SMEM",
            Family::Vop1 => "VOP1",
            Family::Vop2 => "VOP2",
            Family::Vopc => "VOPC",
            Family::Vop3 => "VOP3",
            Family::Vop3sd => "VOP3SD",
            Family::Vop3p => "VOP3P",
            Family::Vopd => "VOPD",
            Family::Vopd3 => "VOPD3",
            Family::Vintrp => "VINTRP",
            Family::Vinterp => "VINTERP",
            Family::Ldsdir if gfx12 => "VDSDIR",
            Family::Ldsdir => "LDSDIR",
            Family::Ds => "DS",
            Family::Flat if gfx12 => "VFLAT",
            Family::Flat => "FLAT",
            Family::Global if gfx12 => "VGLOBAL",
            Family::Global => "GLOBAL",
            Family::Scratch if gfx12 => "VSCRATCH",
            Family::Scratch => "SCRATCH",
            Family::Mubuf | Family::Mtbuf if gfx12 => "VBUFFER",
            Family::Mubuf => "MUBUF",
            Family::Mtbuf => "MTBUF",
            Family::Mimg => "MIMG",
            Family::Vimage => "VIMAGE",
            Family::Vsample => "VSAMPLE",
            Family::Exp if gfx12 => "VEXPORT",
            Family::Exp => "EXP",
        }
    }

    /// VOP3-style: source modifiers spread over shared NEG/ABS/OPSEL fields.
    fn is_vop3_like(self) -> bool {
        matches!(
            self,
            Family::Vop3 | Family::Vop3sd | Family::Vop3p | Family::Vinterp
        )
    }
}

/// The extra-dword forms of VALU encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Form {
    Native,
    Sdwa,
    Dpp16,
    Dpp8,
}

impl Form {
    pub fn name(self) -> Option<&'static str> {
        match self {
            Form::Native => None,
            Form::Sdwa => Some("SDWA"),
            Form::Dpp16 => Some("DPP16"),
            Form::Dpp8 => Some("DPP8"),
        }
    }
}

/// The family and form of an encoding record (see the module documentation), or `None` for
/// records of no family (pseudo-like leftovers).
pub fn classify(e: &Encoding) -> Option<(Family, Form)> {
    let f = e.flags;
    let name = e.opcode.name();
    let word0 = (e.value & 0xffff_ffff) as u32;
    let form = if matches!(e.variant, Variant::SDWA | Variant::SDWA9) {
        Form::Sdwa
    } else if name.contains("_dpp8") {
        Form::Dpp8
    } else if f.has(flag::DPP) {
        Form::Dpp16
    } else {
        Form::Native
    };
    let family = if name.starts_with("V_DUAL_") {
        if f.has(flag::VOPD3) {
            Family::Vopd3
        } else {
            Family::Vopd
        }
    } else if f.has(flag::VOPD3) {
        Family::Vopd3
    } else if f.has(flag::VINTERP) {
        Family::Vinterp
    } else if f.has(flag::VINTRP) {
        Family::Vintrp
    } else if f.has(flag::LDSDIR) {
        Family::Ldsdir
    } else if f.has(flag::VOP3P) || (f.has(flag::VOP3) && is_vop3p_word(e, word0)) {
        Family::Vop3p
    } else if f.has(flag::VOP3) {
        let sdst_at_8 = e
            .operand_index(OperandName::sdst)
            .is_some_and(|i| e.fields[i].iter().any(|r| r.0 == 8));
        if sdst_at_8 {
            Family::Vop3sd
        } else {
            Family::Vop3
        }
    } else if f.has(flag::VOPC) {
        Family::Vopc
    } else if f.has(flag::VOP1) {
        Family::Vop1
    } else if f.has(flag::VOP2) {
        Family::Vop2
    } else if f.has(flag::SOP1) {
        Family::Sop1
    } else if f.has(flag::SOP2) {
        Family::Sop2
    } else if f.has(flag::SOPC) {
        Family::Sopc
    } else if f.has(flag::SOPK) {
        Family::Sopk
    } else if f.has(flag::SOPP) {
        Family::Sopp
    } else if f.has(flag::SMRD) {
        Family::Smem
    } else if f.has(flag::DS) {
        Family::Ds
    } else if f.has(flag::FLAT) {
        if name.starts_with("GLOBAL_") {
            Family::Global
        } else if name.starts_with("SCRATCH_") {
            Family::Scratch
        } else {
            Family::Flat
        }
    } else if f.has(flag::MUBUF) {
        Family::Mubuf
    } else if f.has(flag::MTBUF) {
        Family::Mtbuf
    } else if f.has(flag::VIMAGE) {
        Family::Vimage
    } else if f.has(flag::VSAMPLE) {
        Family::Vsample
    } else if f.has(flag::MIMG) {
        Family::Mimg
    } else if f.has(flag::EXP) {
        Family::Exp
    } else if f.has(flag::VALU) && form != Form::Native && e.mask & 0x8000_0000 != 0 {
        // DPP and SDWA forms of VOP1/VOP2/VOPC: the first word is the 32-bit encoding.
        if word0 >> 31 == 0 {
            Family::Vop2
        } else if e.mask & 0xfe00_0000 == 0xfe00_0000 && word0 >> 25 == 0x3f {
            Family::Vop1
        } else if e.mask & 0xfe00_0000 == 0xfe00_0000 && word0 >> 25 == 0x3e {
            Family::Vopc
        } else {
            return None;
        }
    } else {
        return None;
    };
    Some((family, form))
}

/// Records LLVM flags only `VOP3` that are VOP3P-encoded: the MFMA/MAI records of GFX9 and
/// CDNA (bits 31:23 `110100111`) and the packed-math records of GFX10+ (bits 31:24 `0xCC`).
fn is_vop3p_word(e: &Encoding, word0: u32) -> bool {
    let fixed = |mask: u32| e.mask as u32 & mask == mask;
    (fixed(0xff80_0000) && word0 >> 23 == 0b1_1010_0111)
        || (fixed(0xff00_0000) && word0 >> 24 == 0xcc)
}

/// One named opcode field: runs of `(inst_lo, inst_hi, opcode_lo)`, like [`Encoding::fields`].
#[derive(Clone, Copy, Debug)]
pub struct OpcodeField {
    pub name: &'static str,
    pub runs: &'static [(u8, u8, u8)],
}

/// Where the opcode of `family` sits on `generation`, from AMD's encoding diagrams (see the
/// module documentation for how the tests check them). Empty for families without an opcode
/// (EXP) or not charted here (VOPD3).
pub fn opcode_fields(family: Family, generation: Generation) -> &'static [OpcodeField] {
    use Generation::*;
    let gcn = generation < Gfx10_1;
    let gfx10 = matches!(generation, Gfx10_1 | Gfx10_3);
    let gfx11 = matches!(generation, Gfx11 | Gfx11_5);
    macro_rules! f {
        ($($lo:literal..=$hi:literal @ $at:literal),*) => {{
            const F: &[OpcodeField] = &[OpcodeField { name: "OP", runs: &[$(($lo, $hi, $at)),*] }];
            F
        }};
    }
    match family {
        Family::Sop2 => f!(23..=29 @ 0),
        Family::Sopk => f!(23..=27 @ 0),
        Family::Sop1 => f!(8..=15 @ 0),
        Family::Sopc | Family::Sopp => f!(16..=22 @ 0),
        Family::Smem if gcn || gfx10 || gfx11 => f!(18..=25 @ 0),
        Family::Smem => f!(13..=18 @ 0),
        Family::Vop2 => f!(25..=30 @ 0),
        Family::Vop1 => f!(9..=16 @ 0),
        Family::Vopc => f!(17..=24 @ 0),
        Family::Vop3 | Family::Vop3sd => f!(16..=25 @ 0),
        Family::Vop3p => f!(16..=22 @ 0),
        // GFX12's records leave bits 22:21 undefined.
        Family::Vinterp if gfx11 => f!(16..=22 @ 0),
        Family::Vinterp => f!(16..=20 @ 0),
        Family::Vintrp => f!(16..=17 @ 0),
        Family::Ldsdir => f!(20..=21 @ 0),
        Family::Ds if gcn => f!(17..=24 @ 0),
        Family::Ds => f!(18..=25 @ 0),
        Family::Flat | Family::Global | Family::Scratch if gcn || gfx10 || gfx11 => f!(18..=24 @ 0),
        Family::Flat | Family::Global | Family::Scratch => f!(14..=20 @ 0),
        Family::Mubuf if gcn => f!(18..=24 @ 0),
        Family::Mubuf if gfx10 => f!(18..=24 @ 0, 25..=25 @ 7),
        Family::Mubuf if gfx11 => f!(18..=25 @ 0),
        Family::Mubuf => f!(14..=21 @ 0),
        Family::Mtbuf if gcn || gfx11 => f!(15..=18 @ 0),
        Family::Mtbuf if gfx10 => f!(16..=18 @ 0, 53..=53 @ 3),
        // GFX12's VBUFFER has one opcode field for both: the typed ops are 128 and up.
        Family::Mtbuf => f!(14..=21 @ 0),
        Family::Mimg if gcn || gfx10 => f!(18..=24 @ 0, 0..=0 @ 7),
        Family::Mimg => f!(18..=25 @ 0),
        Family::Vimage | Family::Vsample => f!(14..=21 @ 0),
        Family::Vopd => {
            const F: &[OpcodeField] = &[
                OpcodeField {
                    name: "OPX",
                    runs: &[(22, 25, 0)],
                },
                OpcodeField {
                    name: "OPY",
                    runs: &[(17, 21, 0)],
                },
            ];
            F
        }
        Family::Exp | Family::Vopd3 => &[],
    }
}

/// The value of an opcode field in the record's fixed bits, or `None` if a bit of it is not fixed.
pub fn field_value(e: &Encoding, runs: &[(u8, u8, u8)]) -> Option<u32> {
    let mut v = 0u32;
    for &(lo, hi, at) in runs {
        for b in lo..=hi {
            if e.mask >> b & 1 == 0 {
                return None;
            }
            v |= ((e.value >> b & 1) as u32) << (at + (b - lo));
        }
    }
    Some(v)
}

/// A processor by name, for the fixed tables here.
fn processor(name: &str) -> &'static Processor {
    Processor::by_name(name).unwrap_or_else(|| panic!("unknown processor {name}"))
}

/// Whether the decoder for `target` can select `e`: LLVM version, a table it tries, predicates.
pub fn decodes_on(e: &Encoding, target: &Target, attempts: &[Attempt]) -> bool {
    let ctx = PredContext::of(target);
    e.llvm == target.llvm_version()
        && !e.flags.has(flag::ISASMPARSERONLY)
        && attempts
            .iter()
            .any(|a| a.namespace == e.ns && a.bits == e.bits)
        && e.preds
            .iter()
            .all(|&p| !predicates::checked_by_decoder(p) || predicates::holds(p, &ctx))
}

/// Indices of every record the default-mode decoder of `processor` can select.
pub fn decodable(processor: &'static Processor) -> Vec<u16> {
    let Ok(target) = Target::from_name(processor.name, "") else {
        return Vec::new();
    };
    let attempts = plan(&target);
    encodings()
        .iter()
        .enumerate()
        .filter(|(_, e)| decodes_on(e, &target, &attempts))
        .map(|(i, _)| i as u16)
        .collect()
}

/// The mnemonic of a record as `gfxpatch isa` matches it: the AsmString's first word without the
/// `_e32`/`_e64`/`_dpp`/`_sdwa` spelling of the form, lowercase.
pub fn mnemonic(e: &Encoding) -> String {
    normalize(e.mnemonic())
}

/// A user's spelling or an LLVM/AMD name reduced to the form [`mnemonic`] gives.
pub fn normalize(name: &str) -> String {
    let mut s = name.trim().to_ascii_lowercase();
    for suffix in [
        "_e64_dpp8",
        "_e64_dpp",
        "_dpp8",
        "_dpp",
        "_sdwa",
        "_e32",
        "_e64",
    ] {
        if let Some(stripped) = s.strip_suffix(suffix) {
            s = stripped.to_owned();
            break;
        }
    }
    s
}

/// What a run of bits holds in one record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Content {
    /// Bits `field_hi..=field_lo` of an operand; `whole` when that is all of its encoded bits.
    Operand {
        operand: &'static str,
        field_hi: u8,
        field_lo: u8,
        whole: bool,
    },
    /// (Part of) the opcode field; `value` is the whole opcode.
    Opcode { value: u32 },
    /// The family's encoding identifier, as binary digits MSB first.
    Encoding { value: String },
    /// Other fixed bits, as binary digits MSB first.
    Fixed { value: String },
    /// Bits the record leaves undefined (ignored by the hardware or reserved).
    Unused,
}

/// One run of bits of a layout, MSB first.
#[derive(Clone, Debug, Serialize)]
pub struct LayoutRow {
    /// AMD-style field name (`SRC0`, `ABS`, `OP`, `ENCODING`), or empty where no record of the
    /// family names the bits.
    pub field: String,
    pub hi: u8,
    pub lo: u8,
    pub content: Content,
}

impl LayoutRow {
    /// `25:16` or `15`.
    pub fn bits(&self) -> String {
        bit_range(self.hi, self.lo)
    }
}

fn bit_range(hi: u8, lo: u8) -> String {
    if hi == lo {
        hi.to_string()
    } else {
        format!("{hi}:{lo}")
    }
}

/// AMD-style name of bit `field_bit` of operand `operand` in a record of `family`.
fn field_name(
    family: Family,
    generation: Generation,
    e: &Encoding,
    operand: usize,
    field_bit: u8,
    inst_bit: u8,
) -> String {
    let op = &e.operands[operand];
    let name = op.name.name();
    if let Some(source) = name.strip_suffix("_modifiers") {
        if family.is_vop3_like() && inst_bit < 64 {
            let packed = family == Family::Vop3p;
            return match field_bit {
                0 => "NEG",
                1 if packed => "NEG_HI",
                1 => "ABS",
                3 if packed => "OPSEL_HI",
                _ => "OPSEL",
            }
            .to_owned();
        }
        let int = op.class.name().starts_with("Int");
        let src = source.to_ascii_uppercase();
        return match field_bit {
            0 if int => format!("{src}_SEXT"),
            0 => format!("{src}_NEG"),
            1 => format!("{src}_ABS"),
            k => format!("{src}_MODS{k}"),
        };
    }
    match name {
        "op_sel" => "OPSEL".to_owned(),
        "op_sel_hi" => "OPSEL_HI".to_owned(),
        "neg_lo" => "NEG".to_owned(),
        "neg_hi" => "NEG_HI".to_owned(),
        "src1" if matches!(family, Family::Vop2 | Family::Vopc) => "VSRC1".to_owned(),
        "cpol" => {
            let gfx940 = matches!(generation, Generation::Gfx940 | Generation::Gfx950);
            match (field_bit, generation >= Generation::Gfx12, gfx940) {
                (0..=2, true, _) => "TH",
                (3..=4, true, _) => "SCOPE",
                (5, true, _) => "NV",
                (0, _, true) => "SC0",
                (1, _, true) => "NT",
                (4, _, true) => "SC1",
                (0, _, _) => "GLC",
                (1, _, _) => "SLC",
                (2, _, _) => "DLC",
                (4, _, _) => "SCC",
                _ => "CPOL",
            }
            .to_owned()
        }
        _ => name.to_ascii_uppercase(),
    }
}

/// For each bit of a record: the AMD-style name its own fields give it, and what it holds.
fn record_bits(e: &Encoding, family: Family, generation: Generation) -> Vec<(Option<String>, Bit)> {
    let bits = e.bits as usize;
    let mut out: Vec<(Option<String>, Bit)> = (0..bits)
        .map(|b| {
            if e.mask >> b & 1 == 1 {
                (None, Bit::Fixed((e.value >> b & 1) as u8))
            } else {
                (None, Bit::Unused)
            }
        })
        .collect();
    for (i, runs) in e.fields.iter().enumerate() {
        for &(lo, hi, at) in runs.iter() {
            for b in lo..=hi {
                if (b as usize) < bits {
                    let field_bit = at + (b - lo);
                    out[b as usize] = (
                        Some(field_name(family, generation, e, i, field_bit, b)),
                        Bit::Operand(i, field_bit),
                    );
                }
            }
        }
    }
    for field in opcode_fields(family, generation) {
        for &(lo, hi, _) in field.runs {
            for b in lo..=hi {
                if let Some(slot) = out.get_mut(b as usize)
                    && matches!(slot.1, Bit::Fixed(_))
                {
                    *slot = (Some(field.name.to_owned()), Bit::Opcode(field.name));
                }
            }
        }
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bit {
    Operand(usize, u8),
    Opcode(&'static str),
    Encoding(u8),
    Fixed(u8),
    Unused,
}

/// The field names of one family's layout on one generation, per bit, and the encoding
/// identifier bits: derived from every record of the family and form that decodes there.
#[derive(Clone, Debug)]
pub struct FamilyLayout {
    pub bits: u8,
    /// Per bit (index = bit), the name most records give it.
    pub names: Vec<Option<String>>,
    /// The bits, from 31 down, fixed to the same value in every record of the family (and not
    /// in the opcode field): the encoding identifier. `(hi, lo, value)`.
    pub encoding: Option<(u8, u8, u32)>,
}

impl FamilyLayout {
    /// The layout as rows of equal names, MSB first: `(name, hi, lo)`.
    pub fn rows(&self) -> Vec<(String, u8, u8)> {
        let mut rows: Vec<(String, u8, u8)> = Vec::new();
        for b in (0..self.bits).rev() {
            let name = match self.encoding {
                Some((hi, lo, _)) if (lo..=hi).contains(&b) => "ENCODING".to_owned(),
                _ => self.names[b as usize].clone().unwrap_or_default(),
            };
            match rows.last_mut() {
                Some(last) if last.0 == name && last.2 == b + 1 => last.2 = b,
                _ => rows.push((name, b, b)),
            }
        }
        rows
    }
}

/// The layout of `family`/`form` records of `bits` bits among `records` (indices into
/// [`encodings`], all decodable on one processor of `generation`).
pub fn family_layout(
    records: &[u16],
    generation: Generation,
    family: Family,
    form: Form,
    bits: u8,
) -> FamilyLayout {
    let members: Vec<&Encoding> = records
        .iter()
        .map(|&i| &encodings()[i as usize])
        .filter(|e| e.bits == bits && classify(e) == Some((family, form)))
        .collect();
    let mut votes: Vec<BTreeMap<String, usize>> = vec![BTreeMap::new(); bits as usize];
    for e in &members {
        for (b, (name, _)) in record_bits(e, family, generation).into_iter().enumerate() {
            if let Some(name) = name {
                *votes[b].entry(name).or_default() += 1;
            }
        }
    }
    let names = votes
        .into_iter()
        .map(|v| {
            v.into_iter()
                .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
                .map(|(n, _)| n)
        })
        .collect();
    let op_bits: u128 = opcode_fields(family, generation)
        .iter()
        .flat_map(|f| f.runs.iter())
        .fold(0, |m, &(lo, hi, _)| {
            m | (((1u128 << (hi - lo + 1)) - 1) << lo)
        });
    let mut encoding: Option<(u8, u8, u32)> = None;
    if let Some(first) = members.first() {
        let mut b = 31u8;
        loop {
            let fixed_same = op_bits >> b & 1 == 0
                && members
                    .iter()
                    .all(|e| e.mask >> b & 1 == 1 && (e.value >> b & 1) == (first.value >> b & 1));
            if !fixed_same {
                break;
            }
            let value = ((first.value >> b) & ((1u128 << (32 - b)) - 1)) as u32;
            encoding = Some((31, b, value));
            if b == 0 {
                break;
            }
            b -= 1;
        }
    }
    FamilyLayout {
        bits,
        names,
        encoding,
    }
}

/// The rows of one record's layout, MSB first, named by the family layout.
pub fn record_layout(
    e: &Encoding,
    family: Family,
    generation: Generation,
    layout: &FamilyLayout,
) -> Vec<LayoutRow> {
    let own = record_bits(e, family, generation);
    let opcode_value = |name: &str| {
        opcode_fields(family, generation)
            .iter()
            .find(|f| f.name == name)
            .and_then(|f| field_value(e, f.runs))
            .unwrap_or(0)
    };
    let mut rows: Vec<LayoutRow> = Vec::new();
    for b in (0..e.bits).rev() {
        let (own_name, mut bit) = own[b as usize].clone();
        if let (Some((hi, lo, _)), Bit::Fixed(v)) = (layout.encoding, bit)
            && (lo..=hi).contains(&b)
        {
            bit = Bit::Encoding(v);
        }
        let field = match bit {
            Bit::Encoding(_) => "ENCODING".to_owned(),
            Bit::Opcode(name) => name.to_owned(),
            _ => layout
                .names
                .get(b as usize)
                .cloned()
                .flatten()
                .or(own_name)
                .unwrap_or_default(),
        };
        let content = match bit {
            Bit::Operand(i, fb) => {
                let width: u8 = e.fields[i].iter().map(|&(lo, hi, _)| hi - lo + 1).sum();
                Content::Operand {
                    operand: e.operands[i].name.name(),
                    field_hi: fb,
                    field_lo: fb,
                    whole: width == 1,
                }
            }
            Bit::Opcode(name) => Content::Opcode {
                value: opcode_value(name),
            },
            Bit::Encoding(v) => Content::Encoding {
                value: v.to_string(),
            },
            Bit::Fixed(v) => Content::Fixed {
                value: v.to_string(),
            },
            Bit::Unused => Content::Unused,
        };
        let joined = rows.last_mut().is_some_and(|last| {
            if last.field != field || last.lo != b + 1 {
                return false;
            }
            match (&mut last.content, &content) {
                (
                    Content::Operand {
                        operand: a,
                        field_hi,
                        field_lo,
                        whole,
                    },
                    Content::Operand {
                        operand: o,
                        field_hi: fb,
                        ..
                    },
                ) if a == o && *field_lo == fb + 1 => {
                    *field_lo = *fb;
                    let i = e
                        .operands
                        .iter()
                        .position(|op| op.name.name() == *a)
                        .unwrap_or(0);
                    let width: u8 = e.fields[i].iter().map(|&(lo, hi, _)| hi - lo + 1).sum();
                    *whole = *fb == 0 && *field_hi + 1 == width;
                    true
                }
                (Content::Opcode { .. }, Content::Opcode { .. })
                | (Content::Unused, Content::Unused) => true,
                (Content::Encoding { value: v }, Content::Encoding { value: d })
                | (Content::Fixed { value: v }, Content::Fixed { value: d }) => {
                    v.push_str(d);
                    true
                }
                _ => false,
            }
        });
        if joined {
            rows.last_mut().unwrap().lo = b;
        } else {
            rows.push(LayoutRow {
                field,
                hi: b,
                lo: b,
                content,
            });
        }
    }
    rows
}

/// One operand of an encoding.
#[derive(Clone, Debug, Serialize)]
pub struct OperandInfo {
    pub name: &'static str,
    /// `out` or `in`.
    pub dir: &'static str,
    /// LLVM's operand class.
    pub class: &'static str,
    /// The register class it draws from, if any.
    pub reg_class: &'static str,
    pub operand_type: &'static str,
    /// Where its bits are: `7:0`, or `61:61=[0] 8:8=[1]` style runs `inst_hi:inst_lo=[field bits]`.
    pub bits: Vec<String>,
    /// The operand it must equal (not encoded), if tied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tied_to: Option<&'static str>,
}

fn operands(e: &Encoding) -> Vec<OperandInfo> {
    e.operands
        .iter()
        .zip(e.fields.iter())
        .map(|(op, runs)| {
            let info = op.class.info();
            let bits = runs
                .iter()
                .map(|&(lo, hi, at)| {
                    let range = bit_range(hi, lo);
                    if runs.len() == 1 && at == 0 {
                        range
                    } else {
                        format!("{range}=[{}]", bit_range(at + (hi - lo), at))
                    }
                })
                .collect();
            OperandInfo {
                name: op.name.name(),
                dir: if op.dir == Dir::Out { "out" } else { "in" },
                class: op.class.name(),
                reg_class: info.reg_class,
                operand_type: info.operand_type,
                bits,
                tied_to: op.tied_to.map(|t| t.name()),
            }
        })
        .collect()
}

/// One opcode field's position and value.
#[derive(Clone, Debug, Serialize)]
pub struct OpcodeInfo {
    pub field: &'static str,
    /// `25:16`, or several runs for split fields (`24:18,0`).
    pub bits: String,
    pub value: u32,
}

/// AMD's entry for an encoding.
#[derive(Clone, Debug, Serialize)]
pub struct AmdInfo {
    /// The opcode field this entry is for (`OP`; `OPX`/`OPY` for VOPD).
    pub field: &'static str,
    /// The table consulted (`rdna3_5`), and whether it is the generation's own or the nearest.
    pub arch: &'static str,
    pub arch_exact: bool,
    pub encoding: String,
    pub name: String,
    pub opcode: u32,
    /// Whether AMD's name (without `_E32`/`_E64`) is LLVM's mnemonic.
    pub same_name: bool,
    /// The pseudocode, if one attributable to this instruction exists (see [`semantics`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pseudocode: Option<String>,
    /// The table the pseudocode comes from (the consulted one, or the nearest with an
    /// attributable text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pseudocode_arch: Option<&'static str>,
    /// `unique-opcode` or `cross-architecture`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribution: Option<&'static str>,
    /// Why no pseudocode is shown, when none is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One encoding of the instruction on one generation.
#[derive(Clone, Debug, Serialize)]
pub struct EncodingInfo {
    /// LLVM's record, e.g. `V_LSHL_OR_B32_e64_gfx11`.
    pub record: String,
    pub family: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub form: Option<&'static str>,
    /// Encoded width in bits (without a trailing literal).
    pub bits: u8,
    /// The opcode, for families with one opcode field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opcode: Option<u32>,
    pub opcode_fields: Vec<OpcodeInfo>,
    /// The record's fixed bits: `word & mask == value` selects it.
    pub mask: String,
    pub value: String,
    /// LLVM's AsmString.
    pub asm: &'static str,
    pub layout: Vec<LayoutRow>,
    pub operands: Vec<OperandInfo>,
    /// Implicitly read and written registers.
    pub uses: Vec<&'static str>,
    pub defs: Vec<&'static str>,
    /// AMD's entry for each opcode field (one; two for VOPD).
    pub amd: Vec<AmdInfo>,
}

/// Records of the instruction that decode on other processors of a generation but not on its
/// representative.
#[derive(Clone, Debug, Serialize)]
pub struct Elsewhere {
    pub record: String,
    pub family: &'static str,
    pub processors: Vec<&'static str>,
}

/// The instruction on one generation.
#[derive(Clone, Debug, Serialize)]
pub struct GenerationInfo {
    pub generation: &'static str,
    pub processor: &'static str,
    /// The decoding mode the predicates were evaluated in.
    pub mode: &'static str,
    pub encodings: Vec<EncodingInfo>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub elsewhere: Vec<Elsewhere>,
}

/// `gfxpatch isa`'s answer.
#[derive(Clone, Debug, Serialize)]
pub struct InstructionInfo {
    /// The mnemonic matched (lowercase, no `_e32`/`_e64`).
    pub mnemonic: String,
    /// AMD's names for it, where they differ from the mnemonic.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub amd_names: Vec<String>,
    pub generations: Vec<GenerationInfo>,
    /// Generations where it does not decode.
    pub absent: Vec<&'static str>,
}

/// Why a lookup failed.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    #[error("unknown instruction {query:?}{}", suggestions(.nearest))]
    Unknown { query: String, nearest: Vec<String> },
}

fn suggestions(nearest: &[String]) -> String {
    if nearest.is_empty() {
        String::new()
    } else {
        format!("; nearest known: {}", nearest.join(", "))
    }
}

/// Every mnemonic of the tables (normalized), with the records of each.
fn index() -> &'static HashMap<String, Vec<u16>> {
    static INDEX: std::sync::OnceLock<HashMap<String, Vec<u16>>> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut map: HashMap<String, Vec<u16>> = HashMap::new();
        for (i, e) in encodings().iter().enumerate() {
            if classify(e).is_some() {
                map.entry(mnemonic(e)).or_default().push(i as u16);
            }
        }
        map
    })
}

/// Records decodable per representative processor, computed once per processor.
fn decodable_cached(processor: &'static Processor) -> std::sync::Arc<Vec<u16>> {
    use std::sync::{Arc, Mutex, OnceLock};
    type Cache = Mutex<HashMap<&'static str, Arc<Vec<u16>>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(v) = cache.lock().unwrap().get(processor.name) {
        return v.clone();
    }
    let v = Arc::new(decodable(processor));
    cache.lock().unwrap().insert(processor.name, v.clone());
    v
}

/// The `limit` known mnemonics nearest to `query` (edit distance; substring matches first).
pub fn nearest(query: &str, limit: usize) -> Vec<String> {
    let q = normalize(query);
    let mut scored: Vec<(usize, &String)> = index()
        .keys()
        .map(|m| {
            let d = edit_distance(&q, m);
            (
                if m.contains(&q) || q.contains(m.as_str()) {
                    d.min(m.len().abs_diff(q.len()))
                } else {
                    d
                },
                m,
            )
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(limit)
        .map(|(_, m)| m.clone())
        .collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Resolves a query to a mnemonic of the tables: LLVM's mnemonic (any case, with or without
/// `_e32`/`_e64`/`_dpp`/`_sdwa`), or an AMD name that some table maps to an LLVM mnemonic.
pub fn resolve(query: &str) -> Result<String, LookupError> {
    let q = normalize(query);
    if index().contains_key(&q) {
        return Ok(q);
    }
    let unknown = || LookupError::Unknown {
        query: query.to_owned(),
        nearest: nearest(query, 5),
    };
    // An AMD name: find the LLVM records with its encoding and opcode on its generations.
    let upper = semantics::base_name(&query.trim().to_ascii_uppercase()).to_owned();
    let s = Semantics::get();
    for &(generation, proc_name) in GENERATIONS.iter().rev() {
        let Some((arch, _)) = Arch::for_generation(generation) else {
            continue;
        };
        let entries: Vec<_> = s.entries_named(arch, &upper).collect();
        if entries.is_empty() {
            continue;
        }
        for &i in decodable_cached(processor(proc_name)).iter() {
            let e = &encodings()[i as usize];
            let Some((family, Form::Native)) = classify(e) else {
                continue;
            };
            let [field] = opcode_fields(family, generation) else {
                continue;
            };
            let Some(opcode) = field_value(e, field.runs) else {
                continue;
            };
            if entries.iter().any(|a| {
                a.opcode == opcode
                    && amd_encodings(family, generation).contains(&a.encoding.as_str())
            }) {
                return Ok(mnemonic(e));
            }
        }
    }
    Err(unknown())
}

/// AMD encoding names to look an LLVM family up under, preferred first.
fn amd_encodings(family: Family, generation: Generation) -> Vec<&'static str> {
    match family {
        Family::Vop3 => vec!["VOP3", "VOP3SD"],
        Family::Vop3sd => vec!["VOP3SD", "VOP3"],
        Family::Vop3p => vec!["VOP3P", "VOP3PX2"],
        f => vec![f.name(generation)],
    }
}

/// AMD's entry for opcode field `field` (value `opcode`) of a record of `family`.
fn amd_info(
    family: Family,
    generation: Generation,
    field: &'static str,
    opcode: u32,
    mnemonic: &str,
    asm: &str,
) -> Option<AmdInfo> {
    let (arch, exact) = Arch::for_generation(generation)?;
    let s = Semantics::get();
    let entry = amd_encodings(family, generation)
        .into_iter()
        .find_map(|enc| s.entry(arch, enc, opcode))?;
    let base = entry.base_name().to_ascii_lowercase();
    // A VOPD record is two instructions: AMD's component names appear in LLVM's AsmString.
    let same_name = if family == Family::Vopd {
        asm.contains(&base)
    } else {
        base == mnemonic
    };
    let mut info = AmdInfo {
        field,
        arch: arch.name(),
        arch_exact: exact,
        encoding: entry.encoding.clone(),
        name: entry.name.clone(),
        opcode,
        same_name,
        pseudocode: None,
        pseudocode_arch: None,
        attribution: None,
        note: None,
    };
    match s.pseudocode(arch, entry) {
        Pseudocode::Text {
            arch: from,
            text,
            attribution,
        } => {
            info.pseudocode = Some(text);
            info.pseudocode_arch = Some(from.name());
            info.attribution = Some(attribution.name());
        }
        Pseudocode::Ambiguous { shared_with } => {
            let mut names = shared_with
                .iter()
                .take(4)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            if shared_with.len() > 4 {
                names.push_str(", ...");
            }
            info.note = Some(format!(
                "{} stores one text for opcode {opcode} of every encoding, shared here with {} other instructions ({names}), and no table's text can be attributed to {}",
                arch.name(),
                shared_with.len(),
                entry.base_name()
            ));
        }
        Pseudocode::Missing => {
            info.note = Some(format!(
                "{} has no pseudocode for {}",
                arch.name(),
                entry.name
            ))
        }
    }
    Some(info)
}

fn implicit_names(regs: super::table::ImplicitRegs) -> Vec<&'static str> {
    super::table::implicit::NAMES
        .iter()
        .enumerate()
        .filter(|(i, _)| regs.has(1 << i))
        .map(|(_, n)| *n)
        .collect()
}

/// Everything about one encoding on one generation.
fn encoding_info(
    index: u16,
    records: &[u16],
    generation: Generation,
    mnemonic: &str,
    layouts: &mut HashMap<(Family, Form, u8), FamilyLayout>,
) -> Option<EncodingInfo> {
    let e = &encodings()[index as usize];
    let (family, form) = classify(e)?;
    let layout = layouts
        .entry((family, form, e.bits))
        .or_insert_with(|| family_layout(records, generation, family, form, e.bits));
    let fields = opcode_fields(family, generation);
    let opcode_fields: Vec<OpcodeInfo> = fields
        .iter()
        .filter_map(|f| {
            let value = field_value(e, f.runs)?;
            let mut runs: Vec<&(u8, u8, u8)> = f.runs.iter().collect();
            runs.sort_by_key(|r| std::cmp::Reverse(r.2));
            let bits = runs
                .iter()
                .map(|&&(lo, hi, _)| bit_range(hi, lo))
                .collect::<Vec<_>>()
                .join(",");
            Some(OpcodeInfo {
                field: f.name,
                bits,
                value,
            })
        })
        .collect();
    let opcode = match &opcode_fields[..] {
        [one] if one.field == "OP" => Some(one.value),
        _ => None,
    };
    let hex = |v: u128| format!("0x{:0width$x}", v, width = e.bits as usize / 4);
    let opcode_fields_out = opcode_fields.clone();
    Some(EncodingInfo {
        record: e.record_name(),
        family: family.name(generation),
        form: form.name(),
        bits: e.bits,
        opcode,
        opcode_fields: opcode_fields_out,
        mask: hex(e.mask),
        value: hex(e.value),
        asm: e.asm,
        layout: record_layout(e, family, generation, layout),
        operands: operands(e),
        uses: implicit_names(e.uses),
        defs: implicit_names(e.defs),
        amd: opcode_fields
            .iter()
            .filter_map(|f| amd_info(family, generation, f.field, f.value, mnemonic, e.asm))
            .collect(),
    })
}

/// Sort key: 32-bit forms before VOP3, plain before SDWA/DPP, then by name.
fn order_key(e: &Encoding) -> (Form, u8, String) {
    let form = classify(e).map_or(Form::Native, |c| c.1);
    (form, e.bits, e.record_name())
}

/// What the tables say about `query` on every generation of [`GENERATIONS`] (or only
/// `only`'s generation, with `only` as its processor).
pub fn describe(
    query: &str,
    only: Option<&'static Processor>,
) -> Result<InstructionInfo, LookupError> {
    let mnemonic = resolve(query)?;
    let records = &index()[&mnemonic];
    let mut generations = Vec::new();
    let mut absent = Vec::new();
    let mut amd_names = BTreeSet::new();
    for &(generation, proc_name) in &GENERATIONS {
        let representative = match only {
            Some(p) if p.generation != generation => continue,
            Some(p) => p,
            None => processor(proc_name),
        };
        let decodable = decodable_cached(representative);
        let set: BTreeSet<u16> = decodable.iter().copied().collect();
        let mut mine: Vec<u16> = records
            .iter()
            .copied()
            .filter(|i| set.contains(i))
            .collect();
        mine.sort_by_key(|&i| order_key(&encodings()[i as usize]));
        let mut layouts = HashMap::new();
        let encodings_here: Vec<EncodingInfo> = mine
            .iter()
            .filter_map(|&i| encoding_info(i, &decodable, generation, &mnemonic, &mut layouts))
            .collect();
        for info in &encodings_here {
            for amd in info.amd.iter().filter(|a| !a.same_name) {
                amd_names.insert(amd.name.clone());
            }
        }
        // The same instruction on the generation's other processors.
        let mut elsewhere: BTreeMap<u16, Vec<&'static str>> = BTreeMap::new();
        for p in PROCESSORS.iter().filter(|p| {
            p.generation == generation && p.name != representative.name && !p.is_generic()
        }) {
            let Ok(target) = Target::from_name(p.name, "") else {
                continue;
            };
            let attempts = plan(&target);
            for &i in records {
                if !set.contains(&i) && decodes_on(&encodings()[i as usize], &target, &attempts) {
                    elsewhere.entry(i).or_default().push(p.name);
                }
            }
        }
        let elsewhere: Vec<Elsewhere> = elsewhere
            .into_iter()
            .filter_map(|(i, processors)| {
                let e = &encodings()[i as usize];
                Some(Elsewhere {
                    record: e.record_name(),
                    family: classify(e)?.0.name(generation),
                    processors,
                })
            })
            .collect();
        if encodings_here.is_empty() && elsewhere.is_empty() {
            absent.push(generation.name());
            continue;
        }
        let mode = if !generation.is_gfx10_plus() {
            "wave64"
        } else {
            "wave32, fake16"
        };
        generations.push(GenerationInfo {
            generation: generation.name(),
            processor: representative.name,
            mode,
            encodings: encodings_here,
            elsewhere,
        });
    }
    Ok(InstructionInfo {
        mnemonic,
        amd_names: amd_names.into_iter().collect(),
        generations,
        absent,
    })
}

#[cfg(test)]
mod tests;
