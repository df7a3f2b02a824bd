//! One decision tree per target over every table its plan tries.
//!
//! The plain decoder walks one tree per attempt (a GFX9 32-bit word passes through four 64-bit
//! tables and two 32-bit ones before it is found). Here all attempts' candidates go into one
//! tree, each leaf listing (attempt, encoding) in the order the attempts would meet them: by
//! attempt, then most fixed bits first, then table order. The decoder walks it once and scans
//! the leaf; an attempt whose first matching candidate fails validation is marked failed and
//! its later candidates skipped, exactly as the attempt-by-attempt loop would move on to the
//! next table. Entries carry their pattern inline so a leaf scan touches one cache line or two.

use std::collections::HashMap;

use crate::isa::table::encodings;
use crate::isa::target::Target;

use super::plan::Attempt;
use super::validate::{FastCheck, fast_verdict};

/// Candidates at a leaf are tested in order; a leaf is made once this few remain or no bit can
/// split them.
const LEAF_SIZE: usize = 4;
/// Widest dense switch (2^10 children).
const DENSE_BITS: u32 = 10;
/// The flattened first steps of the walk switch on the first dword's bits `32 - FIRST_BITS`
/// up: 2^16 children of 4 bytes per target.
const FIRST_BITS: u32 = 16;
/// The memos' key masks ([`Dispatch::prefix_masks`]) go by the first dword's top
/// `PREFIX_BITS` bits (the encoding family and most of its opcode): 2^10 of them, 16 KiB per
/// group.
pub const PREFIX_BITS: u32 = 10;

/// One candidate: encoding `index` as tried by attempt `attempt`, with its fixed bits.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub mask: u128,
    pub value: u128,
    pub index: u16,
    pub attempt: u8,
    /// Bytes from the start up to the last fixed bit: what testing the pattern reads.
    pub mask_bytes: u8,
    /// The attempt's width in bytes and where its literal is read from.
    pub size: u8,
    pub tail_at: u8,
    /// The encoding's compiled validation: `checks[first..first + count]` of the dispatch, or
    /// `count == NOT_COMPILED` for the general `validate`.
    pub count: u8,
    /// Bytes from the start through the last bit its planned validation reads, compiled or
    /// not (0 without checks; set by [`Dispatch::build`], which has the compiled checks).
    pub checks_read: u8,
    pub first: u32,
    /// The group's classes this candidate exists for ([`super::group`]); a decoder of another
    /// class skips it, but a match with it makes the decode its class's own.
    pub present: u8,
    /// If, once its pattern matches, this candidate alone decides the decode whatever the
    /// class, the bytes that decode reads ([`Entry::planned_read`]); else 0. It decides alone
    /// when every class has it, its checks are compiled (they read encoded bits and the
    /// literal's presence only) and its literal (if any) follows the encoding. Set by
    /// [`Dispatch::build`]; the fast paths past the scan take only such candidates.
    pub alone_read: u8,
}

impl Entry {
    /// The leading bytes (a multiple of 4) a match with this candidate's pattern depends on.
    #[inline(always)]
    pub fn pattern_read(&self) -> usize {
        usize::from(self.mask_bytes).next_multiple_of(4)
    }

    /// The leading bytes (a multiple of 4) a decode by this candidate with a planned
    /// validation (compiled or not) depends on: its pattern and the fields its checks read.
    /// Not the whole encoding: a field no check reads decodes whatever its value, and the
    /// literal counts by its presence only (the memo is used with every byte up to the limit
    /// at hand). So a 64-bit candidate whose checks sit in the first dword decides on the
    /// first dword alone: from GFX10, the DPP8 forms every VOP1, VOP2 and VOPC word meets in
    /// the 64-bit table (their `fi` marker check fails) before the 32-bit table decodes it.
    #[inline(always)]
    pub fn planned_read(&self) -> usize {
        usize::from(self.checks_read).max(self.pattern_read())
    }
}

/// The bits of the first 8 bytes (low dword first) that a decode meeting an entry reads.
/// Two words equal in the bits a decode of one of them read, and alike past them, decode
/// alike: every step of the decode (a switch of the walk, a pattern test, a check of a field)
/// is a function of the bits it reads.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reads {
    /// Of any decode that scans the entry's leaf: the switches of the walk to the leaf and
    /// the patterns of every candidate in it (a decode may test any of them).
    pub leaf: u64,
    /// Of the walk alone: the switches on the way to the leaf. Words that agree in them
    /// reach the leaf.
    pub walk: u64,
    /// Of its validation, once its pattern matched: the fields some value of which fails
    /// or selects a literal (every bit if the full operand decode validates it).
    pub checks: u64,
}

/// The memos' key masks for the words whose first dword has given top [`PREFIX_BITS`] bits.
#[derive(Clone, Copy, Debug)]
pub struct PrefixMasks {
    /// The bits of the first 8 bytes that any decode of such a word may read, and the
    /// prefix: two words equal in them (and alike after the eighth byte) decode alike, so
    /// the 8-byte memo keeps a decode of 8 bytes or fewer under them.
    pub any: u64,
    /// The bits of the first dword that most decodes of such words read, which the
    /// first-dword memo hashes (its slots hold the bits each decode read). Which bits these
    /// are decides only how often words alike in what their decodes read meet in one slot,
    /// never a decode.
    pub every: u32,
    /// The top bits of the 9-bit source fields in the first dword that compiled checks of
    /// such words read: where one is set (a VGPR), the second-chance memo hashes the field
    /// without its bits 1..6 ([`fold`]), as most checks do not tell those VGPRs apart
    /// ([`Dispatch::checks_care`]). Hashing only, like `every`.
    pub fold: u32,
}

/// `dword` without bits 1..6 of each field whose top bit `fold` names, where that bit is set:
/// `v1` and `v3` in a 9-bit source fold alike, `s1` and `s3` do not. (Fields at least 9 bits
/// apart fold without carries; closer ones fold to some other word, which only a hash sees.)
#[inline(always)]
pub fn fold(dword: u32, fold: u32) -> u32 {
    dword & !(((dword & fold) >> 8).wrapping_mul(0x7e))
}

/// [`Entry::count`] of an encoding validated by the general `validate`.
pub const NOT_COMPILED: u8 = u8::MAX;

#[derive(Debug)]
pub struct Dispatch {
    nodes: Vec<Node>,
    entries: Vec<Entry>,
    /// Child ids of dense nodes.
    slots: Vec<u32>,
    /// The tree again, packed for the walk: switches, then children by key.
    packed: Vec<Packed>,
    /// A child: a switch (index into `packed`), a leaf ([`leaf_child`]: its range of
    /// `entries` in the child itself, so the walk's last step loads no table), or `NONE`.
    children: Vec<u32>,
    /// Sparse switches' sorted keys (their children at the same positions of `children`).
    keys: Vec<u32>,
    /// The root as a child.
    root: u32,
    /// The walk's first steps, flattened: by the first dword's top `FIRST_BITS` bits, the
    /// child the walk reaches from the root through the switches on those bits alone (the
    /// encoding family and opcode fields mostly sit there), so a walk starts with one load.
    first: Box<[u32]>,
    /// Per entry, what of the first 8 bytes a decode that meets it reads ([`Reads`]).
    reads: Vec<Reads>,
    /// By the first dword's top [`PREFIX_BITS`] bits, the memos' key masks.
    prefix_masks: Box<[PrefixMasks; 1 << PREFIX_BITS]>,
    /// Compiled validations of the entries' encodings, and their verdict tables.
    pub checks: Vec<FastCheck>,
    pub verdicts: Vec<u8>,
    /// Beside each verdict, the bits of the checked field that decide it ([`care_ladder`]).
    cares: Vec<u16>,
    /// The [`Entry::present`] of a candidate every class of the group has.
    pub all: u8,
    /// Each member processor's class bit, by name.
    classes: Vec<(&'static str, u8)>,
}

#[derive(Debug)]
enum Node {
    /// `entries[start..start + len]`.
    Leaf { start: u32, len: u32 },
    /// Switch on `width` bits from `lo` through `children[first..first + 2^width]` (node ids;
    /// `u32::MAX` for no match).
    Dense { lo: u8, width: u8, first: u32 },
    /// Sorted keys and their children.
    Sparse { lo: u8, width: u8, keys: Box<[u32]>, children: Box<[u32]> },
}

const NONE: u32 = u32::MAX;
const LEAF: u32 = 1 << 31;
/// Bits of a leaf child that hold its length (leaves are far shorter: a test pins the
/// longest below 64); its start is above them.
const LEAF_LEN_BITS: u32 = 7;

/// The child that stands for the leaf `entries[start..start + len]`: `LEAF | start <<
/// LEAF_LEN_BITS | len`. (`NONE` has every bit set; a start below 2^23 keeps a leaf child
/// from equalling it.)
fn leaf_child(start: u32, len: u32) -> u32 {
    assert!(start < 1 << (30 - LEAF_LEN_BITS) && len < 1 << LEAF_LEN_BITS, "leaf {start}+{len} does not fit a child");
    LEAF | start << LEAF_LEN_BITS | len
}

/// A leaf child's range of entries, as `(start, end)`.
#[inline(always)]
fn leaf_range(child: u32) -> (u32, u32) {
    let start = (child & !LEAF) >> LEAF_LEN_BITS;
    (start, start + (child & ((1 << LEAF_LEN_BITS) - 1)))
}

/// A switch on `width` bits from `lo` (never straddling bit 64): children at
/// `children[first + key]` (dense, `sparse == 0`), or `sparse` sorted keys at `keys[first..]`.
#[derive(Clone, Copy, Debug)]
struct Packed {
    first: u32,
    sparse: u32,
    lo: u8,
    width: u8,
    /// Bytes from the start through the switch's last bit.
    read: u8,
}

struct Builder<'a> {
    items: &'a [Entry],
    nodes: Vec<Node>,
    entries: Vec<Entry>,
    /// Child ids of dense nodes.
    slots: Vec<u32>,
}

impl Dispatch {
    /// `items` in attempt order (each attempt's encodings in table order), for a group whose
    /// classes are `all` and whose processors' classes (by name) are `classes`.
    /// `target` is the group's representative (what validation reads of it is the group's).
    pub fn build(
        mut items: Vec<Entry>,
        checks: Vec<FastCheck>,
        verdicts: Vec<u8>,
        target: &Target,
        all: u8,
        classes: Vec<(&'static str, u8)>,
    ) -> Dispatch {
        for item in &mut items {
            item.checks_read = if item.count != NOT_COMPILED {
                let compiled = &checks[item.first as usize..item.first as usize + usize::from(item.count)];
                compiled.iter().map(FastCheck::read).max().unwrap_or(0)
            } else {
                // Read only where `is_planned` (the scan reads every byte up to the limit for
                // a full operand decode).
                super::validate::plan_read(item.index, target).unwrap_or(0)
            };
            let alone = item.present == all && item.count != NOT_COMPILED && item.tail_at == item.size;
            item.alone_read = if alone { item.planned_read() as u8 } else { 0 };
        }
        let mut b = Builder { items: &items, nodes: Vec::new(), entries: Vec::new(), slots: Vec::new() };
        let ids: Vec<u32> = (0..items.len() as u32).collect();
        let root = b.build(ids, 0);
        debug_assert_eq!(root, 0);
        let Builder { nodes, entries, slots, .. } = b;
        let mut d = Dispatch {
            nodes,
            entries,
            slots,
            packed: Vec::new(),
            children: Vec::new(),
            keys: Vec::new(),
            root: NONE,
            first: Box::new([]),
            reads: Vec::new(),
            prefix_masks: Box::new([PrefixMasks { any: u64::MAX, every: 0, fold: 0 }; 1 << PREFIX_BITS]),
            cares: care_ladder(&checks, &verdicts),
            checks,
            verdicts,
            all,
            classes: classes.into_iter().map(|(name, class)| (name, 1 << class)).collect(),
        };
        d.root = d.pack(0);
        d.first = (0..1u32 << FIRST_BITS).map(|top| d.first_steps(top)).collect();
        d.reads = vec![Reads::default(); d.entries.len()];
        d.note_leaf_reads(d.root, 0);
        for (reads, entry) in d.reads.iter_mut().zip(&d.entries) {
            reads.checks = if entry.count != NOT_COMPILED {
                let compiled = &d.checks[entry.first as usize..entry.first as usize + usize::from(entry.count)];
                compiled.iter().fold(0, |m, c| m | (u128::from(c.mask) << c.shift) as u64)
            } else {
                super::validate::plan_decisive_bits(entry.index, target).map_or(u64::MAX, |bits| bits as u64)
            };
        }
        for prefix in 0..1 << PREFIX_BITS {
            d.prefix_masks[prefix] = d.masks_of_prefix(prefix);
        }
        d
    }

    /// Sets [`Reads::leaf`] of the entries below `child`, reached by switches on `path`.
    fn note_leaf_reads(&mut self, child: u32, path: u64) {
        if child == NONE {
            return;
        }
        if child & LEAF != 0 {
            let (start, end) = leaf_range(child);
            let range = start as usize..end as usize;
            let leaf = self.entries[range.clone()].iter().fold(path, |m, e| m | e.mask as u64);
            // (A leaf has one path; were it reached by two, either's words read both.)
            self.reads[range].iter_mut().for_each(|r| {
                r.leaf |= leaf;
                r.walk |= path;
            });
            return;
        }
        let p = self.packed[child as usize];
        let path = path | (((1u128 << p.width) - 1) << p.lo) as u64;
        for k in self.child_range(p) {
            self.note_leaf_reads(self.children[k], path);
        }
    }

    /// The masks of the words whose first dword's top [`PREFIX_BITS`] bits are `prefix`:
    /// `any`, the prefix and what decodes of them may read (every leaf they may reach: its
    /// [`Reads::leaf`] and every candidate's [`Reads::checks`]); `every`, the bits of the
    /// first dword that most of those leaves read, with their last (least specific)
    /// candidate's checks. (Their intersection would leave out the source fields of a whole
    /// family for one leaf that has none, such as `v_nop`'s, and thrash one slot per opcode.)
    fn masks_of_prefix(&self, prefix: usize) -> PrefixMasks {
        let per = 1usize << (FIRST_BITS - PREFIX_BITS);
        let mut children: Vec<u32> = self.first[prefix * per..(prefix + 1) * per].to_vec();
        children.sort_unstable();
        children.dedup();
        let mut leaves = Vec::new();
        for child in children {
            self.leaves_below(child, &mut leaves);
        }
        leaves.sort_unstable();
        leaves.dedup();
        // `any` keeps the prefix: 8-byte keys of words with other prefixes (other masks)
        // never meet.
        let mut masks = PrefixMasks { any: u64::from(u32::MAX << (32 - PREFIX_BITS)), every: 0, fold: 0 };
        let mut votes = [0usize; 32];
        for &(start, end) in &leaves {
            let reads = &self.reads[start as usize..end as usize];
            if let Some(last) = reads.last() {
                let typical = last.leaf | if last.checks == u64::MAX { 0 } else { last.checks };
                (0..32).filter(|bit| typical >> bit & 1 != 0).for_each(|bit| votes[bit] += 1);
            }
            masks.any |= reads.iter().fold(0, |m, r| m | r.leaf | r.checks);
            for entry in self.entries[start as usize..end as usize].iter().filter(|e| e.count != NOT_COMPILED) {
                for c in self.compiled(entry).iter().filter(|c| c.mask == 0x1ff && c.shift + 9 <= 32) {
                    masks.fold |= 1 << (c.shift + 8);
                }
            }
        }
        for (bit, &n) in votes.iter().enumerate() {
            if n * 2 > leaves.len() {
                masks.every |= 1 << bit;
            }
        }
        masks
    }

    /// The leaves (ranges of entries) below `child`.
    fn leaves_below(&self, child: u32, out: &mut Vec<(u32, u32)>) {
        if child == NONE {
            return;
        }
        if child & LEAF != 0 {
            out.push(leaf_range(child));
            return;
        }
        for &child in &self.children[self.child_range(self.packed[child as usize])] {
            self.leaves_below(child, out);
        }
    }

    /// Where switch `p`'s children are in [`Dispatch::children`]: one per key of a dense
    /// switch, one per listed key of a sparse one.
    fn child_range(&self, p: Packed) -> std::ops::Range<usize> {
        let n = if p.sparse == 0 { 1usize << p.width } else { p.sparse as usize };
        p.first as usize..p.first as usize + n
    }

    /// The [`Reads`] of the entry at `at` (into [`Dispatch::entries`]).
    #[inline(always)]
    pub fn reads(&self, at: usize) -> Reads {
        self.reads[at]
    }

    /// [`Dispatch::masks_of_prefix`] of the first dword of `qword`.
    #[inline(always)]
    pub fn prefix_masks(&self, qword: u64) -> PrefixMasks {
        self.prefix_masks[(qword as u32 >> (32 - PREFIX_BITS)) as usize]
    }

    /// The child the walk reaches from the root on a word whose first dword's top bits are
    /// `top`, taking only switches on those bits.
    fn first_steps(&self, top: u32) -> u32 {
        let halves = [u64::from(top) << (32 - FIRST_BITS), 0];
        let mut child = self.root;
        while let Some(&p) = self.packed.get(child as usize) {
            if u32::from(p.lo) < 32 - FIRST_BITS || u32::from(p.lo + p.width) > 32 {
                break;
            }
            child = self.step(p, halves);
        }
        child
    }

    /// The child switch `p` selects for the word whose 64-bit halves are `halves` (`NONE` if
    /// none).
    #[inline(always)]
    fn step(&self, p: Packed, halves: [u64; 2]) -> u32 {
        let key = (halves[usize::from(p.lo >> 6)] >> (p.lo & 63)) as u32 & ((1u32 << p.width) - 1);
        if p.sparse == 0 {
            return self.children[(p.first + key) as usize];
        }
        let keys = &self.keys[p.first as usize..(p.first + p.sparse) as usize];
        match keys.binary_search(&key) {
            Ok(i) => self.children[p.first as usize + i],
            Err(_) => NONE,
        }
    }

    /// Packs node `id` and below; returns it as a child.
    fn pack(&mut self, id: u32) -> u32 {
        match &self.nodes[id as usize] {
            &Node::Leaf { start, len } => leaf_child(start, len),
            &Node::Dense { lo, width, first } => {
                let at = self.packed.len();
                let firstc = self.children.len() as u32;
                self.packed.push(Packed { first: firstc, sparse: 0, lo, width, read: (lo + width).div_ceil(8) });
                self.children.extend(std::iter::repeat_n(NONE, 1usize << width));
                for key in 0..1u32 << width {
                    let child = self.slots[(first + key) as usize];
                    if child != NONE {
                        let c = self.pack(child);
                        self.children[(firstc + key) as usize] = c;
                    }
                }
                at as u32
            }
            Node::Sparse { lo, width, keys, children } => {
                let (lo, width, keys, kids) = (*lo, *width, keys.clone(), children.clone());
                let at = self.packed.len();
                let firstc = self.children.len() as u32;
                self.packed.push(Packed { first: firstc, sparse: keys.len() as u32, lo, width, read: (lo + width).div_ceil(8) });
                self.children.extend(std::iter::repeat_n(NONE, keys.len()));
                self.keys.resize(self.children.len(), 0);
                self.keys[firstc as usize..].copy_from_slice(&keys);
                for (k, &child) in kids.iter().enumerate() {
                    let c = self.pack(child);
                    self.children[firstc as usize + k] = c;
                }
                at as u32
            }
        }
    }

    /// The compiled validation of `entry` on `word` (its leading bytes; only the encoded bits
    /// are read), the or of its checks' verdicts: with `VERDICT_FAIL` an operand does not
    /// decode; else `VERDICT_LITERAL` and `VERDICT_LITERAL64` say which literals sources
    /// select (both: [`super::validate::VERDICT_LITERALS`]).
    #[inline]
    pub fn fast_validate(&self, entry: &Entry, word: u128) -> u8 {
        fast_verdict(self.compiled(entry), &self.verdicts, word)
    }

    /// The compiled checks of `entry` (of an entry whose validation is compiled).
    #[inline(always)]
    fn compiled(&self, entry: &Entry) -> &[FastCheck] {
        let first = entry.first as usize;
        &self.checks[first..first + usize::from(entry.count)]
    }

    /// The bits of the first 8 bytes that decide the verdict of `entry`'s validation on
    /// `word` (the entry at `at` of [`Dispatch::entries`]): of each compiled check, the bits
    /// of its field that its verdict on this value depends on ([`care_ladder`]), so a word
    /// that agrees with `word` there gets the same verdict; of a validation not compiled, its
    /// [`Reads::checks`]. Checks past the eighth byte are left out (they read no bit of the
    /// first 8 bytes; callers take entries that decide on the first dword).
    #[inline]
    pub fn checks_care(&self, entry: &Entry, at: usize, word: u128) -> u64 {
        if entry.count == NOT_COMPILED {
            return self.reads[at].checks;
        }
        let low = word as u64;
        let mut care = 0u64;
        for c in self.compiled(entry) {
            if c.shift >= 64 {
                continue;
            }
            let value = (low >> c.shift) as usize & usize::from(c.mask);
            let bits = self.cares.get(c.table as usize + value).copied().unwrap_or(c.mask);
            care |= u64::from(bits) << c.shift;
        }
        care
    }

    /// The leaf of candidates that could match `word` (the zero-padded leading 16 bytes), in
    /// the order the attempts would try them, as a range `start..end` of [`Dispatch::entries`],
    /// and how many leading bytes the walk read.
    #[inline(always)]
    pub fn leaf(&self, word: u128) -> (u32, u32, u8) {
        let halves = [word as u64, (word >> 64) as u64];
        let mut child = self.first[(word as u32 >> (32 - FIRST_BITS)) as usize];
        // The flattened steps read the first dword.
        let mut read = 4u8;
        while child & LEAF == 0 {
            let Some(&p) = self.packed.get(child as usize) else { return (0, 0, read) };
            read = read.max(p.read);
            child = self.step(p, halves);
        }
        if child == NONE {
            return (0, 0, read);
        }
        let (start, end) = leaf_range(child);
        (start, end, read)
    }

    /// The class bit of `processor` (a member of the group).
    pub fn class_bit(&self, processor: &str) -> u8 {
        self.classes.iter().find(|c| c.0 == processor).unwrap_or_else(|| panic!("{processor} is not of this group")).1
    }

    /// Every leaf's entries, leaf after leaf.
    #[inline]
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Each distinct encoding the tree holds, once (for tests).
    #[cfg(test)]
    pub fn entries_sample(&self) -> Vec<u16> {
        let mut v: Vec<u16> = self.entries.iter().map(|e| e.index).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Longest leaf and number of entries (for tests and tuning).
    #[cfg(test)]
    pub fn stats(&self) -> (usize, usize) {
        let longest = self
            .nodes
            .iter()
            .filter_map(|n| match n {
                Node::Leaf { len, .. } => Some(*len as usize),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        (longest, self.entries.len())
    }
}

impl Builder<'_> {
    /// Builds the node for `set` (ids into `items`), returning its id. `consumed` holds the bits
    /// earlier switches tested.
    fn build(&mut self, set: Vec<u32>, consumed: u128) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(Node::Leaf { start: 0, len: 0 });
        let items = self.items;
        let common = set.iter().fold(u128::MAX, |m, &i| m & items[i as usize].mask) & !consumed;
        // Of the bits all entries fix, those where they differ: a switch on bits every entry
        // fixes alike would have one child (the leaves test every entry's full pattern, so
        // such bits need no switch).
        let all_ones = set.iter().fold(u128::MAX, |m, &i| m & items[i as usize].value);
        let any_ones = set.iter().fold(0, |m, &i| m | items[i as usize].value);
        let varying = common & (all_ones ^ any_ones);
        let (lo, width) = if set.len() <= LEAF_SIZE {
            (0, 0)
        } else if varying != 0 {
            let (run_lo, run_len) = widest_run_in_a_half(varying);
            let width = run_len.min(DENSE_BITS);
            (run_lo + run_len - width, width)
        } else {
            // No bit is fixed by all with different values: split on a run fixed by the most
            // entries; entries that leave some of it open go to every child they could match.
            let skip = consumed | common;
            let mut best = (0usize, 0u32);
            for bit in 0..128u32 {
                if skip >> bit & 1 != 0 {
                    continue;
                }
                let n = set.iter().filter(|&&i| items[i as usize].mask >> bit & 1 != 0).count();
                if n > best.0 {
                    best = (n, bit);
                }
            }
            if best.0 * 2 < set.len() {
                (0, 0)
            } else {
                let fixing = set.iter().filter(|&&i| items[i as usize].mask >> best.1 & 1 != 0);
                let common = fixing.fold(u128::MAX, |m, &i| m & items[i as usize].mask) & !skip;
                let (run_lo, run_len) = widest_run_in_a_half(common);
                let width = run_len.min(DENSE_BITS);
                (run_lo + run_len - width, width)
            }
        };
        if width == 0 {
            let mut leaf = set;
            // Attempt order, then most specific first, then table order: each attempt meets
            // its candidates as its own tree's leaf would list them.
            leaf.sort_by_key(|&i| {
                let e = &items[i as usize];
                (e.attempt, std::cmp::Reverse(e.mask.count_ones()), e.index)
            });
            let start = self.entries.len() as u32;
            self.entries.extend(leaf.iter().map(|&i| items[i as usize]));
            self.nodes[id as usize] = Node::Leaf { start, len: leaf.len() as u32 };
            return id;
        }
        let run = ((1u128 << width) - 1) << lo;
        let key_of = |x: u128| ((x >> lo) as u32) & ((1u32 << width) - 1);
        // Children by key; an entry that fixes only part of the run joins every key it allows.
        let mut groups: HashMap<u32, Vec<u32>> = HashMap::new();
        let mut partial: Vec<u32> = Vec::new();
        for &i in &set {
            let e = &items[i as usize];
            if e.mask & run == run {
                groups.entry(key_of(e.value)).or_default().push(i);
            } else {
                partial.push(i);
            }
        }
        if !partial.is_empty() {
            for key in 0..1u32 << width {
                for &i in &partial {
                    let e = &items[i as usize];
                    if key & key_of(e.mask) == key_of(e.value) {
                        groups.entry(key).or_default().push(i);
                    }
                }
            }
            // Keep each child's entries in `items` order (the leaf sort breaks no ties by it,
            // but stable input keeps builds reproducible).
            for v in groups.values_mut() {
                v.sort_unstable();
            }
        }
        let mut groups: Vec<(u32, Vec<u32>)> = groups.into_iter().collect();
        groups.sort_by_key(|g| g.0);
        let consumed = consumed | run;
        if width <= DENSE_BITS {
            let first = self.slots.len() as u32;
            self.slots.extend(std::iter::repeat_n(NONE, 1usize << width));
            for (k, v) in groups {
                let child = self.build(v, consumed);
                self.slots[(first + k) as usize] = child;
            }
            self.nodes[id as usize] = Node::Dense { lo: lo as u8, width: width as u8, first };
        } else {
            let keys: Box<[u32]> = groups.iter().map(|g| g.0).collect();
            let children: Box<[u32]> = groups.into_iter().map(|(_, v)| self.build(v, consumed)).collect();
            self.nodes[id as usize] = Node::Sparse { lo: lo as u8, width: width as u8, keys, children };
        }
        id
    }
}

/// Beside each verdict of `verdicts`, the bits of its field that decide it: of the classes
/// of field values {same top bit; same top two bits; those and bit 0; same value}, the
/// coarsest over which the check's verdict table is constant around that value. A 9-bit
/// source reads registers from 256 up as VGPRs: as a 32-bit source each is fine (its top
/// bit decides), as a 64-bit one `v255` is not (the top two bits decide for `v0..v127`),
/// and gfx90a's even-aligned tuples fail odd VGPRs (bit 0 too); SGPRs, constants and
/// special registers mostly differ from their neighbours, and keep the whole value.
fn care_ladder(checks: &[FastCheck], verdicts: &[u8]) -> Vec<u16> {
    let mut cares = vec![0u16; verdicts.len()];
    let mut done = vec![false; verdicts.len()];
    for c in checks {
        let (at, n) = (c.table as usize, usize::from(c.mask) + 1);
        if done[at] {
            continue;
        }
        done[at] = true;
        let (table, out) = (&verdicts[at..at + n], &mut cares[at..at + n]);
        out.fill(c.mask);
        let top = c.mask ^ (c.mask >> 1);
        // Finest first: a coarser class whose verdicts agree overwrites a finer one.
        for class in [top | top >> 1 | 1, top | top >> 1, top].map(|class| class & c.mask) {
            // Per key (a value's bits in the class), its verdict if all values agree on it.
            let mut agreed: Vec<Option<u8>> = vec![None; n];
            let mut split = vec![false; n];
            for (value, &verdict) in table.iter().enumerate() {
                let key = value & usize::from(class);
                match agreed[key] {
                    None => agreed[key] = Some(verdict),
                    Some(v) if v != verdict => split[key] = true,
                    _ => {}
                }
            }
            for (value, care) in out.iter_mut().enumerate() {
                if !split[value & usize::from(class)] {
                    *care = class;
                }
            }
        }
    }
    cares
}

/// The longest run of set bits in `mask` that lies within bits 0..64 or 64..128 (so a walk
/// extracts it from one 64-bit half): (lowest bit, length).
fn widest_run_in_a_half(mask: u128) -> (u32, u32) {
    let low = widest_run(mask & u128::from(u64::MAX));
    let high = widest_run(mask & !u128::from(u64::MAX));
    if high.1 > low.1 { high } else { low }
}

/// The longest run of set bits in `mask`: (lowest bit, length).
pub(super) fn widest_run(mask: u128) -> (u32, u32) {
    let (mut best, mut at) = (0, 0);
    let mut m = mask;
    let mut base = 0;
    while m != 0 {
        let zeros = m.trailing_zeros();
        m >>= zeros;
        base += zeros;
        let ones = m.trailing_ones();
        if ones > best {
            best = ones;
            at = base;
        }
        if ones == 128 {
            break;
        }
        m >>= ones;
        base += ones;
    }
    (at, best)
}

/// Entries for encoding indices `candidates` of attempt number `number` (each with the
/// classes it exists for), each with its compiled validation (`compile` gives its range of
/// checks, or `None`).
pub fn entries_of<'a>(
    number: u8,
    attempt: &'a Attempt,
    candidates: &'a [(u16, u8)],
    mut compile: impl FnMut(u16) -> Option<(u32, u8)> + 'a,
) -> impl Iterator<Item = Entry> + 'a {
    candidates.iter().map(move |&(i, present)| {
        let e = &encodings()[i as usize];
        let mask_bytes = (128 - e.mask.leading_zeros()).div_ceil(8) as u8;
        let (first, count) = compile(i).unwrap_or((0, NOT_COMPILED));
        Entry {
            mask: e.mask,
            value: e.value,
            index: i,
            attempt: number,
            mask_bytes,
            size: attempt.bits / 8,
            tail_at: attempt.literal_at,
            count,
            checks_read: 0,
            first,
            present,
            alone_read: 0,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::decode::validate::{VERDICT_FAIL, VERDICT_LITERAL, VERDICT_OK};

    /// The care ladder keeps, per field value, the coarsest class of values around it with
    /// one verdict: a 64-bit source (`v255` fails, 255 selects the literal) and an
    /// even-aligned VGPR tuple (odd VGPRs fail).
    #[test]
    fn the_care_ladder_keeps_the_bits_that_decide_a_verdict() {
        let wide: Vec<u8> = (0..512).map(|v| match v {
            0x1ff => VERDICT_FAIL,
            255 => VERDICT_LITERAL,
            _ => VERDICT_OK,
        }).collect();
        let aligned: Vec<u8> = (0..512).map(|v| if v >= 256 && v % 2 == 1 { VERDICT_FAIL } else { 0 }).collect();
        let verdicts: Vec<u8> = wide.iter().chain(&aligned).chain(&[0, VERDICT_FAIL]).copied().collect();
        let checks = [
            FastCheck { shift: 0, mask: 0x1ff, table: 0 },
            FastCheck { shift: 9, mask: 0x1ff, table: 512 },
            // A second check of the first table: computed once.
            FastCheck { shift: 18, mask: 0x1ff, table: 0 },
            FastCheck { shift: 27, mask: 1, table: 1024 },
        ];
        let cares = care_ladder(&checks, &verdicts);
        let expected = [
            // v1 and v254 (even): v0..v127 alike, then even ones of v128..v254; v255,
            // the literal and s1 (all 0..127 fine here) keep what sets them apart.
            (0x101, 0x180),
            (0x1fe, 0x181),
            (0x1ff, 0x1ff),
            (255, 0x1ff),
            (1, 0x180),
            (512 + 0x102, 0x181),
            (512 + 0x103, 0x181),
            (512 + 0x0ff, 0x100),
            (1024, 1),
            (1025, 1),
        ];
        for (at, care) in expected {
            assert_eq!(cares[at], care, "verdict {at:#x}");
        }
        // Sound: every value in a value's class has its verdict.
        for c in &checks {
            for value in 0..=usize::from(c.mask) {
                let (at, care) = (c.table as usize + value, usize::from(cares[c.table as usize + value]));
                for other in (0..=usize::from(c.mask)).filter(|o| o & care == value & care) {
                    assert_eq!(verdicts[c.table as usize + other], verdicts[at], "{value:#x} and {other:#x}");
                }
            }
        }
    }

    /// A leaf child gives back its range, is told from a switch by its top bit, and is never
    /// `NONE`, up to the largest leaf that fits.
    #[test]
    fn leaf_children_hold_their_range() {
        let largest = (1 << (30 - LEAF_LEN_BITS)) - 1;
        for (start, len) in [(0, 0), (0, 1), (7, 3), (199_999, 63), (largest, (1 << LEAF_LEN_BITS) - 1)] {
            let child = leaf_child(start, len);
            assert_eq!(leaf_range(child), (start, start + len));
            assert!(child & LEAF != 0 && child != NONE, "{start}+{len}");
        }
        assert!(std::panic::catch_unwind(|| leaf_child(largest + 1, 0)).is_err());
        assert!(std::panic::catch_unwind(|| leaf_child(0, 1 << LEAF_LEN_BITS)).is_err());
    }
}
