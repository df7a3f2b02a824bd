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

/// Candidates at a leaf are tested in order; a leaf is made once this few remain or no bit can
/// split them.
const LEAF_SIZE: usize = 4;
/// Widest dense switch (2^10 children).
const DENSE_BITS: u32 = 10;
/// Widest sparse switch.
const MAX_SWITCH_BITS: u32 = 12;

/// One candidate: encoding `index` as tried by attempt `attempt`, with its fixed bits.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub mask: u128,
    pub value: u128,
    pub index: u16,
    pub attempt: u8,
    /// Bytes from the start up to the last fixed bit: what testing the pattern reads.
    pub mask_bytes: usize,
}

#[derive(Debug)]
pub struct Dispatch {
    nodes: Vec<Node>,
    entries: Vec<Entry>,
    /// Child ids of dense nodes.
    slots: Vec<u32>,
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

struct Builder<'a> {
    items: &'a [Entry],
    nodes: Vec<Node>,
    entries: Vec<Entry>,
    /// Child ids of dense nodes.
    slots: Vec<u32>,
}

impl Dispatch {
    /// `items` in attempt order (each attempt's encodings in table order).
    pub fn build(items: Vec<Entry>) -> Dispatch {
        let mut b = Builder { items: &items, nodes: Vec::new(), entries: Vec::new(), slots: Vec::new() };
        let all: Vec<u32> = (0..items.len() as u32).collect();
        let root = b.build(all, 0);
        debug_assert_eq!(root, 0);
        let Builder { nodes, entries, slots, .. } = b;
        Dispatch { nodes, entries, slots }
    }

    /// The candidates that could match `word` (the zero-padded leading 16 bytes), in the order
    /// the attempts would try them, and how many leading bytes the walk read.
    #[inline]
    pub fn candidates_traced(&self, word: u128) -> (&[Entry], usize) {
        let mut id = 0u32;
        let mut read = 0usize;
        loop {
            match &self.nodes[id as usize] {
                Node::Leaf { start, len } => {
                    return (&self.entries[*start as usize..(*start + *len) as usize], read);
                }
                Node::Dense { lo, width, first } => {
                    read = read.max(usize::from(lo + width).div_ceil(8));
                    let key = ((word >> lo) as u32) & ((1u32 << width) - 1);
                    let child = self.slots[(first + key) as usize];
                    if child == NONE {
                        return (&[], read);
                    }
                    id = child;
                }
                Node::Sparse { lo, width, keys, children } => {
                    read = read.max(usize::from(lo + width).div_ceil(8));
                    let key = ((word >> lo) as u32) & ((1u32 << width) - 1);
                    match keys.binary_search(&key) {
                        Ok(i) => id = children[i],
                        Err(_) => return (&[], read),
                    }
                }
            }
        }
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
        let (lo, width) = if set.len() <= LEAF_SIZE {
            (0, 0)
        } else if common != 0 {
            let (run_lo, run_len) = widest_run(common);
            let width = run_len.min(MAX_SWITCH_BITS);
            (run_lo + run_len - width, width)
        } else {
            // No bit is fixed by all: split on a run fixed by the most entries; entries that
            // leave some of it open go to every child they could match.
            let mut best = (0usize, 0u32);
            for bit in 0..128u32 {
                if consumed >> bit & 1 != 0 {
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
                let common = fixing.fold(u128::MAX, |m, &i| m & items[i as usize].mask) & !consumed;
                let (run_lo, run_len) = widest_run(common);
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

/// Entries for encoding indices `indices` of attempt `attempt`.
pub fn entries_of(attempt: u8, indices: &[u16]) -> impl Iterator<Item = Entry> + '_ {
    indices.iter().map(move |&i| {
        let e = &encodings()[i as usize];
        let mask_bytes = (128 - e.mask.leading_zeros()).div_ceil(8) as usize;
        Entry { mask: e.mask, value: e.value, index: i, attempt, mask_bytes }
    })
}
