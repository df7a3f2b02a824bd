//! The `NT_AMDGPU_METADATA` note: a msgpack map (`amdhsa.version`, `amdhsa.target`,
//! `amdhsa.kernels`, ...), code object v3+.
//!
//! The typed fields are read straight off the note's bytes by a borrowing `Reader` (below): every
//! code object of a library is parsed (and each rewritten one again as it is verified), and
//! building an [`rmpv::Value`] tree of a large note, string by string, only to drop it again
//! cost as much as the rest of the container parse. The complete document, unknown keys and
//! all, is kept as its bytes and decoded by [`Metadata::document`] for the few writers that
//! change the note; a test checks that an unmodified document re-encodes to the note's exact
//! bytes on every fixture.
//!
//! The reader accepts exactly what `rmpv::decode::read_value` accepts (the same markers, the
//! same depth limit counted the same way, a reserved marker read as nil), and takes the first
//! of duplicate keys, as a lookup in the decoded map did. On malformed msgpack the error is
//! rmpv's own, so what a user reads about a bad note did not change.

use rmpv::Value;
use serde::Serialize;

use super::error::{ReadError, Result};

/// The metadata note, typed where gfxpatch needs it and complete underneath.
#[derive(Clone, Debug, PartialEq)]
pub struct Metadata {
    /// `amdhsa.version`: [major, minor].
    pub version: Option<(u64, u64)>,
    /// `amdhsa.target`: the target id the compiler wrote (`amdgcn-amd-amdhsa--gfx90a:xnack-`).
    pub target: Option<String>,
    pub kernels: Vec<KernelMetadata>,
    /// The note's descriptor: the complete document, as msgpack.
    msgpack: Vec<u8>,
    /// File offset of `msgpack`, for errors.
    offset: u64,
}

/// One entry of `amdhsa.kernels`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct KernelMetadata {
    pub name: String,
    /// The descriptor symbol (`NAME.kd`).
    pub symbol: String,
    pub vgpr_count: Option<u64>,
    pub sgpr_count: Option<u64>,
    pub agpr_count: Option<u64>,
    pub vgpr_spill_count: Option<u64>,
    pub sgpr_spill_count: Option<u64>,
    pub kernarg_segment_size: Option<u64>,
    pub kernarg_segment_align: Option<u64>,
    pub group_segment_fixed_size: Option<u64>,
    pub private_segment_fixed_size: Option<u64>,
    pub wavefront_size: Option<u64>,
    pub max_flat_workgroup_size: Option<u64>,
    pub uses_dynamic_stack: Option<bool>,
    pub args: Vec<KernelArg>,
}

/// One entry of a kernel's `.args`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct KernelArg {
    pub name: Option<String>,
    pub type_name: Option<String>,
    pub size: Option<u64>,
    pub offset: Option<u64>,
    pub value_kind: Option<String>,
    pub address_space: Option<String>,
    pub access: Option<String>,
}

impl Metadata {
    /// Decodes the descriptor bytes of an `NT_AMDGPU_METADATA` note found at `offset`.
    pub fn parse(desc: &[u8], offset: u64) -> Result<Metadata> {
        let malformed = |detail: &str| ReadError::malformed("NT_AMDGPU_METADATA", offset, detail);
        let mut reader = Reader { bytes: desc, at: 0 };
        let typed = match reader.document() {
            Ok(typed) => typed,
            Err(Malformed) => {
                // rmpv rejects what the reader rejects; its message is the one users know.
                let detail = match rmpv::decode::read_value(&mut &desc[..]) {
                    Err(e) => e.to_string(),
                    Ok(_) => "unreadable msgpack".to_string(),
                };
                return Err(ReadError::malformed("NT_AMDGPU_METADATA msgpack", offset, detail));
            }
        };
        let Some(root) = typed else { return Err(malformed("the document is not a map")) };
        let kernels = match root.kernels {
            Kernels::Absent => Vec::new(),
            Kernels::Listed(kernels) => kernels,
            Kernels::NotAnArray => return Err(malformed("amdhsa.kernels is not an array")),
            Kernels::NotAMap(index) => return Err(malformed(&format!("amdhsa.kernels[{index}] is not a map"))),
        };
        Ok(Metadata { version: root.version, target: root.target, kernels, msgpack: desc.to_vec(), offset })
    }

    /// The complete document, decoded (unknown keys and all) for a writer that changes it.
    pub fn document(&self) -> Result<Value> {
        rmpv::decode::read_value(&mut &self.msgpack[..])
            .map_err(|e| ReadError::malformed("NT_AMDGPU_METADATA msgpack", self.offset, e.to_string()))
    }

    /// The document encoded as msgpack again.
    pub fn to_msgpack(&self) -> Vec<u8> {
        let mut out = Vec::new();
        // `parse` accepted the bytes, so rmpv decodes them (it accepts what the reader does).
        let document = self.document().unwrap_or(Value::Nil);
        rmpv::encode::write_value(&mut out, &document).expect("writing to a Vec cannot fail");
        out
    }

    pub fn kernel(&self, name: &str) -> Option<&KernelMetadata> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

/// The msgpack was malformed (the details are rmpv's to tell).
struct Malformed;

/// `rmpv::decode::MAX_DEPTH`, counted as rmpv counts it (see [`Reader::enter`]).
const MAX_DEPTH: u16 = 1024;

/// The typed root, read by [`Reader::document`].
struct Root {
    version: Option<(u64, u64)>,
    target: Option<String>,
    kernels: Kernels,
}

/// What the (first) `amdhsa.kernels` key held.
enum Kernels {
    Absent,
    Listed(Vec<KernelMetadata>),
    NotAnArray,
    /// The first entry that is not a map, by index.
    NotAMap(usize),
}

/// One msgpack value's head: scalars whole, containers and byte strings by length.
#[derive(Clone, Copy)]
enum Head<'a> {
    Nil,
    Bool(bool),
    /// An integer that `rmpv::Value::as_u64` gives (not negative).
    Unsigned(u64),
    /// A negative integer, or a float.
    OtherNumber,
    Str(&'a [u8]),
    Bin,
    Ext,
    Array(usize),
    Map(usize),
}

/// A borrowing msgpack reader over a note's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> std::result::Result<&'a [u8], Malformed> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or(Malformed)?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn uint(&mut self, n: usize) -> std::result::Result<u64, Malformed> {
        Ok(self.take(n)?.iter().fold(0, |v, &b| (v << 8) | u64::from(b)))
    }

    /// rmpv's depth rule: each value, and each container's or string's data, takes one level.
    fn enter(depth: u16) -> std::result::Result<u16, Malformed> {
        depth.checked_sub(1).ok_or(Malformed)
    }

    /// Reads one value's head at `depth` (what rmpv's `read_value_inner` is given) and the
    /// bytes of a string, binary or extension; returns the depth its elements are read at.
    fn head(&mut self, depth: u16) -> std::result::Result<(Head<'a>, u16), Malformed> {
        let depth = Self::enter(depth)?;
        let marker = self.take(1)?[0];
        let head = match marker {
            0x00..=0x7f => Head::Unsigned(u64::from(marker)),
            0x80..=0x8f => Head::Map(usize::from(marker & 0x0f)),
            0x90..=0x9f => Head::Array(usize::from(marker & 0x0f)),
            0xa0..=0xbf => return self.str(usize::from(marker & 0x1f), depth),
            0xc0 | 0xc1 => Head::Nil,
            0xc2 => Head::Bool(false),
            0xc3 => Head::Bool(true),
            0xc4..=0xc6 => {
                let len = self.uint(1 << (marker - 0xc4))? as usize;
                Self::enter(depth)?;
                self.take(len)?;
                Head::Bin
            }
            0xc7..=0xc9 => {
                let len = self.uint(1 << (marker - 0xc7))? as usize;
                return self.ext(len, depth);
            }
            0xca => {
                self.take(4)?;
                Head::OtherNumber
            }
            0xcb => {
                self.take(8)?;
                Head::OtherNumber
            }
            0xcc..=0xcf => Head::Unsigned(self.uint(1 << (marker - 0xcc))?),
            0xd0..=0xd3 => {
                let n = 1 << (marker - 0xd0);
                let raw = self.uint(n)?;
                let negative = raw >> (8 * n - 1) & 1 == 1;
                if negative { Head::OtherNumber } else { Head::Unsigned(raw) }
            }
            0xd4..=0xd8 => return self.ext(1 << (marker - 0xd4), depth),
            0xd9..=0xdb => {
                let len = self.uint(1 << (marker - 0xd9))? as usize;
                return self.str(len, depth);
            }
            0xdc | 0xdd => Head::Array(self.uint(2 << (marker - 0xdc))? as usize),
            0xde | 0xdf => Head::Map(self.uint(2 << (marker - 0xde))? as usize),
            0xe0..=0xff => Head::OtherNumber,
        };
        match head {
            Head::Array(_) | Head::Map(_) => Ok((head, Self::enter(depth)?)),
            _ => Ok((head, depth)),
        }
    }

    fn str(&mut self, len: usize, depth: u16) -> std::result::Result<(Head<'a>, u16), Malformed> {
        // `read_str_data`, then `read_bin_data`: a level each.
        let depth = Self::enter(Self::enter(depth)?)?;
        Ok((Head::Str(self.take(len)?), depth))
    }

    fn ext(&mut self, len: usize, depth: u16) -> std::result::Result<(Head<'a>, u16), Malformed> {
        // `read_ext_body` (a level), its type byte, then `read_bin_data` (a level).
        let depth = Self::enter(depth)?;
        self.take(1)?;
        Self::enter(depth)?;
        self.take(len)?;
        Ok((Head::Ext, depth))
    }

    /// Reads a value and all it holds, for nothing but its well-formedness.
    fn skip(&mut self, depth: u16) -> std::result::Result<(), Malformed> {
        let (head, inner) = self.head(depth)?;
        self.elements(head, inner)
    }

    /// Reads through the elements of a container `head` (nothing for other values).
    fn elements(&mut self, head: Head<'a>, inner: u16) -> std::result::Result<(), Malformed> {
        match head {
            Head::Array(n) => (0..n).try_for_each(|_| self.skip(inner)),
            Head::Map(n) => (0..2 * n).try_for_each(|_| self.skip(inner)),
            _ => Ok(()),
        }
    }

    /// A value where the typed view reads a scalar: its head, with a container read through
    /// (`as_u64`, `as_str` and `as_bool` give a container `None`).
    fn scalar(&mut self, depth: u16) -> std::result::Result<Head<'a>, Malformed> {
        let (head, inner) = self.head(depth)?;
        self.elements(head, inner)?;
        Ok(head)
    }

    /// A map key: its bytes if it is a string (a lookup by name matched no other key).
    fn key(&mut self, depth: u16) -> std::result::Result<Option<&'a [u8]>, Malformed> {
        match self.scalar(depth)? {
            Head::Str(s) => Ok(Some(s)),
            _ => Ok(None),
        }
    }

    /// The `entries` entries of a map at `depth`: `read` reads the value of the first entry of
    /// each key `K` names (the first of duplicate keys counts, as it did in a lookup in rmpv's
    /// tree); every other entry is read through.
    fn map<K: MapKey>(
        &mut self,
        entries: usize,
        depth: u16,
        mut read: impl FnMut(&mut Self, K) -> std::result::Result<(), Malformed>,
    ) -> std::result::Result<(), Malformed> {
        let mut seen = 0u32;
        for _ in 0..entries {
            match self.key(depth)?.and_then(K::of).filter(|&key| seen & key.bit() == 0) {
                Some(key) => {
                    seen |= key.bit();
                    read(self, key)?;
                }
                None => self.skip(depth)?,
            }
        }
        Ok(())
    }

    /// The whole document: `None` if it is not a map. Bytes after it are not read (rmpv
    /// reads one value too).
    fn document(&mut self) -> std::result::Result<Option<Root>, Malformed> {
        let (head, depth) = self.head(MAX_DEPTH)?;
        let Head::Map(entries) = head else {
            self.elements(head, depth)?;
            return Ok(None);
        };
        let mut root = Root { version: None, target: None, kernels: Kernels::Absent };
        self.map(entries, depth, |r, key| {
            match key {
                RootKey::Version => root.version = r.version(depth)?,
                RootKey::Target => root.target = string(r.scalar(depth)?),
                RootKey::Kernels => root.kernels = r.kernels(depth)?,
            }
            Ok(())
        })?;
        Ok(Some(root))
    }

    /// `[major, minor]`, both unsigned; anything else is no version.
    fn version(&mut self, depth: u16) -> std::result::Result<Option<(u64, u64)>, Malformed> {
        let (head, inner) = self.head(depth)?;
        if let Head::Array(2) = head {
            if let (Head::Unsigned(major), Head::Unsigned(minor)) = (self.scalar(inner)?, self.scalar(inner)?) {
                return Ok(Some((major, minor)));
            }
            return Ok(None);
        }
        self.elements(head, inner)?;
        Ok(None)
    }

    fn kernels(&mut self, depth: u16) -> std::result::Result<Kernels, Malformed> {
        let (head, inner) = self.head(depth)?;
        let Head::Array(n) = head else {
            self.elements(head, inner)?;
            return Ok(Kernels::NotAnArray);
        };
        let mut kernels = Vec::with_capacity(n.min(self.bytes.len()));
        let mut not_a_map = None;
        for index in 0..n {
            match self.kernel(inner)? {
                Some(k) => kernels.push(k),
                None => {
                    not_a_map.get_or_insert(index);
                }
            }
        }
        Ok(not_a_map.map_or(Kernels::Listed(kernels), Kernels::NotAMap))
    }

    /// One kernel's map (`None`, read through, if it is no map).
    fn kernel(&mut self, depth: u16) -> std::result::Result<Option<KernelMetadata>, Malformed> {
        let (head, inner) = self.head(depth)?;
        let Head::Map(entries) = head else {
            self.elements(head, inner)?;
            return Ok(None);
        };
        let mut k = KernelMetadata::default();
        self.map(entries, inner, |r, key| {
            if let KernelKey::Args = key {
                k.args = r.args(inner)?;
                return Ok(());
            }
            let value = r.scalar(inner)?;
            let number = unsigned(value);
            match key {
                KernelKey::Name => k.name = string(value).unwrap_or_default(),
                KernelKey::Symbol => k.symbol = string(value).unwrap_or_default(),
                KernelKey::VgprCount => k.vgpr_count = number,
                KernelKey::SgprCount => k.sgpr_count = number,
                KernelKey::AgprCount => k.agpr_count = number,
                KernelKey::VgprSpillCount => k.vgpr_spill_count = number,
                KernelKey::SgprSpillCount => k.sgpr_spill_count = number,
                KernelKey::KernargSegmentSize => k.kernarg_segment_size = number,
                KernelKey::KernargSegmentAlign => k.kernarg_segment_align = number,
                KernelKey::GroupSegmentFixedSize => k.group_segment_fixed_size = number,
                KernelKey::PrivateSegmentFixedSize => k.private_segment_fixed_size = number,
                KernelKey::WavefrontSize => k.wavefront_size = number,
                KernelKey::MaxFlatWorkgroupSize => k.max_flat_workgroup_size = number,
                KernelKey::UsesDynamicStack => k.uses_dynamic_stack = if let Head::Bool(b) = value { Some(b) } else { None },
                KernelKey::Args => unreachable!("read above"),
            }
            Ok(())
        })?;
        Ok(Some(k))
    }

    /// A kernel's `.args`: the maps of an array (other entries, and a non-array, give none).
    fn args(&mut self, depth: u16) -> std::result::Result<Vec<KernelArg>, Malformed> {
        let (head, inner) = self.head(depth)?;
        let Head::Array(n) = head else {
            self.elements(head, inner)?;
            return Ok(Vec::new());
        };
        let mut args = Vec::with_capacity(n.min(self.bytes.len()));
        for _ in 0..n {
            let (head, depth) = self.head(inner)?;
            let Head::Map(entries) = head else {
                self.elements(head, depth)?;
                continue;
            };
            let mut arg = KernelArg::default();
            self.map(entries, depth, |r, key| {
                let value = r.scalar(depth)?;
                match key {
                    ArgKey::Name => arg.name = string(value),
                    ArgKey::TypeName => arg.type_name = string(value),
                    ArgKey::Size => arg.size = unsigned(value),
                    ArgKey::Offset => arg.offset = unsigned(value),
                    ArgKey::ValueKind => arg.value_kind = string(value),
                    ArgKey::AddressSpace => arg.address_space = string(value),
                    ArgKey::Access => arg.access = string(value),
                }
                Ok(())
            })?;
            args.push(arg);
        }
        Ok(args)
    }
}

/// The keys of a map the typed view reads, each with its bit in a set of keys seen.
trait MapKey: Copy {
    fn of(key: &[u8]) -> Option<Self>;

    fn bit(self) -> u32;
}

/// The keys of the document's map that the typed view reads.
#[derive(Clone, Copy)]
enum RootKey {
    Version,
    Target,
    Kernels,
}

impl MapKey for RootKey {
    fn of(key: &[u8]) -> Option<RootKey> {
        Some(match key {
            b"amdhsa.version" => RootKey::Version,
            b"amdhsa.target" => RootKey::Target,
            b"amdhsa.kernels" => RootKey::Kernels,
            _ => return None,
        })
    }

    fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// The keys of a kernel's map that [`KernelMetadata`] holds.
#[derive(Clone, Copy)]
enum KernelKey {
    Name,
    Symbol,
    VgprCount,
    SgprCount,
    AgprCount,
    VgprSpillCount,
    SgprSpillCount,
    KernargSegmentSize,
    KernargSegmentAlign,
    GroupSegmentFixedSize,
    PrivateSegmentFixedSize,
    WavefrontSize,
    MaxFlatWorkgroupSize,
    UsesDynamicStack,
    Args,
}

impl MapKey for KernelKey {
    fn of(key: &[u8]) -> Option<KernelKey> {
        Some(match key {
            b".name" => KernelKey::Name,
            b".symbol" => KernelKey::Symbol,
            b".vgpr_count" => KernelKey::VgprCount,
            b".sgpr_count" => KernelKey::SgprCount,
            b".agpr_count" => KernelKey::AgprCount,
            b".vgpr_spill_count" => KernelKey::VgprSpillCount,
            b".sgpr_spill_count" => KernelKey::SgprSpillCount,
            b".kernarg_segment_size" => KernelKey::KernargSegmentSize,
            b".kernarg_segment_align" => KernelKey::KernargSegmentAlign,
            b".group_segment_fixed_size" => KernelKey::GroupSegmentFixedSize,
            b".private_segment_fixed_size" => KernelKey::PrivateSegmentFixedSize,
            b".wavefront_size" => KernelKey::WavefrontSize,
            b".max_flat_workgroup_size" => KernelKey::MaxFlatWorkgroupSize,
            b".uses_dynamic_stack" => KernelKey::UsesDynamicStack,
            b".args" => KernelKey::Args,
            _ => return None,
        })
    }

    fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// The keys of an argument's map that [`KernelArg`] holds.
#[derive(Clone, Copy)]
enum ArgKey {
    Name,
    TypeName,
    Size,
    Offset,
    ValueKind,
    AddressSpace,
    Access,
}

impl MapKey for ArgKey {
    fn of(key: &[u8]) -> Option<ArgKey> {
        Some(match key {
            b".name" => ArgKey::Name,
            b".type_name" => ArgKey::TypeName,
            b".size" => ArgKey::Size,
            b".offset" => ArgKey::Offset,
            b".value_kind" => ArgKey::ValueKind,
            b".address_space" => ArgKey::AddressSpace,
            b".access" => ArgKey::Access,
            _ => return None,
        })
    }

    fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// An integer as `Value::as_u64` gave it: only one that is not negative.
fn unsigned(head: Head<'_>) -> Option<u64> {
    match head {
        Head::Unsigned(n) => Some(n),
        _ => None,
    }
}

/// A string value as `Value::as_str` gave it: only valid UTF-8.
fn string(head: Head<'_>) -> Option<String> {
    match head {
        Head::Str(s) => std::str::from_utf8(s).ok().map(str::to_owned),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document() -> Vec<u8> {
        let kernel = Value::Map(vec![
            (".name".into(), "k".into()),
            (".symbol".into(), "k.kd".into()),
            (".vgpr_count".into(), 12.into()),
            (".sgpr_count".into(), 20.into()),
            (".vendor_specific_future_key".into(), Value::Boolean(true)),
            (
                ".args".into(),
                Value::Array(vec![Value::Map(vec![
                    (".size".into(), 8.into()),
                    (".offset".into(), 0.into()),
                    (".value_kind".into(), "global_buffer".into()),
                ])]),
            ),
        ]);
        let root = Value::Map(vec![
            (
                "amdhsa.version".into(),
                Value::Array(vec![1.into(), 2.into()]),
            ),
            ("amdhsa.kernels".into(), Value::Array(vec![kernel])),
        ]);
        let mut out = Vec::new();
        rmpv::encode::write_value(&mut out, &root).unwrap();
        out
    }

    #[test]
    fn typed_view_and_unknown_keys_survive() {
        let bytes = document();
        let m = Metadata::parse(&bytes, 0).unwrap();
        assert_eq!(m.version, Some((1, 2)));
        let k = m.kernel("k").unwrap();
        assert_eq!(
            (k.vgpr_count, k.sgpr_count, k.agpr_count),
            (Some(12), Some(20), None)
        );
        assert_eq!(k.args[0].value_kind.as_deref(), Some("global_buffer"));
        assert_eq!(
            m.to_msgpack(),
            bytes,
            "unknown key .vendor_specific_future_key must be written back"
        );
    }

    /// Version, target and kernels.
    type Typed = (Option<(u64, u64)>, Option<String>, Vec<KernelMetadata>);

    /// What `Metadata::parse` read when it looked keys up in rmpv's decoded tree: the
    /// oracle the borrowing reader must agree with, result and error alike.
    fn looked_up(desc: &[u8]) -> std::result::Result<Typed, String> {
        let fail = |what, detail: String| Err(ReadError::malformed(what, 0x40, detail).to_string());
        let document = match rmpv::decode::read_value(&mut &desc[..]) {
            Ok(d) => d,
            Err(e) => return fail("NT_AMDGPU_METADATA msgpack", e.to_string()),
        };
        let get = |map: &[(Value, Value)], key: &str| map.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v.clone());
        let get_str = |map: &[(Value, Value)], key: &str| get(map, key).and_then(|v| v.as_str().map(str::to_owned));
        let Some(root) = document.as_map() else { return fail("NT_AMDGPU_METADATA", "the document is not a map".into()) };
        let version = get(root, "amdhsa.version").and_then(|v| match v.as_array()?.as_slice() {
            [major, minor] => Some((major.as_u64()?, minor.as_u64()?)),
            _ => None,
        });
        let mut kernels = Vec::new();
        match get(root, "amdhsa.kernels") {
            None => {}
            Some(Value::Array(list)) => {
                for (i, k) in list.iter().enumerate() {
                    let Some(map) = k.as_map() else { return fail("NT_AMDGPU_METADATA", format!("amdhsa.kernels[{i}] is not a map")) };
                    let u = |key| get(map, key).and_then(|v| v.as_u64());
                    let args = match get(map, ".args") {
                        Some(Value::Array(args)) => args
                            .iter()
                            .filter_map(Value::as_map)
                            .map(|a| KernelArg {
                                name: get_str(a, ".name"),
                                type_name: get_str(a, ".type_name"),
                                size: get(a, ".size").and_then(|v| v.as_u64()),
                                offset: get(a, ".offset").and_then(|v| v.as_u64()),
                                value_kind: get_str(a, ".value_kind"),
                                address_space: get_str(a, ".address_space"),
                                access: get_str(a, ".access"),
                            })
                            .collect(),
                        _ => Vec::new(),
                    };
                    kernels.push(KernelMetadata {
                        name: get_str(map, ".name").unwrap_or_default(),
                        symbol: get_str(map, ".symbol").unwrap_or_default(),
                        vgpr_count: u(".vgpr_count"),
                        sgpr_count: u(".sgpr_count"),
                        agpr_count: u(".agpr_count"),
                        vgpr_spill_count: u(".vgpr_spill_count"),
                        sgpr_spill_count: u(".sgpr_spill_count"),
                        kernarg_segment_size: u(".kernarg_segment_size"),
                        kernarg_segment_align: u(".kernarg_segment_align"),
                        group_segment_fixed_size: u(".group_segment_fixed_size"),
                        private_segment_fixed_size: u(".private_segment_fixed_size"),
                        wavefront_size: u(".wavefront_size"),
                        max_flat_workgroup_size: u(".max_flat_workgroup_size"),
                        uses_dynamic_stack: get(map, ".uses_dynamic_stack").and_then(|v| v.as_bool()),
                        args,
                    });
                }
            }
            Some(_) => return fail("NT_AMDGPU_METADATA", "amdhsa.kernels is not an array".into()),
        }
        Ok((version, get_str(root, "amdhsa.target"), kernels))
    }

    fn agrees(desc: &[u8], what: &str) {
        let read = Metadata::parse(desc, 0x40).map(|m| (m.version, m.target, m.kernels)).map_err(|e| e.to_string());
        assert_eq!(read, looked_up(desc), "{what}: {desc:02x?}");
    }

    fn encode(v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        rmpv::encode::write_value(&mut out, v).unwrap();
        out
    }

    #[test]
    fn reader_agrees_with_a_lookup_in_rmpvs_tree() {
        let odd_kernel = Value::Map(vec![
            (".name".into(), Value::Binary(b"k".to_vec())),
            (".name".into(), "second name is not read".into()),
            (".vgpr_count".into(), Value::from(-3)),
            (".sgpr_count".into(), Value::F64(4.0)),
            (".agpr_count".into(), Value::from(u64::MAX)),
            (7.into(), "an integer key".into()),
            (".uses_dynamic_stack".into(), Value::Ext(3, vec![1, 2, 3])),
            (".wavefront_size".into(), Value::Array(vec![64.into()])),
            (".args".into(), Value::Array(vec![Value::Nil, Value::Map(vec![(".size".into(), Value::from(-1)), (".name".into(), Value::F32(1.0))]), Value::Map(vec![])])),
            (".args".into(), Value::Array(vec![])),
            ("x".repeat(300).into(), Value::Array((0..40).map(Value::from).collect())),
        ]);
        let documents = [
            Value::Map(vec![]),
            Value::Map(vec![("amdhsa.version".into(), Value::Array(vec![1.into()])), ("amdhsa.version".into(), Value::Array(vec![1.into(), 2.into()]))]),
            Value::Map(vec![("amdhsa.version".into(), Value::Array(vec![1.into(), Value::from(-2)]))]),
            Value::Map(vec![("amdhsa.target".into(), Value::from(5)), ("amdhsa.kernels".into(), Value::Array(vec![odd_kernel.clone(), odd_kernel.clone()]))]),
            Value::Map(vec![("amdhsa.kernels".into(), Value::Map(vec![])), ("amdhsa.kernels".into(), Value::Array(vec![]))]),
            Value::Map(vec![("amdhsa.kernels".into(), Value::Array(vec![odd_kernel.clone(), 1.into(), Value::Nil]))]),
            Value::Map((0..20).map(|i| (Value::from(format!("k{i}")), Value::from(i))).collect()),
            Value::Array(vec![Value::Map(vec![])]),
            Value::from("a string"),
        ];
        for (i, d) in documents.iter().enumerate() {
            let bytes = encode(d);
            agrees(&bytes, &format!("document {i}"));
            for end in 0..bytes.len() {
                agrees(&bytes[..end], &format!("document {i} cut at {end}"));
            }
        }
        // Markers rmpv reads without encoding them: reserved (nil), str16/array16/map16 of few.
        agrees(&[0x81, 0xa1, b'k', 0xc1], "a reserved marker is nil");
        agrees(&[0x81, 0xad, b'a', b'm', b'd', b'h', b's', b'a', b'.', b't', b'a', b'r', b'g', b'e', b't', 0xda, 0, 1, 0xff], "invalid UTF-8 is no string");
        agrees(&[0xde, 0, 1, 0xda, 0, 1, b'x', 0xdc, 0, 1, 0xd0, 0x05], "long forms of short containers");
        agrees(&[0x81, 0xa1, b'x', 0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0], "i64 minimum");
        // Nesting around rmpv's depth limit: accepted and refused alike.
        for levels in 300..=520 {
            let mut bytes = vec![0x81, 0xa1, b'x'];
            bytes.extend(std::iter::repeat_n(0x91, levels));
            bytes.extend([0xa1, b'y']);
            agrees(&bytes, &format!("{levels} nested arrays and a string"));
            let mut ext = bytes[..bytes.len() - 2].to_vec();
            ext.extend([0xd4, 1, 0]);
            agrees(&ext, &format!("{levels} nested arrays and an ext"));
        }
    }

    #[test]
    fn reader_agrees_on_every_fixture() {
        let mut notes = 0;
        for dir in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/co")).unwrap() {
            for file in std::fs::read_dir(dir.unwrap().path()).unwrap() {
                let data = std::fs::read(file.unwrap().path()).unwrap();
                let Ok(object) = crate::container::CodeObject::parse(&data) else { continue };
                let Some((offset, len)) = object.metadata_range else { continue };
                agrees(&data[offset as usize..(offset + len) as usize], "fixture");
                notes += 1;
            }
        }
        assert!(notes >= 16, "only {notes} fixture notes read");
    }

    #[test]
    fn garbage_is_an_error_with_offset() {
        let e = Metadata::parse(&[0xc1], 0x40).unwrap_err();
        assert!(e.to_string().contains("offset 0x40"), "{e}");
        let e = Metadata::parse(&[0x01], 0x40).unwrap_err();
        assert!(e.to_string().contains("not a map"), "{e}");
    }
}
