//! The rule language: lexing and parsing `passes/*.rules` and `passes/*.tests` into syntax
//! trees. Nothing here knows the instruction set; [`super::rules`] resolves mnemonics against
//! the tables and [`super::prove`] checks what a rule claims.
//!
//! A file is a sequence of blocks; a block starts with a keyword in column 1 and continues over
//! indented lines. `#` starts a comment; the comment line right above `rule` is the rule's
//! summary (every rule must have one).
//!
//! ```text
//! # (a << s) | b: a shift left whose result only feeds an OR becomes one v_lshl_or_b32.
//! rule lshl-or
//! match
//!     v_lshlrev_b32 %t, %s, %a
//!     v_or_b32 %d, %t, %b
//! match
//!     v_lshlrev_b32 %t, %s, %a
//!     v_or_b32 %d, %b, %t
//! rewrite
//!     v_lshl_or_b32 %d, %a, %s, %b
//! where
//!     dead %t
//! ```
//!
//! Tests (`passes/<topic>.tests`) name the rule set they exercise implicitly (all rules of the
//! run) and give straight-line assembly followed by one expectation a line:
//!
//! ```text
//! test shift then or
//!     v_lshlrev_b32 v1, 4, v2
//!     v_or_b32 v3, v1, v4
//!   [gfx803] unchanged
//!   [gfx900 gfx1030] v_lshl_or_b32 v3, v2, 4, v4
//! ```

use std::fmt;

/// Where something is in a rule file (1-based line and column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

/// A syntax or meaning error, with the place it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError {
    pub file: String,
    pub pos: Pos,
    pub message: String,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file, self.pos.line, self.pos.col, self.message)
    }
}

impl std::error::Error for RuleError {}

/// One operand of a pattern or replacement instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OperandPat {
    /// A metavariable (`%t`): the same name stands for the same register or constant.
    Var(String),
    /// An integer constant the operand must hold (`1`, `-1`, `0x10`).
    Int(i64),
    /// A fixed register spelled as in assembly (`vcc`, `exec`): `vcc` is the wave's VCC
    /// (`vcc_lo` in wave32).
    Fixed(String),
}

/// One instruction of a pattern or replacement: a mnemonic and its comma-separated operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstPat {
    pub mnemonic: String,
    pub operands: Vec<OperandPat>,
    pub pos: Pos,
}

/// A location a rule may declare dead after the match.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Loc {
    Var(String),
    Scc,
    Vcc,
}

/// What a metavariable may bind to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A VGPR (or VGPR tuple).
    Vgpr,
    /// An SGPR (or tuple).
    Sgpr,
    /// Any register.
    Reg,
    /// An inline constant or a literal.
    Const,
    /// An inline constant only.
    Inline,
}

impl Kind {
    fn parse(word: &str) -> Option<Kind> {
        Some(match word {
            "vgpr" => Kind::Vgpr,
            "sgpr" => Kind::Sgpr,
            "reg" => Kind::Reg,
            "const" => Kind::Const,
            "inline" => Kind::Inline,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Vgpr => "vgpr",
            Kind::Sgpr => "sgpr",
            Kind::Reg => "reg",
            Kind::Const => "const",
            Kind::Inline => "inline",
        }
    }
}

/// A condition of a rule's `where` block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    /// `dead %t`, `dead scc`: the location's value after the match is never read.
    Dead(Loc, Pos),
    /// `%s is const`.
    Is(String, Kind, Pos),
    /// `%s in 0..4` (inclusive): a constant in that range.
    In(String, i64, i64, Pos),
}

/// Generations a rule is restricted to (`only gfx9+`, `only gfx940 gfx950`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenSpec {
    /// A generation or processor name as written (`gfx9`, `gfx90a`, `gfx10.3`, `gfx1030`).
    pub name: String,
    /// `+`: that generation and every later one in lineage order.
    pub and_later: bool,
    pub pos: Pos,
}

/// One rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub name: String,
    /// The comment line above the rule: what it does.
    pub summary: String,
    pub pos: Pos,
    /// Alternative patterns (commuted forms written out), each a sequence of instructions.
    pub patterns: Vec<Vec<InstPat>>,
    pub replacement: Vec<InstPat>,
    pub conditions: Vec<Condition>,
    pub only: Vec<GenSpec>,
}

/// What a test expects on some targets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// No rule matches (or none applies on the target).
    Unchanged,
    /// A rule matches and declines, for this reason (its short name).
    Declined(String),
    /// The matched instructions become these (as printed, `;`-separated in the file).
    Rewritten(Vec<String>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expect {
    pub targets: Vec<String>,
    pub outcome: Outcome,
    pub pos: Pos,
}

/// One test: straight-line assembly ending the program (nothing is live after it) and the
/// expected outcome per target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Test {
    pub name: String,
    pub pos: Pos,
    pub asm: Vec<(String, Pos)>,
    pub expects: Vec<Expect>,
}

/// A parsed file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct File {
    pub rules: Vec<Rule>,
    pub tests: Vec<Test>,
}

/// One significant line: its text without the comment, where it starts, and whether it was
/// indented.
struct Line<'a> {
    text: &'a str,
    pos: Pos,
    indented: bool,
    /// The comment text if the line is only a comment.
    comment: Option<&'a str>,
}

fn lines(source: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    for (n, raw) in source.lines().enumerate() {
        let line = (n + 1) as u32;
        let body = raw.split('#').next().unwrap_or("");
        let trimmed_start = body.trim_start();
        let indent = body.len() - trimmed_start.len();
        let text = trimmed_start.trim_end();
        if text.is_empty() {
            let comment = raw.trim_start().strip_prefix('#').map(str::trim);
            out.push(Line { text: "", pos: Pos { line, col: 1 }, indented: false, comment });
            continue;
        }
        out.push(Line { text, pos: Pos { line, col: indent as u32 + 1 }, indented: indent > 0, comment: None });
    }
    out
}

struct Parser<'a> {
    file: &'a str,
    lines: Vec<Line<'a>>,
    at: usize,
}

impl<'a> Parser<'a> {
    fn error(&self, pos: Pos, message: impl Into<String>) -> RuleError {
        RuleError { file: self.file.to_owned(), pos, message: message.into() }
    }

    /// The next significant line, skipping blank and comment lines.
    fn peek(&self) -> Option<&Line<'a>> {
        self.lines[self.at..].iter().find(|l| !l.text.is_empty())
    }

    fn advance_to_next(&mut self) -> Option<&Line<'a>> {
        while self.at < self.lines.len() && self.lines[self.at].text.is_empty() {
            self.at += 1;
        }
        let line = self.lines.get(self.at)?;
        self.at += 1;
        Some(line)
    }

    /// Indented lines following the current position (the body of a block).
    fn body(&mut self) -> Vec<(&'a str, Pos)> {
        let mut out = Vec::new();
        while let Some(line) = self.peek() {
            if !line.indented {
                break;
            }
            let (text, pos) = (line.text, line.pos);
            self.advance_to_next();
            out.push((text, pos));
        }
        out
    }

    /// The comment directly above line index `index` (no blank line between).
    fn comment_above(&self, index: usize) -> Option<&'a str> {
        index.checked_sub(1).and_then(|i| self.lines[i].comment).filter(|c| !c.is_empty())
    }

    fn file(&mut self) -> Result<File, RuleError> {
        let mut file = File::default();
        while let Some(line) = self.peek() {
            let (text, pos) = (line.text, line.pos);
            if line.indented {
                return Err(self.error(pos, "indented line outside a `rule` or `test` block"));
            }
            let (keyword, rest) = split_word(text);
            let index = self.lines[self.at..].iter().position(|l| !l.text.is_empty()).unwrap() + self.at;
            self.advance_to_next();
            match keyword {
                "rule" => {
                    let summary = self.comment_above(index).ok_or_else(|| {
                        self.error(pos, format!("rule `{rest}` needs a one-line comment above it saying what it does"))
                    })?;
                    file.rules.push(self.rule(rest, summary, pos)?);
                }
                "test" => file.tests.push(self.test(rest, pos)?),
                _ => return Err(self.error(pos, format!("expected `rule` or `test`, found `{keyword}`"))),
            }
        }
        Ok(file)
    }

    fn rule(&mut self, name: &str, summary: &str, pos: Pos) -> Result<Rule, RuleError> {
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return Err(self.error(pos, format!("bad rule name `{name}`: letters, digits, `-` and `_` only")));
        }
        let mut rule = Rule {
            name: name.to_owned(),
            summary: summary.to_owned(),
            pos,
            patterns: Vec::new(),
            replacement: Vec::new(),
            conditions: Vec::new(),
            only: Vec::new(),
        };
        let mut seen_rewrite = false;
        while let Some(line) = self.peek() {
            if line.indented {
                return Err(self.error(line.pos, "expected `match`, `rewrite`, `where` or `only`"));
            }
            let (text, lpos) = (line.text, line.pos);
            let (keyword, rest) = split_word(text);
            let rest_col = lpos.col + (text.len() - rest.len()) as u32;
            match keyword {
                "match" | "rewrite" | "where" | "only" => {
                    self.advance_to_next();
                }
                _ => break,
            }
            let mut body: Vec<(&str, Pos)> = Vec::new();
            if !rest.is_empty() {
                body.push((rest, Pos { line: lpos.line, col: rest_col }));
            }
            body.extend(self.body());
            if body.is_empty() && keyword != "only" {
                return Err(self.error(lpos, format!("`{keyword}` needs at least one line")));
            }
            match keyword {
                "match" => {
                    if seen_rewrite {
                        return Err(self.error(lpos, "`match` after `rewrite`: patterns come first"));
                    }
                    rule.patterns.push(body.iter().map(|&(t, p)| self.inst(t, p)).collect::<Result<_, _>>()?);
                }
                "rewrite" => {
                    if seen_rewrite {
                        return Err(self.error(lpos, "a rule has one `rewrite`"));
                    }
                    seen_rewrite = true;
                    rule.replacement = body.iter().map(|&(t, p)| self.inst(t, p)).collect::<Result<_, _>>()?;
                }
                "where" => {
                    for &(t, p) in &body {
                        for (part, col) in split_commas(t, p) {
                            rule.conditions.push(self.condition(part, col)?);
                        }
                    }
                }
                _ => {
                    for &(t, p) in &body {
                        for (word, wpos) in words(t, p) {
                            let (name, and_later) = match word.strip_suffix('+') {
                                Some(n) => (n, true),
                                None => (word, false),
                            };
                            rule.only.push(GenSpec { name: name.to_ascii_lowercase(), and_later, pos: wpos });
                        }
                    }
                    if rule.only.is_empty() {
                        return Err(self.error(lpos, "`only` needs a generation (`gfx9+`, `gfx940`)"));
                    }
                }
            }
        }
        if rule.patterns.is_empty() {
            return Err(self.error(pos, format!("rule `{name}` has no `match`")));
        }
        if !seen_rewrite {
            return Err(self.error(pos, format!("rule `{name}` has no `rewrite`")));
        }
        Ok(rule)
    }

    fn inst(&self, text: &str, pos: Pos) -> Result<InstPat, RuleError> {
        let (mnemonic, rest) = split_word(text);
        if !mnemonic.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(self.error(pos, format!("bad mnemonic `{mnemonic}`")));
        }
        let rest_col = pos.col + (text.len() - rest.len()) as u32;
        let mut operands = Vec::new();
        if !rest.is_empty() {
            for (part, ppos) in split_commas(rest, Pos { line: pos.line, col: rest_col }) {
                operands.push(self.operand(part, ppos)?);
            }
        }
        Ok(InstPat { mnemonic: mnemonic.to_ascii_lowercase(), operands, pos })
    }

    fn operand(&self, text: &str, pos: Pos) -> Result<OperandPat, RuleError> {
        if let Some(name) = text.strip_prefix('%') {
            if !is_metavariable_name(name) {
                return Err(self.error(pos, format!("bad metavariable `{text}`")));
            }
            return Ok(OperandPat::Var(name.to_owned()));
        }
        if let Some(v) = parse_int(text) {
            return Ok(OperandPat::Int(v));
        }
        match text {
            "vcc" | "exec" | "scc" | "m0" => Ok(OperandPat::Fixed(text.to_owned())),
            _ => Err(self.error(pos, format!("expected `%name`, an integer or `vcc`, found `{text}`"))),
        }
    }

    fn condition(&self, text: &str, pos: Pos) -> Result<Condition, RuleError> {
        let parts: Vec<(&str, Pos)> = words(text, pos);
        let var = |(w, p): (&str, Pos)| -> Result<String, RuleError> {
            w.strip_prefix('%').filter(|n| !n.is_empty()).map(str::to_owned).ok_or_else(|| self.error(p, format!("expected `%name`, found `{w}`")))
        };
        match parts.as_slice() {
            [("dead", _), (what, p)] => Ok(Condition::Dead(
                match *what {
                    "scc" => Loc::Scc,
                    "vcc" => Loc::Vcc,
                    _ => Loc::Var(var((what, *p))?),
                },
                pos,
            )),
            [v, ("is", _), (kind, kp)] => {
                let kind = Kind::parse(kind).ok_or_else(|| self.error(*kp, format!("unknown operand kind `{kind}` (vgpr, sgpr, reg, const, inline)")))?;
                Ok(Condition::Is(var(*v)?, kind, pos))
            }
            [v, ("in", _), (range, rp)] => {
                let (lo, hi) = range
                    .split_once("..")
                    .and_then(|(lo, hi)| Some((parse_int(lo)?, parse_int(hi)?)))
                    .filter(|(lo, hi)| lo <= hi)
                    .ok_or_else(|| self.error(*rp, format!("expected a range `lo..hi`, found `{range}`")))?;
                Ok(Condition::In(var(*v)?, lo, hi, pos))
            }
            _ => Err(self.error(pos, format!("expected `dead %x`, `%x is <kind>` or `%x in lo..hi`, found `{text}`"))),
        }
    }

    fn test(&mut self, name: &str, pos: Pos) -> Result<Test, RuleError> {
        if name.is_empty() {
            return Err(self.error(pos, "a test needs a name"));
        }
        let mut test = Test { name: name.to_owned(), pos, asm: Vec::new(), expects: Vec::new() };
        for (text, lpos) in self.body() {
            if let Some(rest) = text.strip_prefix('[') {
                let (targets, outcome) = rest
                    .split_once(']')
                    .ok_or_else(|| self.error(lpos, "expected `]` after the targets"))?;
                let targets: Vec<String> = targets.split_whitespace().map(str::to_owned).collect();
                if targets.is_empty() {
                    return Err(self.error(lpos, "an expectation names at least one target"));
                }
                let outcome = outcome.trim();
                let outcome = match split_word(outcome) {
                    ("unchanged", "") => Outcome::Unchanged,
                    ("declined", reason) if !reason.is_empty() => Outcome::Declined(reason.to_owned()),
                    ("", _) => return Err(self.error(lpos, "expected `unchanged`, `declined <reason>` or the rewritten instructions")),
                    _ => Outcome::Rewritten(outcome.split(';').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect()),
                };
                test.expects.push(Expect { targets, outcome, pos: lpos });
            } else if test.expects.is_empty() {
                test.asm.push((text.to_owned(), lpos));
            } else {
                return Err(self.error(lpos, "assembly after the expectations"));
            }
        }
        if test.asm.is_empty() || test.expects.is_empty() {
            return Err(self.error(pos, format!("test `{name}` needs assembly lines and `[targets] outcome` lines")));
        }
        Ok(test)
    }
}

/// The first whitespace-separated word and the rest (trimmed). Shared with the patch files'
/// parser (`crate::pass::patch::file`), which reads instruction lines the same way.
pub(crate) fn split_word(text: &str) -> (&str, &str) {
    match text.find(char::is_whitespace) {
        Some(i) => (&text[..i], text[i..].trim_start()),
        None => (text, ""),
    }
}

/// Whether `name` (after the `%`) is a metavariable name: letters, digits and `_`. One rule for
/// peephole rules and patch files.
pub(crate) fn is_metavariable_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whitespace-separated words with their positions.
fn words(text: &str, pos: Pos) -> Vec<(&str, Pos)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for word in text.split_whitespace() {
        let at = text[offset..].find(word).unwrap() + offset;
        out.push((word, Pos { line: pos.line, col: pos.col + at as u32 }));
        offset = at + word.len();
    }
    out
}

/// Comma-separated, trimmed parts with their positions.
fn split_commas(text: &str, pos: Pos) -> Vec<(&str, Pos)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for part in text.split(',') {
        let lead = part.len() - part.trim_start().len();
        out.push((part.trim(), Pos { line: pos.line, col: pos.col + (offset + lead) as u32 }));
        offset += part.len() + 1;
    }
    out
}

/// An integer as rules and patches write it (`16`, `-1`, `0x10`).
pub(crate) fn parse_int(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    let value = match digits.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => digits.parse().ok()?,
        None => return None,
    };
    Some(if negative { -value } else { value })
}

/// Parses one rule or test file; `file` names it in errors.
pub fn parse(file: &str, source: &str) -> Result<File, RuleError> {
    Parser { file, lines: lines(source), at: 0 }.file()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LSHL_OR: &str = "\
# (a << s) | b in one instruction.
rule lshl-or
match
    v_lshlrev_b32 %t, %s, %a
    v_or_b32 %d, %t, %b
match v_lshlrev_b32 %t, %s, %a
      v_or_b32 %d, %b, %t
rewrite
    v_lshl_or_b32 %d, %a, %s, %b
where
    dead %t, %s is const
    %s in 0..31
only gfx9+
";

    #[test]
    fn a_rule_parses_with_its_alternatives_and_conditions() {
        let file = parse("x.rules", LSHL_OR).unwrap();
        let rule = &file.rules[0];
        assert_eq!((rule.name.as_str(), rule.summary.as_str()), ("lshl-or", "(a << s) | b in one instruction."));
        assert_eq!(rule.patterns.len(), 2);
        assert_eq!(rule.patterns[1][1].operands[1], OperandPat::Var("b".into()));
        assert_eq!(rule.replacement[0].mnemonic, "v_lshl_or_b32");
        assert_eq!(rule.conditions.len(), 3);
        assert!(matches!(&rule.conditions[2], Condition::In(v, 0, 31, _) if v == "s"));
        assert_eq!(rule.only, vec![GenSpec { name: "gfx9".into(), and_later: true, pos: Pos { line: 13, col: 6 } }]);
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let bad = LSHL_OR.replace("%b, %t\n", "%b, $t\n");
        let e = parse("valu.rules", &bad).unwrap_err();
        assert_eq!(e.to_string(), "valu.rules:7:24: expected `%name`, an integer or `vcc`, found `$t`");
        let e = parse("x.rules", "rule bare\nmatch\n    v_mov_b32 %a, %b\nrewrite\n    v_mov_b32 %a, %b\n").unwrap_err();
        assert_eq!(e.to_string(), "x.rules:1:1: rule `bare` needs a one-line comment above it saying what it does");
        let e = parse("x.rules", &LSHL_OR.replace("dead %t", "dead")).unwrap_err();
        assert!(e.to_string().starts_with("x.rules:11:5: expected `dead %x`"), "{e}");
        let e = parse("x.rules", &LSHL_OR.replace("0..31", "31..0")).unwrap_err();
        assert_eq!(e.to_string(), "x.rules:12:11: expected a range `lo..hi`, found `31..0`");
    }

    #[test]
    fn a_test_parses_assembly_and_expectations() {
        let src = "test shift then or\n    v_lshlrev_b32 v1, 4, v2\n    v_or_b32 v3, v1, v4\n  [gfx803] unchanged\n  [gfx900 gfx1030] v_lshl_or_b32 v3, v2, 4, v4\n  [gfx90a] declined constant-bus\n";
        let file = parse("x.tests", src).unwrap();
        let t = &file.tests[0];
        assert_eq!(t.name, "shift then or");
        assert_eq!(t.asm.len(), 2);
        assert_eq!(t.expects[0].outcome, Outcome::Unchanged);
        assert_eq!(t.expects[1].targets, vec!["gfx900", "gfx1030"]);
        assert_eq!(t.expects[1].outcome, Outcome::Rewritten(vec!["v_lshl_or_b32 v3, v2, 4, v4".into()]));
        assert_eq!(t.expects[2].outcome, Outcome::Declined("constant-bus".into()));
    }
}
