"""Shared assertions of the proof-step tests (tests/subset_optimal/test_claims_*steps.py): every
step family verified with every twin refuted, a printed step refuted under one reading and
holding under the other, its counterexample replaying."""

from __future__ import annotations

from collections.abc import Callable

from audit.falsifiability import needs_twin, twin_problem


def assert_families_verified(findings: dict, families: dict, family_id: Callable[[str], str]
                             ) -> None:
    for name in families:
        f = findings[family_id(name)]
        assert f.verdict == "verified", name
        assert needs_twin(f.id) and twin_problem(f.evidence) == "", name
        assert all(p["outcome"] == "refuted" for p in f.evidence["twins"].values()), name


def assert_refuted_under_a_reading(f, replay: Callable[[dict], tuple]) -> None:
    assert f.verdict in ("refuted", "refuted-under-reading"), f.id
    assert set(f.evidence["readings"].values()) == {"holds", "refuted"}, f.id
    still, *_ = replay(f.counterexample["inputs"])
    assert still, f.id
