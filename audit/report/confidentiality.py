"""The confidentiality audit every report goes through before anything is written.

A report about confidential data (``report["confidentiality"]["data"] == "confidential"``,
set by :func:`audit.report.build_report` from its ``confidential_data`` argument) must not let
a reader recover the statistic g(X), its sensitivity S(X) or any record more precisely than
from the DP release itself.  The rule (:data:`RULE`) classifies every number:

* **public** — the run's public parameters (L, U, epsilon, gamma, n, constants, seeds),
  counts, p-values, confidence levels, privacy losses in nats, relative errors, verdicts.
* **relative** — a figure built from the data whose output-space axis is in *units of the
  release's noise scale relative to an unstated centre*: t = (y - c) / s with c and s
  confidential and never written.  It carries no absolute output value, so no arithmetic on
  it (midpoint, zero crossing, argmax, event bounds) gives g or S; it must declare
  ``"confidentiality": "relative"`` and name the unit in its x label.
* **confidential** — anything else derived from the data in output units (absolute axes,
  the true statistic, S(X), records, binade bounds of witness events, margins on
  subsamples): **withheld** unless the run was asked to ``--show-confidential``.

Mechanics (what this module enforces; it cannot see the secrets, so producers declare):

1. a figure of a confidential-data report is kept only if it declares
   ``"confidentiality"`` ``"public"`` or ``"relative"`` (a relative figure whose x label does
   not mention the noise scale is a producer bug: withheld); untagged or ``"confidential"``
   figures are withheld;
2. every ``"confidential"`` key of a finding's evidence, of its counterexample document's
   inputs or of any nested dict is removed, and so is every key in :data:`SECRET_KEYS`;
3. what was withheld is listed in ``report["confidentiality"]["withheld"]`` (ids and paths,
   never values).

With ``--show-confidential`` nothing is removed and the report says so.  The test
``tests/engine/test_confidentiality.py`` plants distinctive records, runs
``dpaudit certify --quick`` and checks by arithmetic on every figure and event that g(X),
S(X) and the records cannot be recovered.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = [
    "LEVELS",
    "RULE",
    "SECRET_KEYS",
    "apply_confidentiality",
    "confidentiality_block",
    "confidentiality_text",
]

#: figure tags
LEVELS = ("public", "relative", "confidential")

RULE = (
    "Nothing in this report reveals the statistic, its sensitivity or any record more "
    "precisely than the DP release: figures built from the data are drawn in units of the "
    "release's noise scale relative to an unstated centre (t = (y - c)/s, c and s never "
    "written); witness events are stated in the same units (bit-pattern events without "
    "their binade); absolute values derived from the data (the true statistic, S(X), "
    "records, margins on subsamples) are withheld unless --show-confidential."
)

#: evidence keys that always hold confidential values (removed wherever they occur)
SECRET_KEYS = frozenset({
    "confidential", "gini_exact", "gini_kernel", "smooth_sensitivity_exact",
    "smooth_sensitivity_kernel", "true_gini", "noise_scale", "records", "old",
})


def confidentiality_block(confidential_data: bool, show: bool) -> dict[str, Any]:
    """The report's ``confidentiality`` key before the audit fills in ``withheld``."""
    return {
        "data": "confidential" if confidential_data else "public",
        "show_confidential": bool(show),
        "rule": RULE if confidential_data else "the report is built from no confidential "
        "data",
        "withheld": [],
    }


def _strip(obj: Any, path: str, withheld: list[str]) -> Any:
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if k in SECRET_KEYS:
                withheld.append(f"{path}.{k}")
                continue
            out[k] = _strip(v, f"{path}.{k}", withheld)
        return out
    if isinstance(obj, list):
        return [_strip(v, f"{path}[{i}]", withheld) for i, v in enumerate(obj)]
    return obj


def _figure_ok(fig: dict[str, Any]) -> bool:
    tag = fig.get("confidentiality")
    if tag == "public":
        return True
    if tag == "relative":
        label = str(fig.get("xlabel", "")).lower()
        return "noise scale" in label
    return False


def apply_confidentiality(report: dict[str, Any]) -> dict[str, Any]:
    """The report as it may be written: a copy with every confidential item withheld (see
    the module docstring), or the report unchanged when it is public or the run asked to
    show confidential values.  Idempotent."""
    block = report.get("confidentiality")
    if not isinstance(block, dict) or block.get("data") != "confidential":
        return report
    if block.get("show_confidential"):
        return report
    out = copy.deepcopy(report)
    withheld: list[str] = list(block.get("withheld") or [])
    figs = out.get("figures")
    if isinstance(figs, list):
        kept = []
        for fig in figs:
            if isinstance(fig, dict) and _figure_ok(fig):
                kept.append(fig)
            else:
                withheld.append(f"figure {fig.get('id') if isinstance(fig, dict) else '?'}")
        if kept:
            out["figures"] = kept
        else:
            out.pop("figures")
    for i, f in enumerate(out.get("findings") or []):
        if not isinstance(f, dict):
            continue
        fid = f.get("id", i)
        if isinstance(f.get("evidence"), dict):
            f["evidence"] = _strip(f["evidence"], f"finding {fid} evidence", withheld)
        if isinstance(f.get("counterexample"), dict):
            f["counterexample"] = _strip(f["counterexample"], f"finding {fid} counterexample",
                                         withheld)
    out["parameters"] = _strip(out.get("parameters") or {}, "parameters", withheld)
    seen: set[str] = set()
    out["confidentiality"] = {**block,
                              "withheld": [w for w in withheld if not (w in seen or seen.add(w))]}
    return out


def confidentiality_text(report: dict[str, Any]) -> str | None:
    """The report's confidentiality line in words (rule, whether values are shown, what was
    withheld), or None when the report carries no confidentiality block; the Markdown and
    HTML renderers print it as is (each escaping it its own way)."""
    conf = report.get("confidentiality")
    if not isinstance(conf, dict):
        return None
    text = str(conf.get("rule", ""))
    if conf.get("show_confidential"):
        text = "SHOWN (--show-confidential): this report contains confidential values. " + text
    withheld = conf.get("withheld") or []
    if withheld:
        text += f" Withheld: {', '.join(str(w) for w in withheld)}."
    return text
