"""Checks shared by every subject's coverage test: the committed inventory manifest is fully
accounted for by the subject's coverage rules, the rules point only at registered claims,
every registered claim is listed, and (when the paper is on this machine) the manifest is
what :func:`audit.paper_inventory.inventory` gives for the paper today."""

from __future__ import annotations

from types import ModuleType

import pytest

from audit.paper_inventory import (
    NOT_A_CLAIM_NOTE,
    account,
    inventory,
    load_manifest,
    manifest,
    manifest_diff,
    paper_path,
)
from audit.registry import load_all


def registered(name: str) -> set[str]:
    return {c.key for c in load_all([name]) if c.paper == name}


def check_accounted(cov: ModuleType) -> None:
    doc = load_manifest(cov.MANIFEST)
    assert doc["paper"] == cov.PAPER_FILE
    found, missing = account(doc["items"], cov.RULES)
    assert not missing, f"{len(missing)} inventory items unaccounted for, e.g. {missing[:5]}"
    dead = [r for r in cov.RULES if r not in set(found.values())]
    assert not dead, f"rules that match no inventory item: {dead[:3]}"


def check_rules(cov: ModuleType, name: str) -> None:
    keys = registered(name)
    for r in cov.RULES:
        assert r.keys or r.note.startswith("not checked: ") or (
            r.specific and r.note.startswith(NOT_A_CLAIM_NOTE)), r
        assert not (set(r.keys) - keys), (r, set(r.keys) - keys)


def check_every_claim_listed(cov: ModuleType, name: str) -> None:
    used = {k for r in cov.RULES for k in r.keys}
    used |= {k for it in getattr(cov, "COVERAGE", ()) for k in it.keys}
    assert not (registered(name) - used), registered(name) - used


def check_manifest_current(cov: ModuleType) -> None:
    path = paper_path(cov.PAPER_FILE)
    if path is None:
        pytest.skip(f"paper {cov.PAPER_FILE} not on this machine (set DPAUDIT_PAPERS); "
                    "the committed manifest was checked against the coverage rules only")
    fresh = manifest(cov.PAPER_FILE, inventory(path.read_text(encoding="utf-8")))
    gone, new = manifest_diff(load_manifest(cov.MANIFEST), fresh)
    assert not gone and not new, (f"manifest out of date: {len(gone)} gone {gone[:3]}, "
                                  f"{len(new)} new {new[:3]}; run "
                                  "tests/common/coverage_manifests.py")
    assert load_manifest(cov.MANIFEST)["items"] == fresh["items"], \
        "manifest kinds / patterns / anchors out of date; run tests/common/coverage_manifests.py"
