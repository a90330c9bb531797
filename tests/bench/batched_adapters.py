"""CPU per output: the vectorised library adapters (audit/extra/batched.py) against the
per-call adapters, measured in the same process (a ratio, not a timing goal).

    python -u tests/bench/batched_adapters.py [--outputs 100000] [--calls 2000]
        [--out reports/bench/batched-adapters.txt]

Rows: OpenDP 0.16 sized sum >> Laplace and sum of squared deviations >> Laplace at n = 16 and
n = 1024 (``opendp_batched`` vs ``measurement_mechanism``); diffprivlib ``tools.sum`` and
``tools.var`` at n = 1000 (``diffprivlib_batched`` vs ``tool_mechanism``).  Each: CPU
seconds per output (``time.process_time``) of ``--outputs`` batched outputs and of
``--calls`` per-call outputs, their ratio, and a law check: the two samples' means and
standard deviations (same law: they agree within sampling error), plus one whole
``audit_mechanism`` run of each (same seed and sample budget) with its CPU seconds and
verdicts.  Writes the table to ``--out`` (a benchmark script: it prints and writes).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _per_output(fn: Any, count: int) -> tuple[float, np.ndarray]:
    t0 = time.process_time()
    y = np.asarray(fn(count), dtype=np.float64)
    return (time.process_time() - t0) / count, y


def _audit_cpu(mech: Any, samples: int) -> tuple[float, str]:
    from audit import audit_mechanism

    t0 = time.process_time()
    a = audit_mechanism(mech, seed=0, n_select=samples, n_certify=samples,
                        first_batch=min(2000, samples), max_pairs=4, exact=False)
    verdicts = ", ".join(f"{f.id.split('.')[-1]} {f.verdict}" for f in a.findings
                         if f.id in ("user.blackbox", "user.float-bits"))
    return time.process_time() - t0, f"{a.outcome} ({verdicts})"


def _row(case: str, batched: Any, per_call: Any, draw_b: Any, draw_p: Any, outputs: int,
         calls: int, audit_samples: int) -> str:
    tb, yb = _per_output(draw_b, outputs)
    tp, yp = _per_output(draw_p, calls)
    cb, vb = _audit_cpu(batched, audit_samples)
    cp, vp = _audit_cpu(per_call, audit_samples)
    return (f"| {case} | {tb * 1e6:.1f} | {tp * 1e6:.1f} | {tp / tb:.1f} | "
            f"{yb.mean():.4g} / {yp.mean():.4g} | {yb.std():.4g} / {yp.std():.4g} | "
            f"{cb:.1f} vs {cp:.1f} ({cp / cb:.1f}x); {vb} / {vp} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--outputs", type=int, default=100_000)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--audit-samples", type=int, default=4000)
    ap.add_argument("--out", default=str(ROOT / "reports/bench/batched-adapters.txt"))
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    import diffprivlib.tools as tools
    import opendp.prelude as dp

    from audit.extra.batched import diffprivlib_batched, opendp_batched

    dp.enable_features("contrib")
    rng = np.random.default_rng(0)
    lines = [f"# tests/bench/batched_adapters.py --outputs {a.outputs} --calls {a.calls} "
             f"--audit-samples {a.audit_samples}; "
             f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC; 2 shared cores",
             "| case | batched us/output | per-call us/output | ratio | mean b / p "
             "| std b / p | audit_mechanism CPU s batched vs per-call; outcomes |",
             "|---|---|---|---|---|---|---|"]
    for n in (16, 1024):
        dom = dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0), nan=False), size=n)
        for label, make in (("sum", dp.t.make_sum),
                            ("sum of squared deviations", dp.t.make_sum_of_squared_deviations)):
            t = make(dom, dp.symmetric_distance())
            m = opendp_batched(t, 1.0)
            x = rng.uniform(0.0, 1.0, n)
            lines.append(_row(f"OpenDP 0.16 sized {label} >> Laplace(1), n = {n}", m,
                              m.per_call, lambda k, m=m, x=x: m(x, k),
                              lambda k, m=m, x=x: [m.per_call(x) for _ in range(k)],
                              a.outputs, a.calls, a.audit_samples))
            print(lines[-1], flush=True)
    data = rng.uniform(0.0, 1.0, 1000)
    for tool in (tools.sum, tools.var):
        m = diffprivlib_batched(tool, epsilon=1.0, bounds=(0.0, 1.0))
        lines.append(_row(f"diffprivlib tools.{tool.__name__}, n = 1000", m, m.per_call,
                          lambda k, m=m: m(data, k, 1),
                          lambda k, m=m: [m.per_call(data, s) for s in range(k)],
                          a.outputs // 5, a.calls, a.audit_samples))
        print(lines[-1], flush=True)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"written {a.out}")


if __name__ == "__main__":
    main()
