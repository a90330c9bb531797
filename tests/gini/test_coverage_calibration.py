"""The Gini subject's coverage-calibration hook (``proofs/gini/coverage_calibration.py``)
runs the certify chain's own ``release`` and ``posterior`` links on the chain's own context:
a change of the chain's link table or of the context the links read must show here, not
as a crash of ``dpaudit calibrate --coverage`` (the hook once read link tables the chain no
longer had, and a refuting link read a context attribute the hook did not provide)."""

from __future__ import annotations

from proofs.gini import coverage_calibration as cc
from proofs.gini.certify import chain


def test_every_link_the_hook_uses_is_in_the_chain() -> None:
    keys = {link.key for link in chain.CHAIN.links}
    assert {"release", "posterior"} <= keys
    for key in ("release", "posterior"):
        assert cc._link(key) is next(lk.run for lk in chain.CHAIN.links if lk.key == key)


def test_release_link_trial_passes_the_claim_and_flags_the_2x_twin() -> None:
    trial = cc._link_trial("release", True)
    at_claim = trial(0, 1.0)
    assert not at_claim.flagged and not at_claim.error
    # noise shrunk by 2 while the declared scale is right: the noise-law check refutes it,
    # which writes a counterexample (the path that needs the context's fingerprint)
    twin = trial(1, 2.0)
    assert twin.flagged


def test_posterior_link_trial_runs_at_the_claim() -> None:
    assert not cc._link_trial("posterior", True)(0, 1.0).error
