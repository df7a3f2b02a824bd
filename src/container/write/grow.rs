//! Growing a host library: bundles that no longer fit their slots move to the end of the last
//! `PT_LOAD`, which grows to take them.
//!
//! Layout of a grown file (see docs/host-libraries.md):
//! ```text
//! [the input up to the end of its last PT_LOAD's file bytes, except the edits below]
//! [zeros: the last segment's .bss, now read from the file, then up to a 4 KiB boundary]
//! [each moved bundle on a 4 KiB boundary: a second `.hip_fatbin` section]
//!   -- the last PT_LOAD's p_filesz = p_memsz end here; p_vaddr - p_offset is unchanged --
//! [the unloaded tail of the input, moved: non-alloc sections (.symtab, .comment, ...)]
//! [the section header table: the input's, plus the new `.hip_fatbin`]
//! ```
//! Edits inside the input's bytes: the ELF header (`e_shoff`, `e_shnum`); the last `PT_LOAD`'s
//! sizes; each moved bundle's old slot, zeroed (so that no reader finds the stale bundle); the
//! pointer of every `__hip_fatbin_wrapper` aimed at a moved bundle (its `R_X86_64_RELATIVE`
//! addend, and the place if it held the address; or the place itself under `DT_RELR` and in a
//! non-PIE executable); the value and section index of any symbol inside a moved bundle's old
//! slot. Nothing else: code, `.dynamic`, other relocations, hash tables and string tables keep
//! their bytes (the new section reuses the name `.hip_fatbin` already in `.shstrtab`), and the
//! moved non-alloc sections keep theirs at a new `sh_offset`.
//!
//! Why grow the last segment rather than add one (what patchelf and LIEF do): a new program
//! header needs room after the table, and linkers leave none (librocsparse: 9 headers, then
//! `.note.gnu.build-id`). Moving the table into a new segment loads fine, but GNU strip always
//! writes the table right after the ELF header and misplaces the segment that held it (the
//! stripped file crashes the loader: the failure BOLT users met). Growing the last segment adds
//! no header, so strip, the loader and `eu-elflint` see an ordinary file. The price: the
//! bundles are mapped writable (private, copy-on-write pages nobody writes), and the last
//! segment's `.bss` is stored as zeros in the file.
//!
//! Written by hand rather than with `object::build::elf::Builder`: the builder re-serialises
//! the whole file (it rebuilds `.hash`/`.gnu.hash`, re-sorts `.dynsym`, rewrites string and
//! relocation tables and chooses its own offsets), so the bytes of the host would not survive,
//! and it holds every section as owned data, which for a 1.3 GB library means a second copy.

use object::elf;

use super::image::{Image, Piece, Pieces};
use super::WriteError;
use crate::container::elf::ElfFile;
use crate::container::fatbin::{le16, le32, le64, HostImage, PointerForm, RawSegment};

/// A bundle to be moved to the end of the last segment.
#[derive(Clone, Debug)]
pub(super) struct BundleMove<'a> {
    /// Section header index of the `.hip_fatbin` it was in.
    pub section_index: usize,
    /// Its old virtual address and file offset, and the length of its old slot (to the next
    /// bundle or the end of its section).
    pub old_address: u64,
    pub old_offset: u64,
    pub slot_len: u64,
    /// Its new bytes (plain, or compressed again with its own codec).
    pub bytes: Pieces<'a>,
}

/// Where a moved bundle went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Placement {
    pub address: u64,
    pub offset: u64,
}

/// Bundles start on 4 KiB boundaries, as the HIP driver's `-bundle-align=4096` placed them.
const BUNDLE_ALIGN: u64 = 4096;
const SHDR_LEN: u64 = 64;
const SYM_LEN: usize = 24;
const SHN_LORESERVE: u64 = 0xff00;

/// What growth needs to know of the input, read once per file.
pub(super) struct Grower {
    image: HostImage,
}

impl Grower {
    /// Reads what growth relies on; an error says why this file cannot grow.
    pub fn new(file: &ElfFile<'_>) -> Result<Grower, String> {
        let image = HostImage::read(file).map_err(|e| e.to_string())?;
        if image.wrappers.is_empty() {
            return Err("the host has no __hip_fatbin_wrapper (.hipFatBinSegment), so nothing says which pointers to re-aim".into());
        }
        if !image.segments.iter().any(|p| p.p_type == elf::PT_LOAD) {
            return Err("the host has no PT_LOAD segment".into());
        }
        let data = file.data;
        let (shnum, shstrndx, shentsize) = (le16(data, 60), le16(data, 62), le16(data, 58));
        if shnum == 0 || u64::from(shnum) + 1 >= SHN_LORESERVE || shstrndx == elf::SHN_XINDEX || u64::from(shentsize) != SHDR_LEN {
            return Err(format!("section header table with e_shnum {shnum}, e_shstrndx {shstrndx}, e_shentsize {shentsize}"));
        }
        // Static relocations kept by --emit-relocs would still name the old addresses.
        if let Some(s) = file.sections.iter().find(|s| {
            (s.sh_type == elf::SHT_RELA || s.sh_type == elf::SHT_REL) && s.flags & u64::from(elf::SHF_ALLOC) == 0 && s.size > 0
        }) {
            return Err(format!("section [{}] {} holds static relocations (--emit-relocs) that moving a bundle would leave stale", s.index, s.name));
        }
        Ok(Grower { image })
    }

    /// Whether the bundle at `address` (its slot `len` bytes long) can move: a wrapper points
    /// at its first byte, and nothing else points into it.
    pub fn can_move(&self, address: u64, len: u64) -> Result<(), String> {
        let inside = |a: u64| a >= address && a - address < len;
        if let Some(w) = self.image.wrappers.iter().find(|w| inside(w.target) && w.target != address) {
            return Err(format!("the __hip_fatbin_wrapper at {:#x} points at {:#x}, inside the bundle at {address:#x} rather than at its start", w.address, w.target));
        }
        if !self.image.wrappers.iter().any(|w| w.target == address) {
            return Err(format!("no __hip_fatbin_wrapper points at the bundle at {address:#x}"));
        }
        let first = self.image.relative.partition_point(|&(_, t)| t < address);
        for &(place, target) in self.image.relative[first..].iter().take_while(|&&(_, t)| inside(t)) {
            if !self.image.wrappers.iter().any(|w| w.address + 8 == place) {
                return Err(format!("a relocation at {place:#x} points at {target:#x} in the bundle at {address:#x}, and it is no __hip_fatbin_wrapper"));
            }
        }
        Ok(())
    }

    /// Moves `moves` to the end of the last `PT_LOAD`, which grows to take them, in `out` (the
    /// input with its in-place edits already made), and re-aims everything that pointed at them.
    pub fn apply<'a>(&self, file: &ElfFile<'a>, out: &mut Image<'a>, moves: &[BundleMove<'a>]) -> Result<Vec<Placement>, WriteError> {
        let data = file.data;
        let layout = |m: String| WriteError::Layout(m);
        let (last_index, last) = self
            .image
            .segments
            .iter()
            .enumerate()
            .filter(|(_, p)| p.p_type == elf::PT_LOAD)
            .max_by_key(|(_, p)| p.vaddr)
            .map(|(i, p)| (i, *p))
            .unwrap();
        let file_end = last.offset + last.file_size;
        let vend = last.vaddr + last.mem_size;
        let delta = last.vaddr.wrapping_sub(last.offset);
        if let Some(p) = self.image.segments.iter().find(|p| p.p_type == elf::PT_LOAD && (p.offset + p.file_size > file_end || p.vaddr + p.mem_size > vend)) {
            return Err(layout(format!(
                "the PT_LOAD at {:#x} ends after the last one (at {:#x}) in the file or in memory; the host's segments are not in address order",
                p.vaddr, last.vaddr
            )));
        }
        // Everything after the last segment's file bytes must be unmapped and movable.
        let trailing: Vec<usize> = file
            .sections
            .iter()
            .filter(|s| s.has_file_bytes() && s.size > 0 && s.offset + s.size > file_end)
            .map(|s| s.index)
            .collect();
        if let Some(&i) = trailing.iter().find(|&&i| file.sections[i].flags & u64::from(elf::SHF_ALLOC) != 0) {
            let s = &file.sections[i];
            return Err(layout(format!("section [{i}] {} at file offset {:#x} is loaded but lies after the last PT_LOAD", s.name, s.offset)));
        }
        let old_shoff = le64(data, 40);
        let shnum = u64::from(le16(data, 60));
        if old_shoff < file_end {
            return Err(layout(format!("the section header table at {old_shoff:#x} lies inside the loaded part of the file")));
        }
        let phoff = le64(data, 32);
        if phoff >= file_end {
            return Err(layout(format!("the program header table at {phoff:#x} lies after the last PT_LOAD")));
        }

        // The last segment's file image now runs to its memory end (zeros where .bss was), then
        // to the first moved bundle, on a 4 KiB boundary.
        let first_vaddr = vend.next_multiple_of(BUNDLE_ALIGN);
        let mut placements = Vec::with_capacity(moves.len());
        let mut cursor = first_vaddr;
        for m in moves {
            let address = cursor.next_multiple_of(BUNDLE_ALIGN);
            placements.push(Placement { address, offset: address.wrapping_sub(delta) });
            cursor = address + m.bytes.len();
        }
        let new_file_end = cursor.wrapping_sub(delta);

        // Old slots become zero padding, which readers skip between bundles.
        for m in moves {
            out.zero(m.old_offset, m.slot_len);
        }
        self.reaim_wrappers(out, moves, &placements);
        let new_section_index = shnum;
        // Symbols in loaded tables (.dynsym) are edited in place; those in .symtab, which lies
        // after the last PT_LOAD and is appended again below, are edited in that copy.
        let symbols = reaim_symbols(file, out, moves, &placements, new_section_index as u16)?;
        for s in symbols.iter().filter(|s| s.at < file_end) {
            out.put(s.at + 6, s.shndx.to_le_bytes().to_vec());
            out.put(s.at + 8, s.value.to_le_bytes().to_vec());
        }

        // The unloaded tail (non-alloc sections, section headers) moves after the new bytes.
        out.truncate(file_end);
        for (m, p) in moves.iter().zip(&placements) {
            out.pad_to(p.offset);
            for piece in &m.bytes.0 {
                out.append(piece.clone());
            }
        }
        debug_assert_eq!(out.len(), new_file_end);
        let mut headers = data[old_shoff as usize..(old_shoff + shnum * SHDR_LEN) as usize].to_vec();
        for &i in &trailing {
            let s = &file.sections[i];
            let at = out.len().next_multiple_of(s.align.max(1));
            out.pad_to(at);
            let mut bytes: std::borrow::Cow<'a, [u8]> = file.section_data(s).into();
            for e in symbols.iter().filter(|e| e.at >= s.offset && e.at < s.offset + s.size) {
                let r = (e.at - s.offset) as usize;
                let b = bytes.to_mut();
                b[r + 6..r + 8].copy_from_slice(&e.shndx.to_le_bytes());
                b[r + 8..r + 16].copy_from_slice(&e.value.to_le_bytes());
            }
            out.append(Piece::Bytes(bytes));
            let h = i * SHDR_LEN as usize;
            headers[h + 24..h + 32].copy_from_slice(&at.to_le_bytes());
        }
        let fatbin = &file.sections[moves[0].section_index];
        let size = cursor - first_vaddr;
        let name = le32(&headers, fatbin.index * SHDR_LEN as usize);
        headers.extend_from_slice(&section_header(name, fatbin.sh_type, fatbin.flags, placements[0].address, placements[0].offset, size, BUNDLE_ALIGN));
        let shoff = out.len().next_multiple_of(8);
        out.pad_to(shoff);
        out.append(Piece::Bytes(headers.into()));

        // The last PT_LOAD grows; no program header is added, so the table stays where it is.
        let grown = RawSegment { file_size: new_file_end - last.offset, mem_size: new_file_end - last.offset, ..last };
        let at = phoff + (last_index * RawSegment::LEN) as u64;
        out.put(at, grown.to_bytes().to_vec());
        out.put(40, shoff.to_le_bytes().to_vec());
        out.put(60, ((shnum + 1) as u16).to_le_bytes().to_vec());
        Ok(placements)
    }

    fn reaim_wrappers(&self, out: &mut Image<'_>, moves: &[BundleMove], placements: &[Placement]) {
        for w in &self.image.wrappers {
            let Some(i) = moves.iter().position(|m| m.old_address == w.target) else { continue };
            let new = placements[i].address;
            let place = w.pointer_offset;
            match w.form {
                PointerForm::RelaAddend { addend_offset } => {
                    out.put(addend_offset, new.to_le_bytes().to_vec());
                    // GNU ld also writes the address at the place; lld leaves 0 there.
                    if out.read_u64(place) == w.target {
                        out.put(place, new.to_le_bytes().to_vec());
                    }
                }
                PointerForm::Relr | PointerForm::Absolute => out.put(place, new.to_le_bytes().to_vec()),
            }
        }
    }
}

/// Symbols inside a moved bundle's old slot follow it into the new section.
/// A symbol re-aimed at a moved bundle: its table entry's file offset, new section index and
/// new value.
struct SymbolEdit {
    at: u64,
    shndx: u16,
    value: u64,
}

/// The symbols (in `.symtab` and `.dynsym`) that point into a moved bundle, re-aimed at its new
/// place in the new `.hip_fatbin` section `new_index`.
fn reaim_symbols(file: &ElfFile<'_>, out: &Image<'_>, moves: &[BundleMove], placements: &[Placement], new_index: u16) -> Result<Vec<SymbolEdit>, WriteError> {
    let mut edits = Vec::new();
    for table in file.sections.iter().filter(|s| s.sh_type == elf::SHT_SYMTAB || s.sh_type == elf::SHT_DYNSYM) {
        for at in (table.offset..table.offset + table.size).step_by(SYM_LEN) {
            let (shndx, value) = (out.read_u16(at + 6), out.read_u64(at + 8));
            if shndx == elf::SHN_XINDEX {
                return Err(WriteError::Layout(format!("section [{}] {}: a symbol with an extended section index (SHN_XINDEX)", table.index, table.name)));
            }
            let Some(i) = moves.iter().position(|m| usize::from(shndx) == m.section_index && value >= m.old_address && value - m.old_address < m.slot_len) else {
                continue;
            };
            edits.push(SymbolEdit { at, shndx: new_index, value: placements[i].address + (value - moves[i].old_address) });
        }
    }
    Ok(edits)
}

fn section_header(name: u32, sh_type: u32, flags: u64, address: u64, offset: u64, size: u64, align: u64) -> [u8; SHDR_LEN as usize] {
    let mut b = [0u8; SHDR_LEN as usize];
    b[0..4].copy_from_slice(&name.to_le_bytes());
    b[4..8].copy_from_slice(&sh_type.to_le_bytes());
    for (at, v) in [(8, flags), (16, address), (24, offset), (32, size), (48, align)] {
        b[at..at + 8].copy_from_slice(&v.to_le_bytes());
    }
    b
}
