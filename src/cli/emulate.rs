//! `gfxpatch emulate CO --kernel K --grid X[,Y,Z] --block X[,Y,Z] ARG...`: run one kernel on
//! the CPU ([`crate::emu`]) and show or write its buffers.
//!
//! Each ARG is, in the order of the kernel's arguments:
//! - `TYPE[LEN]`, `TYPE[LEN]=rand`: a buffer of LEN elements, random from `--seed`;
//! - `TYPE[LEN]=0`: a buffer of zeros;
//! - `TYPE[]=@FILE`: a buffer holding FILE's bytes;
//! - `TYPE=VALUE`: a scalar (`u32=64`, `i64=-3`, `f32=0.5`).
//!
//! TYPE is one of u8 i8 u16 i16 u32 i32 u64 i64 f32 f64: it sets the element size and how
//! values print.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;

use crate::emu::{self, Arg, Dispatch, Options};

#[derive(clap::Args)]
pub struct EmulateArgs {
    /// A code object (one ELF; extract bundles first).
    file: PathBuf,
    #[command(flatten)]
    launch: LaunchArgs,
    /// Write each buffer after the run to DIR/argN.bin (N: the argument's position).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print every element of each buffer (default: the first 16).
    #[arg(long)]
    print_all: bool,
    /// Print each instruction the first wave of the first workgroup executes.
    #[arg(long)]
    trace: bool,
}

/// What `emulate` and `check` share: the kernel, the geometry and the arguments.
#[derive(clap::Args, Clone)]
pub struct LaunchArgs {
    /// The kernel's name (as `gfxpatch info` lists it).
    #[arg(long)]
    pub kernel: String,
    /// Work-items in each dimension: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dims)]
    pub grid: [u32; 3],
    /// Workgroup size: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dims)]
    pub block: [u32; 3],
    /// Seed of the random buffers.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Most instructions one wave may execute.
    #[arg(long, default_value_t = 50_000_000)]
    pub max_instructions: u64,
    /// The kernel's arguments, in order (see `gfxpatch emulate --help`).
    #[arg(value_name = "ARG")]
    pub args: Vec<String>,
}

fn parse_dims(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{s}`: expected X[,Y[,Z]]"));
    }
    let mut out = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        out[i] = p.trim().parse().map_err(|_| format!("`{p}` is not a count"))?;
        if out[i] == 0 {
            return Err("sizes must be at least 1".into());
        }
    }
    Ok(out)
}

/// An element type of a buffer or scalar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
}

impl Elem {
    fn parse(s: &str) -> Option<Elem> {
        Some(match s {
            "u8" => Elem::U8,
            "i8" => Elem::I8,
            "u16" => Elem::U16,
            "i16" => Elem::I16,
            "u32" => Elem::U32,
            "i32" => Elem::I32,
            "u64" => Elem::U64,
            "i64" => Elem::I64,
            "f32" => Elem::F32,
            "f64" => Elem::F64,
            _ => return None,
        })
    }

    pub fn size(self) -> usize {
        match self {
            Elem::U8 | Elem::I8 => 1,
            Elem::U16 | Elem::I16 => 2,
            Elem::U32 | Elem::I32 | Elem::F32 => 4,
            Elem::U64 | Elem::I64 | Elem::F64 => 8,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Elem::U8 => "u8",
            Elem::I8 => "i8",
            Elem::U16 => "u16",
            Elem::I16 => "i16",
            Elem::U32 => "u32",
            Elem::I32 => "i32",
            Elem::U64 => "u64",
            Elem::I64 => "i64",
            Elem::F32 => "f32",
            Elem::F64 => "f64",
        }
    }

    /// One element's bytes as text.
    pub fn show(self, b: &[u8]) -> String {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        let u = u64::from_le_bytes(w);
        match self {
            Elem::U8 | Elem::U16 | Elem::U32 | Elem::U64 => u.to_string(),
            Elem::I8 => (u as i8).to_string(),
            Elem::I16 => (u as i16).to_string(),
            Elem::I32 => (u as i32).to_string(),
            Elem::I64 => (u as i64).to_string(),
            Elem::F32 => f32::from_bits(u as u32).to_string(),
            Elem::F64 => f64::from_bits(u).to_string(),
        }
    }

    fn value(self, s: &str) -> Option<Vec<u8>> {
        let n = self.size();
        // An integer must fit the type as signed or unsigned: `u8=300` is refused, not cut.
        let int = |s: &str| -> Option<u64> {
            let v: i128 = match s.strip_prefix("0x") {
                Some(h) => i128::from_str_radix(h, 16).ok()?,
                None => s.parse().ok()?,
            };
            let bits = 8 * n as u32;
            (v >= -(1i128 << (bits - 1)) && v < (1i128 << bits)).then_some(v as u64)
        };
        let bits = match self {
            Elem::F32 => u64::from(s.parse::<f32>().ok()?.to_bits()),
            Elem::F64 => s.parse::<f64>().ok()?.to_bits(),
            _ => int(s)?,
        };
        Some(bits.to_le_bytes()[..n].to_vec())
    }
}

/// One parsed ARG.
#[derive(Clone, Debug)]
pub enum Spec {
    Buffer { elem: Elem, fill: Fill },
    Scalar { bytes: Vec<u8> },
}

#[derive(Clone, Debug)]
pub enum Fill {
    Random(usize),
    Zeros(usize),
    File(PathBuf),
}

pub fn parse_spec(s: &str) -> anyhow::Result<Spec> {
    let bad = || anyhow::anyhow!("argument `{s}`: expected TYPE[LEN], TYPE[LEN]=0, TYPE[LEN]=rand, TYPE[]=@FILE or TYPE=VALUE");
    if let Some((ty, rest)) = s.split_once('[') {
        let elem = Elem::parse(ty).ok_or_else(bad)?;
        let (len, fill) = rest.split_once(']').ok_or_else(bad)?;
        let fill = fill.strip_prefix('=').unwrap_or(fill);
        let count = || len.parse::<usize>().map_err(|_| bad());
        let fill = match fill {
            "" | "rand" => Fill::Random(count()? * elem.size()),
            "0" => Fill::Zeros(count()? * elem.size()),
            f => Fill::File(PathBuf::from(f.strip_prefix('@').ok_or_else(bad)?)),
        };
        return Ok(Spec::Buffer { elem, fill });
    }
    let (ty, value) = s.split_once('=').ok_or_else(bad)?;
    let elem = Elem::parse(ty).ok_or_else(bad)?;
    let bytes = elem.value(value).ok_or_else(|| anyhow::anyhow!("argument `{s}`: `{value}` is not a {}", elem.name()))?;
    Ok(Spec::Scalar { bytes })
}

/// The emulator's arguments for `specs`, random buffers drawn from `seed` (xorshift64*, so a
/// seed gives the same bytes everywhere).
pub fn materialize(specs: &[Spec], seed: u64) -> anyhow::Result<Vec<Arg>> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    specs
        .iter()
        .map(|spec| {
            Ok(match spec {
                Spec::Scalar { bytes, .. } => Arg::Value(bytes.clone()),
                Spec::Buffer { fill: Fill::Zeros(n), .. } => Arg::Buffer(vec![0; *n]),
                Spec::Buffer { fill: Fill::Random(n), .. } => Arg::Buffer((0..*n).map(|_| (next() >> 32) as u8).collect()),
                Spec::Buffer { fill: Fill::File(p), .. } => Arg::Buffer(std::fs::read(p).with_context(|| p.display().to_string())?),
            })
        })
        .collect()
}

impl LaunchArgs {
    pub fn specs(&self) -> anyhow::Result<Vec<Spec>> {
        self.args.iter().map(|a| parse_spec(a)).collect()
    }

    pub fn dispatch(&self) -> Dispatch {
        Dispatch { grid: self.grid, block: self.block }
    }

    pub fn options(&self, trace: bool) -> Options {
        Options { trace, max_instructions: self.max_instructions, ..Options::default() }
    }
}

/// The buffer specs, in the order the emulator returns buffers.
pub fn buffer_specs(specs: &[Spec]) -> Vec<(usize, Elem)> {
    specs
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Spec::Buffer { elem, .. } => Some((i, *elem)),
            Spec::Scalar { .. } => None,
        })
        .collect()
}

pub fn run(args: &EmulateArgs) -> anyhow::Result<()> {
    let path = args.file.display().to_string();
    let elf = std::fs::read(&args.file).with_context(|| path.clone())?;
    let specs = args.launch.specs()?;
    let inputs = materialize(&specs, args.launch.seed)?;
    let outcome = emu::run(&elf, &args.launch.kernel, &args.launch.dispatch(), &inputs, &args.launch.options(args.trace)).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
    for line in &outcome.trace {
        println!("{line}");
    }
    let c = &outcome.counts;
    println!("{path}: kernel {}: {} wave instructions, {} lane instructions, {} s_waitcnt", args.launch.kernel, c.wave_instructions, c.lane_instructions, c.waitcnts);
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
    }
    for ((i, elem), bytes) in buffer_specs(&specs).into_iter().zip(&outcome.buffers) {
        let len = bytes.len() - emu::launch::GUARD;
        let (data, guard) = bytes.split_at(len);
        if guard.iter().any(|&b| b != emu::launch::GUARD_BYTE) {
            println!("arg{i}: the kernel wrote past the end of the buffer (guard bytes changed)");
        }
        if let Some(dir) = &args.out {
            let file = dir.join(format!("arg{i}.bin"));
            std::fs::write(&file, data).with_context(|| file.display().to_string())?;
            continue;
        }
        let n = data.len() / elem.size();
        let shown = if args.print_all { n } else { n.min(16) };
        let mut line = format!("arg{i} ({}[{n}]):", elem.name());
        for k in 0..shown {
            let _ = write!(line, " {}", elem.show(&data[k * elem.size()..(k + 1) * elem.size()]));
        }
        if shown < n {
            line.push_str(" ...");
        }
        println!("{line}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_specs_parse() {
        assert!(matches!(parse_spec("u32[16]").unwrap(), Spec::Buffer { elem: Elem::U32, fill: Fill::Random(64) }));
        assert!(matches!(parse_spec("i16[3]=0").unwrap(), Spec::Buffer { elem: Elem::I16, fill: Fill::Zeros(6) }));
        let Spec::Scalar { bytes, .. } = parse_spec("i32=-2").unwrap() else { panic!() };
        assert_eq!(bytes, [0xfe, 0xff, 0xff, 0xff]);
        assert!(parse_spec("u31[4]").is_err());
        assert!(parse_spec("u8=300").unwrap_err().to_string().contains("`300` is not a u8"));
        let Spec::Scalar { bytes, .. } = parse_spec("u64=0xffffffffffffffff").unwrap() else { panic!() };
        assert_eq!(bytes, [0xff; 8]);
    }
}
