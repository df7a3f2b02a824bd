// cases.s -- hand-written kernels with separate shifts and ORs for the peephole pass
// (tests/peephole_fixtures.rs). One source for every target: the test assembles it with
// llvm-mc-19 -mcpu=TARGET and links it with ld.lld-19 -shared; @TARGET@ and @ACCUM@ are filled
// in by the test. Each kernel is one case; what each must become on each target is in
// tests/golden/peephole-fixtures.txt.
//
// SPDX-License-Identifier: MIT OR Apache-2.0

	.amdgcn_target "amdgcn-amd-amdhsa--@TARGET@"
	.amdhsa_code_object_version 5
	.text

	.macro	kernel name
	.globl	\name
	.p2align	8
	.type	\name,@function
\name:
	.endm

// (v2 << 4) | v4: fires from GFX9; gfx803 has no v_lshl_or_b32.
	kernel	shift_or
	v_lshlrev_b32	v1, 4, v2
	v_or_b32	v3, v1, v4
	s_endpgm

// The OR's operands the other way round, a VGPR shift count.
	kernel	shift_or_commuted
	v_lshlrev_b32	v1, v5, v2
	v_or_b32	v3, v4, v1
	s_endpgm

// An unrelated instruction in between.
	kernel	unrelated_between
	v_lshlrev_b32	v1, 4, v2
	v_mov_b32	v9, v8
	v_or_b32	v3, v1, v4
	s_endpgm

// Second use of the shift result after the OR: declined (live-after).
	kernel	second_use
	v_lshlrev_b32	v1, 4, v2
	v_or_b32	v3, v1, v4
	v_mov_b32	v9, v1
	s_endpgm

// The shift result read between the shift and the OR: declined (intermediate-read).
	kernel	read_between
	v_lshlrev_b32	v1, 4, v2
	v_mov_b32	v9, v1
	v_or_b32	v3, v1, v4
	s_endpgm

// The shifted value redefined between the shift and the OR: declined (input-redefined).
	kernel	redefined_between
	v_lshlrev_b32	v1, 4, v2
	v_mov_b32	v2, 0
	v_or_b32	v3, v1, v4
	s_endpgm

// Two different SGPRs: one constant-bus read before GFX10, two from GFX10.
	kernel	two_sgprs
	v_lshlrev_b32	v1, s0, v2
	v_or_b32	v3, s1, v1
	s_endpgm

// A literal OR operand: VOP3 literals only from GFX10.
	kernel	literal
	v_lshlrev_b32	v1, 4, v2
	v_or_b32	v3, 0x1234, v1
	s_endpgm

// The OR reads the shift through DPP: declined (dpp).
	kernel	dpp_source
	v_lshlrev_b32	v1, 4, v2
	v_or_b32_dpp	v3, v1, v4 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
	s_endpgm

// The shift result is overwritten whole (same EXEC) before it is read again: dead, fires.
	kernel	overwritten_later
	v_lshlrev_b32	v1, 4, v2
	v_or_b32	v3, v1, v4
	v_mov_b32	v1, 0
	v_mov_b32	v9, v1
	s_endpgm

// The same, but EXEC changes before the overwrite: the overwrite may cover other lanes, so
// the old value may be read: declined (live-after).
	kernel	exec_changed_before_overwrite
	v_lshlrev_b32	v1, 4, v2
	v_or_b32	v3, v1, v4
	s_mov_b64	exec, -1
	v_mov_b32	v1, 0
	v_mov_b32	v9, v1
	s_endpgm

// The shift result is read in a successor block: declined (live-after, from the CFG).
	kernel	read_in_successor
	v_lshlrev_b32	v1, 4, v2
	v_or_b32	v3, v1, v4
	s_cmp_eq_u32	s0, 0
	s_cbranch_scc1	.Lread_skip
	v_mov_b32	v9, v1
.Lread_skip:
	s_endpgm

// Successor blocks read only the OR's result: fires.
	kernel	dead_in_successor
	v_lshlrev_b32	v1, 4, v2
	v_or_b32	v3, v1, v4
	s_cmp_eq_u32	s0, 0
	s_cbranch_scc1	.Ldead_skip
	v_mov_b32	v9, v3
.Ldead_skip:
	s_endpgm

// GFX9 wait state: v_readlane needs 4 wait states after a VALU write of its lane select
// (v_readfirstlane writes s10). Shift, s_nop 1 and OR give exactly 4; without the shift 3,
// so on GFX9 the shift becomes s_nop 0 instead of disappearing.
	kernel	wait_state
	v_readfirstlane_b32	s10, v0
	v_lshlrev_b32	v1, 4, v2
	s_nop	1
	v_or_b32	v3, v1, v4
	v_readlane_b32	s12, v7, s10
	s_endpgm

// The family, same spelling on every generation: (a & b) | c (v_and_or_b32 from GFX9),
// a | b | c (v_or3_b32 from GFX9), a ^ b ^ c (v_xor3_b32 from GFX10), and the SALU
// (a << 2) + b into s_lshl2_add_u32 (GFX9+; SCC and the shifted value dead).
	kernel	and_or
	v_and_b32	v1, v2, v5
	v_or_b32	v3, v1, v4
	s_endpgm

	kernel	or3
	v_or_b32	v1, v2, v5
	v_or_b32	v3, v4, v1
	s_endpgm

	kernel	xor3
	v_xor_b32	v1, v2, v5
	v_xor_b32	v3, v1, v4
	s_endpgm

	kernel	salu_lshl2_add
	s_lshl_b32	s2, s3, 2
	s_add_u32	s4, s2, s5
	v_mov_b32	v0, s4
	s_endpgm

// The shifted SGPR is read again: declined (live-after).
	kernel	salu_shift_read_again
	s_lshl_b32	s2, s3, 2
	s_add_u32	s4, s2, s5
	v_mov_b32	v0, s2
	s_endpgm

	.rodata
	.p2align	6
	.irp	name, shift_or, shift_or_commuted, unrelated_between, second_use, read_between, redefined_between, two_sgprs, literal, dpp_source, overwritten_later, exec_changed_before_overwrite, read_in_successor, dead_in_successor, wait_state, and_or, or3, xor3, salu_lshl2_add, salu_shift_read_again
	.amdhsa_kernel \name
		.amdhsa_next_free_vgpr 16
		.amdhsa_next_free_sgpr 16
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		@ACCUM@
	.end_amdhsa_kernel
	.endr
