//! The edit API passes use: replace, insert before/after, delete. Each edit is checked against
//! what the function allows (opaque functions take same-size replacements only; control flow
//! and PC-relative chains are not edited through this API) and recorded, so that reports and
//! the verifier know every difference between input and output.

use crate::isa::Inst;

use super::flow::{classify, Flow, Kind};
use super::{Function, Node, Origin};

/// A position: instruction `index` of block `block`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InstRef {
    pub block: usize,
    pub index: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EditKind {
    Replace,
    InsertBefore,
    InsertAfter,
    Delete,
}

/// One edit, as made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EditRecord {
    pub pass: &'static str,
    pub kind: EditKind,
    /// The instruction the edit was made at, by input address, or by the edit that inserted
    /// it.
    pub anchor: Origin,
    /// The instruction put in (replace, insert).
    pub inst: Option<Inst>,
}

/// Why an edit was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Declined {
    /// The function is opaque and the edit would change its size.
    OpaqueFunction,
    /// The instruction transfers control, or the new one would.
    ControlFlow,
    /// The instruction is part of a PC-relative address computation the layout re-aims.
    PcRelative,
    /// No instruction at that position.
    NoSuchInstruction,
}

impl Declined {
    /// The key reports count declines under.
    pub fn reason(self) -> &'static str {
        match self {
            Declined::OpaqueFunction => "opaque function",
            Declined::ControlFlow => "control flow",
            Declined::PcRelative => "PC-relative chain",
            Declined::NoSuchInstruction => "no such instruction",
        }
    }
}

impl Function {
    /// The instruction at `at`.
    pub fn node(&self, at: InstRef) -> Option<&Node> {
        self.blocks.get(at.block)?.nodes.get(at.index)
    }

    fn check_existing(&self, at: InstRef) -> Result<Node, Declined> {
        let node = *self.node(at).ok_or(Declined::NoSuchInstruction)?;
        if node.flow != Flow::Next {
            return Err(Declined::ControlFlow);
        }
        if let Some(a) = node.origin.input_address()
            && (self.pcrel.iter().any(|c| c.getpc == a || c.add_lo == a || c.add_hi == a || c.sext == Some(a))
                || self.add_pc_pairs.iter().any(|p| p.moves().any(|m| m == a)))
        {
            return Err(Declined::PcRelative);
        }
        Ok(node)
    }

    fn check_new(&self, inst: &Inst) -> Result<(), Declined> {
        if classify(inst, 0) != Kind::Next {
            return Err(Declined::ControlFlow);
        }
        Ok(())
    }

    fn record(&mut self, pass: &'static str, kind: EditKind, anchor: Origin, inst: Option<Inst>) -> u32 {
        self.edits.push(EditRecord { pass, kind, anchor, inst });
        (self.edits.len() - 1) as u32
    }

    /// Replaces the instruction at `at` with `inst`.
    pub fn replace(&mut self, at: InstRef, inst: Inst, pass: &'static str) -> Result<(), Declined> {
        let old = self.check_existing(at)?;
        self.check_new(&inst)?;
        if self.opaque.is_some() && inst.len() != old.inst.len() {
            return Err(Declined::OpaqueFunction);
        }
        let edit = self.record(pass, EditKind::Replace, old.origin, Some(inst));
        let origin = match old.origin {
            Origin::Input(address) | Origin::Replaced { address, .. } => Origin::Replaced { address, edit },
            Origin::Inserted { .. } => Origin::Inserted { edit },
        };
        self.blocks[at.block].nodes[at.index] = Node { inst, origin, flow: Flow::Next };
        Ok(())
    }

    /// Inserts `inst` before the instruction at `at` (`at.index` may be the block's length only
    /// for an empty block). Code inserted before a block's first instruction is where branches
    /// to the block now land.
    pub fn insert_before(&mut self, at: InstRef, inst: Inst, pass: &'static str) -> Result<(), Declined> {
        self.insert(at, 0, EditKind::InsertBefore, inst, pass)
    }

    /// Inserts `inst` after the instruction at `at` (not after a block's control-flow
    /// instruction: nothing after it would run).
    pub fn insert_after(&mut self, at: InstRef, inst: Inst, pass: &'static str) -> Result<(), Declined> {
        if self.node(at).is_some_and(|n| n.flow.ends_block()) {
            return Err(Declined::ControlFlow);
        }
        self.insert(at, 1, EditKind::InsertAfter, inst, pass)
    }

    fn insert(&mut self, at: InstRef, after: usize, kind: EditKind, inst: Inst, pass: &'static str) -> Result<(), Declined> {
        self.check_new(&inst)?;
        if self.opaque.is_some() {
            return Err(Declined::OpaqueFunction);
        }
        let block = self.blocks.get(at.block).ok_or(Declined::NoSuchInstruction)?;
        let anchor = match block.nodes.get(at.index) {
            Some(n) => n.origin,
            None if block.nodes.is_empty() && at.index == 0 && after == 0 => Origin::Input(block.address),
            None => return Err(Declined::NoSuchInstruction),
        };
        let edit = self.record(pass, kind, anchor, Some(inst));
        self.blocks[at.block].nodes.insert(at.index + after, Node { inst, origin: Origin::Inserted { edit }, flow: Flow::Next });
        Ok(())
    }

    /// Deletes the instruction at `at`.
    pub fn delete(&mut self, at: InstRef, pass: &'static str) -> Result<(), Declined> {
        let old = self.check_existing(at)?;
        if self.opaque.is_some() {
            return Err(Declined::OpaqueFunction);
        }
        self.record(pass, EditKind::Delete, old.origin, None);
        self.blocks[at.block].nodes.remove(at.index);
        Ok(())
    }
}
