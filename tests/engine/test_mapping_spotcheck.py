"""The spot check of the specific mappings (audit.mapping_spotcheck): the seeded draw and the
record check on a hand-built inventory, and each subject's committed record against today's
coverage rules (every mis-mapped item fixed as recorded, every item judged 'tests it' still
mapped specifically to the claims judged)."""

from __future__ import annotations

import importlib
import json

import pytest

from audit.mapping_spotcheck import draw_specific, load_record, mis_mapped_rate, record_problems
from audit.paper_inventory import Rule, load_manifest

ITEMS = [{"key": f"1|0000000{i}|item-{i}", "section": "1", "kind": "sentence"} for i in range(4)]
RULES = (Rule("1", ("c.a",), starts="item-0"),            # specific
         Rule("1", (), "not checked: why", starts="item-1"),  # not checked
         Rule("1", ("c.b",), starts="item-2"),            # specific
         Rule("1", ("c.c",), "a section default"))        # item-3: section only


def test_draw_is_from_the_specific_items_only() -> None:
    keys, pop = draw_specific(ITEMS, RULES, seed=7, size=2)
    assert pop == 2 and keys == [ITEMS[0]["key"], ITEMS[2]["key"]]
    for seed in range(20):  # a draw of one is always one of the two specific items
        (k,), _ = draw_specific(ITEMS, RULES, seed=seed, size=1)
        assert k in (ITEMS[0]["key"], ITEMS[2]["key"])
    with pytest.raises(ValueError):
        draw_specific(ITEMS, RULES, seed=0, size=3)


def test_record_problems_by_hand(tmp_path) -> None:
    ok = {"key": ITEMS[0]["key"], "was": ["c.a"], "verdict": "tests it", "reason": "r"}
    fixed = {"key": ITEMS[2]["key"], "was": ["c.x"], "verdict": "mis-mapped", "reason": "r",
             "fix": "re-mapped", "now": ["c.b"]}
    doc = {"size": 2, "entries": [ok, fixed]}
    assert record_problems(doc, ITEMS, RULES) == []
    assert mis_mapped_rate(doc) == (1, 2)
    # an unfixed mis-mapping, and an item judged 'tests it' that was since demoted
    stale = {**fixed, "was": ["c.b"]}
    demoted = {**ok, "key": ITEMS[3]["key"], "was": ["c.c"]}
    probs = record_problems({"size": 2, "entries": [stale, demoted]}, ITEMS, RULES)
    assert len(probs) == 2 and "mis-mapped" in probs[0] and "judge it again" in probs[1]
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"size": 2, "entries": [ok, {**fixed, "fix": ""}]}))
    with pytest.raises(ValueError, match="bad entry"):
        load_record(path)


#: mis-mapped of the 20 drawn (seed 20261212) per subject, judged by reading the claims' code
MIS_MAPPED = {"gini": 3, "freegap": 0, "subset_optimal": 1, "global_sensitivity": 3}


@pytest.mark.parametrize("subject", sorted(MIS_MAPPED))
def test_committed_spot_check_matches_the_rules(subject: str) -> None:
    cov = importlib.import_module(f"proofs.{subject}.coverage")
    doc = load_record(cov.MANIFEST.with_name("mapping_spotcheck.json"))
    assert doc["seed"] == 20261212 and doc["size"] == 20
    assert mis_mapped_rate(doc) == (MIS_MAPPED[subject], 20)
    assert record_problems(doc, load_manifest(cov.MANIFEST)["items"], cov.RULES) == []
