//! `gfxpatch bench decode FILE`: decode throughput of gfxpatch against LLVM's in-process
//! disassembler on the same bytes, in one run, reported as ratios. `gfxpatch bench encode
//! FILE`: encoding every instruction of the file from its operands against LLVM's in-process
//! assembler on the same instructions' text. `gfxpatch bench emulate PATH`: the emulator's
//! executed lane-instructions per second (`bench_emulate.rs`). (Speed is measured here, never
//! by timed tests.)

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::container::CodeObject;
use crate::container::bundle::DecompressLimits;
use crate::container::input::{Input, MappedFile};
use crate::isa::encode::{encode, encode_like};
use crate::isa::operand::{decode_operands, Operands};
use crate::isa::decode::Swept;
use crate::isa::{print, Decoders, Inst, Target};
use crate::llvm::Refusal;
use crate::llvm::asm::LlvmAssembler;
use crate::llvm::disasm::LlvmDisassembler;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// What to measure: `decode`, `encode`, `rewrite` or `emulate`.
    pub(super) what: String,
    /// A code object, bundle or host library whose .text is decoded (`emulate`: a code object
    /// or a directory of them, e.g. `fixtures/co`).
    pub(super) file: PathBuf,
    /// Stop after this many MiB of .text (host libraries can hold gigabytes); default 64 for
    /// decode and rewrite, 4 for encode (LLVM's assembler is the slow side).
    #[arg(long)]
    pub(super) max_mib: Option<u64>,
    /// Measure decoding only (for profiling the decoder).
    #[arg(long)]
    decode_only: bool,
    /// Measure ours only, without LLVM (for profiling the printer).
    #[arg(long)]
    no_llvm: bool,
    /// Run one pass of one configuration and print its instruction count (for profilers:
    /// `valgrind --tool=callgrind --toggle-collect='*bench::measured*'`): `decode`,
    /// `decode-uncached` (without the decoder's memo), `print` (decode+print, text memo on),
    /// `print-uncached` or `llvm`.
    #[arg(long)]
    only: Option<String>,
    /// With `--only`: measured passes after the warm-up (a sampling profiler such as `perf
    /// record` wants seconds of them, not one pass of milliseconds).
    #[arg(long, default_value_t = 1, requires = "only")]
    repeat: u32,
    /// `bench rewrite --whole`: the whole file through `gfxpatch rewrite` (as child processes:
    /// a plain copy, the identity, the peephole pass), wall time, CPU time and peak RSS of each,
    /// as ratios to the copy and to the file's size.
    #[arg(long)]
    pub(super) whole: bool,
    /// With `--whole`: worker threads of each rewrite (`--jobs`; default one per CPU).
    #[arg(long, requires = "whole")]
    pub(super) jobs: Option<usize>,
    /// With `--whole`: runs of each configuration (the report gives each run and the spread).
    #[arg(long, default_value_t = 1, requires = "whole")]
    pub(super) runs: u32,
    /// `bench emulate`: work-items of each kernel's launch.
    #[arg(long, default_value_t = 1024)]
    pub(super) items: u32,
    /// `bench emulate`: name the kernels that did not run, with the reason.
    #[arg(long)]
    pub(super) verbose: bool,
}

/// One target's worth of code: the decoder inputs.
struct Work {
    target: Target,
    sections: Vec<Vec<u8>>,
}

pub fn run(args: &BenchArgs) -> anyhow::Result<()> {
    if args.what == "rewrite" {
        return super::bench_rewrite::run(args);
    }
    if args.what == "emulate" {
        return super::bench_emulate::run(args);
    }
    anyhow::ensure!(matches!(args.what.as_str(), "decode" | "encode"), "unknown benchmark {:?} (known: decode, encode, rewrite, emulate)", args.what);
    let max_mib = args.max_mib.unwrap_or(if args.what == "encode" { 4 } else { 64 });
    let path = args.file.display().to_string();
    let mapped = MappedFile::open(&args.file).with_context(|| path.clone())?;
    let input =
        Input::parse(mapped.bytes(), &DecompressLimits::default()).with_context(|| path.clone())?;
    let mut work: Vec<Work> = Vec::new();
    let mut total = 0u64;
    for embedded in &input.objects {
        if total >= max_mib << 20 {
            break;
        }
        let object = CodeObject::parse(&embedded.bytes)?;
        let target = Target::from_target_id(&object.target, false)?;
        let sections: Vec<Vec<u8>> = object
            .text_sections()
            .map(|s| embedded.bytes[s.offset as usize..(s.offset + s.size) as usize].to_vec())
            .collect();
        total += sections.iter().map(|s| s.len() as u64).sum::<u64>();
        work.push(Work { target, sections });
    }
    println!("{}: {} code object(s), {:.1} MiB of .text", path, work.len(), total as f64 / (1 << 20) as f64);
    // Ratios compare the same bytes: where LLVM takes part, objects for targets the in-process
    // LLVM 19 does not know (gfx950, gfx1250) are left out of every measurement.
    let llvm_takes_part = match &args.only {
        Some(only) => only == "llvm",
        None => !(args.decode_only || args.no_llvm) || args.what == "encode",
    };
    if llvm_takes_part {
        let refused = |w: &Work| Refusal::before_asking(&w.target).is_some();
        let unknown: Vec<String> = work.iter().filter(|w| refused(w)).map(|w| w.target.to_string()).collect();
        if !unknown.is_empty() {
            work.retain(|w| !refused(w));
            println!("left out: {} code object(s) for {} (the in-process LLVM is 19; `--no-llvm` or `--decode-only` measures ours on them)", unknown.len(), unknown.join(", "));
        }
        anyhow::ensure!(!work.is_empty(), "{path}: no code object for a target the in-process LLVM 19 decodes, nothing to compare (`--no-llvm` or `--decode-only` measures ours alone)");
    }
    if args.what == "encode" {
        return bench_encode(&work);
    }

    if let Some(only) = &args.only {
        let pass = |work: &[Work]| match only.as_str() {
            "decode" => Some(pass_decode(work, true)),
            "decode-uncached" => Some(pass_decode(work, false)),
            "print" => Some(pass_print(work, true)),
            "print-uncached" => Some(pass_print(work, false)),
            "llvm" => Some(pass_llvm(work)),
            _ => None,
        };
        // A warm-up pass (one-time set-up: tables, print programs, caches), then the measured
        // one; `--toggle-collect='*bench::measured*'` counts only the latter.
        anyhow::ensure!(pass(&work).is_some(), "unknown --only {only:?} (known: decode, decode-uncached, print, print-uncached, llvm)");
        let n = (0..args.repeat).map(|_| measured(|| pass(&work).unwrap_or(0))).last().unwrap_or(0);
        println!("{only}: {n} instructions per pass, {} measured pass(es)", args.repeat);
        return Ok(());
    }
    // With the decoder's memo (a repeat costs one probe) and without it (every instruction
    // decoded afresh): real code repeats itself, so both figures are reported.
    let (n_ours, t_decode) = measure(|| pass_decode(&work, true));
    let (_, t_uncached) = measure(|| pass_decode(&work, false));
    let rate = |n: u64, t: Duration| n as f64 / t.as_secs_f64() / 1e6;
    let ns = |n: u64, t: Duration| t.as_secs_f64() * 1e9 / n as f64;
    let decode_lines = || {
        for (t, memo) in [(t_decode, "on"), (t_uncached, "off")] {
            println!("gfxpatch decode only:   {:8.2} M inst/s  ({t:?}, {:.1} ns/inst, memo {memo})", rate(n_ours, t), ns(n_ours, t));
        }
    };
    if args.decode_only {
        decode_lines();
        return Ok(());
    }
    // With the printer's text memo (a repeated instruction's text is copied) and without it
    // (every instruction's operands decoded and printed afresh).
    let (_, t_print) = measure(|| pass_print(&work, true));
    let (_, t_print_uncached) = measure(|| pass_print(&work, false));
    let print_lines = || {
        for (t, memo) in [(t_print, "on"), (t_print_uncached, "off")] {
            println!("gfxpatch decode+print:  {:8.2} M inst/s  ({t:?}, {:.1} ns/inst, decoder memo on, print memo {memo})", rate(n_ours, t), ns(n_ours, t));
        }
    };
    if args.no_llvm {
        decode_lines();
        print_lines();
        return Ok(());
    }
    let (n_llvm, t_llvm) = measure(|| pass_llvm(&work));
    decode_lines();
    print_lines();
    println!("LLVM decode+print:      {:8.2} M inst/s  ({t_llvm:?}, {:.1} ns/inst, {n_llvm} instructions)", rate(n_llvm, t_llvm), ns(n_llvm, t_llvm));
    let ratio = |t: Duration| t_llvm.as_secs_f64() / t.as_secs_f64();
    println!("ratio decode only:      {:8.1}x LLVM (memo on), {:.1}x (memo off)", ratio(t_decode), ratio(t_uncached));
    println!("ratio decode+print:     {:8.1}x LLVM (print memo on), {:.1}x (print memo off)", ratio(t_print), ratio(t_print_uncached));
    Ok(())
}

/// Runs `f` once (a separate symbol for profilers to toggle collection on).
#[inline(never)]
fn measured(f: impl FnOnce() -> u64) -> u64 {
    f()
}

/// One pass of decode over `work`, with the decoder's memo or without it (every instruction
/// decoded afresh); the instruction count. Each section is decoded as the rewriter's program
/// builder decodes a function's bytes: a linear sweep into two vectors of result notes, one
/// per cursor ([`crate::isa::Decoder::sweep_into`]; the program builder makes each `Inst`
/// from its note and the bytes as it copies it). Code objects of one target share a decoder,
/// as `gfxpatch rewrite` and `disasm` share them ([`Decoders`]); a pass starts with none, so
/// its memos start empty.
#[inline(never)]
fn pass_decode(work: &[Work], memo: bool) -> u64 {
    let mut n = 0u64;
    let mut decoders = Decoders::default();
    for w in work {
        let decoder = decoders.for_target(w.target);
        for s in &w.sections {
            // A fresh `Swept` per section: reusing one across sections measured slower when
            // it held instructions rather than notes (28.9 vs 27.4 ns/inst on librocrand,
            // 20.3 vs 16.6 on librocsparse).
            let mut swept = Swept::default();
            if memo {
                decoder.sweep_into(s, 0..s.len(), &mut swept);
            } else {
                decoder.sweep_uncached_into(s, 0..s.len(), &mut swept);
            }
            n += std::hint::black_box(&swept).len() as u64;
        }
    }
    n
}

/// One pass of decode+print (text memo `memo`, starting empty) over `work`, with decoders
/// shared per target as in [`pass_decode`].
#[inline(never)]
fn pass_print(work: &[Work], memo: bool) -> u64 {
    print::clear_text_memo();
    let mut n = 0u64;
    let mut text = String::new();
    let mut decoders = Decoders::default();
    for w in work {
        let decoder = decoders.for_target(w.target);
        for s in &w.sections {
            let mut at = 0;
            while at + 4 <= s.len() {
                let inst = decoder.decode(&s[at..]);
                text.clear();
                if memo {
                    print::write_inst(&mut text, &inst, &w.target, at as u64);
                } else {
                    print::write_inst_uncached(&mut text, &inst, &w.target, at as u64);
                }
                std::hint::black_box(&text);
                at += inst.len();
                n += 1;
            }
        }
    }
    n
}

/// One pass of LLVM's disassembler over `work`.
#[inline(never)]
fn pass_llvm(work: &[Work]) -> u64 {
    let mut n = 0u64;
    for w in work {
        let mut llvm = LlvmDisassembler::new(&w.target).expect("`run` keeps only targets LLVM 19 takes");
        for s in &w.sections {
            let mut at = 0;
            while at + 4 <= s.len() {
                let inst = llvm.decode(&s[at..], at as u64);
                at += if inst.size == 0 { 4 } else { inst.size };
                n += 1;
            }
        }
    }
    n
}

/// One instruction to encode: its record, operands and text, decoded and printed beforehand.
struct ToEncode {
    inst: Inst,
    ops: Operands,
}

/// Encode throughput: ours from operands, LLVM's from text, on the same instructions.
fn bench_encode(work: &[Work]) -> anyhow::Result<()> {
    // Decode and print outside the timings: each side gets its natural input.
    let mut per_target: Vec<(Target, Vec<ToEncode>, Vec<String>)> = Vec::new();
    let mut decoders = Decoders::default();
    for w in work {
        let decoder = decoders.for_target(w.target);
        let (mut insts, mut texts) = (Vec::new(), Vec::new());
        for s in &w.sections {
            let mut at = 0;
            while at + 4 <= s.len() {
                let inst = decoder.decode(&s[at..]);
                at += inst.len();
                let Some(e) = inst.encoding() else { continue };
                let bytes = inst.bytes();
                let Ok(ops) = decode_operands(e, inst.encoded_bits(), &bytes[inst.tail_at()..], &w.target) else { continue };
                texts.push(print::print(&inst, &w.target, 0));
                insts.push(ToEncode { inst, ops });
            }
        }
        per_target.push((w.target, insts, texts));
    }
    let count: usize = per_target.iter().map(|(_, i, _)| i.len()).sum();
    let mut same = 0usize;
    for (target, insts, _) in &per_target {
        same += insts.iter().filter(|i| encode(i.inst.encoding().unwrap(), &i.ops, target).is_ok_and(|o| o.bytes() == i.inst.bytes())).count();
    }
    let (_, t_ours) = measure(|| {
        let mut n = 0u64;
        for (target, insts, _) in &per_target {
            for i in insts {
                if let Ok(out) = encode(i.inst.encoding().unwrap(), &i.ops, target) {
                    n += out.len() as u64;
                }
            }
        }
        n
    });
    let (_, t_like) = measure(|| {
        let mut n = 0u64;
        for (target, insts, _) in &per_target {
            for i in insts {
                if let Ok(out) = encode_like(&i.inst, &i.ops, target) {
                    n += out.len() as u64;
                }
            }
        }
        n
    });
    // LLVM: the same instructions' text, in chunks (one module each), per target.
    const CHUNK: usize = 4096;
    let mut llvm_failed = 0usize;
    let (n_llvm, t_llvm) = measure(|| {
        let mut n = 0u64;
        llvm_failed = 0;
        for (target, _, texts) in &per_target {
            let mut llvm = LlvmAssembler::new(target).expect("LLVM refused the target");
            for chunk in texts.chunks(CHUNK) {
                let text = chunk.join("\n");
                match llvm.assemble(&text) {
                    Ok(bytes) => n += bytes.len() as u64,
                    Err(_) => llvm_failed += 1,
                }
            }
        }
        n
    });
    let rate = |t: Duration| count as f64 / t.as_secs_f64() / 1e6;
    println!("instructions:           {count} ({same} re-encode canonically to their bytes)");
    println!("gfxpatch encode:        {:8.2} M inst/s  ({:?})", rate(t_ours), t_ours);
    println!("gfxpatch encode_like:   {:8.2} M inst/s  ({:?})", rate(t_like), t_like);
    println!("LLVM assemble text:     {:8.2} M inst/s  ({:?}, {} bytes, {} chunk(s) with a rejected line)", rate(t_llvm), t_llvm, n_llvm, llvm_failed);
    println!("ratio encode:           {:8.1}x LLVM", t_llvm.as_secs_f64() / t_ours.as_secs_f64());
    println!("ratio encode_like:      {:8.1}x LLVM", t_llvm.as_secs_f64() / t_like.as_secs_f64());
    Ok(())
}

/// Timed runs of each configuration: at least this many, and until this much time was spent.
const MIN_RUNS: usize = 3;
const MIN_TIME: Duration = Duration::from_secs(2);

/// Runs `f` once to warm up, then measures the fastest of at least [`MIN_RUNS`] runs taking
/// at least [`MIN_TIME`] together. Every configuration, LLVM's included, gets the same
/// sampling time, so a short pass (ours on a small library: milliseconds) is not judged on
/// three samples that one interruption spoils, and a long one (LLVM's) still runs thrice.
fn measure(mut f: impl FnMut() -> u64) -> (u64, Duration) {
    let n = std::hint::black_box(f());
    let (mut best, mut spent, mut runs) = (Duration::MAX, Duration::ZERO, 0);
    while runs < MIN_RUNS || spent < MIN_TIME {
        let start = Instant::now();
        std::hint::black_box(f());
        let took = start.elapsed();
        (best, spent, runs) = (best.min(took), spent + took, runs + 1);
    }
    (n, best)
}
