//! The decoder's robustness property, shared by `tests/decode_robustness.rs` (deterministic
//! pseudo-random streams on stable) and the `decode_never_panics` fuzz target (`fuzz/`), which
//! includes this file by path.
//!
//! For any byte stream, decoding instruction by instruction:
//! - never panics (decode, print, operand decoding);
//! - each step advances by 4..=20 bytes, and a decoded (non-raw) instruction lies within the
//!   stream and keeps exactly the bytes it was read from;
//! - `decode_operands` on the instruction's own encoded bits and trailing bytes never fails for
//!   an instruction the decoder returned, and consumes exactly its trailing bytes;
//! - the decoder's memo changes nothing: `decode` equals `decode_uncached`;
//! - the printer's text memo changes nothing: `print` equals `write_inst_uncached`;
//! - `Decoder::sweep` (two cursors on 2 KiB and more) gives the same instructions.
#![allow(dead_code)]

use gfxpatch::isa::inst::MAX_INST_BYTES;
use gfxpatch::isa::operand::decode_operands;
use gfxpatch::isa::print::{print, write_inst_uncached};
use gfxpatch::isa::{Decoder, Target};

/// Every decoding mode the property is checked for: (name, processor, `-mattr`).
/// The fuzz target's first input byte indexes this table (modulo its length).
pub const TARGETS: &[(&str, &str, &str)] = &[
    ("gfx803", "gfx803", ""),
    ("gfx900", "gfx900", ""),
    ("gfx906", "gfx906", ""),
    ("gfx908", "gfx908", ""),
    ("gfx90a", "gfx90a", ""),
    ("gfx942", "gfx942", ""),
    ("gfx950", "gfx950", ""),
    ("gfx1010-w32", "gfx1010", "+wavefrontsize32"),
    ("gfx1010-w64", "gfx1010", "+wavefrontsize64"),
    ("gfx1030-w32", "gfx1030", "+wavefrontsize32"),
    ("gfx1030-w64", "gfx1030", "+wavefrontsize64"),
    ("gfx1100-w32", "gfx1100", "+wavefrontsize32"),
    ("gfx1100-w64", "gfx1100", "+wavefrontsize64"),
    (
        "gfx1100-w32-t16",
        "gfx1100",
        "+wavefrontsize32,+real-true16",
    ),
    (
        "gfx1100-w64-t16",
        "gfx1100",
        "+wavefrontsize64,+real-true16",
    ),
    ("gfx1151-w32", "gfx1151", "+wavefrontsize32"),
    ("gfx1151-w64", "gfx1151", "+wavefrontsize64"),
    (
        "gfx1151-w32-t16",
        "gfx1151",
        "+wavefrontsize32,+real-true16",
    ),
    (
        "gfx1151-w64-t16",
        "gfx1151",
        "+wavefrontsize64,+real-true16",
    ),
    ("gfx1200-w32", "gfx1200", "+wavefrontsize32"),
    ("gfx1200-w64", "gfx1200", "+wavefrontsize64"),
    (
        "gfx1200-w32-t16",
        "gfx1200",
        "+wavefrontsize32,+real-true16",
    ),
    (
        "gfx1200-w64-t16",
        "gfx1200",
        "+wavefrontsize64,+real-true16",
    ),
    ("gfx1201-w32", "gfx1201", "+wavefrontsize32"),
    ("gfx1201-w64", "gfx1201", "+wavefrontsize64"),
    (
        "gfx1201-w32-t16",
        "gfx1201",
        "+wavefrontsize32,+real-true16",
    ),
    (
        "gfx1201-w64-t16",
        "gfx1201",
        "+wavefrontsize64,+real-true16",
    ),
    ("gfx1250-w32", "gfx1250", "+wavefrontsize32"),
    ("gfx1250-w64", "gfx1250", "+wavefrontsize64"),
    (
        "gfx1250-w32-t16",
        "gfx1250",
        "+wavefrontsize32,+real-true16",
    ),
    (
        "gfx1250-w64-t16",
        "gfx1250",
        "+wavefrontsize64,+real-true16",
    ),
];

/// The target of row `index` of [`TARGETS`].
pub fn target(index: usize) -> Target {
    let (name, cpu, mattr) = TARGETS[index];
    Target::from_name(cpu, mattr).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Index of the row named `name` in [`TARGETS`].
pub fn index_of(name: &str) -> Option<usize> {
    TARGETS.iter().position(|(n, _, _)| *n == name)
}

/// What one stream decoded to.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    pub decoded: usize,
    pub raw: usize,
}

/// Decodes `bytes` instruction by instruction with `decoder`, printing each instruction and
/// decoding its operands, and asserts the property above. Panics on any violation.
pub fn check_stream(decoder: &Decoder, bytes: &[u8]) -> Counts {
    let target = *decoder.target();
    let mut counts = Counts::default();
    let mut swept = Vec::new();
    let mut offset = 0;
    while offset < bytes.len() {
        let rest = &bytes[offset..];
        let inst = decoder.decode(rest);
        let fresh = decoder.decode_uncached(rest);
        assert_eq!(
            inst, fresh,
            "{target} at {offset:#x}: memoised decode differs from a fresh one"
        );
        let len = inst.len();
        assert!(
            (4..=MAX_INST_BYTES).contains(&len),
            "{target} at {offset:#x}: {inst:?} advances {len} bytes"
        );
        // Always exercised, raw words included.
        let text = print(&inst, &target, offset as u64);
        let mut fresh_text = String::new();
        write_inst_uncached(&mut fresh_text, &inst, &target, offset as u64);
        assert_eq!(
            text, fresh_text,
            "{target} at {offset:#x}: {inst:?}: the text memo's text differs from a fresh print"
        );
        if let Some(encoding) = inst.encoding() {
            counts.decoded += 1;
            assert!(
                len <= rest.len(),
                "{target} at {offset:#x}: {inst:?} runs past the stream ({} bytes left)",
                rest.len()
            );
            assert_eq!(
                inst.bytes(),
                &rest[..len],
                "{target} at {offset:#x}: {inst:?} does not keep its bytes"
            );
            let tail: Vec<u8> = inst
                .trailing_words()
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            let ops = decode_operands(encoding, inst.encoded_bits(), &tail, &target)
                .unwrap_or_else(|e| {
                    panic!(
                        "{target} at {offset:#x}: decode_operands fails on {inst:?} ({}): {e:?}",
                        encoding.record_name()
                    )
                });
            // The length is the encoded bits, or up to the end of the literal where LLVM 22
            // reads it from inside them (GFX1250's 64-bit literal forms, `Inst::tail_at`).
            assert_eq!(
                (encoding.bits as usize / 8).max(inst.tail_at() + ops.extra_bytes as usize),
                len,
                "{target} at {offset:#x}: {inst:?} ({}) has {} trailing bytes but its operands consume {}",
                encoding.record_name(),
                tail.len(),
                ops.extra_bytes
            );
            assert!(
                !text.starts_with(".long"),
                "{target} at {offset:#x}: {inst:?} decoded but prints as data: {text}"
            );
        } else {
            counts.raw += 1;
        }
        swept.push((offset, inst));
        offset += len;
    }
    // The two-cursor sweep (used on ranges of 2 KiB and more) is the same linear sweep.
    let mut two_cursors = Vec::new();
    decoder.sweep(bytes, 0..bytes.len(), &mut two_cursors);
    assert!(two_cursors == swept, "{target}: Decoder::sweep differs from a one-cursor sweep of {} bytes", bytes.len());
    counts
}
