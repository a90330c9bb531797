"""Run a DSL mechanism on concrete queries with *given* noise values (exact arithmetic): the
replay of a counterexample or of an alignment, independent of the symbolic encoding.

``run_with_noise(mech, q, eps, noise)`` executes the program with ``q`` (numbers), ``eps``
(a number) and every draw ``(site, index)`` taking the value ``noise[(site, index)]`` (0 when
absent); comparisons are then between numbers and decided directly.  Returns the output in
the form of :func:`audit.prove.symbolic.freeze_output` (numbers as Fractions) and the draws
made, in order.  Nothing here prints or writes files.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from audit import dsl
from audit.dsl import DSLError, Lin, Mechanism
from audit.prove.symbolic import freeze_output

__all__ = ["run_with_noise"]


class _FixedNoise:
    def __init__(self, noise: Mapping[tuple[str, int], Fraction]) -> None:
        self.noise = noise
        self.counts: dict[str, int] = {}
        self.draws: list[tuple[str, int]] = []

    def draw(self, law: str, scale: Any, site: str) -> Lin:
        k = self.counts.get(site, 0)
        self.counts[site] = k + 1
        self.draws.append((site, k))
        return Lin({}, Fraction(self.noise.get((site, k), Fraction(0))))

    def decide(self, expr: Lin, op: str) -> bool:  # pragma: no cover - constants only
        raise DSLError(f"a comparison of a non-constant value {expr!r} in a concrete replay")


def run_with_noise(mech: Mechanism, q: Sequence[Any], eps: Any,
                   noise: Mapping[tuple[str, int], Any],
                   params: Mapping[str, Any] | None = None
                   ) -> tuple[Any, list[tuple[str, int]]]:
    """The output of ``mech`` on ``q`` with the given noise values (see the module doc)."""
    tr = _FixedNoise({k: Fraction(v) for k, v in noise.items()})
    kwargs: dict[str, Any] = {}
    sig = inspect.signature(mech.fn)
    for p in list(sig.parameters.values())[1:]:
        if p.name == mech.epsilon_param:
            continue
        v = (params or {}).get(p.name, mech.params.get(p.name, p.default))
        kwargs[p.name] = Fraction(v) if isinstance(v, float) else v
    qs = [Lin({}, Fraction(v)) for v in q]
    with dsl.symbolic(tr):
        out = mech.fn(qs, **{mech.epsilon_param: Fraction(eps), **kwargs})
    return freeze_output(out), tr.draws
