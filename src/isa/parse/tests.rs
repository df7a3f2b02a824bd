use super::*;

fn bytes(cpu: &str, mattr: &str, text: &str) -> Result<Vec<u8>, ParseError> {
    let parser = Parser::new(Target::from_name(cpu, mattr).unwrap());
    parser.parse(text).map(|p| p.inst.bytes())
}

#[test]
fn seed_examples_assemble_to_llvms_bytes() {
    let lshl = "v_lshl_or_b32 v5, v1, v2, s3";
    assert_eq!(
        bytes("gfx900", "", lshl).unwrap(),
        [0x05, 0x00, 0x00, 0xd2, 0x01, 0x05, 0x0e, 0x00]
    );
    assert_eq!(
        bytes("gfx90a", "", lshl).unwrap(),
        [0x05, 0x00, 0x00, 0xd2, 0x01, 0x05, 0x0e, 0x00]
    );
    assert_eq!(
        bytes("gfx1030", "", lshl).unwrap()[..4],
        [0x05, 0x00, 0x6f, 0xd7]
    );
    assert_eq!(
        bytes("gfx1100", "", lshl).unwrap()[..4],
        [0x05, 0x00, 0x56, 0xd6]
    );
    assert_eq!(
        bytes("gfx1200", "", lshl).unwrap()[..4],
        [0x05, 0x00, 0x56, 0xd6]
    );
    let cmp = "v_cmp_le_i64 vcc, -1, v[2:3]";
    assert_eq!(bytes("gfx900", "", cmp).unwrap(), [0xc1, 0x04, 0xc6, 0x7d]);
    assert_eq!(
        bytes("gfx1030", "+wavefrontsize64", cmp).unwrap(),
        [0xc1, 0x04, 0x46, 0x7d]
    );
    assert_eq!(
        bytes("gfx1100", "+wavefrontsize64", cmp).unwrap(),
        [0xc1, 0x04, 0xa6, 0x7c]
    );
}

/// Regression (fuzz `parse_never_panics`, gfx1100): `0x6` in a source became a literal 6, which
/// prints as `6` and then parses to the inline constant: hex integers in the inline range are
/// inline constants, as LLVM assembles them.
#[test]
fn hex_inline_integer_is_an_inline_constant() {
    let text = "v_med3_u32 v5, null, exec_lo, 0x6";
    assert_eq!(
        bytes("gfx1100", "+wavefrontsize64", text).unwrap(),
        [5, 0, 33, 214, 124, 252, 24, 2]
    );
}

/// Regression (mutated vector lines): a register tuple numbered near `u32::MAX` overflowed while
/// the parser listed the tuple's alternate spellings. An error, never a panic.
#[test]
fn huge_register_tuple_is_an_error() {
    let text = "v_subrev_co_ci_u32_e64 v5, ttmp15, v[4294967295:4294967296]src_scc, null, ttmp15";
    assert!(bytes("gfx1100", "", text).is_err());
}

/// Regression (asm3a + asm3b merge): a float inline-constant MTBUF `soffset` on GFX8/GFX9 also
/// read as a float literal (an alias ending at `0.5`) took the first format tried, 0, whose
/// ` format:[BUF_DATA_FORMAT_INVALID]` the text does not have; the vectors failed "reads back
/// as written". LLVM 19's bytes (`tbuffer_load_format_x v5, off, s[8:11], 0.5 offset:4095`,
/// llvm/test/MC/AMDGPU/mtbuf.s and the GFX9 twin).
#[test]
fn mtbuf_float_inline_soffset_keeps_the_default_format() {
    for cpu in ["gfx802", "gfx900"] {
        assert_eq!(
            bytes(cpu, "", "tbuffer_load_format_x v5, off, s[8:11], 0.5 offset:4095").unwrap(),
            [0xff, 0x0f, 0x08, 0xe8, 0x00, 0x05, 0x02, 0xf0],
            "{cpu}"
        );
        assert_eq!(
            bytes(cpu, "", "tbuffer_store_format_xyzw v[1:4], off, s[12:15], -4.0 offset:4095")
                .unwrap(),
            [0xff, 0x8f, 0x0b, 0xe8, 0x00, 0x01, 0x03, 0xf7],
            "{cpu}"
        );
    }
    // With a format written the float still reads as the inline constant.
    let text = "tbuffer_load_format_x v5, off, s[8:11], 0.5 format:[BUF_DATA_FORMAT_16] offset:4095";
    let ours = bytes("gfx900", "", text);
    let llvm = "ff0f10e8000502f0";
    let hex = |b: Vec<u8>| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    assert_eq!(ours.map(hex).as_deref(), Ok(llvm));
}

/// Spellings read as aliases are checked against the bits, not taken on trust: a VOPD
/// `immDeferred` float that is not the K constant the other half holds, `op_sel_hi` all clear on
/// an instruction whose default is all set (wrong length too), a version above 16 bits.
#[test]
fn aliases_that_do_not_fit_are_refused() {
    for (cpu, text) in [
        ("gfx1100", "v_dual_fmaak_f32 v122, s74, v161, 2.741 :: v_dual_fmamk_f32 v3, v6, 2.5, v1"),
        ("gfx1100", "v_pk_add_i16 v5, v1, v2 op_sel_hi:[0,0,0]"),
        ("gfx1100", "s_version 0x12345"),
    ] {
        assert!(bytes(cpu, "", text).is_err(), "{cpu}: `{text}` should be refused");
    }
    // The all-clear list where it is not the default is read as written.
    assert_eq!(
        bytes("gfx1100", "", "v_pk_add_i16 v5, v1, v2 op_sel_hi:[0,0]").unwrap(),
        [0x05, 0x40, 0x02, 0xcc, 0x01, 0x05, 0x02, 0x00]
    );
}

/// Regression (random differential, gfx90a): the cache-policy word `scc` after the operands was
/// read as the register `src_scc`. LLVM 19's bytes for the text.
#[test]
fn cache_policy_scc_is_not_the_scc_register() {
    let text = "scratch_load_ushort a188, off, s26 offset:-3549 scc";
    assert_eq!(bytes("gfx90a", "", text).unwrap(), [0x23, 0x52, 0x48, 0xde, 0x00, 0x00, 0x9a, 0xbc]);
    // In operand position it is still the register (LLVM's `scc` synonym of `src_scc`).
    assert_eq!(bytes("gfx90a", "", "v_add_f32 v1, scc, v2").unwrap(), bytes("gfx90a", "", "v_add_f32 v1, src_scc, v2").unwrap());
}

/// Regression (random differential, GFX11/GFX12): the printer writes LLVM's
/// `/*Invalid register, ...*/` remark after a register; LLVM's lexer skips `/* */` comments,
/// so the text assembles (here to the VOP3 DPP form, where v203 is valid). LLVM 19's bytes.
#[test]
fn block_comments_are_skipped() {
    let text = "v_cmpx_class_f16 -v203/*Invalid register, operand has 'VGPR_32_Lo128' register class*/, v180/*Invalid register, operand has 'VGPR_32_Lo128' register class*/ row_xmask:10 row_mask:0x8 bank_mask:0x3 bound_ctrl:1";
    assert_eq!(
        bytes("gfx1100", "", text).unwrap(),
        [0x7e, 0x00, 0xfd, 0xd4, 0xfa, 0x68, 0x03, 0x20, 0xcb, 0x6a, 0x09, 0x83]
    );
    // Columns after a comment stay the line's: the error points at `v999`.
    let err = bytes("gfx1100", "", "v_mov_b32 v1, /* x */ v999").unwrap_err();
    assert_eq!(err.column, 23, "{err}");
    assert_eq!(text::code_of("s_nop 0 /* a */ ; b /* c */").trim_end(), "s_nop 0");
    assert_eq!(text::code_of("s_nop /* open"), "s_nop ");
}

/// Regression (random differential, GFX11.5/GFX12): a `BITMASK_PERM` string has several
/// encodings that print as it; the parser took one of them, LLVM's assembler its own
/// (`1` sets only the or-mask bit), which prints as `BROADCAST` when there is no `p` or `i`.
/// Bytes from llvm-mc-19.
#[test]
fn swizzle_bitmask_perm_is_encoded_as_llvm_reads_it() {
    let perm = "ds_swizzle_b32 v144, v34 offset:swizzle(BITMASK_PERM,\"01pi0\")";
    assert_eq!(bytes("gfx900", "", perm).unwrap(), [0x06, 0x09, 0x7a, 0xd8, 0x22, 0x00, 0x00, 0x90]);
    let broadcast = [0x00, 0x02, 0xd4, 0xd8, 0xef, 0x00, 0x00, 0x48];
    for text in [
        "ds_swizzle_b32 v72, v239 offset:swizzle(BITMASK_PERM,\"10000\")",
        "ds_swizzle_b32 v72, v239 offset:swizzle(BITMASK_PERM, \"10000\")",
        "ds_swizzle_b32 v72, v239 offset:swizzle(BROADCAST,32,16)",
    ] {
        assert_eq!(bytes("gfx1200", "", text).unwrap(), broadcast, "{text}");
    }
}

/// Regression (fuzz `parse_never_panics`, gfx1100): text with a non-ASCII character after a
/// float panicked on a byte offset inside the character. Non-ASCII text is an error naming its
/// column; in a comment it is fine.
#[test]
fn non_ascii_text_is_an_error_not_a_panic() {
    let text = "v_lerp_u8_e64_dpp v5, ~1, v,, 0.\u{6df}row_xmask\u{3cf} row_mask:0x1 bank_mask:0x3";
    let err = bytes("gfx1100", "", text).unwrap_err();
    assert_eq!(err.column, 33, "{err}");
    assert!(err.message.contains("unexpected character"), "{err}");
    assert_eq!(bytes("gfx900", "", "s_nop 0 // \u{e9}t\u{e9}").unwrap(), [0x00, 0x00, 0x80, 0xbf]);
}
