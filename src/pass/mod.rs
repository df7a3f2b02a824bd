//! Passes over decoded code. (The pass trait and registry arrive with the rewrite engine.)

pub mod peephole;
