//! The code object writer: plans where every section goes when `.text` changes size, then copies
//! the input and patches, in place, each field that holds a moved address, offset or size.
//!
//! The layout it accepts is the one `ld.lld` gives every AMDGPU code object (checked on all
//! fixtures and on the corpus objects):
//!
//! ```text
//! PT_LOAD R    .note .dynsym .gnu.hash .hash .dynstr [.rela.dyn] .rodata (descriptors)
//! PT_LOAD R E  .text                                   (256-aligned, alone in its segment)
//! PT_LOAD RW   [.data.rel.ro] .dynamic .relro_padding [.data .bss]
//!              non-alloc: .debug_*, .comment, .symtab, .shstrtab, .strtab; section headers
//! ```
//!
//! Nothing before `.text` moves. Everything after it moves by one [`address_shift`], in the
//! file and in memory alike, which keeps `p_vaddr ≡ p_offset (mod p_align)` and every page
//! relationship the linker chose (RELRO ends, W^X boundaries). Non-alloc sections whose
//! contents grow (a rewritten DWARF line program) push what follows them further.

use std::collections::BTreeMap;

use object::elf;

use super::dwarf;
use super::note_room;
use super::registers;
use super::{AddressMap, ObjectEdits, WriteError, Written};
use crate::container::elf::{CodeObject, ElfType, Section};

/// Size of an ELF64 section header, program header, symbol, `.dynamic` entry and RELA entry.
const SHDR_SIZE: u64 = 64;
const PHDR_SIZE: u64 = 56;
const SYM_SIZE: u64 = 24;
const DYN_SIZE: u64 = 16;
const RELA_SIZE: u64 = 24;

/// How far every address and file offset at or past the old end of `.text` moves when `.text`
/// becomes `new_text_len` bytes: the growth rounded up to the largest alignment among what
/// moves (its sections and `PT_LOAD` segments, and 8 for the section header table), so that
/// every moved section stays aligned and every moved page keeps its layout. Zero when `.text`
/// does not grow: a shorter `.text` leaves a gap rather than moving anything down.
///
/// The layout step needs this to fix PC-relative constants that point into data after `.text`.
pub fn address_shift(object: &CodeObject, new_text_len: u64) -> Result<u64, WriteError> {
    Ok(Plan::new(object)?.shift_for(new_text_len))
}

/// Writes `object` with `edits` applied. With no edits the result is the input, byte for byte.
///
/// Recording higher register counts can make the metadata note longer than the room it has
/// before `.dynsym`; then the dynamic-linking tables move forward into the padding before
/// `.rodata` ([`note_room`], the layout clang-19 gives a longer note) and the object is written
/// again from that. Where there is not enough padding either, the rewrite is refused.
pub fn write_object(object: &CodeObject, edits: &ObjectEdits) -> Result<Written, WriteError> {
    match write_in_layout(object, edits) {
        Err(WriteError::NoteOutgrowsRoom { grow, .. }) => {
            let roomy = note_room::make_room_after_note(object, grow)?;
            let roomy = CodeObject::parse(&roomy)?;
            let mut written = write_in_layout(&roomy, edits)?;
            written.notes.push(format!(
                "the metadata note grew by {grow} bytes: .dynsym and the tables after it moved forward into the padding before .rodata"
            ));
            Ok(written)
        }
        other => other,
    }
}

/// [`write_object`] within the object's own layout before `.text`.
fn write_in_layout(object: &CodeObject, edits: &ObjectEdits) -> Result<Written, WriteError> {
    if edits.text.is_none() && edits.registers.is_empty() && edits.lowered.is_empty() {
        return Ok(Written { bytes: object.data.to_vec(), notes: Vec::new() });
    }
    if object.elf_type != ElfType::Shared {
        return Err(WriteError::Layout(format!(
            "only linked code objects (ET_DYN) can be rewritten; this one is {:?}",
            object.elf_type
        )));
    }
    let plan = Plan::new(object)?;
    let text = plan.text;
    let (new_text, map) = match &edits.text {
        Some(patch) => {
            check_map(&patch.map, text, patch.bytes.len() as u64)?;
            (patch.bytes.as_slice(), Some(&patch.map))
        }
        None => (plan.section_bytes(text.index), None),
    };
    let remap = Remap {
        text_start: text.address,
        text_end: text.address + text.size,
        map,
        shift: plan.shift_for(new_text.len() as u64),
        section_at_text_end: plan.section_at_text_end,
    };

    let mut notes = Vec::new();
    let debug = dwarf::remap_debug_sections(object, &remap, edits.strip_debug_on_failure)?;
    notes.extend(debug.notes);
    let layout = plan.layout(&remap, new_text, &debug.contents)?;
    let mut out = layout.bytes;
    let placement = &layout.sections;
    let mut patcher = Patcher { object, remap: &remap, placement, out: &mut out };
    patcher.header(layout.shoff)?;
    patcher.program_headers(new_text.len() as u64)?;
    patcher.section_headers(layout.shoff)?;
    patcher.symbols()?;
    patcher.dynamic()?;
    patcher.relocations()?;
    patcher.descriptors()?;
    registers::apply(object, &edits.registers, &edits.lowered, placement, &mut out, &mut notes)?;
    Ok(Written { bytes: out, notes })
}

/// The map must describe exactly the old `.text` and the new bytes.
fn check_map(map: &AddressMap, text: &Section, new_len: u64) -> Result<(), WriteError> {
    let old = text.address..text.address + text.size;
    if map.old_range() != old {
        return Err(WriteError::MapDoesNotCoverText { map_old: map.old_range(), text: old });
    }
    let new = map.new_range();
    if new.start != text.address || new.end != text.address + new_len {
        return Err(WriteError::MapDisagreesWithText { map_end: new.end, text_end: text.address + new_len });
    }
    Ok(())
}

/// Old -> new address for anything in the object: below `.text` unchanged, inside `.text`
/// through the address map, past it moved by the shift.
#[derive(Clone, Copy, Debug)]
pub(super) struct Remap<'m> {
    pub text_start: u64,
    /// Old end of `.text` (exclusive); the map maps it to the new end.
    pub text_end: u64,
    /// `None`: `.text` keeps its bytes and addresses.
    pub map: Option<&'m AddressMap>,
    pub shift: u64,
    /// An allocated section starts at `text_end`: a bare address equal to it means that
    /// section (it moves with the shift), not the end of `.text`.
    pub section_at_text_end: bool,
}

impl Remap<'_> {
    /// The new address of `address`; `what` names its holder for the error.
    pub fn address(&self, address: u64, what: impl FnOnce() -> String) -> Result<u64, WriteError> {
        if address < self.text_start {
            return Ok(address);
        }
        if address < self.text_end || (address == self.text_end && !self.section_at_text_end) {
            return self.code_address(address, what);
        }
        Ok(address + self.shift)
    }

    /// The new address of `address`, known to be in `.text` or at its end (a `.text` symbol).
    pub fn code_address(&self, address: u64, what: impl FnOnce() -> String) -> Result<u64, WriteError> {
        match self.map {
            None => Ok(address),
            Some(map) => map.map(address).ok_or_else(|| WriteError::NotABoundary { what: what(), address }),
        }
    }

}

/// The accepted layout of one object: which section is `.text`, and what lies after it.
struct Plan<'o, 'd> {
    object: &'o CodeObject<'d>,
    text: &'o Section<'d>,
    /// Largest alignment among everything that moves with the shift.
    align: u64,
    /// True if an allocated section starts at the old end of `.text`.
    section_at_text_end: bool,
}

impl<'o, 'd> Plan<'o, 'd> {
    fn new(object: &'o CodeObject<'d>) -> Result<Self, WriteError> {
        let mut executable = object.sections.iter().filter(|s| s.is_executable());
        let text = executable.next().ok_or_else(|| WriteError::Layout("the object has no executable section".into()))?;
        if let Some(other) = executable.next() {
            return Err(WriteError::Layout(format!(
                "two executable sections, [{}] {} and [{}] {}; only one .text is supported",
                text.index, text.name, other.index, other.name
            )));
        }
        if !text.has_file_bytes() || text.flags & u64::from(elf::SHF_ALLOC) == 0 {
            return Err(WriteError::Layout(format!("executable section {} has no loaded file bytes", text.name)));
        }
        let text_end_offset = text.offset + text.size;
        let text_end = text.address + text.size;
        let mut align = 8u64;
        for s in &object.sections {
            if s.index == text.index || s.sh_type == elf::SHT_NULL {
                continue;
            }
            let alloc = s.flags & u64::from(elf::SHF_ALLOC) != 0;
            let describe = || format!("section [{}] {}", s.index, s.name);
            if alloc {
                let file_end = if s.has_file_bytes() { s.offset + s.size } else { s.offset };
                let before = s.address + s.size <= text.address && file_end <= text.offset;
                let after = s.address >= text_end && s.offset >= text_end_offset;
                if !before && !after {
                    return Err(WriteError::Layout(format!(
                        "{} at {:#x} (file {:#x}) is neither wholly before nor wholly after .text {:#x}..{:#x}",
                        describe(),
                        s.address,
                        s.offset,
                        text.address,
                        text_end
                    )));
                }
                if after {
                    align = align.max(s.align);
                }
            } else if s.has_file_bytes() && s.size > 0 {
                if s.offset >= text_end_offset {
                    align = align.max(s.align);
                } else if s.offset + s.size > text.offset {
                    return Err(WriteError::Layout(format!("{} overlaps .text in the file", describe())));
                }
            }
        }
        let segment_text = object.segments.iter().filter(|p| p.p_type == elf::PT_LOAD).find(|p| {
            p.offset <= text.offset && text.offset < p.offset + p.file_size.max(1)
        });
        match segment_text {
            Some(p) if p.offset == text.offset && p.file_size == text.size && p.vaddr == text.address && p.mem_size == text.size => {}
            Some(p) => {
                return Err(WriteError::Layout(format!(
                    ".text {:#x}..{:#x} shares its PT_LOAD (file {:#x}+{:#x}, address {:#x}+{:#x}) with other bytes",
                    text.address, text_end, p.offset, p.file_size, p.vaddr, p.mem_size
                )));
            }
            None => return Err(WriteError::Layout(".text is in no PT_LOAD segment".into())),
        }
        for p in &object.segments {
            let mem_end = p.vaddr + p.mem_size;
            let file_end = p.offset + p.file_size;
            let is_text = p.offset == text.offset && p.vaddr == text.address;
            let before = mem_end <= text.address && file_end <= text.offset;
            let after = p.vaddr >= text_end && p.offset >= text_end_offset;
            if !(is_text || before || after || (p.mem_size == 0 && p.file_size == 0)) {
                return Err(WriteError::Layout(format!(
                    "program header type {:#x} (file {:#x}+{:#x}, address {:#x}+{:#x}) spans .text",
                    p.p_type, p.offset, p.file_size, p.vaddr, p.mem_size
                )));
            }
            if after && p.p_type == elf::PT_LOAD {
                align = align.max(p.align);
            }
        }
        // When `.text` ends on a page boundary the linker may start the next segment right there.
        let section_at_text_end = object
            .sections
            .iter()
            .any(|s| s.flags & u64::from(elf::SHF_ALLOC) != 0 && s.address == text_end && s.index != text.index);
        Ok(Plan { object, text, align, section_at_text_end })
    }

    fn shift_for(&self, new_text_len: u64) -> u64 {
        new_text_len.saturating_sub(self.text.size).next_multiple_of(self.align)
    }

    fn section_bytes(&self, index: usize) -> &'d [u8] {
        let s = &self.object.sections[index];
        if !s.has_file_bytes() {
            return &[];
        }
        &self.object.data[s.offset as usize..(s.offset + s.size) as usize]
    }

    /// Places every section and copies the file: the bytes before `.text`, the new `.text`,
    /// then everything after it at its new offset, replaced contents where given.
    fn layout(&self, remap: &Remap, new_text: &[u8], replaced: &BTreeMap<usize, Vec<u8>>) -> Result<Layout, WriteError> {
        let data = self.object.data;
        let text = self.text;
        let text_end_offset = text.offset + text.size;
        let shoff = read_u64(data, 40);
        let shnum = self.object.sections.len() as u64;

        // Everything with file bytes after `.text`, in file order; `None` is the header table.
        let mut items: Vec<(u64, u64, Option<usize>)> = self
            .object
            .sections
            .iter()
            .filter(|s| s.has_file_bytes() && s.index != text.index && s.offset >= text_end_offset)
            .map(|s| (s.offset, s.size, Some(s.index)))
            .collect();
        if shoff >= text_end_offset {
            items.push((shoff, shnum * SHDR_SIZE, None));
        } else if shnum > 0 {
            return Err(WriteError::Layout(format!("the section header table at {shoff:#x} lies before .text")));
        }
        items.sort_by_key(|&(offset, size, _)| (offset, size));

        let mut placement: Vec<Placement> = self
            .object
            .sections
            .iter()
            .map(|s| Placement { offset: s.offset, address: s.address, size: s.size })
            .collect();
        placement[text.index].size = new_text.len() as u64;

        let mut out = Vec::with_capacity(data.len() + remap.shift as usize + 4096);
        out.extend_from_slice(&data[..text.offset as usize]);
        out.extend_from_slice(new_text);
        let mut delta = remap.shift;
        out.resize((text_end_offset + delta) as usize, 0);
        let first = items.first().map_or(data.len() as u64, |i| i.0);
        out.extend_from_slice(&data[text_end_offset as usize..first as usize]);
        let mut new_shoff = shoff;
        for (k, &(offset, size, index)) in items.iter().enumerate() {
            let next = items.get(k + 1).map_or(data.len() as u64, |i| i.0);
            if next < offset + size {
                return Err(WriteError::Layout(format!(
                    "{} at file {offset:#x}+{size:#x} overlaps what follows it at {next:#x}",
                    index.map_or_else(|| "the section header table".to_owned(), |i| format!("section {}", self.object.sections[i].name))
                )));
            }
            let new_offset = offset + delta;
            out.resize(new_offset as usize, 0);
            match index.and_then(|i| replaced.get(&i)) {
                Some(contents) => {
                    let room = next - offset;
                    out.extend_from_slice(contents);
                    let used = contents.len() as u64;
                    if used > room {
                        // Later items move on, still aligned.
                        delta += (used - room).next_multiple_of(self.align);
                    }
                    out.resize((next + delta) as usize, 0);
                    placement[index.unwrap()].size = used;
                }
                None => {
                    let end = next.min(data.len() as u64);
                    out.extend_from_slice(&data[offset as usize..end as usize]);
                }
            }
            match index {
                Some(i) => placement[i].offset = new_offset,
                None => new_shoff = new_offset,
            }
        }
        // Sections without file bytes after `.text` (`.bss`, `.relro_padding`) and every
        // allocated section after it: new offsets and addresses.
        for s in &self.object.sections {
            if s.index == text.index || s.sh_type == elf::SHT_NULL {
                continue;
            }
            let alloc = s.flags & u64::from(elf::SHF_ALLOC) != 0;
            if alloc && s.address >= remap.text_end {
                placement[s.index].address = s.address + remap.shift;
                let expected = s.offset + remap.shift;
                if s.has_file_bytes() && placement[s.index].offset != expected {
                    return Err(WriteError::Layout(format!(
                        "allocated section {} follows a non-allocated section that grew",
                        s.name
                    )));
                }
                placement[s.index].offset = expected;
            } else if !s.has_file_bytes() && s.offset >= text_end_offset {
                placement[s.index].offset = s.offset + remap.shift;
            }
        }
        Ok(Layout { bytes: out, sections: placement, shoff: new_shoff })
    }
}

/// Where a section ends up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Placement {
    pub offset: u64,
    pub address: u64,
    pub size: u64,
}

struct Layout {
    bytes: Vec<u8>,
    sections: Vec<Placement>,
    shoff: u64,
}

/// Patches the fields that hold addresses, offsets and sizes in the copied file.
struct Patcher<'a, 'd> {
    object: &'a CodeObject<'d>,
    remap: &'a Remap<'a>,
    placement: &'a [Placement],
    out: &'a mut Vec<u8>,
}

impl Patcher<'_, '_> {
    /// New file offset of an old file offset inside section `index`.
    fn offset_in(&self, index: usize, old_offset: u64) -> u64 {
        self.placement[index].offset + (old_offset - self.object.sections[index].offset)
    }

    fn header(&mut self, shoff: u64) -> Result<(), WriteError> {
        let entry = read_u64(self.object.data, 24);
        if entry != 0 {
            let new = self.remap.address(entry, || "e_entry".into())?;
            write_u64(self.out, 24, new);
        }
        if !self.object.sections.is_empty() {
            write_u64(self.out, 40, shoff);
        }
        Ok(())
    }

    fn program_headers(&mut self, new_text_len: u64) -> Result<(), WriteError> {
        let data = self.object.data;
        let phoff = read_u64(data, 32);
        let text = &self.object.sections.iter().find(|s| s.is_executable()).expect("planned");
        let text_end_offset = text.offset + text.size;
        if !self.object.segments.is_empty() && phoff + PHDR_SIZE * self.object.segments.len() as u64 > text.offset {
            return Err(WriteError::Layout(format!("the program header table at {phoff:#x} is not before .text")));
        }
        for (i, p) in self.object.segments.iter().enumerate() {
            let at = phoff + PHDR_SIZE * i as u64;
            if p.offset == text.offset && p.vaddr == text.address && p.p_type == elf::PT_LOAD {
                write_u64(self.out, at + 32, new_text_len);
                write_u64(self.out, at + 40, new_text_len);
            } else if p.offset >= text_end_offset && p.vaddr >= self.remap.text_end && p.file_size + p.mem_size > 0 {
                write_u64(self.out, at + 8, p.offset + self.remap.shift);
                write_u64(self.out, at + 16, p.vaddr + self.remap.shift);
                let paddr = read_u64(data, at + 24);
                write_u64(self.out, at + 24, paddr + self.remap.shift);
            }
        }
        Ok(())
    }

    fn section_headers(&mut self, shoff: u64) -> Result<(), WriteError> {
        for (s, p) in self.object.sections.iter().zip(self.placement) {
            let at = shoff + SHDR_SIZE * s.index as u64;
            write_u64(self.out, at + 16, p.address);
            write_u64(self.out, at + 24, p.offset);
            write_u64(self.out, at + 32, p.size);
        }
        Ok(())
    }

    /// `.symtab` and `.dynsym`: values of symbols in allocated sections, sizes of `.text` ones.
    fn symbols(&mut self) -> Result<(), WriteError> {
        for table in self.object.sections.iter().filter(|s| matches!(s.sh_type, elf::SHT_SYMTAB | elf::SHT_DYNSYM)) {
            let count = table.size / SYM_SIZE;
            for i in 0..count {
                let old = table.offset + i * SYM_SIZE;
                let shndx = read_u16(self.object.data, old + 6);
                let Some(section) = self.object.sections.get(shndx as usize).filter(|_| {
                    shndx != elf::SHN_UNDEF && shndx < elf::SHN_LORESERVE
                }) else {
                    continue;
                };
                if section.flags & u64::from(elf::SHF_ALLOC) == 0 {
                    continue;
                }
                let value = read_u64(self.object.data, old + 8);
                let size = read_u64(self.object.data, old + 16);
                let name = || symbol_name(self.object, table, i);
                let (new_value, new_size) = if section.is_executable() {
                    let what = |end: &str| format!("{end}symbol {} ({})", name(), table.name);
                    let start = self.remap.code_address(value, || what(""))?;
                    let end = if size > 0 { self.remap.code_address(value + size, || what("the end of "))? } else { start };
                    (start, end - start)
                } else {
                    (self.remap.address(value, || format!("symbol {} ({})", name(), table.name))?, size)
                };
                let at = self.offset_in(table.index, old);
                write_u64(self.out, at + 8, new_value);
                write_u64(self.out, at + 16, new_size);
            }
        }
        Ok(())
    }

    fn dynamic(&mut self) -> Result<(), WriteError> {
        for table in self.object.sections.iter().filter(|s| s.sh_type == elf::SHT_DYNAMIC) {
            for i in 0..table.size / DYN_SIZE {
                let old = table.offset + i * DYN_SIZE;
                let tag = read_u64(self.object.data, old) as i64;
                if tag == i64::from(elf::DT_NULL) {
                    break;
                }
                let value = read_u64(self.object.data, old + 8);
                let new = match dynamic_tag(tag) {
                    TagKind::Value => continue,
                    TagKind::Address => self.remap.address(value, || format!(".dynamic entry {i} (tag {tag:#x})"))?,
                    TagKind::Unknown => {
                        // Harmless if, read as an address, it would not move.
                        let moved = self.remap.address(value, String::new).map_or(true, |n| n != value);
                        if moved {
                            return Err(WriteError::Layout(format!(
                                ".dynamic entry {i} has tag {tag:#x}, whose meaning gfxpatch does not know, \
                                 and its value {value:#x} would be a moved address"
                            )));
                        }
                        continue;
                    }
                };
                let at = self.offset_in(table.index, old);
                write_u64(self.out, at + 8, new);
            }
        }
        Ok(())
    }

    /// `SHT_RELA` sections: where each relocation applies, and addends that are addresses.
    fn relocations(&mut self) -> Result<(), WriteError> {
        use crate::container::amdgpu::R_AMDGPU_RELATIVE64;
        for table in self.object.sections.iter().filter(|s| s.sh_type == elf::SHT_RELA) {
            let symtab = self.object.sections.get(table.link as usize);
            for i in 0..table.size / RELA_SIZE {
                let old = table.offset + i * RELA_SIZE;
                let what = || format!("relocation {i} of {}", table.name);
                let r_offset = read_u64(self.object.data, old);
                let info = read_u64(self.object.data, old + 8);
                let (symbol, r_type) = (info >> 32, info as u32);
                let addend = read_u64(self.object.data, old + 16);
                let new_offset = self.remap.address(r_offset, || format!("the place of {}", what()))?;
                let new_addend = if r_type == R_AMDGPU_RELATIVE64 && symbol == 0 {
                    self.remap.address(addend, || format!("the addend of {}", what()))?
                } else if symbol != 0 && addend != 0 {
                    // symbol + addend may point into moved code; keep it pointing at the same thing.
                    let base = symtab.map_or(0, |t| read_u64(self.object.data, t.offset + symbol * SYM_SIZE + 8));
                    let target = base.wrapping_add(addend);
                    if target >= self.remap.text_start {
                        let new_base = self.remap.address(base, || format!("the symbol of {}", what()))?;
                        self.remap.address(target, || format!("the target of {}", what()))?.wrapping_sub(new_base)
                    } else {
                        addend
                    }
                } else {
                    addend
                };
                let at = self.offset_in(table.index, old);
                write_u64(self.out, at, new_offset);
                write_u64(self.out, at + 16, new_addend);
                // The linker may also have stored the addend at the place (--apply-dynamic-relocs).
                if new_addend != addend
                    && let Some(place) = self.object.section_containing(r_offset).filter(|s| s.has_file_bytes())
                {
                    let old_place = place.offset + (r_offset - place.address);
                    if read_u64(self.object.data, old_place) == addend {
                        let at = self.offset_in(place.index, old_place);
                        write_u64(self.out, at, new_addend);
                    }
                }
            }
        }
        Ok(())
    }

    /// Each kernel descriptor's entry offset, so that it points at the kernel's new entry.
    fn descriptors(&mut self) -> Result<(), WriteError> {
        use crate::container::amdgpu::KERNEL_ENTRY_ALIGN;
        for k in &self.object.kernels {
            let new_descriptor = self.remap.address(k.descriptor_address, || format!("kernel descriptor {}.kd", k.name))?;
            let new_entry = self.remap.code_address(k.entry_address, || format!("the entry of kernel {}", k.name))?;
            if new_entry % KERNEL_ENTRY_ALIGN != 0 {
                return Err(WriteError::Layout(format!(
                    "kernel {}: its new entry {new_entry:#x} is not {KERNEL_ENTRY_ALIGN}-byte aligned",
                    k.name
                )));
            }
            let offset = new_entry.wrapping_sub(new_descriptor) as i64;
            if offset == k.descriptor.kernel_code_entry_byte_offset() {
                continue;
            }
            let section = self.object.section_containing(k.descriptor_address).expect("found by the reader");
            let at = self.offset_in(section.index, k.descriptor_offset) + 16;
            write_u64(self.out, at, offset as u64);
        }
        Ok(())
    }
}

fn symbol_name(object: &CodeObject, table: &Section, index: u64) -> String {
    let data = object.data;
    let name = read_u32(data, table.offset + index * SYM_SIZE) as u64;
    let Some(strtab) = object.sections.get(table.link as usize) else {
        return format!("#{index}");
    };
    let start = (strtab.offset + name) as usize;
    let end = (strtab.offset + strtab.size) as usize;
    data.get(start..end)
        .and_then(|s| s.split(|&b| b == 0).next())
        .map_or_else(|| format!("#{index}"), |s| String::from_utf8_lossy(s).into_owned())
}

enum TagKind {
    Address,
    Value,
    Unknown,
}

/// Whether a `.dynamic` tag's value is an address (gABI and GNU extensions).
fn dynamic_tag(tag: i64) -> TagKind {
    let Ok(tag) = u32::try_from(tag) else { return TagKind::Unknown };
    match tag {
        elf::DT_PLTGOT | elf::DT_HASH | elf::DT_STRTAB | elf::DT_SYMTAB | elf::DT_RELA | elf::DT_INIT | elf::DT_FINI
        | elf::DT_REL | elf::DT_DEBUG | elf::DT_JMPREL | elf::DT_INIT_ARRAY | elf::DT_FINI_ARRAY
        | elf::DT_PREINIT_ARRAY | elf::DT_SYMTAB_SHNDX | elf::DT_GNU_HASH | elf::DT_VERSYM | elf::DT_VERDEF
        | elf::DT_VERNEED | 36 /* DT_RELR */ => TagKind::Address,
        elf::DT_NEEDED | elf::DT_PLTRELSZ | elf::DT_RELASZ | elf::DT_RELAENT | elf::DT_STRSZ | elf::DT_SYMENT
        | elf::DT_SONAME | elf::DT_RPATH | elf::DT_SYMBOLIC | elf::DT_RELSZ | elf::DT_RELENT | elf::DT_PLTREL
        | elf::DT_TEXTREL | elf::DT_BIND_NOW | elf::DT_INIT_ARRAYSZ | elf::DT_FINI_ARRAYSZ | elf::DT_RUNPATH
        | elf::DT_FLAGS | elf::DT_PREINIT_ARRAYSZ | 35 /* DT_RELRSZ */ | 37 /* DT_RELRENT */ | elf::DT_RELACOUNT
        | elf::DT_RELCOUNT | elf::DT_FLAGS_1 | elf::DT_VERDEFNUM | elf::DT_VERNEEDNUM => TagKind::Value,
        _ => TagKind::Unknown,
    }
}

// Little-endian field access. Every offset passed here lies inside a table the reader already
// bounds-checked, so slicing cannot fail.
pub(super) fn read_u16(data: &[u8], at: u64) -> u16 {
    u16::from_le_bytes(data[at as usize..at as usize + 2].try_into().unwrap())
}

pub(super) fn read_u32(data: &[u8], at: u64) -> u32 {
    u32::from_le_bytes(data[at as usize..at as usize + 4].try_into().unwrap())
}

pub(super) fn read_u64(data: &[u8], at: u64) -> u64 {
    u64::from_le_bytes(data[at as usize..at as usize + 8].try_into().unwrap())
}

pub(super) fn write_u64(out: &mut [u8], at: u64, value: u64) {
    out[at as usize..at as usize + 8].copy_from_slice(&value.to_le_bytes());
}

pub(super) fn write_u32(out: &mut [u8], at: u64, value: u32) {
    out[at as usize..at as usize + 4].copy_from_slice(&value.to_le_bytes());
}
