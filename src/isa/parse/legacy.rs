//! Spellings LLVM's assembler accepts on GFX8 and GFX9 (GFX90A, GFX940 included) besides the
//! printer's canonical text, each read as the value LLVM's assembler gives it:
//!
//! - a MIMG address written as the tuple the instruction reads (`v[1:3]`), where the decoder's
//!   record (and so the printer) names only its first register: pre-GFX10 MIMG records differ
//!   only in the address width, which the encoding does not hold, and LLVM's decoder picks the
//!   one-register record. Only the widths some record of the instruction has are accepted;
//! - a control operand written as a plain number (`s_setreg_b32 0x3141, s1`,
//!   `s_set_gpr_idx_on s1, 0x0`), which LLVM's assembler takes as the raw field value;
//! - modifiers written at their defaults (`op_sel:[0,0]`, `neg_lo:[0,0,0]`, an MTBUF's
//!   `format:[BUF_DATA_FORMAT_8]`), which the printer leaves out;
//! - a float inline constant in a 16-bit integer operand (`v_add_u16 v5, 0.5, v2`): LLVM encodes
//!   the inline constant of its half-precision bits (printed back as `0x3800`), not a literal;
//! - interpolation operands (`attr1.x`, `p20` in a VOP3 source) that the generic reading misses.
//!
//! Each reading is an alias in the parser's sense: the text it takes is replaced by what the
//! operand prints before the final decode-and-print check, so a wrong reading still fails.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{Attempt, Setting, imm_table, is_source_like, text, value_table};
use crate::isa::Generation;
use crate::isa::predicates::{self, PredContext};
use crate::isa::table::{Encoding, OperandName, encodings, flag};

impl Attempt<'_> {
    /// The GFX8/GFX9 readings above for operand `i` at `at` (none on other generations).
    pub(super) fn legacy_aliases(&mut self, i: usize, at: usize) -> Vec<Setting> {
        let generation = self.target().generation();
        let operand = &self.e.operands[i];
        let method = operand.class.info().print_method;
        // GFX10 has the VOP3 interpolation forms too (`v_interp_mov_f32_e64 v5, p20, attr0.x`).
        if matches!(generation, Generation::Gfx10_1 | Generation::Gfx10_3)
            && method == "printInterpSlot"
            && !self.e.fields[i].is_empty()
        {
            return self.interp_word(i, at);
        }
        if !matches!(
            generation,
            Generation::Gfx8 | Generation::Gfx9 | Generation::Gfx90a | Generation::Gfx940
        ) {
            return Vec::new();
        }
        let text = self.source.text.as_bytes();
        let start = (at..text.len())
            .find(|&k| !matches!(text[k], b' ' | b','))
            .unwrap_or(text.len());
        let word = self.source.word_at(at).to_owned();
        let end = start + word.len();
        let mut out = Vec::new();
        if let "printOpSel" | "printOpSelHi" | "printNegLo" | "printNegHi" = method {
            // Modifiers often live in the sources' modifier bits, with no field of their own.
            return self.default_modifier(i, at, method, &word, end);
        }
        if self.e.flags.has(flag::MIMG)
            && matches!(operand.name, OperandName::vdata | OperandName::vdst)
        {
            out.extend(self.mimg_tfe_data(i, &word, end));
        }
        // (A MIMG atomic's `vdst` is tied to `vdata`, with no field of its own.)
        if self.e.fields[i].is_empty() {
            return out;
        }
        if self.e.flags.has(flag::MIMG) && operand.name == OperandName::vaddr {
            out.extend(self.mimg_address(i, &word, end));
        }
        match method {
            "printHwreg" | "printSendMsg" | "printGPRIdxMode" | "printSWaitCnt" => {
                out.extend(self.raw_number(i, &word, end));
            }
            "printSwizzle" => {
                if let Some(n) = word.strip_prefix("offset:") {
                    out.extend(self.raw_number(i, n, end));
                    out.extend(self.bitmask_perm(i, n, end));
                }
            }
            "printInterpAttr" | "printInterpSlot" => out.extend(self.interp_word(i, at)),
            _ => {}
        }
        let source_like = is_source_like(operand.class);
        if source_like || method == "printOperandAndFPInputMods" {
            let mut words = vec![(word.clone(), end)];
            // A VOPC `_e32` form prints `vcc, ` before its first source, outside any operand.
            if word == "vcc" {
                let next = self.source.word_at(end).to_owned();
                let next_start = (end..text.len())
                    .find(|&k| !matches!(text[k], b' ' | b','))
                    .unwrap_or(text.len());
                let next_end = next_start + next.len();
                words.push((next, next_end));
            }
            for (w, e) in &words {
                if source_like {
                    out.extend(self.f16_inline_in_int(i, w, *e));
                }
                out.extend(self.inv2pi_hex(i, method, w, *e));
            }
        }
        if source_like {
            if self.e.flags.has(flag::MTBUF) && operand.name == OperandName::soffset {
                out.extend(self.default_format(i, at));
            }
        }
        out
    }

    /// An interpolation attribute or slot (`attr1.x`, `p20`) written in a VOP3 source: the
    /// field values whose text is the word's name part.
    fn interp_word(&self, i: usize, at: usize) -> Vec<Setting> {
        let word = self.source.word_at(at);
        let key = word.split('.').next().unwrap_or("");
        let table = imm_table(self.index, self.word, i, self.target(), self.e);
        table
            .get(key)
            .into_iter()
            .flatten()
            .map(|&v| Setting {
                fields: vec![(self.e.fields[i], v)],
                ..Setting::default()
            })
            .collect()
    }

    /// `v[a:b]` as a pre-GFX10 MIMG address: the field holds `a`; `b - a + 1` must be the
    /// address width of some record of this instruction on the target.
    fn mimg_address(&self, i: usize, word: &str, end: usize) -> Vec<Setting> {
        let Some(rest) = word.strip_prefix("v[") else {
            return Vec::new();
        };
        let Some((first, last)) = rest.strip_suffix(']').and_then(|r| r.split_once(':')) else {
            return Vec::new();
        };
        let (Ok(first), Ok(last)) = (first.parse::<u32>(), last.parse::<u32>()) else {
            return Vec::new();
        };
        if last < first || !mimg_address_widths(self.e, self.target()).contains(&(last - first + 1))
        {
            return Vec::new();
        }
        let table = value_table(self.e.operands[i].class, self.word, i, self.target(), self.e);
        // The decoder's record prints the tuple of its own width from this register.
        let key = (1..=16u32)
            .map(|w| match w {
                1 => format!("v{first}"),
                _ => format!("v[{first}:{}]", first + w - 1),
            })
            .find(|k| table.values.contains_key(k));
        key.and_then(|k| table.values.get(&k))
            .into_iter()
            .flatten()
            .map(|&code| Setting {
                fields: vec![(self.e.fields[i], code)],
                alias: Some(end),
                ..Setting::default()
            })
            .collect()
    }

    /// A MIMG data tuple with the register `tfe` adds (`image_atomic_add v[4:6], ... dmask:0x3
    /// tfe`), where LLVM's decoder keeps the one-register record (atomics have no wider data
    /// record for the extra register): the tuple LLVM's assembler requires, `tfe` and `dmask`
    /// read on the second pass.
    fn mimg_tfe_data(&self, i: usize, word: &str, end: usize) -> Vec<Setting> {
        let Some(tfe) = self.e.operand_index(OperandName::tfe) else {
            return Vec::new();
        };
        let field = self.e.fields[tfe];
        if field.is_empty() || !field.iter().all(|&(lo, _, _)| self.word >> lo & 1 == 1) {
            return Vec::new();
        }
        let Some((first, last)) = word
            .strip_prefix("v[")
            .and_then(|r| r.strip_suffix(']'))
            .and_then(|r| r.split_once(':'))
        else {
            return Vec::new();
        };
        let (Ok(first), Ok(last)) = (first.parse::<u32>(), last.parse::<u32>()) else {
            return Vec::new();
        };
        if last <= first {
            return Vec::new();
        }
        // LLVM's data size: a register per `dmask` bit (four for gather4), halved for packed
        // D16, and one for `tfe`.
        let bits_of = |name: OperandName| {
            self.e.operand_index(name).map_or(0, |k| {
                self.e.fields[k].iter().fold(0u64, |v, &(lo, hi, field_lo)| {
                    let width = u32::from(hi - lo) + 1;
                    v | (((self.word >> lo) as u64 & ((1u64 << width) - 1)) << field_lo)
                })
            })
        };
        let mut size = if self.e.flags.has(flag::GATHER4) {
            4
        } else {
            bits_of(OperandName::dmask).count_ones().max(1)
        };
        let unpacked = self.target().generation() == Generation::Gfx8
            && self.target().processor.name != "gfx810";
        if bits_of(OperandName::d16) != 0 && !unpacked {
            size = size.div_ceil(2);
        }
        if last - first + 1 != size + 1 {
            return Vec::new();
        }
        let k = super::field_of(self.e, i);
        let table = value_table(self.e.operands[k].class, self.word, k, self.target(), self.e);
        let key = (1..=16u32)
            .map(|w| match w {
                1 => format!("v{first}"),
                _ => format!("v[{first}:{}]", first + w - 1),
            })
            .find(|key| table.values.contains_key(key));
        key.and_then(|key| table.values.get(&key))
            .into_iter()
            .flatten()
            .map(|&code| Setting {
                fields: vec![(self.e.fields[k], code)],
                alias: Some(end),
                ..Setting::default()
            })
            .collect()
    }

    /// `swizzle(BITMASK_PERM,"01pi0")` as LLVM's assembler encodes it (one character a lane-id
    /// bit, most significant first: `0` and `1` force the bit, `p` keeps it, `i` inverts it),
    /// though the printer may write the value as another macro (`"00001"` is
    /// `swizzle(BROADCAST,32,1)`).
    fn bitmask_perm(&self, i: usize, word: &str, end: usize) -> Vec<Setting> {
        let Some(mask) = word
            .strip_prefix("swizzle(BITMASK_PERM,\"")
            .and_then(|w| w.strip_suffix("\")"))
        else {
            return Vec::new();
        };
        if mask.len() != 5 {
            return Vec::new();
        }
        let (mut and, mut or, mut xor) = (0u64, 0u64, 0u64);
        for (k, c) in mask.chars().enumerate() {
            let bit = 1u64 << (4 - k);
            match c {
                '0' => {}
                '1' => or |= bit,
                'p' => and |= bit,
                'i' => {
                    and |= bit;
                    xor |= bit;
                }
                _ => return Vec::new(),
            }
        }
        vec![Setting {
            fields: vec![(self.e.fields[i], and | (or << 5) | (xor << 10))],
            alias: Some(end),
            ..Setting::default()
        }]
    }

    /// 1/(2*pi) written as its bits in the operand's float width (`0x3118`, `0x3e22f983`,
    /// `0x3fc45f306dc9c882`): LLVM encodes the inline constant (248), printed as
    /// `0.15915494`.
    fn inv2pi_hex(&self, i: usize, method: &str, word: &str, end: usize) -> Vec<Setting> {
        let (k, mods) = if method == "printOperandAndFPInputMods" {
            (i + 1, Some(self.e.fields[i]))
        } else {
            (i, None)
        };
        if k >= self.e.operands.len() || self.e.fields[k].is_empty() {
            return Vec::new();
        }
        let kind = self.e.operands[k].class.info().operand_type;
        let bits: u64 = if kind.contains("FP16") {
            0x3118
        } else if kind.contains("FP32") {
            0x3e22_f983
        } else if kind.contains("FP64") {
            0x3fc4_5f30_6dc9_c882
        } else {
            return Vec::new();
        };
        let Some(hex) = word.strip_prefix("0x") else {
            return Vec::new();
        };
        if u64::from_str_radix(hex, 16).ok() != Some(bits) {
            return Vec::new();
        }
        let table = value_table(self.e.operands[k].class, self.word, k, self.target(), self.e);
        if !table.values.values().any(|codes| codes.contains(&248)) {
            return Vec::new();
        }
        let mut fields = vec![(self.e.fields[k], 248)];
        if let Some(m) = mods.filter(|m| !m.is_empty()) {
            fields.push((m, 0));
        }
        vec![Setting {
            fields,
            alias: Some(end),
            ..Setting::default()
        }]
    }

    /// A control operand written as a number: the field holds it as written.
    fn raw_number(&self, i: usize, word: &str, end: usize) -> Vec<Setting> {
        let field = self.e.fields[i];
        let width = super::field_width(field);
        if word.is_empty() || !word.bytes().all(|c| c.is_ascii_hexdigit() || c == b'x') {
            return Vec::new();
        }
        text::integers(word)
            .into_iter()
            .take(1)
            .filter(|&n| n >= 0 && (n as u128) < (1u128 << width))
            .map(|n| Setting {
                fields: vec![(field, n as u64)],
                alias: Some(end),
                ..Setting::default()
            })
            .collect()
    }

    /// `op_sel:[0,0]`, `neg_lo:[0,0,0]`, `op_sel_hi:[1,1]`...: the modifier at the value it has
    /// when left out (the printer writes nothing for the current bits).
    fn default_modifier(
        &mut self,
        i: usize,
        at: usize,
        method: &str,
        word: &str,
        end: usize,
    ) -> Vec<Setting> {
        let name = match method {
            "printOpSel" => "op_sel",
            "printOpSelHi" => "op_sel_hi",
            "printNegLo" => "neg_lo",
            _ => "neg_hi",
        };
        let Some(list) = word
            .strip_prefix(name)
            .and_then(|w| w.strip_prefix(":["))
            .and_then(|w| w.strip_suffix(']'))
        else {
            return Vec::new();
        };
        // LLVM's defaults: op_sel_hi 1 on packed math, 0 on mixed precision (`v_mad_mix*`,
        // `v_fma_mix*`); everything else 0.
        let default = if name == "op_sel_hi" && !self.e.opcode.name().contains("_MIX") {
            "1"
        } else {
            "0"
        };
        // A short list is padded with zeros first, even one of defaults: `op_sel_hi:[1,1]` on
        // a three-source instruction is `op_sel_hi:[1,1,0]`.
        let short = self.short_modifier_list(i, at, name, list, end);
        if !short.is_empty() || !list.split(',').all(|v| v.trim() == default) {
            return short;
        }
        let mut candidates = vec![Setting {
            alias: Some(end),
            ..Setting::default()
        }];
        if default == "1" {
            // All ones: the sources' op_sel_hi bits (and an op_sel_hi field) set.
            let mut bits = self.modifier_bits(&[3]);
            for &(lo, hi, _) in self.e.fields[i] {
                bits.extend(lo..=hi);
            }
            candidates.push(Setting {
                bits: bits.into_iter().map(|b| (b, true)).collect(),
                alias: Some(end),
                ..Setting::default()
            });
        }
        candidates
            .into_iter()
            .filter(|s| self.printed(i, s).is_some_and(|p| p.trim().is_empty()))
            .collect()
    }

    /// A modifier list shorter than the instruction's (`op_sel:[1,0]` on a three-source
    /// `v_dot2_f32_f16`): LLVM pads it with zeros. The bits that print the padded list.
    fn short_modifier_list(
        &mut self,
        i: usize,
        at: usize,
        name: &str,
        list: &str,
        end: usize,
    ) -> Vec<Setting> {
        let values: Vec<&str> = list.split(',').map(str::trim).collect();
        if !values.iter().all(|v| matches!(*v, "0" | "1")) {
            return Vec::new();
        }
        let settings = self.settings(i, at);
        for pad in 1..=3 {
            let mut padded = values.clone();
            padded.extend(std::iter::repeat_n("0", pad));
            let want = format!("{name}:[{}]", padded.join(","));
            let out: Vec<Setting> = settings
                .iter()
                .filter(|s| self.printed(i, s).is_some_and(|p| p.trim() == want))
                .take(1)
                .map(|s| Setting {
                    alias: Some(end),
                    ..s.clone()
                })
                .collect();
            if !out.is_empty() {
                return out;
            }
        }
        Vec::new()
    }

    /// A float written in a 16-bit integer operand (`0.5`, `-4.0`): the inline constant of its
    /// half-precision bits, which the operand prints as those bits in hex.
    fn f16_inline_in_int(&self, i: usize, word: &str, end: usize) -> Vec<Setting> {
        if !word.contains('.') {
            return Vec::new();
        }
        let Some(f) = text::float(word) else {
            return Vec::new();
        };
        let Some(h) = super::f16_bits(f) else {
            return Vec::new();
        };
        let table = value_table(self.e.operands[i].class, self.word, i, self.target(), self.e);
        if table.values.contains_key(word) && !table.literal_codes.is_empty() {
            // The operand prints this float itself (a float operand): nothing to add.
            let literal_only = table.values[word]
                .iter()
                .all(|c| table.literal_codes.contains(&(*c as u16)));
            if !literal_only {
                return Vec::new();
            }
        }
        table
            .values
            .get(&format!("0x{h:x}"))
            .into_iter()
            .flatten()
            .filter(|&&c| !table.literal_codes.contains(&(c as u16)))
            .map(|&code| Setting {
                fields: vec![(self.e.fields[i], code)],
                alias: Some(end),
                ..Setting::default()
            })
            .collect()
    }

    /// An MTBUF `soffset` followed by its default format written out
    /// (`s3 format:[BUF_DATA_FORMAT_8]`, `[BUF_NUM_FORMAT_UNORM]` or both): the settings that
    /// print the register with no format, taking the format word too.
    fn default_format(&mut self, i: usize, at: usize) -> Vec<Setting> {
        let mut out = Vec::new();
        for setting in self.settings(i, at) {
            let Some(printed) = self.printed(i, &setting) else {
                continue;
            };
            if printed.contains("format") {
                continue;
            }
            let Some(after) = self.source.match_at(at, &printed) else {
                continue;
            };
            let word = self.source.word_at(after);
            let Some(list) = word
                .strip_prefix("format:[")
                .and_then(|w| w.strip_suffix(']'))
            else {
                continue;
            };
            if !list
                .split(',')
                .all(|f| matches!(f.trim(), "BUF_DATA_FORMAT_8" | "BUF_NUM_FORMAT_UNORM"))
            {
                continue;
            }
            let text = self.source.text.as_bytes();
            let start = (after..text.len())
                .find(|&k| !matches!(text[k], b' ' | b','))
                .unwrap_or(text.len());
            out.push(Setting {
                alias: Some(start + word.len()),
                ..setting
            });
        }
        out
    }
}

/// The address widths (in registers) of the records of `e`'s instruction on `target`: the
/// `_V<n>` of LLVM's pre-GFX10 MIMG record names (`IMAGE_SAMPLE_V1_V3`: one data register,
/// three address registers).
fn mimg_address_widths(e: &Encoding, target: &crate::isa::Target) -> Vec<u32> {
    static BY_NAME: OnceLock<HashMap<String, Vec<u32>>> = OnceLock::new();
    let by_name = BY_NAME.get_or_init(|| {
        let mut map: HashMap<String, Vec<u32>> = HashMap::new();
        for (k, e) in encodings().iter().enumerate() {
            if e.flags.has(flag::MIMG) {
                map.entry(e.opcode.name().to_owned()).or_default().push(k as u32);
            }
        }
        map
    });
    let name = e.opcode.name();
    let Some((prefix, _)) = name.rsplit_once("_V") else {
        return Vec::new();
    };
    let ctx = PredContext::of(target);
    let mut widths = Vec::new();
    for n in 1..=16u32 {
        let Some(records) = by_name.get(&format!("{prefix}_V{n}")) else {
            continue;
        };
        let present = records.iter().any(|&k| {
            let r = &encodings()[k as usize];
            r.suffix == e.suffix
                && r.llvm == e.llvm
                && r.preds
                    .iter()
                    .all(|&p| !predicates::checked_by_decoder(p) || predicates::holds(p, &ctx))
        });
        if present {
            widths.push(n);
        }
    }
    widths
}

impl super::Parser {
    /// A compressed export (`exp mrtz v3, v3, v7, v7 compr`) as LLVM's assembler reads it: the
    /// first and third sources are the two registers (`vsrc0`, `vsrc1`), each enabling two
    /// lanes; the second and fourth are not encoded. The text must print back as written.
    /// `None`: not a GFX8/GFX9 compressed export.
    pub(super) fn legacy_exp_compr(&self, line: &str) -> Option<super::Parsed> {
        use super::super::operand::decode_operands;
        if !matches!(
            self.target().generation(),
            Generation::Gfx8 | Generation::Gfx9 | Generation::Gfx90a | Generation::Gfx940
        ) {
            return None;
        }
        let rest = line.trim().strip_prefix("exp ")?;
        let words: Vec<&str> = rest.split_whitespace().collect();
        if !words.contains(&"compr") {
            return None;
        }
        let (target, tail) = rest.trim_start().split_once(' ')?;
        let slots: Vec<&str> = tail.splitn(4, ',').map(str::trim).collect();
        if slots.len() != 4 {
            return None;
        }
        let mut last = slots[3].split_whitespace();
        // The fourth source (not encoded; the print check below wants it equal to the third).
        last.next()?;
        let modifiers: Vec<&str> = last.filter(|&w| w != "compr").collect();
        let plain = format!(
            "exp {target} {}, {}, off, off {}",
            slots[0],
            slots[2],
            modifiers.join(" ")
        );
        let parsed = self.parse(&plain).ok()?;
        let e = parsed.encoding;
        let field = |name: OperandName| e.operand_index(name).map(|k| e.fields[k]);
        let (en, compr) = (field(OperandName::en)?, field(OperandName::compr)?);
        let mut word = parsed.inst.encoded_bits();
        let lanes = u64::from(slots[0] != "off") * 0x3 | u64::from(slots[2] != "off") * 0xc;
        word = super::deposit(word, en, lanes);
        word = super::deposit(word, compr, 1);
        let bytes = word.to_le_bytes()[..e.bits as usize / 8].to_vec();
        let inst = self.decoder.decode_uncached(&bytes);
        let encoding = inst.encoding()?;
        let printed = super::print::print(&inst, self.target(), 0);
        let source = super::Source::new(line);
        if source.match_at(0, &printed) != Some(source.text.len()) {
            return None;
        }
        let ops = decode_operands(encoding, inst.encoded_bits(), &[], self.target()).ok()?;
        Some(super::Parsed { encoding, ops, inst })
    }
}
