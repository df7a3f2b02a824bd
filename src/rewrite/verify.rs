//! Checking a rewritten code object: `gfxpatch verify FILE`, and after every rewrite.
//!
//! [`structure`] re-reads an object on its own: every function decodes, every direct branch
//! and call lands on an instruction start, every kernel entry is a 256-byte aligned function
//! start, and descriptors agree with the metadata. [`against`] also compares the output with
//! its input: the instruction stream must equal the input's except at the recorded edits;
//! branches and PC-relative constants must reach what they reached before, as the address map
//! says; the text must be covered exactly, with only filler between functions.

use std::collections::{HashMap, HashSet};

use crate::container::descriptor::disagreements;
use crate::container::CodeObject;
use crate::ir::flow::{self, classify, Kind};
use crate::ir::{Flow, Node, Origin, Program};
use crate::isa::operand::Value;
use crate::isa::table::{Opcode, OperandName};
use crate::isa::inst::MAX_INST_BYTES;
use crate::isa::{Decoder, Decoders, Inst};
use crate::layout::Layout;

use super::read_program_with;

/// What [`structure`] found in a sound object.
#[derive(Debug, Default, serde::Serialize)]
pub struct Summary {
    pub functions: usize,
    pub kernels: usize,
    pub instructions: usize,
    /// `name: reason` of each opaque function.
    pub opaque: Vec<String>,
    /// Descriptor/metadata disagreements (also reported by `gfxpatch info`).
    pub disagreements: Vec<String>,
}

/// Checks one object on its own; `Err` lists every problem.
pub fn structure(data: &[u8]) -> Result<Summary, Vec<String>> {
    structure_with(data, &mut Decoders::default())
}

/// [`structure`] with the decoder `decoders` holds for the object's target.
pub fn structure_with(data: &[u8], decoders: &mut Decoders) -> Result<Summary, Vec<String>> {
    let object = CodeObject::parse(data).map_err(|e| vec![e.to_string()])?;
    structure_of_object(&object, decoders)
}

/// [`structure_with`] of an object already parsed.
fn structure_of_object(object: &CodeObject<'_>, decoders: &mut Decoders) -> Result<Summary, Vec<String>> {
    let program = read_program_with(object, decoders).map_err(|e| vec![e.to_string()])?.map_err(|e| vec![e.to_string()])?;
    structure_of(object, &program)
}

/// [`structure`] of an object already read: `program` as read from `object`, before any pass
/// edited it. The rewrite takes the input's summary this way from the program it builds
/// anyway, for [`against`], instead of reading the input a second time.
pub fn structure_of(object: &CodeObject<'_>, program: &Program) -> Result<Summary, Vec<String>> {
    let mut problems = Vec::new();
    let starts = Starts(program);
    for (fi, f) in program.functions.iter().enumerate() {
        // As read, an instruction that branches, calls or adds to the PC has a flow other
        // than `Next` (`Program::build` gives each kind its flow): only those are classified.
        for n in f.nodes().filter(|n| n.flow != Flow::Next) {
            let Some(a) = n.origin.input_address() else { continue };
            if let Kind::Branch(t) | Kind::CondBranch(t) | Kind::DirectCall(t) | Kind::AddPc(t) = classify(&n.inst, a)
                && !starts.contains_near(fi, t)
            {
                problems.push(format!("{}: branch at {a:#x} to {t:#x}, which is not an instruction start", f.name));
            }
        }
        for p in &f.add_pc_pairs {
            if !starts.contains(p.target) {
                problems.push(format!("{}: s_add_pc_i64 at {:#x} to {:#x}, which is not an instruction start", f.name, p.add_pc, p.target));
            }
        }
    }
    let generation = program.target.generation();
    let mut summary = Summary { functions: program.functions.len(), instructions: program.instruction_count(), ..Summary::default() };
    for k in &object.kernels {
        summary.kernels += 1;
        if k.entry_address % 256 != 0 {
            problems.push(format!("kernel {}: entry {:#x} is not 256-byte aligned", k.name, k.entry_address));
        }
        if !program.functions.iter().any(|f| f.entry == k.entry_address) {
            problems.push(format!("kernel {}: entry {:#x} is no function start", k.name, k.entry_address));
        }
        let default = Default::default();
        let meta = object.metadata.as_ref().and_then(|m| m.kernel(k.name)).unwrap_or(&default);
        for d in disagreements(&k.descriptor, meta, &k.descriptor.registers(generation)) {
            summary.disagreements.push(format!("{}: {d}", k.name));
        }
    }
    for s in &object.shaders {
        summary.kernels += 1;
        if s.entry_address % 256 != 0 {
            problems.push(format!("{} shader {}: entry {:#x} is not 256-byte aligned", s.stage, s.name, s.entry_address));
        }
        if !program.functions.iter().any(|f| f.entry == s.entry_address) {
            problems.push(format!("{} shader {}: entry {:#x} is no function start", s.stage, s.name, s.entry_address));
        }
        for d in crate::container::graphics::disagreements(s, generation) {
            summary.disagreements.push(format!("{}: {d}", s.name));
        }
    }
    summary.opaque = program.functions.iter().filter_map(|f| f.opaque.as_ref().map(|o| format!("{}: {}", f.name, o.reason))).collect();
    if problems.is_empty() { Ok(summary) } else { Err(problems) }
}

/// The instruction starts of a program as read: its nodes are in address order, each
/// function's within its bytes and each block's from the block's address, so an address is
/// found by bisection over functions, blocks and nodes, with nothing collected (the program
/// holds tens of millions of instructions in a large library).
struct Starts<'p>(&'p Program);

impl Starts<'_> {
    fn contains(&self, address: u64) -> bool {
        self.0.function_at(address).is_some_and(|f| self.contains_in(f, address))
    }

    /// [`Starts::contains`], looking in function `near` first: most branches stay in their
    /// function.
    fn contains_near(&self, near: usize, address: u64) -> bool {
        let functions = &self.0.functions;
        // What `function_at` answers: the last function starting at or before `address`.
        let spans = functions[near].entry <= address && address < functions[near].end && functions.get(near + 1).is_none_or(|g| g.entry > address);
        if spans { self.contains_in(near, address) } else { self.contains(address) }
    }

    /// Whether `address` starts an instruction of function `f` (which spans it). A branch
    /// target as read starts its block: that node is looked at before bisecting.
    fn contains_in(&self, f: usize, address: u64) -> bool {
        let blocks = &self.0.functions[f].blocks;
        let b = blocks.partition_point(|b| b.address <= address);
        let Some(nodes) = b.checked_sub(1).map(|b| &blocks[b].nodes) else { return false };
        nodes.first().is_some_and(|n| n.origin.input_address() == Some(address))
            || nodes.binary_search_by_key(&Some(address), |n| n.origin.input_address()).is_ok()
    }
}

/// The instructions of a program as read, found by address: walking forward for addresses in
/// ascending order (the placed instructions come so, but for a few), by bisection otherwise.
struct Decoded<'p> {
    program: &'p Program,
    /// The block looked at (function, block), its nodes, and the next node to look at.
    function: usize,
    block: usize,
    nodes: &'p [Node],
    next: usize,
}

impl<'p> Decoded<'p> {
    fn new(program: &'p Program) -> Decoded<'p> {
        let mut decoded = Decoded { program, function: 0, block: 0, nodes: &[], next: 0 };
        decoded.enter(0, 0);
        decoded
    }

    /// Looks at the first node of block `block` of function `function`, or of the next block
    /// after it that has one; `false` past the end.
    fn enter(&mut self, mut function: usize, mut block: usize) -> bool {
        let functions = &self.program.functions;
        while let Some(f) = functions.get(function) {
            if let Some(b) = f.blocks.get(block) {
                (self.function, self.block, self.nodes, self.next) = (function, block, &b.nodes, 0);
                return true;
            }
            (function, block) = (function + 1, 0);
        }
        self.nodes = &[];
        false
    }

    /// The instruction the program holds at `address`, if one starts there.
    fn at(&mut self, address: u64) -> Option<Inst> {
        loop {
            let Some(node) = self.nodes.get(self.next) else {
                if self.enter(self.function, self.block + 1) {
                    continue;
                }
                return self.seek(address);
            };
            match node.origin.input_address() {
                Some(a) if a < address => self.next += 1,
                Some(a) if a == address => {
                    self.next += 1;
                    return Some(node.inst);
                }
                _ => return self.seek(address),
            }
        }
    }

    /// [`Decoded::at`] by bisection, leaving the walk after what it found.
    fn seek(&mut self, address: u64) -> Option<Inst> {
        let function = self.program.function_at(address)?;
        let blocks = &self.program.functions[function].blocks;
        let block = blocks.partition_point(|b| b.address <= address).checked_sub(1)?;
        let nodes = &blocks[block].nodes;
        let n = nodes.partition_point(|n| n.origin.input_address().is_some_and(|a| a < address));
        let node = nodes.get(n).filter(|n| n.origin.input_address() == Some(address))?;
        (self.function, self.block, self.nodes, self.next) = (function, block, nodes, n + 1);
        Some(node.inst)
    }
}

/// Values keyed by address, sorted (they come in address order: functions, blocks and nodes
/// are), looked up by bisection.
struct Sorted<T>(Vec<(u64, T)>);

impl<T> Sorted<T> {
    fn new(mut v: Vec<(u64, T)>) -> Sorted<T> {
        if !v.is_sorted_by_key(|&(a, _)| a) {
            v.sort_by_key(|&(a, _)| a);
        }
        Sorted(v)
    }

    /// The value at `address`, for lookups in (mostly) ascending order: `cursor` is where the
    /// previous lookup left off, so a miss, the common case, costs one comparison. A lookup
    /// below the cursor bisects afresh, so any order gives the right answer.
    fn get_ascending(&self, cursor: &mut usize, address: u64) -> Option<&T> {
        if *cursor > 0 && self.0[*cursor - 1].0 >= address {
            *cursor = self.0.partition_point(|&(a, _)| a < address);
        }
        while self.0.get(*cursor).is_some_and(|&(a, _)| a < address) {
            *cursor += 1;
        }
        self.0.get(*cursor).filter(|&&(a, _)| a == address).map(|(_, v)| v)
    }
}

/// The bytes a decode at `at` may read: decoding is a function of at most
/// [`MAX_INST_BYTES`] bytes at hand (`isa::decode`: the memo is used only with every byte a
/// decode may read at hand, and a shorter decode reads what there is), so two equal windows
/// decode to equal instructions.
fn window(bytes: &[u8], at: usize) -> &[u8] {
    &bytes[at..bytes.len().min(at + MAX_INST_BYTES)]
}

/// Whether the windows at `a` of `x` and at `b` of `y` are equal. Away from the ends both are
/// a full [`MAX_INST_BYTES`]: compared as two integers, a few loads rather than a `memcmp`
/// call per instruction (half a million of them on a large object).
fn same_window(x: &[u8], a: usize, y: &[u8], b: usize) -> bool {
    const _: () = assert!(MAX_INST_BYTES == 20, "same_window compares 16 + 4 bytes");
    let split = |w: &[u8; 20]| (u128::from_le_bytes(*w.first_chunk().unwrap()), u32::from_le_bytes(*w.last_chunk().unwrap()));
    match (x[a..].first_chunk::<MAX_INST_BYTES>(), y[b..].first_chunk::<MAX_INST_BYTES>()) {
        (Some(wx), Some(wy)) => split(wx) == split(wy),
        _ => window(x, a) == window(y, b),
    }
}

/// Checks `output`, the rewrite of `in_obj` by the edits in `program` laid out as `layout`,
/// decoding both with `decoders`. `input_structure` is [`structure_of`] the input (as
/// [`structure_with`] would find it).
pub fn against(
    in_obj: &CodeObject<'_>,
    input_structure: &Result<Summary, Vec<String>>,
    program: &Program,
    layout: &Layout,
    output: &[u8],
    decoders: &mut Decoders,
) -> Result<(), Vec<String>> {
    let before = input_structure.as_ref().map_err(|p| p.iter().map(|p| format!("input: {p}")).collect::<Vec<_>>())?;
    // The output is parsed once, for its structure and for the comparison below.
    let out_obj = CodeObject::parse(output).map_err(|e| vec![e.to_string()])?;
    let out_program = read_program_with(&out_obj, decoders).map_err(|e| vec![e.to_string()])?.map_err(|e| vec![e.to_string()])?;
    let after = structure_of(&out_obj, &out_program)?;
    let mut problems = Vec::new();
    for d in &after.disagreements {
        if !before.disagreements.contains(d) {
            problems.push(format!("new descriptor/metadata disagreement: {d}"));
        }
    }
    if after.opaque.len() > before.opaque.len() {
        problems.push(format!("{} opaque functions after, {} before", after.opaque.len(), before.opaque.len()));
    }
    let text = program.text;
    let Some(out_text) = out_obj.text_sections().next().copied() else {
        return Err(vec!["the output has no executable section".into()]);
    };
    if out_text.address != text.address {
        problems.push(format!("the text moved from {:#x} to {:#x}", text.address, out_text.address));
    }
    let in_bytes = &in_obj.data[text.file_offset as usize..(text.file_offset + text.size) as usize];
    let out_bytes = &output[out_text.offset as usize..(out_text.offset + out_text.size) as usize];
    let decoder = decoders.for_target(program.target);
    let decode_in = |a: u64| decoder.decode(&in_bytes[(a - text.address) as usize..]);
    let decode_out = |a: u64| -> Option<Inst> {
        let at = a.checked_sub(out_text.address)? as usize;
        (at < out_bytes.len()).then(|| decoder.decode(&out_bytes[at..]))
    };
    let map = |a: u64| layout.map(a);

    // Only the replaced instructions are looked up: every other input instruction must come
    // out as it went in (a copy of every node cost a fifth of the verifier on a large library).
    let replaced = Sorted::new(
        program
            .functions
            .iter()
            .flat_map(|f| f.nodes())
            .filter_map(|n| match n.origin {
                Origin::Replaced { address, .. } => Some((address, n.inst)),
                _ => None,
            })
            .collect(),
    );
    let mut chain_parts: HashSet<u64> = program.functions.iter().flat_map(|f| &f.pcrel).flat_map(|c| [c.add_lo, c.add_hi]).collect();
    chain_parts.extend(program.functions.iter().flat_map(|f| &f.add_pc_pairs).flat_map(|p| p.moves()));
    let relaxed: HashMap<u64, u64> = layout.relaxed.iter().map(|r| (r.address, r.new_address)).collect();
    // Output intervals accounted for.
    let mut covered: Vec<(u64, u64)> = Vec::new();

    let mut replaced_cursor = 0;
    // What the output's program (read above) decoded at each place: the same decode of the
    // same bytes, made once. Where it has no instruction at a place, the place is decoded.
    let mut decoded = Decoded::new(&out_program);
    for &(a, b) in &layout.placed {
        let Some(new) = decoded.at(b).or_else(|| decode_out(b)) else {
            problems.push(format!("{a:#x} placed at {b:#x}, outside the output text"));
            continue;
        };
        // Where the output holds the input's bytes (most instructions), the input's decode is
        // the output's (see `window`): one decode, not two, and the comparisons below then
        // compare what each side decoded to, as before.
        let same_bytes = same_window(out_bytes, (b - out_text.address) as usize, in_bytes, (a - text.address) as usize);
        let old = if same_bytes { new } else { decode_in(a) };
        let kind = classify(&old, a);
        if let Some(inst) = replaced.get_ascending(&mut replaced_cursor, a) {
            if new.words() != inst.words() {
                problems.push(format!("{a:#x} -> {b:#x}: not the replacement recorded"));
            }
            covered.push((b, new.len() as u64));
        } else if let (Kind::Branch(t) | Kind::CondBranch(t), Some(&at)) = (kind, relaxed.get(&a)) {
            match long_branch_target(&decoder, out_bytes, out_text.address, at, matches!(kind, Kind::CondBranch(_))) {
                Some((reached, len)) if Some(reached) == map(t) => covered.push((at, len)),
                other => problems.push(format!("relaxed branch {a:#x} -> {at:#x} reaches {other:x?}, expected {:x?}", map(t))),
            }
        } else if let Kind::Branch(t) | Kind::CondBranch(t) | Kind::AddPc(t) = kind {
            let reached = match (kind, classify(&new, b)) {
                (Kind::Branch(_), Kind::Branch(x)) | (Kind::CondBranch(_), Kind::CondBranch(x)) | (Kind::AddPc(_), Kind::AddPc(x)) => Some(x),
                _ => None,
            };
            if new.encoding_index() != old.encoding_index() || reached.is_none() || reached != map(t) {
                problems.push(format!("branch {a:#x} -> {b:#x}: reaches {reached:x?}, expected {:x?}", map(t)));
            }
            covered.push((b, new.len() as u64));
        } else if chain_parts.contains(&a) {
            if new.encoding_index() != old.encoding_index() || new.len() != old.len() {
                problems.push(format!("PC-relative add {a:#x} -> {b:#x} changed form"));
            }
            covered.push((b, new.len() as u64));
        } else {
            // Where the bytes are the same, `old` is `new`: nothing to compare.
            if !same_bytes && new.words() != old.words() {
                problems.push(format!("{a:#x} -> {b:#x}: instruction differs from the input and no edit says so"));
            }
            covered.push((b, new.len() as u64));
        }
    }
    for &(b, inst) in &layout.inserted {
        match decode_out(b) {
            Some(new) if new.words() == inst.words() => covered.push((b, new.len() as u64)),
            _ => problems.push(format!("inserted instruction at {b:#x} is not what was inserted")),
        }
    }

    // PC-relative chains compute what they computed before, moved as the address map and the
    // output's sections say.
    for f in &program.functions {
        for c in &f.pcrel {
            let expected = if text.contains(c.target) {
                map(c.target)
            } else {
                moved_data_address(in_obj, &out_obj, c.target)
            };
            let got = chain_value(&decoder, &layout.placed, out_bytes, out_text.address, c, &decode_out);
            if got.is_none() || got != expected {
                problems.push(format!("{}: PC-relative chain at {:#x} computes {got:x?}, expected {expected:x?}", f.name, c.getpc));
            }
        }
    }

    // `s_add_pc_i64 s[N:N+1]` after proven moves: the moved pair still reaches its target.
    for f in &program.functions {
        for p in &f.add_pc_pairs {
            let placed = |a: u64| layout.placed(a);
            let value = |a: u64| decode_out(placed(a)?).and_then(|i| pair_constant(&i, &program.target));
            let got = match p.hi {
                Some(hi) => value(p.lo).zip(value(hi)).map(|(l, h)| (h << 32) | (l & 0xffff_ffff)),
                None => value(p.lo),
            };
            let reached = placed(p.add_pc).zip(got).map(|(at, v)| (at + p.len).wrapping_add(v));
            if reached.is_none() || reached != map(p.target) {
                problems.push(format!("{}: s_add_pc_i64 at {:#x} reaches {reached:x?}, expected {:x?}", f.name, p.add_pc, map(p.target)));
            }
        }
    }

    // Coverage: intervals in order, gaps only filler. They came in input order, mostly
    // output order already (inserted code comes last): a stable sort merges such runs cheaply.
    covered.sort();
    let mut at = out_text.address;
    for &(start, len) in &covered {
        if start < at {
            problems.push(format!("output instructions overlap at {start:#x}"));
        }
        while at < start {
            match decode_out(at) {
                Some(i) if flow::is_filler(&i) => at += 4,
                _ => {
                    problems.push(format!("unaccounted bytes at {at:#x}"));
                    break;
                }
            }
        }
        at = at.max(start + len);
    }
    while at < out_text.address + out_text.size {
        match decode_out(at) {
            Some(i) if flow::is_filler(&i) => at += 4,
            _ => {
                problems.push(format!("unaccounted bytes at {at:#x} after the last instruction"));
                break;
            }
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(problems) }
}

/// Where data at input address `address` (outside the text) is in the output: same section,
/// same offset within it.
fn moved_data_address(input: &CodeObject<'_>, output: &CodeObject<'_>, address: u64) -> Option<u64> {
    if let Some(s) = input.section_containing(address) {
        let o = output.sections.iter().find(|o| o.name == s.name)?;
        return Some(o.address + (address - s.address));
    }
    // Past every allocated section (e.g. a symbol at the end): as the last one moved.
    let last = input.sections.iter().filter(|s| s.address != 0 && s.address <= address).max_by_key(|s| s.address)?;
    let o = output.sections.iter().find(|o| o.name == last.name)?;
    Some(o.address + (address - last.address))
}

fn constant_of(inst: &Inst, target: &crate::isa::Target) -> Option<u32> {
    let (_, ops) = crate::ir::liveness::operands(inst, target)?;
    [ops.value(OperandName::src0), ops.value(OperandName::src1)].into_iter().find_map(|v| match v {
        Some(Value::Literal(x)) => Some(x),
        Some(Value::InlineInt(x)) => Some(x as u32),
        _ => None,
    })
}

/// The constant an `s_mov_b32`/`s_mov_b64` moves (a 32-bit move's as its dword).
fn pair_constant(inst: &Inst, target: &crate::isa::Target) -> Option<u64> {
    let (e, ops) = crate::ir::liveness::operands(inst, target)?;
    let wide = e.opcode == Opcode::S_MOV_B64;
    match ops.value(OperandName::src0)? {
        Value::Literal(x) if !wide || x >> 31 == 0 => Some(u64::from(x)),
        Value::Literal64(x) => Some(x),
        Value::InlineInt(x) if wide => Some(x as u64),
        Value::InlineInt(x) => Some(u64::from(x as u32)),
        _ => None,
    }
}

fn chain_value(decoder: &Decoder, placed: &[(u64, u64)], _out: &[u8], _base: u64, c: &crate::ir::PcRel, decode_out: &dyn Fn(u64) -> Option<Inst>) -> Option<u64> {
    let find = |a: u64| placed.binary_search_by_key(&a, |&(x, _)| x).ok().map(|i| placed[i].1);
    let (getpc, lo_at, hi_at) = (find(c.getpc)?, find(c.add_lo)?, find(c.add_hi)?);
    let target = decoder.target();
    let offset = if c.is_wide() {
        let (_, ops) = crate::ir::liveness::operands(&decode_out(lo_at)?, target)?;
        [ops.value(OperandName::src0), ops.value(OperandName::src1)].into_iter().find_map(|v| match v {
            Some(Value::Literal64(x)) => Some(x),
            Some(Value::Literal(x)) if x >> 31 == 0 => Some(u64::from(x)),
            Some(Value::InlineInt(x)) => Some(x as u64),
            _ => None,
        })?
    } else {
        let lo = constant_of(&decode_out(lo_at)?, target)?;
        let hi = constant_of(&decode_out(hi_at)?, target)?;
        ((hi as u64) << 32) | lo as u64
    };
    (decode_out(getpc)?.encoding()?.opcode == Opcode::S_GETPC_B64).then(|| (getpc + 4).wrapping_add(offset))
}

/// Decodes a relaxed branch at `at`: (inverse branch), getpc, add, addc, setpc. Returns the
/// address reached and the sequence's length.
fn long_branch_target(decoder: &Decoder, out: &[u8], base: u64, at: u64, conditional: bool) -> Option<(u64, u64)> {
    let dec = |a: u64| decoder.decode(out.get((a - base) as usize..)?).into();
    let dec: &dyn Fn(u64) -> Option<Inst> = &dec;
    let mut pc = at;
    if conditional {
        let skip = dec(pc)?;
        if !matches!(classify(&skip, pc), Kind::CondBranch(t) if t == at + 28) {
            return None;
        }
        pc += 4;
    }
    let getpc = dec(pc)?;
    let add = dec(pc + 4)?;
    let addc = dec(pc + 12)?;
    let setpc = dec(pc + 20)?;
    let ops = |i: &Inst| i.encoding().map(|e| e.opcode);
    if ops(&getpc)? != Opcode::S_GETPC_B64 || ops(&add)? != Opcode::S_ADD_U32 || ops(&addc)? != Opcode::S_ADDC_U32 || ops(&setpc)? != Opcode::S_SETPC_B64 {
        return None;
    }
    // One SGPR pair throughout: getpc writes it, the adds update its halves, setpc reads it.
    let first_sgpr = |i: &Inst| {
        let (_, ops) = crate::ir::liveness::operands(i, decoder.target())?;
        ops.as_slice().iter().find_map(|op| match op.value {
            Value::Reg(crate::isa::reg::Reg::Sgpr { index, .. }) => Some(index),
            _ => None,
        })
    };
    let pair = first_sgpr(&getpc)?;
    if first_sgpr(&add)? != pair || first_sgpr(&addc)? != pair + 1 || first_sgpr(&setpc)? != pair {
        return None;
    }
    let lo = constant_of(&add, decoder.target())?;
    let hi = constant_of(&addc, decoder.target())?;
    Some(((pc + 4).wrapping_add(((hi as u64) << 32) | lo as u64), pc + 24 - at))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Decoded::at` finds every instruction of a program, walking up, jumping back and in
    /// random order, and nothing where no instruction starts.
    #[test]
    fn decoded_finds_each_instruction_by_address() {
        let mut decoders = Decoders::default();
        for name in ["gfx1030/control_flow.O2.co", "gfx90a/control_flow.O2.co"] {
            let data = std::fs::read(format!("{}/fixtures/co/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
            let object = CodeObject::parse(&data).unwrap();
            let program = read_program_with(&object, &mut decoders).unwrap().unwrap();
            let nodes: Vec<(u64, Inst)> = program.functions.iter().flat_map(|f| f.nodes()).map(|n| (n.origin.input_address().unwrap(), n.inst)).collect();
            assert!(nodes.len() > 50, "{name}: {} instructions", nodes.len());
            let mut decoded = Decoded::new(&program);
            for &(a, inst) in &nodes {
                assert_eq!(decoded.at(a), Some(inst), "{name}: ascending, {a:#x}");
            }
            for &(a, inst) in nodes.iter().rev() {
                assert_eq!(decoded.at(a), Some(inst), "{name}: descending, {a:#x}");
            }
            // A fixed shuffle: every 7th, wrapping.
            for k in 0..nodes.len() {
                let (a, inst) = nodes[k * 7 % nodes.len()];
                assert_eq!(decoded.at(a), Some(inst), "{name}: shuffled, {a:#x}");
            }
            // Inside an instruction, between functions' padding, before and after the text.
            let starts: std::collections::HashSet<u64> = nodes.iter().map(|n| n.0).collect();
            for &(a, inst) in &nodes {
                for inside in (a + 1..a + inst.len() as u64).filter(|x| !starts.contains(x)) {
                    assert_eq!(decoded.at(inside), None, "{name}: {inside:#x} inside {a:#x}");
                }
            }
            assert_eq!(decoded.at(program.text.address.wrapping_sub(4)), None);
            assert_eq!(decoded.at(program.text.end()), None);
            // And the walk still finds what comes after a miss.
            assert_eq!(decoded.at(nodes[1].0), Some(nodes[1].1));
        }
    }

    /// `same_window` is the comparison of the windows, in the middle and near either end,
    /// with a difference in any byte of the window or just past it.
    #[test]
    fn same_window_compares_the_windows() {
        let x: Vec<u8> = (0..64u8).collect();
        for a in 0..x.len() {
            for b in 0..x.len() {
                let mut y = vec![0xaa; b];
                y.extend_from_slice(&x[a..]);
                assert_eq!(same_window(&x, a, &y, b), window(&x, a) == window(&y, b), "{a} {b}");
                for d in b..y.len().min(b + MAX_INST_BYTES + 1) {
                    let mut z = y.clone();
                    z[d] ^= 0x10;
                    assert_eq!(same_window(&x, a, &z, b), window(&x, a) == window(&z, b), "{a} {b} {d}");
                }
            }
        }
    }

    /// `against` a fixture laid out unchanged: its own bytes pass; with one instruction's
    /// register, or one branch's offset, changed in the output they fail (the read-back
    /// takes the input's decode from the output's only where their bytes agree).
    #[test]
    fn against_finds_a_changed_instruction_and_a_changed_branch() {
        let data = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/co/gfx1030/control_flow.O2.co")).unwrap();
        let object = CodeObject::parse(&data).unwrap();
        let mut decoders = Decoders::default();
        let program = read_program_with(&object, &mut decoders).unwrap().unwrap();
        let structure = structure_of(&object, &program);
        let text = program.text;
        let original = &data[text.file_offset as usize..(text.file_offset + text.size) as usize];
        let layout = crate::layout::layout(&program, original, &|n| super::super::writer::address_shift(&object, n)).unwrap();
        let mut check = |output: &[u8]| against(&object, &structure, &program, &layout, output, &mut decoders);
        assert_eq!(check(&data), Ok(()));

        let nodes = || program.functions.iter().flat_map(|f| f.nodes());
        let file_offset = |a: u64| (text.file_offset + (a - text.address)) as usize;
        // A 4-byte VOP2 (bit 31 clear on GFX10): bit 0 is src0's lowest, another register.
        let vop2 = nodes().find(|n| n.flow == Flow::Next && n.inst.len() == 4 && n.inst.words()[0] >> 31 == 0).unwrap();
        let mut changed = data.clone();
        changed[file_offset(vop2.origin.input_address().unwrap())] ^= 1;
        let problems = check(&changed).unwrap_err();
        assert!(problems.iter().any(|p| p.contains("differs from the input and no edit says so")), "{problems:?}");

        let branch = nodes().find(|n| matches!(n.flow, Flow::Branch(_) | Flow::CondBranch(_))).unwrap();
        let mut changed = data.clone();
        changed[file_offset(branch.origin.input_address().unwrap())] ^= 1;
        let problems = check(&changed).unwrap_err();
        assert!(problems.iter().any(|p| p.contains("branch") && p.contains("reaches")), "{problems:?}");
    }
}
