"""What a sampled run could have refuted, in words: its reach and its power on an event.

* :func:`reach` — the largest epsilon that *any* event can certify with ``n`` outputs per
  data set at per-bound error ``alpha``: the most extreme counts are ``n`` of ``n`` under D
  and ``0`` of ``n`` under D', whose one-sided Clopper-Pearson bounds are ``alpha^(1/n)``
  and ``1 - alpha^(1/n)`` (Clopper & Pearson 1934, exact binomial bounds), so
  ``reach = ln(alpha^(1/n) / (1 - alpha^(1/n)))`` (~ ``ln(n / ln(1/alpha))``).  A claim
  above the reach cannot be refuted by a run of this size whatever the mechanism does.
* :func:`power_words` — one sentence for a not-refuted run: the reach, whether the claim is
  above it, and on the witness event the observed probabilities under D and D' with the
  smallest log-ratio the run would have flagged (from the caller's power computation).

Nothing here prints or writes files.
"""

from __future__ import annotations

import math

__all__ = ["power_words", "reach"]


def reach(n: int, alpha: float, delta: float = 0.0) -> float:
    """The largest epsilon certifiable from ``n`` outputs per data set (module docstring)."""
    if n < 1 or not 0.0 < alpha < 1.0:
        raise ValueError(f"need n >= 1 and 0 < alpha < 1, got n={n!r}, alpha={alpha!r}")
    lo = alpha ** (1.0 / n)
    hi = -math.expm1(math.log(alpha) / n)  # 1 - alpha^(1/n), accurately
    return math.log(max(lo - delta, 0.0) / hi) if lo > delta else 0.0


def power_words(*, claimed: float, n: int, alpha: float, counts: dict[str, int] | None,
                detectable: float | None, delta: float = 0.0) -> str:
    """A plain sentence on what this not-refuted run could have seen (module docstring).
    ``counts``: the witness event's counts ``{"first": k, "second": k', "n": n}``;
    ``detectable``: the smallest true log-ratio on that event flagged with probability
    >= 0.9 (``inf`` when none)."""
    r = reach(n, alpha, delta)
    parts = [f"with {n:,} outputs per data set no event can certify more than "
             f"epsilon = {r:.3g}"]
    if claimed >= r:
        parts.append(f"the claim epsilon = {claimed:g} is ABOVE this run's reach: no run of "
                     f"this size could refute it, whatever the mechanism does (about "
                     f"{math.ceil(math.log(1 / alpha) * math.exp(claimed)):,} outputs per "
                     "data set would be needed)")
    if counts:
        pf, ps = counts["first"] / counts["n"], counts["second"] / counts["n"]
        ev = f"on the witness event P(D) = {pf:.3g}, P(D') = {ps:.3g}"
        if detectable is None or not math.isfinite(detectable):
            parts.append(ev + ("; no violation on it can be flagged at this size"
                               if claimed >= r else
                               "; the event is too rare at this size for any violation on "
                               "it to be flagged"))
        else:
            parts.append(ev + f"; a true log-ratio >= {detectable:.3g} on it would have been "
                         "flagged with probability >= 0.9")
    return "; ".join(parts) + "."
