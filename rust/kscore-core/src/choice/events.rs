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
    ///
    /// The edges as bitsets (`out[a]`: the models `a` beats in some event,
    /// `into[b]`: those that beat `b`): one OR of a set's loser (winner)
    /// mask per winner (loser), instead of one flag per pair.
    pub fn strongly_connected(&self, co_winners: bool) -> bool {
        let l = self.models;
        if l <= 1 {
            return true;
        }
        if co_winners {
            // A winner of a kept event (which has winners and losers) has an
            // edge to every model: the graph is strongly connected iff every
            // model wins some event.
            let mut wins = vec![false; l];
            for w in &self.winners {
                for &i in w {
                    wins[i as usize] = true;
                }
            }
            return wins.iter().all(|&v| v);
        }
        let words = l.div_ceil(64);
        let mut out = vec![0u64; l * words];
        let mut into = vec![0u64; l * words];
        let mut win = vec![0u64; words];
        let mut lose = vec![0u64; words];
        for w in &self.winners {
            win.iter_mut().for_each(|v| *v = 0);
            for &i in w {
                win[i as usize / 64] |= 1 << (i % 64);
            }
            for (q, v) in lose.iter_mut().enumerate() {
                let valid = if (q + 1) * 64 <= l {
                    !0u64
                } else {
                    (1u64 << (l % 64)) - 1
                };
                *v = !win[q] & valid;
            }
            for &i in w {
                for (o, &v) in out[i as usize * words..(i as usize + 1) * words].iter_mut().zip(&lose) {
                    *o |= v;
                }
            }
            for (q, &v) in lose.iter().enumerate() {
                let mut bits = v;
                while bits != 0 {
                    let j = q * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    for (o, &u) in into[j * words..(j + 1) * words].iter_mut().zip(&win) {
                        *o |= u;
                    }
                }
            }
        }
        let reach = |edges: &[u64]| {
            let mut seen = vec![0u64; words];
            seen[0] = 1;
            let mut stack = vec![0usize];
            while let Some(a) = stack.pop() {
                for q in 0..words {
                    let mut fresh = edges[a * words + q] & !seen[q];
                    seen[q] |= fresh;
                    while fresh != 0 {
                        stack.push(q * 64 + fresh.trailing_zeros() as usize);
                        fresh &= fresh - 1;
                    }
                }
            }
            seen.iter().map(|v| v.count_ones() as usize).sum::<usize>() == l
        };
        reach(&out) && reach(&into)
    }
}
