"""Counterexample-guided synthesis of a randomness alignment (CheckDP's loop: Wang, Ding,
Kifer & Zhang, CCS 2020, Section 4), with Z3.

Given a :class:`~audit.prove.alignment.Problem` (paths and templates for the sizes n in
scope), repeat:

1. **synthesise**: ask Z3 for template coefficients theta that satisfy the alignment
   conditions on every example found so far (an example is a concrete run: n, the path, the
   queries q, the difference d, the public parameters and the noise x, for condition (b); or
   n, an output shape and d, for the cost condition (c));
2. **verify**: for those theta ask Z3, for every n, output shape and path, for queries, a
   difference d in the relation and noise on the path such that the aligned run on q + d leaves
   the output (condition (b)), and for a d whose cost exceeds the bound (condition (c)).  Each
   answer is an example for step 1.

Template coefficients range over multiples of 1/:data:`GRID` in [-:data:`BOUND`,
:data:`BOUND`] (integers for geometric draws), a finite space, so the loop ends.

Two stages: the noise-independent templates first; when they have no alignment (or hit the
round limit), one more loop with the noise-dependent term of
:mod:`audit.prove.noise_dependent` for one choice of draw classes (its ``greedy_theta2``),
whose verification adds that module's conditions (S), (I) and (B).

Every verification query UNSAT => the alignment is a proof for those n (see the alignment
module for why (a)-(c) imply eps-DP).  Step 1 UNSAT => no coefficients of these templates
work: the result names the draw sites whose template, replaced by a free shift per example,
would make the examples satisfiable (the templates that are too weak), with the last
counterexample.  Every Z3 call runs under a resource limit (``rlimit``, deterministic work
units), and the loop under an iteration bound (:data:`MAX_ROUNDS`) and a bound on its Z3 calls
(:data:`MAX_SOLVER_CALLS` per stage, so a round over thousands of paths cannot run on): an
``unknown`` or a bound makes the result undecided, never a proof.

Reproducible: every stage runs in a private Z3 context created for it (never z3py's shared
main context), its terms built in the fixed order of the code, the random seed fixed
(:data:`audit.smt_query.SEED`), and Python's cyclic garbage collector paused while the stage
runs, so terms of that context are freed only by reference counting, in program order: the
term ids -- hence the models, the counterexamples, the alignment and the verdict -- do not
depend on what the process did before.  (A fresh context per query, as
:func:`audit.smt_query.solve` does for the paper claims, costs ~3 ms per query -- 2-3x the
whole proof on the examples -- so a stage shares its private context.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from fractions import Fraction
from typing import Any

import z3

from audit.prove.alignment import (
    Coordinate,
    Problem,
    ShapeGroup,
    Template,
    aligned_ok,
    eta_expr,
    lin_z3,
    refine_problem,
    relation_formula,
    sign_halves,
    z3_abs,
)
from audit.prove.closed_world import z3_rlimit
from audit.prove.noise_dependent import (
    UnsoundAlignment,
    dependent_coordinates,
    greedy_theta2,
    injectivity_formula,
    interior,
    options_formula,
    structure_violations,
    synthesis_structure,
)
from audit.prove.symbolic import z3_constraint
from audit.smt_query import SEED, deterministic_frees

__all__ = ["RLIMIT", "Counterexample", "Synthesis", "check_alignment", "half_theta",
           "synthesise"]

#: Z3 resource limit per query (deterministic work units, not seconds)
RLIMIT = 20_000_000
#: synthesis/verification rounds at most
MAX_ROUNDS = 60
#: Z3 calls at most per synthesis stage (each under RLIMIT): with MAX_ROUNDS, the loop's
#: work is bounded in solver work units whatever the number of paths per round
MAX_SOLVER_CALLS = 6_000
#: template coefficients are multiples of 1/GRID in [-BOUND, BOUND] (a finite template space:
#: the loop cannot creep towards a limit value one counterexample at a time)
GRID = 2
BOUND = 8

Unknown = tuple[str, str, int]


@dataclass
class Counterexample:
    """A concrete run the current alignment does not handle (numbers are exact)."""

    kind: str  # "output" (condition (b)), "cost" (condition (c)) or "injectivity" ((I))
    n: int
    shape: Any
    path: int  # index of the path in its group (output kind)
    decisions: tuple[bool, ...]
    q: list[Fraction]
    d: list[Fraction]
    public: dict[str, Fraction]
    x: dict[Coordinate, Fraction]

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "n": self.n, "output_shape": repr(self.shape),
                "path_decisions": list(self.decisions),
                "q": [str(v) for v in self.q], "d": [str(v) for v in self.d],
                "public": {k: str(v) for k, v in self.public.items()},
                "noise": {f"{s}[{i}]": str(v) for (s, i), v in sorted(self.x.items())}}


@dataclass
class Synthesis:
    """What the loop found."""

    status: str  # "verified", "no-alignment", "unknown", "round-limit"
    theta: dict[Unknown, Fraction] | None
    rounds: int
    examples: int
    solver_calls: int
    counterexample: Counterexample | None = None
    weak_sites: list[str] = field(default_factory=list)
    reason: str = ""
    all_examples: list[Counterexample] = field(default_factory=list)


def _value(m: z3.ModelRef, v: Any) -> Fraction:
    r = m.eval(v, model_completion=True)
    if z3.is_int_value(r):
        return Fraction(r.as_long())
    if z3.is_rational_value(r):
        return Fraction(r.numerator_as_long(), r.denominator_as_long())
    raise ValueError(f"non-rational model value {r}")  # pragma: no cover - linear problems


def _path_env(g: ShapeGroup, pi: int, q: list[Any], pub: dict[str, Any],
              x: dict[Coordinate, Any]) -> dict[str, Any]:
    """The Z3 terms of path ``pi``'s constraint variables: the queries, the public
    parameters and the path's draws at their coordinates."""
    env: dict[str, Any] = {f"q{i}": q[i] for i in range(g.n)}
    env.update({f"p:{k}": v for k, v in pub.items()})
    env.update({var: x[c] for var, c in g.coord_of[pi].items()})
    return env


def _output_counterexample(m: z3.ModelRef, g: ShapeGroup, pi: int, q: list[Any],
                           d: list[Any], pub: dict[str, Any], x: dict[Coordinate, Any]
                           ) -> Counterexample:
    """The point of model ``m`` at which path ``pi``'s aligned run changes its output.

    Callers bind the model to a local first: freeing it as soon as this returns (passing
    ``s.model()`` directly) changed the models Z3 chose in later rounds, and with them
    alignments and witnesses on 10 of the 35 benchmark programs (verdicts unchanged)."""
    return Counterexample("output", g.n, g.shape, pi, g.paths[pi].decisions,
                          [_value(m, v) for v in q], [_value(m, v) for v in d],
                          {k: _value(m, v) for k, v in pub.items()},
                          {c: _value(m, v) for c, v in x.items()})


def _solver(ctx: z3.Context) -> z3.Solver:
    """A solver of the loop's private context (seed :data:`audit.smt_query.SEED`, the
    ``rlimit`` of the run)."""
    s = z3.Solver(ctx=ctx)
    s.set("rlimit", z3_rlimit(RLIMIT))
    s.set("random_seed", SEED)
    return s


class _BudgetSpent(Exception):
    """The stage's :data:`MAX_SOLVER_CALLS` Z3 calls are spent."""


class _Loop:
    def __init__(self, prob: Problem, noise_dependent: bool = False,
                 theta2: dict[tuple[str, str], int] | None = None) -> None:
        self.prob = prob
        self.nd = noise_dependent
        self.ctx = z3.Context()  # a fresh context: the same models whatever ran before
        self.calls = 0
        self.theta_vars: dict[Unknown, Any] = {}
        self.theta2_vars: dict[tuple[str, str], Any] = {}  # noise-dependent term, in {-1,0,1}
        self.ranges: list[Any] = []
        self.blocked: list[Any] = []  # theta2 choices refused by the injectivity check (I)
        for t in prob.templates.values():
            for u in t.unknowns(noise_dependent):
                k = z3.Int(f"theta_{u[0]}_{u[1]}_{u[2]}", self.ctx)
                if u[2] == 2:
                    self.ranges.append(z3.And(k >= 0, k <= 1))
                    self.theta2_vars[(u[0], u[1])] = k
                    self.theta_vars[u] = z3.ToReal(k)
                    continue
                self.ranges.append(z3.And(k >= -BOUND * GRID, k <= BOUND * GRID))
                if t.integer:
                    self.ranges.append(k % GRID == 0)
                self.theta_vars[u] = z3.ToReal(k) / GRID
        if self.theta2_vars:
            self.ranges += synthesis_structure(prob, self.theta2_vars)
        for u2, v in (theta2 or {}).items():  # a fixed choice of the noise-dependent terms
            self.ranges.append(self.theta2_vars[u2] == v)
        self.examples: list[Counterexample] = []
        #: when a list: every UNSAT verification query is appended as (label, SMT-LIB2)
        #: (the proof certificate, :mod:`audit.prove.certificate`)
        self.record: list[tuple[str, str]] | None = None

    def _keep(self, s: z3.Solver, r: Any, label: str) -> None:
        if self.record is not None and r == z3.unsat:
            self.record.append((label, s.to_smt2()))

    def _num(self, v: Fraction) -> Any:
        return z3.RealVal(v, self.ctx)

    def _cost(self, g: ShapeGroup, eta: dict[Coordinate, Any]) -> Any:
        """Condition (c)'s left side: sum over the group's draws of weight * |eta|."""
        return sum((self._num(g.weight[c]) * z3_abs(eta[c]) for c in g.coords),
                   z3.RealVal(0, self.ctx))

    # encodings ----------------------------------------------------------------------------------
    def _eta(self, g: ShapeGroup, theta: dict[Unknown, Any], d_env: dict[str, Any],
             free: dict[Coordinate, Any] | None = None, relax: str | None = None
             ) -> dict[Coordinate, Any]:
        eta = {}
        for c in g.coords:
            if relax is not None and c[0] == relax:
                assert free is not None
                eta[c] = free[c]
                continue
            tpl: Template = self.prob.templates[c[0]]
            eta[c] = eta_expr(tpl, g.cls[c], lin_z3(g.delta[c], d_env, self.ctx), theta)
        return eta

    def _group(self, cx: Counterexample) -> ShapeGroup:
        for g in self.prob.groups:
            if g.n == cx.n and g.shape == cx.shape:
                return g
        raise KeyError((cx.n, cx.shape))  # pragma: no cover - examples come from groups

    def _example(self, cx: Counterexample, relax: str | None = None, tag: str = "") -> Any:
        g = self._group(cx)
        d_env = {f"d{i}": self._num(v) for i, v in enumerate(cx.d)}
        free = None
        if relax is not None:
            free = {c: z3.Real(f"free_{tag}_{c[0]}_{c[1]}", self.ctx) for c in g.coords}
        eta = self._eta(g, self.theta_vars, d_env, free, relax)
        if cx.kind == "cost":
            return self._cost(g, eta) <= self._num(self.prob.bound)
        q = [self._num(v) for v in cx.q]
        d = [self._num(v) for v in cx.d]
        pub = {k: self._num(v) for k, v in cx.public.items()}
        x = {c: self._num(cx.x.get(c, Fraction(0))) for c in g.coords}
        if self.nd and relax is None:
            # (B) with the noise-dependent term; with theta2 = 0 it is (b) and (c) at this d
            t2 = {c: self.theta2_vars[(c[0], g.cls[c])] for c in g.partner_component
                  if (c[0], g.cls[c]) in self.theta2_vars}
            return options_formula(g, cx.path, q, d, pub, x, eta, t2, self.prob.bound,
                                   self.ctx)
        return aligned_ok(g, cx.path, self.prob, q, d, pub, x, eta, self.ctx)

    # verification -------------------------------------------------------------------------------
    def _vars(self, g: ShapeGroup) -> tuple[list[Any], list[Any], dict[str, Any],
                                            dict[Coordinate, Any]]:
        mk = z3.Int if self.prob.integer else z3.Real
        q = [mk(f"q{i}", self.ctx) for i in range(g.n)]
        d = [mk(f"d{i}", self.ctx) for i in range(g.n)]
        pub = {k: z3.Real(f"p_{k}", self.ctx) for k in self.prob.public}
        geo = {c for p in g.paths for dr in p.draws if dr.law == "geometric"
               for c in [(dr.site, dr.index)]}
        x = {c: (z3.Int if c in geo else z3.Real)(f"x_{c[0]}_{c[1]}", self.ctx) for c in g.coords}
        return q, d, pub, x

    def verify(self, theta: dict[Unknown, Fraction]) -> list[Counterexample] | None:
        """Counterexamples to ``theta`` (empty: verified; None: Z3 answered unknown)."""
        th = {u: self._num(v) for u, v in theta.items() if u[2] != 2}
        theta2 = {(u[0], u[1]): v for u, v in theta.items() if u[2] == 2}
        bad = structure_violations(self.prob, theta2)
        if bad:  # condition (S): never reached from synthesis (its constraints forbid it)
            raise UnsoundAlignment("; ".join(bad))
        found: list[Counterexample] = []
        for g in self.prob.groups:
            if self.calls >= MAX_SOLVER_CALLS:
                raise _BudgetSpent
            q, d, pub, x = self._vars(g)
            d_env = {f"d{i}": d[i] for i in range(g.n)}
            eta = self._eta(g, th, d_env)
            w = dependent_coordinates(g, theta2)
            if w or self.nd:  # conditions (I) and (B): off the null boundaries of the paths
                r = self._verify_dependent(g, theta2, w, q, d, pub, x, eta, found)
                if r is None:
                    return None
                continue
            s = _solver(self.ctx)
            s.add(relation_formula(self.prob.relation, d))
            s.add(self._cost(g, eta) > self._num(self.prob.bound))
            self.calls += 1
            r = s.check()
            self._keep(s, r, f"n={g.n} output {g.shape!r}: cost <= bound")
            if r == z3.unknown:
                return None
            if r == z3.sat:
                m = s.model()
                found.append(Counterexample("cost", g.n, g.shape, -1, (),
                                            [_value(m, v) for v in q],
                                            [_value(m, v) for v in d], {}, {}))
            for pi, p in enumerate(g.paths):
                if self.calls >= MAX_SOLVER_CALLS:
                    raise _BudgetSpent
                s = _solver(self.ctx)
                s.add(relation_formula(self.prob.relation, d))
                env0 = _path_env(g, pi, q, pub, x)
                s.add(*[z3_constraint(c, env0, self.ctx) for c in p.constraints])
                s.add(z3.Not(aligned_ok(g, pi, self.prob, q, d, pub, x, eta, self.ctx)))
                self.calls += 1
                r = s.check()
                self._keep(s, r, f"n={g.n} output {g.shape!r} path {pi}: same output")
                if r == z3.unknown:
                    return None
                if r == z3.sat:
                    m = s.model()  # kept alive in this frame: see _output_counterexample
                    found.append(_output_counterexample(m, g, pi, q, d, pub, x))
                    break  # one per group per round is enough
        return found

    def _verify_dependent(self, g: ShapeGroup, theta2: dict[tuple[str, str], Any],
                          w: list[Coordinate], q: list[Any], d: list[Any],
                          pub: dict[str, Any], x: dict[Coordinate, Any],
                          eta: dict[Coordinate, Any], found: list[Counterexample]
                          ) -> bool | None:
        """Conditions (I) and (B) of :mod:`audit.prove.noise_dependent` for a group with
        noise-dependent coordinates ``w``; counterexamples appended to ``found``.  None:
        Z3 unknown."""
        mk = z3.Int if self.prob.integer else z3.Real
        for pair, f in (injectivity_formula(g, w, mk, self.ctx) if w else []):
            s = _solver(self.ctx)
            s.add(f)
            self.calls += 1
            r = s.check()
            self._keep(s, r, f"n={g.n} output {g.shape!r} paths {pair}: one-to-one")
            if r == z3.unknown:
                return None
            if r == z3.sat:
                # refuse this choice of theta2 for the classes of w (a finite space)
                self.blocked.append(z3.Or(*[self.theta2_vars[(c[0], g.cls[c])]
                                            != int(theta2[(c[0], g.cls[c])]) for c in w
                                            if (c[0], g.cls[c]) in self.theta2_vars],
                                          z3.BoolVal(False, self.ctx)))
                found.append(Counterexample("injectivity", g.n, g.shape, pair[0],
                                            g.paths[pair[0]].decisions, [], [], {}, {}))
                return True
        t2 = {c: int(theta2[(c[0], g.cls[c])]) for c in w}
        for pi, p in enumerate(g.paths):
            if self.calls >= MAX_SOLVER_CALLS:
                raise _BudgetSpent
            s = _solver(self.ctx)
            s.add(relation_formula(self.prob.relation, d))
            env0 = _path_env(g, pi, q, pub, x)
            s.add(*[z3_constraint(c, env0, self.ctx) for c in interior(p)])
            s.add(z3.Not(options_formula(g, pi, q, d, pub, x, eta, t2, self.prob.bound,
                                         self.ctx)))
            self.calls += 1
            r = s.check()
            self._keep(s, r, f"n={g.n} output {g.shape!r} path {pi}: same output and cost")
            if r == z3.unknown:
                return None
            if r == z3.sat:
                m = s.model()
                found.append(_output_counterexample(m, g, pi, q, d, pub, x))
                break
        return True

    # diagnosis ----------------------------------------------------------------------------------
    def weak_sites(self) -> tuple[list[str], bool]:
        """Sites whose template, freed per example, makes the examples satisfiable; and
        whether freeing every site at once does."""
        out = []
        for site in sorted(self.prob.templates):
            s = _solver(self.ctx)
            for i, cx in enumerate(self.examples):
                s.add(self._example(cx, relax=site, tag=str(i)))
            self.calls += 1
            if s.check() == z3.sat:
                out.append(site)
        s = _solver(self.ctx)
        for i, cx in enumerate(self.examples):
            g = self._group(cx)
            free = {c: z3.Real(f"all_{i}_{c[0]}_{c[1]}", self.ctx) for c in g.coords}
            if cx.kind == "cost":
                s.add(self._cost(g, free) <= self._num(self.prob.bound))
            else:
                x = {c: self._num(cx.x.get(c, Fraction(0))) for c in g.coords}
                s.add(aligned_ok(g, cx.path, self.prob, [self._num(v) for v in cx.q],
                                 [self._num(v) for v in cx.d],
                                 {k: self._num(v) for k, v in cx.public.items()}, x, free,
                                 self.ctx))
        self.calls += 1
        return out, s.check() == z3.sat

    def diagnose(self, syn: Synthesis) -> Synthesis:
        """Fill in a no-alignment result's reason and the draw sites to blame."""
        weak, any_shift = self.weak_sites()
        if weak:
            why = ("no coefficients of the templates satisfy the examples; a free "
                   f"shift of draw site(s) {', '.join(weak)} would")
        elif any_shift:
            why = ("no coefficients of the templates satisfy the examples; only "
                   "free shifts of several sites together would")
        else:
            why = ("no shift of the noise at all makes the counterexample runs "
                   "keep their output within the privacy cost")
        syn.weak_sites, syn.reason, syn.solver_calls = weak, why, self.calls
        return syn

    def run(self, max_rounds: int = MAX_ROUNDS, diagnose: bool = True) -> Synthesis:
        with deterministic_frees():
            return self._run(max_rounds, diagnose)

    def _run(self, max_rounds: int, diagnose: bool) -> Synthesis:
        synth = _solver(self.ctx)
        synth.add(*self.ranges)
        last: Counterexample | None = None
        for rounds in range(1, max_rounds + 1):
            self.calls += 1
            r = synth.check()
            if r == z3.unknown:
                return Synthesis("unknown", None, rounds, len(self.examples), self.calls, last,
                                 reason=f"Z3 unknown while synthesising ({synth.reason_unknown()})")
            if r == z3.unsat:
                syn = Synthesis("no-alignment", None, rounds, len(self.examples), self.calls,
                                last, [], "", list(self.examples))
                return self.diagnose(syn) if diagnose else syn
            m = synth.model()
            theta = {u: _value(m, v) for u, v in self.theta_vars.items()}
            try:
                cexs = self.verify(theta)
            except _BudgetSpent:
                return Synthesis("round-limit", None, rounds, len(self.examples), self.calls,
                                 last, reason=f"the solver-call budget ({MAX_SOLVER_CALLS} "
                                 "Z3 calls per stage) was spent before an alignment settled")
            except UnsoundAlignment as exc:  # (S) violated: never a proof
                return Synthesis("unknown", None, rounds, len(self.examples), self.calls, last,
                                 reason=f"refused a non-triangular alignment ({exc})")
            if cexs is None:
                return Synthesis("unknown", theta, rounds, len(self.examples), self.calls, last,
                                 reason="Z3 unknown while verifying")
            if not cexs:
                return Synthesis("verified", theta, rounds, len(self.examples), self.calls)
            synth.add(*self.blocked)
            for cx in cexs:
                if cx.kind == "injectivity":
                    continue  # blocked above
                self.examples.append(cx)
                synth.add(self._example(cx))
            last = cexs[-1]
        return Synthesis("round-limit", None, max_rounds, len(self.examples), self.calls, last,
                         reason=f"no alignment settled within {max_rounds} rounds")


def synthesise(prob: Problem, max_rounds: int = MAX_ROUNDS) -> Synthesis:
    """Run the loop on ``prob`` (see the module docstring): first with the noise-independent
    templates; when they have no alignment (or hit the round limit) and some draw class has
    an output partner, again with the noise-dependent term of
    :mod:`audit.prove.noise_dependent`; when that has none either and paths with one output
    differ in the outcome of a loop draw's first comparison, once more with the
    path-sensitive templates of :func:`~audit.prove.alignment.refine_problem` (each stage
    bounded by ``max_rounds``).  When that last stage proves, ``prob`` is replaced *in
    place* by the refined problem (its templates and groups are the ones the coefficients
    refer to, for the proof sketch and the all-n step).  The first stage's diagnosis is
    returned when no stage proves."""
    with deterministic_frees():
        return _synthesise(prob, max_rounds)


def _synthesise(prob: Problem, max_rounds: int) -> Synthesis:
    loop1 = _Loop(prob)
    first = loop1.run(max_rounds, diagnose=False)
    choice = greedy_theta2(prob)
    extra = ""
    if first.status in ("no-alignment", "round-limit") and choice:
        second = _Loop(prob, noise_dependent=True, theta2=choice).run(max_rounds,
                                                                       diagnose=False)
        if second.status == "verified":
            second.solver_calls += first.solver_calls
            second.rounds += first.rounds
            second.examples += first.examples
            return second
        loop1.calls += second.solver_calls
        extra = (f"; with the noise-dependent templates ({_choice_text(choice)}): "
                 f"{second.status}" + (f" ({second.reason})" if second.reason else ""))
    if first.status in ("no-alignment", "round-limit") and not prob.refined:
        refined = refine_problem(prob)
        if len(refined.groups) > len(prob.groups):  # some output has paths to tell apart
            third = _Loop(refined).run(max_rounds, diagnose=False)
            if third.status == "verified":
                third.solver_calls += loop1.calls
                third.rounds += first.rounds
                third.examples += first.examples
                for f in fields(prob):
                    setattr(prob, f.name, getattr(refined, f.name))
                assert third.theta is not None
                third.theta = _without_idle_terms(prob, third.theta)
                return third
            loop1.calls += third.solver_calls
            extra += (f"; with path-sensitive templates: {third.status}"
                      + (f" ({third.reason})" if third.reason else ""))
    if first.status in ("no-alignment", "round-limit"):
        halves = sign_halves(prob)
        if halves is not None:
            signed = _signed(prob, halves, max_rounds)
            loop1.calls += signed.solver_calls
            if signed.status == "verified":
                signed.rounds += first.rounds
                signed.examples += first.examples
                return signed
            extra += f"; with sign-of-difference classes: {signed.status} ({signed.reason})"
    if first.status == "no-alignment":
        loop1.diagnose(first)
    first.solver_calls = loop1.calls
    first.reason += extra
    return first


def _signed(prob: Problem, halves: dict[str, Problem], max_rounds: int) -> Synthesis:
    """The sign-of-difference stage (:func:`~audit.prove.alignment.sign_halves`): every
    stage of :func:`synthesise` on each half-relation; both verified => ``prob.halves`` is
    set (in place) and the coefficients of half ``h`` are returned keyed
    ``(site, f"{cls}|{h}", k)``.  Work: at most the two halves' stages, each bounded by
    ``max_rounds`` rounds of Z3 calls under :data:`RLIMIT`."""
    theta: dict[Unknown, Fraction] = {}
    calls = rounds = examples = 0
    for h, sub in halves.items():
        syn = synthesise(sub, max_rounds)
        calls += syn.solver_calls
        rounds += syn.rounds
        examples += syn.examples
        if syn.status != "verified" or syn.theta is None:
            return Synthesis(syn.status, None, rounds, examples, calls,
                             syn.counterexample, syn.weak_sites,
                             f"no alignment for the half {sub.relation}: {syn.reason}")
        theta.update({(site, f"{cls}|{h}", k): v for (site, cls, k), v in syn.theta.items()})
    prob.halves = halves
    return Synthesis("verified", theta, rounds, examples, calls)


def signed_alignment(theta: Mapping[Unknown, Fraction]) -> bool:
    """Is ``theta`` a sign-of-difference alignment (classes ``cls|up`` / ``cls|down``)?"""
    return any(u[1].endswith(("|up", "|down")) for u in theta)


def half_theta(theta: dict[Unknown, Fraction], half: str) -> dict[Unknown, Fraction]:
    """The coefficients of one half of a sign-of-difference proof, keys without the half."""
    tag = f"|{half}"
    return {(site, cls[: -len(tag)], k): v for (site, cls, k), v in theta.items()
            if cls.endswith(tag)}


def _without_idle_terms(prob: Problem, theta: dict[Unknown, Fraction]
                        ) -> dict[Unknown, Fraction]:
    """``theta`` with the anchor coefficient set to 0 for the classes whose coordinates all
    have a zero anchor distance (e.g. a draw no comparison reads): the same alignment,
    without a meaningless coefficient in its sketch."""
    used = {(c[0], g.cls[c]) for g in prob.groups for c in g.coords if g.delta[c].terms}
    return {u: (Fraction(0) if u[2] == 1 and (u[0], u[1]) not in used else v)
            for u, v in theta.items()}


def _choice_text(choice: dict[tuple[str, str], int]) -> str:
    return "partner-change term for " + ", ".join(f"{s} ({c})" for s, c in sorted(choice))


def check_alignment(prob: Problem, theta: dict[Unknown, Fraction]
                    ) -> list[Counterexample] | None:
    """Verify given template coefficients (e.g. a hand-written alignment): the
    counterexamples found (empty: every condition UNSAT; None: Z3 unknown or more than
    :data:`MAX_SOLVER_CALLS` calls needed).  Unknowns not in
    ``theta`` are 0; a noise-dependent coefficient ``(site, cls, 2)`` must be 0 or 1.
    Raises :class:`~audit.prove.noise_dependent.UnsoundAlignment` when theta violates the
    triangular condition (S) (an alignment that is not well defined / not unit-Jacobian)."""
    halves = prob.halves or (sign_halves(prob) if signed_alignment(theta) else None)
    if halves:  # a sign-of-difference proof: each half with its own coefficients
        found: list[Counterexample] = []
        for h, sub in halves.items():
            cx = check_alignment(sub, half_theta(theta, h))
            if cx is None:
                return None
            found += cx
        return found
    nd = any(u[2] == 2 and v != 0 for u, v in theta.items())
    loop = _Loop(prob, noise_dependent=nd)
    for u, v in theta.items():
        if u[2] == 2 and (v not in (0, 1) or u not in loop.theta_vars):
            raise UnsoundAlignment(f"noise-dependent coefficient {u} = {v}: not a draw class "
                                   "with an output partner, or not in {0, 1}")
    full = {u: Fraction(theta.get(u, 0)) for u in loop.theta_vars}
    try:
        with deterministic_frees():
            return loop.verify(full)
    except _BudgetSpent:
        return None  # undecided: never a proof
