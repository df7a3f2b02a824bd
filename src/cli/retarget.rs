//! `gfxpatch retarget IN --to gfx1032[,gfx1031,...|all] (-o OUT | --out-dir DIR | --check)`:
//! prove a code object valid on other members of its generic family and write it for each
//! (see [`crate::retarget`]). For an offload bundle or a host library, `-o OUT` gets, in each
//! bundle, a new entry per destination (`hipv4-amdgcn-amd-amdhsa--gfx1032`) right after the
//! entry it was made from; a host library grows to take the larger bundles.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};

use crate::container::bundle::DecompressLimits;
use crate::container::input::{Input, InputKind, MappedFile};
use crate::container::write::write_file_atomically;
use crate::container::CodeObject;
use crate::retarget::{self, Verdict};

#[derive(clap::Args)]
pub struct RetargetArgs {
    /// A code object, an offload bundle or a host library.
    input: PathBuf,
    /// Destination processors, comma-separated, or `all` for every other member of the family.
    #[arg(long, value_delimiter = ',', required = true)]
    to: Vec<String>,
    /// Where to write the result: a code object (one destination), or the bundle or host
    /// library with a new entry per destination in each bundle.
    #[arg(short, long, conflicts_with_all = ["out_dir", "check"])]
    output: Option<PathBuf>,
    /// Write each destination's code object here as `STEM.PROCESSOR.co`.
    #[arg(long, conflicts_with = "check")]
    out_dir: Option<PathBuf>,
    /// Only say what would be retargeted and what blocks the rest.
    #[arg(long)]
    check: bool,
    /// Print the verdicts as JSON.
    #[arg(long)]
    json: bool,
    /// List every wait inserted (where, before what, for which write), not only their count.
    #[arg(long)]
    explain: bool,
}

pub fn run(args: &RetargetArgs) -> anyhow::Result<()> {
    let path = args.input.display().to_string();
    let mapped = MappedFile::open(&args.input).with_context(|| path.clone())?;
    let input = Input::parse(mapped.bytes(), &DecompressLimits::default()).with_context(|| path.clone())?;
    let ([only], InputKind::Elf) = (&input.objects[..], input.kind) else {
        if args.check {
            return check_all(&path, &input, args);
        }
        let Some(output) = &args.output else {
            bail!("{path}: a bundle or host library is written whole, with the new entries: say where with -o OUT");
        };
        return write_all(&path, mapped.bytes(), &input, args, output);
    };
    let object = CodeObject::parse(&only.bytes).with_context(|| path.clone())?;
    let destinations = if args.to.iter().any(|t| t == "all") {
        retarget::siblings(object.target.processor)
    } else {
        args.to.iter().map(|t| retarget::processor(t)).collect::<anyhow::Result<_>>()?
    };
    if destinations.is_empty() {
        bail!("{path}: {} has no generic family, so nothing to retarget to", object.target.processor);
    }
    if args.output.is_some() && destinations.len() != 1 {
        bail!("-o takes one destination; use --out-dir for {}", destinations.len());
    }
    if args.output.is_none() && args.out_dir.is_none() && !args.check {
        bail!("say where to write (-o OUT or --out-dir DIR), or --check");
    }
    if let Some(dir) = &args.out_dir {
        std::fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
    }
    let mut verdicts: Vec<Verdict> = Vec::new();
    for verdict in retarget::check_each(&object, &destinations).with_context(|| path.clone())? {
        let dest = crate::retarget::processor(verdict.destination)?;
        if verdict.retargets() && !args.check {
            let out = match (&args.output, &args.out_dir) {
                (Some(o), _) => o.clone(),
                (None, Some(dir)) => dir.join(format!("{}.{}.co", stem(&args.input), dest.name)),
                (None, None) => unreachable!("checked above"),
            };
            let bytes = retarget::write(&object, &verdict).with_context(|| format!("{path}: {}", dest.name))?;
            write_file_atomically(&out, &bytes).with_context(|| out.display().to_string())?;
            if !args.json {
                println!("{path}: {} -> {}: {}{}", object.target, verdict.target.as_deref().unwrap_or(dest.name), out.display(), waits(&verdict));
                explain(&verdict, args.explain);
            }
        } else if !args.json {
            if verdict.retargets() {
                println!("{path}: {} -> {}: retargets{}", object.target, verdict.target.as_deref().unwrap_or(dest.name), waits(&verdict));
                explain(&verdict, args.explain);
            } else {
                println!("{path}: {} -> {}: refused", object.target, dest.name);
                for b in &verdict.blockers {
                    match b.address {
                        Some(a) => println!("  {a:#x}: {}: {}", b.what, b.why),
                        None => println!("  {}: {}", b.what, b.why),
                    }
                }
            }
        }
        verdicts.push(verdict);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "input": path, "source": object.target.to_string(), "verdicts": verdicts }))?);
    }
    let refused = verdicts.iter().filter(|v| !v.retargets()).count();
    if refused > 0 {
        bail!("{path}: {refused} of {} destination(s) refused", verdicts.len());
    }
    Ok(())
}

/// `, inserting 3 waits (FeatureVALUTransUseHazard)`, when the destination needs any.
fn waits(v: &Verdict) -> String {
    match v.inserted.first() {
        None => String::new(),
        Some(i) => format!(", inserting {} wait(s) for {}", v.inserted.len(), i.hazard),
    }
}

/// With `--explain`, each inserted wait: where, in front of what, for which write.
fn explain(v: &Verdict, explain: bool) {
    if !explain {
        return;
    }
    for i in &v.inserted {
        println!("  {}: `{}` in front of {:#x} `{}`, which reads what {:#x} wrote (input addresses)", i.function, i.inserted, i.before, i.reader, i.writer);
    }
}

fn stem(p: &Path) -> String {
    let name = p.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    name.strip_suffix(".co").map_or(name.clone(), str::to_owned)
}

/// Each code object's verdicts for the destinations named (or all its siblings), in input
/// order; `None` for an object no destination shares a family with.
/// A source processor's name and its verdicts, one per destination.
type SourceVerdicts = (String, Vec<Verdict>);

fn verdicts_of_all(path: &str, input: &Input<'_>, args: &RetargetArgs) -> anyhow::Result<Vec<Option<SourceVerdicts>>> {
    use rayon::prelude::*;
    let all = args.to.iter().any(|t| t == "all");
    let named: Vec<&'static crate::isa::Processor> = if all { Vec::new() } else { args.to.iter().map(|t| retarget::processor(t)).collect::<anyhow::Result<_>>()? };
    input
        .objects
        .par_iter()
        .enumerate()
        .map(|(i, o)| -> anyhow::Result<Option<(String, Vec<Verdict>)>> {
            let object = CodeObject::parse(&o.bytes).with_context(|| format!("{path}: {}", o.describe(i)))?;
            let source = object.target.processor;
            let destinations: Vec<_> = if all {
                retarget::siblings(source)
            } else {
                named.iter().copied().filter(|d| retarget::family(d).is_some() && retarget::family(d) == retarget::family(source) && d.name != source.name).collect()
            };
            if destinations.is_empty() {
                return Ok(None);
            }
            let v = retarget::check_each(&object, &destinations).with_context(|| format!("{path}: {}", o.describe(i)))?;
            Ok(Some((source.name.to_owned(), v)))
        })
        .collect()
}

/// `--check` over every code object of a bundle or host library: per source processor and
/// destination, how many objects retarget and what blocks the others (counted by reason).
fn check_all(path: &str, input: &Input<'_>, args: &RetargetArgs) -> anyhow::Result<()> {
    let verdicts: Vec<(String, Vec<Verdict>)> = verdicts_of_all(path, input, args)?.into_iter().flatten().collect();
    print_table(path, input, &verdicts, args.json, &[])
}

/// One entry `write_all` adds.
#[derive(serde::Serialize)]
struct Added {
    bundle: usize,
    id: String,
    /// The entry it was made from.
    from: String,
}

/// Writes a bundle or host library with, in each bundle, one new entry per destination that
/// some code object of the bundle retargets to (the first such object in entry order; a
/// destination the bundle already has an entry for is left alone).
fn write_all(path: &str, original: &[u8], input: &Input<'_>, args: &RetargetArgs, output: &Path) -> anyhow::Result<()> {
    use crate::container::bundle::parse_bundle_id;
    use crate::container::write::{write_file_atomically_with, write_input_adding, AddedEntry};
    use std::collections::BTreeSet;
    let verdicts = verdicts_of_all(path, input, args)?;
    // (bundle, processor) pairs that have an entry: the original ones, then each added one.
    let mut served: BTreeSet<(usize, String)> = input
        .objects
        .iter()
        .filter_map(|o| Some((o.bundle_index, parse_bundle_id(o.bundle_id.as_deref()?).processor()?.to_owned())))
        .collect();
    let mut added: Vec<AddedEntry> = Vec::new();
    let mut report: Vec<Added> = Vec::new();
    for (i, (o, v)) in input.objects.iter().zip(&verdicts).enumerate() {
        let Some((_, vs)) = v else { continue };
        let id = o.bundle_id.as_deref().unwrap_or_default();
        let bid = parse_bundle_id(id);
        let mut object = None;
        for v in vs.iter().filter(|v| v.retargets()) {
            if !served.insert((o.bundle_index, v.destination.to_owned())) {
                continue;
            }
            let object = match &mut object {
                Some(object) => object,
                None => object.insert(CodeObject::parse(&o.bytes).with_context(|| format!("{path}: {}", o.describe(i)))?),
            };
            let bytes = retarget::write(object, v).with_context(|| format!("{path}: {}: {}", o.describe(i), v.destination))?;
            let new_id = format!("{}-{}--{}", bid.kind, bid.triple, v.target.as_deref().expect("a verdict that retargets names its target"));
            report.push(Added { bundle: o.bundle_index, id: new_id.clone(), from: id.to_owned() });
            added.push(AddedEntry { beside: i, id: new_id, bytes });
        }
    }
    if added.is_empty() {
        bail!("{path}: no code object retargets to any destination named; nothing written (--check says why)");
    }
    let (bytes, _notes) = write_input_adding(original, input, &added).with_context(|| path.to_owned())?;
    write_file_atomically_with(output, Some(Path::new(path)), |f| std::io::Write::write_all(f, &bytes)).with_context(|| output.display().to_string())?;
    let verdicts: Vec<(String, Vec<Verdict>)> = verdicts.into_iter().flatten().collect();
    print_table(path, input, &verdicts, args.json, &report)?;
    if !args.json {
        // One line per (new id, source id): in how many bundles (--json lists each entry).
        let mut counts: std::collections::BTreeMap<(&str, &str), usize> = std::collections::BTreeMap::new();
        for a in &report {
            *counts.entry((a.id.as_str(), a.from.as_str())).or_default() += 1;
        }
        println!("{}: {} entries added", output.display(), report.len());
        for ((id, from), n) in counts {
            println!("  {id} (from {from}): {n} bundle(s)");
        }
    }
    Ok(())
}

/// One line of the table: a source processor and a destination, over the objects of the input.
#[derive(Default)]
struct Row {
    retargets: usize,
    /// Of those, the ones the write inserts waits into.
    with_waits: usize,
    refused: usize,
    /// Reason -> objects it blocks.
    reasons: std::collections::BTreeMap<String, usize>,
}

fn print_table(path: &str, input: &Input<'_>, verdicts: &[(String, Vec<Verdict>)], json: bool, added: &[Added]) -> anyhow::Result<()> {
    let mut table: std::collections::BTreeMap<(String, &str), Row> = std::collections::BTreeMap::new();
    for (source, vs) in verdicts {
        for v in vs {
            let row = table.entry((source.clone(), v.destination)).or_default();
            if v.retargets() {
                row.retargets += 1;
                row.with_waits += usize::from(!v.inserted.is_empty());
            } else {
                row.refused += 1;
                let mut reasons: Vec<String> = v.blockers.iter().map(reason).collect();
                reasons.sort();
                reasons.dedup();
                for r in reasons {
                    *row.reasons.entry(r).or_default() += 1;
                }
            }
        }
    }
    if json {
        let rows: Vec<serde_json::Value> = table
            .iter()
            .map(|((s, d), row)| serde_json::json!({"source": s, "destination": d, "retargets": row.retargets, "with_waits_inserted": row.with_waits, "refused": row.refused, "reasons": row.reasons}))
            .collect();
        println!("{}", serde_json::to_string_pretty(&serde_json::json!({"input": path, "objects": input.objects.len(), "rows": rows, "added": added}))?);
        return Ok(());
    }
    println!("{path}: {} code objects", input.objects.len());
    for ((source, dest), row) in &table {
        let waits = if row.with_waits > 0 { format!(" ({} with waits inserted)", row.with_waits) } else { String::new() };
        println!("  {source} -> {dest}: {} retarget{waits}, {} refused", row.retargets, row.refused);
        for (r, n) in &row.reasons {
            println!("      {n:>5}  {r}");
        }
    }
    Ok(())
}

fn reason(b: &retarget::Blocker) -> String {
    match b.address {
        // "`v_dot2_f32_f16` does not exist on gfx900": the mnemonic, not the operands.
        Some(_) if b.why.starts_with("does not exist") || b.why.starts_with("decodes on") => {
            format!("{}: {}", b.what.split_whitespace().next().unwrap_or(""), b.why.split(" as `").next().unwrap_or(&b.why))
        }
        _ => b.why.clone(),
    }
}
