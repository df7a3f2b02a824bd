//! Arbitrary text through the parser (one instruction, and a file with labels): no panic, and
//! every instruction it accepts prints back as text that parses to the same bytes.
//!
//! The first input byte picks the target (gfx803, gfx900, gfx90a, gfx1030, gfx1100 wave64,
//! gfx1200, gfx950, gfx1250); the rest, as UTF-8 (lossy), is the text.
#![no_main]

use std::cell::RefCell;

use gfxpatch::isa::parse::{assemble_file, Parser};
use gfxpatch::isa::{print, Target};
use libfuzzer_sys::fuzz_target;

const TARGETS: [(&str, &str); 8] = [
    ("gfx803", ""),
    ("gfx900", ""),
    ("gfx90a", ""),
    ("gfx1030", ""),
    ("gfx1100", "+wavefrontsize64"),
    ("gfx1200", ""),
    ("gfx950", ""),
    ("gfx1250", ""),
];

thread_local! {
    static PARSERS: RefCell<Vec<Option<Parser>>> = RefCell::new((0..TARGETS.len()).map(|_| None).collect());
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let index = pick as usize % TARGETS.len();
    let text = String::from_utf8_lossy(rest);
    PARSERS.with(|parsers| {
        let mut parsers = parsers.borrow_mut();
        let (name, mattr) = TARGETS[index];
        let parser = parsers[index].get_or_insert_with(|| Parser::new(Target::from_name(name, mattr).unwrap()));
        if let Ok(parsed) = parser.parse(&text) {
            let again = print::print(&parsed.inst, parser.target(), 0);
            let reparsed = parser.parse(&again).unwrap_or_else(|e| panic!("{text:?} parsed, its print {again:?} does not: {e}"));
            assert_eq!(reparsed.inst.bytes(), parsed.inst.bytes(), "{text:?} -> {again:?}");
        }
        let _ = assemble_file(parser, &text);
    });
});
