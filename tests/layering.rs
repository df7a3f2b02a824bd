//! The layers stay layers: reads every path in `src/` that names another top-level module
//! (`crate::x`, `use crate::{x, y}`, `super::super::x` climbing out of a module) and fails on an
//! edge the architecture forbids. Data flows `container -> isa::decode -> ir -> pass -> layout
//! -> isa::encode -> container` (docs/architecture.md); the codec is a leaf, passes edit and
//! layout places, and the engine does not reach up into the command line.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

mod common;

/// (from, to): `from` must not name `to`.
const FORBIDDEN: &[(&str, &str)] = &[
    ("pass", "layout"),
    ("isa", "container"),
    ("isa", "ir"),
    ("isa", "pass"),
    ("isa", "layout"),
    ("isa", "rewrite"),
    ("isa", "cli"),
    ("isa", "llvm"),
    ("rewrite", "cli"),
];

/// The module path of a source file: `src/isa/encode/build.rs` is `[isa, encode, build]`,
/// `src/isa/encode/mod.rs` is `[isa, encode]`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Source without comments (doc links are not dependencies) and without string literals' text.
fn code_of(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    for line in source.lines() {
        let mut in_string = false;
        let mut prev = ' ';
        let mut kept = String::new();
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if !in_string && c == '/' && chars.get(i + 1) == Some(&'/') {
                break;
            }
            if c == '"' && prev != '\\' {
                in_string = !in_string;
            }
            if !in_string {
                kept.push(c);
            }
            prev = c;
            i += 1;
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

/// The top-level modules `source` (of the module at `path`) names, with the line of each.
fn edges(path: &[String], source: &str) -> Vec<(String, usize)> {
    let code = code_of(source);
    let line_starts: Vec<usize> = code.match_indices('\n').map(|(i, _)| i).collect();
    let line_of = |offset: usize| line_starts.partition_point(|&start| start < offset) + 1;
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        // Skip identifiers that merely end in `crate`.
        if code[..at].chars().last().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let after = &code[at + "crate::".len()..];
        match after.strip_prefix('{') {
            // A group, possibly over several lines: `use crate::{a::b, c::{d, e}};`.
            Some(group) => out.extend(top_level_items(group).into_iter().map(|item| (item, line_of(at)))),
            None => out.push((ident(after), line_of(at))),
        }
    }
    // `super::super::x` from deep enough reaches another top-level module.
    let mut from = 0;
    while let Some(found) = code[from..].find("super::") {
        let at = from + found;
        let mut tail = &code[at..];
        let mut ups = 0;
        while let Some(t) = tail.strip_prefix("super::") {
            ups += 1;
            tail = t;
        }
        from = code.len() - tail.len();
        if code[..at].chars().last().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        if ups >= path.len() {
            out.push((ident(tail), line_of(at)));
        }
    }
    out
}

fn ident(s: &str) -> String {
    s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// First path segments of the items of a `{a::b, c, d::{e, f}}` group (text after the `{`).
fn top_level_items(group: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut depth = 0;
    let mut start = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => start = true,
            c if start && (c.is_alphanumeric() || c == '_') => {
                items.push(ident(&group[i..]));
                start = false;
            }
            _ => {}
        }
    }
    items
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every forbidden edge in `src/`, as `file:line: from -> to`.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let path = module_path(src, &file);
        // The crate root, the binary and `src/bin` sit above every layer.
        let Some(from) = path.first().filter(|_| path.len() > 1 || file.parent() != Some(src)) else { continue };
        if from == "bin" {
            continue;
        }
        let source = std::fs::read_to_string(&file).unwrap();
        for (to, line) in edges(&path, &source) {
            if FORBIDDEN.contains(&(from.as_str(), to.as_str())) {
                out.push(format!("{}:{line}: {from} -> {to}", file.strip_prefix(src.parent().unwrap()).unwrap().display()));
            }
        }
    }
    out
}

#[test]
fn no_forbidden_edges_between_layers() {
    let found = violations(&common::repo().join("src"));
    assert!(found.is_empty(), "forbidden dependencies between layers:\n{}", found.join("\n"));
}

/// The reader sees each spelling of an edge, so the test above could fail.
#[test]
fn the_reader_finds_every_spelling_of_an_edge() {
    let isa_build: Vec<String> = ["isa", "encode", "build"].map(String::from).to_vec();
    let found = |source: &str| -> BTreeSet<String> { edges(&isa_build, source).into_iter().map(|e| e.0).collect() };
    let set = |names: &[&str]| -> BTreeSet<String> { names.iter().map(|s| s.to_string()).collect() };
    assert_eq!(found("use crate::container::elf::CodeObject;"), set(&["container"]));
    assert_eq!(found("use crate::{ir::Program, isa::{Inst, Target}, layout};"), set(&["ir", "isa", "layout"]));
    assert_eq!(found("use crate::{\n    isa::Inst,\n    rewrite::Options,\n};"), set(&["isa", "rewrite"]));
    assert_eq!(found("fn f(x: &crate::pass::Ctx<'_>) {}"), set(&["pass"]));
    assert_eq!(found("use super::super::super::cli::info;"), set(&["cli"]));
    // Within the module tree, and in comments or strings, nothing is an edge.
    assert_eq!(found("use super::super::table::Opcode;"), set(&[]));
    assert_eq!(found("/// see [`crate::container::CodeObject`]\n// crate::ir\nlet s = \"crate::cli\";"), set(&[]));
}

/// The check on a tree with one injected edge of each forbidden kind reports each of them.
#[test]
fn an_injected_edge_is_reported() {
    let dir = std::env::temp_dir().join(format!("gfxpatch-layering-{}", std::process::id()));
    let src = dir.join("src");
    for (from, to) in FORBIDDEN {
        std::fs::create_dir_all(src.join(from)).unwrap();
        let file = src.join(from).join(format!("uses_{to}.rs"));
        std::fs::write(&file, format!("use crate::{to}::Something;\n")).unwrap();
    }
    std::fs::write(src.join("lib.rs"), "pub mod cli;\nuse crate::cli::x;\n").unwrap();
    let found = violations(&src);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(found.len(), FORBIDDEN.len(), "{found:#?}");
    assert!(found.contains(&"src/isa/uses_container.rs:1: isa -> container".to_owned()), "{found:#?}");
}
