"""The last line of defence behind a PROVED: the program run for real must do what its
symbolic paths say.

A proof is about the paths the symbolic run found.  A program that notices it is being run
symbolically (type introspection, a conversion that fails only on a symbolic value, anything
the DSL's refusals miss) takes other paths when it really runs, and the proof is about a
different program.  :func:`cross_check` therefore runs the program *concretely* (the DSL's
samplers drawing from a seeded numpy ``Generator``, floats everywhere, exactly as ``dpaudit
test`` runs it) on the neighbouring query vectors of the witness search
(:func:`audit.prove.refute.threshold_pairs`: both q and q' of up to :data:`PAIRS` pairs per n,
around the program's comparison thresholds) :data:`RUNS` times each, records every draw (site,
law, value), and requires for every run a symbolic path of that n with

* the same draws (sites and laws, in order),
* every constraint true at (q, the recorded noise, the public parameters' values), up to
  :data:`TOL` for float rounding at a boundary,
* the same output: discrete parts equal, numbers within :data:`TOL` (relative), compared on
  :meth:`audit.dsl.Mechanism.encode`'s fixed-length vector (the black-box tester's encoding)
  as well as structurally.

A run that no path explains is a :class:`ConcreteMismatch` (bad input: the program is not the
one that was proved), never a PROVED.  Work: at most ``len(sizes) * 2 * PAIRS * RUNS`` runs,
seeded (:data:`SEED`), so the check is reproducible and never depends on machine speed.  It is
exact per run (no statistics: no false alarms beyond the float-rounding tolerance at
constraint boundaries), and it can miss a program whose symbolic / concrete disagreement sits
on inputs or noise it did not draw.  Nothing here prints or writes files.
"""

from __future__ import annotations

import inspect
from fractions import Fraction
from typing import Any

import numpy as np

from audit import dsl
from audit.dsl import DSLError, Lin, Mechanism
from audit.prove.refute import threshold_pairs
from audit.prove.symbolic import Path, freeze_output, symbolic_arguments

__all__ = ["PAIRS", "RUNS", "SEED", "TOL", "ConcreteMismatch", "cross_check"]

#: neighbouring pairs per n (both vectors of each are run)
PAIRS = 3
#: runs per query vector
RUNS = 25
#: the generator's seed
SEED = 20_361
#: float tolerance at constraint boundaries and on numeric outputs (relative to max(1, |v|))
TOL = 1e-9


class ConcreteMismatch(DSLError):
    """A concrete run of a proved program that none of its symbolic paths explains."""


def _value(e: Any, env: dict[str, Fraction]) -> Any:
    if isinstance(e, tuple):
        return tuple(_value(v, env) for v in e)
    if isinstance(e, Lin):
        r = e.substitute(env)  # type: ignore[arg-type]
        if not r.is_constant():
            raise ConcreteMismatch(f"an output reads {sorted(r.variables())}, which the "
                                   "concrete run does not determine")
        return r.const
    return e


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(_close(x, y) for x, y in zip(a, b, strict=True)))
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b or (type(a) is type(b) and a == b)
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if isinstance(a, Fraction | int) and isinstance(b, Fraction | int):
        return abs(float(a) - float(b)) <= TOL * max(1.0, abs(float(a)))
    return False


def _holds(value: Fraction, op: str) -> bool:
    slack = Fraction(TOL) * max(Fraction(1), abs(value))
    return {">=": value >= -slack, ">": value > -slack, "<=": value <= slack,
            "<": value < slack}[op]


def _explains(p: Path, drawn: list[tuple[str, str, float | int]], env: dict[str, Fraction],
              out: Any) -> bool:
    if len(p.draws) != len(drawn) or any(
            d.site != s or d.law != law for d, (s, law, _) in zip(p.draws, drawn, strict=True)):
        return False
    full = dict(env)
    for d, (_, _, x) in zip(p.draws, drawn, strict=True):
        full[d.name] = Fraction(x)
    for c in p.constraints:
        v = c.expr.substitute(full)  # type: ignore[arg-type]
        if not v.is_constant() or not _holds(v.const, c.op):
            return False
    try:
        return _close(_value(p.output, full), out)
    except ConcreteMismatch:
        return False


def cross_check(mech: Mechanism, per_n: dict[int, list[Path]], eps: Fraction | None,
                relation: str) -> int:
    """Run ``mech`` concretely against its symbolic paths ``per_n`` (module docstring);
    returns the number of runs checked, raises :class:`ConcreteMismatch` on the first run
    no path explains."""
    e = Fraction(mech.claimed_epsilon) if eps is None else Fraction(eps)
    rng = np.random.default_rng(SEED)
    runs = 0
    for n, all_paths in sorted(per_n.items()):
        by_draws: dict[tuple[tuple[str, str], ...], list[Path]] = {}
        for p in all_paths:
            by_draws.setdefault(tuple((d.site, d.law) for d in p.draws), []).append(p)
        public = symbolic_arguments(mech, n, eps)[3]
        params = {**_defaults(mech), **mech.params}
        env_pub = {f"p:{k}": Fraction(params[k]) for k in public}
        pairs = threshold_pairs(mech, n, e, relation, max_pairs=PAIRS)[:PAIRS]
        vectors = list(dict.fromkeys(v for pair in pairs for v in pair))
        for q in vectors:
            env = {**env_pub, **{f"q{i}": Fraction(v) for i, v in enumerate(q)}}
            qf = [float(v) for v in q]
            for _ in range(RUNS):
                drawn: list[tuple[str, str, float | int]] = []
                with dsl.recording(rng, drawn):
                    raw = mech(list(qf), float(e))
                out = freeze_output(raw)
                runs += 1
                paths = by_draws.get(tuple((s, law) for s, law, _ in drawn), [])
                if any(_explains(p, drawn, env, out) for p in paths):
                    if _encodes(mech, raw, n, paths, drawn, env):
                        continue
                raise ConcreteMismatch(
                    f"{mech.name}: a concrete run at n = {n} on q = {[str(v) for v in q]} "
                    f"with noise {[(s, x) for s, _, x in drawn]} returned {raw!r}, which none "
                    f"of the {len(all_paths)} symbolic paths gives: the program behaves "
                    "differently when it really runs (type introspection or a construct the "
                    "symbolic run answers otherwise), so the proof would be about another "
                    "program")
    return runs


def _encodes(mech: Mechanism, raw: Any, n: int, paths: list[Path],
             drawn: list[tuple[str, str, float | int]], env: dict[str, Fraction]) -> bool:
    """The black-box encoding of the concrete output equals that of an explaining path's."""
    try:
        got = mech.encode(raw, n)
    except DSLError:
        return False
    for p in paths:
        if not _explains(p, drawn, env, freeze_output(raw)):
            continue
        full = dict(env)
        for d, (_, _, x) in zip(p.draws, drawn, strict=True):
            full[d.name] = Fraction(x)
        want = mech.encode(_plain(_value(p.output, full)), n)
        if len(want) == len(got) and all(abs(a - b) <= TOL * max(1.0, abs(a))
                                         for a, b in zip(want, got, strict=True)):
            return True
    return False


def _plain(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    if isinstance(v, Fraction):
        return float(v)
    return v


def _defaults(mech: Mechanism) -> dict[str, Any]:
    return {p.name: p.default for p in inspect.signature(mech.fn).parameters.values()
            if p.default is not inspect.Parameter.empty}
