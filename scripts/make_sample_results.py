"""Generate the sample results file shipped in kscore (fixed seed).

Run from the repository root: ``python scripts/make_sample_results.py``.
It writes ``python/kscore/data/sample_results.csv.gz``: long-format results,
one row per graded sample, with the columns ``model, question_id, sample,
correct`` for 8 models x 300 questions x 16 samples (38 400 rows).

The data follow a two-parameter item-response model: question ``q`` has a
difficulty ``b_q ~ N(0, 1.6)`` (plus a few questions no model solves and a
few every model solves) and a discrimination ``a_q ~ LogNormal(0, 0.35)``;
model ``m`` has an ability ``theta_m``; each of the 16 samples of ``m`` on
``q`` is correct with probability ``sigmoid(a_q (theta_m - b_q))``.

``MODELS`` lists the models from the strongest to the weakest: that is the
intended ranking, checked here on the generated data (by pass@1 and by
Bayes@N) and by the test suite against ``kscore leaderboard``. Two pairs of
models are close on purpose, so that their credible intervals overlap and
the leaderboard shows shared rank ranges.
"""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path

import numpy as np

SEED = 20261122
M_QUESTIONS, N_SAMPLES = 300, 16

#: (model, ability), strongest first: the intended leaderboard order.
MODELS: list[tuple[str, float]] = [
    ("orion-70b-instruct", 1.90),
    ("cobalt-34b", 1.62),
    ("cobalt-34b-preview", 1.38),
    ("lyra-13b-chat", 0.80),
    ("mistral-ish-7b", 0.25),
    ("tinygpt-3b", 0.18),
    ("pico-1b", -0.70),
    ("baseline-random-ish", -1.80),
]

OUT = Path(__file__).resolve().parent.parent / "python" / "kscore" / "data" / "sample_results.csv.gz"


def generate() -> np.ndarray:
    """Outcomes, models x questions x samples, uint8 0/1."""
    rng = np.random.default_rng(SEED)
    b = rng.normal(0.0, 1.6, size=M_QUESTIONS)
    b[rng.choice(M_QUESTIONS, 12, replace=False)] = 9.0  # nobody solves these
    a = rng.lognormal(0.0, 0.35, size=M_QUESTIONS)
    theta = np.array([t for _, t in MODELS])
    p = 1.0 / (1.0 + np.exp(-a[None, :] * (theta[:, None] - b[None, :])))
    u = rng.random((len(MODELS), M_QUESTIONS, N_SAMPLES))
    return (u < p[:, :, None]).astype(np.uint8)


def check_order(R: np.ndarray) -> None:
    """The generated data rank the models as intended (pass@1 and Bayes@N)."""
    c = R.sum(axis=2)
    pass1 = c.mean(axis=1) / N_SAMPLES
    bayes = ((c + 1) / (N_SAMPLES + 2)).mean(axis=1)
    for name, score in (("pass@1", pass1), ("Bayes@N", bayes)):
        if not np.all(np.diff(score) < 0):
            raise SystemExit(f"{name} does not rank the models as intended: {np.round(score, 4)}")


def main() -> None:
    R = generate()
    check_order(R)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["model", "question_id", "sample", "correct"])
    for mi, (name, _) in enumerate(MODELS):
        for q in range(M_QUESTIONS):
            for s in range(N_SAMPLES):
                w.writerow([name, f"q{q + 1:04d}", s, int(R[mi, q, s])])
    # mtime=0: the same bytes on every run.
    with OUT.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
        gz.write(buf.getvalue().encode())
    pass1 = R.mean(axis=(1, 2))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")
    for (name, _), p in zip(MODELS, pass1):
        print(f"  {name:22} pass@1 {p:.4f}")


if __name__ == "__main__":
    main()
