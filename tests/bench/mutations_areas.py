"""Mutation catalogue, issue 39 part B: the exact-loss search, the neighbour search and the
samplers (every noise law's inverse cdf / sampling, in ``kernels/`` and in ``audit/``).

Plausible maintainer slips, one source-level edit each (the same :class:`mutations.Mutant`
records as ``tests/bench/mutations.py``, which appends :func:`area_mutants` to its
CATALOGUE; ``tests/bench/mutation_kill.py`` runs them).  Engine mutants name the dpaudit
runs that apply (``calibrate``: ``dpaudit calibrate --quick``, whose planted-truth checks
are :mod:`audit.privacy.search_reach` and :mod:`audit.privacy.sampler_fit`; ``regress``:
``dpaudit regress --quick`` over every subject, which runs the same engine self-checks;
``coverage:exact-loss``; ``test:neighbours``).  Kernel mutants are run by the subject's own
regress suite, certify and search, as every kernel mutant.

Nothing here imports the catalogue module: :func:`area_mutants` receives its two
constructors, so ``mutations.py`` can append these without an import cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

__all__ = ["AREA_ENGINE_MODULES", "SELF_CHECK_RUNS", "area_mutants", "with_self_check_runs"]

_EL = "audit/privacy/exact_loss.py"
_NB = "audit/privacy/neighbours.py"
#: engine modules this file adds to the catalogue's coverage list
AREA_ENGINE_MODULES: tuple[str, ...] = (
    "audit/privacy/mechanisms.py",
    "audit/privacy/coverage_calibration.py",
    "audit/privacy/claims/references.py",
    "audit/privacy/tabular.py",
)

_SEARCH = ("calibrate", "regress", "coverage:exact-loss")
_NEIGH = ("calibrate", "regress", "test:neighbours", "coverage:exact-loss")
_SAMPLE = ("calibrate", "regress")


#: the catalogue's earlier exact-loss / neighbour mutants are also run through the commands
#: whose engine self-checks now cover their area
SELF_CHECK_RUNS: tuple[str, ...] = ("calibrate", "regress")


def with_self_check_runs(catalogue: list[Any]) -> list[Any]:
    """``catalogue`` with :data:`SELF_CHECK_RUNS` added to every engine mutant of the
    exact-loss and neighbour areas that lacks them (nothing else changes)."""
    out = []
    for mu in catalogue:
        if mu.area_name in ("engine:exact-loss", "engine:neighbours"):
            extra = tuple(r for r in SELF_CHECK_RUNS if r not in mu.runs)
            mu = replace(mu, runs=mu.runs + extra)
        out.append(mu)
    return out


def area_mutants(m: Callable[..., Any], e: Callable[..., Any]) -> list[Any]:
    """The mutants of the three areas; ``m`` / ``e`` are the catalogue's kernel / engine
    constructors (``mutations._m`` / ``mutations._e``).  Kernel sampler mutants keep their
    subject's area (their kill rate is also reported under ``samplers`` by id prefix
    ``smp.``)."""
    return [
        # ------------------------------------------------ exact-loss search (over outputs)
        e("els.grid-narrow", "constant", _EL,
          "_GRID_SPAN = 1e9  # |y - c| up to", "_GRID_SPAN = 1e3  # |y - c| up to",
          "the output grid reaches 1e3 scales from each centre instead of 1e9 (an extremum "
          "of L further out is never bracketed)", "engine:exact-loss", _SEARCH),
        e("els.best-skipped", "off-by-one", _EL,
          "cand = cand[:candidates]", "cand = cand[1:candidates]",
          "the largest grid extremum of |L| is left out of the refinement (slice from 1)",
          "engine:exact-loss", _SEARCH),
        e("els.one-kink", "removed-guard", _EL,
          "for yk in (A, A2):  # kinks", "for yk in (A,):  # kinks",
          "only the first output's centre is evaluated as a kink (the neighbour's never)",
          "engine:exact-loss", _SEARCH,
          equivalent="the output grid always contains both centres exactly (_grid appends "
          "[a, a2]): a supremum at the neighbour's centre is the largest grid extremum of |L|, "
          "so it is among the refined candidates, whose bracket [y_(i-1), y_(i+1)] contains "
          "the kink; the golden-section branch converges to it within 1e-45 relative, far "
          "below the 1e-25 agreement tolerance and the float rounding of the certified "
          "figures (measured: calibrate, regress and coverage:exact-loss all unchanged)"),
        e("els.tail-one-side", "removed-guard", _EL,
          "tail_abs = max(abs(t_plus), abs(t_minus))", "tail_abs = abs(t_plus)",
          "only the y -> +inf tail limit compared with the interior (the -inf side dropped)",
          "engine:exact-loss", _SEARCH),
        e("els.refine-up-only", "wrong-variable", _EL,
          'key = (int(c["rank"]), direction)', 'key = (int(c["rank"]), "up")',
          "the optimiser treats every replacement as upward: new values below a record are "
          "never optimised", "engine:exact-loss", _SEARCH),
        e("els.refine-least", "flipped-comparison", _EL,
          "chosen = sorted(best.items(), key=lambda t: t[1], reverse=True)[:k]",
          "chosen = sorted(best.items(), key=lambda t: t[1])[:k]",
          "the optimiser refines the k least promising records instead of the k best",
          "engine:exact-loss", _SEARCH),
        e("els.add-half-range", "constant", _EL,
          'return [({"op": "add"}, lo, hi)]', 'return [({"op": "add"}, lo, (lo + hi) / 2)]',
          "add/remove: the added value is optimised over the lower half of [L, U] only",
          "engine:exact-loss", _SEARCH),
        e("els.worst-is-least", "flipped-comparison", _EL,
          "top.sort(key=lambda e: e.epsilon_up, reverse=True)",
          "top.sort(key=lambda e: e.epsilon_up)",
          "the certified pairs sorted ascending: the reported worst pair is the least lossy "
          "of the certified ones", "engine:exact-loss", _SEARCH),
        # -------------------------------------------------------------- neighbour search
        e("nbs.first-distinct-dropped", "off-by-one", _NB,
          "first = np.concatenate([[0], np.flatnonzero(change) + 1])",
          "first = np.flatnonzero(change) + 1",
          "few distinct values: the smallest record is never a candidate (the run starts "
          "after it)", "engine:neighbours", _NEIGH),
        e("nbs.quantiles-no-min", "off-by-one", _NB,
          "qs = {0, 1, n // 4, n // 2, (3 * n) // 4, n - 2, n - 1}",
          "qs = {1, n // 4, n // 2, (3 * n) // 4, n - 2, n - 1}",
          "many distinct values: the smallest record is never replaced or removed",
          "engine:neighbours", _NEIGH),
        e("nbs.distinct-bound", "off-by-one", _NB,
          "if int(np.count_nonzero(change)) + 1 <= max_distinct:",
          "if int(np.count_nonzero(change)) + 1 < max_distinct:",
          "exactly max_distinct (64) distinct values fall back to the seven order statistics",
          "engine:neighbours", _NEIGH),
        e("nbs.no-data-values", "removed-guard", _NB,
          "        vals |= {float(xs[i]) for i in idx}\n",
          "",
          "replace-one proposes only L, U and the extra values (never another record's value)",
          "engine:neighbours", _NEIGH),
        e("nbs.search-add-lower-only", "removed-guard", _EL,
          "extra = {float(lo), float(hi)} | {float(v) for v in values if lo <= v <= hi}",
          "extra = {float(lo)} | {float(v) for v in values if lo <= v <= hi}",
          "the exact-loss search's add/remove candidates never add a record at U",
          "engine:neighbours", _NEIGH),
        e("nbs.relation-default", "wrong-variable", _EL,
          "rel = mech.relation if relation is None else relation",
          "rel = REPLACE_ONE if relation is None else relation",
          "the search's relation defaults to replace-one instead of the mechanism's own "
          "(an add/remove mechanism is refused)", "engine:neighbours", _NEIGH),
        # ---------------------------------------------------------------------- samplers
        m("smp.powerlaw-polish-once", "constant", "gini/noise.py",
          "    for _ in range(2):\n        xs = x[ok]",
          "    for _ in range(1):\n        xs = x[ok]",
          "the density-(10) quantile takes one Newton step instead of two", ("noise.ppf",)),
        m("smp.powerlaw-tail-series", "removed-guard", "gini/noise.py",
          "tiny = (x < _TINY) & (y > 0)", "tiny = (x < 0) & (y > 0)",
          "the density-(10) quantile never inverts the leading series term (q below ~1e-280 "
          "/ w underflowing)", ("noise.ppf",)),
        m("smp.powerlaw-polish-clip", "constant", "gini/noise.py",
          "np.clip(step, -0.5, 0.5)", "np.clip(step, -0.5, 0.0)",
          "the quantile's Newton step may only shrink |z| (a low start is never corrected)",
          ("noise.ppf",)),
        m("smp.liu-lap-ppf-factor", "dropped-factor", "global_sensitivity/releases.py",
          "mu + b * np.log(2 * np.maximum(u, 1e-300))", "mu + b * np.log(np.maximum(u, 1e-300))",
          "the Laplace inverse cdf's lower half without the factor 2 (truncated release)"),
        m("smp.liu-lap-ppf-sign", "sign-flip", "global_sensitivity/releases.py",
          "mu - b * np.log(2 * np.maximum(1 - u, 1e-300))",
          "mu + b * np.log(2 * np.maximum(1 - u, 1e-300))",
          "the Laplace inverse cdf's upper half mapped below the centre"),
        m("smp.liu-trunc-u", "dropped-factor", "global_sensitivity/releases.py",
          "u = f_lo + (f_hi - f_lo) * rng.random(size)", "u = f_lo + f_hi * rng.random(size)",
          "the truncated Laplace's uniform spans [F(lo), F(lo) + F(hi)] (mass piles at hi)"),
        m("smp.dick-piece-edges", "off-by-one", "subset_optimal/thresholds.py",
          "lo, hi = p.edges[k], p.edges[k + 1]",
          "lo, hi = p.edges[np.maximum(k - 1, 0)], p.edges[k]",
          "Algorithm 2's sampler draws inside the piece left of the one chosen"),
        e("smp.mech-gauss-scale", "noise-scale", "audit/privacy/mechanisms.py",
          "rng.normal(0.0, self.scale * math.sqrt(2.0), size)",
          "rng.normal(0.0, self.scale, size)",
          "the Gaussian location-scale mechanism samples with sd b instead of b sqrt(2) (its "
          "declared law has variance 2 b^2)", "engine:samplers", _SAMPLE),
        e("smp.mech-laplace-one-sided", "sign-flip", "audit/privacy/mechanisms.py",
          "return v + rng.laplace(0.0, self.scale, size)",
          "return v + rng.exponential(self.scale, size)",
          "the Laplace mechanism adds exponential noise (one sign only)", "engine:samplers",
          _SAMPLE),
        e("smp.geometric-p", "swapped-args", "audit/privacy/coverage_calibration.py",
          "g = rng.geometric(p, size) - rng.geometric(p, size)",
          "g = rng.geometric(self.q, size) - rng.geometric(self.q, size)",
          "the two-sided geometric draws with success probability q instead of 1 - q",
          "engine:samplers", _SAMPLE + ("coverage:exact-loss",)),
        e("smp.discrete-gauss-shift", "off-by-one", "audit/privacy/claims/references.py",
          "g1 = rng.geometric(1.0 - math.exp(-1.0 / t), m) - 1\n",
          "g1 = rng.geometric(1.0 - math.exp(-1.0 / t), m)\n",
          "the discrete Gaussian's discrete-Laplace proposal shifted by one (bias +1)",
          "engine:samplers", _SAMPLE),
        # ------------- the reader's record off the single-process path (issue 39, round 3;
        # run ``reader``: certify --workers 2 and test --data --columns, each of which said
        # exit 0 on these before the record covered its path)
        e("rdp.dask-skip-first", "off-by-one", "audit/datasets.py",
          'return _loadtxt_values(io.StringIO(block.decode("ascii"), newline=None), layout)',
          'return _loadtxt_values(io.StringIO(block.decode("ascii"), newline=None), layout,\n'
          '                           skiprows=0 if layout.headerless else 1)',
          "the Dask read's block parser skips a header line that is not in its byte range "
          "(the fast path's skiprows copied): the first record of every block dropped",
          "engine:csv", ("reader",)),
        e("rdp.table-file-order", "wrong-variable", "audit/privacy/tabular.py",
          "t = Table(tuple(columns), t.rows[:, idx])",
          "t = Table(tuple(columns), t.rows[:, sorted(idx)])",
          "--columns b,a: the cells kept in the file's column order under the names asked "
          "for (column a read as b)", "engine:csv", ("reader",)),
        e("rdp.table-skip-first", "off-by-one", "audit/privacy/tabular.py",
          "header, body = reader[0], reader[1:]", "header, body = reader[0], reader[2:]",
          "a CSV table's first data row skipped (the header counted twice)",
          "engine:csv", ("reader",)),
    ]
