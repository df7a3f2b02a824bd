//! Which pseudocode an instruction means on a generation, and which stored texts we refuse.
//!
//! The texts come from [`crate::isa::semantics`] (AMD's tables per architecture; GFX8, GFX9,
//! GFX90A and GFX940 read CDNA4's, GFX10.1 RDNA2's, GFX1250 RDNA4's: the nearest page, as
//! [`Arch::for_generation`] says). A text is used only when it is *attributable* to the
//! instruction (see that module: the tables store one text per opcode number) and when it
//! *fits* the instruction's encoding: it parses in [`super::eval`]'s subset, reads no source the
//! encoding lacks, writes D0 at the destination's width, and writes SCC or VCC exactly when the
//! encoding defines them. The VOP2 `_E32` records of the same instructions, for example, carry
//! compare texts (`EXEC.u64[laneId] = ...`), and every table's SOP2 records for `S_LSHL_B32`,
//! `S_ADD_U32`, `S_ADD_I32` and `S_LSHLn_ADD_U32` carry other instructions' texts (VOPC compares,
//! packed math, scratch loads). Texts that do not fit are reported ([`distrusted`]) and the next
//! candidate is tried: the instruction's other records in the same table, then the other tables
//! nearest first.
//!
//! When no table has a fitting text, [`transcribed`] holds the text from AMD's ISA reference
//! guides, typed in by hand because the machine-readable tables lost it: the one list of
//! hand-entered semantics, shared with the emulator (one meaning per instruction); each use is
//! named in reports.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::eval::Program;
use crate::isa::processor::Generation;
use crate::isa::semantics::{transcribed, Arch, Pseudocode, Semantics};

/// What an encoding lets a text touch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    /// Number of sources (`S0..`).
    pub sources: u8,
    /// Width of the destination in bits, if there is one.
    pub dest_bits: Option<u8>,
    pub writes_scc: bool,
    pub writes_vcc: bool,
    pub reads_scc: bool,
    pub reads_vcc: bool,
}

/// Where a text came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A table's record (`arch`), `own` when it is the generation's own table (not the nearest).
    Table { arch: Arch, own: bool },
    /// [`transcribed`].
    Transcribed,
}

/// The meaning of one instruction on one generation.
#[derive(Clone, Debug)]
pub struct Meaning {
    pub text: String,
    pub program: Program,
    pub source: Source,
}

/// A stored record we refuse for an instruction, and why.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Distrust {
    pub arch: &'static str,
    pub encoding: String,
    pub name: String,
    pub opcode: u32,
    pub why: String,
}

fn distrust_log() -> &'static Mutex<Vec<Distrust>> {
    static LOG: OnceLock<Mutex<Vec<Distrust>>> = OnceLock::new();
    LOG.get_or_init(Default::default)
}

/// The records refused so far (for the instructions any loaded rule uses), sorted.
pub fn distrusted() -> Vec<Distrust> {
    let mut v = distrust_log().lock().unwrap().clone();
    v.sort();
    v.dedup();
    v
}

/// Why `program` does not fit `sig`, if it does not.
pub fn misfit(program: &Program, sig: &Signature) -> Option<String> {
    let f = program.footprint();
    if f.sources > sig.sources {
        return Some(format!("reads S{} but the instruction has {} sources", f.sources - 1, sig.sources));
    }
    match sig.dest_bits {
        Some(bits) if f.d0_writes.is_empty() => return Some(format!("never writes the {bits}-bit destination")),
        Some(bits) if f.d0_writes.iter().any(|&w| w != bits) => {
            return Some(format!("writes D0 at {:?} bits, the destination has {bits}", f.d0_writes));
        }
        None if !f.d0_writes.is_empty() => return Some("writes D0 but the instruction has no destination".into()),
        _ => {}
    }
    if f.writes_scc != sig.writes_scc {
        return Some(if f.writes_scc { "writes SCC, which the instruction does not define" } else { "does not write SCC, which the instruction defines" }.into());
    }
    if f.writes_vcc != sig.writes_vcc {
        return Some(if f.writes_vcc { "writes VCC, which the instruction does not define" } else { "does not write the carry the instruction defines" }.into());
    }
    if f.reads_scc && !sig.reads_scc {
        return Some("reads SCC, which the instruction does not use".into());
    }
    if f.reads_vcc && !sig.reads_vcc {
        return Some("reads VCC, which the instruction does not use".into());
    }
    None
}

/// Why the meaning of an instruction cannot be established.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoMeaning(pub String);

/// The meaning of AMD instruction `name` (`V_LSHL_OR_B32`) on `generation`, for an encoding of
/// signature `sig`. Cached per (name, generation, signature).
pub fn meaning(name: &str, generation: Generation, sig: &Signature) -> Result<Meaning, NoMeaning> {
    type Key = (String, Generation, u8, Option<u8>, [bool; 4]);
    static CACHE: OnceLock<Mutex<HashMap<Key, Result<Meaning, NoMeaning>>>> = OnceLock::new();
    let key = (name.to_owned(), generation, sig.sources, sig.dest_bits, [sig.writes_scc, sig.writes_vcc, sig.reads_scc, sig.reads_vcc]);
    if let Some(m) = CACHE.get_or_init(Default::default).lock().unwrap().get(&key) {
        return m.clone();
    }
    let m = find(name, generation, sig);
    CACHE.get().unwrap().lock().unwrap().insert(key, m.clone());
    m
}

fn find(name: &str, generation: Generation, sig: &Signature) -> Result<Meaning, NoMeaning> {
    let (home, own) = Arch::for_generation(generation).ok_or_else(|| NoMeaning(format!("no semantics table covers {generation}")))?;
    let semantics = Semantics::get();
    let mut order = vec![home];
    order.extend(Arch::ALL.iter().copied().filter(|&a| a != home));
    // Every record of the instruction is judged (and each refusal logged), then the first that
    // fits, nearest table first, is used.
    let mut fitting = None;
    let mut refused = Vec::new();
    for arch in order {
        for entry in semantics.entries_named(arch, name) {
            let why = match semantics.pseudocode(arch, entry) {
                Pseudocode::Text { arch: from, text, .. } if from == arch => {
                    // With the statements every table leaves out (`transcribed::PREAMBLES`):
                    // the text the emulator runs.
                    let text = transcribed::amend(name, text);
                    match Program::parse(&text) {
                        Ok(program) => match misfit(&program, sig) {
                            None => {
                                fitting.get_or_insert(Meaning { text, program, source: Source::Table { arch, own: own && arch == home } });
                                continue;
                            }
                            Some(why) => why,
                        },
                        Err(e) => format!("outside the evaluated subset: {e}"),
                    }
                }
                _ if entry.pseudocode.is_none() => continue,
                _ => "its text is stored under an opcode number other instructions share (not attributable)".into(),
            };
            refused.push(Distrust { arch: arch.name(), encoding: entry.encoding.clone(), name: entry.name.clone(), opcode: entry.opcode, why });
        }
    }
    distrust_log().lock().unwrap().extend(refused);
    if let Some(m) = fitting {
        return Ok(m);
    }
    if let Some(text) = transcribed::text(name) {
        let program = Program::parse(text).map_err(|e| NoMeaning(format!("transcribed text of {name} does not parse: {e}")))?;
        if let Some(why) = misfit(&program, sig) {
            return Err(NoMeaning(format!("transcribed text of {name} does not fit its encoding: {why}")));
        }
        return Ok(Meaning { text: text.to_owned(), program, source: Source::Transcribed });
    }
    Err(NoMeaning(format!("no table has a text for {name} that fits its encoding")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const VOP3_3SRC: Signature = Signature { sources: 3, dest_bits: Some(32), writes_scc: false, writes_vcc: false, reads_scc: false, reads_vcc: false };
    const SOP2: Signature = Signature { sources: 2, dest_bits: Some(32), writes_scc: true, writes_vcc: false, reads_scc: false, reads_vcc: false };

    #[test]
    fn v_lshl_or_b32_reads_its_own_generations_table() {
        let m = meaning("V_LSHL_OR_B32", Generation::Gfx10_3, &VOP3_3SRC).unwrap();
        assert_eq!(m.text, "D0.u32 = ((S0.u32 << S1.u32[4 : 0].u32) | S2.u32)");
        assert_eq!(m.source, Source::Table { arch: Arch::Rdna2, own: true });
        let m = meaning("V_LSHL_OR_B32", Generation::Gfx9, &VOP3_3SRC).unwrap();
        assert_eq!(m.source, Source::Table { arch: Arch::Cdna4, own: false }, "GFX9 reads the nearest page");
    }

    #[test]
    fn vop2_records_with_compare_texts_are_refused_for_the_vop3_twin() {
        let sig = Signature { sources: 2, ..VOP3_3SRC };
        let m = meaning("V_OR_B32", Generation::Gfx10_3, &sig).unwrap();
        assert_eq!(m.text, "D0.u32 = (S0.u32 | S1.u32)");
        assert!(distrusted().iter().any(|d| d.name == "V_OR_B32_E32" && d.arch == "rdna2"), "{:?}", distrusted());
    }

    #[test]
    fn salu_records_that_write_exec_or_vcc_are_refused_and_the_transcription_used() {
        let m = meaning("S_LSHL2_ADD_U32", Generation::Gfx9, &SOP2).unwrap();
        assert_eq!(m.source, Source::Transcribed);
        let refused: Vec<_> = distrusted().into_iter().filter(|d| d.name == "S_LSHL2_ADD_U32").collect();
        assert_eq!(refused.iter().map(|d| d.arch).collect::<Vec<_>>(), ["cdna4", "rdna2", "rdna3_5", "rdna4"], "{refused:?}");
        // RDNA3.5's record passes the opcode attribution (no other instruction shows the same
        // text elsewhere) yet holds a compare's text: the fit check is what refuses it.
        let rdna3_5 = refused.iter().find(|d| d.arch == "rdna3_5").unwrap();
        assert!(rdna3_5.why.contains("one bit of D0 per lane"), "{rdna3_5:?}");
        let m = meaning("S_LSHL_B32", Generation::Gfx12, &SOP2).unwrap();
        assert_eq!(m.source, Source::Transcribed);
    }

    #[test]
    fn a_text_must_write_the_destination_at_its_width() {
        let p = Program::parse("D0.u32 = S0.u32 + S1.u32").unwrap();
        let sig = Signature { sources: 2, dest_bits: Some(64), ..VOP3_3SRC };
        assert_eq!(misfit(&p, &sig).unwrap(), "writes D0 at [32] bits, the destination has 64");
    }
}
