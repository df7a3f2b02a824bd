//! 64-bit (and 32-bit compare-and-swap) global atomics in the emulator, against values computed
//! here from the atomics' definitions. The kernel is OpenCL C compiled with clang-19 for each
//! target, so the instructions are the ones LLVM selects (`global_atomic_add_x2` on GFX9,
//! `global_atomic_add_u64` on GFX11, with and without a returned value).
//!
//! Contended atomics (every work-item on one element) are checked where the result does not
//! depend on the order of lanes (add, sub, and, or, xor, min, max); the returning forms each
//! work on their own element, so the returned old value is the element's initial one.

mod common;

use std::path::PathBuf;
use std::process::Command;

use gfxpatch::emu::{self, Arg, Dispatch, Options};

const SOURCE: &str = r#"
#define R __ATOMIC_RELAXED
kernel void atomics64(global ulong *shared, global ulong *mine, global ulong *ret,
                      global const ulong *in, global const ulong *cmp,
                      global uint *mine32, global uint *ret32) {
  uint i = (uint)get_global_id(0);
  ulong x = in[i];
  __atomic_fetch_add(&shared[0], x, R);
  __atomic_fetch_sub(&shared[1], x, R);
  __atomic_fetch_and(&shared[2], x, R);
  __atomic_fetch_or(&shared[3], x, R);
  __atomic_fetch_xor(&shared[4], x, R);
  __scoped_atomic_fetch_min(&shared[5], x, R, __MEMORY_SCOPE_DEVICE);
  __scoped_atomic_fetch_max(&shared[6], x, R, __MEMORY_SCOPE_DEVICE);
  __scoped_atomic_fetch_min((global long *)&shared[7], (long)x, R, __MEMORY_SCOPE_DEVICE);
  __scoped_atomic_fetch_max((global long *)&shared[8], (long)x, R, __MEMORY_SCOPE_DEVICE);
  global ulong *m = mine + 13 * i;
  global ulong *r = ret + 11 * i;
  r[0] = __atomic_fetch_add(&m[0], x, R);
  r[1] = __atomic_fetch_sub(&m[1], x, R);
  r[2] = __atomic_fetch_and(&m[2], x, R);
  r[3] = __atomic_fetch_or(&m[3], x, R);
  r[4] = __atomic_fetch_xor(&m[4], x, R);
  r[5] = __scoped_atomic_fetch_min(&m[5], x, R, __MEMORY_SCOPE_DEVICE);
  r[6] = __scoped_atomic_fetch_max(&m[6], x, R, __MEMORY_SCOPE_DEVICE);
  r[7] = (ulong)__scoped_atomic_fetch_min((global long *)&m[7], (long)x, R, __MEMORY_SCOPE_DEVICE);
  r[8] = (ulong)__scoped_atomic_fetch_max((global long *)&m[8], (long)x, R, __MEMORY_SCOPE_DEVICE);
  r[9] = __atomic_exchange_n(&m[9], x, R);
  ulong c = cmp[i];
  __atomic_compare_exchange_n(&m[10], &c, x, 0, R, R);
  r[10] = c;
  (void)__atomic_exchange_n(&m[11], x, R);
  ulong d = cmp[i];
  (void)__atomic_compare_exchange_n(&m[12], &d, x, 0, R, R);
  uint e = (uint)cmp[i];
  __atomic_compare_exchange_n(&mine32[2 * i], &e, (uint)x, 0, R, R);
  ret32[i] = e;
  uint f = (uint)cmp[i];
  (void)__atomic_compare_exchange_n(&mine32[2 * i + 1], &f, (uint)x, 0, R, R);
}
"#;

const ITEMS: usize = 256;

fn compile(target: &str) -> Vec<u8> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let src = dir.join("emu_atomics.cl");
    std::fs::write(&src, SOURCE).unwrap();
    let out = dir.join(format!("emu_atomics.{target}.co"));
    let status = Command::new("clang-19")
        .args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-nogpulib", "-O2", &format!("-mcpu={target}")])
        // The atomic optimizer would fold a wave's contended atomics into one (a reduction
        // with DPP and `s_ff1`); this test wants one atomic per lane.
        .args(["-mllvm", "-amdgpu-atomic-optimizer-strategy=None", "-include"])
        .arg(common::repo().join("fixtures/src/ocl_builtins.h"))
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()
        .expect("clang-19 is required (scripts/setup.sh installs it)");
    assert!(status.success(), "clang-19 could not build the atomics kernel for {target}");
    std::fs::read(out).unwrap()
}

fn words(bytes: &[u8]) -> Vec<u64> {
    bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()
}

fn bytes(words: &[u64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn random(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = common::Rng::new(seed);
    (0..n).map(|_| rng.next()).collect()
}

#[test]
fn atomics_64_bit_and_cmpswap_match_their_definitions() {
    for target in ["gfx1100", "gfx90a", "gfx942"] {
        let elf = compile(target);
        let shared = random(9, 1);
        let mine = random(13 * ITEMS, 2);
        let input = random(ITEMS, 3);
        // Odd work-items compare against the element's current value (the swap happens), even
        // ones against another value (it does not).
        let cmp: Vec<u64> = (0..ITEMS).map(|i| if i % 2 == 1 { mine[13 * i + 10] } else { !mine[13 * i + 10] }).collect();
        // 32-bit: the compared value is cmp's low half, held by the first element of odd items.
        let other32 = random(ITEMS, 4);
        let mine32: Vec<u32> = (0..2 * ITEMS).map(|k| if k % 2 == 1 { other32[k / 2] as u32 } else if (k / 2) % 2 == 1 { cmp[k / 2] as u32 } else { cmp[k / 2] as u32 ^ 1 }).collect();
        let mine32_bytes: Vec<u8> = mine32.iter().flat_map(|w| w.to_le_bytes()).collect();
        let args = [
            Arg::Buffer(bytes(&shared)),
            Arg::Buffer(bytes(&mine)),
            Arg::Buffer(vec![0; 8 * 11 * ITEMS]),
            Arg::Buffer(bytes(&input)),
            Arg::Buffer(bytes(&cmp)),
            Arg::Buffer(mine32_bytes),
            Arg::Buffer(vec![0; 4 * ITEMS]),
        ];
        let dispatch = Dispatch { grid: [ITEMS as u32, 1, 1], block: [64, 1, 1] };
        let out = emu::run(&elf, "atomics64", &dispatch, &args, &Options::default()).unwrap_or_else(|stop| panic!("{target}: {stop}"));
        let mnemonics: Vec<&str> = out.counts.by_mnemonic.keys().copied().collect();
        for wanted in ["atomic_add_", "atomic_cmpswap_", "atomic_smin_x2|atomic_min_i64", "atomic_umax_x2|atomic_max_u64"] {
            assert!(wanted.split('|').any(|w| mnemonics.iter().any(|m| m.contains(w))), "{target}: no {wanted} among {mnemonics:?}");
        }
        let data = |k: usize| {
            let b = &out.buffers[k];
            b[..b.len() - emu::launch::GUARD].to_vec()
        };

        let got = words(&data(0));
        let sum = input.iter().fold(0u64, |a, &x| a.wrapping_add(x));
        let expected = [
            shared[0].wrapping_add(sum),
            shared[1].wrapping_sub(sum),
            input.iter().fold(shared[2], |a, &x| a & x),
            input.iter().fold(shared[3], |a, &x| a | x),
            input.iter().fold(shared[4], |a, &x| a ^ x),
            input.iter().fold(shared[5], |a, &x| a.min(x)),
            input.iter().fold(shared[6], |a, &x| a.max(x)),
            input.iter().fold(shared[7] as i64, |a, &x| a.min(x as i64)) as u64,
            input.iter().fold(shared[8] as i64, |a, &x| a.max(x as i64)) as u64,
        ];
        assert_eq!(got, expected, "{target}: contended atomics");

        let (got_mine, got_ret) = (words(&data(1)), words(&data(2)));
        let got_mine32: Vec<u32> = data(5).chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        let got_ret32: Vec<u32> = data(6).chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        for i in 0..ITEMS {
            let (x, m) = (input[i], &mine[13 * i..13 * i + 13]);
            let swapped = i % 2 == 1;
            let new = [
                m[0].wrapping_add(x),
                m[1].wrapping_sub(x),
                m[2] & x,
                m[3] | x,
                m[4] ^ x,
                m[5].min(x),
                m[6].max(x),
                (m[7] as i64).min(x as i64) as u64,
                (m[8] as i64).max(x as i64) as u64,
                x,
                if swapped { x } else { m[10] },
                x,
                if m[12] == cmp[i] { x } else { m[12] },
            ];
            assert_eq!(&got_mine[13 * i..13 * i + 13], &new, "{target}: item {i}'s elements");
            assert_eq!(&got_ret[11 * i..11 * i + 11], &m[..11], "{target}: item {i}'s returned old values");
            let m32 = &mine32[2 * i..2 * i + 2];
            let c32 = cmp[i] as u32;
            assert_eq!(swapped, m32[0] == c32);
            let new32 = [if m32[0] == c32 { x as u32 } else { m32[0] }, if m32[1] == c32 { x as u32 } else { m32[1] }];
            assert_eq!(&got_mine32[2 * i..2 * i + 2], &new32, "{target}: item {i}'s 32-bit elements");
            assert_eq!(got_ret32[i], m32[0], "{target}: item {i}'s 32-bit returned old value");
        }
    }
}
