//! Arbitrary bytes through the container layer: `Input::parse` (bare code object, plain or
//! compressed offload bundle, host library with `.hip_fatbin`) and `CodeObject::parse` on every
//! embedded object never panic; errors are fine.
#![no_main]

use gfxpatch::container::bundle::DecompressLimits;
use gfxpatch::container::{CodeObject, Input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = DecompressLimits::default();
    let Ok(input) = Input::parse(data, &limits) else { return };
    for object in &input.objects {
        if let Ok(co) = CodeObject::parse(&object.bytes) {
            // Touch what the parse computed, as `gfxpatch info` does.
            let _ = (co.text_size(), co.functions().count(), co.text_sections().count());
        }
    }
});
