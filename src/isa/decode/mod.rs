//! The decoder: bytes to [`Inst`], for one [`Target`].
//!
//! It tries LLVM's decoder tables in LLVM's order for the target's generation (see [`plan`]);
//! within a table a decision tree narrows the candidates, and the most specific candidate whose
//! fixed bits match and whose predicates hold is the decode. If that candidate's operands do
//! not decode, the table fails and the next is tried, as in LLVM. Literal constants extend the
//! instruction. A word nothing decodes becomes a raw [`Inst`] of 4 bytes: the decoder never
//! fails the stream.

mod plan;
pub mod tree;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::inst::Inst;
use super::operand::{decode_operands, max_inst_bytes};
use super::predicates::{self, PredContext};
use super::table::{encodings, flag, Namespace};
use super::target::Target;
use tree::Tree;

pub use plan::{plan, Attempt};

/// A decoder for one target: the decision trees of the tables its plan tries, in order.
pub struct Decoder {
    target: Target,
    attempts: Vec<(Attempt, Arc<Tree>)>,
    /// LLVM's `getMaxInstLength`: bytes beyond it are never part of an instruction.
    max_bytes: usize,
}

impl Decoder {
    pub fn new(target: Target) -> Decoder {
        let ctx = PredContext { processor: target.processor, wave64: target.wave64, real_true16: target.real_true16 };
        let attempts = plan(&target)
            .into_iter()
            .map(|attempt| {
                let tree = cached_tree(target.llvm_version(), attempt.namespace, attempt.bits, &ctx);
                (attempt, tree)
            })
            .collect();
        Decoder { target, attempts, max_bytes: max_inst_bytes(&target) }
    }

    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Decodes the instruction at the start of `bytes`. Never fails: an undecodable or
    /// truncated word becomes a raw 4-byte instruction (a trailing fragment under 4 bytes is
    /// zero-padded; callers stop at the end of their range).
    pub fn decode(&self, bytes: &[u8]) -> Inst {
        let limit = &bytes[..bytes.len().min(self.max_bytes)];
        for (attempt, tree) in &self.attempts {
            let size = attempt.bits as usize / 8;
            if limit.len() < size {
                continue;
            }
            let word = bits_of(&limit[..size]);
            let Some(&index) = tree.candidates(word).iter().find(|&&i| {
                let e = &encodings()[i as usize];
                word & e.mask == e.value
            }) else {
                continue;
            };
            let e = &encodings()[index as usize];
            let tail_at = attempt.literal_at as usize;
            let decoded = decode_operands(e, word, &limit[tail_at..], &self.target);
            if decoded.as_ref().err() == Some(&super::operand::DecodeFail::NegativeBufferOffset) {
                break;
            }
            if let Ok(ops) = decoded {
                // LLVM's size is what it read: the encoded bits, or (reading the literal from
                // inside them) up to the literal's end. An instruction must cover its pattern.
                let len = size.max(tail_at + ops.extra_bytes as usize);
                if tail_at < size && tail_at + (ops.extra_bytes as usize) < size {
                    continue;
                }
                return Inst::new(index, &limit[..len], tail_at);
            }
        }
        raw(bytes)
    }
}

fn raw(bytes: &[u8]) -> Inst {
    let mut word = [0u8; 4];
    let n = bytes.len().min(4);
    word[..n].copy_from_slice(&bytes[..n]);
    Inst::raw(u32::from_le_bytes(word))
}

/// `bytes` (4, 8 or 12 of them) as one little-endian integer.
fn bits_of(bytes: &[u8]) -> u128 {
    bytes.iter().rev().fold(0u128, |acc, &b| (acc << 8) | b as u128)
}

/// Trees are shared between decoders of the same processor and mode.
fn cached_tree(llvm: u8, namespace: Namespace, bits: u8, ctx: &PredContext) -> Arc<Tree> {
    type Key = (u8, Namespace, u8, &'static str, bool, bool);
    static CACHE: OnceLock<Mutex<HashMap<Key, Arc<Tree>>>> = OnceLock::new();
    let key = (llvm, namespace, bits, ctx.processor.name, ctx.wave64, ctx.real_true16);
    let cache = CACHE.get_or_init(Default::default);
    if let Some(tree) = cache.lock().unwrap().get(&key) {
        return tree.clone();
    }
    let indices: Vec<u16> = encodings()
        .iter()
        .enumerate()
        // Assembler-only records (aliases, MIMG size variants) are not in LLVM's decoder tables.
        .filter(|(_, e)| e.llvm == llvm && e.ns == namespace && e.bits == bits && !e.flags.has(flag::ISASMPARSERONLY))
        .filter(|(_, e)| e.preds.iter().all(|&p| !predicates::checked_by_decoder(p) || predicates::holds(p, ctx)))
        .map(|(i, _)| i as u16)
        .collect();
    let tree = Arc::new(Tree::build(&indices));
    cache.lock().unwrap().insert(key, tree.clone());
    tree
}
