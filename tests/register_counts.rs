//! Register counts after edits that raise register use: the descriptor's granules and the
//! metadata note agree, and are raised (never lowered).

mod common;

use gfxpatch::ir::{Function, InstRef};
use gfxpatch::isa::table::{Opcode, OperandName};
use gfxpatch::layout::encode::Field;
use gfxpatch::pass::{Ctx, Pass, PassStats};
use gfxpatch::rewrite::{rewrite_object, Options};

/// Writes v40 at every kernel entry: 41 VGPRs needed where the fixture used a handful.
struct TouchV40;

impl Pass for TouchV40 {
    fn name(&self) -> &'static str {
        "touch-v40"
    }
    fn description(&self) -> &'static str {
        "test pass: v_mov_b32 v40, 0 at each kernel entry"
    }
    fn run(&self, f: &mut Function, ctx: &Ctx<'_>, stats: &mut PassStats) {
        if f.kind != gfxpatch::ir::FunctionKind::Kernel {
            return;
        }
        // VOP1 fields: vdst is the VGPR number, src0 the 9-bit source encoding (128 = 0).
        let inst = ctx.assembler.borrow_mut().build(Opcode::V_MOV_B32_e32, &[(OperandName::vdst, Field::Imm(40)), (OperandName::src0, Field::Imm(128))]).unwrap();
        f.insert_before(InstRef { block: 0, index: 0 }, inst, "touch-v40").unwrap();
        stats.applied += 1;
    }
}

#[test]
fn descriptor_and_metadata_agree_after_raising_vgpr_use() {
    let input = common::repo().join("fixtures/co/gfx900/handwritten.asm.co");
    let data = std::fs::read(&input).unwrap();
    let options = Options { passes: vec![&TouchV40], print_after: None, strip_debug_on_failure: false };
    let outcome = rewrite_object(&data, &options).unwrap();
    assert_eq!(outcome.refused, None);
    let bytes = outcome.bytes.expect("the object changed");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("v40.co");
    std::fs::write(&out, &bytes).unwrap();
    let before = common::info_json(&input);
    let after = common::info_json(&out);
    for (k0, k1) in before["code_objects"][0]["kernels"].as_array().unwrap().iter().zip(after["code_objects"][0]["kernels"].as_array().unwrap()) {
        assert!(k0["vgpr_count"].as_u64().unwrap() < 41);
        assert_eq!(k1["vgpr_count"], 41, "{}: metadata .vgpr_count", k1["name"]);
        assert_eq!(k1["descriptor_registers"]["vgprs"], 44, "{}: 41 VGPRs in blocks of 4", k1["name"]);
        assert_eq!(k1["disagreements"].as_array().unwrap().len(), 0, "{}: {}", k1["name"], k1["disagreements"]);
        assert_eq!(k1["sgpr_count"], k0["sgpr_count"], "SGPR use did not change and is not lowered");
    }
    let o = common::gfxpatch(&["verify", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
}
