"""Monte-Carlo reproduction of the accuracy claims of Ding, Wang, Zhang & Kifer (free gap).

Pure functions of (parameters, numpy Generator): they return plain dicts of figures, never
print.  Synthetic counting (monotone) queries stand in for the paper's transaction data sets:

* ``"separated"``: answers many noise scales apart (selection is essentially deterministic) -
  the regime in which Theorem 3 / Corollary 1 and the Section 6.2 formula are exact, because
  they treat the selected indices as fixed;
* ``"zipf"``: counts ``round(C / rank)`` (heavy-tailed, like item counts), where neighbouring
  top counts are within a few noise scales and selection effects appear.

Claims reproduced (``proofs/freegap_claims.py`` turns these figures into Findings):

1. :func:`simulate_topk_measures` - Section 5.2 / Figure 1b: half the budget selects the top k
   with Noisy-Top-K-with-Gap, half measures them (Lap(2k/eps) each); the BLUE of Theorem 3
   (lambda = 1 for counting queries) cuts the MSE by (k - 1)/(2k) -> 50%.
2. :func:`simulate_svt_measures` - Section 6.2 / Figure 1a: Sparse-Vector-with-Gap at eps/2
   (allocation 1 : k^(2/3) monotone, 1 : (2k)^(2/3) general) plus measurements; the
   per-query inverse-variance combination has MSE ratio (1 + r)^3/((1 + r)^3 + k^2) -> 1/2
   (monotone) or 4/5 (general).  Also measured: the joint BLUE that uses the shared
   threshold noise (:func:`kernels.freegap.mechanisms.svt_gap_blue_joint`; not in the paper).
3. :func:`simulate_adaptive_answers` - Section 7.3 / Figures 3-4: at the same eps,
   Adaptive-Sparse-Vector-with-Gap answers more queries than Sparse Vector (theta =
   1/(1 + k^(2/3)), threshold = the m-th largest count with m uniform in 2k..8k), with its
   precision and the budget left when stopped after k answers.

Standard errors: every ratio of mean squared errors is a ratio of means over independent
runs; its standard error is the delta-method one computed from the per-run means
(:func:`ratio_with_se`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from kernels.errors import InvalidParameterError
from kernels.freegap import mechanisms as fg

__all__ = [
    "ratio_with_se",
    "separated_counts",
    "simulate_adaptive_answers",
    "simulate_svt_measures",
    "simulate_topk_measures",
    "zipf_counts",
]


def ratio_with_se(num: np.ndarray, den: np.ndarray) -> tuple[float, float]:
    """mean(num)/mean(den) over paired per-run values and its delta-method standard error
    sqrt(var(N)/N^2 + var(D)/D^2 - 2 cov(N, D)/(N D)) * ratio / sqrt(R)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    r = num.size
    mn, md = num.mean(), den.mean()
    ratio = mn / md
    if r < 2:
        return float(ratio), math.inf
    cov = np.cov(num, den)
    rel = cov[0, 0] / mn**2 + cov[1, 1] / md**2 - 2 * cov[0, 1] / (mn * md)
    return float(ratio), float(abs(ratio) * math.sqrt(max(rel, 0.0) / r))


def separated_counts(n: int, spacing: float, top: float = 1e7) -> np.ndarray:
    """Counts ``top, top - spacing, top - 2 spacing, ...`` (n of them)."""
    return top - spacing * np.arange(n, dtype=np.float64)


def zipf_counts(n: int, total: float) -> np.ndarray:
    """Counts ``round(total / rank)`` for ranks 1..n (descending)."""
    return np.round(total / np.arange(1, n + 1, dtype=np.float64))


# ------------------------------------------------------------ 1. Top-K-with-Gap + BLUE
def simulate_topk_measures(
    k_values: list[int],
    epsilon: float,
    runs: int,
    rng: np.random.Generator,
    *,
    regime: str = "separated",
    n: int = 200,
    zipf_total: float = 5e4,
    lam: float | None = None,
) -> dict[str, Any]:
    """Section 5.2 with counting queries: ``eps/2`` for Noisy-Top-K-with-Gap (monotone scale
    Lap(k/(eps/2)) = Lap(2k/eps)), ``eps/2`` for measurements Lap(2k/eps), BLUE with
    ``lam`` (default 1 = Var(eta)/Var(xi); a wrong value is how tests make this fail).

    Per k: ``mse_alpha``, ``mse_beta`` (per query, averaged over the k selected), ``ratio``
    with ``se``, ``theory`` = (1 + lam k)/(k + lam k) at lam = 1, the fraction of runs whose
    selection was exactly the true top k in order (``correct_selection``)."""
    if regime not in ("separated", "zipf"):
        raise InvalidParameterError(f"regime must be 'separated' or 'zipf', got {regime!r}")
    lam_used = 1.0 if lam is None else float(lam)
    rows = []
    for k in k_values:
        b = 2.0 * k / epsilon
        q = separated_counts(n, 40.0 * b) if regime == "separated" else zipf_counts(n, zipf_total)
        perm = rng.permutation(n)  # queries arrive in an arbitrary order
        qs = q[perm]
        out = fg.sample_top_k_with_gap(qs, k, epsilon / 2.0, rng, runs, monotone=True)
        idx = out[:, :k].astype(np.int64)
        gaps = out[:, k:]
        truth = qs[idx]
        alpha = truth + rng.laplace(0.0, b, size=(runs, k))
        if k == 1:
            beta = alpha
        else:
            beta = fg.blue_top_k_rows(alpha, gaps[:, : k - 1], lam_used)
        ea = ((alpha - truth) ** 2).mean(axis=1)
        eb = ((beta - truth) ** 2).mean(axis=1)
        ratio, se = ratio_with_se(eb, ea)
        true_order = np.argsort(-qs, kind="stable")[:k]
        rows.append({
            "k": k,
            "mse_alpha": float(ea.mean()),
            "mse_beta": float(eb.mean()),
            "ratio": ratio,
            "se": se,
            "theory": fg.blue_variance_ratio(k, 1.0),
            "improvement_pct": 100.0 * (1.0 - ratio),
            "theory_improvement_pct": 100.0 * (1.0 - fg.blue_variance_ratio(k, 1.0)),
            "correct_selection": float(np.mean((idx == true_order[None, :]).all(axis=1))),
        })
    return {"epsilon": epsilon, "runs": runs, "regime": regime, "n": n, "lam": lam_used,
            "rows": rows}


# ------------------------------------------------------- 2. Sparse-Vector-with-Gap + measures
def simulate_svt_measures(
    k_values: list[int],
    epsilon: float,
    runs: int,
    rng: np.random.Generator,
    *,
    monotone: bool = True,
    regime: str = "separated",
    n_factor: int = 4,
) -> dict[str, Any]:
    """Section 6.2: Sparse-Vector-with-Gap at ``eps/2`` (theta = recommended_theta(k)),
    measurements Lap(2k/eps) of the selected queries, combined per query with known variances
    (printed formula) and jointly (:func:`kernels.freegap.mechanisms.svt_gap_blue_joint`).

    Stream: ``n_factor * k`` queries, half of them above T = 0 by ``D`` and half below by D;
    ``regime="separated"``: D = 30 gap standard deviations (selection deterministic);
    ``"near"``: D = 0.5 gap standard deviation (selection effects)."""
    if regime not in ("separated", "near"):
        raise InvalidParameterError(f"regime must be 'separated' or 'near', got {regime!r}")
    rows = []
    eps_sel = epsilon / 2.0
    for k in k_values:
        var_gamma = fg.svt_gap_variance(eps_sel, k, monotone=monotone)
        th = fg.recommended_theta(k, monotone=monotone)
        var_thr = 2.0 / (th * eps_sel) ** 2
        var_q = var_gamma - var_thr
        b_meas = 2.0 * k / epsilon
        var_alpha = 2.0 * b_meas**2
        d = (30.0 if regime == "separated" else 0.5) * math.sqrt(var_gamma)
        n = n_factor * k
        signs = np.where(rng.permutation(n) < n // 2, 1.0, -1.0)
        q = d * signs
        out = fg.sample_svt_with_gap(q, 0.0, eps_sel, k, rng, runs, monotone=monotone)
        codes = out[:, n:]
        sel = codes == fg.MIDDLE
        count = sel.sum(axis=1)
        full = count == k
        r_idx, c_idx = np.nonzero(sel[full])
        truth = q[c_idx].reshape(-1, k)
        gamma = out[:, :n][full][r_idx, c_idx].reshape(-1, k)
        alpha = truth + rng.laplace(0.0, b_meas, size=truth.shape)
        beta = (alpha / var_alpha + gamma / var_gamma) / (1.0 / var_alpha + 1.0 / var_gamma)
        cg = var_q * np.eye(k) + var_thr * np.ones((k, k))
        cov = np.linalg.inv(np.eye(k) / var_alpha + np.linalg.inv(cg))
        m1 = cov / var_alpha
        m2 = cov @ np.linalg.inv(cg)
        joint = alpha @ m1.T + gamma @ m2.T
        ea = ((alpha - truth) ** 2).mean(axis=1)
        eb = ((beta - truth) ** 2).mean(axis=1)
        ej = ((joint - truth) ** 2).mean(axis=1)
        ratio, se = ratio_with_se(eb, ea)
        ratio_j, se_j = ratio_with_se(ej, ea)
        precision = float(np.mean(truth > 0)) if truth.size else math.nan
        rows.append({
            "k": k,
            "runs_with_k_answers": int(full.sum()),
            "ratio": ratio,
            "se": se,
            "theory": fg.svt_measure_ratio_printed(k, monotone=monotone),
            "ratio_joint_blue": ratio_j,
            "se_joint_blue": se_j,
            "theory_joint_blue": float(np.mean(np.diag(cov)) / var_alpha),
            "precision": precision,
        })
    return {"epsilon": epsilon, "runs": runs, "monotone": monotone, "regime": regime,
            "rows": rows}


# --------------------------------------------------------------- 3. Adaptive vs classical
def simulate_adaptive_answers(
    k_values: list[int],
    epsilon: float,
    runs: int,
    rng: np.random.Generator,
    *,
    n_items: int = 1000,
    zipf_total: float = 2e5,
    sigma_rule: str = "ours",
) -> dict[str, Any]:
    """Section 7.3 on synthetic Zipf counts (monotone): per run a threshold T = the m-th
    largest count, m uniform in 2k..8k, the items in a fixed random order; Sparse Vector
    (c = k) and Adaptive-SVT-with-Gap (footnote 6 noise) with theta = 1/(1 + k^(2/3)) at the
    same eps.  ``sigma_rule``: ``"ours"`` (2 sd of the Lap(1/eps2) top noise) or
    ``"printed"`` (4 sqrt 2/eps2, the non-monotone value).

    Per k: mean numbers of ⊤ answers (SVT; adaptive total / top / middle) with standard
    errors (over runs, conditional on the item order, which is drawn once from ``rng``),
    precision (answered items with count >= T), and the budget fraction left when the
    adaptive run is stopped after its k-th answer (Figure 4)."""
    if sigma_rule not in ("ours", "printed"):
        raise InvalidParameterError(f"sigma_rule must be 'ours' or 'printed', got {sigma_rule!r}")
    counts = zipf_counts(n_items, zipf_total)[rng.permutation(n_items)]
    ranked = np.sort(counts)[::-1]
    rows = []
    for k in k_values:
        th = fg.recommended_theta(k, monotone=True)
        bud = fg.adaptive_budgets(epsilon, k, th, monotone=True)
        sigma = None if sigma_rule == "ours" else 4.0 * math.sqrt(2.0) / bud.eps2
        ms = rng.integers(2 * k, 8 * k + 1, size=runs)
        t = ranked[ms - 1]  # one threshold per run
        # the samplers' noise laws (kernels.freegap.mechanisms.sample_sparse_vector /
        # sample_adaptive_svt_with_gap, monotone), drawn here so that T can vary per run
        e1_svt, e2_svt = th * epsilon, (1.0 - th) * epsilon
        s = fg.svt_pattern_from_noise(
            counts, t + rng.laplace(0.0, 1.0 / e1_svt, runs),
            np.zeros(runs), rng.laplace(0.0, k / e2_svt, (runs, n_items)), k,
        )
        eta = rng.laplace(0.0, 1.0 / bud.eps0, runs)
        xi = rng.laplace(0.0, 1.0 / bud.eps2, (runs, n_items))
        eta_q = rng.laplace(0.0, 1.0 / bud.eps1, (runs, n_items))
        sig = bud.sigma if sigma is None else sigma
        a = fg.adaptive_from_noise(counts, t, eta, xi, eta_q, k, sig)
        codes = a[:, n_items:]
        above_true = counts[None, :] >= t[:, None]
        s_yes = s == 1.0
        a_yes = (codes == fg.TOP) | (codes == fg.MIDDLE)
        svt_n = [s_yes.sum(axis=1)]
        ad_n = [a_yes.sum(axis=1)]
        ad_top = [(codes == fg.TOP).sum(axis=1)]
        ad_mid = [(codes == fg.MIDDLE).sum(axis=1)]
        prec_s = [np.array([(s_yes & above_true).sum(), s_yes.sum()])]
        prec_a = [np.array([(a_yes & above_true).sum(), a_yes.sum()])]
        # budget spent by the first k answers (eps2 per top, eps1 per middle)
        spent_units = np.where(codes == fg.TOP, 1, np.where(codes == fg.MIDDLE, 2, 0))
        order = np.cumsum(a_yes, axis=1)
        upto_k = np.where(order <= k, spent_units, 0).sum(axis=1)
        left = [1.0 - (bud.eps0 + upto_k * bud.eps2) / epsilon]
        svt_all = np.concatenate(svt_n)
        ad_all = np.concatenate(ad_n)
        diff = ad_all - svt_all  # independent runs, same T distribution
        ps, pa = np.sum(prec_s, axis=0), np.sum(prec_a, axis=0)
        rows.append({
            "k": k,
            "svt_answers": float(svt_all.mean()),
            "svt_answers_se": float(svt_all.std(ddof=1) / math.sqrt(runs)),
            "adaptive_answers": float(ad_all.mean()),
            "adaptive_answers_se": float(ad_all.std(ddof=1) / math.sqrt(runs)),
            "adaptive_top": float(np.concatenate(ad_top).mean()),
            "adaptive_middle": float(np.concatenate(ad_mid).mean()),
            "extra_answers": float(diff.mean()),
            "extra_answers_se": float(
                math.sqrt(svt_all.var(ddof=1) / runs + ad_all.var(ddof=1) / runs)
            ),
            "max_adaptive_answers": 2 * k - 1,
            "svt_precision": float(ps[0] / ps[1]) if ps[1] else math.nan,
            "adaptive_precision": float(pa[0] / pa[1]) if pa[1] else math.nan,
            "budget_left_after_k_pct": float(100.0 * np.concatenate(left).mean()),
        })
    return {"epsilon": epsilon, "runs": runs, "n_items": n_items, "zipf_total": zipf_total,
            "sigma_rule": sigma_rule, "rows": rows}
