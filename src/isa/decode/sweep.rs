//! Linear sweeps: every instruction of a range, each where the previous one ends, as objdump
//! walks a symbol's bytes.
//!
//! A sweep is a chain: where an instruction starts depends on the length of the one before,
//! so one cursor's decodes cannot overlap in the processor, and the memo probe, the
//! validation and the next address wait on each other (a decode costs its latency, not its
//! work). Two cursors, one from the start and one from the middle of the range, give the
//! processor two independent chains to interleave. The second cursor may start inside an
//! instruction; its decodes are kept from the first place where the first cursor, carried on
//! past the middle, starts an instruction too: from there both see the same bytes, so both
//! decode the same instructions. (Instruction streams fall into step within an instruction or
//! two; if they never do, the first cursor decodes to the end alone.) The result is exactly
//! the one-cursor sweep's.
//!
//! Each cursor also steps by a guessed length rather than waiting for the decode's
//! ([`Guesses`]): a length is mostly a function of a few bits of the first dword, which a
//! small table indexed by them remembers. The guess is checked against the decode's length
//! at every instruction, and where they differ the cursor steps by the decode's (the table
//! learns it); the processor, predicting that check, starts the next decode before this
//! one's memo probe returns. Guesses decide nothing: the sweep is the decodes' chain
//! whatever they say.
//!
//! A sweep keeps each instruction as the decoder's 4-byte result note, not as an [`Inst`]
//! (24 bytes of which 20 copy the instruction's words): the words are in the swept bytes
//! already, so an instruction is made from its note and the bytes when a consumer asks.

use std::cell::Cell;
use std::ops::Range;

use super::{inst_of_note, note_len, Decoder};
use crate::isa::inst::Inst;

/// Ranges shorter than this (a few hundred instructions) are swept with one cursor: a choice,
/// not a measured break-even; short functions keep one vector and no hand-over.
const SPLIT_BYTES: usize = 2048;

/// A sweep's instructions as the decoder's result notes: 4 bytes each (encoding, length and
/// literal position), the words left in the swept bytes, where they already are; an [`Inst`]
/// is made from a note and the bytes when asked for ([`Swept::iter`]). Offsets are implied:
/// each instruction starts where the one before it ends. The sweep is `first` from
/// `first_at`, then `second[from..]` from `second_at`, in the two vectors its cursors filled.
/// Reused between sweeps, it keeps its allocations.
#[derive(Default)]
pub struct Swept {
    first: Vec<u32>,
    first_at: usize,
    second: Vec<u32>,
    from: usize,
    second_at: usize,
    /// Where the last instruction ends.
    end: usize,
}

impl Swept {
    /// The sweep's instructions in order, with their offsets, over the swept `bytes`.
    pub fn iter<'a>(&'a self, bytes: &'a [u8]) -> impl Iterator<Item = (usize, Inst)> + 'a {
        let part = |notes: &'a [u32], mut at: usize| {
            notes.iter().map(move |&note| {
                let inst = (at, inst_of_note(note, &bytes[at..]));
                at += note_len(note);
                inst
            })
        };
        part(&self.first, self.first_at).chain(part(&self.second[self.from..], self.second_at))
    }

    pub fn len(&self) -> usize {
        self.first.len() + self.second.len() - self.from
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The last instruction and its offset, over the swept `bytes`.
    pub fn last(&self, bytes: &[u8]) -> Option<(usize, Inst)> {
        let note = *self.second[self.from..].last().or(self.first.last())?;
        let at = self.end - note_len(note);
        Some((at, inst_of_note(note, &bytes[at..])))
    }
}

impl Decoder {
    /// Appends to `out` the instructions of a linear sweep of `bytes` from `range.start`,
    /// each with its offset into `bytes`: an instruction at every offset below `range.end`
    /// that the sweep reaches (the last may run past `range.end`; each decode sees the bytes
    /// to the end of `bytes`, as [`Decoder::decode`] of `&bytes[offset..]`).
    pub fn sweep(&self, bytes: &[u8], range: Range<usize>, out: &mut Vec<(usize, Inst)>) {
        let mut swept = Swept::default();
        self.sweep_into(bytes, range, &mut swept);
        out.extend(swept.iter(bytes));
    }

    /// [`Decoder::sweep`] into `swept` (emptied first), as notes.
    pub fn sweep_into(&self, bytes: &[u8], range: Range<usize>, swept: &mut Swept) {
        self.sweep_by::<true>(bytes, range, swept);
    }

    /// [`Decoder::sweep_into`] without the memo (for measuring it).
    pub fn sweep_uncached_into(&self, bytes: &[u8], range: Range<usize>, swept: &mut Swept) {
        self.sweep_by::<false>(bytes, range, swept);
    }

    /// The sweep, into `swept`.
    #[inline(always)]
    fn sweep_by<const MEMO: bool>(&self, bytes: &[u8], range: Range<usize>, swept: &mut Swept) {
        let Range { start, end } = range;
        let end = end.min(bytes.len());
        swept.first.clear();
        swept.second.clear();
        (swept.first_at, swept.from, swept.second_at, swept.end) = (start, 0, start, start);
        if end <= start {
            return;
        }
        // No instruction is shorter than 4 bytes: one reservation, never a reallocation.
        swept.first.reserve((end - start).div_ceil(4));
        if end - start < SPLIT_BYTES {
            swept.end = self.sweep_one::<MEMO>(bytes, start, end, &mut Appender::new(&mut swept.first));
            return;
        }
        let middle = start + ((end - start) / 2 & !3);
        swept.second.reserve((end - middle).div_ceil(4));
        let (mut a, mut b) = (start, middle);
        let mut first = Appender::new(&mut swept.first);
        {
            let mut second = Appender::new(&mut swept.second);
            // Where every byte a decode may read, and 16, are at hand (so the memo is used),
            // the cursors step by guessed lengths.
            let guessed_end = end.min((bytes.len() + 1).saturating_sub(self.memo_reach()));
            if MEMO {
                while a < middle && b < guessed_end {
                    a = self.guessed_step(bytes, a, &mut first);
                    b = self.guessed_step(bytes, b, &mut second);
                }
            }
            while a < middle && b < end {
                let note = self.note_by::<MEMO>(&bytes[a..]);
                first.push(note);
                a += note_len(note);
                let note = self.note_by::<MEMO>(&bytes[b..]);
                second.push(note);
                b += note_len(note);
            }
            a = self.sweep_one::<MEMO>(bytes, a, middle, &mut first);
            b = self.sweep_one::<MEMO>(bytes, b, end, &mut second);
        }
        // The first cursor carries on until it starts an instruction where the second did.
        let second = &swept.second;
        let (mut j, mut at_j) = (0, middle);
        while a < end {
            while j < second.len() && at_j < a {
                at_j += note_len(second[j]);
                j += 1;
            }
            if j < second.len() && at_j == a {
                (swept.from, swept.second_at, swept.end) = (j, at_j, b);
                return;
            }
            let note = self.note_by::<MEMO>(&bytes[a..]);
            first.push(note);
            a += note_len(note);
        }
        (swept.from, swept.second_at, swept.end) = (second.len(), a, a);
    }

    /// The result note of the instruction at the start of `bytes`, with the memo or (without
    /// `MEMO`) as [`Decoder::decode_uncached`] decodes it.
    #[inline(always)]
    fn note_by<const MEMO: bool>(&self, bytes: &[u8]) -> u32 {
        if MEMO { self.note(bytes) } else { self.note_uncached(bytes) }
    }

    /// Decodes the instruction at `at` (with the memo; `bytes` holds `max_bytes` and 16 from
    /// `at`) into `out`; where the next starts.
    #[inline(always)]
    fn guessed_step(&self, bytes: &[u8], at: usize, out: &mut Appender) -> usize {
        let qword = u64::from_le_bytes(*bytes[at..].first_chunk::<8>().expect("8 bytes at hand"));
        let key = Guesses::key(qword as u32);
        let guess = self.guesses.get(key);
        let note = self.note_at(bytes, at, qword);
        out.push(note);
        if note_len(note) == guess {
            // Written as a step by the guess, which the processor has before the decode.
            at + guess
        } else {
            // Out of line, so the compiler cannot fold the two arms into a step by the
            // decode's length (they agree), which would wait for it.
            self.guesses.missed(key, at, note)
        }
    }

    /// One cursor from `at` while below `end`; where it stops.
    #[inline(always)]
    fn sweep_one<const MEMO: bool>(&self, bytes: &[u8], mut at: usize, end: usize, out: &mut Appender) -> usize {
        while at < end {
            let note = self.note_by::<MEMO>(&bytes[at..]);
            out.push(note);
            at += note_len(note);
        }
        at
    }
}

/// The length a sweep last found for instructions alike in their first dword's top 7 bits
/// (the encoding family; VOP2's opcode) and low 8 bits (most of the first source: 255
/// selects a literal, 0xf9/0xfa and 0xe9/0xea SDWA and DPP forms), which decide most
/// lengths; 4 at first. A guess that proves wrong costs a branch misprediction, never a
/// wrong sweep. 32 KiB: it stays in the L1 cache beside the swept bytes.
pub(super) struct Guesses(Box<[Cell<u8>; 1 << GUESS_BITS]>);

/// Bits of a [`Guesses`] key: 7 + 8.
const GUESS_BITS: u32 = 15;

impl Guesses {
    pub(super) fn new() -> Guesses {
        let table: Box<[Cell<u8>]> = vec![Cell::new(4); 1 << GUESS_BITS].into_boxed_slice();
        Guesses(table.try_into().unwrap_or_else(|_| unreachable!("made with 2^GUESS_BITS entries")))
    }

    /// The entry of an instruction with first dword `dword` (below 2^GUESS_BITS; `slot` masks
    /// it all the same, so the index goes unchecked).
    #[inline(always)]
    fn key(dword: u32) -> usize {
        ((dword >> 25) << 8 | (dword & 0xff)) as usize
    }

    #[inline(always)]
    fn get(&self, key: usize) -> usize {
        usize::from(self.slot(key).get())
    }

    #[inline(always)]
    fn slot(&self, key: usize) -> &Cell<u8> {
        &self.0[key & ((1 << GUESS_BITS) - 1)]
    }

    /// A wrong guess at `at` for the instruction `note`: learns its length; where the next
    /// instruction starts.
    #[cold]
    #[inline(never)]
    fn missed(&self, key: usize, at: usize, note: u32) -> usize {
        self.slot(key).set(note_len(note) as u8);
        at + note_len(note)
    }
}

/// Appends a cursor's notes to a vector whose capacity was reserved for them: each is written
/// straight into the spare capacity, and the length is set once, when the appender is
/// dropped (`Vec::push` checks the capacity and stores the length at every instruction).
struct Appender<'a> {
    vec: &'a mut Vec<u32>,
    added: usize,
}

impl<'a> Appender<'a> {
    fn new(vec: &'a mut Vec<u32>) -> Appender<'a> {
        Appender { vec, added: 0 }
    }

    /// Appends `note`; panics (never writes out of bounds) if the capacity is short.
    #[inline(always)]
    fn push(&mut self, note: u32) {
        self.vec.spare_capacity_mut()[self.added].write(note);
        self.added += 1;
    }
}

impl Drop for Appender<'_> {
    fn drop(&mut self) {
        let len = self.vec.len() + self.added;
        // SAFETY: `push` wrote the `added` slots after the length, in order, and the
        // capacity covers them (it indexes the spare capacity with bounds checks).
        unsafe { self.vec.set_len(len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::table::encodings;
    use crate::isa::Target;

    /// The sweep with one cursor, decode by decode.
    fn one_cursor(decoder: &Decoder, bytes: &[u8], range: Range<usize>) -> Vec<(usize, Inst)> {
        let mut out = Vec::new();
        let mut at = range.start;
        while at < range.end.min(bytes.len()) {
            let inst = decoder.decode_uncached(&bytes[at..]);
            out.push((at, inst));
            at += inst.len();
        }
        out
    }

    /// Streams of real-looking instructions (each a record's fixed bits over random ones,
    /// so 32-bit forms, 64-bit forms, literals and raw words mix) and of random bytes, swept
    /// over ranges of many sizes and starts: two cursors give the one-cursor sweep exactly,
    /// including where the second cursor starts inside an instruction.
    #[test]
    fn two_cursors_sweep_as_one() {
        let mut next = crate::isa::xorshift64(0x853c_49e6_748f_ea9b);
        let mut resynced = 0;
        let mut guessed_wrong = 0;
        let mut parts = Swept::default();
        for (cpu, features) in [("gfx900", ""), ("gfx90a", ""), ("gfx1030", ""), ("gfx1100", ""), ("gfx1200", ""), ("gfx1250", "")] {
            let target = Target::from_name(cpu, features).unwrap();
            let decoder = Decoder::new(target);
            let records: Vec<usize> = (0..encodings().len()).filter(|&i| encodings()[i].llvm == target.llvm_version()).collect();
            for round in 0..12 {
                let mut bytes = Vec::new();
                while bytes.len() < 3000 + round * 700 {
                    if round % 4 == 3 {
                        bytes.extend(next().to_le_bytes());
                        continue;
                    }
                    let e = &encodings()[records[next() as usize % records.len()]];
                    let random = u128::from(next()) << 64 | u128::from(next());
                    let word = (random & !e.mask) | e.value;
                    bytes.extend_from_slice(&word.to_le_bytes()[..usize::from(e.bits) / 8]);
                    // A literal's worth of bytes now and then.
                    if next() % 4 == 0 {
                        bytes.extend((next() as u32).to_le_bytes());
                    }
                }
                let len = bytes.len();
                // Every other round, guesses that are mostly wrong (any byte, 0 included):
                // the sweeps below must not change; the table must learn.
                let poisoned: Option<Vec<u8>> = (round % 2 == 1).then(|| decoder.guesses.0.iter().map(|_| next() as u8).collect());
                if let Some(poisoned) = &poisoned {
                    decoder.guesses.0.iter().zip(poisoned).for_each(|(g, &p)| g.set(p));
                }
                // Streams ending in a fragment: whatever the last instructions come to (raw
                // words zero-padded past the end included), made from their notes over the
                // bytes at hand, as decoded.
                for cut in 1..4 {
                    let short = &bytes[..len - cut];
                    let mut swept = Vec::new();
                    decoder.sweep(short, 0..short.len(), &mut swept);
                    assert_eq!(swept, one_cursor(&decoder, short, 0..short.len()), "{cpu} round {round} cut {cut}");
                    decoder.sweep_into(short, 0..short.len(), &mut parts);
                    assert_eq!(parts.last(short), swept.last().copied(), "{cpu} round {round} cut {cut}");
                }
                for range in [0..len, 4..len, 8..len - 4, 0..len - 2, 12..2100, 0..SPLIT_BYTES - 4, 40..40 + SPLIT_BYTES + 8, 0..len + 64] {
                    let mut swept = Vec::new();
                    decoder.sweep(&bytes, range.clone(), &mut swept);
                    let expected = one_cursor(&decoder, &bytes, range.clone());
                    assert_eq!(swept, expected, "{cpu} round {round} range {range:?}");
                    // In two parts (a reused `Swept`), the same instructions.
                    decoder.sweep_into(&bytes, range.clone(), &mut parts);
                    assert_eq!(parts.len(), expected.len());
                    assert_eq!(parts.last(&bytes), expected.last().copied());
                    assert!(parts.iter(&bytes).eq(expected.iter().copied()), "{cpu} round {round} range {range:?} in parts");
                    // Without the memo (what the bench's "memo off" measures), the same.
                    decoder.sweep_uncached_into(&bytes, range.clone(), &mut parts);
                    assert!(parts.iter(&bytes).eq(expected.iter().copied()), "{cpu} round {round} range {range:?} uncached");
                    let middle = range.start + ((range.end.min(len) - range.start) / 2 & !3);
                    if range.end.min(len) - range.start >= SPLIT_BYTES && expected.iter().all(|&(at, _)| at != middle) {
                        resynced += 1;
                    }
                }
                if let Some(poisoned) = &poisoned {
                    guessed_wrong += decoder.guesses.0.iter().zip(poisoned).filter(|(g, p)| g.get() != **p).count();
                }
            }
        }
        // The second cursor started inside an instruction often enough to test the hand-over.
        assert!(resynced > 20, "{resynced}");
        assert!(guessed_wrong > 1000, "{guessed_wrong}");
    }
}
