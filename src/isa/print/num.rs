//! Integer formatting for the printer's hot path, without `core::fmt`: decimal and LLVM's
//! `formatHex` (`0x` + lowercase digits, no padding) straight into the output.

/// Appends `bytes` without re-validating them as UTF-8. Callers (this module and the
/// register printer) pass only ASCII they built themselves: digits, `x`, `[`, `:`, `]` and
/// the register-file prefixes.
#[inline]
pub(super) fn push_ascii(out: &mut String, bytes: &[u8]) {
    debug_assert!(bytes.is_ascii());
    // SAFETY: the bytes are ASCII (see above), valid UTF-8 on their own, so the String stays
    // valid UTF-8.
    if bytes.len() <= 16 {
        // SAFETY: ASCII is valid UTF-8.
        push_str(out, unsafe { std::str::from_utf8_unchecked(bytes) });
        return;
    }
    unsafe { out.as_mut_vec() }.extend_from_slice(bytes);
}

/// Appends `text` (short literal pieces of the print programs) without a call into `memcpy`
/// for the common lengths of up to 16 bytes.
#[inline]
pub(super) fn push_str(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let n = bytes.len();
    if n > 16 {
        out.push_str(text);
        return;
    }
    // SAFETY: `text` is valid UTF-8, so the String stays valid; 16 bytes are reserved past the
    // length, so the (overlapping) writes stay inside the allocation, and the new length
    // covers exactly the bytes copied.
    unsafe {
        let v = out.as_mut_vec();
        v.reserve(16);
        let dst = v.as_mut_ptr().add(v.len());
        let src = bytes.as_ptr();
        if n >= 8 {
            let a = src.cast::<u64>().read_unaligned();
            let b = src.add(n - 8).cast::<u64>().read_unaligned();
            dst.cast::<u64>().write_unaligned(a);
            dst.add(n - 8).cast::<u64>().write_unaligned(b);
        } else if n >= 4 {
            let a = src.cast::<u32>().read_unaligned();
            let b = src.add(n - 4).cast::<u32>().read_unaligned();
            dst.cast::<u32>().write_unaligned(a);
            dst.add(n - 4).cast::<u32>().write_unaligned(b);
        } else {
            for i in 0..n {
                *dst.add(i) = *src.add(i);
            }
        }
        v.set_len(v.len() + n);
    }
}

/// Appends `v` in decimal (as `{}` writes it).
#[inline]
pub fn push_dec(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    push_udec(out, v.unsigned_abs());
}

/// Appends `v` in decimal.
#[inline]
pub fn push_udec(out: &mut String, mut v: u64) {
    if v < 10 {
        out.push(char::from(b'0' + v as u8));
        return;
    }
    let mut buf = [0u8; 20];
    let mut at = buf.len();
    while v > 0 {
        at -= 1;
        buf[at] = b'0' + (v % 10) as u8;
        v /= 10;
    }
    push_ascii(out, &buf[at..]);
}

/// Appends `v` as `{v:#x}` writes it (`0x0`, `0x1f`).
#[inline]
pub fn push_hex(out: &mut String, v: u64) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut buf = [0u8; 18];
    let mut at = buf.len();
    let mut v = v;
    loop {
        at -= 1;
        buf[at] = DIGITS[(v & 0xf) as usize];
        v >>= 4;
        if v == 0 {
            break;
        }
    }
    at -= 2;
    buf[at] = b'0';
    buf[at + 1] = b'x';
    push_ascii(out, &buf[at..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_core_fmt() {
        let values: [i64; 14] = [0, 1, 9, 10, 15, 16, 99, 100, 255, 65535, -1, -16, i64::MIN, i64::MAX];
        for v in values {
            let mut s = String::new();
            push_dec(&mut s, v);
            assert_eq!(s, format!("{v}"));
            let mut s = String::new();
            push_hex(&mut s, v as u64);
            assert_eq!(s, format!("{:#x}", v as u64));
            let mut s = String::new();
            push_udec(&mut s, v as u64);
            assert_eq!(s, format!("{}", v as u64));
        }
    }

    #[test]
    fn push_str_every_length() {
        let text = "0123456789abcdefghijklmnopqrstuvwxyz";
        for n in 0..=text.len() {
            let mut s = String::from("x");
            push_str(&mut s, &text[..n]);
            push_str(&mut s, &text[..n]);
            assert_eq!(s, format!("x{}{}", &text[..n], &text[..n]));
        }
    }
}
