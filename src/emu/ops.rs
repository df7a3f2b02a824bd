//! What the emulator does for one encoding, decided once per encoding record: run a
//! pseudocode program (ALU), run a built-in action (memory, control flow, lane access), or
//! stop with the reason it cannot.
//!
//! An ALU instruction's text is the first that is the instruction's own (see
//! [`crate::isa::semantics`]), parses in the evaluator's machine subset and *fits* the
//! encoding (it reads no source the encoding lacks, writes the destination at its width or as a
//! lane mask, and writes SCC, VCC and EXEC exactly when the encoding defines them); tables are
//! tried nearest first, then [`crate::isa::semantics::transcribed`].

use crate::isa::info::{Family, Form, classify};
use crate::isa::operand::Operands;
use crate::isa::reg::{Reg, Special};
use crate::isa::semantics::eval::{Footprint, Program};
use crate::isa::semantics::{Arch, Pseudocode, Semantics, base_name};
use crate::isa::table::{Dir, Encoding, OperandName, implicit};
use crate::isa::Generation;

use crate::isa::semantics::transcribed;

/// Where an ALU text came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Table(Arch),
    Transcribed,
}

impl Origin {
    pub fn name(self) -> &'static str {
        match self {
            Origin::Table(a) => a.name(),
            Origin::Transcribed => "transcribed",
        }
    }
}

/// Where a VALU text's `VCC` is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VccSource {
    /// The VCC register (VOP2, VOPC).
    Vcc,
    /// An operand (index into the decoded operands): the VOP3 forms' carry-in or mask (`src2`).
    Operand(usize),
}

/// Where lane bits written to `VCC` (or `D1`) go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskDest {
    Vcc,
    Operand(usize),
}

/// An ALU instruction ready to run.
#[derive(Debug)]
pub struct Alu {
    pub program: Program,
    pub footprint: Footprint,
    pub origin: Origin,
    /// Runs once per active lane (VALU) rather than once per wave (SALU).
    pub vector: bool,
    /// Operand indices of `S0..`, with the width each is read at.
    pub sources: Vec<(usize, u8)>,
    /// The destination operand and its width.
    pub dest: Option<(usize, u8)>,
    /// Where a compare's lane mask (`D0.u64[laneId]`) goes, written after all lanes ran.
    pub mask_dest: Option<MaskDest>,
    pub vcc_in: VccSource,
    pub vcc_out: MaskDest,
    /// A 16-bit result in a 32-bit register keeps the register's high half (GFX10+; GFX9
    /// zeroes it: LLVM's `zeroesHigh16BitsOfDest`).
    pub preserve_high: bool,
    /// The SDWA form's operand selects, when the instruction is one.
    pub sdwa: Option<Sdwa>,
    /// Operands that must be zero because the emulator does not model them (op_sel, and
    /// clamp on an integer result): a non-zero one stops the run.
    pub unmodelled: Vec<usize>,
    /// Each source's modifiers operand (`neg`, `abs` on float sources).
    pub mods: [Option<usize>; 3],
    /// The `clamp` and `omod` operands (applied to float results).
    pub clamp: Option<usize>,
    pub omod: Option<usize>,
    /// A packed VOP3P instruction (`v_pk_add_f16`, `v_pk_mul_f32`): the width of each half.
    /// Its sources are rebuilt per op_sel/op_sel_hi/neg_lo/neg_hi (held in the source
    /// modifiers) before the text, which works on both halves, runs.
    pub packed: Option<u8>,
    /// A mixed-precision VOP3P instruction (`v_fma_mix_f32`, `v_fma_mixlo_f16`,
    /// `v_fma_mixhi_f16`): per source, op_sel_hi says f16 (else f32) and op_sel which half of
    /// the register holds it; neg_lo negates and neg_hi takes the absolute value (LLVM's
    /// `SISrcMods::NEG`/`ABS` in the same bits). Each source is widened to f32 before the
    /// text, which works on f32, runs.
    pub mix: bool,
    /// A VOP3P dot product (`v_dot4_i32_i8`): its sources are read whole, so its modifiers
    /// must be the defaults (op_sel_hi set or clear, nothing else); the text reads the halves
    /// and bytes.
    pub dot: bool,
    /// The DPP form's lane sharing, when the instruction is one: `src0` is read from another
    /// lane, and some lanes may not be written.
    pub dpp: Option<Dpp>,
}

/// A DPP form's controls (operand indices) and the generation's flavour of them.
#[derive(Clone, Copy, Debug)]
pub struct Dpp {
    pub control: DppControl,
    /// GFX10+'s `fi` (fetch inactive): read a lane EXEC disables as if it were enabled.
    pub fi: Option<usize>,
    pub flavour: DppFlavour,
}

#[derive(Clone, Copy, Debug)]
pub enum DppControl {
    /// DPP16 (GFX9's DPP too): `dpp_ctrl`, `row_mask`, `bank_mask`, `bound_ctrl`.
    Dpp16 { ctrl: usize, row_mask: usize, bank_mask: usize, bound_ctrl: usize },
    /// DPP8: eight 3-bit selects, each lane of a group of 8 reading the lane its select names.
    Dpp8 { selects: usize },
}

/// Which `dpp_ctrl` values exist (LLVM's `DppCtrl`, AMDGPUModifierSyntax's dpp_ctrl,
/// dpp16_ctrl and dpp32_ctrl).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DppFlavour {
    /// GFX9: quad_perm, row_shl/shr/ror, wave_shl/rol/shr/ror, row_mirror, row_half_mirror,
    /// row_bcast:15/31.
    Gfx9,
    /// GFX90A and GFX940: GFX9's and `row_newbcast` (0x150..0x15f).
    Gfx90a,
    /// GFX10+ DPP16: quad_perm, row_shl/shr/ror, row_mirror, row_half_mirror, row_share
    /// (0x150..0x15f), row_xmask (0x160..0x16f).
    Gfx10,
}

/// The lane `lane` reads under DPP16 control `ctrl` in a wave of `lanes`: `Ok(None)` for a lane
/// the control leaves without a source (a shift past its row or the wave, a row no broadcast
/// reaches), `Err` for a control that does not exist in `flavour`.
pub fn dpp16_source(ctrl: u32, lane: u32, lanes: u32, flavour: DppFlavour) -> Result<Option<u32>, String> {
    let (row, i, n) = (lane & !15, lane & 15, ctrl & 15);
    let gfx9 = flavour != DppFlavour::Gfx10;
    Ok(match ctrl {
        // quad_perm:[a,b,c,d]: lane k of each quad reads the quad's lane given by bits 2k+1:2k.
        0x000..=0x0ff => Some((lane & !3) + ((ctrl >> (2 * (lane & 3))) & 3)),
        // row_shl:n reads n lanes up, row_shr:n n lanes down, within the row of 16;
        // row_ror:n rotates the row right (lane i reads lane i - n modulo 16).
        0x101..=0x10f => (i + n < 16).then_some(lane + n),
        0x111..=0x11f => (i >= n).then(|| lane - n),
        0x121..=0x12f => Some(row + ((i + 16 - n) & 15)),
        // The whole wave by one lane (GFX9 only).
        0x130 if gfx9 => (lane + 1 < lanes).then_some(lane + 1),
        0x134 if gfx9 => Some((lane + 1) % lanes),
        0x138 if gfx9 => lane.checked_sub(1),
        0x13c if gfx9 => Some((lane + lanes - 1) % lanes),
        0x140 => Some(row + 15 - i),
        0x141 => Some((lane & !7) + 7 - (lane & 7)),
        // row_bcast:15: lane 15 of each row to every lane of the next row; row_bcast:31:
        // lane 31 to rows 2 and 3 (GFX9 only). The rows before have no source.
        0x142 if gfx9 => (row >= 16).then(|| row - 1),
        0x143 if gfx9 => (row >= 32).then_some(31),
        // row_share:n (GFX10+) and row_newbcast:n (GFX90A, GFX940): lane n of the row.
        0x150..=0x15f if flavour != DppFlavour::Gfx9 => Some(row + n),
        // row_xmask:n: lane i ^ n of the row.
        0x160..=0x16f if !gfx9 => Some(row + (i ^ n)),
        _ => return Err(format!("dpp_ctrl {ctrl:#x} does not exist on this generation")),
    }
    .filter(|&s| s < lanes))
}

/// Where an SDWA instruction's selects are (operand indices).
#[derive(Clone, Copy, Debug)]
pub struct Sdwa {
    /// Per source: its `srcN_sel` and, for integer sources, the modifiers holding `sext`.
    pub src: [Option<(usize, Option<usize>)>; 2],
    pub dst_sel: Option<usize>,
    pub dst_unused: Option<usize>,
}

/// Width of a memory access and how it extends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub bytes: u8,
    pub signed: bool,
    /// A d16 access (`global_load_short_d16_hi`, `scratch_store_d16_hi_b16`, ...): the data is
    /// one 16-bit half of the register; a load writes that half and keeps the other.
    pub d16: Option<Half>,
}

/// Which half of a 32-bit register a d16 access uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Half {
    Low,
    High,
}

impl Access {
    /// The bits a store takes its `bytes` from: the register, or (`_d16_hi`) its high half.
    pub fn store_bits(self, register: u32) -> u32 {
        if self.d16 == Some(Half::High) { register >> 16 } else { register }
    }

    /// The register after a load of `loaded` (extended to 32 bits) into `old`: the whole
    /// value, or (d16) one half replaced with the value's low 16 bits.
    pub fn merge(self, old: u32, loaded: u32) -> u32 {
        match self.d16 {
            None => loaded,
            Some(Half::Low) => (old & 0xffff_0000) | (loaded & 0xffff),
            Some(Half::High) => (old & 0xffff) | loaded << 16,
        }
    }
}

/// Which address space a vector memory instruction addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Global,
    /// Generic (`flat_*`): global, LDS or private by the address's aperture.
    Flat,
    /// Per-lane private memory (`scratch_*`).
    Scratch,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    Scc0,
    Scc1,
    Vccz,
    Vccnz,
    Execz,
    Execnz,
}

/// A built-in action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Native {
    /// Nothing to do (no cache or scheduling model): `s_nop`, `s_clause`, cache invalidations.
    Nop,
    /// `s_waitcnt*`: memory is in order, so it only counts.
    Waitcnt,
    EndPgm,
    /// `s_trap`, `s_sethalt`: the run stops with a report.
    Halt,
    Branch,
    CBranch(Cond),
    GetPc,
    /// `s_bcnt1_i32_b32/b64` (bits set, SCC = result != 0) and `s_ff1_i32_*`/`s_ctz_i32_*`
    /// (lowest set bit or -1, SCC untouched): AMD's texts for them are loops, which the
    /// evaluated subset does not model.
    BitCount(u8),
    FirstOne(u8),
    SetPc,
    SwapPc,
    Call,
    Barrier,
    /// `s_load_*`: dwords into SGPRs.
    SLoad { dwords: u8 },
    VLoad { space: Space, access: Access, dwords: u8 },
    VStore { space: Space, access: Access, dwords: u8 },
    /// `global_atomic_add` and its kin: one 32- or 64-bit element, optionally returning the
    /// old value.
    VAtomic { space: Space, op: Atomic, returns: bool },
    DsLoad { access: Access, dwords: u8 },
    DsStore { access: Access, dwords: u8 },
    /// `ds_read2`/`ds_load_2addr`: two values at two offsets (scaled by the size, and by 64 for
    /// `st64`).
    DsLoad2 { bytes: u8, stride64: bool },
    DsStore2 { bytes: u8, stride64: bool },
    DsAtomic { op: Atomic, returns: bool },
    ReadLane,
    ReadFirstLane,
    WriteLane,
    /// `v_accvgpr_read`/`v_accvgpr_write`/`v_accvgpr_mov`: a copy between register files.
    Copy,
    /// `v_pk_mov_b32`: each half of the 64-bit result from either half of a source, by op_sel.
    PkMov,
    /// `v_mbcnt_lo_u32_b32`/`v_mbcnt_hi_u32_b32`: S1 plus the bits of S0 set below the lane's
    /// own in the low (high) half of a 64-lane mask. AMD's text counts in a loop, which the
    /// evaluated subset does not model.
    Mbcnt { hi: bool },
    /// `v_permlane16_b32`, `v_permlanex16_b32` (`cross`): each lane reads src0 of the lane
    /// of its row (of the paired row, 0 <-> 1, 2 <-> 3) that the 4-bit field of {S2, S1} for
    /// its position selects (AMD's text: a loop over the lanes).
    Permlane16 { cross: bool },
    /// `v_bfrev_b32`: S0's bits reversed (AMD's text writes one bit at a time in a loop).
    Bfrev,
    /// `s_getreg_b32`, `s_setreg_b32`, `s_setreg_imm32_b32`: a field of a hardware register
    /// (`hwreg(id, offset, size)`); `flat_scratch` says whether this generation has the
    /// FLAT_SCR_LO/HI ids.
    GetReg { flat_scratch: bool },
    SetReg { imm: bool, flat_scratch: bool },
    /// `buffer_load_*`/`buffer_store_*` through the private segment buffer (scratch on GFX9).
    BufferLoad { access: Access, dwords: u8, offen: bool },
    BufferStore { access: Access, dwords: u8, offen: bool },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Add,
    Sub,
    And,
    Or,
    Xor,
    MinU,
    MaxU,
    MinI,
    MaxI,
    Swap,
    /// `MEM = MEM == cmp ? src : MEM`, the data register holding src then cmp.
    CmpSwap,
    /// `MEM = MEM >= src ? 0 : MEM + 1` (unsigned).
    Inc,
    /// `MEM = MEM == 0 || MEM > src ? src : MEM - 1` (unsigned).
    Dec,
}

/// An integer atomic read-modify-write on one 32- or 64-bit element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Atomic {
    pub op: AtomicOp,
    /// 64-bit (`_x2`, `_u64`, `_i64`, `_b64`) rather than 32-bit.
    pub wide: bool,
}

impl Atomic {
    pub fn bytes(self) -> u8 {
        if self.wide { 8 } else { 4 }
    }

    /// The new memory value from the old one and the lane's data (`cmp` only for
    /// [`AtomicOp::CmpSwap`]); all three are zero-extended to 64 bits, the result is truncated
    /// to the element's width.
    pub fn apply(self, old: u64, src: u64, cmp: u64) -> u64 {
        let bits = if self.wide { 64 } else { 32 };
        let mask = if self.wide { u64::MAX } else { u64::from(u32::MAX) };
        let signed = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
        let (old, src, cmp) = (old & mask, src & mask, cmp & mask);
        let new = match self.op {
            AtomicOp::Add => old.wrapping_add(src),
            AtomicOp::Sub => old.wrapping_sub(src),
            AtomicOp::And => old & src,
            AtomicOp::Or => old | src,
            AtomicOp::Xor => old ^ src,
            AtomicOp::MinU => old.min(src),
            AtomicOp::MaxU => old.max(src),
            AtomicOp::MinI => signed(old).min(signed(src)) as u64,
            AtomicOp::MaxI => signed(old).max(signed(src)) as u64,
            AtomicOp::Swap => src,
            AtomicOp::CmpSwap => {
                if old == cmp {
                    src
                } else {
                    old
                }
            }
            AtomicOp::Inc => {
                if old >= src {
                    0
                } else {
                    old + 1
                }
            }
            AtomicOp::Dec => {
                if old == 0 || old > src {
                    src
                } else {
                    old - 1
                }
            }
        };
        new & mask
    }

    /// An atomic's name after `atomic_` (global/flat) or `ds_` with `_rtn` removed: GFX9/10
    /// spell the width `_x2` and the signedness in the word (`smin`), GFX11+ in a type suffix
    /// (`min_i64`). Float and other atomics are `None` (not implemented).
    fn parse(name: &str) -> Option<Atomic> {
        let (word, ty) = match name.strip_suffix("_x2") {
            Some(w) => (w, "x2"),
            None => match name.rsplit_once('_') {
                Some((w, t)) if matches!(t, "u32" | "i32" | "b32" | "u64" | "i64" | "b64") => (w, t),
                _ => (name, ""),
            },
        };
        let wide = matches!(ty, "x2" | "u64" | "i64" | "b64");
        let signed = matches!(ty, "i32" | "i64");
        let op = match word {
            "add" => AtomicOp::Add,
            "sub" => AtomicOp::Sub,
            "and" => AtomicOp::And,
            "or" => AtomicOp::Or,
            "xor" => AtomicOp::Xor,
            "umin" => AtomicOp::MinU,
            "umax" => AtomicOp::MaxU,
            "smin" => AtomicOp::MinI,
            "smax" => AtomicOp::MaxI,
            "min" if signed => AtomicOp::MinI,
            "max" if signed => AtomicOp::MaxI,
            "min" => AtomicOp::MinU,
            "max" => AtomicOp::MaxU,
            "swap" | "wrxchg" | "storexchg" => AtomicOp::Swap,
            "cmpswap" => AtomicOp::CmpSwap,
            "inc" => AtomicOp::Inc,
            "dec" => AtomicOp::Dec,
            _ => return None,
        };
        Some(Atomic { op, wide })
    }
}

/// What to do for an encoding.
#[derive(Debug)]
pub enum Kind {
    Alu(Box<Alu>),
    /// A VOPD pair (`v_dual_mov_b32 v0, s2 :: v_dual_add_nc_u32 v1, v3, v4`): both read their
    /// sources, then both write.
    Dual(Box<[Alu; 2]>),
    Native(Native),
    /// Not implemented: the run stops naming the instruction and this reason.
    Unimplemented(String),
}

/// The mnemonic without the `_e32`/`_e64` suffix LLVM gives VOP forms.
pub fn plain_mnemonic(e: &Encoding) -> &'static str {
    // An AsmString variant (`v_cmpx_gt_u32{_e64}`) ends the name.
    let m = e.mnemonic();
    let m = m.split('{').next().unwrap_or(m);
    m.strip_suffix("_e32").or_else(|| m.strip_suffix("_e64")).unwrap_or(m)
}

/// Decides what to do for encoding `e` on `generation`. `ops` are one instance's decoded
/// operands (the operand list is the encoding's; values are not looked at).
pub fn compile(e: &Encoding, ops: &Operands, generation: Generation, wave64: bool) -> Kind {
    let Some((family, form)) = classify(e) else {
        return Kind::Unimplemented("no encoding family".into());
    };
    if form == Form::Sdwa && matches!(family, Family::Vop1 | Family::Vop2 | Family::Vopc) {
        return match alu(e, ops, family, generation, wave64) {
            Ok(mut alu) => {
                let operands = ops.as_slice();
                let find = |name: &str| operands.iter().position(|o| o.name.name() == name);
                let int_mods = |name: &str| find(name).filter(|&i| operands[i].class.name().starts_with("Int"));
                // Integer modifiers are `sext`, which the selects apply; float ones are neg
                // and abs, as in VOP3.
                for m in alu.mods.iter_mut() {
                    if m.is_some_and(|i| int_mods(operands[i].name.name()) == Some(i)) {
                        *m = None;
                    }
                }
                alu.sdwa = Some(Sdwa {
                    src: [find("src0_sel").map(|s| (s, int_mods("src0_modifiers"))), find("src1_sel").map(|s| (s, int_mods("src1_modifiers")))],
                    dst_sel: find("dst_sel"),
                    dst_unused: find("dst_unused"),
                });
                Kind::Alu(Box::new(alu))
            }
            Err(why) => Kind::Unimplemented(why),
        };
    }
    if matches!(form, Form::Dpp16 | Form::Dpp8) && matches!(family, Family::Vop1 | Family::Vop2 | Family::Vopc | Family::Vop3 | Family::Vop3sd) {
        return match alu(e, ops, family, generation, wave64).and_then(|alu| with_dpp(alu, ops, form, generation)) {
            Ok(alu) => Kind::Alu(Box::new(alu)),
            Err(why) => Kind::Unimplemented(why),
        };
    }
    if form != Form::Native {
        return Kind::Unimplemented(format!("{} forms are not implemented", form.name().unwrap_or("extended")));
    }
    let mnemonic = plain_mnemonic(e);
    if let Some(native) = native(mnemonic, family) {
        let record = e.opcode.name();
        // GFX10 initialises flat scratch with s_setreg (HW_REG_FLAT_SCR_LO/HI, ids 20/21).
        let flat_scratch = matches!(generation, Generation::Gfx10_1 | Generation::Gfx10_3);
        return match native {
            Native::GetReg { .. } => Kind::Native(Native::GetReg { flat_scratch }),
            Native::SetReg { imm, .. } => Kind::Native(Native::SetReg { imm, flat_scratch }),
            Native::BufferLoad { .. } | Native::BufferStore { .. } if ["_IDXEN", "_BOTHEN", "_ADDR64", "_LDS"].iter().any(|t| record.contains(t)) => {
                Kind::Unimplemented("buffer addressing other than OFFSET/OFFEN is not implemented".into())
            }
            Native::BufferLoad { access, dwords, .. } => Kind::Native(Native::BufferLoad { access, dwords, offen: record.contains("_OFFEN") }),
            Native::BufferStore { access, dwords, .. } => Kind::Native(Native::BufferStore { access, dwords, offen: record.contains("_OFFEN") }),
            n => Kind::Native(n),
        };
    }
    if family == Family::Vopd {
        return match dual(e, ops, generation) {
            Ok(pair) => Kind::Dual(Box::new(pair)),
            Err(why) => Kind::Unimplemented(why),
        };
    }
    match family {
        Family::Sop1 | Family::Sop2 | Family::Sopc | Family::Sopk | Family::Vop1 | Family::Vop2 | Family::Vopc | Family::Vop3 | Family::Vop3sd => {
            match alu(e, ops, family, generation, wave64) {
                Ok(alu) => Kind::Alu(Box::new(alu)),
                Err(why) => Kind::Unimplemented(why),
            }
        }
        // Mixed precision (gfx906+, GFX10+): the FMA forms. GFX9's `v_mad_mix*` (an unfused
        // multiply-add) and the dot products have no text and stop.
        Family::Vop3p if mnemonic.starts_with("v_fma_mix") => match alu(e, ops, family, generation, wave64) {
            Ok(mut alu) => {
                let operands = ops.as_slice();
                alu.unmodelled.retain(|&i| !matches!(operands[i].name.name(), "op_sel" | "op_sel_hi"));
                alu.mix = true;
                // mixlo/mixhi write one half and keep the other on every generation (LLVM
                // ties `$vdst_in`).
                alu.preserve_high = true;
                Kind::Alu(Box::new(alu))
            }
            Err(why) => Kind::Unimplemented(why),
        },
        // Integer dot products (transcribed texts): default modifiers only.
        Family::Vop3p if mnemonic.starts_with("v_dot") => match alu(e, ops, family, generation, wave64) {
            Ok(mut alu) => {
                let operands = ops.as_slice();
                alu.unmodelled.retain(|&i| !matches!(operands[i].name.name(), "op_sel" | "op_sel_hi"));
                alu.dot = true;
                Kind::Alu(Box::new(alu))
            }
            Err(why) => Kind::Unimplemented(why),
        },
        // Packed math.
        Family::Vop3p if mnemonic.starts_with("v_pk_") => match alu(e, ops, family, generation, wave64) {
            Ok(mut alu) => {
                let operands = ops.as_slice();
                // op_sel and op_sel_hi are read from the source modifiers (OP_SEL_0/1).
                alu.unmodelled.retain(|&i| !matches!(operands[i].name.name(), "op_sel" | "op_sel_hi"));
                alu.packed = Some(if mnemonic.ends_with("32") { 32 } else { 16 });
                Kind::Alu(Box::new(alu))
            }
            Err(why) => Kind::Unimplemented(why),
        },
        Family::Sopp => Kind::Unimplemented("this program-control instruction is not implemented".into()),
        other => Kind::Unimplemented(format!("{other:?} instructions of this kind are not implemented")),
    }
}

/// `alu` as the DPP form `form` of its instruction: where the form's controls are.
fn with_dpp(mut alu: Alu, ops: &Operands, form: Form, generation: Generation) -> Result<Alu, String> {
    let operands = ops.as_slice();
    let find = |name: &str| operands.iter().position(|o| o.name.name() == name);
    let need = |name: &str| find(name).ok_or_else(|| format!("a DPP form without `{name}`"));
    let control = if form == Form::Dpp8 {
        DppControl::Dpp8 { selects: need("dpp8")? }
    } else {
        DppControl::Dpp16 { ctrl: need("dpp_ctrl")?, row_mask: need("row_mask")?, bank_mask: need("bank_mask")?, bound_ctrl: need("bound_ctrl")? }
    };
    let flavour = match generation {
        Generation::Gfx9 => DppFlavour::Gfx9,
        Generation::Gfx90a | Generation::Gfx940 => DppFlavour::Gfx90a,
        g if g.is_gfx10_plus() => DppFlavour::Gfx10,
        g => return Err(format!("DPP on {} is not implemented", g.name())),
    };
    if alu.sources.first().is_none_or(|&(i, _)| operands[i].name.name() != "src0") {
        return Err("a DPP form whose first source is not src0".into());
    }
    alu.dpp = Some(Dpp { control, fi: find("fi"), flavour });
    Ok(alu)
}

fn access_of(suffix: &str) -> Option<(Access, u8)> {
    // GFX9 puts d16 after the type (`short_d16_hi`, `ubyte_d16`, DS `u16_d16_hi`), GFX11+
    // before it (`d16_hi_b16`, `d16_u8`).
    let (suffix, d16) = if let Some(t) = suffix.strip_suffix("_d16_hi").or_else(|| suffix.strip_prefix("d16_hi_")) {
        (t, Some(Half::High))
    } else if let Some(t) = suffix.strip_suffix("_d16").or_else(|| suffix.strip_prefix("d16_")) {
        (t, Some(Half::Low))
    } else {
        (suffix, None)
    };
    let a = |bytes, signed| Access { bytes, signed, d16 };
    Some(match suffix {
        "ubyte" | "u8" => (a(1, false), 1),
        "sbyte" | "i8" => (a(1, true), 1),
        "ushort" | "u16" => (a(2, false), 1),
        "sshort" | "i16" => (a(2, true), 1),
        "byte" | "b8" => (a(1, false), 1),
        "short" | "b16" => (a(2, false), 1),
        "dword" | "b32" => (a(4, false), 1),
        "dwordx2" | "b64" => (a(4, false), 2),
        "dwordx3" | "b96" => (a(4, false), 3),
        "dwordx4" | "b128" => (a(4, false), 4),
        _ => return None,
    })
}

/// Built-in actions by mnemonic.
fn native(m: &str, family: Family) -> Option<Native> {
    use Native::*;
    Some(match m {
        "s_nop" | "s_clause" | "s_delay_alu" | "s_setprio" | "s_sendmsg" | "s_inst_prefetch" | "s_dcache_inv" | "s_icache_inv" | "s_code_end" | "buffer_gl0_inv" | "buffer_gl1_inv" | "buffer_wbinvl1" | "buffer_wbinvl1_vol" | "buffer_wbl2" | "buffer_inv" | "s_waitcnt_depctr" | "global_wb" | "global_inv" | "global_wbinv" => {
            // s_code_end pads after the last function; reaching it is a fall-through bug the
            // decoder would show, but it does nothing when executed.
            Nop
        }
        "s_waitcnt" | "s_waitcnt_vscnt" | "s_waitcnt_vmcnt" | "s_waitcnt_lgkmcnt" | "s_waitcnt_expcnt" => Waitcnt,
        "s_endpgm" => EndPgm,
        "s_trap" | "s_sethalt" => Halt,
        "s_branch" => Branch,
        "s_cbranch_scc0" => CBranch(Cond::Scc0),
        "s_cbranch_scc1" => CBranch(Cond::Scc1),
        "s_cbranch_vccz" => CBranch(Cond::Vccz),
        "s_cbranch_vccnz" => CBranch(Cond::Vccnz),
        "s_cbranch_execz" => CBranch(Cond::Execz),
        "s_cbranch_execnz" => CBranch(Cond::Execnz),
        "s_getpc_b64" => GetPc,
        "s_bcnt1_i32_b32" => BitCount(32),
        "s_bcnt1_i32_b64" => BitCount(64),
        "s_ff1_i32_b32" | "s_ctz_i32_b32" => FirstOne(32),
        "s_ff1_i32_b64" | "s_ctz_i32_b64" => FirstOne(64),
        "s_setpc_b64" => SetPc,
        "s_swappc_b64" => SwapPc,
        "s_call_b64" => Call,
        "s_barrier" => Barrier,
        // GFX12 splits the workgroup barrier in two: signal, then wait. Waves run until they
        // reach a barrier, so the signal is where a wave stops and the wait has nothing left
        // to do. (Named barriers, `s_barrier_signal_isfirst` and `s_barrier_init` stop.)
        "s_barrier_signal" => Barrier,
        "s_barrier_wait" => Nop,
        "s_getreg_b32" => GetReg { flat_scratch: false },
        "s_setreg_b32" => SetReg { imm: false, flat_scratch: false },
        "s_setreg_imm32_b32" => SetReg { imm: true, flat_scratch: false },
        // GFX12's counters: `s_wait_loadcnt`, `s_wait_kmcnt`, `s_wait_loadcnt_dscnt`, ...
        m if m.starts_with("s_wait_") && m.ends_with("cnt") => Waitcnt,
        "v_readlane_b32" => ReadLane,
        "v_readfirstlane_b32" => ReadFirstLane,
        "v_writelane_b32" => WriteLane,
        "v_accvgpr_read_b32" | "v_accvgpr_write_b32" | "v_accvgpr_mov_b32" => Copy,
        "v_pk_mov_b32" => PkMov,
        "v_mbcnt_lo_u32_b32" => Mbcnt { hi: false },
        "v_mbcnt_hi_u32_b32" => Mbcnt { hi: true },
        "v_permlane16_b32" => Permlane16 { cross: false },
        "v_permlanex16_b32" => Permlane16 { cross: true },
        "v_bfrev_b32" => Bfrev,
        _ => return memory(m, family),
    })
}

fn memory(m: &str, family: Family) -> Option<Native> {
    use Native::*;
    if family == Family::Mubuf {
        // Which addressing a MUBUF record has is in its name, not its operands; the caller
        // refines `offen` from the record.
        if let Some(rest) = m.strip_prefix("buffer_load_") {
            let (access, dwords) = access_of(rest)?;
            return Some(BufferLoad { access, dwords, offen: false });
        }
        if let Some(rest) = m.strip_prefix("buffer_store_") {
            let (access, dwords) = access_of(rest)?;
            return Some(BufferStore { access, dwords, offen: false });
        }
        return None;
    }
    if family == Family::Smem {
        let rest = m.strip_prefix("s_load_")?;
        let dwords = match rest {
            "dwordx8" | "b256" => 8,
            "dwordx16" | "b512" => 16,
            _ => access_of(rest).filter(|(a, _)| a.bytes == 4)?.1,
        };
        return Some(SLoad { dwords });
    }
    let space = match family {
        Family::Global => Space::Global,
        Family::Flat => Space::Flat,
        Family::Scratch => Space::Scratch,
        Family::Ds => return ds(m),
        _ => return None,
    };
    let (_, op) = m.split_once('_')?;
    if let Some(rest) = op.strip_prefix("load_") {
        let (access, dwords) = access_of(rest)?;
        return Some(VLoad { space, access, dwords });
    }
    if let Some(rest) = op.strip_prefix("store_") {
        let (access, dwords) = access_of(rest)?;
        return Some(VStore { space, access, dwords });
    }
    if let Some(rest) = op.strip_prefix("atomic_") {
        // Floating-point atomics are not implemented.
        let (word, returns) = match rest.strip_suffix("_rtn") {
            Some(w) => (w, true),
            None => (rest, false),
        };
        let op = Atomic::parse(word)?;
        // GFX9 marks the returning form with `glc` instead of a name; that is read at run time.
        return Some(VAtomic { space, op, returns });
    }
    None
}

fn ds(m: &str) -> Option<Native> {
    use Native::*;
    let op = m.strip_prefix("ds_")?;
    let (stride64, op) = match op.strip_prefix("read2st64_").or_else(|| op.strip_prefix("load_2addr_stride64_")) {
        Some(rest) => (true, format!("read2_{rest}")),
        None => match op.strip_prefix("write2st64_").or_else(|| op.strip_prefix("store_2addr_stride64_")) {
            Some(rest) => (true, format!("write2_{rest}")),
            None => (false, op.replace("load_2addr_", "read2_").replace("store_2addr_", "write2_")),
        },
    };
    if let Some(rest) = op.strip_prefix("read2_") {
        let (a, dwords) = access_of(rest)?;
        return Some(DsLoad2 { bytes: a.bytes * dwords, stride64 });
    }
    if let Some(rest) = op.strip_prefix("write2_") {
        let (a, dwords) = access_of(rest)?;
        return Some(DsStore2 { bytes: a.bytes * dwords, stride64 });
    }
    if let Some(rest) = op.strip_prefix("read_").or_else(|| op.strip_prefix("load_")) {
        let (access, dwords) = access_of(rest)?;
        return Some(DsLoad { access, dwords });
    }
    if let Some(rest) = op.strip_prefix("write_").or_else(|| op.strip_prefix("store_")) {
        let (access, dwords) = access_of(rest)?;
        return Some(DsStore { access, dwords });
    }
    // `ds_add_rtn_u64`: the returning form has `_rtn` before the type. The compare-and-store
    // forms (`ds_cmpst_b32`, `ds_cmpstore_b32`) order their data differently by generation and
    // are not implemented.
    let returns = op.contains("_rtn_");
    let op = Atomic::parse(&op.replace("_rtn_", "_")).filter(|a| a.op != AtomicOp::CmpSwap)?;
    Some(DsAtomic { op, returns })
}

/// Width in bits a register-class operand is read at (`wave` for a lane mask).
fn class_bits(reg_class: &str, wave: u8) -> u8 {
    if reg_class.ends_with("_1") || reg_class.contains("_1_") {
        // SReg_1, SReg_1_XEXEC, VReg_1: a lane mask.
        return wave;
    }
    for (tag, bits) in [("_64", 64), ("_128", 128), ("_96", 96)] {
        if reg_class.contains(tag) {
            return bits.min(64);
        }
    }
    32
}

fn alu(e: &Encoding, ops: &Operands, family: Family, generation: Generation, wave64: bool) -> Result<Alu, String> {
    let wave = if wave64 { 64 } else { 32 };
    let operands = ops.as_slice();
    let index = |name: OperandName| operands.iter().position(|o| o.name == name);
    let enc_op = |i: usize| e.operands.get(i);
    // Sources in AMD's order: src0..src2 (an SOPK's register operand, then its immediate).
    let mut sources = Vec::new();
    let mut unmodelled = Vec::new();
    let mut mods = [None; 3];
    let (mut clamp, mut omod) = (None, None);
    for (i, op) in operands.iter().enumerate() {
        let name = op.name.name();
        let is_in = enc_op(i).is_none_or(|o| o.dir == Dir::In);
        match name {
            "src0" | "src1" | "src2" | "simm16" => sources.push((i, class_bits(op.class.info().reg_class, wave))),
            "sdst" if is_in && family == Family::Sopk => sources.push((i, 32)),
            "src0_modifiers" => mods[0] = Some(i),
            "src1_modifiers" => mods[1] = Some(i),
            "src2_modifiers" => mods[2] = Some(i),
            "clamp" => clamp = Some(i),
            "omod" => omod = Some(i),
            "op_sel" | "op_sel_hi" | "byte_sel" => unmodelled.push(i),
            _ => {}
        }
    }
    if family == Family::Sopk {
        // The register operand comes first (`s_cmpk_gt_u32 s0, 10`: S0 = s0, S1 = 10).
        sources.sort_by_key(|&(i, _)| (operands[i].name.name() == "simm16", i));
    }
    let is_out = |i: usize| enc_op(i).is_some_and(|o| o.dir == Dir::Out);
    let vdst = index(OperandName::vdst).filter(|&i| is_out(i));
    let sdst = index(OperandName::sdst).filter(|&i| is_out(i));
    let vector = !matches!(family, Family::Sop1 | Family::Sop2 | Family::Sopc | Family::Sopk);
    let vcc_in = match (family, index(OperandName::src2)) {
        (Family::Vop3 | Family::Vop3sd, Some(i)) if class_bits(operands[i].class.info().reg_class, wave) == wave && operands[i].class.info().reg_class.starts_with("SReg") => VccSource::Operand(i),
        _ => VccSource::Vcc,
    };
    let defs = e.defs;
    let name = plain_mnemonic(e).to_ascii_uppercase();
    let texts = candidate_texts(&name, generation);
    let mut refused = Vec::new();
    for (origin, text) in texts {
        let program = match Program::parse_machine(&text) {
            Ok(p) => p,
            Err(err) => {
                refused.push(format!("{}: outside the evaluated subset: {err}", origin.name()));
                continue;
            }
        };
        let f = program.footprint();
        // The text's S2 may be the VOP3 mask operand's place: only count real sources.
        let usable_sources = if vcc_in != VccSource::Vcc { sources.len() - 1 } else { sources.len() };
        let why = if usize::from(f.sources) > usable_sources {
            Some(format!("reads S{} but the instruction has {usable_sources} sources", f.sources - 1))
        } else if f.writes_scc != defs.has(implicit::SCC) {
            Some("writes SCC where the instruction does not (or the reverse)".to_owned())
        } else if f.writes_exec || f.writes_exec_lane {
            if defs.has(implicit::EXEC) { None } else { Some("writes EXEC, which the instruction does not".to_owned()) }
        } else {
            None
        };
        let mut dest = None;
        let mut mask_dest = None;
        let mut preserve_high = false;
        let mut vcc_out = MaskDest::Vcc;
        let why = why.or_else(|| {
            if f.writes_d0_lane {
                mask_dest = Some(match sdst {
                    Some(i) => MaskDest::Operand(i),
                    None if defs.has(implicit::VCC) => MaskDest::Vcc,
                    None => return Some("writes a lane mask but the instruction has no mask destination".to_owned()),
                });
                None
            } else if !f.d0_writes.is_empty() {
                let d = if vector { vdst } else { sdst };
                let Some(d) = d else { return Some("writes D0 but the instruction has no destination".to_owned()) };
                let bits = operands[d].value_bits();
                let half = bits == 32 && vector && f.d0_writes.iter().all(|&w| w == 16);
                if half {
                    preserve_high = generation.is_gfx10_plus();
                } else if f.d0_writes.iter().any(|&w| w != bits) {
                    return Some(format!("writes D0 at {:?} bits, the destination has {bits}", f.d0_writes));
                }
                dest = Some((d, bits));
                None
            } else if (vdst.is_some() && vector) || (sdst.is_some() && !vector) {
                Some("never writes the destination".to_owned())
            } else {
                None
            }
        });
        let why = why.or_else(|| {
            if f.writes_vcc || f.writes_d1 {
                vcc_out = match (vector, sdst) {
                    (true, Some(i)) if vdst.is_some() => MaskDest::Operand(i),
                    _ if defs.has(implicit::VCC) => MaskDest::Vcc,
                    _ => return Some("writes a carry the instruction does not define".to_owned()),
                };
            } else if vector && vdst.is_some() && sdst.is_some() {
                return Some("does not write the carry the instruction defines".to_owned());
            }
            None
        });
        if let Some(why) = why {
            refused.push(format!("{}: {why}", origin.name()));
            continue;
        }
        return Ok(Alu { footprint: f, program, origin, vector, sources, dest, mask_dest, vcc_in, vcc_out, preserve_high, sdwa: None, unmodelled, mods, clamp, omod, packed: None, mix: false, dot: false, dpp: None });
    }
    if refused.is_empty() {
        Err(format!("no table has a text of its own for {name}, and none is transcribed"))
    } else {
        Err(format!("no text for {name} fits its encoding ({})", refused.join("; ")))
    }
}

/// The two components of a VOPD record, each from its own AMD text (`V_DUAL_MOV_B32` means
/// `V_MOV_B32`).
fn dual(e: &Encoding, ops: &Operands, generation: Generation) -> Result<[Alu; 2], String> {
    let operands = ops.as_slice();
    let find = |name: &str| operands.iter().position(|o| o.name.name() == name);
    let mut parts = e.asm.split("::");
    let mut component = |side: &str| -> Result<Alu, String> {
        let asm = parts.next().ok_or("a VOPD record with one component")?;
        let word = asm.trim().split([' ', '$']).next().unwrap_or("");
        let name = format!("V_{}", word.strip_prefix("v_dual_").ok_or_else(|| format!("`{word}` is not a VOPD component"))?.to_ascii_uppercase());
        let dest = find(&format!("vdst{side}")).ok_or("a VOPD component without a destination")?;
        let sources: Vec<(usize, u8)> = [format!("src0{side}"), format!("vsrc1{side}"), format!("src2{side}")].iter().filter_map(|n| find(n)).map(|i| (i, 32)).collect();
        let unmodelled: Vec<usize> = operands.iter().enumerate().filter(|(_, o)| o.name.name().ends_with(&format!("{side}_modifiers"))).map(|(i, _)| i).collect();
        let (mods, clamp, omod) = ([None; 3], None, None);
        let mut refused = Vec::new();
        for (origin, text) in candidate_texts(&name, generation) {
            let program = match Program::parse_machine(&text) {
                Ok(p) => p,
                Err(err) => {
                    refused.push(format!("{}: {err}", origin.name()));
                    continue;
                }
            };
            let f = program.footprint();
            if usize::from(f.sources) > sources.len() || f.d0_writes != [32] || f.writes_scc || f.writes_vcc || f.writes_exec || f.writes_exec_lane || f.writes_d0_lane {
                refused.push(format!("{}: does not fit a VOPD component", origin.name()));
                continue;
            }
            return Ok(Alu { footprint: f, program, origin, vector: true, sources, dest: Some((dest, 32)), mask_dest: None, vcc_in: VccSource::Vcc, vcc_out: MaskDest::Vcc, preserve_high: false, sdwa: None, unmodelled, mods, clamp, omod, packed: None, mix: false, dot: false, dpp: None });
        }
        Err(format!("no text for {name} (a VOPD component) fits ({})", refused.join("; ")))
    };
    Ok([component("X")?, component("Y")?])
}

/// The texts to try for AMD instruction `name` on `generation`: the attributable texts of the
/// nearest table first, then the others, then a transcription.
fn candidate_texts(name: &str, generation: Generation) -> Vec<(Origin, String)> {
    let mut out = Vec::new();
    let Some((home, _)) = Arch::for_generation(generation) else { return out };
    let semantics = Semantics::get();
    let mut order = vec![home];
    order.extend(Arch::ALL.iter().copied().filter(|&a| a != home));
    for arch in order {
        for entry in semantics.entries_named(arch, base_name(name)) {
            if let Pseudocode::Text { arch: from, text, .. } = semantics.pseudocode(arch, entry) {
                let text = transcribed::amend(base_name(name), text);
                if from == arch && !out.iter().any(|(_, t)| *t == text) {
                    out.push((Origin::Table(arch), text));
                }
            }
        }
    }
    if let Some(text) = transcribed::text(name) {
        out.push((Origin::Transcribed, text.to_owned()));
    }
    out
}

/// Register helpers the wave uses for operand widths.
pub trait OperandBits {
    /// Width in bits of a register operand's value (32 per dword), 32 for immediates.
    fn value_bits(&self) -> u8;
}

impl OperandBits for crate::isa::operand::Op {
    fn value_bits(&self) -> u8 {
        match self.value {
            crate::isa::operand::Value::Reg(r) => match r {
                Reg::Special(Special::Vcc | Special::Exec) => 64,
                r => (u32::from(r.count()) * 32).min(64) as u8,
            },
            _ => class_bits(self.class.info().reg_class, 32),
        }
    }
}
