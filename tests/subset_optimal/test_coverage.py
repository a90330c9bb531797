"""The coverage rules of proofs/subset_optimal/coverage.py account for every item of the paper's
mechanical inventory and point only at registered claims; every registered claim is listed."""

from __future__ import annotations

# ---- the mechanical inventory of the paper (audit.paper_inventory) and its manifest
import proofs.subset_optimal.coverage as _cov  # noqa: E402
from proofs.subset_optimal import NAME as _NAME  # noqa: E402
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
