//! Comparing two programs function by function, aligned by control flow rather than address:
//! each instruction is compared by its text, a branch by its mnemonic and where it goes, not by
//! its offset, so an instruction put in shifts nothing after it. The alignment is the longest
//! common subsequence of the two functions' instructions (after their common head and tail),
//! branches compared without their targets; then a branch paired with one whose target is not
//! the instruction paired with its own target counts as changed.
//!
//! The same alignment gives `patch --dry-run` its unified diff and `gfxpatch diff` its patch
//! file: one hunk per changed run, with context lines added until the hunk matches only there.

use crate::ir::{Function, Program};
use crate::isa::print;

use super::file::{self, Hunk, HunkLine, Op, Pattern, Token};

/// One function's instructions: as printed (what a patch's lines match) and as compared
/// (branch targets by block).
pub struct FunctionText {
    pub name: String,
    pub entry: u64,
    pub texts: Vec<String>,
    pub keys: Vec<String>,
    /// For a branch to an instruction of the function: that instruction's index.
    pub targets: Vec<Option<usize>>,
    /// Whether the instruction ends its block (nothing put in after it would run).
    pub ends: Vec<bool>,
    /// Whether the instruction starts a block (a branch target, or after one that ends its
    /// block).
    pub starts: Vec<bool>,
}

impl FunctionText {
    pub fn of(function: &Function, target: &crate::isa::Target) -> FunctionText {
        let mut out = FunctionText { name: function.name.clone(), entry: function.entry, texts: Vec::new(), keys: Vec::new(), targets: Vec::new(), ends: Vec::new(), starts: Vec::new() };
        // The adds of PC-relative address computations: the layout re-aims their constants, so
        // they compare without them.
        let pcrel: std::collections::HashSet<u64> = function
            .pcrel
            .iter()
            .flat_map(|c| [c.add_lo, c.add_hi])
            .chain(function.add_pc_pairs.iter().flat_map(|p| p.moves()))
            .collect();
        // Instruction index of each block's first instruction.
        let firsts: Vec<usize> = function.blocks.iter().scan(0, |n, b| {
            let first = *n;
            *n += b.nodes.len();
            Some(first)
        }).collect();
        for block in &function.blocks {
            for (k, node) in block.nodes.iter().enumerate() {
                let address = node.origin.input_address().unwrap_or(block.address);
                let text = print::print(&node.inst, target, address);
                let (key, to) = match node.flow.branch_target() {
                    Some(crate::ir::BranchTarget::Block(b)) => (format!("{} .L", file::tokens(&text).0), Some(firsts[b])),
                    _ if node.origin.input_address().is_some_and(|a| pcrel.contains(&a)) => (format!("{} pc-relative", file::tokens(&text).0), None),
                    _ => (text.clone(), None),
                };
                out.ends.push(node.flow.ends_block());
                out.starts.push(k == 0);
                out.texts.push(text);
                out.keys.push(key);
                out.targets.push(to);
            }
        }
        out
    }
}

/// Every function of a program, in address order.
pub fn functions(program: &Program) -> Vec<FunctionText> {
    program.functions.iter().map(|f| FunctionText::of(f, &program.target)).collect()
}

/// One step of an alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Same(usize, usize),
    Removed(usize),
    Added(usize),
}

/// Cells of the LCS table beyond which the middle is shown as removed and added whole.
const LCS_LIMIT: usize = 16 << 20;

/// Aligns `a` with `b`: the longest common subsequence, after the common head and tail.
pub fn align(a: &[String], b: &[String]) -> Vec<Step> {
    align_at_starts(a, b, &[], &[])
}

/// [`align`], and of the longest common subsequences the one that puts in (takes out) most
/// instructions where a block of `b` (`a`) starts (`b_starts[j]`: instruction `j` starts a
/// block). An instruction put in among equal ones (`s_nop 0` at the start of a block after a
/// run of `s_nop 0`s) could be aligned anywhere in the run; it goes where it really was
/// when that is a block start, which decides what it runs with (what branches to the block).
pub fn align_at_starts(a: &[String], b: &[String], a_starts: &[bool], b_starts: &[bool]) -> Vec<Step> {
    let mut head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    // Not into a run of equal instructions: what is put in next to one may belong in it.
    while head > 0 && (a.get(head) == Some(&a[head - 1]) || b.get(head) == Some(&b[head - 1])) {
        head -= 1;
    }
    let mut tail = a[head..].iter().rev().zip(b[head..].iter().rev()).take_while(|(x, y)| x == y).count();
    while tail > 0 && (a.len() - tail > head && a[a.len() - tail - 1] == a[a.len() - tail] || b.len() - tail > head && b[b.len() - tail - 1] == b[b.len() - tail]) {
        tail -= 1;
    }
    let (am, bm) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    let mut out: Vec<Step> = (0..head).map(|i| Step::Same(i, i)).collect();
    let (n, m) = (am.len(), bm.len());
    if n * m > LCS_LIMIT {
        out.extend((0..n).map(|i| Step::Removed(head + i)));
        out.extend((0..m).map(|j| Step::Added(head + j)));
    } else {
        // score[i][j]: of am[i..] and bm[j..], the common length times `same` (more than all
        // the bonuses together, so the common length comes first), plus a point for each
        // instruction put in or taken out at a block start.
        let bonus = |starts: &[bool], k: usize| u32::from(starts.get(k).copied().unwrap_or(false));
        let (ra, rb) = (|i: usize| bonus(a_starts, head + i), |j: usize| bonus(b_starts, head + j));
        let same = (n + m + 1) as u32;
        let w = m + 1;
        let mut score = vec![0u32; (n + 1) * w];
        for j in (0..m).rev() {
            score[n * w + j] = score[n * w + j + 1] + rb(j);
        }
        for i in (0..n).rev() {
            score[i * w + m] = score[(i + 1) * w + m] + ra(i);
            for j in (0..m).rev() {
                let skip = (score[(i + 1) * w + j] + ra(i)).max(score[i * w + j + 1] + rb(j));
                score[i * w + j] = if am[i] == bm[j] { skip.max(score[(i + 1) * w + j + 1] + same) } else { skip };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            let here = score[i * w + j];
            if i < n && j < m && am[i] == bm[j] && here == score[(i + 1) * w + j + 1] + same {
                out.push(Step::Same(head + i, head + j));
                i += 1;
                j += 1;
            } else if i < n && here == score[(i + 1) * w + j] + ra(i) {
                out.push(Step::Removed(head + i));
                i += 1;
            } else {
                out.push(Step::Added(head + j));
                j += 1;
            }
        }
    }
    out.extend((0..tail).map(|k| Step::Same(a.len() - tail + k, b.len() - tail + k)));
    out
}

/// Aligns two functions: [`align`] over their keys, then a branch paired with a branch whose
/// target is not paired with its own target becomes a removal and an addition.
pub fn align_functions(a: &FunctionText, b: &FunctionText) -> Vec<Step> {
    let steps = align_at_starts(&a.keys, &b.keys, &a.starts, &b.starts);
    let mut pair = vec![None; a.keys.len()];
    let mut paired_b = vec![false; b.keys.len()];
    for s in &steps {
        if let Step::Same(i, j) = *s {
            pair[i] = Some(j);
            paired_b[j] = true;
        }
    }
    // Where a branch goes, up to code put in or taken out at its target (what is put in at a
    // block's start runs on every path into it): the first paired instruction from there on,
    // as an index into `b`.
    let via_a = |t: usize| (t..a.keys.len()).find_map(|i| pair[i]);
    let via_b = |t: usize| (t..b.keys.len()).find(|&j| paired_b[j]);
    let mut out = Vec::with_capacity(steps.len());
    for s in steps {
        match s {
            Step::Same(i, j) if a.targets[i].map(via_a) != b.targets[j].map(via_b) => {
                out.push(Step::Removed(i));
                out.push(Step::Added(j));
            }
            _ => out.push(s),
        }
    }
    out
}

/// The changed runs of an alignment, each widened by `context` unchanged steps either side and
/// merged where they touch: ranges of step indices.
fn runs(steps: &[Step], context: usize) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (k, s) in steps.iter().enumerate() {
        if matches!(s, Step::Same(..)) {
            continue;
        }
        let (lo, hi) = (k.saturating_sub(context), (k + 1 + context).min(steps.len()));
        match out.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

/// A unified diff of two programs' disassembly, function by function (`---`/`+++` name the
/// inputs; each hunk header the function and line numbers within it).
pub fn unified(a_name: &str, a: &[FunctionText], b_name: &str, b: &[FunctionText]) -> String {
    let mut out = String::new();
    for (fa, fb) in pairs(a, b) {
        let none = FunctionText { name: String::new(), entry: 0, texts: Vec::new(), keys: Vec::new(), targets: Vec::new(), ends: Vec::new(), starts: Vec::new() };
        let steps = align_functions(fa.unwrap_or(&none), fb.unwrap_or(&none));
        let name = fa.or(fb).map_or("", |f| f.name.as_str());
        for (lo, hi) in runs(&steps, 3) {
            if out.is_empty() {
                out += &format!("--- {a_name}\n+++ {b_name}\n");
            }
            let first_a = steps[lo..hi].iter().find_map(|s| match s { Step::Same(i, _) | Step::Removed(i) => Some(*i), _ => None }).unwrap_or(0);
            let first_b = steps[lo..hi].iter().find_map(|s| match s { Step::Same(_, j) | Step::Added(j) => Some(*j), _ => None }).unwrap_or(0);
            let count_a = steps[lo..hi].iter().filter(|s| !matches!(s, Step::Added(_))).count();
            let count_b = steps[lo..hi].iter().filter(|s| !matches!(s, Step::Removed(_))).count();
            out += &format!("@@ -{},{count_a} +{},{count_b} @@ {name}\n", first_a + 1, first_b + 1);
            for s in &steps[lo..hi] {
                match *s {
                    Step::Same(i, _) => out += &format!(" {}\n", fa.unwrap().texts[i]),
                    Step::Removed(i) => out += &format!("-{}\n", fa.unwrap().texts[i]),
                    Step::Added(j) => out += &format!("+{}\n", fb.unwrap().texts[j]),
                }
            }
        }
    }
    out
}

/// The functions of `a` and `b` paired by name (in `a`'s order, then those only in `b`).
fn pairs<'x>(a: &'x [FunctionText], b: &'x [FunctionText]) -> Vec<(Option<&'x FunctionText>, Option<&'x FunctionText>)> {
    let mut out: Vec<_> = a.iter().map(|f| (Some(f), b.iter().find(|g| g.name == f.name))).collect();
    out.extend(b.iter().filter(|g| !a.iter().any(|f| f.name == g.name)).map(|g| (None, Some(g))));
    out
}

/// Why a difference cannot be written as a patch.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unpatchable(pub String);

/// A patch file (its text) that turns `a` into `b`: one hunk per changed run, context added
/// (up to 12 lines either side) until the hunk matches only where it was found.
pub fn patch_text(a_name: &str, b_name: &str, processor: &str, a: &[FunctionText], b: &[FunctionText]) -> Result<String, Unpatchable> {
    let mut out = format!("# Turns {a_name} into {b_name} (written by `gfxpatch diff`).\ntarget {processor}\n");
    let mut number = 0;
    for (fa, fb) in pairs(a, b) {
        let (Some(fa), Some(fb)) = (fa, fb) else {
            let f = fa.or(fb).unwrap();
            return Err(Unpatchable(format!("function {} is in only one of the two code objects", f.name)));
        };
        let steps = align_functions(fa, fb);
        if runs(&steps, 0).is_empty() {
            continue;
        }
        out += &format!("\nfunction {}\n", fa.name);
        // Code put in where `b` branches to goes in front of the line below, in its block: its
        // hunk starts there, with no line above (docs/patches.md). Other code put in follows
        // the line above it.
        // (Where the line above ends its block, anything put in goes in front of the line
        // below anyway, and the line above may serve as context.)
        let into_target = |k: usize| {
            matches!(steps[k], Step::Added(j) if fb.targets.contains(&Some(j))) && (k == 0 || matches!(steps[k - 1], Step::Same(i, _) if !fa.ends[i]))
        };
        let mut done = 0;
        for (lo, hi) in runs(&steps, 0) {
            if lo < done {
                continue; // taken into the hunk before
            }
            number += 1;
            let (hunk, to) = hunk_with_context(&steps, lo, hi, done, fa, fb, number, &into_target)?;
            done = to;
            out += "hunk\n";
            for l in &hunk.lines {
                let op = match l.op {
                    Op::Context => '=',
                    Op::Find => '-',
                    Op::Replace => '+',
                };
                match &l.label {
                    Some(label) => out += &format!("    {op} {label}: {}\n", l.pattern.text),
                    None => out += &format!("    {op} {}\n", l.pattern.text),
                }
            }
        }
    }
    Ok(out)
}

fn literal(text: &str) -> Pattern {
    let (mnemonic, tokens) = file::tokens(text);
    Pattern { mnemonic: mnemonic.to_ascii_lowercase(), tokens: tokens.iter().map(|t| Token::Text(t.to_ascii_lowercase())).collect(), text: text.to_owned() }
}

/// The hunk for steps `lo..hi` (a changed run) with the least context that matches once in
/// `fa`: up to 12 unchanged lines above (none for code put in at a branch target) and below.
/// Below, the context may run through later changes (they join the hunk) but not into code
/// put in at a branch target, which starts a hunk of its own. Also returns the step index
/// where the hunk ends.
#[allow(clippy::too_many_arguments)]
fn hunk_with_context(steps: &[Step], lo: usize, hi: usize, done: usize, fa: &FunctionText, fb: &FunctionText, number: usize, into_target: &dyn Fn(usize) -> bool) -> Result<(Hunk, usize), Unpatchable> {
    for context in 1..=12 {
        // Above: unchanged lines only (the changes before are in earlier hunks).
        let mut from = if into_target(lo) { lo } else { (lo.saturating_sub(context)..lo).rev().take_while(|&k| matches!(steps[k], Step::Same(..))).last().unwrap_or(lo) };
        let (mut to, mut same) = (hi, 0);
        while to < steps.len() && same < context {
            match steps[to] {
                Step::Same(..) => same += 1,
                _ if into_target(to) => break,
                _ => same = 0,
            }
            to += 1;
        }
        // A branch put in names its target by a label on a `=` line of its hunk: the hunk
        // reaches to the instruction it goes to (which must be one of `a`'s, kept).
        let mut labels: Vec<(usize, String)> = Vec::new();
        let mut k = from;
        while k < to {
            if let Step::Added(j) = steps[k]
                && let Some(t) = fb.targets[j]
            {
                let Some(at) = steps.iter().position(|s| matches!(*s, Step::Same(_, tj) if tj == t)) else {
                    return Err(Unpatchable(format!("{}: the branch `{}` (instruction {} of B) goes to code B put in: a patch's branch goes to an instruction that stays", fa.name, fb.texts[j], j + 1)));
                };
                if at < done {
                    return Err(Unpatchable(format!("{}: the branch `{}` (instruction {} of B) goes back over an earlier change: write that hunk by hand", fa.name, fb.texts[j], j + 1)));
                }
                if !labels.iter().any(|(l, _)| *l == at) {
                    labels.push((at, format!("l{}", labels.len() + 1)));
                }
                if at < from {
                    from = at;
                    k = from;
                    continue;
                }
                to = to.max(at + 1);
            }
            k += 1;
        }
        let label_of = |k: usize| labels.iter().find(|(l, _)| *l == k).map(|(_, name)| name.clone());
        let lines: Vec<HunkLine> = (from..to)
            .map(|k| match steps[k] {
                Step::Same(i, _) => HunkLine { op: Op::Context, label: label_of(k), pattern: literal(&fa.texts[i]), line: 0 },
                Step::Removed(i) => HunkLine { op: Op::Find, label: None, pattern: literal(&fa.texts[i]), line: 0 },
                Step::Added(j) => {
                    let text = match fb.targets[j] {
                        Some(t) => {
                            let at = steps.iter().position(|s| matches!(*s, Step::Same(_, tj) if tj == t)).expect("checked above");
                            format!("{} {}", file::tokens(&fb.texts[j]).0, label_of(at).expect("labelled above"))
                        }
                        None => fb.texts[j].clone(),
                    };
                    HunkLine { op: Op::Replace, label: None, pattern: literal(&text), line: 0 }
                }
            })
            .collect();
        let hunk = Hunk { number, name: None, functions: vec![fa.name.clone()], expect: 1, lines, line: 0 };
        let matched: Vec<&str> = hunk.matched().map(|l| l.pattern.text.as_str()).collect();
        let count = (0..fa.texts.len()).filter(|&s| fa.texts.get(s..s + matched.len()).is_some_and(|w| w.iter().zip(&matched).all(|(x, y)| x == y))).count();
        if count == 1 && !matched.is_empty() {
            return Ok((hunk, to));
        }
    }
    let at = steps[lo..].iter().find_map(|s| match s { Step::Removed(i) | Step::Same(i, _) => Some(*i), _ => None }).unwrap_or(0);
    Err(Unpatchable(format!("{}: the change before instruction {} is not unique within 12 lines of context", fa.name, at + 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn an_insertion_shifts_nothing() {
        let a = s(&["a", "b", "c", "d"]);
        let b = s(&["a", "n", "b", "c", "x", "d"]);
        let steps = align(&a, &b);
        assert_eq!(steps, vec![Step::Same(0, 0), Step::Added(1), Step::Same(1, 2), Step::Same(2, 3), Step::Added(4), Step::Same(3, 5)]);
        assert_eq!(runs(&steps, 1), vec![(0, 6)]);
        assert_eq!(runs(&steps, 0), vec![(1, 2), (4, 5)]);
    }
}
