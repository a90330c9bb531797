"""Candidate events on functions of several output columns: thresholds on counts of columns
in a state, on counts of columns (and of consecutive-column increments) above their median,
on the sum of the continuous entries, on the Hamming distance to the modal
output of each side, and on learned linear scores (DP-Sniper's idea, Bichsel et al. 2021:
a classifier of "which data set produced this output", thresholded): least squares on +-1
labels, and an L2-penalised logistic regression (scipy's L-BFGS-B).

Families: ``aggregate`` (counts, sum, Hamming) and ``learned`` (the score).  The learned
score's weights are fitted (least squares on +-1 labels) on the first half of the rows
given and its thresholds counted on the second half, so its candidates' counts are not
those of the data it was fitted on; the selection step then rescored every finalist on
held-out rows (:mod:`~audit.privacy.blackbox.select`), so nothing here needs to be honest
on its own.  Each event is {feature(y) > t} or {feature(y) < t} with the feature's
parameters frozen (:class:`~audit.privacy.blackbox.features.Feature`): a fixed
post-processing of the output, certified on fresh draws like any other event.
"""

from __future__ import annotations

import numpy as np

from audit.privacy.blackbox.events import Event
from audit.privacy.blackbox.features import Feature, column_differences, design, states

__all__ = ["AggregateFamily", "aggregate_candidates", "detect_codes", "median_count_features",
           "min_norm_least_squares", "modal_state_row"]

_HASH_MULT = np.uint64(0x9E3779B97F4A7C15)


def detect_codes(pooled: np.ndarray, max_levels: int, max_codes: int = 16) -> tuple[float, ...]:
    """Values to treat as discrete states: every level of a column with at most
    ``max_levels`` distinct values; in other columns, +-inf and any value repeated at least
    max(5, rows / 1000) times (codes such as -1000 "aborted" inside a continuous output).
    At most ``max_codes``, most frequent first, returned sorted."""
    n = pooled.shape[0]
    counts: dict[float, int] = {}
    for c in range(pooled.shape[1]):
        col = pooled[:, c]
        v, k = np.unique(col[~np.isnan(col)], return_counts=True)
        if v.size <= max_levels:
            keep = np.ones(v.size, dtype=bool)
        else:
            keep = (k >= max(5, n // 1000)) | np.isinf(v)
        for x, m in zip(v[keep], k[keep], strict=True):
            counts[float(x)] = counts.get(float(x), 0) + int(m)
    top = sorted(counts, key=lambda x: -counts[x])[:max_codes]
    return tuple(sorted(top))


def row_keys(st: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row of a state matrix (collisions only merge selection counts;
    the events built from representative rows are exact)."""
    key = np.zeros(st.shape[0], dtype=np.uint64)
    with np.errstate(over="ignore"):
        for c in range(st.shape[1]):
            key = key * _HASH_MULT + st[:, c].astype(np.uint64) + np.uint64(1)
    return key


def modal_state_row(st: np.ndarray) -> tuple[int, ...]:
    """The most frequent state row (by hash class; ties: smallest hash)."""
    keys = row_keys(st)
    uk, first, cnt = np.unique(keys, return_index=True, return_counts=True)
    return tuple(int(s) for s in st[first[int(np.argmax(cnt))]])


class AggregateFamily:
    """Candidate events of one family with their counts on ``n`` rows of each side."""

    def __init__(self, name: str, n: int) -> None:
        self.name, self.n = name, n
        self.events: list[Event] = []
        self.ka: list[int] = []
        self.kb: list[int] = []

    def add_thresholds(self, feat: Feature, fa: np.ndarray, fb: np.ndarray,
                       levels: np.ndarray) -> None:
        pooled = np.concatenate([fa, fb])
        pooled = pooled[np.isfinite(pooled)]
        if pooled.size == 0:
            return
        u = np.unique(pooled)
        if u.size <= 2:
            if u.size == 1:
                return
            t = u
        elif u.size <= 64:
            t = u
        else:
            pooled.sort()
            idx = np.clip(np.round(levels * (pooled.size - 1)).astype(np.int64), 0,
                          pooled.size - 1)
            t = np.unique(pooled[idx])
        sa, sb = np.sort(fa), np.sort(fb)
        gt_a = sa.size - np.searchsorted(sa, t, side="right")
        gt_b = sb.size - np.searchsorted(sb, t, side="right")
        lt_a = np.searchsorted(sa, t, side="left")
        lt_b = np.searchsorted(sb, t, side="left")
        for i, x in enumerate(t):
            self.events.append(Event("gt", 0, float(x), family=self.name, feature=feat))
            self.ka.append(int(gt_a[i]))
            self.kb.append(int(gt_b[i]))
            self.events.append(Event("lt", 0, float(x), family=self.name, feature=feat))
            self.ka.append(int(lt_a[i]))
            self.kb.append(int(lt_b[i]))

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(self.ka, dtype=np.int64), np.asarray(self.kb, dtype=np.int64)


def min_norm_least_squares(z: np.ndarray, y: np.ndarray) -> np.ndarray:
    """argmin ||z w - y|| (minimum-norm among minimisers) through the normal equations
    (z^T z + lambda I) w = z^T y with lambda = 1e-9 * rows: a Cholesky solve of a d x d
    system, an order of magnitude cheaper than an SVD of the n x d design when n >> d.  The
    design of state indicators is rank-deficient (each column's indicators sum to one), and
    the vanishing ridge picks the minimum-norm solution, as an SVD would; falls back to the
    SVD if the Cholesky factorisation fails."""
    from scipy.linalg import LinAlgError, cho_factor, cho_solve

    gram = z.T @ z
    gram[np.diag_indices_from(gram)] += 1e-9 * z.shape[0]
    try:
        return np.asarray(cho_solve(cho_factor(gram), z.T @ y), dtype=np.float64)
    except (LinAlgError, ValueError):
        w, *_ = np.linalg.lstsq(z, y, rcond=None)
        return np.asarray(w, dtype=np.float64)


def _learned_weights(xa: np.ndarray, xb: np.ndarray) -> np.ndarray | None:
    """Least-squares weights of the labels +1 (first data set) / -1 (second) on the
    standardised design columns, returned in the original units (None if degenerate)."""
    x = np.concatenate([xa, xb])
    lab = np.concatenate([np.ones(xa.shape[0]), -np.ones(xb.shape[0])])
    mu = x.mean(axis=0)
    sd = x.std(axis=0)
    live = sd > 0
    if not live.any():
        return None
    z = (x[:, live] - mu[live]) / sd[live]
    w_live = min_norm_least_squares(z, lab - lab.mean())
    if not np.all(np.isfinite(w_live)) or not np.any(w_live):
        return None
    w = np.zeros(x.shape[1])
    w[live] = w_live / sd[live]
    # round to 12 significant digits so the reported weights rebuild the same event
    return np.array([float(f"{v:.12g}") for v in w])


def _logistic_weights(xa: np.ndarray, xb: np.ndarray, ridge: float = 1.0,
                      max_iter: int = 200) -> np.ndarray | None:
    """Logistic-regression weights of the label "from the first data set" on the
    standardised design columns (DP-Sniper's classifier, Bichsel et al. 2021, Section 5),
    in the original units; the threshold events on the linear predictor are the events on
    the fitted probability (it is monotone in the predictor).

    Minimises the L2-penalised negative log-likelihood (penalty ``ridge`` / 2 ||w||^2 on
    the slopes, not the intercept: scikit-learn's ``LogisticRegression(C=1 / ridge)``
    objective) with scipy's L-BFGS-B and the exact gradient; the penalty keeps the fit
    finite on separable samples (outputs that never overlap).  None if degenerate (no
    varying column, non-finite or zero weights)."""
    from scipy.optimize import minimize

    x = np.concatenate([xa, xb])
    lab = np.concatenate([np.ones(xa.shape[0]), np.zeros(xb.shape[0])])
    mu, sd = x.mean(axis=0), x.std(axis=0)
    live = sd > 0
    if not live.any():
        return None
    z = np.empty((x.shape[0], int(live.sum()) + 1))
    z[:, 0] = 1.0
    z[:, 1:] = (x[:, live] - mu[live]) / sd[live]
    pen = np.full(z.shape[1], ridge)
    pen[0] = 0.0

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        eta = z @ w
        val = float(np.sum(np.logaddexp(0.0, eta) - lab * eta) + 0.5 * np.sum(pen * w * w))
        prob = 0.5 * (1.0 + np.tanh(0.5 * eta))  # the logistic function, overflow-free
        return val, z.T @ (prob - lab) + pen * w

    fit = minimize(loss, np.zeros(z.shape[1]), jac=True, method="L-BFGS-B",
                   options={"maxiter": max_iter})
    w_live = np.asarray(fit.x[1:], dtype=np.float64)
    if not np.all(np.isfinite(w_live)) or not np.any(w_live):
        return None
    out = np.zeros(x.shape[1])
    out[live] = w_live / sd[live]
    return np.array([float(f"{v:.12g}") for v in out])


#: rows of each side whose pooled medians give the count features' cut points
MEDIAN_ROWS = 50_000


def _medians(a: np.ndarray, b: np.ndarray) -> tuple[float, ...] | None:
    """Per-column median of the finite entries of both sides (12 significant digits, so a
    report's cut points rebuild the event); None when a column has no finite entry."""
    pooled = np.concatenate([a, b])
    med: list[float] = []
    for c in range(pooled.shape[1]):
        col = pooled[:, c]
        col = col[np.isfinite(col)]
        if col.size == 0:
            return None
        med.append(float(f"{float(np.median(col)):.12g}"))
    return tuple(med)


def median_count_features(a: np.ndarray, b: np.ndarray,
                          codes: tuple[float, ...]) -> list[Feature]:
    """# columns above their pooled median, and # consecutive-column increments above
    theirs.  For independent columns whose likelihood ratio changes sign near the median
    (a composition of Laplace releases) the first is the sufficient count behind the
    optimal event; the second is the same for cumulative outputs (a prefix sum releases
    the running total, whose increments are the independent noisy answers).  The cut
    points come from the first ``MEDIAN_ROWS`` selection rows of each side only and are
    frozen into the feature."""
    out: list[Feature] = []
    a, b = a[:MEDIAN_ROWS], b[:MEDIAN_ROWS]
    for kind, fa, fb in (("count-gt-each", a, b),
                         ("count-diff-gt-each", column_differences(a),
                          column_differences(b))):
        med = _medians(fa, fb)
        if med is not None:
            out.append(Feature(kind, codes, weights=med))
    return out


def aggregate_candidates(a: np.ndarray, b: np.ndarray, levels: np.ndarray, max_levels: int,
                         learned_rows: int = 20_000,
                         logistic: bool = False) -> list[AggregateFamily]:
    """The ``aggregate`` and ``learned`` families on outputs ``a`` (from D) and ``b``
    (from D'), both (n, d) with d >= 2; counts on all n rows for ``aggregate``, on the
    second half for ``learned`` (fitted on at most ``learned_rows`` rows of the first: a
    least-squares score and, with ``logistic``, a logistic one)."""
    n, d = a.shape
    codes = detect_codes(np.concatenate([a, b]), max_levels)
    k = len(codes)
    sta, stb = states(a, codes), states(b, codes)
    agg = AggregateFamily("aggregate", n)
    feats: list[Feature] = []
    present_states = np.unique(np.concatenate([sta.ravel()[:200_000], stb.ravel()[:200_000]]))
    for s in present_states:
        feats.append(Feature("count-state", codes, float(s)))
    feats.append(Feature("count-gt", codes, 0.0))
    if (sta == k + 1).any() or (stb == k + 1).any():
        feats.append(Feature("sum", codes))
        feats.extend(median_count_features(a, b, codes))
    if k:
        for ref in {modal_state_row(sta), modal_state_row(stb)}:
            feats.append(Feature("hamming", codes, ref=ref))
    for f in feats:
        agg.add_thresholds(f, f.apply(a), f.apply(b), levels)
    out = [agg]
    h = n // 2
    if h >= 20:
        fit = min(h, learned_rows)
        xa, xb = design(a[:fit], codes), design(b[:fit], codes)
        learned = AggregateFamily("learned", n - h)
        for fitter in (_learned_weights, _logistic_weights) if logistic else (
                _learned_weights,):
            w = fitter(xa, xb)
            if w is not None:
                f = Feature("linear", codes, weights=tuple(float(v) for v in w))
                learned.add_thresholds(f, f.apply(a[h:]), f.apply(b[h:]), levels)
        if learned.events:
            out.append(learned)
    return out
