//! Building instructions by opcode and named operands, for code that inserts or adjusts a few
//! instructions (passes, the layout): `s_nop 0`, a long branch's `s_getpc_b64`/`s_add_u32`/
//! `s_addc_u32`/`s_setpc_b64`, a branch with a new offset, a constant re-aimed.
//!
//! Everything goes through the one encoder ([`super::encode`], [`super::encode_like`]), and
//! each result is checked once more by the full decoder: the bytes must decode, on this target,
//! to the record they were built from and to the same length. What fails either check is
//! `None`, never other bytes.

use std::collections::HashMap;

use super::{encode, encode_like, EncodeError};
use crate::isa::decode::Decoder;
use crate::isa::inst::Inst;
use crate::isa::operand::{decode_operands, Op, Operands, Value};
use crate::isa::table::{encodings, Encoding, Opcode, OperandName};
use crate::isa::target::Target;

/// Builds instructions for one target. It owns a decoder for its checks and remembers, per
/// opcode, the target's records of it.
pub struct Builder {
    decoder: Decoder,
    records: HashMap<Opcode, Vec<&'static Encoding>>,
}

impl Builder {
    pub fn new(target: Target) -> Builder {
        Builder { decoder: Decoder::new(target), records: HashMap::new() }
    }

    pub fn target(&self) -> &Target {
        self.decoder.target()
    }

    /// Decodes `bytes` without the decoder's memo (the checks, and tests).
    pub fn decode(&self, bytes: &[u8]) -> Inst {
        self.decoder.decode_uncached(&padded(bytes))
    }

    /// `opcode` with exactly the operands named (a register as `Value::Reg` with its width, an
    /// immediate field as `Value::Imm` as it decodes, a literal as `Value::Literal`): the
    /// first of the target's records of `opcode` that encodes them and decodes back to itself.
    /// `None` if no record does, or an operand of the record is not named.
    pub fn build(&mut self, opcode: Opcode, operands: &[(OperandName, Value)]) -> Option<Inst> {
        let target = *self.target();
        if !self.records.contains_key(&opcode) {
            self.records.insert(opcode, records_of(opcode, &target));
        }
        let candidates = &self.records[&opcode];
        candidates.iter().find_map(|&e| {
            let mut ops = Operands::new();
            for operand in e.operands {
                let &(_, value) = operands.iter().find(|(name, _)| *name == operand.name)?;
                ops.push(Op { name: operand.name, class: operand.class, value }).ok()?;
            }
            if ops.as_slice().len() != operands.len() {
                return None;
            }
            self.checked(encode(e, &ops, &target))
        })
    }

    /// `inst` with the named operands set to new values and every other bit kept
    /// ([`encode_like`]); `None` if it has no such operand, the values do not encode, or the
    /// result does not decode back to `inst`'s record.
    pub fn with_operands(&self, inst: &Inst, changes: &[(OperandName, Value)]) -> Option<Inst> {
        let mut ops = operands(inst, self.target())?;
        for &(name, value) in changes {
            let list = ops.as_slice().to_vec();
            let i = list.iter().position(|o| o.name == name)?;
            let mut changed = Operands::new();
            changed.extra_bytes = ops.extra_bytes;
            changed.converted = ops.converted;
            for (j, op) in list.into_iter().enumerate() {
                changed.push(if j == i { Op { value, ..op } } else { op }).ok()?;
            }
            ops = changed;
        }
        self.checked(encode_like(inst, &ops, self.target()))
    }

    /// The encoder's result if the full decoder reads it back as the same record and length.
    fn checked(&self, built: Result<Inst, EncodeError>) -> Option<Inst> {
        let inst = built.ok()?;
        let back = self.decode(&inst.bytes());
        (back.encoding_index() == inst.encoding_index() && back.len() == inst.len()).then_some(back)
    }
}

/// `inst`'s operands as the decoder reads them.
pub fn operands(inst: &Inst, target: &Target) -> Option<Operands> {
    let e = inst.encoding()?;
    let bytes = inst.bytes();
    decode_operands(e, inst.encoded_bits(), &bytes[inst.tail_at().min(bytes.len())..], target).ok()
}

/// The records of `opcode` for `target`'s LLVM version, in table order.
fn records_of(opcode: Opcode, target: &Target) -> Vec<&'static Encoding> {
    let llvm = target.llvm_version();
    encodings().iter().filter(|e| e.opcode == opcode && e.llvm == llvm).collect()
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
    use crate::isa::reg::Reg;

    fn sgpr(index: u16, count: u8) -> Value {
        Value::Reg(Reg::Sgpr { index, count })
    }

    fn text(b: &mut Builder, opcode: Opcode, operands: &[(OperandName, Value)]) -> (String, Vec<u8>) {
        let inst = b.build(opcode, operands).unwrap_or_else(|| panic!("{opcode:?} does not encode"));
        (print::print(&inst, b.target(), 0), inst.bytes())
    }

    /// Bytes checked against `llvm-mc-19 -triple=amdgcn -mcpu=<cpu> -show-encoding`.
    #[test]
    fn long_branch_pieces_match_llvm_mc() {
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
            let mut b = Builder::new(Target::from_name(cpu, "").unwrap());
            assert_eq!(text(&mut b, Opcode::S_NOP, &[(N::simm16, Value::Imm(0))]), ("s_nop 0".into(), nop.to_vec()), "{cpu}");
            assert_eq!(text(&mut b, Opcode::S_GETPC_B64, &[(N::sdst, sgpr(4, 2))]), ("s_getpc_b64 s[4:5]".into(), getpc.to_vec()), "{cpu}");
            assert_eq!(text(&mut b, Opcode::S_SETPC_B64, &[(N::src0, sgpr(4, 2))]), ("s_setpc_b64 s[4:5]".into(), setpc.to_vec()), "{cpu}");
            let operands = [(N::sdst, sgpr(4, 1)), (N::src0, sgpr(4, 1)), (N::src1, Value::Literal(0x1234_5678))];
            let (t, bytes) = text(&mut b, Opcode::S_ADD_U32, &operands);
            let mnemonic = if cpu == "gfx1200" { "s_add_co_u32" } else { "s_add_u32" };
            assert_eq!(t, format!("{mnemonic} s4, s4, 0x12345678"), "{cpu}");
            assert_eq!(bytes[..4], add, "{cpu}");
            assert_eq!(bytes[4..], [0x78, 0x56, 0x34, 0x12], "{cpu}");
        }
    }

    #[test]
    fn a_missing_or_extra_operand_builds_nothing() {
        let mut b = Builder::new(Target::from_name("gfx900", "").unwrap());
        assert!(b.build(Opcode::S_GETPC_B64, &[]).is_none());
        let extra = [(OperandName::simm16, Value::Imm(0)), (OperandName::sdst, sgpr(4, 2))];
        assert!(b.build(Opcode::S_NOP, &extra).is_none());
        // A value its field cannot hold is refused, not truncated.
        assert!(b.build(Opcode::S_NOP, &[(OperandName::simm16, Value::Imm(1 << 16))]).is_none());
    }

    #[test]
    fn with_operands_keeps_the_other_bits() {
        let b = Builder::new(Target::from_name("gfx900", "").unwrap());
        // s_cbranch_scc1 with offset 3 (llvm-mc: 0xbf850003).
        let inst = b.decode(&0xbf85_0003u32.to_le_bytes());
        let moved = b.with_operands(&inst, &[(OperandName::simm16, Value::Imm(0xfffe))]).unwrap();
        assert_eq!(moved.words(), [0xbf85_fffe]);
        assert!(b.with_operands(&inst, &[(OperandName::simm16, Value::Imm(0x1_0000))]).is_none());
        assert!(b.with_operands(&inst, &[(OperandName::sdst, sgpr(4, 1))]).is_none());
    }
}
