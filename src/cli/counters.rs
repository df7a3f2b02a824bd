//! `gfxpatch counters MAP.json DUMP.bin [--object N] [--json] [--top N] [--dot KERNEL]`: reads
//! the bytes of `__gfxpatch_counters` an instrumented run dumped (little-endian `u64`s) with the
//! map `instrument` wrote, and prints per function: waves, executed instructions at wave and
//! thread level, the opcode histogram and the hottest blocks; `--dot` writes a function's CFG
//! with block heat for Graphviz. `count-blocks` measures only the chords of a spanning tree of
//! each function's control flow; the counts of the other blocks are solved here by
//! conservation of flow ([`crate::pass::instrument::flow::solve`]), exactly, or not printed at
//! all (a dump that contradicts the map is an error).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context as _};
use serde::Serialize;

use super::instrument::MapFile;
use crate::pass::instrument::map::{ObjectMap, SolvedBlock};
use crate::pass::instrument::ProbeKind;

#[derive(clap::Args)]
pub struct CountersArgs {
    /// The map file `gfxpatch instrument` wrote.
    map: PathBuf,
    /// The counters' bytes after a run.
    dump: PathBuf,
    /// Which code object of the map the dump belongs to (its index; default: the only
    /// instrumented one).
    #[arg(long)]
    object: Option<usize>,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// How many of the hottest blocks to list per function.
    #[arg(long, default_value_t = 5)]
    top: usize,
    /// Write this function's CFG with block heat as Graphviz (to stdout) instead of the summary.
    #[arg(long)]
    dot: Option<String>,
    /// Print only the trace-memory records (with --json: as JSON).
    #[arg(long)]
    trace: bool,
}

/// The trace ring of a dump, decoded with the map: every record still held, oldest first.
#[derive(Debug, Serialize)]
pub struct Trace {
    /// Records ever appended; the ring holds the last `capacity` of them.
    pub appended: u64,
    pub capacity: u64,
    /// Times the ring wrapped (`appended / capacity`): the oldest `appended - capacity` records
    /// were overwritten.
    pub wraps: u64,
    /// Indexes whose slot a record of an earlier lap overwrote late (a slow wave): lost.
    pub lost: Vec<u64>,
    pub records: Vec<TraceRecord>,
}

#[derive(Debug, Serialize)]
pub struct TraceRecord {
    /// Position among every record appended.
    pub index: u64,
    pub function: String,
    /// The instruction's address in the input code object, and its text.
    pub instruction: u64,
    pub text: String,
    /// The first active lane's address.
    pub address: u64,
    pub exec: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// Decodes the trace ring of `dump` with `map`; `None` if the object traced nothing. A record
/// naming an instruction the map does not list is an error (a dump of another object).
pub fn trace(map: &ObjectMap, dump: &[u8]) -> anyhow::Result<Option<Trace>> {
    let Some(t) = &map.trace else { return Ok(None) };
    let ring = crate::pass::instrument::trace::read_ring(dump, t.header, t.records).map_err(anyhow::Error::msg)?;
    let mut records = Vec::with_capacity(ring.records.len());
    for r in &ring.records {
        let Ok(i) = t.instructions.binary_search_by_key(&r.id, |i| i.id) else {
            bail!("trace record {} names instruction {:#x}, which the map does not list: is the dump of this map's object?", r.index, r.id);
        };
        let ins = &t.instructions[i];
        records.push(TraceRecord { index: r.index, function: ins.function.clone(), instruction: u64::from(r.id), text: ins.text.clone(), address: r.address(ins.offset), exec: r.exec, source: ins.source.clone() });
    }
    Ok(Some(Trace { appended: ring.appended, capacity: t.records, wraps: ring.wraps, lost: ring.lost, records }))
}

/// The trace as text: a line per record, oldest first, after what wrapped or was lost.
pub fn trace_text(t: &Trace) -> String {
    let mut out = format!("trace: {} records appended to a ring of {}", t.appended, t.capacity);
    if t.wraps > 0 {
        let _ = write!(out, "; it wrapped {} times: the oldest {} records were overwritten", t.wraps, t.appended - t.capacity);
    }
    out.push('\n');
    if !t.lost.is_empty() {
        let _ = writeln!(out, "  {} records lost (their slot holds a record of an earlier lap, written late): indexes {:?}", t.lost.len(), t.lost);
    }
    for r in &t.records {
        let at = r.source.as_deref().map(|s| format!("  ({s})")).unwrap_or_default();
        let _ = writeln!(out, "  #{:<8} {} {:#x}: {}  address {:#x}  exec {:#x}{at}", r.index, r.function, r.instruction, r.text, r.address, r.exec);
    }
    out
}

/// What the counters say about one function.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub struct FunctionCounts {
    pub function: String,
    pub kind: String,
    /// From `count-kernel`: waves (lanes) that started and that reached an `s_endpgm`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waves_started: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lanes_started: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waves_ended: Option<u64>,
    /// From `count-blocks`: executed instructions, per wave and per active lane.
    pub wave_instructions: u64,
    pub thread_instructions: u64,
    /// Wave-level executions per mnemonic.
    pub opcodes: BTreeMap<String, u64>,
    pub top_blocks: Vec<BlockCount>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct BlockCount {
    pub block: u64,
    pub waves: u64,
    pub lanes: u64,
    pub instructions: usize,
    /// `file:line` from the map, where the object had `.debug_line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

fn counter_reader<'a>(map: &ObjectMap, dump: &'a [u8]) -> anyhow::Result<impl Fn(u64) -> u64 + 'a> {
    if (dump.len() as u64) < map.bytes {
        bail!("the dump has {} bytes, the counters {}: is it the right object's dump?", dump.len(), map.bytes);
    }
    Ok(move |i: u64| u64::from_le_bytes(dump[(i * 8) as usize..(i * 8 + 8) as usize].try_into().unwrap()))
}

fn block_counts(map: &ObjectMap, dump: &[u8]) -> anyhow::Result<Vec<(String, Vec<SolvedBlock>)>> {
    map.block_counts(dump).map_err(anyhow::Error::msg)
}

/// Sums the counters `dump` holds by function, as `map` describes them.
pub fn summarise(map: &ObjectMap, dump: &[u8], top: usize) -> anyhow::Result<Vec<FunctionCounts>> {
    let counter = counter_reader(map, dump)?;
    let mut by: BTreeMap<&str, FunctionCounts> = BTreeMap::new();
    for p in &map.probes {
        let f = by.entry(&p.function).or_insert_with(|| FunctionCounts { function: p.function.clone(), kind: p.function_kind.clone(), ..Default::default() });
        let (waves, lanes) = (counter(p.first_counter), counter(p.first_counter + 1));
        match p.kind {
            ProbeKind::KernelStart => {
                *f.waves_started.get_or_insert(0) += waves;
                *f.lanes_started.get_or_insert(0) += lanes;
            }
            ProbeKind::KernelEnd => *f.waves_ended.get_or_insert(0) += waves,
            ProbeKind::Block | ProbeKind::BlockEnd | ProbeKind::BlockCriticalEdge | ProbeKind::TraceMemory => {}
        }
    }
    for (name, blocks) in block_counts(map, dump)? {
        let Some(f) = by.get_mut(name.as_str()) else { continue };
        let mut top_blocks = Vec::with_capacity(blocks.len());
        for b in blocks {
            let n = b.opcodes.len() as u64;
            f.wave_instructions += b.waves * n;
            f.thread_instructions += b.lanes * n;
            for op in &b.opcodes {
                *f.opcodes.entry(op.clone()).or_insert(0) += b.waves;
            }
            top_blocks.push(BlockCount { block: b.address, waves: b.waves, lanes: b.lanes, instructions: b.opcodes.len(), source: b.source });
        }
        top_blocks.sort_by_key(|c| std::cmp::Reverse((c.waves * c.instructions as u64, c.block)));
        top_blocks.truncate(top);
        f.top_blocks = top_blocks;
    }
    Ok(by.into_values().collect())
}

/// The function's CFG with each block's wave count, shaded by heat.
pub fn dot(map: &ObjectMap, dump: &[u8], function: &str) -> anyhow::Result<String> {
    let all = block_counts(map, dump)?;
    let Some((_, blocks)) = all.iter().find(|(f, _)| f == function) else {
        bail!("no count-blocks probes in {function}");
    };
    let hottest = blocks.iter().map(|b| b.waves).max().unwrap_or(0).max(1);
    let mut out = format!("digraph \"{function}\" {{\n  node [shape=box, style=filled, fontname=monospace];\n");
    for b in blocks {
        // White (cold) to red (hottest).
        let heat = (255 - b.waves * 255 / hottest) as u8;
        let _ = writeln!(out, "  b{:x} [label=\"{:#x}\\n{} instructions\\nwaves {}  lanes {}\", fillcolor=\"#ff{heat:02x}{heat:02x}\"];", b.address, b.address, b.opcodes.len(), b.waves, b.lanes);
    }
    for b in blocks {
        for s in &b.successors {
            let _ = writeln!(out, "  b{:x} -> b{:x};", b.address, s);
        }
    }
    out.push_str("}\n");
    Ok(out)
}

pub fn run(args: &CountersArgs) -> anyhow::Result<()> {
    let mut bytes = std::fs::read(&args.map).with_context(|| args.map.display().to_string())?;
    if super::instrument::is_compressed_map(&args.map) {
        bytes = zstd::decode_all(&bytes[..]).with_context(|| format!("{}: not zstd", args.map.display()))?;
    }
    let map: MapFile = serde_json::from_slice(&bytes).with_context(|| format!("{}: not a gfxpatch instrument map", args.map.display()))?;
    let dump = std::fs::read(&args.dump).with_context(|| args.dump.display().to_string())?;
    let with_counters: Vec<&ObjectMap> = map.objects.iter().filter_map(|o| o.counters.as_ref()).collect();
    let object = match args.object {
        Some(i) => map.objects.get(i).and_then(|o| o.counters.as_ref()).with_context(|| format!("code object {i} has no counters in the map"))?,
        None if with_counters.len() == 1 => with_counters[0],
        None => bail!("the map has {} instrumented code objects: say which one with --object N", with_counters.len()),
    };
    if let Some(f) = &args.dot {
        print!("{}", dot(object, &dump, f)?);
        return Ok(());
    }
    let traced = trace(object, &dump)?;
    if args.trace {
        let Some(t) = &traced else { bail!("the map's object has no trace-memory probes") };
        if args.json {
            println!("{}", serde_json::to_string_pretty(t)?);
        } else {
            print!("{}", trace_text(t));
        }
        return Ok(());
    }
    let counts = summarise(object, &dump, args.top)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&counts)?);
        return Ok(());
    }
    let mut out = String::new();
    for c in &counts {
        let _ = writeln!(out, "{} {}", c.kind, c.function);
        if let (Some(s), Some(e)) = (c.waves_started, c.waves_ended) {
            let _ = writeln!(out, "  waves started {s}, ended {e}, lanes started {}", c.lanes_started.unwrap_or(0));
        }
        if !c.opcodes.is_empty() {
            let _ = writeln!(out, "  executed instructions: {} per wave, {} per lane", c.wave_instructions, c.thread_instructions);
            let mut hist: Vec<_> = c.opcodes.iter().collect();
            hist.sort_by_key(|(k, v)| (std::cmp::Reverse(**v), *k));
            let _ = writeln!(out, "  opcodes (wave executions):");
            for (op, n) in hist {
                let _ = writeln!(out, "    {n:>12}  {op}");
            }
            let _ = writeln!(out, "  hottest blocks:");
            for b in &c.top_blocks {
                let at = b.source.as_deref().map(|s| format!(" ({s})")).unwrap_or_default();
                let _ = writeln!(out, "    {:#x}{at}: {} instructions, waves {}, lanes {}", b.block, b.instructions, b.waves, b.lanes);
            }
        }
    }
    if let Some(t) = &traced {
        out += &trace_text(t);
    }
    print!("{out}");
    Ok(())
}
