//! Exact Kemeny-Young aggregation of a preference matrix, with scorio's
//! tie-aware preorder: the pairs (i above j) that hold in every optimal
//! order.
//!
//! An order's Kemeny score is the sum of P[i, j] over the pairs it puts i
//! above j; with y_ij + y_ji = 1 this is a constant plus the sum of the
//! margins P[i, j] - P[j, i] it agrees with, so the optimal orders are those
//! whose reversed majority arcs (i -> j where P[i, j] > P[j, i], weighted by
//! the margin) weigh least: minimum feedback arc sets of the majority
//! digraph D (pairs with a zero margin cost nothing either way).
//!
//! The search, exact in integers (twice the margins, as P holds halves):
//!
//! 1. D's strongly connected components. An order reverses no arc between
//!    two components when it keeps them in the condensation's order, so the
//!    optimum is the sum of each component's own optimum, and the optimal
//!    orders are exactly those that keep every arc between components and
//!    order each component optimally (any mix of the components' optimal
//!    orders is acyclic with the arcs between them).
//! 2. In a component of s > 1 models (s >= 3: D has no 2-cycles), a dynamic
//!    programme over its 2^s subsets: F(S), the least weight reversed inside
//!    S, over S as the top of an order, and the optimal prefixes, the sets S
//!    with F(S) + F(rest) + arcs(rest -> S) = F(all). A pair j above i
//!    appears in some optimal order of the component iff some optimal
//!    prefix holds j and not i. Components above `MAX_COMPONENT` models are
//!    refused (`Outcome::TooLarge`): 2^22 subsets take 32 MB and about a
//!    second.
//! 3. Across components, i (in A) is above j (in B) in every optimal order
//!    iff, whichever optimal order each component takes, j is reachable from
//!    i along the arcs between components and down the components' orders.
//!    An adversary keeps j out of i's reach by choosing, in each component
//!    that i's reach enters (at its entry models E), an optimal prefix P
//!    avoiding E and as large as possible (the reach takes the component
//!    minus P); the search goes through the components in topological order,
//!    branching over the inclusion-maximal such prefixes, and the models
//!    forced below i are those in i's reach on every branch.
//!
//! scorio solves the same problem as a MILP with HiGHS, once for the optimum
//! and once more per pair for the tie-aware preorder.

use std::time::Instant;

use crate::cancel;
use crate::error::Result;

/// The largest strongly connected component searched exactly.
pub const MAX_COMPONENT: usize = 22;

/// Branches of the cross-component search per model, at most.
const MAX_BRANCHES: usize = 1 << 16;

/// The search's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// `forced[i * n + j]`: i above j in every optimal order (tie-aware);
    /// `order`: one optimal order, best first (the smallest index first
    /// wherever optimal orders differ).
    Solved { forced: Vec<bool>, order: Vec<usize> },
    /// A component of `size` models exceeds `MAX_COMPONENT`, or the
    /// cross-component search branches too much.
    TooLarge { size: usize },
    /// The deadline passed.
    TimeLimit,
}

/// Bitsets over models.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Self {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn has(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
    fn meets(&self, o: &Bits) -> bool {
        self.0.iter().zip(&o.0).any(|(a, b)| a & b != 0)
    }
    fn and(&mut self, o: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a &= b;
        }
    }
    fn contains(&self, o: &Bits) -> bool {
        self.0.iter().zip(&o.0).all(|(a, b)| b & !a == 0)
    }
}

/// One strongly connected component: its models (ascending), its optimal
/// prefixes as masks over those, and one optimal order (local indices).
struct Component {
    models: Vec<usize>,
    prefixes: Vec<u32>,
    order: Vec<usize>,
}

/// Kemeny-Young on the integer margins `margin` (n x n, row-major,
/// antisymmetric): the tie-aware preorder and one optimal order.
pub fn kemeny(margin: &[i64], n: usize, deadline: Option<Instant>) -> Result<Outcome> {
    debug_assert_eq!(margin.len(), n * n);
    let timed_out = || deadline.is_some_and(|d| Instant::now() >= d);
    let comp_of = components(margin, n);
    let count = comp_of.iter().copied().max().map_or(0, |c| c + 1);
    // Tarjan numbers components in reverse topological order: flip them so
    // that component 0 is a source.
    let comp_of: Vec<usize> = comp_of.iter().map(|&c| count - 1 - c).collect();
    let mut members = vec![Vec::new(); count];
    for (v, &c) in comp_of.iter().enumerate() {
        members[c].push(v);
    }
    if let Some(big) = members.iter().map(Vec::len).find(|&s| s > MAX_COMPONENT) {
        return Ok(Outcome::TooLarge { size: big });
    }
    let mut comps = Vec::with_capacity(count);
    for models in members {
        cancel::check()?;
        if timed_out() {
            return Ok(Outcome::TimeLimit);
        }
        match component(margin, n, models, &timed_out)? {
            Some(c) => comps.push(c),
            None => return Ok(Outcome::TimeLimit),
        }
    }
    // preds[x]: the models with an arc into x.
    let mut preds = vec![Bits::new(n); n];
    for i in 0..n {
        for j in 0..n {
            if margin[i * n + j] > 0 {
                preds[j].set(i);
            }
        }
    }
    let mut forced = vec![false; n * n];
    for comp in &comps {
        same_component(comp, n, &mut forced);
    }
    for i in 0..n {
        cancel::check()?;
        if timed_out() {
            return Ok(Outcome::TimeLimit);
        }
        match below(i, &comp_of, &comps, &preds, n) {
            Some(row) => {
                for j in 0..n {
                    if comp_of[j] != comp_of[i] && row.has(j) {
                        forced[i * n + j] = true;
                    }
                }
            }
            None => return Ok(Outcome::TooLarge { size: n }),
        }
    }
    let order = one_order(margin, n, &comp_of, &comps);
    Ok(Outcome::Solved { forced, order })
}

/// Tarjan's strongly connected components of the arcs margin > 0 (an
/// iterative walk): the component of each model, numbered in reverse
/// topological order.
fn components(margin: &[i64], n: usize) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut comp = vec![NONE; n];
    let mut next_index = 0;
    let mut next_comp = 0;
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        // (model, next neighbour to look at)
        let mut walk = vec![(root, 0usize)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut k)) = walk.last_mut() {
            if *k < n {
                let w = *k;
                *k += 1;
                if margin[v * n + w] <= 0 {
                    continue;
                }
                if index[w] == NONE {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    walk.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                walk.pop();
                if let Some(&(u, _)) = walk.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = next_comp;
                        if w == v {
                            break;
                        }
                    }
                    next_comp += 1;
                }
            }
        }
    }
    comp
}

/// The dynamic programme of one component (None: the deadline passed).
fn component(margin: &[i64], n: usize, models: Vec<usize>, timed_out: &dyn Fn() -> bool) -> Result<Option<Component>> {
    let s = models.len();
    if s == 1 {
        return Ok(Some(Component {
            models,
            prefixes: vec![0, 1],
            order: vec![0],
        }));
    }
    // w[x][y] > 0: x beats y by that (doubled) margin.
    let w: Vec<Vec<u64>> = models
        .iter()
        .map(|&x| models.iter().map(|&y| margin[x * n + y].max(0) as u64).collect())
        .collect();
    let h = s / 2;
    let (lo_size, hi_size) = (1usize << h, 1usize << (s - h));
    // c(x, S) = lo[x][S & lo_mask] + hi[x][S >> h]: x's arcs into S.
    let mut lo = vec![vec![0u64; lo_size]; s];
    let mut hi = vec![vec![0u64; hi_size]; s];
    for x in 0..s {
        for m in 1..lo_size {
            let y = m.trailing_zeros() as usize;
            lo[x][m] = lo[x][m & (m - 1)] + w[x][y];
        }
        for m in 1..hi_size {
            let y = h + m.trailing_zeros() as usize;
            hi[x][m] = hi[x][m & (m - 1)] + w[x][y];
        }
    }
    let lo_mask = lo_size - 1;
    let into = |x: usize, set: usize| lo[x][set & lo_mask] + hi[x][set >> h];
    let full = (1usize << s) - 1;
    let mut f = vec![0u64; full + 1];
    for set in 1..=full {
        if set & 0xffff == 0 && (cancel::stopping() || timed_out()) {
            cancel::check()?;
            return Ok(None);
        }
        let mut best = u64::MAX;
        let mut rest = set;
        while rest != 0 {
            let x = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let without = set & !(1 << x);
            best = best.min(f[without] + into(x, without));
        }
        f[set] = best;
    }
    let opt = f[full];
    let mut prefixes = Vec::new();
    for set in 0..=full {
        let mut cut = 0;
        let mut rest = full & !set;
        while rest != 0 {
            let x = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            cut += into(x, set);
        }
        if f[set] + f[full & !set] + cut == opt {
            prefixes.push(set as u32);
        }
    }
    // One optimal order, top down: the smallest model that keeps the chain
    // of prefixes optimal.
    let optimal = |set: usize| prefixes.binary_search(&(set as u32)).is_ok();
    let mut order = Vec::with_capacity(s);
    let mut set = 0usize;
    for _ in 0..s {
        let x = (0..s)
            .find(|&x| set >> x & 1 == 0 && f[set | 1 << x] == f[set] + into(x, set) && optimal(set | 1 << x))
            .unwrap_or_else(|| (0..s).find(|&x| set >> x & 1 == 0).unwrap_or(0));
        order.push(x);
        set |= 1 << x;
    }
    Ok(Some(Component {
        models,
        prefixes,
        order,
    }))
}

/// The forced pairs inside a component: i above j unless some optimal
/// prefix holds j and not i.
fn same_component(comp: &Component, n: usize, forced: &mut [bool]) {
    let s = comp.models.len();
    if s < 2 {
        return;
    }
    let full = (1u32 << s) - 1;
    // may_top[j]: the models i such that j can be above i.
    let mut may_top = vec![0u32; s];
    for &p in &comp.prefixes {
        let mut rest = p;
        while rest != 0 {
            let j = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            may_top[j] |= full & !p;
        }
    }
    for (a, &i) in comp.models.iter().enumerate() {
        for (b, &j) in comp.models.iter().enumerate() {
            if a != b && may_top[b] >> a & 1 == 0 {
                forced[i * n + j] = true;
            }
        }
    }
}

/// The models below i in every optimal order (in other components), or
/// None if the search branches too much.
fn below(i: usize, comp_of: &[usize], comps: &[Component], preds: &[Bits], n: usize) -> Option<Bits> {
    let start = comp_of[i];
    let mut result: Option<Bits> = None;
    let mut leaves = 0usize;
    // Depth-first over (next component, reach so far), from i's component
    // entered at i.
    let a = &comps[start];
    let local = a.models.iter().position(|&m| m == i).unwrap_or(0);
    let mut stack = Vec::new();
    for p in maximal_avoiding(&a.prefixes, 1 << local) {
        let mut reach = Bits::new(n);
        add_rest(&mut reach, a, p);
        stack.push((start + 1, reach));
    }
    while let Some((c, reach)) = stack.pop() {
        // Prune: this branch's final reach contains `reach`, so it cannot
        // shrink a running intersection that `reach` already covers.
        if let Some(r) = &result {
            if reach.contains(r) {
                continue;
            }
        }
        if c == comps.len() {
            leaves += 1;
            if leaves > MAX_BRANCHES {
                return None;
            }
            match &mut result {
                Some(r) => r.and(&reach),
                None => result = Some(reach),
            }
            continue;
        }
        let comp = &comps[c];
        let mut entry = 0u32;
        for (b, &x) in comp.models.iter().enumerate() {
            if preds[x].meets(&reach) {
                entry |= 1 << b;
            }
        }
        if entry == 0 {
            stack.push((c + 1, reach));
            continue;
        }
        let options = maximal_avoiding(&comp.prefixes, entry);
        for p in options {
            let mut next = reach.clone();
            add_rest(&mut next, comp, p);
            stack.push((c + 1, next));
        }
    }
    result
}

/// The component's models outside the local mask `p`, added to `reach`.
fn add_rest(reach: &mut Bits, comp: &Component, p: u32) {
    for (b, &x) in comp.models.iter().enumerate() {
        if p >> b & 1 == 0 {
            reach.set(x);
        }
    }
}

/// The inclusion-maximal prefixes that avoid `entry`.
fn maximal_avoiding(prefixes: &[u32], entry: u32) -> Vec<u32> {
    let fit: Vec<u32> = prefixes.iter().copied().filter(|p| p & entry == 0).collect();
    fit.iter()
        .copied()
        .filter(|&p| !fit.iter().any(|&q| q != p && q & p == p))
        .collect()
}

/// One optimal order: the components' chosen orders and the arcs between
/// components, topologically sorted with the smallest model first.
fn one_order(margin: &[i64], n: usize, comp_of: &[usize], comps: &[Component]) -> Vec<usize> {
    let mut succ = vec![Vec::new(); n];
    let mut indeg = vec![0usize; n];
    for i in 0..n {
        for j in 0..n {
            if comp_of[i] != comp_of[j] && margin[i * n + j] > 0 {
                succ[i].push(j);
                indeg[j] += 1;
            }
        }
    }
    for comp in comps {
        for pair in comp.order.windows(2) {
            let (a, b) = (comp.models[pair[0]], comp.models[pair[1]]);
            succ[a].push(b);
            indeg[b] += 1;
        }
    }
    let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<usize>> =
        (0..n).filter(|&v| indeg[v] == 0).map(std::cmp::Reverse).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(std::cmp::Reverse(v)) = ready.pop() {
        order.push(v);
        for &u in &succ[v] {
            indeg[u] -= 1;
            if indeg[u] == 0 {
                ready.push(std::cmp::Reverse(u));
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every permutation's reversal cost: the optimum, and the forced pairs.
    fn brute(margin: &[i64], n: usize) -> (u64, Vec<bool>, Vec<Vec<usize>>) {
        let mut perm: Vec<usize> = (0..n).collect();
        let mut best = u64::MAX;
        let mut optimal = Vec::new();
        loop {
            let mut cost = 0u64;
            for a in 0..n {
                for b in (a + 1)..n {
                    // perm[a] above perm[b]: reversed if perm[b] beats perm[a]
                    cost += margin[perm[b] * n + perm[a]].max(0) as u64;
                }
            }
            if cost < best {
                best = cost;
                optimal.clear();
            }
            if cost == best {
                optimal.push(perm.clone());
            }
            // next permutation
            let Some(k) = (0..n.saturating_sub(1)).rev().find(|&k| perm[k] < perm[k + 1]) else {
                break;
            };
            let l = (k + 1..n).rev().find(|&l| perm[k] < perm[l]).unwrap_or(k + 1);
            perm.swap(k, l);
            perm[k + 1..].reverse();
        }
        let mut forced = vec![true; n * n];
        for i in 0..n {
            forced[i * n + i] = false;
        }
        for o in &optimal {
            for a in 0..n {
                for b in (a + 1)..n {
                    forced[o[b] * n + o[a]] = false; // o[a] above o[b] happens
                }
            }
        }
        (best, forced, optimal)
    }

    fn random_margins(n: usize, seed: u64, zero_every: u64) -> Vec<i64> {
        let mut x = seed | 1;
        let mut m = vec![0i64; n * n];
        for i in 0..n {
            for j in (i + 1)..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let v = if x.is_multiple_of(zero_every) {
                    0
                } else {
                    (x % 7) as i64 - 3
                };
                m[i * n + j] = v;
                m[j * n + i] = -v;
            }
        }
        m
    }

    fn cost(margin: &[i64], n: usize, order: &[usize]) -> u64 {
        let mut c = 0;
        for a in 0..n {
            for b in (a + 1)..n {
                c += margin[order[b] * n + order[a]].max(0) as u64;
            }
        }
        c
    }

    #[test]
    fn matches_enumeration_of_every_order() {
        for n in 2..=8 {
            for seed in 0..40u64 {
                let margin = random_margins(n, seed * 7919 + n as u64, 3 + seed % 5);
                let (best, forced, _) = brute(&margin, n);
                let Outcome::Solved { forced: got, order } = kemeny(&margin, n, None).unwrap() else {
                    panic!("not solved")
                };
                assert_eq!(got, forced, "n={n} seed={seed} margins={margin:?}");
                assert_eq!(cost(&margin, n, &order), best);
                let mut sorted = order.clone();
                sorted.sort();
                assert_eq!(sorted, (0..n).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn chains_of_cycles_match_enumeration() {
        // Several 3-cycles linked by arcs and zero margins: the cross-component
        // search must branch.
        let n = 8;
        for seed in 0..200u64 {
            let mut margin = random_margins(n, seed * 31 + 5, 2);
            // make {0,1,2} and {4,5,6} cycles
            for &(a, b) in &[(0, 1), (1, 2), (2, 0), (4, 5), (5, 6), (6, 4)] {
                let v = 1 + (seed % 3) as i64;
                margin[a * n + b] = v;
                margin[b * n + a] = -v;
            }
            let (_, forced, _) = brute(&margin, n);
            let Outcome::Solved { forced: got, .. } = kemeny(&margin, n, None).unwrap() else {
                panic!()
            };
            assert_eq!(got, forced, "seed={seed}");
        }
    }

    #[test]
    fn large_components_are_refused() {
        let n = MAX_COMPONENT + 1;
        // A cycle through every model: 0 -> 1 -> ... -> n-1 -> 0.
        let mut margin = vec![0i64; n * n];
        for i in 0..n {
            let j = (i + 1) % n;
            margin[i * n + j] = 1;
            margin[j * n + i] = -1;
        }
        assert_eq!(kemeny(&margin, n, None).unwrap(), Outcome::TooLarge { size: n });
    }
}
