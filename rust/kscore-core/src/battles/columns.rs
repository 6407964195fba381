//! Battles straight from their string columns (model_a, model_b, winner, in
//! Arrow's layout) to what the board needs, in one pass over the strings:
//! per battle the two models' codes (the names sorted), the outcome of the
//! first model and what is wrong with it, and the board's unique (pair,
//! outcome) rows counted on the way.
//!
//! Why one pass: coding each column on its own, then the winner words,
//! then counting the rows from the codes read the battles four times and
//! went back to Python in between (docs/arena.md, *Speed*). Here each
//! piece of rows is read once: both names and the winner word coded by
//! small tables that compare short strings as two integers (encode.rs's
//! `Table`); a second, cheap pass over the piece's codes,
//! once every name is known and sorted, maps them to the sorted codes and
//! counts the good battles into a table per thread.
//!
//! What a winner word means is decided by the caller between the two
//! passes (`Pending::words`, then `Pending::finish`): the core matches the
//! bytes as they are, the caller's rules (spellings, case, spaces) decide
//! the outcome, so there is one table of winner words (python/kscore/arena/columns.py).

use std::sync::Mutex;

use rayon::prelude::*;

use super::aggregate::{dense_board, Board, DENSE_MODELS};
use super::encode::{Strings, Table};
use crate::cancel::{self, Watch};
use crate::error::{Error, Result};
use crate::par;

/// One Arrow string array and its validity bitmap (the bytes and the bit of
/// row 0; None: no nulls).
#[derive(Clone, Copy)]
pub struct Column<'a> {
    pub strings: Strings<'a>,
    pub valid: Option<(&'a [u8], usize)>,
}

impl Column<'_> {
    #[inline]
    fn is_null(&self, k: usize) -> bool {
        match self.valid {
            None => false,
            Some((bits, at)) => {
                let i = at + k;
                (bits[i >> 3] >> (i & 7)) & 1 == 0
            }
        }
    }

    fn check(&self) -> Result<()> {
        self.strings.check()?;
        if let Some((bits, at)) = self.valid {
            if (bits.len() as u64) * 8 < (at + self.strings.len()) as u64 {
                return Err(Error::value("validity bitmap shorter than the strings"));
            }
        }
        Ok(())
    }
}

/// What is wrong with a battle (bits of `Coded::flags`; 0: a good battle).
pub const MISSING_A: u8 = 1;
pub const MISSING_B: u8 = 2;
pub const SELF_BATTLE: u8 = 4;
pub const BAD_WINNER: u8 = 8;

/// An outcome the caller gives a winner word that is not one.
pub const NOT_AN_OUTCOME: u8 = 255;

/// Rows of a piece: a table of names per piece, small enough to stay in
/// the first-level cache, and up to 2^16 winner words (u16 codes).
const CHUNK: usize = 1 << 16;

/// Estimated single-core nanoseconds of the first pass per row (two hashed
/// names and a matched word) and of the second (three lookups, a count).
const FIRST_NS: usize = 30;
const SECOND_NS: usize = 6;

/// Rows of several arrays read as one column, in order.
struct Cursor<'c, 'a> {
    cols: &'c [Column<'a>],
    arr: usize,
    k: usize,
    /// The current array's length.
    end: usize,
}

impl<'c, 'a> Cursor<'c, 'a> {
    fn new(cols: &'c [Column<'a>], starts: &[usize], row: usize) -> Self {
        let arr = starts.partition_point(|&s| s <= row).saturating_sub(1);
        Cursor {
            cols,
            arr,
            k: row - starts[arr],
            end: cols[arr].strings.len(),
        }
    }

    /// The next row's bytes and whether it is null.
    #[inline]
    fn next(&mut self) -> (&'a [u8], bool) {
        while self.k >= self.end {
            self.arr += 1;
            self.k = 0;
            self.end = self.cols[self.arr].strings.len();
        }
        let c = &self.cols[self.arr];
        let out = (c.strings.at(self.k), c.is_null(self.k));
        self.k += 1;
        out
    }
}

fn starts(cols: &[Column<'_>]) -> (Vec<usize>, usize) {
    let mut at = 0;
    let mut s = Vec::with_capacity(cols.len());
    for c in cols {
        s.push(at);
        at += c.strings.len();
    }
    (s, at)
}

/// After the first pass: the codes within each piece, the names (sorted)
/// and the distinct winner words, waiting for the words' outcomes.
pub struct Pending {
    a: Vec<u32>,
    b: Vec<u32>,
    w: Vec<u16>,
    flags: Vec<u8>,
    /// Per piece: its name codes to the sorted codes, its word codes to `words`.
    names_of: Vec<Vec<u32>>,
    words_of: Vec<Vec<u32>>,
    names: Vec<Vec<u8>>,
    words: Vec<Vec<u8>>,
}

/// Per battle: the models' codes (0 where a name is missing), the result of
/// the first (0 loss, 1 tie, 2 win; `NOT_AN_OUTCOME` where the winner is
/// not one) and `flags`; the names sorted by their bytes; and the unique
/// rows of the good battles (None past `DENSE_MODELS` models: count them
/// from the codes with `aggregate`).
pub struct Coded {
    pub a: Vec<u32>,
    pub b: Vec<u32>,
    pub outcome: Vec<u8>,
    pub flags: Vec<u8>,
    pub names: Vec<Vec<u8>>,
    pub board: Option<Board>,
}

/// The first pass (module docs): every column has the same number of rows.
pub fn code(a: &[Column<'_>], b: &[Column<'_>], winner: &[Column<'_>]) -> Result<Pending> {
    for c in a.iter().chain(b).chain(winner) {
        c.check()?;
    }
    let (sa, n) = starts(a);
    let (sb, nb) = starts(b);
    let (sw, nw) = starts(winner);
    if nb != n || nw != n {
        return Err(Error::value("model_a, model_b and winner must have the same length"));
    }
    let watch = Watch::new();
    let mut out_a = vec![0u32; n];
    let mut out_b = vec![0u32; n];
    let mut out_w = vec![0u16; n];
    let mut flags = vec![0u8; n];
    type Found<'a> = Option<(Vec<&'a [u8]>, Vec<&'a [u8]>)>;
    let found: Vec<Found<'_>> = out_a
        .par_chunks_mut(CHUNK)
        .zip(out_b.par_chunks_mut(CHUNK))
        .zip(out_w.par_chunks_mut(CHUNK))
        .zip(flags.par_chunks_mut(CHUNK))
        .enumerate()
        .with_min_len(par::min_len(CHUNK * FIRST_NS))
        .map(|(c, (((oa, ob), ow), of))| {
            if cancel::stopping() {
                return None;
            }
            let lo = c * CHUNK;
            let (mut ca, mut cb, mut cw) = (
                Cursor::new(a, &sa, lo),
                Cursor::new(b, &sb, lo),
                Cursor::new(winner, &sw, lo),
            );
            let mut names = Table::new();
            let mut words = Table::new();
            for k in 0..oa.len() {
                let (xa, na) = ca.next();
                let (xb, nb) = cb.next();
                let (xw, nw) = cw.next();
                let mut f = 0u8;
                if na || xa.is_empty() {
                    f |= MISSING_A;
                } else {
                    oa[k] = names.code(xa);
                }
                if nb || xb.is_empty() {
                    f |= MISSING_B;
                } else {
                    ob[k] = names.code(xb);
                }
                if f == 0 && oa[k] == ob[k] {
                    f |= SELF_BATTLE;
                }
                if nw {
                    f |= BAD_WINNER;
                } else {
                    ow[k] = words.code(xw) as u16;
                }
                of[k] = f;
            }
            Some((names.uniq, words.uniq))
        })
        .collect();
    watch.check()?;
    let found = found
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or(Error::Interrupted)?;
    // every piece's names, then their sorted order; the words in order of first appearance
    let mut all = Table::new();
    let mut all_words = Table::new();
    let mut names_of = Vec::with_capacity(found.len());
    let mut words_of = Vec::with_capacity(found.len());
    for (names, words) in &found {
        names_of.push(names.iter().map(|&s| all.code(s)).collect::<Vec<u32>>());
        words_of.push(words.iter().map(|&s| all_words.code(s)).collect::<Vec<u32>>());
    }
    let mut order: Vec<u32> = (0..all.uniq.len() as u32).collect();
    order.sort_unstable_by(|&x, &y| all.uniq[x as usize].cmp(all.uniq[y as usize]));
    let mut rank = vec![0u32; order.len()];
    for (r, &g) in order.iter().enumerate() {
        rank[g as usize] = r as u32;
    }
    for local in names_of.iter_mut() {
        for g in local.iter_mut() {
            *g = rank[*g as usize];
        }
    }
    Ok(Pending {
        names: order.iter().map(|&g| all.uniq[g as usize].to_vec()).collect(),
        words: all_words.uniq.iter().map(|w| w.to_vec()).collect(),
        a: out_a,
        b: out_b,
        w: out_w,
        flags,
        names_of,
        words_of,
    })
}

impl Pending {
    /// The distinct winner words (bytes as written), for the caller to
    /// give each its outcome.
    pub fn words(&self) -> &[Vec<u8>] {
        &self.words
    }

    /// The second pass: `outcomes[w]` is the result of the first model
    /// that word `w` means (0, 1, 2; anything else: not a winner value).
    /// (Borrows: a binding may run it again after an interruption.)
    pub fn finish(&self, outcomes: &[u8]) -> Result<Coded> {
        if outcomes.len() != self.words.len() {
            return Err(Error::value("one outcome per winner word"));
        }
        let n = self.a.len();
        let l = self.names.len();
        let count = l <= DENSE_MODELS;
        let watch = Watch::new();
        let mut a = vec![0u32; n];
        let mut b = vec![0u32; n];
        let mut flags = vec![0u8; n];
        let mut outcome = vec![0u8; n];
        let pieces: Vec<_> = a
            .chunks_mut(CHUNK)
            .zip(b.chunks_mut(CHUNK))
            .zip(flags.chunks_mut(CHUNK))
            .zip(outcome.chunks_mut(CHUNK))
            .map(Mutex::new)
            .collect();
        let table = par::fold_per_thread(
            pieces.len(),
            CHUNK * SECOND_NS,
            || vec![0u64; if count { l * l * 3 } else { 0 }],
            |t, c| {
                if cancel::stopping() {
                    return false;
                }
                let mut piece = pieces[c].lock().unwrap_or_else(|e| e.into_inner());
                let (((pa, pb), pf), po) = &mut *piece;
                let lo = c * CHUNK;
                let (la, lb) = (&self.a[lo..lo + pa.len()], &self.b[lo..lo + pa.len()]);
                let (lw, lf) = (&self.w[lo..lo + pa.len()], &self.flags[lo..lo + pa.len()]);
                let names = &self.names_of[c];
                let word_out: Vec<u8> = self.words_of[c]
                    .iter()
                    .map(|&g| match outcomes[g as usize] {
                        o @ 0..=2 => o,
                        _ => NOT_AN_OUTCOME,
                    })
                    .collect();
                for k in 0..pa.len() {
                    let mut f = lf[k];
                    let o = if f & BAD_WINNER != 0 {
                        NOT_AN_OUTCOME
                    } else {
                        let o = word_out[lw[k] as usize];
                        if o == NOT_AN_OUTCOME {
                            f |= BAD_WINNER;
                        }
                        o
                    };
                    let ga = if f & MISSING_A != 0 { 0 } else { names[la[k] as usize] };
                    let gb = if f & MISSING_B != 0 { 0 } else { names[lb[k] as usize] };
                    pa[k] = ga;
                    pb[k] = gb;
                    po[k] = o;
                    pf[k] = f;
                    if f == 0 && count {
                        let (p, o) = if ga < gb {
                            (ga as usize * l + gb as usize, o)
                        } else {
                            (gb as usize * l + ga as usize, 2 - o)
                        };
                        t[p * 3 + o as usize] += 1;
                    }
                }
                true
            },
            |mut x, y| {
                x.iter_mut().zip(&y).for_each(|(u, v)| *u += v);
                x
            },
        );
        drop(pieces);
        watch.check()?;
        let table = table.ok_or(Error::Interrupted)?;
        let board = count.then(|| {
            let mut board = dense_board(l, &table);
            board.battles = table.iter().sum();
            board
        });
        Ok(Coded {
            a,
            b,
            outcome,
            flags,
            names: self.names.clone(),
            board,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::battles::aggregate::{aggregate, Battles};

    fn layout(words: &[&str]) -> (Vec<i32>, Vec<u8>) {
        let mut data = Vec::new();
        let mut offsets = vec![0i32];
        for w in words {
            data.extend_from_slice(w.as_bytes());
            offsets.push(data.len() as i32);
        }
        (offsets, data)
    }

    fn outcome_of(w: &[u8]) -> u8 {
        match w {
            b"model_a" => 2,
            b"tie" => 1,
            b"model_b" => 0,
            _ => NOT_AN_OUTCOME,
        }
    }

    #[test]
    fn codes_flags_and_counts_as_the_separate_steps_make_them() {
        // 200k battles among 37 names over pieces of several chunks, with
        // missing names, self-battles and bad winner words
        let m = 37u64;
        let n = 200_000u64;
        let mut sa = Vec::new();
        let mut sb = Vec::new();
        let mut sw = Vec::new();
        for k in 0..n {
            let x = (k * 2_654_435_761) % 1_000_003;
            let i = x % m;
            let j = (x / m) % m;
            sa.push(if k % 9_973 == 5 {
                String::new()
            } else {
                format!("model-{i}")
            });
            sb.push(format!("model-{j}"));
            sw.push(["model_a", "tie", "model_b", "model_b", "model_a", "bogus"][((x / 7) % 6) as usize].to_string());
        }
        let (oa, da) = layout(&sa.iter().map(|s| s.as_str()).collect::<Vec<_>>());
        let (ob, db) = layout(&sb.iter().map(|s| s.as_str()).collect::<Vec<_>>());
        let (ow, dw) = layout(&sw.iter().map(|s| s.as_str()).collect::<Vec<_>>());
        // model_b in two arrays, the winner's first row null by its bitmap
        let cut = 70_001usize;
        let (ob1, ob2): (Vec<i32>, Vec<i32>) = (ob[..=cut].to_vec(), ob[cut..].to_vec());
        let mut valid = vec![0xffu8; (n as usize).div_ceil(8)];
        valid[0] &= !1;
        let a = [Column {
            strings: Strings::Narrow(&oa, &da),
            valid: None,
        }];
        let b = [
            Column {
                strings: Strings::Narrow(&ob1, &db),
                valid: None,
            },
            Column {
                strings: Strings::Narrow(&ob2, &db),
                valid: None,
            },
        ];
        let w = [Column {
            strings: Strings::Narrow(&ow, &dw),
            valid: Some((&valid, 0)),
        }];
        let pending = code(&a, &b, &w).expect("valid");
        let outs: Vec<u8> = pending.words().iter().map(|w| outcome_of(w)).collect();
        let got = pending.finish(&outs).expect("valid");
        // names sorted, over both columns
        let mut want: Vec<&str> = sa
            .iter()
            .chain(&sb)
            .map(|s| s.as_str())
            .filter(|s| !s.is_empty())
            .collect();
        want.sort_unstable();
        want.dedup();
        assert_eq!(
            got.names,
            want.iter().map(|w| w.as_bytes().to_vec()).collect::<Vec<_>>()
        );
        let mut good = (Vec::new(), Vec::new(), Vec::new());
        for k in 0..n as usize {
            let mut f = 0;
            if sa[k].is_empty() {
                f |= MISSING_A;
            } else {
                assert_eq!(got.names[got.a[k] as usize], sa[k].as_bytes());
            }
            assert_eq!(got.names[got.b[k] as usize], sb[k].as_bytes());
            if f == 0 && sa[k] == sb[k] {
                f |= SELF_BATTLE;
            }
            let o = if k == 0 {
                NOT_AN_OUTCOME
            } else {
                outcome_of(sw[k].as_bytes())
            };
            if o == NOT_AN_OUTCOME {
                f |= BAD_WINNER;
            }
            assert_eq!((got.flags[k], got.outcome[k]), (f, o), "battle {k}");
            if f == 0 {
                good.0.push(got.a[k]);
                good.1.push(got.b[k]);
                good.2.push(o);
            }
        }
        assert!(got.flags.iter().any(|&f| f & SELF_BATTLE != 0) && got.flags.iter().any(|&f| f & MISSING_A != 0));
        // the counted rows: those `aggregate` counts from the good battles' codes
        let want = aggregate(&Battles {
            models: got.names.len(),
            a: &good.0,
            b: &good.1,
            outcome: &good.2,
            weight: None,
            cluster: None,
        })
        .expect("valid");
        let board = got.board.expect("few models");
        assert_eq!(board.battles, good.0.len() as u64);
        assert_eq!(
            (
                &board.pair_i,
                &board.pair_j,
                &board.row_pair,
                &board.row_outcome,
                &board.row_count
            ),
            (
                &want.pair_i,
                &want.pair_j,
                &want.row_pair,
                &want.row_outcome,
                &want.row_count
            )
        );
        // the same on one thread
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
        let again = one
            .install(|| {
                let p = code(&a, &b, &w)?;
                let outs: Vec<u8> = p.words().iter().map(|w| outcome_of(w)).collect();
                p.finish(&outs)
            })
            .expect("valid");
        assert_eq!(
            (again.a, again.b, again.outcome, again.flags),
            (got.a, got.b, got.outcome, got.flags)
        );
    }

    #[test]
    fn bad_layouts_are_refused() {
        let (o, d) = layout(&["x", "y"]);
        let col = Column {
            strings: Strings::Narrow(&o, &d),
            valid: None,
        };
        let short = Column {
            strings: Strings::Narrow(&o[..2], &d),
            valid: None,
        };
        assert!(code(&[col], &[col], &[short]).is_err());
        let bits = Column {
            strings: Strings::Narrow(&o, &d),
            valid: Some((&[], 0)),
        };
        assert!(code(&[bits], &[col], &[col]).is_err());
        let p = code(&[col], &[col], &[col]).expect("valid");
        assert_eq!(p.words().len(), 2);
        assert!(p.finish(&[0]).is_err());
        let empty = Column {
            strings: Strings::Narrow(&[0], b""),
            valid: None,
        };
        let got = code(&[empty], &[empty], &[empty])
            .expect("valid")
            .finish(&[])
            .expect("valid");
        assert!(got.a.is_empty() && got.names.is_empty() && got.board.is_some_and(|b| b.battles == 0));
    }
}
