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

from audit.paper_inventory import Rule

PAPER_FILE = "liu-laplace-bounding-constraints-supplement.md"
MANIFEST = Path(__file__).with_name("coverage_manifest.json")


class Item(NamedTuple):
    item: str
    keys: tuple[str, ...]
    note: str = ""


_GS = ("gs.sup", "gs.smt", "derivation.displays", "derivation.steps")

RULES: tuple[Rule, ...] = (
    Rule("front", (), "not checked: title", starts="supplemental-materials"),
    Rule("front", (), "not checked: an opinion on which definition is more intuitive / simpler "
                      "to compute", starts="def-2-is-more-intuitive"),
    Rule("front", ("text.liu.same-gs-both-definitions", "gs.sup"), starts="we-calculated"),
    Rule("front", ("text.liu.same-gs-both-definitions", "gs.sup"), starts="in-most-cases"),
    Rule("front", ("gs.sup", "gs.smt"),
         "Def 1 / Def 2 and 'the two definitions lead to the same GS' (checked statistic by "
         "statistic)"),
    Rule("1", ("text.liu.mean-def2-index", "derivation.displays"), starts="789f85aa"),
    Rule("1", ("text.liu.mean-def2-index", "gs.sup"), starts="the-maximum-possible-value"),
    Rule("1", ("gs.sup", "text.liu.same-gs-both-definitions"), starts="specifically-in-def-1"),
    Rule("1", _GS + ("gs.private-quantities",), "GS of the mean / proportion"),
    Rule("2", ("text.liu.var-def2-cases", "gs.sup"), starts="x-1-bar-x-and-s"),
    Rule("2", ("text.liu.var-def2-cases", "gs.sup"), starts="s-2-s-2-is-maximized"),
    Rule("2", ("text.liu.var-def2-cases",), starts="since-case-2-is-larger"),
    Rule("2", _GS, "GS of the variance, eq. (1)"),
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
    Rule("6", ("sim.section6",), "Section 6: Figures S1-S2"),
    Rule("references", ("sim.section6",), "Figures S1-S2 (Section 6)"),
)

COVERAGE: tuple[Item, ...] = (
    Item("Beyond the supplement: Laplace releases with the printed GS (main paper's title: "
         "bounding constraints)", ("release.blackbox", "release.exact-loss",
                                   "release.bounding"),
         "the releases the GS values are for; listed so that no registered claim is "
         "unaccounted for"),
)
