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
//!
//! Older PAL objects carry, instead, an `NT_AMD_PAL_METADATA` note (owner `AMD`, type 12):
//! little-endian `(key, value)` u32 pairs, what llc-19 still writes for a module with the
//! legacy `!amdgpu.pal.metadata` tuple. Keys below `0x10000000` are registers (dword offsets,
//! as above); the others are PAL's numbered facts, of which gfxpatch reads a stage's
//! `NUM_USED_VGPRS` (`0x10000021` + stage), `NUM_USED_SGPRS` (`0x10000028` + stage) and
//! `SCRATCH_SIZE` (`0x10000044` + stage), stages numbered LS, HS, ES, GS, VS, PS, CS. Every
//! stage whose RSRC1 is present is a shader, entered at its conventional symbol.

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
            "a PAL code object with neither an NT_AMDGPU_METADATA nor an NT_AMD_PAL_METADATA note: nothing says which shaders it holds".into(),
        ));
    };
    let document = metadata.document()?;
    let pipeline = pipeline(&document).map_err(fail)?;
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
        let recorded = Recorded {
            vgpr_count: count(".vgpr_count")?,
            sgpr_count: count(".sgpr_count")?,
            scratch_memory_size: count(".scratch_memory_size")?,
            lds_size: count(".lds_size")?,
            wavefront_size: count(".wavefront_size")?,
        };
        out.push(shader(stage, (index, symbol), rsrc1, &register, recorded, RegisterSource::PalMetadata, generation));
    }
    out.sort_by_key(|s| s.stage);
    Ok(out)
}

/// What the metadata records of a stage besides its registers.
#[derive(Clone, Copy, Default)]
struct Recorded {
    vgpr_count: Option<u32>,
    sgpr_count: Option<u32>,
    scratch_memory_size: Option<u32>,
    lds_size: Option<u32>,
    wavefront_size: Option<u32>,
}

fn shader<'data>(
    stage: Stage,
    (index, symbol): (usize, &Symbol<'data>),
    rsrc1: u32,
    register: &dyn Fn(u32) -> Option<u32>,
    recorded: Recorded,
    source: RegisterSource,
    generation: Generation,
) -> Shader<'data> {
    let rsrc2 = register(stage.rsrc1_register() + 1);
    let (wave_size, wave_size_recorded) = match (recorded.wavefront_size, generation.is_gfx10_plus(), wave32_bit(stage)) {
        (Some(w), _, _) => (w, true),
        (None, false, _) => (64, true),
        (None, true, Some((r, bit))) => (if register(r).is_some_and(|v| v & bit != 0) { 32 } else { 64 }, true),
        (None, true, None) => (generation.default_wave_size(), false),
    };
    let lds_size = match (recorded.lds_size, stage, rsrc2) {
        (Some(n), _, _) => Some(n),
        (None, Stage::Cs, Some(rsrc2)) => Some(compute_lds_bytes(rsrc2, generation)),
        _ => None,
    };
    Shader {
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
            vgpr_count: recorded.vgpr_count,
            sgpr_count: recorded.sgpr_count,
            scratch_memory_size: recorded.scratch_memory_size,
            scratch_wave_blocks: None,
            lds_size,
            source,
        },
    }
}

/// Keys of the legacy note's numbered facts, per stage (LS, HS, ES, GS, VS, PS, CS in order).
const LEGACY_NUM_USED_VGPRS: u32 = 0x1000_0021;
const LEGACY_NUM_USED_SGPRS: u32 = 0x1000_0028;
const LEGACY_SCRATCH_SIZE: u32 = 0x1000_0044;

/// The shaders of a PAL object whose only metadata is the legacy `NT_AMD_PAL_METADATA` note,
/// given as its descriptor bytes and their file offset.
pub fn legacy_shaders<'data>((desc, offset): (&[u8], u64), symbols: &[Symbol<'data>], generation: Generation) -> Result<Vec<Shader<'data>>> {
    let fail = |detail: String| ReadError::malformed("PAL metadata (NT_AMD_PAL_METADATA)", offset, detail);
    if desc.len() % 8 != 0 {
        return Err(fail(format!("it is {} bytes long, not a whole number of 8-byte (key, value) pairs", desc.len())));
    }
    // (key, value, file offset of the value)
    let pairs: Vec<(u32, u32, u64)> = desc
        .chunks_exact(8)
        .enumerate()
        .map(|(i, c)| (u32::from_le_bytes(c[0..4].try_into().unwrap()), u32::from_le_bytes(c[4..8].try_into().unwrap()), offset + 8 * i as u64 + 4))
        .collect();
    let find = |key: u32| pairs.iter().find(|p| p.0 == key);
    let register = |key: u32| find(key).map(|p| p.1);
    let mut out = Vec::new();
    for (n, stage) in Stage::ALL.into_iter().enumerate() {
        let Some(&(_, rsrc1, rsrc1_offset)) = find(stage.rsrc1_register()) else { continue };
        let entry_point = stage.entry_symbol();
        let found = symbols
            .iter()
            .enumerate()
            .find(|(_, s)| s.name == entry_point && s.kind == SymbolKind::Function)
            .ok_or_else(|| fail(format!("it configures stage {} ({}), but the object has no function symbol {entry_point}", stage.name(), stage.rsrc1_name())))?;
        let n = n as u32;
        let fact = |base: u32| find(base + n);
        let recorded = Recorded {
            vgpr_count: fact(LEGACY_NUM_USED_VGPRS).map(|p| p.1),
            sgpr_count: fact(LEGACY_NUM_USED_SGPRS).map(|p| p.1),
            scratch_memory_size: fact(LEGACY_SCRATCH_SIZE).map(|p| p.1),
            ..Recorded::default()
        };
        let source = RegisterSource::PalLegacy {
            rsrc1_offset,
            vgpr_count_offset: fact(LEGACY_NUM_USED_VGPRS).map(|p| p.2),
            sgpr_count_offset: fact(LEGACY_NUM_USED_SGPRS).map(|p| p.2),
        };
        out.push(shader(stage, found, rsrc1, &register, recorded, source, generation));
    }
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
