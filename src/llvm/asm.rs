//! LLVM's assembler in-process, through inkwell: the oracle our encoder is measured against and
//! the `--backend llvm` assembler.
//!
//! The text becomes a module's inline assembly, which a TargetMachine emits as an object in
//! memory; the bytes are read back from its `.text`. The triple is `amdgcn--` (no OS): the HSA
//! triple would pad the section with `s_code_end`. LLVM reports a bad line through the context's
//! diagnostic handler; without one it exits the process, and with one it drops the line and goes
//! on, so a handler is installed and read after every emit: any error fails the call.

use std::cell::RefCell;
use std::ffi::{c_void, CStr};

use inkwell::context::Context;
use inkwell::targets::{CodeModel, FileType, RelocMode, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;
use llvm_sys::core::{LLVMContextSetDiagnosticHandler, LLVMDisposeMessage, LLVMGetDiagInfoDescription, LLVMGetDiagInfoSeverity};
use llvm_sys::prelude::LLVMDiagnosticInfoRef;
use llvm_sys::LLVMDiagnosticSeverity;
use object::{Object as _, ObjectSection as _, ObjectSymbol as _};

use crate::isa::Target;

/// A line LLVM did not assemble: the 1-based line of the input text and LLVM's message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct LlvmAsmError {
    /// 1-based line of the input; 0 when the failure is not a line's (target, emission).
    pub line: usize,
    pub message: String,
}

/// LLVM's assembler for one target.
pub struct LlvmAssembler {
    machine: TargetMachine,
    /// Holds the diagnostic handler; each call creates and drops its module in it.
    context: Context,
    /// Errors the diagnostic handler collected since the last emit. Boxed: LLVM holds its
    /// address. Declared after `context`, so it is dropped after the handler's context.
    diagnostics: Box<RefCell<Vec<String>>>,
}

extern "C" fn collect_diagnostic(info: LLVMDiagnosticInfoRef, sink: *mut c_void) {
    // SAFETY: `sink` is the `RefCell<Vec<String>>` boxed in the LlvmAssembler that installed
    // this handler on its own context, alive as long as the context; `info` is valid for the
    // call, and the description is an LLVM-allocated string we dispose of.
    unsafe {
        if LLVMGetDiagInfoSeverity(info) != LLVMDiagnosticSeverity::LLVMDSError {
            return;
        }
        let text = LLVMGetDiagInfoDescription(info);
        let message = CStr::from_ptr(text).to_string_lossy().into_owned();
        LLVMDisposeMessage(text);
        if let Some(sink) = (sink as *const RefCell<Vec<String>>).as_ref() {
            sink.borrow_mut().push(message);
        }
    }
}

impl LlvmAssembler {
    /// An assembler for `target` (processor, wave size, true16 mode).
    pub fn new(target: &Target) -> Result<LlvmAssembler, LlvmAsmError> {
        if let Some(refusal) = super::Refusal::before_asking(target) {
            return Err(LlvmAsmError { line: 0, message: refusal.to_string() });
        }
        LlvmAssembler::for_cpu(target.processor.name, &target.mattr())
    }

    /// An assembler for an LLVM CPU name and feature string as given (`tonga`, `gfx906`;
    /// `+wavefrontsize64`, `-real-true16`), unchecked by gfxpatch: for replaying LLVM's own
    /// test RUN lines.
    pub fn for_cpu(cpu: &str, features: &str) -> Result<LlvmAssembler, LlvmAsmError> {
        let fail = |message: String| LlvmAsmError { line: 0, message };
        let llvm_target = super::amdgpu_target().ok_or_else(|| fail("LLVM was built without the AMDGPU target".to_owned()))?;
        let machine = llvm_target
            .create_target_machine(
                &TargetTriple::create("amdgcn--"),
                cpu,
                features,
                OptimizationLevel::None,
                RelocMode::Default,
                CodeModel::Default,
            )
            .ok_or_else(|| fail(format!("LLVM has no target machine for {cpu} {features}")))?;
        let context = Context::create();
        let diagnostics = Box::new(RefCell::new(Vec::new()));
        // SAFETY: the handler reads `diagnostics` through the pointer; the box lives in the
        // returned assembler as long as the context it is installed on.
        unsafe {
            LLVMContextSetDiagnosticHandler(context.raw(), Some(collect_diagnostic), &*diagnostics as *const _ as *mut c_void);
        }
        Ok(LlvmAssembler { machine, context, diagnostics })
    }

    /// Assembles `text` (instructions, one a line) to the bytes of its `.text`. The first line
    /// LLVM refuses is the error.
    pub fn assemble(&mut self, text: &str) -> Result<Vec<u8>, LlvmAsmError> {
        let (bytes, _, errors) = self.emit(text)?;
        match errors.into_iter().next() {
            Some(error) => Err(error),
            None => Ok(bytes),
        }
    }

    /// Assembles each line on its own (in one emit): per line, its bytes or LLVM's error.
    /// Lines are separated by labels LLVM keeps in the symbol table, so one bad line fails
    /// only itself.
    pub fn assemble_each(&mut self, lines: &[&str]) -> Result<Vec<Result<Vec<u8>, String>>, LlvmAsmError> {
        let mut text = String::with_capacity(lines.iter().map(|l| l.len() + 16).sum());
        for (i, line) in lines.iter().enumerate() {
            if line.contains('\n') {
                return Err(LlvmAsmError { line: i + 1, message: "an instruction spans more than one line".to_owned() });
            }
            text.push_str(&format!("gfxpatch_line_{i}:\n{line}\n"));
        }
        text.push_str(&format!("gfxpatch_line_{}:\n", lines.len()));
        let (bytes, starts, errors) = self.emit(&text)?;
        let mut out: Vec<Result<Vec<u8>, String>> = (0..lines.len())
            .map(|i| match (starts.get(&i), starts.get(&(i + 1))) {
                (Some(&a), Some(&b)) if a <= b && b <= bytes.len() => Ok(bytes[a..b].to_vec()),
                _ => Err("LLVM emitted no label around this line".to_owned()),
            })
            .collect();
        for error in errors {
            // Text line 2i+2 is input line i+1 (its label is line 2i+1).
            if error.line >= 2 && error.line % 2 == 0 && error.line / 2 <= lines.len() {
                out[error.line / 2 - 1] = Err(error.message);
            } else {
                return Err(error);
            }
        }
        Ok(out)
    }

    /// Emits `text` as an object; returns `.text`, the offsets of `gfxpatch_line_N` labels, and
    /// the errors LLVM reported, by line of `text`.
    fn emit(&mut self, text: &str) -> Result<Emitted, LlvmAsmError> {
        self.diagnostics.borrow_mut().clear();
        let module = self.context.create_module("gfxpatch-asm");
        module.set_triple(&TargetTriple::create("amdgcn--"));
        module.set_inline_assembly(text);
        let emitted = self.machine.write_to_memory_buffer(&module, FileType::Object);
        let errors: Vec<LlvmAsmError> = self.diagnostics.borrow_mut().drain(..).map(|d| parse_diagnostic(&d)).collect();
        let buffer = emitted.map_err(|e| LlvmAsmError { line: errors.first().map_or(0, |e| e.line), message: e.to_string() })?;
        let object = object::read::elf::ElfFile64::<object::Endianness>::parse(buffer.as_slice())
            .map_err(|e| LlvmAsmError { line: 0, message: format!("LLVM's object does not parse: {e}") })?;
        let text_section = object.section_by_name(".text");
        let bytes = match &text_section {
            Some(s) => s.data().map_err(|e| LlvmAsmError { line: 0, message: e.to_string() })?.to_vec(),
            None => Vec::new(),
        };
        let mut starts = std::collections::HashMap::new();
        for symbol in object.symbols() {
            if let Some(n) = symbol.name().ok().and_then(|n| n.strip_prefix("gfxpatch_line_")).and_then(|n| n.parse().ok()) {
                starts.insert(n, symbol.address() as usize);
            }
        }
        Ok((bytes, starts, errors))
    }
}

/// What one emit produced: `.text`, the offset of each `gfxpatch_line_N` label by N, and the
/// errors LLVM reported.
type Emitted = (Vec<u8>, std::collections::HashMap<usize, usize>, Vec<LlvmAsmError>);

/// `<inline asm>:3:1: error: invalid instruction` (LLVM's source-manager text, possibly with
/// the line and a caret after it) -> line 3 and the message.
fn parse_diagnostic(text: &str) -> LlvmAsmError {
    let first = text.lines().next().unwrap_or(text);
    let rest = first.strip_prefix("<inline asm>:").unwrap_or(first);
    let mut parts = rest.splitn(3, ':');
    let line = parts.next().and_then(|l| l.trim().parse().ok());
    match (line, parts.next(), parts.next()) {
        (Some(line), Some(_column), Some(message)) => {
            let message = message.trim();
            let message = message.strip_prefix("error:").unwrap_or(message).trim().to_owned();
            LlvmAsmError { line, message }
        }
        _ => LlvmAsmError { line: 0, message: first.trim().to_owned() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assembler(cpu: &str, mattr: &str) -> LlvmAssembler {
        LlvmAssembler::new(&Target::from_name(cpu, mattr).unwrap()).unwrap()
    }

    /// LLVM 19 does not know gfx950 and gfx1250 (it would warn and assemble for a generic
    /// processor): refused, with the reason.
    #[test]
    fn targets_llvm_19_does_not_know_are_refused() {
        for cpu in ["gfx950", "gfx1250"] {
            let Err(e) = LlvmAssembler::new(&Target::from_name(cpu, "").unwrap()) else { panic!("{cpu} accepted") };
            assert!(e.message.contains("needs LLVM 22"), "{cpu}: {}", e.message);
        }
    }

    #[test]
    fn assembles_the_seed_examples() {
        let lshl = "v_lshl_or_b32 v5, v1, v2, s3";
        assert_eq!(assembler("gfx900", "").assemble(lshl).unwrap(), [0x05, 0x00, 0x00, 0xd2, 0x01, 0x05, 0x0e, 0x00]);
        assert_eq!(assembler("gfx90a", "").assemble(lshl).unwrap(), [0x05, 0x00, 0x00, 0xd2, 0x01, 0x05, 0x0e, 0x00]);
        assert_eq!(assembler("gfx1030", "").assemble(lshl).unwrap(), [0x05, 0x00, 0x6f, 0xd7, 0x01, 0x05, 0x0e, 0x00]);
        assert_eq!(assembler("gfx1100", "").assemble(lshl).unwrap(), [0x05, 0x00, 0x56, 0xd6, 0x01, 0x05, 0x0e, 0x00]);
        assert_eq!(assembler("gfx1200", "").assemble(lshl).unwrap(), [0x05, 0x00, 0x56, 0xd6, 0x01, 0x05, 0x0e, 0x00]);
        let cmp = "v_cmp_le_i64 vcc, -1, v[2:3]";
        assert_eq!(assembler("gfx900", "").assemble(cmp).unwrap(), [0xc1, 0x04, 0xc6, 0x7d]);
        assert_eq!(assembler("gfx1030", "+wavefrontsize64").assemble(cmp).unwrap(), [0xc1, 0x04, 0x46, 0x7d]);
        assert_eq!(assembler("gfx1100", "+wavefrontsize64").assemble(cmp).unwrap(), [0xc1, 0x04, 0xa6, 0x7c]);
    }

    #[test]
    fn a_bad_line_is_an_error_with_its_line_not_an_exit() {
        let mut llvm = assembler("gfx900", "");
        let err = llvm.assemble("s_nop 0\nv_bogus v1, v2\ns_endpgm").unwrap_err();
        assert_eq!(err.line, 2, "{err}");
        assert!(err.message.contains("invalid instruction"), "{err}");
        // The assembler is still usable afterwards.
        assert_eq!(llvm.assemble("s_endpgm").unwrap(), [0x00, 0x00, 0x81, 0xbf]);
    }

    #[test]
    fn each_line_gets_its_bytes_or_its_error() {
        let mut llvm = assembler("gfx1100", "");
        let out = llvm.assemble_each(&["s_nop 0", "v_add_f32 v1, v2, s3 bogus", "v_mov_b32 v1, 0x12345678"]).unwrap();
        assert_eq!(out[0], Ok(vec![0x00, 0x00, 0x80, 0xbf]));
        assert!(out[1].is_err(), "{:?}", out[1]);
        assert_eq!(out[2], Ok(vec![0xff, 0x02, 0x02, 0x7e, 0x78, 0x56, 0x34, 0x12]));
    }
}
