"""The C-reader fast path of ``load_csv_column`` (issue 16) against the careful path.

The careful path (``datasets._load_careful``: csv module, a regular expression per cell,
line-numbered errors) is the independent truth: on every file the public loader must
return the same float64 array bit for bit, or raise the same ``DataFileError`` message.
Files are generated with the features the fast path has to recognise as *not plain*
(quotes, spaces, blank lines, lone CR, ragged rows, overflow, ``nan``, odd numerals) as
well as plain ones, and the block size is shrunk so that block seams fall everywhere.
"""

from __future__ import annotations

import io
import itertools
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from audit import datasets as D
from audit.datasets import DataFileError


def _outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except DataFileError as exc:
        return ("error", str(exc))


def _same(a, b) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "error":
        return a[1] == b[1]
    x, y = a[1], b[1]
    return x.dtype == y.dtype == np.float64 and x.shape == y.shape and \
        np.array_equal(x.view(np.uint64), y.view(np.uint64))


_plain_cells = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(min_value=0, max_value=1e12).map(lambda v: f"{v:.6f}"),
    st.integers(-10**20, 10**20).map(str),
)
_cells = st.one_of(
    _plain_cells,
    st.sampled_from(["+1", ".5", "5.", "1e5", "1E-3", "-0", "007", "1e999", "-1e400",
                     "", " 3", "nan", "inf", "1.2.3", "--1", "e5", "1e", ".", "+", "1,5",
                     '"7"', "1_0", "0x10", "\u0661"]),
    st.text(alphabet="0123456789.eE+-", min_size=1, max_size=6),
)


@st.composite
def _csv_files(draw):
    width = draw(st.integers(1, 3))
    names = [f"c{i}" for i in range(width)]
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    cells = draw(st.sampled_from([_plain_cells, _cells]))
    rows = []
    for _ in range(draw(st.integers(0, 12))):
        r = [draw(cells) for _ in range(width)]
        if draw(st.integers(0, 20)) == 0:
            r = r[:-1] or ["1", "2"]  # a ragged row
        rows.append(",".join(r))
    if rows and draw(st.integers(0, 10)) == 0:
        rows.insert(draw(st.integers(0, len(rows))), "")  # a blank line inside
    text = ",".join(names) + nl + nl.join(rows)
    if draw(st.booleans()):
        text += nl
    text += nl * draw(st.integers(0, 2))  # trailing blank lines
    if draw(st.integers(0, 15)) == 0:
        text = text.replace("\r\n", "\r")  # old Mac line ends
    bom = draw(st.booleans())
    column = draw(st.sampled_from([None, *names, "missing"]))
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"), column


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(_csv_files(), st.sampled_from([1 << 24, 8, 13]))
@example((b"c0\n1\n\n2\n", None), 1 << 24)
@example((b"c0\r\n1\r\n\r\n2\r\n", None), 1 << 24)
@example((b"c0\n1\n2\n\n\n", None), 8)
@example((b"c0\n1\r2\n", None), 1 << 24)
@example((b"c0,c1\n1,2\n3\n", "c1"), 1 << 24)
@example((b"c0,c1\n1,,\n3,4\n", "c1"), 1 << 24)
@example((b"c0\n1e999\n", None), 1 << 24)
@example((b"c0\n", None), 1 << 24)
@example((b"", None), 1 << 24)
def test_fast_path_equals_the_careful_path(tmp_path_factory, case, block) -> None:
    data, column = case
    p = tmp_path_factory.mktemp("csv") / "f.csv"
    p.write_bytes(data)
    label = f"data file {str(p)!r}"
    old = D._FAST_BLOCK
    D._FAST_BLOCK = block
    try:
        got = _outcome(D.load_csv_column, p, column)
    finally:
        D._FAST_BLOCK = old
    want = _outcome(D._load_careful, p, label, column)
    assert _same(got, want), (data, column, got, want)


def test_plain_files_take_the_fast_path(tmp_path) -> None:
    """The fast path is actually taken on plain census-style files (one column, or one of
    several, LF or CRLF, BOM, trailing blank lines), and refuses the odd ones."""
    x = np.random.default_rng(3).lognormal(10, 1, 5000)
    body = "\n".join(repr(float(v)) for v in x)
    plain = {
        "one.csv": "income\n" + body + "\n",
        "crlf.csv": "income\r\n" + body.replace("\n", "\r\n") + "\r\n\r\n",
        "bom.csv": "\ufeffincome\n" + body,
        "three.csv": "id,income,w\n" + "\n".join(f"{i},{float(v)!r},1" for i, v in enumerate(x)),
    }
    for name, text in plain.items():
        p = tmp_path / name
        p.write_bytes(text.encode("utf-8"))
        got = D._fast_column(p, "t", "income")
        assert got is not None, name
        np.testing.assert_array_equal(got, x)
    odd = {"space.csv": "income\n 1\n", "quote.csv": 'income\n"1"\n',
           "blank.csv": "income\n1\n\n2\n", "nan.csv": "income\nnan\n",
           "over.csv": "income\n1e999\n", "cr.csv": "income\n1\r2\n"}
    for name, text in odd.items():
        p = tmp_path / name
        p.write_text(text, encoding="utf-8", newline="")
        assert D._fast_column(p, "t", "income") is None, name


def test_loadtxt_accepts_exactly_the_careful_numerals_over_the_plain_alphabet() -> None:
    """The fast path's premise, checked on this numpy: over the plain alphabet, a cell that
    numpy.loadtxt parses is exactly a cell the careful path's ``_NUMBER`` accepts
    (every string of length 1..4, 6^4 + ... = 1,554 strings), with the same value."""
    number = re.compile(D._NUMBER.pattern)
    n = 0
    for L in range(1, 5):
        for t in itertools.product("0.eE+-", repeat=L):
            s = "".join(t)
            try:
                v = np.loadtxt(io.StringIO("h\n" + s + "\n"), skiprows=1, dtype=np.float64,
                               comments=None, delimiter=",", ndmin=1)
            except ValueError:
                v = None
            assert (v is not None) == bool(number.fullmatch(s)), s
            if v is not None:
                assert v[0] == float(s), s
            n += 1
    assert n == 6 + 36 + 216 + 1296


@pytest.mark.parametrize("text", ["1.7976931348623157e308", "4.9e-324", "2.2250738585072011e-308",
                                  "0.1", "123456789012345678901234567890", "9007199254740993"])
def test_fast_path_rounds_like_float(tmp_path, text) -> None:
    p = tmp_path / "r.csv"
    p.write_text("x\n" + text + "\n", encoding="utf-8")
    got = D._fast_column(p, "t", None)
    assert got is not None and got[0] == float(text)
