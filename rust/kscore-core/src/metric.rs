//! The metric table: every finite-bank metric once, with its name, its
//! aliases, what it needs besides k, and its credit vector at budget k
//! (docs/kernels.md, K1-K2). The binding parses names against this table,
//! `kscore.counts` and the curves build credits from it; adding a finite-bank
//! metric is adding a variant and a row here (CONTRIBUTING.md).

use crate::error::{Error, Result};
use crate::finite::credit::Credit;

/// A finite-bank metric: the credit vector `A_0..=A_k` at each budget k.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Pass@k: at least one of k draws correct.
    Pass,
    /// Pass^k (Unanimous@k, G-Pass@k with tau = 1): all k correct.
    PassHat,
    /// G-Pass@k_tau: at least `j0(tau, k)` correct.
    Tau,
    /// Maj@k: a strict majority of k correct.
    Majority,
    /// mG-Pass@k: the mean G-Pass over tau in [1/2, 1].
    Mg,
    /// AUC@k: the trapezoid area under Pass@1..Pass@k.
    Auc,
    /// The threshold spectrum `sum_r w_r P(at least r of k correct)`.
    Spectrum,
}

/// What a metric needs besides the budget k.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    Nothing,
    Tau,
    /// Weights `w_1..w_k`: one set per k, so the metric has no curve.
    Weights,
}

/// One row of the table.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub metric: Metric,
    /// The name `kscore.eval` and `kscore.counts` use.
    pub name: &'static str,
    /// Other names of the same metric.
    pub aliases: &'static [&'static str],
    pub needs: Needs,
}

/// Every finite-bank metric, in the order of scorio's API.
pub const TABLE: &[Row] = &[
    Row {
        metric: Metric::Pass,
        name: "pass_at_k",
        aliases: &[],
        needs: Needs::Nothing,
    },
    Row {
        metric: Metric::PassHat,
        name: "pass_hat_k",
        aliases: &["unanimous_at_k", "g_pass_at_k"],
        needs: Needs::Nothing,
    },
    Row {
        metric: Metric::Tau,
        name: "g_pass_at_k_tau",
        aliases: &[],
        needs: Needs::Tau,
    },
    Row {
        metric: Metric::Mg,
        name: "mg_pass_at_k",
        aliases: &[],
        needs: Needs::Nothing,
    },
    Row {
        metric: Metric::Majority,
        name: "maj_at_k",
        aliases: &[],
        needs: Needs::Nothing,
    },
    Row {
        metric: Metric::Auc,
        name: "auc_at_k",
        aliases: &[],
        needs: Needs::Nothing,
    },
    Row {
        metric: Metric::Spectrum,
        name: "threshold_spectrum_at_k",
        aliases: &[],
        needs: Needs::Weights,
    },
];

impl Metric {
    /// The metric a name or alias stands for.
    pub fn parse(name: &str) -> Option<Metric> {
        TABLE
            .iter()
            .find(|r| r.name == name || r.aliases.contains(&name))
            .map(|r| r.metric)
    }

    /// This metric's row.
    pub fn row(self) -> &'static Row {
        TABLE.iter().find(|r| r.metric == self).expect("every metric has a row")
    }

    /// Whether the metric is defined for every budget from one set of
    /// arguments (so it has a curve over k).
    pub fn has_curve(self) -> bool {
        self.row().needs != Needs::Weights
    }

    /// The credit vector at budget k; `tau` is read by `Tau` only, `weights`
    /// (length k, validated by the caller) by `Spectrum` only.
    pub fn credit(self, k: u64, tau: f64, weights: &[f64]) -> Result<Credit> {
        Ok(match self {
            Metric::Pass => Credit::pass(k),
            Metric::PassHat => Credit::unanimous(k),
            Metric::Tau => Credit::tau(k, tau),
            Metric::Majority => Credit::majority(k),
            Metric::Mg => Credit::mg(k),
            Metric::Auc => Credit::auc(k),
            Metric::Spectrum => {
                if weights.len() as u64 != k {
                    return Err(Error::value(format!(
                        "weights must have length k = {k}; got {}",
                        weights.len()
                    )));
                }
                Credit::spectrum(weights)?
            }
        })
    }
}

/// Every name and alias, in table order (the binding exposes this list; the
/// Python `Literal` types are tested against it).
pub fn names() -> Vec<&'static str> {
    TABLE
        .iter()
        .flat_map(|r| std::iter::once(r.name).chain(r.aliases.iter().copied()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_parse_to_their_row() {
        for row in TABLE {
            assert_eq!(Metric::parse(row.name), Some(row.metric));
            for alias in row.aliases {
                assert_eq!(Metric::parse(alias), Some(row.metric));
            }
            assert_eq!(row.metric.row().name, row.name);
        }
        assert_eq!(Metric::parse("unanimous_at_k"), Some(Metric::PassHat));
        assert_eq!(Metric::parse("pass@k"), None);
        let names = names();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "a name is listed twice");
    }

    #[test]
    fn credits_are_the_named_constructors() {
        assert_eq!(Metric::Pass.credit(5, 0.0, &[]).unwrap(), Credit::pass(5));
        assert_eq!(Metric::Tau.credit(5, 0.4, &[]).unwrap(), Credit::tau(5, 0.4));
        assert_eq!(
            Metric::Spectrum.credit(2, 0.0, &[0.5, 0.5]).unwrap(),
            Credit::spectrum(&[0.5, 0.5]).unwrap()
        );
        assert!(Metric::Spectrum.credit(3, 0.0, &[0.5]).is_err());
        assert!(!Metric::Spectrum.has_curve() && Metric::Auc.has_curve());
    }
}
