"""The CSV reader's odd lines, each with a stated rule, cross-checked against Python's
``csv`` module on random files; and the reader's in-run self-check (issue 39).

Rules (``load_csv_column``): a byte-order mark is stripped; LF, CRLF and quoted newlines
inside a cell are read as the csv module reads them; empty lines at the very end are
ignored; an empty line before a record, a whitespace-only line, a comment line (``# ...``)
and a blank cell are errors naming the line (exit 2 in the commands).  Truth: an
independent parse written here with the csv module (header row, column by name, float of
the stripped cell).  Then the reader's own cross-check (:func:`audit.datasets.
cross_check_read`, run inside every read) refuses reader mutants that read another column
or one record fewer: the command would exit 4 instead of certifying on the wrong data.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit import datasets
from audit.datasets import DataFileError, ReaderMismatch, load_csv_column

_names = st.text(alphabet="abcxyz_", min_size=1, max_size=6)
_values = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, width=64)


def _independent(text: str, column: str) -> list[float]:
    rows = [r for r in csv.reader(io.StringIO(text.lstrip("\ufeff"), newline=""))]
    while rows and not rows[-1]:
        rows.pop()
    header = [h.strip() for h in rows[0]]
    i = header.index(column)
    return [float(r[i].strip()) for r in rows[1:]]


@st.composite
def csv_files(draw):  # noqa: ANN001, ANN201
    names = draw(st.lists(_names, min_size=1, max_size=4, unique=True))
    n = draw(st.integers(1, 30))
    table = [[draw(_values) for _ in names] for _ in range(n)]
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    quote = draw(st.booleans())
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator=eol,
                   quoting=csv.QUOTE_ALL if quote else csv.QUOTE_MINIMAL)
    w.writerow(names)
    for row in table:
        w.writerow([repr(v) for v in row])
    text = buf.getvalue() + eol * draw(st.integers(0, 2))
    if draw(st.booleans()):
        text = "\ufeff" + text
    return text, names, draw(st.sampled_from(names))


@settings(max_examples=60, deadline=None)
@given(csv_files())
def test_random_files_read_as_the_csv_module_reads_them(tmp_path_factory, case) -> None:  # noqa: ANN001
    text, names, column = case
    p = tmp_path_factory.mktemp("csv") / "d.csv"
    p.write_bytes(text.encode("utf-8"))
    got = load_csv_column(p, column)
    assert np.array_equal(got, np.asarray(_independent(text, column)))


def test_a_quoted_newline_inside_another_column_is_one_record(tmp_path: Path) -> None:
    p = tmp_path / "q.csv"
    p.write_text('name,x\n"two\nlines",1.5\nb,2\n', encoding="utf-8")
    assert load_csv_column(p, "x").tolist() == [1.5, 2.0]


@pytest.mark.parametrize("body, line", [
    ("x\n1\n\n2\n", 3),        # empty line before a record
    ("x\n1\n   \n2\n", 3),     # whitespace-only line
    ("x\n# comment\n1\n", 2),  # comment line
    ("x,y\n1,\n", 2),          # blank cell
])
def test_odd_lines_are_errors_naming_the_line(tmp_path: Path, body: str, line: int) -> None:
    p = tmp_path / "odd.csv"
    p.write_text(body, encoding="utf-8")
    col = "y" if body.startswith("x,y") else "x"
    with pytest.raises(DataFileError, match=f"line {line}"):
        load_csv_column(p, col)


def _write(tmp_path: Path) -> Path:
    p = tmp_path / "two.csv"
    p.write_text("a,b\n1,10\n2,20\n3,30\n", encoding="utf-8")
    return p


@pytest.mark.parametrize("mutant", [
    lambda v: v[:-1],                 # one record fewer
    lambda v: v * 10,                 # another column (b = 10 a)
    lambda v: np.append(v, v[-1]),    # one record more
])
def test_the_reader_refuses_its_own_wrong_read(tmp_path: Path, mutant,  # noqa: ANN001
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    p = _write(tmp_path)
    assert load_csv_column(p, "a").tolist() == [1.0, 2.0, 3.0]
    real = datasets._load_careful
    monkeypatch.setattr(datasets, "_fast_column", lambda *a: None)
    monkeypatch.setattr(datasets, "_load_careful", lambda *a: mutant(real(*a)))
    with pytest.raises(ReaderMismatch, match="bug of dpaudit"):
        load_csv_column(p, "a")


def test_the_cross_check_reports_what_it_read(tmp_path: Path) -> None:
    p = _write(tmp_path)
    got = datasets.cross_check_read(p, "b", np.array([10.0, 20.0, 30.0]))
    assert got == {"column_named": "b", "column": "b", "n": 3, "data_lines": 3,
                   "compared": "every record"}
