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
* ``confidentiality``: ``dpaudit certify --quick`` on a CSV with planted records; records
  which planted values (the records, g(X) computed here in Fractions from eq. (2)) appear
  in report.json / .md / .html in any of several formats, and the report's withheld list.
"""

from __future__ import annotations

import contextlib
import io
import json
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


def run_confidentiality(work: Path) -> dict:
    from audit.cli import main

    f = work / "planted.csv"
    f.write_text("income\n" + "\n".join(repr(x) for x in PLANTED) + "\n")
    out = work / "reports"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = main(["certify", str(f), "--column", "income", "--lower", "0", "--upper",
                         "10000", "--quick", "--out", str(out), "--run-id", "conf"])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    secrets = {f"record {x}": _forms(x) for x in PLANTED}
    secrets["gini"] = _forms(float(_gini_eq2(PLANTED)))
    found = []
    withheld: list = []
    for name in ("report.json", "report.md", "report.html"):
        p = out / "conf" / name
        text = p.read_text() if p.exists() else ""
        for what, forms in secrets.items():
            if any(s in text for s in forms):
                found.append(f"{what} in {name}")
    try:
        rep = json.loads((out / "conf" / "report.json").read_text())
        withheld = rep.get("confidentiality", {}).get("withheld", [])
    except (OSError, json.JSONDecodeError):
        pass
    return {"exit": code, "leaks": sorted(set(found)), "withheld": withheld}


if __name__ == "__main__":
    what, work = sys.argv[1], Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    doc = run_csv(work) if what == "csv" else run_confidentiality(work)
    print(json.dumps(doc))
