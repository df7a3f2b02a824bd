//! Which decoder tables a target tries, in which order: LLVM's `getInstruction`, as data.
//!
//! LLVM tries wider encodings first (96-bit, then 64-bit, then 32-bit), and within a width a
//! fixed sequence of tables gated by generation and features. The first table that decodes
//! wins, so the order is part of the meaning: GFX9_DL's `v_fma_mix_f32` must be tried before
//! GFX9's `v_mad_mix_f32`, which shares its encoding.

use crate::isa::processor::Generation::{self, *};
use crate::isa::table::Namespace;
use crate::isa::target::Target;

/// One table to try: a decoder namespace at one instruction width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attempt {
    pub namespace: Namespace,
    pub bits: u8,
}

/// The namespaces, by LLVM name, a generation tries at each width, in order.
fn sequence(generation: Generation, unpacked_d16: bool, fma_mix: bool, gfx10_b: bool) -> Vec<(u8, &'static str)> {
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
    add(96, &["GFX11", "GFX11_FAKE16"], matches!(generation, Gfx11 | Gfx11_5));
    add(96, &["GFX12", "GFX12_FAKE16", "GFX12W64"], matches!(generation, Gfx12 | Gfx1250));
    // 64-bit encodings.
    add(64, &["GFX10_B"], gfx10_b);
    add(64, &["GFX80_UNPACKED"], unpacked_d16);
    add(64, &["GFX9_DL"], fma_mix);
    add(64, &["GFX950"], generation == Gfx950);
    add(64, &["GFX940"], matches!(generation, Gfx940 | Gfx950));
    add(64, &["GFX90A"], matches!(generation, Gfx90a | Gfx940 | Gfx950));
    add(64, &["GFX8"], vi_or_gfx9);
    add(64, &["GFX9"], gfx9_family);
    add(64, &["GFX10"], matches!(generation, Gfx10_1 | Gfx10_3));
    add(64, &["GFX1250", "GFX1250_FAKE16"], generation == Gfx1250);
    add(64, &["GFX12", "GFX12_FAKE16"], matches!(generation, Gfx12 | Gfx1250));
    add(64, &["GFX11", "GFX11_FAKE16", "GFX11W64"], matches!(generation, Gfx11 | Gfx11_5));
    add(64, &["GFX12W64"], matches!(generation, Gfx12 | Gfx1250));
    // 32-bit encodings.
    add(32, &["GFX8"], vi_or_gfx9);
    add(32, &["AMDGPU"], true);
    add(32, &["GFX9"], gfx9_family);
    add(32, &["GFX90A"], matches!(generation, Gfx90a | Gfx940 | Gfx950));
    add(32, &["GFX10_B"], gfx10_b);
    add(32, &["GFX10"], matches!(generation, Gfx10_1 | Gfx10_3));
    add(32, &["GFX1250", "GFX1250_FAKE16"], generation == Gfx1250);
    add(32, &["GFX12", "GFX12_FAKE16"], matches!(generation, Gfx12 | Gfx1250));
    add(32, &["GFX11", "GFX11_FAKE16"], matches!(generation, Gfx11 | Gfx11_5));
    out
}

/// The attempts a decoder for `target` makes, in order (tables absent from our data are skipped).
pub fn plan(target: &Target) -> Vec<Attempt> {
    let generation = target.generation();
    let name = target.processor.name;
    // GFX8.0 parts store D16 data unpacked; gfx810 and GFX9+ pack it.
    let unpacked_d16 = generation == Gfx8 && name != "gfx810";
    // Parts that repurposed v_mad_mix_* as v_fma_mix_* (FeatureFmaMixInsts).
    // (gfx9-generic has neither mad_mix nor fma_mix.)
    let fma_mix = matches!(name, "gfx906" | "gfx908" | "gfx90a" | "gfx942" | "gfx950");
    // FeatureGFX10_BEncoding: gfx1011, gfx1012, gfx1013 and GFX10.3.
    let gfx10_b = generation == Gfx10_3 || matches!(name, "gfx1011" | "gfx1012" | "gfx1013");
    sequence(generation, unpacked_d16, fma_mix, gfx10_b)
        .into_iter()
        .filter_map(|(bits, ns)| {
            let namespace = Namespace::from_name(ns)?;
            Some(Attempt { namespace, bits })
        })
        .collect()
}

impl Namespace {
    /// The namespace LLVM calls `name`, if the tables have it.
    pub fn from_name(name: &str) -> Option<Namespace> {
        (0..Namespace::COUNT).map(|i| Namespace::ALL[i]).find(|n| n.name() == name)
    }
}
