//! One wave: its registers, and running one instruction.
//!
//! The scalar register file is indexed by the hardware's source encoding: s0..s105, then
//! `vcc_lo`/`vcc_hi` at 106/107, the trap temporaries at 108..123, `m0` at 124, `exec_lo`/
//! `exec_hi` at 126/127 (GFX9's `flat_scratch` and `xnack_mask` take 102..105, which GFX9 does
//! not have as SGPRs). VGPRs and AGPRs are stored lane-major per register, 64 lanes wide.

use crate::isa::operand::{Op, Value};
use crate::isa::reg::{Reg, Special};
use crate::isa::semantics::eval::{Footprint, Frame};

use super::ops::{Alu, Dpp, DppControl, MaskDest, VccSource, dpp16_source};

pub const VCC_LO: usize = 106;
pub const M0: usize = 124;
pub const EXEC_LO: usize = 126;
pub const TTMP0: usize = 108;
const FLAT_SCRATCH_LO: usize = 102;
const XNACK_MASK_LO: usize = 104;
/// VGPRs (and AGPRs) a wave may name.
pub const VGPRS: usize = 256;

/// Why an operand cannot be read or written.
pub type RegError = String;

/// The high halves of the apertures `src_shared_base` and `src_private_base` read (see
/// [`super::launch`] for the address map).
#[derive(Clone, Copy, Debug)]
pub struct Apertures {
    pub shared_hi: u32,
    pub private_hi: u32,
}

pub struct Wave {
    pub pc: u64,
    pub sgpr: [u32; 128],
    pub scc: bool,
    pub vgpr: Vec<u32>,
    pub agpr: Vec<u32>,
    /// 32 or 64.
    pub lanes: u32,
    pub apertures: Apertures,
    /// Index of each lane's work-item in the whole grid (private memory is per work-item).
    pub first_item: u64,
    pub done: bool,
    pub at_barrier: bool,
    /// HW_REG_MODE (float rounding and denormal modes, from the descriptor at launch; what
    /// `s_setreg` writes and `s_getreg` reads).
    pub mode: u32,
    /// GFX10's HW_REG_FLAT_SCR_LO/HI, as `s_setreg` left them (the emulator's scratch does not
    /// go through them).
    pub flat_scratch: [u32; 2],
}

impl Wave {
    pub fn new(lanes: u32, apertures: Apertures) -> Wave {
        Wave {
            pc: 0,
            sgpr: [0; 128],
            scc: false,
            vgpr: vec![0; VGPRS * 64],
            agpr: vec![0; VGPRS * 64],
            lanes,
            apertures,
            first_item: 0,
            done: false,
            at_barrier: false,
            mode: 0,
            flat_scratch: [0; 2],
        }
    }

    pub fn lane_mask(&self) -> u64 {
        if self.lanes == 64 { u64::MAX } else { (1u64 << self.lanes) - 1 }
    }

    pub fn exec(&self) -> u64 {
        (u64::from(self.sgpr[EXEC_LO]) | u64::from(self.sgpr[EXEC_LO + 1]) << 32) & self.lane_mask()
    }

    pub fn set_exec(&mut self, v: u64) {
        self.set_sgpr64(EXEC_LO, v & self.lane_mask());
    }

    pub fn vcc(&self) -> u64 {
        (u64::from(self.sgpr[VCC_LO]) | u64::from(self.sgpr[VCC_LO + 1]) << 32) & self.lane_mask()
    }

    pub fn set_vcc(&mut self, v: u64) {
        let v = v & self.lane_mask();
        if self.lanes == 64 {
            self.set_sgpr64(VCC_LO, v);
        } else {
            self.sgpr[VCC_LO] = v as u32;
        }
    }

    pub fn sgpr64(&self, at: usize) -> u64 {
        u64::from(self.sgpr[at]) | u64::from(self.sgpr[at + 1]) << 32
    }

    pub fn set_sgpr64(&mut self, at: usize, v: u64) {
        self.sgpr[at] = v as u32;
        self.sgpr[at + 1] = (v >> 32) as u32;
    }

    pub fn v(&self, reg: usize, lane: u32) -> u32 {
        self.vgpr[reg * 64 + lane as usize]
    }

    pub fn set_v(&mut self, reg: usize, lane: u32, v: u32) {
        self.vgpr[reg * 64 + lane as usize] = v;
    }

    /// Active lanes, lowest first.
    pub fn active(&self) -> impl Iterator<Item = u32> + use<> {
        let exec = self.exec();
        (0..64u32).filter(move |l| exec >> l & 1 == 1)
    }

    /// The scalar slot of a scalar register operand, and its dwords.
    fn scalar_slot(&self, reg: Reg) -> Result<Option<(usize, usize)>, RegError> {
        Ok(Some(match reg {
            Reg::Sgpr { index, count } => (index as usize, count as usize),
            Reg::Ttmp { index, count } => (TTMP0 + index as usize, count as usize),
            Reg::Special(s) => match s {
                Special::VccLo => (VCC_LO, 1),
                Special::VccHi => (VCC_LO + 1, 1),
                Special::Vcc => (VCC_LO, 2),
                Special::ExecLo => (EXEC_LO, 1),
                Special::ExecHi => (EXEC_LO + 1, 1),
                Special::Exec => (EXEC_LO, 2),
                Special::M0 => (M0, 1),
                Special::FlatScratchLo => (FLAT_SCRATCH_LO, 1),
                Special::FlatScratchHi => (FLAT_SCRATCH_LO + 1, 1),
                Special::FlatScratch => (FLAT_SCRATCH_LO, 2),
                Special::XnackMaskLo => (XNACK_MASK_LO, 1),
                Special::XnackMaskHi => (XNACK_MASK_LO + 1, 1),
                Special::XnackMask => (XNACK_MASK_LO, 2),
                Special::Null => return Ok(None),
                other => return Err(format!("register {} is not modelled", other.name())),
            },
            other => return Err(format!("{other} is not a scalar register")),
        }))
    }

    /// A scalar operand's value (`bits` wide: 32 or 64).
    pub fn read_scalar(&self, value: Value, bits: u8) -> Result<u64, RegError> {
        let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        Ok(match value {
            Value::Reg(Reg::Special(s)) if matches!(s, Special::SrcScc | Special::SrcVccz | Special::SrcExecz | Special::SrcSharedBase | Special::SrcPrivateBase | Special::SrcSharedLimit | Special::SrcPrivateLimit) => {
                match s {
                    Special::SrcScc => u64::from(self.scc),
                    Special::SrcVccz => u64::from(self.vcc() == 0),
                    Special::SrcExecz => u64::from(self.exec() == 0),
                    // As 64-bit operands these read the aperture's base or limit address.
                    Special::SrcSharedBase => u64::from(self.apertures.shared_hi) << 32,
                    Special::SrcPrivateBase => u64::from(self.apertures.private_hi) << 32,
                    Special::SrcSharedLimit => u64::from(self.apertures.shared_hi) << 32 | 0xffff_ffff,
                    _ => u64::from(self.apertures.private_hi) << 32 | 0xffff_ffff,
                }
                .checked_shr(if bits == 32 { 32 } else { 0 })
                .unwrap_or(0)
                    & mask
            }
            Value::Reg(reg) => match self.scalar_slot(reg)? {
                None => 0,
                Some((at, count)) => {
                    let lo = u64::from(self.sgpr[at]);
                    // A 32-bit register read as 64 bits (a lane mask in wave32) is zero-extended.
                    let hi = if count >= 2 && bits > 32 { u64::from(self.sgpr[at + 1]) } else { 0 };
                    (lo | hi << 32) & mask
                }
            },
            Value::Imm(v) | Value::InlineInt(v) => (v as u64) & mask,
            Value::InlineFloat(enc) => inline_float(enc, bits),
            Value::Literal(v) => {
                // Integer operands zero-extend a 32-bit literal (AMD ISA guides, "Literal
                // Expansion"); 64-bit float operands take it as the high half (not modelled).
                u64::from(v) & mask
            }
            Value::Literal64(v) => v & mask,
            Value::None => 0,
        })
    }

    /// An operand's value for one lane.
    pub fn read_lane(&self, value: Value, lane: u32, bits: u8) -> Result<u64, RegError> {
        match value {
            Value::Reg(Reg::Vgpr { index, count }) | Value::Reg(Reg::Agpr { index, count }) => {
                let file = if matches!(value, Value::Reg(Reg::Vgpr { .. })) { &self.vgpr } else { &self.agpr };
                let i = index as usize;
                if i + count as usize > VGPRS {
                    return Err(format!("v{i} is past the register file"));
                }
                let lo = u64::from(file[i * 64 + lane as usize]);
                let hi = if count >= 2 && bits > 32 { u64::from(file[(i + 1) * 64 + lane as usize]) } else { 0 };
                let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                Ok((lo | hi << 32) & mask)
            }
            Value::Reg(Reg::Vgpr16 { .. }) => Err("16-bit register halves are not modelled".into()),
            other => self.read_scalar(other, bits),
        }
    }

    /// Writes a scalar operand (`bits` wide).
    pub fn write_scalar(&mut self, value: Value, v: u64, bits: u8) -> Result<(), RegError> {
        let Value::Reg(reg) = value else { return Err("writes a non-register operand".into()) };
        let Some((at, count)) = self.scalar_slot(reg)? else { return Ok(()) };
        self.sgpr[at] = v as u32;
        if count >= 2 && bits > 32 {
            self.sgpr[at + 1] = (v >> 32) as u32;
        }
        if at == EXEC_LO || at == EXEC_LO + 1 {
            let e = self.exec();
            self.set_exec(e);
        }
        Ok(())
    }

    /// Writes one lane of a vector operand (or the scalar, for a scalar destination).
    pub fn write_lane(&mut self, value: Value, lane: u32, v: u64, bits: u8) -> Result<(), RegError> {
        match value {
            Value::Reg(Reg::Vgpr { index, count }) | Value::Reg(Reg::Agpr { index, count }) => {
                let agpr = matches!(value, Value::Reg(Reg::Agpr { .. }));
                let i = index as usize;
                if i + count as usize > VGPRS {
                    return Err(format!("v{i} is past the register file"));
                }
                let file = if agpr { &mut self.agpr } else { &mut self.vgpr };
                file[i * 64 + lane as usize] = v as u32;
                if count >= 2 && bits > 32 {
                    file[(i + 1) * 64 + lane as usize] = (v >> 32) as u32;
                }
                Ok(())
            }
            other => self.write_scalar(other, v, bits),
        }
    }

    /// Runs an ALU instruction's program on the wave (each active lane, or once).
    pub fn run_alu(&mut self, alu: &Alu, ops: &[Op]) -> Result<(), RegError> {
        for &i in &alu.unmodelled {
            if !matches!(ops[i].value, Value::Imm(0) | Value::None) {
                return Err(format!("operand `{}` is {:?}: modifiers are not modelled", ops[i].name.name(), ops[i].value));
            }
        }
        let f = &alu.footprint;
        if f.float && self.mode & 0xf != 0 {
            return Err(format!("float round mode {:#x} (MODE.FP_ROUND) is not modelled: only round to nearest even is", self.mode & 0xf));
        }
        let mods = self.modifiers(alu, ops)?;
        let exec = self.exec();
        let mut frame = Frame { d0: 0, d0_bits: 32, d1: 0, scc: self.scc, vcc: 0, vcc_out: 0, exec, exec_out: exec, lane: 0, mode: self.mode };
        if f.reads_vcc {
            frame.vcc = match alu.vcc_in {
                VccSource::Vcc => self.vcc(),
                VccSource::Operand(i) => self.read_scalar(ops[i].value, self.lanes as u8)?,
            };
        }
        if f.writes_exec_lane {
            frame.exec_out = 0;
        }
        let mut srcs = [(0u64, 32u8); 4];
        let n = alu.sources.len().min(4);
        if !alu.vector {
            for (k, &(i, bits)) in alu.sources.iter().take(n).enumerate() {
                srcs[k] = (self.read_scalar(float_operand(ops[i].value, f.src_float.get(k).copied().unwrap_or(0)), bits)?, bits);
                srcs[k].0 = mods.source(k, srcs[k].0, f, bits);
            }
            if let Some((d, bits)) = alu.dest {
                frame.d0_bits = bits;
                if f.reads_d0 {
                    frame.d0 = self.read_scalar(ops[d].value, bits)?;
                }
            }
            alu.program.run_frame(&mut frame, &srcs[..n]).map_err(|e| e.0)?;
            if let Some((d, bits)) = alu.dest {
                self.write_scalar(ops[d].value, mods.result(frame.d0, f, self.mode), bits)?;
            }
            self.scc = frame.scc;
            if f.writes_exec {
                self.set_exec(frame.exec_out);
            }
            return Ok(());
        }
        let mut mask = 0u64;
        let d0_bits = alu.dest.map_or(32, |d| d.1);
        // DPP: every lane's src0 fetched before any lane writes (the destination may be src0).
        let shared = match &alu.dpp {
            Some(dpp) => Some(self.dpp_fetch(alu, dpp, ops)?),
            None => None,
        };
        for lane in self.active() {
            if shared.as_ref().is_some_and(|s| s.written >> lane & 1 == 0) {
                continue;
            }
            for (k, &(i, bits)) in alu.sources.iter().take(n).enumerate() {
                srcs[k] = (self.read_lane(float_operand(ops[i].value, f.src_float.get(k).copied().unwrap_or(0)), lane, bits)?, bits);
            }
            if let Some(s) = &shared {
                srcs[0].0 = s.src0[lane as usize];
            }
            if let Some(sdwa) = &alu.sdwa {
                for (k, sel) in sdwa.src.iter().enumerate().take(n) {
                    if let Some((sel, mods)) = *sel {
                        let sext = mods.is_some_and(|m| imm_of(&ops[m]) & 1 != 0);
                        srcs[k].0 = sdwa_select(srcs[k].0, imm_of(&ops[sel]), sext)?;
                    }
                }
            }
            for (k, src) in srcs.iter_mut().enumerate().take(n) {
                src.0 = mods.source(k, src.0, f, src.1);
            }
            frame.lane = lane;
            frame.d0_bits = d0_bits;
            frame.d0 = if alu.mask_dest.is_some() {
                mask
            } else if let (Some((d, bits)), true) = (alu.dest, f.reads_d0 || alu.preserve_high) {
                self.read_lane(ops[d].value, lane, bits)?
            } else {
                0
            };
            alu.program.run_frame(&mut frame, &srcs[..n]).map_err(|e| e.0)?;
            if alu.mask_dest.is_some() {
                mask = frame.d0;
            } else if let Some((d, bits)) = alu.dest {
                let mut v = mods.result(frame.d0, f, self.mode);
                if let Some(sdwa) = &alu.sdwa {
                    let old = self.read_lane(ops[d].value, lane, 32)?;
                    let sel = sdwa.dst_sel.map_or(6, |i| imm_of(&ops[i]));
                    let unused = sdwa.dst_unused.map_or(0, |i| imm_of(&ops[i]));
                    v = sdwa_place(v, old, sel, unused)?;
                }
                self.write_lane(ops[d].value, lane, v, bits)?;
            }
        }
        let wave_bits = self.lanes as u8;
        let put_mask = |w: &mut Wave, dest: MaskDest, v: u64| match dest {
            MaskDest::Vcc => {
                w.set_vcc(v);
                Ok(())
            }
            MaskDest::Operand(i) => w.write_scalar(ops[i].value, v & w.lane_mask(), wave_bits),
        };
        if let Some(dest) = alu.mask_dest {
            put_mask(self, dest, mask)?;
        }
        if f.writes_vcc {
            put_mask(self, alu.vcc_out, frame.vcc_out)?;
        }
        if f.writes_d1 {
            put_mask(self, alu.vcc_out, frame.d1)?;
        }
        if f.writes_exec_lane || f.writes_exec {
            self.set_exec(frame.exec_out);
        }
        Ok(())
    }
}

/// What a DPP instruction's lanes read: src0 per lane (from the lane the control names, or
/// zero), and the lanes that run and write (the others keep their destination).
struct DppFetch {
    src0: [u64; 64],
    written: u64,
}

impl Wave {
    /// The DPP lane sharing of AMD's ISA guides ("Data Parallel Processing") and LLVM's
    /// AMDGPUModifierSyntax (dpp_ctrl, row_mask, bank_mask, bound_ctrl, fi, dpp8): an active
    /// lane whose row (16 lanes) or bank (4 lanes of a row) the masks disable is not written.
    /// Its source lane is invalid where the control gives none or (without `fi`) EXEC
    /// disables it; then `bound_ctrl` set reads 0, clear leaves the lane unwritten. DPP8
    /// always has a source lane; one EXEC disables reads 0 unless `fi`.
    fn dpp_fetch(&self, alu: &Alu, dpp: &Dpp, ops: &[Op]) -> Result<DppFetch, RegError> {
        let exec = self.exec();
        let fi = dpp.fi.is_some_and(|i| matches!(imm_of(&ops[i]), 1 | 0xea));
        let (src, bits) = alu.sources[0];
        let src = ops[src].value;
        let mut out = DppFetch { src0: [0; 64], written: 0 };
        let readable = |s: u32| fi || exec >> s & 1 == 1;
        for lane in self.active() {
            let source = match dpp.control {
                DppControl::Dpp8 { selects } => Some((lane & !7) + ((imm_of(&ops[selects]) as u32 >> (3 * (lane & 7))) & 7)),
                DppControl::Dpp16 { ctrl, row_mask, bank_mask, bound_ctrl } => {
                    let (rows, banks) = (imm_of(&ops[row_mask]), imm_of(&ops[bank_mask]));
                    if rows >> (lane / 16) & 1 == 0 || banks >> ((lane / 4) % 4) & 1 == 0 {
                        continue;
                    }
                    match dpp16_source(imm_of(&ops[ctrl]) as u32, lane, self.lanes, dpp.flavour)? {
                        Some(s) if readable(s) => Some(s),
                        _ if imm_of(&ops[bound_ctrl]) != 0 => None,
                        _ => continue,
                    }
                }
            };
            out.src0[lane as usize] = match source {
                Some(s) if readable(s) => self.read_lane(src, s, bits)?,
                _ => 0,
            };
            out.written |= 1 << lane;
        }
        let f = &alu.footprint;
        if out.written != exec && (alu.mask_dest.is_some() || f.writes_vcc || f.writes_d1 || f.writes_exec || f.writes_exec_lane) {
            // Which bit a lane DPP leaves unwritten gets in a lane mask (VOPC, a carry) is not
            // in the texts: stop rather than guess.
            return Err(format!("DPP leaves lanes {:#x} of EXEC {exec:#x} unwritten in an instruction that writes a lane mask: not modelled", exec & !out.written));
        }
        Ok(out)
    }
}

/// One instruction's source and output modifiers, read from its operands.
struct Modifiers {
    /// Per source: negate, absolute value.
    src: [(bool, bool); 3],
    /// Per source of a packed instruction: the modifier bits (NEG = neg_lo 1, NEG_HI =
    /// neg_hi 2, OP_SEL_0 = op_sel 4, OP_SEL_1 = op_sel_hi 8), and the half width.
    packed: Option<([i64; 3], u8)>,
    /// Per source of a mixed-precision instruction: the modifier bits (OP_SEL_1 = op_sel_hi
    /// 8: an f16 source; OP_SEL_0 = op_sel 4: in the high half).
    mix: Option<[i64; 3]>,
    clamp: bool,
    /// 0 none, 1 times 2, 2 times 4, 3 divided by 2.
    omod: i64,
}

impl Modifiers {
    /// A source value with `abs` then `neg` applied at its float width (or, for a source the
    /// text reads as bits, such as `v_cndmask_b32`'s, at the width it is read: the sign bit).
    fn source(&self, k: usize, v: u64, f: &Footprint, bits: u8) -> u64 {
        if let Some((raw, half)) = self.packed {
            // Each half of the source from either half (op_sel for the low result, op_sel_hi
            // for the high), then negated (neg_lo, neg_hi).
            let m = raw.get(k).copied().unwrap_or(0);
            let field = (1u64 << half) - 1;
            let (lo, hi) = (v & field, (v >> half) & field);
            let sign = 1u64 << (half - 1);
            let new_lo = if m & 4 != 0 { hi } else { lo } ^ if m & 1 != 0 { sign } else { 0 };
            let new_hi = if m & 8 != 0 { hi } else { lo } ^ if m & 2 != 0 { sign } else { 0 };
            return new_lo | new_hi << half;
        }
        // A mixed-precision source: an f16 (op_sel_hi) from either half (op_sel), widened to
        // f32 (exactly), then `abs` and `neg` at f32 as for any f32 source.
        let v = match self.mix.and_then(|raw| raw.get(k).copied()) {
            Some(m) if m & 8 != 0 => {
                let half = if m & 4 != 0 { v >> 16 } else { v } & 0xffff;
                u64::from(f16_to_f32_bits(half as u16))
            }
            Some(_) => v & 0xffff_ffff,
            None => v,
        };
        let Some(&(neg, abs)) = self.src.get(k) else { return v };
        let width = match f.src_float.get(k).copied().unwrap_or(0) {
            0 => bits,
            w => w,
        };
        if !(neg || abs) {
            return v;
        }
        let sign = 1u64 << (width - 1);
        let v = if abs { v & !sign } else { v };
        if neg { v ^ sign } else { v }
    }

    /// A float result with the output modifier and clamp applied: at the result's float width
    /// (an f16 result in the low half of its register keeps the high half as it is), or, for
    /// packed math, to each half.
    fn result(&self, v: u64, f: &Footprint, mode: u32) -> u64 {
        if self.omod == 0 && !self.clamp {
            return v;
        }
        if let Some((_, half)) = self.packed {
            let field = (1u64 << half) - 1;
            let lo = self.apply(v & field, half, mode);
            let hi = self.apply((v >> half) & field, half, mode);
            return lo | hi << half;
        }
        match f.d0_float {
            Some(16) => (v & !0xffff) | self.apply(v & 0xffff, 16, mode),
            Some(width) => self.apply(v, width, mode),
            None => v,
        }
    }

    /// omod then clamp on one float of `width` bits (AMD's ISA guides: "output modifier"
    /// multiplies by 2, 4 or 0.5; clamp limits to [0.0, 1.0], a NaN becoming 0 in DX10_CLAMP
    /// mode). The scaling is exact in f64; the result is rounded once to the width.
    fn apply(&self, v: u64, width: u8, mode: u32) -> u64 {
        use crate::isa::semantics::eval::float::{f16_to_f64, f64_to_f16};
        let x = match width {
            64 => f64::from_bits(v),
            32 => f64::from(f32::from_bits(v as u32)),
            _ => f16_to_f64(v as u16),
        };
        let mut y = x
            * match self.omod {
                1 => 2.0,
                2 => 4.0,
                3 => 0.5,
                _ => 1.0,
            };
        if self.clamp {
            y = if y.is_nan() { if mode >> 8 & 1 == 1 { 0.0 } else { y } } else { y.clamp(0.0, 1.0) };
        }
        if y.is_nan() {
            return v;
        }
        match width {
            64 => y.to_bits(),
            32 => u64::from((y as f32).to_bits()),
            _ => u64::from(f64_to_f16(y)),
        }
    }
}

impl Wave {
    fn modifiers(&self, alu: &Alu, ops: &[Op]) -> Result<Modifiers, RegError> {
        let f = &alu.footprint;
        let mut m = Modifiers { src: [(false, false); 3], packed: None, mix: None, clamp: false, omod: 0 };
        if let Some(half) = alu.packed {
            let mut raw = [0i64; 3];
            for (k, i) in alu.mods.iter().enumerate() {
                raw[k] = i.map_or(0, |i| imm_of(&ops[i]));
            }
            m.packed = Some((raw, half));
        }
        for (k, i) in alu.mods.iter().enumerate() {
            let Some(i) = *i else { continue };
            if alu.packed.is_some() {
                break;
            }
            let bits = imm_of(&ops[i]);
            if alu.dot {
                // op_sel_hi (8) is set by default and means nothing to a source read whole.
                if bits & !8 != 0 {
                    return Err(format!("operand `{}` is {bits:#x}: op_sel or neg on a dot product is not modelled", ops[i].name.name()));
                }
                continue;
            }
            if alu.mix {
                // Whether the hardware reads an inline constant or a literal as an f16 or an
                // f32 where op_sel_hi marks the source f16 is not settled by AMD's texts: stop.
                let constant = alu.sources.get(k).is_some_and(|&(s, _)| !matches!(ops[s].value, Value::Reg(_)));
                if bits & 8 != 0 && constant {
                    return Err(format!("source {k} is a constant read as an f16 (op_sel_hi): not modelled"));
                }
                m.mix.get_or_insert([0; 3])[k] = bits;
            } else if bits & !3 != 0 {
                return Err(format!("operand `{}` is {bits:#x}: op_sel in source modifiers is not modelled", ops[i].name.name()));
            }
            m.src[k] = (bits & 1 != 0, bits & 2 != 0);
        }
        m.clamp = alu.clamp.is_some_and(|i| imm_of(&ops[i]) != 0);
        m.omod = alu.omod.map_or(0, |i| imm_of(&ops[i]));
        let float_result = match alu.packed {
            // Packed math clamps each half; an integer one (`v_pk_add_u16`) saturates instead.
            Some(_) => f.float && m.omod == 0,
            None => matches!(f.d0_float, Some(16 | 32 | 64)),
        };
        if (m.clamp || m.omod != 0) && !float_result {
            return Err("clamp or omod on a result that is not an f16, f32 or f64 (integer clamp saturates) is not modelled".into());
        }
        Ok(m)
    }
}

/// A source operand as the instruction reads it when the text views it as a float of
/// `width` bits: inline constants are that width's encoding, and a 32-bit literal for an f64
/// operand is the value's high half.
fn float_operand(value: Value, width: u8) -> Value {
    match (value, width) {
        (Value::InlineFloat(enc), 16) => Value::Imm(i64::from(inline_f16(enc))),
        (Value::Literal(v), 64) => Value::Literal64(u64::from(v) << 32),
        (v, _) => v,
    }
}

/// binary16 `h` widened to binary32 (exact; a NaN keeps its payload and is made quiet, as
/// AMD's `f16_to_f32` does).
fn f16_to_f32_bits(h: u16) -> u32 {
    let sign = u32::from(h & 0x8000) << 16;
    let (e, m) = (u32::from(h >> 10 & 0x1f), u32::from(h & 0x3ff));
    match e {
        0 => sign | (m as f32 * f32::from_bits(0x3380_0000)).to_bits(), // m * 2^-24, exact
        31 if m == 0 => sign | 0x7f80_0000,
        31 => sign | 0x7fc0_0000 | m << 13,
        _ => sign | (e + 112) << 23 | m << 13,
    }
}

/// Inline float constant `enc` (240..=248) as binary16 bits.
fn inline_f16(enc: u16) -> u16 {
    match enc {
        240 => 0x3800,
        241 => 0xb800,
        242 => 0x3c00,
        243 => 0xbc00,
        244 => 0x4000,
        245 => 0xc000,
        246 => 0x4400,
        247 => 0xc400,
        _ => 0x3118,
    }
}

impl Wave {
    /// Runs a VOPD pair: per lane, both components read their sources before either writes.
    pub fn run_dual(&mut self, pair: &[Alu; 2], ops: &[Op]) -> Result<(), RegError> {
        for alu in pair {
            for &i in &alu.unmodelled {
                if !matches!(ops[i].value, Value::Imm(0) | Value::None) {
                    return Err(format!("operand `{}` is {:?}: modifiers are not modelled", ops[i].name.name(), ops[i].value));
                }
            }
        }
        let exec = self.exec();
        let vcc = self.vcc();
        for lane in self.active() {
            let mut results = [0u64; 2];
            for (k, alu) in pair.iter().enumerate() {
                let mut srcs = [(0u64, 32u8); 3];
                let n = alu.sources.len().min(3);
                for (j, &(i, bits)) in alu.sources.iter().take(n).enumerate() {
                    srcs[j] = (self.read_lane(ops[i].value, lane, bits)?, bits);
                }
                let (d, bits) = alu.dest.expect("a VOPD component has a destination");
                let d0 = if alu.footprint.reads_d0 { self.read_lane(ops[d].value, lane, bits)? } else { 0 };
                let mut frame = Frame { d0, d0_bits: 32, d1: 0, scc: self.scc, vcc, vcc_out: 0, exec, exec_out: exec, lane, mode: self.mode };
                alu.program.run_frame(&mut frame, &srcs[..n]).map_err(|e| e.0)?;
                results[k] = frame.d0;
            }
            for (k, alu) in pair.iter().enumerate() {
                let (d, bits) = alu.dest.expect("checked");
                self.write_lane(ops[d].value, lane, results[k], bits)?;
            }
        }
        Ok(())
    }
}

fn imm_of(op: &Op) -> i64 {
    match op.value {
        Value::Imm(v) => v,
        _ => 0,
    }
}

/// (shift, width) of an SDWA select: BYTE_0..3, WORD_0..1, DWORD.
fn sdwa_field(sel: i64) -> Result<(u32, u32), RegError> {
    Ok(match sel {
        0..=3 => (8 * sel as u32, 8),
        4 | 5 => (16 * (sel as u32 - 4), 16),
        6 => (0, 32),
        _ => return Err(format!("SDWA select {sel} does not exist")),
    })
}

/// An SDWA source: the selected field, zero- or sign-extended.
fn sdwa_select(v: u64, sel: i64, sext: bool) -> Result<u64, RegError> {
    let (shift, width) = sdwa_field(sel)?;
    let field = (v >> shift) & ((1u64 << width) - 1);
    Ok(if sext && width < 32 && field >> (width - 1) & 1 == 1 { (field | !((1u64 << width) - 1)) & 0xffff_ffff } else { field })
}

/// An SDWA result placed in its destination field; the rest padded with zeros, sign bits, or
/// kept (`dst_unused` 0, 1, 2).
fn sdwa_place(v: u64, old: u64, sel: i64, unused: i64) -> Result<u64, RegError> {
    let (shift, width) = sdwa_field(sel)?;
    let m = ((1u64 << width) - 1) << shift;
    let field = (v << shift) & m;
    Ok(match unused {
        0 => field,
        1 => {
            let top = shift + width;
            if top < 32 && v >> (width - 1) & 1 == 1 { field | (0xffff_ffff & !((1u64 << top) - 1)) } else { field }
        }
        2 => (old & !m & 0xffff_ffff) | field,
        _ => return Err(format!("SDWA dst_unused {unused} does not exist")),
    })
}

/// The bits of inline float constant `enc` (240..=248) as an operand of `bits` width.
fn inline_float(enc: u16, bits: u8) -> u64 {
    let v: f64 = match enc {
        240 => 0.5,
        241 => -0.5,
        242 => 1.0,
        243 => -1.0,
        244 => 2.0,
        245 => -2.0,
        246 => 4.0,
        247 => -4.0,
        _ => 1.0 / (2.0 * std::f64::consts::PI),
    };
    match (enc, bits) {
        (248, 64) => 0x3fc4_5f30_6dc9_c882,
        (248, _) => 0x3e22_f983,
        (_, 64) => v.to_bits(),
        _ => u64::from((v as f32).to_bits()),
    }
}
