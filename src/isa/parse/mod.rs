//! The parser: LLVM assembler text to an instruction, for one [`Target`].
//!
//! The printer ([`super::print`]) is the map of the syntax, and the decoder is the judge. For
//! each encoding the mnemonic may name on the target, the parser walks the encoding's AsmString
//! as the printer does and, at each `$operand`, chooses the bits of the operand's field whose
//! decoded value *prints* as the text at hand: registers and constants through a table of what
//! each field value prints for that operand class, immediates through the numbers written or a
//! table of every value of a small field (waitcnt, hwreg, sendmsg, DPP controls, cache policy),
//! `op_sel`-style modifiers through the bits of the source modifiers they live in. An
//! encoding whose whole text matches gives bytes; those bytes are decoded and printed again,
//! and only a decode that prints the input back is accepted. So the result is exactly what
//! [`super::operand::decode_operands`] makes of LLVM's bytes (the same encoding record, MC
//! operand order, tied operands, MIMG conversion), and a parse is never a guess: text this
//! scheme cannot read is an error, not a near miss.
//!
//! Of several encodings that print the input (a mnemonic written without `_e32`/`_e64`, an
//! operand that fits VOP2 and VOP3) the shortest wins, VOP2 before VOP3, as LLVM's matcher
//! chooses. Constants stay as written: `0xffffffff` in a source is a literal, `-1` an inline
//! constant.

mod file;
mod legacy;
mod text;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use super::encode::Conventions;
use super::decode::{Decoder, plan};
use super::inst::Inst;
use super::operand::{Operands, Value, decode_operands, has_64bit_literals};
use super::predicates::{self, PredContext};
use super::print;
use super::processor::PROCESSORS;
use super::table::{Encoding, FieldBits, OperandClass, OperandName, encodings, flag};
use super::target::Target;

pub use file::{Line, assemble_file};
pub use text::Source;

/// One parsed instruction: the encoding and operands the decoder gives for its bytes, and the
/// bytes.
#[derive(Clone, Copy, Debug)]
pub struct Parsed {
    pub encoding: &'static Encoding,
    pub ops: Operands,
    pub inst: Inst,
}

/// Why text does not parse: where (1-based line and column), what, and what would be accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub message: String,
    pub hint: Option<String>,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, " ({hint})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseError {}

/// A parser for one target.
pub struct Parser {
    target: Target,
    /// How to fill the bits the text does not determine (LLVM's, unless told otherwise).
    conventions: Conventions,
    decoder: Decoder,
    /// Encodings on this target by the mnemonic of their AsmString, encoding suffix removed.
    by_mnemonic: Arc<MnemonicIndex>,
}

impl Parser {
    pub fn new(target: Target) -> Parser {
        Parser::with_conventions(target, Conventions::LLVM)
    }

    /// A parser that fills the bits no operand carries as `conventions` say, e.g. those
    /// [`Observer`](crate::isa::encode::Observer) read from the code object the text came from,
    /// so its text re-assembles to its bytes.
    pub fn with_conventions(target: Target, conventions: Conventions) -> Parser {
        Parser {
            target,
            conventions,
            decoder: Decoder::new(target),
            by_mnemonic: mnemonic_index(&target),
        }
    }

    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Parses one instruction (no label; comments are left out, as the file reader does:
    /// see `text::code_of`).
    pub fn parse(&self, line: &str) -> Result<Parsed, ParseError> {
        let code = text::code_of(line);
        let line = &*code;
        // Instruction text is ASCII (LLVM's lexer takes nothing else outside comments and
        // strings); refusing the rest here keeps every byte offset below on a char boundary.
        if let Some((at, c)) = line.char_indices().find(|(_, c)| !c.is_ascii()) {
            return Err(ParseError {
                line: 1,
                column: at + 1,
                message: format!("unexpected character {c:?}"),
                hint: Some("instruction text is ASCII; anything else only in a comment".to_owned()),
            });
        }
        if let Some(parsed) = self.legacy_exp_compr(line) {
            return Ok(parsed);
        }
        let (source, mnemonic, written) = prepare(line);
        let base = strip_suffix(&mnemonic);
        let mut candidates: Vec<u16> = self.by_mnemonic.get(base).cloned().unwrap_or_default();
        let mut source = source;
        if candidates.is_empty() {
            // An older name of a renamed instruction (`v_cvt_flr_i32_f32` on GFX11 is
            // `v_cvt_floor_i32_f32`, `s_andn2_b32` is `s_and_not1_b32`): LLVM's mnemonic
            // aliases. Read as the new name.
            if let Some((new, indices)) = self.renamed(base) {
                candidates = indices;
                source.splice(0, base.len(), &new);
                source.suffix_gap = Some(new.len());
            }
        }
        if candidates.is_empty() {
            return Err(self.unknown_mnemonic(&source, &mnemonic));
        }
        let mut best: Option<(Parsed, &Encoding)> = None;
        let mut failure = Failure::default();
        for &index in &candidates {
            let e = &encodings()[index as usize];
            match Attempt::new(self, e, &source).run() {
                Ok(parsed) if !suffix_fits(written, parsed.encoding) => failure.keep_furthest(
                    Failure {
                        at: 0,
                        expected: format!("an encoding that `{written}` names"),
                        hint: None,
                    },
                ),
                Ok(parsed) => {
                    // The shortest; of equal length, a record LLVM's matcher prefers over
                    // its `_alt` twin (`s_load_dword s5, s[2:3], s0`: the SGPR in the offset
                    // field, not in `soffset`).
                    // Of a returning atomic and its plain twin that both print the text, the
                    // plain one: its cache-policy bits are the ones written (GFX12
                    // `th:TH_ATOMIC_CASCADE_NT` is 6, which the `_RTN` record prints for 7).
                    let rank = |p: &Parsed, bits: u8, tried: &Encoding| {
                        (
                            p.inst.len(),
                            bits,
                            p.encoding.record_name().contains("_alt"),
                            tried.opcode.name().contains("_RTN"),
                        )
                    };
                    let better = match &best {
                        None => true,
                        Some((b, tried)) => rank(&parsed, e.bits, e) < rank(b, b.encoding.bits, tried),
                    };
                    if better {
                        best = Some((parsed, e));
                    }
                }
                Err(f) => failure.keep_furthest(f),
            }
        }
        best.map(|(p, _)| p).ok_or_else(|| failure.into_error(&source))
    }

    /// The current name and encodings of an instruction this target has under another name,
    /// when `old` is its name on other targets (the same LLVM opcode).
    fn renamed(&self, old: &str) -> Option<(String, Vec<u16>)> {
        // Renamed with a new LLVM opcode (the `_with_name` records of GFX11+), which the tables
        // cannot link to the old name.
        const RENAMED: [(&str, &str); 12] = [
            ("v_cvt_rpi_i32_f32", "v_cvt_nearest_i32_f32"),
            ("v_cvt_flr_i32_f32", "v_cvt_floor_i32_f32"),
            ("v_ffbh_u32", "v_clz_i32_u32"),
            ("v_ffbl_b32", "v_ctz_i32_b32"),
            ("v_ffbh_i32", "v_cls_i32"),
            ("v_cvt_pkrtz_f16_f32", "v_cvt_pk_rtz_f16_f32"),
            ("v_mul_legacy_f32", "v_mul_dx9_zero_f32"),
            ("v_fmac_legacy_f32", "v_fmac_dx9_zero_f32"),
            ("v_fma_legacy_f32", "v_fma_dx9_zero_f32"),
            ("v_dot2c_f32_f16", "v_dot2acc_f32_f16"),
            ("s_flbit_i32", "s_cls_i32"),
            ("s_flbit_i32_i64", "s_cls_i32_i64"),
        ];
        if let Some(&(_, new)) = RENAMED.iter().find(|(o, _)| *o == old)
            && let Some(indices) = self.by_mnemonic.get(new)
        {
            return Some((new.to_owned(), indices.clone()));
        }
        if let Some(new) = old
            .strip_prefix("v_cmp_tru_")
            .map(|t| format!("v_cmp_t_{t}"))
            .or_else(|| old.strip_prefix("v_cmpx_tru_").map(|t| format!("v_cmpx_t_{t}")))
            && let Some(indices) = self.by_mnemonic.get(&new)
        {
            return Some((new, indices.clone()));
        }
        let opcodes = opcodes_named(old)?;
        let mut found: Option<(String, Vec<u16>)> = None;
        for (key, indices) in self.by_mnemonic.iter() {
            let matching: Vec<u16> = indices
                .iter()
                .copied()
                .filter(|&i| opcodes.contains(&encodings()[i as usize].opcode))
                .collect();
            if matching.is_empty() {
                continue;
            }
            match &mut found {
                None => found = Some((key.clone(), matching)),
                // Two new names for one old one: ambiguous, no alias.
                Some((k, _)) if k != key => return None,
                Some((_, v)) => v.extend(matching),
            }
        }
        found
    }

    /// Each candidate encoding of `line` and how far it got: for diagnosing text that does not
    /// parse as expected.
    pub fn explain(&self, line: &str) -> Vec<String> {
        let (source, mnemonic, written) = prepare(line);
        let base = strip_suffix(&mnemonic);
        let candidates = self.by_mnemonic.get(base).cloned().unwrap_or_default();
        candidates
            .iter()
            .map(|&index| {
                let e = &encodings()[index as usize];
                let outcome = match Attempt::new(self, e, &source).run() {
                    Ok(p) if !suffix_fits(written, p.encoding) => {
                        format!("{} does not fit `{written}`", p.encoding.record_name())
                    }
                    Ok(p) => format!("ok {:02x?}", p.inst.bytes()),
                    Err(f) => format!("{}: expected {}", f.at, f.expected),
                };
                format!("{} `{}`: {outcome}", e.record_name(), e.asm)
            })
            .collect()
    }

    /// The error for a mnemonic this target has no encoding of: where it exists, or what is
    /// spelled alike.
    fn unknown_mnemonic(&self, source: &Source, mnemonic: &str) -> ParseError {
        let base = strip_suffix(mnemonic);
        let elsewhere: Vec<&str> = PROCESSORS
            .iter()
            .filter(|p| !p.is_generic() && p.generation >= super::Generation::Gfx8)
            .filter(|p| {
                let t = Target::from_name(p.name, "").ok();
                t.is_some_and(|t| {
                    let index = mnemonic_index(&t);
                    index.contains_key(base)
                })
            })
            .map(|p| p.name)
            .collect();
        let here = self.target.processor.name;
        let hint = if let Some(first) = elsewhere.first() {
            Some(format!(
                "{base} exists on {first}{}; {here} has none",
                if elsewhere.len() > 1 {
                    " and others"
                } else {
                    ""
                }
            ))
        } else {
            closest(self.by_mnemonic.keys().map(String::as_str), base).map(|m| format!("did you mean {m}?"))
        };
        let message = if elsewhere.is_empty() {
            format!("unknown instruction {mnemonic}")
        } else {
            format!("{mnemonic} is not an instruction of {here}")
        };
        ParseError {
            line: 1,
            column: source.column(0),
            message,
            hint,
        }
    }
}

/// The text of one instruction ready for matching, with the encoding suffix of its mnemonic
/// (`_e64`, `_sdwa`, ...) taken out: the printer may write another suffix there, or none (GFX8
/// VOPC SDWA prints `v_cmp_eq_f32 vcc, ...`), and the suffix written only restricts which
/// encodings may match ([`suffix_fits`]). Returns the source, the mnemonic as written and the
/// suffix written.
fn prepare(line: &str) -> (Source, String, &'static str) {
    let mut source = Source::new(line);
    // LLVM's assembler matches mnemonics in any case (`V_CVT_F32_FP8_e64_dpp`).
    let mnemonic_len = source.mnemonic().len();
    if source.text[..mnemonic_len].bytes().any(|c| c.is_ascii_uppercase()) {
        let lower = source.text[..mnemonic_len].to_ascii_lowercase();
        source.splice(0, mnemonic_len, &lower);
    }
    src_names(&mut source);
    synonyms(&mut source);
    functional_modifiers(&mut source);
    let mnemonic = source.mnemonic().to_owned();
    let base = strip_suffix(&mnemonic).len();
    let written = text::SUFFIXES
        .iter()
        .copied()
        .find(|s| mnemonic.len() - base == s.len() && mnemonic.ends_with(s))
        .unwrap_or("");
    source.cut(base, written.len());
    source.suffix_gap = Some(base);
    (source, mnemonic, written)
}

/// LLVM's other names of special source registers (`execz` for `src_execz`, ...), exact
/// synonyms in its assembler, written as the printer writes them. Only in operand position
/// (first after the mnemonic, after a comma, or inside `-|...|`/`abs(...)`): a word after an
/// operand with no comma is a modifier, as gfx90a's cache-policy `scc` is
/// (`scratch_load_ushort a188, off, s26 offset:16 scc`).
fn src_names(source: &mut Source) {
    const NAMES: [&str; 11] = [
        "execz",
        "vccz",
        "scc",
        "lds_direct",
        "pops_exiting_wave_id",
        "shared_base",
        "shared_limit",
        "private_base",
        "private_limit",
        "flat_scratch_base_lo",
        "flat_scratch_base_hi",
    ];
    let Some(first_space) = source.text.find(' ') else {
        return;
    };
    let mut k = first_space;
    while k < source.text.len() {
        let bytes = source.text.as_bytes();
        let boundary = |c: u8| !(c.is_ascii_alphanumeric() || c == b'_' || c == b'.');
        if !boundary(bytes[k - 1]) || boundary(bytes[k]) {
            k += 1;
            continue;
        }
        let rest = &source.text[k..];
        let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.')).unwrap_or(rest.len());
        let word = &rest[..len];
        let before = source.text[first_space..k].trim_end().bytes().last();
        let operand = before.is_none_or(|c| matches!(c, b',' | b'-' | b'|' | b'('));
        if operand && NAMES.contains(&word) {
            let new = format!("src_{word}");
            source.splice(k, len, &new);
            k += new.len();
        } else {
            k += len.max(1);
        }
    }
}

/// Other exact spellings of LLVM's assembler: `dim:2D` for `dim:SQ_RSRC_IMG_2D`,
/// `TH_ATOMIC_RT_RETURN` for `TH_ATOMIC_RETURN`, and GFX12 cache policies at their zero default
/// (`th:TH_LOAD_RT`, `scope:SCOPE_CU`), which the printer leaves out.
fn synonyms(source: &mut Source) {
    let Some(first_space) = source.text.find(' ') else {
        return;
    };
    let mut k = first_space + 1;
    while k < source.text.len() {
        let rest = &source.text[k..];
        let len = rest.find(' ').unwrap_or(rest.len());
        let word = &rest[..len];
        if let Some(dim) = word.strip_prefix("dim:")
            && !dim.starts_with("SQ_RSRC_IMG_")
            && !dim.is_empty()
            && dim.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            let new = format!("dim:SQ_RSRC_IMG_{dim}");
            source.splice(k, len, &new);
            k += new.len() + 1;
            continue;
        }
        if word == "th:TH_ATOMIC_RT_RETURN" {
            source.splice(k, len, "th:TH_ATOMIC_RETURN");
            k += "th:TH_ATOMIC_RETURN".len() + 1;
            continue;
        }
        if matches!(
            word,
            "th:TH_LOAD_RT" | "th:TH_STORE_RT" | "th:TH_ATOMIC_RT" | "scope:SCOPE_CU"
        ) {
            // The word and the space before it.
            source.cut(k - 1, len + 1);
            continue;
        }
        k += len + 1;
    }
}

/// LLVM's functional spellings of source modifiers on a register, `abs(v1)` for `|v1|` and
/// `neg(v1)` for `-v1`, written as the printer writes them. On a constant they stay as written:
/// LLVM folds `neg(0x3118)` into the constant's value, which the printer shows otherwise.
fn functional_modifiers(source: &mut Source) {
    let Some(first_space) = source.text.find(' ') else {
        return;
    };
    loop {
        let text = source.text.as_bytes();
        let found = ["abs(", "neg("].iter().find_map(|f| {
            (first_space..text.len()).find_map(|k| {
                let boundary = !(text[k - 1].is_ascii_alphanumeric() || text[k - 1] == b'_');
                (boundary && text[k..].starts_with(f.as_bytes())).then_some((k, *f))
            })
        });
        let Some((k, f)) = found else {
            return;
        };
        let open = k + f.len();
        let mut depth = 1;
        let Some(close) = (open..text.len()).find(|&j| {
            match text[j] {
                b'(' => depth += 1,
                b')' => depth -= 1,
                _ => {}
            }
            depth == 0
        }) else {
            return;
        };
        let inner = &source.text[open..close];
        let register = inner
            .trim_start_matches(['|', '-'])
            .starts_with(|c: char| c.is_ascii_alphabetic())
            && !inner.contains('(');
        if !register {
            return;
        }
        let inner = inner.to_owned();
        let new = if f == "abs(" {
            format!("|{inner}|")
        } else {
            format!("-{inner}")
        };
        source.splice(k, close + 1 - k, &new);
    }
}

/// Whether the encoding suffix written after a mnemonic names encoding `e`'s form: `_e32` the
/// 32-bit VOP1/VOP2/VOPC form, `_e64` VOP3, `_dpp` a DPP form (VOP3 DPP too), `_e64_dpp` a VOP3
/// DPP form, `_sdwa` SDWA.
fn suffix_fits(written: &str, e: &Encoding) -> bool {
    let name = e.record_name();
    let dpp = name.contains("_dpp");
    let sdwa = name.contains("_sdwa");
    // VOP3P DPP records (`V_DOT2_F32_F16_dpp8_gfx11`) have no `_e64` in their names; LLVM
    // prints them `_e64_dpp`: a DPP form 96 bits long is a VOP3 one.
    let e64 = name.contains("_e64")
        || (e.bits == 64 && !dpp && !sdwa && !name.contains("_e32"))
        || (dpp && e.bits == 96);
    match written {
        "_e32" => !dpp && !sdwa && !e64,
        "_e64" => e64 && !dpp && !sdwa,
        "_dpp" => dpp,
        "_e64_dpp" => dpp && e64,
        "_sdwa" => sdwa,
        _ => true,
    }
}

/// A mnemonic without the encoding suffix (`_e32`, `_e64`, `_dpp`, `_sdwa`) the printer adds.
fn strip_suffix(mnemonic: &str) -> &str {
    text::SUFFIXES
        .iter()
        .find_map(|s| mnemonic.strip_suffix(s))
        .unwrap_or(mnemonic)
}

/// The closest known mnemonic by edit distance, if close enough to be a typo.
fn closest<'a>(known: impl Iterator<Item = &'a str>, word: &str) -> Option<&'a str> {
    let distance = |a: &str, b: &str| {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut prev = row[0];
            row[0] = i + 1;
            for (j, &cb) in b.iter().enumerate() {
                let cur = row[j + 1];
                row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
                prev = cur;
            }
        }
        row[b.len()]
    };
    known
        .map(|k| (distance(k, word), k))
        .filter(|&(d, _)| d <= 3)
        .min()
        .map(|(_, k)| k)
}

/// Encodings a target's decoder tables hold (and the assembler-only records of the same
/// tables), by mnemonic; shared between parsers of one target.
/// Encoding indices by mnemonic.
type MnemonicIndex = HashMap<String, Vec<u16>>;

/// The mnemonic an encoding's AsmString names, encoding suffix removed: `v_cmpx_class_f16{_e64}`
/// (the printer's variant 0 in braces) is `v_cmpx_class_f16`.
fn index_key(e: &Encoding) -> String {
    let mnemonic: String = e.mnemonic().chars().filter(|&c| c != '{' && c != '}').collect();
    strip_suffix(&mnemonic).to_owned()
}

fn mnemonic_index(target: &Target) -> Arc<MnemonicIndex> {
    type Key = (&'static str, bool, bool);
    static CACHE: OnceLock<Mutex<HashMap<Key, Arc<MnemonicIndex>>>> = OnceLock::new();
    let key = (target.processor.name, target.wave64, target.real_true16);
    if let Some(index) = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .get(&key)
    {
        return index.clone();
    }
    let ctx = PredContext::of(target);
    // Tables in the decoder's order; an encoding's rank is its table's position.
    let tables: Vec<_> = plan(target).iter().map(|a| (a.namespace, a.bits)).collect();
    let mut ranked: Vec<(usize, u16)> = encodings()
        .iter()
        .enumerate()
        .filter(|(_, e)| e.llvm == target.llvm_version())
        .filter_map(|(i, e)| {
            tables
                .iter()
                .position(|&t| t == (e.ns, e.bits))
                .map(|rank| (rank, e, i))
        })
        .filter(|(_, e, _)| {
            e.preds
                .iter()
                .all(|&p| !predicates::checked_by_decoder(p) || predicates::holds(p, &ctx))
        })
        .map(|(rank, _, i)| (rank, i as u16))
        .collect();
    // Shorter encodings first (VOP2 before VOP3), then the decoder's order.
    ranked.sort_by_key(|&(rank, i)| (encodings()[i as usize].bits, rank, i));
    let mut index: MnemonicIndex = HashMap::new();
    for (_, i) in ranked {
        index
            .entry(index_key(&encodings()[i as usize]))
            .or_default()
            .push(i);
    }
    let index = Arc::new(index);
    CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .insert(key, index.clone());
    index
}

/// The opcodes some record of which (on any target) has mnemonic `name`.
fn opcodes_named(name: &str) -> Option<&'static Vec<super::table::Opcode>> {
    static INDEX: OnceLock<HashMap<String, Vec<super::table::Opcode>>> = OnceLock::new();
    INDEX
        .get_or_init(|| {
            let mut index: HashMap<String, Vec<super::table::Opcode>> = HashMap::new();
            for e in encodings() {
                let v = index.entry(index_key(e)).or_default();
                if !v.contains(&e.opcode) {
                    v.push(e.opcode);
                }
            }
            index
        })
        .get(name)
}

/// How far one encoding got, and what it wanted there.
#[derive(Default)]
struct Failure {
    at: usize,
    expected: String,
    hint: Option<String>,
}

impl Failure {
    fn keep_furthest(&mut self, other: Failure) {
        if self.expected.is_empty() || other.at > self.at {
            *self = other;
        }
    }

    fn into_error(self, source: &Source) -> ParseError {
        let found = source.word_at(self.at);
        let found = if found.is_empty() {
            "the end of the line".to_owned()
        } else {
            found.to_owned()
        };
        ParseError {
            line: 1,
            column: source.column(self.at),
            message: format!("expected {}, found {found}", self.expected),
            hint: self.hint,
        }
    }
}

/// One piece of an AsmString.
#[derive(Clone, Copy, Debug)]
enum Piece {
    Text(&'static str),
    Operand(&'static str),
}

/// An AsmString split into text and operands, variant 0 of `{a|b}` alternatives chosen (the
/// printer's reading of it).
fn pieces(asm: &'static str) -> Vec<Piece> {
    let bytes = asm.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'$' => {
                let (name, next) = if bytes.get(i + 1) == Some(&b'{') {
                    let end = asm[i + 2..].find('}').map_or(asm.len(), |e| i + 2 + e);
                    (&asm[i + 2..end], end + 1)
                } else {
                    let end = asm[i + 1..]
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .map_or(asm.len(), |e| i + 1 + e);
                    (&asm[i + 1..end], end)
                };
                out.push(Piece::Operand(name.split(':').next().unwrap_or(name)));
                i = next;
            }
            b'{' => {
                let end = asm[i + 1..].find('}').map_or(asm.len(), |e| i + 1 + e);
                out.push(Piece::Text(asm[i + 1..end].split('|').next().unwrap_or("")));
                i = end + 1;
            }
            _ => {
                let start = i;
                while i < bytes.len() && bytes[i] != b'$' && bytes[i] != b'{' {
                    i += 1;
                }
                out.push(Piece::Text(&asm[start..i]));
            }
        }
    }
    out
}

/// A candidate setting: field values to write (instruction bit runs, value) and the trailing
/// bytes (literal) to use.
#[derive(Clone, Debug, Default)]
struct Setting {
    fields: Vec<(FieldBits, u64)>,
    bits: Vec<(u8, bool)>,
    tail: Option<Vec<u8>>,
    /// The operand is written another way LLVM accepts than the printer's (`offset:0`,
    /// `bound_ctrl:0`), or left out for its default (`row_mask:0xf`): the text it takes ends
    /// here, and the final check reads the printed text in its place.
    alias: Option<usize>,
}

/// Writes `value` into the instruction bits of `field`.
fn deposit(word: u128, field: FieldBits, value: u64) -> u128 {
    let mut word = word;
    for &(lo, hi, field_lo) in field {
        let width = u32::from(hi - lo) + 1;
        let mask = ((1u128 << width) - 1) << lo;
        let part = (u128::from(value >> field_lo)) & ((1u128 << width) - 1);
        word = (word & !mask) | (part << lo);
    }
    word
}

/// The value of `field` in the instruction bits `word` (the inverse of [`deposit`]).
fn extract(word: u128, field: FieldBits) -> u64 {
    let mut value = 0u64;
    for &(lo, hi, field_lo) in field {
        let width = u32::from(hi - lo) + 1;
        let part = (word >> lo) & ((1u128 << width) - 1);
        value |= (part as u64) << field_lo;
    }
    value
}

fn field_width(field: FieldBits) -> u32 {
    field
        .iter()
        .map(|&(lo, hi, field_lo)| u32::from(field_lo) + u32::from(hi - lo) + 1)
        .max()
        .unwrap_or(0)
}

/// Print methods whose operand is a 16-bit (or narrower) control word worth tabulating whole.
const TABULATED: [&str; 10] = [
    "printCPol",
    "printSWaitCnt",
    "printHwreg",
    "printSendMsg",
    "printSDelayALU",
    "printDepCtr",
    "printSwizzle",
    "printGPRIdxMode",
    "printDPPCtrl",
    "printFORMAT",
];

/// The state of matching one encoding against the text.
struct Attempt<'a> {
    parser: &'a Parser,
    e: &'static Encoding,
    index: u16,
    source: &'a Source,
    word: u128,
    tail: Vec<u8>,
    scratch: String,
    /// Text read as an alias: (start, end, what the operand prints), for the final check.
    replaced: Vec<(usize, usize, String)>,
    /// The AsmString read: the record's, or its MIMG sibling's.
    asm: &'static str,
}

impl<'a> Attempt<'a> {
    fn new(parser: &'a Parser, e: &'static Encoding, source: &'a Source) -> Attempt<'a> {
        let index = (e as *const Encoding as usize - encodings().as_ptr() as usize)
            / std::mem::size_of::<Encoding>();
        // A DPP8 record's src0 field carries the `fi` marker, which must be valid (0xE9) for
        // any operand to decode before `fi` itself is reached.
        let mut word = e.value;
        for (operand, field) in e.operands.iter().zip(e.fields) {
            if operand.class == OperandClass::Dpp8FI {
                word = deposit(word, field, 0xe9);
            }
        }
        Attempt {
            parser,
            e,
            index: index as u16,
            source,
            word,
            tail: vec![0; 4 * nsa_address_bytes(e).div_ceil(4)],
            scratch: String::new(),
            replaced: Vec::new(),
            asm: e.asm,
        }
    }

    fn target(&self) -> &Target {
        &self.parser.target
    }

    fn fail(&self, at: usize, expected: String, hint: Option<String>) -> Failure {
        Failure { at, expected, hint }
    }

    fn run(mut self) -> Result<Parsed, Failure> {
        let initial = self.word;
        let initial_tail = self.tail.clone();
        let first = self.walk(false).and_then(|at| self.finish(at));
        let Err(failure) = first else {
            return first;
        };
        // An operand whose text depends on operands written after it (a MIMG `vdata` tuple
        // sized by `dmask`, a true16 `v1.h` in VOP3 selected by `op_sel`): read the later
        // operands first, skipping what does not match yet, then read the whole text again
        // from those bits.
        if failure.at < self.source.suffix_gap.unwrap_or(0) {
            return Err(failure);
        }
        self.word = initial;
        self.tail.clone_from(&initial_tail);
        self.replaced.clear();
        let _ = self.walk(true);
        if self.word == initial {
            return Err(failure);
        }
        self.tail.clone_from(&initial_tail);
        self.replaced.clear();
        // The bits read so far may convert the record to a sibling (a MIMG record of other
        // data and address widths) whose AsmString lists another number of NSA addresses:
        // read the text as that one prints.
        if let Ok(ops) = decode_operands(self.e, self.word, &self.tail, self.target())
            && let Some(sibling) = ops.converted
        {
            self.asm = sibling.asm;
        }
        match self.walk(false).and_then(|at| self.finish(at)) {
            Ok(parsed) => Ok(parsed),
            Err(second) if second.at > failure.at => Err(second),
            Err(_) => Err(failure),
        }
    }

    /// Reads the text operand by operand; returns where it ends. With `skipping`, an operand
    /// that does not match is passed over (its word skipped) instead of failing.
    fn walk(&mut self, skipping: bool) -> Result<usize, Failure> {
        let mut at = 0;
        // Skipping, text that does not match (a list of NSA addresses shorter than this
        // record's) loses the place: operands are passed over until a piece of text matches.
        let mut lost = false;
        for piece in pieces(self.asm) {
            match piece {
                Piece::Text(t) if skipping => match self.source.match_at(at, t) {
                    Some(end) => {
                        at = end;
                        lost = false;
                    }
                    None => lost = true,
                },
                Piece::Text(t) => {
                    at = self
                        .source
                        .match_at(at, t)
                        .ok_or_else(|| self.fail(at, format!("`{}`", t.trim()), None))?;
                }
                Piece::Operand(_) if lost => {}
                Piece::Operand(name) => {
                    let Some(i) = self.e.operands.iter().position(|o| o.name.name() == name) else {
                        continue;
                    };
                    at = match self.operand(i, at) {
                        Ok(end) => end,
                        Err(_) if skipping => {
                            let text = self.source.text.as_bytes();
                            let start = (at..text.len()).find(|&k| text[k] != b' ').unwrap_or(at);
                            let word = self.source.word_at(start);
                            // The last of a list (`v1]`): the bracket is the AsmString's.
                            let unbalanced = word.matches(']').count() > word.matches('[').count();
                            start + word.len() - usize::from(unbalanced && word.ends_with(']'))
                        }
                        Err(f) => return Err(f),
                    };
                }
            }
        }
        if at < self.source.text.len() {
            return Err(self.fail(at, "the end of the instruction".to_owned(), None));
        }
        Ok(at)
    }

    /// The bytes of the current bits and tail, decoded and printed back.
    fn finish(&self, at: usize) -> Result<Parsed, Failure> {
        let ops = decode_operands(self.e, self.word, &self.tail, self.target())
            .map_err(|why| self.fail(0, format!("operands that decode ({why:?})"), None))?;
        let mut bytes: Vec<u8> = self.word.to_le_bytes()[..self.e.bits as usize / 8].to_vec();
        bytes.extend_from_slice(&self.tail[..(ops.extra_bytes as usize).min(self.tail.len())]);
        let inst = self.parser.decoder.decode_uncached(&bytes);
        let mismatch = || {
            self.fail(
                at,
                format!(
                    "an instruction that reads back as written ({})",
                    self.e.record_name()
                ),
                None,
            )
        };
        if inst.len() != bytes.len() {
            return Err(mismatch());
        }
        let Some(encoding) = inst.encoding() else {
            return Err(mismatch());
        };
        let text = print::print(&inst, self.target(), 0);
        let expected;
        let source = if self.replaced.is_empty() {
            self.source
        } else {
            // The input with each alias replaced by what its operand prints.
            let mut written = String::new();
            let mut from = 0;
            for (start, end, printed) in &self.replaced {
                written.push_str(&self.source.text[from..*start]);
                written.push(' ');
                written.push_str(printed);
                written.push(' ');
                from = *end;
            }
            written.push_str(&self.source.text[from..]);
            let mut s = Source::new(&written);
            s.suffix_gap = self.source.suffix_gap;
            expected = s;
            &expected
        };
        if source.match_at(0, &text) != Some(source.text.len()) {
            return Err(mismatch());
        }
        let tail: Vec<u8> = inst
            .trailing_words()
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let ops = decode_operands(encoding, inst.encoded_bits(), &tail, self.target())
            .map_err(|_| mismatch())?;
        // The bits no operand prints (implicit VOP3P `op_sel_hi`, the unused `v_cmpx_*_e64`
        // destination, SGPR tuples' low bits) as LLVM's code emitter writes them (or as the
        // parser's conventions say): the same operands encoded canonically, kept only if they
        // decode through the same record and print the same text.
        let inst = match super::encode::encode_with(encoding, &ops, self.target(), &self.parser.conventions) {
            Ok(canonical)
                if canonical.len() == inst.len()
                    && canonical.bytes() != inst.bytes()
                    && self
                        .parser
                        .decoder
                        .decode_uncached(&canonical.bytes())
                        .encoding()
                        .is_some_and(|c| std::ptr::eq(c, encoding))
                    && print::print(&canonical, self.target(), 0) == text =>
            {
                self.parser.decoder.decode_uncached(&canonical.bytes())
            }
            _ => inst,
        };
        Ok(Parsed {
            encoding,
            ops,
            inst,
        })
    }

    /// Applies `setting` to a copy of the state; the bits and tail it gives.
    fn applied<'s>(&self, setting: &'s Setting) -> (u128, Option<&'s [u8]>) {
        let mut word = self.word;
        for &(field, value) in &setting.fields {
            word = deposit(word, field, value);
        }
        for &(bit, on) in &setting.bits {
            word = if on {
                word | (1u128 << bit)
            } else {
                word & !(1u128 << bit)
            };
        }
        (word, setting.tail.as_deref())
    }

    /// Where operand `i` printed from `setting` ends in the text at `at`, if it matches there.
    fn try_setting(&mut self, i: usize, at: usize, setting: &Setting) -> Option<usize> {
        let printed = self.printed(i, setting)?;
        match setting.alias {
            // An MTBUF `soffset` read as an alias (a float literal `0.5`) prints its format
            // after it: unless the alias took the format's text too (`s3, format:22`), the
            // format printed must follow in the text, or any format would do (GFX8/GFX9
            // `tbuffer_load_format_x v5, off, s[8:11], 0.5 offset:4095` took format 0).
            Some(end)
                if self.e.flags.has(flag::MTBUF)
                    && self.e.operands[i].name == OperandName::soffset
                    && self
                        .source
                        .text
                        .get(at.min(end)..end)
                        .is_none_or(|t| !t.contains("format:")) =>
            {
                match printed.find(" format:") {
                    Some(k) => self.source.match_at(end, &printed[k..]),
                    None => Some(end),
                }
            }
            Some(end) => Some(end),
            None => self.source.match_at(at, &printed),
        }
    }

    /// What operand `i` prints with `setting` applied.
    fn printed(&mut self, i: usize, setting: &Setting) -> Option<String> {
        let (word, tail) = self.applied(setting);
        let tail = tail.unwrap_or(&self.tail);
        let ops = decode_operands(self.e, word, tail, self.target()).ok()?;
        let (encoding, index) = match ops.converted {
            Some(sibling) => (sibling, sibling_index(sibling, self.e, i)?),
            None => (self.e, i),
        };
        let target = self.parser.target;
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        print::write_operand(&mut scratch, encoding, &ops, &target, index);
        Some(scratch)
    }

    /// Chooses operand `i`'s bits to match the text at `at`; returns where its text ends.
    fn operand(&mut self, i: usize, at: usize) -> Result<usize, Failure> {
        // GFX8/GFX9 spellings first: of equal reach, LLVM's reading wins (`0.5` in a 16-bit
        // integer operand is an inline constant, though a literal prints alike).
        let mut settings = self.legacy_aliases(i, at);
        // True16 halves written `v5.h, v1.h` in a VOP3 form are its `op_sel` bits, set when
        // the registers were read; LLVM's assembler takes them without `op_sel:[1,1]`, which
        // its printer adds (`v_exp_f16_e64_dpp v5.h, v1.h op_sel:[1,1] mul:2 ...`). Left out:
        // the bits as read, the printed `op_sel` read as an alias.
        if self.e.operands[i].class.info().print_method == "printOpSel"
            && !self.source.word_at(at).starts_with("op_sel:")
            && self.source.text.get(..at).is_some_and(|t| t.contains(".h"))
        {
            settings.push(Setting {
                alias: Some(at),
                ..Setting::default()
            });
        }
        settings.extend(self.settings(i, at));
        settings.extend(self.aliases(i, at));
        let mut best: Option<(usize, usize)> = None;
        if std::env::var_os("GFXPATCH_PARSE_TRACE").is_some() {
            for setting in &settings {
                let printed = self.printed(i, setting);
                eprintln!(
                    "  {} {} at {at}: {setting:?} prints {printed:?}",
                    self.e.record_name(),
                    self.e.operands[i].name.name()
                );
            }
        }
        for (k, setting) in settings.iter().enumerate() {
            if let Some(end) = self.try_setting(i, at, setting)
                && best.is_none_or(|(b, _)| end > b)
            {
                best = Some((end, k));
            }
        }
        let Some((end, k)) = best else {
            let operand = &self.e.operands[i];
            return Err(self.fail(
                at,
                describe(operand.class),
                Some(format!(
                    "{} {} takes {}",
                    self.e.mnemonic(),
                    operand.name.name(),
                    takes(operand.class)
                )),
            ));
        };
        let setting = &settings[k];
        if setting.alias.is_some() {
            let printed = self.printed(i, setting).unwrap_or_default();
            self.replaced.push((at, end, printed));
        }
        let (word, tail) = self.applied(setting);
        if let Some(tail) = tail {
            self.tail = tail.to_vec();
        }
        self.word = word;
        Ok(end)
    }

    /// Instruction bits at `positions` of every source-modifier operand.
    fn modifier_bits(&self, positions: &[u8]) -> Vec<u8> {
        let mut bits: Vec<u8> = Vec::new();
        for (o, f) in self.e.operands.iter().zip(self.e.fields) {
            if o.name.name().ends_with("_modifiers") {
                for &pos in positions {
                    if let Some(&(lo, _, field_lo)) = f
                        .iter()
                        .find(|&&(lo, hi, field_lo)| field_lo <= pos && pos <= field_lo + (hi - lo))
                    {
                        bits.push(lo + (pos - field_lo));
                    }
                }
            }
        }
        bits
    }

    /// The bits `op_sel` may live in: source modifiers' op_sel bits and an `op_sel` field.
    fn op_sel_bits(&self, positions: &[u8]) -> Vec<u8> {
        let mut bits = self.modifier_bits(positions);
        if let Some(k) = self.e.operand_index(OperandName::op_sel) {
            for &(lo, hi, _) in self.e.fields[k] {
                bits.extend(lo..=hi);
            }
        }
        bits.sort_unstable();
        bits.dedup();
        bits
    }

    /// Other ways LLVM's assembler lets operand `i` be written: `name:value` for a value the
    /// printer leaves out (`offset:0`), `bound_ctrl:0` (LLVM reads it as `bound_ctrl:1`), and
    /// optional operands left out, which take LLVM's default (`row_mask:0xf`,
    /// `dst_unused:UNUSED_PRESERVE`).
    fn aliases(&mut self, i: usize, at: usize) -> Vec<Setting> {
        let operand = &self.e.operands[i];
        let field = self.e.fields[i];
        // `op_sel:[0,0]`, `neg_lo:[0,0]`, `op_sel_hi:[1,1]` written where the printer leaves
        // them out (their defaults): read as nothing.
        let method = operand.class.info().print_method;
        if matches!(method, "printOpSel" | "printOpSelHi" | "printNegLo" | "printNegHi") {
            let word = self.source.word_at(at);
            let text = self.source.text.as_bytes();
            // A comma may stand before it (`v_permlane16_var_b32 v5, v1, v50, op_sel:[0,0]`).
            let start = (at..text.len()).find(|&k| !matches!(text[k], b' ' | b',')).unwrap_or(text.len());
            let name = operand.name.name();
            let default = i128::from(method == "printOpSelHi");
            let Some(list) = word
                .strip_prefix(name)
                .and_then(|w| w.strip_prefix(":["))
                .and_then(|w| w.strip_suffix(']'))
                .filter(|l| start > at && !l.is_empty())
            else {
                return Vec::new();
            };
            let values: Vec<Option<i128>> = list.split(',').map(|v| plain_integer(v.trim())).collect();
            let end = start + word.len();
            if values.iter().all(|&v| v == Some(default)) {
                let setting = Setting {
                    alias: Some(end),
                    ..Setting::default()
                };
                if self.printed(i, &setting).is_some_and(|p| p.trim().is_empty()) {
                    return vec![setting];
                }
            }
            // All bits clear or all set, when that is what the printer leaves out (VOP3P
            // `op_sel_hi:[1,1]` with a literal, mixed precision's `op_sel_hi:[0,0,0]`).
            if method == "printOpSelHi"
                && let Some(d) = values[0].filter(|&d| d == 0 || d == 1)
                && values.iter().all(|&v| v == Some(d))
            {
                let subsets = self.settings(i, at);
                let chosen = if d == 0 { subsets.first() } else { subsets.last() };
                if let Some(mut setting) = chosen.cloned()
                    && setting.bits.iter().all(|&(_, on)| on == (d == 1))
                {
                    setting.alias = Some(end);
                    if self.printed(i, &setting).is_some_and(|p| p.trim().is_empty()) {
                        return vec![setting];
                    }
                }
            }
            return Vec::new();
        }
        if let Some(settings) = self.numeric_format(i, at) {
            return settings;
        }
        if field.is_empty() && !is_source_like(operand.class) {
            // A bit the opcode implies (BVH `a16`): `noa16` where it prints nothing.
            let word = self.source.word_at(at);
            let text = self.source.text.as_bytes();
            let start = (at..text.len()).find(|&k| text[k] != b' ').unwrap_or(text.len());
            let setting = Setting {
                alias: Some(start + word.len()),
                ..Setting::default()
            };
            if start > at
                && word.strip_prefix("no") == Some(operand.name.name())
                && self.printed(i, &setting).is_some_and(|p| p.trim().is_empty())
            {
                return vec![setting];
            }
            return Vec::new();
        }
        if field.is_empty() || is_source_like(operand.class) {
            return Vec::new();
        }
        let name = operand.name.name();
        let mut out = Vec::new();
        let text = self.source.text.as_bytes();
        let start = (at..text.len()).find(|&k| text[k] != b' ').unwrap_or(text.len());
        let word = self.source.word_at(at);
        let end = start + word.len();
        let alias = |value: u64, end: usize| Setting {
            fields: vec![(field, value)],
            alias: Some(end),
            ..Setting::default()
        };
        if let Some((key, value)) = word.split_once(':')
            && key == name
            && start > at
        {
            // LLVM reads `bound_ctrl:0` as `bound_ctrl:1` before GFX11, as written from GFX11.
            let gfx11 = self.target().generation() >= super::Generation::Gfx11;
            let values: Vec<u64> = if name == "bound_ctrl" && !(gfx11 && value == "0") {
                vec![1]
            } else if name == "bound_ctrl" {
                vec![0]
            } else if operand.class == OperandClass::Dpp8FI {
                vec![if value == "0" { 0xe9 } else { 0xea }]
            } else {
                text::integers(value).into_iter().take(1).map(|v| v as u64).collect()
            };
            for v in values {
                let setting = alias(v, end);
                if name == "bound_ctrl" || self.printed(i, &setting).is_some_and(|p| p.trim().is_empty()) {
                    out.push(setting);
                }
            }
        }
        out.extend(self.more_aliases(i, at, start, word, end));
        let default = match name {
            "row_mask" | "bank_mask" => Some(0xf),
            "bound_ctrl" | "fi" => Some(0),
            "dst_sel" | "src0_sel" | "src1_sel" => Some(6),
            "dst_unused" => Some(2),
            _ => None,
        };
        if let Some(v) = default {
            out.push(alias(v, at));
        }
        out
    }

    /// Candidate settings for operand `i` at `at`, the current bits first.
    fn settings(&self, i: usize, at: usize) -> Vec<Setting> {
        let mut out = vec![Setting::default()];
        let operand = &self.e.operands[i];
        let field = self.e.fields[field_of(self.e, i)];
        let method = operand.class.info().print_method;
        if method == "printSwizzle"
            && let Some((value, end)) = bitmask_perm(&self.source.text, at)
        {
            // Only LLVM's encoding: others that print the same string differ from it.
            out.push(Setting { fields: vec![(field, value)], alias: Some(end), ..Setting::default() });
            return out;
        }
        if std::env::var_os("GFXPATCH_PARSE_TRACE").is_some() {
            eprintln!(
                "  settings of {}: field {field:?} method {method} source-like {} class {:?}",
                operand.name.name(),
                is_source_like(operand.class),
                operand.class.info()
            );
        }
        match method {
            "printOperandAndFPInputMods" | "printOperandAndIntInputMods" => {
                let sources = match self.e.fields.get(i + 1) {
                    Some(f) if !f.is_empty() => self.source_settings(i + 1, at),
                    _ => vec![Setting::default()],
                };
                let width = field_width(field).min(5);
                for mods in 0..(1u64 << width) {
                    for s in &sources {
                        let mut s = s.clone();
                        if !field.is_empty() {
                            s.fields.push((field, mods));
                        }
                        out.push(s);
                    }
                }
                return out;
            }
            "printOpSel" | "printOpSelHi" | "printNegLo" | "printNegHi" => {
                let positions: &[u8] = match method {
                    "printOpSel" => &[2, 3],
                    "printOpSelHi" => &[3],
                    "printNegLo" => &[0],
                    _ => &[1],
                };
                let mut bits = self.modifier_bits(positions);
                for &(lo, hi, _) in field {
                    bits.extend(lo..=hi);
                }
                bits.sort_unstable();
                bits.dedup();
                bits.truncate(10);
                let mut subsets: Vec<u32> = (0..1u32 << bits.len()).collect();
                subsets.sort_by_key(|s| s.count_ones());
                out.clear();
                for subset in subsets {
                    let bits = bits
                        .iter()
                        .enumerate()
                        .map(|(k, &b)| (b, subset & (1 << k) != 0))
                        .collect();
                    out.push(Setting {
                        bits,
                        ..Setting::default()
                    });
                }
                return out;
            }
            _ => {}
        }
        if field.is_empty() {
            out.extend(self.nsa_settings(i, at));
            // A VOPD `immDeferred` (no field: the K constant another operand holds) written as
            // a float, which prints as hex: read as an alias when it is that constant.
            let word = self.source.word_at(at);
            if operand.class.info().decoder_method.contains("KImm")
                && let Some(v) = float_literal(word, operand.class.info().operand_type, false)
                && let Some(k) = self.e.operands.iter().zip(self.e.fields).position(|(o, f)| {
                    o.class.info().decoder_method.contains("KImm") && !f.is_empty()
                })
                && extract(self.word, self.e.fields[k]) == v
            {
                let text = self.source.text.as_bytes();
                let start = (at..text.len()).find(|&k| text[k] != b' ').unwrap_or(at);
                out.push(Setting {
                    alias: Some(start + word.len()),
                    ..Setting::default()
                });
            }
            return out;
        }
        if operand.class == OperandClass::Dpp8FI {
            // DPP8's `fi` lives in src0: 0xe9 without it, 0xea with `fi:1`.
            for v in [0xe9, 0xea] {
                out.push(Setting {
                    fields: vec![(field, v)],
                    ..Setting::default()
                });
            }
            return out;
        }
        if is_source_like(operand.class) {
            out.extend(self.source_settings(i, at));
            // `s_version`'s operand as a number (printed as hex or a version expression; its
            // table holds neither): read as an alias.
            let word = self.source.word_at(at);
            if operand.class == OperandClass::VersionImm
                && let Some(n) = plain_integer(word).filter(|n| (0..=0xffff).contains(n))
            {
                let text = self.source.text.as_bytes();
                let start = (at..text.len()).find(|&k| text[k] != b' ').unwrap_or(at);
                out.push(Setting {
                    fields: vec![(field, n as u64)],
                    alias: Some(start + word.len()),
                    ..Setting::default()
                });
            }
            // Its expression of `UC_VERSION_*` symbols joined by `|`, as LLVM evaluates it
            // (the printer adds parentheses): read as an alias.
            if operand.class == OperandClass::VersionImm
                && let Some((n, end)) = version_expression(&self.source.text, at)
            {
                out.push(Setting {
                    fields: vec![(field, n)],
                    alias: Some(end),
                    ..Setting::default()
                });
            }
            // A 16-bit high half written `v1.h` in a VOP3 form is an `op_sel` bit.
            if self.source.word_at(at).contains(".h") {
                let bits = self.op_sel_bits(&[2, 3]);
                let with: Vec<Setting> = out
                    .iter()
                    .flat_map(|s| {
                        bits.iter().map(move |&b| {
                            let mut s = s.clone();
                            s.bits.push((b, true));
                            s
                        })
                    })
                    .collect();
                out.extend(with);
            }
            // Export sources print `off` unless their lane's `en` bit is set.
            if let Some(lane) = method
                .strip_prefix("printExpSrc")
                .and_then(|n| n.parse::<u8>().ok())
                && let Some(en) = self.e.operand_index(OperandName::en)
                && let Some(&(lo, _, _)) = self.e.fields[en].first()
            {
                let with_en: Vec<Setting> = out
                    .iter()
                    .map(|s| {
                        let mut s = s.clone();
                        s.bits.push((lo + lane, true));
                        s
                    })
                    .collect();
                out.extend(with_en);
            }
            // LLVM prints an MTBUF's format right after `soffset`: choose both together.
            if self.e.flags.has(flag::MTBUF)
                && operand.name == OperandName::soffset
                && let Some(format) = self.e.operand_index(OperandName::format)
            {
                let format_field = self.e.fields[format];
                let sources = std::mem::take(&mut out);
                for v in 0..(1u64 << field_width(format_field).min(8)) {
                    for s in &sources {
                        let mut s = s.clone();
                        s.fields.push((format_field, v));
                        out.push(s);
                    }
                }
            }
            return out;
        }
        let width = field_width(field);
        if width <= 8 || (width <= 16 && TABULATED.contains(&method)) {
            let table = imm_table(self.index, self.word, i, self.target(), self.e);
            let text = &self.source.text;
            let squeezed: String = text[at..].chars().take(96).collect();
            let mut key = String::new();
            for (k, c) in squeezed.char_indices() {
                let boundary = matches!(c, ' ' | ',' | '.');
                if boundary && let Some(values) = table.get(&key) {
                    out.extend(values.iter().map(|&v| Setting {
                        fields: vec![(field, v)],
                        ..Setting::default()
                    }));
                }
                let _ = k;
                if !c.is_whitespace() {
                    key.push(c);
                }
            }
            if let Some(values) = table.get(&key) {
                out.extend(values.iter().map(|&v| Setting {
                    fields: vec![(field, v)],
                    ..Setting::default()
                }));
            }
            if let Some(values) = table.get("") {
                out.extend(values.iter().take(1).map(|&v| Setting {
                    fields: vec![(field, v)],
                    ..Setting::default()
                }));
            }
        }
        // The numbers written in the next word.
        let word = self.source.word_at(at);
        if method == "printDPP8" {
            // dpp8:[a,b,...,h]: three bits a lane.
            let lanes = text::integers(word);
            let value = lanes
                .iter()
                .take(8)
                .enumerate()
                .fold(0u64, |v, (k, &l)| v | ((l as u64 & 7) << (3 * k)));
            out.push(Setting {
                fields: vec![(field, value)],
                ..Setting::default()
            });
        }
        let mask = if width >= 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        for n in text::integers(word).into_iter().take(2) {
            out.push(Setting {
                fields: vec![(field, (n as u64) & mask)],
                ..Setting::default()
            });
            // A 64-bit float K constant written in 32 bits is its high half (the printer
            // writes `0x405ec000` for 0x405ec000_00000000); printing decides.
            if width == 64
                && operand.class.info().decoder_method.contains("KImm")
                && (0..=0xffff_ffff).contains(&n)
            {
                out.push(Setting {
                    fields: vec![(field, (n as u64) << 32)],
                    ..Setting::default()
                });
            }
        }
        // A K constant written as a float prints as hex: read as an alias.
        if operand.class.info().decoder_method.contains("KImm")
            && let Some(v) = float_literal(word, operand.class.info().operand_type, false)
                .or_else(|| plain_integer(word).filter(|n| *n < 0).map(|n| n as u64))
        {
            let text = self.source.text.as_bytes();
            let start = (at..text.len()).find(|&k| text[k] != b' ').unwrap_or(at);
            out.push(Setting {
                fields: vec![(field, v & mask)],
                alias: Some(start + word.len()),
                ..Setting::default()
            });
        }
        if let Some(f) = text::float(
            word.trim_start_matches(|c: char| c.is_ascii_alphabetic() || c == ':' || c == '('),
        ) {
            for bits in float_encodings(f) {
                out.push(Setting {
                    fields: vec![(field, bits & mask)],
                    ..Setting::default()
                });
            }
        }
        out
    }

    /// Candidate field values for a register-or-constant operand `i` from the text at `at`:
    /// whatever a value printed at one of the next word starts would read as, and literals.
    fn source_settings(&self, i: usize, at: usize) -> Vec<Setting> {
        let operand = &self.e.operands[i];
        let field = self.e.fields[field_of(self.e, i)];
        let table = value_table(operand.class, self.word, i, self.target(), self.e);
        if std::env::var_os("GFXPATCH_PARSE_TRACE").is_some() {
            let mut keys: Vec<_> = table.values.keys().collect();
            keys.sort();
            keys.truncate(8);
            eprintln!("  table of {}: {} values, {keys:?}", operand.name.name(), table.values.len());
        }
        let text = self.source.text.as_bytes();
        let mut out = Vec::new();
        let window = (at + 40).min(text.len());
        let starts = (at..window)
            .filter(|&s| s == at || matches!(text[s - 1], b' ' | b',' | b'-' | b'|' | b'(' | b'['));
        let mut literal_tried = false;
        // A float written for a 16-bit integer operand is its inline constant, which prints
        // as hex: read as an alias.
        let mut first = (at..text.len()).find(|&k| text[k] != b' ').unwrap_or(text.len());
        // VOPC's implicit `vcc` prints with its first source.
        for vcc in ["vcc, ", "vcc_lo, "] {
            if text[first..].starts_with(vcc.as_bytes()) {
                first += vcc.len();
            }
        }
        let word = self.source.word_at(first);
        if !table.hex_inline_floats.is_empty()
            && word.contains('.')
            && let Some(bits) = text::float(word).and_then(f16_bits)
            && let Some(&code) = table.hex_inline_floats.get(&format!("0x{bits:x}"))
        {
            out.push(Setting {
                fields: vec![(field, code)],
                alias: Some(first + word.len()),
                ..Setting::default()
            });
        }
        for start in starts {
            for end in start + 1..=(start + 32).min(text.len()) {
                if end < text.len() && !matches!(text[end], b' ' | b',' | b'|' | b')' | b']' | b':')
                {
                    continue;
                }
                let Ok(key) = std::str::from_utf8(&text[start..end]) else {
                    continue;
                };
                if let Some(codes) = table.values.get(key) {
                    out.extend(codes.iter().map(|&c| Setting {
                        fields: vec![(field, c)],
                        ..Setting::default()
                    }));
                } else if operand.class.info().decoder_method == "decodeOperandVOPDDstY"
                    && let Some(n) = key.strip_prefix('v').and_then(|n| n.parse::<u64>().ok())
                {
                    // VOPD's vdstY keeps all but its low bit (the opposite of vdstX's), so
                    // the table, made with some vdstX, holds only half the registers.
                    out.push(Setting {
                        fields: vec![(field, n)],
                        ..Setting::default()
                    });
                } else {
                    // The table was made from other bits than those at hand: a tuple whose
                    // width comes from another field (MIMG `dmask`), a 16-bit half selected by
                    // `op_sel`. Its first register's code is a candidate; printing decides.
                    for alternate in alternate_keys(key) {
                        if let Some(codes) = table.values.get(&alternate) {
                            out.extend(codes.iter().map(|&c| Setting {
                                fields: vec![(field, c)],
                                ..Setting::default()
                            }));
                        }
                    }
                }
            }
            // An integer written in hex names the same inline constant as in decimal (`0x6` is
            // 6); one outside the inline range (`0xffffffff`) stays a literal below.
            if text[start..].starts_with(b"0x") {
                let digits: String = std::str::from_utf8(&text[start + 2..])
                    .unwrap_or("")
                    .chars()
                    .take_while(char::is_ascii_hexdigit)
                    .collect();
                let negative = start > 0 && text[start - 1] == b'-';
                if let Ok(n) = u64::from_str_radix(&digits, 16) {
                    let decimal = if negative {
                        format!("-{n}")
                    } else {
                        n.to_string()
                    };
                    if let Some(codes) = table.values.get(&decimal) {
                        out.extend(codes.iter().map(|&c| Setting {
                            fields: vec![(field, c)],
                            ..Setting::default()
                        }));
                    }
                }
            }
            // A literal: the number starting here, in each form the operand could hold it.
            if !literal_tried && !table.literal_codes.is_empty() && text[start].is_ascii_digit() {
                literal_tried = true;
                let negative = start > 0 && text[start - 1] == b'-';
                let word: String = std::str::from_utf8(&text[start..])
                    .unwrap_or("")
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
                    .collect();
                let unsigned_end = start + word.len();
                let word = if negative { format!("-{word}") } else { word };
                let kind = operand.class.info().operand_type;
                for &code in &table.literal_codes {
                    let wide = code == 254 && has_64bit_literals(self.target());
                    // A float literal prints as its bits in hex: the value the operand's type
                    // makes of it (as LLVM's assembler converts it), read as an alias.
                    let first = (at..text.len()).find(|&k| text[k] != b' ').unwrap_or(at);
                    let here = start == first || (negative && start == first + 1);
                    let float = float_literal(&word, kind, wide).filter(|_| here);
                    let values = match float {
                        Some(v) => vec![v],
                        None => literal_values(&word, wide),
                    };
                    for value in values {
                        let tail = if wide {
                            value.to_le_bytes().to_vec()
                        } else {
                            (value as u32).to_le_bytes().to_vec()
                        };
                        // One literal per instruction: a second source must repeat the first.
                        if !self.tail.is_empty() && self.tail != tail {
                            continue;
                        }
                        let mut setting = Setting {
                            fields: vec![(field, u64::from(code))],
                            bits: Vec::new(),
                            tail: Some(tail),
                            alias: float.map(|_| unsigned_end),
                        };
                        // A K constant in the encoding is the literal its sources read.
                        if let Some(k) = self
                            .e
                            .operands
                            .iter()
                            .position(|o| o.class.info().decoder_method.contains("KImm"))
                        {
                            setting.fields.push((self.e.fields[k], value));
                            setting.tail = None;
                        }
                        out.push(setting);
                    }
                }
            }
        }
        out
    }
}

/// How many MIMG NSA address operands (`vaddr1`, ...) `e` keeps in the bytes after its
/// encoding, one byte each, in whole dwords.
fn nsa_address_bytes(e: &Encoding) -> usize {
    let vaddr0 = e.operand_index(OperandName::vaddr0);
    let rsrc = e
        .operand_index(OperandName::srsrc)
        .or_else(|| e.operand_index(OperandName::rsrc));
    match (e.flags.has(flag::MIMG), vaddr0, rsrc) {
        (true, Some(v0), Some(rs)) if rs > v0 + 1 => rs - v0 - 1,
        _ => 0,
    }
}

impl Attempt<'_> {
    /// A MIMG NSA address operand after the first (`[v1, v5, v[8:9]]`): its register's first
    /// index in its byte after the encoding. Printing checks the rest (the tuple's width).
    fn nsa_settings(&self, i: usize, _at: usize) -> Vec<Setting> {
        let Some(v0) = self.e.operand_index(OperandName::vaddr0) else {
            return Vec::new();
        };
        let k = i.wrapping_sub(v0 + 1);
        if i <= v0 || k >= nsa_address_bytes(self.e) || k >= self.tail.len() {
            return Vec::new();
        }
        let word = self.source.word_at(_at);
        let digits: String = word
            .trim_start_matches(['[', 'v'])
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let Ok(first) = digits.parse::<u8>() else {
            return Vec::new();
        };
        let mut tail = self.tail.clone();
        tail[k] = first;
        vec![Setting {
            tail: Some(tail),
            ..Setting::default()
        }]
    }
}

impl Attempt<'_> {
    /// More spellings LLVM's assembler accepts: `noa16` (any named bit written `no` + name for
    /// 0), a control word written as a number (`s_waitcnt_depctr 0xff9f`, `s_getreg_b32 s0, 6`,
    /// `offset:0xffff` for a swizzle), and `s_waitcnt_depctr` fields in any order, defaults
    /// written out, joined by `&` or `,`.
    fn more_aliases(&mut self, i: usize, at: usize, start: usize, word: &str, end: usize) -> Vec<Setting> {
        let operand = &self.e.operands[i];
        let field = self.e.fields[i];
        let name = operand.name.name();
        let method = operand.class.info().print_method;
        let alias = |value: u64, end: usize| Setting {
            fields: vec![(field, value)],
            alias: Some(end),
            ..Setting::default()
        };
        let mut out = Vec::new();
        if start > at && word.strip_prefix("no") == Some(name) {
            let setting = alias(0, end);
            if self.printed(i, &setting).is_some_and(|p| p.trim().is_empty()) {
                out.push(setting);
            }
        }
        let numeric = matches!(
            method,
            "printSWaitCnt"
                | "printHwreg"
                | "printSendMsg"
                | "printSDelayALU"
                | "printDepCtr"
                | "printSwizzle"
                | "printGPRIdxMode"
        );
        if numeric {
            let number = if method == "printSwizzle" {
                word.strip_prefix("offset:")
            } else {
                Some(word)
            };
            if let Some(number) = number
                && let Some(n) = plain_integer(number)
            {
                let width = field_width(field);
                let mask = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
                let fits = if n < 0 { -n <= (mask as i128 + 1) / 2 } else { n <= mask as i128 };
                if fits {
                    out.push(alias(n as u64 & mask, end));
                }
            }
        }
        // `hwreg(N)`, `hwreg(N, offset, size)` with a numeric register id, which the printer
        // shows by name where it has one (GFX1250 `hwreg(33)` is `HW_REG_XNACK_STATE_PRIV`).
        if method == "printHwreg"
            && let Some(args) = word.strip_prefix("hwreg(").and_then(|w| w.strip_suffix(')'))
        {
            let args: Vec<Option<i128>> = args.split(',').map(|a| plain_integer(a.trim())).collect();
            let value = match args[..] {
                [Some(id)] => Some((id, 0, 32)),
                [Some(id), Some(offset), Some(size)] => Some((id, offset, size)),
                _ => None,
            };
            if let Some((id, offset, size)) = value
                && (0..64).contains(&id)
                && (0..32).contains(&offset)
                && (1..=32).contains(&size)
            {
                out.push(alias((id | offset << 6 | (size - 1) << 11) as u64, end));
            }
        }
        // Cache-policy words in another order than the printer's (`scope:SCOPE_SYS
        // th:TH_LOAD_BYPASS`).
        if method == "printCPol" {
            let rest = &self.source.text[start..];
            let mut words: Vec<&str> = Vec::new();
            let mut ends: Vec<usize> = Vec::new();
            let mut offset = start;
            for w in rest.split(' ') {
                let cpol = w.starts_with("th:")
                    || w.starts_with("scope:")
                    || matches!(w, "glc" | "slc" | "dlc" | "scc" | "nv" | "sc0" | "sc1" | "nt");
                if !cpol || words.len() == 5 {
                    break;
                }
                offset += w.len();
                words.push(w);
                ends.push(offset);
                offset += 1;
            }
            if words.len() > 1 {
                let table = imm_table(self.index, self.word, i, self.target(), self.e);
                let mut order: Vec<usize> = (0..words.len()).collect();
                let mut found = None;
                permutations(&mut order, 0, &mut |o| {
                    let key: String = o.iter().map(|&k| words[k]).collect();
                    if found.is_none()
                        && let Some(values) = table.get(&key)
                    {
                        found = values.first().copied();
                    }
                });
                if let Some(v) = found {
                    out.push(alias(v, *ends.last().unwrap()));
                }
            }
        }
        // GFX12 SMEM `offset:` after an SGPR offset, left out: 0.
        if method == "printSMEMOffsetMod"
            && self.target().generation() >= super::Generation::Gfx12
            && !word.starts_with("offset:")
        {
            out.push(alias(0, at));
        }
        if method == "printDepCtr"
            && let Some((value, end)) = depctr_words(self.target(), &self.source.text, start)
        {
            out.push(alias(value, end));
        }
        out
    }
}

impl Attempt<'_> {
    /// An MTBUF format written another way than LLVM prints it, after `soffset`: as a number
    /// (`s3, format:22`), at its default (`format:1`, `format:[BUF_FMT_8_UNORM]`, which LLVM
    /// leaves out), or on GFX10+ in the GFX9 split syntax (`format:[BUF_DATA_FORMAT_32,
    /// BUF_NUM_FORMAT_FLOAT]`, which LLVM's assembler converts to the unified format of the same
    /// name, `BUF_FMT_32_FLOAT`; either part left out is its default, `8` and `UNORM`).
    /// `soffset` and the format are chosen together, read as an alias.
    fn numeric_format(&mut self, i: usize, at: usize) -> Option<Vec<Setting>> {
        if !self.e.flags.has(flag::MTBUF) || self.e.operands[i].name != OperandName::soffset {
            return None;
        }
        let format = self.e.operand_index(OperandName::format)?;
        let format_field = self.e.fields[format];
        let text = self.source.text.as_bytes();
        let start = (at..text.len()).find(|&k| text[k] != b' ')?;
        let soffset = self.source.word_at(start).to_owned();
        let mut next = start + soffset.len();
        while next < text.len() && matches!(text[next], b' ' | b',') {
            next += 1;
        }
        let word = self.source.word_at(next).to_owned();
        let written = word.strip_prefix("format:")?;
        let values = 1i128 << field_width(format_field).min(8);
        let unified = self.target().generation().is_gfx10_plus();
        let n = match plain_integer(written) {
            Some(n) => n,
            None => {
                let wanted = FormatName::written(written, unified)?;
                let mut found = None;
                for v in 0..values {
                    let setting = Setting {
                        fields: vec![(format_field, v as u64)],
                        ..Setting::default()
                    };
                    let printed = self.printed(i, &setting).unwrap_or_default();
                    let printed = printed.find(" format:").map_or("", |k| &printed[k + 8..]);
                    if FormatName::printed(printed, unified).as_ref() == Some(&wanted) {
                        found = Some(v);
                        break;
                    }
                }
                found?
            }
        };
        if !(0..values).contains(&n) {
            return None;
        }
        let end = next + word.len();
        let mut out = Vec::new();
        for mut setting in self.source_settings(i, at) {
            setting.fields.push((format_field, n as u64));
            setting.alias = Some(end);
            let printed = self.printed(i, &setting).unwrap_or_default();
            if printed.split_whitespace().next() == Some(soffset.as_str()) {
                out.push(setting);
            }
        }
        (!out.is_empty()).then_some(out)
    }
}

/// An MTBUF format by name, as written or printed (the text after `format:`; empty for the
/// default, which LLVM does not print).
#[derive(Debug, PartialEq, Eq)]
enum FormatName {
    /// GFX10+: the unified format `BUF_FMT_{name}`.
    Unified(String),
    /// GFX8/GFX9: `BUF_DATA_FORMAT_{dfmt}`, `BUF_NUM_FORMAT_{nfmt}`.
    Split(String, String),
    Number(i128),
}

impl FormatName {
    /// A format as printed; empty is the default (unified `8_UNORM`; dfmt 1, nfmt 0).
    fn printed(text: &str, unified: bool) -> Option<FormatName> {
        if text.is_empty() {
            return Some(if unified {
                FormatName::Unified("8_UNORM".to_owned())
            } else {
                FormatName::Split("8".to_owned(), "UNORM".to_owned())
            });
        }
        Self::written(text, unified)
    }

    /// A format as written after `format:`: a number, or names in brackets.
    fn written(text: &str, unified: bool) -> Option<FormatName> {
        if let Some(n) = plain_integer(text) {
            return Some(FormatName::Number(n));
        }
        let list = text.strip_prefix('[')?.strip_suffix(']')?;
        let names: Vec<&str> = list.split(',').map(str::trim).collect();
        if let [name] = names[..]
            && let Some(u) = name.strip_prefix("BUF_FMT_")
        {
            return unified.then(|| FormatName::Unified(u.to_owned()));
        }
        let (mut dfmt, mut nfmt) = (None, None);
        for name in names {
            if let Some(d) = name.strip_prefix("BUF_DATA_FORMAT_")
                && dfmt.is_none()
            {
                dfmt = Some(d);
            } else if let Some(n) = name.strip_prefix("BUF_NUM_FORMAT_")
                && nfmt.is_none()
            {
                nfmt = Some(n);
            } else {
                return None;
            }
        }
        let (d, n) = (dfmt.unwrap_or("8"), nfmt.unwrap_or("UNORM"));
        Some(if unified {
            // LLVM's table pairs only `INVALID` with `UNORM` (to `BUF_FMT_INVALID`).
            FormatName::Unified(match (d, n) {
                ("INVALID", "UNORM") => "INVALID".to_owned(),
                _ => format!("{d}_{n}"),
            })
        } else {
            FormatName::Split(d.to_owned(), n.to_owned())
        })
    }
}

/// Calls `f` with every ordering of `items[k..]` (after `items[..k]`).
fn permutations(items: &mut Vec<usize>, k: usize, f: &mut impl FnMut(&[usize])) {
    if k == items.len() {
        f(items);
        return;
    }
    for j in k..items.len() {
        items.swap(k, j);
        permutations(items, k + 1, f);
        items.swap(k, j);
    }
}

/// `s_version`'s operand written as LLVM's symbols (`UC_VERSION_GFX12 | UC_VERSION_W64_BIT`,
/// parentheses allowed) and numbers joined by `|`: its value and where it ends.
fn version_expression(text: &str, at: usize) -> Option<(u64, usize)> {
    let rest = &text[at..];
    let len = rest.find([',', ';']).unwrap_or(rest.len());
    let expression = rest[..len].trim_end();
    let mut value = 0u64;
    for term in expression.split('|') {
        let term = term.trim().trim_matches(['(', ')', ' ']);
        value |= match term {
            "UC_VERSION_GFX7" => 0,
            "UC_VERSION_GFX10" => 4,
            "UC_VERSION_GFX11" => 6,
            "UC_VERSION_GFX12" => 9,
            "UC_VERSION_W64_BIT" => 0x2000,
            "UC_VERSION_W32_BIT" => 0x4000,
            "UC_VERSION_MDP_BIT" => 0x8000,
            other => u64::try_from(plain_integer(other)?).ok().filter(|&n| n <= 0xffff)?,
        };
    }
    let opens = expression.matches('(').count();
    (opens == expression.matches(')').count() && expression.contains("UC_VERSION_"))
        .then_some((value, at + expression.len()))
}

/// An integer written whole: decimal or `0x` hex, with an optional `-`.
fn plain_integer(word: &str) -> Option<i128> {
    let (negative, digits) = match word.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, word),
    };
    let value = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        Some(hex) => i128::from_str_radix(hex, 16).ok()?,
        None if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) => digits.parse().ok()?,
        None => return None,
    };
    Some(if negative { -value } else { value })
}

/// `s_waitcnt_depctr` fields as LLVM's assembler reads them: `name(value)` items separated by
/// spaces, `&` or `,`, each field at most once; fields not written keep their default (their
/// maximum). The value and where the text ends, or `None` if the text at `start` is not such a
/// list.
fn depctr_words(target: &Target, text: &str, start: usize) -> Option<(u64, usize)> {
    let fields: Vec<_> = crate::isa::print::control::depctr_fields(target.generation()).collect();
    let mut value: u64 = fields
        .iter()
        .map(|&&(_, shift, width)| ((1u64 << width) - 1) << shift)
        .sum();
    let bytes = text.as_bytes();
    let mut at = start;
    let mut end = None;
    let mut seen = 0u32;
    loop {
        // A separator before every item but the first.
        let mut k = at;
        while k < bytes.len() && bytes[k] == b' ' {
            k += 1;
        }
        if end.is_some() && k < bytes.len() && matches!(bytes[k], b'&' | b',') {
            k += 1;
            while k < bytes.len() && bytes[k] == b' ' {
                k += 1;
            }
        }
        let rest = &text[k..];
        let Some((n, &&(_, shift, width))) = fields
            .iter()
            .enumerate()
            .find(|(_, f)| rest.starts_with(f.0) && rest[f.0.len()..].starts_with('('))
        else {
            break;
        };
        let name_len = fields[n].0.len();
        let inner = &rest[name_len + 1..];
        let close = inner.find(')')?;
        let v = plain_integer(inner[..close].trim())?;
        if v < 0 || v >= 1 << width || seen & (1 << n) != 0 {
            return None;
        }
        seen |= 1 << n;
        value = (value & !(((1u64 << width) - 1) << shift)) | ((v as u64) << shift);
        at = k + name_len + 1 + close + 1;
        end = Some(at);
    }
    end.map(|e| (value, e))
}

/// `offset:swizzle(BITMASK_PERM,"01pi0")` at `at` in `text` as LLVM's assembler encodes it,
/// and where it ends: per lane-id bit, from bit 4 down, `0` forces 0, `1` forces 1 (or mask),
/// `p` keeps the bit (and mask), `i` inverts it (and and xor masks). Other encodings print as
/// the same string (an and-mask bit under a set or-mask bit changes nothing), and LLVM's printer
/// shows this one as `BROADCAST` when the string has no `p` or `i`, so the text is read as
/// LLVM's assembler reads it, not by what prints back.
fn bitmask_perm(text: &str, at: usize) -> Option<(u64, usize)> {
    let start = at + text[at..].len() - text[at..].trim_start().len();
    let rest = text[start..].strip_prefix("offset:swizzle(BITMASK_PERM,")?;
    let trimmed = rest.trim_start();
    let lanes = trimmed.strip_prefix('"')?.get(..5)?;
    let close = trimmed.get(6..)?;
    let after = close.strip_prefix('"')?.trim_start().strip_prefix(')')?;
    let (mut and, mut or, mut xor) = (0u64, 0u64, 0u64);
    for (k, c) in lanes.bytes().enumerate() {
        let bit = 1 << (4 - k);
        match c {
            b'0' => {}
            b'1' => or |= bit,
            b'p' => and |= bit,
            b'i' => {
                and |= bit;
                xor |= bit;
            }
            _ => return None,
        }
    }
    Some((and | or << 5 | xor << 10, text.len() - after.len()))
}

/// The operand whose field holds operand `i`'s bits: itself, or for a MIMG atomic's `vdst`
/// (tied to `vdata`, not encoded) `vdata`.
fn field_of(e: &Encoding, i: usize) -> usize {
    if e.fields[i].is_empty()
        && e.operands[i].name == OperandName::vdst
        && let Some(k) = e.operand_index(OperandName::vdata)
        && !e.fields[k].is_empty()
    {
        return k;
    }
    i
}

/// Where operand `i` of `e` is in the record the decoder converted it to (a MIMG record of
/// other address and data widths): the operand of the same name, or for a MIMG atomic's data
/// (`vdst` in one record, `vdata` in the other) the same place.
fn sibling_index(sibling: &Encoding, e: &Encoding, i: usize) -> Option<usize> {
    let name = e.operands[i].name;
    sibling.operand_index(name).or_else(|| match name {
        OperandName::vdst => sibling.operand_index(OperandName::vdata),
        OperandName::vdata => sibling.operand_index(OperandName::vdst),
        _ => None,
    })
}

/// Other names under which a register written as `key` may be tabulated: `v1` for `v[1:2]`,
/// `v1.l` and `v1` for `v1.h`.
fn alternate_keys(key: &str) -> Vec<String> {
    let mut out = Vec::new();
    // GFX90A+ memory instructions choose AGPR or VGPR data with one bit outside the data
    // field (shared with `vdst`): a table made with that bit the other way holds the register
    // of the same number in the other file.
    let swapped = match key.as_bytes().first() {
        Some(b'a') => Some(format!("v{}", &key[1..])),
        Some(b'v') => Some(format!("a{}", &key[1..])),
        _ => None,
    }
    .filter(|k| k[1..].starts_with(|c: char| c.is_ascii_digit() || c == '['));
    out.extend(swapped.clone());
    for key in std::iter::once(key).chain(swapped.as_deref()) {
        if let Some((prefix, rest)) = key.split_once('[')
            && matches!(prefix, "v" | "s" | "a" | "ttmp")
            && let Some((first, _)) = rest.split_once(':')
            && first.bytes().all(|c| c.is_ascii_digit())
        {
            out.push(format!("{prefix}{first}"));
            out.push(format!("{prefix}[{first}]"));
            if let Ok(n) = first.parse::<u16>() {
                let n = u32::from(n);
                for width in 1..16 {
                    out.push(format!("{prefix}[{n}:{}]", n + width));
                }
            }
        }
        if let Some(reg) = key.strip_suffix(".h").or_else(|| key.strip_suffix(".l")) {
            out.push(format!("{reg}.l"));
            out.push(format!("{reg}.h"));
            out.push(reg.to_owned());
        }
    }
    out
}

/// Whether an operand class holds a register or constant (read through a value table) rather
/// than a plain immediate.
fn is_source_like(class: OperandClass) -> bool {
    let info = class.info();
    if info.decoder_method.contains("KImm")
        || info.decoder_method.contains("SMEMOffset")
        || class == OperandClass::SOPPBrTarget
    {
        return false;
    }
    // A register class used directly as an operand (`VGPR_32` as a MIMG atomic's `vdst`) has
    // no operand-class information of its own.
    let register_class = info.reg_class.is_empty()
        && info.print_method.is_empty()
        && info.decoder_method.is_empty()
        && ["VGPR", "AGPR", "SGPR", "SReg", "VReg", "AReg", "AV_"]
            .iter()
            .any(|p| class.name().starts_with(p));
    register_class
        || !info.reg_class.is_empty()
        || (!info.decoder_method.is_empty() && !info.decoder_method.contains("Dpp8FI"))
}

/// The bit patterns a float may be stored as: f32, f16, bf16, the high half of an f64, f64.
fn float_encodings(f: f64) -> Vec<u64> {
    let f32_bits = (f as f32).to_bits();
    let mut out = vec![u64::from(f32_bits), f.to_bits() >> 32, f.to_bits()];
    if let Some(h) = f16_bits(f) {
        out.push(u64::from(h));
    }
    if f32_bits & 0xffff == 0 {
        out.push(u64::from(f32_bits >> 16));
    }
    out
}

/// The values a literal written as `word` may hold: integers as written (32-bit, 16-bit low
/// half, the high half of a 64-bit value) and floats in each width.
fn literal_values(word: &str, wide: bool) -> Vec<u64> {
    let mut out = Vec::new();
    if let Some(f) = text::float(word) {
        out.extend(float_encodings(f));
    } else if let Some(&n) = text::integers(word).first() {
        let n = if word.starts_with('-') && n > 0 {
            -n
        } else {
            n
        };
        if wide {
            out.push(n as u64);
        }
        out.push(n as u64 & 0xffff_ffff);
        out.push(((n as u64) >> 32) & 0xffff_ffff);
    }
    out.dedup();
    out
}

/// The literal a float written as `word` gives an operand of LLVM operand type `kind`: f32 bits
/// for 32-bit operands, f16 bits (exact only) for 16-bit ones, the high half of the double for
/// 64-bit ones (whole when the literal is 64-bit), `None` for a word that is no float.
fn float_literal(word: &str, kind: &str, wide: bool) -> Option<u64> {
    if !word.contains(['.', 'e', 'E']) {
        return None;
    }
    let f = text::float(word)?;
    if kind.contains("FP64") || kind.contains("INT64") || kind.contains("B64") {
        let bits = f.to_bits();
        return Some(if wide { bits } else { bits >> 32 });
    }
    if kind.contains("16") {
        return f16_bits(f).map(u64::from);
    }
    Some(u64::from((f as f32).to_bits()))
}

/// IEEE half-precision bits of `f`, when exact.
fn f16_bits(f: f64) -> Option<u16> {
    if f == 0.0 {
        return Some(if f.is_sign_negative() { 0x8000 } else { 0 });
    }
    let sign = if f < 0.0 { 0x8000u16 } else { 0 };
    let a = f.abs();
    let exp = a.log2().floor() as i32;
    if !(-14..=15).contains(&exp) {
        return None;
    }
    let mantissa = a / 2f64.powi(exp) - 1.0;
    let m = mantissa * 1024.0;
    if m.fract() != 0.0 {
        return None;
    }
    Some(sign | (((exp + 15) as u16) << 10) | m as u16)
}

/// What each value of a register-or-constant field prints as, for one operand class.
#[derive(Default)]
struct ValueTable {
    /// Printed text to field values (several may print alike; smallest first).
    values: HashMap<String, Vec<u64>>,
    /// Field values selecting a literal (255; 254 for a 64-bit one).
    literal_codes: Vec<u16>,
    /// Inline float constants of a 16-bit integer operand, by the hex they print as.
    hex_inline_floats: HashMap<String, u64>,
}

type TableKey = (u16, FieldBits, &'static str, bool, bool);

/// The value table of operand `i` of `e`, read from bits `base` with the field varied (shared
/// by every encoding with the same operand class and field layout on the target: the layout
/// decides which codes reach which values, e.g. whether gfx90a's AGPR bit is part of the field,
/// so a table read through one layout is wrong for another).
fn value_table(
    class: OperandClass,
    base: u128,
    i: usize,
    target: &Target,
    e: &'static Encoding,
) -> Arc<ValueTable> {
    static CACHE: OnceLock<Mutex<HashMap<TableKey, Arc<ValueTable>>>> = OnceLock::new();
    let field = e.fields[field_of(e, i)];
    let key = (
        class as u16,
        field,
        target.processor.name,
        target.wave64,
        target.real_true16,
    );
    if let Some(t) = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .get(&key)
    {
        return t.clone();
    }
    let width = field_width(field).min(10);
    let mut table = ValueTable::default();
    let zeros = [0u8; 8];
    let mut out = String::new();
    for code in 0..(1u64 << width) {
        let word = deposit(base, field, code);
        let Ok(ops) = decode_operands(e, word, &zeros, target) else {
            continue;
        };
        let (encoding, index) = match ops.converted {
            Some(s) => match sibling_index(s, e, i) {
                Some(k) => (s, k),
                None => continue,
            },
            None => (e, i),
        };
        let value = ops.as_slice()[index].value;
        if matches!(value, Value::Literal(_) | Value::Literal64(_)) {
            table.literal_codes.push(code as u16);
            continue;
        }
        out.clear();
        print::operand::print_value(
            &mut out,
            &print_ctx_dummy(encoding, &ops, target),
            index,
            value,
        );
        // An inline float constant of a 16-bit integer operand prints as its bits in hex
        // (`0x3800` for 0.5), but LLVM reads that hex as a literal, the inline constant only
        // from the float (`0.5`).
        if (240..=248).contains(&(code & 0xff)) && out.starts_with("0x") {
            table.hex_inline_floats.insert(out.clone(), code);
            continue;
        }
        table.values.entry(out.clone()).or_default().push(code);
    }
    let table = Arc::new(table);
    if !table.values.is_empty() {
        CACHE
            .get_or_init(Default::default)
            .lock()
            .unwrap()
            .insert(key, table.clone());
    }
    table
}

/// What each value of a small immediate field prints as (whitespace removed), for one operand
/// of one encoding on the target.
fn imm_table(
    index: u16,
    base: u128,
    i: usize,
    target: &Target,
    e: &'static Encoding,
) -> Arc<HashMap<String, Vec<u64>>> {
    type Key = (u16, u8, &'static str, bool, bool);
    type Tables = HashMap<Key, Arc<HashMap<String, Vec<u64>>>>;
    static CACHE: OnceLock<Mutex<Tables>> = OnceLock::new();
    let key = (
        index,
        i as u8,
        target.processor.name,
        target.wave64,
        target.real_true16,
    );
    if let Some(t) = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .get(&key)
    {
        return t.clone();
    }
    let field = e.fields[field_of(e, i)];
    let width = field_width(field).min(16);
    let mut table: HashMap<String, Vec<u64>> = HashMap::new();
    let zeros = [0u8; 16];
    let mut out = String::new();
    for v in 0..(1u64 << width) {
        let word = deposit(base, field, v);
        let Ok(ops) = decode_operands(e, word, &zeros, target) else {
            continue;
        };
        let (encoding, index) = match ops.converted {
            Some(s) => match sibling_index(s, e, i) {
                Some(k) => (s, k),
                None => continue,
            },
            None => (e, i),
        };
        out.clear();
        print::write_operand(&mut out, encoding, &ops, target, index);
        out.retain(|c| !c.is_whitespace());
        let values = table.entry(out.clone()).or_default();
        if values.len() < 4 {
            values.push(v);
        }
    }
    let table = Arc::new(table);
    CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .insert(key, table.clone());
    table
}

/// A print context for printing one value.
fn print_ctx_dummy<'a>(
    encoding: &'static Encoding,
    ops: &'a Operands,
    target: &'a Target,
) -> print::Ctx<'a> {
    static RAW: OnceLock<Inst> = OnceLock::new();
    print::Ctx {
        inst: RAW.get_or_init(|| Inst::raw(0)),
        encoding,
        ops,
        target,
        address: 0,
    }
}

/// "a VGPR" and the like, for "expected ..." messages.
fn describe(class: OperandClass) -> String {
    let info = class.info();
    let rc = if info.reg_class.is_empty() {
        class.name()
    } else {
        info.reg_class
    };
    let bits = rc
        .split('_')
        .find_map(|p| p.parse::<u32>().ok())
        .unwrap_or(32);
    let width = if bits > 32 {
        format!("{bits}-bit ")
    } else {
        String::new()
    };
    if rc.starts_with("VGPR") || rc.starts_with("VReg") {
        format!("a {width}VGPR")
    } else if rc.starts_with("AGPR") || rc.starts_with("AReg") {
        format!("an {width}AGPR")
    } else if rc.starts_with("AV") {
        format!("a {width}VGPR or AGPR")
    } else if rc.starts_with("SReg") || rc.starts_with("SGPR") {
        format!("an {width}SGPR")
    } else if rc.starts_with("VS")
        || rc.starts_with("VCSrc")
        || rc.starts_with("VSrc")
        || rc.starts_with("SSrc")
        || rc.starts_with("SCSrc")
    {
        format!("a {width}register or constant")
    } else {
        format!("{} operand", class.name())
    }
}

/// What an operand class accepts, for hints.
fn takes(class: OperandClass) -> String {
    let info = class.info();
    let rc = if info.reg_class.is_empty() {
        class.name()
    } else {
        info.reg_class
    };
    let mut parts: Vec<&str> = Vec::new();
    if rc.contains("VGPR")
        || rc.contains("VReg")
        || rc.starts_with("VS")
        || rc.starts_with("AV")
        || rc.starts_with("VSrc")
        || rc.starts_with("VCSrc")
    {
        parts.push("v0..v255");
    }
    if rc.contains("AGPR") || rc.contains("AReg") || rc.starts_with("AV") {
        parts.push("a0..a255");
    }
    if rc.contains("SReg")
        || rc.contains("SGPR")
        || rc.starts_with("VS")
        || rc.starts_with("SSrc")
        || rc.starts_with("SCSrc")
        || rc.starts_with("VSrc")
        || rc.starts_with("VCSrc")
    {
        parts.push("SGPRs");
    }
    if info.operand_type.contains("INLINE") || info.operand_type.contains("IMM") {
        parts.push(if info.operand_type.contains("INLINE_C") {
            "inline constants"
        } else {
            "constants"
        });
    }
    if parts.is_empty() {
        return format!("{} ({})", class.name(), rc);
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests;
