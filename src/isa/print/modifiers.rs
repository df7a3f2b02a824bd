//! Print methods for VALU modifiers: input modifiers (neg, abs, sext) around source operands,
//! output modifiers (omod), op_sel/op_sel_hi/neg_lo/neg_hi, byte_sel, MFMA cbsz/abid/blgp and
//! the like.

use super::Ctx;

/// Prints operand `index` with LLVM print method `method` if this module implements it.
pub fn print(out: &mut String, ctx: &Ctx<'_>, index: usize, method: &str) -> bool {
    let _ = (out, ctx, index, method);
    false
}
