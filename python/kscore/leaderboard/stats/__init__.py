"""Statistics on the counts: values, intervals, comparisons, ranks, plan.

metrics.py         each model's metrics from the counts (Scores, ModelRow, Value)
states.py          the distinct outcome states of a board's rows
intervals.py       standard errors over questions (clustered), p-values, Holm
small.py           the interval that holds its level on small boards
bayes_states.py    Bayes@N's posterior from the distinct states
compare.py         paired comparisons (Comparison, Pairwise)
ranges.py          rank ranges from paired tests without L x L matrices
pair_rows.py       the pairs a reader asks for, one row per pair, streamed
rank.py            sorting models and their rank labels
plan.py            design diagnostics of a board (Plan)
within.py          the variance of a per-question estimate given the question
robust.py          robustness of a ranking to dropping questions

Imports the leaves (_counts, _issues, _options, _spec, _types, runtime/);
result/ for type annotations only. Internal: the public names are
re-exported by ``kscore.leaderboard``."""
