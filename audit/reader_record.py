"""The reader's record of a user's CSV file, checked against the data a command ran on.

:func:`audit.datasets.read_csv_column` returns, beside the values, what the reader read:
the column named (``--column``), the column read, the records read and the file's data
lines counted by an independent read with Python's :mod:`csv` module
(:func:`audit.datasets.cross_check_read`, which already refuses a reader that disagrees
with that read: exit 4); a read on a Dask cluster gets its record from an independent census
of the file on the workers (:mod:`audit.column_census`), a table (``--columns``) from an
independent read of every column (:mod:`audit.table_record`).  ``certify`` and ``test
--data`` keep the record in their
*confidential* report (it names a column of the holder's file) and check here that the run
audited what the reader read: the column the user named, every data line of the file, and
as many records as were read.  A departure makes the run INCONCLUSIVE with the reasons
(in the confidential report; the public one says only that the record disagrees): a
verdict on data other than the file's is never a pass.  Nothing here prints or writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["PUBLIC_REASON", "InputCheck", "check_run", "input_check", "reader_problems"]

#: what the public report says of a departure (the reasons name the holder's column)
PUBLIC_REASON = ("the reader's record disagrees with the data the run audited (reasons in "
                 "the confidential report): INCONCLUSIVE")


def reader_problems(record: Mapping[str, Any] | None, column: str | None,
                    n_used: int) -> list[str]:
    """Why the run's data is not what the reader read from the file (empty: it is).

    ``record``: the reader's record (None: no file was read, e.g. a built-in sample;
    nothing to compare, no problem; the Dask path's record comes from
    :func:`audit.column_census.read_record`); ``column``: the column the user named
    (``--column``, None for a one-column file); ``n_used``: the records the run audited."""
    if record is None:
        return []
    out = []
    if record.get("column_named") != column:
        out.append(f"the reader was asked for column {record.get('column_named')!r}, the "
                   f"user named {column!r}")
    if column is not None and record.get("column") != column:
        out.append(f"the reader read column {record.get('column')!r}, the user named "
                   f"{column!r}")
    n, lines = int(record["n"]), int(record["data_lines"])
    if n != lines:
        out.append(f"{n} records read from a file of {lines} data lines")
    if int(n_used) != n:
        out.append(f"the run audited {int(n_used)} records, the reader read {n}")
    if record.get("values") == "differ":
        out.append("the values read differ from the file's column (an independent read's "
                   "checksum of every record)")
    return out


def check_run(audit: Any, record: Mapping[str, Any] | None, column: Any,
              n_used: int) -> list[str]:
    """``dpaudit test --data``: append the finding ``user.reader`` to ``audit`` (a
    :class:`~audit.privacy.user_audit.UserAudit`) when the reader's record departs from the
    records the run audited (:func:`reader_problems`; for a table, whose ``column`` is the
    list of ``--columns`` or None, :func:`audit.table_record.table_problems`), and make a
    run that flagged nothing INCONCLUSIVE (a flag stands: the pairs tested are neighbours
    whatever data they came from).  Returns the problems (empty: nothing changed)."""
    from audit.findings import Finding, Method, Verdict

    if record is not None and "columns" in record:  # a table (--columns): every column
        from audit.table_record import table_problems

        problems = table_problems(record, column, n_used)
    else:
        problems = reader_problems(record, column, n_used)
    if problems:
        audit.findings.append(Finding(
            id="user.reader", claim="the run audited the records of the named column of "
            "the data file, every data line of it", reference="DESIGN.md 'Bad input'",
            method=Method.CROSSCHECK, verdict=Verdict.INCONCLUSIVE, scope=PUBLIC_REASON,
            confidential={"reader": dict(record or {}), "reader_problems": problems}))
        if audit.outcome != "flagged":
            audit.outcome = "inconclusive"
    return problems


@dataclass(frozen=True)
class InputCheck:
    """What a certify chain's input finding says of the reader's record: the problems
    (empty: none), the clause its public scope gets, and its confidential part."""

    problems: list[str]
    scope: str
    confidential: dict[str, Any] = field(default_factory=dict)


def input_check(record: Mapping[str, Any] | None, column: str | None,
                n_used: int) -> InputCheck:
    """A certify chain's input check of the reader's record (:func:`reader_problems`
    against the ``n_used`` records certified): a departure makes the input finding
    INCONCLUSIVE, its public scope saying only :data:`PUBLIC_REASON`; no record (a
    built-in sample): nothing to say."""
    if record is None:
        return InputCheck([], "")
    problems = reader_problems(record, column, n_used)
    return InputCheck(problems, "; the reader's record (column, records, the file's data "
                      "lines counted independently) matches the data certified"
                      if not problems else f"; {PUBLIC_REASON}",
                      {"reader": dict(record), "reader_problems": problems})
