//! The semantic check: a rule must mean what it says.
//!
//! For each generation a rule claims, the pattern (each alternative) and the replacement are
//! run in [`super::eval`] on the pseudocode each instruction means there ([`super::meaning`]),
//! from the same starting state: edge values (0, 1, 31, 32, 33, sign bits, all-ones) in every
//! combination, then seeded random values. Every location either side writes must end equal,
//! unless the rule declares it `dead`. The first difference is the counterexample, and the
//! rule is rejected with it.
//!
//! The check reasons about metavariables as distinct registers; the matcher keeps that true
//! (an input the pattern overwrites before the replacement would read it is declined).

use std::collections::{BTreeMap, BTreeSet};

use super::eval::Lane;
use super::meaning::{meaning, Meaning, Source};
use super::rules::{forms_on, missing, plain_form, representative, Form, Role};
use super::syntax::{Condition, InstPat, Kind, Loc, OperandPat, Rule, RuleError};
use crate::isa::processor::Generation;

/// A location the check tracks.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Place<'a> {
    Var(&'a str),
    Scc,
    Vcc,
}

impl std::fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Var(v) => write!(f, "%{v}"),
            Place::Scc => f.write_str("scc"),
            Place::Vcc => f.write_str("vcc"),
        }
    }
}

/// What the check used for one instruction on one generation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Used {
    pub generation: Generation,
    pub instruction: String,
    pub source: Source,
}

/// One instruction ready to run.
struct Step<'a> {
    pat: &'a InstPat,
    form: &'a Form,
    meaning: Meaning,
}

type State<'a> = BTreeMap<Place<'a>, u64>;

/// Values every combination of inputs is tried with: shift counts 0, 31, 32, 33, sign bits,
/// all-ones.
const EDGES_32: [u64; 8] = [0, 1, 31, 32, 33, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff];
const EDGES_64: [u64; 3] = [0x8000_0000_0000_0000, u64::MAX, 0x1_0000_0000];
/// More values random trials mix in (each input half the time).
const MORE_EDGES: [u64; 6] = [2, 63, 64, 0xffff_fffe, 0x1_0000_0000, 0xffff_ffff_0000_0000];
const RANDOM_TRIALS: usize = 300;

/// A small deterministic generator (xorshift64*): the check must give the same verdict every
/// time it runs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn mask(bits: u8) -> u64 {
    if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 }
}

/// The value an integer written in a rule stands for in a `bits`-wide operand (inline
/// constants sign-extend).
fn constant(value: i64, bits: u8) -> u64 {
    value as u64 & mask(bits)
}

/// Proves `rule` on `generation`; returns what it used, or the counterexample.
pub fn prove(file: &str, rule: &Rule, generation: Generation) -> Result<Vec<Used>, RuleError> {
    let target = representative(generation);
    let forms = forms_on(&target);
    let err = |pos, message: String| RuleError { file: file.to_owned(), pos, message };
    let resolve = |pat: &InstPat| -> Result<(&Form, Meaning), RuleError> {
        let form = plain_form(&forms, pat).ok_or_else(|| err(pat.pos, format!("`{}` does not exist on {generation}", pat.mnemonic)))?;
        let m = meaning(&form.amd_name(), generation, &form.signature(target.wave64))
            .map_err(|e| err(pat.pos, format!("cannot check `{}` on {generation}: {}", pat.mnemonic, e.0)))?;
        Ok((form, m))
    };
    let mut used = Vec::new();
    let replacement: Vec<Step> = rule
        .replacement
        .iter()
        .map(|pat| resolve(pat).map(|(form, meaning)| Step { pat, form, meaning }))
        .collect::<Result<_, _>>()?;
    for (n, alternative) in rule.patterns.iter().enumerate() {
        if missing(&forms, alternative).is_some() {
            continue;
        }
        let pattern: Vec<Step> = alternative
            .iter()
            .map(|pat| resolve(pat).map(|(form, meaning)| Step { pat, form, meaning }))
            .collect::<Result<_, _>>()?;
        for s in pattern.iter().chain(&replacement) {
            let u = Used { generation, instruction: s.form.amd_name(), source: s.meaning.source };
            if !used.contains(&u) {
                used.push(u);
            }
        }
        // The check depends on the rule, the texts and the operand shapes, not on the
        // generation's name: generations sharing all three (GFX9, GFX90A and GFX940 read the
        // same table) are checked once per process.
        let mut key = format!("{alternative:?}|{:?}|{:?}|{}", rule.replacement, rule.conditions, target.wave64);
        for s in pattern.iter().chain(&replacement) {
            let shape: Vec<_> = (0..s.pat.operands.len()).map(|i| (s.form.role(i), s.form.bits(i, target.wave64))).collect();
            key.push_str(&format!("|{}|{:?}|{shape:?}", s.meaning.text, s.form.signature(target.wave64)));
        }
        static PROVEN: std::sync::OnceLock<std::sync::Mutex<std::collections::HashSet<String>>> = std::sync::OnceLock::new();
        let proven = PROVEN.get_or_init(Default::default);
        if proven.lock().unwrap().contains(&key) {
            continue;
        }
        check(file, rule, n, generation, target.wave64, &pattern, &replacement)?;
        proven.lock().unwrap().insert(key);
    }
    Ok(used)
}

/// Widths of the metavariables, which must agree between every position naming one.
fn widths<'a>(file: &str, rule: &Rule, steps: &[&Step<'a>], wave64: bool) -> Result<BTreeMap<&'a str, u8>, RuleError> {
    let mut out: BTreeMap<&'a str, u8> = BTreeMap::new();
    for s in steps {
        for (slot, op) in s.pat.operands.iter().enumerate() {
            let OperandPat::Var(v) = op else { continue };
            let bits = s.form.bits(slot, wave64);
            match out.get(v.as_str()) {
                Some(&b) if b != bits => {
                    return Err(RuleError {
                        file: file.to_owned(),
                        pos: s.pat.pos,
                        message: format!("rule `{}`: %{v} is {b} bits in one place and {bits} in another", rule.name),
                    });
                }
                _ => {
                    out.insert(v.as_str(), bits);
                }
            }
        }
    }
    Ok(out)
}

fn run<'a>(steps: &[Step<'a>], state: &mut State<'a>, lane: u32, wave64: bool) -> Result<(), String> {
    for s in steps {
        let sig = s.form.signature(wave64);
        let mut sources = [(0u64, 32u8); 3];
        let mut dest = None;
        let mut carry = None;
        for (slot, op) in s.pat.operands.iter().enumerate() {
            let bits = s.form.bits(slot, wave64);
            let place = match op {
                OperandPat::Var(v) => Some(Place::Var(v.as_str())),
                OperandPat::Fixed(f) if f == "vcc" => Some(Place::Vcc),
                _ => None,
            };
            match s.form.role(slot) {
                Some(Role::Src(n)) => {
                    let value = match op {
                        OperandPat::Int(c) => constant(*c, bits),
                        _ => place.as_ref().map_or(0, |p| state.get(p).copied().unwrap_or(0)) & mask(bits),
                    };
                    sources[n as usize] = (value, bits);
                }
                Some(Role::Dest) => dest = place.map(|p| (p, bits)),
                Some(Role::Carry) => carry = place,
                None => {}
            }
        }
        let carry = carry.unwrap_or(Place::Vcc);
        let d0_bits = dest.as_ref().map_or(32, |d| d.1);
        let mut lane_state = Lane {
            d0: dest.as_ref().map_or(0, |(p, _)| state[p]),
            d0_bits,
            scc: state[&Place::Scc] & 1 == 1,
            vcc: state[&carry],
            lane,
        };
        s.meaning.program.run(&mut lane_state, &sources[..usize::from(sig.sources)]).map_err(|e| e.0)?;
        if let Some((p, bits)) = dest {
            state.insert(p, lane_state.d0 & mask(bits));
        }
        if sig.writes_scc {
            state.insert(Place::Scc, u64::from(lane_state.scc));
        }
        if sig.writes_vcc {
            state.insert(carry, lane_state.vcc);
        }
    }
    Ok(())
}

fn check<'a>(file: &str, rule: &'a Rule, alternative: usize, generation: Generation, wave64: bool, pattern: &[Step<'a>], replacement: &[Step<'a>]) -> Result<(), RuleError> {
    let all: Vec<&Step> = pattern.iter().chain(replacement).collect();
    let widths = widths(file, rule, &all, wave64)?;
    let err = |message: String| RuleError { file: file.to_owned(), pos: rule.pos, message };
    let pattern_vars: BTreeSet<&String> = pattern.iter().flat_map(|s| s.pat.operands.iter()).filter_map(|o| if let OperandPat::Var(v) = o { Some(v) } else { None }).collect();
    for s in replacement {
        for op in &s.pat.operands {
            if let OperandPat::Var(v) = op
                && !pattern_vars.contains(v)
            {
                return Err(RuleError { file: file.to_owned(), pos: s.pat.pos, message: format!("rule `{}`: %{v} is not bound by the pattern", rule.name) });
            }
        }
    }
    let dead: BTreeSet<Place<'a>> = rule
        .conditions
        .iter()
        .filter_map(|c| match c {
            Condition::Dead(Loc::Var(v), _) => Some(Place::Var(v.as_str())),
            Condition::Dead(Loc::Scc, _) => Some(Place::Scc),
            Condition::Dead(Loc::Vcc, _) => Some(Place::Vcc),
            _ => None,
        })
        .collect();
    // The values a metavariable may take: a range or the inline constants, if restricted.
    let restrict = |v: &str, bits: u8, raw: u64| -> u64 {
        for c in &rule.conditions {
            match c {
                Condition::In(name, lo, hi, _) if name == v => {
                    let span = (hi - lo) as u64 + 1;
                    return constant(lo + (raw % span) as i64, bits);
                }
                Condition::Is(name, Kind::Inline, _) if name == v => return constant(-16 + (raw % 81) as i64, bits),
                _ => {}
            }
        }
        raw & mask(bits)
    };
    let vars: Vec<(&'a str, u8)> = widths.iter().map(|(v, b)| (*v, *b)).collect();
    let edges = |bits: u8| -> Vec<u64> {
        let mut e: Vec<u64> = EDGES_32.to_vec();
        if bits == 64 {
            e.extend(EDGES_64);
        }
        e
    };
    // Inputs get every combination of edge values (up to three inputs), then random values;
    // the other locations random values.
    let inputs: Vec<(&'a str, u8)> = vars.iter().copied().filter(|(v, _)| !written_first(pattern, v)).collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (generation as u64) << 32 ^ alternative as u64);
    let mut trials: Vec<Vec<u64>> = Vec::new();
    if inputs.len() <= 3 {
        let mut combos: Vec<Vec<u64>> = vec![Vec::new()];
        for (_, bits) in &inputs {
            combos = combos.into_iter().flat_map(|c| edges(*bits).into_iter().map(move |e| [c.clone(), vec![e]].concat())).collect();
        }
        trials.extend(combos);
    }
    for _ in 0..RANDOM_TRIALS {
        let trial = inputs
            .iter()
            .map(|(_, bits)| {
                let r = rng.next();
                let pool: Vec<u64> = edges(*bits).into_iter().chain(MORE_EDGES).collect();
                if r & 1 == 0 { pool[(r >> 1) as usize % pool.len()] } else { rng.next() }
            })
            .collect();
        trials.push(trial);
    }
    for trial in trials {
        let mut start = State::new();
        for (v, bits) in &vars {
            start.insert(Place::Var(v), rng.next() & mask(*bits));
        }
        for ((v, bits), value) in inputs.iter().zip(&trial) {
            start.insert(Place::Var(v), restrict(v, *bits, *value));
        }
        for (v, bits) in &vars {
            let p = Place::Var(v);
            let raw = start[&p];
            start.insert(p, restrict(v, *bits, raw));
        }
        start.insert(Place::Scc, rng.next() & 1);
        start.insert(Place::Vcc, rng.next() & mask(if wave64 { 64 } else { 32 }));
        let lane = (rng.next() % if wave64 { 64 } else { 32 }) as u32;
        let (mut before, mut after) = (start.clone(), start.clone());
        run(pattern, &mut before, lane, wave64).map_err(|e| err(format!("rule `{}`: {e}", rule.name)))?;
        run(replacement, &mut after, lane, wave64).map_err(|e| err(format!("rule `{}`: {e}", rule.name)))?;
        for (place, value) in &before {
            let other = after[place];
            if other != *value && !dead.contains(place) {
                let inputs: Vec<String> = inputs.iter().map(|(v, _)| format!("%{v} = {:#x}", start[&Place::Var(v)])).collect();
                let hint = if pattern.iter().any(|s| s.pat.operands.iter().any(|o| matches!(o, OperandPat::Var(v) if Place::Var(v) == *place)))
                    && !written_first(replacement, &place.to_string()[1..])
                {
                    " (declare it `dead` if the rewrite may drop it)"
                } else {
                    ""
                };
                return Err(err(format!(
                    "rule `{}` (match {}) is wrong on {generation}: with {}, the pattern leaves {place} = {value:#x} but the rewrite leaves {other:#x}{hint}",
                    rule.name,
                    alternative + 1,
                    if inputs.is_empty() { "no inputs".to_owned() } else { inputs.join(", ") },
                )));
            }
        }
    }
    Ok(())
}

/// Whether `var` is written by `steps` before anything reads it.
fn written_first(steps: &[Step], var: &str) -> bool {
    for s in steps {
        let mut reads = false;
        let mut writes = false;
        for (slot, op) in s.pat.operands.iter().enumerate() {
            if matches!(op, OperandPat::Var(v) if v == var) {
                match s.form.role(slot) {
                    Some(Role::Src(_)) => reads = true,
                    Some(Role::Dest) | Some(Role::Carry) => writes = true,
                    None => {}
                }
            }
        }
        if reads {
            return false;
        }
        if writes {
            return true;
        }
    }
    false
}
