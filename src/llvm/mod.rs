//! The LLVM bridge: LLVM 19 in-process through inkwell and llvm-sys, our oracle for decoding and
//! encoding and our fallback assembler.

use std::sync::Once;

pub mod asm;
pub mod disasm;
pub mod listing;

use inkwell::targets::{InitializationConfig, Target};

/// Registers LLVM's AMDGPU target (info, MC layer, asm parser and printer) once per process.
pub fn initialize_amdgpu() {
    static INIT: Once = Once::new();
    INIT.call_once(|| Target::initialize_amd_gpu(&InitializationConfig::default()));
}

/// LLVM's AMDGPU target, as registered in this process.
pub fn amdgpu_target() -> Option<Target> {
    initialize_amdgpu();
    Target::from_name("amdgcn")
}

/// Why the in-process LLVM does not take a target, in one wording for every caller (the
/// disassembler and the assembler bridges, and the commands that make them).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// A processor only a later LLVM knows (gfx950, gfx1250: LLVM 22's tables). LLVM 19
    /// would warn, then abort the process at its first instruction, so it is never asked.
    #[error("{processor} needs LLVM {needs}, and the in-process LLVM is 19")]
    NeedsLaterLlvm { processor: &'static str, needs: u8 },
    /// LLVM 19 itself declined the processor and features.
    #[error("LLVM 19 refused {cpu} with features {features:?}")]
    Declined { cpu: String, features: String },
}

impl Refusal {
    /// The refusal of `target` before LLVM is asked: one that LLVM 19 does not know.
    pub fn before_asking(target: &crate::isa::Target) -> Option<Refusal> {
        (target.llvm_version() != 19).then(|| Refusal::NeedsLaterLlvm {
            processor: target.processor.name,
            needs: target.llvm_version(),
        })
    }
}

/// The version of the LLVM library gfxpatch is linked against, e.g. `(19, 1, 7)`.
pub fn llvm_version() -> (u32, u32, u32) {
    let (mut major, mut minor, mut patch) = (0, 0, 0);
    // SAFETY: LLVMGetVersion writes three unsigned integers through valid pointers.
    unsafe { llvm_sys::core::LLVMGetVersion(&mut major, &mut minor, &mut patch) };
    (major, minor, patch)
}

#[cfg(test)]
mod tests {
    #[test]
    fn linked_against_llvm_19_with_amdgpu() {
        assert_eq!(super::llvm_version().0, 19, "gfxpatch's oracle is LLVM 19");
        let target = super::amdgpu_target().expect("LLVM was built without the AMDGPU target");
        assert!(
            target.has_asm_backend(),
            "AMDGPU target without an MC assembler backend"
        );
    }
}
