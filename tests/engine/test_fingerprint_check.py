"""A run's data references are checked before anything is written (issue 39): the data
fingerprint must be the keyed HMAC-SHA-256 of the records and no plain SHA-256 of the
records or of the file may be in the reference (``audit/fingerprint_check.py``).  The
catalogue's conf.plain-sha256 and conf.file-sha-kept passed every command's exit code
before (only the bench's scan of the written reports saw them).

Truths: digests computed here with hashlib / hmac from the file's bytes and the sorted
records as little-endian float64 (the documented canonical form).
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

import numpy as np
import pytest

from audit import datasets
from audit import fingerprint as fp
from audit.fingerprint_check import FingerprintLeak, check_data_references

KEY = b"k" * 32


def _data(tmp_path: Path) -> tuple[np.ndarray, Path]:
    p = tmp_path / "d.csv"
    p.write_text("x\n3.5\n1.25\n2\n", encoding="utf-8")
    return np.array([3.5, 1.25, 2.0]), p


def test_keyed_references_pass(tmp_path: Path) -> None:
    xs, p = _data(tmp_path)
    body = np.sort(xs).astype("<f8").tobytes()
    want = fp.PREFIX + hmac.new(KEY, body, hashlib.sha256).hexdigest()
    assert fp.data_fingerprint(KEY, xs) == want
    src = fp.keyed_source(datasets.file_reference(p, "x"), KEY)
    check_data_references(want, src, KEY, xs)  # no exception
    check_data_references(None, {"sample": "cps"}, KEY, xs)


def test_a_plain_digest_or_an_unkeyed_fingerprint_is_refused(tmp_path: Path) -> None:
    xs, p = _data(tmp_path)
    plain = hashlib.sha256(np.sort(xs).astype("<f8").tobytes()).hexdigest()
    src = fp.keyed_source(datasets.file_reference(p, "x"), KEY)
    with pytest.raises(FingerprintLeak, match="not the keyed"):
        check_data_references(fp.PREFIX + plain, src, KEY, xs)
    file_sha = hashlib.sha256(p.read_bytes()).hexdigest()
    with pytest.raises(FingerprintLeak, match="plain SHA-256"):
        check_data_references(fp.data_fingerprint(KEY, xs), {**src, "file_sha256": file_sha},
                              KEY, xs)
