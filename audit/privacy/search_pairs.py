"""What ``dpaudit test`` takes from the neighbour search: a few sampled pairs for the
black-box tester, and the exact sensitivity Finding when the mechanism exposes its aggregate.

* :func:`blackbox_pairs` — from :func:`audit.privacy.neighbour_search.neighbour_search`,
  at most ``max_pairs`` pairs spread over the families (round robin: the first pair of each
  family, then the second, ...), data sets of at most ``max_records`` records (a sampling
  tester calls the mechanism on every output, so its pairs stay small; the exact check
  below has no such limit).
* :func:`declared_sensitivity` — ``(query, sensitivity, norm)`` when the object declares
  ``query`` and ``sensitivity`` (a number, or a function of n) and optionally ``norm``.
* :func:`sensitivity_check_finding` — the ``user.sensitivity`` Finding of
  :mod:`audit.privacy.sensitivity_check` over the same search space, sizes up to ``n``.

Nothing here prints or writes files.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from audit.findings import Finding
from audit.privacy.neighbour_search import FAMILIES, SearchSpace, neighbour_search
from audit.privacy.sensitivity_check import NORMS, check_sensitivity, sensitivity_finding
from audit.protocols import NeighbourPair
from kernels.errors import InvalidParameterError

__all__ = ["blackbox_pairs", "declared_sensitivity", "sensitivity_check_finding"]


def blackbox_pairs(space: SearchSpace, max_pairs: int = 12, max_records: int = 64,
                   families: tuple[str, ...] = FAMILIES) -> list[NeighbourPair]:
    """Up to ``max_pairs`` pairs, round robin over ``families`` (module docstring)."""
    small = SearchSpace(space.lower, space.upper, space.relation,
                        n_max=min(space.n_max, max_records), ordered=space.ordered,
                        clamps=space.clamps,
                        size=space.size if space.size is None or space.size <= max_records
                        else None)
    by_family: dict[str, list[NeighbourPair]] = {}
    for p in neighbour_search(small, families):
        by_family.setdefault(str(p.change["family"]), []).append(p)
    out: list[NeighbourPair] = []
    taken: set[int] = set()
    depth = 0
    while len(out) < max_pairs and any(depth < len(v) for v in by_family.values()):
        for fam in families:
            items = by_family.get(fam, [])
            if depth < len(items) and len(out) < max_pairs:
                # alternate ends of each family's list: its smallest and largest data sets
                idx = depth // 2 if depth % 2 == 0 else len(items) - 1 - depth // 2
                if id(items[idx]) not in taken:
                    taken.add(id(items[idx]))
                    out.append(items[idx])
        depth += 1
    return out


def declared_sensitivity(obj: Any) -> tuple[Callable[[Any], Any], Any, str] | None:
    """``(query, sensitivity, norm)`` if ``obj`` declares ``query`` and ``sensitivity``."""
    query = getattr(obj, "query", None)
    sens = getattr(obj, "sensitivity", None)
    if not callable(query) or sens is None:
        return None
    norm = getattr(obj, "norm", "l1")
    if norm not in NORMS:
        raise InvalidParameterError(f"the mechanism's norm must be one of {NORMS}, got {norm!r}")
    return query, sens, norm


def sensitivity_check_finding(obj: Any, space: SearchSpace, *, name: str,
                              ref: str | None = None, seed: int | None = None,
                              data: Any = None) -> Finding | None:
    """The ``user.sensitivity`` Finding, or None when ``obj`` declares no aggregate;
    ``data``: the user's records (the search also runs at their size and order)."""
    decl = declared_sensitivity(obj)
    if decl is None:
        return None
    query, sens, norm = decl
    res = check_sensitivity(query, sens, space, norm=norm, data=data)
    return sensitivity_finding(res, name=name, ref=ref, seed=seed)
