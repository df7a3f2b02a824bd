//! What a user hands gfxpatch: a code object, an offload bundle, or a host library that embeds
//! bundles in `.hip_fatbin`. [`Input`] tells them apart by content and enumerates every AMDGPU
//! code object inside, borrowing the file's bytes wherever they are stored uncompressed.

use std::borrow::Cow;
use std::path::Path;

use super::amdgpu::{COMPRESSED_BUNDLE_MAGIC, EM_AMDGPU, HIP_FATBIN_SECTION, OFFLOAD_BUNDLE_MAGIC};
use super::bundle::{self, Bundle, DecompressLimits};
use super::elf::{ElfFile, machine_name};
use super::fatbin::fatbin_bundles;
use super::error::{ReadError, Result};

/// The kind of file, as reported by `gfxpatch info` (`"elf"`, `"bundle"`, `"host"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InputKind {
    /// A bare AMDGPU code object.
    Elf,
    /// An offload bundle, plain or compressed.
    Bundle,
    /// A host ELF whose `.hip_fatbin` section holds offload bundles.
    Host,
}

/// One AMDGPU code object found in an input.
#[derive(Debug)]
pub struct EmbeddedObject<'data> {
    /// The bundle entry id (`hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-`); `None` for a bare ELF.
    pub bundle_id: Option<String>,
    /// Index of the bundle it came from within the input (0 for a bare ELF or a lone bundle).
    pub bundle_index: usize,
    /// Where its bytes are: a file offset, or for a compressed bundle the offset of the
    /// compressed bundle in the file (see `compressed`).
    pub offset: u64,
    pub size: u64,
    /// True if the bytes were decompressed from a `CCOB` bundle.
    pub compressed: bool,
    pub bytes: Cow<'data, [u8]>,
}

impl EmbeddedObject<'_> {
    /// "code object 3 (hipv4-…--gfx900) at 0x1000", for error messages.
    pub fn describe(&self, index: usize) -> String {
        match &self.bundle_id {
            Some(id) => format!("code object {index} ({id}) at {:#x}", self.offset),
            None => format!("code object at {:#x}", self.offset),
        }
    }
}

/// A classified input and the code objects it holds.
#[derive(Debug)]
pub struct Input<'data> {
    pub kind: InputKind,
    /// For a host ELF: its machine, the extent of its first `.hip_fatbin` (a grown library has
    /// more, see `write::grow`) and the number of bundles in all of them.
    pub host: Option<HostInfo>,
    pub objects: Vec<EmbeddedObject<'data>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostInfo {
    pub machine: u16,
    pub fatbin_offset: u64,
    pub fatbin_size: u64,
    pub bundles: usize,
}

impl<'data> Input<'data> {
    /// Classifies `data` by its first bytes and enumerates its AMDGPU code objects.
    pub fn parse(data: &'data [u8], limits: &DecompressLimits) -> Result<Input<'data>> {
        if data.starts_with(b"\x7fELF") {
            return Self::parse_elf(data, limits);
        }
        if data.starts_with(OFFLOAD_BUNDLE_MAGIC) || data.starts_with(COMPRESSED_BUNDLE_MAGIC) {
            let bundle = bundle::parse_bundle(data, limits)?;
            return Ok(Input {
                kind: InputKind::Bundle,
                host: None,
                objects: objects_of(bundle, 0),
            });
        }
        let shown: String = data.iter().take(8).map(|b| format!("{b:02x} ")).collect();
        Err(ReadError::UnknownFormat(if data.is_empty() {
            "the file is empty".into()
        } else {
            shown.trim_end().to_owned()
        }))
    }

    fn parse_elf(data: &'data [u8], limits: &DecompressLimits) -> Result<Input<'data>> {
        let file = ElfFile::parse(data)?;
        if file.machine == EM_AMDGPU {
            let object = EmbeddedObject {
                bundle_id: None,
                bundle_index: 0,
                offset: 0,
                size: data.len() as u64,
                compressed: false,
                bytes: Cow::Borrowed(data),
            };
            return Ok(Input {
                kind: InputKind::Elf,
                host: None,
                objects: vec![object],
            });
        }
        let Some(fatbin) = file.section_by_name(HIP_FATBIN_SECTION) else {
            return Err(ReadError::NotAmdgpu {
                machine: file.machine,
                name: machine_name(file.machine),
            });
        };
        // A library gfxpatch grew has a second .hip_fatbin (see `write::grow`): read them all.
        let bundles: Vec<Bundle<'data>> = fatbin_bundles(&file, limits)?.into_iter().map(|(_, b)| b).collect();
        let host = HostInfo {
            machine: file.machine,
            fatbin_offset: fatbin.offset,
            fatbin_size: fatbin.size,
            bundles: bundles.len(),
        };
        let objects = bundles
            .into_iter()
            .enumerate()
            .flat_map(|(i, b)| objects_of(b, i))
            .collect();
        Ok(Input {
            kind: InputKind::Host,
            host: Some(host),
            objects,
        })
    }
}

/// The AMDGPU entries of one bundle.
fn objects_of(bundle: Bundle<'_>, bundle_index: usize) -> Vec<EmbeddedObject<'_>> {
    let compressed = !matches!(bundle.format, bundle::BundleFormat::Plain);
    let bundle_offset = bundle.offset;
    bundle
        .entries
        .into_iter()
        .filter(|e| e.is_amdgcn() && e.size > 0)
        .map(|e| EmbeddedObject {
            bundle_id: Some(e.id.to_string()),
            bundle_index,
            offset: if compressed {
                bundle_offset
            } else {
                bundle_offset + e.offset
            },
            size: e.size,
            compressed,
            bytes: e.bytes,
        })
        .collect()
}

/// An input file's bytes: mapped read-only when it is a regular file, read into memory when it
/// is a pipe or a device (`<(zstd -dc lib.so.zst)`, `/dev/stdin`), which cannot be mapped. The
/// bytes stay valid while it lives.
pub struct MappedFile {
    bytes: Bytes,
}

enum Bytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl MappedFile {
    pub fn open(path: &Path) -> std::io::Result<MappedFile> {
        let mut file = std::fs::File::open(path)?;
        let metadata = file.metadata()?;
        if metadata.is_dir() {
            // mmap would say "No such device" (ENODEV), which names nothing the user did wrong.
            return Err(std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a directory, not a file"));
        }
        if !metadata.is_file() || metadata.len() == 0 {
            // A pipe cannot be mapped, and mmap of an empty file fails on Linux: read what
            // there is (an empty input is simply zero bytes).
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut bytes)?;
            return Ok(MappedFile { bytes: Bytes::Read(bytes) });
        }
        // SAFETY: the mapping is read-only; gfxpatch never writes its inputs in place while
        // reading them (`--in-place` writes a temporary file and renames it over the input).
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(MappedFile { bytes: Bytes::Mapped(map) })
    }

    pub fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(map) => map,
            Bytes::Read(bytes) => bytes,
        }
    }

    /// Gives back the memory of `part` (a slice of [`MappedFile::bytes`]) that this process
    /// holds: its pages leave the process (`MADV_DONTNEED`) but stay in the page cache, and are
    /// mapped again from there if read again, with the same bytes. A whole-library rewrite
    /// calls it for each code object it is done reading, so that its resident memory is the
    /// objects in flight rather than the whole input. Slices of anything else are ignored.
    pub fn release(&self, part: &[u8]) {
        let Bytes::Mapped(map) = &self.bytes else { return };
        let start = (part.as_ptr() as usize).wrapping_sub(map.as_ptr() as usize);
        if part.is_empty() || start >= map.len() || map.len() - start < part.len() {
            return;
        }
        // SAFETY: a private read-only file mapping that nothing writes: after MADV_DONTNEED
        // its pages read the file's bytes again, so every slice of it keeps its contents. Only
        // the memory footprint changes; failure (an old kernel) only leaves the pages resident.
        let _ = unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, part.len()) };
    }
}
