"""Subject ``liu-global-sensitivity``: Liu, supplement to "Statistical Properties of Sanitized
Results from Differentially Private Laplace Mechanism with Univariate Bounding Constraints" -
l1 global sensitivities under Def 1 (replace one) and Def 2 (add/remove one).

Kernels under audit live in :mod:`kernels.global_sensitivity` (``statistics``, ``formulas``
printed and corrected GS, ``releases`` Laplace releases and bounding constraints); this package
holds the exact suprema (:mod:`.exact_sup`, exhaustive enumeration in Fractions), the Z3 checks
(:mod:`.smt`), the SymPy re-derivations (:mod:`.derivations`), the GS claims (:mod:`.claims`),
the release privacy claims (:mod:`.privacy`, exact loss + black-box) and the Section 6
simulation (:mod:`.simulation`).
"""

from __future__ import annotations

import functools

from audit import registry
from audit.registry import Subject

NAME = "liu-global-sensitivity"

#: ``@claim(key, title, command)`` for this subject's claims
claim = functools.partial(registry.claim, paper=NAME)

SUBJECT = Subject(
    name=NAME,
    paper="Liu, Supplemental Materials to 'Statistical Properties of Sanitized Results from "
    "Differentially Private Laplace Mechanism with Univariate Bounding Constraints' "
    "(shared/papers/liu-laplace-bounding-constraints-supplement.md)",
    modules=(
        "proofs.global_sensitivity.derivations",
        "proofs.global_sensitivity.claims",
        "proofs.global_sensitivity.privacy",
        "proofs.global_sensitivity.experiments",
        "proofs.global_sensitivity.claims_text",
        "proofs.global_sensitivity.claims_proofsteps",
        "proofs.global_sensitivity.claims_maximiser",
    ),
    mechanisms="proofs.global_sensitivity.mechanisms:catalogue",
    regress="proofs.global_sensitivity.regress:SUITE",
    coverage="proofs.global_sensitivity.coverage:RULES",
)
