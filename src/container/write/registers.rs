//! Register counts after a rewrite: the descriptor's granulated counts and the metadata note's
//! `.vgpr_count`/`.sgpr_count`/`.agpr_count`, raised together, never lowered.

use super::elf::Placement;
use super::{KernelRegisters, WriteError};
use crate::container::elf::CodeObject;

pub(super) fn apply(
    _object: &CodeObject,
    registers: &[KernelRegisters],
    _placement: &[Placement],
    _out: &mut [u8],
    _notes: &mut Vec<String>,
) -> Result<(), WriteError> {
    if let Some(first) = registers.first() {
        return Err(WriteError::Registers { kernel: first.kernel.clone(), detail: "not implemented yet".into() });
    }
    Ok(())
}
