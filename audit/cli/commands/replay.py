"""``dpaudit replay FILE``: re-run the check named in a counterexample JSON on its stored
input and show expected vs actual (a claim's registered replayer, or a subject's regress
suite for a kernel check).  Command module: it prints.

A counterexample is untrusted input (README, "Replaying a counterexample someone sent you"):
the file is checked field by field before use (:mod:`audit.untrusted`), its keyed MAC is
checked when the holder's key is at hand (:mod:`audit.cx_signature`), the code it names is
imported only under the trust model (:mod:`audit.trusted_code`; what is imported is shown
first), its data file only from its own report folder or ``--data``, and a replay that
evaluated nothing is an error, never PASSES NOW.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from audit import datasets, registry
from audit.cli.argtypes import real
from audit.cli.command import Command
from audit.cli.commands.regress import regress_suites
from audit.cli.outcomes import outcome
from audit.untrusted import (
    PROVE_CHECK,
    USER_CHECKS,
    UntrustedError,
    check_counterexample,
    load_json,
)
from kernels.errors import InputError
from kernels.validate import shorten

__all__ = ["COMMAND", "ReplayCommand"]

#: a data file a replay reads is at most this large (the counterexample names it)
DATA_CAP_BYTES = 2**31


class ReplayCommand(Command):
    help = "re-run a stored counterexample and show expected vs actual"
    description = ("Re-run the check named in a counterexample JSON on its stored input.  "
                   "The file is untrusted: code is imported only from the installed "
                   "environment and the current directory (--trust-code for the file's "
                   "import_path elsewhere), data only from the file's report folder or "
                   "--data, and a signed file is refused when it was altered.")

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("file", help="counterexample JSON (reports/<run>/counterexamples/*.json)")
        p.add_argument("--kernels", default=None,
                       help="override the kernel module stored in FILE")
        p.add_argument("--key-file", default=None, metavar="PATH",
                       help="the data holder's fingerprint key (default: the one the "
                       "counterexample names, beside the confidential report); it also "
                       "checks the file's keyed MAC")
        p.add_argument("--data", default=None, metavar="FILE",
                       help="the data file to replay on (default: the one the "
                       "counterexample names, inside its report folder)")
        p.add_argument("--max-seconds", default=None, type=real(low=0.0, low_open=True),
                       help="wall-time limit of the re-run (the same watchdog as dpaudit "
                       "test): a replay stopped by it is INCONCLUSIVE (exit 3), never a pass")
        p.add_argument("--trust-code", action="store_true",
                       help="also import the mechanism from the import_path FILE names when "
                       "it lies outside FILE's report folder (only for files you trust)")

    def run(self, a: argparse.Namespace) -> int:
        from audit.cli.watchdog import RunDeadline, watchdog

        try:
            with watchdog(a.max_seconds) as limit:
                return _run_replay(a)
        except RunDeadline:
            o = outcome("inconclusive")
            sys.stdout.write(f"  stopped by the time limit ({limit:g} s with grace): nothing "
                             f"decided\n  => {o.word}\n")
            return o.code


def _file_root(path: Path) -> Path:
    """The report folder of a counterexample (``REPORT/counterexamples/ID.json``), else
    the file's own folder."""
    parent = path.resolve().parent
    return parent.parent if parent.name == "counterexamples" else parent


def _run_replay(a: argparse.Namespace) -> int:
    from audit.protocols import load_kernels
    from audit.trusted_code import ImportGate

    label = f"counterexample {shorten(repr(a.file))}"
    raw = load_json(a.file, label)
    root = _file_root(Path(a.file))
    if isinstance(raw, dict) and raw.get("schema") == "dpaudit.proof-certificate/1":
        # a PROVED result's certificate: its program is untrusted code like a mechanism's
        from audit.cli.commands.prove_certificate import replay_certificate

        _ensure_cwd_importable()
        ImportGate(root, trust_code=a.trust_code,
                   show=lambda line: sys.stdout.write(line + "\n")).load(
            raw.get("program"), "program", "program")
        return replay_certificate(a.file, raw)
    doc = check_counterexample(raw, label)
    w = sys.stdout.write
    origin = _check_signature(doc, root, a.key_file)
    trusted = a.trust_code or origin == "verified"
    _check_consistent(doc)
    inputs = doc["inputs"]
    subject = str(doc.get("subject", ""))
    w(f"replay {doc['check']}\n  subject   {subject or '(none)'}\n"
      f"  origin    {_ORIGIN_WORDS[origin]}\n")
    gate = ImportGate(root, trust_code=trusted, show=lambda line: w(line + "\n"))
    _ensure_cwd_importable()
    gate.allow_import_path(inputs.get("import_path"))
    inputs.pop("import_path", None)  # honoured (or refused) above: never put on sys.path again
    _preload_code(doc, gate)
    _check_environment(inputs, w)
    src = inputs.get("source")
    if isinstance(src, dict) and "file" in src:
        inputs["source"] = _resolve_source(src, root, a.data, trusted)
    elif a.data is not None:
        raise InputError("--data: this counterexample reads no data file")
    fpr = inputs.get("fingerprint")  # a keyed data fingerprint: find its key
    if isinstance(fpr, dict):
        from audit import fingerprint

        inputs["fingerprint"] = fingerprint.resolved_reference(
            _key_ref(fpr, root), root, a.key_file)
    registry.load_all()
    # a check with a registered replayer (a claim's) is replayed by it; a regress check by
    # its subject's regress suite on the kernel module named in FILE (or --kernels)
    if (subject.startswith("kernels:") and doc["check"] not in registry.REPLAYERS) or a.kernels:
        name = a.kernels or _preload_kernels(subject, gate)
        mod = load_kernels(name)
        for suite in regress_suites().values():
            got = _guarded(functools.partial(suite.replay, doc, mod), doc)
            if got is not None:
                still, lines = got
                w("\n".join(lines) + "\n")
                o = outcome("still-fails" if still else "passes-now")
                w(f"  => {o.word}\n")
                return o.code
        raise InputError(f"{a.file}: no regress suite knows check {doc['check']!r}")
    _load_engine_replayers()
    if doc["check"] not in registry.REPLAYERS:
        raise InputError(f"{a.file}: no installed subject knows check {doc['check']!r}")
    return _replay_claim(doc, registry.REPLAYERS[doc["check"]])


_ORIGIN_WORDS = {
    "verified": "signed by the data holder's key: MAC verified (the file is as the run "
                "wrote it)",
    "unsigned": "unsigned (no keyed MAC): its origin is not checked; code and data are "
                "taken only from trusted places",
    "not checked": "signed, but the key is not at hand (--key-file): MAC not checked",
}


def _key_candidates(ref: dict[str, Any], root: Path) -> list[Path]:
    """Key files a counterexample may name that lie inside its report folder or the
    current directory (a key named elsewhere is used only through --key-file)."""
    from audit.trusted_code import is_inside

    out = _named_paths(ref, "key_file_from_report", "key_file", root)
    return [p for p in out if is_inside(p, root) or is_inside(p, os.getcwd())]


def _named_paths(ref: dict[str, Any], from_report: str, given: str, root: Path
                 ) -> list[Path]:
    """The places a reference names, in order: ``ref[from_report]`` relative to the
    report folder ``root``, then ``ref[given]`` as given (text without NUL only)."""
    out = []
    rel, as_given = ref.get(from_report), ref.get(given)
    if isinstance(rel, str) and "\x00" not in rel:
        out.append(root / rel)
    if isinstance(as_given, str) and "\x00" not in as_given:
        out.append(Path(as_given))
    return out


def _key_ref(ref: dict[str, Any], root: Path) -> dict[str, Any]:
    """``ref`` keeping only the key locations a replay may read (:func:`_key_candidates`)."""
    out = {k: v for k, v in ref.items() if k not in ("key_file", "key_file_from_report")}
    for c in _key_candidates(ref, root):
        if c.is_file():
            out["key_file"] = os.fspath(c)
            break
    return out


def _check_signature(doc: dict[str, Any], root: Path, key_file: str | None) -> str:
    """The file's origin (:func:`audit.cx_signature.verify`) with the key of ``--key-file``,
    else the one its fingerprint names inside its folder, else its folder's
    ``confidential/fingerprint.key`` / ``fingerprint.key``."""
    from audit import cx_signature, fingerprint

    key = None
    if key_file is not None:
        key = fingerprint.load_key(key_file)
    elif doc.get(cx_signature.FIELD) is not None:
        ref = doc["inputs"].get("fingerprint")
        cands = _key_candidates(ref, root) if isinstance(ref, dict) else []
        cands += [root / fingerprint.KEY_FILE_NAME,
                  root / "confidential" / fingerprint.KEY_FILE_NAME]
        for c in cands:
            if c.is_file():
                key = fingerprint.load_key(c)
                break
    return cx_signature.verify(doc, key)


def _check_consistent(doc: dict[str, Any]) -> None:
    """The subject a file names is the code its inputs run: a ``mechanism:REF`` subject
    with another mechanism or program inside is refused (a swapped program must not be
    reported under the original's name)."""
    subject = str(doc.get("subject") or "")
    inputs = doc["inputs"]
    ran = []
    if doc["check"] in USER_CHECKS:
        ran.append(inputs.get("mechanism"))
    if not ran:
        return
    named = subject.split(":", 1)[1] if subject.startswith("mechanism:") else None
    for r in ran:
        if r != named:
            raise UntrustedError(f"the file's subject is {shorten(repr(subject))} but its "
                                 f"inputs run {shorten(repr(r))}: refused (subject and code "
                                 "disagree; the file was altered)")


def _ensure_cwd_importable() -> None:
    from audit.privacy.import_root import ensure_cwd_on_path

    ensure_cwd_on_path()


def _preload_code(doc: dict[str, Any], gate: Any) -> None:
    """Import every piece of code the file names through ``gate`` (shown, then imported;
    refused outside the trusted places), so no replayer imports anything unchecked."""
    inputs = doc["inputs"]
    if doc["check"] in USER_CHECKS:
        gate.load(inputs.get("mechanism"), "mechanism", "inputs.mechanism")
        rel = inputs.get("relation")
        if isinstance(rel, str) and rel.startswith("custom:"):
            gate.load(rel[len("custom:"):], "relation", "inputs.relation")
    if doc["check"] == PROVE_CHECK:
        _preload_prove(doc, gate)


def _preload_prove(doc: dict[str, Any], gate: Any) -> None:
    """A ``prove`` refutation: the subject's mechanism and the witness's program, both
    through ``gate``; the program must be the subject's (a swapped program is refused)."""
    from audit.prove.refute import program_ref

    subject = str(doc.get("subject") or "")
    program = doc["inputs"]["witness"].get("program")
    if not subject.startswith("mechanism:"):
        raise UntrustedError(f"subject: a prove refutation names its mechanism "
                             f"(mechanism:MODULE:OBJECT), got {shorten(repr(subject))}")
    mech = gate.load(subject.split(":", 1)[1], "mechanism", "subject")
    try:
        own = program_ref(mech)
    except (AttributeError, TypeError):
        raise UntrustedError(f"subject {shorten(repr(subject))} is not a DSL mechanism"
                             ) from None
    if own != program:
        raise UntrustedError(f"the file's subject {shorten(repr(subject))} runs program "
                             f"{own!r}, but its witness names {shorten(repr(program))}: "
                             "refused (subject and code disagree; the file was altered)")
    gate.load(program, "program", "inputs.witness.program")


def _preload_kernels(subject: str, gate: Any) -> str:
    """The kernel module a ``kernels:MODULE`` subject names, imported through ``gate``."""
    from audit.untrusted import REF_PATTERN

    name = subject.split(":", 1)[1]
    if REF_PATTERN.fullmatch(name + ":x") is None:
        raise UntrustedError(f"subject: {shorten(repr(subject))} names no kernel module")
    gate.load_module(name, "kernels", "subject")
    return name


def _check_environment(inputs: dict[str, Any], w: Callable[[str], Any]) -> None:
    """Say which recorded package versions differ from the installed ones (a replay runs
    the installed code; a difference may explain a changed result)."""
    from importlib import metadata

    env = inputs.get("environment")
    if not isinstance(env, dict):
        return
    diffs = []
    for dist, ver in list(env.items())[:50]:
        try:
            now = metadata.version(str(dist))
        except (metadata.PackageNotFoundError, ValueError):
            now = "not installed"
        if now != ver:
            diffs.append(f"{shorten(str(dist), 40)} {shorten(str(ver), 20)} -> {now}")
    if diffs:
        w("  environment differs from the run's: " + "; ".join(diffs) + "\n")


def _resolve_source(src: dict[str, Any], root: Path, data: str | None,
                    trusted: bool) -> dict[str, Any]:
    """The data file to replay on: ``--data``, else the file the counterexample names when
    it lies inside its report folder (anywhere when the file is trusted: a verified MAC or
    --trust-code).  The file is checked to be a regular file under the size cap before
    anything reads it; its contents are never shown."""
    from audit.trusted_code import is_inside

    if data is not None:
        datasets.check_regular_file(data, f"--data {shorten(repr(data))}")
        return {**src, "file": data}
    for c in _named_paths(src, "file_from_report", "file", root):
        if not (trusted or is_inside(c, root)):
            continue
        if c.is_file():
            _check_data_file(c)
            return {**src, "file": os.fspath(c)}
    raise UntrustedError(
        "the data file this counterexample names was not found inside its report folder "
        f"{str(root)!r} (a replay reads data only from there, unless the file's keyed MAC "
        "verifies or --trust-code is given): pass --data FILE")


def _check_data_file(path: Path) -> None:
    """A data file the replay will read: a regular file of at most :data:`DATA_CAP_BYTES`
    (checked from its ``stat``, before it is opened)."""
    datasets.check_regular_file(path, f"data file {shorten(repr(os.fspath(path)))}")
    size = path.stat().st_size
    if size > DATA_CAP_BYTES:
        raise UntrustedError(f"data file {shorten(repr(os.fspath(path)))} is {size:,} "
                             f"bytes; at most {DATA_CAP_BYTES:,}")


def _load_engine_replayers() -> None:
    """Register the engine's own replayers (calibration runs, ``dpaudit test``): they live
    in modules that only ``replay`` needs, so they are imported here, not at start-up."""
    import audit.privacy.claims.claim_calibration  # noqa: F401  (calibrate --claims replayers)
    import audit.privacy.claims.gaussian_findings  # noqa: F401  (the Gaussian replayers)
    import audit.privacy.claims.user_claim  # noqa: F401  (dpaudit test --claim's replayer)
    import audit.privacy.user_audit  # noqa: F401  (registers the dpaudit test replayers)
    import audit.prove.replay  # noqa: F401  (registers the dpaudit prove refutation replayer)
    from audit.privacy.calibration import all_runs

    all_runs()  # registers calibration.<run> for the engine's and every subject's runs


#: exceptions a replayer raises on inputs that do not fit its check (a malformed file)
_MALFORMED = (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError,
              AssertionError)


def _user_frame(exc: BaseException) -> str | None:
    """``file:line`` of the innermost traceback frame outside dpaudit's own packages
    (the user's code that failed), or None when the failure is dpaudit's."""
    import audit
    import kernels

    ours = [os.path.dirname(os.path.abspath(m.__file__ or "")) for m in (audit, kernels)]
    user = None
    for fr in traceback.extract_tb(exc.__traceback__):
        f = os.path.abspath(fr.filename)
        if not any(f.startswith(o + os.sep) for o in ours) and "site-packages" not in f \
                and not f.startswith(os.path.dirname(os.__file__)):
            user = f"{fr.filename}:{fr.lineno}"
    return user


def _guarded(fn: Callable[[], Any], doc: dict[str, Any]) -> Any:
    """Run a replayer: the user's code failing is bad input naming the user's line (exit
    2); a replayer failing on inputs that do not fit its check is a malformed file."""
    try:
        return fn()
    except InputError:
        raise
    except SystemExit as exc:
        raise InputError(f"replay {doc['check']}: the code under replay called "
                         f"sys.exit({shorten(repr(exc.code))})"
                         + (f" at {_user_frame(exc)}" if _user_frame(exc) else "")) from None
    except RecursionError as exc:
        raise InputError(f"replay {doc['check']}: the inputs nest too deeply ({exc})") from None
    except Exception as exc:
        from audit.privacy.blackbox.crashes import MechanismCrash
        from audit.privacy.user_mechanism import MechanismOutputError

        if isinstance(exc, (MechanismCrash, MechanismOutputError)):  # the user's mechanism
            tb = (getattr(exc, "record", None) or {}).get("traceback") or ""
            last = str(tb[-1] if isinstance(tb, list) and tb else tb).strip()
            raise InputError(f"replay {doc['check']}: the mechanism failed: "
                             f"{shorten(str(exc), 200)}"
                             + (f" ({shorten(last, 200)})" if last else "")) from None
        where = _user_frame(exc)
        if where is not None:
            raise InputError(f"replay {doc['check']}: the code under replay raised "
                             f"{type(exc).__name__}: {shorten(str(exc), 200)} at {where}"
                             ) from None
        if isinstance(exc, _MALFORMED):
            raise InputError(f"counterexample {doc['check']!r}: malformed inputs "
                             f"({type(exc).__name__}: {shorten(str(exc), 200)})") from None
        raise


def _replay_claim(doc: dict, fn: Callable[[Any], Any]) -> int:
    from audit.findings import from_jsonable

    still, expected, actual, detail = _guarded(
        lambda: registry.Replay.of(fn(from_jsonable(doc["inputs"]))), doc)
    if actual is None or expected is None:
        raise InputError(f"replay {doc['check']}: the replay evaluated nothing (no "
                         f"{'actual' if actual is None else 'expected'} value: the stored "
                         "inputs select nothing to evaluate, e.g. a pair out of range); "
                         "nothing passes on nothing")
    w = sys.stdout.write
    inputs = doc["inputs"]
    shown = json.dumps(inputs)
    subject = str(doc.get("subject") or "")
    what = ("a certify link on data " + subject.split(":", 1)[1][:24] + "..."
            if subject.startswith("data:") else
            "paper claim " + subject.split(":", 1)[1] if subject.startswith("paper:")
            else subject or "check")
    under_test = ("the release on this data" if subject.startswith("data:")
                  else "the claim under test")
    ran = [f"mechanism {inputs['mechanism']}"] if doc["check"] in USER_CHECKS else []
    if doc["check"] == PROVE_CHECK:
        ran.append(f"program {inputs['witness'].get('program')}")
    if isinstance(inputs.get("relation"), str):
        ran.append(f"relation {inputs['relation']}")
    w(f"  ran       {', '.join(ran) if ran else what}\n")
    w(f"  input     {shown[:300]}{'...' if len(shown) > 300 else ''}\n")
    w(f"  expected  {expected!r}   (recomputed now)\n")
    w(f"  actual    {actual!r}   ({under_test}, recomputed now)\n")
    if detail:
        w(f"  detail    {detail}\n")
    o = outcome("still-fails" if still else "passes-now")
    w(f"  => {o.word}\n")
    return o.code


COMMAND = ReplayCommand()
