"""Keyed fingerprints of confidential data: HMAC-SHA-256 under a data holder's secret key.

A plain SHA-256 of the records lets anyone who knows all records but one recover the missing
one by trying candidates (a dictionary attack).  A keyed fingerprint (RFC 2104 HMAC with
SHA-256, FIPS 198-1) is a pseudorandom function of the data for a reader without the key:
it can be stored with a counterexample so that ``dpaudit replay`` checks it reloaded the
same data, and reveals nothing to whoever does not hold the key.

* :func:`load_or_create_key` — the holder's 32-byte key (hex text, file mode 0600),
  created on first use;
* :func:`data_fingerprint` — ``"hmac-sha256:<hex>"`` of the canonical form of the data
  (the sorted values as little-endian float64: order-independent);
* :func:`matches` — constant-time comparison of a stored fingerprint with the data;
* :func:`key_reference` / :func:`resolve_key` — how a counterexample names the key file
  (relative to the confidential report folder) and how a replay finds it again.

Pure except for the key file: nothing printed.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import os
import secrets
from pathlib import Path
from typing import Any

import numpy as np

from kernels.errors import InputError

__all__ = [
    "KEY_BYTES",
    "KEY_FILE_NAME",
    "KeyFileError",
    "PREFIX",
    "UNKEYED",
    "add_key_argument",
    "canonical_bytes",
    "check_reference",
    "data_fingerprint",
    "holder_key",
    "key_reference",
    "keyed_source",
    "load_key",
    "load_or_create_key",
    "matches",
    "resolve_key",
    "resolved_reference",
]

KEY_BYTES = 32
KEY_FILE_NAME = "fingerprint.key"
PREFIX = "hmac-sha256:"
#: what a counterexample of a run without a key says instead of a fingerprint
UNKEYED = "unkeyed: no fingerprint key was given (not replayable)"


class KeyFileError(InputError):
    """The key file is missing, unreadable or not a key (the message names the path)."""


def canonical_bytes(xs: Any) -> bytes:
    """The data's canonical form: sorted values as little-endian float64 (the multiset)."""
    arr = np.asarray(xs, dtype="<f8").reshape(-1)
    if arr.size > 1 and bool(np.any(arr[1:] < arr[:-1])):
        arr = np.sort(arr)
    return np.ascontiguousarray(arr).tobytes()


def load_key(path: str | os.PathLike[str]) -> bytes:
    """The key stored in ``path`` (64 hex digits).  Raises :class:`KeyFileError`."""
    from audit.untrusted import KEY_CAP_BYTES, UntrustedError, read_bounded

    p = Path(path)
    try:  # a device or FIFO is refused before it is opened: the read never blocks
        text = read_bounded(p, f"the fingerprint key file {os.fspath(p)!r}",
                            KEY_CAP_BYTES).decode("ascii").strip()
    except UntrustedError as exc:
        raise KeyFileError(str(exc)) from None
    except UnicodeDecodeError:
        text = ""
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise KeyFileError(f"{os.fspath(p)!r} is not a fingerprint key ({2 * KEY_BYTES} hex "
                           "digits expected)")
    return key


def load_or_create_key(path: str | os.PathLike[str]) -> bytes:
    """The key in ``path``; when the file does not exist, a fresh random key
    (:func:`secrets.token_bytes`) is written there first, readable by its owner only."""
    p = Path(path)
    if p.exists():
        return load_key(p)
    p.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(KEY_BYTES)
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(key.hex() + "\n")
    return key


def data_fingerprint(key: bytes, xs: Any) -> str:
    """``"hmac-sha256:<64 hex>"``: HMAC-SHA-256 of :func:`canonical_bytes` under ``key``."""
    if not isinstance(key, bytes) or len(key) != KEY_BYTES:
        raise ValueError(f"key must be {KEY_BYTES} bytes")
    return PREFIX + hmac.new(key, canonical_bytes(xs), hashlib.sha256).hexdigest()


def matches(key: bytes, xs: Any, fingerprint: str) -> bool:
    """Whether ``fingerprint`` is the keyed fingerprint of ``xs`` (constant-time compare)."""
    return hmac.compare_digest(data_fingerprint(key, xs), str(fingerprint))


def key_reference(key_path: str | os.PathLike[str],
                  confidential_dir: str | os.PathLike[str]) -> dict[str, str]:
    """How a counterexample names the key: ``key_file`` as given and ``key_file_from_report``
    relative to the confidential report folder (a replay from another directory finds it)."""
    return {"key_file": os.fspath(key_path),
            "key_file_from_report": os.path.relpath(os.path.abspath(key_path),
                                                    os.path.abspath(confidential_dir))}


def resolve_key(ref: dict[str, Any], report_dir: str | os.PathLike[str] | None,
                override: str | os.PathLike[str] | None = None) -> bytes:
    """The key a counterexample refers to: ``override`` (``--key-file``) if given, else
    ``key_file`` as given, else ``key_file_from_report`` relative to ``report_dir`` (the
    confidential report folder).  Raises :class:`KeyFileError` naming what was tried."""
    if override is not None:
        return load_key(override)
    tried = []
    given = ref.get("key_file")
    if isinstance(given, str):
        tried.append(given)
        if os.path.isfile(given):
            return load_key(given)
    rel = ref.get("key_file_from_report")
    if isinstance(rel, str) and report_dir is not None:
        cand = os.path.normpath(os.path.join(os.fspath(report_dir), rel))
        tried.append(cand)
        if os.path.isfile(cand):
            return load_key(cand)
    raise KeyFileError("the fingerprint key of this counterexample was not found (tried "
                       f"{', '.join(repr(t) for t in tried) or 'nothing'}); pass --key-file")


def resolved_reference(ref: dict[str, Any], report_dir: str | os.PathLike[str] | None,
                       override: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """``ref`` with ``key_file`` pointing at the key file found by :func:`resolve_key`
    (the key itself is never put into a document that may be printed)."""
    if override is not None:
        load_key(override)
        return {**ref, "key_file": os.fspath(override)}
    given = ref.get("key_file")
    if isinstance(given, str) and os.path.isfile(given):
        return ref
    rel = ref.get("key_file_from_report")
    if isinstance(rel, str) and report_dir is not None:
        cand = os.path.normpath(os.path.join(os.fspath(report_dir), rel))
        if os.path.isfile(cand):
            return {**ref, "key_file": cand}
    resolve_key(ref, report_dir)  # raises, naming what was tried
    return ref


def check_reference(ref: Any, xs: Any) -> None:
    """Raise :class:`KeyFileError` unless ``ref`` (a counterexample's ``fingerprint``:
    ``value`` and a resolved ``key_file``) is the keyed fingerprint of ``xs``."""
    if not isinstance(ref, dict) or not isinstance(ref.get("value"), str):
        raise KeyFileError("the counterexample carries no data fingerprint")
    key = resolve_key(ref, None)
    if not matches(key, xs, ref["value"]):
        raise KeyFileError("the data at the recorded source no longer have the recorded "
                           "fingerprint (or the key is not the one the report was made with)")


def add_key_argument(p: argparse.ArgumentParser) -> None:
    """``--key-file`` of the commands that read confidential data and write a report."""
    p.add_argument("--key-file", default=None, metavar="PATH",
                   help="the data holder's secret key for the keyed data fingerprint "
                   "(HMAC-SHA-256), created there if missing (default: "
                   "REPORT/confidential/fingerprint.key)")


def holder_key(key_file: str | None, report_dir: str | os.PathLike[str]
               ) -> tuple[bytes, dict[str, str]]:
    """(key, :func:`key_reference`) of a run writing into ``report_dir``: ``key_file``
    (``--key-file``) or ``REPORT/confidential/fingerprint.key``, created on first use."""
    conf_dir = Path(report_dir) / "confidential"
    path = Path(key_file) if key_file else conf_dir / KEY_FILE_NAME
    try:
        key = load_or_create_key(path)
    except OSError as exc:
        raise KeyFileError(f"--key-file {os.fspath(path)!r}: {exc.strerror or exc}") from None
    return key, key_reference(path, conf_dir)


def keyed_source(source: dict[str, Any], key: bytes) -> dict[str, Any]:
    """A data source reference (:func:`audit.datasets.file_reference`) with the plain
    SHA-256 of a user's file replaced by its keyed fingerprint (``file_fingerprint``, HMAC
    of the file's bytes): a plain digest of confidential bytes is open to a dictionary
    attack wherever it is stored.  Built-in (public) samples are returned unchanged."""
    if not isinstance(source, dict) or "file" not in source:
        return source
    out = {k: v for k, v in source.items() if k != "file_sha256"}
    h = hmac.new(key, digestmod=hashlib.sha256)
    with open(source["file"], "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    out["file_fingerprint"] = PREFIX + h.hexdigest()
    return out
