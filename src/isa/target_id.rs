//! Target ids (`gfx90a:sramecc+:xnack-`): a processor and the settings of the features a code
//! object may be compiled for. These are ISA facts (they change how bytes decode and print); the
//! container reads them from an ELF's `e_flags` and from bundle entry ids.

use std::fmt;

use super::processor::Processor;

/// The setting of a target feature such as `xnack` or `sramecc` in a code object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FeatureSetting {
    /// The processor has no such feature.
    Unsupported,
    /// Compiled to run with the feature either on or off.
    Any,
    /// Compiled with the feature off (`-`).
    Off,
    /// Compiled with the feature on (`+`).
    On,
}

impl FeatureSetting {
    /// The target-id suffix: `+`, `-`, or nothing.
    fn suffix(self) -> Option<char> {
        match self {
            FeatureSetting::On => Some('+'),
            FeatureSetting::Off => Some('-'),
            FeatureSetting::Any | FeatureSetting::Unsupported => None,
        }
    }
}

/// What a code object was compiled for: processor plus feature settings, as LLVM names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TargetId {
    pub processor: &'static Processor,
    pub xnack: FeatureSetting,
    pub sramecc: FeatureSetting,
    /// Version of a generic processor's code object (`EF_AMDGPU_GENERIC_VERSION`, v6+); 0 otherwise.
    pub generic_version: u8,
}

/// LLVM's canonical spelling: processor, then features in alphabetical order
/// (`gfx90a:sramecc+:xnack-`); a feature set to `any` is omitted.
impl fmt::Display for TargetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.processor.name)?;
        for (name, setting) in [("sramecc", self.sramecc), ("xnack", self.xnack)] {
            if let Some(sign) = setting.suffix() {
                write!(f, ":{name}{sign}")?;
            }
        }
        Ok(())
    }
}
