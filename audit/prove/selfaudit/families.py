"""Program families for the prover's self-audit, written in the DSL (:mod:`audit.dsl`).

:func:`generate` yields one :class:`Generated` per parameter combination: the
:class:`~audit.prove.selfaudit.spec.Spec` (what :mod:`audit.prove.selfaudit.truth` reads)
and the DSL mechanism it describes (what ``dpaudit prove`` reads), claimed eps-DP at
eps = 1 with every noise scale ``s / eps``.  The grid (:data:`GRID`):

* Sparse Vector (bool-list): threshold scale sT in {none, 1, 2, 4}, query scale sQ in
  {1, 2, 3, 4, 6, 8}, cut-off c in {1, 2}, relation linf1 or monotone1, Laplace or
  two-sided geometric noise (192 programs; Lyu et al.'s Alg. 1 is sT = 2, sQ = 4c);
* Report Noisy Max: scale s in {1/2, 1, 2, 4}, output index or value (Laplace or
  geometric) or [index, gap] (Laplace), relation linf1 or monotone1 (40);
* sums: sum(q) + noise, a histogram, independent noisy prefix sums, prefix sums sharing one
  noise; scale in {1/2, 1, 2, 4, 8}, relation onehot1 or linf1, Laplace or geometric (80).

Geometric programs compare with the integer threshold 0 (a concrete parameter); Laplace
SVT programs with a public real threshold ``T`` (the prover covers every T; the oracle's
search moves q instead, which is the same since only q - T matters).  Nothing here prints or
writes files.
"""

from __future__ import annotations

import itertools
import linecache
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from audit.dsl import Mechanism, geometric, laplace, mechanism
from audit.prove.selfaudit.spec import Spec

__all__ = ["GRID", "Generated", "build", "generate", "source", "specs"]

F = Fraction
#: the parameter grid of every family (module docstring)
GRID: dict[str, dict[str, tuple[Any, ...]]] = {
    "svt": {"law": ("laplace", "geometric"), "relation": ("linf1", "monotone1"),
            "t_scale": (None, F(1), F(2), F(4)), "q_scale": (F(1), F(2), F(3), F(4), F(6), F(8)),
            "cutoff": (1, 2)},
    "noisy_max": {"law": ("laplace", "geometric"), "relation": ("linf1", "monotone1"),
                  "q_scale": (F(1, 2), F(1), F(2), F(4)), "output": ("index", "value", "gap")},
    "sums": {"family": ("sum", "histogram", "prefix", "shared_prefix"),
             "law": ("laplace", "geometric"), "relation": ("onehot1", "linf1"),
             "q_scale": (F(1, 2), F(1), F(2), F(4), F(8))},
}


@dataclass(frozen=True)
class Generated:
    """One generated program: its description and its DSL mechanism."""

    spec: Spec
    program: Mechanism


def _lit(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"Fraction({v.numerator}, {v.denominator})"


_SVT = """\
@mechanism(epsilon="eps", relation="{rel}", outputs="bool-list")
def {fn}(q, eps, T={tdef}):
    rho = {rho}
    out = []
    count = 0
    for i in range(len(q)):
        nu = {law}({sq} / eps)
        if q[i] + nu >= T + rho:
            out.append(True)
            count += 1
            if count >= {cut}:
                break
        else:
            out.append(False)
    return out
"""

_NOISY_MAX = """\
@mechanism(epsilon="eps", relation="{rel}", outputs="{kind}")
def {fn}(q, eps):{gap_n1}
    best = 0
    best_val = q[0] + {law}({s} / eps)
    second_val = None
    for i in range(1, len(q)):
        v = q[i] + {law}({s} / eps)
        if v > best_val:
            best, best_val, second_val = i, v, best_val
        elif second_val is None or v > second_val:
            second_val = v
    return {ret}
"""

_SUM = """\
@mechanism(epsilon="eps", relation="{rel}", outputs="number")
def {fn}(q, eps):
    total = 0
    for i in range(len(q)):
        total = total + q[i]
    return total + {law}({s} / eps)
"""

_LIST = """\
@mechanism(epsilon="eps", relation="{rel}", outputs="number-list")
def {fn}(q, eps):{shared}
    out = []
    run = 0
    for i in range(len(q)):
        run = run + q[i]
        out.append({entry})
    return out
"""


def source(spec: Spec) -> tuple[str, str]:
    """The DSL program ``spec`` describes, as source text, and its function name."""
    fn = "".join(ch if ch.isalnum() else "_" for ch in spec.name).strip("_")
    law = spec.law
    if spec.family == "svt":
        rho = "0" if spec.t_scale is None else f"{law}({_lit(spec.t_scale)} / eps)"
        tdef = "0.0" if law == "laplace" else "0"
        return _SVT.format(rel=spec.relation, fn=fn, tdef=tdef, rho=rho, law=law,
                           sq=_lit(spec.q_scale), cut=spec.cutoff), fn
    s = _lit(spec.q_scale)
    if spec.family == "noisy_max":
        kind = {"index": "index", "value": "number", "gap": "mixed-list"}[spec.output]
        ret = {"index": "best", "value": "best_val",
               "gap": "[best, best_val - second_val]"}[spec.output]
        gap_n1 = ("\n    if len(q) == 1:\n        return [0, 0]" if spec.output == "gap"
                  else "")
        return _NOISY_MAX.format(rel=spec.relation, fn=fn, kind=kind, law=law, s=s,
                                 ret=ret, gap_n1=gap_n1), fn
    if spec.family == "sum":
        return _SUM.format(rel=spec.relation, fn=fn, law=law, s=s), fn
    shared = f"\n    shared = {law}({s} / eps)" if spec.family == "shared_prefix" else ""
    entry = {"histogram": f"q[i] + {law}({s} / eps)", "prefix": f"run + {law}({s} / eps)",
             "shared_prefix": "run + shared"}[spec.family]
    return _LIST.format(rel=spec.relation, fn=fn, shared=shared, entry=entry), fn


def build(spec: Spec) -> Mechanism:
    """The DSL program ``spec`` describes, compiled from :func:`source` under the file name
    ``<dpaudit-selfaudit NAME>`` registered in :mod:`linecache` (so that the DSL's draw-site
    names and the all-n step read its source like a user's file)."""
    text, fn = source(spec)
    filename = f"<dpaudit-selfaudit {spec.name}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    ns: dict[str, Any] = {"mechanism": mechanism, "laplace": laplace,
                          "geometric": geometric, "Fraction": Fraction,
                          "__name__": "audit.prove.selfaudit.generated"}
    exec(compile(text, filename, "exec"), ns)  # noqa: S102 - our own generated program
    mech: Mechanism = ns[fn]
    return mech


def specs() -> Iterator[Spec]:
    """Every spec of :data:`GRID`, in a fixed order."""
    g = GRID["svt"]
    for law, rel, st, sq, c in itertools.product(g["law"], g["relation"], g["t_scale"],
                                                 g["q_scale"], g["cutoff"]):
        yield Spec("svt", law, rel, sq, st, c)
    g = GRID["noisy_max"]
    for law, rel, s, out in itertools.product(g["law"], g["relation"], g["q_scale"],
                                              g["output"]):
        if out == "gap" and law == "geometric":
            continue  # the gap's density is a Laplace computation in the oracle
        yield Spec("noisy_max", law, rel, s, output=out)
    g = GRID["sums"]
    for fam, law, rel, s in itertools.product(g["family"], g["law"], g["relation"],
                                              g["q_scale"]):
        yield Spec(fam, law, rel, s)


def generate() -> Iterator[Generated]:
    """Every program of the grid with its spec."""
    for spec in specs():
        yield Generated(spec, build(spec))
