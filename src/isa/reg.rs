//! Registers: the typed view of operand encodings (SGPR/VGPR/AGPR ranges, trap temporaries,
//! and the special registers whose encodings move between generations).

use std::fmt;

use super::processor::Generation;

/// A special (non-numbered) register. Encodings differ by generation; [`src_register`] maps
/// them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Special {
    FlatScratchLo,
    FlatScratchHi,
    XnackMaskLo,
    XnackMaskHi,
    VccLo,
    VccHi,
    M0,
    Null,
    ExecLo,
    ExecHi,
    SrcSharedBase,
    SrcSharedLimit,
    SrcPrivateBase,
    SrcPrivateLimit,
    SrcPopsExitingWaveId,
    /// LLVM 22's `src_flat_scratch_base_lo`/`_hi` (encodings 230, 231).
    SrcFlatScratchBaseLo,
    SrcFlatScratchBaseHi,
    SrcVccz,
    SrcExecz,
    SrcScc,
    LdsDirect,
    /// Pairs written as one 64-bit register.
    Vcc,
    Exec,
    FlatScratch,
    XnackMask,
    /// GFX8 trap base/memory addresses (encodings 108..=111, taken by ttmp0..3 from GFX9).
    TbaLo,
    TbaHi,
    TmaLo,
    TmaHi,
    Tba,
    Tma,
}

/// A register operand: a run of `count` dwords starting at `index` of one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reg {
    Sgpr {
        index: u16,
        count: u8,
    },
    Vgpr {
        index: u16,
        count: u8,
    },
    Agpr {
        index: u16,
        count: u8,
    },
    /// Trap-handler temporaries (`ttmp0..ttmp15`).
    Ttmp {
        index: u16,
        count: u8,
    },
    /// A 16-bit half of a VGPR (true16 forms): `v1.l`, `v1.h`.
    Vgpr16 {
        index: u16,
        hi: bool,
    },
    Special(Special),
}

impl Reg {
    /// The number of dwords.
    pub fn count(&self) -> u8 {
        match *self {
            Reg::Sgpr { count, .. }
            | Reg::Vgpr { count, .. }
            | Reg::Agpr { count, .. }
            | Reg::Ttmp { count, .. } => count,
            Reg::Vgpr16 { .. } => 1,
            Reg::Special(
                Special::Vcc
                | Special::Exec
                | Special::FlatScratch
                | Special::XnackMask
                | Special::Tba
                | Special::Tma,
            ) => 2,
            Reg::Special(_) => 1,
        }
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let range = |f: &mut fmt::Formatter<'_>, prefix: &str, index: u16, count: u8| {
            if count == 1 {
                write!(f, "{prefix}{index}")
            } else {
                write!(f, "{prefix}[{index}:{}]", index + u16::from(count) - 1)
            }
        };
        match *self {
            Reg::Sgpr { index, count } => range(f, "s", index, count),
            Reg::Vgpr { index, count } => range(f, "v", index, count),
            Reg::Agpr { index, count } => range(f, "a", index, count),
            Reg::Ttmp { index, count } => range(f, "ttmp", index, count),
            Reg::Vgpr16 { index, hi } => write!(f, "v{index}.{}", if hi { 'h' } else { 'l' }),
            Reg::Special(s) => f.write_str(s.name()),
        }
    }
}

impl Special {
    pub fn name(self) -> &'static str {
        match self {
            Special::FlatScratchLo => "flat_scratch_lo",
            Special::FlatScratchHi => "flat_scratch_hi",
            Special::XnackMaskLo => "xnack_mask_lo",
            Special::XnackMaskHi => "xnack_mask_hi",
            Special::VccLo => "vcc_lo",
            Special::VccHi => "vcc_hi",
            Special::M0 => "m0",
            Special::Null => "null",
            Special::ExecLo => "exec_lo",
            Special::ExecHi => "exec_hi",
            Special::SrcSharedBase => "src_shared_base",
            Special::SrcSharedLimit => "src_shared_limit",
            Special::SrcPrivateBase => "src_private_base",
            Special::SrcPrivateLimit => "src_private_limit",
            Special::SrcPopsExitingWaveId => "src_pops_exiting_wave_id",
            Special::SrcFlatScratchBaseLo => "src_flat_scratch_base_lo",
            Special::SrcFlatScratchBaseHi => "src_flat_scratch_base_hi",
            Special::SrcVccz => "src_vccz",
            Special::SrcExecz => "src_execz",
            Special::SrcScc => "src_scc",
            Special::LdsDirect => "src_lds_direct",
            Special::Vcc => "vcc",
            Special::Exec => "exec",
            Special::FlatScratch => "flat_scratch",
            Special::XnackMask => "xnack_mask",
            Special::TbaLo => "tba_lo",
            Special::TbaHi => "tba_hi",
            Special::TmaLo => "tma_lo",
            Special::TmaHi => "tma_hi",
            Special::Tba => "tba",
            Special::Tma => "tma",
        }
    }
}

/// Highest SGPR number a source field can name.
pub fn sgpr_max(generation: Generation) -> u16 {
    if generation.is_gfx10_plus() { 105 } else { 101 }
}

/// The register a scalar-or-vector source encoding (0..=511, 9 bits) names for an operand of
/// `dwords` width, or `None` for constants and literals (128..=254 except registers, 255).
pub fn src_register(encoding: u16, dwords: u8, generation: Generation) -> Option<Reg> {
    let gfx10 = generation.is_gfx10_plus();
    let gfx11 = generation >= Generation::Gfx11;
    let wide = dwords >= 2;
    let special = |lo: Special, pair: Special| Some(Reg::Special(if wide { pair } else { lo }));
    match encoding {
        256..=511 => Some(Reg::Vgpr {
            index: encoding - 256,
            count: dwords,
        }),
        e if e <= sgpr_max(generation) => Some(Reg::Sgpr {
            index: e,
            count: dwords,
        }),
        102 if !gfx10 => special(Special::FlatScratchLo, Special::FlatScratch),
        103 if !gfx10 => Some(Reg::Special(Special::FlatScratchHi)),
        104 if !gfx10 => special(Special::XnackMaskLo, Special::XnackMask),
        105 if !gfx10 => Some(Reg::Special(Special::XnackMaskHi)),
        106 => special(Special::VccLo, Special::Vcc),
        107 => Some(Reg::Special(Special::VccHi)),
        // Trap temporaries: 108..=123 from GFX9, 112..=123 on GFX8.
        108..=123 if generation >= Generation::Gfx9 => Some(Reg::Ttmp {
            index: encoding - 108,
            count: dwords,
        }),
        112..=123 => Some(Reg::Ttmp {
            index: encoding - 112,
            count: dwords,
        }),
        124 if gfx11 => Some(Reg::Special(Special::Null)),
        124 => Some(Reg::Special(Special::M0)),
        125 if gfx11 => Some(Reg::Special(Special::M0)),
        125 if gfx10 => Some(Reg::Special(Special::Null)),
        126 => special(Special::ExecLo, Special::Exec),
        127 => Some(Reg::Special(Special::ExecHi)),
        235 => Some(Reg::Special(Special::SrcSharedBase)),
        236 => Some(Reg::Special(Special::SrcSharedLimit)),
        237 => Some(Reg::Special(Special::SrcPrivateBase)),
        238 => Some(Reg::Special(Special::SrcPrivateLimit)),
        239 => Some(Reg::Special(Special::SrcPopsExitingWaveId)),
        251 => Some(Reg::Special(Special::SrcVccz)),
        252 => Some(Reg::Special(Special::SrcExecz)),
        253 => Some(Reg::Special(Special::SrcScc)),
        254 => Some(Reg::Special(Special::LdsDirect)),
        _ => None,
    }
}

/// The integer an inline-constant encoding stands for (128..=208), if it is one.
pub fn inline_integer(encoding: u16) -> Option<i64> {
    match encoding {
        128..=192 => Some(i64::from(encoding) - 128),
        193..=208 => Some(192 - i64::from(encoding)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Generation::*;

    #[test]
    fn special_registers_move_between_generations() {
        assert_eq!(src_register(124, 1, Gfx9).unwrap().to_string(), "m0");
        assert_eq!(src_register(124, 1, Gfx10_3).unwrap().to_string(), "m0");
        assert_eq!(src_register(125, 1, Gfx10_3).unwrap().to_string(), "null");
        assert_eq!(src_register(124, 1, Gfx11).unwrap().to_string(), "null");
        assert_eq!(src_register(125, 1, Gfx11).unwrap().to_string(), "m0");
        assert_eq!(src_register(106, 2, Gfx9).unwrap().to_string(), "vcc");
        assert_eq!(src_register(106, 1, Gfx11).unwrap().to_string(), "vcc_lo");
        assert_eq!(src_register(104, 1, Gfx10_3).unwrap().to_string(), "s104");
        assert_eq!(
            src_register(102, 2, Gfx9).unwrap().to_string(),
            "flat_scratch"
        );
    }

    #[test]
    fn registers_and_ranges_print_like_llvm() {
        assert_eq!(src_register(4, 2, Gfx9).unwrap().to_string(), "s[4:5]");
        assert_eq!(src_register(258, 1, Gfx9).unwrap().to_string(), "v2");
        assert_eq!(src_register(108, 2, Gfx9).unwrap().to_string(), "ttmp[0:1]");
        assert_eq!(src_register(112, 1, Gfx8).unwrap().to_string(), "ttmp0");
        assert_eq!(Reg::Vgpr16 { index: 1, hi: true }.to_string(), "v1.h");
    }

    #[test]
    fn inline_integers() {
        assert_eq!(inline_integer(128), Some(0));
        assert_eq!(inline_integer(192), Some(64));
        assert_eq!(inline_integer(193), Some(-1));
        assert_eq!(inline_integer(208), Some(-16));
        assert_eq!(inline_integer(209), None);
    }
}
