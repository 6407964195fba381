//! The input of a paired-comparison fit: a table of pairs of items with the
//! weights of each outcome, checked once; and the comparison graphs whose
//! strong connectivity decides whether an unpenalised optimum is finite.

use crate::error::{Error, Result};

/// One row per compared pair `(i, j)` (any order, repeats allowed: their
/// weights add up): `win_i` the weight of `i` beating `j`, `win_j` of `j`
/// beating `i`, `tie` of ties. Weights are counts or any non-negative
/// finite reals (bootstrap and importance weights). Borrowed, so that
/// refits on reweighted counts copy nothing.
#[derive(Clone, Copy, Debug)]
pub struct Pairs<'a> {
    pub i: &'a [u32],
    pub j: &'a [u32],
    pub win_i: &'a [f64],
    pub win_j: &'a [f64],
    pub tie: &'a [f64],
}

/// Totals of a checked table.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    pub wins: f64,
    pub ties: f64,
    /// The largest total weight of one item's comparisons: the scale of the
    /// gradient, against which convergence is measured.
    pub max_item_weight: f64,
}

impl<'a> Pairs<'a> {
    pub fn len(&self) -> usize {
        self.i.len()
    }

    pub fn is_empty(&self) -> bool {
        self.i.is_empty()
    }

    /// Check lengths, item indices (below `items`, `i != j`) and weights
    /// (finite, non-negative); return the totals.
    pub fn check(&self, items: usize) -> Result<Totals> {
        let n = self.i.len();
        if [self.j.len(), self.win_i.len(), self.win_j.len(), self.tie.len()]
            .iter()
            .any(|&m| m != n)
        {
            return Err(Error::value(
                "pairs: i, j, win_i, win_j and tie must have the same length",
            ));
        }
        let mut per_item = vec![0.0f64; items];
        let (mut wins, mut ties) = (0.0, 0.0);
        for r in 0..n {
            let (a, b) = (self.i[r] as usize, self.j[r] as usize);
            if a >= items || b >= items {
                return Err(Error::value(format!(
                    "pairs: row {r} names item {} but there are {items} items",
                    a.max(b)
                )));
            }
            if a == b {
                return Err(Error::value(format!("pairs: row {r} compares item {a} with itself")));
            }
            let (wi, wj, t) = (self.win_i[r], self.win_j[r], self.tie[r]);
            for w in [wi, wj, t] {
                if !(w >= 0.0 && w.is_finite()) {
                    return Err(Error::value(format!(
                        "pairs: row {r} has weight {w}; weights must be finite and non-negative"
                    )));
                }
            }
            wins += wi + wj;
            ties += t;
            per_item[a] += wi + wj + t;
            per_item[b] += wi + wj + t;
        }
        let max_item_weight = per_item.iter().copied().fold(0.0, f64::max);
        Ok(Totals {
            wins,
            ties,
            max_item_weight,
        })
    }
}

/// Whether every item reaches every other along directed edges `a -> b`
/// ("a beat b", or a tie, which points both ways): `edges(row)` gives, for
/// each row of `pairs`, whether `i -> j` and whether `j -> i` exist.
pub fn strongly_connected(items: usize, pairs: &Pairs, edges: impl Fn(usize) -> (bool, bool)) -> bool {
    if items <= 1 {
        return true;
    }
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); items];
    let mut inn: Vec<Vec<u32>> = vec![Vec::new(); items];
    for r in 0..pairs.len() {
        let (a, b) = (pairs.i[r], pairs.j[r]);
        let (ab, ba) = edges(r);
        if ab {
            out[a as usize].push(b);
            inn[b as usize].push(a);
        }
        if ba {
            out[b as usize].push(a);
            inn[a as usize].push(b);
        }
    }
    reaches_all(&out) && reaches_all(&inn)
}

/// Whether item 0 reaches every item in `adjacency`.
fn reaches_all(adjacency: &[Vec<u32>]) -> bool {
    let mut seen = vec![false; adjacency.len()];
    let mut stack = vec![0u32];
    seen[0] = true;
    let mut count = 1;
    while let Some(v) = stack.pop() {
        for &w in &adjacency[v as usize] {
            if !seen[w as usize] {
                seen[w as usize] = true;
                count += 1;
                stack.push(w);
            }
        }
    }
    count == adjacency.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_refuse_bad_rows() {
        let i = [0u32, 1];
        let j = [1u32, 3];
        let w = [1.0, 1.0];
        let p = Pairs {
            i: &i,
            j: &j,
            win_i: &w,
            win_j: &w,
            tie: &w,
        };
        assert!(p.check(3).unwrap_err().to_string().contains("names item 3"));
        let j = [1u32, 1];
        let p = Pairs {
            i: &i,
            j: &j,
            win_i: &w,
            win_j: &w,
            tie: &w,
        };
        assert!(p.check(3).unwrap_err().to_string().contains("with itself"));
        let bad = [1.0, -1.0];
        let j = [1u32, 2];
        let p = Pairs {
            i: &i,
            j: &j,
            win_i: &w,
            win_j: &bad,
            tie: &w,
        };
        assert!(p.check(3).is_err());
        let nan = [f64::NAN, 1.0];
        let p = Pairs {
            i: &i,
            j: &j,
            win_i: &nan,
            win_j: &w,
            tie: &w,
        };
        assert!(p.check(3).is_err());
        let p = Pairs {
            i: &i,
            j: &j,
            win_i: &w,
            win_j: &w,
            tie: &w,
        };
        let t = p.check(3).unwrap();
        assert_eq!((t.wins, t.ties, t.max_item_weight), (4.0, 2.0, 6.0));
    }

    #[test]
    fn connectivity_of_a_cycle_and_a_chain() {
        let i = [0u32, 1, 2];
        let j = [1u32, 2, 0];
        let one = [1.0; 3];
        let zero = [0.0; 3];
        let cycle = Pairs {
            i: &i,
            j: &j,
            win_i: &one,
            win_j: &zero,
            tie: &zero,
        };
        assert!(strongly_connected(3, &cycle, |r| (
            cycle.win_i[r] > 0.0,
            cycle.win_j[r] > 0.0
        )));
        let chain = Pairs {
            i: &i[..2],
            j: &j[..2],
            win_i: &one[..2],
            win_j: &zero[..2],
            tie: &zero[..2],
        };
        assert!(!strongly_connected(3, &chain, |r| (
            chain.win_i[r] > 0.0,
            chain.win_j[r] > 0.0
        )));
        // An item with no comparison at all.
        assert!(!strongly_connected(4, &cycle, |r| (
            cycle.win_i[r] > 0.0,
            cycle.win_j[r] > 0.0
        )));
    }
}
