//! Numbers and tables as text, byte for byte as Python writes them: a float
//! as `repr(x)` (the shortest digits that read back as the same double, in
//! Python's layout) and a CSV body of columns. The command's CSV of a
//! leaderboard of 100 000 models is 1.7 million floats: formatted here
//! instead of one `repr` call each (python/kscore/present/tabular.py).

use std::fmt::Write;

/// Appends `repr(x)` of a Python float to `out`: `0.1`, `1.0`, `1e-05`,
/// `1e+16`, `-0.0`, `inf`, `nan`.
///
/// The digits are the shortest that round-trip, the closest to `x` among
/// them (Rust's `{:e}` and Python's `repr` both give these: tests compare
/// them on millions of doubles, tests/test_present_columnwise.py). Python's
/// layout: positional when the decimal exponent `e` of the first digit is
/// `-5 < e < 16` (with `.0` after an integer), else `d.ddde±XX` (at least two
/// exponent digits).
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
    let (mantissa, exp) = match text.split_once('e') {
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
    Text(&'a [String]),
}

impl Column<'_> {
    fn len(&self) -> usize {
        match self {
            Column::Floats(v) => v.len(),
            Column::Text(v) => v.len(),
        }
    }
}

/// The lines of a CSV body: row `i` is every column's field `i` joined by
/// commas, each line ended by `\n`. Errors when the columns' lengths differ.
pub fn csv_body(columns: &[Column<'_>]) -> crate::Result<String> {
    let rows = columns.first().map_or(0, Column::len);
    if let Some(c) = columns.iter().find(|c| c.len() != rows) {
        return Err(crate::Error::value(format!(
            "CSV columns of different lengths: {rows} and {}",
            c.len()
        )));
    }
    let mut out = String::with_capacity(rows * columns.len() * 12);
    for i in 0..rows {
        for (j, c) in columns.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            match c {
                Column::Floats(v) => {
                    if !v[i].is_nan() {
                        push_repr(&mut out, v[i]);
                    }
                }
                Column::Text(v) => out.push_str(&v[i]),
            }
        }
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
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
        assert_eq!(repr(f64::NAN), "nan");
    }

    #[test]
    fn body_joins_columns() {
        let f = [0.5, f64::NAN];
        let t = ["a".to_string(), "\"b,c\"".to_string()];
        let body = csv_body(&[Column::Text(&t), Column::Floats(&f)]).unwrap_or_default();
        assert_eq!(body, "a,0.5\n\"b,c\",\n");
        assert!(csv_body(&[Column::Text(&t), Column::Floats(&f[..1])]).is_err());
        assert_eq!(csv_body(&[]).unwrap_or_default(), "");
    }
}
