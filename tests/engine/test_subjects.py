"""Subjects are plug-ins: a throw-away package declares a subject through the entry-point
group ``dpaudit.subjects`` (a real ``*.dist-info/entry_points.txt`` on ``sys.path``, read by
``importlib.metadata`` exactly as for an installed wheel), and ``dpaudit subjects``,
``prove --paper``, ``search --paper`` and ``replay`` work on it; a broken plug-in is reported
with its package name and does not stop the others."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from audit import registry
from audit.cli import main
from audit.cli.outcomes import EXIT_BAD_INPUT, EXIT_FINDINGS, EXIT_OK

SUBJECT_SRC = '''
import functools
from fractions import Fraction

from audit import registry
from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.registry import Subject

NAME = "toy-paper"
claim = functools.partial(registry.claim, paper=NAME)

SUBJECT = Subject(name=NAME, paper="A. Toy, Sums of small integers (2026)",
                  modules=("toy_subject.claims",))
'''

CLAIMS_SRC = '''
from fractions import Fraction

from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.registry import replayer
from toy_subject import claim


def _sum_to(n):
    return sum(range(n + 1))


@claim("toy.gauss", "Lemma 1: 0 + 1 + ... + n = n(n+1)/2", "prove")
def gauss(budget_s, seed):
    ok = all(_sum_to(n) == n * (n + 1) // 2 for n in range(50))
    return [Finding(id="toy.gauss", claim="Lemma 1", reference="Toy (2026), Lemma 1",
                    method=Method.EXHAUSTIVE, verdict=Verdict.VERIFIED if ok else Verdict.REFUTED,
                    scope="n = 0..49", evidence={"n_checked": 50}, seed=seed,
                    subject="paper:toy-paper")]


@replayer("toy.typo")
def replay_typo(inputs):
    n = inputs["n"]
    return _sum_to(n) != n * n // 2, _sum_to(n), n * n // 2, "printed n^2/2"


@claim("toy.typo", "Lemma 2 as printed: 0 + ... + n = n^2/2", "search")
def typo(budget_s, seed):
    n = next(n for n in range(1, 50) if _sum_to(n) != n * n // 2)
    cx = counterexample_document("toy.typo", "paper:toy-paper", {"n": n}, _sum_to(n),
                                 n * n // 2, None, "printed n^2/2")
    return [Finding(id="toy.typo", claim="Lemma 2 as printed", reference="Toy (2026), Lemma 2",
                    method=Method.EXHAUSTIVE, verdict=Verdict.REFUTED, scope="n = 1..49",
                    counterexample=cx, seed=seed, subject="paper:toy-paper",
                    reading="as printed: n^2/2")]
'''


def _dist(root: Path, dist: str, entry: str) -> None:
    info = root / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[dpaudit.subjects]\n{entry}\n")


@pytest.fixture()
def toy_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    site = tmp_path / "site"
    pkg = site / "toy_subject"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent(SUBJECT_SRC))
    (pkg / "claims.py").write_text(textwrap.dedent(CLAIMS_SRC))
    _dist(site, "toy_subject", "toy-paper = toy_subject:SUBJECT")
    broken = site / "broken_subject"
    broken.mkdir()
    (broken / "__init__.py").write_text("raise RuntimeError('this plug-in is broken')\n")
    _dist(site, "broken_subject", "broken = broken_subject:SUBJECT")
    monkeypatch.syspath_prepend(str(site))
    registry.rediscover()
    yield tmp_path
    for m in [m for m in sys.modules if m.startswith(("toy_subject", "broken_subject"))]:
        del sys.modules[m]
    registry.CLAIMS[:] = [c for c in registry.CLAIMS if c.paper != "toy-paper"]
    registry.REPLAYERS.pop("toy.typo", None)
    registry.rediscover()


def test_subjects_lists_plugin_and_names_the_broken_package(toy_env, capsys) -> None:
    code = main(["subjects"])
    out = capsys.readouterr().out
    assert "toy-paper" in out and "A. Toy, Sums of small integers" in out
    assert "prove 1, search 1" in out
    # the shipped subjects are still there: a broken plug-in stops nothing
    assert "lan-reiter-2025" in out and "ding-et-al-free-gap" in out
    assert "broken_subject" in out and "this plug-in is broken" in out
    assert "Traceback" not in out
    assert code == EXIT_FINDINGS  # a subject failed to load: non-zero, but listed


def test_prove_search_and_replay_on_plugin(toy_env, capsys) -> None:
    out = toy_env / "reports"
    assert main(["prove", "--paper", "toy-paper", "--budget", "5", "--out", str(out),
                 "--run-id", "p"]) == EXIT_OK
    rep = json.loads((out / "p" / "report.json").read_text())
    assert [f["verdict"] for f in rep["findings"]] == ["verified"]
    # --subject is the option; --paper its alias
    assert main(["search", "--subject", "toy-paper", "--budget", "5", "--out", str(out),
                 "--run-id", "s"]) == EXIT_OK
    rep = json.loads((out / "s" / "report.json").read_text())
    assert [f["verdict"] for f in rep["findings"]] == ["refuted"]
    cx = out / "s" / "counterexamples" / "toy.typo.json"
    capsys.readouterr()
    assert main(["replay", str(cx)]) == EXIT_FINDINGS
    shown = capsys.readouterr().out
    assert "STILL FAILS" in shown and "toy.typo" in shown
    assert main(["prove", "--paper", "toy-paper", "--list"]) == EXIT_OK
    assert "toy.gauss" in capsys.readouterr().out
    # the subject owns its claims and replayers
    toy = registry.subjects()["toy-paper"]
    assert sorted(c.qualified_key for c in toy.claims()) == ["toy-paper:toy.gauss",
                                                              "toy-paper:toy.typo"]
    assert list(toy.replayers()) == ["toy.typo"]
    assert "toy.typo" not in registry.subjects()["lan-reiter-2025"].replayers()


def test_unknown_paper_is_bad_input(toy_env, capsys) -> None:
    assert main(["prove", "--paper", "no-such-paper"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no-such-paper" in err[0] and "toy-paper" in err[0]
