//! Hazards some members of a generic family have and others have not, and how we tell that
//! code cannot trigger one.
//!
//! The table is LLVM's: the `Feature*Bug` and `Feature*Hazard` subtarget features of each
//! processor's `FeatureISAVersion*` set in `AMDGPU.td` (llvm-project 001c38d), restricted to
//! the ones that differ inside a generic family; and, from LLVM 22 (the oracle for gfx950 and
//! gfx1153), `FeaturePointSampleAccel` and the wait states `GCNHazardRecognizer` gives gfx950
//! (`hasGFX950Insts`) and not gfx942. Code built for a processor with the hazard already
//! avoids it; code built without it may not. For each such hazard, [`Scan`] looks for the
//! instructions that could trigger it; where one occurs, the retarget is refused at that
//! instruction, or the wait LLVM inserts for it is inserted ([`super::mitigate`]).
//!
//! gfx950 against gfx942 in LLVM 22's `GCNHazardRecognizer` (every `hasGFX950Insts` condition):
//! `checkPermlaneHazards` reads only `v_permlane16_swap`/`v_permlane32_swap`, which gfx942 has
//! not (its code cannot contain them); `hasCvtScaleForwardingHazard` reads only the scaled
//! conversions, gfx950's too; the transcendental, dst-sel forwarding and SGPR co-execution
//! rules (`hasTransForwardingHazard`, `hasDstSelForwardingHazard`, `hasVDecCoExecHazard`) hold
//! for every GFX940 processor alike. What remains are the MFMA tables (`checkMAIHazards90A`,
//! `checkMAIVALUHazards`): an XDL result read by an XDL's src C, or by a VALU, memory or export
//! instruction, needs one more wait state on gfx950 (`NumPasses + 3 + (NumPasses != 2 &&
//! IsGFX950)`, ...), a 16x16 DGEMM result eight more (19 against 11). `llc-22` shows it: the
//! same `v_mfma_f32_32x32x8_f16` is followed by `s_nop 9` for gfx942, `s_nop 10` for gfx950.
//! gfxpatch has no pass-count table for the MFMAs, so it refuses gfx942 code with an MFMA for
//! gfx950 (and gfx9-4-generic) at the first one.

use crate::container::CodeObject;
use crate::isa::operand::{decode_operands, Value};
use crate::isa::processor::Processor;
use crate::isa::reg::Reg;
use crate::isa::table::{flag, OperandName};
use crate::isa::{Inst, Target};

/// One hazard and where it applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hazard {
    /// LLVM's feature name.
    pub name: &'static str,
    pub what: &'static str,
    /// The processors that have it.
    pub on: &'static [&'static str],
    trigger: Trigger,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Trigger {
    /// Any instruction whose mnemonic starts with one of these.
    Mnemonic(&'static [&'static str]),
    /// Any transcendental VALU instruction (its result read too soon by a VALU).
    Trans,
    /// A 64-bit multiply-add whose destination overlaps one of its sources.
    MadOverlap,
    /// A wave32 kernel (the condition is about user SGPR initialisation; not modelled).
    Wave32Kernel,
}

/// Every hazard that differs inside a family.
pub static HAZARDS: &[Hazard] = &[
    Hazard {
        name: "FeatureVALUTransUseHazard",
        what: "a wait before a VALU reads what a transcendental instruction wrote",
        on: &["gfx1100", "gfx1101", "gfx1102", "gfx1103"],
        trigger: Trigger::Trans,
    },
    Hazard {
        name: "FeatureMADIntraFwdBug",
        what: "v_mad_u64_u32/v_mad_i64_i32 must not write a register they read (LLVM makes the destination early-clobber)",
        on: &["gfx1100", "gfx1101", "gfx1102", "gfx1103"],
        trigger: Trigger::MadOverlap,
    },
    Hazard {
        name: "FeatureMSAALoadDstSelBug",
        what: "image_msaa_load destination selection",
        on: &["gfx1100", "gfx1101", "gfx1102", "gfx1103"],
        trigger: Trigger::Mnemonic(&["image_msaa_load"]),
    },
    Hazard {
        name: "FeaturePrivEnabledTrap2NopBug",
        what: "s_trap 2 is a no-op when privileged mode is enabled",
        on: &["gfx1100", "gfx1101", "gfx1102", "gfx1103"],
        trigger: Trigger::Mnemonic(&["s_trap"]),
    },
    Hazard {
        name: "FeatureUserSGPRInit16Bug",
        what: "wave32 kernels need at least 16 user and system SGPRs initialised",
        on: &["gfx1100", "gfx1102"],
        trigger: Trigger::Wave32Kernel,
    },
    Hazard {
        name: "FeatureRequiredExportPriority",
        what: "exports need raised priority",
        on: &["gfx1150", "gfx1151", "gfx1152", "gfx1153"],
        trigger: Trigger::Mnemonic(&["exp"]),
    },
    Hazard {
        name: "FeaturePointSampleAccel",
        what: "image samples the hardware may accelerate return out of order with other loads, and need the waits LLVM 22 adds for them (SIInsertWaitcnts)",
        on: &["gfx1150", "gfx1151", "gfx1152"],
        // A superset of the samples LLVM marks `PointSampleAccel`.
        trigger: Trigger::Mnemonic(&["image_sample", "image_gather4"]),
    },
    Hazard {
        name: "FeatureGFX950Insts",
        what: "MFMA results need more wait states before they are read (GCNHazardRecognizer's XDL and DGEMM tables with hasGFX950Insts)",
        on: &["gfx950"],
        trigger: Trigger::Mnemonic(&["v_mfma", "v_smfmac"]),
    },
    Hazard {
        name: "FeatureCvtFP8VOP1Bug",
        what: "FP8 conversions in VOP1 form",
        on: &["gfx942"],
        trigger: Trigger::Mnemonic(&["v_cvt_f32_fp8", "v_cvt_f32_bf8", "v_cvt_pk_f32_fp8", "v_cvt_pk_f32_bf8"]),
    },
];

impl Hazard {
    /// Whether gfxpatch inserts the wait LLVM inserts for it ([`super::mitigate`]) instead of
    /// refusing.
    pub fn is_mitigated(&self) -> bool {
        self.trigger == Trigger::Trans
    }
}

/// The hazards `dest` has that `source` has not.
pub fn new_on(source: &Processor, dest: &Processor) -> Vec<&'static Hazard> {
    HAZARDS.iter().filter(|h| h.on.contains(&dest.name) && !h.on.contains(&source.name)).collect()
}

/// Where a hazard could trigger.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    pub address: Option<u64>,
    pub what: String,
}

/// Looks for the triggers of some hazards in a stream of instructions.
pub struct Scan<'h> {
    hazards: &'h [&'static Hazard],
    target: Target,
    hits: Vec<Option<Hit>>,
}

impl<'h> Scan<'h> {
    pub fn new(hazards: &'h [&'static Hazard], target: Target) -> Scan<'h> {
        Scan { hazards, target, hits: vec![None; hazards.len()] }
    }

    /// One instruction at `address`; `text` prints it (only called for a hit).
    #[inline]
    pub fn see(&mut self, inst: &Inst, address: u64, text: &dyn Fn() -> String) {
        // Most retargets add no hazard: this runs for every instruction of every object.
        if self.hazards.is_empty() {
            return;
        }
        let Some(e) = inst.encoding() else { return };
        let mnemonic = e.mnemonic();
        for (h, hit) in self.hazards.iter().zip(self.hits.iter_mut()) {
            if hit.is_some() {
                continue;
            }
            let triggers = match h.trigger {
                // `exp` and its forms (`exp_row`), not `v_exp_f32`'s prefix.
                Trigger::Mnemonic(prefixes) => prefixes.iter().any(|p| mnemonic.strip_prefix(p).is_some_and(|rest| rest.is_empty() || rest.starts_with('_'))),
                Trigger::Trans => e.flags.has(flag::TRANS),
                Trigger::MadOverlap => (mnemonic.starts_with("v_mad_u64_u32") || mnemonic.starts_with("v_mad_i64_i32")) && mad_overlaps(inst, &self.target),
                Trigger::Wave32Kernel => false,
            };
            if triggers {
                *hit = Some(Hit { address: Some(address), what: text() });
            }
        }
    }

    /// Each hazard that can trigger, with the first place it can.
    pub fn finish(self, object: &CodeObject<'_>) -> Vec<(&'static Hazard, Hit)> {
        let generation = object.target.processor.generation;
        self.hazards
            .iter()
            .zip(self.hits)
            .filter_map(|(h, hit)| {
                let hit = match h.trigger {
                    Trigger::Wave32Kernel => object
                        .kernels
                        .iter()
                        .find(|k| k.descriptor.wave_size(generation) == 32)
                        .map(|k| Hit { address: Some(k.entry_address), what: format!("kernel {} (wave32)", k.name) }),
                    _ => hit,
                };
                hit.map(|hit| (*h, hit))
            })
            .collect()
    }
}

/// Whether a 64-bit multiply-add's destination overlaps a source; unreadable operands count
/// as overlapping.
fn mad_overlaps(inst: &Inst, target: &Target) -> bool {
    let Some(e) = inst.encoding() else { return true };
    let Ok(ops) = decode_operands(e, inst.encoded_bits(), &inst.bytes()[inst.tail_at()..], target) else { return true };
    let reg = |name: OperandName| {
        e.operands.iter().zip(ops.as_slice()).find(|(o, _)| o.name == name).and_then(|(_, op)| match op.value {
            Value::Reg(Reg::Vgpr { index, count }) => Some((index, count)),
            _ => None,
        })
    };
    let Some((d, dn)) = reg(OperandName::vdst) else { return true };
    [OperandName::src0, OperandName::src1, OperandName::src2]
        .into_iter()
        .filter_map(reg)
        .any(|(s, sn)| d < s + u16::from(sn) && s < d + u16::from(dn))
}
