"""Side-by-side power table on the calibration suite (tests/common/power_suite.py): small
independent re-implementations of StatDP's and DP-Sniper's approaches, written from the
papers' descriptions, against dpaudit's black-box tester at its defaults and at a large
budget.  One run, one process; seed 0.

    PYTHONPATH=$PWD python tests/bench/side_by_side.py [--only NAME ...] [--all] [--large N]

* **StatDP-style** (Ding et al., "Detecting violations of differential privacy", CCS 2018,
  Sections 4-5): an event search on selection samples (threshold events {y_c > t},
  {y_c < t} on each output column over a quantile grid, and {y_c == v} / {y_c absent} on
  discrete columns; the event with the largest selection ratio, both directions, every
  pair), then a hypothesis test on fresh samples of H0: P_D(E) <= e^eps P_D'(E): the count
  c1 is thinned by Binomial(c1, e^-eps) and compared with c2 by a one-sided Fisher exact
  test (their Algorithm 2), the p-value averaged over 20 thinnings.  The reported bound is
  the largest eps on a grid of 0.005 whose p-value is < 0.1 (90 % level, as dpaudit's).
* **DP-Sniper-style** (Bichsel et al., "DP-Sniper: black-box discovery of differential
  privacy violations using classifiers", S&P 2021, Sections 4-6): a logistic-regression
  classifier of "which data set produced y" (features: each column's value, 0 where absent,
  and an absent indicator), trained on half the samples of each pair; the attack
  {score >= t} with t chosen so that P_D'(attack) = c = 0.01 on the training data (ties
  broken at random, their threshold attack), which caps its estimate at ln(1/c) = 4.6; the
  best pair and direction on the training data; the final estimate on fresh samples, a
  90 % Clopper-Pearson bound: ln(p_D lower / p_D' upper), 5 % on each side.
* **dpaudit**: :func:`tests.bench.power_suite.default_tester` (the ``dpaudit test``
  defaults) and the same tester with ``--large`` samples per look.

Same budget: each baseline gets, per data set of each pair, half of dpaudit's default run's
total outputs divided by twice the number of pairs for selection / training and the same
again for the test, so the three columns spend the same number of mechanism outputs.

Default size: the mechanisms in ``DEFAULT_SET`` (runs in ~10 minutes on a shared 2-core
machine); ``--all`` runs the whole suite.  Only this script prints.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import pathlib
import sys
import time
from typing import Any

import numpy as np
from scipy import stats

from audit.privacy.blackbox import clopper_pearson_lower, clopper_pearson_upper

HERE = pathlib.Path(__file__).resolve().parent

DEFAULT_SET = ("laplace", "laplace-half-scale", "histogram-wrong-scale",
               "noisy-max-value-laplace", "svt1", "svt4", "svt5", "svt6",
               "one-time-rappor", "rappor", "laplace-composition-20", "prefix-sum-unscaled")


def _load(name: str, path: pathlib.Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _cols(y: np.ndarray) -> np.ndarray:
    y = np.asarray(y, dtype=np.float64)
    return y[:, None] if y.ndim == 1 else y


# ---------------------------------------------------------------- StatDP-style


def _statdp_events(ya: np.ndarray, yb: np.ndarray, grid: int = 32) -> list[tuple]:
    events: list[tuple] = []
    for c in range(ya.shape[1]):
        pooled = np.concatenate([ya[:, c], yb[:, c]])
        fin = pooled[np.isfinite(pooled)]
        if np.isnan(pooled).any():
            events.append(("nan", c, 0.0))
        vals = np.unique(fin)
        if vals.size <= 16:
            events.extend(("eq", c, float(v)) for v in vals)
        elif fin.size:
            for t in np.unique(np.quantile(fin, np.linspace(0.01, 0.99, grid))):
                events.append(("gt", c, float(t)))
                events.append(("lt", c, float(t)))
    return events


def _mask(ev: tuple, y: np.ndarray) -> np.ndarray:
    kind, c, v = ev
    col = y[:, c]
    with np.errstate(invalid="ignore"):
        if kind == "nan":
            return np.isnan(col)
        if kind == "eq":
            return col == v
        return col > v if kind == "gt" else col < v


def _statdp_pvalue(c1: int, c2: int, n: int, eps: float, rng: np.random.Generator,
                   draws: int = 20) -> float:
    """Ding et al. 2018, Algorithm 2: thin c1 by e^-eps, one-sided Fisher exact test."""
    ps = []
    for _ in range(draws):
        t = int(rng.binomial(c1, math.exp(-eps)))
        ps.append(stats.fisher_exact([[t, n - t], [c2, n - c2]], alternative="greater")[1])
    return float(np.mean(ps))


def statdp_bound(m: Any, n_sel: int, n_test: int, rng: np.random.Generator) -> float:
    best = (-math.inf, None, None)
    for i, p in enumerate(m.pairs):
        ya = _cols(m.sample(p.first, n_sel, rng))
        yb = _cols(m.sample(p.second, n_sel, rng))
        for ev in _statdp_events(ya, yb):
            ka, kb = int(_mask(ev, ya).sum()), int(_mask(ev, yb).sum())
            for d, (k1, k2) in enumerate(((ka, kb), (kb, ka))):
                if k1 < 5:
                    continue
                r = math.log(k1 / max(k2, 0.5))
                if r > best[0]:
                    best = (r, (i, ev), d)
    if best[1] is None:
        return 0.0
    i, ev = best[1]
    p = m.pairs[i]
    ya = _cols(m.sample(p.first, n_test, rng))
    yb = _cols(m.sample(p.second, n_test, rng))
    ka, kb = int(_mask(ev, ya).sum()), int(_mask(ev, yb).sum())
    c1, c2 = (ka, kb) if best[2] == 0 else (kb, ka)
    bound = 0.0
    eps = 0.005
    while eps < 20 and _statdp_pvalue(c1, c2, n_test, eps, rng) < 0.1:
        bound = eps
        eps += 0.005 if eps < 1 else 0.05
    return bound


# ---------------------------------------------------------------- DP-Sniper-style


def _features(y: np.ndarray) -> np.ndarray:
    nan = np.isnan(y)
    return np.concatenate([np.where(nan, 0.0, np.clip(y, -1e6, 1e6)), nan.astype(float)],
                          axis=1)


def _attack(score_b: np.ndarray, c: float) -> tuple[float, float]:
    """Threshold t and tie probability q with P_D'(score > t) + q P_D'(score == t) = c."""
    s = np.sort(score_b)[::-1]
    k = int(math.floor(c * s.size))
    t = float(s[min(k, s.size - 1)])
    above = float(np.mean(score_b > t))
    at = float(np.mean(score_b == t))
    q = 0.0 if at == 0 else min(1.0, max(0.0, (c - above) / at))
    return t, q


def _attack_count(score: np.ndarray, t: float, q: float, rng: np.random.Generator) -> int:
    return int(np.sum(score > t) + rng.binomial(int(np.sum(score == t)), q))


def dpsniper_bound(m: Any, n_train: int, n_test: int, rng: np.random.Generator,
                   c: float = 0.01, max_fit: int = 100_000) -> float:
    from sklearn.linear_model import LogisticRegression

    best = (-math.inf, None)
    for i, p in enumerate(m.pairs):
        ya = _features(_cols(m.sample(p.first, n_train, rng)))
        yb = _features(_cols(m.sample(p.second, n_train, rng)))
        h = min(max_fit, n_train // 2)
        x = np.concatenate([ya[:h], yb[:h]])
        mu, sd = x.mean(axis=0), x.std(axis=0)
        sd[sd == 0] = 1.0
        clf = LogisticRegression(max_iter=200).fit(
            (x - mu) / sd, np.r_[np.ones(h), np.zeros(h)])
        for d, (fa, fb) in enumerate(((ya[h:], yb[h:]), (yb[h:], ya[h:]))):
            sa = clf.decision_function((fa - mu) / sd) * (1 if d == 0 else -1)
            sb = clf.decision_function((fb - mu) / sd) * (1 if d == 0 else -1)
            t, q = _attack(sb, c)
            pa = _attack_count(sa, t, q, rng) / sa.size
            pb = max(_attack_count(sb, t, q, rng) / sb.size, 1.0 / sb.size)
            est = math.log(max(pa, 1e-12) / pb)
            if est > best[0]:
                best = (est, (i, d, clf, mu, sd, t, q))
    i, d, clf, mu, sd, t, q = best[1]
    p = m.pairs[i]
    fa = _features(_cols(m.sample(p.first if d == 0 else p.second, n_test, rng)))
    fb = _features(_cols(m.sample(p.second if d == 0 else p.first, n_test, rng)))
    sgn = 1 if d == 0 else -1
    ka = _attack_count(clf.decision_function((fa - mu) / sd) * sgn, t, q, rng)
    kb = _attack_count(clf.decision_function((fb - mu) / sd) * sgn, t, q, rng)
    lo = float(clopper_pearson_lower(ka, n_test, 0.05))
    hi = float(clopper_pearson_upper(kb, n_test, 0.05))
    return max(0.0, math.log(lo / hi)) if lo > 0 else 0.0


# ---------------------------------------------------------------- the table


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--all", action="store_true", help="the whole suite")
    ap.add_argument("--large", type=int, default=0,
                    help="also run dpaudit with this many samples per look (0: skip)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    suite_file = next(f for f in (HERE.parent / "common" / "power_suite.py",
                                  HERE.parent / "engine" / "power_suite.py") if f.exists())
    ps = _load("power_suite_sbs", suite_file)
    bench = _load("power_suite_bench_sbs", HERE / "power_suite.py")
    names = a.only or (None if a.all else DEFAULT_SET)
    suite = [m for m in ps.suite(exact=True) if names is None or m.name in names]
    print(f"{'mechanism':30s} {'true eps':>9s} {'StatDP':>7s} {'Sniper':>7s} {'dpaudit':>8s} "
          f"{'large':>7s} {'samples':>9s} {'CPU StatDP':>10s} {'CPU Sniper':>10s} "
          f"{'CPU dpaudit':>11s} {'CPU large':>9s}")
    for m in suite:
        rng = np.random.default_rng(a.seed)
        c0 = time.process_time()
        r = bench.default_tester().run(m, m.pairs, rng)
        cpu_d = time.process_time() - c0
        total = int(r.details.get("samples_total", 0))
        per = max(100, total // (4 * len(m.pairs)))
        c0 = time.process_time()
        s_b = statdp_bound(m, per, per, np.random.default_rng(a.seed + 1))
        cpu_s = time.process_time() - c0
        c0 = time.process_time()
        d_b = dpsniper_bound(m, per, per, np.random.default_rng(a.seed + 2))
        cpu_n = time.process_time() - c0
        large, cpu_l = math.nan, math.nan
        if a.large:
            c0 = time.process_time()
            large = bench.default_tester(a.large).run(
                m, m.pairs, np.random.default_rng(a.seed)).epsilon_lower or 0.0
            cpu_l = time.process_time() - c0
        print(f"{m.name:30s} {m.true_epsilon:9.4f} {s_b:7.3f} {d_b:7.3f} "
              f"{(r.epsilon_lower or 0.0):8.4f} {large:7.4f} {total:9d} {cpu_s:10.1f} "
              f"{cpu_n:10.1f} {cpu_d:11.1f} {cpu_l:9.1f}", flush=True)


if __name__ == "__main__":
    main()
