//! [`Inst`]: one decoded instruction, a small `Copy` value.
//!
//! An `Inst` is the encoding that matched and the instruction's own bytes; operands are read
//! out of the bytes on demand through the encoding's field layout. Decoding is therefore only
//! "find the encoding and the length", and an untouched instruction re-emits exactly the bytes
//! it was read from.

use std::fmt;

use super::table::{Encoding, encodings};

/// The longest AMDGPU instruction: a 64-bit MIMG with three NSA address dwords is 20 bytes;
/// a 96-bit VOP3 DPP with no literal is 12; GFX950's and GFX1250's 128-bit encodings are 16.
pub const MAX_INST_BYTES: usize = 20;

/// Encoding index of an undecodable word.
const RAW: u16 = u16::MAX;

/// One instruction: the encoding that matched and the bytes it occupies.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Inst {
    encoding: u16,
    len: u8,
    /// Byte offset of the literal or NSA dwords: right after the encoded bits, except for the
    /// GFX1250 64-bit literal read from byte 4 of a 96-bit pattern (see `decode::Attempt`).
    tail_at: u8,
    words: [u32; MAX_INST_BYTES / 4],
}

impl Inst {
    /// An instruction of encoding `index` (into [`encodings`]) over `bytes` (its full length,
    /// a multiple of 4 up to [`MAX_INST_BYTES`]), whose literal or NSA dwords start at byte
    /// `tail_at` (normally the encoding's width).
    pub(crate) fn new(index: u16, bytes: &[u8], tail_at: usize) -> Inst {
        debug_assert!(bytes.len() % 4 == 0 && bytes.len() <= MAX_INST_BYTES && !bytes.is_empty());
        debug_assert!(tail_at % 4 == 0 && tail_at <= bytes.len());
        let mut words = [0u32; MAX_INST_BYTES / 4];
        for (w, chunk) in words.iter_mut().zip(bytes.chunks_exact(4)) {
            *w = u32::from_le_bytes(chunk.try_into().unwrap());
        }
        Inst {
            encoding: index,
            len: bytes.len() as u8,
            tail_at: tail_at as u8,
            words,
        }
    }

    /// [`Inst::new`] with the leading 16 bytes already read as one little-endian integer
    /// (`head`, zero-padded past the end): only a fifth dword is read from `bytes`.
    #[inline]
    pub(crate) fn from_head(index: u16, head: u128, bytes: &[u8], tail_at: usize) -> Inst {
        debug_assert!(bytes.len() % 4 == 0 && bytes.len() <= MAX_INST_BYTES && !bytes.is_empty());
        debug_assert!(tail_at % 4 == 0 && tail_at <= bytes.len());
        const KEEP: [u128; 6] = [0, u32::MAX as u128, u64::MAX as u128, u128::MAX >> 32, u128::MAX, u128::MAX];
        let len = bytes.len();
        let h = head & KEEP[(len / 4).min(5)];
        let fifth = match bytes.get(16..20) {
            Some(w) => u32::from_le_bytes([w[0], w[1], w[2], w[3]]),
            None => 0,
        };
        // The dwords as one 16-byte copy of `h`'s little-endian bytes (building them by shifts
        // costs a shuffle per dword).
        let mut words = [0u32; MAX_INST_BYTES / 4];
        for (w, chunk) in words.iter_mut().zip(h.to_le_bytes().chunks_exact(4)) {
            *w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        words[4] = fifth;
        Inst {
            encoding: index,
            len: len as u8,
            tail_at: tail_at as u8,
            words,
        }
    }

    /// Byte offset at which the instruction's literal or NSA dwords start.
    pub fn tail_at(&self) -> usize {
        self.tail_at as usize
    }

    /// A word nothing decodes: it prints as LLVM prints unknown words and re-emits itself.
    pub fn raw(word: u32) -> Inst {
        let mut words = [0u32; MAX_INST_BYTES / 4];
        words[0] = word;
        Inst {
            encoding: RAW,
            len: 4,
            tail_at: 4,
            words,
        }
    }

    /// The encoding, or `None` for a raw word.
    pub fn encoding(&self) -> Option<&'static Encoding> {
        (self.encoding != RAW).then(|| &encodings()[self.encoding as usize])
    }

    pub fn encoding_index(&self) -> Option<u16> {
        (self.encoding != RAW).then_some(self.encoding)
    }

    pub fn is_raw(&self) -> bool {
        self.encoding == RAW
    }

    /// Length in bytes, literals and extra address dwords included.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The instruction's dwords as stored (little-endian words).
    pub fn words(&self) -> &[u32] {
        &self.words[..self.len as usize / 4]
    }

    /// The instruction's bytes, exactly as they were read.
    pub fn bytes(&self) -> Vec<u8> {
        self.words().iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// The encoded bits without trailing literal or NSA dwords, as one little-endian integer.
    pub fn encoded_bits(&self) -> u128 {
        let base = self.encoding().map_or(32, |e| e.bits as usize) / 32;
        self.words[..base]
            .iter()
            .rev()
            .fold(0u128, |acc, &w| (acc << 32) | w as u128)
    }

    /// The dwords after the encoded bits: a literal constant, or MIMG NSA addresses. (For a
    /// GFX1250 64-bit literal read from byte 4 of a 96-bit pattern, the dwords it was read
    /// from, which the pattern covers too.)
    pub fn trailing_words(&self) -> &[u32] {
        let at = self.tail_at as usize / 4;
        &self.words[at.min(self.len as usize / 4)..self.len as usize / 4]
    }
}

impl fmt::Debug for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self
            .encoding()
            .map_or_else(|| "<raw>".to_owned(), |e| e.record_name());
        write!(f, "Inst({name}")?;
        for w in self.words() {
            write!(f, " {w:08x}")?;
        }
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inst_stays_small() {
        // Pinned: an instruction stream of millions must fit in cache-friendly values.
        assert_eq!(std::mem::size_of::<Inst>(), 24);
    }

    #[test]
    fn raw_words_keep_their_bytes() {
        let i = Inst::raw(0xdead_beef);
        assert!(i.is_raw());
        assert_eq!(i.bytes(), vec![0xef, 0xbe, 0xad, 0xde]);
    }
}
