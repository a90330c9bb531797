"""Tumult Core's zCDP Gaussian audited with the claim Tumult states (issue 40): the event
claim tester (with the histogram certificate, as ``dpaudit test --claim`` runs zCDP) and
the Gaussian family tester, on ``AddGaussianNoise(sigma^2 = 1)`` applied to a sum of records
in [0, 1] (replace-one, d_in = 1: Tumult's ``privacy_function(1)`` = rho = 1/2) and on the
same measurement with sigma halved (sigma^2 = 1/4, true rho = 2) against the claim of the
correct one.  Needs tmlt.core, which pins numpy < 2: run it in a venv of its own
(``pip install tmlt.core`` then ``pip install --no-deps -e .`` and pytest, mpmath, z3-solver,
hypothesis, tqdm):

    PYTHONPATH=$PWD /path/to/tumult-venv/bin/python tests/bench/tumult_zcdp.py \
        [--n-select 5000] [--n 20000] [--out reports/bench/tumult-zcdp.txt]

Seeded (Tumult's generator is seeded by dpaudit's adapter).  Only this script prints and
writes files.
"""

from __future__ import annotations

import argparse
import pathlib
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-select", type=int, default=5_000)
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--out", default="reports/bench/tumult-zcdp.txt")
    a = ap.parse_args()
    import tmlt.core
    from tmlt.core.domains.numpy_domains import NumpyFloatDomain
    from tmlt.core.measurements.noise_mechanisms import AddGaussianNoise

    from audit.extra.tumult import measurement_mechanism
    from audit.privacy.blackbox.settings import TesterSettings
    from audit.privacy.claims.certify import certify_claim
    from audit.privacy.claims.gaussian_findings import run_under_family
    from audit.privacy.claims.histogram_renyi import certify_histogram
    from audit.privacy.user_mechanism import wrap_mechanism
    from audit.protocols import NeighbourPair

    def make(s2: object) -> object:
        return measurement_mechanism(AddGaussianNoise(NumpyFloatDomain(), sigma_squared=s2),
                                     query=lambda x: float(np.sum(np.clip(x, 0.0, 1.0))),
                                     d_in=1, relation="replace-one")

    right = make(1)
    claim = right.claim  # type: ignore[attr-defined]
    pairs = [NeighbourPair(np.array([0.0]), np.array([1.0]), "replace-one")]
    lines = [f"# Tumult Core {getattr(tmlt.core, '__version__', '?')} AddGaussianNoise, claim "
             f"read from privacy_function(1): {claim.spec()}; {a.n_select} selection + {a.n} "
             "certification outputs per data set, 90 % (event and histogram at 1/3 of the "
             "error budget each, the family tester at 1/3)"]
    for label, s2 in (("sigma^2 = 1 (correct, true rho 0.5)", 1),
                      ("sigma^2 = 1/4 (sigma halved, true rho 2)", "1/4")):
        m = wrap_mechanism(make(s2), epsilon=1.0, relation="replace-one")
        t = TesterSettings(n_select=a.n_select, n_certify=a.n, chunk_size=a.n,
                           confidence=1 - 0.1 / 3)
        c0 = time.process_time()
        ev = certify_claim(claim, m, pairs, np.random.default_rng(0), t)
        hi = certify_histogram(claim, m, pairs, np.random.default_rng(1), t)
        fam = run_under_family(claim, m, pairs, np.random.default_rng(2), a.n_select, a.n,
                               0.1 / 3, chunk_size=a.n)
        cpu = time.process_time() - c0
        flagged = ev.refuted or hi.refuted or fam.refuted
        lines.append(f"{label}: {'FLAGGED' if flagged else 'not flagged'}; event rho >= "
                     f"{ev.verdict.strongest.get('rho', 0):.4f} (refutes: {ev.refuted}); "
                     f"histogram rho >= {hi.strongest.get('rho', 0):.4f} (refutes: "
                     f"{hi.refuted}); Gaussian family mu_L {fam.fit.mu_lower:.4f} -> rho >= "
                     f"{fam.verdict['strongest'].get('rho', 0):.4f} (refutes: {fam.refuted}, "
                     f"family check rejected: {fam.gof['rejected']}); CPU {cpu:.1f} s")
        print(lines[-1], flush=True)
    p = pathlib.Path(a.out)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {p}")


if __name__ == "__main__":
    main()
