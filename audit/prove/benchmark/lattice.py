"""Benchmark programs on the edges of the exact refutation (issue 36): integer (geometric)
outputs that can equal a constant another path prints, and a leak that shows only jointly in
two numeric outputs.  Each correct program has a broken twin."""

from __future__ import annotations

from audit.dsl import geometric, laplace, mechanism


@mechanism(epsilon="eps", relation="onehot1", outputs="number")
def geometric_with_constant_path(q, eps):
    """eps-DP: the output is always y = q[0] + G with G two-sided geometric of scale 1/eps
    (Ghosh, Roughgarden & Sundararajan, STOC 2009), but when q[0] >= 1 and y is exactly 1
    the program prints the constant 1 on a path of its own.  The output law is that of y,
    so the pmf ratio at shift 1 is exactly e^eps.  An evaluator that counts only the path
    printing the constant sees P(output = 1) = 0 on q[0] = 0 (epsilon_witness = infinity)."""
    return _print_one_as_constant(q, geometric(1 / eps))


def _print_one_as_constant(q, noise):
    """q[0] + noise, printed as the constant 1 on a path of its own when q[0] >= 1 and the
    value is exactly 1 (the same output law)."""
    y = q[0] + noise
    if q[0] >= 1:
        if y >= 1:
            if y <= 1:
                return 1
    return y


@mechanism(epsilon="eps", relation="onehot1", outputs="number")
def geometric_with_constant_path_small_noise(q, eps):
    """BROKEN.  :func:`geometric_with_constant_path` with geometric noise of scale
    1/(2 eps).  What breaks: half the noise (pmf ratio e^(2 eps) at shift 1)."""
    return _print_one_as_constant(q, geometric(1 / (2 * eps)))


@mechanism(epsilon="eps", relation="linf1", outputs="number-list")
def two_noisy_copies(q, eps):
    """eps-DP: q[0] released twice with independent Laplace noise of scale 2/eps (sequential
    composition of two eps/2-DP releases, Dwork & Roth 2014, Thm 3.16)."""
    return [q[0] + laplace(2 / eps), q[0] + laplace(2 / eps)]


@mechanism(epsilon="eps", relation="linf1", outputs="number-list")
def mirrored_noisy_copies(q, eps):
    """BROKEN.  q[0] + X and q[0] - X with one Laplace draw X of scale 1/eps.  What breaks:
    each output alone is eps-DP, but their sum is 2 q[0] exactly: the leak shows only in a
    joint event (y_0 + y_1 >= t), never in an event on one output."""
    x = laplace(1 / eps)
    return [q[0] + x, q[0] - x]


@mechanism(epsilon="eps", relation="onehot1", outputs="number")
def half_noise_from_four_queries(q, eps):
    """BROKEN.  The Laplace mechanism on q[0] (scale 1/eps, eps-DP) -- except that from
    n = 4 queries on it draws half the noise.  What breaks: eps-DP for n <= 3 only (cost
    2 eps at n = 4); a search that stops at n = 3 below --n-max 4 never sees it."""
    if len(q) >= 4:
        return q[0] + laplace(1 / (2 * eps))
    return q[0] + laplace(1 / eps)
