//! Which of LLVM's instruction predicates hold for a processor and mode.
//!
//! Every encoding record carries LLVM's predicates (`isGFX9Plus`, `HasDot1Insts`, `isWave32`,
//! ...). LLVM's generated disassembler (`checkDecoderPredicate`) tests the ones that are
//! `AssemblerPredicate`s against the subtarget's features, so an encoding decodes on a processor
//! exactly when those hold. This module reproduces that: [`features`] gives a processor's
//! subtarget features as LLVM builds them for `-mcpu=<name>` (`GCNProcessors.td` and the
//! `FeatureISAVersion*` sets of `AMDGPU.td`), [`holds`] evaluates each predicate's
//! `AssemblerPredicate` condition over those features and the mode (wave size, real/fake
//! true16), and [`checked_by_decoder`] says which predicates the decoder tests at all.
//!
//! # Which LLVM
//!
//! LLVM 19.1.7 for every processor it knows; LLVM 22.1.8 for gfx950, gfx1250 and gfx1251
//! ([`llvm_version`]). The feature lists were taken from the two LLVMs' own
//! `createMCSubtargetInfo(-mcpu)` (the call `llvm-mc` makes), restricted to the features some
//! predicate reads. Two processors LLVM 19 does not know are generalised from their nearest
//! LLVM 19 sibling, following how LLVM 22 defines them: gfx1153 = gfx1152 (LLVM 22 differs only in
//! `point-sample-accel`, which no predicate reads) and gfx9-4-generic = gfx942 without the FP8
//! conversion instructions. GFX6/GFX7 lists are LLVM 19's too, but LLVM cannot disassemble
//! them (`Disassembly not yet supported for subtarget`), so their predicate values are
//! derived, not observed. R600 processors have no GCN features and no predicate holds for them.
//!
//! LLVM 22 split some instructions LLVM 19 gates on the generation alone into features of their
//! own (`cube-insts`, `sad-insts`, `cvt-norm-insts`, `dot12-insts`, `lshl-add-u64-inst`, ...).
//! A feature LLVM 19 does not define is taken from LLVM 22 for the LLVM 19 processors too, so
//! the predicates only LLVM 22's records carry still mean what LLVM 22 says on every processor
//! (`HasCubeInsts` holds on gfx1100, `HasLshlAddU64Inst` on gfx942). LLVM 19's records never
//! read these features, so this changes nothing LLVM 19 decodes.
//!
//! # Verification
//!
//! Every encoding record of both LLVMs was assembled from its fixed bits (operand fields zero)
//! and disassembled with LLVM's own disassembler for each GFX8+ processor, in wave32, wave64
//! and real-true16 modes. For every record LLVM accepted, all its checked predicates hold here;
//! and no record that LLVM rejects on one processor but accepts on a sibling of the same
//! generation is accepted here. The unit tests keep a table of such observations.
//!
//! # Modes
//!
//! - Wave size: GFX10+ default to wave32 (LLVM sets `wavefrontsize32` when neither size is
//!   requested); [`PredContext::wave64`] selects wave64 there. Before GFX10 only wave64 exists
//!   and the flag is ignored. gfx1250/gfx1251 list `wavefrontsize32` among their own features,
//!   so `isWave32` holds there even in wave64 mode (as with `-mattr=+wavefrontsize64`).
//! - True16: LLVM 19 and LLVM 22's gfx12/gfx1250 disassemble in fake16 mode unless
//!   `+real-true16` is given (LLVM 22 does default gfx11 to real-true16, but gfx11 uses
//!   LLVM 19 here). [`PredContext::new`] picks these defaults.

use std::sync::OnceLock;

use super::processor::{Generation, PROCESSORS, Processor};
use super::table::Pred;
use super::target::Target;

/// What a predicate is evaluated against.
#[derive(Clone, Copy, Debug)]
pub struct PredContext {
    pub processor: &'static Processor,
    /// Wave64 mode. Only meaningful from GFX10 on; earlier processors are always wave64.
    pub wave64: bool,
    /// Real-true16 mode (`-mattr=+real-true16`): 16-bit operands name register halves.
    pub real_true16: bool,
}

impl PredContext {
    /// The mode LLVM disassembles `-mcpu=<processor>` in when given no `-mattr`: wave32 from
    /// GFX10 on (wave64 before), fake16.
    pub fn new(processor: &'static Processor) -> PredContext {
        PredContext {
            processor,
            wave64: !processor.generation.is_gfx10_plus(),
            real_true16: false,
        }
    }

    /// The mode `target` decodes in.
    pub fn of(target: &Target) -> PredContext {
        PredContext { processor: target.processor, wave64: target.wave64, real_true16: target.real_true16 }
    }
}

/// The LLVM release whose predicate semantics apply to a processor: 22 for GFX950 and GFX1250
/// (which LLVM 19 does not know), 19 otherwise.
pub fn llvm_version(processor: &Processor) -> u8 {
    match processor.generation {
        Generation::Gfx950 | Generation::Gfx1250 => 22,
        _ => 19,
    }
}

macro_rules! features {
    ($($id:ident = $record:literal, $attr:literal;)*) => {
        /// An LLVM subtarget feature (`Feature*` record of `AMDGPU.td`) that some predicate reads.
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[repr(u8)]
        pub enum Feature {
            $(#[doc = concat!("`", $record, "` (`", $attr, "`)")] $id,)*
        }

        impl Feature {
            /// Every feature, in declaration order.
            pub const ALL: &'static [Feature] = &[$(Feature::$id,)*];

            /// The TableGen record name, e.g. `FeatureGFX9Insts`.
            pub fn record_name(self) -> &'static str {
                match self {
                    $(Feature::$id => $record,)*
                }
            }

            /// The name `-mattr` and `llc -mattr=help` use, e.g. `gfx9-insts`.
            pub fn llvm_name(self) -> &'static str {
                match self {
                    $(Feature::$id => $attr,)*
                }
            }
        }
    };
}

features! {
    SouthernIslands = "FeatureSouthernIslands", "southern-islands";
    SeaIslands = "FeatureSeaIslands", "sea-islands";
    VolcanicIslands = "FeatureVolcanicIslands", "volcanic-islands";
    GFX9 = "FeatureGFX9", "gfx9";
    GFX10 = "FeatureGFX10", "gfx10";
    GFX11 = "FeatureGFX11", "gfx11";
    GFX12 = "FeatureGFX12", "gfx12";
    GCN3Encoding = "FeatureGCN3Encoding", "gcn3-encoding";
    CIInsts = "FeatureCIInsts", "ci-insts";
    GFX7GFX8GFX9Insts = "FeatureGFX7GFX8GFX9Insts", "gfx7-gfx8-gfx9-insts";
    GFX8Insts = "FeatureGFX8Insts", "gfx8-insts";
    GFX9Insts = "FeatureGFX9Insts", "gfx9-insts";
    GFX90AInsts = "FeatureGFX90AInsts", "gfx90a-insts";
    GFX940Insts = "FeatureGFX940Insts", "gfx940-insts";
    GFX950Insts = "FeatureGFX950Insts", "gfx950-insts";
    GFX10Insts = "FeatureGFX10Insts", "gfx10-insts";
    GFX10_3Insts = "FeatureGFX10_3Insts", "gfx10-3-insts";
    GFX10_AEncoding = "FeatureGFX10_AEncoding", "gfx10_a-encoding";
    GFX10_BEncoding = "FeatureGFX10_BEncoding", "gfx10_b-encoding";
    GFX11Insts = "FeatureGFX11Insts", "gfx11-insts";
    GFX12Insts = "FeatureGFX12Insts", "gfx12-insts";
    GFX1250Insts = "FeatureGFX1250Insts", "gfx1250-insts";
    WavefrontSize32 = "FeatureWavefrontSize32", "wavefrontsize32";
    WavefrontSize64 = "FeatureWavefrontSize64", "wavefrontsize64";
    LDSBankCount16 = "FeatureLDSBankCount16", "ldsbankcount16";
    LDSBankCount32 = "FeatureLDSBankCount32", "ldsbankcount32";
    _16BitInsts = "Feature16BitInsts", "16-bit-insts";
    True16BitInsts = "FeatureTrue16BitInsts", "true16";
    RealTrue16Insts = "FeatureRealTrue16Insts", "real-true16";
    VOP3P = "FeatureVOP3P", "vop3p";
    SDWA = "FeatureSDWA", "sdwa";
    DPP = "FeatureDPP", "dpp";
    DPALU_DPP = "FeatureDPALU_DPP", "dpp-64bit";
    Movrel = "FeatureMovrel", "movrel";
    VGPRIndexMode = "FeatureVGPRIndexMode", "vgpr-index-mode";
    FlatAddressSpace = "FeatureFlatAddressSpace", "flat-address-space";
    FlatGlobalInsts = "FeatureFlatGlobalInsts", "flat-global-insts";
    FlatScratchInsts = "FeatureFlatScratchInsts", "flat-scratch-insts";
    ScalarFlatScratchInsts = "FeatureScalarFlatScratchInsts", "scalar-flat-scratch-insts";
    FlatGVSMode = "FeatureFlatGVSMode", "flat-gvs-mode";
    ScalarStores = "FeatureScalarStores", "scalar-stores";
    ScalarAtomics = "FeatureScalarAtomics", "scalar-atomics";
    ScalarDwordx3Loads = "FeatureScalarDwordx3Loads", "scalar-dwordx3-loads";
    SMemRealTime = "FeatureSMemRealTime", "s-memrealtime";
    SMemTimeInst = "FeatureSMemTimeInst", "s-memtime-inst";
    AddNoCarryInsts = "FeatureAddNoCarryInsts", "add-no-carry-insts";
    UnpackedD16VMem = "FeatureUnpackedD16VMem", "unpacked-d16-vmem";
    ImageInsts = "FeatureImageInsts", "image-insts";
    ExtendedImageInsts = "FeatureExtendedImageInsts", "extended-image-insts";
    G16 = "FeatureG16", "g16";
    MadMixInsts = "FeatureMadMixInsts", "mad-mix-insts";
    FmaMixInsts = "FeatureFmaMixInsts", "fma-mix-insts";
    FmaMixBF16Insts = "FeatureFmaMixBF16Insts", "fma-mix-bf16-insts";
    MadMacF32Insts = "FeatureMadMacF32Insts", "mad-mac-f32-insts";
    DsSrc2Insts = "FeatureDsSrc2Insts", "ds-src2-insts";
    NoSdstCMPX = "FeatureNoSdstCMPX", "no-sdst-cmpx";
    GetWaveIdInst = "FeatureGetWaveIdInst", "get-wave-id-inst";
    DLInsts = "FeatureDLInsts", "dl-insts";
    Dot1Insts = "FeatureDot1Insts", "dot1-insts";
    Dot2Insts = "FeatureDot2Insts", "dot2-insts";
    Dot3Insts = "FeatureDot3Insts", "dot3-insts";
    Dot4Insts = "FeatureDot4Insts", "dot4-insts";
    Dot5Insts = "FeatureDot5Insts", "dot5-insts";
    Dot6Insts = "FeatureDot6Insts", "dot6-insts";
    Dot7Insts = "FeatureDot7Insts", "dot7-insts";
    Dot8Insts = "FeatureDot8Insts", "dot8-insts";
    Dot9Insts = "FeatureDot9Insts", "dot9-insts";
    Dot10Insts = "FeatureDot10Insts", "dot10-insts";
    Dot11Insts = "FeatureDot11Insts", "dot11-insts";
    Dot12Insts = "FeatureDot12Insts", "dot12-insts";
    Dot13Insts = "FeatureDot13Insts", "dot13-insts";
    MAIInsts = "FeatureMAIInsts", "mai-insts";
    PkFmacF16Inst = "FeaturePkFmacF16Inst", "pk-fmac-f16-inst";
    FmacF64Inst = "FeatureFmacF64Inst", "fmacf64-inst";
    PackedFP32Ops = "FeaturePackedFP32Ops", "packed-fp32-ops";
    FP8ConversionInsts = "FeatureFP8ConversionInsts", "fp8-conversion-insts";
    FP8E5M3Insts = "FeatureFP8E5M3Insts", "fp8e5m3-insts";
    AtomicFaddRtnInsts = "FeatureAtomicFaddRtnInsts", "atomic-fadd-rtn-insts";
    AtomicFaddNoRtnInsts = "FeatureAtomicFaddNoRtnInsts", "atomic-fadd-no-rtn-insts";
    AtomicBufferGlobalPkAddF16NoRtnInsts = "FeatureAtomicBufferGlobalPkAddF16NoRtnInsts", "atomic-buffer-global-pk-add-f16-no-rtn-insts";
    AtomicBufferGlobalPkAddF16Insts = "FeatureAtomicBufferGlobalPkAddF16Insts", "atomic-buffer-global-pk-add-f16-insts";
    AtomicGlobalPkAddBF16Inst = "FeatureAtomicGlobalPkAddBF16Inst", "atomic-global-pk-add-bf16-inst";
    AtomicBufferPkAddBF16Inst = "FeatureAtomicBufferPkAddBF16Inst", "atomic-buffer-pk-add-bf16-inst";
    AtomicDsPkAdd16Insts = "FeatureAtomicDsPkAdd16Insts", "atomic-ds-pk-add-16-insts";
    AtomicFlatPkAdd16Insts = "FeatureAtomicFlatPkAdd16Insts", "atomic-flat-pk-add-16-insts";
    AtomicFMinFMaxF32GlobalInsts = "FeatureAtomicFMinFMaxF32GlobalInsts", "atomic-fmin-fmax-global-f32";
    AtomicFMinFMaxF64GlobalInsts = "FeatureAtomicFMinFMaxF64GlobalInsts", "atomic-fmin-fmax-global-f64";
    AtomicFMinFMaxF64FlatInsts = "FeatureAtomicFMinFMaxF64FlatInsts", "atomic-fmin-fmax-flat-f64";
    FlatAtomicFaddF32Inst = "FeatureFlatAtomicFaddF32Inst", "flat-atomic-fadd-f32-inst";
    FlatBufferGlobalAtomicFaddF64Inst = "FeatureFlatBufferGlobalAtomicFaddF64Inst", "flat-buffer-global-fadd-f64-inst";
    MADIntraFwdBug = "FeatureMADIntraFwdBug", "mad-intra-fwd-bug";
    SALUFloatInsts = "FeatureSALUFloatInsts", "salu-float";
    PseudoScalarTrans = "FeaturePseudoScalarTrans", "pseudo-scalar-trans";
    VGPRSingleUseHintInsts = "FeatureVGPRSingleUseHintInsts", "vgpr-singleuse-hint";
    Permlane16Swap = "FeaturePermlane16Swap", "permlane16-swap";
    AshrPkInsts = "FeatureAshrPkInsts", "ashr-pk-insts";
    CvtPkF16F32Inst = "FeatureCvtPkF16F32Inst", "cvt-pk-f16-f32-inst";
    BitOp3Insts = "FeatureBitOp3Insts", "bitop3-insts";
    PrngInst = "FeaturePrngInst", "prng-inst";
    BF16ConversionInsts = "FeatureBF16ConversionInsts", "bf16-cvt-insts";
    BF16TransInsts = "FeatureBF16TransInsts", "bf16-trans-insts";
    BF16PackedInsts = "FeatureBF16PackedInsts", "bf16-pk-insts";
    Min3Max3PKF16 = "FeatureMin3Max3PKF16", "min3-max3-pkf16";
    Minimum3Maximum3PKF16 = "FeatureMinimum3Maximum3PKF16", "minimum3-maximum3-pkf16";
    TanhInsts = "FeatureTanhInsts", "tanh-insts";
    TensorCvtLutInsts = "FeatureTensorCvtLutInsts", "tensor-cvt-lut-insts";
    TransposeLoadF4F6Insts = "FeatureTransposeLoadF4F6Insts", "transpose-load-f4f6-insts";
    VmemPrefInsts = "FeatureVmemPrefInsts", "vmem-pref-insts";
    LshlAddU64Inst = "FeatureLshlAddU64Inst", "lshl-add-u64-inst";
    AddSubU64Insts = "FeatureAddSubU64Insts", "add-sub-u64-insts";
    MadU32Inst = "FeatureMadU32Inst", "mad-u32-inst";
    AddMinMaxInsts = "FeatureAddMinMaxInsts", "add-min-max-insts";
    PkAddMinMaxInsts = "FeaturePkAddMinMaxInsts", "pk-add-min-max-insts";
    LdsBarrierArriveAtomic = "FeatureLdsBarrierArriveAtomic", "lds-barrier-arrive-atomic";
    McastLoadInsts = "FeatureMcastLoadInsts", "mcast-load-insts";
    CubeInsts = "FeatureCubeInsts", "cube-insts";
    LerpInst = "FeatureLerpInst", "lerp-inst";
    SadInsts = "FeatureSadInsts", "sad-insts";
    QsadInsts = "FeatureQsadInsts", "qsad-insts";
    CvtNormInsts = "FeatureCvtNormInsts", "cvt-norm-insts";
    CvtPkNormVOP2Insts = "FeatureCvtPkNormVOP2Insts", "cvt-pknorm-vop2-insts";
    CvtPkNormVOP3Insts = "FeatureCvtPkNormVOP3Insts", "cvt-pknorm-vop3-insts";
    IEEEMinimumMaximumInsts = "FeatureIEEEMinimumMaximumInsts", "ieee-minimum-maximum-insts";
    Minimum3Maximum3F32 = "FeatureMinimum3Maximum3F32", "minimum3-maximum3-f32";
    Minimum3Maximum3F16 = "FeatureMinimum3Maximum3F16", "minimum3-maximum3-f16";
    FP8Insts = "FeatureFP8Insts", "fp8-insts";
    XF32Insts = "FeatureXF32Insts", "xf32-insts";
    Permlane32Swap = "FeaturePermlane32Swap", "permlane32-swap";
    FP8ConversionScaleInsts = "FeatureFP8ConversionScaleInsts", "fp8-cvt-scale-insts";
    BF8ConversionScaleInsts = "FeatureBF8ConversionScaleInsts", "bf8-cvt-scale-insts";
    FP4ConversionScaleInsts = "FeatureFP4ConversionScaleInsts", "fp4-cvt-scale-insts";
    FP6BF6ConversionScaleInsts = "FeatureFP6BF6ConversionScaleInsts", "fp6bf6-cvt-scale-insts";
    F16BF16ToFP6BF6ConversionScaleInsts = "FeatureF16BF16ToFP6BF6ConversionScaleInsts", "f16bf16-to-fp6bf6-cvt-scale-insts";
    F32ToF16BF16ConversionSRInsts = "FeatureF32ToF16BF16ConversionSRInsts", "f32-to-f16bf16-cvt-sr-insts";
    AtomicCSubNoRtnInsts = "FeatureAtomicCSubNoRtnInsts", "atomic-csub-no-rtn-insts";
    _1024AddressableVGPRs = "Feature1024AddressableVGPRs", "1024-addressable-vgprs";
    WaitXcnt = "FeatureWaitXcnt", "wait-xcnt";
    SetPrioIncWgInst = "FeatureSetPrioIncWgInst", "setprio-inc-wg-inst";
    SWakeupBarrier = "FeatureSWakeupBarrier", "s-wakeup-barrier-inst";
}

/// A set of [`Feature`]s as a bit mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
struct Features([u64; 4]);

impl Features {
    const fn of(list: &[Feature]) -> Features {
        let mut bits = [0u64; 4];
        let mut i = 0;
        while i < list.len() {
            let f = list[i] as usize;
            bits[f / 64] |= 1u64 << (f % 64);
            i += 1;
        }
        Features(bits)
    }

    fn has(self, f: Feature) -> bool {
        let f = f as usize;
        self.0[f / 64] & (1u64 << (f % 64)) != 0
    }

    fn with(mut self, f: Feature) -> Features {
        let f = f as usize;
        self.0[f / 64] |= 1u64 << (f % 64);
        self
    }
}

const _: () = assert!(
    Feature::ALL.len() <= 256,
    "Features no longer fits its bit mask"
);

/// One processor's feature list, as LLVM gives it for `-mcpu=<name>`.
struct ProcessorFeatures {
    name: &'static str,
    list: &'static [Feature],
    set: Features,
}

macro_rules! processor_features {
    ($($name:literal => [$($f:ident),* $(,)?];)*) => {
        /// Per processor, the features of LLVM's `createMCSubtargetInfo(-mcpu=<name>)` that some
        /// predicate reads (LLVM 19, except gfx950/gfx1250/gfx1251: LLVM 22). The wave size
        /// LLVM adds by default for GFX10+ is not listed: it comes from [`PredContext`].
        static PROCESSOR_FEATURES: &[ProcessorFeatures] = &[$(ProcessorFeatures {
            name: $name,
            list: &[$(Feature::$f),*],
            set: Features::of(&[$(Feature::$f),*]),
        },)*];
    };
}

processor_features! {
    "r600" => [];
    "r630" => [];
    "rs880" => [];
    "rv670" => [];
    "rv710" => [];
    "rv730" => [];
    "rv770" => [];
    "cedar" => [];
    "cypress" => [];
    "juniper" => [];
    "redwood" => [];
    "sumo" => [];
    "barts" => [];
    "caicos" => [];
    "cayman" => [];
    "turks" => [];
    "gfx600" => [
        SouthernIslands, WavefrontSize64, LDSBankCount32, Movrel, SMemTimeInst, ImageInsts,
        ExtendedImageInsts, MadMacF32Insts, DsSrc2Insts, AtomicFMinFMaxF32GlobalInsts,
        AtomicFMinFMaxF64GlobalInsts, CubeInsts, LerpInst, SadInsts, CvtPkNormVOP2Insts
    ];
    "gfx601" => [
        SouthernIslands, WavefrontSize64, LDSBankCount32, Movrel, SMemTimeInst, ImageInsts,
        ExtendedImageInsts, MadMacF32Insts, DsSrc2Insts, AtomicFMinFMaxF32GlobalInsts,
        AtomicFMinFMaxF64GlobalInsts, CubeInsts, LerpInst, SadInsts, CvtPkNormVOP2Insts
    ];
    "gfx602" => [
        SouthernIslands, WavefrontSize64, LDSBankCount32, Movrel, SMemTimeInst, ImageInsts,
        ExtendedImageInsts, MadMacF32Insts, DsSrc2Insts, AtomicFMinFMaxF32GlobalInsts,
        AtomicFMinFMaxF64GlobalInsts, CubeInsts, LerpInst, SadInsts, CvtPkNormVOP2Insts
    ];
    "gfx700" => [
        SeaIslands, CIInsts, GFX7GFX8GFX9Insts, WavefrontSize64, LDSBankCount32, Movrel, FlatAddressSpace,
        SMemTimeInst, ImageInsts, ExtendedImageInsts, MadMacF32Insts, DsSrc2Insts,
        AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts, AtomicFMinFMaxF64FlatInsts, CubeInsts,
        LerpInst, SadInsts, QsadInsts, CvtPkNormVOP2Insts
    ];
    "gfx701" => [
        SeaIslands, CIInsts, GFX7GFX8GFX9Insts, WavefrontSize64, LDSBankCount32, Movrel, FlatAddressSpace,
        SMemTimeInst, ImageInsts, ExtendedImageInsts, MadMacF32Insts, DsSrc2Insts,
        AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts, AtomicFMinFMaxF64FlatInsts, CubeInsts,
        LerpInst, SadInsts, QsadInsts, CvtPkNormVOP2Insts
    ];
    "gfx702" => [
        SeaIslands, CIInsts, GFX7GFX8GFX9Insts, WavefrontSize64, LDSBankCount16, Movrel, FlatAddressSpace,
        SMemTimeInst, ImageInsts, ExtendedImageInsts, MadMacF32Insts, DsSrc2Insts,
        AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts, AtomicFMinFMaxF64FlatInsts, CubeInsts,
        LerpInst, SadInsts, QsadInsts, CvtPkNormVOP2Insts
    ];
    "gfx703" => [
        SeaIslands, CIInsts, GFX7GFX8GFX9Insts, WavefrontSize64, LDSBankCount16, Movrel, FlatAddressSpace,
        SMemTimeInst, ImageInsts, ExtendedImageInsts, MadMacF32Insts, DsSrc2Insts,
        AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts, AtomicFMinFMaxF64FlatInsts, CubeInsts,
        LerpInst, SadInsts, QsadInsts, CvtPkNormVOP2Insts
    ];
    "gfx704" => [
        SeaIslands, CIInsts, GFX7GFX8GFX9Insts, WavefrontSize64, LDSBankCount32, Movrel, FlatAddressSpace,
        SMemTimeInst, ImageInsts, ExtendedImageInsts, MadMacF32Insts, DsSrc2Insts,
        AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts, AtomicFMinFMaxF64FlatInsts, CubeInsts,
        LerpInst, SadInsts, QsadInsts, CvtPkNormVOP2Insts
    ];
    "gfx705" => [
        SeaIslands, CIInsts, GFX7GFX8GFX9Insts, WavefrontSize64, LDSBankCount16, Movrel, FlatAddressSpace,
        SMemTimeInst, ImageInsts, ExtendedImageInsts, MadMacF32Insts, DsSrc2Insts,
        AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts, AtomicFMinFMaxF64FlatInsts, CubeInsts,
        LerpInst, SadInsts, QsadInsts, CvtPkNormVOP2Insts
    ];
    "gfx801" => [
        VolcanicIslands, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, WavefrontSize64,
        LDSBankCount32, _16BitInsts, SDWA, DPP, Movrel, VGPRIndexMode, FlatAddressSpace, ScalarStores,
        SMemRealTime, SMemTimeInst, UnpackedD16VMem, ImageInsts, ExtendedImageInsts, MadMacF32Insts,
        DsSrc2Insts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtPkNormVOP2Insts
    ];
    "gfx802" => [
        VolcanicIslands, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, WavefrontSize64,
        LDSBankCount32, _16BitInsts, SDWA, DPP, Movrel, VGPRIndexMode, FlatAddressSpace, ScalarStores,
        SMemRealTime, SMemTimeInst, UnpackedD16VMem, ImageInsts, ExtendedImageInsts, MadMacF32Insts,
        DsSrc2Insts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtPkNormVOP2Insts
    ];
    "gfx803" => [
        VolcanicIslands, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, WavefrontSize64,
        LDSBankCount32, _16BitInsts, SDWA, DPP, Movrel, VGPRIndexMode, FlatAddressSpace, ScalarStores,
        SMemRealTime, SMemTimeInst, UnpackedD16VMem, ImageInsts, ExtendedImageInsts, MadMacF32Insts,
        DsSrc2Insts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtPkNormVOP2Insts
    ];
    "gfx805" => [
        VolcanicIslands, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, WavefrontSize64,
        LDSBankCount32, _16BitInsts, SDWA, DPP, Movrel, VGPRIndexMode, FlatAddressSpace, ScalarStores,
        SMemRealTime, SMemTimeInst, UnpackedD16VMem, ImageInsts, ExtendedImageInsts, MadMacF32Insts,
        DsSrc2Insts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtPkNormVOP2Insts
    ];
    "gfx810" => [
        VolcanicIslands, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, WavefrontSize64,
        LDSBankCount16, _16BitInsts, SDWA, DPP, Movrel, VGPRIndexMode, FlatAddressSpace, ScalarStores,
        SMemRealTime, SMemTimeInst, ImageInsts, ExtendedImageInsts, MadMacF32Insts, DsSrc2Insts, CubeInsts,
        LerpInst, SadInsts, QsadInsts, CvtPkNormVOP2Insts
    ];
    "gfx900" => [
        GFX9, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, GFX9Insts, WavefrontSize64,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, VGPRIndexMode, FlatAddressSpace, FlatGlobalInsts,
        FlatScratchInsts, ScalarFlatScratchInsts, ScalarStores, ScalarAtomics, SMemRealTime, SMemTimeInst,
        AddNoCarryInsts, ImageInsts, ExtendedImageInsts, MadMixInsts, MadMacF32Insts, DsSrc2Insts,
        CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx902" => [
        GFX9, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, GFX9Insts, WavefrontSize64,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, VGPRIndexMode, FlatAddressSpace, FlatGlobalInsts,
        FlatScratchInsts, ScalarFlatScratchInsts, ScalarStores, ScalarAtomics, SMemRealTime, SMemTimeInst,
        AddNoCarryInsts, ImageInsts, ExtendedImageInsts, MadMixInsts, MadMacF32Insts, DsSrc2Insts,
        CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx904" => [
        GFX9, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, GFX9Insts, WavefrontSize64,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, VGPRIndexMode, FlatAddressSpace, FlatGlobalInsts,
        FlatScratchInsts, ScalarFlatScratchInsts, ScalarStores, ScalarAtomics, SMemRealTime, SMemTimeInst,
        AddNoCarryInsts, ImageInsts, ExtendedImageInsts, FmaMixInsts, MadMacF32Insts, DsSrc2Insts,
        CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx906" => [
        GFX9, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, GFX9Insts, WavefrontSize64,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, VGPRIndexMode, FlatAddressSpace, FlatGlobalInsts,
        FlatScratchInsts, ScalarFlatScratchInsts, ScalarStores, ScalarAtomics, SMemRealTime, SMemTimeInst,
        AddNoCarryInsts, ImageInsts, ExtendedImageInsts, FmaMixInsts, MadMacF32Insts, DsSrc2Insts, DLInsts,
        Dot1Insts, Dot2Insts, Dot7Insts, Dot10Insts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts,
        CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx908" => [
        GFX9, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, GFX9Insts, WavefrontSize64,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, VGPRIndexMode, FlatAddressSpace, FlatGlobalInsts,
        FlatScratchInsts, ScalarFlatScratchInsts, ScalarStores, ScalarAtomics, SMemRealTime, SMemTimeInst,
        AddNoCarryInsts, ImageInsts, ExtendedImageInsts, FmaMixInsts, MadMacF32Insts, DsSrc2Insts, DLInsts,
        Dot1Insts, Dot2Insts, Dot3Insts, Dot4Insts, Dot5Insts, Dot6Insts, Dot7Insts, Dot10Insts, MAIInsts,
        PkFmacF16Inst, AtomicFaddNoRtnInsts, AtomicBufferGlobalPkAddF16NoRtnInsts, CubeInsts, LerpInst,
        SadInsts, QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx909" => [
        GFX9, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, GFX9Insts, WavefrontSize64,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, VGPRIndexMode, FlatAddressSpace, FlatGlobalInsts,
        FlatScratchInsts, ScalarFlatScratchInsts, ScalarStores, ScalarAtomics, SMemRealTime, SMemTimeInst,
        AddNoCarryInsts, ImageInsts, ExtendedImageInsts, MadMixInsts, MadMacF32Insts, DsSrc2Insts,
        CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx90c" => [
        GFX9, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, GFX9Insts, WavefrontSize64,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, VGPRIndexMode, FlatAddressSpace, FlatGlobalInsts,
        FlatScratchInsts, ScalarFlatScratchInsts, ScalarStores, ScalarAtomics, SMemRealTime, SMemTimeInst,
        AddNoCarryInsts, ImageInsts, ExtendedImageInsts, MadMixInsts, MadMacF32Insts, DsSrc2Insts,
        CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx90a" => [
        GFX9, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, GFX9Insts, GFX90AInsts, WavefrontSize64,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, DPALU_DPP, VGPRIndexMode, FlatAddressSpace,
        FlatGlobalInsts, FlatScratchInsts, ScalarFlatScratchInsts, ScalarStores, ScalarAtomics,
        SMemRealTime, SMemTimeInst, AddNoCarryInsts, ImageInsts, FmaMixInsts, MadMacF32Insts, DLInsts,
        Dot1Insts, Dot2Insts, Dot3Insts, Dot4Insts, Dot5Insts, Dot6Insts, Dot7Insts, Dot10Insts, MAIInsts,
        PkFmacF16Inst, FmacF64Inst, PackedFP32Ops, AtomicFaddRtnInsts, AtomicFaddNoRtnInsts,
        AtomicBufferGlobalPkAddF16Insts, AtomicFMinFMaxF64GlobalInsts, AtomicFMinFMaxF64FlatInsts,
        FlatBufferGlobalAtomicFaddF64Inst, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts,
        CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx942" => [
        GFX9, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, GFX9Insts, GFX90AInsts, GFX940Insts,
        WavefrontSize64, LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, DPALU_DPP, VGPRIndexMode,
        FlatAddressSpace, FlatGlobalInsts, FlatScratchInsts, ScalarFlatScratchInsts, ScalarStores,
        ScalarAtomics, SMemRealTime, SMemTimeInst, AddNoCarryInsts, FmaMixInsts, DLInsts, Dot1Insts,
        Dot2Insts, Dot3Insts, Dot4Insts, Dot5Insts, Dot6Insts, Dot7Insts, Dot10Insts, MAIInsts,
        PkFmacF16Inst, FmacF64Inst, PackedFP32Ops, FP8ConversionInsts, AtomicFaddRtnInsts,
        AtomicFaddNoRtnInsts, AtomicBufferGlobalPkAddF16Insts, AtomicGlobalPkAddBF16Inst,
        AtomicDsPkAdd16Insts, AtomicFlatPkAdd16Insts, AtomicFMinFMaxF64GlobalInsts,
        AtomicFMinFMaxF64FlatInsts, FlatAtomicFaddF32Inst, FlatBufferGlobalAtomicFaddF64Inst,
        LshlAddU64Inst, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts,
        CvtPkNormVOP3Insts, FP8Insts, XF32Insts
    ];
    "gfx950" => [
        GFX9, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, GFX9Insts, GFX90AInsts, GFX940Insts,
        GFX950Insts, WavefrontSize64, LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, DPALU_DPP,
        VGPRIndexMode, FlatAddressSpace, FlatGlobalInsts, FlatScratchInsts, ScalarFlatScratchInsts,
        ScalarStores, ScalarAtomics, SMemRealTime, SMemTimeInst, AddNoCarryInsts, FmaMixInsts, DLInsts,
        Dot1Insts, Dot2Insts, Dot3Insts, Dot4Insts, Dot5Insts, Dot6Insts, Dot7Insts, Dot10Insts, Dot12Insts,
        Dot13Insts, MAIInsts, PkFmacF16Inst, FmacF64Inst, PackedFP32Ops, FP8ConversionInsts,
        AtomicFaddRtnInsts, AtomicFaddNoRtnInsts, AtomicBufferGlobalPkAddF16Insts,
        AtomicGlobalPkAddBF16Inst, AtomicBufferPkAddBF16Inst, AtomicDsPkAdd16Insts, AtomicFlatPkAdd16Insts,
        AtomicFMinFMaxF64GlobalInsts, AtomicFMinFMaxF64FlatInsts, FlatAtomicFaddF32Inst,
        FlatBufferGlobalAtomicFaddF64Inst, Permlane16Swap, AshrPkInsts, CvtPkF16F32Inst, BitOp3Insts,
        PrngInst, BF16ConversionInsts, Minimum3Maximum3PKF16, LshlAddU64Inst, CubeInsts, LerpInst, SadInsts,
        QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts, Minimum3Maximum3F32, FP8Insts,
        Permlane32Swap, FP8ConversionScaleInsts, BF8ConversionScaleInsts, FP4ConversionScaleInsts,
        FP6BF6ConversionScaleInsts, F16BF16ToFP6BF6ConversionScaleInsts, F32ToF16BF16ConversionSRInsts
    ];
    "gfx1010" => [
        GFX10, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP,
        Movrel, FlatAddressSpace, FlatGlobalInsts, FlatScratchInsts, ScalarFlatScratchInsts, ScalarStores,
        ScalarAtomics, SMemRealTime, SMemTimeInst, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, MadMacF32Insts, DsSrc2Insts, NoSdstCMPX, GetWaveIdInst, DLInsts, PkFmacF16Inst,
        AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts, AtomicFMinFMaxF64FlatInsts, CubeInsts,
        LerpInst, SadInsts, QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1011" => [
        GFX10, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP,
        Movrel, FlatAddressSpace, FlatGlobalInsts, FlatScratchInsts, ScalarFlatScratchInsts, ScalarStores,
        ScalarAtomics, SMemRealTime, SMemTimeInst, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, MadMacF32Insts, DsSrc2Insts, NoSdstCMPX, GetWaveIdInst, DLInsts, Dot1Insts, Dot2Insts,
        Dot5Insts, Dot6Insts, Dot7Insts, Dot10Insts, PkFmacF16Inst, AtomicFMinFMaxF32GlobalInsts,
        AtomicFMinFMaxF64GlobalInsts, AtomicFMinFMaxF64FlatInsts, CubeInsts, LerpInst, SadInsts, QsadInsts,
        CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1012" => [
        GFX10, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP,
        Movrel, FlatAddressSpace, FlatGlobalInsts, FlatScratchInsts, ScalarFlatScratchInsts, ScalarStores,
        ScalarAtomics, SMemRealTime, SMemTimeInst, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, MadMacF32Insts, DsSrc2Insts, NoSdstCMPX, GetWaveIdInst, DLInsts, Dot1Insts, Dot2Insts,
        Dot5Insts, Dot6Insts, Dot7Insts, Dot10Insts, PkFmacF16Inst, AtomicFMinFMaxF32GlobalInsts,
        AtomicFMinFMaxF64GlobalInsts, AtomicFMinFMaxF64FlatInsts, CubeInsts, LerpInst, SadInsts, QsadInsts,
        CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1013" => [
        GFX10, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_AEncoding, LDSBankCount32, _16BitInsts,
        VOP3P, SDWA, DPP, Movrel, FlatAddressSpace, FlatGlobalInsts, FlatScratchInsts,
        ScalarFlatScratchInsts, ScalarStores, ScalarAtomics, SMemRealTime, SMemTimeInst, AddNoCarryInsts,
        ImageInsts, ExtendedImageInsts, G16, FmaMixInsts, MadMacF32Insts, DsSrc2Insts, NoSdstCMPX,
        GetWaveIdInst, DLInsts, PkFmacF16Inst, AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts,
        AtomicFMinFMaxF64FlatInsts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts,
        CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1030" => [
        GFX10, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, Movrel, FlatAddressSpace, FlatGlobalInsts,
        FlatScratchInsts, SMemRealTime, SMemTimeInst, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot1Insts, Dot2Insts, Dot5Insts, Dot6Insts, Dot7Insts, Dot10Insts,
        PkFmacF16Inst, AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts,
        AtomicFMinFMaxF64FlatInsts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts,
        CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1031" => [
        GFX10, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, Movrel, FlatAddressSpace, FlatGlobalInsts,
        FlatScratchInsts, SMemRealTime, SMemTimeInst, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot1Insts, Dot2Insts, Dot5Insts, Dot6Insts, Dot7Insts, Dot10Insts,
        PkFmacF16Inst, AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts,
        AtomicFMinFMaxF64FlatInsts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts,
        CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1032" => [
        GFX10, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, Movrel, FlatAddressSpace, FlatGlobalInsts,
        FlatScratchInsts, SMemRealTime, SMemTimeInst, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot1Insts, Dot2Insts, Dot5Insts, Dot6Insts, Dot7Insts, Dot10Insts,
        PkFmacF16Inst, AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts,
        AtomicFMinFMaxF64FlatInsts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts,
        CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1033" => [
        GFX10, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, Movrel, FlatAddressSpace, FlatGlobalInsts,
        FlatScratchInsts, SMemRealTime, SMemTimeInst, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot1Insts, Dot2Insts, Dot5Insts, Dot6Insts, Dot7Insts, Dot10Insts,
        PkFmacF16Inst, AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts,
        AtomicFMinFMaxF64FlatInsts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts,
        CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1034" => [
        GFX10, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, Movrel, FlatAddressSpace, FlatGlobalInsts,
        FlatScratchInsts, SMemRealTime, SMemTimeInst, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot1Insts, Dot2Insts, Dot5Insts, Dot6Insts, Dot7Insts, Dot10Insts,
        PkFmacF16Inst, AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts,
        AtomicFMinFMaxF64FlatInsts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts,
        CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1035" => [
        GFX10, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, Movrel, FlatAddressSpace, FlatGlobalInsts,
        FlatScratchInsts, SMemRealTime, SMemTimeInst, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot1Insts, Dot2Insts, Dot5Insts, Dot6Insts, Dot7Insts, Dot10Insts,
        PkFmacF16Inst, AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts,
        AtomicFMinFMaxF64FlatInsts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts,
        CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1036" => [
        GFX10, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, Movrel, FlatAddressSpace, FlatGlobalInsts,
        FlatScratchInsts, SMemRealTime, SMemTimeInst, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot1Insts, Dot2Insts, Dot5Insts, Dot6Insts, Dot7Insts, Dot10Insts,
        PkFmacF16Inst, AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts,
        AtomicFMinFMaxF64FlatInsts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts,
        CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1100" => [
        GFX11, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        GFX11Insts, LDSBankCount32, _16BitInsts, True16BitInsts, VOP3P, DPP, Movrel, FlatAddressSpace,
        FlatGlobalInsts, FlatScratchInsts, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot5Insts, Dot7Insts, Dot8Insts, Dot9Insts, Dot10Insts,
        Dot12Insts, PkFmacF16Inst, AtomicFaddRtnInsts, AtomicFaddNoRtnInsts, AtomicFMinFMaxF32GlobalInsts,
        FlatAtomicFaddF32Inst, MADIntraFwdBug, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts,
        CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1101" => [
        GFX11, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        GFX11Insts, LDSBankCount32, _16BitInsts, True16BitInsts, VOP3P, DPP, Movrel, FlatAddressSpace,
        FlatGlobalInsts, FlatScratchInsts, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot5Insts, Dot7Insts, Dot8Insts, Dot9Insts, Dot10Insts,
        Dot12Insts, PkFmacF16Inst, AtomicFaddRtnInsts, AtomicFaddNoRtnInsts, AtomicFMinFMaxF32GlobalInsts,
        FlatAtomicFaddF32Inst, MADIntraFwdBug, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts,
        CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1102" => [
        GFX11, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        GFX11Insts, LDSBankCount32, _16BitInsts, True16BitInsts, VOP3P, DPP, Movrel, FlatAddressSpace,
        FlatGlobalInsts, FlatScratchInsts, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot5Insts, Dot7Insts, Dot8Insts, Dot9Insts, Dot10Insts,
        Dot12Insts, PkFmacF16Inst, AtomicFaddRtnInsts, AtomicFaddNoRtnInsts, AtomicFMinFMaxF32GlobalInsts,
        FlatAtomicFaddF32Inst, MADIntraFwdBug, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts,
        CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1103" => [
        GFX11, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        GFX11Insts, LDSBankCount32, _16BitInsts, True16BitInsts, VOP3P, DPP, Movrel, FlatAddressSpace,
        FlatGlobalInsts, FlatScratchInsts, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot5Insts, Dot7Insts, Dot8Insts, Dot9Insts, Dot10Insts,
        Dot12Insts, PkFmacF16Inst, AtomicFaddRtnInsts, AtomicFaddNoRtnInsts, AtomicFMinFMaxF32GlobalInsts,
        FlatAtomicFaddF32Inst, MADIntraFwdBug, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts,
        CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1150" => [
        GFX11, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        GFX11Insts, LDSBankCount32, _16BitInsts, True16BitInsts, VOP3P, DPP, Movrel, FlatAddressSpace,
        FlatGlobalInsts, FlatScratchInsts, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot5Insts, Dot7Insts, Dot8Insts, Dot9Insts, Dot10Insts,
        Dot12Insts, PkFmacF16Inst, AtomicFaddRtnInsts, AtomicFaddNoRtnInsts, AtomicFMinFMaxF32GlobalInsts,
        FlatAtomicFaddF32Inst, SALUFloatInsts, VGPRSingleUseHintInsts, CubeInsts, LerpInst, SadInsts,
        QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1151" => [
        GFX11, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        GFX11Insts, LDSBankCount32, _16BitInsts, True16BitInsts, VOP3P, DPP, Movrel, FlatAddressSpace,
        FlatGlobalInsts, FlatScratchInsts, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot5Insts, Dot7Insts, Dot8Insts, Dot9Insts, Dot10Insts,
        Dot12Insts, PkFmacF16Inst, AtomicFaddRtnInsts, AtomicFaddNoRtnInsts, AtomicFMinFMaxF32GlobalInsts,
        FlatAtomicFaddF32Inst, SALUFloatInsts, VGPRSingleUseHintInsts, CubeInsts, LerpInst, SadInsts,
        QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1152" => [
        GFX11, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        GFX11Insts, LDSBankCount32, _16BitInsts, True16BitInsts, VOP3P, DPP, Movrel, FlatAddressSpace,
        FlatGlobalInsts, FlatScratchInsts, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot5Insts, Dot7Insts, Dot8Insts, Dot9Insts, Dot10Insts,
        Dot12Insts, PkFmacF16Inst, AtomicFaddRtnInsts, AtomicFaddNoRtnInsts, AtomicFMinFMaxF32GlobalInsts,
        FlatAtomicFaddF32Inst, SALUFloatInsts, VGPRSingleUseHintInsts, CubeInsts, LerpInst, SadInsts,
        QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1153" => [
        GFX11, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        GFX11Insts, LDSBankCount32, _16BitInsts, True16BitInsts, VOP3P, DPP, Movrel, FlatAddressSpace,
        FlatGlobalInsts, FlatScratchInsts, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot5Insts, Dot7Insts, Dot8Insts, Dot9Insts, Dot10Insts,
        Dot12Insts, PkFmacF16Inst, AtomicFaddRtnInsts, AtomicFaddNoRtnInsts, AtomicFMinFMaxF32GlobalInsts,
        FlatAtomicFaddF32Inst, SALUFloatInsts, VGPRSingleUseHintInsts, CubeInsts, LerpInst, SadInsts,
        QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx1200" => [
        GFX12, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        GFX11Insts, GFX12Insts, LDSBankCount32, _16BitInsts, True16BitInsts, VOP3P, DPP, Movrel,
        FlatAddressSpace, FlatGlobalInsts, FlatScratchInsts, ScalarDwordx3Loads, AddNoCarryInsts,
        ImageInsts, ExtendedImageInsts, G16, FmaMixInsts, NoSdstCMPX, DLInsts, Dot7Insts, Dot8Insts,
        Dot9Insts, Dot10Insts, Dot11Insts, Dot12Insts, PkFmacF16Inst, FP8ConversionInsts,
        AtomicFaddRtnInsts, AtomicFaddNoRtnInsts, AtomicBufferGlobalPkAddF16Insts,
        AtomicGlobalPkAddBF16Inst, AtomicBufferPkAddBF16Inst, AtomicDsPkAdd16Insts, AtomicFlatPkAdd16Insts,
        AtomicFMinFMaxF32GlobalInsts, FlatAtomicFaddF32Inst, SALUFloatInsts, PseudoScalarTrans,
        VGPRSingleUseHintInsts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts,
        CvtPkNormVOP3Insts, IEEEMinimumMaximumInsts, Minimum3Maximum3F32, Minimum3Maximum3F16
    ];
    "gfx1201" => [
        GFX12, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        GFX11Insts, GFX12Insts, LDSBankCount32, _16BitInsts, True16BitInsts, VOP3P, DPP, Movrel,
        FlatAddressSpace, FlatGlobalInsts, FlatScratchInsts, ScalarDwordx3Loads, AddNoCarryInsts,
        ImageInsts, ExtendedImageInsts, G16, FmaMixInsts, NoSdstCMPX, DLInsts, Dot7Insts, Dot8Insts,
        Dot9Insts, Dot10Insts, Dot11Insts, Dot12Insts, PkFmacF16Inst, FP8ConversionInsts,
        AtomicFaddRtnInsts, AtomicFaddNoRtnInsts, AtomicBufferGlobalPkAddF16Insts,
        AtomicGlobalPkAddBF16Inst, AtomicBufferPkAddBF16Inst, AtomicDsPkAdd16Insts, AtomicFlatPkAdd16Insts,
        AtomicFMinFMaxF32GlobalInsts, FlatAtomicFaddF32Inst, SALUFloatInsts, PseudoScalarTrans,
        VGPRSingleUseHintInsts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts,
        CvtPkNormVOP3Insts, IEEEMinimumMaximumInsts, Minimum3Maximum3F32, Minimum3Maximum3F16
    ];
    "gfx1250" => [
        GFX12, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        GFX11Insts, GFX12Insts, GFX1250Insts, WavefrontSize32, LDSBankCount32, _16BitInsts, True16BitInsts,
        VOP3P, DPP, Movrel, FlatAddressSpace, FlatGlobalInsts, FlatScratchInsts, FlatGVSMode,
        ScalarDwordx3Loads, AddNoCarryInsts, G16, FmaMixInsts, FmaMixBF16Insts, NoSdstCMPX, DLInsts,
        Dot7Insts, Dot8Insts, PkFmacF16Inst, FmacF64Inst, PackedFP32Ops, FP8ConversionInsts, FP8E5M3Insts,
        AtomicFaddRtnInsts, AtomicFaddNoRtnInsts, AtomicBufferGlobalPkAddF16Insts,
        AtomicGlobalPkAddBF16Inst, AtomicBufferPkAddBF16Inst, AtomicDsPkAdd16Insts, AtomicFlatPkAdd16Insts,
        AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts, AtomicFMinFMaxF64FlatInsts,
        FlatAtomicFaddF32Inst, FlatBufferGlobalAtomicFaddF64Inst, SALUFloatInsts, PseudoScalarTrans,
        Permlane16Swap, AshrPkInsts, CvtPkF16F32Inst, BitOp3Insts, PrngInst, BF16ConversionInsts,
        BF16TransInsts, BF16PackedInsts, Min3Max3PKF16, Minimum3Maximum3PKF16, TanhInsts, TensorCvtLutInsts,
        TransposeLoadF4F6Insts, VmemPrefInsts, LshlAddU64Inst, AddSubU64Insts, MadU32Inst, AddMinMaxInsts,
        PkAddMinMaxInsts, LdsBarrierArriveAtomic, McastLoadInsts, CubeInsts, LerpInst, SadInsts, QsadInsts,
        CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts, IEEEMinimumMaximumInsts, Minimum3Maximum3F32,
        Minimum3Maximum3F16, _1024AddressableVGPRs, WaitXcnt, SetPrioIncWgInst, SWakeupBarrier
    ];
    "gfx1251" => [
        GFX12, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        GFX11Insts, GFX12Insts, GFX1250Insts, WavefrontSize32, LDSBankCount32, _16BitInsts, True16BitInsts,
        VOP3P, DPP, DPALU_DPP, Movrel, FlatAddressSpace, FlatGlobalInsts, FlatScratchInsts, FlatGVSMode,
        ScalarDwordx3Loads, AddNoCarryInsts, G16, FmaMixInsts, FmaMixBF16Insts, NoSdstCMPX, DLInsts,
        Dot7Insts, Dot8Insts, PkFmacF16Inst, FmacF64Inst, PackedFP32Ops, FP8ConversionInsts, FP8E5M3Insts,
        AtomicFaddRtnInsts, AtomicFaddNoRtnInsts, AtomicBufferGlobalPkAddF16Insts,
        AtomicGlobalPkAddBF16Inst, AtomicBufferPkAddBF16Inst, AtomicDsPkAdd16Insts, AtomicFlatPkAdd16Insts,
        AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts, AtomicFMinFMaxF64FlatInsts,
        FlatAtomicFaddF32Inst, FlatBufferGlobalAtomicFaddF64Inst, SALUFloatInsts, PseudoScalarTrans,
        Permlane16Swap, AshrPkInsts, CvtPkF16F32Inst, BitOp3Insts, PrngInst, BF16ConversionInsts,
        BF16TransInsts, BF16PackedInsts, Min3Max3PKF16, Minimum3Maximum3PKF16, TanhInsts, TensorCvtLutInsts,
        TransposeLoadF4F6Insts, VmemPrefInsts, LshlAddU64Inst, AddSubU64Insts, MadU32Inst, AddMinMaxInsts,
        PkAddMinMaxInsts, LdsBarrierArriveAtomic, McastLoadInsts, CubeInsts, LerpInst, SadInsts, QsadInsts,
        CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts, IEEEMinimumMaximumInsts, Minimum3Maximum3F32,
        Minimum3Maximum3F16, _1024AddressableVGPRs, WaitXcnt, SetPrioIncWgInst, SWakeupBarrier
    ];
    "gfx9-generic" => [
        GFX9, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, GFX9Insts, WavefrontSize64,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, VGPRIndexMode, FlatAddressSpace, FlatGlobalInsts,
        FlatScratchInsts, ScalarFlatScratchInsts, ScalarStores, ScalarAtomics, SMemRealTime, SMemTimeInst,
        AddNoCarryInsts, ImageInsts, ExtendedImageInsts, MadMacF32Insts, DsSrc2Insts, CubeInsts, LerpInst,
        SadInsts, QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx9-4-generic" => [
        GFX9, GCN3Encoding, CIInsts, GFX7GFX8GFX9Insts, GFX8Insts, GFX9Insts, GFX90AInsts, GFX940Insts,
        WavefrontSize64, LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, DPALU_DPP, VGPRIndexMode,
        FlatAddressSpace, FlatGlobalInsts, FlatScratchInsts, ScalarFlatScratchInsts, ScalarStores,
        ScalarAtomics, SMemRealTime, SMemTimeInst, AddNoCarryInsts, FmaMixInsts, DLInsts, Dot1Insts,
        Dot2Insts, Dot3Insts, Dot4Insts, Dot5Insts, Dot6Insts, Dot7Insts, Dot10Insts, MAIInsts,
        PkFmacF16Inst, FmacF64Inst, PackedFP32Ops, AtomicFaddRtnInsts, AtomicFaddNoRtnInsts,
        AtomicBufferGlobalPkAddF16Insts, AtomicGlobalPkAddBF16Inst, AtomicDsPkAdd16Insts,
        AtomicFlatPkAdd16Insts, AtomicFMinFMaxF64GlobalInsts, AtomicFMinFMaxF64FlatInsts,
        FlatAtomicFaddF32Inst, FlatBufferGlobalAtomicFaddF64Inst, LshlAddU64Inst, CubeInsts, LerpInst,
        SadInsts, QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx10-1-generic" => [
        GFX10, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP,
        Movrel, FlatAddressSpace, FlatGlobalInsts, FlatScratchInsts, ScalarFlatScratchInsts, ScalarStores,
        ScalarAtomics, SMemRealTime, SMemTimeInst, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, MadMacF32Insts, DsSrc2Insts, NoSdstCMPX, GetWaveIdInst, DLInsts, PkFmacF16Inst,
        AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts, AtomicFMinFMaxF64FlatInsts, CubeInsts,
        LerpInst, SadInsts, QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx10-3-generic" => [
        GFX10, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        LDSBankCount32, _16BitInsts, VOP3P, SDWA, DPP, Movrel, FlatAddressSpace, FlatGlobalInsts,
        FlatScratchInsts, SMemRealTime, SMemTimeInst, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot1Insts, Dot2Insts, Dot5Insts, Dot6Insts, Dot7Insts, Dot10Insts,
        PkFmacF16Inst, AtomicFMinFMaxF32GlobalInsts, AtomicFMinFMaxF64GlobalInsts,
        AtomicFMinFMaxF64FlatInsts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts,
        CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx11-generic" => [
        GFX11, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        GFX11Insts, LDSBankCount32, _16BitInsts, True16BitInsts, VOP3P, DPP, Movrel, FlatAddressSpace,
        FlatGlobalInsts, FlatScratchInsts, AddNoCarryInsts, ImageInsts, ExtendedImageInsts, G16,
        FmaMixInsts, NoSdstCMPX, DLInsts, Dot5Insts, Dot7Insts, Dot8Insts, Dot9Insts, Dot10Insts,
        Dot12Insts, PkFmacF16Inst, AtomicFaddRtnInsts, AtomicFaddNoRtnInsts, AtomicFMinFMaxF32GlobalInsts,
        FlatAtomicFaddF32Inst, MADIntraFwdBug, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts,
        CvtPkNormVOP2Insts, CvtPkNormVOP3Insts
    ];
    "gfx12-generic" => [
        GFX12, CIInsts, GFX8Insts, GFX9Insts, GFX10Insts, GFX10_3Insts, GFX10_AEncoding, GFX10_BEncoding,
        GFX11Insts, GFX12Insts, LDSBankCount32, _16BitInsts, True16BitInsts, VOP3P, DPP, Movrel,
        FlatAddressSpace, FlatGlobalInsts, FlatScratchInsts, ScalarDwordx3Loads, AddNoCarryInsts,
        ImageInsts, ExtendedImageInsts, G16, FmaMixInsts, NoSdstCMPX, DLInsts, Dot7Insts, Dot8Insts,
        Dot9Insts, Dot10Insts, Dot11Insts, Dot12Insts, PkFmacF16Inst, FP8ConversionInsts,
        AtomicFaddRtnInsts, AtomicFaddNoRtnInsts, AtomicBufferGlobalPkAddF16Insts,
        AtomicGlobalPkAddBF16Inst, AtomicBufferPkAddBF16Inst, AtomicDsPkAdd16Insts, AtomicFlatPkAdd16Insts,
        AtomicFMinFMaxF32GlobalInsts, FlatAtomicFaddF32Inst, SALUFloatInsts, PseudoScalarTrans,
        VGPRSingleUseHintInsts, CubeInsts, LerpInst, SadInsts, QsadInsts, CvtNormInsts, CvtPkNormVOP2Insts,
        CvtPkNormVOP3Insts, IEEEMinimumMaximumInsts, Minimum3Maximum3F32, Minimum3Maximum3F16
    ];
}

/// The feature entry of a processor: by name, falling back (for a processor added to
/// [`PROCESSORS`] but not here) to the family's generic or first member.
fn entry(processor: &Processor) -> &'static ProcessorFeatures {
    static BY_MACH: OnceLock<Vec<Option<&'static ProcessorFeatures>>> = OnceLock::new();
    let by_mach = BY_MACH.get_or_init(|| {
        let mut v = vec![None; 256];
        for p in PROCESSORS {
            v[usize::from(p.mach)] = PROCESSOR_FEATURES.iter().find(|e| e.name == p.name);
        }
        v
    });
    if let Some(e) = by_mach[usize::from(processor.mach)].filter(|e| e.name == processor.name) {
        return e;
    }
    let by_name = |name: &str| PROCESSOR_FEATURES.iter().find(|e| e.name == name);
    by_name(processor.name).unwrap_or_else(|| {
        let family = match processor.generation {
            Generation::R600 => "r600",
            Generation::Gfx6 => "gfx600",
            Generation::Gfx7 => "gfx700",
            Generation::Gfx8 => "gfx803",
            Generation::Gfx9 => "gfx9-generic",
            Generation::Gfx90a => "gfx90a",
            Generation::Gfx940 => "gfx9-4-generic",
            Generation::Gfx950 => "gfx950",
            Generation::Gfx10_1 => "gfx10-1-generic",
            Generation::Gfx10_3 => "gfx10-3-generic",
            Generation::Gfx11 => "gfx11-generic",
            Generation::Gfx11_5 => "gfx1150",
            Generation::Gfx12 => "gfx12-generic",
            Generation::Gfx1250 => "gfx1250",
        };
        by_name(family).expect("every generation has a representative")
    })
}

/// The subtarget features of a processor, as LLVM's GCNProcessors.td / AMDGPU.td give them
/// (restricted to [`Feature`]; see the module documentation for which LLVM).
pub fn features(processor: &Processor) -> &'static [Feature] {
    entry(processor).list
}

/// The processor's features plus the mode ones (wave size, real-true16).
fn context_features(ctx: &PredContext) -> Features {
    let mut f = entry(ctx.processor).set;
    if ctx.processor.generation.is_gfx10_plus() {
        f = f.with(if ctx.wave64 {
            Feature::WavefrontSize64
        } else {
            Feature::WavefrontSize32
        });
    }
    if ctx.real_true16 {
        f = f.with(Feature::RealTrue16Insts);
    }
    f
}

/// Whether `pred` holds for `ctx`: the predicate's `AssemblerPredicate` condition (for the few
/// without one, the C++ condition it stands for) over the processor's features and the mode.
pub fn holds(pred: Pred, ctx: &PredContext) -> bool {
    if ctx.processor.generation == Generation::R600 {
        return false;
    }
    let f = context_features(ctx);
    let has = |x: Feature| f.has(x);
    use Feature as F;
    match pred {
        // Generations. `GCN3Encoding` marks GFX8/GFX9 (and CDNA), `GFX*Insts` are cumulative.
        Pred::isGFX6GFX7GFX10 => !has(F::GCN3Encoding) && !has(F::GFX11Insts),
        Pred::isGFX6GFX7GFX10Plus => !has(F::GCN3Encoding),
        Pred::isGFX6GFX7GFX8GFX9 => !has(F::GFX10Insts),
        Pred::isGFX6GFX7GFX8GFX9NotGFX90A => !has(F::GFX10Insts) && !has(F::GFX90AInsts),
        Pred::isGFX7GFX10 => !has(F::GCN3Encoding) && has(F::CIInsts) && !has(F::GFX11Insts),
        Pred::isGFX7GFX10GFX11 => !has(F::GCN3Encoding) && has(F::CIInsts),
        Pred::isGFX7GFX8GFX9 => has(F::GFX7GFX8GFX9Insts),
        Pred::isGFX7Plus => has(F::CIInsts),
        Pred::isGFX8Only => has(F::VolcanicIslands),
        Pred::isGFX8Plus => has(F::GFX8Insts),
        Pred::isGFX8GFX9 => has(F::GFX8Insts) && has(F::GCN3Encoding),
        Pred::isGFX8GFX9NotGFX90A => {
            has(F::GFX8Insts) && has(F::GCN3Encoding) && !has(F::GFX90AInsts)
        }
        Pred::isGFX8GFX9NotGFX940 => {
            has(F::GFX8Insts) && has(F::GCN3Encoding) && !has(F::GFX940Insts)
        }
        Pred::isGFX8GFX9GFX10GFX11 => has(F::GFX8Insts) && !has(F::GFX12Insts),
        Pred::isGCN3ExcludingGFX90A => has(F::GCN3Encoding) && !has(F::GFX90AInsts),
        Pred::isGFX9Only => has(F::GCN3Encoding) && has(F::GFX9Insts),
        Pred::isGFX9Plus => has(F::GFX9Insts),
        Pred::isGFX9GFX10 => has(F::GFX9Insts) && !has(F::GFX11Insts),
        Pred::isGFX90AOnly => has(F::GFX90AInsts) && !has(F::GFX940Insts),
        Pred::isGFX90APlus => has(F::GFX90AInsts),
        Pred::isNotGFX90APlus => !has(F::GFX90AInsts),
        Pred::isGFX940Plus => has(F::GFX940Insts),
        Pred::isGFX940orGFX1250 => has(F::GFX940Insts) || has(F::GFX1250Insts),
        Pred::isGFX10Only => has(F::GFX10Insts) && !has(F::GFX11Insts),
        Pred::isGFX10Plus => has(F::GFX10Insts),
        Pred::isGFX10GFX11 => has(F::GFX10Insts) && !has(F::GFX12Insts),
        Pred::isGFX10Before1030 => has(F::GFX10Insts) && !has(F::GFX10_3Insts),
        Pred::isGFX11Only => has(F::GFX11Insts) && !has(F::GFX12Insts),
        Pred::isGFX11Plus => has(F::GFX11Insts),
        // LLVM's `isGFX12Only` is `FeatureGFX12Insts` alone, so it also holds on GFX1250.
        Pred::isGFX12Only | Pred::isGFX12Plus => has(F::GFX12Insts),
        Pred::isNotGFX12Plus => !has(F::GFX12Insts),
        Pred::isGFX1250Plus | Pred::isGFX125xOnly => has(F::GFX1250Insts),
        Pred::isNotGFX1250Plus => !has(F::GFX1250Insts),
        Pred::isGFX9GFX10GFX11 => has(F::GFX9Insts) && !has(F::GFX12Insts),
        Pred::isNotGFX940Plus => !has(F::GFX940Insts),
        Pred::isGFX12Not12_50 | Pred::isGFX12PlusNot12_50 => {
            has(F::GFX12Insts) && !has(F::GFX1250Insts)
        }

        // Wave size and true16 mode.
        Pred::isWave32 => has(F::WavefrontSize32),
        Pred::isWave64 => has(F::WavefrontSize64),
        Pred::HasTrue16BitInsts => has(F::True16BitInsts),
        Pred::NotHasTrue16BitInsts => !has(F::True16BitInsts),
        Pred::UseRealTrue16Insts => has(F::True16BitInsts) && has(F::RealTrue16Insts),
        // LLVM's condition is `FeatureTrue16BitInsts` alone (an LLVM FIXME, still so in LLVM
        // 22): in real-true16 mode a fake16 encoding still decodes where no real-true16 record
        // claims the bits first (v_cos_f16 on gfx1100 +real-true16; on gfx1250 a t16 VOP3 whose
        // operands fail to decode falls through to the FAKE16 table).
        Pred::UseFakeTrue16Insts => has(F::True16BitInsts),

        // Encoding families.
        // LLVM 19's `HasSDWA` is the GFX8 SDWA condition. LLVM 22 moved that to `HasSDWA8` and
        // made `HasSDWA` a plain `Subtarget->hasSDWA()`, which the decoder does not check; its
        // records (the GFX9 SDWA ones, tried on gfx950 only) decode wherever the feature is.
        Pred::HasSDWA if llvm_version(ctx.processor) == 22 => has(F::SDWA),
        Pred::HasSDWA | Pred::HasSDWA8 => has(F::SDWA) && !has(F::GFX9Insts),
        Pred::HasSDWA9 => has(F::GCN3Encoding) && has(F::GFX9Insts) && has(F::SDWA),
        Pred::HasSDWA10 => !has(F::GCN3Encoding) && has(F::GFX10Insts) && has(F::SDWA),
        Pred::HasDPP => has(F::GCN3Encoding) && has(F::DPP),
        Pred::HasDPP16 => !has(F::GCN3Encoding) && has(F::GFX10Insts) && has(F::DPP),
        Pred::HasDPALU_DPP => has(F::DPALU_DPP),
        Pred::HasVOP3PInsts => has(F::VOP3P),
        Pred::HasGFX10_AEncoding => has(F::GFX10_AEncoding),
        Pred::HasGFX10_BEncoding => has(F::GFX10_BEncoding),
        Pred::HasVINTERPEncoding => has(F::GFX11Insts) && !has(F::GFX1250Insts),
        Pred::HasExportInsts => !has(F::GFX90AInsts) && !has(F::GFX1250Insts),
        Pred::HasMTBUFInsts | Pred::HasFormattedMUBUFInsts => !has(F::GFX1250Insts),

        // Memory instructions.
        Pred::HasFlatAddressSpace => has(F::FlatAddressSpace),
        Pred::HasFlatGlobalInsts => has(F::FlatGlobalInsts),
        Pred::HasFlatScratchInsts => has(F::FlatScratchInsts),
        Pred::HasScalarFlatScratchInsts => has(F::ScalarFlatScratchInsts),
        Pred::HasFlatScratchSTMode => has(F::GFX10_3Insts) || has(F::GFX940Insts),
        Pred::HasFlatScratchSVSMode => has(F::GFX940Insts) || has(F::GFX11Insts),
        Pred::HasFlatGVSMode => has(F::FlatGVSMode),
        Pred::HasD16LoadStore => has(F::GFX9Insts),
        Pred::HasUnpackedD16VMem => has(F::UnpackedD16VMem),
        Pred::HasPackedD16VMem => !has(F::UnpackedD16VMem),
        Pred::HasImageInsts => has(F::ImageInsts),
        Pred::HasExtendedImageInsts => has(F::ExtendedImageInsts),
        Pred::HasG16 => has(F::G16),
        Pred::HasScalarStores => has(F::ScalarStores),
        Pred::HasScalarAtomics => has(F::ScalarAtomics),
        Pred::HasScalarDwordx3Loads => has(F::ScalarDwordx3Loads),
        Pred::HasSMemRealTime => has(F::SMemRealTime),
        Pred::HasSMemTimeInst => has(F::SMemTimeInst),
        Pred::HasDSAddTid => has(F::GFX9Insts),
        Pred::HasDsSrc2Insts => has(F::DsSrc2Insts),
        Pred::HasLDSFPAtomicAddF32 => has(F::GFX8Insts),
        Pred::HasLdsAtomicAddF64 => has(F::GFX90AInsts) || has(F::GFX1250Insts),
        Pred::HasAtomicFaddRtnInsts => has(F::AtomicFaddRtnInsts),
        Pred::HasAtomicFaddNoRtnInsts => has(F::AtomicFaddNoRtnInsts),
        Pred::HasAtomicBufferGlobalPkAddF16NoRtnInsts => {
            has(F::AtomicBufferGlobalPkAddF16NoRtnInsts) || has(F::AtomicBufferGlobalPkAddF16Insts)
        }
        Pred::HasAtomicBufferGlobalPkAddF16Insts => has(F::AtomicBufferGlobalPkAddF16Insts),
        Pred::HasAtomicGlobalPkAddBF16Inst => has(F::AtomicGlobalPkAddBF16Inst),
        Pred::HasAtomicBufferPkAddBF16Inst => has(F::AtomicBufferPkAddBF16Inst),
        Pred::HasAtomicDsPkAdd16Insts => has(F::AtomicDsPkAdd16Insts),
        Pred::HasAtomicFlatPkAdd16Insts => has(F::AtomicFlatPkAdd16Insts),
        Pred::HasAtomicFMinFMaxF32GlobalInsts => has(F::AtomicFMinFMaxF32GlobalInsts),
        Pred::HasAtomicFMinFMaxF64GlobalInsts => has(F::AtomicFMinFMaxF64GlobalInsts),
        Pred::HasAtomicFMinFMaxF64FlatInsts => has(F::AtomicFMinFMaxF64FlatInsts),
        Pred::HasFlatAtomicFaddF32Inst => has(F::FlatAtomicFaddF32Inst),
        Pred::HasFlatBufferGlobalAtomicFaddF64Inst => has(F::FlatBufferGlobalAtomicFaddF64Inst),
        Pred::HasTransposeLoadF4F6Insts => has(F::TransposeLoadF4F6Insts),
        Pred::HasVmemPrefInsts => has(F::VmemPrefInsts),
        Pred::HasLdsBarrierArriveAtomic => has(F::LdsBarrierArriveAtomic),
        Pred::HasMcastLoadInsts => has(F::McastLoadInsts),
        Pred::HasWaitXcnt => has(F::WaitXcnt),
        // Not an AssemblerPredicate (never checked by the decoder); no processor has the feature.
        Pred::HasAtomicCSubNoRtnInsts => has(F::AtomicCSubNoRtnInsts),
        // Not AssemblerPredicates (never checked by the decoder); the subtarget's bank count.
        Pred::has16BankLDS => has(F::LDSBankCount16),
        Pred::has32BankLDS => has(F::LDSBankCount32),

        // ALU instruction sets.
        Pred::Has16BitInsts => has(F::_16BitInsts),
        Pred::HasAddNoCarryInsts => has(F::AddNoCarryInsts),
        Pred::HasMovrel => has(F::Movrel),
        Pred::HasVGPRIndexMode => has(F::VGPRIndexMode),
        Pred::HasNoSdstCMPX => has(F::NoSdstCMPX),
        Pred::HasGetWaveIdInst => has(F::GetWaveIdInst),
        Pred::HasMadMacF32Insts => has(F::MadMacF32Insts),
        Pred::HasMadMixInsts => has(F::MadMixInsts),
        Pred::HasFmaMixInsts => has(F::FmaMixInsts),
        Pred::HasFmaMixBF16Insts => has(F::FmaMixBF16Insts),
        Pred::HasFmaLegacy32 => has(F::GFX10_3Insts),
        Pred::HasFmaakFmamkF32Insts => has(F::GFX10Insts) || has(F::GFX940Insts),
        Pred::HasFmaakFmamkF64Insts => has(F::GFX1250Insts),
        Pred::HasFmacF64Inst => has(F::FmacF64Inst),
        Pred::HasPkFmacF16Inst => has(F::PkFmacF16Inst),
        Pred::HasPackedFP32Ops => has(F::PackedFP32Ops),
        Pred::HasPkMovB32 => has(F::GFX90AInsts),
        Pred::HasDLInsts => has(F::DLInsts),
        Pred::HasDot1Insts => has(F::Dot1Insts),
        Pred::HasDot2Insts => has(F::Dot2Insts),
        Pred::HasDot3Insts => has(F::Dot3Insts),
        Pred::HasDot4Insts => has(F::Dot4Insts),
        Pred::HasDot5Insts => has(F::Dot5Insts),
        Pred::HasDot6Insts => has(F::Dot6Insts),
        Pred::HasDot7Insts => has(F::Dot7Insts),
        Pred::HasDot8Insts => has(F::Dot8Insts),
        Pred::HasDot9Insts => has(F::Dot9Insts),
        Pred::HasDot10Insts => has(F::Dot10Insts),
        Pred::HasDot11Insts => has(F::Dot11Insts),
        Pred::HasDot12Insts => has(F::Dot12Insts),
        Pred::HasDot13Insts => has(F::Dot13Insts),
        Pred::HasMAIInsts => has(F::MAIInsts),
        Pred::HasFP8ConversionInsts => has(F::FP8ConversionInsts),
        Pred::HasFP8E5M3Insts => has(F::FP8E5M3Insts),
        Pred::HasSALUFloatInsts => has(F::SALUFloatInsts),
        Pred::HasPseudoScalarTrans => has(F::PseudoScalarTrans),
        Pred::HasVGPRSingleUseHintInsts => has(F::VGPRSingleUseHintInsts),
        Pred::HasGFX950Insts => has(F::GFX950Insts),
        Pred::HasPermlane16Swap => has(F::Permlane16Swap),
        Pred::HasAshrPkInsts => has(F::AshrPkInsts),
        Pred::HasCvtPkF16F32Inst => has(F::CvtPkF16F32Inst),
        Pred::HasBitOp3Insts => has(F::BitOp3Insts),
        Pred::HasPrngInst => has(F::PrngInst),
        Pred::HasBF16ConversionInsts => has(F::BF16ConversionInsts),
        Pred::HasBF16TransInsts => has(F::BF16TransInsts),
        Pred::HasBF16PackedInsts => has(F::BF16PackedInsts),
        Pred::HasMin3Max3PKF16 => has(F::Min3Max3PKF16),
        Pred::HasMinimum3Maximum3PKF16 => has(F::Minimum3Maximum3PKF16),
        Pred::HasPkMinMax3Insts => has(F::GFX1250Insts),
        Pred::HasTanhInsts => has(F::TanhInsts),
        Pred::HasTensorCvtLutInsts => has(F::TensorCvtLutInsts),
        Pred::HasLshlAddU64Inst => has(F::LshlAddU64Inst),
        Pred::HasAddSubU64Insts => has(F::AddSubU64Insts),
        Pred::HasMadU32Inst => has(F::MadU32Inst),
        Pred::HasAddMinMaxInsts => has(F::AddMinMaxInsts),
        Pred::HasPkAddMinMaxInsts => has(F::PkAddMinMaxInsts),
        // LLVM 22 split out instructions every GCN processor had before (LLVM 19 gates them on
        // the generation alone): the cube, lerp, sad and normalisation ALU, which the
        // accelerator parts keep too.
        Pred::HasCubeInsts => has(F::CubeInsts),
        Pred::HasLerpInst => has(F::LerpInst),
        Pred::HasSadInsts => has(F::SadInsts),
        Pred::HasQsadInsts => has(F::QsadInsts),
        Pred::HasCvtNormInsts => has(F::CvtNormInsts),
        Pred::HasCvtPkNormVOP2Insts => has(F::CvtPkNormVOP2Insts),
        Pred::HasCvtPkNormVOP3Insts => has(F::CvtPkNormVOP3Insts),
        Pred::HasIEEEMinimumMaximumInsts => has(F::IEEEMinimumMaximumInsts),
        Pred::HasMinimum3Maximum3F32 => has(F::Minimum3Maximum3F32),
        Pred::HasMinimum3Maximum3F16 => has(F::Minimum3Maximum3F16),
        Pred::HasFP8Insts => has(F::FP8Insts),
        Pred::NotHasFP8E5M3Insts => !has(F::FP8E5M3Insts),
        Pred::HasXF32Insts => has(F::XF32Insts),
        Pred::HasPermlane32Swap => has(F::Permlane32Swap),
        Pred::HasFP8ConversionScaleInsts => has(F::FP8ConversionScaleInsts),
        Pred::HasBF8ConversionScaleInsts => has(F::BF8ConversionScaleInsts),
        Pred::HasFP4ConversionScaleInsts => has(F::FP4ConversionScaleInsts),
        Pred::HasFP6BF6ConversionScaleInsts => has(F::FP6BF6ConversionScaleInsts),
        Pred::HasF16BF16ToFP6BF6ConversionScaleInsts => has(F::F16BF16ToFP6BF6ConversionScaleInsts),
        Pred::HasF32ToF16BF16ConversionSRInsts => has(F::F32ToF16BF16ConversionSRInsts),

        // Scalar and control instructions of GFX1250.
        Pred::HasAddPC64Inst | Pred::HasSGetShaderCyclesInst => has(F::GFX1250Insts),
        Pred::Has1024AddressableVGPRs => has(F::_1024AddressableVGPRs),
        Pred::HasSetPrioIncWgInst => has(F::SetPrioIncWgInst),
        Pred::HasSWakeupBarrier => has(F::SWakeupBarrier),
        // Not AssemblerPredicates (never checked by the decoder).
        Pred::HasMADIntraFwdBug => has(F::MADIntraFwdBug),
        Pred::HasNotMADIntraFwdBug => !has(F::MADIntraFwdBug),
        // Not an AssemblerPredicate: LLVM's condition reads the compiled function's f32 denormal
        // mode, which has no meaning for machine code; never checked by the decoder.
        Pred::NoFP32Denormals => true,
    }
}

/// Whether LLVM's generated disassembler checks this predicate at all (only predicates that are
/// AssemblerPredicates, i.e. expressed in subtarget features, are checked by
/// checkDecoderPredicate).
///
/// The unchecked ones are plain `Predicate<"Subtarget->...">` records that only steer code
/// generation, so LLVM decodes their encodings whatever their value: `has16BankLDS` and
/// `has32BankLDS` (v_interp_p1_f32 decodes on 16-bank gfx810), `HasMADIntraFwdBug` and
/// `HasNotMADIntraFwdBug` (gfx11's v_mad_u64_u32 decodes on gfx1150, which lacks the bug), and
/// `HasScalarDwordx3Loads` (every processor with GFX12 encodings has the feature, so this is
/// not observable), and LLVM 22's `HasAtomicCSubNoRtnInsts` (flat_atomic_cond_sub_u32 without
/// return decodes on gfx1250, although no processor has the feature) and `NoFP32Denormals`.
/// LLVM 22 also made `HasSDWA` a plain predicate; [`holds`] accounts for that per processor.
pub fn checked_by_decoder(pred: Pred) -> bool {
    match pred {
        Pred::has16BankLDS
        | Pred::has32BankLDS
        | Pred::HasMADIntraFwdBug
        | Pred::HasNotMADIntraFwdBug
        | Pred::HasScalarDwordx3Loads
        | Pred::HasAtomicCSubNoRtnInsts
        | Pred::NoFP32Denormals => false,
        Pred::Has1024AddressableVGPRs
        | Pred::Has16BitInsts
        | Pred::HasAddMinMaxInsts
        | Pred::HasAddNoCarryInsts
        | Pred::HasAddPC64Inst
        | Pred::HasAddSubU64Insts
        | Pred::HasAshrPkInsts
        | Pred::HasAtomicBufferGlobalPkAddF16Insts
        | Pred::HasAtomicBufferGlobalPkAddF16NoRtnInsts
        | Pred::HasAtomicBufferPkAddBF16Inst
        | Pred::HasAtomicDsPkAdd16Insts
        | Pred::HasAtomicFMinFMaxF32GlobalInsts
        | Pred::HasAtomicFMinFMaxF64FlatInsts
        | Pred::HasAtomicFMinFMaxF64GlobalInsts
        | Pred::HasAtomicFaddNoRtnInsts
        | Pred::HasAtomicFaddRtnInsts
        | Pred::HasAtomicFlatPkAdd16Insts
        | Pred::HasAtomicGlobalPkAddBF16Inst
        | Pred::HasBF16ConversionInsts
        | Pred::HasBF16PackedInsts
        | Pred::HasBF16TransInsts
        | Pred::HasBF8ConversionScaleInsts
        | Pred::HasBitOp3Insts
        | Pred::HasCubeInsts
        | Pred::HasCvtNormInsts
        | Pred::HasCvtPkF16F32Inst
        | Pred::HasCvtPkNormVOP2Insts
        | Pred::HasCvtPkNormVOP3Insts
        | Pred::HasD16LoadStore
        | Pred::HasDLInsts
        | Pred::HasDPALU_DPP
        | Pred::HasDPP
        | Pred::HasDPP16
        | Pred::HasDSAddTid
        | Pred::HasDot10Insts
        | Pred::HasDot11Insts
        | Pred::HasDot12Insts
        | Pred::HasDot13Insts
        | Pred::HasDot1Insts
        | Pred::HasDot2Insts
        | Pred::HasDot3Insts
        | Pred::HasDot4Insts
        | Pred::HasDot5Insts
        | Pred::HasDot6Insts
        | Pred::HasDot7Insts
        | Pred::HasDot8Insts
        | Pred::HasDot9Insts
        | Pred::HasDsSrc2Insts
        | Pred::HasExportInsts
        | Pred::HasExtendedImageInsts
        | Pred::HasF16BF16ToFP6BF6ConversionScaleInsts
        | Pred::HasF32ToF16BF16ConversionSRInsts
        | Pred::HasFP4ConversionScaleInsts
        | Pred::HasFP6BF6ConversionScaleInsts
        | Pred::HasFP8ConversionInsts
        | Pred::HasFP8ConversionScaleInsts
        | Pred::HasFP8E5M3Insts
        | Pred::HasFP8Insts
        | Pred::HasFlatAddressSpace
        | Pred::HasFlatAtomicFaddF32Inst
        | Pred::HasFlatBufferGlobalAtomicFaddF64Inst
        | Pred::HasFlatGVSMode
        | Pred::HasFlatGlobalInsts
        | Pred::HasFlatScratchInsts
        | Pred::HasFlatScratchSTMode
        | Pred::HasFlatScratchSVSMode
        | Pred::HasFmaLegacy32
        | Pred::HasFmaMixBF16Insts
        | Pred::HasFmaMixInsts
        | Pred::HasFmaakFmamkF32Insts
        | Pred::HasFmaakFmamkF64Insts
        | Pred::HasFmacF64Inst
        | Pred::HasFormattedMUBUFInsts
        | Pred::HasG16
        | Pred::HasGFX10_AEncoding
        | Pred::HasGFX10_BEncoding
        | Pred::HasGFX950Insts
        | Pred::HasGetWaveIdInst
        | Pred::HasIEEEMinimumMaximumInsts
        | Pred::HasImageInsts
        | Pred::HasLDSFPAtomicAddF32
        | Pred::HasLdsAtomicAddF64
        | Pred::HasLdsBarrierArriveAtomic
        | Pred::HasLerpInst
        | Pred::HasLshlAddU64Inst
        | Pred::HasMAIInsts
        | Pred::HasMTBUFInsts
        | Pred::HasMadMacF32Insts
        | Pred::HasMadMixInsts
        | Pred::HasMadU32Inst
        | Pred::HasMcastLoadInsts
        | Pred::HasMin3Max3PKF16
        | Pred::HasMinimum3Maximum3F16
        | Pred::HasMinimum3Maximum3F32
        | Pred::HasMinimum3Maximum3PKF16
        | Pred::HasMovrel
        | Pred::HasNoSdstCMPX
        | Pred::HasPackedD16VMem
        | Pred::HasPackedFP32Ops
        | Pred::HasPermlane16Swap
        | Pred::HasPermlane32Swap
        | Pred::HasPkAddMinMaxInsts
        | Pred::HasPkFmacF16Inst
        | Pred::HasPkMinMax3Insts
        | Pred::HasPkMovB32
        | Pred::HasPrngInst
        | Pred::HasPseudoScalarTrans
        | Pred::HasQsadInsts
        | Pred::HasSALUFloatInsts
        // An AssemblerPredicate in LLVM 19 (`(not FeatureGFX9Insts), FeatureSDWA`); LLVM 22
        // renamed that condition `HasSDWA8` and left `HasSDWA` unchecked, but only LLVM 19's
        // GFX8 SDWA records carry `HasSDWA` here, and for them both releases agree.
        | Pred::HasSDWA
        | Pred::HasSDWA10
        | Pred::HasSDWA8
        | Pred::HasSDWA9
        | Pred::HasSGetShaderCyclesInst
        | Pred::HasSMemRealTime
        | Pred::HasSMemTimeInst
        | Pred::HasSWakeupBarrier
        | Pred::HasSadInsts
        | Pred::HasScalarAtomics
        | Pred::HasScalarFlatScratchInsts
        | Pred::HasScalarStores
        | Pred::HasSetPrioIncWgInst
        | Pred::HasTanhInsts
        | Pred::HasTensorCvtLutInsts
        | Pred::HasTransposeLoadF4F6Insts
        | Pred::HasTrue16BitInsts
        | Pred::HasUnpackedD16VMem
        | Pred::HasVGPRIndexMode
        | Pred::HasVGPRSingleUseHintInsts
        | Pred::HasVINTERPEncoding
        | Pred::HasVOP3PInsts
        | Pred::HasVmemPrefInsts
        | Pred::HasWaitXcnt
        | Pred::HasXF32Insts
        | Pred::NotHasFP8E5M3Insts
        | Pred::NotHasTrue16BitInsts
        | Pred::UseFakeTrue16Insts
        | Pred::UseRealTrue16Insts
        | Pred::isGCN3ExcludingGFX90A
        | Pred::isGFX10Before1030
        | Pred::isGFX10GFX11
        | Pred::isGFX10Only
        | Pred::isGFX10Plus
        | Pred::isGFX11Only
        | Pred::isGFX11Plus
        | Pred::isGFX1250Plus
        | Pred::isGFX125xOnly
        | Pred::isGFX12Not12_50
        | Pred::isGFX12Only
        | Pred::isGFX12Plus
        | Pred::isGFX12PlusNot12_50
        | Pred::isGFX6GFX7GFX10
        | Pred::isGFX6GFX7GFX10Plus
        | Pred::isGFX6GFX7GFX8GFX9
        | Pred::isGFX6GFX7GFX8GFX9NotGFX90A
        | Pred::isGFX7GFX10
        | Pred::isGFX7GFX10GFX11
        | Pred::isGFX7GFX8GFX9
        | Pred::isGFX7Plus
        | Pred::isGFX8GFX9
        | Pred::isGFX8GFX9GFX10GFX11
        | Pred::isGFX8GFX9NotGFX90A
        | Pred::isGFX8GFX9NotGFX940
        | Pred::isGFX8Only
        | Pred::isGFX8Plus
        | Pred::isGFX90AOnly
        | Pred::isGFX90APlus
        | Pred::isGFX940Plus
        | Pred::isGFX940orGFX1250
        | Pred::isGFX9GFX10
        | Pred::isGFX9GFX10GFX11
        | Pred::isGFX9Only
        | Pred::isGFX9Plus
        | Pred::isNotGFX1250Plus
        | Pred::isNotGFX12Plus
        | Pred::isNotGFX90APlus
        | Pred::isNotGFX940Plus
        | Pred::isWave32
        | Pred::isWave64 => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::table::encodings;

    fn processor(name: &str) -> &'static Processor {
        Processor::by_name(name).unwrap_or_else(|| panic!("no processor {name}"))
    }

    /// The disassembler modes the facts were observed in.
    #[derive(Clone, Copy, Debug)]
    enum Mode {
        /// No `-mattr`: wave32 from GFX10 on, fake16.
        Default,
        /// `-mattr=+wavefrontsize64`.
        W64,
        /// `-mattr=+real-true16`.
        RealT16,
    }

    fn ctx(name: &str, mode: Mode) -> PredContext {
        let mut c = PredContext::new(processor(name));
        match mode {
            Mode::Default => {}
            Mode::W64 => c.wave64 = true,
            Mode::RealT16 => c.real_true16 = true,
        }
        c
    }

    /// Every `Pred` variant: each appears in some encoding record, since the generator derives
    /// the enum from the records' predicate lists.
    fn all_preds() -> Vec<Pred> {
        let mut preds: Vec<Pred> = encodings()
            .iter()
            .flat_map(|e| e.preds.iter().copied())
            .collect();
        preds.sort();
        preds.dedup();
        preds
    }

    /// Facts observed with LLVM's own disassembler: `llvm-mc-19` (`llvm-mc-22` for gfx950 and
    /// gfx1250/gfx1251) `-triple=amdgcn -mcpu=<processor> [-mattr=...] --disassemble` of the
    /// named record's bytes (its fixed bits, operand fields zero). "X decodes" means LLVM prints
    /// that record's instruction (checked with `-show-inst`); "rejected" means `invalid
    /// instruction encoding` or a different instruction. A predicate of a record LLVM decodes
    /// holds; one whose record is rejected where the same record decodes on a sibling (all its
    /// other predicates holding on both) does not. Rows marked "feature" come from the
    /// processor's feature list in `createMCSubtargetInfo` (the predicate is not checked by the
    /// decoder, so no encoding can show it).
    const FACTS: &[(&str, Mode, Pred, bool)] = &[
        // V_DOT8_I32_I4_vi 0000aad3_00000000: v_dot8_i32_i4 on gfx906, rejected on gfx900.
        ("gfx906", Mode::Default, Pred::HasDot1Insts, true),
        ("gfx900", Mode::Default, Pred::HasDot1Insts, false),
        // V_DOT2_U32_U16_vi 0000a7d3_00000000: v_dot2_u32_u16 on gfx906, rejected on gfx900.
        ("gfx906", Mode::Default, Pred::HasDot2Insts, true),
        ("gfx900", Mode::Default, Pred::HasDot2Insts, false),
        // V_DOT8C_I32_I4_e64_vi 00003ad1_00000000: v_dot8c_i32_i4_e64 on gfx908, rejected on gfx906.
        ("gfx908", Mode::Default, Pred::HasDot3Insts, true),
        ("gfx906", Mode::Default, Pred::HasDot3Insts, false),
        // V_XNOR_B32_e64_vi 00003dd1_00000000: v_xnor_b32_e64 on gfx906, rejected on gfx900.
        ("gfx906", Mode::Default, Pred::HasDLInsts, true),
        ("gfx900", Mode::Default, Pred::HasDLInsts, false),
        // 0000a0d3_00000000 is V_MAD_MIX_F32_vi (v_mad_mix_f32) on gfx900 and V_FMA_MIX_F32_vi
        // (v_fma_mix_f32) on gfx906: one encoding, two instructions.
        ("gfx900", Mode::Default, Pred::HasMadMixInsts, true),
        ("gfx900", Mode::Default, Pred::HasFmaMixInsts, false),
        ("gfx906", Mode::Default, Pred::HasMadMixInsts, false),
        ("gfx906", Mode::Default, Pred::HasFmaMixInsts, true),
        // V_FMA_MIXHI_F16_gfx10 000022cc_00000000: v_fma_mixhi_f16 on gfx1030.
        ("gfx1030", Mode::Default, Pred::HasFmaMixInsts, true),
        // V_MFMA_I32_4X4X4I8_vi 0000d2d3_00000000: v_mfma_i32_4x4x4i8 a[0:3] on gfx908, rejected
        // on gfx906; on gfx90a the same bytes are V_MFMA_I32_4X4X4I8_gfx90a_vcd (v[0:3]).
        ("gfx908", Mode::Default, Pred::HasMAIInsts, true),
        ("gfx906", Mode::Default, Pred::HasMAIInsts, false),
        ("gfx908", Mode::Default, Pred::isGFX8GFX9NotGFX90A, true),
        ("gfx90a", Mode::Default, Pred::isGFX8GFX9NotGFX90A, false),
        // GLOBAL_ATOMIC_MIN_F64_vi 008040dd_00007f00: the _vi record on gfx90a, the _gfx940 one
        // on gfx942.
        ("gfx90a", Mode::Default, Pred::isGFX90AOnly, true),
        ("gfx942", Mode::Default, Pred::isGFX90AOnly, false),
        // V_ACCVGPR_MOV_B32_vi 00a4007e: v_accvgpr_mov_b32 on gfx90a, rejected on gfx908.
        ("gfx90a", Mode::Default, Pred::isGFX90APlus, true),
        ("gfx908", Mode::Default, Pred::isGFX90APlus, false),
        // V_MOV_B64_e64_vi 000078d1_00000000: v_mov_b64_e64 on gfx942, rejected on gfx90a.
        ("gfx942", Mode::Default, Pred::isGFX940Plus, true),
        ("gfx90a", Mode::Default, Pred::isGFX940Plus, false),
        // IMAGE_GET_RESINFO_V1_V1 000038f0_00000000: that record on gfx908, the _gfx90a one on gfx90a.
        (
            "gfx908",
            Mode::Default,
            Pred::isGFX6GFX7GFX8GFX9NotGFX90A,
            true,
        ),
        (
            "gfx90a",
            Mode::Default,
            Pred::isGFX6GFX7GFX8GFX9NotGFX90A,
            false,
        ),
        // SCRATCH_STORE_SHORT_vi 004068dc_00007f00: scratch_store_short v0, v0, off on gfx90a;
        // gfx942 reads the same bytes as SCRATCH_STORE_SHORT_ST_gfx940 (off, v0, off).
        ("gfx90a", Mode::Default, Pred::isGFX8GFX9NotGFX940, true),
        ("gfx942", Mode::Default, Pred::isGFX8GFX9NotGFX940, false),
        // BUFFER_LOAD_FORMAT_D16_XYZW_gfx80_BOTHEN_gfx80 00302ce0_00000000: v[0:3] (unpacked) on
        // gfx803, v[0:1] (BUFFER_LOAD_FORMAT_D16_XYZW_BOTHEN_vi, packed) on gfx900.
        ("gfx803", Mode::Default, Pred::HasUnpackedD16VMem, true),
        ("gfx900", Mode::Default, Pred::HasUnpackedD16VMem, false),
        // TBUFFER_STORE_FORMAT_D16_X_OFFSET_vi 000006e8_00000000: that record on gfx900, the
        // _gfx80 one on gfx803.
        ("gfx900", Mode::Default, Pred::HasPackedD16VMem, true),
        ("gfx803", Mode::Default, Pred::HasPackedD16VMem, false),
        // DS_XOR_SRC2_B64_vi 000096d9_00000000: ds_xor_src2_b64 on gfx908, rejected on gfx90a.
        ("gfx908", Mode::Default, Pred::HasDsSrc2Insts, true),
        ("gfx90a", Mode::Default, Pred::HasDsSrc2Insts, false),
        // DS_ADD_SRC2_F32_gfx10 000054da_00000000: ds_add_src2_f32 on gfx1010, rejected on gfx1030.
        ("gfx1010", Mode::Default, Pred::HasDsSrc2Insts, true),
        ("gfx1030", Mode::Default, Pred::HasDsSrc2Insts, false),
        // S_GET_WAVEID_IN_WORKGROUP_gfx10 0000a8f4_00000000: decodes on gfx1010, rejected on gfx1030.
        ("gfx1010", Mode::Default, Pred::HasGetWaveIdInst, true),
        ("gfx1030", Mode::Default, Pred::HasGetWaveIdInst, false),
        // 000077d1_00000000 is V_MOVRELS_B32_e64_vi (v_movrels_b32_e64) on gfx803 but
        // v_screen_partition_4se_b32_e64 on gfx900: GFX9 has no movrel.
        ("gfx803", Mode::Default, Pred::HasMovrel, true),
        ("gfx900", Mode::Default, Pred::HasMovrel, false),
        // S_SET_GPR_IDX_IDX_vi 003280be: s_set_gpr_idx_idx s0 on gfx900; gfx1010: feature
        // (no vgpr-index-mode; GFX10 has movrel instead).
        ("gfx900", Mode::Default, Pred::HasVGPRIndexMode, true),
        ("gfx1010", Mode::Default, Pred::HasVGPRIndexMode, false),
        ("gfx1010", Mode::Default, Pred::HasMovrel, true),
        // V_SUB_CO_U32_e32_gfx9 00000034: v_sub_co_u32 on gfx900, v_sub_u32 (_vi) on gfx803.
        ("gfx900", Mode::Default, Pred::isGFX9Only, true),
        ("gfx803", Mode::Default, Pred::isGFX9Only, false),
        ("gfx803", Mode::Default, Pred::isGFX8Only, true),
        ("gfx900", Mode::Default, Pred::isGFX8Only, false),
        // V_PK_MUL_F32_vi 0000b1d3_00000000: v_pk_mul_f32 on gfx90a, rejected on gfx908.
        ("gfx90a", Mode::Default, Pred::HasPackedFP32Ops, true),
        ("gfx908", Mode::Default, Pred::HasPackedFP32Ops, false),
        // V_TRUNC_F64_dpp_vi fa2e007e_00000000: v_trunc_f64_dpp on gfx90a, rejected on gfx908.
        ("gfx90a", Mode::Default, Pred::HasDPALU_DPP, true),
        ("gfx908", Mode::Default, Pred::HasDPALU_DPP, false),
        // V_FMAC_F64_dpp_gfx90a fa000008_00000000: v_fmac_f64_dpp on gfx90a; gfx908: feature.
        ("gfx90a", Mode::Default, Pred::HasFmacF64Inst, true),
        ("gfx908", Mode::Default, Pred::HasFmacF64Inst, false),
        // GLOBAL_ATOMIC_PK_ADD_F16_vi 008038dd_00007f00: decodes on gfx908, rejected on gfx906.
        (
            "gfx908",
            Mode::Default,
            Pred::HasAtomicBufferGlobalPkAddF16NoRtnInsts,
            true,
        ),
        (
            "gfx906",
            Mode::Default,
            Pred::HasAtomicBufferGlobalPkAddF16NoRtnInsts,
            false,
        ),
        // GLOBAL_ATOMIC_ADD_F32_SADDR_RTN_vi 008035dd_00000000: decodes on gfx90a, rejected on gfx908.
        ("gfx90a", Mode::Default, Pred::HasAtomicFaddRtnInsts, true),
        ("gfx908", Mode::Default, Pred::HasAtomicFaddRtnInsts, false),
        // V_CVT_PK_FP8_F32_vi 0000a2d2_00000000: v_cvt_pk_fp8_f32 on gfx942, rejected on gfx90a.
        ("gfx942", Mode::Default, Pred::HasFP8ConversionInsts, true),
        ("gfx90a", Mode::Default, Pred::HasFP8ConversionInsts, false),
        // V_FMAAK_F32_gfx940 00000030_00000000: v_fmaak_f32 on gfx942, v_madak_f32 on gfx90a.
        ("gfx942", Mode::Default, Pred::HasFmaakFmamkF32Insts, true),
        ("gfx90a", Mode::Default, Pred::HasFmaakFmamkF32Insts, false),
        // IMAGE_BVH64_INTERSECT_RAY_a16_sa_gfx10 019f9cf1_00000040: decodes on gfx1013,
        // rejected on gfx1010.
        ("gfx1013", Mode::Default, Pred::HasGFX10_AEncoding, true),
        ("gfx1010", Mode::Default, Pred::HasGFX10_AEncoding, false),
        // BUFFER_ATOMIC_CSUB_BOTHEN_RTN_gfx10 0070d0e0_00000000: decodes on gfx1030, rejected on gfx1010.
        ("gfx1030", Mode::Default, Pred::HasGFX10_BEncoding, true),
        ("gfx1010", Mode::Default, Pred::HasGFX10_BEncoding, false),
        // V_MUL_LO_I32_gfx10 00006bd5_00000000: v_mul_lo_i32 on gfx1010, rejected on gfx1030.
        ("gfx1010", Mode::Default, Pred::isGFX10Before1030, true),
        ("gfx1030", Mode::Default, Pred::isGFX10Before1030, false),
        // SCRATCH_LOAD_DWORDX2_ST_gfx10 004034dc_00007f00: "off, off" on gfx1030; gfx1010 reads
        // the SADDR form (saddr = exec_hi).
        ("gfx1030", Mode::Default, Pred::HasFlatScratchSTMode, true),
        ("gfx1010", Mode::Default, Pred::HasFlatScratchSTMode, false),
        // 0000000c is v_fmac_legacy_f32 on gfx1030 but v_mac_legacy_f32 on gfx1010.
        ("gfx1030", Mode::Default, Pred::HasFmaLegacy32, true),
        ("gfx1010", Mode::Default, Pred::HasFmaLegacy32, false),
        ("gfx1010", Mode::Default, Pred::HasMadMacF32Insts, true),
        ("gfx1030", Mode::Default, Pred::HasMadMacF32Insts, false),
        // V_DOT2C_F32_F16_e32_gfx10 00000004: v_dot2c_f32_f16 on gfx1011, rejected on gfx1010.
        ("gfx1011", Mode::Default, Pred::HasDot5Insts, true),
        ("gfx1010", Mode::Default, Pred::HasDot5Insts, false),
        // S_ADD_F16_gfx11 000080a4: s_add_f16 on gfx1151, rejected on gfx1100.
        ("gfx1151", Mode::Default, Pred::HasSALUFloatInsts, true),
        ("gfx1100", Mode::Default, Pred::HasSALUFloatInsts, false),
        // S_SINGLEUSE_VDST_gfx11 000093bf: s_singleuse_vdst on gfx1151, rejected on gfx1100.
        (
            "gfx1151",
            Mode::Default,
            Pred::HasVGPRSingleUseHintInsts,
            true,
        ),
        (
            "gfx1100",
            Mode::Default,
            Pred::HasVGPRSingleUseHintInsts,
            false,
        ),
        // V_DUAL_SUB_F32_e32_X_SUB_F32_e32_gfx11 00004ac9_00000000: v_dual_sub_f32 in the
        // default (wave32) mode, rejected with +wavefrontsize64.
        ("gfx1100", Mode::Default, Pred::isWave32, true),
        ("gfx1100", Mode::W64, Pred::isWave32, false),
        // V_WMMA_BF16_16X16X16_BF16_twoaddr_w64_gfx11 000043cc_00000000: v[0:3] destination with
        // +wavefrontsize64, the _w32 record (v[0:7]) by default.
        ("gfx1100", Mode::W64, Pred::isWave64, true),
        ("gfx1100", Mode::Default, Pred::isWave64, false),
        ("gfx1201", Mode::Default, Pred::isWave32, true),
        ("gfx1201", Mode::W64, Pred::isWave32, false),
        // 01050064 (v_add_f16_e32 v0, v1, v2): V_ADD_F16_fake16_e32_gfx11 by default,
        // V_ADD_F16_t16_e32_gfx11 (v0.l, v1.l, v2.l) with +real-true16: LLVM 19 is fake16 by default.
        ("gfx1100", Mode::Default, Pred::UseRealTrue16Insts, false),
        ("gfx1100", Mode::RealT16, Pred::UseRealTrue16Insts, true),
        ("gfx1100", Mode::Default, Pred::UseFakeTrue16Insts, true),
        // V_COS_F16_fake16_e32_gfx11 still decodes with +real-true16 (no t16 record in LLVM 19).
        ("gfx1100", Mode::RealT16, Pred::UseFakeTrue16Insts, true),
        // V_SUB_F16_t16_e32_gfx12 00000066: v0.l with +real-true16, fake16 record by default.
        ("gfx1201", Mode::RealT16, Pred::UseRealTrue16Insts, true),
        ("gfx1201", Mode::Default, Pred::UseRealTrue16Insts, false),
        // V_S_EXP_F16_e64_gfx12 000081d6_00000000: v_s_exp_f16 on gfx1200.
        ("gfx1200", Mode::Default, Pred::HasPseudoScalarTrans, true),
        // BUFFER_ATOMIC_ADD_F32_VBUFFER_BOTHEN_RTN_gfx12 008015c4_000090c0_00000000 on gfx1200.
        ("gfx1200", Mode::Default, Pred::isGFX12Only, true),
        // V_DOT4_F32_BF8_BF8_dpp_gfx12 on gfx1201.
        ("gfx1201", Mode::Default, Pred::HasDot11Insts, true),
        // V_ADDC_U32_sdwa_vi f9000038_00000000: v_addc_u32_sdwa on gfx803; the same bytes are
        // V_ADDC_CO_U32_sdwa_gfx9 on gfx900 and V_ADD_CO_CI_U32_sdwa_gfx10 (f9000050...) on gfx1010.
        ("gfx803", Mode::Default, Pred::HasSDWA, true),
        ("gfx900", Mode::Default, Pred::HasSDWA, false),
        ("gfx900", Mode::Default, Pred::HasSDWA9, true),
        ("gfx1010", Mode::Default, Pred::HasSDWA10, true),
        // V_ADD_F16_dpp_vi fa00003e_00000000: v_add_f16_dpp on gfx803.
        ("gfx803", Mode::Default, Pred::HasDPP, true),
        // V_INTERP_P1LL_F16_vi (has32BankLDS) decodes on the 16-bank gfx810 too: not checked by
        // the decoder; the values are the feature lists' ldsbankcount16/32.
        ("gfx810", Mode::Default, Pred::has16BankLDS, true),
        ("gfx810", Mode::Default, Pred::has32BankLDS, false),
        ("gfx803", Mode::Default, Pred::has32BankLDS, true),
        // V_MAD_I64_I32_gfx11_e64_gfx11 0000ffd6_00000000 (HasMADIntraFwdBug) decodes on gfx1150,
        // which lacks the bug (feature mad-intra-fwd-bug only on gfx1100-gfx1103).
        ("gfx1100", Mode::Default, Pred::HasMADIntraFwdBug, true),
        ("gfx1151", Mode::Default, Pred::HasMADIntraFwdBug, false),
        // LLVM 22: V_MFMA_LD_SCALE_B32_vi 0000acd3_00000000: v_mfma_ld_scale_b32 on gfx950,
        // rejected on gfx942.
        ("gfx950", Mode::Default, Pred::HasGFX950Insts, true),
        ("gfx942", Mode::Default, Pred::HasGFX950Insts, false),
        // LLVM 22: V_PERMLANE16_SWAP_B32_e32_gfx9 00b2007e on gfx950, rejected on gfx942.
        ("gfx950", Mode::Default, Pred::HasPermlane16Swap, true),
        ("gfx942", Mode::Default, Pred::HasPermlane16Swap, false),
        // LLVM 22: V_BITOP3_B16_gfx9 000033d2_00000000 on gfx950, rejected on gfx942.
        ("gfx950", Mode::Default, Pred::HasBitOp3Insts, true),
        ("gfx942", Mode::Default, Pred::HasBitOp3Insts, false),
        // LLVM 22: V_PRNG_B32_e64_vi 000098d1_00000000 on gfx950, rejected on gfx942.
        ("gfx950", Mode::Default, Pred::HasPrngInst, true),
        ("gfx942", Mode::Default, Pred::HasPrngInst, false),
        // LLVM 22: BUFFER_ATOMIC_ADD_F32_BOTHEN_RTN_gfx940 007034e1_00000000 on gfx950.
        ("gfx950", Mode::Default, Pred::isGFX940Plus, true),
        // LLVM 22: V_ADD_F64_dpp_gfx12 fa000004_00000000: v_add_f64_dpp on gfx1251, rejected on gfx1250.
        ("gfx1251", Mode::Default, Pred::HasDPALU_DPP, true),
        ("gfx1250", Mode::Default, Pred::HasDPALU_DPP, false),
        // LLVM 22: CLUSTER_LOAD_B128_SADDR_gfx1250 00401aee_00000000_00000000 on gfx1250.
        ("gfx1250", Mode::Default, Pred::isGFX1250Plus, true),
        ("gfx1250", Mode::Default, Pred::HasMcastLoadInsts, true),
        // LLVM 22: V_TANH_F16 fake16 DPP on gfx1250.
        ("gfx1250", Mode::Default, Pred::HasTanhInsts, true),
        // LLVM 22: 00ba007e is v_trunc_f16_e32 v0, s0 (fake16) by default and v0.l with
        // +real-true16 (the t16 table is tried first). cae0d1d5_c913461c decodes as
        // V_CVT_F16_I16_fake16_e64_gfx12 (v_cvt_f16_i16_e64 v202, v201 clamp div:2) even with
        // +real-true16.
        ("gfx1250", Mode::Default, Pred::UseFakeTrue16Insts, true),
        ("gfx1250", Mode::Default, Pred::UseRealTrue16Insts, false),
        ("gfx1250", Mode::RealT16, Pred::UseRealTrue16Insts, true),
        ("gfx1250", Mode::RealT16, Pred::UseFakeTrue16Insts, true),
        // LLVM 22's gfx1250 lists wavefrontsize32 itself.
        ("gfx1250", Mode::Default, Pred::isWave32, true),
        // LLVM 22: V_PERMLANE32_SWAP_B32_e32_gfx9 00b4007e on gfx950, rejected on gfx942.
        ("gfx950", Mode::Default, Pred::HasPermlane32Swap, true),
        ("gfx942", Mode::Default, Pred::HasPermlane32Swap, false),
        // LLVM 22: V_MAXIMUM3_F32_vi 0000a9d2_00000000 on gfx950, rejected on gfx942.
        ("gfx950", Mode::Default, Pred::HasMinimum3Maximum3F32, true),
        ("gfx942", Mode::Default, Pred::HasMinimum3Maximum3F32, false),
        // LLVM 22: V_CVT_SCALEF32_F32_FP8_vi 00003bd2_00000000 on gfx950, rejected on gfx942.
        (
            "gfx950",
            Mode::Default,
            Pred::HasFP8ConversionScaleInsts,
            true,
        ),
        (
            "gfx942",
            Mode::Default,
            Pred::HasFP8ConversionScaleInsts,
            false,
        ),
        // LLVM 22: V_DOT2_F32_BF16_vi 00009ad3_00000000 on gfx950, rejected on gfx942.
        ("gfx950", Mode::Default, Pred::HasDot12Insts, true),
        ("gfx942", Mode::Default, Pred::HasDot12Insts, false),
        // LLVM 22: V_MFMA_F32_16X16X8XF32_gfx940_acd 0080bed3_00000000 on gfx942, rejected on
        // gfx950 (which dropped the xf32 MFMAs).
        ("gfx942", Mode::Default, Pred::HasXF32Insts, true),
        ("gfx950", Mode::Default, Pred::HasXF32Insts, false),
        // LLVM 22: V_MFMA_F32_16X16X32_BF8_BF8_gfx940_acd 0080f0d3_00000000 on gfx950 and gfx942.
        ("gfx950", Mode::Default, Pred::HasFP8Insts, true),
        // LLVM 22: V_CUBEID_F32_vi 0000c4d1_00000000 on gfx950; V_CUBEID_F32_e64_gfx12 on gfx1250.
        ("gfx950", Mode::Default, Pred::HasCubeInsts, true),
        ("gfx1250", Mode::Default, Pred::HasCubeInsts, true),
        // LLVM 22: V_ADDC_CO_U32_sdwa_gfx9 f9000038_00000000 (`HasSDWA`, unchecked in LLVM 22) on gfx950.
        ("gfx950", Mode::Default, Pred::HasSDWA, true),
        // LLVM 22: TBUFFER_LOAD_FORMAT_X_VBUFFER_OFFSET_gfx12 000020c4_00000000_00000000 on gfx1200,
        // rejected on gfx1250.
        ("gfx1250", Mode::Default, Pred::HasMTBUFInsts, false),
        ("gfx1201", Mode::Default, Pred::HasMTBUFInsts, true),
        // LLVM 22: GLOBAL_LOAD_TR_B128_w32_gfx12 7cc015ee_00000000_00000000 is the _gfx12 record on
        // gfx1200, the _gfx1250 one on gfx1250.
        ("gfx1201", Mode::Default, Pred::isGFX12Not12_50, true),
        ("gfx1250", Mode::Default, Pred::isGFX12Not12_50, false),
        // LLVM 22: S_WAIT_XCNT_gfx12 0000c5bf, S_SETPRIO_INC_WG_gfx12 0000bebf and
        // S_ADD_PC_I64_gfx12 004b80be on gfx1250, rejected on gfx1200.
        ("gfx1250", Mode::Default, Pred::HasWaitXcnt, true),
        ("gfx1201", Mode::Default, Pred::HasWaitXcnt, false),
        ("gfx1250", Mode::Default, Pred::HasSetPrioIncWgInst, true),
        ("gfx1201", Mode::Default, Pred::HasSetPrioIncWgInst, false),
        ("gfx1250", Mode::Default, Pred::HasAddPC64Inst, true),
        ("gfx1201", Mode::Default, Pred::HasAddPC64Inst, false),
        // LLVM 22: V_MAXIMUM_F32_e64_gfx12 000066d7_00000000 on gfx1200 and gfx1250.
        (
            "gfx1250",
            Mode::Default,
            Pred::HasIEEEMinimumMaximumInsts,
            true,
        ),
        // LLVM 22: V_DOT2_F32_BF16_gfx11 00001acc_00000000 on gfx1200 and gfx1100, rejected on gfx1250.
        ("gfx1250", Mode::Default, Pred::HasDot12Insts, false),
        ("gfx1100", Mode::Default, Pred::HasDot12Insts, true),
    ];

    #[test]
    fn facts_observed_with_llvm_mc() {
        assert!(FACTS.len() >= 40);
        let mut wrong = Vec::new();
        for &(name, mode, pred, expected) in FACTS {
            if holds(pred, &ctx(name, mode)) != expected {
                wrong.push(format!(
                    "{name} {mode:?} {}: expected {expected}",
                    pred.name()
                ));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn every_pred_is_evaluated_everywhere() {
        let preds = all_preds();
        assert_eq!(
            preds.len(),
            Pred::COUNT,
            "some Pred appears in no encoding record"
        );
        for p in PROCESSORS {
            for (wave64, real_true16) in
                [(false, false), (true, false), (false, true), (true, true)]
            {
                let c = PredContext {
                    processor: p,
                    wave64,
                    real_true16,
                };
                for &pred in &preds {
                    let v = holds(pred, &c);
                    if p.generation == Generation::R600 {
                        assert!(!v, "{} holds on {}", pred.name(), p.name);
                    }
                }
            }
        }
        let unchecked: Vec<&str> = preds
            .iter()
            .filter(|&&p| !checked_by_decoder(p))
            .map(|p| p.name())
            .collect();
        assert_eq!(
            unchecked,
            [
                "HasAtomicCSubNoRtnInsts",
                "HasMADIntraFwdBug",
                "HasNotMADIntraFwdBug",
                "HasScalarDwordx3Loads",
                "NoFP32Denormals",
                "has16BankLDS",
                "has32BankLDS"
            ]
        );
    }

    #[test]
    fn every_processor_has_its_own_feature_list() {
        for p in PROCESSORS {
            assert!(
                PROCESSOR_FEATURES.iter().any(|e| e.name == p.name),
                "{} has no feature list",
                p.name
            );
            assert_eq!(entry(p).name, p.name);
        }
        assert_eq!(PROCESSOR_FEATURES.len(), PROCESSORS.len());
        for (i, a) in PROCESSOR_FEATURES.iter().enumerate() {
            assert!(
                PROCESSOR_FEATURES[i + 1..].iter().all(|b| b.name != a.name),
                "{} listed twice",
                a.name
            );
            assert_eq!(a.set, Features::of(a.list));
        }
        // A processor this module does not know falls back to its family.
        let unknown = Processor {
            name: "gfx9999",
            mach: 0xff,
            ..*processor("gfx1201")
        };
        assert_eq!(features(&unknown), features(processor("gfx12-generic")));
    }

    #[test]
    fn feature_lists_match_llvm() {
        let has = |name: &str, f: Feature| features(processor(name)).contains(&f);
        // FeatureISAVersion9_0_Consumer_Common has ds-src2; the MI parts from gfx90a on do not.
        assert!(has("gfx900", Feature::DsSrc2Insts) && has("gfx906", Feature::DsSrc2Insts));
        assert!(has("gfx908", Feature::DsSrc2Insts) && !has("gfx90a", Feature::DsSrc2Insts));
        assert!(!has("gfx942", Feature::DsSrc2Insts) && !has("gfx1030", Feature::DsSrc2Insts));
        // mad-mix on gfx900/902/909/90c, fma-mix from gfx904/906 on.
        for name in ["gfx900", "gfx902", "gfx909", "gfx90c"] {
            assert!(
                has(name, Feature::MadMixInsts) && !has(name, Feature::FmaMixInsts),
                "{name}"
            );
        }
        // gfx9-generic must run on both kinds, so LLVM gives it neither.
        assert!(
            !has("gfx9-generic", Feature::MadMixInsts)
                && !has("gfx9-generic", Feature::FmaMixInsts)
        );
        for name in [
            "gfx904", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100",
            "gfx1201",
        ] {
            assert!(
                !has(name, Feature::MadMixInsts) && has(name, Feature::FmaMixInsts),
                "{name}"
            );
        }
        assert!(has("gfx810", Feature::LDSBankCount16) && !has("gfx810", Feature::LDSBankCount32));
        assert!(
            has("gfx803", Feature::UnpackedD16VMem) && !has("gfx810", Feature::UnpackedD16VMem)
        );
        assert!(
            has("gfx942", Feature::FP8ConversionInsts)
                && !has("gfx9-4-generic", Feature::FP8ConversionInsts)
        );
        assert!(
            has("gfx1100", Feature::MADIntraFwdBug) && !has("gfx1151", Feature::MADIntraFwdBug)
        );
        assert!(
            has("gfx1250", Feature::WavefrontSize32) && !has("gfx1201", Feature::WavefrontSize32)
        );
        assert!(has("gfx1251", Feature::DPALU_DPP) && !has("gfx1250", Feature::DPALU_DPP));
        assert!(!has("gfx1250", Feature::ImageInsts) && has("gfx1201", Feature::ImageInsts));
        assert!(features(processor("r600")).is_empty());
        assert_eq!(Feature::GFX10_3Insts.record_name(), "FeatureGFX10_3Insts");
        assert_eq!(Feature::GFX10_3Insts.llvm_name(), "gfx10-3-insts");
        assert_eq!(Feature::_16BitInsts.record_name(), "Feature16BitInsts");
    }

    #[test]
    fn default_modes() {
        let c = PredContext::new(processor("gfx900"));
        assert!(c.wave64 && holds(Pred::isWave64, &c) && !holds(Pred::isWave32, &c));
        // Pre-GFX10 processors ignore a wave32 request: they only have wave64.
        let c = PredContext { wave64: false, ..c };
        assert!(holds(Pred::isWave64, &c) && !holds(Pred::isWave32, &c));
        let c = PredContext::new(processor("gfx1030"));
        assert!(
            !c.wave64 && !c.real_true16 && holds(Pred::isWave32, &c) && !holds(Pred::isWave64, &c)
        );
        assert_eq!(llvm_version(processor("gfx942")), 19);
        assert_eq!(llvm_version(processor("gfx950")), 22);
        assert_eq!(llvm_version(processor("gfx1251")), 22);
    }

    /// Pairs of predicates that pick between two meanings of one encoding never both hold.
    #[test]
    fn sibling_predicates_are_exclusive() {
        let pairs = [
            (Pred::HasMadMixInsts, Pred::HasFmaMixInsts),
            (Pred::HasUnpackedD16VMem, Pred::HasPackedD16VMem),
            (Pred::has16BankLDS, Pred::has32BankLDS),
            (Pred::HasTrue16BitInsts, Pred::NotHasTrue16BitInsts),
            (Pred::isGFX90AOnly, Pred::isGFX8GFX9NotGFX90A),
            (Pred::HasSDWA8, Pred::HasSDWA9),
            (Pred::HasSDWA8, Pred::HasSDWA10),
            (Pred::HasSDWA9, Pred::HasSDWA10),
            (Pred::HasDPP, Pred::HasDPP16),
            (Pred::HasMADIntraFwdBug, Pred::HasNotMADIntraFwdBug),
        ];
        for p in PROCESSORS {
            for wave64 in [false, true] {
                let c = PredContext {
                    processor: p,
                    wave64,
                    real_true16: false,
                };
                // LLVM 19's `HasSDWA` is LLVM 22's `HasSDWA8`.
                let pairs = pairs
                    .iter()
                    .copied()
                    .chain((llvm_version(p) == 19).then_some((Pred::HasSDWA, Pred::HasSDWA9)));
                for (a, b) in pairs {
                    assert!(
                        !(holds(a, &c) && holds(b, &c)),
                        "{} and {} both hold on {}",
                        a.name(),
                        b.name(),
                        p.name
                    );
                }
                if p.generation >= Generation::Gfx10_1 {
                    assert!(
                        holds(Pred::isWave32, &c) != holds(Pred::isWave64, &c)
                            || p.generation == Generation::Gfx1250
                    );
                }
            }
        }
    }
}
