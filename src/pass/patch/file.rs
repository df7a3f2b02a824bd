//! Patch files (`*.gpatch`): parsing and the pattern lines hunks are made of. docs/patches.md
//! has the grammar; in short:
//!
//! ```text
//! # Brighter: scale the pixel shader's clamp constant.
//! target gfx900 gfx1030          # processors, generations (gfx10.3), or `gfx9+`
//! function _amdgpu_ps_main       # name or glob (`*`, `?`); the hunks below apply there
//! hunk clamp expect 1            # name and match count are optional (count 1)
//!     = s_waitcnt vmcnt(0)       # context: must match, stays
//!     - v_max_f32_e32 %d, 0x3e000000, %a
//!     + v_max_f32_e32 %d, 0x3e800000, %a
//! ```
//!
//! A pattern line is an instruction in LLVM assembler syntax, as `gfxpatch disasm` and
//! `llvm-objdump-19 -d` print it; any operand (or the value of a `name:value` modifier) may be
//! a metavariable `%name` of the peephole rule language (`passes/README.md`): it matches one
//! operand, and the same name matches the same text everywhere in the hunk. The lexical rules
//! (words, integers, metavariable names) are the peephole's (`peephole::syntax`).

use std::collections::BTreeSet;
use std::fmt;

use crate::isa::processor::Processor;
use crate::isa::Target;
use crate::pass::peephole::rules::{base_mnemonic, spec_generation};
use crate::pass::peephole::syntax::{is_metavariable_name, parse_int, split_word, GenSpec, Pos};

/// A syntax error in a patch file: file, line and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub file: String,
    pub line: u32,
    pub message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for SyntaxError {}

/// One parsed patch file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatchFile {
    /// The name errors use (the path it was read from).
    pub file: String,
    pub targets: Vec<GenSpec>,
    pub hunks: Vec<Hunk>,
    /// Taken back out (`patch -R`): its hunks are the written ones reversed, and the VGPR
    /// counts only what it takes out needed may be lowered (docs/patches.md).
    pub reversed: bool,
}

/// What a hunk line does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `=`: must match, stays as it is.
    Context,
    /// `-`: must match, is taken out.
    Find,
    /// `+`: put in.
    Replace,
}

/// One line of a hunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HunkLine {
    pub op: Op,
    /// `name:` before a `=` line's instruction: a branch of the hunk (`s_cbranch_execz name`)
    /// goes there.
    pub label: Option<String>,
    pub pattern: Pattern,
    /// Line number in the file.
    pub line: u32,
}

/// One hunk: a run of consecutive instructions to find and what they become.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    /// 1-based, in file order: the number errors name.
    pub number: usize,
    pub name: Option<String>,
    /// Function names or globs the hunk applies in (`*` when the file names none).
    pub functions: Vec<String>,
    /// How many times the hunk must match (over all the functions it applies in).
    pub expect: usize,
    pub lines: Vec<HunkLine>,
    pub line: u32,
}

impl Hunk {
    /// `hunk 2` or `hunk 2 (clamp)`.
    pub fn label(&self) -> String {
        match &self.name {
            Some(n) => format!("hunk {} ({n})", self.number),
            None => format!("hunk {}", self.number),
        }
    }

    /// The lines that must match, in order (context and find lines).
    pub fn matched(&self) -> impl Iterator<Item = &HunkLine> {
        self.lines.iter().filter(|l| l.op != Op::Replace)
    }

    /// The same hunk the other way round: what it put in is found, what it took out put back.
    pub fn reversed(&self) -> Hunk {
        let mut out = self.clone();
        for l in &mut out.lines {
            l.op = match l.op {
                Op::Find => Op::Replace,
                Op::Replace => Op::Find,
                Op::Context => Op::Context,
            };
        }
        // Within each changed run, what is found comes first (the order does not matter to the
        // match, but a reversed hunk should read like a written one).
        let mut i = 0;
        while i < out.lines.len() {
            let j = out.lines[i..].iter().position(|l| l.op == Op::Context).map_or(out.lines.len(), |k| i + k);
            out.lines[i..j].sort_by_key(|l| l.op == Op::Replace);
            i = j + 1;
        }
        out
    }

    /// Variables the replacement uses that no matched line binds (a hunk with one cannot be
    /// applied in this direction).
    pub fn unbound(&self) -> Option<(&str, u32)> {
        let bound: BTreeSet<&str> = self.matched().flat_map(|l| l.pattern.vars()).collect();
        self.lines.iter().filter(|l| l.op == Op::Replace).find_map(|l| l.pattern.vars().find(|v| !bound.contains(v)).map(|v| (v, l.line)))
    }
}

impl PatchFile {
    /// Whether the patch is for `target`: one of its `target` entries names the processor, its
    /// generation, or (with `+`) an earlier generation.
    pub fn applies_to(&self, target: &Target) -> bool {
        self.targets.iter().any(|spec| target_matches(spec, target.processor))
    }

    /// The targets as written (`gfx900 gfx10.3+`), for messages.
    pub fn targets_text(&self) -> String {
        self.targets.iter().map(|s| if s.and_later { format!("{}+", s.name) } else { s.name.clone() }).collect::<Vec<_>>().join(" ")
    }

    /// The patch the other way round (every hunk reversed): it takes this one back out.
    pub fn reversed(&self) -> PatchFile {
        PatchFile { hunks: self.hunks.iter().map(Hunk::reversed).collect(), reversed: !self.reversed, ..self.clone() }
    }
}

fn target_matches(spec: &GenSpec, processor: &Processor) -> bool {
    if !spec.and_later && let Some(p) = Processor::by_name(&spec.name) {
        return std::ptr::eq(p, processor) || p.name == processor.name;
    }
    match spec_generation(spec) {
        Some(g) if spec.and_later => processor.generation >= g,
        Some(g) => processor.generation == g,
        None => false,
    }
}

/// One token of a pattern line's operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    /// Must be this text (integers compare by value: `16` matches `0x10`).
    Text(String),
    /// `%name`, or `prefix:%name` (`offset:%o`): binds the operand (the text after the prefix).
    Var { prefix: String, name: String },
    /// A branch's target written as a label of the hunk: the instruction its `=` line matches.
    Label(String),
}

/// An instruction line of a hunk: a mnemonic and its operand tokens (split at commas and
/// spaces, so `offset:16` and `vmcnt(0)` are tokens of their own).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub mnemonic: String,
    pub tokens: Vec<Token>,
    /// As written, for messages.
    pub text: String,
}

impl Pattern {
    pub fn vars(&self) -> impl Iterator<Item = &str> {
        self.tokens.iter().filter_map(|t| match t {
            Token::Var { name, .. } => Some(name.as_str()),
            Token::Text(_) | Token::Label(_) => None,
        })
    }

    /// Whether the pattern's mnemonic names `mnemonic` (an instruction's, as printed): equal,
    /// or the pattern leaves out the encoding suffix (`v_mul_f32` for `v_mul_f32_e32`/`_e64`),
    /// as peephole rules do.
    /// The label a branch line names as its target, if it is one.
    pub fn label(&self) -> Option<&str> {
        self.tokens.iter().find_map(|t| match t {
            Token::Label(l) => Some(l.as_str()),
            _ => None,
        })
    }

    pub fn mnemonic_matches(&self, mnemonic: &str) -> bool {
        self.mnemonic == mnemonic || (base_mnemonic(&self.mnemonic) == self.mnemonic && base_mnemonic(mnemonic) == self.mnemonic)
    }

    /// The line with each `%name` replaced by what it bound.
    pub fn substitute(&self, bound: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        let (head, mut rest) = split_word(&self.text);
        let mut out = head.to_owned();
        if rest.is_empty() {
            return Some(out);
        }
        out.push(' ');
        // Walk the written text so its punctuation is kept; replace each `%name`.
        while let Some(at) = rest.find('%') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let len = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
            out.push_str(&bound(&after[..len])?);
            rest = &after[len..];
        }
        out.push_str(rest);
        Some(out)
    }
}

/// Splits an instruction's text into its mnemonic and operand tokens.
pub fn tokens(text: &str) -> (&str, Vec<&str>) {
    let (mnemonic, rest) = split_word(text.trim());
    (mnemonic, rest.split(|c: char| c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()).collect())
}

/// Whether one written token matches one printed token.
pub fn token_equal(written: &str, printed: &str) -> bool {
    if written.eq_ignore_ascii_case(printed) {
        return true;
    }
    match (parse_int(written), parse_int(printed)) {
        (Some(a), Some(b)) => a == b || (a as u32 == b as u32 && (0..=u32::MAX as i64).contains(&b)),
        _ => false,
    }
}

fn pattern(text: &str, line: u32, file: &str) -> Result<Pattern, SyntaxError> {
    let err = |message: String| SyntaxError { file: file.to_owned(), line, message };
    let (mnemonic, written) = tokens(text);
    if mnemonic.is_empty() || !mnemonic.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
        return Err(err(format!("expected an instruction, found `{text}`")));
    }
    let mut toks = Vec::new();
    for t in written {
        match t.find('%') {
            None => toks.push(Token::Text(t.to_ascii_lowercase())),
            Some(at) => {
                let (prefix, name) = (&t[..at], &t[at + 1..]);
                if !is_metavariable_name(name) || !(prefix.is_empty() || prefix.ends_with(':')) {
                    return Err(err(format!("bad metavariable `{t}`: `%name` or `modifier:%name`, the name letters, digits and `_`")));
                }
                toks.push(Token::Var { prefix: prefix.to_owned(), name: name.to_owned() });
            }
        }
    }
    Ok(Pattern { mnemonic: mnemonic.to_ascii_lowercase(), tokens: toks, text: text.trim().to_owned() })
}

/// Parses a patch file; `file` names it in errors.
pub fn parse(file: &str, source: &str) -> Result<PatchFile, SyntaxError> {
    let err = |line: u32, message: String| SyntaxError { file: file.to_owned(), line, message };
    let mut out = PatchFile { file: file.to_owned(), targets: Vec::new(), hunks: Vec::new(), reversed: false };
    let mut functions: Vec<String> = vec!["*".to_owned()];
    for (n, raw) in source.lines().enumerate() {
        let line = (n + 1) as u32;
        // `#` starts a comment anywhere (it is no character of instruction text).
        let text = raw.split('#').next().unwrap_or("").trim();
        if text.is_empty() {
            continue;
        }
        let indented = raw.starts_with([' ', '\t']);
        if indented {
            let Some(hunk) = out.hunks.last_mut() else {
                return Err(err(line, "an instruction line outside a hunk (start one with `hunk`)".to_owned()));
            };
            let (op, rest) = match text.as_bytes()[0] {
                b'=' => (Op::Context, &text[1..]),
                b'-' => (Op::Find, &text[1..]),
                b'+' => (Op::Replace, &text[1..]),
                _ => return Err(err(line, format!("a hunk line starts with `=` (context), `-` (find) or `+` (replace), found `{text}`"))),
            };
            let (first, after) = split_word(rest.trim());
            let (label, rest) = match first.strip_suffix(':') {
                Some(name) if is_metavariable_name(name) => {
                    if op != Op::Context {
                        return Err(err(line, format!("label `{name}:` on a `{}` line: a branch target is an instruction that stays (`=`)", if op == Op::Find { '-' } else { '+' })));
                    }
                    if hunk.lines.iter().any(|l| l.label.as_deref() == Some(name)) {
                        return Err(err(line, format!("label `{name}` defined twice in {}", hunk.label())));
                    }
                    (Some(name.to_owned()), after)
                }
                _ => (None, rest),
            };
            hunk.lines.push(HunkLine { op, label, pattern: pattern(rest, line, file)?, line });
            continue;
        }
        let (keyword, rest) = split_word(text);
        match keyword {
            "target" => {
                if rest.is_empty() {
                    return Err(err(line, "`target` needs a processor or generation (`gfx900`, `gfx10.3`, `gfx11+`)".to_owned()));
                }
                for word in rest.split_whitespace() {
                    let (name, and_later) = match word.strip_suffix('+') {
                        Some(n) => (n, true),
                        None => (word, false),
                    };
                    let spec = GenSpec { name: name.to_ascii_lowercase(), and_later, pos: Pos { line, col: 1 } };
                    if Processor::by_name(&spec.name).is_none() && spec_generation(&spec).is_none() {
                        return Err(err(line, format!("unknown processor or generation `{word}`")));
                    }
                    out.targets.push(spec);
                }
            }
            "function" => {
                if rest.is_empty() {
                    return Err(err(line, "`function` needs a name or glob".to_owned()));
                }
                functions = rest.split_whitespace().map(str::to_owned).collect();
            }
            "hunk" => {
                let words: Vec<&str> = rest.split_whitespace().collect();
                let (name, count) = match words.as_slice() {
                    [] => (None, None),
                    ["expect", n] => (None, Some(*n)),
                    [name] => (Some(*name), None),
                    [name, "expect", n] => (Some(*name), Some(*n)),
                    _ => return Err(err(line, format!("expected `hunk [NAME] [expect N]`, found `{text}`"))),
                };
                let expect = match count {
                    None => 1,
                    Some(n) => n.parse::<usize>().ok().filter(|&n| n > 0).ok_or_else(|| err(line, format!("`expect` needs a count of 1 or more, found `{n}`")))?,
                };
                if let Some(previous) = out.hunks.last_mut() {
                    check_hunk(previous, file)?;
                }
                out.hunks.push(Hunk { number: out.hunks.len() + 1, name: name.map(str::to_owned), functions: functions.clone(), expect, lines: Vec::new(), line });
            }
            _ if matches!(text.as_bytes()[0], b'=' | b'-' | b'+') => {
                return Err(err(line, "hunk lines are indented".to_owned()));
            }
            _ => return Err(err(line, format!("expected `target`, `function` or `hunk`, found `{keyword}`"))),
        }
    }
    if out.targets.is_empty() {
        return Err(err(1, "the patch names no `target` (a patch applies to the targets it names)".to_owned()));
    }
    let Some(last) = out.hunks.last_mut() else { return Err(err(1, "the patch has no `hunk`".to_owned())) };
    check_hunk(last, file)?;
    Ok(out)
}

fn check_hunk(hunk: &mut Hunk, file: &str) -> Result<(), SyntaxError> {
    let err = |line: u32, message: String| SyntaxError { file: file.to_owned(), line, message };
    // A branch's one operand naming a label of the hunk is its target.
    let labels: BTreeSet<String> = hunk.lines.iter().filter_map(|l| l.label.clone()).collect();
    let name = hunk.label();
    for l in &mut hunk.lines {
        let is_branch = l.pattern.mnemonic == "s_branch" || l.pattern.mnemonic.starts_with("s_cbranch_");
        if let [Token::Text(t)] = l.pattern.tokens.as_mut_slice()
            && is_branch
        {
            if labels.contains(t.as_str()) {
                l.pattern.tokens[0] = Token::Label(t.clone());
            } else if parse_int(t).is_none() {
                return Err(err(l.line, format!("`{t}` is no label of {name} (write `{t}:` before the instruction of a `=` line the branch goes to)")));
            }
        }
    }
    if hunk.matched().next().is_none() {
        return Err(err(hunk.line, format!("{} has no `=` or `-` line: nothing says where it goes", hunk.label())));
    }
    if !hunk.lines.iter().any(|l| l.op != Op::Context) {
        return Err(err(hunk.line, format!("{} changes nothing (no `-` or `+` line)", hunk.label())));
    }
    if let Some((var, line)) = hunk.unbound() {
        return Err(err(line, format!("%{var} is not bound by a `=` or `-` line of {}", hunk.label())));
    }
    Ok(())
}

/// Whether `name` matches the glob `pattern` (`*` any run, `?` any one character).
pub fn glob(pattern: &str, name: &str) -> bool {
    fn go(p: &[u8], n: &[u8]) -> bool {
        match p.split_first() {
            None => n.is_empty(),
            Some((b'*', rest)) => (0..=n.len()).any(|i| go(rest, &n[i..])),
            Some((b'?', rest)) => !n.is_empty() && go(rest, &n[1..]),
            Some((c, rest)) => n.first() == Some(c) && go(rest, &n[1..]),
        }
    }
    go(pattern.as_bytes(), name.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAMP: &str = "\
# Brighter.
target gfx900 gfx10.3
function _amdgpu_ps_main
hunk clamp
    = s_waitcnt vmcnt(0)   # context
    - v_max_f32_e32 %d, 0x3e000000, %a
    + v_max_f32_e32 %d, 0x3e800000, %a
hunk expect 2
    - global_load_dword %v, %a, off offset:%o
    + global_load_dword %v, %a, off offset:%o glc
";

    #[test]
    fn a_patch_parses_with_its_targets_functions_and_hunks() {
        let p = parse("x.gpatch", CLAMP).unwrap();
        assert_eq!(p.targets_text(), "gfx900 gfx10.3");
        assert_eq!(p.hunks.len(), 2);
        assert_eq!(p.hunks[0].label(), "hunk 1 (clamp)");
        assert_eq!((p.hunks[0].expect, p.hunks[1].expect), (1, 2));
        assert_eq!(p.hunks[1].functions, vec!["_amdgpu_ps_main"]);
        assert_eq!(p.hunks[0].lines[1].pattern.tokens[0], Token::Var { prefix: String::new(), name: "d".into() });
        assert_eq!(p.hunks[1].lines[0].pattern.tokens[3], Token::Var { prefix: "offset:".into(), name: "o".into() });
        assert!(p.applies_to(&Target::from_name("gfx1030", "").unwrap()));
        assert!(p.applies_to(&Target::from_name("gfx900", "").unwrap()));
        assert!(!p.applies_to(&Target::from_name("gfx906", "").unwrap()));
        assert!(!p.applies_to(&Target::from_name("gfx1100", "").unwrap()));
    }

    #[test]
    fn reversing_swaps_find_and_replace() {
        let p = parse("x.gpatch", CLAMP).unwrap().reversed();
        let ops: Vec<Op> = p.hunks[0].lines.iter().map(|l| l.op).collect();
        assert_eq!(ops, [Op::Context, Op::Find, Op::Replace]);
        assert!(p.hunks[0].lines[1].pattern.text.contains("0x3e800000"));
    }

    #[test]
    fn substitution_keeps_the_written_punctuation() {
        let p = pattern("global_load_dword %v, %a, off offset:%o glc", 1, "x").unwrap();
        let s = p.substitute(&|v| Some(match v { "v" => "v1", "a" => "v[2:3]", _ => "16" }.to_owned())).unwrap();
        assert_eq!(s, "global_load_dword v1, v[2:3], off offset:16 glc");
    }

    #[test]
    fn errors_name_file_and_line() {
        let e = |src: &str| parse("bad.gpatch", src).unwrap_err().to_string();
        assert_eq!(e("target gfx900\nhunk\n    * v_mov_b32 v0, v1\n"), "bad.gpatch:3: a hunk line starts with `=` (context), `-` (find) or `+` (replace), found `* v_mov_b32 v0, v1`");
        assert_eq!(e("target gfx9000\n"), "bad.gpatch:1: unknown processor or generation `gfx9000`");
        assert_eq!(e("target gfx900\nhunk\n    + v_mov_b32 v0, v1\n"), "bad.gpatch:2: hunk 1 has no `=` or `-` line: nothing says where it goes");
        assert_eq!(e("target gfx900\nhunk\n    - v_mov_b32 %a, v1\n    + v_mov_b32 %b, v1\n"), "bad.gpatch:4: %b is not bound by a `=` or `-` line of hunk 1");
        assert_eq!(e("hunk\n    - s_nop 0\n"), "bad.gpatch:1: the patch names no `target` (a patch applies to the targets it names)");
        assert_eq!(e("target gfx900\nhunk expect 0\n"), "bad.gpatch:2: `expect` needs a count of 1 or more, found `0`");
    }

    #[test]
    fn a_branch_names_its_target_by_a_label_of_the_hunk() {
        let p = parse("x.gpatch", "target gfx900\nhunk\n    + s_cbranch_execz done\n    = v_mov_b32_e32 v0, s1\n    = done: s_endpgm\n").unwrap();
        let lines = &p.hunks[0].lines;
        assert_eq!(lines[0].pattern.label(), Some("done"));
        assert_eq!(lines[2].label.as_deref(), Some("done"));
        assert_eq!(lines[2].pattern.mnemonic, "s_endpgm");
        // Reversed, the branch is found by where it goes.
        assert_eq!(p.reversed().hunks[0].lines[0].op, Op::Find);
        // An offset written as printed stays an offset.
        let q = parse("x.gpatch", "target gfx900\nhunk\n    - s_cbranch_execz 5\n    + s_nop 0\n").unwrap();
        assert_eq!(q.hunks[0].lines[0].pattern.tokens, [Token::Text("5".into())]);
    }

    #[test]
    fn label_errors() {
        let e = |src: &str| parse("l.gpatch", src).unwrap_err().to_string();
        assert_eq!(e("target gfx900\nhunk\n    + s_branch out\n    = s_endpgm\n"), "l.gpatch:3: `out` is no label of hunk 1 (write `out:` before the instruction of a `=` line the branch goes to)");
        assert_eq!(e("target gfx900\nhunk\n    - x: s_nop 0\n"), "l.gpatch:3: label `x:` on a `-` line: a branch target is an instruction that stays (`=`)");
        assert_eq!(e("target gfx900\nhunk\n    = x: s_nop 0\n    = x: s_nop 1\n    + s_nop 2\n"), "l.gpatch:4: label `x` defined twice in hunk 1");
    }

    #[test]
    fn globs() {
        assert!(glob("_amdgpu_*_main", "_amdgpu_ps_main"));
        assert!(glob("k?", "k1"));
        assert!(!glob("k?", "k12"));
        assert!(glob("*", ""));
    }
}
