"""Subject ``ding-et-al-free-gap``: Ding, Wang, Zhang & Kifer, free-gap Noisy-Max and
Sparse Vector.

Kernels under audit live in :mod:`kernels.freegap` (``mechanisms`` the step-by-step cores
and vectorised samplers, ``broken`` deliberately broken variants); this package holds the
randomness-alignment proofs (Z3), SymPy derivations, simulations, the mechanisms wrapped for
the privacy testers, the black-box and float-bit claims and their replayers.
"""

from __future__ import annotations

import functools

from audit import registry
from audit.registry import Subject

NAME = "ding-et-al-free-gap"

#: ``@claim(key, title, command)`` for this subject's claims
claim = functools.partial(registry.claim, paper=NAME)

SUBJECT = Subject(
    name=NAME,
    paper="Ding, Wang, Zhang & Kifer, Free gap information from the differentially private "
    "sparse vector and noisy max mechanisms "
    "(shared/papers/ding-et-al-free-gap-noisy-max-sparse-vector.md)",
    modules=(
        "proofs.freegap.smt",
        "proofs.freegap.derivations",
        "proofs.freegap.claims",
        "proofs.freegap.privacy",
        "proofs.freegap.float_bits",
        "proofs.freegap.experiments",
        "proofs.freegap.claims_text",
        "proofs.freegap.claims_proofsteps",
    ),
    mechanisms="proofs.freegap.mechanisms:catalogue",
    regress="proofs.freegap.regress:SUITE",
    coverage="proofs.freegap.coverage:RULES",
)
