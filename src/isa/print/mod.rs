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
pub mod num;
pub mod operand;

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt::Write as _;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

use super::inst::{Inst, MAX_INST_BYTES};
use super::operand::{Operands, decode_operands_into};
use super::table::{self, Encoding, OperandClass, encodings};
use super::target::Target;
use super::target_id::FeatureSetting;

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
///
/// Code repeats itself, so the text of recent instructions is remembered per thread in a
/// direct-mapped memo keyed by target, encoding and every word of the instruction (all a
/// print reads, except the address, which only branch targets print: those are never
/// memoized). A slot is one cache line: the key and, for texts of up to `INLINE_TEXT`
/// bytes (most), the text itself, so a repeat costs one line's load and a copy. Longer texts
/// live in a ring of bytes the slot points into; a slot whose text the ring has since
/// overwritten is a miss.
pub fn write_inst(out: &mut String, inst: &Inst, target: &Target, address: u64) {
    let Some(index) = inst.encoding_index() else {
        write_inst_uncached(out, inst, target, address);
        return;
    };
    let words = inst.words();
    let mut w = [0u32; MAX_INST_BYTES / 4];
    w[..words.len()].copy_from_slice(words);
    TEXT_MEMO.with(|memo| {
        let mut memo = memo.borrow_mut();
        let memo = &mut *memo;
        let tag = memo.tag(target);
        let key = [
            u64::from(w[0]) | u64::from(w[1]) << 32,
            u64::from(w[2]) | u64::from(w[3]) << 32,
            u64::from(w[4]) | u64::from(index) << 32 | (inst.len() as u64) << 48 | u64::from(tag) << 56,
        ];
        let TextMemo { slots, ring, head, .. } = memo;
        let slot = &mut slots[text_slot(&key)];
        if slot.key == key {
            let len = usize::from(slot.len);
            if len <= INLINE_TEXT {
                // SAFETY: the slot holds `len` bytes of a text this function wrote into a
                // String (valid UTF-8); the whole inline array is copied into reserved
                // capacity and only `len` bytes are counted.
                unsafe {
                    let v = out.as_mut_vec();
                    v.reserve(INLINE_TEXT);
                    std::ptr::copy_nonoverlapping(slot.text.as_ptr(), v.as_mut_ptr().add(v.len()), INLINE_TEXT);
                    v.set_len(v.len() + len);
                }
                return;
            }
            let (at, len) = slot.ring_place();
            if *head <= at + TEXT_RING as u64 {
                let at = (at % TEXT_RING as u64) as usize;
                // SAFETY: the ring holds, at the slot's position, a copy of a text this
                // function wrote into a String (valid UTF-8), not overwritten since (checked).
                out.push_str(unsafe { std::str::from_utf8_unchecked(&ring[at..at + len]) });
                return;
            }
        }
        // A miss. Branch targets print the address: never memoized.
        if program(index).uses_address {
            write_inst_uncached(out, inst, target, address);
            return;
        }
        let start = out.len();
        write_inst_uncached(out, inst, target, address);
        let text = &out.as_bytes()[start..];
        slot.key = key;
        if text.len() <= INLINE_TEXT {
            slot.text[..text.len()].copy_from_slice(text);
            slot.len = text.len() as u8;
            return;
        }
        if text.len() > usize::from(u16::MAX) || text.len() > TEXT_RING {
            slot.key = [0; 3];
            return;
        }
        if ring.is_empty() {
            *ring = vec![0; TEXT_RING];
        }
        // Texts never wrap: one that does not fit before the end starts the next lap.
        let mut at = (*head % TEXT_RING as u64) as usize;
        if at + text.len() > TEXT_RING {
            *head += (TEXT_RING - at) as u64;
            at = 0;
        }
        ring[at..at + text.len()].copy_from_slice(text);
        slot.set_ring_place(*head, text.len());
        *head += text.len() as u64;
    });
}

/// The target as one number: the processor (a static record, 8-aligned: its address) and the
/// modes a print reads.
fn target_key(target: &Target) -> u64 {
    let setting = |f: FeatureSetting| match f {
        FeatureSetting::Unsupported => 0u64,
        FeatureSetting::Any => 1,
        FeatureSetting::Off => 2,
        FeatureSetting::On => 3,
    };
    (target.processor as *const _ as u64) << 8
        | u64::from(target.wave64)
        | setting(target.xnack) << 1
        | setting(target.sramecc) << 3
        | u64::from(target.real_true16) << 5
}

/// Texts of up to this many bytes are kept in their slot (the rest of its cache line).
const INLINE_TEXT: usize = 39;

/// A memo slot, one cache line: the key (the words, encoding, length and target tag; all
/// zero: empty, as no instruction has length 0) and the text's length with the text, or
/// (length [`IN_RING`]) its place in the ring.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct TextSlot {
    key: [u64; 3],
    len: u8,
    text: [u8; INLINE_TEXT],
}

const IN_RING: u8 = u8::MAX;

impl TextSlot {
    const EMPTY: TextSlot = TextSlot { key: [0; 3], len: 0, text: [0; INLINE_TEXT] };

    /// Where in the ring's byte stream a long text is, and its length.
    fn ring_place(&self) -> (u64, usize) {
        let at = u64::from_le_bytes(self.text[..8].try_into().expect("8 bytes"));
        let len = u16::from_le_bytes(self.text[8..10].try_into().expect("2 bytes"));
        (at, usize::from(len))
    }

    fn set_ring_place(&mut self, at: u64, len: usize) {
        self.len = IN_RING;
        self.text[..8].copy_from_slice(&at.to_le_bytes());
        self.text[8..10].copy_from_slice(&(len as u16).to_le_bytes());
    }
}

/// The memo: slots, the ring of long texts (`head`: bytes written so far, laps included),
/// and the targets seen, whose position is the tag in a key.
struct TextMemo {
    slots: Vec<TextSlot>,
    ring: Vec<u8>,
    head: u64,
    targets: Vec<u64>,
    /// The last target's key and tag (a print's targets mostly come in long runs).
    last: (u64, u8),
}

impl TextMemo {
    /// An empty memo (its slots are allocated at the first print).
    const fn new() -> TextMemo {
        TextMemo { slots: Vec::new(), ring: Vec::new(), head: 0, targets: Vec::new(), last: (0, 0) }
    }

    /// The tag of `target` in keys, from 1 (the memo is emptied when 255 targets were seen).
    #[inline]
    fn tag(&mut self, target: &Target) -> u8 {
        let key = target_key(target);
        if self.last.0 == key && self.last.1 != 0 {
            return self.last.1;
        }
        self.tag_slow(key)
    }

    #[cold]
    fn tag_slow(&mut self, key: u64) -> u8 {
        if self.slots.is_empty() {
            // SAFETY: all-zero bytes are a valid `TextSlot` (integers and byte arrays): an
            // empty slot. Untouched pages cost nothing.
            self.slots = unsafe { Box::<[TextSlot]>::new_zeroed_slice(TEXT_SLOTS).assume_init() }.into_vec();
        }
        let position = match self.targets.iter().position(|&t| t == key) {
            Some(p) => p,
            None => {
                if self.targets.len() == usize::from(u8::MAX) {
                    // Tags run out: start afresh.
                    self.slots.fill(TextSlot::EMPTY);
                    self.targets.clear();
                }
                self.targets.push(key);
                self.targets.len() - 1
            }
        };
        self.last = (key, position as u8 + 1);
        self.last.1
    }
}

/// 1 MiB of slots: 2^13 and 2^15 measured slower on librocrand (2026-12-06).
const TEXT_SLOTS: usize = 1 << 14;
/// (Small in tests, so that they wrap it many times.)
const TEXT_RING: usize = if cfg!(test) { 1 << 13 } else { 1 << 19 };

thread_local! {
    static TEXT_MEMO: RefCell<TextMemo> = const {
        RefCell::new(TextMemo::new())
    };
}

/// Empties this thread's text memo (so a benchmark run starts as cold as a first pass).
pub fn clear_text_memo() {
    TEXT_MEMO.with(|memo| *memo.borrow_mut() = TextMemo::new());
}

/// The slot of a key: multiplicative hashing of each part, mixed.
#[inline]
fn text_slot(key: &[u64; 3]) -> usize {
    let h = key[0].wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ key[1].wrapping_mul(0xc2b2_ae3d_27d4_eb4f)
        ^ key[2].wrapping_mul(0x1656_67b1_9e37_79f9);
    let h = (h ^ h >> 29).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h >> (64 - TEXT_SLOTS.trailing_zeros())) as usize
}

/// [`write_inst`] without the memo: decodes the operands and runs the encoding's print program.
pub fn write_inst_uncached(out: &mut String, inst: &Inst, target: &Target, address: u64) {
    let Some(encoding) = inst.encoding() else {
        let _ = write!(out, ".long 0x{:08x}", inst.words()[0]);
        return;
    };
    let word = inst.encoded_bits();
    let mut tail = [0u8; MAX_INST_BYTES];
    let trailing = inst.trailing_words();
    for (chunk, w) in tail.chunks_exact_mut(4).zip(trailing) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    let tail = &tail[..trailing.len() * 4];
    // One operand buffer per thread, reused (a fresh one when already in use).
    thread_local! {
        static OPS: RefCell<Operands> = const { RefCell::new(Operands::new()) };
    }
    let print_with_ops = |out: &mut String, ops: &mut Operands| {
        if decode_operands_into(encoding, word, tail, target, ops).is_err() {
            // The decoder accepted these bytes, so this cannot happen; print them as data.
            let _ = write!(out, ".long 0x{:08x}", inst.words()[0]);
            return;
        }
        // Image instructions print as the sibling record LLVM's convertMIMGInst switched to.
        let encoding = ops.converted.unwrap_or(encoding);
        let ctx = Ctx {
            inst,
            encoding,
            ops,
            target,
            address,
        };
        run(out, &ctx);
    };
    OPS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut ops) => print_with_ops(out, &mut ops),
        Err(_) => print_with_ops(out, &mut Operands::new()),
    });
}

/// The text of an instruction given as an encoding and its operands (what [`print()`] writes for
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
    run(&mut out, &ctx);
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

/// One step of a print program.
enum Step {
    /// Literal text (adjacent pieces, and `printVOPDst`'s suffix, merged into one).
    Text(Cow<'static, str>),
    /// Operand `index` printed by `method`; `module` remembers which printer family took it
    /// (0: not yet known). Whether a family takes a method depends only on the method and the
    /// operand's class, both fixed for the step. `format`: the MTBUF format follows.
    Operand { index: u8, method: &'static str, module: AtomicU8, format: bool },
    /// A register or constant printed by the common methods (`printOperand` on anything but a
    /// branch target, `printRegularOperand`, `printVOPDst`), with the `vcc`/`vcc_lo` operands
    /// and MTBUF format they print around it decided once for the record ([`value_flags`]).
    Value { index: u8, flags: u8 },
    /// An operand name the encoding does not have.
    Missing(&'static str),
}

/// [`Step::Value`] flags: `printOperand`'s implied VOPC `vcc` before the operand;
/// `printRegularOperand`'s default `vcc` after src1; `printVOPDst`'s carry-out `vcc` after the
/// destination; the MTBUF format after `soffset`.
const VCC_BEFORE: u8 = 1;
const VCC_AFTER_REGULAR: u8 = 2;
const VCC_AFTER_VDST: u8 = 4;
const FORMAT: u8 = 8;

/// Whether the MTBUF format follows operand `index` (see [`memory::print_after_operand`]).
fn format_after(encoding: &Encoding, index: usize) -> bool {
    encoding.flags.has(super::table::flag::MTBUF)
        && encoding.operands[index].name == super::table::OperandName::soffset
}

/// What a common print method (`printOperand`, `printRegularOperand`, `printVOPDst`) prints
/// around operand `index` of `encoding`, as [`Step::Value`] flags; None for other methods
/// (and for `printOperand` on a branch target, which the control-word printers take).
fn value_flags(encoding: &Encoding, index: usize, method: &str, class: OperandClass) -> Option<u8> {
    let mut flags = 0;
    match method {
        "" | "printOperand" if class != OperandClass::SOPPBrTarget => {
            if operand::vcc_before_operand(encoding, index) {
                flags |= VCC_BEFORE;
            }
        }
        "printRegularOperand" => {}
        "printVOPDst" => {
            if operand::vcc_after_vop_dst(encoding) {
                flags |= VCC_AFTER_VDST;
            }
        }
        _ => return None,
    }
    if operand::vcc_after_regular(encoding, index) {
        flags |= VCC_AFTER_REGULAR;
    }
    if format_after(encoding, index) {
        flags |= FORMAT;
    }
    Some(flags)
}

/// An encoding's AsmString, parsed once.
struct Program {
    steps: Box<[Step]>,
    /// Prints a branch target (depends on the instruction's address).
    uses_address: bool,
}

/// The print program of encoding `index`, compiled on first use.
fn program(index: u16) -> &'static Program {
    static PROGRAMS: OnceLock<Box<[OnceLock<Program>]>> = OnceLock::new();
    let programs = PROGRAMS.get_or_init(|| (0..encodings().len()).map(|_| OnceLock::new()).collect());
    programs[index as usize].get_or_init(|| compile(&encodings()[index as usize]))
}

/// Parses an AsmString: `$name` / `${name}` print operands, `{a|b}` picks variant 0's text.
fn compile(encoding: &'static Encoding) -> Program {
    let asm = encoding.asm;
    let bytes = asm.as_bytes();
    let mut steps = Vec::new();
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
                let name = name.split(':').next().unwrap_or(name);
                match encoding.operands.iter().position(|o| o.name.name() == name) {
                    Some(index) => {
                        let class = encoding.operands[index].class;
                        let method = class.info().print_method;
                        match value_flags(encoding, index, method, class) {
                            Some(flags) => {
                                if method == "printVOPDst" && index == 0 {
                                    steps.push(Step::Text(Cow::Borrowed(operand::vop_dst_prefix(encoding))));
                                }
                                steps.push(Step::Value { index: index as u8, flags });
                            }
                            None => steps.push(Step::Operand {
                                index: index as u8,
                                method,
                                module: AtomicU8::new(0),
                                format: format_after(encoding, index),
                            }),
                        }
                    }
                    None => steps.push(Step::Missing(name)),
                }
                i = next;
            }
            b'{' => {
                // Variant alternatives: `{a|b}` prints `a` (variant 0); `{a}` prints `a`.
                let end = asm[i + 1..].find('}').map_or(asm.len(), |e| i + 1 + e);
                let body = &asm[i + 1..end];
                steps.push(Step::Text(Cow::Borrowed(body.split('|').next().unwrap_or(""))));
                i = end + 1;
            }
            _ => {
                let start = i;
                while i < bytes.len() && bytes[i] != b'$' && bytes[i] != b'{' {
                    i += 1;
                }
                steps.push(Step::Text(Cow::Borrowed(&asm[start..i])));
            }
        }
    }
    // Adjacent literal pieces print as one.
    let mut merged: Vec<Step> = Vec::with_capacity(steps.len());
    for step in steps {
        match (merged.last_mut(), step) {
            (Some(Step::Text(prev)), Step::Text(text)) => prev.to_mut().push_str(&text),
            (_, Step::Text(text)) if text.is_empty() => {}
            (_, step) => merged.push(step),
        }
    }
    let uses_address = encoding.operands.iter().any(|o| o.class == OperandClass::SOPPBrTarget);
    Program { steps: merged.into_boxed_slice(), uses_address }
}

/// Runs the print program of `ctx.encoding`: the instruction's own record when it is the one
/// that prints (no index to look up), else the record reached by reference.
fn run(out: &mut String, ctx: &Ctx<'_>) {
    let index = match ctx.inst.encoding() {
        Some(own) if std::ptr::eq(own, ctx.encoding) => ctx.inst.encoding_index(),
        _ => table::index_of(ctx.encoding),
    };
    // Every `&'static Encoding` is a record of the tables.
    let Some(index) = index else {
        debug_assert!(false, "{} is not a record of the tables", ctx.encoding.record_name());
        return;
    };
    for step in program(index).steps.iter() {
        match step {
            Step::Text(text) => num::push_str(out, text),
            Step::Value { index, flags } => {
                let index = *index as usize;
                let flags = *flags;
                if flags & VCC_BEFORE != 0 {
                    operand::print_default_vcc(out, ctx, true);
                }
                match ctx.ops.as_slice().get(index) {
                    Some(op) => {
                        operand::print_value(out, ctx, index, op.value);
                        if flags & VCC_AFTER_REGULAR != 0 {
                            operand::print_default_vcc(out, ctx, index == 0);
                        }
                    }
                    None => {
                        let _ = write!(out, "/*Missing OP{index}*/");
                    }
                }
                if flags & VCC_AFTER_VDST != 0 {
                    operand::print_default_vcc(out, ctx, false);
                }
                if flags & FORMAT != 0 {
                    memory::print_symbolic_format(out, ctx);
                }
            }
            Step::Missing(name) => {
                let _ = write!(out, "<{name}?>");
            }
            Step::Operand { index, method, module, format } => {
                let index = *index as usize;
                match module.load(Ordering::Relaxed) {
                    0 => {
                        let m = dispatch_module(out, ctx, index, method);
                        module.store(m, Ordering::Relaxed);
                    }
                    m => {
                        let _ = print_with(m, out, ctx, index, method);
                    }
                }
                // LLVM's printRegularOperand prints the MTBUF format right after `soffset`.
                if *format {
                    memory::print_symbolic_format(out, ctx);
                }
            }
        }
    }
}

/// Routes a print method name to its implementation.
fn dispatch(out: &mut String, ctx: &Ctx<'_>, index: usize, method: &str) {
    dispatch_module(out, ctx, index, method);
}

/// [`dispatch`], saying which family printed the operand (see [`print_with`]).
fn dispatch_module(out: &mut String, ctx: &Ctx<'_>, index: usize, method: &str) -> u8 {
    for m in 1..=6 {
        if print_with(m, out, ctx, index, method) {
            return m;
        }
    }
    let _ = write!(out, "<{method}?>");
    7
}

/// Prints with one family: 1 named bit, 2 operands, 3 modifiers, 4 control words, 5 memory,
/// 6 DPP/SDWA, 7 none (the method is unknown).
fn print_with(module: u8, out: &mut String, ctx: &Ctx<'_>, index: usize, method: &str) -> bool {
    match module {
        1 => match method.strip_prefix("printNamedBit:") {
            Some(bit) => {
                operand::print_named_bit(out, ctx, index, bit);
                true
            }
            None => false,
        },
        2 => operand::print(out, ctx, index, method),
        3 => modifiers::print(out, ctx, index, method),
        4 => control::print(out, ctx, index, method),
        5 => memory::print(out, ctx, index, method),
        6 => dpp::print(out, ctx, index, method),
        _ => {
            let _ = write!(out, "<{method}?>");
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text memo gives what a fresh print gives: for repeats, for a second target with
    /// the same words, and after its ring of texts has wrapped (more than `TEXT_RING` bytes of
    /// distinct texts), where slots whose text was overwritten must miss, never show another
    /// instruction's text.
    #[test]
    fn text_memo_matches_fresh_print() {
        let mut next = crate::isa::xorshift64(0x0123_4567_89ab_cdef);
        let streams: Vec<[u8; 16]> = (0..12_000)
            .map(|_| {
                let mut b = [0u8; 16];
                b[..8].copy_from_slice(&next().to_le_bytes());
                b[8..].copy_from_slice(&next().to_le_bytes());
                b
            })
            .collect();
        clear_text_memo();
        let mut written = 0usize;
        for name in ["gfx900", "gfx90a", "gfx1030"] {
            let target = Target::from_name(name, "").unwrap();
            let decoder = crate::isa::Decoder::new(target);
            for pass in 0..3 {
                for (i, bytes) in streams.iter().enumerate() {
                    // Pass 1 repeats every instruction, pass 2 every third (slots and ring
                    // reused after the wrap).
                    if pass == 2 && i % 3 != 0 {
                        continue;
                    }
                    let inst = decoder.decode(bytes);
                    let (mut memo, mut fresh) = (String::from("> "), String::from("> "));
                    write_inst(&mut memo, &inst, &target, 0x100);
                    write_inst_uncached(&mut fresh, &inst, &target, 0x100);
                    assert_eq!(memo, fresh, "{name} {bytes:02x?}");
                    written += fresh.len();
                }
            }
        }
        assert!(written > 3 * TEXT_RING, "{written}");
        // Both kinds of slot were used, and the ring of long texts wrapped several times.
        TEXT_MEMO.with(|memo| {
            let memo = memo.borrow();
            let inline = memo.slots.iter().filter(|s| s.key != [0; 3] && usize::from(s.len) <= INLINE_TEXT).count();
            let in_ring = memo.slots.iter().filter(|s| s.key != [0; 3] && s.len == IN_RING).count();
            assert!(inline > 1000 && in_ring > 100, "{inline} inline, {in_ring} in the ring");
            assert!(memo.head > 3 * TEXT_RING as u64, "{}", memo.head);
        });
    }

    /// Texts shorter and longer than the inline limit (kept in the slot, and in the ring)
    /// come back whole when printed again.
    #[test]
    fn text_memo_keeps_texts_of_every_length() {
        let target = Target::from_name("gfx1100", "").unwrap();
        let decoder = crate::isa::Decoder::new(target);
        // `s_mov_b32 s0, <literal>`, `v_add_f32 v0, v1, v2`, `global_load_b128` with an offset
        // and `v_fma_f64` with 64-bit registers: 21 to 50-odd characters.
        let streams: [&[u8]; 4] = [
            &[0xff, 0x00, 0x80, 0xbe, 0x78, 0x56, 0x34, 0x12],
            &[0x01, 0x05, 0x00, 0x06],
            &[0x10, 0x00, 0x5e, 0xdc, 0x02, 0x00, 0x7c, 0x00],
            &[0x00, 0x00, 0x13, 0xd6, 0x02, 0x09, 0x1a, 0x04],
        ];
        clear_text_memo();
        let mut lengths = Vec::new();
        for round in 0..3 {
            for bytes in streams {
                let mut padded = bytes.to_vec();
                padded.resize(32, 0);
                let inst = decoder.decode(&padded);
                let (mut memo, mut fresh) = (String::new(), String::new());
                write_inst(&mut memo, &inst, &target, 0);
                write_inst_uncached(&mut fresh, &inst, &target, 0);
                assert_eq!(memo, fresh, "round {round}");
                lengths.push(fresh.len());
            }
        }
        assert!(lengths.iter().any(|&n| n <= INLINE_TEXT) && lengths.iter().any(|&n| n > INLINE_TEXT), "{lengths:?}");
    }

    /// Keys hold a one-byte tag per target: when 255 targets were seen, the memo starts afresh
    /// and texts stay right for targets tagged before and after.
    #[test]
    fn text_memo_starts_afresh_when_tags_run_out() {
        use crate::isa::target_id::FeatureSetting::*;
        let bytes: [u8; 32] = {
            let mut b = [0u8; 32];
            // `v_cndmask_b32 v0, v1, v2, vcc`: its text differs with the wave size.
            b[..4].copy_from_slice(&[0x01, 0x05, 0x00, 0x02]);
            b
        };
        clear_text_memo();
        let mut targets = Vec::new();
        for name in ["gfx900", "gfx90a", "gfx1030", "gfx1100", "gfx1200"] {
            let base = Target::from_name(name, "").unwrap();
            for wave64 in [false, true] {
                for xnack in [Unsupported, Any, Off, On] {
                    for sramecc in [Unsupported, Any, Off, On] {
                        for real_true16 in [false, true] {
                            targets.push(Target { wave64, xnack, sramecc, real_true16, ..base });
                        }
                    }
                }
            }
        }
        assert!(targets.len() > 255);
        let mut decoders = crate::isa::Decoders::default();
        let mut check = |target: &Target| {
            let inst = decoders.for_target(*target).decode(&bytes);
            for _ in 0..2 {
                let (mut memo, mut fresh) = (String::new(), String::new());
                write_inst(&mut memo, &inst, target, 0);
                write_inst_uncached(&mut fresh, &inst, target, 0);
                assert_eq!(memo, fresh, "{target:?}");
            }
        };
        targets.iter().for_each(&mut check);
        // The tags ran out once: fewer targets are known than were seen.
        let known = TEXT_MEMO.with(|memo| memo.borrow().targets.len());
        assert!(known < targets.len(), "{known}");
        targets.iter().take(40).for_each(&mut check);
    }
}
