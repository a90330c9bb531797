"""The reader's record of a table (``dpaudit test --data FILE --columns a,b,c``), from an
independent read of the file, and the reasons a run's table departs from it (issue 39).

:func:`audit.privacy.tabular.read_table` turns a CSV or JSON file into the rows a
mechanism is audited on.  :func:`table_record` reads the same file again with code of its
own (Python's :mod:`csv` module, or :mod:`json`): the header's names, the file's records
(a CSV's data lines -- a blank line before the last record counts as one, trailing blank
lines do not -- or the items of a JSON list), how many records hold a cell of each column
read, and every cell of every column read, found by its name and compared with the table's
(a cell is a number when its stripped text is a plain decimal number, else its stripped
text: the rule of ``--column``).  :func:`table_problems` names each departure: columns
other than the ones named (or, with none named, than the file's header), a record count
other than the file's, a column with fewer cells than records, cells that differ, a run on
another number of rows than read.  The record names the holder's columns: it belongs in
the confidential report; the cells and any digest of them are never kept.  Nothing here
prints or writes.
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["table_problems", "table_record"]

# a plain decimal number (no nan / inf / thousands separators): the rule of --column
_PLAIN = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def _cell(v: Any) -> Any:
    """A cell as the file states it: a float for a number, else the stripped text."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, float)):
        return float(v)
    text = str(v).strip().lstrip("\ufeff")
    return float(text) if _PLAIN.fullmatch(text) else text


def _csv_rows(path: str) -> tuple[list[str], list[list[str]], int]:
    """(header, records, data lines) of a CSV file by :mod:`csv` alone."""
    with open(path, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = (rows[0], rows[1:]) if rows else ([], [])
    while body and not body[-1]:
        body.pop()  # trailing blank lines are no records
    return header, [r for r in body if r], len(body)


def _json_rows(path: str, named: Sequence[str] | None
               ) -> tuple[list[str], list[list[Any]], int]:
    """(names, records as lists, items) of a JSON list of objects or of lists."""
    with open(path, encoding="utf-8-sig") as fh:
        items = json.load(fh)
    if not isinstance(items, list):
        return [], [], 0
    if items and all(isinstance(r, dict) for r in items):
        names = list(items[0])
        return names, [[r.get(k, _MISSING) for k in names] for r in items], len(items)
    return list(named or []), [list(r) if isinstance(r, list) else [] for r in items], \
        len(items)


_MISSING = object()


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and a == b


def table_record(path: str | os.PathLike[str], named: Sequence[str] | None,
                 table: Any) -> dict[str, Any]:
    """The reader's record of ``table`` (a :class:`audit.privacy.tabular.Table` read from
    ``path`` with ``--columns`` ``named``, None when not given), from an independent read
    of the file (module docstring)."""
    fpath = os.fspath(path)
    fmt = "json" if fpath.lower().endswith(".json") else "csv"
    header, records, lines = (_json_rows(fpath, named) if fmt == "json"
                              else _csv_rows(fpath))
    read = [str(c) for c in table.columns]
    per_column: dict[str, int] = {}
    differ: list[str] = []
    for j, name in enumerate(read):
        k = header.index(name) if name in header else -1
        cells = [r[k] for r in records if 0 <= k < len(r) and r[k] is not _MISSING]
        per_column[name] = len(cells)
        mine = table.rows[:, j].tolist()
        if len(cells) != len(mine) or not all(
                _same(_cell(c), v) for c, v in zip(cells, mine, strict=True)):
            differ.append(name)
    return {"columns_named": None if named is None else list(named),
            "columns": read, "file_columns": [str(h) for h in header],
            "n": len(table), "data_lines": int(lines), "n_per_column": per_column,
            "compared": f"every cell of every column read, by an independent read of the "
                        f"{fmt.upper()} file ({'csv' if fmt == 'csv' else 'json'} module)",
            "values": "differ" if differ else "equal", "columns_differing": differ}


def table_problems(record: Mapping[str, Any], named: Sequence[str] | None,
                   n_used: int) -> list[str]:
    """Why the run's table is not what the file holds in the columns named (empty: it is):
    ``named`` is ``--columns`` (None: every column of the file), ``n_used`` the rows the
    run audited."""
    out = []
    want = None if named is None else list(named)
    if record.get("columns_named") != want:
        out.append(f"the reader was asked for columns {record.get('columns_named')!r}, the "
                   f"user named {want!r}")
    expect = want if want is not None else list(record.get("file_columns") or [])
    if list(record.get("columns") or []) != expect:
        out.append(f"the reader read columns {record.get('columns')!r}, "
                   + (f"the user named {want!r}" if want is not None else
                      f"the file's header has {expect!r}"))
    n, lines = int(record["n"]), int(record["data_lines"])
    if n != lines:
        out.append(f"{n} rows read from a file of {lines} records")
    short = {c: k for c, k in (record.get("n_per_column") or {}).items() if k != n}
    if short:
        out.append("columns with another number of cells than rows read: "
                   + ", ".join(f"{c!r} {k}" for c, k in short.items()))
    if record.get("values") == "differ":
        out.append("the cells read differ from the file's in column(s) "
                   + ", ".join(repr(c) for c in record.get("columns_differing") or []))
    if int(n_used) != n:
        out.append(f"the run audited {int(n_used)} rows, the reader read {n}")
    return out
