//! Decision trees over encoding patterns, built the way LLVM's fixed-length decoder emitter
//! builds its tables: split on bits that every remaining candidate fixes, until few remain,
//! then test the survivors most-specific first.
//!
//! One tree per table, tried in the plan's order, is how the decoder worked before the merged
//! tree of [`super::dispatch`]; it is kept (test builds only) as the reference that
//! `merged_tree_decodes_as_the_tables_in_order` checks the merged tree against.

use std::collections::HashMap;

use super::dispatch::widest_run;
use crate::isa::table::{Encoding, encodings};

/// Candidates at a leaf are tested in order; a leaf is made once this few remain or no bit is
/// fixed in all of them.
const LEAF_SIZE: usize = 4;
/// Widest switch on one node (2^12 children).
const MAX_SWITCH_BITS: u32 = 12;

/// A decision tree over a set of encodings of one width.
#[derive(Debug)]
pub struct Tree {
    root: Node,
}

#[derive(Debug)]
enum Node {
    /// Encoding indices, most fixed bits first.
    Leaf(Box<[u16]>),
    /// Switch on `width` bits from `lo`, indexing a dense table; a value with no child has no
    /// match. Dense tables keep a lookup to one shift, one mask and one load per level.
    Dense {
        lo: u8,
        width: u8,
        children: Box<[Option<Node>]>,
    },
    /// The same for wide switches with few children: sorted keys, binary search.
    Sparse {
        lo: u8,
        width: u8,
        keys: Box<[u32]>,
        children: Box<[Node]>,
    },
}

/// Switches up to this wide use a dense table.
const DENSE_BITS: u32 = 10;

impl Tree {
    /// Builds a tree over the encodings at `indices` (into [`encodings`]).
    pub fn build(indices: &[u16]) -> Tree {
        Tree {
            root: build(indices.to_vec(), 0),
        }
    }

    /// The encodings that could match `word`, most specific first; the caller checks each.
    pub fn candidates(&self, word: u128) -> &[u16] {
        let mut node = &self.root;
        loop {
            match node {
                Node::Leaf(list) => return list,
                Node::Dense {
                    lo,
                    width,
                    children,
                } => {
                    let key = ((word >> lo) as u32) & ((1u32 << width) - 1);
                    match &children[key as usize] {
                        Some(child) => node = child,
                        None => return &[],
                    }
                }
                Node::Sparse {
                    lo,
                    width,
                    keys,
                    children,
                } => {
                    let key = ((word >> lo) as u32) & ((1u32 << width) - 1);
                    match keys.binary_search(&key) {
                        Ok(i) => node = &children[i],
                        Err(_) => return &[],
                    }
                }
            }
        }
    }
}

/// `consumed` holds the bits earlier switches already tested.
fn build(mut set: Vec<u16>, consumed: u128) -> Node {
    let all = encodings();
    let common = set.iter().fold(u128::MAX, |m, &i| m & all[i as usize].mask) & !consumed;
    if set.len() <= LEAF_SIZE || common == 0 {
        // Most specific first: a pattern that fixes more bits wins over one it overlaps.
        set.sort_by_key(|&i| std::cmp::Reverse(all[i as usize].mask.count_ones()));
        return Node::Leaf(set.into_boxed_slice());
    }
    let (run_lo, run_len) = widest_run(common);
    let width = run_len.min(MAX_SWITCH_BITS);
    // Take the top `width` bits of the run: encoding-family and opcode fields sit high.
    let lo = run_lo + run_len - width;
    let switched = ((1u128 << width) - 1) << lo;
    let mut groups: HashMap<u32, Vec<u16>> = HashMap::new();
    for &i in &set {
        let e: &Encoding = &all[i as usize];
        let key = ((e.value >> lo) as u32) & ((1u32 << width) - 1);
        groups.entry(key).or_default().push(i);
    }
    let mut groups: Vec<(u32, Vec<u16>)> = groups.into_iter().collect();
    groups.sort_by_key(|g| g.0);
    if width <= DENSE_BITS {
        let mut children: Vec<Option<Node>> = (0..1usize << width).map(|_| None).collect();
        for (k, v) in groups {
            children[k as usize] = Some(build(v, consumed | switched));
        }
        Node::Dense {
            lo: lo as u8,
            width: width as u8,
            children: children.into_boxed_slice(),
        }
    } else {
        let keys = groups.iter().map(|g| g.0).collect();
        let children = groups
            .into_iter()
            .map(|(_, v)| build(v, consumed | switched))
            .collect();
        Node::Sparse {
            lo: lo as u8,
            width: width as u8,
            keys,
            children,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widest_run_finds_the_longest_block() {
        assert_eq!(widest_run(0b0111_0011), (4, 3));
        assert_eq!(widest_run(u128::MAX), (0, 128));
        assert_eq!(widest_run(0), (0, 0));
    }

    #[test]
    fn every_encoding_is_found_by_its_own_pattern() {
        // Over a whole namespace: each record's fixed value reaches a leaf that lists it.
        let all = encodings();
        let indices: Vec<u16> = (0..all.len() as u16)
            .filter(|&i| all[i as usize].ns.name() == "GFX11" && all[i as usize].bits == 64)
            .collect();
        assert!(indices.len() > 1000);
        let tree = Tree::build(&indices);
        for &i in &indices {
            assert!(
                tree.candidates(all[i as usize].value).contains(&i),
                "{}",
                all[i as usize].record_name()
            );
        }
    }
}
