"""The ``dpaudit`` command line (the ``dpaudit`` executable runs :func:`console`).

Modules: :mod:`.app` (the command table, the parser, :func:`main`), :mod:`.command` (the
:class:`~audit.cli.command.Command` base every command follows), :mod:`.run` (the report
lifecycle), :mod:`.outcomes` (words and exit codes), :mod:`.signals`, :mod:`.folders`
(``--out`` / ``--run-id``), :mod:`.arguments` and :mod:`.argtypes` (parsing),
:mod:`.progress`, and one module per command under :mod:`.commands`.
"""

from audit.cli.app import console, main

__all__ = ["console", "main"]
