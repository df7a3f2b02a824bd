//! A sparse 64-bit byte-addressed memory: byte ranges are mapped explicitly (the loaded code
//! object, the kernarg segment, each buffer with its guard bytes); any access that touches an
//! unmapped byte is a fault at that byte's address, never a silent zero. Bytes live in 4 KiB
//! pages, but what is mapped is tracked to the byte: the rest of a buffer's last page is not.

use std::collections::{BTreeMap, HashMap};

const PAGE_BITS: u32 = 12;
const PAGE: u64 = 1 << PAGE_BITS;

#[derive(Default, Clone)]
pub struct Memory {
    pages: HashMap<u64, Box<[u8; PAGE as usize]>>,
    /// Mapped ranges, start -> end (exclusive), disjoint and not touching.
    ranges: BTreeMap<u64, u64>,
}

impl Memory {
    pub fn new() -> Memory {
        Memory::default()
    }

    /// Maps `[addr, addr + len)` (whole pages around it), zero-filled where not mapped yet.
    pub fn map(&mut self, addr: u64, len: u64) {
        if len == 0 {
            return;
        }
        let (mut start, mut end) = (addr, addr.saturating_add(len));
        // Merge with every range that overlaps or touches [start, end).
        let touching: Vec<(u64, u64)> = self.ranges.range(..=end).rev().take_while(|&(_, &e)| e >= start).map(|(&s, &e)| (s, e)).collect();
        for (s, e) in touching {
            self.ranges.remove(&s);
            start = start.min(s);
            end = end.max(e);
        }
        self.ranges.insert(start, end);
        let first = addr >> PAGE_BITS;
        let last = (addr + len - 1) >> PAGE_BITS;
        for page in first..=last {
            self.pages.entry(page).or_insert_with(|| Box::new([0; PAGE as usize]));
        }
    }

    pub fn is_mapped(&self, addr: u64) -> bool {
        self.ranges.range(..=addr).next_back().is_some_and(|(_, &end)| addr < end)
    }

    /// The first unmapped byte of `[addr, addr + len)`, if any.
    fn first_unmapped(&self, addr: u64, len: usize) -> Option<u64> {
        match self.ranges.range(..=addr).next_back() {
            Some((_, &end)) if addr < end => (end - addr < len as u64).then_some(end),
            _ => (len > 0).then_some(addr),
        }
    }

    /// Reads `out.len()` bytes at `addr`; the first unmapped address is the error.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), u64> {
        if let Some(a) = self.first_unmapped(addr, out.len()) {
            return Err(a);
        }
        let mut done = 0usize;
        while done < out.len() {
            let a = addr.wrapping_add(done as u64);
            let page = self.pages.get(&(a >> PAGE_BITS)).ok_or(a)?;
            let at = (a & (PAGE - 1)) as usize;
            let n = (PAGE as usize - at).min(out.len() - done);
            out[done..done + n].copy_from_slice(&page[at..at + n]);
            done += n;
        }
        Ok(())
    }

    /// Writes `data` at `addr`; nothing is written when any byte is unmapped.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), u64> {
        if let Some(a) = self.first_unmapped(addr, data.len()) {
            return Err(a);
        }
        let mut done = 0usize;
        while done < data.len() {
            let a = addr.wrapping_add(done as u64);
            let page = self.pages.get_mut(&(a >> PAGE_BITS)).expect("checked above");
            let at = (a & (PAGE - 1)) as usize;
            let n = (PAGE as usize - at).min(data.len() - done);
            page[at..at + n].copy_from_slice(&data[done..done + n]);
            done += n;
        }
        Ok(())
    }

    pub fn read_u32(&self, addr: u64) -> Result<u32, u64> {
        let mut b = [0u8; 4];
        self.read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// `len` bytes at `addr` (for results and comparisons).
    pub fn bytes(&self, addr: u64, len: usize) -> Result<Vec<u8>, u64> {
        let mut v = vec![0u8; len];
        self.read(addr, &mut v)?;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unmapped_bytes_fault_at_their_address() {
        let mut m = Memory::new();
        m.map(0x1ff0, 8);
        m.map(0x1ff8, 0x10);
        m.write(0x1ffe, &[1, 2]).unwrap();
        assert_eq!(m.read_u32(0x1ffc).unwrap(), 0x0201_0000, "touching ranges merge across a page");
        assert_eq!(m.read_u32(0x2006), Err(0x2008), "the first byte past the range");
        assert_eq!(m.read_u32(0x1fec), Err(0x1fec), "a byte before it, in a page that exists");
        assert_eq!(m.write(0x2007, &[1, 2]), Err(0x2008));
        assert_eq!(m.bytes(0x2007, 1).unwrap(), [0], "a refused write writes nothing");
    }
}
