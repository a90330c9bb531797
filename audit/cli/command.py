"""The shape of one ``dpaudit`` command, for the engine's commands and the subjects' alike:
a one-line ``help`` (shown in ``dpaudit --help``), a ``description`` (shown in
``dpaudit COMMAND --help``), ``add_arguments(parser)`` and ``run(args) -> exit code``.

A command ends through the outcome table (:mod:`audit.cli.outcomes`) and, if it writes a
report, through the lifecycle of :mod:`audit.cli.run`.  Bad input is raised as a
:class:`kernels.errors.InputError`; :func:`audit.cli.app.main` turns it into one line and
exit 2.  Any object with ``add_arguments`` and ``run`` (a module too) can stand in the
command table; ``help`` / ``description`` / ``usage`` are then optional.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["Command", "FunctionCommand"]


class Command:
    """Base class of a command: override :meth:`add_arguments` and :meth:`run`."""

    #: one line for ``dpaudit --help``
    help: str | None = None
    #: the paragraph of ``dpaudit COMMAND --help``
    description: str | None = None
    #: a usage line replacing argparse's (None: argparse's own)
    usage: str | None = None

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Declare the command's flags on its sub-parser (default: none)."""

    def run(self, args: argparse.Namespace) -> int:
        """Run the command on the parsed ``args``; return its exit code (from the outcome
        table)."""
        raise NotImplementedError


class FunctionCommand(Command):
    """A command made of two functions: ``add(parser)`` and ``runner(args) -> int``."""

    def __init__(self, help: str | None, description: str | None,
                 add: Callable[[argparse.ArgumentParser], None],
                 runner: Callable[[argparse.Namespace], int]) -> None:
        self.help = help
        self.description = description
        self.add = add
        self.runner = runner

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        self.add(parser)

    def run(self, args: argparse.Namespace) -> int:
        return self.runner(args)
