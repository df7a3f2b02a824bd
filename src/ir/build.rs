//! Building a [`Program`] from a code object: find functions, decode them, split blocks, wire
//! edges, recover PC-relative chains, and mark what cannot be proven opaque.

use std::collections::{BTreeMap, HashMap};

use crate::container::elf::SymbolKind;
use crate::container::CodeObject;
use crate::isa::operand::Value;
use crate::isa::reg::Reg;
use crate::isa::table::Dir;
use crate::isa::decode::Swept;
use crate::isa::{Decoder, Inst};

use super::flow::{self, classify, Flow, Kind, Target};
use super::liveness::operands;
use super::pcrel;
use super::{Block, Function, FunctionKind, Node, Opaque, Origin, Padding, Program, Successors, TextSection};

/// Why a code object has no program (the rewrite of that object is refused).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("{0} executable sections (the rewriter handles exactly one)")]
    TextSections(usize),
    #[error("kernel {name}: entry {address:#x} is outside .text")]
    EntryOutsideText { name: String, address: u64 },
    #[error("instruction at {address:#x} runs past the start of {next} at {next_address:#x}")]
    Straddle { address: u64, next: String, next_address: u64 },
}

/// The return-address register pair of the AMDGPU calling convention: `s[30:31]`.
const RETURN_ADDRESS_SGPR: u16 = 30;

impl Program {
    /// Reads the program of `object`, decoding with `decoder` (for the object's target).
    pub fn build(object: &CodeObject<'_>, decoder: &Decoder) -> Result<Program, BuildError> {
        let texts: Vec<_> = object.text_sections().collect();
        let [section] = texts[..] else { return Err(BuildError::TextSections(texts.len())) };
        let text = TextSection { section_index: section.index, address: section.address, file_offset: section.offset, size: section.size };
        let bytes = &object.data[section.offset as usize..(section.offset + section.size) as usize];

        // Function starts: kernel and shader entries, then function symbols, then the section start.
        let mut starts: BTreeMap<u64, (String, FunctionKind)> = BTreeMap::new();
        for (name, entry) in object.entries() {
            if !text.contains(entry) {
                return Err(BuildError::EntryOutsideText { name: name.to_owned(), address: entry });
            }
            starts.insert(entry, (name.to_owned(), FunctionKind::Kernel));
        }
        for s in &object.symbols {
            if matches!(s.kind, SymbolKind::Function | SymbolKind::Kernel) && s.section_index as usize == section.index && text.contains(s.value) {
                starts.entry(s.value).or_insert_with(|| (s.name.to_owned(), FunctionKind::Function));
            }
        }
        if bytes.is_empty() {
            return Ok(Program { target: *decoder.target(), text, functions: Vec::new() });
        }
        starts.entry(text.address).or_insert_with(|| (section.name.to_owned(), FunctionKind::Function));

        // Decode each region linearly, as objdump does from each symbol.
        let mut insts: Vec<(u64, Inst)> = Vec::with_capacity(bytes.len() / 6);
        let bounds: Vec<u64> = starts.keys().copied().chain([text.end()]).collect();
        let mut region = Swept::default();
        for w in bounds.windows(2) {
            let (start, end) = (w[0], w[1]);
            decoder.sweep_into(bytes, (start - text.address) as usize..(end - text.address) as usize, &mut region);
            // Only a region's last instruction can run past its end.
            if let Some((offset, inst)) = region.last(bytes) {
                let at = text.address + offset as u64;
                if at + inst.len() as u64 > end {
                    let next = starts.get(&end).map_or_else(|| "the end of .text".to_owned(), |(name, _)| name.clone());
                    return Err(BuildError::Straddle { address: at, next, next_address: end });
                }
            }
            insts.extend(region.iter(bytes).map(|(offset, inst)| (text.address + offset as u64, inst)));
        }
        // Instruction starts and branch targets are looked up by binary search in sorted
        // vectors: hash sets of every address cost more than the decode on 1 GB libraries.
        let is_start = Starts(&insts);
        let kinds: Vec<Kind> = insts.iter().map(|(a, i)| classify(i, *a)).collect();

        // Every direct branch target starts a block; call targets start functions.
        let mut leaders: Vec<u64> = starts.keys().copied().collect();
        for kind in &kinds {
            if let Kind::Branch(t) | Kind::CondBranch(t) | Kind::AddPc(t) = *kind {
                leaders.push(t);
            }
        }
        leaders.sort_unstable();
        leaders.dedup();
        let mut call_targets: Vec<u64> = kinds.iter().filter_map(|k| if let Kind::DirectCall(t) = *k { Some(t) } else { None }).collect();
        // A register call's target, where a PC-relative chain proves it, starts a function too.
        // The chains are recovered again per function below: here only when some call needs them.
        if kinds.contains(&Kind::RegisterCall) {
            let recovered = pcrel::recover(&insts, &|a| leaders.binary_search(&a).is_ok(), decoder.target());
            let consumers: HashMap<u64, u64> = recovered.consumers.iter().copied().collect();
            for (i, &(address, _)) in insts.iter().enumerate() {
                if kinds[i] == Kind::RegisterCall
                    && let Some(&t) = consumers.get(&address)
                {
                    call_targets.push(t);
                }
            }
        }
        for t in call_targets {
            if is_start.contains(&t) && !starts.contains_key(&t) {
                starts.insert(t, (format!("__func_{t:x}"), FunctionKind::Function));
            }
        }

        let bounds: Vec<u64> = starts.keys().copied().chain([text.end()]).collect();
        let mut functions = Vec::with_capacity(starts.len());
        let mut first = 0;
        for (w, (name, kind)) in bounds.windows(2).zip(starts.values()) {
            let (entry, end) = (w[0], w[1]);
            let last = first + insts[first..].partition_point(|&(a, _)| a < end);
            let f = build_function(name.clone(), *kind, entry, end, &insts[first..last], &kinds[first..last], &leaders, &is_start, &text, decoder);
            functions.push(f);
            first = last;
        }
        Ok(Program { target: *decoder.target(), text, functions })
    }
}

/// A function's block leaders: its entry and the branch targets inside it (sorted, from the
/// program's), then the targets of jumps proven while building it. Looked up for every
/// instruction: bisection over the sorted ones, where a hash set cost more than the decode.
struct Leaders {
    sorted: Vec<u64>,
    /// Added later (a few proven `s_setpc_b64`/`s_add_pc_i64` targets).
    later: Vec<u64>,
}

impl Leaders {
    /// `targets` sorted and deduplicated, all at or after `entry`.
    fn new(targets: &[u64], entry: u64) -> Leaders {
        let mut sorted = Vec::with_capacity(targets.len() + 1);
        if targets.first() != Some(&entry) {
            sorted.push(entry);
        }
        sorted.extend_from_slice(targets);
        Leaders { sorted, later: Vec::new() }
    }

    fn contains(&self, a: &u64) -> bool {
        self.sorted.binary_search(a).is_ok() || self.later.contains(a)
    }

    fn insert(&mut self, a: u64) {
        if !self.contains(&a) {
            self.later.push(a);
        }
    }

    /// The lowest leader in `range`.
    fn first_in(&self, range: std::ops::RangeInclusive<u64>) -> Option<u64> {
        let i = self.sorted.partition_point(|a| a < range.start());
        let sorted = self.sorted.get(i).copied().filter(|a| range.contains(a));
        let later = self.later.iter().copied().filter(|a| range.contains(a)).min();
        match (sorted, later) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn build_function(
    name: String,
    kind: FunctionKind,
    entry: u64,
    end: u64,
    insts: &[(u64, Inst)],
    kinds: &[Kind],
    branch_targets: &[u64],
    is_start: &Starts<'_>,
    text: &TextSection,
    decoder: &Decoder,
) -> Function {
    let target = decoder.target();
    let mut opaque: Option<Opaque> = None;
    let mut fail = |address: u64, reason: String, pins_layout: bool| {
        if opaque.as_ref().is_none_or(|o| pins_layout && !o.pins_layout) {
            opaque = Some(Opaque { address, reason, pins_layout });
        }
    };
    let inside = |a: u64| a >= entry && a < end && is_start.contains(&a);

    // PC-relative chains, recovered within this function.
    let own = branch_targets.partition_point(|&a| a < entry)..branch_targets.partition_point(|&a| a < end);
    let mut leaders = Leaders::new(&branch_targets[own], entry);
    let recovered = pcrel::recover(insts, &|a| leaders.contains(&a), target);
    if let Some((address, why)) = &recovered.unproven {
        fail(*address, why.clone(), true);
    }
    for c in &recovered.chains {
        if text.contains(c.target) && !is_start.contains(&c.target) {
            fail(c.getpc, format!("PC-relative address {:#x} points inside an instruction", c.target), true);
        }
    }
    let consumers: HashMap<u64, u64> = recovered.consumers.iter().copied().collect();

    // `s_add_pc_i64 s[N:N+1]`: proven when moves of constants before it in its block set the pair.
    let mut pairs: Vec<pcrel::AddPcPair> = Vec::new();
    let mut pair_failures: HashMap<u64, String> = HashMap::new();
    for (i, &k) in kinds.iter().enumerate() {
        if k == Kind::AddPcRegister {
            match pcrel::add_pc_pair(insts, i, &|a| leaders.contains(&a), target) {
                Ok(p) => pairs.push(p),
                Err(why) => {
                    pair_failures.insert(insts[i].0, why);
                }
            }
        }
    }
    let pair_at: HashMap<u64, u64> = pairs.iter().map(|p| (p.add_pc, p.target)).collect();

    // Control flow of each instruction, targets still addresses.
    let mut flows: Vec<Flow> = Vec::with_capacity(insts.len());
    for (&(address, inst), &k) in insts.iter().zip(kinds) {
        if inst.is_raw() {
            fail(address, format!("undecodable word {:#010x}", inst.words()[0]), false);
        }
        let branch_to = |t: u64, fail: &mut dyn FnMut(u64, String, bool)| {
            if !is_start.contains(&t) {
                fail(address, format!("branch to {t:#x}, which is not an instruction start"), false);
            }
            Target::Address(t)
        };
        let flow = match k {
            Kind::Next => Flow::Next,
            Kind::Branch(t) => Flow::Branch(branch_to(t, &mut fail)),
            Kind::CondBranch(t) => Flow::CondBranch(branch_to(t, &mut fail)),
            Kind::DirectCall(t) => {
                if !is_start.contains(&t) {
                    fail(address, format!("call to {t:#x}, which is not an instruction start"), false);
                }
                Flow::Call(Some(t))
            }
            Kind::RegisterCall => Flow::Call(consumers.get(&address).copied()),
            Kind::RegisterJump => match consumers.get(&address) {
                Some(&t) if inside(t) => {
                    leaders.insert(t);
                    Flow::Jump(Target::Address(t))
                }
                Some(&t) => Flow::Jump(Target::Address(t)),
                None if kind == FunctionKind::Function && jumps_to_return_address(&inst, decoder) => Flow::Return,
                None => {
                    fail(address, "indirect jump (s_setpc_b64) to an address not proven".into(), false);
                    Flow::Indirect
                }
            },
            Kind::End => Flow::End,
            Kind::Halt => Flow::Halt,
            Kind::AddPc(t) => Flow::AddPc(branch_to(t, &mut fail)),
            Kind::AddPcRegister => match pair_at.get(&address) {
                Some(&t) => {
                    if inside(t) {
                        leaders.insert(t);
                    }
                    Flow::AddPc(branch_to(t, &mut fail))
                }
                None => {
                    let why = pair_failures.remove(&address).unwrap_or_else(|| "s_add_pc_i64 of a register not proven".into());
                    fail(address, why, false);
                    Flow::Indirect
                }
            },
            Kind::Unknown(why) => {
                fail(address, why.into(), false);
                Flow::Indirect
            }
        };
        flows.push(flow);
    }

    // Jump targets found after the chains were recovered (proven s_setpc/s_add_pc_i64 targets)
    // must not land inside a chain.
    for c in &recovered.chains {
        if let Some(l) = leaders.first_in(c.getpc + 1..=c.add_hi) {
            fail(c.getpc, format!("s_getpc_b64 at {:#x}: a block starts at {l:#x}, inside its add chain", c.getpc), true);
        }
    }
    // A proven pair holds only if nothing jumps in between its moves and the s_add_pc_i64.
    for p in &pairs {
        let first = p.moves().min().unwrap_or(p.add_pc);
        if let Some(l) = leaders.first_in(first + 1..=p.add_pc) {
            fail(p.add_pc, format!("s_add_pc_i64 at {:#x}: a block starts at {l:#x}, between it and the moves that set s[{}:{}]", p.add_pc, p.sgpr, p.sgpr + 1), false);
        }
    }

    // Padding: unreachable filler after the last instruction that does not fall through.
    // `s_code_end` ends control too (reaching it faults), but it is the filler itself: the last
    // exit is the last one that is code, else every `s_code_end` word became a block.
    let last_exit = flows.iter().zip(insts.iter()).rposition(|(f, (_, inst))| !f.falls_through() && !flow::is_filler(inst));
    let is_padding = |from: usize| insts[from..].iter().all(|(a, inst)| flow::is_filler(inst) && (from == 0 || !leaders.contains(a)));
    let code_len = match last_exit {
        Some(i) if is_padding(i + 1) => i + 1,
        // Nothing but filler (the bytes before the first function): all padding.
        None if kind == FunctionKind::Function && name.starts_with('.') && is_padding(0) => 0,
        _ => insts.len(),
    };
    let padding = match insts.get(code_len) {
        Some(&(address, inst)) => Padding { filler: Some(inst), bytes: end - address },
        None => Padding::default(),
    };
    let (insts, flows) = (&insts[..code_len], &flows[..code_len]);

    // Blocks: split at leaders and after block-ending instructions. The leaders and the
    // instructions are both in address order, so one walk over both finds the leaders among
    // the instructions (a bisection per instruction cost more than building the nodes).
    let mut block_starts: Vec<usize> = Vec::new();
    let mut next_leader = leaders.sorted.partition_point(|&a| a < entry);
    for (i, &(address, _)) in insts.iter().enumerate() {
        while leaders.sorted.get(next_leader).is_some_and(|&l| l < address) {
            next_leader += 1;
        }
        let leads = leaders.sorted.get(next_leader) == Some(&address) || leaders.later.contains(&address);
        if i == 0 || leads || flows[i - 1].ends_block() {
            block_starts.push(i);
        }
    }
    // Each block's nodes made in place, at its size (one allocation and one write per node;
    // the function's nodes made first and copied out cost a copy and a page-faulted buffer).
    let mut blocks: Vec<Block> = Vec::with_capacity(block_starts.len());
    for (k, &from) in block_starts.iter().enumerate() {
        let to = block_starts.get(k + 1).copied().unwrap_or(insts.len());
        let nodes = insts[from..to].iter().zip(&flows[from..to]).map(|(&(address, inst), &flow)| Node { inst, origin: Origin::Input(address), flow }).collect();
        blocks.push(Block { address: insts[from].0, nodes, successors: Successors::NONE, exits: false });
    }
    // Blocks are in address order: a target's block is found by bisection.
    let block_addresses: Vec<u64> = blocks.iter().map(|b| b.address).collect();
    let block_of = |a: u64| block_addresses.binary_search(&a).ok();
    let n = blocks.len();
    for (b, block) in blocks.iter_mut().enumerate() {
        let next = (b + 1 < n).then_some(b + 1);
        let last = block.nodes.last_mut().unwrap();
        // Resolve targets inside the function to blocks.
        let resolve = |t: Target| match t {
            Target::Address(a) => block_of(a).map_or(t, Target::Block),
            t => t,
        };
        last.flow = match last.flow {
            Flow::Branch(t) => Flow::Branch(resolve(t)),
            Flow::CondBranch(t) => Flow::CondBranch(resolve(t)),
            Flow::Jump(t) => Flow::Jump(resolve(t)),
            Flow::AddPc(t) => Flow::AddPc(resolve(t)),
            f => f,
        };
        let flow = last.flow;
        let mut successors = Successors::NONE;
        let mut exits = false;
        match flow {
            Flow::Branch(Target::Block(t)) | Flow::Jump(Target::Block(t)) | Flow::AddPc(Target::Block(t)) => successors.push(t),
            Flow::CondBranch(Target::Block(t)) => {
                successors.push(t);
                match next {
                    Some(nb) => successors.push(nb),
                    None => exits = true,
                }
            }
            Flow::CondBranch(Target::Address(_)) => match next {
                Some(nb) => {
                    successors.push(nb);
                    exits = true;
                }
                None => exits = true,
            },
            Flow::Next | Flow::Call(_) => match next {
                Some(nb) => successors.push(nb),
                None => exits = true,
            },
            _ => exits = true,
        }
        block.successors = successors;
        block.exits = exits;
    }
    Function { name, kind, entry, end, blocks, padding, opaque, pcrel: recovered.chains, add_pc_pairs: pairs, edits: Vec::new() }
}

/// The start addresses of a program's instructions, in address order.
struct Starts<'a>(&'a [(u64, Inst)]);

impl Starts<'_> {
    fn contains(&self, address: &u64) -> bool {
        self.0.binary_search_by_key(address, |&(a, _)| a).is_ok()
    }
}

/// `s_setpc_b64 s[30:31]`: a jump to the calling convention's return address.
fn jumps_to_return_address(inst: &Inst, decoder: &Decoder) -> bool {
    let Some((e, ops)) = operands(inst, decoder.target()) else { return false };
    e.operands
        .iter()
        .zip(ops.as_slice())
        .any(|(o, op)| o.dir == Dir::In && op.value == Value::Reg(Reg::Sgpr { index: RETURN_ADDRESS_SGPR, count: 2 }))
}

#[cfg(test)]
mod tests {
    use super::Leaders;

    #[test]
    fn leaders_answer_as_a_set_and_name_the_lowest_in_a_range() {
        let mut l = Leaders::new(&[0x108, 0x120], 0x100);
        assert!(l.contains(&0x100) && l.contains(&0x108) && l.contains(&0x120));
        assert!(!l.contains(&0x104));
        l.insert(0x110);
        l.insert(0x108);
        assert!(l.contains(&0x110));
        assert_eq!(l.later, vec![0x110], "a leader already held is not added again");
        assert_eq!(l.first_in(0x101..=0x11c), Some(0x108));
        assert_eq!(l.first_in(0x109..=0x11c), Some(0x110));
        assert_eq!(l.first_in(0x111..=0x11c), None);
        // The entry is not repeated when it is a branch target too.
        assert_eq!(Leaders::new(&[0x100, 0x104], 0x100).sorted, vec![0x100, 0x104]);
    }
}
