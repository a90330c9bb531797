"""The free-gap coverage table (proofs/freegap/coverage.py) is complete and points only at
registered claims; every registered claim of the subject is listed."""

from __future__ import annotations

import re

from audit.registry import load_all
from proofs.freegap import NAME
from proofs.freegap.coverage import COVERAGE


def _keys() -> set[str]:
    return {c.key for c in load_all([NAME]) if c.paper == NAME}


def test_every_key_in_the_table_is_registered() -> None:
    registered = _keys()
    assert not {k for it in COVERAGE for k in it.keys if k not in registered}


def test_every_registered_claim_is_in_the_table() -> None:
    # a new claim must be added to proofs/freegap/coverage.py (a paper item or an extension)
    used = {k for it in COVERAGE for k in it.keys}
    assert not (_keys() - used), _keys() - used


def test_unchecked_items_say_why() -> None:
    for it in COVERAGE:
        assert it.keys or it.note.startswith("not checked: "), it.item


def test_every_numbered_item_is_listed() -> None:
    text = " ".join(it.item for it in COVERAGE)
    assert {int(m) for m in re.findall(r"eq\. \((\d+)\)", text)} == set(range(1, 8))
    for kind, hi in (("Definition", 7), ("Lemma", 5), ("Theorem", 5), ("Example", 3),
                     ("Algorithm", 2), ("Figure", 4)):
        for i in range(1, hi + 1):
            assert f"{kind} {i}" in text, f"{kind} {i}"
    for name in ("Corollary 1", "Table 1", "Sec. 7.1 table", "Footnote 5", "Footnote 6",
                 "A.1", "A.2", "A.3", "A.4"):
        assert name in text, name


# ---- the mechanical inventory of the paper (audit.paper_inventory) and its manifest
import proofs.freegap.coverage as _cov  # noqa: E402
from proofs.freegap import NAME as _NAME  # noqa: E402
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
