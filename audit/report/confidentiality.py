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
test checks); when verdicts flip between X and X' the public report carries the per-link
verdict vector (each finding's verdict, which link refuted, whether a counterexample
exists): up to one bit per finding, not one bit in all.

With ``--show-confidential`` the public report is not stripped, and both views say NOT
SHAREABLE (:data:`SHOWN_RULE`).  With ``--public-verdict-only`` the public view keeps only
the overall verdict (:func:`_verdict_only`; :data:`RESIDUAL_VERDICT_ONLY`).
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = [
    "CONFIDENTIAL_DIR",
    "LEVELS",
    "MARK",
    "RESIDUAL",
    "RESIDUAL_VERDICT_ONLY",
    "RULE",
    "SHOWN_RULE",
    "VERDICTS_WITHHELD",
    "apply_confidentiality",
    "confidential_view",
    "confidentiality_block",
    "confidentiality_text",
    "is_confidential_data",
    "public_view",
    "verdicts_withheld",
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
    "The verdicts in this report are computed from the data, and they are all it says about "
    "the data: the overall verdict and the per-link verdict vector (each finding's verdict, "
    "so which link refuted, and whether a counterexample exists). On neighbouring data sets "
    "they agree whenever the release keeps its epsilon with margin; where they differ "
    "between neighbours (e.g. NOT CERTIFIED or INCONCLUSIVE on one, CERTIFIED on the other) "
    "the vector can carry up to one bit per finding about the data, not just one bit. "
    "Share a failing audit with that in mind, or write the public report with "
    "--public-verdict-only (then it keeps the overall verdict alone)."
)

#: the residual of a report written with --public-verdict-only
RESIDUAL_VERDICT_ONLY = (
    "The overall verdict is computed from the data and is the one thing this report says "
    "about the data (--public-verdict-only: the per-link verdicts, reasons and "
    "counterexample paths are in the confidential report): on neighbouring data sets it "
    "agrees whenever the release keeps its epsilon with margin; where it differs it is one "
    "bit about the data."
)

#: the rule text of a report written with --show-confidential (both views say so)
SHOWN_RULE = (
    "NOT SHAREABLE (--show-confidential): this report contains values computed from the "
    "confidential data (they are not stripped); keep it with the data holder like the "
    "confidential report. A shareable report needs a run without --show-confidential."
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


def confidentiality_block(confidential_data: bool, show: bool,
                          verdict_only: bool = False) -> dict[str, Any]:
    """The report's ``confidentiality`` key (the full report's; the views rewrite it).
    ``verdict_only`` (``--public-verdict-only``): the public view keeps the overall verdict
    alone."""
    block: dict[str, Any] = {
        "data": "confidential" if confidential_data else "public",
        "show_confidential": bool(show),
        "rule": (SHOWN_RULE if show else RULE) if confidential_data else "the report is "
        "built from no confidential data",
        "withheld": [],
    }
    if verdict_only:
        block["public_verdict_only"] = True
    return block


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
        return {**report, "confidentiality": {**block, "view": "public (SHOWN)",
                                              "rule": SHOWN_RULE}}
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
    withheld = list(_WITHHELD)
    if block.get("public_verdict_only"):
        _verdict_only(out)
        withheld.append(_WITHHELD_VERDICTS)
    out["confidentiality"] = {**block, "view": "public",
                              "residual": (RESIDUAL_VERDICT_ONLY
                                           if block.get("public_verdict_only") else RESIDUAL),
                              "confidential_report": f"{CONFIDENTIAL_DIR}/report.json",
                              "withheld": withheld}
    # a part marked confidential is removed wherever it sits (public figures, the
    # confidentiality block, non-dict findings' neighbours...), not only where today's
    # producers put one
    return _strip(out)


_WITHHELD_VERDICTS = ("--public-verdict-only: findings[] (the per-link verdicts), the "
                      "per-verdict counts of summary, certification.reasons and "
                      "certification.counterexample")


def _verdict_only(out: dict[str, Any]) -> None:
    """Strip a public view down to its overall verdict (``--public-verdict-only``): no
    finding, no per-verdict count, no reason naming a link, no counterexample path."""
    out["findings"] = []
    out["summary"] = {"pass": bool((out.get("summary") or {}).get("pass"))}
    cert = out.get("certification")
    if isinstance(cert, dict):
        cert["reasons"] = []
        cert.pop("counterexample", None)


def confidential_view(report: dict[str, Any]) -> dict[str, Any]:
    """The confidential report: everything, marked as the data holder's copy."""
    block = report["confidentiality"]
    return {**report, "confidentiality": {
        **block, "view": "confidential", "withheld": [],
        "rule": "CONFIDENTIAL: computed from the data; keep with the data holder, do not "
        "share (the shareable report is ../report.json). " + RULE}}


#: the name the report layer used before the split (the public view)
apply_confidentiality = public_view


def verdicts_withheld(report: dict[str, Any]) -> bool:
    """True for a public view written with ``--public-verdict-only`` (the renderers then
    show the overall verdict alone, not per-verdict counts of zero)."""
    conf = report.get("confidentiality")
    return (isinstance(conf, dict) and bool(conf.get("public_verdict_only"))
            and conf.get("view") == "public")


#: what the renderers print instead of the per-verdict counts
VERDICTS_WITHHELD = ("per-finding verdicts withheld (--public-verdict-only; they are in the "
                     "confidential report)")


def confidentiality_text(report: dict[str, Any]) -> str | None:
    """The report's confidentiality line in words (rule, whether values are shown, the
    residual), or None when the report carries no confidentiality block; the Markdown and
    HTML renderers print it as is (each escaping it its own way)."""
    conf = report.get("confidentiality")
    if not isinstance(conf, dict):
        return None
    text = str(conf.get("rule", ""))
    if (conf.get("show_confidential") and conf.get("view") != "confidential"
            and not text.startswith("NOT SHAREABLE")):
        text = f"{SHOWN_RULE} {text}"
    if conf.get("residual"):
        text += f" Residual: {conf['residual']}"
    return text
