"""A new subject needs no engine edit: a throw-away subject installed the way a third party
installs one (its own package plus a real ``*.dist-info/entry_points.txt`` in a temporary
folder, on the path of a ``dpaudit`` subprocess) runs ``dpaudit certify --subject`` with

* a confidential value (the sum of its records, kept in a finding's confidential part),
* a noise law of its own (the hyperbolic secant law, a :class:`NoiseLaw` the engine does not
  own, used by the engine's exact-loss tester through the protocol), and
* a two-link certify chain (:class:`audit.checks.chain.Chain`),

and its public report (JSON, Markdown, HTML) and stdout never carry the secret.

The subject's source is the toy subject of ``tests/common/toy_subject/``, copied into the
temporary folder under another package name (every import inside it is relative).

Truths, independent of the engine: the hyperbolic secant law's loss for a location shift d at
scale b is (pi/2) d / b (``tests/common/toy_subject/noise_law.py``), so the correct scale
(pi/2)(U - L)/eps gives exactly eps = 1 and the Laplace scale (U - L)/eps gives pi/2; the
engine's own Laplace law would give 2/pi and 1 instead, so the figures show whose law ran.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.common.paths import ROOT

TOY_SRC = ROOT / "tests" / "common" / "toy_subject"
PKG = "acme_sums_subject"  # the third party's package name (not importable from the repo)
RECORDS = ["1234.5678", "2718.2818", "3141.5926", "4669.2016"]
LOWER, UPPER = "0", "5000"
NEIGHBOUR_RECORD = "17.0"  # replaces the last record in X'
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[+-]\d{2}:\d{2}|Z)?")


def _engine_digest() -> str:
    h = hashlib.sha256()
    for top in ("audit", "kernels", "proofs"):
        for p in sorted((ROOT / top).rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                h.update(str(p.relative_to(ROOT)).encode())
                h.update(p.read_bytes())
    h.update((ROOT / "pyproject.toml").read_bytes())
    return h.hexdigest()


def _install(site: Path) -> None:
    shutil.copytree(TOY_SRC, site / PKG, ignore=shutil.ignore_patterns("__pycache__"))
    info = site / "acme_sums_subject-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-sums-subject\n"
                                   "Version: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[dpaudit.subjects]\ntoy-sums = {PKG}:SUBJECT\n",
                                           encoding="utf-8")


def _dpaudit() -> list[str]:
    exe = shutil.which("dpaudit", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "audit.cli"]


def _run(args: list[str], cwd: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DPAUDIT_NO_PROGRESS": "1",
           "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run([*_dpaudit(), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def _secrets() -> dict[str, str]:
    """Every spelling of the confidential values a leak could take: the sum's repr, its
    digits, rounded forms, each record, and plain (unkeyed) digests of the data."""
    xs = [float(r) for r in RECORDS]
    total = sum(xs)
    out = {"sum repr": repr(total), "sum digits": repr(total).replace(".", "")[:8],
           "sum 2dp": f"{total:.2f}", "sum %g": f"{total:g}", "sum int": str(int(total))}
    for r, x in zip(RECORDS, xs, strict=True):
        out[f"record {r}"] = r
        out[f"record digits {r}"] = r.replace(".", "")
        out[f"record repr {r}"] = repr(x)
    csv_bytes = ("v\n" + "\n".join(RECORDS) + "\n").encode()
    forms = {"csv": csv_bytes, "sum repr": repr(total).encode(),
             "records": ",".join(RECORDS).encode(),
             "sorted records": ",".join(repr(x) for x in sorted(xs)).encode(),
             "records lines": "\n".join(RECORDS).encode()}
    for name, data in forms.items():
        for algo in ("sha256", "sha1", "md5", "blake2b"):
            out[f"{algo}({name})"] = hashlib.new(algo, data).hexdigest()
    return out


def _leaks(text: str, secrets: dict[str, str]) -> list[str]:
    return [name for name, s in secrets.items() if s in text]


@pytest.fixture(scope="module")
def third_party(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("third_party")
    site = tmp / "site"
    site.mkdir()
    _install(site)
    (tmp / "incomes.csv").write_text("v\n" + "\n".join(RECORDS) + "\n", encoding="utf-8")
    before = _engine_digest()
    runs = {}
    for run_id, extra in (("ok", []), ("broken", ["--laplace-scale"])):
        runs[run_id] = _run(["certify", "--subject", "toy-sums", "incomes.csv", "--lower",
                             LOWER, "--upper", UPPER, "--epsilon", "1", "--out", "out",
                             "--run-id", run_id, *extra], tmp, site)
    # the neighbour X': one record replaced, same file name and layout, same arguments
    nb = tmp / "neighbour"
    nb.mkdir()
    (nb / "incomes.csv").write_text("v\n" + "\n".join([*RECORDS[:-1], NEIGHBOUR_RECORD])
                                    + "\n", encoding="utf-8")
    runs["neighbour"] = _run(["certify", "--subject", "toy-sums", "incomes.csv", "--lower",
                              LOWER, "--upper", UPPER, "--epsilon", "1", "--out", "out",
                              "--run-id", "ok"], nb, site)
    listing = _run(["subjects"], tmp, site)
    return {"tmp": tmp, "site": site, "runs": runs, "listing": listing, "before": before,
            "after": _engine_digest()}


def _report(tmp: Path, run_id: str, conf: bool = False) -> dict:
    d = tmp / "out" / run_id / ("confidential" if conf else "")
    return json.loads((d / "report.json").read_text(encoding="utf-8"))


def _finding(rep: dict, fid: str) -> dict:
    return next(f for f in rep["findings"] if f["id"] == fid)


def test_the_subject_is_found_through_its_entry_point(third_party: dict) -> None:
    out = third_party["listing"].stdout
    assert "toy-sums" in out and "acme-sums-subject" in out, out
    # it lives in the temporary folder only: not importable from the repository
    assert importlib.util.find_spec(PKG) is None
    assert not (ROOT / PKG).exists() and third_party["site"].resolve() not in ROOT.parents


def test_certify_runs_the_two_link_chain_with_its_own_noise_law(third_party: dict) -> None:
    ok, broken = third_party["runs"]["ok"], third_party["runs"]["broken"]
    assert ok.returncode == 0, ok.stderr
    assert "VERDICT: CERTIFIED" in ok.stdout
    assert broken.returncode == 1, broken.stderr
    assert "VERDICT: NOT CERTIFIED" in broken.stdout
    tmp = third_party["tmp"]
    for run_id, want in (("ok", 1.0), ("broken", math.pi / 2)):
        rep = _report(tmp, run_id)
        assert [f["id"] for f in rep["findings"]] == ["toy.input", "toy.exact-loss"]
        ev = _finding(rep, "toy.exact-loss")["evidence"]
        assert ev["noise_law"] == "hyperbolic-secant"
        # (pi/2) d / b by hand; the engine's Laplace law would give 2/pi resp. 1
        assert ev["sup_loss"] == pytest.approx(want, rel=1e-12, abs=0)
        assert ev["analytic_check"] == pytest.approx(want, rel=1e-12, abs=0)
        assert ev["certified"] is True
    rep = _report(tmp, "broken")
    assert rep["certification"]["verdict"] == "NOT CERTIFIED"
    assert _finding(rep, "toy.exact-loss")["verdict"] == "refuted"


def test_the_refutation_replays(third_party: dict) -> None:
    tmp = third_party["tmp"]
    cx = tmp / "out" / "broken" / "confidential" / "counterexamples" / "toy.exact-loss.json"
    r = _run(["replay", str(cx)], tmp, third_party["site"])
    assert r.returncode == 1, r.stderr
    assert "STILL FAILS" in r.stdout


def _public_files(run_dir: Path) -> dict[str, str]:
    out = {}
    for name in ("report.json", "report.md", "report.html"):
        text = (run_dir / name).read_text(encoding="utf-8")
        if name == "report.json":
            rep = json.loads(text)
            rep.pop("timing", None)
            text = json.dumps(rep, sort_keys=True)
        out[name] = _TIME.sub("<time>", text)
    return out


def test_the_public_report_is_identical_on_neighbours(third_party: dict) -> None:
    """The definition of public: X and X' (one record replaced) give the same public files
    apart from the start time (and the same stdout)."""
    tmp = third_party["tmp"]
    assert third_party["runs"]["neighbour"].returncode == 0
    a = _public_files(tmp / "out" / "ok")
    b = _public_files(tmp / "neighbour" / "out" / "ok")
    for name in a:
        assert a[name] == b[name], name
    assert third_party["runs"]["ok"].stdout == third_party["runs"]["neighbour"].stdout
    # ... while the confidential reports differ (the sums differ): the comparison can fail
    ca = (tmp / "out" / "ok" / "confidential" / "report.json").read_text(encoding="utf-8")
    cb = (tmp / "neighbour" / "out" / "ok" / "confidential" / "report.json").read_text(
        encoding="utf-8")
    assert _TIME.sub("", ca) != _TIME.sub("", cb)


def test_the_secret_never_reaches_the_public_report(third_party: dict) -> None:
    tmp, secrets = third_party["tmp"], _secrets()
    dirs = {"ok": tmp / "out" / "ok", "broken": tmp / "out" / "broken",
            "neighbour": tmp / "neighbour" / "out" / "ok"}
    for run_id, run in third_party["runs"].items():
        d = dirs[run_id]
        for name in ("report.json", "report.md", "report.html"):
            text = (d / name).read_text(encoding="utf-8")
            assert _leaks(text, secrets) == [], (run_id, name)
        assert _leaks(run.stdout + run.stderr, secrets) == [], run_id


def test_the_search_finds_the_secret_in_the_confidential_report(third_party: dict) -> None:
    """Power of the search above: the confidential report does carry the sum."""
    tmp = third_party["tmp"]
    conf = _report(tmp, "ok", conf=True)
    total = sum(float(r) for r in RECORDS)
    assert _finding(conf, "toy.input")["confidential"]["sum"] == total
    text = (tmp / "out" / "ok" / "confidential" / "report.json").read_text(encoding="utf-8")
    assert "sum repr" in _leaks(text, _secrets())


def test_no_engine_file_was_edited_and_the_engine_names_no_law_of_it(
        third_party: dict) -> None:
    assert third_party["after"] == third_party["before"]
    for p in (ROOT / "audit").rglob("*.py"):
        text = p.read_text(encoding="utf-8").lower()
        assert "secant" not in text and "toy-sums" not in text, p
