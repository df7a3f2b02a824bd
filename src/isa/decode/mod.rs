//! The decoder: bytes to [`Inst`], for one [`Target`].
//!
//! It tries LLVM's decoder tables in LLVM's order for the target's generation (see [`plan`]);
//! within a table a decision tree narrows the candidates, and the most specific candidate whose
//! fixed bits match and whose predicates hold is the decode. If that candidate's operands do
//! not decode, the table fails and the next is tried, as in LLVM. Literal constants extend the
//! instruction. A word nothing decodes becomes a raw [`Inst`] of 4 bytes: the decoder never
//! fails the stream.

mod dispatch;
mod plan;
#[cfg(test)]
mod tree;
mod validate;

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::inst::Inst;
use super::operand::{max_inst_bytes, DecodeFail};
use super::predicates::{self, PredContext};
use super::table::{encodings, flag, Namespace};
use super::target::Target;
use dispatch::Dispatch;
use validate::validate;

pub use plan::{Attempt, plan};

/// A decoder for one target: the tables its plan tries, in order, merged into one decision
/// tree ([`dispatch`]).
///
/// Code repeats itself: the same instruction words recur thousands of times in a kernel. The
/// decoder remembers recent results in a small direct-mapped memo keyed by the instruction's
/// leading bytes (all the bytes the decode can depend on), so a repeat costs one probe.
pub struct Decoder {
    target: Target,
    dispatch: Arc<Dispatch>,
    /// LLVM's `getMaxInstLength`: bytes beyond it are never part of an instruction.
    max_bytes: usize,
    /// The longest memo key in bytes (a multiple of 4, at most 16); 0 turns the memo off.
    key_bytes: usize,
    /// Direct-mapped slots: the key's low and high halves, and `meta` (see [`memo_meta`]):
    /// the decode (encoding, length, literal offset) and the key's length in dwords (0 for an
    /// empty slot).
    memo: Box<[Cell<[u64; 3]>]>,
}

/// A memo slot's third word: encoding index, length, literal offset, key dwords.
fn memo_meta(encoding: u16, len: u8, tail_at: u8, dwords: u8) -> u64 {
    u64::from(encoding) | u64::from(len) << 16 | u64::from(tail_at) << 24 | u64::from(dwords) << 32
}

/// `MEMO_SLOTS` empty slots, from zeroed memory (untouched pages cost nothing, so a decoder
/// for a small code object is cheap to make).
fn empty_memo() -> Box<[Cell<[u64; 3]>]> {
    let zeroed: Box<[[u64; 3]]> = vec![[0u64; 3]; MEMO_SLOTS].into_boxed_slice();
    // SAFETY: `Cell<T>` has the same in-memory representation as `T` (documented), so a
    // slice of `[u64; 3]` is a valid slice of `Cell<[u64; 3]>`; the box is moved, not shared.
    unsafe { Box::from_raw(Box::into_raw(zeroed) as *mut [Cell<[u64; 3]>]) }
}

const MEMO_SLOTS: usize = 1 << 15;

impl Decoder {
    pub fn new(target: Target) -> Decoder {
        let ctx = PredContext {
            processor: target.processor,
            wave64: target.wave64,
            real_true16: target.real_true16,
        };
        let attempts = plan(&target);
        let dispatch = cached_dispatch(&target, &attempts, &ctx);
        // LLVM 22 targets read 64-bit literals and can reject a decode on a literal's value
        // beyond the leading 12 bytes, so they decode without the memo.
        let key_bytes = match target.llvm_version() {
            22 => 0,
            _ => max_inst_bytes(&target).min(16),
        };
        let memo = empty_memo();
        Decoder {
            target,
            dispatch,
            max_bytes: max_inst_bytes(&target),
            key_bytes,
            memo,
        }
    }

    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Decodes the instruction at the start of `bytes`. Never fails: an undecodable or
    /// truncated word becomes a raw 4-byte instruction (a trailing fragment under 4 bytes is
    /// zero-padded; callers stop at the end of their range).
    pub fn decode(&self, bytes: &[u8]) -> Inst {
        // The memo is used only with every byte a decode may read at hand (a full
        // `max_bytes`), so the decode is a function of the bytes alone. A decode records how
        // many leading bytes it consulted (tree switches, candidate patterns, the validated
        // encodings' widths, the instruction itself); its result is stored under exactly that
        // many bytes, rounded up to a dword. A later decode whose leading bytes equal a stored
        // key would consult the same bytes and take the same path: the stored result is what
        // decoding afresh gives. Lookups probe each key length, shortest first.
        if self.key_bytes != 0 && bytes.len() >= self.max_bytes {
            let head = read_head_within(bytes, self.max_bytes);
            let (head_lo, head_hi) = (head as u64, (head >> 64) as u64);
            for dwords in 1..=self.key_bytes as u8 / 4 {
                let (lo, hi) = (head_lo & LOW_MASKS[dwords as usize], head_hi & HIGH_MASKS[dwords as usize]);
                let [slot_lo, slot_hi, meta] = self.memo[memo_slot(lo, hi, dwords)].get();
                if (meta >> 32) as u8 == dwords && slot_lo == lo && slot_hi == hi {
                    let len = (meta >> 16) as u8 as usize;
                    return Inst::from_head(meta as u16, head, &bytes[..len], (meta >> 24) as u8 as usize);
                }
            }
            let (inst, consulted) = self.decode_traced(bytes);
            if let Some(encoding) = inst.encoding_index() {
                // The literal's bytes are not consulted (only that they are there, which a full
                // `max_bytes` guarantees): a hit reads them from its own stream.
                let dwords = consulted.div_ceil(4) as u8;
                if usize::from(dwords) * 4 <= self.key_bytes {
                    let (lo, hi) = (head_lo & LOW_MASKS[dwords as usize], head_hi & HIGH_MASKS[dwords as usize]);
                    self.memo[memo_slot(lo, hi, dwords)].set([
                        lo,
                        hi,
                        memo_meta(encoding, inst.len() as u8, inst.tail_at() as u8, dwords),
                    ]);
                }
            }
            return inst;
        }
        self.decode_uncached(bytes)
    }

    /// [`Decoder::decode`] without the memo.
    pub fn decode_uncached(&self, bytes: &[u8]) -> Inst {
        self.decode_traced(bytes).0
    }

    /// The decode, and how many leading bytes it consulted (at most the instruction limit;
    /// a literal's bytes are not consulted, only that they are within the limit).
    #[inline]
    fn decode_traced(&self, bytes: &[u8]) -> (Inst, usize) {
        let limit = &bytes[..bytes.len().min(self.max_bytes)];
        // The leading 16 bytes (zero-padded) read once; each attempt masks its width out.
        let head = read_head_within(bytes, self.max_bytes);
        let dispatch = &*self.dispatch;
        let (candidates, mut consulted) = dispatch.candidates_traced(head);
        // Attempts whose first matching candidate failed: the loop over tables moved on.
        let mut failed = 0u64;
        for entry in candidates {
            let bit = 1u64 << entry.attempt;
            if failed & bit != 0 {
                continue;
            }
            consulted = consulted.max(usize::from(entry.mask_bytes));
            if head & entry.mask != entry.value {
                continue;
            }
            failed |= bit;
            let size = usize::from(entry.size);
            if limit.len() < size {
                continue;
            }
            let index = entry.index;
            let tail_at = usize::from(entry.tail_at);
            let word = head & DWORD_MASKS[size / 4];
            let extra = if entry.count != dispatch::NOT_COMPILED {
                // A compiled validation reads the encoded bits and the tail's length only.
                consulted = consulted.max(size);
                match dispatch.fast_validate(entry, word) {
                    validate::VERDICT_OK => 0,
                    validate::VERDICT_LITERAL if limit.len() - tail_at >= 4 => 4,
                    _ => continue,
                }
            } else {
                // A planned validation reads the encoded bits and the tail's length only; a
                // full operand decode may read the tail's bytes.
                consulted = consulted.max(if validate::is_planned(index) { size } else { limit.len() });
                match validate(index, word, &limit[tail_at..], &self.target) {
                    Ok(extra) => extra as usize,
                    Err(DecodeFail::NegativeBufferOffset) => break,
                    Err(_) => continue,
                }
            };
            // LLVM's size is what it read: the encoded bits, or (reading the literal from
            // inside them) up to the literal's end. An instruction must cover its pattern.
            if tail_at < size && tail_at + extra < size {
                continue;
            }
            let len = size.max(tail_at + extra);
            return (Inst::from_head(index, head, &limit[..len], tail_at), limit.len().min(consulted));
        }
        (raw(bytes), limit.len().min(consulted.max(4)))
    }
}

/// The leading 16 bytes of `bytes`, zero-padded, as one little-endian integer.
#[inline]
fn read_head(bytes: &[u8]) -> u128 {
    match bytes.first_chunk::<16>() {
        Some(head) => u128::from_le_bytes(*head),
        None => {
            let mut head = [0u8; 16];
            let n = bytes.len().min(16);
            head[..n].copy_from_slice(&bytes[..n]);
            u128::from_le_bytes(head)
        }
    }
}

/// The low `bits` bits.
#[cfg(test)]
fn width_mask(bits: u8) -> u128 {
    u128::MAX >> (128 - u32::from(bits))
}

/// The low `n` dwords (n = 0..=4; more is all 128 bits).
const DWORD_MASKS: [u128; 6] = [0, u32::MAX as u128, u64::MAX as u128, u128::MAX >> 32, u128::MAX, u128::MAX];

/// The first 16 bytes of `bytes` within the first `max` (a multiple of 4), zero-padded, as one
/// little-endian integer ([`read_head`] of `&bytes[..max]`, without copying when 16 are there).
#[inline]
fn read_head_within(bytes: &[u8], max: usize) -> u128 {
    match bytes.first_chunk::<16>() {
        Some(head) => u128::from_le_bytes(*head) & DWORD_MASKS[(max / 4).min(4)],
        None => read_head(&bytes[..bytes.len().min(max)]),
    }
}

/// Low and high halves of [`DWORD_MASKS`].
const LOW_MASKS: [u64; 6] = [0, u32::MAX as u64, u64::MAX, u64::MAX, u64::MAX, u64::MAX];
const HIGH_MASKS: [u64; 6] = [0, 0, 0, u32::MAX as u64, u64::MAX, u64::MAX];

/// Memo slot of a key of `dwords` dwords (halves `lo`, `hi`): multiplicative hashing.
#[inline]
fn memo_slot(lo: u64, hi: u64, dwords: u8) -> usize {
    let mixed = (lo ^ hi.rotate_left(29) ^ u64::from(dwords)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (mixed >> (64 - MEMO_SLOTS.trailing_zeros())) as usize
}

fn raw(bytes: &[u8]) -> Inst {
    let mut word = [0u8; 4];
    let n = bytes.len().min(4);
    word[..n].copy_from_slice(&bytes[..n]);
    Inst::raw(u32::from_le_bytes(word))
}

/// Dispatch trees are shared between decoders of the same processor and mode.
fn cached_dispatch(target: &Target, attempts: &[Attempt], ctx: &PredContext) -> Arc<Dispatch> {
    type Key = (u8, &'static str, bool, bool);
    static CACHE: OnceLock<Mutex<HashMap<Key, Arc<Dispatch>>>> = OnceLock::new();
    let key = (target.llvm_version(), ctx.processor.name, ctx.wave64, ctx.real_true16);
    let cache = CACHE.get_or_init(Default::default);
    if let Some(d) = cache.lock().unwrap().get(&key) {
        return d.clone();
    }
    let mut items = Vec::new();
    let mut compiler = validate::Compiler::default();
    let mut compiled: HashMap<u16, Option<(u32, u8)>> = HashMap::new();
    for (i, attempt) in attempts.iter().enumerate() {
        let indices = table_indices(target.llvm_version(), attempt.namespace, attempt.bits, ctx);
        let compile = |index: u16| *compiled.entry(index).or_insert_with(|| compiler.compile(index, target));
        items.extend(dispatch::entries_of(i as u8, attempt, &indices, compile));
    }
    let d = Arc::new(Dispatch::build(items, compiler.checks, compiler.verdicts));
    cache.lock().unwrap().insert(key, d.clone());
    d
}

/// The encodings of one decoder table (namespace and width) that LLVM's decoder would consider
/// on this processor and mode, in table order.
fn table_indices(llvm: u8, namespace: Namespace, bits: u8, ctx: &PredContext) -> Vec<u16> {
    encodings()
        .iter()
        .enumerate()
        // Assembler-only records (aliases, MIMG size variants) are not in LLVM's decoder tables.
        .filter(|(_, e)| {
            e.llvm == llvm
                && e.ns == namespace
                && e.bits == bits
                && !e.flags.has(flag::ISASMPARSERONLY)
        })
        .filter(|(_, e)| {
            e.preds
                .iter()
                .all(|&p| !predicates::checked_by_decoder(p) || predicates::holds(p, ctx))
        })
        .map(|(i, _)| i as u16)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tree::Tree;

    /// The decode the merged tree replaces: one tree per attempt, tried in order.
    fn decode_by_tables(target: &Target, trees: &[(Attempt, Tree)], bytes: &[u8]) -> Inst {
        let limit = &bytes[..bytes.len().min(max_inst_bytes(target))];
        let mut head = [0u8; 16];
        let n = limit.len().min(16);
        head[..n].copy_from_slice(&limit[..n]);
        let head = u128::from_le_bytes(head);
        for (attempt, tree) in trees {
            let size = attempt.bits as usize / 8;
            if limit.len() < size {
                continue;
            }
            let word = head & width_mask(attempt.bits);
            let Some(&index) = tree.candidates(word).iter().find(|&&i| word & encodings()[i as usize].mask == encodings()[i as usize].value)
            else {
                continue;
            };
            let tail_at = attempt.literal_at as usize;
            let extra = match validate(index, word, &limit[tail_at..], target) {
                Ok(extra) => extra as usize,
                Err(DecodeFail::NegativeBufferOffset) => break,
                Err(_) => continue,
            };
            if tail_at < size && tail_at + extra < size {
                continue;
            }
            return Inst::new(index, &limit[..size.max(tail_at + extra)], tail_at);
        }
        raw(bytes)
    }

    /// Words built from every candidate record's pattern (fixed bits over random ones), plus
    /// random words, decode the same through the merged tree as table by table.
    #[test]
    fn merged_tree_decodes_as_the_tables_in_order() {
        let targets = [
            ("gfx803", ""),
            ("gfx900", ""),
            ("gfx90a", ""),
            ("gfx950", ""),
            ("gfx1030", "+wavefrontsize64"),
            ("gfx1100", "+real-true16"),
            ("gfx1200", ""),
            ("gfx1250", ""),
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut checked = 0;
        for (cpu, features) in targets {
            let target = Target::from_name(cpu, features).unwrap();
            let decoder = Decoder::new(target);
            let ctx = PredContext { processor: target.processor, wave64: target.wave64, real_true16: target.real_true16 };
            let trees: Vec<(Attempt, Tree)> = plan(&target)
                .into_iter()
                .map(|a| (a, Tree::build(&table_indices(target.llvm_version(), a.namespace, a.bits, &ctx))))
                .collect();
            let (longest, entries) = decoder.dispatch.stats();
            assert!(longest < 64 && entries < 200_000, "{cpu}: leaf {longest}, {entries} entries");
            // Sample each record of the target's tables a few times.
            let records: Vec<u16> = decoder.dispatch.entries_sample();
            for (k, &i) in records.iter().enumerate() {
                let e = &encodings()[i as usize];
                for round in 0..2 {
                    let random = u128::from(next()) << 64 | u128::from(next());
                    let word = (random & !e.mask) | e.value;
                    let mut bytes = word.to_le_bytes().to_vec();
                    bytes.extend((0..8).map(|_| next() as u8));
                    // Sometimes cut the stream short (literals and wide forms past the end).
                    let cut = if (k + round) % 5 == 0 { (next() % 5 * 4) as usize + 4 } else { bytes.len() };
                    let bytes = &bytes[..cut];
                    assert_eq!(decoder.decode_uncached(bytes), decode_by_tables(&target, &trees, bytes), "{cpu}{features} {}", e.record_name());
                    checked += 1;
                }
            }
            // The memo: streams sharing 4, 8 or 12 leading bytes with an earlier one (its
            // stored key may cover them) decode as afresh.
            for &i in records.iter().step_by(3) {
                let e = &encodings()[i as usize];
                let random = u128::from(next()) << 64 | u128::from(next());
                let word = (random & !e.mask) | e.value;
                let mut bytes = word.to_le_bytes().to_vec();
                bytes.extend((0..8).map(|_| next() as u8));
                for shared in [4usize, 8, 12, 16, 24] {
                    let mut other = bytes.clone();
                    for b in &mut other[shared..] {
                        *b = next() as u8;
                    }
                    for stream in [&bytes, &other] {
                        assert_eq!(decoder.decode(stream), decoder.decode_uncached(stream), "{cpu}{features} {} memo", e.record_name());
                    }
                }
            }
            for _ in 0..2000 {
                let bytes: Vec<u8> = (0..24).map(|_| next() as u8).collect();
                assert_eq!(decoder.decode_uncached(&bytes), decode_by_tables(&target, &trees, &bytes), "{cpu}{features} {bytes:02x?}");
            }
        }
        assert!(checked > 10_000, "{checked}");
    }
}
