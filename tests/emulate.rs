//! The emulator against the host: kernels written once (fixtures/src/emu_int.cl and
//! emu_float.cl) are compiled for the GPU (fixtures/co/<target>/emu_{int,float}.*.co) and,
//! here, for the host with clang-19 (fixtures/src/emu_host.c); both run on the same random
//! inputs and every buffer must end equal, floats bit for bit (see emu_float.cl for why IEEE
//! fixes every float result there). Nothing here rests on the emulator's own idea of an
//! instruction: the host's C compiler is the reference.
//!
//! Also: an instruction the emulator does not implement stops the run naming it, and
//! `gfxpatch check` tells a mutant (one opcode flipped) from the original.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use gfxpatch::emu::{self, Arg, Dispatch, Options, StopKind};

/// The host build of the reference kernels (built once per test run).
fn host_binary() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("emu_host");
        let src = common::repo().join("fixtures/src");
        let status = Command::new("clang-19")
            .args(["-O1", "-pthread", "-ffp-contract=off", "-include"])
            .arg(src.join("emu_host.h"))
            .arg(src.join("emu_host.c"))
            .arg("-o")
            .arg(&out)
            .arg("-lm")
            .status()
            .expect("clang-19 is required to build the host reference (scripts/setup.sh installs it)");
        assert!(status.success(), "clang-19 could not build fixtures/src/emu_host.c");
        out
    })
}

/// One argument of a reference run.
#[derive(Clone, Copy)]
enum Spec {
    /// A buffer of this many bytes, random.
    Random(usize),
    /// A buffer of zeros.
    Zeros(usize),
    /// A 32- or 64-bit scalar.
    U32(u32),
    U64(u64),
}

struct Case {
    kernel: &'static str,
    grid: u32,
    block: u32,
    args: &'static [Spec],
}

const CASES: &[Case] = &[
    Case { kernel: "int_mix", grid: 200, block: 64, args: &[Spec::Zeros(800), Spec::Random(800), Spec::Random(800), Spec::U32(200)] },
    Case { kernel: "int_branchy", grid: 256, block: 64, args: &[Spec::Zeros(1024), Spec::Random(1024)] },
    Case { kernel: "int64_mix", grid: 128, block: 64, args: &[Spec::Zeros(1024), Spec::Random(1024), Spec::U64(0x1234_5678_9abc_def1)] },
    Case { kernel: "bytes_shorts", grid: 128, block: 32, args: &[Spec::Zeros(128), Spec::Zeros(256), Spec::Random(128), Spec::Random(256)] },
    Case { kernel: "lds_reverse", grid: 256, block: 64, args: &[Spec::Zeros(1024), Spec::Random(1024)] },
    Case { kernel: "atomic_hist", grid: 256, block: 64, args: &[Spec::Zeros(64), Spec::Random(1024)] },
    Case { kernel: "call_helper", grid: 128, block: 64, args: &[Spec::Zeros(512), Spec::Random(512)] },
];

/// fixtures/src/emu_float.cl (all inputs are integers the kernels turn into floats).
const FLOAT_CASES: &[Case] = &[
    Case { kernel: "f32_arith", grid: 200, block: 64, args: &[Spec::Zeros(3200), Spec::Random(800), Spec::Random(800), Spec::U32(200)] },
    Case { kernel: "f32_convert", grid: 256, block: 64, args: &[Spec::Zeros(2048), Spec::Zeros(6144), Spec::Random(1024)] },
    Case { kernel: "f64_arith", grid: 128, block: 64, args: &[Spec::Zeros(4096), Spec::Random(512), Spec::Random(512)] },
    Case { kernel: "f16_arith", grid: 128, block: 64, args: &[Spec::Zeros(256), Spec::Zeros(256), Spec::Random(512)] },
    Case { kernel: "f16_mix", grid: 256, block: 64, args: &[Spec::Zeros(3072), Spec::Zeros(2048), Spec::Random(1024), Spec::Random(1024)] },
    Case { kernel: "f16_pack_rtz", grid: 256, block: 64, args: &[Spec::Zeros(1024), Spec::Random(1024), Spec::Random(1024)] },
    Case { kernel: "f32_lds_sum", grid: 256, block: 64, args: &[Spec::Zeros(16), Spec::Random(1024)] },
    Case { kernel: "f32_exp_log", grid: 256, block: 64, args: &[Spec::Zeros(2048), Spec::Random(1024)] },
];

/// fixtures/src/emu_dpp.cl (-O2 only: wave reductions and scans in DPP from LLVM's atomic
/// optimizer). The accumulators start random, so min, max, and, or and xor all show.
const DPP_CASES: &[Case] = &[
    Case { kernel: "dpp_reduce", grid: 256, block: 64, args: &[Spec::Random(28), Spec::Random(1024)] },
    // A partial last workgroup: its second wave (gfx1100) or its wave's top lanes are off.
    Case { kernel: "dpp_scan", grid: 250, block: 64, args: &[Spec::Zeros(1000), Spec::Random(4), Spec::Random(1000)] },
    Case { kernel: "dpp_reduce64", grid: 256, block: 64, args: &[Spec::Random(8), Spec::Random(2048)] },
];

/// Each reference source with its cases.
const SOURCES: [(&str, &[Case]); 3] = [("emu_int", CASES), ("emu_float", FLOAT_CASES), ("emu_dpp", DPP_CASES)];

/// Sources built at -O2 only.
const O2_ONLY: &[&str] = &["emu_dpp"];

fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 24) as u8
        })
        .collect()
}

fn args_for(case: &Case, seed: u64) -> Vec<Arg> {
    case.args
        .iter()
        .enumerate()
        .map(|(i, s)| match *s {
            Spec::Random(n) => Arg::Buffer(random_bytes(n, seed * 31 + i as u64)),
            Spec::Zeros(n) => Arg::Buffer(vec![0; n]),
            Spec::U32(v) => Arg::Value(v.to_le_bytes().to_vec()),
            Spec::U64(v) => Arg::Value(v.to_le_bytes().to_vec()),
        })
        .collect()
}

/// The host build's buffers after running `case` on `args`.
fn host_run(case: &Case, args: &[Arg], dir: &Path) -> Vec<Vec<u8>> {
    let mut cmd = Command::new(host_binary());
    cmd.arg(case.kernel).arg(format!("{},1,1", case.grid)).arg(format!("{},1,1", case.block));
    let mut files = Vec::new();
    for (i, a) in args.iter().enumerate() {
        match a {
            Arg::Buffer(b) => {
                let f = dir.join(format!("{}.arg{i}", case.kernel));
                std::fs::write(&f, b).unwrap();
                cmd.arg(format!("b:{}", f.display()));
                files.push(f);
            }
            Arg::Value(v) => {
                cmd.arg(format!("v:{}", v.iter().map(|b| format!("{b:02x}")).collect::<String>()));
            }
        }
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "host {}: {}", case.kernel, String::from_utf8_lossy(&out.stderr));
    files.iter().map(|f| std::fs::read(f).unwrap()).collect()
}

fn fixture(target: &str, opt: &str) -> PathBuf {
    fixture_of("emu_int", target, opt)
}

fn fixture_of(stem: &str, target: &str, opt: &str) -> PathBuf {
    common::repo().join(format!("fixtures/co/{target}/{stem}.{opt}.co"))
}

/// Runs every case on `target` at `opt` and compares with the host; returns the coverage.
fn compare_with_host(target: &str, opt: &str) -> std::collections::BTreeMap<&'static str, u64> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("emu_{target}_{opt}"));
    std::fs::create_dir_all(&dir).unwrap();
    let mut coverage = std::collections::BTreeMap::new();
    let mut failures = Vec::new();
    for (stem, cases) in SOURCES {
        if opt != "O2" && O2_ONLY.contains(&stem) {
            continue;
        }
        let elf = std::fs::read(fixture_of(stem, target, opt)).unwrap();
        for case in cases {
            for seed in [1u64, 2] {
                let args = args_for(case, seed);
                let dispatch = Dispatch { grid: [case.grid, 1, 1], block: [case.block, 1, 1] };
                let outcome = match emu::run(&elf, case.kernel, &dispatch, &args, &Options::default()) {
                    Ok(o) => o,
                    Err(stop) => {
                        failures.push(format!("{target} {opt}: {stop}"));
                        break;
                    }
                };
                for (m, n) in &outcome.counts.by_mnemonic {
                    *coverage.entry(*m).or_default() += n;
                }
                let host = host_run(case, &args, &dir);
                for (k, (gpu, cpu)) in outcome.buffers.iter().zip(&host).enumerate() {
                    let (data, guard) = gpu.split_at(gpu.len() - emu::launch::GUARD);
                    assert!(guard.iter().all(|&b| b == emu::launch::GUARD_BYTE), "{target} {opt} {}: wrote past buffer {k}", case.kernel);
                    if data != cpu.as_slice() {
                        let at = data.iter().zip(cpu).position(|(a, b)| a != b).unwrap();
                        failures.push(format!("{target} {opt} {} seed {seed}: buffer {k} differs from the host's at byte {at}: {:02x?} vs {:02x?}", case.kernel, &data[at & !3..(at & !3) + 4], &cpu[at & !3..(at & !3) + 4]));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    coverage
}

#[test]
fn gfx1100_o2_matches_the_host() {
    compare_with_host("gfx1100", "O2");
}

#[test]
fn gfx90a_o2_matches_the_host() {
    compare_with_host("gfx90a", "O2");
}

#[test]
fn gfx942_o2_matches_the_host() {
    compare_with_host("gfx942", "O2");
}

#[test]
fn gfx900_o2_matches_the_host() {
    compare_with_host("gfx900", "O2");
}

#[test]
fn gfx1030_o2_matches_the_host() {
    compare_with_host("gfx1030", "O2");
}

#[test]
fn gfx1151_o2_matches_the_host() {
    compare_with_host("gfx1151", "O2");
}

#[test]
fn gfx1200_o2_matches_the_host() {
    compare_with_host("gfx1200", "O2");
}

#[test]
fn gfx900_o0_matches_the_host() {
    compare_with_host("gfx900", "O0");
}

#[test]
fn gfx1030_o0_matches_the_host() {
    compare_with_host("gfx1030", "O0");
}

#[test]
fn gfx1151_o0_matches_the_host() {
    compare_with_host("gfx1151", "O0");
}

#[test]
fn gfx1200_o0_matches_the_host() {
    compare_with_host("gfx1200", "O0");
}

#[test]
fn gfx1100_o0_matches_the_host() {
    compare_with_host("gfx1100", "O0");
}

#[test]
fn gfx90a_o0_matches_the_host() {
    compare_with_host("gfx90a", "O0");
}

#[test]
fn gfx942_o0_matches_the_host() {
    compare_with_host("gfx942", "O0");
}

/// `gfxpatch check` ARGs for a case (buffers as bytes, scalars typed).
fn cli_args(case: &Case) -> Vec<String> {
    case.args
        .iter()
        .map(|s| match *s {
            Spec::Random(n) => format!("u8[{n}]"),
            Spec::Zeros(n) => format!("u8[{n}]=0"),
            Spec::U32(v) => format!("u32={v}"),
            Spec::U64(v) => format!("u64={v}"),
        })
        .collect()
}

/// The rewriting passes must not change what a kernel computes: every reference kernel (both
/// sources) the rewrite changed, rewritten by `insert-nops` and by `peephole`, runs the same as
/// the original through `gfxpatch check`. A kernel the rewrite left as it was proves nothing
/// and is not checked; `insert-nops` changes every one (asserted). The peephole finds nothing
/// to fuse in this compiler output today; its own fixtures are checked in
/// tests/emulate_peephole.rs, every other fixture kernel in tests/emulate_fixtures.rs.
#[test]
fn rewrites_run_the_same_as_the_original() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let mut checked = 0;
    for target in ["gfx1100", "gfx90a", "gfx942"] {
        for (stem, cases) in SOURCES {
            let original = fixture_of(stem, target, "O2");
            let elf = std::fs::read(&original).unwrap();
            let co = gfxpatch::container::CodeObject::parse(&elf).unwrap();
            for pass in ["insert-nops", "peephole"] {
                let rewritten = dir.join(format!("{stem}.{target}.{pass}.co"));
                let out = common::gfxpatch(&["rewrite", original.to_str().unwrap(), "--passes", pass, "-o", rewritten.to_str().unwrap()]);
                assert!(out.status.success(), "rewrite {pass}: {}", String::from_utf8_lossy(&out.stderr));
                let new_elf = std::fs::read(&rewritten).unwrap();
                let new_co = gfxpatch::container::CodeObject::parse(&new_elf).unwrap();
                for case in cases {
                    let code = |co: &gfxpatch::container::CodeObject<'_>| {
                        let k = co.kernels.iter().find(|k| k.name == case.kernel).unwrap();
                        let at = k.entry_offset.unwrap() as usize;
                        co.data[at..at + k.code_size as usize].to_vec()
                    };
                    if code(&co) == code(&new_co) {
                        assert_ne!(pass, "insert-nops", "{target}: insert-nops left {} unchanged", case.kernel);
                        continue;
                    }
                    let (grid, block) = (case.grid.to_string(), case.block.to_string());
                    let mut args = vec!["check", original.to_str().unwrap(), rewritten.to_str().unwrap(), "--kernel", case.kernel, "--grid", &grid, "--block", &block, "--seeds", "2"];
                    let specs = cli_args(case);
                    args.extend(specs.iter().map(String::as_str));
                    let out = common::gfxpatch(&args);
                    assert_eq!(out.status.code(), Some(0), "{target} {pass} {}: {}{}", case.kernel, String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
                    checked += 1;
                }
            }
        }
    }
    // insert-nops changed all 13 kernels on each of the three targets.
    assert!(checked >= 3 * (CASES.len() + FLOAT_CASES.len()), "{checked}");
}

/// Patches the first instruction of `kernel` in `elf` with `bytes`.
fn patch_entry(elf: &[u8], kernel: &str, bytes: &[u8]) -> Vec<u8> {
    let co = gfxpatch::container::CodeObject::parse(elf).unwrap();
    let k = co.kernels.iter().find(|k| k.name == kernel).unwrap();
    let at = k.entry_offset.unwrap() as usize;
    let mut out = elf.to_vec();
    out[at..at + bytes.len()].copy_from_slice(bytes);
    out
}

/// The encoding of one instruction, from llvm-mc-19.
fn encode(mcpu: &str, text: &str) -> Vec<u8> {
    encode_with(mcpu, "", text)
}

#[test]
fn an_unimplemented_instruction_stops_the_run_naming_it() {
    // A float op whose text calls a function the evaluator does not model (`sin`), a
    // hardware register other than MODE, float atomics (RDNA3 and CDNA3) and GFX9's unfused
    // mixed-precision multiply-add (no text).
    let cases = [
        ("gfx1100", "v_sin_f32 v0, v1", "v_sin_f32"),
        ("gfx90a", "s_getreg_b32 s0, hwreg(HW_REG_HW_ID)", "s_getreg_b32"),
        ("gfx1100", "global_atomic_add_f32 v0, v1, s[0:1]", "global_atomic_add_f32"),
        ("gfx942", "global_atomic_add_f32 v0, v1, s[0:1]", "global_atomic_add_f32"),
        ("gfx900", "v_mad_mix_f32 v0, v1, v2, v3", "v_mad_mix_f32"),
    ];
    for (target, text, name) in cases {
        let elf = std::fs::read(fixture(target, "O2")).unwrap();
        let patched = patch_entry(&elf, "int_mix", &encode(target, text));
        let case = &CASES[0];
        let dispatch = Dispatch { grid: [case.grid, 1, 1], block: [case.block, 1, 1] };
        let stop = emu::run(&patched, case.kernel, &dispatch, &args_for(case, 1), &Options::default()).unwrap_err();
        assert_eq!(stop.kind, StopKind::Unimplemented, "{stop}");
        let shown = stop.to_string();
        assert!(shown.contains(name) && shown.contains("not implemented") && shown.contains("int_mix"), "{shown}");
    }
}

/// `gfxpatch check` on a mutant (one opcode flipped in a copy): exit 1 naming the first
/// differing element; on the original against itself: exit 0. An integer and a float kernel on
/// each of gfx1100, gfx90a and gfx942 (every other fixture kernel's mutants:
/// tests/emulate_fixtures.rs).
#[test]
fn check_catches_a_mutant_and_passes_the_original() {
    let mutants = [("emu_int", &CASES[0], "v_xor_b32_e32", "v_or_b32_e32"), ("emu_float", &FLOAT_CASES[0], "v_sub_f32_e32", "v_add_f32_e32")];
    for target in ["gfx1100", "gfx90a", "gfx942"] {
        for (stem, case, from, to) in mutants {
            let path = fixture_of(stem, target, "O2");
            let listing = common::llvm_tool("llvm-objdump-19", &["-d", &format!("--mcpu={target}"), path.to_str().unwrap()]);
            // The first `from` instruction of the kernel: its text and its file offset.
            let body = listing.split(&format!("<{}>:", case.kernel)).nth(1).unwrap().split("\n\n").next().unwrap();
            let line = body.lines().find(|l| l.trim_start().starts_with(from)).unwrap_or_else(|| panic!("no {from} in {}:\n{body}", case.kernel));
            let text = line.trim().split("//").next().unwrap().trim();
            let addr = u64::from_str_radix(line.split("// ").nth(1).unwrap().split(':').next().unwrap().trim(), 16).unwrap();
            let original = encode(target, text);
            let mutant_bytes = encode(target, &text.replacen(from, to, 1));
            assert_eq!(original.len(), mutant_bytes.len());
            let elf = std::fs::read(&path).unwrap();
            let co = gfxpatch::container::CodeObject::parse(&elf).unwrap();
            let sec = co.section_containing(addr).unwrap();
            let at = (sec.offset + addr - sec.address) as usize;
            assert_eq!(&elf[at..at + original.len()], original.as_slice(), "{text} at {addr:#x}");
            let mut mutant = elf.clone();
            mutant[at..at + original.len()].copy_from_slice(&mutant_bytes);
            let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
            let mpath = dir.join(format!("{stem}.{target}.mutant.co"));
            std::fs::write(&mpath, &mutant).unwrap();
            let (grid, block) = (case.grid.to_string(), case.block.to_string());
            let specs = cli_args(case);
            let run = |b: &Path| {
                let mut args = vec!["check", path.to_str().unwrap(), b.to_str().unwrap(), "--kernel", case.kernel, "--grid", &grid, "--block", &block, "--seeds", "2"];
                args.extend(specs.iter().map(String::as_str));
                common::gfxpatch(&args)
            };
            let same = run(&path);
            assert_eq!(same.status.code(), Some(0), "{}{}", String::from_utf8_lossy(&same.stdout), String::from_utf8_lossy(&same.stderr));
            let diff = run(&mpath);
            let out = String::from_utf8_lossy(&diff.stdout);
            assert_eq!(diff.status.code(), Some(1), "{target} {stem} `{text}` -> {to}: {out}{}", String::from_utf8_lossy(&diff.stderr));
            assert!(out.contains("different: arg0 (u8) index "), "{out}");
        }
    }
}

/// Lists what the emulator cannot run in the reference fixtures (run with `--nocapture`).
#[test]
#[ignore]
fn list_unsupported_instructions() {
    for target in ["gfx1100", "gfx1151", "gfx90a", "gfx942", "gfx900", "gfx1030", "gfx1200"] {
        for opt in ["O2", "O0"] {
            for (stem, _) in SOURCES {
                if opt != "O2" && O2_ONLY.contains(&stem) {
                    continue;
                }
                let elf = std::fs::read(fixture_of(stem, target, opt)).unwrap();
                for (m, why) in emu::launch::support(&elf).unwrap() {
                    if let Some(why) = why {
                        println!("{target} {stem}.{opt}: {m}: {why}");
                    }
                }
            }
        }
    }
}

/// Prints the opcodes the host-reference runs execute, per generation (for docs/emulator.md;
/// run with `--ignored --nocapture`).
#[test]
#[ignore]
fn print_opcode_coverage() {
    for target in ["gfx1100", "gfx1151", "gfx90a", "gfx942", "gfx900", "gfx1030", "gfx1200"] {
        let mut all = std::collections::BTreeMap::new();
        for opt in ["O2", "O0"] {
            for (m, n) in compare_with_host(target, opt) {
                *all.entry(m).or_insert(0u64) += n;
            }
        }
        println!("{target} ({} opcodes): {}", all.len(), all.keys().copied().collect::<Vec<_>>().join(" "));
    }
}

/// An access outside mapped memory is a fault naming the kernel, the instruction, the lane and
/// the address; it is never a silent zero.
#[test]
fn a_load_past_mapped_memory_is_a_fault_naming_lane_and_address() {
    for target in ["gfx1100", "gfx90a"] {
        let elf = std::fs::read(fixture(target, "O2")).unwrap();
        // n = 512 over buffers of 200 elements: lanes past 200 + the guard read unmapped bytes.
        let args = [Arg::Buffer(vec![0; 800]), Arg::Buffer(random_bytes(800, 3)), Arg::Buffer(random_bytes(800, 4)), Arg::Value(512u32.to_le_bytes().to_vec())];
        let dispatch = Dispatch { grid: [512, 1, 1], block: [64, 1, 1] };
        let stop = emu::run(&elf, "int_mix", &dispatch, &args, &Options::default()).unwrap_err();
        assert_eq!(stop.kind, StopKind::Fault, "{stop}");
        let (lane, address) = (stop.lane.expect("a lane"), stop.address.expect("an address"));
        // Buffer 1 (`a`) is the second mapped buffer; its 800 bytes and 256 guard bytes end at
        // element 264, the first unmapped one, which work-item 264 (wave 4, lane 8) reads.
        assert_eq!(lane, 264 % 64, "{stop}");
        assert_eq!(address % 0x1_0000, 1056, "{stop}");
        let shown = stop.to_string();
        assert!(shown.contains("int_mix") && shown.contains("global_load") && shown.contains("outside mapped memory"), "{shown}");
    }
}

#[test]
fn trace_prints_each_instruction_of_the_first_wave() {
    let path = fixture("gfx1100", "O2");
    let out = common::gfxpatch(&["emulate", path.to_str().unwrap(), "--kernel", "lds_reverse", "--grid", "128", "--block", "64", "--trace", "u32[128]=0", "u32[128]"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let traced: Vec<&str> = text.lines().filter(|l| l.starts_with("0x")).collect();
    assert!(traced.iter().take(4).any(|l| l.contains("s_load")), "{text}");
    assert!(traced.iter().any(|l| l.contains("s_barrier")) && traced.last().is_some_and(|l| l.contains("s_endpgm")), "{text}");
    // 2 waves of 32 per workgroup, 2 workgroups, all alike: the trace is one wave's.
    assert!(text.contains("kernel lds_reverse: ") && text.contains(&format!("{} wave instructions", traced.len() * 4)), "{text}");
}

/// `gfxpatch check` where only B faults: a difference (exit 1, naming the fault), not "could
/// not run" (2); the other way round, A faulting, is 2. (A fault in B with A clean was 2.)
#[test]
fn check_calls_a_fault_in_b_alone_a_difference() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    // A scalar load from s[96:97], zero at launch: address 0 is unmapped.
    for (target, patch) in [("gfx1100", "s_load_b32 s2, s[96:97], 0x0\ns_nop 0"), ("gfx90a", "s_load_dword s0, s[96:97], 0x0")] {
        let path = fixture(target, "O2");
        let elf = std::fs::read(&path).unwrap();
        let bytes: Vec<u8> = patch.lines().flat_map(|l| encode(target, l)).collect();
        let faulting = dir.join(format!("emu_int.{target}.faults.co"));
        std::fs::write(&faulting, patch_entry(&elf, "int_mix", &bytes)).unwrap();
        let case = &CASES[0];
        let (grid, block) = (case.grid.to_string(), case.block.to_string());
        let specs = cli_args(case);
        let run = |a: &Path, b: &Path| {
            let mut args = vec!["check", a.to_str().unwrap(), b.to_str().unwrap(), "--kernel", case.kernel, "--grid", &grid, "--block", &block, "--seeds", "1"];
            args.extend(specs.iter().map(String::as_str));
            common::gfxpatch(&args)
        };
        let b_faults = run(&path, &faulting);
        let out = String::from_utf8_lossy(&b_faults.stdout);
        assert_eq!(b_faults.status.code(), Some(1), "{target}: {out}{}", String::from_utf8_lossy(&b_faults.stderr));
        assert!(out.contains("different") && out.contains("outside mapped memory") && out.contains("s_load"), "{out}");
        let a_faults = run(&faulting, &path);
        assert_eq!(a_faults.status.code(), Some(2), "{target}: {}", String::from_utf8_lossy(&a_faults.stdout));
    }
}

/// Runs the instructions `text` (assembled by llvm-mc-19 for `mcpu`, `mattr`) on one wave whose
/// registers `setup` fills (EXEC all lanes unless it says otherwise), until they end.
fn run_one(mcpu: &str, mattr: &str, text: &str, setup: impl FnOnce(&mut emu::wave::Wave)) -> Result<emu::wave::Wave, String> {
    use emu::exec::{Code, Context, Counts, step};
    let target = gfxpatch::isa::Target::from_name(mcpu, mattr).unwrap();
    let code: Vec<u8> = text.lines().flat_map(|l| encode_with(mcpu, mattr, l)).collect();
    let mut memory = emu::memory::Memory::new();
    let base = 0x1_0000u64;
    memory.map(base, code.len() as u64 + 64);
    memory.write(base, &code).unwrap();
    let mut wave = emu::wave::Wave::new(if target.wave64 { 64 } else { 32 }, emu::wave::Apertures { shared_hi: 0x1000_0000, private_hi: 0x2000_0000 });
    wave.pc = base;
    wave.set_exec(u64::MAX);
    setup(&mut wave);
    let mut code_cache = Code::new(target);
    let mut counts = Counts::default();
    let mut lds = [0u8; 0];
    let mut ctx = Context { memory: &mut memory, lds: &mut lds, private_size: 0, counts: &mut counts, first_address: None };
    while wave.pc < base + code.len() as u64 {
        step(&mut wave, &mut code_cache, &mut ctx).map_err(|f| f.message)?;
    }
    Ok(wave)
}

/// The encoding of one instruction, from llvm-mc-19, with `-mattr` unless `mattr` is empty.
fn encode_with(mcpu: &str, mattr: &str, text: &str) -> Vec<u8> {
    let mut args = vec!["-triple=amdgcn-amd-amdhsa".to_owned(), format!("-mcpu={mcpu}"), "-show-encoding".to_owned()];
    if !mattr.is_empty() {
        args.push(format!("-mattr={mattr}"));
    }
    let out = Command::new("llvm-mc-19")
        .args(&args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write as _;
            c.stdin.take().unwrap().write_all(text.as_bytes())?;
            c.wait_with_output()
        })
        .expect("llvm-mc-19 is required (scripts/setup.sh installs it)");
    let s = String::from_utf8(out.stdout).unwrap();
    let enc = s.split("encoding: [").nth(1).unwrap_or_else(|| panic!("no encoding for {text}: {s}"));
    enc.split(']').next().unwrap().split(',').map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap()).collect()
}

/// (lane, the destination's value there afterwards) pairs.
type Lanes = Vec<(u32, u32)>;

/// DPP lane sharing, instruction by instruction (assembled by llvm-mc-19), against lanes worked
/// out by hand from the controls' definitions (AMD's ISA guides, "Data Parallel Processing";
/// LLVM's AMDGPUModifierSyntax: dpp_ctrl, dpp16_ctrl, dpp32_ctrl, row_mask, bank_mask,
/// bound_ctrl, fi, dpp8). v1 holds 100 + lane, v0 (the destination) 1000 + lane; each case
/// lists (lane, v0 after) for the lanes that show the control's rule. A lane kept at 1000 +
/// lane was not written.
#[test]
fn dpp_controls_move_the_lanes_the_guides_say() {
    let keep = |l: u32| 1000 + l;
    let from = |l: u32| 100 + l;
    let cases: Vec<(&str, &str, &str, Lanes)> = vec![
        // quad_perm:[3,2,1,0]: lane 4q + k reads lane 4q + 3 - k.
        ("gfx90a", "", "v_mov_b32_dpp v0, v1 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf", vec![(0, from(3)), (1, from(2)), (6, from(5)), (63, from(60))]),
        // row_shl:1: lane i reads i + 1 of its row; lane 15 of a row has none: not written
        // (bound_ctrl clear) or zero (bound_ctrl:1, which GFX9 spells bound_ctrl:0 too).
        ("gfx90a", "", "v_mov_b32_dpp v0, v1 row_shl:1 row_mask:0xf bank_mask:0xf", vec![(0, from(1)), (14, from(15)), (15, keep(15)), (16, from(17)), (63, keep(63))]),
        ("gfx90a", "", "v_mov_b32_dpp v0, v1 row_shl:1 row_mask:0xf bank_mask:0xf bound_ctrl:0", vec![(15, 0), (31, 0), (30, from(31))]),
        // row_shr:3: lane i reads i - 3 of its row.
        ("gfx942", "", "v_mov_b32_dpp v0, v1 row_shr:3 row_mask:0xf bank_mask:0xf", vec![(2, keep(2)), (3, from(0)), (18, keep(18)), (19, from(16)), (47, from(44))]),
        // row_ror:4: lane i reads (i - 4) mod 16 of its row.
        ("gfx942", "", "v_mov_b32_dpp v0, v1 row_ror:4 row_mask:0xf bank_mask:0xf", vec![(0, from(12)), (3, from(15)), (4, from(0)), (16, from(28)), (63, from(59))]),
        // wave_shl/rol/shr/ror:1 across the whole wave of 64.
        ("gfx90a", "", "v_mov_b32_dpp v0, v1 wave_shl:1 row_mask:0xf bank_mask:0xf", vec![(0, from(1)), (15, from(16)), (63, keep(63))]),
        ("gfx90a", "", "v_mov_b32_dpp v0, v1 wave_rol:1 row_mask:0xf bank_mask:0xf", vec![(15, from(16)), (63, from(0))]),
        ("gfx90a", "", "v_mov_b32_dpp v0, v1 wave_shr:1 row_mask:0xf bank_mask:0xf", vec![(0, keep(0)), (16, from(15)), (63, from(62))]),
        ("gfx90a", "", "v_mov_b32_dpp v0, v1 wave_ror:1 row_mask:0xf bank_mask:0xf", vec![(0, from(63)), (16, from(15))]),
        // row_mirror: lane i reads 15 - i of its row; row_half_mirror: 7 - i of its half row.
        ("gfx900", "", "v_mov_b32_dpp v0, v1 row_mirror row_mask:0xf bank_mask:0xf", vec![(0, from(15)), (17, from(30)), (63, from(48))]),
        ("gfx900", "", "v_mov_b32_dpp v0, v1 row_half_mirror row_mask:0xf bank_mask:0xf", vec![(0, from(7)), (8, from(15)), (20, from(19))]),
        // row_bcast:15: lane 15 of each row to the next row; row 0 has no source.
        ("gfx900", "", "v_mov_b32_dpp v0, v1 row_bcast:15 row_mask:0xf bank_mask:0xf", vec![(0, keep(0)), (16, from(15)), (31, from(15)), (40, from(31)), (63, from(47))]),
        // row_bcast:31: lane 31 to rows 2 and 3.
        ("gfx900", "", "v_mov_b32_dpp v0, v1 row_bcast:31 row_mask:0xf bank_mask:0xf", vec![(0, keep(0)), (31, keep(31)), (32, from(31)), (63, from(31))]),
        // row_mask:0xa: rows 1 and 3 only; bank_mask:0x1: lanes 0..3 of each row only.
        ("gfx90a", "", "v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] row_mask:0xa bank_mask:0xf", vec![(0, keep(0)), (16, from(16)), (32, keep(32)), (63, from(63))]),
        ("gfx90a", "", "v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0x1", vec![(3, from(3)), (4, keep(4)), (19, from(19)), (20, keep(20))]),
        // row_newbcast:5 (GFX90A, GFX940): lane 5 of the row to the whole row.
        ("gfx90a", "", "v_mov_b32_dpp v0, v1 row_newbcast:5 row_mask:0xf bank_mask:0xf", vec![(0, from(5)), (31, from(21)), (63, from(53))]),
        // GFX10+: row_share:n reads lane n of the row, row_xmask:n lane i ^ n (wave32 and wave64).
        ("gfx1100", "", "v_mov_b32_dpp v0, v1 row_share:3 row_mask:0xf bank_mask:0xf", vec![(0, from(3)), (31, from(19))]),
        ("gfx1100", "+wavefrontsize64", "v_mov_b32_dpp v0, v1 row_share:15 row_mask:0xf bank_mask:0xf", vec![(0, from(15)), (40, from(47)), (63, from(63))]),
        ("gfx1100", "", "v_mov_b32_dpp v0, v1 row_xmask:5 row_mask:0xf bank_mask:0xf", vec![(0, from(5)), (7, from(2)), (21, from(16))]),
        ("gfx1030", "+wavefrontsize64", "v_mov_b32_dpp v0, v1 row_xmask:15 row_mask:0xf bank_mask:0xf", vec![(0, from(15)), (50, from(61))]),
        // GFX11 spells bound_ctrl as the bit: bound_ctrl:0 leaves the lane, bound_ctrl:1 zeroes.
        ("gfx1100", "", "v_mov_b32_dpp v0, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0", vec![(0, keep(0)), (16, keep(16)), (17, from(16))]),
        ("gfx1100", "", "v_mov_b32_dpp v0, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1", vec![(0, 0), (16, 0), (17, from(16))]),
        // DPP8: lane 8g + k reads lane 8g + sel[k].
        ("gfx1100", "", "v_mov_b32_dpp v0, v1 dpp8:[7,6,5,4,3,2,1,0]", vec![(0, from(7)), (7, from(0)), (9, from(14)), (31, from(24))]),
        // An ALU op: src0 from the other lane, src1 the lane's own; neg on src0 (f32).
        ("gfx90a", "", "v_add_u32_dpp v0, v1, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0", vec![(0, from(0)), (5, from(4) + from(5))]),
        ("gfx1100", "", "v_sub_f32_dpp v0, -v2, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", vec![(0, (-3.0f32 - 2.0f32).to_bits()), (1, (-2.0f32 - 3.0f32).to_bits())]),
        // GFX11's VOP3 DPP: a third source and a modifier the VOP2 form lacks.
        ("gfx1100", "", "v_add3_u32_e64_dpp v0, v1, v1, 7 row_share:0 row_mask:0xf bank_mask:0xf", vec![(5, from(0) + from(5) + 7), (20, from(16) + from(20) + 7)]),
    ];
    for (mcpu, mattr, text, expect) in cases {
        let wave = run_one(mcpu, mattr, text, |w| {
            for lane in 0..64 {
                w.set_v(1, lane, 100 + lane);
                w.set_v(0, lane, 1000 + lane);
                // v2: 2.0 + lane as f32.
                w.set_v(2, lane, (2.0 + lane as f32).to_bits());
            }
        })
        .unwrap_or_else(|e| panic!("{mcpu}{mattr} `{text}`: {e}"));
        for (lane, want) in expect {
            assert_eq!(wave.v(0, lane), want, "{mcpu}{mattr} `{text}`: lane {lane}");
        }
    }
}

/// DPP reads a lane EXEC disables as invalid (bound_ctrl then reads zero, or the lane is not
/// written) unless `fi:1` fetches it; DPP8 reads it as zero unless `fi:1`.
#[test]
fn dpp_reads_of_inactive_lanes_follow_fi_and_bound_ctrl() {
    let cases: Vec<(&str, &str, Lanes)> = vec![
        ("gfx90a", "v_mov_b32_dpp v0, v1 row_shr:1 row_mask:0xf bank_mask:0xf", vec![(1, 1001), (3, 102)]),
        ("gfx90a", "v_mov_b32_dpp v0, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0", vec![(1, 0), (3, 102)]),
        ("gfx1100", "v_mov_b32_dpp v0, v1 row_shr:1 row_mask:0xf bank_mask:0xf fi:1", vec![(1, 100), (3, 102)]),
        ("gfx1100", "v_mov_b32_dpp v0, v1 dpp8:[1,0,3,2,5,4,7,6]", vec![(1, 0), (3, 102)]),
        ("gfx1100", "v_mov_b32_dpp v0, v1 dpp8:[1,0,3,2,5,4,7,6] fi:1", vec![(1, 100), (3, 102)]),
    ];
    for (mcpu, text, expect) in cases {
        // EXEC: odd lanes and lane 2.
        let wave = run_one(mcpu, "", text, |w| {
            for lane in 0..64 {
                w.set_v(1, lane, 100 + lane);
                w.set_v(0, lane, 1000 + lane);
            }
            w.set_exec(0xaaaa_aaaa_aaaa_aaaa | 4);
        })
        .unwrap_or_else(|e| panic!("{mcpu} `{text}`: {e}"));
        for (lane, want) in expect {
            assert_eq!(wave.v(0, lane), want, "{mcpu} `{text}`: lane {lane}");
        }
        assert_eq!(wave.v(0, 0), 1000, "{mcpu} `{text}`: an inactive lane is never written");
    }
}

/// clamp and omod on f16 results (VOP3), from the ISA guides' output modifiers: omod
/// multiplies by 2, 4 or 0.5, clamp limits to [0, 1]; the register's high half stays (GFX10+).
#[test]
fn clamp_and_omod_apply_to_f16_results() {
    let h = |x: f32| u32::from(half_bits(x));
    let cases = [
        ("gfx1100", "v_add_f16_e64 v0, v1, v2 mul:2", h(7.0)),
        ("gfx1100", "v_add_f16_e64 v0, v1, v2 div:2", h(1.75)),
        ("gfx1100", "v_add_f16_e64 v0, v1, v2 clamp", h(1.0)),
        ("gfx1100", "v_sub_f16_e64 v0, v1, v2 clamp", h(0.0)),
        ("gfx90a", "v_mul_f16_e64 v0, v1, v2 mul:4", h(12.0)),
        ("gfx90a", "v_fma_f16 v0, v1, v2, v2 clamp", h(1.0)),
    ];
    for (mcpu, text, want) in cases {
        let wave = run_one(mcpu, "", text, |w| {
            for lane in 0..64 {
                // v1 = 1.5, v2 = 2.0 (halves), high halves 0xabcd.
                w.set_v(1, lane, 0xabcd_0000 | h(1.5));
                w.set_v(2, lane, 0xabcd_0000 | h(2.0));
                w.set_v(0, lane, 0x1234_0000);
            }
        })
        .unwrap_or_else(|e| panic!("{mcpu} `{text}`: {e}"));
        let got = wave.v(0, 0);
        assert_eq!(got & 0xffff, want, "{mcpu} `{text}`: {got:#x}");
        if mcpu == "gfx1100" {
            assert_eq!(got >> 16, 0x1234, "{mcpu} `{text}`: the high half is kept");
        }
    }
}

/// f16 bits of `x` (exact for the test's values: small multiples of 1/4).
fn half_bits(x: f32) -> u16 {
    if x == 0.0 {
        return 0;
    }
    let b = x.to_bits();
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    (((b >> 16) & 0x8000) | ((e as u32) << 10) | ((b >> 13) & 0x3ff)) as u16
}

/// Integer dot products (VOP3P, and CDNA's accumulating VOP2 `v_dot*c`), assembled by
/// llvm-mc-19, against sums worked by hand from AMD's texts (each byte, half or nibble of S0
/// times the same one of S1, signed or unsigned, plus S2 or, for `c`, the destination).
#[test]
fn integer_dot_products_sum_the_guides_products() {
    // v1/v2 bytes (low first): 01 7f ff 80 / 05 ff 02 03: signed 5 - 127 - 2 - 384 = -508,
    // unsigned 5 + 127*255 + 255*2 + 128*3 = 33284. v4/v5 halves: 7fff 8000 / 0002 ffff: signed
    // 65534 + 32768 = 98302, unsigned 65534 + 32768*65535 = 2147516414. v6/v7 nibbles: 7 f /
    // 3 8: signed 21 + 8 = 29, unsigned 21 + 120 = 141. v3 = v0 = 1000 (the accumulators).
    let cases = [
        ("gfx90a", "v_dot4_i32_i8 v0, v1, v2, v3", 492u32),
        ("gfx942", "v_dot4_u32_u8 v0, v1, v2, v3", 34284),
        ("gfx90a", "v_dot2_i32_i16 v0, v4, v5, v3", 99302),
        ("gfx942", "v_dot2_u32_u16 v0, v4, v5, v3", 2147517414),
        ("gfx942", "v_dot8_i32_i4 v0, v6, v7, v3", 1029),
        ("gfx90a", "v_dot8_u32_u4 v0, v6, v7, v3", 1141),
        ("gfx90a", "v_dot4c_i32_i8 v0, v1, v2", 492),
        ("gfx942", "v_dot2c_i32_i16 v0, v4, v5", 99302),
        ("gfx1100", "v_dot4_u32_u8 v0, v1, v2, v3", 34284),
        ("gfx1100", "v_dot8_u32_u4 v0, v6, v7, v3", 1141),
    ];
    for (mcpu, text, want) in cases {
        let wave = run_one(mcpu, "", text, |w| {
            for lane in 0..64 {
                for (r, v) in [(0, 1000), (1, 0x80ff_7f01), (2, 0x0302_ff05), (3, 1000), (4, 0x8000_7fff), (5, 0xffff_0002), (6, 0xf7), (7, 0x83)] {
                    w.set_v(r, lane, v);
                }
            }
        })
        .unwrap_or_else(|e| panic!("{mcpu} `{text}`: {e}"));
        assert_eq!(wave.v(0, 0), want, "{mcpu} `{text}`");
        assert_eq!(wave.v(0, 31), want, "{mcpu} `{text}`");
    }
}
