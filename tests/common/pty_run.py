"""Run the CLI on a pseudo-terminal (stdout and stderr both on it) and return what the
terminal received: how the public-stream tests see progress bars and tickers, which are
shown only on a terminal (tests/engine/report/test_test_data_neighbours.py,
tests/engine/cli/test_public_streams.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.common.report_attacks import ENV

ROOT = Path(__file__).resolve().parents[2]


def pty_run(argv: list[str], cwd: Path, timeout: float = 900) -> str:
    """``python -m audit.cli ARGV`` on a pseudo-terminal, progress enabled (the
    ``DPAUDIT_NO_PROGRESS`` of the test environment removed); the terminal's text."""
    import pty

    master, slave = pty.openpty()
    env = {k: v for k, v in ENV.items() if k != "DPAUDIT_NO_PROGRESS"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *sys.path])
    proc = subprocess.Popen([sys.executable, "-m", "audit.cli", *argv], stdin=slave,
                            stdout=slave, stderr=slave, cwd=cwd, env=env, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            b = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not b:
            break
        chunks.append(b)
    proc.wait(timeout=timeout)
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace")
