"""The DSL vocabulary (audit/dsl.py): concrete runs are reproducible and draw the stated laws;
symbolic values stay linear; constructs outside the DSL raise DSLError naming the line."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from audit import dsl
from audit.dsl import DSLError, Lin, geometric, laplace, mechanism


@mechanism(epsilon="eps", relation="linf1", outputs="bool-list")
def svt(q, eps, T=0.0, N=1):
    out, count = [], 0
    rho = laplace(2 / eps)
    for i in range(len(q)):
        nu = laplace(4 * N / eps)
        if q[i] + nu >= T + rho:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


def test_concrete_run_is_reproducible_from_the_generator():
    q = [0.0, 1.0, 2.0, 3.0]
    with dsl.concrete(np.random.default_rng(7)):
        a = [svt(q, 1.0) for _ in range(50)]
    with dsl.concrete(np.random.default_rng(7)):
        b = [svt(q, 1.0) for _ in range(50)]
    assert a == b
    assert len({tuple(x) for x in a}) > 1  # it is random


def test_laplace_and_geometric_draw_their_laws():
    # seeded; 40000 draws: the standard error of the mean |x| is about 0.5%, so a 3% band
    # has a false-alarm rate below 1e-6 and catches a scale off by 10%
    rng = np.random.default_rng(1)
    with dsl.concrete(rng):
        xs = np.array([laplace(2.0) for _ in range(40000)])
        ks = np.array([geometric(1.5) for _ in range(40000)])
    assert abs(np.mean(np.abs(xs)) - 2.0) < 0.06  # E|Lap(b)| = b
    assert ks.dtype.kind == "i"
    a = math.exp(-1 / 1.5)
    p0 = (1 - a) / (1 + a)  # P(K = 0) of the two-sided geometric law
    assert abs(np.mean(ks == 0) - p0) < 0.015
    assert abs(np.mean(ks == 2) - p0 * a * a) < 0.01


def test_sampler_outside_a_run_is_a_clear_error():
    with pytest.raises(DSLError, match="outside a dpaudit run"):
        laplace(1.0)


def test_linear_arithmetic_is_exact():
    x, y = Lin.var("x0"), Lin.var("q1")
    e = (x + 2 * y - 0.5) / 2 - y
    assert e.terms == {"x0": Fraction(1, 2)}
    assert e.const == Fraction(-1, 4)
    assert repr(3 - x) == "-x0 + 3"


@pytest.mark.parametrize("body, construct", [
    (lambda x, y: x * y, "multiplying two noisy"),
    (lambda x, y: x == y, "'=='"),
    (lambda x, y: float(x), "float()"),
    (lambda x, y: list(range(5))[x], "index"),
    (lambda x, y: np.exp(x), "numpy"),
    (lambda x, y: 1 / x, "dividing by a noisy"),
    (lambda x, y: bool(x), "truth value"),
])
def test_non_linear_constructs_raise_naming_the_line(body, construct):
    x, y = Lin.var("x0"), Lin.var("x1")
    with pytest.raises(DSLError) as info:
        body(x, y)
    msg = str(info.value)
    assert construct in msg
    assert "test_dsl.py:" in msg  # the user's line, not dpaudit's


def test_eps_may_only_scale_noise():
    e = dsl.EpsPower()
    s = 4 * 2 / e
    assert (s.coef, s.power) == (Fraction(8), -1)
    with pytest.raises(DSLError, match="eps"):
        _ = e + 1
    with pytest.raises(DSLError, match="eps"):
        _ = Lin.var("q0") + e


def test_metadata_and_encoding():
    assert (svt.relation, svt.outputs, svt.epsilon_param) == ("linf1", "bool-list", "eps")
    assert svt.encode([False, True], 4) == [0.0, 1.0, -1.0, -1.0]
    with pytest.raises(ValueError, match="relation"):
        mechanism(relation="l2")(lambda q, eps: q)
    m = mechanism(outputs="mixed-list")(lambda q, eps: q)
    assert m.encode([False, 2.5], 3) == [0.0, 0.0, 2.0, 2.5, -1.0, 0.0]


def test_sample_is_a_vectorised_mechanism():
    rng = np.random.default_rng(3)
    ys = svt.sample(np.array([-10.0, -10.0, 10.0]), 200, rng)
    assert ys.shape == (200, 3)
    # once a True is output the list ends (N = 1): every row is F..F T -1.. or all F
    for row in ys:
        r = list(row)
        if 1.0 in r:
            k = r.index(1.0)
            assert r[:k] == [0.0] * k and r[k + 1:] == [-1.0] * (len(r) - k - 1)
        else:
            assert r == [0.0] * 3
    # the first two queries are far below the threshold, the third far above it
    assert np.mean(ys[:, 2] == 1.0) > 0.5
