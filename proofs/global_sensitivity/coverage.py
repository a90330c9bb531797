"""Coverage of Liu's supplement (l1 global sensitivities under Def 1 / Def 2): every item of
the mechanical inventory of the text (:mod:`audit.paper_inventory`; committed keys in
``coverage_manifest.json``, no text) -> the claim keys that check it (``dpaudit
prove|search|reproduce --paper liu-global-sensitivity --only KEY``), or "not checked: why".
The first matching rule accounts for an item.  ``COVERAGE`` lists the claims that check the
main paper's releases rather than a sentence of the supplement.
``tests/global_sensitivity/test_coverage.py`` checks it.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from audit.paper_inventory import Rule, named

PAPER_FILE = "liu-laplace-bounding-constraints-supplement.md"
MANIFEST = Path(__file__).with_name("coverage_manifest.json")


class Item(NamedTuple):
    item: str
    keys: tuple[str, ...]
    note: str = ""


_GS = ("gs.sup", "gs.smt", "derivation.displays", "derivation.steps")

_NOTATION = "not a claim: notation, a definition or an assumption of the derivation"
_DISPLAYS = ("derivation.displays",)
_MAX = ("gs.sup", "gs.smt")  # the exact supremum (exhaustive over vertex data sets; Z3)
_KLIN = ("derivation.steps",)  # 'linear in k1, k2, k3, so the extremes are at corners'


#: specific rules first (naming their items), then each section's default
_T1 = ("text.liu.sec5-term1-steps",)

RULES: tuple[Rule, ...] = (
    Rule("front", (), "not a claim: the title", starts="supplemental-materials"),
    *named("front", (), "there-are-two-ways", "in-the-first-definition", "in-the-second-definition",
        note="not a claim: the two neighbour relations Def 1 / Def 2 (definitions)"),
    *named("front", (), "sections-1-to-5", note="not a claim: the supplement's roadmap"),
    # Section 1: mean and proportion
    *named("1", (), "denote-by-delta", "where-bar-x", note=_NOTATION),
    *named("1", _DISPLAYS + _MAX, "9eff4681",
        note="Def 1 display: re-derived line by line; its value is the exact sup"),
    *named("1", _MAX, "therefore-delta-bar-x", "therefore-1-of-a-single", "a-sample-proportion",
        note="GS of the mean / proportion = the exact supremum (statistics mean, proportion)"),
    # Section 2: variance
    *named("2", (), "denote-the-sample-variances", "the-l-1-gs-delta", "where-bar-x",
        note=_NOTATION),
    *named("2", _DISPLAYS, "4dbe7171", "1787ee4e", note="Def 1 / Def 2 displays re-derived"),
    # spot check (issue 42, 3b): was derivation.steps + gs.sup, neither of which tests the
    # maximiser (derivation.steps has no eq. (1) step; gs.sup tests the GS value)
    *named("2", ("text.liu.var-def1-maximiser",), "since-both-terms-in-eq",
        note="the maximiser of eq. (1), against |s^2 - s'^2| from the data"),
    *named("2", _MAX, "delta-s-2-sup", "delta-s-2-n-1", note="GS of the variance = exact sup"),
    *named("2", ("text.liu.var-def2-cases",) + _MAX, "case-2-is-realized",
        note="case 2's value and maximiser"),
    # Section 3: covariance
    *named("3", (), "denote-the-global-bounds", "where-bar-x-k", "def-2-denote",
        "the-gs-of-the-cov", "to-simplify-the-algebra", "let-k-1", "thus-bar-x-1", "the-goal-is-to",
        "note-that-the-above", note=_NOTATION),
    *named("3", _DISPLAYS, "5665c64b", "5532d791", "95adfd9c",
        note="eqs. (2), (3): re-derived (typos read as intended, listed in the evidence)"),
    *named("3", (), "if-x-11-x-12", note="not a claim: a case's lead-in to its display"),
    *named("3", _DISPLAYS, "2a1f3ffd", note="the Def 2 rewriting of eq. (3), re-derived"),
    *named("3", ("derivation.steps",), "wlos-assume-that-x-2", "eq-2-is-maximized",
        "which-suggests-is-a-linear",
        note="the maximiser of eq. (2) (refuted), 'Delta is linear' (refuted: multilinear)"),
    *named("3", _MAX, "d26207ab", "after-the-transformation", "the-maximum-on-the-original",
        note="GS of the covariance = exact sup; the [0, 1] rescaling is exact"),
    # Section 4: pooled variance
    *named("4", (), "denote-the-number-of-cells-of", "assume-each-cell", "denote-the-total-sample",
        "d766c964", "def-1-wlos", "3a1bcf5d", "to-compare-max-s", "which-is-approximated",
        note=_NOTATION),
    *named("4", _DISPLAYS, "2571009c", note="the Def 2 display, re-derived"),
    *named("4", _MAX, "therefore-max-delta-n-j-1", "if-n-1-is-the-largest", "1276f400",
        "therefore-max-delta-1-n-1", "that-is-max-delta-1-n", "a92cbd13",
        note="GS of the pooled variance (Def 1; Def 2 case 1 and both cases) = exact sup"),
    *named("4", ("derivation.steps",), "case-2-s-p-2-reaches", "therefore-max-s-p-2",
        "cef5a9a4", "45f666f9", "the-right-hand-side-rhs",
        note="case 2's maximum (refuted) and eq. (4) with 'RHS < n_max except n = 2J'"),
    # Section 5: pooled covariance
    *named("5", (), "denote-the-number-of-cells-by", "assume-each-cell", "denote-total-sample",
        "32d303fb", "def-1-wlos", "def-2-wlos", "24e5ab1a", "first-we-transform", "let-k-1",
        "thus-bar-x-n-1", "the-maximum-and-minimum-of-term", note=_NOTATION),
    *named("5", _DISPLAYS, "6aefe81d", note="the Def 2 display, re-derived"),
    *named("5", (), "if-x-11-y-11", note="not a claim: a case's lead-in to its display"),
    *named("5", _MAX, "f35285fa", note="GS of the pooled covariance under Def 1 = exact sup"),
    # spot check (issue 42, 3b): was derivation.steps, whose k-linear finding computes only
    # Section 3's case formula; now each Section 5 display is tested
    *named("5", _T1, "is-linear-in-k-1-k", "s-is-linear-in-k-1",
        note="'linear in k1, k2, k3' on each case's own display (text.liu.sec5-k-linear)"),
    *named("5", ("derivation.steps",), "which-reaches-the-maximum-at", "30e17932",
        note="eq. (5)'s maximiser 2 sqrt(n-1-J) and the value after it (derivation.eq5)"),
    # Section 6 and the figures placed after the references
    # Section 5's term-1 case analysis, each line against term 1 from the data (issue 42)
    *named("5", _T1, "f76a3f3f", "0087ff53", "b5d11cf4", "a081e04a", "101a6e03", "352fdc42",
           "ec9bbe6b", note="each case's display of term 1 (text.liu.sec5-term1-displays)"),
    *named("5", _T1, "7d400304", "aaababc7", "436df3a6", "1407fbff", "b8f626a0", "642c4591",
           note="the k_1 = 0 / k_1 = n_1 - 1 bullets (text.liu.sec5-term1-bullets)"),
    *named("5", _T1, "dff5f16f", "20d67f6e", "4caa7384", "3a2d53a9",
           note="each case's range of term 1 (text.liu.sec5-term1-case-ranges)"),
    *named("5", _T1, "0466ec92", "fa1c1661", "8f7c240a",
           note="the k_3 range under the WLOS and term 1's overall range "
                "(text.liu.sec5-term1-ranges)"),
    *named("3", _T1, "d36caf03", "6c55935c",
           note="the k_3 range (the same statement for a set of n - 1 records; checked for sets "
                "of 1..4 records in text.liu.sec5-term1-ranges)"),
    *named("5", (), "13e364e0", "70881794",
           note="not a claim: which k depends on which; the definition of cov_j"),
    *named("3", (), "6da52f6b", note="not a claim: which k depends on which"),
    *named("5", (), "457263e6", note="not checked: a remark on n_1 = 2 sqrt(n - 1 - J)"),
    *named("6", (), "figures-s1-to-s2", note="not a claim: says where the figures are"),
    Rule("references", ("sim.section6",), anchors=("figure S1", "figure S2")),
    Rule("front", (), "not checked: an opinion on which definition is more intuitive / simpler "
                      "to compute", starts="def-2-is-more-intuitive"),
    Rule("front", ("text.liu.same-gs-both-definitions", "gs.sup"), starts="we-calculated"),
    Rule("front", ("text.liu.same-gs-both-definitions", "gs.sup"), starts="in-most-cases"),
    Rule("1", ("text.liu.mean-def2-index", "derivation.displays"), starts="789f85aa"),
    Rule("1", ("text.liu.mean-def2-index", "gs.sup"), starts="the-maximum-possible-value"),
    Rule("1", ("gs.sup", "text.liu.same-gs-both-definitions"), starts="specifically-in-def-1"),
    Rule("2", ("text.liu.var-def2-cases", "gs.sup"), starts="x-1-bar-x-and-s"),
    Rule("2", ("text.liu.var-def2-cases", "gs.sup"), starts="s-2-s-2-is-maximized"),
    Rule("2", ("text.liu.var-def2-cases",), starts="since-case-2-is-larger"),
    Rule("3", ("text.liu.cov-def2-case-lines", "derivation.steps"), starts="s-12-s-12-frac-k"),
    Rule("3", ("text.liu.cov-def2-case-lines", "derivation.steps"), starts="48e097ee"),
    Rule("3", ("text.liu.cov-def2-case-lines",), starts="if-k-1"),
    Rule("3", ("text.liu.cov-def2-case-lines", "derivation.steps"), starts="s-12-s-12-is-linear"),
    Rule("3", ("text.liu.cov-def2-maximisers", "gs.sup"), starts="in-summary-on-the"),
    Rule("3", ("text.liu.cov-def2-maximisers", "gs.sup"), starts="which-occurs-if-any"),
    Rule("3", ("text.liu.cov-def2-maximisers", "gs.sup", "gs.smt"), starts="f200a74f"),
    Rule("3", _GS, "GS of the covariance, eqs. (2)-(3), the corner analysis"),
    Rule("4", ("gs.private-quantities",), starts="if-n-max-is-large"),
    Rule("4", _GS + ("gs.label-change", "gs.private-quantities"),
         "GS of the pooled variance, eq. (4), case 1 / case 2"),
    Rule("5", ("text.liu.pooled-cov-lines", "gs.sup"), starts="therefore-max-delta-leq"),
    Rule("5", ("text.liu.pooled-cov-lines", "gs.sup"), starts="terms-1-and-2-taken"),
    Rule("5", ("text.liu.pooled-cov-lines", "derivation.steps", "gs.sup"),
         starts="1b014b9c"),
    Rule("5", ("gs.private-quantities",), starts="if-n-max-is-large"),
    Rule("5", _GS + ("gs.label-change", "gs.private-quantities"),
         "GS of the pooled covariance, eq. (5), 'not an exact bound'"),
)

COVERAGE: tuple[Item, ...] = (
    Item("Beyond the supplement: Laplace releases with the printed GS (main paper's title: "
         "bounding constraints)", ("release.blackbox", "release.exact-loss",
                                   "release.bounding"),
         "the releases the GS values are for; listed so that no registered claim is "
         "unaccounted for"),
)
