"""audit.checks.chain (the certify runner and its verdict rule) and audit.fingerprint (the
keyed data fingerprint), unit level, against hand-worked expectations."""

from __future__ import annotations

import hashlib
import hmac
import os

import numpy as np
import pytest

from audit import fingerprint as fp
from audit.checks.chain import Chain, Link, certification
from audit.findings import Finding, Method, Verdict, counterexample_document


def _f(fid: str, verdict: Verdict) -> Finding:
    cx = (counterexample_document(fid, "s", {"a": 1}, 0, 1, None)
          if verdict is Verdict.REFUTED else None)
    return Finding(id=fid, claim=f"claim {fid}", reference="r", method=Method.EXHAUSTIVE,
                   verdict=verdict, scope="all", evidence={"cases": 1}, counterexample=cx)


def test_verdict_rule() -> None:
    ok = [_f("a.x", Verdict.VERIFIED), _f("a.y", Verdict.NOT_REFUTED)]
    assert certification(ok, "s").verdict == "CERTIFIED"
    bad = certification([*ok, _f("a.z", Verdict.INCONCLUSIVE), _f("a.w", Verdict.REFUTED)],
                        "s")
    assert bad.verdict == "NOT CERTIFIED" and bad.counterexample == "counterexamples/a.w.json"
    assert bad.outcome_key == "not-certified" and bad.reasons == ("a.w: refuted — claim a.w",)
    unsure = certification([*ok, _f("a.e", Verdict.ERROR)], "s")
    assert unsure.verdict == "INCONCLUSIVE" and unsure.counterexample is None
    assert certification([], "s").verdict == "INCONCLUSIVE"  # nothing checked never passes
    assert "fingerprint" not in certification(ok, "s").to_dict()


def test_runner_order_progress_crash_and_partial_reports() -> None:
    seen: list[int] = []
    said: list[str] = []

    def crash(_ctx: object) -> list[Finding]:
        raise ValueError("value 12.34 out of range")

    chain = Chain("ref", (Link("one", "first", lambda _c: [_f("t.one", Verdict.VERIFIED)]),
                          Link("two", "second", crash)))
    out = chain.run(None, subject="s", seed=3, progress=said.append,
                    on_finding=lambda so_far: seen.append(len(so_far)), id_prefix="t")
    assert [f.id for f in out] == ["t.one", "t.two.crashed"] and seen == [1, 2]
    crashed = out[1]
    assert crashed.verdict is Verdict.ERROR and crashed.evidence == {
        "exception_type": "ValueError"}
    assert "12.34" in crashed.confidential["exception"]
    assert not any("12.34" in s for s in said)  # progress carries no value, no timing
    assert all(f.duration_s >= 0 for f in out)


def test_fingerprint_is_hmac_sha256_of_the_sorted_float64_bytes(tmp_path) -> None:
    key = bytes(range(32))
    x = np.array([3.5, 1.25, 2.0])
    want = hmac.new(key, np.array([1.25, 2.0, 3.5], dtype="<f8").tobytes(),
                    hashlib.sha256).hexdigest()
    assert fp.data_fingerprint(key, x) == "hmac-sha256:" + want
    assert fp.matches(key, x, "hmac-sha256:" + want)
    assert not fp.matches(bytes(32), x, "hmac-sha256:" + want)
    plain = hashlib.sha256(np.sort(x).astype("<f8").tobytes()).hexdigest()
    assert plain not in fp.data_fingerprint(key, x)


def test_key_file_created_private_reused_and_checked(tmp_path) -> None:
    path = tmp_path / "k" / "fingerprint.key"
    key = fp.load_or_create_key(path)
    assert len(key) == 32 and os.stat(path).st_mode & 0o077 == 0
    assert fp.load_or_create_key(path) == key  # reused, not regenerated
    (tmp_path / "bad.key").write_text("zz\n")
    with pytest.raises(fp.KeyFileError, match="not a fingerprint key"):
        fp.load_key(tmp_path / "bad.key")
    ref = fp.key_reference(path, tmp_path / "k")
    assert ref["key_file_from_report"] == "fingerprint.key"
    moved = {**ref, "key_file": "/nonexistent/fingerprint.key"}
    assert fp.resolve_key(moved, tmp_path / "k") == key
    with pytest.raises(fp.KeyFileError, match="--key-file"):
        fp.resolve_key(moved, tmp_path)
