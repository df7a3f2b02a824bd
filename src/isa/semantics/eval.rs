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
//! ...`) writes, and `signext`. Anything outside the chosen subset (floating point, memory,
//! control flow, other function calls) is a parse error, so a text that is not what it claims
//! to be fails instead of being half-evaluated.

use std::fmt;

/// A typed value: the low `width` bits of `bits` are the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Val {
    bits: u128,
    width: u8,
    signed: bool,
}

fn mask(width: u8) -> u128 {
    if width >= 128 { u128::MAX } else { (1u128 << width) - 1 }
}

impl Val {
    fn new(bits: u128, width: u8, signed: bool) -> Val {
        Val { bits: bits & mask(width), width, signed }
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
        Val::new(self.extended(), ty.width, ty.signed)
    }

    fn truth(self) -> bool {
        self.bits != 0
    }

    fn bool(b: bool) -> Val {
        Val::new(u128::from(b), 1, false)
    }
}

/// A typed view: `.u32`, `.i64`, `.b32`, `1'U`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ty {
    pub width: u8,
    pub signed: bool,
}

impl Ty {
    fn parse(name: &str) -> Option<Ty> {
        let (signed, digits) = match name.as_bytes().first()? {
            b'u' | b'b' => (false, &name[1..]),
            b'i' => (true, &name[1..]),
            _ => return None,
        };
        let width: u8 = digits.parse().ok()?;
        matches!(width, 1 | 8 | 16 | 24 | 32 | 64).then_some(Ty { width, signed })
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
}

/// A parsed pseudocode text.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// Each statement: the places it writes (several for a chained `a = b = x`) and the value.
    stmts: Vec<(Vec<Place>, Expr)>,
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
    /// `64'U(`, `32'I(`: a sized cast (the `(` is consumed).
    Cast(Ty),
    Op(&'static str),
}

const OPS: [&str; 30] = [
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "&", "|", "^", "~", "!", "<", ">", "=", "?", ":", "(", ")", "[", "]",
    ".", ";", "{", "}", ",",
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
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            // A line break ends a statement like `;`.
            if c == '\n' {
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
            out.push(number(&text[start..i])?);
            if matches!(out.last(), Some(Tok::Cast(_))) {
                if b.get(i) != Some(&b'(') {
                    return Err(SyntaxError(format!("expected `(` after `{}`", &text[start..i])));
                }
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
        // AMD writes not-equal as `<>` as well as `!=`.
        if text[i..].starts_with("<>") {
            out.push(Tok::Op("!="));
            i += 2;
            continue;
        }
        let op = OPS.iter().find(|op| text[i..].starts_with(**op)).ok_or_else(|| SyntaxError(format!("unexpected `{c}`")))?;
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
            "U" | "I" | "B" => Ok(Tok::Cast(Ty { width, signed: rest == "I" })),
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
            let mut places = vec![self.place()?];
            self.expect("=")?;
            // A chained write `EXEC.u64[laneId] = D0.u64[laneId] = x` (machine subset only).
            while self.subset == Subset::Machine && self.chained_place_follows() {
                places.push(self.place()?);
                self.expect("=")?;
            }
            let expr = self.expr()?;
            stmts.push((places, expr));
            if self.peek().is_some() && !self.eat(";") {
                return Err(SyntaxError(format!("expected `;`, found {:?}", self.peek())));
            }
        }
        if stmts.is_empty() {
            return Err(SyntaxError("no statements".into()));
        }
        Ok(Program { stmts, temps: std::mem::take(&mut self.temps) })
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
            "tmp" => {
                if self.eat(".") {
                    return Err(SyntaxError("typed writes to temporaries are not supported".into()));
                }
                Ok(Place::Tmp(self.temp(&name)?))
            }
            _ if self.machine() && is_temp_name(&name) => {
                if self.eat(".") {
                    return Err(SyntaxError("typed writes to temporaries are not supported".into()));
                }
                Ok(Place::Tmp(self.temp(&name)?))
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
        const LEVELS: [&[&str]; 10] = [
            &["||"],
            &["&&"],
            &["|"],
            &["^"],
            &["&"],
            &["==", "!="],
            &["<", "<=", ">", ">="],
            &["<<", ">>"],
            &["+", "-"],
            &["*"],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        while let Some(Tok::Op(op)) = self.peek() {
            let Some(&op) = LEVELS[level].iter().find(|o| *o == op) else { break };
            self.at += 1;
            let right = self.binary(level + 1)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, SyntaxError> {
        for op in ['!', '~', '-'] {
            if self.eat(&op.to_string()) {
                return Ok(Expr::Unary(op, Box::new(self.unary()?)));
            }
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
            Tok::Num(v, width) => Expr::Const(Val::new(v, width, false)),
            Tok::Sized(v, width) => Expr::Const(Val::new(v, width, false)),
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
        Parser { toks: lex(text)?, at: 0, subset, temps: Vec::new() }.program()
    }

    pub fn footprint(&self) -> Footprint {
        fn walk(e: &Expr, f: &mut Footprint) {
            match e {
                Expr::Src(n) => f.sources = f.sources.max(n + 1),
                Expr::D0 => f.reads_d0 = true,
                Expr::Scc => f.reads_scc = true,
                Expr::Vcc => f.reads_vcc = true,
                Expr::Exec => f.reads_exec = true,
                Expr::Const(_) | Expr::LaneId | Expr::Tmp(_) => {}
                Expr::View(e, _) | Expr::Slice(e, ..) | Expr::LaneBit(e) | Expr::Cast(_, e) | Expr::Unary(_, e) | Expr::SignExt(e) => walk(e, f),
                Expr::Binary(_, a, b) => {
                    walk(a, f);
                    walk(b, f);
                }
                Expr::Select(c, a, b) => {
                    walk(c, f);
                    walk(a, f);
                    walk(b, f);
                }
            }
        }
        fn write(place: &Place, f: &mut Footprint) {
            match place {
                Place::D0(ty) => f.d0_writes.push(ty.width),
                Place::Scc => f.writes_scc = true,
                Place::VccLane => f.writes_vcc = true,
                Place::Tmp(_) => {}
                Place::D0Lane => f.writes_d0_lane = true,
                Place::D1Lane => f.writes_d1 = true,
                Place::ExecLane => f.writes_exec_lane = true,
                Place::Exec(_) => f.writes_exec = true,
                Place::Concat(parts) => parts.iter().for_each(|(p, _)| write(p, f)),
            }
        }
        let mut f = Footprint::default();
        for (places, expr) in &self.stmts {
            places.iter().for_each(|p| write(p, &mut f));
            walk(expr, &mut f);
        }
        f
    }

    /// Runs the program on one lane of `state`, whose sources are `sources` (each value as wide
    /// as its operand, `source_bits`). Errors are type errors found while running (a
    /// temporary read before written).
    pub fn run(&self, state: &mut Lane, sources: &[(u64, u8)]) -> Result<(), SyntaxError> {
        let mut frame = Frame { d0: state.d0, d0_bits: state.d0_bits, d1: 0, scc: state.scc, vcc: state.vcc, vcc_out: state.vcc, exec: 0, exec_out: 0, lane: state.lane };
        self.run_frame(&mut frame, sources)?;
        state.d0 = frame.d0;
        state.scc = frame.scc;
        state.vcc = frame.vcc_out;
        Ok(())
    }

    /// Runs the program on one lane of a wave (`frame`), whose sources are `sources`.
    pub fn run_frame(&self, frame: &mut Frame, sources: &[(u64, u8)]) -> Result<(), SyntaxError> {
        let mut temps: Temps = [None; MAX_TEMPS];
        for (places, expr) in &self.stmts {
            let v = eval(expr, frame, sources, &temps, &self.temps)?;
            for place in places {
                assign(place, v, frame, &mut temps);
            }
        }
        Ok(())
    }
}

fn set_lane_bit(mask: &mut u64, lane: u32, v: Val) {
    let bit = 1u64 << lane;
    *mask = if v.bits & 1 == 1 { *mask | bit } else { *mask & !bit };
}

fn assign(place: &Place, v: Val, st: &mut Frame, temps: &mut Temps) {
    match place {
        Place::D0(ty) => {
            let keep = !(mask(ty.width) as u64) & if st.d0_bits >= 64 { u64::MAX } else { (1u64 << st.d0_bits) - 1 };
            st.d0 = (st.d0 & keep) | (v.cast(*ty).bits as u64 & !keep);
        }
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
        Expr::View(e, ty) => ev(e)?.cast(Ty { width: ty.width, signed: false }).cast(*ty),
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
                cmp => {
                    let ord = if signed { a.as_i128().cmp(&b.as_i128()) } else { x.cmp(&y) };
                    Val::bool(match cmp {
                        "==" => ord.is_eq(),
                        "!=" => ord.is_ne(),
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
        Frame { d0: 0, d0_bits: 32, d1: 0, scc: false, vcc: 0, vcc_out: 0, exec: 0, exec_out: 0, lane: 3 }
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

    #[test]
    fn signext_widens_by_the_sign() {
        let p = Program::parse_machine("D0.i32 = 32'I(signext(S0.i16))").unwrap();
        let mut st = frame();
        p.run_frame(&mut st, &[(0xfffe, 32)]).unwrap();
        assert_eq!(st.d0, 0xffff_fffe);
    }
}
