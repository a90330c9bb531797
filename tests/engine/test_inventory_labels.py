"""The widened sentence detector, anchors, the specific / section / not-checked classes, and
the detector's precision and recall against the committed hand-labelled samples
(audit.paper_inventory, audit.inventory_labels).  Synthetic texts are counted by hand; the
papers' samples are checked only when the papers are on this machine."""

from __future__ import annotations

import importlib
import json

import pytest

from audit.inventory_labels import detector_scores, draw_sample, load_labels
from audit.paper_inventory import (
    NOT_A_CLAIM,
    NOT_CHECKED,
    SECTION,
    SPECIFIC,
    Rule,
    coverage_counts,
    detected,
    inventory,
    manifest,
    paper_path,
)


@pytest.mark.parametrize("sentence", [
    "We find that the error is 0.35 in the second case.",        # we find, a decimal
    "The resulting estimate has variance $\\sigma^2 = 8k^2$.",    # resulting, inline relation
    "This leads to the second case of the lemma.",                # leads to
    "Taken together, term 1 $\\in [a, b]$ for every choice.",     # inline relation
    "The new household requires 1000x more noise in that case.",  # 1000x
    "In Section 4.2 the value drops to 0.206 for this data set.",  # 0.206, not 4.2
    "The sets are pairwise disjoint for different outputs.",      # structure
    "The gap can be dramatic for most data sets.",                # magnitude (round 3b)
    "= $(a_1 + b_1) + \\dots + (a_k + b_k)$",                      # a derivation line
])
def test_widened_detector_finds_inline_results(sentence: str) -> None:
    assert detected(sentence)


@pytest.mark.parametrize("sentence", [
    "Hence,", "\\square", "It follows that", "Thus, for any r we have", "<b>",
    "Furthermore, for all i we have",
    "The weather in the city was pleasant on that day.",        # no pattern at all
    "The construction is described in Section 4.2 and Lemma 3.1.",  # references only
])
def test_fragments_and_patternless_prose_are_not_items(sentence: str) -> None:
    assert not detected(sentence)


def test_a_lead_in_with_a_claim_of_its_own_is_kept() -> None:
    assert detected("Since Case 2 is larger (for $n > 2$), then")  # comparative: a claim
    assert detected("It is easy to see that it translates into the following algorithm "
                    "that is linear in k, even though it is a matrix product:")  # > 12 words


PAPER = """1 Intro

Lemma 3.2. *For all x we have f(x) = 0. The map is linear.*

$$f(x) \\leq g(x). \\quad (7)$$

$$h(x) = 1$$

Hence, we find the bound is tight. The weather was nice.
"""


def test_anchors_name_numbered_equations_and_statement_blocks() -> None:
    items = inventory(PAPER)
    assert [(i.kind, i.anchor) for i in items] == [
        ("lemma", "lemma 3.2"), ("sentence", "lemma 3.2"), ("sentence", "lemma 3.2"),
        ("equation", "eq (7)"), ("equation", ""), ("sentence", "")]
    # every prose sentence, detected or not, for a labelled sample
    every = [i for i in inventory(PAPER, every_sentence=True) if i.kind == "sentence"]
    assert len(every) == 5 and every[0].text == "Lemma 3.2."
    assert every[-1].text == "The weather was nice."


def test_coverage_classes_counted_by_hand() -> None:
    doc = manifest("x.md", inventory(PAPER))
    rules = (Rule("1", ("k.lemma",), anchors=("lemma 3.2",)),       # 3 items: specific
             Rule("1", ("k.eq",), starts="f-x-leq"),                  # eq (7): specific
             Rule("1", (), "not a claim: a display of notation", starts="h-x-1"),
             Rule("1", ("k.any",), "section default"))                # the last sentence
    counts = coverage_counts(doc["items"], rules)
    assert counts == {SPECIFIC: 4, SECTION: 1, NOT_CHECKED: 0, NOT_A_CLAIM: 1, "total": 6,
                      "claims": 5}
    # a section-wide "not a claim" is not a reading of the item: it counts as not checked
    wide = rules[:2] + (Rule("1", (), "not a claim: everything else"),)
    assert coverage_counts(doc["items"], wide)[NOT_CHECKED] == 2
    assert coverage_counts(doc["items"], wide)[NOT_A_CLAIM] == 0


def test_detector_scores_counted_by_hand(tmp_path) -> None:
    text = "1 Intro\n\nWe find that the error is 0.35. The weather was nice. Our data are " \
           "public. It is the best.\n"
    keys = [i.key for i in inventory(text, every_sentence=True)]
    rows = [{"key": keys[0], "label": "claim", "reason": "r"},    # detected: true positive
            {"key": keys[1], "label": "not", "reason": "r"},      # not detected: true negative
            {"key": keys[2], "label": "claim", "reason": "r"},    # not detected: a miss
            {"key": keys[3], "label": "not", "reason": "r"}]      # "best": false positive
    path = tmp_path / "labels.json"
    path.write_text(json.dumps({"samples": {"s": {"seed": 0, "size": 4, "labels": rows}}}))
    (s,) = detector_scores(text, load_labels(path))
    assert (s.true_pos, s.false_pos, s.false_neg, s.true_neg) == (1, 1, 1, 1)
    assert s.precision == 0.5 and s.recall == 0.5 and s.missed == (keys[2],)
    path.write_text(json.dumps({"samples": {"s": {"seed": 0, "size": 5, "labels": rows}}}))
    with pytest.raises(ValueError, match="size says 5"):
        load_labels(path)
    stale = {"samples": {"s": {"size": 1, "labels": [{"key": "1|00000000|gone",
                                                       "label": "not", "reason": "r"}]}}}
    with pytest.raises(ValueError, match="out of date"):
        detector_scores(text, stale)


#: measured (true pos, false pos, false neg, true neg) of the detector on each committed
#: sample; a change of the detector or of a label must update these numbers on purpose
#: "holdout2" (issue 42, round 3b): labelled and committed before its first scoring, which
#: gave, unseen: gini (7, 16, 0, 7), subset_optimal (6, 15, 1, 8), freegap (8, 5, 1, 16),
#: global_sensitivity (18, 9, 0, 3).  Its two misses led to the 'magnitude' and
#: 'leading-relation' patterns: the sample is seen since (the numbers below are after them)
MEASURED = {
    "gini": {"development": (24, 22, 1, 13), "held-out": (10, 13, 1, 6),
             "holdout2": (7, 16, 0, 7)},
    "subset_optimal": {"development": (23, 21, 0, 16), "held-out": (9, 6, 0, 15),
                       "holdout2": (7, 15, 0, 8)},
    # widened by r42c ('improved', 'this / which means', 'we can <adverb> estimate / bound'):
    # was development (14, 19, 2, 25), held-out (11, 11, 2, 6); the held-out sample was seen
    "freegap": {"development": (15, 19, 1, 25), "held-out": (13, 11, 0, 6),
                "holdout2": (9, 5, 0, 16)},
    "global_sensitivity": {"development": (25, 24, 0, 11), "held-out": (15, 8, 1, 6),
                           "holdout2": (18, 9, 0, 3)},
}


@pytest.mark.parametrize("subject", sorted(MEASURED))
def test_labelled_samples_are_seeded_draws_and_scores_are_as_measured(subject: str) -> None:
    cov = importlib.import_module(f"proofs.{subject}.coverage")
    path = paper_path(cov.PAPER_FILE)
    if path is None:
        pytest.skip(f"paper {cov.PAPER_FILE} not on this machine (set DPAUDIT_PAPERS)")
    text = path.read_text(encoding="utf-8")
    labels = load_labels(cov.MANIFEST.with_name("sentence_labels.json"))
    assert labels["paper"] == cov.PAPER_FILE
    dev = labels["samples"]["development"]
    held = labels["samples"]["held-out"]
    assert dev["size"] >= 60 and held["size"] >= 30
    dev_keys = [r["key"] for r in dev["labels"]]
    assert dev_keys == draw_sample(text, dev["seed"], dev["size"])
    held_keys = [r["key"] for r in held["labels"]]
    assert held_keys == draw_sample(text, held["seed"], held["size"], frozenset(dev_keys))
    # the second held-out sample (issue 42, round 3b): a new seed, drawn from every prose
    # sentence outside the two earlier samples
    fresh = labels["samples"]["holdout2"]
    assert fresh["size"] >= 30 and fresh["seed"] not in (dev["seed"], held["seed"])
    assert [r["key"] for r in fresh["labels"]] == draw_sample(
        text, fresh["seed"], fresh["size"], frozenset(dev_keys + held_keys))
    scores = {s.sample: (s.true_pos, s.false_pos, s.false_neg, s.true_neg)
              for s in detector_scores(text, labels)}
    assert scores == MEASURED[subject]
