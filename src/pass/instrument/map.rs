//! The map file: what each counter of `__gfxpatch_counters` counts (kernel, function, block
//! address and length), every block of each function `count-blocks` instrumented (its
//! instructions, its control flow as the flow solver needs it, and whether its counts are
//! measured or derived), and the registers and occupancy each instrumented kernel had before
//! and has after. `gfxpatch counters` reads it back.

use serde::{Deserialize, Serialize};

use crate::container::CodeObject;
use crate::ir::{FunctionKind, Origin, Program};
use crate::isa::processor::Generation;

use super::flow::FlowBlock;
use super::{ProbeKind, Site, COUNTERS_PER_PROBE, SYMBOL};

/// One code object's counters.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ObjectMap {
    pub target: String,
    pub symbol: String,
    /// Its address in the code object and its size in bytes.
    pub address: u64,
    pub bytes: u64,
    /// Each probe owns `counters_per_probe` consecutive `u64` counters, from `first_counter`.
    pub counters_per_probe: u64,
    pub probes: Vec<ProbeEntry>,
    /// Every block of each function with `count-blocks` probes (absent in maps written before
    /// the flow solver, whose block probes carry their block's instructions themselves).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<FunctionBlocks>,
    pub kernels: Vec<KernelRegisters>,
    /// The trace ring, when `trace-memory` probed any instruction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceMap>,
}

/// Where the trace ring is in the counters, and what each record's instruction id names.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TraceMap {
    /// Byte offset of its header (the write index, `u64`) into the counters; the records
    /// follow the header's `header_bytes`.
    pub header: u64,
    pub header_bytes: u64,
    pub records: u64,
    pub record_bytes: u64,
    /// Every traced instruction, by address (its id in the records).
    pub instructions: Vec<TraceInstruction>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TraceInstruction {
    /// The instruction's address in the input code object: the records' instruction id.
    pub id: u32,
    pub function: String,
    pub text: String,
    /// Its immediate offset, which the reader adds to the record's base.
    pub offset: i64,
    /// `file:line` from `.debug_line`, where present.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub source: Option<String>,
}

/// The blocks of one instrumented function, in address order.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FunctionBlocks {
    pub function: String,
    pub blocks: Vec<BlockEntry>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BlockEntry {
    /// The block's input address and bytes.
    pub address: u64,
    pub bytes: u64,
    /// Mnemonics of its instructions, in order.
    pub opcodes: Vec<String>,
    /// Successors (indexes into the function's blocks), entry from outside, exit, and whether
    /// EXEC is written inside: what [`super::flow::solve`] needs.
    #[serde(flatten)]
    pub flow: FlowBlock,
    /// How `gfxpatch counters` obtains its counts.
    pub counts: Counted,
    /// `file:line` of its first instruction, from `.debug_line` (absent without it).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub source: Option<String>,
}

/// How a block's counts are obtained; every one is exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Counted {
    /// A probe at its start counts them.
    Measured,
    /// A probe at its start counts them because a critical edge of the spanning tree could
    /// not be measured without splitting the edge, which the layout does not do.
    MeasuredCriticalEdge,
    /// They follow by conservation of flow from the measured counts.
    Derived,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProbeEntry {
    pub first_counter: u64,
    pub kind: ProbeKind,
    pub function: String,
    /// `kernel` or `function`.
    pub function_kind: String,
    /// The block's input address and bytes (original instructions only).
    pub block: u64,
    pub block_bytes: u64,
    /// Maps written before the flow solver only: the block's mnemonics, its successors'
    /// addresses and its `file:line` (now in [`ObjectMap::functions`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opcodes: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub successors: Vec<u64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub source: Option<String>,
}

/// A kernel's registers and occupancy before and after instrumentation.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KernelRegisters {
    pub kernel: String,
    pub vgprs_before: u32,
    pub vgprs_after: u32,
    /// `None` on GFX10+, where every wave gets all SGPRs.
    pub sgprs_before: Option<u32>,
    pub sgprs_after: Option<u32>,
    pub waves_per_simd_before: u32,
    pub waves_per_simd_after: u32,
}

impl KernelRegisters {
    /// "VGPRs 24 -> 26, SGPRs 18 -> 24"; the SGPRs only where the kernel declares them
    /// (GFX6-GFX9: GFX10+ waves get every SGPR).
    pub fn register_change(&self) -> String {
        let mut out = format!("VGPRs {} -> {}", self.vgprs_before, self.vgprs_after);
        if let (Some(before), Some(after)) = (self.sgprs_before, self.sgprs_after) {
            out += &format!(", SGPRs {before} -> {after}");
        }
        out
    }
}

/// Waves per SIMD that `vgprs` (per lane, AGPRs included on unified-file targets) and `sgprs`
/// allow: the register files of the AMDGPU backend's `IsaInfo` (GFX9: 256 VGPRs in granules of
/// 4, 10 waves, 800 SGPRs in granules of 16; GFX90A+: 512 unified in granules of 8, 8 waves;
/// GFX10+: 1024 wave32 VGPRs (1536 on GFX11+) in granules of 8, halved for wave64, 20 or 16
/// waves). An estimate for reports, not a launch limit.
pub fn waves_per_simd(g: Generation, wave_size: u32, vgprs: u32, sgprs: Option<u32>) -> u32 {
    let (file, granule, max) = match g {
        Generation::Gfx90a | Generation::Gfx940 | Generation::Gfx950 => (512, 8, 8),
        g if g >= Generation::Gfx11 => (if wave_size == 32 { 1536 } else { 768 }, 8, 16),
        g if g.is_gfx10_plus() => (if wave_size == 32 { 1024 } else { 512 }, 8, 20),
        _ => (256, 4, 10),
    };
    let by_vgprs = file / vgprs.max(1).next_multiple_of(granule);
    let by_sgprs = sgprs.map_or(max, |s| 800 / s.max(1).next_multiple_of(16));
    by_vgprs.min(by_sgprs).min(max)
}

/// The map of one object; `used` is what the layout found each changed kernel uses:
/// (kernel, SGPRs, VGPRs, AGPRs), each the highest register named + 1.
pub fn object_map(object: &CodeObject<'_>, program: &Program, before: &Program, used: &[(String, u32, u32, u32)], sites: &[Site], address: u64, bytes: u64) -> ObjectMap {
    let target = &program.target;
    let lines = super::lines::LineTable::of(object);
    let original_bytes = |block: &crate::ir::Block| -> u64 { block.nodes.iter().filter(|n| !matches!(n.origin, Origin::Inserted { .. })).map(|n| n.inst.len() as u64).sum() };
    let probes = sites
        .iter()
        .filter(|s| s.kind != ProbeKind::TraceMemory)
        .map(|s| {
            let f = &before.functions[s.function];
            let block = &f.blocks[s.block];
            ProbeEntry {
                first_counter: s.offset / 8,
                kind: s.kind,
                function: f.name.clone(),
                function_kind: match f.kind {
                    FunctionKind::Kernel => "kernel".into(),
                    FunctionKind::Function => "function".into(),
                },
                block: block.address,
                block_bytes: original_bytes(block),
                opcodes: Vec::new(),
                successors: Vec::new(),
                source: None,
            }
        })
        .collect();
    // Every block of each function with block probes, and how its counts are obtained.
    let entries = super::Entries::of(before);
    let mut functions: Vec<FunctionBlocks> = Vec::new();
    let mut i = 0;
    while i < sites.len() {
        let fi = sites[i].function;
        let mut measured: std::collections::BTreeMap<usize, Counted> = std::collections::BTreeMap::new();
        let mut any = false;
        while i < sites.len() && sites[i].function == fi {
            match sites[i].kind {
                ProbeKind::Block => {
                    measured.entry(sites[i].block).or_insert(Counted::Measured);
                }
                ProbeKind::BlockCriticalEdge => {
                    measured.insert(sites[i].block, Counted::MeasuredCriticalEdge);
                }
                _ => {}
            }
            any |= sites[i].kind.is_block();
            i += 1;
        }
        if !any {
            continue;
        }
        let f = &before.functions[fi];
        let flow = super::flow_blocks(f, &entries, target);
        let blocks = f
            .blocks
            .iter()
            .zip(flow)
            .enumerate()
            .map(|(b, (block, flow))| {
                let bytes = original_bytes(block);
                BlockEntry {
                    address: block.address,
                    bytes,
                    opcodes: block.nodes.iter().map(|n| n.inst.encoding().map_or("<unknown>", |e| e.mnemonic()).to_owned()).collect(),
                    flow,
                    counts: measured.get(&b).copied().unwrap_or(Counted::Derived),
                    source: lines.block(block.address, bytes),
                }
            })
            .collect();
        functions.push(FunctionBlocks { function: f.name.clone(), blocks });
    }
    let g = target.generation();
    let kernels = used
        .iter()
        .filter_map(|(name, sgprs, vgprs, agprs)| {
            let (sgprs, vgprs, agprs) = (*sgprs, *vgprs, *agprs);
            let k = object.kernels.iter().find(|k| k.name == name)?;
            let d = k.descriptor.registers(g);
            let used_v = if g.has_unified_agprs() && agprs > 0 { vgprs.next_multiple_of(4) + agprs } else { vgprs.max(agprs) };
            let vgprs_after = d.vgprs.max(used_v);
            let sgprs_after = d.sgprs.map(|s| s.max(sgprs));
            Some(KernelRegisters {
                kernel: name.clone(),
                vgprs_before: d.vgprs,
                vgprs_after,
                sgprs_before: d.sgprs,
                sgprs_after,
                waves_per_simd_before: waves_per_simd(g, d.wave_size, d.vgprs, d.sgprs),
                waves_per_simd_after: waves_per_simd(g, d.wave_size, vgprs_after, sgprs_after),
            })
        })
        .collect();
    let trace = trace_map(sites, before, &lines);
    ObjectMap { target: object.target.to_string(), symbol: SYMBOL.into(), address, bytes, counters_per_probe: COUNTERS_PER_PROBE, probes, functions, kernels, trace }
}

/// The ring and its instructions, if any site traces.
fn trace_map(sites: &[Site], before: &Program, lines: &super::lines::LineTable) -> Option<TraceMap> {
    let header = sites.iter().find(|s| s.kind == ProbeKind::TraceMemory)?.offset;
    let target = &before.target;
    let mut instructions: Vec<TraceInstruction> = sites
        .iter()
        .filter(|s| s.kind == ProbeKind::TraceMemory)
        .filter_map(|s| {
            let at = s.traced?;
            let f = &before.functions[s.function];
            let node = f.blocks[s.block].nodes.iter().find(|n| n.origin.input_address() == Some(at))?;
            let traced = super::trace::traced(&node.inst, target, at as u32)?;
            Some(TraceInstruction { id: at as u32, function: f.name.clone(), text: crate::isa::print::print(&node.inst, target, at), offset: traced.offset, source: lines.block(at, node.inst.len() as u64) })
        })
        .collect();
    instructions.sort_by_key(|i| i.id);
    instructions.dedup_by_key(|i| i.id);
    Some(TraceMap { header, header_bytes: super::trace::HEADER_BYTES, records: super::trace::RECORDS, record_bytes: super::trace::RECORD_BYTES, instructions })
}

/// One block's counts, measured or solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolvedBlock {
    pub address: u64,
    /// Waves that entered it with EXEC != 0, and their active lanes summed.
    pub waves: u64,
    pub lanes: u64,
    pub opcodes: Vec<String>,
    /// Input addresses of its successors.
    pub successors: Vec<u64>,
    pub source: Option<String>,
}

impl ObjectMap {
    /// Every block's counts, per function (in map order), from `dump` (the counters' bytes
    /// after a run): solved from the probes' counters over the function's flow graph
    /// ([`super::flow::solve`]), or (maps written before the flow solver) each block probe's
    /// own. `Err` names the function when the dump is too short, contradicts conservation or
    /// leaves a count undetermined: the dump is not of this map's object.
    pub fn block_counts(&self, dump: &[u8]) -> Result<Vec<(String, Vec<SolvedBlock>)>, String> {
        use super::flow::{self, Point};
        if (dump.len() as u64) < self.bytes {
            return Err(format!("the dump has {} bytes, the counters {}: is it the right object's dump?", dump.len(), self.bytes));
        }
        let counter = |i: u64| u64::from_le_bytes(dump[(i * 8) as usize..(i * 8 + 8) as usize].try_into().unwrap());
        if self.functions.is_empty() {
            let mut by: std::collections::BTreeMap<&str, Vec<SolvedBlock>> = std::collections::BTreeMap::new();
            for p in self.probes.iter().filter(|p| p.kind == ProbeKind::Block) {
                by.entry(&p.function).or_default().push(SolvedBlock {
                    address: p.block,
                    waves: counter(p.first_counter),
                    lanes: counter(p.first_counter + 1),
                    opcodes: p.opcodes.clone(),
                    successors: p.successors.clone(),
                    source: p.source.clone(),
                });
            }
            return Ok(by.into_iter().map(|(f, b)| (f.to_owned(), b)).collect());
        }
        let mut probes: std::collections::BTreeMap<&str, Vec<&ProbeEntry>> = std::collections::BTreeMap::new();
        for p in self.probes.iter().filter(|p| p.kind.is_block()) {
            probes.entry(&p.function).or_default().push(p);
        }
        let mut out = Vec::with_capacity(self.functions.len());
        for f in &self.functions {
            let flow_blocks: Vec<flow::FlowBlock> = f.blocks.iter().map(|b| b.flow.clone()).collect();
            let (mut waves, mut lanes) = (Vec::new(), Vec::new());
            for p in probes.get(f.function.as_str()).into_iter().flatten() {
                let b = f.blocks.binary_search_by_key(&p.block, |b| b.address).map_err(|_| format!("{}: a probe at {:#x}, which is no block of the map", f.function, p.block))?;
                let at = if p.kind == ProbeKind::BlockEnd { Point::End(b) } else { Point::Start(b) };
                waves.push((at, i128::from(counter(p.first_counter))));
                lanes.push((at, i128::from(counter(p.first_counter + 1))));
            }
            let solve = |measured: &[(Point, i128)], what: &str| -> Result<Vec<u64>, String> {
                let s = flow::solve(&flow_blocks, measured).map_err(|e| format!("{}: {what}: {e}: is the dump of this map's object?", f.function))?;
                s.blocks
                    .iter()
                    .zip(&f.blocks)
                    .map(|(x, b)| x.and_then(|x| u64::try_from(x).ok()).ok_or_else(|| format!("{}: the {what} of block {:#x} do not follow from the counters (a map of another build?)", f.function, b.address)))
                    .collect()
            };
            let (w, l) = (solve(&waves, "waves")?, solve(&lanes, "lanes")?);
            let blocks = f
                .blocks
                .iter()
                .enumerate()
                .map(|(i, b)| SolvedBlock {
                    address: b.address,
                    waves: w[i],
                    lanes: l[i],
                    opcodes: b.opcodes.clone(),
                    successors: b.flow.successors.iter().map(|&s| f.blocks[s].address).collect(),
                    source: b.source.clone(),
                })
                .collect();
            out.push((f.function.clone(), blocks));
        }
        Ok(out)
    }
}
