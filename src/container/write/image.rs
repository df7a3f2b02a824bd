//! The output of a container write, described as edits over its input rather than built in
//! memory: a host library is 1.3 GB, and its rewrite changes a few MiB of it.
//!
//! An [`Image`] is a prefix of the input (all of it unless the writer cut it), edits laid over
//! that prefix (a later edit wins where two overlap), and pieces appended after it. The edits
//! and pieces borrow what they can (the input's own bytes, the rewritten objects) and own only
//! what the writer made (headers, re-compressed bundles). [`Image::write_to`] streams it into
//! a file: the prefix copied file to file by the kernel (`copy_file_range`, no pages of the
//! input touched), then each edit written at its offset, then the appended pieces (those that
//! are slices of the input, such as a moved bundle's unchanged entries, copied by the kernel
//! too), so that the output is never held whole in memory. [`Image::to_vec`] gives the same
//! bytes in memory, for callers that want them.

use std::borrow::Cow;
use std::io::{self, Read as _, Seek as _, SeekFrom, Write as _};

/// Bytes borrowed or owned, or a run of zeros (a zeroed slot, padding) stored as its length.
#[derive(Clone, Debug)]
pub(super) enum Piece<'a> {
    Bytes(Cow<'a, [u8]>),
    Zeros(u64),
}

impl Piece<'_> {
    pub fn len(&self) -> u64 {
        match self {
            Piece::Bytes(b) => b.len() as u64,
            Piece::Zeros(n) => *n,
        }
    }

    fn write(&self, out: &mut impl io::Write) -> io::Result<()> {
        match self {
            Piece::Bytes(b) => write_chunked(out, b),
            Piece::Zeros(n) => write_zeros(out, *n),
        }
    }

    fn extend(&self, out: &mut Vec<u8>) {
        match self {
            Piece::Bytes(b) => out.extend_from_slice(b),
            Piece::Zeros(n) => out.resize(out.len() + *n as usize, 0),
        }
    }

    /// Byte `i` of the piece.
    fn byte(&self, i: u64) -> u8 {
        match self {
            Piece::Bytes(b) => b[i as usize],
            Piece::Zeros(_) => 0,
        }
    }
}

/// Pieces laid end to end (a re-packed bundle: its header, then each entry after its padding).
#[derive(Clone, Debug, Default)]
pub(super) struct Pieces<'a>(pub Vec<Piece<'a>>);

impl<'a> Pieces<'a> {
    pub fn len(&self) -> u64 {
        self.0.iter().map(Piece::len).sum()
    }

    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len() as usize);
        for p in &self.0 {
            p.extend(&mut out);
        }
        out
    }
}

/// The output as the input's first `kept` bytes, edits over them, and pieces after them.
#[derive(Clone, Debug)]
pub struct Image<'a> {
    /// The input, or (for a bare code object or a bundle file, written anew) the new bytes.
    input: Cow<'a, [u8]>,
    /// Whether `input` is the bytes of the file being rewritten (so the kernel may copy them).
    is_source: bool,
    kept: u64,
    /// (offset, bytes) over the kept prefix, in the order they were made.
    edits: Vec<(u64, Piece<'a>)>,
    tail: Vec<Piece<'a>>,
    tail_len: u64,
}

impl<'a> Image<'a> {
    /// The input unchanged.
    pub fn of(input: &'a [u8]) -> Image<'a> {
        Image { input: Cow::Borrowed(input), is_source: true, kept: input.len() as u64, edits: Vec::new(), tail: Vec::new(), tail_len: 0 }
    }

    /// New bytes that do not come from the input file (a code object, a re-packed bundle file).
    pub fn new(bytes: impl Into<Cow<'a, [u8]>>) -> Image<'a> {
        let input = bytes.into();
        Image { kept: input.len() as u64, input, is_source: false, edits: Vec::new(), tail: Vec::new(), tail_len: 0 }
    }

    pub fn len(&self) -> u64 {
        self.kept + self.tail_len
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True if the image is its input, byte for byte, by construction (no edit, no cut, nothing
    /// appended).
    pub fn is_input(&self) -> bool {
        self.is_source && self.edits.is_empty() && self.tail.is_empty() && self.kept == self.input.len() as u64
    }

    /// Whether the image is edits over the input file's own bytes, which
    /// [`Image::write_over_input`] can lay over a copy of that file.
    pub fn lies_over_input(&self) -> bool {
        self.is_source
    }

    /// Puts `bytes` at `at`, inside the kept prefix.
    pub(super) fn put(&mut self, at: u64, bytes: impl Into<Cow<'a, [u8]>>) {
        let bytes = bytes.into();
        self.edit(at, Piece::Bytes(bytes));
    }

    /// Zeros `len` bytes from `at`, inside the kept prefix.
    pub(super) fn zero(&mut self, at: u64, len: u64) {
        self.edit(at, Piece::Zeros(len));
    }

    fn edit(&mut self, at: u64, piece: Piece<'a>) {
        let end = at + piece.len();
        assert!(end <= self.kept, "an edit at {at:#x}..{end:#x} past the kept input ({:#x})", self.kept);
        if piece.len() > 0 {
            self.edits.push((at, piece));
        }
    }

    /// `N` bytes from `at` as the image holds them (inside the kept prefix: the writer reads
    /// back only what it may edit there).
    pub(super) fn read<const N: usize>(&self, at: u64) -> [u8; N] {
        let end = at + N as u64;
        assert!(end <= self.kept, "a read at {at:#x}..{end:#x} past the kept input ({:#x})", self.kept);
        let mut out: [u8; N] = self.input[at as usize..end as usize].try_into().unwrap();
        for (o, p) in self.edits.iter().filter(|(o, p)| *o < end && at < o + p.len()) {
            for (i, b) in out.iter_mut().enumerate() {
                let x = at + i as u64;
                if x >= *o && x - o < p.len() {
                    *b = p.byte(x - o);
                }
            }
        }
        out
    }

    pub(super) fn read_u16(&self, at: u64) -> u16 {
        u16::from_le_bytes(self.read(at))
    }

    pub(super) fn read_u64(&self, at: u64) -> u64 {
        u64::from_le_bytes(self.read(at))
    }

    /// Cuts the image to `len` bytes (at most the kept prefix): edits past it are dropped, as a
    /// truncated buffer drops them.
    pub(super) fn truncate(&mut self, len: u64) {
        assert!(self.tail.is_empty() && len <= self.kept, "truncate only within the input");
        self.kept = len;
        self.edits.retain(|(o, _)| *o < len);
        for (o, p) in &mut self.edits {
            if *o + p.len() > len {
                let keep = len - *o;
                *p = match p {
                    Piece::Bytes(b) => Piece::Bytes(Cow::Owned(b[..keep as usize].to_vec())),
                    Piece::Zeros(_) => Piece::Zeros(keep),
                };
            }
        }
    }

    /// Appends `piece`.
    pub(super) fn append(&mut self, piece: Piece<'a>) {
        self.tail_len += piece.len();
        if piece.len() > 0 {
            self.tail.push(piece);
        }
    }

    /// Appends zeros up to `len` bytes in all (never shortens).
    pub(super) fn pad_to(&mut self, len: u64) {
        if len > self.len() {
            self.append(Piece::Zeros(len - self.len()));
        }
    }

    /// The image's bytes in memory.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len() as usize);
        out.extend_from_slice(&self.input[..self.kept as usize]);
        for (at, p) in &self.edits {
            let at = *at as usize;
            match p {
                Piece::Bytes(b) => out[at..at + b.len()].copy_from_slice(b),
                Piece::Zeros(n) => out[at..at + *n as usize].fill(0),
            }
        }
        for p in &self.tail {
            p.extend(&mut out);
        }
        out
    }

    /// Writes the image into `file` (empty, at offset 0). `source`, the input file, lets the
    /// kernel copy file to file (`copy_file_range`) the kept prefix and every edit or piece
    /// that is a slice of the input (a moved bundle's entries, the moved unloaded sections), so
    /// those bytes never pass through this process's memory; without it they are written from
    /// `input`'s bytes.
    ///
    /// The file gets its full length first, so what is never written reads as zeros (a hole):
    /// zeroed ranges of the prefix are not copied and then overwritten with zeros, and zeros
    /// appended are skipped. In a library whose grown bundles moved, their old slots are
    /// hundreds of MiB that were copied once and zeroed once (half the bytes this wrote).
    pub fn write_to(&self, file: &mut std::fs::File, source: Option<&mut std::fs::File>) -> io::Result<()> {
        let mut source = source.filter(|_| self.is_source);
        file.set_len(self.len())?;
        for range in self.prefix_to_copy() {
            file.seek(SeekFrom::Start(range.start))?;
            match source.as_deref_mut() {
                Some(source) => copy_range(source, range.start, range.end - range.start, file)?,
                None => write_chunked(file, &self.input[range.start as usize..range.end as usize])?,
            }
        }
        // Left a hole by the prefix copy: zero only what an earlier edit wrote there.
        self.lay_over(file, source, |edits_before, (at, n), out| {
            for (o, q) in edits_before {
                if matches!(q, Piece::Bytes(_)) {
                    let (from, to) = (at.max(*o), (at + n).min(o + q.len()));
                    if from < to {
                        out.seek(SeekFrom::Start(from))?;
                        write_zeros(out, to - from)?;
                    }
                }
            }
            Ok(())
        })
    }

    /// [`Image::write_to`] for a file that already holds the input whole, copied while the
    /// code objects were still being rewritten (a host library's output is mostly its input):
    /// what the image zeros becomes a hole (`fallocate` punches it; where the file system
    /// cannot, zeros are written), what lies past the kept prefix is cut and then written.
    pub fn write_over_input(&self, file: &mut std::fs::File, source: &mut std::fs::File) -> io::Result<()> {
        assert!(self.is_source, "only an image of the input file lies over the input");
        file.set_len(self.kept)?;
        file.set_len(self.len())?;
        self.lay_over(file, Some(source), |_, (at, n), out| {
            out.flush()?;
            punch_hole(out.get_mut(), at, n)
        })
    }

    /// Writes the edits, in order, over the prefix already in `file` (each zeroing edit by
    /// `zero(the edits before it, (offset, length), out)`), then the pieces after the prefix.
    fn lay_over(
        &self,
        file: &mut std::fs::File,
        mut source: Option<&mut std::fs::File>,
        mut zero: impl FnMut(&[(u64, Piece<'a>)], (u64, u64), &mut io::BufWriter<&mut std::fs::File>) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut out = io::BufWriter::with_capacity(1 << 20, file);
        for (i, (at, p)) in self.edits.iter().enumerate() {
            match p {
                Piece::Zeros(n) => zero(&self.edits[..i], (*at, *n), &mut out)?,
                Piece::Bytes(_) => {
                    out.seek(SeekFrom::Start(*at))?;
                    self.write_piece(p, &mut out, source.as_deref_mut())?;
                }
            }
        }
        out.seek(SeekFrom::Start(self.kept))?;
        for p in &self.tail {
            match p {
                // The file's length already covers them: a hole.
                Piece::Zeros(n) => {
                    out.seek(SeekFrom::Current(*n as i64))?;
                }
                Piece::Bytes(_) => self.write_piece(p, &mut out, source.as_deref_mut())?,
            }
        }
        out.flush()?;
        Ok(())
    }

    /// The ranges of the kept prefix the output takes from the input: all of it but what an
    /// edit zeros (sorted, disjoint).
    fn prefix_to_copy(&self) -> Vec<std::ops::Range<u64>> {
        let mut zeroed: Vec<(u64, u64)> = self.edits.iter().filter_map(|(at, p)| matches!(p, Piece::Zeros(_)).then(|| (*at, at + p.len()))).collect();
        zeroed.sort_unstable();
        let mut out = Vec::with_capacity(zeroed.len() + 1);
        let mut from = 0;
        for (start, end) in zeroed {
            if start > from {
                out.push(from..start);
            }
            from = from.max(end);
        }
        if self.kept > from {
            out.push(from..self.kept);
        }
        out
    }

    fn write_piece(&self, piece: &Piece<'_>, out: &mut io::BufWriter<&mut std::fs::File>, source: Option<&mut std::fs::File>) -> io::Result<()> {
        if let (Piece::Bytes(bytes), Some(source)) = (piece, source)
            && let Some(at) = self.offset_in_input(bytes)
        {
            out.flush()?;
            return copy_range(source, at, bytes.len() as u64, out.get_mut());
        }
        piece.write(out)
    }

    /// Where `bytes` start in the input, if they are a (non-empty) slice of it.
    fn offset_in_input(&self, bytes: &[u8]) -> Option<u64> {
        let start = (bytes.as_ptr() as usize).wrapping_sub(self.input.as_ptr() as usize);
        (!bytes.is_empty() && start < self.input.len() && self.input.len() - start >= bytes.len()).then_some(start as u64)
    }
}

/// Copies `len` bytes of `source` from offset `at` to `to`'s position. std copies File to
/// File with copy_file_range(2) on Linux (falling back to read and write where it cannot).
fn copy_range(source: &mut std::fs::File, at: u64, len: u64, to: &mut std::fs::File) -> io::Result<()> {
    source.seek(SeekFrom::Start(at))?;
    let copied = io::copy(&mut source.take(len), to)?;
    if copied != len {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, format!("the input ended after {} of {} bytes", at + copied, at + len)));
    }
    Ok(())
}

/// Writes `bytes` a MiB at a time. One write(2) of many MiB from our memory ran at 140 MB/s
/// on the 2-core VM where the bench runs, the same bytes in 1 MiB writes at 4 GB/s (500 MB of
/// either, to a fresh file); a rewritten code object is 5-14 MB.
/// Makes `len` bytes of `file` from `at` read as zeros: a hole punched (the blocks freed, the
/// size kept), or zeros written where the file system cannot punch one.
fn punch_hole(file: &mut std::fs::File, at: u64, len: u64) -> io::Result<()> {
    use std::os::fd::AsRawFd as _;
    if len == 0 {
        return Ok(());
    }
    // SAFETY: fallocate(2) on a file descriptor we own; it reads no memory of ours.
    let r = unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE, at as libc::off_t, len as libc::off_t) };
    if r == 0 {
        return Ok(());
    }
    file.seek(SeekFrom::Start(at))?;
    let mut out = io::BufWriter::with_capacity(1 << 20, file);
    write_zeros(&mut out, len)?;
    out.flush()
}

pub(super) fn write_chunked(out: &mut impl io::Write, bytes: &[u8]) -> io::Result<()> {
    bytes.chunks(1 << 20).try_for_each(|chunk| out.write_all(chunk))
}

fn write_zeros(out: &mut impl io::Write, mut n: u64) -> io::Result<()> {
    static ZEROS: [u8; 64 << 10] = [0; 64 << 10];
    while n > 0 {
        let k = n.min(ZEROS.len() as u64) as usize;
        out.write_all(&ZEROS[..k])?;
        n -= k as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same edits made to a buffer and to an image give the same bytes, in memory, read
    /// back, and streamed to a file (with and without the kernel's copy).
    #[test]
    fn an_image_holds_what_the_buffer_would() {
        let input: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        let mut buffer = input.clone();
        let mut image = Image::of(&input);
        assert!(image.is_input());
        let new = vec![0xaa; 300];
        buffer[100..400].copy_from_slice(&new);
        image.put(100, &new[..]);
        buffer[350..360].fill(0);
        image.zero(350, 10);
        buffer[9_000..9_990].fill(0);
        image.zero(9_000, 990);
        buffer[8..16].copy_from_slice(&7u64.to_le_bytes());
        image.put(8, 7u64.to_le_bytes().to_vec());
        // Bytes over a zeroed range (the writer leaves zeroed ranges holes) and zeros over
        // bytes an earlier edit wrote.
        buffer[9_100..9_103].copy_from_slice(b"xyz");
        image.put(9_100, b"xyz".to_vec());
        buffer[9_102..9_110].fill(0);
        image.zero(9_102, 8);
        assert_eq!(image.read_u64(8), 7);
        assert_eq!(image.read_u16(355), 0);
        assert_eq!(image.read_u16(398), 0xaaaa);
        assert_eq!(image.read_u16(400), u16::from_le_bytes([input[400], input[401]]));
        // Cut within an edit: its head stays, as a truncated buffer keeps it.
        buffer.truncate(9_500);
        image.truncate(9_500);
        buffer.resize(12_288, 0);
        image.pad_to(12_288);
        buffer.extend_from_slice(&input[..50]);
        image.append(Piece::Bytes(Cow::Borrowed(&input[..50])));
        // Slices of the input, appended and laid over it: copied by the kernel from the file.
        buffer.extend_from_slice(&input[7_000..9_100]);
        image.append(Piece::Bytes(Cow::Borrowed(&input[7_000..9_100])));
        buffer.copy_within(5_000..5_100, 200);
        image.put(200, &input[5_000..5_100]);
        buffer.extend_from_slice(b"end");
        image.append(Piece::Bytes(Cow::Owned(b"end".to_vec())));
        assert_eq!(image.len(), buffer.len() as u64);
        assert!(!image.is_input());
        assert!(image.to_vec() == buffer);
        let dir = tempfile::tempdir().unwrap();
        let source_path = dir.path().join("in");
        std::fs::write(&source_path, &input).unwrap();
        for kernel_copy in [false, true] {
            let path = dir.path().join(format!("out-{kernel_copy}"));
            let mut file = std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&path).unwrap();
            let mut source = std::fs::File::open(&source_path).unwrap();
            image.write_to(&mut file, kernel_copy.then_some(&mut source)).unwrap();
            assert!(std::fs::read(&path).unwrap() == buffer, "streamed (kernel copy {kernel_copy})");
        }
        // Laid over a copy of the whole input (holes punched where the image zeros).
        let path = dir.path().join("over");
        std::fs::copy(&source_path, &path).unwrap();
        let mut file = std::fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
        image.write_over_input(&mut file, &mut std::fs::File::open(&source_path).unwrap()).unwrap();
        assert!(std::fs::read(&path).unwrap() == buffer, "laid over the input");
    }

    #[test]
    fn pieces_lie_end_to_end() {
        let pieces = Pieces(vec![Piece::Bytes(Cow::Borrowed(b"abc")), Piece::Zeros(2), Piece::Bytes(Cow::Owned(b"de".to_vec()))]);
        assert_eq!(pieces.len(), 7);
        assert_eq!(pieces.to_vec(), b"abc\0\0de");
    }
}
