//! The graph steps of scorio.rank's Condorcet rules on a preference matrix
//! P (models x models, row-major: P[i, j] questions preferring i to j, ties
//! split or not), each the same relation scorio's Python loops build:
//!
//! - `strongest_paths`: Schulze's beatpath strengths (a Floyd-Warshall
//!   closure of bottleneck strengths, in scorio's loop order; maxima and
//!   minima are exact, so the order does not change a bit).
//! - `lock_pairs`: Tideman's ranked pairs, victories locked strongest first
//!   unless they close a cycle. scorio searches the locked graph from the
//!   loser for every victory (a Python depth-first search); here the
//!   transitive closure of the locked graph is kept as one bitset per model
//!   and updated when an edge is locked, so a cycle test is one bit.
//! - `level_scores`: scorio's `_topological_level_scores`: peel the models
//!   with no remaining predecessor, level by level, the first level scoring
//!   L, the next L - 1, ...; a cycle left over (none for the DAGs above)
//!   ties the rest.
//! - `majority_groups`: majority judgment's classes of models from their
//!   per-question grades (see there).

/// Schulze's strongest-path matrix: p[i, j] = P[i, j] where P[i, j] >
/// P[j, i], else 0, closed under p[j, k] = max(p[j, k], min(p[j, i], p[i, k])).
pub fn strongest_paths(pref: &[f64], n: usize) -> Vec<f64> {
    debug_assert_eq!(pref.len(), n * n);
    let mut p = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            if i != j && pref[i * n + j] > pref[j * n + i] {
                p[i * n + j] = pref[i * n + j];
            }
        }
    }
    let mut via = vec![0.0; n];
    for i in 0..n {
        // Row i and column i do not change while i is the intermediate
        // (their updates would take min with p[i, i] = 0 or skip k == i).
        via.copy_from_slice(&p[i * n..(i + 1) * n]);
        for j in 0..n {
            let pji = p[j * n + i];
            if j == i || pji <= 0.0 {
                continue; // min(0, .) = 0 never raises a strength
            }
            let row = &mut p[j * n..(j + 1) * n];
            for (k, (x, &v)) in row.iter_mut().zip(&via).enumerate() {
                if k != i && k != j {
                    let m = if pji < v { pji } else { v };
                    if m > *x {
                        *x = m;
                    }
                }
            }
        }
    }
    p
}

/// Ranked pairs: the locked edges (models x models, row-major; true where
/// winner i is locked over loser j). `strength_by_votes`: the primary key is
/// the winning votes P[w, l] instead of the margin |P[i, j] - P[j, i]|;
/// ties fall to winning votes, then the winner's and the loser's index.
pub fn lock_pairs(pref: &[f64], n: usize, strength_by_votes: bool) -> Vec<bool> {
    debug_assert_eq!(pref.len(), n * n);
    let mut victories: Vec<(f64, f64, usize, usize)> = Vec::new();
    for i in 0..n {
        for j in (i + 1)..n {
            let margin = pref[i * n + j] - pref[j * n + i];
            if margin == 0.0 {
                continue;
            }
            let (w, l) = if margin > 0.0 { (i, j) } else { (j, i) };
            let votes = pref[w * n + l];
            let primary = if strength_by_votes { votes } else { margin.abs() };
            victories.push((primary, votes, w, l));
        }
    }
    victories.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(b.1.total_cmp(&a.1))
            .then(a.2.cmp(&b.2))
            .then(a.3.cmp(&b.3))
    });
    let words = n.div_ceil(64);
    // reach[a] holds b when the locked graph has a path a -> ... -> b (a too).
    let mut reach = vec![0u64; n * words];
    for a in 0..n {
        reach[a * words + a / 64] |= 1 << (a % 64);
    }
    let mut locked = vec![false; n * n];
    for &(_, _, w, l) in &victories {
        if reach[l * words + w / 64] >> (w % 64) & 1 == 1 {
            continue; // l already reaches w: w -> l would close a cycle
        }
        locked[w * n + l] = true;
        let target: Vec<u64> = reach[l * words..(l + 1) * words].to_vec();
        for a in 0..n {
            if reach[a * words + w / 64] >> (w % 64) & 1 == 1 {
                for (x, &t) in reach[a * words..(a + 1) * words].iter_mut().zip(&target) {
                    *x |= t;
                }
            }
        }
    }
    locked
}

/// scorio's `_topological_level_scores` of the relation `adj` (models x
/// models, row-major; adj[i, j]: i ranks above j).
pub fn level_scores(adj: &[bool], n: usize) -> Vec<f64> {
    debug_assert_eq!(adj.len(), n * n);
    let mut indeg = vec![0usize; n];
    for i in 0..n {
        for j in 0..n {
            indeg[j] += adj[i * n + j] as usize;
        }
    }
    let mut remaining = vec![true; n];
    let mut left = n;
    let mut scores = vec![0.0; n];
    let mut current = n as f64;
    while left > 0 {
        let level: Vec<usize> = (0..n).filter(|&v| remaining[v] && indeg[v] == 0).collect();
        if level.is_empty() {
            for v in 0..n {
                if remaining[v] {
                    scores[v] = current;
                }
            }
            break;
        }
        for &u in &level {
            scores[u] = current;
            remaining[u] = false;
        }
        left -= level.len();
        current -= 1.0;
        for &u in &level {
            for v in 0..n {
                if adj[u * n + v] {
                    indeg[v] -= 1;
                }
            }
        }
    }
    scores
}

/// The positions of a sorted list of `m` grades in the order the iterative
/// lower median removes them: always the last of the lower part or the
/// first of the upper part.
pub fn median_order(m: usize) -> Vec<usize> {
    let mut order = Vec::with_capacity(m);
    if m == 0 {
        return order;
    }
    let mut lo = (m as isize - 1) / 2;
    let mut hi = lo + 1;
    order.push(lo as usize);
    lo -= 1;
    for t in (1..m as isize).rev() {
        if (t - 1) / 2 <= lo {
            order.push(lo as usize);
            lo -= 1;
        } else {
            order.push(hi as usize);
            hi += 1;
        }
    }
    order
}

/// Majority judgment's classes: `levels` (models x questions, row-major,
/// grades `0..=trials`); each model's key is its grades sorted and read in
/// the median-removal order (scorio's comparison removes one median grade
/// from both models until the medians differ: the first key position where
/// two keys differ), and models are grouped by equal keys. Returns each
/// model's class, 0 for the lowest key, ascending with the key.
///
/// A sorted row is its histogram's runs (no sort), and the keys are
/// compared as byte strings.
pub fn majority_groups(levels: &[u8], models: usize, questions: usize, trials: usize) -> Vec<usize> {
    debug_assert_eq!(levels.len(), models * questions);
    let order = median_order(questions);
    let mut keys = vec![0u8; models * questions];
    let mut sorted = vec![0u8; questions];
    let mut counts = vec![0usize; trials + 1];
    for (row, key) in levels
        .chunks_exact(questions.max(1))
        .zip(keys.chunks_exact_mut(questions.max(1)))
    {
        counts.iter_mut().for_each(|c| *c = 0);
        for &g in row {
            counts[(g as usize).min(trials)] += 1;
        }
        let mut at = 0;
        for (g, &c) in counts.iter().enumerate() {
            sorted[at..at + c].fill(g as u8);
            at += c;
        }
        for (k, &p) in key.iter_mut().zip(&order) {
            *k = sorted[p];
        }
    }
    let key = |l: usize| &keys[l * questions..(l + 1) * questions];
    let mut by_key: Vec<usize> = (0..models).collect();
    by_key.sort_by(|&a, &b| key(a).cmp(key(b)));
    let mut group = vec![0usize; models];
    let mut class = 0;
    for pair in by_key.windows(2) {
        if key(pair[1]) != key(pair[0]) {
            class += 1;
        }
        group[pair[1]] = class;
    }
    group
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pref(n: usize, seed: u64) -> Vec<f64> {
        let mut x = seed | 1;
        let mut p = vec![0.0; n * n];
        for i in 0..n {
            for j in (i + 1)..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let m = 20.0;
                let a = (x % 21) as f64;
                p[i * n + j] = a;
                p[j * n + i] = m - a;
            }
        }
        p
    }

    /// The transcription of scorio's triple loop.
    fn schulze_naive(pref: &[f64], n: usize) -> Vec<f64> {
        let mut p = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                if i != j && pref[i * n + j] > pref[j * n + i] {
                    p[i * n + j] = pref[i * n + j];
                }
            }
        }
        for i in 0..n {
            for j in 0..n {
                if i == j {
                    continue;
                }
                for k in 0..n {
                    if i == k || j == k {
                        continue;
                    }
                    p[j * n + k] = p[j * n + k].max(p[j * n + i].min(p[i * n + k]));
                }
            }
        }
        p
    }

    /// scorio's lock loop with a depth-first search per victory.
    fn lock_naive(pref: &[f64], n: usize, votes: bool) -> Vec<bool> {
        let mut v = Vec::new();
        for i in 0..n {
            for j in (i + 1)..n {
                let m = pref[i * n + j] - pref[j * n + i];
                if m == 0.0 {
                    continue;
                }
                let (w, l) = if m > 0.0 { (i, j) } else { (j, i) };
                let wv = pref[w * n + l];
                v.push((if votes { wv } else { m.abs() }, wv, w, l));
            }
        }
        v.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then(b.1.total_cmp(&a.1))
                .then(a.2.cmp(&b.2))
                .then(a.3.cmp(&b.3))
        });
        let mut locked = vec![false; n * n];
        for (_, _, w, l) in v {
            let mut seen = vec![false; n];
            let mut stack = vec![l];
            seen[l] = true;
            let mut found = false;
            while let Some(u) = stack.pop() {
                if u == w {
                    found = true;
                    break;
                }
                for x in 0..n {
                    if locked[u * n + x] && !seen[x] {
                        seen[x] = true;
                        stack.push(x);
                    }
                }
            }
            if !found {
                locked[w * n + l] = true;
            }
        }
        locked
    }

    #[test]
    fn schulze_and_ranked_pairs_match_the_loops() {
        for n in [2, 3, 5, 9, 30, 70] {
            for seed in 1..6 {
                let p = pref(n, seed * 977 + n as u64);
                assert_eq!(strongest_paths(&p, n), schulze_naive(&p, n));
                for votes in [false, true] {
                    assert_eq!(lock_pairs(&p, n, votes), lock_naive(&p, n, votes));
                }
            }
        }
    }

    #[test]
    fn levels_peel_sources() {
        // 0 -> 1 -> 2, 3 alone: levels 4, 3, 2 and 4.
        let n = 4;
        let mut adj = vec![false; n * n];
        adj[1] = true;
        adj[n + 2] = true;
        assert_eq!(level_scores(&adj, n), vec![4.0, 3.0, 2.0, 4.0]);
        // A cycle ties what is left.
        adj[2 * n] = true;
        assert_eq!(level_scores(&adj, n), vec![3.0, 3.0, 3.0, 4.0]);
    }

    /// scorio's comparison: remove one lower-median grade from both
    /// histograms until the medians differ (1: a above b).
    fn scorio_compare(a: &[u8], b: &[u8], trials: usize) -> std::cmp::Ordering {
        let hist = |row: &[u8]| {
            let mut h = vec![0usize; trials + 1];
            row.iter().for_each(|&g| h[g as usize] += 1);
            h
        };
        let median = |h: &[usize], total: usize| {
            let target = (total - 1) / 2;
            let mut cum = 0;
            for (g, &c) in h.iter().enumerate() {
                cum += c;
                if cum > target {
                    return g;
                }
            }
            h.len() - 1
        };
        let (mut ha, mut hb) = (hist(a), hist(b));
        let mut total = a.len();
        while total > 0 {
            let (ga, gb) = (median(&ha, total), median(&hb, total));
            if ga != gb {
                return ga.cmp(&gb);
            }
            ha[ga] -= 1;
            hb[gb] -= 1;
            total -= 1;
        }
        std::cmp::Ordering::Equal
    }

    #[test]
    fn median_order_is_the_iterative_one() {
        for m in 0..40 {
            let mut remaining: Vec<usize> = (0..m).collect();
            let mut expected = vec![];
            while !remaining.is_empty() {
                expected.push(remaining.remove((remaining.len() - 1) / 2));
            }
            assert_eq!(median_order(m), expected);
        }
    }

    #[test]
    fn majority_groups_order_as_scorios_comparison() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for &(models, questions, trials) in &[(2, 1, 1), (6, 5, 2), (12, 9, 4), (30, 40, 3), (25, 7, 8), (9, 2, 1)] {
            for round in 0..20 {
                let levels: Vec<u8> = (0..models * questions)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        // Few distinct values in some rounds: many ties.
                        let span = if round % 2 == 0 { 2 } else { trials + 1 };
                        ((x % span as u64) as usize * trials / (span - 1).max(1)) as u8
                    })
                    .collect();
                let group = majority_groups(&levels, models, questions, trials);
                let row = |l: usize| &levels[l * questions..(l + 1) * questions];
                for (a, ga) in group.iter().enumerate() {
                    for (b, gb) in group.iter().enumerate() {
                        assert_eq!(
                            ga.cmp(gb),
                            scorio_compare(row(a), row(b), trials),
                            "{models} x {questions} x {trials}, models {a} {b}"
                        );
                    }
                }
                // Classes are 0..k with no gap.
                let most = group.iter().copied().max().unwrap_or(0);
                assert!((0..=most).all(|c| group.contains(&c)));
            }
        }
    }
}
