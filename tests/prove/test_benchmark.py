"""The benchmark programs (audit.prove.benchmark): every broken twin refuted with an exact,
replayable witness above the claim; every correct program not refuted over its search scope
("not refuted" is all a search can say, never "verified").

The full n <= 3 scope for the correct programs is slow-marked:
``pytest -m slow tests/prove/test_benchmark.py``."""

from __future__ import annotations

import json

import pytest

from audit.prove.benchmark import PROGRAMS
from audit.prove.refute import refute, replay_witness

BROKEN = [p for p in PROGRAMS if not p.correct]
CORRECT = [p for p in PROGRAMS if p.correct]


def test_every_correct_program_has_a_broken_twin_and_a_source() -> None:
    assert len(BROKEN) >= len(CORRECT) >= 6
    for p in PROGRAMS:
        doc = p.program.__doc__ or ""
        assert doc.strip(), p.name
        if not p.correct:
            assert "BROKEN" in doc and "What breaks" in doc, p.name


@pytest.mark.parametrize("entry", BROKEN, ids=[p.name for p in BROKEN])
def test_broken_program_is_refuted_exactly(entry) -> None:
    res = refute(entry.program, **entry.search)
    assert res.verdict == "refuted", (entry.name, res.as_doc())
    w = res.witness
    assert w is not None and w.eps_lower > 1  # certified lower bound above the claim eps = 1
    doc = json.loads(json.dumps(res.as_doc()))
    again = replay_witness(doc["witness"])
    assert again.refutes and again.eps_lower == w.eps_lower


def _not_refuted(entry, n_max: int, *, override: bool = False) -> None:
    kw = {**entry.search, "n_max": n_max if override else
          min(n_max, entry.search.get("n_max", n_max))}
    res = refute(entry.program, **kw)
    assert res.verdict == "not-refuted", (entry.name, res.as_doc())
    assert res.witness is None and res.pairs_checked > 0
    assert res.skipped_events == 0  # every event of the scope was computed exactly
    assert res.best is not None and res.best.eps_lower <= 1


@pytest.mark.parametrize("entry", CORRECT, ids=[p.name for p in CORRECT])
def test_correct_program_not_refuted_small_scope(entry) -> None:
    _not_refuted(entry, 2)


# at n = 3 the runner-up tracking of Noisy-Top-1-with-Gap compares three draws pairwise (a
# cycle: outside the exact class), so its scope stays n <= 2
CORRECT_N3 = [p for p in CORRECT if p.name != "noisy_top1_with_gap"]


@pytest.mark.slow
@pytest.mark.parametrize("entry", CORRECT_N3, ids=[p.name for p in CORRECT_N3])
def test_correct_program_not_refuted_n3(entry) -> None:
    _not_refuted(entry, 3, override=True)
