"""Do the free-gap mechanisms leak through the bits of their float64 outputs? - ``dpaudit search``.

Paper: Ding, Wang, Zhang & Kifer, "Free Gap Information from the Differentially Private Sparse
Vector and Noisy Max Mechanisms".  Claim ``freegap.float-bits`` runs
:class:`audit.privacy.blackbox.BlackBoxTester` with ``float_grid=True`` (float64 bit-pattern
events: binade + last mantissa bits, float32-representability, repeated values; see the
module docstring of :mod:`audit.privacy.blackbox`) on the correct mechanisms that release
real numbers, as implemented in :mod:`kernels.freegap.mechanisms` (float64, numpy's
``Generator.laplace``):

* Noisy-Top-K-with-Gap, k = 1, Lap(2/eps) (Algorithm 1, Theorem 2): the gap
  ``fl(q_i + eta_i) - fl(q_j + eta_j)``;
* Sparse-Vector-with-Gap, k = 1, theta = 0.2, **T = 1** (Algorithm 2 with sigma = inf,
  Theorem 4): the gap ``fl(fl(q_i + nu_i) - fl(T + eta))``;
* Adaptive-Sparse-Vector-with-Gap, k = 1, theta = 0.2, **T = 1** (Algorithm 2, Theorem 4).

Each is run on five neighbouring query-answer pairs of integer (counting-query) answers: the
broken variants' witness pairs (``kernels.freegap.broken.BROKEN_VARIANTS``), one query moved
by +1, and large counts (1000 vs 1001, where the float grid is coarser), with one certified
event over all pairs (``certify="best"``, Bonferroni factor 2, 90% confidence).  The same
tester with ``float_grid=False`` (real-number events only, as in ``freegap.blackbox``) runs
on the same pairs with the same seed, for comparison.  Verdict per mechanism: *refuted* when
the float-grid run certifies epsilon_lower above the claimed epsilon (a bit-level leak when
the real-number run does not), with a counterexample that :func:`replay_float_bits` re-runs
from the stored seed; *verified* otherwise, within the scope (pairs, sample sizes, 90%
confidence, bit-level event families only; not a proof).

What was found (seed 0, 2 x 10^5 selection / 10^6 certification draws per data set; the
direct bit computation below the tester's figures)
------------------------------------------------------------------------------------------
All three leak without bound (claim eps = 1; the real-number events certify <= ~0.9).

* Top-K-with-Gap on q = (0,...,0) vs q' = (1,...,1) (noisy_max_with_value's witness pair):
  the event {gap in the binade [1/4, 1/2), last mantissa bit 1} has probability ~1 % under q
  and exactly 0 under q'.  Under q' every noisy answer is ``fl(1 + eta)``, a multiple of
  2^-53 (if |1 + eta| >= 1/2 its ulp is >= 2^-53; otherwise eta is in (-3/2, -1/2), itself on
  a grid >= 2^-53, and the sum is exact), so every gap is a multiple of 2^-53 and a gap in
  [1/4, 1/2) (ulp 2^-54) has last bit 0.  Under q the noisy answers are the raw Laplace draws,
  whose bits go down to ~2^-60 near 0.  Certified epsilon_lower ~8 at 10^6 draws (grows ~log 10 per
  decade of samples) against ~0 for the real-number events on that pair (~0.97 over all
  five pairs).  The three unsnapped runs take ~16 s at the full sizes on one core.
* SVT-with-Gap and Adaptive-SVT-with-Gap with T = 1: on a pair where q_i = 1 under one data
  set (e.g. adaptive_svt_wrong_stop's witness (0,0,0,1,1) vs (1,1,1,0,0), output[0]) the
  released gap ``fl(1 + nu) - fl(1 + eta)`` is a difference of two multiples of 2^-53, hence
  again a multiple of 2^-53, while with q_i = 0 it is ``nu - fl(1 + eta)`` with nu's fine
  bits: {gap in [1/4, 1/2), last bit 1} is impossible under the data set with q_i = 1.
  Certified ~3.5 at 10^5 draws, ~6.0 at 10^6 (real-number
  events: ~0.92).
* With the threshold T = 0 used by ``freegap.blackbox`` the noisy threshold is the raw draw
  eta (fine bits), so no event is impossible, but the leak is still large: on svt_lee_clifton's
  witness (0,0,0,0,1) vs (1,1,1,1,0) the event {output[4] in [1, 2), last bit 1} certified
  1.37 for SVT-with-Gap (real-number events: 0.94) and {output[4] in [1/2, 1), last two bits
  01} 1.17 for the adaptive version (real: 0.93), tester seed 1, 10^6 draws; at 10^5 draws
  it is not flagged (0.88).  Hence T = 1 here: the unbounded leak needs only an integer
  threshold, as counting-query thresholds usually are.
* Large counts do not leak: with q, q' ~ 1000 every noisy answer lies on the 2^-43 / 2^-42
  grid of its binade under both data sets and the bit events have the same law (as
  the huge-location negative control of :mod:`audit.privacy.blackbox`); the tester then
  measures only the real-number loss.

Direct check.  For the certified bit event, :func:`bit_check` draws fresh outputs from the
mechanism on both data sets of the certified pair (its own generator), evaluates the event
with an independent bit mask, and reports the counts and the finest power-of-two grid that
the event's column occupies under each data set (e.g. 2^-53 under q' vs 2^-61 under q for
Top-K): the structural reason for the zero count.

These are properties of the float64 implementation, not of the paper's real-number
mechanisms; the cure is Mironov's snapping (round the released gaps to a power-of-two grid
coarser than the noise resolution), as ``kernels.gini.release.snap`` does for the Gini release.

Snapped twins (:func:`snapped_targets`).  The samplers take an opt-in ``snap`` grid and the
wrappers a ``snap=True`` field (``kernels.freegap.mechanisms.snap_gaps`` / ``gap_snap_grid``): the
released gaps (not indices / branch codes; NaN kept) are clamped to [-B, B] and rounded to
multiples of B 2^-40, with B = 2^ceil(log2(2 max(|T|, query bound) + 64 x largest Laplace
scale)) - here B = 128 (step 2^-33) for Top-K (scale 2) and B = 512 (step 2^-31) for the
two SVTs (threshold scale 5).  Each snapped twin is run by the same float-grid tester on the
same pairs with the same tester seed as its unsnapped twin; Findings
``freegap.float-bits.<mechanism>-snapped``, expected *verified* (not flagged: bit-level event
families only, within the stated pairs / draws / 90% confidence; not a proof).  Seed 0, full
sizes: float-grid epsilon_lower 8.06 / 5.97 / 5.99 unsnapped -> 0.974 / 0.913 / 0.922
snapped, equal to the real-number-events figure of each (the bit events add nothing).

Sample sizes scale with the budget (:func:`sizes_for`): 2 x 10^5 / 10^6 from
:data:`FULL_BUDGET_S` on (60 s: the six runs take ~30-35 s at full sizes on one core),
proportionally fewer below (floors 2 x 10^4 / 10^5).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.privacy.blackbox import BlackBoxTester
from audit.privacy.blackbox.candidates import FAMILIES
from audit.protocols import NeighbourPair, TestResult
from audit.registry import replayer
from proofs.freegap import claim
from proofs.freegap.privacy import build_mechanism, tester_seed

__all__ = [
    "CHECK",
    "CONFIDENCE",
    "FULL_BUDGET_S",
    "FloatTarget",
    "bit_check",
    "finest_grid_exponent",
    "float_bits",
    "make_tester",
    "replay_float_bits",
    "run_target",
    "sizes_for",
    "snapped_targets",
    "targets",
]

PAPER = "ding-et-al-free-gap"
REF = "Ding, Wang, Zhang & Kifer (free gap)"
CHECK = "freegap.float-bits"
CONFIDENCE = 0.9
N_SELECT_FULL, N_CERTIFY_FULL = 200_000, 1_000_000
N_SELECT_MIN, N_CERTIFY_MIN = 20_000, 100_000
FULL_BUDGET_S = 60.0  # was 30 s before the snapped twins doubled the work
#: fresh draws per data set in the direct bit check
N_DIRECT_FULL, N_DIRECT_MIN = 1_000_000, 100_000

Pair = tuple[tuple[float, ...], tuple[float, ...], str]

_TOPK_PAIRS: tuple[Pair, ...] = (
    ((1.0, 0.0), (0.0, 1.0), "witness pair of top_k_with_gap_half_noise"),
    ((0.0,) * 6, (1.0,) * 6, "witness pair of noisy_max_with_value (all queries +1)"),
    ((0.0, 0.0, 0.0, 0.0, 1.0), (1.0, 1.0, 1.0, 1.0, 0.0), "witness pair of svt_lee_clifton"),
    ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), "one query moved by +1"),
    ((1000.0, 1000.0, 1000.0), (1001.0, 1001.0, 1001.0), "large counts, all queries +1"),
)
_SVT_PAIRS: tuple[Pair, ...] = (
    ((0.0, 0.0, 0.0, 0.0, 1.0), (1.0, 1.0, 1.0, 1.0, 0.0), "witness pair of svt_lee_clifton"),
    ((0.0, 0.0, 0.0, 1.0, 1.0), (1.0, 1.0, 1.0, 0.0, 0.0),
     "witness pair of adaptive_svt_wrong_stop"),
    ((0.0,) * 5, (0.0, 0.0, 1.0, 0.0, 0.0), "one query moved by +1"),
    ((0.0,) * 5, (1.0,) * 5, "all queries +1"),
    ((1000.0,) * 5, (1001.0,) * 5, "large counts, all queries +1"),
)


@dataclass(frozen=True)
class FloatTarget:
    """One mechanism: ``spec`` for :func:`proofs.freegap.privacy.build_mechanism`."""

    key: str
    title: str
    reference: str
    spec: dict[str, Any]
    pairs: tuple[Pair, ...]
    explanation: str
    #: key whose tester seed is used (a snapped target reuses its unsnapped twin's seed)
    seed_key: str = ""


def targets() -> list[FloatTarget]:
    """The three correct mechanisms that release real numbers."""
    eps = 1.0
    svt_expl = (
        "with T = 1 the noisy threshold fl(1 + eta) is a multiple of 2^-53, and so is "
        "fl(1 + nu) when the query answer is 1: the released gap, their difference, is then a "
        "multiple of 2^-53 and a gap in [1/4, 1/2) (ulp 2^-54) always has last mantissa bit 0, "
        "while with answer 0 the gap nu - fl(1 + eta) carries nu's finer bits")
    return [
        FloatTarget(
            "top-k-with-gap", "Noisy-Top-K-with-Gap, k = 1 (Lap(2k/eps), general queries)",
            f"{REF}, Alg. 1, Thm. 2",
            {"class": "TopKWithGap", "params": {"k": 1, "epsilon": eps}}, _TOPK_PAIRS,
            "when every answer is 1 each noisy answer fl(1 + eta) is a multiple of 2^-53, so "
            "every gap (a difference of two of them) is a multiple of 2^-53 and a gap in "
            "[1/4, 1/2) (ulp 2^-54) always has last mantissa bit 0; when every answer is 0 the "
            "noisy answers are the raw Laplace draws, whose bits go far below 2^-53"),
        FloatTarget(
            "svt-with-gap", "Sparse-Vector-with-Gap, k = 1, theta = 0.2, T = 1",
            f"{REF}, Alg. 2 with sigma = inf (Sec. 6.1), Thm. 4",
            {"class": "SVTWithGap", "params": {"T": 1.0, "epsilon": eps, "k": 1,
                                               "theta": 0.2}}, _SVT_PAIRS, svt_expl),
        FloatTarget(
            "adaptive-svt-with-gap",
            "Adaptive-Sparse-Vector-with-Gap, k = 1, theta = 0.2, T = 1",
            f"{REF}, Alg. 2, Thm. 4",
            {"class": "AdaptiveSVTWithGap", "params": {"T": 1.0, "epsilon": eps, "k": 1,
                                                       "theta": 0.2}}, _SVT_PAIRS, svt_expl),
    ]


def snapped_targets() -> list[FloatTarget]:
    """The same three mechanisms with ``snap=True`` (gaps clamped to [-B, B] and rounded to
    B 2^-40, :func:`kernels.freegap.mechanisms.gap_snap_grid`), run on the same pairs with the same
    tester seed as their unsnapped twins."""
    out = []
    for t in targets():
        spec = {"class": t.spec["class"], "params": {**t.spec["params"], "snap": True}}
        out.append(FloatTarget(
            f"{t.key}-snapped",
            f"{t.title}, released gaps snapped (kernels.freegap.mechanisms.snap_gaps)",
            t.reference, spec, t.pairs,
            "snapping should remove the bit-level leak; a flag here means it does not",
            seed_key=t.key))
    return out


def sizes_for(budget_s: float) -> tuple[int, int]:
    """(selection, certification) draws per data set for a budget of ``budget_s`` seconds."""
    f = min(1.0, max(0.0, float(budget_s)) / FULL_BUDGET_S)
    return (max(N_SELECT_MIN, int(round(N_SELECT_FULL * f, -3))),
            max(N_CERTIFY_MIN, int(round(N_CERTIFY_FULL * f, -4))))


def make_tester(n_select: int, n_certify: int, float_grid: bool) -> BlackBoxTester:
    """The tester of these runs: the per-column event families (whose witnesses the direct
    bit check below can evaluate) with the one-sample selection the committed results were
    measured with."""
    return BlackBoxTester(n_select=int(n_select), n_certify=int(n_certify),
                          confidence=CONFIDENCE, certify="best", float_grid=bool(float_grid),
                          name="blackbox-float" if float_grid else "blackbox",
                          families=FAMILIES, heldout_selection=False)


def _pairs(t_pairs: Any, relation: str) -> list[NeighbourPair]:
    return [NeighbourPair(np.asarray(q, dtype=np.float64), np.asarray(qp, dtype=np.float64),
                          relation, {"op": "query answers", "q": list(q), "q_prime": list(qp),
                                     "description": d})
            for q, qp, d in t_pairs]


# ============================================================================ direct check
def finest_grid_exponent(values: np.ndarray) -> int | None:
    """The smallest m such that every finite non-zero value is a multiple of 2^m (None when
    there is none): the finest power-of-two grid the values occupy."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v) & (v != 0)]
    if v.size == 0:
        return None
    mant, expo = np.frexp(np.abs(v))  # |v| = mant 2^expo, mant in [1/2, 1)
    m = (mant * 2.0**53).astype(np.int64)  # exact: 53-bit integer mantissa
    low = m & -m  # lowest set bit
    tz = np.log2(low.astype(np.float64)).astype(np.int64)
    return int(np.min(expo.astype(np.int64) - 53 + tz))


def _bits_event(y: np.ndarray, spec: dict[str, Any]) -> np.ndarray:
    """Independent evaluation of a ``bits`` event (and its pattern conditions, if any)."""
    col = np.ascontiguousarray(y[:, int(spec["column"])], dtype=np.float64)
    raw = col.view(np.uint64)
    b = spec["bits"]
    ok = np.isfinite(col)
    if int(b["biased_exponent"]) >= 0:
        ok &= (raw >> np.uint64(63)).astype(np.int64) == int(b["sign"])
        ok &= ((raw >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64) == int(
            b["biased_exponent"])
    ok &= (raw & np.uint64((1 << int(b["k"])) - 1)).astype(np.int64) == int(b["pattern"])
    for c, op, v in spec.get("pattern", []):
        pc = y[:, int(c)]
        ok &= np.isnan(pc) if op == "absent" else (~np.isnan(pc) if op == "present"
                                                    else pc == float(v))
    return ok


def bit_check(spec: dict[str, Any], q: Any, q_prime: Any, event_spec: dict[str, Any],
              n: int, seed: int) -> dict[str, Any] | None:
    """Sample the mechanism ``n`` times on q and on q' (generator ``default_rng(seed)``),
    count the bit event ``event_spec`` and report the finest power-of-two grid of the event's
    column under each data set.  None when the event is not a ``bits`` event."""
    if event_spec.get("kind") != "bits":
        return None
    mech = build_mechanism(spec)
    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {"n": int(n), "seed": int(seed)}
    for name, data in (("q", q), ("q_prime", q_prime)):
        y = np.asarray(mech.sample(np.asarray(data, dtype=np.float64), int(n), rng))
        out[f"count_{name}"] = int(np.count_nonzero(_bits_event(y, event_spec)))
        out[f"finest_grid_log2_{name}"] = finest_grid_exponent(y[:, int(event_spec["column"])])
    return out


# ============================================================================ runs
def run_target(target: FloatTarget, n_select: int, n_certify: int, seed: int,
               n_direct: int) -> dict[str, Any]:
    """Float-grid and real-number runs (same pairs, same tester seed) and the direct check."""
    t0 = time.perf_counter()
    mech = build_mechanism(target.spec)
    pairs = _pairs(target.pairs, mech.relation)
    ts = tester_seed(seed, CHECK + "." + (target.seed_key or target.key))
    runs: dict[str, TestResult] = {}
    times: dict[str, float] = {}
    for label, flag in (("float", True), ("real", False)):
        t1 = time.perf_counter()
        runs[label] = make_tester(n_select, n_certify, flag).run(
            mech, pairs, np.random.default_rng(ts))
        times[label] = time.perf_counter() - t1
    fl, re_ = runs["float"], runs["real"]
    w = fl.witness
    pi = int(w["pair_index"])
    q, qp, desc = target.pairs[pi]
    row: dict[str, Any] = {
        "key": target.key,
        "claimed_epsilon": fl.claimed_epsilon,
        "relation": fl.relation,
        "flagged": bool(fl.violates),
        "real_flagged": bool(re_.violates),
        "epsilon_lower_float": fl.epsilon_lower,
        "epsilon_lower_real": re_.epsilon_lower,
        "event": w["event"],
        "event_spec": w["event_spec"],
        "event_family": w["event_spec"].get("family"),
        "direction": w["direction"],
        "counts": w["counts"],
        "pair_index": pi,
        "pair": {"q": list(q), "q_prime": list(qp), "description": desc},
        "real_event": re_.witness["event"],
        "real_pair_index": int(re_.witness["pair_index"]),
        "real_counts": re_.witness["counts"],
        "n_select": int(n_select),
        "n_certify": int(n_certify),
        "events_tried_float": fl.details["events_tried_in_selection"],
        "events_tried_real": re_.details["events_tried_in_selection"],
        "tester_seed": ts,
        "float_s": times["float"],
        "real_s": times["real"],
    }
    t2 = time.perf_counter()
    row["bit_check"] = bit_check(target.spec, q, qp, w["event_spec"], n_direct, ts + 1) \
        if fl.violates else None
    row["bit_check_s"] = time.perf_counter() - t2
    row["duration_s"] = time.perf_counter() - t0
    return row


def _scope(row: dict[str, Any], target: FloatTarget) -> str:
    return (f"{len(target.pairs)} {row['relation']} query-answer pairs ("
            + "; ".join(f"{list(q)} vs {list(qp)}" for q, qp, _ in target.pairs)
            + f"); {row['n_select']:,} selection + {row['n_certify']:,} certification draws "
            f"per data set; {row['events_tried_float']} candidate events including the float64 "
            "bit-level families (binade + last 1-3 mantissa bits, float32-representability, "
            f"repeated values); one certified event, Clopper-Pearson at {CONFIDENCE:.0%} "
            f"confidence with Bonferroni factor 2; tester seed {row['tester_seed']}; "
            + ("a flag is a false alarm with probability <= 10%" if row["flagged"] else
               "bit-level event families only; not a proof"))


def _counterexample(row: dict[str, Any], target: FloatTarget) -> dict[str, Any]:
    inputs = {"target": target.key, "mechanism": target.spec,
              "pairs": [[list(q), list(qp)] for q, qp, _ in target.pairs],
              "relation": row["relation"],
              "tester": {"n_select": row["n_select"], "n_certify": row["n_certify"],
                         "confidence": CONFIDENCE, "certify": "best", "float_grid": True},
              "tester_seed": row["tester_seed"]}
    actual = {"epsilon_lower": row["epsilon_lower_float"], "event": row["event"],
              "event_spec": row["event_spec"], "pair": row["pair"],
              "direction": row["direction"], "counts": row["counts"]}
    c = row["counts"]
    return counterexample_document(
        CHECK, "kernels:kernels.freegap.mechanisms", inputs,
        {"epsilon_lower_at_most": row["claimed_epsilon"]}, actual, None,
        f"the black-box tester with float64 bit events certifies (at {CONFIDENCE:.0%} "
        f"confidence) epsilon >= {row['epsilon_lower_float']:.4f} > claimed "
        f"{row['claimed_epsilon']:g} with the event '{row['event']}' on q = "
        f"{row['pair']['q']} vs q' = {row['pair']['q_prime']} (counts {c['first']} vs "
        f"{c['second']} of {c['n']:,}); real-number events alone certify "
        f"{row['epsilon_lower_real']:.4f}",
    )


def finding_for(row: dict[str, Any], target: FloatTarget, seed: int) -> Finding:
    eps = row["claimed_epsilon"]
    text = (f"{target.title} as computed in float64 (kernels/freegap.py) is {eps:g}-DP under "
            f"{row['relation']} neighbours ({target.reference}): no bit-level event certifies "
            f"epsilon above the claim")
    keep = ("claimed_epsilon", "epsilon_lower_float", "epsilon_lower_real", "flagged",
            "real_flagged", "event", "event_spec", "event_family", "direction", "pair",
            "counts", "real_event", "real_pair_index", "real_counts", "n_select", "n_certify",
            "events_tried_float", "events_tried_real", "tester_seed", "bit_check", "float_s",
            "real_s", "bit_check_s")
    ev = {k: row[k] for k in keep}
    ev["pairs"] = [{"q": list(q), "q_prime": list(qp), "description": d}
                   for q, qp, d in target.pairs]
    ev["guarantee"] = (f"with probability >= {CONFIDENCE} over the tester's sampling the "
                       "float64 mechanism's true epsilon is >= epsilon_lower_float; not "
                       "flagged is not a proof of privacy")
    if row["flagged"]:
        verdict, cx = Verdict.REFUTED, _counterexample(row, target)
        if row["real_flagged"] or row["event_family"] != "float-grid":
            ev["note"] = ("the real-number events are flagged as well (or the certified event "
                          "is not a bit event): not a bit-level leak - a false alarm "
                          "(<= 10%) or a real-number defect; see freegap.blackbox")
        else:
            ev["explanation"] = target.explanation
    else:  # sampled: no bit-level violation found
        verdict, cx = Verdict.NOT_REFUTED, None
    return Finding(
        id=f"{CHECK}.{target.key}", claim=text, reference=target.reference,
        method=Method.EMPIRICAL, verdict=verdict, scope=_scope(row, target), evidence=ev,
        counterexample=cx, seed=seed, duration_s=row["duration_s"],
        subject="kernels:kernels.freegap.mechanisms",
    )


@claim(CHECK, "Free-gap mechanisms in float64: bit-level events (black-box, float_grid)",
       "search", paper=PAPER)
def float_bits(budget_s: float, seed: int) -> list[Finding]:
    """One Finding per mechanism, then one per snapped twin (see the module docstring)."""
    ns, nc = sizes_for(budget_s)
    f = min(1.0, max(0.0, float(budget_s)) / FULL_BUDGET_S)
    nd = max(N_DIRECT_MIN, int(round(N_DIRECT_FULL * f, -4)))
    out = []
    for t in [*targets(), *snapped_targets()]:
        out.append(finding_for(run_target(t, ns, nc, seed, nd), t, seed))
    return out


@replayer(CHECK)
def replay_float_bits(inputs: dict) -> tuple[bool, Any, Any, str]:
    """Re-run the float-grid tester with the stored mechanism, pairs, settings and seed."""
    mech = build_mechanism(inputs["mechanism"])
    pairs = _pairs([(tuple(q), tuple(qp), "") for q, qp in inputs["pairs"]], mech.relation)
    st = inputs["tester"]
    tester = BlackBoxTester(n_select=int(st["n_select"]), n_certify=int(st["n_certify"]),
                            confidence=float(st["confidence"]), certify=st["certify"],
                            float_grid=bool(st["float_grid"]), name="blackbox-float",
                            families=FAMILIES, heldout_selection=False)
    res = tester.run(mech, pairs, np.random.default_rng(int(inputs["tester_seed"])))
    w = res.witness
    return (bool(res.violates), f"epsilon_lower <= {res.claimed_epsilon:g}",
            res.epsilon_lower,
            f"{inputs.get('target', mech.name)}: event '{w['event']}' on pair "
            f"{int(w['pair_index'])}, counts {w['counts']}, {w['direction']}")

