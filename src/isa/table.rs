//! The types of the generated instruction tables (`tables.rs`), and lookups over them.

pub use super::tables::{
    Namespace, Opcode, OperandClass, OperandName, Pred, Variant, flag, implicit,
};

/// Whether an operand is written (`outs`) or read (`ins`) in LLVM's operand order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Out,
    In,
}

/// One operand of an encoding: direction, class and name, and the operand it is tied to.
#[derive(Clone, Copy, Debug)]
pub struct Operand {
    pub dir: Dir,
    pub class: OperandClass,
    pub name: OperandName,
    /// For an operand that is not encoded because it must equal another (`$vdst = $src2`),
    /// the operand it is tied to.
    pub tied_to: Option<OperandName>,
}

/// Constructor used by the generated tables.
pub(crate) const fn op(
    dir: Dir,
    class: OperandClass,
    name: OperandName,
    tied_to: Option<OperandName>,
) -> Operand {
    Operand {
        dir,
        class,
        name,
        tied_to,
    }
}

/// Where one operand's bits lie: `(inst_lo, inst_hi, field_lo)` runs, instruction bits
/// `inst_lo..=inst_hi` holding operand bits from `field_lo` up. Empty for operands with no bits
/// in the encoding (tied, implied, or filled in by the decoder).
pub type FieldBits = &'static [(u8, u8, u8)];

/// Extracts an operand's field from the instruction bits.
pub fn extract(bits: FieldBits, word: u128) -> u64 {
    let mut value = 0u64;
    for &(lo, hi, field_lo) in bits {
        let width = u32::from(hi - lo) + 1;
        let part = (word >> lo) & ((1u128 << width) - 1);
        value |= (part as u64) << field_lo;
    }
    value
}

/// TSFlags and MCInstrDesc bits of an encoding (see [`flag`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Flags(pub u64);

impl Flags {
    pub fn has(self, bit: u64) -> bool {
        self.0 & bit != 0
    }
}

/// Implicitly read or written registers (see [`implicit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ImplicitRegs(pub u16);

impl ImplicitRegs {
    pub fn has(self, bit: u16) -> bool {
        self.0 & bit != 0
    }
}

/// What LLVM's operand class record says.
#[derive(Clone, Copy, Debug)]
pub struct OperandClassInfo {
    pub reg_class: &'static str,
    pub operand_type: &'static str,
    /// LLVM's print method, with `printNamedBit` lambdas reduced to `printNamedBit:<name>`.
    pub print_method: &'static str,
    /// LLVM's decoder method, template arguments included
    /// (`decodeSrcRegOrImm9<AMDGPUDisassembler::OPW32, 32, 0>`); empty for register classes,
    /// which decode as `Decode<RegClass>RegisterClass`.
    pub decoder_method: &'static str,
}

impl OperandClass {
    /// What LLVM 19's record says (LLVM 22's for classes LLVM 19 lacks).
    pub fn info(self) -> &'static OperandClassInfo {
        &super::tables::OPERAND_CLASS_INFO[self as usize]
    }

    /// The register class LLVM 22's record names (`VReg_64_AlignTarget`, resolved per target by
    /// LLVM's register-class-by-HwMode); LLVM 19's where LLVM 22 has none.
    pub fn reg_class_22(self) -> &'static str {
        super::tables::OPERAND_CLASS_REG_CLASS_22[self as usize]
    }
}

/// One encoding of one instruction on one set of generations: an LLVM record.
#[derive(Clone, Copy, Debug)]
pub struct Encoding {
    pub opcode: Opcode,
    /// The generation suffix of LLVM's record name (`_gfx11`); the record is `opcode + suffix`.
    pub suffix: &'static str,
    /// The LLVM version the record comes from (19, or 22 for GFX950 and GFX1250).
    pub llvm: u8,
    pub ns: Namespace,
    pub variant: Variant,
    /// Encoded width without a trailing literal: 32, 64 or 96.
    pub bits: u8,
    /// Fixed bits of the pattern, and their values.
    pub mask: u128,
    pub value: u128,
    /// LLVM's AsmString: mnemonic and `$operand` template.
    pub asm: &'static str,
    /// Outs then ins, in LLVM's MC operand order.
    pub operands: &'static [Operand],
    /// Where each operand's bits lie, parallel to `operands`.
    pub fields: &'static [FieldBits],
    pub flags: Flags,
    pub preds: &'static [Pred],
    pub uses: ImplicitRegs,
    pub defs: ImplicitRegs,
}

/// Constructor used by the generated tables.
#[allow(clippy::too_many_arguments)]
pub(crate) const fn e(
    opcode: Opcode,
    suffix: &'static str,
    llvm: u8,
    ns: Namespace,
    variant: Variant,
    bits: u8,
    mask: u128,
    value: u128,
    asm: &'static str,
    operands: &'static [Operand],
    fields: &'static [FieldBits],
    flags: u64,
    preds: &'static [Pred],
    uses: u16,
    defs: u16,
) -> Encoding {
    Encoding {
        opcode,
        suffix,
        llvm,
        ns,
        variant,
        bits,
        mask,
        value,
        asm,
        operands,
        fields,
        flags: Flags(flags),
        preds,
        uses: ImplicitRegs(uses),
        defs: ImplicitRegs(defs),
    }
}

impl Encoding {
    /// LLVM's record name, e.g. `V_LSHL_OR_B32_e64_gfx11`.
    pub fn record_name(&self) -> String {
        format!("{}{}", self.opcode.name(), self.suffix)
    }

    /// The mnemonic as LLVM prints it (first word of the AsmString, which may run into the
    /// first operand: `v_lshl_or_b32$vdst, ...`).
    pub fn mnemonic(&self) -> &'static str {
        self.asm.split([' ', '\t', '$']).next().unwrap_or(self.asm)
    }

    /// Index of the named operand in LLVM's operand order.
    pub fn operand_index(&self, name: OperandName) -> Option<usize> {
        self.operands.iter().position(|o| o.name == name)
    }
}

/// Every encoding record.
pub fn encodings() -> &'static [Encoding] {
    &super::tables::ENCODINGS
}

/// The index of `encoding` in [`encodings`], for a record reached by reference (a MIMG
/// record's converted sibling, a parser's candidate); `None` if it is not one of them. An
/// instruction knows its own: [`crate::isa::Inst::encoding_index`].
pub fn index_of(encoding: &'static Encoding) -> Option<u16> {
    let all = encodings();
    let offset = (encoding as *const Encoding as usize).wrapping_sub(all.as_ptr() as usize);
    let index = offset / std::mem::size_of::<Encoding>();
    match all.get(index) {
        Some(e) if std::ptr::eq(e, encoding) => u16::try_from(index).ok(),
        _ => None,
    }
}

/// The record of LLVM version `llvm` called `name` (e.g. `V_LSHL_OR_B32_e64_gfx11`).
pub fn find_record(llvm: u8, name: &str) -> Option<&'static Encoding> {
    use std::collections::HashMap;
    use std::sync::OnceLock;
    static INDEX: OnceLock<HashMap<(u8, String), usize>> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        encodings()
            .iter()
            .enumerate()
            .map(|(i, e)| ((e.llvm, e.record_name()), i))
            .collect()
    });
    index
        .get(&(llvm, name.to_owned()))
        .map(|&i| &encodings()[i])
}
