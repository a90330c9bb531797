"""Neighbour relations: one spelling for every relation a privacy claim can be stated under,
the check that a given pair is a neighbour under it, and pattern pairs for query vectors.

Relations (:class:`RelationKind`; flag spelling in brackets, :func:`parse_relation`):

* ``REPLACE_ONE`` [``replace-one``]: data sets of the same size that differ in exactly one
  position;
* ``ADD_REMOVE_ONE`` [``add-remove``]: one record inserted at one position (sizes differ by
  one, every other record in place);
* ``QUERY_LINF`` [``linf:K``]: vectors of query answers of the same length, *every* answer
  moving by at most K (the relation of the Sparse Vector and Report Noisy Max proofs with
  K = 1: :data:`QUERY_LINF_1`);
* ``QUERY_L1`` [``l1:K``]: vectors of query answers of the same length whose absolute
  moves sum to at most K (histograms, prefix sums, linear queries);
* ``TRUSTED`` [``trusted``]: the user's own pairs, taken as neighbours without a check;
  the report says so (the verdict is about these pairs only);
* ``CUSTOM`` [``custom:MODULE:OBJECT``]: a user-declared relation, a function
  ``f(first, second) -> bool`` (``True`` accepts the pair, ``False`` rejects it; any other
  result, a truthy string or an array, is bad input, as is ``sys.exit``; an exception
  rejects the pair with the exception as the reason).

Order rule (all checked relations).  Records and answers are compared *position by
position in the order the mechanism receives them*, never sorted: dpaudit cannot know
whether a mechanism is order-invariant (a float sum is not: its rounding depends on the
order), so a pair is a neighbour only as the sequences it is handed.  A pair that differs
in every position is not a replace-one neighbour even when the two data sets hold the same
multiset of records.  Present a multiset pair in aligned order to test it.

Number rule (``linf:K`` and ``l1:K``).  Moves are computed exactly in rational arithmetic
on each value's shortest round-trip decimal (``repr``), i.e. on the numbers as a user
writes them: ``[1.1]`` vs ``[0.1]`` moves by exactly 1 (their binary doubles differ by
1 + 8e-17, a difference no claim is about); the check never rounds in the user's favour
beyond that reading.

Nothing here prints or writes files.  Builds on
:func:`audit.privacy.neighbour_search.are_neighbours` for the data-set relations.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Any

import numpy as np

from audit.privacy.neighbour_search import are_neighbours
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE, NeighbourPair
from audit.untrusted import relation_verdict
from kernels.errors import InvalidParameterError

__all__ = [
    "QUERY_LINF_1",
    "RELATION_SPELLINGS",
    "Relation",
    "RelationKind",
    "parse_relation",
    "query_pairs",
]


class RelationKind(StrEnum):
    """The kinds of neighbour relation (module docstring)."""

    REPLACE_ONE = REPLACE_ONE
    ADD_REMOVE_ONE = ADD_REMOVE_ONE
    #: query-answer vectors, every answer moves by at most K
    QUERY_LINF = "linf"
    #: query-answer vectors, the absolute moves sum to at most K
    QUERY_L1 = "l1"
    #: the user's pairs, not checked
    TRUSTED = "trusted"
    #: a user-declared predicate MODULE:OBJECT
    CUSTOM = "custom"


#: what ``--relation`` accepts (K > 0 a number; MODULE:OBJECT an importable function)
RELATION_SPELLINGS = ("replace-one", "add-remove", "linf:K", "l1:K", "trusted",
                      "custom:MODULE:OBJECT")

_MUST = ("must be 'replace-one' or 'add-remove' (data sets), 'linf:K' or 'l1:K' (query-answer "
         "vectors, K > 0), 'trusted' (your pairs, unchecked) or 'custom:MODULE:OBJECT'")

_ALIASES = {
    "replace-one": RelationKind.REPLACE_ONE, "replace": RelationKind.REPLACE_ONE,
    "add-remove": RelationKind.ADD_REMOVE_ONE, "add-remove-one": RelationKind.ADD_REMOVE_ONE,
    "trusted": RelationKind.TRUSTED, "trust-my-pairs": RelationKind.TRUSTED,
}


def _format_bound(k: float) -> str:
    return str(int(k)) if float(k).is_integer() and abs(k) < 2**53 else repr(float(k))


def _exact(x: float) -> Fraction:
    """The value as written: the rational of its shortest round-trip decimal."""
    return Fraction(repr(float(x)))


@dataclass(frozen=True)
class Relation:
    """One neighbour relation: its kind, the bound K of the query relations, the predicate
    of a custom relation (and its MODULE:OBJECT)."""

    kind: RelationKind
    bound: float | None = None
    ref: str | None = None
    predicate: Callable[[np.ndarray, np.ndarray], Any] | None = field(
        default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        """The engine's name, which :func:`parse_relation` reads back (``replace-one``,
        ``add-remove-one``, ``linf:1``, ``l1:2.5``, ``trusted``, ``custom:mod:obj``)."""
        if self.kind in (RelationKind.QUERY_LINF, RelationKind.QUERY_L1):
            assert self.bound is not None
            return f"{self.kind.value}:{_format_bound(self.bound)}"
        if self.kind is RelationKind.CUSTOM:
            return f"custom:{self.ref}"
        return self.kind.value

    @property
    def is_dataset(self) -> bool:
        """True for the data-set relations (replace-one, add-remove)."""
        return self.kind in (RelationKind.REPLACE_ONE, RelationKind.ADD_REMOVE_ONE)

    @property
    def is_query(self) -> bool:
        """True for the query-vector relations (linf:K, l1:K)."""
        return self.kind in (RelationKind.QUERY_LINF, RelationKind.QUERY_L1)

    def describe(self) -> str:
        """The relation in plain words (for reports)."""
        k = self.kind
        if k is RelationKind.REPLACE_ONE:
            return "replace one record (same size, exactly one position differs)"
        if k is RelationKind.ADD_REMOVE_ONE:
            return "add or remove one record (one record inserted at one position)"
        if k is RelationKind.QUERY_LINF:
            return (f"query-answer vectors of the same length, every answer moving by at "
                    f"most {_format_bound(self.bound or 0)} (l-infinity)")
        if k is RelationKind.QUERY_L1:
            return (f"query-answer vectors of the same length, the moves summing to at most "
                    f"{_format_bound(self.bound or 0)} in absolute value (l1)")
        if k is RelationKind.TRUSTED:
            return ("the given pairs, taken as neighbours WITHOUT a check (--relation "
                    "trusted): the verdict is about these pairs only")
        return f"user-declared relation {self.ref} (a pair is a neighbour when it returns true)"

    def reject_reason(self, first: Any, second: Any) -> str | None:
        """None when (first, second) is a neighbouring pair under this relation, else why
        not, in the user's terms.  Two identical inputs are never a pair (they test
        nothing), whatever the relation."""
        a = np.asarray(first, dtype=np.float64)
        b = np.asarray(second, dtype=np.float64)
        if a.shape == b.shape and bool(np.array_equal(a, b)):
            return "the two inputs are identical"
        k = self.kind
        if k is RelationKind.TRUSTED:
            return None
        if k is RelationKind.CUSTOM:
            assert self.predicate is not None
            try:
                ok = self.predicate(a.copy(), b.copy())
            except SystemExit as exc:  # the user's predicate ended the interpreter: bad input
                raise InvalidParameterError(
                    f"the relation {self.ref} called sys.exit({exc.code!r})",
                    param="relation", name="") from None
            except Exception as exc:  # noqa: BLE001 - the user's predicate: its failure is the reason
                return f"the relation {self.ref} raised {type(exc).__name__}: {exc}"
            # True / False only: a truthy string or an array is an error, never "neighbours"
            if relation_verdict(ok, self.ref):
                return None
            return f"the relation {self.ref} returned False"
        if self.is_dataset:
            if are_neighbours(a, b, k.value, ordered=True):
                return None
            if k is RelationKind.REPLACE_ONE:
                if a.size != b.size:
                    return f"sizes differ ({a.size} and {b.size} records)"
                diff = int(np.count_nonzero(a != b))
                same = (" (the same records in another order)"
                        if np.array_equal(np.sort(a), np.sort(b)) else "")
                return (f"{diff} positions differ{same}; replace-one allows exactly one "
                        "(records are compared in the order the mechanism sees them)")
            if abs(a.size - b.size) != 1:
                return (f"sizes {a.size} and {b.size}: add-remove needs sizes that differ "
                        "by one")
            return ("the larger data set is not the smaller one with one record inserted "
                    "(records are compared in the order the mechanism sees them)")
        # query relations
        if a.ndim != 1 or b.ndim != 1 or a.size != b.size:
            return (f"lengths differ ({a.size} and {b.size} answers); {self.name} compares "
                    "vectors of the same length position by position")
        assert self.bound is not None
        moves = [abs(_exact(x) - _exact(y)) for x, y in zip(a.tolist(), b.tolist(),
                                                             strict=True)]
        bound = _exact(self.bound)
        if k is RelationKind.QUERY_LINF:
            worst = max(moves)
            if worst > bound:
                pos = moves.index(worst)
                return (f"answer {pos} moves by {float(worst):g} > {_format_bound(self.bound)}"
                        f" ({self.name}: every answer moves by at most "
                        f"{_format_bound(self.bound)})")
            return None
        total = sum(moves, Fraction(0))
        if total > bound:
            return (f"the answers move by {float(total):g} in total > "
                    f"{_format_bound(self.bound)} ({self.name})")
        return None


#: every query answer moves by at most 1 (Sparse Vector, Report Noisy Max)
QUERY_LINF_1 = Relation(RelationKind.QUERY_LINF, 1.0)


def _load_predicate(ref: str) -> Callable[..., Any]:
    mod_name, _, attr = ref.partition(":")
    if not mod_name or not attr:
        raise InvalidParameterError(
            f"must be custom:MODULE:OBJECT for a custom relation, got {('custom:' + ref)!r}",
            param="relation")
    try:
        obj: Any = importlib.import_module(mod_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - the user's module: one clear error
        raise InvalidParameterError(
            f"custom:{ref}: cannot load it ({type(exc).__name__}: {exc})",
            param="relation", name="") from None
    if not callable(obj):
        raise InvalidParameterError(
            f"custom:{ref} is not callable (want f(first, second) -> bool)",
            param="relation", name="")
    return obj


def parse_relation(text: Any) -> Relation:
    """``--relation`` text (or a :class:`Relation`, returned as is) -> the relation; one
    clear error naming the value otherwise."""
    if isinstance(text, Relation):
        return text
    if isinstance(text, RelationKind) and text in _ALIASES.values():
        return Relation(text)
    if not isinstance(text, str):
        raise InvalidParameterError(_MUST + f", got {text!r}", param="relation")
    s = text.strip()
    if s in _ALIASES:
        return Relation(_ALIASES[s])
    head, _, rest = s.partition(":")
    if head == "custom":
        return Relation(RelationKind.CUSTOM, ref=rest, predicate=_load_predicate(rest))
    if head in ("linf", "l1"):
        try:
            k = float(rest)
        except ValueError:
            k = math.nan
        if not (math.isfinite(k) and k > 0):
            raise InvalidParameterError(
                f"must be {head}:K with a number K > 0 (the largest move), got {text!r}",
                param="relation")
        return Relation(RelationKind.QUERY_LINF if head == "linf" else RelationKind.QUERY_L1,
                        k)
    raise InvalidParameterError(_MUST + f", got {text!r}", param="relation")


def query_pairs(relation: Relation, n_queries: int = 10, lower: float | None = None,
                upper: float | None = None) -> list[NeighbourPair]:
    """Pattern pairs of query-answer vectors under a query relation, after StatDP's input
    patterns (Ding et al., CCS 2018, Section 5: one above, one below, one above rest below,
    one below rest above, half-half, all above, all below, X shape) around the base answer
    c = midpoint of [lower, upper] (default c = 0), moved by the relation's K (``l1:K``:
    the whole K on one answer, split over two, or spread over all answers); values are
    clipped to [lower, upper].  Every pair is checked against ``relation``."""
    if not relation.is_query:
        raise InvalidParameterError(f"query pairs need a query relation, got {relation.name}")
    n = int(n_queries)
    if n < 1:
        raise InvalidParameterError(f"must be an integer >= 1, got {n_queries!r}",
                                    param="queries")
    k = float(relation.bound or 1.0)
    lo = -math.inf if lower is None else float(lower)
    hi = math.inf if upper is None else float(upper)
    c = 0.0 if lower is None or upper is None else lo + (hi - lo) / 2
    h = n // 2
    base = [c] * n
    if relation.kind is RelationKind.QUERY_LINF:
        shapes = {
            "one-above": [c + k] + [c] * (n - 1),
            "one-below": [c - k] + [c] * (n - 1),
            "one-above-rest-below": [c + k] + [c - k] * (n - 1),
            "one-below-rest-above": [c - k] + [c + k] * (n - 1),
            "half-half": [c - k] * h + [c + k] * (n - h),
            "all-above": [c + k] * n,
            "all-below": [c - k] * n,
        }
        pairs = {name: (base, v) for name, v in shapes.items()}
        pairs["x-shape"] = ([c] * h + [c - k] * (n - h), [c - k] * h + [c] * (n - h))
    else:
        s = k / n
        pairs = {
            "one-above": (base, [c + k] + [c] * (n - 1)),
            "one-below": (base, [c - k] + [c] * (n - 1)),
            "split-two": (base, [c + k / 2] + [c - k / 2] + [c] * (n - 2)) if n >= 2 else
            (base, [c + k]),
            "all-above": (base, [c + s] * n),
            "all-below": (base, [c - s] * n),
            "half-half": (base, [c - s] * h + [c + s] * (n - h)),
        }
    out = []
    for name, (a, b) in pairs.items():
        x = np.clip(np.asarray(a, dtype=np.float64), lo, hi)
        y = np.clip(np.asarray(b, dtype=np.float64), lo, hi)
        if relation.reject_reason(x, y) is None:
            out.append(NeighbourPair(x, y, relation.name, {"op": "pattern", "pattern": name,
                                                           "family": "query-patterns"}))
    return out
