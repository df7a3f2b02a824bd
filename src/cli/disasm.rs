//! `gfxpatch disasm FILE... [--kernel NAME] [--json] [--backend gfxpatch|llvm]`: disassembly in
//! `llvm-objdump -d` layout (several files one after another, as objdump prints them), or as
//! JSON (see [`super::disasm_json`]); by gfxpatch's decoder or by LLVM's in-process
//! disassembler.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};

use crate::container::CodeObject;
use crate::container::bundle::DecompressLimits;
use crate::container::input::{Input, MappedFile};
use crate::isa::listing;
use crate::isa::{Decoders, Target};
use crate::llvm::disasm::LlvmDisassembler;

use super::disasm_json;

/// Whose disassembler decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// gfxpatch's decoder and printer.
    Gfxpatch,
    /// LLVM's in-process disassembler (lengths and text from LLVM 19).
    Llvm,
}

#[derive(clap::Args)]
pub struct DisasmArgs {
    /// Code objects, offload bundles or host libraries (one with `--json`).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Only the block of this symbol (kernel or function).
    #[arg(long)]
    kernel: Option<String>,
    /// Decode as wave64 (gfx10+), like `llvm-objdump --mattr=+wavefrontsize64`.
    #[arg(long)]
    wave64: bool,
    /// Print the instructions as JSON: address, bytes, text, record, family, operands.
    #[arg(long)]
    json: bool,
    /// Whose disassembler decodes.
    #[arg(long, value_enum, default_value_t = Backend::Gfxpatch)]
    backend: Backend,
}

pub fn run(args: &DisasmArgs) -> anyhow::Result<()> {
    if args.json && args.files.len() > 1 {
        bail!("--json lists one file; give the {} files one at a time", args.files.len());
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut decoders = Decoders::default();
    for file in &args.files {
        disasm_file(file, args, &mut out, &mut decoders)?;
    }
    Ok(())
}

fn disasm_file(
    file: &Path,
    args: &DisasmArgs,
    out: &mut impl std::io::Write,
    decoders: &mut Decoders,
) -> anyhow::Result<()> {
    let path = file.display().to_string();
    let mapped = MappedFile::open(file).with_context(|| path.clone())?;
    let input =
        Input::parse(mapped.bytes(), &DecompressLimits::default()).with_context(|| path.clone())?;
    let mut objects = Vec::new();
    for (i, embedded) in input.objects.iter().enumerate() {
        let object = CodeObject::parse(&embedded.bytes)
            .with_context(|| format!("{path}: {}", embedded.describe(i)))?;
        let target =
            Target::from_target_id(&object.target, args.wave64).with_context(|| path.clone())?;
        let name = match &embedded.bundle_id {
            Some(id) => format!("{path}:{id}"),
            None => path.clone(),
        };
        let wanted = |block_name: &str| args.kernel.as_ref().is_none_or(|k| k == block_name);
        let (text, blocks) = match args.backend {
            Backend::Gfxpatch => {
                let decoder = decoders.for_target(target);
                let mut blocks = listing::blocks(&object.listing_texts(), decoder);
                blocks.retain(|b| wanted(b.name));
                if args.json {
                    (None, disasm_json::ours(&blocks, decoder))
                } else {
                    (Some(listing::render(&blocks, decoder)), Vec::new())
                }
            }
            Backend::Llvm => {
                let mut llvm = LlvmDisassembler::new(&target).with_context(|| name.clone())?;
                let mut blocks = crate::llvm::listing::blocks(&object.listing_texts(), &mut llvm);
                blocks.retain(|b| wanted(b.name));
                if args.json {
                    (None, disasm_json::llvm(&blocks))
                } else {
                    (Some(crate::llvm::listing::render(&blocks)), Vec::new())
                }
            }
        };
        match text {
            Some(text) => {
                write!(
                    out,
                    "\n{name}:\tfile format elf64-amdgpu\n\nDisassembly of section .text:\n"
                )?;
                out.write_all(text.as_bytes())?;
            }
            None => objects.push(disasm_json::ObjectListing {
                name,
                bundle_id: embedded.bundle_id.clone(),
                target: object.target.to_string(),
                wave64: target.wave64,
                backend: if args.backend == Backend::Llvm {
                    "llvm"
                } else {
                    "gfxpatch"
                },
                blocks,
            }),
        }
    }
    if args.json {
        let listing = disasm_json::Listing {
            file: path,
            code_objects: objects,
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&listing)?)?;
    }
    Ok(())
}
