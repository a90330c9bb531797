"""Mutation test of the auditor: plausible bugs injected into a copy of the kernels must
each be caught (a check refuted) by the regress cross-checks.

Each mutant is a source-level edit of a fresh copy of ``kernels/`` (imported as its own
package), audited through its ``api`` module exactly as ``dpaudit regress --kernels``
would.  The default run gives each mutant the checks of the area it mutates (stopping at
the first refutation); ``-m slow`` runs the *whole* quick regress on every mutant.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import shutil
import sys
from pathlib import Path

import pytest

from audit.findings import Verdict
from proofs.gini.regress import Context, run_checks

KERNELS = Path(__file__).resolve().parents[2] / "kernels"

# (name, file, exact old text, new text, check-id prefixes that own this area)
MUTANTS: list[tuple[str, str, str, str, tuple[str, ...]]] = [
    ("off-by-one window (max Gini never replaces the top k)", "gini/extremes.py",
     "hi = n - kk  # predicate domain", "hi = n - kk - 1  # predicate domain",
     ("extremes.max-gini",)),
    ("n instead of n-1 in the eq.-(2) denominator", "gini/index.py",
     "return float(num / ((xs.size - 1) * tot))", "return float(num / (xs.size * tot))",
     ("gini.eq2",)),
    ("wrong beta (Section 2.3's eps/gamma in the alg3 rule)", "gini/release.py",
     "alpha, beta = eps / (4 * g), eps / (2 * (g + 1))", "alpha, beta = eps / (4 * g), eps / g",
     ("release.", "constants.")),
    ("missing k = 0 term in the smooth sensitivity", "gini/sensitivity.py",
     "    k0 = 0\n    while k0 <= cap:", "    k0 = 1\n    while k0 <= cap:",
     ("smooth.",)),
    ("sampler with the wrong density (Cauchy for every gamma)", "gini/noise.py",
     "mag = magnitude(g1, g2)\n", "mag = np.abs(rng.standard_cauchy(size=shape))\n",
     ("noise.sampler",)),
    ("in-place sort of the caller's array", "validate.py",
     "return np.sort(out)  # a fresh array", "return (out.sort(), out)[1]  # a fresh array",
     ("input.",)),
    ("min Gini drops the above-block distances", "gini/extremes.py",
     "num = nblock[idx] + k * (below + above)", "num = nblock[idx] + k * below",
     ("extremes.min-gini",)),
    ("min mean replaces by U instead of L", "gini/extremes.py",
     "min_mean = ((P[n - ks] + ks * _ACC(lower)) / n)",
     "min_mean = ((P[n - ks] + ks * _ACC(upper)) / n)", ("extremes.min-mean",)),
    ("printed factor of eq. (22) (max g + 1 - 2/(n-1))", "gini/sensitivity.py",
     "c2a = D * (g_hi + 1.0) / den2", "c2a = D * (g_hi + 1.0 - 2.0 / (n - 1)) / den2",
     ("bound.thm43",)),
    ("max mean keeps the k smallest", "gini/extremes.py",
     "max_mean = ((P[n] - P[ks] + ks * _ACC(upper)) / n)",
     "max_mean = ((P[n] - P[ks - 1] + ks * _ACC(upper)) / n)", ("extremes.max-mean",)),
]


def _make_mutant(tmp: Path, idx: int, file: str, old: str, new: str):
    pkg = f"kmut{idx}"
    dst = tmp / pkg
    shutil.copytree(KERNELS, dst, ignore=shutil.ignore_patterns("__pycache__"))
    for f in dst.rglob("*.py"):
        text = f.read_text()
        text = re.sub(r"\bfrom kernels\b", f"from {pkg}", text)
        text = re.sub(r"\bimport kernels\b", f"import {pkg}", text)
        if f.relative_to(dst).as_posix() == file:
            assert text.count(old) == 1, f"mutation anchor not unique/found in {file}: {old!r}"
            text = text.replace(old, new)
        f.write_text(text)
    # the copy is loaded as package ``pkg`` from its folder (no sys.path edit): its
    # sub-modules are found through the package's own __path__
    spec = importlib.util.spec_from_file_location(pkg, dst / "__init__.py",
                                                  submodule_search_locations=[str(dst)])
    assert spec is not None and spec.loader is not None
    for name in [m for m in sys.modules if m == pkg or m.startswith(pkg + ".")]:
        del sys.modules[name]  # an earlier copy with the same name
    sys.modules[pkg] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sys.modules[pkg])
    return importlib.import_module(f"{pkg}.gini.api")


def _caught(mod, prefixes: tuple[str, ...] | None) -> list[str]:
    only = None if prefixes is None else (lambda c: c.id.startswith(prefixes))
    fs = run_checks(mod, "mutant", Context(seed=0, mode="quick"), only=only, stop_on_refute=True)
    return [f.id for f in fs if f.verdict == Verdict.REFUTED]


@pytest.mark.parametrize("idx", range(len(MUTANTS)), ids=[m[0] for m in MUTANTS])
def test_mutant_is_caught_by_its_area_checks(idx: int, tmp_path: Path) -> None:
    name, file, old, new, prefixes = MUTANTS[idx]
    mod = _make_mutant(tmp_path, idx, file, old, new)
    assert _caught(mod, prefixes), f"mutant survived: {name}"


@pytest.mark.slow
@pytest.mark.parametrize("idx", range(len(MUTANTS)), ids=[m[0] for m in MUTANTS])
def test_mutant_is_caught_by_whole_regress(idx: int, tmp_path: Path) -> None:
    name, file, old, new, _ = MUTANTS[idx]
    mod = _make_mutant(tmp_path, 100 + idx, file, old, new)
    assert _caught(mod, None), f"mutant survived the whole quick regress: {name}"


def test_unmutated_copy_passes(tmp_path: Path) -> None:
    """Control: the same copying machinery without a mutation is not flagged (so a kill
    above is due to the mutation, not to the copy)."""
    same = "import numpy as np\n"
    mod = _make_mutant(tmp_path, 999, "gini/index.py", same, same)
    prefixes = tuple({p for m in MUTANTS for p in m[4]})
    assert _caught(mod, prefixes) == []
