//! Texts for instructions whose record in every AMD table is unusable, typed in by hand: the
//! one list of hand-entered semantics, read by the emulator (`crate::emu::ops`) and the
//! peephole rule prover (`crate::pass::peephole::meaning`) alike, so both give an instruction
//! the same meaning.
//!
//! AMD's machine-readable tables store one text per opcode number (see
//! [`crate::isa::semantics`]), so almost no SALU instruction has a text of its own: `S_AND_B32`,
//! `S_MOV_B32`, `S_CSELECT_B32` all carry a VOPC compare's or a buffer load's. The texts below
//! are AMD's, from the RDNA3.5 ISA reference guide (sections "SOP1", "SOP2", "SOPC", "SOPK"),
//! in the evaluator's machine subset; GFX9's names for the same operations (Vega ISA guide:
//! `S_ANDN2_B64` is RDNA's `S_AND_NOT1_B64`) map to the same text. They are used only when no
//! table has a text that is the instruction's own and fits its encoding, and every use is
//! reported as transcribed (the emulator's `Origin::Transcribed`, the prover's `Source::Transcribed`).
//!
//! The host-reference tests (`tests/emulate.rs`) run these on both generations.

/// `(AMD name, text)`.
pub const TEXTS: &[(&str, &str)] = &[
    // GFX11.5's scalar float ALU (RDNA3.5 ISA guide, SOP2, SOPC and SOP1).
    ("S_ADD_F32", "D0.f32 = S0.f32 + S1.f32"),
    ("S_SUB_F32", "D0.f32 = S0.f32 - S1.f32"),
    ("S_MUL_F32", "D0.f32 = S0.f32 * S1.f32"),
    ("S_FMAC_F32", "D0.f32 = fma(S0.f32, S1.f32, D0.f32)"),
    ("S_CVT_F32_I32", "D0.f32 = i32_to_f32(S0.i32)"),
    ("S_CVT_F32_U32", "D0.f32 = u32_to_f32(S0.u32)"),
    ("S_CVT_I32_F32", "D0.i32 = f32_to_i32(S0.f32)"),
    ("S_CVT_U32_F32", "D0.u32 = f32_to_u32(S0.f32)"),
    ("S_CMP_LT_F32", "SCC = S0.f32 < S1.f32"),
    ("S_CMP_EQ_F32", "SCC = S0.f32 == S1.f32"),
    ("S_CMP_LE_F32", "SCC = S0.f32 <= S1.f32"),
    ("S_CMP_GT_F32", "SCC = S0.f32 > S1.f32"),
    ("S_CMP_LG_F32", "SCC = S0.f32 <> S1.f32"),
    ("S_CMP_GE_F32", "SCC = S0.f32 >= S1.f32"),
    ("S_CMP_O_F32", "SCC = (!isNAN(64'F(S0.f32)) && !isNAN(64'F(S1.f32)))"),
    ("S_CMP_U_F32", "SCC = (isNAN(64'F(S0.f32)) || isNAN(64'F(S1.f32)))"),
    ("S_CMP_NGE_F32", "SCC = !(S0.f32 >= S1.f32)"),
    ("S_CMP_NLG_F32", "SCC = !(S0.f32 <> S1.f32)"),
    ("S_CMP_NGT_F32", "SCC = !(S0.f32 > S1.f32)"),
    ("S_CMP_NLE_F32", "SCC = !(S0.f32 <= S1.f32)"),
    ("S_CMP_NEQ_F32", "SCC = !(S0.f32 == S1.f32)"),
    ("S_CMP_NLT_F32", "SCC = !(S0.f32 < S1.f32)"),
    // Integer dot products (CDNA3 ISA guide, VOP3P; RDNA3.5's V_DOT4_U32_U8, V_DOT8_U32_U4):
    // the tables store other instructions' texts at these opcodes. S2 is the 32-bit
    // accumulator; the products are exact, the sum wraps (clamp, which saturates, stops).
    ("V_DOT2_I32_I16", "tmp = S2.i32;\ntmp += i16_to_i32(S0[15 : 0].i16) * i16_to_i32(S1[15 : 0].i16);\ntmp += i16_to_i32(S0[31 : 16].i16) * i16_to_i32(S1[31 : 16].i16);\nD0.i32 = tmp"),
    ("V_DOT2_U32_U16", "tmp = S2.u32;\ntmp += u16_to_u32(S0[15 : 0].u16) * u16_to_u32(S1[15 : 0].u16);\ntmp += u16_to_u32(S0[31 : 16].u16) * u16_to_u32(S1[31 : 16].u16);\nD0.u32 = tmp"),
    ("V_DOT4_I32_I8", "tmp = S2.i32;\ntmp += i8_to_i32(S0[7 : 0].i8) * i8_to_i32(S1[7 : 0].i8);\ntmp += i8_to_i32(S0[15 : 8].i8) * i8_to_i32(S1[15 : 8].i8);\ntmp += i8_to_i32(S0[23 : 16].i8) * i8_to_i32(S1[23 : 16].i8);\ntmp += i8_to_i32(S0[31 : 24].i8) * i8_to_i32(S1[31 : 24].i8);\nD0.i32 = tmp"),
    ("V_DOT4_U32_U8", "tmp = S2.u32;\ntmp += u8_to_u32(S0[7 : 0].u8) * u8_to_u32(S1[7 : 0].u8);\ntmp += u8_to_u32(S0[15 : 8].u8) * u8_to_u32(S1[15 : 8].u8);\ntmp += u8_to_u32(S0[23 : 16].u8) * u8_to_u32(S1[23 : 16].u8);\ntmp += u8_to_u32(S0[31 : 24].u8) * u8_to_u32(S1[31 : 24].u8);\nD0.u32 = tmp"),
    ("V_DOT8_I32_I4", "tmp = S2.i32;\ntmp += i4_to_i32(S0[3 : 0].i4) * i4_to_i32(S1[3 : 0].i4);\ntmp += i4_to_i32(S0[7 : 4].i4) * i4_to_i32(S1[7 : 4].i4);\ntmp += i4_to_i32(S0[11 : 8].i4) * i4_to_i32(S1[11 : 8].i4);\ntmp += i4_to_i32(S0[15 : 12].i4) * i4_to_i32(S1[15 : 12].i4);\ntmp += i4_to_i32(S0[19 : 16].i4) * i4_to_i32(S1[19 : 16].i4);\ntmp += i4_to_i32(S0[23 : 20].i4) * i4_to_i32(S1[23 : 20].i4);\ntmp += i4_to_i32(S0[27 : 24].i4) * i4_to_i32(S1[27 : 24].i4);\ntmp += i4_to_i32(S0[31 : 28].i4) * i4_to_i32(S1[31 : 28].i4);\nD0.i32 = tmp"),
    ("V_DOT8_U32_U4", "tmp = S2.u32;\ntmp += u4_to_u32(S0[3 : 0].u4) * u4_to_u32(S1[3 : 0].u4);\ntmp += u4_to_u32(S0[7 : 4].u4) * u4_to_u32(S1[7 : 4].u4);\ntmp += u4_to_u32(S0[11 : 8].u4) * u4_to_u32(S1[11 : 8].u4);\ntmp += u4_to_u32(S0[15 : 12].u4) * u4_to_u32(S1[15 : 12].u4);\ntmp += u4_to_u32(S0[19 : 16].u4) * u4_to_u32(S1[19 : 16].u4);\ntmp += u4_to_u32(S0[23 : 20].u4) * u4_to_u32(S1[23 : 20].u4);\ntmp += u4_to_u32(S0[27 : 24].u4) * u4_to_u32(S1[27 : 24].u4);\ntmp += u4_to_u32(S0[31 : 28].u4) * u4_to_u32(S1[31 : 28].u4);\nD0.u32 = tmp"),
    // CDNA's packed f32 math (CDNA3 ISA guide, VOP3P); op_sel is applied to the sources
    // before the text runs (`crate::emu::ops::Alu::packed`).
    ("V_PK_ADD_F32", "declare tmp : 64'B;\ntmp[31 : 0].f32 = S0[31 : 0].f32 + S1[31 : 0].f32;\ntmp[63 : 32].f32 = S0[63 : 32].f32 + S1[63 : 32].f32;\nD0.b64 = tmp"),
    ("V_PK_MUL_F32", "declare tmp : 64'B;\ntmp[31 : 0].f32 = S0[31 : 0].f32 * S1[31 : 0].f32;\ntmp[63 : 32].f32 = S0[63 : 32].f32 * S1[63 : 32].f32;\nD0.b64 = tmp"),
    ("V_PK_FMA_F32", "declare tmp : 64'B;\ntmp[31 : 0].f32 = fma(S0[31 : 0].f32, S1[31 : 0].f32, S2[31 : 0].f32);\ntmp[63 : 32].f32 = fma(S0[63 : 32].f32, S1[63 : 32].f32, S2[63 : 32].f32);\nD0.b64 = tmp"),
    // Mixed-precision FMA (RDNA3.5 ISA guide, VOP3P; also gfx906+ and CDNA): each source is
    // an f32, or an f16 widened to f32, as op_sel_hi/op_sel say; that selection and the
    // modifiers are applied before the text runs (`crate::emu::ops::Alu::mix`), so the text
    // is the guide's last statement on f32 inputs. MIXLO/MIXHI round the f32 result to f16
    // and keep the other half of the register.
    ("V_FMA_MIX_F32", "D0.f32 = fma(S0.f32, S1.f32, S2.f32)"),
    // The guide's `D0[15 : 0].f16 = ...` as a 16-bit write (the emulator keeps the high
    // half), and `D0[31 : 16].f16 = ...` through a temporary holding D0's low half.
    ("V_FMA_MIXLO_F16", "D0.f16 = f32_to_f16(fma(S0.f32, S1.f32, S2.f32))"),
    ("V_FMA_MIXHI_F16", "tmp = D0.b32;\ntmp[31 : 16].f16 = f32_to_f16(fma(S0.f32, S1.f32, S2.f32));\nD0.b32 = tmp.b32"),
    // AMD's text (RDNA3.5 ISA guide, VOP2/VOP3; CDNA's V_CVT_PKRTZ_F16_F32) but for its
    // untyped `D0 = tmp.b32`, which the subset reads only with a type.
    ("V_CVT_PK_RTZ_F16_F32", CVT_PK_RTZ),
    ("V_CVT_PKRTZ_F16_F32", CVT_PK_RTZ),
    // GFX9's half pack (CDNA3 ISA guide, VOP3: `D0[31 : 16].f16 = S1.f16; D0[15 : 0].f16 =
    // S0.f16`), the halves gathered in a temporary.
    ("V_PACK_B32_F16", "tmp[15 : 0].f16 = S0.f16;\ntmp[31 : 16].f16 = S1.f16;\nD0.b32 = tmp.b32"),
    ("S_MOV_B32", "D0.b32 = S0.b32"),
    // GFX940's 64-bit VALU move (CDNA3 ISA guide, VOP1).
    ("V_MOV_B64", "D0.b64 = S0.b64"),
    ("S_MOV_B64", "D0.b64 = S0.b64"),
    ("S_CMOV_B32", "D0.b32 = SCC ? S0.b32 : D0.b32"),
    ("S_CMOV_B64", "D0.b64 = SCC ? S0.b64 : D0.b64"),
    ("S_MOVK_I32", "D0.i32 = 32'I(signext(S0.i16))"),
    ("S_CMOVK_I32", "D0.i32 = SCC ? 32'I(signext(S0.i16)) : D0.i32"),
    ("S_NOT_B32", "D0.u32 = ~S0.u32;\nSCC = D0.u32 != 0U"),
    ("S_NOT_B64", "D0.u64 = ~S0.u64;\nSCC = D0.u64 != 0ULL"),
    ("S_AND_B32", "D0.u32 = (S0.u32 & S1.u32);\nSCC = D0.u32 != 0U"),
    ("S_AND_B64", "D0.u64 = (S0.u64 & S1.u64);\nSCC = D0.u64 != 0ULL"),
    ("S_OR_B32", "D0.u32 = (S0.u32 | S1.u32);\nSCC = D0.u32 != 0U"),
    ("S_OR_B64", "D0.u64 = (S0.u64 | S1.u64);\nSCC = D0.u64 != 0ULL"),
    ("S_XOR_B32", "D0.u32 = (S0.u32 ^ S1.u32);\nSCC = D0.u32 != 0U"),
    ("S_XOR_B64", "D0.u64 = (S0.u64 ^ S1.u64);\nSCC = D0.u64 != 0ULL"),
    ("S_AND_NOT1_B32", "D0.u32 = (S0.u32 & ~S1.u32);\nSCC = D0.u32 != 0U"),
    ("S_ANDN2_B32", "D0.u32 = (S0.u32 & ~S1.u32);\nSCC = D0.u32 != 0U"),
    ("S_AND_NOT1_B64", "D0.u64 = (S0.u64 & ~S1.u64);\nSCC = D0.u64 != 0ULL"),
    ("S_ANDN2_B64", "D0.u64 = (S0.u64 & ~S1.u64);\nSCC = D0.u64 != 0ULL"),
    ("S_OR_NOT1_B32", "D0.u32 = (S0.u32 | ~S1.u32);\nSCC = D0.u32 != 0U"),
    ("S_ORN2_B32", "D0.u32 = (S0.u32 | ~S1.u32);\nSCC = D0.u32 != 0U"),
    ("S_OR_NOT1_B64", "D0.u64 = (S0.u64 | ~S1.u64);\nSCC = D0.u64 != 0ULL"),
    ("S_ORN2_B64", "D0.u64 = (S0.u64 | ~S1.u64);\nSCC = D0.u64 != 0ULL"),
    ("S_NAND_B32", "D0.u32 = ~(S0.u32 & S1.u32);\nSCC = D0.u32 != 0U"),
    ("S_NOR_B32", "D0.u32 = ~(S0.u32 | S1.u32);\nSCC = D0.u32 != 0U"),
    ("S_XNOR_B32", "D0.u32 = ~(S0.u32 ^ S1.u32);\nSCC = D0.u32 != 0U"),
    ("S_AND_SAVEEXEC_B32", "saveexec = EXEC.u32;\nEXEC.u32 = (S0.u32 & EXEC.u32);\nD0.u32 = saveexec.u32;\nSCC = EXEC.u32 != 0U"),
    ("S_AND_SAVEEXEC_B64", "saveexec = EXEC.u64;\nEXEC.u64 = (S0.u64 & EXEC.u64);\nD0.u64 = saveexec.u64;\nSCC = EXEC.u64 != 0ULL"),
    ("S_OR_SAVEEXEC_B32", "saveexec = EXEC.u32;\nEXEC.u32 = (S0.u32 | EXEC.u32);\nD0.u32 = saveexec.u32;\nSCC = EXEC.u32 != 0U"),
    ("S_OR_SAVEEXEC_B64", "saveexec = EXEC.u64;\nEXEC.u64 = (S0.u64 | EXEC.u64);\nD0.u64 = saveexec.u64;\nSCC = EXEC.u64 != 0ULL"),
    ("S_XOR_SAVEEXEC_B32", "saveexec = EXEC.u32;\nEXEC.u32 = (S0.u32 ^ EXEC.u32);\nD0.u32 = saveexec.u32;\nSCC = EXEC.u32 != 0U"),
    ("S_XOR_SAVEEXEC_B64", "saveexec = EXEC.u64;\nEXEC.u64 = (S0.u64 ^ EXEC.u64);\nD0.u64 = saveexec.u64;\nSCC = EXEC.u64 != 0ULL"),
    ("S_AND_NOT1_SAVEEXEC_B32", "saveexec = EXEC.u32;\nEXEC.u32 = (S0.u32 & ~EXEC.u32);\nD0.u32 = saveexec.u32;\nSCC = EXEC.u32 != 0U"),
    ("S_ANDN2_SAVEEXEC_B32", "saveexec = EXEC.u32;\nEXEC.u32 = (S0.u32 & ~EXEC.u32);\nD0.u32 = saveexec.u32;\nSCC = EXEC.u32 != 0U"),
    ("S_ANDN2_SAVEEXEC_B64", "saveexec = EXEC.u64;\nEXEC.u64 = (S0.u64 & ~EXEC.u64);\nD0.u64 = saveexec.u64;\nSCC = EXEC.u64 != 0ULL"),
    ("S_AND_NOT1_SAVEEXEC_B64", "saveexec = EXEC.u64;\nEXEC.u64 = (S0.u64 & ~EXEC.u64);\nD0.u64 = saveexec.u64;\nSCC = EXEC.u64 != 0ULL"),
    ("S_ADD_U32", "tmp = 64'U(S0.u32) + 64'U(S1.u32);\nSCC = tmp >= 0x100000000ULL ? 1'1U : 1'0U;\nD0.u32 = tmp.u32"),
    ("S_ADDC_U32", "tmp = 64'U(S0.u32) + 64'U(S1.u32) + SCC.u64;\nSCC = tmp >= 0x100000000ULL ? 1'1U : 1'0U;\nD0.u32 = tmp.u32"),
    ("S_SUB_U32", "tmp = S0.u32 - S1.u32;\nSCC = S1.u32 > S0.u32 ? 1'1U : 1'0U;\nD0.u32 = tmp.u32"),
    ("S_SUBB_U32", "tmp = S0.u32 - S1.u32 - SCC.u32;\nSCC = 64'U(S1.u32) + SCC.u64 > 64'U(S0.u32) ? 1'1U : 1'0U;\nD0.u32 = tmp.u32"),
    // GFX12 names of the same operations (RDNA4 ISA guide, SOP2).
    ("S_ADD_CO_U32", "tmp = 64'U(S0.u32) + 64'U(S1.u32);\nSCC = tmp >= 0x100000000ULL ? 1'1U : 1'0U;\nD0.u32 = tmp.u32"),
    ("S_ADD_CO_CI_U32", "tmp = 64'U(S0.u32) + 64'U(S1.u32) + SCC.u64;\nSCC = tmp >= 0x100000000ULL ? 1'1U : 1'0U;\nD0.u32 = tmp.u32"),
    ("S_SUB_CO_U32", "tmp = S0.u32 - S1.u32;\nSCC = S1.u32 > S0.u32 ? 1'1U : 1'0U;\nD0.u32 = tmp.u32"),
    ("S_SUB_CO_CI_U32", "tmp = S0.u32 - S1.u32 - SCC.u32;\nSCC = 64'U(S1.u32) + SCC.u64 > 64'U(S0.u32) ? 1'1U : 1'0U;\nD0.u32 = tmp.u32"),
    ("S_ADD_NC_U64", "D0.u64 = S0.u64 + S1.u64"),
    ("S_SUB_NC_U64", "D0.u64 = S0.u64 - S1.u64"),
    ("S_MUL_U64", "D0.u64 = S0.u64 * S1.u64"),
    ("S_ADD_CO_I32", "tmp = S0.i32 + S1.i32;\nSCC = ((S0.u32[31] == S1.u32[31]) && (S0.u32[31] != tmp.u32[31]));\nD0.i32 = tmp.i32"),
    ("S_SUB_CO_I32", "tmp = S0.i32 - S1.i32;\nSCC = ((S0.u32[31] != S1.u32[31]) && (S0.u32[31] != tmp.u32[31]));\nD0.i32 = tmp.i32"),
    ("S_ADD_I32", "tmp = S0.i32 + S1.i32;\nSCC = ((S0.u32[31] == S1.u32[31]) && (S0.u32[31] != tmp.u32[31]));\nD0.i32 = tmp.i32"),
    ("S_SUB_I32", "tmp = S0.i32 - S1.i32;\nSCC = ((S0.u32[31] != S1.u32[31]) && (S0.u32[31] != tmp.u32[31]));\nD0.i32 = tmp.i32"),
    ("S_ADDK_I32", "tmp = S0.i32 + 32'I(signext(S1.i16));\nSCC = ((S0.u32[31] == S1.u16[15]) && (S0.u32[31] != tmp.u32[31]));\nD0.i32 = tmp.i32"),
    ("S_MULK_I32", "D0.i32 = S0.i32 * 32'I(signext(S1.i16))"),
    ("S_MUL_I32", "D0.i32 = S0.i32 * S1.i32"),
    ("S_MUL_HI_U32", "D0.u32 = 32'U((64'U(S0.u32) * 64'U(S1.u32)) >> 32U)"),
    ("S_LSHL_B32", "D0.u32 = (S0.u32 << S1[4 : 0].u32);\nSCC = D0.u32 != 0U"),
    ("S_LSHL_B64", "D0.u64 = (S0.u64 << S1[5 : 0].u32);\nSCC = D0.u64 != 0ULL"),
    ("S_LSHR_B32", "D0.u32 = (S0.u32 >> S1[4 : 0].u32);\nSCC = D0.u32 != 0U"),
    ("S_LSHR_B64", "D0.u64 = (S0.u64 >> S1[5 : 0].u32);\nSCC = D0.u64 != 0ULL"),
    ("S_ASHR_I32", "D0.i32 = (S0.i32 >> S1[4 : 0].u32);\nSCC = D0.i32 != 0"),
    ("S_ASHR_I64", "D0.i64 = (S0.i64 >> S1[5 : 0].u32);\nSCC = D0.i64 != 0LL"),
    ("S_LSHL1_ADD_U32", "tmp = (64'U(S0.u32) << 1U) + 64'U(S1.u32);\nSCC = tmp >= 0x100000000ULL ? 1'1U : 1'0U;\nD0.u32 = tmp.u32"),
    ("S_LSHL2_ADD_U32", "tmp = (64'U(S0.u32) << 2U) + 64'U(S1.u32);\nSCC = tmp >= 0x100000000ULL ? 1'1U : 1'0U;\nD0.u32 = tmp.u32"),
    ("S_LSHL3_ADD_U32", "tmp = (64'U(S0.u32) << 3U) + 64'U(S1.u32);\nSCC = tmp >= 0x100000000ULL ? 1'1U : 1'0U;\nD0.u32 = tmp.u32"),
    ("S_LSHL4_ADD_U32", "tmp = (64'U(S0.u32) << 4U) + 64'U(S1.u32);\nSCC = tmp >= 0x100000000ULL ? 1'1U : 1'0U;\nD0.u32 = tmp.u32"),
    ("S_MIN_U32", "SCC = S0.u32 < S1.u32;\nD0.u32 = SCC ? S0.u32 : S1.u32"),
    ("S_MIN_I32", "SCC = S0.i32 < S1.i32;\nD0.i32 = SCC ? S0.i32 : S1.i32"),
    ("S_MAX_U32", "SCC = S0.u32 > S1.u32;\nD0.u32 = SCC ? S0.u32 : S1.u32"),
    ("S_MAX_I32", "SCC = S0.i32 > S1.i32;\nD0.i32 = SCC ? S0.i32 : S1.i32"),
    ("S_CSELECT_B32", "D0.u32 = SCC ? S0.u32 : S1.u32"),
    ("S_CSELECT_B64", "D0.u64 = SCC ? S0.u64 : S1.u64"),
    ("S_BFE_U32", "D0.u32 = ((S0.u32 >> S1[4 : 0].u32) & ((1U << S1[22 : 16].u32) - 1U));\nSCC = D0.u32 != 0U"),
    ("S_BREV_B32", "D0.u32 = S0.u32[0 : 31]"),
    ("S_BFM_B32", "D0.u32 = (((1U << S0[4 : 0].u32) - 1U) << S1[4 : 0].u32)"),
    ("S_SEXT_I32_I8", "D0.i32 = 32'I(signext(S0.i8))"),
    ("S_SEXT_I32_I16", "D0.i32 = 32'I(signext(S0.i16))"),
    ("S_CMP_EQ_U32", "SCC = S0.u32 == S1.u32"),
    ("S_CMP_LG_U32", "SCC = S0.u32 != S1.u32"),
    ("S_CMP_GT_U32", "SCC = S0.u32 > S1.u32"),
    ("S_CMP_GE_U32", "SCC = S0.u32 >= S1.u32"),
    ("S_CMP_LT_U32", "SCC = S0.u32 < S1.u32"),
    ("S_CMP_LE_U32", "SCC = S0.u32 <= S1.u32"),
    ("S_CMP_EQ_I32", "SCC = S0.i32 == S1.i32"),
    ("S_CMP_LG_I32", "SCC = S0.i32 != S1.i32"),
    ("S_CMP_GT_I32", "SCC = S0.i32 > S1.i32"),
    ("S_CMP_GE_I32", "SCC = S0.i32 >= S1.i32"),
    ("S_CMP_LT_I32", "SCC = S0.i32 < S1.i32"),
    ("S_CMP_LE_I32", "SCC = S0.i32 <= S1.i32"),
    ("S_CMP_EQ_U64", "SCC = S0.u64 == S1.u64"),
    ("S_CMP_LG_U64", "SCC = S0.u64 != S1.u64"),
    ("S_CMPK_EQ_U32", "SCC = S0.u32 == 32'U(S1.u16)"),
    ("S_CMPK_LG_U32", "SCC = S0.u32 != 32'U(S1.u16)"),
    ("S_CMPK_GT_U32", "SCC = S0.u32 > 32'U(S1.u16)"),
    ("S_CMPK_GE_U32", "SCC = S0.u32 >= 32'U(S1.u16)"),
    ("S_CMPK_LT_U32", "SCC = S0.u32 < 32'U(S1.u16)"),
    ("S_CMPK_LE_U32", "SCC = S0.u32 <= 32'U(S1.u16)"),
    ("S_CMPK_EQ_I32", "SCC = S0.i32 == 32'I(signext(S1.i16))"),
    ("S_CMPK_LG_I32", "SCC = S0.i32 != 32'I(signext(S1.i16))"),
    ("S_CMPK_GT_I32", "SCC = S0.i32 > 32'I(signext(S1.i16))"),
    ("S_CMPK_GE_I32", "SCC = S0.i32 >= 32'I(signext(S1.i16))"),
    ("S_CMPK_LT_I32", "SCC = S0.i32 < 32'I(signext(S1.i16))"),
    ("S_CMPK_LE_I32", "SCC = S0.i32 <= 32'I(signext(S1.i16))"),
];

const CVT_PK_RTZ: &str = "prev_mode = ROUND_MODE;\nROUND_MODE = ROUND_TOWARD_ZERO;\ntmp[15 : 0].f16 = f32_to_f16(S0.f32);\ntmp[31 : 16].f16 = f32_to_f16(S1.f32);\nD0.b32 = tmp.b32;\nROUND_MODE = prev_mode";

/// The transcribed text of AMD instruction `name`, if any.
pub fn text(name: &str) -> Option<&'static str> {
    TEXTS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Statements every table's text for an instruction leaves out, put before it.
///
/// `V_DIV_SCALE_F32/F64`: every table's text writes D0 only where it scales (or makes a NaN);
/// AMD's description of the instruction (RDNA3.5 ISA guide, VOP3SD: "...the result is the
/// source S0, scaled when ...") and LLVM's constant folding (`AMDGPU::DIV_SCALE`: the
/// unscaled result is S0) both return S0 otherwise.
pub const PREAMBLES: &[(&str, &str)] = &[("V_DIV_SCALE_F32", "D0.f32 = S0.f32"), ("V_DIV_SCALE_F64", "D0.f64 = S0.f64")];

/// `text` (a table's) with its preamble, if the instruction has one.
pub fn amend(name: &str, text: String) -> String {
    match PREAMBLES.iter().find(|(n, _)| *n == name) {
        Some((_, pre)) => format!("{pre};\n{text}"),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use crate::isa::semantics::eval::Program;

    #[test]
    fn every_transcription_parses_in_the_machine_subset() {
        for (name, text) in super::TEXTS {
            Program::parse_machine(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
