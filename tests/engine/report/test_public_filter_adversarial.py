"""The public-report filter on adversarial report shapes, and the writer's own check of it
(issue 39).

A filter edit that leaves today's report shapes unchanged but lets a secret through in
another shape passed every command.  Here a secret sits in every kind of confidential slot
at every nesting depth and in every container type (lists of dicts, tuples, figure series,
notes); the public view's serialised bytes must not contain it.  Then the writer's in-run
check (:mod:`audit.report.public_check`) is shown to refuse a broken filter: each mutant of
``public_view`` below is caught by structure or by the canary, and nothing is written.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from audit.findings import Finding, Method, Verdict
from audit.report import confidentiality as conf
from audit.report import writer
from audit.report.public_check import PublicViewLeak, plant_canary, structural_problems
from audit.report.writer import build_report, canonical_json, write_report

SECRET = "s3cr3t-record-4711.25"


def _nest(depth: int, kind: str) -> object:
    """``{"confidential": SECRET}`` buried ``depth`` levels deep in containers of ``kind``."""
    obj: object = {"confidential": {"value": SECRET, "n": 4711.25}}
    for _ in range(depth):
        obj = {"list": [obj], "tuple": (obj,), "dict": {"x": obj}}[kind]
    return obj


SHAPES = list(itertools.product(range(4), ["list", "tuple", "dict"]))


def _report(evidence: dict, params: dict | None = None) -> dict:
    f = Finding(id="t.leak", claim="c", reference="r", method=Method.EMPIRICAL,
                verdict=Verdict.NOT_REFUTED, scope="s", evidence=evidence,
                confidential={"pairs": [{"x": SECRET}], "note": (SECRET,)}, duration_s=4711.25)
    rep = build_report("test", "subj", 0, [f], params or {}, "2026-01-01T00:00:00+00:00", True,
                       confidential_data=True)
    rep["figures"] = [
        {"id": "fig.data", "title": SECRET, "kind": "line",
         "series": [{"label": SECRET, "x": [1, 2], "y": [4711.25, 1]}]},
        {"id": "fig.public", "title": "budget", "kind": "line", "confidentiality": "public",
         "series": [{"label": "budget", "x": [1, 2], "y": [1, 2]}]}]
    return rep


@pytest.mark.parametrize("depth, kind", SHAPES)
def test_no_secret_at_any_depth_or_container(depth: int, kind: str) -> None:
    rep = _report({"notes": [_nest(depth, kind)], "kept": 1},
                  {"extra": _nest(depth, kind)})
    text = canonical_json(conf.public_view(rep))
    assert SECRET not in text and "4711.25" not in text
    assert structural_problems(json.loads(text)) == []
    assert '"kept": 1' in text  # the filter is not simply dropping everything


def test_the_planted_report_carries_the_canary_in_every_slot() -> None:
    rep = _report({"notes": [_nest(2, "tuple")]})
    planted, token, number = plant_canary(rep)
    full = canonical_json(planted)
    # every slot the filter must remove now holds the canary: the check has something to find
    assert full.count(token) >= 5 and repr(number) in full
    assert token not in canonical_json(conf.public_view(planted))


def _strip_shallow(obj, depth: int = 0):  # noqa: ANN001, ANN202 - the mutant: stops at depth 3
    if isinstance(obj, dict):
        return {k: (_strip_shallow(v, depth + 1) if depth < 3 else v)
                for k, v in obj.items() if k != conf.MARK}
    if isinstance(obj, list):
        return [_strip_shallow(v, depth + 1) if depth < 3 else v for v in obj]
    return obj


def _keep_duration(f: dict) -> dict:
    out = {k: v for k, v in f.items() if k not in (conf.MARK, "counterexample")}
    out["evidence"] = conf._strip(out.get("evidence") or {})
    out["counterexample"] = None
    return out


def _keep_figures_of(report: dict) -> dict:
    out = ORIGINAL(report)
    out["figures"] = report.get("figures")
    return out


ORIGINAL = conf.public_view


@pytest.mark.parametrize("name, repl", [
    ("_strip", _strip_shallow),
    ("_public_finding", _keep_duration),
    ("public_view", _keep_figures_of),
])
def test_the_writer_refuses_a_broken_filter(name: str, repl, tmp_path: Path,  # noqa: ANN001
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    rep = _report({"notes": [_nest(2, "tuple")]})
    write_report(tmp_path / "ok", rep)  # the shipped filter passes its own check
    monkeypatch.setattr(conf, name, repl)
    if name == "public_view":
        monkeypatch.setattr(writer, "public_view", repl)
    with pytest.raises(PublicViewLeak, match="nothing written"):
        write_report(tmp_path / "bad", rep)
    assert not (tmp_path / "bad").exists()
