"""An independent census of one column of a CSV file, range by range: its data lines and an
order-free checksum of its values (issue 39: the reader's record of a read no single
process saw whole).

The Dask read (:func:`audit.distributed.read_sorted_column`) parses byte blocks on the
workers and sorts them there; the records it delivers are checked here against a second
read that shares none of its code: the file is cut into equal byte ranges (not at the
reader's cuts), each range is read by its own task (on a worker when a Dask client is
given, so the whole file is never loaded in one process) with Python's :mod:`csv` module,
and every line whose first byte lies in the range is counted -- a blank line before a
record counts as a line the reader must have read (the rule of
:func:`audit.datasets.cross_check_read`), trailing blank lines do not.  Each record's cell
of the named column (found by name in the header, ``float`` of the stripped cell) enters
:func:`multiset_checksum`, a sum modulo 2^64 of a 64-bit mix of the value's bits: equal
multisets give equal checksums whatever the order or the split into ranges, and a changed,
missing or extra record changes it except with probability about 2^-64 (the mix is the
SplitMix64 finaliser, Steele, Lea & Flood 2014).  The checksum is compared in this process
and never stored: a hash of the records in a report would be open to a dictionary attack.

Nothing here prints or writes files.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Census", "RangeCensus", "census", "census_range", "multiset_checksum"]

_BOM = b"\xef\xbb\xbf"
_MASK = (1 << 64) - 1
#: bytes per range of the census (a range is one task)
RANGE_BYTES = 32 << 20


def multiset_checksum(values: Any) -> int:
    """Sum modulo 2^64 of SplitMix64's finaliser applied to each float64's bit pattern: a
    function of the multiset of values alone (order and grouping do not matter)."""
    z = np.ascontiguousarray(np.asarray(values, dtype=np.float64)).view(np.uint64).copy()
    z ^= z >> np.uint64(30)
    z *= np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return int(np.sum(z, dtype=np.uint64)) & _MASK


@dataclass(frozen=True)
class RangeCensus:
    """One byte range's lines: non-blank rows, blank rows in all and after its last
    non-blank row, cells that are not numbers, and the checksum of the numbers."""

    rows: int
    blanks: int
    trailing_blanks: int
    unparsed: int
    checksum: int


@dataclass(frozen=True)
class Census:
    """The whole file: its data lines (blank lines before the last record included),
    the header name of the column counted, the cells that are not numbers, and the
    checksum of the values (:func:`multiset_checksum`)."""

    data_lines: int
    column: str | None
    unparsed: int
    checksum: int
    ranges: int


def _layout(path: str, column: str | None) -> tuple[int, int | None, str | None]:
    """(byte offset of the first record, the column's cell index or None, its name)."""
    with open(path, "rb") as fh:
        top = len(_BOM) if fh.read(3) == _BOM else 0
        fh.seek(top)
        first = fh.readline()
    cells = [c.strip() for c in next(
        csv.reader([first.decode("utf-8", errors="replace").rstrip("\r\n")]), [])]
    if column is None and len(cells) == 1 and _is_number(cells[0]):
        return top, 0, None  # no header row: line 1 is the first record
    if column is None:
        return top + len(first), (0 if len(cells) == 1 else None), (
            cells[0] if len(cells) == 1 else None)
    return top + len(first), (cells.index(column) if column in cells else None), (
        column if column in cells else None)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text != "" and all(ch in "0123456789.eE+-" for ch in text)


def census_range(path: str, idx: int | None, body: int, start: int, stop: int) -> RangeCensus:
    """The lines of ``path`` whose first byte lies in ``[start, stop)`` (a range of the body
    that begins at byte ``body``), read with :mod:`csv`; runs on a Dask worker."""
    with open(path, "rb") as fh:
        fh.seek(start - 1 if start > body else body)
        chunk = fh.read(stop - start + (start > body))
        if chunk and not chunk.endswith(b"\n"):
            chunk += fh.readline()  # the rest of the range's last line
    if start > body:  # chunk[0] is the byte before the range
        cut = chunk.find(b"\n")  # the range's first line starts after a line end
        chunk = chunk[cut + 1:] if cut >= 0 else b""
    text = chunk.decode("utf-8", errors="replace")
    rows = blanks = trailing = unparsed = 0
    vals: list[float] = []
    append = vals.append
    for row in csv.reader(io.StringIO(text, newline="")):
        if row:
            rows += 1
            trailing = 0
            try:
                append(float(row[idx].strip()))  # type: ignore[index]
            except (TypeError, IndexError, ValueError):
                unparsed += 1
        else:
            blanks += 1
            trailing += 1
    return RangeCensus(rows, blanks, trailing, unparsed, multiset_checksum(vals))


def census(path: str | os.PathLike[str], column: str | None, dask_client: Any = None,
           range_bytes: int = RANGE_BYTES) -> Census:
    """The census of ``column`` of ``path`` (module docstring), range by range, each
    range a task on the cluster when ``dask_client`` is given (the file at the same path on
    every worker), else in this process."""
    fpath = os.fspath(path)
    body, idx, name = _layout(fpath, column)
    end = os.path.getsize(fpath)
    if dask_client is not None:  # at least two ranges per worker, so every worker counts
        workers = max(1, len(dask_client.scheduler_info().get("workers", {})))
        range_bytes = min(range_bytes, max(1 << 16, -(-(end - body) // (2 * workers))))
    starts = list(range(body, end, max(1, int(range_bytes)))) or [body]
    bounds = list(zip(starts, [*starts[1:], end], strict=True))
    if dask_client is None:
        parts = [census_range(fpath, idx, body, a, b) for a, b in bounds]
    else:
        parts = dask_client.gather([dask_client.submit(census_range, fpath, idx, body, a, b,
                                                       pure=False) for a, b in bounds])
    trailing = 0
    for p in reversed(parts):  # blank lines after the last record are not data lines
        trailing += p.trailing_blanks if p.rows else p.blanks
        if p.rows:
            break
    lines = sum(p.rows + p.blanks for p in parts) - trailing
    return Census(lines, name, sum(p.unparsed for p in parts),
                  sum(p.checksum for p in parts) & _MASK, len(parts))


def _header_cell(path: str, idx: int) -> str | None:
    """The header row's cell ``idx`` (stripped), read with :mod:`csv`; None past its end."""
    with open(path, encoding="utf-8-sig", newline="") as fh:
        cells = [c.strip() for c in next(csv.reader(fh), [])]
    return cells[idx] if 0 <= idx < len(cells) else None


def read_record(path: str | os.PathLike[str], column: str | None, values: Any,
                index_read: int, headerless: bool, dask_client: Any = None,
                range_bytes: int = RANGE_BYTES) -> dict[str, Any]:
    """The reader's record of a column read without :func:`audit.datasets.read_csv_column`
    (the Dask path): the column named, the header name at the index the reader read
    (``index_read``; None for a file without a header row), the records delivered
    (``values``, in any order), the file's data lines by :func:`census`, and whether the
    values equal the census's as a multiset (``"values": "equal"`` or ``"differ"``: the
    checksum itself is not kept).  :func:`audit.reader_record.reader_problems` turns a
    departure into the run's reasons."""
    c = census(path, column, dask_client, range_bytes)
    got = np.asarray(values, dtype=np.float64)
    same = c.unparsed == 0 and multiset_checksum(got) == c.checksum
    return {"column_named": column,
            "column": None if headerless else _header_cell(os.fspath(path), index_read),
            "n": int(got.size), "data_lines": int(c.data_lines),
            "compared": f"count and an order-free checksum of every record, {c.ranges} "
                        "byte range(s) read with Python's csv module"
                        + (" on the cluster" if dask_client is not None else ""),
            "values": "equal" if same else "differ"}
