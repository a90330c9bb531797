"""Test-side name for the brute-force oracles of :mod:`proofs.gini.oracles` (kept for brevity)."""

from proofs.gini.oracles import (  # noqa: F401
    Q,
    ball_lower_bound_A,
    extremes_bruteforce,
    gini1_double_sum,
    gini2,
    local_sensitivity,
)
