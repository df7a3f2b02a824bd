//! Putting rewritten code objects back where they came from: a bare file, an offload bundle
//! (plain or `CCOB`), or the `.hip_fatbin` section of a host library.
//!
//! * Nothing replaced: the original bytes.
//! * A bundle file is re-packed: entries keep their order, ids and alignment (inferred from the
//!   original offsets); a compressed bundle is compressed again with its own version and codec.
//! * A host library cannot grow (its `.hip_fatbin` is addressed by host code), so each object
//!   must fit the slot it came from. In a plain bundle an entry's slot runs to the next entry's
//!   data, or for the last entry to the next bundle (or the end of the section): the entry's size
//!   field is updated and the rest of the slot zeroed. A compressed bundle's slot runs from its
//!   magic to the next bundle; the re-compressed bundle must fit there and the rest is zeroed
//!   (readers, LLVM's and ours, skip zero padding between bundles). Otherwise the write is
//!   refused with [`WriteError::DoesNotFit`] naming the object and both sizes.

use std::collections::BTreeMap;

use super::WriteError;
use crate::container::amdgpu::HIP_FATBIN_SECTION;
use crate::container::bundle::{self, Bundle, BundleFormat, DecompressLimits};
use crate::container::elf::ElfFile;
use crate::container::input::{Input, InputKind};

/// Length of a plain bundle's fixed header, and of an entry header without its id.
const PLAIN_HEADER_LEN: u64 = 32;
const ENTRY_HEADER_LEN: u64 = 24;

/// `original` (the bytes `input` was parsed from) with the code objects `replaced` names (index
/// into `input.objects`, new bytes) put in place. See the module comment for what each kind of
/// input allows.
pub fn write_input(original: &[u8], input: &Input, replaced: &[(usize, Vec<u8>)]) -> Result<Vec<u8>, WriteError> {
    let mut misfits = None;
    write_input_inner(original, input, replaced, &mut misfits)
}

/// A replacement left out because it did not fit its slot in a host library.
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
}

impl std::fmt::Display for Misfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} no longer fits its slot in the host library: it needs {} bytes, the slot has {}; the original bytes are kept", self.what, self.needed, self.slot)
    }
}

/// Like [`write_input`], but in a host library a replacement that does not fit its slot is
/// left out (that object keeps its original bytes) and listed instead of failing the whole
/// file. In a compressed bundle the replacement that grew the most is dropped first, then the
/// next, until the re-compressed bundle fits.
pub fn write_input_keeping_misfits(original: &[u8], input: &Input, replaced: &[(usize, Vec<u8>)]) -> Result<(Vec<u8>, Vec<Misfit>), WriteError> {
    let mut misfits = Some(Vec::new());
    let bytes = write_input_inner(original, input, replaced, &mut misfits)?;
    Ok((bytes, misfits.unwrap_or_default()))
}

fn write_input_inner(original: &[u8], input: &Input, replaced: &[(usize, Vec<u8>)], misfits: &mut Option<Vec<Misfit>>) -> Result<Vec<u8>, WriteError> {
    let mut by_object: BTreeMap<usize, &[u8]> = BTreeMap::new();
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
    if by_object.is_empty() {
        return Ok(original.to_vec());
    }
    let limits = DecompressLimits::default();
    match input.kind {
        InputKind::Elf => Ok(by_object[&0].to_vec()),
        InputKind::Bundle => {
            let bundle = bundle::parse_bundle(original, &limits)?;
            let entries = replacements_by_entry(input, 0, &bundle, &by_object)?;
            repack(&bundle, &entries)
        }
        InputKind::Host => write_host(original, input, &by_object, &limits, misfits),
    }
}

/// Replacements of one bundle, keyed by entry index within the bundle.
fn replacements_by_entry<'r>(
    input: &Input,
    bundle_index: usize,
    bundle: &Bundle,
    by_object: &BTreeMap<usize, &'r [u8]>,
) -> Result<BTreeMap<usize, (usize, &'r [u8])>, WriteError> {
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
    let mut out = BTreeMap::new();
    for (entry, object) in entries.into_iter().zip(objects) {
        if let Some(bytes) = by_object.get(&object) {
            out.insert(entry, (object, *bytes));
        }
    }
    Ok(out)
}

/// The alignment clang-offload-bundler was given for this bundle: the largest power of two
/// (up to 64 KiB) that reproduces every entry offset.
fn inferred_alignment(bundle: &Bundle) -> Option<u64> {
    let entries: Vec<(&str, &[u8])> = bundle.entries.iter().map(|e| (e.id.as_ref(), e.bytes.as_ref())).collect();
    (0..=16).rev().map(|k| 1u64 << k).find(|&align| {
        let offsets = plain_offsets(&entries, align);
        offsets.iter().zip(&bundle.entries).all(|(o, e)| *o == e.offset)
    })
}

/// Entry offsets `write_bundle_aligned` would give.
fn plain_offsets(entries: &[(&str, &[u8])], align: u64) -> Vec<u64> {
    let mut cursor = PLAIN_HEADER_LEN + entries.iter().map(|(id, _)| ENTRY_HEADER_LEN + id.len() as u64).sum::<u64>();
    entries
        .iter()
        .map(|(_, bytes)| {
            let offset = cursor.next_multiple_of(align);
            cursor = offset + bytes.len() as u64;
            offset
        })
        .collect()
}

/// The bundle written again with some entries replaced, in its own format.
fn repack(bundle: &Bundle, replaced: &BTreeMap<usize, (usize, &[u8])>) -> Result<Vec<u8>, WriteError> {
    let align = inferred_alignment(bundle).ok_or_else(|| {
        WriteError::Layout(format!(
            "the offload bundle at {:#x} has entry offsets no bundle alignment reproduces; it cannot be re-packed",
            bundle.offset
        ))
    })?;
    let entries: Vec<(&str, &[u8])> = bundle
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.as_ref(), replaced.get(&i).map_or(e.bytes.as_ref(), |r| r.1)))
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

fn write_host(
    original: &[u8],
    input: &Input,
    by_object: &BTreeMap<usize, &[u8]>,
    limits: &DecompressLimits,
    misfits: &mut Option<Vec<Misfit>>,
) -> Result<Vec<u8>, WriteError> {
    let file = ElfFile::parse(original)?;
    let fatbin = file
        .section_by_name(HIP_FATBIN_SECTION)
        .ok_or_else(|| WriteError::Layout(format!("the host library has no {HIP_FATBIN_SECTION} section")))?;
    let bundles = bundle::parse_bundles(file.section_data(fatbin), fatbin.offset, limits)?;
    let section_end = fatbin.offset + fatbin.size;
    let mut out = original.to_vec();
    for (bundle_index, b) in bundles.iter().enumerate() {
        if !by_object.keys().any(|&i| input.objects[i].bundle_index == bundle_index) {
            continue;
        }
        let mut replaced = replacements_by_entry(input, bundle_index, b, by_object)?;
        // The bundle may use everything up to the next bundle.
        let slot_end = bundles.get(bundle_index + 1).map_or(section_end, |n| n.offset);
        match b.format {
            BundleFormat::Plain => replace_in_plain_bundle(&mut out, input, b, slot_end, &replaced, misfits)?,
            BundleFormat::Compressed { .. } => {
                let slot = slot_end - b.offset;
                let packed = loop {
                    if replaced.is_empty() {
                        break None;
                    }
                    let packed = repack(b, &replaced)?;
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
                    };
                    match misfits {
                        Some(list) => list.push(misfit),
                        None => return Err(WriteError::DoesNotFit { object: misfit.what, needed: misfit.needed, slot }),
                    }
                    replaced.remove(&entry);
                };
                if let Some(packed) = packed {
                    let start = b.offset as usize;
                    out[start..start + packed.len()].copy_from_slice(&packed);
                    out[start + packed.len()..slot_end as usize].fill(0);
                }
            }
        }
    }
    Ok(out)
}

/// Replaces entries of a plain bundle inside its slot: new bytes, new size field, zeros after.
/// An entry that does not fit is listed in `misfits` and keeps its bytes (or, without a list,
/// fails the write).
fn replace_in_plain_bundle(
    out: &mut [u8],
    input: &Input,
    b: &Bundle,
    slot_end: u64,
    replaced: &BTreeMap<usize, (usize, &[u8])>,
    misfits: &mut Option<Vec<Misfit>>,
) -> Result<(), WriteError> {
    let mut header_at = b.offset + PLAIN_HEADER_LEN;
    for (i, entry) in b.entries.iter().enumerate() {
        let this_header = header_at;
        header_at += ENTRY_HEADER_LEN + entry.id.len() as u64;
        let Some(&(object, bytes)) = replaced.get(&i) else { continue };
        let start = b.offset + entry.offset;
        // The slot ends where the next entry's data (in file order) or the next bundle begins.
        let end = b
            .entries
            .iter()
            .map(|e| b.offset + e.offset)
            .filter(|&o| o > start)
            .min()
            .unwrap_or(slot_end)
            .min(slot_end);
        let slot = end - start;
        if bytes.len() as u64 > slot {
            let misfit = Misfit { object, what: input.objects[object].describe(object), whole_bundle: false, needed: bytes.len() as u64, slot };
            match misfits {
                Some(list) => {
                    list.push(misfit);
                    continue;
                }
                None => return Err(WriteError::DoesNotFit { object: misfit.what, needed: misfit.needed, slot }),
            }
        }
        out[start as usize..start as usize + bytes.len()].copy_from_slice(bytes);
        out[start as usize + bytes.len()..end as usize].fill(0);
        out[(this_header + 8) as usize..(this_header + 16) as usize].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
    }
    Ok(())
}
