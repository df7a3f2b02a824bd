//! Retargeting: proving that a code object built for one processor is valid, unchanged, on
//! another member of its generic family, and writing it for that processor.
//!
//! LLVM's generic processors (AMDGPUUsage, "Generic processors") group chips that share an ISA
//! and list what differs inside each family: instructions some members lack, hazards some
//! members have. `HSA_OVERRIDE_GFX_VERSION` asserts the answer for every kernel of a process;
//! here it is proven per code object, and the file says which processor it is for.
//!
//! A code object retargets to a destination when:
//!
//! - the destination is in the source's family ([`family`]);
//! - every instruction of `.text`, decoded linearly as llvm-objdump does, decodes on the
//!   destination to the same instruction (so LLVM's disassembly for the destination equals the
//!   source's): an instruction the destination lacks (a dot product on gfx1011, an SALU float
//!   on gfx1102) does not decode there and blocks, at its address. The oracle is LLVM 19,
//!   or LLVM 22 for the processors LLVM 19 does not know ([`oracle`]: gfx950, gfx9-4-generic,
//!   gfx1153); where the two processors' records come from different LLVMs (gfx942's from
//!   LLVM 19, gfx950's from LLVM 22) the texts differ by printer convention alone, so the
//!   instructions are compared by mnemonic, size and operand values (`same_instruction`);
//! - no hazard the destination has and the source has not ([`hazards`]) can arise in the code,
//!   by a check per hazard, or the wait LLVM inserts for it is inserted where it can arise
//!   ([`mitigate`]: `FeatureVALUTransUseHazard`);
//! - DPP with an SGPR as src1 only where the destination allows it;
//! - each kernel's LDS fits the destination; the descriptor's register granules mean the same
//!   there (every member of a family encodes VGPRs and SGPRs in the same granules and
//!   addresses the same number: LLVM's `getVGPREncodingGranule`, `getAddressableNumVGPRs`);
//! - the target features (xnack, sramecc) the code was built with exist on the destination, or
//!   were `any`.
//!
//! Writing changes only `e_flags` (processor and feature bits) and the metadata's
//! `amdhsa.target` string, in place: every other byte stays; unless waits are inserted, which
//! the rewrite engine lays out (the code after them moves, branches are re-aimed) before the
//! checks run again on its output. A generic destination
//! (`gfx10-3-generic`) takes the checks of every member of its family and of the generic
//! processor itself, and is written as code object v6: `EI_ABIVERSION` 4, the generic version
//! in `e_flags`, `__oclc_ABI_version` 600, and the longer target string, for which the
//! dynamic-linking tables after the note move into the padding before `.rodata`
//! ([`crate::container::write::note_room`]): what clang-19 writes for the generic processor.
//! Bundles and host libraries get a new entry per destination
//! ([`crate::container::write::write_input_adding`]).

pub mod hazards;
pub mod mitigate;

use std::cell::OnceCell;

use serde::Serialize;

use crate::container::amdgpu::{
    EF_AMDGPU_FEATURE_SRAMECC_V4, EF_AMDGPU_FEATURE_XNACK_V4, EF_AMDGPU_GENERIC_VERSION, EF_AMDGPU_GENERIC_VERSION_OFFSET, EF_AMDGPU_MACH, ELFABIVERSION_AMDGPU_HSA_V6,
};
use crate::container::target_id::CodeObjectVersion;
use crate::container::CodeObject;
use crate::isa::operand::{decode_operands, Value};
use crate::isa::predicates;
use crate::isa::processor::{Generation, Processor, PROCESSORS};
use crate::isa::reg::Reg;
use crate::isa::table::{flag, OperandName};
use crate::isa::target_id::{FeatureSetting, TargetId};
use crate::isa::{print, Decoder, Target};

/// Each generic processor and the processors it covers (AMDGPUUsage's generic processor table).
pub const FAMILIES: &[(&str, &[&str])] = &[
    ("gfx9-generic", &["gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"]),
    ("gfx9-4-generic", &["gfx942", "gfx950"]),
    ("gfx10-1-generic", &["gfx1010", "gfx1011", "gfx1012", "gfx1013"]),
    ("gfx10-3-generic", &["gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"]),
    ("gfx11-generic", &["gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"]),
    ("gfx12-generic", &["gfx1200", "gfx1201"]),
];

/// The generic processor whose family `p` belongs to (itself, for a generic processor).
pub fn family(p: &Processor) -> Option<&'static str> {
    FAMILIES.iter().find(|(generic, members)| *generic == p.name || members.contains(&p.name)).map(|(g, _)| *g)
}

/// The other members of `p`'s family: the processors `p`'s code may retarget to.
pub fn siblings(p: &Processor) -> Vec<&'static Processor> {
    let Some((_, members)) = FAMILIES.iter().find(|(_, m)| m.contains(&p.name)) else { return Vec::new() };
    members.iter().filter(|m| **m != p.name).filter_map(|m| Processor::by_name(m)).collect()
}

/// LDS a workgroup may allocate, in bytes (`FeatureAddressableLocalMemorySize*`).
pub fn lds_bytes(p: &Processor) -> u32 {
    match p.generation {
        Generation::Gfx950 => 163_840,
        Generation::Gfx1250 => 327_680,
        _ => 65_536,
    }
}

/// VGPRs a work-item can address, for the processors of a generic family (LLVM's
/// `getAddressableNumVGPRs`): 512 on GFX90A-class CDNA, where the AGPRs extend the file, 256
/// elsewhere. (The larger wave32 VGPR files of gfx1100, gfx1101 and gfx1151 change the
/// allocation granule, 24 instead of 16, not what an instruction can name.)
pub fn addressable_vgprs(p: &Processor) -> u32 {
    match p.generation {
        Generation::Gfx90a | Generation::Gfx940 | Generation::Gfx950 => 512,
        _ => 256,
    }
}

/// What keeps a code object from a destination.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Blocker {
    /// The instruction's address, where one is to blame.
    pub address: Option<u64>,
    /// Its text on the source, or the kernel's name.
    pub what: String,
    pub why: String,
}

/// The answer for one destination.
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    pub destination: &'static str,
    /// The target id written (`gfx1032`, `gfx902:xnack-`), when retargeted.
    pub target: Option<String>,
    pub blockers: Vec<Blocker>,
    /// The waits the destination needs and the write inserts ([`mitigate`]), in address order.
    pub inserted: Vec<mitigate::Insertion>,
    /// The object with those waits inserted, laid out and proven again ([`check`]): what
    /// [`write()`] writes for the destination.
    #[serde(skip)]
    pub mitigated: Option<std::sync::Arc<Vec<u8>>>,
}

impl Verdict {
    pub fn retargets(&self) -> bool {
        self.blockers.is_empty()
    }
}

/// The generic version gfxpatch writes (`EF_AMDGPU_GENERIC_VERSION`): every generic processor
/// of AMDGPUUsage's table is at version 1.
const GENERIC_VERSION: u8 = 1;

/// Checks `object` against `dest`; on success, `Verdict::target` is the id to write.
///
/// A generic destination takes the checks of every member of its family (each blocker names
/// the member it is for) and of the generic processor itself.
///
/// Where the destination needs waits ([`mitigate`]), they are inserted here, by the rewrite
/// engine, and the output is checked again: it must retarget with no wait left to insert. So
/// a verdict that retargets is one the write keeps, and a wait that cannot be placed is a
/// blocker, not an error of the write.
pub fn check(object: &CodeObject<'_>, dest: &'static Processor) -> anyhow::Result<Verdict> {
    Ok(check_each(object, &[dest])?.pop().expect("one verdict per destination"))
}

/// [`check`] for each of `destinations`, in order, sharing the work they have in common: the
/// source's `.text` is decoded once, and the waits are placed once, in one rewrite, however
/// many destinations need them (where to put them is LLVM's rule for the hazard, the same for
/// every processor that has it: [`mitigate::plan`]), and that output decoded once for their
/// second proofs.
pub fn check_each(object: &CodeObject<'_>, destinations: &[&'static Processor]) -> anyhow::Result<Vec<Verdict>> {
    let text = Shared::default();
    // The object with the waits, made by the first destination that needs them.
    let mitigated: OnceCell<Result<std::sync::Arc<Vec<u8>>, String>> = OnceCell::new();
    let parsed: OnceCell<CodeObject<'_>> = OnceCell::new();
    let parsed_text = Shared::default();
    let mut verdicts = Vec::with_capacity(destinations.len());
    for &dest in destinations {
        let mut verdict = check_unmitigated(object, dest, Depth::Every, &text)?;
        if !verdict.retargets() || verdict.inserted.is_empty() {
            verdicts.push(verdict);
            continue;
        }
        let n = verdict.inserted.len();
        let block = |verdict: &mut Verdict, why: String| {
            verdict.blockers.push(Blocker { address: None, what: format!("{n} wait(s) for {}", mitigate::HAZARD), why });
            verdict.target = None;
            verdict.inserted.clear();
        };
        match mitigated.get_or_init(|| mitigate::apply(object).map(std::sync::Arc::new).map_err(|e| format!("{e:#}"))) {
            Err(e) => block(&mut verdict, format!("cannot be placed: {e}")),
            Ok(bytes) => {
                let output = match parsed.get() {
                    Some(o) => o,
                    None => {
                        let _ = parsed.set(CodeObject::parse(bytes)?);
                        parsed.get().expect("set above")
                    }
                };
                let again = check_unmitigated(output, dest, Depth::Every, &parsed_text)?;
                let left: Vec<String> = again
                    .blockers
                    .iter()
                    .map(|b| b.address.map_or_else(|| format!("{}: {}", b.what, b.why), |a| format!("{a:#x}: {}: {}", b.what, b.why)))
                    .chain(again.inserted.iter().map(|i| format!("{:#x} (output): `{}` still reads what {:#x} wrote too soon", i.before, i.reader, i.writer)))
                    .collect();
                if left.is_empty() {
                    verdict.mitigated = Some(std::sync::Arc::clone(bytes));
                } else {
                    block(&mut verdict, format!("inserted, the output does not retarget: {}", left.join("; ")));
                }
            }
        }
        verdicts.push(verdict);
    }
    Ok(verdicts)
}

/// [`check`] without placing the waits: which are needed, and what else blocks.
fn check_unmitigated<'a>(object: &CodeObject<'a>, dest: &'static Processor, depth: Depth, shared: &Shared<'a>) -> anyhow::Result<Verdict> {
    if !dest.is_generic() {
        return check_one(object, dest, depth, shared);
    }
    let mut verdict = check_one(object, dest, depth, shared)?;
    if verdict.retargets() || verdict.blockers.iter().any(|b| b.address.is_some()) {
        let members = FAMILIES.iter().find(|(g, _)| *g == dest.name).map_or(&[][..], |(_, m)| *m);
        for member in members.iter().filter(|m| **m != object.target.processor.name).filter_map(|m| Processor::by_name(m)) {
            let theirs = check_one(object, member, depth, shared)?;
            for b in theirs.blockers {
                if !verdict.blockers.contains(&b) {
                    verdict.blockers.push(b);
                }
            }
            // The generic object runs on every member: it takes the waits any of them needs.
            for i in theirs.inserted {
                if !verdict.inserted.contains(&i) {
                    verdict.inserted.push(i);
                }
            }
        }
        verdict.inserted.sort_by_key(|i| i.before);
    }
    if !verdict.retargets() {
        verdict.target = None;
        verdict.inserted.clear();
    }
    Ok(verdict)
}

/// How far a check goes once it knows the answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Depth {
    /// Every blocker: a report, a refusal with each place.
    Every,
    /// Up to the first blocker of the instructions: a survey (`gfxpatch info` shows the
    /// first). The verdict (retargets or not) and the first blocker are `Every`'s.
    FirstBlocker,
}

/// The checks for one processor (a member, or a generic processor's own instruction set).
fn check_one<'a>(object: &CodeObject<'a>, dest: &'static Processor, depth: Depth, shared: &Shared<'a>) -> anyhow::Result<Verdict> {
    let source = object.target.processor;
    let mut blockers: Vec<Blocker> = Vec::new();
    let block = |blockers: &mut Vec<Blocker>, address: Option<u64>, what: String, why: String| blockers.push(Blocker { address, what, why });
    let mut verdict = Verdict { destination: dest.name, target: None, blockers: Vec::new(), inserted: Vec::new(), mitigated: None };
    if dest.is_generic() && object.version != CodeObjectVersion::V5 {
        // v4 lays out the hidden kernel arguments differently; v6 is v5's layout.
        block(&mut blockers, None, object.version.to_string(), format!("{} needs code object v6, written from v5 only (v4 lays out the hidden kernel arguments differently)", dest.name));
    }
    if source.is_generic() || family(source).is_none() || family(source) != family(dest) {
        block(&mut blockers, None, source.name.into(), format!("{} is not in {}'s generic family", dest.name, source.name));
    }
    if object.os_abi != crate::container::elf::OsAbi::Hsa {
        // Graphics objects carry their resources in registers and PAL metadata, not in a
        // descriptor and `amdhsa.target`: nothing here writes those for another processor yet.
        block(&mut blockers, None, format!("{:?}", object.os_abi), "graphics (PAL and Mesa3D) code objects are not retargeted yet".into());
    } else if object.version < CodeObjectVersion::V4 {
        block(&mut blockers, None, object.version.to_string(), "code object v3 spells target features differently; not retargeted".into());
    }
    let dest_id = match destination_id(&object.target, dest) {
        Ok(id) => Some(id),
        Err(why) => {
            block(&mut blockers, None, object.target.to_string(), why);
            None
        }
    };
    if !blockers.is_empty() {
        verdict.blockers = blockers;
        return Ok(verdict);
    }
    let dest_id = dest_id.expect("checked above");
    let source_target = crate::rewrite::target_of(object)?;
    let dest_target = Target::from_target_id(&dest_id, source_target.wave64)?;
    let hazards = hazards::new_on(source, dest);

    // Every instruction of .text, as llvm-objdump walks it, decoded for the source once for
    // every destination.
    if shared.text.get().is_none() {
        let _ = shared.text.set(SourceText::decode(object, source_target)?);
    }
    let code = shared.text.get().expect("set above");
    let dest_decoder = Decoder::new(dest_target);
    let mut hazard_hits = hazards::Scan::new(&hazards, dest_target);
    let same_tables = predicates::llvm_version(source) == predicates::llvm_version(dest) && source.generation == dest.generation;
    let cross_llvm = predicates::llvm_version(source) != predicates::llvm_version(dest);
    // Processors with exactly the same candidates decode every word alike (gfx1030 and
    // gfx1031, gfx900 and gfx902): nothing to compare, only the hazards and DPP to look at.
    let alike = same_tables && code.decoder.decodes_alike(&dest_decoder);
    let mut stopped = false;
    'text: for section in &code.sections {
        for &(at, ref inst) in &section.insts {
            if depth == Depth::FirstBlocker && !blockers.is_empty() {
                stopped = true;
                break 'text;
            }
            let here = &section.bytes[at..];
            let len = inst.len().max(4);
            let address = section.address + at as u64;
            let text = || print::print(inst, &source_target, address);
            let difference = if alike {
                None
            } else {
                let theirs = dest_decoder.decode(here);
                // The same record of the same tables prints the same on both (one generation,
                // one wave size): compare texts only where the records differ.
                let same_record = same_tables && !inst.is_raw() && inst.encoding_index() == theirs.encoding_index() && theirs.len() == inst.len();
                let their_text = || print::print(&theirs, &dest_target, address);
                let differs = !same_record
                    && (theirs.len().max(4) != len || their_text() != text())
                    && !(cross_llvm && same_instruction(inst, &source_target, &theirs, &dest_target));
                differs.then(|| if theirs.is_raw() { format!("does not exist on {}", dest.name) } else { format!("decodes on {} as `{}`", dest.name, their_text()) })
            };
            if let Some(why) = difference {
                block(&mut blockers, Some(address), text(), why);
            } else {
                if !has_dpp_src1_sgpr(dest) && is_dpp_with_sgpr_src1(inst, &source_target) {
                    block(&mut blockers, Some(address), text(), format!("{} takes no SGPR as src1 of a DPP instruction", dest.name));
                }
                hazard_hits.see(inst, address, &text);
            }
        }
    }
    // A survey that has its first blocker needs no hazard's (they come after it).
    let hazard_hits = if stopped { Vec::new() } else { hazard_hits.finish(object) };
    for (hazard, hit) in hazard_hits {
        if hazard.is_mitigated() {
            // Where the code can trip it, the wait LLVM inserts; refused only where none fits.
            if shared.insertions.get().is_none() {
                let _ = shared.insertions.set(mitigate::insertions(object)?);
            }
            match shared.insertions.get().expect("set above").clone() {
                Ok(inserted) => verdict.inserted = inserted,
                Err(places) => blockers.extend(places.into_iter().map(|b| Blocker { why: format!("{} needs {}: {}", dest.name, hazard.name, b.why), ..b })),
            }
            continue;
        }
        block(&mut blockers, hit.address, hit.what, format!("{} needs {} ({}), which gfxpatch does not mitigate", dest.name, hazard.name, hazard.what));
    }
    for kernel in &object.kernels {
        let lds = kernel.descriptor.group_segment_fixed_size();
        if lds > lds_bytes(dest) {
            block(&mut blockers, None, kernel.name.to_owned(), format!("{lds} bytes of LDS; {} has {}", dest.name, lds_bytes(dest)));
        }
    }
    verdict.target = blockers.is_empty().then(|| dest_id.to_string());
    if !blockers.is_empty() {
        verdict.inserted.clear();
    }
    // What holds for the whole object (a hazard without a model, a kernel's LDS) first: it is
    // the decisive reason, whatever the instructions.
    blockers.sort_by_key(|b| b.address.is_some());
    verdict.blockers = blockers;
    Ok(verdict)
}

/// The LLVM release whose disassembly is the oracle for code on `p`: 19, gfxpatch's oracle,
/// for every processor it knows; 22 (Debian's `llvm-22`, 22.1.8) for gfx950, gfx9-4-generic and
/// gfx1153, which LLVM 19 does not know (`'gfx950' is not a recognized processor`).
///
/// gfx950's records are LLVM 22's (`predicates::llvm_version`). gfx9-4-generic's and gfx1153's
/// are LLVM 19's records with LLVM 22's feature sets: gfx9-4-generic is gfx942 without the FP8
/// conversions and `xf32` instructions, gfx1153 is gfx1152 without `point-sample-accel`, which
/// no instruction's predicate reads (a wait-count matter: see [`hazards`]). tests/retarget.rs
/// checks each against `llvm-objdump-22`: LLVM 22 disassembles every gfx942 fixture the same
/// for gfx942, gfx950 and gfx9-4-generic, and 400,000 random words the same for gfx1152 and
/// gfx1153.
pub fn oracle(p: &Processor) -> u8 {
    match p.name {
        "gfx950" | "gfx9-4-generic" | "gfx1153" => 22,
        _ if predicates::llvm_version(p) > 19 => 22,
        _ => 19,
    }
}

/// Whether `ours` (decoded for the source) and `theirs` (the same bytes decoded for the
/// destination, by another LLVM's records) are the same instruction: the same mnemonic,
/// encoding size and length, and every operand, in order, with the same name and value.
///
/// Where the records come from different LLVMs their texts may differ by printer convention
/// alone: LLVM 22 keeps a literal's encoding (`s_addc_u32 s1, s1, lit(0xffffffff)`) where
/// LLVM 19 prints the value it denotes (`-1`). What the instruction does is its mnemonic and
/// operands; anything else that differs (a renamed operand, another operand list) is refused.
fn same_instruction(ours: &crate::isa::Inst, our_target: &Target, theirs: &crate::isa::Inst, their_target: &Target) -> bool {
    let (Some(a), Some(b)) = (ours.encoding(), theirs.encoding()) else { return false };
    if a.mnemonic() != b.mnemonic() || a.bits != b.bits || ours.len() != theirs.len() {
        return false;
    }
    let operands = |inst: &crate::isa::Inst, e, target| decode_operands(e, inst.encoded_bits(), &inst.bytes()[inst.tail_at()..], target);
    let (Ok(x), Ok(y)) = (operands(ours, a, our_target), operands(theirs, b, their_target)) else { return false };
    let (x, y) = (x.as_slice(), y.as_slice());
    x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.name == q.name && p.value == q.value)
}

/// What the checks of one code object against several destinations compute once.
#[derive(Default)]
struct Shared<'a> {
    text: OnceCell<SourceText<'a>>,
    /// The waits [`mitigate`] would insert (they depend on the code, not the destination).
    insertions: OnceCell<Result<Vec<mitigate::Insertion>, Vec<Blocker>>>,
}

/// A code object's `.text` decoded for its own processor, linearly as llvm-objdump walks it:
/// made once and shared by the destinations checked against the object (a survey checks up
/// to seven).
struct SourceText<'a> {
    decoder: Decoder,
    sections: Vec<TextSection<'a>>,
}

struct TextSection<'a> {
    address: u64,
    bytes: &'a [u8],
    /// Each instruction with its offset into `bytes`.
    insts: Vec<(usize, crate::isa::Inst)>,
}

impl<'a> SourceText<'a> {
    fn decode(object: &CodeObject<'a>, target: Target) -> anyhow::Result<SourceText<'a>> {
        // The memoised decoder, which reads in place (`encode::Builder::decode` copies the
        // rest of the section per instruction: quadratic over a whole .text).
        let decoder = Decoder::new(target);
        let mut sections = Vec::new();
        for section in object.sections.iter().filter(|s| s.name == ".text") {
            let bytes = object
                .data
                .get(section.offset as usize..(section.offset + section.size) as usize)
                .ok_or_else(|| anyhow::anyhow!(".text at {:#x} ({} bytes) lies past the end of the file", section.offset, section.size))?;
            let mut insts = Vec::with_capacity(bytes.len() / 6);
            let mut at = 0usize;
            while at < bytes.len() {
                let inst = decoder.decode(&bytes[at..]);
                insts.push((at, inst));
                at += inst.len().max(4);
            }
            sections.push(TextSection { address: section.address, bytes, insts });
        }
        Ok(SourceText { decoder, sections })
    }
}

/// The target id for `dest` with the source's feature settings, or why they do not carry over.
fn destination_id(source: &TargetId, dest: &'static Processor) -> Result<TargetId, String> {
    let carry = |name: &str, setting: FeatureSetting, supported: bool| match (setting, supported) {
        (FeatureSetting::Unsupported, true) => Ok(FeatureSetting::Any),
        (FeatureSetting::Unsupported | FeatureSetting::Any, false) => Ok(FeatureSetting::Unsupported),
        (s, true) => Ok(s),
        (s, false) => Err(format!("built with {name}{} but {} has no {name}", if s == FeatureSetting::On { "+" } else { "-" }, dest.name)),
    };
    Ok(TargetId {
        processor: dest,
        xnack: carry("xnack", source.xnack, dest.supports_xnack)?,
        sramecc: carry("sramecc", source.sramecc, dest.supports_sramecc)?,
        generic_version: if dest.is_generic() { GENERIC_VERSION } else { 0 },
    })
}

/// GFX11.5+ and GFX12 allow an SGPR as src1 of DPP (`FeatureDPPSrc1SGPR`).
fn has_dpp_src1_sgpr(p: &Processor) -> bool {
    matches!(p.generation, Generation::Gfx11_5 | Generation::Gfx12 | Generation::Gfx1250)
}

fn is_dpp_with_sgpr_src1(inst: &crate::isa::Inst, target: &Target) -> bool {
    let Some(e) = inst.encoding() else { return false };
    if !e.flags.has(flag::DPP) {
        return false;
    }
    let Ok(ops) = decode_operands(e, inst.encoded_bits(), &inst.bytes()[inst.tail_at()..], target) else { return true };
    e.operands.iter().zip(ops.as_slice()).any(|(o, op)| o.name == OperandName::src1 && matches!(op.value, Value::Reg(Reg::Sgpr { .. })))
}

/// `e_ident[EI_ABIVERSION]`.
const EI_ABIVERSION: usize = 8;

/// The code object's bytes for `dest`: `e_flags` and the metadata's target string, in place;
/// for a generic processor also `EI_ABIVERSION` (v6) and a longer target string.
pub fn write(object: &CodeObject<'_>, verdict: &Verdict) -> anyhow::Result<Vec<u8>> {
    let target = verdict.target.as_deref().ok_or_else(|| anyhow::anyhow!("{} is not a destination of this code object", verdict.destination))?;
    let dest = Processor::by_name(verdict.destination).expect("a known processor");
    let mitigated;
    let object = match (&verdict.mitigated, verdict.inserted.is_empty()) {
        // The waits, inserted and proven by `check`: the header and metadata are its to change.
        (Some(bytes), false) => {
            mitigated = CodeObject::parse(bytes)?;
            &mitigated
        }
        (None, true) => object,
        _ => anyhow::bail!("a verdict for {} with waits to insert but no output that has them (made by `check`?)", dest.name),
    };
    let id = destination_id(&object.target, dest).map_err(|e| anyhow::anyhow!(e))?;
    let mut out = object.data.to_vec();
    let xnack = match id.xnack {
        FeatureSetting::Unsupported => 0,
        FeatureSetting::Any => 0x100,
        FeatureSetting::Off => 0x200,
        FeatureSetting::On => 0x300,
    };
    let sramecc = match id.sramecc {
        FeatureSetting::Unsupported => 0,
        FeatureSetting::Any => 0x400,
        FeatureSetting::Off => 0x800,
        FeatureSetting::On => 0xc00,
    };
    let generic = u32::from(id.generic_version) << EF_AMDGPU_GENERIC_VERSION_OFFSET;
    let e_flags = (object.e_flags & !(EF_AMDGPU_MACH | EF_AMDGPU_FEATURE_XNACK_V4 | EF_AMDGPU_FEATURE_SRAMECC_V4 | EF_AMDGPU_GENERIC_VERSION)) | u32::from(dest.mach) | xnack | sramecc | generic;
    out[48..52].copy_from_slice(&e_flags.to_le_bytes());
    if dest.is_generic() {
        // Code object v6: the generic version field exists from v6 on.
        out[EI_ABIVERSION] = ELFABIVERSION_AMDGPU_HSA_V6;
        // The device libraries' `__oclc_ABI_version` reads 600 in a v6 object, as clang-19
        // writes it; v5 and v6 share every layout it selects (the libraries test `< 500`).
        for sym in object.symbols.iter().filter(|s| s.name == "__oclc_ABI_version" && s.size == 4) {
            if let Some(at) = object.file_offset(usize::from(sym.section_index), sym.value, 4).map(|a| a as usize)
                && out[at..at + 4] == 500u32.to_le_bytes()
            {
                out[at..at + 4].copy_from_slice(&600u32.to_le_bytes());
            }
        }
    }
    // amdhsa.target: the same triple, the new processor and features. Same length or refused
    // (the note lies before .text; a longer one would move everything).
    let (Some(metadata), Some((offset, len))) = (&object.metadata, object.metadata_range) else {
        anyhow::bail!("no NT_AMDGPU_METADATA note to name the target in");
    };
    let old = metadata.target.as_deref().ok_or_else(|| anyhow::anyhow!("the metadata names no amdhsa.target"))?;
    let (triple, _) = old.rsplit_once("--").ok_or_else(|| anyhow::anyhow!("amdhsa.target `{old}` is not TRIPLE--PROCESSOR"))?;
    let new = format!("{triple}--{target}");
    if new.len() != old.len() {
        return write_longer_target(object, &out, metadata, &new);
    }
    let desc = &mut out[offset as usize..(offset + len) as usize];
    let hits: Vec<usize> = desc.windows(old.len()).enumerate().filter(|(_, w)| *w == old.as_bytes()).map(|(i, _)| i).collect();
    let [at] = hits[..] else {
        anyhow::bail!("amdhsa.target `{old}` appears {} times in the metadata", hits.len());
    };
    desc[at..at + new.len()].copy_from_slice(new.as_bytes());
    Ok(out)
}

/// `bytes` (the object with its new header) with `amdhsa.target` set to `new`, a string of
/// another length (a generic processor's name is longer): the metadata note is re-encoded, and
/// the tables after it move into the padding before `.rodata` where it needs the room.
fn write_longer_target(object: &CodeObject<'_>, bytes: &[u8], metadata: &crate::container::metadata::Metadata, new: &str) -> anyhow::Result<Vec<u8>> {
    use crate::container::write::{note_room, registers};
    let mut document = metadata.document()?;
    let rmpv::Value::Map(root) = &mut document else { anyhow::bail!("the metadata is not a map") };
    let slot = root.iter_mut().find(|(k, _)| k.as_str() == Some("amdhsa.target")).ok_or_else(|| anyhow::anyhow!("the metadata names no amdhsa.target"))?;
    slot.1 = rmpv::Value::from(new);
    let mut encoded = Vec::new();
    rmpv::encode::write_value(&mut encoded, &document)?;
    let (_, old_len) = object.metadata_range.expect("the metadata was read from a note");
    let grow = (encoded.len() as u64).next_multiple_of(4).saturating_sub(old_len.next_multiple_of(4));
    let header = CodeObject::parse(bytes)?;
    let roomy = note_room::make_room_after_note(&header, grow)?;
    let roomy = CodeObject::parse(&roomy)?;
    Ok(registers::with_metadata(&roomy, &document)?)
}

/// Every processor a code object could be retargeted to, with its verdict: the other members
/// of its family, then the generic processor when every member takes the code (its verdict
/// is then the generic processor's own checks: the members' are already done).
///
/// For a survey (`gfxpatch info`): where waits are needed, the verdict lists them but they
/// are not placed (a rewrite per object and destination); `check` places them.
pub fn candidates(object: &CodeObject<'_>) -> anyhow::Result<Vec<Verdict>> {
    let text = Shared::default();
    let mut verdicts: Vec<Verdict> = siblings(object.target.processor).into_iter().map(|p| check_unmitigated(object, p, Depth::FirstBlocker, &text)).collect::<anyhow::Result<_>>()?;
    if !verdicts.is_empty()
        && verdicts.iter().all(Verdict::retargets)
        && let Some(generic) = family(object.target.processor).and_then(Processor::by_name)
    {
        verdicts.push(check_one(object, generic, Depth::FirstBlocker, &text)?);
    }
    Ok(verdicts)
}

/// A processor by name, or the list of names.
pub fn processor(name: &str) -> anyhow::Result<&'static Processor> {
    Processor::by_name(name).ok_or_else(|| {
        let known: Vec<&str> = PROCESSORS.iter().filter(|p| family(p).is_some()).map(|p| p.name).collect();
        anyhow::anyhow!("unknown processor `{name}` (processors in a generic family: {})", known.join(", "))
    })
}
