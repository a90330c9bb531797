"""The ``dpaudit`` command line: one command table (:func:`command_table`), the parser built
from it, and :func:`main`, the one place where every outcome becomes an exit code.  Only
command modules (:mod:`audit.cli.commands`, a subject's ``commands`` module) and the report
modules print or write files.

The engine's commands name no paper: subjects are discovered through the entry-point group
``dpaudit.subjects`` (:mod:`audit.registry`).  ``certify`` runs a subject's certify chain
(``--subject``; default: the subject that declares itself the default), ``release`` and other
subject commands are added by their subjects.

Outcomes and exit codes: one table, :data:`audit.cli.outcomes.OUTCOMES`, used by every
command (``dpaudit --help`` prints it):  0 CERTIFIED / PASS / COMPLETED / PASSES NOW /
RELEASED; 1 NOT CERTIFIED / FAIL / CHECK ERROR / STILL FAILS; 2 bad input or usage (one line
naming the flag or value, nothing written); 3 INCONCLUSIVE; 4 internal error (a dpaudit bug;
one line, ``DPAUDIT_TRACEBACK=1`` for the traceback); 130 interrupted by SIGINT or SIGTERM
(one line; the last report written is complete JSON marked unfinished).  A run that starts
first marks any earlier report in its folder as replaced (an empty unfinished report);
``--run-id`` is one folder name inside ``--out``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from audit import registry
from audit.cli.arguments import ArgumentParser, flag_names
from audit.cli.commands import calibrate, certify, prove, regress, replay, subjects, test
from audit.cli.commands.claims import ClaimsCommand
from audit.cli.outcomes import EXIT_BAD_INPUT, EXIT_OK, outcome, outcome_table
from audit.cli.signals import handle_signals, interrupted_message
from audit.record_errors import shown_cell
from kernels.errors import InputError
from kernels.validate import shorten

__all__ = ["build_parser", "command_table", "console", "main"]


def command_table(argv: Sequence[str] = ()) -> list[tuple[str, Any]]:
    """Every command, in the order ``dpaudit --help`` lists them: ``(name, command)`` where
    a command has ``add_arguments(parser)`` and ``run(args) -> int`` and optionally
    ``help`` / ``description`` / ``usage`` (:class:`audit.cli.command.Command`; a module
    with those functions works too).  To add an engine command, add one row here."""
    table: list[tuple[str, Any]] = []
    cert = certify.certify_command(argv)  # None when no subject offers a certify chain
    if cert is not None:
        table.append(("certify", cert))
    table += [
        ("calibrate", calibrate.COMMAND),
        ("test", test.COMMAND),
    ]
    # one row per command; a command module (add_arguments / run, optional help) is a row
    # as it is
    engine_after = [
        ("regress", regress.COMMAND),
        ("replay", replay.COMMAND),
        ("prove", prove.COMMAND),
        ("search", ClaimsCommand("search",
                                 "exhaustive and randomised search against exact oracles")),
        ("reproduce", ClaimsCommand("reproduce",
                                    "re-running the paper's experiments and figures")),
        ("subjects", subjects.COMMAND),
    ]
    taken = {"certify"} | {n for n, _ in table} | {n for n, _ in engine_after}
    return table + _subject_commands(taken) + engine_after


def _subject_commands(taken: set[str]) -> list[tuple[str, Any]]:
    """The installed subjects' own commands (e.g. ``release``); a name the engine or an
    earlier subject already uses is skipped, and so is a command that cannot be loaded."""
    out: list[tuple[str, Any]] = []
    for s in registry.subjects().values():
        for name, ref in sorted(s.commands.items()):
            if name in taken:
                continue
            try:
                cmd = registry.resolve(ref)
            except registry.SubjectLoadError:
                continue
            taken.add(name)
            out.append((name, cmd))
    return out


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The ``dpaudit`` parser: one sub-parser per row of :func:`command_table`; the parsed
    namespace carries the command object as ``_command``."""
    p = ArgumentParser(
        prog="dpaudit",
        description="Audit toolkit for differentially private statistics and mechanisms.",
        epilog="outcomes (every command; exit code, word):\n" + outcome_table(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name, cmd in command_table(argv):
        kw = {"usage": cmd.usage} if getattr(cmd, "usage", None) else {}
        sp = sub.add_parser(name, help=getattr(cmd, "help", None),
                            description=getattr(cmd, "description", None), **kw)
        cmd.add_arguments(sp)
        sp.set_defaults(_command=cmd)
    return p


#: longest one-line message (a message quoting huge input is cut, never a megabyte)
MESSAGE_MAX = 600


def _one_line(text: object) -> str:
    return shorten(" ".join(str(text).split()), MESSAGE_MAX)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``dpaudit`` command; returns its exit code (see the outcome table).  Never
    raises (``SystemExit`` from argparse becomes its code): bad input is one line on stderr
    and exit 2, an interrupt (SIGINT or SIGTERM) one line and 130, a dpaudit bug one line
    and 4."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # a command may put the working directory (or a replay's import folder) on sys.path to
    # import a user's MODULE; that lasts for the command only, so a caller running several
    # commands in one process (a notebook, the test suite) is not left importing -- and
    # scanning for package metadata -- from a folder of an earlier command
    saved_path = list(sys.path)
    try:
        return _main(argv)
    finally:
        sys.path[:] = saved_path


def _main(argv: list[str]) -> int:
    command = "dpaudit"
    flags: dict[str, str] = {}
    show = False
    with handle_signals():
        try:
            parser = build_parser(argv)
            try:
                args = parser.parse_args(argv)
            except SystemExit as exc:  # --help (0) or a one-line usage error (2)
                return int(exc.code) if isinstance(exc.code, int) else EXIT_BAD_INPUT
            if args.command is None:
                parser.print_help(sys.stderr)
                return EXIT_BAD_INPUT
            command = f"dpaudit {args.command}"
            flags = _flags_of(parser, args.command)
            show = bool(getattr(args, "show_confidential", False))
            return args._command.run(args)
        except InputError as exc:  # every bad input: one base class
            print(f"{command}: error: {_one_line(exc.render(flags))}"
                  f"{shown_cell(exc) if show else ''}", file=sys.stderr)
            return outcome("bad-input").code
        except KeyboardInterrupt as exc:
            why = str(exc) if str(exc) in ("SIGINT", "SIGTERM") else "SIGINT"
            print(f"{command}: {interrupted_message(why)}", file=sys.stderr)
            return outcome("interrupted").code
        except SystemExit as exc:  # code under audit called sys.exit: never its exit code
            print(f"{command}: internal error: SystemExit({_one_line(exc.code)}) was raised "
                  "while the command ran (a bug in dpaudit, or user code calling sys.exit; "
                  "set DPAUDIT_TRACEBACK=1 for the traceback)", file=sys.stderr)
            return outcome("internal-error").code
        except BrokenPipeError:
            return EXIT_OK
        except Exception as exc:  # a bug: one line (the traceback on request), never rc 1
            if os.environ.get("DPAUDIT_TRACEBACK"):
                import traceback

                traceback.print_exc()
            print(f"{command}: internal error: {type(exc).__name__}: {_one_line(exc)[:300]} "
                  "(a bug in dpaudit; set DPAUDIT_TRACEBACK=1 for the traceback)",
                  file=sys.stderr)
            return outcome("internal-error").code


def _flags_of(parser: argparse.ArgumentParser, command: str) -> dict[str, str]:
    """The ``dest -> --flag`` table of one command's sub-parser."""
    for act in parser._actions:  # the sub-parsers action (argparse has no public accessor)
        choices = getattr(act, "choices", None)
        if isinstance(choices, dict) and command in choices:
            return flag_names(choices[command])
    return {}


def console() -> None:
    """The ``dpaudit`` executable (and ``python -m audit.cli``): :func:`main`, then exit with
    its code.  SIGINT/SIGTERM are ignored outside :func:`main`'s own handlers, which it
    installs at once and which restore this on return: a signal that arrives after the run
    is over (final report written, handlers gone) cannot replace the run's exit code by a
    KeyboardInterrupt during interpreter shutdown."""
    import signal

    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, signal.SIG_IGN)
    sys.exit(main())
