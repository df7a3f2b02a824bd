//! Hazards a patch may create outside the GFX9 wait-state model ([`super::keep_wait_states`]):
//! the rest of LLVM 19's `GCNHazardRecognizer` for GFX8, GFX9, GFX10, GFX11 and GFX12, each
//! rule the search LLVM makes (`getWaitStatesSince`, `hasHazard`: back from an instruction
//! through its block and into every predecessor, each block once, until the hazard expires) and
//! the fix LLVM inserts.
//!
//! Only what a patch brought about is fixed: every rule runs over the function as read and as
//! patched, and a hazardous pair counts when the patched function has it and the input had not
//! (a pair with an instruction the patch put in or replaced is always new). Code the compiler
//! emitted was correct for its target, and stays as it is. A fix may make another pair (a
//! `s_mov_b32 null, 0` is an SALU write), so the search runs again until nothing new is found.
//!
//! | generation | rule (LLVM) | fix |
//! | --- | --- | --- |
//! | GFX8, GFX9 | `checkGetRegHazards`, `checkSetRegHazards`: `s_setreg` then `s_getreg`/`s_setreg` of the same register (2) | `s_nop` |
//! | GFX8, GFX9 | `checkReadM0Hazards`: SALU write of M0 then `s_sendmsg`, `s_ttracedata`, GDS (1); on GFX9 also `v_interp`, `s_movrel`, `ds_*_addtid`, LDS DMA | `s_nop` |
//! | GFX8, GFX9, GFX10.1 | `checkSoftClauseHazards` (XNACK on or any): an SMEM (before GFX10 also VMEM) clause writing what it reads | `s_nop 0` |
//! | GFX8, GFX9 | `checkVALUHazardsHelper`: a VMEM/FLAT store, then a VALU write of its data (1, 2 on GFX940/950) | `s_nop` |
//! | GFX940, GFX950 | `checkVALUHazards`: VDecCoExec (VALU SGPR/VCC write then VALU read, 2; EXEC then `v_readlane`, 4; VGPR then `v_readlane` src0, 1) and DstSelForwarding (1) | `s_nop` |
//! | GFX10 | `checkFPAtomicToDenormModeHazard`: FP atomic then `s_denorm_mode` (3) | `s_nop` |
//! | GFX10.1 | `fixVMEMtoScalarWriteHazards` | `s_waitcnt_depctr 0xffe3` |
//! | GFX10.1 | `fixSMEMtoVectorWriteHazards` | `s_mov_b32 null, 0` |
//! | GFX10.1 | `fixVcmpxExecWARHazard` | `s_waitcnt_depctr 0xfffe` |
//! | GFX10.1 | `fixVcmpxPermlaneHazards` | `v_mov_b32 vN, vN` (the permlane's src0) |
//! | GFX10.1 | `fixLdsBranchVmemWARHazard` | `s_waitcnt_vscnt null, 0x0` |
//! | GFX10.1 | `checkNSAtoVMEMHazard` (1) | `s_nop` |
//! | GFX11 | `fixVALUTransUseHazard` (gfx1100-1103; [`crate::retarget::mitigate::plan`]) | `s_waitcnt_depctr 0xfff` |
//! | GFX11 | `fixVALUPartialForwardingHazard` (wave64) | `s_waitcnt_depctr 0xfff` |
//! | GFX11 | `fixVALUMaskWriteHazard` (wave64), after the SALU write | `s_waitcnt_depctr 0xfffe` |
//! | GFX11 | `fixLdsDirectVMEMHazard` | `s_waitcnt_depctr 0xffe3` |
//! | GFX11, GFX12 | `fixWMMAHazards` | `v_nop` |
//! | GFX11, GFX12 | `fixLdsDirectVALUHazard` (LLVM lowers the instruction's `wait_vdst`) | refused |
//! | GFX12 | `fixLdsDirectVMEMHazard` (LLVM sets the instruction's `wait_vsrc` to 0) | refused |
//!
//! Fail closed: what is not modelled refuses a patch that could create it ([`unmodelled`]).

use std::collections::{HashMap, HashSet};

use crate::ir::{Function, InstRef, Origin};
use crate::isa::parse::Parser;
use crate::isa::processor::Generation;
use crate::isa::table::{flag, Encoding, OperandName};
use crate::isa::operand::Value;
use crate::isa::{print, Target};
use crate::pass::peephole::matcher::{nop_weight, Facts, Unit, UnitSet, EXEC_HI, EXEC_LO, M0, SCC, VCC_HI, VCC_LO, VGPR0};

use super::{PatchError, NAME};

/// What is put in to clear a hazard.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Fix {
    /// Wait states: an `s_nop` before the instruction.
    Nops(usize),
    /// An instruction (as LLVM prints it) before the instruction.
    Before(String),
    /// An instruction after the instruction (LLVM's fix for `VALUMaskWriteHazard`).
    After(String),
    /// No fix gfxpatch can make: why.
    Refuse(String),
}

/// A hazard found: the instruction it is at, the earlier one it pairs with, LLVM's name for it.
#[derive(Clone, Debug)]
struct Found {
    at: InstRef,
    producer: InstRef,
    rule: &'static str,
    fix: Fix,
}

/// One instruction as the rules see it.
struct Info {
    facts: Facts,
    encoding: Option<&'static Encoding>,
    mnemonic: &'static str,
}

impl Info {
    fn of(inst: &crate::isa::Inst, target: &Target) -> Info {
        let encoding = inst.encoding();
        Info { facts: Facts::of(inst, target), encoding, mnemonic: encoding.map_or("", |e| e.mnemonic()) }
    }

    fn has(&self, bits: u64) -> bool {
        self.encoding.is_some_and(|e| e.flags.has(bits))
    }

    fn valu(&self) -> bool {
        self.facts.valu
    }

    fn salu(&self) -> bool {
        self.facts.salu
    }

    fn sopp(&self) -> bool {
        self.has(flag::SOPP)
    }

    fn vmem(&self) -> bool {
        self.has(flag::MUBUF | flag::MTBUF | flag::MIMG | flag::VIMAGE | flag::VSAMPLE)
    }

    fn flat(&self) -> bool {
        self.has(flag::FLAT)
    }

    /// FLAT addressing a segment (`global_*`, `scratch_*`): LLVM's `isSegmentSpecificFLAT`.
    fn segment_flat(&self) -> bool {
        self.flat() && (self.mnemonic.starts_with("global_") || self.mnemonic.starts_with("scratch_"))
    }

    fn ds(&self) -> bool {
        self.has(flag::DS)
    }

    fn exp(&self) -> bool {
        self.has(flag::EXP)
    }

    fn smem(&self) -> bool {
        self.has(flag::SMRD)
    }

    fn branch(&self) -> bool {
        self.has(flag::ISBRANCH)
    }

    fn imm(&self, name: OperandName) -> Option<i64> {
        match self.facts.operands.as_ref()?.value(name)? {
            Value::Imm(v) | Value::InlineInt(v) => Some(v),
            Value::Literal(l) => Some(i64::from(l)),
            _ => None,
        }
    }

    /// The registers of operand `name`, as units.
    fn reg_units(&self, name: OperandName) -> UnitSet {
        match self.facts.operands.as_ref().and_then(|o| o.value(name)) {
            Some(Value::Reg(r)) => UnitSet::of(crate::pass::peephole::matcher::unit_range(r)),
            _ => UnitSet::EMPTY,
        }
    }

    fn depctr(&self) -> Option<i64> {
        matches!(self.mnemonic, "s_waitcnt_depctr" | "s_wait_alu").then(|| self.imm(OperandName::simm16)).flatten()
    }

    /// `s_waitcnt_depctr` with `va_vdst` (bits 15:12) 0.
    fn waits_va_vdst(&self) -> bool {
        self.depctr().is_some_and(|v| (v >> 12) & 0xf == 0)
    }

    /// `s_waitcnt_depctr` with `vm_vsrc` (bits 4:2) 0.
    fn waits_vm_vsrc(&self) -> bool {
        self.depctr().is_some_and(|v| (v >> 2) & 0x7 == 0)
    }

    /// `s_waitcnt_depctr` with `sa_sdst` (bit 0) 0.
    fn waits_sa_sdst(&self) -> bool {
        self.depctr().is_some_and(|v| v & 1 == 0)
    }

    /// VMEM, FLAT, DS or export: `va_vdst` is 0 after it.
    fn zeroes_va_vdst(&self) -> bool {
        self.vmem() || self.flat() || self.ds() || self.exp() || self.waits_va_vdst()
    }

    fn writes_sgpr(&self) -> bool {
        self.facts.writes.iter().any(|u| u < VGPR0 && u != SCC)
    }

    fn reads_exec(&self) -> bool {
        self.facts.reads.contains(EXEC_LO) || self.facts.reads.contains(EXEC_HI)
    }

    fn writes_exec(&self) -> bool {
        self.facts.writes.contains(EXEC_LO) || self.facts.writes.contains(EXEC_HI)
    }

    fn vgprs_read(&self) -> UnitSet {
        only(&self.facts.reads, |u| u >= VGPR0)
    }

    fn vgprs_written(&self) -> UnitSet {
        only(&self.facts.writes, |u| u >= VGPR0)
    }

    /// `s_setreg*`'s or `s_getreg`'s hardware register id.
    fn hwreg(&self) -> Option<i64> {
        self.imm(OperandName::simm16).map(|v| v & 0x3f)
    }

    fn setreg(&self) -> bool {
        self.mnemonic.starts_with("s_setreg")
    }

    fn wmma(&self) -> bool {
        self.mnemonic.starts_with("v_wmma") || self.mnemonic.starts_with("v_swmmac")
    }
}

fn only(set: &UnitSet, keep: impl Fn(Unit) -> bool) -> UnitSet {
    let mut out = UnitSet::EMPTY;
    for u in set.iter().filter(|&u| keep(u)) {
        out.insert(u);
    }
    out
}

/// A function as the rules search it.
struct Cx<'f> {
    function: &'f Function,
    infos: Vec<Vec<Info>>,
    predecessors: Vec<Vec<usize>>,
    target: &'f Target,
    /// For `fixLdsBranchVmemWARHazard`, by the kind that follows: the branches with an LDS (1)
    /// or VMEM (2) access before them and no wait between (found once per function).
    lds_vmem_branches: [std::cell::OnceCell<HashSet<(usize, usize)>>; 2],
}

impl<'f> Cx<'f> {
    fn new(function: &'f Function, target: &'f Target) -> Cx<'f> {
        let infos = function.blocks.iter().map(|b| b.nodes.iter().map(|n| Info::of(&n.inst, target)).collect()).collect();
        Cx { function, infos, predecessors: function.predecessors(), target, lds_vmem_branches: Default::default() }
    }

    fn info(&self, at: InstRef) -> &Info {
        &self.infos[at.block][at.index]
    }

    /// LLVM's `getWaitStatesSince`: from just before `at`, back through its block and on into
    /// the predecessors (each block once), the fewest wait states (`weight`) to an instruction
    /// `hazard` accepts, and that instruction; `None` where `expired` ends every path first.
    fn since(&self, at: InstRef, hazard: &mut dyn FnMut(&Info, InstRef) -> bool, expired: &dyn Fn(&Info, usize) -> bool, weight: &dyn Fn(&Info) -> usize) -> Option<(usize, InstRef)> {
        let mut best: Option<(usize, InstRef)> = None;
        let mut visited: HashSet<usize> = HashSet::new();
        let mut stack = vec![(at.block, at.index, 0usize)];
        'walk: while let Some((b, end, mut states)) = stack.pop() {
            for i in (0..end).rev() {
                let info = &self.infos[b][i];
                if hazard(info, InstRef { block: b, index: i }) {
                    if best.is_none_or(|(s, _)| states < s) {
                        best = Some((states, InstRef { block: b, index: i }));
                    }
                    continue 'walk;
                }
                states += weight(info);
                if expired(info, states) {
                    continue 'walk;
                }
            }
            for &p in &self.predecessors[b] {
                if visited.insert(p) {
                    stack.push((p, self.infos[p].len(), states));
                }
            }
        }
        best
    }

    /// [`Self::since`] counting every instruction as LLVM's `getNumWaitStates` does, expired
    /// after `limit` wait states: the wait states missing before `at`, and the producer.
    fn missing(&self, at: InstRef, limit: usize, hazard: &mut dyn FnMut(&Info, InstRef) -> bool) -> Option<(usize, InstRef)> {
        let (states, producer) = self.since(at, hazard, &|_, s| s >= limit, &|i| nop_weight(&i.facts))?;
        (states < limit).then_some((limit - states, producer))
    }
}

/// A rule: looks at one instruction and finds what it pairs with.
type Rule = fn(&Cx<'_>, InstRef) -> Option<Found>;

fn found(at: InstRef, producer: InstRef, rule: &'static str, fix: Fix) -> Option<Found> {
    Some(Found { at, producer, rule, fix })
}

fn setreg_hazards(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    let i = cx.info(at);
    if i.mnemonic != "s_getreg_b32" && !i.setreg() {
        return None;
    }
    let id = i.hwreg()?;
    let (n, p) = cx.missing(at, 2, &mut |p, _| p.setreg() && p.hwreg() == Some(id))?;
    found(at, p, if i.setreg() { "checkSetRegHazards" } else { "checkGetRegHazards" }, Fix::Nops(n))
}

fn read_m0_hazards(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    let i = cx.info(at);
    let m = i.mnemonic;
    let gds = i.ds() && (m.starts_with("ds_gws") || m.starts_with("ds_ordered_count") || i.imm(OperandName::gds).is_some_and(|g| g != 0));
    let sendmsg = m.starts_with("s_sendmsg") || m == "s_ttracedata" || gds;
    let gfx9 = matches!(cx.target.generation(), Generation::Gfx9 | Generation::Gfx90a | Generation::Gfx940 | Generation::Gfx950);
    let lds_dma = i.valu() && (i.has(flag::MUBUF) || i.flat());
    let movrel = i.has(flag::VINTRP) || m.starts_with("s_movrel") || m == "ds_write_addtid_b32" || m == "ds_read_addtid_b32" || lds_dma;
    if !(sendmsg || (gfx9 && movrel)) {
        return None;
    }
    let (n, p) = cx.missing(at, 1, &mut |p, _| p.salu() && p.facts.writes.contains(M0))?;
    found(at, p, "checkReadM0Hazards", Fix::Nops(n))
}

fn store_data_hazards(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    let i = cx.info(at);
    if !i.valu() {
        return None;
    }
    let written = i.vgprs_written();
    if written == UnitSet::EMPTY {
        return None;
    }
    let limit = if matches!(cx.target.generation(), Generation::Gfx940 | Generation::Gfx950) { 2 } else { 1 };
    // Any store of the data it reads (LLVM: more than 8 bytes, MUBUF/MTBUF without an SGPR
    // soffset): a superset, so at most a wait state LLVM would not insert.
    let (n, p) = cx.missing(at, limit, &mut |p, _| p.has(flag::MAYSTORE) && p.has(flag::MUBUF | flag::MTBUF | flag::FLAT | flag::MIMG) && p.vgprs_read().intersects(&written))?;
    found(at, p, "checkVALUHazardsHelper", Fix::Nops(n))
}

/// GFX940/950 (`hasVDecCoExecHazard`): a VALU write of an SGPR or VCC then a VALU read of it
/// (2); of a VGPR then `v_readlane`/`v_readfirstlane` reading it (1); of EXEC then
/// `v_readlane`/`v_readfirstlane`/`v_writelane` (4).
fn vdec_co_exec(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    let i = cx.info(at);
    if !i.valu() {
        return None;
    }
    let mut worst: Option<(usize, InstRef)> = None;
    let mut need = |limit: usize, read: UnitSet| {
        if read == UnitSet::EMPTY {
            return;
        }
        if let Some((n, p)) = cx.missing(at, limit, &mut |p, _| p.valu() && p.facts.writes.intersects(&read))
            && worst.is_none_or(|(m, _)| n > m)
        {
            worst = Some((n, p));
        }
    };
    need(2, only(&i.facts.reads, |u| u < VGPR0 && u != EXEC_LO && u != EXEC_HI && u != SCC));
    let m = i.mnemonic;
    let readlane = m.starts_with("v_readlane") || m.starts_with("v_readfirstlane");
    if readlane {
        need(1, only(&i.reg_units(OperandName::src0), |u| u >= VGPR0));
    }
    if readlane || m.starts_with("v_writelane") {
        let mut exec = UnitSet::EMPTY;
        exec.insert(EXEC_LO);
        exec.insert(EXEC_HI);
        need(4, exec);
    }
    let (n, p) = worst?;
    found(at, p, "checkVALUHazards (VDecCoExec)", Fix::Nops(n))
}

/// GFX940/950 (`hasDstSelForwardingHazard`): a VALU writing part of a register (SDWA `dst_sel`
/// other than DWORD, or `op_sel` on the destination) then a VALU reading it (1).
fn dst_sel_forwarding(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    let i = cx.info(at);
    if !i.valu() {
        return None;
    }
    let read = only(&i.facts.reads, |u| u >= VGPR0);
    if read == UnitSet::EMPTY {
        return None;
    }
    let partial = |p: &Info| {
        if !p.valu() {
            return false;
        }
        if p.has(flag::SDWA) {
            return p.imm(OperandName::dst_sel).is_some_and(|d| d != 6);
        }
        p.encoding.is_some_and(|e| e.operands.iter().any(|o| o.name == OperandName::op_sel)) && p.imm(OperandName::src0_modifiers).is_some_and(|m| m & 8 != 0)
    };
    let (n, p) = cx.missing(at, 1, &mut |p, _| partial(p) && p.reg_units(OperandName::vdst).intersects(&read))?;
    found(at, p, "checkVALUHazards (DstSelForwarding)", Fix::Nops(n))
}

/// `checkSoftClauseHazards` (XNACK on or any): a run of SMEM (or, before GFX10, VMEM/FLAT)
/// instructions may be replayed as a clause, so none of them may write what one of them reads,
/// and a store does not join a clause that writes anything. LLVM breaks the run with a wait
/// state.
fn soft_clause(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    use crate::isa::target_id::FeatureSetting;
    if !matches!(cx.target.xnack, FeatureSetting::On | FeatureSetting::Any) {
        return None;
    }
    let i = cx.info(at);
    let smem = i.smem();
    let vmem = (i.vmem() || i.flat()) && cx.target.generation() < Generation::Gfx10_1;
    if !smem && !vmem {
        return None;
    }
    let joins = |p: &Info| if smem { p.smem() } else { p.vmem() || p.flat() };
    let (mut defs, mut uses) = (UnitSet::EMPTY, UnitSet::EMPTY);
    let mut first = None;
    for k in (0..at.index).rev() {
        let p = &cx.infos[at.block][k];
        if !joins(p) {
            break;
        }
        defs.union(&p.facts.writes);
        uses.union(&p.facts.reads);
        first = Some(InstRef { block: at.block, index: k });
    }
    let producer = first?;
    if defs == UnitSet::EMPTY {
        return None;
    }
    if !i.has(flag::MAYSTORE) {
        defs.union(&i.facts.writes);
        uses.union(&i.facts.reads);
        if !defs.intersects(&uses) {
            return None;
        }
    }
    found(at, producer, "checkSoftClauseHazards", Fix::Nops(1))
}

fn fp_atomic_to_denorm_mode(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    if cx.info(at).mnemonic != "s_denorm_mode" {
        return None;
    }
    let fp_atomic = |p: &Info| {
        let m = p.mnemonic;
        (p.vmem() || p.flat()) && m.contains("atomic") && ["_f32", "_f64", "_f16", "_bf16", "fmin", "fmax", "fcmpswap"].iter().any(|s| m.contains(s))
    };
    let waits = |p: &Info| p.valu() || p.mnemonic.starts_with("s_waitcnt") || p.mnemonic == "s_wait_idle";
    let (states, p) = cx.since(at, &mut |p, _| fp_atomic(p), &|p, s| s >= 3 || waits(p), &|p| nop_weight(&p.facts))?;
    (states < 3).then(|| Found { at, producer: p, rule: "checkFPAtomicToDenormModeHazard", fix: Fix::Nops(3 - states) })
}

fn vmem_to_scalar_write(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    let i = cx.info(at);
    if !(i.salu() || i.smem()) || !i.writes_sgpr() {
        return None;
    }
    let defs = only(&i.facts.writes, |u| u < VGPR0 && u != SCC);
    let expired = |p: &Info, _| p.valu() || (p.mnemonic == "s_waitcnt" && p.imm(OperandName::simm16) == Some(0)) || p.waits_vm_vsrc();
    let (_, p) = cx.since(at, &mut |p, _| (p.vmem() || p.ds() || p.flat()) && p.facts.reads.intersects(&defs), &expired, &|p| nop_weight(&p.facts))?;
    found(at, p, "fixVMEMtoScalarWriteHazards", Fix::Before("s_waitcnt_depctr 0xffe3".into()))
}

fn smem_to_vector_write(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    let i = cx.info(at);
    if !i.valu() || !i.writes_sgpr() {
        return None;
    }
    let defs = only(&i.facts.writes, |u| u < VGPR0 && u != SCC && u != EXEC_LO && u != EXEC_HI);
    if defs == UnitSet::EMPTY {
        return None;
    }
    let expired = |p: &Info, _| {
        if !p.salu() {
            return false;
        }
        match p.mnemonic {
            "s_setvskip" | "s_version" | "s_waitcnt_vscnt" | "s_waitcnt_vmcnt" | "s_waitcnt_expcnt" => false,
            "s_waitcnt_lgkmcnt" => p.imm(OperandName::simm16) == Some(0) && p.reg_units(OperandName::sdst) == UnitSet::EMPTY,
            // lgkmcnt, bits 13:8 on GFX10 (a superset: any other count kept waits).
            "s_waitcnt" => p.imm(OperandName::simm16).is_some_and(|v| (v >> 8) & 0x3f == 0),
            _ => !p.sopp(),
        }
    };
    let (_, p) = cx.since(at, &mut |p, _| p.smem() && p.facts.reads.intersects(&defs), &expired, &|p| nop_weight(&p.facts))?;
    found(at, p, "fixSMEMtoVectorWriteHazards", Fix::Before("s_mov_b32 null, 0".into()))
}

fn vcmpx_exec_war(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    let i = cx.info(at);
    if !i.valu() || !i.writes_exec() {
        return None;
    }
    let expired = |p: &Info, _| (p.valu() && p.writes_sgpr()) || p.waits_sa_sdst();
    let (_, p) = cx.since(at, &mut |p, _| !p.valu() && p.reads_exec(), &expired, &|p| nop_weight(&p.facts))?;
    found(at, p, "fixVcmpxExecWARHazard", Fix::Before("s_waitcnt_depctr 0xfffe".into()))
}

fn vcmpx_permlane(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    let i = cx.info(at);
    if !i.mnemonic.starts_with("v_permlane") {
        return None;
    }
    let expired = |p: &Info, _| p.valu() && !p.mnemonic.starts_with("v_nop");
    let (_, p) = cx.since(at, &mut |p, _| p.has(flag::VOPC) && p.writes_exec(), &expired, &|p| nop_weight(&p.facts))?;
    let src0 = i.reg_units(OperandName::src0).iter().next().filter(|&u| u >= VGPR0);
    let fix = match src0 {
        Some(u) => Fix::Before(format!("v_mov_b32_e32 v{0}, v{0}", u - VGPR0)),
        None => Fix::Refuse("its src0 is not a VGPR to move onto itself".into()),
    };
    found(at, p, "fixVcmpxPermlaneHazards", fix)
}

/// 1 for LDS, 2 for VMEM or segment FLAT, 0 otherwise (LLVM's `IsHazardInst`).
fn lds_or_vmem(i: &Info) -> u8 {
    if i.ds() {
        1
    } else if i.vmem() || i.segment_flat() {
        2
    } else {
        0
    }
}

fn store_count_wait_zero(i: &Info) -> bool {
    i.mnemonic == "s_waitcnt_vscnt" && i.imm(OperandName::simm16) == Some(0) && i.reg_units(OperandName::sdst) == UnitSet::EMPTY
}

fn lds_branch_vmem_war(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    let kind = lds_or_vmem(cx.info(at));
    if kind == 0 {
        return None;
    }
    // The branches with the other kind before them on some path (and no wait between).
    let hazardous = cx.lds_vmem_branches[usize::from(kind - 1)].get_or_init(|| {
        let branches = cx.function.blocks.iter().enumerate().flat_map(|(b, block)| (0..block.nodes.len()).map(move |i| InstRef { block: b, index: i }));
        branches
            .filter(|&r| cx.info(r).branch())
            .filter(|&r| {
                let expired = |p: &Info, _| lds_or_vmem(p) == kind || store_count_wait_zero(p);
                cx.since(r, &mut |p, _| {
                    let k = lds_or_vmem(p);
                    k != 0 && k != kind
                }, &expired, &|_| 1)
                .is_some()
            })
            .map(|r| (r.block, r.index))
            .collect()
    });
    if hazardous.is_empty() {
        return None;
    }
    let expired = |p: &Info, _| lds_or_vmem(p) != 0 || store_count_wait_zero(p);
    let (_, p) = cx.since(at, &mut |p, r| p.branch() && hazardous.contains(&(r.block, r.index)), &expired, &|_| 1)?;
    found(at, p, "fixLdsBranchVmemWARHazard", Fix::Before("s_waitcnt_vscnt null, 0x0".into()))
}

fn nsa_to_vmem(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    let i = cx.info(at);
    if !i.has(flag::MUBUF | flag::MTBUF) || i.imm(OperandName::offset).is_none_or(|o| o & 6 == 0) {
        return None;
    }
    let nsa = |p: &Info| p.has(flag::MIMG) && p.facts.inst.len() >= 16;
    let (n, p) = cx.missing(at, 1, &mut |p, _| nsa(p))?;
    found(at, p, "checkNSAtoVMEMHazard", Fix::Nops(n))
}

/// Operands a mask is read from: VCC for the VOP2 and DPP forms, src2 for VOP3.
fn mask_read(i: &Info) -> UnitSet {
    let m = i.mnemonic;
    let masked = ["v_cndmask_b32", "v_cndmask_b16", "v_add_co_ci_u32", "v_sub_co_ci_u32", "v_subrev_co_ci_u32", "v_addc_co_u32", "v_subb_co_u32", "v_subbrev_co_u32", "v_div_fmas_f32", "v_div_fmas_f64"];
    if !masked.contains(&m) {
        return UnitSet::EMPTY;
    }
    let src2 = i.reg_units(OperandName::src2);
    if src2 != UnitSet::EMPTY && !m.starts_with("v_div_fmas") {
        return only(&src2, |u| u < VGPR0);
    }
    let mut vcc = UnitSet::EMPTY;
    vcc.insert(VCC_LO);
    vcc.insert(VCC_HI);
    vcc
}

fn valu_mask_write(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    let i = cx.info(at);
    if !cx.target.wave64 || !i.salu() {
        return None;
    }
    let sdst = only(&i.reg_units(OperandName::sdst), |u| u < VGPR0 && u != EXEC_LO && u != EXEC_HI && u != M0);
    if sdst == UnitSet::EMPTY {
        return None;
    }
    let expired = |p: &Info, _| {
        if p.waits_sa_sdst() {
            return true;
        }
        if !p.valu() {
            return false;
        }
        let sgpr = p.facts.reads.iter().any(|u| u < VGPR0 && u != EXEC_LO && u != EXEC_HI && u != SCC);
        let literal = p.facts.operands.as_ref().is_some_and(|o| o.as_slice().iter().any(|op| matches!(op.value, Value::Literal(_))));
        sgpr || literal
    };
    let (_, p) = cx.since(at, &mut |p, _| p.valu() && mask_read(p).intersects(&sdst), &expired, &|p| nop_weight(&p.facts))?;
    found(at, p, "fixVALUMaskWriteHazard", Fix::After("s_waitcnt_depctr 0xfffe".into()))
}

fn valu_partial_forwarding(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    let i = cx.info(at);
    if !cx.target.wave64 || !i.valu() {
        return None;
    }
    // Each VGPR source register, as its first unit (LLVM: distinct source registers).
    let sources: Vec<UnitSet> = [OperandName::src0, OperandName::src1, OperandName::src2, OperandName::src0X, OperandName::vsrc1X, OperandName::vsrc2X, OperandName::src0Y, OperandName::vsrc1Y, OperandName::vsrc2Y]
        .into_iter()
        .map(|n| only(&i.reg_units(n), |u| u >= VGPR0))
        .filter(|s| *s != UnitSet::EMPTY)
        .fold(Vec::new(), |mut v: Vec<UnitSet>, s| {
            if !v.contains(&s) {
                v.push(s);
            }
            v
        });
    if sources.len() <= 1 {
        return None;
    }
    // LLVM's state: where each source was written (in VALUs back), where EXEC was.
    const INTV1_PLUS_2: usize = 2;
    const INTV3: usize = 4;
    const NO_HAZARD: usize = 8;
    #[derive(Clone)]
    struct State {
        defs: Vec<Option<usize>>,
        exec: Option<usize>,
        valus: usize,
    }
    let mut stack = vec![(at.block, at.index, State { defs: vec![None; sources.len()], exec: None, valus: 0 })];
    let mut visited: HashSet<usize> = HashSet::new();
    while let Some((b, end, mut s)) = stack.pop() {
        let mut expired = false;
        for k in (0..end).rev() {
            let p = &cx.infos[b][k];
            if s.valus > NO_HAZARD || p.zeroes_va_vdst() {
                expired = true;
                break;
            }
            let mut changed = false;
            if p.valu() {
                for (d, src) in s.defs.iter_mut().zip(&sources) {
                    if d.is_none() && p.facts.writes.intersects(src) {
                        *d = Some(s.valus);
                        changed = true;
                    }
                }
            } else if p.salu() && s.exec.is_none() && s.defs.iter().any(Option::is_some) && p.writes_exec() {
                s.exec = Some(s.valus);
                changed = true;
            }
            if s.valus > INTV3 && s.defs.iter().all(Option::is_none) {
                expired = true;
                break;
            }
            if changed && let Some(exec) = s.exec {
                let pre = s.defs.iter().flatten().filter(|&&d| d >= exec).min().copied();
                let post = s.defs.iter().flatten().filter(|&&d| d < exec).min().copied();
                if let Some(post) = post {
                    let intv2 = exec - post - 1;
                    if post > INTV3 || intv2 > INTV1_PLUS_2 {
                        expired = true;
                        break;
                    }
                    if let Some(pre) = pre {
                        let intv1 = pre - exec;
                        if intv1 > INTV1_PLUS_2 || intv1 + intv2 > INTV1_PLUS_2 {
                            expired = true;
                            break;
                        }
                        return found(at, InstRef { block: b, index: k }, "fixVALUPartialForwardingHazard", Fix::Before("s_waitcnt_depctr 0xfff".into()));
                    }
                }
            }
            s.valus += usize::from(p.valu());
        }
        if !expired {
            for &pred in &cx.predecessors[b] {
                if visited.insert(pred) {
                    stack.push((pred, cx.infos[pred].len(), s.clone()));
                }
            }
        }
    }
    None
}

fn wmma_hazards(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    let i = cx.info(at);
    if !i.wmma() {
        return None;
    }
    let mut read = i.reg_units(OperandName::src0);
    read.union(&i.reg_units(OperandName::src1));
    if cx.target.generation() >= Generation::Gfx12 && i.mnemonic.starts_with("v_swmmac") {
        read.union(&i.reg_units(OperandName::src2));
    }
    let (_, p) = cx.since(at, &mut |p, _| p.wmma() && p.reg_units(OperandName::vdst).intersects(&read), &|p, _| p.valu(), &|p| nop_weight(&p.facts))?;
    found(at, p, "fixWMMAHazards", Fix::Before("v_nop".into()))
}

fn lds_direct_valu(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    let i = cx.info(at);
    if !i.has(flag::LDSDIR) {
        return None;
    }
    let vdst = i.reg_units(OperandName::vdst);
    let encoded = i.imm(OperandName::waitvdst)? as usize;
    let trans = std::cell::Cell::new(false);
    let expired = |p: &Info, s: usize| s >= 15 || p.vmem() || p.flat() || p.ds() || p.exp();
    let (count, p) = cx.since(at, &mut |p, _| {
        if !p.valu() {
            return false;
        }
        trans.set(trans.get() || p.has(flag::TRANS));
        p.facts.reads.intersects(&vdst) || p.facts.writes.intersects(&vdst)
    }, &expired, &|p| usize::from(p.valu()))?;
    let needed = if trans.get() { 0 } else { count.min(15) };
    (encoded > needed).then(|| Found {
        at,
        producer: p,
        rule: "fixLdsDirectVALUHazard",
        fix: Fix::Refuse(format!("LLVM lowers its wait_vdst to {needed} (it is {encoded}); gfxpatch does not re-encode it")),
    })
}

fn lds_direct_vmem(cx: &Cx<'_>, at: InstRef) -> Option<Found> {
    let i = cx.info(at);
    if !i.has(flag::LDSDIR) {
        return None;
    }
    let vdst = i.reg_units(OperandName::vdst);
    let gfx12 = cx.target.generation() >= Generation::Gfx12;
    let expired = |p: &Info, _| {
        p.valu() || p.exp() || (p.mnemonic == "s_waitcnt" && p.imm(OperandName::simm16) == Some(0)) || p.waits_vm_vsrc() || (gfx12 && p.has(flag::LDSDIR) && p.imm(OperandName::waitvsrc) == Some(0))
    };
    let (_, p) = cx.since(at, &mut |p, _| (p.vmem() || p.flat() || p.ds()) && (p.facts.reads.intersects(&vdst) || p.facts.writes.intersects(&vdst)), &expired, &|p| nop_weight(&p.facts))?;
    if gfx12 {
        if i.imm(OperandName::waitvsrc) == Some(0) {
            return None;
        }
        return found(at, p, "fixLdsDirectVMEMHazard", Fix::Refuse("LLVM sets its wait_vsrc to 0; gfxpatch does not re-encode it".into()));
    }
    found(at, p, "fixLdsDirectVMEMHazard", Fix::Before("s_waitcnt_depctr 0xffe3".into()))
}

/// Whether the processor has LLVM's `FeatureVALUTransUseHazard` (gfx1100-1103, and the
/// generic GFX11 target that stands for them).
fn has_trans_use_hazard(target: &Target) -> bool {
    let name = target.processor.name;
    crate::retarget::hazards::HAZARDS.iter().any(|h| h.name == crate::retarget::mitigate::HAZARD && h.on.contains(&name)) || name == "gfx11-generic"
}

/// The rules for `target`.
fn rules(target: &Target) -> Vec<Rule> {
    match target.generation() {
        Generation::Gfx8 | Generation::Gfx9 | Generation::Gfx90a => vec![setreg_hazards, read_m0_hazards, store_data_hazards, soft_clause],
        Generation::Gfx940 | Generation::Gfx950 => vec![setreg_hazards, read_m0_hazards, store_data_hazards, vdec_co_exec, dst_sel_forwarding, soft_clause],
        Generation::Gfx10_1 => vec![soft_clause, fp_atomic_to_denorm_mode, vmem_to_scalar_write, smem_to_vector_write, vcmpx_exec_war, vcmpx_permlane, lds_branch_vmem_war, nsa_to_vmem],
        Generation::Gfx10_3 => vec![fp_atomic_to_denorm_mode],
        Generation::Gfx11 | Generation::Gfx11_5 => vec![valu_partial_forwarding, valu_mask_write, lds_direct_vmem, lds_direct_valu, wmma_hazards],
        _ => vec![lds_direct_vmem, lds_direct_valu, wmma_hazards],
    }
}

/// Every hazard of `function` the rules find, with `FeatureVALUTransUseHazard`'s
/// ([`crate::retarget::mitigate::plan`], the retarget's search).
fn plan(function: &Function, target: &Target) -> Vec<Found> {
    let cx = Cx::new(function, target);
    let rules = rules(target);
    let mut out = Vec::new();
    for (b, block) in function.blocks.iter().enumerate() {
        for i in 0..block.nodes.len() {
            let at = InstRef { block: b, index: i };
            out.extend(rules.iter().filter_map(|rule| rule(&cx, at)));
        }
    }
    if has_trans_use_hazard(target) {
        out.extend(crate::retarget::mitigate::plan(function, target).into_iter().map(|s| Found { at: s.at, producer: s.writer, rule: "fixVALUTransUseHazard", fix: Fix::Before("s_waitcnt_depctr 0xfff".into()) }));
    }
    out
}

/// An instruction read from the input unchanged: its address.
fn unchanged(function: &Function, at: InstRef) -> Option<u64> {
    match function.blocks[at.block].nodes[at.index].origin {
        Origin::Input(a) => Some(a),
        _ => None,
    }
}

fn text_at(function: &Function, target: &Target, at: InstRef) -> String {
    let node = &function.blocks[at.block].nodes[at.index];
    print::print(&node.inst, target, node.origin.input_address().unwrap_or(function.blocks[at.block].address))
}

fn place(function: &Function, at: InstRef) -> String {
    match function.blocks[at.block].nodes[at.index].origin.input_address() {
        Some(a) => format!("{a:#x}"),
        None => "(put in by the patch)".to_owned(),
    }
}

/// Clears the hazards the patch created in `function` (`before` is the function as read): puts
/// in LLVM's fix for each and notes it, or refuses naming the function, the place and the
/// instruction.
pub(super) fn keep(function: &mut Function, before: &Function, target: &Target, notes: &mut Vec<String>) -> Result<(), PatchError> {
    if let Some(why) = unmodelled(function, target) {
        return Err(PatchError::Refused(why));
    }
    // The input's own pairs: (rule, consumer, producer) by address, and the wait states short.
    let had: HashMap<(&'static str, u64, u64), usize> = plan(before, target)
        .into_iter()
        .filter_map(|f| {
            let short = if let Fix::Nops(n) = f.fix { n } else { usize::MAX };
            Some(((f.rule, unchanged(before, f.at)?, unchanged(before, f.producer)?), short))
        })
        .collect();
    let parser = Parser::new(*target);
    // A fix puts in instructions other rules may see: until nothing new is found (a fix never
    // needs a fix of its own kind, so a few rounds settle).
    for _round in 0..4 {
        let mut new: Vec<Found> = Vec::new();
        for mut f in plan(function, target) {
            // A fix put after the instruction (LLVM makes it once, as it passes): in place.
            if let Fix::After(t) = &f.fix {
                let next = InstRef { block: f.at.block, index: f.at.index + 1 };
                if function.node(next).is_some() && text_at(function, target, next) == *t {
                    continue;
                }
            }
            let key = unchanged(function, f.at).zip(unchanged(function, f.producer)).map(|(a, p)| (f.rule, a, p));
            match (key.and_then(|k| had.get(&k)), &mut f.fix) {
                (Some(&usize::MAX), _) => continue,
                (Some(&short), Fix::Nops(n)) => {
                    if *n <= short {
                        continue;
                    }
                    *n -= short;
                }
                (Some(_), _) => continue,
                (None, _) => {}
            }
            new.push(f);
        }
        if new.is_empty() {
            return Ok(());
        }
        if let Some(f) = new.iter().find(|f| matches!(f.fix, Fix::Refuse(_))) {
            let Fix::Refuse(why) = &f.fix else { unreachable!() };
            return Err(PatchError::Refused(format!(
                "{}: at {} (`{}`): the patch brings `{}` ({}) within reach: {}: {why}",
                function.name,
                place(function, f.at),
                text_at(function, target, f.at),
                text_at(function, target, f.producer),
                place(function, f.producer),
                f.rule
            )));
        }
        // One fix of each kind per instruction, the most wait states; back to front so that
        // an insertion moves only what comes after it.
        let mut by_place: std::collections::BTreeMap<(usize, usize), Vec<Found>> = std::collections::BTreeMap::new();
        for f in new {
            let list = by_place.entry((f.at.block, f.at.index)).or_default();
            match &f.fix {
                Fix::Nops(n) => match list.iter_mut().find_map(|g| if let Fix::Nops(m) = &mut g.fix { Some(m) } else { None }) {
                    Some(m) => *m = (*m).max(*n),
                    None => list.push(f),
                },
                fix if list.iter().any(|g| g.fix == *fix) => {}
                _ => list.push(f),
            }
        }
        for ((block, index), list) in by_place.into_iter().rev() {
            let at = InstRef { block, index };
            let name = function.name.clone();
            let consumer = text_at(function, target, at);
            let address = place(function, at);
            for f in &list {
                let producer = format!("`{}` at {}", text_at(function, target, f.producer), place(function, f.producer));
                let (text, after) = match &f.fix {
                    Fix::Nops(n) => (format!("s_nop {}", n - 1), false),
                    Fix::Before(t) => (t.clone(), false),
                    Fix::After(t) => (t.clone(), true),
                    Fix::Refuse(_) => unreachable!(),
                };
                let refused = |why: String| PatchError::Refused(format!("{}: at {address} (`{consumer}`): {} after {producer}: cannot put in `{text}`: {why}", name, f.rule));
                let inst = parser.parse(&text).map_err(|e| refused(e.message))?.inst;
                let result = if after { function.insert_after(at, inst, NAME) } else { function.insert_before(at, inst, NAME) };
                result.map_err(|d| refused(d.reason().to_owned()))?;
                notes.push(format!("{}: inserted {text} {} `{consumer}` at {address} ({}: the patch brought {producer} within reach)", function.name, if after { "after" } else { "before" }, f.rule));
            }
        }
    }
    Err(PatchError::Refused(format!("{}: the hazard fixes did not settle after 4 rounds", function.name)))
}

/// The hazard classes gfxpatch does not model on `target` that the patched `function` could
/// have: why the patch is refused, if so. A class counts only where the patch put in, replaced
/// or moved something (a same-length replacement of an instruction no class involves passes).
fn unmodelled(function: &Function, target: &Target) -> Option<String> {
    let changed: Vec<InstRef> = function
        .blocks
        .iter()
        .enumerate()
        .flat_map(|(b, block)| (0..block.nodes.len()).map(move |i| InstRef { block: b, index: i }))
        .filter(|&r| !matches!(function.blocks[r.block].nodes[r.index].origin, Origin::Input(_)))
        .collect();
    let grew = function.edits.iter().any(|e| e.kind != crate::ir::EditKind::Replace);
    let name = target.processor.name;
    // GFX11.5's export priority (LLVM's `fixRequiredExportPriority`): the priority raised
    // around exports; an export put in, or code moved in a function with exports, is not
    // modelled.
    if matches!(name, "gfx1150" | "gfx1151" | "gfx1152" | "gfx1153" | "gfx11-generic") {
        let exports = |i: &crate::isa::Inst| i.encoding().is_some_and(|e| e.flags.has(flag::EXP) || e.mnemonic() == "s_setprio");
        if let Some(r) = changed.iter().find(|r| exports(&function.blocks[r.block].nodes[r.index].inst)) {
            return Some(format!(
                "{}: at {} (`{}`): an export or s_setprio put in or replaced on {name}, whose export priority (LLVM's fixRequiredExportPriority) gfxpatch does not model",
                function.name,
                place(function, *r),
                text_at(function, target, *r)
            ));
        }
        if grew && function.nodes().any(|n| exports(&n.inst)) {
            return Some(format!("{}: the patch moves code in a function with exports on {name}, whose export priority (LLVM's fixRequiredExportPriority) gfxpatch does not model", function.name));
        }
    }
    None
}
