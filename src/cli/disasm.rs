//! `gfxpatch disasm FILE [--kernel NAME]`: disassembly in `llvm-objdump -d` layout.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;

use crate::container::bundle::DecompressLimits;
use crate::container::input::{Input, MappedFile};
use crate::container::CodeObject;
use crate::isa::listing;
use crate::isa::{Decoder, Target};

#[derive(clap::Args)]
pub struct DisasmArgs {
    /// A code object, an offload bundle or a host library.
    file: PathBuf,
    /// Only the block of this symbol (kernel or function).
    #[arg(long)]
    kernel: Option<String>,
    /// Decode as wave64 (gfx10+), like `llvm-objdump --mattr=+wavefrontsize64`.
    #[arg(long)]
    wave64: bool,
}

pub fn run(args: &DisasmArgs) -> anyhow::Result<()> {
    let path = args.file.display().to_string();
    let mapped = MappedFile::open(&args.file).with_context(|| path.clone())?;
    let input = Input::parse(mapped.bytes(), &DecompressLimits::default()).with_context(|| path.clone())?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (i, embedded) in input.objects.iter().enumerate() {
        let object = CodeObject::parse(&embedded.bytes).with_context(|| format!("{path}: {}", embedded.describe(i)))?;
        let target = Target::from_target_id(&object.target, args.wave64).with_context(|| path.clone())?;
        let decoder = Decoder::new(target);
        let mut blocks = listing::blocks(&object, &decoder);
        if let Some(name) = &args.kernel {
            blocks.retain(|b| b.name == name);
        }
        let name = match &embedded.bundle_id {
            Some(id) => format!("{path}:{id}"),
            None => path.clone(),
        };
        write!(out, "\n{name}:\tfile format elf64-amdgpu\n\nDisassembly of section .text:\n")?;
        out.write_all(listing::render(&blocks, &decoder).as_bytes())?;
    }
    Ok(())
}
