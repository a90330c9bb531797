"""The k = 2 and k = 3 steps of the proof of Theorem 4.1 (Lan & Reiter, Appendix A.2), each
tested itself: 'we obtain this set by removing the n - 2 consecutive values from X excluding x_1
and x_n', 'this is done by including either x_2 or x_{n-1}' and 'thus, we obtain Q by removing
n - 3 consecutive interior elements from X'.

Exhaustive and exact (Fractions, eq. (2) by :func:`proofs.gini.oracles.gini2`) on every
multiset of size 3..6 drawn from {1, 2, 3, 5, 8} (:func:`proofs.gini.claims_appendix.data_sets`),
the k-maximal value being the brute-force maximum over every k-subset.
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction as Q
from typing import Any

from audit.falsifiability import twin
from audit.findings import Finding, Method, Verdict, counterexample_document, from_jsonable
from audit.registry import replayer
from proofs.gini import NAME, claim, oracles
from proofs.gini.claims_appendix import SCOPE, data_sets
from proofs.text_findings import SPLIT, exhaustive_step_finding, paper_finding

SUBJECT = f"paper:{NAME}"
REF = "Lan & Reiter 2025, Appendix A.2 (proof of Theorem 4.1)"


def k_max(x: list[Q], k: int) -> Q:
    """The largest eq.-(2) Gini index over every k-subset of ``x`` (brute force)."""
    vals = (oracles.gini2([x[i] for i in idx]) for idx in itertools.combinations(range(len(x)), k))
    return max(v for v in vals if v is not None)


def third_element_violation(x: list[Q], which: str) -> dict | None:
    """The 3-subset {x_1, third, x_n} for ``which`` = "second" (x_2), "penultimate" (x_{n-1}),
    "interior-block" (n - 3 consecutive interior elements removed: x_2 or x_{n-1}, the better)
    or "middle" (x_{n//2}: the twin) -- is it 3-maximal?"""
    n = len(x)
    picks = {"second": [1], "penultimate": [n - 2], "interior-block": [1, n - 2],
             "middle": [n // 2]}[which]
    got = max(oracles.gini2([x[0], x[i], x[-1]]) or Q(0) for i in picks)
    best = k_max(x, 3)
    return None if got == best else {"data": [str(v) for v in x], "which": which,
                                     "subset_gini": str(got), "three_maximal": str(best)}


def two_maximal_violation(x: list[Q], twin_pair: bool = False) -> dict | None:
    """{x_1, x_n} (removing the n - 2 consecutive values between them) is 2-maximal?
    ``twin_pair``: the twin {x_1, x_2} instead."""
    pair = [x[0], x[1]] if twin_pair else [x[0], x[-1]]
    got, best = oracles.gini2(pair) or Q(0), k_max(x, 2)
    return None if got == best else {"data": [str(v) for v in x], "pair_gini": str(got),
                                     "two_maximal": str(best)}


def _decoded(inputs: dict) -> tuple[dict, list[Q]]:
    """A replayer's inputs (raw JSON or decoded) and their sorted data set."""
    inputs = from_jsonable(inputs)
    return inputs, sorted(Q(v) for v in inputs["data"])


def _first(data: list[list[Q]], check: Any) -> dict | None:
    return next((v for x in data if len(x) >= 4 and (v := check(x)) is not None), None)


@claim("text.a2.small-k-steps", "Appendix A.2, proof of Theorem 4.1 for k = 2, 3: remove the "
       "n - 2 values between x_1 and x_n; 'including either x_2 or x_{n-1}'; remove n - 3 "
       "consecutive interior elements (exhaustive, exact)", "prove",
       reference="Appendix A.2")
def small_k_steps(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    data = data_sets()
    scope = SCOPE.format(count=len(data)) + "; sizes n >= 4 (n = 3 leaves no choice)"
    two_bad = _first(data, two_maximal_violation)
    two_twin = _first(data, lambda x: two_maximal_violation(x, True))
    block_bad = _first(data, lambda x: third_element_violation(x, "interior-block"))
    block_twin = _first(data, lambda x: third_element_violation(x, "middle"))
    out = [
        exhaustive_step_finding(
            id="text.a2.two-maximal-removal",
            claim="Appendix A.2: 'the 2-maximal subset Q includes x_1 and x_n ... We obtain this "
                  "set by removing the n - 2 consecutive values from X excluding x_1 and x_n'",
            reference=REF, subject=SUBJECT, violation=two_bad,
            twin=twin("the pair {x_1, x_2} claimed 2-maximal instead", "refuted" if two_twin
                      else "not-refuted", witness=two_twin),
            scope=scope, evidence={"violation": two_bad}, seed=seed, started=t0,
            vacuous_reason="{x_1, x_2} was 2-maximal too everywhere"),
        exhaustive_step_finding(
            id="text.a2.three-maximal-removal",
            claim="Appendix A.2: 'Thus, we obtain Q by removing n - 3 consecutive \"interior\" "
                  "elements from X' (the 3-maximal subset is {x_1, x_2, x_n} or {x_1, x_{n-1}, "
                  "x_n})",
            reference=REF, subject=SUBJECT, violation=block_bad,
            twin=twin("the third element taken in the middle (x_{n//2})", "refuted"
                      if block_twin else "not-refuted", witness=block_twin),
            scope=scope, evidence={"violation": block_bad}, seed=seed, started=t0,
            vacuous_reason="the middle element was as good everywhere")]
    either = {w: _first(data, lambda x, w=w: third_element_violation(x, w))
              for w in ("second", "penultimate")}
    readings = {"(a) 'either' as 'each of': {x_1, x_2, x_n} and {x_1, x_{n-1}, x_n} are both "
                "3-maximal": "refuted" if any(either.values()) else "holds",
                "(b) 'either' as 'one of them' (the better one)":
                    "refuted" if block_bad else "holds"}
    first = either["penultimate"] or either["second"]
    # the numerator of (58) over {x_1, y, x_n}: 2(|x_1 - y| + |y - x_n| + |x_n - x_1|)
    numerators = {x_: {2 * (abs(x_[0] - y) + abs(y - x_[-1]) + abs(x_[-1] - x_[0]))
                       for y in x_[1:-1]} for x_ in map(tuple, data) if len(x_) >= 4}
    constant = all(len(v) == 1 for v in numerators.values())
    verdict = (Verdict.VERIFIED if not first else SPLIT if not block_bad else Verdict.REFUTED)
    out.append(paper_finding(
        id="text.a2.three-maximal-either",
        claim="Appendix A.2: 'When adding a third element, we want to make the numerator as large "
              "as possible ... This is done by including either x_2 or x_{n-1}' -- for every "
              "third element y between x_1 and x_n the numerator of (58) is the same, "
              "4 (x_n - x_1); only the mean differs, so the smaller third element wins",
        reference=REF, method=Method.EXHAUSTIVE,
        reading=next(iter(readings)) if first else "", verdict=verdict, scope=scope,
        evidence={"readings": readings, "violations": either,
                  "numerator_constant_over_third_element": constant},
        counterexample=counterexample_document(
            "text.a2.three-maximal-either", SUBJECT, {"data": first["data"],
                                                      "which": first["which"]},
            first["three_maximal"], first["subset_gini"], None) if first else None,
        seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT))
    return out


@replayer("text.a2.three-maximal-either")
def replay_either(inputs: dict) -> tuple[bool, Any, Any, str]:
    inputs, x = _decoded(inputs)
    v = third_element_violation(x, inputs.get("which", "penultimate"))
    return v is not None, v and v["three_maximal"], v and v["subset_gini"], f"{v}"


@replayer("text.a2.three-maximal-removal")
def replay_block(inputs: dict) -> tuple[bool, Any, Any, str]:
    inputs, x = _decoded(inputs)
    v = third_element_violation(x, "interior-block")
    return v is not None, v and v["three_maximal"], v and v["subset_gini"], f"{v}"


@replayer("text.a2.two-maximal-removal")
def replay_two(inputs: dict) -> tuple[bool, Any, Any, str]:
    inputs, x = _decoded(inputs)
    v = two_maximal_violation(x)
    return v is not None, v and v["two_maximal"], v and v["pair_gini"], f"{v}"
