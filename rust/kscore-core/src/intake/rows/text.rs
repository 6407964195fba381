//! CSV/TSV and JSON Lines rows read straight into a `Tally`, a buffer of
//! whole lines at a time (the caller cuts files into byte ranges at line
//! ends and reads them on every core; gzip and other compressed files are
//! decompressed by the caller and handed over piece by piece).
//!
//! The reader takes the plain layouts results come in and nothing else: a
//! value it is not sure DuckDB reads the same way (a quoted field with a
//! quote or a line end inside, a field with spaces around it, an empty or
//! missing value, an outcome that is not a whole number or one of the
//! words DuckDB's query takes, a JSON value that is an object, a string
//! with escapes in a key, ...) stops it with a `Halt::Line` that says what,
//! and the caller counts the input with DuckDB's query, which checks and
//! names every row. Ids are kept as written (the leaderboard reads CSV ids
//! as text); integer ids of JSON Lines are taken in DuckDB's decimal form.

use super::names::{Axis, Local, Names};
use super::tally::{Ids, Tally};
use super::{Halt, Ints};

/// The text format of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Delimited fields (`,` `;` `|` or tab), `"` quotes, a header line the caller skips.
    Csv { delimiter: u8, columns: usize },
    /// One JSON object per line.
    JsonLines,
}

/// How an outcome is written (from DuckDB's type of the column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A whole number 0..C in decimal digits (an integer or floating-point column).
    Number,
    /// `true` / `false` (a BOOLEAN column).
    Boolean,
    /// Text: the words true/t/yes, false/f/no in any case, or digits (a VARCHAR column).
    Words,
}

/// Where a field is: a column (CSV) or a key (JSON Lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    Column(usize),
    Key(Vec<u8>),
}

/// What to read from each line.
#[derive(Clone, Debug)]
pub struct Layout {
    pub format: Format,
    /// None: one model for the whole input (given with each buffer).
    pub model: Option<Place>,
    pub question: Place,
    pub outcome: Place,
    pub outcome_is: Outcome,
    pub sample: Option<Place>,
    pub attributes: Vec<Place>,
    /// JSON Lines: ids that are numbers (DuckDB typed the column as an
    /// integer) rather than strings, per id field: model, question, attributes...
    pub numeric_ids: Vec<bool>,
}

/// Rows gathered before they are counted.
const BLOCK: usize = 1 << 16;

/// One id column of a block: per row the name's code (the board's), the
/// previous row's name kept to skip the lookup of a repeated one.
#[derive(Default)]
struct IdColumn {
    codes: Vec<i32>,
    last: Vec<u8>,
    last_code: i32,
}

impl IdColumn {
    fn clear(&mut self) {
        self.codes.clear();
    }

    /// Add a row's id `name`.
    #[inline]
    fn push(&mut self, name: &[u8], names: &Names, local: &mut Local, axis: Axis) -> Result<(), Halt> {
        if !self.codes.is_empty() && same(&self.last, name) {
            self.codes.push(self.last_code);
            return Ok(());
        }
        let code = local
            .text(names, axis, name)
            .ok_or(Halt::Line("a name that is not UTF-8"))?;
        self.last_code = i32::try_from(code).map_err(|_| Halt::Line("more names than the reader takes"))?;
        self.last.clear();
        self.last.extend_from_slice(name);
        self.codes.push(self.last_code);
        Ok(())
    }
}

/// A reader of one layout, with its block buffers (one per thread).
pub struct TextReader {
    layout: Layout,
    categories: u8,
    model: IdColumn,
    question: IdColumn,
    attributes: Vec<IdColumn>,
    outcome: Vec<u8>,
    sample: Vec<i32>,
    /// `0..n`: the identity map from codes to codes (ids are codes already).
    identity: Vec<u32>,
    /// Per wanted field, its value on the current line (CSV: by column).
    want: Vec<Option<usize>>,
    found: Vec<Value>,
    decoded: Vec<Vec<u8>>,
}

/// A field's value on one line: its bytes (a range of the buffer, or the
/// decoded copy), and whether it was a JSON string.
#[derive(Clone, Copy, Default)]
struct Value {
    start: usize,
    end: usize,
    kind: Kind,
    seen: bool,
    decoded: bool,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Kind {
    #[default]
    Bare,
    Str,
    True,
    False,
    Null,
}

/// Index of the fields in `found`: model, question, outcome, sample, attributes...
const MODEL: usize = 0;
const QUESTION: usize = 1;
const OUTCOME: usize = 2;
const SAMPLE: usize = 3;
const ATTRS: usize = 4;

impl TextReader {
    pub fn new(layout: Layout, categories: usize) -> Result<TextReader, Halt> {
        if !(2..=255).contains(&categories) {
            return Err(Halt::Line("more outcome categories than the text reader takes"));
        }
        let fields = ATTRS + layout.attributes.len();
        let mut want = Vec::new();
        if let Format::Csv { columns, .. } = layout.format {
            want = vec![None; columns];
            let mut mark = |p: &Option<Place>, f: usize| -> Result<(), Halt> {
                match p {
                    Some(Place::Column(c)) if *c < columns && want[*c].is_none() => {
                        want[*c] = Some(f);
                        Ok(())
                    }
                    None => Ok(()),
                    _ => Err(Halt::Line("a column named twice or out of range")),
                }
            };
            mark(&layout.model, MODEL)?;
            mark(&Some(layout.question.clone()), QUESTION)?;
            mark(&Some(layout.outcome.clone()), OUTCOME)?;
            mark(&layout.sample, SAMPLE)?;
            for (i, a) in layout.attributes.iter().enumerate() {
                mark(&Some(a.clone()), ATTRS + i)?;
            }
        }
        Ok(TextReader {
            attributes: layout.attributes.iter().map(|_| IdColumn::default()).collect(),
            layout,
            categories: categories as u8,
            model: IdColumn::default(),
            question: IdColumn::default(),
            outcome: Vec::with_capacity(BLOCK),
            sample: Vec::with_capacity(BLOCK),
            identity: Vec::new(),
            want,
            found: vec![Value::default(); fields],
            decoded: vec![Vec::new(); fields],
        })
    }

    /// Count the lines of `buf` that start at `from..until` (`from` a line
    /// start; a line that starts before `until` is read to its end). A last
    /// line without its line end is read only if `last`; otherwise the
    /// position where it starts is returned, to come again with more bytes.
    /// `model`: the model of every line where the layout has no model field.
    #[allow(clippy::too_many_arguments)]
    pub fn count(
        &mut self,
        buf: &[u8],
        from: usize,
        until: usize,
        last: bool,
        model: Option<u32>,
        names: &Names,
        local: &mut Local,
        tally: &mut Tally,
    ) -> Result<usize, Halt> {
        let until = until.min(buf.len());
        let mut at = from;
        self.clear();
        while at < until {
            let end = match find_newline(&buf[at..]) {
                Some(i) => at + i,
                None if last => buf.len(),
                None => break,
            };
            let mut line = &buf[at..end];
            if let Some(stripped) = line.strip_suffix(b"\r") {
                line = stripped;
            }
            if line.is_empty() {
                if end == buf.len() {
                    at = end;
                    break;
                }
                return Err(Halt::Line("a blank line"));
            }
            self.line(buf, at, at + line.len(), names, local)?;
            at = (end + 1).min(buf.len());
            if self.outcome.len() == BLOCK {
                self.flush(model, tally)?;
            }
        }
        self.flush(model, tally)?;
        Ok(at)
    }

    fn clear(&mut self) {
        self.model.clear();
        self.question.clear();
        self.attributes.iter_mut().for_each(IdColumn::clear);
        self.outcome.clear();
        self.sample.clear();
    }

    fn flush(&mut self, model: Option<u32>, tally: &mut Tally) -> Result<(), Halt> {
        if self.outcome.is_empty() {
            return Ok(());
        }
        // Codes index the identity map: one past the largest code of the block.
        let top = [&self.model, &self.question]
            .into_iter()
            .chain(&self.attributes)
            .filter_map(|c| c.codes.iter().max())
            .max()
            .map_or(0, |&m| m as usize + 1);
        while self.identity.len() < top {
            self.identity.push(self.identity.len() as u32);
        }
        let ident = &self.identity;
        let m = match (&self.layout.model, model) {
            (Some(_), _) => Ids::Coded(&self.model.codes, ident),
            (None, Some(m)) => Ids::Constant(m),
            (None, None) => return Err(Halt::Line("no model for the lines")),
        };
        let attributes: Vec<Ids<'_>> = self.attributes.iter().map(|a| Ids::Coded(&a.codes, ident)).collect();
        let sample = self.layout.sample.as_ref().map(|_| Ints::I32(&self.sample));
        tally.add(
            m,
            Ids::Coded(&self.question.codes, ident),
            Ints::U8(&self.outcome),
            sample,
            &attributes,
        )?;
        self.clear();
        Ok(())
    }

    /// Read one line (`buf[start..end]`, its line end removed) into the block.
    fn line(&mut self, buf: &[u8], start: usize, end: usize, names: &Names, local: &mut Local) -> Result<(), Halt> {
        match self.layout.format {
            Format::Csv { delimiter, columns } => self.csv_line(&buf[start..end], delimiter, columns, names, local),
            Format::JsonLines => self.json_line(buf, start, end, names, local),
        }
    }

    /// A CSV line's fields, each wanted one taken as it comes.
    fn csv_line(
        &mut self,
        line: &[u8],
        delim: u8,
        columns: usize,
        names: &Names,
        local: &mut Local,
    ) -> Result<(), Halt> {
        let mut rest = line;
        let mut col = 0usize;
        loop {
            let (field, more) = if let Some(inner) = rest.strip_prefix(b"\"") {
                let close = inner
                    .iter()
                    .position(|&b| b == b'"')
                    .ok_or(Halt::Line("a quoted field across lines"))?;
                let after = &inner[close + 1..];
                match after.first() {
                    None => (&inner[..close], None),
                    Some(&d) if d == delim => (&inner[..close], Some(&after[1..])),
                    _ => return Err(Halt::Line("a quote inside a quoted field")),
                }
            } else {
                let (field, more) = match rest.iter().position(|&b| b == delim) {
                    Some(i) => (&rest[..i], Some(&rest[i + 1..])),
                    None => (rest, None),
                };
                if field.contains(&b'"') {
                    return Err(Halt::Line("a quote inside a field"));
                }
                (field, more)
            };
            let Some(&want) = self.want.get(col) else {
                return Err(Halt::Line("a line with more fields than the header"));
            };
            if let Some(f) = want {
                self.take(f, field, Kind::Bare, names, local)?;
            }
            col += 1;
            match more {
                Some(r) => rest = r,
                None => break,
            }
        }
        if col != columns {
            return Err(Halt::Line("a line with fewer fields than the header"));
        }
        Ok(())
    }

    /// A JSON line's wanted values, taken once the object is read.
    fn json_line(
        &mut self,
        buf: &[u8],
        start: usize,
        end: usize,
        names: &Names,
        local: &mut Local,
    ) -> Result<(), Halt> {
        self.found.iter_mut().for_each(|v| v.seen = false);
        self.json_fields(buf, start, end)?;
        let has_model = self.layout.model.is_some();
        let has_sample = self.layout.sample.is_some();
        for f in 0..self.found.len() {
            let v = self.found[f];
            if (f == MODEL && !has_model) || (f == SAMPLE && !has_sample) {
                continue;
            }
            if !v.seen || v.kind == Kind::Null {
                return Err(Halt::Line("a missing value"));
            }
            let decoded = std::mem::take(&mut self.decoded[f]);
            let bytes: &[u8] = if v.decoded { &decoded } else { &buf[v.start..v.end] };
            let taken = self.take(f, bytes, v.kind, names, local);
            self.decoded[f] = decoded;
            taken?;
        }
        Ok(())
    }

    /// Add field `f`'s value (`bytes`, of JSON kind `kind`) to the block.
    #[inline]
    fn take(&mut self, f: usize, bytes: &[u8], kind: Kind, names: &Names, local: &mut Local) -> Result<(), Halt> {
        match f {
            OUTCOME => {
                let o = outcome(bytes, kind, self.layout.outcome_is, self.categories)?;
                self.outcome.push(o);
            }
            SAMPLE => {
                if kind != Kind::Bare {
                    return Err(Halt::Line("a sample id that is not a number"));
                }
                self.sample
                    .push(whole(bytes).ok_or(Halt::Line("a sample id that is not a whole number"))?);
            }
            _ => {
                let ok = match self.layout.format {
                    Format::Csv { .. } => plain_text(bytes),
                    Format::JsonLines if self.layout.numeric_ids.get(id_slot(f)).copied().unwrap_or(false) => {
                        kind == Kind::Bare && canonical_int(bytes)
                    }
                    Format::JsonLines => kind == Kind::Str && !bytes.is_empty(),
                };
                if !ok {
                    return Err(Halt::Line("an id the direct reader does not take"));
                }
                let (column, axis) = match f {
                    MODEL => (&mut self.model, Axis::Model),
                    QUESTION => (&mut self.question, Axis::Question),
                    _ => (&mut self.attributes[f - ATTRS], Axis::Attribute(f - ATTRS)),
                };
                column.push(bytes, names, local, axis)?;
            }
        }
        Ok(())
    }

    fn json_fields(&mut self, buf: &[u8], start: usize, end: usize) -> Result<(), Halt> {
        let bad = Halt::Line("a line that is not a flat JSON object");
        let mut p = Json {
            b: &buf[..end],
            at: start,
        };
        p.ws();
        if !p.eat(b'{') {
            return Err(bad);
        }
        p.ws();
        if !p.eat(b'}') {
            loop {
                p.ws();
                let (ks, ke) = p.key().ok_or(bad)?;
                p.ws();
                if !p.eat(b':') {
                    return Err(bad);
                }
                p.ws();
                let f = self.field_of(&buf[ks..ke]);
                match f {
                    Some(f) => {
                        if self.found[f].seen {
                            return Err(Halt::Line("a key named twice on a line"));
                        }
                        let v = p.value(&mut self.decoded[f]).ok_or(bad)?;
                        self.found[f] = v;
                    }
                    None => p.skip().ok_or(bad)?,
                }
                p.ws();
                if p.eat(b'}') {
                    break;
                }
                if !p.eat(b',') {
                    return Err(bad);
                }
            }
        }
        p.ws();
        if p.at != end {
            return Err(bad);
        }
        Ok(())
    }

    fn field_of(&self, key: &[u8]) -> Option<usize> {
        let is = |p: &Place| matches!(p, Place::Key(k) if k == key);
        let l = &self.layout;
        if l.model.as_ref().is_some_and(is) {
            return Some(MODEL);
        }
        if is(&l.question) {
            return Some(QUESTION);
        }
        if is(&l.outcome) {
            return Some(OUTCOME);
        }
        if l.sample.as_ref().is_some_and(is) {
            return Some(SAMPLE);
        }
        l.attributes.iter().position(is).map(|i| ATTRS + i)
    }
}

/// Whether two short names are equal (without a call to `memcmp`).
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut x, mut y) = (a.chunks_exact(8), b.chunks_exact(8));
    for (p, q) in (&mut x).zip(&mut y) {
        if p != q {
            return false;
        }
    }
    x.remainder().iter().zip(y.remainder()).all(|(p, q)| p == q)
}

/// The slot of field `f` in `numeric_ids` (model, question, attributes...).
fn id_slot(f: usize) -> usize {
    match f {
        MODEL => 0,
        QUESTION => 1,
        _ => f - ATTRS + 2,
    }
}

/// The first line end in `b` (eight bytes at a time).
#[inline]
fn find_newline(b: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = LO * b'\n' as u64;
    let mut i = 0;
    while i + 8 <= b.len() {
        let w = u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8])) ^ NL;
        let hit = w.wrapping_sub(LO) & !w & HI;
        if hit != 0 {
            return Some(i + (hit.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b[i..].iter().position(|&x| x == b'\n').map(|p| i + p)
}

/// A CSV id: not empty, no spaces around it (DuckDB may trim those).
#[inline]
fn plain_text(b: &[u8]) -> bool {
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => !f.is_ascii_whitespace() && !l.is_ascii_whitespace(),
        _ => false,
    }
}

/// Decimal digits of an integer as DuckDB writes it: an optional minus, no
/// leading zero, no `-0`.
fn canonical_int(b: &[u8]) -> bool {
    let digits = b.strip_prefix(b"-").unwrap_or(b);
    !digits.is_empty()
        && digits.len() <= 18
        && digits.iter().all(u8::is_ascii_digit)
        && (digits[0] != b'0' || digits.len() == 1)
        && !(b[0] == b'-' && digits == b"0")
}

/// A whole number 0..=10^9 in plain digits (no sign, no leading zero).
#[inline]
fn whole(b: &[u8]) -> Option<i32> {
    if b.is_empty() || b.len() > 9 || (b[0] == b'0' && b.len() > 1) {
        return None;
    }
    let mut v = 0i32;
    for &d in b {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (d - b'0') as i32;
    }
    Some(v)
}

/// The outcome category of a value (`Halt` where the query would judge it
/// otherwise than a plain category, or call it a problem).
#[inline]
fn outcome(b: &[u8], kind: Kind, is: Outcome, categories: u8) -> Result<u8, Halt> {
    let bad = Err(Halt::Line("an outcome the direct reader does not take"));
    let v = match (is, kind) {
        (Outcome::Boolean, Kind::True) => 1,
        (Outcome::Boolean, Kind::False) => 0,
        (Outcome::Boolean, Kind::Bare) if b == b"true" => 1,
        (Outcome::Boolean, Kind::Bare) if b == b"false" => 0,
        (Outcome::Number, Kind::Bare) => match whole(b) {
            Some(v) if v < 256 => v as u8,
            _ => return bad,
        },
        (Outcome::Words, Kind::Bare | Kind::Str) => {
            if let Some(v) = whole(b) {
                if v >= 256 {
                    return bad;
                }
                v as u8
            } else if [&b"true"[..], b"t", b"yes"].iter().any(|w| b.eq_ignore_ascii_case(w)) {
                1
            } else if [&b"false"[..], b"f", b"no"].iter().any(|w| b.eq_ignore_ascii_case(w)) {
                0
            } else {
                return bad;
            }
        }
        _ => return bad,
    };
    if v >= categories {
        return Err(Halt::Outcome);
    }
    Ok(v)
}

/// A cursor over one JSON line.
struct Json<'a> {
    b: &'a [u8],
    at: usize,
}

impl Json<'_> {
    #[inline]
    fn ws(&mut self) {
        while self.at < self.b.len() && matches!(self.b[self.at], b' ' | b'\t' | b'\r') {
            self.at += 1;
        }
    }

    #[inline]
    fn eat(&mut self, c: u8) -> bool {
        if self.at < self.b.len() && self.b[self.at] == c {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// A key without escapes: its bytes' range.
    fn key(&mut self) -> Option<(usize, usize)> {
        if !self.eat(b'"') {
            return None;
        }
        let s = self.at;
        while self.at < self.b.len() {
            match self.b[self.at] {
                b'"' => {
                    self.at += 1;
                    return Some((s, self.at - 1));
                }
                b'\\' => return None,
                _ => self.at += 1,
            }
        }
        None
    }

    /// A string's end (past its closing quote), and whether it has escapes.
    fn string_end(&self) -> Option<(usize, bool)> {
        let mut i = self.at + 1;
        let mut escaped = false;
        while i < self.b.len() {
            match self.b[i] {
                b'"' => return Some((i + 1, escaped)),
                b'\\' => {
                    escaped = true;
                    i += 2;
                }
                c if c < 0x20 => return None,
                _ => i += 1,
            }
        }
        None
    }

    /// A scalar value (a string decoded into `decoded` where it has escapes).
    fn value(&mut self, decoded: &mut Vec<u8>) -> Option<Value> {
        let c = *self.b.get(self.at)?;
        if c == b'"' {
            let (end, escaped) = self.string_end()?;
            let (s, e) = (self.at + 1, end - 1);
            self.at = end;
            if escaped {
                unescape(&self.b[s..e], decoded)?;
            }
            return Some(Value {
                start: s,
                end: e,
                kind: Kind::Str,
                seen: true,
                decoded: escaped,
            });
        }
        for (word, kind) in [
            (&b"true"[..], Kind::True),
            (b"false", Kind::False),
            (b"null", Kind::Null),
        ] {
            if self.b[self.at..].starts_with(word) {
                let s = self.at;
                self.at += word.len();
                return Some(Value {
                    start: s,
                    end: self.at,
                    kind,
                    seen: true,
                    decoded: false,
                });
            }
        }
        if c == b'-' || c.is_ascii_digit() {
            let s = self.at;
            while self.at < self.b.len() && matches!(self.b[self.at], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                self.at += 1;
            }
            return Some(Value {
                start: s,
                end: self.at,
                kind: Kind::Bare,
                seen: true,
                decoded: false,
            });
        }
        None
    }

    /// Skip any value (objects and arrays too).
    fn skip(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            self.ws();
            let c = *self.b.get(self.at)?;
            match c {
                b'{' | b'[' => {
                    depth += 1;
                    self.at += 1;
                }
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    self.at += 1;
                }
                b'"' => self.at = self.string_end()?.0,
                b',' | b':' if depth > 0 => self.at += 1,
                _ => {
                    let mut scratch = Vec::new();
                    self.value(&mut scratch)?;
                }
            }
            if depth == 0 {
                return Some(());
            }
        }
    }
}

/// A JSON string's escapes decoded (UTF-8 out; `None` on a bad escape).
fn unescape(s: &[u8], out: &mut Vec<u8>) -> Option<()> {
    out.clear();
    let mut i = 0;
    while i < s.len() {
        if s[i] != b'\\' {
            out.push(s[i]);
            i += 1;
            continue;
        }
        let e = *s.get(i + 1)?;
        i += 2;
        let ch = match e {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hex = |at: usize| -> Option<u32> {
                    let h = std::str::from_utf8(s.get(at..at + 4)?).ok()?;
                    u32::from_str_radix(h, 16).ok()
                };
                let hi = hex(i)?;
                i += 4;
                if (0xD800..0xDC00).contains(&hi) {
                    if s.get(i..i + 2)? != b"\\u" {
                        return None;
                    }
                    let lo = hex(i + 2)?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return None;
                    }
                    i += 6;
                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?
                } else {
                    char::from_u32(hi)?
                }
            }
            _ => return None,
        };
        let mut tmp = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::super::finish::finish;
    use super::*;

    fn csv_layout(columns: usize, sample: bool) -> Layout {
        Layout {
            format: Format::Csv {
                delimiter: b',',
                columns,
            },
            model: Some(Place::Column(0)),
            question: Place::Column(1),
            outcome: Place::Column(3),
            outcome_is: Outcome::Number,
            sample: sample.then_some(Place::Column(2)),
            attributes: vec![],
            numeric_ids: vec![],
        }
    }

    /// (model, question, counts) of a text, read in pieces of `piece` bytes.
    fn read(layout: Layout, text: &[u8], piece: usize) -> Result<Vec<(String, String, Vec<i64>)>, Halt> {
        let names = Names::new(layout.attributes.len());
        let mut local = Local::default();
        let ids = if layout.sample.is_some() { 64 } else { 0 };
        let mut tally = Tally::new(2, ids, 1, layout.attributes.len());
        let mut reader = TextReader::new(layout, 2)?;
        let mut buf: Vec<u8> = Vec::new();
        for chunk in text.chunks(piece) {
            buf.extend_from_slice(chunk);
            let used = reader.count(&buf, 0, buf.len(), false, None, &names, &mut local, &mut tally)?;
            buf.drain(..used);
        }
        let used = reader.count(&buf, 0, buf.len(), true, None, &names, &mut local, &mut tally)?;
        assert_eq!(used, buf.len());
        let out = finish(names.into_tables(), vec![tally]).map_err(|e| match e {
            crate::intake::rows::Stopped::Halt(h) => h,
            _ => Halt::Length,
        })?;
        let n = out.model.len();
        Ok((0..n)
            .map(|i| {
                (
                    String::from_utf8(out.models[out.model[i] as usize].to_vec()).unwrap(),
                    String::from_utf8(out.questions[out.question[i] as usize].to_vec()).unwrap(),
                    vec![out.counts[i], out.counts[n + i]],
                )
            })
            .collect())
    }

    fn cell(m: &str, q: &str, c: [i64; 2]) -> (String, String, Vec<i64>) {
        (m.into(), q.into(), c.to_vec())
    }

    #[test]
    fn csv_lines_in_any_pieces() {
        let text = b"a,q1,0,1\r\na,q1,1,0\nb,\"q 2\",0,1\na,q2,0,1\n\"a\",q1,2,1";
        let expect = vec![
            cell("a", "q1", [1, 2]),
            cell("a", "q2", [0, 1]),
            cell("b", "q 2", [0, 1]),
        ];
        for piece in [1, 3, 7, 100] {
            assert_eq!(read(csv_layout(4, true), text, piece).unwrap(), expect, "piece {piece}");
        }
    }

    #[test]
    fn csv_lines_it_does_not_take() {
        for (text, why) in [
            (&b"a,q1,0,1\n\na,q1,1,1\n"[..], "a blank line"),
            (b"a,\"q\"\"1\",0,1\n", "a quote inside a quoted field"),
            (b"a,\"q\n1\",0,1\n", "a quoted field across lines"),
            (b"a,q1,0\n", "a line with fewer fields than the header"),
            (b"a,q1,0,1,\n", "a line with more fields than the header"),
            (b"a, q1,0,1\n", "an id the direct reader does not take"),
            (b"a,,0,1\n", "an id the direct reader does not take"),
            (b"a,q1,0,1.0\n", "an outcome the direct reader does not take"),
            (b"a,q1,0,\n", "an outcome the direct reader does not take"),
            (b"a,q1,01,1\n", "a sample id that is not a whole number"),
            (b"a,q\"1,0,1\n", "a quote inside a field"),
        ] {
            assert_eq!(
                read(csv_layout(4, true), text, 100),
                Err(Halt::Line(why)),
                "{:?}",
                std::str::from_utf8(text)
            );
        }
        assert_eq!(read(csv_layout(4, true), b"a,q1,0,2\n", 100), Err(Halt::Outcome));
        assert_eq!(
            read(csv_layout(4, true), b"a,q1,0,1\na,q1,0,1\n", 100),
            Err(Halt::Duplicate)
        );
    }

    #[test]
    fn csv_outcome_words_and_attributes() {
        let mut layout = csv_layout(5, false);
        layout.outcome_is = Outcome::Words;
        layout.attributes = vec![Place::Column(4)];
        let text = b"a,q1,x,Yes,easy\na,q1,x,f,easy\na,q2,x,1,hard\n";
        assert_eq!(
            read(layout.clone(), text, 5).unwrap(),
            vec![cell("a", "q1", [1, 1]), cell("a", "q2", [0, 1])]
        );
        assert_eq!(
            read(layout, b"a,q1,x,1,easy\nb,q1,x,1,hard\n", 100),
            Err(Halt::Attribute)
        );
    }

    fn json_layout() -> Layout {
        Layout {
            format: Format::JsonLines,
            model: Some(Place::Key(b"model".to_vec())),
            question: Place::Key(b"question".to_vec()),
            outcome: Place::Key(b"correct".to_vec()),
            outcome_is: Outcome::Boolean,
            sample: Some(Place::Key(b"sample".to_vec())),
            attributes: vec![],
            numeric_ids: vec![false, true],
        }
    }

    #[test]
    fn json_lines_flat_objects() {
        let text = br#"{"model": "m\u00e9", "question": 12, "sample": 0, "correct": true, "meta": {"a": [1, "}"]}}
{"correct":false,"sample":1,"question":12,"model":"m\u00e9"}
  {"model": "b", "question": 3, "sample": 0, "correct": true, "x": null}
"#;
        for piece in [2, 50, 1000] {
            assert_eq!(
                read(json_layout(), text, piece).unwrap(),
                vec![cell("b", "3", [0, 1]), cell("mé", "12", [1, 1])]
            );
        }
        for (text, why) in [
            (&br#"{"model": "a", "question": 1, "sample": 0}"#[..], "a missing value"),
            (
                br#"{"model": "a", "question": 1, "sample": 0, "correct": null}"#,
                "a missing value",
            ),
            (
                br#"{"model": "a", "question": "1", "sample": 0, "correct": true}"#,
                "an id the direct reader does not take",
            ),
            (
                br#"{"model": "a", "question": 01, "sample": 0, "correct": true}"#,
                "an id the direct reader does not take",
            ),
            (
                br#"{"model": "a", "question": 1, "sample": 0, "correct": 1}"#,
                "an outcome the direct reader does not take",
            ),
            (
                br#"{"model": {"a": 1}, "question": 1, "sample": 0, "correct": true}"#,
                "a line that is not a flat JSON object",
            ),
            (
                br#"{"model": "a", "model": "b", "question": 1, "sample": 0, "correct": true}"#,
                "a key named twice on a line",
            ),
            (br#"[1, 2]"#, "a line that is not a flat JSON object"),
            (
                br#"{"model": "a", "question": 1, "sample": 0, "correct": true} x"#,
                "a line that is not a flat JSON object",
            ),
        ] {
            assert_eq!(
                read(json_layout(), text, 100),
                Err(Halt::Line(why)),
                "{:?}",
                std::str::from_utf8(text)
            );
        }
    }

    #[test]
    fn newline_search_finds_the_first() {
        let mut b = vec![b'x'; 100];
        for at in [0, 7, 8, 15, 63, 99] {
            b[at] = b'\n';
            assert_eq!(find_newline(&b), Some(at));
            b[at] = b'x';
        }
        assert_eq!(find_newline(&b), None);
        assert!(canonical_int(b"-12") && canonical_int(b"0") && !canonical_int(b"-0") && !canonical_int(b"012"));
    }
}

#[cfg(test)]
mod speed {
    use super::*;

    /// `cargo test --release -p kscore-core text_speed -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn text_speed() {
        let mut text = Vec::new();
        for q in 0..100_000 {
            for s in 0..10 {
                text.extend_from_slice(format!("model-000,q{q:05},{s},{}\n", (q + s) % 2).as_bytes());
            }
        }
        let layout = Layout {
            format: Format::Csv {
                delimiter: b',',
                columns: 4,
            },
            model: Some(Place::Column(0)),
            question: Place::Column(1),
            outcome: Place::Column(3),
            outcome_is: Outcome::Number,
            sample: Some(Place::Column(2)),
            attributes: vec![],
            numeric_ids: vec![],
        };
        let names = Names::new(0);
        let mut local = Local::default();
        let rounds = if std::env::var("TEXT_SPEED_SKIP").is_ok() { 0 } else { 5 };
        for _ in 0..rounds {
            let mut tally = Tally::new(2, 1024, 1, 0);
            let mut reader = TextReader::new(layout.clone(), 2).unwrap();
            let t = std::time::Instant::now();
            let used = reader
                .count(&text, 0, text.len(), true, None, &names, &mut local, &mut tally)
                .unwrap();
            let el = t.elapsed().as_secs_f64();
            assert_eq!(used, text.len());
            eprintln!(
                "{:.1} ns a line, {:.0} MB/s",
                el * 1e9 / 1e6,
                text.len() as f64 / el / 1e6
            );
        }
    }
}
