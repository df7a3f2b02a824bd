//! Register counts after a rewrite: the metadata note's `.vgpr_count`, `.sgpr_count` and
//! `.agpr_count` and the descriptor's granulated counts, raised together
//! (lowered only as [`VgprLowering`] says).
//!
//! The descriptor is derived from the metadata counts the way LLVM derives it (and the way
//! `gfxpatch info` checks it):
//!
//! * `GRANULATED_WORKITEM_VGPR_COUNT` = ceil(max(.vgpr_count, 1) / granule) - 1, granule per
//!   generation and wave size ([`vgpr_encoding_granule`]). On GFX90A-class CDNA `.vgpr_count`
//!   already covers both files (architected VGPRs rounded up to 4, then AGPRs); on GFX908 it is
//!   the larger of the two.
//! * `GRANULATED_WAVEFRONT_SGPR_COUNT` (GFX6-GFX9 only) = ceil(max(.sgpr_count, 1) / 8) - 1;
//!   `.sgpr_count` is LLVM's, VCC/FLAT_SCRATCH/XNACK_MASK included.
//! * `ACCUM_OFFSET` (GFX90A-class) = ceil(max(.vgpr_count - .agpr_count, 1) / 4) - 1: the first
//!   AGPR comes after every architected VGPR.
//!
//! Each field is raised only: a descriptor that already allocates more keeps its value. The
//! one exception is [`VgprLowering`], asked for only when a rewrite took back out the code
//! that had needed the count (`patch -R`): it lowers `.vgpr_count` and the VGPR blocks, and
//! only where both are exactly what a raise to the count that code needed leaves.
//!
//! The note is re-encoded from its document. Its size changes when a count crosses a msgpack
//! width (127 -> 128 takes a byte more). The note lies before `.text`, where nothing can move,
//! so a longer note must fit in the padding it already has: the 4-byte alignment of its
//! descriptor, and, when it is the section's last note, the gap before the next section. If it
//! does not, the write is refused, naming the kernel and the bytes missing.

use rmpv::Value;

use super::elf::{read_u32, write_u32, Placement};
use super::{KernelRegisters, VgprLowering, WriteError};
use crate::container::descriptor::vgpr_encoding_granule;
use crate::container::elf::CodeObject;

/// Largest value of the 6-bit VGPR and 4-bit SGPR block fields.
const MAX_VGPR_BLOCKS: u32 = 63;
const MAX_SGPR_BLOCKS: u32 = 15;
/// Largest value of the 6-bit `ACCUM_OFFSET` field (in units of 4 VGPRs, minus one): 256 VGPRs.
const MAX_ACCUM_OFFSET: u32 = 63;

pub(super) fn apply(
    object: &CodeObject,
    registers: &[KernelRegisters],
    lowered: &[VgprLowering],
    placement: &[Placement],
    out: &mut [u8],
    notes: &mut Vec<String>,
) -> Result<(), WriteError> {
    if registers.is_empty() && lowered.is_empty() {
        return Ok(());
    }
    if object.is_graphics() {
        // A shader's counts are never lowered (the rewrite asks for none: see
        // `rewrite::writer::lowerings`).
        return apply_graphics(object, registers, placement, out, notes);
    }
    let generation = object.target.processor.generation;
    let metadata = object
        .metadata
        .as_ref()
        .ok_or_else(|| WriteError::Metadata("the object has no NT_AMDGPU_METADATA note to record register counts in".into()))?;
    let mut document = metadata.document().map_err(|e| WriteError::Metadata(e.to_string()))?;
    for wanted in registers {
        let error = |detail: String| WriteError::Registers { kernel: wanted.kernel.clone(), detail };
        let kernel = object
            .kernels
            .iter()
            .find(|k| k.name == wanted.kernel)
            .ok_or_else(|| error("no kernel descriptor of that name".into()))?;
        let entry = kernel_entry(&mut document, &wanted.kernel).ok_or_else(|| error("no metadata entry".into()))?;
        let vgprs = raise(entry, ".vgpr_count", wanted.vgpr_count, &wanted.kernel, notes).map_err(error)?;
        let sgprs = raise(entry, ".sgpr_count", wanted.sgpr_count, &wanted.kernel, notes).map_err(error)?;
        let agprs = raise(entry, ".agpr_count", wanted.agpr_count, &wanted.kernel, notes).map_err(error)?;

        let mut d = kernel.descriptor;
        let wave_size = d.wave_size(generation);
        let rsrc1 = raise_pgm_rsrc1(d.compute_pgm_rsrc1(), vgprs, sgprs, object, &[wave_size]).map_err(error)?;
        d.set_compute_pgm_rsrc1(rsrc1);
        if generation.has_unified_agprs() {
            let architected = vgprs.saturating_sub(agprs);
            let accum = blocks(architected, 4).max(d.compute_pgm_rsrc3() & 0x3f);
            if accum > MAX_ACCUM_OFFSET {
                return Err(error(format!(
                    "{architected} architected VGPRs ({vgprs} with {agprs} AGPRs) exceed the 256 a wave can address"
                )));
            }
            d.set_compute_pgm_rsrc3((d.compute_pgm_rsrc3() & !0x3f) | accum);
        }
        if d != kernel.descriptor {
            let section = object.section_containing(kernel.descriptor_address).expect("found by the reader");
            let at = placement[section.index].offset + (kernel.descriptor_offset - section.offset);
            // Only the register words (COMPUTE_PGM_RSRC3 at 44, RSRC1 at 48): the rest of the
            // output's descriptor is already patched (its entry offset when the text moved in
            // front of it) and the input's copy would undo that.
            let words = 44..52;
            out[at as usize + words.start..at as usize + words.end].copy_from_slice(&d.as_bytes()[words]);
        }
    }
    let lowered_any = lower(object, &mut document, lowered, placement, out, notes)?;
    if registers.is_empty() && !lowered_any {
        return Ok(());
    }
    write_note(object, &document, placement, out, registers)
}

/// Lowers the VGPR counts of [`VgprLowering`]s where the note and the descriptor (as `out`
/// holds it, raised already) are exactly what a raise to `from` leaves; true if one was.
fn lower(object: &CodeObject, document: &mut Value, lowered: &[VgprLowering], placement: &[Placement], out: &mut [u8], notes: &mut Vec<String>) -> Result<bool, WriteError> {
    let generation = object.target.processor.generation;
    let mut any = false;
    for l in lowered {
        let error = |detail: String| WriteError::Registers { kernel: l.kernel.clone(), detail };
        if l.to >= l.from {
            return Err(error(format!("cannot lower the VGPR count from {} to {}", l.from, l.to)));
        }
        let kernel = object.kernels.iter().find(|k| k.name == l.kernel).ok_or_else(|| error("no kernel descriptor of that name".into()))?;
        let entry = kernel_entry(document, &l.kernel).ok_or_else(|| error("no metadata entry".into()))?;
        // With AGPRs the count covers two files; the caller asks for no such lowering.
        let agprs = entry.iter().find(|(k, _)| k.as_str() == Some(".agpr_count")).map(|(_, v)| v.as_u64());
        if agprs.is_some_and(|n| n != Some(0)) {
            continue;
        }
        let Some((_, count)) = entry.iter_mut().find(|(k, _)| k.as_str() == Some(".vgpr_count")) else { continue };
        if count.as_u64() != Some(u64::from(l.from)) {
            continue;
        }
        let section = object.section_containing(kernel.descriptor_address).expect("found by the reader");
        // COMPUTE_PGM_RSRC3 and RSRC1, at bytes 44 and 48 of the descriptor.
        let base = placement[section.index].offset + (kernel.descriptor_offset - section.offset);
        let (rsrc3, rsrc1) = (read_u32(out, base + 44), read_u32(out, base + 48));
        let granule = vgpr_encoding_granule(generation, kernel.descriptor.wave_size(generation));
        let accum_ours = !generation.has_unified_agprs() || rsrc3 & 0x3f == blocks(l.from, 4);
        if rsrc1 & 0x3f != blocks(l.from, granule) || !accum_ours {
            continue;
        }
        *count = Value::from(l.to);
        write_u32(out, base + 48, (rsrc1 & !0x3f) | blocks(l.to, granule));
        if generation.has_unified_agprs() {
            write_u32(out, base + 44, (rsrc3 & !0x3f) | blocks(l.to, 4));
        }
        notes.push(format!("kernel {}: .vgpr_count lowered {} -> {} (the code that needed {} was taken out)", l.kernel, l.from, l.to, l.from));
        any = true;
    }
    Ok(any)
}

/// The graphics half of [`apply`]: a shader has no descriptor; its RSRC1 register is raised
/// where the object keeps it (PAL: the note's `.registers`, together with the stage's
/// `.vgpr_count` and `.sgpr_count`; Mesa: the value word of its `.AMDGPU.config` pair).
fn apply_graphics(
    object: &CodeObject,
    registers: &[KernelRegisters],
    placement: &[Placement],
    out: &mut [u8],
    notes: &mut Vec<String>,
) -> Result<(), WriteError> {
    use crate::container::graphics::RegisterSource;
    use crate::container::pal;
    let generation = object.target.processor.generation;
    let mut document = object.metadata.as_ref().map(|m| m.document()).transpose().map_err(|e| WriteError::Metadata(e.to_string()))?;
    let mut note_changed = false;
    for wanted in registers {
        let error = |detail: String| WriteError::Registers { kernel: wanted.kernel.clone(), detail };
        let shader = object
            .shaders
            .iter()
            .find(|s| s.name == wanted.kernel)
            .ok_or_else(|| error("no shader of that name".into()))?;
        let r = &shader.resources;
        let register = shader.stage.rsrc1_name();
        let rsrc1 = raise_pgm_rsrc1(r.rsrc1, wanted.vgpr_count, wanted.sgpr_count, object, r.possible_wave_sizes(generation)).map_err(error)?;
        if rsrc1 != r.rsrc1 {
            notes.push(format!("shader {}: {register} raised {:#010x} -> {rsrc1:#010x}", wanted.kernel, r.rsrc1));
        }
        match r.source {
            RegisterSource::PalMetadata => {
                let document = document.as_mut().ok_or_else(|| error("the PAL object has no metadata note".into()))?;
                if rsrc1 != r.rsrc1 {
                    let slot = pal::register_mut(document, shader.stage.rsrc1_register())
                        .ok_or_else(|| error(format!("no {register} in the metadata's .registers")))?;
                    *slot = Value::from(rsrc1);
                }
                let entry = pal::stage_entry_mut(document, shader.stage)
                    .ok_or_else(|| error(format!("no .hardware_stages{} entry", shader.stage.pal_key())))?;
                raise(entry, ".vgpr_count", wanted.vgpr_count, &wanted.kernel, notes).map_err(error)?;
                raise(entry, ".sgpr_count", wanted.sgpr_count, &wanted.kernel, notes).map_err(error)?;
                note_changed = true;
            }
            RegisterSource::MesaConfig { rsrc1_offset, .. } => {
                if rsrc1 != r.rsrc1 {
                    write_word(object, placement, out, rsrc1_offset, rsrc1);
                }
            }
            RegisterSource::PalLegacy { rsrc1_offset, vgpr_count_offset, sgpr_count_offset } => {
                if rsrc1 != r.rsrc1 {
                    write_word(object, placement, out, rsrc1_offset, rsrc1);
                }
                // The counts are fixed-width words: raised in place, nothing moves.
                let counts = [
                    ("NUM_USED_VGPRS", vgpr_count_offset, r.vgpr_count, wanted.vgpr_count),
                    ("NUM_USED_SGPRS", sgpr_count_offset, r.sgpr_count, wanted.sgpr_count),
                ];
                for (what, at, old, new) in counts {
                    if let (Some(at), Some(old)) = (at, old)
                        && new > old
                    {
                        write_word(object, placement, out, at, new);
                        notes.push(format!("shader {}: {what} raised {old} -> {new}", wanted.kernel));
                    }
                }
            }
        }
    }
    match document {
        Some(document) if note_changed => write_note(object, &document, placement, out, registers),
        _ => Ok(()),
    }
}

/// Writes `value` over the u32 at input file offset `at` (inside a section), where that
/// section's bytes are in the output.
fn write_word(object: &CodeObject, placement: &[Placement], out: &mut [u8], at: u64, value: u32) {
    let section = object
        .sections
        .iter()
        .find(|s| s.has_file_bytes() && s.offset <= at && at < s.offset + s.size)
        .expect("the reader found the word in a section");
    write_u32(out, placement[section.index].offset + (at - section.offset), value);
}

/// `rsrc1` (a descriptor's `COMPUTE_PGM_RSRC1` or a shader's `SPI_SHADER_PGM_RSRC1_*`: the
/// block fields are the same) with its VGPR and SGPR blocks raised to hold `vgprs` and
/// `sgprs`, never lowered. With several `wave_sizes` (a shader whose wave size the object does
/// not record) the blocks are enough under each of them.
pub(super) fn raise_pgm_rsrc1(rsrc1: u32, vgprs: u32, sgprs: u32, object: &CodeObject, wave_sizes: &[u32]) -> Result<u32, String> {
    let generation = object.target.processor.generation;
    let mut vgpr_blocks = rsrc1 & 0x3f;
    for &wave_size in wave_sizes {
        let granule = vgpr_encoding_granule(generation, wave_size);
        let needed = blocks(vgprs, granule);
        if needed > MAX_VGPR_BLOCKS {
            return Err(format!(
                "{vgprs} VGPRs do not fit the register's VGPR field ({} at most on {} in wave{wave_size})",
                (MAX_VGPR_BLOCKS + 1) * granule,
                object.target.processor.name
            ));
        }
        vgpr_blocks = vgpr_blocks.max(needed);
    }
    let mut rsrc1 = (rsrc1 & !0x3f) | vgpr_blocks;
    if !generation.is_gfx10_plus() {
        let sgpr_blocks = blocks(sgprs, 8).max((rsrc1 >> 6) & 0xf);
        if sgpr_blocks > MAX_SGPR_BLOCKS {
            return Err(format!("{sgprs} SGPRs do not fit the register's SGPR field ({} at most)", (MAX_SGPR_BLOCKS + 1) * 8));
        }
        rsrc1 = (rsrc1 & !(0xf << 6)) | (sgpr_blocks << 6);
    }
    Ok(rsrc1)
}

/// The object's bytes with its metadata note re-encoded from `document` (retargeting names
/// another processor in `amdhsa.target`). The note grows into the room it has, as for
/// register counts; [`super::note_room`] makes more.
pub fn with_metadata(object: &CodeObject, document: &Value) -> Result<Vec<u8>, WriteError> {
    let placement: Vec<Placement> = object.sections.iter().map(|s| Placement { offset: s.offset, address: s.address, size: s.size }).collect();
    let mut out = object.data.to_vec();
    write_note(object, document, &placement, &mut out, &[])?;
    Ok(out)
}

/// `ceil(max(count, 1) / granule) - 1`, the block encoding of the descriptor.
fn blocks(count: u32, granule: u32) -> u32 {
    count.max(1).div_ceil(granule) - 1
}

/// The `amdhsa.kernels` entry whose `.name` is `kernel`.
fn kernel_entry<'d>(document: &'d mut Value, kernel: &str) -> Option<&'d mut Vec<(Value, Value)>> {
    let root = match document {
        Value::Map(m) => m,
        _ => return None,
    };
    let (_, kernels) = root.iter_mut().find(|(k, _)| k.as_str() == Some("amdhsa.kernels"))?;
    let Value::Array(kernels) = kernels else { return None };
    kernels.iter_mut().find_map(|k| match k {
        Value::Map(m) if m.iter().any(|(k, v)| k.as_str() == Some(".name") && v.as_str() == Some(kernel)) => Some(m),
        _ => None,
    })
}

/// Sets `key` to `wanted` if that raises it; returns the value in force. A missing key is
/// added only when a count above zero must be recorded.
fn raise(
    entry: &mut Vec<(Value, Value)>,
    key: &str,
    wanted: u32,
    kernel: &str,
    notes: &mut Vec<String>,
) -> Result<u32, String> {
    let slot = entry.iter_mut().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v);
    let old = match &slot {
        Some(v) => {
            let n = v.as_u64().ok_or_else(|| format!("metadata {key} is not an unsigned integer"))?;
            u32::try_from(n).map_err(|_| format!("metadata {key} {n} is out of range"))?
        }
        None => 0,
    };
    if wanted <= old {
        return Ok(old);
    }
    match slot {
        Some(v) => *v = Value::from(wanted),
        None => entry.push((Value::from(key), Value::from(wanted))),
    }
    notes.push(format!("kernel {kernel}: {key} raised {old} -> {wanted}"));
    Ok(wanted)
}

/// Writes the re-encoded note into the room the old one had.
fn write_note(
    object: &CodeObject,
    document: &Value,
    placement: &[Placement],
    out: &mut [u8],
    registers: &[KernelRegisters],
) -> Result<(), WriteError> {
    let mut encoded = Vec::new();
    rmpv::encode::write_value(&mut encoded, document).expect("writing to a Vec cannot fail");
    let (desc_offset, old_len) = object.metadata_range.expect("metadata was read from a note");
    let section = object
        .sections
        .iter()
        .find(|s| s.has_file_bytes() && s.offset <= desc_offset && desc_offset < s.offset + s.size)
        .expect("the note lies in a section");
    let new_len = encoded.len() as u64;
    let old_padded = old_len.next_multiple_of(4);
    let new_padded = new_len.next_multiple_of(4);
    let note_end = desc_offset + old_padded;
    let section_end = section.offset + section.size;
    let last_note = note_end >= section_end;
    // Room up to the next section in the file, if this note is the section's last.
    let room = if last_note {
        let next = object.sections.iter().filter(|s| s.offset >= section_end && s.index != section.index && s.size > 0).map(|s| s.offset).min();
        next.unwrap_or(section_end).saturating_sub(desc_offset)
    } else {
        old_padded
    };
    if new_padded > room {
        let kernels: Vec<&str> = registers.iter().map(|r| r.kernel.as_str()).collect();
        let what = if kernels.is_empty() { "the new metadata".to_owned() } else { format!("recording the counts of {}", kernels.join(", ")) };
        return Err(WriteError::NoteOutgrowsRoom {
            grow: new_padded - old_padded,
            detail: format!(
                "{what} makes the note {} bytes longer than the {} bytes of room it has before the next section",
                new_padded - old_padded,
                room.saturating_sub(old_padded)
            ),
        });
    }
    let at = placement[section.index].offset + (desc_offset - section.offset);
    let (start, end) = (at as usize, (at + new_padded.max(old_padded)) as usize);
    out[start..end].fill(0);
    out[start..start + encoded.len()].copy_from_slice(&encoded);
    // n_descsz sits 8 bytes plus the padded owner name ("AMDGPU\0" -> 8) before the descriptor.
    let descsz_at = at - 16;
    debug_assert_eq!(u64::from(read_u32(object.data, desc_offset - 16)), old_len);
    write_u32(out, descsz_at, new_len as u32);
    if new_padded > old_padded {
        grow_note_section(object, section.index, new_padded - old_padded, placement, out);
    }
    Ok(())
}

/// A longer last note: the note section and the `PT_NOTE` that covers it grow into the gap.
fn grow_note_section(object: &CodeObject, index: usize, by: u64, placement: &[Placement], out: &mut [u8]) {
    use super::elf::write_u64;
    let section = &object.sections[index];
    let shoff = super::elf::read_u64(out, 40);
    write_u64(out, shoff + 64 * index as u64 + 32, placement[index].size + by);
    let phoff = super::elf::read_u64(object.data, 32);
    for (i, p) in object.segments.iter().enumerate() {
        if p.p_type == object::elf::PT_NOTE && p.offset <= section.offset && section.offset + section.size == p.offset + p.file_size {
            let at = phoff + 56 * i as u64;
            write_u64(out, at + 32, p.file_size + by);
            write_u64(out, at + 40, p.mem_size + by);
        }
    }
}
