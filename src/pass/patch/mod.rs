//! Patch files applied as a pass: every hunk of every patch is matched first, each exactly as
//! often as it expects, in the functions it names; only then are the edits made, through the
//! edit API, so the layout moves code, re-aims branches and raises register counts as for any
//! other pass. One hunk that does not match as expected and nothing is edited.
//!
//! A hunk is a run of consecutive instructions (in address order, across block boundaries for
//! the lines that stay): context lines (`=`) and find lines (`-`), with the replacement lines
//! (`+`) put where the find lines were. Replacements are assembled for the code object's exact
//! target by our assembler (`isa::parse`).
//!
//! Wait states: on GFX8 and the GFX9 family (GFX9, GFX90A, GFX940, GFX950) the pairs of instructions
//! LLVM's hazard recognizer separates by wait states (the peephole's model,
//! `peephole::matcher::wait_states`) are checked in every function a patch changed, along
//! every path into each instruction: back through its block and on into the blocks that fall
//! through or branch to it (loops included), as far as the longest wait. Where an edit
//! brought a pair closer than allowed, an `s_nop` is inserted before the consumer and the
//! report says so. On GFX90A/940/950 functions with MFMA or DOT instructions (whose wait states
//! are not modelled) only same-length hunks are applied; others are refused. The other
//! hazards of LLVM 19's recognizer, GFX8 to GFX12 (VMEM/SMEM write hazards of GFX10.1, GFX11's
//! transcendental use and partial forwarding, WMMA, ...), are in `hazards.rs`: fixed where the
//! patch created them, or refused (docs/patches.md, "Hazards").

pub mod diff;
pub mod file;
mod hazards;

use std::collections::HashMap;
use std::sync::Mutex;

use crate::ir::{Function, InstRef, Origin, Program};
use crate::isa::processor::Generation;
use crate::isa::table::{Opcode, OperandName};
use crate::isa::operand::Value;
use crate::isa::{print, Inst};
use crate::pass::peephole::matcher::{needs_kept_distances, nop_weight, wait_states, Facts};
use crate::pass::{Ctx, Pass, PassStats};

pub use file::{parse, Hunk, Op, PatchFile, SyntaxError};

/// The pass name edits are recorded under.
pub const NAME: &str = "patch";

/// Why patches were not applied to a code object. Each kind is its own variant so that tools
/// (and tests) can tell them apart; the message says which file, hunk and function.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The patch names other targets than the code object's.
    #[error("{0}")]
    WrongTarget(String),
    /// A hunk matched fewer times than it expects (none, usually); with the nearest near-match.
    #[error("{0}")]
    TooFew(String),
    /// A hunk matched more times than it expects.
    #[error("{0}")]
    TooMany(String),
    /// No function of the code object has a name the hunk names.
    #[error("{0}")]
    NoFunction(String),
    /// The hunk matched, but its edit cannot be made safely (a replacement that does not
    /// assemble, an edit of control flow, a wait state not modelled).
    #[error("{0}")]
    Refused(String),
}

/// What applying did, one line per hunk site, per already-applied patch, per wait state put in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    pub notes: Vec<String>,
    /// Hunk sites edited.
    pub sites: usize,
    /// Patches found already applied (left alone).
    pub already: usize,
}

/// The pass: applies `patches` to every program it runs on and keeps the outcome for the
/// caller (a pass reports through [`PassStats`], which has no room for a refusal's message).
pub struct ApplyPatches<'a> {
    patches: &'a [PatchFile],
    outcome: Mutex<Option<Result<Applied, PatchError>>>,
}

impl<'a> ApplyPatches<'a> {
    pub fn new(patches: &'a [PatchFile]) -> ApplyPatches<'a> {
        ApplyPatches { patches, outcome: Mutex::new(None) }
    }

    /// The outcome of the last run (`None` if it has not run).
    pub fn take_outcome(&self) -> Option<Result<Applied, PatchError>> {
        self.outcome.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

impl Pass for ApplyPatches<'_> {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        "apply patch files (*.gpatch): every hunk matches as often as it expects, or nothing changes"
    }

    fn run(&self, _function: &mut Function, _ctx: &Ctx<'_>, _stats: &mut PassStats) {
        unreachable!("patches apply to a whole program (run_program)")
    }

    fn takes_code_back_out(&self) -> bool {
        self.patches.iter().any(|p| p.reversed)
    }

    fn run_program(&self, program: &mut Program, ctx: &Ctx<'_>, stats: &mut PassStats) {
        let before = program.clone();
        let result = apply(program, self.patches, ctx);
        match &result {
            Ok(a) => stats.applied = a.sites as u64,
            Err(_) => {
                // Nothing half-done: the program goes back to what it was.
                *program = before;
                stats.decline("patch refused");
            }
        }
        *self.outcome.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
    }
}

/// One function's instructions in address order, printed once.
struct Listing {
    refs: Vec<InstRef>,
    addresses: Vec<u64>,
    texts: Vec<String>,
}

impl Listing {
    fn of(function: &Function, target: &crate::isa::Target) -> Listing {
        let mut l = Listing { refs: Vec::new(), addresses: Vec::new(), texts: Vec::new() };
        for (b, block) in function.blocks.iter().enumerate() {
            for (i, node) in block.nodes.iter().enumerate() {
                let address = node.origin.input_address().unwrap_or(block.address);
                l.refs.push(InstRef { block: b, index: i });
                l.addresses.push(address);
                l.texts.push(print::print(&node.inst, target, address));
            }
        }
        l
    }
}

/// Where a hunk matched: the function, the listing positions of its matched lines, and what
/// its metavariables bound.
#[derive(Clone, Debug)]
struct Site {
    function: usize,
    start: usize,
    bound: HashMap<String, String>,
}

/// How far a hunk got at one place before a line differed.
#[derive(Clone, Debug)]
struct Near {
    function: usize,
    start: usize,
    /// Lines that matched (the next one differs).
    lines: usize,
    /// How much of the wanted mnemonic the found one shares (its leading characters): of two
    /// misses as long, the one with the likelier typo is nearer.
    closeness: usize,
    why: String,
}

/// Tries the matched lines of `hunk` at position `start`: the bindings, or how many lines
/// matched and what differs in the next.
fn match_at(hunk: &Hunk, listing: &Listing, start: usize) -> Result<HashMap<String, String>, (usize, String)> {
    let mut bound: HashMap<String, String> = HashMap::new();
    // Branches to labels: (line, the address it goes to), checked once every line is placed.
    let mut branches: Vec<(usize, &str, u64)> = Vec::new();
    for (k, line) in hunk.matched().enumerate() {
        let Some(text) = listing.texts.get(start + k) else { return Err((k, format!("found the function's end, want {}", line.pattern.mnemonic))) };
        let (mnemonic, printed) = file::tokens(text);
        if !line.pattern.mnemonic_matches(mnemonic) {
            return Err((k, format!("found {mnemonic}, want {}", line.pattern.mnemonic)));
        }
        let differs = || (k, format!("found `{text}`, want `{}`", line.pattern.text));
        if printed.len() != line.pattern.tokens.len() {
            return Err(differs());
        }
        for (written, printed) in line.pattern.tokens.iter().zip(&printed) {
            match written {
                file::Token::Text(t) => {
                    if !file::token_equal(t, printed) {
                        return Err(differs());
                    }
                }
                file::Token::Label(label) => {
                    let Some(offset) = crate::pass::peephole::syntax::parse_int(printed) else { return Err(differs()) };
                    // The printed SOPP offset: 16 bits, in dwords from the next instruction.
                    let to = listing.addresses[start + k].wrapping_add(4).wrapping_add_signed(4 * i64::from(offset as u16 as i16));
                    branches.push((k, label, to));
                }
                file::Token::Var { prefix, name } => {
                    let value = match printed.get(..prefix.len()) {
                        Some(p) if p.eq_ignore_ascii_case(prefix) && printed.len() > prefix.len() => &printed[prefix.len()..],
                        _ => return Err(differs()),
                    };
                    match bound.get(name) {
                        Some(b) if b != value => return Err(differs()),
                        Some(_) => {}
                        None => {
                            bound.insert(name.clone(), value.to_owned());
                        }
                    }
                }
            }
        }
    }
    for (k, label, to) in branches {
        let at = hunk.matched().position(|l| l.label.as_deref() == Some(label)).expect("labels are checked when parsed");
        if listing.addresses[start + at] != to {
            return Err((k, format!("found a branch to {to:#x}, want one to `{label}` ({:#x})", listing.addresses[start + at])));
        }
    }
    Ok(bound)
}

/// Every place `hunk` matches in the functions it names, and the nearest miss.
fn find(hunk: &Hunk, program: &Program, listings: &[Listing]) -> (Vec<Site>, Option<Near>, Vec<usize>) {
    let functions: Vec<usize> = (0..program.functions.len()).filter(|&f| hunk.functions.iter().any(|g| file::glob(g, &program.functions[f].name))).collect();
    let mut sites = Vec::new();
    let mut near: Option<Near> = None;
    for &f in &functions {
        let listing = &listings[f];
        for start in 0..listing.texts.len() {
            match match_at(hunk, listing, start) {
                Ok(bound) => sites.push(Site { function: f, start, bound }),
                Err((lines, why)) => {
                    let wanted = hunk.matched().nth(lines).map_or("", |l| l.pattern.mnemonic.as_str());
                    let found = listing.texts.get(start + lines).map_or("", |t| file::tokens(t).0);
                    let closeness = wanted.bytes().zip(found.bytes()).take_while(|(a, b)| a == b).count();
                    if lines > 0 && near.as_ref().is_none_or(|n| (lines, closeness) > (n.lines, n.closeness)) {
                        near = Some(Near { function: f, start, lines, closeness, why });
                    }
                }
            }
        }
    }
    (sites, near, functions)
}

/// Names of functions for a message: up to four, then how many more.
fn names(program: &Program, functions: &[usize]) -> String {
    let out: Vec<&str> = functions.iter().take(4).map(|&f| program.functions[f].name.as_str()).collect();
    let more = functions.len().saturating_sub(4);
    let mut s = out.join(", ");
    if more > 0 {
        s += &format!(" and {more} more");
    }
    s
}

/// What one hunk does once matched: found as often as expected, already applied, or either
/// (what it finds and what it puts in both match, consistently: code put in among equal
/// instructions, `s_nop 0` into a run of them; or an instruction replaced by a longer
/// sequence that starts with it). The patch as a whole decides an `Either` (see [`apply`]).
enum HunkState {
    Apply(Vec<Site>),
    AlreadyApplied,
    Either(Vec<Site>),
}

fn examine(patch: &PatchFile, hunk: &Hunk, program: &Program, listings: &[Listing]) -> Result<HunkState, PatchError> {
    let label = format!("{}: {}", patch.file, hunk.label());
    let (sites, near, functions) = find(hunk, program, listings);
    if functions.is_empty() {
        let all: Vec<usize> = (0..program.functions.len()).collect();
        return Err(PatchError::NoFunction(format!("{label}: no function is named {} (the code object has: {})", hunk.functions.join(" "), names(program, &all))));
    }
    let within = names(program, &functions);
    // Is it there already, the hunk's replacement in place of what it finds? Where the
    // replacement holds the lines found (an instruction replaced by a longer sequence that
    // starts with it), those still match: applied is when every match lies within a
    // replacement found.
    if hunk.lines.iter().any(|l| l.op == Op::Replace) {
        let reversed = hunk.reversed();
        let (back, _, _) = find(&reversed, program, listings);
        let (span, back_span) = (hunk.matched().count(), reversed.matched().count());
        let inside = |s: &Site| back.iter().any(|b| b.function == s.function && b.start <= s.start && s.start + span <= b.start + back_span);
        if back.len() == hunk.expect && sites.iter().all(inside) {
            return Ok(if sites.len() == hunk.expect { HunkState::Either(sites) } else { HunkState::AlreadyApplied });
        }
    }
    if sites.len() == hunk.expect {
        return Ok(HunkState::Apply(sites));
    }
    if sites.len() > hunk.expect {
        let at: Vec<String> = sites.iter().take(6).map(|s| format!("{}+{:#x}", program.functions[s.function].name, listings[s.function].addresses[s.start] - program.functions[s.function].entry)).collect();
        return Err(PatchError::TooMany(format!(
            "{label}: {} matches in {within} ({}{}), expected {}: add context lines (`=`) to single out the one meant, or `expect {}`",
            sites.len(),
            at.join(", "),
            if sites.len() > 6 { ", ..." } else { "" },
            hunk.expect,
            sites.len()
        )));
    }
    // A line naming no instruction of the target matches nothing: say so, not just where the
    // nearest miss was (the typo is the news).
    let parser = crate::isa::parse::Parser::new(program.target);
    for (k, line) in hunk.matched().enumerate() {
        if let Err(e) = parser.parse(&line.pattern.mnemonic)
            && (e.message.starts_with("unknown instruction") || e.message.contains("is not an instruction of"))
        {
            let hint = e.hint.map_or(String::new(), |h| format!(" ({h})"));
            return Err(PatchError::TooFew(format!(
                "{label}: 0 matches in {within}: line {} (`{}`) names no instruction of {}: {}{hint}",
                k + 1,
                line.pattern.text,
                program.target.processor.name,
                e.message
            )));
        }
    }
    let nearest = match near {
        Some(n) => format!(
            "; nearest at {:#x}{}, line {}: {}",
            listings[n.function].addresses[n.start],
            if functions.len() > 1 { format!(" in {}", program.functions[n.function].name) } else { String::new() },
            n.lines + 1,
            n.why
        ),
        None => format!("; no instruction matches its first line (`{}`)", hunk.matched().next().map_or("", |l| l.pattern.text.as_str())),
    };
    Err(PatchError::TooFew(format!("{label}: {} matches in {within}{}{nearest}", sites.len(), if hunk.expect == 1 { String::new() } else { format!(" (expected {})", hunk.expect) })))
}

/// One changed run of a matched hunk: the instructions taken out and those put in.
struct Change {
    function: usize,
    /// Listing positions of the instructions taken out (consecutive), branches not counted.
    removed: Vec<usize>,
    /// A branch taken out (`-` line): its listing position.
    removed_branch: Option<usize>,
    added: Vec<(Inst, String)>,
    /// A branch put in (the run's last `+` line): it and the listing position of the
    /// instruction it goes to.
    branch: Option<(Inst, String, usize)>,
    /// Where additions go when nothing is removed: after this listing position, or (when the
    /// run starts the hunk) before the next one.
    after: Option<usize>,
    before: Option<usize>,
    /// For messages.
    label: String,
}

impl Change {
    /// A listing position the change is at, for ordering and messages.
    fn position(&self) -> Option<usize> {
        self.removed.first().copied().or(self.removed_branch).or(self.after).or(self.before)
    }
}

/// Applies `patches` to `program`: matches every hunk, then edits. On error the program may be
/// half-edited; the pass restores it.
pub fn apply(program: &mut Program, patches: &[PatchFile], ctx: &Ctx<'_>) -> Result<Applied, PatchError> {
    let target = program.target;
    let mut applied = Applied::default();
    let listings: Vec<Listing> = program.functions.iter().map(|f| Listing::of(f, &target)).collect();
    let parser = crate::isa::parse::Parser::new(target);
    let mut changes: Vec<Change> = Vec::new();
    for patch in patches {
        if !patch.applies_to(&target) {
            return Err(PatchError::WrongTarget(format!("{}: the patch is for {}, the code object for {}", patch.file, patch.targets_text(), target.processor.name)));
        }
        let mut states = Vec::new();
        for hunk in &patch.hunks {
            states.push(examine(patch, hunk, program, &listings)?);
        }
        // A hunk that may be either applied or not goes with the others: applied when none
        // is sure to be missing, to be applied when one is (and none is sure to be in place).
        let already = states.iter().filter(|s| matches!(s, HunkState::AlreadyApplied)).count();
        let missing = states.iter().filter(|s| matches!(s, HunkState::Apply(_))).count();
        if missing == 0 {
            applied.already += 1;
            if already == 0 {
                // Every hunk matches both ways: what it finds and what it puts in are both there,
                // at the same places. Applied or not cannot be told from the code; it is taken
                // as applied (applying it again would double it if it was) and said so.
                let both: Vec<String> = patch
                    .hunks
                    .iter()
                    .zip(&states)
                    .filter_map(|(h, s)| match s {
                        HunkState::Either(sites) => sites.first().map(|site| format!("{} at {:#x}", h.label(), listings[site.function].addresses[site.start])),
                        _ => None,
                    })
                    .collect();
                applied.notes.push(format!(
                    "{}: cannot tell whether it is applied: every hunk matches both as it finds and as it replaces ({}), so the code reads the same either way; taken as already applied and left as it is (context lines that tell the two apart would decide it)",
                    patch.file,
                    both.join(", ")
                ));
            } else {
                applied.notes.push(format!("{}: already applied (every hunk's replacement is in place); left as it is", patch.file));
            }
            continue;
        }
        if already > 0 {
            let which: Vec<String> = patch.hunks.iter().zip(&states).filter(|(_, s)| matches!(s, HunkState::AlreadyApplied)).map(|(h, _)| h.label()).collect();
            return Err(PatchError::Refused(format!("{}: partly applied already ({} in place, the others not): refusing to apply it again", patch.file, which.join(", "))));
        }
        for (hunk, state) in patch.hunks.iter().zip(states) {
            let (HunkState::Apply(sites) | HunkState::Either(sites)) = state else { unreachable!() };
            for site in sites {
                let f = &program.functions[site.function];
                let at = listings[site.function].addresses[site.start];
                applied.notes.push(format!("{}: {}: applied in {} at {at:#x}", patch.file, hunk.label(), f.name));
                applied.sites += 1;
                changes.extend(changes_of(patch, hunk, &site, &listings[site.function], &parser, &target)?);
            }
        }
    }
    // Two sites editing one instruction would edit it twice.
    let mut owner: HashMap<(usize, usize), &str> = HashMap::new();
    for c in &changes {
        for &r in &c.removed {
            if let Some(other) = owner.insert((c.function, r), &c.label) {
                return Err(PatchError::Refused(format!("{} and {other} both change the instruction at {:#x}", c.label, listings[c.function].addresses[r])));
            }
        }
    }
    // From the end of each function to its start, so that what one change puts in does not
    // come between another's anchor and its place.
    changes.sort_by_key(|c| std::cmp::Reverse((c.function, c.position())));
    // Each function as read, for the hazards: only the pairs the patch brings about are fixed.
    let mut edited: std::collections::BTreeMap<usize, Function> = std::collections::BTreeMap::new();
    for c in &changes {
        edited.entry(c.function).or_insert_with(|| program.functions[c.function].clone());
        edit(program, c, &listings[c.function])?;
    }
    for (f, before) in edited {
        keep_wait_states(&mut program.functions[f], &target, ctx, &mut applied.notes)?;
        hazards::keep(&mut program.functions[f], &before, &target, &mut applied.notes)?;
    }
    Ok(applied)
}

/// The changed runs of one matched hunk, replacements assembled.
fn changes_of(patch: &PatchFile, hunk: &Hunk, site: &Site, listing: &Listing, parser: &crate::isa::parse::Parser, target: &crate::isa::Target) -> Result<Vec<Change>, PatchError> {
    let label = format!("{}: {}", patch.file, hunk.label());
    let refused = |line: &file::HunkLine, why: String| PatchError::Refused(format!("{}:{}: {}: {why}", patch.file, line.line, hunk.label()));
    // Listing position of each labelled line.
    let labels: HashMap<&str, usize> = hunk.matched().enumerate().filter_map(|(k, l)| Some((l.label.as_deref()?, site.start + k))).collect();
    let mut out = Vec::new();
    let mut position = site.start; // listing position of the next matched line
    let mut current: Option<Change> = None;
    for line in &hunk.lines {
        match line.op {
            Op::Context => {
                if let Some(c) = current.take() {
                    out.push(Change { before: Some(position), ..c });
                }
                position += 1;
            }
            Op::Find | Op::Replace => {
                let c = current.get_or_insert_with(|| Change {
                    function: site.function,
                    removed: Vec::new(),
                    removed_branch: None,
                    added: Vec::new(),
                    branch: None,
                    after: position.checked_sub(1).filter(|&p| p >= site.start),
                    before: None,
                    label: label.clone(),
                });
                if c.branch.is_some() {
                    return Err(refused(line, "a branch put in ends its run of changes: nothing may follow it before the next `=` line".to_owned()));
                }
                let is_branch = line.pattern.mnemonic == "s_branch" || line.pattern.mnemonic.starts_with("s_cbranch_");
                if line.op == Op::Find {
                    if is_branch {
                        if c.removed_branch.is_some() || !c.added.is_empty() {
                            return Err(refused(line, "a branch taken out must be the last `-` line of its run, before any `+` line".to_owned()));
                        }
                        c.removed_branch = Some(position);
                    } else if c.removed_branch.is_some() {
                        return Err(refused(line, "a branch taken out must be the last `-` line of its run".to_owned()));
                    } else {
                        c.removed.push(position);
                    }
                    position += 1;
                    continue;
                }
                let mut text = line.pattern.substitute(&|v| site.bound.get(v).cloned()).expect("replacement variables are bound (checked when parsed)");
                let to = line.pattern.label().map(|l| labels[l]);
                if is_branch && to.is_none() {
                    return Err(refused(line, format!("`{text}`: a branch put in names its target by a label of the hunk (`skip:` before the instruction of a `=` line, `s_cbranch_execz skip`), not by an offset")));
                }
                if to.is_some() {
                    // The layout aims the branch; assemble it with offset 0 for now.
                    text = format!("{} 0", line.pattern.mnemonic);
                }
                let parsed = parser.parse(&text).map_err(|e| {
                    let hint = e.hint.map_or(String::new(), |h| format!(" ({h})"));
                    refused(line, format!("`{text}` does not assemble for {}: {}{hint}", target.processor.name, e.message))
                })?;
                match to {
                    Some(to) => c.branch = Some((parsed.inst, line.pattern.text.clone(), to)),
                    None => c.added.push((parsed.inst, text)),
                }
            }
        }
    }
    if let Some(c) = current.take() {
        let before = (position < listing.texts.len()).then_some(position);
        out.push(Change { before, ..c });
    }
    Ok(out)
}

/// Where the instruction listed at `position` is now: found by its input address, so that
/// edits elsewhere (a block split by a branch put in) do not lead an edit astray.
fn locate(function: &Function, listing: &Listing, position: usize) -> Option<InstRef> {
    let address = listing.addresses[position];
    function.blocks.iter().enumerate().find_map(|(b, block)| {
        let i = block.nodes.iter().position(|n| n.origin.input_address() == Some(address))?;
        Some(InstRef { block: b, index: i })
    })
}

/// Makes one change through the edit API.
fn edit(program: &mut Program, c: &Change, listing: &Listing) -> Result<(), PatchError> {
    let function = &mut program.functions[c.function];
    let name = function.name.clone();
    let refused = |at: usize, what: &str, why: &str| PatchError::Refused(format!("{}: in {name} at {:#x} (`{}`): cannot {what}: {why}", c.label, listing.addresses[at], listing.texts[at]));
    let find = |function: &Function, at: usize| locate(function, listing, at).ok_or_else(|| refused(at, "find it", "another hunk took it out"));
    let kept = c.removed.len().min(c.added.len());
    // The block a branch was taken out of: a branch put in with nothing else goes in its place.
    let mut emptied = None;
    if let Some(r) = c.removed_branch {
        let at = find(function, r)?;
        function.delete_branch(at, NAME).map_err(|d| refused(r, "delete the branch", d.reason()))?;
        emptied = Some(at.block);
    }
    // Extra removals, last first.
    for &r in c.removed[kept..].iter().rev() {
        let at = find(function, r)?;
        function.delete(at, NAME).map_err(|d| refused(r, "delete it", d.reason()))?;
    }
    for (&r, (inst, _)) in c.removed.iter().zip(&c.added) {
        let at = find(function, r)?;
        function.replace(at, *inst, NAME).map_err(|d| refused(r, "replace it", d.reason()))?;
    }
    let extra = &c.added[kept..];
    if extra.is_empty() && c.branch.is_none() {
        return Ok(());
    }
    if function.opaque.is_some() {
        let r = c.position().unwrap_or(0);
        return Err(refused(r, "change the function's size", "the function is opaque (its indirect control flow is not proven), so nothing in it may move"));
    }
    if !extra.is_empty() {
        // Nothing taken out: right after the hunk's line above, in its block (a branch to the
        // line below skips what is put in); with no line above (the run starts the hunk), or
        // one that ends its block, in front of the line below, in its block (what is put in
        // runs on every path into that line).
        let anchor_after = if kept > 0 {
            Some(c.removed[kept - 1])
        } else {
            c.after.filter(|&a| locate(function, listing, a).and_then(|at| function.node(at)).is_some_and(|n| !n.flow.ends_block()))
        };
        match (anchor_after, c.before) {
            (Some(a), _) => {
                let at = find(function, a)?;
                for (inst, text) in extra.iter().rev() {
                    function.insert_after(at, *inst, NAME).map_err(|d| refused(a, &format!("put `{text}` after it"), d.reason()))?;
                }
            }
            (None, Some(b)) => {
                let at = find(function, b)?;
                for (k, (inst, text)) in extra.iter().enumerate() {
                    let here = InstRef { block: at.block, index: at.index + k };
                    function.insert_before(here, *inst, NAME).map_err(|d| refused(b, &format!("put `{text}` before it"), d.reason()))?;
                }
            }
            (None, None) => {
                let a = c.after.unwrap_or(0);
                return Err(refused(a, "put the replacement after it", "it ends its block and nothing follows in the function"));
            }
        }
    }
    if let Some((inst, text, to)) = &c.branch {
        // Right before the instruction that follows the run (everything else put in comes
        // first, as written).
        let Some(b) = c.before else {
            let a = c.position().unwrap_or(0);
            return Err(refused(a, &format!("put `{text}` after it"), "a branch put in needs an instruction after it in the hunk's function (the fall-through)"));
        };
        let target = find(function, *to)?;
        if let Some(block) = emptied.filter(|_| extra.is_empty()) {
            return function.append_branch(block, *inst, target, NAME).map_err(|d| refused(b, &format!("put `{text}` where the branch was, before it"), d.reason()));
        }
        let at = find(function, b)?;
        function.insert_branch(at, *inst, target, NAME).map_err(|d| refused(b, &format!("put `{text}` before it"), d.reason()))?;
    }
    Ok(())
}

/// Inserts the `s_nop`s the GFX9 family's wait states need where the patch brought a VALU
/// write and its consumer closer than allowed, in every function it edited: looking back from
/// each instruction along every path into it, through its block and on into the blocks that
/// fall through or branch to it, as far as the longest wait (see the module doc).
fn keep_wait_states(function: &mut Function, target: &crate::isa::Target, ctx: &Ctx<'_>, notes: &mut Vec<String>) -> Result<(), PatchError> {
    if !matches!(target.generation(), Generation::Gfx8 | Generation::Gfx9 | Generation::Gfx90a | Generation::Gfx940 | Generation::Gfx950) {
        return Ok(());
    }
    let grew = function.edits.iter().any(|e| e.kind != crate::ir::EditKind::Replace);
    if grew && needs_kept_distances(target, function.nodes().map(|n| &n.inst)) {
        return Err(PatchError::Refused(format!(
            "{}: the patch moves instructions in a function with MFMA/DOT/accvgpr instructions, whose wait states gfxpatch does not model on {}",
            function.name,
            target.processor.name
        )));
    }
    // Predecessors do not change as s_nops go in (an insertion adds no block).
    let predecessors = function.predecessors();
    // Every block: a branch put in splits blocks, and the runs the input had stand out anyway
    // (`follows_as_in_input`).
    for block in 0..function.blocks.len() {
        let mut index = 0;
        while index < function.blocks[block].nodes.len() {
            let missing = shortfall(function, &predecessors, target, block, index);
            if missing > 0 {
                let nop = ctx.builder.borrow_mut().build(Opcode::S_NOP, &[(OperandName::simm16, Value::Imm(missing as i64 - 1))]);
                let Some(nop) = nop else { return Err(PatchError::Refused(format!("{}: s_nop does not encode", function.name))) };
                let consumer = function.blocks[block].nodes[index];
                let text = print::print(&consumer.inst, target, consumer.origin.input_address().unwrap_or(function.blocks[block].address));
                function.insert_before(InstRef { block, index }, nop, NAME).map_err(|d| PatchError::Refused(format!("{}: wait states before `{text}`: {}", function.name, d.reason())))?;
                notes.push(format!("{}: inserted s_nop {} before `{text}` (wait states after a VALU write)", function.name, missing - 1));
                index += 1;
            }
            index += 1;
        }
    }
    Ok(())
}

/// The most wait states any producer on a path into the instruction at `block`, `index` lacks,
/// counting only pairs the patch brought closer (the run between them is not as in the input).
/// The walk goes back through the block and into its predecessors until the distance covers the
/// longest wait (5); a loop is walked round as long as that.
fn shortfall(function: &Function, predecessors: &[Vec<usize>], target: &crate::isa::Target, block: usize, index: usize) -> usize {
    const LONGEST_WAIT: usize = 5;
    let consumer_node = function.blocks[block].nodes[index];
    let consumer = Facts::of(&consumer_node.inst, target);
    let intact = matches!(consumer_node.origin, Origin::Input(_));
    let mut missing = 0;
    // (block, nodes before `end` still to look at, distance so far, run unchanged so far, the
    // instruction after the next one looked at).
    let mut stack = vec![(block, index, 0usize, intact, Some(consumer_node))];
    let mut seen = std::collections::HashSet::new();
    while let Some((b, end, mut distance, mut intact, mut after)) = stack.pop() {
        if !seen.insert((b, end, distance, intact)) {
            continue;
        }
        let nodes = &function.blocks[b].nodes;
        let mut k = end;
        while k > 0 && distance < LONGEST_WAIT {
            k -= 1;
            let node = nodes[k];
            // `after` is None for a block's last instruction reached from its successor: the
            // edge was judged when the walk took it.
            intact = intact && after.is_none_or(|next| follows_as_in_input(node, next));
            let facts = Facts::of(&node.inst, target);
            let required = wait_states(&facts, &consumer);
            if required > distance && !intact {
                missing = missing.max(required - distance);
            }
            distance += nop_weight(&facts);
            after = Some(node);
        }
        if k == 0 && distance < LONGEST_WAIT {
            // The first instruction of `b` (the consumer itself when it starts its block).
            let first = after.expect("a block with instructions, or the consumer");
            for &p in &predecessors[b] {
                let from = &function.blocks[p];
                let Some(&last) = from.nodes.last() else { continue };
                // An edge the input had: a fall-through, or its branch unchanged.
                let edge_intact = intact && (follows_as_in_input(last, first) || branches_to(&last, b, first, function));
                stack.push((p, from.nodes.len(), distance, edge_intact, None));
            }
        }
    }
    missing
}

/// Whether `next` followed `node` in the input as it does now: both read from the input
/// unchanged, one right after the other (nothing taken out between).
fn follows_as_in_input(node: crate::ir::Node, next: crate::ir::Node) -> bool {
    match (node.origin, next.origin) {
        (Origin::Input(a), Origin::Input(b)) => a + node.inst.len() as u64 == b,
        _ => false,
    }
}

/// Whether `branch`, read from the input unchanged, goes to block `to` whose first
/// instruction, `first`, is the one it went to in the input.
fn branches_to(branch: &crate::ir::Node, to: usize, first: crate::ir::Node, function: &Function) -> bool {
    matches!(branch.origin, Origin::Input(_))
        && branch.flow.branch_target() == Some(crate::ir::BranchTarget::Block(to))
        && first.origin == Origin::Input(function.blocks[to].address)
}
