"""Subject ``dick-et-al-subset-optimal``: Dick, Kulesza, Sun & Suresh, *Subset-based instance
optimality in private estimation*.

Kernels under audit: :mod:`kernels.subset_optimal`.  This package: the exact reference
(:mod:`.reference`, Fractions / mpmath), exact privacy loss (:mod:`.privacy`), oracles
(:mod:`.oracles`: Lemma 1 linear program, Lemmas 6 and 8, Definition 7), mechanisms for the
testers (:mod:`.mechanisms`), claims and replayers (:mod:`.claims`), and the certify
command (:mod:`.commands`).  Neighbour relation: add/remove one record (paper Section 2).
"""

from __future__ import annotations

import functools

from audit import registry
from audit.registry import Subject

NAME = "dick-et-al-subset-optimal"

#: ``@claim(key, title, command)`` for this subject's claims
claim = functools.partial(registry.claim, paper=NAME)

SUBJECT = Subject(
    name=NAME,
    paper="Dick, Kulesza, Sun & Suresh, Subset-based instance optimality in private "
    "estimation (shared/papers/dick-et-al-subset-instance-optimality.md)",
    modules=("proofs.subset_optimal.claims", "proofs.subset_optimal.experiments",
             "proofs.subset_optimal.claims_text",
             "proofs.subset_optimal.claims_proofsteps", "proofs.subset_optimal.claims_thm3_steps",
             "proofs.subset_optimal.claims_tail_steps",
             "proofs.subset_optimal.certify"),
    mechanisms="proofs.subset_optimal.mechanisms:catalogue",
    certify="proofs.subset_optimal.commands:CERTIFY",
    regress="proofs.subset_optimal.regress:SUITE",
    coverage="proofs.subset_optimal.coverage:RULES",
)
