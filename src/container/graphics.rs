//! Graphics shaders: the entry points of PAL (`amdgcn-amd-amdpal`) and Mesa3D
//! (`amdgcn-mesa-mesa3d`) code objects, with the resources their registers request.
//!
//! A graphics code object has no kernel descriptor. What a descriptor says for a kernel, the
//! driver's registers say for a shader: `SPI_SHADER_PGM_RSRC1_<stage>` (or `COMPUTE_PGM_RSRC1`
//! for a compute shader) holds the VGPR and SGPR blocks in the same fields as the descriptor's
//! `COMPUTE_PGM_RSRC1`, and is decoded by the same code ([`pgm_rsrc1_registers`]). Where the
//! registers are written differs:
//!
//! * PAL: the `NT_AMDGPU_METADATA` note's `amdpal.pipelines[0]` ([`super::pal`]): the
//!   `.registers` map (keys are register dword offsets, `0x2c0a` = `SPI_SHADER_PGM_RSRC1_PS`)
//!   and the `.hardware_stages` map (`.ps: {.entry_point, .vgpr_count, .sgpr_count, ...}`);
//! * Mesa: the `.AMDGPU.config` section ([`super::mesa`]): little-endian `(register, value)`
//!   u32 pairs, registers by byte address (`0xb028` = `SPI_SHADER_PGM_RSRC1_PS`), one run of
//!   pairs per shader in the order of the shaders' code.
//!
//! Either way the result is one [`Shader`] per entry symbol, which the rest of gfxpatch treats
//! as a kernel: an entry point, 256-byte aligned, whose code ends in `s_endpgm`.

use serde::Serialize;

use super::descriptor::{pgm_rsrc1_registers, DescriptorRegisters};
use crate::isa::processor::Generation;

/// A hardware shader stage, as PAL names them (`.hardware_stages` keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Ls,
    Hs,
    Es,
    Gs,
    Vs,
    Ps,
    Cs,
}

impl Stage {
    pub const ALL: [Stage; 7] = [Stage::Ls, Stage::Hs, Stage::Es, Stage::Gs, Stage::Vs, Stage::Ps, Stage::Cs];

    /// The `.hardware_stages` key (`.ps`).
    pub fn pal_key(self) -> &'static str {
        match self {
            Stage::Ls => ".ls",
            Stage::Hs => ".hs",
            Stage::Es => ".es",
            Stage::Gs => ".gs",
            Stage::Vs => ".vs",
            Stage::Ps => ".ps",
            Stage::Cs => ".cs",
        }
    }

    pub fn name(self) -> &'static str {
        &self.pal_key()[1..]
    }

    /// The entry symbol LLVM gives a PAL shader of this stage (`_amdgpu_ps_main`).
    pub fn entry_symbol(self) -> &'static str {
        match self {
            Stage::Ls => "_amdgpu_ls_main",
            Stage::Hs => "_amdgpu_hs_main",
            Stage::Es => "_amdgpu_es_main",
            Stage::Gs => "_amdgpu_gs_main",
            Stage::Vs => "_amdgpu_vs_main",
            Stage::Ps => "_amdgpu_ps_main",
            Stage::Cs => "_amdgpu_cs_main",
        }
    }

    /// Dword offset of the stage's `*_PGM_RSRC1` register (`SPI_SHADER_PGM_RSRC1_PS` is
    /// 0x2c0a); `*_PGM_RSRC2` follows it. PAL's `.registers` keys are these offsets, Mesa's
    /// `.AMDGPU.config` registers are byte addresses (four times these).
    pub fn rsrc1_register(self) -> u32 {
        match self {
            Stage::Ps => 0x2c0a,
            Stage::Vs => 0x2c4a,
            Stage::Gs => 0x2c8a,
            Stage::Es => 0x2cca,
            Stage::Hs => 0x2d0a,
            Stage::Ls => 0x2d4a,
            Stage::Cs => 0x2e12,
        }
    }

    /// The stage whose `*_PGM_RSRC1` is at dword offset `register`.
    pub fn from_rsrc1_register(register: u32) -> Option<Stage> {
        Stage::ALL.into_iter().find(|s| s.rsrc1_register() == register)
    }

    /// The register name, for messages and `info`.
    pub fn rsrc1_name(self) -> &'static str {
        match self {
            Stage::Ps => "SPI_SHADER_PGM_RSRC1_PS",
            Stage::Vs => "SPI_SHADER_PGM_RSRC1_VS",
            Stage::Gs => "SPI_SHADER_PGM_RSRC1_GS",
            Stage::Es => "SPI_SHADER_PGM_RSRC1_ES",
            Stage::Hs => "SPI_SHADER_PGM_RSRC1_HS",
            Stage::Ls => "SPI_SHADER_PGM_RSRC1_LS",
            Stage::Cs => "COMPUTE_PGM_RSRC1",
        }
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which driver ABI a graphics object follows, and where its registers are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RegisterSource {
    /// The PAL metadata note's `.registers` map.
    PalMetadata,
    /// The legacy `NT_AMD_PAL_METADATA` note: the file offsets of the RSRC1 value and of the
    /// stage's `NUM_USED_VGPRS` and `NUM_USED_SGPRS` values.
    PalLegacy { rsrc1_offset: u64, vgpr_count_offset: Option<u64>, sgpr_count_offset: Option<u64> },
    /// `.AMDGPU.config`; the file offsets of this shader's RSRC1 and RSRC2 values.
    MesaConfig { rsrc1_offset: u64, rsrc2_offset: Option<u64> },
}

/// The resources a graphics shader's registers and metadata request: the graphics analogue of
/// a kernel descriptor with its metadata entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ShaderResources {
    pub rsrc1: u32,
    pub rsrc2: Option<u32>,
    /// Lanes per wave; on GFX10+ from the stage's wave32 enable bit (PAL), or LLVM's default
    /// of wave32 where the object does not record it (Mesa: see [`wave_size_recorded`]).
    ///
    /// [`wave_size_recorded`]: ShaderResources::wave_size_recorded
    pub wave_size: u32,
    /// False if `wave_size` is assumed, not read (nor proven by the code, see
    /// [`ShaderResources::prove_wave32`]): then a rewrite raises the VGPR blocks to hold its
    /// registers under either wave size.
    pub wave_size_recorded: bool,
    /// Exact counts the compiler wrote (PAL `.vgpr_count`, `.sgpr_count`); Mesa has none.
    pub vgpr_count: Option<u32>,
    pub sgpr_count: Option<u32>,
    /// Scratch bytes per lane (PAL `.scratch_memory_size`).
    pub scratch_memory_size: Option<u32>,
    /// Mesa: the `WAVESIZE` field of `SPI_TMPRING_SIZE`/`COMPUTE_TMPRING_SIZE`, scratch
    /// blocks per wave as the compiler computed them.
    pub scratch_wave_blocks: Option<u32>,
    /// LDS bytes: PAL `.lds_size`, or for a compute shader `COMPUTE_PGM_RSRC2.LDS_SIZE`
    /// granules (the allocation, a multiple of the granule).
    pub lds_size: Option<u32>,
    pub source: RegisterSource,
}

impl ShaderResources {
    /// The VGPR and SGPR allocation `rsrc1` requests, decoded like a kernel descriptor's.
    pub fn registers(&self, generation: Generation) -> DescriptorRegisters {
        pgm_rsrc1_registers(self.rsrc1, generation, self.wave_size)
    }

    /// The VGPRs the shader may use under every wave size it might run in: the allocation of
    /// the smallest granule when the wave size is assumed.
    pub fn vgprs_granted(&self, generation: Generation) -> u32 {
        let mut granted = self.registers(generation).vgprs;
        if !self.wave_size_recorded && generation.is_gfx10_plus() {
            granted = granted.min(pgm_rsrc1_registers(self.rsrc1, generation, 64).vgprs);
        }
        granted
    }

    /// Settles an assumed wave size from the code: a shader whose own code uses more VGPRs
    /// than RSRC1 grants a wave64 cannot run in wave64, so it runs in wave32 (without this, a
    /// rewrite adding no register would raise the allocation for a wave size that cannot be).
    pub fn prove_wave32(&mut self, vgprs_used: u32, generation: Generation) {
        if !self.wave_size_recorded && generation.is_gfx10_plus() && vgprs_used > pgm_rsrc1_registers(self.rsrc1, generation, 64).vgprs {
            self.wave_size = 32;
            self.wave_size_recorded = true;
        }
    }

    /// The wave sizes a rewrite must provide registers for.
    pub fn possible_wave_sizes(&self, generation: Generation) -> &'static [u32] {
        match (self.wave_size_recorded || !generation.is_gfx10_plus(), self.wave_size) {
            (true, 32) => &[32],
            (true, _) => &[64],
            (false, _) => &[32, 64],
        }
    }
}

/// Where the wave32 enable bit of a stage is in PAL's registers (GFX10+; LLVM's
/// `AMDGPUPALMetadata::setWave32`): `VGT_SHADER_STAGES_EN` bits 21-23 for HS, GS, VS,
/// `SPI_PS_IN_CONTROL.PS_W32_EN`, `COMPUTE_DISPATCH_INITIATOR.CS_W32_EN`.
pub fn wave32_bit(stage: Stage) -> Option<(u32, u32)> {
    const VGT_SHADER_STAGES_EN: u32 = 0xa2d5;
    match stage {
        Stage::Hs => Some((VGT_SHADER_STAGES_EN, 1 << 21)),
        Stage::Gs => Some((VGT_SHADER_STAGES_EN, 1 << 22)),
        Stage::Vs => Some((VGT_SHADER_STAGES_EN, 1 << 23)),
        Stage::Ps => Some((0xa1b6, 1 << 15)),
        Stage::Cs => Some((0x2e00, 1 << 15)),
        Stage::Es | Stage::Ls => None,
    }
}

/// LDS bytes a compute shader's `COMPUTE_PGM_RSRC2` allocates: `LDS_SIZE` (bits 15-23 from
/// GFX7) in granules of 512 bytes (GFX6: bits 15-22, 256 bytes), as in the descriptor.
pub fn compute_lds_bytes(rsrc2: u32, generation: Generation) -> u32 {
    let (mask, granule) = if generation == Generation::Gfx6 { (0xff, 256) } else { (0x1ff, 512) };
    ((rsrc2 >> 15) & mask) * granule
}

/// One shader: its entry symbol and what its registers request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shader<'data> {
    pub stage: Stage,
    /// The entry symbol's name (`_amdgpu_ps_main`, or Mesa's shader symbol).
    pub name: &'data str,
    /// Index into [`super::CodeObject::symbols`] of the entry symbol.
    pub symbol: usize,
    pub entry_address: u64,
    pub code_size: u64,
    pub resources: ShaderResources,
}

/// Where a shader's exact counts (PAL metadata) and its RSRC1 blocks disagree, one sentence
/// each, compared the way LLVM derives the blocks from the counts (as for a kernel descriptor).
pub fn disagreements(shader: &Shader<'_>, generation: Generation) -> Vec<String> {
    let r = &shader.resources;
    let registers = r.registers(generation);
    let blocks = |count: u32, granule: u32| count.max(1).div_ceil(granule) - 1;
    let mut out = Vec::new();
    if let Some(vgprs) = r.vgpr_count {
        let expected = blocks(vgprs, registers.vgpr_granule);
        if expected != registers.vgpr_blocks {
            out.push(format!(
                "metadata has {vgprs} VGPRs ({expected} blocks of {}), {} has {} blocks ({} registers)",
                registers.vgpr_granule,
                shader.stage.rsrc1_name(),
                registers.vgpr_blocks,
                registers.vgprs
            ));
        }
    }
    if let (Some(sgprs), Some(allocated)) = (r.sgpr_count, registers.sgprs) {
        let expected = blocks(sgprs, 8);
        if expected != registers.sgpr_blocks {
            out.push(format!(
                "metadata has {sgprs} SGPRs ({expected} blocks of 8), {} has {} blocks ({allocated} registers)",
                shader.stage.rsrc1_name(),
                registers.sgpr_blocks
            ));
        }
    }
    out
}
