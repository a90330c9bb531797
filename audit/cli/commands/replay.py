"""``dpaudit replay FILE``: re-run the check named in a counterexample JSON on its stored
input and show expected vs actual (a claim's registered replayer, or a subject's regress
suite for a kernel check).  Command module: it prints."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from audit import datasets, registry
from audit.cli.command import Command
from audit.cli.commands.regress import regress_suites
from audit.cli.outcomes import outcome
from kernels.errors import InputError

__all__ = ["COMMAND", "ReplayCommand"]


class ReplayCommand(Command):
    help = "re-run a stored counterexample and show expected vs actual"
    description = "Re-run the check named in a counterexample JSON on its stored input."

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("file", help="counterexample JSON (reports/<run>/counterexamples/*.json)")
        p.add_argument("--kernels", default=None,
                       help="override the kernel module stored in FILE")
        p.add_argument("--key-file", default=None, metavar="PATH",
                       help="the data holder's fingerprint key (default: the one the "
                       "counterexample names, beside the confidential report)")

    def run(self, a: argparse.Namespace) -> int:
        return _run_replay(a)


def _run_replay(a: argparse.Namespace) -> int:
    from audit.protocols import load_kernels

    try:
        doc = json.loads(Path(a.file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read counterexample {a.file!r}: {exc}") from exc
    if not isinstance(doc, dict):
        raise InputError(f"{a.file!r} is not a JSON object")
    if doc.get("schema") == "dpaudit.proof-certificate/1":  # a PROVED result's certificate
        from audit.cli.commands.prove_certificate import replay_certificate

        return replay_certificate(a.file, doc)
    if doc.get("schema") != "dpaudit.counterexample/1":
        raise InputError(
            f"{a.file!r} is not a dpaudit counterexample (schema {doc.get('schema')!r})"
        )
    if not isinstance(doc.get("check"), str):
        raise InputError(f"{a.file!r} names no check")
    if not isinstance(doc.get("inputs"), dict):
        raise InputError(f"{a.file!r} has no inputs object")
    # a data reference is resolved against the working directory, then the report folder
    # (FILE is REPORT/counterexamples/ID.json), so a replay works from any directory
    src = doc["inputs"].get("source")
    if isinstance(src, dict) and "file" in src:
        doc["inputs"]["source"] = datasets.resolve_file_reference(
            src, Path(a.file).resolve().parent.parent)
    fpr = doc["inputs"].get("fingerprint")  # a keyed data fingerprint: find its key
    if isinstance(fpr, dict):
        from audit import fingerprint

        doc["inputs"]["fingerprint"] = fingerprint.resolved_reference(
            fpr, Path(a.file).resolve().parent.parent, a.key_file)
    subject = str(doc.get("subject", ""))
    registry.load_all()
    # a check with a registered replayer (a claim's) is replayed by it; a regress check by
    # its subject's regress suite on the kernel module named in FILE (or --kernels)
    if (subject.startswith("kernels:") and doc["check"] not in registry.REPLAYERS) or a.kernels:
        name = a.kernels or subject.split(":", 1)[1]
        for suite in regress_suites().values():
            got = suite.replay(doc, load_kernels(name))
            if got is not None:
                still, lines = got
                sys.stdout.write("\n".join(lines) + "\n")
                o = outcome("still-fails" if still else "passes-now")
                sys.stdout.write(f"  => {o.word}\n")
                return o.code
    registry.load_all()
    _load_engine_replayers()
    if doc["check"] not in registry.REPLAYERS:
        raise InputError(f"{a.file}: no installed subject knows check {doc['check']!r}")
    return _replay_claim(doc, registry.REPLAYERS[doc["check"]])


def _load_engine_replayers() -> None:
    """Register the engine's own replayers (calibration runs, ``dpaudit test``): they live
    in modules that only ``replay`` needs, so they are imported here, not at start-up."""
    import audit.privacy.claims.user_claim  # noqa: F401  (dpaudit test --claim's replayer)
    import audit.privacy.user_audit  # noqa: F401  (registers the dpaudit test replayers)
    import audit.prove.replay  # noqa: F401  (registers the dpaudit prove refutation replayer)
    from audit.privacy.calibration import all_runs

    all_runs()  # registers calibration.<run> for the engine's and every subject's runs


def _replay_claim(doc: dict, fn: Callable[[Any], Any]) -> int:
    from audit.findings import from_jsonable

    try:
        still, expected, actual, detail = registry.Replay.of(fn(from_jsonable(doc["inputs"])))
    except (KeyError, TypeError) as exc:
        raise InputError(f"counterexample {doc['check']!r}: malformed inputs ({exc})") from None
    w = sys.stdout.write
    shown = json.dumps(doc["inputs"])
    subject = str(doc.get("subject") or "")
    what = ("a certify link on data " + subject.split(":", 1)[1][:24] + "..."
            if subject.startswith("data:") else
            "paper claim " + subject.split(":", 1)[1] if subject.startswith("paper:")
            else subject or "check")
    under_test = ("the release on this data" if subject.startswith("data:")
                  else "the claim under test")
    w(f"replay {doc['check']} ({what})\n")
    w(f"  input     {shown[:300]}{'...' if len(shown) > 300 else ''}\n")
    w(f"  expected  {expected!r}   (recomputed now)\n")
    w(f"  actual    {actual!r}   ({under_test}, recomputed now)\n")
    if detail:
        w(f"  detail    {detail}\n")
    o = outcome("still-fails" if still else "passes-now")
    w(f"  => {o.word}\n")
    return o.code


COMMAND = ReplayCommand()
