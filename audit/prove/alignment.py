"""Randomness alignments of a DSL mechanism: the templates and the conditions Z3 checks.

Method (randomness alignment, as in LightDP / ShadowDP / CheckDP; Wang, Ding, Kifer & Zhang,
"CheckDP", CCS 2020, Section 3): for neighbouring query vectors q, q' = q + d (``d`` in the
mechanism's relation) an *alignment* maps the noise vector x of a run on q to the noise
vector x + eta of a run on q'.  If, for every output o,

  (a) eta depends only on (q, d, o) -- so on the set {x : M(q, x) = o} it is a translation,
      one-to-one with unit Jacobian, and the images of different outputs are disjoint;
  (b) M(q', x + eta(o)) = o for every x with M(q, x) = o;
  (c) cost(o) = sum_c |eta_c(o)| / scale_c <= eps (summed over every draw coordinate c that
      a run with output o may consume; the Laplace and two-sided geometric densities satisfy
      p(x) <= exp(|eta|/scale) p(x + eta));

then Pr[M(q) in S] <= exp(eps) Pr[M(q') in S] for every set S of outputs: M is eps-DP under
the relation.  (For geometric draws eta must be an integer: queries, differences and template
coefficients are then integers.)

Templates.  A draw coordinate is ``(site, index)`` (see :mod:`audit.prove.symbolic`).  For a
site drawn at most once on every path (e.g. a threshold noise) eta = theta0, one unknown.  For
a *loop site* the alignment at occurrence k is selected by the output's entry for k (its
*class*: ``T``/``F`` for a bool, ``num`` for a number, ``hit``/``miss`` for an index output
equal to k or not, ``absent`` when the list ended) and is linear in the site's *anchor
distance*: eta = theta[class, 0] + theta[class, 1] * delta_k, shared by every iteration and
every n.  delta_k is the distance, between q' and q, of the data the draw is combined with:
in the first comparison or output that reads the draw, the query terms whose coefficient has
the draw's sign, divided by the draw's coefficient (``q[i] + nu`` gives d_i, a sum of queries
plus noise gives the sum of the d_i).  Condition (a) holds by construction when delta_k is the
same on every path with the same output (checked; otherwise the anchor term is dropped).

Noise-dependent term.  When these templates have no alignment, the synthesis tries once more
with, for the draw classes that have an *output partner* (:func:`output_partners`), the extra
term ``theta2 * (P' - P)``: the change of the value the draw keeps its distance to in a
numeric output (e.g. the runner-up of a noisy max with gap).  Condition (a) then no longer
holds by construction; :mod:`audit.prove.noise_dependent` states and checks what replaces it
(a triangular map, checked structurally, and injectivity, checked with Z3).

Path-sensitive templates (:func:`refine_problem`, a last synthesis stage).  When the output
does not tell which branch produced an entry (e.g. a gap released by either of two branches
with different noise), the class of a loop draw is refined by the outcome of the first
comparison that reads it on the path (held / failed / no comparison reads it), as
LightDP/ShadowDP select an alignment by branch condition.  The *signature* of a path is the
tuple of those refined classes; eta then depends on (q, d, o, signature), and condition (b)
becomes (b'): the aligned run returns the same output AND takes a path with the same
signature.  (a) is replaced by: on the noise set of one (output, signature) eta is one
translation, and images of different signatures are disjoint because the aligned runs have
different signatures (a function of the noise on q'); so the map is one-to-one with unit
Jacobian, and (c) is checked per (output, signature).  With unrefined classes every path
of an output has the same signature and (b') is (b).

The conditions are decided per number of queries n, output shape (the discrete part of o)
and path, over real (or integer) queries, public parameters and noise.  Normalisation of eps:
when every scale is ``c / eps`` the cost condition is ``sum_c |eta_c| / c <= 1``, the same for
every eps > 0, and conditions (a), (b) do not involve eps: a proof holds for all eps > 0.
With a numeric epsilon the scales are numbers and the bound is that epsilon.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import z3

from audit.dsl import DSLError, Lin, Mechanism
from audit.prove.symbolic import (
    Path,
    enumerate_paths,
    output_shape,
    symbolic_arguments,
    z3_constraint,
)

__all__ = [
    "HALF_RELATIONS",
    "Coordinate",
    "NeedsNumericEpsilon",
    "Problem",
    "Template",
    "build_problem",
    "flat_output",
    "refine_problem",
    "relation_formula",
    "same_output",
    "sign_halves",
    "site_scales",
    "z3_value",
]

Coordinate = tuple[str, int]  # (site, occurrence index)


class NeedsNumericEpsilon(ValueError):
    """A noise scale does not scale with 1/eps: the cost cannot be normalised by eps."""


@dataclass(frozen=True)
class Template:
    """The unknowns of one draw site: ``theta[(cls, 0)] + theta[(cls, 1)] * delta``."""

    site: str
    loop: bool
    classes: tuple[str, ...]
    anchored: bool  # the delta term is used (anchor consistent on every path)
    integer: bool  # geometric site: integer coefficients
    position: int | None = None  # the query position of a once-per-run site, if one
    #: classes that may take the noise-dependent term ``theta[(cls, 2)] * dP`` (the change of
    #: the draw's output partner, :mod:`audit.prove.noise_dependent`)
    dependent: tuple[str, ...] = ()

    def unknowns(self, noise_dependent: bool = False) -> list[tuple[str, str, int]]:
        out = []
        for cls in self.classes:
            out.append((self.site, cls, 0))
            if self.anchored:
                out.append((self.site, cls, 1))
            if noise_dependent and cls in self.dependent:
                out.append((self.site, cls, 2))
        return out


@dataclass
class ShapeGroup:
    """The paths of one n with one output shape, and what the alignment needs about them."""

    n: int
    shape: Any
    paths: list[Path]
    coords: list[Coordinate]  # every coordinate some path of the group consumes
    weight: dict[Coordinate, Fraction]  # 1 / scale (eps-normalised: eps / scale)
    cls: dict[Coordinate, str]
    delta: dict[Coordinate, Lin]  # anchor distance over d<i>
    coord_of: list[dict[str, Coordinate]]  # per path: draw variable -> coordinate
    #: per path: coordinate -> its *output partner* P (a Lin over q<i>, p:<name> and
    #: coordinate keys, see :func:`coord_key`), for the coordinates whose partner is defined
    #: on every path of the group (see :func:`output_partners`)
    partner: list[dict[Coordinate, Lin]] = field(default_factory=list)
    #: coordinate -> the flat output component its partner is read from
    partner_component: dict[Coordinate, int] = field(default_factory=dict)


@dataclass
class Problem:
    """Everything the synthesis loop needs, for the sizes ``ns``."""

    mechanism: str
    relation: str
    ns: list[int]
    eps: Fraction | None  # None: every scale is c/eps, cost bound normalised to 1
    bound: Fraction
    integer: bool
    public: list[str]
    templates: dict[str, Template]
    groups: list[ShapeGroup]
    path_counts: dict[int, int]
    notes: list[str] = field(default_factory=list)
    fixed: dict[str, Any] = field(default_factory=dict)  # int/bool parameters as run
    #: path-sensitive classes (:func:`refine_problem`): groups are (n, (shape, signature))
    refined: bool = False
    #: sign-of-difference proof (:func:`sign_halves`): the relation's half-relations
    #: ("up": every d_i >= 0, "down": every d_i <= 0) and each one's problem; the
    #: coefficients of half ``h`` are keyed ``(site, f"{cls}|{h}", k)``
    halves: dict[str, Problem] = field(default_factory=dict)


def _is_index(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _element_class(v: Any) -> str:
    if isinstance(v, bool):
        return "T" if v else "F"
    if isinstance(v, Lin | Fraction):
        return "num"
    if _is_index(v):
        return "int"
    return "none" if v is None else "other"


def _cls(output: Any, pos: int | None) -> str:
    """The class of a draw at query position ``pos`` for ``output`` (a function of the
    output only)."""
    if pos is None:
        return "any"
    if isinstance(output, tuple):
        base = _element_class(output[pos]) if pos < len(output) else "absent"
        if any(_is_index(v) for v in output):
            base += "/hit" if any(_is_index(v) and v == pos for v in output) else "/miss"
        return base
    if _is_index(output):
        return "hit" if output == pos else "miss"
    return "any"


def _delta(anchor: Lin | None) -> Lin:
    """The anchor's distance between q' = q + d and q: the anchor with q<i> -> d<i>."""
    if anchor is None:
        return Lin()
    return Lin({f"d{k[1:]}": c for k, c in anchor.terms.items() if k.startswith("q")})


def _position(anchor: Lin | None, index: int, loop: bool) -> int | None:
    """The query position a draw belongs to: ``i`` when it is added to ``c * q[i]`` alone,
    else its occurrence index for a loop site, else none."""
    if anchor is not None and len(anchor.terms) == 1:
        (k,) = anchor.terms
        if k.startswith("q"):
            return int(k[1:])
    return index if loop else None


def _same(a: Lin, b: Lin) -> bool:
    return a.terms == b.terms and a.const == b.const


def build_problem(mech: Mechanism, ns: Sequence[int], eps: Fraction | None = None,
                  relation: str | None = None) -> Problem:
    """Enumerate the paths of ``mech`` for every n in ``ns`` and set up the templates."""
    rel = relation or mech.relation
    per_n: dict[int, list[Path]] = {}
    skipped = []
    for n in ns:
        try:
            per_n[n] = enumerate_paths(mech, n, eps)
        except IndexError as exc:  # the program's own IndexError at n (e.g. reads q[n])
            skipped.append((n, exc))
    if not per_n:
        raise DSLError(f"{mech.name} fails with an IndexError for every n in {list(ns)}: "
                       f"{skipped[-1][1]}")
    notes = [f"n = {n} not checked: {exc}" for n, exc in skipped]
    _, _, kwargs, _ = symbolic_arguments(mech, list(per_n)[0], eps)
    fixed_params = {k: v for k, v in kwargs.items() if not isinstance(v, Lin)}
    return _assemble(mech.name, rel, per_n, eps, notes, fixed_params, refine=False)


def refine_problem(prob: Problem) -> Problem:
    """The same paths with *path-sensitive* classes for the loop sites (see the module
    docstring): the class of a loop draw is its output class plus the outcome of the first
    comparison that reads it on the path (``tested-T``, ``tested-F``, or ``untested``), and
    the shape groups are split by the path *signature* (those classes of every coordinate),
    so that condition (b) asks the aligned run to keep the signature as well as the output."""
    per_n: dict[int, list[Path]] = {}
    for g in prob.groups:
        per_n.setdefault(g.n, []).extend(g.paths)
    notes = [m for m in prob.notes if not m.startswith("the anchor of draw site")]
    notes.append("path-sensitive templates: the alignment of a loop draw also depends on the "
                 "outcome of the first comparison that reads it; condition (b) checked with "
                 "the aligned run keeping those outcomes (so the map is one translation per "
                 "signature, one-to-one across signatures)")
    return _assemble(prob.mechanism, prob.relation, per_n, prob.eps, notes, dict(prob.fixed),
                     refine=True)


def _first_test(p: Path, var: str) -> str:
    """``tested-T`` / ``tested-F``: the outcome of the first comparison of path ``p`` that
    reads draw variable ``var``; ``untested`` when none does."""
    for k, c in enumerate(p.constraints):
        if var in c.expr.terms:
            return "tested-T" if p.decisions[k] else "tested-F"
    return "untested"


def _assemble(name: str, rel: str, per_n: dict[int, list[Path]], eps: Fraction | None,
              notes: list[str], fixed_params: dict[str, Any], refine: bool) -> Problem:
    """The templates and shape groups of the paths ``per_n`` (``refine``: path-sensitive
    classes for loop sites, groups split by signature; see :func:`refine_problem`)."""
    ns = list(per_n)
    draws = [d for ps in per_n.values() for p in ps for d in p.draws]
    integer = any(d.law == "geometric" for d in draws)
    scales: dict[Coordinate, Any] = {}
    sites: dict[str, dict[str, Any]] = {}
    for d in draws:
        c = (d.site, d.index)
        if scales.setdefault(c, d.scale) != d.scale:
            raise ValueError(f"draw {d.site}[{d.index}] has two scales ({scales[c]}, "
                             f"{d.scale}) on different paths")
        info = sites.setdefault(d.site, {"loop": False, "laws": set()})
        info["loop"] |= d.index > 0
        info["laws"].add(d.law)
    if eps is None and any(s.power == 0 for s in scales.values()):
        fixed = sorted({c[0] for c, s in scales.items() if s.power == 0})
        raise NeedsNumericEpsilon(f"draw site(s) {', '.join(fixed)} have a scale that does not "
                         "scale with 1/eps: give a numeric epsilon to prove for that value")
    bound = Fraction(1) if eps is None else Fraction(eps)

    def weight(c: Coordinate) -> Fraction:
        s = scales[c]
        return 1 / s.coef if eps is None else 1 / Fraction(s.value(eps))

    def path_cls(p: Path, d: Any, pos: int | None) -> str:
        base = _cls(p.output, pos)
        if refine and sites[d.site]["loop"]:
            return f"{base}/{_first_test(p, d.name)}"
        return base

    def signature(p: Path) -> tuple[Any, ...]:
        if not refine:
            return ()
        return tuple((d.site, d.index, _first_test(p, d.name)) for d in p.draws
                     if sites[d.site]["loop"])

    groups: list[ShapeGroup] = []
    classes: dict[str, set[str]] = {s: set() for s in sites}
    anchors: dict[tuple[int, Any, Coordinate], Lin] = {}
    inconsistent: set[str] = set()
    for n, ps in per_n.items():
        by_shape: dict[Any, list[Path]] = {}
        for p in ps:
            shape = output_shape(p.output)
            sig = signature(p)
            by_shape.setdefault((shape, sig) if refine else shape, []).append(p)
        for shape, gp in by_shape.items():
            coords: list[Coordinate] = []
            cls: dict[Coordinate, str] = {}
            delta: dict[Coordinate, Lin] = {}
            coord_of = []
            for p in gp:
                m = {}
                for d in p.draws:
                    c = (d.site, d.index)
                    m[d.name] = c
                    a = _delta(p.anchors.get(d.name))
                    if c not in cls:
                        coords.append(c)
                        pos = _position(p.anchors.get(d.name), d.index, sites[d.site]["loop"])
                        sites[d.site].setdefault("positions", set()).add(pos)
                        cls[c] = path_cls(p, d, pos)
                        classes[d.site].add(cls[c])
                    key = (n, shape, c)
                    if key in anchors and not _same(anchors[key], a):
                        inconsistent.add(d.site)
                    anchors.setdefault(key, a)
                    delta.setdefault(c, a)
                coord_of.append(m)
            partner, component = output_partners(gp, coord_of)
            groups.append(ShapeGroup(n, shape, gp, coords, {c: weight(c) for c in coords},
                                     cls, delta, coord_of, partner, component))
    notes = list(notes)
    notes += [f"the anchor of draw site {s} differs between paths with the same output: its "
              "alignment is a constant per class" for s in sorted(inconsistent)]
    zero_anchor = {s for s in sites if all(not a.terms for (_, _, c), a in anchors.items()
                                           if c[0] == s)}
    templates = {}
    for s, info in sites.items():
        anchored = s not in inconsistent and s not in zero_anchor
        if "geometric" in info["laws"] and any(
                v.denominator != 1 for (_, _, c), a in anchors.items() if c[0] == s
                for v in a.terms.values()):
            anchored = False  # a fractional anchor would shift integer noise off the lattice
            notes.append(f"geometric draw site {s}: its anchor has fractional coefficients; "
                         "its alignment is a constant per class")
        posns = info.get("positions", set())
        position = next(iter(posns)) if len(posns) == 1 and not info["loop"] else None
        dependent = () if "geometric" in info["laws"] else tuple(sorted(
            {g.cls[c] for g in groups for c in g.partner_component if c[0] == s}))
        templates[s] = Template(s, info["loop"], tuple(sorted(classes[s])), anchored,
                                "geometric" in info["laws"], position, dependent)
    publics = sorted({k[2:] for ps in per_n.values() for p in ps for c in p.constraints
                      for k in c.expr.terms if k.startswith("p:")})
    return Problem(name, rel, list(ns), eps, bound, integer, publics, templates, groups,
                   {n: len(ps) for n, ps in per_n.items()}, notes, fixed_params, refine)


def coord_key(c: Coordinate) -> str:
    """The variable name of coordinate ``c`` in a partner expression."""
    return f"@{c[0]}#{c[1]}"


def key_coord(k: str) -> Coordinate | None:
    """The coordinate of a partner-expression variable (None for queries / parameters)."""
    if not k.startswith("@"):
        return None
    site, _, idx = k[1:].rpartition("#")
    return site, int(idx)


def output_partners(paths: Sequence[Path], coord_of: Sequence[dict[str, Coordinate]]
                    ) -> tuple[list[dict[Coordinate, Lin]], dict[Coordinate, int]]:
    """The *output partner* of each coordinate on each path of one output shape.

    A coordinate c has a partner in the group when there is a flat output component m that
    is a linear value containing c's draw with a non-zero coefficient on *every* path of the
    group (the first such m).  On a path where that component is ``E = a * x_c + R`` (R: the
    queries, public parameters, constants and other draws), the partner is ``P = -R / a``:
    the value x_c must keep relative to, so that ``E = a * (x_c - P)``.  Draw variables are
    renamed to coordinate keys (:func:`coord_key`).  ``P`` never contains x_c itself."""
    flat = [flat_output(p.output) for p in paths]
    comps: dict[Coordinate, int] = {}
    if not paths:
        return [], comps
    inverse = [{c: v for v, c in m.items()} for m in coord_of]
    candidates = set(inverse[0])
    for inv in inverse[1:]:
        candidates &= set(inv)
    for c in sorted(candidates):
        for m in range(len(flat[0])):
            if all(isinstance(f[m], Lin) and f[m].terms.get(inv[c], 0) != 0
                   for f, inv in zip(flat, inverse, strict=True)):
                comps[c] = m
                break
    partner: list[dict[Coordinate, Lin]] = []
    for f, cmap, inv in zip(flat, coord_of, inverse, strict=True):
        per: dict[Coordinate, Lin] = {}
        for c, m in comps.items():
            e: Lin = f[m]
            a = e.terms[inv[c]]
            rest = {(coord_key(cmap[k]) if k in cmap else k): -v / a
                    for k, v in e.terms.items() if k != inv[c]}
            per[c] = Lin(rest, -e.const / a)
        partner.append(per)
    return partner, comps


# sign-of-difference classes -----------------------------------------------------------------
#: the half-relations of a relation whose differences all have one sign, and their text
HALF_RELATIONS = {"monotone1:up": "every d_i >= 0", "monotone1:down": "every d_i <= 0"}


def sign_halves(prob: Problem) -> dict[str, Problem] | None:
    """The two half-problems of a ``monotone1`` problem: the same paths under "every
    d_i >= 0" and under "every d_i <= 0" (None for another relation).

    Why two alignments make one proof (sign-of-difference classes).  Every neighbouring pair
    of ``monotone1`` has d = q' - q in exactly one of the halves H_up = {d >= 0} and
    H_down = {d <= 0, d != 0} (d = 0 is in H_up).  An alignment proved for each half (each
    satisfying (a)-(c) of the module docstring for the d of that half) gives
    Pr[M(q) in S] <= exp(eps) Pr[M(q') in S] for every pair of that half, hence for every
    pair of the relation; equivalently eta is selected by the sign of d, a function of d, so
    condition (a) still holds.  This is what correct monotone Sparse Vector needs (Lyu, Su &
    Li, PVLDB 2017, Sec. 4: with monotone queries, for d >= 0 the threshold noise moves up by
    1 and a True's query noise by 1 - d_i; for d <= 0 the threshold stays and a True's query
    noise moves by -d_i; so Lap(c/eps2) query noise suffices)."""
    if prob.relation != "monotone1" or prob.halves:
        return None
    return {h.split(":")[1]: replace(prob, relation=h, notes=list(prob.notes),
                                     templates=dict(prob.templates), groups=list(prob.groups))
            for h in HALF_RELATIONS}


def site_scales(prob: Problem) -> dict[str, tuple[str, str]]:
    """Per draw site: its law and its scale as text; a site whose scale changes with the
    occurrence (loop iteration) k lists the scale of every k seen for n <= N."""
    per: dict[str, dict[int, Any]] = {}
    laws: dict[str, str] = {}
    for g in prob.groups:
        for p in g.paths:
            for d in p.draws:
                laws.setdefault(d.site, d.law)
                per.setdefault(d.site, {}).setdefault(d.index, d.scale)
    out = {}
    for site, by_k in per.items():
        texts = {k: str(v) for k, v in sorted(by_k.items())}
        if len(set(texts.values())) == 1:
            out[site] = (laws[site], next(iter(texts.values())))
        else:
            out[site] = (laws[site], "per iteration: " + ", ".join(
                f"k = {k}: {t}" for k, t in texts.items()))
    return out


# Z3 encodings ------------------------------------------------------------------------------------
def relation_formula(relation: str, d: Sequence[Any]) -> Any:
    """``d = q' - q`` is in ``relation`` (see :data:`audit.dsl.RELATIONS`)."""
    ctx = d[0].ctx
    true = z3.BoolVal(True, ctx)
    box = [z3.And(di >= -1, di <= 1) for di in d]
    if relation == "linf1":
        return z3.And(*box, true)
    if relation == "monotone1":
        return z3.And(*box, z3.Or(z3.And(*[di >= 0 for di in d], true),
                                   z3.And(*[di <= 0 for di in d], true)))
    if relation in HALF_RELATIONS:
        sign = [di >= 0 for di in d] if relation.endswith(":up") else [di <= 0 for di in d]
        return z3.And(*box, *sign, true)
    if relation == "onehot1":
        return z3.And(*box, z3.Or(*[z3.And(*[d[j] == 0 for j in range(len(d)) if j != i],
                                           true)
                                    for i in range(len(d))]))
    raise ValueError(f"unknown relation {relation!r}")


def lin_z3(e: Lin, env: dict[str, Any], ctx: z3.Context | None = None) -> Any:
    acc: Any = z3.RealVal(e.const, ctx)
    for k, v in e.terms.items():
        acc = acc + z3.RealVal(v, ctx) * env[k]
    return acc


def eta_expr(tpl: Template, cls: str, delta: Any, theta: dict[tuple[str, str, int], Any]
             ) -> Any:
    """eta of one coordinate: ``theta0 + theta1 * delta`` (Z3 terms or numbers)."""
    t0 = theta[(tpl.site, cls, 0)]
    if not tpl.anchored:
        return t0
    return t0 + theta[(tpl.site, cls, 1)] * delta


def aligned_ok(g: ShapeGroup, p_index: int, prob: Problem, q: Sequence[Any], d: Sequence[Any],
               pub: dict[str, Any], x: dict[Coordinate, Any], eta: dict[Coordinate, Any],
               ctx: z3.Context | None = None) -> Any:
    """Condition (b) for one run: the run on q with noise x took path ``g.paths[p_index]``;
    the run on q + d with noise x + eta takes a path of the same group with the same output
    (a Z3 formula over whatever of the arguments is symbolic)."""
    p = g.paths[p_index]
    env0: dict[str, Any] = {f"q{i}": q[i] for i in range(len(q))}
    env1: dict[str, Any] = {f"q{i}": q[i] + d[i] for i in range(len(q))}
    for k, v in pub.items():
        env0[f"p:{k}"] = env1[f"p:{k}"] = v
    for var, c in g.coord_of[p_index].items():
        env0[var] = x[c]
    outs0 = flat_output(p.output)
    options = []
    for j, p2 in enumerate(g.paths):
        e1 = dict(env1)
        for var, c in g.coord_of[j].items():
            e1[var] = x[c] + eta[c]
        conj = [z3_constraint(c, e1, ctx) for c in p2.constraints]
        conj += same_output(outs0, flat_output(p2.output), env0, e1, ctx)
        options.append(z3.And(*conj, z3.BoolVal(True, ctx)))
    return z3.Or(*options, z3.BoolVal(False, ctx))


def z3_value(v: Any, env: dict[str, Any], ctx: z3.Context | None = None) -> Any:
    """An output entry as a Z3 term: a linear value under ``env``, else a constant."""
    return lin_z3(v, env, ctx) if isinstance(v, Lin) else z3.RealVal(v, ctx)


def flat_output(o: Any) -> list[Any]:
    """The entries of a (nested tuple) output, in order."""
    if isinstance(o, tuple):
        return [e for v in o for e in flat_output(v)]
    return [o]


def same_output(outs0: Sequence[Any], outs1: Sequence[Any], env0: dict[str, Any],
                env1: dict[str, Any], ctx: z3.Context | None) -> list[Any]:
    """Conditions for two flat outputs to be equal: numeric entries equal as Z3 terms under
    their runs' environments, discrete entries equal outright (else ``False``)."""
    conj: list[Any] = []
    for a, b in zip(outs0, outs1, strict=True):
        if isinstance(a, Lin | Fraction) or isinstance(b, Lin | Fraction):
            conj.append(z3_value(a, env0, ctx) == z3_value(b, env1, ctx))
        elif type(a) is not type(b) or a != b:
            conj.append(z3.BoolVal(False, ctx))
    return conj


def z3_abs(e: Any) -> Any:
    return z3.If(e >= 0, e, -e)
