"""Bad-input messages about records that say where and what, never the value nor a count.

An error about the data is printed on stderr, which follows the public rule: a count of
out-of-range records is a function of the data, and a record's value is a record (issue 37).
:func:`outside_bounds` names the first offending record by its position (its data row in
file order: line = row + 1 after a header row) and what is wrong with it; :func:`shown_cell`
is the cell an error kept out of its message, for ``--show-confidential`` only.

Nothing here prints.
"""

from __future__ import annotations

import numpy as np

from kernels.validate import shorten

__all__ = ["outside_bounds", "shown_cell"]


def shown_cell(exc: BaseException) -> str:
    """What a bad-input line adds under ``--show-confidential``: the offending cell an
    error kept out of its message (its ``cell`` attribute, e.g.
    :class:`audit.datasets.DataFileError`), marked not shareable; "" when there is none."""
    cell = getattr(exc, "cell", None)
    if cell is None:
        return ""
    return f" [--show-confidential, NOT shareable: the cell is {shorten(repr(cell))}]"


def outside_bounds(x: np.ndarray, lower: float | None, upper: float | None, *,
                   lower_name: str = "lower", upper_name: str = "upper",
                   in_file_order: bool = True) -> str | None:
    """None when every record of ``x`` lies in [lower, upper] (a None bound is not
    checked); otherwise a message naming the first record outside (``data row k``, in file
    order; with ``in_file_order=False``, e.g. data sorted on a cluster, no position) and the
    bound it crosses, without its value and without a count."""
    x = np.asarray(x, dtype=np.float64).ravel()
    for bound, name, bad, side in ((lower, lower_name, None, "below"),
                                   (upper, upper_name, None, "above")):
        if bound is None:
            continue
        bad = np.flatnonzero(x < bound) if side == "below" else np.flatnonzero(x > bound)
        if bad.size:
            where = (f"the record on data row {int(bad[0]) + 1}" if in_file_order
                     else "a record")
            return (f"{where} lies outside the bounds, {side} {name} {float(bound):g} "
                    "(further records are not counted and no value is shown: the data are "
                    "confidential)")
    return None
