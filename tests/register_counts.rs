//! Register counts after edits that raise register use: the descriptor's granules and the
//! metadata note agree, and are raised (never lowered).

mod common;

use gfxpatch::ir::{Function, InstRef};
use gfxpatch::isa::table::{Opcode, OperandName};
use gfxpatch::isa::operand::Value;
use gfxpatch::isa::reg::Reg;
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
        let v40 = Value::Reg(Reg::Vgpr { index: 40, count: 1 });
        let inst = ctx.builder.borrow_mut().build(Opcode::V_MOV_B32_e32, &[(OperandName::vdst, v40), (OperandName::src0, Value::InlineInt(0))]).unwrap();
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

/// The same edit on compiled kernels of other generations (GFX8 SGPR blocks, GFX90A unified
/// AGPRs, GFX10/11 wave32 granules): the note says 41 (or what it said, if more), and the
/// descriptor's granules agree with the note.
#[test]
fn descriptor_and_metadata_agree_after_raising_vgpr_use_on_every_generation() {
    let dir = tempfile::tempdir().unwrap();
    for target in ["gfx803", "gfx906", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1200"] {
        let input = common::repo().join("fixtures/co").join(target).join("addr_math.O2.co");
        let data = std::fs::read(&input).unwrap();
        let options = Options { passes: vec![&TouchV40], print_after: None, strip_debug_on_failure: false };
        let outcome = rewrite_object(&data, &options).unwrap();
        assert_eq!(outcome.refused, None, "{target}");
        let out = dir.path().join(format!("{target}.co"));
        std::fs::write(&out, outcome.bytes.expect("the object changed")).unwrap();
        let before = common::info_json(&input);
        let after = common::info_json(&out);
        for (k0, k1) in before["code_objects"][0]["kernels"].as_array().unwrap().iter().zip(after["code_objects"][0]["kernels"].as_array().unwrap()) {
            let old = k0["vgpr_count"].as_u64().unwrap();
            assert_eq!(k1["vgpr_count"].as_u64().unwrap(), old.max(41), "{target} {}: metadata .vgpr_count", k1["name"]);
            assert!(k1["descriptor_registers"]["vgprs"].as_u64().unwrap() >= 41, "{target} {}: {}", k1["name"], k1["descriptor_registers"]);
            assert_eq!(k1["disagreements"].as_array().unwrap().len(), 0, "{target} {}: {}", k1["name"], k1["disagreements"]);
            assert!(k1["sgpr_count"].as_u64() >= k0["sgpr_count"].as_u64(), "{target}: SGPR count lowered");
        }
        let o = common::gfxpatch(&["verify", out.to_str().unwrap()]);
        assert!(o.status.success(), "{target}: {}", String::from_utf8_lossy(&o.stdout));
    }
}
