"""argparse ``type=`` functions shared by every command (the engine's and the subjects'),
built on :mod:`kernels.validate`, so a flag and the library parameter behind it are checked
by the same rule and the message differs only in how the parameter is named.

Each factory returns a callable ``text -> value`` that raises
``argparse.ArgumentTypeError`` with the rule and the text as given (argparse prefixes the
flag: ``argument --epsilon: must be > 0, got -1``).  Nothing here prints.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from audit.untrusted import EPSILON_MAX
from kernels.errors import InputError
from kernels.validate import check_int, check_real, shorten

__all__ = ["EPSILON_MAX", "SEED_MAX", "RUN_ID_MAX", "epsilon", "finite_float", "integer",
           "real", "run_id", "seed"]

#: seeds of dpaudit's own generators: 0 .. 2^63 - 1
SEED_MAX = 2**63 - 1
#: the longest --run-id (one folder name; file systems allow 255 bytes)
RUN_ID_MAX = 200


def _number(text: str) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"not a number: {shorten(repr(text))}") from None


def real(*, low: float | None = None, high: float | None = None, low_open: bool = False,
         high_open: bool = False) -> Callable[[str], float]:
    """A finite real number in the range (ends closed unless ``*_open``)."""

    def parse(text: str) -> float:
        v = _number(text)
        try:
            return check_real(v, "value", low=low, high=high, low_open=low_open,
                              high_open=high_open)
        except InputError as exc:
            raise argparse.ArgumentTypeError(_detail(exc, text)) from None

    parse.__name__ = "number"
    return parse


def integer(*, low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """A whole number (decimal digits, optional sign) in ``low..high``."""

    def parse(text: str) -> int:
        try:
            v = int(str(text).strip())
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"not an integer: {shorten(repr(text))}") from None
        try:
            return check_int(v, "value", low=low, high=high)
        except InputError as exc:
            raise argparse.ArgumentTypeError(_detail(exc, text)) from None

    parse.__name__ = "integer"
    return parse


def _detail(exc: InputError, text: str) -> str:
    """The rule of ``exc`` with the text as the user typed it."""
    rule = exc.detail.split(", got ")[0]
    return f"{rule}, got {shorten(repr(text))}"


#: a finite real number (any sign)
finite_float = real()
finite_float.__name__ = "finite_float"

#: every command's --epsilon: (0, EPSILON_MAX] (the same bound a counterexample's epsilon
#: is checked against; e^epsilon overflows float64 from ~709.8)
epsilon = real(low=0.0, low_open=True, high=EPSILON_MAX)
epsilon.__name__ = "epsilon"

_seed_int = integer(low=0, high=SEED_MAX)


def seed(text: str) -> int:
    """A seed of dpaudit's own generators: an integer in 0 .. 2^63 - 1."""
    try:
        return _seed_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"must be an integer in 0..2^63-1, got {shorten(repr(text))}") from None


def run_id(text: str) -> str:
    """``--run-id``: one plain folder name inside ``--out`` (the error says which rule
    failed: empty, too long, a path, or a control character)."""
    return check_run_id(text, argparse.ArgumentTypeError)


def check_run_id(text: Any, error: type[Exception] = InputError) -> str:
    """The rules of a run id (also applied to generated ids), raising ``error``."""
    rid = str(text)
    if rid == "":
        raise error("must not be empty (it names the report folder inside --out)")
    if len(rid) > RUN_ID_MAX:
        raise error(f"is {len(rid):,} characters long; at most {RUN_ID_MAX} "
                    f"(got {shorten(repr(rid), 40)})")
    if rid in (".", "..") or "/" in rid or "\\" in rid:
        raise error(f"must be a plain folder name inside --out (no '/', '\\\\' or '..'), "
                    f"got {shorten(repr(rid))}")
    if rid != rid.strip() or any(ord(c) < 32 or ord(c) == 127 for c in rid):
        raise error(f"must not start or end with spaces or hold control characters, "
                    f"got {shorten(repr(rid))}")
    return rid
