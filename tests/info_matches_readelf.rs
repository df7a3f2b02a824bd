//! Differential test: on every fixture code object, `gfxpatch info --json` agrees with
//! `llvm-readobj-19 --elf-output-style=JSON -s --notes` on kernel names, symbol values and
//! sizes, and the register counts of the metadata note.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

/// What LLVM says of one kernel.
#[derive(Debug, Default, PartialEq)]
struct LlvmKernel {
    descriptor_value: Option<u64>,
    entry_value: Option<u64>,
    entry_size: Option<u64>,
    vgpr_count: Option<u64>,
    sgpr_count: Option<u64>,
    agpr_count: Option<u64>,
}

fn llvm_view(file: &Path) -> BTreeMap<String, LlvmKernel> {
    let json = common::llvm_tool(
        "llvm-readobj-19",
        &[
            "--elf-output-style=JSON",
            "-s",
            "--notes",
            file.to_str().unwrap(),
        ],
    );
    let doc: Value = serde_json::from_str(&json).expect("llvm-readobj JSON");
    let doc = &doc[0];
    let mut kernels: BTreeMap<String, LlvmKernel> = BTreeMap::new();
    let symbols = doc["Symbols"].as_array().expect("Symbols");
    let symbol = |s: &Value| {
        let s = &s["Symbol"];
        (
            s["Name"]["Name"].as_str().unwrap().to_owned(),
            s["Type"]["Name"].as_str().unwrap().to_owned(),
            s["Value"].as_u64().unwrap(),
            s["Size"].as_u64().unwrap(),
        )
    };
    let all: Vec<_> = symbols.iter().map(symbol).collect();
    for (name, ty, value, _) in &all {
        if let Some(kernel) = name.strip_suffix(".kd")
            && ty == "Object"
        {
            kernels
                .entry(kernel.to_owned())
                .or_default()
                .descriptor_value = Some(*value);
        }
    }
    for (name, ty, value, size) in &all {
        if ty == "Function"
            && let Some(k) = kernels.get_mut(name)
        {
            k.entry_value = Some(*value);
            k.entry_size = Some(*size);
        }
    }
    // The metadata note, which llvm-readobj prints as YAML: kernel entries start at "  - ",
    // kernel-level keys sit at four spaces of indentation.
    let yaml = doc["NoteSections"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["NoteSection"]["Notes"].as_array().into_iter().flatten())
        .find_map(|n| n["AMDGPU Metadata"].as_str())
        .unwrap_or_else(|| {
            // Hand-written objects may have no metadata note (as PAL/Mesa objects do not);
            // what a compiler wrote always has one.
            assert!(file.to_string_lossy().ends_with(".asm.co"), "{}: no AMDGPU metadata note", file.display());
            ""
        });
    let mut entries: Vec<BTreeMap<String, String>> = Vec::new();
    let mut in_kernels = false;
    for line in yaml.lines() {
        if !line.starts_with(' ') {
            in_kernels = line.starts_with("amdhsa.kernels:");
            continue;
        }
        if !in_kernels {
            continue;
        }
        let body = if let Some(rest) = line.strip_prefix("  - ") {
            entries.push(BTreeMap::new());
            rest
        } else if let Some(rest) = line
            .strip_prefix("    ")
            .filter(|r| !r.starts_with(' ') && !r.starts_with('-'))
        {
            rest
        } else {
            continue;
        };
        if let Some((key, value)) = body.split_once(':') {
            entries.last_mut().unwrap().insert(
                key.trim().to_owned(),
                value.trim().trim_matches('\'').to_owned(),
            );
        }
    }
    for entry in entries {
        let name = entry[".name"].clone();
        let k = kernels.entry(name).or_default();
        let count = |key: &str| entry.get(key).map(|v| v.parse::<u64>().expect("count"));
        k.vgpr_count = count(".vgpr_count");
        k.sgpr_count = count(".sgpr_count");
        k.agpr_count = count(".agpr_count");
    }
    kernels
}

fn gfxpatch_view(file: &Path) -> BTreeMap<String, LlvmKernel> {
    let json = common::info_json(file);
    assert_eq!(json["kind"], "elf");
    let objects = json["code_objects"].as_array().unwrap();
    assert_eq!(objects.len(), 1, "a plain code object is a list of one");
    objects[0]["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            let code_size = k["code_size"].as_u64().unwrap();
            let kernel = LlvmKernel {
                descriptor_value: k["descriptor_address"].as_u64(),
                entry_value: Some(k["entry_address"].as_u64().unwrap()),
                entry_size: Some(code_size),
                vgpr_count: k["vgpr_count"].as_u64(),
                sgpr_count: k["sgpr_count"].as_u64(),
                agpr_count: k["agpr_count"].as_u64(),
            };
            (k["name"].as_str().unwrap().to_owned(), kernel)
        })
        .collect()
}

#[test]
fn info_agrees_with_llvm_readobj_on_every_fixture() {
    let mut kernels_checked = 0;
    for file in common::code_object_fixtures() {
        let ours = gfxpatch_view(&file);
        let llvm = llvm_view(&file);
        assert!(!llvm.is_empty(), "{}: LLVM sees no kernels", file.display());
        assert_eq!(
            ours,
            llvm,
            "{}: gfxpatch info and llvm-readobj disagree",
            file.display()
        );
        kernels_checked += ours.len();
    }
    assert!(
        kernels_checked > 100,
        "only {kernels_checked} kernels checked: are the fixtures there?"
    );
}

#[test]
fn descriptors_agree_with_metadata_on_every_fixture() {
    // LLVM writes both from one register count; any disagreement is a decoding bug of ours.
    for file in common::code_object_fixtures() {
        let json = common::info_json(&file);
        for k in json["code_objects"][0]["kernels"].as_array().unwrap() {
            assert_eq!(
                k["disagreements"],
                Value::Array(vec![]),
                "{}: kernel {}",
                file.display(),
                k["name"]
            );
        }
    }
}
