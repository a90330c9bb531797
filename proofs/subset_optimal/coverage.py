"""Coverage of Dick, Kulesza, Sun & Suresh (subset-based instance optimality): every item of
the mechanical inventory of the paper (:mod:`audit.paper_inventory`; committed keys in
``coverage_manifest.json``, no paper text) -> the claim keys that check it (``dpaudit
prove|search|reproduce --paper dick-et-al-subset-optimal --only KEY``), or "not checked:
why".  The first rule that matches an inventory item accounts for it, so specific rules
(a labelled statement, one sentence) come before a section's default.
``tests/subset_optimal/test_coverage.py`` checks that every item is accounted for, that every
key is registered and that every registered claim is listed.
"""

from __future__ import annotations

from pathlib import Path

from audit.paper_inventory import Rule

PAPER_FILE = "dick-et-al-subset-instance-optimality.md"
MANIFEST = Path(__file__).with_name("coverage_manifest.json")

_SUMMARY = ("not checked: summary of results stated precisely (and checked) in Sections 3-5 "
            "and the appendices")
_ALG1 = ("subset.alg1-privacy", "subset.alg1-accuracy")
_ALG2 = ("subset.alg2-privacy", "subset.alg2-accuracy")
_THM1 = ("subset.alg3-privacy", "subset.alg3-blackbox", "subset.theorem1-accuracy",
         "subset.theorem1-constants")
_THM3 = ("subset.alg4-privacy", "subset.alg4-rank-target", "subset.theorem3-constants")

RULES: tuple[Rule, ...] = (
    Rule("abstract", (), _SUMMARY),
    Rule("1", (), "not checked: motivation; the definitions and results are stated and checked "
                  "in Sections 2-5"),
    # Section 2: distance, Definitions 1-2, the benchmark R(D, eps)
    Rule("2", ("subset.replace-one",), starts="because-the-add-remove"),
    Rule("2", ("subset.alg1-privacy", "subset.alg3-privacy"), starts="definition-1",
         note="Definition 1 is the test criterion of the exact privacy-loss checks"),
    Rule("2", ("subset.alg1-privacy", "subset.alg3-privacy"), starts="a-randomized-algorithm"),
    Rule("2", ("subset.alg1-privacy", "subset.alg3-privacy"), starts="pr-a-d-in"),
    Rule("2", ("subset.definitions",), starts="definition-2"),
    Rule("2", ("subset.definitions",), starts="we-say-an-algorithm"),
    Rule("2", ("subset.definitions",), starts="mathbb-e-ell-a"),
    Rule("2", ("subset.definitions",), starts="and-a-is-c"),
    Rule("2", ("text.subset.footnotes",), "footnote 1: eps' = 1/ceil(1/eps) in (eps/2, eps]",
         starts="1we-focus"),
    Rule("2", ("text.subset.footnotes",), "footnote 1 (a constant factor: eps' > eps/2)",
         starts="this-will"),
    Rule("2", ("subset.definitions", "subset.lemma1-oracle"),
         "the distance d(D, D'), R(D, eps) (used by the Lemma 1 oracle) and the prose "
         "explaining them"),
    Rule("2.1", ("subset.table1-rates", "subset.theorem4-corollary2"), kinds=("table",
                                                                               "table-row")),
    Rule("2.1", ("subset.table1-rates", "subset.theorem4-corollary2"), starts="sigma-mathcal"),
    Rule("2.1", (), _SUMMARY),
    Rule("2.2", (), "not checked: results of cited work (Asi & Duchi, Huang et al., Kamath et "
                    "al.); the paper's own comparison rests on Lemma 1 / Theorem 1, checked in "
                    "Section 3"),
    # Section 3: Theorem 1, Lemma 1, Algorithm 1, Lemma 2
    Rule("3", ("subset.lemma1-oracle",), starts="lemma-1"),
    Rule("3", ("subset.lemma1-oracle",), starts="for-any-varepsilon-in"),
    Rule("3", ("subset.lemma1-oracle",), starts="r-d-varepsilon-geq"),
    Rule("3", _ALG1, kinds=("algorithm", "algorithm-line")),
    Rule("3", _ALG1, starts="lemma-2"),
    Rule("3", _ALG1, starts="publishing-hat-mu-output"),
    Rule("3", _ALG1, starts="8f218e39"),
    Rule("3", _THM1 + _ALG1 + ("subset.lemma1-oracle",),
         "Theorem 1 and the text leading to Algorithms 1 and 3"),
    # Section 3.1: Definitions 3-5, Figure 1, Algorithm 2, Theorem 2, Corollary 1
    Rule("3.1", ("text.subset.def3-prose", "subset.definitions"),
         starts="that-is-there-are-at-most"),
    Rule("3.1", ("text.subset.def3-prose", "subset.definitions"),
         starts="roughly-being-a-rank-r"),
    Rule("3.1", ("subset.definitions",), kinds=("definition", "figure")),
    Rule("3.1", _ALG2, kinds=("algorithm", "algorithm-line", "theorem", "corollary")),
    Rule("3.1", ("subset.definitions",) + _ALG2,
         "rank thresholds (Definitions 3-5, Figure 1) and Algorithm 2's guarantee"),
    Rule("3.2", ("text.subset.footnotes",), starts="2note-that-when"),
    Rule("3.2", ("text.subset.footnotes", "subset.alg3-privacy"),
         starts="therefore-we-can-use-algorithm-2"),
    Rule("3.2", ("text.subset.clip-vs-delete",), starts="next-we-argue-that-clipping"),
    Rule("3.2", _THM1 + ("subset.replace-one",), "Algorithm 3 and its use of Algorithms 1-2 "
                                                 "(lines 1-4 use gamma and eps while the input "
                                                 "line declares eps' and alpha: notation)"),
    Rule("3.3", ("subset.theorem1-accuracy", "subset.lemma1-oracle"),
         "intuition for Theorem 1 (the clipping bias vs the Lemma 1 lower bound)"),
    # Section 4: Algorithm 4, Definitions 6-7, Theorem 3, Lemma 3
    Rule("4", ("subset.definition7-monotone", "text.subset.lemma7-dominance"),
         kinds=("definition",)),
    Rule("4", ("subset.definition7-monotone", "text.subset.lemma7-dominance"),
         starts="in-other-words-first-order"),
    Rule("4", ("text.subset.lemma3", "subset.lemma1-oracle"), starts="lemma-3"),
    Rule("4", ("text.subset.lemma3", "subset.lemma1-oracle"), starts="for-varepsilon-in-0-1"),
    Rule("4", ("text.subset.lemma3", "subset.lemma1-oracle"), starts="if-s-neq-emptyset"),
    Rule("4", ("text.subset.lemma3", "subset.lemma1-oracle"), starts="frac-1-2e-2-cdot"),
    Rule("4", ("text.subset.lipschitz",), starts="observe-that-both-mean"),
    Rule("4", _THM3 + ("subset.alg5-privacy", "subset.replace-one"),
         kinds=("algorithm", "algorithm-line")),
    Rule("4", _THM3 + ("subset.definition7-monotone", "subset.lemma1-oracle"),
         "Theorem 3, Lemma 3 and the construction of Algorithm 4"),
    # Section 5: Theorem 4, Definition 8, Corollary 2
    Rule("5", ("subset.theorem4-corollary2", "subset.table1-rates", "subset.lemma8"),
         "statistical mean estimation: Theorem 4, Definition 8, Corollary 2 and the rates of "
         "Table 1"),
    Rule("6", (), _SUMMARY),
    # Appendices
    Rule("A", ("subset.definitions",), starts="lemma-4"),
    Rule("A", ("subset.definitions",), starts="lemma-5"),
    Rule("A", ("text.subset.cor1-rounding", "subset.alg2-accuracy"),
         starts="when-the-dataset-d-is-supported"),
    Rule("A", ("text.subset.cor1-rounding", "subset.alg2-accuracy"),
         starts="this-implies-that-moving-to-its"),
    Rule("A", ("subset.definitions",) + _ALG2,
         "proofs of Lemmas 4, 5, Theorem 2 and Corollary 1"),
    Rule("B.1", ("subset.lemma1-oracle", "text.subset.lemma3"),
         "proof of Lemma 1: Lemma 3 with D1 = D minus its 1/eps smallest, D2 = minus largest"),
    Rule("B.2", ("text.subset.lemma2-proof",) + _ALG1, starts="ee896858"),
    Rule("B.2", ("text.subset.lemma2-proof",) + _ALG1, starts="2f92563e"),
    Rule("B.2", ("text.subset.lemma2-proof",) + _ALG1, starts="89eef8de"),
    Rule("B.2", ("text.subset.lemma2-proof",), starts="where-the-penultimate"),
    Rule("B.2", ("text.subset.lemma2-proof",), starts="where-a-uses-the-fact"),
    Rule("B.2", ("text.subset.lemma2-proof",), starts="where-the-last-inequality"),
    Rule("B.2", _ALG1, "proof of Lemma 2"),
    Rule("B.3", ("subset.lemma6",), starts="lemma-6"),
    Rule("B.3", ("text.subset.clip-vs-delete",), starts="we-have-shown-that-the-bias"),
    Rule("B.3", ("text.subset.clip-vs-delete",), starts="begin-aligned-mu-d-setminus-l"),
    Rule("B.3", ("text.subset.clip-vs-delete",), starts="next-we-argue-that-clipping"),
    Rule("B.3", ("subset.theorem1-constants", "subset.theorem1-accuracy", "subset.lemma6"),
         "proof of Theorem 1 and of Lemma 6"),
    Rule("C", ("subset.theorem5", "subset.alg5-privacy"), "Algorithm 5, Theorem 5"),
    Rule("D.1", ("text.subset.lemma3", "subset.lemma1-oracle"),
         "proof of Lemma 3: its first step needs D1, D2 subsets of D; its final display "
         "prints 1/(2 eps^2) for 1/(2e^2)"),
    Rule("D.2", ("text.subset.lemma7-dominance",), starts="lemma-7"),
    Rule("D.2", ("text.subset.lemma7-dominance",), starts="begin-aligned-2r-geq"),
    Rule("D.2", ("text.subset.lemma7-dominance",), starts="for-all-d-such-that"),
    Rule("D.2", ("text.subset.lemma7-dominance",), starts="d-setminus-l-4r"),
    Rule("D.2", ("text.subset.lemma7-dominance",), starts="case-v"),
    Rule("D.2", ("text.subset.lemma7-dominance",), starts="frac-sum-x-in-d"),
    Rule("D.2", ("text.subset.lemma7-dominance",), starts="d-l-u-r-2-leq"),
    Rule("D.2", ("text.subset.thm3-failure-term",) + _THM3, starts="15d15b0b"),
    Rule("D.2", _THM3 + ("subset.alg4-privacy",), "proof of Theorem 3 (4e^2 vs the printed "
                                                  "2e / 2e^2: subset.theorem3-constants)"),
    Rule("E.1", ("subset.lemma8", "subset.theorem4-corollary2"), "proof of Corollary 2, Lemma 8"),
)
