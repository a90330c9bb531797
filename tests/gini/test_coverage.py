"""The Lan & Reiter coverage table (proofs/gini/coverage.py) is complete and points only at
registered claims; every registered claim of the subject is listed."""

from __future__ import annotations

import re

from audit.registry import load_all
from proofs.gini import NAME
from proofs.gini.coverage import COVERAGE


def _keys() -> set[str]:
    return {c.key for c in load_all([NAME]) if c.paper == NAME}


def test_every_key_in_the_table_is_registered() -> None:
    registered = _keys()
    missing = {k for it in COVERAGE for k in it.keys if k not in registered}
    assert not missing


def test_every_registered_claim_is_in_the_table() -> None:
    used = {k for it in COVERAGE for k in it.keys}
    # a new claim must be added to proofs/gini/coverage.py (a paper item or an extension)
    assert not (_keys() - used), _keys() - used


def test_unchecked_items_say_why() -> None:
    for it in COVERAGE:
        assert it.keys or it.note.startswith("not checked: "), it.item


def test_every_numbered_item_is_listed() -> None:
    text = " ".join(it.item for it in COVERAGE)
    eqs = {int(m) for m in re.findall(r"eq\. \((\d+)\)", text)}
    assert eqs == set(range(1, 63))
    for name in ("Definition 2.1", "Definition 2.2", "Definition 4.2", "Definition 4.3",
                 "Lemma 4.1", "Lemma 4.2", "Lemma A.1", "Theorem 4.1", "Theorem 4.2",
                 "Theorem 4.3", "Theorem 4.4", "Theorem 4.5", "Proposition 5.1",
                 "Algorithm 1", "Algorithm 2", "Algorithm 3", "Figure 1", "Figure 2",
                 "Figure 3", "Figure 4"):
        assert name in text, name
