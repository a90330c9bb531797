"""The prover's self-audit (audit/prove/selfaudit/table.py): ``dpaudit prove`` on generated
programs against the independent truth oracle.

* a seeded sample (random.Random(2026), 3 of the 216 programs other than geometric Sparse
  Vector, whose integer Z3 queries take minutes each) in the default run: no
  unsound verdict, no refutation witness above the oracle's bound, no oracle conflict;
* the comparison catches a broken prover: a prover that says verified for a program the
  oracle refutes, and one that refutes a program the oracle proves private, are both
  reported unsound (those stand-in provers exercise the detector, never a verdict);
* slow: the whole family (tests/bench/prove_families.py writes the same table to
  reports/bench/prove-families.txt)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from audit.prove.proof import prove_mechanism
from audit.prove.selfaudit import families, table
from audit.prove.selfaudit.spec import Spec
from audit.prove.verdict import ProofVerdict


def _assert_clean(rows: list[table.Row]) -> None:
    assert [r.unsound for r in rows if r.unsound] == []
    assert [r.mismatch for r in rows if r.mismatch] == []
    assert [c for r in rows for c in r.conflicts] == []
    assert all(r.verdict != "error" for r in rows), [r.detail for r in rows]


def test_seeded_sample_has_no_unsound_verdict() -> None:
    rows = table.run(table.sample(2026, 3, quick=True))
    _assert_clean(rows)
    text = table.render(rows)
    assert "unsound verdicts: 0" in text


def _lying(status: str, witness: dict[str, Any] | None = None) -> Any:
    def prover(mech: Any, n_max: int = 4) -> ProofVerdict:
        v = ProofVerdict(status, mech.name, mech.relation, list(range(1, n_max + 1)), None,
                         {})
        v.witness = witness
        return v
    return prover


def test_detector_flags_a_proof_of_a_non_private_program() -> None:
    # Lap(1/2) histogram under linf1: loss 2n, not eps-DP from n = 1
    g = families.Generated(Spec("histogram", "laplace", "linf1", Fraction(1, 2)),
                           families.build(Spec("histogram", "laplace", "linf1",
                                               Fraction(1, 2))))
    row = table.audit_program(g, 3, prover=_lying("verified"))
    assert row.unsound.startswith("PROVED") and "n = 1" in row.unsound
    honest = table.audit_program(g, 3, prover=prove_mechanism)
    assert not honest.unsound and honest.verdict != "verified (n <= N)"


def test_vacuous_is_its_own_row_never_verified_or_unsound() -> None:
    # a proof whose twin was not refuted (audit/prove/twin.py) is VACUOUS: the table shows the
    # word, never counts it as verified, so even on a non-private program it is not "unsound"
    g = families.Generated(Spec("histogram", "laplace", "linf1", Fraction(1, 2)),
                           families.build(Spec("histogram", "laplace", "linf1",
                                               Fraction(1, 2))))
    row = table.audit_program(g, 3, prover=_lying("vacuous"))
    assert row.verdict == "vacuous" and not row.unsound
    assert "vacuous" in table.render([row])


def test_detector_flags_a_refutation_of_a_private_program() -> None:
    spec = Spec("histogram", "laplace", "onehot1", Fraction(2))
    g = families.Generated(spec, families.build(spec))
    wit = {"q": ["0", "0"], "q_prime": ["1", "0"], "epsilon_witness_lower": "1.5"}
    row = table.audit_program(g, 2, prover=_lying("refuted", wit))
    assert row.unsound.startswith("REFUTED") and "n = 2" in row.unsound


def test_detector_flags_a_witness_above_the_pairs_true_loss() -> None:
    # Lyu et al. Alg. 1 at n = 2 is private; a claimed witness of 3 on a pair is impossible
    spec = Spec("svt", "laplace", "linf1", Fraction(4), Fraction(2), 1)
    g = families.Generated(spec, families.build(spec))
    wit = {"q": ["0", "0"], "q_prime": ["1", "1"], "epsilon_witness_lower": "3.0"}
    row = table.audit_program(g, 2, prover=_lying("refuted", wit))
    assert row.mismatch and row.unsound


@pytest.mark.slow
def test_whole_family_has_no_unsound_verdict() -> None:
    rows = table.run()
    assert len(rows) >= 300
    _assert_clean(rows)
