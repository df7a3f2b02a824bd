//! Temporary stand-in until the predicate evaluator lands.
use super::processor::{Generation, Processor};
use super::table::Pred;

#[derive(Clone, Copy, Debug)]
pub struct PredContext {
    pub processor: &'static Processor,
    pub wave64: bool,
    pub real_true16: bool,
}

pub fn checked_by_decoder(_pred: Pred) -> bool {
    true
}

pub fn holds(pred: Pred, ctx: &PredContext) -> bool {
    use Generation::*;
    let g = ctx.processor.generation;
    let name = pred.name();
    match name {
        "isGFX8Only" => g == Gfx8,
        "isGFX8Plus" | "isGFX7Plus" => g >= Gfx8,
        "isGFX9Plus" => g >= Gfx9,
        "isGFX9Only" => matches!(g, Gfx9 | Gfx90a | Gfx940 | Gfx950),
        "isGFX8GFX9" | "isGFX7GFX8GFX9" | "isGFX6GFX7GFX8GFX9" => (Gfx8..=Gfx950).contains(&g),
        "isGFX8GFX9NotGFX90A" | "isGFX6GFX7GFX8GFX9NotGFX90A" | "isGCN3ExcludingGFX90A" => matches!(g, Gfx8 | Gfx9),
        "isGFX8GFX9NotGFX940" => matches!(g, Gfx8 | Gfx9 | Gfx90a),
        "isGFX90APlus" => matches!(g, Gfx90a | Gfx940 | Gfx950),
        "isGFX90AOnly" => g == Gfx90a,
        "isNotGFX90APlus" => !matches!(g, Gfx90a | Gfx940 | Gfx950),
        "isGFX940Plus" => matches!(g, Gfx940 | Gfx950),
        "isGFX10Only" => matches!(g, Gfx10_1 | Gfx10_3),
        "isGFX10Plus" | "isGFX6GFX7GFX10Plus" => g >= Gfx10_1,
        "isGFX10Before1030" => g == Gfx10_1,
        "isGFX6GFX7GFX10" | "isGFX7GFX10" => matches!(g, Gfx10_1 | Gfx10_3),
        "isGFX10GFX11" | "isGFX7GFX10GFX11" => matches!(g, Gfx10_1 | Gfx10_3 | Gfx11 | Gfx11_5),
        "isGFX9GFX10" => matches!(g, Gfx9 | Gfx90a | Gfx940 | Gfx950 | Gfx10_1 | Gfx10_3),
        "isGFX8GFX9GFX10GFX11" => (Gfx8..=Gfx11_5).contains(&g),
        "isGFX11Only" => matches!(g, Gfx11 | Gfx11_5),
        "isGFX11Plus" => g >= Gfx11,
        "isGFX12Only" => g == Gfx12,
        "isGFX12Plus" => g >= Gfx12,
        "isNotGFX12Plus" => g < Gfx12,
        "isWave32" => !ctx.wave64,
        "isWave64" => ctx.wave64,
        "UseRealTrue16Insts" => ctx.real_true16,
        "UseFakeTrue16Insts" => g >= Gfx11 && !ctx.real_true16,
        "HasTrue16BitInsts" => g >= Gfx11,
        "NotHasTrue16BitInsts" => g < Gfx11,
        "HasUnpackedD16VMem" => g == Gfx8,
        "HasPackedD16VMem" => g >= Gfx9,
        "HasSDWA" => g == Gfx8,
        "HasSDWA9" => matches!(g, Gfx9 | Gfx90a | Gfx940 | Gfx950),
        "HasSDWA10" => matches!(g, Gfx10_1 | Gfx10_3),
        "HasDPP" => g >= Gfx8,
        "HasDPP16" => g >= Gfx10_1,
        "HasMadMixInsts" => matches!(ctx.processor.name, "gfx900" | "gfx902" | "gfx909" | "gfx90c"),
        "HasFmaMixInsts" => matches!(ctx.processor.name, "gfx906" | "gfx908" | "gfx90a" | "gfx942" | "gfx950") || g >= Gfx10_3,
        "HasMAIInsts" => matches!(ctx.processor.name, "gfx908" | "gfx90a" | "gfx942" | "gfx950"),
        "HasDsSrc2Insts" => g < Gfx10_3 && !matches!(g, Gfx90a | Gfx940 | Gfx950),
        _ => true,
    }
}
