//! The peephole pass: rewrite rules written in assembly, proven against AMD's pseudocode.
//!
//! - [`syntax`]: the rule language (`passes/*.rules`, `passes/*.tests`).
//! - [`eval`]: an interpreter for AMD's pseudocode subset the rules need.

pub mod eval;
pub mod meaning;
pub mod syntax;
