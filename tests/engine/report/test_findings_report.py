"""Finding data model, counterexample documents, report building, rendering and atomic writes."""

from __future__ import annotations

import json
import math
import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from audit.findings import (
    COUNTEREXAMPLE_SCHEMA,
    Finding,
    Method,
    Verdict,
    counterexample_document,
    from_jsonable,
    to_jsonable,
)
from audit.report import (
    REPORT_SCHEMA,
    atomic_write_text,
    build_report,
    canonical_json,
    render_markdown,
    render_summary_table,
    strip_timings,
    write_report,
)
from audit.report import writer as writer_module


def _cx(check_id: str = "toy.sum.as-printed") -> dict:
    return counterexample_document(
        check_id,
        "kernels:toy.printed",
        {"x": (Fraction(1, 3), 2.5, np.float64(7.0)), "k": np.int64(2)},
        expected=Fraction(2, 7),
        actual=0.2857142,
        tolerance={"rtol": 1e-9, "atol": 0},
        note="window starts one record too late",
    )


def _verified(fid: str = "toy.sum.vs-reference", duration: float = 0.25) -> Finding:
    return Finding(
        id=fid,
        claim="Toy & Sons, Algorithm 1: max sum after replacing k records",
        reference="Toy & Sons 2025, Alg. 1",
        method=Method.CROSSCHECK,
        verdict=Verdict.VERIFIED,
        scope="n in 2..60, 200 hypothesis data sets + built-in CPS sample, rtol 1e-9",
        evidence={"max_rel_err": np.float64(3e-16), "datasets": np.int64(201)},
        seed=7,
        duration_s=duration,
        subject="kernels:toy.kernels",
        tolerance={"rtol": 1e-9, "atol": 0},
    )


def _refuted(fid: str = "toy.sum.as-printed", duration: float = 1.5) -> Finding:
    return Finding(
        id=fid,
        claim="Toy & Sons, Algorithm 2: the window covers all optimal replacements",
        reference="Toy & Sons 2025, Alg. 2",
        method="exhaustive",
        verdict="refuted",
        scope="all k-subsets, n <= 8",
        evidence={"failures": 3, "worst_gap": Fraction(1, 12), "ratio": math.inf},
        counterexample=_cx(fid),
        seed=7,
        duration_s=duration,
        subject="kernels:toy.printed",
    )


def _inconclusive(duration: float = 0.1) -> Finding:
    return Finding(
        id="privacy.toy.empirical",
        claim="Toy & Sons, Theorem 4.6: the release is eps-DP",
        reference="Toy & Sons 2025, Thm. 4.6",
        method=Method.EMPIRICAL,
        verdict=Verdict.INCONCLUSIVE,
        scope="10^5 samples per neighbour pair, 3 pairs",
        evidence={"eps_lower_bound": math.nan},
        duration_s=duration,
    )


def _report(durations=(0.25, 1.5, 0.1), started_at="2025-01-01T00:00:00Z", finished=True):
    findings = [
        _verified(duration=durations[0]),
        _refuted(duration=durations[1]),
        _inconclusive(duration=durations[2]),
    ]
    return build_report(
        "regress",
        "kernels:toy.kernels",
        7,
        findings,
        {"n_max": 60, "rtol": 1e-9, "bounds": (0, 1)},
        started_at,
        finished,
    )


# ----------------------------------------------------------------------------------------------
# Finding model
# ----------------------------------------------------------------------------------------------


def test_finding_round_trip_through_json():
    for f in (_verified(), _refuted(), _inconclusive()):
        d = f.to_dict()
        text = json.dumps(d, allow_nan=False)  # JSON-able, no NaN tokens
        back = Finding.from_dict(json.loads(text))
        assert back.to_dict() == d
        assert back.method is f.method and back.verdict is f.verdict
        assert isinstance(d["method"], str) and isinstance(d["verdict"], str)
    d = _refuted().to_dict()
    assert d["method"] == "exhaustive" and d["verdict"] == "refuted"
    assert d["evidence"]["ratio"] == "inf"
    assert d["evidence"]["worst_gap"] == {"fraction": "1/12"}
    back = Finding.from_dict(json.loads(json.dumps(d)))
    assert back.evidence["worst_gap"] == Fraction(1, 12)
    assert back.evidence["ratio"] == math.inf
    assert type(_verified().to_dict()["evidence"]["datasets"]) is int
    assert math.isnan(Finding.from_dict(_inconclusive().to_dict()).evidence["eps_lower_bound"])


def test_fraction_round_trip_exact_through_json():
    values = [Fraction(1, 3), Fraction(-22, 7), Fraction(10**40 + 1, 3**50), Fraction(5)]
    obj = {"v": values, "nested": {"t": (Fraction(2, 9), np.float64(-math.inf))}}
    text = canonical_json(to_jsonable(obj))
    back = from_jsonable(json.loads(text))
    assert back["v"] == values and all(type(v) is Fraction for v in back["v"])
    assert back["nested"]["t"][0] == Fraction(2, 9)
    assert back["nested"]["t"][1] == -math.inf
    assert to_jsonable(Fraction(5)) == {"fraction": "5/1"}


def test_to_jsonable_numpy_and_rejections():
    arr = np.array([[1.0, np.nan], [np.inf, 2.0]])
    assert to_jsonable(arr) == [[1.0, "nan"], ["inf", 2.0]]
    assert to_jsonable({1: np.bool_(True), "s": {3, 1, 2}}) == {"1": True, "s": [1, 2, 3]}
    assert to_jsonable(Verdict.REFUTED) == "refuted"
    with pytest.raises(TypeError, match="complex"):
        to_jsonable(1 + 2j)
    with pytest.raises(TypeError, match="object"):
        to_jsonable({"x": object()})


def test_counterexample_document_shape():
    doc = _cx()
    assert doc["schema"] == COUNTEREXAMPLE_SCHEMA == "dpaudit.counterexample/1"
    assert set(doc) == {
        "schema",
        "check",
        "subject",
        "inputs",
        "expected",
        "actual",
        "tolerance",
        "note",
    }
    assert doc["inputs"]["x"] == [{"fraction": "1/3"}, 2.5, 7.0]
    assert doc["expected"] == {"fraction": "2/7"}
    json.dumps(doc, allow_nan=False)
    with pytest.raises(ValueError, match="check_id"):
        counterexample_document("Bad Id", "s", {}, 1, 2, None)


def test_verified_requires_scope():
    with pytest.raises(ValueError, match="scope"):
        Finding(id="a.b", claim="c", reference="r", method="smt", verdict="verified", scope="")
    with pytest.raises(ValueError, match="scope"):
        Finding(id="a.b", claim="c", reference="r", method="smt", verdict="verified", scope="  ")


def test_refuted_requires_counterexample():
    with pytest.raises(ValueError, match="counterexample"):
        Finding(id="a.b", claim="c", reference="r", method="smt", verdict="refuted", scope="s")


@pytest.mark.parametrize("bad", ["", "Gini.max", "-lead", ".lead", "a b", "a/b", "ä", 3])
def test_bad_id_rejected(bad):
    with pytest.raises(ValueError, match="id"):
        Finding(id=bad, claim="c", reference="r", method="smt", verdict="inconclusive")


def test_bad_method_verdict_and_evidence_rejected():
    with pytest.raises(ValueError, match="method.*'guess'"):
        Finding(id="a", claim="c", reference="r", method="guess", verdict="error")
    with pytest.raises(ValueError, match="verdict.*'maybe'"):
        Finding(id="a", claim="c", reference="r", method="smt", verdict="maybe")
    with pytest.raises(ValueError, match="evidence"):
        Finding(id="a", claim="c", reference="r", method="smt", verdict="error", evidence={"z": 1j})
    with pytest.raises(ValueError, match="duration_s"):
        Finding(
            id="a", claim="c", reference="r", method="smt", verdict="error", duration_s=math.nan
        )
    with pytest.raises(ValueError, match="unknown keys"):
        Finding.from_dict({**_verified().to_dict(), "extra": 1})


# ----------------------------------------------------------------------------------------------
# Report document
# ----------------------------------------------------------------------------------------------


def test_build_report_shape_and_summary():
    r = _report()
    assert r["schema"] == REPORT_SCHEMA == "dpaudit.report/1"
    assert r["summary"] == {
        "verified": 1,
        "not-refuted": 0,
        "refuted": 1,
        "refuted-under-reading": 0,
        "not-tight": 0,
        "vacuous": 0,
        "inconclusive": 1,
        "error": 0,
        "total": 3,
        "pass": False,
    }
    assert r["parameters"]["bounds"] == [0, 1]
    assert r["timing"]["started_at"] == "2025-01-01T00:00:00Z"
    assert r["timing"]["total_duration_s"] == pytest.approx(1.85)
    canonical_json(r)  # serialisable, no NaN
    ok = build_report("regress", "s", None, [_verified()], {}, "t", True)
    assert ok["summary"]["pass"] is True
    with pytest.raises(ValueError, match="duplicate"):
        build_report("regress", "s", 1, [_verified(), _verified()], {}, "t", True)


def test_strip_timings_gives_byte_identical_json():
    a = _report(durations=(0.25, 1.5, 0.1), started_at="2025-01-01T00:00:00Z")
    b = _report(durations=(9.0, 0.001, 3.0), started_at="2031-06-30T12:34:56Z")
    assert canonical_json(a) != canonical_json(b)
    sa, sb = strip_timings(a), strip_timings(b)
    assert canonical_json(sa).encode() == canonical_json(sb).encode()
    # removes exactly timing and duration_s, and leaves the input alone
    assert "timing" in a and all("duration_s" in f for f in a["findings"])
    assert set(a) - set(sa) == {"timing"}
    for fa, fs in zip(a["findings"], sa["findings"], strict=True):
        assert set(fa) - set(fs) == {"duration_s"}


def test_canonical_json_format():
    text = canonical_json({"b": 1, "a": "é"})
    assert text == '{\n  "a": "é",\n  "b": 1\n}\n'
    with pytest.raises(ValueError):
        canonical_json({"x": math.nan})


# ----------------------------------------------------------------------------------------------
# Atomic writes
# ----------------------------------------------------------------------------------------------


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_atomic_write_text_writes(tmp_path):
    target = tmp_path / "out.txt"
    atomic_write_text(target, "hello\n")
    assert target.read_text(encoding="utf-8") == "hello\n"
    atomic_write_text(target, "second\n")
    assert target.read_text(encoding="utf-8") == "second\n"
    assert _leftovers(tmp_path) == []


def test_atomic_write_keeps_old_file_when_replace_fails(tmp_path, monkeypatch):
    target = tmp_path / "report.json"
    target.write_text("OLD\n", encoding="utf-8")

    def boom(src, dst):
        raise OSError("simulated crash during rename")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="simulated"):
        atomic_write_text(target, "NEW " * 10_000)
    assert target.read_text(encoding="utf-8") == "OLD\n"
    assert _leftovers(tmp_path) == []


def test_atomic_write_keeps_old_file_when_write_fails_midway(tmp_path):
    target = tmp_path / "report.md"
    target.write_text("OLD\n", encoding="utf-8")
    # the lone surrogate cannot be encoded as UTF-8: the write fails part-way through
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(target, "x" * 100_000 + "\ud800" + "y")
    assert target.read_text(encoding="utf-8") == "OLD\n"
    assert _leftovers(tmp_path) == []


def test_write_report_serialisation_failure_leaves_old_report(tmp_path):
    good = _report()
    json_path, md_path = write_report(tmp_path, good)
    before = (json_path.read_bytes(), md_path.read_bytes())

    bad = dict(good, parameters={"x": object()})
    with pytest.raises(TypeError):
        write_report(tmp_path, bad)
    bad_nan = dict(good, parameters={"x": math.nan})
    with pytest.raises(ValueError):
        write_report(tmp_path, bad_nan)
    with pytest.raises(TypeError):
        atomic_write_text(tmp_path / "report.json", b"not text")  # type: ignore[arg-type]
    assert (json_path.read_bytes(), md_path.read_bytes()) == before
    assert _leftovers(tmp_path) == []


def test_write_report_creates_files(tmp_path):
    r = _report()
    out = tmp_path / "nested" / "run1"
    json_path, md_path = write_report(out, r)
    assert json_path == out / "report.json" and md_path == out / "report.md"
    text = json_path.read_text(encoding="utf-8")
    assert text == canonical_json(r)
    assert json.loads(text)["summary"]["refuted"] == 1
    assert md_path.read_text(encoding="utf-8") == render_markdown(r)
    cx_path = out / "counterexamples" / "toy.sum.as-printed.json"
    assert cx_path.is_file()
    cx = json.loads(cx_path.read_text(encoding="utf-8"))
    assert cx["schema"] == "dpaudit.counterexample/1"
    assert from_jsonable(cx["expected"]) == Fraction(2, 7)
    assert sorted(p.name for p in (out / "counterexamples").iterdir()) == [cx_path.name]
    assert "counterexamples/toy.sum.as-printed.json" in md_path.read_text(encoding="utf-8")
    assert writer_module.REPORT_SCHEMA == r["schema"]


# ----------------------------------------------------------------------------------------------
# Rendering
# ----------------------------------------------------------------------------------------------


def test_markdown_contents():
    md = render_markdown(_report())
    assert md.startswith("# dpaudit regress — kernels:toy.kernels\n")
    assert "Seed: 7" in md
    assert "dpaudit replay counterexamples/toy.sum.as-printed.json" in md
    assert "| toy.sum.vs-reference | verified | crosscheck |" in md
    assert "FAIL" in md and "Toy & Sons, Algorithm 2" in md
    assert "2/7" in md  # expected value shown as a fraction
    # detail sections for refuted and inconclusive, none for the verified one
    assert "### `toy.sum.as-printed` — REFUTED" in md
    assert "### `privacy.toy.empirical` — INCONCLUSIVE" in md
    assert "### `toy.sum.vs-reference`" not in md
    assert render_markdown(_report()) == md  # pure


def test_markdown_abbreviates_long_inputs():
    long_cx = counterexample_document("a.long", "s", {"x": list(range(5000))}, 1, 2, None)
    f = Finding(
        id="a.long",
        claim="c",
        reference="r",
        method="oracle",
        verdict="refuted",
        scope="s",
        counterexample=long_cx,
    )
    md = render_markdown(build_report("search", "s", 1, [f], {}, "t", True))
    assert "4999" not in md and "…" in md
    assert max(len(line) for line in md.splitlines()) < 400


def test_summary_table_pass_and_fail():
    fail = render_summary_table(_report())
    last = fail.splitlines()[-1]
    assert last == "FAIL: 1 verified, 1 refuted, 1 inconclusive, 0 error"
    assert "toy.sum.as-printed" in fail
    ok = build_report("regress", "s", 1, [_verified(), _inconclusive()], {}, "t", True)
    table = render_summary_table(ok)
    assert table.splitlines()[-1] == "PASS: 1 verified, 0 refuted, 1 inconclusive, 0 error"
    # scope truncated to about 60 characters
    for line in table.splitlines()[2:-1]:
        assert len(line.split("  ")[-1].strip()) <= 60
    err = Finding(id="x.err", claim="c", reference="r", method="smt", verdict="error")
    bad = build_report("prove", "s", None, [_verified(), err], {}, "t", False)
    # an unfinished run never shows PASS or FAIL: its outcome is not known yet
    assert render_summary_table(bad).splitlines()[-1].startswith(
        "UNFINISHED: 1 verified, 0 refuted")
    done = build_report("prove", "s", None, [_verified(), err], {}, "t", True)
    assert render_summary_table(done).splitlines()[-1].startswith("FAIL: 1 verified, 0 refuted")
    # the CLI's outcome word (from its outcome table) replaces PASS/FAIL
    inc = build_report("calibrate", "s", 1, [_verified(), _inconclusive()], {}, "t", True,
                       outcome={"word": "INCONCLUSIVE", "exit_code": 3})
    assert render_summary_table(inc).splitlines()[-1].startswith("INCONCLUSIVE: 1 verified")
