"""Benchmark: exact smooth sensitivity (eq. 23 on the true extremes) vs a straightforward
implementation written the way Algorithms 1-2 are (Python loops over windows and j).

    python tests/bench/smooth_sensitivity.py [--budget SECONDS] [--sizes 10000,100000,1000000]

Data: numpy.random.default_rng(0).lognormal(10, 1, n), L = 0, U = 2.5 * max, gamma = 2,
epsilon in {0.25, 1}, beta = epsilon / (2 (gamma + 1)) (Algorithm 3).  Both versions run
in this process on the same data; the baseline is abandoned when it exceeds the budget
(default 60 s) and reported as such.  When both finish, their results must agree to
rtol 1e-9 (printed).  Timings are wall-clock, best of 3 for the fast kernel.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from kernels.gini.sensitivity import _combine, smooth_sensitivity


class _Timeout(Exception):
    pass


def baseline_smooth_sensitivity(x: np.ndarray, L: float, U: float, beta: float,
                                deadline: float) -> float:
    """Straightforward O(k(n-k)) per k: every window s = 0..n-k and every j for the max
    (eq. 59 / (n-1)), every block and every j for the min (eq. 60 / (n-1)), Section 4.4
    pruning on k.  Plain Python floats."""
    xs = sorted(float(v) for v in x)
    n = len(xs)
    P = [0.0] * (n + 1)
    R = [0.0] * (n + 1)
    C = [0.0] * (n + 1)
    for i in range(1, n + 1):
        v = xs[i - 1]
        P[i] = P[i - 1] + v
        R[i] = R[i - 1] + i * v
        C[i] = C[i - 1] + (2 * i - n - 1) * v
    g0 = C[n] / ((n - 1) * P[n])
    best = -1.0
    for k in range(0, n + 1):
        if time.perf_counter() > deadline:
            raise _Timeout
        if k == 0:
            gmax = gmin = g0
        else:
            gmax = -math.inf
            for s in range(0, n - k + 1):
                for j in range(0, k + 1):
                    u = k - j
                    num = (L * j * (j - n) + C[s] + 2 * j * P[s] + (C[n] - C[s + k])
                           - 2 * u * (P[n] - P[s + k]) + U * u * (n - u))
                    den = P[s] + P[n] - P[s + k] + j * L + u * U
                    if den > 0:
                        gmax = max(gmax, num / ((n - 1) * den))
            if k == n:
                gmin = 0.0
            else:
                gmin = math.inf
                for i in range(0, k + 1):
                    lo, hi = i + 1, n - k + i
                    B = P[hi] - P[lo - 1]
                    nb = 2 * (R[hi] - R[lo - 1]) - (lo + hi) * B
                    for j in range(lo, hi + 1):
                        xj = xs[j - 1]
                        num = nb + k * ((j - lo + 1) * xj - (P[j] - P[lo - 1])
                                        + (P[hi] - P[j]) - (hi - j) * xj)
                        den = B + k * xj
                        if den > 0:
                            gmin = min(gmin, num / ((n - 1) * den))
        mn = (P[n - k] + k * L) / n
        mx = (P[n] - P[k] + k * U) / n
        a = float(_combine(n, L, U, [gmin], [gmax], [n * mn], [n * mx])[0])
        best = max(best, math.exp(-beta * k) * a)
        if math.exp(-beta * k) <= best:
            break
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=60.0)
    ap.add_argument("--sizes", default="10000,100000,1000000")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    gamma = 2.0
    print(f"{'n':>9} {'eps':>5} {'S(X)':>12} {'k*':>4} {'fast s':>9} {'baseline s':>12} "
          f"{'ratio':>8}  agree")
    for n in sizes:
        x = np.random.default_rng(0).lognormal(10, 1, n)
        U = 2.5 * float(x.max())
        for eps in (0.25, 1.0):
            beta = eps / (2 * (gamma + 1))
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                ss = smooth_sensitivity(x, 0.0, U, beta)
                times.append(time.perf_counter() - t0)
            fast = min(times)
            t0 = time.perf_counter()
            try:
                base = baseline_smooth_sensitivity(x, 0.0, U, beta, t0 + a.budget)
                bt = time.perf_counter() - t0
                agree = "yes" if math.isclose(base, ss.value, rel_tol=1e-9) else f"NO ({base!r})"
                bts, ratio = f"{bt:12.3f}", f"{bt / fast:8.1f}"
            except _Timeout:
                bts = f"{'>' + str(int(a.budget)):>12}"
                ratio = f"{'>' + str(int(a.budget / fast)):>8}"
                agree = "-"
            print(f"{n:>9} {eps:>5} {ss.value:>12.6g} {ss.k_evaluated:>4} {fast:>9.3f} "
                  f"{bts} {ratio}  {agree}", flush=True)


if __name__ == "__main__":
    main()
