//! Disassembly listings by LLVM's in-process disassembler, in the layout of
//! [`crate::isa::listing`] (`gfxpatch disasm --backend llvm`): the same walk over symbols and
//! zero runs, with each instruction's length and text from LLVM instead of gfxpatch's decoder.
//!
//! Two things LLVM's C interface does not give are filled in the way `llvm-objdump` does them:
//! a word LLVM cannot decode prints as `.long 0x<word>` and advances 4 bytes, and a branch's
//! `<symbol+offset>` comment is computed from the branch offset in LLVM's text (`s_branch 65533`
//! -> address + 4 + 4 * (-3)) for the mnemonics whose first operand is a SOPP branch target.

use std::collections::HashSet;
use std::sync::OnceLock;

use super::disasm::LlvmDisassembler;
use crate::isa::listing::{self, At, Block};
use crate::isa::table::{OperandClass, encodings};

/// One instruction as LLVM decoded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LlvmLine {
    pub address: u64,
    /// The instruction's bytes as little-endian dwords (LLVM's length; 4 for an undecodable word).
    pub words: Vec<u32>,
    /// LLVM's text, or `.long 0x<word>` where LLVM decoded nothing.
    pub text: String,
    /// Whether LLVM decoded the bytes.
    pub decoded: bool,
    /// Where a branch goes.
    pub branch: Option<u64>,
}

impl LlvmLine {
    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.words.len() * 4
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

impl At for LlvmLine {
    fn address(&self) -> u64 {
        self.address
    }
}

/// Decodes the instruction at the start of `bytes` (at `address`) with LLVM.
pub fn decode_line(llvm: &mut LlvmDisassembler, bytes: &[u8], address: u64) -> LlvmLine {
    let inst = llvm.decode(bytes, address);
    let decoded = inst.size > 0;
    let len = if decoded { inst.size } else { 4 };
    let mut own = bytes[..len.min(bytes.len())].to_vec();
    own.resize(len.next_multiple_of(4), 0);
    let words: Vec<u32> = own
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let text = if decoded {
        inst.text
    } else {
        format!(".long 0x{:08x}", words[0])
    };
    let branch = if decoded {
        branch_target(&text, address)
    } else {
        None
    };
    LlvmLine {
        address,
        words,
        text,
        decoded,
        branch,
    }
}

/// Every executable section in `texts`, decoded by LLVM.
pub fn blocks<'data>(
    texts: &[listing::Text<'data>],
    llvm: &mut LlvmDisassembler,
) -> Vec<Block<'data, LlvmLine>> {
    listing::blocks_with(texts, |bytes, address| {
        let line = decode_line(llvm, bytes, address);
        let len = line.len();
        (line, len)
    })
}

/// The objdump-style text of `blocks`, as [`listing::render`] writes gfxpatch's.
pub fn render(blocks: &[Block<'_, LlvmLine>]) -> String {
    listing::render_with(blocks, |out, line, symbols| {
        let start = out.len();
        out.push('\t');
        out.push_str(&line.text);
        listing::finish_line(out, start, line.address, &line.words, line.branch, symbols);
    })
}

/// The target of a SOPP branch from LLVM's text: its first operand is the 16-bit offset in
/// dwords, printed unsigned.
fn branch_target(text: &str, address: u64) -> Option<u64> {
    let (mnemonic, rest) = text.split_once(' ')?;
    if !branch_mnemonics().contains(mnemonic) {
        return None;
    }
    let offset: u16 = rest.split([',', ' ']).next()?.trim().parse().ok()?;
    Some(
        address
            .wrapping_add(4)
            .wrapping_add_signed(i64::from(offset as i16) * 4),
    )
}

/// Mnemonics of records whose first operand is a SOPP branch target (what LLVM's
/// `evaluateBranch` follows).
fn branch_mnemonics() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| {
        encodings()
            .iter()
            .filter(|e| {
                e.operands
                    .first()
                    .is_some_and(|o| o.class == OperandClass::SOPPBrTarget)
            })
            .map(|e| e.mnemonic())
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Target;

    #[test]
    fn branches_and_undecodable_words() {
        let target = Target::from_name("gfx1100", "").unwrap();
        let mut llvm = LlvmDisassembler::new(&target).unwrap();
        let line = decode_line(&mut llvm, &[0xfd, 0xff, 0xa0, 0xbf], 0x100);
        assert_eq!(
            (line.text.as_str(), line.branch),
            ("s_branch 65533", Some(0x100 + 4 - 12))
        );
        let line = decode_line(
            &mut llvm,
            &[0x05, 0x00, 0x56, 0xd6, 0x01, 0x05, 0x0e, 0x00],
            0,
        );
        assert_eq!(
            (line.text.as_str(), line.words.as_slice(), line.branch),
            (
                "v_lshl_or_b32 v5, v1, v2, s3",
                &[0xd656_0005, 0x000e_0501][..],
                None
            )
        );
        let line = decode_line(&mut llvm, &[0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0], 0);
        assert_eq!(
            (line.text.as_str(), line.len(), line.decoded),
            (".long 0xffffffff", 4, false)
        );
    }
}
