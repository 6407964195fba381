"""Reading and counting: a source to its per-(model, question) counts.

reader.py          read_counts: any source to its counts table and label
source.py          what ``source`` names, as something DuckDB can scan
compressed.py      .gz / .zst inputs, checked whole
columns.py         which columns hold model, question, outcome, sample
sql.py             the SQL expressions of one row
aggregate.py       rows to counts in one DuckDB query
counts_input.py    a stored counts table as the source
wide.py            .npy / .npz outcome arrays to counts
dask.py            the same counting on a Dask cluster
recount.py         count(): stored counts mixed with new results
diagnose.py        naming the rows behind the problem counts
diagnose_read.py   one-line messages for inputs DuckDB refused
memory.py          a memory limit, spilling to a temporary folder
interrupt.py       Ctrl-C during a DuckDB query

Imports the leaves (_counts, _issues, _options, _types, runtime/) only.
Internal: the public names are re-exported by ``kscore.leaderboard``."""
