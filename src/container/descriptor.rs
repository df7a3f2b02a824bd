//! Kernel descriptors (`NAME.kd`, 64 bytes), AMDGPUUsage "Kernel Descriptor", code object v3+.
//!
//! The descriptor keeps its 64 raw bytes, so writing it back after changing one field leaves
//! every other bit (reserved ones included) exactly as it was. The three `compute_pgm_rsrc`
//! registers are decoded through per-generation field tables: one row a bit field, naming the
//! generations that have it, so a dump lists every field the hardware of that generation reads.

use super::amdgpu::KERNEL_DESCRIPTOR_SIZE;
use super::metadata::KernelMetadata;
use crate::isa::processor::Generation;

/// A kernel descriptor as laid out in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelDescriptor {
    raw: [u8; KERNEL_DESCRIPTOR_SIZE],
}

/// Byte offsets of the descriptor's fields.
mod offset {
    pub const GROUP_SEGMENT_FIXED_SIZE: usize = 0;
    pub const PRIVATE_SEGMENT_FIXED_SIZE: usize = 4;
    pub const KERNARG_SIZE: usize = 8;
    pub const KERNEL_CODE_ENTRY_BYTE_OFFSET: usize = 16;
    pub const COMPUTE_PGM_RSRC3: usize = 44;
    pub const COMPUTE_PGM_RSRC1: usize = 48;
    pub const COMPUTE_PGM_RSRC2: usize = 52;
    pub const KERNEL_CODE_PROPERTIES: usize = 56;
    pub const KERNARG_PRELOAD: usize = 58;
}

/// Byte ranges the layout reserves (must be zero); a non-zero byte there is worth reporting.
const RESERVED: [(usize, usize); 3] = [(12, 16), (24, 44), (60, 64)];

impl KernelDescriptor {
    pub fn from_bytes(raw: [u8; KERNEL_DESCRIPTOR_SIZE]) -> KernelDescriptor {
        KernelDescriptor { raw }
    }

    pub fn as_bytes(&self) -> &[u8; KERNEL_DESCRIPTOR_SIZE] {
        &self.raw
    }

    fn u32_at(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.raw[at..at + 4].try_into().unwrap())
    }

    fn u16_at(&self, at: usize) -> u16 {
        u16::from_le_bytes(self.raw[at..at + 2].try_into().unwrap())
    }

    fn set_u32_at(&mut self, at: usize, value: u32) {
        self.raw[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }

    /// LDS bytes a work-group needs, not counting dynamic LDS.
    pub fn group_segment_fixed_size(&self) -> u32 {
        self.u32_at(offset::GROUP_SEGMENT_FIXED_SIZE)
    }

    /// Scratch bytes a work-item needs.
    pub fn private_segment_fixed_size(&self) -> u32 {
        self.u32_at(offset::PRIVATE_SEGMENT_FIXED_SIZE)
    }

    pub fn kernarg_size(&self) -> u32 {
        self.u32_at(offset::KERNARG_SIZE)
    }

    /// Byte offset, possibly negative, from the descriptor to the kernel's first instruction.
    pub fn kernel_code_entry_byte_offset(&self) -> i64 {
        i64::from_le_bytes(
            self.raw[offset::KERNEL_CODE_ENTRY_BYTE_OFFSET..][..8]
                .try_into()
                .unwrap(),
        )
    }

    pub fn set_kernel_code_entry_byte_offset(&mut self, value: i64) {
        self.raw[offset::KERNEL_CODE_ENTRY_BYTE_OFFSET..][..8]
            .copy_from_slice(&value.to_le_bytes());
    }

    pub fn compute_pgm_rsrc1(&self) -> u32 {
        self.u32_at(offset::COMPUTE_PGM_RSRC1)
    }

    pub fn compute_pgm_rsrc2(&self) -> u32 {
        self.u32_at(offset::COMPUTE_PGM_RSRC2)
    }

    pub fn compute_pgm_rsrc3(&self) -> u32 {
        self.u32_at(offset::COMPUTE_PGM_RSRC3)
    }

    pub fn set_compute_pgm_rsrc1(&mut self, value: u32) {
        self.set_u32_at(offset::COMPUTE_PGM_RSRC1, value)
    }

    pub fn set_compute_pgm_rsrc3(&mut self, value: u32) {
        self.set_u32_at(offset::COMPUTE_PGM_RSRC3, value)
    }

    /// The 16 bits of user-SGPR enables and mode flags at byte 56.
    pub fn kernel_code_properties(&self) -> u16 {
        self.u16_at(offset::KERNEL_CODE_PROPERTIES)
    }

    /// Kernarg preload length (dwords, bits 0..6) and offset (dwords, bits 7..15); GFX90A/GFX940+.
    pub fn kernarg_preload(&self) -> u16 {
        self.u16_at(offset::KERNARG_PRELOAD)
    }

    /// True if any byte the layout reserves is non-zero.
    pub fn reserved_bytes_nonzero(&self) -> bool {
        RESERVED
            .iter()
            .any(|&(lo, hi)| self.raw[lo..hi].iter().any(|&b| b != 0))
    }

    /// True if the kernel runs in wave32 (`ENABLE_WAVEFRONT_SIZE32`, GFX10+).
    pub fn wave32(&self) -> bool {
        field_value(
            self.kernel_code_properties() as u32,
            KERNEL_CODE_PROPERTIES_WAVE32,
        )
    }

    /// Wavefront size the descriptor asks for on this generation.
    pub fn wave_size(&self, generation: Generation) -> u32 {
        if generation.is_gfx10_plus() && !self.wave32() {
            64
        } else {
            generation.default_wave_size()
        }
    }

    /// What the register-count fields mean on this generation.
    pub fn registers(&self, generation: Generation) -> DescriptorRegisters {
        let accum_offset = generation
            .has_unified_agprs()
            .then(|| ((self.compute_pgm_rsrc3() & 0x3f) + 1) * 4);
        DescriptorRegisters {
            accum_offset,
            ..pgm_rsrc1_registers(self.compute_pgm_rsrc1(), generation, self.wave_size(generation))
        }
    }

    /// Every named field of this generation's layout, in layout order, with its value.
    pub fn fields(&self, generation: Generation) -> Vec<(&'static str, u64)> {
        let mut out = vec![
            (
                "group_segment_fixed_size",
                self.group_segment_fixed_size() as u64,
            ),
            (
                "private_segment_fixed_size",
                self.private_segment_fixed_size() as u64,
            ),
            ("kernarg_size", self.kernarg_size() as u64),
            (
                "kernel_code_entry_byte_offset",
                self.kernel_code_entry_byte_offset() as u64,
            ),
        ];
        let registers: [(&str, u32, &[BitField]); 5] = [
            ("compute_pgm_rsrc3", self.compute_pgm_rsrc3(), RSRC3),
            ("compute_pgm_rsrc1", self.compute_pgm_rsrc1(), RSRC1),
            ("compute_pgm_rsrc2", self.compute_pgm_rsrc2(), RSRC2),
            (
                "kernel_code_properties",
                self.kernel_code_properties() as u32,
                KERNEL_CODE_PROPERTIES,
            ),
            (
                "kernarg_preload",
                self.kernarg_preload() as u32,
                KERNARG_PRELOAD,
            ),
        ];
        for (_register, value, table) in registers {
            for field in table.iter().filter(|f| f.applies_to(generation)) {
                out.push((field.name, field.extract(value) as u64));
            }
        }
        out
    }
}

/// VGPRs per block of `GRANULATED_WORKITEM_VGPR_COUNT` (AMDGPUUsage compute_pgm_rsrc1 table).
pub fn vgpr_encoding_granule(generation: Generation, wave_size: u32) -> u32 {
    match generation {
        Generation::Gfx90a | Generation::Gfx940 | Generation::Gfx950 => 8,
        Generation::Gfx1250 => 16,
        g if g.is_gfx10_plus() && wave_size == 32 => 8,
        _ => 4,
    }
}

/// The register allocation of a `*_PGM_RSRC1` register (a kernel descriptor's
/// `COMPUTE_PGM_RSRC1`, or a graphics shader's `SPI_SHADER_PGM_RSRC1_*`: every stage has the
/// same VGPR and SGPR block fields) for a wave of `wave_size` lanes.
pub fn pgm_rsrc1_registers(rsrc1: u32, generation: Generation, wave_size: u32) -> DescriptorRegisters {
    let vgpr_blocks = rsrc1 & 0x3f;
    let vgpr_granule = vgpr_encoding_granule(generation, wave_size);
    let sgpr_blocks = (rsrc1 >> 6) & 0xf;
    DescriptorRegisters {
        wave_size,
        vgpr_blocks,
        vgpr_granule,
        vgprs: (vgpr_blocks + 1) * vgpr_granule,
        sgpr_blocks,
        sgprs: (!generation.is_gfx10_plus()).then(|| (sgpr_blocks + 1) * 8),
        accum_offset: None,
    }
}

/// The register allocation a descriptor (or a shader's RSRC1) requests, decoded for its generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DescriptorRegisters {
    pub wave_size: u32,
    /// `GRANULATED_WORKITEM_VGPR_COUNT` as stored.
    pub vgpr_blocks: u32,
    /// VGPRs per block on this generation and wave size.
    pub vgpr_granule: u32,
    /// VGPRs allocated per work-item (on GFX90A+ CDNA: VGPRs and AGPRs together).
    pub vgprs: u32,
    /// `GRANULATED_WAVEFRONT_SGPR_COUNT` as stored (reserved, 0, from GFX10).
    pub sgpr_blocks: u32,
    /// SGPRs allocated per wave, GFX6-GFX9 only (GFX10+ always allocates all of them).
    pub sgprs: Option<u32>,
    /// First AGPR in the unified register file (GFX90A+ CDNA): VGPRs below it, AGPRs from it.
    pub accum_offset: Option<u32>,
}

/// One bit field of a descriptor register.
#[derive(Clone, Copy, Debug)]
pub struct BitField {
    pub name: &'static str,
    pub lo: u8,
    pub width: u8,
    /// First and last generation (inclusive) that have this field; others reserve the bits.
    pub generations: (Generation, Generation),
}

impl BitField {
    pub fn applies_to(&self, generation: Generation) -> bool {
        generation >= self.generations.0 && generation <= self.generations.1
    }

    pub fn extract(&self, value: u32) -> u32 {
        (value >> self.lo) & (((1u64 << self.width) - 1) as u32)
    }
}

fn field_value(value: u32, field: BitField) -> bool {
    field.extract(value) != 0
}

/// Checks that a kernel's descriptor and its metadata note entry describe the same kernel
/// (`gfxpatch info` shows the result, `gfxpatch verify` and the rewriter check it).
///
/// Register counts are compared the way LLVM derives the descriptor from them: the metadata
/// holds exact counts, the descriptor the number of allocation blocks.
pub fn disagreements(d: &KernelDescriptor, meta: &KernelMetadata, registers: &DescriptorRegisters) -> Vec<String> {
    let mut out = Vec::new();
    if meta.name.is_empty() {
        out.push("no metadata entry for this kernel".to_owned());
        return out;
    }
    let blocks = |count: u64, granule: u64| count.max(1).div_ceil(granule) - 1;
    // LLVM's `.vgpr_count` is the count the descriptor was granulated from: on GFX90A and later
    // CDNA it already covers the AGPRs (arch VGPRs aligned to 4, plus AGPRs); on GFX908 it is
    // the larger of the two files.
    if let Some(vgprs) = meta.vgpr_count {
        let expected = blocks(vgprs, registers.vgpr_granule as u64);
        if expected != registers.vgpr_blocks as u64 {
            out.push(format!(
                "metadata has {vgprs} VGPRs ({expected} blocks of {}), descriptor has {} blocks ({} registers)",
                registers.vgpr_granule, registers.vgpr_blocks, registers.vgprs
            ));
        }
    }
    if let (Some(sgprs), Some(allocated)) = (meta.sgpr_count, registers.sgprs) {
        let expected = blocks(sgprs, 8);
        if expected != registers.sgpr_blocks as u64 {
            out.push(format!(
                "metadata has {sgprs} SGPRs ({expected} blocks of 8), descriptor has {} blocks ({allocated} registers)",
                registers.sgpr_blocks
            ));
        }
    }
    let pairs = [
        (
            "kernarg size",
            meta.kernarg_segment_size,
            d.kernarg_size() as u64,
        ),
        (
            "LDS size",
            meta.group_segment_fixed_size,
            d.group_segment_fixed_size() as u64,
        ),
        (
            "scratch size",
            meta.private_segment_fixed_size,
            d.private_segment_fixed_size() as u64,
        ),
        (
            "wavefront size",
            meta.wavefront_size,
            registers.wave_size as u64,
        ),
    ];
    for (what, in_meta, in_descriptor) in pairs {
        if let Some(m) = in_meta
            && m != in_descriptor
        {
            out.push(format!(
                "{what}: metadata says {m}, descriptor says {in_descriptor}"
            ));
        }
    }
    out
}

#[cfg(test)]
use Generation::Gfx8;
use Generation::{Gfx6, Gfx9, Gfx10_1, Gfx11, Gfx12, Gfx90a, Gfx950, Gfx1250};

const ALL: (Generation, Generation) = (Gfx6, Gfx1250);
const GFX10_PLUS: (Generation, Generation) = (Gfx10_1, Gfx1250);

const fn bits(
    name: &'static str,
    lo: u8,
    width: u8,
    generations: (Generation, Generation),
) -> BitField {
    BitField {
        name,
        lo,
        width,
        generations,
    }
}

/// compute_pgm_rsrc1 (AMDGPUUsage table "compute_pgm_rsrc1 for GFX6-GFX12").
pub const RSRC1: &[BitField] = &[
    bits("granulated_workitem_vgpr_count", 0, 6, ALL),
    bits("granulated_wavefront_sgpr_count", 6, 4, ALL),
    bits("priority", 10, 2, ALL),
    bits("float_round_mode_32", 12, 2, ALL),
    bits("float_round_mode_16_64", 14, 2, ALL),
    bits("float_denorm_mode_32", 16, 2, ALL),
    bits("float_denorm_mode_16_64", 18, 2, ALL),
    bits("priv", 20, 1, ALL),
    bits("enable_dx10_clamp", 21, 1, (Gfx6, Gfx11)),
    bits("enable_wg_rr_en", 21, 1, (Gfx12, Gfx1250)),
    bits("debug_mode", 22, 1, ALL),
    bits("enable_ieee_mode", 23, 1, (Gfx6, Gfx11)),
    bits("disable_perf", 23, 1, (Gfx12, Gfx1250)),
    bits("bulky", 24, 1, ALL),
    bits("cdbg_user", 25, 1, ALL),
    bits("fp16_ovfl", 26, 1, (Gfx9, Gfx1250)),
    bits("flat_scratch_is_nv", 27, 1, (Gfx1250, Gfx1250)),
    bits("wgp_mode", 29, 1, GFX10_PLUS),
    bits("mem_ordered", 30, 1, GFX10_PLUS),
    bits("fwd_progress", 31, 1, GFX10_PLUS),
];

/// compute_pgm_rsrc2 (AMDGPUUsage table "compute_pgm_rsrc2 for GFX6-GFX12").
pub const RSRC2: &[BitField] = &[
    bits("enable_private_segment", 0, 1, ALL),
    bits("user_sgpr_count", 1, 5, ALL),
    bits("enable_trap_handler", 6, 1, ALL),
    bits("enable_sgpr_workgroup_id_x", 7, 1, ALL),
    bits("enable_sgpr_workgroup_id_y", 8, 1, ALL),
    bits("enable_sgpr_workgroup_id_z", 9, 1, ALL),
    bits("enable_sgpr_workgroup_info", 10, 1, ALL),
    bits("enable_vgpr_workitem_id", 11, 2, ALL),
    bits("enable_exception_address_watch", 13, 1, ALL),
    bits("enable_exception_memory", 14, 1, ALL),
    bits("granulated_lds_size", 15, 9, ALL),
    bits("enable_exception_ieee_754_fp_invalid_operation", 24, 1, ALL),
    bits("enable_exception_fp_denormal_source", 25, 1, ALL),
    bits("enable_exception_ieee_754_fp_division_by_zero", 26, 1, ALL),
    bits("enable_exception_ieee_754_fp_overflow", 27, 1, ALL),
    bits("enable_exception_ieee_754_fp_underflow", 28, 1, ALL),
    bits("enable_exception_ieee_754_fp_inexact", 29, 1, ALL),
    bits("enable_exception_int_divide_by_zero", 30, 1, ALL),
];

/// compute_pgm_rsrc3: CDNA (GFX90A, GFX942, GFX950) and RDNA (GFX10-GFX12) layouts differ.
pub const RSRC3: &[BitField] = &[
    bits("accum_offset", 0, 6, (Gfx90a, Gfx950)),
    bits("tg_split", 16, 1, (Gfx90a, Gfx950)),
    bits("shared_vgpr_count", 0, 4, (Gfx10_1, Generation::Gfx11_5)),
    bits("inst_pref_size", 4, 6, (Gfx11, Generation::Gfx11_5)),
    bits("trap_on_start", 10, 1, (Gfx11, Generation::Gfx11_5)),
    bits("trap_on_end", 11, 1, (Gfx11, Generation::Gfx11_5)),
    bits("inst_pref_size", 4, 8, (Gfx12, Gfx1250)),
    bits("glg_en", 13, 1, (Gfx12, Gfx1250)),
    bits("image_op", 31, 1, (Gfx11, Gfx1250)),
];

const KERNEL_CODE_PROPERTIES_WAVE32: BitField = bits("enable_wavefront_size32", 10, 1, GFX10_PLUS);

/// The 16-bit kernel code properties at byte 56.
pub const KERNEL_CODE_PROPERTIES: &[BitField] = &[
    bits("enable_sgpr_private_segment_buffer", 0, 1, ALL),
    bits("enable_sgpr_dispatch_ptr", 1, 1, ALL),
    bits("enable_sgpr_queue_ptr", 2, 1, ALL),
    bits("enable_sgpr_kernarg_segment_ptr", 3, 1, ALL),
    bits("enable_sgpr_dispatch_id", 4, 1, ALL),
    bits("enable_sgpr_flat_scratch_init", 5, 1, ALL),
    bits("enable_sgpr_private_segment_size", 6, 1, ALL),
    KERNEL_CODE_PROPERTIES_WAVE32,
    bits("uses_dynamic_stack", 11, 1, ALL),
];

/// Kernarg preloading (GFX90A and later CDNA, GFX12+ where supported).
pub const KERNARG_PRELOAD: &[BitField] = &[
    bits("kernarg_preload_spec_length", 0, 7, (Gfx90a, Gfx1250)),
    bits("kernarg_preload_spec_offset", 7, 9, (Gfx90a, Gfx1250)),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn descriptor(rsrc1: u32, rsrc3: u32, properties: u16) -> KernelDescriptor {
        let mut raw = [0u8; 64];
        raw[48..52].copy_from_slice(&rsrc1.to_le_bytes());
        raw[44..48].copy_from_slice(&rsrc3.to_le_bytes());
        raw[56..58].copy_from_slice(&properties.to_le_bytes());
        KernelDescriptor::from_bytes(raw)
    }

    #[test]
    fn vgpr_granules_follow_the_generation() {
        // 3 blocks stored (=4 blocks): 16 VGPRs on GFX9, 32 on GFX90A, 32 in wave32 RDNA, 16 in wave64.
        let d = descriptor(3, 0, 0);
        assert_eq!(d.registers(Gfx9).vgprs, 16);
        assert_eq!(d.registers(Gfx90a).vgprs, 32);
        assert_eq!(d.registers(Gfx10_1).vgprs, 16, "wave64: no wave32 bit");
        let w32 = descriptor(3, 0, 1 << 10);
        assert_eq!(
            (w32.registers(Gfx11).vgprs, w32.registers(Gfx11).wave_size),
            (32, 32)
        );
        assert_eq!(w32.registers(Gfx1250).vgprs, 64);
    }

    #[test]
    fn sgpr_blocks_exist_only_before_gfx10() {
        let d = descriptor(2 << 6, 0, 0);
        assert_eq!(d.registers(Gfx8).sgprs, Some(24));
        assert_eq!(d.registers(Gfx9).sgprs, Some(24));
        assert_eq!(d.registers(Gfx10_1).sgprs, None);
    }

    #[test]
    fn accum_offset_on_cdna() {
        let d = descriptor(0, 7, 0);
        assert_eq!(d.registers(Gfx90a).accum_offset, Some(32));
        assert_eq!(d.registers(Gfx9).accum_offset, None);
    }

    #[test]
    fn rsrc3_field_names_depend_on_generation() {
        let d = descriptor(0, 0x8000_0003, 0);
        let names = |g| d.fields(g).into_iter().map(|(n, _)| n).collect::<Vec<_>>();
        assert!(names(Gfx90a).contains(&"accum_offset"));
        assert!(!names(Gfx90a).contains(&"shared_vgpr_count"));
        assert!(names(Gfx11).contains(&"image_op"));
        assert!(!names(Gfx9).iter().any(|n| n.contains("accum")));
    }

    #[test]
    fn setters_change_only_their_field() {
        let mut raw = [0xa5u8; 64];
        raw[16..24].fill(0);
        let mut d = KernelDescriptor::from_bytes(raw);
        d.set_kernel_code_entry_byte_offset(-256);
        let mut expected = raw;
        expected[16..24].copy_from_slice(&(-256i64).to_le_bytes());
        assert_eq!(d.as_bytes(), &expected);
        assert!(d.reserved_bytes_nonzero());
    }
}
