"""Confidentiality by marking (``audit/report/confidentiality.py``): the public report
carries only what producers did not mark confidential (a Finding's ``confidential`` part, a
``"confidential"`` sub-dict, a figure not declared public), whatever its key is called; a
subject unknown to the engine has its secret kept out of every public file by
construction.  (The arithmetic attacks on a real chain: tests/gini/test_confidentiality.py;
a third-party subject end to end: tests/engine/test_third_party_subject.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def test_writer_splits_by_marking_not_by_key_names(tmp_path: Path) -> None:
    """The writer, unit level: whatever a producer marks -- the Finding's ``confidential``
    part, a ``"confidential"`` sub-dict of evidence, parameters or certification, a figure
    not declared public (relative ones included) -- never reaches the public report, whatever
    its key is called; the confidential report keeps all of it."""
    from audit.findings import Finding, Method, Verdict
    from audit.report import build_report, public_view, write_report

    fig = {"id": "leaky", "title": "t", "kind": "line",
           "series": [{"label": "a", "x": [0.29, 0.30], "y": [1.0, -1.0]}]}
    rel = {**fig, "id": "rel", "confidentiality": "relative",
           "xlabel": "(y - c)/s, units of the noise scale"}
    pub = {**fig, "id": "pub", "confidentiality": "public"}
    f = Finding(id="a.b", claim="c", reference="r", method=Method.CROSSCHECK,
                verdict=Verdict.VERIFIED, scope="unit",
                evidence={"n": 3, "confidential": {"g": 0.2952}},
                confidential={"any_name_at_all": 0.2953})
    full = build_report("certify", "data:x", 0, [f], {"L": 0, "confidential": {"src": "f"}},
                        "t", True, figures=[fig, rel, pub], confidential_data=True,
                        certification={"verdict": "CERTIFIED", "scope": "s", "reasons": [],
                                       "fingerprint": "hmac-sha256:ab"})
    hidden = public_view(full)
    assert [x["id"] for x in hidden["figures"]] == ["pub"]
    assert hidden["findings"][0]["evidence"] == {"n": 3}
    assert "confidential" not in hidden["findings"][0]
    assert hidden["parameters"] == {"L": 0}
    assert "fingerprint" not in hidden["certification"]
    write_report(tmp_path, full)
    public_text = "".join((tmp_path / n).read_text() for n in ("report.json", "report.md",
                                                               "report.html"))
    assert "0.2952" not in public_text and "0.2953" not in public_text
    assert "hmac-sha256:ab" not in public_text
    secret = json.loads((tmp_path / "confidential" / "report.json").read_text())
    assert secret["findings"][0]["confidential"] == {"any_name_at_all": 0.2953}
    assert len(secret["figures"]) == 3
    shown = public_view({**full, "confidentiality": {**full["confidentiality"],
                                                     "show_confidential": True}})
    assert len(shown["figures"]) == 3 and shown["findings"][0]["confidential"]
    public = build_report("calibrate", "testers", 0, [f], {}, "t", True, figures=[fig])
    assert "confidentiality" not in public and len(public["figures"]) == 1


def test_toy_subject_secret_never_reaches_the_public_report(tmp_path: Path) -> None:
    """A throw-away subject, unknown to the engine: a context holding a confidential value
    and a two-link chain (:class:`audit.checks.chain.Chain`) whose links mark what they
    compute from it where they compute it (one a Finding's ``confidential`` part, one a
    relative figure; one link crashes with the secret in its message).  Its secret appears
    in no public file and in the confidential report (so the search can fail); no list of
    key names is involved."""
    from audit.checks.chain import Chain, Link, certification
    from audit.findings import Finding, Method, Verdict
    from audit.report import build_report, write_report

    secret_value = 0.7315926535
    figures: list[dict] = []

    def measure(ctx: dict) -> list[Finding]:
        v = ctx["data"].mean()
        figures.append({"id": "toy.curve", "title": "t", "kind": "line",
                        "confidentiality": "relative", "xlabel": "units of the noise scale",
                        "series": [{"label": "a", "x": [v, v + 1], "y": [v, 2 * v]}]})
        return [Finding(id="toy.measure", claim="the toy statistic is finite",
                        reference="toy", method=Method.EXHAUSTIVE, verdict=Verdict.VERIFIED,
                        scope="all records", evidence={"records_checked": "all"},
                        confidential={"toy_statistic": v}, subject="data:confidential")]

    def crash(ctx: dict) -> list[Finding]:
        raise RuntimeError(f"statistic {ctx['data'].mean()!r} out of range")

    chain = Chain("toy", (Link("measure", "measure", measure), Link("crash", "crash", crash)))
    ctx = {"data": np.array([secret_value, secret_value])}
    findings = chain.run(ctx, subject="data:confidential", seed=0, id_prefix="toy")
    cert = certification(findings, "toy scope")
    assert cert.verdict == "INCONCLUSIVE" and findings[1].verdict.value == "error"
    rep = build_report("certify", "data:confidential", 0, findings, {}, "t", True,
                       figures=figures, certification=cert.to_dict(), confidential_data=True)
    write_report(tmp_path, rep)
    digits = repr(secret_value)[:8]
    for name in ("report.json", "report.md", "report.html"):
        assert digits not in (tmp_path / name).read_text(), name
    secret_text = (tmp_path / "confidential" / "report.json").read_text()
    assert secret_text.count(digits) >= 3  # the Finding part, the figure, the crash message
