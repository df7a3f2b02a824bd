//! `gfxpatch isa`: the command line over `isa::info` (whose unit tests check the facts).

mod common;

use serde_json::Value;

#[test]
fn isa_json_has_opcodes_layouts_and_pseudocode() {
    let output = common::gfxpatch(&["isa", "v_lshl_or_b32", "--json"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let info: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(info["mnemonic"], "v_lshl_or_b32");
    assert!(
        info["absent"]
            .as_array()
            .unwrap()
            .contains(&Value::from("GFX8"))
    );
    let gens = info["generations"].as_array().unwrap();
    let gfx9 = gens.iter().find(|g| g["generation"] == "GFX9").unwrap();
    let e = &gfx9["encodings"][0];
    assert_eq!(
        (
            e["record"].as_str(),
            e["family"].as_str(),
            e["opcode"].as_u64()
        ),
        (Some("V_LSHL_OR_B32_vi"), Some("VOP3"), Some(512))
    );
    assert_eq!(e["amd"][0]["arch"], "cdna4");
    assert_eq!(
        e["amd"][0]["pseudocode"],
        "D0.u32 = ((S0.u32 << S1.u32[4 : 0].u32) | S2.u32)"
    );
    let op = e["layout"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["field"] == "OP")
        .unwrap();
    assert_eq!(
        (
            op["hi"].as_u64(),
            op["lo"].as_u64(),
            op["content"]["value"].as_u64()
        ),
        (Some(25), Some(16), Some(512))
    );
}

#[test]
fn isa_text_for_one_target() {
    let output = common::gfxpatch(&["isa", "--target", "gfx1100", "V_CMP_LE_I64_E32"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.starts_with("v_cmp_le_i64\n"), "{text}");
    assert!(
        text.contains("\nGFX11 (gfx1100, wave32, fake16)\n"),
        "{text}"
    );
    assert!(!text.contains("GFX10.3"), "{text}");
    assert!(
        text.contains("  V_CMP_LE_I64_e32_gfx11: VOPC, 32 bits, OP 24:17 = 83\n"),
        "{text}"
    );
    assert!(
        text.contains("  V_CMP_LE_I64_e64_gfx11: VOP3, 64 bits, OP 25:16 = 83\n"),
        "{text}"
    );
    assert!(
        text.contains("D0.u64[laneId] = S0.i64 <= S1.i64;"),
        "{text}"
    );
}

#[test]
fn isa_unknown_mnemonic_fails_with_suggestions() {
    let output = common::gfxpatch(&["isa", "v_lshl_or_b33"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with(
            "gfxpatch: unknown instruction \"v_lshl_or_b33\"; nearest known: v_lshl_or_b32"
        ),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());

    let output = common::gfxpatch(&["isa", "--target", "gfx9999", "v_lshl_or_b32"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown processor \"gfx9999\""));
}
