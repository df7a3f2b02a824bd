//! A decoding target: a processor plus the modes that change how its bytes read
//! (wave size, xnack, sramecc), as the code object or the command line gives them.

use std::fmt;

use super::processor::{Generation, Processor};
use super::target_id::{FeatureSetting, TargetId};

/// What the decoder, printer and encoder need to know about where code runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    pub processor: &'static Processor,
    /// Wave64 (true) or wave32. GFX10+ kernels choose; earlier generations are always wave64.
    pub wave64: bool,
    pub xnack: FeatureSetting,
    pub sramecc: FeatureSetting,
    /// GFX11+ true16 forms with 16-bit register halves (`-mattr=+real-true16`); LLVM 19 decodes
    /// without them by default.
    pub real_true16: bool,
}

/// Why a target cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TargetError {
    #[error("unknown processor {0:?}")]
    UnknownProcessor(String),
    #[error(
        "{0} is not supported: gfxpatch decodes GFX8 and later (LLVM's disassembler does the same)"
    )]
    TooOld(&'static str),
    #[error(
        "unknown target feature {0:?} (known: ±wavefrontsize32, ±wavefrontsize64, ±xnack, ±sramecc, ±real-true16)"
    )]
    UnknownFeature(String),
    #[error("{0} has no wave32 mode")]
    NoWave32(&'static str),
}

impl Target {
    /// The target of a code object; `wave64` comes from the kernel (descriptor or metadata).
    pub fn from_target_id(id: &TargetId, wave64: bool) -> Result<Target, TargetError> {
        let processor = id.processor;
        if processor.generation < Generation::Gfx8 {
            return Err(TargetError::TooOld(processor.name));
        }
        let wave64 = wave64 || !processor.generation.is_gfx10_plus();
        Ok(Target {
            processor,
            wave64,
            xnack: id.xnack,
            sramecc: id.sramecc,
            real_true16: false,
        })
    }

    /// A target from a processor name and LLVM-style `-mattr` features
    /// (`+wavefrontsize64`, `-xnack`), as `llvm-mc --mcpu=gfx1100 --mattr=...` takes them.
    pub fn from_name(name: &str, mattr: &str) -> Result<Target, TargetError> {
        let processor = Processor::by_name(name)
            .ok_or_else(|| TargetError::UnknownProcessor(name.to_owned()))?;
        if processor.generation < Generation::Gfx8 {
            return Err(TargetError::TooOld(processor.name));
        }
        let mut target = Target {
            processor,
            wave64: !processor.generation.is_gfx10_plus(),
            xnack: if processor.supports_xnack {
                FeatureSetting::Any
            } else {
                FeatureSetting::Unsupported
            },
            sramecc: if processor.supports_sramecc {
                FeatureSetting::Any
            } else {
                FeatureSetting::Unsupported
            },
            real_true16: false,
        };
        for feature in mattr.split(',').map(str::trim).filter(|f| !f.is_empty()) {
            // LLVM matches feature names case-insensitively (`+WavefrontSize64`).
            match feature.to_ascii_lowercase().as_str() {
                "+wavefrontsize64" | "-wavefrontsize32" => target.wave64 = true,
                "+wavefrontsize32" | "-wavefrontsize64" => {
                    if !processor.generation.is_gfx10_plus() {
                        return Err(TargetError::NoWave32(processor.name));
                    }
                    target.wave64 = false;
                }
                "+xnack" => target.xnack = FeatureSetting::On,
                "-xnack" => target.xnack = FeatureSetting::Off,
                "+sramecc" => target.sramecc = FeatureSetting::On,
                "-sramecc" => target.sramecc = FeatureSetting::Off,
                "+real-true16" => target.real_true16 = true,
                "-real-true16" => target.real_true16 = false,
                _ => return Err(TargetError::UnknownFeature(feature.to_owned())),
            }
        }
        Ok(target)
    }

    pub fn generation(&self) -> Generation {
        self.processor.generation
    }

    /// Which LLVM's records describe this target: 22 for GFX950 and GFX1250, else 19.
    pub fn llvm_version(&self) -> u8 {
        match self.generation() {
            Generation::Gfx950 | Generation::Gfx1250 => 22,
            _ => 19,
        }
    }

    /// `--mattr` spelling of the mode, for running LLVM's tools on the same target.
    pub fn mattr(&self) -> String {
        let wave = match (self.generation().is_gfx10_plus(), self.wave64) {
            (true, true) => "+wavefrontsize64",
            (true, false) => "+wavefrontsize32",
            (false, _) => "",
        };
        if self.real_true16 {
            format!("{wave},+real-true16")
        } else {
            wave.to_owned()
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.processor.name)?;
        if self.generation().is_gfx10_plus() {
            f.write_str(if self.wave64 {
                " (wave64)"
            } else {
                " (wave32)"
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wave_size_defaults_by_generation() {
        assert!(Target::from_name("gfx900", "").unwrap().wave64);
        assert!(!Target::from_name("gfx1100", "").unwrap().wave64);
        assert!(
            Target::from_name("gfx1100", "+wavefrontsize64")
                .unwrap()
                .wave64
        );
        assert_eq!(
            Target::from_name("gfx900", "+wavefrontsize32"),
            Err(TargetError::NoWave32("gfx900"))
        );
    }

    #[test]
    fn old_and_unknown_targets_are_refused() {
        assert_eq!(
            Target::from_name("gfx700", ""),
            Err(TargetError::TooOld("gfx700"))
        );
        assert!(matches!(
            Target::from_name("gfx9000", ""),
            Err(TargetError::UnknownProcessor(_))
        ));
        assert!(matches!(
            Target::from_name("gfx900", "+avx"),
            Err(TargetError::UnknownFeature(_))
        ));
    }

    #[test]
    fn llvm_version_per_generation() {
        assert_eq!(Target::from_name("gfx950", "").unwrap().llvm_version(), 22);
        assert_eq!(Target::from_name("gfx942", "").unwrap().llvm_version(), 19);
    }
}
