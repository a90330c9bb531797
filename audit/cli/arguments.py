"""Argument parsing shared by every command: an ``ArgumentParser`` with one-line errors,
the ``dest -> --flag`` table that renders a library error in the user's terms, and the one
data-input convention (``DATA`` / ``--data FILE`` / ``--column`` / ``--sample``).  Nothing
here prints except argparse's own usage errors."""

from __future__ import annotations

import argparse
from typing import NoReturn

from audit.cli.outcomes import EXIT_BAD_INPUT
from kernels.errors import InputError

__all__ = ["ArgumentParser", "add_data_arguments", "data_choice", "flag_names"]


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
