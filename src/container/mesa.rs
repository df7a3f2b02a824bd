//! Mesa3D code objects (`EI_OSABI` `ELFOSABI_AMDGPU_MESA3D`, `amdgcn-mesa-mesa3d`): the
//! shaders and their `.AMDGPU.config` registers.
//!
//! `.AMDGPU.config` is a run of little-endian `(register, value)` u32 pairs, registers by byte
//! address. LLVM's `AMDGPUAsmPrinter::EmitProgramInfoSI` writes one run per entry function, in
//! the order of the functions' code, each starting with the stage's `*_PGM_RSRC1`
//! (`0xb028` for a pixel shader, `0xb848` for compute) and followed by RSRC2, the scratch ring
//! size, and for pixel shaders the input enables. Runs are matched to the object's global
//! function symbols in address order; when their numbers differ the object is refused (nothing
//! in the section says which run is whose).

use super::elf::{Symbol, SymbolKind};
use super::error::{ReadError, Result};
use super::graphics::{compute_lds_bytes, RegisterSource, Shader, ShaderResources, Stage};
use crate::isa::processor::Generation;

/// The section name.
pub const CONFIG_SECTION: &str = ".AMDGPU.config";

/// Byte addresses of the scratch ring size registers (`WAVESIZE`: scratch blocks per wave).
const SPI_TMPRING_SIZE: u32 = 0x0286e8;
const COMPUTE_TMPRING_SIZE: u32 = 0x00b860;

/// One `(register, value)` pair and the file offset of its value.
#[derive(Clone, Copy, Debug)]
struct Pair {
    register: u32,
    value: u32,
    value_offset: u64,
}

/// The shaders of a Mesa object. `config` is the section's bytes at file offset `offset`.
pub fn shaders<'data>(config: Option<(&[u8], u64)>, symbols: &[Symbol<'data>], generation: Generation) -> Result<Vec<Shader<'data>>> {
    let Some((bytes, offset)) = config else {
        return Ok(Vec::new());
    };
    let fail = |at: u64, detail: String| ReadError::malformed("Mesa .AMDGPU.config section", at, detail);
    if bytes.len() % 8 != 0 {
        return Err(fail(
            offset,
            format!("it is {} bytes long, not a whole number of 8-byte (register, value) pairs", bytes.len()),
        ));
    }
    let pairs: Vec<Pair> = bytes
        .chunks_exact(8)
        .enumerate()
        .map(|(i, c)| Pair {
            register: u32::from_le_bytes(c[0..4].try_into().unwrap()),
            value: u32::from_le_bytes(c[4..8].try_into().unwrap()),
            value_offset: offset + 8 * i as u64 + 4,
        })
        .collect();
    // Runs start at each RSRC1 register.
    let mut runs: Vec<(Stage, Vec<Pair>)> = Vec::new();
    for (i, p) in pairs.iter().enumerate() {
        let stage = (p.register % 4 == 0).then(|| Stage::from_rsrc1_register(p.register / 4)).flatten();
        match (stage, runs.last_mut()) {
            (Some(stage), _) => runs.push((stage, vec![*p])),
            (None, Some((_, run))) => run.push(*p),
            (None, None) => {
                return Err(fail(
                    offset + 8 * i as u64,
                    format!("the first pair sets register {:#x}, not a shader's PGM_RSRC1 register", p.register),
                ));
            }
        }
    }
    let mut functions: Vec<(usize, &Symbol<'data>)> = symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == SymbolKind::Function && s.binding == object::elf::STB_GLOBAL && !s.dynamic)
        .collect();
    if functions.is_empty() {
        // A stripped object: the dynamic symbols are all there is.
        functions = symbols.iter().enumerate().filter(|(_, s)| s.kind == SymbolKind::Function && s.binding == object::elf::STB_GLOBAL).collect();
    }
    functions.sort_by_key(|(_, s)| s.value);
    if functions.len() != runs.len() {
        let names: Vec<&str> = functions.iter().map(|(_, s)| s.name).collect();
        return Err(fail(
            offset,
            format!(
                "it configures {} shader(s) but the object has {} global function symbol(s) ({}); which registers are whose is ambiguous",
                runs.len(),
                functions.len(),
                if names.is_empty() { "none".to_owned() } else { names.join(", ") }
            ),
        ));
    }
    let mut out = Vec::with_capacity(runs.len());
    for ((stage, run), (index, symbol)) in runs.iter().zip(functions) {
        let rsrc1 = run[0];
        let rsrc2 = run.iter().find(|p| p.register == rsrc1.register + 4);
        let wavesize_bits = if generation >= Generation::Gfx11 { 0x7fff } else { 0x1fff };
        let scratch_wave_blocks = run
            .iter()
            .find(|p| p.register == if *stage == Stage::Cs { COMPUTE_TMPRING_SIZE } else { SPI_TMPRING_SIZE })
            .map(|p| (p.value >> 12) & wavesize_bits);
        let gfx10_plus = generation.is_gfx10_plus();
        out.push(Shader {
            stage: *stage,
            name: symbol.name,
            symbol: index,
            entry_address: symbol.value,
            code_size: symbol.size,
            resources: ShaderResources {
                rsrc1: rsrc1.value,
                rsrc2: rsrc2.map(|p| p.value),
                // Mesa records no wave size: LLVM compiles wave32 on GFX10+ unless told otherwise.
                wave_size: if gfx10_plus { 32 } else { 64 },
                wave_size_recorded: !gfx10_plus,
                vgpr_count: None,
                sgpr_count: None,
                scratch_memory_size: None,
                scratch_wave_blocks,
                lds_size: match (stage, rsrc2) {
                    (Stage::Cs, Some(p)) => Some(compute_lds_bytes(p.value, generation)),
                    _ => None,
                },
                source: RegisterSource::MesaConfig { rsrc1_offset: rsrc1.value_offset, rsrc2_offset: rsrc2.map(|p| p.value_offset) },
            },
        });
    }
    Ok(out)
}
