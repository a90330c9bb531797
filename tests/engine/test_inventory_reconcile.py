"""audit.inventory_reconcile on synthetic renderings counted by hand, and on the Lan & Reiter
paper (its restated Theorem 4.2 adds one word) when the paper is on this machine."""

from __future__ import annotations

import pytest

from audit.inventory_reconcile import reconcile, restatements
from audit.paper_inventory import inventory, paper_path

TEXT = """1 Intro

Theorem 2.1. *For all x the bound is at most one.*

The bound is tight at zero.

A Appendix

Theorem 2.1. *For all x the bound is at most one.*

Lemma 3. *The map is linear.*

B Proofs

Lemma 3. *The map is always linear.*
"""


def test_restatements_find_the_added_word() -> None:
    found = {r.anchor: r for r in restatements(TEXT)}
    assert set(found) == {"theorem 2.1", "lemma 3"}
    assert found["theorem 2.1"].same and found["theorem 2.1"].sections == ("1", "A")
    lemma = found["lemma 3"]
    assert not lemma.same and lemma.added == ("always",) and lemma.removed == ()


def test_reconcile_two_renderings() -> None:
    a = inventory(TEXT)
    same = reconcile(a, inventory(TEXT))
    assert len(same.matched) == len(a) and not same.only_a and not same.only_b
    edited = inventory(TEXT.replace("tight at zero", "tight at one"))
    r = reconcile(a, edited)
    assert len(r.only_a) == len(r.only_b) == 1 and r.only_a[0].endswith("tight-at-zero")
    assert len(r.matched) == len(a) - 1


def test_lan_reiter_restated_theorem_42() -> None:
    path = paper_path("lan-reiter-2025-dp-gini.md")
    if path is None:
        pytest.skip("paper lan-reiter-2025-dp-gini.md not on this machine (set DPAUDIT_PAPERS)")
    found = {r.anchor: r for r in restatements(path.read_text(encoding="utf-8"))}
    assert set(found) == {"theorem 4.1", "theorem 4.2", "proposition 5.1"}
    assert found["theorem 4.1"].same and found["proposition 5.1"].same
    assert found["theorem 4.2"].added == ("consecutive",) and not found["theorem 4.2"].removed
