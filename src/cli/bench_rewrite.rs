//! `gfxpatch bench rewrite FILE`: rewrite throughput (the identity, and insert-nops with its
//! layout, writer and verifier) against LLVM's disassembler decoding and printing the same text
//! (the core of `llvm-objdump -d`, in-process) and against the `llvm-objdump-19 -d` binary run
//! on the same code objects (one process per object, output to /dev/null), in one run, as
//! ratios. `GFXPATCH_BENCH_OBJDUMP_EVERY=N` runs the binary on every Nth object only (its
//! throughput is then measured on those objects' instructions; the report says so).

use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::container::bundle::DecompressLimits;
use crate::container::input::{Input, MappedFile};
use crate::container::CodeObject;
use crate::isa::{Decoders, Target};
use crate::llvm::disasm::LlvmDisassembler;
use crate::pass;
use crate::rewrite::{rewrite_object_with, Options};

use super::bench::BenchArgs;

pub fn run(args: &BenchArgs) -> anyhow::Result<()> {
    let path = args.file.display().to_string();
    let mapped = MappedFile::open(&args.file).with_context(|| path.clone())?;
    let input = Input::parse(mapped.bytes(), &DecompressLimits::default()).with_context(|| path.clone())?;
    let mut objects: Vec<Vec<u8>> = Vec::new();
    let mut text = 0u64;
    for o in &input.objects {
        if text >= args.max_mib.unwrap_or(64) << 20 {
            break;
        }
        let object = CodeObject::parse(&o.bytes).with_context(|| path.clone())?;
        // LLVM's side is timed last: a target it refuses is refused before any timing.
        let target = Target::from_target_id(&object.target, false).with_context(|| path.clone())?;
        if let Some(refusal) = crate::llvm::Refusal::before_asking(&target) {
            return Err(anyhow::Error::new(refusal).context(path));
        }
        text += object.text_size();
        objects.push(o.bytes.to_vec());
    }
    println!("{path}: {} code object(s), {:.1} MiB of .text (one thread)", objects.len(), text as f64 / (1 << 20) as f64);

    let time = |f: &mut dyn FnMut() -> anyhow::Result<u64>| -> anyhow::Result<(u64, Duration)> {
        let start = Instant::now();
        let n = f()?;
        Ok((n, start.elapsed()))
    };
    let identity = Options { passes: Vec::new(), print_after: None, strip_debug_on_failure: false };
    // DWARF is remapped, as `gfxpatch rewrite` does; a construct it cannot remap refuses the object.
    let nops = Options { passes: vec![pass::find("insert-nops").unwrap()], print_after: None, strip_debug_on_failure: false };
    let rewrite = |options: &Options<'_>| {
        let mut n = 0u64;
        let mut refused = 0u64;
        // As `gfxpatch rewrite` does on each thread; a pass starts with none.
        let mut decoders = Decoders::default();
        for o in &objects {
            let out = rewrite_object_with(o, options, &mut decoders)?;
            n += out.instructions_before as u64;
            refused += u64::from(out.refused.is_some());
        }
        Ok::<_, anyhow::Error>((n, refused))
    };
    let mut refused_nops = 0;
    let (n_identity, t_identity) = time(&mut || Ok(rewrite(&identity)?.0))?;
    let (_, t_nops) = time(&mut || {
        let (n, r) = rewrite(&nops)?;
        refused_nops = r;
        Ok(n)
    })?;
    let (n_llvm, t_llvm) = time(&mut || {
        let mut n = 0u64;
        for o in &objects {
            let object = CodeObject::parse(o)?;
            let target = Target::from_target_id(&object.target, false)?;
            let mut llvm = LlvmDisassembler::new(&target).with_context(|| path.clone())?;
            for s in object.text_sections() {
                let bytes = &o[s.offset as usize..(s.offset + s.size) as usize];
                let mut at = 0;
                while at + 4 <= bytes.len() {
                    let inst = llvm.decode(&bytes[at..], s.address + at as u64);
                    at += if inst.size == 0 { 4 } else { inst.size };
                    n += 1;
                }
            }
        }
        Ok(n)
    })?;
    // The llvm-objdump-19 binary on the same objects, written to files first (not timed).
    let every: usize = std::env::var("GFXPATCH_BENCH_OBJDUMP_EVERY").ok().and_then(|v| v.parse().ok()).filter(|&n| n > 0).unwrap_or(1);
    let dir = TempDir(std::env::temp_dir().join(format!("gfxpatch-bench-rewrite-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0)?;
    let mut files = Vec::new();
    for (i, o) in objects.iter().enumerate().step_by(every) {
        let object = CodeObject::parse(o)?;
        let file = dir.0.join(format!("{i}.co"));
        std::fs::write(&file, o)?;
        // Counted as the rewrite counts them (the identity's instructions_before).
        let count = crate::rewrite::read_program(&object)?.map_or(0, |p| p.instruction_count() as u64);
        files.push((file, object.target.processor.name, count));
    }
    let (n_objdump, t_objdump) = time(&mut || {
        let mut n = 0u64;
        for (file, cpu, count) in &files {
            let status = std::process::Command::new("llvm-objdump-19")
                .args(["-d", &format!("--mcpu={cpu}")])
                .arg(file)
                .stdout(std::process::Stdio::null())
                .status()
                .context("cannot run llvm-objdump-19 (scripts/setup.sh installs it)")?;
            anyhow::ensure!(status.success(), "llvm-objdump-19 -d {} failed", file.display());
            n += count;
        }
        Ok(n)
    })?;
    let rate = |n: u64, t: Duration| n as f64 / t.as_secs_f64() / 1e6;
    println!("gfxpatch rewrite (identity):     {:8.2} M inst/s  ({t_identity:?}, {n_identity} instructions)", rate(n_identity, t_identity));
    println!("gfxpatch rewrite (insert-nops):  {:8.2} M inst/s  ({t_nops:?}, {refused_nops} object(s) refused)", rate(n_identity, t_nops));
    println!("LLVM decode+print:               {:8.2} M inst/s  ({t_llvm:?}, {n_llvm} instructions)", rate(n_llvm, t_llvm));
    let sampled = if every > 1 { format!(", every {every}th object") } else { String::new() };
    println!("llvm-objdump-19 -d (binary):     {:8.2} M inst/s  ({t_objdump:?}, {n_objdump} instructions, {} object(s){sampled})", rate(n_objdump, t_objdump), files.len());
    let ratio = |ours: Duration, n_theirs: u64, theirs: Duration| rate(n_identity, ours) / rate(n_theirs, theirs);
    println!("ratio identity:                  {:8.2}x LLVM in-process, {:8.2}x llvm-objdump-19 -d", ratio(t_identity, n_llvm, t_llvm), ratio(t_identity, n_objdump, t_objdump));
    println!("ratio insert-nops:               {:8.2}x LLVM in-process, {:8.2}x llvm-objdump-19 -d", ratio(t_nops, n_llvm, t_llvm), ratio(t_nops, n_objdump, t_objdump));
    Ok(())
}

/// A directory removed when dropped.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
