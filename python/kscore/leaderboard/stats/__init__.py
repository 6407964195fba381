"""Statistics on the counts: values, intervals, comparisons, ranks, plan.

states.py          the distinct outcome states of a board's rows
estimates.py       a metric's per-question estimates, one core call for all rows
scores.py          every metric's estimates on every row (Scores); a model's rows
values.py          what a model's row shows (ModelRow, Value)
metrics.py         each model's values and intervals, all models at once
intervals.py       standard errors over questions (clustered), p-values, Holm
posterior.py       the posterior of the population's mean (interval="posterior"); the pass@k curve
small.py           the interval that holds its level on small boards
compare.py         paired comparisons (Comparison, Pairwise)
pairs.py           the paired tests, a block of pairs at a time (Pairs)
pair_tests.py      deciding a pair: thresholds, erfc bounds, Holm's levels
folded.py          the unadjusted and Holm counts from one product per tile
simultaneous.py    the simultaneous rank sets (step-down max-t)
ranges.py          rank ranges from paired tests without L x L matrices
rank.py            sorting models and their rank labels
ranked.py          what the statistics of a finished board read of it
pair_rows.py       the pairs a reader asks for, one row per pair, streamed
plan.py            design diagnostics of a board (Plan)
within.py          the variance of a per-question estimate given the question
robust.py          robustness of a ranking to dropping questions

Imports the leaves (_counts, _issues, _options, _spec, runtime/),
kscore.counts, never result/. Internal: what
other rooms use is re-exported by ``kscore.leaderboard.api``."""
