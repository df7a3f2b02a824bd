//! Which decoder tables a target tries, in which order: LLVM's `getInstruction`, as data.
//!
//! LLVM tries wider encodings first (128-bit, 96-bit, then 64-bit, then 32-bit), and within a
//! width a fixed sequence of tables gated by generation and features. The first table that
//! decodes wins, so the order is part of the meaning: GFX9_DL's `v_fma_mix_f32` must be tried
//! before GFX9's `v_mad_mix_f32`, which shares its encoding.
//!
//! Each target follows the `getInstruction` of the LLVM it is decoded like
//! ([`Target::llvm_version`]): LLVM 19's for the processors it knows, LLVM 22.1.8's for GFX950
//! and GFX1250.

use crate::isa::predicates::{self, Feature};
use crate::isa::processor::Generation::{self, *};
use crate::isa::table::Namespace;
use crate::isa::target::Target;

/// One table to try: a decoder namespace at one instruction width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attempt {
    pub namespace: Namespace,
    pub bits: u8,
    /// Where a literal constant is read from, in bytes from the start of the instruction:
    /// normally right after the encoded bits (`bits / 8`). LLVM 22 retries GFX1250's 96-bit
    /// table reading a 64-bit literal from byte 4 (a 32-bit encoding whose 64-bit literal is
    /// the rest of the 96 bits, `v_fmaak_f64 v[0:1], lit64(...), ...` with src0 = 254).
    pub literal_at: u8,
}

/// The namespaces, by LLVM name, a generation tries at each width, in order.
fn sequence(
    generation: Generation,
    unpacked_d16: bool,
    fma_mix: bool,
    gfx10_b: bool,
) -> Vec<(u8, &'static str)> {
    let gfx9_family = matches!(generation, Gfx9 | Gfx90a | Gfx940 | Gfx950);
    let vi_or_gfx9 = generation == Gfx8 || gfx9_family;
    let mut out: Vec<(u8, &'static str)> = Vec::new();
    let mut add = |bits: u8, names: &[&'static str], when: bool| {
        if when {
            out.extend(names.iter().map(|&n| (bits, n)));
        }
    };
    // 96-bit encodings (GFX11+ VOP3 DPP and friends).
    add(96, &["GFX1250", "GFX1250_FAKE16"], generation == Gfx1250);
    add(
        96,
        &["GFX11", "GFX11_FAKE16"],
        matches!(generation, Gfx11 | Gfx11_5),
    );
    add(
        96,
        &["GFX12", "GFX12_FAKE16", "GFX12W64"],
        matches!(generation, Gfx12 | Gfx1250),
    );
    // 64-bit encodings.
    add(64, &["GFX10_B"], gfx10_b);
    add(64, &["GFX80_UNPACKED"], unpacked_d16);
    add(64, &["GFX9_DL"], fma_mix);
    add(64, &["GFX950"], generation == Gfx950);
    add(64, &["GFX940"], matches!(generation, Gfx940 | Gfx950));
    add(
        64,
        &["GFX90A"],
        matches!(generation, Gfx90a | Gfx940 | Gfx950),
    );
    add(64, &["GFX8"], vi_or_gfx9);
    add(64, &["GFX9"], gfx9_family);
    add(64, &["GFX10"], matches!(generation, Gfx10_1 | Gfx10_3));
    add(64, &["GFX1250", "GFX1250_FAKE16"], generation == Gfx1250);
    add(
        64,
        &["GFX12", "GFX12_FAKE16"],
        matches!(generation, Gfx12 | Gfx1250),
    );
    add(
        64,
        &["GFX11", "GFX11_FAKE16", "GFX11W64"],
        matches!(generation, Gfx11 | Gfx11_5),
    );
    add(64, &["GFX12W64"], matches!(generation, Gfx12 | Gfx1250));
    // 32-bit encodings.
    add(32, &["GFX8"], vi_or_gfx9);
    add(32, &["AMDGPU"], true);
    add(32, &["GFX9"], gfx9_family);
    add(
        32,
        &["GFX90A"],
        matches!(generation, Gfx90a | Gfx940 | Gfx950),
    );
    add(32, &["GFX10_B"], gfx10_b);
    add(32, &["GFX10"], matches!(generation, Gfx10_1 | Gfx10_3));
    add(32, &["GFX1250", "GFX1250_FAKE16"], generation == Gfx1250);
    add(
        32,
        &["GFX12", "GFX12_FAKE16"],
        matches!(generation, Gfx12 | Gfx1250),
    );
    add(
        32,
        &["GFX11", "GFX11_FAKE16"],
        matches!(generation, Gfx11 | Gfx11_5),
    );
    out
}

/// LLVM 22.1.8's `getInstruction` for GFX950 and GFX1250 (LLVM 19 knows neither), as
/// (bits, namespace, literal_at) in order. GFX950 has FeatureGFX950Insts, FeatureFmaMixInsts,
/// GFX940/GFX90A instructions and is `isGFX9`; GFX1250 is `isGFX12` and `isGFX1250`, has
/// FeatureFmaMixInsts (so LLVM tries GFX9_DL's 64-bit table on it too) and Feature64BitLiterals.
fn sequence_llvm22(generation: Generation) -> Vec<(u8, &'static str, u8)> {
    let gfx950 = generation == Gfx950;
    let gfx1250 = generation == Gfx1250;
    let mut out: Vec<(u8, &'static str, u8)> = Vec::new();
    let mut add = |bits: u8, names: &[&'static str], when: bool| {
        if when {
            out.extend(names.iter().map(|&n| (bits, n, bits / 8)));
        }
    };
    // 128-bit: GFX1250's (before the 96-bit tables), GFX950's VOP3PX (only when not GFX11+).
    add(128, &["GFX1250"], gfx1250);
    add(128, &["GFX940"], gfx950);
    // 96-bit (GFX11+).
    add(
        96,
        &[
            "GFX1250",
            "GFX1250_FAKE16",
            "GFX12",
            "GFX12_FAKE16",
            "GFX12W64",
        ],
        gfx1250,
    );
    if gfx1250 {
        // Feature64BitLiterals: the 96-bit GFX1250 table again, the literal read from byte 4.
        out.push((96, "GFX1250", 4));
    }
    // 64-bit.
    let mut add = |bits: u8, names: &[&'static str], when: bool| {
        if when {
            out.extend(names.iter().map(|&n| (bits, n, bits / 8)));
        }
    };
    add(64, &["GFX950"], gfx950);
    add(64, &["GFX9_DL"], true);
    add(64, &["GFX940", "GFX90A", "GFX8", "GFX9"], gfx950);
    add(
        64,
        &[
            "GFX1250",
            "GFX1250_FAKE16",
            "GFX12",
            "GFX12_FAKE16",
            "GFX12W64",
        ],
        gfx1250,
    );
    // 32-bit.
    add(32, &["GFX8"], gfx950);
    add(32, &["AMDGPU"], true);
    add(32, &["GFX9", "GFX950", "GFX90A"], gfx950);
    add(
        32,
        &["GFX1250", "GFX1250_FAKE16", "GFX12", "GFX12_FAKE16"],
        gfx1250,
    );
    out
}

/// The attempts a decoder for `target` makes, in order (tables absent from our data are skipped).
pub fn plan(target: &Target) -> Vec<Attempt> {
    let generation = target.generation();
    let name = target.processor.name;
    let steps: Vec<(u8, &'static str, u8)> = if target.llvm_version() == 22 {
        sequence_llvm22(generation)
    } else {
        // GFX8.0 parts store D16 data unpacked; gfx810 and GFX9+ pack it.
        let unpacked_d16 = generation == Gfx8 && name != "gfx810";
        // GFX9 parts that repurposed v_mad_mix_* as v_fma_mix_* (FeatureFmaMixInsts), read from
        // the feature list: a list of names here missed gfx9-4-generic, whose v_fma_mix then
        // decoded as nothing and its retargets were refused. (gfx9-generic has neither.)
        let fma_mix = matches!(generation, Gfx9 | Gfx90a | Gfx940 | Gfx950)
            && predicates::features(target.processor).contains(&Feature::FmaMixInsts);
        // FeatureGFX10_BEncoding: gfx1011, gfx1012, gfx1013 and GFX10.3.
        let gfx10_b = generation == Gfx10_3 || matches!(name, "gfx1011" | "gfx1012" | "gfx1013");
        sequence(generation, unpacked_d16, fma_mix, gfx10_b)
            .into_iter()
            .map(|(bits, ns)| (bits, ns, bits / 8))
            .collect()
    };
    steps
        .into_iter()
        .filter_map(|(bits, ns, literal_at)| {
            let namespace = Namespace::from_name(ns)?;
            Some(Attempt {
                namespace,
                bits,
                literal_at,
            })
        })
        .collect()
}

impl Namespace {
    /// The namespace LLVM calls `name`, if the tables have it.
    pub fn from_name(name: &str) -> Option<Namespace> {
        (0..Namespace::COUNT)
            .map(|i| Namespace::ALL[i])
            .find(|n| n.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(cpu: &str) -> Vec<String> {
        plan(&Target::from_name(cpu, "").unwrap())
            .iter()
            .map(|a| {
                format!(
                    "{}{}{}",
                    a.namespace.name(),
                    a.bits,
                    if a.literal_at * 8 != a.bits { "@4" } else { "" }
                )
            })
            .collect()
    }

    #[test]
    fn every_gfx9_part_with_fma_mix_tries_its_table() {
        // Regression: gfx9-4-generic was missing from a list of names, so its v_fma_mix_f32
        // (which llvm-mc-22 -mcpu=gfx9-4-generic assembles) decoded as nothing.
        for cpu in ["gfx904", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx9-4-generic"] {
            assert!(names(cpu).contains(&"GFX9_DL64".to_owned()), "{cpu}");
        }
        for cpu in ["gfx900", "gfx902", "gfx909", "gfx90c", "gfx9-generic", "gfx1030"] {
            assert!(!names(cpu).contains(&"GFX9_DL64".to_owned()), "{cpu}");
        }
    }

    #[test]
    fn llvm22_orders() {
        assert_eq!(
            names("gfx950"),
            [
                "GFX940128",
                "GFX95064",
                "GFX9_DL64",
                "GFX94064",
                "GFX90A64",
                "GFX864",
                "GFX964",
                "GFX832",
                "AMDGPU32",
                "GFX932",
                "GFX95032",
                "GFX90A32"
            ]
        );
        assert_eq!(
            names("gfx1250"),
            [
                "GFX1250128",
                "GFX125096",
                "GFX1250_FAKE1696",
                "GFX1296",
                "GFX12_FAKE1696",
                "GFX12W6496",
                "GFX125096@4",
                "GFX9_DL64",
                "GFX125064",
                "GFX1250_FAKE1664",
                "GFX1264",
                "GFX12_FAKE1664",
                "GFX12W6464",
                "AMDGPU32",
                "GFX125032",
                "GFX1250_FAKE1632",
                "GFX1232",
                "GFX12_FAKE1632"
            ]
        );
    }
}
