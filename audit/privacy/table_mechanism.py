"""A mechanism on tables, tested by the float-array tester: rows coded as numbers.

The testers and the counterexamples hold data sets as float arrays.  A table
(:class:`audit.privacy.tabular.Table`: rows of numbers and categories) is coded as a 2-D
float64 array — one row per record, a categorical cell as the index of its category in
the column's sorted category list (:class:`TableCodec`) — and :func:`table_mechanism` wraps
the user's function so that it receives the table decoded into the form it declares
(:data:`audit.privacy.tabular.FORMS`).  The neighbour relations stay on rows (and on
privacy units): :func:`table_pairs` codes the pairs of :func:`audit.privacy.tabular.
row_pairs`.  A mechanism returning a dict keyed by category (a histogram) gets its outputs
as a vector over the table's categories in sorted order, an absent key as NaN (the
tester's absent/present events see it).

The codec is a pure function of the table (sorted categories), so a counterexample stores
it (:meth:`TableCodec.to_doc`) and a replay decodes the same rows.  Nothing here prints or
writes files.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from audit.privacy.tabular import FORMS, Table, row_pairs, table_from_rows, to_form
from audit.protocols import NeighbourPair
from kernels.errors import InvalidParameterError

__all__ = ["TableCodec", "codec_for", "default_new_rows", "table_mechanism", "table_pairs"]


@dataclass(frozen=True)
class TableCodec:
    """Column names and, per column, its sorted categories (empty: a numeric column)."""

    columns: tuple[str, ...]
    categories: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, tables: Sequence[Table]) -> TableCodec:
        """The codec of the categories seen in ``tables`` (all with the same columns)."""
        cols = tables[0].columns
        cats: list[tuple[str, ...]] = []
        for j in range(len(cols)):
            seen = {v for t in tables for v in t.rows[:, j].tolist() if isinstance(v, str)}
            if seen and any(not isinstance(v, str) for t in tables
                            for v in t.rows[:, j].tolist()):
                seen |= {str(v) for t in tables for v in t.rows[:, j].tolist()}
            cats.append(tuple(sorted(seen)))
        return cls(tuple(cols), tuple(cats))

    def encode(self, table: Table) -> np.ndarray:
        out = np.empty((len(table), len(self.columns)), dtype=np.float64)
        for j, cats in enumerate(self.categories):
            col = table.rows[:, j].tolist()
            out[:, j] = ([cats.index(str(v)) for v in col] if cats else
                         [float(v) for v in col])
        return out

    def decode(self, codes: Any) -> Table:
        arr = np.asarray(codes, dtype=np.float64).reshape(-1, len(self.columns))
        rows = np.empty(arr.shape, dtype=object)
        for j, cats in enumerate(self.categories):
            rows[:, j] = ([cats[int(c)] for c in arr[:, j]] if cats else
                          [float(c) for c in arr[:, j]])
        return Table(self.columns, rows)

    @property
    def keys(self) -> tuple[str, ...]:
        """Every category of every column, sorted: the keys of a histogram output."""
        return tuple(sorted({c for cats in self.categories for c in cats}))

    def to_doc(self) -> dict[str, Any]:
        return {"columns": list(self.columns), "categories": [list(c) for c in self.categories]}

    @classmethod
    def from_doc(cls, doc: dict[str, Any]) -> TableCodec:
        return cls(tuple(doc["columns"]), tuple(tuple(c) for c in doc["categories"]))


def _vector(out: Any, keys: tuple[str, ...]) -> Any:
    if not isinstance(out, dict):
        return out
    extra = [k for k in out if str(k) not in keys]
    if extra:
        raise ValueError(f"the output is keyed by {extra[:5]!r}, not by the table's "
                         f"categories ({', '.join(keys[:10])})")
    got = {str(k): v for k, v in out.items()}
    return np.array([float(got[k]) if k in got else math.nan for k in keys])


def table_mechanism(fn: Callable[..., Any], codec: TableCodec, form: str) -> Callable[..., Any]:
    """``fn`` called with the table in ``form`` instead of the coded array (first
    argument); the rest of its signature and its attributes (``epsilon``, ``relation``,
    ...) are kept, so dpaudit infers how to call it as for ``fn`` itself."""
    if form not in FORMS:
        raise InvalidParameterError(f"must be one of {', '.join(FORMS)}, got {form!r}",
                                    param="form")
    if inspect.isclass(fn) or not callable(fn) or hasattr(fn, "sample"):
        raise InvalidParameterError(
            "a mechanism on a table must be a function f(table, ...) (the table is handed to "
            "its first argument)", param="mechanism")
    keys = codec.keys

    @functools.wraps(fn)
    def on_table(data: Any, *args: Any, **kw: Any) -> Any:
        return _vector(fn(to_form(codec.decode(data), form), *args, **kw), keys)

    on_table.dpaudit_table = {"codec": codec.to_doc(), "form": form}  # type: ignore[attr-defined]
    return on_table


def codec_for(table: Table, new_rows: Sequence[Sequence[Any]] = ()) -> TableCodec:
    """The codec of ``table`` and the rows that may be put into it."""
    extra = [table_from_rows(new_rows, table.columns)] if len(new_rows) else []
    return TableCodec.of([table, *extra])


def default_new_rows(table: Table, lower: float | None = None,
                     upper: float | None = None) -> list[list[Any]]:
    """Rows to put in when none are given: the table's first and last rows (records of
    the domain) and, with public bounds, the first row with every numeric cell at ``lower``
    and at ``upper`` (the largest change of a numeric column)."""
    rows = table.rows.tolist()
    out = [rows[0], rows[-1]]
    for b in (lower, upper):
        if b is not None:
            out.append([float(b) if isinstance(v, float) else v for v in rows[0]])
    return [list(r) for r in dict.fromkeys(tuple(r) for r in out)]


def table_pairs(table: Table, relation: str, codec: TableCodec, *, unit: str | None = None,
                new_rows: Sequence[Sequence[Any]] = ()) -> list[NeighbourPair]:
    """Row (or privacy-unit) neighbours of ``table`` under ``relation``, coded with
    ``codec``: pairs of 2-D float arrays, each naming its operation."""
    pairs = row_pairs(table, relation, new_rows=new_rows, unit=unit)
    return [NeighbourPair(codec.encode(p.first), codec.encode(p.second), p.relation,
                          dict(p.change)) for p in pairs]
