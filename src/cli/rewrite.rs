//! `gfxpatch rewrite IN -o OUT [--passes a,b,c] [--print-after PASS] [--report FILE.json]`
//! (`--in-place`, `--strip-debug-on-failure`): run passes over every code object of a code
//! object, bundle or host library, lay out, write and verify. No passes: the identity.
//!
//! `gfxpatch rewrite A.so B.so ... --out-dir DIR [--jobs N] [--quiet]`: several inputs share
//! one pool of workers; each input is memory-mapped, its code objects rewritten in parallel,
//! and its output written once (a temporary file and a rename). docs/whole-library.md.

use std::collections::BTreeMap;
use std::io::{IsTerminal as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{bail, Context as _};
use rayon::prelude::*;

use crate::container::bundle::DecompressLimits;
use crate::container::input::{Input, MappedFile};
use crate::container::write::{image_noting, AtomicFile, Image};
use crate::isa::Decoders;
use crate::pass::{self, Pass};
use crate::rewrite::{self, ObjectReport, Options, Outcome, PassReport, Report};

#[derive(clap::Args)]
pub struct RewriteArgs {
    /// Code objects, offload bundles or host libraries (several need `--out-dir` or `--in-place`).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Where to write the result (one input).
    #[arg(short, long, conflicts_with_all = ["in_place", "out_dir"])]
    output: Option<PathBuf>,
    /// Write each result into this directory under its input's file name.
    #[arg(long, conflicts_with = "in_place")]
    out_dir: Option<PathBuf>,
    /// Rewrite each input file itself (through a temporary file and a rename).
    #[arg(long)]
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
    /// Write a JSON report: per pass applied/declined counts, instruction counts, opaque
    /// functions, and one entry per code object.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Drop DWARF the writer cannot update instead of refusing the rewrite.
    #[arg(long)]
    strip_debug_on_failure: bool,
    /// Rewrite this many code objects at once (default: one per CPU). All inputs share them.
    #[arg(short, long)]
    jobs: Option<usize>,
    /// No progress bar and no summary table.
    #[arg(short, long)]
    quiet: bool,
}

/// One input's rewrite, kept after its output is written (no object bytes).
pub(super) struct Done {
    path: PathBuf,
    pub(super) objects: Vec<ObjectDone>,
}

/// One code object's outcome without its bytes.
pub(super) struct ObjectDone {
    pub(super) bundle_id: Option<String>,
    pub(super) outcome: Outcome,
}

pub fn run(args: &RewriteArgs) -> anyhow::Result<()> {
    let passes = parse_passes(&args.passes, &args.rules, args.explain)?;
    if let Some(p) = &args.print_after
        && !passes.iter().any(|q| q.name() == p)
    {
        bail!("--print-after {p}: that pass is not in --passes");
    }
    let outputs = output_paths(args)?;
    let options = Options { passes: passes.clone(), print_after: args.print_after.as_deref(), strip_debug_on_failure: args.strip_debug_on_failure };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.jobs.unwrap_or(0)).build()?;
    let progress = Progress::new(args.quiet);
    let done: Vec<Done> = pool.install(|| {
        args.inputs.par_iter().zip(&outputs).map(|(input, output)| rewrite_file(input, output, &options, args.explain, &progress)).collect::<anyhow::Result<_>>()
    })?;
    progress.finish();

    if let Some(report_path) = &args.report {
        write_report(report_path, &done, &passes)?;
    }
    for d in &done {
        for (i, o) in d.objects.iter().enumerate() {
            if let Some(r) = &o.outcome.refused {
                eprintln!("gfxpatch: {}: code object {i} left unchanged: {r}", d.path.display());
            }
        }
    }
    let objects: usize = done.iter().map(|d| d.objects.len()).sum();
    if !args.quiet && objects > 1 {
        eprint!("{}", summary(&done));
    }
    Ok(())
}

/// Writes the JSON report of `--report`: per pass applied/declined counts, instruction counts,
/// opaque functions, refusals, and one entry per code object (`instrument --report` too).
pub(super) fn write_report(report_path: &Path, done: &[Done], passes: &[&'static dyn Pass]) -> anyhow::Result<()> {
    let several = done.len() > 1;
    let outcomes: Vec<&Outcome> = done.iter().flat_map(|d| d.objects.iter().map(|o| &o.outcome)).collect();
    let totals = rewrite::total_stats(outcomes.iter().copied(), passes);
    let report = Report {
        passes: totals.into_iter().map(|s| PassReport { name: s.name, applied: s.applied, declined: s.declined, rules: s.rules }).collect(),
        instructions_before: outcomes.iter().map(|o| o.instructions_before).sum(),
        instructions_after: outcomes.iter().map(|o| o.instructions_written()).sum(),
        functions_opaque: outcomes.iter().flat_map(|o| o.opaque.iter().cloned()).collect(),
        refused: done
            .iter()
            .flat_map(|d| {
                d.objects.iter().enumerate().filter_map(move |(i, o)| {
                    let file = if several { format!("{}: ", d.path.display()) } else { String::new() };
                    o.outcome.refused.as_ref().map(|r| format!("{file}code object {i}: {r}"))
                })
            })
            .collect(),
        notes: outcomes.iter().flat_map(|o| o.notes.iter().cloned()).collect(),
        objects: done
            .iter()
            .flat_map(|d| {
                d.objects.iter().enumerate().map(move |(i, o)| ObjectReport {
                    input: several.then(|| d.path.display().to_string()),
                    index: i,
                    bundle_id: o.bundle_id.clone(),
                    target: o.outcome.target.clone(),
                    instructions_before: o.outcome.instructions_before,
                    instructions_after: o.outcome.instructions_written(),
                    applied: o.outcome.applied(),
                    declined: o.outcome.declined(),
                    refused: o.outcome.refused.clone(),
                })
            })
            .collect(),
    };
    let json = serde_json::to_string_pretty(&report)?;
    std::fs::write(report_path, json + "\n").with_context(|| report_path.display().to_string())?;
    Ok(())
}

/// Where each input's result goes.
fn output_paths(args: &RewriteArgs) -> anyhow::Result<Vec<PathBuf>> {
    if args.in_place {
        return Ok(args.inputs.clone());
    }
    if let Some(out) = &args.output {
        if args.inputs.len() > 1 {
            bail!("-o names one output; for {} inputs use --out-dir DIR or --in-place", args.inputs.len());
        }
        return Ok(vec![out.clone()]);
    }
    let Some(dir) = &args.out_dir else { bail!("say where to write: -o FILE, --out-dir DIR or --in-place") };
    std::fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
    let mut seen = std::collections::HashMap::new();
    let mut out = Vec::with_capacity(args.inputs.len());
    for input in &args.inputs {
        let name = input.file_name().with_context(|| format!("{} names no file", input.display()))?;
        if let Some(other) = seen.insert(name.to_owned(), input) {
            bail!("{} and {} would both be written to {}", other.display(), input.display(), dir.join(name).display());
        }
        out.push(dir.join(name));
    }
    Ok(out)
}

/// Rewrites one input file and writes its result: the objects in parallel, the output once.
pub(super) fn rewrite_file(input_path: &Path, out_path: &Path, options: &Options<'_>, explain: bool, progress: &Progress) -> anyhow::Result<Done> {
    let path = input_path.display().to_string();
    let mapped = MappedFile::open(input_path).with_context(|| path.clone())?;
    let data = mapped.bytes();
    let input = Input::parse(data, &DecompressLimits::default()).with_context(|| path.clone())?;
    progress.add_objects(input.objects.len());
    // A host library's output is mostly its input: the kernel copies the input into the
    // output file on a thread of its own while the objects are rewritten, and the edits are
    // laid over that copy at the end (the copy and most of its write-back then cost no wall
    // time of their own).
    let mut output = AtomicFile::create(out_path).with_context(|| out_path.display().to_string())?;
    let early_copy = input.host.is_some().then(|| EarlyCopy::start(input_path, data.len() as u64, output.file())).flatten();
    // One queue of objects, largest first, from which each worker takes the next object when
    // it is done with one. A library's objects range from kilobytes to megabytes. Split in
    // halves as `par_iter` splits a slice, one worker got the large half and worked through
    // it alone while the other, done with the small half early, had nothing left to steal:
    // on 2 cores the whole of librocsparse took as long as with one worker.
    let mut order: Vec<usize> = (0..input.objects.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(input.objects[i].bytes.len()));
    let mut done: Vec<(usize, Outcome)> = order
        .into_iter()
        .par_bridge()
        // Each worker decodes its objects with decoders kept from one object to the next.
        .map_init(Decoders::default, |decoders, i| {
            let o = &input.objects[i];
            let outcome = rewrite::rewrite_object_with(&o.bytes, options, decoders).with_context(|| format!("{path}: {}", o.describe(i)));
            // Done reading it: its pages of the input leave our memory (the writer reads the
            // few it needs again, from the page cache).
            mapped.release(&o.bytes);
            if let Ok(out) = &outcome {
                progress.object_done(out);
            }
            outcome.map(|out| (i, out))
        })
        .collect::<anyhow::Result<_>>()?;
    done.sort_unstable_by_key(|&(i, _)| i);
    let mut outcomes: Vec<Outcome> = done.into_iter().map(|(_, out)| out).collect();
    let replaced = replacements(&input, &mut outcomes);
    let image = output_image(data, &input, &replaced, &mut outcomes).with_context(|| path.clone())?;
    {
        // One input's listings and explanations together, even when several run at once.
        let mut stdout = std::io::stdout().lock();
        for o in &outcomes {
            write!(stdout, "{}", o.listings)?;
        }
        // After the writer has decided: an object that no longer fits its slot is refused
        // there, and what --explain shows must be what the output holds.
        if explain {
            for (i, o) in outcomes.iter().enumerate() {
                let prefix = if outcomes.len() > 1 { format!("code object {i}: ") } else { String::new() };
                if let Some(reason) = &o.refused {
                    writeln!(stdout, "{prefix}refused, kept unchanged: {reason}")?;
                    continue;
                }
                for line in o.stats.iter().flat_map(|s| &s.explain) {
                    writeln!(stdout, "{prefix}{line}")?;
                }
            }
        }
    }
    let ids: Vec<Option<String>> = input.objects.iter().map(|o| o.bundle_id.clone()).collect();
    // Decompressed bundles go before the output is written.
    drop(input);
    // The output is streamed: the input's bytes copied file to file by the kernel, the edits
    // written over them, what grew appended. No copy of the file is made in memory.
    let input_len = data.len() as u64;
    let copied = early_copy.is_some_and(|c| c.finish());
    let write = |file: &mut std::fs::File| -> std::io::Result<()> {
        let mut source = copy_source(input_path, input_len);
        match source.as_mut() {
            Some(source) if copied && image.lies_over_input() => image.write_over_input(file, source),
            _ => {
                file.set_len(0)?;
                file.rewind()?;
                image.write_to(file, source.as_mut())
            }
        }
    };
    write(output.file()).and_then(|()| output.commit(Some(input_path))).with_context(|| out_path.display().to_string())?;
    drop(image);
    drop(replaced);
    let objects = ids
        .into_iter()
        .zip(outcomes)
        .map(|(bundle_id, mut outcome)| {
            outcome.bytes = None;
            outcome.listings = String::new();
            ObjectDone { bundle_id, outcome }
        })
        .collect();
    Ok(Done { path: input_path.to_owned(), objects })
}

/// The input copied into the output file by the kernel on a thread of its own (see
/// [`rewrite_file`]). Dropped unfinished (the rewrite failed), it is waited for.
struct EarlyCopy(Option<std::thread::JoinHandle<std::io::Result<()>>>);

impl EarlyCopy {
    /// Starts copying the `len` bytes of `input_path` into `output` (empty); `None` where the
    /// input cannot be read again as a file of that length.
    fn start(input_path: &Path, len: u64, output: &std::fs::File) -> Option<EarlyCopy> {
        let source = copy_source(input_path, len)?;
        let mut to = output.try_clone().ok()?;
        Some(EarlyCopy(Some(std::thread::spawn(move || {
            use std::os::fd::AsRawFd as _;
            let copied = std::io::copy(&mut std::io::Read::take(source, len), &mut to)?;
            if copied != len {
                return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, format!("the input ended after {copied} of {len} bytes")));
            }
            // Start writing it back now: the fsync before the rename then finds little to do.
            // SAFETY: sync_file_range(2) on a file descriptor we own; it reads no memory of ours.
            unsafe { libc::sync_file_range(to.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
            Ok(())
        }))))
    }

    /// Whether the output file now holds the whole input.
    fn finish(mut self) -> bool {
        self.0.take().and_then(|h| h.join().ok()).is_some_and(|r| r.is_ok())
    }
}

impl Drop for EarlyCopy {
    fn drop(&mut self) {
        if let Some(h) = self.0.take() {
            let _ = h.join();
        }
    }
}

/// The progress bar: code objects done of those found so far, instructions, rewrites applied.
/// Drawn only on a terminal and without `--quiet`.
pub(super) struct Progress {
    bar: indicatif::ProgressBar,
    instructions: AtomicU64,
    applied: AtomicU64,
}

impl Progress {
    pub(super) fn new(quiet: bool) -> Progress {
        let bar = if quiet || !std::io::stderr().is_terminal() {
            indicatif::ProgressBar::hidden()
        } else {
            let bar = indicatif::ProgressBar::new(0);
            let style = indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} code objects  {msg}")
                .map(|s| s.progress_chars("=> "))
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
            bar.set_style(style);
            bar.enable_steady_tick(std::time::Duration::from_millis(200));
            bar
        };
        Progress { bar, instructions: AtomicU64::new(0), applied: AtomicU64::new(0) }
    }

    fn add_objects(&self, n: usize) {
        self.bar.inc_length(n as u64);
    }

    fn object_done(&self, o: &Outcome) {
        let n = self.instructions.fetch_add(o.instructions_before as u64, Ordering::Relaxed) + o.instructions_before as u64;
        let a = self.applied.fetch_add(o.applied(), Ordering::Relaxed) + o.applied();
        if !self.bar.is_hidden() {
            self.bar.set_message(format!("{:.1} M instructions, {a} rewrites", n as f64 / 1e6));
        }
        self.bar.inc(1);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The summary table: per target, code objects, instructions before and after, rewrites
/// applied and declined, and the objects refused with their reasons.
fn summary(done: &[Done]) -> String {
    #[derive(Default)]
    struct Row {
        objects: usize,
        before: usize,
        after: usize,
        applied: u64,
        declined: u64,
        refused: BTreeMap<String, usize>,
    }
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    for o in done.iter().flat_map(|d| &d.objects) {
        let r = rows.entry(o.outcome.target.as_str()).or_default();
        r.objects += 1;
        r.before += o.outcome.instructions_before;
        r.after += o.outcome.instructions_written();
        r.applied += o.outcome.applied();
        r.declined += o.outcome.declined();
        if let Some(why) = &o.outcome.refused {
            *r.refused.entry(why.clone()).or_default() += 1;
        }
    }
    let mut out = format!("{:<28} {:>8} {:>14} {:>14} {:>9} {:>9} {:>8}\n", "target", "objects", "instr before", "instr after", "applied", "declined", "refused");
    let mut total = Row::default();
    let mut total_refused = 0;
    let mut reasons = String::new();
    for (target, r) in &rows {
        let refused: usize = r.refused.values().sum();
        out += &format!("{:<28} {:>8} {:>14} {:>14} {:>9} {:>9} {:>8}\n", target, r.objects, r.before, r.after, r.applied, r.declined, refused);
        for (why, n) in &r.refused {
            reasons += &format!("  {target}: {n} refused: {why}\n");
        }
        total.objects += r.objects;
        total.before += r.before;
        total.after += r.after;
        total.applied += r.applied;
        total.declined += r.declined;
        total_refused += refused;
    }
    out += &format!("{:<28} {:>8} {:>14} {:>14} {:>9} {:>9} {:>8}\n", "total", total.objects, total.before, total.after, total.applied, total.declined, total_refused);
    out + &reasons
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

/// The whole output in memory, or `None` when it is the input: for `patch`, which also shows
/// and checks the result before writing it. [`output_image`] decides what grows and moves.
pub(super) fn output_bytes(data: &[u8], input: &Input<'_>, outcomes: &mut [Outcome]) -> anyhow::Result<Option<Vec<u8>>> {
    let replaced = replacements(input, outcomes);
    let image = output_image(data, input, &replaced, outcomes)?;
    Ok((!image.is_input()).then(|| image.to_vec()))
}

/// The input opened again for the kernel to copy from, if it is a regular file of the length
/// that was read (a pipe was read once and cannot be read again; then the output is written
/// from the bytes in memory).
fn copy_source(path: &Path, len: u64) -> Option<std::fs::File> {
    let file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    (meta.is_file() && meta.len() == len).then_some(file)
}

/// The objects whose bytes changed (index into `input.objects`, new bytes), taken out of
/// their outcomes.
fn replacements(input: &Input<'_>, outcomes: &mut [Outcome]) -> Vec<(usize, Vec<u8>)> {
    outcomes
        .iter_mut()
        .enumerate()
        .filter_map(|(i, o)| o.bytes.take().filter(|b| b[..] != input.objects[i].bytes[..]).map(|b| (i, b)))
        .collect()
}

/// The output file as edits over the input (see [`Image`]): the rewritten object, or the
/// container with its objects `replaced`; the input itself if nothing changed. In a host
/// library an object that no longer fits its slot moves with its bundle to the end of the host
/// (its outcome notes where); where the host cannot grow it keeps its original bytes, and its
/// outcome says why (`refused`).
fn output_image<'a>(data: &'a [u8], input: &Input<'_>, replaced: &'a [(usize, Vec<u8>)], outcomes: &mut [Outcome]) -> anyhow::Result<Image<'a>> {
    if replaced.is_empty() {
        return Ok(Image::of(data));
    }
    // Objects that outgrow their slot move with their bundle to the end of the host; only
    // where the host cannot grow (the reason is in the message) do they stay unchanged.
    let (image, notes) = image_noting(data, input, replaced)?;
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
    Ok(image)
}
