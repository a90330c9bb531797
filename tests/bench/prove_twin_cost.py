"""What the proof's twin and the reproducible Z3 queries cost ``dpaudit prove`` on the DSL
examples (issue 42): each example is proved in one process twice -- as shipped, and with the
baseline's behaviour (the twin replaced by a stub that runs nothing; every
:func:`audit.smt_query.solve` answered by a plain solver of the caller's context, as before
this change) -- and the CPU-time ratio is printed per example and in total.

    python tests/bench/prove_twin_cost.py [--repeat R] [--n-max N]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from audit import falsifiability, smt_query
from audit.examples import dsl_mechanisms as ex
from audit.prove import proof


def _plain_solve(assertions: Any, rlimit: int, *, logic: str | None = None,
                 tactic: str | None = None) -> smt_query.Answer:
    import z3

    items = list(assertions)
    s = z3.Solver(ctx=items[0].ctx if items else None)
    s.set("rlimit", int(rlimit))
    s.add(*items)
    r = s.check()
    if r == z3.sat:
        return smt_query.Answer("sat", s.model())
    return smt_query.Answer("unsat" if r == z3.unsat else "unknown")


def _stub_twin(*a: Any, **k: Any) -> dict[str, Any]:
    return falsifiability.twin("baseline stub (no twin run)", "refuted")


def _cpu(name: str, n_max: int) -> float:
    t0 = time.process_time()
    proof.prove_mechanism(getattr(ex, name), n_max=n_max, ref=name)
    return time.process_time() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--n-max", type=int, default=4)
    a = ap.parse_args()
    real_twin, real_solve = proof.prove_twin, smt_query.solve
    tot_new = tot_base = 0.0
    print(f"{'example':<28} {'shipped s':>10} {'baseline s':>11} {'ratio':>6}")
    for name in ex.__all__:
        new = base = 0.0
        for _ in range(a.repeat):
            proof.prove_twin, smt_query.solve = real_twin, real_solve
            new += _cpu(name, a.n_max)
            proof.prove_twin, smt_query.solve = _stub_twin, _plain_solve
            base += _cpu(name, a.n_max)
        proof.prove_twin, smt_query.solve = real_twin, real_solve
        tot_new, tot_base = tot_new + new, tot_base + base
        print(f"{name:<28} {new / a.repeat:>10.2f} {base / a.repeat:>11.2f} {new / base:>6.2f}")
    print(f"{'total':<28} {tot_new / a.repeat:>10.2f} {tot_base / a.repeat:>11.2f} "
          f"{tot_new / tot_base:>6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
