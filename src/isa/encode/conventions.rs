//! Producer conventions: what a compiler writes in the bits of an encoding that no operand
//! carries and the hardware ignores.
//!
//! The operands (and so the assembler text) do not determine those bits, and producers differ:
//! GFX10+ `v_cmpx_*_e64` implicitly write EXEC and have no destination operand, but keep the
//! 8-bit destination field of the VOP3 encoding. LLVM 19's code emitter writes EXEC_LO (0x7e)
//! there, "for compatibility with SP3" as its comment says; Debian's clang 15 (the compiler
//! of the real corpus, librocsparse and librocrand) left it 0, and LLVM's assembler did too
//! (llvm-project#56080). LLVM's disassembler accepts any value and prints the same text.
//!
//! So re-assembling text that came from a code object reproduces its bytes only if the encoder
//! writes those bits as that object's producer did. [`Conventions::LLVM`] is the default (what
//! `llvm-mc` writes); [`Observer`] reads the conventions a code object's own instructions show,
//! and a convention is taken only where every instruction it concerns agrees: never a guess
//! from a version string.

use super::super::decode::Decoder;
use super::super::inst::Inst;
use super::super::table::{flag, implicit, Encoding};
use super::super::target::Target;

/// How to fill the bits no operand carries (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Conventions {
    /// The byte GFX10+ `v_cmpx_*_e64` (VOP3 compares that write EXEC) hold in their unused
    /// destination field (bits 7..0).
    pub vcmpx_e64_dst: u8,
}

impl Conventions {
    /// What LLVM 19's code emitter writes (and so `llvm-mc -show-encoding` shows).
    pub const LLVM: Conventions = Conventions { vcmpx_e64_dst: 0x7e };

    /// The bits these conventions set in `encoding` on `target`, beyond its fields and pattern
    /// (the caller masks those out).
    pub(super) fn extras(&self, encoding: &Encoding, target: &Target) -> u128 {
        if is_vcmpx_e64(encoding, target) {
            u128::from(self.vcmpx_e64_dst)
        } else {
            0
        }
    }
}

impl std::fmt::Display for Conventions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "v_cmpx_*_e64 unused destination {:#04x}", self.vcmpx_e64_dst)
    }
}

/// Whether `encoding` is a GFX10+ VOP3 compare that writes EXEC (`v_cmpx_*_e64`): its
/// destination field is encoded but carries no operand.
fn is_vcmpx_e64(encoding: &Encoding, target: &Target) -> bool {
    target.generation().is_gfx10_plus() && encoding.flags.has(flag::VOP3) && encoding.defs.has(implicit::EXEC)
}

/// What the instructions seen so far agree on, for one convention.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Agreement {
    /// No instruction the convention concerns.
    Unseen,
    /// Every one holds this value.
    All(u8),
    /// They differ: the producer had no single convention (or the code was patched).
    Mixed,
}

impl Agreement {
    fn see(self, value: u8) -> Agreement {
        match self {
            Agreement::Unseen => Agreement::All(value),
            Agreement::All(v) if v == value => self,
            _ => Agreement::Mixed,
        }
    }

    /// The agreed value, or `default` where nothing was seen or the instructions disagree.
    fn or(self, default: u8) -> u8 {
        match self {
            Agreement::All(v) => v,
            Agreement::Unseen | Agreement::Mixed => default,
        }
    }
}

/// Reads the conventions a code object's instructions show: feed it every decoded
/// instruction ([`Observer::see`]), then ask [`Observer::conventions`]. A convention no
/// instruction shows, or on which the instructions disagree, stays LLVM's.
#[derive(Clone, Copy, Debug)]
pub struct Observer {
    target: Target,
    vcmpx_e64_dst: Agreement,
}

impl Observer {
    pub fn new(target: Target) -> Observer {
        Observer { target, vcmpx_e64_dst: Agreement::Unseen }
    }

    pub fn see(&mut self, inst: &Inst) {
        let Some(encoding) = inst.encoding() else { return };
        if is_vcmpx_e64(encoding, &self.target) {
            self.vcmpx_e64_dst = self.vcmpx_e64_dst.see(inst.encoded_bits() as u8);
        }
    }

    /// Sees every instruction of `code` (a code object's executable section), decoded in a
    /// linear sweep with `decoder` (which must be for the observer's target).
    pub fn see_code(&mut self, code: &[u8], decoder: &Decoder) {
        debug_assert_eq!(decoder.target(), &self.target);
        let mut at = 0;
        while at + 4 <= code.len() {
            let inst = decoder.decode(&code[at..]);
            self.see(&inst);
            at += inst.len();
        }
    }

    pub fn conventions(&self) -> Conventions {
        Conventions { vcmpx_e64_dst: self.vcmpx_e64_dst.or(Conventions::LLVM.vcmpx_e64_dst) }
    }

    /// Whether the instructions seen disagree on some convention (so it stays LLVM's, and
    /// re-assembled text may differ from them in those bits).
    pub fn mixed(&self) -> bool {
        self.vcmpx_e64_dst == Agreement::Mixed
    }
}
