//! Launching a kernel: the image, the kernarg segment, the dispatch packet, the initial
//! register state the descriptor asks for, and the workgroups of a grid.
//!
//! The initial SGPRs follow AMDGPUUsage, "Initial Kernel Execution State": the user SGPRs
//! (private segment buffer, dispatch pointer, queue pointer, kernarg segment pointer, dispatch
//! id, flat scratch init, private segment size, then preloaded kernargs), each present when the
//! descriptor enables it, then the system SGPRs from `user_sgpr_count` on (workgroup ids X, Y,
//! Z, workgroup info, private segment wave offset). Work-item ids are in v0..v2, or packed
//! into v0 (10 bits each) on GFX90A, GFX940 and GFX11+.

use crate::container::CodeObject;
use crate::container::elf::Kernel;
use crate::container::metadata::KernelArg;
use crate::isa::{Generation, Target};

use super::exec::{self, Code, Context, Counts, map};
use super::memory::Memory;
use super::wave::{Apertures, Wave};
use super::{Stop, StopKind};

/// Bytes after each buffer that are mapped, filled with [`GUARD_BYTE`], and compared: a kernel
/// that writes past its buffer changes them.
pub const GUARD: usize = 256;
pub const GUARD_BYTE: u8 = 0xa5;

/// Where two runs' buffers ([`Outcome::buffers`], guard bytes included) first differ: the
/// buffer's position among the buffer arguments and the byte. The comparison `gfxpatch check`
/// makes.
pub fn first_difference(a: &[Vec<u8>], b: &[Vec<u8>]) -> Option<(usize, usize)> {
    a.iter().zip(b).enumerate().find_map(|(i, (x, y))| {
        if x == y {
            return None;
        }
        // Same-sized by construction (the same arguments); a length difference is a difference.
        Some((i, x.iter().zip(y).position(|(p, q)| p != q).unwrap_or(x.len().min(y.len()))))
    })
}

/// The launch geometry: `grid` in work-items (as HSA and OpenCL count it), `block` the
/// workgroup size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dispatch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

/// One kernel argument, in the order of the metadata's non-hidden `.args`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A buffer's initial bytes; the argument is its address.
    Buffer(Vec<u8>),
    /// A by-value argument's bytes (little-endian, at most the argument's size).
    Value(Vec<u8>),
}

#[derive(Clone, Debug)]
pub struct Options {
    /// Print each instruction the first wave of the first workgroup executes.
    pub trace: bool,
    /// Most instructions one wave may execute (a kernel that does not end stops here).
    pub max_instructions: u64,
    /// Count executions per instruction address ([`Outcome::by_address`]).
    pub count_addresses: bool,
    /// Symbols whose bytes to return after the run ([`Outcome::symbols`]), e.g. the counters
    /// of an instrumented object.
    pub read_symbols: Vec<String>,
    /// Record each global and flat memory access ([`Outcome::memory`]).
    pub record_memory: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { trace: false, max_instructions: 50_000_000, count_addresses: false, read_symbols: Vec::new(), record_memory: false }
    }
}

/// The result of a run.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Each buffer argument's bytes after the run, followed by its [`GUARD`] bytes.
    pub buffers: Vec<Vec<u8>>,
    pub counts: Counts,
    /// With `Options::trace`: `address: text` of each instruction of the traced wave.
    pub trace: Vec<String>,
    /// With `Options::count_addresses`: per instruction address (in the code object), the waves
    /// that executed it, those of them with EXEC != 0, and their active lanes summed.
    pub by_address: std::collections::BTreeMap<u64, AddressCount>,
    /// The bytes of each of `Options::read_symbols` after the run.
    pub symbols: Vec<Vec<u8>>,
    /// With `Options::record_memory`: each global or flat memory instruction executed with
    /// EXEC != 0, in the order the waves ran them.
    pub memory: Vec<MemoryAccess>,
}

/// One global or flat memory instruction, executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryAccess {
    /// The instruction's address in the code object.
    pub at: u64,
    /// The first active lane's address.
    pub address: u64,
    pub exec: u64,
}

/// Executions of one instruction address.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AddressCount {
    pub waves: u64,
    pub waves_with_lanes: u64,
    pub lanes: u64,
}

fn setup(kernel: &str, message: impl Into<String>) -> Stop {
    Stop { kernel: kernel.to_owned(), at: None, lane: None, address: None, kind: StopKind::Setup, message: message.into() }
}

/// Runs `kernel` of the code object `elf` over `dispatch` with `args`.
pub fn run(elf: &[u8], kernel: &str, dispatch: &Dispatch, args: &[Arg], options: &Options) -> Result<Outcome, Stop> {
    let co = CodeObject::parse(elf).map_err(|e| setup(kernel, format!("not a code object: {e}")))?;
    let k = co.kernels.iter().find(|k| k.name == kernel).ok_or_else(|| {
        let names: Vec<&str> = co.kernels.iter().map(|k| k.name).collect();
        setup(kernel, format!("no such kernel (the code object has: {})", names.join(", ")))
    })?;
    let generation = co.target.processor.generation;
    let wave_size = k.descriptor.wave_size(generation);
    let target = Target::from_target_id(&co.target, wave_size == 64).map_err(|e| setup(kernel, e.to_string()))?;
    for (i, &b) in dispatch.block.iter().enumerate() {
        if b == 0 || dispatch.grid[i] == 0 {
            return Err(setup(kernel, "grid and block sizes must be at least 1"));
        }
    }
    let items_per_group = dispatch.block.iter().map(|&b| u64::from(b)).product::<u64>();
    if items_per_group > 1024 {
        return Err(setup(kernel, format!("a workgroup of {items_per_group} work-items is more than 1024")));
    }

    let mut memory = Memory::new();
    load_image(&co, &mut memory).map_err(|m| setup(kernel, m))?;

    // Buffers, each followed by its guard bytes, with unmapped space between.
    let mut buffer_addrs = Vec::new();
    let mut next = map::BUFFERS;
    for arg in args {
        if let Arg::Buffer(bytes) = arg {
            let len = bytes.len() + GUARD;
            memory.map(next, len as u64);
            memory.write(next, bytes).expect("just mapped");
            memory.write(next + bytes.len() as u64, &[GUARD_BYTE; GUARD]).expect("just mapped");
            buffer_addrs.push((next, bytes.len()));
            next = (next + len as u64 + 0x1_0000 + 0xffff) & !0xffff;
        }
    }

    let meta = co.metadata.as_ref().and_then(|m| m.kernel(kernel)).ok_or_else(|| setup(kernel, "the code object has no metadata for this kernel"))?;
    let groups = [0, 1, 2].map(|i| dispatch.grid[i].div_ceil(dispatch.block[i]));
    let kernarg_size = meta.kernarg_segment_size.unwrap_or(u64::from(k.descriptor.kernarg_size())).max(u64::from(k.descriptor.kernarg_size()));
    let kernarg = layout_kernargs(kernel, &meta.args, args, &buffer_addrs, dispatch, groups, kernarg_size)?;
    memory.map(map::KERNARG, kernarg.len().max(1) as u64);
    memory.write(map::KERNARG, &kernarg).expect("just mapped");
    memory.map(map::QUEUE, 256);
    memory.map(map::DISPATCH_PACKET, 64);
    memory.write(map::DISPATCH_PACKET, &dispatch_packet(dispatch, k, &co)).expect("just mapped");

    let lds_size = k.descriptor.group_segment_fixed_size() as usize;
    let private_size = u64::from(k.descriptor.private_segment_fixed_size()) + if meta.uses_dynamic_stack == Some(true) { 16 * 1024 } else { 0 };
    let mut code = Code::new(target);
    let mut counts = Counts::default();
    let mut trace = Vec::new();
    let mut by_address = std::collections::BTreeMap::new();
    let mut accesses = Vec::new();
    let fields: std::collections::HashMap<&str, u64> = k.descriptor.fields(generation).into_iter().collect();
    let field = |name: &str| fields.get(name).copied().unwrap_or(0);
    if field("kernarg_preload_spec_length") != 0 {
        // The preloaded SGPRs would have to be filled from the kernarg segment; refused rather
        // than run with wrong arguments.
        return Err(setup(kernel, "kernarg preloading (kernarg_preload_spec_length) is not implemented"));
    }
    let entry = map::IMAGE_BASE + k.entry_address;
    let apertures = Apertures { shared_hi: map::SHARED_APERTURE_HI, private_hi: map::PRIVATE_APERTURE_HI };
    let packed_ids = matches!(generation, Generation::Gfx90a | Generation::Gfx940 | Generation::Gfx950) || generation >= Generation::Gfx11;
    let waves_per_group = items_per_group.div_ceil(u64::from(wave_size));
    // HW_REG_MODE at wave start: FP_ROUND (3:0) and FP_DENORM (7:4) from compute_pgm_rsrc1's
    // FLOAT_ROUND_MODE_* (13:12, 15:14) and FLOAT_DENORM_MODE_* (17:16, 19:18), DX10_CLAMP (8)
    // and IEEE (9) from ENABLE_DX10_CLAMP (21) and ENABLE_IEEE_MODE (23) before GFX12.
    let rsrc1 = k.descriptor.compute_pgm_rsrc1();
    let mode = (rsrc1 >> 12) & 0xff | if generation < Generation::Gfx12 { ((rsrc1 >> 21) & 1) << 8 | ((rsrc1 >> 23) & 1) << 9 } else { 0 };

    let mut group_index = 0u64;
    for gz in 0..groups[2] {
        for gy in 0..groups[1] {
            for gx in 0..groups[0] {
                let group = [gx, gy, gz];
                // This group's size (the last one of a dimension may be partial).
                let size = [0, 1, 2].map(|i| dispatch.block[i].min(dispatch.grid[i] - group[i] * dispatch.block[i]));
                let mut waves = Vec::new();
                for w in 0..waves_per_group {
                    let mut wave = Wave::new(wave_size, apertures);
                    wave.pc = entry;
                    wave.mode = mode;
                    let first = w * u64::from(wave_size);
                    let mut exec = 0u64;
                    for lane in 0..wave_size {
                        let flat = first + u64::from(lane);
                        let id = [flat % u64::from(dispatch.block[0]), flat / u64::from(dispatch.block[0]) % u64::from(dispatch.block[1]), flat / (u64::from(dispatch.block[0]) * u64::from(dispatch.block[1]))];
                        if id.iter().zip(size).any(|(&i, s)| i >= u64::from(s)) {
                            continue;
                        }
                        exec |= 1 << lane;
                        let id = id.map(|i| i as u32);
                        if packed_ids {
                            wave.set_v(0, lane, id[0] | id[1] << 10 | id[2] << 20);
                        } else {
                            wave.set_v(0, lane, id[0]);
                            wave.set_v(1, lane, id[1]);
                            wave.set_v(2, lane, id[2]);
                        }
                    }
                    if exec == 0 {
                        continue;
                    }
                    wave.set_exec(exec);
                    wave.first_item = group_index * u64::from(dispatch.block.iter().product::<u32>()) + first;
                    initial_sgprs(&mut wave, &field, k, group, waves_per_group, private_size, target.generation());
                    waves.push(wave);
                }
                let mut lds = vec![0u8; lds_size];
                let traced = options.trace && group_index == 0;
                run_group(kernel, &mut waves, &mut code, &mut memory, &mut lds, private_size, &mut counts, options, traced.then_some(&mut trace), &mut by_address, &mut accesses)?;
                group_index += 1;
            }
        }
    }
    let buffers = buffer_addrs.iter().map(|&(a, len)| memory.bytes(a, len + GUARD).expect("mapped")).collect();
    let mut symbols = Vec::new();
    for name in &options.read_symbols {
        let s = co.symbols.iter().find(|s| s.name == name.as_str()).ok_or_else(|| setup(kernel, format!("no symbol {name}")))?;
        symbols.push(memory.bytes(map::IMAGE_BASE + s.value, s.size as usize).map_err(|a| setup(kernel, format!("symbol {name}: {a:#x} is not mapped")))?);
    }
    Ok(Outcome { buffers, counts, trace, by_address, symbols, memory: accesses })
}

#[allow(clippy::too_many_arguments)]
fn run_group(kernel: &str, waves: &mut [Wave], code: &mut Code, memory: &mut Memory, lds: &mut [u8], private_size: u64, counts: &mut Counts, options: &Options, mut trace: Option<&mut Vec<String>>, by_address: &mut std::collections::BTreeMap<u64, AddressCount>, accesses: &mut Vec<MemoryAccess>) -> Result<(), Stop> {
    let mut executed = vec![0u64; waves.len()];
    loop {
        let mut progressed = false;
        for (w, wave) in waves.iter_mut().enumerate() {
            // Each wave runs until it ends or reaches a barrier; memory is in order, so the
            // interleaving between barriers does not change a race-free kernel's result.
            while !wave.done && !wave.at_barrier {
                let pc = wave.pc;
                if let (Some(t), 0) = (trace.as_deref_mut(), w) {
                    let d = code.fetch(memory, pc).map_err(|f| stop(kernel, code, memory, pc, f))?;
                    t.push(format!("{:#x}: {}", pc - map::IMAGE_BASE, code.text(&d, pc - map::IMAGE_BASE)));
                }
                if options.count_addresses {
                    let c = by_address.entry(pc - map::IMAGE_BASE).or_default();
                    let exec = wave.exec();
                    c.waves += 1;
                    c.waves_with_lanes += u64::from(exec != 0);
                    c.lanes += u64::from(exec.count_ones());
                }
                let exec_before = wave.exec();
                let mut ctx = Context { memory, lds, private_size, counts, first_address: None };
                let stepped = exec::step(wave, code, &mut ctx);
                let first_address = ctx.first_address;
                stepped.map_err(|f| stop(kernel, code, memory, pc, f))?;
                if options.record_memory && let Some(address) = first_address {
                    accesses.push(MemoryAccess { at: pc - map::IMAGE_BASE, address, exec: exec_before });
                }
                executed[w] += 1;
                if executed[w] > options.max_instructions {
                    return Err(Stop { kernel: kernel.to_owned(), at: None, lane: None, address: None, kind: StopKind::Limit, message: format!("a wave executed more than {} instructions", options.max_instructions) });
                }
                progressed = true;
            }
        }
        if waves.iter().all(|w| w.done) {
            return Ok(());
        }
        // Every wave left is at the barrier: release them.
        if waves.iter().all(|w| w.done || w.at_barrier) {
            waves.iter_mut().for_each(|w| w.at_barrier = false);
            continue;
        }
        if !progressed {
            return Err(Stop { kernel: kernel.to_owned(), at: None, lane: None, address: None, kind: StopKind::Deadlock, message: "waves wait at a barrier that cannot complete".into() });
        }
    }
}

fn stop(kernel: &str, code: &mut Code, memory: &Memory, pc: u64, f: exec::Fault) -> Stop {
    let address = pc.wrapping_sub(map::IMAGE_BASE);
    let at = code.fetch(memory, pc).ok().map(|d| (address, code.text(&d, address)));
    Stop { kernel: kernel.to_owned(), at, lane: f.lane, address: f.address, kind: f.kind, message: f.message }
}

/// Maps the `PT_LOAD` segments at [`map::IMAGE_BASE`] and applies the dynamic relocations the
/// loader would.
fn load_image(co: &CodeObject, memory: &mut Memory) -> Result<(), String> {
    const PT_LOAD: u32 = 1;
    for seg in co.segments.iter().filter(|s| s.p_type == PT_LOAD) {
        let at = map::IMAGE_BASE + seg.vaddr;
        memory.map(at, seg.mem_size.max(1));
        let end = (seg.offset + seg.file_size) as usize;
        let bytes = co.data.get(seg.offset as usize..end).ok_or("a PT_LOAD segment runs past the file")?;
        memory.write(at, bytes).expect("just mapped");
    }
    const R_AMDGPU_RELATIVE64: u32 = 13;
    for r in &co.relocations {
        let section = &co.sections[r.section_index];
        if section.name != ".rela.dyn" {
            continue;
        }
        match r.r_type {
            R_AMDGPU_RELATIVE64 => {
                let v = map::IMAGE_BASE.wrapping_add(r.addend as u64);
                memory.write(map::IMAGE_BASE + r.offset, &v.to_le_bytes()).map_err(|a| format!("a relocation at {a:#x} is outside the image"))?;
            }
            other => {
                let name = crate::container::amdgpu::relocation_name(other).unwrap_or("unknown");
                return Err(format!("dynamic relocation type {other} ({name}) is not applied by the emulator"));
            }
        }
    }
    Ok(())
}

fn dispatch_packet(d: &Dispatch, k: &Kernel, _co: &CodeObject) -> [u8; 64] {
    let mut p = [0u8; 64];
    let dims = if d.grid[2] > 1 || d.block[2] > 1 { 3u16 } else if d.grid[1] > 1 || d.block[1] > 1 { 2 } else { 1 };
    p[2..4].copy_from_slice(&dims.to_le_bytes());
    for i in 0..3 {
        p[4 + 2 * i..6 + 2 * i].copy_from_slice(&(d.block[i] as u16).to_le_bytes());
        p[12 + 4 * i..16 + 4 * i].copy_from_slice(&d.grid[i].to_le_bytes());
    }
    p[24..28].copy_from_slice(&k.descriptor.private_segment_fixed_size().to_le_bytes());
    p[28..32].copy_from_slice(&k.descriptor.group_segment_fixed_size().to_le_bytes());
    p[32..40].copy_from_slice(&(map::IMAGE_BASE + k.descriptor_address).to_le_bytes());
    p[40..48].copy_from_slice(&map::KERNARG.to_le_bytes());
    p
}

/// The kernarg segment: user arguments in `.args` order, hidden arguments filled in.
fn layout_kernargs(kernel: &str, meta: &[KernelArg], args: &[Arg], buffers: &[(u64, usize)], d: &Dispatch, groups: [u32; 3], size: u64) -> Result<Vec<u8>, Stop> {
    let mut seg = vec![0u8; size as usize];
    let user: Vec<&KernelArg> = meta.iter().filter(|a| !a.value_kind.as_deref().unwrap_or("").starts_with("hidden_")).collect();
    if user.len() != args.len() {
        let names: Vec<String> = user.iter().map(|a| format!("{}: {}", a.name.as_deref().unwrap_or("?"), a.value_kind.as_deref().unwrap_or("?"))).collect();
        return Err(setup(kernel, format!("the kernel takes {} arguments ({}), {} given", user.len(), names.join(", "), args.len())));
    }
    let mut put = |offset: u64, bytes: &[u8]| -> Result<(), Stop> {
        let end = offset as usize + bytes.len();
        if end > seg.len() {
            seg.resize(end, 0);
        }
        seg[offset as usize..end].copy_from_slice(bytes);
        Ok(())
    };
    let mut buffer = buffers.iter();
    for (a, arg) in user.iter().zip(args) {
        let offset = a.offset.unwrap_or(0);
        let size = a.size.unwrap_or(0) as usize;
        let kind = a.value_kind.as_deref().unwrap_or("");
        let name = a.name.as_deref().unwrap_or("?");
        match (kind, arg) {
            ("global_buffer" | "dynamic_shared_pointer", Arg::Buffer(_)) => {
                let (addr, _) = buffer.next().expect("one address per buffer");
                put(offset, &addr.to_le_bytes()[..size.min(8)])?;
            }
            ("by_value", Arg::Value(bytes)) => {
                if bytes.len() > size {
                    return Err(setup(kernel, format!("argument `{name}` takes {size} bytes, {} given", bytes.len())));
                }
                put(offset, bytes)?;
            }
            (kind, _) => return Err(setup(kernel, format!("argument `{name}` is a {kind}; give it a {}", if kind == "by_value" { "scalar" } else { "buffer" }))),
        }
    }
    for a in meta {
        let kind = a.value_kind.as_deref().unwrap_or("");
        let offset = a.offset.unwrap_or(0);
        let size = a.size.unwrap_or(0) as usize;
        let value: u64 = match kind {
            "hidden_block_count_x" => u64::from(groups[0]),
            "hidden_block_count_y" => u64::from(groups[1]),
            "hidden_block_count_z" => u64::from(groups[2]),
            "hidden_group_size_x" => u64::from(d.block[0]),
            "hidden_group_size_y" => u64::from(d.block[1]),
            "hidden_group_size_z" => u64::from(d.block[2]),
            "hidden_remainder_x" => u64::from(d.grid[0] % d.block[0]),
            "hidden_remainder_y" => u64::from(d.grid[1] % d.block[1]),
            "hidden_remainder_z" => u64::from(d.grid[2] % d.block[2]),
            "hidden_grid_dims" => if d.grid[2] > 1 { 3 } else if d.grid[1] > 1 { 2 } else { 1 },
            "hidden_queue_ptr" => map::QUEUE,
            "hidden_private_base" => u64::from(map::PRIVATE_APERTURE_HI),
            "hidden_shared_base" => u64::from(map::SHARED_APERTURE_HI),
            // Offsets, dynamic LDS size, and the buffers of services the emulator does not
            // provide (printf, hostcall, heap, multigrid) read as zero.
            _ => 0,
        };
        if kind.starts_with("hidden_") && size > 0 {
            put(offset, &value.to_le_bytes()[..size.min(8)])?;
        }
    }
    Ok(seg)
}

fn initial_sgprs(wave: &mut Wave, field: &dyn Fn(&str) -> u64, k: &Kernel, group: [u32; 3], waves: u64, private_size: u64, generation: Generation) {
    let mut s = 0usize;
    let mut push = |wave: &mut Wave, v: u32| {
        wave.sgpr[s] = v;
        s += 1;
    };
    if field("enable_sgpr_private_segment_buffer") != 0 {
        // A buffer resource for the private segment, based at the address buffer
        // instructions resolve to the lane's private memory (see `exec::map`).
        push(wave, map::PRIVATE_BUFFER_BASE as u32);
        push(wave, (map::PRIVATE_BUFFER_BASE >> 32) as u32);
        push(wave, u32::MAX);
        push(wave, 0x0002_7000);
    }
    for (name, value) in [
        ("enable_sgpr_dispatch_ptr", map::DISPATCH_PACKET),
        ("enable_sgpr_queue_ptr", map::QUEUE),
        ("enable_sgpr_kernarg_segment_ptr", map::KERNARG),
        ("enable_sgpr_dispatch_id", 0),
        ("enable_sgpr_flat_scratch_init", 0),
    ] {
        if field(name) != 0 {
            push(wave, value as u32);
            push(wave, (value >> 32) as u32);
        }
    }
    if field("enable_sgpr_private_segment_size") != 0 {
        push(wave, private_size as u32);
    }
    let _ = k;
    if generation >= Generation::Gfx12 {
        // Architected SGPRs (GFX12): the workgroup ids are in ttmp9 (X) and ttmp7 (Y in 15:0,
        // Z in 31:16), where LLVM's code reads them, whatever the descriptor enables.
        wave.sgpr[super::wave::TTMP0 + 9] = group[0];
        wave.sgpr[super::wave::TTMP0 + 7] = group[1] & 0xffff | group[2] << 16;
    }
    // System SGPRs follow the user SGPRs the descriptor counts (preloaded kernargs included).
    let mut s = field("user_sgpr_count") as usize;
    for (i, name) in ["enable_sgpr_workgroup_id_x", "enable_sgpr_workgroup_id_y", "enable_sgpr_workgroup_id_z"].iter().enumerate() {
        if field(name) != 0 {
            wave.sgpr[s] = group[i];
            s += 1;
        }
    }
    if field("enable_sgpr_workgroup_info") != 0 {
        wave.sgpr[s] = waves as u32;
        s += 1;
    }
    if field("enable_private_segment") != 0 {
        // The private segment wave offset: private memory is per work-item here, so 0.
        wave.sgpr[s] = 0;
    }
}

/// Each distinct instruction of the code object's executable sections (by mnemonic), and why
/// the emulator cannot run it (`None`: it can). Decodes linearly, so it also lists
/// instructions no kernel reaches.
pub fn support(elf: &[u8]) -> Result<std::collections::BTreeMap<String, Option<String>>, String> {
    let co = CodeObject::parse(elf).map_err(|e| e.to_string())?;
    let generation = co.target.processor.generation;
    let wave64 = co.kernels.first().is_some_and(|k| k.descriptor.wave_size(generation) == 64);
    let target = Target::from_target_id(&co.target, wave64).map_err(|e| e.to_string())?;
    let mut memory = Memory::new();
    load_image(&co, &mut memory)?;
    let mut code = Code::new(target);
    let mut out = std::collections::BTreeMap::new();
    for sec in co.text_sections() {
        let mut at = sec.address;
        while at < sec.address + sec.size {
            match code.fetch(&memory, map::IMAGE_BASE + at) {
                Ok(d) => {
                    let e = d.inst.encoding().expect("decoded");
                    let why = match &*d.kind {
                        super::ops::Kind::Unimplemented(w) => Some(w.clone()),
                        _ => None,
                    };
                    out.entry(super::ops::plain_mnemonic(e).to_owned()).or_insert(why);
                    at += d.inst.len() as u64;
                }
                Err(_) => at += 4,
            }
        }
    }
    Ok(out)
}
