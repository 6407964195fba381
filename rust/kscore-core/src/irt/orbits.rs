//! Model orbits: models that some simultaneous relabelling of models and
//! questions exchanges while leaving the count matrix as it is.
//!
//! Every likelihood of scorio's IRT family is unchanged by such a
//! relabelling, so models of one orbit have equal abilities at a unique
//! optimum, and scorio averages their scores (`_base.
//! average_event_exchangeable_scores`, a backtracking search over row
//! bijections). Here: colour refinement (1-dimensional Weisfeiler-Leman on
//! the bipartite model/question graph with the counts as edge colours)
//! splits models no automorphism can exchange; identical rows are joined
//! at once; the models left in a colour class are tested against one
//! member of each orbit found so far by individualisation and refinement
//! with backtracking, and a bijection that refinement makes unique is
//! checked cell by cell. Exact (colours are only a filter; every join is a
//! verified automorphism), and `O(L M)` per refinement round.
//!
//! Colours are 64-bit hashes of a vertex's colour and the multiset of its
//! (count, neighbour colour) pairs. Equal multisets always hash equal, so a
//! hash collision can only merge classes, which costs search time but never
//! a wrong answer.

use rayon::prelude::*;

use super::Count;
use crate::cancel;
use crate::error::Result;
use crate::par;

#[inline(always)]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[inline(always)]
fn cell(count: u32, colour: u64) -> u64 {
    mix(colour.wrapping_add((count as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)))
}

#[inline(always)]
fn recolour(old: u64, neighbours: u64) -> u64 {
    mix(old.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ neighbours)
}

/// A colour of the search's individualised vertex at `depth`.
fn marked(depth: usize) -> u64 {
    mix(0x5eed_0f0d_d17e_0001 ^ (depth as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

#[derive(Clone, PartialEq)]
struct Colouring {
    rows: Vec<u64>,
    cols: Vec<u64>,
}

struct Board<'a, T: Count> {
    k: &'a [T],
    l: usize,
    m: usize,
}

fn classes(v: &[u64]) -> usize {
    let mut s = v.to_vec();
    s.sort_unstable();
    s.dedup();
    s.len()
}

impl<T: Count> Board<'_, T> {
    #[inline]
    fn at(&self, i: usize, j: usize) -> u32 {
        self.k[i * self.m + j].get()
    }

    /// Refine `c` until neither side's classes split further.
    fn refine(&self, c: &mut Colouring) -> Result<()> {
        let (l, m) = (self.l, self.m);
        let (mut nr, mut nc) = (classes(&c.rows), classes(&c.cols));
        let row_len = par::min_len(m.saturating_mul(3));
        loop {
            cancel::check()?;
            let cols = &c.cols;
            let rows_new: Vec<u64> = (0..l)
                .into_par_iter()
                .with_min_len(row_len)
                .map(|i| {
                    let row = &self.k[i * m..(i + 1) * m];
                    let acc = row
                        .iter()
                        .zip(cols)
                        .fold(0u64, |a, (kk, col)| a.wrapping_add(cell(kk.get(), *col)));
                    recolour(c.rows[i], acc)
                })
                .collect();
            let sums = par::fold_per_thread(
                l,
                row_len,
                || vec![0u64; m],
                |acc, i| {
                    let colour = rows_new[i];
                    for (a, kk) in acc.iter_mut().zip(&self.k[i * m..(i + 1) * m]) {
                        *a = a.wrapping_add(cell(kk.get(), colour));
                    }
                    true
                },
                |mut a, b| {
                    for (x, y) in a.iter_mut().zip(b) {
                        *x = x.wrapping_add(y);
                    }
                    a
                },
            )
            .unwrap_or_else(|| vec![0u64; m]);
            let cols_new: Vec<u64> = c.cols.iter().zip(&sums).map(|(o, s)| recolour(*o, *s)).collect();
            let (nr2, nc2) = (classes(&rows_new), classes(&cols_new));
            c.rows = rows_new;
            c.cols = cols_new;
            if nr2 == nr && nc2 == nc {
                return Ok(());
            }
            (nr, nc) = (nr2, nc2);
        }
    }

    /// A row bijection of an automorphism that maps row `u` to row `v`, if any.
    fn automorphism(&self, base: &Colouring, u: usize, v: usize) -> Result<Option<Vec<usize>>> {
        let (mut a, mut b) = (base.clone(), base.clone());
        a.rows[u] = marked(0);
        b.rows[v] = marked(0);
        self.refine(&mut a)?;
        self.refine(&mut b)?;
        if !same_shape(&a, &b) {
            return Ok(None);
        }
        self.descend(a, b, 1)
    }

    fn descend(&self, a: Colouring, b: Colouring, depth: usize) -> Result<Option<Vec<usize>>> {
        if let Some((rows, colour)) = first_open_class(&a) {
            let side = |c: &Colouring| if rows { c.rows.clone() } else { c.cols.clone() };
            let (sa, sb) = (side(&a), side(&b));
            let Some(x) = sa.iter().position(|&c| c == colour) else {
                return Ok(None);
            };
            for y in (0..sb.len()).filter(|&y| sb[y] == colour) {
                let (mut a2, mut b2) = (a.clone(), b.clone());
                if rows {
                    a2.rows[x] = marked(depth);
                    b2.rows[y] = marked(depth);
                } else {
                    a2.cols[x] = marked(depth);
                    b2.cols[y] = marked(depth);
                }
                self.refine(&mut a2)?;
                self.refine(&mut b2)?;
                if same_shape(&a2, &b2) {
                    if let Some(found) = self.descend(a2, b2, depth + 1)? {
                        return Ok(Some(found));
                    }
                }
            }
            return Ok(None);
        }
        // Discrete: the only candidate maps each vertex to the one of its colour.
        let rows = matching(&a.rows, &b.rows);
        let cols = matching(&a.cols, &b.cols);
        let (Some(rows), Some(cols)) = (rows, cols) else {
            return Ok(None);
        };
        for (i, &row) in rows.iter().enumerate().take(self.l) {
            cancel::check()?;
            for (j, &col) in cols.iter().enumerate().take(self.m) {
                if self.at(row, col) != self.at(i, j) {
                    return Ok(None);
                }
            }
        }
        Ok(Some(rows))
    }
}

/// Same colour multisets on both sides.
fn same_shape(a: &Colouring, b: &Colouring) -> bool {
    let sorted = |v: &[u64]| {
        let mut s = v.to_vec();
        s.sort_unstable();
        s
    };
    sorted(&a.rows) == sorted(&b.rows) && sorted(&a.cols) == sorted(&b.cols)
}

/// The class to split next: the smallest colour of a row class with two or
/// more members, else of such a column class (true for rows).
fn first_open_class(c: &Colouring) -> Option<(bool, u64)> {
    for (rows, v) in [(true, &c.rows), (false, &c.cols)] {
        let mut s = v.clone();
        s.sort_unstable();
        if let Some(w) = s.windows(2).find(|w| w[0] == w[1]) {
            return Some((rows, w[0]));
        }
    }
    None
}

/// For discrete colourings: `map[i]` = the vertex of `b` with `a[i]`'s colour.
fn matching(a: &[u64], b: &[u64]) -> Option<Vec<usize>> {
    let mut order: Vec<usize> = (0..b.len()).collect();
    order.sort_unstable_by_key(|&i| b[i]);
    a.iter()
        .map(|c| {
            let at = order.binary_search_by_key(c, |&i| b[i]).ok()?;
            Some(order[at])
        })
        .collect()
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

fn union(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        parent[ra.max(rb)] = ra.min(rb);
    }
}

/// Each model's orbit, named by its smallest member: `orbit[i] <= i`, and
/// `orbit[i] == orbit[j]` iff some automorphism of the `l x m` count matrix
/// (rows and columns permuted at once) maps model `i` to model `j`.
pub fn model_orbits<T: Count>(k: &[T], l: usize, m: usize) -> Result<Vec<usize>> {
    let board = Board { k, l, m };
    let mut parent: Vec<usize> = (0..l).collect();
    if l < 2 {
        return Ok(parent);
    }
    let mut base = Colouring {
        rows: vec![mix(1); l],
        cols: vec![mix(2); m],
    };
    board.refine(&mut base)?;
    // Models by colour; within a colour, identical rows first.
    let mut order: Vec<usize> = (0..l).collect();
    order.sort_by(|&i, &j| {
        base.rows[i].cmp(&base.rows[j]).then_with(|| {
            k[i * m..(i + 1) * m]
                .iter()
                .map(|v| v.get())
                .cmp(k[j * m..(j + 1) * m].iter().map(|v| v.get()))
        })
    });
    let same_row = |i: usize, j: usize| (0..m).all(|c| board.at(i, c) == board.at(j, c));
    let mut start = 0;
    while start < l {
        let colour = base.rows[order[start]];
        let mut end = start;
        while end < l && base.rows[order[end]] == colour {
            end += 1;
        }
        let class = &order[start..end];
        for w in class.windows(2) {
            if same_row(w[0], w[1]) {
                union(&mut parent, w[0], w[1]);
            }
        }
        // One member per orbit found so far; each other model is tested
        // against them.
        let mut reps: Vec<usize> = Vec::new();
        for &i in class {
            if reps.iter().any(|&r| find(&mut parent, r) == find(&mut parent, i)) {
                continue;
            }
            let mut joined = false;
            for &r in &reps {
                if let Some(map) = board.automorphism(&base, r, i)? {
                    for (a, &b) in map.iter().enumerate() {
                        union(&mut parent, a, b);
                    }
                    joined = true;
                    break;
                }
            }
            if !joined {
                reps.push(i);
            }
        }
        start = end;
    }
    Ok((0..l).map(|i| find(&mut parent, i)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn orbits(rows: &[&[u8]]) -> Vec<usize> {
        let m = rows[0].len();
        let k: Vec<u8> = rows.iter().flat_map(|r| r.iter().copied()).collect();
        model_orbits(&k, rows.len(), m).unwrap()
    }

    #[test]
    fn identical_rows_share_an_orbit() {
        assert_eq!(orbits(&[&[1, 0, 1], &[0, 0, 1], &[1, 0, 1]]), vec![0, 1, 0]);
    }

    #[test]
    fn rows_exchanged_by_swapping_columns() {
        // scorio's docstring board: models 1 and 2 swap with questions 1 and 2.
        assert_eq!(orbits(&[&[1, 0, 0, 1], &[0, 1, 0, 0], &[0, 0, 1, 0]]), vec![0, 1, 1]);
    }

    #[test]
    fn equal_totals_are_not_enough() {
        // Rows 0 and 1 both solve two questions, but question 0 is solved by
        // three models and question 3 by one: no relabelling swaps them.
        assert_eq!(
            orbits(&[&[1, 1, 0, 0], &[0, 1, 0, 1], &[1, 0, 1, 0], &[1, 0, 0, 0]]),
            vec![0, 1, 2, 3]
        );
    }

    #[test]
    fn a_cycle_is_one_orbit() {
        // A circulant: every model is every other's shift.
        assert_eq!(orbits(&[&[1, 1, 0], &[0, 1, 1], &[1, 0, 1]]), vec![0, 0, 0]);
    }
}
