"""``dpaudit prove`` against ``dpaudit test`` on every refuted DSL program: the exact epsilon
of the refutation witness next to the black-box tester's certified lower bound and the upper
confidence limit of its certified event, on the witness pair.

    PYTHONPATH=. python tests/bench/prove_vs_test.py [--seeds 1] [--n-select 10000]
        [--n-certify 50000] [--confidence 0.95] [--only NAME ...]

Programs: the broken benchmark programs (audit/prove/benchmark/, each searched over its
stated scope) and the broken examples (audit/examples/dsl_mechanisms.py, n <= 3).  Per
program and seed: the witness (q, q', event) and its exact epsilon (certified lower bound
of ln(P/P') of the witness event, exact rational closed forms); the tester
(audit.privacy.blackbox.BlackBoxTester, fixed schedule, seeded) run on the same pair through
the concrete DSL program; ``agree`` = tester lower bound <= exact witness epsilon.  Where the
witness event's ratio is the pair's epsilon (discrete outputs: the best output pattern; a
shifted Laplace or geometric sum: every tail has the same sup ratio) a sound tester's bound
exceeds it with probability <= 1 - confidence, so a "no" there is a bug in one of the two.
Where the witness is one half-line among many numeric events ("event-only"), the tester may
legitimately find a larger ratio.  With ``--seeds K`` the flagged fraction over K seeds is
the tester's empirical power on the pair (1 - miss rate); ``lower`` is then the smallest and
``upper`` the largest over the seeds.  Times are for the record only.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from audit.examples import dsl_mechanisms as ex  # noqa: E402
from audit.prove.benchmark import PROGRAMS  # noqa: E402
from audit.prove.refute import blackbox_agreement, refute, trace_paths  # noqa: E402

EXAMPLES_BROKEN = ("sparse_vector_small_noise", "noisy_max_half_noise",
                   "numerical_svt_raw_value", "partial_sum_linf")


def _pair_epsilon(program, witness) -> bool:
    """True when the witness event's exact ratio is the pair's epsilon (module docstring):
    a discrete output pattern, or a program with one path whose output is one draw plus a
    constant on both sides (a shifted Laplace / geometric: the tail ratio is the sup)."""
    if "num" not in witness.event.pattern:
        return True
    for q in (witness.q, witness.q_prime):
        paths = trace_paths(program, q, witness.epsilon, witness.params)
        if len(paths) != 1 or paths[0].constraints or len(paths[0].draws) != 1:
            return False
    return True


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--n-select", type=int, default=10_000)
    ap.add_argument("--n-certify", type=int, default=50_000)
    ap.add_argument("--confidence", type=float, default=0.95)
    ap.add_argument("--only", nargs="*", default=None, help="program names to run")
    a = ap.parse_args()
    rows = [("ex." + n, getattr(ex, n), {"n_max": 3}) for n in EXAMPLES_BROKEN]
    rows += [("bm." + p.name, p.program, p.search) for p in PROGRAMS if not p.correct]
    print(f"tester: BlackBoxTester fixed schedule, n_select={a.n_select}, "
          f"n_certify={a.n_certify}, confidence={a.confidence}, seeds 0..{a.seeds - 1}")
    print(f"{'program':40s} {'exact eps':>10s} {'kind':10s} {'lower':>7s} {'upper':>7s} "
          f"{'agree':6s} {'flagged':8s} {'time':>6s}  witness pair")
    for name, prog, search in rows:
        if a.only and name.split(".", 1)[1] not in a.only:
            continue
        t0 = time.perf_counter()
        res = refute(prog, **search)
        w = res.witness
        if w is None:
            print(f"{name:40s} not refuted over {res.scope}", flush=True)
            continue
        kind = "pair-eps" if _pair_epsilon(prog, w) else "event-only"
        ags = [blackbox_agreement(prog, w, seed=s, n_select=a.n_select,
                                  n_certify=a.n_certify, confidence=a.confidence)
               for s in range(a.seeds)]
        wall = time.perf_counter() - t0
        exact = float(w.eps_value)
        lo = min(g.epsilon_lower for g in ags)
        up = max(g.epsilon_upper for g in ags)
        agree = sum(g.consistent for g in ags)
        flagged = sum(g.flagged for g in ags)
        ex_s = "inf" if exact == float("inf") else f"{exact:.4f}"
        print(f"{name:40s} {ex_s:>10s} {kind:10s} {lo:7.4f} {up:7.4f} "
              f"{agree}/{len(ags):<4d} {flagged}/{len(ags):<6d} {wall:5.1f}s  "
              f"q={[str(v) for v in w.q]} q'={[str(v) for v in w.q_prime]}; "
              f"{w.event.describe()}", flush=True)


if __name__ == "__main__":
    main()
