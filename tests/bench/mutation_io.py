"""Drivers for the engine mutants' CSV-reading and confidentiality runs
(``tests/bench/mutation_kill.py``, runs ``csv`` and ``confidentiality``), executed in a
subprocess on a shadow tree.  Each calls dpaudit's own command entry point
(:func:`audit.cli.main`) and prints one JSON document on stdout.

* ``csv``: ``dpaudit release FILE --column C --lower 0 --upper 1000 --epsilon 1 --seed 0
  --show-confidential``
  on :data:`CSV_CASES` (the fast C-reader path and the careful path, good files and every
  class of bad input); records each exit code, the printed data summary (n, sha256,
  true Gini) and the error message.  A mutant is killed when any exit code or summary
  differs from the unmutated tree's.
* ``confidentiality``: ``dpaudit certify --quick`` on a CSV with planted records (every link
  passes) and ``dpaudit test --data`` of a leaking known-answer twin on planted records in
  [0, 1] (flagged: its report has a counterexample); records, for both report folders,
  every leak of the public report folder (``report.json`` / ``.md`` / ``.html`` and any
  other file outside ``confidential/``) and the report's withheld list:

  - a planted value (the records, g(X) computed here in Fractions from eq. (2)) in any of
    several formats;
  - a value of the confidential report's ``confidential`` parts (non-integer numbers with
    >= 6 significant digits, long strings), in the formats the renderers use;
  - a key named ``confidential`` anywhere in the public JSON;
  - a figure of the public JSON not tagged ``"confidentiality": "public"``;
  - a data hash: a keyed fingerprint (``hmac-sha256:...``) or any 64-hex-digit string;
  - any file besides ``report.{json,md,html}`` and the ``confidential/`` folder (e.g. a
    counterexample written beside the public report);
  - anywhere, the confidential report included: a *plain* SHA-256 of the data (of the
    file's bytes or of the sorted records as float64: open to a dictionary attack by a
    reader who knows all records but one), and a fingerprint that is not the HMAC-SHA-256
    of the data under the key file beside the confidential report (RFC 2104, computed here
    with :mod:`hmac`).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import json
import re
import struct
import sys
from fractions import Fraction
from pathlib import Path

#: (name, file bytes, column); plain files take the fast path, quoted ones the careful path
CSV_CASES: list[tuple[str, bytes, str]] = [
    ("plain", b"a,b\n1,2.5\n3,4e1\n5,.5\n7,6.\n", "b"),
    ("plain-crlf-trailing", b"a,b\r\n1,2\r\n3,+4\r\n\r\n\r\n", "b"),
    ("plain-bom", b"\xef\xbb\xbfb\n1\n2\n3\n", "b"),
    ("quoted", b'"a","b"\n"1","2.5"\n"3","40"\n', "b"),
    ("quoted-bom", b'\xef\xbb\xbf"b"\n"1"\n"2"\n', "b"),
    ("blank-middle", b"b\n1\n\n2\n", "b"),
    ("blank-middle-quoted", b'"b"\n"1"\n\n"2"\n', "b"),
    ("blank-cell", b"a,b\n1,\n2,3\n", "b"),
    ("extra-field-quoted", b'"a","b"\n1,2,3\n4,5\n', "b"),
    ("extra-field-plain", b"a,b\n1,2,3\n4,5\n", "b"),
    ("short-row-quoted", b'"a","b"\n1\n4,5\n', "b"),
    ("nan", b"b\n1\nnan\n", "b"),
    ("inf-quoted", b'"b"\n1\n1e999\n', "b"),
    ("thousands", b'"b"\n"1,000"\n2\n', "b"),
    ("dup-column", b"b,b\n1,2\n3,4\n", "b"),
    ("no-column", b"a,c\n1,2\n", "b"),
    ("header-only", b"a,b\n", "b"),
    ("negative-ok", b"b\n-0\n0.0\n5\n", "b"),
]


def _summary(out: str) -> list[str]:
    keep = ("n = ", "true Gini")
    return [line.strip() for line in out.splitlines() if any(k in line for k in keep)]


def run_csv(work: Path) -> dict:
    from audit.cli import main

    res = {}
    for name, data, col in CSV_CASES:
        f = work / f"{name}.csv"
        f.write_bytes(data)
        buf, err = io.StringIO(), io.StringIO()
        # run inside the work folder on the bare file name: messages cut long paths in the
        # middle, so a full path would differ between the unmutated and the mutant folder
        with contextlib.chdir(work), contextlib.redirect_stdout(buf), \
                contextlib.redirect_stderr(err):
            try:
                code = main(["release", f.name, "--column", col, "--lower", "0", "--upper",
                             "1000", "--epsilon", "1", "--seed", "0",
                             "--show-confidential"])
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 2
        lines = [x for x in err.getvalue().replace(str(work), "<dir>").splitlines() if x]
        res[name] = {"exit": code, "summary": _summary(buf.getvalue()),
                     "error": lines[-1] if lines and code else ""}
    return res


PLANTED = [1234.5678, 2222.125, 3141.5926, 4711.0815, 5555.5, 6789.0123, 7777.75, 8080.8]


def _gini_eq2(xs: list[float]) -> Fraction:
    """Eq. (2) of Lan & Reiter in Fractions: sum_i (2i - n - 1) x_(i) / ((n - 1) sum x)."""
    v = sorted(Fraction(x) for x in xs)
    n = len(v)
    num = sum((2 * i - n - 1) * x for i, x in enumerate(v, start=1))
    return num / ((n - 1) * sum(v))


def _forms(x: float) -> list[str]:
    return sorted({repr(x), f"{x:.10g}", f"{x:.8g}", f"{x:.6g}"})


def _confidential_leaves(obj: object, inside: bool = False) -> list[object]:
    """The leaf values under every ``confidential`` key of a report (at any depth)."""
    out: list[object] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _confidential_leaves(v, inside or k == "confidential")
    elif isinstance(obj, list):
        for v in obj:
            out += _confidential_leaves(v, inside)
    elif inside:
        out.append(obj)
    return out


def _leaf_forms(v: object) -> list[str]:
    """How a confidential leaf would look in a public file: floats that are not integers,
    with >= 6 significant digits (shorter ones collide with public constants by chance), in
    the renderers' formats; strings of >= 16 characters holding a digit."""
    if isinstance(v, float) and v == v and abs(v) not in (0.0, float("inf")) \
            and v != int(v) and len(f"{abs(v):.6g}".replace(".", "").lstrip("0")) >= 6:
        return sorted({repr(v), f"{v:.10g}", f"{v:.8g}", f"{v:.6g}"})
    if isinstance(v, str) and len(v) >= 16 and any(c.isdigit() for c in v):
        return [v]
    return []


def _keys_named(obj: object, name: str, path: str = "") -> list[str]:
    if isinstance(obj, dict):
        out = [f"{path}/{name}"] if name in obj else []
        for k, v in obj.items():
            out += _keys_named(v, name, f"{path}/{k}")
        return out
    if isinstance(obj, list):
        return [p for i, v in enumerate(obj) for p in _keys_named(v, name, f"{path}[{i}]")]
    return []


_HEX64 = re.compile(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")
_FPRINT = re.compile(r"hmac-sha256:([0-9a-f]{64})")


#: records of the ``dpaudit test --data`` run (in [0, 1]; the known-answer twin
#: mutation_mechanisms.sum_twin leaks on them, so the run writes a counterexample)
PLANTED_UNIT = [0.12345678, 0.2222125, 0.31415926]


def _run(args: list[str]) -> int:
    from audit.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return main(args)
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else 2


def scan_report(run: Path, data_file: Path, records: list[float],
                extra: dict[str, list[str]]) -> list[str]:
    """Every leak of the report folder ``run`` about ``records`` (read from ``data_file``):
    the module docstring's list; ``extra``: more planted values (name -> forms)."""
    secrets = {f"record {x}": _forms(x) for x in records} | extra
    try:
        secret_rep = json.loads((run / "confidential" / "report.json").read_text())
    except (OSError, json.JSONDecodeError):
        secret_rep = {}
    for i, leaf in enumerate(_confidential_leaves(secret_rep)):
        forms = _leaf_forms(leaf)
        if forms:
            secrets[f"confidential value #{i} ({str(leaf)[:24]})"] = forms
    found = []
    public_texts = {}
    for name in ("report.json", "report.md", "report.html"):
        p = run / name
        text = p.read_text() if p.exists() else ""
        public_texts[name] = text
        for what, forms in secrets.items():
            if any(s in text for s in forms):
                found.append(f"{what} in {name}")
        if _FPRINT.search(text):
            found.append(f"keyed fingerprint in {name}")
        if _HEX64.search(text):
            found.append(f"64-hex-digit hash in {name}")
    if run.is_dir():
        for p in sorted(run.rglob("*")):
            rel = p.relative_to(run).as_posix()
            if p.is_file() and rel not in public_texts and not rel.startswith("confidential/"):
                found.append(f"file {rel} beside the public report")
    try:
        rep = json.loads(public_texts["report.json"])
        found += [f"key 'confidential' at {p} in report.json" for p in
                  _keys_named(rep, "confidential")]
        found += [f"figure {fig.get('id')!r} not tagged public in report.json"
                  for fig in rep.get("figures") or []
                  if not (isinstance(fig, dict) and fig.get("confidentiality") == "public")]
    except (json.JSONDecodeError, AttributeError):
        pass
    # data hashes anywhere (confidential report too): never a plain SHA-256 of the data;
    # every fingerprint the HMAC-SHA-256 of the data (file bytes or sorted float64 records)
    canonical = b"".join(struct.pack("<d", x) for x in sorted(records))
    plain = {hashlib.sha256(data_file.read_bytes()).hexdigest(): "file bytes",
             hashlib.sha256(canonical).hexdigest(): "sorted records"}
    key_file = run / "confidential" / "fingerprint.key"
    keyed: set[str] = set()
    if key_file.is_file():
        key = bytes.fromhex(key_file.read_text().strip())
        keyed = {hmac.new(key, data_file.read_bytes(), hashlib.sha256).hexdigest(),
                 hmac.new(key, canonical, hashlib.sha256).hexdigest()}
    if run.is_dir():
        for p in sorted(run.rglob("*")):
            if not p.is_file() or p.suffix not in (".json", ".md", ".html"):
                continue
            text = p.read_text(errors="replace")
            rel = p.relative_to(run).as_posix()
            for h in set(_HEX64.findall(text)):
                if h in plain:
                    found.append(f"plain SHA-256 of the {plain[h]} in {rel}")
            for h in set(_FPRINT.findall(text)):
                if h not in keyed:
                    found.append(f"fingerprint not the keyed HMAC of the data in {rel}")
    return found


def run_confidentiality(work: Path) -> dict:
    """``certify --quick`` on PLANTED (every link passes) and ``dpaudit test --data`` of the
    leaking twin on PLANTED_UNIT (flagged: a counterexample is written), both scanned."""
    f = work / "planted.csv"
    f.write_text("income\n" + "\n".join(repr(x) for x in PLANTED) + "\n")
    out = work / "reports"
    code = _run(["certify", str(f), "--column", "income", "--lower", "0", "--upper", "10000",
                 "--quick", "--out", str(out), "--run-id", "conf"])
    found = [f"certify: {x}" for x in scan_report(
        out / "conf", f, PLANTED, {"gini": _forms(float(_gini_eq2(PLANTED)))})]
    g = work / "planted-unit.csv"
    g.write_text("x\n" + "\n".join(repr(x) for x in PLANTED_UNIT) + "\n")
    code_t = _run(["test", "mutation_mechanisms:sum_twin", "--data", str(g), "--column", "x",
                   "--epsilon", "1", "--lower", "0", "--upper", "1", "--no-float-bits",
                   "--no-exact", "--max-samples", "20000", "--n-select", "20000",
                   "--no-progress", "--seed", "0", "--out", str(out), "--run-id", "conf-test"])
    found += [f"test: {x}" for x in scan_report(out / "conf-test", g, PLANTED_UNIT, {})]
    cx = sorted(p.relative_to(out / "conf-test").as_posix()
                for p in (out / "conf-test").rglob("counterexamples/*.json"))
    withheld: list = []
    try:
        rep = json.loads((out / "conf" / "report.json").read_text())
        withheld = rep.get("confidentiality", {}).get("withheld", [])
    except (OSError, json.JSONDecodeError):
        pass
    return {"exit": code, "exit_test": code_t, "counterexamples_test": cx,
            "leaks": sorted(set(found)), "withheld": withheld}


if __name__ == "__main__":
    what, work = sys.argv[1], Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    doc = run_csv(work) if what == "csv" else run_confidentiality(work)
    print(json.dumps(doc))
