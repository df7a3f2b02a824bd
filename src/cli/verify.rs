//! `gfxpatch verify FILE`: re-read every code object and check it is sound (see
//! [`crate::rewrite::verify::structure`]).

use std::path::PathBuf;

use anyhow::{bail, Context as _};

use crate::container::bundle::DecompressLimits;
use crate::container::input::{Input, MappedFile};
use crate::isa::Decoders;
use crate::rewrite::verify;

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// A code object, an offload bundle or a host library.
    file: PathBuf,
}

pub fn run(args: &VerifyArgs) -> anyhow::Result<()> {
    let path = args.file.display().to_string();
    let mapped = MappedFile::open(&args.file).with_context(|| path.clone())?;
    let input = Input::parse(mapped.bytes(), &DecompressLimits::default()).with_context(|| path.clone())?;
    let mut failed = 0;
    let (mut functions, mut instructions, mut opaque) = (0, 0, 0);
    let mut decoders = Decoders::default();
    for (i, o) in input.objects.iter().enumerate() {
        match verify::structure_with(&o.bytes, &mut decoders) {
            Ok(s) => {
                functions += s.functions;
                instructions += s.instructions;
                opaque += s.opaque.len();
                for d in &s.opaque {
                    println!("{path}: {}: opaque function {d}", o.describe(i));
                }
            }
            Err(problems) => {
                failed += 1;
                for p in problems {
                    println!("{path}: {}: {p}", o.describe(i));
                }
            }
        }
    }
    if failed > 0 {
        bail!("{path}: {failed} of {} code object(s) fail verification", input.objects.len());
    }
    println!("{path}: ok: {} code object(s), {functions} functions, {instructions} instructions, {opaque} opaque", input.objects.len());
    Ok(())
}
