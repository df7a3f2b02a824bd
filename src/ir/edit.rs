//! The edit API passes use: replace, insert before/after, delete. Each edit is checked against
//! what the function allows (opaque functions take same-size replacements only; control flow
//! and PC-relative chains are not edited through this API) and recorded, so that reports and
//! the verifier know every difference between input and output.

use crate::isa::Inst;

use super::flow::{classify, Flow, Kind, Target};
use super::{Block, Function, Node, Origin, Successors};

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

    /// Inserts the branch `inst` (`s_branch` or `s_cbranch_*`) before the instruction at `at`,
    /// to the instruction at `target` of the same function. The block holding `at` is split so
    /// that the branch ends its first half (what entered the block runs the branch, as with
    /// [`Function::insert_before`]), and the block holding `target` so that `target` starts a
    /// block. The branch's offset in `inst` is ignored: the layout aims it.
    pub fn insert_branch(&mut self, at: InstRef, inst: Inst, target: InstRef, pass: &'static str) -> Result<(), Declined> {
        let old = *self.node(at).ok_or(Declined::NoSuchInstruction)?;
        self.node(target).ok_or(Declined::NoSuchInstruction)?;
        if self.opaque.is_some() {
            return Err(Declined::OpaqueFunction);
        }
        let conditional = is_conditional_branch(&inst)?;
        let mut at = at;
        let mut target_block = target.block;
        if target.index > 0 {
            self.split_block(target.block, target.index);
            target_block += 1;
            if at.block == target.block && at.index >= target.index {
                at = InstRef { block: at.block + 1, index: at.index - target.index };
            } else if at.block > target.block {
                at.block += 1;
            }
        }
        self.split_block(at.block, at.index);
        // The target moved into the second half when it starts at `at` or lies after it.
        if target_block > at.block || (target_block == at.block && at.index == 0) {
            target_block += 1;
        }
        let edit = self.record(pass, EditKind::InsertBefore, old.origin, Some(inst));
        let to = Target::Block(target_block);
        let block = &mut self.blocks[at.block];
        block.nodes.push(Node { inst, origin: Origin::Inserted { edit }, flow: if conditional { Flow::CondBranch(to) } else { Flow::Branch(to) } });
        block.successors = if conditional && target_block != at.block + 1 { Successors::two(target_block, at.block + 1) } else { Successors::one(target_block) };
        block.exits = false;
        Ok(())
    }

    /// Ends block `block`, which falls through (its last instruction does not end it), with the
    /// branch `inst` to the instruction at `target` of another block: a conditional branch's
    /// other way is the fall-through. This puts a branch where one was taken out
    /// ([`Function::delete_branch`]); [`Function::insert_branch`] before the next block's
    /// first instruction would put it in front of whatever branches there.
    pub fn append_branch(&mut self, block: usize, inst: Inst, target: InstRef, pass: &'static str) -> Result<(), Declined> {
        self.node(target).ok_or(Declined::NoSuchInstruction)?;
        if self.opaque.is_some() {
            return Err(Declined::OpaqueFunction);
        }
        let conditional = is_conditional_branch(&inst)?;
        let last = *self.blocks.get(block).and_then(|b| b.nodes.last()).ok_or(Declined::NoSuchInstruction)?;
        if last.flow.ends_block() || target.block == block || block + 1 >= self.blocks.len() {
            return Err(Declined::ControlFlow);
        }
        let mut block = block;
        let mut target_block = target.block;
        if target.index > 0 {
            self.split_block(target.block, target.index);
            target_block += 1;
            if block > target.block {
                block += 1;
            }
        }
        let edit = self.record(pass, EditKind::InsertAfter, last.origin, Some(inst));
        let to = Target::Block(target_block);
        let b = &mut self.blocks[block];
        b.nodes.push(Node { inst, origin: Origin::Inserted { edit }, flow: if conditional { Flow::CondBranch(to) } else { Flow::Branch(to) } });
        b.successors = if conditional && target_block != block + 1 { Successors::two(target_block, block + 1) } else { Successors::one(target_block) };
        b.exits = false;
        Ok(())
    }

    /// Deletes the branch (`s_branch`, `s_cbranch_*` to a block of the function) ending the
    /// block of `at`: the block then falls through into the next one.
    pub fn delete_branch(&mut self, at: InstRef, pass: &'static str) -> Result<(), Declined> {
        let old = *self.node(at).ok_or(Declined::NoSuchInstruction)?;
        if self.opaque.is_some() {
            return Err(Declined::OpaqueFunction);
        }
        let is_branch = matches!(old.flow, Flow::Branch(Target::Block(_)) | Flow::CondBranch(Target::Block(_)));
        if !is_branch || at.index + 1 != self.blocks[at.block].nodes.len() || at.block + 1 >= self.blocks.len() {
            return Err(Declined::ControlFlow);
        }
        self.record(pass, EditKind::Delete, old.origin, None);
        let block = &mut self.blocks[at.block];
        block.nodes.pop();
        block.successors = Successors::one(at.block + 1);
        block.exits = false;
        Ok(())
    }

    /// Splits block `b` before its instruction `index`: the instructions from there on become
    /// block `b + 1`, which `b` falls through into; later blocks and every reference to them
    /// move up by one.
    fn split_block(&mut self, b: usize, index: usize) {
        let shift = |t: &mut usize| {
            if *t > b {
                *t += 1;
            }
        };
        for block in &mut self.blocks {
            block.successors.iter_mut().for_each(shift);
            for node in &mut block.nodes {
                if let Flow::Branch(Target::Block(t)) | Flow::CondBranch(Target::Block(t)) | Flow::Jump(Target::Block(t)) | Flow::AddPc(Target::Block(t)) = &mut node.flow {
                    shift(t);
                }
            }
        }
        let first = &mut self.blocks[b];
        let nodes = first.nodes.split_off(index);
        // Blocks stay sorted by address; a half that starts with an inserted instruction shares
        // the address of the block it came from (`block_at` finds the first).
        let address = nodes.first().and_then(|n| n.origin.input_address()).unwrap_or(first.address);
        let second = Block { address, nodes, successors: std::mem::replace(&mut first.successors, Successors::one(b + 1)), exits: std::mem::replace(&mut first.exits, false) };
        self.blocks.insert(b + 1, second);
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

/// Whether the branch `inst` is conditional; anything that is not `s_branch` or
/// `s_cbranch_*` is declined.
fn is_conditional_branch(inst: &Inst) -> Result<bool, Declined> {
    match classify(inst, 0) {
        Kind::Branch(_) => Ok(false),
        Kind::CondBranch(_) => Ok(true),
        _ => Err(Declined::ControlFlow),
    }
}
