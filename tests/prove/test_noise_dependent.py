"""Noise-dependent alignments (audit/prove/noise_dependent.py): Noisy Top-1 with Gap proved
with Ding et al.'s eq. (2), its broken twin refuted, and unsound noise-dependent alignments
refused, each refusal backed by an exact, independent demonstration that the map is not
one-to-one.

Every alignment replay below runs the DSL program concretely (audit/prove/concrete.py,
exact Fractions), independent of the Z3 encoding; the hand-written alignment is the one in
proofs/freegap/smt.py (``_align_eq2``).  The n <= 4 proof (dpaudit prove's default scope) is
slow-marked: ``PYTHONPATH=$PWD python -m pytest -m slow tests/prove/test_noise_dependent.py``."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from audit.dsl import laplace, mechanism
from audit.prove import cegis
from audit.prove.alignment import build_problem
from audit.prove.benchmark import noisy_max as nm
from audit.prove.concrete import run_with_noise
from audit.prove.noise_dependent import UnsoundAlignment, greedy_theta2, interior
from audit.prove.proof import prove_mechanism
from audit.prove.symbolic import output_shape
from proofs.freegap import smt

F = Fraction


def _holds(c, q, env, params=None):
    a, b = c.at(q, params)
    v = sum((coef * env[k] for k, coef in a.items()), b)
    return {">=": v >= 0, ">": v > 0, "<=": v <= 0, "<": v < 0}[c.op]


def _path_index(g, q, x, params=None):
    for j, p in enumerate(g.paths):
        env = {var: x[c] for var, c in g.coord_of[j].items()}
        if all(_holds(c, q, env, params) for c in p.constraints):
            return j
    return None  # the noise lies on a path of another output shape


def _aligned(mech, prob, theta, q, d, x, params=None):
    """The alignment of the module docstring evaluated exactly: the first path p' whose
    aligned noise lies on p' for q' and keeps the output (None: no such p')."""
    out0, _ = run_with_noise(mech, q, 1, x, params)
    g = next(g for g in prob.groups if g.n == len(q) and g.shape == output_shape(out0))
    p = _path_index(g, q, x, params)
    assert p is not None
    qp = [a + b for a, b in zip(q, d, strict=True)]
    eta_fixed = {}
    for c in g.coords:
        delta = g.delta[c].substitute({f"d{i}": d[i] for i in range(len(d))}).const
        t = theta.get((c[0], g.cls[c], 0), 0) + theta.get((c[0], g.cls[c], 1), 0) * delta
        eta_fixed[c] = F(t)

    def env(vals, qs):
        e = {f"q{i}": v for i, v in enumerate(qs)}
        e.update({f"p:{k}": F(v) for k, v in (params or {}).items()})
        e.update({f"@{c[0]}#{c[1]}": v for c, v in vals.items()})
        return e

    y_fixed = {c: x[c] + eta_fixed[c] for c in g.coords}
    for j in range(len(g.paths)):
        y = dict(y_fixed)
        for c in g.partner_component:
            if theta.get((c[0], g.cls[c], 2), 0):
                change = (g.partner[j][c].substitute(env(y_fixed, qp)).const
                          - g.partner[p][c].substitute(env(x, q)).const)
                y[c] = y_fixed[c] + change
        if _path_index(g, qp, y, params) == j and run_with_noise(mech, qp, 1, y,
                                                                 params)[0] == out0:
            return y
    return None


#: the DSL coordinates of noisy_top1_with_gap in query order (a = q[0], b = q[1], v = q[2..])
def _coords(n):
    return [("a", 0), ("b", 0)] + [("v", k) for k in range(n - 2)]


def _winner_classes_theta():
    """Eq. (2) in template form: the winner's draw keeps its gap to its output partner (the
    runner-up), every loser is left alone."""
    return {("a", "int/hit", 2): 1, ("b", "num/hit", 2): 1, ("v", "absent/hit", 2): 1}


def _check_proof(n_max):
    v = prove_mechanism(nm.noisy_top1_with_gap, n_max=n_max, refute=False)
    assert v.status == "verified" and v.sizes == list(range(2, n_max + 1))
    # the synthesised coefficients are eq. (2): theta2 = 1 for the winner, nothing else
    got = {(s, c, k): F(t) for s, cls in v.alignment.items() for c, ts in cls.items()
           for k, t in enumerate(ts) if F(t) != 0}
    assert got == {u: F(1) for u in _winner_classes_theta()}
    assert any("(P' - P) when the output index is 0" in line for line in v.sketch)
    assert any("-d_0 + d_1" in line for line in v.sketch)


def test_top1_with_gap_is_proved_for_every_n_up_to_3_with_eq_2():
    _check_proof(3)


@pytest.mark.slow
def test_top1_with_gap_is_proved_for_every_n_up_to_4_with_eq_2():
    # the default scope of dpaudit prove (about 2.5 s CPU; slow only under a loaded machine)
    _check_proof(4)


@pytest.mark.parametrize("n", [3, 4])
def test_synthesised_map_is_the_hand_written_eq_2_and_keeps_the_output(n):
    # random exact points: the synthesised map (first valid path of the aligned run) equals
    # proofs/freegap/smt.py's eq. (2) coordinate by coordinate, the concrete program returns
    # the same output on (q', y), and the cost is <= eps (1 with Lap(2/eps): weight 1/2)
    mech = nm.noisy_top1_with_gap
    prob = build_problem(mech, [n])
    theta = _winner_classes_theta()
    rng = random.Random(20261126 + n)
    coords = _coords(n)
    for _ in range(40):
        q = [F(rng.randint(-8, 8), 4) for _ in range(n)]
        d = [F(rng.randint(-4, 4), 4) for _ in range(n)]
        x = {c: F(rng.randint(-40, 40), 8) for c in coords}
        out0, _ = run_with_noise(mech, q, 1, x)
        if len(set(q[i] + x[c] for i, c in enumerate(coords))) < n:
            continue  # a tie: probability 0, outside the proof's scope
        y = _aligned(mech, prob, theta, q, d, x)
        assert y is not None
        qp = [a + b for a, b in zip(q, d, strict=True)]
        hand = smt._align_eq2(q, qp, [x[c] for c in coords], (out0[0],),
                              smt.Size(n), {}, "general")
        assert [y[c] for c in coords] == hand
        assert run_with_noise(mech, qp, 1, y)[0] == out0
        assert sum(abs(y[c] - x[c]) for c in coords) / 2 <= 1


def test_hand_written_eq_2_is_accepted_by_the_checker():
    prob = build_problem(nm.noisy_top1_with_gap, [2, 3])
    assert cegis.check_alignment(prob, _winner_classes_theta()) == []
    assert greedy_theta2(prob) == {(s, c): 1 for s, c, _ in _winner_classes_theta()}


def test_half_noise_twin_is_not_accepted_and_stays_refuted():
    # Lap(1/eps): eq. (2) costs |d_r - d_w| up to 2 > 1 (Ding et al. Theorem 2 needs 2/eps)
    prob = build_problem(nm.noisy_top1_with_gap_half_noise, [2, 3])
    cx = cegis.check_alignment(prob, _winner_classes_theta())
    assert cx, "eq. (2) must fail the cost bound at half the noise"
    v = prove_mechanism(nm.noisy_top1_with_gap_half_noise, n_max=3)
    assert v.status == "refuted"
    assert F(v.witness["epsilon_witness_lower"]) > 1


@mechanism(epsilon="eps", relation="linf1", outputs="number-list")
def _difference(q, eps):
    """Two noisy answers and their difference: each draw is the other's output partner."""
    a = q[0] + laplace(2 / eps)
    b = q[1] + laplace(2 / eps)
    return [a - b]


def test_cyclic_alignment_is_refused_and_is_not_a_function():
    # theta2 = 1 on both draws: each shift depends on the other's aligned value (a cycle)
    prob = build_problem(_difference, [2])
    cls = {s: t.classes[0] for s, t in prob.templates.items()}
    theta = {("a", cls["a"], 2): 1, ("b", cls["b"], 2): 1}
    with pytest.raises(UnsoundAlignment, match="not triangular"):
        cegis.check_alignment(prob, theta)
    # independent: the defining equations y_a = x_a + (y_b + q'_1 - q'_0) - (x_b + q_1 - q_0)
    # and y_b = x_b + (y_a + q'_0 - q'_1) - (x_a + q_0 - q_1) are one equation, so the two
    # different noise vectors x = (0, 0) and x~ = (1, 1) both admit the image y = (0, d0 - d1)
    q, d = [F(0), F(0)], [F(1), F(-1)]
    qp = [q[0] + d[0], q[1] + d[1]]
    y = (F(0), d[0] - d[1])
    for xa, xb in ((F(0), F(0)), (F(1), F(1))):
        assert y[0] == xa + (y[1] + qp[1] - qp[0]) - (xb + q[1] - q[0])
        assert y[1] == xb + (y[0] + qp[0] - qp[1]) - (xa + q[0] - q[1])
    # and the greedy choice never takes both
    assert len(greedy_theta2(prob)) == 1


@mechanism(epsilon="eps", relation="linf1", outputs="number")
def _switching_partner(q, eps):
    """The draw ``a`` is released relative to ``b`` or to ``c`` depending on its own sign:
    its partner changes with the noise of ``a`` itself, not with the unshifted draws."""
    a = q[0] + laplace(2 / eps)
    b = q[1] + laplace(2 / eps)
    c = q[2] + laplace(2 / eps)
    if a >= 0:
        return a - b
    return a - c


def test_partner_switching_alignment_fails_injectivity_and_collides():
    prob = build_problem(_switching_partner, [3])
    choice = greedy_theta2(prob)
    assert list(choice) == [("a", prob.templates["a"].classes[0])]
    theta = {(s, c, 2): 1 for s, c in choice}
    cx = cegis.check_alignment(prob, theta)
    assert cx and {c.kind for c in cx} == {"injectivity"}
    # independent: with q = q' = 0 the map (first valid path, p1 = "a >= 0" first) sends
    # x = (1, 2, 0) and x~ = (-1, 2, 0) to the same y = (1, 2, 0), both at cost <= 1
    q = d = [F(0)] * 3
    x = {("a", 0): F(1), ("b", 0): F(2), ("c", 0): F(0)}
    x2 = {("a", 0): F(-1), ("b", 0): F(2), ("c", 0): F(0)}
    y = _aligned(_switching_partner, prob, theta, q, d, x)
    y2 = _aligned(_switching_partner, prob, theta, q, d, x2)
    assert y == y2 == {("a", 0): F(1), ("b", 0): F(2), ("c", 0): F(0)}
    assert x != x2
    assert all(sum(abs(yy[k] - xx[k]) for k in xx) / 2 <= 1 for xx, yy in ((x, y), (x2, y2)))


def test_interior_makes_only_continuous_comparisons_strict():
    from audit.prove.symbolic import enumerate_paths
    paths = enumerate_paths(nm.noisy_top1_with_gap, 2)
    ops = {c.op for p in paths for c in interior(p)}
    assert ops <= {">", "<"}
    from audit.prove.benchmark import sums
    geo = enumerate_paths(sums.partial_sum_geometric, 2)
    assert [c.op for p in geo for c in interior(p)] == [c.op for p in geo
                                                        for c in p.constraints]
