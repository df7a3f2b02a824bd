//! One instruction of a wave: fetch from emulated memory, decode (cached by address), and run.

use std::collections::HashMap;
use std::rc::Rc;

use crate::isa::operand::{Op, Operands, Value, decode_operands};
use crate::isa::reg::{Reg, Special};
use crate::isa::table::OperandName;
use crate::isa::{Decoder, Inst, Target};

use super::StopKind;
use super::memory::Memory;
use super::ops::{self, Access, Atomic, AtomicOp, Cond, Kind, Native, Space};
use super::wave::Wave;

/// Where the emulated address space puts things (see `docs/emulator.md`).
pub mod map {
    /// The code object's image (its `PT_LOAD` segments at their virtual addresses plus this).
    pub const IMAGE_BASE: u64 = 0x0000_7f00_0000_0000;
    pub const QUEUE: u64 = 0x0000_0000_0e00_0000;
    pub const DISPATCH_PACKET: u64 = 0x0000_0000_0f00_0000;
    pub const KERNARG: u64 = 0x0000_0000_1000_0000;
    /// Buffers, each at a 64 KiB boundary with unmapped space between.
    pub const BUFFERS: u64 = 0x0000_0002_0000_0000;
    /// Flat addresses in these 4 GiB apertures reach LDS and private memory.
    pub const SHARED_APERTURE_HI: u32 = 0x1000_0000;
    pub const PRIVATE_APERTURE_HI: u32 = 0x2000_0000;
    /// The base address of the private segment buffer resource a kernel receives (GFX9 and
    /// GFX10 scratch through `buffer_*`): a buffer access through a resource based in
    /// `[PRIVATE_BUFFER_BASE, +4 GiB)` reaches the lane's private memory.
    pub const PRIVATE_BUFFER_BASE: u64 = 0x0000_8000_0000_0000;
    /// Private memory: one window per work-item, each `PRIVATE_WINDOW` bytes.
    pub const PRIVATE_STORE: u64 = 0x3000_0000_0000_0000;
    pub const PRIVATE_WINDOW: u64 = 1 << 24;
}

/// One decoded instruction and what to do for it.
pub struct Decoded {
    pub inst: Inst,
    pub ops: Operands,
    pub kind: Rc<Kind>,
}

/// The decoded code of one run: instructions by address, and each encoding's action.
pub struct Code {
    pub decoder: Decoder,
    pub target: Target,
    by_pc: HashMap<u64, Rc<Decoded>>,
    kinds: HashMap<u16, Rc<Kind>>,
}

/// A fault inside an instruction; the caller names the kernel and the instruction.
#[derive(Debug)]
pub struct Fault {
    pub kind: StopKind,
    pub lane: Option<u32>,
    pub address: Option<u64>,
    pub message: String,
}

impl Fault {
    fn new(kind: StopKind, message: impl Into<String>) -> Fault {
        Fault { kind, lane: None, address: None, message: message.into() }
    }

    fn unmapped(lane: Option<u32>, address: u64, what: &str) -> Fault {
        Fault { kind: StopKind::Fault, lane, address: Some(address), message: format!("{what} outside mapped memory") }
    }
}

fn reg_fault(message: String) -> Fault {
    Fault::new(StopKind::Unimplemented, message)
}

impl Code {
    pub fn new(target: Target) -> Code {
        Code { decoder: Decoder::new(target), target, by_pc: HashMap::new(), kinds: HashMap::new() }
    }

    /// The instruction at `pc`.
    pub fn fetch(&mut self, memory: &Memory, pc: u64) -> Result<Rc<Decoded>, Fault> {
        if let Some(d) = self.by_pc.get(&pc) {
            return Ok(d.clone());
        }
        let mut bytes = [0u8; crate::isa::inst::MAX_INST_BYTES];
        let mut len = 0;
        while len < bytes.len() && memory.read(pc + len as u64, &mut bytes[len..len + 4]).is_ok() {
            len += 4;
        }
        if len == 0 {
            return Err(Fault::unmapped(None, pc, "the program counter is"));
        }
        let inst = self.decoder.decode(&bytes[..len]);
        let Some(e) = inst.encoding() else {
            return Err(Fault::new(StopKind::Unimplemented, format!("the word {:#010x} does not decode", inst.words()[0])));
        };
        let ops = decode_operands(e, inst.encoded_bits(), &bytes[inst.tail_at().min(len)..len], &self.target)
            .map_err(|f| Fault::new(StopKind::Unimplemented, format!("operands do not decode: {f:?}")))?;
        let index = inst.encoding_index().expect("decoded");
        let wave64 = self.target.wave64;
        let generation = self.target.generation();
        let kind = self.kinds.entry(index).or_insert_with(|| Rc::new(ops::compile(e, &ops, generation, wave64))).clone();
        let d = Rc::new(Decoded { inst, ops, kind });
        self.by_pc.insert(pc, d.clone());
        Ok(d)
    }

    /// The instruction's text as `llvm-objdump` prints it, at ELF address `address`.
    pub fn text(&self, d: &Decoded, address: u64) -> String {
        crate::isa::print::print(&d.inst, &self.target, address)
    }
}

/// Counts of one run.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    pub wave_instructions: u64,
    /// Active lanes summed over vector instructions.
    pub lane_instructions: u64,
    pub waitcnts: u64,
    /// Executions per mnemonic (the opcode coverage).
    pub by_mnemonic: std::collections::BTreeMap<&'static str, u64>,
}

/// What a wave's instruction may touch besides its registers.
pub struct Context<'a> {
    pub memory: &'a mut Memory,
    /// The workgroup's LDS.
    pub lds: &'a mut [u8],
    /// Bytes of private memory each work-item has.
    pub private_size: u64,
    pub counts: &'a mut Counts,
    /// Set by a global or flat memory instruction: its first active lane's address (what
    /// `Options::record_memory` records).
    pub first_address: Option<u64>,
}

fn op<'a>(ops: &'a [Op], name: OperandName) -> Option<&'a Op> {
    ops.iter().find(|o| o.name == name)
}

fn imm(ops: &[Op], name: OperandName) -> i64 {
    match op(ops, name).map(|o| o.value) {
        Some(Value::Imm(v)) => v,
        _ => 0,
    }
}

/// A register operand that is present (not `off`/`null`).
fn present(ops: &[Op], name: OperandName) -> Option<Value> {
    match op(ops, name)?.value {
        Value::None | Value::Reg(Reg::Special(Special::Null)) => None,
        v => Some(v),
    }
}


/// Runs the instruction at the wave's program counter.
pub fn step(wave: &mut Wave, code: &mut Code, ctx: &mut Context) -> Result<(), Fault> {
    let pc = wave.pc;
    let d = code.fetch(ctx.memory, pc)?;
    let next = pc + d.inst.len() as u64;
    let ops = d.ops.as_slice();
    ctx.counts.wave_instructions += 1;
    if let Some(e) = d.inst.encoding() {
        *ctx.counts.by_mnemonic.entry(ops::plain_mnemonic(e)).or_default() += 1;
    }
    wave.pc = next;
    match &*d.kind {
        Kind::Unimplemented(why) => {
            wave.pc = pc;
            Err(Fault::new(StopKind::Unimplemented, format!("not implemented by the emulator: {why}")))
        }
        Kind::Alu(alu) => {
            if alu.vector {
                ctx.counts.lane_instructions += u64::from(wave.exec().count_ones());
            }
            wave.run_alu(alu, ops).map_err(|m| {
                wave.pc = pc;
                reg_fault(m)
            })
        }
        Kind::Dual(pair) => {
            ctx.counts.lane_instructions += u64::from(wave.exec().count_ones());
            wave.run_dual(pair, ops).map_err(|m| {
                wave.pc = pc;
                reg_fault(m)
            })
        }
        Kind::Native(n) => native(*n, wave, ops, pc, next, ctx).inspect_err(|_| wave.pc = pc),
    }
}

fn branch_target(next: u64, ops: &[Op]) -> u64 {
    next.wrapping_add((imm(ops, OperandName::simm16) as i16 as i64 * 4) as u64)
}

fn native(n: Native, wave: &mut Wave, ops: &[Op], pc: u64, next: u64, ctx: &mut Context) -> Result<(), Fault> {
    use Native::*;
    let rf = reg_fault;
    match n {
        Nop => {}
        Waitcnt => ctx.counts.waitcnts += 1,
        EndPgm => wave.done = true,
        Halt => return Err(Fault::new(StopKind::Halt, "the wave trapped or halted")),
        Branch => wave.pc = branch_target(next, ops),
        CBranch(c) => {
            let taken = match c {
                Cond::Scc0 => !wave.scc,
                Cond::Scc1 => wave.scc,
                Cond::Vccz => wave.vcc() == 0,
                Cond::Vccnz => wave.vcc() != 0,
                Cond::Execz => wave.exec() == 0,
                Cond::Execnz => wave.exec() != 0,
            };
            if taken {
                wave.pc = branch_target(next, ops);
            }
        }
        GetPc => wave.write_scalar(op(ops, OperandName::sdst).unwrap().value, next, 64).map_err(rf)?,
        BitCount(bits) => {
            let v = wave.read_scalar(op(ops, OperandName::src0).unwrap().value, bits).map_err(rf)?;
            wave.write_scalar(op(ops, OperandName::sdst).unwrap().value, u64::from(v.count_ones()), 32).map_err(rf)?;
            wave.scc = v != 0;
        }
        FirstOne(bits) => {
            let v = wave.read_scalar(op(ops, OperandName::src0).unwrap().value, bits).map_err(rf)?;
            let first = if v == 0 { u64::from(u32::MAX) } else { u64::from(v.trailing_zeros()) };
            wave.write_scalar(op(ops, OperandName::sdst).unwrap().value, first, 32).map_err(rf)?;
        }
        SetPc => wave.pc = wave.read_scalar(op(ops, OperandName::src0).unwrap().value, 64).map_err(rf)?,
        SwapPc => {
            let target = wave.read_scalar(op(ops, OperandName::src0).unwrap().value, 64).map_err(rf)?;
            wave.write_scalar(op(ops, OperandName::sdst).unwrap().value, next, 64).map_err(rf)?;
            wave.pc = target;
        }
        Call => {
            wave.write_scalar(op(ops, OperandName::sdst).unwrap().value, next, 64).map_err(rf)?;
            wave.pc = branch_target(next, ops);
        }
        Barrier => wave.at_barrier = true,
        GetReg { flat_scratch } => {
            let field = HwReg::decode(imm(ops, OperandName::simm16));
            let v = field.get(*hw_reg(wave, field.id, flat_scratch)?);
            wave.write_scalar(op(ops, OperandName::sdst).unwrap().value, u64::from(v), 32).map_err(rf)?;
        }
        SetReg { imm: literal, flat_scratch } => {
            let field = HwReg::decode(imm(ops, OperandName::simm16));
            let v = if literal { imm(ops, OperandName::imm) as u32 } else { wave.read_scalar(op(ops, OperandName::sdst).unwrap().value, 32).map_err(rf)? as u32 };
            let reg = hw_reg(wave, field.id, flat_scratch)?;
            *reg = field.set(*reg, v);
        }
        ReadLane | ReadFirstLane => {
            let lane = if n == ReadLane {
                (wave.read_scalar(op(ops, OperandName::src1).unwrap().value, 32).map_err(rf)? % u64::from(wave.lanes)) as u32
            } else {
                wave.active().next().unwrap_or(0)
            };
            let v = wave.read_lane(op(ops, OperandName::src0).unwrap().value, lane, 32).map_err(rf)?;
            let dst = ops.iter().find(|o| matches!(o.name.name(), "vdst" | "sdst")).unwrap();
            wave.write_scalar(dst.value, v, 32).map_err(rf)?;
        }
        WriteLane => {
            let lane = (wave.read_scalar(op(ops, OperandName::src1).unwrap().value, 32).map_err(rf)? % u64::from(wave.lanes)) as u32;
            let v = wave.read_scalar(op(ops, OperandName::src0).unwrap().value, 32).map_err(rf)?;
            wave.write_lane(op(ops, OperandName::vdst).unwrap().value, lane, v, 32).map_err(rf)?;
        }
        Copy => {
            let src = op(ops, OperandName::src0).or_else(|| op(ops, OperandName::vsrc)).unwrap().value;
            let dst = op(ops, OperandName::vdst).unwrap().value;
            for lane in wave.active() {
                let v = wave.read_lane(src, lane, 32).map_err(rf)?;
                wave.write_lane(dst, lane, v, 32).map_err(rf)?;
            }
            ctx.counts.lane_instructions += u64::from(wave.exec().count_ones());
        }
        PkMov => {
            // op_sel is carried in each source's modifiers (OP_SEL_0 = 4); negation (1, 2)
            // means nothing to a move and is refused.
            let m0 = imm(ops, OperandName::src0_modifiers);
            let m1 = imm(ops, OperandName::src1_modifiers);
            if (m0 | m1) & 3 != 0 || present(ops, OperandName::clamp).is_some_and(|c| c != Value::Imm(0)) {
                return Err(Fault::new(StopKind::Unimplemented, "v_pk_mov_b32 with neg or clamp is not modelled"));
            }
            let (s0, s1) = (op(ops, OperandName::src0).unwrap().value, op(ops, OperandName::src1).unwrap().value);
            let dst = op(ops, OperandName::vdst).unwrap().value;
            for lane in wave.active() {
                let a = wave.read_lane(s0, lane, 64).map_err(rf)?;
                let b = wave.read_lane(s1, lane, 64).map_err(rf)?;
                let lo = if m0 & 4 != 0 { a >> 32 } else { a & 0xffff_ffff };
                let hi = if m1 & 4 != 0 { b >> 32 } else { b & 0xffff_ffff };
                wave.write_lane(dst, lane, lo | hi << 32, 64).map_err(rf)?;
            }
            ctx.counts.lane_instructions += u64::from(wave.exec().count_ones());
        }
        Mbcnt { hi } => {
            refuse_modifiers(ops, n)?;
            let (s0, s1) = (op(ops, OperandName::src0).unwrap().value, op(ops, OperandName::src1).unwrap().value);
            let dst = op(ops, OperandName::vdst).unwrap().value;
            for lane in wave.active() {
                let below = (1u64 << lane) - 1;
                let half = if hi { below >> 32 } else { below & 0xffff_ffff };
                let bits = wave.read_lane(s0, lane, 32).map_err(rf)? & half;
                let v = wave.read_lane(s1, lane, 32).map_err(rf)?.wrapping_add(u64::from(bits.count_ones())) & 0xffff_ffff;
                wave.write_lane(dst, lane, v, 32).map_err(rf)?;
            }
            ctx.counts.lane_instructions += u64::from(wave.exec().count_ones());
        }
        Bfrev => {
            refuse_modifiers(ops, n)?;
            let (src, dst) = (op(ops, OperandName::src0).unwrap().value, op(ops, OperandName::vdst).unwrap().value);
            for lane in wave.active() {
                let v = (wave.read_lane(src, lane, 32).map_err(rf)? as u32).reverse_bits();
                wave.write_lane(dst, lane, u64::from(v), 32).map_err(rf)?;
            }
            ctx.counts.lane_instructions += u64::from(wave.exec().count_ones());
        }
        Permlane16 { cross } => {
            // op_sel[0] of src0 is FI (fetch inactive), op_sel[0] of src1 BOUND_CTRL: AMD's text
            // reads the source lane whether EXEC enables it or not; the emulator does so only
            // where FI says so, and stops where the hardware's answer would rest on the bits.
            let fi = imm(ops, OperandName::src0_modifiers) & 4 != 0;
            if (imm(ops, OperandName::src0_modifiers) | imm(ops, OperandName::src1_modifiers) | imm(ops, OperandName::src2_modifiers)) & !4 != 0 {
                return Err(Fault::new(StopKind::Unimplemented, format!("{n:?} with source modifiers other than fi is not modelled")));
            }
            let src = op(ops, OperandName::src0).unwrap().value;
            let select = wave.read_scalar(op(ops, OperandName::src1).unwrap().value, 32).map_err(rf)? | wave.read_scalar(op(ops, OperandName::src2).unwrap().value, 32).map_err(rf)? << 32;
            let dst = op(ops, OperandName::vdst).unwrap().value;
            let exec = wave.exec();
            let mut fetched = [0u64; 64];
            for lane in wave.active() {
                let row = (lane / 16) ^ u32::from(cross);
                let from = row * 16 + ((select >> (4 * (lane % 16))) & 15) as u32;
                if !fi && exec >> from & 1 == 0 {
                    return Err(Fault { kind: StopKind::Unimplemented, lane: Some(lane), address: None, message: format!("{n:?} reads lane {from}, which EXEC disables, without fi: not modelled") });
                }
                fetched[lane as usize] = wave.read_lane(src, from, 32).map_err(rf)?;
            }
            for lane in wave.active() {
                wave.write_lane(dst, lane, fetched[lane as usize], 32).map_err(rf)?;
            }
            ctx.counts.lane_instructions += u64::from(wave.exec().count_ones());
        }
        BufferLoad { access, dwords, offen } => buffer(wave, ops, ctx, access, dwords, offen, false)?,
        BufferStore { access, dwords, offen } => buffer(wave, ops, ctx, access, dwords, offen, true)?,
        SLoad { dwords } => {
            let base = wave.read_scalar(op(ops, OperandName::sbase).unwrap().value, 64).map_err(rf)?;
            let mut addr = base;
            for name in [OperandName::offset, OperandName::soffset] {
                match op(ops, name).map(|o| o.value) {
                    Some(Value::Imm(v)) => addr = addr.wrapping_add(v as u64),
                    Some(v @ Value::Reg(_)) => addr = addr.wrapping_add(wave.read_scalar(v, 32).map_err(rf)?),
                    _ => {}
                }
            }
            let addr = addr & !3;
            let dst = op(ops, OperandName::sdst).unwrap().value;
            let Value::Reg(Reg::Sgpr { index, .. }) = dst else {
                return Err(Fault::new(StopKind::Unimplemented, "a scalar load into a register other than an SGPR"));
            };
            for k in 0..u64::from(dwords) {
                let v = ctx.memory.read_u32(addr + 4 * k).map_err(|a| Fault::unmapped(None, a, "scalar load"))?;
                wave.sgpr[index as usize + k as usize] = v;
            }
        }
        VLoad { space, access, dwords } => vector_memory(wave, ops, ctx, space, Some(access), dwords, MemOp::Load)?,
        VStore { space, access, dwords } => vector_memory(wave, ops, ctx, space, Some(access), dwords, MemOp::Store)?,
        VAtomic { space, op: a, .. } => vector_memory(wave, ops, ctx, space, None, 1, MemOp::Atomic(a))?,
        DsLoad { access, dwords } => ds(wave, ops, ctx, DsOp::Load(access, dwords))?,
        DsStore { access, dwords } => ds(wave, ops, ctx, DsOp::Store(access, dwords))?,
        DsLoad2 { bytes, stride64 } => ds(wave, ops, ctx, DsOp::Load2(bytes, stride64))?,
        DsStore2 { bytes, stride64 } => ds(wave, ops, ctx, DsOp::Store2(bytes, stride64))?,
        DsAtomic { op: a, .. } => ds(wave, ops, ctx, DsOp::Atomic(a))?,
    }
    let _ = pc;
    Ok(())
}

/// Stops on a built-in VALU action whose modifiers or clamp are set (it has no meaning for them).
fn refuse_modifiers(ops: &[Op], n: Native) -> Result<(), Fault> {
    let set = ops.iter().find(|o| matches!(o.name.name(), "src0_modifiers" | "src1_modifiers" | "src2_modifiers" | "clamp" | "op_sel") && !matches!(o.value, Value::Imm(0) | Value::None));
    match set {
        Some(o) => Err(Fault::new(StopKind::Unimplemented, format!("{n:?} with `{}` set is not modelled", o.name.name()))),
        None => Ok(()),
    }
}

/// A field of a hardware register as `s_getreg`/`s_setreg` name it: `hwreg(id, offset, size)`
/// packed in simm16 (id 5:0, offset 10:6, size - 1 15:11).
#[derive(Clone, Copy)]
struct HwReg {
    id: u32,
    offset: u32,
    size: u32,
}

impl HwReg {
    fn decode(simm16: i64) -> HwReg {
        let s = simm16 as u32;
        HwReg { id: s & 0x3f, offset: (s >> 6) & 0x1f, size: ((s >> 11) & 0x1f) + 1 }
    }

    fn mask(self) -> u32 {
        (u64::MAX >> (64 - self.size)) as u32
    }

    fn get(self, reg: u32) -> u32 {
        (reg >> self.offset) & self.mask()
    }

    fn set(self, reg: u32, v: u32) -> u32 {
        let m = self.mask() << self.offset;
        (reg & !m) | ((v << self.offset) & m)
    }
}

/// The modelled hardware registers: MODE (id 1) and, on GFX10, FLAT_SCR_LO/HI (20/21).
/// Others (STATUS, HW_ID, TRAPSTS, ...) stop the run rather than read as a guess.
fn hw_reg(wave: &mut Wave, id: u32, flat_scratch: bool) -> Result<&mut u32, Fault> {
    match id {
        1 => Ok(&mut wave.mode),
        20 if flat_scratch => Ok(&mut wave.flat_scratch[0]),
        21 if flat_scratch => Ok(&mut wave.flat_scratch[1]),
        _ => Err(Fault::new(StopKind::Unimplemented, format!("hardware register {id} is not implemented by the emulator (only MODE, and FLAT_SCR_LO/HI on GFX10)"))),
    }
}

/// A MUBUF access through the private segment buffer: per lane, the private offset is
/// (the resource's offset from [`map::PRIVATE_BUFFER_BASE`] + soffset) / lanes + (offen:
/// vaddr) + offset.
#[allow(clippy::too_many_arguments)]
fn buffer(wave: &mut Wave, ops: &[Op], ctx: &mut Context, access: Access, dwords: u8, offen: bool, store: bool) -> Result<(), Fault> {
    let rf = reg_fault;
    let rsrc = op(ops, OperandName::srsrc).unwrap().value;
    let base = wave.read_scalar(rsrc, 64).map_err(rf)? & 0xffff_ffff_ffff;
    if !(map::PRIVATE_BUFFER_BASE..map::PRIVATE_BUFFER_BASE + (1 << 32)).contains(&base) {
        return Err(Fault::new(StopKind::Unimplemented, format!("buffer resources other than the private segment buffer are not implemented (base {base:#x})")));
    }
    if imm(ops, OperandName::tfe) != 0 {
        return Err(Fault::new(StopKind::Unimplemented, "buffer tfe forms are not implemented"));
    }
    let soffset = present(ops, OperandName::soffset).map_or(Ok(0), |v| wave.read_scalar(v, 32)).map_err(rf)?;
    let offset = imm(ops, OperandName::offset) as u64;
    let vaddr = present(ops, OperandName::vaddr);
    let Some(Value::Reg(Reg::Vgpr { index, .. })) = present(ops, OperandName::vdata) else {
        return Err(Fault::new(StopKind::Unimplemented, "a buffer access whose data is not in VGPRs"));
    };
    let size = access.bytes as usize;
    let len = size * dwords as usize;
    ctx.counts.lane_instructions += u64::from(wave.exec().count_ones());
    for lane in wave.active() {
        let v = match (offen, vaddr) {
            (true, Some(v)) => wave.read_lane(v, lane, 32).map_err(rf)?,
            _ => 0,
        };
        // The resource interleaves the lanes' dwords (swizzled, element size 4, index stride
        // the wave size: AMDGPUUsage, "Private Segment Buffer"), so its base and soffset count
        // wave bytes, `lanes` per byte of one lane; vaddr and offset count the lane's bytes.
        let wave_bytes = (base - map::PRIVATE_BUFFER_BASE).wrapping_add(soffset) & 0xffff_ffff;
        let lanes = u64::from(wave.lanes);
        if wave_bytes % (4 * lanes) != 0 {
            return Err(Fault { kind: StopKind::Unimplemented, lane: Some(lane), address: Some(wave_bytes), message: "a private buffer offset that is not a whole number of interleaved dwords is not modelled".into() });
        }
        let private = (wave_bytes / lanes).wrapping_add(v).wrapping_add(offset) & 0xffff_ffff;
        let t = resolve(wave, Space::Scratch, lane, private, len as u64, ctx)?;
        if store {
            let mut buf = [0u8; 16];
            for k in 0..dwords as usize {
                buf[k * size..(k + 1) * size].copy_from_slice(&access.store_bits(wave.v(index as usize + k, lane)).to_le_bytes()[..size]);
            }
            write_bytes(ctx, &t, lane, &buf[..len])?;
        } else {
            let mut buf = [0u8; 16];
            read_bytes(ctx, &t, lane, &mut buf[..len])?;
            for k in 0..dwords as usize {
                let old = wave.v(index as usize + k, lane);
                wave.set_v(index as usize + k, lane, access.merge(old, extend(&buf[k * size..(k + 1) * size], access)));
            }
        }
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum MemOp {
    Load,
    Store,
    Atomic(Atomic),
}

/// Where a lane's access goes, resolved to an address in [`Memory`].
fn resolve(wave: &Wave, space: Space, lane: u32, addr: u64, len: u64, ctx: &mut Context) -> Result<Target_, Fault> {
    let hi = (addr >> 32) as u32;
    let private = |offset: u64, ctx: &mut Context| -> Result<Target_, Fault> {
        if offset.checked_add(len).is_none_or(|end| end > ctx.private_size) {
            return Err(Fault { kind: StopKind::Fault, lane: Some(lane), address: Some(offset), message: format!("private access past the private segment ({} bytes per work-item)", ctx.private_size) });
        }
        let item = wave.first_item + u64::from(lane);
        let at = map::PRIVATE_STORE + item * map::PRIVATE_WINDOW + offset;
        ctx.memory.map(at, len);
        Ok(Target_::Memory(at))
    };
    match space {
        Space::Scratch => private(addr & 0xffff_ffff, ctx),
        Space::Flat if hi == map::PRIVATE_APERTURE_HI => private(addr & 0xffff_ffff, ctx),
        Space::Flat if hi == map::SHARED_APERTURE_HI => Ok(Target_::Lds(addr & 0xffff_ffff)),
        _ => Ok(Target_::Memory(addr)),
    }
}

enum Target_ {
    Memory(u64),
    Lds(u64),
}

fn lds_range(ctx: &Context, lane: u32, at: u64, len: u64) -> Result<std::ops::Range<usize>, Fault> {
    match at.checked_add(len) {
        Some(end) if end <= ctx.lds.len() as u64 => Ok(at as usize..end as usize),
        _ => Err(Fault { kind: StopKind::Fault, lane: Some(lane), address: Some(at), message: format!("LDS access past the workgroup's {} bytes", ctx.lds.len()) }),
    }
}

fn read_bytes(ctx: &mut Context, t: &Target_, lane: u32, out: &mut [u8]) -> Result<(), Fault> {
    match *t {
        Target_::Memory(a) => ctx.memory.read(a, out).map_err(|a| Fault::unmapped(Some(lane), a, "load")),
        Target_::Lds(a) => {
            let r = lds_range(ctx, lane, a, out.len() as u64)?;
            out.copy_from_slice(&ctx.lds[r]);
            Ok(())
        }
    }
}

fn write_bytes(ctx: &mut Context, t: &Target_, lane: u32, data: &[u8]) -> Result<(), Fault> {
    match *t {
        Target_::Memory(a) => ctx.memory.write(a, data).map_err(|a| Fault::unmapped(Some(lane), a, "store")),
        Target_::Lds(a) => {
            let r = lds_range(ctx, lane, a, data.len() as u64)?;
            ctx.lds[r].copy_from_slice(data);
            Ok(())
        }
    }
}

fn extend(bytes: &[u8], access: Access) -> u32 {
    let mut b = [0u8; 4];
    b[..bytes.len()].copy_from_slice(bytes);
    let v = u32::from_le_bytes(b);
    match (access.bytes, access.signed) {
        (1, true) => v as u8 as i8 as i32 as u32,
        (2, true) => v as u16 as i16 as i32 as u32,
        _ => v,
    }
}

fn vector_memory(wave: &mut Wave, ops: &[Op], ctx: &mut Context, space: Space, access: Option<Access>, dwords: u8, mem: MemOp) -> Result<(), Fault> {
    let rf = reg_fault;
    let offset = imm(ops, OperandName::offset);
    let saddr = present(ops, OperandName::saddr);
    let vaddr = present(ops, OperandName::vaddr);
    let data = present(ops, OperandName::vdata);
    let vdst = present(ops, OperandName::vdst);
    let size = match mem {
        MemOp::Atomic(a) => a.bytes(),
        _ => access.map_or(4, |a| a.bytes),
    };
    ctx.counts.lane_instructions += u64::from(wave.exec().count_ones());
    for lane in wave.active() {
        let base = match (space, saddr, vaddr) {
            // Scratch: a 32-bit private offset from either or both.
            (Space::Scratch, s, v) => {
                let s = s.map_or(Ok(0), |s| wave.read_scalar(s, 32)).map_err(rf)?;
                let v = v.map_or(Ok(0), |v| wave.read_lane(v, lane, 32)).map_err(rf)?;
                s.wrapping_add(v) & 0xffff_ffff
            }
            // Global with an SGPR base: a 64-bit base plus the lane's 32-bit offset.
            (_, Some(s), v) => {
                let s = wave.read_scalar(s, 64).map_err(rf)?;
                let v = v.map_or(Ok(0), |v| wave.read_lane(v, lane, 32)).map_err(rf)?;
                s.wrapping_add(v)
            }
            (_, None, Some(v)) => wave.read_lane(v, lane, 64).map_err(rf)?,
            (_, None, None) => return Err(Fault::new(StopKind::Unimplemented, "a vector memory instruction without an address")),
        };
        let addr = base.wrapping_add(offset as u64);
        if space != Space::Scratch && ctx.first_address.is_none() {
            ctx.first_address = Some(addr);
        }
        let len = u64::from(size) * u64::from(dwords);
        let t = resolve(wave, space, lane, addr, len, ctx).map_err(|mut f| {
            f.lane = Some(lane);
            f
        })?;
        match mem {
            MemOp::Load => {
                let access = access.unwrap();
                let mut buf = [0u8; 16];
                read_bytes(ctx, &t, lane, &mut buf[..len as usize])?;
                let dst = vdst.ok_or_else(|| Fault::new(StopKind::Unimplemented, "a load without a destination"))?;
                let Value::Reg(Reg::Vgpr { index, .. }) = dst else {
                    return Err(Fault::new(StopKind::Unimplemented, "a load into a register other than a VGPR"));
                };
                for k in 0..dwords as usize {
                    let b = &buf[k * size as usize..(k + 1) * size as usize];
                    let old = wave.v(index as usize + k, lane);
                    wave.set_v(index as usize + k, lane, access.merge(old, extend(b, access)));
                }
            }
            MemOp::Store => {
                let src = data.ok_or_else(|| Fault::new(StopKind::Unimplemented, "a store without data"))?;
                let Value::Reg(Reg::Vgpr { index, .. }) = src else {
                    return Err(Fault::new(StopKind::Unimplemented, "a store from a register other than a VGPR"));
                };
                let mut buf = [0u8; 16];
                for k in 0..dwords as usize {
                    let v = access.unwrap().store_bits(wave.v(index as usize + k, lane)).to_le_bytes();
                    buf[k * size as usize..(k + 1) * size as usize].copy_from_slice(&v[..size as usize]);
                }
                write_bytes(ctx, &t, lane, &buf[..len as usize])?;
            }
            MemOp::Atomic(a) => {
                let Some(Value::Reg(Reg::Vgpr { index, .. })) = data else {
                    return Err(Fault::new(StopKind::Unimplemented, "an atomic whose data is not in VGPRs"));
                };
                // The data registers hold src, then (cmpswap) cmp, each one element wide.
                let words = usize::from(a.bytes() / 4);
                let element = |k: usize| (0..words).fold(0u64, |v, w| v | u64::from(wave.v(index as usize + k * words + w, lane)) << (32 * w));
                let (src, cmp) = (element(0), if a.op == AtomicOp::CmpSwap { element(1) } else { 0 });
                let mut old = [0u8; 8];
                let old_bytes = &mut old[..len as usize];
                read_bytes(ctx, &t, lane, old_bytes)?;
                let old = u64::from_le_bytes(old);
                let new = a.apply(old, src, cmp).to_le_bytes();
                write_bytes(ctx, &t, lane, &new[..len as usize])?;
                if let Some(dst) = vdst {
                    wave.write_lane(dst, lane, old, a.bytes() * 8).map_err(rf)?;
                }
            }
        }
    }
    Ok(())
}

/// An LDS address: the 32-bit sum of the address register and the offset.
fn lds_addr(base: u64, offset: u64) -> u64 {
    base.wrapping_add(offset) & 0xffff_ffff
}

#[derive(Clone, Copy)]
enum DsOp {
    Load(Access, u8),
    Store(Access, u8),
    Load2(u8, bool),
    Store2(u8, bool),
    Atomic(Atomic),
}

fn ds(wave: &mut Wave, ops: &[Op], ctx: &mut Context, ds_op: DsOp) -> Result<(), Fault> {
    let rf = reg_fault;
    if imm(ops, OperandName::gds) != 0 {
        return Err(Fault::new(StopKind::Unimplemented, "GDS is not modelled"));
    }
    let addr_op = present(ops, OperandName::addr).ok_or_else(|| Fault::new(StopKind::Unimplemented, "a DS instruction without an address"))?;
    let offset = imm(ops, OperandName::offset) as u64;
    let (offset0, offset1) = (imm(ops, OperandName::offset0) as u64, imm(ops, OperandName::offset1) as u64);
    let vdst = present(ops, OperandName::vdst);
    let data0 = present(ops, OperandName::data0);
    let data1 = present(ops, OperandName::data1);
    ctx.counts.lane_instructions += u64::from(wave.exec().count_ones());
    for lane in wave.active() {
        let base = wave.read_lane(addr_op, lane, 32).map_err(rf)?;
        match ds_op {
            DsOp::Load(access, dwords) => {
                let len = u64::from(access.bytes) * u64::from(dwords);
                let r = lds_range(ctx, lane, lds_addr(base, offset), len)?;
                let bytes = ctx.lds[r].to_vec();
                let Some(Value::Reg(Reg::Vgpr { index, .. })) = vdst else { return Err(Fault::new(StopKind::Unimplemented, "a DS load into a register other than a VGPR")) };
                for k in 0..dwords as usize {
                    let n = access.bytes as usize;
                    let old = wave.v(index as usize + k, lane);
                    wave.set_v(index as usize + k, lane, access.merge(old, extend(&bytes[k * n..(k + 1) * n], access)));
                }
            }
            DsOp::Store(access, dwords) => {
                let Some(Value::Reg(Reg::Vgpr { index, .. })) = data0 else { return Err(Fault::new(StopKind::Unimplemented, "a DS store from a register other than a VGPR")) };
                let n = access.bytes as usize;
                let mut buf = Vec::with_capacity(n * dwords as usize);
                for k in 0..dwords as usize {
                    buf.extend_from_slice(&access.store_bits(wave.v(index as usize + k, lane)).to_le_bytes()[..n]);
                }
                let r = lds_range(ctx, lane, lds_addr(base, offset), buf.len() as u64)?;
                ctx.lds[r].copy_from_slice(&buf);
            }
            DsOp::Load2(bytes, stride64) => {
                let scale = u64::from(bytes) * if stride64 { 64 } else { 1 };
                let Some(Value::Reg(Reg::Vgpr { index, .. })) = vdst else { return Err(Fault::new(StopKind::Unimplemented, "a DS load into a register other than a VGPR")) };
                let per = bytes as usize / 4;
                for (k, off) in [offset0, offset1].into_iter().enumerate() {
                    let r = lds_range(ctx, lane, lds_addr(base, off * scale), u64::from(bytes))?;
                    let b = ctx.lds[r].to_vec();
                    for w in 0..per {
                        wave.set_v(index as usize + k * per + w, lane, u32::from_le_bytes(b[w * 4..w * 4 + 4].try_into().unwrap()));
                    }
                }
            }
            DsOp::Store2(bytes, stride64) => {
                let scale = u64::from(bytes) * if stride64 { 64 } else { 1 };
                let per = bytes as usize / 4;
                for (data, off) in [(data0, offset0), (data1, offset1)] {
                    let Some(Value::Reg(Reg::Vgpr { index, .. })) = data else { return Err(Fault::new(StopKind::Unimplemented, "a DS store from a register other than a VGPR")) };
                    let mut buf = Vec::new();
                    for w in 0..per {
                        buf.extend_from_slice(&wave.v(index as usize + w, lane).to_le_bytes());
                    }
                    let r = lds_range(ctx, lane, lds_addr(base, off * scale), u64::from(bytes))?;
                    ctx.lds[r].copy_from_slice(&buf);
                }
            }
            DsOp::Atomic(a) => {
                let data = data0.ok_or_else(|| Fault::new(StopKind::Unimplemented, "a DS atomic without data"))?;
                let src = wave.read_lane(data, lane, a.bytes() * 8).map_err(rf)?;
                let r = lds_range(ctx, lane, lds_addr(base, offset), u64::from(a.bytes()))?;
                let mut old = [0u8; 8];
                old[..r.len()].copy_from_slice(&ctx.lds[r.clone()]);
                let old = u64::from_le_bytes(old);
                let n = r.len();
                ctx.lds[r].copy_from_slice(&a.apply(old, src, 0).to_le_bytes()[..n]);
                if let Some(dst) = vdst {
                    wave.write_lane(dst, lane, old, a.bytes() * 8).map_err(rf)?;
                }
            }
        }
    }
    Ok(())
}
