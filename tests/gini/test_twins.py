"""Twins of the Lan & Reiter checks (issue 42): the same computation on a perturbed claim.
Each twin is refuted where the claim is what the scope reaches, and the perturbation is
checked to matter (the unperturbed computation passes on the same witness)."""

from __future__ import annotations

from fractions import Fraction as Q

from proofs.gini import subsets


def test_theorem_smt_twin_drops_a_family_member() -> None:
    """n = 4, k = 2: dropping a member of the family leaves a data set where it is the unique
    best, Z3 answers SAT; the full family's query on that subset is UNSAT (it is a member)."""
    for sense in ("max", "min"):
        tw = subsets._smt_twin(sense, 4, subsets.SMT_RLIMIT)
        assert tw["outcome"] == "refuted"
        w = tw["witness"]
        x, sub = w["x"], tuple(w["subset"])
        fam = (subsets.prefix_suffix if sense == "max" else subsets.windows)(4, 2)
        assert sub in fam
        g = subsets.g2([x[i] for i in sub])
        others = [subsets.g2([x[i] for i in f]) for f in fam if f != sub]
        others = [v for v in others if v is not None]
        assert all(g > v for v in others) if sense == "max" else all(g < v for v in others)


def test_lemma_twins_reach_their_case_on_the_grid() -> None:
    data = list(subsets.lemma_datasets(0, 0))[:400]
    for cid, (_, twin_fn) in subsets.LEMMA_TWINS.items():
        real_fn = subsets.LEMMA_CHECKS[cid][2]
        hit = next(((x, L, U) for x, L, U in data if twin_fn(x, L, U) is not None), None)
        assert hit is not None, cid
        assert real_fn(*hit) is None, cid  # the shift, not the data, fails the check there


def test_findmin_twins() -> None:
    tw = subsets.findmin_twins(200)
    assert tw["monotone"]["outcome"] == tw["reversed"]["outcome"] == "refuted"
    w = tw["reversed"]["witness"]
    lo, hi, g = subsets.block_g(w["x"], w["k"], w["i"])
    vals = [g(j) for j in range(lo, hi + 1)]
    from kernels.gini import printed as paper
    assert g(paper.find_min_index(lo, hi, g)) == min(vals)  # the real search is right there
    assert Q(0) <= min(vals)
