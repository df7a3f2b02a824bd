//! Laying the edited program out again: new addresses for every instruction, branch offsets
//! re-encoded (and relaxed to a long form when they no longer reach), PC-relative constants
//! re-aimed, kernel entries kept 256-byte aligned, padding regenerated.
//!
//! The result is the new `.text` bytes plus the address map the container writer needs to move
//! symbols, descriptors, relocations and DWARF. Untouched instructions are copied byte for byte;
//! with no edits the output is the input.
//!
//! Long branches: `s_branch T` whose 16-bit dword offset no longer reaches becomes
//! `s_getpc_b64 s[N:N+1]; s_add_u32 sN, sN, lo; s_addc_u32 sN+1, sN+1, hi; s_setpc_b64 s[N:N+1]`
//! with `s[N:N+1]` an SGPR pair proven dead at `T` (and SCC dead there too, as the adds write
//! it); `s_cbranch_X T` becomes the inverse branch over that sequence. No dead pair: refused.

use std::collections::{HashMap, HashSet};

use crate::ir::liveness::{self, unit, Liveness};
use crate::ir::flow::{add_pc_operand, AddPcForm, AddPcOperand};
use crate::ir::pcrel::{AddPcPair, PcRel};
use crate::ir::{BranchTarget, EditKind, Flow, Function, FunctionKind, Origin, Program};
use crate::isa::encode::Builder;
use crate::isa::operand::Value;
use crate::isa::reg::Reg;
use crate::isa::table::{Opcode, OperandName};
use crate::isa::Inst;

/// Bytes of the long-branch sequence: `s_getpc_b64` (4), two adds with literals (8 + 8),
/// `s_setpc_b64` (4).
const LONG_BRANCH_BYTES: u64 = 24;

/// Why the layout refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("{function}: {reason} (at {address:#x}); the code may not move")]
    Pinned { function: String, address: u64, reason: String },
    /// Code that runs into a following entry which can no longer be aligned: nothing may be
    /// placed between them, and nothing in front of them can absorb the change.
    #[error("{function} falls through into {next}, whose entry could no longer be {alignment}-byte aligned")]
    FallsThrough { function: String, next: String, alignment: u64 },
    #[error("{function}: branch at {address:#x} is out of range and cannot be relaxed: {why}")]
    BranchOutOfRange { function: String, address: u64, why: String },
    #[error("{function}: branch at {address:#x} targets {target:#x}, which is no block start")]
    BranchTarget { function: String, address: u64, target: u64 },
    #[error("{function}: PC-relative chain at {address:#x}: {why}")]
    PcRel { function: String, address: u64, why: String },
    #[error("the container writer cannot place the new text: {0}")]
    Writer(String),
    #[error("cannot encode {what} for {address:#x}")]
    Encode { address: u64, what: &'static str },
}

/// A branch the layout relaxed to the long form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Relaxation {
    /// Input address of the branch, and where its replacement starts.
    pub address: u64,
    pub new_address: u64,
    /// New address of the target.
    pub target: u64,
    /// The dead SGPR pair used: `s[sgpr:sgpr+1]`.
    pub sgpr: u16,
}

/// Registers a kernel's code (its own and that of the functions it calls) uses after edits.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RegisterUse {
    pub kernel: String,
    /// Highest register number used + 1 (0 if none).
    pub sgprs: u32,
    pub vgprs: u32,
    pub agprs: u32,
}

/// The laid-out text.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    pub text: Vec<u8>,
    /// Input address -> output address for every input instruction start (code inserted
    /// before an instruction: the start of the inserted code; a deleted instruction: what
    /// follows it) and for the end of the text. Sorted by input address.
    pub map: Vec<(u64, u64)>,
    /// Exact output address of every input instruction kept (replaced ones included).
    pub placed: Vec<(u64, u64)>,
    /// Output address and instruction of everything inserted.
    pub inserted: Vec<(u64, Inst)>,
    pub relaxed: Vec<Relaxation>,
    /// Kernels whose code changed: the registers it uses now.
    pub registers: Vec<RegisterUse>,
}

impl Layout {
    /// The map value of input address `address`, if it is an instruction start or the end.
    pub fn map(&self, address: u64) -> Option<u64> {
        self.map.binary_search_by_key(&address, |&(a, _)| a).ok().map(|i| self.map[i].1)
    }

    /// Where input instruction `address` itself now is.
    pub fn placed(&self, address: u64) -> Option<u64> {
        self.placed.binary_search_by_key(&address, |&(a, _)| a).ok().map(|i| self.placed[i].1)
    }
}

/// Makes `a` the sorted union of itself and `b`, both sorted (what appending and sorting
/// gives), in place: the half a million pairs of a large object's map are neither copied to
/// a fresh vector nor sorted again (that was 7% of its rewrite). `b` is short (the deleted
/// instructions): each of its elements, from the last, finds its place among the elements
/// of `a` not yet moved by bisection, and those above it move up in one block, so each
/// element of `a` moves at most once. Equal elements keep `a`'s first, as a stable merge does.
fn merge_sorted<T: Ord + Copy>(a: &mut Vec<T>, b: &[T]) {
    let Some(&filler) = b.first() else { return };
    let mut end = a.len();
    a.resize(end + b.len(), filler);
    // Invariant: a[..end] is what is left of `a` to place, with b[..=j] to go among it.
    for (j, &x) in b.iter().enumerate().rev() {
        let p = a[..end].partition_point(|y| *y <= x);
        a.copy_within(p..end, p + j + 1);
        a[p + j] = x;
        end = p;
    }
}

/// Addresses of one placement round.
struct Placement {
    /// Per function, per block: output start address.
    block: Vec<Vec<u64>>,
    /// Per function: output address where its code ends and its padding length.
    code_end: Vec<u64>,
    padding: Vec<u64>,
    text_len: u64,
}

/// Lays out `program` (whose text is `original` in the input). `shift(new_len)` is how far the
/// container writer moves addresses after the text when the text becomes `new_len` bytes.
pub fn layout(program: &Program, original: &[u8], shift: &dyn Fn(u64) -> Result<u64, String>) -> Result<Layout, LayoutError> {
    let mut asm = Builder::new(program.target);
    let mut relaxed: HashMap<(usize, usize), Relax> = HashMap::new();
    let mut liveness: HashMap<usize, Liveness> = HashMap::new();
    // `s_add_pc_i64 IMM` whose offset needs a longer form than the input's (forms only grow).
    let mut forms: HashMap<(usize, usize), AddPcForm> = HashMap::new();
    let placement = loop {
        let p = place(program, &relaxed, &forms)?;
        let mut grew = false;
        for (fi, f) in program.functions.iter().enumerate() {
            for (bi, block) in f.blocks.iter().enumerate() {
                let Some(last) = block.nodes.last() else { continue };
                if let Flow::AddPc(t) = last.flow
                    && let AddPcOperand::Constant(_, input_form) = add_pc_operand(&last.inst)
                {
                    let at = p.block[fi][bi] + block.nodes[..block.nodes.len() - 1].iter().map(|n| n.inst.len() as u64).sum::<u64>();
                    let target = target_address(program, &p, fi, t, last, at)?;
                    let current = forms.get(&(fi, bi)).copied().unwrap_or(input_form);
                    let needed = [AddPcForm::Inline, AddPcForm::Literal32, AddPcForm::Literal64]
                        .into_iter()
                        .filter(|&form| form >= current)
                        .find(|&form| form.fits(target.wrapping_sub(at + form.size()) as i64))
                        .ok_or_else(|| LayoutError::BranchOutOfRange {
                            function: f.name.clone(),
                            address: last.origin.input_address().unwrap_or(at),
                            why: "no s_add_pc_i64 form holds the new offset".into(),
                        })?;
                    if needed != current && f.opaque.is_some() {
                        return Err(LayoutError::BranchOutOfRange {
                            function: f.name.clone(),
                            address: last.origin.input_address().unwrap_or(at),
                            why: "the function is opaque and its s_add_pc_i64 would need a longer form".into(),
                        });
                    }
                    if needed != current {
                        forms.insert((fi, bi), needed);
                        grew = true;
                    }
                    continue;
                }
                let Some(t) = last.flow.branch_target() else { continue };
                if relaxed.contains_key(&(fi, bi)) {
                    continue;
                }
                let at = p.block[fi][bi] + block.nodes[..block.nodes.len() - 1].iter().map(|n| n.inst.len() as u64).sum::<u64>();
                let target = target_address(program, &p, fi, t, last, at)?;
                if branch_offset(at, target).is_none() {
                    let r = relaxation(program, fi, bi, t, &mut liveness)?;
                    relaxed.insert((fi, bi), r);
                    grew = true;
                }
            }
        }
        if !grew {
            break p;
        }
    };

    // Output addresses of every node, the address map, and what moved. The map and the
    // placements are sized once (growing them was a copy of each, megabytes on a large
    // object), and whether they come sorted is seen as they are pushed.
    let nodes: usize = program.functions.iter().flat_map(|f| &f.blocks).map(|b| b.nodes.len()).sum();
    let padding_words: u64 = program.functions.iter().map(|f| f.padding.bytes.div_ceil(4)).sum();
    let deletes: usize = program.functions.iter().map(|f| f.edits.iter().filter(|e| e.kind == EditKind::Delete).count()).sum();
    let mut out = Layout {
        map: Vec::with_capacity(nodes + padding_words as usize + 1 + deletes),
        placed: Vec::with_capacity(nodes),
        ..Layout::default()
    };
    let (mut map_sorted, mut placed_sorted) = (true, true);
    for (fi, f) in program.functions.iter().enumerate() {
        for (bi, block) in f.blocks.iter().enumerate() {
            let mut at = placement.block[fi][bi];
            let mut pending: Option<u64> = None;
            let (relax, form) = (relaxed.get(&(fi, bi)), forms.get(&(fi, bi)).copied());
            for (ni, node) in block.nodes.iter().enumerate() {
                match node.origin {
                    Origin::Input(a) | Origin::Replaced { address: a, .. } => {
                        push_noting_order(&mut out.map, (a, pending.take().unwrap_or(at)), &mut map_sorted);
                        push_noting_order(&mut out.placed, (a, at), &mut placed_sorted);
                    }
                    Origin::Inserted { .. } => {
                        pending.get_or_insert(at);
                        out.inserted.push((at, node.inst));
                    }
                }
                let last = ni + 1 == block.nodes.len();
                at += node_size(node, relax.filter(|_| last), form.filter(|_| last));
            }
        }
        // Padding words map into the new padding.
        let old_pad = f.end - f.padding.bytes;
        let mut a = old_pad;
        while a < f.end {
            push_noting_order(&mut out.map, (a, placement.code_end[fi] + (a - old_pad).min(placement.padding[fi])), &mut map_sorted);
            a += 4;
        }
    }
    push_noting_order(&mut out.map, (program.text.end(), program.text.address + placement.text_len), &mut map_sorted);
    // Pushed in address order unless functions or blocks are out of it: sorting what is sorted
    // already still costs a pass of comparisons and moves over half a million pairs.
    if !map_sorted {
        out.map.sort_unstable();
    }
    if !placed_sorted {
        out.placed.sort_unstable();
    }
    // Deleted instructions map to what follows them.
    let mut deleted: Vec<u64> = Vec::new();
    for f in &program.functions {
        for e in f.edits.iter().filter(|e| e.kind == EditKind::Delete) {
            if let Some(a) = e.anchor.input_address()
                && out.placed.binary_search_by_key(&a, |&(x, _)| x).is_err()
            {
                deleted.push(a);
            }
        }
    }
    // Look every value up in the sorted map first: pushing while searching would break the
    // binary search for the next deleted address (tests/peephole_fixtures.rs, `wait_state`).
    let mut values: Vec<(u64, u64)> = deleted
        .into_iter()
        .map(|a| {
            let next = out.map.partition_point(|&(x, _)| x < a);
            (a, out.map.get(next).map_or(program.text.address + placement.text_len, |&(_, v)| v))
        })
        .collect();
    // Merged, not appended and sorted again: the map is sorted and the deleted are few, and
    // sorting half a million pairs again was 7% of a large object's rewrite.
    values.sort_unstable();
    merge_sorted(&mut out.map, &values);
    out.map.dedup_by_key(|&mut (a, _)| a);

    let moved = out.map.iter().any(|&(a, b)| a != b) || placement.text_len != program.text.size;
    if moved && let Some(f) = program.functions.iter().find(|f| f.opaque.as_ref().is_some_and(|o| o.pins_layout)) {
        let o = f.opaque.as_ref().unwrap();
        return Err(LayoutError::Pinned { function: f.name.clone(), address: o.address, reason: o.reason.clone() });
    }

    // PC-relative constants, re-aimed.
    let text_shift = shift(placement.text_len).map_err(LayoutError::Writer)?;
    let mut overrides: HashMap<u64, Inst> = HashMap::new();
    for (fi, f) in program.functions.iter().enumerate() {
        for c in &f.pcrel {
            re_aim(program, f, c, &out, text_shift, &asm, &mut overrides)?;
        }
        for pair in &f.add_pc_pairs {
            re_aim_pair(program, fi, pair, &out, &asm, &mut liveness, &mut overrides)?;
        }
    }

    // Emit.
    let mut text = Vec::with_capacity(placement.text_len as usize);
    for (fi, f) in program.functions.iter().enumerate() {
        for (bi, block) in f.blocks.iter().enumerate() {
            for (ni, node) in block.nodes.iter().enumerate() {
                let at = program.text.address + text.len() as u64;
                // The bytes emitted so far agree with the placement (checked per block: a map of
                // every node's address costs more than the layout on a 1 GB library).
                debug_assert!(ni > 0 || at == placement.block[fi][bi], "block {bi} of {} emitted at {at:#x}", f.name);
                if let Flow::AddPc(t) = node.flow
                    && let AddPcOperand::Constant(old, input_form) = add_pc_operand(&node.inst)
                {
                    let target = target_address(program, &placement, fi, t, node, at)?;
                    let form = forms.get(&(fi, bi)).copied().unwrap_or(input_form);
                    let offset = target.wrapping_sub(at + form.size()) as i64;
                    if form == input_form && offset == old {
                        emit(&mut text, &node.inst);
                    } else {
                        let new = with_add_pc_offset(&asm, &node.inst, form, offset).ok_or(LayoutError::Encode { address: at, what: "s_add_pc_i64 offset" })?;
                        emit(&mut text, &new);
                    }
                    continue;
                }
                if let Some(t) = node.flow.branch_target() {
                    let target = target_address(program, &placement, fi, t, node, at)?;
                    if let Some(r) = relaxed.get(&(fi, bi)) {
                        let seq = long_branch(&mut asm, node, r, at, target)?;
                        out.relaxed.push(Relaxation { address: node.origin.input_address().unwrap_or(0), new_address: at, target, sgpr: r.sgpr });
                        text.extend(seq);
                        continue;
                    }
                    let offset = branch_offset(at, target).ok_or(LayoutError::Encode { address: at, what: "branch offset" })?;
                    if current_offset(&node.inst) == Some(offset) {
                        emit(&mut text, &node.inst);
                    } else {
                        let new = with_branch_offset(&asm, &node.inst, offset).ok_or(LayoutError::Encode { address: at, what: "branch offset" })?;
                        emit(&mut text, &new);
                        // A branch a pass put in is inserted as aimed here.
                        if matches!(node.origin, Origin::Inserted { .. })
                            && let Ok(i) = out.inserted.binary_search_by_key(&at, |&(a, _)| a)
                        {
                            out.inserted[i].1 = new;
                        }
                    }
                    continue;
                }
                match node.origin.input_address().filter(|_| !overrides.is_empty()).and_then(|a| overrides.get(&a)) {
                    Some(new) if matches!(node.origin, Origin::Input(_)) => emit(&mut text, new),
                    _ => emit(&mut text, &node.inst),
                }
            }
        }
        // Padding: the input's bytes when the length is unchanged, else the filler repeated.
        let pad = placement.padding[fi];
        if pad == f.padding.bytes {
            let from = (f.end - f.padding.bytes - program.text.address) as usize;
            text.extend(&original[from..from + pad as usize]);
        } else {
            let filler = match f.padding.filler {
                Some(i) => i,
                None => asm.build(Opcode::S_NOP, &[(OperandName::simm16, Value::Imm(0))]).ok_or(LayoutError::Encode { address: f.end, what: "s_nop 0" })?,
            };
            let word = filler.bytes();
            for _ in 0..pad / word.len() as u64 {
                text.extend(&word);
            }
        }
    }
    debug_assert_eq!(text.len() as u64, placement.text_len);
    out.text = text;
    out.registers = register_use(program, &relaxed);
    Ok(out)
}

/// Pushes `pair` onto `v`, clearing `sorted` if it comes before the last pair: what
/// `is_sorted` would find afterwards, without another pass over the vector.
fn push_noting_order(v: &mut Vec<(u64, u64)>, pair: (u64, u64), sorted: &mut bool) {
    if v.last().is_some_and(|&last| last > pair) {
        *sorted = false;
    }
    v.push(pair);
}

/// Appends `inst`'s bytes to `text`. Not `Inst::bytes`: a vector per instruction was a third
/// of the layout of a large object.
fn emit(text: &mut Vec<u8>, inst: &Inst) {
    for w in inst.words() {
        text.extend_from_slice(&w.to_le_bytes());
    }
}

/// A planned relaxation: the dead SGPR pair, and the inverse branch for conditional ones.
#[derive(Clone, Copy, Debug)]
struct Relax {
    sgpr: u16,
    inverse: Option<Opcode>,
}

fn node_size(node: &crate::ir::Node, relax: Option<&Relax>, form: Option<AddPcForm>) -> u64 {
    match (relax, form) {
        (Some(r), _) if r.inverse.is_some() => 4 + LONG_BRANCH_BYTES,
        (Some(_), _) => LONG_BRANCH_BYTES,
        (None, Some(form)) => form.size(),
        (None, None) => node.inst.len() as u64,
    }
}

/// Bytes of `block` placed with its last node relaxed as `relax` or in `form`.
fn block_size(block: &crate::ir::Block, relax: Option<&Relax>, form: Option<AddPcForm>) -> u64 {
    let Some((last, rest)) = block.nodes.split_last() else { return 0 };
    rest.iter().map(|n| n.inst.len() as u64).sum::<u64>() + node_size(last, relax, form)
}

/// Assigns addresses with the current set of relaxed branches.
///
/// Functions are placed in *placement units*: a function whose code runs into the next one
/// (its last instruction falls through) stays directly in front of it, with no padding in
/// between, so a unit moves as a whole. The padding in front of a unit is what aligns the
/// strictest-aligned entry inside it (a kernel's 256 bytes); the input's padding beyond its
/// minimum is kept.
fn place(program: &Program, relaxed: &HashMap<(usize, usize), Relax>, forms: &HashMap<(usize, usize), AddPcForm>) -> Result<Placement, LayoutError> {
    let n = program.functions.len();
    let mut p = Placement { block: Vec::with_capacity(n), code_end: vec![0; n], padding: vec![0; n], text_len: 0 };
    // Bytes of each function's code (sizes do not depend on addresses).
    let mut code = vec![0u64; n];
    for (fi, f) in program.functions.iter().enumerate() {
        for (bi, block) in f.blocks.iter().enumerate() {
            code[fi] += block_size(block, relaxed.get(&(fi, bi)), forms.get(&(fi, bi)).copied());
        }
    }
    let input_code = input_code_sizes(program);
    let mut at = program.text.address;
    if n > 0 {
        // The first unit starts where .text does: nothing in front of it can absorb a change.
        let unit = Unit::starting_at(program, 0);
        let pad = unit.padding(program, &code, at)?;
        if pad != 0 {
            return Err(unit.misaligned(program));
        }
    }
    for (fi, f) in program.functions.iter().enumerate() {
        let mut starts = Vec::with_capacity(f.blocks.len());
        for (bi, block) in f.blocks.iter().enumerate() {
            starts.push(at);
            at += block_size(block, relaxed.get(&(fi, bi)), forms.get(&(fi, bi)).copied());
        }
        p.block.push(starts);
        p.code_end[fi] = at;
        let pad = if fi + 1 == n {
            f.padding.bytes
        } else if falls_into_next(program, fi) {
            // Inside a unit: the next function's code follows at once, as in the input.
            0
        } else {
            let unit = Unit::starting_at(program, fi + 1);
            let old_code_end = f.end - f.padding.bytes;
            let old_minimal = unit.minimal_padding(program, &input_code, old_code_end).unwrap_or(0);
            let extra = f.padding.bytes.saturating_sub(old_minimal);
            unit.padding(program, &code, at)? + extra
        };
        p.padding[fi] = pad;
        at += pad;
    }
    p.text_len = at - program.text.address;
    Ok(p)
}

/// True if control runs from the end of function `fi`'s code into function `fi + 1`.
fn falls_into_next(program: &Program, fi: usize) -> bool {
    let f = &program.functions[fi];
    fi + 1 < program.functions.len() && f.blocks.last().and_then(|b| b.nodes.last()).is_some_and(|n| n.flow.falls_through())
}

/// Bytes of each function's code in the input (its padding not counted).
fn input_code_sizes(program: &Program) -> Vec<u64> {
    program.functions.iter().map(|f| f.end - f.padding.bytes - f.entry).collect()
}

/// Functions `first..=last`, each of which but the last falls through into the next: they are
/// placed together, with no padding in between.
#[derive(Clone, Copy, Debug)]
struct Unit {
    first: usize,
    last: usize,
}

impl Unit {
    fn starting_at(program: &Program, first: usize) -> Unit {
        let mut last = first;
        while falls_into_next(program, last) {
            last += 1;
        }
        Unit { first, last }
    }

    /// The entry alignment a member keeps: its kind's, where the input had it (an entry the
    /// input did not align needs instruction alignment only).
    fn alignment(program: &Program, fi: usize) -> u64 {
        let f = &program.functions[fi];
        match f.kind.entry_alignment() {
            a if f.entry % a == 0 => a,
            _ => 4,
        }
    }

    /// The least padding in front of the unit, placed after `at`, that aligns every member's
    /// entry when the members' code is `code` bytes long; `None` if no padding does (two
    /// aligned entries whose distance no longer agrees with their alignments).
    fn minimal_padding(self, program: &Program, code: &[u64], at: u64) -> Option<u64> {
        let mut offset = 0u64;
        let mut members = Vec::with_capacity(self.last - self.first + 1);
        for fi in self.first..=self.last {
            members.push((offset, Unit::alignment(program, fi)));
            offset += code[fi];
        }
        // Alignments are powers of two: the strictest decides, the others must then agree.
        let &(strictest_offset, strictest) = members.iter().max_by_key(|&&(_, a)| a)?;
        let start = (at + strictest_offset).next_multiple_of(strictest) - strictest_offset;
        members.iter().all(|&(o, a)| (start + o) % a == 0).then_some(start - at)
    }

    fn padding(self, program: &Program, code: &[u64], at: u64) -> Result<u64, LayoutError> {
        self.minimal_padding(program, code, at).ok_or_else(|| self.misaligned(program))
    }

    fn misaligned(self, program: &Program) -> LayoutError {
        let (aligned, falling) = (self.first..=self.last)
            .rev()
            .find(|&fi| fi > self.first && Unit::alignment(program, fi) > 4)
            .map_or((self.last, self.last.saturating_sub(1)), |fi| (fi, fi - 1));
        LayoutError::FallsThrough {
            function: program.functions[falling].name.clone(),
            next: program.functions[aligned].name.clone(),
            alignment: Unit::alignment(program, aligned),
        }
    }
}

/// Output address of a branch target.
fn target_address(program: &Program, p: &Placement, fi: usize, t: BranchTarget, node: &crate::ir::Node, at: u64) -> Result<u64, LayoutError> {
    match t {
        BranchTarget::Block(b) => Ok(p.block[fi][b]),
        BranchTarget::Address(a) => program
            .function_at(a)
            .and_then(|g| program.functions[g].block_at(a).map(|b| p.block[g][b]))
            .ok_or_else(|| LayoutError::BranchTarget {
                function: program.functions[fi].name.clone(),
                address: node.origin.input_address().unwrap_or(at),
                target: a,
            }),
    }
}

/// The SOPP dword offset from `at` to `target`, if it fits 16 bits.
fn branch_offset(at: u64, target: u64) -> Option<i64> {
    let delta = target as i64 - (at as i64 + 4);
    (delta % 4 == 0 && i16::try_from(delta / 4).is_ok()).then_some(delta / 4)
}

fn current_offset(inst: &Inst) -> Option<i64> {
    let e = inst.encoding()?;
    let i = crate::ir::flow::branch_operand(e)?;
    Some(i64::from(crate::isa::table::extract(e.fields[i], inst.encoded_bits()) as u16 as i16))
}

fn inverse(opcode: Opcode) -> Option<Opcode> {
    use Opcode as O;
    Some(match opcode {
        O::S_CBRANCH_SCC0 => O::S_CBRANCH_SCC1,
        O::S_CBRANCH_SCC1 => O::S_CBRANCH_SCC0,
        O::S_CBRANCH_VCCZ => O::S_CBRANCH_VCCNZ,
        O::S_CBRANCH_VCCNZ => O::S_CBRANCH_VCCZ,
        O::S_CBRANCH_EXECZ => O::S_CBRANCH_EXECNZ,
        O::S_CBRANCH_EXECNZ => O::S_CBRANCH_EXECZ,
        _ => return None,
    })
}

/// Plans the relaxation of the branch ending block `bi` of function `fi`: proves an SGPR pair
/// and SCC dead at the target.
fn relaxation(program: &Program, fi: usize, bi: usize, t: BranchTarget, cache: &mut HashMap<usize, Liveness>) -> Result<Relax, LayoutError> {
    let f = &program.functions[fi];
    let node = f.blocks[bi].nodes.last().unwrap();
    let address = node.origin.input_address().unwrap_or(f.blocks[bi].address);
    let refuse = |why: String| LayoutError::BranchOutOfRange { function: f.name.clone(), address, why };
    if f.opaque.is_some() {
        return Err(refuse("the function is opaque".into()));
    }
    let inverse = match node.flow {
        Flow::Branch(_) => None,
        _ => {
            let opcode = node.inst.encoding().map(|e| e.opcode);
            Some(opcode.and_then(inverse).ok_or_else(|| refuse("the condition has no inverse branch".into()))?)
        }
    };
    let BranchTarget::Block(target) = t else {
        return Err(refuse("the target is in another function, where no register is proven dead".into()));
    };
    let target_ = program.target;
    let live = cache.entry(fi).or_insert_with(|| Liveness::compute(f, &target_)).live_in[target];
    if live.contains(unit::SCC) {
        return Err(refuse("SCC is live at the target and the long form writes it".into()));
    }
    let used = max_sgpr_used(f, &program.target);
    (0..used.saturating_sub(1) as u16)
        .step_by(2)
        .find(|&s| !live.contains(s as usize) && !live.contains(s as usize + 1))
        .map(|sgpr| Relax { sgpr, inverse })
        .ok_or_else(|| refuse(format!("no SGPR pair below s{used} is dead at the target")))
}

/// One past the highest SGPR the function reads or writes.
fn max_sgpr_used(f: &Function, target: &crate::isa::Target) -> u32 {
    let mut max = 0;
    for node in f.nodes() {
        let touched = liveness::operand_units(&node.inst, target);
        if let Some(u) = touched.units().take_while(|&u| u < unit::SGPRS).last() {
            max = max.max(u as u32 + 1);
        }
    }
    max
}

/// The long form of a branch at `at` to `target`.
fn long_branch(asm: &mut Builder, node: &crate::ir::Node, r: &Relax, at: u64, target: u64) -> Result<Vec<u8>, LayoutError> {
    use OperandName as N;
    let fail = |what| LayoutError::Encode { address: at, what };
    let mut out = Vec::with_capacity(28);
    let mut getpc_at = at;
    if let Some(inverse) = r.inverse {
        let skip = asm.build(inverse, &[(N::simm16, Value::Imm(LONG_BRANCH_BYTES as i64 / 4))]).ok_or(fail("inverse branch"))?;
        out.extend(skip.bytes());
        getpc_at += 4;
    }
    let _ = node;
    let offset = target.wrapping_sub(getpc_at + 4) as i64;
    let (lo, hi) = (offset as u32, (offset >> 32) as u32);
    let sgpr = |index: u16, count: u8| Value::Reg(Reg::Sgpr { index, count });
    let (pair, lo_half, hi_half) = (sgpr(r.sgpr, 2), sgpr(r.sgpr, 1), sgpr(r.sgpr + 1, 1));
    let seq = [
        asm.build(Opcode::S_GETPC_B64, &[(N::sdst, pair)]).ok_or(fail("s_getpc_b64"))?,
        asm.build(Opcode::S_ADD_U32, &[(N::sdst, lo_half), (N::src0, lo_half), (N::src1, Value::Literal(lo))]).ok_or(fail("s_add_u32"))?,
        asm.build(Opcode::S_ADDC_U32, &[(N::sdst, hi_half), (N::src0, hi_half), (N::src1, Value::Literal(hi))]).ok_or(fail("s_addc_u32"))?,
        asm.build(Opcode::S_SETPC_B64, &[(N::src0, pair)]).ok_or(fail("s_setpc_b64"))?,
    ];
    for i in seq {
        out.extend(i.bytes());
    }
    Ok(out)
}

/// `inst` with its branch-target operand set to `offset` dwords; `None` if it has none or the
/// offset does not fit 16 bits.
fn with_branch_offset(asm: &Builder, inst: &Inst, offset: i64) -> Option<Inst> {
    let e = inst.encoding()?;
    let name = e.operands[crate::ir::flow::branch_operand(e)?].name;
    // The field decodes as its raw 16 bits.
    let offset = i16::try_from(offset).ok()?;
    asm.with_operands(inst, &[(name, Value::Imm(i64::from(offset as u16)))])
}

/// `s_add_pc_i64` `inst` with `offset` in `form` (source 0 and its literal); `None` if the
/// offset does not fit the form or the result does not read back as it.
fn with_add_pc_offset(asm: &Builder, inst: &Inst, form: AddPcForm, offset: i64) -> Option<Inst> {
    if inst.encoding()?.opcode != Opcode::S_ADD_PC_I64 || !form.fits(offset) {
        return None;
    }
    let value = match form {
        AddPcForm::Inline => Value::InlineInt(offset),
        AddPcForm::Literal32 => Value::Literal(offset as u32),
        AddPcForm::Literal64 => Value::Literal64(offset as u64),
    };
    let new = asm.with_operands(inst, &[(OperandName::src0, value)])?;
    (new.len() as u64 == form.size() && add_pc_operand(&new) == AddPcOperand::Constant(offset, form)).then_some(new)
}

/// `inst` with its one literal constant replaced by `literal` of the same width (a 32-bit
/// `Value::Literal` or a 64-bit `Value::Literal64`); the instruction keeps its length.
fn with_literal(asm: &Builder, inst: &Inst, literal: Value) -> Option<Inst> {
    let ops = crate::isa::encode::build::operands(inst, asm.target())?;
    let mut literals = ops.as_slice().iter().filter(|o| matches!(o.value, Value::Literal(_) | Value::Literal64(_)));
    let (op, None) = (literals.next()?, literals.next()) else { return None };
    if std::mem::discriminant(&op.value) != std::mem::discriminant(&literal) {
        return None;
    }
    let new = asm.with_operands(inst, &[(op.name, literal)])?;
    (new.len() == inst.len()).then_some(new)
}

/// Re-aims one PC-relative chain: its constants become `new target - (new getpc + 4)`.
fn re_aim(program: &Program, f: &Function, c: &PcRel, layout: &Layout, text_shift: u64, asm: &Builder, overrides: &mut HashMap<u64, Inst>) -> Result<(), LayoutError> {
    let fail = |why: String| LayoutError::PcRel { function: f.name.clone(), address: c.getpc, why };
    let find = |a: u64| f.nodes().find(|n| n.origin == Origin::Input(a)).map(|n| n.inst);
    let (Some(_), Some(lo_inst), Some(hi_inst)) = (find(c.getpc), find(c.add_lo), find(c.add_hi)) else {
        return Err(fail("an instruction of the chain was edited".into()));
    };
    let getpc = layout.placed(c.getpc).ok_or_else(|| fail("s_getpc_b64 not placed".into()))?;
    let text = &program.text;
    let target = if text.contains(c.target) {
        layout.map(c.target).ok_or_else(|| fail(format!("target {:#x} is not an instruction start", c.target)))?
    } else if c.target >= text.end() {
        c.target.wrapping_add(text_shift)
    } else {
        c.target
    };
    let offset = target.wrapping_sub(getpc + 4);
    if c.is_wide() {
        // One s_add_nc_u64: a 64-bit literal, or a 32-bit one for values both extensions agree on.
        use crate::isa::operand::Value as V;
        let (_, ops) = liveness::operands(&lo_inst, &program.target).ok_or_else(|| fail("undecodable add".into()))?;
        let current = [ops.value(OperandName::src0), ops.value(OperandName::src1)].into_iter().find_map(|v| match v {
            Some(V::Literal64(x)) => Some((x, Some(8))),
            Some(V::Literal(x)) => Some((u64::from(x), Some(4))),
            Some(V::InlineInt(x)) => Some((x as u64, None)),
            _ => None,
        });
        let new = match current {
            Some((x, _)) if x == offset => None,
            Some((_, Some(8))) => Some(with_literal(asm, &lo_inst, Value::Literal64(offset))),
            Some((_, Some(4))) if offset >> 31 == 0 => Some(with_literal(asm, &lo_inst, Value::Literal(offset as u32))),
            _ => Some(None),
        };
        match new {
            None => {}
            Some(Some(inst)) => {
                overrides.insert(c.add_lo, inst);
            }
            Some(None) => return Err(fail(format!("the new constant {offset:#x} does not fit the operand of the s_add_nc_u64 at {:#x}", c.add_lo))),
        }
        return Ok(());
    }
    for (inst, value, at) in [(lo_inst, offset as u32, c.add_lo), (hi_inst, (offset >> 32) as u32, c.add_hi)] {
        let (_, ops) = liveness::operands(&inst, &program.target).ok_or_else(|| fail("undecodable add".into()))?;
        let current = [ops.value(OperandName::src0), ops.value(OperandName::src1)].into_iter().find_map(|v| match v {
            Some(crate::isa::operand::Value::Literal(x)) => Some((x, true)),
            Some(crate::isa::operand::Value::InlineInt(x)) => Some((x as u32, false)),
            _ => None,
        });
        match current {
            Some((x, _)) if x == value => {}
            Some((_, true)) => {
                let new = with_literal(asm, &inst, Value::Literal(value)).ok_or_else(|| fail("literal does not re-encode".into()))?;
                overrides.insert(at, new);
            }
            _ => return Err(fail(format!("the new constant {value:#x} does not fit the inline operand at {at:#x}"))),
        }
    }
    Ok(())
}

/// Re-aims the moves that set the SGPR pair of a proven `s_add_pc_i64 s[N:N+1]`: the pair becomes
/// `new target - (new s_add_pc_i64 + its size)`. A changed value needs the pair dead at the
/// target (nothing else may see the new constant) and literal operands to hold it.
fn re_aim_pair(
    program: &Program,
    fi: usize,
    pair: &AddPcPair,
    layout: &Layout,
    asm: &Builder,
    cache: &mut HashMap<usize, Liveness>,
    overrides: &mut HashMap<u64, Inst>,
) -> Result<(), LayoutError> {
    let f = &program.functions[fi];
    let fail = |why: String| LayoutError::PcRel { function: f.name.clone(), address: pair.add_pc, why };
    let find = |a: u64| f.nodes().find(|n| n.origin == Origin::Input(a)).map(|n| n.inst);
    let at = layout.placed(pair.add_pc).ok_or_else(|| fail("s_add_pc_i64 not placed".into()))?;
    let target = layout.map(pair.target).ok_or_else(|| fail(format!("target {:#x} is not an instruction start", pair.target)))?;
    let value = target.wrapping_sub(at + pair.len);
    if value == pair.target.wrapping_sub(pair.add_pc + pair.len) {
        return Ok(());
    }
    let block = f.block_at(pair.target).ok_or_else(|| fail(format!("target {:#x} is not a block of {}", pair.target, f.name)))?;
    let target_ = program.target;
    let live = cache.entry(fi).or_insert_with(|| Liveness::compute(f, &target_)).live_in[block];
    if live.contains(pair.sgpr as usize) || live.contains(pair.sgpr as usize + 1) {
        return Err(fail(format!("s[{}:{}] is read after the jump, so its constant may not change", pair.sgpr, pair.sgpr + 1)));
    }
    let parts: Vec<(u64, u64)> = match pair.hi {
        Some(hi) => vec![(pair.lo, value & 0xffff_ffff), (hi, value >> 32)],
        None => vec![(pair.lo, value)],
    };
    for (address, new) in parts {
        let inst = find(address).ok_or_else(|| fail(format!("the move at {address:#x} was edited")))?;
        let (_, ops) = liveness::operands(&inst, &program.target).ok_or_else(|| fail("undecodable move".into()))?;
        let wide = pair.hi.is_none();
        use crate::isa::operand::Value as V;
        let current = match ops.value(OperandName::src0) {
            Some(V::Literal(x)) => Some(u64::from(x)),
            Some(V::Literal64(x)) => Some(x),
            Some(V::InlineInt(x)) if wide => Some(x as u64),
            Some(V::InlineInt(x)) => Some(u64::from(x as u32)),
            _ => None,
        };
        if current == Some(new) {
            continue;
        }
        let replaced = match ops.value(OperandName::src0) {
            // A 32-bit literal of s_mov_b64 is used only for values both extensions agree on.
            Some(V::Literal(_)) if !wide || new >> 31 == 0 => with_literal(asm, &inst, V::Literal(new as u32)),
            Some(V::Literal64(_)) => with_literal(asm, &inst, V::Literal64(new)),
            _ => None,
        };
        let r = replaced.ok_or_else(|| fail(format!("the new constant {new:#x} does not fit the operand of the move at {address:#x}")))?;
        overrides.insert(address, r);
    }
    Ok(())
}

/// Registers used by each kernel whose code (or a callee's) changed.
fn register_use(program: &Program, relaxed: &HashMap<(usize, usize), Relax>) -> Vec<RegisterUse> {
    let changed: HashSet<usize> = program
        .functions
        .iter()
        .enumerate()
        .filter(|(fi, f)| !f.edits.is_empty() || relaxed.keys().any(|(g, _)| g == fi))
        .map(|(fi, _)| fi)
        .collect();
    if changed.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut cache = RegisterCache::default();
    for (ki, k) in program.functions.iter().enumerate().filter(|(_, f)| f.kind == FunctionKind::Kernel) {
        // The kernel and every function it reaches through direct calls.
        let mut reach = vec![ki];
        let mut seen: HashSet<usize> = reach.iter().copied().collect();
        while let Some(fi) = reach.pop() {
            for n in program.functions[fi].nodes() {
                if let Flow::Call(Some(t)) = n.flow
                    && let Some(g) = program.function_at(t)
                    && seen.insert(g)
                {
                    reach.push(g);
                }
            }
        }
        if !seen.iter().any(|f| changed.contains(f)) {
            continue;
        }
        let mut used = registers_of(program, &k.name, &seen, &mut cache);
        for ((g, _), r) in relaxed {
            if seen.contains(g) {
                used.sgprs = used.sgprs.max(u32::from(r.sgpr) + 2);
            }
        }
        out.push(used);
    }
    out
}

/// Registers each kernel's own code uses, as the program stands (no edit laid out): what
/// [`Layout::registers`] compares with, for a rewrite that may lower counts (see
/// `rewrite::writer::lowerings`). Kernels that call are counted without their callees.
pub fn kernel_registers(program: &Program) -> Vec<RegisterUse> {
    let mut cache = RegisterCache::default();
    program
        .functions
        .iter()
        .enumerate()
        .filter(|(_, f)| f.kind == FunctionKind::Kernel)
        .map(|(ki, k)| registers_of(program, &k.name, &HashSet::from([ki]), &mut cache))
        .collect()
}

/// An instruction as a hash key: its words (equal instructions have equal words).
#[derive(PartialEq, Eq)]
struct InstKey(Inst);

impl std::hash::Hash for InstKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.words().hash(state);
    }
}

/// Registers by instruction, hashed with [`WordsHasher`].
type RegisterCache = HashMap<InstKey, [u32; 3], std::hash::BuildHasherDefault<WordsHasher>>;

/// A multiply-rotate hasher (FxHash's) for [`InstKey`]s, which are a few dwords from our own
/// program, not from an adversary: SipHash over every node of the changed kernels was more
/// than half of [`registers_of`].
#[derive(Default)]
struct WordsHasher(u64);

impl WordsHasher {
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl std::hash::Hasher for WordsHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(4) {
            let mut word = [0u8; 4];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from(u32::from_le_bytes(word)));
        }
    }

    fn write_u32(&mut self, x: u32) {
        self.add(u64::from(x));
    }

    fn write_usize(&mut self, x: usize) {
        self.add(x as u64);
    }

    /// The product's high bits mix every input bit; the table indexes by the low ones.
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
}

/// The highest registers the functions `functions` use, under `kernel`'s name. Each distinct
/// instruction's registers are decoded once and kept in `seen`: kernels repeat the same
/// instructions, and decoding the operands of every one again was most of the layout of a
/// large object.
fn registers_of(program: &Program, kernel: &str, functions: &HashSet<usize>, seen: &mut RegisterCache) -> RegisterUse {
    let mut used = [0u32; 3];
    for &fi in functions {
        for n in program.functions[fi].nodes() {
            let top = *seen.entry(InstKey(n.inst)).or_insert_with(|| instruction_registers(&n.inst, program));
            for (u, t) in used.iter_mut().zip(top) {
                *u = (*u).max(t);
            }
        }
    }
    let [sgprs, vgprs, agprs] = used;
    RegisterUse { kernel: kernel.to_owned(), sgprs, vgprs, agprs }
}

/// Highest SGPR, VGPR and AGPR `inst` names, each + 1 (0 if none): the maxima of
/// [`liveness::operand_units`] per register file.
fn instruction_registers(inst: &Inst, program: &Program) -> [u32; 3] {
    let mut used = [0u32; 3];
    let Some((_, ops)) = liveness::operands(inst, &program.target) else { return used };
    for op in ops.as_slice() {
        let Value::Reg(reg) = op.value else { continue };
        let Some((first, count)) = liveness::reg_units(reg).filter(|&(_, n)| n > 0) else { continue };
        // The highest unit of the range: a range never leaves its register file (`reg_units`
        // keeps it within the file's limit), so this is the file's maximum of the units
        // `operand_units` would set, without building the set.
        let top = (first + count) as u32;
        match first {
            u if u < unit::SGPRS => used[0] = used[0].max(top),
            u if (unit::VGPR0..unit::AGPR0).contains(&u) => used[1] = used[1].max(top - unit::VGPR0 as u32),
            u if (unit::AGPR0..unit::COUNT).contains(&u) => used[2] = used[2].max(top - unit::AGPR0 as u32),
            _ => {}
        }
    }
    used
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Target;

    #[test]
    fn merge_sorted_is_append_then_sort() {
        let a = vec![(0x100u64, 0x100u64), (0x104, 0x10c), (0x110, 0x118), (0x120, 0x120)];
        for b in [vec![], vec![(0x0, 0x0)], vec![(0x108, 0x10c), (0x10c, 0x110)], vec![(0x104, 0x104), (0x130, 0x140)]] {
            let mut expected = [a.clone(), b.clone()].concat();
            expected.sort_unstable();
            let mut merged = a.clone();
            merged.reserve(b.len());
            merge_sorted(&mut merged, &b);
            assert_eq!(merged, expected);
        }
        // Ties and runs on either side, at either end, against a sort of the concatenation.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % 8
        };
        for _ in 0..2000 {
            let mut a: Vec<(u64, u64)> = (0..next() * 2).map(|_| (next(), next() % 2)).collect();
            let mut b: Vec<(u64, u64)> = (0..next()).map(|_| (next(), next() % 2)).collect();
            a.sort_unstable();
            b.sort_unstable();
            let mut expected = [a.clone(), b.clone()].concat();
            expected.sort_unstable();
            merge_sorted(&mut a, &b);
            assert_eq!(a, expected);
        }
    }

    /// The order noted while pushing is what `is_sorted` finds after.
    #[test]
    fn pushing_notes_the_order() {
        for pairs in [vec![], vec![(1, 1)], vec![(1, 1), (1, 1), (2, 0)], vec![(1, 2), (1, 1)], vec![(1, 1), (3, 0), (2, 5)]] {
            let (mut v, mut sorted) = (Vec::new(), true);
            for &p in &pairs {
                push_noting_order(&mut v, p, &mut sorted);
            }
            assert_eq!(sorted, pairs.is_sorted(), "{pairs:?}");
        }
    }

    #[test]
    fn branch_offsets_re_encode_in_place() {
        let a = Builder::new(Target::from_name("gfx900", "").unwrap());
        // s_cbranch_scc1 with offset 3 (llvm-mc: 0xbf850003).
        let inst = a.decode(&0xbf85_0003u32.to_le_bytes());
        let moved = with_branch_offset(&a, &inst, -2).unwrap();
        assert_eq!(moved.words(), [0xbf85_fffe]);
        assert!(with_branch_offset(&a, &inst, 40000).is_none());
    }

    /// `s_add_pc_i64` in each form, bytes as LLVM 22's gfx1250 vectors have them
    /// (gfx1250_asm_sop1.s: `s_add_pc_i64 4` = 84 4b 80 be, `0x64` = ff 4b 80 be 64 00 00 00,
    /// `0x12345678abcd0` = fe 4b 80 be d0 bc 8a 67 45 23 01 00).
    #[test]
    fn add_pc_offsets_re_encode_in_each_form() {
        let a = Builder::new(Target::from_name("gfx1250", "").unwrap());
        let inst = a.decode(&[0x84, 0x4b, 0x80, 0xbe]);
        assert_eq!(add_pc_operand(&inst), AddPcOperand::Constant(4, AddPcForm::Inline));
        let cases: [(AddPcForm, i64, &[u8]); 5] = [
            (AddPcForm::Inline, 4, &[0x84, 0x4b, 0x80, 0xbe]),
            (AddPcForm::Inline, -16, &[0xd0, 0x4b, 0x80, 0xbe]),
            (AddPcForm::Literal32, 0x64, &[0xff, 0x4b, 0x80, 0xbe, 0x64, 0, 0, 0]),
            (AddPcForm::Literal64, 0x12345678abcd0, &[0xfe, 0x4b, 0x80, 0xbe, 0xd0, 0xbc, 0x8a, 0x67, 0x45, 0x23, 0x01, 0x00]),
            (AddPcForm::Literal64, -32, &[0xfe, 0x4b, 0x80, 0xbe, 0xe0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
        ];
        for (form, offset, bytes) in cases {
            let new = with_add_pc_offset(&a, &inst, form, offset).unwrap_or_else(|| panic!("{form:?} {offset}"));
            assert_eq!(new.bytes(), bytes, "{form:?} {offset}");
            assert_eq!(add_pc_operand(&new), AddPcOperand::Constant(offset, form));
        }
        // Offsets a form cannot hold unambiguously are refused, never truncated.
        assert!(with_add_pc_offset(&a, &inst, AddPcForm::Inline, 65).is_none());
        assert!(with_add_pc_offset(&a, &inst, AddPcForm::Inline, -17).is_none());
        assert!(with_add_pc_offset(&a, &inst, AddPcForm::Literal32, -4).is_none());
        assert!(with_add_pc_offset(&a, &inst, AddPcForm::Literal32, 1 << 31).is_none());
        // A 32-bit literal with bit 31 set, or an inline float, is not read as an offset.
        let high = a.decode(&[0xff, 0x4b, 0x80, 0xbe, 0, 0, 0, 0x80]);
        assert!(matches!(add_pc_operand(&high), AddPcOperand::Ambiguous(_)));
        let float = a.decode(&[0xf2, 0x4b, 0x80, 0xbe]);
        assert!(matches!(add_pc_operand(&float), AddPcOperand::Ambiguous(_)));
        assert_eq!(add_pc_operand(&a.decode(&[0x02, 0x4b, 0x80, 0xbe])), AddPcOperand::Register);
    }

    /// A literal re-aimed keeps its width: `s_add_u32 s4, s4, 0x1234` (gfx900, llvm-mc:
    /// 04 ff 04 80 34 12 00 00) takes a new dword in place, even one an inline constant could
    /// hold, and a 64-bit literal is not put where a 32-bit one was.
    #[test]
    fn literals_re_aim_in_place() {
        let a = Builder::new(Target::from_name("gfx900", "").unwrap());
        let inst = a.decode(&[0x04, 0xff, 0x04, 0x80, 0x34, 0x12, 0x00, 0x00]);
        let new = with_literal(&a, &inst, Value::Literal(0xdead_beef)).unwrap();
        assert_eq!(new.bytes(), [0x04, 0xff, 0x04, 0x80, 0xef, 0xbe, 0xad, 0xde]);
        let small = with_literal(&a, &inst, Value::Literal(4)).unwrap();
        assert_eq!(small.bytes(), [0x04, 0xff, 0x04, 0x80, 4, 0, 0, 0]);
        assert!(with_literal(&a, &inst, Value::Literal64(4)).is_none());
    }
}
