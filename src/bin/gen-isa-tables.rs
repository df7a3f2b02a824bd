//! Regenerates `src/isa/tables.rs` from `src/isa/data` (see `src/isa/tablegen`).
//!
//! The generator is compiled into this binary directly rather than through the library, so
//! that a stale or broken `tables.rs` never stops it from being rebuilt.

#[path = "../isa/tablegen/mod.rs"]
#[allow(dead_code)]
mod tablegen;

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = tablegen::generate(&root.join("src/isa/data")).unwrap_or_else(|e| {
        eprintln!("gen-isa-tables: {e}");
        std::process::exit(2);
    });
    let out = root.join("src/isa/tables.rs");
    let tmp = out.with_extension("rs.tmp");
    std::fs::write(&tmp, &source)
        .and_then(|()| std::fs::rename(&tmp, &out))
        .unwrap_or_else(|e| {
            eprintln!("gen-isa-tables: {}: {e}", out.display());
            std::process::exit(2);
        });
    eprintln!("wrote {} ({} bytes)", out.display(), source.len());
}
