//! The table generator: LLVM's TableGen records (`src/isa/data/*.jsonl.gz`) in, the Rust source
//! of `src/isa/tables.rs` out.
//!
//! It keeps, per encoding record, what decoding and printing need and nothing else: the fixed
//! bits as a mask/value pair, where each operand's bits lie, the operand classes and names, the
//! assembler template, flags, predicates and implicit registers. Operand lists and field
//! layouts repeat across thousands of records, so they are emitted once and shared.
//!
//! Run `cargo run --bin gen-isa-tables` after changing the generator or its inputs; the test
//! below regenerates in memory and fails if the committed file differs.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde::Deserialize;

/// One line of `llvm-<version>.jsonl.gz`, the keys the generator reads.
#[derive(Deserialize)]
struct Record {
    name: String,
    asm: String,
    bits: u32,
    ns: String,
    variant: String,
    preds: Vec<String>,
    pattern: String,
    /// Operand name -> `[inst_lo, inst_hi, field_lo]` runs; TableGen also lists derived
    /// expressions here (with `field_lo` -1), which name no operand and are skipped.
    fields: BTreeMap<String, Vec<[i64; 3]>>,
    outs: Vec<(String, String)>,
    ins: Vec<(String, String)>,
    constraints: String,
    disable_encoding: String,
    uses: Vec<String>,
    defs: Vec<String>,
    flags: Vec<String>,
}

/// One line of `llvm-<version>.operands.jsonl.gz`.
#[derive(Deserialize)]
struct OperandClassRecord {
    class: String,
    #[serde(rename = "RegClass", default)]
    reg_class: Option<String>,
    #[serde(rename = "OperandType", default)]
    operand_type: Option<String>,
    #[serde(rename = "PrintMethod", default)]
    print_method: Option<String>,
    #[serde(rename = "DecoderMethod", default)]
    decoder_method: Option<String>,
}

/// Which LLVM version each record comes from, and which of its records are taken.
struct Source {
    version: u8,
    file: &'static str,
    operands: &'static str,
    /// Takes a record of this source?
    keep: fn(&Record) -> bool,
}

/// GCN3 (GFX8) and later: LLVM disassembles nothing older, and neither does gfxpatch.
fn is_pre_gfx8_only(r: &Record) -> bool {
    let only_old = |p: &str| {
        matches!(
            p,
            "isGFX6" | "isGFX6GFX7" | "isGFX7Only" | "isGFX6GFX7GFX8GFX9_NotGFX8" | "isSI" | "isCI"
        )
    };
    matches!(r.ns.as_str(), "GFX6GFX7" | "GFX7" | "GFX6") || r.preds.iter().any(|p| only_old(p))
}

/// LLVM 22 supplies GFX950 and GFX1250, which LLVM 19 does not know: every record of the
/// decoder namespaces those targets use (so they decode with LLVM 22's tables alone), and the
/// image-size siblings that name them. Everything else is decoded with LLVM 19's records.
fn is_gfx950_or_gfx1250(r: &Record) -> bool {
    const NAMESPACES: [&str; 13] = [
        "AMDGPU",
        "GFX8",
        "GFX80_UNPACKED",
        "GFX9",
        "GFX9_DL",
        "GFX90A",
        "GFX940",
        "GFX950",
        "GFX12",
        "GFX12_FAKE16",
        "GFX12W64",
        "GFX1250",
        "GFX1250_FAKE16",
    ];
    let named = |s: &str| {
        s.contains("gfx950")
            || s.contains("gfx1250")
            || s.contains("GFX950")
            || s.contains("GFX1250")
    };
    NAMESPACES.contains(&r.ns.as_str())
        || named(&r.name)
        || r.preds
            .iter()
            .any(|p| named(p) || p == "isGFX1250Plus" || p == "isGFX950Plus")
}

const SOURCES: [Source; 2] = [
    Source {
        version: 19,
        file: "llvm-19.1.7.jsonl.gz",
        operands: "llvm-19.1.7.operands.jsonl.gz",
        keep: |r| !is_pre_gfx8_only(r),
    },
    Source {
        version: 22,
        file: "llvm-22.1.8.jsonl.gz",
        operands: "llvm-22.1.8.operands.jsonl.gz",
        keep: |r| !is_pre_gfx8_only(r) && is_gfx950_or_gfx1250(r),
    },
];

fn read_jsonl<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let reader = BufReader::new(flate2::read::GzDecoder::new(file));
    reader
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
            serde_json::from_str(&line).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

/// Strips the generation suffix from an LLVM record name: `V_LSHL_OR_B32_e64_gfx11` ->
/// `V_LSHL_OR_B32_e64`, the cross-generation identity of the instruction.
pub fn opcode_name(record: &str) -> &str {
    let mut end = record.len();
    // Peel `_<gen>` groups from the right: `_gfx6_gfx7`, `_gfx90a`, `_vi`...
    loop {
        let head = &record[..end];
        let Some(us) = head.rfind('_') else { break };
        let tail = &head[us + 1..];
        let is_generation = matches!(tail, "vi" | "si" | "ci")
            || (tail.starts_with("gfx")
                && tail.len() > 3
                && tail[3..].chars().next().is_some_and(|c| c.is_ascii_digit()));
        if !is_generation || us == 0 {
            break;
        }
        end = us;
    }
    &record[..end]
}

/// Parses a pattern (MSB first; `0`, `1` fixed, `v` operand, `.` unset) into mask and value.
fn mask_value(pattern: &str) -> (u128, u128) {
    let (mut mask, mut value) = (0u128, 0u128);
    for (i, c) in pattern.bytes().rev().enumerate() {
        match c {
            b'0' => mask |= 1 << i,
            b'1' => {
                mask |= 1 << i;
                value |= 1 << i;
            }
            _ => {}
        }
    }
    (mask, value)
}

/// A Rust identifier from an arbitrary LLVM name (`GFX11_FAKE16`, `isGFX9Plus`, `SReg_32`).
fn ident(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// Emits `pub enum NAME { A, B, ... }` with a `name()` giving back the LLVM spelling.
fn emit_enum(out: &mut String, doc: &str, name: &str, repr: &str, values: &BTreeSet<String>) {
    let _ = writeln!(out, "/// {doc}");
    let _ = writeln!(
        out,
        "#[allow(non_camel_case_types, clippy::upper_case_acronyms)]"
    );
    // `Debug` is written by hand below, from the name table: a derived one is a match over every
    // variant (15,454 for `Opcode`) that rustc deems small enough to inline across crates, so
    // each test binary that formats an error holding an opcode compiled it again as a 3.7 MB
    // switch table (about 30 CPU-s per binary at opt-level 1).
    let _ = writeln!(
        out,
        "#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]"
    );
    let _ = writeln!(out, "#[repr({repr})]");
    let _ = writeln!(out, "pub enum {name} {{");
    for v in values {
        let _ = writeln!(out, "    {},", ident(v));
    }
    let _ = writeln!(out, "}}\n");
    let upper = name.to_uppercase();
    let _ = writeln!(out, "static {upper}_NAMES: [&str; {}] = [", values.len());
    for v in values {
        let _ = writeln!(out, "    {v:?},");
    }
    let _ = writeln!(out, "];\n");
    let _ = writeln!(out, "impl {name} {{");
    let _ = writeln!(out, "    pub const COUNT: usize = {};", values.len());
    if values.len() <= 1024 {
        let all: Vec<String> = values
            .iter()
            .map(|v| format!("{name}::{}", ident(v)))
            .collect();
        let _ = writeln!(
            out,
            "    pub const ALL: [{name}; {}] = [{}];",
            values.len(),
            all.join(", ")
        );
    }
    let _ = writeln!(out, "    /// The name LLVM uses.");
    let _ = writeln!(
        out,
        "    pub fn name(self) -> &'static str {{\n        {upper}_NAMES[self as usize]\n    }}\n}}\n"
    );
    let _ = writeln!(
        out,
        "impl core::fmt::Debug for {name} {{\n    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {{\n        f.write_str(self.name())\n    }}\n}}\n"
    );
}

/// Generates the source of `src/isa/tables.rs` from the data files in `data_dir`.
pub fn generate(data_dir: &Path) -> Result<String, String> {
    let mut records: Vec<(u8, Record)> = Vec::new();
    let mut classes: BTreeMap<String, OperandClassRecord> = BTreeMap::new();
    // LLVM 22's register class of each operand class it defines (`VReg_64_AlignTarget` where
    // LLVM 19 says `VReg_64`): the class the printer checks LLVM 22's operands against.
    let mut reg_classes_22: BTreeMap<String, Option<String>> = BTreeMap::new();
    for source in &SOURCES {
        for r in read_jsonl::<Record>(&data_dir.join(source.file))? {
            if (source.keep)(&r) {
                records.push((source.version, r));
            }
        }
        for c in read_jsonl::<OperandClassRecord>(&data_dir.join(source.operands))? {
            if source.version == 22 {
                reg_classes_22.insert(c.class.clone(), c.reg_class.clone());
            }
            classes.entry(c.class.clone()).or_insert(c);
        }
    }
    // Stable order: by LLVM version, then record name.
    records.sort_by(|a, b| (a.0, &a.1.name).cmp(&(b.0, &b.1.name)));

    let mut opcodes = BTreeSet::new();
    let mut namespaces = BTreeSet::new();
    let mut operand_names = BTreeSet::new();
    let mut operand_classes = BTreeSet::new();
    let mut preds = BTreeSet::new();
    let mut flags = BTreeSet::new();
    let mut regs = BTreeSet::new();
    let mut variants = BTreeSet::new();
    for (_, r) in &records {
        opcodes.insert(opcode_name(&r.name).to_owned());
        namespaces.insert(if r.ns.is_empty() {
            "None".to_owned()
        } else {
            r.ns.clone()
        });
        variants.insert(r.variant.clone());
        for (class, name) in r.outs.iter().chain(&r.ins) {
            operand_names.insert(name.clone());
            operand_classes.insert(class.clone());
        }
        preds.extend(r.preds.iter().cloned());
        flags.extend(r.flags.iter().cloned());
        regs.extend(r.uses.iter().chain(&r.defs).cloned());
    }
    if flags.len() > 64 || regs.len() > 16 {
        return Err(format!(
            "{} flags / {} implicit registers no longer fit the bit sets",
            flags.len(),
            regs.len()
        ));
    }
    let flag_bit: BTreeMap<&str, usize> = flags
        .iter()
        .enumerate()
        .map(|(i, f)| (f.as_str(), i))
        .collect();
    let reg_bit: BTreeMap<&str, usize> = regs
        .iter()
        .enumerate()
        .map(|(i, r)| (r.as_str(), i))
        .collect();

    let mut out = String::new();
    let _ = writeln!(
        out,
        "// @generated by src/isa/tablegen (`cargo run --bin gen-isa-tables`) from src/isa/data/{} and {}.",
        SOURCES[0].file, SOURCES[1].file
    );
    let _ = writeln!(
        out,
        "// Do not edit: change the generator or its inputs and regenerate.\n"
    );
    let _ = writeln!(out, "use super::table::*;\n");
    emit_enum(
        &mut out,
        "Cross-generation instruction identity: an LLVM record name without its generation suffix.",
        "Opcode",
        "u16",
        &opcodes,
    );
    emit_enum(
        &mut out,
        "LLVM decoder namespace of an encoding (`None`: decoded by special tables: DPP, SDWA, ...).",
        "Namespace",
        "u8",
        &namespaces,
    );
    emit_enum(
        &mut out,
        "LLVM assembler variant of an encoding.",
        "Variant",
        "u8",
        &variants,
    );
    emit_enum(
        &mut out,
        "Operand name as LLVM's records spell it (`vdst`, `src0`, `offset`, ...).",
        "OperandName",
        "u8",
        &operand_names,
    );
    emit_enum(
        &mut out,
        "Operand class as LLVM's records spell it (`VGPR_32`, `VSrc_b32`, `CPol`, ...).",
        "OperandClass",
        "u16",
        &operand_classes,
    );
    emit_enum(
        &mut out,
        "Predicate an encoding is valid under (`isGFX9Plus`, `HasDPP`, ...).",
        "Pred",
        "u8",
        &preds,
    );

    let _ = writeln!(
        out,
        "/// Instruction flag bits (TSFlags and MCInstrDesc), one bit each in [`Flags`]."
    );
    let _ = writeln!(out, "pub mod flag {{");
    for (f, bit) in &flag_bit {
        let _ = writeln!(
            out,
            "    pub const {}: u64 = 1 << {bit};",
            ident(f).to_uppercase()
        );
    }
    let _ = writeln!(
        out,
        "    pub const NAMES: [&str; {}] = [{}];",
        flags.len(),
        flags
            .iter()
            .map(|f| format!("{f:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(out, "}}\n");
    let _ = writeln!(
        out,
        "/// Implicit registers, one bit each in [`ImplicitRegs`]."
    );
    let _ = writeln!(out, "pub mod implicit {{");
    for (r, bit) in &reg_bit {
        let _ = writeln!(
            out,
            "    pub const {}: u16 = 1 << {bit};",
            ident(r).to_uppercase()
        );
    }
    let _ = writeln!(
        out,
        "    pub const NAMES: [&str; {}] = [{}];",
        regs.len(),
        regs.iter()
            .map(|r| format!("{r:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(out, "}}\n");

    // Operand classes: what LLVM says of each.
    let _ = writeln!(
        out,
        "/// What LLVM's operand class records say: register class, operand type, print method."
    );
    let _ = writeln!(
        out,
        "pub static OPERAND_CLASS_INFO: [OperandClassInfo; {}] = [",
        operand_classes.len()
    );
    for c in &operand_classes {
        let info = classes.get(c);
        let s = |v: Option<&Option<String>>| match v.and_then(|v| v.as_deref()) {
            Some(v) => format!("{v:?}"),
            None => "\"\"".to_owned(),
        };
        let print = info.and_then(|i| i.print_method.as_deref()).map(|p| {
            // Lambdas `printNamedBit(MI, OpNo, O, "clamp")` reduce to `printNamedBit:clamp`.
            match p.split_once("printNamedBit(MI, OpNo, O, \"") {
                Some((_, rest)) => {
                    format!("printNamedBit:{}", rest.split('"').next().unwrap_or(""))
                }
                None => p.to_owned(),
            }
        });
        let _ = writeln!(
            out,
            "    OperandClassInfo {{ reg_class: {}, operand_type: {}, print_method: {:?}, decoder_method: {} }},",
            s(info.map(|i| &i.reg_class)),
            s(info.map(|i| &i.operand_type)),
            print.unwrap_or_default(),
            s(info.map(|i| &i.decoder_method)),
        );
    }
    let _ = writeln!(out, "];\n");
    let _ = writeln!(
        out,
        "/// LLVM 22's register class of each operand class (LLVM 19's where LLVM 22 has none)."
    );
    let _ = writeln!(
        out,
        "pub static OPERAND_CLASS_REG_CLASS_22: [&str; {}] = [",
        operand_classes.len()
    );
    for c in &operand_classes {
        let rc = match reg_classes_22.get(c) {
            Some(rc) => rc.clone(),
            None => classes.get(c).and_then(|i| i.reg_class.clone()),
        };
        let _ = writeln!(out, "    {:?},", rc.unwrap_or_default());
    }
    let _ = writeln!(out, "];\n");

    // Operand signatures (direction, class, name, tie) and field layouts (where each operand's
    // bits are) repeat across thousands of records: each is emitted once and shared.
    let mut signatures: BTreeMap<String, usize> = BTreeMap::new();
    let mut layouts: BTreeMap<String, usize> = BTreeMap::new();
    let mut asms: BTreeMap<&str, usize> = BTreeMap::new();
    let mut list_defs = String::new();
    let mut rows = String::new();
    let intern = |map: &mut BTreeMap<String, usize>,
                  prefix: &str,
                  ty: &str,
                  len: usize,
                  body: String,
                  defs: &mut String|
     -> usize {
        let next = map.len();
        *map.entry(body.clone()).or_insert_with(|| {
            let _ = writeln!(defs, "static {prefix}{next}: [{ty}; {len}] = [{body}];");
            next
        })
    };
    for (version, r) in &records {
        let tied: BTreeMap<String, String> = r
            .constraints
            .split(',')
            .filter_map(|c| {
                c.trim()
                    .trim_start_matches("@earlyclobber ")
                    .split_once('=')
            })
            .map(|(a, b)| {
                (
                    a.trim().trim_start_matches('$').to_owned(),
                    b.trim().trim_start_matches('$').to_owned(),
                )
            })
            .flat_map(|(a, b)| [(a.clone(), b.clone()), (b, a)])
            .collect();
        let disabled: BTreeSet<&str> = r
            .disable_encoding
            .split(',')
            .map(|s| s.trim().trim_start_matches('$'))
            .collect();
        let mut slots = Vec::new();
        let mut runs = Vec::new();
        for (dir, (class, name)) in r
            .outs
            .iter()
            .map(|o| ("W", o))
            .chain(r.ins.iter().map(|i| ("R", i)))
        {
            let bits = r.fields.get(name).map_or_else(String::new, |f| {
                f.iter()
                    .filter(|[_, _, flo]| *flo >= 0)
                    .map(|[lo, hi, flo]| format!("({lo},{hi},{flo})"))
                    .collect::<Vec<_>>()
                    .join(",")
            });
            runs.push(format!("&[{bits}]"));
            let tie = match tied.get(name) {
                Some(other) if disabled.contains(name.as_str()) => {
                    format!("Some(N::{})", ident(other))
                }
                _ => "None".to_owned(),
            };
            slots.push(format!(
                "op({dir}, C::{}, N::{}, {tie})",
                ident(class),
                ident(name)
            ));
        }
        let sig = intern(
            &mut signatures,
            "SIG_",
            "Operand",
            slots.len(),
            slots.join(", "),
            &mut list_defs,
        );
        let lay = intern(
            &mut layouts,
            "LAY_",
            "Bits",
            runs.len(),
            runs.join(", "),
            &mut list_defs,
        );
        let next = asms.len();
        let asm = *asms.entry(r.asm.as_str()).or_insert(next);
        let (mask, value) = mask_value(&r.pattern);
        let fl: u64 = r.flags.iter().map(|f| 1u64 << flag_bit[f.as_str()]).sum();
        let reg =
            |names: &[String]| -> u16 { names.iter().map(|n| 1u16 << reg_bit[n.as_str()]).sum() };
        let preds = r
            .preds
            .iter()
            .map(|p| format!("P::{}", ident(p)))
            .collect::<Vec<_>>()
            .join(", ");
        let opcode = opcode_name(&r.name);
        let _ = writeln!(
            rows,
            "    e(O::{}, {:?}, {version}, Ns::{}, V::{}, {}, {mask:#x}, {value:#x}, ASM_{asm}, &SIG_{sig}, &LAY_{lay}, {fl:#x}, &[{preds}], {:#x}, {:#x}),",
            ident(opcode),
            &r.name[opcode.len()..],
            ident(if r.ns.is_empty() { "None" } else { &r.ns }),
            ident(&r.variant),
            r.bits,
            reg(&r.uses),
            reg(&r.defs),
        );
    }
    let mut asm_defs: Vec<(&usize, &&str)> = asms.iter().map(|(a, i)| (i, a)).collect();
    asm_defs.sort();
    for (i, a) in asm_defs {
        let _ = writeln!(out, "const ASM_{i}: &str = {a:?};");
    }
    let _ = writeln!(
        out,
        "use Dir::{{In as R, Out as W}};\nuse Opcode as O;\nuse Namespace as Ns;\nuse OperandClass as C;\nuse OperandName as N;\nuse Pred as P;\nuse Variant as V;"
    );
    let _ = writeln!(out, "type Bits = &'static [(u8, u8, u8)];");
    out.push_str(&list_defs);
    let _ = writeln!(
        out,
        "\n/// Every encoding record, sorted by LLVM version then record name."
    );
    let _ = writeln!(
        out,
        "pub static ENCODINGS: [Encoding; {}] = [",
        records.len()
    );
    out.push_str(&rows);
    let _ = writeln!(out, "];");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcode_names_drop_generation_suffixes() {
        assert_eq!(opcode_name("V_LSHL_OR_B32_e64_gfx11"), "V_LSHL_OR_B32_e64");
        assert_eq!(opcode_name("V_LSHL_OR_B32_e64_vi"), "V_LSHL_OR_B32_e64");
        assert_eq!(
            opcode_name("BUFFER_ATOMIC_ADD_ADDR64_RTN_gfx6_gfx7"),
            "BUFFER_ATOMIC_ADD_ADDR64_RTN"
        );
        assert_eq!(
            opcode_name("V_MFMA_F32_32X32X1F32_gfx90a"),
            "V_MFMA_F32_32X32X1F32"
        );
        assert_eq!(opcode_name("S_NOP"), "S_NOP");
    }

    #[test]
    fn patterns_become_mask_and_value() {
        assert_eq!(mask_value("10v."), (0b1100, 0b1000));
    }

    /// The committed tables are what the generator makes of the committed inputs.
    #[test]
    fn tables_are_up_to_date() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let generated = generate(&root.join("src/isa/data")).unwrap();
        let committed = std::fs::read_to_string(root.join("src/isa/tables.rs")).unwrap();
        assert!(
            generated == committed,
            "src/isa/tables.rs is stale: run `cargo run --bin gen-isa-tables` and commit the result"
        );
    }
}
