//! Arbitrary bytes through the decoder, printer and operand decoder: no panic, every step
//! advances 4..=20 bytes, and `decode_operands` never fails for an instruction the decoder
//! returned. The property itself is `tests/robustness/mod.rs`, shared with the stable test
//! `tests/decode_robustness.rs`.
//!
//! The first input byte picks the target (index into `TARGETS`, modulo its length); the rest is
//! the instruction stream. `GFXPATCH_FUZZ_TARGET=<name>` (e.g. `gfx1100-w64-t16`) pins the
//! target: the first byte is then ignored, so one corpus format serves both ways.
#![no_main]

use std::cell::RefCell;
use std::sync::OnceLock;

use gfxpatch::isa::Decoder;
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/robustness/mod.rs"]
mod robustness;

use robustness::{check_stream, target, index_of, TARGETS};

fn pinned() -> Option<usize> {
    static PINNED: OnceLock<Option<usize>> = OnceLock::new();
    *PINNED.get_or_init(|| {
        let name = std::env::var("GFXPATCH_FUZZ_TARGET").ok().filter(|n| !n.is_empty())?;
        let index = index_of(&name).unwrap_or_else(|| {
            let names: Vec<&str> = TARGETS.iter().map(|t| t.0).collect();
            panic!("GFXPATCH_FUZZ_TARGET={name}: unknown; known: {}", names.join(" "))
        });
        eprintln!("decode_never_panics: target pinned to {name}");
        Some(index)
    })
}

thread_local! {
    // One decoder per target for the whole run (building one is the expensive part); its memo
    // is checked against fresh decodes on every instruction.
    static DECODERS: RefCell<Vec<Option<Decoder>>> = RefCell::new((0..TARGETS.len()).map(|_| None).collect());
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, stream)) = data.split_first() else { return };
    let index = pinned().unwrap_or(selector as usize % TARGETS.len());
    DECODERS.with_borrow_mut(|decoders| {
        let decoder = decoders[index].get_or_insert_with(|| Decoder::new(target(index)));
        check_stream(decoder, stream);
    });
});
