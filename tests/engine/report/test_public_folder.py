"""The public report folder of a run on confidential data holds nothing but the public
report (issue 39): the writer lists the folder after writing, and any other file outside
``confidential/`` (e.g. a counterexample, which names the holder's records) is removed and
the run fails as dpaudit's bug (exit 4).  The mutant ``conf.counterexample-public`` of the
catalogue (the confidential counterexamples written beside the public report) passed every
command's exit code before: only the bench's own scan of the folder saw it.

Truth: the folder contents listed here; the broken writer is the catalogue's edit, made by
wrapping ``_write_rendered`` the same way.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.report import writer
from audit.report.public_check import PublicViewLeak
from audit.report.writer import build_report, write_report


def _report() -> dict:
    cx = counterexample_document("t.check", "subj", {"records": [4711.25]}, "x", "y", None,
                                 "a note")
    f = Finding(id="t.refuted", claim="c", reference="r", method=Method.EMPIRICAL,
                verdict=Verdict.REFUTED, scope="s", evidence={}, counterexample=cx)
    return build_report("test", "subj", 0, [f], {}, "2026-01-01T00:00:00+00:00", True,
                        confidential_data=True)


def _files(d: Path) -> list[str]:
    return sorted(p.relative_to(d).as_posix() for p in d.rglob("*") if p.is_file())


def test_the_public_folder_holds_only_the_public_report(tmp_path: Path) -> None:
    write_report(tmp_path, _report())
    public = [f for f in _files(tmp_path) if not f.startswith("confidential/")]
    assert public == ["report.html", "report.json", "report.md"]
    assert "confidential/counterexamples/t.refuted.json" in _files(tmp_path)


def test_a_counterexample_beside_the_public_report_is_removed_and_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = writer._write_rendered
    calls: list[tuple] = []

    def leaky(directory, rendered, private=False):  # noqa: ANN001, ANN202
        calls.append(rendered)
        if not private and len(calls) == 2:  # the public view, with the secret's files
            rendered = (*rendered[:3], calls[0][3])
        return real(directory, rendered, private)

    monkeypatch.setattr(writer, "_write_rendered", leaky)
    with pytest.raises(PublicViewLeak, match="beside the public report"):
        write_report(tmp_path, _report())
    assert [f for f in _files(tmp_path) if not f.startswith("confidential/")] == [
        "report.html", "report.json", "report.md"]
