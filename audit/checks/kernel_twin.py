"""The twin of an exhaustive kernel check: the same comparison on a deliberately broken kernel.

A :class:`audit.checks.kernel.KernelCheck` over a ``Listed(exhaustive=True)`` scope that finds
no failure would say ``verified``; issue 42's falsifiability rule (:mod:`audit.falsifiability`)
lets it only if the *same* evaluator, on the *same* cases, refutes a broken variant of the
kernel module.  The variants tried here (:data:`RUNGS`, mildest first; the first one refuted is
the twin):

* ``nudged 2^-k`` -- every function the check needs returns its value moved by a relative
  2^-k (k = 40, 20, 8), down, then up (which way is unsafe depends on how the check combines
  the functions: a smaller noise scale, larger differences); an integer moves by one
  (the smallest wrong integer), an exact ``Fraction`` stays exact, a ``bool`` is kept; a zero
  moves by 2^-k in absolute terms.  The smallest k refuted is the check's resolution;
* ``accepts everything`` -- every needed function that refuses its input (raises
  ``ValueError``, which every :class:`kernels.errors.InputError` is) returns 0.0 instead: the
  twin of a "refuses bad input" check;
* ``negated`` -- every boolean the needed functions return is negated (a predicate kernel);
* ``parameter 1 + 2^-k`` (first, for a check naming ``twin_arg`` = (function, position)) -- the
  function runs with that argument (a privacy parameter: epsilon, a scale) multiplied by
  1 + 2^-k (k = 40, 20, 8, 2) or by 2: a mechanism spending more than it claims, the twin of an
  exact privacy-loss check (a uniform nudge of a density cancels in its likelihood ratio).

The sweep stops at the first case that fails (a refuted twin costs about one case), so it
reuses the check's own computation cheaply.  None refuted: the check is ``vacuous`` (the
reason names the variants it could not tell from the real kernel).  Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from audit import falsifiability

__all__ = ["ARG_RUNGS", "FIRST", "RUNGS", "BrokenModule", "kernel_twin", "negate", "nudge"]

#: the broken variants tried, mildest first: ("nudge", k) moves values by 2^-k
RUNGS: tuple[tuple[str, int], ...] = (("nudge", 40), ("nudge", 20), ("nudge", 8),
                                      ("accept", 0), ("negate", 0))
#: a check's privacy parameter (``KernelCheck.twin_arg``) is scaled by 1 + 2^-k, k in these
#: (0: doubled), before the output rungs
ARG_RUNGS: tuple[int, ...] = (40, 20, 8, 2, 0)


def negate(value: Any) -> Any:
    """``value`` with every bool (also inside lists, tuples, dicts, arrays) negated."""
    if isinstance(value, (bool, np.bool_)):
        return not value
    if isinstance(value, np.ndarray) and value.dtype.kind == "b":
        return ~value
    if isinstance(value, (list, tuple)):
        moved = [negate(v) for v in value]
        return type(value)(*moved) if hasattr(value, "_fields") else type(value)(moved)
    if isinstance(value, dict):
        return {key: negate(v) for key, v in value.items()}
    return value


def nudge(value: Any, k: int, sign: int) -> Any:
    """``value`` moved by a relative 2^-k in direction ``sign`` (+1 up, -1 down), recursively
    through lists, tuples, dicts and numpy arrays; an int moves by one, a zero by 2^-k, a
    bool, a string or None is returned unchanged."""
    h = Fraction(1, 2 ** k)
    if isinstance(value, (bool, np.bool_)) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)):
        return type(value)(value + sign)
    if isinstance(value, Fraction):
        return value + sign * h * (abs(value) if value else 1)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        step = float(h) * (abs(v) if v else 1.0)
        return type(value)(v + sign * step) if np.isfinite(v) else value
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "iu":
            return value + sign
        if value.dtype.kind == "f":
            with np.errstate(invalid="ignore", over="ignore"):
                mag = np.where(value == 0, 1.0, np.abs(value))
                out = value + sign * float(h) * mag
            return np.where(np.isfinite(value), out, value).astype(value.dtype)
        return value
    if isinstance(value, (list, tuple)):
        moved = [nudge(v, k, sign) for v in value]
        return type(value)(*moved) if hasattr(value, "_fields") else type(value)(moved)
    if isinstance(value, dict):
        return {key: nudge(v, k, sign) for key, v in value.items()}
    return value


class BrokenModule:
    """A kernel module whose functions ``names`` are broken as ``rung`` says (see
    :data:`RUNGS`); every other attribute is the module's own."""

    def __init__(self, mod: Any, names: Sequence[str], rung: tuple[str, int], sign: int,
                 arg: int = 0):
        self._mod, self._names, self._rung, self._sign = mod, frozenset(names), rung, sign
        self._arg = arg
        self.__name__ = f"{getattr(mod, '__name__', 'kernels')}[{describe(rung, sign)}]"

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._mod, name)
        if name not in self._names or not callable(attr):
            return attr
        kind, k = self._rung
        sign = self._sign

        if kind == "nudge":
            def moved(*args: Any, **kw: Any) -> Any:
                return nudge(attr(*args, **kw), k, sign)
            return moved
        if kind == "negate":
            return lambda *args, **kw: negate(attr(*args, **kw))
        if kind == "arg":
            pos = self._arg

            def spending(*args: Any, **kw: Any) -> Any:
                a = list(args)
                a[pos] = a[pos] * (2 if k == 0 else 1 + 2.0 ** -k)
                return attr(*a, **kw)
            return spending

        def accepting(*args: Any, **kw: Any) -> Any:
            try:
                return attr(*args, **kw)
            except ValueError:
                return 0.0
        return accepting


def describe(rung: tuple[str, int], sign: int, arg: int = 0) -> str:
    kind, k = rung
    if kind == "nudge":
        return (f"every output moved {'up' if sign > 0 else 'down'} by a relative 2^-{k} "
                f"(integers by one)")
    if kind == "negate":
        return "every boolean output negated"
    if kind == "arg":
        return (f"argument {arg} (its privacy parameter) "
                + ("doubled" if k == 0 else f"times 1 + 2^-{k}"))
    return "every refused input accepted (the function returns 0.0 instead of raising)"


#: the cases tried first on every variant (the tightest of the real run, see kernel_twin)
FIRST = 8


def kernel_twin(evaluate: Callable[[Any, Any], Any], mod: Any, needs: Sequence[str],
                cases: Sequence[Any], twin_arg: tuple[str, int] | None = None,
                tightest: Sequence[int] = ()) -> dict[str, Any]:
    """The twin entry (:func:`audit.falsifiability.twin`) of an exhaustive kernel check:
    ``evaluate(module, case) -> Outcome`` re-run on ``cases`` with the module broken by each
    rung of :data:`RUNGS` in turn (a nudge down, then up), stopping at the first failing case.
    An evaluator that raises on a broken module counts as refuting it (as the runner's
    ``safe_eval`` does).  ``twin_arg`` = (function, position): that argument is scaled first
    (:data:`ARG_RUNGS`).  ``tightest``: case indices of the real run,
    smallest safety gap first (the runner passes the cases in order when the check reports no
    gap); every variant is tried on the first :data:`FIRST` of them before any full sweep (a
    variant that fails anywhere fails there first, in practice), so a check refuted only by a
    strong variant does not pay a full sweep per milder one."""
    tried: list[str] = []
    variants: list[tuple[tuple[str, int], int, Sequence[str], int]] = []
    if twin_arg is not None:
        variants += [(("arg", k), 1, (twin_arg[0],), twin_arg[1]) for k in ARG_RUNGS]
    variants += [(rung, sign, needs, 0) for rung in RUNGS
                 for sign in ((-1, 1) if rung[0] == "nudge" else (1,))]
    first = [i for i in tightest if 0 <= i < len(cases)][:FIRST]
    for phase in (first, range(len(cases))) if first else (range(len(cases)),):
        for rung, sign, names, arg in variants:
            broken = BrokenModule(mod, names, rung, sign, arg)
            what = describe(rung, sign, arg)
            if phase is not first:
                tried.append(what)
            for i in phase:
                if phase is not first and i in first:
                    continue
                try:
                    out = evaluate(broken, cases[i])
                    failed, detail = (not out.ok), str(out.detail)
                except Exception as exc:  # the check's own crash on a broken value fails it
                    failed, detail = True, f"{type(exc).__name__}: {exc}"
                if failed:
                    return falsifiability.twin(
                        f"a broken kernel: {', '.join(sorted(names))} with {what}", "refuted",
                        witness={"case_index": i, "of": len(cases)},
                        detail=(f"the same comparison on the same {len(cases)} cases fails at "
                                f"case {i}: {detail[:200]}"))
    return falsifiability.twin(
        f"a broken kernel: {', '.join(sorted(needs))} with any of: {'; '.join(tried)}",
        "not-refuted",
        detail=f"the same comparison passes all {len(cases)} cases on each broken variant")
