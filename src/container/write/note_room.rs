//! Room for a longer metadata note: the dynamic-linking tables that follow it move forward
//! into the padding in front of the first section the code addresses.
//!
//! A code object's metadata note lies at the start of its first `PT_LOAD`, followed by
//! `.dynsym`, `.gnu.hash`, `.hash`, `.dynstr` (and `.rela.dyn` where there is one), then
//! `.rodata` (kernel descriptors, constants) and `.text`. The tables are found only through
//! `.dynamic` and the section headers, and hold no address of their own, so they can move by a
//! few bytes; `.rodata` cannot (`.text` reaches it PC-relatively, and each descriptor holds
//! the distance to its code). `.rodata` is 64-byte aligned, so there is usually padding in
//! front of it: this is how clang-19 lays out the same file with a longer note (a generic
//! target string), `.dynsym` 8 bytes further, `.rodata` where it was.
//!
//! Anything that does not fit this picture is refused, naming it: a table of another kind,
//! too little padding, a segment boundary among the tables, a relocation or an address tag
//! of `.dynamic` we do not know pointing into them.

use object::elf;

use super::elf::{read_u16, read_u64, write_u64};
use super::WriteError;
use crate::container::elf::CodeObject;

const SHDR_LEN: u64 = 64;
const SYM_LEN: u64 = 24;
const RELA_LEN: u64 = 24;
const DYN_LEN: u64 = 16;

/// `.dynamic` tags whose value is the address of a table.
const TABLE_TAGS: &[i64] = &[
    elf::DT_HASH as i64,
    elf::DT_STRTAB as i64,
    elf::DT_SYMTAB as i64,
    elf::DT_RELA as i64,
    elf::DT_REL as i64,
    elf::DT_JMPREL as i64,
    elf::DT_GNU_HASH as i64,
    elf::DT_VERSYM as i64,
    elf::DT_VERDEF as i64,
    elf::DT_VERNEED as i64,
    36, // DT_RELR
];

/// The object's bytes with the sections between its metadata note and the first section that
/// may not move shifted forward so that the note can grow by `grow` bytes (rounded up to the
/// alignment of the tables). Returns the input's bytes when the note already has the room.
pub fn make_room_after_note(object: &CodeObject, grow: u64) -> Result<Vec<u8>, WriteError> {
    let refuse = |why: String| Err(WriteError::Layout(format!("the metadata note cannot grow by {grow} bytes: {why}")));
    let data = object.data;
    let Some((desc_offset, desc_len)) = object.metadata_range else { return refuse("there is no metadata note".into()) };
    let Some(note) = object.sections.iter().find(|s| s.has_file_bytes() && s.offset <= desc_offset && desc_offset < s.offset + s.size) else {
        return refuse("no section holds the note".into());
    };
    let note_end = desc_offset + desc_len.next_multiple_of(4);
    if note_end < note.offset + note.size {
        return refuse(format!("the note is not the last of section {}", note.name));
    }
    // Allocated sections after the note, in file order.
    let mut after: Vec<_> = object.sections.iter().filter(|s| s.offset >= note.offset + note.size && s.index != note.index && s.flags & u64::from(elf::SHF_ALLOC) != 0).collect();
    after.sort_by_key(|s| s.offset);
    let movable = |t: u32| matches!(t, elf::SHT_DYNSYM | elf::SHT_GNU_HASH | elf::SHT_HASH | elf::SHT_STRTAB | elf::SHT_RELA | elf::SHT_GNU_VERSYM | elf::SHT_GNU_VERDEF | elf::SHT_GNU_VERNEED);
    let count = after.iter().take_while(|s| movable(s.sh_type)).count();
    let (moved, barrier) = (&after[..count], after.get(count));
    let Some(barrier) = barrier else { return refuse("no section follows the dynamic-linking tables".into()) };
    let room_now = moved.first().map_or(barrier.offset, |s| s.offset) - note_end;
    if room_now >= grow {
        return Ok(data.to_vec());
    }
    let Some(first) = moved.first() else {
        return refuse(format!("{} follows the note with {room_now} bytes between them and cannot move", barrier.name));
    };
    let last_end = moved.iter().map(|s| s.offset + s.size).max().unwrap_or(first.offset);
    let align = moved.iter().map(|s| s.align.max(1)).max().unwrap_or(1);
    let by = (grow - room_now).next_multiple_of(align);
    if last_end + by > barrier.offset {
        return refuse(format!(
            "the tables after it ({} to {}) would have to move {by} bytes, but there are {} bytes before {}, which cannot move",
            first.name,
            moved.last().unwrap().name,
            barrier.offset - last_end,
            barrier.name
        ));
    }
    // One linear mapping from the note to the barrier, inside one segment.
    let delta = note.address.wrapping_sub(note.offset);
    if let Some(s) = moved.iter().chain([barrier]).find(|s| s.address.wrapping_sub(s.offset) != delta) {
        return refuse(format!("{} is not mapped at the note's distance between address and offset", s.name));
    }
    let range = first.offset..last_end + by;
    for p in &object.segments {
        let (start, end) = (p.offset, p.offset + p.file_size);
        let covers = start <= note.offset && end >= barrier.offset;
        let apart = end <= range.start || start >= range.end;
        if !(covers || apart) {
            return refuse(format!("a program header (type {:#x}) starts or ends among the tables", p.p_type));
        }
    }
    let (lo, hi) = (first.address, first.address + (last_end - first.offset));
    let inside = |a: u64| (lo..hi).contains(&a);

    let mut out = data.to_vec();
    out.copy_within(first.offset as usize..last_end as usize, (first.offset + by) as usize);
    out[first.offset as usize..(first.offset + by) as usize].fill(0);
    let shoff = read_u64(data, 40);
    let moved_index = |i: u64| moved.iter().any(|s| s.index as u64 == i);
    for s in moved {
        let at = shoff + SHDR_LEN * s.index as u64;
        write_u64(&mut out, at + 16, s.address + by);
        write_u64(&mut out, at + 24, s.offset + by);
    }
    // Where each section's bytes are now.
    let now = |s: &crate::container::elf::Section| if moved_index(s.index as u64) { s.offset + by } else { s.offset };
    for s in &object.sections {
        match s.sh_type {
            elf::SHT_DYNAMIC => {
                for k in 0..s.size / DYN_LEN {
                    let at = now(s) + k * DYN_LEN;
                    let (tag, value) = (read_u64(&out, at) as i64, read_u64(&out, at + 8));
                    if TABLE_TAGS.contains(&tag) && inside(value) {
                        write_u64(&mut out, at + 8, value + by);
                    }
                }
            }
            elf::SHT_SYMTAB | elf::SHT_DYNSYM => {
                for k in 0..s.size / SYM_LEN {
                    let at = now(s) + k * SYM_LEN;
                    let shndx = u64::from(read_u16(&out, at + 6));
                    if moved_index(shndx) {
                        let value = read_u64(&out, at + 8);
                        write_u64(&mut out, at + 8, value + by);
                    }
                }
            }
            elf::SHT_RELA => {
                for k in 0..s.size / RELA_LEN {
                    let at = now(s) + k * RELA_LEN;
                    let (place, addend) = (read_u64(&out, at), read_u64(&out, at + 16));
                    if inside(place) || inside(addend) {
                        return refuse(format!("a relocation in {} at {place:#x} refers to the tables", s.name));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}
