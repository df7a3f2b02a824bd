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
    if args.whole {
        return whole::run(args);
    }
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

/// `bench rewrite --whole FILE`: the whole file, the way a user rewrites it, against a plain
/// copy of the same file in the same run.
mod whole {
    use std::path::Path;
    use std::process::Command;
    use std::time::{Duration, Instant};

    use anyhow::Context as _;

    use super::{BenchArgs, TempDir};

    /// What one child process cost.
    #[derive(Clone, Copy, Debug)]
    struct Cost {
        wall: Duration,
        cpu: Duration,
        peak_rss: u64,
    }

    impl Cost {
        /// One line of the report: wall and CPU time, peak RSS against the input's `size`, and
        /// the wall time against the plain copy's.
        fn row(self, what: &str, size: u64, copy: Duration) -> String {
            format!(
                "  {what:<27} {:>8.2} s wall {:>8.2} s CPU  peak RSS {:>8.0} MiB = {:.2}x the input   {:.2}x the copy",
                self.wall.as_secs_f64(),
                self.cpu.as_secs_f64(),
                self.peak_rss as f64 / (1 << 20) as f64,
                self.peak_rss as f64 / size as f64,
                self.wall.as_secs_f64() / copy.as_secs_f64()
            )
        }
    }

    /// Runs `command` and waits for it with wait4(2), which reports its own peak RSS and CPU time.
    fn measure(command: &mut Command) -> anyhow::Result<Cost> {
        let start = Instant::now();
        let child = command.spawn().context("cannot start the child process")?;
        let pid = child.id() as libc::pid_t;
        let mut status = 0;
        // SAFETY: an all-zero rusage is a valid value, and wait4 writes a complete one.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `pid` is our child, not yet waited for (Child is never waited on: it is forgotten).
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        let wall = start.elapsed();
        std::mem::forget(child);
        anyhow::ensure!(r == pid, "wait4: {}", std::io::Error::last_os_error());
        anyhow::ensure!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "{command:?} failed (status {status:#x})");
        let tv = |t: libc::timeval| Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
        Ok(Cost { wall, cpu: tv(usage.ru_utime) + tv(usage.ru_stime), peak_rss: usage.ru_maxrss as u64 * 1024 })
    }

    /// A plain copy: read the file and write it whole, synced to disk like the rewrite's output.
    fn copy(from: &Path, to: &Path) -> anyhow::Result<Duration> {
        let start = Instant::now();
        std::fs::copy(from, to)?;
        std::fs::File::open(to)?.sync_all()?;
        Ok(start.elapsed())
    }

    pub fn run(args: &BenchArgs) -> anyhow::Result<()> {
        let input = &args.file;
        let size = std::fs::metadata(input).with_context(|| input.display().to_string())?.len();
        let dir = TempDir(std::env::temp_dir().join(format!("gfxpatch-bench-whole-{}", std::process::id())));
        std::fs::create_dir_all(&dir.0)?;
        let exe = std::env::current_exe()?;
        let rewrite = |passes: Option<&str>, out: &Path, report: &Path| {
            let mut c = Command::new(&exe);
            c.arg("rewrite").arg(input).arg("-o").arg(out).arg("--quiet").arg("--report").arg(report);
            // Its refusals are in the report; the bench prints how many.
            c.stderr(std::process::Stdio::null());
            if let Some(p) = passes {
                c.args(["--passes", p]);
            }
            if let Some(j) = args.jobs {
                c.args(["--jobs", &j.to_string()]);
            }
            c
        };
        println!("{}: {:.2} GB; {} run(s) of each, in turn: copy, identity, peephole", input.display(), size as f64 / 1e9, args.runs);
        let mut identity_ratios = Vec::new();
        for run in 1..=args.runs {
            let copied = dir.0.join("copy");
            let t_copy = copy(input, &copied)?;
            std::fs::remove_file(&copied)?;
            let (out, report) = (dir.0.join("out"), dir.0.join("report.json"));
            let identity = measure(&mut rewrite(None, &out, &report))?;
            anyhow::ensure!(super::same_contents(&out, input)?, "the identity rewrite is not byte-identical");
            std::fs::remove_file(&out)?;
            let peephole = measure(&mut rewrite(Some("peephole"), &out, &report))?;
            std::fs::remove_file(&out)?;
            let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report)?)?;
            let applied = r["passes"][0]["applied"].as_u64().unwrap_or(0);
            let per_object: u64 = r["objects"].as_array().map_or(0, |a| a.iter().filter_map(|o| o["applied"].as_u64()).sum());
            let refused = r["refused"].as_array().map_or(0, Vec::len);
            let ratio = identity.wall.as_secs_f64() / t_copy.as_secs_f64();
            identity_ratios.push(ratio);
            println!("run {run}:");
            println!("  copy (read, write, fsync)   {:>8.2} s wall", t_copy.as_secs_f64());
            println!("{}", identity.row("identity rewrite", size, t_copy));
            println!("{}", peephole.row("peephole rewrite", size, t_copy));
            println!("  peephole: {applied} rewrites applied (sum over objects {per_object}), {refused} object(s) refused");
            anyhow::ensure!(applied == per_object, "the report's applied ({applied}) is not the sum of its objects' ({per_object})");
        }
        if identity_ratios.len() > 1 {
            let (lo, hi) = identity_ratios.iter().fold((f64::MAX, 0f64), |(l, h), &r| (l.min(r), h.max(r)));
            println!("identity / copy over {} runs: {lo:.2}x .. {hi:.2}x", identity_ratios.len());
        }
        Ok(())
    }
}

/// Whether two files hold the same bytes, read a MiB at a time: reading both whole would raise
/// this process's peak RSS by twice the library, and a child started afterwards (the peephole
/// run, through vfork) would report that high-water mark as its own.
fn same_contents(a: &std::path::Path, b: &std::path::Path) -> std::io::Result<bool> {
    use std::io::Read as _;
    let (mut fa, mut fb) = (std::fs::File::open(a)?, std::fs::File::open(b)?);
    if fa.metadata()?.len() != fb.metadata()?.len() {
        return Ok(false);
    }
    let (mut ba, mut bb) = (vec![0u8; 1 << 20], vec![0u8; 1 << 20]);
    loop {
        let n = fa.read(&mut ba)?;
        if n == 0 {
            return Ok(true);
        }
        fb.read_exact(&mut bb[..n])?;
        if ba[..n] != bb[..n] {
            return Ok(false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::same_contents;

    #[test]
    fn same_contents_compares_every_chunk_and_the_length() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        let bytes: Vec<u8> = (0..(3 << 20) + 17).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&a, &bytes).unwrap();
        std::fs::write(&b, &bytes).unwrap();
        assert!(same_contents(&a, &b).unwrap());
        let mut late = bytes.clone();
        late[(2 << 20) + 5] ^= 1;
        std::fs::write(&b, &late).unwrap();
        assert!(!same_contents(&a, &b).unwrap(), "a difference in the third MiB");
        std::fs::write(&b, &bytes[..bytes.len() - 1]).unwrap();
        assert!(!same_contents(&a, &b).unwrap(), "a shorter file");
    }
}
