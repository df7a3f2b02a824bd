//! The printer: [`Inst`] to text, exactly as LLVM 19's `AMDGPUInstPrinter` writes it (and
//! `llvm-objdump -d` shows it).
//!
//! The encoding's AsmString is the template: literal text is copied, and each `$operand` is
//! printed by the print method LLVM's operand class names (`printOperand`, `printVOPDst`,
//! `printSWaitCnt`, ...). Each family of print methods lives in its own module:
//! [`operand`] (registers, constants, literals, VOP destinations),
//! [`modifiers`] (input/output modifiers, op_sel and friends),
//! [`control`] (scalar control words: waitcnt, hwreg, sendmsg, delay_alu, branch targets),
//! [`memory`] (offsets, cache policy, image and buffer fields, export targets),
//! [`dpp`] (DPP and SDWA controls).

pub mod control;
pub mod dpp;
pub mod memory;
pub mod modifiers;
pub mod operand;

use std::fmt::Write as _;

use super::inst::Inst;
use super::operand::{Operands, decode_operands};
use super::table::Encoding;
use super::target::Target;

/// Everything a print method may look at.
pub struct Ctx<'a> {
    pub inst: &'a Inst,
    pub encoding: &'static Encoding,
    pub ops: &'a Operands,
    pub target: &'a Target,
    /// Address of the instruction (for branch targets).
    pub address: u64,
}

impl Ctx<'_> {
    /// Index (in MC order) of operand `i` of the encoding in `ops`.
    pub fn op(&self, index: usize) -> &super::operand::Op {
        &self.ops.as_slice()[index]
    }
}

/// The instruction as LLVM prints it (without objdump's address and encoding comment).
pub fn print(inst: &Inst, target: &Target, address: u64) -> String {
    let mut out = String::new();
    write_inst(&mut out, inst, target, address);
    out
}

/// Appends the instruction's text to `out`.
pub fn write_inst(out: &mut String, inst: &Inst, target: &Target, address: u64) {
    let Some(encoding) = inst.encoding() else {
        let _ = write!(out, ".long 0x{:08x}", inst.words()[0]);
        return;
    };
    let word = inst.encoded_bits();
    let tail: Vec<u8> = inst
        .trailing_words()
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let Ok(ops) = decode_operands(encoding, word, &tail, target) else {
        // The decoder accepted these bytes, so this cannot happen; print them as data.
        let _ = write!(out, ".long 0x{:08x}", inst.words()[0]);
        return;
    };
    // Image instructions print as the sibling record LLVM's convertMIMGInst switched to.
    let encoding = ops.converted.unwrap_or(encoding);
    let ctx = Ctx {
        inst,
        encoding,
        ops: &ops,
        target,
        address,
    };
    expand(out, &ctx, encoding.asm);
}

/// The text of an instruction given as an encoding and its operands (what [`print`] writes for
/// the bytes they decode from); the parser checks its candidates with it.
pub fn print_operands(
    encoding: &'static Encoding,
    ops: &Operands,
    target: &Target,
    address: u64,
) -> String {
    let inst = Inst::raw(0);
    let encoding = ops.converted.unwrap_or(encoding);
    let ctx = Ctx {
        inst: &inst,
        encoding,
        ops,
        target,
        address,
    };
    let mut out = String::new();
    expand(&mut out, &ctx, encoding.asm);
    out
}

/// Appends the text operand `index` of `encoding` prints with its class's print method alone
/// (without the AsmString around it). `ops` are in `encoding`'s operand order.
pub fn write_operand(
    out: &mut String,
    encoding: &'static Encoding,
    ops: &Operands,
    target: &Target,
    index: usize,
) {
    let inst = Inst::raw(0);
    let ctx = Ctx {
        inst: &inst,
        encoding,
        ops,
        target,
        address: 0,
    };
    let method = encoding.operands[index].class.info().print_method;
    dispatch(out, &ctx, index, method);
    memory::print_after_operand(out, &ctx, index);
}

/// Expands an AsmString: `$name` / `${name}` print operands, `{a|b}` picks variant 0's text.
fn expand(out: &mut String, ctx: &Ctx<'_>, asm: &str) {
    let bytes = asm.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'$' => {
                let (name, next) = if bytes.get(i + 1) == Some(&b'{') {
                    let end = asm[i + 2..].find('}').map_or(asm.len(), |e| i + 2 + e);
                    (&asm[i + 2..end], end + 1)
                } else {
                    let end = asm[i + 1..]
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .map_or(asm.len(), |e| i + 1 + e);
                    (&asm[i + 1..end], end)
                };
                print_named(out, ctx, name.split(':').next().unwrap_or(name));
                i = next;
            }
            b'{' => {
                // Variant alternatives: `{a|b}` prints `a` (variant 0); `{a}` prints `a`.
                let end = asm[i + 1..].find('}').map_or(asm.len(), |e| i + 1 + e);
                let body = &asm[i + 1..end];
                out.push_str(body.split('|').next().unwrap_or(""));
                i = end + 1;
            }
            _ => {
                let start = i;
                while i < bytes.len() && bytes[i] != b'$' && bytes[i] != b'{' {
                    i += 1;
                }
                out.push_str(&asm[start..i]);
            }
        }
    }
}

/// Prints the operand called `name` through its class's print method.
fn print_named(out: &mut String, ctx: &Ctx<'_>, name: &str) {
    let Some(index) = ctx
        .encoding
        .operands
        .iter()
        .position(|o| o.name.name() == name)
    else {
        let _ = write!(out, "<{name}?>");
        return;
    };
    let class = ctx.encoding.operands[index].class;
    let method = class.info().print_method;
    dispatch(out, ctx, index, method);
    // LLVM's printRegularOperand prints the MTBUF format right after `soffset`.
    memory::print_after_operand(out, ctx, index);
}

/// Routes a print method name to its implementation.
fn dispatch(out: &mut String, ctx: &Ctx<'_>, index: usize, method: &str) {
    if let Some(bit) = method.strip_prefix("printNamedBit:") {
        return operand::print_named_bit(out, ctx, index, bit);
    }
    if operand::print(out, ctx, index, method)
        || modifiers::print(out, ctx, index, method)
        || control::print(out, ctx, index, method)
        || memory::print(out, ctx, index, method)
        || dpp::print(out, ctx, index, method)
    {
        return;
    }
    let _ = write!(out, "<{method}?>");
}
