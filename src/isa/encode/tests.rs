use super::*;
use crate::isa::table::find_record;
use crate::isa::Decoder;

fn hex(bytes: &[u8]) -> Vec<u8> {
    bytes.to_vec()
}

/// An operand list for `record` by operand name; unnamed operands are `Imm(0)`, tied operands
/// repeat their partner.
fn by_hand(record: &'static Encoding, values: &[(OperandName, Value)]) -> Operands {
    let mut ops = Operands::new();
    for operand in record.operands {
        let named = |n: OperandName| values.iter().find(|(name, _)| *name == n).map(|&(_, v)| v);
        let value = named(operand.name).or_else(|| operand.tied_to.and_then(named)).unwrap_or(Value::Imm(0));
        ops.push(Op { name: operand.name, class: operand.class, value }).unwrap();
    }
    ops
}

fn target(name: &str, mattr: &str) -> Target {
    Target::from_name(name, mattr).unwrap()
}

/// decode -> encode is the identity on `bytes`, canonically and like the template.
fn round_trip(t: &Target, bytes: &[u8]) -> Inst {
    let inst = Decoder::new(*t).decode(bytes);
    let e = inst.encoding().unwrap_or_else(|| panic!("{bytes:02x?} does not decode on {t}"));
    let ops = decode_operands(e, inst.encoded_bits(), &inst.bytes()[inst.tail_at()..], t).unwrap();
    assert_eq!(encode_like(&inst, &ops, t), Ok(inst), "encode_like on {t}");
    let canonical = encode(e, &ops, t).unwrap();
    assert_eq!(canonical.bytes(), inst.bytes(), "canonical encode on {t}");
    inst
}

const VGPR: fn(u16) -> Value = |index| Value::Reg(Reg::Vgpr { index, count: 1 });

#[test]
fn seed_v_lshl_or_b32_on_each_generation() {
    let cases = [
        ("gfx900", "V_LSHL_OR_B32_vi", [0x05, 0x00, 0x00, 0xd2, 0x01, 0x05, 0x0e, 0x00]),
        ("gfx90a", "V_LSHL_OR_B32_vi", [0x05, 0x00, 0x00, 0xd2, 0x01, 0x05, 0x0e, 0x00]),
        ("gfx1030", "V_LSHL_OR_B32_gfx10", [0x05, 0x00, 0x6f, 0xd7, 0x01, 0x05, 0x0e, 0x00]),
        ("gfx1100", "V_LSHL_OR_B32_e64_gfx11", [0x05, 0x00, 0x56, 0xd6, 0x01, 0x05, 0x0e, 0x00]),
        ("gfx1200", "V_LSHL_OR_B32_e64_gfx12", [0x05, 0x00, 0x56, 0xd6, 0x01, 0x05, 0x0e, 0x00]),
    ];
    for (cpu, record, bytes) in cases {
        let t = target(cpu, "");
        round_trip(&t, &bytes);
        let record = find_record(19, record).unwrap_or_else(|| panic!("no record {record}"));
        let ops = by_hand(
            record,
            &[
                (OperandName::vdst, VGPR(5)),
                (OperandName::src0, VGPR(1)),
                (OperandName::src1, VGPR(2)),
                (OperandName::src2, Value::Reg(Reg::Sgpr { index: 3, count: 1 })),
            ],
        );
        assert_eq!(encode(record, &ops, &t).unwrap().bytes(), hex(&bytes), "{cpu}");
    }
}

#[test]
fn seed_v_cmp_le_i64_on_each_generation() {
    let cases = [
        ("gfx900", "", [0xc1, 0x04, 0xc6, 0x7d]),
        ("gfx1030", "+wavefrontsize64", [0xc1, 0x04, 0x46, 0x7d]),
        ("gfx1100", "+wavefrontsize64", [0xc1, 0x04, 0xa6, 0x7c]),
    ];
    for (cpu, mattr, bytes) in cases {
        let t = target(cpu, mattr);
        let inst = round_trip(&t, &bytes);
        let record = inst.encoding().unwrap();
        let ops = by_hand(
            record,
            &[(OperandName::src0, Value::InlineInt(-1)), (OperandName::src1, Value::Reg(Reg::Vgpr { index: 2, count: 2 }))],
        );
        assert_eq!(encode(record, &ops, &t).unwrap().bytes(), hex(&bytes), "{cpu}");
    }
}

#[test]
fn literals_follow_the_encoding() {
    // v_add_u32 v1, 0x12345678, v2 (gfx900 VOP2 with a literal).
    let t = target("gfx900", "");
    round_trip(&t, &[0xff, 0x04, 0x02, 0x68, 0x78, 0x56, 0x34, 0x12]);
}

/// `v_cmpx_le_u32_e64 s0, v1` on gfx1030 as LLVM 19 writes it (0x7e in the destination byte
/// the hardware ignores) and as Debian's clang 15 did (0).
const CMPX_LLVM: [u8; 8] = [0x7e, 0x00, 0xd3, 0xd4, 0x00, 0x02, 0x02, 0x00];
const CMPX_CLANG15: [u8; 8] = [0x00, 0x00, 0xd3, 0xd4, 0x00, 0x02, 0x02, 0x00];
const CLANG15: Conventions = Conventions { vcmpx_e64_dst: 0 };

#[test]
fn canonical_cmpx_writes_exec_lo_where_rocm_wrote_zero() {
    let t = target("gfx1030", "");
    let decoder = Decoder::new(t);
    let inst = decoder.decode(&CMPX_CLANG15);
    let e = inst.encoding().unwrap();
    let ops = decode_operands(e, inst.encoded_bits(), &[], &t).unwrap();
    assert_eq!(encode_like(&inst, &ops, &t).unwrap().bytes(), CMPX_CLANG15);
    assert_eq!(encode(e, &ops, &t).unwrap().bytes(), CMPX_LLVM);
    assert_eq!(encode_with(e, &ops, &t, &CLANG15).unwrap().bytes(), CMPX_CLANG15);
}

#[test]
fn conventions_are_observed_only_where_every_instruction_agrees() {
    let t = target("gfx1030", "");
    let decoder = Decoder::new(t);
    let clang15 = decoder.decode(&CMPX_CLANG15);
    let llvm = decoder.decode(&CMPX_LLVM);
    // s_mov_b32 s0, s1: no convention concerns it.
    let other = decoder.decode(&[0x01, 0x03, 0x80, 0xbe]);
    let observe = |insts: &[&Inst]| {
        let mut observer = Observer::new(t);
        insts.iter().for_each(|i| observer.see(i));
        (observer.conventions(), observer.mixed())
    };
    assert_eq!(observe(&[]), (Conventions::LLVM, false));
    assert_eq!(observe(&[&other]), (Conventions::LLVM, false));
    assert_eq!(observe(&[&clang15, &other, &clang15]), (CLANG15, false));
    assert_eq!(observe(&[&llvm]), (Conventions::LLVM, false));
    // Disagreement is no evidence either way: LLVM's, and said so.
    assert_eq!(observe(&[&clang15, &llvm]), (Conventions::LLVM, true));
    // Before GFX10 the VOP3 compare's destination is an operand: nothing to observe.
    let t9 = target("gfx900", "");
    let mut observer = Observer::new(t9);
    // v_cmpx_le_i32_e64 s[0:1], s0, v1 on gfx900.
    observer.see(&Decoder::new(t9).decode(&[0x00, 0x00, 0xd3, 0xd0, 0x00, 0x02, 0x02, 0x00]));
    assert_eq!((observer.conventions(), observer.mixed()), (Conventions::LLVM, false));
}

#[test]
fn the_parser_fills_unprinted_bits_by_its_conventions() {
    let t = target("gfx1030", "");
    let text = "v_cmpx_le_u32_e64 s0, v1";
    assert_eq!(crate::isa::parse::Parser::new(t).parse(text).unwrap().inst.bytes(), CMPX_LLVM);
    let parser = crate::isa::parse::Parser::with_conventions(t, CLANG15);
    assert_eq!(parser.parse(text).unwrap().inst.bytes(), CMPX_CLANG15);
    // Bits an operand carries are the text's, whatever the conventions.
    assert_eq!(parser.parse("s_mov_b32 s0, s1").unwrap().inst.bytes(), [0x01, 0x03, 0x80, 0xbe]);
}

#[test]
fn errors_name_the_operand() {
    let t = target("gfx900", "");
    let record = find_record(19, "V_LSHL_OR_B32_vi").unwrap();
    let base = [
        (OperandName::vdst, VGPR(5)),
        (OperandName::src0, VGPR(1)),
        (OperandName::src1, VGPR(2)),
        (OperandName::src2, Value::Reg(Reg::Sgpr { index: 3, count: 1 })),
    ];
    // A literal has no room in a gfx9 VOP3.
    let mut ops = base;
    ops[1].1 = Value::Literal(0x1234_5678);
    let err = encode(record, &by_hand(record, &ops), &t).unwrap_err();
    assert_eq!(err, EncodeError::LiteralNotAllowed { operand: OperandName::src0 });
    assert!(err.to_string().contains("src0"), "{err}");
    // vdst takes VGPRs only.
    let mut ops = base;
    ops[0].1 = Value::Reg(Reg::Sgpr { index: 1, count: 1 });
    assert!(matches!(encode(record, &by_hand(record, &ops), &t), Err(EncodeError::NotEncodable { operand: OperandName::vdst, .. })));
    // An integer outside -16..=64 is not an inline constant.
    let mut ops = base;
    ops[2].1 = Value::InlineInt(65);
    assert!(matches!(encode(record, &by_hand(record, &ops), &t), Err(EncodeError::NotEncodable { operand: OperandName::src1, .. })));
    // A gfx11 record is not a gfx9 instruction.
    let gfx11 = find_record(19, "V_LSHL_OR_B32_e64_gfx11").unwrap();
    assert!(matches!(encode(gfx11, &by_hand(gfx11, &base), &t), Err(EncodeError::NotOnTarget { .. })));
}

#[test]
fn immediates_wider_than_their_field_overflow() {
    // s_movk_i32 s1, 0x1234 (SOPK, 16-bit simm16).
    let t = target("gfx900", "");
    let inst = round_trip(&t, &[0x34, 0x12, 0x01, 0xb0]);
    let e = inst.encoding().unwrap();
    let mut ops = decode_operands(e, inst.encoded_bits(), &[], &t).unwrap();
    let name = e.operands.iter().find(|o| matches!(method_of(o.class), Method::Imm)).unwrap().name;
    let at = e.operand_index(name).unwrap();
    let mut rebuilt = Operands::new();
    for (i, op) in ops.as_slice().iter().enumerate() {
        let value = if i == at { Value::Imm(0x1_0000) } else { op.value };
        rebuilt.push(Op { value, ..*op }).unwrap();
    }
    ops = rebuilt;
    assert_eq!(encode(e, &ops, &t), Err(EncodeError::FieldOverflow { operand: name, value: 0x1_0000, bits: 16 }));
}
