//! A zero-initialised device global added to a written code object: the counters of
//! instrumentation probes.
//!
//! What clang-19 emits for `__device__ unsigned long long c[4];` is the model: a `.bss`-like
//! `SHT_NOBITS` section, flags `SHF_WRITE | SHF_ALLOC`, in a `PT_LOAD` of its own (`RW`,
//! `p_filesz` 0, `p_memsz` its size), and an `STT_OBJECT` `STB_GLOBAL` `STV_PROTECTED` symbol with
//! its size. We add:
//!
//! ```text
//! [the input, unchanged up to its end]
//! [zeros to a 4 KiB boundary]             -- the new PT_LOAD's p_offset (p_filesz 0)
//! [.symtab copy + __gfxpatch_counters] [.strtab copy + name] [.shstrtab copy + name]
//! [the section header table + .gfxpatch_counters (SHT_NOBITS)]
//! ```
//! The segment goes at the first 4 KiB boundary after every `PT_LOAD`'s memory, so nothing that
//! was loaded moves. Its program header is the `PT_GNU_STACK` entry, retyped: a code object has
//! no room after its program header table (`.note` follows it directly), and the GPU loader
//! gives `PT_GNU_STACK` no meaning (the stack is the private segment the descriptor sizes).
//! The old `.symtab`, `.strtab` and `.shstrtab` bytes stay where they were, unreferenced.
//! `.dynsym` is not extended: it is hashed (`.hash`, `.gnu.hash`) inside the first `PT_LOAD`,
//! which cannot grow without moving `.text`.

use super::WriteError;

const PT_LOAD: u32 = 1;
const PT_GNU_STACK: u32 = 0x6474_e551;
const SHT_SYMTAB: u32 = 2;
const SHT_NOBITS: u32 = 8;
const PAGE: u64 = 0x1000;
pub const SECTION: &str = ".gfxpatch_counters";

fn rd<const N: usize>(d: &[u8], at: usize) -> Result<[u8; N], WriteError> {
    d.get(at..at + N).and_then(|s| s.try_into().ok()).ok_or_else(|| WriteError::Layout(format!("counters: the ELF is truncated at {at:#x}")))
}
fn u16_at(d: &[u8], at: usize) -> Result<u64, WriteError> {
    Ok(u64::from(u16::from_le_bytes(rd(d, at)?)))
}
fn u32_at(d: &[u8], at: usize) -> Result<u64, WriteError> {
    Ok(u64::from(u32::from_le_bytes(rd(d, at)?)))
}
fn u64_at(d: &[u8], at: usize) -> Result<u64, WriteError> {
    Ok(u64::from_le_bytes(rd(d, at)?))
}
fn put64(d: &mut [u8], at: usize, v: u64) {
    d[at..at + 8].copy_from_slice(&v.to_le_bytes());
}
fn put32(d: &mut [u8], at: usize, v: u32) {
    d[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// The program headers: (type, offset, vaddr, filesz, memsz) and where each header is.
fn segments(d: &[u8]) -> Result<Vec<(usize, u32, u64, u64)>, WriteError> {
    let phoff = u64_at(d, 0x20)? as usize;
    let (phentsize, phnum) = (u16_at(d, 0x36)? as usize, u16_at(d, 0x38)? as usize);
    (0..phnum)
        .map(|i| {
            let at = phoff + i * phentsize;
            Ok((at, u32_at(d, at)? as u32, u64_at(d, at + 0x10)?, u64_at(d, at + 0x28)?))
        })
        .collect()
}

/// Where [`add`] will put the counters of `object`: the first page boundary after every
/// `PT_LOAD`'s memory.
pub fn address(object: &[u8]) -> Result<u64, WriteError> {
    let end = segments(object)?.iter().filter(|s| s.1 == PT_LOAD).map(|s| s.2 + s.3).max().unwrap_or(0);
    Ok(end.next_multiple_of(PAGE))
}

/// Adds `bytes` of zero-initialised counters, the `.gfxpatch_counters` section and the
/// `symbol` to the code object `object`; returns the new object and the counters' address.
pub fn add(object: &[u8], bytes: u64, symbol: &str) -> Result<(Vec<u8>, u64), WriteError> {
    let d = object;
    if d.get(..6) != Some(b"\x7fELF\x02\x01".as_slice()) {
        return Err(WriteError::Layout("counters: not a little-endian ELF64 file".into()));
    }
    let vaddr = address(d)?;
    let segs = segments(d)?;
    let Some(&(stack_at, ..)) = segs.iter().find(|s| s.1 == PT_GNU_STACK) else {
        return Err(WriteError::Layout("counters: no PT_GNU_STACK program header to turn into the counters' PT_LOAD, and no room for a new one".into()));
    };
    let shoff = u64_at(d, 0x28)? as usize;
    let (shentsize, shnum, shstrndx) = (u16_at(d, 0x3a)? as usize, u16_at(d, 0x3c)? as usize, u16_at(d, 0x3e)? as usize);
    if shentsize != 64 || shnum == 0 || shnum + 1 >= 0xff00 || shstrndx >= shnum {
        return Err(WriteError::Layout("counters: unusual section header table".into()));
    }
    let sh = |i: usize| shoff + i * 64;
    let symtab = (0..shnum).find(|&i| u32_at(d, sh(i) + 4).is_ok_and(|t| t == u64::from(SHT_SYMTAB))).ok_or_else(|| WriteError::Layout("counters: the object has no .symtab".into()))?;
    let strtab = u32_at(d, sh(symtab) + 0x28)? as usize;
    let body = |i: usize| -> Result<Vec<u8>, WriteError> {
        let (off, size) = (u64_at(d, sh(i) + 0x18)? as usize, u64_at(d, sh(i) + 0x20)? as usize);
        d.get(off..off + size).map(<[u8]>::to_vec).ok_or_else(|| WriteError::Layout(format!("counters: section {i} runs past the file")))
    };
    // New contents of the tables that grow (the string tables may be one section).
    let mut grown: Vec<(usize, Vec<u8>)> = vec![(symtab, body(symtab)?)];
    let string = |i: usize, s: &str, grown: &mut Vec<(usize, Vec<u8>)>| -> Result<u32, WriteError> {
        if !grown.iter().any(|(j, _)| *j == i) {
            grown.push((i, body(i)?));
        }
        let t = &mut grown.iter_mut().find(|(j, _)| *j == i).unwrap().1;
        let at = t.len() as u32;
        t.extend_from_slice(s.as_bytes());
        t.push(0);
        Ok(at)
    };
    let sym_name = string(strtab, symbol, &mut grown)?;
    let sec_name = string(shstrndx, SECTION, &mut grown)?;
    let new_index = shnum;
    let mut sym = [0u8; 24];
    put32(&mut sym, 0, sym_name);
    sym[4] = (1 << 4) | 1; // STB_GLOBAL, STT_OBJECT
    sym[5] = 3; // STV_PROTECTED, as clang gives a __device__ global
    sym[6..8].copy_from_slice(&(new_index as u16).to_le_bytes());
    put64(&mut sym, 8, vaddr);
    put64(&mut sym, 16, bytes);
    grown[0].1.extend_from_slice(&sym);

    let mut out = d.to_vec();
    out.resize((out.len() as u64).next_multiple_of(PAGE) as usize, 0);
    let counters_offset = out.len() as u64;
    let mut placed = Vec::new();
    for (i, t) in &grown {
        out.resize(out.len().next_multiple_of(8), 0);
        placed.push((*i, out.len() as u64, t.len() as u64));
        out.extend_from_slice(t);
    }
    out.resize(out.len().next_multiple_of(8), 0);
    let new_shoff = out.len();
    out.extend_from_slice(&d[shoff..shoff + shnum * 64]);
    for (i, off, size) in placed {
        put64(&mut out, new_shoff + i * 64 + 0x18, off);
        put64(&mut out, new_shoff + i * 64 + 0x20, size);
    }
    let mut s = [0u8; 64];
    put32(&mut s, 0, sec_name);
    put32(&mut s, 4, SHT_NOBITS);
    put64(&mut s, 8, 3); // SHF_WRITE | SHF_ALLOC
    put64(&mut s, 0x10, vaddr);
    put64(&mut s, 0x18, counters_offset);
    put64(&mut s, 0x20, bytes);
    put64(&mut s, 0x30, PAGE);
    out.extend_from_slice(&s);
    put64(&mut out, 0x28, new_shoff as u64);
    out[0x3c..0x3e].copy_from_slice(&((shnum + 1) as u16).to_le_bytes());
    // The retyped PT_GNU_STACK: RW, file size 0, page-aligned.
    let p = stack_at;
    put32(&mut out, p, PT_LOAD);
    put32(&mut out, p + 4, 6); // PF_R | PF_W
    put64(&mut out, p + 8, counters_offset);
    put64(&mut out, p + 0x10, vaddr);
    put64(&mut out, p + 0x18, vaddr);
    put64(&mut out, p + 0x20, 0);
    put64(&mut out, p + 0x28, bytes);
    put64(&mut out, p + 0x30, PAGE);
    Ok((out, vaddr))
}
