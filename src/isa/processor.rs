//! AMDGPU processors and the ISA generation each belongs to.
//!
//! One row per processor of AMDGPUUsage's processor table, with its `EF_AMDGPU_MACH_*` value.
//! Everything else that differs by processor (register granules, which instruction tables
//! apply, which target features exist) is derived from the [`Generation`] and the two
//! per-processor feature columns kept here, so there is exactly one place to add a new chip.

use std::fmt;

/// An instruction-set generation: the unit in which encodings and operand rules change.
///
/// Ordered by ISA lineage so that `gen >= Generation::Gfx10_1` reads as "GFX10 or later".
/// The CDNA branch (GFX90A, GFX940, GFX950) sits between GFX9 and GFX10: it is GFX9's
/// encoding family with accumulation registers, so `>= Gfx9 && < Gfx10_1` is "a GFX9 encoding".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Generation {
    /// Evergreen/Northern Islands and older (`r600` architecture): not decodable by gfxpatch.
    R600,
    /// Southern Islands.
    Gfx6,
    /// Sea Islands.
    Gfx7,
    /// Volcanic Islands (GCN3/4).
    Gfx8,
    /// Vega (GCN5).
    Gfx9,
    /// CDNA2 (gfx90a). CDNA1 (gfx908) is [`Generation::Gfx9`] with MFMA.
    Gfx90a,
    /// CDNA3 (gfx940..gfx942).
    Gfx940,
    /// CDNA4 (gfx950).
    Gfx950,
    /// RDNA1.
    Gfx10_1,
    /// RDNA2.
    Gfx10_3,
    /// RDNA3.
    Gfx11,
    /// RDNA3.5.
    Gfx11_5,
    /// RDNA4.
    Gfx12,
    /// CDNA5 (gfx1250, gfx1251).
    Gfx1250,
}

impl Generation {
    /// Short name as used in reports and in `gfxpatch isa`.
    pub fn name(self) -> &'static str {
        match self {
            Generation::R600 => "R600",
            Generation::Gfx6 => "GFX6",
            Generation::Gfx7 => "GFX7",
            Generation::Gfx8 => "GFX8",
            Generation::Gfx9 => "GFX9",
            Generation::Gfx90a => "GFX90A",
            Generation::Gfx940 => "GFX940",
            Generation::Gfx950 => "GFX950",
            Generation::Gfx10_1 => "GFX10.1",
            Generation::Gfx10_3 => "GFX10.3",
            Generation::Gfx11 => "GFX11",
            Generation::Gfx11_5 => "GFX11.5",
            Generation::Gfx12 => "GFX12",
            Generation::Gfx1250 => "GFX1250",
        }
    }

    /// RDNA and CDNA5: native wave32, `compute_pgm_rsrc3` with shared VGPRs, no SGPR granule.
    pub fn is_gfx10_plus(self) -> bool {
        self >= Generation::Gfx10_1
    }

    /// CDNA2 and later CDNA: unified VGPR/AGPR file, `accum_offset` in `compute_pgm_rsrc3`.
    pub fn has_unified_agprs(self) -> bool {
        matches!(
            self,
            Generation::Gfx90a | Generation::Gfx940 | Generation::Gfx950
        )
    }

    /// Default wavefront size when nothing in the code object says otherwise.
    pub fn default_wave_size(self) -> u32 {
        if self.is_gfx10_plus() { 32 } else { 64 }
    }
}

impl fmt::Display for Generation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One AMDGPU processor: its canonical name, ELF machine value and what target features it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Processor {
    /// Canonical LLVM name, e.g. `gfx90a` or `gfx10-3-generic`.
    pub name: &'static str,
    /// `EF_AMDGPU_MACH_*` value in `e_flags` (bits 0..7).
    pub mach: u8,
    pub generation: Generation,
    /// Whether the `xnack` target feature exists on this processor (it may be on, off or any).
    pub supports_xnack: bool,
    /// Whether the `sramecc` target feature exists on this processor.
    pub supports_sramecc: bool,
}

impl Processor {
    /// True for the `gfx*-generic` processors, whose code runs on a family of chips.
    pub fn is_generic(&self) -> bool {
        self.name.ends_with("-generic")
    }

    pub fn by_mach(mach: u8) -> Option<&'static Processor> {
        PROCESSORS.iter().find(|p| p.mach == mach)
    }

    pub fn by_name(name: &str) -> Option<&'static Processor> {
        PROCESSORS.iter().find(|p| p.name == name)
    }
}

impl fmt::Display for Processor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

macro_rules! processors {
    ($($name:literal = $mach:literal, $generation:ident $(, $feature:ident)*;)*) => {
        /// Every processor of AMDGPUUsage's `EF_AMDGPU_MACH` table.
        pub static PROCESSORS: &[Processor] = &[$(Processor {
            name: $name,
            mach: $mach,
            generation: Generation::$generation,
            supports_xnack: processors!(@has xnack $($feature)*),
            supports_sramecc: processors!(@has sramecc $($feature)*),
        },)*];
    };
    (@has xnack xnack $($rest:ident)*) => { true };
    (@has sramecc sramecc $($rest:ident)*) => { true };
    (@has $want:ident $other:ident $($rest:ident)*) => { processors!(@has $want $($rest)*) };
    (@has $want:ident) => { false };
}

processors! {
    "r600" = 0x01, R600;
    "r630" = 0x02, R600;
    "rs880" = 0x03, R600;
    "rv670" = 0x04, R600;
    "rv710" = 0x05, R600;
    "rv730" = 0x06, R600;
    "rv770" = 0x07, R600;
    "cedar" = 0x08, R600;
    "cypress" = 0x09, R600;
    "juniper" = 0x0a, R600;
    "redwood" = 0x0b, R600;
    "sumo" = 0x0c, R600;
    "barts" = 0x0d, R600;
    "caicos" = 0x0e, R600;
    "cayman" = 0x0f, R600;
    "turks" = 0x10, R600;
    "gfx600" = 0x20, Gfx6;
    "gfx601" = 0x21, Gfx6;
    "gfx602" = 0x3a, Gfx6;
    "gfx700" = 0x22, Gfx7;
    "gfx701" = 0x23, Gfx7;
    "gfx702" = 0x24, Gfx7;
    "gfx703" = 0x25, Gfx7;
    "gfx704" = 0x26, Gfx7;
    "gfx705" = 0x3b, Gfx7;
    "gfx801" = 0x28, Gfx8, xnack;
    "gfx802" = 0x29, Gfx8;
    "gfx803" = 0x2a, Gfx8;
    "gfx805" = 0x3c, Gfx8;
    "gfx810" = 0x2b, Gfx8, xnack;
    "gfx900" = 0x2c, Gfx9, xnack;
    "gfx902" = 0x2d, Gfx9, xnack;
    "gfx904" = 0x2e, Gfx9, xnack;
    "gfx906" = 0x2f, Gfx9, xnack, sramecc;
    "gfx908" = 0x30, Gfx9, xnack, sramecc;
    "gfx909" = 0x31, Gfx9, xnack;
    "gfx90c" = 0x32, Gfx9, xnack;
    "gfx90a" = 0x3f, Gfx90a, xnack, sramecc;
    "gfx942" = 0x4c, Gfx940, xnack, sramecc;
    "gfx950" = 0x4f, Gfx950, xnack, sramecc;
    "gfx1010" = 0x33, Gfx10_1, xnack;
    "gfx1011" = 0x34, Gfx10_1, xnack;
    "gfx1012" = 0x35, Gfx10_1, xnack;
    "gfx1013" = 0x42, Gfx10_1, xnack;
    "gfx1030" = 0x36, Gfx10_3;
    "gfx1031" = 0x37, Gfx10_3;
    "gfx1032" = 0x38, Gfx10_3;
    "gfx1033" = 0x39, Gfx10_3;
    "gfx1034" = 0x3e, Gfx10_3;
    "gfx1035" = 0x3d, Gfx10_3;
    "gfx1036" = 0x45, Gfx10_3;
    "gfx1100" = 0x41, Gfx11;
    "gfx1101" = 0x46, Gfx11;
    "gfx1102" = 0x47, Gfx11;
    "gfx1103" = 0x44, Gfx11;
    "gfx1150" = 0x43, Gfx11_5;
    "gfx1151" = 0x4a, Gfx11_5;
    "gfx1152" = 0x55, Gfx11_5;
    "gfx1153" = 0x58, Gfx11_5;
    "gfx1200" = 0x48, Gfx12;
    "gfx1201" = 0x4e, Gfx12;
    "gfx1250" = 0x49, Gfx1250;
    "gfx1251" = 0x5a, Gfx1250;
    "gfx9-generic" = 0x51, Gfx9, xnack;
    "gfx9-4-generic" = 0x5f, Gfx940, xnack, sramecc;
    "gfx10-1-generic" = 0x52, Gfx10_1, xnack;
    "gfx10-3-generic" = 0x53, Gfx10_3;
    "gfx11-generic" = 0x54, Gfx11;
    "gfx12-generic" = 0x59, Gfx12;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mach_values_and_names_are_unique() {
        for (i, a) in PROCESSORS.iter().enumerate() {
            for b in &PROCESSORS[i + 1..] {
                assert_ne!(
                    a.mach, b.mach,
                    "{} and {} share a mach value",
                    a.name, b.name
                );
                assert_ne!(a.name, b.name);
            }
        }
    }

    #[test]
    fn processor_table_matches_amdgpu_usage() {
        // Spot checks against AMDGPUUsage's EF_AMDGPU_MACH table and processor table.
        let p = Processor::by_mach(0x3f).unwrap();
        assert_eq!(
            (p.name, p.generation, p.supports_xnack, p.supports_sramecc),
            ("gfx90a", Generation::Gfx90a, true, true)
        );
        let p = Processor::by_name("gfx1030").unwrap();
        assert_eq!(
            (p.mach, p.supports_xnack, p.supports_sramecc),
            (0x36, false, false)
        );
        assert_eq!(Processor::by_name("gfx803").unwrap().mach, 0x2a);
        assert_eq!(Processor::by_name("gfx1201").unwrap().mach, 0x4e);
        assert!(Processor::by_name("gfx9-4-generic").unwrap().is_generic());
        assert!(Processor::by_mach(0x27).is_none(), "0x27 is reserved");
    }

    #[test]
    fn generation_order_reads_as_lineage() {
        assert!(Generation::Gfx950 < Generation::Gfx10_1);
        assert!(Generation::Gfx1250.is_gfx10_plus());
        assert!(!Generation::Gfx940.is_gfx10_plus());
        assert!(Generation::Gfx940.has_unified_agprs() && !Generation::Gfx9.has_unified_agprs());
    }
}
