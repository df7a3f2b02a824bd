//! `gfxpatch instrument IN -o OUT --probe P[,P...] [--kernels PATTERNS] [--map OUT.map.json]`:
//! the rewrite with probe passes, for a code object, a bundle or a host library (every code
//! object in parallel, as `rewrite` does), plus the map file that says what each counter of
//! `__gfxpatch_counters` counts. docs/instrumentation.md.

use std::path::PathBuf;

use anyhow::{bail, Context as _};
use serde::Serialize;

use super::rewrite::{rewrite_file, Progress};
use crate::pass::instrument::map::ObjectMap;
use crate::pass::instrument::{self, CountBlocks, CountKernel, Filter};
use crate::pass::Pass;
use crate::rewrite::Options;

#[derive(clap::Args)]
pub struct InstrumentArgs {
    /// A code object, offload bundle or host library.
    input: PathBuf,
    /// Where to write the instrumented file.
    #[arg(short, long)]
    output: PathBuf,
    /// Probes, in order (comma-separated): count-blocks, count-kernel.
    #[arg(long, value_delimiter = ',', required = true)]
    probe: Vec<String>,
    /// Only functions whose name matches one of these comma-separated patterns (`*` matches
    /// any run of characters): `--kernels 'csrmv*,bsrmv_general'`.
    #[arg(long)]
    kernels: Option<String>,
    /// Where to write the map file (default: OUT.map.json).
    #[arg(long)]
    map: Option<PathBuf>,
    /// Drop DWARF the writer cannot update instead of refusing.
    #[arg(long)]
    strip_debug_on_failure: bool,
    /// No summary on stderr.
    #[arg(short, long)]
    quiet: bool,
}

/// The map file: one entry per code object of the input, in input order.
#[derive(Serialize, serde::Deserialize)]
pub struct MapFile {
    pub input: String,
    pub probes: Vec<String>,
    pub objects: Vec<MapObject>,
}

#[derive(Serialize, serde::Deserialize)]
pub struct MapObject {
    pub index: usize,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub bundle_id: Option<String>,
    pub target: String,
    /// Why the object was written uninstrumented, if it was.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub refused: Option<String>,
    /// Functions left uninstrumented, by reason.
    pub declined: std::collections::BTreeMap<String, u64>,
    pub instructions_before: usize,
    pub instructions_after: usize,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub counters: Option<ObjectMap>,
}

pub fn run(args: &InstrumentArgs) -> anyhow::Result<()> {
    let filter = Filter::new(args.kernels.as_deref().unwrap_or(""));
    let mut passes: Vec<&'static dyn Pass> = Vec::new();
    for p in &args.probe {
        match p.as_str() {
            instrument::COUNT_BLOCKS => passes.push(Box::leak(Box::new(CountBlocks { filter: filter.clone() }))),
            instrument::COUNT_KERNEL => passes.push(Box::leak(Box::new(CountKernel { filter: filter.clone() }))),
            "trace-memory" => bail!("--probe trace-memory: not implemented yet (docs/instrumentation.md)"),
            other => bail!("unknown probe {other:?} (known: count-blocks, count-kernel)"),
        }
    }
    let options = Options { passes, print_after: None, strip_debug_on_failure: args.strip_debug_on_failure };
    let progress = Progress::new(true);
    let done = rewrite_file(&args.input, &args.output, &options, false, &progress)?;
    let objects: Vec<MapObject> = done
        .objects
        .into_iter()
        .enumerate()
        .map(|(index, o)| {
            let mut declined = std::collections::BTreeMap::new();
            for s in &o.outcome.stats {
                for (k, v) in &s.declined {
                    *declined.entry(format!("{}: {k}", s.name)).or_insert(0) += v;
                }
            }
            MapObject {
                index,
                bundle_id: o.bundle_id,
                target: o.outcome.target.clone(),
                refused: o.outcome.refused.clone(),
                declined,
                instructions_before: o.outcome.instructions_before,
                instructions_after: o.outcome.instructions_written(),
                counters: o.outcome.refused.is_none().then_some(o.outcome.counters).flatten(),
            }
        })
        .collect();
    let map = MapFile { input: args.input.display().to_string(), probes: args.probe.clone(), objects };
    let map_path = args.map.clone().unwrap_or_else(|| {
        let mut p = args.output.clone().into_os_string();
        p.push(".map.json");
        PathBuf::from(p)
    });
    let json = serde_json::to_string_pretty(&map)? + "\n";
    crate::container::write::write_file_atomically(&map_path, json.as_bytes()).with_context(|| map_path.display().to_string())?;
    if !args.quiet {
        eprint!("{}", summary(&map));
    }
    Ok(())
}

/// Per object: probes, counters, static growth, refusals, and kernels whose registers grew.
pub fn summary(map: &MapFile) -> String {
    let mut out = String::new();
    for o in &map.objects {
        let name = o.bundle_id.clone().unwrap_or_else(|| format!("code object {}", o.index));
        match (&o.refused, &o.counters) {
            (Some(why), _) => out += &format!("{name} ({}): refused, kept unchanged: {why}\n", o.target),
            (None, None) => out += &format!("{name} ({}): no probes placed\n", o.target),
            (None, Some(c)) => {
                let ratio = (o.instructions_after as f64 - o.instructions_before as f64) / o.instructions_before.max(1) as f64;
                out += &format!(
                    "{name} ({}): {} probes, {} bytes of counters at {:#x}; {} -> {} instructions ({ratio:.2} inserted per original)\n",
                    o.target,
                    c.probes.len(),
                    c.bytes,
                    c.address,
                    o.instructions_before,
                    o.instructions_after
                );
                for k in c.kernels.iter().filter(|k| k.vgprs_after != k.vgprs_before || k.sgprs_after != k.sgprs_before) {
                    out += &format!(
                        "  {}: VGPRs {} -> {}, SGPRs {:?} -> {:?}, waves/SIMD {} -> {}\n",
                        k.kernel, k.vgprs_before, k.vgprs_after, k.sgprs_before, k.sgprs_after, k.waves_per_simd_before, k.waves_per_simd_after
                    );
                }
            }
        }
        for (why, n) in &o.declined {
            out += &format!("  declined {n}: {why}\n");
        }
    }
    out
}
