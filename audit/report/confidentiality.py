"""The public / confidential split of a report about confidential data.

A report about confidential data (``report["confidentiality"]["data"] == "confidential"``,
set by :func:`audit.report.build_report` from its ``confidential_data`` argument) is written
twice (:func:`audit.report.write_report`):

* the **public report** (``report.{json,md,html}``: shareable) — :func:`public_view`;
* the **confidential report** (``confidential/report.{json,md,html}`` and
  ``confidential/counterexamples/``: kept by the data holder, needed to replay) — the whole
  report, :func:`confidential_view`.

What is confidential is marked where it is produced, never looked up in a list of key names:

* a Finding's ``confidential`` part (:attr:`audit.findings.Finding.confidential`), and any
  ``"confidential"`` sub-dict of its evidence or of the report's parameters or certification;
* a finding's counterexample (it names the data, the pairs searched, the witness) and its
  ``duration_s`` (the time of data-dependent work);
* every figure not declared ``"confidentiality": "public"`` (a figure drawn from the data, in
  absolute or relative units, is a function of the data);
* the run's total duration (``timing.total_duration_s``; ``timing.started_at`` is a wall
  clock reading, not a function of the data, and stays).

The public report therefore holds the public parameters, data-independent facts, the
verdicts, and whatever a producer put in a finding's ``evidence`` outside a
``"confidential"`` part: a producer must put there only what its public inputs determine.
The report-privacy tests (``tests/gini/test_report_privacy.py`` and its siblings) hold every
producer to that by construction-blind checks: certify on neighbouring data sets X, X' (one
record replaced, same seed) must give byte-identical public reports.

**Residual** (:data:`RESIDUAL`): the verdicts are computed from the data.  They are the same
on neighbouring data sets whenever the release is private with margin (what the neighbour
test checks); when a link's verdict flips between X and X' the verdict itself is the one
data-dependent bit the public report carries.

With ``--show-confidential`` the public report is not stripped (and says so).
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = [
    "CONFIDENTIAL_DIR",
    "LEVELS",
    "MARK",
    "RESIDUAL",
    "RULE",
    "apply_confidentiality",
    "confidential_view",
    "confidentiality_block",
    "confidentiality_text",
    "is_confidential_data",
    "public_view",
]

#: figure levels: only "public" figures reach the public report
LEVELS = ("public", "relative", "confidential")
#: the marking word: a ``"confidential"`` part wherever it occurs is confidential
MARK = "confidential"
#: folder of the confidential report, inside the report folder
CONFIDENTIAL_DIR = "confidential"

RULE = (
    "This public report holds only the public parameters (n under replace-one, L, U, "
    "epsilon, gamma, constants, bound, seed policy), data-independent facts and the "
    "verdicts; every value computed from the data (figures, witnesses, neighbours searched, "
    "scan lengths, timings of data-dependent work, the keyed data fingerprint, "
    "counterexamples) is in the confidential report (confidential/report.json), kept by "
    "the data holder and needed to replay."
)

RESIDUAL = (
    "The verdict and the per-link verdicts are computed from the data: on neighbouring data "
    "sets they agree whenever the release keeps its epsilon with margin; a verdict that "
    "differs between neighbours (NOT CERTIFIED or INCONCLUSIVE on one, CERTIFIED on the "
    "other) is itself one bit about the data, and a failing audit should be shared with "
    "that in mind."
)

#: what the public report leaves out (the same list for every report: no per-item detail)
_WITHHELD = [
    "findings[].confidential and every 'confidential' part of findings[].evidence",
    "findings[].counterexample (confidential/counterexamples/)",
    "findings[].duration_s and timing.total_duration_s",
    "figures not declared public",
    "the 'confidential' parts of parameters and certification (data fingerprint, source)",
]


def is_confidential_data(report: dict[str, Any]) -> bool:
    block = report.get("confidentiality")
    return isinstance(block, dict) and block.get("data") == "confidential"


def confidentiality_block(confidential_data: bool, show: bool) -> dict[str, Any]:
    """The report's ``confidentiality`` key (the full report's; the views rewrite it)."""
    return {
        "data": "confidential" if confidential_data else "public",
        "show_confidential": bool(show),
        "rule": RULE if confidential_data else "the report is built from no confidential "
        "data",
        "withheld": [],
    }


def _strip(obj: Any) -> Any:
    """``obj`` without any ``"confidential"`` part, at any depth (tuples become lists, as
    in the JSON written)."""
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if k != MARK}
    if isinstance(obj, list | tuple):
        return [_strip(v) for v in obj]
    return obj


def _public_finding(f: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in f.items() if k not in (MARK, "counterexample", "duration_s")}
    out["evidence"] = _strip(out.get("evidence") or {})
    out["counterexample"] = None
    return out


def public_view(report: dict[str, Any]) -> dict[str, Any]:
    """The public report: a copy without anything marked confidential (module docstring);
    the report itself when it is not about confidential data, and the whole report (marked
    SHOWN) when the run asked ``--show-confidential``.  Idempotent."""
    if not is_confidential_data(report):
        return report
    block = report["confidentiality"]
    if block.get("show_confidential"):
        return {**report, "confidentiality": {**block, "view": "public (SHOWN)"}}
    if block.get("view") == "public":
        return report
    out: dict[str, Any] = {}
    for k, v in report.items():
        if k in ("findings", "figures", "timing", "confidentiality"):
            continue
        out[k] = _strip(copy.deepcopy(v))
    out["findings"] = [_public_finding(f) if isinstance(f, dict) else f
                       for f in report.get("findings") or []]
    figs = [copy.deepcopy(f) for f in report.get("figures") or []
            if isinstance(f, dict) and f.get("confidentiality") == "public"]
    if figs:
        out["figures"] = figs
    timing = report.get("timing")
    if isinstance(timing, dict) and "started_at" in timing:
        out["timing"] = {"started_at": timing["started_at"]}
    cert = out.get("certification")
    if isinstance(cert, dict):
        cert.pop("data_sha256", None)
        cert.pop("fingerprint", None)
        if cert.get("counterexample"):
            cert["counterexample"] = f"{CONFIDENTIAL_DIR}/{cert['counterexample']}"
    out["confidentiality"] = {**block, "view": "public", "residual": RESIDUAL,
                              "confidential_report": f"{CONFIDENTIAL_DIR}/report.json",
                              "withheld": list(_WITHHELD)}
    # a part marked confidential is removed wherever it sits (public figures, the
    # confidentiality block, non-dict findings' neighbours...), not only where today's
    # producers put one
    return _strip(out)


def confidential_view(report: dict[str, Any]) -> dict[str, Any]:
    """The confidential report: everything, marked as the data holder's copy."""
    block = report["confidentiality"]
    return {**report, "confidentiality": {
        **block, "view": "confidential", "withheld": [],
        "rule": "CONFIDENTIAL: computed from the data; keep with the data holder, do not "
        "share (the shareable report is ../report.json). " + RULE}}


#: the name the report layer used before the split (the public view)
apply_confidentiality = public_view


def confidentiality_text(report: dict[str, Any]) -> str | None:
    """The report's confidentiality line in words (rule, whether values are shown, the
    residual), or None when the report carries no confidentiality block; the Markdown and
    HTML renderers print it as is (each escaping it its own way)."""
    conf = report.get("confidentiality")
    if not isinstance(conf, dict):
        return None
    text = str(conf.get("rule", ""))
    if conf.get("show_confidential") and conf.get("view") != "confidential":
        text = "SHOWN (--show-confidential): this report contains confidential values. " + text
    if conf.get("residual"):
        text += f" Residual: {conf['residual']}"
    return text
