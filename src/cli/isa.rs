//! `gfxpatch isa MNEMONIC [--target PROC] [--json]`: an instruction across generations: its
//! encodings (family, opcode, bit layout, operands) and AMD's name and pseudocode for it.
//! See [`crate::isa::info`] for where each fact comes from.

use std::fmt::Write as _;

use anyhow::Context as _;

use crate::isa::Processor;
use crate::isa::info::{self, Content, EncodingInfo, GenerationInfo, InstructionInfo};

#[derive(clap::Args)]
pub struct IsaArgs {
    /// The instruction: LLVM's mnemonic (v_lshl_or_b32, v_cmp_le_i64_e32) or AMD's name.
    mnemonic: String,
    /// Only this processor's generation, decoded as this processor.
    #[arg(long)]
    target: Option<String>,
    /// Print the answer as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &IsaArgs) -> anyhow::Result<()> {
    let only = match &args.target {
        Some(name) => {
            Some(Processor::by_name(name).with_context(|| format!("unknown processor {name:?}"))?)
        }
        None => None,
    };
    let info = info::describe(&args.mnemonic, only)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&info)?);
    } else {
        print!("{}", render(&info));
    }
    Ok(())
}

/// The text form: one block per generation; a generation whose encodings are the same as the
/// previous one's says so instead of repeating them.
pub fn render(info: &InstructionInfo) -> String {
    let mut out = String::new();
    let _ = write!(out, "{}", info.mnemonic);
    if !info.amd_names.is_empty() {
        let _ = write!(out, " (AMD: {})", info.amd_names.join(", "));
    }
    out.push('\n');
    if !info.absent.is_empty() {
        let _ = writeln!(out, "not on: {}", info.absent.join(", "));
    }
    let mut previous: Option<(&GenerationInfo, serde_json::Value)> = None;
    for g in &info.generations {
        let _ = write!(out, "\n{} ({}, {})", g.generation, g.processor, g.mode);
        let value = serde_json::to_value(&g.encodings).unwrap_or_default();
        if let Some((p, v)) = &previous
            && *v == value
            && !g.encodings.is_empty()
        {
            let _ = writeln!(out, ": same encodings as {}", p.generation);
        } else {
            out.push('\n');
            for e in &g.encodings {
                render_encoding(&mut out, e);
            }
        }
        for e in &g.elsewhere {
            let _ = writeln!(
                out,
                "  not on {}, but {} ({}) on {}",
                g.processor,
                e.record,
                e.family,
                e.processors.join(", ")
            );
        }
        previous = Some((g, value));
    }
    out
}

fn render_encoding(out: &mut String, e: &EncodingInfo) {
    let family = match e.form {
        Some(form) => format!("{} {form}", e.family),
        None => e.family.to_owned(),
    };
    let opcodes = e
        .opcode_fields
        .iter()
        .map(|f| format!("{} {} = {}", f.field, f.bits, f.value))
        .collect::<Vec<_>>()
        .join(", ");
    let _ = writeln!(
        out,
        "  {}: {family}, {} bits{}",
        e.record,
        e.bits,
        if opcodes.is_empty() {
            String::new()
        } else {
            format!(", {opcodes}")
        }
    );
    let _ = writeln!(out, "    asm       {}", e.asm);
    let _ = writeln!(out, "    match     bits & {} == {}", e.mask, e.value);
    let width = e
        .layout
        .iter()
        .map(|r| r.field.len())
        .max()
        .unwrap_or(0)
        .max(5);
    for (i, r) in e.layout.iter().enumerate() {
        let content = match &r.content {
            Content::Operand {
                operand,
                field_hi,
                field_lo,
                whole,
            } => {
                if *whole {
                    operand.to_string()
                } else {
                    format!("{operand}[{}]", range(*field_hi, *field_lo))
                }
            }
            Content::Opcode { value } => format!("opcode {value}"),
            Content::Encoding { value } | Content::Fixed { value } => value.clone(),
            Content::Unused => "-".to_owned(),
        };
        let label = if i == 0 { "layout" } else { "" };
        let _ = writeln!(
            out,
            "    {label:<9} {:<width$} {:>5}  {content}",
            r.field,
            r.bits()
        );
    }
    for (i, o) in e.operands.iter().enumerate() {
        let label = if i == 0 { "operands" } else { "" };
        let class = if o.reg_class.is_empty() || o.reg_class == o.class {
            o.class.to_owned()
        } else {
            format!("{} [{}]", o.class, o.reg_class)
        };
        let bits = if o.bits.is_empty() {
            match o.tied_to {
                Some(t) => format!("tied to {t}"),
                None => "not encoded".to_owned(),
            }
        } else {
            o.bits.join(" ")
        };
        let _ = writeln!(
            out,
            "    {label:<9} {:<3} {:<16} {class:<36} {bits}",
            o.dir, o.name
        );
    }
    if !e.uses.is_empty() || !e.defs.is_empty() {
        let _ = writeln!(
            out,
            "    implicit  reads {}; writes {}",
            list(&e.uses),
            list(&e.defs)
        );
    }
    for amd in &e.amd {
        let table = if amd.arch_exact {
            amd.arch.to_owned()
        } else {
            format!("{}, nearest table", amd.arch)
        };
        let field = if e.amd.len() > 1 {
            format!("{}: ", amd.field)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "    AMD       {field}{} {} opcode {} ({table})",
            amd.name, amd.encoding, amd.opcode
        );
        match (&amd.pseudocode, amd.pseudocode_arch) {
            (Some(text), Some(from)) => {
                if from != amd.arch {
                    let _ = writeln!(
                        out,
                        "              pseudocode from {from} ({} has none attributable to it):",
                        amd.arch
                    );
                }
                for line in text.lines() {
                    let _ = writeln!(out, "              {line}");
                }
            }
            _ => {
                if let Some(note) = &amd.note {
                    let _ = writeln!(out, "              no pseudocode: {note}");
                }
            }
        }
    }
}

fn range(hi: u8, lo: u8) -> String {
    if hi == lo {
        hi.to_string()
    } else {
        format!("{hi}:{lo}")
    }
}

fn list(names: &[&str]) -> String {
    if names.is_empty() {
        "-".to_owned()
    } else {
        names.join(", ")
    }
}
