//! Reading AMDGPU ELF code objects: header, sections, segments, symbols, kernels with their
//! descriptors, the metadata note, the dynamic section and relocations.
//!
//! Zero-copy: a [`CodeObject`] borrows the file's bytes (usually an mmap) and records offsets
//! into them; nothing is copied but small typed values. Layout-changing rewrites (issue #5)
//! need every one of these records, so they are all read up front and kept in file order.

use object::LittleEndian as LE;
use object::elf;
use object::read::elf::{
    Dyn as _, FileHeader, ProgramHeader as _, Rela as _, SectionHeader as _, Sym as _,
};

use super::amdgpu::{
    ELFOSABI_AMDGPU_MESA3D, ELFOSABI_AMDGPU_PAL, EM_AMDGPU, KERNEL_DESCRIPTOR_SIZE, NOTE_OWNER_AMD, NOTE_OWNER_AMDGPU,
    NT_AMDGPU_METADATA, NT_AMD_PAL_METADATA,
};
use super::descriptor::KernelDescriptor;
use super::error::{ReadError, Result, slice};
use super::graphics::Shader;
use super::metadata::Metadata;
use super::target_id::{CodeObjectVersion, TargetId, code_object_version};

type Header = elf::FileHeader64<LE>;

/// `e_type` of an ELF file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElfType {
    /// `ET_REL`: what the compiler or assembler emits before linking.
    Relocatable,
    /// `ET_DYN`: a linked code object, what the HSA loader accepts.
    Shared,
    Executable,
    Other(u16),
}

/// One section header, with its name resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Section<'data> {
    pub index: usize,
    pub name: &'data str,
    pub sh_type: u32,
    pub flags: u64,
    pub address: u64,
    pub offset: u64,
    pub size: u64,
    pub link: u32,
    pub info: u32,
    pub align: u64,
    pub entsize: u64,
}

impl Section<'_> {
    /// True if the section occupies bytes in the file (not `SHT_NOBITS`).
    pub fn has_file_bytes(&self) -> bool {
        self.sh_type != elf::SHT_NOBITS && self.sh_type != elf::SHT_NULL
    }

    pub fn is_executable(&self) -> bool {
        self.flags & u64::from(elf::SHF_EXECINSTR) != 0
    }
}

/// One program header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub p_type: u32,
    pub flags: u32,
    pub offset: u64,
    pub vaddr: u64,
    pub file_size: u64,
    pub mem_size: u64,
    pub align: u64,
}

/// What a symbol names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    /// `STT_FUNC` with a matching `NAME.kd`: a kernel entry point.
    Kernel,
    /// `STT_OBJECT` named `NAME.kd`: a kernel descriptor.
    KernelDescriptor,
    /// Any other `STT_FUNC`: a device function.
    Function,
    /// Any other `STT_OBJECT`: data.
    Data,
    Section,
    File,
    Other,
}

/// One symbol of `.symtab` (or of `.dynsym` when there is no `.symtab`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symbol<'data> {
    pub index: usize,
    pub name: &'data str,
    pub kind: SymbolKind,
    pub binding: u8,
    pub visibility: u8,
    pub section_index: u16,
    pub value: u64,
    pub size: u64,
    /// True if it came from `.dynsym`.
    pub dynamic: bool,
}

/// One `.dynamic` entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DynamicEntry {
    pub tag: i64,
    pub value: u64,
}

/// One relocation of a `SHT_RELA` section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relocation {
    /// The `SHT_RELA` section this entry is in.
    pub section_index: usize,
    pub offset: u64,
    pub r_type: u32,
    pub symbol: u32,
    pub addend: i64,
}

/// A kernel: its entry symbol, descriptor and where its code is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel<'data> {
    pub name: &'data str,
    /// Index into [`CodeObject::symbols`] of the `NAME.kd` symbol.
    pub descriptor_symbol: usize,
    /// Index of the `STT_FUNC` entry symbol, if the object has one.
    pub code_symbol: Option<usize>,
    pub descriptor: KernelDescriptor,
    /// Virtual address and file offset of the descriptor.
    pub descriptor_address: u64,
    pub descriptor_offset: u64,
    /// Virtual address of the first instruction: descriptor address + entry byte offset.
    pub entry_address: u64,
    /// File offset of the first instruction, if it lies in a section with file bytes.
    pub entry_offset: Option<u64>,
    /// Bytes of code, from the entry symbol's `st_size` (0 if unknown).
    pub code_size: u64,
}

/// The driver ABI a code object is for (`e_ident[EI_OSABI]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OsAbi {
    /// ROCm and HIP: kernels with descriptors.
    Hsa,
    /// AMD's graphics drivers (PAL): shaders described by the metadata note.
    Pal,
    /// Mesa (radeonsi): shaders configured by `.AMDGPU.config`.
    Mesa3d,
}

/// An AMDGPU code object (HSA, PAL or Mesa3D), read.
#[derive(Debug)]
pub struct CodeObject<'data> {
    pub data: &'data [u8],
    pub elf_type: ElfType,
    pub e_flags: u32,
    pub os_abi: OsAbi,
    /// The HSA code object version; PAL and Mesa objects have none and read as v3, whose
    /// `e_flags` layout LLVM gives them.
    pub version: CodeObjectVersion,
    pub target: TargetId,
    pub sections: Vec<Section<'data>>,
    pub segments: Vec<Segment>,
    pub symbols: Vec<Symbol<'data>>,
    pub dynamic: Vec<DynamicEntry>,
    pub relocations: Vec<Relocation>,
    pub kernels: Vec<Kernel<'data>>,
    /// Graphics shaders (PAL and Mesa3D objects; HSA objects have none).
    pub shaders: Vec<Shader<'data>>,
    pub metadata: Option<Metadata>,
    /// File offset and length of the metadata note's descriptor (the msgpack bytes).
    pub metadata_range: Option<(u64, u64)>,
}

/// The parts of any ELF64 little-endian file gfxpatch looks at, AMDGPU or host.
pub struct ElfFile<'data> {
    pub data: &'data [u8],
    header: &'data Header,
    pub machine: u16,
    pub sections: Vec<Section<'data>>,
}

impl<'data> ElfFile<'data> {
    pub fn parse(data: &'data [u8]) -> Result<ElfFile<'data>> {
        if data.len() < 64 {
            return Err(ReadError::Truncated {
                what: "ELF header",
                start: 0,
                end: 64,
                len: data.len() as u64,
            });
        }
        match data[4] {
            elf::ELFCLASS64 => {}
            elf::ELFCLASS32 => {
                return Err(ReadError::Unsupported(
                    "32-bit ELF (AMDGPU code objects and their hosts are ELF64)".into(),
                ));
            }
            other => {
                return Err(ReadError::malformed(
                    "ELF header",
                    4,
                    format!("EI_CLASS {other}"),
                ));
            }
        }
        if data[5] != elf::ELFDATA2LSB {
            return Err(ReadError::Unsupported("big-endian ELF".into()));
        }
        let header = Header::parse(data).map_err(|e| elf_error("ELF header", e))?;
        let endian = LE;
        let table = header
            .sections(endian, data)
            .map_err(|e| elf_error("section headers", e))?;
        let mut sections = Vec::with_capacity(table.len());
        for (index, s) in table.enumerate() {
            let raw_name = table
                .section_name(endian, s)
                .map_err(|e| elf_error("section name", e))?;
            let name = std::str::from_utf8(raw_name).map_err(|_| {
                ReadError::malformed("section name", u64::from(s.sh_name(endian)), "not UTF-8")
            })?;
            let section = Section {
                index: index.0,
                name,
                sh_type: s.sh_type(endian),
                flags: s.sh_flags(endian),
                address: s.sh_addr(endian),
                offset: s.sh_offset(endian),
                size: s.sh_size(endian),
                link: s.sh_link(endian),
                info: s.sh_info(endian),
                align: s.sh_addralign(endian),
                entsize: s.sh_entsize(endian),
            };
            if section.has_file_bytes() {
                slice(data, section.offset, section.size, "section contents")
                    .map_err(|e| e.within(format!("section [{}] {}", index.0, name)))?;
            }
            sections.push(section);
        }
        Ok(ElfFile {
            data,
            header,
            machine: header.e_machine(endian),
            sections,
        })
    }

    pub fn section_by_name(&self, name: &str) -> Option<&Section<'data>> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// The bytes of a section (empty for `SHT_NOBITS`).
    pub fn section_data(&self, section: &Section<'_>) -> &'data [u8] {
        if !section.has_file_bytes() {
            return &[];
        }
        // Bounds were checked when the section table was read.
        &self.data[section.offset as usize..(section.offset + section.size) as usize]
    }
}

fn elf_error(what: &'static str, e: object::read::Error) -> ReadError {
    ReadError::Elf {
        what,
        detail: e.to_string(),
    }
}

impl<'data> CodeObject<'data> {
    /// Reads an AMDGPU code object: HSA (ET_DYN or ET_REL, code object v3-v6), PAL or Mesa3D.
    pub fn parse(data: &'data [u8]) -> Result<CodeObject<'data>> {
        let file = ElfFile::parse(data)?;
        if file.machine != EM_AMDGPU {
            return Err(ReadError::NotAmdgpu {
                machine: file.machine,
                name: machine_name(file.machine),
            });
        }
        let endian = LE;
        let header = file.header;
        let ident = header.e_ident();
        let (os_abi, version) = match ident.os_abi {
            ELFOSABI_AMDGPU_PAL => (OsAbi::Pal, CodeObjectVersion::V3),
            ELFOSABI_AMDGPU_MESA3D => (OsAbi::Mesa3d, CodeObjectVersion::V3),
            other => (OsAbi::Hsa, code_object_version(other, ident.abi_version)?),
        };
        let e_flags = header.e_flags(endian);
        let target = TargetId::from_e_flags(e_flags, version)?;
        let elf_type = match header.e_type(endian) {
            elf::ET_REL => ElfType::Relocatable,
            elf::ET_DYN => ElfType::Shared,
            elf::ET_EXEC => ElfType::Executable,
            other => ElfType::Other(other),
        };

        let segments = header
            .program_headers(endian, data)
            .map_err(|e| elf_error("program headers", e))?
            .iter()
            .map(|p| Segment {
                p_type: p.p_type(endian),
                flags: p.p_flags(endian),
                offset: p.p_offset(endian),
                vaddr: p.p_vaddr(endian),
                file_size: p.p_filesz(endian),
                mem_size: p.p_memsz(endian),
                align: p.p_align(endian),
            })
            .collect();

        let table = header
            .sections(endian, data)
            .map_err(|e| elf_error("section headers", e))?;
        let symbols = read_symbols(&table, data)?;
        let mut dynamic = Vec::new();
        let mut relocations = Vec::new();
        let mut metadata = None;
        let mut metadata_range = None;
        let mut legacy_pal = None;
        for (index, s) in table.enumerate() {
            let context = || format!("section [{}] {}", index.0, file.sections[index.0].name);
            if let Some((entries, _)) = s
                .dynamic(endian, data)
                .map_err(|e| elf_error("dynamic section", e).within(context()))?
            {
                dynamic.extend(entries.iter().map(|d| DynamicEntry {
                    tag: d.d_tag(endian) as i64,
                    value: d.d_val(endian),
                }));
            }
            if let Some((entries, _)) = s
                .rela(endian, data)
                .map_err(|e| elf_error("relocations", e).within(context()))?
            {
                relocations.extend(entries.iter().map(|r| Relocation {
                    section_index: index.0,
                    offset: r.r_offset(endian),
                    r_type: r.r_type(endian, false),
                    symbol: r.r_sym(endian, false),
                    addend: r.r_addend(endian),
                }));
            }
            if let Some(mut notes) = s
                .notes(endian, data)
                .map_err(|e| elf_error("notes", e).within(context()))?
            {
                while let Some(note) = notes
                    .next()
                    .map_err(|e| elf_error("note", e).within(context()))?
                {
                    if note.name() == NOTE_OWNER_AMDGPU && note.n_type(endian) == NT_AMDGPU_METADATA
                    {
                        let desc = note.desc();
                        let offset = desc.as_ptr() as u64 - data.as_ptr() as u64;
                        metadata = Some(Metadata::parse(desc, offset)?);
                        metadata_range = Some((offset, desc.len() as u64));
                    }
                    if note.name() == NOTE_OWNER_AMD && note.n_type(endian) == NT_AMD_PAL_METADATA {
                        let desc = note.desc();
                        legacy_pal = Some((desc, desc.as_ptr() as u64 - data.as_ptr() as u64));
                    }
                }
            }
        }

        let mut object = CodeObject {
            data,
            elf_type,
            e_flags,
            os_abi,
            version,
            target,
            sections: file.sections,
            segments,
            symbols,
            dynamic,
            relocations,
            kernels: Vec::new(),
            shaders: Vec::new(),
            metadata,
            metadata_range,
        };
        object.kernels = object.find_kernels()?;
        let generation = object.target.processor.generation;
        object.shaders = match os_abi {
            OsAbi::Hsa => Vec::new(),
            OsAbi::Pal => match (&object.metadata, legacy_pal) {
                (None, Some(legacy)) => super::pal::legacy_shaders(legacy, &object.symbols, generation)?,
                (metadata, _) => super::pal::shaders(metadata.as_ref(), metadata_range.map_or(0, |r| r.0), &object.symbols, generation)?,
            },
            OsAbi::Mesa3d => {
                let config = object.sections.iter().find(|s| s.name == super::mesa::CONFIG_SECTION && s.has_file_bytes());
                super::mesa::shaders(config.map(|s| (object.section_data(s), s.offset)), &object.symbols, generation)?
            }
        };
        Ok(object)
    }

    /// True for PAL and Mesa3D objects, whose entry points are shaders, not kernels.
    pub fn is_graphics(&self) -> bool {
        self.os_abi != OsAbi::Hsa
    }

    /// Every entry point, kernels and shaders: its name and first instruction's address.
    pub fn entries(&self) -> impl Iterator<Item = (&'data str, u64)> + '_ {
        self.kernels.iter().map(|k| (k.name, k.entry_address)).chain(self.shaders.iter().map(|s| (s.name, s.entry_address)))
    }

    /// File offset of `len` bytes at `address` in section `section_index`, if they are in the file.
    pub fn file_offset(&self, section_index: usize, address: u64, len: u64) -> Option<u64> {
        let s = self.sections.get(section_index)?;
        let delta = address.checked_sub(s.address)?;
        (s.has_file_bytes() && delta.checked_add(len)? <= s.size).then(|| s.offset + delta)
    }

    /// The section holding `address` (ET_DYN: virtual addresses are unique across sections).
    pub fn section_containing(&self, address: u64) -> Option<&Section<'data>> {
        self.sections.iter().find(|s| {
            s.flags & u64::from(elf::SHF_ALLOC) != 0
                && address >= s.address
                && address - s.address < s.size
        })
    }

    fn find_kernels(&self) -> Result<Vec<Kernel<'data>>> {
        let mut kernels = Vec::new();
        for kd in self
            .symbols
            .iter()
            .filter(|s| s.kind == SymbolKind::KernelDescriptor)
        {
            let name = &kd.name[..kd.name.len() - ".kd".len()];
            let context = || format!("kernel descriptor {}", kd.name);
            let offset = self
                .file_offset(
                    kd.section_index as usize,
                    kd.value,
                    KERNEL_DESCRIPTOR_SIZE as u64,
                )
                .ok_or_else(|| {
                    ReadError::malformed(
                        "kernel descriptor symbol",
                        kd.value,
                        "does not lie within the file bytes of its section",
                    )
                    .within(context())
                })?;
            let raw: [u8; KERNEL_DESCRIPTOR_SIZE] = slice(
                self.data,
                offset,
                KERNEL_DESCRIPTOR_SIZE as u64,
                "kernel descriptor",
            )?
            .try_into()
            .unwrap();
            let descriptor = KernelDescriptor::from_bytes(raw);
            let code_symbol = self.symbols.iter().position(|s| {
                s.kind == SymbolKind::Kernel && s.name == name && s.dynamic == kd.dynamic
            });
            let entry_address = kd
                .value
                .wrapping_add_signed(descriptor.kernel_code_entry_byte_offset());
            let entry_offset = self
                .section_containing(entry_address)
                .map(|s| s.offset + (entry_address - s.address));
            kernels.push(Kernel {
                name,
                descriptor_symbol: kd.index,
                code_symbol,
                descriptor,
                descriptor_address: kd.value,
                descriptor_offset: offset,
                entry_address,
                entry_offset,
                code_size: code_symbol.map_or(0, |i| self.symbols[i].size),
            });
        }
        Ok(kernels)
    }

    /// Device functions: `STT_FUNC` symbols that are not kernel entries.
    pub fn functions(&self) -> impl Iterator<Item = &Symbol<'data>> {
        self.symbols
            .iter()
            .filter(|s| s.kind == SymbolKind::Function)
    }

    /// The sections holding instructions.
    pub fn text_sections(&self) -> impl Iterator<Item = &Section<'data>> {
        self.sections
            .iter()
            .filter(|s| s.is_executable() && s.has_file_bytes())
    }

    /// The bytes of a section (empty for `SHT_NOBITS`).
    pub fn section_data(&self, section: &Section<'_>) -> &'data [u8] {
        if !section.has_file_bytes() {
            return &[];
        }
        // Bounds were checked when the section table was read.
        &self.data[section.offset as usize..(section.offset + section.size) as usize]
    }

    /// The bytes of the first section named `name` that has bytes in the file; empty when there
    /// is none (what gimli's section loaders want for an absent `.debug_*`).
    pub fn section_bytes(&self, name: &str) -> &'data [u8] {
        self.sections.iter().find(|s| s.name == name && s.has_file_bytes()).map_or(&[], |s| self.section_data(s))
    }

    /// Total bytes of executable sections.
    pub fn text_size(&self) -> u64 {
        self.text_sections().map(|s| s.size).sum()
    }

    /// Each executable section with the named symbols in it, as a listing walks it
    /// ([`crate::isa::listing::blocks`]); section and file symbols are left out, as objdump
    /// leaves them out.
    pub fn listing_texts(&self) -> Vec<crate::isa::listing::Text<'data>> {
        self.text_sections()
            .map(|section| crate::isa::listing::Text {
                name: section.name,
                address: section.address,
                bytes: self.section_data(section),
                symbols: self
                    .symbols
                    .iter()
                    .filter(|s| s.section_index as usize == section.index && !matches!(s.kind, SymbolKind::Section | SymbolKind::File))
                    .map(|s| (s.value, s.name))
                    .collect(),
            })
            .collect()
    }
}

/// Reads `.symtab`, or `.dynsym` if the object was stripped, and classifies every symbol.
fn read_symbols<'data>(
    table: &object::read::elf::SectionTable<'data, Header>,
    data: &'data [u8],
) -> Result<Vec<Symbol<'data>>> {
    let endian = LE;
    let (symtab, dynamic) = match table
        .symbols(endian, data, elf::SHT_SYMTAB)
        .map_err(|e| elf_error("symbol table", e))?
    {
        t if !t.is_empty() => (t, false),
        _ => (
            table
                .symbols(endian, data, elf::SHT_DYNSYM)
                .map_err(|e| elf_error("dynamic symbol table", e))?,
            true,
        ),
    };
    let mut symbols = Vec::with_capacity(symtab.len());
    for (index, sym) in symtab.enumerate() {
        let raw = symtab
            .symbol_name(endian, sym)
            .map_err(|e| elf_error("symbol name", e))?;
        let name = std::str::from_utf8(raw).map_err(|_| {
            ReadError::malformed(
                "symbol name",
                u64::from(sym.st_name(endian)),
                format!("symbol {} is not UTF-8", index.0),
            )
        })?;
        let kind = match sym.st_type() {
            elf::STT_FUNC => SymbolKind::Function,
            elf::STT_OBJECT if name.ends_with(".kd") => SymbolKind::KernelDescriptor,
            elf::STT_OBJECT => SymbolKind::Data,
            elf::STT_SECTION => SymbolKind::Section,
            elf::STT_FILE => SymbolKind::File,
            _ => SymbolKind::Other,
        };
        symbols.push(Symbol {
            index: index.0,
            name,
            kind,
            binding: sym.st_bind(),
            visibility: sym.st_visibility(),
            section_index: sym.st_shndx(endian),
            value: sym.st_value(endian),
            size: sym.st_size(endian),
            dynamic,
        });
    }
    // A function is a kernel when a descriptor `NAME.kd` exists for it.
    let descriptors: std::collections::HashSet<&str> = symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::KernelDescriptor)
        .map(|s| &s.name[..s.name.len() - 3])
        .collect();
    for s in &mut symbols {
        if s.kind == SymbolKind::Function && descriptors.contains(s.name) {
            s.kind = SymbolKind::Kernel;
        }
    }
    Ok(symbols)
}

/// A human name for common `e_machine` values, for error messages.
pub fn machine_name(machine: u16) -> &'static str {
    match machine {
        elf::EM_X86_64 => "x86-64",
        elf::EM_386 => "i386",
        elf::EM_AARCH64 => "AArch64",
        elf::EM_ARM => "ARM",
        elf::EM_RISCV => "RISC-V",
        elf::EM_PPC64 => "PowerPC64",
        elf::EM_AMDGPU => "AMDGPU",
        _ => "unknown machine",
    }
}
