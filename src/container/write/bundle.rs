//! Putting rewritten code objects back where they came from: a bare file, an offload bundle
//! (plain or `CCOB`), or the `.hip_fatbin` section of a host library.
//!
//! * Nothing replaced: the original bytes.
//! * A bundle file is re-packed: entries keep their order, ids and alignment (inferred from the
//!   original offsets); a compressed bundle is compressed again with its own version and codec.
//! * In a host library, objects stay where they are when they fit. In a plain bundle an entry's
//!   slot runs to the next entry's data, or for the last entry to the next bundle (or the end of
//!   the section): the entry's size field is updated and the rest of the slot zeroed. A
//!   compressed bundle's slot runs from its magic to the next bundle; the re-compressed bundle
//!   is written there and the rest zeroed (readers, LLVM's and ours, skip zero padding between
//!   bundles). Objects that shrink therefore never move.
//! * A bundle with an object that no longer fits is re-packed whole and moved to the end of
//!   the host's last `PT_LOAD`, which grows (see [`super::grow`]); its old slot is zeroed and every
//!   wrapper that pointed at it is re-aimed. Where the host cannot grow (another machine than
//!   x86-64, a wrapper pointer relocated in a way we do not understand, something else pointing
//!   into the bundle), the write is refused with [`WriteError::DoesNotFit`] naming the object,
//!   both sizes and the reason, or with [`write_input_noting`] that object keeps its bytes.
//! * [`write_input_adding`] also adds entries (a retargeted copy of a code object, under a new
//!   id, right after the entry it was made from). A bundle file is re-packed with them; in a
//!   host library their bundle always moves to the end of the host (its entry table grows, so
//!   every entry's data moves), and where the host cannot grow the write is refused.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::grow::{BundleMove, Grower};
use super::image::{Image, Piece, Pieces};
use super::WriteError;
use crate::container::amdgpu::{HIP_FATBIN_SECTION, OFFLOAD_BUNDLE_MAGIC};
use crate::container::bundle::{self, Bundle, BundleFormat, DecompressLimits};
use crate::container::elf::ElfFile;
use crate::container::fatbin::fatbin_bundles;
use crate::container::input::{Input, InputKind};

/// Length of a plain bundle's fixed header, and of an entry header without its id.
const PLAIN_HEADER_LEN: u64 = 32;
const ENTRY_HEADER_LEN: u64 = 24;
/// How much of a bundle the HIP runtime reads to find its entries.
const RUNTIME_HEADER_WINDOW: u64 = 4096;

/// `original` (the bytes `input` was parsed from) with the code objects `replaced` names (index
/// into `input.objects`, new bytes) put in place. See the module comment for what each kind of
/// input allows. A replacement that fits nowhere fails the write with [`WriteError::DoesNotFit`].
pub fn write_input(original: &[u8], input: &Input, replaced: &[(usize, Vec<u8>)]) -> Result<Vec<u8>, WriteError> {
    let mut notes = Notes { keep_misfits: false, ..Notes::default() };
    write_input_inner(original, input, replaced, &[], &mut notes).map(|image| image.to_vec())
}

/// A new bundle entry: `id` holding `bytes`, placed right after the entry of code object
/// `beside` (an index into `input.objects`), in the same bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddedEntry {
    pub beside: usize,
    pub id: String,
    pub bytes: Vec<u8>,
}

/// `original` with `added` entries in the bundles of their `beside` objects (and nothing
/// replaced). A bundle file is re-packed in its own format and alignment; in a host library
/// each bundle that gains entries moves to the end of the host, which grows (see
/// docs/host-libraries.md); [`Notes::moved`] lists each of them under its `beside` objects. An id the
/// bundle already has, or a host that cannot grow, fails the write: nothing is half-added.
pub fn write_input_adding(original: &[u8], input: &Input, added: &[AddedEntry]) -> Result<(Vec<u8>, Notes), WriteError> {
    let mut notes = Notes { keep_misfits: false, ..Notes::default() };
    let image = write_input_inner(original, input, &[], added, &mut notes)?;
    Ok((image.to_vec(), notes))
}

/// A replacement left out because it did not fit its slot in a host library, and the host
/// could not grow to take it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Misfit {
    /// Index into `input.objects`.
    pub object: usize,
    /// What did not fit, for messages: the object, or the compressed bundle holding it.
    pub what: String,
    /// Whether it was the re-compressed bundle holding the object (rather than the object
    /// itself) that outgrew its slot.
    pub whole_bundle: bool,
    pub needed: u64,
    pub slot: u64,
    /// Why its bundle could not move to the end of the host instead.
    pub refusal: String,
}

impl std::fmt::Display for Misfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} no longer fits its slot in the host library: it needs {} bytes, the slot has {}, and its bundle cannot move: {}; the original bytes are kept",
            self.what, self.needed, self.slot, self.refusal
        )
    }
}

/// A replaced object whose bundle moved to the end of a grown host library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moved {
    /// Index into `input.objects`.
    pub object: usize,
    /// The bundle's old and new virtual address, and its new file offset.
    pub old_address: u64,
    pub address: u64,
    pub offset: u64,
    /// One line for a report.
    pub note: String,
}

/// What a write did besides putting bytes in place.
#[derive(Clone, Debug, Default)]
pub struct Notes {
    /// Replacements left out (only when misfits are accepted; otherwise the write fails).
    pub misfits: Vec<Misfit>,
    /// Replacements whose bundle moved to the end of a grown host library.
    pub moved: Vec<Moved>,
    keep_misfits: bool,
}

impl Notes {
    fn misfit(&mut self, misfit: Misfit) -> Result<(), WriteError> {
        if !self.keep_misfits {
            return Err(WriteError::DoesNotFit { object: misfit.what, needed: misfit.needed, slot: misfit.slot, refusal: misfit.refusal });
        }
        self.misfits.push(misfit);
        Ok(())
    }
}

/// Like [`write_input`], but a replacement that fits nowhere in a host library is left out
/// (that object keeps its original bytes) and listed instead of failing the whole file. In a
/// compressed bundle the replacement that grew the most is dropped first, then the next, until
/// the re-compressed bundle fits. [`Notes::moved`] lists the objects whose bundle moved.
pub fn write_input_noting(original: &[u8], input: &Input, replaced: &[(usize, Vec<u8>)]) -> Result<(Vec<u8>, Notes), WriteError> {
    image_noting(original, input, replaced).map(|(image, notes)| (image.to_vec(), notes))
}

/// [`write_input_noting`] as an [`Image`]: the output described as edits over `original`,
/// borrowing it and `replaced`, for [`Image::write_to`] to stream into the output file (a host
/// library is not copied in memory).
pub fn image_noting<'a>(original: &'a [u8], input: &Input, replaced: &'a [(usize, Vec<u8>)]) -> Result<(Image<'a>, Notes), WriteError> {
    let mut notes = Notes { keep_misfits: true, ..Notes::default() };
    let image = write_input_inner(original, input, replaced, &[], &mut notes)?;
    Ok((image, notes))
}

/// [`write_input_noting`] without the list of moved objects.
pub fn write_input_keeping_misfits(original: &[u8], input: &Input, replaced: &[(usize, Vec<u8>)]) -> Result<(Vec<u8>, Vec<Misfit>), WriteError> {
    write_input_noting(original, input, replaced).map(|(bytes, notes)| (bytes, notes.misfits))
}

fn write_input_inner<'a>(original: &'a [u8], input: &Input, replaced: &'a [(usize, Vec<u8>)], added: &'a [AddedEntry], notes: &mut Notes) -> Result<Image<'a>, WriteError> {
    let mut by_object: BTreeMap<usize, &'a [u8]> = BTreeMap::new();
    for (index, bytes) in replaced {
        if *index >= input.objects.len() {
            return Err(WriteError::Layout(format!(
                "replacement for code object {index}, but the input has {}",
                input.objects.len()
            )));
        }
        if by_object.insert(*index, bytes).is_some() {
            return Err(WriteError::Layout(format!("two replacements for code object {index}")));
        }
    }
    // An object replaced by its own bytes is not replaced: its bundle keeps its bytes (a
    // compressed bundle is not compressed again).
    by_object.retain(|&i, bytes| *bytes != input.objects[i].bytes.as_ref());
    if by_object.is_empty() && added.is_empty() {
        return Ok(Image::of(original));
    }
    if let Some(a) = added.iter().find(|a| a.beside >= input.objects.len()) {
        return Err(WriteError::Layout(format!("entry {} beside code object {}, but the input has {}", a.id, a.beside, input.objects.len())));
    }
    let limits = DecompressLimits::default();
    match input.kind {
        InputKind::Elf if added.is_empty() => Ok(Image::new(by_object[&0])),
        InputKind::Elf => Err(WriteError::Layout("a code object file has no bundle to add entries to".into())),
        InputKind::Bundle => {
            let bundle = bundle::parse_bundle(original, &limits)?;
            let entries = replacements_by_entry(input, 0, &bundle, &by_object)?;
            let additions = additions_by_entry(input, 0, &bundle, added)?;
            repack(&bundle, &entries, &additions).map(Image::new)
        }
        InputKind::Host => write_host(original, input, &by_object, added, &limits, notes),
    }
}

/// Entries added to one bundle, keyed by the entry index they follow.
type Additions<'a> = BTreeMap<usize, Vec<(&'a str, &'a [u8])>>;

/// The entries `added` puts in bundle `bundle_index`, keyed by the entry they follow; an id
/// the bundle already has (or that is added twice) is refused.
fn additions_by_entry<'a>(input: &Input, bundle_index: usize, bundle: &Bundle, added: &'a [AddedEntry]) -> Result<Additions<'a>, WriteError> {
    let entry_of: BTreeMap<usize, usize> = object_entries(input, bundle_index, bundle)?.into_iter().map(|(e, o)| (o, e)).collect();
    let mut out: Additions<'a> = BTreeMap::new();
    let mut ids: Vec<&str> = bundle.entries.iter().map(|e| e.id.as_ref()).collect();
    for a in added.iter().filter(|a| input.objects[a.beside].bundle_index == bundle_index) {
        if ids.contains(&a.id.as_str()) {
            return Err(WriteError::Layout(format!("the offload bundle at {:#x} already has an entry {}", bundle.offset, a.id)));
        }
        ids.push(&a.id);
        out.entry(entry_of[&a.beside]).or_default().push((&a.id, &a.bytes));
    }
    Ok(out)
}

/// (entry index, object index) for each code object of bundle `bundle_index`.
fn object_entries(input: &Input, bundle_index: usize, bundle: &Bundle) -> Result<Vec<(usize, usize)>, WriteError> {
    // `Input` lists a bundle's code objects as its AMDGPU entries with data, in entry order.
    let entries: Vec<usize> = (0..bundle.entries.len())
        .filter(|&i| bundle.entries[i].is_amdgcn() && bundle.entries[i].size > 0)
        .collect();
    let objects: Vec<usize> = (0..input.objects.len()).filter(|&i| input.objects[i].bundle_index == bundle_index).collect();
    if entries.len() != objects.len() {
        return Err(WriteError::Layout(format!(
            "bundle {bundle_index} has {} code object entries but the input lists {}",
            entries.len(),
            objects.len()
        )));
    }
    Ok(entries.into_iter().zip(objects).collect())
}

/// Replacements of one bundle, keyed by entry index within the bundle.
fn replacements_by_entry<'r>(
    input: &Input,
    bundle_index: usize,
    bundle: &Bundle,
    by_object: &BTreeMap<usize, &'r [u8]>,
) -> Result<BTreeMap<usize, (usize, &'r [u8])>, WriteError> {
    let mut out = BTreeMap::new();
    for (entry, object) in object_entries(input, bundle_index, bundle)? {
        if let Some(bytes) = by_object.get(&object) {
            out.insert(entry, (object, *bytes));
        }
    }
    Ok(out)
}

/// The alignment clang-offload-bundler was given for this bundle: the largest power of two
/// (up to 64 KiB) that reproduces every entry offset.
fn inferred_alignment(bundle: &Bundle) -> Option<u64> {
    let shape: Vec<(usize, u64)> = bundle.entries.iter().map(|e| (e.id.len(), e.bytes.len() as u64)).collect();
    (0..=16).rev().map(|k| 1u64 << k).find(|&align| {
        let offsets = plain_offsets(&shape, align);
        offsets.iter().zip(&bundle.entries).all(|(o, e)| *o == e.offset)
    })
}

/// Entry offsets `write_bundle_aligned` would give entries of these (id length, size).
fn plain_offsets(entries: &[(usize, u64)], align: u64) -> Vec<u64> {
    let mut cursor = PLAIN_HEADER_LEN + entries.iter().map(|&(id, _)| ENTRY_HEADER_LEN + id as u64).sum::<u64>();
    entries
        .iter()
        .map(|&(_, size)| {
            let offset = cursor.next_multiple_of(align);
            cursor = offset + size;
            offset
        })
        .collect()
}

/// The bundle written again with some entries replaced and some added, in its own format.
fn repack(bundle: &Bundle, replaced: &BTreeMap<usize, (usize, &[u8])>, added: &Additions) -> Result<Vec<u8>, WriteError> {
    match bundle.format {
        BundleFormat::Plain => repack_pieces(bundle, replaced, added).map(|p| p.to_vec()),
        BundleFormat::Compressed { .. } => repack_in_memory(bundle, replaced, added),
    }
}

/// [`repack`] as pieces: a plain bundle's new header and entry table, then each entry's bytes
/// (borrowed from the input or the replacement) after its padding, so that a moved bundle is
/// streamed into the output instead of copied in memory. A compressed bundle is one piece, the
/// re-compressed bytes.
fn repack_pieces<'a>(bundle: &Bundle<'a>, replaced: &BTreeMap<usize, (usize, &'a [u8])>, added: &Additions<'a>) -> Result<Pieces<'a>, WriteError> {
    if bundle.format != BundleFormat::Plain {
        return repack_in_memory(bundle, replaced, added).map(|bytes| Pieces(vec![Piece::Bytes(Cow::Owned(bytes))]));
    }
    let align = alignment_of(bundle)?;
    let entries: Vec<(&str, Cow<'a, [u8]>)> = bundle
        .entries
        .iter()
        .enumerate()
        .flat_map(|(i, e)| {
            let bytes = match (replaced.get(&i), &e.bytes) {
                (Some(&(_, r)), _) => Cow::Borrowed(r),
                (None, Cow::Borrowed(b)) => Cow::Borrowed(*b),
                (None, Cow::Owned(b)) => Cow::Owned(b.clone()),
            };
            std::iter::once((e.id.as_ref(), bytes)).chain(added.get(&i).into_iter().flatten().map(|&(id, b)| (id, Cow::Borrowed(b))))
        })
        .collect();
    // The layout of `bundle::write_bundle_aligned`: header, entry table, then each entry's data
    // at the next multiple of the alignment (`streamed_repack_is_the_in_memory_one` compares the two).
    let shape: Vec<(usize, u64)> = entries.iter().map(|(id, b)| (id.len(), b.len() as u64)).collect();
    let offsets = plain_offsets(&shape, align);
    let mut header = Vec::with_capacity(offsets.first().copied().unwrap_or(PLAIN_HEADER_LEN) as usize);
    header.extend_from_slice(OFFLOAD_BUNDLE_MAGIC);
    header.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for ((id, bytes), offset) in entries.iter().zip(&offsets) {
        header.extend_from_slice(&offset.to_le_bytes());
        header.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        header.extend_from_slice(&(id.len() as u64).to_le_bytes());
        header.extend_from_slice(id.as_bytes());
    }
    let mut at = header.len() as u64;
    let mut pieces = vec![Piece::Bytes(Cow::Owned(header))];
    for ((_, bytes), offset) in entries.into_iter().zip(offsets) {
        pieces.push(Piece::Zeros(offset - at));
        at = offset + bytes.len() as u64;
        pieces.push(Piece::Bytes(bytes));
    }
    Ok(Pieces(pieces))
}

/// The alignment to re-pack `bundle` with, or why it cannot be re-packed.
fn alignment_of(bundle: &Bundle) -> Result<u64, WriteError> {
    inferred_alignment(bundle).ok_or_else(|| {
        WriteError::Layout(format!(
            "the offload bundle at {:#x} has entry offsets no bundle alignment reproduces; it cannot be re-packed",
            bundle.offset
        ))
    })
}

/// [`repack`] built in memory (a compressed bundle is compressed whole).
fn repack_in_memory(bundle: &Bundle, replaced: &BTreeMap<usize, (usize, &[u8])>, added: &Additions) -> Result<Vec<u8>, WriteError> {
    let align = alignment_of(bundle)?;
    let entries: Vec<(&str, &[u8])> = bundle
        .entries
        .iter()
        .enumerate()
        .flat_map(|(i, e)| {
            let this = (e.id.as_ref(), replaced.get(&i).map_or(e.bytes.as_ref(), |r| r.1));
            std::iter::once(this).chain(added.get(&i).into_iter().flatten().copied())
        })
        .collect();
    let plain = bundle::write_bundle_aligned(&entries, align);
    Ok(match bundle.format {
        BundleFormat::Plain => plain,
        BundleFormat::Compressed { version, method } => {
            let limit = if version == 3 { u64::MAX } else { u64::from(u32::MAX) };
            if plain.len() as u64 > limit {
                return Err(WriteError::Layout(format!(
                    "the re-packed bundle is {} bytes, over what a version {version} compressed bundle can record",
                    plain.len()
                )));
            }
            bundle::write_compressed_bundle(version, method, &plain)
        }
    })
}

/// What the host writer decided for one bundle with replacements.
enum BundlePlan<'r> {
    /// Every replaced entry fits its slot: written there (or, when growth is refused, the
    /// entries that fit are, and the rest are misfits).
    Plain { bundle: usize, slot_end: u64, replaced: BTreeMap<usize, (usize, &'r [u8])>, refusal: Option<String> },
    /// The re-compressed bundle fits from its magic to the next bundle.
    Compressed { start: u64, slot_end: u64, packed: Vec<u8> },
    /// Growth refused for a compressed bundle: the old way, dropping the largest growth first.
    CompressedMisfits { bundle: usize, slot_end: u64, replaced: BTreeMap<usize, (usize, &'r [u8])>, refusal: String },
}

fn write_host<'a>(
    original: &'a [u8],
    input: &Input,
    by_object: &BTreeMap<usize, &'a [u8]>,
    added: &'a [AddedEntry],
    limits: &DecompressLimits,
    notes: &mut Notes,
) -> Result<Image<'a>, WriteError> {
    let file = ElfFile::parse(original)?;
    let bundles = fatbin_bundles(&file, limits)?;
    if bundles.is_empty() {
        return Err(WriteError::Layout(format!("the host library has no bundle in a {HIP_FATBIN_SECTION} section")));
    }
    let mut grower: Option<Result<Grower, String>> = None;
    let mut plans = Vec::new();
    let mut moves: Vec<BundleMove<'a>> = Vec::new();
    // The replaced objects of each moved bundle, for the notes.
    let mut moved_objects: Vec<Vec<usize>> = Vec::new();
    for (bundle_index, (section_index, b)) in bundles.iter().enumerate() {
        let in_bundle = |i: usize| input.objects[i].bundle_index == bundle_index;
        let adds = additions_by_entry(input, bundle_index, b, added)?;
        if !by_object.keys().any(|&i| in_bundle(i)) && adds.is_empty() {
            continue;
        }
        let replaced = replacements_by_entry(input, bundle_index, b, by_object)?;
        let section = &file.sections[*section_index];
        // The bundle may use everything up to the next bundle in its section.
        let slot_end = match bundles.get(bundle_index + 1) {
            Some((next_section, next)) if next_section == section_index => next.offset,
            _ => section.offset + section.size,
        };
        let packed = match b.format {
            // New entries lengthen the entry table, so every entry's data moves: the bundle moves.
            _ if !adds.is_empty() => None,
            BundleFormat::Plain => {
                if plain_misfits(b, slot_end, &replaced).is_empty() {
                    plans.push(BundlePlan::Plain { bundle: bundle_index, slot_end, replaced, refusal: None });
                    continue;
                }
                None
            }
            BundleFormat::Compressed { .. } => {
                let packed = repack(b, &replaced, &adds)?;
                if packed.len() as u64 <= slot_end - b.offset {
                    plans.push(BundlePlan::Compressed { start: b.offset, slot_end, packed });
                    continue;
                }
                Some(Pieces(vec![Piece::Bytes(Cow::Owned(packed))]))
            }
        };
        // It does not fit: move the whole bundle to the end of the host, if the host allows it.
        let address = section.address + (b.offset - section.offset);
        let slot_len = slot_end - b.offset;
        let grower = grower.get_or_insert_with(|| Grower::new(&file));
        let verdict = grower.as_ref().map_err(Clone::clone).and_then(|g| g.can_move(address, slot_len));
        match verdict {
            Ok(()) => {
                let bytes = packed.map_or_else(|| repack_pieces(b, &replaced, &adds), Ok).and_then(|bytes| check_entry_table(b, &adds, bytes.len()).map(|()| bytes));
                match bytes {
                    Ok(bytes) => {
                        moves.push(BundleMove { section_index: *section_index, old_address: address, old_offset: b.offset, slot_len, bytes });
                        let mut objects: Vec<usize> = replaced.values().map(|&(o, _)| o).collect();
                        objects.extend(added.iter().filter(|a| in_bundle(a.beside)).map(|a| a.beside));
                        objects.sort_unstable();
                        objects.dedup();
                        moved_objects.push(objects);
                    }
                    Err(e) if !adds.is_empty() => return Err(e),
                    // A bundle that cannot be re-packed stays, and its misfits say why.
                    Err(e) => plans.push(match b.format {
                        BundleFormat::Plain => BundlePlan::Plain { bundle: bundle_index, slot_end, replaced, refusal: Some(e.to_string()) },
                        BundleFormat::Compressed { .. } => BundlePlan::CompressedMisfits { bundle: bundle_index, slot_end, replaced, refusal: e.to_string() },
                    }),
                }
            }
            Err(refusal) if !adds.is_empty() => {
                return Err(WriteError::Layout(format!("entries cannot be added to the offload bundle at {address:#x}: it must move, and {refusal}")));
            }
            Err(refusal) => plans.push(match b.format {
                BundleFormat::Plain => BundlePlan::Plain { bundle: bundle_index, slot_end, replaced, refusal: Some(refusal) },
                BundleFormat::Compressed { .. } => BundlePlan::CompressedMisfits { bundle: bundle_index, slot_end, replaced, refusal },
            }),
        }
    }

    let mut out = Image::of(original);
    for plan in plans {
        match plan {
            BundlePlan::Plain { bundle, slot_end, replaced, refusal } => {
                replace_in_plain_bundle(&mut out, input, &bundles[bundle].1, slot_end, &replaced, refusal.as_deref(), notes)?
            }
            BundlePlan::Compressed { start, slot_end, packed } => {
                let end = start + packed.len() as u64;
                out.put(start, packed);
                out.zero(end, slot_end - end);
            }
            BundlePlan::CompressedMisfits { bundle, slot_end, replaced, refusal } => {
                shrink_compressed_to_fit(&mut out, input, &bundles[bundle].1, slot_end, replaced, &refusal, notes)?
            }
        }
    }
    if !moves.is_empty() {
        let Some(Ok(grower)) = &grower else { unreachable!("bundles move only when growth is possible") };
        let placements = grower.apply(&file, &mut out, &moves)?;
        for ((m, objects), p) in moves.iter().zip(&moved_objects).zip(placements) {
            for &object in objects {
                notes.moved.push(Moved {
                    object,
                    old_address: m.old_address,
                    address: p.address,
                    offset: p.offset,
                    note: format!(
                        "{} grew past its slot ({} bytes from {:#x}); its bundle ({} bytes) moved to the end of the last PT_LOAD, at {:#x} (file offset {:#x})",
                        input.objects[object].describe(object),
                        m.slot_len,
                        m.old_address,
                        m.bytes.len(),
                        p.address,
                        p.offset
                    ),
                });
            }
        }
    }
    Ok(out)
}

/// The HIP runtime reads the first 4 KiB of a bundle to find its entries: a re-packed plain
/// bundle must have its header and entry table there. (Re-packing keeps every id, so the table
/// is as long as the original's plus the added entries'; this refuses a bundle the runtime
/// could not read.)
fn check_entry_table(b: &Bundle, added: &Additions, packed_len: u64) -> Result<(), WriteError> {
    if b.format != BundleFormat::Plain {
        return Ok(());
    }
    let ids = b.entries.iter().map(|e| e.id.len()).chain(added.values().flatten().map(|(id, _)| id.len()));
    let table = PLAIN_HEADER_LEN + ids.map(|n| ENTRY_HEADER_LEN + n as u64).sum::<u64>();
    if table > RUNTIME_HEADER_WINDOW || packed_len < table {
        return Err(WriteError::Layout(format!(
            "the bundle at {:#x} has a header and entry table of {table} bytes, past the {RUNTIME_HEADER_WINDOW} bytes the HIP runtime reads",
            b.offset
        )));
    }
    Ok(())
}

/// Growth refused for a compressed bundle: its replacements are dropped, the largest growth
/// first, until the re-compressed bundle fits its slot.
fn shrink_compressed_to_fit(
    out: &mut Image<'_>,
    input: &Input,
    b: &Bundle,
    slot_end: u64,
    mut replaced: BTreeMap<usize, (usize, &[u8])>,
    refusal: &str,
    notes: &mut Notes,
) -> Result<(), WriteError> {
    let slot = slot_end - b.offset;
    let packed = loop {
        if replaced.is_empty() {
            break None;
        }
        let packed = repack(b, &replaced, &Additions::new())?;
        if packed.len() as u64 <= slot {
            break Some(packed);
        }
        // The object that grew the most goes first.
        let (&entry, &(object, _)) = replaced
            .iter()
            .max_by_key(|(_, (o, bytes))| (bytes.len() as i64 - input.objects[*o].bytes.len() as i64, std::cmp::Reverse(*o)))
            .unwrap();
        let misfit = Misfit {
            object,
            what: format!("the compressed bundle holding {}", input.objects[object].describe(object)),
            whole_bundle: true,
            needed: packed.len() as u64,
            slot,
            refusal: refusal.to_owned(),
        };
        notes.misfit(misfit)?;
        replaced.remove(&entry);
    };
    if let Some(packed) = packed {
        let end = b.offset + packed.len() as u64;
        out.put(b.offset, packed);
        out.zero(end, slot_end - end);
    }
    Ok(())
}

/// Entries of a plain bundle whose replacement does not fit its slot: (entry, slot start, slot end).
fn plain_misfits(b: &Bundle, slot_end: u64, replaced: &BTreeMap<usize, (usize, &[u8])>) -> Vec<usize> {
    replaced
        .iter()
        .filter(|&(&i, &(_, bytes))| {
            let (start, end) = entry_slot(b, i, slot_end);
            bytes.len() as u64 > end - start
        })
        .map(|(&i, _)| i)
        .collect()
}

/// File offsets of entry `i`'s slot: from its data to the next entry's data (in file order) or
/// the end of the bundle's slot.
fn entry_slot(b: &Bundle, i: usize, slot_end: u64) -> (u64, u64) {
    let start = b.offset + b.entries[i].offset;
    let end = b.entries.iter().map(|e| b.offset + e.offset).filter(|&o| o > start).min().unwrap_or(slot_end).min(slot_end);
    (start, end)
}

/// Replaces entries of a plain bundle inside its slot: new bytes, new size field, zeros after.
/// An entry that does not fit (possible only when growth was refused, for `refusal`) is noted
/// as a misfit and keeps its bytes, or fails the write when misfits are not accepted.
fn replace_in_plain_bundle<'a>(
    out: &mut Image<'a>,
    input: &Input,
    b: &Bundle,
    slot_end: u64,
    replaced: &BTreeMap<usize, (usize, &'a [u8])>,
    refusal: Option<&str>,
    notes: &mut Notes,
) -> Result<(), WriteError> {
    let mut header_at = b.offset + PLAIN_HEADER_LEN;
    for (i, entry) in b.entries.iter().enumerate() {
        let this_header = header_at;
        header_at += ENTRY_HEADER_LEN + entry.id.len() as u64;
        let Some(&(object, bytes)) = replaced.get(&i) else { continue };
        let (start, end) = entry_slot(b, i, slot_end);
        let slot = end - start;
        if bytes.len() as u64 > slot {
            notes.misfit(Misfit {
                object,
                what: input.objects[object].describe(object),
                whole_bundle: false,
                needed: bytes.len() as u64,
                slot,
                refusal: refusal.unwrap_or("growth was not attempted").to_owned(),
            })?;
            continue;
        }
        out.put(start, bytes);
        out.zero(start + bytes.len() as u64, end - start - bytes.len() as u64);
        out.put(this_header + 8, (bytes.len() as u64).to_le_bytes().to_vec());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pieces a moved plain bundle is streamed as are the bytes `write_bundle_aligned`
    /// gives: same header, same entry offsets, same padding, for replaced (shorter and longer)
    /// and added entries.
    #[test]
    fn streamed_repack_is_the_in_memory_one() {
        let (a, b, c) = (vec![1u8; 5000], vec![2u8; 300], vec![3u8; 70]);
        let entries = [("host-x86_64-unknown-linux-gnu-", &[][..]), ("hipv4-amdgcn-amd-amdhsa--gfx900", &a[..]), ("hipv4-amdgcn-amd-amdhsa--gfx906", &b[..]), ("hipv4-amdgcn-amd-amdhsa--gfx90a", &c[..])];
        for align in [1, 8, 4096] {
            let bytes = bundle::write_bundle_aligned(&entries, align);
            let parsed = bundle::parse_bundle(&bytes, &DecompressLimits::default()).unwrap();
            let (longer, shorter, added) = (vec![9u8; 9000], vec![8u8; 10], vec![7u8; 123]);
            let replaced: BTreeMap<usize, (usize, &[u8])> = [(1, (0, &longer[..])), (3, (2, &shorter[..]))].into();
            let additions: Additions = [(2, vec![("hipv4-amdgcn-amd-amdhsa--gfx1100", &added[..])])].into();
            let streamed = repack_pieces(&parsed, &replaced, &additions).unwrap();
            let in_memory = repack_in_memory(&parsed, &replaced, &additions).unwrap();
            assert_eq!(streamed.len(), in_memory.len() as u64, "align {align}");
            assert!(streamed.to_vec() == in_memory, "align {align}");
            // Nothing replaced: the bundle as it was.
            assert!(repack_pieces(&parsed, &BTreeMap::new(), &Additions::new()).unwrap().to_vec() == bytes, "align {align}");
        }
    }
}
