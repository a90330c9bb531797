"""Kernels of Dick, Kulesza, Sun & Suresh, *Subset-based instance optimality in private
estimation* (subject ``dick-et-al-subset-optimal``).

* :mod:`.thresholds`  Definitions 3-5 (rank-r thresholds, rank error, (alpha, beta)-approx),
  Algorithm 2 (exponential mechanism over [a, b], windowed rank loss) as exact-shape pieces
  and a vectorised O(n log n) sampler.
* :mod:`.mean`        Algorithm 1 (bounded mean) and Algorithm 3 (subset-optimal mean).
* :mod:`.monotone`    Algorithm 5 (inverse sensitivity) and Algorithm 4 (monotone properties)
  for the mean, a quantile and the median.

Pure functions; the only randomness is the numpy Generator each sampler takes.
"""
