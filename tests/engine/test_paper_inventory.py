"""audit.paper_inventory on a synthetic paper whose items are counted by hand: headings,
labelled statements, display maths, algorithm lines, table rows, claim-like sentences (and
claim-free ones left out), front matter and references skipped, stable keys, manifests
without text, rules."""

from __future__ import annotations

import json

import pytest

from audit.paper_inventory import (
    Rule,
    account,
    inventory,
    load_manifest,
    manifest,
    manifest_diff,
    paper_path,
)

PAPER = """A Title About Private Things

Some Author

Abstract

We show that the estimator is unbiased. This paper has pictures.

1 Introduction

The weather was nice. Our bound is at most twice the optimum, e.g. in Fig. 2 it is tight.

2.1 Method

Lemma 2.1. *For all x we have f(x) = 0.*

Lemma 2.1 shows the rest.

$$f(x) \\leq g(x). \\quad (1)$$

Algorithm 1: Do it

Input: data

$P_0 \\leftarrow 0;$

return P

Name\tValue
alpha\t1

- If k = 0, then the loss is at most 1.
- If k = 1, then the loss is at most 1.

References

[1] Someone, an optimal paper that is always cited.

Figure 3: The error decreases with n.
"""


def _kinds(items):
    return [(it.section, it.kind) for it in items]


def test_hand_counted_items() -> None:
    items = inventory(PAPER)
    assert _kinds(items) == [
        ("abstract", "sentence"),          # "unbiased"; "This paper has pictures." has no pattern
        ("1", "sentence"),                 # "at most ... tight"; the weather sentence is dropped
        ("2.1", "lemma"),
        ("2.1", "sentence"),               # "For all x ..." inside the lemma
        ("2.1", "sentence"),               # "Lemma 2.1 shows the rest." is prose, not a label
        ("2.1", "equation"),
        ("2.1", "algorithm"),
        ("2.1", "algorithm-line"), ("2.1", "algorithm-line"), ("2.1", "algorithm-line"),
        ("2.1", "table-row"), ("2.1", "table-row"),
        ("2.1", "sentence"), ("2.1", "sentence"),  # two list items, each its own sentence
        ("references", "figure"),          # captions after the references are kept,
        ("references", "sentence"),        # with their claim-like sentences
    ]
    assert items[1].text.startswith("Our bound is at most twice the optimum, e.g. in Fig. 2")
    assert set(items[1].patterns) >= {"at-least-most", "optimal", "tight"}


def test_keys_stable_unique_and_textless_manifest() -> None:
    a, b = inventory(PAPER), inventory(PAPER)
    assert [i.key for i in a] == [i.key for i in b]
    keys = [i.key for i in a]
    assert len(set(keys)) == len(keys)
    assert keys[2] == keys[2].split("#")[0] and keys[2].endswith("|lemma-2-1")
    doc = manifest("x.md", a)
    text = json.dumps(doc)
    assert "twice the optimum" not in text and doc["count"] == len(a)
    # a one-word edit changes exactly that item's key
    edited = inventory(PAPER.replace("twice the optimum", "thrice the optimum"))
    gone, new = manifest_diff(doc, manifest("x.md", edited))
    assert len(gone) == len(new) == 1 and gone[0].startswith("1|")


def test_identical_sentences_get_suffixes() -> None:
    text = "1 Intro\n\nThe bound is tight. The bound is tight.\n"
    keys = [i.key for i in inventory(text)]
    assert len(keys) == 2 and keys[1] == keys[0] + "#2"


def test_rules_account_first_match(tmp_path) -> None:
    doc = manifest("x.md", inventory(PAPER))
    rules = (Rule("2.1", ("k.lemma",), starts="lemma-2-1"), Rule("2.1", ("k.rest",)),
             Rule("*", (), "not checked: elsewhere"))
    found, missing = account(doc["items"], rules)
    assert not missing
    lemma = [e["key"] for e in doc["items"] if e["kind"] == "lemma"][0]
    assert found[lemma].keys == ("k.lemma",)
    eq = [e["key"] for e in doc["items"] if e["kind"] == "equation"][0]
    assert found[eq].keys == ("k.rest",)
    _, missing = account(doc["items"], rules[:2])
    assert missing and all(k.split("|")[0] != "2.1" for k in missing)
    # by hash as well as by first words
    h = eq.split("|")[1]
    assert Rule("2.1", ("k",), starts=h).matches({"key": eq, "section": "2.1",
                                                   "kind": "equation"})
    p = tmp_path / "m.json"
    p.write_text(json.dumps({**doc, "count": doc["count"] + 1}))
    with pytest.raises(ValueError, match="count"):
        load_manifest(p)


def test_paper_path_env(tmp_path, monkeypatch) -> None:
    (tmp_path / "p.md").write_text("x")
    monkeypatch.setenv("DPAUDIT_PAPERS", str(tmp_path))
    assert paper_path("p.md") == tmp_path / "p.md"
    assert paper_path("absent.md") is None
