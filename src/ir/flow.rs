//! What an instruction does to control flow, from its opcode and branch-target operand.
//!
//! The instruction tables say which records branch (`isBranch`, `isTerminator`, `isReturn`,
//! `isCall` and the `SOPPBrTarget` operand class); the opcode says which kind. A record the
//! tables mark as control flow that [`classify`] does not know is reported as
//! [`Kind::Unknown`], and the function holding it becomes opaque: fail closed.

use crate::isa::table::{extract, flag, Encoding, Namespace, Opcode, OperandClass};
use crate::isa::Inst;

/// Where a direct branch goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The start of a block of the same function.
    Block(usize),
    /// An input address outside the function (a branch into another function).
    Address(u64),
}

/// An instruction's effect on control flow, targets resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Falls through to the next instruction.
    Next,
    /// `s_branch`: always to the target.
    Branch(Target),
    /// `s_cbranch_*`: to the target or the next instruction.
    CondBranch(Target),
    /// `s_swappc_b64` / `s_call_b64`: runs a callee (its input address when known) and
    /// continues with the next instruction.
    Call(Option<u64>),
    /// `s_setpc_b64` of a proven address (a tail call, or a jump within the function).
    Jump(Target),
    /// `s_setpc_b64` of the return address: leaves a device function.
    Return,
    /// `s_endpgm` and friends, `s_rfe_b64`: the wave ends here.
    End,
    /// `s_trap 2` (`llvm.trap`) or `s_sethalt` with its halt bit set: the wave stops here and
    /// does not go on to the next instruction. Unlike [`Flow::End`], the trap handler or a
    /// debugger may still read every register.
    Halt,
    /// `s_add_pc_i64` of a known offset (its immediate, or an SGPR pair proven constant): always
    /// to the address of the next instruction plus the offset. The layout re-encodes it.
    AddPc(Target),
    /// An indirect jump nothing proved: control goes somewhere unknown.
    Indirect,
}

impl Flow {
    /// True if execution can continue with the next instruction.
    pub fn falls_through(self) -> bool {
        matches!(self, Flow::Next | Flow::CondBranch(_) | Flow::Call(_))
    }

    /// True if the instruction ends a basic block.
    pub fn ends_block(self) -> bool {
        !matches!(self, Flow::Next | Flow::Call(_))
    }

    /// The SOPP-encoded branch target, for flows the layout re-encodes.
    pub fn branch_target(self) -> Option<Target> {
        match self {
            Flow::Branch(t) | Flow::CondBranch(t) => Some(t),
            _ => None,
        }
    }
}

/// What the opcode alone says (targets still input addresses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Next,
    Branch(u64),
    CondBranch(u64),
    /// `s_call_b64` with its PC-relative target.
    DirectCall(u64),
    /// `s_swappc_b64`: the callee address is in an SGPR pair.
    RegisterCall,
    /// `s_setpc_b64`: jumps to an SGPR pair.
    RegisterJump,
    End,
    /// A trap or halt that stops the wave (see [`Flow::Halt`]).
    Halt,
    /// `s_add_pc_i64` with a constant operand: a PC-relative jump to this target.
    AddPc(u64),
    /// `s_add_pc_i64` of an SGPR pair: proven only by dataflow ([`super::pcrel::add_pc_pair`]).
    AddPcRegister,
    /// Control flow the rewriter does not model (fork/join, ...).
    Unknown(&'static str),
}

/// Classifies `inst` at input address `address`.
pub fn classify(inst: &Inst, address: u64) -> Kind {
    // Every instruction read (and, in the verifier, written) is classified, and almost none is
    // control flow: one table lookup says so.
    match inst.encoding_index() {
        Some(index) if may_transfer_control(index) => classify_control(inst, &crate::isa::table::encodings()[usize::from(index)], address),
        _ => Kind::Next,
    }
}

/// [`classify`] of an instruction whose encoding `e` [`may_transfer_control`].
fn classify_control(inst: &Inst, e: &Encoding, address: u64) -> Kind {
    let by_name = match named(e.opcode) {
        Some(Named::Branch) => Some(branch_target(inst, e, address).map_or(Kind::Unknown("s_branch without target"), Kind::Branch)),
        Some(Named::CondBranch) => Some(branch_target(inst, e, address).map_or(Kind::Unknown("conditional branch without target"), Kind::CondBranch)),
        Some(Named::Call) => Some(branch_target(inst, e, address).map_or(Kind::Unknown("s_call_b64 without target"), Kind::DirectCall)),
        Some(Named::RegisterCall) => Some(Kind::RegisterCall),
        Some(Named::RegisterJump) => Some(Kind::RegisterJump),
        Some(Named::End) => Some(Kind::End),
        // AMDGPUUsage, "Trap Handler for AMDHSA OS": `s_trap 2` halts the wave with the PC at the
        // trap and puts its queue in the error state; other trap ids (a debugger's breakpoint,
        // `llvm.debugtrap`) may return to the next instruction. On GFX11 encodings it may not
        // halt: gfx1100-gfx1103 run `s_trap 2` as a no-op when PRIV is set (LLVM's
        // FeaturePrivEnabledTrap2NopBug), which is why LLVM follows it with a simulated trap
        // ending in `s_sethalt` there.
        Some(Named::Trap) => (simm16(inst, e) & 0xff == LLVM_TRAP_ID && e.ns != Namespace::GFX11).then_some(Kind::Halt),
        // SIMM16[0] is the halt bit (1 halts, 0 resumes).
        Some(Named::SetHalt) => (simm16(inst, e) & 1 == 1).then_some(Kind::Halt),
        Some(Named::ForkJoin) => Some(Kind::Unknown("fork/join control flow")),
        Some(Named::SubvectorLoop) => Some(Kind::Unknown("subvector loop")),
        Some(Named::AddPc) => Some(match add_pc_operand(inst) {
            // The base is the next instruction (LLVM 22's insertIndirectBranch: destination minus
            // the label after the s_add_pc_i64).
            AddPcOperand::Constant(offset, _) => Kind::AddPc(address.wrapping_add(inst.len() as u64).wrapping_add_signed(offset)),
            AddPcOperand::Register => Kind::AddPcRegister,
            AddPcOperand::Ambiguous(why) => Kind::Unknown(why),
        }),
        None => None,
    };
    // A trap that does not halt, and what no name covers: by the tables.
    by_name.unwrap_or_else(|| {
        if e.flags.has(flag::ISBRANCH | flag::ISCALL | flag::ISRETURN) {
            Kind::Unknown("unclassified control flow")
        } else if branch_operand(e).is_some() {
            Kind::Unknown("unclassified branch-target operand")
        } else {
            Kind::Next
        }
    })
}

/// The opcodes [`classify_control`] knows by name, by what it does with them: one list, which
/// [`may_transfer_control`]'s table is made from too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Named {
    Branch,
    CondBranch,
    Call,
    RegisterCall,
    RegisterJump,
    /// `s_endpgm` and friends, `s_rfe_b64`, and `s_code_end`: padding after the code; reaching
    /// it is a fault, never a fall-through.
    End,
    Trap,
    SetHalt,
    ForkJoin,
    SubvectorLoop,
    AddPc,
}

fn named(opcode: Opcode) -> Option<Named> {
    use Opcode as O;
    Some(match opcode {
        O::S_BRANCH => Named::Branch,
        O::S_CBRANCH_SCC0
        | O::S_CBRANCH_SCC1
        | O::S_CBRANCH_VCCZ
        | O::S_CBRANCH_VCCNZ
        | O::S_CBRANCH_EXECZ
        | O::S_CBRANCH_EXECNZ
        | O::S_CBRANCH_CDBGSYS
        | O::S_CBRANCH_CDBGUSER
        | O::S_CBRANCH_CDBGSYS_OR_USER
        | O::S_CBRANCH_CDBGSYS_AND_USER => Named::CondBranch,
        O::S_CALL_B64 => Named::Call,
        O::S_SWAPPC_B64 => Named::RegisterCall,
        O::S_SETPC_B64 => Named::RegisterJump,
        O::S_ENDPGM | O::S_ENDPGM_SAVED | O::S_ENDPGM_ORDERED_PS_DONE | O::S_RFE_B64 | O::S_RFE_RESTORE_B64 | O::S_CODE_END => Named::End,
        O::S_TRAP => Named::Trap,
        O::S_SETHALT => Named::SetHalt,
        O::S_CBRANCH_I_FORK | O::S_CBRANCH_G_FORK | O::S_CBRANCH_JOIN => Named::ForkJoin,
        O::S_SUBVECTOR_LOOP_BEGIN | O::S_SUBVECTOR_LOOP_END => Named::SubvectorLoop,
        O::S_ADD_PC_I64 => Named::AddPc,
        _ => return None,
    })
}

/// The trap id of `llvm.trap`.
const LLVM_TRAP_ID: u64 = 2;

/// The 16-bit immediate of a SOPP instruction (its first field).
fn simm16(inst: &Inst, e: &Encoding) -> u64 {
    e.fields.first().map_or(0, |f| extract(f, inst.encoded_bits()))
}

/// Whether an instruction of the encoding of index `index` (into
/// [`encodings`](crate::isa::table::encodings)) may be anything but [`Kind::Next`]: its opcode
/// is [`named`], the tables flag it as a branch, call or return, or it
/// has a branch-target operand. Built once: scanning an encoding's operands for a branch
/// target on every instruction cost more than the rest of [`classify`].
fn may_transfer_control(index: u16) -> bool {
    static TABLE: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        crate::isa::table::encodings()
            .iter()
            .map(|e| named(e.opcode).is_some() || e.flags.has(flag::ISBRANCH | flag::ISCALL | flag::ISRETURN) || branch_operand(e).is_some())
            .collect()
    })[usize::from(index)]
}

/// Index of the branch-target operand of `e`, if it has one.
pub fn branch_operand(e: &Encoding) -> Option<usize> {
    e.operands.iter().position(|o| o.class == OperandClass::SOPPBrTarget)
}

/// The address a `SOPPBrTarget` operand names: the signed 16-bit dword offset from the next
/// instruction.
fn branch_target(inst: &Inst, e: &Encoding, address: u64) -> Option<u64> {
    let index = branch_operand(e)?;
    let offset = extract(e.fields[index], inst.encoded_bits()) as u16 as i16;
    Some(address.wrapping_add(4).wrapping_add_signed(i64::from(offset) * 4))
}

/// How an `s_add_pc_i64` holds its constant: the instruction's size follows from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum AddPcForm {
    /// An inline integer constant, -16..=64 (4 bytes).
    Inline,
    /// A 32-bit literal (8 bytes). Only 0..2^31 is used: LLVM 22 reads the dword zero-extended
    /// and writes a 64-bit literal for anything that is not both a signed and an unsigned
    /// 32-bit value, so the extension of a dword with bit 31 set is not established.
    Literal32,
    /// A 64-bit literal (12 bytes, GFX1250's source 254).
    Literal64,
}

impl AddPcForm {
    /// Bytes of an `s_add_pc_i64` in this form.
    pub fn size(self) -> u64 {
        match self {
            AddPcForm::Inline => 4,
            AddPcForm::Literal32 => 8,
            AddPcForm::Literal64 => 12,
        }
    }

    /// True if `offset` is representable in this form without ambiguity.
    pub fn fits(self, offset: i64) -> bool {
        match self {
            AddPcForm::Inline => (-16..=64).contains(&offset),
            AddPcForm::Literal32 => (0..=i64::from(i32::MAX)).contains(&offset),
            AddPcForm::Literal64 => true,
        }
    }

    /// The source-0 code of this form for `offset` (inline constant, 255 or 254).
    pub fn source_code(self, offset: i64) -> u64 {
        match self {
            AddPcForm::Inline if offset >= 0 => 128 + offset as u64,
            AddPcForm::Inline => (192 - offset) as u64,
            AddPcForm::Literal32 => 255,
            AddPcForm::Literal64 => 254,
        }
    }
}

/// The source operand of an `s_add_pc_i64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddPcOperand {
    /// A constant offset from the next instruction.
    Constant(i64, AddPcForm),
    /// An SGPR pair (or another 64-bit register source).
    Register,
    /// A constant whose value is not established (an inline float, or a 32-bit literal with
    /// bit 31 set): refused.
    Ambiguous(&'static str),
}

/// Reads the source of an `s_add_pc_i64` (SOP1: source 0 in bits 0..8, literals after).
pub fn add_pc_operand(inst: &Inst) -> AddPcOperand {
    let code = inst.words()[0] & 0xff;
    let tail = inst.trailing_words();
    match code {
        128..=192 => AddPcOperand::Constant(i64::from(code) - 128, AddPcForm::Inline),
        193..=208 => AddPcOperand::Constant(192 - i64::from(code), AddPcForm::Inline),
        240..=248 => AddPcOperand::Ambiguous("s_add_pc_i64 of an inline float constant"),
        255 => match tail.first() {
            Some(&l) if l >> 31 == 0 => AddPcOperand::Constant(i64::from(l), AddPcForm::Literal32),
            Some(_) => AddPcOperand::Ambiguous("s_add_pc_i64 of a 32-bit literal with bit 31 set (zero or sign extension not established)"),
            None => AddPcOperand::Ambiguous("s_add_pc_i64 without its literal"),
        },
        254 => match tail {
            &[lo, hi] => AddPcOperand::Constant((u64::from(hi) << 32 | u64::from(lo)) as i64, AddPcForm::Literal64),
            _ => AddPcOperand::Ambiguous("s_add_pc_i64 without its 64-bit literal"),
        },
        _ => AddPcOperand::Register,
    }
}

/// `s_nop 0`, `s_code_end` or a zero word: what linkers and compilers pad code with (older
/// ROCm releases pad kernels with zero bytes).
pub fn is_filler(inst: &Inst) -> bool {
    if inst.len() == 4 && inst.words()[0] == 0 {
        return true;
    }
    let Some(e) = inst.encoding() else { return false };
    match e.opcode {
        Opcode::S_CODE_END => true,
        Opcode::S_NOP => e.fields.first().is_some_and(|f| extract(f, inst.encoded_bits()) == 0),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::table::encodings;

    /// The fast path of `classify` skips only what `classify_control` would call `Next`: every
    /// encoding the table rules out classifies as `Next` whatever its fields hold (zeros, ones,
    /// and the `llvm.trap` id).
    #[test]
    fn the_fast_path_skips_only_what_classifies_as_next() {
        let mut skipped = 0;
        for (index, e) in encodings().iter().enumerate() {
            let index = index as u16;
            if may_transfer_control(index) {
                continue;
            }
            skipped += 1;
            let bytes = usize::from(e.bits / 8).max(4);
            for word in [0u32, u32::MAX, LLVM_TRAP_ID as u32, 1] {
                let raw: Vec<u8> = std::iter::repeat_n(word.to_le_bytes(), bytes / 4).flatten().collect();
                let inst = Inst::new(index, &raw, bytes);
                assert_eq!(classify_control(&inst, e, 0x1000), Kind::Next, "{:?} ({index}) with words {word:#x}", e.opcode);
            }
        }
        assert!(skipped > encodings().len() / 2, "most encodings are not control flow ({skipped} of {})", encodings().len());
        // And what it keeps includes each kind the match names.
        for name in [Opcode::S_BRANCH, Opcode::S_TRAP, Opcode::S_SETHALT, Opcode::S_ADD_PC_I64, Opcode::S_CODE_END] {
            assert!(encodings().iter().enumerate().any(|(i, e)| e.opcode == name && may_transfer_control(i as u16)), "{name:?}");
        }
    }
}
