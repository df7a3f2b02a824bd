//! LLVM's in-process MC disassembler, through llvm-sys: the oracle our decoder is measured
//! against (tests, `gfxpatch disasm --backend llvm`, the decode benchmark).

use std::ffi::{CStr, CString, c_char};
use std::sync::Once;

use llvm_sys::disassembler::{
    LLVMCreateDisasmCPUFeatures, LLVMDisasmContextRef, LLVMDisasmDispose, LLVMDisasmInstruction,
};

use super::Refusal;
use crate::isa::Target;

unsafe extern "C" {
    // inkwell registers the AMDGPU target, MC layer, asm parser and printer, but not the
    // disassembler; LLVM exports its initializer under this name.
    fn LLVMInitializeAMDGPUDisassembler();
}

fn initialize() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        super::initialize_amdgpu();
        // SAFETY: a plain LLVM initializer with no arguments, called once.
        unsafe { LLVMInitializeAMDGPUDisassembler() };
    });
}

/// An LLVM disassembler for one target.
pub struct LlvmDisassembler {
    context: LLVMDisasmContextRef,
}

// SAFETY: the context is used only through `&mut self`, one thread at a time.
unsafe impl Send for LlvmDisassembler {}

/// One instruction as LLVM decodes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LlvmInst {
    /// Bytes consumed; 0 means LLVM could not decode (it then skips 4 bytes, as objdump does).
    pub size: usize,
    /// LLVM's text, without the leading tab.
    pub text: String,
}

impl LlvmDisassembler {
    /// A disassembler for `target` (processor and wave size), refused for a target LLVM 19
    /// does not know (gfx950, gfx1250: it would warn, then abort the process at the first
    /// instruction) or that LLVM declines.
    pub fn new(target: &Target) -> Result<LlvmDisassembler, Refusal> {
        if let Some(refusal) = Refusal::before_asking(target) {
            return Err(refusal);
        }
        initialize();
        let declined = || Refusal::Declined { cpu: target.processor.name.to_owned(), features: target.mattr() };
        let triple = CString::new("amdgcn-amd-amdhsa").unwrap();
        let cpu = CString::new(target.processor.name).map_err(|_| declined())?;
        let features = CString::new(target.mattr()).map_err(|_| declined())?;
        // SAFETY: valid NUL-terminated strings; no callbacks; LLVM copies what it keeps.
        let context = unsafe {
            LLVMCreateDisasmCPUFeatures(
                triple.as_ptr(),
                cpu.as_ptr(),
                features.as_ptr(),
                std::ptr::null_mut(),
                0,
                None,
                None,
            )
        };
        if context.is_null() { Err(declined()) } else { Ok(LlvmDisassembler { context }) }
    }

    /// Decodes the instruction at the start of `bytes`, at address `pc`.
    pub fn decode(&mut self, bytes: &[u8], pc: u64) -> LlvmInst {
        let mut text = [0 as c_char; 512];
        // SAFETY: LLVM reads at most `bytes.len()` bytes (it takes a mutable pointer but does not
        // write through it) and writes a NUL-terminated string of at most `text.len()` bytes.
        let size = unsafe {
            LLVMDisasmInstruction(
                self.context,
                bytes.as_ptr() as *mut u8,
                bytes.len() as u64,
                pc,
                text.as_mut_ptr(),
                text.len(),
            )
        };
        // SAFETY: the buffer is NUL-terminated by LLVM (or still all zeros).
        let text = unsafe { CStr::from_ptr(text.as_ptr()) }
            .to_string_lossy()
            .trim_start_matches('\t')
            .to_owned();
        LlvmInst { size, text }
    }
}

impl Drop for LlvmDisassembler {
    fn drop(&mut self) {
        // SAFETY: created by LLVMCreateDisasmCPUFeatures and disposed once.
        unsafe { LLVMDisasmDispose(self.context) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llvm_decodes_the_seed_example() {
        let target = Target::from_name("gfx1100", "").unwrap();
        let mut llvm = LlvmDisassembler::new(&target).unwrap();
        let inst = llvm.decode(&[0x05, 0x00, 0x56, 0xd6, 0x01, 0x05, 0x0e, 0x00], 0);
        assert_eq!(
            inst,
            LlvmInst {
                size: 8,
                text: "v_lshl_or_b32 v5, v1, v2, s3".to_owned()
            }
        );
    }

    /// LLVM 19 does not know gfx950 and gfx1250: made for them, its disassembler would warn
    /// and abort the process at the first instruction (`gfxpatch bench decode` on a gfx1250
    /// object did). It is refused instead.
    #[test]
    fn targets_llvm_19_does_not_know_are_refused() {
        for (cpu, needs) in [("gfx950", "gfx950 needs LLVM 22"), ("gfx1250", "gfx1250 needs LLVM 22")] {
            let refusal = LlvmDisassembler::new(&Target::from_name(cpu, "").unwrap()).err();
            assert_eq!(refusal.map(|r| r.to_string()), Some(format!("{needs}, and the in-process LLVM is 19")), "{cpu}");
        }
        assert!(LlvmDisassembler::new(&Target::from_name("gfx942", "").unwrap()).is_ok());
    }

    #[test]
    fn llvm_reports_undecodable_words() {
        let target = Target::from_name("gfx900", "").unwrap();
        let mut llvm = LlvmDisassembler::new(&target).unwrap();
        assert_eq!(llvm.decode(&[0xff, 0xff, 0xff, 0xff], 0).size, 0);
    }
}
