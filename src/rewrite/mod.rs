//! The rewrite of one code object, end to end: read, build the program, run the passes, lay
//! out, write, verify. Whatever cannot be done safely leaves the object as it was and says why.

pub mod verify;

use std::collections::BTreeMap;

use crate::container::CodeObject;
use crate::ir::Program;
use crate::isa::{Decoders, Target};
use crate::layout::{self, Layout};
use crate::pass::{self, instrument, Pass, PassStats};

/// What to do to each code object.
pub struct Options<'a> {
    pub passes: Vec<&'a dyn Pass>,
    /// Print each function's listing after this pass (to `listings`).
    pub print_after: Option<&'a str>,
    /// Let the container writer drop DWARF it cannot update instead of refusing.
    pub strip_debug_on_failure: bool,
}

/// The outcome for one code object.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The object's target id (`gfx90a:xnack-`); empty if it could not be read.
    pub target: String,
    /// The rewritten object; `None` if nothing changed or the rewrite was refused.
    pub bytes: Option<Vec<u8>>,
    pub stats: Vec<PassStats>,
    pub instructions_before: usize,
    pub instructions_after: usize,
    /// `name: reason at address` of each opaque function.
    pub opaque: Vec<String>,
    /// Why this object was left as it was, if it was.
    pub refused: Option<String>,
    /// Function listings requested by `--print-after`.
    pub listings: String,
    /// Notes from the container writer (e.g. stripped DWARF).
    pub notes: Vec<String>,
    /// The probes' counters, when an instrumentation pass ran and the object was written.
    pub counters: Option<crate::pass::instrument::map::ObjectMap>,
}

impl Outcome {
    /// The instructions the written object holds: a refused object keeps its original ones.
    pub fn instructions_written(&self) -> usize {
        if self.refused.is_some() { self.instructions_before } else { self.instructions_after }
    }

    /// Rewrites of every pass this object's output holds.
    pub fn applied(&self) -> u64 {
        self.written_stats().map(|s| s.applied).sum()
    }

    /// Rewrites declined in this object, by every pass (a refused object's count here too).
    pub fn declined(&self) -> u64 {
        self.written_stats().map(|s| s.declined.values().sum::<u64>()).sum()
    }

    /// This object's pass statistics as the output holds them: a refused object's rewrites
    /// were made but not written, so they count as declined with [`OBJECT_REFUSED`].
    pub fn written_stats(&self) -> impl Iterator<Item = std::borrow::Cow<'_, PassStats>> {
        self.stats.iter().map(|s| match self.refused {
            Some(_) => std::borrow::Cow::Owned(s.as_refused(OBJECT_REFUSED)),
            None => std::borrow::Cow::Borrowed(s),
        })
    }
}

/// The target to decode an object with: wave64 if any kernel runs wave64 (it only changes how
/// a carry or condition operand prints, and liveness then counts both halves).
pub fn target_of(object: &CodeObject<'_>) -> anyhow::Result<Target> {
    let base = Target::from_target_id(&object.target, false)?;
    let g = base.generation();
    let wave64 = g.is_gfx10_plus()
        && (object.kernels.iter().any(|k| k.descriptor.wave_size(g) == 64) || object.shaders.iter().any(|s| s.resources.wave_size == 64));
    Ok(if wave64 { Target::from_target_id(&object.target, true)? } else { base })
}

/// Reads the program of an object.
pub fn read_program(object: &CodeObject<'_>) -> anyhow::Result<Result<Program, crate::ir::BuildError>> {
    read_program_with(object, &mut Decoders::default())
}

/// [`read_program`] with the decoder `decoders` holds for the object's target.
pub fn read_program_with(object: &CodeObject<'_>, decoders: &mut Decoders) -> anyhow::Result<Result<Program, crate::ir::BuildError>> {
    let target = target_of(object)?;
    Ok(Program::build(object, decoders.for_target(target)))
}

/// Rewrites one code object.
pub fn rewrite_object(data: &[u8], options: &Options<'_>) -> anyhow::Result<Outcome> {
    rewrite_object_with(data, options, &mut Decoders::default())
}

/// [`rewrite_object`] with the decoders of a run over many objects (see [`Decoders`]): the
/// input, and the output as it is verified, are decoded with the decoder `decoders` holds
/// for the object's target.
pub fn rewrite_object_with(data: &[u8], options: &Options<'_>, decoders: &mut Decoders) -> anyhow::Result<Outcome> {
    let mut object = CodeObject::parse(data)?;
    let mut out = Outcome {
        target: object.target.to_string(),
        stats: options.passes.iter().map(|p| PassStats { name: p.name(), ..Default::default() }).collect(),
        ..Outcome::default()
    };
    let mut program = match read_program_with(&object, decoders)? {
        Ok(p) => p,
        Err(e) => {
            out.refused = Some(e.to_string());
            return Ok(out);
        }
    };
    // What `verify::against` checks the input for, taken before any pass edits the program
    // (and before wave sizes are settled: as a fresh read of the input finds it). Without
    // passes nothing is edited or verified.
    let input_structure = (!options.passes.is_empty()).then(|| verify::structure_of(&object, &program));
    settle_wave_sizes(&mut object, &program);
    out.instructions_before = program.instruction_count();
    out.opaque = program
        .functions
        .iter()
        .filter_map(|f| f.opaque.as_ref().map(|o| format!("{}: {} at {:#x}", f.name, o.reason, o.address)))
        .collect();
    // A pass taking code back out may lower the counts that code alone explained: what each
    // kernel's code needed before the passes ran is what such a count must be.
    let needed_before = options.passes.iter().any(|p| p.takes_code_back_out()).then(|| layout::kernel_registers(&program));
    // The program as the probes found it: what the static check compares the probes against.
    let mut before_probes: Option<Program> = None;
    for (i, p) in options.passes.iter().enumerate() {
        if before_probes.is_none() && instrument::is_probe_pass(p.name()) {
            before_probes = Some(program.clone());
        }
        out.stats[i] = pass::run(*p, &mut program);
        if options.print_after == Some(p.name()) {
            for f in &program.functions {
                out.listings.push_str(&f.listing(&program.target));
                out.listings.push('\n');
            }
        }
    }
    let edited = program.functions.iter().any(|f| !f.edits.is_empty());
    out.instructions_after = program.instruction_count();
    if !edited {
        return Ok(out);
    }
    let text = &program.text;
    let original = &data[text.file_offset as usize..(text.file_offset + text.size) as usize];
    let shift = |new_len: u64| writer::address_shift(&object, new_len);
    let mut laid = match layout::layout(&program, original, &shift) {
        Ok(l) => l,
        Err(e) => {
            out.refused = Some(e.to_string());
            return Ok(out);
        }
    };
    let lowered = writer::lowerings(&object, &program, needed_before.as_deref(), &laid);
    // Probes are looked for only after a probe pass ran (a walk over every node of the program).
    let sites = if before_probes.is_some() { instrument::sites(&program) } else { Vec::new() };
    if let Some(before) = &before_probes
        && !sites.is_empty()
    {
        match instrumented(&object, &program, before, &mut laid, &sites, options.strip_debug_on_failure) {
            Ok((bytes, notes, map)) => {
                out.bytes = Some(bytes);
                out.notes = notes;
                out.counters = Some(map);
            }
            Err(e) => {
                out.refused = Some(e);
                return Ok(out);
            }
        }
    } else if laid.text == original && laid.map.iter().all(|&(a, b)| a == b) && laid.registers.iter().all(|r| !raises(&object, &program.target, r)) && lowered.is_empty() {
        // The edits cancel out (e.g. insert-nops then remove-nops): the input is the output.
        out.bytes = Some(data.to_vec());
    } else {
        match writer::write(&object, &program, &mut laid, &lowered, options.strip_debug_on_failure) {
            Ok((bytes, notes)) => {
                out.bytes = Some(bytes);
                out.notes = notes;
            }
            Err(e) => {
                out.refused = Some(e);
                return Ok(out);
            }
        }
    }
    let bytes = out.bytes.as_ref().unwrap();
    let input_structure = input_structure.unwrap_or_else(|| verify::structure_with(data, decoders));
    if let Err(problems) = verify::against(&object, &input_structure, &program, &laid, bytes, decoders) {
        anyhow::bail!("the rewritten object fails verification: {}", problems.join("; "));
    }
    Ok(out)
}

/// Writes an instrumented object: the static check first, then the text with the probes aimed
/// at where the counters will be, then the counters' segment and symbol.
fn instrumented(object: &CodeObject<'_>, program: &Program, before: &Program, laid: &mut Layout, sites: &[instrument::Site], strip_debug: bool) -> Result<(Vec<u8>, Vec<String>, instrument::map::ObjectMap), String> {
    instrument::check(before, program).map_err(|p| format!("instrumentation static check failed: {}", p.join("; ")))?;
    // The counters go after every segment of the written object; the text's size, and so
    // their address, does not depend on the constants aimed at them.
    let (placeholder, _) = writer::write(object, program, laid, &[], strip_debug)?;
    let at = crate::container::write::counters::address(&placeholder).map_err(|e| e.to_string())?;
    aim(program, laid, sites, at)?;
    let (bytes, notes) = writer::write(object, program, laid, &[], strip_debug)?;
    let size = instrument::counters_bytes(sites);
    let (bytes, placed) = crate::container::write::counters::add(&bytes, size, instrument::SYMBOL).map_err(|e| e.to_string())?;
    if placed != at {
        return Err(format!("the counters were placed at {placed:#x}, not at {at:#x} where the probes point"));
    }
    let used: Vec<(String, u32, u32, u32)> = laid.registers.iter().map(|r| (r.kernel.clone(), r.sgprs, r.vgprs, r.agprs)).collect();
    let map = instrument::map::object_map(object, program, before, &used, sites, at, size);
    Ok((bytes, notes, map))
}

/// Aims each probe at its counters at `counters` (the address of `__gfxpatch_counters` in the
/// output): rewrites the adds' literal dwords in `laid.inserted` and `laid.text` alike, in
/// place (a literal stays a literal, so nothing moves).
fn aim(program: &Program, laid: &mut Layout, sites: &[instrument::Site], counters: u64) -> Result<(), String> {
    use crate::isa::operand::Value;
    use crate::isa::table::OperandName;
    let b = crate::isa::encode::Builder::new(program.target);
    let base = program.text.address;
    for s in sites {
        let (getpc_at, _) = laid.inserted[s.getpc];
        let (lo, hi) = instrument::aim_constants(s, getpc_at, counters);
        for (ordinal, half) in [(s.add_lo, lo), (s.add_hi, hi)] {
            let (at, inst) = laid.inserted[ordinal];
            let aimed = b
                .with_operands(&inst, &[(OperandName::src1, Value::Literal(half))])
                .filter(|n| n.len() == inst.len())
                .ok_or_else(|| format!("probe at {getpc_at:#x}: its address constant does not encode"))?;
            laid.inserted[ordinal] = (at, aimed);
            let from = (at - base) as usize;
            laid.text[from..from + aimed.len()].copy_from_slice(&aimed.bytes());
        }
    }
    Ok(())
}

/// Graphics shaders whose wave size the object does not record (Mesa, GFX10+): where the
/// shader's own code proves it wave32, register raises need not provide for wave64.
fn settle_wave_sizes(object: &mut CodeObject<'_>, program: &Program) {
    use crate::ir::liveness::{operand_units, unit};
    let generation = program.target.generation();
    for shader in object.shaders.iter_mut().filter(|s| !s.resources.wave_size_recorded) {
        let Some(f) = program.functions.iter().find(|f| f.entry == shader.entry_address) else { continue };
        let vgprs = f
            .nodes()
            .filter_map(|n| {
                let units = operand_units(&n.inst, &program.target);
                units.units().filter(|u| (unit::VGPR0..unit::AGPR0).contains(u)).max()
            })
            .map(|u| (u - unit::VGPR0) as u32 + 1)
            .max()
            .unwrap_or(0);
        shader.resources.prove_wave32(vgprs, generation);
    }
}

/// True if `used` needs more registers than the kernel's descriptor grants.
fn raises(object: &CodeObject<'_>, target: &Target, used: &layout::RegisterUse) -> bool {
    if let Some(s) = object.shaders.iter().find(|s| s.name == used.kernel) {
        return writer::shader_needs_more(s, target, used);
    }
    let Some(k) = object.kernels.iter().find(|k| k.name == used.kernel) else { return false };
    let r = k.descriptor.registers(target.generation());
    used.vgprs + used.agprs > r.vgprs || r.sgprs.is_some_and(|s| used.sgprs > s)
}

/// The decline reason under which a refused object's rewrites are counted: they were made, but
/// the object was written unchanged.
pub const OBJECT_REFUSED: &str = "object refused (kept unchanged)";

/// Sums per-object pass statistics into per-pass totals, in pass order. A refused object's
/// rewrites count as declined with [`OBJECT_REFUSED`], so `applied` is what the output holds.
pub fn total_stats<'a>(outcomes: impl IntoIterator<Item = &'a Outcome>, passes: &[&'static dyn Pass]) -> Vec<PassStats> {
    let mut totals: Vec<PassStats> = passes.iter().map(|p| PassStats { name: p.name(), ..Default::default() }).collect();
    for o in outcomes {
        for (t, s) in totals.iter_mut().zip(o.written_stats()) {
            t.merge(&s);
        }
    }
    totals
}

/// The JSON report of a rewrite.
#[derive(serde::Serialize)]
pub struct Report {
    pub passes: Vec<PassReport>,
    pub instructions_before: usize,
    pub instructions_after: usize,
    pub functions_opaque: Vec<String>,
    /// Code objects left unchanged, and why.
    pub refused: Vec<String>,
    pub notes: Vec<String>,
    /// One entry per code object, in input order.
    pub objects: Vec<ObjectReport>,
}

/// One code object of a rewrite's report.
#[derive(serde::Serialize)]
pub struct ObjectReport {
    /// The input file (when the command rewrote several).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// Its index in the input.
    pub index: usize,
    /// The offload bundle entry id; absent for a bare code object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bundle_id: Option<String>,
    pub target: String,
    pub instructions_before: usize,
    pub instructions_after: usize,
    /// Rewrites of all passes the output holds for this object.
    pub applied: u64,
    pub declined: u64,
    /// Why the object was written unchanged, if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

#[derive(serde::Serialize)]
pub struct PassReport {
    pub name: &'static str,
    pub applied: u64,
    pub declined: BTreeMap<String, u64>,
    /// Per peephole rule: `{"matched", "applied", "declined": {"reason": N}}`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub rules: BTreeMap<String, crate::pass::RuleStats>,
}

/// Writing the object: the text patch and register counts go to the container writer.
mod writer {
    use super::*;
    use crate::container::write::{self, AddressMap, KernelRegisters, ObjectEdits, TextPatch};

    /// How far addresses after `.text` move when it becomes `new_len` bytes.
    pub fn address_shift(object: &CodeObject<'_>, new_len: u64) -> Result<u64, String> {
        write::address_shift(object, new_len).map_err(|e| e.to_string())
    }

    /// The registers to raise, in the metadata's terms: only kernels whose code now needs
    /// more than the note says (the writer never lowers a count).
    fn registers(object: &CodeObject<'_>, target: &Target, laid: &Layout) -> Vec<KernelRegisters> {
        if object.is_graphics() {
            return laid
                .registers
                .iter()
                .filter(|r| object.shaders.iter().any(|s| s.name == r.kernel && shader_needs_more(s, target, r)))
                .map(|r| KernelRegisters { kernel: r.kernel.clone(), vgpr_count: r.vgprs, agpr_count: 0, sgpr_count: r.sgprs })
                .collect();
        }
        let unified = target.generation().has_unified_agprs();
        let meta = object.metadata.as_ref();
        laid.registers
            .iter()
            .filter_map(|r| {
                let m = meta.and_then(|m| m.kernels.iter().find(|k| k.name == r.kernel))?;
                let vgpr_count = if unified && r.agprs > 0 { r.vgprs.next_multiple_of(4) + r.agprs } else { r.vgprs };
                let wanted = KernelRegisters { kernel: r.kernel.clone(), vgpr_count, agpr_count: r.agprs, sgpr_count: r.sgprs };
                let more = |now: Option<u64>, want: u32| now.is_some_and(|n| u64::from(want) > n);
                (more(m.vgpr_count, wanted.vgpr_count) || more(m.agpr_count, wanted.agpr_count) || more(m.sgpr_count, wanted.sgpr_count)).then_some(wanted)
            })
            .collect()
    }

    /// True if a shader's code now uses more registers than its metadata counts or its RSRC1
    /// blocks grant (under every wave size it may run in).
    pub fn shader_needs_more(shader: &crate::container::graphics::Shader<'_>, target: &Target, used: &layout::RegisterUse) -> bool {
        let g = target.generation();
        let r = &shader.resources;
        let granted = r.registers(g);
        used.vgprs > r.vgprs_granted(g)
            || granted.sgprs.is_some_and(|s| used.sgprs > s)
            || r.vgpr_count.is_some_and(|n| used.vgprs > n)
            || r.sgpr_count.is_some_and(|n| used.sgprs > n)
    }

    /// The VGPR counts to lower after a pass took code back out (`patch -R`), the code's need
    /// before the passes being `before`: a kernel whose code now needs fewer VGPRs than it did,
    /// down to what it needs now, but never below the work-item ID VGPRs the hardware writes
    /// (`enable_vgpr_workitem_id`; one VGPR where the IDs are packed). The writer lowers only
    /// a count that is exactly what a raise to the old need leaves ([`write::VgprLowering`]).
    /// None is lowered, failing closed, where the code does not show every register the
    /// kernel needs: a call, a jump out or an indirect jump (a callee's registers count too),
    /// a dynamic stack, an opaque function; nor where the counts mix two files (AGPRs used)
    /// or the code is a graphics shader (the hardware writes input VGPRs, interpolants or
    /// vertex indices, that the code need not read).
    pub fn lowerings(object: &CodeObject<'_>, program: &Program, before: Option<&[layout::RegisterUse]>, laid: &Layout) -> Vec<write::VgprLowering> {
        use crate::ir::Flow;
        use crate::isa::processor::Generation;
        let generation = program.target.generation();
        let Some(before) = before else { return Vec::new() };
        if object.is_graphics() {
            return Vec::new();
        }
        let packed_ids = generation >= Generation::Gfx11 || generation.has_unified_agprs();
        laid.registers
            .iter()
            .filter_map(|now| {
                let was = before.iter().find(|b| b.kernel == now.kernel)?;
                let k = object.kernels.iter().find(|k| k.name == now.kernel)?;
                let f = program.functions.iter().find(|f| f.entry == k.entry_address)?;
                let meta = object.metadata.as_ref().and_then(|m| m.kernel(&now.kernel));
                let dynamic_stack = k.descriptor.kernel_code_properties() & (1 << 11) != 0 || meta.is_some_and(|m| m.uses_dynamic_stack == Some(true));
                let leaves = f.nodes().any(|n| matches!(n.flow, Flow::Call(_) | Flow::Jump(_) | Flow::Indirect));
                if dynamic_stack || leaves || f.opaque.is_some() || was.agprs > 0 || now.agprs > 0 {
                    return None;
                }
                let ids = (k.descriptor.compute_pgm_rsrc2() >> 11) & 3;
                let floor = if packed_ids { 1 } else { ids + 1 };
                let to = now.vgprs.max(floor);
                (to < was.vgprs).then(|| write::VgprLowering { kernel: now.kernel.clone(), from: was.vgprs, to })
            })
            .collect()
    }

    /// Writes the object laid out as `laid`. The layout's map and text are lent to the writer
    /// and given back (copies of them were megabytes of fresh memory on a large object); a map
    /// the writer refuses is not given back, as the rewrite is then refused.
    pub fn write(object: &CodeObject<'_>, program: &Program, laid: &mut Layout, lowered: &[write::VgprLowering], strip_debug: bool) -> Result<(Vec<u8>, Vec<String>), String> {
        let map = AddressMap::new(std::mem::take(&mut laid.map)).map_err(|e| e.to_string())?;
        let mut edits = ObjectEdits {
            text: Some(TextPatch { bytes: std::mem::take(&mut laid.text), map }),
            registers: registers(object, &program.target, laid),
            lowered: lowered.to_vec(),
            strip_debug_on_failure: strip_debug,
        };
        let written = write::write_object(object, &edits);
        let TextPatch { bytes, map } = edits.text.take().expect("the text patch put in above");
        (laid.text, laid.map) = (bytes, map.into_pairs());
        let written = written.map_err(|e| e.to_string())?;
        Ok((written.bytes, written.notes))
    }
}
