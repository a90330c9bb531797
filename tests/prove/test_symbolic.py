"""Path enumeration (audit/prove/symbolic.py) against hand-enumerated paths."""

from __future__ import annotations

from fractions import Fraction

import pytest

from audit.dsl import DSLError, laplace, mechanism
from audit.examples.dsl_mechanisms import noisy_max, partial_sum, sparse_vector
from audit.prove.symbolic import Scale, enumerate_paths


def test_sparse_vector_n2_has_three_paths():
    # by hand (N = 1): T | F T | F F, with 1, 2, 2 comparisons and 2, 3, 3 draws
    paths = enumerate_paths(sparse_vector, 2)
    assert [p.output for p in paths] == [(True,), (False, True), (False, False)]
    assert [len(p.constraints) for p in paths] == [1, 2, 2]
    assert [len(p.draws) for p in paths] == [2, 3, 3]
    p = paths[1]
    assert [(d.site, d.index, d.law, d.scale) for d in p.draws] == [
        ("rho", 0, "laplace", Scale(Fraction(2), -1)),
        ("nu", 0, "laplace", Scale(Fraction(4), -1)),
        ("nu", 1, "laplace", Scale(Fraction(4), -1))]
    # F at i = 0: q0 + nu0 - T - rho < 0; T at i = 1: q1 + nu1 - T - rho >= 0
    c0, c1 = p.constraints
    assert c0.op == "<" and c1.op == ">="
    assert c0.coefficients() == {"x0": -1, "x1": 1}
    assert c0.constant().terms == {"q0": 1, "p:T": -1}
    a, b = c1.at([Fraction(3), Fraction(5)], {"T": Fraction(1, 2)})
    assert a == {"x0": -1, "x2": 1} and b == Fraction(9, 2)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_sparse_vector_has_n_plus_one_paths(n):
    assert len(enumerate_paths(sparse_vector, n)) == n + 1


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_noisy_max_has_two_to_the_n_minus_one_paths(n):
    # each of the n - 1 later queries either becomes the current maximum or not
    paths = enumerate_paths(noisy_max, n)
    assert len(paths) == 2 ** (n - 1)
    assert all(len(p.constraints) == n - 1 for p in paths)
    assert all(len(p.draws) == n for p in paths)
    # the output is the last index that became the maximum
    for p in paths:
        winners = [0] + [i + 1 for i, b in enumerate(p.decisions) if b]
        assert p.output == winners[-1]


def test_partial_sum_is_one_path_with_a_linear_output():
    (p,) = enumerate_paths(partial_sum, 3)
    assert p.constraints == () and len(p.draws) == 1
    assert p.output.terms == {"q0": 1, "q1": 1, "q2": 1, "x0": 1}


def test_infeasible_branches_are_pruned():
    @mechanism(outputs="index")
    def twice(q, eps):
        x = q[0] + laplace(1 / eps)
        if x > 0:
            if x > -1:      # always true after x > 0: one feasible branch
                return 1
            return 2
        if abs(x) >= 0:     # abs forks x >= 0 (infeasible only as x == 0 ... feasible)
            return 3
        return 4

    outs = sorted(p.output for p in enumerate_paths(twice, 1))
    # by hand: x > 0 -> 1; x <= 0 and x >= 0 (x = 0) -> 3; x < 0 -> -x >= 0 -> 3
    assert outs == [1, 3, 3]


def test_numeric_epsilon_gives_numeric_scales():
    paths = enumerate_paths(sparse_vector, 1, eps=Fraction(1, 2))
    assert paths[0].draws[0].scale == Scale(Fraction(4), 0)


def test_outside_the_dsl_names_the_line():
    @mechanism(outputs="number")
    def product(q, eps):
        return laplace(1 / eps) * laplace(1 / eps)

    with pytest.raises(DSLError, match=r"test_symbolic.py:\d+ .*multiplying two noisy"):
        enumerate_paths(product, 1)

    @mechanism(outputs="number")
    def eps_in_data(q, eps):
        return q[0] * eps + laplace(1 / eps)

    with pytest.raises(DSLError, match="eps"):
        enumerate_paths(eps_in_data, 1)


def test_anchors_are_the_data_a_draw_is_added_to():
    from audit.prove.benchmark.sums import smart_sum  # refute's benchmark (M = 2 blocks)

    # by hand, n = 4: running noise r0 at item 0 on q0, block noise b0 at item 1 on q0 + q1,
    # r1 at item 2 on q2 (base = q0 + q1 + b0 is b0's data, not r1's), b1 on q2 + q3
    (p,) = enumerate_paths(smart_sum, 4)
    by_site = {(d.site, d.index): p.anchors[d.name] for d in p.draws}
    assert by_site[("running", 0)].terms == {"q0": 1}
    assert by_site[("base", 0)].terms == {"q0": 1, "q1": 1}
    assert by_site[("running", 1)].terms == {"q2": 1}
    assert by_site[("base", 1)].terms == {"q2": 1, "q3": 1}
    # a threshold noise compared with a public threshold has no query data
    (p0, *_) = enumerate_paths(sparse_vector, 2)
    assert p0.anchors["x0"].terms == {} and p0.anchors["x1"].terms == {"q0": 1}


def test_randomness_outside_the_samplers_is_refused():
    import random

    @mechanism(outputs="number")
    def hidden(q, eps):
        return q[0] + random.random() + laplace(1 / eps)  # invisible to the prover

    with pytest.raises(DSLError, match="randomness or state outside"):
        enumerate_paths(hidden, 1)

    calls = []

    @mechanism(outputs="bool-list")
    def stateful(q, eps):  # the threshold drifts from run to run
        calls.append(1)
        return [q[0] + laplace(1 / eps) >= len(calls)]

    with pytest.raises(DSLError, match="randomness or state outside"):
        enumerate_paths(stateful, 1)


def test_unsupported_operators_are_bad_input_naming_the_line():
    @mechanism(outputs="number")
    def floor_div(q, eps):
        return (q[0] + laplace(1 / eps)) // 2

    # refused by the DSL with the line (not an ordinary TypeError the program could catch)
    with pytest.raises(DSLError, match=r"test_symbolic.py:\d+ \(return .*//.*does not support"):
        enumerate_paths(floor_div, 1)
