//! Disassembly listings in `llvm-objdump -d` layout, so that a plain `diff` against LLVM's
//! output means something.
//!
//! The rules are objdump's: each symbol of an executable section starts a block
//! (`\n%016x <name>:`); a block decodes from its symbol to the next printed symbol (an
//! instruction may run past it; the next block decodes again from its own start); instruction
//! lines are a tab, the text padded to column 60, `// %012X:` and the words; branches get
//! ` <sym+0xoff>`; runs of eight or more zero bytes print as `\t\t...`.

use std::fmt::Write as _;

use super::decode::Decoder;
use super::inst::Inst;
use super::print;
use crate::container::elf::{CodeObject, Section, SymbolKind};

/// One decoded instruction of a listing.
#[derive(Clone, Copy, Debug)]
pub struct Line {
    pub address: u64,
    pub inst: Inst,
}

/// A block of a listing: one symbol's instructions.
#[derive(Clone, Debug)]
pub struct Block<'data> {
    pub name: &'data str,
    pub address: u64,
    pub lines: Vec<Line>,
    /// Where a run of zero bytes was elided (`\t\t...`): (address, bytes skipped).
    pub skipped: Vec<(u64, u64)>,
}

/// The symbols objdump prints for `section`: sorted by (address, name), and of several at one
/// address only the last.
fn block_symbols<'data>(object: &CodeObject<'data>, section: &Section<'data>) -> Vec<(u64, &'data str)> {
    let mut symbols: Vec<(u64, &str)> = object
        .symbols
        .iter()
        .filter(|s| s.section_index as usize == section.index && !matches!(s.kind, SymbolKind::Section | SymbolKind::File))
        .filter(|s| !s.name.is_empty())
        .map(|s| (s.value, s.name))
        .collect();
    symbols.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.as_bytes().cmp(b.1.as_bytes())));
    let mut out: Vec<(u64, &str)> = Vec::new();
    for s in symbols {
        match out.last_mut() {
            Some(last) if last.0 == s.0 => *last = s,
            _ => out.push(s),
        }
    }
    if out.first().is_none_or(|s| s.0 != section.address) {
        out.insert(0, (section.address, section.name));
    }
    out
}

/// Decodes every executable section of `object` the way objdump walks it.
pub fn blocks<'data>(object: &CodeObject<'data>, decoder: &Decoder) -> Vec<Block<'data>> {
    let mut out = Vec::new();
    for section in object.text_sections() {
        let bytes = &object.data[section.offset as usize..(section.offset + section.size) as usize];
        let symbols = block_symbols(object, section);
        for (i, &(address, name)) in symbols.iter().enumerate() {
            let end = symbols.get(i + 1).map_or(section.address + section.size, |s| s.0);
            let mut block = Block { name, address, lines: Vec::new(), skipped: Vec::new() };
            let mut at = address;
            while at < end {
                let offset = (at - section.address) as usize;
                let zeros = bytes[offset..(end - section.address) as usize].iter().take_while(|&&b| b == 0).count();
                if zeros >= 8 {
                    let skip = (zeros & !3) as u64;
                    block.skipped.push((at, skip));
                    at += skip;
                    continue;
                }
                let inst = decoder.decode(&bytes[offset..]);
                block.lines.push(Line { address: at, inst });
                at += inst.len() as u64;
            }
            out.push(block);
        }
    }
    out
}

/// The objdump-style text of `blocks` (symbol headers, instruction lines; no file header).
pub fn render(blocks: &[Block<'_>], decoder: &Decoder) -> String {
    let mut out = String::new();
    let symbols: Vec<(u64, &str)> = blocks.iter().map(|b| (b.address, b.name)).collect();
    for block in blocks {
        let _ = write!(out, "\n{:016x} <{}>:\n", block.address, block.name);
        let mut skipped = block.skipped.iter().peekable();
        for line in &block.lines {
            while let Some(&&(at, _)) = skipped.peek() {
                if at > line.address {
                    break;
                }
                out.push_str("\t\t...\n");
                skipped.next();
            }
            render_line(&mut out, line, decoder, &symbols);
        }
        for _ in skipped {
            out.push_str("\t\t...\n");
        }
    }
    out
}

/// One instruction line: `\t<text><pad to 60>// <ADDR>: <WORDS>[ <sym+off>]`.
pub fn render_line(out: &mut String, line: &Line, decoder: &Decoder, symbols: &[(u64, &str)]) {
    let start = out.len();
    out.push('\t');
    print::write_inst(out, &line.inst, decoder.target(), line.address);
    let width = out.len() - start;
    if width < 60 {
        out.extend(std::iter::repeat_n(' ', 60 - width));
    }
    let _ = write!(out, "// {:012X}:", line.address);
    for w in line.inst.words() {
        let _ = write!(out, " {w:08X}");
    }
    if let Some(target) = print::control::branch_target(&line.inst, line.address) {
        if let Some(&(at, name)) = symbols.iter().rev().find(|s| s.0 <= target) {
            if target == at {
                let _ = write!(out, " <{name}>");
            } else {
                let _ = write!(out, " <{name}+0x{:x}>", target - at);
            }
        }
    }
    out.push('\n');
}
