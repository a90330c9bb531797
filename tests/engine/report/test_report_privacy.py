"""The shareable (public) report of ``dpaudit test MOD:fn --data FILE`` (the engine's door for
a user's own mechanism) reveals nothing beyond the public inputs: byte-identical public files
on X and on a replace-one neighbour X' (same seed), no plain hash of the file anywhere public
(attacks: tests/common/report_attacks.py).  The subjects' certify chains have their own:
tests/gini/test_report_privacy.py, tests/subset_optimal/test_report_privacy.py, and a
third-party subject tests/engine/test_third_party_subject.py."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from tests.common.report_attacks import (
    ENV,
    PLANTED,
    data,
    normalised,
    public_streams,
    replace,
    write_csv,
)

_MECH = '''
import numpy as np


def clipped_mean(data, rng):
    """Laplace mean of records clipped to [0, 100], replace-one sensitivity 100/n."""
    x = np.clip(np.asarray(data, dtype=float), 0.0, 100.0)
    return x.mean() + rng.laplace(0.0, 100.0 / x.size)
'''


def test_user_test_data_public_report_identical_on_neighbours(tmp_path: Path) -> None:
    """``dpaudit test MOD:fn --data FILE`` on X and X' (one planted record replaced, same
    seed): the public report files are byte-identical apart from the start time, stdout
    too (it prints no wall time since issue 37), and no plain hash of the file is written
    anywhere public.
    Fails on 2f77ba2 (the report carried ``data_sha256`` of the file and every figure)."""
    (tmp_path / "privmech_q.py").write_text(_MECH, encoding="utf-8")
    x = data(40)
    runs = []
    for k, v in (("X", x), ("X1", replace(x, PLANTED[0], 5.55))):
        csv = write_csv(tmp_path / f"{k}.csv", v)
        r = subprocess.run(
            [sys.executable, "-m", "audit.cli", "test", "privmech_q:clipped_mean",
             "--epsilon", "1", "--relation", "replace-one", "--data", str(csv), "--lower", "0",
             "--upper", "100", "--max-pairs", "2", "--max-samples", "20000", "--n-select",
             "20000", "--first-batch", "1000", "--no-float-bits", "--no-progress", "--out",
             str(tmp_path / k), "--run-id", "run"],
            capture_output=True, text=True, timeout=600, cwd=tmp_path,
            env={**ENV, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])})
        assert r.returncode in (0, 1, 3), r.stderr[-2000:]
        runs.append({"dir": tmp_path / k / "run", "stdout": r.stdout, "stderr": r.stderr,
                     "root": tmp_path / k})
    a, b = (normalised(r) for r in runs)
    diff = [k for k in a if a[k] != b[k]]
    assert not diff, {k: (a[k][:400], b[k][:400]) for k in diff}
    digest = hashlib.sha256((tmp_path / "X.csv").read_bytes()).hexdigest()
    assert not [k for k, v in public_streams(runs[0]).items() if digest in v]
    assert (runs[0]["dir"] / "confidential" / "report.json").exists()
