//! The container layer: reading (and, later, writing) AMDGPU code objects and what holds them.
//!
//! `input` classifies a file and finds its code objects (bare ELF, offload bundle, host library);
//! `elf` reads one code object; `descriptor` and `metadata` type the kernel descriptors and the
//! msgpack metadata note; `graphics`, `pal` and `mesa` find the shaders of graphics (PAL and
//! Mesa3D) code objects and the registers that configure them; `bundle` reads clang offload
//! bundles, compressed or not.

pub mod amdgpu;
pub mod bundle;
pub mod descriptor;
pub mod elf;
pub mod error;
pub mod fatbin;
pub mod graphics;
pub mod input;
pub mod mesa;
pub mod metadata;
pub mod pal;
pub mod target_id;
pub mod write;

pub use elf::CodeObject;
pub use error::{ReadError, Result};
pub use input::{Input, InputKind};
