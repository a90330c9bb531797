"""Privacy claims of Lan & Reiter (2025) checked by exact privacy loss (``dpaudit prove``).

``privacy.admissibility``: for density (10) and each (alpha, beta) rule the paper or its
sources propose (Section 2.3 after Nissim, Raskhodnikova & Smith 2007; Algorithm 3; ours),
the worst sliding, dilation and whole-mechanism loss over a gamma grid in (1, 20]
(:mod:`proofs.gini.admissibility`, mpmath-certified, rounded up), one Finding per rule:
for which gamma it is epsilon-DP.  The figure plots gamma against worst loss / epsilon.
"""

from __future__ import annotations

from audit.findings import Finding
from proofs.gini import claim
from proofs.gini.admissibility import admissibility_findings, admissibility_table


@claim("privacy.admissibility",
       "Noise admissibility of density (10) for each (alpha, beta) rule over gamma in (1, 20]",
       "prove")
def admissibility(budget_s: float, seed: int) -> list[Finding]:
    """The admissibility table at epsilon = 1 (the losses are not linear in epsilon; the
    certify command evaluates the user's own epsilon)."""
    table = admissibility_table(1.0)
    found = admissibility_findings(table)
    series = table.series()
    fig = {
        "id": "privacy.admissibility",
        "title": "Worst whole-mechanism privacy loss / epsilon of g + (S/alpha) Z, Z ~ (10)",
        "kind": "line",
        "series": [{"label": c, "x": s["gamma"], "y": s["whole"]} for c, s in series.items()],
        "xlabel": "gamma",
        "ylabel": "worst loss / epsilon (epsilon = 1)",
        "hlines": [{"y": 1.0, "label": "epsilon"}],
        "caption": "Above the line the (alpha, beta) rule is not epsilon-DP at that gamma.",
    }
    if found:
        found[0].evidence["figures"] = [fig]
    for f in found:
        f.seed = seed
    return found
