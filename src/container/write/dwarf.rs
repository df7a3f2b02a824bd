//! DWARF after a `.text` rewrite.
//!
//! Placeholder while the remapper lands: debug sections are left as they are when no code
//! address moves; otherwise they are refused (or stripped on request).

use std::collections::BTreeMap;

use super::elf::Remap;
use super::WriteError;
use crate::container::elf::CodeObject;

/// New contents for the debug sections that change, by section index, and notes for the user.
#[derive(Debug, Default)]
pub(super) struct DebugRemap {
    pub contents: BTreeMap<usize, Vec<u8>>,
    pub notes: Vec<String>,
}

pub(super) fn remap_debug_sections(object: &CodeObject, remap: &Remap, strip: bool) -> Result<DebugRemap, WriteError> {
    let moves = remap.shift != 0 || remap.map.is_some_and(|m| !m.is_identity());
    let debug: Vec<_> = object.sections.iter().filter(|s| s.name.starts_with(".debug_")).collect();
    if !moves || debug.is_empty() {
        return Ok(DebugRemap::default());
    }
    if !strip {
        return Err(WriteError::Dwarf {
            what: "debug info".into(),
            location: debug[0].name.into(),
            detail: "remapping DWARF is not implemented yet".into(),
        });
    }
    let mut out = DebugRemap::default();
    for s in debug {
        out.contents.insert(s.index, Vec::new());
    }
    out.notes.push("debug info stripped: remapping DWARF is not implemented yet".into());
    Ok(out)
}
