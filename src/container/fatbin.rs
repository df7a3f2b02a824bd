//! The host side of HIP fat binaries: the `.hip_fatbin` sections that hold offload bundles, and
//! the `__hip_fatbin_wrapper`s in `.hipFatBinSegment` through which the HIP runtime finds them.
//!
//! Each translation unit with device code contributes one wrapper (clang's `CGCUDANV.cpp`):
//! ```text
//! 0   magic u32 0x48495046 ("FPIH" in the file, "HIPF" as a number)
//! 4   version u32 (1)
//! 8   pointer to the unit's bundle in .hip_fatbin
//! 16  unused pointer (0)
//! ```
//! and a module constructor passes the wrapper's address to `__hipRegisterFatBinary`. The
//! runtime reads the bundle at that pointer: it never looks at section headers, and it names a
//! code object by the file offset that the pointer's address maps to (`file://…#offset=…`).
//!
//! How the pointer gets its run-time value depends on how the host was linked ([`PointerForm`]).
//! A linker may put the unit's bundles in several `.hip_fatbin` sections (gfxpatch does, when
//! a rewritten bundle no longer fits its slot: see `write::grow`); [`fatbin_bundles`] reads
//! them all, in section header order.

use object::elf;

use super::amdgpu::HIP_FATBIN_SECTION;
use super::bundle::{self, Bundle, DecompressLimits};
use super::elf::{ElfFile, Section};
use super::error::{ReadError, Result};

/// Section of the wrappers.
pub const HIP_FATBIN_WRAPPER_SECTION: &str = ".hipFatBinSegment";
/// A wrapper's first word (`HIPF`).
pub const HIP_FATBIN_WRAPPER_MAGIC: u32 = 0x4849_5046;
/// Bytes of one wrapper.
pub const HIP_FATBIN_WRAPPER_LEN: u64 = 24;
/// Offset of the bundle pointer within a wrapper.
pub const WRAPPER_POINTER_OFFSET: u64 = 8;

/// `R_X86_64_RELATIVE`: the place gets load base + addend.
pub const R_X86_64_RELATIVE: u32 = 8;
/// `SHT_RELR` (packed relative relocations, `-z pack-relative-relocs`).
pub const SHT_RELR: u32 = 19;

/// Every bundle of every `.hip_fatbin` section, with the index of the section it is in.
pub fn fatbin_bundles<'data>(file: &ElfFile<'data>, limits: &DecompressLimits) -> Result<Vec<(usize, Bundle<'data>)>> {
    let mut out = Vec::new();
    for section in fatbin_sections(file) {
        let bundles = bundle::parse_bundles(file.section_data(section), section.offset, limits)
            .map_err(|e| e.within(format!("section [{}] {HIP_FATBIN_SECTION} at {:#x}", section.index, section.offset)))?;
        out.extend(bundles.into_iter().map(|b| (section.index, b)));
    }
    Ok(out)
}

/// The `.hip_fatbin` sections with file bytes, in section header order.
pub fn fatbin_sections<'f, 'data>(file: &'f ElfFile<'data>) -> impl Iterator<Item = &'f Section<'data>> {
    file.sections.iter().filter(|s| s.name == HIP_FATBIN_SECTION && s.has_file_bytes())
}

/// How a wrapper's bundle pointer gets its run-time value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointerForm {
    /// A shared library or PIE: an `R_X86_64_RELATIVE` relocation whose `r_addend` (at this
    /// file offset) is the address. GNU ld also writes the address at the place; lld writes 0.
    RelaAddend { addend_offset: u64 },
    /// A shared library or PIE linked with packed relative relocations (`DT_RELR`): the place
    /// holds the address and a `SHT_RELR` bitmap marks it.
    Relr,
    /// A non-PIE executable: the place holds the absolute address.
    Absolute,
}

/// One `__hip_fatbin_wrapper`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wrapper {
    /// Virtual address of the wrapper.
    pub address: u64,
    /// File offset of its bundle pointer.
    pub pointer_offset: u64,
    /// The address the pointer holds at run time (before the load base is added).
    pub target: u64,
    pub form: PointerForm,
}

/// The loadable view of a host ELF: program headers and what relative relocations point at.
#[derive(Clone, Debug)]
pub struct HostImage {
    pub e_type: u16,
    pub machine: u16,
    pub segments: Vec<RawSegment>,
    pub wrappers: Vec<Wrapper>,
    /// (place, target) of every relative relocation (RELA or RELR) of the file, sorted by target:
    /// what the dynamic loader will make point where.
    pub relative: Vec<(u64, u64)>,
}

/// A program header as it is in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawSegment {
    pub p_type: u32,
    pub flags: u32,
    pub offset: u64,
    pub vaddr: u64,
    pub paddr: u64,
    pub file_size: u64,
    pub mem_size: u64,
    pub align: u64,
}

impl RawSegment {
    pub const LEN: usize = 56;

    pub fn parse(b: &[u8]) -> RawSegment {
        RawSegment {
            p_type: le32(b, 0),
            flags: le32(b, 4),
            offset: le64(b, 8),
            vaddr: le64(b, 16),
            paddr: le64(b, 24),
            file_size: le64(b, 32),
            mem_size: le64(b, 40),
            align: le64(b, 48),
        }
    }

    pub fn to_bytes(self) -> [u8; Self::LEN] {
        let mut b = [0u8; Self::LEN];
        b[0..4].copy_from_slice(&self.p_type.to_le_bytes());
        b[4..8].copy_from_slice(&self.flags.to_le_bytes());
        for (at, v) in [(8, self.offset), (16, self.vaddr), (24, self.paddr), (32, self.file_size), (40, self.mem_size), (48, self.align)] {
            b[at..at + 8].copy_from_slice(&v.to_le_bytes());
        }
        b
    }
}

pub(crate) fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
}
pub(crate) fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
pub(crate) fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

fn unsupported(detail: impl Into<String>) -> ReadError {
    ReadError::Unsupported(detail.into())
}

impl HostImage {
    /// Reads the program headers, every relative relocation and every wrapper of an x86-64
    /// host. Anything not understood is an error naming it: another machine, a wrapper without
    /// its magic, a pointer relocated some other way.
    pub fn read(file: &ElfFile<'_>) -> Result<HostImage> {
        let data = file.data;
        if file.machine != elf::EM_X86_64 {
            return Err(unsupported(format!(
                "the host is {} (e_machine {}); re-aiming fat binary pointers is implemented for x86-64 hosts only",
                super::elf::machine_name(file.machine),
                file.machine
            )));
        }
        let e_type = le16(data, 16);
        if e_type != elf::ET_DYN && e_type != elf::ET_EXEC {
            return Err(unsupported(format!("the host's e_type is {e_type}, neither ET_DYN nor ET_EXEC")));
        }
        let (phoff, phentsize, phnum) = (le64(data, 32), le16(data, 54), le16(data, 56));
        if phnum == 0xffff || (phnum > 0 && usize::from(phentsize) != RawSegment::LEN) {
            return Err(unsupported(format!("program header table with e_phnum {phnum}, e_phentsize {phentsize}")));
        }
        let table = super::error::slice(data, phoff, u64::from(phnum) * RawSegment::LEN as u64, "program header table")?;
        let segments: Vec<RawSegment> = table.chunks_exact(RawSegment::LEN).map(RawSegment::parse).collect();

        let mut relative = Vec::new();
        let mut rela_at = std::collections::HashMap::new();
        for s in &file.sections {
            let alloc = s.flags & u64::from(elf::SHF_ALLOC) != 0;
            match s.sh_type {
                elf::SHT_RELA if alloc => {
                    if s.entsize != 24 {
                        return Err(unsupported(format!("section [{}] {}: RELA entries of {} bytes", s.index, s.name, s.entsize)));
                    }
                    for (i, r) in file.section_data(s).chunks_exact(24).enumerate() {
                        let (place, info, addend) = (le64(r, 0), le64(r, 8), le64(r, 16));
                        if info as u32 == R_X86_64_RELATIVE {
                            relative.push((place, addend));
                        }
                        rela_at.insert(place, (s.offset + i as u64 * 24, info));
                    }
                }
                elf::SHT_REL if alloc => {
                    return Err(unsupported(format!("section [{}] {}: SHT_REL dynamic relocations (x86-64 uses RELA)", s.index, s.name)));
                }
                SHT_RELR => {
                    for place in relr_places(file.section_data(s)) {
                        let at = file_offset(&segments, place, 8)
                            .ok_or_else(|| ReadError::malformed("RELR relocation", place, "its place is not in the file"))?;
                        relative.push((place, le64(data, at as usize)));
                    }
                }
                _ => {}
            }
        }
        let relr: std::collections::HashSet<u64> = relative.iter().map(|&(p, _)| p).collect();
        relative.sort_by_key(|&(place, target)| (target, place));

        let mut wrappers = Vec::new();
        for s in file.sections.iter().filter(|s| s.name == HIP_FATBIN_WRAPPER_SECTION && s.has_file_bytes()) {
            let bytes = file.section_data(s);
            if bytes.len() as u64 % HIP_FATBIN_WRAPPER_LEN != 0 {
                return Err(ReadError::malformed(
                    "fat binary wrappers",
                    s.offset,
                    format!("{HIP_FATBIN_WRAPPER_SECTION} is {} bytes, not a multiple of {HIP_FATBIN_WRAPPER_LEN}", bytes.len()),
                ));
            }
            for (i, w) in bytes.chunks_exact(HIP_FATBIN_WRAPPER_LEN as usize).enumerate() {
                let address = s.address + i as u64 * HIP_FATBIN_WRAPPER_LEN;
                let offset = s.offset + i as u64 * HIP_FATBIN_WRAPPER_LEN;
                if le32(w, 0) != HIP_FATBIN_WRAPPER_MAGIC {
                    return Err(ReadError::malformed(
                        "__hip_fatbin_wrapper",
                        offset,
                        format!("magic {:#010x} instead of {HIP_FATBIN_WRAPPER_MAGIC:#010x} (HIPF)", le32(w, 0)),
                    ));
                }
                let place = address + WRAPPER_POINTER_OFFSET;
                let in_place = le64(w, WRAPPER_POINTER_OFFSET as usize);
                let (form, target) = match rela_at.get(&place) {
                    Some(&(entry, info)) if info as u32 == R_X86_64_RELATIVE => {
                        (PointerForm::RelaAddend { addend_offset: entry + 16 }, le64(data, entry as usize + 16))
                    }
                    Some(&(_, info)) => {
                        return Err(unsupported(format!(
                            "the bundle pointer of the __hip_fatbin_wrapper at {address:#x} is relocated by type {} against symbol {}; only R_X86_64_RELATIVE is understood",
                            info as u32,
                            info >> 32
                        )));
                    }
                    None if relr.contains(&place) => (PointerForm::Relr, in_place),
                    None if e_type == elf::ET_EXEC => (PointerForm::Absolute, in_place),
                    None => {
                        return Err(unsupported(format!(
                            "the bundle pointer of the __hip_fatbin_wrapper at {address:#x} has no relative relocation in this position-independent file"
                        )));
                    }
                };
                wrappers.push(Wrapper { address, pointer_offset: offset + WRAPPER_POINTER_OFFSET, target, form });
            }
        }
        Ok(HostImage { e_type, machine: file.machine, segments, wrappers, relative })
    }

    /// File offset of `len` bytes at virtual address `address`, through the `PT_LOAD` segments.
    pub fn file_offset(&self, address: u64, len: u64) -> Option<u64> {
        file_offset(&self.segments, address, len)
    }
}

/// File offset of `len` bytes at `address`, if one `PT_LOAD` maps all of them from the file.
pub fn file_offset(segments: &[RawSegment], address: u64, len: u64) -> Option<u64> {
    segments.iter().filter(|p| p.p_type == elf::PT_LOAD).find_map(|p| {
        let delta = address.checked_sub(p.vaddr)?;
        (delta.checked_add(len)? <= p.file_size).then(|| p.offset + delta)
    })
}

/// The places a `SHT_RELR` section relocates: an even word is an address (and the next word's
/// base), an odd word a bitmap of the 63 words after the base.
fn relr_places(data: &[u8]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut base = 0u64;
    for word in data.chunks_exact(8).map(|w| le64(w, 0)) {
        if word & 1 == 0 {
            out.push(word);
            base = word.wrapping_add(8);
        } else {
            for bit in 1..64 {
                if word >> bit & 1 == 1 {
                    out.push(base.wrapping_add((bit - 1) * 8));
                }
            }
            base = base.wrapping_add(63 * 8);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relr_words_decode_to_places() {
        // An address, then a bitmap marking the 1st and 3rd words after it.
        let mut data = Vec::new();
        data.extend_from_slice(&0x1000u64.to_le_bytes());
        data.extend_from_slice(&(1u64 | 1 << 1 | 1 << 3).to_le_bytes());
        assert_eq!(relr_places(&data), vec![0x1000, 0x1008, 0x1018]);
    }
}
