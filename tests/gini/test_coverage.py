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


# ---- the mechanical inventory of the paper (audit.paper_inventory) and its manifest
import proofs.gini.coverage as _cov  # noqa: E402
from proofs.gini import NAME as _NAME  # noqa: E402
from tests.common.inventory_checks import (  # noqa: E402
    check_accounted,
    check_every_claim_listed,
    check_manifest_current,
    check_rules,
)


def test_every_inventory_item_is_accounted_for() -> None:
    check_accounted(_cov)


def test_inventory_rules_point_at_registered_claims() -> None:
    check_rules(_cov, _NAME)


def test_every_registered_claim_is_in_the_rules_or_table() -> None:
    check_every_claim_listed(_cov, _NAME)


def test_manifest_matches_the_paper_text() -> None:
    check_manifest_current(_cov)
