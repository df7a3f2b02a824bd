//! Source lines for the map file: each probed block's `file:line` from the code object's
//! `.debug_line`, read with gimli. Lines annotate; they never decide anything, so DWARF that
//! cannot be read gives no lines rather than an error (the writer, which must update it,
//! refuses such DWARF on its own terms).

use gimli::{EndianSlice, LittleEndian};

use crate::container::CodeObject;

type R<'d> = EndianSlice<'d, LittleEndian>;

/// One row of a line program: from `address` on, the code is `files[file]:line`; `line` 0 is
/// code the compiler attributes to no line, and an end-of-sequence row ends the previous one.
#[derive(Clone, Copy, Debug)]
struct Row {
    address: u64,
    file: u32,
    line: u32,
    end_sequence: bool,
}

/// The rows of every line program of an object, by address.
#[derive(Debug, Default)]
pub struct LineTable {
    rows: Vec<Row>,
    files: Vec<String>,
}

impl LineTable {
    /// The object's line table; empty without `.debug_line` or when it cannot be read.
    pub fn of(object: &CodeObject<'_>) -> LineTable {
        if !object.sections.iter().any(|s| s.name == ".debug_line" && s.size > 0) {
            return LineTable::default();
        }
        read(object).unwrap_or_default()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// `file:line` of the block at `[start, start + len)`: the line its first instruction
    /// belongs to, or when that is line 0, the first nonzero line inside the block.
    pub fn block(&self, start: u64, len: u64) -> Option<String> {
        let at = self.rows.partition_point(|r| r.address <= start);
        let covering = at.checked_sub(1).map(|i| self.rows[i]).filter(|r| !r.end_sequence && r.line != 0);
        let row = covering.or_else(|| self.rows[at..].iter().take_while(|r| r.address < start + len).find(|r| !r.end_sequence && r.line != 0).copied())?;
        Some(format!("{}:{}", self.files[row.file as usize], row.line))
    }
}

fn read(object: &CodeObject<'_>) -> Result<LineTable, gimli::Error> {
    let load = |id: gimli::SectionId| -> Result<R<'_>, gimli::Error> {
        Ok(EndianSlice::new(object.section_bytes(id.name()), LittleEndian))
    };
    let dwarf = gimli::Dwarf::load(load)?;
    let mut table = LineTable::default();
    let mut names: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut units = dwarf.units();
    while let Some(header) = units.next()? {
        let unit = dwarf.unit(header)?;
        let Some(program) = unit.line_program.clone() else { continue };
        let mut rows = program.rows();
        while let Some((header, row)) = rows.next_row()? {
            let file = match row.file(header) {
                Some(entry) => {
                    let name = dwarf.attr_string(&unit, entry.path_name())?.to_string_lossy().into_owned();
                    let path = match entry.directory(header) {
                        Some(dir) if !name.starts_with('/') => {
                            let dir = dwarf.attr_string(&unit, dir)?.to_string_lossy().into_owned();
                            if dir.is_empty() { name } else { format!("{dir}/{name}") }
                        }
                        _ => name,
                    };
                    let next = names.len() as u32;
                    *names.entry(path.clone()).or_insert_with(|| {
                        table.files.push(path);
                        next
                    })
                }
                None => u32::MAX,
            };
            let line = row.line().map_or(0, |l| l.get() as u32);
            let line = if file == u32::MAX { 0 } else { line };
            table.rows.push(Row { address: row.address(), file: if file == u32::MAX { 0 } else { file }, line, end_sequence: row.end_sequence() });
        }
    }
    // Stable: at one address an end of sequence stays before the start of the next.
    table.rows.sort_by_key(|r| (r.address, !r.end_sequence));
    Ok(table)
}
