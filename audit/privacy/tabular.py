"""Tabular data sets for ``dpaudit test``: records are rows of several columns.

* :func:`read_table` — a CSV file with a header row, a JSON list of objects (column names
  from the keys, which must agree) or of lists (``columns`` given), or a pandas DataFrame
  when pandas is installed.  Cells follow the rule of ``--column``
  (:func:`audit.untrusted.table_cell`): plain decimal numbers become floats, other text
  stays a category; a blank cell, JSON ``true``/``null`` or a column mixing numbers and
  categories is an error naming the row and column (a byte-order mark is stripped).  No row
  is dropped: a ragged row or a missing key is an error naming it.
* :func:`to_form` — the table in the form the mechanism declares: ``"array"`` (2-D float64;
  all columns numeric), ``"structured"`` (numpy structured array), ``"rows"`` (list of
  lists), ``"records"`` (list of dicts), ``"dataframe"`` (pandas).
* :func:`row_pairs` — neighbours on rows: replace one row by a given row (replace-one),
  add a given row or remove one row (add/remove), each pair checked with
  :func:`audit.privacy.neighbour_search.are_neighbours` in the order the rows are kept.
  With ``unit`` (a privacy-unit column such as a user id) the neighbour relation is on
  units: remove all rows of one unit, or add a unit's rows (add/remove), or replace all
  rows of one unit by the rows of another template unit relabelled (replace-one).

Nothing here prints or writes files.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from audit.privacy.neighbour_search import are_neighbours
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE, NeighbourPair
from audit.untrusted import NOT_SHOWN, table_cell
from kernels.errors import InvalidParameterError

__all__ = ["FORMS", "Table", "read_table", "row_pairs", "table_from_rows", "to_form"]

FORMS = ("array", "structured", "rows", "records", "dataframe")


@dataclass(frozen=True)
class Table:
    """Column names and rows (a 2-D object array: floats and strings)."""

    columns: tuple[str, ...]
    rows: np.ndarray

    def __len__(self) -> int:
        return int(self.rows.shape[0])

    def column(self, name: str) -> np.ndarray:
        if name not in self.columns:
            raise InvalidParameterError(
                f"no column {name!r}; columns: {', '.join(self.columns)}")
        return self.rows[:, self.columns.index(name)]

    def with_rows(self, rows: np.ndarray) -> Table:
        return Table(self.columns, rows)


def _cell(v: Any, where: str = "cell") -> Any:
    """One cell by the rule of ``--column`` (:func:`audit.untrusted.table_cell`)."""
    return table_cell(v, where)



def table_from_rows(rows: Sequence[Sequence[Any]], columns: Sequence[str]) -> Table:
    """A table from a list of rows (each as long as ``columns``)."""
    cols = tuple(str(c) for c in columns)
    if not cols or len(set(cols)) != len(cols):
        raise InvalidParameterError(f"columns must be distinct names, got {list(columns)!r}")
    out = np.empty((len(rows), len(cols)), dtype=object)
    for i, r in enumerate(rows):
        if len(r) != len(cols):
            raise InvalidParameterError(
                f"row {i + 1} has {len(r)} cells, the header {len(cols)} (its cells are not "
                "shown: the data are confidential)")
        out[i] = [_cell(v, f"row {i + 1}, column {c!r}") for v, c in zip(r, cols, strict=True)]
    for j, c in enumerate(cols):  # a column is numbers or categories, never both
        kinds = [isinstance(v, float) for v in out[:, j]]
        if any(kinds) and not all(kinds):
            i = kinds.index(False) if kinds[0] else kinds.index(True)
            raise InvalidParameterError(
                f"row {i + 1}, column {c!r}: a {'number' if kinds[i] else 'category'} in a "
                f"column whose row 1 is a {'number' if kinds[0] else 'category'}; a column "
                f"holds numbers or categories, not both (no silent coercion){NOT_SHOWN}")
    return Table(cols, out)


def read_table(source: Any, columns: Sequence[str] | None = None) -> Table:
    """A :class:`Table` from a CSV / JSON path or a pandas DataFrame (module docstring).
    ``columns`` selects (and orders) columns; for a JSON list of lists it names them."""
    if hasattr(source, "to_dict") and hasattr(source, "columns"):  # a pandas DataFrame
        cols = [str(c) for c in source.columns]
        t = table_from_rows(list(source.itertuples(index=False, name=None)), cols)
    else:
        path = Path(source)
        if not path.is_file():
            raise InvalidParameterError(f"--data {str(source)!r} is not a file")
        if path.suffix.lower() == ".json":
            items = json.loads(path.read_text(encoding="utf-8-sig"))
            if not isinstance(items, list) or not items:
                raise InvalidParameterError(f"{path}: expected a non-empty JSON list of rows")
            if all(isinstance(r, dict) for r in items):
                keys = list(items[0].keys())
                for i, r in enumerate(items):
                    if set(r) != set(keys):
                        raise InvalidParameterError(
                            f"{path}: row {i + 1} has keys {sorted(r)}, row 1 {sorted(keys)}")
                t = table_from_rows([[r[k] for k in keys] for r in items], keys)
            elif all(isinstance(r, list) for r in items):
                if columns is None:
                    raise InvalidParameterError(
                        f"{path}: a JSON list of lists needs the column names (--columns)")
                return table_from_rows(items, columns)
            else:
                raise InvalidParameterError(f"{path}: rows must all be objects or all lists")
        else:
            with path.open(newline="", encoding="utf-8-sig") as fh:
                reader = list(csv.reader(fh))
            if len(reader) < 2:
                raise InvalidParameterError(f"{path}: needs a header row and at least one row")
            header, body = reader[0], reader[1:]
            while body and not body[-1]:
                body.pop()  # trailing blank lines end the file
            if [] in body:  # never a record dropped silently (the rule of --column)
                raise InvalidParameterError(
                    f"{path}: row {body.index([]) + 1} after the header is a blank line; blank "
                    "lines inside the data are not dropped, remove them")
            t = table_from_rows(body, header)
    if columns is not None:
        idx = [t.columns.index(c) if c in t.columns else -1 for c in columns]
        missing = [c for c, i in zip(columns, idx, strict=True) if i < 0]
        if missing:
            raise InvalidParameterError(
                f"no column(s) {missing}; columns: {', '.join(t.columns)}")
        t = Table(tuple(columns), t.rows[:, idx])
    return t


def to_form(table: Table, form: str) -> Any:
    """The table as the mechanism takes it (``form`` in :data:`FORMS`)."""
    if form == "array":
        try:
            return table.rows.astype(np.float64).reshape(len(table), len(table.columns))
        except (TypeError, ValueError):
            text = [c for j, c in enumerate(table.columns)
                    if not all(isinstance(v, float) for v in table.rows[:, j])]
            raise InvalidParameterError(
                f"form 'array' needs numeric columns, and column(s) {', '.join(text)} hold "
                "categories; use 'rows', 'records', 'structured' or 'dataframe'") from None
    if form == "rows":
        return [list(r) for r in table.rows.tolist()]
    if form == "records":
        return [dict(zip(table.columns, r, strict=True)) for r in table.rows.tolist()]
    if form == "structured":
        dtypes: list[tuple[str, type[np.float64] | str]] = []
        for j, c in enumerate(table.columns):
            col = table.rows[:, j]
            if all(isinstance(v, float) for v in col):
                dtypes.append((c, np.float64))
            else:
                width = max((len(str(v)) for v in col), default=1)
                dtypes.append((c, f"U{max(width, 1)}"))
        return np.array([tuple(r) for r in table.rows.tolist()], dtype=dtypes)
    if form == "dataframe":
        try:
            import pandas as pd
        except ImportError:
            raise InvalidParameterError(
                "form 'dataframe' needs pandas (pip install pandas)") from None
        return pd.DataFrame(table.rows.tolist(), columns=list(table.columns))
    raise InvalidParameterError(f"form must be one of {FORMS}, got {form!r}")


def _row(row: Sequence[Any], table: Table) -> np.ndarray:
    if len(row) != len(table.columns):
        raise InvalidParameterError(
            f"a new row must have {len(table.columns)} cells ({', '.join(table.columns)}), "
            f"got {list(row)!r}")
    out = np.empty(len(row), dtype=object)
    out[:] = [_cell(v) for v in row]
    return out


def row_pairs(table: Table, relation: str, new_rows: Sequence[Sequence[Any]] = (),
              unit: str | None = None, positions: Sequence[int] | None = None
              ) -> list[NeighbourPair]:
    """Neighbouring tables of ``table`` (module docstring).  ``new_rows``: rows to put in
    (replace-one) or add (add/remove); ``positions``: which rows to replace or remove
    (default: first, middle, last).  Pairs carry tables (:class:`Table`) and name their op."""
    if relation not in (REPLACE_ONE, ADD_REMOVE_ONE):
        raise InvalidParameterError(f"relation must be {REPLACE_ONE!r} or {ADD_REMOVE_ONE!r}")
    n = len(table)
    out: list[NeighbourPair] = []
    if unit is not None:
        return _unit_pairs(table, relation, unit, new_rows)
    pos = sorted({0, n // 2, n - 1} if positions is None else set(positions))
    pos = [p for p in pos if 0 <= p < n]
    news = [_row(r, table) for r in new_rows]
    if relation == REPLACE_ONE:
        if not news:
            raise InvalidParameterError("replace-one on rows needs replacement rows (--new-row)")
        for p in pos:
            for r in news:
                rows = table.rows.copy()
                rows[p] = r
                out.append(NeighbourPair(table, table.with_rows(rows), REPLACE_ONE,
                                         {"op": "replace-row", "position": p,
                                          "new": r.tolist()}))
    else:
        for p in pos:
            out.append(NeighbourPair(table, table.with_rows(np.delete(table.rows, p, axis=0)),
                                     ADD_REMOVE_ONE, {"op": "remove-row", "position": p}))
        for r in news:
            rows = np.concatenate([table.rows, r.reshape(1, -1)])
            out.append(NeighbourPair(table, table.with_rows(rows), ADD_REMOVE_ONE,
                                     {"op": "add-row", "new": r.tolist()}))
    for pair in out:
        if not are_neighbours(pair.first.rows, pair.second.rows, relation, ordered=True):
            raise AssertionError(f"internal: not neighbours: {pair.change}")
    return out


def _unit_pairs(table: Table, relation: str, unit: str, new_rows: Sequence[Sequence[Any]]
                ) -> list[NeighbourPair]:
    ids = table.column(unit)
    j = table.columns.index(unit)
    distinct = list(dict.fromkeys(ids.tolist()))
    out: list[NeighbourPair] = []
    for uid in distinct:
        keep = ids != uid
        if relation == ADD_REMOVE_ONE:
            out.append(NeighbourPair(table, table.with_rows(table.rows[keep]), ADD_REMOVE_ONE,
                                     {"op": "remove-unit", "unit": uid,
                                      "rows": int(np.count_nonzero(~keep))}))
        else:
            for other in distinct:
                if other == uid:
                    continue
                tmpl = table.rows[ids == other].copy()
                tmpl[:, j] = uid
                rows = np.concatenate([table.rows[keep], tmpl])
                out.append(NeighbourPair(table, table.with_rows(rows), REPLACE_ONE,
                                         {"op": "replace-unit", "unit": uid,
                                          "template": other}))
    if relation == ADD_REMOVE_ONE:
        for r in new_rows:
            row = _row(r, table)
            out.append(NeighbourPair(table, table.with_rows(
                np.concatenate([table.rows, row.reshape(1, -1)])), ADD_REMOVE_ONE,
                {"op": "add-unit", "unit": row[j], "rows": 1}))
    return out
