//! gfxpatch: a binary rewriter for AMD GPU code objects.
//!
//! It reads AMDGPU HSA code objects, clang offload bundles and host libraries that embed them;
//! decodes each kernel's instructions for its exact target (GFX8 to GFX12, CDNA1 to CDNA5);
//! runs passes over the decoded program; lays the code out again, re-encodes what changed and
//! writes the ELF back. LLVM 19 is the oracle for every decode and encode. What cannot be
//! decoded, proven or placed is refused with a reason, and the original bytes are kept; a
//! rewrite that changes nothing gives the input back byte for byte.
//!
//! Data flows through the modules in this order:
//!
//! | stage | module | what it does |
//! |---|---|---|
//! | read | [`container`] | ELF code objects, target ids, kernel descriptors, metadata, bundles, host libraries |
//! | decode | [`isa`] | processors, instruction tables, decoder, printer, parser, encoder (a leaf: it imports nothing above it) |
//! | program | [`ir`] | functions, blocks, control flow, liveness, PC-relative chains, the edit API |
//! | edit | [`pass`] | the [`pass::Pass`] trait and the built-in passes (peephole rules, nops) |
//! | place | [`layout`] | new addresses, branch offsets, long branches, the address map |
//! | write | [`container::write`] | the ELF (and bundle, host library) with everything moved |
//! | drive | [`rewrite`] | one code object end to end, verified before it is written |
//!
//! [`llvm`] is the in-process LLVM bridge (the oracle in tests and benchmarks); [`cli`] is the
//! `gfxpatch` command.
//!
//! # Example
//!
//! Rewrite a gfx900 code object with the peephole rules, check what they did, and write the
//! result (a temporary file and a rename, so a reader never sees half an output):
//!
//! ```
//! use gfxpatch::pass;
//! use gfxpatch::rewrite::{self, Options};
//!
//! let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/co/gfx900/peephole_cases.asm.co");
//! let input = std::fs::read(fixture)?;
//!
//! let peephole = pass::find("peephole").expect("a built-in pass");
//! let options = Options { passes: vec![peephole], print_after: None, strip_debug_on_failure: false };
//! let outcome = rewrite::rewrite_object(&input, &options)?;
//!
//! // Nothing refused; 21 rewrites, each verified against the input before the bytes came back.
//! assert_eq!(outcome.refused, None);
//! assert_eq!(outcome.stats[0].applied, 21);
//! assert!(outcome.instructions_after < outcome.instructions_before);
//! let output = outcome.bytes.expect("the rules changed the code");
//!
//! // The output stands on its own: every branch lands on an instruction, descriptors agree.
//! let summary = rewrite::verify::structure(&output).map_err(|problems| anyhow::anyhow!("{problems:?}"))?;
//! assert_eq!(summary.instructions, outcome.instructions_after);
//!
//! let path = std::env::temp_dir().join(format!("peephole_cases.{}.co", std::process::id()));
//! let temporary = path.with_extension("co.tmp");
//! std::fs::write(&temporary, &output)?;
//! std::fs::rename(&temporary, &path)?;
//! # Ok::<(), anyhow::Error>(())
//! ```
//!
//! The identity is exact: with no passes, [`rewrite::Outcome::bytes`] is `None` (nothing to
//! write), and the `gfxpatch rewrite` command copies the input.

pub mod cli;
pub mod container;
pub mod emu;
pub mod ir;
pub mod isa;
pub mod layout;
pub mod llvm;
pub mod pass;
pub mod retarget;
pub mod rewrite;
