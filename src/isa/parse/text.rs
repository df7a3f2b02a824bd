//! Comparing assembler text: the matcher the parser checks its candidates with.
//!
//! Text is compared as LLVM's assembler reads it, not byte for byte: whitespace is
//! insignificant, a number equals the same value written another way (`offset:16` is
//! `offset:0x10`), and a mnemonic may leave out the encoding suffix (`_e32`, `_e64`, `_dpp`,
//! `_sdwa`) the printer writes, as `llvm-mc` accepts it. A number keeps its sign and width:
//! `0xffffffff` (a literal) is not `-1` (an inline constant).

/// Encoding suffixes the printer writes after a mnemonic and the assembler lets a user omit.
pub const SUFFIXES: [&str; 5] = ["_e64_dpp", "_e32", "_e64", "_dpp", "_sdwa"];

/// The code of a source line, comments removed as LLVM's lexer skips them: `;` and `//` end
/// the code; a `/* ... */` comment (as the printer writes `/*Invalid register, ...*/` after a
/// register) is blanked to spaces of its length, so columns of the rest stay those of the
/// line. A `/*` the line does not close runs to the end of the line (block comments are read
/// within one line).
pub fn code_of(line: &str) -> std::borrow::Cow<'_, str> {
    let end = [line.find(';'), line.find("//")].into_iter().flatten().min().unwrap_or(line.len());
    let Some(open) = line[..end].find("/*") else {
        return std::borrow::Cow::Borrowed(&line[..end]);
    };
    let mut code = String::with_capacity(line.len());
    let mut rest = &line[..];
    let mut at = open;
    loop {
        code.push_str(&rest[..at]);
        let comment = &rest[at..];
        let Some(close) = comment[2..].find("*/") else {
            break;
        };
        let len = close + 4;
        code.extend(std::iter::repeat_n(' ', len));
        rest = &comment[len..];
        let end = [rest.find(';'), rest.find("//")].into_iter().flatten().min().unwrap_or(rest.len());
        match rest[..end].find("/*") {
            Some(next) => at = next,
            None => {
                code.push_str(&rest[..end]);
                break;
            }
        }
    }
    std::borrow::Cow::Owned(code)
}

/// Input text prepared for matching: whitespace collapsed, with each byte's original column.
pub struct Source {
    pub text: String,
    columns: Vec<usize>,
    /// Byte offset in `text` where the mnemonic ends, when the mnemonic leaves out an encoding
    /// suffix that the printed text may carry there.
    pub suffix_gap: Option<usize>,
}

impl Source {
    /// Prepares one instruction's text (comments already removed).
    pub fn new(line: &str) -> Source {
        let mut text = String::new();
        let mut columns = Vec::new();
        let mut space = false;
        for (column, c) in line.char_indices() {
            if c.is_whitespace() {
                space = !text.is_empty();
                continue;
            }
            if space {
                text.push(' ');
                columns.push(column);
                space = false;
            }
            text.push(c);
            columns.extend(std::iter::repeat_n(column, c.len_utf8()));
        }
        columns.push(line.trim_end().len());
        Source {
            text,
            columns,
            suffix_gap: None,
        }
    }

    /// Removes `len` bytes at `at` (the encoding suffix of a mnemonic), keeping the columns of
    /// the rest.
    pub fn cut(&mut self, at: usize, len: usize) {
        if len > 0 && at + len <= self.text.len() {
            self.text.replace_range(at..at + len, "");
            self.columns.drain(at..at + len);
        }
    }

    /// Replaces `len` bytes at `at` with `new` (a renamed mnemonic); the new bytes take the
    /// column of the first one replaced.
    pub fn splice(&mut self, at: usize, len: usize, new: &str) {
        if at + len <= self.text.len() {
            let column = self.columns[at];
            self.text.replace_range(at..at + len, new);
            self.columns
                .splice(at..at + len, std::iter::repeat_n(column, new.len()));
        }
    }

    /// The 1-based column of byte offset `at` of the prepared text in the original line.
    pub fn column(&self, at: usize) -> usize {
        self.columns
            .get(at)
            .copied()
            .unwrap_or_else(|| self.columns.last().copied().unwrap_or(0))
            + 1
    }

    /// The mnemonic (first word).
    pub fn mnemonic(&self) -> &str {
        self.text.split(' ').next().unwrap_or("")
    }

    /// The word starting at `at` (up to a space or comma), for error messages.
    pub fn word_at(&self, at: usize) -> &str {
        let rest = self
            .text
            .get(at..)
            .unwrap_or("")
            .trim_start_matches([' ', ',']);
        // A bracketed list (`dpp8:[0,1,...]`, `op_sel:[0,1]`) is one word.
        let mut depth = 0;
        let end = rest
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '[' | '(' => depth += 1,
                    ']' | ')' => depth -= 1,
                    _ => {}
                }
                depth <= 0 && (c == ' ' || c == ',')
            })
            .map_or(rest.len(), |(k, _)| k);
        &rest[..end]
    }

    /// Matches `printed` against the text at `at`; returns the offset just past the match.
    pub fn match_at(&self, at: usize, printed: &str) -> Option<usize> {
        let input = self.text.as_bytes();
        let printed = printed.as_bytes();
        let (mut i, mut p) = (at, 0);
        loop {
            while p < printed.len() && printed[p].is_ascii_whitespace() {
                p += 1;
            }
            if Some(i) == self.suffix_gap && p < printed.len() && printed[p] == b'_' {
                // The mnemonic ended here without the suffix the printer writes.
                let rest = &printed[p..];
                let suffix = SUFFIXES.iter().find(|s| {
                    rest.starts_with(s.as_bytes())
                        && rest.get(s.len()).is_none_or(|c| c.is_ascii_whitespace())
                })?;
                p += suffix.len();
                continue;
            }
            if p == printed.len() {
                return Some(i);
            }
            while i < input.len() && input[i] == b' ' {
                i += 1;
            }
            // LLVM's assembler takes a comma between operands where the printer writes a
            // space (`v_permlanex16_var_b32 v5, v1, v100, op_sel:[1,0]`).
            if i < input.len()
                && input[i] == b','
                && printed[p] != b','
                && p > 0
                && printed[p - 1].is_ascii_whitespace()
            {
                i += 1;
                while i < input.len() && input[i] == b' ' {
                    i += 1;
                }
            }
            if i == input.len() {
                return None;
            }
            let word_start = |s: &[u8], k: usize| {
                k == 0
                    || !(s[k - 1].is_ascii_alphanumeric() || s[k - 1] == b'_' || s[k - 1] == b'.')
            };
            if printed[p].is_ascii_digit()
                && input[i].is_ascii_digit()
                && word_start(printed, p)
                && word_start(input, i)
                && let (Some((a, pa)), Some((b, ib))) = (number(&printed[p..]), number(&input[i..]))
            {
                if a != b {
                    return None;
                }
                p += pa;
                i += ib;
                continue;
            }
            if printed[p] != input[i] {
                return None;
            }
            p += 1;
            i += 1;
        }
    }
}

/// An unsigned integer at the start of `s` (decimal or `0x` hex) and its length. A number
/// running into a `.` or letters (a float, a name) is compared as text: `None` here means
/// "not a plain integer", and callers fall back to comparing bytes.
fn number(s: &[u8]) -> Option<(u128, usize)> {
    let (digits, radix, skip) = if s.len() > 2
        && s[0] == b'0'
        && (s[1] == b'x' || s[1] == b'X')
        && s[2].is_ascii_hexdigit()
    {
        (&s[2..], 16, 2)
    } else {
        (s, 10, 0)
    };
    let len = digits
        .iter()
        .take_while(|c| c.is_ascii_hexdigit() && (radix == 16 || c.is_ascii_digit()))
        .count();
    let end = skip + len;
    if s.get(end)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || (*c == b'.' && radix == 10))
    {
        return None;
    }
    let value = u128::from_str_radix(std::str::from_utf8(&digits[..len]).ok()?, radix).ok()?;
    Some((value, end))
}

/// Integers written in `token` (decimal, hex, with a leading `-`), in order: the values an
/// immediate operand's text may hold.
pub fn integers(token: &str) -> Vec<i128> {
    let bytes = token.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    while k < bytes.len() {
        let starts = bytes[k].is_ascii_digit()
            && (k == 0 || !(bytes[k - 1].is_ascii_alphanumeric() || bytes[k - 1] == b'_'));
        if !starts {
            k += 1;
            continue;
        }
        let negative = k > 0 && bytes[k - 1] == b'-';
        let (digits, radix, skip) =
            if bytes[k..].starts_with(b"0x") || bytes[k..].starts_with(b"0X") {
                (&token[k + 2..], 16, 2)
            } else {
                (&token[k..], 10, 0)
            };
        let len = digits
            .bytes()
            .take_while(|c| {
                if radix == 16 {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                }
            })
            .count();
        if let Ok(v) = u128::from_str_radix(&digits[..len], radix) {
            let v = v as i128;
            out.push(if negative { -v } else { v });
        }
        k += skip + len.max(1);
    }
    out
}

/// A float written at the start of `token` (`1.0`, `-0.5`, `1e-3`), if any.
pub fn float(token: &str) -> Option<f64> {
    let end = token
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')))
        .unwrap_or(token.len());
    let text = &token[..end];
    if !text.contains('.') && !text.contains(['e', 'E']) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_and_numbers_compare_by_meaning() {
        let s = Source::new("  ds_read_b32   v1, v2  offset:0x10 ");
        assert_eq!(s.text, "ds_read_b32 v1, v2 offset:0x10");
        assert_eq!(
            s.match_at(0, "ds_read_b32 v1,v2 offset:16"),
            Some(s.text.len())
        );
        assert_eq!(s.column(12), 17, "v1 is at column 17 of the original line");
    }

    #[test]
    fn literal_is_not_an_inline_constant() {
        let s = Source::new("s_addc_u32 s1, s1, 0xffffffff");
        assert_eq!(s.match_at(0, "s_addc_u32 s1, s1, -1"), None);
        assert_eq!(
            s.match_at(0, "s_addc_u32 s1, s1, 0xffffffff"),
            Some(s.text.len())
        );
    }

    #[test]
    fn registers_compare_as_text() {
        let s = Source::new("v10");
        assert_eq!(
            s.match_at(0, "v1"),
            Some(2),
            "a prefix; the next operand's text decides"
        );
        assert_eq!(s.match_at(0, "v0xa"), None);
    }

    #[test]
    fn omitted_suffix() {
        let mut s = Source::new("v_add_f32 v1, v2, v3");
        s.suffix_gap = Some(9);
        assert_eq!(
            s.match_at(0, "v_add_f32_e32 v1, v2, v3"),
            Some(s.text.len())
        );
        assert_eq!(s.match_at(0, "v_add_f32_e64x v1, v2, v3"), None);
    }

    #[test]
    fn integer_and_float_tokens() {
        assert_eq!(integers("offset:-16"), vec![-16]);
        assert_eq!(integers("[0x10,2]"), vec![16, 2]);
        assert_eq!(integers("v1"), Vec::<i128>::new());
        assert_eq!(float("-0.5,"), Some(-0.5));
        assert_eq!(float("12"), None);
    }
}
