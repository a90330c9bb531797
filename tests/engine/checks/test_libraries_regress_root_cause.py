"""`regress` on a third party's kernel package: findings grouped by root cause, the most
severe class first, the input-mutation check per function.

Truths: a deliberately broken package written to a temporary folder, whose defects are
known by construction (one ZeroDivisionError at one line reached by six checks; one
ValueError elsewhere; one wrong value; one function that modifies its input).  Every check
here is deterministic (listed cases), so no false-alarm rate applies.
"""

from __future__ import annotations

import importlib
import json
import sys
import textwrap

import numpy as np
import pytest

from audit.checks.kernel import KernelCheck, Listed, Outcome, run_check, run_checks
from audit.checks.root_cause import group_by_root_cause
from audit.findings import Method, Verdict

BROKEN = textwrap.dedent('''
    """A third-party-style kernel package with known defects."""


    def ratio(x):
        return 1.0 / (len(x) - len(x))  # ZeroDivisionError on every input


    def checked(x):
        if len(x) > 1:
            raise ValueError("more than one record")
        return float(len(x))


    def double(x):
        return 2.0 * sum(x) + 1e-9  # wrong value (not a raise)
''')


@pytest.fixture
def broken(tmp_path, monkeypatch):
    pkg = tmp_path / "thirdparty_kernels"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(BROKEN)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("thirdparty_kernels", None)
    return importlib.import_module("thirdparty_kernels")


def _check(i: int, fn: str, expected) -> KernelCheck:
    def evaluate(mod, case):
        got = getattr(mod, fn)(case["x"])
        want = expected(case["x"])
        return Outcome(got == want, want, got, cls="mismatch")

    return KernelCheck(f"third.{fn}.{i}", f"{fn} is right ({i})", "by hand",
                       Method.CROSSCHECK, (fn,), evaluate,
                       Listed(lambda seed, mode, i=i: [{"x": [1.0] * (1 + i)},
                                                         {"x": [0.5, 0.25]}]))


def test_one_zero_division_under_six_checks_is_one_finding(broken):
    checks = [_check(i, "ratio", lambda x: 0.0) for i in range(6)]
    checks.append(_check(6, "checked", lambda x: float(len(x))))
    checks.append(_check(7, "double", lambda x: 2.0 * sum(x)))
    raw = run_checks(checks, broken, "kernels:thirdparty_kernels", _ctx())
    assert sum(f.verdict is Verdict.REFUTED for f in raw) == 8  # one per check before
    grouped = group_by_root_cause(raw)
    zd = [f for f in grouped if "ZeroDivisionError" in json.dumps(f.evidence, default=str)]
    assert len(zd) == 1
    rc = zd[0].evidence
    assert [c["id"] for c in rc["checks"]] == [f"third.ratio.{i}" for i in range(6)]
    assert rc["root_cause"]["exception"] == "ZeroDivisionError"
    assert rc["root_cause"]["raised_at"].endswith("in ratio")
    # each check keeps its own input; the merged finding replays the first one
    assert rc["checks"][5]["input"] == {"x": [1.0] * 6}
    assert zd[0].counterexample["check"] == "third.ratio.0"
    # the other root causes are separate, unchanged findings: 1 + 1 + 1
    assert len(grouped) == 3
    others = {f.id: f.evidence.get("failure_class") for f in grouped if f is not zd[0]}
    assert others == {"third.checked.6": "raised-valueerror", "third.double.7": "mismatch"}


def test_the_wrong_value_is_the_headline_not_the_crash(broken):
    # the first case raises, the second gives a wrong value: the check's own id must carry
    # the wrong value, the raise the suffixed id
    def evaluate(mod, case):
        got = mod.checked(case["x"])
        return Outcome(got == 7.0, 7.0, got, cls="below")

    chk = KernelCheck("third.headline", "checked is 7", "by hand", Method.CROSSCHECK,
                      ("checked",), evaluate,
                      Listed(lambda s, m: [{"x": [1.0, 2.0]}, {"x": [1.0]}]),
                      one_sided="above")
    got = run_check(chk, broken, "kernels:thirdparty_kernels", _ctx())
    assert [(f.id, f.evidence["failure_class"]) for f in got] == [
        ("third.headline", "below"), ("third.headline.raised-valueerror", "raised-valueerror")]


def test_mutation_check_runs_per_function():
    from proofs.gini.regress.evaluators import eval_no_mutation

    class Mod:  # gini raises; gini_eq1 modifies its input: the raise must not hide it
        @staticmethod
        def gini(x):
            raise ZeroDivisionError("boom")

        @staticmethod
        def gini_eq1(x):
            x[0] = 0.0
            return 0.5

    out = eval_no_mutation(Mod, {"x": [1.0, 2.0, 3.0], "L": 0.0, "U": 4.0, "k": 1})
    assert not out.ok and "gini_eq1 modified its input" in out.detail
    assert "gini (ZeroDivisionError: boom)" in out.detail

    class OnlyRaises:
        @staticmethod
        def gini(x):
            raise ZeroDivisionError("boom")

    out = eval_no_mutation(OnlyRaises, {"x": [1.0, 2.0], "L": 0.0, "U": 4.0, "k": 1})
    assert not out.ok and out.cls == "raised-ZeroDivisionError"  # never a silent pass
    assert out.where.endswith("in gini")


def test_mutation_check_applies_without_gini():
    from proofs.gini.regress.checks import check_by_id

    class NoGini:
        @staticmethod
        def smooth_sensitivity(x, L, U, beta):
            return float(np.max(x))

    chk = check_by_id("input.no-mutation-order-free")
    got = run_check(chk, NoGini, "kernels:nogini", _ctx())
    assert "not applicable" not in got[0].scope and got[0].verdict is Verdict.NOT_REFUTED


def test_cli_regress_groups_the_broken_gini_package(tmp_path, monkeypatch, capsys):
    from audit.cli import main

    (tmp_path / "thirdparty_gini.py").write_text(textwrap.dedent('''
        from kernels.gini.api import *  # noqa: F401,F403
        from kernels.gini import api as _api

        DPAUDIT_SUBJECT = "lan-reiter-2025"


        def gini(x):
            return _api.gini(x) / (len(x) - len(x))
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "rep"
    code = main(["regress", "--kernels", "thirdparty_gini", "--only", "gini.eq2",
                 "--out", str(out), "--run-id", "r"])
    assert code == 1
    rep = json.loads((out / "r" / "report.json").read_text())
    refuted = [f for f in rep["findings"] if f["verdict"] == "refuted"]
    assert len(refuted) == 1  # every failure class of the check is the one raise
    ev = refuted[0]["evidence"]
    assert ev["root_cause"]["exception"] == "ZeroDivisionError"
    assert ev["grouped_checks"] == len(ev["checks"]) >= 2


def _ctx():
    from audit.checks.kernel import Context

    return Context(seed=0, mode="quick")
