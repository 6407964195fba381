"""Reading and counting: a source to its per-(model, question) counts.

reader.py          read_counts / read: any source to its counts table and label; the
                   orchestrator: resolves the read's context once and calls each stage
context.py         one read's context (threads, DuckDB's settings, its connections)
source.py          what ``source`` names, as something DuckDB can scan (its connection
                   opened on first use; CSV headers: separator, names twice)
compressed.py      .gz / .zst inputs, checked whole
describe.py        the source's columns and their types (Parquet: from the footer)
columns.py         which columns hold model, question, outcome, sample
sql.py             the SQL expressions of one row (RowSql)
rows.py            RowSql from the described columns
proof.py           the Parquet statistics' proof that every row is clean
query.py           the counting query, and running a query to Arrow
parquet_rows.py    the direct count of Parquet rows (outside DuckDB)
arrow.py           Arrow results to numpy codes, cells in order
aggregate.py       rows to counts: the query, its result assembled (Cells)
counts_input.py    a stored counts table as the source
wide.py            .npy / .npz outcome arrays to counts
dask.py            the same counting on a Dask cluster
recount.py         stored counts mixed with new results; writing counts
diagnose.py        naming the rows behind the problem counts
diagnose_read.py   one-line messages for inputs DuckDB refused
session.py         a read's spill folder and memory limit; its connections closed
interrupt.py       Ctrl-C during a DuckDB query

Imports the leaves (_counts, _issues, _options, runtime/) and kscore.formats
only. Internal: what other rooms use is re-exported by
``kscore.leaderboard.api``."""
