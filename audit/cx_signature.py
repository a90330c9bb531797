"""A keyed MAC over a counterexample, so a data holder tells their own files from altered ones.

A counterexample written by a run that has the data holder's fingerprint key
(:mod:`audit.fingerprint`: ``dpaudit test --data``, ``dpaudit certify``) carries
``"signature": {"alg": "hmac-sha256", "value": ...}``: HMAC-SHA-256 (RFC 2104) under that
key of the document's canonical JSON without the signature (keys sorted, no spaces, ASCII).
The MAC covers the whole document: check, subject, every input (program, relation, data
reference), expected and actual.  Whoever holds the key can check a file (:func:`verify`);
whoever does not learns nothing from the MAC.

* :func:`sign` — the document with its signature;
* :func:`verify` — ``"verified"`` / ``"unsigned"``, or :class:`SignatureError` when the
  document differs from what its MAC covers;
* :func:`signing_key` / :func:`sign_report` — the key of a report folder and the signing of
  every counterexample of a report before it is written.

Nothing here prints; the only file read is the key file (bounded, regular files only).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path
from typing import Any

from audit import fingerprint
from kernels.errors import InputError

__all__ = ["ALG", "FIELD", "SignatureError", "payload", "sign", "sign_report", "signing_key",
           "verify"]

FIELD = "signature"
ALG = "hmac-sha256"


class SignatureError(InputError):
    """The counterexample differs from what its MAC covers (altered, or another key)."""


def payload(doc: dict[str, Any]) -> bytes:
    """The bytes the MAC covers: canonical JSON of ``doc`` without its signature."""
    body = {k: v for k, v in doc.items() if k != FIELD}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode("ascii")


def _mac(key: bytes, doc: dict[str, Any]) -> str:
    return hmac.new(key, payload(doc), hashlib.sha256).hexdigest()


def sign(doc: dict[str, Any], key: bytes) -> dict[str, Any]:
    """``doc`` with ``signature`` = HMAC-SHA-256 under ``key`` of :func:`payload`."""
    return {**{k: v for k, v in doc.items() if k != FIELD},
            FIELD: {"alg": ALG, "value": _mac(key, doc)}}


def verify(doc: dict[str, Any], key: bytes | None) -> str:
    """``"verified"`` when the signature is the MAC of ``doc`` under ``key``; ``"unsigned"``
    when the file carries none; ``"not checked"`` when there is a signature but no key.
    Raises :class:`SignatureError` when the MAC does not match (the file was changed after
    it was written, or was written with another key)."""
    sig = doc.get(FIELD)
    if sig is None:
        return "unsigned"
    if not isinstance(sig, dict) or sig.get("alg") != ALG or not isinstance(
            sig.get("value"), str):
        raise SignatureError(f"the counterexample's {FIELD} field is malformed (want "
                             f"{{'alg': {ALG!r}, 'value': hex}}): refused")
    if key is None:
        return "not checked"
    if not hmac.compare_digest(_mac(key, doc), sig["value"]):
        raise SignatureError(
            "the counterexample differs from what its keyed MAC covers (its program, "
            "relation, subject or inputs were changed after the run wrote it, or the key is "
            "not the one the report was made with): refused")
    return "verified"


def signing_key(doc: dict[str, Any], report_dir: str | os.PathLike[str]) -> bytes | None:
    """The holder's key of a counterexample written into ``report_dir``: the key file its
    data fingerprint names, else ``report_dir/confidential/fingerprint.key`` when that
    exists; None when the run has no key (the file is then written unsigned)."""
    ref = (doc.get("inputs") or {}).get("fingerprint")
    cands = []
    if isinstance(ref, dict) and isinstance(ref.get("key_file"), str):
        cands.append(Path(ref["key_file"]))
    cands.append(Path(report_dir) / "confidential" / fingerprint.KEY_FILE_NAME)
    for c in cands:
        if c.is_file():
            return fingerprint.load_key(c)
    return None


def sign_report(report: dict[str, Any], report_dir: str | os.PathLike[str]) -> None:
    """Sign, in place, every finding's counterexample of ``report`` that has a key."""
    for f in report.get("findings", []):
        cx = f.get("counterexample") if isinstance(f, dict) else None
        if isinstance(cx, dict):
            key = signing_key(cx, report_dir)
            if key is not None:
                f["counterexample"] = sign(cx, key)
