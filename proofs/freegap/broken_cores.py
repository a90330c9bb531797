"""The broken Sparse-Vector variants' explicit-noise cores compute the mechanisms they state.

Each broken SVT core of :mod:`kernels.freegap.broken` differs from classical Sparse Vector
by the one defect its docstring states (no threshold noise: eta = 0; no query noise: nu = 0,
no halting unless c is given; no halting: c = infinity; Lee & Clifton: the same core, only
the sampler's scales differ; release value: each T-answer carries q_i + nu_i).  ``dpaudit
prove`` replays its alignment counterexamples through these cores and the witnesses'
exact losses are stated for these mechanisms, so a core that computes something else (one
answer past the halt, a flipped comparison) makes every replay run another mechanism.

Reference: :func:`proofs.freegap.regress.ref_svt`, our step-by-step transcription of
classical SVT (Lyu, Su & Li 2017, Alg. 1), with the stated defect applied to its inputs.
Cases: seeded random (q, T, eta, nu, c) with n = 3..8 queries, c = 1..3, q and the noises
drawn so that most runs reach the c-th T-answer before the last query (the halt is
exercised: the count is reported, and a run that never exercised it is ``vacuous``).  The
comparison is exact: both sides evaluate ``q_i + nu_i >= T + eta`` in IEEE doubles.  Drawn
cases, so at most ``not-refuted`` (never ``verified``).

Twin (it shows the comparison can fail): the correct core
:func:`kernels.freegap.mechanisms.sparse_vector_core` (threshold noise kept) compared as if
it were the no-threshold-noise variant must disagree on some case.  Nothing here prints or
writes files.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from audit import falsifiability
from audit.findings import Finding, Method, Verdict, counterexample_document
from kernels.freegap import broken as fb
from kernels.freegap import mechanisms as fg
from proofs.freegap.regress import ref_svt

__all__ = ["CASES", "CHECK_ID", "CORES", "check_broken_cores", "mismatches", "reference",
           "replay_broken_core"]

CHECK_ID = "freegap.broken-cores.svt"
#: random cases per variant
CASES = 150
_NEVER = 10**9  # "no halting": more T-answers than any case has queries

_Case = dict[str, Any]


def _cases(seed: int) -> list[_Case]:
    rng = np.random.default_rng([seed, 20261129])
    out = []
    for _ in range(CASES):
        n = int(rng.integers(3, 9))
        out.append({"q": [float(v) for v in rng.uniform(-1.0, 2.0, n)],
                    "T": float(rng.uniform(0.0, 1.0)), "eta": float(rng.laplace(0.0, 0.5)),
                    "nu": [float(v) for v in rng.laplace(0.0, 1.0, n)],
                    "c": int(rng.integers(1, 4))})
    return out


def reference(variant: str, c: _Case) -> list[Any]:
    """The variant's output on case ``c`` by :func:`ref_svt` with the stated defect."""
    q, T, eta, nu, k = c["q"], c["T"], c["eta"], c["nu"], c["c"]
    if variant == "svt_no_threshold_noise":
        return ref_svt(q, T, 0.0, nu, k)
    if variant == "svt_no_query_noise":
        return ref_svt(q, T, eta, [0.0] * len(q), k)
    if variant == "svt_no_query_noise_no_halting":
        return ref_svt(q, T, eta, [0.0] * len(q), _NEVER)
    if variant == "svt_no_halting":
        return ref_svt(q, T, eta, nu, _NEVER)
    if variant == "svt_lee_clifton":
        return ref_svt(q, T, eta, nu, k)
    if variant == "svt_release_value":
        codes = ref_svt(q, T, eta, nu, k)
        return [q[i] + nu[i] if top else None for i, top in enumerate(codes)]
    raise KeyError(variant)


#: variant -> its kernel core run on a case
CORES: dict[str, Callable[[_Case], list[Any]]] = {
    "svt_no_threshold_noise": lambda c: fb.svt_no_threshold_noise_core(
        c["q"], c["T"], c["nu"], c["c"]),
    "svt_no_query_noise": lambda c: fb.svt_no_query_noise_core(c["q"], c["T"], c["eta"], c["c"]),
    "svt_no_query_noise_no_halting": lambda c: fb.svt_no_query_noise_core(
        c["q"], c["T"], c["eta"]),
    "svt_no_halting": lambda c: fb.svt_no_halting_core(c["q"], c["T"], c["eta"], c["nu"]),
    "svt_lee_clifton": lambda c: fb.svt_lee_clifton_core(c["q"], c["T"], c["eta"], c["nu"],
                                                          c["c"]),
    "svt_release_value": lambda c: fb.svt_release_value_core(c["q"], c["T"], c["eta"], c["nu"],
                                                             c["c"]),
}


def mismatches(cores: dict[str, Callable[[_Case], list[Any]]], seed: int
               ) -> tuple[list[dict[str, Any]], int]:
    """(every (variant, case) whose core output differs from :func:`reference`, the number
    of cases whose reference halted before the last query)."""
    bad, halted = [], 0
    for c in _cases(seed):
        halted += len(ref_svt(c["q"], c["T"], c["eta"], c["nu"], c["c"])) < len(c["q"])
        for variant, core in cores.items():
            got, want = list(core(c)), reference(variant, c)
            if got != want:
                bad.append({"variant": variant, "case": c, "core": got, "reference": want})
    return bad, halted


def replay_broken_core(inp: dict) -> tuple[bool, Any, Any, str]:
    """Re-run one stored (variant, case): still fails while the core differs."""
    variant = str(inp.get("variant"))
    if variant not in CORES:
        raise ValueError(f"unknown broken SVT variant {variant!r}")
    case = {k: inp[k] for k in ("q", "T", "eta", "nu", "c")}
    got, want = list(CORES[variant](case)), reference(variant, case)
    return got != want, want, got, f"{variant} core vs classical SVT with its stated defect"


def check_broken_cores(seed: int) -> Finding:
    """The Finding: every broken SVT core equals its stated mechanism on every drawn case
    (``not-refuted``, with the halt exercised and the twin refuted; else ``vacuous``), or
    ``refuted`` with the first mismatch."""
    t0 = time.perf_counter()
    bad, halted = mismatches(CORES, seed)
    twin_bad, _ = mismatches({"svt_no_threshold_noise": lambda c: fg.sparse_vector_core(
        c["q"], c["T"], c["eta"], c["nu"], c["c"])}, seed)
    tw = falsifiability.twin(
        "the correct SVT core (threshold noise kept) compared as the no-threshold-noise "
        "variant", "refuted" if twin_bad else "not-refuted",
        witness=twin_bad[0]["case"] if twin_bad else None,
        margin={"mismatches": len(twin_bad), "of": CASES} if twin_bad else None)
    verdict = falsifiability.decide_sampled(
        bool(bad), halted > 0, tw, refuted=Verdict.REFUTED,
        vacuous_reason="no case reached the halt, or the twin agreed: the comparison could "
        "not fail in this scope")
    cx = None
    if bad:
        b = bad[0]
        cx = counterexample_document(CHECK_ID, "kernels:kernels.freegap.broken",
                                     {"variant": b["variant"], **b["case"]}, b["reference"],
                                     b["core"], None,
                                     f"{b['variant']}_core differs from classical SVT with its "
                                     "stated defect")
    return Finding(
        id=CHECK_ID,
        claim="the broken Sparse-Vector variants' explicit-noise cores compute the mechanisms "
        "they state (classical SVT with one defect each), the ones the witnesses and the "
        "alignment replays are about",
        reference="kernels/freegap/broken.py docstrings; Lyu, Su & Li 2017, Alg. 1 "
        "(proofs.freegap.regress.ref_svt)",
        method=Method.SAMPLED, verdict=verdict,
        scope=f"{len(CORES)} cores x {CASES} seeded random cases (n = 3..8 queries, c = 1..3; "
        f"{halted} cases halt before the last query); exact comparison of outputs; twin (the "
        f"correct core as the no-threshold variant) differs on {len(twin_bad)}",
        evidence={"cores": sorted(CORES), "cases": CASES, "halted_early": halted,
                  "mismatches": len(bad), "twin": tw, "must_hold": True},
        counterexample=cx, seed=seed, duration_s=time.perf_counter() - t0,
        subject="kernels:kernels.freegap.broken")
