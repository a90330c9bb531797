"""The mathematical description of one generated program (what the truth oracle reads).

A :class:`Spec` fixes a family and its parameters; :mod:`audit.prove.selfaudit.families`
writes the DSL program it describes and :mod:`audit.prove.selfaudit.truth` computes the
program's privacy loss from the description alone (never from the DSL program, never with
the prover's code).  Scales are the noise scales at eps = 1 (the programs draw with scale
``s / eps`` and claim eps = 1).  Nothing here prints or writes files.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

__all__ = ["FAMILIES", "LAWS", "Spec"]

#: ``svt``: Sparse Vector, bool-list output (threshold noise ``t_scale``, None = no noise;
#: query noise ``q_scale``; halt after ``cutoff`` Trues); ``noisy_max``: Report Noisy Max
#: (noise ``q_scale``; ``output`` "index", "value" or "gap" = [index, gap to the runner-up]);
#: ``sum``: sum(q) + noise; ``histogram``: every q_i + its own noise; ``prefix``: every prefix
#: sum + its own noise; ``shared_prefix``: every prefix sum + ONE shared noise draw
FAMILIES = ("svt", "noisy_max", "sum", "histogram", "prefix", "shared_prefix")
LAWS = ("laplace", "geometric")


@dataclass(frozen=True)
class Spec:
    """One generated program: family, noise law, relation and scales (at eps = 1)."""

    family: str
    law: str
    relation: str
    q_scale: Fraction
    t_scale: Fraction | None = None
    cutoff: int = 1
    output: str = ""

    @property
    def name(self) -> str:
        parts = [self.family, "lap" if self.law == "laplace" else "geo", self.relation]
        if self.family == "svt":
            t = "none" if self.t_scale is None else str(self.t_scale)
            parts += [f"sT={t}", f"sQ={self.q_scale}", f"c={self.cutoff}"]
        else:
            parts.append(f"s={self.q_scale}")
        if self.output:
            parts.append(self.output)
        return "[" + ",".join(parts) + "]"
