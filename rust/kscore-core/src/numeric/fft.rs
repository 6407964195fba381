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
    /// Per stage of half-length h (1, 2, 4, ..., n/2), `exp(-2 pi i j / 2h)`
    /// for `j < h`, contiguous at offset `h - 1`.
    tw_re: Vec<f64>,
    tw_im: Vec<f64>,
    rev: Vec<u32>,
    /// `exp(-2 pi i j / 2n)` for `j <= n`: the real transforms of length 2n.
    half_re: Vec<f64>,
    half_im: Vec<f64>,
}

impl Fft {
    /// A plan for length `n`, a power of two (at least 1).
    pub fn new(n: usize) -> Self {
        assert!(n.is_power_of_two(), "FFT length must be a power of two");
        let (mut tw_re, mut tw_im) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut h = 1;
        while h < n {
            for j in 0..h {
                // exp(-2 pi i j / 2h) = exp(-2 pi i (j n / 2h) / n): the same
                // angle as the length-n table at index j n / 2h.
                let (s, c) = (2.0 * PI * (j * (n / (2 * h))) as f64 / n as f64).sin_cos();
                tw_re.push(c);
                tw_im.push(-s);
            }
            h *= 2;
        }
        let bits = n.trailing_zeros();
        let rev = (0..n as u32)
            .map(|i| if bits == 0 { 0 } else { i.reverse_bits() >> (32 - bits) })
            .collect();
        let (mut half_re, mut half_im) = (Vec::with_capacity(n + 1), Vec::with_capacity(n + 1));
        for j in 0..=n {
            let (s, c) = (PI * j as f64 / n as f64).sin_cos();
            half_re.push(c);
            half_im.push(-s);
        }
        Fft {
            n,
            tw_re,
            tw_im,
            rev,
            half_re,
            half_im,
        }
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
        let mut half = 1;
        while half < n {
            let len = 2 * half;
            let (twr, twi) = (&self.tw_re[half - 1..len - 1], &self.tw_im[half - 1..len - 1]);
            for (block_re, block_im) in re.chunks_exact_mut(len).zip(im.chunks_exact_mut(len)) {
                let (lo_re, hi_re) = block_re.split_at_mut(half);
                let (lo_im, hi_im) = block_im.split_at_mut(half);
                let lanes = lo_re
                    .iter_mut()
                    .zip(lo_im.iter_mut())
                    .zip(hi_re.iter_mut().zip(hi_im.iter_mut()));
                for (((ur, ui), (xr, xi)), (&wr, &wi)) in lanes.zip(twr.iter().zip(twi)) {
                    let vr = *xr * wr - *xi * wi;
                    let vi = *xr * wi + *xi * wr;
                    let (a, b) = (*ur, *ui);
                    *ur = a + vr;
                    *ui = b + vi;
                    *xr = a - vr;
                    *xi = b - vi;
                }
            }
            half = len;
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

impl Fft {
    /// The spectrum `X_0..=X_n` of a real sequence of length 2n (`x` is
    /// zero-padded), by one complex transform of length n on
    /// `x_{2m} + i x_{2m+1}`; an all-zero `x` gives an exactly zero spectrum.
    pub fn real_forward(&self, x: &[f64], re: &mut Vec<f64>, im: &mut Vec<f64>) {
        let n = self.n;
        debug_assert!(x.len() <= 2 * n);
        let (mut zr, mut zi) = (vec![0.0; n], vec![0.0; n]);
        for (m, pair) in x.chunks(2).enumerate() {
            zr[m] = pair[0];
            zi[m] = pair.get(1).copied().unwrap_or(0.0);
        }
        self.forward(&mut zr, &mut zi);
        re.clear();
        im.clear();
        for j in 0..=n {
            let (ar, ai) = (zr[j % n], zi[j % n]);
            let (br, bi) = (zr[(n - j) % n], -zi[(n - j) % n]);
            // even part (Z_j + conj Z_{n-j}) / 2, odd part (Z_j - conj Z_{n-j}) / 2i
            let (er, ei) = (0.5 * (ar + br), 0.5 * (ai + bi));
            let (or, oi) = (0.5 * (ai - bi), -0.5 * (ar - br));
            let (wr, wi) = (self.half_re[j], self.half_im[j]);
            re.push(er + (or * wr - oi * wi));
            im.push(ei + (or * wi + oi * wr));
        }
    }

    /// The real sequence of length 2n whose spectrum is `X_0..=X_n` (the
    /// inverse of `real_forward`, scaled by `1/2n`).
    pub fn real_inverse(&self, re: &[f64], im: &[f64], out: &mut [f64]) {
        let n = self.n;
        let (mut zr, mut zi) = (vec![0.0; n], vec![0.0; n]);
        for j in 0..n {
            let (ar, ai) = (re[j], im[j]);
            let (br, bi) = (re[n - j], -im[n - j]);
            let (er, ei) = (0.5 * (ar + br), 0.5 * (ai + bi));
            // odd part: (X_j - conj X_{n-j}) exp(+2 pi i j / 2n) / 2
            let (dr, di) = (0.5 * (ar - br), 0.5 * (ai - bi));
            let (wr, wi) = (self.half_re[j], -self.half_im[j]);
            let (or, oi) = (dr * wr - di * wi, dr * wi + di * wr);
            // Z = E + i O
            zr[j] = er - oi;
            zi[j] = ei + or;
        }
        self.inverse(&mut zr, &mut zi);
        for m in 0..n {
            out[2 * m] = zr[m];
            out[2 * m + 1] = zi[m];
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

    #[test]
    fn real_transforms_match_complex_ones() {
        for n in [1usize, 2, 8, 32] {
            let x: Vec<f64> = (0..2 * n - 1).map(|j| ((j * 7 + 3) % 11) as f64 - 5.0).collect();
            let full = Fft::new(2 * n);
            let (mut re, mut im) = (vec![0.0; 2 * n], vec![0.0; 2 * n]);
            re[..x.len()].copy_from_slice(&x);
            full.forward(&mut re, &mut im);
            let half = Fft::new(n);
            let (mut hr, mut hi) = (Vec::new(), Vec::new());
            half.real_forward(&x, &mut hr, &mut hi);
            for j in 0..=n {
                assert!(
                    (hr[j] - re[j]).abs() < 1e-12 && (hi[j] - im[j]).abs() < 1e-12,
                    "n={n} j={j}"
                );
            }
            let mut back = vec![0.0; 2 * n];
            half.real_inverse(&hr, &hi, &mut back);
            for j in 0..x.len() {
                assert!((back[j] - x[j]).abs() < 1e-13, "n={n} j={j}");
            }
            assert!(back[2 * n - 1].abs() < 1e-13);
            let zeros = vec![0.0; 2 * n];
            half.real_forward(&zeros, &mut hr, &mut hi);
            assert!(hr.iter().chain(&hi).all(|&v| v == 0.0));
        }
    }
}
