//! Errors of the container layer: small, typed, and each naming where in the input it is.

use thiserror::Error;

/// Everything that can be wrong with an input file. Every variant says where (an offset, a
/// section, a symbol) so that the message alone lets a user find the fault with a hex editor.
#[derive(Debug, Error)]
pub enum ReadError {
    #[error("truncated: {what} needs bytes {start:#x}..{end:#x} but the input ends at {len:#x}")]
    Truncated {
        what: &'static str,
        start: u64,
        end: u64,
        len: u64,
    },

    #[error("not an ELF file or offload bundle (first bytes: {0})")]
    UnknownFormat(String),

    #[error("malformed ELF: {what}: {detail}")]
    Elf { what: &'static str, detail: String },

    #[error(
        "ELF e_machine is {machine} ({name}), not EM_AMDGPU (224), and it has no .hip_fatbin section"
    )]
    NotAmdgpu { machine: u16, name: &'static str },

    #[error("unknown processor: EF_AMDGPU_MACH {mach:#04x} in e_flags {flags:#010x}")]
    UnknownMach { mach: u32, flags: u32 },

    #[error("unsupported: {0}")]
    Unsupported(String),

    #[error("malformed {what} at offset {offset:#x}: {detail}")]
    Malformed {
        what: &'static str,
        offset: u64,
        detail: String,
    },

    #[error("{context}: {source}")]
    Within {
        context: String,
        #[source]
        source: Box<ReadError>,
    },
}

impl ReadError {
    /// Wraps this error with where it happened ("code object 3 (hipv4-…--gfx900) at 0x1000").
    pub fn within(self, context: impl Into<String>) -> ReadError {
        ReadError::Within {
            context: context.into(),
            source: Box::new(self),
        }
    }

    pub(crate) fn malformed(
        what: &'static str,
        offset: u64,
        detail: impl Into<String>,
    ) -> ReadError {
        ReadError::Malformed {
            what,
            offset,
            detail: detail.into(),
        }
    }

    /// The innermost error, past every [`ReadError::Within`] layer.
    pub fn root(&self) -> &ReadError {
        match self {
            ReadError::Within { source, .. } => source.root(),
            other => other,
        }
    }
}

pub type Result<T, E = ReadError> = std::result::Result<T, E>;

/// Bytes `start..start+len` of `data`, or a [`ReadError::Truncated`] naming `what`.
pub(crate) fn slice<'a>(
    data: &'a [u8],
    start: u64,
    len: u64,
    what: &'static str,
) -> Result<&'a [u8]> {
    let end = start.saturating_add(len);
    if end > data.len() as u64 {
        return Err(ReadError::Truncated {
            what,
            start,
            end,
            len: data.len() as u64,
        });
    }
    Ok(&data[start as usize..end as usize])
}

/// Little-endian integer readers with truncation errors.
pub(crate) fn read_u16(data: &[u8], at: u64, what: &'static str) -> Result<u16> {
    Ok(u16::from_le_bytes(
        slice(data, at, 2, what)?.try_into().unwrap(),
    ))
}

pub(crate) fn read_u32(data: &[u8], at: u64, what: &'static str) -> Result<u32> {
    Ok(u32::from_le_bytes(
        slice(data, at, 4, what)?.try_into().unwrap(),
    ))
}

pub(crate) fn read_u64(data: &[u8], at: u64, what: &'static str) -> Result<u64> {
    Ok(u64::from_le_bytes(
        slice(data, at, 8, what)?.try_into().unwrap(),
    ))
}
