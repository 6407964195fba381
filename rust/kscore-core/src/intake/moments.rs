//! Exact first and second moments of the per-row category counts:
//! `Σ_α x_αc` and `Σ_α x_αc x_αd` over the rows α of a bank.
//!
//! Bayes@N's mean and variance over a bank depend on its rows only through
//! these sums (docs/kernels.md, K11), so one integer pass over the counts
//! (or the intake's own pass, `intake::matrix`) replaces a float evaluation
//! per row or per distinct row. Integers, so the sums are exact and may be
//! merged in any order.

use rayon::prelude::*;

use crate::par::Grain;

/// `Σ_α x_αc` and `Σ_α x_αc x_αd` (`c <= d`) over `rows` rows of
/// `categories` counts each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CountMoments {
    pub categories: usize,
    pub rows: u64,
    /// `Σ_α x_αc`, one per category.
    pub sums: Vec<u64>,
    /// `Σ_α x_αc x_αd` for `c <= d`, the upper triangle row by row.
    pub products: Vec<u128>,
}

/// Rows per parallel task.
const CHUNK: usize = 4096;

impl CountMoments {
    /// No rows yet.
    pub fn zero(categories: usize) -> Self {
        CountMoments {
            categories,
            rows: 0,
            sums: vec![0; categories],
            products: vec![0; categories * (categories + 1) / 2],
        }
    }

    /// The moments of known sums and products (the intake's fused pass).
    pub fn from_parts(rows: u64, sums: Vec<u64>, products: Vec<u128>) -> Self {
        let categories = sums.len();
        debug_assert_eq!(products.len(), categories * (categories + 1) / 2);
        CountMoments {
            categories,
            rows,
            sums,
            products,
        }
    }

    /// The position of `(c, d)`, `c <= d`, in `products`.
    #[inline]
    pub fn index(&self, c: usize, d: usize) -> usize {
        let (c, d) = if c <= d { (c, d) } else { (d, c) };
        c * self.categories - c * c.saturating_sub(1) / 2 + (d - c)
    }

    /// `Σ_α x_αc x_αd` (either order).
    #[inline]
    pub fn product(&self, c: usize, d: usize) -> u128 {
        self.products[self.index(c, d)]
    }

    /// Add one row of counts.
    #[inline]
    fn add_row(&mut self, x: &[u64]) {
        self.rows += 1;
        let mut k = 0;
        for (c, &xc) in x.iter().enumerate() {
            self.sums[c] += xc;
            for &xd in &x[c..] {
                self.products[k] += xc as u128 * xd as u128;
                k += 1;
            }
        }
    }

    /// Add another set of moments (exact).
    pub fn merge(&mut self, other: &CountMoments) {
        self.rows += other.rows;
        self.sums.iter_mut().zip(&other.sums).for_each(|(a, b)| *a += b);
        self.products.iter_mut().zip(&other.products).for_each(|(a, b)| *a += b);
    }

    /// The moments of the rows of `counts` (row-major, `categories` per
    /// row), each row plus the same row of `prior` when given; no count (or
    /// sum of the two) exceeds `max_count`.
    pub fn of_rows(counts: &[u32], prior: Option<&[u32]>, categories: usize, max_count: u64) -> Self {
        let rows = counts.len() / categories.max(1);
        let row_ns = categories * categories + 2;
        // Counts below 2^16 keep a chunk's products in u64 lanes.
        let small = max_count < 1 << 16;
        (0..rows.div_ceil(CHUNK))
            .into_par_iter()
            .with_grain(CHUNK * row_ns)
            .map(|b| {
                let span = b * CHUNK * categories..((b + 1) * CHUNK).min(rows) * categories;
                Self::of_block(&counts[span.clone()], prior.map(|p| &p[span]), categories, small)
            })
            .reduce(
                || CountMoments::zero(categories),
                |mut a, b| {
                    a.merge(&b);
                    a
                },
            )
    }

    /// Adds the rows of one block of counts (row-major, no prior), in this
    /// thread: a block of the intake's fold (`intake::matrix::category_moments`).
    pub fn add_block(&mut self, counts: &[u32], max_count: u64) {
        self.merge(&Self::of_block(counts, None, self.categories, max_count < 1 << 16));
    }

    /// The moments of a chunk of rows (`small`: counts below 2^16, so that
    /// the chunk's products fit u64 lanes).
    fn of_block(x: &[u32], p: Option<&[u32]>, categories: usize, small: bool) -> Self {
        match categories {
            2 if small => chunk_moments::<2>(x, p),
            3 if small => chunk_moments::<3>(x, p),
            4 if small => chunk_moments::<4>(x, p),
            5 if small => chunk_moments::<5>(x, p),
            6 if small => chunk_moments::<6>(x, p),
            7 if small => chunk_moments::<7>(x, p),
            8 if small => chunk_moments::<8>(x, p),
            _ => {
                let mut acc = CountMoments::zero(categories);
                let mut row = vec![0u64; categories];
                for (i, xs) in x.chunks_exact(categories).enumerate() {
                    row.iter_mut().zip(xs).for_each(|(a, &n)| *a = n as u64);
                    if let Some(p) = p {
                        let ps = &p[i * categories..(i + 1) * categories];
                        row.iter_mut().zip(ps).for_each(|(a, &n)| *a += n as u64);
                    }
                    acc.add_row(&row);
                }
                acc
            }
        }
    }

    /// The moments of these rows repeated `times` times each.
    pub fn repeated(&self, times: u64) -> CountMoments {
        CountMoments {
            categories: self.categories,
            rows: self.rows * times,
            sums: self.sums.iter().map(|&s| s * times).collect(),
            products: self.products.iter().map(|&p| p * times as u128).collect(),
        }
    }

    /// The moments of `x + 1` (every count plus one pseudo-count):
    /// `Σ (x_c + 1) = S_c + M`, `Σ (x_c + 1)(x_d + 1) = P_cd + S_c + S_d + M`.
    pub fn plus_one(&self) -> CountMoments {
        let m = self.rows;
        let c = self.categories;
        let mut products = Vec::with_capacity(self.products.len());
        for i in 0..c {
            for j in i..c {
                products.push(self.product(i, j) + (self.sums[i] + self.sums[j] + m) as u128);
            }
        }
        CountMoments {
            categories: c,
            rows: m,
            sums: self.sums.iter().map(|&s| s + m).collect(),
            products,
        }
    }
}

/// The moments of one chunk (at most `CHUNK` rows) of `C` categories whose
/// counts stay below 2^16: every sum and product fits u64 lanes, and the
/// fixed width lets the loops unroll.
fn chunk_moments<const C: usize>(counts: &[u32], prior: Option<&[u32]>) -> CountMoments {
    let mut sums = [0u64; C];
    let mut prods = [[0u64; C]; C];
    let mut add = |x: [u64; C]| {
        for c in 0..C {
            sums[c] += x[c];
            for d in c..C {
                prods[c][d] += x[c] * x[d];
            }
        }
    };
    let rows = counts.chunks_exact(C);
    match prior {
        None => rows.for_each(|r| add(std::array::from_fn(|c| r[c] as u64))),
        Some(p) => rows
            .zip(p.chunks_exact(C))
            .for_each(|(r, q)| add(std::array::from_fn(|c| (r[c] + q[c]) as u64))),
    }
    let products = (0..C)
        .flat_map(|c| (c..C).map(move |d| (c, d)))
        .map(|(c, d)| prods[c][d] as u128);
    CountMoments::from_parts((counts.len() / C) as u64, sums.to_vec(), products.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_and_products_of_rows() {
        let counts = [1u32, 2, 3, 0, 4, 2, 5, 0, 1];
        let prior = [1u32, 0, 0, 0, 1, 0, 2, 0, 0];
        let m = CountMoments::of_rows(&counts, None, 3, 5);
        assert_eq!(m.rows, 3);
        assert_eq!(m.sums, vec![6, 6, 6]);
        // products: (0,0) 1+0+25, (0,1) 2+0+0, (0,2) 3+0+5, (1,1) 4+16+0, (1,2) 6+8+0, (2,2) 9+4+1
        assert_eq!(m.products, vec![26, 2, 8, 20, 14, 14]);
        assert_eq!(m.product(2, 1), 14);
        let p = CountMoments::of_rows(&counts, Some(&prior), 3, 7);
        assert_eq!(p.sums, vec![9, 7, 6]);
        assert_eq!(p.product(0, 0), 4 + 49); // (1+1)^2 + (0+0)^2 + (5+2)^2
        let one = m.plus_one();
        assert_eq!(m.repeated(3).sums, vec![18, 18, 18]);
        assert_eq!(m.repeated(3).product(1, 2), 3 * 14);
        assert_eq!(m.repeated(3).rows, 9);
        assert_eq!(one.sums, vec![9, 9, 9]);
        // Σ (x0 + 1)(x1 + 1) = (2)(3) + (1)(5) + (6)(1)
        assert_eq!(one.product(0, 1), 6 + 5 + 6);
    }

    #[test]
    fn parallel_chunks_merge_exactly() {
        let rows = 3 * CHUNK + 17;
        let counts: Vec<u32> = (0..rows * 4).map(|i| ((i * 7919) % 13) as u32).collect();
        let mut serial = CountMoments::zero(4);
        for row in counts.chunks_exact(4) {
            serial.add_row(&row.iter().map(|&x| x as u64).collect::<Vec<_>>());
        }
        // The u64 chunks of small counts and the u128 rows of large ones.
        for max_count in [12, 1 << 20] {
            assert_eq!(CountMoments::of_rows(&counts, None, 4, max_count), serial);
            let old = crate::par::set_grain(1);
            assert_eq!(CountMoments::of_rows(&counts, None, 4, max_count), serial);
            crate::par::set_grain(old);
        }
    }
}
