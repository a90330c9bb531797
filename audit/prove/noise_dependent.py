"""Noise-dependent randomness alignments: the winner's noise moves with its partner's change.

Why.  The templates of :mod:`audit.prove.alignment` shift every draw by an amount that
depends on (q, d, output) only: on the noise set of one output the alignment is a
translation.  Noisy-Top-K-with-Gap (Ding, Wang, Zhang & Kifer, "Free gap information from
the differentially private Sparse Vector and Noisy Max mechanisms", PVLDB 2019, Algorithm 1)
has no such alignment within its budget beyond two queries: its published alignment
(eq. (2)) keeps every loser's noise and shifts the winner's by
``q_w - q'_w + max_l (q'_l + eta_l) - max_l (q_l + eta_l)``, which depends on the losers'
noise (on which loser is the runner-up on q and on q').

The template term.  For a coordinate c (a draw, see :mod:`audit.prove.alignment`) whose
draw appears in the same numeric output component m on every path of an output shape, with
``E_p = a * x_c + R_p`` on path p, its *output partner* is ``P_p = -R_p / a`` (a linear
function of the queries, public parameters and the *other* draws; never of x_c).  The
noise-dependent template of c's (site, class) is

    eta_c = theta0 + theta1 * delta_c + theta2 * (P_{p'}(q', y) - P_p(q, x)),   theta2 in {0, 1}

where p is the path of the run on (q, x), y = x + eta the aligned noise and p' the path of
the run on (q', y).  theta2 = 1 is "keep output component m": a * (y_c - P_{p'}(q', y)) =
a * (x_c - P_p(q, x)) + a * (theta0 + theta1 * delta_c).  For Noisy Top-1 with Gap (m = the
gap ``best - second``, c the winner) P is the runner-up's noisy value ``q_r + x_r`` minus
``q_w``, and theta = (0, 0, 1) is exactly eq. (2) for k = 1.

Soundness (the conditions checked, and why they give eps-DP).  Fix q, q' = q + d in the
relation, an output shape, and theta.  Let W be the coordinates of the shape with a partner
and theta2 != 0, F the others (their eta = theta0 + theta1 * delta_c: constants for fixed
(q, d, shape)).  The code checks, before any Z3 query, and refuses theta otherwise:

  (S) *triangular*: on every path of the shape, no partner of a W coordinate mentions a W
      coordinate (itself excluded by construction).  Then y_F = x_F + eta_F is a
      translation and y_W = x_W + g(x_F) with g affine on each piece below, so the map is
      well defined (no cycle) and on each piece its Jacobian matrix is I + N with N
      non-zero only in rows W and columns F: N^2 = 0, det = 1 (unit Jacobian; Ding et al.
      Definition 5 "acyclic", Lemma 1; CheckDP, Wang et al. CCS 2020, Section 3).

and asks Z3 (UNSAT required; queries, public parameters and noise real):

  (B) *output and cost*: for every path p and x on p (off its null boundary, see
      :func:`interior`) there is a path p' of the same shape
      such that y = x + eta(p, p', x) lies on p' for q', the output of (q', y) equals the
      output of (q, x), and sum_c |eta_c| / scale_c <= eps.  The alignment phi maps x to
      that y (for a fixed order of the p', the first that holds: a measurable choice);
  (I) *injective*: for two paths p, p~ of the shape and x on p, x~ on p~ (for q) with
      x_F = x~_F and the same output, every W coordinate's partner has the same value,
      P_p(q, x) = P_p~(q, x~).

(I) gives injectivity of phi on the shape's noise set: if phi(x) = phi(x~) = y, y lies on
one path p' for q' (the paths partition the noise space), y_F = x_F + eta_F = x~_F + eta_F
so x_F = x~_F, and y_c - x_c - (y_c - x~_c) = theta2 * (P_p~(q, x~) - P_p(q, x)) = 0 for
c in W: x = x~.  The shape's noise set is a finite union of polyhedral pieces (p, p') on
each of which phi is affine with det 1, so for every set S of outputs of that shape
P[M(q) in S] = int_{phi^-1...} f(x) dx <= exp(eps) int f(phi(x)) dx = exp(eps) P[phi(S_q)]
<= exp(eps) P[M(q') in S], using f(x) <= exp(sum |eta_c| / scale_c) f(x + eta) for the
Laplace density (Ding et al. Definition 6, Lemma 1).  Different shapes have disjoint output
sets, so the bound holds for every set of outputs.  (I) is sufficient, not necessary; a
theta failing it is refused (CEGIS blocks it), never accepted.

Geometric draws never get the term (their shifts must stay on the integer lattice); nor do
classes whose coordinates have no partner.  Nothing here prints or writes files.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import z3

from audit.dsl import Lin
from audit.prove.alignment import (
    Coordinate,
    Problem,
    ShapeGroup,
    coord_key,
    flat_output,
    key_coord,
    lin_z3,
    same_output,
    z3_abs,
    z3_value,
)
from audit.prove.symbolic import LinearConstraint, Path, z3_constraint

#: the strict version of a comparison
STRICT = {">=": ">", "<=": "<"}

__all__ = [
    "UnsoundAlignment",
    "dependent_coordinates",
    "greedy_theta2",
    "injectivity_formula",
    "interior",
    "options_formula",
    "structure_violations",
    "synthesis_structure",
]


class UnsoundAlignment(ValueError):
    """A noise-dependent alignment violates the triangular side condition (S)."""


def _mul(k: Any, e: Any, ctx: z3.Context | None) -> Any:
    """``k * e`` for k in {0, 1}: a number, or a Z3 Int (kept linear with If)."""
    if isinstance(k, int | Fraction):
        return e * int(k) if k else z3.RealVal(0, ctx)
    return z3.If(k == 1, e, z3.RealVal(0, ctx))


def interior(p: Path) -> list[LinearConstraint]:
    """The path's constraints with every comparison of continuous noise made strict: the
    removed boundary ``a . x + b = 0`` (some a_j != 0, every such draw Laplace) is a null
    set of the noise, so conditions (B) and (I) need only hold off it (ties between noisy
    values, e.g. a zero gap, have probability 0).  Comparisons without noise, or reading a
    geometric draw, stay as they are."""
    laws = {d.name: d.law for d in p.draws}
    out = []
    for c in p.constraints:
        coefs = c.coefficients()
        if coefs and all(laws.get(k) == "laplace" for k in coefs) and c.op in STRICT:
            c = LinearConstraint(c.expr, STRICT[c.op])
        out.append(c)
    return out


def dependent_coordinates(g: ShapeGroup, theta2: dict[tuple[str, str], Any]) -> list[Coordinate]:
    """W of the group for concrete theta2: coordinates with a partner and theta2 != 0."""
    return [c for c in g.partner_component if theta2.get((c[0], g.cls[c]), 0) != 0]


def partner_coords(g: ShapeGroup, c: Coordinate) -> set[Coordinate]:
    """Every coordinate the partner of ``c`` mentions on some path of ``g``."""
    out: set[Coordinate] = set()
    for per in g.partner:
        for k in per[c].terms:
            kc = key_coord(k)
            if kc is not None:
                out.add(kc)
    return out


def structure_violations(prob: Problem, theta2: dict[tuple[str, str], Any]) -> list[str]:
    """Condition (S) for concrete theta2: the violations (empty: triangular)."""
    out = []
    for g in prob.groups:
        w = set(dependent_coordinates(g, theta2))
        for c in sorted(w):
            bad = partner_coords(g, c) & (w | {c})
            if bad:
                out.append(f"n = {g.n}, output {g.shape!r}: the shift of {c[0]}[{c[1]}] "
                           "depends on the noise of "
                           + ", ".join(f"{s}[{i}]" for s, i in sorted(bad))
                           + ", itself shifted depending on noise (not triangular)")
    return out


def greedy_theta2(prob: Problem) -> dict[tuple[str, str], int]:
    """The one choice of noise-dependent terms the synthesis tries (a bounded search): the
    (site, class) pairs with an output partner, most output shapes first (ties by name),
    each taken (theta2 = 1) unless it would break condition (S) with those already taken.
    Empty when no class has a partner."""
    cover: dict[tuple[str, str], int] = {}
    for g in prob.groups:
        for c in g.partner_component:
            u = (c[0], g.cls[c])
            if c[0] in prob.templates and g.cls[c] in prob.templates[c[0]].dependent:
                cover[u] = cover.get(u, 0) + 1
    chosen: dict[tuple[str, str], int] = {}
    for u in sorted(cover, key=lambda u: (-cover[u], u)):
        trial = {**chosen, u: 1}
        if not structure_violations(prob, trial):
            chosen = trial
    return chosen


def synthesis_structure(prob: Problem, theta2: dict[tuple[str, str], Any]) -> list[Any]:
    """Condition (S) as constraints on the Z3 Int unknowns ``theta2`` (missing: 0)."""
    cons = []
    for g in prob.groups:
        for c in g.partner_component:
            u = (c[0], g.cls[c])
            if u not in theta2:
                continue
            for c2 in partner_coords(g, c):
                u2 = (c2[0], g.cls[c2])
                if c2 not in g.partner_component or u2 not in theta2:
                    continue
                if u2 == u:
                    cons.append(theta2[u] == 0)
                else:
                    cons.append(z3.Or(theta2[u] == 0, theta2[u2] == 0))
    return cons


def _env(g: ShapeGroup, j: int, q: Sequence[Any], pub: dict[str, Any],
         vals: dict[Coordinate, Any]) -> dict[str, Any]:
    env: dict[str, Any] = {f"q{i}": q[i] for i in range(len(q))}
    for k, v in pub.items():
        env[f"p:{k}"] = v
    for var, c in g.coord_of[j].items():
        env[var] = vals[c]
        env[coord_key(c)] = vals[c]
    return env


def options_formula(g: ShapeGroup, p_index: int, q: Sequence[Any], d: Sequence[Any],
                    pub: dict[str, Any], x: dict[Coordinate, Any],
                    eta_fixed: dict[Coordinate, Any], theta2: dict[Coordinate, Any],
                    bound: Fraction, ctx: z3.Context | None = None) -> Any:
    """Condition (B) for one run on path ``g.paths[p_index]``: some path p' of the group
    takes the aligned noise (eta_fixed + theta2 * partner change, per p') to the same output
    at cost <= ``bound``.  ``theta2`` maps each coordinate with a partner to its theta2 (a
    number or a Z3 Int in {-1, 0, 1})."""
    p = g.paths[p_index]
    qp = [q[i] + d[i] for i in range(len(q))]
    env0 = _env(g, p_index, q, pub, x)
    outs0 = flat_output(p.output)
    y_fixed = {c: x[c] + eta_fixed[c] for c in g.coords}
    options = []
    for j, p2 in enumerate(g.paths):
        env_f = _env(g, j, qp, pub, y_fixed)
        eta = dict(eta_fixed)
        for c, k in theta2.items():
            change = (lin_z3(g.partner[j][c], env_f, ctx)
                      - lin_z3(g.partner[p_index][c], env0, ctx))
            eta[c] = eta_fixed[c] + _mul(k, change, ctx)
        y = {c: x[c] + eta[c] for c in g.coords}
        env1 = _env(g, j, qp, pub, y)
        conj = [z3_constraint(cn, env1, ctx) for cn in p2.constraints]
        conj += same_output(outs0, flat_output(p2.output), env0, env1, ctx)
        cost = sum((z3.RealVal(g.weight[c], ctx) * z3_abs(eta[c]) for c in g.coords),
                   z3.RealVal(0, ctx))
        conj.append(cost <= z3.RealVal(bound, ctx))
        options.append(z3.And(*conj, z3.BoolVal(True, ctx)))
    return z3.Or(*options, z3.BoolVal(False, ctx))


def injectivity_formula(g: ShapeGroup, w: Sequence[Coordinate], mk: Any,
                        ctx: z3.Context) -> list[tuple[tuple[int, int], Any]]:
    """Condition (I) for the group with dependent coordinates ``w``: per pair of *partner
    classes* (paths whose W-partners are the same expressions), a formula over fresh
    variables that is SAT iff two runs on q, one in each class, agree on the F noise and the
    output but not on some W partner's value.  Returns ``[(pair of path indexes, formula)]``
    (the first path of each class, for the record)."""
    classes: dict[tuple[Any, ...], list[int]] = {}
    for j, per in enumerate(g.partner):
        key = tuple((c, tuple(sorted(per[c].terms.items())), per[c].const) for c in w)
        classes.setdefault(key, []).append(j)
    keys = list(classes)
    out: list[tuple[tuple[int, int], Any]] = []
    if len(keys) < 2:
        return out
    q = [mk(f"iq{i}", ctx) for i in range(g.n)]
    pubs = sorted({k[2:] for p in g.paths for cn in p.constraints for k in cn.expr.terms
                   if k.startswith("p:")})
    pub = {k: z3.Real(f"ip_{k}", ctx) for k in pubs}
    xf = {c: z3.Real(f"ix_{c[0]}_{c[1]}", ctx) for c in g.coords}
    x2 = {c: (xf[c] if c not in w else z3.Real(f"iy_{c[0]}_{c[1]}", ctx)) for c in g.coords}
    outs = [z3.Real(f"io_{m}", ctx) for m in range(len(flat_output(g.paths[0].output)))]

    def side(paths: list[int], x: dict[Coordinate, Any]) -> Any:
        opts = []
        for j in paths:
            env = _env(g, j, q, pub, x)
            conj = [z3_constraint(cn, env, ctx) for cn in interior(g.paths[j])]
            for m, v in enumerate(flat_output(g.paths[j].output)):
                if isinstance(v, Lin | Fraction):
                    conj.append(outs[m] == z3_value(v, env, ctx))
            opts.append(z3.And(*conj, z3.BoolVal(True, ctx)))
        return z3.Or(*opts)

    for a in range(len(keys)):
        for b in range(a + 1, len(keys)):
            ja, jb = classes[keys[a]][0], classes[keys[b]][0]
            differ = z3.Or(*[lin_z3(g.partner[ja][c], _env(g, ja, q, pub, xf), ctx)
                             != lin_z3(g.partner[jb][c], _env(g, jb, q, pub, x2), ctx)
                             for c in w])
            out.append(((ja, jb), z3.And(side(classes[keys[a]], xf),
                                         side(classes[keys[b]], x2), differ)))
    return out
