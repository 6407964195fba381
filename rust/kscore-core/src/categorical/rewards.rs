//! Reward rescaling (docs/kernels.md, K10): sums of rewards are taken in normalised units
//! `v̂ = (v - offset) / scale ∈ [-1, 1]` so that huge rewards (±1e308) stay
//! finite, and results are mapped back as `offset + scale * x`.

/// `offset`, `scale` and the normalised values of a reward vector.
#[derive(Clone, Debug, PartialEq)]
pub struct Rewards {
    pub offset: f64,
    /// `max |v - offset|`; 0 when every value equals `offset`.
    pub scale: f64,
    pub normalized: Vec<f64>,
}

impl Rewards {
    /// `offset = v[0]`, `scale = max |v - offset|`. If some difference
    /// overflows, fall back to `offset = 0`, `scale = max |v|`. A zero scale
    /// gives all-zero normalised values (the metric is the constant offset).
    /// `values` must be non-empty and finite.
    pub fn new(values: &[f64]) -> Self {
        let offset = values.first().copied().unwrap_or(0.0);
        let centered: Vec<f64> = values.iter().map(|&v| v - offset).collect();
        if centered.iter().all(|c| c.is_finite()) {
            let scale = centered.iter().fold(0.0f64, |m, c| m.max(c.abs()));
            if scale == 0.0 {
                return Rewards {
                    offset,
                    scale,
                    normalized: vec![0.0; values.len()],
                };
            }
            let normalized = centered.iter().map(|c| c / scale).collect();
            return Rewards {
                offset,
                scale,
                normalized,
            };
        }
        let scale = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let normalized = values.iter().map(|v| v / scale).collect();
        Rewards {
            offset: 0.0,
            scale,
            normalized,
        }
    }

    /// `offset + scale * x`.
    #[inline]
    pub fn restore(&self, x: f64) -> f64 {
        self.offset + self.scale * x
    }

    /// Successive differences of the normalised values (level gaps).
    pub fn gaps(&self) -> Vec<f64> {
        self.normalized.windows(2).map(|p| p[1] - p[0]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_by_first_value() {
        let r = Rewards::new(&[0.5, 0.0, 1.0]);
        assert_eq!((r.offset, r.scale), (0.5, 0.5));
        assert_eq!(r.normalized, vec![0.0, -1.0, 1.0]);
        assert_eq!(r.restore(1.0), 1.0);
    }

    #[test]
    fn huge_rewards_fall_back_to_zero_offset() {
        let r = Rewards::new(&[-1e308, 1e308]);
        assert_eq!((r.offset, r.scale), (0.0, 1e308));
        assert_eq!(r.normalized, vec![-1.0, 1.0]);
    }

    #[test]
    fn constant_rewards_have_zero_scale() {
        let r = Rewards::new(&[3.0, 3.0]);
        assert_eq!((r.offset, r.scale), (3.0, 0.0));
        assert_eq!(r.normalized, vec![0.0, 0.0]);
    }
}
