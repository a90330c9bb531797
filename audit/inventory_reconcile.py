"""Reconciling two renderings of the same claims: two inventories of one paper (two files of
it), or the statements a paper prints twice (a theorem stated in the main text and restated
with its proof in an appendix).

:func:`reconcile` matches the items of two inventories by the hash of their normalised text
(the key's middle field) and lists what only one side has.  :func:`restatements` finds every
numbered statement (``"theorem 4.2"``) printed in more than one section of one text, and
compares the statement's sentences word by word.  Both return data (keys, counts, the words
that differ); nothing is printed or written.  Guarantee: pure functions of the text(s); two
identical renderings reconcile with nothing unmatched, and a one-word edit of a restated
statement is reported as a difference of that word.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from audit.paper_inventory import InventoryItem, inventory

__all__ = ["Reconciliation", "Restatement", "reconcile", "restatements"]


@dataclass(frozen=True)
class Reconciliation:
    """Items of rendering A matched to rendering B by their text's hash."""

    matched: tuple[tuple[str, str], ...]  # (key in A, key in B)
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]


@dataclass(frozen=True)
class Restatement:
    """A numbered statement printed in several sections, and how its texts differ."""

    anchor: str  # "theorem 4.2"
    sections: tuple[str, ...]  # where it is printed, in order
    same: bool
    removed: tuple[str, ...]  # words of the first printing missing from a later one
    added: tuple[str, ...]  # words a later printing adds


def _digest(key: str) -> str:
    return key.split("|", 2)[1]


def reconcile(a: list[InventoryItem], b: list[InventoryItem]) -> Reconciliation:
    """Match inventory items of two renderings by the hash of their normalised text (each
    item of A at most once, in order); the rest are listed per side."""
    pool: dict[str, list[str]] = {}
    for it in b:
        pool.setdefault(_digest(it.key), []).append(it.key)
    matched, only_a = [], []
    for it in a:
        keys = pool.get(_digest(it.key))
        if keys:
            matched.append((it.key, keys.pop(0)))
        else:
            only_a.append(it.key)
    used = {kb for _, kb in matched}
    only_b = [it.key for it in b if it.key not in used]
    return Reconciliation(tuple(matched), tuple(only_a), tuple(only_b))


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9]+|[^\sA-Za-z0-9*]", text)


def restatements(text: str) -> list[Restatement]:
    """Every numbered statement whose label occurs in more than one section of ``text``, with
    the word-level difference between its first printing and each later one."""
    blocks: dict[str, dict[str, list[str]]] = {}
    for it in inventory(text, every_sentence=True):
        if it.anchor and not it.anchor.startswith(("eq ", "algorithm ", "table ", "figure ")):
            blocks.setdefault(it.anchor, {}).setdefault(it.section, []).append(it.text)
    out = []
    for anchor, by_section in blocks.items():
        if len(by_section) < 2:
            continue
        sections = tuple(by_section)
        first = _words(" ".join(by_section[sections[0]]))
        removed: list[str] = []
        added: list[str] = []
        for later in sections[1:]:
            other = _words(" ".join(by_section[later]))
            for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=first, b=other,
                                                               autojunk=False).get_opcodes():
                if op in ("delete", "replace"):
                    removed.extend(first[i1:i2])
                if op in ("insert", "replace"):
                    added.extend(other[j1:j2])
        out.append(Restatement(anchor, sections, not removed and not added, tuple(removed),
                               tuple(added)))
    return out
