"""What every command (the engine's and the subjects') shares: exit codes and stderr progress.

Only command modules (``audit.cli`` and a subject's ``cli`` module) and the report modules
print or write files.
"""

from __future__ import annotations

import sys

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FINDINGS",
    "EXIT_INCONCLUSIVE",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_CERTIFIED",
    "EXIT_OK",
    "progress",
]

EXIT_OK = 0
EXIT_INTERNAL = 1  # unexpected internal error (also: regress/replay found a failure)
EXIT_FINDINGS = 1
EXIT_NOT_CERTIFIED = 1
EXIT_BAD_INPUT = 2
EXIT_INCONCLUSIVE = 3
EXIT_INTERRUPTED = 130


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
