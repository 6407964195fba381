#!/usr/bin/env bash
# The test suite on a free-threaded CPython (docs/threads.md, "Free-threaded Python"): build the
# interpreter from Debian's source package (the upstream tarball Debian ships as its .orig.tar.xz,
# checked against the sha256 of Debian's Sources index) with ./configure --disable-gil, build
# kscore for it (a version-specific cp3XYt wheel: maturin and PyO3 fall back from abi3 by
# themselves), install the test dependencies that have free-threaded wheels, and run the suite,
# then the thread-safety tests under pytest-run-parallel as .ci/run does. Not part of .ci/run:
# on 2 cores the interpreter takes about 9 minutes, kscore 3, the suite 9 and the parallel run 2.
#
#   bash benches/free_threaded.sh            # python3.14t (PyO3 0.29 supports free-threaded 3.14 on)
#   KSCORE_FT_UNSUPPORTED=1 bash benches/free_threaded.sh 3.13
#       python3.13t, which PyO3 0.29 refuses ("does not support the free-threaded build of CPython
#       versions below 3.14"): built anyway with PyO3's UNSAFE_PYO3_SKIP_VERSION_CHECK=1, a smoke
#       test of kscore's code only, not a supported build.
#
# WORK (default /tmp/kscore-ft) holds the sources, the build, the venv and the logs; PREFIX (default
# /opt/py3XYt) the interpreter, built once. DEBIAN_SUITES (default "sid forky trixie") are searched
# in order for the newest python3.XY source package whose tarball downloads.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VER=${1:-3.14}
WORK=${WORK:-/tmp/kscore-ft}
PREFIX=${PREFIX:-/opt/py${VER/./}t}
MIRROR=https://deb.debian.org/debian
SUITES=${DEBIAN_SUITES:-sid forky trixie}
PY=$PREFIX/bin/python${VER}t
VENV=$WORK/venv${VER/./}t

case "$VER" in
    3.13)
        if [ "${KSCORE_FT_UNSUPPORTED:-}" != 1 ]; then
            echo "PyO3 0.29 does not support free-threaded 3.13; KSCORE_FT_UNSUPPORTED=1 builds anyway (see above)"
            exit 2
        fi
        export UNSAFE_PYO3_SKIP_VERSION_CHECK=1 ;;
    3.1[4-9]) ;;
    *) echo "usage: $0 [3.14|3.13]"; exit 2 ;;
esac
mkdir -p "$WORK"

if [ ! -x "$PY" ]; then
    echo "== python${VER}t: build dependencies"
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
        apt-get install -y -q --no-upgrade build-essential curl xz-utils libssl-dev zlib1g-dev libbz2-dev libffi-dev \
            liblzma-dev libsqlite3-dev libreadline-dev uuid-dev >/dev/null
    fi
    echo "== python${VER}t: the source from Debian's python${VER} package"
    tarball=""
    for suite in $SUITES; do
        curl -fsS "$MIRROR/dists/$suite/main/source/Sources.xz" -o "$WORK/Sources-$suite.xz" || continue
        # "sha256 file directory" of each python3.XY stanza's orig tarball, newest version first.
        xz -dc "$WORK/Sources-$suite.xz" | awk -v pkg="python$VER" '
            /^Package: / { p = ($2 == pkg); sums = 0 }
            p && /^Directory: / { dir = $2 }
            p && /^Checksums-Sha256:/ { sums = 1; next }
            sums && /^ / { if ($3 ~ /\.orig\.tar\.xz$/) orig = $1 " " $3; next }
            { sums = 0 }
            /^$/ { if (p && orig != "") print orig, dir; p = 0; orig = ""; dir = "" }
            END { if (p && orig != "") print orig, dir }' | sort -k2,2 -V -r > "$WORK/candidates.txt"
        while read -r sum file dir; do
            echo "   $suite: $dir/$file"
            if curl -fsS "$MIRROR/$dir/$file" -o "$WORK/$file" && echo "$sum  $WORK/$file" | sha256sum -c --quiet; then
                tarball=$WORK/$file
                break 2
            fi
            echo "   (not downloadable or checksum mismatch)"
        done < "$WORK/candidates.txt"
    done
    [ -n "$tarball" ] || { echo "no python$VER source tarball could be downloaded from $MIRROR ($SUITES)"; exit 1; }
    src=$WORK/src-$VER
    rm -rf "$src" && mkdir -p "$src"
    tar -xf "$tarball" -C "$src" --strip-components=1
    echo "== python${VER}t: ./configure --disable-gil --prefix=$PREFIX && make -j$(nproc) && make install"
    (cd "$src" && ./configure --disable-gil --prefix="$PREFIX" >"$WORK/configure.log" 2>&1 \
        && make -j"$(nproc)" >"$WORK/make.log" 2>&1 && make install >"$WORK/install.log" 2>&1) \
        || { echo "the interpreter's build failed: see $WORK/*.log"; exit 1; }
fi
"$PY" -c 'import sys; print(sys.version); assert not sys._is_gil_enabled(), "the GIL is enabled"'

echo "== venv, test dependencies with free-threaded wheels, kscore"
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
# The test extra of pyproject.toml, wheels only (a package without a cp3XYt wheel is not built here).
"$VENV/bin/pip" install -q --only-binary=:all: 'maturin>=1.9.3,<2' numpy 'pytest>=8' 'hypothesis>=6' \
    'pytest-benchmark>=4' 'pytest-run-parallel>=0.4' 'mpmath>=1.3' scorio==0.2.3 'scipy>=1.10' 'mypy>=1.10' \
    'pyarrow>=14' 'rich>=13' 'matplotlib>=3.7' 'threadpoolctl>=3.1' pandas 'markdown-it-py>=3'
for optional in 'duckdb>=1.1' 'polars>=1' 'dask[distributed]>=2024.1'; do
    "$VENV/bin/pip" install -q --only-binary=:all: "$optional" >/dev/null 2>&1 \
        || echo "   $optional: no free-threaded wheel of it or of a dependency; the tests that need it skip"
done
rm -rf "$WORK/wheels"
(cd "$ROOT" && CARGO_TARGET_DIR="$WORK/target" "$VENV/bin/maturin" build --release -i "$VENV/bin/python" \
    --compatibility off -o "$WORK/wheels" >"$WORK/maturin.log" 2>&1) \
    || { tail -20 "$WORK/maturin.log"; exit 1; }
"$VENV/bin/pip" install -q --no-deps --force-reinstall "$WORK"/wheels/kscore-*.whl
"$VENV/bin/pip" list 2>/dev/null >"$WORK/pip-list.txt"

echo "== pytest on python${VER}t"
rc=0
"$VENV/bin/python" -m pytest -p no:cacheprovider -q -p no:randomly -rs || rc=1
echo "== pytest-run-parallel on python${VER}t: the thread-safety tests from 4 threads at once"
"$VENV/bin/python" -m pytest -p no:cacheprovider -q -p no:randomly --parallel-threads=4 \
    tests/test_threads.py tests/test_point_parity.py tests/test_ci_parity.py tests/test_categorical.py \
    tests/test_counts.py tests/test_counts_ci.py tests/test_point_errors.py tests/test_interval.py \
    tests/test_free_threaded.py || rc=1
"$VENV/bin/python" -c 'import sys, kscore; assert not sys._is_gil_enabled(); print("GIL disabled after import kscore")'
exit $rc
