//! A radix-2 complex FFT, for the blocked Bernstein products of large k
//! (docs/kernels.md, K5). Iterative, in place, on separate real and imaginary
//! arrays; twiddles are taken from `sin_cos` per index (not by recurrence), so
//! a transform of length n has the usual `O(eps log n)` relative error in the
//! 2-norm.

use std::f64::consts::PI;

/// A transform plan of one power-of-two length.
#[derive(Clone, Debug)]
pub struct Fft {
    n: usize,
    /// `exp(-2 pi i j / n)` for `j < n/2`, as (cos, -sin).
    tw_re: Vec<f64>,
    tw_im: Vec<f64>,
    rev: Vec<u32>,
}

impl Fft {
    /// A plan for length `n`, a power of two (at least 1).
    pub fn new(n: usize) -> Self {
        assert!(n.is_power_of_two(), "FFT length must be a power of two");
        let half = n / 2;
        let (mut tw_re, mut tw_im) = (Vec::with_capacity(half), Vec::with_capacity(half));
        for j in 0..half {
            let (s, c) = (2.0 * PI * j as f64 / n as f64).sin_cos();
            tw_re.push(c);
            tw_im.push(-s);
        }
        let bits = n.trailing_zeros();
        let rev = (0..n as u32)
            .map(|i| if bits == 0 { 0 } else { i.reverse_bits() >> (32 - bits) })
            .collect();
        Fft { n, tw_re, tw_im, rev }
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Forward transform `X_m = sum_j x_j exp(-2 pi i j m / n)`, in place.
    pub fn forward(&self, re: &mut [f64], im: &mut [f64]) {
        let n = self.n;
        debug_assert!(re.len() == n && im.len() == n);
        for i in 0..n {
            let j = self.rev[i] as usize;
            if i < j {
                re.swap(i, j);
                im.swap(i, j);
            }
        }
        let mut len = 2;
        while len <= n {
            let half = len / 2;
            let step = n / len;
            for start in (0..n).step_by(len) {
                let (lo_re, hi_re) = re[start..start + len].split_at_mut(half);
                let (lo_im, hi_im) = im[start..start + len].split_at_mut(half);
                for j in 0..half {
                    let (wr, wi) = (self.tw_re[j * step], self.tw_im[j * step]);
                    let (xr, xi) = (hi_re[j], hi_im[j]);
                    let vr = xr * wr - xi * wi;
                    let vi = xr * wi + xi * wr;
                    let (ur, ui) = (lo_re[j], lo_im[j]);
                    lo_re[j] = ur + vr;
                    lo_im[j] = ui + vi;
                    hi_re[j] = ur - vr;
                    hi_im[j] = ui - vi;
                }
            }
            len *= 2;
        }
    }

    /// Inverse transform, scaled by `1/n`, in place (the forward transform
    /// with real and imaginary parts exchanged).
    pub fn inverse(&self, re: &mut [f64], im: &mut [f64]) {
        self.forward(im, re);
        let scale = 1.0 / self.n as f64;
        for v in re.iter_mut().chain(im.iter_mut()) {
            *v *= scale;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_direct_dft_and_inverts() {
        for n in [1usize, 2, 4, 8, 64] {
            let x_re: Vec<f64> = (0..n).map(|j| ((j * 7 + 3) % 11) as f64 - 5.0).collect();
            let x_im: Vec<f64> = (0..n).map(|j| ((j * 5 + 1) % 13) as f64 * 0.25).collect();
            let (mut re, mut im) = (x_re.clone(), x_im.clone());
            let plan = Fft::new(n);
            plan.forward(&mut re, &mut im);
            for m in 0..n {
                let (mut sr, mut si) = (0.0, 0.0);
                for j in 0..n {
                    let (s, c) = (-2.0 * PI * (j * m) as f64 / n as f64).sin_cos();
                    sr += x_re[j] * c - x_im[j] * s;
                    si += x_re[j] * s + x_im[j] * c;
                }
                assert!((re[m] - sr).abs() < 1e-12 && (im[m] - si).abs() < 1e-12, "n={n} m={m}");
            }
            plan.inverse(&mut re, &mut im);
            for j in 0..n {
                assert!((re[j] - x_re[j]).abs() < 1e-13 && (im[j] - x_im[j]).abs() < 1e-13);
            }
        }
    }
}
