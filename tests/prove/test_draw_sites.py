"""Draw sites are named by the program's own names: the assigned variable (or tuple element),
the list appended to, ``return``; a shared name gets ``_2``, ``_3`` in source order (every
sampler call its own site); ``draw@<line>`` only for a draw nothing names; ``name=`` wins."""

from __future__ import annotations

import inspect
from fractions import Fraction

from audit.dsl import laplace, mechanism
from audit.prove.symbolic import enumerate_paths


@mechanism(relation="linf1", outputs="mixed-list")
def named(q, eps):
    rho = laplace(2 / eps)
    a, b = laplace(1 / eps), q[0] + laplace(3 / eps)
    out = [a - b]
    out.append(q[0] + laplace(4 / eps))
    rho = laplace(5 / eps)  # a second call assigning rho: its own site
    if q[0] + laplace(6 / eps) >= rho:
        out.append(True)
    x = laplace(7 / eps, name="custom")
    return out + [rho + x]


def _sites(mech) -> dict[str, Fraction]:
    (p, *_) = enumerate_paths(mech, 1, Fraction(1))
    return {d.site: d.scale.value(Fraction(1)) for d in p.draws}


def test_sites_follow_the_programs_names() -> None:
    line = inspect.getsourcelines(named.fn)[1]
    cond = line + 7  # the `if q[0] + laplace(6 / eps) >= rho:` line
    assert inspect.getsourcelines(named.fn)[0][7].lstrip().startswith("if q[0] + laplace")
    assert _sites(named) == {"rho": 2, "a": 1, "b": 3, "out": 4, "rho_2": 5,
                             f"draw@{cond}": 6, "custom": 7}


@mechanism(relation="onehot1", outputs="number")
def released(q, eps):
    return q[0] + laplace(1 / eps)


def test_a_returned_draw_is_named_return() -> None:
    assert _sites(released) == {"return": 1}
