"""The Liu kernel protocol: what a module must provide to be audited by ``dpaudit regress
--subject liu-global-sensitivity`` (names, signatures, meaning).

Statistics take records (Fractions give exact Fractions); ``exact_gs`` / ``laplace_scale`` /
``laplace_release`` make the Laplace release of a statistic under Def 1 (replace one,
``"replace-one"``) or Def 2 (add/remove one, ``"add-remove-one"``).  Samplers take a
``numpy.random.Generator`` (the suite feeds scripted generators to measure the scale really
used).  Implementation shipped: :mod:`kernels.global_sensitivity.api`.
"""

from __future__ import annotations

__all__ = ["PROTOCOL"]

PROTOCOL: dict[str, str] = {
    "mean": "mean(xs) -> sample mean (Section 1)",
    "proportion": "proportion(bits) -> share of 1s (Section 1)",
    "histogram": "histogram(labels, k) -> counts of 0..k-1 (Section 1)",
    "proportion_vector": "proportion_vector(labels, k) -> proportions of 0..k-1 (Section 1)",
    "variance": "variance(xs) -> sample variance, divisor n - 1 (Section 2)",
    "covariance": "covariance(pts) -> sample covariance, divisor n - 1 (Section 3)",
    "pooled_variance": "pooled_variance(cells) -> within-cell sums of squares / (n - J) "
    "(Section 4)",
    "pooled_covariance": "pooled_covariance(cells) -> within-cell sums of products / (n - J) "
    "(Section 5)",
    "exact_gs": "exact_gs(stat, relation, n=, lo=, hi=, lo2=, hi2=, sizes=, k=) -> Fraction: "
    "the l1 global sensitivity the release uses",
    "laplace_scale": "laplace_scale(gs, epsilon) -> float: b >= GS/epsilon (rounded up)",
    "laplace_release": "laplace_release(value, gs, epsilon, rng, size) -> T + Lap(b) per "
    "coordinate; one rng.laplace call",
    "truncated_laplace": "truncated_laplace(value, scale, lo, hi, rng, size) -> T + Lap(scale) "
    "conditioned on [lo, hi]; one rng.random(size) call (inverse cdf)",
    "clip": "clip(y, lo, hi) -> boundary-inflated truncation",
    "rescale_proportions": "rescale_proportions(y) -> negatives to 0, divided by the sum "
    "(all <= 0: uniform)",
}
