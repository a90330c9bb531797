"""The one validation layer for structures dpaudit receives from others: counterexample
JSON (``dpaudit replay FILE``), pairs JSON (``--pairs``), table cells (``--data`` with
``--columns``), key files and the results of a user's relation.

Every check here runs *before* the structure is used and raises one
:class:`~kernels.errors.InputError` (exit 2 on the command line) naming the field in the
user's terms (``inputs.n``, ``--pairs pair 3``, ``line 4, column 'age'``) and the value as
given, shortened.  What it guarantees:

* a file is read only when it is a regular file of at most a stated size (a device, FIFO or
  socket is refused before it is opened; the open itself cannot block: ``O_NONBLOCK``), so a
  read never runs forever;
* JSON is parsed with Python's own digit limit on integers and without ``NaN`` / ``Infinity``
  literals; a number of a million digits is one error, not a hang;
* numeric fields are checked against the same ranges as the command-line flags behind them
  (:data:`EPSILON_MAX` for every ``--epsilon``; :data:`SAMPLES_MAX` for sample counts);
* a table cell follows the rule of ``--column`` (:func:`table_cell`): a blank cell, a JSON
  ``true`` or a non-finite number is an error, never coerced.

Nothing here prints, imports user code or writes files.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Mapping
from typing import Any

from kernels.errors import InputError
from kernels.validate import shorten

__all__ = [
    "COUNTEREXAMPLE_CAP_BYTES",
    "EPSILON_MAX",
    "KEY_CAP_BYTES",
    "REF_PATTERN",
    "SAMPLES_MAX",
    "PROVE_CHECK",
    "SIZE_FIELDS",
    "USER_CHECKS",
    "UntrustedError",
    "check_counterexample",
    "check_pairs",
    "check_ref",
    "field_int",
    "field_real",
    "load_json",
    "read_bounded",
    "relation_verdict",
    "table_cell",
]

#: the largest epsilon any command accepts (e^epsilon must stay far from float64 overflow,
#: which comes at epsilon ~ 709.8; the Gini certify chain certifies its search to 20)
EPSILON_MAX = 100.0
#: the most outputs a replay (or ``--max-samples``) may draw per data set
SAMPLES_MAX = 2**24
#: a counterexample or pairs file larger than this is refused before it is read
COUNTEREXAMPLE_CAP_BYTES = 64 * 2**20
#: a fingerprint key file is 65 bytes; anything much larger is not one
KEY_CAP_BYTES = 4096
#: fields of a counterexample's inputs that are counts of work, wherever they appear
SIZE_FIELDS = ("n", "n_certify", "n_select", "size", "samples", "chunk_size", "n_samples",
               "trials", "reps", "draws")
#: integers in a counterexample (generator states included: 128-bit) are at most this long
INT_BITS_MAX = 256
#: MODULE:OBJECT with dotted Python identifiers on both sides
REF_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*:"
                         r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


class UntrustedError(InputError):
    """A received structure failed its check (the message names the field and value)."""


def _shown(value: Any) -> str:
    return shorten(repr(value), 80)


# ------------------------------------------------------------------------------ files
def read_bounded(path: str | os.PathLike[str], label: str, cap: int) -> bytes:
    """The bytes of ``path`` when it is a regular file of at most ``cap`` bytes; otherwise
    one :class:`UntrustedError` naming ``label``.  A device, FIFO or socket is refused
    from its ``stat`` before it is opened, and the open is non-blocking with a second
    ``fstat`` (a FIFO swapped in between is refused too): the call never waits for data."""
    p = os.fspath(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise UntrustedError(f"{label} does not exist") from None
    except (OSError, ValueError) as exc:
        raise UntrustedError(f"{label} cannot be read "
                             f"({getattr(exc, 'strerror', None) or exc})") from None
    _check_regular(st, label, cap)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise UntrustedError(f"{label} cannot be read ({exc.strerror or exc})") from None
    try:
        _check_regular(os.fstat(fd), label, cap)
        chunks, total = [], 0
        while total <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise UntrustedError(f"{label} cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if total > cap:
        raise UntrustedError(f"{label} grew past {cap:,} bytes while being read")
    return b"".join(chunks)


def _check_regular(st: os.stat_result, label: str, cap: int) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise UntrustedError(f"{label} is a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(st.st_mode) else
                "a socket" if stat.S_ISSOCK(st.st_mode) else "a device or special file")
        raise UntrustedError(f"{label} is {kind}, not a regular file (refused before reading)")
    if st.st_size > cap:
        raise UntrustedError(f"{label} is {st.st_size:,} bytes; at most {cap:,} are read")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number (write \"nan\" / \"inf\" as strings)")


def load_json(path: str | os.PathLike[str], label: str,
              cap: int = COUNTEREXAMPLE_CAP_BYTES) -> Any:
    """The JSON document in ``path`` (UTF-8, a byte-order mark allowed), read through
    :func:`read_bounded`.  ``NaN`` / ``Infinity`` literals and integers longer than Python's
    digit limit are errors naming ``label``."""
    raw = read_bounded(path, label, cap)
    try:
        text = raw.decode("utf-8-sig")
        return json.loads(text, parse_constant=_no_constant)
    except UnicodeDecodeError as exc:
        raise UntrustedError(f"cannot read {label}: not UTF-8 text ({exc.reason} at byte "
                             f"{exc.start})") from None
    except json.JSONDecodeError as exc:
        raise UntrustedError(f"cannot read {label}: not valid JSON (line {exc.lineno}, column "
                             f"{exc.colno}: {exc.msg})") from None
    except (ValueError, RecursionError) as exc:  # digit limit, NaN literal, nesting depth
        raise UntrustedError(f"cannot read {label}: not a usable JSON document "
                             f"({shorten(str(exc), 160)})") from None


# ------------------------------------------------------------------------------ fields
def field_real(doc: Mapping[str, Any], key: str, where: str, *, low: float | None = None,
               high: float | None = None, low_open: bool = False, high_open: bool = False,
               required: bool = True, default: float | None = None) -> float | None:
    """``doc[key]`` as a finite real number in the range (JSON ``true`` is not a number);
    ``where`` names the field (``inputs.epsilon``)."""
    if key not in doc or doc[key] is None:
        if required:
            raise UntrustedError(f"{where}: missing (a number is required)")
        return default
    v = doc[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise UntrustedError(f"{where}: must be a number, got {_shown(v)}")
    try:
        f = float(v)
    except OverflowError:
        raise UntrustedError(f"{where}: {_shown(v)} is too large for a float") from None
    if not math.isfinite(f):
        raise UntrustedError(f"{where}: must be finite, got {_shown(v)}")
    bad_low = low is not None and (f <= low if low_open else f < low)
    bad_high = high is not None and (f >= high if high_open else f > high)
    if bad_low or bad_high:
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        left = "(" if low_open or low is None else "["
        right = ")" if high_open or high is None else "]"
        rng = f"{left}{lo}, {hi}{right}"
        raise UntrustedError(f"{where}: must be in {rng}, got {_shown(v)}")
    return f


def field_int(doc: Mapping[str, Any], key: str, where: str, *, low: int | None = None,
              high: int | None = None, required: bool = True,
              default: int | None = None) -> int | None:
    """``doc[key]`` as an integer in ``low..high`` (a float such as ``1e999`` or ``2.5`` and
    JSON ``true`` are refused)."""
    if key not in doc or doc[key] is None:
        if required:
            raise UntrustedError(f"{where}: missing (an integer is required)")
        return default
    v = doc[key]
    if isinstance(v, bool) or not isinstance(v, int):
        if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
            v = int(v)
        else:
            raise UntrustedError(f"{where}: must be an integer, got {_shown(v)}")
    if (low is not None and v < low) or (high is not None and v > high):
        raise UntrustedError(f"{where}: must be an integer in "
                             f"{'-inf' if low is None else low}.."
                             f"{'inf' if high is None else f'{high:,}'}, got {_shown(v)}")
    return int(v)


def check_ref(value: Any, where: str) -> str:
    """A ``MODULE:OBJECT`` reference (dotted identifiers only: no path, no spaces)."""
    if not isinstance(value, str) or REF_PATTERN.fullmatch(value) is None:
        raise UntrustedError(f"{where}: must be MODULE:OBJECT (dotted Python names), got "
                             f"{_shown(value)}")
    return value


def _walk_numbers(obj: Any, where: str, depth: int = 0) -> None:
    """Every number in ``obj`` bounded (integers to :data:`INT_BITS_MAX` bits, size fields
    to :data:`SAMPLES_MAX`), nesting at most 64 deep."""
    if depth > 64:
        raise UntrustedError(f"{where}: nested more than 64 levels deep")
    if isinstance(obj, dict):
        for k, v in obj.items():
            sub = f"{where}.{k}"
            if k in SIZE_FIELDS and v is not None and not isinstance(v, (dict, list)):
                field_int(obj, k, sub, low=0, high=SAMPLES_MAX)
            _walk_numbers(v, sub, depth + 1)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _walk_numbers(v, f"{where}[{i}]", depth + 1)
    elif isinstance(obj, int) and not isinstance(obj, bool):
        if obj.bit_length() > INT_BITS_MAX:
            raise UntrustedError(f"{where}: integer of {obj.bit_length():,} bits; at most "
                                 f"{INT_BITS_MAX}")


def _data_vector(value: Any, where: str) -> None:
    if not isinstance(value, list) or len(value) > SAMPLES_MAX:
        raise UntrustedError(f"{where}: must be a list of numbers, got {_shown(value)}")
    for i, v in enumerate(value):
        if isinstance(v, list):  # a table row
            _data_vector(v, f"{where}[{i}]")
        elif isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise UntrustedError(f"{where}[{i}]: must be a number, got {_shown(v)}")
        elif isinstance(v, (int, float)) and not math.isfinite(float(v)):
            raise UntrustedError(f"{where}[{i}]: must be finite, got {_shown(v)}")


#: checks of the ``dpaudit test`` counterexamples (their inputs, field by field)
USER_CHECKS = ("user-mechanism.event-ratio", "user-mechanism.crash",
                "user-mechanism.exact-loss", "user-mechanism.sensitivity")
#: the check of a ``dpaudit prove MODULE:OBJECT`` refutation (audit.prove.verdict.FINDING_ID)
PROVE_CHECK = "prove.alignment"
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")


def check_counterexample(doc: Any, label: str) -> dict[str, Any]:
    """The counterexample document ``doc`` (read from ``label``) checked before any use:
    the envelope (schema, check, subject, inputs), every number bounded, and the fields of
    the engine's own checks typed and ranged as the CLI flags behind them.  Returns ``doc``."""
    from audit.findings import COUNTEREXAMPLE_SCHEMA, FINDING_ID_PATTERN

    if not isinstance(doc, dict):
        raise UntrustedError(f"{label} is not a JSON object")
    if doc.get("schema") != COUNTEREXAMPLE_SCHEMA:
        raise UntrustedError(f"{label} is not a dpaudit counterexample (schema "
                             f"{_shown(doc.get('schema'))}, want {COUNTEREXAMPLE_SCHEMA!r})")
    check = doc.get("check")
    if not isinstance(check, str) or not FINDING_ID_PATTERN.match(check) or len(check) > 200:
        raise UntrustedError(f"{label}: field check must name a check, got {_shown(check)}")
    subject = doc.get("subject", "")
    if not isinstance(subject, str) or len(subject) > 1000:
        raise UntrustedError(f"{label}: field subject must be a string, got {_shown(subject)}")
    inputs = doc.get("inputs")
    if not isinstance(inputs, dict):
        raise UntrustedError(f"{label}: field inputs must be an object")
    _walk_numbers(inputs, "inputs")
    if check in USER_CHECKS:
        _check_user_inputs(check, inputs)
    if check == PROVE_CHECK:
        _check_witness(inputs.get("witness"))
    if "epsilon" in inputs and not isinstance(inputs["epsilon"], (dict, str)):
        field_real(inputs, "epsilon", "inputs.epsilon", low=0.0, low_open=True,
                   high=EPSILON_MAX)
    for key in ("lower", "upper"):
        if key in inputs and inputs[key] is not None:
            field_real(inputs, key, f"inputs.{key}")
    return doc


def _check_user_inputs(check: str, inputs: dict[str, Any]) -> None:
    check_ref(inputs.get("mechanism"), "inputs.mechanism")
    ip = inputs.get("import_path")
    if ip is not None and (not isinstance(ip, str) or "\x00" in ip or len(ip) > 4096):
        raise UntrustedError(f"inputs.import_path: must be a folder name, got {_shown(ip)}")
    field_real(inputs, "epsilon", "inputs.epsilon", low=0.0, low_open=True, high=EPSILON_MAX,
               required=check != "user-mechanism.sensitivity")
    field_real(inputs, "delta", "inputs.delta", low=0.0, high=1.0, high_open=True,
               required=False)
    rel = inputs.get("relation")
    if not isinstance(rel, str) or len(rel) > 1000:
        raise UntrustedError(f"inputs.relation: must be a relation name, got {_shown(rel)}")
    if rel.startswith("custom:"):
        check_ref(rel[len("custom:"):], "inputs.relation (custom:MODULE:OBJECT)")
    attr = inputs.get("attribute")
    if attr is not None and (not isinstance(attr, str) or not attr.isidentifier()
                             or attr.startswith("_")):
        raise UntrustedError(f"inputs.attribute: must be a public attribute name, got "
                             f"{_shown(attr)}")
    for key in ("style", "randomness", "name"):
        if key in inputs and not isinstance(inputs[key], (str, type(None))):
            raise UntrustedError(f"inputs.{key}: must be a string, got {_shown(inputs[key])}")
    field_int(inputs, "seed_bits", "inputs.seed_bits", low=1, high=64, required=False)
    field_int(inputs, "seed", "inputs.seed", low=0, high=2**63 - 1, required=False)
    state = inputs.get("rng_state")
    if state is not None:
        if not isinstance(state, dict) or state.get("bit_generator") not in _BIT_GENERATORS:
            raise UntrustedError("inputs.rng_state: must be a numpy generator state "
                                 f"(bit_generator one of {', '.join(_BIT_GENERATORS)})")
    if check == "user-mechanism.event-ratio" or "direction_index" in inputs:
        n = field_int(inputs, "n", "inputs.n", low=1, high=SAMPLES_MAX)
        field_int(inputs, "chunk_size", "inputs.chunk_size", low=1, high=SAMPLES_MAX)
        field_int(inputs, "direction_index", "inputs.direction_index", low=0, high=1)
        field_real(inputs, "alpha_per_bound", "inputs.alpha_per_bound", low=0.0,
                   low_open=True, high=1.0, high_open=True)
        counts = inputs.get("counts")
        if not isinstance(counts, dict):
            raise UntrustedError("inputs.counts: must be an object {first, second, n}")
        for k in ("first", "second"):
            field_int(counts, k, f"inputs.counts.{k}", low=0, high=n)
        if not isinstance(inputs.get("event"), dict):
            raise UntrustedError("inputs.event: must be an event object")
    if "pair" in inputs:
        pair = inputs["pair"]
        if not isinstance(pair, dict):
            raise UntrustedError("inputs.pair: must be an object {first, second}")
        for k in ("first", "second"):
            _data_vector(pair.get(k), f"inputs.pair.{k}")
    if "dataset" in inputs:
        _data_vector(inputs["dataset"], "inputs.dataset")
    if "size" in inputs:
        field_int(inputs, "size", "inputs.size", low=1, high=SAMPLES_MAX, required=False)


def _check_witness(w: Any) -> None:
    if not isinstance(w, dict):
        raise UntrustedError("inputs.witness: must be an object")
    check_ref(w.get("program"), "inputs.witness.program")
    field_int(w, "digits", "inputs.witness.digits", low=10, high=400, required=False)
    for k in ("q", "q_prime"):
        v = w.get(k)
        if not isinstance(v, list) or not v or len(v) > 64:
            raise UntrustedError(f"inputs.witness.{k}: must be a list of 1..64 query answers")
        for i, x in enumerate(v):
            _fraction_text(x, f"inputs.witness.{k}[{i}]")
    _fraction_text(w.get("epsilon"), "inputs.witness.epsilon", positive=True)
    params = w.get("params", {})
    if not isinstance(params, dict):
        raise UntrustedError("inputs.witness.params: must be an object")
    for k, x in params.items():
        _fraction_text(x, f"inputs.witness.params.{k}")


_RATIONAL = re.compile(r"[+-]?\d{1,40}(?:/\d{1,40})?|[+-]?(?=\d|\.\d)\d{0,40}(?:\.\d{0,40})?"
                       r"(?:[eE][+-]?\d{1,3})?")


def _fraction_text(x: Any, where: str, positive: bool = False) -> None:
    """A rational as JSON gives it (a number or "p/q" text) of bounded size."""
    from fractions import Fraction

    if isinstance(x, bool) or not isinstance(x, (int, float, str)):
        raise UntrustedError(f"{where}: must be a number or 'p/q', got {_shown(x)}")
    if isinstance(x, str) and _RATIONAL.fullmatch(x.strip()) is None:
        raise UntrustedError(f"{where}: must be a rational 'p/q' or a decimal with at "
                             f"most 40 digits and a 3-digit exponent, got {_shown(x)}")
    try:
        v = Fraction(x)
    except (ValueError, ZeroDivisionError, OverflowError):
        raise UntrustedError(f"{where}: not a number, got {_shown(x)}") from None
    if positive and not 0 < v <= EPSILON_MAX:
        raise UntrustedError(f"{where}: must be in (0, {EPSILON_MAX:g}], got {_shown(x)}")
    if abs(v) > 10**12:
        raise UntrustedError(f"{where}: magnitude above 1e12, got {_shown(x)}")


# ------------------------------------------------------------------------------ pairs
def check_pairs(doc: Any, label: str) -> list[list[Any]]:
    """A pairs document: a JSON list of ``[D, D']``, each a list of finite numbers (JSON
    ``true`` is not a number) or of rows; ``label`` names the flag and file."""
    if not isinstance(doc, list):
        raise UntrustedError(f"{label}: expected a JSON list of [D, D'] pairs, got "
                             f"{type(doc).__name__}")
    for i, p in enumerate(doc):
        if not isinstance(p, list) or len(p) != 2:
            raise UntrustedError(f"{label}: pair {i + 1} must be [D, D'], got {_shown(p)}")
        for j, d in enumerate(p):
            for k, v in enumerate(d if isinstance(d, list) else [d]):
                if isinstance(v, bool) or (not isinstance(v, (int, float, list))):
                    raise UntrustedError(f"{label}: pair {i + 1}, data set {j + 1}, record "
                                         f"{k + 1}: must be a number, got {_shown(v)}")
    return doc


# ------------------------------------------------------------------------------ tables
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def table_cell(v: Any, where: str) -> float | str:
    """One table cell by the rule of ``--column``: a number (JSON number, or text that is a
    plain decimal number) becomes a finite float; other text is a category; a blank cell,
    JSON ``true``/``false``/``null`` and non-finite numbers are errors naming ``where`` and
    what is wrong, never the cell's value (a record of the data: issue 37)."""
    if isinstance(v, bool) or v is None:
        raise UntrustedError(f"{where}: a JSON {json.dumps(v)} is neither a number nor text "
                             "(no silent coercion: write 1 / 0 or a category name)")
    import numpy as np

    if isinstance(v, (int, float, np.integer, np.floating)):
        try:
            f = float(v)
        except (TypeError, ValueError, OverflowError):
            raise UntrustedError(f"{where}: the cell is neither a number nor text"
                                 f"{NOT_SHOWN}") from None
        if not math.isfinite(f):
            raise UntrustedError(f"{where} is not a finite number{NOT_SHOWN}")
        return f
    if not isinstance(v, str):
        raise UntrustedError(f"{where}: the cell is neither a number nor text (a "
                             f"{type(v).__name__}){NOT_SHOWN}")
    text = v.strip().lstrip("\ufeff")
    if text == "":
        raise UntrustedError(f"{where}: blank cell; blank or missing values are not "
                             "dropped, remove or fill them")
    if _NUMBER.fullmatch(text) is not None:
        f = float(text)
        if not math.isfinite(f):
            raise UntrustedError(f"{where} is not a finite number (it overflows to "
                                 f"infinity){NOT_SHOWN}")
        return f
    return text




#: said instead of a cell's value (a record of the data: issue 37)
NOT_SHOWN = " (its value is not shown: the data are confidential)"


# ------------------------------------------------------------------------------ relations
def relation_verdict(result: Any, ref: str | None) -> bool:
    """A custom relation's answer as a bool: ``True`` / ``False`` (Python or numpy) only;
    anything else (a string, an array, None) is an error naming the relation."""
    import numpy as np

    if isinstance(result, (bool, np.bool_)):
        return bool(result)
    raise UntrustedError(f"the relation {ref} returned {_shown(result)} "
                         f"({type(result).__name__}); it must return True or False",
                         param="relation", name="")
