//! Passes: one [`Pass`] trait and one ordered [`registry`]. A pass edits functions through the
//! edit API (`ir::edit`), which records every change; it counts what it applied and what it
//! declined, by reason, for the report.

pub mod instrument;
pub mod patch;
pub mod peephole;
mod nops;

use std::collections::BTreeMap;

use crate::ir::{Function, Program};
use crate::isa::Target;
use crate::isa::encode::Builder;

pub use nops::{InsertNops, RemoveNops};
pub use peephole::matcher::RuleStats;
pub use peephole::pass::Peephole;

/// What a pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PassStats {
    pub name: &'static str,
    pub applied: u64,
    /// Declined rewrites by reason.
    pub declined: BTreeMap<String, u64>,
    /// Per rule (the peephole pass): matched, applied, declined by reason.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub rules: BTreeMap<String, RuleStats>,
    /// One line per rewrite and per declined match, for `--explain` (when the pass records them).
    #[serde(skip)]
    pub explain: Vec<String>,
}

impl PassStats {
    pub fn decline(&mut self, reason: &str) {
        *self.declined.entry(reason.to_owned()).or_insert(0) += 1;
    }

    /// Adds another run's counts (of the same pass on another function or object).
    pub fn merge(&mut self, other: &PassStats) {
        self.applied += other.applied;
        for (k, v) in &other.declined {
            *self.declined.entry(k.clone()).or_insert(0) += v;
        }
        for (name, r) in &other.rules {
            let t = self.rules.entry(name.clone()).or_default();
            t.matched += r.matched;
            t.applied += r.applied;
            for (k, v) in &r.declined {
                *t.declined.entry(k).or_insert(0) += v;
            }
        }
        self.explain.extend(other.explain.iter().cloned());
    }

    /// These counts as they stand when the object they were made in is not written (its rewrite
    /// was refused, or it no longer fits its slot): nothing was applied, every rewrite the pass
    /// made is declined with `reason`.
    pub fn as_refused(&self, reason: &'static str) -> PassStats {
        let mut out = self.clone();
        if out.applied > 0 {
            *out.declined.entry(reason.to_owned()).or_insert(0) += out.applied;
            out.applied = 0;
        }
        for r in out.rules.values_mut() {
            if r.applied > 0 {
                *r.declined.entry(reason).or_insert(0) += r.applied;
                r.applied = 0;
            }
        }
        out.explain.clear();
        out
    }
}

/// What a pass may look at besides the function.
pub struct Ctx<'a> {
    pub target: &'a Target,
    /// Builds the instructions a pass inserts, through the encoder (one per program: it owns
    /// a decoder for its checks).
    pub builder: std::cell::RefCell<Builder>,
    /// For the probe passes: the registers no function of the program names (see
    /// [`instrument::Unnamed`]); the default (nothing known) for other passes.
    pub unnamed: instrument::Unnamed,
}

/// A rewrite of one function at a time.
pub trait Pass: Sync {
    fn name(&self) -> &'static str;
    /// One line for `--help` and reports.
    fn description(&self) -> &'static str;
    fn run(&self, function: &mut Function, ctx: &Ctx<'_>, stats: &mut PassStats);
    /// Runs over every function of `program`, in order. A pass with work to do once per
    /// program (the peephole resolves its rules for the target) overrides this.
    fn run_program(&self, program: &mut Program, ctx: &Ctx<'_>, stats: &mut PassStats) {
        for f in &mut program.functions {
            self.run(f, ctx, stats);
        }
    }
    /// Whether the pass takes back out code an earlier rewrite put in (`patch -R`). Then a
    /// kernel's VGPR count that only the code taken out explained is lowered to what the code
    /// left needs (`rewrite::writer::lowerings` says when); after any other pass counts are
    /// only ever raised.
    fn takes_code_back_out(&self) -> bool {
        false
    }
}

/// Every pass, in the order they are documented.
pub fn registry() -> &'static [&'static dyn Pass] {
    static REGISTRY: [&dyn Pass; 7] = [
        &InsertNops,
        &RemoveNops,
        &peephole::pass::BUILTIN,
        &instrument::COUNT_BLOCKS_ALL,
        &instrument::COUNT_EVERY_BLOCK_ALL,
        &instrument::COUNT_KERNEL_ALL,
        &instrument::TRACE_MEMORY_ALL,
    ];
    &REGISTRY
}

/// The pass called `name`.
pub fn find(name: &str) -> Option<&'static dyn Pass> {
    registry().iter().copied().find(|p| p.name() == name)
}

/// Runs `pass` over every function of `program`.
pub fn run(pass: &dyn Pass, program: &mut Program) -> PassStats {
    let target = program.target;
    let unnamed = if instrument::is_probe_pass(pass.name()) { instrument::Unnamed::of(program) } else { instrument::Unnamed::default() };
    let ctx = Ctx { target: &target, builder: std::cell::RefCell::new(Builder::new(target)), unnamed };
    let mut stats = PassStats { name: pass.name(), ..PassStats::default() };
    pass.run_program(program, &ctx, &mut stats);
    stats
}
