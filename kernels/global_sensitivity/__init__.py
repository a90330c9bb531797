"""Kernels under audit for Liu, supplement to "Statistical Properties of Sanitized Results from
Differentially Private Laplace Mechanism with Univariate Bounding Constraints"
(``shared/papers/liu-laplace-bounding-constraints-supplement.md``).

* :mod:`.statistics` — the statistics themselves (mean, proportion, histogram, proportion
  vector, sample variance / covariance, pooled variance / covariance over J cells), exact in
  Fractions when given Fractions;
* :mod:`.formulas` — their l1 global sensitivities as printed (Sections 1-5) and as
  corrected (the exact suprema established in :mod:`proofs.global_sensitivity`);
* :mod:`.releases` — the Laplace releases with a given GS and the bounding constraints applied
  to sanitized values (clipping / boundary-inflated truncation, truncation by re-drawing,
  rescaling of a proportion vector; Section 6, details assumed and stated there).

Pure functions, no I/O; randomness only through a numpy ``Generator`` argument.
"""
