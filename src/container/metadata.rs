//! The `NT_AMDGPU_METADATA` note: a msgpack map (`amdhsa.version`, `amdhsa.target`,
//! `amdhsa.kernels`, ...), code object v3+.
//!
//! The whole document is kept as an [`rmpv::Value`], unknown keys and all; the typed structs
//! are views read out of it. Writing back re-encodes the document, and a test checks that an
//! unmodified document re-encodes to the note's exact bytes on every fixture.

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
    /// The complete document as decoded.
    pub document: Value,
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
        let mut reader = desc;
        let document = rmpv::decode::read_value(&mut reader).map_err(|e| {
            ReadError::malformed("NT_AMDGPU_METADATA msgpack", offset, e.to_string())
        })?;
        let root = document.as_map().ok_or_else(|| {
            ReadError::malformed("NT_AMDGPU_METADATA", offset, "the document is not a map")
        })?;
        let version = get(root, "amdhsa.version")
            .and_then(Value::as_array)
            .and_then(|v| match v.as_slice() {
                [major, minor] => Some((major.as_u64()?, minor.as_u64()?)),
                _ => None,
            });
        let target = get_str(root, "amdhsa.target");
        let kernels = match get(root, "amdhsa.kernels") {
            None => Vec::new(),
            Some(Value::Array(kernels)) => kernels
                .iter()
                .enumerate()
                .map(|(i, k)| KernelMetadata::from_value(k, i, offset))
                .collect::<Result<_>>()?,
            Some(_) => {
                return Err(ReadError::malformed(
                    "NT_AMDGPU_METADATA",
                    offset,
                    "amdhsa.kernels is not an array",
                ));
            }
        };
        Ok(Metadata {
            version,
            target,
            kernels,
            document,
        })
    }

    /// The document encoded as msgpack again.
    pub fn to_msgpack(&self) -> Vec<u8> {
        let mut out = Vec::new();
        rmpv::encode::write_value(&mut out, &self.document).expect("writing to a Vec cannot fail");
        out
    }

    pub fn kernel(&self, name: &str) -> Option<&KernelMetadata> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

impl KernelMetadata {
    fn from_value(value: &Value, index: usize, offset: u64) -> Result<KernelMetadata> {
        let map = value.as_map().ok_or_else(|| {
            ReadError::malformed(
                "NT_AMDGPU_METADATA",
                offset,
                format!("amdhsa.kernels[{index}] is not a map"),
            )
        })?;
        let u = |key| get(map, key).and_then(Value::as_u64);
        let args = match get(map, ".args") {
            Some(Value::Array(args)) => args
                .iter()
                .filter_map(Value::as_map)
                .map(|a| KernelArg::from_map(a))
                .collect(),
            _ => Vec::new(),
        };
        Ok(KernelMetadata {
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
            uses_dynamic_stack: get(map, ".uses_dynamic_stack").and_then(Value::as_bool),
            args,
        })
    }
}

impl KernelArg {
    fn from_map(map: &[(Value, Value)]) -> KernelArg {
        KernelArg {
            name: get_str(map, ".name"),
            type_name: get_str(map, ".type_name"),
            size: get(map, ".size").and_then(Value::as_u64),
            offset: get(map, ".offset").and_then(Value::as_u64),
            value_kind: get_str(map, ".value_kind"),
            address_space: get_str(map, ".address_space"),
            access: get_str(map, ".access"),
        }
    }
}

fn get<'v>(map: &'v [(Value, Value)], key: &str) -> Option<&'v Value> {
    map.iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

fn get_str(map: &[(Value, Value)], key: &str) -> Option<String> {
    get(map, key).and_then(Value::as_str).map(str::to_owned)
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

    #[test]
    fn garbage_is_an_error_with_offset() {
        let e = Metadata::parse(&[0xc1], 0x40).unwrap_err();
        assert!(e.to_string().contains("offset 0x40"), "{e}");
        let e = Metadata::parse(&[0x01], 0x40).unwrap_err();
        assert!(e.to_string().contains("not a map"), "{e}");
    }
}
