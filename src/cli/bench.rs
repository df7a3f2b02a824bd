//! `gfxpatch bench decode FILE`: decode throughput of gfxpatch against LLVM's in-process
//! disassembler on the same bytes, in one run, reported as ratios. (Speed is measured here,
//! never by timed tests.)

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::container::bundle::DecompressLimits;
use crate::container::input::{Input, MappedFile};
use crate::container::CodeObject;
use crate::isa::{print, Decoder, Target};
use crate::llvm::disasm::LlvmDisassembler;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// What to measure: `decode`.
    what: String,
    /// A code object, bundle or host library whose .text is decoded.
    file: PathBuf,
    /// Stop after this many MiB of .text (host libraries can hold gigabytes).
    #[arg(long, default_value_t = 64)]
    max_mib: u64,
    /// Measure decoding only (for profiling the decoder).
    #[arg(long)]
    decode_only: bool,
}

/// One target's worth of code: the decoder inputs.
struct Work {
    target: Target,
    sections: Vec<Vec<u8>>,
}

pub fn run(args: &BenchArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.what == "decode", "unknown benchmark {:?} (known: decode)", args.what);
    let path = args.file.display().to_string();
    let mapped = MappedFile::open(&args.file).with_context(|| path.clone())?;
    let input = Input::parse(mapped.bytes(), &DecompressLimits::default()).with_context(|| path.clone())?;
    let mut work: Vec<Work> = Vec::new();
    let mut total = 0u64;
    for embedded in &input.objects {
        if total >= args.max_mib << 20 {
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

    // With the decoder's memo (a repeat costs one probe) and without it (every instruction
    // decoded afresh): real code repeats itself, so both figures are reported.
    let decode_all = |memo: bool| {
        let mut n = 0u64;
        for w in &work {
            let decoder = Decoder::new(w.target);
            for s in &w.sections {
                let mut at = 0;
                while at + 4 <= s.len() {
                    let inst = if memo { decoder.decode(&s[at..]) } else { decoder.decode_uncached(&s[at..]) };
                    at += inst.len();
                    n += 1;
                }
            }
        }
        n
    };
    let (n_ours, t_decode) = measure(|| decode_all(true));
    let (_, t_uncached) = measure(|| decode_all(false));
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
    let (_, t_print) = measure(|| {
        let mut n = 0u64;
        let mut text = String::new();
        for w in &work {
            let decoder = Decoder::new(w.target);
            for s in &w.sections {
                let mut at = 0;
                while at + 4 <= s.len() {
                    let inst = decoder.decode(&s[at..]);
                    text.clear();
                    print::write_inst(&mut text, &inst, &w.target, at as u64);
                    at += inst.len();
                    n += text.len() as u64;
                }
            }
        }
        n
    });
    let (n_llvm, t_llvm) = measure(|| {
        let mut n = 0u64;
        for w in &work {
            let mut llvm = LlvmDisassembler::new(&w.target).expect("LLVM refused the target");
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
    });
    decode_lines();
    println!("gfxpatch decode+print:  {:8.2} M inst/s  ({t_print:?}, {:.1} ns/inst, decoder memo on)", rate(n_ours, t_print), ns(n_ours, t_print));
    println!("LLVM decode+print:      {:8.2} M inst/s  ({t_llvm:?}, {:.1} ns/inst, {n_llvm} instructions)", rate(n_llvm, t_llvm), ns(n_llvm, t_llvm));
    let ratio = |t: Duration| t_llvm.as_secs_f64() / t.as_secs_f64();
    println!("ratio decode only:      {:8.1}x LLVM (memo on), {:.1}x (memo off)", ratio(t_decode), ratio(t_uncached));
    println!("ratio decode+print:     {:8.1}x LLVM", ratio(t_print));
    Ok(())
}

/// Runs `f` once to warm up, then measures the best of three runs.
fn measure(mut f: impl FnMut() -> u64) -> (u64, Duration) {
    let n = std::hint::black_box(f());
    let best = (0..3)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed()
        })
        .min()
        .unwrap();
    (n, best)
}
