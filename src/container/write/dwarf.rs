//! DWARF after a `.text` rewrite: every code address the debug sections hold is moved through
//! the address map, every data address by the shift.
//!
//! What is remapped, and how:
//! * `.debug_addr`, `.debug_aranges`: addresses (and lengths) patched in place.
//! * `.debug_info`: `DW_FORM_addr` values, `DW_AT_high_pc` lengths (same width), `DW_OP_addr`
//!   in expressions, and the section offsets into `.debug_line`, `.debug_rnglists` and
//!   `.debug_loclists` (which may have moved, see below). Read with `gimli`.
//! * `.debug_line`: each line program is re-emitted opcode for opcode; only the address
//!   advances change (a special opcode whose new advance does not fit becomes
//!   `DW_LNS_advance_pc` plus a special opcode without advance), so the program may grow.
//! * `.debug_rnglists`, `.debug_loclists` (DWARF 5): re-encoded entry by entry, offset pairs and
//!   lengths recomputed from the mapped ends; offset tables and references follow.
//! * `.debug_frame`: FDE ranges patched in place; an address advance inside an FDE is patched
//!   if its new value fits the same opcode.
//!
//! Anything else that holds a code address (DWARF 4 `.debug_ranges`/`.debug_loc`, 64-bit DWARF,
//! VLIW line programs, an address inside `.text` that is not an instruction boundary) is
//! refused with its section and offset, or, with `strip_debug_on_failure`, every debug section
//! is emptied (headers kept, so section indices stay valid) and a note says why.

use std::collections::BTreeMap;

use gimli::{EndianSlice, LittleEndian, Reader as _};

use super::elf::Remap;
use super::WriteError;
use crate::container::elf::CodeObject;

/// New contents for the debug sections that change, by section index, and notes for the user.
#[derive(Debug, Default)]
pub(super) struct DebugRemap {
    pub contents: BTreeMap<usize, Vec<u8>>,
    pub notes: Vec<String>,
}

type R<'d> = EndianSlice<'d, LittleEndian>;

pub(super) fn remap_debug_sections(object: &CodeObject, remap: &Remap, strip: bool) -> Result<DebugRemap, WriteError> {
    let moves = remap.shift != 0 || remap.map.is_some_and(|m| !m.is_identity());
    let debug: Vec<_> = object.sections.iter().filter(|s| s.name.starts_with(".debug_") && s.has_file_bytes()).collect();
    if !moves || debug.is_empty() {
        return Ok(DebugRemap::default());
    }
    match Remapper::new(object, remap).and_then(|r| r.run()) {
        Ok(contents) => Ok(DebugRemap { contents, notes: Vec::new() }),
        Err(e) if strip => {
            let contents = debug.iter().map(|s| (s.index, Vec::new())).collect();
            Ok(DebugRemap { contents, notes: vec![format!("debug info stripped (sections emptied): {e}")] })
        }
        Err(e) => Err(e),
    }
}

fn dwarf_error(what: &str, location: String, detail: impl Into<String>) -> WriteError {
    WriteError::Dwarf { what: what.to_owned(), location, detail: detail.into() }
}

fn gimli_error(section: &str, e: gimli::Error) -> WriteError {
    dwarf_error("DWARF", section.to_owned(), format!("cannot be read: {e}"))
}

/// What each compilation unit needs for lists: its base address and `*_base` attributes.
#[derive(Clone, Copy, Debug)]
struct UnitBases {
    low_pc: u64,
    addr_base: usize,
    rnglists_base: usize,
    loclists_base: usize,
}

struct Remapper<'a, 'd> {
    object: &'a CodeObject<'d>,
    remap: &'a Remap<'a>,
    dwarf: gimli::Dwarf<R<'d>>,
    units: Vec<UnitBases>,
}

impl<'a, 'd> Remapper<'a, 'd> {
    fn new(object: &'a CodeObject<'d>, remap: &'a Remap<'a>) -> Result<Self, WriteError> {
        let load = |id: gimli::SectionId| -> Result<R<'d>, gimli::Error> {
            Ok(EndianSlice::new(object.section_bytes(id.name()), LittleEndian))
        };
        let dwarf = gimli::Dwarf::load(load).map_err(|e| gimli_error("debug sections", e))?;
        let mut units = Vec::new();
        let mut headers = dwarf.units();
        while let Some(header) = headers.next().map_err(|e| gimli_error(".debug_info", e))? {
            if header.format() == gimli::Format::Dwarf64 {
                return Err(dwarf_error("64-bit DWARF unit", format!(".debug_info+{:#x}", info_offset(&header)), "not supported"));
            }
            let unit = dwarf.unit(header).map_err(|e| gimli_error(".debug_info", e))?;
            units.push(UnitBases {
                low_pc: unit.low_pc,
                addr_base: unit.addr_base.0,
                rnglists_base: unit.rnglists_base.0,
                loclists_base: unit.loclists_base.0,
            });
        }
        for name in [".debug_types", ".debug_pubnames", ".debug_names"] {
            if object.sections.iter().any(|s| s.name == name && s.size > 0) {
                return Err(dwarf_error(name, name.to_owned(), "this section is not remapped yet"));
            }
        }
        Ok(Remapper { object, remap, dwarf, units })
    }

    fn section(&self, name: &str) -> Option<(usize, &'d [u8])> {
        self.object
            .sections
            .iter()
            .find(|s| s.name == name && s.has_file_bytes())
            .map(|s| (s.index, &self.object.data[s.offset as usize..(s.offset + s.size) as usize]))
    }

    fn address(&self, address: u64, location: impl FnOnce() -> String) -> Result<u64, WriteError> {
        self.remap.address(address, location)
    }

    /// The old address at `index` of the unit's address table.
    fn indexed_address(&self, unit: &UnitBases, index: u64, at: impl Fn() -> String) -> Result<u64, WriteError> {
        let (_, addr) = self.section(".debug_addr").ok_or_else(|| dwarf_error("address index", at(), "no .debug_addr"))?;
        let start = unit.addr_base + index as usize * 8;
        addr.get(start..start + 8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
            .ok_or_else(|| dwarf_error("address index", at(), format!("index {index} is past .debug_addr")))
    }

    fn run(self) -> Result<BTreeMap<usize, Vec<u8>>, WriteError> {
        let mut out = BTreeMap::new();
        let mut line_offsets = Offsets::default();
        if let Some((index, bytes)) = self.section(".debug_line") {
            let (contents, offsets) = self.line_programs(bytes)?;
            line_offsets = offsets;
            out.insert(index, contents);
        }
        let mut list_offsets: [Offsets; 2] = Default::default();
        for (k, (name, loc)) in [(".debug_rnglists", false), (".debug_loclists", true)].into_iter().enumerate() {
            if let Some((index, bytes)) = self.section(name) {
                let (contents, offsets) = self.lists(name, bytes, loc)?;
                list_offsets[k] = offsets;
                out.insert(index, contents);
            }
        }
        let mut v4_lists = Vec::new();
        if let Some((index, bytes)) = self.section(".debug_info") {
            out.insert(index, self.info(bytes, &line_offsets, &list_offsets, &mut v4_lists)?);
        }
        for (name, locations) in [(".debug_ranges", false), (".debug_loc", true)] {
            let refs: Vec<(usize, u64)> = v4_lists.iter().filter(|r| r.0 == locations).map(|r| (r.1, r.2)).collect();
            match self.section(name) {
                Some((index, bytes)) => {
                    out.insert(index, self.v4_lists(name, bytes, &refs, locations)?);
                }
                None if !refs.is_empty() => {
                    return Err(dwarf_error("DWARF 4 list reference", format!("{name}+{:#x}", refs[0].0), format!("there is no {name} section")));
                }
                None => {}
            }
        }
        if let Some((index, bytes)) = self.section(".debug_addr") {
            out.insert(index, self.addr(bytes)?);
        }
        if let Some((index, bytes)) = self.section(".debug_aranges") {
            out.insert(index, self.aranges(bytes)?);
        }
        if let Some((index, bytes)) = self.section(".debug_frame") {
            out.insert(index, self.frame(bytes)?);
        }
        // Sections that did not change are left to be copied.
        out.retain(|&i, contents| {
            let s = &self.object.sections[i];
            contents.as_slice() != &self.object.data[s.offset as usize..(s.offset + s.size) as usize]
        });
        Ok(out)
    }

    /// `.debug_addr` (DWARF 5): 8-byte addresses after each contribution's 8-byte header.
    fn addr(&self, bytes: &[u8]) -> Result<Vec<u8>, WriteError> {
        let mut out = bytes.to_vec();
        let mut at = 0usize;
        while at < bytes.len() {
            let length = read_u32(bytes, at, ".debug_addr")? as usize;
            if length >= 0xffff_fff0 {
                return Err(dwarf_error("64-bit .debug_addr contribution", format!(".debug_addr+{at:#x}"), "not supported"));
            }
            let end = at + 4 + length;
            let (address_size, segment_size) = (bytes.get(at + 6).copied(), bytes.get(at + 7).copied());
            if address_size != Some(8) || segment_size != Some(0) {
                return Err(dwarf_error(".debug_addr contribution", format!(".debug_addr+{at:#x}"), "not 8-byte addresses without segments"));
            }
            let mut p = at + 8;
            while p + 8 <= end.min(bytes.len()) {
                let old = u64::from_le_bytes(bytes[p..p + 8].try_into().unwrap());
                let new = self.address(old, || format!(".debug_addr+{p:#x}"))?;
                out[p..p + 8].copy_from_slice(&new.to_le_bytes());
                p += 8;
            }
            at = end;
        }
        Ok(out)
    }

    /// `.debug_aranges`: (address, length) tuples after a header padded to twice the address size.
    fn aranges(&self, bytes: &[u8]) -> Result<Vec<u8>, WriteError> {
        let mut out = bytes.to_vec();
        let mut at = 0usize;
        while at < bytes.len() {
            let length = read_u32(bytes, at, ".debug_aranges")? as usize;
            if length >= 0xffff_fff0 || bytes.get(at + 10) != Some(&8) || bytes.get(at + 11) != Some(&0) {
                return Err(dwarf_error(".debug_aranges set", format!(".debug_aranges+{at:#x}"), "only 32-bit DWARF with 8-byte addresses"));
            }
            let end = at + 4 + length;
            let mut p = at + 16; // 12-byte header padded to 16
            while p + 16 <= end.min(bytes.len()) {
                let start = u64::from_le_bytes(bytes[p..p + 8].try_into().unwrap());
                let len = u64::from_le_bytes(bytes[p + 8..p + 16].try_into().unwrap());
                if start != 0 || len != 0 {
                    let (s, e) = self.range(start, len, || format!(".debug_aranges+{p:#x}"))?;
                    out[p..p + 8].copy_from_slice(&s.to_le_bytes());
                    out[p + 8..p + 16].copy_from_slice(&(e - s).to_le_bytes());
                }
                p += 16;
            }
            at = end;
        }
        Ok(out)
    }

    /// New start and end of the old range `start..start+len`.
    fn range(&self, start: u64, len: u64, at: impl Fn() -> String) -> Result<(u64, u64), WriteError> {
        let s = self.address(start, &at)?;
        let e = if len == 0 { s } else { self.address(start + len, &at)? };
        Ok((s, e))
    }

    /// `.debug_frame`: FDE `initial_location`/`address_range`, and advances inside FDEs.
    fn frame(&self, bytes: &[u8]) -> Result<Vec<u8>, WriteError> {
        let mut out = bytes.to_vec();
        let mut at = 0usize;
        // Code alignment factor of each CIE, by offset.
        let mut cies: BTreeMap<usize, u64> = BTreeMap::new();
        while at + 4 <= bytes.len() {
            let length = read_u32(bytes, at, ".debug_frame")? as usize;
            if length == 0 {
                at += 4;
                continue;
            }
            if length >= 0xffff_fff0 {
                return Err(dwarf_error("64-bit .debug_frame entry", format!(".debug_frame+{at:#x}"), "not supported"));
            }
            let end = at + 4 + length;
            let id = read_u32(bytes, at + 4, ".debug_frame")?;
            let location = || format!(".debug_frame+{at:#x}");
            if id == 0xffff_ffff {
                let mut r = EndianSlice::new(bytes.get(at + 8..end).unwrap_or_default(), LittleEndian);
                let cie = (|| -> gimli::Result<u64> {
                    let version = r.read_u8()?;
                    let augmentation = r.read_null_terminated_slice()?;
                    if !augmentation.is_empty() {
                        return Err(gimli::Error::UnknownAugmentation);
                    }
                    if version >= 4 {
                        r.read_u8()?;
                        r.read_u8()?;
                    }
                    r.read_uleb128()
                })()
                .map_err(|e| dwarf_error("CIE", location(), e.to_string()))?;
                cies.insert(at, cie);
            } else {
                let factor = *cies
                    .get(&(id as usize))
                    .ok_or_else(|| dwarf_error("FDE", location(), format!("its CIE pointer {id:#x} names no CIE seen before it")))?;
                let start = read_u64(bytes, at + 8, ".debug_frame")?;
                let len = read_u64(bytes, at + 16, ".debug_frame")?;
                let (s, e) = self.range(start, len, location)?;
                out[at + 8..at + 16].copy_from_slice(&s.to_le_bytes());
                out[at + 16..at + 24].copy_from_slice(&(e - s).to_le_bytes());
                self.frame_instructions(bytes, &mut out, at + 24, end, start, factor)?;
            }
            at = end;
        }
        Ok(out)
    }

    /// Re-targets the address advances of one FDE's instructions in place.
    fn frame_instructions(&self, bytes: &[u8], out: &mut [u8], from: usize, end: usize, start: u64, factor: u64) -> Result<(), WriteError> {
        let mut p = from;
        let (mut old, mut new) = (start, self.address(start, String::new)?);
        let location = |p: usize| format!(".debug_frame+{p:#x}");
        while p < end {
            let op = bytes[p];
            let (advance, width) = match op >> 6 {
                1 => (u64::from(op & 0x3f) * factor, 0usize),
                2 => {
                    p = skip_uleb(bytes, p + 1);
                    continue;
                }
                3 => {
                    p += 1;
                    continue;
                }
                _ => match op {
                    0x02 => (u64::from(bytes[p + 1]) * factor, 1),
                    0x03 => (u64::from(u16::from_le_bytes([bytes[p + 1], bytes[p + 2]])) * factor, 2),
                    0x04 => (u64::from(read_u32(bytes, p + 1, ".debug_frame")?) * factor, 4),
                    0x01 => return Err(dwarf_error("DW_CFA_set_loc", location(p), "not supported")),
                    _ => {
                        p = skip_cfa_operands(bytes, p, end).ok_or_else(|| dwarf_error("call frame instruction", location(p), format!("unknown opcode {op:#x}")))?;
                        continue;
                    }
                },
            };
            old += advance;
            let target = self.address(old, || location(p))?;
            let delta = target - new;
            if delta % factor != 0 {
                return Err(dwarf_error("call frame advance", location(p), "the new advance is not a multiple of the code alignment factor"));
            }
            let units = delta / factor;
            let fits = match width {
                0 => units < 0x40,
                1 => units <= 0xff,
                2 => units <= 0xffff,
                _ => units <= 0xffff_ffff,
            };
            if !fits {
                return Err(dwarf_error("call frame advance", location(p), format!("the new advance of {delta} bytes does not fit the same opcode")));
            }
            match width {
                0 => out[p] = 0x40 | units as u8,
                1 => out[p + 1] = units as u8,
                2 => out[p + 1..p + 3].copy_from_slice(&(units as u16).to_le_bytes()),
                _ => out[p + 1..p + 5].copy_from_slice(&(units as u32).to_le_bytes()),
            }
            new = target;
            p += 1 + width;
        }
        Ok(())
    }

    /// Re-emits every line program; returns the section and old -> new program offsets.
    fn line_programs(&self, bytes: &[u8]) -> Result<(Vec<u8>, Offsets), WriteError> {
        let mut out = Vec::with_capacity(bytes.len() + 64);
        let mut offsets = Offsets::default();
        let mut at = 0usize;
        while at < bytes.len() {
            offsets.insert(at, out.len());
            let end = self.line_program(bytes, at, &mut out)?;
            at = end;
        }
        Ok((out, offsets))
    }

    fn line_program(&self, bytes: &[u8], at: usize, out: &mut Vec<u8>) -> Result<usize, WriteError> {
        let location = |p: usize| format!(".debug_line+{p:#x}");
        let err = |p: usize, detail: &str| dwarf_error("line program", location(p), detail);
        let length = read_u32(bytes, at, ".debug_line")? as usize;
        if length >= 0xffff_fff0 {
            return Err(err(at, "64-bit DWARF is not supported"));
        }
        let end = at + 4 + length;
        if end > bytes.len() {
            return Err(err(at, "its length runs past the section"));
        }
        let version = u16::from_le_bytes([bytes[at + 4], bytes[at + 5]]);
        let mut p = at + 6;
        if version >= 5 {
            if bytes[p] != 8 || bytes[p + 1] != 0 {
                return Err(err(at, "only 8-byte addresses without segment selectors"));
            }
            p += 2;
        }
        if !(2..=5).contains(&version) {
            return Err(err(at, &format!("version {version} is not supported")));
        }
        let header_length = read_u32(bytes, p, ".debug_line")? as usize;
        let program = p + 4 + header_length;
        p += 4;
        let min_inst = u64::from(bytes[p]);
        p += 1;
        if version >= 4 {
            if bytes[p] != 1 {
                return Err(err(at, "VLIW line programs (maximum_operations_per_instruction > 1) are not supported"));
            }
            p += 1;
        }
        let line_range = u64::from(bytes[p + 2]);
        let opcode_base = bytes[p + 3];
        let standard_lengths = &bytes[p + 4..p + 4 + opcode_base.saturating_sub(1) as usize];
        if line_range == 0 || min_inst == 0 {
            return Err(err(at, "line_range or minimum_instruction_length is zero"));
        }
        let start = out.len();
        out.extend_from_slice(&bytes[at..program]);

        let (mut old, mut new) = (0u64, 0u64);
        let mut p = program;
        // Moves the new program's address to where the old row was, before a row is emitted.
        let catch_up = |out: &mut Vec<u8>, old: u64, new: &mut u64, p: usize| -> Result<(), WriteError> {
            let target = self.address(old, || location(p))?;
            if target < *new {
                return Err(err(p, "addresses go backwards within a sequence"));
            }
            let delta = target - *new;
            if delta.is_multiple_of(min_inst) {
                if delta > 0 {
                    out.push(gimli::constants::DW_LNS_advance_pc.0);
                    write_uleb(out, delta / min_inst);
                }
            } else {
                set_address(out, target);
            }
            *new = target;
            Ok(())
        };
        while p < end {
            let op = bytes[p];
            if op >= opcode_base {
                let adjusted = u64::from(op - opcode_base);
                old += (adjusted / line_range) * min_inst;
                let line_advance = adjusted % line_range;
                let target = self.address(old, || location(p))?;
                let delta = target.checked_sub(new).ok_or_else(|| err(p, "addresses go backwards within a sequence"))?;
                let special = (delta % min_inst == 0)
                    .then(|| line_advance + line_range * (delta / min_inst) + u64::from(opcode_base))
                    .filter(|&s| s <= 255);
                match special {
                    Some(s) => out.push(s as u8),
                    None => {
                        catch_up(out, old, &mut new, p)?;
                        out.push((line_advance + u64::from(opcode_base)) as u8);
                    }
                }
                new = target;
                p += 1;
                continue;
            }
            match op {
                0 => {
                    let (len, q) = read_uleb(bytes, p + 1).ok_or_else(|| err(p, "truncated extended opcode"))?;
                    let next = q + len as usize;
                    match bytes.get(q).copied() {
                        Some(1) => {
                            // DW_LNE_end_sequence: the row at the end address, then a fresh state.
                            catch_up(out, old, &mut new, p)?;
                            out.extend_from_slice(&bytes[p..next]);
                            (old, new) = (0, 0);
                        }
                        Some(2) => {
                            if len != 9 {
                                return Err(err(p, "DW_LNE_set_address without an 8-byte address"));
                            }
                            old = u64::from_le_bytes(bytes[q + 1..q + 9].try_into().unwrap());
                            new = self.address(old, || location(p))?;
                            set_address(out, new);
                        }
                        _ => out.extend_from_slice(&bytes[p..next]),
                    }
                    p = next;
                }
                1 => {
                    catch_up(out, old, &mut new, p)?;
                    out.push(op);
                    p += 1;
                }
                2 => {
                    let (n, q) = read_uleb(bytes, p + 1).ok_or_else(|| err(p, "truncated DW_LNS_advance_pc"))?;
                    old += n * min_inst;
                    p = q;
                }
                8 => {
                    old += ((255 - u64::from(opcode_base)) / line_range) * min_inst;
                    p += 1;
                }
                9 => {
                    old += u64::from(u16::from_le_bytes([bytes[p + 1], bytes[p + 2]]));
                    p += 3;
                }
                _ => {
                    // Opcodes that do not move the address: copied with their operands.
                    let mut q = p + 1;
                    for _ in 0..standard_lengths[op as usize - 1] {
                        q = skip_uleb(bytes, q);
                    }
                    out.extend_from_slice(&bytes[p..q]);
                    p = q;
                }
            }
        }
        let new_length = (out.len() - start - 4) as u32;
        out[start..start + 4].copy_from_slice(&new_length.to_le_bytes());
        Ok(end)
    }

    /// Re-encodes `.debug_rnglists` or `.debug_loclists`; returns the section and old -> new
    /// offsets of every list and every contribution's offset table.
    fn lists(&self, name: &str, bytes: &[u8], locations: bool) -> Result<(Vec<u8>, Offsets), WriteError> {
        let mut out = Vec::with_capacity(bytes.len() + 64);
        let mut offsets = Offsets::default();
        let mut at = 0usize;
        while at < bytes.len() {
            let location = |p: usize| format!("{name}+{p:#x}");
            let length = read_u32(bytes, at, ".debug_rnglists")? as usize;
            if length >= 0xffff_fff0 {
                return Err(dwarf_error("64-bit list contribution", location(at), "not supported"));
            }
            let end = at + 4 + length;
            if bytes.get(at + 6) != Some(&8) || bytes.get(at + 7) != Some(&0) {
                return Err(dwarf_error("list contribution", location(at), "only 8-byte addresses without segments"));
            }
            let count = read_u32(bytes, at + 8, name)? as usize;
            let table = at + 12;
            let base = table; // what DW_AT_*_base points at
            let unit = *self
                .units
                .iter()
                .find(|u| if locations { u.loclists_base == base } else { u.rnglists_base == base })
                .or(if self.units.len() == 1 { self.units.first() } else { None })
                .ok_or_else(|| dwarf_error("list contribution", location(at), "no unit names it as its base"))?;
            let start = out.len();
            offsets.insert(base, start + 12);
            out.extend_from_slice(&bytes[at..table + 4 * count]);
            let mut p = table + 4 * count;
            let mut list_base = unit.low_pc;
            // `list_base` mapped, once per base rather than per offset pair.
            let mut new_list_base: Option<u64> = None;
            let mut list_start = true;
            while p < end {
                if list_start {
                    offsets.insert(p, out.len());
                    list_base = unit.low_pc;
                    new_list_base = None;
                    list_start = false;
                }
                let kind = bytes[p];
                let here = p;
                out.push(kind);
                p += 1;
                let uleb = |p: &mut usize| -> Result<u64, WriteError> {
                    let (v, q) = read_uleb(bytes, *p).ok_or_else(|| dwarf_error("list entry", location(here), "truncated"))?;
                    *p = q;
                    Ok(v)
                };
                let addr = |p: &mut usize| -> Result<u64, WriteError> {
                    let v = read_u64(bytes, *p, ".debug_rnglists")?;
                    *p += 8;
                    Ok(v)
                };
                // Entry kinds, numbered alike in both sections except that loclists insert
                // DW_LLE_default_location (5) before base_address.
                let kind = if locations && kind >= 5 { if kind == 5 { 100 } else { kind - 1 } } else { kind };
                let has_expression = match kind {
                    0 => {
                        list_start = true;
                        false
                    }
                    1 => {
                        let index = uleb(&mut p)?;
                        write_uleb(&mut out, index);
                        list_base = self.indexed_address(&unit, index, || location(here))?;
                        new_list_base = None;
                        false
                    }
                    2 => {
                        let (a, b) = (uleb(&mut p)?, uleb(&mut p)?);
                        write_uleb(&mut out, a);
                        write_uleb(&mut out, b);
                        true
                    }
                    3 => {
                        let index = uleb(&mut p)?;
                        let len = uleb(&mut p)?;
                        let start = self.indexed_address(&unit, index, || location(here))?;
                        let (s, e) = self.range(start, len, || location(here))?;
                        write_uleb(&mut out, index);
                        write_uleb(&mut out, e - s);
                        true
                    }
                    4 => {
                        let (a, b) = (uleb(&mut p)?, uleb(&mut p)?);
                        let new_base = match new_list_base {
                            Some(b) => b,
                            None => *new_list_base.insert(self.address(list_base, || location(here))?),
                        };
                        let s = self.address(list_base + a, || location(here))?;
                        let e = self.address(list_base + b, || location(here))?;
                        write_uleb(&mut out, s - new_base);
                        write_uleb(&mut out, e - new_base);
                        true
                    }
                    5 => {
                        list_base = addr(&mut p)?;
                        let new_base = self.address(list_base, || location(here))?;
                        new_list_base = Some(new_base);
                        out.extend_from_slice(&new_base.to_le_bytes());
                        false
                    }
                    6 => {
                        let (a, b) = (addr(&mut p)?, addr(&mut p)?);
                        out.extend_from_slice(&self.address(a, || location(here))?.to_le_bytes());
                        out.extend_from_slice(&self.address(b, || location(here))?.to_le_bytes());
                        true
                    }
                    7 => {
                        let a = addr(&mut p)?;
                        let len = uleb(&mut p)?;
                        let (s, e) = self.range(a, len, || location(here))?;
                        out.extend_from_slice(&s.to_le_bytes());
                        write_uleb(&mut out, e - s);
                        true
                    }
                    100 => true,
                    other => return Err(dwarf_error("list entry", location(here), format!("unknown entry kind {other:#x}"))),
                };
                if locations && has_expression {
                    let len = uleb(&mut p)? as usize;
                    let expression = bytes.get(p..p + len).ok_or_else(|| dwarf_error("location expression", location(p), "truncated"))?;
                    write_uleb(&mut out, len as u64);
                    let from = out.len();
                    out.extend_from_slice(expression);
                    self.expression(expression, &mut out[from..], || location(p))?;
                    p += len;
                }
            }
            // The offset table holds list offsets relative to the table.
            for k in 0..count {
                let old = read_u32(bytes, table + 4 * k, name)? as usize;
                let new = offsets
                    .get(&(table + old))
                    .ok_or_else(|| dwarf_error("list offset table", location(table + 4 * k), "does not point at a list"))?
                    - (start + 12);
                let at = start + 12 + 4 * k;
                out[at..at + 4].copy_from_slice(&(new as u32).to_le_bytes());
            }
            let new_length = (out.len() - start - 4) as u32;
            out[start..start + 4].copy_from_slice(&new_length.to_le_bytes());
            at = end;
        }
        Ok((out, offsets))
    }

    /// DWARF 4 `.debug_ranges` (`locations` false) or `.debug_loc` (true), patched in place
    /// (entries have fixed sizes): every list that `.debug_info` references, from its offset,
    /// with the referencing unit's base address. Entries are (begin, end) offsets from the
    /// current base address, a base address selection (`u64::MAX`, address), or the (0, 0)
    /// terminator; location entries carry a 2-byte length and an expression after the pair.
    /// Bytes no unit references are copied as they are.
    fn v4_lists(&self, name: &str, bytes: &[u8], refs: &[(usize, u64)], locations: bool) -> Result<Vec<u8>, WriteError> {
        let mut out = bytes.to_vec();
        let mut done = std::collections::BTreeSet::new();
        let location = |p: usize| format!("{name}+{p:#x}");
        for &(offset, unit_base) in refs {
            if !done.insert((offset, unit_base)) {
                continue;
            }
            let mut p = offset;
            let mut base = unit_base;
            loop {
                let here = p;
                let (a, b) = (read_u64(bytes, p, name)?, read_u64(bytes, p + 8, name)?);
                p += 16;
                if a == 0 && b == 0 {
                    break;
                }
                if a == u64::MAX {
                    base = b;
                    let new = self.address(b, || location(here))?;
                    out[here + 8..here + 16].copy_from_slice(&new.to_le_bytes());
                    continue;
                }
                let entry = |x: u64| -> Result<u64, WriteError> {
                    let old = base.checked_add(x).ok_or_else(|| dwarf_error("list entry", location(here), "base + offset overflows"))?;
                    let new = self.address(old, || location(here))?;
                    let new_base = self.address(base, || location(here))?;
                    new.checked_sub(new_base).ok_or_else(|| dwarf_error("list entry", location(here), "the entry moved before its base address"))
                };
                let (s, e) = (entry(a)?, entry(b)?);
                out[here..here + 8].copy_from_slice(&s.to_le_bytes());
                out[here + 8..here + 16].copy_from_slice(&e.to_le_bytes());
                if locations {
                    let len = bytes
                        .get(p..p + 2)
                        .map(|l| u16::from_le_bytes([l[0], l[1]]) as usize)
                        .ok_or_else(|| dwarf_error("location entry", location(here), "truncated"))?;
                    let expression = bytes.get(p + 2..p + 2 + len).ok_or_else(|| dwarf_error("location expression", location(p), "truncated"))?;
                    self.expression(expression, &mut out[p + 2..p + 2 + len], || location(p + 2))?;
                    p += 2 + len;
                }
            }
        }
        Ok(out)
    }

    /// Patches the `DW_OP_addr` operands of the expression `old` into `new`, where it is
    /// written (a copy of `old` but for the addresses; read from `old`, patched in `new`, so
    /// no expression is copied on the side).
    fn expression(&self, old: &[u8], new: &mut [u8], location: impl Fn() -> String) -> Result<(), WriteError> {
        each_address(old, |at, address| {
            let moved = self.address(address, &location)?;
            new[at + 1..at + 9].copy_from_slice(&moved.to_le_bytes());
            Ok(())
        })
        .map_err(|e| e.unwrap_or_else(|e| dwarf_error("expression", location(), e.to_string())))
    }

    /// `.debug_info`: addresses, high_pc lengths, expressions and section offsets, in place.
    #[allow(non_upper_case_globals)] // gimli's DW_* constants in patterns
    ///
    /// DWARF 4 references into `.debug_ranges` and `.debug_loc` (which keep their offsets) are
    /// collected in `v4_lists` as (is a location list, offset, the unit's base address).
    fn info(
        &self,
        bytes: &[u8],
        lines: &Offsets,
        lists: &[Offsets; 2],
        v4_lists: &mut Vec<(bool, usize, u64)>,
    ) -> Result<Vec<u8>, WriteError> {
        use gimli::constants::*;
        let mut out = bytes.to_vec();
        let mut headers = self.dwarf.units();
        let mut unit_index = 0;
        while let Some(header) = headers.next().map_err(|e| gimli_error(".debug_info", e))? {
            let unit_start = info_offset(&header);
            let bases = self.units[unit_index];
            unit_index += 1;
            let abbreviations = header.abbreviations(&self.dwarf.debug_abbrev).map_err(|e| gimli_error(".debug_abbrev", e))?;
            let mut raw = header.entries_raw(&abbreviations, None).map_err(|e| gimli_error(".debug_info", e))?;
            while !raw.is_empty() {
                let Some(abbrev) = raw.read_abbreviation().map_err(|e| gimli_error(".debug_info", e))? else { continue };
                let mut low_pc: Option<u64> = None;
                let mut high_pc: Option<(usize, u64, DwForm)> = None;
                for spec in abbrev.attributes() {
                    let at = unit_start + raw.next_offset().0;
                    let attr = raw.read_attribute(*spec).map_err(|e| gimli_error(".debug_info", e))?;
                    let location = || format!(".debug_info+{at:#x} ({})", attr.name());
                    let form = spec.form();
                    match (attr.name(), attr.raw_value()) {
                        (DW_AT_high_pc, v) if !matches!(v, gimli::AttributeValue::Addr(_) | gimli::AttributeValue::DebugAddrIndex(_)) => {
                            let len = v.udata_value().ok_or_else(|| dwarf_error("DW_AT_high_pc", location(), "not a constant"))?;
                            high_pc = Some((at, len, form));
                        }
                        (DW_AT_high_pc, gimli::AttributeValue::DebugAddrIndex(_)) => {}
                        (name, gimli::AttributeValue::Addr(a)) => {
                            if name == DW_AT_low_pc {
                                low_pc = Some(a);
                            }
                            let new = self.address(a, location)?;
                            out[at..at + 8].copy_from_slice(&new.to_le_bytes());
                        }
                        (DW_AT_low_pc, gimli::AttributeValue::DebugAddrIndex(i)) => {
                            low_pc = Some(self.indexed_address(&bases, i.0 as u64, location)?);
                        }
                        (_, gimli::AttributeValue::Exprloc(e)) => {
                            let start = at + (form_prefix_len(bytes, at, form));
                            let expression = e.0.slice();
                            self.expression(expression, &mut out[start..start + expression.len()], location)?;
                        }
                        (DW_AT_stmt_list, gimli::AttributeValue::SecOffset(o)) => patch_offset(&mut out, at, o, lines, location)?,
                        (DW_AT_ranges, gimli::AttributeValue::SecOffset(o)) if header.version() < 5 => v4_lists.push((false, o, bases.low_pc)),
                        (DW_AT_location | DW_AT_frame_base | DW_AT_data_member_location | DW_AT_string_length | DW_AT_return_addr | DW_AT_vtable_elem_location | DW_AT_segment | DW_AT_static_link | DW_AT_use_location, gimli::AttributeValue::SecOffset(o))
                            if header.version() < 5 =>
                        {
                            v4_lists.push((true, o, bases.low_pc))
                        }
                        (DW_AT_ranges, gimli::AttributeValue::SecOffset(o)) => patch_offset(&mut out, at, o, &lists[0], location)?,
                        (DW_AT_rnglists_base, gimli::AttributeValue::SecOffset(o)) => patch_offset(&mut out, at, o, &lists[0], location)?,
                        (DW_AT_loclists_base, gimli::AttributeValue::SecOffset(o)) => patch_offset(&mut out, at, o, &lists[1], location)?,
                        (DW_AT_location | DW_AT_frame_base | DW_AT_data_member_location, gimli::AttributeValue::SecOffset(o)) => {
                            patch_offset(&mut out, at, o, &lists[1], location)?
                        }
                        (_, gimli::AttributeValue::SecOffset(_)) if header.version() < 5 => {
                            return Err(dwarf_error("DWARF 4 section offset", location(), "not remapped"));
                        }
                        _ => {}
                    }
                }
                if let (Some((at, len, form)), Some(low)) = (high_pc, low_pc) {
                    let location = || format!(".debug_info+{at:#x} (DW_AT_high_pc)");
                    let (s, e) = self.range(low, len, location)?;
                    let new = e - s;
                    let width = match form {
                        DW_FORM_data1 => 1,
                        DW_FORM_data2 => 2,
                        DW_FORM_data4 => 4,
                        DW_FORM_data8 => 8,
                        _ => return Err(dwarf_error("DW_AT_high_pc", location(), format!("form {form} is not remapped"))),
                    };
                    if width < 8 && new >> (8 * width) != 0 {
                        return Err(dwarf_error("DW_AT_high_pc", location(), format!("the new length {new:#x} does not fit {form}")));
                    }
                    out[at..at + width].copy_from_slice(&new.to_le_bytes()[..width]);
                } else if let Some((at, ..)) = high_pc.filter(|_| low_pc.is_none()) {
                    return Err(dwarf_error("DW_AT_high_pc", format!(".debug_info+{at:#x}"), "a length without DW_AT_low_pc"));
                }
            }
        }
        Ok(out)
    }
}

/// Old -> new offsets of the entries of a re-emitted section (line programs, lists, offset
/// tables), sorted by old offset. Entries come in increasing order, so a sorted vector takes
/// them with a push (a B-tree insert per list entry was a sixteenth of the DWARF remap).
#[derive(Debug, Default)]
struct Offsets(Vec<(usize, usize)>);

impl Offsets {
    /// Records `old -> new`, replacing an earlier value for `old` (as a map insert does).
    fn insert(&mut self, old: usize, new: usize) {
        match self.0.last() {
            Some(&(last, _)) if last < old => self.0.push((old, new)),
            None => self.0.push((old, new)),
            _ => match self.0.binary_search_by_key(&old, |&(o, _)| o) {
                Ok(i) => self.0[i].1 = new,
                Err(i) => self.0.insert(i, (old, new)),
            },
        }
    }

    fn get(&self, old: &usize) -> Option<&usize> {
        self.0.binary_search_by_key(old, |&(o, _)| o).ok().map(|i| &self.0[i].1)
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The expressions' encoding: 32-bit DWARF 5 with 8-byte addresses.
const EXPRESSION_ENCODING: gimli::Encoding = gimli::Encoding { format: gimli::Format::Dwarf32, version: 5, address_size: 8 };

/// Calls `found(at, address)` for every `DW_OP_addr` of `expression`, in order, where `at` is
/// the operation's offset; stops at the first error, `found`'s (`Err(Ok(_))`) or the
/// expression's (`Err(Err(_))`, gimli's error for the operation it could not read).
///
/// An operation [`simple_operation_length`] knows is stepped over by its length; any other is
/// read by `gimli::Operation::parse`, from the same offset, exactly as before. The shortcut
/// only takes operations gimli reads without fail, so the expressions refused are the ones
/// gimli refuses, with its error (`Operation::parse` on 800 K operations was a quarter of the
/// DWARF remap of a large object, mostly building values nobody looked at).
fn each_address(expression: &[u8], mut found: impl FnMut(usize, u64) -> Result<(), WriteError>) -> Result<(), Result<WriteError, gimli::Error>> {
    let mut at = 0;
    while at < expression.len() {
        if let Some(len) = simple_operation_length(expression, at) {
            if expression[at] == gimli::constants::DW_OP_addr.0 {
                let address = u64::from_le_bytes(expression[at + 1..at + 9].try_into().unwrap());
                found(at, address).map_err(Ok)?;
            }
            at += len;
            continue;
        }
        let mut r = EndianSlice::new(&expression[at..], LittleEndian);
        let op = gimli::Operation::parse(&mut r, EXPRESSION_ENCODING).map_err(Err)?;
        if let gimli::Operation::Address { address } = op {
            found(at, address).map_err(Ok)?;
        }
        at = expression.len() - r.len();
    }
    Ok(())
}

/// What follows a DWARF expression opcode, for the operations [`simple_operation_length`]
/// steps over; anything else is left to gimli.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Operands {
    /// Not stepped over: gimli reads it.
    Other,
    /// This many fixed bytes (none for most operations).
    Fixed(u8),
    /// One ULEB128; `Register` when gimli takes it for a register number (which must fit 16 bits).
    Uleb,
    Register,
    Sleb,
    /// `DW_OP_bregx`: a register ULEB128, then an offset SLEB128.
    RegisterSleb,
    /// `DW_OP_bit_piece`: two ULEB128s.
    UlebUleb,
}

/// [`Operands`] by opcode, after `gimli::Operation::parse` (gimli 0.34, 8-byte addresses,
/// 32-bit DWARF 5).
static OPERANDS: [Operands; 256] = {
    use Operands::*;
    let mut t = [Other; 256];
    // No operand.
    let none: &[u8] = &[
        0x06, 0x12, 0x13, 0x14, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x24, 0x25, 0x26, 0x27, 0x29, 0x2a,
        0x2b, 0x2c, 0x2d, 0x2e, 0x96, 0x97, 0x9b, 0x9c, 0x9f, 0xe0, 0xf0,
    ];
    let mut i = 0;
    while i < none.len() {
        t[none[i] as usize] = Fixed(0);
        i += 1;
    }
    let mut op = 0x30; // DW_OP_lit0..lit31, DW_OP_reg0..reg31
    while op <= 0x6f {
        t[op] = Fixed(0);
        op += 1;
    }
    while op <= 0x8f {
        t[op] = Sleb; // DW_OP_breg0..breg31
        op += 1;
    }
    // addr; const1u/s, const2u/s, const4u/s, const8u/s; pick; bra, skip; deref_size, xderef_size;
    // call2, call4; GNU_parameter_ref.
    let fixed: &[(u8, u8)] = &[
        (0x03, 8), (0x08, 1), (0x09, 1), (0x0a, 2), (0x0b, 2), (0x0c, 4), (0x0d, 4), (0x0e, 8), (0x0f, 8), (0x15, 1), (0x28, 2), (0x2f, 2),
        (0x94, 1), (0x95, 1), (0x98, 2), (0x99, 4), (0xfa, 4),
    ];
    let mut i = 0;
    while i < fixed.len() {
        t[fixed[i].0 as usize] = Fixed(fixed[i].1);
        i += 1;
    }
    t[0x10] = Uleb; // constu
    t[0x23] = Uleb; // plus_uconst
    t[0x93] = Uleb; // piece (gimli multiplies by 8: a short ULEB128 cannot overflow)
    t[0xa1] = Uleb; // addrx
    t[0xa2] = Uleb; // constx
    t[0x11] = Sleb; // consts
    t[0x91] = Sleb; // fbreg
    t[0x90] = Register; // regx
    t[0x92] = RegisterSleb; // bregx
    t[0x9d] = UlebUleb; // bit_piece
    t
};

/// Length of the operation at `at` of `expression` if it is one gimli reads without fail and
/// without anything but its length mattering here (or `DW_OP_addr`, whose 8-byte operand the
/// caller reads), else `None`: the operation is then left to gimli, which may read it or
/// refuse it. A LEB128 operand is taken only when it ends within 8 bytes (a value below
/// 2^56: gimli's overflow checks are at the 10th byte), and a register number only below
/// 2^16 (gimli's `Register`).
#[inline]
fn simple_operation_length(expression: &[u8], at: usize) -> Option<usize> {
    /// End of a LEB128 at `p` and its value (low 56 bits), if it ends within 8 bytes.
    #[inline(always)]
    fn leb(bytes: &[u8], p: usize) -> Option<(usize, u64)> {
        let first = *bytes.get(p)?;
        if first & 0x80 == 0 {
            return Some((p + 1, u64::from(first)));
        }
        let mut value = 0u64;
        for k in 0..8 {
            let b = *bytes.get(p + k)?;
            value |= u64::from(b & 0x7f) << (7 * k);
            if b & 0x80 == 0 {
                return Some((p + k + 1, value));
            }
        }
        None
    }
    let p = at + 1;
    let end = match OPERANDS[usize::from(*expression.get(at)?)] {
        Operands::Other => return None,
        Operands::Fixed(n) => p + usize::from(n),
        Operands::Uleb | Operands::Sleb => leb(expression, p)?.0,
        Operands::Register => leb(expression, p).filter(|&(_, r)| r <= 0xffff)?.0,
        Operands::RegisterSleb => leb(expression, leb(expression, p).filter(|&(_, r)| r <= 0xffff)?.0)?.0,
        Operands::UlebUleb => leb(expression, leb(expression, p)?.0)?.0,
    };
    (end <= expression.len()).then_some(end - at)
}

/// Offset of a unit header in `.debug_info`.
fn info_offset(header: &gimli::UnitHeader<R<'_>>) -> usize {
    header.offset().0
}

/// Bytes before an exprloc's expression: its ULEB length.
fn form_prefix_len(bytes: &[u8], at: usize, _form: gimli::DwForm) -> usize {
    read_uleb(bytes, at).map_or(1, |(_, q)| q - at)
}

/// Rewrites a 4-byte section offset through an old -> new offset map.
fn patch_offset(out: &mut [u8], at: usize, old: usize, map: &Offsets, location: impl Fn() -> String) -> Result<(), WriteError> {
    if map.is_empty() {
        return Ok(());
    }
    let new = *map.get(&old).ok_or_else(|| dwarf_error("section offset", location(), format!("{old:#x} does not point at the start of an entry that was remapped")))?;
    out[at..at + 4].copy_from_slice(&(new as u32).to_le_bytes());
    Ok(())
}

fn set_address(out: &mut Vec<u8>, address: u64) {
    out.extend_from_slice(&[0, 9, gimli::constants::DW_LNE_set_address.0]);
    out.extend_from_slice(&address.to_le_bytes());
}

fn read_u32(bytes: &[u8], at: usize, section: &str) -> Result<u32, WriteError> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .ok_or_else(|| dwarf_error(section, format!("{section}+{at:#x}"), "truncated"))
}

fn read_u64(bytes: &[u8], at: usize, section: &str) -> Result<u64, WriteError> {
    bytes
        .get(at..at + 8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
        .ok_or_else(|| dwarf_error(section, format!("{section}+{at:#x}"), "truncated"))
}

/// An unsigned LEB128 at `at`: its value and the position after it.
fn read_uleb(bytes: &[u8], mut at: usize) -> Option<(u64, usize)> {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let b = *bytes.get(at)?;
        at += 1;
        if shift < 64 {
            value |= u64::from(b & 0x7f) << shift;
        }
        shift += 7;
        if b & 0x80 == 0 {
            return Some((value, at));
        }
    }
}

fn skip_uleb(bytes: &[u8], at: usize) -> usize {
    read_uleb(bytes, at).map_or(bytes.len(), |(_, q)| q)
}

fn write_uleb(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let b = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Position after a call frame instruction without an address operand, or `None` if unknown.
fn skip_cfa_operands(bytes: &[u8], p: usize, end: usize) -> Option<usize> {
    let op = bytes[p];
    let q = p + 1;
    let next = match op {
        0x00 | 0x0a | 0x0b => q,                                       // nop, remember/restore_state
        0x06 | 0x07 | 0x08 | 0x0d | 0x0e | 0x2e => skip_uleb(bytes, q), // one ULEB (or SLEB) operand
        0x13 => skip_uleb(bytes, q),                                   // def_cfa_offset_sf
        0x05 | 0x09 | 0x0c | 0x11 | 0x12 | 0x14 | 0x15 | 0x2f => skip_uleb(bytes, skip_uleb(bytes, q)),
        0x0f => {
            let (len, r) = read_uleb(bytes, q)?;
            r + len as usize
        }
        0x10 | 0x16 => {
            let r = skip_uleb(bytes, q);
            let (len, r) = read_uleb(bytes, r)?;
            r + len as usize
        }
        _ => return None,
    };
    (next <= end).then_some(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the remap found before [`each_address`]: every operation read by gimli, the
    /// addresses of `DW_OP_addr` with their offsets, and the error that stopped the read.
    fn by_gimli(expression: &[u8]) -> (Vec<(usize, u64)>, Option<gimli::Error>) {
        let mut found = Vec::new();
        let mut r = EndianSlice::new(expression, LittleEndian);
        while !r.is_empty() {
            let at = expression.len() - r.len();
            match gimli::Operation::parse(&mut r, EXPRESSION_ENCODING) {
                Ok(gimli::Operation::Address { address }) => found.push((at, address)),
                Ok(_) => {}
                Err(e) => return (found, Some(e)),
            }
        }
        (found, None)
    }

    fn by_scanner(expression: &[u8]) -> (Vec<(usize, u64)>, Option<gimli::Error>) {
        let mut found = Vec::new();
        let result = each_address(expression, |at, address| {
            found.push((at, address));
            Ok(())
        });
        let error = match result {
            Ok(()) => None,
            Err(Err(e)) => Some(e),
            Err(Ok(e)) => panic!("`found` never fails here: {e}"),
        };
        (found, error)
    }

    fn assert_agrees(expression: &[u8]) {
        assert_eq!(by_scanner(expression), by_gimli(expression), "expression {expression:02x?}");
    }

    /// A small xorshift generator: the test needs many varied inputs, not a crate.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Operand bytes that reach the edges: LEB128 continuation and sign bits, the values just
    /// past 16 bits, the 10th byte of an overlong LEB128.
    const EDGES: [u8; 10] = [0x00, 0x01, 0x03, 0x04, 0x7f, 0x80, 0x81, 0xbf, 0xfe, 0xff];

    /// Every opcode with every operand of up to three edge bytes, and with LEB128s of every
    /// length up to 11 bytes (continuation bytes then an end byte, or cut short).
    #[test]
    fn the_scanner_agrees_with_gimli_on_every_opcode_and_edge_operand() {
        for op in 0..=255u8 {
            assert_agrees(&[op]);
            for &a in &EDGES {
                assert_agrees(&[op, a]);
                for &b in &EDGES {
                    assert_agrees(&[op, a, b]);
                    for &c in &EDGES {
                        assert_agrees(&[op, a, b, c]);
                    }
                }
            }
            for continued in 0..11 {
                for &last in &EDGES {
                    for &then in &[0x00u8, 0x7f, 0xff] {
                        let mut e = vec![op];
                        e.extend(std::iter::repeat_n(0xffu8, continued));
                        e.push(last);
                        // A second operand (DW_OP_bregx, DW_OP_bit_piece) and a following operation.
                        for cut in 0..=3 {
                            let mut e = e.clone();
                            e.extend([then, 0x93, 0x08].iter().take(cut));
                            assert_agrees(&e);
                        }
                        // A register just past 16 bits, in two and three bytes.
                        assert_agrees(&[op, 0xff, 0xff, 0x03, then]);
                        assert_agrees(&[op, 0x80, 0x80, 0x04, then]);
                    }
                }
            }
        }
    }

    /// Random expressions, of random bytes and of edge bytes, including `DW_OP_addr`s found
    /// at their offsets, truncated anywhere.
    #[test]
    fn the_scanner_agrees_with_gimli_on_random_expressions() {
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        for _ in 0..300_000 {
            let len = (random.next() % 40) as usize;
            let expression: Vec<u8> = (0..len)
                .map(|_| {
                    let r = random.next();
                    match r % 4 {
                        0 => EDGES[(r >> 8) as usize % EDGES.len()],
                        1 => 0x03, // DW_OP_addr
                        _ => (r >> 8) as u8,
                    }
                })
                .collect();
            assert_agrees(&expression);
        }
        // A run of common operations, read whole and cut at every length.
        let mut e = vec![0x03];
        e.extend(0x1234_5678_9abc_def0u64.to_le_bytes());
        e.extend([0x90, 0x80, 0x14, 0x93, 0x04, 0x70, 0x7f, 0x92, 0x81, 0x01, 0x40, 0x9d, 0x20, 0x00, 0x9f, 0x03]);
        e.extend(0x40u64.to_le_bytes());
        for cut in 0..=e.len() {
            assert_agrees(&e[..cut]);
        }
        assert_eq!(by_scanner(&e).0, vec![(0, 0x1234_5678_9abc_def0), (e.len() - 9, 0x40)]);
    }

    /// Every window of up to 24 bytes of real debug sections (the fixtures' location lists and
    /// DIEs hold the expressions compilers write for AMDGPU).
    #[test]
    fn the_scanner_agrees_with_gimli_on_fixture_debug_sections() {
        let mut windows = 0;
        for target in ["gfx900", "gfx90a", "gfx1030", "gfx1100"] {
            let path = format!("{}/fixtures/co/{target}/debug_info.O2g.co", env!("CARGO_MANIFEST_DIR"));
            let data = std::fs::read(&path).unwrap();
            let object = CodeObject::parse(&data).unwrap();
            for name in [".debug_loclists", ".debug_info"] {
                let bytes = object.section_bytes(name);
                assert!(!bytes.is_empty(), "{path} has no {name}");
                for at in 0..bytes.len() {
                    for len in 0..=24.min(bytes.len() - at) {
                        assert_agrees(&bytes[at..at + len]);
                        windows += 1;
                    }
                }
            }
        }
        assert!(windows > 10_000, "{windows} windows");
    }
}
