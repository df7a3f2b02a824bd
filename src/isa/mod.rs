//! The instruction set: processors and generations now; tables, decoder, printer, parser and
//! encoder as they land.

pub mod processor;

pub use processor::{Generation, Processor};
