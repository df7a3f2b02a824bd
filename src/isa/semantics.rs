//! AMD's instruction pseudocode, from the tables in `data/semantics/` (AMD's machine-readable ISA
//! XML as tabulated by the tiny corp; MIT, `data/semantics/LICENSE-tables-MIT.txt`).
//!
//! One file per AMD architecture: `rdna2` (GFX10.x), `rdna3_5` (GFX11 and GFX11.5), `rdna4`
//! (GFX12) and `cdna4` (GFX950, the nearest to the other GFX9 parts). Each entry is AMD's
//! encoding name, instruction name and opcode, and the pseudocode.
//!
//! # The pseudocode is keyed by opcode number alone
//!
//! In all four files every entry with the same opcode number carries the same pseudocode, whatever
//! its encoding: `DS_ADD_U32`, `S_ADD_U32`, `S_NOP` and `V_CMP_F_F32` (all opcode 0 of their
//! encodings in RDNA2) share `V_CMP_F_F32`'s text, as if the tables had been built with one
//! dictionary keyed by opcode number for all encodings, the last writer of each number winning.
//! Each text therefore belongs to at most one of the instructions that show it, and
//! [`Semantics::pseudocode`] only gives a text to an instruction when it can tell the text is
//! that instruction's:
//!
//! - [`Attribution::Unique`]: only one instruction (its VOPC/VOP3 `_E32`/`_E64` twins
//!   counted as one) has that opcode number in the architecture, so the text must be its own;
//! - [`Attribution::CrossArch`]: several instructions share the number, and exactly one of them
//!   shows the same text in another architecture at a number it does not share with any of the
//!   others (for `V_CMP_LE_I64`, opcode 83 in RDNA3.5 is shared with `DS_MAX_F64`,
//!   `S_CMP_LE_F16` and `V_CVT_I16_F16`, but only `V_CMP_LE_I64` carries the same text in
//!   RDNA2, at 163, and in CDNA4, at 227).
//!
//! Everything else is ambiguous and is not shown as the instruction's semantics. About a third of
//! the entries have a text attributed this way ([`Semantics::coverage`]).

pub mod eval;
pub mod transcribed;

use std::collections::{BTreeSet, HashMap};
use std::io::Read as _;
use std::sync::OnceLock;

use serde::Deserialize;

use super::processor::Generation;

/// An AMD architecture with a semantics table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    Rdna2,
    Rdna3_5,
    Rdna4,
    Cdna4,
}

impl Arch {
    pub const ALL: [Arch; 4] = [Arch::Rdna2, Arch::Rdna3_5, Arch::Rdna4, Arch::Cdna4];

    /// The name of the table (`rdna3_5`).
    pub fn name(self) -> &'static str {
        match self {
            Arch::Rdna2 => "rdna2",
            Arch::Rdna3_5 => "rdna3_5",
            Arch::Rdna4 => "rdna4",
            Arch::Cdna4 => "cdna4",
        }
    }

    fn data(self) -> &'static [u8] {
        match self {
            Arch::Rdna2 => include_bytes!("data/semantics/rdna2.json.gz"),
            Arch::Rdna3_5 => include_bytes!("data/semantics/rdna3_5.json.gz"),
            Arch::Rdna4 => include_bytes!("data/semantics/rdna4.json.gz"),
            Arch::Cdna4 => include_bytes!("data/semantics/cdna4.json.gz"),
        }
    }

    /// The table for a generation, and whether it is that generation's own (`false`: the nearest
    /// one, for GFX8, GFX9, GFX90A and GFX940, which share CDNA4's encodings and mostly its
    /// opcode numbers, for RDNA1 (RDNA2's), and for GFX1250, which shares RDNA4's).
    pub fn for_generation(generation: Generation) -> Option<(Arch, bool)> {
        use Generation::*;
        Some(match generation {
            Gfx8 | Gfx9 | Gfx90a | Gfx940 => (Arch::Cdna4, false),
            Gfx950 => (Arch::Cdna4, true),
            Gfx10_1 | Gfx10_3 => (Arch::Rdna2, generation == Gfx10_3),
            // The RDNA3.5 table covers RDNA3 as well.
            Gfx11 | Gfx11_5 => (Arch::Rdna3_5, true),
            Gfx12 => (Arch::Rdna4, true),
            Gfx1250 => (Arch::Rdna4, false),
            R600 | Gfx6 | Gfx7 => return None,
        })
    }

    /// Where to look for an instruction's text when this table has none for it: the
    /// architectures nearest first.
    fn fallbacks(self) -> [Arch; 3] {
        match self {
            Arch::Rdna2 => [Arch::Rdna3_5, Arch::Rdna4, Arch::Cdna4],
            Arch::Rdna3_5 => [Arch::Rdna4, Arch::Rdna2, Arch::Cdna4],
            Arch::Rdna4 => [Arch::Rdna3_5, Arch::Rdna2, Arch::Cdna4],
            Arch::Cdna4 => [Arch::Rdna2, Arch::Rdna3_5, Arch::Rdna4],
        }
    }
}

/// One instruction of one AMD table.
#[derive(Clone, Debug, Deserialize)]
pub struct Entry {
    /// AMD's encoding name: `VOP3`, `VOPC`, `SOP2`, `VGLOBAL`, ...
    pub encoding: String,
    /// AMD's instruction name: `V_LSHL_OR_B32`, `V_CMP_LE_I64_E32`.
    pub name: String,
    pub opcode: u32,
    /// As stored, which may be another instruction's (see the module documentation).
    #[serde(default)]
    pub pseudocode: Option<String>,
}

impl Entry {
    /// The name without the `_E32`/`_E64` suffix AMD gives the VOP1/VOP2/VOPC forms and their
    /// VOP3 promotions.
    pub fn base_name(&self) -> &str {
        base_name(&self.name)
    }
}

/// `V_CMP_LE_I64_E32` -> `V_CMP_LE_I64`.
pub fn base_name(name: &str) -> &str {
    name.strip_suffix("_E32")
        .or_else(|| name.strip_suffix("_E64"))
        .unwrap_or(name)
}

#[derive(Deserialize)]
struct File {
    arch: String,
    instructions: Vec<Entry>,
}

/// How a text was tied to one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attribution {
    /// The only instruction with that opcode number in its table.
    Unique,
    /// The only one of the instructions sharing the number that shows the same text elsewhere.
    CrossArch,
}

impl Attribution {
    pub fn name(self) -> &'static str {
        match self {
            Attribution::Unique => "unique-opcode",
            Attribution::CrossArch => "cross-architecture",
        }
    }
}

/// Who the text stored under one opcode number belongs to.
#[derive(Clone, Debug)]
enum Owner {
    /// This instruction (base name).
    Known(String, Attribution),
    /// One of these, undecidable.
    Ambiguous(Vec<String>),
}

struct Table {
    entries: Vec<Entry>,
    by_encoding: HashMap<(String, u32), usize>,
    by_name: HashMap<String, Vec<usize>>,
    by_opcode: HashMap<u32, Vec<usize>>,
    owners: HashMap<u32, Owner>,
}

/// The four tables, with the attribution of each stored text.
pub struct Semantics {
    tables: Vec<Table>,
}

/// An instruction's pseudocode, or why there is none.
#[derive(Clone, Debug)]
pub enum Pseudocode {
    /// A text that is the instruction's own, from `arch` (the one asked, or a fallback when the
    /// asked table's text is not attributable).
    Text {
        arch: Arch,
        text: String,
        attribution: Attribution,
    },
    /// No table has an attributable text for it; `shared_with` are the instructions whose
    /// opcode number the asked table's text is stored under.
    Ambiguous { shared_with: Vec<String> },
    /// No table has any text for it.
    Missing,
}

impl Semantics {
    /// The tables, parsed once.
    pub fn get() -> &'static Semantics {
        static SEMANTICS: OnceLock<Semantics> = OnceLock::new();
        SEMANTICS.get_or_init(Semantics::load)
    }

    fn load() -> Semantics {
        let mut tables: Vec<Table> = Arch::ALL
            .iter()
            .map(|&arch| {
                let mut json = String::new();
                flate2::read::GzDecoder::new(arch.data())
                    .read_to_string(&mut json)
                    .expect("embedded semantics table is valid gzip");
                let file: File =
                    serde_json::from_str(&json).expect("embedded semantics table is valid JSON");
                assert_eq!(
                    file.arch,
                    arch.name(),
                    "semantics table for the wrong architecture"
                );
                let mut table = Table {
                    entries: file.instructions,
                    by_encoding: HashMap::new(),
                    by_name: HashMap::new(),
                    by_opcode: HashMap::new(),
                    owners: HashMap::new(),
                };
                for (i, e) in table.entries.iter().enumerate() {
                    table.by_encoding.insert((e.encoding.clone(), e.opcode), i);
                    table
                        .by_name
                        .entry(e.base_name().to_owned())
                        .or_default()
                        .push(i);
                    table.by_opcode.entry(e.opcode).or_default().push(i);
                }
                table
            })
            .collect();
        let owners: Vec<HashMap<u32, Owner>> =
            (0..tables.len()).map(|t| attribute(&tables, t)).collect();
        for (table, owners) in tables.iter_mut().zip(owners) {
            table.owners = owners;
        }
        Semantics { tables }
    }

    fn table(&self, arch: Arch) -> &Table {
        &self.tables[arch as usize]
    }

    /// The entry of `encoding` with `opcode` in `arch`'s table.
    pub fn entry(&self, arch: Arch, encoding: &str, opcode: u32) -> Option<&Entry> {
        let t = self.table(arch);
        t.by_encoding
            .get(&(encoding.to_owned(), opcode))
            .map(|&i| &t.entries[i])
    }

    /// Entries whose name (without `_E32`/`_E64`) is `base`.
    pub fn entries_named<'a>(
        &'a self,
        arch: Arch,
        base: &str,
    ) -> impl Iterator<Item = &'a Entry> + 'a {
        let t = self.table(arch);
        t.by_name
            .get(base)
            .into_iter()
            .flatten()
            .map(move |&i| &t.entries[i])
    }

    /// Every entry of `arch`'s table.
    pub fn entries(&self, arch: Arch) -> &[Entry] {
        &self.table(arch).entries
    }

    /// The text of `entry` (an entry of `arch`'s table) if it is attributable to it.
    fn own_text(&self, arch: Arch, entry: &Entry) -> Option<(String, Attribution)> {
        let text = entry.pseudocode.as_ref()?;
        match self.table(arch).owners.get(&entry.opcode)? {
            Owner::Known(name, how) if name == entry.base_name() => Some((text.clone(), *how)),
            _ => None,
        }
    }

    /// The pseudocode of `entry` (an entry of `arch`'s table): its own text if attributable, else
    /// the same instruction's attributable text from the nearest other table.
    pub fn pseudocode(&self, arch: Arch, entry: &Entry) -> Pseudocode {
        if let Some((text, attribution)) = self.own_text(arch, entry) {
            return Pseudocode::Text {
                arch,
                text,
                attribution,
            };
        }
        for other in arch.fallbacks() {
            for e in self.entries_named(other, entry.base_name()) {
                if let Some((text, attribution)) = self.own_text(other, e) {
                    return Pseudocode::Text {
                        arch: other,
                        text,
                        attribution,
                    };
                }
            }
        }
        if entry.pseudocode.is_none() {
            return Pseudocode::Missing;
        }
        let t = self.table(arch);
        let mut shared_with: Vec<String> = t.by_opcode[&entry.opcode]
            .iter()
            .map(|&i| t.entries[i].base_name().to_owned())
            .filter(|n| n != entry.base_name())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if shared_with.is_empty() {
            shared_with = match t.owners.get(&entry.opcode) {
                Some(Owner::Ambiguous(c)) => c.clone(),
                _ => Vec::new(),
            };
        }
        Pseudocode::Ambiguous { shared_with }
    }

    /// Per table: (entries with a text, entries whose text is attributed to them).
    pub fn coverage(&self) -> Vec<(Arch, usize, usize)> {
        Arch::ALL
            .iter()
            .map(|&arch| {
                let t = self.table(arch);
                let with_text = t.entries.iter().filter(|e| e.pseudocode.is_some()).count();
                let own = t
                    .entries
                    .iter()
                    .filter(|e| self.own_text(arch, e).is_some())
                    .count();
                (arch, with_text, own)
            })
            .collect()
    }
}

/// Who owns the text of each opcode number of table `t` (see the module documentation).
fn attribute(tables: &[Table], t: usize) -> HashMap<u32, Owner> {
    let table = &tables[t];
    let mut owners = HashMap::new();
    for (&opcode, members) in &table.by_opcode {
        let texts: BTreeSet<&str> = members
            .iter()
            .filter_map(|&i| table.entries[i].pseudocode.as_deref())
            .collect();
        // One text per number is what the tables hold; anything else is left alone.
        let [text] = texts.into_iter().collect::<Vec<_>>()[..] else {
            continue;
        };
        let candidates: BTreeSet<&str> = members
            .iter()
            .filter(|&&i| table.entries[i].pseudocode.is_some())
            .map(|&i| table.entries[i].base_name())
            .collect();
        if candidates.len() == 1 {
            let name = candidates.into_iter().next().unwrap().to_owned();
            owners.insert(opcode, Owner::Known(name, Attribution::Unique));
            continue;
        }
        let votes: Vec<(&str, usize)> = candidates
            .iter()
            .map(|&c| {
                let n = tables
                    .iter()
                    .enumerate()
                    .filter(|&(o, _)| o != t)
                    .filter(|(_, other)| {
                        other.by_name.get(c).into_iter().flatten().any(|&i| {
                            let e = &other.entries[i];
                            e.pseudocode.as_deref() == Some(text)
                                && other.by_opcode[&e.opcode].iter().all(|&j| {
                                    let n = other.entries[j].base_name();
                                    n == c || !candidates.contains(n)
                                })
                        })
                    })
                    .count();
                (c, n)
            })
            .collect();
        let best = votes.iter().map(|v| v.1).max().unwrap_or(0);
        let winners: Vec<&str> = votes.iter().filter(|v| v.1 == best).map(|v| v.0).collect();
        let owner = if best > 0 && winners.len() == 1 {
            Owner::Known(winners[0].to_owned(), Attribution::CrossArch)
        } else {
            Owner::Ambiguous(candidates.iter().map(|c| c.to_string()).collect())
        };
        owners.insert(opcode, owner);
    }
    owners
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(arch: Arch, encoding: &str, opcode: u32) -> Pseudocode {
        let s = Semantics::get();
        let e = s
            .entry(arch, encoding, opcode)
            .unwrap_or_else(|| panic!("no {encoding} {opcode} in {}", arch.name()));
        s.pseudocode(arch, e)
    }

    #[test]
    fn the_tables_store_one_text_per_opcode_number() {
        // The defect the attribution works around: DS_ADD_U32, S_ADD_U32 and V_CMP_F_F32 are all
        // opcode 0 in RDNA2 and all carry V_CMP_F_F32's text.
        let s = Semantics::get();
        let ds = s.entry(Arch::Rdna2, "DS", 0).unwrap();
        let sop2 = s.entry(Arch::Rdna2, "SOP2", 0).unwrap();
        assert_eq!(
            (ds.name.as_str(), sop2.name.as_str()),
            ("DS_ADD_U32", "S_ADD_U32")
        );
        assert_eq!(ds.pseudocode, sop2.pseudocode);
        assert!(
            ds.pseudocode
                .as_deref()
                .unwrap()
                .contains("D0.u64[laneId] = 1'0U")
        );
        // Opcode 0 is shared in every table, so no text is DS_ADD_U32's.
        let Pseudocode::Ambiguous { shared_with } = s.pseudocode(Arch::Rdna2, ds) else {
            panic!("DS_ADD_U32 must not get another instruction's text")
        };
        assert!(
            shared_with.iter().any(|n| n == "V_CMP_F_F32")
                && shared_with.iter().any(|n| n == "S_ADD_U32"),
            "{shared_with:?}"
        );
    }

    #[test]
    fn v_lshl_or_b32_text_is_its_own_in_every_table() {
        for (arch, opcode) in [
            (Arch::Rdna2, 879),
            (Arch::Rdna3_5, 598),
            (Arch::Rdna4, 598),
            (Arch::Cdna4, 512),
        ] {
            let Pseudocode::Text {
                arch: from,
                text,
                attribution,
            } = text(arch, "VOP3", opcode)
            else {
                panic!("no text for V_LSHL_OR_B32 in {}", arch.name())
            };
            assert_eq!(from, arch);
            assert_eq!(attribution, Attribution::Unique);
            assert_eq!(text, "D0.u32 = ((S0.u32 << S1.u32[4 : 0].u32) | S2.u32)");
        }
    }

    #[test]
    fn v_cmp_le_i64_text_is_attributed_across_tables() {
        let expected = "D0.u64[laneId] = S0.i64 <= S1.i64;\n// D0 = VCC in VOPC encoding.";
        for (arch, opcode) in [(Arch::Rdna2, 163), (Arch::Rdna3_5, 83), (Arch::Cdna4, 227)] {
            let Pseudocode::Text {
                arch: from,
                text,
                attribution,
            } = text(arch, "VOPC", opcode)
            else {
                panic!()
            };
            assert_eq!(
                (from, text.as_str(), attribution),
                (arch, expected, Attribution::CrossArch)
            );
        }
        // RDNA4's opcode 83 carries GLOBAL_LOAD_BLOCK's loop: not V_CMP_LE_I64's, so the text
        // comes from RDNA3.5.
        let s = Semantics::get();
        let stored = s
            .entry(Arch::Rdna4, "VOPC", 83)
            .unwrap()
            .pseudocode
            .clone()
            .unwrap();
        assert!(stored.contains("MEM["), "{stored}");
        let Pseudocode::Text {
            arch: from, text, ..
        } = text(Arch::Rdna4, "VOPC", 83)
        else {
            panic!()
        };
        assert_eq!((from, text.as_str()), (Arch::Rdna3_5, expected));
    }

    #[test]
    fn a_third_of_the_entries_have_an_attributable_text() {
        for (arch, with_text, own) in Semantics::get().coverage() {
            assert!(
                own * 4 > with_text && own * 2 < with_text,
                "{}: {own} of {with_text}",
                arch.name()
            );
        }
    }
}
