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
    let out = Command::new("llvm-mc-19")
        .args(["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={mcpu}"), "-show-encoding"])
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

#[test]
fn an_unimplemented_instruction_stops_the_run_naming_it() {
    // A float op whose text calls a function the evaluator does not model (`sin`), a
    // hardware register other than MODE, a DPP lane shuffle (RDNA3 and CDNA3 forms) and GFX9's
    // unfused mixed-precision multiply-add (no text).
    let dpp = "v_mov_b32_dpp v0, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf";
    let cases = [
        ("gfx1100", "v_sin_f32 v0, v1", "v_sin_f32"),
        ("gfx90a", "s_getreg_b32 s0, hwreg(HW_REG_HW_ID)", "s_getreg_b32"),
        ("gfx1100", dpp, "v_mov_b32_dpp"),
        ("gfx942", dpp, "v_mov_b32_dpp"),
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
