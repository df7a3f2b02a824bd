//! gfxpatch: a binary rewriter for AMD GPU code objects.
//!
//! Data flows `container -> isa::decode -> ir -> passes -> layout -> isa::encode -> container`;
//! the modules are named for those stages.

pub mod cli;
pub mod container;
pub mod emu;
pub mod ir;
pub mod isa;
pub mod layout;
pub mod llvm;
pub mod pass;
pub mod rewrite;
