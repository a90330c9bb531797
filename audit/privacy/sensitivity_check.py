"""An exact, sample-free check of a claimed sensitivity, with the library's own arithmetic.

For a mechanism that exposes its un-noised aggregate ``f`` (a ``query(data)``, or an
OpenDP-style transformation whose ``map(d_in)`` states the claim) and a claimed sensitivity
``Delta`` in a named norm (``l1``, ``l2`` or ``linf``), :func:`check_sensitivity` evaluates
``f(D)`` and ``f(D')`` once each on every pair that :mod:`audit.privacy.neighbour_search`
generates (or that the caller gives) and compares ``||f(D) - f(D')||`` with ``Delta``.

What it guarantees:

* **No false alarms, by construction.**  The pair is checked to be neighbours under the
  stated relation (in the order the mechanism sees the records, or as multisets for an
  unordered relation) with every record inside the declared domain; ``f`` is the library's
  own function, run on its own float arithmetic; the distance between the two outputs is
  computed *exactly* (every float converted to a rational, :class:`fractions.Fraction`; the
  ``l2`` comparison squares both sides exactly), and the claim is refuted only when that
  exact distance is strictly greater than the exact value of the claimed float.  A refuting
  pair is therefore a proof that the claimed bound is wrong for the library as run.
* **Not refuted is not verified.**  The pairs are a finite family aimed at the known bug
  classes (rounding of sums, Casacuberta, Shoemate, Vadhan & Wagaman, CCS 2022); passing
  them says nothing about pairs not tried, and the Finding says so.
* **Any n, no sampling.**  One evaluation per data set, so a ``2^26``-record data set costs
  one pass of the library's sum (seconds), which no sampling tester reaches.

Nothing here prints or writes files.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import numbers
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.privacy.import_root import ensure_on_path
from audit.privacy.neighbour_search import (
    DATA_FAMILY,
    FAMILIES,
    SearchSpace,
    are_neighbours,
    data_pairs,
    neighbour_search,
)
from audit.protocols import REPLACE_ONE, NeighbourPair
from audit.registry import replayer
from audit.trusted_code import code_record
from kernels.errors import InputError, InvalidParameterError

__all__ = [
    "CHECK_SENSITIVITY",
    "NORMS",
    "SensitivityResult",
    "check_sensitivity",
    "exceeds",
    "exact_distance",
    "sensitivity_finding",
]

CHECK_SENSITIVITY = "user-mechanism.sensitivity"
NORMS = ("l1", "l2", "linf")
_STORE_LIMIT = 4096  # pairs with more records are stored as a recipe, not as data


def _exact_values(y: Any) -> list[Fraction]:
    """The output as exact rationals (a number, or a flat sequence / array of numbers)."""
    arr = np.asarray(y, dtype=object).ravel() if not isinstance(y, numbers.Number) else [y]
    out = []
    for v in arr:
        if isinstance(v, (bool, np.bool_)):
            v = int(v)
        if isinstance(v, (np.integer,)):
            v = int(v)
        if isinstance(v, (np.floating,)):
            v = float(v)
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError(f"output {v!r} is not finite")
        if not isinstance(v, (int, float, Fraction)):
            raise ValueError(f"output element {v!r} is not a number")
        out.append(Fraction(v))
    return out


def exact_distance(a: Any, b: Any, norm: str) -> Fraction:
    """``||a - b||`` computed exactly: ``l1`` and ``linf`` as rationals; ``l2`` returns the
    *squared* distance (exact) so the comparison needs no square root."""
    xa, xb = _exact_values(a), _exact_values(b)
    if len(xa) != len(xb):
        raise ValueError(f"outputs have different lengths ({len(xa)} and {len(xb)})")
    d = [abs(p - q) for p, q in zip(xa, xb, strict=True)]
    if norm == "l1":
        return sum(d, Fraction(0))
    if norm == "linf":
        return max(d, default=Fraction(0))
    if norm == "l2":
        return sum((x * x for x in d), Fraction(0))
    raise InvalidParameterError(f"norm must be one of {NORMS}, got {norm!r}")


def exceeds(distance: Fraction, sensitivity: float, norm: str) -> bool:
    """Exact comparison of :func:`exact_distance`'s value with the claimed float bound."""
    s = Fraction(float(sensitivity))
    return distance > (s * s if norm == "l2" else s)


def _display(distance: Fraction, norm: str) -> float:
    return math.sqrt(float(distance)) if norm == "l2" else float(distance)


@dataclass
class SensitivityResult:
    """What :func:`check_sensitivity` returns."""

    refuted: bool
    sensitivity: float
    norm: str
    relation: str
    evaluated: int
    worst: dict[str, Any] | None
    by_family: dict[str, dict[str, Any]] = field(default_factory=dict)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    space: dict[str, Any] | None = None
    witness_pair: NeighbourPair | None = None
    duration_s: float = 0.0


def _claimed(sensitivity: Any, n: int) -> float:
    s = sensitivity(n) if callable(sensitivity) else sensitivity
    if isinstance(s, bool) or not isinstance(s, (numbers.Real, np.floating)) or not (
            math.isfinite(float(s)) and float(s) >= 0):
        raise InvalidParameterError(f"the claimed sensitivity must be a finite number >= 0, "
                                    f"got {s!r}")
    return float(s)


def check_sensitivity(
    query: Callable[[Any], Any],
    sensitivity: float | Callable[[int], float],
    space: SearchSpace | None = None,
    *,
    norm: str = "l1",
    pairs: Iterable[NeighbourPair] | None = None,
    families: tuple[str, ...] = FAMILIES,
    to_input: Callable[[np.ndarray], Any] | None = None,
    max_evaluations: int | None = None,
    stop_at_first: bool = False,
    data: Any = None,
) -> SensitivityResult:
    """Maximise ``||query(D) - query(D')||`` over neighbouring pairs (module docstring).

    ``sensitivity``: the claimed bound, or a function of the larger data set's size ``n``
    (for libraries whose claim grows with n).  ``space``: bounds, relation, ``n_max``,
    ordered / clamps (pairs from :func:`neighbour_search`); ``pairs``: explicit pairs
    instead (checked to be neighbours under their relation, records in the order given).
    ``to_input``: converts the float64 record array into what the library takes (default:
    the array itself).  ``max_evaluations`` caps the number of pairs (work units, never
    seconds).  A pair whose evaluation raises is skipped and listed (a crash is not a
    sensitivity witness).  ``data``: the user's records (with ``space``): the search also
    builds its size-dependent families at the data's ``n`` and, after them, the
    ``data-order`` pairs of :func:`audit.privacy.neighbour_search.data_pairs`."""
    if norm not in NORMS:
        raise InvalidParameterError(f"norm must be one of {NORMS}, got {norm!r}")
    if pairs is None:
        if space is None:
            raise InvalidParameterError("give a search space (bounds, relation, n) or pairs")
        if data is not None:
            n_data = int(np.asarray(data).size)
            space = dataclasses.replace(space, n_max=max(space.n_max, n_data),
                                        at_sizes=(*space.at_sizes, n_data))
            source: Iterable[NeighbourPair] = itertools.chain(
                neighbour_search(space, families), data_pairs(data, space))
        else:
            source = neighbour_search(space, families)
        relation = space.relation
        ordered = space.ordered
    else:
        source = list(pairs)
        if not source:
            raise InvalidParameterError("pairs is empty: nothing to check")
        relation = source[0].relation
        ordered = True if space is None else space.ordered
    conv = to_input or (lambda x: x)
    t0 = time.perf_counter()
    best: tuple[Fraction, float, dict[str, Any], NeighbourPair] | None = None
    best_ratio = -1.0
    by_family: dict[str, dict[str, Any]] = {}
    skipped: list[dict[str, Any]] = []
    evaluated = 0
    refuted = False
    witness: tuple[dict[str, Any], NeighbourPair] | None = None
    for ordinal, p in enumerate(source):
        if max_evaluations is not None and evaluated >= max_evaluations:
            break
        fam = str(p.change.get("family", "given"))
        if not are_neighbours(p.first, p.second, p.relation, ordered=ordered):
            raise InvalidParameterError(
                f"pair {ordinal} ({fam}) is not a neighbouring pair under {p.relation}")
        n = int(max(np.asarray(p.first).shape[0], np.asarray(p.second).shape[0]))
        claim = _claimed(sensitivity, n)
        try:
            fa = query(conv(p.first))
            fb = query(conv(p.second))
            dist = exact_distance(fa, fb, norm)
        except Exception as exc:  # noqa: BLE001 - reported, never a witness
            skipped.append({"ordinal": ordinal, "family": fam, "n": n,
                            "error": f"{type(exc).__name__}: {exc}"[:300]})
            continue
        evaluated += 1
        shown = _display(dist, norm)
        ratio = shown / claim if claim > 0 else (math.inf if dist > 0 else 0.0)
        rec = {"ordinal": ordinal, "family": fam, "n": n, "change": dict(p.change),
               "distance": shown, "distance_exact": str(dist if norm != "l2" else dist),
               "claimed": claim, "ratio": ratio,
               "outputs": [_short(fa), _short(fb)]}
        fb_row = by_family.setdefault(fam, {"pairs": 0, "max_distance": 0.0, "max_ratio": 0.0,
                                            "exceeded": 0})
        fb_row["pairs"] += 1
        fb_row["max_distance"] = max(fb_row["max_distance"], shown)
        fb_row["max_ratio"] = max(fb_row["max_ratio"], ratio)
        over = exceeds(dist, claim, norm)
        if over:
            fb_row["exceeded"] += 1
        if over and (witness is None or ratio > best_ratio):
            witness = (rec, p)
        if best is None or ratio > best_ratio:
            best, best_ratio = (dist, shown, rec, p), ratio
        if over:
            refuted = True
            if stop_at_first:
                break
    worst_rec, worst_pair = (witness if witness is not None else
                             ((best[2], best[3]) if best is not None else (None, None)))
    return SensitivityResult(
        refuted=refuted, sensitivity=_claimed(sensitivity, 1) if not callable(sensitivity)
        else float("nan"), norm=norm, relation=relation, evaluated=evaluated, worst=worst_rec,
        by_family=by_family, skipped=skipped,
        space=None if space is None else {
            "lower": space.lower, "upper": space.upper, "relation": space.relation,
            "n_max": space.n_max, "ordered": space.ordered, "clamps": space.clamps,
            "size": space.size, "families": list(families),
            "at_sizes": list(space.at_sizes)},
        witness_pair=worst_pair, duration_s=time.perf_counter() - t0)


def _short(y: Any) -> Any:
    arr = np.asarray(y)
    if arr.ndim == 0:
        v = arr.item()
        return float(v).hex() if isinstance(v, float) else v
    flat = arr.ravel()
    return [float(v).hex() if isinstance(v, float) else v for v in flat[:8].tolist()]


def _pair_inputs(p: NeighbourPair, res: SensitivityResult) -> dict[str, Any]:
    first, second = np.asarray(p.first), np.asarray(p.second)
    if (max(first.shape[0], second.shape[0]) <= _STORE_LIMIT or res.space is None
            or p.change.get("from_data")):  # the data's pairs cannot be rebuilt
        return {"pair": {"first": first.tolist(), "second": second.tolist(),
                         "change": dict(p.change)}}
    # too big to store: the recipe that rebuilds it (deterministic generator)
    return {"recipe": {"space": res.space, "family": p.change.get("family"),
                       "ordinal": res.worst["ordinal"] if res.worst else None,
                       "change": dict(p.change)}}


def sensitivity_finding(res: SensitivityResult, *, name: str, ref: str | None = None,
                        attr: str = "query", seed: int | None = None,
                        to_input: str = "array") -> Finding:
    """The Finding ``user.sensitivity``: refuted with the pair (or its recipe) when the exact
    distance exceeded the claim; not refuted otherwise, with the families and sizes tried."""
    subject = f"mechanism:{ref or name}"
    rel = "replace-one" if res.relation == REPLACE_ONE else "add-remove"
    claim_s = (f"{res.sensitivity:g}" if math.isfinite(res.sensitivity)
               else "the declared function of n")
    claim = f"{name}'s un-noised aggregate has {res.norm} sensitivity <= {claim_s} under {rel}"
    # the data-order family is built from the holder's records: its figures stay out of
    # the (public) scope and live in the evidence, which a run on data keeps confidential
    fams = ", ".join(f"{k}: {v['pairs']} pairs" + (
        f", max ratio {v['max_ratio']:.6g}" if k != DATA_FAMILY else
        " (figures in the evidence)") for k, v in res.by_family.items())
    nmax = int(res.space["n_max"]) if res.space else None
    order = ("in the order the mechanism sees them" if (res.space or {}).get("ordered", True)
             else "as multisets, any order")
    fixed = (res.space or {}).get("size")
    sizes = (f"; every data set of exactly {fixed} records (the library's domain), records "
             f"in [{res.space['lower']:g}, {res.space['upper']:g}]" if fixed and res.space
             else f"; sizes up to n = {nmax}" if nmax else "")
    scope = (f"{res.evaluated} neighbouring pairs ({rel}; {order}{sizes}); families "
             f"{fams or 'none'}; one evaluation of the library's own un-noised aggregate per "
             "data set; distances computed exactly (rationals): a refutation has no false "
             "alarm by construction")
    ev: dict[str, Any] = {"worst": res.worst, "by_family": res.by_family,
                          "domain": _domain(res.space),
                          "skipped": res.skipped, "evaluated": res.evaluated,
                          "norm": res.norm, "sensitivity": res.sensitivity,
                          "no_false_alarms": ("the pair is checked to be neighbours with "
                                              "records in the domain, the library computes "
                                              "both outputs, and the distance is exact")}
    if res.refuted and res.witness_pair is not None and res.worst is not None:
        inputs = {"mechanism": ref, **code_record(ref), "attribute": attr,
                  "name": name, "norm": res.norm,
                  "sensitivity": res.worst["claimed"], "relation": res.relation,
                  "ordered": (res.space or {}).get("ordered", True), "to_input": to_input,
                  **_pair_inputs(res.witness_pair, res)}
        cx = counterexample_document(
            CHECK_SENSITIVITY, subject, inputs,
            expected=f"{res.norm} distance <= {res.worst['claimed']!r}",
            actual=res.worst["distance"], tolerance=None,
            note="replay re-evaluates the aggregate on the stored (or rebuilt) pair")
        return Finding(id="user.sensitivity", claim=claim,
                       reference="the library's claimed sensitivity",
                       method=Method.EXHAUSTIVE, verdict=Verdict.REFUTED, scope=scope,
                       evidence={**ev, "outcome": "flagged"}, counterexample=cx, seed=seed,
                       duration_s=res.duration_s, subject=subject)
    if res.evaluated == 0:
        return Finding(id="user.sensitivity", claim=claim,
                       reference="the library's claimed sensitivity",
                       method=Method.EXHAUSTIVE, verdict=Verdict.INCONCLUSIVE,
                       scope=scope + "; no pair could be evaluated",
                       evidence={**ev, "outcome": "untested"}, seed=seed,
                       duration_s=res.duration_s, subject=subject)
    return Finding(id="user.sensitivity", claim=claim,
                   reference="the library's claimed sensitivity",
                   method=Method.EXHAUSTIVE, verdict=Verdict.NOT_REFUTED,
                   scope=scope + "; NOT REFUTED on these pairs (pairs not tried can still "
                   "exceed the claim)",
                   evidence={**ev, "outcome": "not-refuted"}, seed=seed,
                   duration_s=res.duration_s, subject=subject)


def _domain(space: dict[str, Any] | None) -> dict[str, Any] | None:
    """The domain the check respected: record bounds, data-set size (fixed or largest)."""
    if space is None:
        return None
    return {"lower": space["lower"], "upper": space["upper"],
            "fixed_size": space.get("size"), "largest_n": space["n_max"],
            "clamps": space["clamps"]}


def _rebuild(inputs: dict[str, Any]) -> NeighbourPair:
    if "pair" in inputs:
        p = inputs["pair"]
        rel = inputs["relation"]
        return NeighbourPair(np.asarray(p["first"], dtype=np.float64),
                             np.asarray(p["second"], dtype=np.float64), rel, p.get("change", {}))
    r = inputs["recipe"]
    sp = r["space"]
    space = SearchSpace(sp["lower"], sp["upper"], sp["relation"], int(sp["n_max"]),
                        bool(sp["ordered"]), bool(sp["clamps"]), sp.get("size"),
                        tuple(sp.get("at_sizes") or ()))
    for i, p in enumerate(neighbour_search(space, tuple(sp["families"]))):
        if i == r["ordinal"]:
            return p
    raise InputError("the stored recipe no longer yields the pair (generator changed)")


@replayer(CHECK_SENSITIVITY)
def replay_sensitivity(inputs: dict[str, Any]) -> tuple[bool, Any, Any, str]:
    """Re-evaluate the aggregate on the stored (or rebuilt) pair; exact comparison."""
    from audit.privacy.user_mechanism import load_object

    ref = inputs.get("mechanism")
    if not ref:
        raise InputError("this counterexample names no importable MODULE:OBJECT")
    ensure_on_path(inputs.get("import_path"))
    obj = load_object(ref)
    if isinstance(obj, type):
        obj = obj()
    query = getattr(obj, inputs.get("attribute") or "query", obj)
    pair = _rebuild(inputs)
    conv = (lambda x: x.tolist()) if inputs.get("to_input") == "list" else (lambda x: x)
    d = exact_distance(query(conv(pair.first)), query(conv(pair.second)), inputs["norm"])
    claim = float(inputs["sensitivity"])
    return (exceeds(d, claim, inputs["norm"]), f"{inputs['norm']} distance <= {claim!r}",
            _display(d, inputs["norm"]), f"family {pair.change.get('family')}, "
            f"n = {max(len(pair.first), len(pair.second))}")

