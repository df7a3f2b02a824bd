//! `gfxpatch decode --target gfx1100 [--mattr M] HEX...`: decode bytes given on the command line
//! and show which LLVM record matched, its length and its text (and LLVM's, with `--llvm`).

use anyhow::{Context as _, bail};

use crate::isa::{Decoder, Target, print};
use crate::llvm::disasm::LlvmDisassembler;

#[derive(clap::Args)]
pub struct DecodeArgs {
    /// Processor, e.g. gfx1100.
    #[arg(long)]
    target: String,
    /// LLVM-style features, e.g. +wavefrontsize64.
    #[arg(long, default_value = "")]
    mattr: String,
    /// Also decode with LLVM in-process and show its result.
    #[arg(long)]
    llvm: bool,
    /// Bytes in memory order: `05 00 56 d6`, `0x05,0x00` or `050056d6`.
    bytes: Vec<String>,
}

pub fn run(args: &DecodeArgs) -> anyhow::Result<()> {
    let target = Target::from_name(&args.target, &args.mattr)?;
    let hex: String = args
        .bytes
        .join(" ")
        .replace("0x", "")
        .chars()
        .filter(|c| c.is_ascii_hexdigit())
        .collect();
    if !hex.len().is_multiple_of(2) || hex.is_empty() {
        bail!(
            "expected whole bytes in hex, got {:?}",
            args.bytes.join(" ")
        );
    }
    let bytes: Vec<u8> = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16))
        .collect::<Result<_, _>>()
        .context("hex")?;
    let decoder = Decoder::new(target);
    let mut llvm = if args.llvm {
        Some(LlvmDisassembler::new(&target)?)
    } else {
        None
    };
    let mut at = 0;
    while at < bytes.len() {
        let inst = decoder.decode(&bytes[at..]);
        let record = inst
            .encoding()
            .map_or_else(|| "<raw>".to_owned(), |e| e.record_name());
        println!(
            "{at:4}: {:<60} [{record}, {} bytes]",
            print::print(&inst, &target, at as u64),
            inst.len()
        );
        if let Some(llvm) = llvm.as_mut() {
            let theirs = llvm.decode(&bytes[at..], at as u64);
            println!("      {:<60} [LLVM, {} bytes]", theirs.text, theirs.size);
        }
        at += inst.len();
    }
    Ok(())
}
