#!/usr/bin/env bash
# Issue 39's measurements on a lent many-core machine, in one run that fits
# a short lease (/work/shared/design/sixteen-cores.md; docs/benchmarks.md,
# *Many cores*). Prepared here, run there from the repository root:
#
#   here:  pip wheel --no-deps -w .whl .
#          pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#              --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 -d .whl duckdb
#          (optional, if the carry allows it: polars the same way; its jobs run where it imports)
#   there: bash benches/sixteen_cores.sh            (results under $OUT, or ./sixteen-cores-out)
#
# Every table is written to $OUT as it comes (a run cut by its time limit
# still returns what it measured). Data is generated there on every core
# (benches/rows_data.py: 1e9 rows in seconds). kscore and DuckDB run in the
# same rounds, each job a fresh process; thread counts 1 and all cores.
set -u
OUT=${OUT:-$PWD/sixteen-cores-out}
mkdir -p "$OUT"
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
fi
DATA=${DATA:-/tmp/kscore-rows}
CORES=$(python3 -c "import os; print(len(os.sched_getaffinity(0)))")
POLARS=$(python3 -c "import polars" 2>/dev/null && echo --polars)
say() { echo "== $* ($(date +%T), load $(cut -d' ' -f1 /proc/loadavg))" | tee -a "$OUT/log.txt"; }

say "machine: $CORES cores, $(python3 -c 'import platform; print(platform.processor() or platform.machine())')"
lscpu > "$OUT/lscpu.txt" 2>&1 || true

say "data: 1e8 rows (string ids, integer ids, 100 CSV files), written on $CORES cores"
python3 benches/rows_data.py "$DATA/e8/string" --layout string 2>&1 | tee -a "$OUT/log.txt"
python3 benches/rows_data.py "$DATA/e8/int" --layout int 2>&1 | tee -a "$OUT/log.txt"
python3 benches/rows_data.py "$DATA/e8/csv" --layout csv 2>&1 | tee -a "$OUT/log.txt"

say "rows, 1e8, string ids: kscore and DuckDB at 1 and $CORES threads, profiles"
python3 benches/bench_rows.py "$DATA/e8" --layout string --threads 1 "$CORES" --rounds 3 --no-before --profile $POLARS \
    2>&1 | tee "$OUT/rows_1e8_string.md"
say "rows, 1e8, integer ids"
python3 benches/bench_rows.py "$DATA/e8" --layout int --threads 1 "$CORES" --rounds 3 --no-before --profile $POLARS \
    2>&1 | tee "$OUT/rows_1e8_int.md"
say "rows, 1e8, 100 CSV files"
python3 benches/bench_rows.py "$DATA/e8" --layout csv --threads "$CORES" --rounds 2 --no-before --profile $POLARS \
    2>&1 | tee "$OUT/rows_1e8_csv.md"

say "thread scaling: kernels and leaderboards at 1 2 4 8 16 threads"
python3 benches/thread_scaling.py 1 2 4 8 16 2>&1 | tee "$OUT/thread_scaling.md"

say "grain: per-task costs and the piece on $CORES threads"
python3 benches/grain_scan.py --part 2 3 2>&1 | tee "$OUT/grain_scan.md"

say "rows, 1e9, string ids (100 samples a question)"
python3 benches/rows_data.py "$DATA/e9/string" --layout string --samples 100 2>&1 | tee -a "$OUT/log.txt"
python3 benches/bench_rows.py "$DATA/e9" --layout string --samples 100 --threads "$CORES" --rounds 2 --no-before \
    --profile 2>&1 | tee "$OUT/rows_1e9_string.md"

say "models: 100,000 x 20 x 4 and 10,000 x 100 x 4"
python3 benches/bench_models.py --boards 100000x20,10000x100 --samples 4 --formats csv --dir "$DATA/models" \
    2>&1 | tee "$OUT/models.md"
say "done"
