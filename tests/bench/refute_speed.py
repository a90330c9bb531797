"""Exact refutation search time: the term merges of audit.prove.exact_event keyed by int
pairs (current) against Fraction keys (same-process baseline, monkeypatched in).

    PYTHONPATH=. python tests/bench/refute_speed.py [NAME ...]

Per benchmark program (default: the three slowest refutations and adaptive SVT with gap at
n <= 2): the search over its stated scope twice, same verdict and witness required, times
and their ratio.  Times are for the record only; the search scope is in work units.
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from audit.prove import exact_event as ee  # noqa: E402
from audit.prove.benchmark import PROGRAMS  # noqa: E402
from audit.prove.refute import refute  # noqa: E402

DEFAULT = ["svt_chen", "noisy_max_value", "noisy_top1_with_gap_half_noise",
           "adaptive_svt_with_gap"]


def _mul_fraction_keys(a, b):
    acc: dict = {}
    for c1, e1, r1 in a:
        for c2, e2, r2 in b:
            key = (e1 + e2, r1 + r2)
            acc[key] = acc.get(key, Fraction(0)) + c1 * c2
    return [(c, e, r) for (e, r), c in acc.items() if c != 0]


def _merge_fraction_keys(cf):
    acc: dict = {}
    for c, e in cf:
        acc[e] = acc.get(e, Fraction(0)) + c
    return sorted(((c, e) for e, c in acc.items() if c != 0), key=lambda t: t[1])


def _pmerge_fraction_keys(terms):
    acc: dict = {}
    for c, k, e, r in terms:
        acc[(k, e, r)] = acc.get((k, e, r), Fraction(0)) + c
    return [(c, k, e, r) for (k, e, r), c in acc.items() if c != 0]


def _run(entry):
    kw = dict(entry.search)
    if entry.name == "adaptive_svt_with_gap":
        kw["n_max"] = 2
    t0 = time.perf_counter()
    res = refute(entry.program, **kw)
    return time.perf_counter() - t0, res


def main() -> None:
    names = sys.argv[1:] or DEFAULT
    by = {p.name: p for p in PROGRAMS}
    print(f"{'program':34s} {'verdict':12s} {'int keys':>9s} {'Fraction':>9s} {'ratio':>6s}")
    for name in names:
        t_new, r_new = _run(by[name])
        saved = ee._mul, ee._merge, ee._pmerge
        ee._mul, ee._merge, ee._pmerge = (_mul_fraction_keys, _merge_fraction_keys,
                                          _pmerge_fraction_keys)
        try:
            t_old, r_old = _run(by[name])
        finally:
            ee._mul, ee._merge, ee._pmerge = saved
        same = (r_new.verdict == r_old.verdict and
                (r_new.best is None) == (r_old.best is None) and
                (r_new.best is None or r_new.best.eps_lower == r_old.best.eps_lower))
        print(f"{name:34s} {r_new.verdict:12s} {t_new:8.2f}s {t_old:8.2f}s "
              f"{t_old / t_new:6.2f}{'' if same else '  DIFFERENT RESULT'}", flush=True)


if __name__ == "__main__":
    main()
