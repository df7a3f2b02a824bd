//! Mitigating a hazard the destination has and the source has not, by inserting the wait LLVM
//! inserts for it, instead of refusing.
//!
//! The one hazard inside a generic family with a wait-state fix is `FeatureVALUTransUseHazard`
//! (gfx1100-gfx1103; gfx1150-gfx1153 code may trip it). LLVM's
//! `GCNHazardRecognizer::fixVALUTransUseHazard` (LLVM 19) looks, for each VALU instruction,
//! backwards through its block and the predecessor blocks for
//!
//! ```text
//!   v3 <- transcendental VALU          (v_exp_f32 v3, v4)
//!   at most 5 VALUs, at most 1 transcendental, no VMEM/FLAT/DS/export, no s_waitcnt_depctr 0x0fff
//!   VALU reading v3                    (v_add_f32 v5, v3, v3)
//! ```
//!
//! and puts `s_waitcnt_depctr 0x0fff` (`depctr_va_vdst(0)`: wait until no VALU write of a VGPR
//! is outstanding) in front of the reader. [`plan`] is that search, instruction for instruction,
//! over our control-flow graph, and it sees the waits planned earlier in the same walk (LLVM sees
//! the ones it has inserted): so it finds exactly the places LLVM's pass would fix, and, run
//! over the output, nothing. Two differences make it find at least LLVM's places, never fewer:
//! the reads are every VGPR the instruction may read (LLVM: its explicit VGPR uses), and a
//! predecessor is walked again when reached with other counts (LLVM walks each predecessor
//! once). As in LLVM the walk ends at a function's entry and does not look into a callee.
//!
//! The waits are inserted by the rewrite engine ([`crate::rewrite`]): the layout moves the code
//! after them and re-aims branches, and the result is verified as every rewrite is. A function
//! that must keep its size (opaque: indirect control flow not proven) takes no insertion, and a
//! retarget that needs one there is refused with the place.

use serde::Serialize;

use crate::container::CodeObject;
use crate::ir::liveness::{access, operands, unit, RegSet};
use crate::ir::{Function, InstRef};
use crate::isa::operand::Value;
use crate::isa::table::{flag, Opcode, OperandName};
use crate::isa::{print, Inst, Target};
use crate::pass::{Ctx, Pass, PassStats};

use super::Blocker;

/// `s_waitcnt_depctr` with `va_vdst` 0 and every other counter at its maximum: LLVM's
/// `DepCtr::encodeFieldVaVdst(0)`.
pub const VA_VDST_0: i64 = 0x0fff;

/// The hazard this module mitigates (LLVM's feature name).
pub const HAZARD: &str = "FeatureVALUTransUseHazard";

/// LLVM's `IntvMaxVALUs` and `IntvMaxTRANS`: after more VALUs (transcendentals) than these
/// since the write, the hazard has expired.
const MAX_VALUS: u8 = 5;
const MAX_TRANS: u8 = 1;

/// One wait the retarget inserts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Insertion {
    /// The function (kernel or device function) it goes into.
    pub function: String,
    /// The input address of the instruction it goes in front of.
    pub before: u64,
    /// That instruction.
    pub reader: String,
    /// The input address of the transcendental instruction whose result it reads.
    pub writer: u64,
    /// What is inserted, as llvm-objdump prints it.
    pub inserted: &'static str,
    pub hazard: &'static str,
}

/// The text llvm-objdump-19 prints for the inserted wait.
const INSERTED: &str = "s_waitcnt_depctr 0xfff";

/// What the search needs of one instruction.
#[derive(Clone, Copy)]
struct Facts {
    valu: bool,
    trans: bool,
    /// VMEM, FLAT, DS, export or `s_waitcnt_depctr 0x0fff`: `va_vdst` is 0 after it.
    expires: bool,
    reads: RegSet,
    writes: RegSet,
}

fn vgprs_only(mut set: RegSet) -> RegSet {
    let mut scalar = RegSet::EMPTY;
    scalar.insert_range(0, unit::VGPR0);
    scalar.insert_range(unit::AGPR0, unit::AGPRS);
    set.subtract(&scalar);
    set
}

fn facts(inst: &Inst, target: &Target) -> Facts {
    let Some(e) = inst.encoding() else {
        // An undecodable word: it may be anything, so it neither expires the hazard nor is
        // known not to write a VGPR. (Its function is opaque and takes no insertion anyway.)
        return Facts { valu: true, trans: true, expires: false, reads: RegSet::EMPTY, writes: vgprs_only(RegSet::all()) };
    };
    let f = e.flags;
    let memory = f.has(flag::MUBUF) || f.has(flag::MTBUF) || f.has(flag::MIMG) || f.has(flag::VIMAGE) || f.has(flag::VSAMPLE) || f.has(flag::FLAT) || f.has(flag::DS) || f.has(flag::EXP);
    let wait = e.opcode == Opcode::S_WAITCNT_DEPCTR && operands(inst, target).is_some_and(|(_, ops)| ops.value(OperandName::simm16) == Some(Value::Imm(VA_VDST_0)));
    let valu = f.has(flag::VALU);
    let trans = f.has(flag::TRANS);
    let a = if valu { access(inst, target) } else { Default::default() };
    Facts { valu, trans, expires: memory || wait, reads: vgprs_only(a.reads), writes: if trans { vgprs_only(a.writes) } else { RegSet::EMPTY } }
}

/// A place that needs the wait: in front of the instruction at `at`, for the write at `writer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Site {
    pub at: InstRef,
    pub writer: InstRef,
}

/// Every place in `function` where LLVM's `fixVALUTransUseHazard` inserts a wait, in program
/// order (block by block, as LLVM walks them), each search seeing the waits planned before it.
pub fn plan(function: &Function, target: &Target) -> Vec<Site> {
    let facts: Vec<Vec<Facts>> = function.blocks.iter().map(|b| b.nodes.iter().map(|n| facts(&n.inst, target)).collect()).collect();
    if !facts.iter().flatten().any(|f| f.trans) {
        return Vec::new();
    }
    let predecessors = function.predecessors();
    let mut planned: std::collections::HashSet<(usize, usize)> = std::collections::HashSet::new();
    let mut sites = Vec::new();
    for (b, block_facts) in facts.iter().enumerate() {
        for (i, f) in block_facts.iter().enumerate() {
            if !f.valu || f.reads.is_empty() {
                continue;
            }
            if let Some(writer) = search(&facts, &predecessors, &planned, b, i, &f.reads) {
                planned.insert((b, i));
                sites.push(Site { at: InstRef { block: b, index: i }, writer });
            }
        }
    }
    sites
}

/// LLVM's `hasHazard` for one reader at (`block`, `index`): the transcendental write it may
/// read too soon, if any. `planned` holds the waits in front of (block, index) planned so far.
fn search(facts: &[Vec<Facts>], predecessors: &[Vec<usize>], planned: &std::collections::HashSet<(usize, usize)>, block: usize, index: usize, reads: &RegSet) -> Option<InstRef> {
    // (block, instructions of it to walk backwards from, VALUs and transcendentals passed)
    let mut stack: Vec<(usize, usize, u8, u8)> = vec![(block, index, 0, 0)];
    let mut seen: std::collections::HashSet<(usize, u8, u8)> = std::collections::HashSet::new();
    'walk: while let Some((b, end, mut valus, mut trans)) = stack.pop() {
        for j in (0..end).rev() {
            // A wait planned between this instruction and the next one walked.
            if j + 1 < end && planned.contains(&(b, j + 1)) {
                continue 'walk;
            }
            if valus > MAX_VALUS || trans > MAX_TRANS {
                continue 'walk;
            }
            let f = &facts[b][j];
            if f.expires {
                continue 'walk;
            }
            if f.trans && f.writes.intersects(reads) {
                return Some(InstRef { block: b, index: j });
            }
            valus += u8::from(f.valu);
            trans += u8::from(f.trans);
        }
        // The wait planned in front of the block's first instruction (not the reader's own).
        if end > 0 && planned.contains(&(b, 0)) {
            continue;
        }
        for &p in &predecessors[b] {
            if seen.insert((p, valus, trans)) {
                stack.push((p, facts[p].len(), valus, trans));
            }
        }
    }
    None
}

/// The waits `object` needs for [`HAZARD`], or what keeps them from being inserted (each place
/// in a function that must keep its size, or a program that cannot be read).
pub fn insertions(object: &CodeObject<'_>) -> anyhow::Result<Result<Vec<Insertion>, Vec<Blocker>>> {
    let program = match crate::rewrite::read_program(object)? {
        Ok(p) => p,
        Err(e) => return Ok(Err(vec![Blocker { address: None, what: "the program".into(), why: format!("{HAZARD} needs waits, and the code cannot be read to insert them: {e}") }])),
    };
    let target = program.target;
    let (mut insertions, mut blockers) = (Vec::new(), Vec::new());
    for f in &program.functions {
        for site in plan(f, &target) {
            let node = &f.blocks[site.at.block].nodes[site.at.index];
            let before = node.origin.input_address().expect("the input's instructions");
            let reader = print::print(&node.inst, &target, before);
            let writer = f.blocks[site.writer.block].nodes[site.writer.index].origin.input_address().expect("the input's instructions");
            match &f.opaque {
                Some(o) => blockers.push(Blocker {
                    address: Some(before),
                    what: reader,
                    why: format!("reads what {writer:#x} wrote too soon, and no wait can be inserted: {} keeps its size ({} at {:#x})", f.name, o.reason, o.address),
                }),
                None => insertions.push(Insertion { function: f.name.clone(), before, reader, writer, inserted: INSERTED, hazard: HAZARD }),
            }
        }
    }
    Ok(if blockers.is_empty() { Ok(insertions) } else { Err(blockers) })
}

/// The pass that inserts the waits [`plan`] finds.
pub struct TransUseWaits;

pub static TRANS_USE_WAITS: TransUseWaits = TransUseWaits;

impl Pass for TransUseWaits {
    fn name(&self) -> &'static str {
        "valu-trans-use-waits"
    }

    fn description(&self) -> &'static str {
        "insert s_waitcnt_depctr 0x0fff where a VALU reads a transcendental result too soon for FeatureVALUTransUseHazard"
    }

    fn run(&self, function: &mut Function, ctx: &Ctx<'_>, stats: &mut PassStats) {
        let sites = plan(function, ctx.target);
        if sites.is_empty() {
            return;
        }
        let Some(wait) = ctx.builder.borrow_mut().build(Opcode::S_WAITCNT_DEPCTR, &[(OperandName::simm16, Value::Imm(VA_VDST_0))]) else {
            stats.decline("s_waitcnt_depctr 0x0fff does not encode for this target");
            return;
        };
        // Back to front: an insertion moves only the instructions after it.
        for site in sites.iter().rev() {
            match function.insert_before(site.at, wait, self.name()) {
                Ok(()) => stats.applied += 1,
                Err(d) => stats.decline(d.reason()),
            }
        }
    }
}

/// `object` with the waits inserted, laid out, written and verified by the rewrite engine; or
/// why not.
pub fn apply(object: &CodeObject<'_>) -> anyhow::Result<Vec<u8>> {
    let options = crate::rewrite::Options { passes: vec![&TRANS_USE_WAITS], print_after: None, strip_debug_on_failure: false };
    let outcome = crate::rewrite::rewrite_object(object.data, &options)?;
    if let Some(why) = outcome.refused {
        anyhow::bail!("inserting the waits for {HAZARD}: {why}");
    }
    if let Some((why, n)) = outcome.stats.iter().flat_map(|s| s.declined.iter()).next() {
        anyhow::bail!("inserting the waits for {HAZARD}: {n} declined: {why}");
    }
    outcome.bytes.ok_or_else(|| anyhow::anyhow!("inserting the waits for {HAZARD}: nothing was inserted"))
}
