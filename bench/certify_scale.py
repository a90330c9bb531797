"""Certify at scale (issue 16): wall time, max RSS, bytes per record, ratio to read + sort,
per-link times of ``dpaudit certify --quick`` on lognormal incomes, and the exact reference's
per-record cost (fast float path vs the general Fraction path, same process).

    python bench/certify_scale.py                 # n = 1e5, 1e6
    python bench/certify_scale.py 1e5 1e6 1e7     # any sizes
    python bench/certify_scale.py --workers 2 1e6 # also time the Dask partitioned exact Gini

Every number is measured in this run; ratios compare runs made here, on this machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

from proofs.gini import reference


def _make_csv(path: Path, n: int) -> float:
    x = np.random.default_rng(0).lognormal(10.0, 1.0, n)
    np.savetxt(path, x, fmt="%.2f", header="income", comments="")
    return float(np.ceil(x.max() * 2.5))


def _read_sort(path: Path) -> float:
    t = time.perf_counter()
    x = np.loadtxt(path, skiprows=1)
    np.sort(x)
    return time.perf_counter() - t


def _certify(path: Path, upper: float, out: Path) -> dict:
    cmd = [sys.executable, "-m", "audit.cli", "certify", str(path), "--lower", "0",
           "--upper", str(upper), "--quick", "--out", str(out), "--run-id", "bench"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    rep = {}
    rj = out / "bench" / "report.json"
    if rj.exists():
        rep = json.loads(rj.read_text())
    links = {f["id"]: f.get("duration_s") for f in rep.get("findings", [])}
    verdict = (rep.get("certification") or {}).get("verdict", f"exit {proc.returncode}")
    return {"wall": wall, "rss_mb": max(rss_kb, before) / 1024, "verdict": verdict,
            "links": links, "rc": proc.returncode}


def _reference_cost(n: int) -> tuple[float, float]:
    x = np.random.default_rng(1).lognormal(10.0, 1.0, n)
    t = time.perf_counter()
    fast = reference.gini_eq2(x)
    tf = time.perf_counter() - t
    t = time.perf_counter()
    slow = reference.gini_eq2([Fraction(v) for v in x.tolist()])
    ts = time.perf_counter() - t
    assert fast == slow
    return tf / n * 1e6, ts / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sizes", nargs="*", default=["1e5", "1e6"])
    ap.add_argument("--workers", type=int, default=None)
    a = ap.parse_args()
    sizes = [int(float(s)) for s in a.sizes]
    f_us, s_us = _reference_cost(200_000)
    print(f"exact reference gini_eq2, n = 2e5: fast path {f_us:.2f} us/record, general "
          f"(Fractions) {s_us:.2f} us/record: {s_us / f_us:.1f}x")
    print(f"{'n':>10} {'verdict':>13} {'wall s':>8} {'read+sort s':>11} {'ratio':>6} "
          f"{'max RSS MB':>10} {'B/record':>9}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"x{n}.csv"
            upper = _make_csv(path, n)
            rs = _read_sort(path)
            r = _certify(path, upper, Path(tmp) / "out")
            rows.append((n, r))
            print(f"{n:>10,} {r['verdict']:>13} {r['wall']:>8.1f} {rs:>11.2f} "
                  f"{r['wall'] / rs:>6.1f} {r['rss_mb']:>10.0f} "
                  f"{r['rss_mb'] * 2**20 / n:>9.0f}")
        print("\nper-link seconds:")
        for n, r in rows:
            print(f"  n = {n:,}: " + ", ".join(f"{k} {v:.1f}" for k, v in r["links"].items()
                                              if isinstance(v, (int, float))))
        if a.workers:
            from audit.distributed import client
            from proofs.gini.distributed import gini_eq2_partitioned

            x = np.random.default_rng(2).lognormal(10.0, 1.0, sizes[-1])
            with client(workers=a.workers) as c:
                t = time.perf_counter()
                g = gini_eq2_partitioned(x, parts=4 * a.workers, dask_client=c)
                td = time.perf_counter() - t
            t = time.perf_counter()
            g1 = reference.gini_eq2(x)
            t1 = time.perf_counter() - t
            print(f"\nexact Gini n = {sizes[-1]:,}: LocalCluster({a.workers}) {td:.2f} s, "
                  f"single process {t1:.2f} s, equal: {g == g1}")
    print(f"\n(cores: {os.cpu_count()})")


if __name__ == "__main__":
    main()
