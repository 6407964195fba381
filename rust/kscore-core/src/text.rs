//! Numbers and tables as text, byte for byte as Python writes them: a float
//! as `repr(x)` (the shortest digits that read back as the same double, in
//! Python's layout) and a CSV body of columns. The command's CSV of a
//! leaderboard of 100 000 models is 1.7 million floats: formatted here
//! instead of one `repr` call each (python/kscore/present/tabular.py).

use std::fmt::Write;

use rayon::prelude::*;

use crate::par::Grain;

/// Appends `repr(x)` of a Python float to `out`: `0.1`, `1.0`, `1e-05`,
/// `1e+16`, `-0.0`, `inf`, `nan`.
///
/// The digits are the shortest that read back as `x`, the closest to `x`
/// among them, as CPython's `repr` (David Gay's `dtoa`, mode 0) chooses them.
/// Rust's `{:e}` gives the shortest closest digits too, but where `x` lies
/// exactly halfway between two such strings it takes the upper one, where
/// `dtoa` takes the one whose last digit is even: such exact decimal ties
/// (`x` = `d1...d16 5 x 10^k` exactly, only possible with 16 or more digits,
/// e.g. 643349992456.78125) are found by exact integer arithmetic and
/// settled as Python does (tests/test_present_columnwise.py compares this
/// with the interpreter's `repr` on millions of doubles, ties included).
/// Python's layout: positional when the decimal exponent `e` of the first
/// digit is `-5 < e < 16` (with `.0` after an integer), else `d.ddde±XX` (at
/// least two exponent digits).
pub fn push_repr(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str("nan");
        return;
    }
    if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
        return;
    }
    if x.is_sign_negative() {
        out.push('-');
    }
    // `{:e}` of |x|: "d.ddde-5", "de16", "0e0" (shortest round-trip digits),
    // into a buffer on the stack (no allocation per number).
    let mut sci = Scratch::default();
    let _ = write!(sci, "{:e}", x.abs());
    let text = sci.as_str();
    let (mantissa, mut exp) = match text.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    // The digits without the point: the first, then those after a '.'.
    let mut buf = [0u8; 24];
    let mut len = 0;
    for b in mantissa.bytes().filter(|b| *b != b'.') {
        if len < buf.len() {
            buf[len] = b;
            len += 1;
        }
    }
    if len >= 16 {
        len = settle_tie(x.abs(), &mut buf, len, &mut exp);
    }
    let digits = std::str::from_utf8(&buf[..len]).unwrap_or("0");
    let n = digits.len() as i32;
    // Python's decpt: the value is 0.DIGITS x 10^decpt.
    let decpt = exp + 1;
    if decpt <= -4 || decpt > 16 {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let e = exp.unsigned_abs();
        if e < 10 {
            out.push('0');
        }
        let _ = write!(out, "{e}");
    } else if decpt <= 0 {
        out.push_str("0.");
        for _ in 0..-decpt {
            out.push('0');
        }
        out.push_str(digits);
    } else if decpt < n {
        out.push_str(&digits[..decpt as usize]);
        out.push('.');
        out.push_str(&digits[decpt as usize..]);
    } else {
        out.push_str(digits);
        for _ in 0..decpt - n {
            out.push('0');
        }
        out.push_str(".0");
    }
}

/// The shortest digits `buf[..len]` of `x` (> 0; first digit at decimal
/// exponent `exp`) as `dtoa` settles an exact tie: where `x` is exactly
/// halfway between them and the next string of as many digits, up or down,
/// and the last digit is odd, that neighbour (even) if it reads back as `x`.
/// Returns the new length (a carry may shorten it: trailing zeros dropped).
fn settle_tie(x: f64, buf: &mut [u8; 24], len: usize, exp: &mut i32) -> usize {
    let mut d: u64 = 0;
    for &b in &buf[..len] {
        d = d * 10 + u64::from(b - b'0');
    }
    if d.is_multiple_of(2) {
        return len;
    }
    let k = *exp - (len as i32 - 1); // the decimal exponent of the last digit
    let (m, e) = binary(x);
    // 2x = m 2^(e+1) against (2d -+ 1) 10^k: x halfway below or above d 10^k.
    let other = if exact(m, e + 1, 2 * d - 1, k) {
        d - 1
    } else if exact(m, e + 1, 2 * d + 1, k) {
        d + 1
    } else {
        return len;
    };
    let mut s = Scratch::default();
    let _ = write!(s, "{other}e{k}");
    if s.as_str().parse::<f64>().map(f64::to_bits) != Ok(x.to_bits()) {
        return len; // the even neighbour is not x's: the odd one is the only choice
    }
    let mut t = Scratch::default();
    let _ = write!(t, "{other}");
    let text = t.as_str().trim_end_matches('0');
    let digits = text.len();
    *exp = k + t.as_str().len() as i32 - 1;
    buf[..digits].copy_from_slice(text.as_bytes());
    digits
}

/// `x` (finite, > 0) as `m 2^e`, `m` an integer below 2^53.
fn binary(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let frac = bits & ((1u64 << 52) - 1);
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), biased - 1075)
    }
}

/// Whether `m 2^e == n 10^k` exactly (`n` odd, `m` > 0): their odd parts
/// and powers of two compared in integers.
fn exact(m: u64, e: i32, n: u64, k: i32) -> bool {
    let a = m.trailing_zeros() as i32;
    let odd = u128::from(m >> a);
    let pow5 = |p: u32| -> Option<u128> { 5u128.checked_pow(p) };
    if k >= 0 {
        // m' 2^(a+e) == n 5^k 2^k
        a + e == k && pow5(k as u32).and_then(|p| p.checked_mul(u128::from(n))) == Some(odd)
    } else {
        // m' 5^-k 2^(a+e-k) == n
        a + e - k == 0 && pow5((-k) as u32).and_then(|p| p.checked_mul(odd)) == Some(u128::from(n))
    }
}

/// A small text buffer on the stack (`{:e}` of a double is at most 24 bytes).
#[derive(Default)]
struct Scratch {
    bytes: [u8; 32],
    len: usize,
}

impl Scratch {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("0e0")
    }
}

impl Write for Scratch {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.bytes.len() {
            return Err(std::fmt::Error);
        }
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// `repr(x)` of a Python float (see [`push_repr`]).
pub fn repr(x: f64) -> String {
    let mut s = String::new();
    push_repr(&mut s, x);
    s
}

/// One column of a CSV body: floats (written as `repr`, NaN as an empty
/// field) or fields already written (quoted where they must be).
pub enum Column<'a> {
    Floats(&'a [f64]),
    /// Integers, `i64::MIN` an empty field (a missing value).
    Ints(&'a [i64]),
    Text(&'a [String]),
}

impl Column<'_> {
    fn len(&self) -> usize {
        match self {
            Column::Floats(v) => v.len(),
            Column::Ints(v) => v.len(),
            Column::Text(v) => v.len(),
        }
    }
}

/// Rows of a CSV body written as one piece: a body is written in pieces
/// (on the pool's threads where it is worth it), then joined in order.
const PIECE_ROWS: usize = 1024;

/// Single-core nanoseconds to write a field (a float's `repr`, the most
/// common and dearest): the pool's grain decides from it whether to split.
const FIELD_NS: usize = 100;

/// The lines of a CSV body: row `i` is every column's field `i` joined by
/// commas, each line ended by `\n`. Errors when the columns' lengths differ.
/// Written a piece of rows at a time, the pieces on the pool's threads (the
/// same text at any thread count: each piece is its rows' lines, joined in
/// row order).
pub fn csv_body(columns: &[Column<'_>]) -> crate::Result<String> {
    let rows = columns.first().map_or(0, Column::len);
    if let Some(c) = columns.iter().find(|c| c.len() != rows) {
        return Err(crate::Error::value(format!(
            "CSV columns of different lengths: {rows} and {}",
            c.len()
        )));
    }
    let pieces = rows.div_ceil(PIECE_ROWS);
    let piece_ns = PIECE_ROWS * FIELD_NS * columns.len().max(1);
    let parts: Vec<String> = (0..pieces)
        .into_par_iter()
        .with_grain(piece_ns)
        .map(|p| {
            let (a, b) = (p * PIECE_ROWS, ((p + 1) * PIECE_ROWS).min(rows));
            let mut out = String::with_capacity((b - a) * columns.len() * 12);
            write_rows(&mut out, columns, a, b);
            out
        })
        .collect();
    let mut out = String::with_capacity(parts.iter().map(String::len).sum());
    for part in &parts {
        out.push_str(part);
    }
    Ok(out)
}

/// Entries of a piece's [`Memo`] (a power of two).
const MEMO_SLOTS: usize = 2048;

/// The floats a piece of rows has written, by their bits (direct-mapped:
/// a slot keeps the last double hashed to it): a board's columns repeat
/// their values (100 000 models on 20 questions: at most some 1 200
/// distinct values a column, a few dozen in a piece), and a double's
/// `repr` is copied from here instead of written again. The text is the
/// same either way: it is only ever the double's own `repr`.
struct Memo {
    bits: Vec<u64>,
    len: Vec<u8>,
    text: Vec<[u8; 32]>,
}

impl Memo {
    fn new() -> Self {
        // (a NaN's bits as the empty slot: NaN is never looked up, it is an empty field)
        Memo {
            bits: vec![u64::MAX; MEMO_SLOTS],
            len: vec![0; MEMO_SLOTS],
            text: vec![[0; 32]; MEMO_SLOTS],
        }
    }

    /// Appends `repr(x)` (`x` not NaN) to `out`, from the memo where it holds `x`.
    fn push(&mut self, out: &mut String, x: f64) {
        let bits = x.to_bits();
        let slot = (bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 53) as usize & (MEMO_SLOTS - 1);
        let len = usize::from(self.len[slot]);
        if self.bits[slot] == bits {
            if let Ok(text) = std::str::from_utf8(&self.text[slot][..len]) {
                out.push_str(text);
                return;
            }
        }
        let start = out.len();
        push_repr(out, x);
        let written = &out.as_bytes()[start..];
        if written.len() <= 32 {
            self.text[slot][..written.len()].copy_from_slice(written);
            self.len[slot] = written.len() as u8;
            self.bits[slot] = bits;
        }
    }
}

/// Appends the lines of rows `a..b` of the columns (of equal lengths).
fn write_rows(out: &mut String, columns: &[Column<'_>], a: usize, b: usize) {
    let mut memo = Memo::new();
    for i in a..b {
        for (j, c) in columns.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            match c {
                Column::Floats(v) => {
                    if !v[i].is_nan() {
                        memo.push(out, v[i]);
                    }
                }
                Column::Ints(v) => {
                    if v[i] != i64::MIN {
                        let _ = write!(out, "{}", v[i]);
                    }
                }
                Column::Text(v) => out.push_str(&v[i]),
            }
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::excessive_precision)]
    fn python_repr_layout() {
        // (expected: CPython's repr of each, written down from the interpreter)
        let cases: [(f64, &str); 16] = [
            (0.1, "0.1"),
            (1.0, "1.0"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1e-4, "0.0001"),
            (1e-5, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (123456789.0, "123456789.0"),
            (1.2345678901234567e16, "1.2345678901234568e+16"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (f64::INFINITY, "inf"),
            (-2.5, "-2.5"),
            (0.30000000000000004, "0.30000000000000004"),
        ];
        for (x, want) in cases {
            assert_eq!(repr(x), want, "{x:e}");
        }
        // exact decimal ties: CPython keeps the even last digit (written down from the interpreter);
        // each literal is its double exactly (the tie itself), hence its "excessive" precision
        let ties: [(f64, &str); 7] = [
            (77600379662.828125, "77600379662.82812"),
            (643349992456.78125, "643349992456.7812"),
            (22039720587.9453125, "22039720587.945312"),
            (159504018148296.625, "159504018148296.62"),
            (1125899906842624.25, "1125899906842624.2"),
            (1125899906842624.75, "1125899906842624.8"),
            (2251799813685248.5, "2251799813685248.5"),
        ];
        for (x, want) in ties {
            assert_eq!(repr(x), want, "{x:e}");
        }
        assert_eq!(repr(f64::NAN), "nan");
    }

    #[test]
    fn body_joins_columns() {
        let f = [0.5, f64::NAN];
        let t = ["a".to_string(), "\"b,c\"".to_string()];
        let n = [3, i64::MIN];
        let body = csv_body(&[Column::Text(&t), Column::Floats(&f), Column::Ints(&n)]).unwrap_or_default();
        assert_eq!(body, "a,0.5,3\n\"b,c\",,\n");
        assert!(csv_body(&[Column::Text(&t), Column::Floats(&f[..1])]).is_err());
        assert_eq!(csv_body(&[]).unwrap_or_default(), "");
    }

    #[test]
    #[allow(clippy::excessive_precision)] // (an exact decimal tie among the values: the double itself)
    fn repeated_floats_are_their_repr() {
        // (the memo of a piece: values repeated, colliding in its slots, -0.0 beside 0.0, NaN empty)
        let mut f: Vec<f64> = Vec::new();
        for i in 0..3 * MEMO_SLOTS {
            let x = [0.1, -0.0, 0.0, 1e-5, 1.0 / 3.0, 643349992456.78125][i % 6];
            f.push(if i % 7 == 0 {
                f64::NAN
            } else if i % 5 == 0 {
                x
            } else {
                (i % 97) as f64 / 13.0 + x
            });
        }
        let want: String = f
            .iter()
            .map(|x| if x.is_nan() { "\n".to_string() } else { repr(*x) + "\n" })
            .collect();
        assert_eq!(csv_body(&[Column::Floats(&f)]).unwrap_or_default(), want);
        let pairs: String = f
            .iter()
            .map(|x| {
                if x.is_nan() {
                    ",\n".to_string()
                } else {
                    repr(*x) + "," + &repr(-*x) + "\n"
                }
            })
            .collect();
        let neg: Vec<f64> = f.iter().map(|x| -x).collect();
        let both = csv_body(&[Column::Floats(&f), Column::Floats(&neg)]).unwrap_or_default();
        assert_eq!(both, pairs);
    }

    #[test]
    fn body_of_many_pieces_is_the_rows_in_order() {
        // (several pieces of PIECE_ROWS rows, split on the pool even with a small grain: the same lines)
        let rows = 5 * PIECE_ROWS + 17;
        let f: Vec<f64> = (0..rows).map(|i| i as f64 / 7.0).collect();
        let n: Vec<i64> = (0..rows as i64).collect();
        let want: String = (0..rows).map(|i| format!("{},{}\n", repr(f[i]), n[i])).collect();
        let old = crate::par::set_grain(1);
        let body = csv_body(&[Column::Floats(&f), Column::Ints(&n)]).unwrap_or_default();
        crate::par::set_grain(old);
        assert_eq!(body, want);
    }
}
