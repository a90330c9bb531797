"""What every command (the engine's and the subjects') shares: the outcome table (exit code
and printed word of every outcome), signal handling, the report folder rules (``--out`` /
``--run-id``), one-line argument errors, and stderr progress.

Only command modules (``audit.cli`` and a subject's ``cli`` module) and the report modules
print or write files.

The outcome table :data:`OUTCOMES` is the single place that says which word a command prints
(and stores in its report) and which exit code it returns; every command ends through
:func:`outcome`.  ``README.md`` and ``dpaudit --help`` quote it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from audit.argtypes import check_run_id, finite_float
from kernels.errors import InputError
from kernels.validate import shorten

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FINDINGS",
    "EXIT_INCONCLUSIVE",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_CERTIFIED",
    "EXIT_OK",
    "OUTCOMES",
    "ArgumentParser",
    "Interrupted",
    "Outcome",
    "OutputError",
    "finite_float",
    "flag_names",
    "handle_signals",
    "hold_report_dir",
    "outcome",
    "finish",
    "outcome_table",
    "progress",
    "progress_bar",
    "report_dir",
    "run_completed",
    "start_report",
    "write",
]

EXIT_OK = 0
EXIT_FINDINGS = 1  # a check refuted / a counterexample still fails / NOT CERTIFIED / FAIL
EXIT_NOT_CERTIFIED = 1
EXIT_BAD_INPUT = 2
EXIT_INCONCLUSIVE = 3
EXIT_INTERNAL = 4  # an unexpected internal error (a bug in dpaudit), one line on stderr
EXIT_INTERRUPTED = 130


@dataclass(frozen=True)
class Outcome:
    """One row of the outcome table: the word printed (and stored in the report as
    ``outcome``), the exit code, and what it means."""

    key: str
    word: str
    code: int
    meaning: str


#: every outcome of every command: key -> (word, exit code, meaning)
OUTCOMES: dict[str, Outcome] = {o.key: o for o in (
    Outcome("certified", "CERTIFIED", EXIT_OK,
            "certify: no link refuted or undecided (proof links verified, sampled links "
            "not-refuted)"),
    Outcome("not-certified", "NOT CERTIFIED", EXIT_NOT_CERTIFIED,
            "certify: a link refuted (a replayable counterexample is written)"),
    Outcome("inconclusive", "INCONCLUSIVE", EXIT_INCONCLUSIVE,
            "certify / calibrate / regress / test / prove: nothing refuted, but a check could not "
            "decide, crashed, ran out of time, or nothing was checked"),
    Outcome("pass", "PASS", EXIT_OK,
            "calibrate / regress: every check agrees (calibrate: every tester matches its "
            "known answer; regress: nothing refuted)"),
    Outcome("fail", "FAIL", EXIT_FINDINGS,
            "calibrate / regress: a check was refuted (regress: a replayable counterexample)"),
    Outcome("completed", "COMPLETED", EXIT_OK,
            "prove / search / reproduce: every claim ran (refuted paper claims are results)"),
    Outcome("check-error", "CHECK ERROR", EXIT_FINDINGS,
            "prove / search / reproduce: a check crashed"),
    Outcome("still-fails", "STILL FAILS", EXIT_FINDINGS,
            "replay: the counterexample still fails"),
    Outcome("passes-now", "PASSES NOW", EXIT_OK,
            "replay: the counterexample no longer reproduces"),
    Outcome("proved", "PROVED", EXIT_OK,
            "prove MODULE:OBJECT: Z3 verified an alignment proof for the stated scope"),
    Outcome("refuted", "REFUTED", EXIT_FINDINGS,
            "prove MODULE:OBJECT: an exact counterexample violates the claimed epsilon"),
    Outcome("not-refuted", "NOT REFUTED", EXIT_OK,
            "test: the sampled tests found no violation of the claimed epsilon (not a proof)"),
    Outcome("flagged", "FLAGGED", EXIT_FINDINGS,
            "test: the claimed epsilon is violated at the stated confidence, or the "
            "mechanism crashed on a data set (a replayable counterexample is written)"),
    Outcome("released", "RELEASED", EXIT_OK, "release: a DP value was computed and printed"),
    Outcome("listed", "LISTED", EXIT_OK, "subjects / --list: printed"),
    Outcome("subject-error", "SUBJECT ERROR", EXIT_FINDINGS,
            "subjects: an installed subject failed to load (listed)"),
    Outcome("bad-input", "ERROR", EXIT_BAD_INPUT,
            "bad input or usage: one line naming the flag or value; nothing written"),
    Outcome("internal-error", "INTERNAL ERROR", EXIT_INTERNAL,
            "a bug in dpaudit: one line on stderr (DPAUDIT_TRACEBACK=1 shows the traceback)"),
    Outcome("interrupted", "INTERRUPTED", EXIT_INTERRUPTED,
            "SIGINT (Ctrl-C) or SIGTERM: one line on stderr; the last report written is "
            "complete JSON marked unfinished"),
)}

#: every exit code a dpaudit command can return
EXIT_CODES = frozenset(o.code for o in OUTCOMES.values())


def outcome(key: str) -> Outcome:
    """The row of :data:`OUTCOMES` for ``key`` (a KeyError is a programming error)."""
    return OUTCOMES[key]


def outcome_table() -> str:
    """The outcome table as fixed-width text (for ``--help`` epilogs and the README)."""
    return "\n".join(f"  {o.code:>3}  {o.word:<14} {o.meaning}" for o in OUTCOMES.values())


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@contextlib.contextmanager
def progress_bar(total: float | None, desc: str, unit: str = "it") -> Iterator[Any]:
    """A tqdm progress bar on stderr, shown only when stderr is a terminal (quiet in CI,
    pipes and tests).  Yields an object with ``update(n)`` and ``set_postfix_str(s)``."""
    show = sys.stderr.isatty() and os.environ.get("DPAUDIT_NO_PROGRESS") is None
    bar: Any = None
    if show:
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover - tqdm is a dependency
            tqdm = None
        if tqdm is not None:
            bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False,
                       dynamic_ncols=True)
    if bar is None:
        bar = _NoBar()
    try:
        yield bar
    finally:
        bar.close()


class _NoBar:
    def update(self, n: float = 1) -> None:
        pass

    def set_postfix_str(self, s: str) -> None:
        pass

    def close(self) -> None:
        pass


# ----------------------------------------------------------------------------- arguments
class ArgumentParser(argparse.ArgumentParser):
    """argparse with one-line errors: ``dpaudit CMD: error: MESSAGE`` and exit 2 (no usage
    block).  ``--help`` is unchanged."""

    def error(self, message: str) -> NoReturn:
        prog = self.prog
        self.exit(EXIT_BAD_INPUT, f"{prog}: error: {' '.join(message.split())} "
                  f"(see {prog} --help)\n")


def flag_names(parser: argparse.ArgumentParser) -> dict[str, str]:
    """``dest -> how the user spells it`` for every argument of ``parser`` (``--epsilon``,
    ``DATA`` for a positional): the table an :class:`kernels.errors.InputError` about a
    library parameter is rendered with, so the message names the flag the user typed."""
    out: dict[str, str] = {}
    for act in parser._actions:  # argparse keeps its arguments here (no public accessor)
        if act.dest in (argparse.SUPPRESS, "help"):
            continue
        longs = [o for o in act.option_strings if o.startswith("--")]
        out[act.dest] = (longs[0] if longs else act.option_strings[0] if act.option_strings
                         else str(act.metavar or act.dest).upper())
    return out


# ----------------------------------------------------------------------------- signals
class Interrupted(KeyboardInterrupt):
    """Raised in the main thread by SIGTERM (SIGINT raises it too), so both end the same
    way: one line on stderr and exit 130."""


_STATE: dict[str, Any] = {"completed": False, "deferring": 0, "pending": None,
                          "report": None, "locks": [], "held": set()}


def _handler(signum: int, _frame: Any) -> None:
    if _STATE["completed"]:
        return  # the final report is written: the run is over, nothing to interrupt
    if _STATE["deferring"]:
        _STATE["pending"] = signum
        return
    raise Interrupted(signal.Signals(signum).name)


def run_completed() -> None:
    """Call once the final report is on disk: later signals no longer turn the run into an
    interrupted one (its outcome stands)."""
    _STATE["completed"] = True


@contextlib.contextmanager
def defer_signals() -> Iterator[None]:
    """Hold SIGINT/SIGTERM while a report is being written (all files of one version land
    together); the interrupt is raised right after."""
    _STATE["deferring"] += 1
    try:
        yield
    finally:
        _STATE["deferring"] -= 1
        pending = _STATE["pending"]
        if not _STATE["deferring"] and pending is not None:
            _STATE["pending"] = None
            if not _STATE["completed"]:
                raise Interrupted(signal.Signals(pending).name)


@contextlib.contextmanager
def handle_signals() -> Iterator[None]:
    """Install the SIGINT and SIGTERM handlers for one command run (main thread only;
    restored afterwards, so in-process callers such as tests are unaffected)."""
    _STATE.update(completed=False, deferring=0, pending=None, report=None)
    if threading.current_thread() is not threading.main_thread():
        try:
            yield
        finally:
            _release_locks()
        return
    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    for s in old:
        signal.signal(s, _handler)
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        _release_locks()
        _STATE.update(completed=False, deferring=0, pending=None, report=None)


# ----------------------------------------------------------------------------- --out
class OutputError(InputError):
    """``--out`` / ``--run-id`` is unusable, or another run holds the folder (bad input:
    exit 2, nothing written)."""


def report_dir(out: str | os.PathLike[str], run_id: str) -> Path:
    """The report folder ``out/run_id``, checked before anything is written.

    ``run_id`` must be one plain folder name (no ``/``, ``\\``, ``..``, no absolute path,
    no control characters), so the folder always lies inside ``--out``; ``--out`` and the
    folder must not be existing non-folders, and the nearest existing parent must be
    writable.  Raises :class:`OutputError` naming the flag."""
    rid = str(run_id)
    try:
        check_run_id(rid)
    except InputError as exc:
        raise OutputError(f"--run-id {exc}") from None
    base = Path(out)
    if str(out) == "" or "\x00" in str(out):
        raise OutputError(f"--out must be a folder path, got {shorten(repr(str(out)))}")
    target = base / rid
    for p, flag in ((base, "--out"), (target, "--out/--run-id")):
        if p.exists() and not p.is_dir():
            raise OutputError(f"{flag} {str(p)!r} exists and is not a folder")
    try:
        if base.resolve() not in (target.resolve().parents):
            raise OutputError(f"--run-id {rid!r} leads outside --out {str(out)!r}")
    except OSError as exc:
        raise OutputError(f"--out {str(out)!r} cannot be used: {exc.strerror or exc}") from None
    probe = target
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise OutputError(f"--out {str(out)!r}: {str(probe)!r} is a file, not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise OutputError(f"--out {str(out)!r}: folder {str(probe)!r} is not writable")
    return target


def hold_report_dir(folder: Path) -> None:
    """Create the report folder and hold an exclusive lock on it for the rest of the run
    (released when the command returns, or by the OS when the process dies): a second run
    into the same ``--out``/``--run-id`` at the same time is refused with
    :class:`OutputError` (exit 2) instead of silently overwriting the first one's report.
    POSIX ``flock`` on the folder itself, so no lock file is left behind; elsewhere a no-op."""
    folder = Path(folder)
    if str(folder.resolve()) in _STATE["held"]:
        return  # this run holds it already
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"--out: cannot create {shorten(repr(str(folder)))}: "
                          f"{exc.strerror or exc}") from None
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise OutputError(f"--out/--run-id {shorten(repr(str(folder)))}: another dpaudit run "
                          "is writing this report folder now; wait for it to end or choose "
                          "another --run-id") from None
    _STATE["locks"].append(fd)
    _STATE["held"].add(str(folder.resolve()))


def _release_locks() -> None:
    while _STATE["locks"]:
        with contextlib.suppress(OSError):
            os.close(_STATE["locks"].pop())
    _STATE["held"].clear()


def mark_report_started(folder: Path) -> None:
    """Record that this run has put its (unfinished) report into ``folder``: an interrupt
    then says where the unfinished report is, and otherwise that none was written."""
    _STATE["report"] = Path(folder)


def interrupted_message(why: str) -> str:
    """The one stderr line of an interrupted run, true about what is on disk."""
    folder = _STATE.get("report")
    if folder is None:
        return f"interrupted ({why}) before any report was written"
    return (f"interrupted ({why}); the last report written, {folder / 'report.json'}, is "
            "complete and marked unfinished")


class LinkTicker:
    """A tqdm bar on stderr that shows the elapsed time of the running step (a long link
    reports nothing itself for minutes); updated by a daemon thread every half second.
    Quiet (does nothing) when stderr is not a terminal."""

    def __init__(self) -> None:
        self._bar: Any = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, desc: str) -> None:
        self.stop()
        if not sys.stderr.isatty() or os.environ.get("DPAUDIT_NO_PROGRESS") is not None:
            return
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover - tqdm is a dependency
            return
        self._bar = tqdm(total=None, desc=desc, unit="s", file=sys.stderr, leave=False,
                         bar_format="{desc}: {elapsed} elapsed", dynamic_ncols=True)
        self._stop = threading.Event()
        bar, stop = self._bar, self._stop

        def tick() -> None:
            while not stop.wait(0.5):
                bar.refresh()

        self._thread = threading.Thread(target=tick, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._bar is None:
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._bar.close()
        self._bar = None
        self._thread = None


# ----------------------------------------------------------------------------- data input
def add_data_arguments(p: argparse.ArgumentParser, default_sample: str) -> None:
    """The one data-input convention of every command that reads data: a positional
    ``DATA`` file or ``--data FILE`` (the same thing), ``--column C`` of that file, or
    ``--sample NAME`` (a built-in sample; the default when no file is given)."""
    p.add_argument("data", nargs="?", default=None, metavar="DATA",
                   help="CSV file with a header row (same as --data FILE)")
    p.add_argument("--data", dest="data_file", default=None, metavar="FILE",
                   help="CSV file with a header row (same as the positional DATA)")
    p.add_argument("--column", default=None, help="column of the CSV file to read")
    p.add_argument("--sample", default=None,
                   help=f"built-in sample instead of a file (default {default_sample})")


def data_choice(a: argparse.Namespace) -> tuple[str | None, str | None]:
    """``(file, sample)`` from :func:`add_data_arguments`'s flags (at most one is set);
    raises :class:`kernels.errors.InputError` for a conflict, in CLI terms."""
    from kernels.errors import InputError

    if a.data is not None and a.data_file is not None and a.data != a.data_file:
        raise InputError("give the data file once: either DATA or --data FILE")
    file = a.data if a.data is not None else a.data_file
    if file is not None and a.sample is not None:
        raise InputError("give either a data file (DATA / --data FILE) or --sample, not both")
    if file is None and a.column is not None:
        raise InputError("--column needs a data file (DATA or --data FILE)")
    if file is not None and not str(file).strip():
        raise InputError("the data file name is empty")
    return file, a.sample


# ----------------------------------------------------------------------------- report lifecycle
def start_report(out: str, run_id: str, command: str, subject: str, seed: int | None,
                 params: dict, started: str, **kw) -> Path:
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
    from audit.report import write_report

    with defer_signals():
        write_report(out_dir, report)


def finish(out_dir: Path, report_fn, key: str) -> tuple[dict, int]:
    """Build the final report with the outcome ``key`` of the outcome table, write it,
    mark the run complete (later signals do not change its outcome); return
    ``(report, exit code)``."""
    o = outcome(key)
    rep = report_fn({"word": o.word, "exit_code": o.code})
    # the run is complete the moment the final report is on disk: a signal that arrives
    # while it is written is held and then dropped (exit 130 with a finished report on disk
    # would contradict it; a race the faster certify of issue 16 made visible)
    with defer_signals():
        write(out_dir, rep)
        run_completed()
    return rep, o.code
