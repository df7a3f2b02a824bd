//! `gfxpatch instrument IN -o OUT --probe P[,P...] [--kernels PATTERNS] [--map OUT.map.json]`:
//! the rewrite with probe passes, for a code object, a bundle or a host library (every code
//! object in parallel, as `rewrite` does), plus the map file that says what each counter of
//! `__gfxpatch_counters` counts. docs/instrumentation.md.

use std::path::PathBuf;

use anyhow::{bail, Context as _};
use serde::Serialize;

use super::rewrite::{rewrite_file, write_report, Progress};
use crate::pass::instrument::map::ObjectMap;
use crate::pass::instrument::{self, CountBlocks, CountKernel, Filter, TraceMemory};
use crate::pass::Pass;
use crate::rewrite::Options;

#[derive(clap::Args)]
pub struct InstrumentArgs {
    /// A code object, offload bundle or host library.
    input: PathBuf,
    /// Where to write the instrumented file.
    #[arg(short, long)]
    output: PathBuf,
    /// Probes, in order (comma-separated): count-blocks, count-kernel, trace-memory;
    /// count-every-block counts what count-blocks does, with a probe in every block.
    #[arg(long, value_delimiter = ',', required = true)]
    probe: Vec<String>,
    /// Only functions whose (mangled) name this regular expression matches anywhere, as `grep`
    /// does: `--kernels 'csrmv|bsrmv_general'`, `--kernels '^_Z.*csrmv'`.
    #[arg(long)]
    kernels: Option<String>,
    /// Where to write the map file (default: OUT.map.json); a name ending in `.zst` writes it
    /// zstd-compressed (a whole library's map is GBs of JSON otherwise).
    #[arg(long)]
    map: Option<PathBuf>,
    /// Drop DWARF the writer cannot update instead of refusing.
    #[arg(long)]
    strip_debug_on_failure: bool,
    /// Write the JSON report `rewrite --report` writes (per pass applied/declined, per object).
    #[arg(long)]
    report: Option<PathBuf>,
    /// Instrument this many code objects at once (default: one per CPU).
    #[arg(short, long)]
    jobs: Option<usize>,
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
    let filter = Filter::new(args.kernels.as_deref().unwrap_or("")).map_err(anyhow::Error::msg)?;
    let mut passes: Vec<&'static dyn Pass> = Vec::new();
    for p in &args.probe {
        match p.as_str() {
            instrument::COUNT_BLOCKS => passes.push(Box::leak(Box::new(CountBlocks { filter: filter.clone(), every_block: false }))),
            instrument::COUNT_EVERY_BLOCK => passes.push(Box::leak(Box::new(CountBlocks { filter: filter.clone(), every_block: true }))),
            instrument::COUNT_KERNEL => passes.push(Box::leak(Box::new(CountKernel { filter: filter.clone() }))),
            instrument::TRACE_MEMORY => passes.push(Box::leak(Box::new(TraceMemory { filter: filter.clone() }))),
            other => bail!("unknown probe {other:?} (known: count-blocks, count-every-block, count-kernel, trace-memory)"),
        }
    }
    let options = Options { passes: passes.clone(), print_after: None, strip_debug_on_failure: args.strip_debug_on_failure };
    let progress = Progress::new(true);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.jobs.unwrap_or(0)).build()?;
    let done = pool.install(|| rewrite_file(&args.input, &args.output, &options, false, &progress))?;
    if let Some(report) = &args.report {
        write_report(report, std::slice::from_ref(&done), &passes)?;
    }
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
    // A whole library's map lists millions of blocks: pretty JSON for one object, compact
    // JSON for many, zstd when the name asks for it (librocsparse: GBs of JSON otherwise).
    let mut json = if map.objects.len() > OBJECTS_LISTED { serde_json::to_vec(&map)? } else { serde_json::to_vec_pretty(&map)? };
    json.push(b'\n');
    if is_compressed_map(&map_path) {
        json = zstd::encode_all(&json[..], 3)?;
    }
    crate::container::write::write_file_atomically(&map_path, &json).with_context(|| map_path.display().to_string())?;
    if !args.quiet {
        eprint!("{}", summary(&map));
    }
    Ok(())
}

/// A map whose name ends in `.zst` is written and read zstd-compressed.
pub fn is_compressed_map(path: &std::path::Path) -> bool {
    path.extension().is_some_and(|e| e == "zst")
}

/// Objects listed one by one up to this many; above, only the totals (a library has hundreds).
const OBJECTS_LISTED: usize = 16;

/// Per object (for a few): probes, counters, static growth, refusals, and kernels whose
/// registers grew; for more than one object, the totals of [`totals`].
pub fn summary(map: &MapFile) -> String {
    let mut out = String::new();
    if map.objects.len() > OBJECTS_LISTED {
        return totals(map);
    }
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
                    out += &format!("  {}: {}, waves/SIMD {} -> {}\n", k.kernel, k.register_change(), k.waves_per_simd_before, k.waves_per_simd_after);
                }
            }
        }
        for (why, n) in &o.declined {
            out += &format!("  declined {n}: {why}\n");
        }
    }
    if map.objects.len() > 1 {
        out += &totals(map);
    }
    out
}

/// A whole input at a glance: objects instrumented, refused and left without probes (by
/// reason), functions declined (by reason), static growth, and the kernels whose register
/// allocation grew: how many, by how much, and the occupancy they go from and to.
pub fn totals(map: &MapFile) -> String {
    use std::collections::BTreeMap;
    let (mut instrumented, mut probes, mut before, mut after) = (0usize, 0usize, 0usize, 0usize);
    let mut refused: BTreeMap<&str, usize> = BTreeMap::new();
    let mut unprobed: BTreeMap<String, usize> = BTreeMap::new();
    let mut declined: BTreeMap<&str, u64> = BTreeMap::new();
    let (mut kernels, mut grew) = (0usize, 0usize);
    let mut vgpr_growth: BTreeMap<u32, usize> = BTreeMap::new();
    let mut sgpr_growth: BTreeMap<u32, usize> = BTreeMap::new();
    let mut occupancy: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for o in &map.objects {
        for (why, n) in &o.declined {
            *declined.entry(why).or_default() += n;
        }
        match (&o.refused, &o.counters) {
            (Some(why), _) => *refused.entry(why).or_default() += 1,
            (None, None) => {
                let reasons: Vec<&str> = o.declined.keys().map(String::as_str).collect();
                *unprobed.entry(if reasons.is_empty() { "no function selected".into() } else { reasons.join("; ") }).or_default() += 1;
            }
            (None, Some(c)) => {
                instrumented += 1;
                probes += c.probes.len();
                before += o.instructions_before;
                after += o.instructions_after;
                for k in &c.kernels {
                    kernels += 1;
                    let dv = k.vgprs_after.saturating_sub(k.vgprs_before);
                    let ds = k.sgprs_after.unwrap_or(0).saturating_sub(k.sgprs_before.unwrap_or(0));
                    if dv > 0 || ds > 0 {
                        grew += 1;
                        *vgpr_growth.entry(dv).or_default() += 1;
                        *sgpr_growth.entry(ds).or_default() += 1;
                    }
                    *occupancy.entry((k.waves_per_simd_before, k.waves_per_simd_after)).or_default() += 1;
                }
            }
        }
    }
    let mut out = format!(
        "{} code objects: {instrumented} instrumented ({probes} probes; {before} -> {after} instructions, {:.2} inserted per original), {} refused, {} without probes\n",
        map.objects.len(),
        (after as f64 - before as f64) / before.max(1) as f64,
        refused.values().sum::<usize>(),
        unprobed.values().sum::<usize>()
    );
    for (why, n) in &refused {
        out += &format!("  refused {n}: {why}\n");
    }
    for (why, n) in &unprobed {
        out += &format!("  without probes {n}: {why}\n");
    }
    for (why, n) in &declined {
        out += &format!("  functions declined {n}: {why}\n");
    }
    let histogram = |h: &BTreeMap<u32, usize>| h.iter().map(|(d, n)| format!("+{d}: {n}")).collect::<Vec<_>>().join(", ");
    out += &format!("  kernels instrumented {kernels}, registers grew in {grew}: VGPRs {{{}}}, SGPRs {{{}}}\n", histogram(&vgpr_growth), histogram(&sgpr_growth));
    let moves: Vec<String> = occupancy.iter().map(|((b, a), n)| format!("{b} -> {a}: {n}")).collect();
    out += &format!("  waves/SIMD before -> after (kernels): {}\n", moves.join(", "));
    out
}
