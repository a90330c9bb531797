"""Calibration, coverage and power of the black-box tester (audit/privacy/blackbox.py).

    python tests/bench/blackbox_calibration.py [--coverage-seeds 40] [--skip-full]

Prints one row per run: mechanism, pair, samples per data set (selection / certification),
epsilon_lower, the claim, the verdict, the confidence and the wall-clock time.

1. Calibration: LaplaceMechanism(0.1) (true epsilon exactly 0.1) on D = [0, 0],
   D' = [0, 1], certification samples 2e5, 2e6 (the default) and 2e7 (the power target:
   epsilon_lower >= 0.09 at 90 % confidence, within a minute).
2. Coverage: the fraction of runs whose epsilon_lower exceeds the true epsilon (a false
   alarm on a mechanism exactly at its claim); theory: <= 1 - confidence = 10 %.
3. Power: broken variants (and the correct releases on the same pairs).
4. Float grid: the float-grid event family on the float64 Laplace sampler (unbounded loss:
   the bound grows ~log n), a negative control (huge location), and the Gini release as a
   plain float64 sum (flagged) and snapped (its default; not flagged).

All runs are seeded (seed shown); single process.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from audit.privacy.blackbox import BlackBoxTester  # noqa: E402
from audit.privacy.mechanisms import LaplaceMechanism  # noqa: E402
from audit.protocols import REPLACE_ONE, NeighbourPair  # noqa: E402
from proofs.gini.mechanisms import GiniRelease  # noqa: E402

LAPLACE_PAIR = NeighbourPair(np.array([0.0, 0.0]), np.array([0.0, 1.0]), REPLACE_ONE,
                             {"op": "replace", "index": 1, "old": 0.0, "new": 1.0})
GINI_PAIRS = [
    NeighbourPair(np.array([0.0, 1, 1, 1, 1]), np.array([1.0, 1, 1, 1, 1]), REPLACE_ONE,
                  {"op": "replace", "rank": 0, "old": 0.0, "new": 1.0}),
    NeighbourPair(np.array([0.0, 0.5, 0.5, 0.5, 0.5, 0.5]),
                  np.array([0.5, 0.5, 0.5, 0.5, 0.5, 1.0]), REPLACE_ONE,
                  {"op": "replace", "rank": 0, "old": 0.0, "new": 1.0}),
    NeighbourPair(np.array([0.0, 0.0, 0.25, 1, 1, 1]), np.array([0.0, 0.25, 1, 1, 1, 1]),
                  REPLACE_ONE, {"op": "replace", "rank": 0, "old": 0.0, "new": 1.0}),
]
GINI_LABEL = "A,B,C (L=0,U=1)"
LAPLACE_LABEL = "[0,0] vs [0,1]"


def _big(d: np.ndarray) -> float:
    return 1e15 + float(np.sum(d))


def row(label: str, mech, pairs, pair_label: str, seed: int, **kw) -> tuple[float, float]:
    tester = BlackBoxTester(**kw)
    t = time.perf_counter()
    r = tester.run(mech, pairs, np.random.default_rng(seed))
    dt = time.perf_counter() - t
    print(f"{label:44s} {pair_label:16s} {tester.n_select:>9,d} {tester.certify_samples:>11,d} "
          f"{r.epsilon_lower:9.4f} {r.claimed_epsilon:7.3g} {'FLAG' if r.violates else 'ok':>5s} "
          f"{r.confidence:5.2f} {dt:7.2f}s  seed={seed}  E: {r.witness['event'][:70]}",
          flush=True)
    return r.epsilon_lower, dt


def header(title: str) -> None:
    print(f"\n== {title}")
    print(f"{'mechanism':44s} {'pair':16s} {'n_select':>9s} {'n_certify':>11s} "
          f"{'eps_lower':>9s} {'claim':>7s} {'verd':>5s} {'conf':>5s} {'time':>8s}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--coverage-seeds", type=int, default=40)
    ap.add_argument("--skip-full", action="store_true", help="skip the 2e7-sample runs")
    args = ap.parse_args(argv)

    lap = LaplaceMechanism(0.1)
    header("1. calibration: LaplaceMechanism(0.1), true epsilon 0.1 (target >= 0.09)")
    sizes = [200_000, 2_000_000] + ([] if args.skip_full else [20_000_000])
    for n in sizes:
        for seed in (0, 1, 2):
            row("laplace eps=0.1", lap, [LAPLACE_PAIR], LAPLACE_LABEL, seed, n_certify=n)

    header(f"2. coverage: P(eps_lower > true eps) over {args.coverage_seeds} seeds "
           "(theory <= 0.10)")
    for label, mech, pairs, plabel, true_eps, kw in [
        ("laplace eps=0.1 (true 0.1)", lap, [LAPLACE_PAIR], LAPLACE_LABEL, 0.1,
         {"n_select": 200_000, "n_certify": 500_000}),
        ("laplace eps=1 (true 1)", LaplaceMechanism(1.0), [LAPLACE_PAIR], LAPLACE_LABEL, 1.0,
         {"n_select": 200_000, "n_certify": 500_000}),
    ]:
        hits, lows, t0 = 0, [], time.perf_counter()
        for seed in range(args.coverage_seeds):
            r = BlackBoxTester(**kw).run(mech, pairs, np.random.default_rng(1000 + seed))
            lows.append(r.epsilon_lower)
            hits += r.epsilon_lower > true_eps
        print(f"{label:44s} {plabel:16s} {kw['n_select']:>9,d} {kw['n_certify']:>11,d} "
              f"exceed true eps: {hits}/{args.coverage_seeds}  eps_lower min/median/max "
              f"{min(lows):.4f}/{float(np.median(lows)):.4f}/{max(lows):.4f}  "
              f"{time.perf_counter() - t0:.1f}s", flush=True)

    header("3. power (default sizes unless stated): broken variants flagged, correct not")
    for label, mech, pairs, plabel, kw in [
        ("laplace eps=0.1 x0.5 scale (true 0.2)", LaplaceMechanism(0.1, noise_scale_factor=0.5),
         [LAPLACE_PAIR], LAPLACE_LABEL, {}),
        ("laplace eps=0.1 gaussian noise (no finite eps)",
         LaplaceMechanism(0.1, noise="gaussian"), [LAPLACE_PAIR], LAPLACE_LABEL, {}),
        ("gaussian, 2e7", LaplaceMechanism(0.1, noise="gaussian"), [LAPLACE_PAIR],
         LAPLACE_LABEL, {"n_certify": 20_000_000}),
        ("gini correct alg3 eps=1", GiniRelease(0, 1, 1.0), GINI_PAIRS, GINI_LABEL, {}),
        ("gini correct calibrated eps=1", GiniRelease(0, 1, 1.0, constants="calibrated"),
         GINI_PAIRS, GINI_LABEL, {}),
        ("gini correct alg3 eps=0.25", GiniRelease(0, 1, 0.25), GINI_PAIRS, GINI_LABEL, {}),
        ("gini wrong-scale alg3 eps=1 (not broken here)",
         GiniRelease(0, 1, 1.0, variant="wrong-scale"), GINI_PAIRS, GINI_LABEL, {}),
        ("gini local-sens alg3 eps=1 (not broken here)",
         GiniRelease(0, 1, 1.0, variant="local-sensitivity"), GINI_PAIRS, GINI_LABEL, {}),
        ("gini wrong-scale calibrated eps=1",
         GiniRelease(0, 1, 1.0, variant="wrong-scale", constants="calibrated"), GINI_PAIRS,
         GINI_LABEL, {}),
        ("gini laplace-noise alg3 eps=1", GiniRelease(0, 1, 1.0, variant="laplace-noise"),
         GINI_PAIRS, GINI_LABEL, {}),
        ("gini laplace-noise calibrated eps=1",
         GiniRelease(0, 1, 1.0, variant="laplace-noise", constants="calibrated"), GINI_PAIRS,
         GINI_LABEL, {}),
        ("gini local-sens alg3 eps=0.25",
         GiniRelease(0, 1, 0.25, variant="local-sensitivity"), GINI_PAIRS, GINI_LABEL, {}),
    ]:
        if args.skip_full and kw.get("n_certify", 0) > 2_000_000:
            continue
        for seed in (0, 1):
            row(label, mech, pairs, plabel, seed, **kw)

    header("4. float-grid family (float_grid=True)")
    for n in [200_000, 2_000_000] + ([] if args.skip_full else [20_000_000]):
        row("laplace eps=0.1, float64 sampler", lap, [LAPLACE_PAIR], LAPLACE_LABEL, 0,
            n_certify=n, float_grid=True)
    row("laplace eps=1, location 1e15 (control)", LaplaceMechanism(1.0, query=_big),
        [LAPLACE_PAIR], LAPLACE_LABEL, 0, float_grid=True)
    row("gini correct alg3 eps=1, unsnapped float64", GiniRelease(0, 1, 1.0, snap=False),
        GINI_PAIRS, GINI_LABEL, 0, float_grid=True)
    row("gini correct alg3 eps=1, snapped (default)", GiniRelease(0, 1, 1.0), GINI_PAIRS,
        GINI_LABEL, 0, float_grid=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
