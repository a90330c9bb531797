"""Power of the black-box tester on the calibration suite (tests/common/power_suite.py):
for each mechanism, its true epsilon on the tested pairs (and how it is known), the
certified lower bound at the settings ``dpaudit test`` uses by default (sequential,
n_select = 2 x 10^5, batches 2000 x 2^r up to 1,048,576, every pair kept until the batch
reaches 2.56 x 10^5, half of alpha by batch size, float bits on, 90 % confidence), whether
it flagged the claim 0.1, the samples drawn and the CPU seconds.  One run, one process.

    PYTHONPATH=$PWD python tests/bench/power_suite.py [--only NAME ...] [--seed S]

Run with PYTHONPATH pointing at another checkout to measure that checkout's tester on the
same suite (the suite module is loaded from this file's tree).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import pathlib
import sys
import time

# one BLAS thread (unless set by the caller): CPU s are process time, and OpenBLAS's
# spinning threads on a busy machine inflate it up to 20x without doing more work
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from audit.privacy.blackbox import BlackBoxTester  # noqa: E402
from audit.privacy.user_audit import SEQUENTIAL_DEFAULTS  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent


def _suite_module():
    spec = importlib.util.spec_from_file_location(
        "power_suite_mod", HERE.parent / "common" / "power_suite.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def default_tester(n_certify: int = 1_048_576, **kw: object) -> BlackBoxTester:
    """The settings of ``dpaudit test``'s defaults (audit.privacy.user_audit.plan_audit;
    ``n_certify`` = its --max-samples)."""
    return BlackBoxTester(n_select=200_000, n_certify=n_certify, confidence=0.9,
                          float_grid=True, sequential=True, seq_first=2_000,
                          chunk_size=100_000, **{**SEQUENTIAL_DEFAULTS, **kw})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-samples", type=int, default=1_048_576,
                    help="largest sequential batch per data set (dpaudit --max-samples)")
    a = ap.parse_args()
    ps = _suite_module()
    suite = ps.suite(exact=True)
    tester = default_tester(a.max_samples)
    print(f"{'mechanism':34s} {'true eps':>9s} {'known':17s} {'bound':>7s} "
          f"{'flag':>5s} {'ok':>3s} {'samples':>10s} {'CPU s':>6s}")
    n_viol = n_flag_viol = n_false = n_correct = 0
    cpu_total = 0.0
    for m in suite:
        if a.only and m.name not in a.only:
            continue
        c0 = time.process_time()
        r = tester.run(m, m.pairs, np.random.default_rng(a.seed))
        cpu = time.process_time() - c0
        cpu_total += cpu
        bound = r.epsilon_lower if r.epsilon_lower is not None else math.nan
        ok = (r.violates == m.violates) if m.known != "upper" else not r.violates
        if m.violates:
            n_viol += 1
            n_flag_viol += int(r.violates)
        else:
            n_correct += 1
            n_false += int(r.violates)
        print(f"{m.name:34s} {m.true_epsilon:9.4f} {m.known:17s} {bound:7.4f} "
              f"{'yes' if r.violates else 'no':>5s} {'ok' if ok else 'BAD':>3s} "
              f"{int(r.details.get('samples_total', 0)):10d} {cpu:6.1f}", flush=True)
    print(f"known violations flagged: {n_flag_viol} of {n_viol}; correct mechanisms flagged: "
          f"{n_false} of {n_correct}; CPU total {cpu_total:.0f} s")


if __name__ == "__main__":
    main()
