"""Coverage of Lan & Reiter (2025): every numbered equation, definition, lemma, theorem,
proposition, algorithm, figure and stated example / running-text claim -> the claim keys that
check it (``dpaudit prove|search|reproduce --paper lan-reiter-2025 --only KEY``), or an
explicit "not checked: why".  ``tests/gini/test_coverage.py`` checks that every key exists,
that every numbered equation (1)-(62) is listed, and that every registered claim of the
subject appears here.
"""

from __future__ import annotations

from typing import NamedTuple


class Item(NamedTuple):
    item: str  # "eq. (13)", "Theorem 4.1", "Figure 3", "Sec. 5.1 text: ..."
    keys: tuple[str, ...]  # claim keys; empty -> note says "not checked: ..."
    note: str = ""


def _eqs(lo: int, hi: int) -> str:
    return ", ".join(f"eq. ({i})" for i in range(lo, hi + 1))


COVERAGE: tuple[Item, ...] = (
    Item("Sec. 1 text: World Bank Gini values (US 0.418, India 0.255, South Africa 0.630)", (),
         "not checked: external data (World Bank), not a claim of the paper's method"),
    Item("eq. (1), eq. (2): Gini index and its sorted form", ("deriv.eq1-vs-eq2",)),
    Item("Sec. 2.1 text: top-coding underestimates the Gini", (),
         "not checked: literature summary (Armour et al., Gould et al., Sun et al.)"),
    Item("eq. (3): (eps, delta)-DP definition", ("privacy.admissibility",
                                               "repro.sec51-upper-bound"),
         "a definition; used as the test criterion by the admissibility audit and the "
         "black-box tester"),
    Item("eq. (4): global sensitivity; Sec. 2.2 example GS(mean) = 1/n", ("repro.sec2-examples",)),
    Item("Sec. 2.2 text: GS of the Gini = 1 ('from 1 to 0')", ("repro.sec2-examples",)),
    Item("eq. (5): local sensitivity", ("bounds.printed", "subsets.lemma41")),
    Item("Definition 2.1: beta-smooth upper bound", ("def21.smooth",)),
    Item("Definition 2.2, eq. (6), eq. (7), eq. (8): smooth sensitivity, A^(k)",
         ("def21.smooth", "bounds.printed"),
         "eq. (8) is Nissim et al.'s result, used as given; checked: our S built from (23)/(24) "
         "satisfies Definition 2.1"),
    Item("eq. (9), eq. (10): mechanism g~ = g + (S/alpha) psi, density 1/(1+|psi|^gamma); "
         "alpha = eps/(4 gamma), beta = eps/gamma", ("privacy.admissibility",
                                                     "deriv.density-constant")),
    Item("Sec. 2.3 text: Laplace with smooth sensitivity gives (eps, delta)-DP", (),
         "not checked: cited result (Nissim et al. 2007), not used by the paper"),
    Item("Sec. 3 toy example X = (3, 6, 7, 7.5): g ~ 0.206, minima 0.054/0.182/0.184/0.200, "
         "0.017/0.176/0.143, maxima 0.515, 0.809, 1", ("sec3.toy-numbers",)),
    Item("Sec. 3 text: the minimum after k replacements is attained at a kept point (k = 1), "
         "by k consecutive records set to the largest kept value (k = 2)",
         ("text.sec3.min-replacement-rules",)),
    Item("Sec. 3 text: 'when replacing k = 3 or k = 4 points, A^(k)(X) = 1' (toy example)",
         ("text.sec3.a-k-equals-1",)),
    Item("Sec. 3 text: brute-force counts (4 x 1000)^2 and (6 x 1000^2)(4000)", (),
         "not checked: an illustration of cost, no result depends on it (values at 0.01 steps "
         "in [0, 10] are 1001, not 1000)"),
    Item("eq. (11): posterior p(g | g~) and SIR with Uniform(0, 1) proposals; support [0, 1]",
         ("repro.fig2",)),
    Item("Algorithm 1 (FastMinG, Findminindex)", ("alg12.printed", "subsets.findminindex",
                                                  "deriv.a3-closed-forms")),
    Item("Algorithm 2 (FastMaxG)", ("alg12.printed", "deriv.a3-closed-forms")),
    Item("Algorithm 3 (smooth sensitivity, beta = eps/(2(gamma+1)), k_max)",
         ("privacy.admissibility", "def21.smooth", "bounds.printed")),
    Item(_eqs(12, 14) + ": Delta g when increasing x_m, derivative", ("deriv.increase",)),
    Item("Sec. 4.1.1 text: A increases monotonically in m'", ("subsets.lemma41",)),
    Item("Lemma 4.1, " + _eqs(15, 17), ("subsets.lemma41", "deriv.increase")),
    Item(_eqs(18, 20) + ": m' = n case, B decreasing, maximum at m_I", ("deriv.increase",
                                                                         "subsets.lemma41")),
    Item("Sec. 4.1.2: decreasing x_m, candidates (n, q_m) and (m_D, 1)", ("subsets.lemma41",)),
    Item("eq. (21), eq. (22): bounds C1, C2", ("bounds.printed", "bounds.as-printed")),
    Item("Definition 4.2, Definition 4.3 and their example ({3, 7.5}, {7, 7.5})",
         ("sec3.toy-numbers", "subsets.thm41", "subsets.thm42")),
    Item("Theorem 4.1 (k-maximal subset = prefix + suffix)", ("subsets.thm41", "subsets.smt")),
    Item("Theorem 4.2 (k-minimal subset = k consecutive)", ("subsets.thm42", "subsets.smt")),
    Item("Sec. 4.2 text: O(n - k), O(k), O(k(n - k)) costs", ("complexity.printed",)),
    Item("Theorem 4.3, eq. (23)", ("bounds.printed", "def21.smooth")),
    Item("Theorem 4.4, " + _eqs(24, 26), ("bounds.printed", "thm45.inequality")),
    Item("Sec. 4.3 text: bounds differ by O((1-g0)/(n/IQ - 1)); example n = 2 differs by 0.35",
         ("sec43.example",)),
    Item("Theorem 4.5, " + _eqs(27, 30), ("thm45.inequality",)),
    Item("Sec. 4.4: pruning k* and the prefix statistics P_i, C_i, R_i",
         ("def21.smooth", "deriv.a3-closed-forms", "complexity.printed")),
    Item("Sec. 5 text: experiments use the Theorem 4.4 bounds", ("repro.fig3", "repro.fig4")),
    Item("Sec. 5.1: CPS 2024 data, n = 115,777, g(Z) = 0.574, x_n = 2,108,379",
         ("repro.fig1",), "inconclusive: the data set is not available"),
    Item("Sec. 5.1: DP upper bound (n~ with eps1 = 0.075, AboveThreshold with eps2 = 0.075, "
         "U = 2.5 x~), its privacy, 'always exceeds x_n', max ~3,640,000, 'unlikely to "
         "underestimate by 60%'", ("repro.sec51-upper-bound",)),
    Item("Figure 1 and its text (approximately unbiased, variances shrink, within a few points "
         "at eps = 0.25)", ("repro.fig1",)),
    Item("Figure 2 (posterior at g~ = 0.574, eps = 2)", ("repro.fig2",)),
    Item("Sec. 5.2 grid g in {0.2, 0.5, 0.7}, n in {1e4, 1e5, 1e6}, eps in {0.5, 1, 2}",
         ("repro.fig3",)),
    Item("Proposition 5.1, eq. (31), eq. (61), eq. (62)", ("deriv.prop51", "repro.sec52-iq")),
    Item("Figure 3 and its text (errors fall with n, eps; largest at g = 0.7)", ("repro.fig3",)),
    Item("Figure 4 and its text (RMSE rises with IQ, falls with eps; inf IQ = 2 at g = 0.5)",
         ("repro.fig4", "repro.sec52-iq")),
    Item("Sec. 6: clipping at a DP quantile, tail-model post-processing, survey weights", (),
         "not checked: proposals for future work, no algorithm or number is given"),
    Item(_eqs(32, 34) + ": derivation of (13)", ("deriv.increase",)),
    Item(_eqs(35, 41) + ": A.1.2, s_{m+1} >= s_m and maximum at m = 1", ("subsets.lemma41",)),
    Item(_eqs(42, 48) + ": A.1.3 decrease derivation", ("deriv.decrease",)),
    Item("Lemma A.1, " + _eqs(49, 51) + ": q_m, m_D, q_{m+1} >= q_m", ("subsets.lemma41",)),
    Item("Lemma 4.2, " + _eqs(52, 57) + ": inserting an element", ("deriv.insertion",)),
    Item("eq. (58): Gini of a k-subset (printed with 2n^2 where 2k^2 is meant)",
         ("subsets.thm41", "subsets.thm42"),
         "the subsets' Gini is computed with eq. (1); the n^2/k^2 factor does not change the "
         "arg max / arg min"),
    Item("Proofs of Theorems 4.1 and 4.2 (A.2)", ("subsets.thm41", "subsets.thm42",
                                                   "subsets.smt")),
    Item("eq. (59), eq. (60): O(1) Gini after k replacements", ("deriv.a3-closed-forms",)),
    Item("Prop. 5.1 proof (A.4): scale invariance, two-point data", ("deriv.prop51",)),
    Item("A.1.2 / A.1.3 text: s_{m+1} >= s_m, q_{m+1} >= q_m, Delta g(n, q_n) <= "
         "Delta g(m, q_m), Delta g(m, s_m) negative", ("text.appendix.thresholds",)),
    Item("A.1.2 / A.1.3 / A.2 proof steps: F(m+1, m') <= F(m, m'); small-k subsets",
         ("text.appendix.proof-steps",)),
    Item("Appendix A.2: Theorem 4.1's proof for k = 2 and k = 3",
         ("text.a2.small-k-steps",)),
    Item("Sec. 4.3 text: the extreme means after k changes; eq. (26)",
         ("text.sec43.mean-iq-bounds",)),
    Item("A.2: Lemma 4.2's proof steps, eq. (58), the proofs of Theorem 4.1 for k > 3 and "
         "Theorem 4.2 for k >= 3, step by step", ("text.a2.large-k-steps",)),
    Item("Sec. 4.3: the chains (29), (30) of Theorem 4.5's proof, step by step",
         ("text.sec43.thm45-proof-steps",)),
    Item("Sec. 4.3: (25) in Theorem 4.4's proof", ("text.sec43.thm44-proof-steps",)),
    Item("Sec. 4.4: A^(k) <= 1 and the pruning of the search at k*", ("text.sec44.pruning-steps",)),
    Item("A.4: the steps of Proposition 5.1's proof", ("text.a4.prop51-proof-steps",)),
    Item("Sec. 4.1.1: the sign of (14), Lemma 4.1's proof steps, B of (20); Sec. 4.1.3: (21)'s "
         "second and third steps",
         ("text.sec411.lemma41-proof-steps",)),
    Item("A.1.2 / A.1.3: displays (37)-(39), (50)-(51), Lemma A.1's proof signs",
         ("text.a1.display-steps",)),
    Item("A.2: Theorem 4.2 as restated ('removing n - k consecutive elements')",
         ("text.a2.thm42-restated",)),
    Item("A.4 text: scale invariance of IQ and g; g = sum |x_i - x_j| / n^2 at mean 1",
         ("text.a4.prop51-facts",)),
    # ---- not paper items: our extensions (each registered claim must appear somewhere)
    Item("Beyond the paper: a tighter A^(k) (kernels.gini.tight, issue 18)",
         ("tight.ball-exhaustive", "tight.chain-exhaustive", "tight.smoothness-search",
          "tight.ratio"), "an extension, listed so that no registered claim is unaccounted for"),
)


# ---- the mechanical sentence inventory (audit.paper_inventory) -> claim keys
from pathlib import Path  # noqa: E402

from audit.paper_inventory import Rule, named  # noqa: E402

PAPER_FILE = "lan-reiter-2025-dp-gini.md"
MANIFEST = Path(__file__).with_name("coverage_manifest.json")

_SUMMARY = "not checked: summary of results stated precisely (and checked) in Sections 3-5"
_ALG12 = ("alg12.printed", "subsets.findminindex", "deriv.a3-closed-forms")

_DEF = "not a claim: a definition, notation or setting"
_ROAD = "not a claim: roadmap or description of what follows"
_BG = "not checked: background on differential privacy or cited work, not a result of the paper"
_TOY = ("sec3.toy-numbers",)
_A2 = "text.a2.large-k-steps"
_T45 = "text.sec43.thm45-proof-steps"
_S411 = "text.sec411.lemma41-proof-steps"
_NOCLAIM_BG = ("not a claim: background, motivation or an opinion (no checkable statement; "
               "rubric of the labelled samples, proofs/*/sentence_labels.json)")
_NOCLAIM_SUGGEST = ("not a claim: a suggestion, proposal or expectation (hedged: may, could, "
                    "suspect)")

#: Section 4.1.1's step sentences (hash) -> the finding of proofs/gini/claims_s41_steps.py
_S411_STEPS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("e887a3b7",), "a witness of each sign of (13) (text.s411.eq13-signs)"),
    (("1f57c57d",), "Delta g monotone in a at fixed m, m' (text.s411.monotone-in-a)"),
    (("26a4245e",), "the largest |Delta g| at an end of a's interval (text.s411.extreme-at-ends)"),
    (("68fbaade",), "sign of (14) at m' = m (text.s411.sign-at-m)"),
    (("2a914d55",), "the sign switch of (14) (text.s411.sign-switch)"),
    (("db326898",), "decreasing, then increasing as x_m rises (text.s411.decrease-then-increase)"),
    (("e0d6d4e4",), "'(14) always positive': refuted strictly (A = 0), holds as >= 0 "
                    "(text.s411.positive-case)"),
    (("3d08e308",), "'A positive for m' >= s_m': refuted strictly (A(m, s_m) = 0), holds as "
                    ">= 0 (text.s411.grow-after-s)"),
    (("fe5f1bd9",), "(20) = B (x_{m+1} - x_m), B strictly decreasing (text.s411.b-decreasing)"),
    (("f3e99583",), "B(1) > 0, B(n) < 0: refuted at g_0 = 1 (B(n) = 0) (text.s411.b-signs)"),
)

#: the A.2 proof-step sentences (first words or hash) -> the finding of
#: proofs/gini/claims_a2_steps.py that tests each
_A2_STEPS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("with-m-held-constant",), "the sign constant in x at fixed m "
                                "(text.a2.l42.sign-constant-in-x)"),
    (("this-i-term-increases",), "(I) and the true numerator strictly increasing in m "
                                 "(text.a2.l42.i-increasing)"),
    (("thus-there-exists-a-point", "02fdfc30"), "m_A exists for every data set of 2..6 records "
                                                "(text.a2.l42.m-a-exists)"),
    (("42bc7707",), "the rank as a step function (text.a2.l42.rank-step)"),
    (("701be13a",), "m = r, r + 1 at x_r -/+: holds for distinct values, refuted with ties "
                    "(text.a2.l42.rank-limits)"),
    (("c06f198d", "a91998dc"), "no jump at x = x_r (text.a2.l42.continuity)"),
    (("794cc373", "1e20df23", "dc2aadbe"),
     "g(Q_{+x}) monotone over the candidates in the direction of m_A (holds); against "
     "g(Q_{-m}) (refuted) (text.a2.t41.insert-direction)"),
    (("c3beffcd", "0f89cce4", "9989f499", "65d84baa"),
     "the selections x_{u-1} (m_A > m), x_{l+1} (m_A < m) give the smallest g(Q_{+x}): "
     "refuted, the opposite ones are best (text.a2.t41.selection)"),
    (("1572292d",), "at m = m_A the replacement gives an equal Gini, not a larger one "
                    "(text.a2.t41.m-equals-m-a)"),
    (("bad7d93c",), "x_{l+1} or x_{u-1} in lieu of y_m: g >= g(Q) (text.a2.t41.some-endpoint)"),
    (("336d3fa9", "d84a78b0"), "one interior element replaced by x_{l+1} or x_{u-1}: g does "
                               "not fall (text.a2.t41.iterate)"),
    (("37e6f083",), "x_{l-1} minimises among i < l (text.a2.t42.add-below)"),
    (("905c1680",), "x_{u+1} minimises among i > u (text.a2.t42.add-above)"),
    (("e716a32b", "67704b1e"), "the window is smallest among additions on its side (holds), "
                               "among all additions (refuted) (text.a2.t42.window-smallest)"),
    (("090e49e8", "2d459d60", "55fd04e8", "4b5eeee1"),
     "the window strictly below Q_l / Q_u: distinct values (holds), ties (refuted) "
     "(text.a2.t42.contradiction)"),
    (("d536563a", "04958c11"), "one element off a longest run moved next to it: g does not "
                               "rise; distinct values (holds), ties (refuted) "
                               "(text.a2.t42.iterate)"),
)

#: sentences, equations and algorithm lines named one by one (issue 42): first match wins, so
#: these come before the older rules and the section defaults below
_NAMED: tuple[Rule, ...] = (
    *named("abstract", ("privacy.admissibility",), "using-this-bound-we-define",
           note="the mechanism (9)-(10) with the smooth bound is eps-DP"),
    *named("abstract", (), "keywords", note="not a claim: keywords"),
    *named("abstract", (), "we-present-an-approach-for", "in-doing-so-we-analyze", note=_ROAD),
    *named("abstract", ("def21.smooth",), "we-then-derive-a-smooth",
           note="the smooth upper bound satisfies Definition 2.1 (exhaustive search)"),
    *named("1", ("def21.smooth",), "we-derive-a-smooth-upper",
           note="the smooth upper bound satisfies Definition 2.1 (exhaustive search)"),
    *named("1", (), "the-gini-index-is-a-widely", "this-requirement-motivates",
           "data-and-privacy-demands", note=_NOCLAIM_BG),
    *named("1", (), "the-remainder-of-this", "in-section-2-we", "in-section-5-we",
           "finally-in-section-6", "to-do-so-we-determine", "we-use-bayesian-inference",
           note=_ROAD),
    # Section 2
    *named("2", (), "for-i-1-dots", "let-z-z-1", "for-convenience-we-define", note=_DEF),
    Rule("2.1", ("deriv.eq1-vs-eq2",), anchors=("eq (1)", "eq (2)")),
    *named("2.1", (), "these-authors-do-not", "several-researchers-have", "however-it-is-difficult",
           note=_BG),
    *named("2.2", (), "differential-privacy-dp-is", "to-develop-the-dp", "the-first-case-is",
           "we-say-that-mathcal", "4516744f", "in-this-article-we-work", "for-all-neighboring",
           "f300803d", "that-is-they-presume", "we-illustrate-this-approach",
           "a-commonly-used-algorithm", "to-see-this-consider", note=_DEF),
    *named("2.2", ("repro.sec2-examples",), "for-example-when-f-is",
           "this-is-because-the-global", "removing-that-individual",
           note="GS of the mean = 1/n; the Gini's GS = 1 ('from 1 to 0')"),
    # spot check (issue 42, 3b): was mapped to repro.sec2-examples, which checks GS = 1 (the
    # next sentence's number), not this sentence's 'cannot ... with low error'
    *named("2.2", (), "unfortunately-the-laplace",
           note="not checked: qualitative ('low error', 'reasonable privacy guarantees' are not "
                "quantified); its reason, GS = 1, is checked by repro.sec2-examples"),
    *named("2.2", (), "heuristically-when", "ideally-the-value", "for-many-dp-algorithms",
           "in-some-contexts", "as-examples-test-scores", "when-domain-knowledge",
           "for-example-one-can-obtain", "the-gs-f-can-be", note=_NOCLAIM_BG),
    *named("2.2", (), "the-degree-of-similarity", "however-smaller-values", "when-d-z-1",
           "to-preserve-the-dp", note=_BG),
    *named("2.3", (), "the-global-sensitivity-of-the-gini", "this-situation-i-e",
           "one-approach-to-circumvent", "smooth-sensitivity-enables", note=_NOCLAIM_BG),
    *named("2.3", (), "for-example-the-gini-index-for", "often-ls-f-d",
           "for-example-if-ls", "as-this-example-suggests", "to-avoid-the-risks",
           "nissim-et-al-2007-show", "d6655224",
           "nissim-et-al-2007-also", note=_BG + " (Nissim et al.'s results are used as given)"),
    *named("2.3", (), "we-use-this-strategy", "for-any-function-f", "df2497bd",
           "following-their-notation", "given-a-smooth-upper", "let-d-be-some", "for-k-0-dots",
           "f7449838", "where-is-a-constant", "we-use-10-in", "as-noted-previously",
           "we-leave-comparisons", "however-in-dp-one", note=_DEF),
    Rule("2.3", (), "not a claim: Definitions 2.1-2.2 (def21.smooth checks our S against 2.1)",
         anchors=("definition 2.1", "definition 2.2")),
    *named("2.3", (), "for-all-d-of-size", "for-every-pair-of-neighboring", "31711997",
           note="not a claim: the conditions of Definition 2.1 and eq. (6) (definitions)"),
    *named("2.3", ("privacy.admissibility",), "aa49b3ed", "in-particular-nissim",
           "where-gamma-1-and", note="mechanism (9) with density (10), alpha = eps/(4 gamma), "
                                     "beta = eps/gamma is eps-DP (admissibility, per rule)"),
    Rule("2.3", ("privacy.admissibility", "deriv.density-constant"), anchors=("eq (10)",)),
    *named("2.3", ("tight.chain-exhaustive",), "thus-gs-f-is-the",
           note="GS = sup LS: A^(0) = LS exactly and A^(k) <= A^(k+1) on neighbours"),
    # Section 3
    *named("3", (), "in-this-section-we-present", "throughout-we-work", "the-dp-gini-index-alg",
           "we-illustrate-how-the", "for-k-1-without", "to-illustrate-how-our",
           "find-the-maximum-and-minimum", "we-first-use-algorithm-1", "for-i-1-dots-n-let",
           "the-algorithm-next-finds", "let-x-ij-x", "algorithm-2-next-finds",
           "finally-algorithm-3-takes", "for-each-k-we-use", "with-our-algorithms-for-k",
           note=_ROAD),
    *named("3", _TOY, "here-g-x-approx", "after-the-search-we-find", "the-smallest-values-assoc",
           "in-our-example-with-n-4", "the-smallest-values-of-the-gini", "in-our-example-with-l",
           "the-search-results-in", "for-k-2-the-search", "for-k-3-the-maximum",
           "for-our-example-with-n-4", note="the toy example's numbers (every quoted value)"),
    *named("3", ("alg12.printed",), "algorithm-1-computes", "algorithm-2-computes",
           "algorithm-1-searches-over", note="Algorithms 1-2 as printed attain the true optima"),
    *named("3", ("bounds.printed", "alg12.printed"), "combined-the-results", "with-these-bounds",
           note="min / max g after k changes give an upper bound on A^(k) (bounds (21)-(24))"),
    *named("3", ("subsets.findminindex",), "thus-we-can-find-the-minimum",
           note="the efficient (ternary) search is exact: unimodality"),
    Rule("3", ("alg12.printed", "subsets.findminindex", "deriv.a3-closed-forms"),
         anchors=("algorithm 1", "algorithm 2"), kinds=("algorithm", "algorithm-line", "sentence")),
    Rule("3", ("privacy.admissibility", "def21.smooth", "bounds.printed"),
         anchors=("algorithm 3",)),
    # numbered equations, by their number (the claims whose checks compute them)
    Rule("*", ("deriv.increase",), anchors=("eq (12)", "eq (13)", "eq (14)", "eq (17)",
                                            "eq (19)", "eq (32)", "eq (33)", "eq (34)")),
    Rule("*", ("subsets.lemma41",), anchors=("eq (15)", "eq (16)", "eq (18)", "eq (20)")),
    Rule("*", ("bounds.printed",), anchors=("eq (21)", "eq (22)", "eq (24)")),
    Rule("*", ("bounds.printed", "def21.smooth"), anchors=("eq (23)",)),
    Rule("*", ("thm45.inequality",), anchors=("eq (27)", "eq (28)")),
    Rule("*", ("deriv.prop51", "repro.sec52-iq"), anchors=("eq (31)",)),
    Rule("*", ("deriv.decrease",), anchors=tuple(f"eq ({i})" for i in range(42, 49))),
    Rule("*", ("deriv.insertion",), anchors=tuple(f"eq ({i})" for i in range(53, 56))),
    Rule("*", ("deriv.a3-closed-forms",), anchors=("eq (59)", "eq (60)")),
    Rule("*", ("deriv.prop51",), anchors=("eq (61)",)),
    # spot check (issue 42, 3b): eq. (62) was mapped to deriv.prop51, which names it only in
    # its evidence text; text.a4.prop51-proof-steps computes it (reach(): g = alpha (1 - alpha)
    # (U - L) against the eq. (1) Gini of each two-point set, an error if it fails)
    Rule("*", ("text.a4.prop51-proof-steps",), anchors=("eq (62)",)),
    # Section 4
    *named("4", (), "in-section-4-1-we", "these-bounds-rely", note=_ROAD),
    *named("4.1", (), "section-4-1-1-and", "section-4-1-3-presents", note=_ROAD),
    *named("4.1.1", (), "suppose-some-x-m", "let-x-m-x-m", "let-the-new-rank", "where-w-n-1",
           "let-r-be-an-integer", "to-argue-why-this", "we-use-these-features",
           "to-do-so-we-determine", "the-numerator-changes-from", "using-the-algebraic",
           "in-section-4-1-3-we", note=_DEF),
    *named("4.1.1", ("deriv.increase",), "using-the-definition-of-the-gini",
           "thus-for-any-x-delta", "when-the-ranks-m-and", "further-the-term-that",
           "to-see-this-note-that-2m", "recall-that-a-from", "we-next-show-that-delta",
           "as-a-rightarrow-x-r", "thus-the-differences-in",
           note="eqs. (12)-(14), (17): the numerator / denominator after x_m + a, the sign of "
                "(14) set by A, 'A increases in m'', no jump at a = x_r - x_m"),
    Rule("4.1.1", ("subsets.lemma41",), anchors=("lemma 4.1",)),
    *named("4.1.1", ("subsets.lemma41",), "when-frac-2m-n-1", "delta-g-m-m-a-attains",
           "when-m-n-14-has", "the-minimum-occurs-at-the-first", "hence-in-this-case-the",
           "finally-for-both-cases", "lemma-4-1-shows-that", "note-the-minimum-value-of",
           "as-a-result-finding", "the-maximum-of-delta-g-m", "thus-19-with-m-n",
           "when-m-s-m-the-maximum",
           note="Lemma 4.1's facts (min at s_m or m, max at m' = n), the maximum at m_I and the "
                "candidates (m = 1, s_m), (m_I, n): exact search"),
    *named("4.1.1", (), "we-note-that-computing-s-m",
           note="not checked: a remark on cost (s_m has no closed form)"),
    *named("4.1.2", (), "in-this-section-we-consider", "we-can-use-analyses",
           "for-brevity-here", "here-q-m-max", note=_DEF),
    *named("4.1.2", ("subsets.lemma41",), "when-decreasing-x-m-by",
           note="the candidates (n, q_m), (m_D, 1): exact search"),
    *named("4.1.3", (), "for-smooth-sensitivity-we-need", "let-x-kt-denote", "the-elements-of-x",
           "for-k-1-dots-n-let", "similarly-let-min", "to-simplify-our-notation",
           "note-that-the-values-of-m", "811d9747", "for-the-case-where-m-n",
           "we-use-these-facts", note=_DEF),
    *named("4.1.3", ("subsets.lemma41",), "as-shown-in-section-4-1", "these-include-m-m",
           note="the four candidates bound the local sensitivity: exact search"),
    *named("4.1.3", ("bounds.printed",), "for-the-case-where-m-1", "2d4f78f8",
           note="(21) / (22) are upper bounds: exact search"),
    *named("4.2", (), "as-evident-in-21", "as-part-of-the-methodology", "to-illustrate-the-conc",
           "in-general-for-any-k", "the-k-maximal-and-k-minimal", note=_DEF),
    Rule("4.2", (), "not a claim: Definitions 4.2-4.3 (definitions)",
         anchors=("definition 4.2", "definition 4.3")),
    *named("4.2", ("subsets.thm41",), "specifically-we-show-that-for",
           note="Theorem 4.1 (prefix + suffix): exhaustive search"),
    *named("4.2", ("subsets.thm42",), "we-also-show-that-for",
           note="Theorem 4.2 (k consecutive): exhaustive search"),
    *named("4.2", _TOY, "the-k-maximal-gini-subset-of", "for-this-x-that",
           "the-k-minimal-gini-subset-of", note="the example subsets {3, 7.5}, {7, 7.5}"),
    Rule("4.2", ("subsets.thm41", "subsets.smt"), anchors=("theorem 4.1",)),
    Rule("4.2", ("subsets.thm42", "subsets.smt"), anchors=("theorem 4.2",)),
    *named("4.2", ("subsets.thm41", "subsets.thm42"), "these-theorems-show",
           "thus-it-is-sufficient"),
    *named("4.2", ("complexity.printed",), "in-particular-the-k-maximal",
           "as-a-result-the-bounds-for", note="the O(n - k), O(k), O(k(n - k)) costs"),
    *named("4.3", (), "as-noted-at-the-end", "theorem-4-4-presents", "let-x-kt-be-any",
           "let-beta-frac", note=_DEF),
    Rule("4.3", ("text.sec43.mean-iq-bounds",), anchors=("eq (26)",)),
    *named("4.3", ("text.sec43.mean-iq-bounds",), "it-is-obvious-that-min-bar",
           note="the extreme means after k changes and (26) (exhaustive, exact)"),
    Rule("4.3", ("bounds.printed", "def21.smooth"), anchors=("theorem 4.3",)),
    Rule("4.3", ("bounds.printed",), anchors=("theorem 4.4",)),
    Rule("4.3", ("thm45.inequality",), anchors=("theorem 4.5",)),
    *named("4.3", ("sec43.example",), "to-illustrate-if-n-2",
           note="n = 2, X = (0.5, 1), [L, U] = [0.5, 1]: the bounds differ by 0.35"),
    *named("4.3", ("thm45.inequality",), "the-bounds-in-theorem-4-3"),
    *named("4.3", (), "in-practical-situations", note=_NOCLAIM_SUGGEST),
    # Theorem 4.5's proof steps, the pruning at k*, Proposition 5.1's proof
    # (proofs/gini/claims_bound_steps.py)
    *named("4.3", (), "first-suppose-k-leq", note="not a claim: a case assumption of the proof"),
    *named("4.3", (), "putting-it-all-together",
           note="not a claim: a summary leading into Theorem 4.3"),
    *named("4.3", ("text.sec43.mean-iq-bounds",), "since-l-leq-bar-x-t",
           note="the lead-in to (26): L <= xbar_t <= U gives (26) (exhaustive, exact)"),
    Rule("4.3", ("text.sec43.thm44-proof-steps",), anchors=("eq (25)",),
         note="refuted: (3, 3, 3) on [1, 3]: C_1 = 2/3 > 4/7 (text.sec43.eq25)"),
    *named("4.3", ("text.sec43.thm44-proof-steps",), "since-0-leq-max-g-k",
           note="the premise holds, (25) does not (text.sec43.eq25)"),
    *named("4.3", ("text.sec43.thm44-proof-steps", "text.sec43.mean-iq-bounds"),
           "the-result-in-26-implies-25",
           note="(26) holds (text.sec43.mean-iq-bounds), (25) fails: the implication fails "
                "(text.sec43.eq25)"),
    Rule("4.3", (_T45,), anchors=("eq (29)",),
         note="as printed (maxima over k = 1..n) refuted; over the case's k holds "
              "(text.sec43.eq29-chain)"),
    *named("4.3", (_T45,), "since-n-geq-2iq-x-left",
           note="2/(n/(2 IQ) - 1) <= eps eta under (27) (text.sec43.n-condition)"),
    *named("4.3", (_T45,), "then-exp-beta-k-leq-exp",
           note="exp(-beta k) <= exp(-eps n/(2 gamma IQ)) for k > n/(2 IQ) "
                "(text.sec43.exp-step)"),
    Rule("4.3", (_T45,), anchors=("eq (30)",),
         note="as printed (maxima over k = 1..n) refuted; over the case's k holds "
              "(text.sec43.eq30-chain)"),
    *named("4.3", (_T45,), "since-n-geq-frac-2iq-x",
           note="the premises of (30) and its chain (text.sec43.eq30-chain)"),
    *named("4.4", ("text.sec44.pruning-steps",), "with-regard-to-pruning-the-search",
           note="A^(k) <= 1: eq. (2) in [0, 1], every change <= 1 (text.sec44.a-at-most-one)"),
    *named("4.4", ("text.sec44.pruning-steps",), "thus-e-beta-k-a-k", "for-every-k-geq-k-we",
           "consequently-we-can-restrict",
           note="the pruning at k* for every A^(k) <= 1 (text.sec44.k-star)"),
    *named("4.1.1", (), "for-any-m-let-a-m", note=_DEF),
    # Section 4.1.1's and A.1.2 / A.1.3's steps (proofs/gini/claims_s41_steps.py)
    *(rule for starts, note in _S411_STEPS
      for rule in named("4.1.1", (_S411,), *starts, note=note)),
    *named("4.1.1", ("subsets.lemma41",), "be9abcf2", "3108eead", "bf84d3a5", "5aaacaa8",
           note="for m' = s_m the largest decrement at m = 1 (paper.a12.max-at-m1); for m' = n "
                "the largest increment at m_I (paper.sec411.m-i-argmax)"),
    *named("4.1.3", (_S411, "bounds.printed"), "637e21d6",
           note="(21)'s second and third steps (text.s413.triangle-step, text.s413.sum-limits), "
                "its result (bounds.printed)"),
    *named("4.1.3", (_S411, "bounds.printed"), "9ed24218",
           note="(22)'s first line refuted: (1, 2, 3, 5), m' = q_m = 3: 4/297 vs 40/297 from "
                "eq. (2) (text.s413.eq22-first-line); its result (bounds.printed)"),
    *named("4.1.3", (_S411,), "d6327050",
           note="the second step holds (the two terms have opposite signs) "
                "(text.s413.triangle-step)"),
    *named("4.1.3", (_S411,), "016078e1",
           note="the sum over m..n is largest at m = 1 (text.s413.sum-limits)"),
    Rule("A.1.2", ("text.a1.display-steps",), anchors=("eq (37)", "eq (38)", "eq (39)"),
         note="(37)-(39) against eq. (2) (text.a12.eq37-39)"),
    Rule("A.1.3", ("text.a1.display-steps",), anchors=("eq (50)", "eq (51)"),
         note="(50)-(51) against eq. (2) (text.a13.eq50-51)"),
    *named("A.1.3", ("text.a1.display-steps",), "12b20bd4",
           note="refuted: D(m, m') <= 0 for some m' < m (text.a13.sign-otherwise)"),
    *named("A.4", ("text.a4.prop51-proof-steps",), "we-can-obtain-any-g-x",
           note="refuted for a fixed alpha (L < 0 when g > alpha), holds for alpha >= g "
                "(text.a4.any-g)"),
    *named("A.4", ("text.a4.prop51-proof-steps",), "for-fixed-g-x-g-we",
           note="the smallest U - L at the largest alpha(1 - alpha) (text.a4.max-alpha)"),
    *named("A.4", ("text.a4.prop51-proof-steps",), "however-this-solution-only",
           "when-g-1-2-setting-alpha",
           note="alpha = 1/2 feasible iff g <= 1/2; L = 1 - 2g (text.a4.half-only)"),
    *named("A.4", ("text.a4.prop51-proof-steps",), "setting-l-0-the-constraint",
           note="U = 1/(1 - alpha) at L = 0 (text.a4.l-zero)"),
    *named("4.4", (), "we-use-two-computational", "let-k-min-left", "in-particular-we-maintain",
           note=_DEF),
    *named("4.4", ("complexity.printed",), "this-would-result-in-a-cost",
           note="O((n - k) k log n)"),
    # Section 5
    *named("5", (), "in-this-section-we-illustrate", "because-we-evaluate-the", note=_DEF),
    *named("5.1", (), "we-restrict-z-to", "the-resulting-g-z-0",
           note="not checked: n = 115,777 and g(Z) = 0.574 of the CPS data (repro.fig1 is "
                "inconclusive: the data set is not available)"),
    *named("5.1", (), "note-that-we-do-not-consider", "we-apply-the-dp-gini", "we-set-the-lower",
           "for-each-of-the-five", "as-the-dp-mechanism-we-use", "figure-2-illustrates-the",
           note=_DEF),
    *named("5.1", (), "originally-designed", "to-begin-the-algorithm", "the-algorithm-then-starts",
           "we-add-this-noise", "the-algorithm-stops-at", "the-value-of-the-guess",
           note="not a claim: a description of the DP upper bound's algorithm (AboveThreshold), "
                "which repro.sec51-upper-bound implements"),
    *named("5.1", ("repro.sec51-upper-bound",), "since-we-do-not-know-an",
           "the-abovethreshold-algorithm",
           "to-reduce-the-risk", "this-represents-a-conservative", "across-all-of-our",
           note="the DP upper bound: n~ (eps1 = 0.075), AboveThreshold (eps2 = 0.075), its "
                "privacy, U = 2.5 x~ vs x_n, 'always exceeds', max ~3,640,000"),
    Rule("5.1", ("repro.fig1",), anchors=("figure 1",)),
    Rule("5.1", ("repro.fig2",), anchors=("figure 2",)),
    *named("5.1", ("repro.fig1",), "dp-gini-index-is-approximately", "as-increases-the-variances",
           "even-at-epsilon-0-25", note="Figure 1's text: approximately unbiased, variances "
                                        "shrink with eps, within a few points at eps = 0.25"),
    *named("5.2", (), "in-this-section-we-evaluate", note=_DEF),
    *named("5.2.1", (), "thus-when-using-these", "we-also-examine-the", "we-perform-the-sim",
           note=_DEF),
    Rule("5.2.1", ("deriv.prop51", "repro.sec52-iq"), anchors=("proposition 5.1",)),
    *named("5.2.1", ("deriv.prop51", "repro.sec52-iq"), "instead-we-find-the-minimum",
           "using-proposition-5-1-we", note="the minimum IQ(X) for a given g(X) (eq. (31))"),
    *named("5.2.2", (), "figure-3-summarizes-the", note=_DEF),
    *named("5.2.2", ("repro.fig3",), "the-absolute-differences-are",
           "the-absolute-differences-decrease", "the-absolute-differences-tend",
           note="Figure 3's text: small even at eps = 0.5, falling with n and eps, largest at "
                "g = 0.7"),
    *named("5.2.2", ("repro.sec52-iq",), "this-arises-mainly-because", "note-that-inf-iq",
           note="the minimum IQ(X) grows with g(X); inf{IQ : g = 0.5} = 2"),
    *named("5.2.2", ("deriv.prop51",), "regardless-when-g-x-is",
           note="inf IQ(X) given g(X) grows without bound as g -> 1 (eq. (31))"),
    Rule("5.2.2", ("repro.fig3",), anchors=("figure 3",)),
    Rule("5.2.2", ("repro.fig4",), anchors=("figure 4",)),
    *named("5.2.2", ("repro.fig4",), "the-root-mean-squared-error", "we-also-see-that-increases",
           note="Figure 4's text: RMSE rises with IQ(X), falls with eps"),
    *named("5.2.2", (), "these-results-suggest", "the-results-also-suggest", "thus-for-x-where",
           note=_NOCLAIM_SUGGEST),
    *named("6", (), "in-such-settings-we-suspect", "however-for-x-with-high",
           "one-possible-strategy-is", "this-procedure-could", "in-fact-downweighting",
           "developing-methods-for", note=_NOCLAIM_SUGGEST),
    *named("appendix", (), "python-package-for", note="not a claim: supplementary material"),
    Rule("A", (), "not a claim: the notation table (Table A.1)", anchors=("table A.1",)),
    # Appendix A.1
    *named("A.1.1", (), "recall-that-g-x-sum", "let-w-n-1", "in-section-4-1-we-show",
           "the-numerator-sum-i-1", note=_DEF),
    *named("A.1.1", ("deriv.increase",), "3379d7cf", note="the lines of (34), re-derived"),
    Rule("*", (), "not a claim: the definitions of s_m, s_{m+1}, F(m, m'), F(m+1, m')",
         anchors=("eq (35)", "eq (36)", "eq (40)", "eq (41)")),
    *named("A.1.2", (), "increasing-m-by-one", "when-m-s-m-we-have", "with-a-x-s-m",
           "for-any-m-geq-m", note=_DEF),
    *named("A.1.2", ("text.appendix.thresholds",), "we-now-argue-that-s-m", "since-s-m-1-is-the",
           "when-m-1-delta-g-1", "the-definition-of-s-m-also",
           note="s_{m+1} >= s_m (verified); Delta g(m, s_m) < 0 (refuted: 0 when s_m = m or "
                "at ties)"),
    *named("A.1.2", ("text.appendix.proof-steps",), "notice-that-sum-i-m-1", "thus-f-m-1-m-leq",
           "this-inequality-implies-that-if-f", note="F(m+1, m') <= F(m, m') (exhaustive)"),
    *named("A.1.2", ("subsets.lemma41",), "in-section-4-1-1-of", "since-s-m-1-geq",
           "a-for-m-and-m-1", "we-conclude-that-when-m-s",
           note="for m' = s_m the largest |Delta g| is at m = 1 (paper.a12.max-at-m1)"),
    Rule("A.1.3", ("subsets.lemma41",), anchors=("lemma A.1",)),
    Rule("*", ("subsets.lemma41",), anchors=("eq (49)",)),
    *named("A.1.3", (), "suppose-the-observation", "using-algebraic-manipulations",
           "we-first-consider-m-1", "we-next-consider-m-q", "we-define-f-m-m", note=_DEF),
    *named("A.1.3", ("text.a1.display-steps",), "49cc18dd",
           note="refuted: D(1, m) > 0 already (text.a13.sign-switch)"),
    *named("A.1.3", ("subsets.lemma41",), "in-section-4-1-2-of", "when-g-0-frac-2m-n",
           "delta-g-m-m-a-attains", "for-a-fixed-m-the-largest", "from-the-sign-of-the",
           "since-delta-g-m-q-m",
           note="Lemma A.1's facts and the candidates (n, q_m), (m_D, 1): exact search"),
    *named("A.1.3", ("text.appendix.thresholds",), "we-now-argue-that-q-m",
           "therefore-q-m-1-geq", "we-also-have-delta-g-n",
           note="q_{m+1} >= q_m (verified); Delta g(n, q_n) <= Delta g(m, q_m) (refuted when "
                "m' must differ from m)"),
    *named("A.1.3", ("text.appendix.proof-steps",), "notice-that-f-m-1-m",
           note="F(m+1, m') - F(m, m') = 2/(n-1)(m - m' + 1)(x_m - x_{m+1}) <= 0 (exhaustive)"),
    *named("A.1.3", ("deriv.decrease",), "when-m-m-frac-partial", "when-m-1-we-have-frac",
           note="the derivative (48) at m' = m and at m' = 1"),
    # Appendix A.2: Lemma 4.2 and the proofs of Theorems 4.1-4.2
    *named("A.2", (), "in-this-section-we-prove", "to-do-so-we-first-prove", "let-x-x-x-1",
           "recognizing-that-n-1", "when-x-has-rank-m", "let-r-be-an-integer", "we-write-x-x-r",
           "we-use-this-fact-to", "as-a-reminder-we-can", "first-consider-k-2", "next-consider-k",
           "to-prove-the-case-for", "let-the-subset-q", "assume-that-q-contains",
           "under-our-posited", "here-x-l-and-x-u", "we-now-consider-q-m", "first-consider-the",
           "second-consider-the", "we-now-prove-theorem", "now-consider-k",
           "we-use-a-proof-by", "assume-that-a-subset", "for-notational-convenience",
           "when-m-u-1-we-refer", "first-consider-adding", "to-compute-the-possible",
           "likewise-we-can-add", "consider-the-rank-m-of", note=_DEF),
    # Lemma 4.2's statement and proof steps, eq. (58), Theorems 4.1 (k > 3) / 4.2 (k >= 3):
    # each step tested itself (proofs/gini/claims_a2_steps.py, findings text.a2.l42.*,
    # text.a2.eq58, text.a2.t41.*, text.a2.t42.*)
    *named("A.2", (), "fix-m-in-1-dots-n", "let-delta-g-x-x-g",
           note="not a claim: the setting of Lemma 4.2 (m fixed, Delta g defined)"),
    Rule("A.2", (_A2, "deriv.insertion"), anchors=("lemma 4.2",),
         note="m_A exists (verified); 'unique' refuted as an integer (text.a2.l42.m-a-*)"),
    Rule("A.2", (_A2,), anchors=("eq (52)",),
         note="the signs below / above m_A (text.a2.l42.m-a-exists, text.a2.l42.m-a-unique)"),
    Rule("A.2", (_A2, "deriv.insertion"), anchors=("eq (56)", "eq (57)"),
         note="the derivative's sign at ranks n + 1 and 1 (text.a2.l42.end-signs)"),
    Rule("A.2", (_A2,), anchors=("eq (58)",),
         note="refuted with n = |X|, holds with n read as k (text.a2.eq58)"),
    *(rule for starts, note in _A2_STEPS for rule in named("A.2", (_A2,), *starts, note=note)),
    *named("A.2", ("subsets.thm41", _A2), "ac5c62cb", "3cd1938d",
           note="the contradiction needs a strict increase: replacing y_m gives >= only "
                "(text.a2.t41.some-endpoint) and a k-maximal Q can hold an outsider "
                "(paper.thm41.proof-k-smallest-or-largest, refuted)"),
    Rule("A.2", ("subsets.thm41", "subsets.smt"), anchors=("theorem 4.1",)),
    Rule("A.2", ("text.a2.thm42-restated", "subsets.thm42"), anchors=("theorem 4.2",),
         note="the restatement adds 'consecutive' to the removed elements: refuted under both "
              "readings ((1, 2, 3, 5), k = 2: min 1/4 vs 1/5); Section 4.2's version holds"),
    *named("A.2", ("text.appendix.proof-steps",), "clearly-the-2-maximal",
           "the-3-maximal-subset-q", "for-any-other-q-that-does",
           note="2-/3-maximal subsets contain x_1, x_n; a 2-minimal subset is consecutive"),
    *named("A.2", ("subsets.thm41",), "d2c23f64",
           "using-theorem-4-1-we",
           note="consequences of Theorem 4.1 (prefix + suffix): exhaustive search"),
    *named("A.2", ("subsets.thm42",), "e0cd41bb", "using-theorem-4-2-we",
           "clearly-the-2-minimal",
           note="consequences of Theorem 4.2 (k consecutive): exhaustive search"),
    # Appendix A.3, A.4
    *named("A.3", ("deriv.a3-closed-forms",), "to-compute-the-maximum", "to-compute-the-minimum",
           "these-facts-allow-us",
           note="the O(1) closed forms (59), (60) of the Gini after k replacements"),
    Rule("A.4", ("deriv.prop51",), anchors=("proposition 5.1",)),
    *named("A.4", (), "this-proposition-allows", "that-is-suppose-we-create",
           "hence-for-this-proposition", "consider-x-in-which", note=_DEF),
    *named("A.4", ("text.a4.prop51-facts",), "to-begin-we-note-that-iq", "then-iq-y-iq-x",
           "with-bar-x-1-g-x",
           note="scale invariance (verified); sum_{i,j} |x_i - x_j| / n^2 (refuted over "
                "ordered pairs, holds over i < j)"),
    *named("A.4", ("deriv.prop51",), "since-alpha-1-alpha", "hence-in-these-cases",
           "using-62-we-find",
           note="the two branches of Proposition 5.1: 4g (g <= 1/2), 1/(1 - g) (exact)"),
    # Theorem 4.1's proof for k = 2, 3 (proofs/gini/claims_proofsteps.py)
    *named("A.2", ("text.a2.small-k-steps",), "46166503",
           note="removing the n - 2 values between x_1 and x_n (text.a2.two-maximal-removal)"),
    *named("A.2", ("text.a2.small-k-steps",), "a917cb94",
           note="removing n - 3 consecutive interior elements (text.a2.three-maximal-removal)"),
    *named("A.2", ("text.a2.small-k-steps",), "bdce44cd",
           note="'the numerator as large as possible': it is the same for every third element; "
                "'either x_2 or x_{n-1}' (text.a2.three-maximal-either)"),
    # 'we will show' sentences state the step the proof then makes: tested as that step
    *named("A.2", (_A2, "subsets.thm41"), "51b58b40",
           note="replacing y_m raises g: >= only (text.a2.t41.some-endpoint), and a k-maximal Q "
                "can hold an outsider (paper.thm41.proof-k-smallest-or-largest)"),
    *named("A.2", (_A2,), "c5d387b9",
           note="the window strictly below Q_l / Q_u (text.a2.t42.contradiction)"),
    *named("A.2", (_A2,), "32877543", note="no jump at x = x_r (text.a2.l42.continuity)"),
)

#: first matching rule accounts for an inventory item (specific rules before section defaults)
RULES: tuple[Rule, ...] = _NAMED + (
    Rule("abstract", (), _SUMMARY),
    Rule("1", (), "not checked: motivation and external figures (World Bank Gini values); "
                  "the method's claims are stated and checked in Sections 2-5"),
    # Section 3
    Rule("3", ("text.sec3.min-replacement-rules", "subsets.lemma41"),
         starts="further-we-show-that-when-k"),
    Rule("3", ("text.sec3.min-replacement-rules", "subsets.thm42"),
         starts="as-shown-in-section-4-to"),
    Rule("3", ("text.sec3.min-replacement-rules",), starts="intuitively-in-the-expression"),
    Rule("3", ("subsets.thm42",), starts="in-section-4-we-prove-that"),
    Rule("3", ("subsets.thm41",), starts="for-any-k-the-search-for"),
    Rule("3", ("subsets.thm41", "subsets.thm42"), starts="we-note-that-algorithm-1-and"),
    Rule("3", ("text.sec3.a-k-equals-1",), starts="we-note-that-when-replacing-k"),
    Rule("3", ("text.sec3.a-k-equals-1", "def21.smooth"),
         starts="to-find-the-smooth-sensitivity"),
    Rule("3", (), "not checked: an illustration of cost (1000 values per record; 1001 in "
                  "fact), no result depends on it", starts="this-requires-up-to-4"),
    Rule("3", (), "not checked: an illustration of cost", starts="following-this-approach"),
    Rule("3", (), "not checked: an illustration of cost", starts="as-these-computations"),
    Rule("3", ("complexity.printed",), starts="finally-when-the-sample-size"),
    Rule("3", ("bounds.printed", "thm45.inequality"), starts="nonetheless-in-section-4"),
    Rule("3", ("repro.fig2",), starts="although-not-essential"),
    Rule("3", ("repro.fig2",), starts="for-example-in-the-empirical"),
    Rule("3", ("repro.fig2",), starts="let-p-tilde-g-g"),
    # spot check (issue 42, 3b): repro.fig2 checks the sampler against the posterior that
    # (11) defines (both sides built from (11)), so it cannot fail if (11) were wrong
    Rule("3", (), "not checked: Bayes' rule, the definition of the posterior the analyst "
                  "computes; repro.fig2 tests the resampler against it, not (11) itself",
         starts="p-g-mid-tilde-g"),
    Rule("3", ("repro.fig2",), starts="thus-if-tilde-g-x"),
    Rule("3", ("repro.fig2", "privacy.admissibility"), starts="we-note-that-this-post"),
    Rule("3", ("privacy.admissibility", "def21.smooth", "bounds.printed"),
         starts="algorithm-3"),
    # Section 4
    Rule("4.1.1", ("deriv.increase", "subsets.lemma41"), "eqs. (12)-(20), Lemma 4.1"),
    Rule("4.1.2", ("deriv.decrease", "subsets.lemma41"), "decreasing one element"),
    Rule("4.1.3", ("subsets.lemma41", "bounds.printed"), "the four candidates, eqs. (21)-(22)"),
    Rule("4.3", ("bounds.printed", "thm45.inequality", "sec43.example", "def21.smooth"),
         "Theorems 4.3-4.5, eqs. (23)-(30), the n = 2 example"),
    # Section 5
    Rule("5.1", ("repro.fig1", "repro.fig2", "repro.sec51-upper-bound"),
         "CPS data, the DP upper bound, Figures 1-2"),
    Rule("5.2.1", ("repro.sec52-iq", "deriv.prop51", "repro.fig3"),
         "simulated data, Proposition 5.1"),
    Rule("6", (), "not checked: discussion and proposals for future work"),
    Rule("A.1.2", ("subsets.lemma41", "deriv.increase"), "eqs. (35)-(41): s_{m+1} >= s_m and "
                                                        "the maximum at m = 1"),
    Rule("A.1.3", ("deriv.decrease", "subsets.lemma41"), "eqs. (42)-(51), Lemma A.1"),
)
