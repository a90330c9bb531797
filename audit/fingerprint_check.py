"""A run's references to the holder's data, checked before anything is written: the data
fingerprint is the keyed HMAC-SHA-256 of the records (recomputed here with :mod:`hmac`,
not by :func:`audit.fingerprint.data_fingerprint`), and no plain SHA-256 of the records or
of the file's bytes is anywhere in the source reference or the fingerprint (a plain digest
of confidential data is open to a dictionary attack by a reader who knows all records but
one, wherever it is stored, the confidential report included).  A departure is a bug of
dpaudit: :class:`FingerprintLeak` (exit 4).  Nothing here prints or writes files.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Mapping
from typing import Any

from audit.fingerprint import PREFIX, canonical_bytes

__all__ = ["FingerprintLeak", "check_data_references"]


class FingerprintLeak(RuntimeError):
    """A run's data reference is not keyed, or holds a plain digest of the data: a bug of
    dpaudit (exit 4)."""


def _file_digest(path: str | os.PathLike[str]) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def check_data_references(fingerprint: str | None, source: Mapping[str, Any], key: bytes,
                          xs: Any) -> None:
    """Raise :class:`FingerprintLeak` unless ``fingerprint`` (None: no key, nothing to
    check) is ``hmac-sha256:`` + HMAC-SHA-256(key, canonical bytes of ``xs``) and neither
    it nor ``source`` (a file reference: its ``file`` is read) holds the plain SHA-256 of
    the records or of the file."""
    body = canonical_bytes(xs)
    plain = [hashlib.sha256(body).hexdigest()]
    if isinstance(source.get("file"), str) and os.path.isfile(source["file"]):
        plain.append(_file_digest(source["file"]))
    problems = []
    if fingerprint is not None and fingerprint != (
            PREFIX + hmac.new(key, body, hashlib.sha256).hexdigest()):
        problems.append("the data fingerprint is not the keyed HMAC-SHA-256 of the records")
    text = json.dumps(dict(source), sort_keys=True, default=str) + (fingerprint or "")
    if any(d in text.lower() for d in plain):
        problems.append("a plain SHA-256 of the data is in its reference")
    if problems:
        raise FingerprintLeak("dpaudit's data reference would expose the data (a bug of "
                              "dpaudit; nothing written): " + "; ".join(problems))
