"""The attainable ceiling of event-based testers on the calibration suite: for every suite
mechanism with an exact output law (tests/common/exact_outputs.py), the best 90 % lower
bound a tester that counts ONE event per pair on n fresh outputs per data set can expect
to certify (two one-sided Clopper-Pearson bounds at 5 %), the event chosen with perfect
knowledge of the law (tests/common/event_ceiling.py).  One run, one process.

    PYTHONPATH=$PWD python tests/bench/attainable.py [--only NAME ...] [--n N ...]

Columns, per n (outputs per data set, certification only):
  single   best single-output event (continuous outputs: best threshold event {y > t} or
           {y <= t}, marked t)
  prefix   best deterministic union of the top likelihood-ratio outputs (cells)
  CEILING  maximum over the likelihood-ratio ROC curve: >= every event, deterministic or
           randomised (expected-count approximation)
  sim med / p10   median and 10th percentile of the certified bound of the CEILING event
           over 2001 seeded draws of the binomial counts (integer counts)
  gap      (true - CEILING) / true
Last line per mechanism: the smallest n (0.1 %) at which the CEILING reaches 0.95 x true.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from tests.common import event_ceiling as ec
from tests.common import exact_outputs as eo
from tests.common import power_suite as ps

#: dpaudit's measured large-budget bounds (1M selection + 2e7 certification per data set, 2M of
#: them re-scoring, seed 0), quoted from reports/bench/power-suite-issue27-final.txt; for
#: comparison only, not measured here.
DPAUDIT_LARGE = {
    "laplace": "0.0963", "laplace-half-scale": "0.1993", "truncated-geometric": "0.0980",
    "truncated-geometric-alpha-squared": "0.1996", "histogram": "0.0971",
    "histogram-wrong-scale": "9.8639", "noisy-max-laplace": "0.0973",
    "noisy-max-exponential": "0.0966", "noisy-max-value-laplace": "0.9752",
    "noisy-max-value-exponential": "1.5265", "svt1": "0.0852", "svt2": "0.0852",
    "svt3": "0.2147", "svt4": "0.1683", "svt5": "12.5847", "svt6": "0.3612",
    "one-time-rappor": "0.3981", "rappor": "1.0727", "laplace-composition-20": "0.0475",
    "prefix-sum": "0.0789", "prefix-sum-unscaled": "0.9421 (seed 1: 0.9664)",
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--n", nargs="*", type=float, default=[8e6, 2e7, 2e8])
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    print(f"{'mechanism':28s} {'true eps':>9s} {'n':>8s} {'single':>9s} {'prefix':>8s} "
          f"{'CEILING':>8s} {'sim med':>8s} {'sim p10':>8s} {'gap':>7s}  best pair")
    c_all = time.process_time()
    for m in ps.suite(exact=True):
        if a.only and m.name not in a.only:
            continue
        laws = eo.suite_laws(m.name)
        if laws is None:
            print(f"{m.name:28s} {m.true_epsilon:9.4f}  not covered (no finite output "
                  "space or scalar reduction here)")
            continue
        c0 = time.process_time()
        cont = laws.laws[0].kind == "cells"
        for n in a.n:
            single = prefix = roc = None
            lab = ""
            for law in laws.laws:
                s = (ec.threshold_ceiling(law.p, law.q, n) if cont else
                     ec.both_directions(ec.single_ceiling, law.p, law.q, n)[0])
                if cont:
                    s = max(s, ec.threshold_ceiling(law.q, law.p, n), key=lambda c: c.value)
                f = ec.both_directions(ec.prefix_ceiling, law.p, law.q, n)[0]
                r = ec.both_directions(ec.roc_ceiling, law.p, law.q, n)[0]
                single = s if single is None or s.value > single.value else single
                prefix = f if prefix is None or f.value > prefix.value else prefix
                if roc is None or r.value > roc.value:
                    roc, lab = r, law.label
            sim = ec.simulated_bounds(roc.P, roc.Q, int(n), 2001, rng)
            t = m.true_epsilon
            gap = (t - roc.value) / t if math.isfinite(t) else math.nan
            print(f"{m.name:28s} {t:9.4f} {n:8.1e} {single.value:8.4f}{'t' if cont else ' '} "
                  f"{prefix.value:8.4f} {roc.value:8.4f} {np.median(sim):8.4f} "
                  f"{np.quantile(sim, 0.1):8.4f} {gap:7.1%}  {lab}", flush=True)
        t = m.true_epsilon
        nn = (ec.n_needed_laws([(law.p, law.q) for law in laws.laws], 0.95 * t)
              if math.isfinite(t) else math.inf)
        note = ("never (true eps infinite: the ceiling grows ~ln n)" if not math.isfinite(t)
                else ("> 1e12" if not math.isfinite(nn) else f"{nn:.3g}"))
        print(f"{'':28s} n for CEILING >= 0.95 x true: {note};  law: {laws.scope}; "
              f"CPU {time.process_time() - c0:.1f} s"
              + (f";  dpaudit large (quoted): {DPAUDIT_LARGE[m.name]}"
                 if m.name in DPAUDIT_LARGE else ""), flush=True)
    print(f"# total CPU {time.process_time() - c_all:.1f} s")


if __name__ == "__main__":
    main()
