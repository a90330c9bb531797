"""Vectorised library adapters: many outputs per library call, the library's own law.

A per-call adapter pays the library's call cost (type checks, list conversion, the
aggregate over every record) once per output; a sampling tester draws 10^5-10^6 outputs per
data set.  Where the library can draw many noise samples for one aggregate, the adapters here
return a vectorised mechanism ``f(data, size)`` whose ``size`` outputs have exactly the law
of ``size`` calls of the per-call adapter, with the same facts (claim, relation, size,
bounds, aggregate):

* :func:`opendp_batched` — an OpenDP transformation ``t`` and a noise scale: the release is
  ``t >> then_laplace(scale)`` (or ``then_gaussian``), whose claim is read from OpenDP
  (:func:`audit.extra.opendp.measurement_mechanism`); the outputs are ``t(data)`` once, then
  OpenDP's *vector* Laplace / Gaussian on ``[t(data)] * size``.  That is the same law: OpenDP
  builds its scalar float noise as the vector noise on a one-element vector followed by
  taking index 0 (``MakeNoise_AtomDomain_for_FloatExpFamily`` in OpenDP's proofs), and the
  vector noise draws its elements independently.
* :func:`diffprivlib_batched` — a diffprivlib tool (``tools.sum``, ``mean``, ``var``...):
  the tool is run once with its mechanism recorded (:func:`audit.extra.diffprivlib.
  captured_call`: the un-noised value, the mechanism class and its arguments), then that
  class is built once with those arguments and a ``RandomState`` seeded from the tester, and
  ``randomise`` is called ``size`` times.  diffprivlib has no vector noise, so this saves
  the tool's per-call work (validation, clipping, the aggregate), not the per-draw Python
  loop.

CPU per output against the per-call adapters: ``tests/bench/batched_adapters.py``.
Nothing here prints or writes files.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from audit.extra import require
from kernels.errors import InvalidParameterError

__all__ = ["diffprivlib_batched", "opendp_batched"]

#: the facts a per-call adapter states that the vectorised one copies
_FACTS = ("epsilon", "claim", "relation", "ordered", "size", "lower", "upper", "query",
          "sensitivity", "clips")


def _copy_facts(src: Any, dst: Callable[..., Any], name: str) -> Callable[..., Any]:
    for attr in _FACTS:
        if hasattr(src, attr):
            setattr(dst, attr, getattr(src, attr))
    dst.__qualname__ = name
    return dst


def opendp_batched(t: Any, scale: float, *, noise: str = "laplace", d_in: int | None = None,
                   metric: str | None = None, size: int | None = None,
                   lower: float | None = None, upper: float | None = None,
                   name: str | None = None) -> Callable[[Any, int], np.ndarray]:
    """The release ``t >> then_<noise>(scale)`` as a vectorised mechanism (module
    docstring); ``t``'s output must be a float (``AtomDomain(T=f64)``).  The other keywords
    are those of :func:`audit.extra.opendp.measurement_mechanism` (for releases that do not
    expose their metric or domain)."""
    dp = require("opendp.prelude", "opendp")
    from audit.extra.opendp import measurement_mechanism

    if noise not in ("laplace", "gaussian"):
        raise InvalidParameterError(f"must be 'laplace' or 'gaussian', got {noise!r}",
                                    param="noise")
    out = str(getattr(t, "output_domain", ""))
    if "f64" not in out or "Vector" in out:
        raise InvalidParameterError(f"the transformation's output must be one float "
                                    f"(AtomDomain(T=f64)), got {out or 'unknown'}",
                                    param="t")
    then = dp.m.then_laplace if noise == "laplace" else dp.m.then_gaussian
    release = t >> then(scale)
    label = name or f"OpenDP {noise}({scale:g}) on a transformation, batched"
    per_call = measurement_mechanism(release, d_in, metric, label, query=t, size=size,
                                     lower=lower, upper=upper)
    atom = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    vec = (dp.m.make_laplace(atom, dp.l1_distance(T=float), scale) if noise == "laplace"
           else dp.m.make_gaussian(atom, dp.l2_distance(T=float), scale))

    def mech(data: Any, size: int) -> np.ndarray:
        v = float(t(np.asarray(data).tolist()))
        return np.asarray(vec([v] * int(size)), dtype=np.float64)

    mech.per_call = per_call  # type: ignore[attr-defined]
    return _copy_facts(per_call, mech, label)


def diffprivlib_batched(tool: Callable[..., Any], *, epsilon: float, **kwargs: Any
                        ) -> Callable[[Any, int, int], np.ndarray]:
    """A diffprivlib tool as a vectorised mechanism ``f(data, size, seed)`` (module
    docstring) with the facts of :func:`audit.extra.diffprivlib.tool_mechanism`."""
    require("diffprivlib", "diffprivlib")
    from audit.extra.diffprivlib import captured_call, tool_mechanism

    per_call = tool_mechanism(tool, epsilon=epsilon, **kwargs)
    mechanisms = require("diffprivlib.mechanisms", "diffprivlib")

    def mech(data: Any, size: int, seed: int) -> np.ndarray:
        call = captured_call(tool, data, epsilon=epsilon, **kwargs)
        args = {k: v for k, v in call.items() if k not in ("value", "mechanism",
                                                            "random_state")}
        cls = getattr(mechanisms, call["mechanism"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = cls(**args, random_state=np.random.RandomState(int(seed) % 2**32))
            return np.fromiter((m.randomise(call["value"]) for _ in range(int(size))),
                               dtype=np.float64, count=int(size))

    mech.per_call = per_call  # type: ignore[attr-defined]
    return _copy_facts(per_call, mech, f"{per_call.__qualname__} (batched)")
