//! `gfxpatch asm --target gfx1100 [--mattr M] 'v_lshl_or_b32 v5, v1, v2, s3'` or `... FILE.s`:
//! assemble LLVM assembler text and print each instruction with its encoding, in the layout of
//! `llvm-mc -show-encoding`.

use std::path::PathBuf;

use anyhow::{Context as _, anyhow, bail};

use crate::container::CodeObject;
use crate::container::bundle::DecompressLimits;
use crate::container::input::{Input, MappedFile};
use crate::isa::encode::{Conventions, Observer};
use crate::isa::parse::{Line, Parser, assemble_file};
use crate::isa::{Decoder, Target, print};

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
    /// `ours` (the parser and encoder) or `llvm` (LLVM 19's assembler in-process; each
    /// instruction line on its own, no labels).
    #[arg(long, default_value = "ours")]
    backend: String,
    /// For one instruction: how far each candidate encoding got (for diagnosing text that does
    /// not parse as expected).
    #[arg(long)]
    explain: bool,
    /// Fill the bits the text does not determine (the unused destination byte of GFX10+
    /// `v_cmpx_*_e64`) as FILE's compiler did: the conventions its code objects for this
    /// processor show (a code object, offload bundle or host library). Re-assembling text
    /// disassembled from FILE then gives FILE's bytes. Default: LLVM 19's conventions.
    #[arg(long, value_name = "FILE")]
    like: Option<PathBuf>,
}

pub fn run(args: &AsmArgs) -> anyhow::Result<()> {
    let target = Target::from_name(&args.target, &args.mattr)?;
    let conventions = match &args.like {
        Some(path) if args.backend == "ours" => observed_conventions(path, &target)?,
        Some(_) => bail!("--like needs the ours backend: LLVM's assembler writes its own conventions"),
        None => Conventions::LLVM,
    };
    let parser = Parser::with_conventions(target, conventions);
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
    match args.backend.as_str() {
        "ours" => {}
        "llvm" => return run_llvm(&target, &name, &source),
        other => return Err(anyhow!("unknown backend {other} (ours or llvm)")),
    }
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

/// The conventions `path`'s code objects for `target`'s processor show (see
/// [`Observer`]); a note on stderr when they are not LLVM's or the code objects disagree.
fn observed_conventions(path: &std::path::Path, target: &Target) -> anyhow::Result<Conventions> {
    let name = path.display().to_string();
    let mapped = MappedFile::open(path).with_context(|| name.clone())?;
    let input = Input::parse(mapped.bytes(), &DecompressLimits::default()).with_context(|| name.clone())?;
    let decoder = Decoder::new(*target);
    let mut observer = Observer::new(*target);
    let mut seen = 0;
    let mut others = Vec::new();
    for (i, embedded) in input.objects.iter().enumerate() {
        let object = CodeObject::parse(&embedded.bytes).with_context(|| format!("{name}: {}", embedded.describe(i)))?;
        if !std::ptr::eq(object.target.processor, target.processor) {
            others.push(object.target.to_string());
            continue;
        }
        for section in object.text_sections() {
            observer.see_code(object.section_data(section), &decoder);
        }
        seen += 1;
    }
    if seen == 0 {
        bail!("{name} has no code object for {} (it has: {})", target.processor.name, others.join(", "));
    }
    let conventions = observer.conventions();
    if observer.mixed() {
        eprintln!("asm: {name}'s code objects disagree on the bits text does not determine; using LLVM's where they do");
    }
    if conventions != Conventions::LLVM {
        eprintln!(
            "asm: encoding as {name}'s compiler did: {conventions} (LLVM writes {:#04x})",
            Conventions::LLVM.vcmpx_e64_dst
        );
    }
    Ok(conventions)
}

/// `--backend llvm`: each statement through LLVM's assembler, printed as LLVM's disassembler
/// reads the bytes back (our printer, identical to LLVM's on every fixture).
fn run_llvm(target: &Target, name: &str, source: &str) -> anyhow::Result<()> {
    let statements: Vec<(usize, &str)> = source
        .lines()
        .enumerate()
        .map(|(n, l)| {
            let code = l.split(';').next().unwrap_or("");
            (n + 1, code.split("//").next().unwrap_or("").trim())
        })
        .filter(|(_, s)| !s.is_empty() && !s.starts_with('.') && !s.ends_with(':'))
        .collect();
    let texts: Vec<&str> = statements.iter().map(|&(_, s)| s).collect();
    let mut llvm = crate::llvm::asm::LlvmAssembler::new(target).map_err(|e| anyhow!("{e}"))?;
    let results = llvm.assemble_each(&texts).map_err(|e| anyhow!("{name}: {e}"))?;
    let decoder = crate::isa::Decoder::new(*target);
    let mut out = String::from("\t.text\n");
    for ((line, _), result) in statements.iter().zip(results) {
        let bytes = result.map_err(|e| anyhow!("{name}:{line}: LLVM: {e}"))?;
        let mut at = 0;
        while at < bytes.len() {
            let inst = decoder.decode(&bytes[at..]);
            let text = print::print(&inst, target, at as u64);
            let end = (at + inst.len().max(4)).min(bytes.len());
            let hex: Vec<String> = bytes[at..end].iter().map(|b| format!("0x{b:02x}")).collect();
            out.push_str(&format!("\t{text:<40}; encoding: [{}]\n", hex.join(",")));
            at = end;
        }
    }
    print!("{out}");
    Ok(())
}
