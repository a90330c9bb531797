"""How well the sentence detector of :mod:`audit.paper_inventory` finds a paper's
claim-bearing sentences, measured against a hand-labelled random sample.

A **label file** (``proofs/<subject>/sentence_labels.json``, committed) holds, per sample,
the seed and size it was drawn with and, for each drawn sentence, its inventory key (section,
hash, first six words: no other paper text), the label (``"claim"`` or ``"not"``) and a
one-line reason.  Samples are drawn by :func:`draw_sample` from every prose sentence of the
paper (``inventory(text, every_sentence=True)``), detected or not, so the sample says nothing
about what the detector saw; a ``"held-out"`` sample is drawn from the sentences left after
the ``"development"`` sample.

:func:`detector_scores` counts, on one sample, the detector's true / false positives and
negatives ("detected" = the sentence would be an inventory item: a claim-like pattern and not
a fragment) and returns precision and recall.  Guarantee: the scores are a pure function of
the paper text and the labels; a labelled key the text no longer has raises ``ValueError``
naming it (a stale label file is never scored silently).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from audit.paper_inventory import InventoryItem, detected, inventory

__all__ = ["DetectorScores", "detector_scores", "draw_sample", "load_labels"]

LABELS = ("claim", "not")


@dataclass(frozen=True)
class DetectorScores:
    """The detector against one hand-labelled sample."""

    sample: str
    true_pos: int
    false_pos: int
    false_neg: int
    true_neg: int
    missed: tuple[str, ...]  # keys of claim-bearing sentences the detector does not inventory

    @property
    def precision(self) -> float:
        found = self.true_pos + self.false_pos
        return self.true_pos / found if found else float("nan")

    @property
    def recall(self) -> float:
        claims = self.true_pos + self.false_neg
        return self.true_pos / claims if claims else float("nan")


def _sentences(text: str) -> list[InventoryItem]:
    return [it for it in inventory(text, every_sentence=True) if it.kind == "sentence"]


def draw_sample(text: str, seed: int, size: int, exclude: frozenset[str] = frozenset()
                ) -> list[str]:
    """Keys of ``size`` prose sentences of ``text`` drawn uniformly without replacement
    (``random.Random(seed)``) from those whose key is not in ``exclude``, in paper order."""
    keys = [it.key for it in _sentences(text)]
    pool = [i for i, key in enumerate(keys) if key not in exclude]
    return [keys[i] for i in sorted(random.Random(seed).sample(pool, size))]


def load_labels(path: str | Path) -> dict:
    """Read a label file; raises ValueError naming the file and entry when one is malformed
    (an unknown label, a missing reason, a size that differs from the entries)."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    for name, sample in doc.get("samples", {}).items():
        rows = sample.get("labels", [])
        if len(rows) != sample.get("size"):
            raise ValueError(f"{path}: sample {name!r} has {len(rows)} labels, size says "
                             f"{sample.get('size')}")
        for row in rows:
            if row.get("label") not in LABELS or not row.get("reason"):
                raise ValueError(f"{path}: sample {name!r}: bad entry {row!r} (label must be "
                                 f"one of {LABELS}, with a reason)")
    if not doc.get("samples"):
        raise ValueError(f"{path}: no samples")
    return doc


def detector_scores(text: str, labels: dict) -> list[DetectorScores]:
    """The detector's counts on every sample of ``labels`` (a :func:`load_labels` document)
    for the paper ``text``."""
    by_key = {it.key: it for it in _sentences(text)}
    out = []
    for name, sample in labels["samples"].items():
        tp = fp = fn = tn = 0
        missed = []
        for row in sample["labels"]:
            item = by_key.get(row["key"])
            if item is None:
                raise ValueError(f"labelled sentence {row['key']!r} is not in the paper text "
                                 "(label file out of date)")
            hit, claim = detected(item.text), row["label"] == "claim"
            tp += hit and claim
            fp += hit and not claim
            fn += claim and not hit
            tn += not claim and not hit
            if claim and not hit:
                missed.append(row["key"])
        out.append(DetectorScores(name, tp, fp, fn, tn, tuple(missed)))
    return out
