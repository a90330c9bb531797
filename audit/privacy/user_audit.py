"""Audit a user's own mechanism: neighbouring pairs, the testers, Findings, replayers.

:func:`test_mechanism` is what ``dpaudit test MODULE:OBJECT`` and ``from audit import
test_mechanism`` run:

1. the mechanism is wrapped (:func:`audit.privacy.user_mechanism.wrap_mechanism`);
2. neighbouring pairs come from the caller (``pairs``), from a data set and public bounds
   (``data`` + ``lower``/``upper``: :mod:`audit.privacy.neighbours`), or come from the
   neighbour search over the bounds alone (:mod:`audit.privacy.neighbour_search`: the
   floating-point bug families, each pair naming its family);
3. the black-box tester (:class:`audit.privacy.blackbox.BlackBoxTester`, sequential by
   default) runs twice: once on the real-number event families, once on the float64
   bit-level events (``float_bits``; Mironov 2012), each at confidence
   ``confidence_share(confidence, kinds)`` (the smallest double c with kinds x (1 - c) <=
   1 - confidence, exactly) so that the run keeps the stated confidence (Bonferroni);
   each kind is its own finding, so a float-bit flag never hides the real-number verdict;
4. when the mechanism declares a location-scale density, the exact privacy-loss tester
   (:func:`audit.privacy.exact_loss.dataset_pair_loss`) runs on every pair (pure DP only);
5. a declared Gaussian (or ``family="gaussian"``) adds ``user.exact-gaussian`` and
   ``user.gaussian-family`` (:mod:`audit.privacy.claims.gaussian_findings`).

Findings (ids ``user.blackbox``, ``user.float-bits``, ``user.exact-loss``,
``user.crash.<n>``):

* ``user.blackbox`` (real-number events) and ``user.float-bits`` (float64 bit-level
  events), each — **refuted** when the certified lower bound exceeds the claim (with a
  counterexample: module, object, pair, event, counts, generator state; ``dpaudit replay``
  re-draws the same outputs and recomputes the bound); otherwise **not refuted**
  (``Verdict.NOT_REFUTED`` when the engine has it, else ``inconclusive`` with
  ``evidence["outcome"] = "not-refuted"``), never verified, with the tester's power on the
  witness event (the smallest true log-ratio it would have flagged with probability >= 90 %);
  inconclusive when the run stopped early on its time budget.  When every one of
  :data:`POINT_MASS_DRAWS` outputs on a data set of the witness pair is the same value,
  the finding says "under D' the output is a point mass at v: zero noise".
* ``user.exact-loss`` — refuted when a certified loss (rounded down) exceeds the claim;
  verified with its scope (the tested pairs, mpmath precision, and the assumption that the
  declared density is the mechanism's output law) otherwise.
* ``user.sensitivity`` — when the object declares ``query`` and ``sensitivity``: the exact,
  sample-free sensitivity check (:mod:`audit.privacy.sensitivity_check`; a refutation has no
  false alarm by construction).
* ``user.crash.<n>`` — one refuted finding per distinct failure (exception type and data
  set) of the mechanism: a crash is a result, with the input that triggers it.

The overall ``outcome``: ``"flagged"`` (any refuted finding; CLI exit 1),
``"inconclusive"`` (nothing refuted, something undecided; exit 3), ``"not-flagged"`` (exit 0).

Nothing here prints or writes files.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.privacy.blackbox import (
    BlackBoxTester,
    Event,
    clopper_pearson_lower,
    clopper_pearson_upper,
    log_ratio,
)
from audit.privacy.blackbox.accounting import check_shared_alpha, confidence_share
from audit.privacy.clip_pairs import beyond_rows, clips_of
from audit.privacy.import_root import ensure_on_path
from audit.privacy.neighbour_search import FAMILIES, SearchSpace, data_pairs
from audit.privacy.neighbours import AddRemoveOne, ReplaceOne
from audit.privacy.output_atoms import point_mass_sentence
from audit.privacy.randomness_probe import probe_randomness
from audit.privacy.reach import power_words
from audit.privacy.relation import RelationKind, parse_relation, query_pairs
from audit.privacy.search_pairs import blackbox_pairs, sensitivity_check_finding
from audit.privacy.user_mechanism import (
    SEED_BITS,
    MechanismOutputError,
    UserMechanism,
    library_facts,
    load_object,
    normalise_relation,
    wrap_mechanism,
)
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE, NeighbourPair
from audit.record_errors import outside_bounds
from audit.registry import replayer
from audit.trusted_code import code_record
from kernels.errors import InputError, InvalidParameterError
from kernels.validate import check_bounds, check_int, list_some, shorten

__all__ = [
    "CHECK_CRASH",
    "CHECK_EVENT",
    "CHECK_EXACT",
    "AuditPlan",
    "UserAudit",
    "generated_pairs",
    "not_refuted_verdict",
    "overall_outcome",
    "pairs_from_data",
    "pairs_from_list",
    "plan_audit",
    "screen_pairs",
    "power_on_event",
    "preflight",
    "run_plan",
    "test_mechanism",
]

#: the sequential schedule's defaults for dpaudit test (measured on the calibration suite,
#: tests/bench/power_suite.py): every pair stays sampled (unless its optimistic log-ratio
#: falls below the leader's pessimistic score) until the batch reaches 2.56 x 10^5, then the
#: best 2 by the bound their best event is expected to certify at the last look; half of
#: alpha goes to the looks in proportion to their size (the late, large looks are where
#: small violations such as Sparse Vector's 0.14-0.17 vs 0.1 show); after a flag the
#: remaining looks run on the flagged pair and the largest certified bound is reported
SEQUENTIAL_DEFAULTS: dict[str, Any] = {"seq_prune_at": 256_000, "seq_keep_pairs": 2,
                                       "seq_alpha_by_size": 0.5,
                                       "seq_rank_pairs": "expected-final",
                                       "seq_after_flag": "continue"}

CHECK_EVENT = "user-mechanism.event-ratio"
CHECK_CRASH = "user-mechanism.crash"
CHECK_EXACT = "user-mechanism.exact-loss"
_SUBJECT = "mechanism"


def not_refuted_verdict() -> Verdict:
    """``Verdict.NOT_REFUTED`` if the engine defines it, else ``Verdict.INCONCLUSIVE``."""
    return getattr(Verdict, "NOT_REFUTED", Verdict.INCONCLUSIVE)


# ----------------------------------------------------------------------------- pairs
def _as_record_array(x: Any, label: str) -> np.ndarray:
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{label} must be a list of numbers, got {x!r}") from None
    if arr.ndim != 1:
        raise InvalidParameterError(f"{label} must be a flat list of numbers, got {x!r}")
    if not np.all(np.isfinite(arr)):
        raise InvalidParameterError(f"{label} contains NaN or infinity: {x!r}")
    return arr


def _same_multiset(a: np.ndarray, b: np.ndarray) -> bool:
    return a.size == b.size and bool(np.array_equal(np.sort(a), np.sort(b)))


def _pair_items(it: Any, i: int) -> tuple[Any, Any]:
    if isinstance(it, NeighbourPair):
        return it.first, it.second
    if isinstance(it, dict) and "first" in it and "second" in it:
        return it["first"], it["second"]
    if isinstance(it, (list, tuple)) and len(it) == 2:
        return it[0], it[1]
    raise InvalidParameterError(
        f"pairs[{i}] must be [D, D'] or {{\"first\": D, \"second\": D'}}, got "
        f"{str(it)[:80]!r}")


def screen_pairs(items: Any, relation: Any) -> tuple[list[NeighbourPair],
                                                     list[dict[str, Any]]]:
    """``[[D, D'], ...]`` or ``[{"first": D, "second": D'}, ...]`` -> (the pairs that are
    neighbours under ``relation``, the rejected ones).  Each rejection is
    ``{"index", "reason", "first", "second"}``, its reason in the user's terms (a pair that
    is not a list of two flat lists of finite numbers, or not a neighbour under the relation:
    :meth:`audit.privacy.relation.Relation.reject_reason`, position by position in the order
    the mechanism sees them).  Raises only when ``items`` is not a non-empty list."""
    rel = parse_relation(relation)
    label = relation if isinstance(relation, str) else rel.name
    if not isinstance(items, list) or not items:
        raise InvalidParameterError(
            f"pairs must be a non-empty JSON list of [D, D'] pairs, got {str(items)[:80]!r}")
    good: list[NeighbourPair] = []
    bad: list[dict[str, Any]] = []
    for i, it in enumerate(items):
        try:
            first, second = _pair_items(it, i)
            a = _as_record_array(first, f"pairs[{i}][0]")
            b = _as_record_array(second, f"pairs[{i}][1]")
        except InvalidParameterError as exc:
            bad.append({"index": i, "reason": str(exc), "first": None, "second": None})
            continue
        why = rel.reject_reason(a, b)
        if why is None:
            good.append(NeighbourPair(a, b, rel.name, {"op": "given", "index": i}))
            continue
        identical = a.size == b.size and bool(np.array_equal(a, b))
        what = "data sets" if rel.is_dataset else "inputs"
        msg = (f"pairs[{i}] are not neighbours under {label}"
               + (f" (the two {what} are identical): a pair must differ" if identical else
                  f": {why}")
               + f"; got [{list_some(a.tolist(), 8, quote=False)}] and "
               f"[{list_some(b.tolist(), 8, quote=False)}]")
        bad.append({"index": i, "reason": msg, "first": a.tolist(), "second": b.tolist()})
    return good, bad


def pairs_from_list(items: Any, relation: Any) -> list[NeighbourPair]:
    """``[[D, D'], ...]`` or ``[{"first": D, "second": D'}, ...]`` -> pairs, each checked to
    be neighbours under ``relation`` (:func:`screen_pairs`); strict: an error names the
    first pair that is not (:func:`plan_audit` instead skips and reports bad pairs)."""
    good, bad = screen_pairs(items, relation)
    if bad:
        raise InvalidParameterError(bad[0]["reason"], param="pairs", name="")
    return good


def _bounds(lower: Any, upper: Any) -> tuple[float, float]:
    if isinstance(lower, str) or isinstance(upper, str):
        raise InvalidParameterError(
            f"must be numbers, got {shorten(repr(lower))}, {shorten(repr(upper))}",
            param="lower", name="lower/upper")
    return check_bounds(lower, upper)


def _dedupe(pairs: list[NeighbourPair], max_pairs: int) -> list[NeighbourPair]:
    seen: set[tuple[bytes, bytes]] = set()
    out = []
    for p in pairs:
        key = (np.asarray(p.first).tobytes(), np.asarray(p.second).tobytes())
        if key in seen or _same_multiset(np.asarray(p.first), np.asarray(p.second)):
            continue  # a repeat, or a "replacement" by the same value: not a neighbour
        seen.add(key)
        out.append(p)
    # spread the cap over the list (keeps both ends: smallest and largest changes)
    if len(out) > max_pairs:
        idx = np.unique(np.round(np.linspace(0, len(out) - 1, max_pairs)).astype(int))
        out = [out[i] for i in idx]
    return out


def pairs_from_data(data: Any, lower: Any, upper: Any, relation: str,
                    max_pairs: int = 12, space: SearchSpace | None = None,
                    clips: bool = False) -> list[NeighbourPair]:
    """Neighbours of one data set whose records lie in the public [lower, upper]; with a
    search ``space``, a quarter of them are the rounding-aware ``data-order`` pairs
    (:func:`audit.privacy.neighbour_search.data_pairs`: the records sorted, extremes moved
    to a bound, constant data at the data's size).  ``clips``: the mechanism clips to the
    bounds (records outside them are accepted; the ``clip`` pairs of the data are among
    the rounding-aware quarter when the space clamps)."""
    lo, hi = _bounds(lower, upper)
    rel = normalise_relation(relation)
    xs = _as_record_array(data, "data")
    if xs.size == 0:
        raise InvalidParameterError("data must hold at least one record")
    bad = None if clips else outside_bounds(xs, lo, hi, lower_name="the lower bound",
                                            upper_name="the upper bound")
    if bad:  # where and what, never a count or a value (issue 37)
        raise InvalidParameterError(f"{bad}; widen the bounds (records are not clipped)",
                                    param="data", name="")
    gen = ReplaceOne(lo, hi) if rel == REPLACE_ONE else AddRemoveOne(lo, hi)
    if space is None:
        return _dedupe(list(gen.pairs(xs)), max_pairs)
    found = list(data_pairs(xs, space))
    quarter = max(1, max_pairs // 4)
    clip = [p for p in found if p.change.get("family") == "clip"]
    rounding = (_dedupe(clip, quarter) if clip else []) + _dedupe(
        [p for p in found if p.change.get("family") != "clip"], quarter)
    return _dedupe(list(gen.pairs(xs)), max(1, max_pairs - len(rounding))) + rounding


def _table_in_bounds(table: Any, lower: Any, upper: Any, unit: str | None) -> None:
    """Every numeric cell of ``table`` (the privacy-unit column aside) lies in the public
    ``[lower, upper]``, as ``data``'s records must (never clipped): else an error counting
    the cells outside and naming the first one's column."""
    lo, hi = _bounds(lower, upper)
    bad: list[tuple[str, float]] = []
    for j, col in enumerate(table.columns):
        if col == unit:
            continue
        for v in table.rows[:, j]:
            if isinstance(v, float) and not lo <= v <= hi:
                bad.append((col, v))
    if bad:
        raise InvalidParameterError(
            f"has {len(bad):,} numeric cell(s) outside [--lower, --upper] = [{lo:g}, {hi:g}] "
            f"(first: column {bad[0][0]!r}); widen the bounds (cells are not clipped)",
            param="data")


def generated_pairs(lower: Any, upper: Any, relation: str,
                    max_pairs: int = 12) -> list[NeighbourPair]:
    """Small data sets in [L, U] — (L), (U), (L, U), (L, L, L), (U, U, U), (L, (L+U)/2, U) —
    and their neighbours under ``relation`` (replace a record by L or U; add L or U, remove a
    record, including the empty data set)."""
    lo, hi = _bounds(lower, upper)
    rel = normalise_relation(relation)
    mid = lo + (hi - lo) / 2
    bases = [[lo], [hi], [lo, hi], [lo] * 3, [hi] * 3, [lo, mid, hi]]
    out: list[NeighbourPair] = []
    for base in bases:
        xs = np.asarray(base, dtype=np.float64)
        if rel == REPLACE_ONE and xs.size == 1:  # ReplaceOne wants n >= 2
            other = hi if xs[0] == lo else lo
            out.append(NeighbourPair(xs, np.array([other]), REPLACE_ONE,
                                     {"op": "replace", "rank": 0, "old": float(xs[0]),
                                      "new": other}))
            continue
        gen = ReplaceOne(lo, hi) if rel == REPLACE_ONE else AddRemoveOne(lo, hi)
        out.extend(gen.pairs(xs))
    return _dedupe(out, max_pairs)


# ----------------------------------------------------------------------------- power
def power_on_event(k_fav: int, k_oth: int, n: int, alpha_bound: float, claimed: float,
                   delta: float = 0.0, level: float = 0.9) -> float:
    """The smallest true log-ratio on the witness event that this sample size flags with
    probability >= ``level``: keep the other data set's frequency at its observed value
    p' = k_oth / n, set p = p' e^eps (+ delta), and take the ``sqrt(level)`` quantiles of the
    two binomial counts (low for p, high for p'); eps is the smallest (bisection, 1e-4) for
    which those counts certify a bound above ``claimed``.  ``inf`` if none up to claimed+50
    (the event is too rare at this n)."""
    q = math.sqrt(level)
    po = max(k_oth / n, 1.0 / n)

    def flags(eps: float) -> bool:
        p = min(1.0, po * math.exp(eps) + delta)
        kf = int(stats.binom.ppf(1.0 - q, n, p))
        ko = int(stats.binom.ppf(q, n, po))
        lo = clopper_pearson_lower(kf, n, alpha_bound)
        hi = clopper_pearson_upper(ko, n, alpha_bound)
        return float(log_ratio(lo, hi, delta)) > claimed

    lo_e, hi_e = claimed, claimed + 50.0
    if not flags(hi_e):
        return math.inf
    while hi_e - lo_e > 1e-4:
        m = (lo_e + hi_e) / 2
        if flags(m):
            hi_e = m
        else:
            lo_e = m
    return hi_e


# ----------------------------------------------------------------------------- the run
@dataclass
class UserAudit:
    """What :func:`test_mechanism` returns: the findings, the overall outcome, the raw
    tester results and the run's parameters (for the report)."""

    findings: list[Finding]
    outcome: str  # "flagged" | "not-flagged" | "inconclusive"
    parameters: dict[str, Any]
    blackbox: Any = None
    exact: list[dict[str, Any]] = field(default_factory=list)
    duration_s: float = 0.0

    @property
    def exit_code(self) -> int:
        """0 not flagged, 1 flagged, 3 inconclusive (the CLI's codes)."""
        return {"flagged": 1, "not-flagged": 0}.get(self.outcome, 3)


def _ref_of(obj: Any, given: str | None) -> str | None:
    if given:
        return given
    mod, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if mod and qual and "<" not in qual:
        return f"{mod}:{qual}"
    return None


@dataclass
class AuditPlan:
    """Everything :func:`run_plan` needs, validated (bad input raises before anything runs):
    the wrapped mechanism, the pairs, the tester and the parameters for the report."""

    mech: UserMechanism
    pairs: list[NeighbourPair]
    tester: BlackBoxTester
    params: dict[str, Any]
    ref: str | None
    seed: int
    exact: bool
    space: SearchSpace | None = None  # the exact sensitivity check's (None: no bounds)
    probe: bool = False  # probe a per-call mechanism without a randomness argument
    #: given pairs skipped as not neighbours (:func:`screen_pairs`), reported as user.pairs
    rejected: list[dict[str, Any]] = field(default_factory=list)
    #: the float64 bit-level tester (None: --no-float-bits); ``tester`` is the real-number one
    bits_tester: BlackBoxTester | None = None
    #: the data sets derive from the holder's data (``data`` / ``table``): values computed
    #: on them stay out of a finding's public text
    confidential: bool = False
    #: the holder's records (``data``): the exact check also builds its families from them
    data: Any = None


def plan_audit(
    mechanism: Any,
    *,
    epsilon: float | None = None,
    delta: float = 0.0,
    relation: str | None = None,
    pairs: Sequence[Any] | None = None,
    data: Any = None,
    lower: float | None = None,
    upper: float | None = None,
    seed: int | None = 0,
    confidence: float = 0.9,
    sequential: bool = True,
    n_select: int = 200_000,
    n_certify: int = 1_048_576,
    first_batch: int = 2_000,
    float_bits: bool = True,
    growth: int = 2,
    exact: bool = True,
    max_pairs: int = 12,
    n: int = 1024,
    ordered: bool = True,
    max_seconds: float | None = None,
    chunk_size: int = 100_000,
    style: str = "auto",
    randomness: str = "auto",
    seed_bits: int = SEED_BITS,
    ref: str | None = None,
    queries: int = 10,
    table: Any = None,
    unit: str | None = None,
    form: str = "array",
    new_rows: Sequence[Sequence[Any]] | None = None,
    stop_at_flag: bool = False,
    size: int | None = None,
    family: str | None = None,
    clips: bool | None = None,
) -> AuditPlan:
    """Validate the arguments of :func:`test_mechanism` and build its plan (no mechanism
    call yet).

    ``n``: the largest data set the neighbour search builds for the exact sensitivity check
    (the sampling tester's search pairs stay <= 16 records); ``ordered``: the relation is
    over sequences (False: multisets, so the search also presents records in the orders
    that change a sum's rounding).  ``relation``: any spelling of
    :func:`audit.privacy.relation.parse_relation`; under a query relation (``linf:K``,
    ``l1:K``) without ``pairs``, StatDP-style pattern pairs of ``queries`` answers are
    generated (around the midpoint of ``[lower, upper]`` when given).  Given ``pairs`` that
    are not neighbours are skipped and reported (``AuditPlan.rejected``: a ``user.pairs``
    finding); when every given pair is rejected nothing could be checked: an error.

    ``table`` (:class:`audit.privacy.tabular.Table`): records are its rows; the pairs are
    its row neighbours under the relation (with ``unit``, a privacy-unit column: all rows of
    one unit), rows put in from ``new_rows`` (default: the table's first and last rows and,
    with bounds, rows at ``lower`` / ``upper``); the mechanism, a function, receives each
    data set in ``form`` (:mod:`audit.privacy.table_mechanism`).

    ``stop_at_flag``: the sequential testers end at the first look that flags instead of
    spending the remaining looks on the flagged pair (the default, whose reported bound is
    the best over all looks; both keep the run's confidence: the looks' alpha split is fixed
    before the first draw).

    ``relation`` (default: the object's ``relation`` attribute, else replace-one),
    ``size`` (a sized domain: every data set has exactly this many records; default: the
    object's ``size``) and ``lower`` / ``upper`` (default: the object's) follow the library
    (:func:`audit.privacy.user_mechanism.library_facts`: a contradiction is an error).

    ``clips`` (default: the object's ``clips`` attribute, else False): the mechanism clips
    its records to ``[lower, upper]``, so its domain is every float: data (and table cells)
    outside the bounds are accepted, and the neighbour search adds the ``clip`` pairs —
    records beyond a bound, from the bounds alone and from the user's data or table rows
    (:func:`audit.privacy.clip_pairs.clips_of`)."""
    facts = library_facts(mechanism, relation=relation, size=size, lower=lower, upper=upper)
    relation, size, lower, upper = facts.relation, facts.size, facts.lower, facts.upper
    clips = clips_of(mechanism, clips)
    n = check_int(n, "n", low=1)
    if not isinstance(stop_at_flag, bool):
        raise InvalidParameterError(f"must be True or False, got {shorten(repr(stop_at_flag))}",
                                    param="stop_at_flag")
    if not isinstance(ordered, bool):
        raise InvalidParameterError(f"must be True or False, got {shorten(repr(ordered))}",
                                    param="ordered")
    rel = parse_relation(relation)
    queries = check_int(queries, "queries", low=1)
    codec = None
    if table is not None:
        from audit.privacy.table_mechanism import codec_for, default_new_rows, table_mechanism

        if pairs is not None or data is not None:
            raise InvalidParameterError("a table is its own data: give table alone, not "
                                        "with pairs or data", param="table")
        if lower is not None and upper is not None and not clips:
            _table_in_bounds(table, lower, upper, unit)
        if new_rows is None:
            new_rows = default_new_rows(table, lower, upper) + (
                beyond_rows(table, lower, upper) if clips else [])
        codec = codec_for(table, new_rows)
        ref = _ref_of(mechanism, ref)
        mechanism = table_mechanism(mechanism, codec, form)
    mech = wrap_mechanism(mechanism, epsilon=epsilon, relation=rel, delta=delta,
                          style=style, randomness=randomness, seed_bits=seed_bits)
    rel_name = ("add-remove" if mech.relation == ADD_REMOVE_ONE else
                "replace-one" if mech.relation == REPLACE_ONE else rel.name)
    # the neighbour search's space over the public bounds: the bounds-alone pairs and the
    # exact sensitivity check (run by run_plan when the object declares query + sensitivity)
    space = None
    if lower is not None and upper is not None and table is None:
        lo_b, hi_b = _bounds(lower, upper)
        if rel.is_dataset:
            space = SearchSpace(lo_b, hi_b, mech.relation, n_max=n, ordered=ordered,
                                size=size, clamps=clips)
    elif size is not None and table is None and pairs is None:
        raise InvalidParameterError(f"--size {size} needs the record bounds --lower and "
                                    "--upper (or an adapter that states them)")
    rejected: list[dict[str, Any]] = []
    if table is not None and codec is not None:
        from audit.privacy.table_mechanism import table_pairs

        plist = _dedupe(table_pairs(table, mech.relation, codec, unit=unit,
                                    new_rows=new_rows or ()), max_pairs)
        source = (f"row neighbours of a table ({len(table)} rows, columns "
                  f"{', '.join(table.columns)}; {form} form"
                  f"{f'; privacy unit {unit}' if unit else ''})")
    elif pairs is not None:
        plist, rejected = screen_pairs(list(pairs), relation if isinstance(relation, str)
                                       else rel.name)
        if not plist:  # nothing left to check: bad input, never a pass
            more = (f" (every one of the {len(rejected)} pairs given was rejected; the "
                    "first is shown)" if len(rejected) > 1 else "")
            raise InvalidParameterError(rejected[0]["reason"] + more, param="pairs", name="")
        source = "given pairs" + (" (trusted: not checked to be neighbours)"
                                  if rel.kind is RelationKind.TRUSTED else "")
    elif data is not None:
        if not rel.is_dataset:
            raise InvalidParameterError(
                f"data makes neighbours of a data set (replace-one, add-remove); under "
                f"{rel.name} give the pairs (--pairs FILE)"
                + (" or the answers' bounds (--lower L --upper U)" if rel.is_query else ""),
                param="data", name="")
        if lower is None or upper is None:
            raise InvalidParameterError("data needs the public bounds lower and upper",
                                        param="data", name="")
        plist = pairs_from_data(data, lower, upper, mech.relation, max_pairs, space,
                                clips=clips)
        source = f"neighbours of the data set ({np.asarray(data).size} records)"
    elif rel.is_query:
        plist = query_pairs(rel, queries, lower, upper)[:max_pairs]
        where = (f"around the midpoint of [{float(lower):g}, {float(upper):g}]"
                 if lower is not None and upper is not None else "around 0")
        source = (f"StatDP-style pattern pairs of {queries} query answers {where}, moved "
                  f"under {rel.name}")
    elif space is not None and size is not None:
        # a sized domain: every pair of the search, padded to the library's size
        plist = blackbox_pairs(space, max_pairs, max_records=size)
        source = (f"neighbour search in [{space.lower:g}, {space.upper:g}] at the library's "
                  f"size {size} (families: "
                  f"{', '.join(sorted({str(p.change['family']) for p in plist}))})")
    elif space is not None:
        # half: small data sets at the bounds (largest real-number change); half: the
        # floating-point bug families of the neighbour search
        # (the largest changes of the records' total first: they carry the real-number signal)
        gen = sorted(generated_pairs(space.lower, space.upper, mech.relation, 64),
                     key=lambda p: -abs(float(np.sum(p.first)) - float(np.sum(p.second))))
        plist = [NeighbourPair(p.first, p.second, p.relation, {**p.change, "family": "bounds"})
                 for p in gen[:max(1, max_pairs // 2)]]
        fams = tuple(f for f in FAMILIES if f != "bounds")
        plist += blackbox_pairs(space, max_pairs - len(plist), max_records=16,
                                families=fams)
        source = (f"neighbour search in [{space.lower:g}, {space.upper:g}] (families: "
                  f"{', '.join(sorted({str(p.change['family']) for p in plist}))})")
    elif not rel.is_dataset:
        raise InvalidParameterError(
            f"under {rel.name} dpaudit cannot generate neighbours: give the pairs "
            "(--pairs FILE)", param="pairs", name="")
    else:
        raise InvalidParameterError(
            "no neighbouring pairs: give pairs (--pairs FILE), data with bounds (--data FILE "
            "--column C --lower L --upper U), or bounds alone (--lower L --upper U)")
    if not plist:
        raise InvalidParameterError("no neighbouring pair to test (every generated pair was "
                                    "two identical data sets)")
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2**63))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidParameterError(f"must be an integer >= 0, got {shorten(repr(seed))}",
                                    param="seed")
    ref = _ref_of(mechanism, ref)
    n_testers = 1 + int(exact and mech.declares_density and delta == 0)
    # the statistical testers are the only ones with an error probability: the real-number
    # and the float-bit kind share it (Bonferroni: each at 1 - (1 - confidence) / 2), so the
    # run as a whole still flags a correct mechanism with probability <= 1 - confidence;
    # the real-number run gets half the time limit, the float-bit run what is left
    from audit.privacy.claims.gaussian_findings import family_source

    fam = family_source(mech, family)
    kinds = (2 if float_bits else 1) + int(fam is not None)
    per_kind = confidence_share(confidence, kinds)
    common: dict[str, Any] = {"n_select": n_select, "n_certify": n_certify,
                              "confidence": per_kind,
              "delta": float(delta), "sequential": sequential, "seq_first": first_batch,
              "seq_growth": growth,
              "chunk_size": chunk_size, **SEQUENTIAL_DEFAULTS,
              **({"seq_after_flag": "stop"} if stop_at_flag else {})}
    tester = BlackBoxTester(**common, float_grid=False, max_seconds=(
        None if max_seconds is None else max_seconds / kinds))
    bits_tester = (BlackBoxTester(**common, float_grid=True, families=BIT_FAMILIES,
                                  max_seconds=max_seconds) if float_bits else None)
    params: dict[str, Any] = {
        "mechanism": ref or mech.name, "mechanism_adapter": mech.describe(),
        "epsilon": mech.claimed_epsilon, "delta": float(delta), "relation": rel_name,
        "pairs_source": source, "pairs": len(plist), "seed": int(seed),
        "confidence": confidence, "confidence_per_kind": per_kind,
        "verdict_kinds": ["real-number", "float-bits"] if float_bits else ["real-number"],
        "sequential": sequential, "stop_at_flag": bool(stop_at_flag), "n_select": n_select,
        "n_certify": n_certify, "first_batch": first_batch, "growth": growth,
        "float_bits": float_bits,
        "chunk_size": chunk_size, "max_seconds": max_seconds,
        "reproducible": mech.reproducible,
        "reproducibility": (
            "reproducible from the seed" if mech.reproducible else
            "NOT reproducible: the mechanism draws randomness dpaudit cannot seed; a replay "
            "re-draws fresh outputs and re-checks the bound statistically"),
        "testers": n_testers, "randomness_probe": None,
        "relation_meaning": rel.describe(), "pairs_rejected": len(rejected),
        "size": size, "read_from_library": list(facts.from_library), "clips": clips,
        "family": fam, "family_level": 1.0 - per_kind, "exact": bool(exact),
    }
    return AuditPlan(mech, plist, tester, params, ref, int(seed), n_testers == 2, space,
                     probe=randomness == "auto", rejected=rejected, bits_tester=bits_tester,
                     confidential=data is not None or table is not None, data=data)


def preflight(plan: AuditPlan, calls: int = 2) -> list[dict[str, Any]]:
    """Call the mechanism a few times (``calls`` outputs) on each distinct data set of the
    plan, with a generator of its own (the run's stream is untouched), before anything is
    written.  Raises :class:`InputError` when it raised on *every* data set: that is how it
    is being called (style, randomness, seed range) or a mechanism that never runs, a
    harness error and not a privacy finding.  Returns the malformed-output problems seen
    (:class:`MechanismOutputError`: shape or type), each ``{"dataset", "message"}``."""
    rng = np.random.default_rng(np.random.SeedSequence(plan.seed, spawn_key=(7,)))
    seen: set[bytes] = set()
    failures: list[tuple[str, str]] = []
    malformed: list[dict[str, Any]] = []
    tried = 0
    for p in plan.pairs:
        for ds in (p.first, p.second):
            arr = np.asarray(ds, dtype=np.float64)
            key = arr.tobytes() + bytes([arr.ndim])
            if key in seen:
                continue
            seen.add(key)
            tried += 1
            try:
                plan.mech.sample(arr, calls, rng)
            except InputError:  # out of the mechanism's domain: the tester skips it
                continue
            except MechanismOutputError as exc:
                malformed.append({"dataset": arr.tolist()[:20], "message": str(exc)})
            except Exception as exc:  # noqa: BLE001 - the mechanism's own failure
                failures.append((type(exc).__name__, str(exc)))
    plan.mech.outputs_total = plan.mech.outputs_finite = 0  # the run counts its own
    if tried and len(failures) == tried:
        kinds = sorted({k for k, _ in failures})
        raise InputError(
            f"the mechanism raised {' / '.join(kinds)} on every one of the {tried} data sets "
            f"tried (first: {shorten(failures[0][1], 160)}): this is a harness error (how it "
            f"is called), not a privacy finding; it was called as style={plan.mech.style}, "
            f"randomness={plan.mech.randomness}"
            + (f" with int seeds in [0, 2^{plan.mech.seed_bits})"
               if plan.mech.randomness == "seed" else "")
            + "; check --style / --randomness / --seed-bits, or that it runs on these data")
    return malformed


def run_plan(plan: AuditPlan, progress: Callable[[str, int, int], None] | None = None,
             malformed: list[dict[str, Any]] | None = None) -> UserAudit:
    """Run the testers of a plan (module docstring); ``malformed``: problems found by
    :func:`preflight` (the run then ends inconclusive without sampling)."""
    t0 = time.perf_counter()
    mech, plist, ref, seed, tester = plan.mech, plan.pairs, plan.ref, plan.seed, plan.tester
    _probe_randomness(plan)
    if malformed:
        f = _outputs_finding(plan, "malformed", f"the mechanism's outputs are malformed: "
                             f"{malformed[0]['message']}", {"problems": malformed[:5]})
        # the sample-free sensitivity check needs no output of the mechanism
        found = [f, *_sensitivity_findings(plan), *_pairs_findings(plan)]
        return UserAudit(found, overall_outcome(found), plan.params, None, [],
                         time.perf_counter() - t0)
    findings: list[Finding] = []
    crashes: list[dict[str, Any]] = []
    res = None
    masses: dict[int, dict[str, Any] | None] = {}
    runs: list[Any] = []
    for kind, t in (("real-number", tester), ("float-bits", plan.bits_tester)):
        if t is None:
            continue
        t1 = time.perf_counter()
        if kind == "float-bits" and t.max_seconds is not None:
            left = float(t.max_seconds) - (t1 - t0)
            if left <= 0:
                findings.append(_not_run(plan, kind, "the time limit was used up by the "
                                         "real-number run"))
                continue
            t = _with_time(t, left)
        # each kind draws from its own stream (the float-bit run's is spawned from the seed)
        rng = (np.random.default_rng(seed) if kind == "real-number" else
               np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(BITS_STREAM,))))
        r = t.run(mech, plist, rng, progress=progress)
        runs.append(r)
        res = r if res is None else res
        crashes.extend(c for c in r.details.get("crashes", []) if c not in crashes)
        bb = _blackbox_finding(r, mech, plist, ref, seed, t, time.perf_counter() - t1,
                               kind=kind)
        if (mech.outputs_total and not mech.outputs_finite
                and bb.verdict is not Verdict.REFUTED):
            bb = _unmeasurable(bb, mech)
        _name_point_mass(bb, plan, r, masses)
        findings.append(bb)
    bad_out = [c for c in crashes if c.get("exception") == MechanismOutputError.__name__]
    findings.extend(_crash_findings([c for c in crashes if c not in bad_out], mech, ref,
                                    seed))
    if bad_out:
        findings.append(_outputs_finding(
            plan, "malformed", f"the mechanism's outputs are malformed: "
            f"{bad_out[0].get('message')}",
            {"problems": [{"dataset": c.get("dataset"), "message": c.get("message")}
                          for c in bad_out[:5]]}))
    # the kinds share the run's confidence (union bound): re-counted exactly (exit 4)
    fam_alpha = [float(plan.params["family_level"])] if plan.params.get("family") else []
    check_shared_alpha([float(r.details.get("alpha_total", 1.0 - r.confidence))
                        for r in runs] + fam_alpha,
                       float(plan.params["confidence"]), "black-box test")
    findings.extend(_sensitivity_findings(plan))
    findings.extend(_pairs_findings(plan))
    exact_rows: list[dict[str, Any]] = []
    if plan.exact:
        f, exact_rows = _exact_finding(mech, plist, ref, seed)
        findings.append(f)
    from audit.privacy.claims import claim_from_epsilon
    from audit.privacy.claims.gaussian_findings import gaussian_findings

    findings.extend(gaussian_findings(
        plan, claim_from_epsilon(mech.claimed_epsilon, mech.delta),
        exact_done=plan.exact))
    return UserAudit(findings, overall_outcome(findings), plan.params, res, exact_rows,
                     time.perf_counter() - t0)


#: spawn key of the float-bit run's generator (the real-number run uses the seed itself)
BITS_STREAM = 29
#: outputs drawn on each data set of a witness pair to name a point mass
POINT_MASS_DRAWS = 256


def _with_time(t: BlackBoxTester, seconds: float) -> BlackBoxTester:
    import dataclasses

    return dataclasses.replace(t, max_seconds=seconds)


def _not_run(plan: AuditPlan, kind: str, why: str) -> Finding:
    mech = plan.mech
    fid, what = KINDS[kind]
    return Finding(
        id=fid, claim=f"{mech.name} is {mech.claimed_epsilon:g}-DP under {mech.relation} "
        f"({what})", reference="the mechanism author's claim", method=Method.EMPIRICAL,
        verdict=Verdict.INCONCLUSIVE, scope=f"not run: {why}; nothing decided",
        evidence={"outcome": "time-limit", "reason": f"not run: {why}", "kind": kind},
        seed=plan.seed, subject=f"{_SUBJECT}:{plan.ref or mech.name}")


def _name_point_mass(f: Finding, plan: AuditPlan, res: Any,
                     cache: dict[int, dict[str, Any] | None]) -> None:
    """When under one data set of the finding's witness pair every one of
    :data:`POINT_MASS_DRAWS` outputs is the same value, say so in the finding ("under D' the
    output is a point mass at v: zero noise", :mod:`audit.privacy.output_atoms`).  The
    draws come from a generator of their own (the run's streams are untouched).  All draws
    equal is evidence, not proof, of zero noise: at 95 % confidence any other value has
    probability < 3 / draws (the rule of three), stated in the evidence."""
    w = getattr(res, "witness", None) or {}
    if "pair_index" not in w:
        return
    i = int(w["pair_index"])
    if i not in cache:
        p = plan.pairs[i]
        rng = np.random.default_rng(np.random.SeedSequence(plan.seed, spawn_key=(31, i)))
        try:
            ya = plan.tester.draw_chunked(plan.mech, p.first, POINT_MASS_DRAWS, rng, None)
            yb = plan.tester.draw_chunked(plan.mech, p.second, POINT_MASS_DRAWS, rng,
                                          ya.shape[1])
        except Exception:  # noqa: BLE001 - a crash is the tester's finding, not this note
            cache[i] = None
            return
        sentence = point_mass_sentence(ya, yb)
        cache[i] = None if sentence is None else {
            "sentence": sentence, "draws_per_data_set": POINT_MASS_DRAWS,
            "pair_index": i,
            "meaning": (f"all {POINT_MASS_DRAWS} outputs drawn on that data set were the "
                        f"same value: at 95 % confidence any other value has probability "
                        f"< {3 / POINT_MASS_DRAWS:.3g} there (rule of three)")}
    note = cache[i]
    if note is not None:
        f.evidence["point_mass"] = note
        # on the holder's data the value is confidential: the public text names no value
        shown = (re.sub(r" at .*?: zero noise", ": zero noise (the value is in the "
                        "confidential report)", note["sentence"]) if plan.confidential
                 else note["sentence"])
        f.scope = f"{f.scope}; {shown}"


def _probe_randomness(plan: AuditPlan) -> None:
    """A per-call mechanism without a randomness argument (randomness inferred, not given):
    does it draw from :mod:`random` / numpy's global state?  Then dpaudit seeds those and the
    run is reproducible (:mod:`audit.privacy.randomness_probe`); the plan's parameters
    record the result."""
    mech = plan.mech
    if not (plan.probe and mech.randomness == "none" and mech.style == "per-call"):
        return
    try:
        probed: str | None = probe_randomness(mech.call, plan.pairs[0].first)
    except Exception:  # noqa: BLE001 - a crash is reported by the tester, not here
        probed = None
    if probed == "global":
        mech.randomness = "global"
    plan.params.update({
        "randomness_probe": probed, "mechanism_adapter": mech.describe(),
        "reproducible": mech.reproducible,
        "reproducibility": (
            "reproducible from the seed" if mech.reproducible else
            "NOT reproducible: the mechanism draws randomness dpaudit cannot seed; a replay "
            "re-draws fresh outputs and re-checks the bound statistically")})


def _sensitivity_findings(plan: AuditPlan) -> list[Finding]:
    """The exact ``user.sensitivity`` finding when the object declares ``query`` and
    ``sensitivity`` and the plan has public bounds (else none)."""
    if plan.space is None:
        return []
    sf = sensitivity_check_finding(plan.mech.target, plan.space, name=plan.mech.name,
                                   ref=plan.ref, seed=plan.seed, data=plan.data)
    if sf is None:
        return []
    plan.params["sensitivity_check"] = {"n_max": plan.space.n_max,
                                        "ordered": plan.space.ordered}
    return [sf]


def _pairs_findings(plan: AuditPlan) -> list[Finding]:
    """The ``user.pairs`` finding when given pairs were skipped as not neighbours (else
    none): each rejected pair with its reason.  It does not change the run's outcome, which
    is about the pairs that were tested (a run with none left never gets here:
    :func:`plan_audit` raises)."""
    if not plan.rejected:
        return []
    mech = plan.mech
    n_bad, n_ok = len(plan.rejected), len(plan.pairs)
    reason = (f"{n_bad} of the {n_bad + n_ok} given pairs skipped: not neighbours under "
              f"{plan.params['relation']} (first: {shorten(plan.rejected[0]['reason'], 160)})")
    return [Finding(
        id="user.pairs", claim=f"the given pairs are neighbours under {plan.params['relation']}",
        reference="the pairs file / pairs argument", method=Method.EXACT,
        verdict=Verdict.INCONCLUSIVE,
        scope=(f"each given pair compared position by position under {mech.relation}; "
               f"{n_bad} skipped, {n_ok} tested; the verdicts above are about the tested "
               "pairs only"),
        evidence={"outcome": "skipped-pairs", "reason": reason, "tested": n_ok,
                  "rejected": plan.rejected[:50]},
        seed=plan.seed, subject=f"{_SUBJECT}:{plan.ref or mech.name}")]


def overall_outcome(findings: list[Finding]) -> str:
    """The run's outcome from its findings: "flagged", "inconclusive" or "not-flagged"."""
    verdicts = [f.verdict for f in findings]
    if Verdict.REFUTED in verdicts:
        return "flagged"
    if any(f.verdict in (Verdict.INCONCLUSIVE, Verdict.ERROR)
           and f.evidence.get("outcome") not in ("not-refuted", "skipped-pairs")
           for f in findings):
        return "inconclusive"
    return "not-flagged"


def _outputs_finding(plan: AuditPlan, outcome: str, reason: str,
                     evidence: dict[str, Any]) -> Finding:
    mech = plan.mech
    return Finding(
        id="user.outputs", claim=f"{mech.name} returns size outputs of real numbers",
        reference="the mechanism protocol (audit/privacy/user_mechanism.py)",
        method=Method.EMPIRICAL, verdict=Verdict.INCONCLUSIVE,
        scope=f"{reason}; nothing could be measured, so no privacy verdict",
        evidence={**evidence, "outcome": outcome, "reason": reason}, seed=plan.seed,
        subject=f"{_SUBJECT}:{plan.ref or mech.name}")


def _unmeasurable(bb: Finding, mech: UserMechanism) -> Finding:
    """The black-box finding of a run whose outputs were all NaN or infinite: inconclusive
    with the reason (no event on such outputs says anything about epsilon)."""
    import dataclasses

    reason = (f"all {mech.outputs_total:,} outputs drawn were NaN or infinite: no event "
              "could be measured")
    ev = {k: v for k, v in bb.evidence.items() if k != "power"}
    return dataclasses.replace(
        bb, verdict=Verdict.INCONCLUSIVE, scope=f"{bb.scope}; {reason}",
        evidence={**ev, "outcome": "unmeasurable", "reason": reason})


def test_mechanism(mechanism: Any, *, progress: Callable[[str, int, int], None] | None = None,
                   **kw: Any) -> UserAudit:
    """Test a user's mechanism for (epsilon, delta)-DP under ``relation`` (module docstring).

    Keywords are those of :func:`plan_audit`: pairs from ``pairs`` (a list of [D, D'] or
    NeighbourPair), else ``data`` with ``lower`` and ``upper``, else the neighbour search
    over ``[lower, upper]`` (half small data sets at the bounds, half the floating-point bug
    families); with bounds, an object declaring ``query`` and ``sensitivity`` also gets the
    exact sensitivity check on sizes up to ``n``; ``seed=None`` draws a fresh seed and
    records it; ``ref`` (``"module:object"``) makes counterexamples replayable from the
    command line (inferred for module-level functions and classes); ``seed_bits`` sets the
    range of int seeds; ``epsilon=None`` reads the object's declared claim.  A per-call
    mechanism without a randomness argument is probed for global-RNG use (then seeded).
    A mechanism that raises on every data set is a harness error (:func:`preflight`:
    ``InputError``); malformed or all-non-finite outputs end the run inconclusive.
    """
    plan = plan_audit(mechanism, **kw)
    malformed = preflight(plan)
    return run_plan(plan, progress, malformed)


def _pair_doc(p: NeighbourPair) -> dict[str, Any]:
    return {"first": np.asarray(p.first).tolist(), "second": np.asarray(p.second).tolist(),
            "change": dict(p.change)}


#: the verdict kinds of the black-box tester: finding id and the events it certifies
KINDS = {"real-number": ("user.blackbox", "real-number events"),
         "float-bits": ("user.float-bits", "float64 bit-level events")}
#: the float-bit run's event families (the real-number run has every other family)
BIT_FAMILIES = ("float-grid",)


def blackbox_claim(mech: UserMechanism, kind: str = "real-number") -> str:
    """The claim text of the black-box finding of ``kind`` (also a timed-out run's, so the
    public report does not tell a time-out from a finished run by its claim)."""
    what = KINDS[kind][1]
    if mech.delta:
        return (f"{mech.name} is ({mech.claimed_epsilon:g}, {mech.delta:g})-DP under "
                f"{mech.relation} ({what})")
    return f"{mech.name} is {mech.claimed_epsilon:g}-DP under {mech.relation} ({what})"


def _blackbox_finding(res: Any, mech: UserMechanism, plist: list[NeighbourPair],
                      ref: str | None, seed: int, tester: BlackBoxTester,
                      dur: float, kind: str = "real-number") -> Finding:
    d = res.details
    fid, what = KINDS[kind]
    claim = blackbox_claim(mech, kind)
    mode = d.get("mode", "fixed")
    evidence: dict[str, Any] = {
        "mode": mode, "epsilon_lower": res.epsilon_lower,
        "epsilon_point": res.epsilon_estimate, "confidence": res.confidence,
        "samples_total": d.get("samples_total"), "pairs": d.get("pairs"),
        "pairs_used": d.get("pairs_used"), "skipped_pairs": d.get("skipped_pairs", []),
        "crashes": len(d.get("crashes", [])), "guarantee": d.get("guarantee"),
        "float_bits": tester.float_grid, "reproducible": mech.reproducible, "kind": kind,
    }
    if mode == "sequential":
        evidence.update({"stopped": d.get("stopped"), "schedule": d.get("schedule"),
                         "looks": len(d.get("looks", [])),
                         "first_flag_look": d.get("first_flag_round"),
                         "alpha_per_look": d.get("alpha_per_look"),
                         "rounds": d.get("rounds")})
    trusted = (" taken as neighbours without a check (relation 'trusted')"
               if mech.relation == RelationKind.TRUSTED.value else "")
    scope = (f"{d.get('pairs_used')} neighbouring pairs ({mech.relation}){trusted}; black-box "
             f"select-then-certify, {what} only; "
             f"{d.get('samples_total')} outputs drawn; confidence {res.confidence}")
    if d.get("outcome") == "crashed" or res.epsilon_lower is None:
        return Finding(
            id=fid, claim=claim, reference="the mechanism author's claim",
            method=Method.EMPIRICAL, verdict=Verdict.INCONCLUSIVE,
            scope=scope + "; no pair could be tested (the mechanism crashed: see user.crash.*)",
            evidence={**evidence, "outcome": "untested"}, seed=seed, duration_s=dur,
            subject=f"{_SUBJECT}:{ref or mech.name}")
    w = res.witness
    evidence.update({"event": w.get("event"), "event_family": w.get("event_spec", {}).get(
        "family"), "counts": w.get("counts"), "pair_change": w.get("change"),
        "direction": w.get("direction")})
    if res.violates:
        pair = plist[int(w["pair_index"])]
        inputs = {
            "mechanism": ref, **code_record(ref), "name": mech.name,
            "style": mech.style, "table": getattr(mech.target, "dpaudit_table", None),
            "randomness": mech.randomness, "reproducible": mech.reproducible,
            "seed_bits": mech.seed_bits,
            "epsilon": mech.claimed_epsilon, "delta": mech.delta, "relation": mech.relation,
            "pair": _pair_doc(pair), "event": w["event_spec"], "event_text": w["event"],
            "direction_index": w["direction_index"], "counts": w["counts"],
            "alpha_per_bound": w["alpha_per_bound"], "seed": seed,
            "rng_state": w["replay"]["rng_state"], "chunk_size": w["replay"]["chunk_size"],
            "n": w["replay"]["n"],
        }
        cx = counterexample_document(
            CHECK_EVENT, f"{_SUBJECT}:{ref or mech.name}", inputs,
            expected=f"epsilon_lower <= {mech.claimed_epsilon!r}",
            actual=res.epsilon_lower, tolerance={"confidence": res.confidence},
            note=("replay re-draws the same outputs from the stored generator state"
                  if mech.reproducible else
                  "the mechanism is not reproducible: replay re-draws fresh outputs"))
        return Finding(
            id=fid, claim=claim, reference="the mechanism author's claim",
            method=Method.EMPIRICAL, verdict=Verdict.REFUTED,
            scope=scope, evidence={**evidence, "outcome": "flagged"}, counterexample=cx,
            seed=seed, duration_s=dur, subject=f"{_SUBJECT}:{ref or mech.name}")
    c = w["counts"]
    fav, oth = (c["first"], c["second"]) if w["direction_index"] == 0 else (
        c["second"], c["first"])
    power = power_on_event(fav, oth, c["n"], w["alpha_per_bound"], mech.claimed_epsilon,
                           mech.delta)
    evidence["power"] = {
        "detectable_epsilon_on_event": power,
        "meaning": ("a mechanism whose true log-ratio on the witness event were >= this "
                    "value would have been flagged with probability >= 0.9 at the final "
                    "look's sample size; smaller violations, or violations on events the "
                    "search did not select, can go unseen"),
        "broken_twin": (
            "calibration: Laplace with half the noise scale (true epsilon 2x) is flagged by "
            "the same tester (tests/engine/privacy/test_user_mechanism.py)" if kind == "real-number"
            else "calibration: numpy's f(D) + Laplace in float64 (outputs of neighbours on "
            "different float grids) is flagged by the same tester "
            "(tests/engine/privacy/test_libraries_verdict_kinds.py)"),
    }
    evidence["power"]["in_words"] = power_words(
        claimed=mech.claimed_epsilon, n=int(c["n"]), alpha=float(w["alpha_per_bound"]),
        counts={"first": fav, "second": oth, "n": int(c["n"])}, detectable=power,
        delta=mech.delta)
    stopped_early = d.get("stopped") == "time-budget"
    verdict = Verdict.INCONCLUSIVE if stopped_early else not_refuted_verdict()
    outcome = "time-budget" if stopped_early else "not-refuted"
    return Finding(
        id=fid, claim=claim, reference="the mechanism author's claim",
        method=Method.EMPIRICAL, verdict=verdict,
        scope=scope + ("; NOT REFUTED (a sampled test that found nothing is not a proof)"
                       if not stopped_early else f"; {_TIME_STOP}"),
        evidence={**evidence, "outcome": outcome,
                  **({"reason": f"{_TIME_STOP}; epsilon_lower "
                      f"{evidence.get('epsilon_lower', 0.0):.4g} certified so far"}
                     if stopped_early else {})}, seed=seed, duration_s=dur,
        subject=f"{_SUBJECT}:{ref or mech.name}")


_TIME_STOP = ("stopped at a look boundary by the time limit (--max-seconds: the next look "
              "would have ended past it); every look so far holds, so the bound certified "
              "so far is a valid lower bound, but fewer outputs than planned were drawn: "
              "INCONCLUSIVE, never a pass (the mechanism returned every call)")


def _crash_findings(crashes: list[dict[str, Any]], mech: UserMechanism, ref: str | None,
                    seed: int) -> list[Finding]:
    out: list[Finding] = []
    seen: set[str] = set()
    for c in crashes:
        key = json.dumps([c.get("exception"), c.get("dataset")], default=str)
        if key in seen:
            continue
        seen.add(key)
        inputs = {"mechanism": ref, **code_record(ref), "name": mech.name,
                  "style": mech.style, "table": getattr(mech.target, "dpaudit_table", None),
                  "randomness": mech.randomness, "seed_bits": mech.seed_bits,
                  "epsilon": mech.claimed_epsilon,
                  "relation": mech.relation, "dataset": c.get("dataset"),
                  "size": c.get("size"), "rng_state": c.get("rng_state"),
                  "exception": c.get("exception"), "seed": seed}
        cx = counterexample_document(
            CHECK_CRASH, f"{_SUBJECT}:{ref or mech.name}", inputs,
            expected="outputs (no exception)", actual=f"{c.get('exception')}: {c.get('message')}",
            tolerance=None, note="replay calls the mechanism on the stored data set")
        out.append(Finding(
            id=f"user.crash.{len(out) + 1}",
            claim=f"{mech.name} runs on every data set of the domain",
            reference="the mechanism author's claim",
            method=Method.EMPIRICAL, verdict=Verdict.REFUTED,
            scope=f"pair {c.get('pair_index')} ({c.get('which')} data set), {c.get('stage')}",
            evidence={"exception": c.get("exception"), "message": c.get("message"),
                      "traceback": c.get("traceback"), "dataset": c.get("dataset"),
                      "change": c.get("change")},
            counterexample=cx, seed=seed, subject=f"{_SUBJECT}:{ref or mech.name}"))
    return out


def _exact_finding(mech: UserMechanism, plist: list[NeighbourPair], ref: str | None,
                   seed: int) -> tuple[Finding, list[dict[str, Any]]]:
    from audit.privacy.exact_loss import DPS, dataset_pair_loss

    t0 = time.perf_counter()
    rows: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    for i, p in enumerate(plist):
        try:
            k = dataset_pair_loss(mech, p.first, p.second).kernel
        except Exception as exc:  # noqa: BLE001 - the declared density failed: reported
            errors.append({"pair_index": i, "error": f"{type(exc).__name__}: {exc}"})
            continue
        rows.append({"pair_index": i, "change": dict(p.change), "epsilon_up": k.epsilon_up,
                     "value_down": k.value_down, "y_star": k.y_star, "family": k.family,
                     "certified": k.certified})
    claim = f"{mech.name} is {mech.claimed_epsilon:g}-DP under {mech.relation}"
    subject = f"{_SUBJECT}:{ref or mech.name}"
    dur = time.perf_counter() - t0
    if not rows:
        return Finding(id="user.exact-loss", claim=claim, reference="declared density",
                       method=Method.EXACT_LOSS, verdict=Verdict.INCONCLUSIVE,
                       scope="no pair could be evaluated", evidence={"errors": errors},
                       seed=seed, duration_s=dur, subject=subject), rows
    worst = max(rows, key=lambda r: r["value_down"])
    ev = {"worst": worst, "pairs": rows, "errors": errors, "dps": list(DPS)}
    scope = (f"{len(rows)} neighbouring pairs ({mech.relation}); sup over all outputs of the "
             f"privacy loss from the declared location_scale and noise density, mpmath "
             f"{DPS[0]}/{DPS[1]} digits, rounded up; assumes the declared density is the "
             "mechanism's output law (not checked against its samples)")
    if worst["value_down"] > mech.claimed_epsilon:
        p = plist[worst["pair_index"]]
        cx = counterexample_document(
            CHECK_EXACT, subject,
            {"mechanism": ref, **code_record(ref), "name": mech.name,
             "style": mech.style,
             "randomness": mech.randomness, "epsilon": mech.claimed_epsilon,
             "relation": mech.relation, "pair": _pair_doc(p)},
            expected=f"loss <= {mech.claimed_epsilon!r}", actual=worst["value_down"],
            tolerance={"rounding": "value rounded down"})
        return Finding(id="user.exact-loss", claim=claim, reference="declared density",
                       method=Method.EXACT_LOSS, verdict=Verdict.REFUTED, scope=scope,
                       evidence={**ev, "outcome": "flagged"}, counterexample=cx, seed=seed,
                       duration_s=dur, subject=subject), rows
    certified = all(r["certified"] for r in rows) and not errors
    verdict = Verdict.VERIFIED if certified else Verdict.INCONCLUSIVE
    return Finding(id="user.exact-loss", claim=claim, reference="declared density",
                   method=Method.EXACT_LOSS, verdict=verdict, scope=scope,
                   evidence={**ev, "outcome": "within-claim" if certified else "uncertified"},
                   seed=seed, duration_s=dur, subject=subject), rows


# ----------------------------------------------------------------------------- replayers
def _rewrap(inputs: dict[str, Any]) -> UserMechanism:
    ref = inputs.get("mechanism")
    if not ref:
        raise InputError(
            "this counterexample names no importable MODULE:OBJECT (the mechanism was a "
            "local object); re-run test_mechanism with ref='module:object'")
    ensure_on_path(inputs.get("import_path"))
    obj = load_object(ref)
    if inputs.get("table"):  # a mechanism on a table: the coded rows decoded as in the run
        from audit.privacy.table_mechanism import TableCodec, table_mechanism

        t = inputs["table"]
        obj = table_mechanism(obj, TableCodec.from_doc(t["codec"]), t["form"])
    return wrap_mechanism(obj, epsilon=inputs["epsilon"],
                          relation=inputs["relation"], delta=inputs.get("delta", 0.0),
                          style=inputs.get("style", "auto"),
                          randomness=inputs.get("randomness", "auto"),
                          # counterexamples written before seed_bits drew in [0, 2^63)
                          seed_bits=int(inputs.get("seed_bits", 63)))


def _rng_from_state(state: dict[str, Any] | None) -> np.random.Generator:
    if not state:
        return np.random.default_rng()
    bg = getattr(np.random, state["bit_generator"])()
    bg.state = state
    return np.random.Generator(bg)


@replayer(CHECK_EVENT)
def replay_event(inputs: dict[str, Any]) -> tuple[bool, Any, Any, str]:
    """Re-draw the certification outputs (same generator state and chunking) and recompute
    the certified bound on the stored event."""
    mech = _rewrap(inputs)
    t = BlackBoxTester(n_select=10, n_certify=int(inputs["n"]),
                       chunk_size=int(inputs["chunk_size"]))
    rng = _rng_from_state(inputs["rng_state"] if inputs.get("reproducible") else None)
    ev = Event.from_dict(inputs["event"])
    pair = inputs["pair"]
    first = np.asarray(pair["first"], dtype=np.float64)
    second = np.asarray(pair["second"], dtype=np.float64)
    n = int(inputs["n"])
    ya = t._draw_chunked(mech, first, n, rng, None)
    yb = t._draw_chunked(mech, second, n, rng, ya.shape[1])
    kf, ks = int(np.count_nonzero(ev.mask(ya))), int(np.count_nonzero(ev.mask(yb)))
    fav, oth = (kf, ks) if int(inputs["direction_index"]) == 0 else (ks, kf)
    a = float(inputs["alpha_per_bound"])
    lo, hi = clopper_pearson_lower(fav, n, a), clopper_pearson_upper(oth, n, a)
    eps_l = max(0.0, float(log_ratio(lo, hi, float(inputs.get("delta", 0.0)))))
    same = {"first": kf, "second": ks} == {k: inputs["counts"][k] for k in ("first", "second")}
    detail = (f"event: {inputs.get('event_text')}; counts now first={kf}, second={ks} of "
              f"n={n} (stored {inputs['counts']['first']}, {inputs['counts']['second']}; "
              f"{'identical' if same else 'different'}); "
              + ("same generator state" if inputs.get("reproducible") else
                 "fresh outputs (mechanism not reproducible)"))
    return eps_l > float(inputs["epsilon"]), f"epsilon_lower <= {inputs['epsilon']}", eps_l, detail


@replayer(CHECK_CRASH)
def replay_crash(inputs: dict[str, Any]) -> tuple[bool, Any, Any, str]:
    """Call the mechanism once more on the stored data set."""
    mech = _rewrap(inputs)
    rng = _rng_from_state(inputs.get("rng_state"))
    data = np.asarray(inputs["dataset"], dtype=np.float64)
    size = int(inputs.get("size") or 1)
    try:
        mech.sample(data, size, rng)
    except InputError as exc:
        return False, "outputs", f"rejected as out of domain: {exc}", "InputError"
    except Exception as exc:  # noqa: BLE001 - the failure being replayed
        return True, "outputs (no exception)", f"{type(exc).__name__}: {exc}", (
            f"data set {data.tolist()[:10]}")
    return False, "outputs (no exception)", "outputs", "the mechanism no longer raises"


@replayer(CHECK_EXACT)
def replay_exact(inputs: dict[str, Any]) -> tuple[bool, Any, Any, str]:
    """Recompute the certified exact loss of the stored pair."""
    from audit.privacy.exact_loss import dataset_pair_loss

    mech = _rewrap(inputs)
    p = inputs["pair"]
    k = dataset_pair_loss(mech, np.asarray(p["first"], dtype=np.float64),
                          np.asarray(p["second"], dtype=np.float64)).kernel
    return (k.value_down > float(inputs["epsilon"]), f"loss <= {inputs['epsilon']}",
            k.value_down, f"y* = {k.y_star}, family {k.family}")
test_mechanism.__test__ = False  # not a pytest test when imported into a test module
