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

/// One decoded instruction of a listing.
#[derive(Clone, Copy, Debug)]
pub struct Line {
    pub address: u64,
    pub inst: Inst,
}

/// Where a listing line sits (lines of other disassemblers, e.g. LLVM's, use the same walk).
pub trait At {
    fn address(&self) -> u64;
}

impl At for Line {
    fn address(&self) -> u64 {
        self.address
    }
}

/// A block of a listing: one symbol's instructions.
#[derive(Clone, Debug)]
pub struct Block<'data, L = Line> {
    pub name: &'data str,
    pub address: u64,
    pub lines: Vec<L>,
    /// Where a run of zero bytes was elided (`\t\t...`): (address, bytes skipped).
    pub skipped: Vec<(u64, u64)>,
}

/// One executable section as a listing walks it: its bytes where they load, and the named
/// symbols that lie in it (the caller reads them from its container; section and file symbols
/// left out, as objdump leaves them out).
#[derive(Clone, Debug)]
pub struct Text<'data> {
    pub name: &'data str,
    pub address: u64,
    pub bytes: &'data [u8],
    /// (address, name) in any order.
    pub symbols: Vec<(u64, &'data str)>,
}

/// The symbols objdump prints for `text`: sorted by (address, name), and of several at one
/// address only the last; the section's own name where no symbol starts it.
fn block_symbols<'data>(text: &Text<'data>) -> Vec<(u64, &'data str)> {
    let mut symbols: Vec<(u64, &str)> = text.symbols.iter().copied().filter(|s| !s.1.is_empty()).collect();
    symbols.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| a.1.as_bytes().cmp(b.1.as_bytes()))
    });
    let mut out: Vec<(u64, &str)> = Vec::new();
    for s in symbols {
        match out.last_mut() {
            Some(last) if last.0 == s.0 => *last = s,
            _ => out.push(s),
        }
    }
    if out.first().is_none_or(|s| s.0 != text.address) {
        out.insert(0, (text.address, text.name));
    }
    out
}

/// Decodes every executable section in `texts` the way objdump walks it.
pub fn blocks<'data>(texts: &[Text<'data>], decoder: &Decoder) -> Vec<Block<'data>> {
    blocks_with(texts, |bytes, address| {
        let inst = decoder.decode(bytes);
        (Line { address, inst }, inst.len())
    })
}

/// [`blocks`] with another disassembler: `decode(bytes, address)` gives a line and its length
/// in bytes (at least 4 for progress, as objdump skips 4 bytes it cannot decode).
pub fn blocks_with<'data, L>(
    texts: &[Text<'data>],
    mut decode: impl FnMut(&[u8], u64) -> (L, usize),
) -> Vec<Block<'data, L>> {
    let mut out = Vec::new();
    for text in texts {
        let (bytes, start, size) = (text.bytes, text.address, text.bytes.len() as u64);
        let symbols = block_symbols(text);
        for (i, &(address, name)) in symbols.iter().enumerate() {
            let end = symbols
                .get(i + 1)
                .map_or(start + size, |s| s.0);
            let mut block = Block {
                name,
                address,
                lines: Vec::new(),
                skipped: Vec::new(),
            };
            let mut at = address;
            while at < end {
                let offset = (at - start) as usize;
                let zeros = bytes[offset..(end - start) as usize]
                    .iter()
                    .take_while(|&&b| b == 0)
                    .count();
                if zeros >= 8 {
                    let skip = (zeros & !3) as u64;
                    block.skipped.push((at, skip));
                    at += skip;
                    continue;
                }
                let (line, len) = decode(&bytes[offset..], at);
                block.lines.push(line);
                at += len.max(4) as u64;
            }
            out.push(block);
        }
    }
    out
}

/// The objdump-style text of `blocks` (symbol headers, instruction lines; no file header).
pub fn render(blocks: &[Block<'_>], decoder: &Decoder) -> String {
    render_with(blocks, |out, line, symbols| {
        render_line(out, line, decoder, symbols)
    })
}

/// [`render`] for lines of any disassembler: `line(out, line, symbols)` writes one line.
pub fn render_with<L: At>(
    blocks: &[Block<'_, L>],
    mut line: impl FnMut(&mut String, &L, &[(u64, &str)]),
) -> String {
    let mut out = String::new();
    let symbols: Vec<(u64, &str)> = blocks.iter().map(|b| (b.address, b.name)).collect();
    for block in blocks {
        let _ = write!(out, "\n{:016x} <{}>:\n", block.address, block.name);
        let mut skipped = block.skipped.iter().peekable();
        for l in &block.lines {
            while let Some(&&(at, _)) = skipped.peek() {
                if at > l.address() {
                    break;
                }
                out.push_str("\t\t...\n");
                skipped.next();
            }
            line(&mut out, l, &symbols);
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
    let branch = print::control::branch_target(&line.inst, line.address);
    finish_line(out, start, line.address, line.inst.words(), branch, symbols);
}

/// The rest of an instruction line whose tab and text start at `out[start..]`: the padding, the
/// address and words comment and the branch target's symbol.
pub fn finish_line(
    out: &mut String,
    start: usize,
    address: u64,
    words: &[u32],
    branch: Option<u64>,
    symbols: &[(u64, &str)],
) {
    let width = out.len() - start;
    if width < 60 {
        out.extend(std::iter::repeat_n(' ', 60 - width));
    }
    let _ = write!(out, "// {address:012X}:");
    for w in words {
        let _ = write!(out, " {w:08X}");
    }
    if let Some(symbol) = branch.and_then(|target| symbolize(target, symbols)) {
        let _ = write!(out, " <{symbol}>");
    }
    out.push('\n');
}

/// `name` or `name+0x10`: the last symbol at or before `target`, as objdump names a branch target.
pub fn symbolize(target: u64, symbols: &[(u64, &str)]) -> Option<String> {
    let &(at, name) = symbols.iter().rev().find(|s| s.0 <= target)?;
    Some(if target == at {
        name.to_owned()
    } else {
        format!("{name}+0x{:x}", target - at)
    })
}
