//! LLVM's own assembler test vectors (tests/data/vectors-*.jsonl.gz, the checks of
//! `llvm/test/MC/AMDGPU/*.s`): the canonical text LLVM prints for each instruction, parsed by
//! gfxpatch for the check's CPU and mode, must give LLVM's bytes. Rates per generation may not
//! fall below the floors in tests/golden/asm-vector-rates.txt; after an improvement raise them
//! with `GFXPATCH_BLESS=1 cargo test --release --test asm_vectors`. The vectors that fail are
//! listed by reason in target/asm-vector-failures.txt (or `$GFXPATCH_VECTOR_FAILURES`).
//!
//! The full run parses about 300,000 vectors; the default (debug) run takes every 8th distinct
//! vector of each generation, and `GFXPATCH_ASM_VECTORS=all` takes all of them.

mod common;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader};

use gfxpatch::isa::Target;
use gfxpatch::isa::parse::Parser;
use gfxpatch::llvm::asm::LlvmAssembler;

#[derive(serde::Deserialize)]
struct Config {
    cpu: Option<String>,
    mattr: Option<String>,
}

#[derive(serde::Deserialize)]
struct Vector {
    file: String,
    configs: Vec<Config>,
    asm: String,
    bytes: String,
}

/// LLVM's older CPU names used by its tests.
fn canonical_cpu(cpu: &str) -> &str {
    match cpu {
        "tonga" | "iceland" => "gfx802",
        "fiji" | "polaris10" | "polaris11" => "gfx803",
        "carrizo" => "gfx801",
        "stoney" => "gfx810",
        "gfx940" | "gfx941" => "gfx942",
        other => other,
    }
}

fn load(file: &str) -> Vec<Vector> {
    let path = common::repo().join("tests/data").join(file);
    let reader = BufReader::new(flate2::read::GzDecoder::new(
        std::fs::File::open(&path).unwrap(),
    ));
    reader
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect()
}

#[derive(Default)]
struct Tally {
    total: usize,
    same: usize,
}

/// Why a vector failed, coarsely: the parse error's kind, or "other bytes".
fn reason(message: &str) -> String {
    if let Some(rest) = message.split_once(": expected ").map(|(_, r)| r) {
        let what = rest.split(", found").next().unwrap_or(rest);
        return format!(
            "expected {}",
            if what.starts_with('`') {
                "literal text"
            } else {
                what
            }
        );
    }
    message
        .split(':')
        .skip(2)
        .collect::<Vec<_>>()
        .join(":")
        .split(" (")
        .next()
        .unwrap_or("")
        .trim()
        .to_owned()
}

/// A vector gfxpatch did not reproduce, before LLVM is asked about it.
struct Pending {
    generation: String,
    /// From LLVM 19's vectors (the in-process LLVM can replay it).
    llvm19: bool,
    /// The CPU and features as the RUN line gave them.
    cpu: String,
    mattr: String,
    asm: String,
    bytes: Vec<u8>,
    /// Our bytes, when the text parsed.
    ours: Option<Vec<u8>>,
    /// The failure line for the list, and its reason.
    line: String,
    why: String,
}

/// For each pending vector, what LLVM 19 in-process makes of its text under its recorded CPU
/// and features (its bytes, or its error) when that is not the recorded bytes (`None`: LLVM
/// agrees with its vector, or the vector is not LLVM 19's).
fn llvm_disagrees(pending: &[Pending]) -> Vec<Option<Result<Vec<u8>, String>>> {
    let mut out: Vec<Option<Result<Vec<u8>, String>>> = vec![None; pending.len()];
    let mut by_config: BTreeMap<(&str, &str), Vec<usize>> = BTreeMap::new();
    for (k, p) in pending.iter().enumerate() {
        if p.llvm19 {
            by_config.entry((&p.cpu, &p.mattr)).or_default().push(k);
        }
    }
    for ((cpu, mattr), indices) in by_config {
        let mut llvm = LlvmAssembler::for_cpu(cpu, mattr).unwrap();
        let lines: Vec<&str> = indices.iter().map(|&k| pending[k].asm.as_str()).collect();
        let results = llvm.assemble_each(&lines).unwrap();
        for (&k, result) in indices.iter().zip(results) {
            out[k] = match result {
                Ok(b) if b == pending[k].bytes => None,
                other => Some(other),
            };
        }
    }
    out
}

#[test]
fn assembler_vectors_parse_to_llvms_bytes() {
    let every = match std::env::var("GFXPATCH_ASM_VECTORS").as_deref() {
        Ok("all") => 1,
        _ if cfg!(debug_assertions) => 8,
        _ => 1,
    };
    // `GFXPATCH_ASM_VECTORS_ONLY=GFX11,GFX12`: those generations only (no floors checked).
    let only = std::env::var("GFXPATCH_ASM_VECTORS_ONLY").ok();
    let mut parsers: HashMap<(String, String), Option<Parser>> = HashMap::new();
    let mut by_generation: BTreeMap<String, Tally> = BTreeMap::new();
    let mut reasons: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    let mut seen: HashSet<(String, String, String, String)> = HashSet::new();
    // Failures of LLVM 19's vectors, checked against LLVM 19 itself before they count.
    let mut pending: Vec<Pending> = Vec::new();
    let mut counter: HashMap<String, usize> = HashMap::new();
    for file in [
        "vectors-llvm-19.1.7.jsonl.gz",
        "vectors-llvm-22.1.8-gfx950-gfx1250.jsonl.gz",
    ] {
        for v in load(file) {
            if v.file.contains("/Disassembler/") {
                continue;
            }
            let bytes: Vec<u8> = (0..v.bytes.len() / 2)
                .filter_map(|i| u8::from_str_radix(&v.bytes[2 * i..2 * i + 2], 16).ok())
                .collect();
            for config in &v.configs {
                let cpu = canonical_cpu(config.cpu.as_deref().unwrap_or("")).to_owned();
                if file.contains("22.1.8")
                    != matches!(cpu.as_str(), "gfx950" | "gfx1250" | "gfx1251")
                {
                    continue;
                }
                let mattr = config.mattr.clone().unwrap_or_default();
                if !seen.insert((cpu.clone(), mattr.clone(), v.asm.clone(), v.bytes.clone())) {
                    continue;
                }
                let parser = parsers
                    .entry((cpu.clone(), mattr.clone()))
                    .or_insert_with(|| Target::from_name(&cpu, &mattr).ok().map(Parser::new));
                let Some(parser) = parser else { continue };
                let generation = parser.target().generation().name().to_owned();
                if only.as_ref().is_some_and(|o| !o.split(',').any(|g| g == generation)) {
                    continue;
                }
                let n = counter.entry(generation.clone()).or_default();
                *n += 1;
                if !(*n - 1).is_multiple_of(every) {
                    continue;
                }
                let tally = by_generation.entry(generation.clone()).or_default();
                tally.total += 1;
                let llvm19 = !file.contains("22.1.8");
                let raw_cpu = config.cpu.clone().unwrap_or_default();
                let why = match parser.parse(&v.asm) {
                    Ok(parsed) if parsed.inst.bytes() == bytes => {
                        tally.same += 1;
                        continue;
                    }
                    Ok(parsed) => {
                        let ours: String = parsed
                            .inst
                            .bytes()
                            .iter()
                            .map(|b| format!("{b:02x}"))
                            .collect();
                        (
                            format!(
                                "{cpu} {mattr}: `{}` llvm {} ours {ours} ({})",
                                v.asm,
                                v.bytes,
                                parsed.encoding.record_name()
                            ),
                            "other bytes".to_owned(),
                            Some(parsed.inst.bytes().to_vec()),
                        )
                    }
                    Err(e) => (
                        format!("{cpu} {mattr}: `{}` llvm {}: {e}", v.asm, v.bytes),
                        reason(&e.to_string()),
                        None,
                    ),
                };
                pending.push(Pending {
                    generation,
                    llvm19,
                    cpu: raw_cpu,
                    mattr,
                    asm: v.asm.clone(),
                    bytes: bytes.clone(),
                    ours: why.2,
                    line: why.0,
                    why: why.1,
                });
            }
        }
    }
    // A vector LLVM 19 itself does not assemble to its recorded bytes under the recorded CPU
    // and features (text and bytes paired wrongly in the extraction, a RUN line's -mattr that
    // the record lost) is excluded from the rates, counted and listed by reason.
    let mut excluded: Vec<String> = Vec::new();
    let mut excluded_by: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let disagreeing = llvm_disagrees(&pending);
    for (k, p) in pending.into_iter().enumerate() {
        if let Some(llvm_says) = &disagreeing[k] {
            by_generation.get_mut(&p.generation).unwrap().total -= 1;
            let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
            // Measured against what LLVM does give, ours may still differ: said apart.
            let (why, llvm_says) = match llvm_says {
                Err(e) => ("LLVM 19 rejects the text", format!("error: {e}")),
                Ok(b) if p.ours.as_ref() == Some(b) => {
                    ("LLVM 19 gives other bytes, ours are LLVM's", format!("llvm-19 {}", hex(b)))
                }
                Ok(b) => (
                    "LLVM 19 gives other bytes, ours differ from those too",
                    format!("llvm-19 {}", hex(b)),
                ),
            };
            *excluded_by
                .entry(p.generation.clone())
                .or_default()
                .entry(why.to_owned())
                .or_default() += 1;
            excluded.push(format!("{} ({why}: {llvm_says})", p.line));
            continue;
        }
        failures.push(p.line);
        *reasons
            .entry(p.generation)
            .or_default()
            .entry(p.why)
            .or_default() += 1;
    }
    let rates: BTreeMap<String, f64> = by_generation
        .iter()
        .map(|(g, t)| (g.clone(), 100.0 * t.same as f64 / t.total.max(1) as f64))
        .collect();
    let mut report = String::new();
    for (g, t) in &by_generation {
        report.push_str(&format!(
            "{g:8} {:6}/{:6} {:7.3}% same bytes\n",
            t.same, t.total, rates[g]
        ));
        for (why, n) in excluded_by.get(g).into_iter().flatten() {
            report.push_str(&format!("           {n:6} excluded: {why}\n"));
        }
        let mut top: Vec<_> = reasons.get(g).into_iter().flatten().collect();
        top.sort_by(|a, b| b.1.cmp(a.1));
        for (why, n) in top.iter().take(6) {
            report.push_str(&format!("           {n:6} {why}\n"));
        }
    }
    eprintln!("{report}");
    let list = std::env::var("GFXPATCH_VECTOR_FAILURES").map_or_else(
        |_| common::repo().join("target/asm-vector-failures.txt"),
        Into::into,
    );
    let _ = std::fs::write(
        list,
        format!(
            "{report}\n{}\n\nExcluded (LLVM 19 does not give the recorded bytes itself):\n{}\n",
            failures.join("\n"),
            excluded.join("\n")
        ),
    );

    let golden = common::repo().join("tests/golden/asm-vector-rates.txt");
    if std::env::var("GFXPATCH_BLESS").is_ok_and(|v| v == "1") {
        let text: String = rates
            .iter()
            .map(|(g, r)| format!("{g} {:.3}\n", (r * 1000.0).floor() / 1000.0 - 0.2))
            .collect();
        std::fs::write(&golden, text).unwrap();
        return;
    }
    if only.is_some() {
        return;
    }
    let floors = std::fs::read_to_string(&golden).unwrap_or_default();
    for line in floors.lines() {
        let Some((g, floor)) = line.split_once(' ') else {
            continue;
        };
        let floor: f64 = floor.parse().unwrap();
        let rate = rates.get(g).copied().unwrap_or(0.0);
        assert!(
            rate >= floor,
            "{g}: {rate:.3}% of assembler vectors parse to LLVM's bytes, below the floor {floor}% (raise floors with GFXPATCH_BLESS=1 after an improvement)\n{report}"
        );
    }
}

/// Spellings LLVM's assembler accepts besides the printer's canonical text, each with LLVM
/// 19's bytes (llvm-mc -show-encoding): regression tests for the parser's defaults, aliases,
/// suffix handling, renamed mnemonics and two-pass reading.
#[test]
fn equivalent_spellings_give_llvms_bytes() {
    let cases: [(&str, &str, &str, &str); 60] = [
        // DPP row_mask/bank_mask left out: 0xf.
        ("gfx1100", "-real-true16,+wavefrontsize32", "v_floor_f16 v5, v1 row_mirror", "fab60a7e014001ff"),
        // dpp8 with fi:1 and with an explicit fi:0.
        ("gfx1100", "+wavefrontsize32", "v_cmp_le_u16 vcc_lo, v1, v2 dpp8:[7,7,7,3,4,4,6,7] fi:1", "ea04767c01ff47fa"),
        ("gfx1200", "", "v_cmpx_gt_f32_e64_dpp v255, 4.0 dpp8:[0,0,0,0,0,0,0,0] fi:0", "7e0094d4e9ec0100ff000000"),
        // SDWA selects left out: DWORD, UNUSED_PRESERVE.
        ("gfx1010", "+wavefrontsize32", "v_cvt_f32_i32_sdwa v5, v1 dst_sel:DWORD src0_sel:DWORD", "f90a0a7e01160600"),
        // A default written out.
        ("gfx1010", "+wavefrontsize64", "ds_add_u32 v0, v1 offset:0", "000000d800010000"),
        ("gfx1010", "+wavefrontsize64", "v_mov_b32_dpp v5, v1 quad_perm:[3,2,1,0] row_mask:0x0 bank_mask:0x0 bound_ctrl:0", "fa020a7e011b0800"),
        // GFX8 VOPC SDWA: `_sdwa` written, not printed.
        ("gfx802", "", "v_cmp_class_f32_sdwa vcc, v255, v2 src0_sel:DWORD src1_sel:DWORD", "f904207cff000606"),
        // {_e64} AsmString mnemonics.
        ("gfx1100", "+wavefrontsize64", "v_cmpx_class_f16_e64 s105, v255", "7e00fdd469fe0300"),
        // Bits the text does not show, as LLVM's emitter writes them (op_sel_hi).
        ("gfx900", "", "v_pk_min_u16 v0, v1, v2", "00408dd301050218"),
        // The SGPR offset form, not its _alt twin.
        ("gfx900", "", "s_load_dword s5, flat_scratch, s0", "730100c000000000"),
        // MIMG data tuples sized by dmask, written before it; an atomic's tied vdst.
        ("gfx1013", "+wavefrontsize32", "image_msaa_load v[5:6], v[1:4], s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_2D_MSAA_ARRAY", "390300f001050200"),
        ("gfx1100", "", "image_atomic_cmpswap v[1:2], v2, s[12:19] dmask:0x3 dim:SQ_RSRC_IMG_1D unorm", "80032cf002010300"),
        // Older names of renamed instructions.
        ("gfx1100", "", "v_cvt_flr_i32_f32 v5, v1", "011b0a7e"),
        ("gfx1100", "+wavefrontsize32", "scratch_load_dword v5, off, off", "000051dc00007c05"),
        // MIMG NSA address lists (GFX10 bytes after the encoding; GFX12 fields, the record
        // converted by dim/dmask), `noa16`.
        ("gfx1030", "", "image_bvh_intersect_ray v[39:42], [v50, v46, v23, v17, v16, v15, v21, v20, v19, v37, v40], s[12:15]", "079f98f1322703002e1711100f15141325280000"),
        ("gfx1030", "", "image_bvh_intersect_ray v[4:7], v[9:19], s[4:7] noa16", "019f98f109040100"),
        ("gfx1200", "", "image_load v[1:4], [v0, v1], s[16:23] dmask:0x7 dim:SQ_RSRC_IMG_2D tfe", "0100c0d10120800000010000"),
        // s_waitcnt_depctr fields joined by `&`, defaults written; a number.
        ("gfx1030", "", "s_waitcnt_depctr depctr_hold_cnt(1) & depctr_sa_sdst(1) & depctr_va_vdst(1) & depctr_va_sdst(1) & depctr_va_ssrc(1) & depctr_va_vcc(1) & depctr_vm_vsrc(1)", "8713a3bf"),
        ("gfx1030", "", "s_waitcnt_depctr -32768", "0080a3bf"),
        // `execz` for `src_execz`.
        ("gfx1030", "", "v_add_f64 v[0:1], execz, v[2:3]", "000064d5fc040200"),
        // GFX11+: `bound_ctrl:0` is 0.
        ("gfx1200", "+wavefrontsize64", "v_cls_i32 v255, v255 row_xmask:15 row_mask:0x3 bank_mask:0x0 bound_ctrl:0 fi:1", "fa76fe7fff6f0530"),
        // The plain atomic, not `_RTN` with th 7.
        ("gfx1200", "", "buffer_atomic_dec_u32 v5, off, s[8:11], s3 offset:8388607 th:TH_ATOMIC_CASCADE_NT scope:SCOPE_DEV", "030010c40510e80000ffff7f"),
        // VOPD vdstY of either parity.
        ("gfx1200", "", "v_dual_mov_b32 v6, null :: v_dual_min_num_f32 v255, 0xaf123456, v5", "7c0016caff0afe06563412af"),
        ("gfx1200", "", "v_dual_mov_b32 v7, null :: v_dual_min_num_f32 v254, 0xaf123456, v5", "7c0016caff0afe07563412af"),
        // GFX12 SMEM offset left out; defaults written out; a comma before op_sel.
        ("gfx1200", "", "s_load_u8 s5, s[2:3], vcc_lo", "412101f4000000d4"),
        ("gfx1200", "", "v_pk_mul_lo_u16 v5, 0.5, m0 op_sel:[0,0] op_sel_hi:[1,1]", "054001ccf0fa0018"),
        ("gfx1200", "", "v_permlanex16_var_b32 v5, v1, v100, op_sel:[1,0]", "050810d701c90200"),
        // Cache policy in another order; MTBUF format as a number.
        ("gfx1200", "", "tbuffer_load_d16_format_x v4, off, ttmp[4:7], s3 format:[BUF_FMT_8_UINT] offset:8388607 scope:SCOPE_SYS th:TH_LOAD_BYPASS", "030022c404e0bc0200ffff7f"),
        ("gfx1100", "", "tbuffer_load_format_xyzw v[4:7], off, ttmp[4:7], 61, format:38 offset:4095", "ff8f31e900041cbd"),
        // GFX10+ MTBUF: the default format written out; the GFX9 split names, converted to
        // the unified format of the same name.
        ("gfx1100", "", "tbuffer_load_d16_format_x v4, off, s[8:11], s3, format:[BUF_FMT_8_UNORM] offset:4095", "ff0f0ce800040203"),
        ("gfx1100", "", "tbuffer_load_d16_format_x v255, off, s[8:11], s3, format:1 offset:4095", "ff0f0ce800ff0203"),
        ("gfx1100", "", "tbuffer_load_format_x v4, v1, s[8:11], s3, format:[BUF_DATA_FORMAT_16_16, BUF_NUM_FORMAT_UNORM] offen offset:52", "3400b8e801044203"),
        ("gfx1030", "", "tbuffer_load_format_x v4, off, s[8:11], s3 format:[BUF_NUM_FORMAT_FLOAT,BUF_DATA_FORMAT_16] offset:4095", "ff0f68e800040203"),
        // 16-bit integer operands: a float is the inline constant, hex a literal.
        ("gfx1200", "", "v_cvt_i32_i16_e32 v5, 0.5", "f0d40a7e"),
        ("gfx1200", "", "v_not_b16_e32 v5, 0x3800", "ffd20a7e00380000"),
        ("gfx1010", "+wavefrontsize64", "v_cmp_lt_u16 vcc, -4.0, v2", "f704527d"),
        // An interpolation attribute and its channel, one word.
        ("gfx1200", "", "ds_param_load v17, attr32.w wait_va_vdst:0 wait_vm_vsrc:1", "118380ce"),
        ("gfx1010", "", "v_interp_p1_f32_e64 v5, v2, attr32.x", "050000d620040200"),
        ("gfx1010", "+wavefrontsize32", "v_interp_mov_f32_e64 v5, p20, attr0.x", "050002d600020000"),
        // Short dim names; cache policies at their default written; an alias of TH_ATOMIC_RETURN.
        ("gfx1200", "", "image_load v255, [v254, v255], s[0:7] dmask:0x1 dim:2D", "010040d0ff000000feff0000"),
        ("gfx1200", "", "image_load v0, v0, s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_1D th:TH_LOAD_RT", "000040d00000000000000000"),
        ("gfx1200", "", "buffer_atomic_and_b32 v5, off, s[8:11], s3 offset:8388607 th:TH_ATOMIC_RT_RETURN scope:SCOPE_SE", "03000fc40510940000ffff7f"),
        // VOP3P DPP (`_e64_dpp`, no `_e64` in the record's name); `abs(v1)` for `|v1|`.
        ("gfx1100", "+wavefrontsize32", "v_dot2_f32_f16_e64_dpp v0, v1, v2, v3 dpp8:[7,6,5,4,3,2,1,0]", "004013cce9040e1c01773905"),
        ("gfx1100", "+wavefrontsize32", "v_fma_mix_f32_e64_dpp v0, v1, v2, v3 row_ror:7 row_mask:0xf bank_mask:0x1", "000020ccfa040e04012701f1"),
        ("gfx1100", "+wavefrontsize64", "v_fma_mixlo_f16 v0, abs(v1), -v2, abs(v3) dpp8:[2,2,2,2,4,4,4,4]", "000521cce9040e4401924492"),
        // True16 halves in a VOP3 form without the `op_sel` they stand for.
        ("gfx1100", "+real-true16,+wavefrontsize32", "v_exp_f16_e64_dpp v5.h, v1.h mul:2 row_share:15 row_mask:0x0 bank_mask:0x1", "0548d8d5fa000008015f0101"),
        ("gfx1100", "+real-true16,+wavefrontsize32", "v_ceil_f16_e64_dpp v255.h, -|v255.l| clamp div:2 dpp8:[0,0,0,0,0,0,0,0] fi:0", "ffc1dcd5e9000038ff000000"),
        // `op_sel_hi` at its default written out: all set (VOP3P), all clear (mixed precision).
        ("gfx1100", "", "v_pk_add_i16 v5, 0x3800, m0 op_sel:[0,0] op_sel_hi:[1,1]", "054002ccfffa001800380000"),
        ("gfx1100", "", "v_fma_mix_f32 v255, -|src_scc|, -|vcc_hi|, null op_sel:[0,0,1] op_sel_hi:[0,0,0] clamp", "ffa320ccfdd6f061"),
        // `s_version` as a number and as an expression; a comment after the instruction.
        ("gfx1100", "", "s_version 0x1234", "341280b0"),
        ("gfx1200", "", "s_version UC_VERSION_GFX12 | UC_VERSION_W64_BIT | UC_VERSION_MDP_BIT", "09a080b0"),
        ("gfx1100", "", "v_dual_add_f32 v5, 0xaf123456, v2 :: v_dual_fmaak_f32 v6, v3, v1, 0xaf123456 ;", "ff0402c903030605563412af"),
        // A VOPD K constant written as a float in both halves.
        ("gfx1100", "", "v_dual_fmaak_f32 v122, s74, v161, 2.741 :: v_dual_fmamk_f32 v3, v6, 2.741, v1", "4a4245c80603027a8b6c2f40"),
        // A mnemonic in capitals; `th:TH_ATOMIC_RT` (0) written; a comma before a default
        // `op_sel:[0,0]`.
        ("gfx1200", "+wavefrontsize32", "V_CVT_F32_FP8_e64_dpp v5, v1 quad_perm:[3,1,2,0] row_mask:0x2 bank_mask:0xd", "0500ecd5fa0000000127002d"),
        ("gfx1200", "", "image_atomic_swap v0, v0, s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_1D th:TH_ATOMIC_RT", "008042d00000000000000000"),
        ("gfx1200", "+wavefrontsize32", "v_permlane16_var_b32 v5, v1, v50, op_sel:[0,0]", "05000fd701650200"),
        // GFX1250 (LLVM 22's vectors): a numeric hwreg id the printer names; a 64-bit K
        // constant written as its high half.
        ("gfx1250", "", "s_getreg_b32 s1, hwreg(33)", "21f881b8"),
        ("gfx1250", "", "v_fmamk_f64 v[6:7], v[4:5], 0x405ec000, v[2:3]", "04050c460000000000c05e40"),
        // Float literals and K constants.
        ("gfx1100", "", "v_add_f32 v1, 2.741, v2", "ff0402068b6c2f40"),
        ("gfx1100", "", "v_fmaak_f32 v1, v2, v3, 2.741", "0207025a8b6c2f40"),
    ];
    for (cpu, mattr, text, expected) in cases {
        let parser = Parser::new(Target::from_name(cpu, mattr).unwrap());
        let ours: String = match parser.parse(text) {
            Ok(p) => p.inst.bytes().iter().map(|b| format!("{b:02x}")).collect(),
            Err(e) => panic!("{cpu} {mattr}: `{text}`: {e}"),
        };
        assert_eq!(ours, expected, "{cpu} {mattr}: `{text}`");
    }
}

/// GFX8/GFX9 spellings LLVM's assembler accepts besides the printer's text (src/isa/parse/
/// legacy.rs), one per class, with LLVM 19's bytes (llvm-mc-19 -show-encoding); and tuples
/// LLVM refuses, refused.
#[test]
fn gfx8_gfx9_spellings_give_llvms_bytes() {
    let cases: [(&str, &str, &str); 21] = [
        // MIMG address tuple; the decoder's record names one register.
        ("gfx802", "image_sample v5, v[1:2], s[8:15], s[12:15] dmask:0x1", "000180f001056200"),
        // A MIMG atomic's data with tfe's extra register.
        ("gfx803", "image_atomic_add v[4:6], v10, s[8:15] dmask:0x3 tfe", "000349f00a040200"),
        // Control operands as raw numbers.
        ("gfx802", "s_setreg_b32 0x3141, s1", "413101b9"),
        ("gfx802", "s_set_gpr_idx_on s1, 0x0", "010011bf"),
        ("gfx802", "s_waitcnt 0x3141", "41318cbf"),
        ("gfx802", "ds_swizzle_b32 v5, v1 offset:4", "04007ad801000005"),
        // BITMASK_PERM as LLVM encodes it (0x20 prints as swizzle(BROADCAST,32,1)).
        ("gfx802", "ds_swizzle_b32 v8, v2 offset:swizzle(BITMASK_PERM,\"00001\")", "20007ad802000008"),
        // Packed-math modifiers at their defaults, mixed precision's op_sel_hi default 0.
        ("gfx900", "v_pk_add_i16 v5, v1, v2 op_sel:[0,0]", "054082d301050218"),
        ("gfx900", "v_pk_add_i16 v5, v1, v2 op_sel_hi:[1,1]", "054082d301050218"),
        ("gfx900", "v_mad_mix_f32 v5, v1, v2, v3 op_sel_hi:[0,0,0]", "0500a0d301050e04"),
        // A modifier list shorter than the sources, padded with zeros (src2's op_sel_hi stays 1).
        ("gfx908", "v_dot2_f32_f16 v0, v1, v2, v3 op_sel:[1,0]", "0048a3d301050e1c"),
        ("gfx908", "v_dot2_f32_f16 v0, v1, v2, v3 op_sel_hi:[1,1]", "0000a3d301050e1c"),
        // The MTBUF default format written out.
        ("gfx802", "tbuffer_load_format_xy v[5:6], off, s[8:11], s3 format:[BUF_DATA_FORMAT_8] offset:4095", "ff8f08e800050203"),
        // A float inline constant in a 16-bit integer operand (VOP2, VOPC).
        ("gfx802", "v_add_u16 v5, 0.5, v2", "f0040a4c"),
        ("gfx802", "v_cmp_f_i16 vcc, -4.0, v2", "f704407d"),
        // 1/(2*pi) written as its bits: the inline constant (f32 in VOP2, f64 with modifiers).
        ("gfx802", "v_add_f32 v5, 0x3e22f983, v2", "f8040a02"),
        ("gfx802", "v_add_f64 v[4:5], s[0:1], 0x3fc45f306dc9c882", "040080d200f00100"),
        // A compressed export: the first and third sources are the registers, two lanes each.
        ("gfx900", "exp mrtz v3, v3, off, off compr", "830400c403000000"),
        // Interpolation attribute and slot.
        ("gfx802", "v_interp_p1_f32 v5, v1, attr1.x", "010414d4"),
        ("gfx802", "v_interp_mov_f32_e64 v5, p20, attr0.x", "050072d200020000"),
        // gfx904 has FeatureFmaMixInsts: GFX9_DL's v_fma_mix_f32.
        ("gfx904", "v_fma_mix_f32 v0, v1, v2, v3", "0000a0d301050e04"),
    ];
    for (cpu, text, expected) in cases {
        let parser = Parser::new(Target::from_name(cpu, "").unwrap());
        let ours: String = match parser.parse(text) {
            Ok(p) => p.inst.bytes().iter().map(|b| format!("{b:02x}")).collect(),
            Err(e) => panic!("{cpu}: `{text}`: {e}"),
        };
        assert_eq!(ours, expected, "{cpu}: `{text}`");
    }
    // Not the default: read as written, not as the default.
    let gfx900 = Parser::new(Target::from_name("gfx900", "").unwrap());
    let mix = gfx900.parse("v_mad_mix_f32 v5, v1, v2, v3 op_sel_hi:[1,1,1]").unwrap();
    assert_eq!(mix.inst.bytes(), [0x05, 0x40, 0xa0, 0xd3, 0x01, 0x05, 0x0e, 0x1c]);
    // Widths LLVM refuses (llvm-mc-19: invalid operand for instruction).
    let gfx803 = Parser::new(Target::from_name("gfx803", "").unwrap());
    for text in [
        "image_atomic_add v[4:7], v10, s[8:15] dmask:0x3 tfe",
        "image_sample v5, v[1:9], s[8:15], s[12:15] dmask:0x1",
    ] {
        assert!(gfx803.parse(text).is_err(), "gfx803: `{text}` should be refused");
    }
}
