//! The in-process LLVM assembler (`gfxpatch::llvm::asm`) against `llvm-mc-19 -show-encoding`
//! on a handful of lines per generation, and its failure mode: a bad line is an error naming
//! the line, and the process goes on.

mod common;

use gfxpatch::isa::encode::encode;
use gfxpatch::isa::operand::decode_operands;
use gfxpatch::isa::{Decoder, Target};
use gfxpatch::llvm::asm::LlvmAssembler;

const LINES: [&str; 6] = [
    "v_lshl_or_b32 v5, v1, v2, s3",
    "v_cmp_le_i64 vcc, -1, v[2:3]",
    "s_mov_b32 s1, 0x12345678",
    "v_add_f32 v1, 0.5, v2",
    "global_load_dword v1, v[2:3], off offset:16",
    "s_endpgm",
];

/// `llvm-mc-19 -show-encoding` bytes of one line (`// encoding: [0x05,0x00,...]`).
fn llvm_mc(cpu: &str, mattr: &str, line: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.s");
    std::fs::write(&input, format!("{line}\n")).unwrap();
    let mut args = vec!["-arch=amdgcn", "-show-encoding"];
    let mcpu = format!("-mcpu={cpu}");
    let attr = format!("-mattr={mattr}");
    args.push(&mcpu);
    if !mattr.is_empty() {
        args.push(&attr);
    }
    args.push(input.to_str().unwrap());
    let out = common::llvm_tool("llvm-mc-19", &args);
    let list = out.split("encoding: [").nth(1).unwrap_or_else(|| panic!("no encoding for {line} on {cpu}: {out}"));
    let list = list.split(']').next().unwrap();
    list.split(',').map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap()).collect()
}

#[test]
fn in_process_assembler_matches_llvm_mc() {
    let mut checked = 0;
    for (cpu, mattr) in [("gfx900", ""), ("gfx90a", ""), ("gfx1030", "+wavefrontsize64"), ("gfx1100", "+wavefrontsize64"), ("gfx1200", "+wavefrontsize64")] {
        let target = Target::from_name(cpu, mattr).unwrap();
        let mut llvm = LlvmAssembler::new(&target).unwrap();
        let decoder = Decoder::new(target);
        for line in LINES {
            let ours = llvm.assemble(line).unwrap_or_else(|e| panic!("{cpu}: {line}: {e}"));
            assert_eq!(ours, llvm_mc(cpu, mattr, line), "{cpu} {mattr}: {line}");
            // And our encoder writes the same bytes from the decoded operands.
            let inst = decoder.decode(&ours);
            let e = inst.encoding().unwrap();
            let ops = decode_operands(e, inst.encoded_bits(), &ours[inst.tail_at()..], &target).unwrap();
            assert_eq!(encode(e, &ops, &target).unwrap().bytes(), ours, "{cpu}: encode of {line}");
            checked += 1;
        }
    }
    assert_eq!(checked, 30);
}

#[test]
fn bad_lines_are_errors_with_their_line_and_the_process_goes_on() {
    let target = Target::from_name("gfx1100", "").unwrap();
    let mut llvm = LlvmAssembler::new(&target).unwrap();
    let err = llvm.assemble("s_nop 0\ns_nop 0\nv_add_f32 v1, v2\n").unwrap_err();
    assert_eq!(err.line, 3, "{err}");
    assert!(err.to_string().starts_with("line 3: "), "{err}");
    // An operand valid elsewhere but not on this target.
    let err = llvm.assemble("v_accvgpr_read_b32 v1, a1").unwrap_err();
    assert_eq!(err.line, 1, "{err}");
    assert_eq!(llvm.assemble("s_endpgm").unwrap(), [0x00, 0x00, 0xb0, 0xbf]);
}
