"""Build the report document and write it to disk (atomically).

Only this module and the renderers (:mod:`audit.report.markdown`, :mod:`audit.report.html`)
produce report output; nothing here prints.

Byte-identity rule: every wall-clock-dependent value of a report lives under the top-level key
``"timing"`` or in a finding's ``"duration_s"``.  Two runs with the same seed (and the same
code, data and parameters) therefore give byte-identical ``canonical_json(strip_timings(r))``.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from audit.findings import Finding, Verdict, to_jsonable
from audit.report.confidentiality import (
    CONFIDENTIAL_DIR,
    confidential_view,
    confidentiality_block,
    is_confidential_data,
    public_view,
)
from audit.report.disk_privacy import PRIVATE_FILE_MODE, private_folder, stamp_started
from audit.report.html import render_html
from audit.report.markdown import counterexample_relpath, render_markdown
from audit.report.model import validate_certification, validate_figures
from audit.report.public_check import check_public_folder, check_public_view

__all__ = [
    "REPORT_SCHEMA",
    "atomic_write_text",
    "begin_report",
    "build_report",
    "canonical_json",
    "strip_timings",
    "summarize",
    "write_report",
]

REPORT_SCHEMA = "dpaudit.report/1"

_DEFAULT_FILE_MODE = 0o644


def summarize(findings: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Counts per verdict, ``total``, and ``pass`` (true iff nothing refuted and no error)."""
    counts = {v.value: 0 for v in Verdict}
    for f in findings:
        counts[Verdict(f["verdict"]).value] += 1
    return {
        **counts,
        "total": len(findings),
        "pass": counts[Verdict.REFUTED.value] == 0 and counts[Verdict.ERROR.value] == 0,
    }


def build_report(
    command: str,
    subject: str,
    seed: int | None,
    findings: list[Finding],
    parameters: dict,
    started_at: str,
    finished: bool,
    *,
    total_duration_s: float | None = None,
    figures: Sequence[dict[str, Any]] | None = None,
    certification: dict[str, Any] | None = None,
    confidential_data: bool = False,
    show_confidential: bool = False,
    public_verdict_only: bool = False,
    outcome: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The report document (schema ``dpaudit.report/1``, see ``audit/report/schema.md``).

    ``findings`` keep their order.  ``total_duration_s`` defaults to the sum of the findings'
    ``duration_s``; pass the measured wall-clock time of the run to record that instead.
    ``figures`` (a list of figure specs, drawn in ``report.html``) and ``certification`` (the
    verdict block of ``dpaudit certify``) are optional top-level keys, present only when given
    (a report built without them is unchanged); they are validated by
    :func:`audit.report.html.validate_figures` / :func:`~audit.report.html.validate_certification`
    and stored in JSON form.
    ``confidential_data`` marks a report about confidential data: it then carries a
    ``confidentiality`` block, and :func:`write_report` writes it twice, the public view
    (:func:`audit.report.confidentiality.public_view`: nothing marked confidential) and the
    whole report in ``confidential/``; ``public_verdict_only`` (``--public-verdict-only``)
    makes that public view keep the overall verdict alone.  The returned document is the
    whole report.
    ``outcome`` (``{"word": str, "exit_code": int}``, from the CLI's
    outcome table) is the run's printed outcome, shown by the renderers instead of PASS/FAIL.
    Raises ``ValueError`` on a bad argument (naming it), including duplicate finding ids
    (counterexample file names are derived from ids).
    """
    if not isinstance(command, str) or not command:
        raise ValueError(f"command must be a non-empty str; got {command!r}")
    if not isinstance(subject, str):
        raise ValueError(f"subject must be a str; got {subject!r}")
    if seed is not None:
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an int or None; got {seed!r}")
        seed = int(seed)
    if not isinstance(parameters, dict):
        raise ValueError(f"parameters must be a dict; got {parameters!r}")
    if not isinstance(started_at, str):
        raise ValueError(f"started_at must be a str; got {started_at!r}")
    if not isinstance(finished, (bool, np.bool_)):
        raise ValueError(f"finished must be a bool; got {finished!r}")
    finding_dicts: list[dict[str, Any]] = []
    seen: set[str] = set()
    for f in findings:
        if not isinstance(f, Finding):
            raise ValueError(f"findings must be Finding objects; got {type(f).__name__}")
        if f.id in seen:
            raise ValueError(f"duplicate finding id {f.id!r}")
        seen.add(f.id)
        finding_dicts.append(f.to_dict())
    if total_duration_s is None:
        total_duration_s = math.fsum(f.duration_s for f in findings)
    total_duration_s = float(total_duration_s)
    if not math.isfinite(total_duration_s) or total_duration_s < 0:
        raise ValueError(f"total_duration_s must be finite and >= 0; got {total_duration_s!r}")
    try:
        params = to_jsonable(parameters)
    except TypeError as exc:
        raise ValueError(f"parameters are not JSON-able: {exc}") from exc
    figure_specs = validate_figures(figures) if figures is not None else None
    cert = validate_certification(certification) if certification is not None else None
    report: dict[str, Any] = {
        "schema": REPORT_SCHEMA,
        "command": command,
        "subject": subject,
        "seed": seed,
        "parameters": params,
        "finished": bool(finished),
        "summary": summarize(finding_dicts),
        "findings": finding_dicts,
        "timing": {"started_at": started_at, "total_duration_s": total_duration_s},
    }
    if figure_specs is not None:
        report["figures"] = figure_specs
    if cert is not None:
        report["certification"] = cert
    if outcome is not None:
        if (not isinstance(outcome, dict) or not isinstance(outcome.get("word"), str)
                or not isinstance(outcome.get("exit_code"), int)):
            raise ValueError(f"outcome must be {{'word': str, 'exit_code': int}}; got {outcome!r}")
        report["outcome"] = {"word": outcome["word"], "exit_code": outcome["exit_code"]}
    if confidential_data:
        report["confidentiality"] = confidentiality_block(True, show_confidential,
                                                         public_verdict_only)
    return report


def strip_timings(report: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of ``report`` without ``"timing"`` and without each finding's ``"duration_s"``.

    Nothing else is removed; the input is not modified.
    """
    out = copy.deepcopy(report)
    out.pop("timing", None)
    for f in out.get("findings", []):
        if isinstance(f, dict):
            f.pop("duration_s", None)
    return out


def canonical_json(obj: Any) -> str:
    """Sorted keys, 2-space indent, UTF-8 text, no NaN/Infinity, trailing newline."""
    return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def atomic_write_text(path: Path, text: str, mode: int | None = None) -> None:
    """Write ``text`` (UTF-8, ``\\n`` newlines) to ``path`` atomically.

    The text goes to a temporary file in the same directory, which is flushed, fsynced and then
    renamed over ``path`` with :func:`os.replace`.  On any exception the temporary file is
    removed and the exception re-raised: ``path`` is either untouched or fully written.
    An existing file's permission bits are kept and a new file gets mode 0644, unless
    ``mode`` is given (then the file has exactly that mode, from its first byte on).
    """
    path = Path(path)
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}")
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = _DEFAULT_FILE_MODE
    tmp_name: str | None = None
    try:
        with tempfile.NamedTemporaryFile(
            mode="w",
            encoding="utf-8",
            newline="\n",
            dir=path.parent,
            prefix=f".{path.name}.",
            suffix=".tmp",
            delete=False,
        ) as tmp:
            tmp_name = tmp.name
            tmp.write(text)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
        tmp_name = None
    except BaseException:
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
        raise
    _fsync_directory(path.parent)


def _fsync_directory(directory: Path) -> None:
    """Best effort: make the rename durable (not supported on every platform)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _rendered(report: dict[str, Any], html: bool) -> tuple[str, str, str | None,
                                                         list[tuple[str, str]]]:
    json_text = canonical_json(report)
    md_text = render_markdown(report)
    html_text = render_html(report) if html else None
    counterexamples: list[tuple[str, str]] = []
    for f in report.get("findings", []):
        cx = f.get("counterexample")
        if cx is not None:
            counterexamples.append((counterexample_relpath(f["id"]), canonical_json(cx)))
    return json_text, md_text, html_text, counterexamples


def _write_rendered(directory: Path, rendered: tuple[str, str, str | None,
                                                     list[tuple[str, str]]],
                    private: bool = False) -> list[Path]:
    """Write one view; ``private``: the confidential view (folders 0700, files 0600).
    Returns the paths written (files and the folders they were written into)."""
    json_text, md_text, html_text, counterexamples = rendered
    mode = PRIVATE_FILE_MODE if private else None
    _folder(directory, private)
    written: list[Path] = []
    for rel, cx_text in counterexamples:
        target = directory / rel
        _folder(target.parent, private)
        atomic_write_text(target, cx_text, mode)
        written += [target, target.parent]
    for name, text in (("report.md", md_text), ("report.html", html_text),
                       ("report.json", json_text)):
        if text is not None:
            atomic_write_text(directory / name, text, mode)
            written.append(directory / name)
    return written


def _folder(directory: Path, private: bool) -> None:
    if private:
        private_folder(directory)
    else:
        directory.mkdir(parents=True, exist_ok=True)


def _stamp_public(directory: Path, report: dict[str, Any], written: list[Path]) -> None:
    """The public files and the report folder (and the confidential folder's entry in it)
    take the run's start time as their modification time (:mod:`audit.report.disk_privacy`);
    only for a report about confidential data, whose duration is withheld."""
    if not is_confidential_data(report):
        return
    started = (report.get("timing") or {}).get("started_at")
    stamp_started([*written, directory / CONFIDENTIAL_DIR, directory], started)


def write_report(
    directory: Path, report: dict[str, Any], *, html: bool = True
) -> tuple[Path, Path]:
    """Write ``report.json`` (canonical JSON), ``report.md`` and ``report.html`` into ``directory``.

    Each finding's counterexample (if any) is written to
    ``directory/counterexamples/<finding-id>.json`` first, then ``report.md``, then
    ``report.html`` (unless ``html`` is false), then ``report.json`` last, each atomically.
    A report about confidential data is written twice: the whole report (counterexamples
    included) into ``directory/confidential/`` first (folders 0700, files 0600), then the
    public view (:func:`audit.report.confidentiality.public_view`) into ``directory``, whose
    files and folder then take ``timing.started_at`` as their modification time
    (:mod:`audit.report.disk_privacy`).
    Everything is serialised and rendered before anything is written, so a report that cannot
    be serialised (or whose figures / certification are malformed) leaves the directory
    untouched.  With ``html=False`` no ``report.html`` is written and one left by an earlier run
    is not removed.  Returns ``(json_path, markdown_path)`` of the (public) report; the HTML
    page, when written, is ``directory / "report.html"``.
    """
    directory = Path(directory)
    secret = None
    if is_confidential_data(report):
        secret = _rendered(confidential_view(report), html)
    public = _rendered(_checked_public(report), html)
    if secret is not None:
        _write_rendered(directory / CONFIDENTIAL_DIR, secret, private=True)
    _stamp_public(directory, report, _write_rendered(directory, public))
    if secret is not None:  # nothing but the public report beside confidential/
        check_public_folder(directory, CONFIDENTIAL_DIR)
    return directory / "report.json", directory / "report.md"


def _checked_public(report: dict[str, Any]) -> dict[str, Any]:
    """The public view, checked by structure and by a canary before anything is written
    (:mod:`audit.report.public_check`; a leak is dpaudit's bug: it raises)."""
    public = public_view(report)

    def render(r: dict[str, Any]) -> list[str]:
        texts = [canonical_json(r)]
        try:  # a planted figure may not be drawable: its JSON bytes are still searched
            texts += [render_markdown(r), render_html(r)]
        except ValueError:
            pass
        return texts

    check_public_view(report, public, public_view, render)
    return public


def begin_report(directory: Path, report: dict[str, Any], *, html: bool = True) -> None:
    """Mark a report folder as belonging to a run that has just started, before its first
    check: ``report.json`` is replaced first (atomically) by ``report`` (which should be an
    empty, unfinished report), then ``report.md`` / ``report.html``, and counterexample
    files left by an earlier run are removed (the confidential report's too).  A reader
    never sees an earlier run's finished report as current once this returns (a run killed
    during it leaves either the earlier ``report.json`` untouched or the new one)."""
    directory = Path(directory)
    views = [(directory, _checked_public(report))]
    if is_confidential_data(report):
        views.insert(0, (directory / CONFIDENTIAL_DIR, confidential_view(report)))
    texts = [(d, canonical_json(r), render_markdown(r), render_html(r) if html else None)
             for d, r in views]
    written: list[Path] = []
    for d, json_text, md_text, html_text in texts:
        private = d != directory
        mode = PRIVATE_FILE_MODE if private else None
        _folder(d, private)
        for name, text in (("report.json", json_text), ("report.md", md_text),
                           ("report.html", html_text)):
            if text is not None:
                atomic_write_text(d / name, text, mode)
                if not private:
                    written.append(d / name)
    for d in (directory, directory / CONFIDENTIAL_DIR):
        cx_dir = d / "counterexamples"
        if cx_dir.is_dir():
            for p in cx_dir.glob("*.json"):
                with contextlib.suppress(OSError):
                    p.unlink()
    _stamp_public(directory, report, written + [directory / "counterexamples"])
