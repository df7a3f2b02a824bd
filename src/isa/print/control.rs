//! Print methods for scalar control words: branch targets, `s_waitcnt`, `s_delay_alu`,
//! `hwreg(...)`, `sendmsg(...)`, `s_endpgm` operands and the like.

use super::Ctx;
use crate::isa::inst::Inst;
use crate::isa::table::{extract, OperandClass};

/// Prints operand `index` with LLVM print method `method` if this module implements it.
pub fn print(out: &mut String, ctx: &Ctx<'_>, index: usize, method: &str) -> bool {
    let _ = (out, ctx, index, method);
    false
}

/// The address a SOPP branch (`s_branch`, `s_cbranch_*`) jumps to: its first operand is the
/// 16-bit signed dword offset from the next instruction. `None` for anything else.
pub fn branch_target(inst: &Inst, address: u64) -> Option<u64> {
    let e = inst.encoding()?;
    let first = e.operands.first()?;
    if first.class != OperandClass::SOPPBrTarget {
        return None;
    }
    let imm = extract(e.fields[0], inst.encoded_bits()) as u16 as i16;
    Some(address.wrapping_add(4).wrapping_add_signed(i64::from(imm) * 4))
}
