//! The map file: what each counter of `__gfxpatch_counters` counts (kernel, function, block
//! address and length, the block's instructions), and the registers and occupancy each
//! instrumented kernel had before and has after. `gfxpatch counters` reads it back.

use serde::{Deserialize, Serialize};

use crate::container::CodeObject;
use crate::ir::{FunctionKind, Origin, Program};
use crate::isa::processor::Generation;

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
    pub kernels: Vec<KernelRegisters>,
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
    /// Mnemonics of the block's original instructions, in order.
    pub opcodes: Vec<String>,
    /// Input addresses of the block's successors within its function.
    pub successors: Vec<u64>,
    /// `file:line` of the block's first instruction, from `.debug_line` (absent without it).
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
    let probes = sites
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let f = &before.functions[s.function];
            let block = &f.blocks[s.block];
            let block_bytes = block.nodes.iter().filter(|n| !matches!(n.origin, Origin::Inserted { .. })).map(|n| n.inst.len() as u64).sum();
            ProbeEntry {
                first_counter: i as u64 * COUNTERS_PER_PROBE,
                kind: s.kind,
                function: f.name.clone(),
                function_kind: match f.kind {
                    FunctionKind::Kernel => "kernel".into(),
                    FunctionKind::Function => "function".into(),
                },
                block: block.address,
                block_bytes,
                opcodes: block.nodes.iter().map(|n| n.inst.encoding().map_or("<unknown>", |e| e.mnemonic()).to_owned()).collect(),
                successors: block.successors.iter().map(|&b| f.blocks[b].address).collect(),
                source: lines.block(block.address, block_bytes),
            }
        })
        .collect();
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
    ObjectMap { target: object.target.to_string(), symbol: SYMBOL.into(), address, bytes, counters_per_probe: COUNTERS_PER_PROBE, probes, kernels }
}
