"""Partial Sum and Smart Sum in the DSL, from Chan, Shi & Song, "Private and Continual
Release of Statistics", ACM TISSEC 14(3), 2011 (the simple "one noisy sum" counter and the
two-level counter of Sec. 3-4), in the shape of CheckDP's PartialSum / SmartSum benchmark
programs (Wang et al. CCS 2020).  Neighbouring streams differ in one item by at most 1
(``onehot1``).

Ambiguity resolved: the two-level counter releases, at every step, the last block's noisy
sum plus the noisy items since; an item enters at most two noisy terms (its own and its
block's), so each noise is Lap(2/eps) for an eps claim (CheckDP states the same program with
Lap(1/eps) and a 2 eps claim).  Block length ``M`` = 2.
"""

from __future__ import annotations

from audit.dsl import geometric, laplace, mechanism


@mechanism(epsilon="eps", relation="onehot1", outputs="number")
def partial_sum(q, eps):
    """The sum of the stream plus Lap(1/eps) (Chan et al. Sec. 3.1, one release).  eps-DP."""
    s = 0
    for i in range(len(q)):
        s = s + q[i]
    return s + laplace(1 / eps)


@mechanism(epsilon="eps", relation="onehot1", outputs="number")
def partial_sum_small_noise(q, eps):
    """BROKEN.  Partial Sum with Lap(1/(2 eps)).  What breaks: half the noise (cost 2 eps)."""
    s = 0
    for i in range(len(q)):
        s = s + q[i]
    return s + laplace(1 / (2 * eps))


@mechanism(epsilon="eps", relation="onehot1", outputs="number-list")
def smart_sum(q, eps, M=2):
    """Two-level counter (Chan et al.; CheckDP's SmartSum): at the end of each block of
    ``M`` items the block's sum gets its own noise and becomes the new base; inside a block
    every item is released with fresh noise on top of the running value.  eps-DP with
    Lap(2/eps) (module docstring)."""
    out = []
    base = 0
    running = 0
    block = 0
    for i in range(len(q)):
        block = block + q[i]
        if (i + 1) % M == 0:
            base = base + block + laplace(2 / eps)
            running = base
            block = 0
        else:
            running = running + q[i] + laplace(2 / eps)
        out.append(running)
    return out


@mechanism(epsilon="eps", relation="onehot1", outputs="number-list")
def smart_sum_no_block_noise(q, eps, M=2):
    """BROKEN.  Smart Sum whose block sums are released without noise.  What breaks: a
    block's exact sum is an output (infinite cost)."""
    out = []
    base = 0
    running = 0
    block = 0
    for i in range(len(q)):
        block = block + q[i]
        if (i + 1) % M == 0:
            base = base + block
            running = base
            block = 0
        else:
            running = running + q[i] + laplace(2 / eps)
        out.append(running)
    return out


@mechanism(epsilon="eps", relation="onehot1", outputs="number")
def partial_sum_geometric(q, eps):
    """Partial Sum with two-sided geometric noise of scale 1/eps (the discrete Laplace of
    Ghosh, Roughgarden & Sundararajan, STOC 2009) on integer streams.  eps-DP: the pmf
    ratio at shift 1 is exactly e^eps."""
    s = 0
    for i in range(len(q)):
        s = s + q[i]
    return s + geometric(1 / eps)


@mechanism(epsilon="eps", relation="onehot1", outputs="number")
def partial_sum_geometric_small_noise(q, eps):
    """BROKEN.  Partial Sum with two-sided geometric noise of scale 1/(2 eps).  What breaks:
    half the noise (cost exactly 2 eps)."""
    s = 0
    for i in range(len(q)):
        s = s + q[i]
    return s + geometric(1 / (2 * eps))
