//! An interpreter for AMD's ISA pseudocode: one meaning of each instruction, shared by the
//! peephole rule prover and the emulator (`crate::emu`).
//!
//! AMD's reference guides describe each ALU instruction in a small C-like language:
//! `D0.u32 = ((S0.u32 << S1.u32[4 : 0].u32) | S2.u32)`, `tmp = 64'U(S0.u32) + 64'U(S1.u32);
//! SCC = tmp >= 0x100000000ULL ? 1'1U : 1'0U; D0.u32 = tmp.u32`. This module parses such a text
//! once into statements and runs them on one lane: sources `S0..S2`, destination `D0`, `SCC`,
//! the lane's bit of `VCC`, and temporaries.
//!
//! Two subsets are accepted ([`Subset`]). The prover's ([`Program::parse`]) is one lane's
//! integer effect on D0, SCC and VCC's lane bit: what a rewrite rule may touch. The machine's
//! ([`Program::parse_machine`]) adds what running a wave needs: compares writing one bit of D0
//! per lane, EXEC (whole or one lane's bit), the second destination `D1`, named temporaries,
//! chained (`EXEC.u64[laneId] = D0.u64[laneId] = ...`) and concatenated (`{ D1.u1, D0.u64 } =
//! ...`) writes, `signext`, `if`/`elsif`/`else`/`endif`, `lambda`s, and floating point: the
//! `.f16`/`.f32`/`.f64` views, float literals and casts (`0.5F`, `64'F(x)`), `INF`/`NAN`, and
//! the pseudocode's float functions ([`Func`]). Anything outside the chosen subset (memory,
//! loops, other function calls) is a parse error, so a text that is not what it claims to be
//! fails instead of being half-evaluated.
//!
//! # Floating point
//!
//! AMD's pseudocode writes float arithmetic as if it were exact (`floor(S0.f32 + 0.5F)` in
//! `V_RNDNE_F32` only works so). The evaluator computes `+ - * /` and `sqrt` on f16 and f32
//! values in f64, which is exact for `+ - *` of f16/f32 operands in the cases the texts use
//! and, for the single operation of `V_ADD_F32` and its kin, rounds once more when the result
//! is stored at its type: a double rounding that is innocuous because f64 has more than twice
//! f32's precision plus two bits (so `V_ADD_F32` equals IEEE's correctly rounded f32 add). `fma`
//! is computed at its operands' own type (f32 `mul_add`, f64 `mul_add`) so it rounds once.
//! `pow(2.0F, x)` (`V_EXP_F32`), `log2`, `1.0 / x` and `1.0 / sqrt(x)` are the host's f64
//! results rounded to the destination: hardware computes these to about one ulp, the
//! evaluator (nearly always) to the correctly rounded value. Results that are NaN get AMD's
//! default quiet NaN (`0x7fc00000`) unless an input NaN propagates.
//! Denormals are flushed where the wave's MODE says ([`Frame::mode`]): sources read through a
//! float view and results written to `D0` at a float type.

use std::fmt;

/// A typed value: the low `width` bits of `bits` are the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Val {
    bits: u128,
    width: u8,
    signed: bool,
    /// An IEEE binary16/32/64 value (`width` 16, 32 or 64).
    float: bool,
    /// An unsuffixed number (`96`): compared with a signed value it is signed too, as C's
    /// `int` would be (`exponent(S2.f32) - exponent(S1.f32) >= 96`, `S0.i32 < 0`). In both
    /// subsets: the prover must not read `S0.i32 < 0` as an unsigned compare, never true.
    literal: bool,
}

fn mask(width: u8) -> u128 {
    if width >= 128 { u128::MAX } else { (1u128 << width) - 1 }
}

impl Val {
    fn new(bits: u128, width: u8, signed: bool) -> Val {
        Val { bits: bits & mask(width), width, signed, float: false, literal: false }
    }

    /// A float of `width` bits (16, 32, 64) with value `x`, rounded once to the width.
    fn from_f64(x: f64, width: u8) -> Val {
        let bits = match width {
            64 => u128::from(x.to_bits()),
            32 => u128::from((x as f32).to_bits()),
            _ => u128::from(float::f64_to_f16(x)),
        };
        Val { bits, width, signed: false, float: true, literal: false }
    }

    /// The value as an f64 (exact for every float width; integers by their signed value).
    fn to_f64(self) -> f64 {
        if !self.float {
            return self.as_i128() as f64;
        }
        match self.width {
            64 => f64::from_bits(self.bits as u64),
            32 => f64::from(f32::from_bits(self.bits as u32)),
            _ => float::f16_to_f64(self.bits as u16),
        }
    }

    fn is_nan(self) -> bool {
        self.float && self.to_f64().is_nan()
    }

    /// Bit position of the sign (floats).
    fn sign_bit(self) -> u128 {
        1u128 << (self.width - 1)
    }

    /// Converted to float type `ty` (value-preserving between float widths), or reinterpreted
    /// (between an integer and a float, or between integers).
    fn convert(self, ty: Ty) -> Val {
        if self.float && ty.float {
            if self.width == ty.width {
                return Val { signed: false, ..self };
            }
            // A NaN keeps its sign and quietness, as hardware conversions do.
            if self.is_nan() {
                let neg = self.bits & self.sign_bit() != 0;
                let nan = match ty.width {
                    64 => 0x7ff8_0000_0000_0000u128,
                    32 => 0x7fc0_0000,
                    _ => 0x7e00,
                };
                return Val { bits: nan | if neg { 1u128 << (ty.width - 1) } else { 0 }, width: ty.width, signed: false, float: true, literal: false };
            }
            return Val::from_f64(self.to_f64(), ty.width);
        }
        self.cast(ty)
    }

    /// The value extended to 128 bits by its signedness.
    fn extended(self) -> u128 {
        if self.signed && self.width < 128 && self.bits >> (self.width - 1) & 1 == 1 {
            self.bits | !mask(self.width)
        } else {
            self.bits
        }
    }

    fn as_i128(self) -> i128 {
        self.extended() as i128
    }

    /// Reinterpreted as `ty` (truncating, or extending by the source's signedness).
    fn cast(self, ty: Ty) -> Val {
        let bits = if self.float { self.bits } else { self.extended() };
        Val { float: ty.float, ..Val::new(bits, ty.width, ty.signed) }
    }

    fn truth(self) -> bool {
        if self.float { self.to_f64() != 0.0 } else { self.bits != 0 }
    }

    fn bool(b: bool) -> Val {
        Val::new(u128::from(b), 1, false)
    }
}

/// A typed view: `.u32`, `.i64`, `.b32`, `1'U`, `.f32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ty {
    pub width: u8,
    pub signed: bool,
    /// An IEEE float (`.f16`, `.f32`, `.f64`, `32'F`).
    pub float: bool,
}

impl Ty {
    fn int(width: u8, signed: bool) -> Ty {
        Ty { width, signed, float: false }
    }

    fn parse(name: &str) -> Option<Ty> {
        let (signed, float, digits) = match name.as_bytes().first()? {
            b'u' | b'b' => (false, false, &name[1..]),
            b'i' => (true, false, &name[1..]),
            b'f' => (false, true, &name[1..]),
            _ => return None,
        };
        let width: u8 = digits.parse().ok()?;
        if float {
            return matches!(width, 16 | 32 | 64).then_some(Ty { width, signed, float });
        }
        matches!(width, 1 | 4 | 8 | 16 | 24 | 32 | 64).then_some(Ty { width, signed, float })
    }
}

/// The pseudocode's functions the machine subset evaluates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    Fma,
    IsNan,
    IsSignalNan,
    IsQuietNan,
    CvtToQuietNan,
    IsEven,
    /// The biased exponent field.
    Exponent,
    /// The sign bit.
    Sign,
    Abs,
    /// `frexp`'s mantissa, in [0.5, 1).
    Mantissa,
    Trunc,
    Floor,
    Fract,
    Sqrt,
    Log2,
    Pow,
    Ldexp,
    /// Whether a value is a denormal (`x == DENORM.f32`).
    IsDenorm,
    /// `i32_to_f32`, `f64_to_u32`, ...: a conversion to this type.
    Convert(Ty),
    /// `f32_to_f16` between `ROUND_MODE = ROUND_TOWARD_ZERO` and the restore of the saved
    /// mode (`V_CVT_PK_RTZ_F16_F32`): a float to binary16, rounded toward zero.
    ToF16TowardZero,
    /// `v_min_f32(a, b)` and kin: the instruction's result (IEEE mode's NaN rules).
    Min,
    Max,
}

impl Func {
    fn parse(name: &str) -> Option<Func> {
        use Func::*;
        Some(match name {
            "fma" => Fma,
            "isNAN" => IsNan,
            "isSignalNAN" => IsSignalNan,
            "isQuietNAN" => IsQuietNan,
            "cvtToQuietNAN" => CvtToQuietNan,
            "isEven" => IsEven,
            "exponent" => Exponent,
            "sign" => Sign,
            "abs" => Abs,
            "mantissa" => Mantissa,
            "trunc" => Trunc,
            "floor" => Floor,
            "fract" => Fract,
            "sqrt" => Sqrt,
            "log2" => Log2,
            "pow" => Pow,
            "ldexp" => Ldexp,
            "v_min_f32" | "v_min_f64" | "v_min_f16" => Min,
            "v_max_f32" | "v_max_f64" | "v_max_f16" => Max,
            _ => {
                // `i32_to_f32`, `f32_to_u32`, `f16_to_f32`, ...
                let (_, to) = name.split_once("_to_")?;
                return Some(Convert(Ty::parse(to)?));
            }
        })
    }

    fn arity(self) -> usize {
        match self {
            Func::Fma => 3,
            Func::Pow | Func::Ldexp | Func::Min | Func::Max => 2,
            _ => 1,
        }
    }
}

/// Which language a text is parsed in (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subset {
    /// One lane's integer effect on D0, SCC and VCC's lane bit (rewrite rules).
    Prover,
    /// Everything [`Subset::Prover`] accepts, and lane masks, EXEC, D1, named temporaries,
    /// chained and concatenated writes, `signext` (running waves).
    Machine,
}

#[derive(Clone, Debug, PartialEq)]
enum Expr {
    Const(Val),
    /// `S0`..`S2`, untyped until a view is applied.
    Src(u8),
    D0,
    Scc,
    Vcc,
    Exec,
    LaneId,
    /// A temporary, by its index in [`Program::temps`].
    Tmp(u8),
    /// `signext(x)`: `x` read as signed, so a widening cast extends its sign.
    SignExt(Box<Expr>),
    View(Box<Expr>, Ty),
    Slice(Box<Expr>, u8, u8),
    /// `x[laneId]`: one bit at the lane's position.
    LaneBit(Box<Expr>),
    Cast(Ty, Box<Expr>),
    Unary(char, Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `x[i]` with a computed bit index (`S1.u32[sign(S0.f32) ? 2 : 9]`).
    BitAt(Box<Expr>, Box<Expr>),
    Call(Func, Vec<Expr>),
    /// A lambda's parameter while its body is parsed (substituted at each call).
    Param(u8),
    /// `WAVE_MODE.IEEE`.
    IeeeMode,
    /// `DENORM.f32` (its width): only compared with `==` (which becomes [`Func::IsDenorm`]).
    Denorm(u8),
    /// A constant the pseudocode names but does not define (`OVERFLOW_F32`): reading it stops.
    Undefined(&'static str),
}

/// What a statement writes.
#[derive(Clone, Debug, PartialEq)]
enum Place {
    D0(Ty),
    Scc,
    /// `VCC.u64[laneId]`.
    VccLane,
    Tmp(u8),
    /// `D0.u64[laneId]`: the lane's bit of a mask destination (compares).
    D0Lane,
    /// `D1.u1`: the lane's bit of the second (carry-out) destination.
    D1Lane,
    /// `EXEC.u64[laneId]`.
    ExecLane,
    /// `EXEC.u32 = ...`, `EXEC.u64 = ...`: the whole mask (scalar instructions).
    Exec(Ty),
    /// `{ D1.u1, D0.u64 } = ...`: the parts from the most significant down, each with its width.
    Concat(Vec<(Place, u8)>),
    /// A status bit the emulator does not keep (`TRAPSTS.INVALID = 1`).
    Discard,
    /// `tmp[hi : lo].ty = x`: the temporary, its lowest bit, the field's width, and the type x
    /// is stored at.
    TmpField(u8, u8, u8, Ty),
}

/// One statement.
#[derive(Clone, Debug, PartialEq)]
enum Stmt {
    /// The places written (several for a chained `a = b = x`) and the value.
    Assign(Vec<Place>, Expr),
    /// `if c then .. elsif c then .. else .. endif`: each condition with its block, then the
    /// `else` block.
    If(Vec<(Expr, Vec<Stmt>)>, Vec<Stmt>),
}

/// A parsed pseudocode text.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    stmts: Vec<Stmt>,
    /// Names of the temporaries, indexed by [`Expr::Tmp`].
    temps: Vec<String>,
}

/// Why a text is not in the subset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError(pub String);

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// A number with its width (32 unless suffixed `ULL`, or too large).
    Num(u128, u8),
    /// `1'1U`, `1'0U`: a sized constant.
    Sized(u128, u8),
    /// `64'U(`, `32'I(`, `32'F(`: a sized cast (the `(` is consumed).
    Cast(Ty),
    /// `0.5F` (f32), `1.0` (f64).
    Float(f64, u8),
    Op(&'static str),
}

const OPS: [&str; 35] = [
    "**", "+=", "-=", "<>", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "&", "|", "^", "~", "!", "<", ">", "=", "?", ":", "(",
    ")", "[", "]", ".", ";", "{", "}", ",",
];

/// Most temporaries one text may name (AMD's have one to three).
const MAX_TEMPS: usize = 8;

/// A lower-case name the machine subset takes for a temporary (`saveexec`, `result`); AMD's
/// functions are called, so a name followed by `(` is not one.
fn is_temp_name(name: &str) -> bool {
    name.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !matches!(name, "declare" | "if" | "then" | "else" | "elsif" | "endif" | "for" | "endfor" | "in" | "do" | "laneId")
}

fn lex(text: &str) -> Result<Vec<Tok>, SyntaxError> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    // Open parentheses: a line break inside them continues the expression.
    let mut depth = 0usize;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            // A line break ends a statement like `;`.
            if c == '\n' && depth == 0 {
                out.push(Tok::Op(";"));
            }
            i += 1;
            continue;
        }
        if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(b.len(), |n| i + n);
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'\'') {
                i += 1;
            }
            // `0.5F`, `1.0`: a float literal (f32 with the `F` suffix).
            if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) && text[start..i].bytes().all(|d| d.is_ascii_digit()) {
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let v: f64 = text[start..i].parse().map_err(|_| SyntaxError(format!("bad number `{}`", &text[start..i])))?;
                let width = if b.get(i) == Some(&b'F') {
                    i += 1;
                    32
                } else {
                    64
                };
                out.push(Tok::Float(v, width));
                continue;
            }
            out.push(number(&text[start..i])?);
            if matches!(out.last(), Some(Tok::Cast(_))) {
                if b.get(i) != Some(&b'(') {
                    // A type alone (`declare result : 1'U;`), which only a declaration may hold.
                    out.pop();
                    out.push(Tok::Ident(text[start..i].to_owned()));
                    continue;
                }
                depth += 1;
                i += 1;
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(text[start..i].to_owned()));
            continue;
        }
        // `<>` is kept apart from `!=`: on floats it is false for NaN (ordered), `!=` true.
        let op = OPS.iter().find(|op| text[i..].starts_with(**op)).ok_or_else(|| SyntaxError(format!("unexpected `{c}`")))?;
        match *op {
            "(" => depth += 1,
            ")" => depth = depth.saturating_sub(1),
            _ => {}
        }
        out.push(Tok::Op(op));
        i += op.len();
    }
    Ok(out)
}

/// `4`, `1U`, `0x100000000ULL`, `1'1U`, `64'U` (a cast; its `(` follows).
fn number(text: &str) -> Result<Tok, SyntaxError> {
    let bad = || SyntaxError(format!("bad number `{text}`"));
    if let Some((size, rest)) = text.split_once('\'') {
        let width: u8 = size.parse().map_err(|_| bad())?;
        return match rest {
            "U" | "I" | "B" | "F" => Ok(Tok::Cast(Ty { width, signed: rest == "I", float: rest == "F" })),
            _ => {
                let digits = rest.trim_end_matches('U');
                let v = digits.parse::<u128>().map_err(|_| bad())?;
                Ok(Tok::Sized(v, width))
            }
        };
    }
    let long = text.ends_with("ULL") || text.ends_with("LL");
    let digits = text.trim_end_matches(['U', 'L']);
    let v = match digits.strip_prefix("0x") {
        Some(hex) => u128::from_str_radix(hex, 16),
        None => digits.parse::<u128>(),
    }
    .map_err(|_| bad())?;
    let width = if long || v > u128::from(u32::MAX) { 64 } else { 32 };
    Ok(Tok::Num(v, width))
}

struct Parser {
    toks: Vec<Tok>,
    at: usize,
    subset: Subset,
    temps: Vec<String>,
    /// `NAME = lambda(a, b) (body)`: the name, its parameters' count and the body (with
    /// [`Expr::Param`]s), inlined at each call.
    lambdas: Vec<(String, usize, Expr)>,
    /// Parameter names of the lambda whose body is being parsed.
    params: Vec<String>,
    /// The temporary `prev_mode = ROUND_MODE` saved the round mode in.
    saved_round_mode: Option<String>,
    /// Between `ROUND_MODE = ROUND_TOWARD_ZERO` and `ROUND_MODE = prev_mode`.
    toward_zero: bool,
}

/// `e` with each [`Expr::Param`] replaced by its argument.
fn substitute(e: &Expr, args: &[Expr]) -> Expr {
    let sub = |x: &Expr| Box::new(substitute(x, args));
    match e {
        Expr::Param(i) => args[*i as usize].clone(),
        Expr::SignExt(x) => Expr::SignExt(sub(x)),
        Expr::View(x, ty) => Expr::View(sub(x), *ty),
        Expr::Slice(x, hi, lo) => Expr::Slice(sub(x), *hi, *lo),
        Expr::LaneBit(x) => Expr::LaneBit(sub(x)),
        Expr::Cast(ty, x) => Expr::Cast(*ty, sub(x)),
        Expr::Unary(op, x) => Expr::Unary(*op, sub(x)),
        Expr::Binary(op, a, b) => Expr::Binary(op, sub(a), sub(b)),
        Expr::Select(c, a, b) => Expr::Select(sub(c), sub(a), sub(b)),
        Expr::BitAt(x, i) => Expr::BitAt(sub(x), sub(i)),
        Expr::Call(f, xs) => Expr::Call(*f, xs.iter().map(|x| substitute(x, args)).collect()),
        other => other.clone(),
    }
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn eat(&mut self, op: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Op(o)) if *o == op) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, op: &str) -> Result<(), SyntaxError> {
        if self.eat(op) { Ok(()) } else { Err(SyntaxError(format!("expected `{op}`, found {:?}", self.peek()))) }
    }

    fn program(&mut self) -> Result<Program, SyntaxError> {
        let stmts = self.block()?;
        if let Some(tok) = self.peek() {
            return Err(SyntaxError(format!("unexpected {tok:?}")));
        }
        if stmts.is_empty() {
            return Err(SyntaxError("no statements".into()));
        }
        if self.toward_zero {
            return Err(SyntaxError("ROUND_MODE is set toward zero and never restored".into()));
        }
        Ok(Program { stmts, temps: std::mem::take(&mut self.temps) })
    }

    fn at_ident(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(w)) if w == word)
    }

    /// Statements up to the end, or to an `elsif`, `else` or `endif` (left for the caller).
    fn block(&mut self) -> Result<Vec<Stmt>, SyntaxError> {
        let mut stmts = Vec::new();
        loop {
            while self.eat(";") {}
            let Some(tok) = self.peek().cloned() else { break };
            if tok == Tok::Ident("declare".into()) {
                // `declare tmp : 32'B;` only states a type; the first assignment gives one.
                while self.peek().is_some() && !self.eat(";") {
                    self.at += 1;
                }
                continue;
            }
            if ["elsif", "else", "endif"].iter().any(|w| self.at_ident(w)) {
                break;
            }
            if self.machine() && self.round_mode_stmt()? {
                // A save, set or restore of ROUND_MODE: no statement of its own.
            } else if self.at_ident("if") {
                if !self.machine() {
                    return Err(SyntaxError("`if` is outside the prover's subset".into()));
                }
                stmts.push(self.if_stmt()?);
            } else if let Some(stmt) = self.lambda_or_assign()? {
                stmts.push(stmt);
            }
            if self.peek().is_some() && !self.eat(";") && !["elsif", "else", "endif"].iter().any(|w| self.at_ident(w)) {
                return Err(SyntaxError(format!("expected `;`, found {:?}", self.peek())));
            }
        }
        Ok(stmts)
    }

    /// `if c then .. [elsif c then ..]* [else ..] endif` (at `if`).
    fn if_stmt(&mut self) -> Result<Stmt, SyntaxError> {
        let mut arms = Vec::new();
        self.at += 1;
        loop {
            let cond = self.expr()?;
            if !self.at_ident("then") {
                return Err(SyntaxError(format!("expected `then`, found {:?}", self.peek())));
            }
            self.at += 1;
            arms.push((cond, self.block()?));
            if self.at_ident("elsif") {
                self.at += 1;
                continue;
            }
            let otherwise = if self.at_ident("else") {
                self.at += 1;
                self.block()?
            } else {
                Vec::new()
            };
            if !self.at_ident("endif") {
                return Err(SyntaxError(format!("expected `endif`, found {:?}", self.peek())));
            }
            self.at += 1;
            return Ok(Stmt::If(arms, otherwise));
        }
    }

    /// `prev_mode = ROUND_MODE`, `ROUND_MODE = ROUND_TOWARD_ZERO` and `ROUND_MODE = prev_mode`
    /// (AMD's `V_CVT_PK_RTZ_F16_F32`), consumed; whether one was there. Toward zero, the only
    /// statements accepted are conversions to f16 ([`Func::ToF16TowardZero`]); any other round
    /// mode is outside the subset.
    fn round_mode_stmt(&mut self) -> Result<bool, SyntaxError> {
        let word = |k: usize| match self.toks.get(self.at + k) {
            Some(Tok::Ident(w)) => Some(w.clone()),
            _ => None,
        };
        if self.toks.get(self.at + 1) != Some(&Tok::Op("=")) {
            return Ok(false);
        }
        let (Some(left), Some(right)) = (word(0), word(2)) else { return Ok(false) };
        match (left.as_str(), right.as_str()) {
            (_, "ROUND_MODE") => self.saved_round_mode = Some(left),
            ("ROUND_MODE", "ROUND_TOWARD_ZERO") => self.toward_zero = true,
            ("ROUND_MODE", saved) if self.saved_round_mode.as_deref() == Some(saved) => self.toward_zero = false,
            ("ROUND_MODE", other) => return Err(SyntaxError(format!("sets ROUND_MODE to `{other}`, which the subset does not model"))),
            _ => return Ok(false),
        }
        self.at += 3;
        Ok(true)
    }

    /// An assignment (`=`, `+=`, `-=`), or a lambda's definition (which is no statement).
    fn lambda_or_assign(&mut self) -> Result<Option<Stmt>, SyntaxError> {
        if let (Some(Tok::Ident(name)), Some(Tok::Op("=")), Some(Tok::Ident(l))) = (self.toks.get(self.at).cloned(), self.toks.get(self.at + 1), self.toks.get(self.at + 2)) {
            if l == "lambda" && self.machine() {
                self.at += 3;
                self.expect("(")?;
                let mut params = Vec::new();
                while let Some(Tok::Ident(p)) = self.peek().cloned() {
                    self.at += 1;
                    params.push(p);
                    if !self.eat(",") {
                        break;
                    }
                }
                self.expect(")")?;
                self.params = params;
                let body = self.expr();
                let count = self.params.len();
                self.params.clear();
                self.lambdas.push((name, count, body?));
                return Ok(None);
            }
        }
        let mut places = vec![self.place()?];
        if self.machine() && (self.eat("+=") || self.eat("-=")) {
            let op = if matches!(self.toks[self.at - 1], Tok::Op("+=")) { "+" } else { "-" };
            let read = match &places[0] {
                Place::D0(ty) => Expr::View(Box::new(Expr::D0), *ty),
                Place::Tmp(i) => Expr::Tmp(*i),
                _ => return Err(SyntaxError("a compound assignment to something other than D0 or a temporary".into())),
            };
            let value = self.expr()?;
            return Ok(Some(Stmt::Assign(places, Expr::Binary(op, Box::new(read), Box::new(value)))));
        }
        self.expect("=")?;
        // A chained write `EXEC.u64[laneId] = D0.u64[laneId] = x` (machine subset only).
        while self.subset == Subset::Machine && self.chained_place_follows() {
            places.push(self.place()?);
            self.expect("=")?;
        }
        let mut expr = self.expr()?;
        if self.toward_zero {
            expr = match expr {
                Expr::Call(Func::Convert(ty), args) if ty.float && ty.width == 16 && args.iter().all(|a| matches!(a, Expr::View(..))) => Expr::Call(Func::ToF16TowardZero, args),
                // A move rounds nothing (`D0.b32 = tmp.b32`).
                Expr::View(x, ty) if !ty.float && matches!(*x, Expr::Tmp(_) | Expr::Src(_)) => Expr::View(x, ty),
                _ => return Err(SyntaxError("a statement other than a conversion to f16 or a move while ROUND_MODE is toward zero is not modelled".into())),
            };
        }
        Ok(Some(Stmt::Assign(places, expr)))
    }

    /// Whether a place and `=` come next (and not `==`, which lexes as its own token).
    fn chained_place_follows(&mut self) -> bool {
        let at = self.at;
        let ok = self.place().is_ok() && self.eat("=");
        self.at = at;
        ok
    }

    fn machine(&self) -> bool {
        self.subset == Subset::Machine
    }

    /// The index of temporary `name`, allocated on first sight.
    fn temp(&mut self, name: &str) -> Result<u8, SyntaxError> {
        if let Some(i) = self.temps.iter().position(|t| t == name) {
            return Ok(i as u8);
        }
        if self.temps.len() == MAX_TEMPS {
            return Err(SyntaxError(format!("more than {MAX_TEMPS} temporaries")));
        }
        self.temps.push(name.to_owned());
        Ok((self.temps.len() - 1) as u8)
    }

    fn view(&mut self) -> Result<Ty, SyntaxError> {
        match self.toks.get(self.at) {
            Some(Tok::Ident(name)) => {
                let ty = Ty::parse(name).ok_or_else(|| SyntaxError(format!("unknown type `.{name}`")))?;
                self.at += 1;
                Ok(ty)
            }
            other => Err(SyntaxError(format!("expected a type after `.`, found {other:?}"))),
        }
    }

    fn place(&mut self) -> Result<Place, SyntaxError> {
        if self.machine() && self.eat("{") {
            return self.concat_place();
        }
        let Some(Tok::Ident(name)) = self.peek().cloned() else {
            return Err(SyntaxError(format!("expected a destination, found {:?}", self.peek())));
        };
        self.at += 1;
        match name.as_str() {
            "D0" => {
                self.expect(".")?;
                let ty = self.view()?;
                if self.eat("[") {
                    if !self.machine() {
                        return Err(SyntaxError("writes one bit of D0 per lane (a compare's text)".into()));
                    }
                    self.lane_index()?;
                    return Ok(Place::D0Lane);
                }
                Ok(Place::D0(ty))
            }
            "D1" if self.machine() => {
                self.expect(".")?;
                let ty = self.view()?;
                if ty.width != 1 {
                    return Err(SyntaxError(format!("writes D1 at {} bits; only a carry bit is modelled", ty.width)));
                }
                Ok(Place::D1Lane)
            }
            "EXEC" if self.machine() => {
                self.expect(".")?;
                let ty = self.view()?;
                if self.eat("[") {
                    self.lane_index()?;
                    return Ok(Place::ExecLane);
                }
                Ok(Place::Exec(ty))
            }
            "SCC" => Ok(Place::Scc),
            // `VCC = 0x1LL` in a per-lane text (`V_DIV_SCALE_F32`) sets the lane's bit.
            "VCC" if self.machine() && self.peek() == Some(&Tok::Op("=")) => Ok(Place::VccLane),
            "TRAPSTS" if self.machine() && self.eat(".") => {
                self.at += 1;
                Ok(Place::Discard)
            }
            "VCC" => {
                self.expect(".")?;
                self.view()?;
                self.expect("[")?;
                if self.peek() != Some(&Tok::Ident("laneId".into())) {
                    return Err(SyntaxError("only VCC's lane bit may be written".into()));
                }
                self.at += 1;
                self.expect("]")?;
                Ok(Place::VccLane)
            }
            "tmp" if !self.machine() => {
                if self.eat(".") {
                    return Err(SyntaxError("typed writes to temporaries are not supported".into()));
                }
                Ok(Place::Tmp(self.temp(&name)?))
            }
            _ if self.machine() && is_temp_name(&name) => {
                let t = self.temp(&name)?;
                // `tmp[31 : 16].f16 = x`: a field of the temporary, x stored at a type.
                if self.eat("[") {
                    let hi = self.small_int()?;
                    self.expect(":")?;
                    let lo = self.small_int()?;
                    self.expect("]")?;
                    if hi < lo || hi > 63 {
                        return Err(SyntaxError(format!("bad field [{hi} : {lo}]")));
                    }
                    let ty = if self.eat(".") { self.view()? } else { Ty::int(hi - lo + 1, false) };
                    return Ok(Place::TmpField(t, lo, hi - lo + 1, ty));
                }
                if self.eat(".") {
                    return Err(SyntaxError("typed writes to temporaries are not supported".into()));
                }
                Ok(Place::Tmp(t))
            }
            other => Err(SyntaxError(format!("writes `{other}`, which the subset does not model"))),
        }
    }

    /// `{ D1.u1, D0.u64 }` after its `{` (machine subset).
    fn concat_place(&mut self) -> Result<Place, SyntaxError> {
        let mut parts = Vec::new();
        loop {
            let at = self.at;
            let place = self.place()?;
            // The width each part takes is its view's: read the `.type` again.
            let width = match &self.toks[at..self.at] {
                [.., Tok::Op("."), Tok::Ident(ty)] => Ty::parse(ty).map(|t| t.width),
                _ => None,
            }
            .ok_or_else(|| SyntaxError("a part of a concatenated write has no type".into()))?;
            parts.push((place, width));
            if self.eat("}") {
                return Ok(Place::Concat(parts));
            }
            self.expect(",")?;
        }
    }

    /// `laneId]` after a `[`.
    fn lane_index(&mut self) -> Result<(), SyntaxError> {
        if self.peek() != Some(&Tok::Ident("laneId".into())) {
            return Err(SyntaxError("only the lane's own bit may be written".into()));
        }
        self.at += 1;
        self.expect("]")
    }

    fn expr(&mut self) -> Result<Expr, SyntaxError> {
        let cond = self.binary(0)?;
        if self.eat("?") {
            let a = self.expr()?;
            self.expect(":")?;
            let b = self.expr()?;
            return Ok(Expr::Select(Box::new(cond), Box::new(a), Box::new(b)));
        }
        Ok(cond)
    }

    /// Binary operators by C precedence, loosest first.
    fn binary(&mut self, level: usize) -> Result<Expr, SyntaxError> {
        const LEVELS: [&[&str]; 11] = [
            &["||"],
            &["&&"],
            &["|"],
            &["^"],
            &["&"],
            &["==", "!=", "<>"],
            &["<", "<=", ">", ">="],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/"],
            &["**"],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        while let Some(Tok::Op(op)) = self.peek() {
            let Some(&op) = LEVELS[level].iter().find(|o| *o == op) else { break };
            self.at += 1;
            let right = self.binary(level + 1)?;
            if !self.machine() && matches!(op, "/" | "**" | "<>") {
                return Err(SyntaxError(format!("`{op}` is outside the prover's subset")));
            }
            left = match (op, left, right) {
                // `x == DENORM.f32` asks whether x is a denormal.
                ("==", x, Expr::Denorm(w)) | ("==", Expr::Denorm(w), x) => Expr::Call(Func::IsDenorm, vec![x, Expr::Const(Val::new(u128::from(w), 32, false))]),
                // `x * 2.0F ** n` scales by a power of two exactly (`V_LDEXP_F32`, `V_DIV_FMAS_F32`).
                ("*", x, Expr::Binary("**", base, n)) | ("*", Expr::Binary("**", base, n), x) if is_two(&base) => Expr::Call(Func::Ldexp, vec![x, *n]),
                (op, l, r) => Expr::Binary(op, Box::new(l), Box::new(r)),
            };
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, SyntaxError> {
        // `-150` in a machine text is a signed constant (`exponent(S2.f32) - exponent(S1.f32)
        // < -150` in `V_DIV_FIXUP_F32` compares signed).
        if self.machine() && self.peek() == Some(&Tok::Op("-")) {
            if let Some(&Tok::Num(v, width)) = self.toks.get(self.at + 1) {
                self.at += 2;
                return Ok(Expr::Const(Val::new(v.wrapping_neg(), width, true)));
            }
        }
        for op in ['!', '~', '-'] {
            if self.eat(&op.to_string()) {
                return Ok(Expr::Unary(op, Box::new(self.unary()?)));
            }
        }
        if self.machine() && self.eat("+") {
            return self.unary();
        }
        self.postfix()
    }

    fn postfix(&mut self) -> Result<Expr, SyntaxError> {
        let mut e = self.primary()?;
        loop {
            if self.eat(".") {
                e = Expr::View(Box::new(e), self.view()?);
            } else if self.eat("[") {
                if self.peek() == Some(&Tok::Ident("laneId".into())) {
                    self.at += 1;
                    self.expect("]")?;
                    e = Expr::LaneBit(Box::new(e));
                    continue;
                }
                // A computed index (`S1.u32[sign(S0.f32) ? 2 : 9]`).
                if self.machine() && !matches!((self.toks.get(self.at), self.toks.get(self.at + 1)), (Some(Tok::Num(..)), Some(Tok::Op("]" | ":")))) {
                    let index = self.expr()?;
                    self.expect("]")?;
                    e = Expr::BitAt(Box::new(e), Box::new(index));
                    continue;
                }
                let hi = self.small_int()?;
                let lo = if self.eat(":") { self.small_int()? } else { hi };
                self.expect("]")?;
                // `[0 : 31]` is the bits reversed (`S_BREV_B32`); only the machine reads it.
                if (lo > hi && !self.machine()) || hi.max(lo) > 127 {
                    return Err(SyntaxError(format!("bad bit range [{hi} : {lo}]")));
                }
                e = Expr::Slice(Box::new(e), hi, lo);
            } else {
                return Ok(e);
            }
        }
    }

    fn small_int(&mut self) -> Result<u8, SyntaxError> {
        match self.peek() {
            Some(Tok::Num(v, _)) if *v < 128 => {
                let v = *v as u8;
                self.at += 1;
                Ok(v)
            }
            other => Err(SyntaxError(format!("expected a bit index, found {other:?}"))),
        }
    }

    fn primary(&mut self) -> Result<Expr, SyntaxError> {
        let tok = self.peek().cloned().ok_or_else(|| SyntaxError("unexpected end".into()))?;
        self.at += 1;
        Ok(match tok {
            Tok::Num(v, width) => Expr::Const(Val { literal: true, ..Val::new(v, width, false) }),
            Tok::Sized(v, width) => Expr::Const(Val::new(v, width, false)),
            Tok::Float(v, width) if self.machine() => Expr::Const(Val::from_f64(v, width)),
            Tok::Cast(ty) => {
                let e = self.expr()?;
                self.expect(")")?;
                Expr::Cast(ty, Box::new(e))
            }
            Tok::Op("(") => {
                let e = self.expr()?;
                self.expect(")")?;
                e
            }
            Tok::Ident(name) => match name.as_str() {
                "S0" => Expr::Src(0),
                "S1" => Expr::Src(1),
                "S2" => Expr::Src(2),
                "D0" => Expr::D0,
                "SCC" => Expr::Scc,
                "VCC" => Expr::Vcc,
                "EXEC" if self.machine() => Expr::Exec,
                "laneId" => Expr::LaneId,
                "tmp" => Expr::Tmp(self.temp(&name)?),
                _ if self.machine() && self.params.contains(&name) => Expr::Param(self.params.iter().position(|p| *p == name).unwrap() as u8),
                "INF" | "NAN" | "DENORM" if self.machine() => {
                    // `INF` alone is f64; `INF.f32`, `NAN.f32`, `DENORM.f64` name their type.
                    let ty = if self.eat(".") { self.view()? } else { Ty { width: 64, signed: false, float: true } };
                    if !ty.float {
                        return Err(SyntaxError(format!("`{name}` viewed as an integer")));
                    }
                    match name.as_str() {
                        "INF" => Expr::Const(Val::from_f64(f64::INFINITY, ty.width)),
                        "NAN" => Expr::Const(Val::from_f64(f64::NAN, ty.width)),
                        _ => Expr::Denorm(ty.width),
                    }
                }
                "UNDERFLOW_F32" | "OVERFLOW_F32" | "UNDERFLOW_F64" | "OVERFLOW_F64" if self.machine() => {
                    Expr::Undefined(if name.starts_with("UNDER") { "UNDERFLOW" } else { "OVERFLOW" })
                }
                "WAVE_MODE" if self.machine() && self.eat(".") && self.at_ident("IEEE") => {
                    self.at += 1;
                    Expr::IeeeMode
                }
                _ if self.machine() && self.peek() == Some(&Tok::Op("(")) && (Func::parse(&name).is_some() || self.lambdas.iter().any(|l| l.0 == name)) => {
                    self.at += 1;
                    let mut args = Vec::new();
                    if !self.eat(")") {
                        loop {
                            args.push(self.expr()?);
                            if self.eat(")") {
                                break;
                            }
                            self.expect(",")?;
                        }
                    }
                    if let Some((_, count, body)) = self.lambdas.iter().find(|l| l.0 == name) {
                        if args.len() != *count {
                            return Err(SyntaxError(format!("`{name}` takes {count} arguments")));
                        }
                        return Ok(substitute(body, &args));
                    }
                    let f = Func::parse(&name).unwrap();
                    if args.len() != f.arity() {
                        return Err(SyntaxError(format!("`{name}` takes {} arguments", f.arity())));
                    }
                    Expr::Call(f, args)
                }
                "signext" if self.machine() && self.eat("(") => {
                    let e = self.expr()?;
                    self.expect(")")?;
                    Expr::SignExt(Box::new(e))
                }
                _ if self.machine() && is_temp_name(&name) && self.peek() != Some(&Tok::Op("(")) => {
                    match self.temps.iter().position(|t| *t == name) {
                        Some(i) => Expr::Tmp(i as u8),
                        None => return Err(SyntaxError(format!("`{name}` read before it is written"))),
                    }
                }
                _ if self.peek() == Some(&Tok::Op("(")) => return Err(SyntaxError(format!("calls `{name}`, which the subset does not model"))),
                _ => return Err(SyntaxError(format!("reads `{name}`, which the subset does not model"))),
            },
            other => return Err(SyntaxError(format!("unexpected {other:?}"))),
        })
    }
}

/// `2.0F` or `2.0`.
fn is_two(e: &Expr) -> bool {
    matches!(e, Expr::Const(v) if v.float && v.to_f64() == 2.0)
}

/// What a program touches, for checking that a text fits the instruction it is attached to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Highest source read plus one (`S2` read: 3).
    pub sources: u8,
    /// Widths of the views D0 is written through.
    pub d0_writes: Vec<u8>,
    pub writes_scc: bool,
    pub writes_vcc: bool,
    pub reads_scc: bool,
    pub reads_vcc: bool,
    pub reads_d0: bool,
    /// Writes one bit of D0 per lane (a compare: D0 is a lane mask).
    pub writes_d0_lane: bool,
    /// Writes the lane's bit of D1 (a carry-out destination).
    pub writes_d1: bool,
    /// Writes EXEC's lane bit (`v_cmpx`) or the whole of EXEC (`s_and_saveexec`).
    pub writes_exec_lane: bool,
    pub writes_exec: bool,
    pub reads_exec: bool,
    /// Uses floating point (a float view, constant, cast or function).
    pub float: bool,
    /// The float width each source is first viewed at (0: not as a float).
    pub src_float: [u8; 3],
    /// The float width D0 is written at, if it is written as a float.
    pub d0_float: Option<u8>,
}

impl Program {
    /// Parses `text` in the prover's subset ([`Subset::Prover`]).
    pub fn parse(text: &str) -> Result<Program, SyntaxError> {
        Program::parse_in(text, Subset::Prover)
    }

    /// Parses `text` in the machine's subset ([`Subset::Machine`]).
    pub fn parse_machine(text: &str) -> Result<Program, SyntaxError> {
        Program::parse_in(text, Subset::Machine)
    }

    pub fn parse_in(text: &str, subset: Subset) -> Result<Program, SyntaxError> {
        Parser { toks: lex(text)?, at: 0, subset, temps: Vec::new(), lambdas: Vec::new(), params: Vec::new(), saved_round_mode: None, toward_zero: false }.program()
    }

    pub fn footprint(&self) -> Footprint {
        fn walk(e: &Expr, f: &mut Footprint) {
            match e {
                Expr::Src(n) => f.sources = f.sources.max(n + 1),
                Expr::D0 => f.reads_d0 = true,
                Expr::Scc => f.reads_scc = true,
                Expr::Vcc => f.reads_vcc = true,
                Expr::Exec => f.reads_exec = true,
                Expr::Const(v) => f.float |= v.float,
                Expr::LaneId | Expr::Tmp(_) | Expr::Param(_) | Expr::Undefined(_) => {}
                Expr::IeeeMode | Expr::Denorm(_) => f.float = true,
                Expr::View(e, ty) | Expr::Cast(ty, e) => {
                    if ty.float {
                        f.float = true;
                        if let Expr::Src(n) = **e {
                            if let Some(w) = f.src_float.get_mut(n as usize).filter(|w| **w == 0) {
                                *w = ty.width;
                            }
                        }
                    }
                    walk(e, f)
                }
                Expr::Slice(e, ..) | Expr::LaneBit(e) | Expr::Unary(_, e) | Expr::SignExt(e) => walk(e, f),
                Expr::Binary(_, a, b) | Expr::BitAt(a, b) => {
                    walk(a, f);
                    walk(b, f);
                }
                Expr::Select(c, a, b) => {
                    walk(c, f);
                    walk(a, f);
                    walk(b, f);
                }
                Expr::Call(_, args) => {
                    f.float = true;
                    args.iter().for_each(|a| walk(a, f));
                }
            }
        }
        fn stmt(st: &Stmt, f: &mut Footprint) {
            match st {
                Stmt::Assign(places, expr) => {
                    places.iter().for_each(|p| write(p, f));
                    walk(expr, f);
                }
                Stmt::If(arms, otherwise) => {
                    for (cond, block) in arms {
                        walk(cond, f);
                        block.iter().for_each(|s| stmt(s, f));
                    }
                    otherwise.iter().for_each(|s| stmt(s, f));
                }
            }
        }
        fn write(place: &Place, f: &mut Footprint) {
            match place {
                Place::D0(ty) => {
                    if !f.d0_writes.contains(&ty.width) {
                        f.d0_writes.push(ty.width);
                    }
                    if ty.float {
                        f.float = true;
                        f.d0_float = Some(ty.width);
                    }
                }
                Place::Scc => f.writes_scc = true,
                Place::VccLane => f.writes_vcc = true,
                Place::Tmp(_) | Place::TmpField(..) => {}
                Place::D0Lane => f.writes_d0_lane = true,
                Place::D1Lane => f.writes_d1 = true,
                Place::ExecLane => f.writes_exec_lane = true,
                Place::Exec(_) => f.writes_exec = true,
                Place::Concat(parts) => parts.iter().for_each(|(p, _)| write(p, f)),
                Place::Discard => {}
            }
        }
        let mut f = Footprint::default();
        self.stmts.iter().for_each(|s| stmt(s, &mut f));
        f
    }

    /// Runs the program on one lane of `state`, whose sources are `sources` (each value as wide
    /// as its operand, `source_bits`). Errors are type errors found while running (a
    /// temporary read before written).
    pub fn run(&self, state: &mut Lane, sources: &[(u64, u8)]) -> Result<(), SyntaxError> {
        let mut frame = Frame { d0: state.d0, d0_bits: state.d0_bits, d1: 0, scc: state.scc, vcc: state.vcc, vcc_out: state.vcc, exec: 0, exec_out: 0, lane: state.lane, mode: Frame::IEEE_MODE };
        self.run_frame(&mut frame, sources)?;
        state.d0 = frame.d0;
        state.scc = frame.scc;
        state.vcc = frame.vcc_out;
        Ok(())
    }

    /// Runs the program on one lane of a wave (`frame`), whose sources are `sources`.
    pub fn run_frame(&self, frame: &mut Frame, sources: &[(u64, u8)]) -> Result<(), SyntaxError> {
        let mut temps: Temps = [None; MAX_TEMPS];
        run_block(&self.stmts, frame, sources, &mut temps, &self.temps)
    }
}

fn run_block(stmts: &[Stmt], frame: &mut Frame, sources: &[(u64, u8)], temps: &mut Temps, names: &[String]) -> Result<(), SyntaxError> {
    for st in stmts {
        match st {
            Stmt::Assign(places, expr) => {
                let v = eval(expr, frame, sources, temps, names)?;
                for place in places {
                    assign(place, v, frame, temps);
                }
            }
            Stmt::If(arms, otherwise) => {
                let mut taken = None;
                for (cond, block) in arms {
                    if eval(cond, frame, sources, temps, names)?.truth() {
                        taken = Some(block);
                        break;
                    }
                }
                run_block(taken.unwrap_or(otherwise), frame, sources, temps, names)?;
            }
        }
    }
    Ok(())
}

fn set_lane_bit(mask: &mut u64, lane: u32, v: Val) {
    let bit = 1u64 << lane;
    *mask = if v.bits & 1 == 1 { *mask | bit } else { *mask & !bit };
}

fn assign(place: &Place, v: Val, st: &mut Frame, temps: &mut Temps) {
    match place {
        Place::D0(ty) => {
            let keep = !(mask(ty.width) as u64) & if st.d0_bits >= 64 { u64::MAX } else { (1u64 << st.d0_bits) - 1 };
            let mut v = v.convert(*ty);
            if ty.float && st.flush_out(ty.width) {
                v = flush_denormal(v);
            }
            st.d0 = (st.d0 & keep) | (v.bits as u64 & !keep);
        }
        Place::Discard => {}
        Place::Scc => st.scc = v.truth(),
        // A lane's bit is written to the mask read back (`vcc`, `exec`: a later statement of
        // the same lane sees it) and to the one the instruction's destination receives.
        Place::VccLane => {
            set_lane_bit(&mut st.vcc, st.lane, v);
            set_lane_bit(&mut st.vcc_out, st.lane, v);
        }
        Place::ExecLane => {
            set_lane_bit(&mut st.exec, st.lane, v);
            set_lane_bit(&mut st.exec_out, st.lane, v);
        }
        Place::D0Lane => set_lane_bit(&mut st.d0, st.lane, v),
        Place::D1Lane => set_lane_bit(&mut st.d1, st.lane, v),
        Place::Exec(ty) => {
            let m = mask(ty.width) as u64;
            st.exec = (st.exec & !m) | (v.cast(*ty).bits as u64 & m);
            st.exec_out = st.exec;
        }
        Place::Tmp(i) => temps[*i as usize] = Some(v),
        Place::TmpField(i, lo, width, ty) => {
            let field = v.convert(*ty).bits & mask(*width);
            let old = temps[*i as usize].map_or(0, |t| t.bits);
            let bits = (old & !(mask(*width) << lo)) | field << lo;
            temps[*i as usize] = Some(Val::new(bits, 64, false));
        }
        Place::Concat(parts) => {
            let mut bits = v.bits;
            for (part, width) in parts.iter().rev() {
                assign(part, Val::new(bits, *width, false), st, temps);
                bits = if *width >= 128 { 0 } else { bits >> width };
            }
        }
    }
}

/// The state one lane of a wave sees while an instruction's program runs. Masks are whole (all
/// lanes); a lane writes only its own bit of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The destination: the lane's value, or the mask a compare writes a bit of.
    pub d0: u64,
    /// Width of the destination register in bits (32 or 64).
    pub d0_bits: u8,
    /// The second destination's mask (carry-out of `V_MAD_U64_U32`).
    pub d1: u64,
    pub scc: bool,
    /// VCC as read (the carry-in or mask source, which a VOP3 form names as its own operand).
    pub vcc: u64,
    /// VCC as written: the bits lanes write (the carry-out destination).
    pub vcc_out: u64,
    /// EXEC as read.
    pub exec: u64,
    /// EXEC as written.
    pub exec_out: u64,
    pub lane: u32,
    /// The wave's HW_REG_MODE: FP_ROUND in bits 3:0, FP_DENORM in 7:4 (f32 in 5:4, f16/f64
    /// in 7:6; 0 flushes inputs and outputs, 1 inputs, 2 outputs, 3 neither), DX10_CLAMP in
    /// bit 8, IEEE in bit 9.
    pub mode: u32,
}

impl Frame {
    /// IEEE mode, round to nearest even, denormals kept: what compute kernels run in (and
    /// the prover assumes).
    pub const IEEE_MODE: u32 = 0x2f0;

    fn denorm_field(&self, width: u8) -> u32 {
        if width == 32 { (self.mode >> 4) & 3 } else { (self.mode >> 6) & 3 }
    }

    fn flush_in(&self, width: u8) -> bool {
        self.denorm_field(width) & 2 == 0
    }

    fn flush_out(&self, width: u8) -> bool {
        self.denorm_field(width) & 1 == 0
    }
}

/// A denormal float replaced by zero of its sign.
fn flush_denormal(v: Val) -> Val {
    let exp_mask: u128 = match v.width {
        64 => 0x7ff << 52,
        32 => 0xff << 23,
        _ => 0x1f << 10,
    };
    if v.bits & exp_mask == 0 { Val { bits: v.bits & v.sign_bit(), ..v } } else { v }
}

/// The architectural state one lane's instruction sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lane {
    pub d0: u64,
    /// Width of the destination register in bits (32 or 64).
    pub d0_bits: u8,
    pub scc: bool,
    pub vcc: u64,
    pub lane: u32,
}

/// Temporaries by index (unset until written).
type Temps = [Option<Val>; MAX_TEMPS];

fn eval(e: &Expr, st: &Frame, src: &[(u64, u8)], temps: &Temps, names: &[String]) -> Result<Val, SyntaxError> {
    let ev = |e: &Expr| eval(e, st, src, temps, names);
    Ok(match e {
        Expr::Const(v) => *v,
        Expr::Src(n) => {
            let &(v, bits) = src.get(*n as usize).ok_or_else(|| SyntaxError(format!("reads S{n}, which the instruction does not have")))?;
            Val::new(u128::from(v), bits, false)
        }
        Expr::D0 => Val::new(u128::from(st.d0), st.d0_bits, false),
        Expr::Scc => Val::bool(st.scc),
        Expr::Vcc => Val::new(u128::from(st.vcc), 64, false),
        Expr::Exec => Val::new(u128::from(st.exec), 64, false),
        Expr::LaneId => Val::new(u128::from(st.lane), 32, false),
        Expr::Tmp(i) => temps[*i as usize].ok_or_else(|| SyntaxError(format!("`{}` read before it is written", names[*i as usize])))?,
        Expr::SignExt(e) => Val { signed: true, ..ev(e)? },
        Expr::View(e, ty) if ty.float => {
            let v = ev(e)?.cast(*ty);
            // Denormal sources are flushed where the mode says (a source read as a float).
            if matches!(**e, Expr::Src(_)) && st.flush_in(ty.width) { flush_denormal(v) } else { v }
        }
        Expr::View(e, ty) => ev(e)?.cast(Ty::int(ty.width, false)).cast(*ty),
        Expr::Cast(ty, e) if ty.float => ev(e)?.convert(*ty),
        Expr::BitAt(e, i) => {
            let (v, i) = (ev(e)?, ev(i)?);
            Val::new(if i.bits < u128::from(v.width) { v.bits >> i.bits } else { 0 }, 1, false)
        }
        Expr::Call(f, args) => {
            let mut vals = [Val::new(0, 32, false); 3];
            for (k, a) in args.iter().enumerate() {
                vals[k] = ev(a)?;
            }
            call(*f, &vals[..args.len()])?
        }
        Expr::IeeeMode => Val::bool(st.mode >> 9 & 1 == 1),
        Expr::Param(_) | Expr::Denorm(_) => return Err(SyntaxError("a lambda parameter or DENORM outside its place".into())),
        Expr::Undefined(name) => return Err(SyntaxError(format!("reaches `{name}`, which the pseudocode does not define"))),
        Expr::Slice(e, hi, lo) if hi < lo => {
            let width = lo - hi + 1;
            let v = ev(e)?.bits >> hi;
            let reversed = (0..width).fold(0u128, |acc, i| acc | ((v >> i) & 1) << (width - 1 - i));
            Val::new(reversed, width, false)
        }
        Expr::Slice(e, hi, lo) => {
            let v = ev(e)?;
            Val::new(v.bits >> lo, hi - lo + 1, false)
        }
        Expr::LaneBit(e) => Val::new(ev(e)?.bits >> st.lane, 1, false),
        Expr::Cast(ty, e) => ev(e)?.cast(*ty),
        Expr::Unary(op, e) => {
            let v = ev(e)?;
            match op {
                // A float's negation flips its sign (NaNs too, as `neg` does).
                '-' if v.float => Val { bits: v.bits ^ v.sign_bit(), ..v },
                '!' => Val::bool(!v.truth()),
                '~' => Val::new(!v.bits, v.width, v.signed),
                _ => Val::new(v.bits.wrapping_neg(), v.width, v.signed),
            }
        }
        Expr::Select(c, a, b) => {
            if ev(c)?.truth() {
                ev(a)?
            } else {
                ev(b)?
            }
        }
        Expr::Binary(op, a, b) => {
            let (a, b) = (ev(a)?, ev(b)?);
            if a.float || b.float {
                return float_binary(op, a, b);
            }
            let width = a.width.max(b.width);
            let signed = a.signed && b.signed;
            let (x, y) = (a.extended(), b.extended());
            match *op {
                "+" => Val::new(x.wrapping_add(y), width, signed),
                "-" => Val::new(x.wrapping_sub(y), width, signed),
                "*" => Val::new(x.wrapping_mul(y), width, signed),
                "&" => Val::new(x & y, width, signed),
                "|" => Val::new(x | y, width, signed),
                "^" => Val::new(x ^ y, width, signed),
                // Shifts keep the left operand's type; a count past its width shifts everything
                // out (AMD's texts mask counts explicitly where the hardware does).
                "<<" => Val::new(if b.bits >= u128::from(a.width) { 0 } else { a.bits << b.bits }, a.width, a.signed),
                ">>" => {
                    let n = b.bits.min(127) as u32;
                    Val::new(if a.signed { (a.as_i128() >> n) as u128 } else { a.bits >> n }, a.width, a.signed)
                }
                "&&" => Val::bool(a.truth() && b.truth()),
                "||" => Val::bool(a.truth() || b.truth()),
                "/" | "**" => return Err(SyntaxError(format!("integer `{op}` is not modelled"))),
                cmp => {
                    let small = |v: Val| v.literal && v.bits >> (v.width - 1) == 0;
                    let signed = signed || (small(a) && b.signed && !b.literal) || (small(b) && a.signed && !a.literal);
                    let ord = if signed { a.as_i128().cmp(&b.as_i128()) } else { x.cmp(&y) };
                    Val::bool(match cmp {
                                        "==" => ord.is_eq(),
                        "!=" | "<>" => ord.is_ne(),
                        "<" => ord.is_lt(),
                        "<=" => ord.is_le(),
                        ">" => ord.is_gt(),
                        _ => ord.is_ge(),
                    })
                }
            }
        }
    })
}

/// AMD's default NaN (hardware results that are NaN without a NaN input).
fn default_nan(width: u8) -> Val {
    let bits = match width {
        64 => 0x7ff8_0000_0000_0000u128,
        32 => 0x7fc0_0000,
        _ => 0x7e00,
    };
    Val { bits, width, signed: false, float: true, literal: false }
}

/// A float result of `width` from `x`, computed from `inputs`: a NaN made here (not passed
/// through) is AMD's default NaN rather than the host's.
fn float_result(x: f64, width: u8, inputs: &[Val]) -> Val {
    if x.is_nan() {
        if let Some(n) = inputs.iter().find(|v| v.is_nan()) {
            // An input NaN passes through quieted, at the result's width.
            let quiet = Val { bits: n.bits | quiet_bit(n.width), ..*n };
            return quiet.convert(Ty { width, signed: false, float: true });
        }
        return default_nan(width);
    }
    Val::from_f64(x, width)
}

fn quiet_bit(width: u8) -> u128 {
    match width {
        64 => 1 << 51,
        32 => 1 << 22,
        _ => 1 << 9,
    }
}

/// The width float arithmetic on `a` and `b` is carried out at (see the module documentation):
/// f64 for everything, which is exact or an innocuous double rounding for f16/f32 operands.
fn float_binary(op: &str, a: Val, b: Val) -> Result<Val, SyntaxError> {
    let width = [a, b].iter().filter(|v| v.float).map(|v| v.width).max().unwrap_or(32);
    let (x, y) = (a.to_f64(), b.to_f64());
    let r = match op {
        "+" => x + y,
        "-" => x - y,
        "*" => x * y,
        "/" => x / y,
        "**" => x.powf(y),
        "==" => return Ok(Val::bool(x == y)),
        "!=" => return Ok(Val::bool(x != y)),
        "<>" => return Ok(Val::bool(x < y || x > y)),
        "<" => return Ok(Val::bool(x < y)),
        "<=" => return Ok(Val::bool(x <= y)),
        ">" => return Ok(Val::bool(x > y)),
        ">=" => return Ok(Val::bool(x >= y)),
        "&&" => return Ok(Val::bool(a.truth() && b.truth())),
        "||" => return Ok(Val::bool(a.truth() || b.truth())),
        other => return Err(SyntaxError(format!("`{other}` on a float"))),
    };
    // Intermediate results stay f64 (exact for the texts' `S0.f32 + 0.5F`); the store to D0
    // rounds them to its type. f64 operands round here, at their own precision.
    let _ = width;
    Ok(float_result(r, 64, &[a, b]))
}

/// `ldexp(x, n)` in f64 without double rounding (musl's scalbn).
fn scalbn(x: f64, n: i128) -> f64 {
    let mut n = n.clamp(-3000, 3000) as i32;
    let mut y = x;
    let p1023 = f64::from_bits(0x7fe0_0000_0000_0000);
    let m1022 = f64::from_bits(0x0010_0000_0000_0000) * f64::from_bits(0x4340_0000_0000_0000); // 2^-1022 * 2^53
    if n > 1023 {
        y *= p1023;
        n -= 1023;
        if n > 1023 {
            y *= p1023;
            n -= 1023;
            n = n.min(1023);
        }
    } else if n < -1022 {
        y *= m1022;
        n += 1022 - 53;
        if n < -1022 {
            y *= m1022;
            n += 1022 - 53;
            n = n.max(-1022);
        }
    }
    y * f64::from_bits(((0x3ff + n) as u64) << 52)
}

fn call(f: Func, a: &[Val]) -> Result<Val, SyntaxError> {
    let x = a[0];
    let fx = x.to_f64();
    let exp_bits = |v: Val| -> (u32, u128) {
        match v.width {
            64 => (11, 52),
            32 => (8, 23),
            _ => (5, 10),
        }
    };
    let float_width = |v: Val| if v.float { v.width } else { 32 };
    Ok(match f {
        Func::Fma => {
            let width = a.iter().map(|v| float_width(*v)).max().unwrap_or(32);
            let r = match width {
                64 => a[0].to_f64().mul_add(a[1].to_f64(), a[2].to_f64()),
                // One rounding at f32: f32's own fused multiply-add.
                32 => f64::from((a[0].to_f64() as f32).mul_add(a[1].to_f64() as f32, a[2].to_f64() as f32)),
                // f16: the product is exact in f64 and the sum rounds at f64, then at f16 (a
                // double rounding, see the README).
                _ => a[0].to_f64().mul_add(a[1].to_f64(), a[2].to_f64()),
            };
            float_result(r, width, a)
        }
        Func::IsNan => Val::bool(fx.is_nan()),
        Func::IsSignalNan => Val::bool(x.is_nan() && x.bits & quiet_bit(x.width) == 0),
        Func::IsQuietNan => Val::bool(x.is_nan() && x.bits & quiet_bit(x.width) != 0),
        Func::CvtToQuietNan => {
            if x.is_nan() { Val { bits: x.bits | quiet_bit(x.width), ..x } } else { x }
        }
        Func::IsEven => Val::bool(fx.rem_euclid(2.0) == 0.0),
        Func::Exponent => {
            let (e, m) = exp_bits(x);
            Val::new((x.bits >> m) & ((1 << e) - 1), 32, true)
        }
        Func::Sign => Val::bool(x.float && x.bits & x.sign_bit() != 0 || (!x.float && x.as_i128() < 0)),
        Func::Abs if x.float => Val { bits: x.bits & !x.sign_bit(), ..x },
        Func::Abs => Val::new(x.as_i128().unsigned_abs(), x.width, x.signed),
        Func::Mantissa => {
            if fx == 0.0 || !fx.is_finite() {
                x
            } else {
                // frexp: x = m * 2^e with 0.5 <= |m| < 1.
                let e = fx.abs().log2().floor() as i128 + 1;
                let mut m = scalbn(fx, -e);
                if m.abs() >= 1.0 {
                    m /= 2.0;
                } else if m.abs() < 0.5 {
                    m *= 2.0;
                }
                Val::from_f64(m, x.width)
            }
        }
        Func::Trunc => float_result(fx.trunc(), x.width, a),
        Func::Floor => float_result(fx.floor(), x.width, a),
        Func::Fract => float_result(fx - fx.floor(), x.width, a),
        Func::Sqrt => float_result(fx.sqrt(), 64, a),
        Func::Log2 => float_result(fx.log2(), 64, a),
        Func::Pow => float_result(fx.powf(a[1].to_f64()), 64, a),
        Func::Ldexp => {
            let n = if a[1].float { a[1].to_f64() as i128 } else { a[1].as_i128() };
            float_result(scalbn(fx, n), float_width(x), a)
        }
        Func::IsDenorm => {
            // By value: whether x lies in the denormal range of the compared type.
            let min_normal = match a[1].bits {
                64 => f64::MIN_POSITIVE,
                32 => f64::from(f32::MIN_POSITIVE),
                _ => scalbn(1.0, -14),
            };
            Val::bool(fx != 0.0 && fx.abs() < min_normal)
        }
        Func::ToF16TowardZero => Val { bits: u128::from(float::f64_to_f16_toward_zero(fx)), width: 16, signed: false, float: true, literal: false },
        Func::Convert(ty) if ty.float => {
            if x.float {
                x.convert(ty)
            } else {
                Val::from_f64(x.as_i128() as f64, ty.width)
            }
        }
        Func::Convert(ty) => {
            // Float to integer: toward zero, saturating, NaN to 0 (as Rust's `as`).
            let v: i128 = if !x.float {
                x.as_i128()
            } else {
                let lo = if ty.signed { -(1i128 << (ty.width - 1)) } else { 0 };
                let hi = if ty.signed { (1i128 << (ty.width - 1)) - 1 } else { (1i128 << ty.width) - 1 };
                if fx.is_nan() { 0 } else { (fx.trunc().clamp(lo as f64, hi as f64)) as i128 }
            };
            Val::new(v as u128, ty.width, ty.signed)
        }
        Func::Min | Func::Max => {
            // IEEE mode: a signalling NaN comes out quieted, a quiet NaN loses to a number;
            // -0 is below +0.
            let (p, q) = (a[0], a[1]);
            let width = float_width(p);
            if p.is_nan() && p.bits & quiet_bit(p.width) == 0 {
                call(Func::CvtToQuietNan, &[p])?
            } else if q.is_nan() && q.bits & quiet_bit(q.width) == 0 {
                call(Func::CvtToQuietNan, &[q])?
            } else if q.is_nan() {
                p
            } else if p.is_nan() {
                q
            } else {
                // AMD's LT_NEG_ZERO / GT_NEG_ZERO: -0 < +0.
                let (x, y) = (p.to_f64(), q.to_f64());
                let pick_p = if f == Func::Min {
                    x < y || (x == 0.0 && y == 0.0 && x.is_sign_negative() && !y.is_sign_negative())
                } else {
                    x > y || (x == 0.0 && y == 0.0 && !x.is_sign_negative() && y.is_sign_negative())
                };
                let r = if pick_p { p } else { q };
                r.convert(Ty { width, signed: false, float: true })
            }
        }
    })
}

/// IEEE binary16 conversions (no dependency: the emulator needs only these). Public for the
/// emulator's output modifiers on f16 results.
pub mod float {
    /// `x` rounded to the nearest binary16 (ties to even), as bits. Scaling by powers of two
    /// is exact, so the only rounding is `round_ties_even`.
    pub fn f64_to_f16(x: f64) -> u16 {
        let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
        if x.is_nan() {
            // Quiet, keeping the top payload bits.
            return sign | 0x7e00 | ((x.to_bits() >> 42) as u16 & 0x1ff);
        }
        let a = x.abs();
        // 65520 is halfway between the largest half (65504) and 2^16: ties go to even, up.
        if a >= 65520.0 {
            return sign | 0x7c00;
        }
        if a < super::scalbn(1.0, -14) {
            // Denormal: the field counts 2^-24s (1024 of them rounds up to the least normal).
            return sign | super::scalbn(a, 24).round_ties_even() as u16;
        }
        let mut e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        let mut q = (super::scalbn(a, i128::from(10 - e))).round_ties_even() as u32;
        if q == 2048 {
            e += 1;
            q = 1024;
        }
        sign | (((e + 15) as u16) << 10) | (q - 1024) as u16
    }

    /// `x` rounded toward zero to a binary16, as bits: the nearest one, or its neighbour
    /// toward zero where the nearest is farther from zero than `x` (so a finite `x` past the
    /// largest half gives the largest half, not infinity).
    pub fn f64_to_f16_toward_zero(x: f64) -> u16 {
        let h = f64_to_f16(x);
        if x.is_nan() || x.is_infinite() || f16_to_f64(h).abs() <= x.abs() {
            return h;
        }
        // One step toward zero: the magnitude's bits minus one (h is not zero here).
        h - 1
    }

    pub fn f16_to_f64(h: u16) -> f64 {
        let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
        let e = i128::from((h >> 10) & 0x1f);
        let m = f64::from(h & 0x3ff);
        sign * match e {
            0 => super::scalbn(m, -24),
            31 if m == 0.0 => f64::INFINITY,
            31 => return f64::from_bits(if sign < 0.0 { 0xfff8_0000_0000_0000 } else { 0x7ff8_0000_0000_0000 } | (u64::from(h & 0x3ff) << 42)),
            _ => super::scalbn(1024.0 + m, e - 25),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lane(bits: u8) -> Lane {
        Lane { d0: 0, d0_bits: bits, scc: false, vcc: 0, lane: 5 }
    }

    fn run(text: &str, sources: &[(u64, u8)]) -> Lane {
        let mut st = lane(32);
        Program::parse(text).unwrap().run(&mut st, sources).unwrap();
        st
    }

    #[test]
    fn lshl_or_masks_the_shift_count_to_five_bits() {
        let t = "D0.u32 = ((S0.u32 << S1.u32[4 : 0].u32) | S2.u32)";
        assert_eq!(run(t, &[(1, 32), (31, 32), (0, 32)]).d0, 0x8000_0000);
        assert_eq!(run(t, &[(1, 32), (32, 32), (0, 32)]).d0, 1, "32 & 31 = 0");
        assert_eq!(run(t, &[(3, 32), (33, 32), (4, 32)]).d0, 6 | 4);
    }

    #[test]
    fn lshlrev_reads_the_count_from_s0() {
        assert_eq!(run("D0.u32 = (S1.u32 << S0[4 : 0].u32)", &[(4, 32), (0x1234_5678, 32)]).d0, 0x2345_6780);
    }

    #[test]
    fn carries_come_out_of_wide_temporaries() {
        let t = "tmp = 64'U(S0.u32) + 64'U(S1.u32);\nVCC.u64[laneId] = tmp >= 0x100000000ULL ? 1'1U : 1'0U;\n// VCC is a carry.\nD0.u32 = tmp.u32";
        let st = run(t, &[(0xffff_ffff, 32), (2, 32)]);
        assert_eq!((st.d0, st.vcc), (1, 1 << 5));
        let st = run(t, &[(7, 32), (2, 32)]);
        assert_eq!((st.d0, st.vcc), (9, 0));
    }

    #[test]
    fn signed_overflow_reads_sign_bits() {
        let t = "tmp = S0.i32 + S1.i32;\nSCC = ((S0.u32[31] == S1.u32[31]) && (S0.u32[31] != tmp.u32[31]));\nD0.i32 = tmp.i32";
        assert!(run(t, &[(0x7fff_ffff, 32), (1, 32)]).scc);
        assert!(!run(t, &[(0xffff_ffff, 32), (1, 32)]).scc);
    }

    /// Regression: the prover's subset compared a signed value with an unsuffixed literal as
    /// unsigned, so `S0.i32 < 0` was never true.
    #[test]
    fn signed_values_compare_signed_with_unsuffixed_literals() {
        let t = "SCC = S0.i32 < 0;\nD0.i32 = S0.i32 >= 1 ? 7 : 9";
        let negative = run(t, &[(0xffff_ffff, 32)]);
        assert!(negative.scc, "-1 < 0");
        assert_eq!(negative.d0, 9, "-1 >= 1 is false");
        let positive = run(t, &[(5, 32)]);
        assert!(!positive.scc);
        assert_eq!(positive.d0, 7);
        assert!(!run("SCC = S0.u32 < 0", &[(0xffff_ffff, 32)]).scc, "unsigned stays unsigned");
    }

    #[test]
    fn sixty_four_bit_shift_add() {
        let mut st = lane(64);
        let p = Program::parse("D0.u64 = (S0.u64 << S1.u32[2 : 0].u32) + S2.u64").unwrap();
        p.run(&mut st, &[(0x8000_0000_0000_0001, 64), (9, 32), (5, 64)]).unwrap();
        assert_eq!(st.d0, 2 + 5, "9 & 7 = 1; the top bit is shifted out");
    }

    #[test]
    fn texts_outside_the_subset_do_not_parse() {
        for text in [
            "D0.u64[laneId] = S0.f32 < S1.f32;\n// D0 = VCC in VOPC encoding.",
            "EXEC.u64[laneId] = 1'0U",
            "D0.f32 = fma(S0.f32, S1.f32, D0.f32)",
            "addr = CalcScratchAddr(v_addr_off.b64, s_saddr_off.b64);\nMEM[addr].b8 = VDATA[7 : 0]",
        ] {
            assert!(Program::parse(text).is_err(), "{text}");
        }
    }

    #[test]
    fn footprints_say_what_a_text_touches() {
        let p = Program::parse("tmp = 64'U(S0.u32) + 64'U(S1.u32);\nSCC = tmp >= 0x100000000ULL ? 1'1U : 1'0U;\nD0.u32 = tmp.u32").unwrap();
        let f = p.footprint();
        assert_eq!((f.sources, f.d0_writes.as_slice(), f.writes_scc, f.writes_vcc), (2, &[32u8][..], true, false));
    }

    fn frame() -> Frame {
        Frame { d0: 0, d0_bits: 32, d1: 0, scc: false, vcc: 0, vcc_out: 0, exec: 0, exec_out: 0, lane: 3, mode: Frame::IEEE_MODE }
    }

    #[test]
    fn the_machine_subset_writes_a_compare_s_lane_bit_and_exec() {
        let p = Program::parse_machine("EXEC.u64[laneId] = D0.u64[laneId] = S0.i32 > S1.i32;\n// D0 = VCC in VOPC encoding.").unwrap();
        let f = p.footprint();
        assert!(f.writes_d0_lane && f.writes_exec_lane && !f.writes_exec, "{f:?}");
        let mut st = frame();
        p.run_frame(&mut st, &[(5, 32), (0xffff_ffff, 32)]).unwrap();
        assert_eq!((st.d0, st.exec_out), (1 << 3, 1 << 3), "5 > -1 as signed");
        let mut st = frame();
        p.run_frame(&mut st, &[(0xffff_ffff, 32), (5, 32)]).unwrap();
        assert_eq!((st.d0, st.exec_out), (0, 0));
        assert!(Program::parse(&"EXEC.u64[laneId] = S0.u32 > S1.u32").is_err(), "not in the prover's subset");
    }

    #[test]
    fn saveexec_names_its_temporary_and_writes_the_whole_mask() {
        let p = Program::parse_machine("saveexec = EXEC.u64;\nEXEC.u64 = (S0.u64 & EXEC.u64);\nD0.u64 = saveexec.u64;\nSCC = EXEC.u64 != 0ULL").unwrap();
        let mut st = Frame { d0_bits: 64, exec: 0xf0f0, exec_out: 0xf0f0, ..frame() };
        p.run_frame(&mut st, &[(0xff00, 64)]).unwrap();
        assert_eq!((st.d0, st.exec_out, st.scc), (0xf0f0, 0xf000, true));
    }

    #[test]
    fn a_concatenated_write_splits_the_carry_from_the_sum() {
        let p = Program::parse_machine("{ D1.u1, D0.u64 } = 65'B(65'U(S0.u32) * 65'U(S1.u32) + 65'U(S2.u64))").unwrap();
        let mut st = Frame { d0_bits: 64, ..frame() };
        p.run_frame(&mut st, &[(0xffff_ffff, 32), (0xffff_ffff, 32), (u64::MAX, 64)]).unwrap();
        // (2^32-1)^2 + 2^64-1 = 2^65 - 2^33: the low 64 bits are -2^33, the 65th bit is set.
        assert_eq!((st.d0, st.d1), (0u64.wrapping_sub(1 << 33), 1 << 3));
    }

    fn run_float(text: &str, sources: &[(u64, u8)], mode: u32) -> u64 {
        let mut st = Frame { mode, ..frame() };
        Program::parse_machine(text).unwrap().run_frame(&mut st, sources).unwrap();
        st.d0
    }

    #[test]
    fn cvt_pk_rtz_rounds_toward_zero_and_saturates() {
        let text = crate::isa::semantics::transcribed::text("V_CVT_PK_RTZ_F16_F32").unwrap();
        let f = |x: f32| (u64::from(x.to_bits()), 32);
        let cvt = |a: f32, b: f32| run_float(text, &[f(a), f(b)], Frame::IEEE_MODE);
        // 1 + 0.75 * 2^-10 is nearest 1 + 2^-10 (0x3c01); toward zero it is 1 (0x3c00).
        let x = 1.0 + 0.75 * 2f32.powi(-10);
        assert_eq!(cvt(x, -x), 0xbc00_3c00);
        // Past the largest half: 65504 (0x7bff), not infinity; infinities and NaNs stay.
        assert_eq!(cvt(70000.0, -70000.0), 0xfbff_7bff);
        assert_eq!(cvt(f32::INFINITY, f32::NEG_INFINITY), 0xfc00_7c00);
        assert_eq!(cvt(f32::NAN, 0.5), 0x3800_7e00);
        // Exact values and denormal halves are unchanged: 2^-24 and 3 * 2^-24 + a bit.
        assert_eq!(cvt(2f32.powi(-24), 3.5 * 2f32.powi(-24)), 0x0003_0001);
        // Any other use of a round mode is outside the subset.
        assert!(Program::parse_machine("prev_mode = ROUND_MODE;\nROUND_MODE = ROUND_TOWARD_ZERO;\nD0.f32 = S0.f32 + S1.f32;\nROUND_MODE = prev_mode").is_err());
        assert!(Program::parse_machine("ROUND_MODE = ROUND_TOWARD_ZERO;\nD0.f16 = f32_to_f16(S0.f32)").is_err());
    }

    #[test]
    fn f32_add_rounds_once_to_nearest_even() {
        let add = "D0.f32 = S0.f32 + S1.f32";
        let one = u64::from(1.0f32.to_bits());
        // 1 + 2^-24 is halfway between 1 and 1 + 2^-23: ties go to the even one, 1.
        assert_eq!(run_float(add, &[(one, 32), (u64::from(2f32.powi(-24).to_bits()), 32)], Frame::IEEE_MODE), one);
        assert_eq!(run_float(add, &[(one, 32), (u64::from((3.0 * 2f32.powi(-25)).to_bits()), 32)], Frame::IEEE_MODE), one + 1);
    }

    #[test]
    fn denormals_flush_in_and_out_when_the_mode_says() {
        let mul = "D0.f32 = S0.f32 * S1.f32";
        let (tiny, two) = (1u64, u64::from(2f32.to_bits()));
        assert_eq!(run_float(mul, &[(tiny, 32), (two, 32)], Frame::IEEE_MODE), 2, "denormals kept");
        assert_eq!(run_float(mul, &[(tiny, 32), (two, 32)], 0x200), 0, "FP_DENORM 0: flushed");
        // Flushing the f16/f64 field leaves f32 alone.
        assert_eq!(run_float(mul, &[(tiny, 32), (two, 32)], 0x230), 2);
    }

    #[test]
    fn min_and_max_follow_amd_s_nan_and_signed_zero_rules() {
        let min = "D0.f32 = v_min_f32(S0.f32, S1.f32)";
        let max = "D0.f32 = v_max_f32(S0.f32, S1.f32)";
        let (qnan, snan, one) = (0x7fc0_0000u64, 0x7f80_0001u64, u64::from(1f32.to_bits()));
        assert_eq!(run_float(min, &[(qnan, 32), (one, 32)], Frame::IEEE_MODE), one, "a quiet NaN loses");
        assert_eq!(run_float(max, &[(one, 32), (snan, 32)], Frame::IEEE_MODE), 0x7fc0_0001, "a signalling NaN wins, quieted");
        let (pz, nz) = (0u64, 0x8000_0000u64);
        assert_eq!(run_float(min, &[(pz, 32), (nz, 32)], Frame::IEEE_MODE), nz, "-0 < +0");
        assert_eq!(run_float(max, &[(nz, 32), (pz, 32)], Frame::IEEE_MODE), pz);
    }

    #[test]
    fn conversions_to_f16_round_to_nearest_even_and_saturate_to_infinity() {
        let cvt = |x: f64| float::f64_to_f16(x);
        assert_eq!(cvt(1.0 + 2f64.powi(-11)), 0x3c00, "a tie goes to the even neighbour");
        assert_eq!(cvt(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        assert_eq!((cvt(65504.0), cvt(65519.0), cvt(65520.0)), (0x7bff, 0x7bff, 0x7c00));
        assert_eq!((cvt(2f64.powi(-25)), cvt(3.0 * 2f64.powi(-25)), cvt(-2f64.powi(-14))), (0, 2, 0x8400));
        for h in [0x0001u16, 0x03ff, 0x0400, 0x3555, 0x7bff, 0xc000] {
            assert_eq!(cvt(float::f16_to_f64(h)), h, "{h:#x} round-trips");
        }
    }

    #[test]
    fn float_to_int_conversions_truncate_and_saturate() {
        let cvt = "D0.i32 = f32_to_i32(S0.f32)";
        assert_eq!(run_float(cvt, &[(u64::from((-2.75f32).to_bits()), 32)], Frame::IEEE_MODE), u64::from((-2i32) as u32));
        assert_eq!(run_float(cvt, &[(u64::from(3e10f32.to_bits()), 32)], Frame::IEEE_MODE), u64::from(i32::MAX as u32));
        assert_eq!(run_float(cvt, &[(0x7fc0_0000, 32)], Frame::IEEE_MODE), 0, "NaN converts to 0");
    }

    #[test]
    fn signext_widens_by_the_sign() {
        let p = Program::parse_machine("D0.i32 = 32'I(signext(S0.i16))").unwrap();
        let mut st = frame();
        p.run_frame(&mut st, &[(0xfffe, 32)]).unwrap();
        assert_eq!(st.d0, 0xffff_fffe);
    }
}
