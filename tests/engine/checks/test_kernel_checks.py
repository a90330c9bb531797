"""The engine's kernel-check runner (audit.checks.kernel) on a toy kernel whose bugs are
known by construction: verdict rules (exhaustive list -> verified, sampled -> not-refuted,
missing function -> inconclusive), Hypothesis find-and-shrink, one counterexample per
failure class, one-sided evidence, replay; and the scripted generator (audit.checks.probe)."""

from __future__ import annotations

import types

import numpy as np
import pytest
from hypothesis import strategies as st

from audit.checks.kernel import (
    Context,
    KernelCheck,
    KernelSuite,
    Listed,
    Outcome,
    Search,
    run_check,
)
from audit.checks.probe import ScriptedGenerator
from audit.findings import Method


def _square_ev(mod, case) -> Outcome:
    want = case["x"] * case["x"]  # the truth: exact integer square
    got = mod.square(case["x"])
    cls = "" if got == want else ("above" if got > want else "below")
    return Outcome(got == want, want, got, "x^2", cls=cls)


def _module(fn) -> types.ModuleType:
    m = types.ModuleType("toy")
    m.square = fn  # type: ignore[attr-defined]
    return m


def _check(cases) -> KernelCheck:
    return KernelCheck("toy.square", "square(x) = x^2", "arithmetic", Method.EXHAUSTIVE,
                       ("square",), _square_ev, cases, scope="x in the stated set")


LISTED = Listed(lambda seed, mode: [{"x": x} for x in range(-5, 6)], exhaustive=True)
SEARCH = Search(lambda ctx: st.fixed_dictionaries({"x": st.integers(-1000, 1000)}),
                examples=(200, 200))


def test_exhaustive_pass_is_verified_and_sampled_pass_not_refuted() -> None:
    ok = _module(lambda x: x * x)
    (f,) = run_check(_check(LISTED), ok, "t", Context())
    assert f.verdict.value == "verified" and f.evidence["cases"] == 11
    (g,) = run_check(_check(SEARCH), ok, "t", Context())
    assert g.verdict.value == "not-refuted" and g.evidence["inputs_checked"] >= 200
    sampled = Listed(LISTED.make)  # the same list, not declared exhaustive
    (h,) = run_check(_check(sampled), ok, "t", Context())
    assert h.verdict.value == "not-refuted"


def test_missing_function_is_inconclusive_never_a_pass() -> None:
    (f,) = run_check(_check(LISTED), types.ModuleType("empty"), "t", Context())
    assert f.verdict.value == "inconclusive" and f.evidence["missing"] == ["square"]


def test_search_shrinks_to_a_minimal_counterexample() -> None:
    bad = _module(lambda x: x * x + (1 if x >= 37 else 0))  # wrong from 37 upwards
    (f,) = run_check(_check(SEARCH), bad, "t", Context())
    assert f.verdict.value == "refuted"
    assert f.counterexample["inputs"] == {"x": 37}  # hypothesis shrinks to the boundary
    assert f.evidence["failure_class"] == "above"


def test_one_counterexample_per_failure_class_with_distinct_ids() -> None:
    def two_bugs(x):
        if x < -2:
            raise ZeroDivisionError("negative")
        return x * x - (1 if x > 3 else 0)

    fs = run_check(_check(LISTED), _module(two_bugs), "t", Context())
    assert {f.evidence["failure_class"] for f in fs} == {"raised-zerodivisionerror", "below"}
    assert fs[0].id == "toy.square" and len({f.id for f in fs}) == 2
    assert all(f.verdict.value == "refuted" for f in fs)


def test_one_sided_evidence_counts_the_unsafe_side() -> None:
    def ev(mod, case):  # safe side: above the bound 10
        v = mod.square(case["x"])
        gap = (v - 10) / 10
        return Outcome(v >= 10, 10, v, "", gap=gap, cls="" if v >= 10 else "below")

    chk = KernelCheck("toy.bound", "square(x) >= 10", "toy", Method.EXHAUSTIVE, ("square",), ev,
                      Listed(lambda s, m: [{"x": 4}, {"x": 5}], exhaustive=True),
                      one_sided="above", report_tightest=True)
    (f,) = run_check(chk, _module(lambda x: x * x), "t", Context())
    assert f.evidence["below_exact"] == 0
    assert f.evidence["smallest_relative_gap"] == pytest.approx(0.6)
    (g,) = run_check(chk, _module(lambda x: x), "t", Context())
    assert g.verdict.value == "refuted" and g.evidence["below_exact"] == 2


def test_replay_recomputes_and_reports_passes_now() -> None:
    suite = KernelSuite(protocol={"square": "square(x)"}, default_kernels="toy",
                        checks=[_check(LISTED)])
    (f,) = run_check(_check(LISTED), _module(lambda x: x * x + 1), "t", Context())
    still, lines = suite.replay(f.counterexample, _module(lambda x: x * x + 1))
    assert still and lines[0].startswith("replay toy.square")
    assert suite.replay(f.counterexample, _module(lambda x: x * x))[0] is False
    assert suite.replay({"check": "other", "inputs": {}}, _module(abs)) is None


def test_scripted_generator_reveals_scales_and_refuses_other_draws() -> None:
    g = ScriptedGenerator(z=[1.0, 0.25])
    assert isinstance(g, np.random.Generator)
    assert g.laplace(3.0, 2.0, 2).tolist() == [5.0, 5.0]  # first call: z = 1
    assert (g.laplace(0.0, 1.0, 1) * 8.0).tolist() == [2.0]  # second call: z = 0.25
    assert g.normal(1.0, 4.0) == 2.0  # the last z repeats
    assert g.random(3).tolist() == [0.5, 0.5, 0.5]
    with pytest.raises(NotImplementedError, match="exponential"):
        g.exponential(1.0)
