//! The choice events of binary outcome rows: each event (a column: one
//! question and trial) splits the models into winners (right) and losers
//! (wrong); events where all or none are right are dropped (they carry no
//! choice), and events with the same winner set are counted once with
//! their multiplicity.

use std::collections::HashMap;

use crate::pairwise::counts::Packed;

/// Distinct winner sets (ascending model indices) with their counts, in
/// order of first appearance.
#[derive(Clone, Debug, Default)]
pub struct Events {
    pub models: usize,
    pub winners: Vec<Vec<u32>>,
    pub counts: Vec<f64>,
}

impl Events {
    /// The winner sets of packed rows (`numpy.packbits` bit order: the
    /// first outcome in a byte's high bit).
    pub fn of(rows: Packed) -> Events {
        let l = rows.rows;
        let words = l.div_ceil(64);
        let mut index: HashMap<Vec<u64>, usize> = HashMap::new();
        let mut out = Events {
            models: l,
            ..Events::default()
        };
        let mut mask = vec![0u64; words];
        for e in 0..rows.events {
            let (byte, bit) = (e / 8, 7 - (e % 8));
            mask.iter_mut().for_each(|w| *w = 0);
            let mut count = 0;
            for r in 0..l {
                if rows.data[r * rows.bytes + byte] >> bit & 1 == 1 {
                    mask[r / 64] |= 1 << (r % 64);
                    count += 1;
                }
            }
            if count == 0 || count == l {
                continue;
            }
            match index.get(&mask) {
                Some(&k) => out.counts[k] += 1.0,
                None => {
                    index.insert(mask.clone(), out.winners.len());
                    out.winners.push(
                        (0..l as u32)
                            .filter(|&r| mask[r as usize / 64] >> (r % 64) & 1 == 1)
                            .collect(),
                    );
                    out.counts.push(1.0);
                }
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.winners.is_empty()
    }

    /// The losers of winner set `k` (ascending).
    pub fn losers(&self, k: usize) -> Vec<u32> {
        let mut is_winner = vec![false; self.models];
        for &w in &self.winners[k] {
            is_winner[w as usize] = true;
        }
        (0..self.models as u32).filter(|&m| !is_winner[m as usize]).collect()
    }

    /// Events per number of winners: `out[t - 1]` for `t` winners.
    pub fn by_order(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.models];
        for (w, &c) in self.winners.iter().zip(&self.counts) {
            out[w.len() - 1] += c;
        }
        out
    }

    /// `memberships[m * models + t - 1]`: events that model `m` wins with
    /// `t` winners (scorio's Davidson-Luce equivalence statistics).
    pub fn memberships(&self) -> Vec<f64> {
        let l = self.models;
        let mut out = vec![0.0; l * l];
        for (w, &c) in self.winners.iter().zip(&self.counts) {
            for &m in w {
                out[m as usize * l + w.len() - 1] += c;
            }
        }
        out
    }

    /// Whether every model reaches every other along edges winner -> loser
    /// (and, with `co_winners`, between winners of one event both ways).
    pub fn strongly_connected(&self, co_winners: bool) -> bool {
        let l = self.models;
        if l <= 1 {
            return true;
        }
        let mut edge = vec![false; l * l];
        for k in 0..self.winners.len() {
            let losers = self.losers(k);
            for &w in &self.winners[k] {
                for &v in &losers {
                    edge[w as usize * l + v as usize] = true;
                }
                if co_winners {
                    for &v in &self.winners[k] {
                        edge[w as usize * l + v as usize] = true;
                    }
                }
            }
        }
        let reach = |forward: bool| {
            let mut seen = vec![false; l];
            let mut stack = vec![0usize];
            seen[0] = true;
            while let Some(a) = stack.pop() {
                for b in 0..l {
                    let e = if forward { edge[a * l + b] } else { edge[b * l + a] };
                    if e && !seen[b] {
                        seen[b] = true;
                        stack.push(b);
                    }
                }
            }
            seen.iter().all(|&s| s)
        };
        reach(true) && reach(false)
    }
}
