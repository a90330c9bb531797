"""Lan & Reiter (2025) algorithms and formulas *exactly as printed* — audit targets.

Nothing in this module is corrected.  It exists so that the auditor can run the printed
versions through the same checks as :mod:`kernels.gini.extremes` / :mod:`kernels.gini.sensitivity`
and report, with counterexamples, where they differ from the truth.  Do not use it to
release anything.

Source: ``shared/papers/lan-reiter-2025-dp-gini.md`` (version dated November 26, 2025).
Locations below refer to that text: "Sec. 3, Algorithm 1 (FastMinG)", "Sec. 3,
Algorithm 2 (FastMaxG)", "Sec. 3, Algorithm 3", "Sec. 4.1.3, eqs. (21), (22)",
"Sec. 4.3, Theorem 4.3 eq. (23), Theorem 4.4 eq. (24), Theorem 4.5 eq. (28)",
"Appendix A.3, eqs. (59), (60)", "Sec. 2.3, constants after eq. (10)".

Where the printed text is incomplete we had to choose a reading; each choice is listed in
the function's docstring under "Reading".  Indices are 1-based as printed (arrays carry a
dummy 0th entry).  All arithmetic is plain float64, as a direct transcription would be.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

__all__ = [
    "PrintedAlgorithmUndefined",
    "fast_min_g",
    "fast_max_g",
    "find_min_index",
    "min_ave",
    "max_ave",
    "eq59",
    "eq60",
    "bound_eq21",
    "bound_eq22",
    "bound_eq23_printed",
    "bound_eq24_printed",
    "local_sens_bounds",
    "smooth_sensitivity_alg3",
    "smooth_sensitivity_thm45",
    "constants_section23",
    "beta_alg3",
]


class PrintedAlgorithmUndefined(ValueError):
    """The printed algorithm does not define a result for these inputs."""


def _sorted(x: Sequence[float]) -> np.ndarray:
    return np.sort(np.asarray(x, dtype=np.float64))


def _prefix(xs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Prefix tables of Algorithms 1-2, 'for i <- 1 to n': P_i, W_i, R_i, C_i (index 0 = 0).

    Reading: Algorithm 1 initialises P_0, C_0, W_0 but not R_0; we take R_0 = 0.
    """
    n = xs.size
    P = np.zeros(n + 1)
    W = np.zeros(n + 1)
    R = np.zeros(n + 1)
    C = np.zeros(n + 1)
    for i in range(1, n + 1):
        w = 2 * i - n - 1
        P[i] = P[i - 1] + xs[i - 1]
        W[i] = W[i - 1] + w
        R[i] = R[i - 1] + i * xs[i - 1]
        C[i] = C[i - 1] + w * xs[i - 1]
    return P, W, R, C


def find_min_index(lo: int, hi: int, g: Callable[[int], float]) -> int:
    """``Findminindex(lo, hi)`` of Algorithm 1, verbatim (ternary search on integers).

    while hi - lo > 3: t = floor((hi-lo)/3); m1 = lo+t; m2 = hi-t;
    if g(m1) < g(m2) then hi = m2 - 1 else lo = m1 + 1;  return argmin_{j in [lo,hi]} g(j).
    (Ties in argmin: the first index, as numpy/Python ``min`` would give.)
    """
    while hi - lo > 3:
        t = (hi - lo) // 3
        m1 = lo + t
        m2 = hi - t
        if g(m1) < g(m2):
            hi = m2 - 1
        else:
            lo = m1 + 1
    if hi < lo:
        raise PrintedAlgorithmUndefined(f"Findminindex on an empty range [{lo}, {hi}]")
    return min(range(lo, hi + 1), key=g)


def fast_min_g(
    x: Sequence[float], k: int, *, reading: Literal["literal", "charitable"] = "literal"
) -> float:
    """Algorithm 1, FastMinG(X, k), as printed (Sec. 3).

    for i <- 0 to k: L <- i+1; R <- n-k+i; j = Findminindex(L, R);
      S_A <- P_{j-1} - P_{L-1};  S_tA <- (R_{j-1} - R_{L-1}) - (L-1) S_A;
      S_B <- P_R - P_{j-1};      S_tB <- (R_R - R_{j-1}) - (j-1) S_B;
      N = [2 S_tA - (n+1) S_A] + k x_j (2(j-L) + k - n) + [2 S_tB + 2(j-L+k) - n - 1] S_N;
      D = S_A + k x_j + S_B;  g_min <- min(g_min, N / (n D)).

    Reading: the symbol S_N is never defined; we read it as S_B (the only sum left).
    ``reading="literal"`` keeps the printed bracket, i.e. (2 S_tB + 2(j-L+k) - n - 1) * S_B;
    ``reading="charitable"`` moves the bracket to 2 S_tB + (2(j-L+k) - n - 1) S_B, the
    dimensionally consistent form matching eq. (60).  The function g(j) compared inside
    Findminindex is not defined in the text; we use the loop body's N/(nD) at that j.
    The comment on S_tB ("(t - j + 1 + a + k) x_t") is ignored: the assignment is used.
    The denominator n*D (not (n-1)*D) and the loop ranges are kept as printed.
    """
    xs = _sorted(x)
    n = xs.size
    P, _, R, _ = _prefix(xs)
    xv = np.concatenate([[0.0], xs])  # 1-based x_j
    g_min = math.inf
    for i in range(0, k + 1):
        Lb = i + 1
        Rb = n - k + i

        def g_of(j: int, Lb: int = Lb, Rb: int = Rb) -> float:
            S_A = P[j - 1] - P[Lb - 1]
            S_tA = (R[j - 1] - R[Lb - 1]) - (Lb - 1) * S_A
            S_B = P[Rb] - P[j - 1]
            S_tB = (R[Rb] - R[j - 1]) - (j - 1) * S_B
            S_N = S_B
            if reading == "literal":
                last = (2 * S_tB + 2 * (j - Lb + k) - n - 1) * S_N
            else:
                last = 2 * S_tB + (2 * (j - Lb + k) - n - 1) * S_N
            N = (2 * S_tA - (n + 1) * S_A) + k * xv[j] * (2 * (j - Lb) + k - n) + last
            D = S_A + k * xv[j] + S_B
            return N / (n * D) if D != 0 else math.nan

        j = find_min_index(Lb, Rb, g_of)
        g_min = min(g_min, g_of(j))
    return g_min


def fast_max_g(x: Sequence[float], k: int, L: float, U: float) -> float:
    """Algorithm 2, FastMaxG(x, k, L, U), as printed (Sec. 3).

    for s <- 1 to n-k: S_L <- P_s; S_R <- P_n - P_{s+k};
      for i <- 0 to k: n_L <- i; n_U <- k-i; D <- S_L + S_R + n_L L + n_U U;
        N <- L n_L (n_L - n) + C_s + 2 n_L S_L + (C_n - C_{s+k}) - 2 n_U S_R + U n_U (n - n_U);
        g_max <- max(g_max, N/(nD)).
    Returns -inf when the s-loop is empty (k = n), as the initialisation g_max <- -inf does.
    """
    xs = _sorted(x)
    n = xs.size
    P, _, _, C = _prefix(xs)
    g_max = -math.inf
    for s in range(1, n - k + 1):
        S_L = P[s]
        S_R = P[n] - P[s + k]
        for i in range(0, k + 1):
            n_L = i
            n_U = k - i
            D = S_L + S_R + n_L * L + n_U * U
            N = (
                L * n_L * (n_L - n)
                + C[s]
                + 2 * n_L * S_L
                + (C[n] - C[s + k])
                - 2 * n_U * S_R
                + U * n_U * (n - n_U)
            )
            g_max = max(g_max, N / (n * D)) if D != 0 else g_max
    return g_max


def min_ave(x: Sequence[float], k: int, L: float) -> float:
    """MinAve(X, k, L) of Algorithm 3; formula from the proof of Theorem 4.4:
    (sum_{i=1}^{n-k} x_i + kL) / n."""
    xs = _sorted(x)
    n = xs.size
    return float((xs[: n - k].sum() + k * L) / n)


def max_ave(x: Sequence[float], k: int, U: float) -> float:
    """MaxAve(X, k, U) of Algorithm 3: (sum_{i=k+1}^n x_i + kU) / n (proof of Thm 4.4)."""
    xs = _sorted(x)
    n = xs.size
    return float((xs[k:].sum() + k * U) / n)


def eq59(x: Sequence[float], k: int, s: int, j: int, L: float, U: float) -> float:
    """Appendix A.3, eq. (59), as printed: the 'Gini index' after removing the n-k...

    ... window starting after rank s, with j values at L and k-j at U:
    [L j(j-n) + C_s + 2 j P_s + (C_n - C_{s+k}) - 2(k-j)(P_n - P_{s+k}) + U(k-j)(n-k+j)]
    / [P_s + P_n - P_{s+k} + jL + (k-j)U].   (No factor 1/(n-1) or 1/n appears.)
    """
    xs = _sorted(x)
    n = xs.size
    P, _, _, C = _prefix(xs)
    num = (
        L * j * (j - n)
        + C[s]
        + 2 * j * P[s]
        + (C[n] - C[s + k])
        - 2 * (k - j) * (P[n] - P[s + k])
        + U * (k - j) * (n - k + j)
    )
    den = P[s] + P[n] - P[s + k] + j * L + (k - j) * U
    return float(num / den)


def eq60(x: Sequence[float], k: int, i: int, j: int) -> float:
    """Appendix A.3, eq. (60), as printed: block from rank i+1 to R = n-k+i, k copies of x_j.

    (1/(P_R - P_i + k x_j)) * ( 2[(R_{j-1} - R_i) - i(P_{j-1} - P_i)] - (n+1)(P_{j-1} - P_i)
      + k x_j (2(j-i-1) + k - n) + 2[(R_R - R_{j-1}) - (j-1)(P_R - P_{j-1})]
      + (2(j-i-1+k) - n - 1)(P_R - P_{j-1}) ).
    Here R_t is the prefix table sum_{u<=t} u x_u and R (unsubscripted) the block end.
    """
    xs = _sorted(x)
    n = xs.size
    P, _, Rt, _ = _prefix(xs)
    Rb = n - k + i
    xj = xs[j - 1]
    num = (
        2 * ((Rt[j - 1] - Rt[i]) - i * (P[j - 1] - P[i]))
        - (n + 1) * (P[j - 1] - P[i])
        + k * xj * (2 * (j - i - 1) + k - n)
        + 2 * ((Rt[Rb] - Rt[j - 1]) - (j - 1) * (P[Rb] - P[j - 1]))
        + (2 * (j - i - 1 + k) - n - 1) * (P[Rb] - P[j - 1])
    )
    return float(num / (P[Rb] - P[i] + k * xj))


def bound_eq21(n: int, L: float, U: float, min_g: float, min_x: float, max_x: float) -> float:
    """C_1, eq. (21) as printed (last line)."""
    a = (U - L) * (1 - min_g) / (n * min_x + (U - L))
    b = 2 * (n * max_x - n * L) / (n * min_x * (n - 1))
    return max(a, b)


def bound_eq22(n: int, L: float, U: float, max_g: float, min_x: float) -> float:
    """C_2, eq. (22) as printed (note the factor max g + 1 - 2/(n-1))."""
    den = n * min_x - (U - L)
    a = (U - L) * (max_g + 1 - 2 / (n - 1)) / den
    b = 2 * n * (U - min_x) / (den * (n - 1))
    return max(a, b)


def bound_eq23_printed(
    n: int, L: float, U: float, min_g: float, max_g: float, min_x: float, max_x: float
) -> float:
    """Theorem 4.3, eq. (23) as printed: max(C1, C2) if n xbar_k - (U-L) > 0 and
    max(C1, C2) <= 1, else 1.  Reading: xbar_k is min xbar_(k) (the quantity in (21)-(22))."""
    if not n * min_x - (U - L) > 0:
        return 1.0
    c = max(bound_eq21(n, L, U, min_g, min_x, max_x), bound_eq22(n, L, U, max_g, min_x))
    return c if c <= 1 else 1.0


def bound_eq24_printed(
    n: int,
    mean: float,
    L: float,
    U: float,
    k: int,
    *,
    reading: Literal["literal", "charitable"] = "literal",
) -> float:
    """Theorem 4.4, eq. (24) as printed.

    IQ = (U-L)/xbar;  value 2 / (n(1/IQ - k/n) - 1) if  1/(IQ - k/n) <= (U-L)/L  and
    2/(n(1/IQ - k/n) - 1) < 1;  else 1.
    Reading: ``"literal"`` transcribes the first condition as printed, ``1/(IQ - k/n)``;
    ``"charitable"`` uses ``1/(1/IQ - k/n)``, which the proof's (26) suggests was meant.
    With L = 0, (U-L)/L is taken as +inf (float semantics), and a zero denominator makes
    the condition false.
    """
    iq = (U - L) / mean
    with np.errstate(divide="ignore", invalid="ignore"):
        lhs_den = iq - k / n if reading == "literal" else 1 / iq - k / n
        lhs = np.float64(1.0) / np.float64(lhs_den) if lhs_den != 0 else math.nan
        rhs = (U - L) / L if L != 0 else math.inf
        val_den = n * (1 / iq - k / n) - 1
        val = 2 / val_den if val_den != 0 else math.nan
    if lhs <= rhs and val < 1:
        return float(val)
    return 1.0


def local_sens_bounds(
    x: Sequence[float], k: int, L: float, U: float, *, reading: str = "literal"
) -> float:
    """LocalSensBounds of Algorithm 3 at replacement count k, via the printed pieces:
    FastMinG, FastMaxG, MinAve, MaxAve, then eq. (23) as printed."""
    n = len(x)
    return bound_eq23_printed(
        n,
        L,
        U,
        fast_min_g(x, k, reading=reading),  # type: ignore[arg-type]
        fast_max_g(x, k, L, U),
        min_ave(x, k, L),
        max_ave(x, k, U),
    )


def beta_alg3(epsilon: float, gamma: float) -> float:
    """Algorithm 3, line 1: beta <- epsilon / (2(gamma + 1))."""
    return epsilon / (2 * (gamma + 1))


def constants_section23(epsilon: float, gamma: float) -> tuple[float, float]:
    """Section 2.3 (after eq. 10), attributed to Nissim et al. (2007):
    alpha = epsilon/(4 gamma), beta = epsilon/gamma.  Returns (alpha, beta)."""
    return epsilon / (4 * gamma), epsilon / gamma


def smooth_sensitivity_alg3(
    x: Sequence[float],
    L: float,
    U: float,
    epsilon: float,
    gamma: float,
    *,
    reading: str = "literal",
) -> float:
    """Algorithm 3 as printed.

    beta <- eps/(2(gamma+1)); ls_0 <- LocalSensBounds(X, L, U) (eq. 23);
    k_max <- min(n, ceil(-ln(ls_0)/beta)); S_u <- 0;
    for k <- 0 to k_max: ls_k from FastMinG/FastMaxG/MinAve/MaxAve and eq. (23);
      S_u <- max(S_u, e^{-beta k} ls_k).
    Reading: ls_0 is eq. (23) at k = 0 (the printed call omits k).  Raises
    :class:`PrintedAlgorithmUndefined` where a printed sub-algorithm is undefined (k = n).
    """
    n = len(x)
    beta = beta_alg3(epsilon, gamma)
    ls0 = local_sens_bounds(x, 0, L, U, reading=reading)
    k_max = min(n, math.ceil(-math.log(ls0) / beta))
    s_u = 0.0
    for k in range(0, k_max + 1):
        ls_k = local_sens_bounds(x, k, L, U, reading=reading)
        s_u = max(s_u, math.exp(-beta * k) * ls_k)
    return s_u


def smooth_sensitivity_thm45(
    x: Sequence[float], L: float, U: float, epsilon: float, gamma: float
) -> float:
    """Theorem 4.5, eq. (28): S(X) = max_{k=1..n} e^{-beta k} A^(k)(X), A^(k) from eq. (24)
    as printed, beta = epsilon/gamma.  (Note k starts at 1, as printed.)"""
    n = len(x)
    mean = float(np.mean(np.asarray(x, dtype=np.float64)))
    beta = epsilon / gamma
    return max(math.exp(-beta * k) * bound_eq24_printed(n, mean, L, U, k) for k in range(1, n + 1))


# ---------------------------------------------------------------------------------------
# The kernel protocol of audit.protocols, filled with the printed algorithms (so that
# ``dpaudit regress --kernels kernels.gini.printed`` audits them).  Readings as documented above;
# Algorithm 1 with the charitable bracket (the literal one is dimensionally meaningless).
# No sampler or noise cdf is printed in the paper, so those protocol names are absent.
# ---------------------------------------------------------------------------------------

DPAUDIT_NAME = "Lan & Reiter (2025) as printed"
DPAUDIT_MAX_N = 40  # pure-Python transcriptions: keep audit data sets small


def gini(x: Sequence[float]) -> float:
    """Eq. (2) as printed: sum (2i-n-1) x_i / (n xbar (n-1)), on the sorted data."""
    xs = _sorted(x)
    n = xs.size
    num = sum((2 * i - n - 1) * xs[i - 1] for i in range(1, n + 1))
    return float(num / (n * (xs.sum() / n) * (n - 1)))


def gini_eq1(x: Sequence[float]) -> float:
    """Eq. (1) as printed: sum_i sum_j |z_i - z_j| / (2 n^2 zbar) (literal double sum)."""
    z = np.asarray(x, dtype=np.float64)
    n = z.size
    return float(np.abs(z[:, None] - z[None, :]).sum() / (2 * n**2 * z.mean()))


def min_mean(x: Sequence[float], k: int, L: float, U: float) -> float:
    return min_ave(x, k, L)


def max_mean(x: Sequence[float], k: int, L: float, U: float) -> float:
    return max_ave(x, k, U)


def min_gini(x: Sequence[float], k: int, L: float, U: float) -> float:
    return fast_min_g(x, k, reading="charitable")


def max_gini(x: Sequence[float], k: int, L: float, U: float) -> float:
    return fast_max_g(x, k, L, U)


def bound_A(x: Sequence[float], k: int, L: float, U: float) -> float:
    return local_sens_bounds(x, k, L, U, reading="charitable")


def bound_A_iq(x: Sequence[float], k: int, L: float, U: float) -> float:
    n = len(x)
    return bound_eq24_printed(n, float(np.mean(np.asarray(x, dtype=np.float64))), L, U, k)


def smooth_sensitivity(x: Sequence[float], L: float, U: float, beta: float) -> float:
    """Algorithm 3 with the epsilon that gives this beta at gamma = 2 (beta = eps/6)."""
    return smooth_sensitivity_alg3(x, L, U, 2 * (2.0 + 1) * beta, 2.0, reading="charitable")


def release_scale(x: Sequence[float], L: float, U: float, epsilon: float, gamma: float) -> float:
    """S/alpha with Algorithm 3's S and Section 2.3's alpha = eps/(4 gamma)."""
    alpha, _ = constants_section23(epsilon, gamma)
    return smooth_sensitivity_alg3(x, L, U, epsilon, gamma, reading="charitable") / alpha
