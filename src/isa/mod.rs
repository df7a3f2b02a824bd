//! The instruction set: processors and generations, the generated instruction tables, the
//! decoder and (as they land) the printer, parser and encoder.

pub mod decode;
pub mod encode;
pub mod info;
pub mod inst;
pub mod listing;
pub mod operand;
pub mod parse;
pub mod predicates;
pub mod print;
pub mod processor;
pub mod reg;
pub mod semantics;
pub mod table;
pub mod tablegen;
#[rustfmt::skip]
mod tables;
pub mod target;
pub mod target_id;

pub use decode::{Decoder, Decoders};
pub use inst::Inst;
pub use processor::{Generation, Processor};
pub use target::Target;

/// A small deterministic pseudo-random generator for tests (xorshift64; `seed` must not be
/// 0): fixed seeds make failures reproduce.
#[cfg(test)]
pub(crate) fn xorshift64(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}
