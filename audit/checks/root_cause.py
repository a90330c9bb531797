"""Findings grouped by root cause: one raise seen by several checks is one finding.

A kernel module that raises on some input makes every check that calls the raising function
fail with class ``raised-<Exception>`` (:func:`audit.checks.kernel.safe_eval`), each check on
its own shrunk input: one defect, reported once per check.  :func:`group_by_root_cause`
merges the refuted findings whose raise has the same *root cause* — the same exception type
raised at the same place (the innermost frame, ``file.py:line in function``, recorded by
the runner in ``evidence["raised_at"]``); without a recorded place, the same exception type
and message — into one finding that lists its checks, each with the input it failed on.

The merged finding keeps the id, claim and replayable counterexample of the first check
that saw the raise, and states the others in ``evidence["checks"]``; every other finding
(wrong values, non-refuted checks) is passed through unchanged, in its order.  Nothing
here prints or writes files.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from audit.findings import Finding, Verdict

__all__ = ["group_by_root_cause", "root_cause_key"]


def root_cause_key(f: Finding) -> tuple[str, str] | None:
    """``(exception type, place or message)`` of a refuted finding whose check saw the
    subject raise; ``None`` for any other finding."""
    ev = f.evidence or {}
    cls = str(ev.get("failure_class", ""))
    if f.verdict is not Verdict.REFUTED or not cls.startswith("raised-"):
        return None
    actual = str((f.counterexample or {}).get("actual", ""))
    exc = actual.split(":", 1)[0] if ":" in actual else cls[len("raised-"):]
    where = ev.get("raised_at")
    return (exc, f"at {where}") if where else (exc, actual)


def _check_row(f: Finding) -> dict[str, Any]:
    cx = f.counterexample or {}
    return {"id": f.id, "claim": f.claim, "input": cx.get("inputs"),
            "actual": cx.get("actual")}


def group_by_root_cause(findings: Sequence[Finding]) -> list[Finding]:
    """The findings with every group of raises of one root cause merged (module docstring);
    a group of one is returned as it was."""
    groups: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        key = root_cause_key(f)
        if key is not None:
            groups.setdefault(key, []).append(f)
    out: list[Finding] = []
    for f in findings:
        key = root_cause_key(f)
        if key is None or len(groups[key]) == 1:
            out.append(f)
            continue
        members = groups[key]
        if f is not members[0]:
            continue  # merged into the group's first finding
        exc, where = key
        message = str((f.counterexample or {}).get("actual", ""))
        checks = [_check_row(m) for m in members]
        distinct = list(dict.fromkeys(m.id.split(".raised-")[0] for m in members))
        ev = {**f.evidence, "root_cause": {"exception": exc, "message": message,
                                           "raised_at": f.evidence.get("raised_at")},
              "checks": checks, "grouped_checks": len(checks),
              "distinct_checks": distinct}
        scope = (f"one root cause ({message} {where}) in {len(checks)} findings of "
                 f"{len(distinct)} check(s): "
                 f"{', '.join(c['id'] for c in checks)}; each check's own input is in "
                 f"evidence['checks']; the counterexample is {f.id}'s")
        out.append(dataclasses.replace(
            f, scope=scope, evidence=ev,
            duration_s=sum(m.duration_s for m in members)))
    return out
