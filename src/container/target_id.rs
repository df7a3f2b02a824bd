//! Code object versions, and target ids (`gfx90a:sramecc+:xnack-`) read from the ELF header.
//! The target id itself is an ISA fact ([`crate::isa::target_id`]); this is where `e_flags` say it.

use std::fmt;

use super::amdgpu::*;
use super::error::{ReadError, Result};
use crate::isa::processor::Processor;
pub use crate::isa::target_id::{FeatureSetting, TargetId};

/// HSA code object version, from `e_ident[EI_ABIVERSION]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CodeObjectVersion {
    V3,
    V4,
    V5,
    V6,
}

impl CodeObjectVersion {
    pub fn number(self) -> u32 {
        match self {
            CodeObjectVersion::V3 => 3,
            CodeObjectVersion::V4 => 4,
            CodeObjectVersion::V5 => 5,
            CodeObjectVersion::V6 => 6,
        }
    }
}

impl fmt::Display for CodeObjectVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.number())
    }
}

// An inherent impl beside the bits it reads: `e_flags` are the container's, the id is the ISA's.
impl TargetId {
    /// Decodes `e_flags` of an HSA code object of the given version.
    pub fn from_e_flags(e_flags: u32, version: CodeObjectVersion) -> Result<TargetId> {
        let mach = e_flags & EF_AMDGPU_MACH;
        let processor = Processor::by_mach(mach as u8).ok_or(ReadError::UnknownMach {
            mach,
            flags: e_flags,
        })?;
        let (xnack, sramecc) = match version {
            // v3 has one bit each: on, or "not on" (which v3 cannot tell apart from any).
            CodeObjectVersion::V3 => {
                let bit = |set: bool, supported: bool| match (supported, set) {
                    (false, _) => FeatureSetting::Unsupported,
                    (true, true) => FeatureSetting::On,
                    (true, false) => FeatureSetting::Any,
                };
                (
                    bit(
                        e_flags & EF_AMDGPU_FEATURE_XNACK_V3 != 0,
                        processor.supports_xnack,
                    ),
                    bit(
                        e_flags & EF_AMDGPU_FEATURE_SRAMECC_V3 != 0,
                        processor.supports_sramecc,
                    ),
                )
            }
            _ => (
                match e_flags & EF_AMDGPU_FEATURE_XNACK_V4 {
                    EF_AMDGPU_FEATURE_XNACK_UNSUPPORTED_V4 => FeatureSetting::Unsupported,
                    EF_AMDGPU_FEATURE_XNACK_ANY_V4 => FeatureSetting::Any,
                    EF_AMDGPU_FEATURE_XNACK_OFF_V4 => FeatureSetting::Off,
                    _ => FeatureSetting::On,
                },
                match e_flags & EF_AMDGPU_FEATURE_SRAMECC_V4 {
                    EF_AMDGPU_FEATURE_SRAMECC_UNSUPPORTED_V4 => FeatureSetting::Unsupported,
                    EF_AMDGPU_FEATURE_SRAMECC_ANY_V4 => FeatureSetting::Any,
                    EF_AMDGPU_FEATURE_SRAMECC_OFF_V4 => FeatureSetting::Off,
                    _ => FeatureSetting::On,
                },
            ),
        };
        let generic_version = if version >= CodeObjectVersion::V6 {
            ((e_flags & EF_AMDGPU_GENERIC_VERSION) >> EF_AMDGPU_GENERIC_VERSION_OFFSET) as u8
        } else {
            0
        };
        Ok(TargetId {
            processor,
            xnack,
            sramecc,
            generic_version,
        })
    }
}

/// The code object version named by `e_ident[EI_OSABI]` and `e_ident[EI_ABIVERSION]`.
pub fn code_object_version(os_abi: u8, abi_version: u8) -> Result<CodeObjectVersion> {
    if os_abi != ELFOSABI_AMDGPU_HSA {
        let what = match os_abi {
            ELFOSABI_AMDGPU_PAL => "a PAL (graphics driver) code object",
            ELFOSABI_AMDGPU_MESA3D => "a Mesa3D code object",
            _ => "an AMDGPU ELF with an unknown EI_OSABI",
        };
        return Err(ReadError::Unsupported(format!(
            "{what} (EI_OSABI {os_abi}); only HSA code objects are read for now"
        )));
    }
    match abi_version {
        ELFABIVERSION_AMDGPU_HSA_V2 => Err(ReadError::Unsupported(
            "HSA code object v2 (EI_ABIVERSION 0): its processor lives in an NT_AMD_HSA_ISA_VERSION note; only v3-v6 are read".into(),
        )),
        ELFABIVERSION_AMDGPU_HSA_V3 => Ok(CodeObjectVersion::V3),
        ELFABIVERSION_AMDGPU_HSA_V4 => Ok(CodeObjectVersion::V4),
        ELFABIVERSION_AMDGPU_HSA_V5 => Ok(CodeObjectVersion::V5),
        ELFABIVERSION_AMDGPU_HSA_V6 => Ok(CodeObjectVersion::V6),
        other => Err(ReadError::Unsupported(format!("HSA code object with EI_ABIVERSION {other} (v7 or later?)"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(e_flags: u32, version: CodeObjectVersion) -> String {
        TargetId::from_e_flags(e_flags, version)
            .unwrap()
            .to_string()
    }

    #[test]
    fn v4_feature_settings_spell_like_llvm() {
        use CodeObjectVersion::V4;
        assert_eq!(
            target(
                0x3f | EF_AMDGPU_FEATURE_XNACK_OFF_V4 | EF_AMDGPU_FEATURE_SRAMECC_ANY_V4,
                V4
            ),
            "gfx90a:xnack-"
        );
        assert_eq!(
            target(
                0x3f | EF_AMDGPU_FEATURE_XNACK_ON_V4 | EF_AMDGPU_FEATURE_SRAMECC_ON_V4,
                V4
            ),
            "gfx90a:sramecc+:xnack+"
        );
        assert_eq!(target(0x2a, V4), "gfx803");
        assert_eq!(target(0x2c | EF_AMDGPU_FEATURE_XNACK_ANY_V4, V4), "gfx900");
    }

    #[test]
    fn v3_has_only_on_bits() {
        let t = TargetId::from_e_flags(0x2c | EF_AMDGPU_FEATURE_XNACK_V3, CodeObjectVersion::V3)
            .unwrap();
        assert_eq!(t.xnack, FeatureSetting::On);
        assert_eq!(t.sramecc, FeatureSetting::Unsupported);
    }

    #[test]
    fn v6_generic_version_is_the_top_byte() {
        let t = TargetId::from_e_flags(0x0100_0053, CodeObjectVersion::V6).unwrap();
        assert_eq!(
            (t.processor.name, t.generic_version),
            ("gfx10-3-generic", 1)
        );
        // Before v6 the top byte is not a generic version.
        assert_eq!(
            TargetId::from_e_flags(0x0100_0053, CodeObjectVersion::V5)
                .unwrap()
                .generic_version,
            0
        );
    }

    #[test]
    fn unknown_mach_names_the_value() {
        let e = TargetId::from_e_flags(0x27, CodeObjectVersion::V5).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown processor: EF_AMDGPU_MACH 0x27 in e_flags 0x00000027"
        );
    }

    #[test]
    fn versions_from_abi_version() {
        assert_eq!(code_object_version(64, 2).unwrap(), CodeObjectVersion::V4);
        assert_eq!(code_object_version(64, 4).unwrap(), CodeObjectVersion::V6);
        assert!(code_object_version(64, 0).is_err());
        assert!(
            code_object_version(65, 0)
                .unwrap_err()
                .to_string()
                .contains("PAL")
        );
    }
}
