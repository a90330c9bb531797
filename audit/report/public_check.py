"""The writer checks its own public view before writing it (issue 39: the auditor audits
itself in the run, not only in the tests).

Two checks, both run on every report about confidential data that is written without
``--show-confidential`` (:func:`check_public_view`, called by :mod:`audit.report.writer`):

* **structure** — the public view holds no ``"confidential"`` part at any depth and in any
  container (dicts, lists, tuples), no counterexample, no finding duration, no figure that
  is not declared public, no timing but the start time, and no string carrying a run of 32
  or more hexadecimal digits (a plain digest of the data: the keyed fingerprint lives in the
  confidential report only);
* **canary** — a fresh random token (and a random float, for numeric slots) is planted in
  every confidential slot of *this run's* report — every leaf of every ``"confidential"``
  part, a new ``"confidential"`` part in every other dict of the report (any producer may
  mark a value anywhere), every counterexample, every finding duration, every non-public
  figure, the total duration — the public view of that planted copy is rendered to JSON,
  Markdown and HTML, and neither canary may occur in any of their bytes.  This tests the
  filter on the shape the run really produced, so a filter edit that leaves today's report
  shapes alone but lets a secret through in another shape is caught on the first report of
  that shape.

A failure raises :class:`PublicViewLeak` (an internal error of dpaudit, exit 4): nothing
is written.  Guarantee: what the filter keeps was not marked confidential by its producer;
a producer that puts a data-dependent value outside a ``"confidential"`` part is not
caught here (the neighbour-invariance tests hold producers to the rule).
"""

from __future__ import annotations

import copy
import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

from audit.report.confidentiality import MARK, is_confidential_data

__all__ = ["PUBLIC_FILES", "PublicViewLeak", "check_public_folder", "check_public_view",
           "plant_canary", "structural_problems"]

_HEX_RUN = re.compile(r"[0-9a-fA-F]{32,}")


class PublicViewLeak(RuntimeError):
    """The public view about to be written carries something confidential: a bug of
    dpaudit's report filter (exit 4, nothing written)."""


def structural_problems(public: Any) -> list[str]:
    """Why ``public`` (a public view) is not public, as short reasons (empty: none found)."""
    out: list[str] = []

    def walk(obj: Any, path: str) -> None:
        if isinstance(obj, dict):
            for k, v in obj.items():
                if k == MARK:
                    out.append(f"a '{MARK}' part at {path or '/'}")
                    continue
                walk(v, f"{path}/{k}")
        elif isinstance(obj, list | tuple | set | frozenset):
            for i, v in enumerate(obj):
                walk(v, f"{path}[{i}]")
        elif isinstance(obj, str) and _HEX_RUN.search(obj):
            out.append(f"a digest-like hexadecimal string at {path}")

    walk(public, "")
    if not isinstance(public, dict):
        return out
    for i, f in enumerate(public.get("findings") or []):
        if isinstance(f, dict):
            if f.get("counterexample"):
                out.append(f"a counterexample in finding {i}")
            if "duration_s" in f:
                out.append(f"a duration in finding {i}")
    for i, fig in enumerate(public.get("figures") or []):
        if not (isinstance(fig, dict) and fig.get("confidentiality") == "public"):
            out.append(f"figure {i} is not declared public")
    timing = public.get("timing")
    if isinstance(timing, dict) and set(timing) - {"started_at"}:
        out.append(f"timing fields {sorted(set(timing) - {'started_at'})}")
    return out


def _fill(obj: Any, token: str, number: float) -> Any:
    """``obj`` with every leaf replaced by a canary (strings by ``token``, numbers by
    ``number``), containers kept; an empty container gets one canary."""
    if isinstance(obj, dict):
        return {k: _fill(v, token, number) for k, v in obj.items()} or {"canary": token}
    if isinstance(obj, list | tuple):
        return [_fill(v, token, number) for v in obj] or [token]
    if isinstance(obj, bool) or obj is None:
        return token
    if isinstance(obj, int | float):
        return number
    return token


def _plant_marked(obj: Any, token: str, number: float) -> Any:
    """Every ``"confidential"`` part of ``obj`` (any depth, any container) filled, and a
    new ``"confidential"`` part holding the canary added to every other dict: a producer
    may mark a value confidential anywhere, so the filter must strip it anywhere, not only
    where today's producers happen to put it."""
    if isinstance(obj, dict):
        out = {k: (_fill(v, token, number) if k == MARK else _plant_marked(v, token, number))
               for k, v in obj.items()}
        out.setdefault(MARK, {"canary": token, "number": number})
        return out
    if isinstance(obj, list | tuple):
        return type(obj)(_plant_marked(v, token, number) for v in obj)
    return obj


def plant_canary(report: dict[str, Any]) -> tuple[dict[str, Any], str, float]:
    """A copy of ``report`` with a fresh canary in every confidential slot; returns the
    copy, the string canary and the numeric canary."""
    token = f"canary{secrets.token_hex(12)}"
    number = 7.0e5 + secrets.randbelow(10**9) / 1.0e9 + 1.0 / 3.0
    out = _plant_marked(copy.deepcopy(report), token, number)
    for f in out.get("findings") or []:
        if isinstance(f, dict):
            f[MARK] = _fill(f.get(MARK) or {}, token, number)
            f["counterexample"] = _fill(f.get("counterexample") or {}, token, number)
            f["duration_s"] = number
    for fig in out.get("figures") or []:
        if isinstance(fig, dict) and fig.get("confidentiality") != "public":
            for k in list(fig):
                if k not in ("confidentiality",):
                    fig[k] = _fill(fig[k], token, number)
    timing = out.get("timing")
    if isinstance(timing, dict):
        for k in list(timing):
            if k != "started_at":
                timing[k] = number
    return out, token, number


def check_public_view(report: dict[str, Any], public: dict[str, Any],
                      view: Callable[[dict[str, Any]], dict[str, Any]],
                      render: Callable[[dict[str, Any]], list[str]]) -> None:
    """Raise :class:`PublicViewLeak` when ``public`` (``view(report)``) is not public by
    structure, or when a canary planted in ``report``'s confidential slots survives
    ``view`` and ``render`` (the texts the writer would write).  A report that is not about
    confidential data, or is written with ``--show-confidential``, is not checked."""
    if not is_confidential_data(report) or report["confidentiality"].get("show_confidential"):
        return
    problems = structural_problems(public)
    planted, token, number = plant_canary(report)
    texts = render(view(planted))
    shown = {token, repr(number), f"{number:.10g}"}
    for text in texts:
        if any(s in text for s in shown):
            problems.append("a canary planted in a confidential slot reached the public "
                            "report")
            break
    if problems:
        raise PublicViewLeak("dpaudit's public-report filter would publish confidential "
                             "values (a bug of dpaudit; nothing written): "
                             + "; ".join(problems[:4]))


#: the only files of a confidential-data run's public report folder (the rest is under
#: ``confidential/``)
PUBLIC_FILES = ("report.json", "report.md", "report.html")


def check_public_folder(directory: Path, confidential_dir: str) -> None:
    """After a confidential-data run wrote its public view: every file of ``directory``
    outside ``confidential_dir`` must be one of :data:`PUBLIC_FILES` (a counterexample or
    any other file written beside the public report names the holder's records).  Any
    other file is removed and :class:`PublicViewLeak` raised (exit 4: a bug of dpaudit)."""
    stray = [p for p in sorted(directory.rglob("*")) if p.is_file()
             and p.relative_to(directory).parts[0] != confidential_dir
             and p.relative_to(directory).as_posix() not in PUBLIC_FILES]
    if stray:
        for p in stray:
            p.unlink(missing_ok=True)
        names = ", ".join(p.relative_to(directory).as_posix() for p in stray[:3])
        raise PublicViewLeak("dpaudit wrote files beside the public report of a run on "
                             f"confidential data (a bug of dpaudit; removed): {names}")
