//! Rules resolved against the instruction tables: which encodings a pattern instruction
//! names on a target, what each written operand position means, and on which generations a
//! rule applies (the generations whose tables have every instruction it names, in the shape it
//! writes them, narrowed by `only`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::meaning::Signature;
use super::syntax::{self, GenSpec, InstPat, OperandPat, Rule, RuleError};
use crate::isa::decode::plan;
use crate::isa::predicates::{self, PredContext};
use crate::isa::processor::{Generation, Processor};
use crate::isa::table::{encodings, flag, implicit, Dir, Encoding, OperandClass, OperandName, Variant};
use crate::isa::target::Target;

/// One written operand position of an instruction form (`v_add_u32 %d, vcc, %a, %b`: four).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// The encoding's operand at this index (into [`Encoding::operands`]).
    Operand(usize),
    /// A register the AsmString spells out (`vcc`).
    Fixed(&'static str),
}

/// What a position means to the pseudocode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `D0`.
    Dest,
    /// `VCC` in the text: a VALU carry (`sdst`, or the spelled-out `vcc`).
    Carry,
    /// `S0`..`S2`.
    Src(u8),
}

/// An encoding of a mnemonic on a target, with its written positions.
#[derive(Clone, Debug)]
pub struct Form {
    pub index: u16,
    pub encoding: &'static Encoding,
    pub slots: Vec<Slot>,
}

impl Form {
    /// DPP, SDWA and other forms a rule never produces and the matcher refuses to consume.
    pub fn is_plain(&self) -> bool {
        matches!(self.encoding.variant, Variant::Default | Variant::VOP3) && !self.encoding.flags.has(flag::DPP | flag::SDWA)
    }

    pub fn role(&self, slot: usize) -> Option<Role> {
        let salu = self.encoding.flags.has(flag::SALU);
        match self.slots[slot] {
            Slot::Fixed("vcc") => Some(Role::Carry),
            Slot::Fixed(_) => None,
            Slot::Operand(i) => match self.encoding.operands[i].name {
                OperandName::vdst => Some(Role::Dest),
                OperandName::sdst if salu => Some(Role::Dest),
                OperandName::sdst => Some(Role::Carry),
                OperandName::src0 => Some(Role::Src(0)),
                OperandName::src1 => Some(Role::Src(1)),
                OperandName::src2 => Some(Role::Src(2)),
                _ => None,
            },
        }
    }

    /// Width in bits of the value at `slot`.
    pub fn bits(&self, slot: usize, wave64: bool) -> u8 {
        match self.slots[slot] {
            Slot::Fixed(_) => if wave64 { 64 } else { 32 },
            Slot::Operand(i) => {
                let operand = &self.encoding.operands[i];
                if self.role(slot) == Some(Role::Carry) {
                    return if wave64 { 64 } else { 32 };
                }
                class_bits(operand.class)
            }
        }
    }

    /// What the encoding lets its pseudocode touch.
    pub fn signature(&self, wave64: bool) -> Signature {
        let e = self.encoding;
        let mut sig = Signature {
            sources: 0,
            dest_bits: None,
            writes_scc: e.defs.has(implicit::SCC),
            writes_vcc: e.defs.has(implicit::VCC),
            reads_scc: e.uses.has(implicit::SCC),
            reads_vcc: e.uses.has(implicit::VCC),
        };
        for slot in 0..self.slots.len() {
            match self.role(slot) {
                Some(Role::Dest) => sig.dest_bits = Some(self.bits(slot, wave64)),
                Some(Role::Src(n)) => sig.sources = sig.sources.max(n + 1),
                Some(Role::Carry) => {
                    let out = matches!(self.slots[slot], Slot::Operand(i) if e.operands[i].dir == Dir::Out) || matches!(self.slots[slot], Slot::Fixed(_));
                    if out {
                        sig.writes_vcc = true;
                    } else {
                        sig.reads_vcc = true;
                    }
                }
                None => {}
            }
        }
        sig
    }

    /// AMD's name for the instruction this form encodes (`V_LSHL_OR_B32`). LLVM's GFX8
    /// `v_add_u32`/`v_sub_u32`/`v_subrev_u32` write a carry: AMD's GFX9+ `_CO_` instructions.
    pub fn amd_name(&self) -> String {
        let m = base_mnemonic(self.encoding.mnemonic()).to_ascii_uppercase();
        let carry = (0..self.slots.len()).any(|s| self.role(s) == Some(Role::Carry));
        match m.as_str() {
            "V_ADD_U32" | "V_SUB_U32" | "V_SUBREV_U32" if carry => m.replacen("_U32", "_CO_U32", 1),
            _ => m,
        }
    }
}

/// The width of an operand class's value: 64 for the `_64`/`b64` classes, else 32.
pub fn class_bits(class: OperandClass) -> u8 {
    let info = class.info();
    let names = [info.reg_class, class.name()];
    if names.iter().any(|n| n.contains("_64") || n.ends_with("64")) { 64 } else { 32 }
}

/// The mnemonic without the `_e32`/`_e64`/`_dpp`/`_sdwa` spelling of its encoding.
pub fn base_mnemonic(m: &str) -> &str {
    let mut m = m;
    for suffix in ["_dpp8", "_dpp", "_sdwa", "_e64", "_e32"] {
        m = m.strip_suffix(suffix).unwrap_or(m);
    }
    m
}

/// The written positions of an AsmString: each comma-separated piece's first `$operand` (a
/// `$srcN_modifiers` standing for `srcN`), or the register it spells out.
fn slots_of(e: &Encoding) -> Option<Vec<Slot>> {
    let mnemonic = e.mnemonic();
    let rest = e.asm[mnemonic.len()..].trim();
    if rest.is_empty() {
        return Some(Vec::new());
    }
    rest.split(',')
        .map(|piece| {
            let piece = piece.trim();
            match piece.strip_prefix('$') {
                Some(name) => {
                    let name: String = name.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                    let name = name.strip_suffix("_modifiers").unwrap_or(&name).to_owned();
                    let operand = OperandName::ALL.iter().find(|n| n.name() == name)?;
                    e.operand_index(*operand).map(Slot::Operand)
                }
                None => {
                    let fixed = piece.split_whitespace().next()?;
                    Some(Slot::Fixed(if fixed == "vcc" { "vcc" } else { return None }))
                }
            }
        })
        .collect()
}

type FormIndex = HashMap<String, Vec<Form>>;

/// The forms of every mnemonic on `target`: encodings of the target's LLVM whose decoder table
/// the target tries and whose predicates hold.
pub fn forms_on(target: &Target) -> Arc<FormIndex> {
    /// Per (processor, wave64).
    type Cache = Mutex<HashMap<(&'static str, bool), Arc<FormIndex>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let key = (target.processor.name, target.wave64);
    if let Some(index) = CACHE.get_or_init(Default::default).lock().unwrap().get(&key) {
        return index.clone();
    }
    let namespaces: Vec<_> = plan(target).iter().map(|a| a.namespace).collect();
    let ctx = PredContext::of(target);
    let mut index = FormIndex::new();
    for (i, e) in encodings().iter().enumerate() {
        // SDWA and DPP records live in namespaces LLVM decodes through special tables
        // (`None`); they count as present where their predicates hold.
        let in_plan = namespaces.contains(&e.ns) || e.ns.name() == "None";
        if e.llvm != target.llvm_version() || !in_plan || !e.preds.iter().all(|&p| predicates::holds(p, &ctx)) {
            continue;
        }
        let Some(slots) = slots_of(e) else { continue };
        index.entry(base_mnemonic(e.mnemonic()).to_owned()).or_default().push(Form { index: i as u16, encoding: e, slots });
    }
    let index = Arc::new(index);
    CACHE.get().unwrap().lock().unwrap().insert(key, index.clone());
    index
}

/// Whether a form can stand for `pat`: same number of positions, and the pattern spells the
/// form's fixed registers where the form has them.
pub fn fits(form: &Form, pat: &InstPat) -> bool {
    form.slots.len() == pat.operands.len()
        && form.slots.iter().zip(&pat.operands).all(|(slot, op)| match (slot, op) {
            (Slot::Fixed(r), OperandPat::Fixed(p)) => r == p,
            (Slot::Fixed(_), _) => false,
            (Slot::Operand(_), OperandPat::Fixed(p)) => p == "vcc",
            _ => true,
        })
}

/// The plain form (no DPP/SDWA) a replacement or the semantic check uses for `pat`, shortest
/// first.
pub fn plain_form<'a>(forms: &'a FormIndex, pat: &InstPat) -> Option<&'a Form> {
    let mut candidates: Vec<&Form> = forms.get(&pat.mnemonic)?.iter().filter(|f| f.is_plain() && fits(f, pat)).collect();
    candidates.sort_by_key(|f| f.encoding.bits);
    candidates.first().copied()
}

/// One processor per generation, in the mode it runs by default: the targets a rule's claims
/// and proofs are made on.
pub const REPRESENTATIVES: [(Generation, &str); 11] = [
    (Generation::Gfx8, "gfx803"),
    (Generation::Gfx9, "gfx900"),
    (Generation::Gfx90a, "gfx90a"),
    (Generation::Gfx940, "gfx942"),
    (Generation::Gfx950, "gfx950"),
    (Generation::Gfx10_1, "gfx1010"),
    (Generation::Gfx10_3, "gfx1030"),
    (Generation::Gfx11, "gfx1100"),
    (Generation::Gfx11_5, "gfx1150"),
    (Generation::Gfx12, "gfx1200"),
    (Generation::Gfx1250, "gfx1250"),
];

pub fn representative(generation: Generation) -> Target {
    let name = REPRESENTATIVES.iter().find(|(g, _)| *g == generation).map(|(_, n)| *n).expect("every decodable generation has a representative");
    Target::from_name(name, "").expect("representative processors are known")
}

/// The generation an `only` entry names: a generation (`gfx9`, `gfx10.3`) or a processor.
pub(crate) fn spec_generation(spec: &GenSpec) -> Option<Generation> {
    REPRESENTATIVES
        .iter()
        .map(|(g, _)| *g)
        .find(|g| g.name().eq_ignore_ascii_case(&spec.name))
        .or_else(|| Processor::by_name(&spec.name).map(|p| p.generation))
}

/// Whether every instruction of one alternative (or the replacement) exists on `target` in
/// the written shape; the first that does not, if any.
pub fn missing<'a>(forms: &FormIndex, insts: &'a [InstPat]) -> Option<&'a InstPat> {
    insts.iter().find(|pat| plain_form(forms, pat).is_none())
}

/// The generations `rule` applies on: the replacement and at least one alternative exist, and
/// `only` allows it.
pub fn claimed_generations(file: &str, rule: &Rule) -> Result<Vec<Generation>, RuleError> {
    let mut allowed: Option<Vec<Generation>> = None;
    for spec in &rule.only {
        let g = spec_generation(spec).ok_or_else(|| RuleError {
            file: file.to_owned(),
            pos: spec.pos,
            message: format!("unknown generation or processor `{}`", spec.name),
        })?;
        let these: Vec<Generation> = REPRESENTATIVES.iter().map(|(r, _)| *r).filter(|r| if spec.and_later { *r >= g } else { *r == g }).collect();
        allowed.get_or_insert_with(Vec::new).extend(these);
    }
    let mut out = Vec::new();
    for (generation, _) in REPRESENTATIVES {
        if allowed.as_ref().is_some_and(|a| !a.contains(&generation)) {
            continue;
        }
        let forms = forms_on(&representative(generation));
        if missing(&forms, &rule.replacement).is_none() && rule.patterns.iter().any(|p| missing(&forms, p).is_none()) {
            out.push(generation);
        }
    }
    Ok(out)
}

/// Checks that every mnemonic exists on some generation (a typo is an error, not a rule that
/// never fires).
pub fn check_mnemonics(file: &str, rule: &Rule) -> Result<(), RuleError> {
    for pat in rule.patterns.iter().flatten().chain(&rule.replacement) {
        let known = REPRESENTATIVES.iter().any(|(g, _)| forms_on(&representative(*g)).get(&pat.mnemonic).is_some_and(|f| f.iter().any(|f| fits(f, pat))));
        if !known {
            return Err(RuleError {
                file: file.to_owned(),
                pos: pat.pos,
                message: format!("no generation has `{}` with {} operands as written", pat.mnemonic, pat.operands.len()),
            });
        }
    }
    Ok(())
}

/// Parses a file of rules (no proof; see [`super::RuleSet::load`]).
pub fn parse(file: &str, source: &str) -> Result<syntax::File, RuleError> {
    syntax::parse(file, source)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(text: &str) -> InstPat {
        let file = syntax::parse("t", &format!("# t\nrule t\nmatch\n    {text}\nrewrite\n    {text}\n")).unwrap();
        file.rules[0].replacement[0].clone()
    }

    #[test]
    fn v_lshl_or_b32_exists_from_gfx9() {
        let p = pat("v_lshl_or_b32 %d, %a, %s, %b");
        assert!(plain_form(&forms_on(&Target::from_name("gfx803", "").unwrap()), &p).is_none());
        for t in ["gfx900", "gfx90a", "gfx1030", "gfx1100", "gfx1201"] {
            let forms = forms_on(&Target::from_name(t, "").unwrap());
            let f = plain_form(&forms, &p).unwrap_or_else(|| panic!("{t}"));
            assert_eq!((f.amd_name().as_str(), f.role(0), f.role(1)), ("V_LSHL_OR_B32", Some(Role::Dest), Some(Role::Src(0))));
        }
    }

    #[test]
    fn gfx8_v_add_u32_is_the_carry_out_add() {
        let forms = forms_on(&Target::from_name("gfx803", "").unwrap());
        let f = plain_form(&forms, &pat("v_add_u32 %d, vcc, %a, %b")).unwrap();
        assert_eq!(f.amd_name(), "V_ADD_CO_U32");
        assert!(f.signature(true).writes_vcc);
        assert!(plain_form(&forms, &pat("v_add_u32 %d, %a, %b")).is_none());
        let gfx9 = forms_on(&Target::from_name("gfx900", "").unwrap());
        assert_eq!(plain_form(&gfx9, &pat("v_add_u32 %d, %a, %b")).unwrap().amd_name(), "V_ADD_U32");
    }

    #[test]
    fn sixty_four_bit_operands_are_sixty_four_bits() {
        let forms = forms_on(&Target::from_name("gfx942", "").unwrap());
        let f = plain_form(&forms, &pat("v_lshl_add_u64 %d, %a, %s, %b")).unwrap();
        assert_eq!((0..4).map(|s| f.bits(s, true)).collect::<Vec<_>>(), [64, 64, 32, 64]);
    }
}
