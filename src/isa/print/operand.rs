//! Print methods: see the module list in [`super`].

use super::Ctx;

/// Prints operand `index` with LLVM print method `method` if this module implements it.
pub fn print(out: &mut String, ctx: &Ctx<'_>, index: usize, method: &str) -> bool {
    let _ = (out, ctx, index, method);
    false
}

/// `printNamedBit`: the name when the bit is set.
pub fn print_named_bit(out: &mut String, ctx: &Ctx<'_>, index: usize, name: &str) {
    if let super::super::operand::Value::Imm(v) = ctx.op(index).value {
        if v != 0 {
            out.push(' ');
            out.push_str(name);
        }
    }
}
