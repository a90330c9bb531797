"""Every ``dpaudit prove`` proof of the DSL examples and the benchmark re-checked from its
certificate (audit/prove/certificate.py): the queries rebuilt with a fresh Z3, each decided
by cvc5 and by a fresh Z3 parsed from its text, and the program run on seeded exact points
with the aligned noise.

    PYTHONPATH=. python tests/bench/prove_certificates.py [--n-max 4]

One row per program with a proof (a PROVED result, or the n <= N proof of a twin refuted
beyond N): the number of queries, how many cvc5 and Z3 found UNSAT, the concrete points run,
and the CPU time of the proof and of the re-check (the record only: outcomes count work
units).  The exit status is 1 when any certificate is rejected."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from audit.prove import certificate as C  # noqa: E402
from audit.prove.proof import prove_mechanism  # noqa: E402
from tests.bench.prove_benchmark import _programs  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-max", type=int, default=4)
    a = ap.parse_args()
    print(f"{'program':44s} {'verdict':12s} {'queries':>7s} {'cvc5':>5s} {'z3':>5s} "
          f"{'points':>6s} {'prove CPU':>9s} {'check CPU':>9s}  outcome")
    bad = checked = 0
    for name, mech, _correct in _programs():
        c0 = time.process_time()
        v = prove_mechanism(mech, n_max=a.n_max)
        c1 = time.process_time()
        if v.certificate is None:
            print(f"{name:44s} {v.status:12s} {'-':>7s}")
            continue
        res = C.recheck(json.loads(json.dumps(v.certificate)))
        c2 = time.process_time()
        checked += 1
        bad += not res.ok
        word = "ok" if res.ok else "REJECTED: " + "; ".join(res.problems[:2])
        if res.notes:
            word += " (" + "; ".join(res.notes) + ")"
        print(f"{name:44s} {v.status:12s} {res.queries:7d} {res.cvc5_unsat:5d} "
              f"{res.z3_unsat:5d} {res.concrete_points:6d} {c1 - c0:9.2f} {c2 - c1:9.2f}  "
              f"{word}", flush=True)
    print(f"{checked} certificates re-checked, {bad} rejected")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
