//! `gfxpatch verify FILE...`: re-read every code object and check it is sound (see
//! [`crate::rewrite::verify::structure`]). Several files (a `rewrite --out-dir` directory's
//! outputs) are checked in one run; each is reported on its own lines.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};

use crate::container::bundle::DecompressLimits;
use crate::container::input::{Input, MappedFile};
use crate::isa::Decoders;
use crate::rewrite::verify;

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// Code objects, offload bundles or host libraries.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

pub fn run(args: &VerifyArgs) -> anyhow::Result<()> {
    let mut decoders = Decoders::default();
    if let [file] = args.files.as_slice() {
        return verify_file(file, &mut decoders);
    }
    // Every file is checked and reported, then the run fails if any one did.
    let mut failed = 0;
    for file in &args.files {
        if let Err(e) = verify_file(file, &mut decoders) {
            println!("{e:#}");
            failed += 1;
        }
    }
    if failed > 0 {
        bail!("{failed} of {} files fail verification", args.files.len());
    }
    Ok(())
}

fn verify_file(file: &Path, decoders: &mut Decoders) -> anyhow::Result<()> {
    let path = file.display().to_string();
    let mapped = MappedFile::open(file).with_context(|| path.clone())?;
    let input = Input::parse(mapped.bytes(), &DecompressLimits::default()).with_context(|| path.clone())?;
    let mut failed = 0;
    let (mut functions, mut instructions, mut opaque) = (0, 0, 0);
    for (i, o) in input.objects.iter().enumerate() {
        match verify::structure_with(&o.bytes, decoders) {
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
