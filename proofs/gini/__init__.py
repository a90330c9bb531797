"""Subject ``lan-reiter-2025``: the DP Gini index of Lan & Reiter (2025).

Kernels under audit live in :mod:`kernels.gini` (``api`` ours, ``printed`` the paper as
printed, ``protocol`` the function names ``dpaudit regress`` audits); this package holds the
exact reference and oracles, the claims (SymPy, Z3, exhaustive search), the release as a
mechanism for the privacy testers, the certify chain and the replayers.
"""

from __future__ import annotations

import functools

from audit import registry
from audit.registry import Subject

NAME = "lan-reiter-2025"

#: ``@claim(key, title, command)`` for this subject's claims
claim = functools.partial(registry.claim, paper=NAME)

SUBJECT = Subject(
    name=NAME,
    paper="Lan & Reiter (2025), Differentially private Gini index "
    "(shared/papers/lan-reiter-2025-dp-gini.md)",
    modules=(
        "proofs.gini.derivations",
        "proofs.gini.subsets",
        "proofs.gini.claims",
        "proofs.gini.privacy",
        "proofs.gini.admissibility",
        "proofs.gini.certify.chain",
        "proofs.gini.certify.links",
        "proofs.gini.tight_bound",
        "proofs.gini.experiments",
        "proofs.gini.claims_text",
        "proofs.gini.claims_appendix",
        "proofs.gini.claims_proofsteps",
        "proofs.gini.claims_a2_steps",
        "proofs.gini.claims_bound_steps",
        "proofs.gini.claims_s41_steps",
    ),
    regress="proofs.gini.regress:SUITE",
    coverage="proofs.gini.coverage:RULES",
    certify="proofs.gini.commands:CERTIFY",
    commands={"release": "proofs.gini.commands:RELEASE"},
    calibration="proofs.gini.calibration:runs",
    coverage_calibration="proofs.gini.coverage_calibration:cases",
    mechanisms="proofs.gini.commands:mechanisms",
    default=True,
)
