//! The few encodings the layout writes itself: `s_nop 0`, branch offsets, the long-branch
//! sequence (`s_getpc_b64`, `s_add_u32`, `s_addc_u32`, `s_setpc_b64`) and PC-relative
//! constants. Each is built by depositing operand fields into an encoding's fixed bits (the
//! inverse of `table::extract`) and is checked by decoding the result: the decoder must pick
//! the same record and read back the same operands, or nothing is emitted.
//!
//! This is deliberately small; a general encoder (`isa::encode`) can replace it.

use std::collections::HashMap;

use crate::ir::flow::{add_pc_operand, AddPcForm, AddPcOperand};
use crate::isa::operand::Value;
use crate::isa::table::{encodings, Encoding, FieldBits, Opcode, OperandName};
use crate::isa::{Decoder, Inst, Target};

/// Writes `value` into the operand bits `bits` of `word`.
pub fn deposit(bits: FieldBits, word: &mut u128, value: u64) {
    for &(lo, hi, field_lo) in bits {
        let width = u32::from(hi - lo) + 1;
        let mask = (1u128 << width) - 1;
        let part = (u128::from(value) >> field_lo) & mask;
        *word = (*word & !(mask << lo)) | (part << lo);
    }
}

/// Source-operand encoding of a 32-bit literal constant.
const LITERAL: u64 = 255;

/// Builds instructions for one target.
pub struct Assembler {
    decoder: Decoder,
    /// Record chosen per opcode: the first whose bits decode back to it.
    records: HashMap<Opcode, Option<u16>>,
}

/// One operand value to deposit.
#[derive(Clone, Copy, Debug)]
pub enum Field {
    /// An SGPR (or the first of an SGPR range) by number.
    Sgpr(u16),
    /// A field's raw value: an immediate (SOPP `simm16`), or a register or inline-constant
    /// encoding as the field holds it.
    Imm(u64),
    /// A 32-bit literal after the instruction.
    Literal(u32),
}

impl Assembler {
    pub fn new(target: Target) -> Assembler {
        Assembler { decoder: Decoder::new(target), records: HashMap::new() }
    }

    pub fn target(&self) -> &Target {
        self.decoder.target()
    }

    /// Decodes `bytes` (for checks).
    pub fn decode(&self, bytes: &[u8]) -> Inst {
        self.decoder.decode_uncached(bytes)
    }

    /// `opcode` with the named operand fields; `None` if no record of this target encodes it
    /// so that it decodes back to the same record and operand values.
    pub fn build(&mut self, opcode: Opcode, fields: &[(OperandName, Field)]) -> Option<Inst> {
        let index = match self.records.get(&opcode) {
            Some(&r) => r?,
            None => {
                let found = self.find_record(opcode);
                self.records.insert(opcode, found);
                found?
            }
        };
        self.build_with(index, fields)
    }

    fn find_record(&self, opcode: Opcode) -> Option<u16> {
        let llvm = self.target().llvm_version();
        encodings().iter().enumerate().filter(|(_, e)| e.opcode == opcode && e.llvm == llvm).find_map(|(i, e)| {
            let bytes = e.value.to_le_bytes();
            let inst = self.decode(&padded(&bytes[..e.bits as usize / 8]));
            (inst.encoding_index() == Some(i as u16)).then_some(i as u16)
        })
    }

    fn build_with(&self, index: u16, fields: &[(OperandName, Field)]) -> Option<Inst> {
        let e: &Encoding = &encodings()[index as usize];
        let mut word = e.value;
        let mut literal = None;
        for &(name, field) in fields {
            let bits = e.fields[e.operand_index(name)?];
            let value = match field {
                Field::Sgpr(n) => u64::from(n),
                Field::Imm(v) => v,
                Field::Literal(v) => {
                    literal = Some(v);
                    LITERAL
                }
            };
            deposit(bits, &mut word, value);
        }
        let mut bytes = word.to_le_bytes()[..e.bits as usize / 8].to_vec();
        if let Some(l) = literal {
            bytes.extend(l.to_le_bytes());
        }
        let inst = self.decode(&padded(&bytes));
        // The decode must be this record, this long, with these operand values.
        if inst.encoding_index() != Some(index) || inst.len() != bytes.len() {
            return None;
        }
        let (_, ops) = crate::ir::liveness::operands(&inst, self.target())?;
        for &(name, field) in fields {
            let ok = match (field, ops.value(name)?) {
                (Field::Sgpr(n), Value::Reg(crate::isa::reg::Reg::Sgpr { index, .. })) => index == n,
                (Field::Imm(v), Value::Imm(x)) => x as u64 & 0xffff == v & 0xffff,
                // A raw field value (a register or constant encoding): the record matched.
                (Field::Imm(_), _) => true,
                (Field::Literal(v), Value::Literal(x)) => x == v,
                (Field::Literal(v), Value::InlineInt(x)) => x as u32 == v,
                _ => false,
            };
            if !ok {
                return None;
            }
        }
        Some(inst)
    }

    /// `inst` with its branch-target operand set to `offset` dwords; `None` if it has none or
    /// the offset does not fit 16 bits.
    pub fn with_branch_offset(&self, inst: &Inst, offset: i64) -> Option<Inst> {
        let e = inst.encoding()?;
        let index = crate::ir::flow::branch_operand(e)?;
        let offset = i16::try_from(offset).ok()?;
        let mut word = inst.encoded_bits();
        deposit(e.fields[index], &mut word, offset as u16 as u64);
        let mut bytes = word.to_le_bytes()[..e.bits as usize / 8].to_vec();
        bytes.extend(inst.trailing_words().iter().flat_map(|w| w.to_le_bytes()));
        let new = self.decode(&padded(&bytes));
        (new.encoding_index() == inst.encoding_index() && new.len() == inst.len()).then_some(new)
    }

    /// `s_add_pc_i64` `inst` re-encoded with `offset` in `form` (source 0 and its literal); `None`
    /// if the offset does not fit the form or the result does not decode back to it.
    pub fn with_add_pc_offset(&self, inst: &Inst, form: AddPcForm, offset: i64) -> Option<Inst> {
        let e = inst.encoding()?;
        if e.opcode != Opcode::S_ADD_PC_I64 || !form.fits(offset) {
            return None;
        }
        let mut word = inst.encoded_bits();
        deposit(e.fields[e.operand_index(OperandName::src0)?], &mut word, form.source_code(offset));
        let mut bytes = word.to_le_bytes()[..e.bits as usize / 8].to_vec();
        match form {
            AddPcForm::Inline => {}
            AddPcForm::Literal32 => bytes.extend((offset as u32).to_le_bytes()),
            AddPcForm::Literal64 => bytes.extend((offset as u64).to_le_bytes()),
        }
        let new = self.decode(&padded(&bytes));
        let same = new.encoding_index() == inst.encoding_index() && new.len() as u64 == form.size();
        (same && add_pc_operand(&new) == AddPcOperand::Constant(offset, form)).then_some(new)
    }

    /// `inst` (one 64-bit literal source, GFX1250) with its literal replaced.
    pub fn with_literal64(&self, inst: &Inst, literal: u64) -> Option<Inst> {
        if inst.trailing_words().len() != 2 {
            return None;
        }
        let mut bytes = inst.bytes();
        let at = inst.tail_at();
        bytes[at..at + 8].copy_from_slice(&literal.to_le_bytes());
        let new = self.decode(&padded(&bytes));
        let tail = new.trailing_words();
        let ok = new.encoding_index() == inst.encoding_index() && new.len() == inst.len() && tail.len() == 2;
        (ok && (u64::from(tail[1]) << 32 | u64::from(tail[0])) == literal).then_some(new)
    }

    /// `inst` (an SOP2 with one literal source) with its literal replaced.
    pub fn with_literal(&self, inst: &Inst, literal: u32) -> Option<Inst> {
        let tail = inst.trailing_words();
        if tail.len() != 1 {
            return None;
        }
        let mut bytes = inst.bytes();
        let at = inst.tail_at();
        bytes[at..at + 4].copy_from_slice(&literal.to_le_bytes());
        let new = self.decode(&padded(&bytes));
        (new.encoding_index() == inst.encoding_index() && new.len() == inst.len() && new.trailing_words() == [literal]).then_some(new)
    }
}

/// Bytes followed by zero dwords, so the decoder sees as many bytes as it may look at and
/// stops at the instruction's own length.
fn padded(bytes: &[u8]) -> Vec<u8> {
    let mut v = bytes.to_vec();
    v.resize(bytes.len() + 16, 0);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::print;

    fn text(a: &mut Assembler, opcode: Opcode, fields: &[(OperandName, Field)]) -> (String, Vec<u8>) {
        let inst = a.build(opcode, fields).unwrap_or_else(|| panic!("{opcode:?} does not encode"));
        (print::print(&inst, a.target(), 0), inst.bytes())
    }

    #[test]
    fn deposit_is_the_inverse_of_extract() {
        let bits: FieldBits = &[(0, 3, 4), (8, 11, 0)];
        let mut word = 0u128;
        deposit(bits, &mut word, 0xab);
        assert_eq!(word, 0x0b0a);
        assert_eq!(crate::isa::table::extract(bits, word), 0xab);
    }

    /// Bytes checked against `llvm-mc-19 -triple=amdgcn -mcpu=<cpu> -show-encoding`.
    #[test]
    fn long_branch_pieces_match_llvm_mc() {
        use Field::*;
        use OperandName as N;
        // (cpu, s_nop 0, s_getpc_b64 s[4:5], s_setpc_b64 s[4:5], first dword of s_add_u32).
        type Case = (&'static str, [u8; 4], [u8; 4], [u8; 4], [u8; 4]);
        let cases: [Case; 3] = [
            // s_nop 0 ; s_getpc_b64 s[4:5] ; s_setpc_b64 s[4:5] ; s_add_u32 s4, s4, lit (first dword)
            ("gfx900", [0x00, 0x00, 0x80, 0xbf], [0x00, 0x1c, 0x84, 0xbe], [0x04, 0x1d, 0x80, 0xbe], [0x04, 0xff, 0x04, 0x80]),
            ("gfx1030", [0x00, 0x00, 0x80, 0xbf], [0x00, 0x1f, 0x84, 0xbe], [0x04, 0x20, 0x80, 0xbe], [0x04, 0xff, 0x04, 0x80]),
            ("gfx1200", [0x00, 0x00, 0x80, 0xbf], [0x00, 0x47, 0x84, 0xbe], [0x04, 0x48, 0x80, 0xbe], [0x04, 0xff, 0x04, 0x80]),
        ];
        for (cpu, nop, getpc, setpc, add) in cases {
            let mut a = Assembler::new(Target::from_name(cpu, "").unwrap());
            assert_eq!(text(&mut a, Opcode::S_NOP, &[(N::simm16, Imm(0))]), ("s_nop 0".into(), nop.to_vec()), "{cpu}");
            assert_eq!(text(&mut a, Opcode::S_GETPC_B64, &[(N::sdst, Sgpr(4))]), ("s_getpc_b64 s[4:5]".into(), getpc.to_vec()), "{cpu}");
            assert_eq!(text(&mut a, Opcode::S_SETPC_B64, &[(N::src0, Sgpr(4))]), ("s_setpc_b64 s[4:5]".into(), setpc.to_vec()), "{cpu}");
            let (t, bytes) = text(&mut a, Opcode::S_ADD_U32, &[(N::sdst, Sgpr(4)), (N::src0, Sgpr(4)), (N::src1, Literal(0x1234_5678))]);
            let mnemonic = if cpu == "gfx1200" { "s_add_co_u32" } else { "s_add_u32" };
            assert_eq!(t, format!("{mnemonic} s4, s4, 0x12345678"), "{cpu}");
            assert_eq!(bytes[..4], add, "{cpu}");
            assert_eq!(bytes[4..], [0x78, 0x56, 0x34, 0x12], "{cpu}");
        }
    }

    #[test]
    fn branch_offsets_re_encode_in_place() {
        let a = Assembler::new(Target::from_name("gfx900", "").unwrap());
        // s_cbranch_scc1 with offset 3 (llvm-mc: 0xbf850003).
        let inst = a.decode(&padded(&0xbf85_0003u32.to_le_bytes()));
        let moved = a.with_branch_offset(&inst, -2).unwrap();
        assert_eq!(moved.words(), [0xbf85_fffe]);
        assert!(a.with_branch_offset(&inst, 40000).is_none());
    }

    /// `s_add_pc_i64` in each form, bytes as LLVM 22's gfx1250 vectors have them
    /// (gfx1250_asm_sop1.s: `s_add_pc_i64 4` = 84 4b 80 be, `0x64` = ff 4b 80 be 64 00 00 00,
    /// `0x12345678abcd0` = fe 4b 80 be d0 bc 8a 67 45 23 01 00).
    #[test]
    fn add_pc_offsets_re_encode_in_each_form() {
        let a = Assembler::new(Target::from_name("gfx1250", "").unwrap());
        let inst = a.decode(&padded(&[0x84, 0x4b, 0x80, 0xbe]));
        assert_eq!(add_pc_operand(&inst), AddPcOperand::Constant(4, AddPcForm::Inline));
        let cases: [(AddPcForm, i64, &[u8]); 5] = [
            (AddPcForm::Inline, 4, &[0x84, 0x4b, 0x80, 0xbe]),
            (AddPcForm::Inline, -16, &[0xd0, 0x4b, 0x80, 0xbe]),
            (AddPcForm::Literal32, 0x64, &[0xff, 0x4b, 0x80, 0xbe, 0x64, 0, 0, 0]),
            (AddPcForm::Literal64, 0x12345678abcd0, &[0xfe, 0x4b, 0x80, 0xbe, 0xd0, 0xbc, 0x8a, 0x67, 0x45, 0x23, 0x01, 0x00]),
            (AddPcForm::Literal64, -32, &[0xfe, 0x4b, 0x80, 0xbe, 0xe0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
        ];
        for (form, offset, bytes) in cases {
            let new = a.with_add_pc_offset(&inst, form, offset).unwrap_or_else(|| panic!("{form:?} {offset}"));
            assert_eq!(new.bytes(), bytes, "{form:?} {offset}");
            assert_eq!(add_pc_operand(&new), AddPcOperand::Constant(offset, form));
        }
        // Offsets a form cannot hold unambiguously are refused, never truncated.
        assert!(a.with_add_pc_offset(&inst, AddPcForm::Inline, 65).is_none());
        assert!(a.with_add_pc_offset(&inst, AddPcForm::Inline, -17).is_none());
        assert!(a.with_add_pc_offset(&inst, AddPcForm::Literal32, -4).is_none());
        assert!(a.with_add_pc_offset(&inst, AddPcForm::Literal32, 1 << 31).is_none());
        // A 32-bit literal with bit 31 set, or an inline float, is not read as an offset.
        let high = a.decode(&padded(&[0xff, 0x4b, 0x80, 0xbe, 0, 0, 0, 0x80]));
        assert!(matches!(add_pc_operand(&high), AddPcOperand::Ambiguous(_)));
        let float = a.decode(&padded(&[0xf2, 0x4b, 0x80, 0xbe]));
        assert!(matches!(add_pc_operand(&float), AddPcOperand::Ambiguous(_)));
        assert_eq!(add_pc_operand(&a.decode(&padded(&[0x02, 0x4b, 0x80, 0xbe]))), AddPcOperand::Register);
    }
}
