//! Print methods: see the module list in [`super`].

use super::Ctx;

/// Prints operand `index` with LLVM print method `method` if this module implements it.
pub fn print(out: &mut String, ctx: &Ctx<'_>, index: usize, method: &str) -> bool {
    let _ = (out, ctx, index, method);
    false
}
