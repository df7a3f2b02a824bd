//! `gfxpatch asm --target gfx1100 [--mattr M] 'v_lshl_or_b32 v5, v1, v2, s3'` or `... FILE.s`:
//! assemble LLVM assembler text and print each instruction with its encoding, in the layout of
//! `llvm-mc -show-encoding`.

use anyhow::{Context as _, anyhow};

use crate::isa::parse::{Line, Parser, assemble_file};
use crate::isa::{Target, print};

#[derive(clap::Args)]
pub struct AsmArgs {
    /// Processor, e.g. gfx1100.
    #[arg(long)]
    target: String,
    /// LLVM-style features, e.g. +wavefrontsize64.
    #[arg(long, default_value = "")]
    mattr: String,
    /// One instruction, or a file of them (labels, comments, `.text`).
    input: String,
    /// For one instruction: how far each candidate encoding got (for diagnosing text that does
    /// not parse as expected).
    #[arg(long)]
    explain: bool,
}

pub fn run(args: &AsmArgs) -> anyhow::Result<()> {
    let target = Target::from_name(&args.target, &args.mattr)?;
    let parser = Parser::new(target);
    if args.explain {
        for line in parser.explain(&args.input) {
            println!("{line}");
        }
        return Ok(());
    }
    let path = std::path::Path::new(&args.input);
    let (name, source) = if path.is_file() {
        (
            args.input.clone(),
            std::fs::read_to_string(path).with_context(|| args.input.clone())?,
        )
    } else {
        ("<command line>".to_owned(), args.input.clone())
    };
    let lines = assemble_file(&parser, &source).map_err(|e| anyhow!("{name}:{e}"))?;
    // Everything parsed: only now write, so an error leaves no partial listing.
    let mut out = String::from("\t.text\n");
    for line in lines {
        match line {
            Line::Label(label) => out.push_str(&format!("{label}:\n")),
            Line::Inst { offset, parsed } => {
                let text = print::print(&parsed.inst, &target, offset as u64);
                let bytes: Vec<String> = parsed
                    .inst
                    .bytes()
                    .iter()
                    .map(|b| format!("0x{b:02x}"))
                    .collect();
                out.push_str(&format!("\t{text:<40}; encoding: [{}]\n", bytes.join(",")));
            }
        }
    }
    print!("{out}");
    Ok(())
}
