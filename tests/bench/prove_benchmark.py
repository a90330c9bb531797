"""``dpaudit prove`` on every DSL program: verdict, alignment or witness, time.

    PYTHONPATH=. python tests/bench/prove_benchmark.py [--n-max 4] [--no-refute]

Programs: the examples (audit/examples/dsl_mechanisms.py) and the published benchmark
(audit/prove/benchmark/, CheckDP's programs and their broken twins).  One row per program:
whether the paper calls it correct, the verdict for every n <= N (or the sizes the program
can run), the wall time of the whole proof and its ratio to the same-process baseline (the
symbolic path enumeration of the same sizes alone, which every proof starts with), the
alignment (verified) or the exact witness epsilon (refuted) or the reason.  Verdicts count
work (n, rounds, Z3 rlimit), never seconds; the times are for the record only.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from audit.dsl import DSLError  # noqa: E402
from audit.examples import dsl_mechanisms as ex  # noqa: E402
from audit.prove.proof import prove_mechanism  # noqa: E402
from audit.prove.symbolic import enumerate_paths  # noqa: E402

EXAMPLES = [("ex." + name, getattr(ex, name), correct) for name, correct in (
    ("sparse_vector", True), ("sparse_vector_small_noise", False), ("noisy_max", True),
    ("noisy_max_half_noise", False), ("numerical_svt", True),
    ("numerical_svt_raw_value", False), ("partial_sum", True), ("partial_sum_linf", False))]


def _programs() -> list:
    rows = list(EXAMPLES)
    try:
        from audit.prove.benchmark import PROGRAMS
    except ModuleNotFoundError:
        return rows
    return rows + [("bm." + p.name, p.program, p.correct) for p in PROGRAMS]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-max", type=int, default=4)
    ap.add_argument("--no-refute", action="store_true")
    a = ap.parse_args()
    print(f"{'program':36s} {'paper':8s} {'verdict':13s} {'n':6s} {'time':>7s} {'CPU':>7s} "
          f"{'ratio':>6s}  "
          "alignment / witness / reason")
    for name, mech, correct in _programs():
        t0 = time.perf_counter()
        for n in range(1, a.n_max + 1):
            try:
                enumerate_paths(mech, n)
            except Exception:  # noqa: BLE001 - the baseline skips what the proof skips
                pass
        base = time.perf_counter() - t0
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            v = prove_mechanism(mech, n_max=a.n_max, refute=not a.no_refute)
        except DSLError as exc:  # the program steps outside the DSL: a verdict row, not a crash
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            print(f"{name:36s} {'correct' if correct else 'broken':8s} {'dsl-error':13s} "
                  f"{'-':6s} {wall:6.2f}s {cpu:6.2f}s {wall / max(base, 1e-9):6.1f}  {exc}",
                  flush=True)
            continue
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        if v.status == "verified":
            what = "; ".join(line.split("  [")[0] for line in v.sketch[:-1])
        elif v.status == "refuted":
            what = (f"witness eps >= {float(v.witness['epsilon_witness_lower']):.4f} at eps "
                    f"{v.witness['epsilon']}, q={v.witness['q']} q'={v.witness['q_prime']}")
        else:
            what = f"{v.reason[:70]} (sites {v.failing_sites}); " + "; ".join(
                n for n in v.notes if "templates do prove" in n)
        ns = "all n" if getattr(v, "all_n", False) else f"{v.sizes[0]}..{v.sizes[-1]}"
        print(f"{name:36s} {'correct' if correct else 'broken':8s} {v.status:13s} {ns:6s} "
              f"{wall:6.2f}s {cpu:6.2f}s {wall / max(base, 1e-9):6.1f}  {what}", flush=True)


if __name__ == "__main__":
    main()
