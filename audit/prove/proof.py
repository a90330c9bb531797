"""The whole proof of one DSL mechanism: paths, alignment synthesis, and (when no alignment is
found) an exact refutation attempt, as a :class:`~audit.prove.verdict.ProofVerdict`.

Scope: every n in 1..``n_max`` (the alignment is one set of coefficients shared by every n and
every loop iteration); every n >= 1 when the all-n step (:mod:`audit.prove.induction`) proves
the alignment by induction over the loop's iterations.  When that step *fails* (the loop is
one it handles but the alignment's cost grows with n, or an iteration's output is not kept),
the exact refutation search also runs at n = ``n_max`` + 1 .. ``n_max`` +
:data:`EXTRA_REFUTE_N` on at most :data:`BEYOND_PAIRS` neighbouring pairs per n placed
around the comparison thresholds read from the program
(:func:`audit.prove.refute.threshold_pairs`: on them, above / below them in StatDP's
patterns, uniform differences first since a cost that grows with n builds up over
iterations that move alike), so a program that is DP only for small n can end refuted with
its witness.  A work-unit bound (sizes, pairs, the events of each pair), never seconds; when
it finds nothing the verdict stays "verified for n <= N" and says that the all-n step
failed, why, and that no witness was found up to n_max + EXTRA_REFUTE_N.  eps: symbolic
when every noise scale is ``c / eps`` (the proof then holds for every eps > 0), else the
numeric ``epsilon`` given (or the mechanism's claimed epsilon).  A proof is then falsified
(:mod:`audit.prove.twin`): the same check must refute the claim tightened below the loss the
program attains in the scope, else the verdict is ``vacuous``.  Nothing here prints or
writes files.
"""

from __future__ import annotations

import importlib
import time
from fractions import Fraction
from typing import Any

import z3

from audit import dsl
from audit.dsl import DSLError, EpsilonUseError, Mechanism
from audit.prove import cegis, induction
from audit.prove import refute as refute_mod
from audit.prove.alignment import NeedsNumericEpsilon, build_problem
from audit.prove.certificate import build_certificate
from audit.prove.closed_world import DEFAULT_BUDGET, Budget, ClosedWorld, z3_rlimit
from audit.prove.concrete_check import cross_check
from audit.prove.static_checks import check_program
from audit.prove.twin import prove_twin
from audit.prove.verdict import ProofVerdict, proof_sketch

__all__ = ["DEFAULT_N_MAX", "prove_mechanism", "solver_settings"]

#: prove for every n <= this by default (a work-unit bound: paths grow with n)
DEFAULT_N_MAX = 4
#: at most this many Z3 counterexample pairs seed the exact refutation search
MAX_SEEDS = 8
#: when the all-n step fails, the exact refutation search runs up to n_max + this
EXTRA_REFUTE_N = 2
#: ... on at most this many threshold-placed neighbouring pairs per n
BEYOND_PAIRS = 64


def solver_settings(max_rounds: int) -> dict[str, Any]:
    return {"z3": z3.get_version_string(), "rlimit": z3_rlimit(cegis.RLIMIT), "grid": cegis.GRID,
            "bound": cegis.BOUND, "max_rounds": max_rounds}


def _refute(mech: Mechanism, eps: Fraction, relation: str, n_max: int,
            seeds: list[tuple[list[Fraction], list[Fraction]]], n_min: int = 1,
            values: list[int] | None = None) -> tuple[Any, str]:
    """The exact refutation search of :mod:`audit.prove.refute` when it is installed."""
    try:
        mod = importlib.import_module("audit.prove.refute")
    except ModuleNotFoundError:
        return None, "no exact refutation search is available (audit.prove.refute)"
    kw: dict[str, Any] = {} if values is None else {"values": values}
    res = mod.refute(mech, epsilon=eps, relation=relation, n_min=n_min, n_max=n_max,
                     seeds=seeds, **kw)
    return res, ""


def prove_mechanism(mech: Mechanism, *, n_max: int = DEFAULT_N_MAX,
                    epsilon: Fraction | None = None, relation: str | None = None,
                    max_rounds: int = cegis.MAX_ROUNDS, refute: bool = True,
                    ref: str | None = None, budget: Budget = DEFAULT_BUDGET) -> ProofVerdict:
    """Prove ``mech`` epsilon-DP for every n <= ``n_max`` (see the module docstring), in
    the closed world of :mod:`audit.prove.closed_world` (after the static pass of
    :mod:`audit.prove.static_checks`), every run bounded by ``budget``; a PROVED result is
    then cross-checked by real concrete runs (:mod:`audit.prove.concrete_check`).

    Raises :class:`~audit.dsl.DSLError` when the program steps outside the DSL, uses
    randomness other than the DSL's samplers, exceeds the budget, or fails on its own."""
    if not isinstance(mech, Mechanism):
        raise DSLError(f"{ref or mech!r} is not a DSL mechanism (decorate the function with "
                       "@audit.dsl.mechanism)")
    check_program(mech)
    with dsl.guarded(ClosedWorld(budget)):
        v, prob = _prove(mech, n_max, epsilon, relation, max_rounds, refute, ref)
        if v.status == "verified":
            per_n: dict[int, list[Any]] = {}
            for g in prob.groups:
                per_n.setdefault(g.n, []).extend(g.paths)
            runs = cross_check(mech, per_n, prob.eps, v.relation)
            v.notes.append(f"cross-checked by {runs} seeded concrete runs (floats, the DSL's "
                           "samplers on a numpy Generator) on the witness-search pairs: each "
                           "is explained by a symbolic path with the same draws and output")
            _falsify(mech, prob, v)
    return v


def _falsify(mech: Mechanism, prob: Any, v: ProofVerdict) -> None:
    """Run the twin of a PROVED ``v`` (:mod:`audit.prove.twin`): the same check on the claim
    tightened below the loss the program attains; a twin not refuted turns the verdict
    ``vacuous`` (the proof could not have failed in its scope), with the reason."""
    assert v.theta is not None
    v.twin = prove_twin(mech, prob, v.theta, v.relation)
    if v.twin["outcome"] != "refuted":
        v.status = "vacuous"
        v.reason = (f"the proof's twin ({v.twin['perturbation']}) came out "
                    f"{v.twin['outcome']}: {v.twin.get('detail', '')}")
        v.twin["vacuous_reason"] = v.reason


def _prove(mech: Mechanism, n_max: int, epsilon: Fraction | None, relation: str | None,
           max_rounds: int, refute: bool, ref: str | None) -> tuple[ProofVerdict, Any]:
    t0 = time.perf_counter()
    rel = relation or mech.relation
    ns = list(range(1, n_max + 1))
    notes: list[str] = []
    eps = epsilon
    try:
        prob = build_problem(mech, ns, eps, rel)
    except (EpsilonUseError, NeedsNumericEpsilon) as exc:
        if eps is not None:
            raise
        eps = Fraction(mech.claimed_epsilon)
        notes.append(f"eps cannot stay symbolic ({exc}); proving for epsilon = {eps}")
        try:
            prob = build_problem(mech, ns, eps, rel)
        except DSLError as again:  # outside the DSL at a numeric epsilon too: say both
            raise type(again)(f"{again} (at the claimed epsilon = {eps}, tried because eps "
                              f"cannot stay symbolic: {exc})") from again
    syn = cegis.synthesise(prob, max_rounds)
    notes += prob.notes  # after synthesis: a branch-sensitive proof refines prob in place
    name = ref or mech.name
    ns = list(prob.ns)
    v = ProofVerdict("inconclusive", name, rel, ns, prob.eps, solver_settings(max_rounds),
                     paths=prob.path_counts, rounds=syn.rounds, examples=syn.examples,
                     solver_calls=syn.solver_calls, notes=notes, fixed=prob.fixed,
                     public=prob.public)
    v.unchecked = {n: next((m.split(": ", 1)[1] for m in prob.notes
                            if m.startswith(f"n = {n} not checked: ")), "not run")
                   for n in range(1, n_max + 1) if n not in ns}
    if syn.status == "verified":
        assert syn.theta is not None
        theta = syn.theta
        if v.unchecked:  # no all-n claim over sizes the program cannot run at
            ind = induction.Induction("outside", "the program crashes at n = "
                                 f"{', '.join(map(str, v.unchecked))}")
        else:
            ind = induction.prove_all_n(mech, prob, theta, max_rounds)
        if ind.status == "proved" and ind.theta is not None:
            if ind.theta != theta:
                v.notes.append("the first alignment found cost something on iterations that "
                               "can repeat; the one printed was synthesised again with those "
                               "costs forbidden and checked for n <= N and for every n")
            theta = ind.theta  # verified for n <= N too (prove_all_n checks it)
            v.all_n = True
            v.invariant = ind.invariant
        else:
            v.notes.append(f"all-n step {ind.status}: {ind.reason}; the proof holds for "
                           f"{v.sizes_text()} only")
        v.status = "verified"
        v.alignment = {}
        for (site, cls, k), val in sorted(theta.items()):
            coefs = v.alignment.setdefault(site, {}).setdefault(cls, ["0", "0"])
            coefs.extend(["0"] * (k + 1 - len(coefs)))  # k = 2: the noise-dependent term
            coefs[k] = str(val)
        v.sketch = proof_sketch(prob, theta) + v.invariant
        v.theta = theta
        v.certificate = build_certificate(
            ref or f"{mech.fn.__module__}:{mech.fn.__name__}", mech, prob, theta, v.all_n)
        v.notes.append(f"proof certificate: {len(v.certificate['queries'])} SMT-LIB2 "
                       "queries (UNSAT) and the alignment; `dpaudit replay` re-checks them "
                       "with cvc5, a fresh Z3 and concrete runs")
        if ind.status == "failed" and refute:
            _refute_beyond(mech, prob, rel, n_max, v, ind.reason)
        v.seconds = time.perf_counter() - t0
        return v, prob
    v.failing_sites = syn.weak_sites
    v.reason = syn.reason
    if syn.counterexample is not None:
        v.counterexample = syn.counterexample.describe()
    if refute:
        seeds: list[tuple[list[Fraction], list[Fraction]]] = []
        # the Z3 counterexamples seed the search, those of the largest n first
        for cx in sorted(reversed(syn.all_examples), key=lambda c: -c.n):
            q = cx.q if cx.kind == "output" else [Fraction(0)] * cx.n
            pair = (q, [a + b for a, b in zip(q, cx.d, strict=True)])
            if pair not in seeds and len(seeds) < MAX_SEEDS:
                seeds.append(pair)
        eps_r = prob.eps if prob.eps is not None else Fraction(mech.claimed_epsilon)
        res, why = _refute(mech, eps_r, rel, n_max, seeds)
        if res is not None and res.verdict == "refuted" and res.witness is not None:
            v.status = "refuted"
            v.witness = res.witness.as_doc()
            v.reason = (f"no alignment found ({syn.reason}); an exact witness violates "
                        f"epsilon = {eps_r}")
        elif res is not None:
            v.notes.append(refute_mod.search_note(res))
            v.notes += res.notes
        elif why:
            v.notes.append(why)
    if v.status == "inconclusive" and syn.status == "no-alignment" and len(ns) > 1:
        _largest_proved(mech, ns, prob.eps, rel, max_rounds, v)
    v.seconds = time.perf_counter() - t0
    return v, prob


def _refute_beyond(mech: Mechanism, prob: Any, rel: str, n_max: int, v: ProofVerdict,
                   why_failed: str = "") -> None:
    """The exact refutation search at n_max + 1 .. n_max + EXTRA_REFUTE_N on the
    threshold-placed pairs (module docstring), smallest n first, stopping at the first
    witness; a witness makes ``v`` refuted (the n <= n_max proof is kept as its partial
    result), else ``v`` says what was searched."""
    eps_r = prob.eps if prob.eps is not None else Fraction(mech.claimed_epsilon)
    n_top = n_max + EXTRA_REFUTE_N
    res = None
    checked = skipped = unconfirmed = 0
    for n in range(n_max + 1, n_top + 1):
        pairs = refute_mod.threshold_pairs(mech, n, eps_r, rel, max_pairs=BEYOND_PAIRS)
        res = refute_mod.refute(mech, epsilon=eps_r, relation=rel, n_min=1, n_max=0,
                                seeds=pairs)
        checked += res.pairs_checked
        skipped += res.skipped_events + int(res.scope.get("skipped_pairs", 0))
        unconfirmed += len(res.unconfirmed)
        v.notes += [x for x in res.notes if "not confirmed" in x]
        if res.verdict == "refuted" and res.witness is not None:
            break
    if res is not None and res.verdict == "refuted" and res.witness is not None:
        v.partial = {"proved_for_n_up_to": n_max, "alignment": list(v.sketch)}
        v.status = "refuted"
        v.witness = res.witness.as_doc()
        v.reason = (f"an alignment proves every n <= {n_max}, but its cost grows with n and "
                    f"an exact witness at n = {len(res.witness.q)} violates epsilon = {eps_r}")
        return
    because = f" because {why_failed}" if why_failed else ""
    v.reason = (f"verified for n <= {n_max}; the all-n step failed{because}; no witness "
                f"found at n <= {n_top}")
    v.notes.append(f"exact refutation search at epsilon = {eps_r} for n = {n_max + 1}.."
                   f"{n_top} ({checked} neighbouring pairs around the comparison "
                   f"thresholds, at most {BEYOND_PAIRS} per n; every output pattern and "
                   "half-line event of each) found no violation"
                   + (f" among the events it computed ({skipped} event(s) or pair(s) "
                      "skipped)" if skipped else "")
                   + (f"; {unconfirmed} witness(es) not confirmed by the independent "
                      "evaluator" if unconfirmed else "")
                   + f": not-refuted there, nothing is claimed beyond n = {n_max}")


def _largest_proved(mech: Mechanism, ns: list[int], eps: Fraction | None, rel: str,
                    max_rounds: int, v: ProofVerdict) -> None:
    """Record in ``v`` the largest prefix of ``ns`` the templates do prove (a partial result:
    the verdict stays inconclusive for the scope asked)."""
    for k in range(len(ns) - 1, 0, -1):
        sub = build_problem(mech, ns[:k], eps, rel)
        syn = cegis.synthesise(sub, max_rounds)
        if syn.status == "verified":
            assert syn.theta is not None
            v.partial = {"proved_for_n_up_to": ns[k - 1],
                         "alignment": proof_sketch(sub, syn.theta)}
            v.notes.append(f"the templates do prove n <= {ns[k - 1]}; no alignment covers "
                           f"n = {ns[k]}")
            return
