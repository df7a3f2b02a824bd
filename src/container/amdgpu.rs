//! AMDGPU ELF constants, defined once (AMDGPUUsage, "ELF Code Object").

/// `e_machine` of every AMDGPU code object.
pub const EM_AMDGPU: u16 = 224;
/// `e_ident[EI_OSABI]` of HSA code objects.
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// `e_ident[EI_OSABI]` of PAL code objects (graphics drivers).
pub const ELFOSABI_AMDGPU_PAL: u8 = 65;
/// `e_ident[EI_OSABI]` of Mesa3D code objects.
pub const ELFOSABI_AMDGPU_MESA3D: u8 = 66;

/// `e_ident[EI_ABIVERSION]` values for HSA code objects.
pub const ELFABIVERSION_AMDGPU_HSA_V2: u8 = 0;
pub const ELFABIVERSION_AMDGPU_HSA_V3: u8 = 1;
pub const ELFABIVERSION_AMDGPU_HSA_V4: u8 = 2;
pub const ELFABIVERSION_AMDGPU_HSA_V5: u8 = 3;
pub const ELFABIVERSION_AMDGPU_HSA_V6: u8 = 4;

/// `e_flags`: processor selection (`EF_AMDGPU_MACH_*`, see [`crate::isa::processor`]).
pub const EF_AMDGPU_MACH: u32 = 0x0ff;
/// `e_flags`, code object v3: xnack enabled.
pub const EF_AMDGPU_FEATURE_XNACK_V3: u32 = 0x100;
/// `e_flags`, code object v3: sramecc enabled.
pub const EF_AMDGPU_FEATURE_SRAMECC_V3: u32 = 0x200;
/// `e_flags`, code object v4+: xnack selection mask and values.
pub const EF_AMDGPU_FEATURE_XNACK_V4: u32 = 0x300;
pub const EF_AMDGPU_FEATURE_XNACK_UNSUPPORTED_V4: u32 = 0x000;
pub const EF_AMDGPU_FEATURE_XNACK_ANY_V4: u32 = 0x100;
pub const EF_AMDGPU_FEATURE_XNACK_OFF_V4: u32 = 0x200;
pub const EF_AMDGPU_FEATURE_XNACK_ON_V4: u32 = 0x300;
/// `e_flags`, code object v4+: sramecc selection mask and values.
pub const EF_AMDGPU_FEATURE_SRAMECC_V4: u32 = 0xc00;
pub const EF_AMDGPU_FEATURE_SRAMECC_UNSUPPORTED_V4: u32 = 0x000;
pub const EF_AMDGPU_FEATURE_SRAMECC_ANY_V4: u32 = 0x400;
pub const EF_AMDGPU_FEATURE_SRAMECC_OFF_V4: u32 = 0x800;
pub const EF_AMDGPU_FEATURE_SRAMECC_ON_V4: u32 = 0xc00;
/// `e_flags`, code object v6+: generic code object version (1..255) in the top byte.
pub const EF_AMDGPU_GENERIC_VERSION: u32 = 0xff00_0000;
pub const EF_AMDGPU_GENERIC_VERSION_OFFSET: u32 = 24;

/// Note type of the msgpack metadata note (owner `AMDGPU`), code object v3+.
pub const NT_AMDGPU_METADATA: u32 = 32;
/// Note owner name of AMDGPU notes.
pub const NOTE_OWNER_AMDGPU: &[u8] = b"AMDGPU";
/// Note type of the legacy PAL metadata note (owner `AMD`): `(key, value)` u32 pairs.
pub const NT_AMD_PAL_METADATA: u32 = 12;
/// Note owner name of the older AMD notes.
pub const NOTE_OWNER_AMD: &[u8] = b"AMD";

/// Relocation types (AMDGPUUsage, "Relocation Records").
pub const R_AMDGPU_NONE: u32 = 0;
pub const R_AMDGPU_ABS32_LO: u32 = 1;
pub const R_AMDGPU_ABS32_HI: u32 = 2;
pub const R_AMDGPU_ABS64: u32 = 3;
pub const R_AMDGPU_REL32: u32 = 4;
pub const R_AMDGPU_REL64: u32 = 5;
pub const R_AMDGPU_ABS32: u32 = 6;
pub const R_AMDGPU_GOTPCREL: u32 = 7;
pub const R_AMDGPU_GOTPCREL32_LO: u32 = 8;
pub const R_AMDGPU_GOTPCREL32_HI: u32 = 9;
pub const R_AMDGPU_REL32_LO: u32 = 10;
pub const R_AMDGPU_REL32_HI: u32 = 11;
pub const R_AMDGPU_RELATIVE64: u32 = 13;
pub const R_AMDGPU_REL16: u32 = 14;

/// Name of a relocation type, for dumps and error messages.
pub fn relocation_name(r_type: u32) -> Option<&'static str> {
    Some(match r_type {
        R_AMDGPU_NONE => "R_AMDGPU_NONE",
        R_AMDGPU_ABS32_LO => "R_AMDGPU_ABS32_LO",
        R_AMDGPU_ABS32_HI => "R_AMDGPU_ABS32_HI",
        R_AMDGPU_ABS64 => "R_AMDGPU_ABS64",
        R_AMDGPU_REL32 => "R_AMDGPU_REL32",
        R_AMDGPU_REL64 => "R_AMDGPU_REL64",
        R_AMDGPU_ABS32 => "R_AMDGPU_ABS32",
        R_AMDGPU_GOTPCREL => "R_AMDGPU_GOTPCREL",
        R_AMDGPU_GOTPCREL32_LO => "R_AMDGPU_GOTPCREL32_LO",
        R_AMDGPU_GOTPCREL32_HI => "R_AMDGPU_GOTPCREL32_HI",
        R_AMDGPU_REL32_LO => "R_AMDGPU_REL32_LO",
        R_AMDGPU_REL32_HI => "R_AMDGPU_REL32_HI",
        R_AMDGPU_RELATIVE64 => "R_AMDGPU_RELATIVE64",
        R_AMDGPU_REL16 => "R_AMDGPU_REL16",
        _ => return None,
    })
}

/// Size of one kernel descriptor (`NAME.kd`), every generation.
pub const KERNEL_DESCRIPTOR_SIZE: usize = 64;
/// Kernel entry points must be aligned to this many bytes.
pub const KERNEL_ENTRY_ALIGN: u64 = 256;

/// Magic of an uncompressed clang offload bundle.
pub const OFFLOAD_BUNDLE_MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
/// Magic of a compressed clang offload bundle.
pub const COMPRESSED_BUNDLE_MAGIC: &[u8; 4] = b"CCOB";
/// Section of a host ELF that holds the concatenated offload bundles of HIP programs.
pub const HIP_FATBIN_SECTION: &str = ".hip_fatbin";
