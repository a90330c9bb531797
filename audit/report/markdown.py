"""Render a report document (see ``schema.md``) as Markdown or as a terminal table.

Pure functions of the report dict: no I/O, no printing, no clock.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

from audit.findings import FINDING_ID_PATTERN, Verdict, from_jsonable
from audit.report.confidentiality import (
    VERDICTS_WITHHELD,
    confidentiality_text,
    verdicts_withheld,
)

__all__ = [
    "COUNTEREXAMPLE_DIR",
    "counterexample_relpath",
    "render_markdown",
    "render_summary_table",
    "compact",
]

COUNTEREXAMPLE_DIR = "counterexamples"

_INPUTS_LIMIT = 200
_VALUE_LIMIT = 200
_SCOPE_LIMIT = 60
_ID_LIMIT = 48
_DETAIL_VERDICTS = (Verdict.REFUTED.value, Verdict.ERROR.value, Verdict.INCONCLUSIVE.value,
                    Verdict.VACUOUS.value)


def counterexample_relpath(finding_id: str) -> str:
    """Where a finding's counterexample lives, relative to the report directory."""
    if not isinstance(finding_id, str) or not FINDING_ID_PATTERN.match(finding_id):
        raise ValueError(f"finding id must match {FINDING_ID_PATTERN.pattern}; got {finding_id!r}")
    return f"{COUNTEREXAMPLE_DIR}/{finding_id}.json"


# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------


def _abbrev(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def _plain(value: Any) -> Any:
    """Decoded JSON value with Fractions shown as "p/q" strings, ready for compact display."""
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    return value


def compact(value: Any, limit: int = _VALUE_LIMIT) -> str:
    """One-line display of a JSON-able value (Fractions as p/q, strings bare)."""
    shown = _plain(from_jsonable(value))
    if isinstance(shown, str):
        text = shown
    else:
        text = json.dumps(shown, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))
    return _abbrev(text, limit)


def _cell(value: Any) -> str:
    """Text safe inside a Markdown table cell."""
    text = value if isinstance(value, str) else compact(value)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def _code(text: str) -> str:
    """Inline code span that survives backticks in ``text``."""
    fence = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


#: outcome words shown in green (the run's outcome is good)
GOOD_WORDS = frozenset({"PASS", "CERTIFIED", "COMPLETED", "PASSES NOW", "RELEASED"})


def overall_word(report: dict[str, Any]) -> str:
    """The one word a report shows as its overall outcome: ``UNFINISHED`` for a run that did
    not finish (never PASS), else the run's ``outcome`` word from the CLI's outcome table
    (e.g. CERTIFIED, INCONCLUSIVE), else PASS / FAIL from the summary."""
    if report.get("finished") is False:
        return "UNFINISHED"
    oc = report.get("outcome")
    if isinstance(oc, dict) and isinstance(oc.get("word"), str):
        return oc["word"]
    return "PASS" if report.get("summary", {}).get("pass") else "FAIL"


def _summary_line(report: dict[str, Any]) -> str:
    s = report.get("summary", {})
    word = overall_word(report)
    if verdicts_withheld(report):
        return f"{word}: {VERDICTS_WITHHELD}"
    line = (
        f"{word}: {s.get('verified', 0)} verified, "
        + (f"{s['not-refuted']} not-refuted, " if s.get("not-refuted") else "")
        + (f"{s['vacuous']} vacuous, " if s.get("vacuous") else "")
        + f"{s.get('refuted', 0)} refuted, "
        f"{s.get('inconclusive', 0)} inconclusive, {s.get('error', 0)} error"
    )
    if report.get("finished") is False:
        line += " (run did not finish)"
    return line


def _seed_text(seed: Any) -> str:
    return "none" if seed is None else str(seed)


# ----------------------------------------------------------------------------------------------
# Markdown
# ----------------------------------------------------------------------------------------------


def _detail_section(f: dict[str, Any]) -> list[str]:
    fid = f["id"]
    out = [f"### {_code(fid)} — {f['verdict'].upper()}", ""]
    out.append(f"**Claim.** {f.get('claim', '')}")
    out.append("")
    if f.get("reference"):
        out.append(f"- Reference: {f['reference']}")
    out.append(f"- Method: {f.get('method', '')}")
    out.append(f"- Scope: {f.get('scope') or '(none stated)'}")
    if f.get("reading"):
        out.append(f"- Reading: {f['reading']}")
    if f.get("subject"):
        out.append(f"- Subject: {_code(f['subject'])}")
    if f.get("tolerance") is not None:
        out.append(f"- Tolerance: {compact(f['tolerance'])}")
    if f.get("seed") is not None:
        out.append(f"- Seed: {f['seed']}")
    out.append("")
    evidence = f.get("evidence") or {}
    if evidence:
        out.append("**Evidence.**")
        out.append("")
        out += _table(["quantity", "value"], [[k, compact(evidence[k])] for k in sorted(evidence)])
        out.append("")
    secret = f.get("confidential") or {}
    if secret:
        out.append("**Confidential (computed from the data).**")
        out.append("")
        out += _table(["quantity", "value"], [[k, compact(secret[k])] for k in sorted(secret)])
        out.append("")
    cx = f.get("counterexample")
    if cx is not None:
        out.append("**Counterexample.**")
        out.append("")
        if isinstance(cx, dict) and "inputs" in cx:
            out.append(f"- Inputs: {_code(compact(cx.get('inputs'), _INPUTS_LIMIT))}")
            out.append(f"- Expected: {_code(compact(cx.get('expected')))}")
            out.append(f"- Actual: {_code(compact(cx.get('actual')))}")
            if cx.get("tolerance") is not None:
                out.append(f"- Tolerance: {_code(compact(cx.get('tolerance')))}")
            if cx.get("note"):
                out.append(f"- Note: {cx['note']}")
        else:
            out.append(f"- Document: {_code(compact(cx, _INPUTS_LIMIT))}")
        rel = counterexample_relpath(fid)
        out.append(f"- File: [{rel}]({rel})")
        out.append("")
        out.append("Replay (from the report directory):")
        out.append("")
        out.append("```")
        out.append(f"dpaudit replay {rel}")
        out.append("```")
        out.append("")
    return out


def render_markdown(report: dict[str, Any]) -> str:
    """The Markdown rendering of a report document (``report.md``).

    Title with command/subject/seed, a summary table, a table of all findings, and a section
    per refuted / error / inconclusive finding with its claim, evidence, counterexample summary
    and the ``dpaudit replay`` command.  Counterexample paths are relative to the report
    directory (see :func:`counterexample_relpath`).
    """
    summary = report.get("summary", {})
    findings = report.get("findings", [])
    lines = [
        f"# dpaudit {report.get('command', '')} — {report.get('subject', '')}",
        "",
        f"- Command: {_code(str(report.get('command', '')))}",
        f"- Subject: {_code(str(report.get('subject', '')))}",
        f"- Seed: {_seed_text(report.get('seed'))}",
        f"- Schema: {_code(str(report.get('schema', '')))}",
    ]
    if report.get("finished") is False:
        lines.append("- **The run did not finish: the findings below are incomplete.**")
    params = report.get("parameters") or {}
    if params:
        lines.append(f"- Parameters: {_code(compact(params, 400))}")
    text = confidentiality_text(report)
    if text is not None:
        lines.append(f"- Confidentiality: {text}")
    cert = report.get("certification")
    if isinstance(cert, dict):
        lines += ["", f"## Verdict: {cert.get('verdict', '?')}", ""]
        lines.append(f"Scope: {cert.get('scope', '') or '—'}")
        reasons = cert.get("reasons") or []
        if reasons:
            lines.append("")
            lines += [f"- {r}" for r in reasons]
        if cert.get("counterexample"):
            lines += ["", f"Counterexample: {_code(str(cert['counterexample']))} "
                      f"(replay: {_code('dpaudit replay ' + str(cert['counterexample']))})"]
    lines += ["", "## Summary", ""]
    rows = [] if verdicts_withheld(report) else [[v.value, str(summary.get(v.value, 0))]
                                                  for v in Verdict]
    if rows:
        rows.append(["total", str(summary.get("total", len(findings)))])
    rows.append(["overall", overall_word(report)])
    lines += _table(["verdict", "count"], rows)
    lines += ["", f"**{_summary_line(report)}**", "", "## Findings", ""]
    if findings:
        lines += _table(
            ["id", "verdict", "method", "scope", "reference"],
            [
                [
                    f["id"],
                    f.get("verdict", ""),
                    f.get("method", ""),
                    f.get("scope", "") or "—",
                    f.get("reference", "") or "—",
                ]
                for f in findings
            ],
        )
    else:
        lines.append("No findings.")
    figures = report.get("figures") or []
    if figures:
        lines += ["", "## Figures (drawn in report.html)", ""]
        lines += [f"- {_code(str(fig.get('id', '')))}: {fig.get('title', '')}" for fig in figures]
    detailed = [f for f in findings if f.get("verdict") in _DETAIL_VERDICTS]
    if detailed:
        lines += ["", "## Details", ""]
        for verdict in _DETAIL_VERDICTS:
            for f in detailed:
                if f.get("verdict") == verdict:
                    lines += _detail_section(f)
    timing = report.get("timing")
    if isinstance(timing, dict):
        while lines and lines[-1] == "":
            lines.pop()
        lines += [
            "",
            "## Timing",
            "",
            f"Started {timing.get('started_at', '?')}"
            + (f"; total {float(timing['total_duration_s']):.3f} s."
               if "total_duration_s" in timing else "."),
        ]
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------------
# Terminal table
# ----------------------------------------------------------------------------------------------


def render_summary_table(report: dict[str, Any]) -> str:
    """A compact fixed-width table (id, verdict, scope) and a last ``PASS:``/``FAIL:`` line.

    No trailing newline.
    """
    findings = report.get("findings", [])
    ids = [_abbrev(str(f.get("id", "")), _ID_LIMIT) for f in findings]
    id_w = max([len("id"), *map(len, ids)])
    verdict_w = max(len(v.value) for v in Verdict)
    lines = [f"{'id':<{id_w}}  {'verdict':<{verdict_w}}  scope"]
    lines.append(f"{'-' * id_w}  {'-' * verdict_w}  {'-' * 5}")
    for fid, f in zip(ids, findings, strict=True):
        scope = " ".join(str(f.get("scope", "")).split())
        lines.append(
            f"{fid:<{id_w}}  {str(f.get('verdict', '')):<{verdict_w}}  "
            f"{_abbrev(scope, _SCOPE_LIMIT)}".rstrip()
        )
    lines.append(_summary_line(report))
    return "\n".join(lines)
