//! Battles to unique rows: every battle is a (prompt, pair `i < j`,
//! outcome of `i`, weight) key; equal keys are counted once with their
//! number (LMArena's and arena-rank's "unique (model_a, model_b, outcome)
//! rows", with the pair's orientation folded: `(b, a, loss)` is `(a, b,
//! win)`). Without prompts or weights on a board of up to
//! `DENSE_MODELS` models the keys are counted in a table per thread
//! (integers: exact in any order); otherwise sorted.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::par;

/// Up to this many models (and no prompt ids or weights) the keys are
/// counted in a dense `models^2 x 3` table per thread (8 MB at the most).
pub const DENSE_MODELS: usize = 836;

/// Battles as codes: `a[k]`, `b[k]` below `models`, `outcome[k]` the
/// result of `a` (0 loss, 1 tie, 2 win); optional weights and prompt
/// (cluster) codes below `clusters`.
pub struct Battles<'a> {
    pub models: usize,
    pub a: &'a [u32],
    pub b: &'a [u32],
    pub outcome: &'a [u8],
    pub weight: Option<&'a [f64]>,
    pub cluster: Option<(&'a [u32], usize)>,
}

/// The unique rows, sorted by (cluster, pair, outcome, weight), and the
/// pairs that have any (sorted by `(i, j)`).
#[derive(Clone, Debug)]
pub struct Board {
    pub models: usize,
    pub pair_i: Vec<u32>,
    pub pair_j: Vec<u32>,
    pub row_pair: Vec<u32>,
    /// The result of the pair's first model `i`: 0 loss, 1 tie, 2 win.
    pub row_outcome: Vec<u8>,
    pub row_weight: Vec<f64>,
    /// Battles in the row (floats: exact up to 2^53).
    pub row_count: Vec<f64>,
    /// Rows of cluster `c`: `cluster_start[c]..cluster_start[c + 1]` (one
    /// cluster holding every row without prompt ids).
    pub cluster_start: Vec<usize>,
    pub battles: u64,
}

impl Board {
    /// Per pair: the total weight `n` and the score of `i` (wins plus half
    /// the ties, weighted) `s`, of the rows counted `counts` times
    /// (`row_count` for the board itself, a resample's otherwise).
    pub fn pair_sums(&self, counts: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let p = self.pair_i.len();
        let (mut n, mut s) = (vec![0.0; p], vec![0.0; p]);
        for (r, &c) in counts.iter().enumerate().take(self.row_pair.len()) {
            if c != 0.0 {
                let k = self.row_pair[r] as usize;
                let cw = c * self.row_weight[r];
                n[k] += cw;
                s[k] += cw * 0.5 * self.row_outcome[r] as f64;
            }
        }
        (n, s)
    }

    /// Number of clusters (1 without prompt ids).
    pub fn clusters(&self) -> usize {
        self.cluster_start.len() - 1
    }
}

/// Check the battles and count their unique rows.
pub fn aggregate(battles: &Battles<'_>) -> Result<Board> {
    let n = battles.a.len();
    let l = battles.models;
    if battles.b.len() != n || battles.outcome.len() != n {
        return Err(Error::value("model_a, model_b and outcome must have the same length"));
    }
    if battles.weight.is_some_and(|w| w.len() != n) || battles.cluster.is_some_and(|(c, _)| c.len() != n) {
        return Err(Error::value("weights and prompt ids must have one entry per battle"));
    }
    check(battles)?;
    let dense = battles.weight.is_none() && battles.cluster.is_none() && l <= DENSE_MODELS;
    let mut board = if dense {
        dense_rows(battles)
    } else {
        sorted_rows(battles)?
    };
    board.battles = n as u64;
    Ok(board)
}

/// The first bad battle, as an error naming its position.
fn check(battles: &Battles<'_>) -> Result<()> {
    let l = battles.models as u32;
    let bad = (0..battles.a.len())
        .into_par_iter()
        .with_min_len(par::min_len(2))
        .find_first(|&k| {
            let (a, b) = (battles.a[k], battles.b[k]);
            a >= l || b >= l || a == b || battles.outcome[k] > 2
        });
    if let Some(k) = bad {
        let (a, b) = (battles.a[k], battles.b[k]);
        let what = if a >= l || b >= l {
            "a model code out of range"
        } else if a == b {
            "a model against itself"
        } else {
            "an outcome outside 0, 1, 2"
        };
        return Err(Error::value(format!("battle {k}: {what}")));
    }
    if let Some(w) = battles.weight {
        if let Some(k) = w.iter().position(|&x| !(x.is_finite() && x >= 0.0)) {
            return Err(Error::value(format!(
                "battle {k}: weight {} is not a finite number >= 0",
                w[k]
            )));
        }
    }
    if let Some((c, g)) = battles.cluster {
        if let Some(k) = c.iter().position(|&x| x as usize >= g) {
            return Err(Error::value(format!("battle {k}: prompt code out of range")));
        }
    }
    Ok(())
}

/// `(pair index lo * models + hi, outcome of lo)` of battle `k`.
#[inline]
fn key(battles: &Battles<'_>, k: usize) -> (u64, u8) {
    let (a, b, o) = (battles.a[k], battles.b[k], battles.outcome[k]);
    let l = battles.models as u64;
    if a < b {
        (a as u64 * l + b as u64, o)
    } else {
        (b as u64 * l + a as u64, 2 - o)
    }
}

fn dense_rows(battles: &Battles<'_>) -> Board {
    let l = battles.models;
    let n = battles.a.len();
    const CHUNK: usize = 1 << 16;
    let chunks = n.div_ceil(CHUNK);
    let table = par::fold_per_thread(
        chunks,
        par::min_len(CHUNK * 3),
        || vec![0u64; l * l * 3],
        |t, c| {
            for k in c * CHUNK..((c + 1) * CHUNK).min(n) {
                let (p, o) = key(battles, k);
                t[p as usize * 3 + o as usize] += 1;
            }
            true
        },
        |mut x, y| {
            x.iter_mut().zip(&y).for_each(|(u, v)| *u += v);
            x
        },
    )
    .unwrap_or_else(|| vec![0u64; l * l * 3]);
    dense_board(l, &table)
}

/// The board of a dense `models^2 x 3` table of counts, indexed by
/// `(lo * models + hi) * 3 + outcome of lo` (`battles` left at 0).
pub(crate) fn dense_board(l: usize, table: &[u64]) -> Board {
    let mut board = empty(l);
    for (p, cell) in table.chunks_exact(3).enumerate() {
        if cell.iter().all(|&c| c == 0) {
            continue;
        }
        let slot = board.pair_i.len() as u32;
        board.pair_i.push((p / l) as u32);
        board.pair_j.push((p % l) as u32);
        for (o, &c) in cell.iter().enumerate() {
            if c > 0 {
                board.row_pair.push(slot);
                board.row_outcome.push(o as u8);
                board.row_weight.push(1.0);
                board.row_count.push(c as f64);
            }
        }
    }
    board.cluster_start = vec![0, board.row_pair.len()];
    board
}

fn empty(models: usize) -> Board {
    Board {
        models,
        pair_i: Vec::new(),
        pair_j: Vec::new(),
        row_pair: Vec::new(),
        row_outcome: Vec::new(),
        row_weight: Vec::new(),
        row_count: Vec::new(),
        cluster_start: Vec::new(),
        battles: 0,
    }
}

fn sorted_rows(battles: &Battles<'_>) -> Result<Board> {
    let l = battles.models as u64;
    let l2 = l * l;
    let g = battles.cluster.map_or(1, |(_, g)| g.max(1)) as u64;
    if l2.checked_mul(3).and_then(|x| x.checked_mul(g)).is_none() {
        return Err(Error::value("too many models x prompts to count (over 2^64 keys)"));
    }
    let n = battles.a.len();
    let mut keys: Vec<(u64, u64)> = (0..n)
        .into_par_iter()
        .with_min_len(par::min_len(4))
        .map(|k| {
            let (p, o) = key(battles, k);
            let c = battles.cluster.map_or(0, |(c, _)| c[k] as u64);
            let w = battles.weight.map_or(1.0f64, |w| w[k]);
            ((c * l2 + p) * 3 + o as u64, w.to_bits())
        })
        .collect();
    if par::worth_splitting(n * 40) {
        keys.par_sort_unstable();
    } else {
        keys.sort_unstable();
    }
    let mut board = empty(battles.models);
    let mut pair_of: Vec<u64> = Vec::new(); // (the pair index of each row, then its slot)
    let mut clusters = vec![0usize; g as usize + 1];
    let mut k = 0;
    while k < n {
        let mut e = k + 1;
        while e < n && keys[e] == keys[k] {
            e += 1;
        }
        let (key, wbits) = keys[k];
        pair_of.push((key / 3) % l2);
        board.row_outcome.push((key % 3) as u8);
        board.row_weight.push(f64::from_bits(wbits));
        board.row_count.push((e - k) as f64);
        clusters[(key / 3 / l2) as usize + 1] += 1;
        k = e;
    }
    for c in 0..g as usize {
        clusters[c + 1] += clusters[c];
    }
    let mut pairs = pair_of.clone();
    pairs.par_sort_unstable();
    pairs.dedup();
    board.pair_i = pairs.iter().map(|&p| (p / l) as u32).collect();
    board.pair_j = pairs.iter().map(|&p| (p % l) as u32).collect();
    board.row_pair = pair_of
        .par_iter()
        .with_min_len(par::min_len(20))
        .map(|p| pairs.binary_search(p).unwrap_or(0) as u32)
        .collect();
    board.cluster_start = clusters;
    Ok(board)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(models: usize, a: &[u32], b: &[u32], o: &[u8], w: Option<&[f64]>, c: Option<(&[u32], usize)>) -> Board {
        aggregate(&Battles {
            models,
            a,
            b,
            outcome: o,
            weight: w,
            cluster: c,
        })
        .expect("valid battles")
    }

    #[test]
    fn orientation_is_folded_and_counted() {
        let (a, b, o) = ([0, 1, 0, 2, 2, 0], [1, 0, 1, 0, 0, 2], [2, 0, 1, 2, 1, 0]);
        for w in [None, Some(&[1.0; 6][..])] {
            let bd = board(3, &a, &b, &o, w, None);
            assert_eq!(bd.pair_i, vec![0, 0]);
            assert_eq!(bd.pair_j, vec![1, 2]);
            // (0,1): win, win (b=0 lost... 1 vs 0 with outcome 0 = 0 won), tie; (0,2): loss x2, tie
            assert_eq!(bd.row_pair, vec![0, 0, 1, 1]);
            assert_eq!(bd.row_outcome, vec![1, 2, 0, 1]);
            assert_eq!(bd.row_count, vec![1.0, 2.0, 2.0, 1.0]);
            let (n, s) = bd.pair_sums(&bd.row_count);
            assert_eq!((n, s), (vec![3.0, 3.0], vec![2.5, 0.5]));
        }
    }

    #[test]
    fn clusters_and_weights_make_rows_of_their_own() {
        let (a, b, o) = ([0, 0, 0, 1], [1, 1, 1, 2], [2, 2, 2, 0]);
        let bd = board(3, &a, &b, &o, Some(&[1.0, 2.0, 1.0, 1.0]), Some((&[1, 0, 1, 1], 2)));
        assert_eq!(bd.cluster_start, vec![0, 1, 3]);
        assert_eq!(bd.row_weight, vec![2.0, 1.0, 1.0]);
        assert_eq!(bd.row_count, vec![1.0, 2.0, 1.0]);
        assert_eq!(bd.row_pair, vec![0, 0, 1]);
    }

    #[test]
    fn bad_battles_are_named() {
        let err = aggregate(&Battles {
            models: 2,
            a: &[0, 1],
            b: &[1, 1],
            outcome: &[2, 0],
            weight: None,
            cluster: None,
        });
        assert_eq!(err.err(), Some(Error::value("battle 1: a model against itself")));
        let err = aggregate(&Battles {
            models: 2,
            a: &[0],
            b: &[1],
            outcome: &[3],
            weight: None,
            cluster: None,
        });
        assert!(err.is_err());
    }
}
