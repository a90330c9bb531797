"""Attacks on a report by a reader who knows every record but one (the DP adversary), and
the data they are run on, shared by the report-privacy tests of the engine and of each
subject (tests/engine/report/test_report_privacy.py, tests/gini/, tests/subset_optimal/).

* ``data`` plants distinctive records (:data:`PLANTED`) among lognormal incomes;
* ``public_streams`` / ``normalised``: everything a reader of the shareable output sees
  (public report files, public counterexamples, stdout, stderr), with the start time and
  the run's folder replaced by placeholders (the only fields allowed to differ between
  neighbours);
* ``carried``: every number of every stream compared with target values (a literal leak,
  whatever its key);
* ``dictionary_attack``: every hash-like field compared with the plain SHA-256 (canonical
  sorted float64 and file bytes) of the data with each candidate for the missing record.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

PLANTED = [61.80339887, 27.18281828, 14.14213562, 31.41592653, 86.60254037]
NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
HEX = re.compile(r"[0-9a-fA-F]{32,}")
ENV = {**os.environ, "DPAUDIT_NO_PROGRESS": "1"}


def data(n: int = 60) -> np.ndarray:
    rng = np.random.default_rng(23)
    x = np.clip(np.round(rng.lognormal(3, 0.8, n - len(PLANTED)), 2), 0.5, 99)
    x = np.concatenate([x, PLANTED])
    rng.shuffle(x)
    return x


def write_csv(path: Path, x: np.ndarray) -> Path:
    path.write_text("income\n" + "\n".join(repr(float(v)) for v in x) + "\n",
                    encoding="utf-8")
    return path


def cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "audit.cli", *argv], capture_output=True,
                          text=True, env=ENV, timeout=900)


def public_streams(run: dict) -> dict[str, str]:
    """Every stream a reader of the shareable output sees: the public report files, any
    counterexample in the public folder, stdout and stderr (the confidential folder is the
    data holder's, not shared)."""
    d = run["dir"]
    out = {name: (d / name).read_text(encoding="utf-8")
           for name in ("report.json", "report.md", "report.html") if (d / name).exists()}
    for cx in sorted((d / "counterexamples").glob("*.json")):
        out[f"counterexamples/{cx.name}"] = cx.read_text(encoding="utf-8")
    out["stdout"] = run["stdout"]
    out["stderr"] = run["stderr"]
    return out


def normalised(run: dict) -> dict[str, str]:
    """The public streams with the wall-clock start time and the run's own folder path
    (the only fields allowed to differ between neighbours) replaced by placeholders."""
    out = {}
    for name, text in public_streams(run).items():
        text = text.replace(str(run["root"]), "<OUT>")
        text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", "<STARTED>", text)
        out[name] = text
    return out


def replace(x: np.ndarray, old: float, new: float) -> np.ndarray:
    y = x.copy()
    (i,) = np.flatnonzero(y == old)[:1]
    y[i] = new
    return y


def numbers(text: str) -> list[float]:
    out = []
    for m in NUM.findall(text):
        try:
            v = float(m)
        except ValueError:
            continue
        if math.isfinite(v) and v != 0:
            out.append(v)
    return out


def carried(streams: dict[str, str], targets: dict[str, float],
             rtol: float = 1e-7) -> list[str]:
    found = []
    for name, text in streams.items():
        nums = np.asarray(numbers(text))
        for label, t in targets.items():
            if nums.size and np.any(np.abs(nums - t) <= rtol * abs(t)):
                found.append(f"{name} carries {label} = {t!r}")
    return found


def canonical_sha256(x: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(np.sort(x).astype("<f8")).data).hexdigest()


def file_sha256(x: np.ndarray) -> str:
    text = "income\n" + "\n".join(repr(float(v)) for v in x) + "\n"
    return hashlib.sha256(text.encode()).hexdigest()


def dictionary_attack(streams: dict[str, str], x: np.ndarray, missing: int) -> list[str]:
    """The adversary knows every record but x[missing]; for each candidate on a cents grid
    around it (the true value among them) it hashes the data both ways and looks the
    digest up among every hex string of every stream."""
    fields = {h.lower() for text in streams.values() for h in HEX.findall(text)}
    hits = []
    true = float(x[missing])
    for c in np.round(np.arange(true - 0.5, true + 0.505, 0.01), 2):
        y = x.copy()
        y[missing] = c if abs(c - round(true, 2)) > 1e-9 else true
        for how, digest in (("canonical", canonical_sha256(y)), ("file", file_sha256(y))):
            if any(digest in f or f in digest for f in fields):
                hits.append(f"{how} SHA-256 of the data with candidate {y[missing]!r}")
    return hits


def keys(obj: object) -> set[str]:
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in keys(v)}
    return set()
