"""Confidentiality of the Gini certify reports, checked by arithmetic on what they carry.

Rule (``audit/report/confidentiality.py``): the public report carries only public inputs,
data-independent facts and verdicts; everything computed from the data is marked
confidential where it is produced (a Finding's ``confidential`` part, a figure's level) and
written only to ``confidential/`` unless ``--show-confidential``.  The neighbour test and the
hash / refit attacks are in ``tests/gini/test_report_privacy.py``; this file keeps
the arithmetic attacks on the Gini chain (the writer's split by marking, and a toy subject
whose secret is caught by construction: ``tests/engine/report/test_confidentiality.py``).

The test plants distinctive records in a 2,000-record CSV, runs ``dpaudit certify --quick``
(a subprocess, as a user would) and attacks every report (json, md, html):

* every number in the text is compared with g(X), S(X), the noise scale s and each planted
  record (relative tolerance 1e-6: a literal leak, whatever its key);
* every figure series gives centre estimators -- midpoint of the x axis, the zero crossings of
  the curve, the argmax of |y|, the density-weighted mean -- and every witness event its
  midpoint and bounds; none may lie within s/2 of g(X) (the release itself pins g only to
  about s);
* power: the same estimators on the ``--show-confidential`` report (absolute axes, as before
  the fix) DO recover g(X) within s/2, so the attack is not vacuous.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kernels.gini.index import gini_sorted
from kernels.gini.sensitivity import smooth_sensitivity

PLANTED = [61.80339887, 27.18281828, 14.14213562, 31.41592653, 86.60254037, 97.3205080757]
ALPHA, BETA = 1.0 / 8.0, 1.0 / 6.0  # alg3 at epsilon 1, gamma 2
_NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _planted_data() -> np.ndarray:
    rng = np.random.default_rng(12)
    x = np.clip(np.round(rng.lognormal(3, 0.9, 2000), 2), 0.5, 99)
    x = np.concatenate([x[:-len(PLANTED)], PLANTED])
    rng.shuffle(x)
    return x


def _run(tmp: Path, csv: Path, run_id: str, *extra: str) -> Path:
    env = {**os.environ, "DPAUDIT_NO_PROGRESS": "1"}
    r = subprocess.run(
        [sys.executable, "-m", "audit.cli", "certify", str(csv), "--lower", "0", "--upper",
         "100", "--quick", "--out", str(tmp), "--run-id", run_id, *extra],
        capture_output=True, text=True, env=env, timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    return tmp / run_id


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("conf")
    x = _planted_data()
    csv = tmp / "planted incomes.csv"
    csv.write_text("income\n" + "\n".join(repr(float(v)) for v in x) + "\n", encoding="utf-8")
    xs = np.sort(x)
    g = gini_sorted(xs)
    S = smooth_sensitivity(xs, 0.0, 100.0, BETA).value
    return {
        "secret": {"g": g, "S": S, "s": S / ALPHA},
        "hidden": _run(tmp, csv, "hidden"),
        "shown": _run(tmp, csv, "shown", "--show-confidential"),
    }


def _numbers(text: str) -> list[float]:
    out = []
    for m in _NUM.findall(text):
        try:
            v = float(m)
        except ValueError:
            continue
        if math.isfinite(v):
            out.append(v)
    return out


def _json_numbers(obj) -> list[float]:
    if isinstance(obj, bool):
        return []
    if isinstance(obj, (int, float)):
        return [float(obj)]
    if isinstance(obj, str):
        return _numbers(obj)
    if isinstance(obj, dict):
        return [v for k, val in obj.items() if k != "timing" for v in _json_numbers(val)]
    if isinstance(obj, list):
        return [v for val in obj for v in _json_numbers(val)]
    return []


def _centre_estimates(report: dict) -> list[tuple[str, float]]:
    """What an attacker computes from the figures and witness events to locate g(X)."""
    est: list[tuple[str, float]] = []
    for fig in report.get("figures", []):
        for k, ser in enumerate(fig["series"]):
            x = np.asarray([float(v) for v in ser["x"]])
            y = np.asarray([float(v) for v in ser["y"]])[: x.size]
            x = x[: y.size]
            name = f"{fig['id']}[{k}]"
            est.append((f"{name} axis midpoint", (x.min() + x.max()) / 2))
            est.append((f"{name} argmax |y|", x[np.argmax(np.abs(y))]))
            if np.all(y >= 0) and y.sum() > 0:
                est.append((f"{name} weighted mean", float((x * y).sum() / y.sum())))
            for i in np.flatnonzero(np.sign(y[:-1]) * np.sign(y[1:]) < 0):
                t = y[i] / (y[i] - y[i + 1])
                est.append((f"{name} zero crossing", x[i] + t * (x[i + 1] - x[i])))
        for line in fig.get("vlines", []):
            est.append((f"{fig['id']} vline", float(line["x"])))
    for f in report["findings"]:
        w = f["evidence"].get("witness") if isinstance(f["evidence"], dict) else None
        if isinstance(w, dict) and isinstance(w.get("event"), str):
            nums = _numbers(w["event"])
            est += [(f"{f['id']} event bound", v) for v in nums]
            if len(nums) == 2:
                est.append((f"{f['id']} event midpoint", sum(nums) / 2))
    return est


def _leaks(report_dir: Path, secret: dict) -> list[str]:
    rep = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    g, s = secret["g"], secret["s"]
    found = [f"{name} = {v:.6g} (g = {g:.6g}, s = {s:.3g})"
             for name, v in _centre_estimates(rep) if abs(v - g) < s / 2]
    texts = {"report.json": _json_numbers(rep)}
    for name in ("report.md", "report.html"):
        texts[name] = _numbers((report_dir / name).read_text(encoding="utf-8"))
    for cx in sorted((report_dir / "counterexamples").glob("*.json")):
        texts[cx.name] = _json_numbers(json.loads(cx.read_text(encoding="utf-8")))
    targets = {"g(X)": g, "S(X)": secret["S"], "noise scale": s}
    targets.update({f"record {r}": r for r in PLANTED})
    for fname, nums in texts.items():
        for label, t in targets.items():
            if any(abs(v - t) <= 1e-6 * abs(t) for v in nums):
                found.append(f"{fname} carries {label}")
    return found


def test_no_report_reveals_g_s_or_records(runs: dict) -> None:
    leaks = _leaks(runs["hidden"], runs["secret"])
    assert not leaks, leaks
    rep = json.loads((runs["hidden"] / "report.json").read_text(encoding="utf-8"))
    conf = rep["confidentiality"]
    assert conf["data"] == "confidential" and not conf["show_confidential"]
    assert conf["view"] == "public" and conf["confidential_report"] == "confidential/report.json"
    # figures drawn from the data (relative axes included) are confidential: none public
    assert not rep.get("figures")
    secret = json.loads((runs["hidden"] / "confidential" / "report.json").read_text())
    assert {f["id"] for f in secret["figures"]} >= {"certify.exact-loss", "certify.posterior"}


def test_attack_has_power_on_the_shown_report(runs: dict) -> None:
    """The same arithmetic finds g(X) in the --show-confidential report (absolute axes, the
    pre-fix presentation): the check above can fail."""
    leaks = _leaks(runs["shown"], runs["secret"])
    assert any("zero crossing" in m or "midpoint" in m for m in leaks), leaks
    assert any("carries g(X)" in m for m in leaks), leaks
    rep = json.loads((runs["shown"] / "report.json").read_text(encoding="utf-8"))
    assert rep["confidentiality"]["show_confidential"] is True
