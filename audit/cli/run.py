"""The report lifecycle every command follows (the engine's and the subjects'): take the
report folder before the first check (:func:`start_report`), write each intermediate
report whole (:func:`write`), and end through the outcome table (:func:`finish`).

Only command modules and the report modules print or write files; this module writes the
report files through :mod:`audit.report`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from audit.cli.folders import OutputError, hold_report_dir, report_dir
from audit.cli.outcomes import outcome
from audit.cli.signals import defer_signals, mark_report_started, run_completed

__all__ = ["finish", "finish_certification", "start_report", "write"]


def start_report(out: str, run_id: str, command: str, subject: str, seed: int | None,
                 params: dict, started: str, **kw: Any) -> Path:
    """Check ``--out``/``--run-id`` (bad input: nothing written) and mark the folder as
    belonging to this run before its first check (an empty unfinished report replaces any
    earlier one; earlier counterexamples are removed).  Returns the report folder."""
    from audit.report import begin_report, build_report

    out_dir = report_dir(out, run_id)
    hold_report_dir(out_dir)  # a second run into this folder now: refused (exit 2)
    try:
        with defer_signals():
            begin_report(out_dir, build_report(command, subject, seed, [], params, started,
                                               False, **kw))
            mark_report_started(out_dir)
    except OSError as exc:
        raise OutputError(f"--out {str(out)!r}: cannot write {str(out_dir)!r}: "
                          f"{exc.strerror or exc}") from None
    return out_dir


def write(out_dir: Path, report: dict) -> None:
    """Write a report (all its files land together: signals are held meanwhile)."""
    from audit.cx_signature import sign_report
    from audit.report import write_report

    sign_report(report, out_dir)  # the holder's keyed MAC over each counterexample
    with defer_signals():
        write_report(out_dir, report)


def finish(out_dir: Path, report_fn: Callable[[dict], dict], key: str) -> tuple[dict, int]:
    """Build the final report with the outcome ``key`` of the outcome table, write it,
    mark the run complete (later signals do not change its outcome); return
    ``(report, exit code)``."""
    o = outcome(key)
    rep = report_fn({"word": o.word, "exit_code": o.code})
    # the run is complete the moment the final report is on disk: a signal that arrives
    # while it is written is held and then dropped (exit 130 with a finished report on disk
    # would contradict it)
    with defer_signals():
        write(out_dir, rep)
        run_completed()
    return rep, o.code


#: a chain's certification verdict -> its row of the outcome table
_CERTIFICATION_OUTCOME = {"CERTIFIED": "certified", "NOT CERTIFIED": "not-certified"}


def finish_certification(out_dir: Path, report_fn: Callable[[dict], dict],
                         certification: dict) -> int:
    """End a ``certify`` run: finish the report with the outcome of its certification
    (``CERTIFIED`` / ``NOT CERTIFIED`` / anything else inconclusive), print the public
    summary (stdout follows the public report's rule: what the shareable report holds,
    nothing more), and return the exit code."""
    from audit.report import public_view, render_summary_table

    key = _CERTIFICATION_OUTCOME.get(certification["verdict"], "inconclusive")
    rep, code = finish(out_dir, report_fn, key)
    pub = public_view(rep)
    pcert = pub["certification"]
    print(render_summary_table(pub))
    print(f"\nVERDICT: {outcome(key).word}")
    if pcert["verdict"] != "CERTIFIED":
        for r in pcert["reasons"]:
            print(f"  - {r}")
    if pcert.get("counterexample"):
        print(f"  counterexample: {out_dir / pcert['counterexample']}")
    print(f"scope: {pcert['scope']}")
    shown = bool((rep.get("confidentiality") or {}).get("show_confidential"))
    label = ("NOT shareable: --show-confidential put confidential values in it" if shown
             else "public, shareable")
    print(f"report ({label}): {out_dir / 'report.json'}  {out_dir / 'report.md'}  "
          f"{out_dir / 'report.html'}")
    print(f"confidential report (keep with the data): {out_dir / 'confidential'}")
    return code
