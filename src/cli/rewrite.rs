//! `gfxpatch rewrite IN -o OUT [--passes a,b,c] [--print-after PASS] [--report FILE.json]`
//! (`--in-place`, `--strip-debug-on-failure`): run passes over every code object of a code
//! object, bundle or host library, lay out, write and verify. No passes: the identity.

use std::path::PathBuf;

use anyhow::{bail, Context as _};
use rayon::prelude::*;

use crate::container::bundle::DecompressLimits;
use crate::container::input::{Input, InputKind, MappedFile};
use crate::container::write::{write_file_atomically, write_input_noting};
use crate::isa::Decoders;
use crate::pass::{self, Pass};
use crate::rewrite::{self, Options, Outcome, PassReport, Report};

#[derive(clap::Args)]
pub struct RewriteArgs {
    /// A code object, an offload bundle or a host library.
    input: PathBuf,
    /// Where to write the result.
    #[arg(short, long, required_unless_present = "in_place")]
    output: Option<PathBuf>,
    /// Rewrite the input file itself (through a temporary file and a rename).
    #[arg(long, conflicts_with = "output")]
    in_place: bool,
    /// Passes to run, in order (comma-separated); `gfxpatch rewrite --list-passes` names them.
    /// `peephole:lshl-or,add3` runs only those peephole rules.
    #[arg(long, value_delimiter = ',')]
    passes: Vec<String>,
    /// Peephole rule files to load besides the shipped ones (each rule is proven when loaded;
    /// a wrong rule is refused with its counterexample).
    #[arg(long)]
    rules: Vec<PathBuf>,
    /// Print each peephole rewrite (function, address, before, after) and each declined match
    /// with its reason.
    #[arg(long)]
    explain: bool,
    /// Print every function after this pass.
    #[arg(long)]
    print_after: Option<String>,
    /// Write a JSON report: per pass applied/declined counts, instruction counts, opaque functions.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Drop DWARF the writer cannot update instead of refusing the rewrite.
    #[arg(long)]
    strip_debug_on_failure: bool,
}

pub fn run(args: &RewriteArgs) -> anyhow::Result<()> {
    let path = args.input.display().to_string();
    let passes = parse_passes(&args.passes, &args.rules, args.explain)?;
    if let Some(p) = &args.print_after
        && !passes.iter().any(|q| q.name() == p)
    {
        bail!("--print-after {p}: that pass is not in --passes");
    }
    let options = Options { passes: passes.clone(), print_after: args.print_after.as_deref(), strip_debug_on_failure: args.strip_debug_on_failure };
    let mapped = MappedFile::open(&args.input).with_context(|| path.clone())?;
    let data = mapped.bytes();
    let input = Input::parse(data, &DecompressLimits::default()).with_context(|| path.clone())?;
    let mut outcomes: Vec<Outcome> = input
        .objects
        .par_iter()
        .enumerate()
        // Each worker decodes its objects with decoders kept from one object to the next.
        .map_init(Decoders::default, |decoders, (i, o)| {
            rewrite::rewrite_object_with(&o.bytes, &options, decoders).with_context(|| format!("{path}: {}", o.describe(i)))
        })
        .collect::<anyhow::Result<_>>()?;
    for o in &outcomes {
        print!("{}", o.listings);
    }
    let bytes = output_bytes(data, &input, &mut outcomes).with_context(|| path.clone())?;
    // After the writer has decided: an object that no longer fits its slot is refused there,
    // and what --explain shows must be what the output holds.
    if args.explain {
        for (i, o) in outcomes.iter().enumerate() {
            let prefix = if outcomes.len() > 1 { format!("code object {i}: ") } else { String::new() };
            if let Some(reason) = &o.refused {
                println!("{prefix}refused, kept unchanged: {reason}");
                continue;
            }
            for line in o.stats.iter().flat_map(|s| &s.explain) {
                println!("{prefix}{line}");
            }
        }
    }
    let out_path = if args.in_place { args.input.clone() } else { args.output.clone().unwrap() };
    drop(input);
    write_file_atomically(&out_path, &bytes).with_context(|| out_path.display().to_string())?;

    if let Some(report_path) = &args.report {
        let totals = rewrite::total_stats(&outcomes, &passes);
        let describe = |i: usize, o: &Outcome, what: &str| -> Option<String> { o.refused.as_ref().map(|r| format!("code object {i}: {what}{r}")) };
        let report = Report {
            passes: totals.into_iter().map(|s| PassReport { name: s.name, applied: s.applied, declined: s.declined, rules: s.rules }).collect(),
            instructions_before: outcomes.iter().map(|o| o.instructions_before).sum(),
            instructions_after: outcomes.iter().map(Outcome::instructions_written).sum(),
            functions_opaque: outcomes.iter().flat_map(|o| o.opaque.iter().cloned()).collect(),
            refused: outcomes.iter().enumerate().filter_map(|(i, o)| describe(i, o, "")).collect(),
            notes: outcomes.iter().flat_map(|o| o.notes.iter().cloned()).collect(),
        };
        let json = serde_json::to_string_pretty(&report)?;
        std::fs::write(report_path, json + "\n").with_context(|| report_path.display().to_string())?;
    }
    for (i, o) in outcomes.iter().enumerate() {
        if let Some(r) = &o.refused {
            eprintln!("gfxpatch: {path}: code object {i} left unchanged: {r}");
        }
    }
    Ok(())
}

/// The passes named by `--passes`. `peephole:a,b` (split by clap at the commas) selects rules:
/// names after `peephole:` that are no pass name are more rules of it (`+` also separates).
/// `--rules FILE` adds a user's rules to the shipped ones; `--explain` records what the peephole
/// pass did and declined.
fn parse_passes(names: &[String], rule_files: &[PathBuf], explain: bool) -> anyhow::Result<Vec<&'static dyn Pass>> {
    use crate::pass::peephole::pass::{Peephole, BUILTIN, NAME as PEEPHOLE};
    use crate::pass::peephole::RuleSet;
    // (pass, selected rule names when it is a peephole pass with a selection)
    let mut list: Vec<(&'static dyn Pass, Option<Vec<String>>)> = Vec::new();
    for name in names {
        if let Some(rules) = name.strip_prefix(PEEPHOLE).and_then(|n| n.strip_prefix(':')) {
            list.push((&BUILTIN, Some(rules.split('+').filter(|r| !r.is_empty()).map(str::to_owned).collect())));
            continue;
        }
        if let Some(p) = pass::find(name) {
            list.push((p, None));
            continue;
        }
        if let Some((p, Some(sel))) = list.last_mut()
            && p.name() == PEEPHOLE
        {
            sel.extend(name.split('+').filter(|r| !r.is_empty()).map(str::to_owned));
            continue;
        }
        let known: Vec<&str> = pass::registry().iter().map(|p| p.name()).collect();
        bail!("unknown pass {name:?} (known: {})", known.join(", "));
    }
    let uses_peephole = list.iter().any(|(p, _)| p.name() == PEEPHOLE);
    if !rule_files.is_empty() && !uses_peephole {
        bail!("--rules needs the peephole pass (--passes peephole)");
    }
    if explain && !uses_peephole {
        bail!("--explain explains the peephole pass: add --passes peephole");
    }
    if !uses_peephole {
        return Ok(list.into_iter().map(|(p, _)| p).collect());
    }
    let mut all = RuleSet::builtin().clone();
    for file in rule_files {
        let source = std::fs::read_to_string(file).with_context(|| file.display().to_string())?;
        let user = RuleSet::load(&file.display().to_string(), &source).map_err(|e| anyhow::anyhow!("{e}"))?;
        all.extend(user).map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let all: &'static RuleSet = Box::leak(Box::new(all));
    let mut out: Vec<&'static dyn Pass> = Vec::new();
    for (p, sel) in list {
        if p.name() != PEEPHOLE {
            out.push(p);
            continue;
        }
        let set: &'static RuleSet = match sel {
            Some(names) => {
                if names.is_empty() {
                    bail!("peephole: names no rule (peephole:lshl-or,add3)");
                }
                let refs: Vec<&str> = names.iter().map(String::as_str).collect();
                Box::leak(Box::new(all.select(&refs).map_err(|e| anyhow::anyhow!(e))?))
            }
            None => all,
        };
        out.push(Box::leak(Box::new(Peephole::new(set, explain))));
    }
    Ok(out)
}

/// The whole output file: the rewritten object, or the container with its objects replaced.
/// In a host library an object that no longer fits its slot moves with its bundle to the end
/// of the host (its outcome notes where); where the host cannot grow it keeps its original bytes,
/// and its outcome says why (`refused`).
fn output_bytes(data: &[u8], input: &Input<'_>, outcomes: &mut [Outcome]) -> anyhow::Result<Vec<u8>> {
    let changed = outcomes.iter().zip(&input.objects).any(|(o, i)| o.bytes.as_deref().is_some_and(|b| b != &i.bytes[..]));
    if !changed {
        return Ok(data.to_vec());
    }
    match input.kind {
        InputKind::Elf => Ok(outcomes[0].bytes.clone().unwrap()),
        InputKind::Bundle | InputKind::Host => {
            let replaced: Vec<(usize, Vec<u8>)> = outcomes
                .iter()
                .enumerate()
                .filter_map(|(i, o)| o.bytes.as_ref().filter(|b| b[..] != input.objects[i].bytes[..]).map(|b| (i, b.clone())))
                .collect();
            // Objects that outgrow their slot move with their bundle to the end of the host; only
            // where the host cannot grow (the reason is in the message) do they stay unchanged.
            let (bytes, notes) = write_input_noting(data, input, &replaced)?;
            for m in notes.misfits {
                let o = &mut outcomes[m.object];
                let what = if m.whole_bundle { "the re-compressed bundle holding it" } else { "the rewritten object" };
                o.refused = Some(format!(
                    "{what} needs {} bytes but its slot in the host library has {}, and its bundle cannot move: {}; the original bytes are kept",
                    m.needed, m.slot, m.refusal
                ));
                o.bytes = None;
            }
            for m in notes.moved {
                outcomes[m.object].notes.push(m.note);
            }
            Ok(bytes)
        }
    }
}
