//! PAL code objects (`EI_OSABI` `ELFOSABI_AMDGPU_PAL`, `amdgcn-amd-amdpal`): the shaders the
//! metadata note's `amdpal.pipelines` describes.
//!
//! The note is the same `NT_AMDGPU_METADATA` msgpack note HSA objects have
//! ([`super::metadata`] keeps its whole document); its PAL view, as LLVM's
//! `AMDGPUPALMetadata` writes it, is
//!
//! ```text
//! amdpal.pipelines: [ { .hardware_stages: { .ps: { .entry_point: _amdgpu_ps_main,
//!                                                  .vgpr_count: 6, .sgpr_count: 20,
//!                                                  .scratch_memory_size: 0, ... }, ... },
//!                       .registers: { 0x2c0a: <SPI_SHADER_PGM_RSRC1_PS>, 0x2c0b: ..., ... },
//!                       .shader_functions: { name: { .vgpr_count: .., ... } } } ]
//! ```
//!
//! A hardware stage without `.entry_point` is entered at the stage's conventional symbol
//! (`_amdgpu_ps_main`). Register keys are dword offsets; a stage's RSRC1 must be present, and
//! its entry symbol must exist: otherwise the object is refused with the reason.

use rmpv::Value;

use super::elf::{Symbol, SymbolKind};
use super::error::{ReadError, Result};
use super::graphics::{compute_lds_bytes, wave32_bit, RegisterSource, Shader, ShaderResources, Stage};
use super::metadata::Metadata;
use crate::isa::processor::Generation;

/// The root key of PAL metadata.
pub const PIPELINES: &str = "amdpal.pipelines";

const WHAT: &str = "PAL metadata (NT_AMDGPU_METADATA)";

/// The shaders of a PAL object's pipeline, in stage order.
pub fn shaders<'data>(metadata: Option<&Metadata>, metadata_offset: u64, symbols: &[Symbol<'data>], generation: Generation) -> Result<Vec<Shader<'data>>> {
    let fail = |detail: String| ReadError::malformed(WHAT, metadata_offset, detail);
    let Some(metadata) = metadata else {
        return Err(ReadError::Unsupported(
            "a PAL code object without an NT_AMDGPU_METADATA note (legacy NT_AMD_PAL_METADATA register pairs are not read)".into(),
        ));
    };
    let pipeline = pipeline(&metadata.document).map_err(fail)?;
    let registers = registers(pipeline).map_err(fail)?;
    let Some(stages) = get(pipeline, ".hardware_stages") else {
        return Ok(Vec::new());
    };
    let stages = stages.as_map().ok_or_else(|| fail(".hardware_stages is not a map".into()))?;
    let mut out = Vec::new();
    for (key, entry) in stages {
        let key = key.as_str().ok_or_else(|| fail(format!(".hardware_stages has a key that is not a string: {key}")))?;
        let stage = Stage::ALL
            .into_iter()
            .find(|s| s.pal_key() == key)
            .ok_or_else(|| fail(format!(".hardware_stages has an unknown stage {key}")))?;
        let entry = entry.as_map().ok_or_else(|| fail(format!(".hardware_stages.{} is not a map", stage.name())))?;
        let count = |field: &str| -> Result<Option<u32>> {
            match entry.iter().find(|(k, _)| k.as_str() == Some(field)) {
                None => Ok(None),
                Some((_, v)) => v
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .map(Some)
                    .ok_or_else(|| fail(format!(".hardware_stages.{}{field} is {v}, not a 32-bit unsigned integer", stage.name()))),
            }
        };
        let entry_point = match entry.iter().find(|(k, _)| k.as_str() == Some(".entry_point")) {
            None => stage.entry_symbol(),
            Some((_, v)) => v.as_str().ok_or_else(|| fail(format!(".hardware_stages.{}.entry_point is {v}, not a string", stage.name())))?,
        };
        let (index, symbol) = symbols
            .iter()
            .enumerate()
            .find(|(_, s)| s.name == entry_point && s.kind == SymbolKind::Function)
            .ok_or_else(|| fail(format!("hardware stage {} is entered at {entry_point}, which is not a function symbol of the object", stage.name())))?;
        let register = |r: u32| registers.iter().find(|&&(k, _)| k == r).map(|&(_, v)| v);
        let rsrc1 = register(stage.rsrc1_register()).ok_or_else(|| {
            fail(format!(
                "hardware stage {} has no {} (register {:#x}) in .registers",
                stage.name(),
                stage.rsrc1_name(),
                stage.rsrc1_register()
            ))
        })?;
        let rsrc2 = register(stage.rsrc1_register() + 1);
        let recorded_wave = count(".wavefront_size")?;
        let (wave_size, wave_size_recorded) = match (recorded_wave, generation.is_gfx10_plus(), wave32_bit(stage)) {
            (Some(w), _, _) => (w, true),
            (None, false, _) => (64, true),
            (None, true, Some((r, bit))) => (if register(r).is_some_and(|v| v & bit != 0) { 32 } else { 64 }, true),
            (None, true, None) => (generation.default_wave_size(), false),
        };
        let lds_size = match (count(".lds_size")?, stage, rsrc2) {
            (Some(n), _, _) => Some(n),
            (None, Stage::Cs, Some(rsrc2)) => Some(compute_lds_bytes(rsrc2, generation)),
            _ => None,
        };
        out.push(Shader {
            stage,
            name: symbol.name,
            symbol: index,
            entry_address: symbol.value,
            code_size: symbol.size,
            resources: ShaderResources {
                rsrc1,
                rsrc2,
                wave_size,
                wave_size_recorded,
                vgpr_count: count(".vgpr_count")?,
                sgpr_count: count(".sgpr_count")?,
                scratch_memory_size: count(".scratch_memory_size")?,
                scratch_wave_blocks: None,
                lds_size,
                source: RegisterSource::PalMetadata,
            },
        });
    }
    out.sort_by_key(|s| s.stage);
    Ok(out)
}

/// The pipeline map: `amdpal.pipelines[0]`, the only one LLVM writes.
fn pipeline(document: &Value) -> Result<&[(Value, Value)], String> {
    let root = document.as_map().ok_or("the document is not a map")?;
    let pipelines = root
        .iter()
        .find(|(k, _)| k.as_str() == Some(PIPELINES))
        .map(|(_, v)| v)
        .ok_or_else(|| format!("no {PIPELINES} in the note"))?;
    match pipelines.as_array().map(Vec::as_slice) {
        Some([one]) => one.as_map().map(Vec::as_slice).ok_or_else(|| format!("{PIPELINES}[0] is not a map")),
        Some(many) => Err(format!("{PIPELINES} has {} pipelines; gfxpatch reads objects of one", many.len())),
        None => Err(format!("{PIPELINES} is not an array")),
    }
}

/// `.registers` as (dword offset, value) pairs.
fn registers(pipeline: &[(Value, Value)]) -> Result<Vec<(u32, u32)>, String> {
    let Some(map) = get(pipeline, ".registers") else { return Ok(Vec::new()) };
    let map = map.as_map().ok_or(".registers is not a map")?;
    map.iter()
        .map(|(k, v)| {
            let key = k.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| format!(".registers has a key {k} that is not a register offset"))?;
            let value = v.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| format!(".registers[{key:#x}] is {v}, not a 32-bit value"))?;
            Ok((key, value))
        })
        .collect()
}

fn get<'v>(map: &'v [(Value, Value)], key: &str) -> Option<&'v Value> {
    map.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v)
}

/// Mutable access to the parts of a PAL document a rewrite raises (see
/// [`super::write::registers`]): a stage's entry in `.hardware_stages` and the `.registers` map.
pub fn stage_entry_mut<'d>(document: &'d mut Value, stage: Stage) -> Option<&'d mut Vec<(Value, Value)>> {
    let stages = pipeline_mut(document)?.iter_mut().find(|(k, _)| k.as_str() == Some(".hardware_stages"))?;
    match &mut stages.1 {
        Value::Map(m) => match &mut m.iter_mut().find(|(k, _)| k.as_str() == Some(stage.pal_key()))?.1 {
            Value::Map(e) => Some(e),
            _ => None,
        },
        _ => None,
    }
}

/// The value of register `register` in `.registers`, for writing.
pub fn register_mut(document: &mut Value, register: u32) -> Option<&mut Value> {
    let registers = pipeline_mut(document)?.iter_mut().find(|(k, _)| k.as_str() == Some(".registers"))?;
    match &mut registers.1 {
        Value::Map(m) => m.iter_mut().find(|(k, _)| k.as_u64() == Some(u64::from(register))).map(|(_, v)| v),
        _ => None,
    }
}

fn pipeline_mut(document: &mut Value) -> Option<&mut Vec<(Value, Value)>> {
    let Value::Map(root) = document else { return None };
    let Value::Array(pipelines) = &mut root.iter_mut().find(|(k, _)| k.as_str() == Some(PIPELINES))?.1 else { return None };
    match pipelines.first_mut()? {
        Value::Map(m) => Some(m),
        _ => None,
    }
}
