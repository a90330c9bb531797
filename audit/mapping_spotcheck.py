"""An independent spot check of a coverage table's *specific* mappings (issue 42): a seeded
random sample of the inventory items a rule maps specifically, each judged by reading the
mapped claims' code -- does a check test *that* item (its equation, number or statement), not
only the theorem it belongs to?

:func:`draw_specific` draws the sample: ``size`` keys uniformly without replacement
(``random.Random(seed)``) from the manifest items :func:`audit.paper_inventory.coverage_class`
puts in "specific", in manifest order.  A **record** (``proofs/<subject>/mapping_spotcheck.json``,
committed; keys and claim keys only, no paper text) holds the seed, the size, the population
it was drawn from and, per drawn key, the claim keys it was mapped to (``was``), the verdict
(``"tests it"`` or ``"mis-mapped"``), a one-line reason and, for a mis-mapped item, what it is
mapped to after the fix (``now``: claim keys, or ``[]`` with the class it was demoted to).

:func:`record_problems` checks a record against today's rules: every mis-mapped item's mapping
has changed to the recorded fix, and every item judged "tests it" is still mapped specifically
to at least the claims that were judged.  Guarantee: pure functions of the manifest, the rules
and the record; a malformed record raises ``ValueError`` naming the file and entry.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from audit.paper_inventory import SPECIFIC, Rule, account, coverage_class

__all__ = ["VERDICTS", "draw_specific", "load_record", "mis_mapped_rate", "record_problems"]

VERDICTS = ("tests it", "mis-mapped")


def draw_specific(items: list[dict], rules: tuple[Rule, ...], seed: int, size: int
                  ) -> tuple[list[str], int]:
    """(``size`` keys drawn from the items mapped specifically, the population's size)."""
    found, _ = account(items, rules)
    pop = [e["key"] for e in items if coverage_class(found.get(e["key"])) == SPECIFIC]
    picked = sorted(random.Random(seed).sample(range(len(pop)), size))
    return [pop[i] for i in picked], len(pop)


def load_record(path: str | Path) -> dict:
    """Read a spot-check record; ValueError naming the file and the first bad entry."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    rows = doc.get("entries", [])
    if not rows or len(rows) != doc.get("size"):
        raise ValueError(f"{path}: {len(rows)} entries, size says {doc.get('size')}")
    for row in rows:
        ok = (row.get("verdict") in VERDICTS and row.get("reason") and row.get("was")
              and (row["verdict"] == "tests it" or ("now" in row and row.get("fix"))))
        if not ok:
            raise ValueError(f"{path}: bad entry {row!r} (verdict one of {VERDICTS}, a reason, "
                             "the claims it was mapped to; a mis-mapped one its fix and 'now')")
    return doc


def mis_mapped_rate(doc: dict) -> tuple[int, int]:
    """(mis-mapped, drawn)."""
    return sum(r["verdict"] == "mis-mapped" for r in doc["entries"]), len(doc["entries"])


def record_problems(doc: dict, items: list[dict], rules: tuple[Rule, ...]) -> list[str]:
    """Why the record no longer describes the rules (empty when it does)."""
    found, _ = account(items, rules)
    out = []
    for row in doc["entries"]:
        rule = found.get(row["key"])
        if rule is None:
            out.append(f"{row['key']}: no longer in the manifest or unaccounted for")
            continue
        now = list(rule.keys)
        if row["verdict"] == "tests it":
            if coverage_class(rule) != SPECIFIC or not set(row["was"]) <= set(now):
                out.append(f"{row['key']}: judged 'tests it' with {row['was']}, now {now} "
                           f"({coverage_class(rule)}): judge it again")
        elif now == row["was"] or now != row["now"]:
            out.append(f"{row['key']}: mis-mapped to {row['was']}; the fix says {row['now']}, "
                       f"the rules say {now}")
    return out
