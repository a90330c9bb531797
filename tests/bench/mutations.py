"""Mutation catalogue for dpaudit's meta-test: plausible maintainer bugs in ``kernels/``.

Each :class:`Mutant` is one source-level edit (an exact, unique anchor replaced by new text)
of a fresh copy of the ``kernels/`` package.  :func:`make_copy` writes that copy under another
package name (``kmut_<id>``; every ``from kernels`` / ``import kernels`` inside it is renamed)
so it is imported next to the real one, exactly as ``dpaudit regress --kernels`` would import
a third party's module; with ``rename=False`` the copy is called ``kernels`` and is meant to
*shadow* the real package in a subprocess (``PYTHONPATH``), so that ``dpaudit search`` -
whose claims import ``kernels.*`` directly - runs on the mutant.

Operators (:data:`OPERATORS`) are the bug classes of issue 19: off-by-one in a range or
index, a dropped factor, a halved/doubled noise scale, a wrong budget split, a removed
rounding nudge, a flipped comparison, a changed constant, swapped arguments, a wrong
accumulator, a sign flip, a wrong branch/variable, a removed guard.  Every kernel module is
covered (``kernels/<subject>/*.py`` and ``kernels/validate.py``) except the declarative
``protocol.py`` files (their dicts are documentation: the suites read the *installed*
protocol, not the audited copy's), the ``errors.py`` exception classes and the empty
``__init__.py`` files.  Engine mutants (:data:`ENGINE_MODULES`) edit a copy of ``audit/`` or
of a subject's plug-in under ``proofs/`` that the engine runs.

Some mutants are expected to be *equivalent* (no observable change in any output: e.g. ``>``
vs ``>=`` on a continuous random variable); they carry ``equivalent=<why>`` and are reported
separately - they are kept to show the meta-test does not pretend to kill the unkillable.

This module only builds data and copies; ``tests/bench/mutation_kill.py`` runs them and prints.
"""

from __future__ import annotations

import importlib
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

__all__ = ["CATALOGUE", "KERNELS", "MODULES", "OPERATORS", "Mutant", "by_id", "check_anchors",
           "import_copy", "make_copy", "modules_covered"]

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "kernels"
#: the packages a shadow tree copies (an engine mutant runs dpaudit on such a copy)
TREE_PACKAGES = ("audit", "kernels", "proofs")

#: the kernel modules the catalogue covers (every kernel module; a module added later needs
#: its mutants - tests/engine/test_mutation_catalogue.py checks the list against kernels/)
MODULES: tuple[str, ...] = (
    "gini/index.py", "gini/extremes.py", "gini/sensitivity.py", "gini/noise.py",
    "gini/release.py", "gini/tight.py", "gini/neighbour.py", "gini/printed.py", "gini/api.py",
    "gini/validate.py", "validate.py",
    "freegap/mechanisms.py", "freegap/broken.py", "freegap/api.py",
    "subset_optimal/mean.py", "subset_optimal/thresholds.py", "subset_optimal/monotone.py",
    "subset_optimal/api.py",
    "global_sensitivity/releases.py", "global_sensitivity/statistics.py",
    "global_sensitivity/formulas.py", "global_sensitivity/api.py",
)

#: the engine modules the catalogue covers (paths relative to the repository root)
ENGINE_MODULES: tuple[str, ...] = (
    "audit/privacy/neighbours.py",
    "audit/privacy/blackbox/statistics.py",
    "audit/privacy/blackbox/fixed.py",
    "audit/privacy/blackbox/select.py",
    "audit/privacy/blackbox/sequential.py",
    "audit/privacy/blackbox/candidates.py",
    "audit/privacy/exact_loss.py",
    "audit/rounding.py",
    "proofs/gini/noise_law.py",
    "audit/datasets.py",
    "audit/report/confidentiality.py",
    "audit/findings.py",
    "audit/report/writer.py",
    "audit/fingerprint.py",
    "audit/privacy/claims/certify.py",
    "audit/privacy/claims/histogram_renyi.py",
    "audit/privacy/claims/user_claim.py",
    "audit/privacy/user_audit.py",
)

OPERATORS: dict[str, str] = {
    "off-by-one": "range bound or index shifted by one",
    "dropped-factor": "a multiplicative factor removed (or a divisor changed)",
    "noise-scale": "noise scale halved or doubled (or the declared scale diverges from the "
    "one used)",
    "budget-split": "privacy budget split between steps wrongly",
    "rounding-nudge": "safe-direction rounding removed (2^-36 SAFE_MARGIN, one-ulp nudges)",
    "flipped-comparison": "< / <= / > / >= changed or a comparison reversed",
    "constant": "a numeric constant changed",
    "swapped-args": "two arguments or operands swapped / wrong argument passed",
    "accumulator": "wrong accumulator (precision or quantity accumulated)",
    "sign-flip": "a sign flipped",
    "wrong-variable": "the wrong variable, branch or table used",
    "removed-guard": "a validation / copy / guard removed",
}


@dataclass(frozen=True)
class Mutant:
    id: str
    operator: str
    file: str  # relative to kernels/, or to the repository root for "audit/..." and
    # "proofs/..." (engine: the tester and the subject plug-ins it runs)
    old: str  # exact text, unique in the file
    new: str
    what: str
    #: check-id substrings for the *area* run of the default test (regress --only)
    area: tuple[str, ...] = ()
    #: search claim keys that apply (run through ``dpaudit search --only KEY``)
    search: tuple[str, ...] = ()
    #: why the mutant is (believed) equivalent: no observable behaviour change
    equivalent: str = ""
    #: the area its kill rate is reported under (empty: derived from ``file``)
    area_name: str = ""
    #: engine mutants: the dpaudit command runs that apply (names in mutation_kill.ENGINE_RUNS)
    runs: tuple[str, ...] = ()

    @property
    def engine(self) -> bool:
        return self.file.startswith(("audit/", "proofs/"))

    @property
    def path(self) -> Path:
        """The file the anchor is in (in this checkout)."""
        return ROOT / self.file if self.engine else KERNELS / self.file


def _m(id: str, op: str, file: str, old: str, new: str, what: str, area: tuple[str, ...] = (),
       search: tuple[str, ...] = (), equivalent: str = "") -> Mutant:
    assert op in OPERATORS, op
    return Mutant(id, op, file, old, new, what, area, search, equivalent)


def _e(id: str, op: str, file: str, old: str, new: str, what: str, area: str,
       runs: tuple[str, ...], equivalent: str = "") -> Mutant:
    """An engine mutant: ``area`` names its kill-rate area, ``runs`` the dpaudit command
    runs that apply (``tests/bench/mutation_kill.py`` ENGINE_RUNS)."""
    assert op in OPERATORS, op
    return Mutant(id, op, file, old, new, what, equivalent=equivalent, area_name=area,
                  runs=runs)


#: the search claims that run kernels/gini/tight.py (a comma list, as --only takes it)
_TIGHT = "tight.ball-exhaustive,tight.chain-exhaustive,tight.smoothness-search"

CATALOGUE: list[Mutant] = [
    # ------------------------------------------------------------------ gini/index.py
    _m("index.den-n", "off-by-one", "gini/index.py",
       "return float(num / ((xs.size - 1) * tot))", "return float(num / (xs.size * tot))",
       "n instead of n-1 in the eq.-(2) denominator", ("gini.eq2",)),
    _m("index.weights-shift", "off-by-one", "gini/index.py",
       "w = np.arange(2 * s + 1 - n, 2 * (s + c.size) + 1 - n, 2, dtype=_ACC)",
       "w = np.arange(2 * s + 3 - n, 2 * (s + c.size) + 3 - n, 2, dtype=_ACC)",
       "weights 2i - n + 1 instead of 2i - n - 1", ("gini.eq2",)),
    _m("index.eq1-den", "dropped-factor", "gini/index.py",
       "return float(num / (xs.size * tot))", "return float(num / ((xs.size - 1) * tot))",
       "eq. (1) computed with the eq.-(2) denominator", ("gini.eq1",)),
    _m("index.float32-sum", "accumulator", "gini/index.py",
       "tot += np.sum(c)", "tot += np.sum(c.astype(np.float32))",
       "float32 accumulator for the total", ("gini.eq2",)),
    _m("index.prefix-C", "constant", "gini/index.py",
       "self._m = _ACC(P.size)  # n + 1", "self._m = _ACC(P.size - 1)  # n + 1",
       "prefix table C with weights 2t - n", ("extremes.max-gini",)),
    _m("index.prefix-R", "off-by-one", "gini/index.py",
       "return np.arange(a + 1, b + 1, dtype=np.float64)",
       "return np.arange(a, b, dtype=np.float64)",
       "prefix table R with 0-based ranks", ("extremes.min-gini",)),
    _m("index.negative-guard", "removed-guard", "gini/index.py",
       "if xs[0] < 0:", "if xs[0] < -1:", "negative incomes above -1 accepted by gini()",
       ("gini.", "input.rejects")),
    # --------------------------------------------------------------- gini/extremes.py
    _m("extremes.max-window", "off-by-one", "gini/extremes.py",
       "hi = n - kk  # predicate domain", "hi = n - kk - 1  # predicate domain",
       "max Gini never replaces the top k records", ("extremes.max-gini",)),
    _m("extremes.min-drop-above", "dropped-factor", "gini/extremes.py",
       "num = nblock[idx] + k * (below + above)", "num = nblock[idx] + k * below",
       "min Gini drops the above-block distances", ("extremes.min-gini",)),
    _m("extremes.min-mean-U", "swapped-args", "gini/extremes.py",
       "min_mean = ((P[n - ks] + ks * _ACC(lower)) / n)",
       "min_mean = ((P[n - ks] + ks * _ACC(upper)) / n)", "min mean replaces by U, not L",
       ("extremes.min-mean",)),
    _m("extremes.max-mean-index", "off-by-one", "gini/extremes.py",
       "max_mean = ((P[n] - P[ks] + ks * _ACC(upper)) / n)",
       "max_mean = ((P[n] - P[ks - 1] + ks * _ACC(upper)) / n)", "max mean keeps the k smallest",
       ("extremes.max-mean",)),
    _m("extremes.max-den-n", "dropped-factor", "gini/extremes.py",
       "g = np.where(den > 0, num / ((n - 1) * np.where(den > 0, den, 1)), -np.inf)",
       "g = np.where(den > 0, num / (n * np.where(den > 0, den, 1)), -np.inf)",
       "max Gini divided by n D (Algorithm 2 as printed: eq.-(1) Gini)", ("extremes.max-gini",)),
    _m("extremes.max-sign", "sign-flip", "gini/extremes.py",
       "Ud * uu * (n - uu)", "Ud * uu * (n + uu)", "sign flip in the U-block constant",
       ("extremes.max-gini",)),
    _m("extremes.min-pred-ge", "flipped-comparison", "gini/extremes.py",
       "return ~((2 * j - lft[idx] - rgt[idx] + 1) * den - num > 0)",
       "return ~((2 * j - lft[idx] - rgt[idx] + 1) * den - num >= 0)",
       "min-Gini predicate >= instead of >", ("extremes.min-gini",),
       equivalent="at a predicate zero g is flat between x_j and x_{j+1} (both minimisers)"),
    _m("extremes.min-kn", "constant", "gini/extremes.py",
       "gmin[ks == n] = 0.0", "gmin[ks == n] = g0", "min Gini at k = n is g(X), not 0",
       ("extremes.min-gini",)),
    _m("extremes.min-clamp", "removed-guard", "gini/extremes.py",
       "return np.maximum(gmin.astype(np.float64), 0.0), best",
       "return gmin.astype(np.float64) * (1 + 2.0**-30), best",
       "min Gini rounded up instead of clamped (unsafe side of C1)", ("extremes.min-gini",)),
    # ------------------------------------------------------------ gini/sensitivity.py
    _m("sens.k-from-1", "off-by-one", "gini/sensitivity.py",
       "    k0 = 0\n    while k0 <= cap:", "    k0 = 1\n    while k0 <= cap:",
       "smooth sensitivity without the k = 0 term (Theorem 4.5's k = 1..n)", ("smooth.",)),
    _m("sens.printed-22", "constant", "gini/sensitivity.py",
       "c2a = D * (g_hi + 1.0) / den2", "c2a = D * (g_hi + 1.0 - 2.0 / (n - 1)) / den2",
       "printed factor of eq. (22)", ("bound.thm43",)),
    _m("sens.no-safe-margin", "rounding-nudge", "gini/sensitivity.py",
       "return np.minimum(out * (1.0 + SAFE_MARGIN), 1.0)", "return np.minimum(out, 1.0)",
       "A^(k) without the 2^-36 safe margin", ("bound.",)),
    _m("sens.no-up", "rounding-nudge", "gini/sensitivity.py",
       "return float(best * (1.0 + SAFE_MARGIN))", "return float(best)",
       "S(X) without the 2^-36 safe margin", ("smooth.",)),
    _m("sens.tiny-margin", "constant", "gini/sensitivity.py",
       "SAFE_MARGIN = 2.0**-36", "SAFE_MARGIN = 2.0**-60",
       "safe margin below the float error (2^-60)", ("bound.", "smooth.")),
    _m("sens.c1b-factor", "dropped-factor", "gini/sensitivity.py",
       "c1b = 2.0 * (s_hi - n * L)", "c1b = 1.0 * (s_hi - n * L)",
       "factor 2 dropped from the second term of (21)", ("bound.thm43",)),
    _m("sens.c2b-swap", "swapped-args", "gini/sensitivity.py",
       "c2b = 2.0 * (n * U - s_lo)", "c2b = 2.0 * (n * U - s_hi)",
       "s_hi instead of s_lo in (22)", ("bound.thm43",)),
    _m("sens.ok-ge", "flipped-comparison", "gini/sensitivity.py",
       "ok = (s_lo - D > 0) & (s_lo > 0)", "ok = (s_lo - D >= 0) & (s_lo > 0)",
       ">= in the validity condition of (21)/(22)", ("bound.",),
       equivalent="at s_lo = D the denominator of (22) is 0: the terms are inf/NaN and the "
       "clip to 1 gives the same value"),
    _m("sens.decay-nudge", "rounding-nudge", "gini/sensitivity.py",
       "decay = np.nextafter(np.exp(-b * ks), np.inf)", "decay = np.exp(-b * ks)",
       "pruning test without its one-ulp margin", ("smooth.",),
       equivalent="only changes where the scan stops when e^{-beta k} equals the maximum to "
       "the last ulp; later terms are <= e^{-beta k} A^(k) <= that maximum"),
    _m("sens.stop-early", "constant", "gini/sensitivity.py",
       "stop = np.flatnonzero(decay <= best)", "stop = np.flatnonzero(decay <= 2 * best)",
       "pruning stops while later terms can still win", ("smooth.",)),
    _m("sens.terms-shift", "off-by-one", "gini/sensitivity.py",
       "terms = np.exp(-b * ks) * a", "terms = np.exp(-b * (ks + 1)) * a",
       "e^{-beta (k+1)} weights", ("smooth.",)),
    _m("sens.thm44-slo", "off-by-one", "gini/sensitivity.py",
       "s_lo = np.maximum(n * lower, total - kk * D)",
       "s_lo = np.maximum(n * lower, total - (kk - 1) * D)",
       "Theorem 4.4 lower total from k - 1 replacements", ("bound.thm44",)),
    # ------------------------------------------------------------------ gini/noise.py
    _m("noise.cauchy-sampler", "wrong-variable", "gini/noise.py",
       "mag = magnitude(g1, g2)\n", "mag = np.abs(rng.standard_cauchy(size=shape))\n",
       "sampler draws Cauchy for every gamma", ("noise.sampler",)),
    _m("noise.half-sample", "noise-scale", "gini/noise.py",
       "return sign * mag\n", "return 0.5 * sign * mag\n", "sampler returns half the noise",
       ("noise.sampler", "release.sample")),
    _m("noise.constant-pi", "dropped-factor", "gini/noise.py",
       "return g * math.sin(math.pi * min(a, b)) / (2.0 * math.pi)",
       "return g * math.sin(math.pi * min(a, b)) / math.pi",
       "normalising constant without the 1/2", ("noise.pdf",)),
    _m("noise.shapes-swap", "swapped-args", "gini/noise.py",
       "return 1.0 / g, (g - 1.0) / g\n", "return (g - 1.0) / g, 1.0 / g\n",
       "Beta shapes a, b swapped", ("noise.",)),
    _m("noise.sign-bias", "constant", "gini/noise.py",
       "sign = np.where(rng.random(size=shape) < 0.5, -1.0, 1.0)",
       "sign = np.where(rng.random(size=shape) < 0.45, -1.0, 1.0)",
       "asymmetric sign of the noise", ("noise.sampler",)),
    _m("noise.redraw-g2", "removed-guard", "gini/noise.py",
       "bad = (g2 == 0) | ~np.isfinite(mag)", "bad = ~np.isfinite(mag)",
       "redraw test without G2 == 0", ("noise.sampler",),
       equivalent="G2 == 0 gives log(0) = -inf, so the magnitude is +inf and is redrawn anyway"),
    _m("noise.series-tol", "constant", "gini/noise.py",
       "done = term <= 1e-17 * acc", "done = term <= 1e-7 * acc",
       "cdf series truncated at 1e-7", ("noise.cdf",)),
    _m("noise.pdf-power", "constant", "gini/noise.py",
       "out = c / (1.0 + np.power(np.abs(zz), g))",
       "out = c / (1.0 + np.power(np.abs(zz), g + 0.5))",
       "pdf with exponent gamma + 1/2", ("noise.pdf",)),
    # ---------------------------------------------------------------- gini/release.py
    _m("release.beta-section23", "budget-split", "gini/release.py",
       "alpha, beta = eps / (4 * g), eps / (2 * (g + 1))", "alpha, beta = eps / (4 * g), eps / g",
       "alg3 rule with Section 2.3's beta = eps/gamma", ("release.", "constants.")),
    _m("release.alpha-double", "noise-scale", "gini/release.py",
       "alpha, beta = eps / (4 * g), eps / (2 * (g + 1))",
       "alpha, beta = eps / (2 * g), eps / (2 * (g + 1))", "alpha doubled: half the noise",
       ("release.", "constants.")),
    _m("release.no-ulp", "rounding-nudge", "gini/release.py",
       "scale = float(np.nextafter(ss.value / c.alpha, math.inf))",
       "scale = float(ss.value / c.alpha)", "noise scale not rounded up", ("release.scale",),
       equivalent="S(X) already carries the relative 2^-36 margin (sensitivity._up), so "
       "S/alpha rounded to nearest (error 2^-53) stays above the exact S_exact/alpha: the "
       "ulp nudge is defence in depth"),
    _m("release.half-noise", "noise-scale", "gini/release.py",
       "value = g + scale * z\n", "value = g + 0.5 * scale * z\n",
       "adds half the declared noise", ("release.sample",)),
    _m("release.alpha-for-beta", "swapped-args", "gini/release.py",
       "ss = smooth_sensitivity(xs, lo, hi, c.beta, bound=bound)",
       "ss = smooth_sensitivity(xs, lo, hi, c.alpha, bound=bound)",
       "smooth sensitivity with alpha in place of beta", ("release.scale",)),
    _m("release.loss-bound-min", "flipped-comparison", "gini/release.py",
       "val = beta * max(1.0, g - 1.0) + alpha", "val = beta * min(1.0, g - 1.0) + alpha",
       "bound (*) with min instead of max", ("constants.",)),
    _m("release.loss-bound-nudge", "rounding-nudge", "gini/release.py",
       "return float(np.nextafter(np.nextafter(val, math.inf), math.inf))", "return float(val)",
       "bound (*) not rounded up", ("constants.",)),
    # (was labelled equivalent - "no decision changes" - but loss_bound documents an upper
    # bound; unrounded it falls below the exact value of (*) on some (alpha, beta, gamma),
    # which constants.loss-bound-function now refutes one-sided)
    _m("release.snap-headroom", "constant", "gini/release.py",
       "SNAP_HEADROOM_BITS = 12", "SNAP_HEADROOM_BITS = 0",
       "snapping grid = one ulp of B (snapping ineffective)", ("release.",)),
    _m("release.ub-half-query-noise", "noise-scale", "gini/release.py",
       "noisy = counts + rng.laplace(0.0, 4.0 / e2, size=m)",
       "noisy = counts + rng.laplace(0.0, 2.0 / e2, size=m)",
       "AboveThreshold query noise halved (Section 5.1)", ("upper-bound",)),
    _m("release.ub-half-threshold-noise", "noise-scale", "gini/release.py",
       "t_hat = n_tilde + rng.laplace(0.0, 2.0 / e2)",
       "t_hat = n_tilde + rng.laplace(0.0, 1.0 / e2)",
       "AboveThreshold threshold noise halved", ("upper-bound",)),
    _m("release.ub-count-left", "flipped-comparison", "gini/release.py",
       'counts = np.searchsorted(xs, guesses, side="right")',
       'counts = np.searchsorted(xs, guesses, side="left")',
       "count of records < guess instead of <=", ("upper-bound",)),
    _m("release.ub-last-hit", "wrong-variable", "gini/release.py",
       "i = int(hit[0]) if halted else m - 1", "i = int(hit[-1]) if halted else m - 1",
       "AboveThreshold returns the last guess that passes", ("upper-bound",)),
    _m("release.posterior-level", "constant", "gini/release.py",
       "a = (1 - lv) / 2\n    qs = np.array([a, 1 - a])",
       "a = (1 - lv) / 4\n    qs = np.array([a, 1 - a])",
       "posterior credible interval too wide (post-processing only)", ("release.posterior",)),
    # --------------------------------------------------------------- gini/neighbour.py
    # the prefix-table fast path that steers certify's exact-loss neighbour search
    _m("neighbour.rf-rank", "off-by-one", "gini/neighbour.py",
       "mid = R[tm] + P[tm] - P[p] + (p + 1) * vv", "mid = R[tm] + P[tm] - P[p] + p * vv",
       "rank-weighted prefix of the neighbour with the new value's rank off by one",
       ("neighbour.",)),
    _m("neighbour.min-mean-U", "swapped-args", "gini/neighbour.py",
       "min_mean = ((P[n - ks] + ks * lo) / n).astype(np.float64)",
       "min_mean = ((P[n - ks] + ks * hi) / n).astype(np.float64)",
       "neighbour's min mean replaces by U, not L", ("neighbour.",)),
    _m("neighbour.pf-drop-old", "dropped-factor", "gini/neighbour.py",
       "return np.where(t <= p, P[t], np.where(t <= r + 1, P[tm] + vv, P[t] - xr + vv))",
       "return np.where(t <= p, P[t], np.where(t <= r + 1, P[tm] + vv, P[t] + vv))",
       "neighbour's prefix sums keep the replaced record", ("neighbour.",)),
    # ------------------------------------------------------------------- gini/tight.py
    _m("tight.no-margin", "rounding-nudge", "gini/tight.py",
       "a = np.nextafter(a * (1.0 + MARGIN), np.inf)", "a = a * 1.0",
       "A_tight without margin and ulp nudge", (), (_TIGHT,)),
    _m("tight.drop-case", "wrong-variable", "gini/tight.py",
       "return np.maximum(np.maximum(ip, im), np.maximum(dp, dm))",
       "return np.maximum(np.maximum(ip, im), dp)", "A_tight drops the D- case", (), (_TIGHT,)),
    _m("tight.ok-k0", "off-by-one", "gini/tight.py",
       "ok = np.where(k == 0, slo - (d.x[-1] - _ACC(d.lower)) > 0, slo - D > 0)",
       "ok = np.where(k == 0, slo - D > 0, slo - D > 0)",
       "k = 0 validity with U - L instead of x_n - L (safe side: more 1s)", (), (_TIGHT,)),
    # -------------------------------------------------------------------- gini/api.py
    _m("api.release-gamma", "swapped-args", "gini/api.py",
       "return _rel.release_gini(x, L, U, epsilon, np.random.default_rng(0), gamma=gamma).scale",
       "return _rel.release_gini(x, L, U, epsilon, np.random.default_rng(0)).scale",
       "release_scale ignores gamma (default 2)", ("release.scale",)),
    _m("api.constants-calibrated", "constant", "gini/api.py",
       'c = _rel.noise_constants(epsilon, gamma, "alg3")',
       'c = _rel.noise_constants(epsilon, gamma, "calibrated")',
       "noise_constants reports another rule", ("constants.",)),
    _m("api.ub-swap-eps", "swapped-args", "gini/api.py",
       "return _rel.dp_upper_bound(x, rng, epsilon_count=epsilon_count,\n"
       "                               epsilon_threshold=epsilon_threshold,",
       "return _rel.dp_upper_bound(x, rng, epsilon_count=epsilon_threshold,\n"
       "                               epsilon_threshold=epsilon_count,",
       "upper bound with the two budgets swapped", ("upper-bound",)),
    # ------------------------------------------------------------------ validate.py
    _m("validate.in-place", "removed-guard", "validate.py",
       "return np.sort(out)  # a fresh array",
       "return (out.sort(), out)[1]  # a fresh array",
       "sorts the caller's array in place", ("input.", "freegap.")),
    _m("validate.upper-ge", "flipped-comparison", "validate.py",
       "if arr[-1] > hi:", "if arr[-1] >= hi:", "records equal to U rejected",
       ("gini.", "extremes.", "bound.", "smooth.")),
    _m("validate.no-upper-check", "removed-guard", "validate.py",
       "if arr[-1] > hi:", "if arr[-1] > 2 * hi:", "records up to 2U accepted as in [L, U]",
       ("input.", "bound.", "smooth.")),
    _m("validate.clip-order", "swapped-args", "validate.py",
       "np.clip(arr, lo, hi, out=arr)", "np.clip(arr, lo, hi, out=arr)\n        arr = arr[::-1]",
       "clipped data returned unsorted", ("bound.", "smooth.", "release.scale-clipped")),
    # ------------------------------------------------------- freegap/mechanisms.py
    _m("fg.noisy-max-argmin", "flipped-comparison", "freegap/mechanisms.py",
       "return int(np.argmax(noisy))", "return int(np.argmin(-noisy[::-1]))",
       "Noisy Max core breaks ties to the largest index (the protocol says smallest)",
       ("noisy-max",)),
    _m("fg.noisy-max-half-noise", "noise-scale", "freegap/mechanisms.py",
       "b = (1.0 if monotone else 2.0) / eps", "b = (1.0 if monotone else 1.0) / eps",
       "Noisy Max with Lap(1/eps) on general queries", ("noisy-max",),
       ("freegap.blackbox",)),
    _m("fg.topk-scale-no-k", "dropped-factor", "freegap/mechanisms.py",
       "return (kk if monotone else 2.0 * kk) / eps", "return (kk if monotone else 2.0) / eps",
       "Top-K noise not scaled by k", ("top-k",), ("freegap.blackbox",)),
    _m("fg.topk-gap-last", "off-by-one", "freegap/mechanisms.py",
       "return order[:kk].astype(np.int64), (vals[:-1] - vals[1:]).astype(np.float64)",
       "return order[:kk].astype(np.int64), (vals[:-1] - vals[-1]).astype(np.float64)",
       "Top-K core gaps to the (k+1)-th instead of the next", ("top-k",)),
    _m("fg.topk-gap-sign", "sign-flip", "freegap/mechanisms.py",
       "out[a:z, kk:] = vals[:, :-1] - vals[:, 1:]", "out[a:z, kk:] = vals[:, 1:] - vals[:, :-1]",
       "Top-K sampler gaps negated", ("top-k",)),
    _m("fg.svt-halt-late", "off-by-one", "freegap/mechanisms.py",
       "            if count >= cc:\n", "            if count > cc:\n",
       "SVT core halts one answer late", ("svt",)),
    _m("fg.svt-pattern-late", "off-by-one", "freegap/mechanisms.py",
       "out[before >= c] = np.nan", "out[before > c] = np.nan",
       "SVT sampler halts one answer late", ("svt",), ("freegap.blackbox",)),
    _m("fg.svt-noise-no-c", "dropped-factor", "freegap/mechanisms.py",
       "nu = rng.laplace(0.0, (1.0 if monotone else 2.0) * cc / eps2, size=(m, qa.size))",
       "nu = rng.laplace(0.0, (1.0 if monotone else 2.0) / eps2, size=(m, qa.size))",
       "SVT query noise not scaled by the answer count c", ("svt",), ("freegap.blackbox",)),
    _m("fg.svt-budget-swap", "budget-split", "freegap/mechanisms.py",
       "eps1, eps2 = th * eps, (1.0 - th) * eps", "eps1, eps2 = (1.0 - th) * eps, th * eps",
       "SVT threshold/query budget split swapped", ("svt",), ("freegap.blackbox",)),
    _m("fg.svt-ge-gt", "flipped-comparison", "freegap/mechanisms.py",
       "above = bool(qa[i] + nv[i] >= t + e)", "above = bool(qa[i] + nv[i] > t + e)",
       "SVT core > instead of >=", ("svt",),
       equivalent="equality of q_i + nu_i and T + eta has probability 0 under Laplace noise"),
    _m("fg.theta-exponent", "constant", "freegap/mechanisms.py",
       "r = (kk if monotone else 2.0 * kk) ** (2.0 / 3.0)",
       "r = (kk if monotone else 2.0 * kk) ** (1.0 / 3.0)",
       "recommended theta with exponent 1/3", ("svt", "adaptive"),
       ("freegap.svt-gap-measures-mse", "freegap.adaptive-more-answers")),
    _m("fg.asvt-stop-late", "off-by-one", "freegap/mechanisms.py",
       "return units > 2 * k - 2\n", "return units > 2 * k - 1\n",
       "Adaptive SVT core stops one cost unit late", ("adaptive",),
       ("freegap.alg2-stopping-rule",)),
    _m("fg.asvt-limit-late", "off-by-one", "freegap/mechanisms.py",
       "limit = 2 * k - 2 if max_units is None else max_units",
       "limit = 2 * k - 1 if max_units is None else max_units",
       "Adaptive SVT sampler stops one cost unit late", ("adaptive",), ("freegap.blackbox",)),
    _m("fg.asvt-eps2", "dropped-factor", "freegap/mechanisms.py",
       "eps2 = eps1 / 2.0\n", "eps2 = eps1\n", "eps2 = eps1 (top branch gets the middle budget)",
       ("adaptive",), ("freegap.blackbox",)),
    _m("fg.asvt-xi-scale", "wrong-variable", "freegap/mechanisms.py",
       "xi = rng.laplace(0.0, mult / bud.eps2, size=(m, qa.size))",
       "xi = rng.laplace(0.0, mult / bud.eps1, size=(m, qa.size))",
       "top-branch noise with the middle-branch scale (half the noise)", ("adaptive",),
       ("freegap.blackbox",)),
    _m("fg.asvt-units-top2", "accumulator", "freegap/mechanisms.py",
       "units += top.astype(np.int64) + 2 * mid.astype(np.int64)",
       "units += 2 * top.astype(np.int64) + 2 * mid.astype(np.int64)",
       "top answers charged 2 units (stops early; less output than claimed)", ("adaptive",)),
    _m("fg.asvt-both-branches", "removed-guard", "freegap/mechanisms.py",
       "mid = active & ~top & (mid_gap >= 0)", "mid = active & (mid_gap >= 0)",
       "middle branch also taken after a top answer (overwrites it)", ("adaptive",)),
    _m("fg.asvt-sigma", "constant", "freegap/mechanisms.py",
       "sig = (2.0 if monotone else 4.0) * math.sqrt(2.0) / eps2",
       "sig = (2.0 if monotone else 4.0) / eps2",
       "sigma = 4/eps2 instead of 4 sqrt(2)/eps2", ("adaptive",),
       ("freegap.adaptive-more-answers",)),
    _m("fg.blue-den", "dropped-factor", "freegap/mechanisms.py",
       "return (total + lm * k * a + p - k * prefix) / ((1.0 + lm) * k)\n\n\ndef blue_top_k_rows",
       "return (total + lm * k * a + p - k * prefix) / (1.0 + lm)\n\n\ndef blue_top_k_rows",
       "BLUE without the 1/k", (), ("freegap.topk-blue-mse",)),
    # ----------------------------------------------------------- freegap/broken.py
    _m("broken.svt-nothreshold-fixed", "wrong-variable", "freegap/broken.py",
       "return svt_pattern_from_noise(qa, t, np.zeros(m), nu, cc)",
       "return svt_pattern_from_noise(qa, t, rng.laplace(0.0, 2.0 / eps2, size=m), nu, cc)",
       "broken twin 'no threshold noise' gets threshold noise (no longer broken)", (),
       ("freegap.broken-witnesses", "freegap.blackbox")),
    _m("broken.svt-loop-halt", "off-by-one", "freegap/broken.py",
       "            if c is not None and count >= c:",
       "            if c is not None and count > c:",
       "broken twins' SVT loop halts one answer late", (),
       ("freegap.broken-witnesses", "freegap.broken-cores")),
    # ------------------------------------------------------------- freegap/api.py
    _m("fgapi.adaptive-flag", "removed-guard", "freegap/api.py",
       "theta=theta,\n                                            adaptive=adaptive)",
       "theta=theta)", "sampler wrapper ignores adaptive=False", ("adaptive",)),
    _m("fgapi.svt-theta", "removed-guard", "freegap/api.py",
       "return _fg.sample_sparse_vector(q, T, epsilon, c, rng, size, theta=theta)",
       "return _fg.sample_sparse_vector(q, T, epsilon, c, rng, size)",
       "SVT wrapper ignores theta", ("svt",)),
]


def _printed_mutants() -> list[Mutant]:
    """Mutants of the paper-as-printed module (its baseline already fails regress: a kill is
    any check whose verdict differs from the unmutated printed module's)."""
    return [
        _m("printed.eq22-fixed", "constant", "gini/printed.py",
           "a = (U - L) * (max_g + 1 - 2 / (n - 1)) / den", "a = (U - L) * (max_g + 1) / den",
           "printed eq. (22) factor repaired", ("bound.thm43",), ("bounds.as-printed",)),
        _m("printed.gini-den", "off-by-one", "gini/printed.py",
           "return float(num / (n * (xs.sum() / n) * (n - 1)))",
           "return float(num / (n * (xs.sum() / n) * n))", "printed Gini denominator n^2 xbar",
           ("gini.eq2",)),
        _m("printed.alg2-loop", "off-by-one", "gini/printed.py",
           "for s in range(1, n - k + 1):", "for s in range(0, n - k + 1):",
           "Algorithm 2's loop repaired to start at s = 0", ("extremes.max-gini",)),
    ]


CATALOGUE += _printed_mutants()


# ------------------------------------------------------- Dick et al. and Liu kernels
# The claims that reach each kernel function (from the claims' code: the paper's algorithms
# are checked on the exact reference, so most claims never call these kernels; functions no
# claim calls - alg4_sample, inv_sen_sample, laplace_release, truncated_laplace - get no key
# and can only be killed by a regress suite of the subject).
_SO_ALG1 = ("subset.alg1-accuracy", "subset.alg3-blackbox", "subset.theorem1-accuracy")
_SO_ALG3 = ("subset.alg3-blackbox", "subset.theorem1-accuracy", "subset.theorem4-corollary2")
_SO_THR = ("subset.definitions", "subset.alg3-blackbox", "subset.theorem1-accuracy")
_SO_PROP = ("subset.definition7-monotone", "subset.theorem5")
_SO_ALG4 = ("subset.alg4-privacy", "subset.alg4-rank-target")
_SO_INVSEN = ("subset.theorem5", "subset.alg5-privacy")
_GS_FORM = ("gs.sup", "gs.label-change", "release.exact-loss", "gs.private-quantities")
_GS_STAT = ("gs.sup", "gs.smt", "derivation.displays")
_GS_SIM = ("sim.section6",)

CATALOGUE += [
    # ------------------------------------------------------ subset_optimal/mean.py
    _m("so.mean.count-noise", "noise-scale", "subset_optimal/mean.py",
       "n_hat = n + rng.laplace(0.0, 2.0 / epsilon, size)",
       "n_hat = n + rng.laplace(0.0, 1.0 / epsilon, size)",
       "Algorithm 1: the count's noise Lap(1/eps) instead of Lap(2/eps) (too small)",
       search=_SO_ALG1),
    _m("so.mean.sum-noise", "noise-scale", "subset_optimal/mean.py",
       "s_hat = s + rng.laplace(0.0, 1.0, size) * (w / epsilon)",
       "s_hat = s + rng.laplace(0.0, 1.0, size) * (w / (2 * epsilon))",
       "Algorithm 1: the sum's noise scale w/(2 eps) instead of w/eps", search=_SO_ALG1),
    _m("so.mean.output-clip", "dropped-factor", "subset_optimal/mean.py",
       "return np.clip(ratio, -w / 2, w / 2) + m", "return np.clip(ratio, -w, w) + m",
       "Algorithm 1 line 5: output clipped to [l - w/2, u + w/2] instead of [l, u]",
       search=_SO_ALG1),
    _m("so.mean.alg3-beta", "dropped-factor", "subset_optimal/mean.py",
       "beta = 2 / epsilon * math.log(2 * R / (alpha * zeta))",
       "beta = 1 / epsilon * math.log(2 * R / (alpha * zeta))",
       "Algorithm 3 line 1: beta with 1/eps instead of 2/eps", search=_SO_ALG3),
    _m("so.mean.alg3-tu-sign", "sign-flip", "subset_optimal/mean.py",
       '"t_u": n - 1 / epsilon - beta}', '"t_u": n - 1 / epsilon + beta}',
       "Algorithm 3 line 1: t_u = |D| - 1/eps + beta", search=_SO_ALG3),
    _m("so.mean.clip-left", "flipped-comparison", "subset_optimal/mean.py",
       'jl = np.searchsorted(xs, lo, "left")', 'jl = np.searchsorted(xs, lo, "right")',
       "records equal to l-hat counted among the clipped ones", search=("subset.alg3-blackbox",),
       equivalent="a record equal to lo contributes lo whether it is clipped or not: same "
       "total"),
    # ------------------------------------------------ subset_optimal/thresholds.py
    _m("so.thr.exponent", "noise-scale", "subset_optimal/thresholds.py",
       "logw = -epsilon / 2 * (loss - loss.min())", "logw = -epsilon * (loss - loss.min())",
       "Algorithm 2 line 2: exp(-eps l) instead of exp(-eps l / 2) (exponent doubled)",
       search=_SO_THR),
    _m("so.thr.width", "dropped-factor", "subset_optimal/thresholds.py",
       " + np.log(np.diff(edges))", "",
       "Algorithm 2 line 3: a piece chosen by its weight alone, ignoring its width",
       search=_SO_THR),
    _m("so.thr.window-right", "off-by-one", "subset_optimal/thresholds.py",
       'hi = np.searchsorted(xs, t + alpha, "right")',
       'hi = np.searchsorted(xs, t + alpha, "left")',
       "Algorithm 2 line 1: #{x < tau + alpha} instead of #{x <= tau + alpha} (rank rounding)",
       search=_SO_THR),
    _m("so.thr.rank-interval", "off-by-one", "subset_optimal/thresholds.py",
       'int(np.searchsorted(xs, tau, "right")))', 'int(np.searchsorted(xs, tau, "left")))',
       "Lemma 5: ranks(tau, D) ends at #{x < tau} instead of #{x <= tau}",
       search=("subset.definitions",)),
    _m("so.thr.edge-a", "flipped-comparison", "subset_optimal/thresholds.py",
       "edges = np.unique(cand[(cand >= a) & (cand <= b)])",
       "edges = np.unique(cand[(cand > a) & (cand <= b)])",
       "Algorithm 2's support loses [a, first breakpoint)", search=_SO_THR),
    # -------------------------------------------------- subset_optimal/monotone.py
    _m("so.mono.quantile-floor", "off-by-one", "subset_optimal/monotone.py",
       "return max(1, math.ceil(q * n))", "return max(1, math.floor(q * n))",
       "lower q-quantile index floor(q n) instead of ceil(q n) (rank rounding)",
       search=_SO_PROP),
    _m("so.mono.invsen-exponent", "noise-scale", "subset_optimal/monotone.py",
       "p = np.exp(lg - lg.max())", "p = np.exp(2 * (lg - lg.max()))",
       "Algorithm 5: exp(-2 scale len) instead of exp(-scale len)", search=()),
    _m("so.mono.alg4-budget", "budget-split", "subset_optimal/monotone.py",
       "l_hat = float(th.sample(q, tl, -R, R, beta / 3, epsilon / 4, 1, rng)[0])",
       "l_hat = float(th.sample(q, tl, -R, R, beta / 3, epsilon / 2, 1, rng)[0])",
       "Algorithm 4 line 3 at eps/2 instead of eps/4", search=()),
    _m("so.mono.alg4-r", "constant", "subset_optimal/monotone.py",
       '"r": 32 * math.log(6 * R / (eta * beta)) / epsilon}',
       '"r": 16 * math.log(6 * R / (eta * beta)) / epsilon}',
       "Algorithm 4 line 2: r with 16 instead of 32", search=("subset.alg4-rank-target",)),
    _m("so.mono.shift-lt", "flipped-comparison", "subset_optimal/monotone.py",
       "if i <= 1.5 * r:", "if i < 1.5 * r:",
       "Algorithm 4 line 5: i < 3r/2 instead of i <= 3r/2", search=_SO_ALG4),
    _m("so.mono.len-mean-hi", "wrong-variable", "subset_optimal/monotone.py",
       "lo_s = S - t * n2 + (j * lo if j else 0)", "lo_s = S - t * n2 + (j * hi if j else 0)",
       "len for the mean: additions' lowest sum uses the upper grid end", search=_SO_INVSEN),
    _m("so.mono.subset-sums-order", "accumulator", "subset_optimal/monotone.py",
       "for i in range(len(sums) - 1, 0, -1):", "for i in range(1, len(sums)):",
       "exact subset sums updated in increasing size: a record reused within one subset",
       search=_SO_INVSEN),
    # ------------------------------------------------- global_sensitivity/releases.py
    _m("gs.rel.no-round-up", "rounding-nudge", "global_sensitivity/releases.py",
       "return math.nextafter(math.nextafter(b, math.inf), math.inf)", "return b",
       "Laplace scale GS/eps no longer rounded up (may be one ulp below)", search=_GS_SIM),
    _m("gs.rel.scale-halved", "noise-scale", "global_sensitivity/releases.py",
       "b = g / float(epsilon)", "b = g / (2 * float(epsilon))",
       "Laplace scale GS/(2 eps)", search=_GS_SIM),
    _m("gs.rel.vector-per-coordinate", "noise-scale", "global_sensitivity/releases.py",
       "return v[None, :] + rng.laplace(0.0, b, (size, v.size))",
       "return v[None, :] + rng.laplace(0.0, b / v.size, (size, v.size))",
       "vector release: the l1 GS split over the coordinates", search=()),
    _m("gs.rel.trunc-cdf", "dropped-factor", "global_sensitivity/releases.py",
       "u = f_lo + (f_hi - f_lo) * rng.random(size)", "u = f_lo + f_hi * rng.random(size)",
       "truncated Laplace: inverse cdf on [F(lo), F(lo) + F(hi)]", search=()),
    _m("gs.rel.rescale-abs", "sign-flip", "global_sensitivity/releases.py",
       "a = np.maximum(np.asarray(y, dtype=np.float64), 0.0)",
       "a = np.abs(np.asarray(y, dtype=np.float64))",
       "rescaling: negative proportions flipped instead of set to 0", search=_GS_SIM),
    # ----------------------------------------------- global_sensitivity/statistics.py
    _m("gs.stat.cov-column", "wrong-variable", "global_sensitivity/statistics.py",
       "my = mean([p[1] for p in pts])", "my = mean([p[0] for p in pts])",
       "covariance: the second variable centred on the first column's mean", search=_GS_STAT),
    _m("gs.stat.var-divisor", "off-by-one", "global_sensitivity/statistics.py",
       "return sum_of_squares(xs) / (n - 1)", "return sum_of_squares(xs) / n",
       "sample variance with divisor n", search=("gs.sup", "gs.smt")),
    _m("gs.stat.pooled-df", "off-by-one", "global_sensitivity/statistics.py",
       "return sum((sum_of_squares(c) for c in cells), 0) / (n - len(cells))",
       "return sum((sum_of_squares(c) for c in cells), 0) / (n - len(cells) + 1)",
       "pooled variance divided by n - J + 1", search=("gs.sup", "gs.smt")),
    _m("gs.stat.label-range", "flipped-comparison", "global_sensitivity/statistics.py",
       "if not 0 <= int(lab) < k:", "if not 0 <= int(lab) <= k:",
       "histogram accepts label k (then indexes past the end)", search=("gs.sup",)),
    # ------------------------------------------------ global_sensitivity/formulas.py
    _m("gs.form.max-ss-even", "dropped-factor", "global_sensitivity/formulas.py",
       "return Fraction(m * m // 4, m)", "return Fraction(m, 4)",
       "max sum of squares m/4 for odd m too (Shiffler & Harsha's even case)",
       search=_GS_FORM),
    _m("gs.form.propvec-printed", "constant", "global_sensitivity/formulas.py",
       "return Fraction(2, n)  # both relations", "return Fraction(1, n)  # both relations",
       "exact GS of the proportion vector under Def 2 back to the printed 1/n",
       search=_GS_FORM),
    _m("gs.form.variance-def2-max", "removed-guard", "global_sensitivity/formulas.py",
       "return rr * max(Fraction(1, n), max_sum_of_squares(n - 1) / ((n - 1) * (n - 2)))",
       "return rr * Fraction(1, n)",
       "exact variance GS under Def 2 without the s'^2/(n-1) case", search=_GS_FORM,
       equivalent="the dropped case never wins: with m = n - 1 >= 2 (the kernel requires "
       "n >= 3 under Def 2), floor(m^2/4)/m / ((n-1)(n-2)) <= 1/(4(m-1)) <= 1/(m+1) = 1/n "
       "(m + 1 <= 4m - 4 iff m >= 5/3), so max(1/n, ...) = 1/n for every n: the exact "
       "variance GS under Def 2 is R^2/n and the max() is dead code (checked for n < 5000)"),
    _m("gs.form.label-change-na", "off-by-one", "global_sensitivity/formulas.py",
       "if na < 3:", "if na < 2:",
       "label change allowed from a 2-record cell (leaving it with one record)",
       search=_GS_FORM),
    _m("gs.form.printed-mean", "off-by-one", "global_sensitivity/formulas.py",
       'if stat == "mean":  # Section 1, both displays\n        return r / n',
       'if stat == "mean":  # Section 1, both displays\n        return r / (n - 1)',
       "printed mean GS R/(n-1)", search=_GS_FORM),
    _m("gs.form.def1-pooled", "constant", "global_sensitivity/formulas.py",
       "if relation == DEF1:\n            v = 1 - Fraction(1, nj)",
       "if relation == DEF1:\n            v = 1 - Fraction(1, nj + 1)",
       "exact pooled GS under Def 1 with 1 - 1/(n_j + 1)", search=_GS_FORM),
]

# ------------------------------------ the Gini validation layer and the subjects' api wrappers
# (regress audits each subject's api module, so a wrong wrapper is seen through its checks)
CATALOGUE += [
    _m("gval.zero-mean-min", "wrong-variable", "gini/validate.py",
       "if not allow_zero_mean and arr[-1] == 0.0:",
       "if not allow_zero_mean and arr[0] == 0.0:",
       "mean-0 test reads the smallest record: any data set with a zero income rejected"),
    _m("so.api.pieces-swapped", "swapped-args", "subset_optimal/api.py",
       "return p.edges, p.loss, p.prob", "return p.edges, p.prob, p.loss",
       "threshold_pieces returns the piece probabilities where the losses belong"),
    _m("gs.api.scale-eps-doubled", "noise-scale", "global_sensitivity/api.py",
       "return _rel.laplace_scale(gs, epsilon)", "return _rel.laplace_scale(gs, 2 * epsilon)",
       "the api's Laplace scale GS/(2 eps): half the noise the protocol promises"),
]


# the default test suite's files that check an engine area (run on the shadow tree by
# mutation_kill's ``pytest:`` runs; found by file name anywhere under tests/)
_PY_NB = "pytest:test_neighbours_replace.py,test_neighbour_pairs.py"
_PY_SEQ = "pytest:test_level_accounting.py,test_sequential.py,test_run_accounting.py"
#: the testers' statistics: the in-run accounting's and the shared levels' tests
_PY_ST = "pytest:test_run_accounting.py,test_shared_level.py,test_level_accounting.py"
_PY_EXACT = ("pytest:engine/privacy/test_exact_loss.py,gini/test_exact_loss.py,"
             "test_exact_loss_rounding.py,test_exact_loss_screen.py,engine/test_rounding.py")
_PY_EV = "pytest:test_event_families_spec.py"

# ------------------------------------------------------------ engine: neighbour generation
CATALOGUE += [
    _e("nb.no-upper", "removed-guard", "audit/privacy/neighbours.py",
       "vals = {float(self.lower), float(self.upper)}", "vals = {float(self.lower)}",
       "replace-one never replaces a record by the upper bound", "engine:neighbours",
       ("coverage:exact-loss", "test:neighbours", _PY_NB)),
    _e("nb.addremove-no-upper", "removed-guard", "audit/privacy/neighbours.py",
       "extra = {float(self.lower), float(self.upper)}", "extra = {float(self.lower)}",
       "add/remove-one never adds a record at the upper bound", "engine:neighbours",
       ("coverage:exact-loss", "test:neighbours", _PY_NB)),
    _e("nb.quantiles-no-max", "off-by-one", "audit/privacy/neighbours.py",
       "qs = {0, 1, n // 4, n // 2, (3 * n) // 4, n - 2, n - 1}",
       "qs = {0, 1, n // 4, n // 2, (3 * n) // 4, n - 2}",
       "many distinct values: the largest record is never replaced", "engine:neighbours",
       ("coverage:exact-loss", "test:neighbours", _PY_NB)),
    _e("nb.replace-rank", "off-by-one", "audit/privacy/neighbours.py",
       "if p <= i:  # v moves down", "if p < i:  # v moves down",
       "replace(): a value landing at the record's own rank overwrites its lower neighbour",
       "engine:neighbours", ("coverage:exact-loss", "test:neighbours", _PY_NB)),
    _e("nb.remove-distinct", "wrong-variable", "audit/privacy/neighbours.py",
       "for i in candidate_indices(xs, self.max_distinct):\n            yield NeighbourPair(\n"
       "                xs, np.delete(xs, i)",
       "for i in candidate_indices(xs, self.max_distinct)[:1]:\n            yield NeighbourPair("
       "\n                xs, np.delete(xs, i)",
       "add/remove-one removes only the smallest record", "engine:neighbours",
       ("test:neighbours", _PY_NB)),
]


# --------------------------------------------------- engine: the testers (statistics, ...)
_BB = "audit/privacy/blackbox/"
#: R = 200: detects 10% -> 17.5% (power 0.8); the exact CP case sees a one-ulp unsafe bound
#: the cheap dpaudit runs first: every black-box run re-counts its level exactly
#: (audit/privacy/blackbox/accounting.py), so a miscounted level fails the run itself
_COV_BB = "coverage-full:blackbox-fixed-laplace,clopper-pearson"
_TEST_FIXED = "test:directions"
_TEST_SEQ = "test:neighbours"
#: dpaudit test --first-batch 2000 --growth 3 --max-samples 18000, float-bit kind on: a
#: schedule a user sets (b_r = 2000 x 3^r lands on n_max) and both kinds sharing the level
_TEST_SCHED = "test:schedule"
_COV_EV = "coverage:blackbox-fixed,float-bits"
_COV_SEQ = "coverage-full:sequential"
_COV_EXACT = "coverage:exact-loss"
CATALOGUE += [
    _e("st.bonferroni-events", "budget-split", _BB + "statistics.py",
       "alpha / bounds, 0.0)", "alpha / max(1, bounds // 2), 0.0)",
       "Bonferroni over events instead of one-sided bounds (each bound at alpha/m)",
       "engine:statistics", (_TEST_FIXED, _COV_BB, _PY_ST)),
    _e("st.fixed-level", "budget-split", _BB + "fixed.py",
       "a_each = bonferroni_level(alpha, 2 * m)", "a_each = bonferroni_level(alpha, m)",
       "fixed schedule: the certified bounds at alpha/m instead of alpha/(2m)",
       "engine:statistics", (_TEST_FIXED, _COV_BB, _PY_ST)),
    _e("st.cp-upper-k", "off-by-one", _BB + "statistics.py",
       "aa, bb = kk + 1.0, np.maximum(nn - kk, 1.0)", "aa, bb = kk, np.maximum(nn - kk, 1.0)",
       "Clopper-Pearson upper bound from Beta(k, n - k) instead of Beta(k + 1, n - k)",
       "engine:statistics", (_TEST_FIXED, _COV_BB, _PY_ST)),
    _e("st.cp-lower-level", "constant", _BB + "statistics.py",
       "lo = _newton(special.betaincinv(aa, bb, a), aa, bb, a, upper=False)",
       "lo = _newton(special.betaincinv(aa, bb, 2 * a), aa, bb, 2 * a, upper=False)",
       "Clopper-Pearson lower bound at level 2 alpha (two-sided table read as one-sided)",
       "engine:statistics", (_TEST_FIXED, _COV_BB, _PY_ST)),
    _e("st.safety-dropped", "rounding-nudge", _BB + "statistics.py",
       "lo = np.where(kk > 0, lo * (1.0 - _SAFETY), 0.0)", "lo = np.where(kk > 0, lo, 0.0)",
       "the 2^-36 safe-direction shrink of the lower bound removed", "engine:statistics",
       (_COV_BB, _PY_ST)),
    _e("st.kinds-no-split", "budget-split", "audit/privacy/user_audit.py",
       "per_kind = confidence_share(confidence, kinds)", "per_kind = confidence",
       "dpaudit test: the real-number and float-bit kinds each at the whole confidence "
       "(no union bound over the two kinds)", "engine:statistics",
       (_TEST_SCHED, _PY_ST)),
    _e("st.certify-reused", "wrong-variable", _BB + "fixed.py",
       "        state = rng.bit_generator.state\n        try:\n            cf = t.count(",
       "        rng.bit_generator.state = rng_start[\"state\"]  # replay the stream\n"
       "        state = rng.bit_generator.state\n        try:\n            cf = t.count(",
       "fixed schedule: certification redraws the selection stream (certifies on the "
       "selection samples)", "engine:statistics", (_TEST_FIXED, _COV_BB, _PY_ST)),
    # -------------------------------------------------------------- sequential schedule
    _e("seq.full-alpha", "budget-split", _BB + "sequential.py",
       "a_look = plan.alpha_at(r)", "a_look = alpha",
       "every look spends the whole alpha (no split over the looks)", "engine:sequential",
       (_TEST_SCHED, _COV_SEQ, _PY_SEQ)),
    _e("seq.looks-minus-one", "off-by-one", _BB + "sequential.py",
       "share = ((1 - Fraction(self.by_size)) / self.looks\n",
       "share = ((1 - Fraction(self.by_size)) / (self.looks - 1)\n",
       "alpha split over looks - 1 (with 6 looks: 0.12 instead of 0.1 in total)",
       "engine:sequential", (_TEST_SEQ, _COV_SEQ, _PY_SEQ)),
    _e("seq.select-on-look", "wrong-variable", _BB + "sequential.py",
       "            ya, yb, state = new[pick.pair]\n"
       "            kf = int(np.count_nonzero(pick.event.mask(ya)))",
       "            ya, yb, state = new[pick.pair]\n"
       "            # re-select on the newest batch (the freshest outputs)\n"
       "            cand = candidates(ya, yb, settings)\n"
       "            ka, kb = cand.counts()\n"
       "            for direction, (k1, k2) in enumerate(((ka, kb), (kb, ka))):\n"
       "                score = predicted_bound(k1, k2, b, b, a_sel, a_look / 2.0, delta)\n"
       "                j = int(np.argmax(score))\n"
       "                if direction == 0 or score[j] > pick.score:\n"
       "                    pick = Pick(pick.pair, direction, cand.events[j], float(score[j]),\n"
       "                                (int(ka[j]), int(kb[j])))\n"
       "            kf = int(np.count_nonzero(pick.event.mask(ya)))",
       "each look re-selects its event on the batch it then certifies on (reused samples)",
       "engine:sequential", (_TEST_SEQ, _COV_SEQ, _PY_SEQ)),
    # ------------------------------------------------------ event families and search
    _e("ev.one-direction", "removed-guard", _BB + "select.py",
       "for direction, (kf, ko) in enumerate(((ca, cb), (cb, ca))):",
       "for direction, (kf, ko) in enumerate(((ca, cb),)):",
       "the held-out pick keeps one direction only (events favoured by D): fixed and "
       "sequential schedules never certify a leak towards D'", "engine:events",
       (_COV_EV, "test:directions")),
    _e("ev.tail-reach", "constant", _BB + "candidates.py",
       "pmin = min(0.05, max(5.0 / n, 1e-12))", "pmin = min(0.05, max(500.0 / n, 1e-12))",
       "threshold events reach only to tail probability 500/n instead of 5/n",
       "engine:events", (_COV_EV, "calibrate", _PY_EV)),
    _e("ev.no-last-bit", "off-by-one", _BB + "candidates.py",
       "for k in (1, 2, 3):", "for k in (2, 3):",
       "float-grid events on the last 2 and 3 mantissa bits only", "engine:events",
       (_COV_EV, "calibrate", _PY_EV)),
    # --------------------------------------------------------- exact-loss optimiser
    _e("el.refine-smallest", "flipped-comparison", "audit/privacy/exact_loss.py",
       "cand.sort(reverse=True)", "cand.sort()",
       "the optimiser refines the smallest local extrema of |L|", "engine:exact-loss",
       (_COV_EXACT, _PY_EXACT)),
    _e("el.one-sign", "removed-guard", "audit/privacy/exact_loss.py",
       "for sgn in (1, -1):", "for sgn in (1,):",
       "only the maxima of L are searched, not those of -L", "engine:exact-loss",
       (_COV_EXACT, _PY_EXACT)),
    # the power-law tail limit lives in the Gini subject's NoiseLaw plug-in; what it breaks
    # is the exact-loss tester's certification, so it stays in that area and run
    _e("el.tail-gamma", "dropped-factor", "proofs/gini/noise_law.py",
       "v = (mpmath.mpf(self.gamma) - 1) * mpmath.log(b / b2)",
       "v = mpmath.mpf(self.gamma) * mpmath.log(b / b2)",
       "density-(10) tail limit gamma log(b/b') instead of (gamma - 1) log(b/b')",
       "engine:exact-loss", (_COV_EXACT, _PY_EXACT)),
    _e("el.no-round-up", "rounding-nudge", "audit/privacy/exact_loss.py",
       "up, down = float_up(v_hi + tol), max(0.0, float_down(v_hi - tol))",
       "up, down = float(v_hi), max(0.0, float(v_hi))",
       "the certified loss rounded to nearest instead of outward", "engine:exact-loss",
       (_COV_EXACT, _PY_EXACT)),
    _e("el.certify-least", "flipped-comparison", "audit/privacy/exact_loss.py",
       "for e in sorted(evaluated, key=lambda e: e.screen, reverse=True):",
       "for e in sorted(evaluated, key=lambda e: e.screen):",
       "worst-neighbour search certifies the least lossy pairs", "engine:exact-loss",
       (_COV_EXACT, _PY_EXACT)),
]


# ------------------------------------------------------ engine: CSV reading, confidentiality
_DS = "audit/datasets.py"
_CF = "audit/report/confidentiality.py"
#: the areas' test files (the kill table's pytest column; never counted as a command kill)
_PY_CSV = "pytest:test_reader_rules.py,test_datasets.py,test_datasets_fast.py"
_PY_CONF = "pytest:report/test_confidentiality.py,test_public_filter_adversarial.py"
CATALOGUE += [
    _e("csv.blank-middle", "removed-guard", _DS,
       "            if pending_blank_lines:\n                raise DataFileError(",
       "            if pending_blank_lines and False:\n                raise DataFileError(",
       "careful path: a blank line inside the data silently skipped", "engine:csv",
       ("csv", _PY_CSV)),
    _e("csv.extra-fields", "flipped-comparison", _DS,
       "if len(row) != width:", "if len(row) < width:",
       "careful path: rows with more fields than the header accepted", "engine:csv",
       ("csv", _PY_CSV)),
    _e("csv.overflow", "removed-guard", _DS,
       "    if not math.isfinite(value):", "    if math.isnan(value):",
       "careful path: a value overflowing to infinity accepted", "engine:csv", ("csv", _PY_CSV)),
    _e("csv.bom", "wrong-variable", _DS,
       'with open(path, encoding="utf-8-sig", newline="") as fh:',
       'with open(path, encoding="utf-8", newline="") as fh:',
       "careful path: the byte-order mark kept in the first header name", "engine:csv",
       ("csv", _PY_CSV)),
    _e("csv.dup-column", "off-by-one", _DS,
       "if len(matches) > 1:", "if len(matches) > 2:",
       "a column name appearing twice silently resolves to the first", "engine:csv",
       ("csv", _PY_CSV)),
    _e("csv.fast-blank-line", "removed-guard", _DS,
       'if block.startswith((b"\\n", b"\\r\\n")) or b"\\n\\n" in block:',
       'if block.startswith((b"\\n", b"\\r\\n")):',
       "fast path: an empty line inside the data no longer sends the file to the careful "
       "path (numpy skips it)", "engine:csv", ("csv", _PY_CSV)),
    _e("csv.fast-commas", "off-by-one", _DS,
       "if not np.all(per_line == width - 1):", "if not np.all(per_line >= width - 1):",
       "fast path: lines with extra fields accepted", "engine:csv", ("csv", _PY_CSV)),
    _e("csv.number-regex", "constant", _DS,
       '_NUMBER = re.compile(r"[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?")',
       '_NUMBER = re.compile(r"[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?|nan")',
       "careful path: 'nan' accepted as a number", "engine:csv", ("csv", _PY_CSV)),
    # ------------------------------------------------------------ confidentiality filter
    _e("conf.key-confidential", "removed-guard", _CF,
       "        return {k: _strip(v) for k, v in obj.items() if k != MARK}",
       "        return {k: _strip(v) for k, v in obj.items()}",
       "'confidential' sub-dicts (of evidence, parameters, certification) no longer withheld",
       "engine:confidentiality", ("confidentiality", _PY_CONF)),
    _e("conf.finding-confidential", "removed-guard", _CF,
       'if k not in (MARK, "counterexample", "duration_s")}',
       'if k not in ("counterexample", "duration_s")}',
       "a Finding's confidential part kept in the public view", "engine:confidentiality",
       ("confidentiality", _PY_CONF),
       equivalent="public_view ends with _strip(out), which removes every 'confidential' "
       "key at any depth of the public report, the findings' included, after "
       "_public_finding and _verdict_only: the finding's own exclusion of the key is "
       "redundant, the public report is the same for every report (measured: survives "
       "certify and test --data on 24d67b5 and on this branch)"),
    _e("conf.evidence-unstripped", "removed-guard", _CF,
       'out["evidence"] = _strip(out.get("evidence") or {})',
       'out["evidence"] = out.get("evidence") or {}',
       "a finding's evidence copied whole (its 'confidential' parts kept)",
       "engine:confidentiality", ("confidentiality", _PY_CONF),
       equivalent="no producer puts a 'confidential' part inside a finding's evidence today "
       "(certify and dpaudit test use Finding.confidential and parameters['confidential']): "
       "the strip guards future producers"),
    _e("conf.figures-untagged", "flipped-comparison", _CF,
       'if isinstance(f, dict) and f.get("confidentiality") == "public"]',
       'if isinstance(f, dict) and f.get("confidentiality") != "confidential"]',
       "figures kept unless tagged confidential (untagged and 'relative' ones reach the "
       "public report)", "engine:confidentiality", ("confidentiality", _PY_CONF)),
    # conf.relative-label is gone: it dropped the x-label test that let a 'relative' figure
    # through when its axis was in noise-scale units; the public view now keeps only figures
    # tagged "public" (no label rule left), and keeping 'relative' figures is what
    # conf.figures-untagged does.
    _e("conf.show-inverted", "flipped-comparison", _CF,
       '    if block.get("show_confidential"):\n        return {**report',
       '    if not block.get("show_confidential"):\n        return {**report',
       "the report left unstripped unless --show-confidential was given",
       "engine:confidentiality", ("confidentiality", _PY_CONF)),
    _e("conf.lists-not-walked", "removed-guard", _CF,
       "    if isinstance(obj, list | tuple):\n        return [_strip(",
       "    if isinstance(obj, list | tuple) and False:\n        return [_strip(",
       "'confidential' parts inside lists (e.g. per-pair evidence) not removed",
       "engine:confidentiality", ("confidentiality", _PY_CONF)),
    # the writer's canary plants one in every dict, lists of dicts included
    # (audit/report/public_check.py): no longer equivalent
    # conf.records-key is gone: it removed "records" from a list of secret key names, and
    # the public view no longer consults any key list (confidential values are marked where
    # they are produced), so there is no such list left to get wrong.
]


# ------------------------------------------- more engine mutants: realistic maintainer bugs
_NB = "audit/privacy/neighbours.py"
_SEQ = _BB + "sequential.py"
_EL = "audit/privacy/exact_loss.py"
CATALOGUE += [
    # neighbour generation
    _e("nb.add-unsorted", "removed-guard", _NB,
       'xs, np.sort(np.append(xs, v)), ADD_REMOVE_ONE, {"op": "add", "new": v}',
       'xs, np.append(xs, v), ADD_REMOVE_ONE, {"op": "add", "new": v}',
       "add-one: the added record appended unsorted (callers assume sorted data sets)",
       "engine:neighbours", ("test:neighbours", _PY_NB)),
    _e("nb.values-outside", "removed-guard", _NB,
       "vals |= {float(v) for v in self.values if self.lower <= v <= self.upper}",
       "vals |= {float(v) for v in self.values}",
       "replace-one: extra values (e.g. from the optimiser) outside [L, U] proposed",
       "engine:neighbours", ("test:neighbours", _PY_NB)),
    _e("nb.remove-rank-label", "off-by-one", _NB,
       '{"op": "remove", "rank": i,', '{"op": "remove", "rank": i + 1,',
       "remove-one: the change names the next record (a replay rebuilds another neighbour)",
       "engine:neighbours", ("coverage:exact-loss", _PY_NB)),
    _e("nb.skip-equal-flip", "flipped-comparison", _NB,
       "                if v == xs[i]:\n                    continue",
       "                if v != xs[i]:\n                    continue",
       "replace-one: the identity pairs kept, every real change skipped",
       "engine:neighbours", ("test:neighbours", _PY_NB)),
    # sequential schedule
    _e("seq.certify-full-look-level", "budget-split", _SEQ,
       "c = certify_pick(pick, pairs[pick.pair], kf, ks, b, a_look / 2.0, d_out or 1, delta)",
       "c = certify_pick(pick, pairs[pick.pair], kf, ks, b, a_look, d_out or 1, delta)",
       "the look's certificate (its reported epsilon_lower) at alpha_look per bound instead "
       "of alpha_look / 2", "engine:sequential", (_TEST_SEQ, _COV_SEQ, _PY_SEQ)),
    _e("seq.decide-full-level", "budget-split", _SEQ,
       "    a = alpha_look / 2.0\n", "    a = alpha_look\n",
       "the look's flag/clear decision from bounds at alpha_look each (two of them per look)",
       "engine:sequential", (_TEST_SEQ, _TEST_SCHED, _COV_SEQ, _PY_SEQ)),
    # reachable by a user: --first-batch F --max-samples F x growth^k (e.g. 2000 x 3^2)
    _e("seq.schedule-short", "flipped-comparison", _SEQ,
       "while batches[-1] * growth <= n_max:", "while batches[-1] * growth < n_max:",
       "the schedule stops one round early when a batch lands exactly on n_max",
       "engine:sequential", (_TEST_SCHED, _PY_SEQ)),
    # reachable by a user: dpaudit test --growth (BlackBoxTester.seq_growth in the API)
    _e("seq.growth-ignored", "constant", _SEQ,
       "batches.append(batches[-1] * int(growth))", "batches.append(batches[-1] * 2)",
       "batches always double (seq_growth ignored): other looks than the schedule states",
       "engine:sequential", (_TEST_SCHED, _PY_SEQ)),
    _e("seq.alpha-from-selection", "wrong-variable", _SEQ,
       "    alpha = 1.0 - float(t.confidence)\n    plan = schedule(",
       "    alpha = 1.0 - float(t.selection_confidence)\n    plan = schedule(",
       "the looks split 1 - selection_confidence (0.05) instead of 1 - confidence (0.1): "
       "conservative, but not the stated schedule (power lost)", "engine:sequential",
       (_TEST_SCHED, _COV_SEQ, _PY_SEQ)),
    # exact-loss optimiser
    _e("el.agree-loose", "constant", _EL,
       "_AGREE_EXP = 25  # the two precisions", "_AGREE_EXP = 8  # the two precisions",
       "the two precisions need only agree to 1e-8 (the certified interval widens by 1e-8)",
       "engine:exact-loss", (_COV_EXACT, _PY_EXACT)),
    _e("el.float-down-flip", "flipped-comparison", "audit/rounding.py",
       "return math.nextafter(f, -math.inf) if _above(f, v) else f",
       "return math.nextafter(f, -math.inf) if _below(f, v) else f",
       "value_down rounded the wrong way (may exceed the real loss by an ulp)",
       "engine:exact-loss", (_COV_EXACT, _PY_EXACT)),
    _e("el.screen-one-sided", "removed-guard", _EL,
       "    return float(np.max(np.abs(_L_float(mech, y, a, b, a2, b2))))",
       "    return float(np.max(_L_float(mech, y, a, b, a2, b2)))",
       "the grid screen (laws without a closed form) ranks neighbours by max L, not max |L|",
       "engine:exact-loss", (_COV_EXACT, _PY_EXACT)),
    # confidentiality: producers and writer
    _e("conf.scope-copies-confidential", "wrong-variable", "audit/findings.py",
       '"scope": self.scope,',
       '"scope": self.scope + (f" (detail: {self.confidential})" if self.confidential '
       'else ""),',
       "a Finding's confidential part copied into its public summary (scope text)",
       "engine:confidentiality", ("confidentiality", _PY_CONF)),
    _e("conf.counterexample-public", "wrong-variable", "audit/report/writer.py",
       "    _stamp_public(directory, report, _write_rendered(directory, public))",
       "    _stamp_public(directory, report, _write_rendered(\n"
       "        directory, public if secret is None else (*public[:3], secret[3])))",
       "the confidential counterexamples also written beside the public report",
       "engine:confidentiality", ("confidentiality", _PY_CONF)),
    _e("conf.plain-sha256", "removed-guard", "audit/fingerprint.py",
       "return PREFIX + hmac.new(key, canonical_bytes(xs), hashlib.sha256).hexdigest()",
       "return PREFIX + hashlib.sha256(canonical_bytes(xs)).hexdigest()",
       "the data fingerprint a plain SHA-256 of the records (dictionary attack: a reader "
       "knowing all records but one recovers it)", "engine:confidentiality",
       ("confidentiality", _PY_CONF)),
    _e("conf.file-sha-kept", "removed-guard", "audit/fingerprint.py",
       'out = {k: v for k, v in source.items() if k != "file_sha256"}',
       "out = dict(source)",
       "the file's plain SHA-256 kept next to its keyed fingerprint", "engine:confidentiality",
       ("confidentiality", _PY_CONF)),
]


# ------------------------------------------- engine: the claim tester (dpaudit test --claim)
_CL = "audit/privacy/claims/"
#: dpaudit test --claim gdp / zcdp on a Gaussian at the claim and on its sigma-halved twin
#: (tests/bench/mutation_kill.py: the claim tester's in-run accounting, exit 4, and its power)
_TEST_CLAIMS = "test:claims"
_PY_CL = ("pytest:test_claim_accounting.py,test_claim_certify.py,test_histogram_renyi.py,"
          "test_claim_cli.py")


def _cl(id: str, op: str, file: str, old: str, new: str, what: str) -> Mutant:
    """A claim-tester mutant (area ``engine:claims``, the ``test:claims`` run and the area's
    test files); ``file`` under audit/privacy/claims/."""
    return _e(id, op, _CL + file, old, new, what, "engine:claims", (_TEST_CLAIMS, _PY_CL))


CATALOGUE += [
    _cl("claims.event-one-factor", "budget-split", "certify.py",
       "a_each = bonferroni_level(alpha, 2)", "a_each = bonferroni_level(alpha, 1)",
       "the event certificate's two bounds each at the whole alpha (Bonferroni factor 2 "
       "dropped)"),
    _cl("claims.hist-bins-level", "budget-split", "histogram_renyi.py",
       "level = bonferroni_level(1.0 - float(t.confidence), 2 * (BINS + 1))",
       "level = bonferroni_level(1.0 - float(t.confidence), BINS + 1)",
       "the histogram's level split over one bound per bin instead of two"),
    _cl("claims.no-half-split", "budget-split", "user_claim.py",
       "confidence=share,", "confidence=conf,",
       "zCDP / RDP (and a Gaussian family part): each certificate spends the whole alpha"),
    _cl("claims.corner-level", "constant", "certify.py",
       "a_up, b_up = certified_corner(k_oth, k_fav, n_cert, a_each)",
       "a_up, b_up = certified_corner(k_oth, k_fav, n_cert, 2 * a_each)",
       "the corner's bounds computed at twice the level the run records"),
    _cl("claims.corner-swapped", "swapped-args", "certify.py",
       "a_up, b_up = certified_corner(k_oth, k_fav, n_cert, a_each)",
       "a_up, b_up = certified_corner(k_fav, k_oth, n_cert, a_each)",
       "the corner from the swapped counts (conservative: a refutation is never certified)"),
    _cl("claims.hist-direction", "swapped-args", "histogram_renyi.py",
       "kp, kq = (ca, cb) if direction == 0 else (cb, ca)",
       "kp, kq = (cb, ca) if direction == 0 else (ca, cb)",
       "the histogram's bounds from the other direction than the one selected"),
    _cl("claims.hist-rho-order", "dropped-factor", "histogram_renyi.py",
       "rho = mp.down(mpmath.mpf(d) / mp.exact(alpha)) if math.isfinite(d) else 0.0",
       "rho = mp.down(mpmath.mpf(d)) if math.isfinite(d) else 0.0",
       "zCDP from the histogram: rho = D_alpha instead of D_alpha / alpha"),
]


# issue 39 part B (exact-loss search, neighbour search, samplers): tests/bench/mutations_areas.py
from mutations_areas import AREA_ENGINE_MODULES, area_mutants, with_self_check_runs  # noqa: E402

CATALOGUE = with_self_check_runs(CATALOGUE + area_mutants(_m, _e))
ENGINE_MODULES += AREA_ENGINE_MODULES

def by_id(mid: str) -> Mutant:
    for m in CATALOGUE:
        if m.id == mid:
            return m
    raise KeyError(mid)


def check_anchors() -> list[str]:
    """Problems with the catalogue: anchors missing or not unique, duplicate ids."""
    out = []
    seen = set()
    for m in CATALOGUE:
        if m.id in seen:
            out.append(f"duplicate id {m.id}")
        seen.add(m.id)
        text = m.path.read_text()
        if text.count(m.old) != 1:
            out.append(f"{m.id}: anchor found {text.count(m.old)} times in {m.file}")
        if m.old == m.new:
            out.append(f"{m.id}: no change")
    return out


def modules_covered() -> dict[str, int]:
    """Mutants per covered module (kernel modules relative to kernels/, engine modules to
    the repository root)."""
    counts: dict[str, int] = {}
    for m in CATALOGUE:
        counts[m.file] = counts.get(m.file, 0) + 1
    return counts


def make_copy(root: Path, pkg: str, mutant: Mutant | None, *, rename: bool = True) -> Path:
    """Write ``root/<pkg>/`` = a copy of ``kernels/`` with ``mutant`` applied (None: the
    unmutated control).  ``rename``: rewrite the package's own imports to ``pkg`` (needs
    ``pkg != "kernels"`` to coexist with the real package)."""
    dst = root / pkg
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(KERNELS, dst, ignore=shutil.ignore_patterns("__pycache__"))
    for f in dst.rglob("*.py"):
        text = f.read_text()
        if rename:
            text = re.sub(r"\bfrom kernels\b", f"from {pkg}", text)
            text = re.sub(r"\bimport kernels\b", f"import {pkg}", text)
        if mutant is not None and f.relative_to(dst).as_posix() == mutant.file:
            if text.count(mutant.old) != 1:
                raise ValueError(f"mutation anchor of {mutant.id} not unique/found in "
                                 f"{mutant.file}")
            text = text.replace(mutant.old, mutant.new)
        f.write_text(text)
    return dst


def make_tree(root: Path, mutant: Mutant | None) -> Path:
    """Write ``root/{audit,kernels,proofs}`` = copies of this checkout's packages with
    ``mutant`` applied (None: the unmutated control).  With ``PYTHONPATH=root`` a subprocess
    runs dpaudit on the copy (it shadows the installed packages).  Returns ``root``."""
    for pkg in TREE_PACKAGES:
        dst = root / pkg
        if dst.exists():
            shutil.rmtree(dst)
        shutil.copytree(ROOT / pkg, dst, ignore=shutil.ignore_patterns("__pycache__"))
    if mutant is not None:
        rel = mutant.file if mutant.engine else f"kernels/{mutant.file}"
        f = root / rel
        text = f.read_text()
        if text.count(mutant.old) != 1:
            raise ValueError(f"mutation anchor of {mutant.id} not unique/found in {rel}")
        f.write_text(text.replace(mutant.old, mutant.new))
    return root


def import_copy(root: Path, pkg: str, module: str) -> ModuleType:
    """Import ``<pkg>.<module>`` from a copy written by :func:`make_copy` under ``root``."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    return importlib.import_module(f"{pkg}.{module}")
