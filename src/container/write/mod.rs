//! Writing code objects, bundles and host libraries after a rewrite (issue #5, the container
//! half of the rewrite engine).
//!
//! The layout step hands over a [`TextPatch`]: the new bytes of the single executable section
//! and an [`AddressMap`] from every old instruction start to its new address. [`write_object`]
//! then produces a complete code object in which everything that named a code address names the
//! mapped one, and everything placed after `.text` has moved by one [`address_shift`]:
//!
//! * section headers, program headers, `e_shoff`;
//! * `.symtab` and `.dynsym` values and sizes (hash tables hash names only and stay as they are);
//! * kernel descriptors' `kernel_code_entry_byte_offset`;
//! * `.dynamic` entries that hold addresses;
//! * `.rela.dyn` offsets and addends (and the addend copy at the target, if the linker wrote one);
//! * DWARF: see [`dwarf`];
//! * register counts, in the descriptor granules and the metadata note together: see [`registers`].
//!
//! Guarantees:
//! * No edits, or a patch whose bytes and map are the identity, give the input bytes exactly.
//! * Bytes nobody had reason to change are copied, never re-encoded: notes, string tables, hash
//!   tables, `.comment`, padding.
//! * Anything the writer does not understand fails closed with a [`WriteError`] naming it: a
//!   second executable section, `.text` sharing its `PT_LOAD`, an address that is not an
//!   instruction boundary, a `.dynamic` tag of unknown meaning, a DWARF construct that cannot be
//!   remapped (unless [`ObjectEdits::strip_debug_on_failure`]).
//! * Files are written through [`write_file_atomically`]: a reader sees the old file or the new
//!   one, never half of one.

mod bundle;
pub mod counters;
pub mod dwarf;
mod elf;
mod grow;
mod image;
pub mod note_room;
pub mod registers;

use std::io;
use std::ops::Range;
use std::path::Path;

use thiserror::Error;

use super::error::ReadError;

pub use bundle::{image_noting, write_input, write_input_adding, write_input_keeping_misfits, write_input_noting, AddedEntry, Misfit, Moved, Notes};
pub use image::Image;
pub use elf::{address_shift, write_object};

/// Old -> new virtual address for every instruction start of the old `.text`, plus the old end
/// of `.text` -> the new end.
///
/// Sorted by old address, strictly increasing there; new addresses never decrease. An old
/// instruction that was deleted maps to the new address of what follows it (so it shares its
/// new address with that instruction); code inserted before an old instruction makes that old
/// address map to the start of the inserted code, so that branch targets and symbols landing on
/// it land on the inserted code, at the start of the block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddressMap {
    pairs: Vec<(u64, u64)>,
    /// Per 4-byte slot of old addresses from the first: the index of the pair with that old
    /// address, or [`NO_PAIR`]. A lookup is one load instead of a search: the DWARF of a large
    /// object asks once per line row and list entry (half a million times in a 3 MB `.text`;
    /// bisecting, even within 64-byte buckets, was a sixth of writing it). Empty where the map
    /// is too sparse for slots to pay, or an old address is not 4-byte aligned (instructions
    /// are); lookups then bisect the pairs.
    slots: Vec<u32>,
}

/// A [`AddressMap::slots`] entry for an old address no pair has.
const NO_PAIR: u32 = u32::MAX;

impl AddressMap {
    /// Checks that `pairs` is non-empty, strictly increasing in the old address and never
    /// decreasing in the new one.
    ///
    /// The check and the slots are made in one pass over the pairs (three
    /// passes over half a million pairs were a percent of a large object's rewrite): the slots
    /// are sized from the first and last old addresses, which bound the others once the check
    /// has passed, and are dropped at the first old address off the 4-byte grid.
    pub fn new(pairs: Vec<(u64, u64)>) -> Result<AddressMap, WriteError> {
        let (Some(&(first, _)), Some(&(last, _))) = (pairs.first(), pairs.last()) else {
            return Err(WriteError::AddressMap("the map is empty; it needs at least the end of .text".into()));
        };
        // Slots pay where the map is dense enough; `last < first` fails the check below.
        let count = last.checked_sub(first).map(|span| span / 4 + 1);
        let dense = count.filter(|&c| c <= 4 * pairs.len() as u64 + 1024 && u32::try_from(pairs.len()).is_ok());
        let mut slots = dense.map_or_else(Vec::new, |c| vec![NO_PAIR; c as usize]);
        if !slots.is_empty() {
            slots[0] = 0;
        }
        for (i, w) in pairs.windows(2).enumerate() {
            let ((old_a, new_a), (old_b, new_b)) = (w[0], w[1]);
            if old_b <= old_a {
                return Err(WriteError::AddressMap(format!(
                    "old addresses must increase: pair {} has {old_b:#x} after {old_a:#x}",
                    i + 1
                )));
            }
            if new_b < new_a {
                return Err(WriteError::AddressMap(format!(
                    "new addresses must not decrease: old {old_b:#x} -> {new_b:#x} comes after old {old_a:#x} -> {new_a:#x}"
                )));
            }
            if !slots.is_empty() {
                // Past `first`, as the old addresses so far increased; past `last` only in a
                // map the check will refuse further on.
                let offset = old_b - first;
                match slots.get_mut((offset / 4) as usize) {
                    Some(slot) if offset.is_multiple_of(4) => *slot = (i + 1) as u32,
                    _ => slots = Vec::new(),
                }
            }
        }
        Ok(AddressMap { pairs, slots })
    }

    /// The identity over the given boundaries (every instruction start and the end).
    pub fn identity(boundaries: impl IntoIterator<Item = u64>) -> Result<AddressMap, WriteError> {
        AddressMap::new(boundaries.into_iter().map(|a| (a, a)).collect())
    }

    /// The new address of the instruction that started at `old`, or of the end if `old` is the
    /// old end; `None` for any address that is not a boundary the map lists.
    pub fn map(&self, old: u64) -> Option<u64> {
        if self.slots.is_empty() {
            return self.pairs.binary_search_by_key(&old, |&(o, _)| o).ok().map(|i| self.pairs[i].1);
        }
        let offset = old.checked_sub(self.pairs[0].0)?;
        if !offset.is_multiple_of(4) {
            return None;
        }
        let i = *self.slots.get(usize::try_from(offset / 4).ok()?)?;
        (i != NO_PAIR).then(|| self.pairs[i as usize].1)
    }

    /// First old address to the old end (the last pair's old address).
    pub fn old_range(&self) -> Range<u64> {
        self.pairs[0].0..self.pairs[self.pairs.len() - 1].0
    }

    /// First new address to the new end.
    pub fn new_range(&self) -> Range<u64> {
        self.pairs[0].1..self.pairs[self.pairs.len() - 1].1
    }

    /// True if every address maps to itself.
    pub fn is_identity(&self) -> bool {
        self.pairs.iter().all(|&(o, n)| o == n)
    }

    /// The pairs, sorted by old address.
    pub fn pairs(&self) -> &[(u64, u64)] {
        &self.pairs
    }

    /// The pairs, given back by value (as [`AddressMap::new`] took them).
    pub fn into_pairs(self) -> Vec<(u64, u64)> {
        self.pairs
    }
}

/// New contents of the object's single executable section, which keeps its start address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextPatch {
    pub bytes: Vec<u8>,
    pub map: AddressMap,
}

/// The registers a kernel's code needs after the rewrite, counted exactly as the metadata note
/// counts them (LLVM's `.vgpr_count`, `.agpr_count`, `.sgpr_count`):
/// * `vgpr_count`: on GFX90A-class CDNA, architected VGPRs rounded up to 4 plus AGPRs; on GFX908
///   the larger of VGPRs and AGPRs; elsewhere VGPRs;
/// * `sgpr_count`: SGPRs including the VCC, FLAT_SCRATCH and XNACK_MASK pairs LLVM adds.
///
/// The writer records these in the note and derives the descriptor's granulated counts from
/// them (see [`registers`]); it never lowers a count below the original, in either place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelRegisters {
    /// The kernel's name (its `.name` in the metadata, the entry symbol without `.kd`).
    pub kernel: String,
    pub vgpr_count: u32,
    pub agpr_count: u32,
    pub sgpr_count: u32,
}

/// A kernel's VGPR count to lower: code that needed `from` VGPRs was taken back out
/// (`patch -R`), and what is left needs `to`. The writer lowers `.vgpr_count` and the
/// descriptor's granulated count only where they are exactly what a raise to `from` leaves
/// (`.vgpr_count` = `from`, the descriptor's blocks those of `from`): a count found otherwise
/// was not made by that code, and stays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VgprLowering {
    pub kernel: String,
    pub from: u32,
    pub to: u32,
}

/// Everything a rewrite changes in one code object. The default changes nothing.
#[derive(Clone, Debug, Default)]
pub struct ObjectEdits {
    pub text: Option<TextPatch>,
    pub registers: Vec<KernelRegisters>,
    /// HSA kernels only; applied after `registers`.
    pub lowered: Vec<VgprLowering>,
    /// When a DWARF construct cannot be remapped, drop the debug sections and say so in
    /// [`Written::notes`] instead of failing.
    pub strip_debug_on_failure: bool,
}

/// A written code object and what the writer wants the user to know about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub bytes: Vec<u8>,
    /// One sentence each: "debug info stripped: ...", "kernel k: .vgpr_count raised 24 -> 32".
    pub notes: Vec<String>,
}

/// Why a code object, bundle or host library could not be written. Each variant names what
/// failed (section, symbol, kernel, DWARF offset) so the message can be shown as it is.
#[derive(Debug, Error)]
pub enum WriteError {
    #[error("invalid address map: {0}")]
    AddressMap(String),

    #[error("the address map covers {map_old:#x?} but .text is {text:#x?}")]
    MapDoesNotCoverText { map_old: Range<u64>, text: Range<u64> },

    #[error("the address map ends at new address {map_end:#x} but the new .text ends at {text_end:#x}")]
    MapDisagreesWithText { map_end: u64, text_end: u64 },

    #[error("{what} points at {address:#x}, inside .text but not at an instruction boundary the address map lists")]
    NotABoundary { what: String, address: u64 },

    #[error("unsupported layout: {0}")]
    Layout(String),

    #[error("{what} at {location} cannot be remapped: {detail}")]
    Dwarf { what: String, location: String, detail: String },

    #[error("kernel {kernel}: {detail}")]
    Registers { kernel: String, detail: String },

    #[error("metadata note: {0}")]
    Metadata(String),

    /// The re-encoded metadata note is `grow` bytes longer than the room it has in place;
    /// [`elf::write_object`] answers this by moving the tables after the note
    /// ([`note_room`]) and writing again, so it reaches a caller only from there.
    #[error("metadata note: {detail}")]
    NoteOutgrowsRoom { grow: u64, detail: String },

    #[error("{object} no longer fits its slot: it needs {needed} bytes, the slot has {slot}, and its bundle cannot move to the end of the host: {refusal}")]
    DoesNotFit { object: String, needed: u64, slot: u64, refusal: String },

    #[error("{0}")]
    Read(#[from] ReadError),
}

/// Writes `bytes` to `path` so that no reader ever sees a partial file: a temporary file in the
/// same directory (so the rename cannot cross file systems) is written, flushed to disk and
/// renamed over `path`. On any error the temporary file is removed and `path` is untouched.
/// A replaced file keeps its mode.
pub fn write_file_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_file_atomically_with(path, None, |file| image::write_chunked(file, bytes))
}

/// [`write_file_atomically`] with the contents written by `write` (which may seek: the output
/// of a host library is the input copied, then patched in place and extended). The mode is the
/// replaced file's; a new file gets the usual mode for new files, executable where `like` (the
/// input) is: a rewritten executable or shared library stays executable.
pub fn write_file_atomically_with(path: &Path, like: Option<&Path>, write: impl FnOnce(&mut std::fs::File) -> io::Result<()>) -> io::Result<()> {
    let mut out = AtomicFile::create(path)?;
    write(out.file())?;
    out.commit(like)
}

/// A file being written under a temporary name beside `path`, renamed over `path` by
/// [`AtomicFile::commit`] once complete and on disk; removed if dropped before that. What
/// [`write_file_atomically_with`] does in one call, for writers that begin before they know
/// all of the contents (a whole-library rewrite copies the input into it while the code
/// objects are still being rewritten).
pub struct AtomicFile {
    path: std::path::PathBuf,
    temp: std::path::PathBuf,
    file: Option<std::fs::File>,
    renamed: bool,
}

impl AtomicFile {
    pub fn create(path: &Path) -> io::Result<AtomicFile> {
        let dir = parent_dir(path);
        let name = path
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("{} names no file", path.display())))?;
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".gfxpatch-{}.tmp", std::process::id()));
        let temp = dir.join(temp_name);
        let file = std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&temp)?;
        Ok(AtomicFile { path: path.to_owned(), temp, file: Some(file), renamed: false })
    }

    pub fn file(&mut self) -> &mut std::fs::File {
        self.file.as_mut().expect("an AtomicFile has its file until committed")
    }

    /// Gives the file its mode, flushes it to disk and renames it over the path (see
    /// [`write_file_atomically_with`] for `like`).
    pub fn commit(mut self, like: Option<&Path>) -> io::Result<()> {
        use std::os::unix::fs::PermissionsExt as _;
        let file = self.file.take().expect("committed once");
        if let Ok(old) = std::fs::metadata(&self.path) {
            // Keep the mode of the file being replaced (a host library is usually executable).
            file.set_permissions(old.permissions())?;
        } else if let Some(input) = like.and_then(|l| std::fs::metadata(l).ok()) {
            // As created (the umask applied), plus execute for whoever may read it, where the
            // input is executable for the same class of user.
            let created = file.metadata()?.permissions().mode();
            let exec = (created & 0o444) >> 2 & input.permissions().mode() & 0o111;
            if exec != 0 {
                file.set_permissions(std::fs::Permissions::from_mode(created | exec))?;
            }
        }
        file.sync_all()?;
        drop(file);
        std::fs::rename(&self.temp, &self.path)?;
        self.renamed = true;
        // The rename itself is durable once the directory is synced.
        if let Ok(d) = std::fs::File::open(parent_dir(&self.path)) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_map_validates_order() {
        assert!(AddressMap::new(vec![]).is_err());
        assert!(AddressMap::new(vec![(0x100, 0x100), (0x100, 0x104)]).is_err(), "repeated old address");
        assert!(AddressMap::new(vec![(0x100, 0x104), (0x104, 0x100)]).is_err(), "new address goes back");
        // A deleted instruction shares its new address with what follows it.
        let m = AddressMap::new(vec![(0x100, 0x100), (0x104, 0x104), (0x108, 0x104)]).unwrap();
        assert_eq!((m.map(0x104), m.map(0x108), m.map(0x106)), (Some(0x104), Some(0x104), None));
        assert_eq!((m.old_range(), m.new_range()), (0x100..0x108, 0x100..0x104));
        assert!(!m.is_identity());
        assert!(AddressMap::identity([0, 4, 8]).unwrap().is_identity());
    }

    #[test]
    fn address_map_slots_find_what_bisecting_the_whole_map_finds() {
        // Instruction lengths 4, 8, 12 and 16 in a fixed pseudo-random order, some deleted
        // (sharing the next new address), some with code inserted before them; a sparse map
        // and one with an unaligned old address, which keep no slots.
        let mut pairs = Vec::new();
        let (mut old, mut new, mut seed) = (0x1000u64, 0x1000u64, 7u64);
        for _ in 0..5000 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let len = 4 * (1 + (seed >> 60) % 4);
            pairs.push((old, new));
            old += len;
            new += match (seed >> 56) % 8 { 0 => 0, 1 => len + 8, _ => len };
        }
        pairs.push((old, new));
        let sparse = vec![(0x100, 0x100), (0x1_0000_0000, 0x1_0000_0000), (0x2_0000_0000, 0x2_0000_0004)];
        let unaligned = vec![(0x100, 0x100), (0x104, 0x108), (0x106, 0x10a), (0x10c, 0x110)];
        for (pairs, slotted) in [(pairs, true), (sparse, false), (unaligned, false)] {
            let m = AddressMap::new(pairs.clone()).unwrap();
            assert_eq!(!m.slots.is_empty(), slotted);
            let whole = |a: u64| pairs.binary_search_by_key(&a, |&(o, _)| o).ok().map(|i| pairs[i].1);
            let probes = pairs.iter().flat_map(|&(o, _)| [o.wrapping_sub(4), o.wrapping_sub(1), o, o + 1, o + 2, o + 4]).chain([0, u64::MAX]);
            for a in probes {
                assert_eq!(m.map(a), whole(a), "old address {a:#x}");
            }
        }
    }

    /// The map as made before the check and the slots shared a pass: the check over every
    /// pair, then the slots from the checked pairs.
    fn made_in_three_passes(pairs: Vec<(u64, u64)>) -> Result<AddressMap, String> {
        if pairs.is_empty() {
            return Err(WriteError::AddressMap("the map is empty; it needs at least the end of .text".into()).to_string());
        }
        for (i, w) in pairs.windows(2).enumerate() {
            let ((old_a, new_a), (old_b, new_b)) = (w[0], w[1]);
            if old_b <= old_a {
                return Err(WriteError::AddressMap(format!("old addresses must increase: pair {} has {old_b:#x} after {old_a:#x}", i + 1)).to_string());
            }
            if new_b < new_a {
                return Err(WriteError::AddressMap(format!(
                    "new addresses must not decrease: old {old_b:#x} -> {new_b:#x} comes after old {old_a:#x} -> {new_a:#x}"
                ))
                .to_string());
            }
        }
        let first = pairs[0].0;
        let count = (pairs[pairs.len() - 1].0 - first) / 4 + 1;
        let aligned = pairs.iter().all(|&(o, _)| (o - first).is_multiple_of(4));
        let mut slots = Vec::new();
        if aligned && count <= 4 * pairs.len() as u64 + 1024 {
            slots = vec![NO_PAIR; count as usize];
            for (i, &(o, _)) in pairs.iter().enumerate() {
                slots[((o - first) / 4) as usize] = i as u32;
            }
        }
        Ok(AddressMap { pairs, slots })
    }

    /// One pass refuses what the three refused, with the same message, and makes the same
    /// slots: over maps with old addresses out of order (one far past the end among them),
    /// repeated, off the 4-byte grid, new addresses going back, and sparse maps.
    #[test]
    fn address_map_made_in_one_pass_is_the_map_made_in_three() {
        let mut seed = 0x853c_49e6_748f_ea9bu64;
        let mut next = move |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let (mut refused, mut slotted) = (0, 0);
        for _ in 0..20_000 {
            let len = next(12) as usize;
            let (mut old, mut new) = (0x1000 + 4 * next(4), 0x1000u64);
            let mut pairs = Vec::new();
            for _ in 0..len {
                pairs.push((old, new));
                old = old.wrapping_add(match next(16) {
                    0 => 0,
                    1 => 2,
                    2 => 0x10_0000,
                    3 => u64::MAX - 0x2000,
                    _ => 4 * (1 + next(3)),
                });
                old %= 1 << 40;
                new = new.wrapping_add(if next(12) == 0 { u64::MAX - 8 } else { 4 * next(3) });
                new %= 1 << 40;
            }
            let expected = made_in_three_passes(pairs.clone());
            let got = AddressMap::new(pairs.clone()).map_err(|e| e.to_string());
            assert_eq!(got, expected, "{pairs:x?}");
            refused += usize::from(got.is_err());
            slotted += usize::from(got.is_ok_and(|m| !m.slots.is_empty()));
        }
        assert!(refused > 1000 && slotted > 1000, "{refused} refused, {slotted} with slots");
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.co");
        write_file_atomically(&path, b"first").unwrap();
        write_file_atomically(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("out.co")], "a temporary file was left behind");
        let missing = dir.path().join("no-such-dir").join("x");
        assert!(write_file_atomically(&missing, b"x").is_err());
        assert!(!missing.exists());
    }
}
