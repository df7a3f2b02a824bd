//! `gfxpatch info FILE [--json]`: what is in a code object, an offload bundle or a host library.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use rayon::prelude::*;
use serde::Serialize;

use crate::container::bundle::DecompressLimits;
use crate::container::descriptor::{disagreements, DescriptorRegisters, KernelDescriptor};
use crate::container::elf::{CodeObject, ElfType, Kernel, OsAbi};
use crate::container::graphics::{RegisterSource, Shader, Stage};
use crate::container::input::{EmbeddedObject, HostInfo, Input, InputKind, MappedFile};
use crate::container::metadata::KernelMetadata;
use crate::isa::Generation;

#[derive(clap::Args)]
pub struct InfoArgs {
    /// A code object, an offload bundle (plain or compressed) or a host ELF with .hip_fatbin.
    file: PathBuf,
    /// Print JSON (same schema for every kind of input).
    #[arg(long)]
    json: bool,
    /// For host libraries and bundles, list every code object's kernels, not only the summary.
    #[arg(long, short)]
    verbose: bool,
}

pub fn run(args: &InfoArgs) -> anyhow::Result<()> {
    let report = file_report(&args.file).with_context(|| args.file.display().to_string())?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render_text(&report, args.verbose));
    }
    Ok(())
}

/// Everything `info` reports about one file.
#[derive(Serialize)]
pub struct FileReport {
    pub file: String,
    pub kind: InputKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<HostReport>,
    pub code_objects: Vec<ObjectReport>,
}

#[derive(Serialize)]
pub struct HostReport {
    pub machine: u16,
    pub fatbin_offset: u64,
    pub fatbin_size: u64,
    pub bundles: usize,
}

#[derive(Serialize)]
pub struct ObjectReport {
    pub bundle_id: Option<String>,
    pub target: String,
    pub processor: &'static str,
    pub generation: &'static str,
    pub code_object_version: u32,
    /// `hsa`, `pal` or `mesa3d`.
    pub os_abi: OsAbi,
    pub elf_type: &'static str,
    pub offset: u64,
    pub size: u64,
    pub compressed: bool,
    pub text_size: u64,
    pub kernels: Vec<KernelReport>,
    /// Graphics shaders (PAL and Mesa3D objects).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shaders: Vec<ShaderReport>,
    pub functions: Vec<FunctionReport>,
    /// The other members of its generic family it retargets to (`gfxpatch retarget`'s checks).
    pub retargets_to: Vec<&'static str>,
    /// The members it does not, each with its first blocker.
    pub not_retargets_to: Vec<RetargetRefusal>,
}

#[derive(Serialize)]
pub struct RetargetRefusal {
    pub processor: &'static str,
    pub why: String,
}

/// One graphics shader: its stage, entry, and what its registers and metadata request.
#[derive(Serialize)]
pub struct ShaderReport {
    pub stage: Stage,
    pub name: String,
    pub entry_address: u64,
    pub code_size: u64,
    /// `SPI_SHADER_PGM_RSRC1_PS`, `COMPUTE_PGM_RSRC1`, ...
    pub rsrc1_register: &'static str,
    pub rsrc1: u32,
    pub rsrc2: Option<u32>,
    /// Exact counts from the PAL metadata (Mesa objects have none).
    pub vgpr_count: Option<u32>,
    pub sgpr_count: Option<u32>,
    /// The allocation RSRC1 requests, decoded for the generation and wave size.
    pub registers: DescriptorRegisters,
    pub wave_size_recorded: bool,
    pub lds_size: Option<u32>,
    pub scratch_memory_size: Option<u32>,
    pub scratch_wave_blocks: Option<u32>,
    /// `pal_metadata`, `pal_legacy_note` or `mesa_config`.
    pub registers_from: &'static str,
    pub disagreements: Vec<String>,
}

fn shader_report(shader: &Shader<'_>, generation: Generation) -> ShaderReport {
    let r = &shader.resources;
    ShaderReport {
        stage: shader.stage,
        name: shader.name.to_owned(),
        entry_address: shader.entry_address,
        code_size: shader.code_size,
        rsrc1_register: shader.stage.rsrc1_name(),
        rsrc1: r.rsrc1,
        rsrc2: r.rsrc2,
        vgpr_count: r.vgpr_count,
        sgpr_count: r.sgpr_count,
        registers: r.registers(generation),
        wave_size_recorded: r.wave_size_recorded,
        lds_size: r.lds_size,
        scratch_memory_size: r.scratch_memory_size,
        scratch_wave_blocks: r.scratch_wave_blocks,
        registers_from: match r.source {
            RegisterSource::PalMetadata => "pal_metadata",
            RegisterSource::PalLegacy { .. } => "pal_legacy_note",
            RegisterSource::MesaConfig { .. } => "mesa_config",
        },
        disagreements: crate::container::graphics::disagreements(shader, generation),
    }
}

#[derive(Serialize)]
pub struct FunctionReport {
    pub name: String,
    pub address: u64,
    pub size: u64,
}

#[derive(Serialize)]
pub struct KernelReport {
    pub name: String,
    pub symbol: String,
    pub descriptor_address: u64,
    pub entry_address: u64,
    pub code_size: u64,
    /// From the metadata note (exact counts the compiler reported).
    pub vgpr_count: Option<u64>,
    pub agpr_count: Option<u64>,
    pub sgpr_count: Option<u64>,
    /// From the descriptor (allocation granules, decoded for the generation).
    pub descriptor_registers: DescriptorRegisters,
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    pub kernarg_size: u32,
    pub wavefront_size: u32,
    pub max_flat_workgroup_size: Option<u64>,
    /// Where the descriptor and the metadata disagree, one sentence each.
    pub disagreements: Vec<String>,
    /// Every named field of the descriptor for this generation.
    pub descriptor: DescriptorFields,
}

/// A descriptor serialized as a map of its named fields; computed when written, so a report
/// on a library of 100,000 kernels does not hold 100,000 maps.
pub struct DescriptorFields {
    descriptor: KernelDescriptor,
    generation: Generation,
}

impl Serialize for DescriptorFields {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.descriptor.fields(self.generation))
    }
}

/// Reads `path` and describes every code object in it.
pub fn file_report(path: &Path) -> anyhow::Result<FileReport> {
    let mapped = MappedFile::open(path)?;
    let input = Input::parse(mapped.bytes(), &DecompressLimits::default())?;
    let code_objects = input
        .objects
        .par_iter()
        .enumerate()
        .map(|(i, object)| object_report(object).with_context(|| object.describe(i)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(FileReport {
        file: path.display().to_string(),
        kind: input.kind,
        host: input.host.map(|h: HostInfo| HostReport {
            machine: h.machine,
            fatbin_offset: h.fatbin_offset,
            fatbin_size: h.fatbin_size,
            bundles: h.bundles,
        }),
        code_objects,
    })
}

fn object_report(embedded: &EmbeddedObject<'_>) -> anyhow::Result<ObjectReport> {
    let object = CodeObject::parse(&embedded.bytes)?;
    let generation = object.target.processor.generation;
    let kernels = object
        .kernels
        .iter()
        .map(|k| kernel_report(&object, k, generation))
        .collect();
    let shaders = object.shaders.iter().map(|s| shader_report(s, generation)).collect();
    let functions = object
        .functions()
        .map(|f| FunctionReport {
            name: f.name.to_owned(),
            address: f.value,
            size: f.size,
        })
        .collect();
    let (mut retargets_to, mut not_retargets_to) = (Vec::new(), Vec::new());
    // Graphics objects are not retargeted: no line of seven identical refusals for them.
    let verdicts = if object.os_abi == OsAbi::Hsa { crate::retarget::candidates(&object)? } else { Vec::new() };
    for v in verdicts {
        match v.blockers.first() {
            None => retargets_to.push(v.destination),
            Some(b) => not_retargets_to.push(RetargetRefusal { processor: v.destination, why: format!("{}: {}", b.what, b.why) }),
        }
    }
    Ok(ObjectReport {
        retargets_to,
        not_retargets_to,
        bundle_id: embedded.bundle_id.clone(),
        target: object.target.to_string(),
        processor: object.target.processor.name,
        generation: generation.name(),
        code_object_version: object.version.number(),
        os_abi: object.os_abi,
        elf_type: match object.elf_type {
            ElfType::Relocatable => "rel",
            ElfType::Shared => "dyn",
            ElfType::Executable => "exec",
            ElfType::Other(_) => "other",
        },
        offset: embedded.offset,
        size: embedded.size,
        compressed: embedded.compressed,
        text_size: object.text_size(),
        kernels,
        shaders,
        functions,
    })
}

fn kernel_report(
    object: &CodeObject<'_>,
    kernel: &Kernel<'_>,
    generation: Generation,
) -> KernelReport {
    let default_meta = KernelMetadata::default();
    let meta = object
        .metadata
        .as_ref()
        .and_then(|m| {
            m.kernels
                .iter()
                .find(|k| k.symbol == object.symbols[kernel.descriptor_symbol].name)
        })
        .unwrap_or(&default_meta);
    let d = &kernel.descriptor;
    let registers = d.registers(generation);
    KernelReport {
        name: kernel.name.to_owned(),
        symbol: object.symbols[kernel.descriptor_symbol].name.to_owned(),
        descriptor_address: kernel.descriptor_address,
        entry_address: kernel.entry_address,
        code_size: kernel.code_size,
        vgpr_count: meta.vgpr_count,
        agpr_count: meta.agpr_count,
        sgpr_count: meta.sgpr_count,
        descriptor_registers: registers,
        group_segment_fixed_size: d.group_segment_fixed_size(),
        private_segment_fixed_size: d.private_segment_fixed_size(),
        kernarg_size: d.kernarg_size(),
        wavefront_size: registers.wave_size,
        max_flat_workgroup_size: meta.max_flat_workgroup_size,
        // Without a metadata note (hand-written, PAL/Mesa objects) there is nothing to disagree
        // with; a note that lacks this kernel is a disagreement.
        disagreements: if object.metadata.is_some() { disagreements(&kernel.descriptor, meta, &registers) } else { Vec::new() },
        descriptor: DescriptorFields {
            descriptor: *d,
            generation,
        },
    }
}

/// The human-readable form: one block per code object, or a per-target summary for many.
pub fn render_text(report: &FileReport, verbose: bool) -> String {
    let mut out = String::new();
    let kind = match report.kind {
        InputKind::Elf => "AMDGPU code object",
        InputKind::Bundle => "offload bundle",
        InputKind::Host => "host ELF with .hip_fatbin",
    };
    let _ = writeln!(
        out,
        "{}: {kind}, {} code object(s)",
        report.file,
        report.code_objects.len()
    );
    if let Some(h) = &report.host {
        let _ = writeln!(
            out,
            ".hip_fatbin at {:#x}, {} bytes, {} bundle(s)",
            h.fatbin_offset, h.fatbin_size, h.bundles
        );
    }
    let many = report.code_objects.len() > 1;
    if many {
        out.push_str(&render_summary(report));
    }
    if !many || verbose {
        for object in &report.code_objects {
            out.push_str(&render_object(object));
        }
    }
    out
}

fn render_summary(report: &FileReport) -> String {
    #[derive(Default)]
    struct Row {
        objects: usize,
        kernels: usize,
        shaders: usize,
        text: u64,
    }
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    for o in &report.code_objects {
        let row = rows.entry(&o.target).or_default();
        row.objects += 1;
        row.kernels += o.kernels.len();
        row.shaders += o.shaders.len();
        row.text += o.text_size;
    }
    // Graphics objects have shaders, not kernels: a column of their own where there are any.
    let with_shaders = rows.values().any(|r| r.shaders > 0);
    let shaders = |n: usize| if with_shaders { format!(" {n:>8}") } else { String::new() };
    let mut out = format!(
        "\n{:<24} {:>8} {:>8}{} {:>14}\n",
        "target",
        "objects",
        "kernels",
        if with_shaders { format!(" {:>8}", "shaders") } else { String::new() },
        ".text bytes"
    );
    for (target, r) in &rows {
        let _ = writeln!(out, "{target:<24} {:>8} {:>8}{} {:>14}", r.objects, r.kernels, shaders(r.shaders), r.text);
    }
    let total = rows.values().fold(Row::default(), |a, r| Row {
        objects: a.objects + r.objects,
        kernels: a.kernels + r.kernels,
        shaders: a.shaders + r.shaders,
        text: a.text + r.text,
    });
    let _ = writeln!(out, "{:<24} {:>8} {:>8}{} {:>14}", "total", total.objects, total.kernels, shaders(total.shaders), total.text);
    // Per target, how many of its objects retarget to each other member of its family.
    let mut retargets: BTreeMap<&str, BTreeMap<&str, (usize, usize)>> = BTreeMap::new();
    for o in &report.code_objects {
        let row = retargets.entry(&o.target).or_default();
        for p in &o.retargets_to {
            row.entry(p).or_default().0 += 1;
        }
        for r in &o.not_retargets_to {
            row.entry(r.processor).or_default().1 += 1;
        }
    }
    // `gfx906 retargets to: gfx902 (45 of 111) gfx909 (45 of 111); not gfx900`
    for (target, row) in retargets.iter().filter(|(_, r)| !r.is_empty()) {
        let to: Vec<String> = row.iter().filter(|(_, (ok, _))| *ok > 0).map(|(p, (ok, no))| if *no == 0 { p.to_string() } else { format!("{p} ({ok} of {})", ok + no) }).collect();
        let not: Vec<&str> = row.iter().filter(|(_, (ok, _))| *ok == 0).map(|(p, _)| *p).collect();
        let _ = write!(out, "{target} retargets to: {}", if to.is_empty() { "none".to_owned() } else { to.join(" ") });
        let _ = writeln!(out, "{}", if not.is_empty() { String::new() } else { format!("; not {}", not.join(" ")) });
    }
    out
}

fn render_shaders(shaders: &[ShaderReport]) -> String {
    let mut out = format!(
        "  {:<5} {:<10} {:>7} {:>10} {:>10} {:>7} {:>8} {:>5}  name\n",
        "stage", "entry", "code", "vgpr md/rs", "sgpr md/rs", "lds", "scratch", "wave"
    );
    let md = |v: Option<u32>| v.map_or("-".to_owned(), |v| v.to_string());
    for s in shaders {
        let scratch = match (s.scratch_memory_size, s.scratch_wave_blocks) {
            (Some(bytes), _) => bytes.to_string(),
            (None, Some(blocks)) => format!("{blocks}blk"),
            (None, None) => "-".to_owned(),
        };
        let wave = format!("{}{}", s.registers.wave_size, if s.wave_size_recorded { "" } else { "?" });
        let _ = writeln!(
            out,
            "  {:<5} {:<#10x} {:>7} {:>10} {:>10} {:>7} {:>8} {:>5}  {}{}",
            s.stage.to_string(),
            s.entry_address,
            s.code_size,
            format!("{}/{}", md(s.vgpr_count), s.registers.vgprs),
            format!("{}/{}", md(s.sgpr_count), s.registers.sgprs.map_or("-".to_owned(), |v| v.to_string())),
            md(s.lds_size),
            scratch,
            wave,
            s.name,
            if s.disagreements.is_empty() { "" } else { "  (!)" }
        );
        let _ = writeln!(out, "        {} = {:#010x}{}", s.rsrc1_register, s.rsrc1, s.rsrc2.map_or(String::new(), |v| format!(", RSRC2 = {v:#010x}")));
        for d in &s.disagreements {
            let _ = writeln!(out, "      (!) {d}");
        }
    }
    out
}

fn render_object(o: &ObjectReport) -> String {
    let mut out = String::new();
    let id = o
        .bundle_id
        .as_deref()
        .map(|id| format!(" [{id}]"))
        .unwrap_or_default();
    let abi = match o.os_abi {
        OsAbi::Hsa => format!("code object v{}", o.code_object_version),
        OsAbi::Pal => "PAL code object".to_owned(),
        OsAbi::Mesa3d => "Mesa3D code object".to_owned(),
    };
    let _ = writeln!(
        out,
        "\n{}{id}: {abi}, {} ({}), ET_{}, .text {} bytes, {} kernel(s), {}{} function(s)",
        o.target,
        o.processor,
        o.generation,
        o.elf_type.to_uppercase(),
        o.text_size,
        o.kernels.len(),
        if o.shaders.is_empty() { String::new() } else { format!("{} shader(s), ", o.shaders.len()) },
        o.functions.len()
    );
    if !o.retargets_to.is_empty() || !o.not_retargets_to.is_empty() {
        let _ = write!(out, "  retargets to: {}", if o.retargets_to.is_empty() { "none".into() } else { o.retargets_to.join(" ") });
        if !o.not_retargets_to.is_empty() {
            // Processors refused for the same reason share one entry: `gfx1101 gfx1102: why`.
            let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
            for r in &o.not_retargets_to {
                match reasons.iter_mut().find(|(why, _)| *why == r.why) {
                    Some((_, processors)) => processors.push(r.processor),
                    None => reasons.push((&r.why, vec![r.processor])),
                }
            }
            let not: Vec<String> = reasons.iter().map(|(why, processors)| format!("{}: {why}", processors.join(" "))).collect();
            let _ = write!(out, " (not {})", not.join("; "));
        }
        out.push('\n');
    }
    if !o.shaders.is_empty() {
        out.push_str(&render_shaders(&o.shaders));
    }
    if o.kernels.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "  {:<10} {:>7} {:>10} {:>5} {:>10} {:>7} {:>8} {:>5} {:>7}  name",
        "entry", "code", "vgpr md/kd", "agpr", "sgpr md/kd", "lds", "scratch", "wave", "kernarg"
    );
    for k in &o.kernels {
        let md = |v: Option<u64>| v.map_or("-".to_owned(), |v| v.to_string());
        let kd_sgprs = k
            .descriptor_registers
            .sgprs
            .map_or("-".to_owned(), |v| v.to_string());
        let _ = writeln!(
            out,
            "  {:<#10x} {:>7} {:>10} {:>5} {:>10} {:>7} {:>8} {:>5} {:>7}  {}{}",
            k.entry_address,
            k.code_size,
            format!("{}/{}", md(k.vgpr_count), k.descriptor_registers.vgprs),
            md(k.agpr_count),
            format!("{}/{kd_sgprs}", md(k.sgpr_count)),
            k.group_segment_fixed_size,
            k.private_segment_fixed_size,
            k.wavefront_size,
            k.kernarg_size,
            k.name,
            if k.disagreements.is_empty() {
                ""
            } else {
                "  (!)"
            }
        );
        for d in &k.disagreements {
            let _ = writeln!(out, "      (!) {d}");
        }
    }
    out
}
