//! `gfxpatch patch IN -o OUT PATCH...` applies patch files (docs/patches.md) like `patch(1)`:
//! every hunk matches exactly as often as it expects, in every code object of the patch's
//! targets, or nothing is written. `--dry-run` prints the unified diff of the disassembly
//! instead; `--reverse` takes the patches back out.
//!
//! `gfxpatch diff A B [--patch OUT.gpatch]` compares two code objects function by function and
//! writes the patch that turns A into B.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};

use crate::container::bundle::DecompressLimits;
use crate::container::input::{Input, MappedFile};
use crate::container::write::write_file_atomically_with;
use crate::container::CodeObject;
use crate::pass::patch::{self, diff, Applied, ApplyPatches, PatchError, PatchFile};
use crate::rewrite::{self, Options, Outcome};

#[derive(clap::Args)]
pub struct PatchArgs {
    /// A code object (HSA, PAL or Mesa), an offload bundle or a host library.
    input: PathBuf,
    /// Where to write the patched file (not needed with --dry-run).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Patch files (*.gpatch), applied in order.
    #[arg(required = true)]
    patches: Vec<PathBuf>,
    /// Print the unified diff of the disassembly the patches make; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Take the patches back out (each hunk's replacement is found and what it replaced put back).
    #[arg(short = 'R', long)]
    reverse: bool,
}

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The code object before.
    a: PathBuf,
    /// The code object after.
    b: PathBuf,
    /// Also write a patch file that turns A into B.
    #[arg(long, value_name = "OUT.gpatch")]
    patch: Option<PathBuf>,
}

/// Reads and parses patch files (reversed with `reverse`).
pub fn read_patches(paths: &[PathBuf], reverse: bool) -> anyhow::Result<Vec<PatchFile>> {
    let mut out = Vec::new();
    for path in paths {
        let name = path.display().to_string();
        let source = std::fs::read_to_string(path).with_context(|| name.clone())?;
        let parsed = patch::parse(&name, &source)?;
        if !reverse {
            out.push(parsed);
            continue;
        }
        for h in &parsed.hunks {
            if let Some((var, line)) = h.reversed().unbound() {
                bail!("{name}:{line}: {} cannot be reversed: %{var} is matched only in what it takes out", h.label());
            }
        }
        out.push(parsed.reversed());
    }
    Ok(out)
}

/// One code object patched: the rewrite's outcome (its `bytes` the output, `None` if
/// unchanged) and what the patches did, or why they were refused.
pub fn patch_object(data: &[u8], patches: &[PatchFile]) -> anyhow::Result<(Outcome, Result<Applied, PatchError>)> {
    let pass = ApplyPatches::new(patches);
    let options = Options { passes: vec![&pass], print_after: None, strip_debug_on_failure: false };
    let outcome = rewrite::rewrite_object(data, &options)?;
    let result = match (pass.take_outcome(), &outcome.refused) {
        (Some(Err(e)), _) => Err(e),
        (_, Some(reason)) => Err(PatchError::Refused(format!("the patched code object cannot be written: {reason}"))),
        (Some(Ok(a)), None) => Ok(a),
        (None, None) => Err(PatchError::Refused("the code object was not read".to_owned())),
    };
    Ok((outcome, result))
}

/// What patching a whole input gives: the output file's bytes (`None`: the input unchanged),
/// the notes, and the unified diff of each changed object's disassembly.
pub struct Patched {
    pub bytes: Option<Vec<u8>>,
    pub notes: Vec<String>,
    pub diff: String,
}

/// Applies `patches` to every code object of `data` whose target one of them is for. Any
/// refusal is an error and nothing is produced; a patch that is for none of the input's
/// targets is refused.
pub fn patch_input(name: &str, data: &[u8], patches: &[PatchFile], want_diff: bool) -> anyhow::Result<Patched> {
    let input = Input::parse(data, &DecompressLimits::default()).with_context(|| name.to_owned())?;
    let mut outcomes = Vec::with_capacity(input.objects.len());
    let mut notes = Vec::new();
    let mut diff = String::new();
    let mut used = vec![false; patches.len()];
    let mut targets = Vec::new();
    for (i, o) in input.objects.iter().enumerate() {
        let object = CodeObject::parse(&o.bytes).with_context(|| format!("{name}: {}", o.describe(i)))?;
        let target = rewrite::target_of(&object)?;
        targets.push(target.processor.name);
        let mine: Vec<PatchFile> = patches.iter().enumerate().filter(|(_, p)| p.applies_to(&target)).map(|(k, p)| {
            used[k] = true;
            p.clone()
        }).collect();
        if mine.is_empty() {
            outcomes.push(Outcome::default());
            continue;
        }
        let where_ = if input.objects.len() > 1 { format!("{name}: {}", o.describe(i)) } else { name.to_owned() };
        let (outcome, result) = patch_object(&o.bytes, &mine).with_context(|| where_.clone())?;
        let applied = result.map_err(|e| anyhow::Error::new(e).context(where_.clone()))?;
        notes.extend(applied.notes.iter().chain(&outcome.notes).map(|n| format!("{where_}: {n}")));
        if want_diff && let Some(out) = &outcome.bytes {
            diff += &disassembly_diff(&where_, &o.bytes, &format!("{where_} (patched)"), out)?;
        }
        outcomes.push(outcome);
    }
    if let Some(k) = used.iter().position(|u| !u) {
        targets.dedup();
        return Err(PatchError::WrongTarget(format!("{}: the patch is for {}, {name} holds code for {}", patches[k].file, patches[k].targets_text(), targets.join(", "))).into());
    }
    let bytes = super::rewrite::output_bytes(data, &input, &mut outcomes)?;
    Ok(Patched { bytes, notes, diff })
}

/// The unified diff of two code objects' disassembly.
fn disassembly_diff(a_name: &str, a: &[u8], b_name: &str, b: &[u8]) -> anyhow::Result<String> {
    let (fa, fb) = (functions_of(a, a_name)?, functions_of(b, b_name)?);
    Ok(diff::unified(a_name, &fa, b_name, &fb))
}

fn functions_of(data: &[u8], name: &str) -> anyhow::Result<Vec<diff::FunctionText>> {
    let object = CodeObject::parse(data).with_context(|| name.to_owned())?;
    let program = rewrite::read_program(&object)?.map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    Ok(diff::functions(&program))
}

pub fn run(args: &PatchArgs) -> anyhow::Result<()> {
    let patches = read_patches(&args.patches, args.reverse)?;
    if !args.dry_run && args.output.is_none() {
        bail!("say where to write: -o FILE (or --dry-run to see the change)");
    }
    let name = args.input.display().to_string();
    let mapped = MappedFile::open(&args.input).with_context(|| name.clone())?;
    let data = mapped.bytes();
    let patched = patch_input(&name, data, &patches, args.dry_run)?;
    for n in &patched.notes {
        eprintln!("patch: {n}");
    }
    if args.dry_run {
        print!("{}", patched.diff);
        return Ok(());
    }
    let out = args.output.as_ref().unwrap();
    let bytes = patched.bytes.as_deref().unwrap_or(data);
    write_file_atomically_with(out, Some(&args.input), |f| f.write_all(bytes)).with_context(|| out.display().to_string())?;
    Ok(())
}

/// The functions of every code object of a file, with each object's processor.
fn objects_of(path: &Path) -> anyhow::Result<Vec<(String, Vec<diff::FunctionText>)>> {
    let name = path.display().to_string();
    let mapped = MappedFile::open(path).with_context(|| name.clone())?;
    let input = Input::parse(mapped.bytes(), &DecompressLimits::default()).with_context(|| name.clone())?;
    let mut out = Vec::new();
    for (i, o) in input.objects.iter().enumerate() {
        let what = format!("{name}: {}", o.describe(i));
        let object = CodeObject::parse(&o.bytes).with_context(|| what.clone())?;
        let program = rewrite::read_program(&object)?.map_err(|e| anyhow::anyhow!("{what}: {e}"))?;
        out.push((program.target.processor.name.to_owned(), diff::functions(&program)));
    }
    Ok(out)
}

/// The diff of two inputs (their code objects paired in order) and, when asked, the patch.
pub fn diff_files(a: &Path, b: &Path, want_patch: bool) -> anyhow::Result<(String, Option<String>)> {
    let (oa, ob) = (objects_of(a)?, objects_of(b)?);
    if oa.len() != ob.len() {
        bail!("{} holds {} code objects, {} holds {}: diff pairs them in order", a.display(), oa.len(), b.display(), ob.len());
    }
    let (an, bn) = (a.display().to_string(), b.display().to_string());
    let mut text = String::new();
    let mut patch_text = String::new();
    for (k, ((pa, fa), (pb, fb))) in oa.iter().zip(&ob).enumerate() {
        if pa != pb {
            bail!("code object {k}: {an} is for {pa}, {bn} for {pb}");
        }
        text += &diff::unified(&an, fa, &bn, fb);
        if want_patch {
            if oa.len() > 1 {
                bail!("--patch writes one code object's patch; {an} holds {}", oa.len());
            }
            patch_text = diff::patch_text(&an, &bn, pa, fa, fb).map_err(|e| anyhow::anyhow!("{an} -> {bn}: {e}"))?;
        }
    }
    Ok((text, want_patch.then_some(patch_text)))
}

/// Applies the patch `diff` wrote to `a` and requires `b`'s bytes: a patch file that does not
/// give B back is never written (a limit of the alignment or of the patch language, say, an
/// insertion that cannot be told from one already applied, is refused, not guessed at).
fn check_patch(a: &Path, b: &Path, patch_text: &str) -> anyhow::Result<()> {
    let (an, bn) = (a.display().to_string(), b.display().to_string());
    let parsed = patch::parse(&format!("the patch from {an} to {bn}"), patch_text)?;
    let mapped = MappedFile::open(a).with_context(|| an.clone())?;
    let patched = patch_input(&an, mapped.bytes(), &[parsed], false).with_context(|| format!("the patch written from the difference does not apply to {an}"))?;
    let want = std::fs::read(b).with_context(|| bn.clone())?;
    let got = patched.bytes.as_deref().unwrap_or(mapped.bytes());
    if got != want.as_slice() {
        let at = got.iter().zip(&want).position(|(x, y)| x != y).unwrap_or(got.len().min(want.len()));
        bail!("the patch written from the difference turns {an} into a file that differs from {bn} at byte {at:#x} ({} and {} bytes): not written", got.len(), want.len());
    }
    Ok(())
}

pub fn run_diff(args: &DiffArgs) -> anyhow::Result<()> {
    let (text, patch) = diff_files(&args.a, &args.b, args.patch.is_some())?;
    if text.is_empty() {
        println!("no differences in the code");
    } else {
        print!("{text}");
    }
    if text.is_empty() && let Some(path) = &args.patch {
        bail!("{} and {} have the same code: no patch to write to {}", args.a.display(), args.b.display(), path.display());
    }
    if let (Some(path), Some(p)) = (&args.patch, patch) {
        check_patch(&args.a, &args.b, &p)?;
        write_file_atomically_with(path, None, |f| f.write_all(p.as_bytes())).with_context(|| path.display().to_string())?;
    }
    Ok(())
}
