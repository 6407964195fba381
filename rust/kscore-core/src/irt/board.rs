//! Checks of a count matrix before a joint fit.
//!
//! A joint maximum-likelihood estimate of the logistic person/item models
//! (Rasch, 2PL, 3PL) is finite iff there is no direction in which every
//! cell's fit improves or stays: no `(d_theta, d_b)`, other than a common
//! shift, with `d_theta_l >= d_b_m` on every all-correct cell, `<=` on
//! every all-wrong cell and `=` on every mixed one. Draw an edge person ->
//! item for every cell with a failure and item -> person for every cell
//! with a success: such a direction is non-decreasing along every edge, so
//! it exists iff the graph is not strongly connected (the nodes reachable
//! from any node take 1, the rest 0). This is the condition of Fischer
//! (1981) for the Rasch model, and what scorio checks with a linear
//! program over the `L M` cells (`_require_no_fixed_effect_separation`);
//! here it is two graph searches, `O(L M)`.

use super::Count;
use crate::cancel;
use crate::error::Result;

/// Whether the person/item response graph of `k` (`l x m`, row-major,
/// counts out of `n`) is strongly connected: no complete or quasi-separation.
pub fn strongly_connected<T: Count>(k: &[T], l: usize, m: usize, n: u32) -> Result<bool> {
    if l == 0 || m == 0 {
        return Ok(true);
    }
    // Forward: person -> item on a failure, item -> person on a success;
    // the reverse graph swaps the two.
    Ok(reaches_all(k, l, m, |c| c < n, |c| c > 0)? && reaches_all(k, l, m, |c| c > 0, |c| c < n)?)
}

/// Whether person 0 reaches every node, with edges person -> item where
/// `to_item(count)` and item -> person where `to_person(count)`.
fn reaches_all<T: Count>(
    k: &[T],
    l: usize,
    m: usize,
    to_item: impl Fn(u32) -> bool,
    to_person: impl Fn(u32) -> bool,
) -> Result<bool> {
    let mut open_items: Vec<usize> = (0..m).collect();
    let mut open_persons: Vec<usize> = (1..l).collect();
    let mut persons = vec![0usize];
    let mut items: Vec<usize> = Vec::new();
    loop {
        if let Some(p) = persons.pop() {
            let row = &k[p * m..(p + 1) * m];
            open_items.retain(|&i| {
                let reached = to_item(row[i].get());
                if reached {
                    items.push(i);
                }
                !reached
            });
        } else if let Some(i) = items.pop() {
            open_persons.retain(|&p| {
                let reached = to_person(k[p * m + i].get());
                if reached {
                    persons.push(p);
                }
                !reached
            });
        } else {
            break;
        }
        if open_items.is_empty() && open_persons.is_empty() {
            return Ok(true);
        }
        cancel::check()?;
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sc(rows: &[&[u8]], n: u32) -> bool {
        let m = rows[0].len();
        let k: Vec<u8> = rows.iter().flat_map(|r| r.iter().copied()).collect();
        strongly_connected(&k, rows.len(), m, n).unwrap()
    }

    #[test]
    fn mixed_cells_connect_everything() {
        assert!(sc(&[&[1, 1], &[1, 1]], 2));
    }

    #[test]
    fn a_guttman_pattern_is_separated() {
        // Person 0 solves both, person 1 only item 0: the 2x2 Guttman
        // pattern has no finite estimate (abilities drift apart).
        assert!(!sc(&[&[1, 1], &[1, 0]], 1));
        assert!(!sc(&[&[1, 0], &[1, 0]], 1));
    }

    #[test]
    fn a_cycle_connects() {
        // 0 beats item 0, loses item 1; 1 the reverse: a cycle through all four.
        assert!(sc(&[&[1, 0], &[0, 1]], 1));
        // scorio's docstring board: every node reaches every other.
        assert!(sc(&[&[1, 0, 0, 1], &[0, 1, 0, 0], &[0, 0, 1, 0]], 1));
    }
}
