//! `gfxpatch bench rewrite FILE`: rewrite throughput (the identity, and insert-nops with its
//! layout, writer and verifier) against LLVM's disassembler decoding and printing the same text
//! (the core of `llvm-objdump -d`, in-process), in one run, as ratios.

use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::container::bundle::DecompressLimits;
use crate::container::input::{Input, MappedFile};
use crate::container::CodeObject;
use crate::isa::Target;
use crate::llvm::disasm::LlvmDisassembler;
use crate::pass;
use crate::rewrite::{rewrite_object, Options};

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
        text += CodeObject::parse(&o.bytes)?.text_size();
        objects.push(o.bytes.to_vec());
    }
    println!("{path}: {} code object(s), {:.1} MiB of .text (one thread)", objects.len(), text as f64 / (1 << 20) as f64);

    let time = |f: &mut dyn FnMut() -> anyhow::Result<u64>| -> anyhow::Result<(u64, Duration)> {
        let start = Instant::now();
        let n = f()?;
        Ok((n, start.elapsed()))
    };
    let identity = Options { passes: Vec::new(), print_after: None, strip_debug_on_failure: false };
    // The container writer does not remap DWARF yet: drop it rather than refuse, so the whole
    // rewrite path is measured.
    let nops = Options { passes: vec![pass::find("insert-nops").unwrap()], print_after: None, strip_debug_on_failure: true };
    let rewrite = |options: &Options<'_>| {
        let mut n = 0u64;
        let mut refused = 0u64;
        for o in &objects {
            let out = rewrite_object(o, options)?;
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
            let mut llvm = LlvmDisassembler::new(&target).context("LLVM refused the target")?;
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
    let rate = |n: u64, t: Duration| n as f64 / t.as_secs_f64() / 1e6;
    println!("gfxpatch rewrite (identity):     {:8.2} M inst/s  ({t_identity:?}, {n_identity} instructions)", rate(n_identity, t_identity));
    println!("gfxpatch rewrite (insert-nops):  {:8.2} M inst/s  ({t_nops:?}, {refused_nops} object(s) refused)", rate(n_identity, t_nops));
    println!("LLVM decode+print:               {:8.2} M inst/s  ({t_llvm:?}, {n_llvm} instructions)", rate(n_llvm, t_llvm));
    println!("ratio identity:                  {:8.2}x LLVM", t_llvm.as_secs_f64() / t_identity.as_secs_f64());
    println!("ratio insert-nops:               {:8.2}x LLVM", t_llvm.as_secs_f64() / t_nops.as_secs_f64());
    Ok(())
}
