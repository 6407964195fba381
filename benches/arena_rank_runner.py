"""Run arena-rank 0.1.1 (in its own environment: it pins numpy 2.3.3 and
jax 0.8.1) on a battles file, for benches/bench_arena.py and
tests/test_arena_rank.py. Prints one JSON object: its phases' seconds,
its ratings and variances, and (with ``--at THETA.npy``) its sandwich
variances evaluated at given natural-log-scale ratings.

Its bootstrap runs with the spawn start method (forked workers of a JAX
process hang: the pool's workers never start).

Usage: ``.arena-venv/bin/python benches/arena_rank_runner.py battles.parquet [--bootstrap N] [--at theta.npy]
[--style feature,...]``
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import time

import numpy as np


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--bootstrap", type=int, default=0)
    p.add_argument("--at")
    p.add_argument("--style")
    args = p.parse_args()
    mp.set_start_method("spawn", force=True)
    import jax.numpy as jnp
    import pandas as pd
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset

    df = pd.read_parquet(args.file) if args.file.endswith(".parquet") else pd.read_csv(args.file)
    out: dict[str, object] = {}
    t0 = time.perf_counter()
    ds = PairDataset.from_pandas(df)
    t1 = time.perf_counter()
    model = BradleyTerry(n_competitors=len(ds.competitors))
    res = model.compute_ratings_and_cis(ds, significance_level=0.05)
    np.asarray(res["ratings"])
    t2 = time.perf_counter()
    out.update(dataset_s=t1 - t0, fit_sandwich_s=t2 - t1, competitors=list(ds.competitors),
               ratings=np.asarray(res["ratings"]).tolist(), variances=np.asarray(res["variances"]).tolist(),
               theta=np.asarray(model.params["ratings"]).tolist())
    if args.at:
        theta = jnp.asarray(np.load(args.at))
        total = jnp.sum(ds.counts)
        hessian, cov = model.compute_hessian_and_covariance(theta, ds.pairs, ds.outcomes, ds.counts, ds.opt_weights,
                                                            model.hessian_reg * total, model.n_competitors)
        hi = jnp.linalg.inv(hessian)
        out["variances_at"] = np.asarray(jnp.diag(hi @ cov @ hi)).tolist()
    if args.bootstrap:
        model2 = BradleyTerry(n_competitors=len(ds.competitors))
        t3 = time.perf_counter()
        boot = model2.compute_ratings_and_cis(ds, significance_level=0.05, ci_method="bootstrap",
                                             num_bootstrap=args.bootstrap)
        np.asarray(boot["rating_lower"])
        out["bootstrap_s"] = time.perf_counter() - t3
        out["boot_lower"] = np.asarray(boot["rating_lower"]).tolist()
        out["boot_upper"] = np.asarray(boot["rating_upper"]).tolist()
    if args.style:
        from arena_rank.models.contextual_bradley_terry import ContextualBradleyTerry
        from arena_rank.utils.data_utils import ContextualPairDataset

        feats = args.style.split(",")
        t4 = time.perf_counter()
        cds = ContextualPairDataset.from_pandas(df, feature_cols=feats)
        cm = ContextualBradleyTerry(n_competitors=len(cds.competitors), n_features=len(feats))
        cres = cm.compute_ratings_and_cis(cds, significance_level=0.05)
        np.asarray(cres["ratings"])
        out["style_s"] = time.perf_counter() - t4
        out["style_ratings"] = np.asarray(cres["ratings"]).tolist()
        out["style_coeffs"] = np.asarray(cres["coeffs"]).tolist()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
