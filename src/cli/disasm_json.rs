//! `gfxpatch disasm FILE --json`: the listing as data. One object per code object, one per
//! block (symbol), one per instruction with its address, bytes, text (exactly the plain
//! listing's), LLVM record, opcode name, encoding family, length and decoded operands.
//!
//! ```text
//! {"file", "code_objects": [{"name", "bundle_id", "target", "wave64", "backend",
//!   "blocks": [{"name", "address", "skipped": [{"address", "bytes"}],
//!     "instructions": [{"address", "length", "bytes", "words", "text", "record", "opcode",
//!       "family", "form", "branch_target", "branch_symbol",
//!       "operands": [{"name", "dir", "class", "kind", "value"}]}]}]}]}
//! ```
//!
//! With `--backend llvm` the text and length are LLVM's and `record`, `opcode`, `family` and
//! `operands` are empty: LLVM's C interface gives text only.

use serde::Serialize;

use crate::isa::info::classify;
use crate::isa::listing::{self, Block, Line};
use crate::isa::operand::{Value, decode_operands};
use crate::isa::print::{self, Ctx, operand::print_value};
use crate::isa::table::Dir;
use crate::isa::{Decoder, Target};
use crate::llvm::listing::LlvmLine;

#[derive(Serialize)]
pub struct Listing {
    pub file: String,
    pub code_objects: Vec<ObjectListing>,
}

#[derive(Serialize)]
pub struct ObjectListing {
    /// `FILE` or `FILE:BUNDLE_ID`, as the plain listing's header names it.
    pub name: String,
    pub bundle_id: Option<String>,
    /// The target id (`gfx90a:xnack-`).
    pub target: String,
    pub wave64: bool,
    /// `gfxpatch` or `llvm`.
    pub backend: &'static str,
    pub blocks: Vec<BlockListing>,
}

#[derive(Serialize)]
pub struct BlockListing {
    pub name: String,
    pub address: u64,
    pub instructions: Vec<InstListing>,
    /// Runs of zero bytes the listing elides (`...`).
    pub skipped: Vec<Skipped>,
}

#[derive(Serialize)]
pub struct Skipped {
    pub address: u64,
    pub bytes: u64,
}

#[derive(Serialize)]
pub struct InstListing {
    pub address: u64,
    /// Bytes, literal constants and extra address dwords included.
    pub length: usize,
    /// The bytes in memory order, as hex.
    pub bytes: String,
    /// The dwords as the listing prints them (`D6560005`).
    pub words: Vec<String>,
    /// The instruction text, exactly as in the plain listing.
    pub text: String,
    /// LLVM's record (`V_LSHL_OR_B32_e64_gfx11`); null for an undecodable word.
    pub record: Option<String>,
    /// The record without its generation suffix (`V_LSHL_OR_B32_e64`).
    pub opcode: Option<&'static str>,
    /// AMD's encoding family (`VOP3`), and the DPP/SDWA form if any.
    pub family: Option<&'static str>,
    pub form: Option<&'static str>,
    pub branch_target: Option<u64>,
    /// `symbol+0x10`, as the plain listing's comment names the branch target.
    pub branch_symbol: Option<String>,
    pub operands: Vec<OperandListing>,
}

#[derive(Serialize)]
pub struct OperandListing {
    /// LLVM's operand name (`vdst`, `src0`, `src0_modifiers`, `offset`).
    pub name: &'static str,
    /// `out` or `in`.
    pub dir: &'static str,
    /// LLVM's operand class.
    pub class: &'static str,
    /// `reg`, `imm`, `inline_int`, `inline_float`, `literal`, `literal64` or `none`.
    pub kind: &'static str,
    /// The decoded value: a register as LLVM names it (`v5`, `s[4:5]`, `vcc`), a constant as
    /// LLVM formats it for the operand's type (`1.0`, `0x3f800000`, `-4`). Control fields
    /// (offsets, cache policy, DPP controls, modifiers) are plain numbers here; the text shows
    /// them in their own syntax.
    pub value: String,
}

fn hex_bytes(words: &[u32]) -> String {
    words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn block_listing<L>(block: &Block<'_, L>, instructions: Vec<InstListing>) -> BlockListing {
    BlockListing {
        name: block.name.to_owned(),
        address: block.address,
        instructions,
        skipped: block
            .skipped
            .iter()
            .map(|&(address, bytes)| Skipped { address, bytes })
            .collect(),
    }
}

fn symbols<'a, L>(blocks: &'a [Block<'_, L>]) -> Vec<(u64, &'a str)> {
    blocks.iter().map(|b| (b.address, b.name)).collect()
}

/// gfxpatch's listing of `blocks` as data.
pub fn ours(blocks: &[Block<'_>], decoder: &Decoder) -> Vec<BlockListing> {
    let symbols = symbols(blocks);
    let target = decoder.target();
    blocks
        .iter()
        .map(|b| {
            block_listing(
                b,
                b.lines
                    .iter()
                    .map(|line| instruction(line, target, &symbols))
                    .collect(),
            )
        })
        .collect()
}

fn instruction(line: &Line, target: &Target, symbols: &[(u64, &str)]) -> InstListing {
    let inst = &line.inst;
    let branch_target = print::control::branch_target(inst, line.address);
    let mut out = InstListing {
        address: line.address,
        length: inst.len(),
        bytes: hex_bytes(inst.words()),
        words: inst.words().iter().map(|w| format!("{w:08X}")).collect(),
        text: print::print(inst, target, line.address),
        record: None,
        opcode: None,
        family: None,
        form: None,
        branch_target,
        branch_symbol: branch_target.and_then(|t| listing::symbolize(t, symbols)),
        operands: Vec::new(),
    };
    let Some(decoded) = inst.encoding() else {
        return out;
    };
    let tail: Vec<u8> = inst
        .trailing_words()
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let Ok(ops) = decode_operands(decoded, inst.encoded_bits(), &tail, target) else {
        return out;
    };
    // Image instructions are the sibling record LLVM's convertMIMGInst switched to.
    let encoding = ops.converted.unwrap_or(decoded);
    out.record = Some(encoding.record_name());
    out.opcode = Some(encoding.opcode.name());
    if let Some((family, form)) = classify(encoding) {
        out.family = Some(family.name(target.generation()));
        out.form = form.name();
    }
    let ctx = Ctx {
        inst,
        encoding,
        ops: &ops,
        target,
        address: line.address,
    };
    out.operands = ops
        .as_slice()
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let mut value = String::new();
            print_value(&mut value, &ctx, i, op.value);
            let kind = match op.value {
                Value::Reg(_) => "reg",
                Value::Imm(_) => "imm",
                Value::InlineInt(_) => "inline_int",
                Value::InlineFloat(_) => "inline_float",
                Value::Literal(_) => "literal",
                Value::Literal64(_) => "literal64",
                Value::None => "none",
            };
            let dir = match encoding.operands.get(i).map(|o| o.dir) {
                Some(Dir::Out) => "out",
                _ => "in",
            };
            OperandListing {
                name: op.name.name(),
                dir,
                class: op.class.name(),
                kind,
                value,
            }
        })
        .collect();
    out
}

/// LLVM's listing of `blocks` as data (text and length only).
pub fn llvm(blocks: &[Block<'_, LlvmLine>]) -> Vec<BlockListing> {
    let symbols = symbols(blocks);
    blocks
        .iter()
        .map(|b| {
            let instructions = b
                .lines
                .iter()
                .map(|line| InstListing {
                    address: line.address,
                    length: line.len(),
                    bytes: hex_bytes(&line.words),
                    words: line.words.iter().map(|w| format!("{w:08X}")).collect(),
                    text: line.text.clone(),
                    record: None,
                    opcode: None,
                    family: None,
                    form: None,
                    branch_target: line.branch,
                    branch_symbol: line.branch.and_then(|t| listing::symbolize(t, &symbols)),
                    operands: Vec::new(),
                })
                .collect();
            block_listing(b, instructions)
        })
        .collect()
}
