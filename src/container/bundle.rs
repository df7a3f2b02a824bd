//! Clang offload bundles: the containers in which HIP and OpenMP ship one device code object
//! per target, either as a file of their own (`.hipfb`, `.co`) or concatenated in a host
//! library's `.hip_fatbin` section.
//!
//! Layouts, as written and read by LLVM (`clang/lib/Driver/OffloadBundler.cpp`,
//! `clang/include/clang/Driver/OffloadBundler.h`, `llvm/lib/Object/OffloadBundle.cpp`); every
//! integer is little-endian.
//!
//! Plain bundle:
//! ```text
//! 0    "__CLANG_OFFLOAD_BUNDLE__"                         24 bytes
//! 24   number of entries                                  u64
//! 32   per entry: offset u64 (from the bundle start), size u64, id length u64, id bytes
//! ...  entry data at those offsets, zero-padded to the bundler's `-bundle-align`
//!      (1 by default; the HIP driver passes 4096)
//! ```
//! Compressed bundle (its payload decompresses to a plain bundle):
//! ```text
//! 0    "CCOB"                                             4 bytes
//! 4    version u16 (1, 2 or 3)
//! 6    method u16: llvm::compression::Format, 0 = zlib, 1 = zstd
//! v1:  8 uncompressed size u32, 12 hash u64, 20 payload (its end is where the stream ends)
//! v2:  8 total size u32, 12 uncompressed size u32, 16 hash u64, 24 payload
//! v3:  8 total size u64, 16 uncompressed size u64, 24 hash u64, 32 payload
//! ```
//! The total size counts the header too. The hash is the low 64 bits of the MD5 of the
//! uncompressed bundle; LLVM only prints it in verbose mode, and we do not check it on read.
//!
//! Reading is zero-copy for plain bundles: entries borrow the input, and enumerating a section
//! touches only the bundle headers and the zero padding between bundles.

use std::borrow::Cow;
use std::io::Write as _;

use super::amdgpu::{COMPRESSED_BUNDLE_MAGIC, OFFLOAD_BUNDLE_MAGIC};
use super::error::{ReadError, Result, read_u16, read_u32, read_u64, slice};

/// Bounds on what a compressed bundle may make us allocate and decode.
///
/// A `CCOB` header declares its uncompressed size, so both bounds are checked against that
/// declaration before any output buffer exists, and the decoder is then held to the declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecompressLimits {
    /// Largest uncompressed size accepted. The default, 4 GiB, admits every bundle that a
    /// version 1 or 2 header can describe (their size fields are 32-bit) while keeping a
    /// hostile version 3 header from asking for more memory than a workstation has.
    pub max_output: u64,
    /// Largest accepted ratio of uncompressed to compressed bytes. The default, 1000, is the
    /// ceiling of deflate itself (about 1032:1), so no honest zlib bundle exceeds it; code
    /// objects compress 3-20x with zstd, which leaves wide headroom, while a few kilobytes
    /// of zstd can no longer claim gigabytes. Raise it for a bundle of mostly zero data.
    pub max_ratio: u64,
}

impl Default for DecompressLimits {
    fn default() -> Self {
        DecompressLimits {
            max_output: 4 << 30,
            max_ratio: 1000,
        }
    }
}

/// The codec of a compressed bundle, numbered as LLVM's `llvm::compression::Format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompressionMethod {
    Zlib,
    Zstd,
}

impl CompressionMethod {
    /// The value of the header's method field (`static_cast<uint16_t>(Format)`).
    pub fn raw(self) -> u16 {
        match self {
            CompressionMethod::Zlib => 0,
            CompressionMethod::Zstd => 1,
        }
    }

    fn from_raw(raw: u16) -> Option<CompressionMethod> {
        match raw {
            0 => Some(CompressionMethod::Zlib),
            1 => Some(CompressionMethod::Zstd),
            _ => None,
        }
    }

    /// `zlib` or `zstd`, for messages.
    pub fn name(self) -> &'static str {
        match self {
            CompressionMethod::Zlib => "zlib",
            CompressionMethod::Zstd => "zstd",
        }
    }
}

/// How a bundle is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BundleFormat {
    /// `__CLANG_OFFLOAD_BUNDLE__`: entries borrow the input.
    Plain,
    /// `CCOB`: entries own their bytes, decompressed.
    Compressed {
        version: u16,
        method: CompressionMethod,
    },
}

/// One target's payload in a bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BundleEntry<'data> {
    /// The bundle entry id, `<kind>-<triple>[-<target id>]`; see [`parse_bundle_id`].
    pub id: Cow<'data, str>,
    /// Offset of the data from the start of the (for `CCOB`: decompressed) bundle.
    pub offset: u64,
    pub size: u64,
    /// Borrowed from the input for a plain bundle, owned for a compressed one.
    pub bytes: Cow<'data, [u8]>,
}

impl BundleEntry<'_> {
    /// The id split into kind, triple and target id.
    pub fn bundle_id(&self) -> BundleId<'_> {
        parse_bundle_id(&self.id)
    }

    /// True for an AMDGPU device entry (triple `amdgcn-…`); the host entry and other targets
    /// (`spirv64-amd-amdhsa`, `nvptx64-…`) are not.
    pub fn is_amdgcn(&self) -> bool {
        self.bundle_id().arch() == "amdgcn"
    }

    /// The same entry, owning its id and bytes.
    pub fn into_owned(self) -> BundleEntry<'static> {
        BundleEntry {
            id: Cow::Owned(self.id.into_owned()),
            offset: self.offset,
            size: self.size,
            bytes: Cow::Owned(self.bytes.into_owned()),
        }
    }
}

/// One bundle, and where it sits in the data it was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bundle<'data> {
    pub format: BundleFormat,
    /// Offset of the bundle's magic in the containing data (plus `base_offset` for
    /// [`parse_bundles`]).
    pub offset: u64,
    /// Bytes the bundle occupies in the containing data: for a plain bundle its header and the
    /// furthest entry end, for `CCOB` its total size (v1: header plus the compressed stream).
    pub len: u64,
    /// Entries in header order.
    pub entries: Vec<BundleEntry<'data>>,
}

impl<'data> Bundle<'data> {
    /// The AMDGPU device entries that carry a code object (size above zero).
    pub fn code_objects(&self) -> impl Iterator<Item = &BundleEntry<'data>> {
        self.entries.iter().filter(|e| e.size > 0 && e.is_amdgcn())
    }
}

/// Length of a plain bundle's fixed header: magic and entry count.
const PLAIN_HEADER_LEN: u64 = 32;
/// Length of an entry header without its id: offset, size, id length.
const ENTRY_HEADER_LEN: u64 = 24;
/// Alignment of entry data in bundles written by the HIP driver (`-bundle-align=4096`).
pub const HIP_BUNDLE_ALIGN: u64 = 4096;

/// Reads the bundle at the start of `data`, plain or compressed. The bundle may be followed by
/// anything; [`Bundle::len`] says how many bytes it used, and error offsets count from
/// `data[0]`.
pub fn parse_bundle<'data>(data: &'data [u8], limits: &DecompressLimits) -> Result<Bundle<'data>> {
    parse_span(Span { data, origin: 0 }, limits)
}

/// Reads every bundle of a `.hip_fatbin` section: bundles one after another, each followed by
/// zero padding up to the next (the linker aligns each object's section to 4096, and clang
/// ends each fat binary with one NUL). The next bundle is wherever the zeros stop, so no
/// alignment is assumed; a byte that is neither padding nor a bundle magic is an error.
/// Offsets, in results and errors, are `base_offset` plus the position in `data`.
pub fn parse_bundles<'data>(
    data: &'data [u8],
    base_offset: u64,
    limits: &DecompressLimits,
) -> Result<Vec<Bundle<'data>>> {
    let mut bundles = Vec::new();
    let mut pos = 0usize;
    loop {
        pos = skip_zeros(data, pos);
        let Some(rest) = data.get(pos..).filter(|rest| !rest.is_empty()) else {
            return Ok(bundles);
        };
        let span = Span {
            data: rest,
            origin: base_offset.saturating_add(pos as u64),
        };
        if !starts_with_magic(rest) {
            return Err(span.malformed(
                "offload bundle sequence",
                0,
                format!(
                    "bytes {} are neither zero padding nor the magic of an offload bundle (after {} bundles)",
                    show_bytes(rest, 8),
                    bundles.len()
                ),
            ));
        }
        let bundle = parse_span(span, limits).map_err(|e| {
            e.within(format!(
                "offload bundle {} at {:#x}",
                bundles.len(),
                span.origin
            ))
        })?;
        // `len` is at least a header long and never past the data, so this always advances.
        pos = pos
            .saturating_add(usize::try_from(bundle.len).unwrap_or(usize::MAX))
            .min(data.len());
        bundles.push(bundle);
    }
}

/// Position of the first non-zero byte at or after `pos`, or `data.len()`.
fn skip_zeros(data: &[u8], pos: usize) -> usize {
    let rest = data.get(pos..).unwrap_or_default();
    rest.iter()
        .position(|&b| b != 0)
        .map_or(data.len(), |k| pos + k)
}

fn starts_with_magic(data: &[u8]) -> bool {
    data.starts_with(OFFLOAD_BUNDLE_MAGIC) || data.starts_with(COMPRESSED_BUNDLE_MAGIC)
}

/// Up to `max` bytes in hex, for error messages.
fn show_bytes(data: &[u8], max: usize) -> String {
    let shown: Vec<String> = data.iter().take(max).map(|b| format!("{b:02x}")).collect();
    shown.join(" ")
}

/// A bundle's bytes (from its magic to the end of the available data) and the offset of its
/// first byte in the caller's terms, so that every error names an offset the user can find.
#[derive(Clone, Copy)]
struct Span<'d> {
    data: &'d [u8],
    origin: u64,
}

impl<'d> Span<'d> {
    fn len(self) -> u64 {
        self.data.len() as u64
    }

    /// `pos` in the caller's terms.
    fn abs(self, pos: u64) -> u64 {
        self.origin.saturating_add(pos)
    }

    fn malformed(self, what: &'static str, pos: u64, detail: impl Into<String>) -> ReadError {
        ReadError::malformed(what, self.abs(pos), detail)
    }

    /// Moves a truncation error from the error helpers (relative to `data`) to the caller's terms.
    fn rebase(self, err: ReadError) -> ReadError {
        match err {
            ReadError::Truncated {
                what,
                start,
                end,
                len,
            } => ReadError::Truncated {
                what,
                start: self.abs(start),
                end: self.abs(end),
                len: self.abs(len),
            },
            other => other,
        }
    }

    fn bytes(self, pos: u64, len: u64, what: &'static str) -> Result<&'d [u8]> {
        slice(self.data, pos, len, what).map_err(|e| self.rebase(e))
    }

    fn u16(self, pos: u64, what: &'static str) -> Result<u16> {
        read_u16(self.data, pos, what).map_err(|e| self.rebase(e))
    }

    fn u32(self, pos: u64, what: &'static str) -> Result<u32> {
        read_u32(self.data, pos, what).map_err(|e| self.rebase(e))
    }

    fn u64(self, pos: u64, what: &'static str) -> Result<u64> {
        read_u64(self.data, pos, what).map_err(|e| self.rebase(e))
    }
}

fn parse_span<'d>(span: Span<'d>, limits: &DecompressLimits) -> Result<Bundle<'d>> {
    if span.data.starts_with(OFFLOAD_BUNDLE_MAGIC) {
        let plain = parse_plain(span)?;
        return Ok(Bundle {
            format: BundleFormat::Plain,
            offset: span.origin,
            len: plain.len,
            entries: plain.entries,
        });
    }
    if span.data.starts_with(COMPRESSED_BUNDLE_MAGIC) {
        return parse_compressed(span, limits);
    }
    Err(span.malformed(
        "offload bundle",
        0,
        format!(
            "starts with {} instead of the magic __CLANG_OFFLOAD_BUNDLE__ or CCOB",
            show_bytes(span.data, 24)
        ),
    ))
}

// ------------------------------------------------------------------------------------------
// Plain bundles

/// A parsed plain bundle: its extent and its entries, borrowing the span.
struct PlainBundle<'d> {
    len: u64,
    entries: Vec<BundleEntry<'d>>,
}

/// An entry's header, before its data is checked.
struct EntryHeader<'d> {
    index: u64,
    /// Position of the entry header in the span.
    at: u64,
    offset: u64,
    size: u64,
    id: &'d str,
}

fn parse_plain(span: Span<'_>) -> Result<PlainBundle<'_>> {
    let count = span.u64(24, "offload bundle entry count")?;
    let (headers, header_end) = read_entry_headers(span, count)?;
    let mut end = header_end;
    let mut entries = Vec::with_capacity(headers.len());
    for header in headers {
        let bytes = entry_data(span, &header, header_end)?;
        // `entry_data` checked that this neither overflows nor passes the span.
        end = end.max(header.offset + header.size);
        entries.push(BundleEntry {
            id: Cow::Borrowed(header.id),
            offset: header.offset,
            size: header.size,
            bytes: aligned_for_elf(bytes),
        });
    }
    Ok(PlainBundle { len: end, entries })
}

/// Entry data as the ELF reader can take it: borrowed where it is 8-byte aligned (the HIP
/// driver's `-bundle-align=4096`), else copied. clang-offload-bundler's default alignment is 1,
/// so a bundle made by hand can put a code object at any offset, and the ELF reader reads its
/// headers in place, which needs their natural alignment.
fn aligned_for_elf(bytes: &[u8]) -> Cow<'_, [u8]> {
    if bytes.as_ptr().align_offset(8) == 0 {
        Cow::Borrowed(bytes)
    } else {
        // The global allocator gives a buffer this size at least 8-byte alignment.
        Cow::Owned(bytes.to_vec())
    }
}

/// Reads `count` entry headers; returns them and the end of the header table.
fn read_entry_headers(span: Span<'_>, count: u64) -> Result<(Vec<EntryHeader<'_>>, u64)> {
    // Each entry header takes at least 24 bytes, so a count the data cannot hold is rejected
    // before it can size an allocation.
    let room = span.len().saturating_sub(PLAIN_HEADER_LEN) / ENTRY_HEADER_LEN;
    if count > room {
        return Err(span.malformed(
            "offload bundle header",
            24,
            format!(
                "declares {count} entries, but the {:#x} bytes after the header hold at most {room} entry headers",
                span.len().saturating_sub(PLAIN_HEADER_LEN)
            ),
        ));
    }
    let mut headers = Vec::with_capacity(usize::try_from(count.min(1024)).unwrap_or(1024));
    let mut pos = PLAIN_HEADER_LEN;
    for index in 0..count {
        let header = read_entry_header(span, index, pos)
            .map_err(|e| e.within(format!("offload bundle entry {index} of {count}")))?;
        // The id was read, so this end lies inside the span and cannot overflow.
        pos = pos + ENTRY_HEADER_LEN + header.id.len() as u64;
        headers.push(header);
    }
    Ok((headers, pos))
}

fn read_entry_header(span: Span<'_>, index: u64, at: u64) -> Result<EntryHeader<'_>> {
    let offset = span.u64(at, "offload bundle entry offset")?;
    let size = span.u64(at + 8, "offload bundle entry size")?;
    let id_len = span.u64(at + 16, "offload bundle entry id length")?;
    let id_bytes = span.bytes(at + ENTRY_HEADER_LEN, id_len, "offload bundle entry id")?;
    let id = std::str::from_utf8(id_bytes).map_err(|e| {
        span.malformed(
            "offload bundle entry id",
            at + ENTRY_HEADER_LEN,
            format!(
                "entry {index}: the id is not UTF-8 ({e}): {}",
                show_bytes(id_bytes, 64)
            ),
        )
    })?;
    if id.is_empty() {
        return Err(span.malformed(
            "offload bundle entry id",
            at + 16,
            format!("entry {index}: the id is empty"),
        ));
    }
    Ok(EntryHeader {
        index,
        at,
        offset,
        size,
        id,
    })
}

/// The data of one entry, after checking that it lies inside the span and after the header
/// table (clang never places data over the header; an entry that does is corrupt).
fn entry_data<'d>(span: Span<'d>, header: &EntryHeader<'_>, header_end: u64) -> Result<&'d [u8]> {
    let EntryHeader {
        index,
        at,
        offset,
        size,
        id,
    } = *header;
    let Some(end) = offset.checked_add(size) else {
        return Err(span.malformed(
            "offload bundle entry",
            at,
            format!("entry {index} ({id}): offset {offset:#x} + size {size:#x} overflows"),
        ));
    };
    if end > span.len() {
        return Err(span.malformed(
            "offload bundle entry",
            at,
            format!(
                "entry {index} ({id}): its data {:#x}..{:#x} points past the end of the data ({:#x} > {:#x})",
                span.abs(offset),
                span.abs(end),
                span.abs(end),
                span.abs(span.len())
            ),
        ));
    }
    if size > 0 && offset < header_end {
        return Err(span.malformed(
            "offload bundle entry",
            at,
            format!(
                "entry {index} ({id}): its data at {:#x} overlaps the bundle header, which ends at {:#x}",
                span.abs(offset),
                span.abs(header_end)
            ),
        ));
    }
    span.bytes(offset, size, "offload bundle entry data")
}

// ------------------------------------------------------------------------------------------
// Compressed bundles

/// A `CCOB` header, normalized over its versions.
struct CompressedHeader {
    version: u16,
    method: CompressionMethod,
    /// Bytes before the payload.
    header_len: u64,
    /// Whole bundle, header included; `None` for version 1.
    total_size: Option<u64>,
    uncompressed_size: u64,
    /// Position of the uncompressed size field, for error messages.
    uncompressed_size_at: u64,
}

fn parse_compressed_header(span: Span<'_>) -> Result<CompressedHeader> {
    let version = span.u16(4, "compressed offload bundle version")?;
    let raw_method = span.u16(6, "compressed offload bundle method")?;
    let method = CompressionMethod::from_raw(raw_method).ok_or_else(|| {
        span.malformed(
            "compressed offload bundle",
            6,
            format!("unknown compression method {raw_method} (LLVM knows 0 = zlib, 1 = zstd)"),
        )
    })?;
    let what = "compressed offload bundle header";
    let (header_len, total_size, uncompressed_size, uncompressed_size_at) = match version {
        1 => (20, None, u64::from(span.u32(8, what)?), 8),
        2 => (
            24,
            Some(u64::from(span.u32(8, what)?)),
            u64::from(span.u32(12, what)?),
            12,
        ),
        3 => (32, Some(span.u64(8, what)?), span.u64(16, what)?, 16),
        _ => {
            return Err(span.malformed(
                "compressed offload bundle",
                4,
                format!("unsupported version {version} (LLVM writes 1, 2 and 3)"),
            ));
        }
    };
    // The hash is not checked, but a header without it is truncated.
    span.u64(header_len - 8, "compressed offload bundle hash")?;
    Ok(CompressedHeader {
        version,
        method,
        header_len,
        total_size,
        uncompressed_size,
        uncompressed_size_at,
    })
}

fn parse_compressed<'d>(span: Span<'d>, limits: &DecompressLimits) -> Result<Bundle<'d>> {
    let header = parse_compressed_header(span)?;
    let payload = compressed_payload(span, &header)?;
    let declared = check_declared_size(span, &header, payload.len() as u64, limits)?;
    let exact = header.total_size.is_some();
    let (decompressed, consumed) = decompress(header.method, payload, declared, exact)
        .map_err(|e| decode_error(span, &header, payload.len(), e))?;
    let len = header
        .total_size
        .unwrap_or(header.header_len + consumed as u64);
    let inner = Span {
        data: &decompressed,
        origin: 0,
    };
    if !decompressed.starts_with(OFFLOAD_BUNDLE_MAGIC) {
        return Err(span.malformed(
            "compressed offload bundle",
            header.header_len,
            format!(
                "decompresses to {} bytes starting {} rather than a plain offload bundle",
                decompressed.len(),
                show_bytes(&decompressed, 24)
            ),
        ));
    }
    let plain = parse_plain(inner).map_err(|e| {
        e.within(format!(
            "the decompressed contents of the compressed offload bundle at {:#x}",
            span.origin
        ))
    })?;
    Ok(Bundle {
        format: BundleFormat::Compressed {
            version: header.version,
            method: header.method,
        },
        offset: span.origin,
        len,
        entries: plain
            .entries
            .into_iter()
            .map(BundleEntry::into_owned)
            .collect(),
    })
}

/// The compressed stream: up to the total size for versions 2 and 3; for version 1, which
/// records no size, the rest of the data (the decoder then says where the stream ended).
fn compressed_payload<'d>(span: Span<'d>, header: &CompressedHeader) -> Result<&'d [u8]> {
    let Some(total) = header.total_size else {
        return span.bytes(
            header.header_len,
            span.len().saturating_sub(header.header_len),
            "compressed offload bundle",
        );
    };
    if total < header.header_len {
        return Err(span.malformed(
            "compressed offload bundle",
            8,
            format!(
                "total size {total:#x} is smaller than its own {}-byte header",
                header.header_len
            ),
        ));
    }
    if total > span.len() {
        return Err(ReadError::Truncated {
            what: "compressed offload bundle (total size from its header)",
            start: span.origin,
            end: span.abs(total),
            len: span.abs(span.len()),
        });
    }
    span.bytes(
        header.header_len,
        total - header.header_len,
        "compressed offload bundle payload",
    )
}

/// Refuses a declared uncompressed size over the limits, before anything is allocated.
fn check_declared_size(
    span: Span<'_>,
    header: &CompressedHeader,
    compressed_len: u64,
    limits: &DecompressLimits,
) -> Result<usize> {
    let declared = header.uncompressed_size;
    let at = header.uncompressed_size_at;
    if declared > limits.max_output {
        return Err(span.malformed(
            "compressed offload bundle",
            at,
            format!(
                "declares an uncompressed size of {declared:#x} bytes, \
                 over the limit of {:#x} (DecompressLimits::max_output)",
                limits.max_output
            ),
        ));
    }
    if declared > limits.max_ratio.saturating_mul(compressed_len) {
        return Err(span.malformed(
            "compressed offload bundle",
            at,
            format!(
                "declares {declared:#x} uncompressed bytes from {compressed_len:#x} compressed bytes, \
                 over the ratio limit of {}:1 (DecompressLimits::max_ratio)",
                limits.max_ratio
            ),
        ));
    }
    usize::try_from(declared).map_err(|_| {
        span.malformed(
            "compressed offload bundle",
            at,
            format!(
                "declares {declared:#x} uncompressed bytes, more than this machine can address"
            ),
        )
    })
}

/// Why a compressed stream was refused; turned into a [`ReadError`] by [`decode_error`].
#[derive(Debug)]
enum DecodeError {
    /// The codec rejected the stream.
    Codec(String),
    /// The stream produces more than the declared size.
    Overrun,
    /// The stream ended after this many bytes of output, short of the declared size.
    Short(usize),
    /// The input ended inside the stream, after this many bytes of output.
    Truncated(usize),
    /// The decoder accepted no input and produced no output at this payload position.
    Stuck(usize),
    /// Bytes follow the stream's end inside the declared total size, from this payload position.
    Trailing(usize),
}

fn decode_error(
    span: Span<'_>,
    header: &CompressedHeader,
    payload_len: usize,
    err: DecodeError,
) -> ReadError {
    let method = header.method.name();
    let declared = header.uncompressed_size;
    let payload_at = header.header_len;
    let (pos, detail) = match err {
        DecodeError::Codec(msg) => (payload_at, format!("the {method} stream is corrupt: {msg}")),
        DecodeError::Overrun => (
            header.uncompressed_size_at,
            format!(
                "sizes lie: the {method} stream produces more than the {declared:#x} bytes the header declares"
            ),
        ),
        DecodeError::Short(produced) => (
            header.uncompressed_size_at,
            format!(
                "sizes lie: the {method} stream ends after {produced:#x} bytes but the header declares {declared:#x}"
            ),
        ),
        DecodeError::Truncated(produced) => (
            payload_at,
            format!(
                "the {method} stream is cut off: its {payload_len:#x} bytes end mid-stream \
                 after {produced:#x} of {declared:#x} output bytes"
            ),
        ),
        DecodeError::Stuck(at) => (
            payload_at + at as u64,
            format!("the {method} decoder makes no progress at this byte"),
        ),
        DecodeError::Trailing(at) => (
            payload_at + at as u64,
            format!(
                "{:#x} bytes follow the end of the {method} stream inside the total size the header declares",
                payload_len.saturating_sub(at)
            ),
        ),
    };
    span.malformed("compressed offload bundle", pos, detail)
}

/// Decompresses `payload`, which must produce exactly `declared` bytes. With `exact`, the
/// stream must also fill the payload; otherwise (version 1) it may be followed by anything.
/// Returns the output and the payload bytes the stream used.
fn decompress(
    method: CompressionMethod,
    payload: &[u8],
    declared: usize,
    exact: bool,
) -> Result<(Vec<u8>, usize), DecodeError> {
    let (output, consumed) = match method {
        CompressionMethod::Zlib => inflate(payload, declared)?,
        CompressionMethod::Zstd => unzstd(payload, declared)?,
    };
    if exact && consumed < payload.len() {
        return Err(DecodeError::Trailing(consumed));
    }
    Ok((output, consumed))
}

/// Size of each step's output window.
const DECODE_CHUNK: usize = 256 << 10;
/// Most output memory reserved before the stream has proved it holds that much.
const INITIAL_OUTPUT_CAP: usize = 16 << 20;

/// Decoder output, held to the declared size: each step may write at most one byte past it,
/// which is enough to prove that the header lies.
struct Output {
    buf: Vec<u8>,
    declared: usize,
}

impl Output {
    fn new(declared: usize) -> Output {
        Output {
            buf: Vec::with_capacity(declared.min(INITIAL_OUTPUT_CAP)),
            declared,
        }
    }

    /// How many bytes the next step may write.
    fn window(&self) -> usize {
        self.declared
            .saturating_sub(self.buf.len())
            .saturating_add(1)
            .min(DECODE_CHUNK)
    }

    fn push(&mut self, bytes: &[u8]) -> Result<(), DecodeError> {
        if bytes.len() > self.declared - self.buf.len() {
            return Err(DecodeError::Overrun);
        }
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    fn is_full(&self) -> bool {
        self.buf.len() == self.declared
    }

    fn finish(self) -> Result<Vec<u8>, DecodeError> {
        if !self.is_full() {
            return Err(DecodeError::Short(self.buf.len()));
        }
        Ok(self.buf)
    }
}

/// One zlib stream (LLVM's `zlib::compress` is zlib's `compress2`, header and Adler-32 included).
fn inflate(payload: &[u8], declared: usize) -> Result<(Vec<u8>, usize), DecodeError> {
    use flate2::{Decompress, FlushDecompress, Status};
    let mut inflater = Decompress::new(true);
    let mut output = Output::new(declared);
    let mut window = vec![0u8; output.window()];
    let mut consumed = 0usize;
    loop {
        let room = output.window();
        let (in_before, out_before) = (inflater.total_in(), inflater.total_out());
        let status = inflater
            .decompress(
                &payload[consumed..],
                &mut window[..room],
                FlushDecompress::None,
            )
            .map_err(|e| DecodeError::Codec(e.to_string()))?;
        // Both deltas are bounded by the slices just passed in.
        let read = (inflater.total_in() - in_before) as usize;
        let written = (inflater.total_out() - out_before) as usize;
        consumed += read;
        output.push(&window[..written])?;
        match status {
            Status::StreamEnd => return Ok((output.finish()?, consumed)),
            Status::Ok | Status::BufError if read == 0 && written == 0 => {
                return Err(stalled(consumed, payload.len(), output.buf.len()));
            }
            Status::Ok | Status::BufError => {}
        }
    }
}

/// Zstandard frames (LLVM writes one; like `ZSTD_decompress`, we read on into further frames
/// while output is still owed and the next bytes are a frame).
fn unzstd(payload: &[u8], declared: usize) -> Result<(Vec<u8>, usize), DecodeError> {
    use zstd::stream::raw::{Decoder, InBuffer, Operation, OutBuffer};
    let codec = |e: std::io::Error| DecodeError::Codec(e.to_string());
    let mut decoder = Decoder::new().map_err(codec)?;
    let mut output = Output::new(declared);
    let mut window = vec![0u8; output.window()];
    let mut consumed = 0usize;
    loop {
        let room = output.window();
        let mut input = InBuffer::around(&payload[consumed..]);
        let mut out = OutBuffer::around(&mut window[..room]);
        let hint = decoder.run(&mut input, &mut out).map_err(codec)?;
        let (read, written) = (input.pos(), out.pos());
        consumed += read;
        output.push(&window[..written])?;
        if hint == 0 {
            // A frame ended and is flushed.
            if output.is_full() || !starts_zstd_frame(&payload[consumed..]) {
                return Ok((output.finish()?, consumed));
            }
            decoder.reinit().map_err(codec)?;
        } else if read == 0 && written == 0 {
            return Err(stalled(consumed, payload.len(), output.buf.len()));
        }
    }
}

/// A decoder that neither reads nor writes: out of input, or stuck.
fn stalled(consumed: usize, payload_len: usize, produced: usize) -> DecodeError {
    if consumed >= payload_len {
        DecodeError::Truncated(produced)
    } else {
        DecodeError::Stuck(consumed)
    }
}

/// True if `data` starts with a zstd frame or skippable frame magic.
fn starts_zstd_frame(data: &[u8]) -> bool {
    let Some(magic) = data.first_chunk::<4>().map(|m| u32::from_le_bytes(*m)) else {
        return false;
    };
    magic == 0xFD2F_B528 || magic & 0xFFFF_FFF0 == 0x184D_2A50
}

// ------------------------------------------------------------------------------------------
// Bundle entry ids

/// A bundle entry id split as clang splits it: `<kind>-<arch>-<vendor>-<os>-<env>[-<target id>]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BundleId<'a> {
    /// `hipv4`, `hip`, `openmp` or `host`.
    pub kind: &'a str,
    /// `amdgcn-amd-amdhsa` (an empty environment dropped), `x86_64-unknown-linux-gnu`.
    pub triple: &'a str,
    /// `gfx90a:xnack-`, `gfx10-3-generic`; `None` when there is none (host entries).
    pub target_id: Option<&'a str>,
}

impl<'a> BundleId<'a> {
    /// The triple's architecture: `amdgcn`, `x86_64`, `spirv64`.
    pub fn arch(&self) -> &'a str {
        self.triple.split('-').next().unwrap_or_default()
    }

    /// The processor of the target id, without features: `gfx90a`, `gfx10-3-generic`.
    pub fn processor(&self) -> Option<&'a str> {
        self.target_id.and_then(|t| t.split(':').next())
    }
}

/// Splits a bundle entry id. Clang splits at the first five dashes, so everything after the
/// environment is the target id, dashes included (`gfx10-3-generic`). Clang before 12 wrote
/// `hip-amdgcn-amd-amdhsa-gfx906`, with the processor where the environment goes; a processor
/// name (`gfx…`, `sm_…`) there is taken as the target id. Never fails: an id with fewer parts
/// yields what it has.
pub fn parse_bundle_id(id: &str) -> BundleId<'_> {
    let (kind, rest) = id.split_once('-').unwrap_or((id, ""));
    // `rest` is `<arch>-<vendor>-<os>[-<env>[-<target id>]]`; find the dash after `<os>`.
    let Some((os_end, _)) = rest.match_indices('-').nth(2) else {
        return BundleId {
            kind,
            triple: rest,
            target_id: None,
        };
    };
    let (arch_vendor_os, after_os) = (&rest[..os_end], &rest[os_end + 1..]);
    let (env, target) = after_os.split_once('-').unwrap_or((after_os, ""));
    if target.is_empty() && is_processor_name(env) {
        return BundleId {
            kind,
            triple: arch_vendor_os,
            target_id: Some(env),
        };
    }
    let triple = if env.is_empty() {
        arch_vendor_os
    } else {
        &rest[..os_end + 1 + env.len()]
    };
    BundleId {
        kind,
        triple,
        target_id: (!target.is_empty()).then_some(target),
    }
}

fn is_processor_name(s: &str) -> bool {
    s.starts_with("gfx") || s.starts_with("sm_")
}

// ------------------------------------------------------------------------------------------
// Writing

/// Writes a plain bundle as the HIP driver has clang-offload-bundler write it: entry data
/// aligned to [`HIP_BUNDLE_ALIGN`], zero padding before each entry, none after the last.
pub fn write_bundle(entries: &[(&str, &[u8])]) -> Vec<u8> {
    write_bundle_aligned(entries, HIP_BUNDLE_ALIGN)
}

/// Writes a plain bundle with entry data aligned to `align` (clang-offload-bundler's
/// `-bundle-align`, default 1; 0 is taken as 1). Like clang, each entry's offset is aligned,
/// even an empty entry's, and the file ends at the end of the last entry.
///
/// # Panics
/// If the bundle would exceed the address space.
pub fn write_bundle_aligned(entries: &[(&str, &[u8])], align: u64) -> Vec<u8> {
    let align = usize::try_from(align.max(1)).expect("bundle alignment exceeds the address space");
    let overflow = "offload bundle exceeds the address space";
    let header_len = entries
        .iter()
        .try_fold(PLAIN_HEADER_LEN as usize, |n, (id, _)| {
            n.checked_add(ENTRY_HEADER_LEN as usize + id.len())
        })
        .expect(overflow);
    let mut offsets = Vec::with_capacity(entries.len());
    let mut cursor = header_len;
    for (_, bytes) in entries {
        let offset = cursor.checked_next_multiple_of(align).expect(overflow);
        offsets.push(offset);
        cursor = offset.checked_add(bytes.len()).expect(overflow);
    }
    let mut out = Vec::with_capacity(cursor);
    out.extend_from_slice(OFFLOAD_BUNDLE_MAGIC);
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for ((id, bytes), offset) in entries.iter().zip(&offsets) {
        out.extend_from_slice(&(*offset as u64).to_le_bytes());
        out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(&(id.len() as u64).to_le_bytes());
        out.extend_from_slice(id.as_bytes());
    }
    for ((_, bytes), offset) in entries.iter().zip(&offsets) {
        out.resize(*offset, 0);
        out.extend_from_slice(bytes);
    }
    out
}

/// Compresses a plain bundle into a `CCOB` of `version` (1, 2 or 3) as LLVM does: zlib at
/// level 6 (zlib's default, which LLVM uses), zstd at level 3 (the bundler's choice), and
/// the low 64 bits of the MD5 of `bundle` as the hash.
///
/// # Panics
/// On a version other than 1, 2 or 3, or, for versions 1 and 2, sizes over 32 bits (LLVM
/// refuses those too).
pub fn write_compressed_bundle(version: u16, method: CompressionMethod, bundle: &[u8]) -> Vec<u8> {
    let payload = compress(method, bundle);
    let hash = md5_low64(bundle);
    let header_len: usize = match version {
        1 => 20,
        2 => 24,
        3 => 32,
        _ => panic!("unsupported compressed offload bundle version {version}"),
    };
    let total = (header_len + payload.len()) as u64;
    let uncompressed = bundle.len() as u64;
    let narrow = |n: u64, what: &str| -> [u8; 4] {
        u32::try_from(n)
            .unwrap_or_else(|_| panic!("{what} {n:#x} exceeds the version {version} limit"))
            .to_le_bytes()
    };
    let mut out = Vec::with_capacity(header_len + payload.len());
    out.extend_from_slice(COMPRESSED_BUNDLE_MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&method.raw().to_le_bytes());
    match version {
        1 => out.extend_from_slice(&narrow(uncompressed, "uncompressed size")),
        2 => {
            out.extend_from_slice(&narrow(total, "total size"));
            out.extend_from_slice(&narrow(uncompressed, "uncompressed size"));
        }
        _ => {
            out.extend_from_slice(&total.to_le_bytes());
            out.extend_from_slice(&uncompressed.to_le_bytes());
        }
    }
    out.extend_from_slice(&hash.to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

fn compress(method: CompressionMethod, data: &[u8]) -> Vec<u8> {
    match method {
        CompressionMethod::Zlib => {
            let mut encoder =
                flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
            encoder
                .write_all(data)
                .expect("writing to a Vec cannot fail");
            encoder.finish().expect("writing to a Vec cannot fail")
        }
        CompressionMethod::Zstd => zstd::bulk::compress(data, 3).expect("zstd compression failed"),
    }
}

/// The low 64 bits of the MD5 digest, read little-endian: LLVM's `MD5Result::low()`, the
/// hash a `CCOB` header carries.
fn md5_low64(data: &[u8]) -> u64 {
    let digest = md5(data);
    let mut low = [0u8; 8];
    low.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(low)
}

/// MD5 (RFC 1321); only to write the header hash LLVM writes, not for anything secret.
fn md5(data: &[u8]) -> [u8; 16] {
    let mut state = [0x6745_2301u32, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let mut blocks = data.chunks_exact(64);
    for block in &mut blocks {
        md5_block(&mut state, block);
    }
    // Padding: 0x80, zeros to 56 mod 64, then the bit length; one or two more blocks.
    let rest = blocks.remainder();
    let mut tail = [0u8; 128];
    tail[..rest.len()].copy_from_slice(rest);
    tail[rest.len()] = 0x80;
    let tail_len = if rest.len() < 56 { 64 } else { 128 };
    let bits = (data.len() as u64).wrapping_mul(8);
    tail[tail_len - 8..tail_len].copy_from_slice(&bits.to_le_bytes());
    for block in tail[..tail_len].chunks_exact(64) {
        md5_block(&mut state, block);
    }
    let mut digest = [0u8; 16];
    for (out, word) in digest.chunks_exact_mut(4).zip(state) {
        out.copy_from_slice(&word.to_le_bytes());
    }
    digest
}

fn md5_block(state: &mut [u32; 4], block: &[u8]) {
    const SHIFTS: [u32; 16] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
    const K: [u32; 64] = [
        0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
        0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
        0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
        0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
        0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
        0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
        0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
        0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
        0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
        0xeb86d391,
    ];
    let mut m = [0u32; 16];
    for (word, bytes) in m.iter_mut().zip(block.chunks_exact(4)) {
        *word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }
    let [mut a, mut b, mut c, mut d] = *state;
    for i in 0..64 {
        let (f, g) = match i / 16 {
            0 => ((b & c) | (!b & d), i),
            1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
            2 => (b ^ c ^ d, (3 * i + 5) % 16),
            _ => (c ^ (b | !d), (7 * i) % 16),
        };
        let rotated = a
            .wrapping_add(f)
            .wrapping_add(K[i])
            .wrapping_add(m[g])
            .rotate_left(SHIFTS[(i / 16) * 4 + i % 4]);
        (a, d, c) = (d, c, b);
        b = b.wrapping_add(rotated);
    }
    for (s, v) in state.iter_mut().zip([a, b, c, d]) {
        *s = s.wrapping_add(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: &str = "host-x86_64-unknown-linux";
    const GFX906: &str = "hipv4-amdgcn-amd-amdhsa--gfx906";
    const GFX90A: &str = "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-";

    /// Code-object-like bytes: deterministic, mildly compressible, no long zero runs.
    fn payload(seed: u8, len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) | 1)
            .collect()
    }

    fn sample_entries() -> Vec<(&'static str, Vec<u8>)> {
        vec![
            (HOST, Vec::new()),
            (GFX906, payload(1, 5000)),
            (GFX90A, payload(2, 300)),
        ]
    }

    fn sample_bundle() -> Vec<u8> {
        let entries = sample_entries();
        let refs: Vec<(&str, &[u8])> = entries.iter().map(|(id, b)| (*id, b.as_slice())).collect();
        write_bundle(&refs)
    }

    fn assert_sample(bundle: &Bundle<'_>) {
        let expected = sample_entries();
        assert_eq!(bundle.entries.len(), expected.len());
        for (entry, (id, bytes)) in bundle.entries.iter().zip(&expected) {
            assert_eq!(entry.id, *id);
            assert_eq!(entry.bytes.as_ref(), bytes.as_slice());
            assert_eq!(entry.size, bytes.len() as u64);
        }
    }

    fn err_text(err: &ReadError) -> String {
        err.to_string()
    }

    fn put_u32(data: &mut [u8], at: usize, v: u32) {
        data[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    fn put_u64(data: &mut [u8], at: usize, v: u64) {
        data[at..at + 8].copy_from_slice(&v.to_le_bytes());
    }

    #[test]
    fn plain_round_trip_borrows_and_aligns() {
        let data = sample_bundle();
        let bundle = parse_bundle(&data, &DecompressLimits::default()).unwrap();
        assert_eq!(bundle.format, BundleFormat::Plain);
        assert_eq!(bundle.offset, 0);
        assert_eq!(bundle.len, data.len() as u64);
        assert_sample(&bundle);
        // Like clang with -bundle-align=4096: the empty host entry and the first code object
        // share the first aligned offset.
        let offsets: Vec<u64> = bundle.entries.iter().map(|e| e.offset).collect();
        assert_eq!(offsets, [0x1000, 0x1000, 0x3000]);
        assert!(
            bundle
                .entries
                .iter()
                .all(|e| matches!(e.bytes, Cow::Borrowed(_)))
        );
        assert!(matches!(bundle.entries[0].id, Cow::Borrowed(_)));
        let objects: Vec<&str> = bundle.code_objects().map(|e| e.id.as_ref()).collect();
        assert_eq!(objects, [GFX906, GFX90A]);
        assert!(!bundle.entries[0].is_amdgcn());
    }

    #[test]
    fn unaligned_writer_packs_entries() {
        let a = payload(3, 10);
        let data = write_bundle_aligned(&[(GFX906, &a), (GFX90A, &a)], 1);
        let bundle = parse_bundle(&data, &DecompressLimits::default()).unwrap();
        let header_len = 32 + 2 * 24 + GFX906.len() as u64 + GFX90A.len() as u64;
        assert_eq!(bundle.entries[0].offset, header_len);
        assert_eq!(bundle.entries[1].offset, header_len + 10);
        assert_eq!(bundle.len, data.len() as u64);
    }

    #[test]
    fn bundle_followed_by_other_data_reports_its_len() {
        let mut data = sample_bundle();
        let len = data.len() as u64;
        data.extend_from_slice(b"trailing stuff");
        let bundle = parse_bundle(&data, &DecompressLimits::default()).unwrap();
        assert_eq!(bundle.len, len);
    }

    /// A fake `.hip_fatbin`: bundles at 4096-aligned offsets, zero padding, one trailing NUL.
    fn fake_fatbin(bundles: &[Vec<u8>]) -> (Vec<u8>, Vec<u64>) {
        let mut section = Vec::new();
        let mut offsets = Vec::new();
        for bundle in bundles {
            section.resize(section.len().next_multiple_of(4096), 0);
            offsets.push(section.len() as u64);
            section.extend_from_slice(bundle);
        }
        section.push(0);
        (section, offsets)
    }

    #[test]
    fn several_bundles_with_padding() {
        let plain = sample_bundle();
        let v2 = write_compressed_bundle(2, CompressionMethod::Zstd, &plain);
        let v1 = write_compressed_bundle(1, CompressionMethod::Zlib, &plain);
        let v3 = write_compressed_bundle(3, CompressionMethod::Zlib, &plain);
        let (section, offsets) = fake_fatbin(&[
            plain.clone(),
            v2.clone(),
            plain.clone(),
            v1.clone(),
            v3.clone(),
        ]);
        let base = 0xc5_3000;
        let bundles = parse_bundles(&section, base, &DecompressLimits::default()).unwrap();
        assert_eq!(bundles.len(), 5);
        let lens = [plain.len(), v2.len(), plain.len(), v1.len(), v3.len()];
        for ((bundle, offset), len) in bundles.iter().zip(&offsets).zip(lens) {
            assert_eq!(bundle.offset, base + offset);
            assert_eq!(bundle.len, len as u64);
            assert_sample(bundle);
        }
        assert_eq!(
            bundles[1].format,
            BundleFormat::Compressed {
                version: 2,
                method: CompressionMethod::Zstd
            }
        );
        assert_eq!(
            bundles[3].format,
            BundleFormat::Compressed {
                version: 1,
                method: CompressionMethod::Zlib
            }
        );
    }

    #[test]
    fn unaligned_back_to_back_bundles() {
        let plain = sample_bundle();
        let v1 = write_compressed_bundle(1, CompressionMethod::Zstd, &plain);
        let mut section = v1.clone();
        section.extend_from_slice(&[0; 3]);
        section.extend_from_slice(&plain);
        section.extend_from_slice(&v1);
        let bundles = parse_bundles(&section, 0, &DecompressLimits::default()).unwrap();
        let offsets: Vec<u64> = bundles.iter().map(|b| b.offset).collect();
        let v1_len = v1.len() as u64;
        assert_eq!(offsets, [0, v1_len + 3, v1_len + 3 + plain.len() as u64]);
    }

    #[test]
    fn empty_or_all_zero_section_has_no_bundles() {
        assert!(
            parse_bundles(&[], 0, &DecompressLimits::default())
                .unwrap()
                .is_empty()
        );
        assert!(
            parse_bundles(&[0; 100], 0, &DecompressLimits::default())
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn garbage_between_bundles_names_its_offset() {
        let plain = sample_bundle();
        let (mut section, offsets) = fake_fatbin(&[plain.clone(), plain]);
        let garbage_at = offsets[1] as usize - 16;
        section[garbage_at] = 0xAB;
        let err = parse_bundles(&section, 0x1000, &DecompressLimits::default()).unwrap_err();
        let text = err_text(&err);
        assert!(
            text.contains(&format!("{:#x}", 0x1000 + garbage_at)),
            "{text}"
        );
        assert!(text.contains("neither zero padding"), "{text}");
    }

    #[test]
    fn compressed_versions_and_methods_round_trip() {
        let plain = sample_bundle();
        for version in [1, 2, 3] {
            for method in [CompressionMethod::Zlib, CompressionMethod::Zstd] {
                let data = write_compressed_bundle(version, method, &plain);
                assert_eq!(&data[..4], b"CCOB");
                let bundle = parse_bundle(&data, &DecompressLimits::default())
                    .unwrap_or_else(|e| panic!("v{version} {method:?}: {e}"));
                assert_eq!(bundle.format, BundleFormat::Compressed { version, method });
                assert_eq!(bundle.len, data.len() as u64, "v{version} {method:?}");
                assert_sample(&bundle);
                assert!(
                    bundle
                        .entries
                        .iter()
                        .all(|e| matches!(e.bytes, Cow::Owned(_)))
                );
                // Entry offsets are within the decompressed bundle.
                assert_eq!(bundle.entries[2].offset, 0x3000);
            }
        }
    }

    #[test]
    fn compressed_header_layout_matches_llvm() {
        let plain = sample_bundle();
        let v1 = write_compressed_bundle(1, CompressionMethod::Zstd, &plain);
        assert_eq!(u16::from_le_bytes([v1[4], v1[5]]), 1);
        assert_eq!(u16::from_le_bytes([v1[6], v1[7]]), 1);
        assert_eq!(
            u32::from_le_bytes(v1[8..12].try_into().unwrap()),
            plain.len() as u32
        );
        assert_eq!(
            u64::from_le_bytes(v1[12..20].try_into().unwrap()),
            md5_low64(&plain)
        );
        let v2 = write_compressed_bundle(2, CompressionMethod::Zlib, &plain);
        assert_eq!(u16::from_le_bytes([v2[6], v2[7]]), 0);
        assert_eq!(
            u32::from_le_bytes(v2[8..12].try_into().unwrap()),
            v2.len() as u32
        );
        assert_eq!(
            u32::from_le_bytes(v2[12..16].try_into().unwrap()),
            plain.len() as u32
        );
        assert_eq!(v2[24], 0x78, "zlib header");
        let v3 = write_compressed_bundle(3, CompressionMethod::Zstd, &plain);
        assert_eq!(
            u64::from_le_bytes(v3[8..16].try_into().unwrap()),
            v3.len() as u64
        );
        assert_eq!(
            u64::from_le_bytes(v3[16..24].try_into().unwrap()),
            plain.len() as u64
        );
        assert_eq!(&v3[32..36], &[0x28, 0xb5, 0x2f, 0xfd], "zstd frame magic");
    }

    #[test]
    fn md5_matches_rfc_1321() {
        let hex = |d: [u8; 16]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(hex(md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(md5(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            hex(md5(b"The quick brown fox jumps over the lazy dog")),
            "9e107d9d372bb6826bd81d3542a419d6"
        );
        // Padding spilling into a second block, an exact block, and several blocks.
        assert_eq!(hex(md5(&[b'a'; 56])), "3b0c8ac703f828b04c6c197006d17218");
        assert_eq!(hex(md5(&[b'a'; 64])), "014842d480b571495a4a0363793f7367");
        let long: Vec<u8> = (0..1000u32).map(|i| ((i * 7 + 3) % 256) as u8).collect();
        assert_eq!(hex(md5(&long)), "10046f077f2082ac19676b8079f1cb1a");
    }

    /// The position of the uncompressed size field in a header of `version`.
    fn uncompressed_size_at(version: u16) -> usize {
        if version == 2 {
            12
        } else if version == 3 {
            16
        } else {
            8
        }
    }

    fn set_uncompressed_size(data: &mut [u8], version: u16, size: u64) {
        let at = uncompressed_size_at(version);
        if version == 3 {
            put_u64(data, at, size)
        } else {
            put_u32(data, at, size as u32)
        }
    }

    #[test]
    fn declared_size_smaller_than_stream_is_a_lie() {
        let plain = sample_bundle();
        for version in [1, 2, 3] {
            for method in [CompressionMethod::Zlib, CompressionMethod::Zstd] {
                let mut data = write_compressed_bundle(version, method, &plain);
                set_uncompressed_size(&mut data, version, plain.len() as u64 - 1);
                let err = parse_bundle(&data, &DecompressLimits::default()).unwrap_err();
                let text = err_text(&err);
                assert!(
                    text.contains("sizes lie") && text.contains("more than"),
                    "v{version} {method:?}: {text}"
                );
            }
        }
    }

    #[test]
    fn declared_size_larger_than_stream_is_a_lie() {
        let plain = sample_bundle();
        for version in [1, 2, 3] {
            for method in [CompressionMethod::Zlib, CompressionMethod::Zstd] {
                let mut data = write_compressed_bundle(version, method, &plain);
                set_uncompressed_size(&mut data, version, plain.len() as u64 + 100);
                // Zero padding after, as in a section: version 1 must not read on into it.
                data.extend_from_slice(&[0; 64]);
                let err = parse_bundle(&data, &DecompressLimits::default()).unwrap_err();
                let text = err_text(&err);
                assert!(
                    text.contains("sizes lie") && text.contains("ends after"),
                    "v{version} {method:?}: {text}"
                );
            }
        }
    }

    #[test]
    fn bomb_is_rejected_before_decoding() {
        // A header claiming 1 TiB over a payload that is not even a valid stream: the limit
        // must fire first (a decoder would have complained about the stream instead).
        let mut data = write_compressed_bundle(3, CompressionMethod::Zstd, &sample_bundle());
        put_u64(&mut data, 16, 1 << 40);
        data[32..].fill(0xEE);
        let err = parse_bundle(&data, &DecompressLimits::default()).unwrap_err();
        let text = err_text(&err);
        assert!(
            text.contains("max_output") && text.contains("0x10"),
            "{text}"
        );

        // Within max_output but over the ratio.
        put_u64(&mut data, 16, 1 << 30);
        let err = parse_bundle(&data, &DecompressLimits::default()).unwrap_err();
        assert!(err_text(&err).contains("max_ratio"), "{}", err_text(&err));
    }

    #[test]
    fn honest_bomb_is_rejected_by_ratio_and_accepted_when_allowed() {
        let zeros = vec![0u8; 8 << 20];
        let plain = write_bundle(&[(GFX906, &zeros)]);
        let data = write_compressed_bundle(2, CompressionMethod::Zstd, &plain);
        assert!(
            data.len() * 1000 < plain.len(),
            "zstd of zeros should beat 1000:1"
        );
        let err = parse_bundle(&data, &DecompressLimits::default()).unwrap_err();
        assert!(err_text(&err).contains("max_ratio"));
        let generous = DecompressLimits {
            max_ratio: u64::MAX,
            ..Default::default()
        };
        let bundle = parse_bundle(&data, &generous).unwrap();
        assert_eq!(bundle.entries[0].bytes.len(), zeros.len());
        let tight = DecompressLimits {
            max_output: 1 << 20,
            max_ratio: u64::MAX,
        };
        assert!(err_text(&parse_bundle(&data, &tight).unwrap_err()).contains("max_output"));
    }

    #[test]
    fn total_size_past_the_data_is_an_error() {
        let mut data = write_compressed_bundle(3, CompressionMethod::Zlib, &sample_bundle());
        let len = data.len() as u64;
        put_u64(&mut data, 8, len + 1);
        let err = parse_bundle(&data, &DecompressLimits::default()).unwrap_err();
        assert!(matches!(err, ReadError::Truncated { .. }), "{err}");
        put_u64(&mut data, 8, 4);
        let err = parse_bundle(&data, &DecompressLimits::default()).unwrap_err();
        assert!(err_text(&err).contains("smaller than its own"), "{err}");
    }

    #[test]
    fn trailing_bytes_inside_total_size_are_an_error() {
        let mut data = write_compressed_bundle(2, CompressionMethod::Zstd, &sample_bundle());
        data.extend_from_slice(&[0; 5]);
        let total = data.len() as u32;
        put_u32(&mut data, 8, total);
        let err = parse_bundle(&data, &DecompressLimits::default()).unwrap_err();
        assert!(
            err_text(&err).contains("follow the end of the zstd stream"),
            "{err}"
        );
    }

    #[test]
    fn unknown_version_and_method_are_errors() {
        let mut data = write_compressed_bundle(2, CompressionMethod::Zstd, &sample_bundle());
        data[6] = 7;
        assert!(
            err_text(&parse_bundle(&data, &DecompressLimits::default()).unwrap_err())
                .contains("method 7")
        );
        data[6] = 1;
        data[4] = 9;
        assert!(
            err_text(&parse_bundle(&data, &DecompressLimits::default()).unwrap_err())
                .contains("version 9")
        );
    }

    #[test]
    fn corrupt_stream_is_an_error() {
        let limits = DecompressLimits::default();
        for method in [CompressionMethod::Zlib, CompressionMethod::Zstd] {
            // A damaged stream header.
            let mut data = write_compressed_bundle(2, method, &sample_bundle());
            data[24] ^= 0x5A;
            let text = err_text(&parse_bundle(&data, &limits).unwrap_err());
            assert!(
                text.contains("stream is corrupt") && text.contains("0x18"),
                "{method:?}: {text}"
            );
        }
        // Damaged data inside a zlib stream fails its Adler-32. (LLVM's zstd frames carry no
        // checksum, and the MD5 in the header is not checked, so zstd data damage that keeps
        // the stream well-formed goes unnoticed, as it does in LLVM.)
        let mut data = write_compressed_bundle(2, CompressionMethod::Zlib, &sample_bundle());
        let mid = 24 + (data.len() - 24) / 2;
        for b in &mut data[mid..mid + 8] {
            *b ^= 0x5A;
        }
        assert!(parse_bundle(&data, &limits).is_err());
    }

    #[test]
    fn entry_past_the_end_is_an_error() {
        let mut data = sample_bundle();
        // The size field of entry 2 (after the 32-byte header and two entry headers).
        let entry2 = 32 + 24 + HOST.len() + 24 + GFX906.len();
        put_u64(&mut data, entry2 + 8, 0x10_0000);
        let err = parse_bundle(&data, &DecompressLimits::default()).unwrap_err();
        let text = err_text(&err);
        assert!(text.contains("points past the end"), "{text}");
        assert!(
            text.contains("entry 2") && text.contains(&format!("{entry2:#x}")),
            "{text}"
        );
        // Offset + size overflowing.
        put_u64(&mut data, entry2, u64::MAX);
        assert!(
            err_text(&parse_bundle(&data, &DecompressLimits::default()).unwrap_err())
                .contains("overflows")
        );
    }

    #[test]
    fn entry_over_the_header_is_an_error() {
        let mut data = sample_bundle();
        let entry1 = 32 + 24 + HOST.len();
        put_u64(&mut data, entry1, 8);
        let err = parse_bundle(&data, &DecompressLimits::default()).unwrap_err();
        assert!(
            err_text(&err).contains("overlaps the bundle header"),
            "{err}"
        );
    }

    #[test]
    fn entry_id_must_be_utf8() {
        let mut data = sample_bundle();
        let id_at = 32 + 24;
        data[id_at + 1] = 0xFF;
        let err = parse_bundle(&data, &DecompressLimits::default()).unwrap_err();
        let text = err_text(&err);
        assert!(
            text.contains("not UTF-8") && text.contains(&format!("{id_at:#x}")),
            "{text}"
        );
    }

    #[test]
    fn absurd_entry_count_is_rejected_before_allocating() {
        let mut data = sample_bundle();
        put_u64(&mut data, 24, u64::MAX);
        let err = parse_bundle(&data, &DecompressLimits::default()).unwrap_err();
        assert!(
            err_text(&err).contains("declares 18446744073709551615 entries"),
            "{err}"
        );
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let plain = sample_bundle();
        let mut inputs = vec![plain.clone()];
        for version in [1, 2, 3] {
            for method in [CompressionMethod::Zlib, CompressionMethod::Zstd] {
                inputs.push(write_compressed_bundle(version, method, &plain));
            }
        }
        let limits = DecompressLimits::default();
        for input in &inputs {
            assert!(parse_bundle(input, &limits).is_ok());
            for cut in 0..input.len() {
                let prefix = &input[..cut];
                assert!(
                    parse_bundle(prefix, &limits).is_err(),
                    "prefix {cut} of {} parsed",
                    input.len()
                );
                // As the last bundle of a section, a truncated bundle is an error as well
                // (except the empty prefix, which is an empty section).
                assert_eq!(
                    parse_bundles(prefix, 0, &limits).is_err(),
                    cut > 0,
                    "prefix {cut}"
                );
            }
        }
    }

    #[test]
    fn mutated_bundles_never_panic() {
        let plain = sample_bundle();
        let seeds = [
            plain.clone(),
            write_compressed_bundle(1, CompressionMethod::Zstd, &plain),
            write_compressed_bundle(2, CompressionMethod::Zlib, &plain),
            write_compressed_bundle(3, CompressionMethod::Zstd, &plain),
        ];
        let limits = DecompressLimits::default();
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for _ in 0..3000 {
            let mut data = seeds[(next() % 4) as usize].clone();
            // Mostly the headers, where the interesting fields are.
            for _ in 0..1 + next() % 4 {
                let span = if next() % 4 == 0 {
                    data.len()
                } else {
                    200.min(data.len())
                };
                let at = (next() as usize) % span;
                data[at] = next() as u8;
            }
            let _ = parse_bundle(&data, &limits);
            let _ = parse_bundles(&data, 0, &limits);
        }
    }

    #[test]
    fn bundle_ids() {
        let id = |kind, triple, target| BundleId {
            kind,
            triple,
            target_id: target,
        };
        let cases = [
            (
                "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-",
                id("hipv4", "amdgcn-amd-amdhsa", Some("gfx90a:xnack-")),
            ),
            (
                "hipv4-amdgcn-amd-amdhsa--gfx10-3-generic",
                id("hipv4", "amdgcn-amd-amdhsa", Some("gfx10-3-generic")),
            ),
            (
                "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-",
                id("hipv4", "amdgcn-amd-amdhsa", Some("gfx90a:sramecc+:xnack-")),
            ),
            (
                "host-x86_64-unknown-linux",
                id("host", "x86_64-unknown-linux", None),
            ),
            (
                "host-x86_64-unknown-linux-gnu",
                id("host", "x86_64-unknown-linux-gnu", None),
            ),
            (
                "host-x86_64-unknown-linux-",
                id("host", "x86_64-unknown-linux", None),
            ),
            (
                "hip-amdgcn-amd-amdhsa-gfx906",
                id("hip", "amdgcn-amd-amdhsa", Some("gfx906")),
            ),
            (
                "openmp-amdgcn-amd-amdhsa--gfx906",
                id("openmp", "amdgcn-amd-amdhsa", Some("gfx906")),
            ),
            (
                "hipv4-amdgcn-amd-amdhsa-unknown-gfx1100",
                id("hipv4", "amdgcn-amd-amdhsa-unknown", Some("gfx1100")),
            ),
            (
                "hipv4-spirv64-amd-amdhsa--amdgcnspirv",
                id("hipv4", "spirv64-amd-amdhsa", Some("amdgcnspirv")),
            ),
            ("host", id("host", "", None)),
            ("", id("", "", None)),
            ("weird-a-b", id("weird", "a-b", None)),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_bundle_id(text), expected, "{text}");
        }
        assert_eq!(
            parse_bundle_id("hipv4-amdgcn-amd-amdhsa--gfx10-3-generic").processor(),
            Some("gfx10-3-generic")
        );
        assert_eq!(
            parse_bundle_id("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+").processor(),
            Some("gfx90a")
        );
        assert_eq!(
            parse_bundle_id("hipv4-amdgcn-amd-amdhsa--gfx90a").arch(),
            "amdgcn"
        );
        assert_eq!(
            parse_bundle_id("hipv4-spirv64-amd-amdhsa--amdgcnspirv").arch(),
            "spirv64"
        );
    }
}
