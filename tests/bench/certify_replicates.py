"""Does the tester's certification count agree with the exact probability of the event it
certified?  Re-counts one certified event of a suite mechanism on fresh seeds through the
tester's own counting path (:meth:`BlackBoxTester.count`, the suite's snapped sampler) and
prints each count's z-score against the exact probability, plus the coverage of the 90 %
bound that those counts would certify.

Written to settle one observation: the large-budget SVT4 run (1M selection + 2e7
certification, seed 0) certified 0.1727 on ``output[5] == 1.0`` of the half-half pair,
above the exact 0.17166.  A valid 90 % bound may exceed the truth (probability <= 10 %,
about 1 % for this event's two-sided margins); a biased counting path would show as z-scores
that do not look standard normal.

    PYTHONPATH=$PWD python tests/bench/certify_replicates.py [--reps 8] [--n 20000000]

Exact probabilities: ``svt_output_probabilities`` below, the per-output quadrature of
:func:`tests.common.power_suite.svt_exact_epsilon` (Lyu et al. 2017, Figure 1) on a 32,001
point grid.  Only this script prints.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from audit.privacy.blackbox import clopper_pearson_lower, clopper_pearson_upper
from audit.privacy.blackbox.events import Event
from tests.bench.side_by_side import large_tester
from tests.common import power_suite as ps


def svt_first_above_probability(rho_scale: float, nu_scale: float, d: np.ndarray, k: int,
                                grid: int = 32_001) -> float:
    """P(first above answer at position k) of the cut-off SVT on answers ``d``:
    int f_rho(z) prod_{i<k} P(nu_i < T + z - d_i) P(nu_k >= T + z - d_k) dz."""
    z = np.linspace(-60 * rho_scale, 60 * rho_scale, grid)
    logf = -np.abs(z) / rho_scale - math.log(2 * rho_scale) + math.log(z[1] - z[0])
    l_up, l_dn = ps._lap_logsf_cdf(ps.THRESHOLD + z[None, :] - d[:, None], nu_scale)
    t = l_dn[:k].sum(axis=0) + l_up[k] + logf
    mx = t.max()
    return float(math.exp(mx + math.log(np.exp(t - mx).sum())))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=8)
    ap.add_argument("--n", type=int, default=20_000_000)
    ap.add_argument("--first-seed", type=int, default=100)
    a = ap.parse_args()
    e = ps.EPS
    rho_s, nu_s = 1 / (e / 4), 1 / (3 * e / 4)  # SVT4 (power_suite.suite)
    mech = {m.name: m for m in ps.suite(exact=False)}["svt4"]
    pair = next(p for p in mech.pairs if p.change.get("pattern") == "half-half")
    event = Event("eq", 5, 1.0, family="discrete")
    p1 = svt_first_above_probability(rho_s, nu_s, np.asarray(pair.first, float), 5)
    p2 = svt_first_above_probability(rho_s, nu_s, np.asarray(pair.second, float), 5)
    truth = math.log(p2 / p1)
    print("# svt4, half-half pair, event output[5] == 1.0 (first above at position 5)")
    print(f"# exact P(D) = {p1:.7f}, P(D') = {p2:.7f}, event log-ratio {truth:.6f} "
          f"(the mechanism's supremum over outputs and pairs: 0.17166)")
    print(f"# n = {a.n:,} per data set and replicate, seeds {a.first_seed}.."
          f"{a.first_seed + a.reps - 1}")
    t = large_tester(a.n)
    zs: list[float] = []
    above = 0
    cpu0 = time.process_time()
    print("seed  count(D)   z(D)   count(D')  z(D')   point     90% lower  > event truth?")
    for s in range(a.first_seed, a.first_seed + a.reps):
        rng = np.random.default_rng(s)
        c1 = int(t.count(mech, pair.first, [event], a.n, rng, 10)[0])
        c2 = int(t.count(mech, pair.second, [event], a.n, rng, 10)[0])
        z1 = (c1 - a.n * p1) / math.sqrt(a.n * p1 * (1 - p1))
        z2 = (c2 - a.n * p2) / math.sqrt(a.n * p2 * (1 - p2))
        zs += [z1, z2]
        lower = math.log(clopper_pearson_lower(c2, a.n, 0.05)
                         / clopper_pearson_upper(c1, a.n, 0.05))
        above += lower > truth
        print(f"{s:4d}  {c1:9d}  {z1:+.2f}  {c2:9d}  {z2:+.2f}  "
              f"{math.log(c2 / c1):.5f}  {lower:.5f}   {'YES' if lower > truth else 'no'}")
    zz = np.asarray(zs)
    print(f"# z-scores: mean {zz.mean():+.3f} (sd of the mean {1 / math.sqrt(zz.size):.3f}), "
          f"sd {zz.std(ddof=1):.3f} (expected 1); bound above the event's truth in "
          f"{above} of {a.reps}; CPU {time.process_time() - cpu0:.1f} s")


if __name__ == "__main__":
    main()
