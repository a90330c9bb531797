"""The Gini subject's commands: ``dpaudit release`` (compute the DP Gini index) and
``dpaudit certify`` (the default certify chain).  Command module: it prints and writes the
report (through :mod:`audit.report`); the checks themselves are in
:mod:`proofs.gini.certify` and return data.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from audit import datasets
from audit.cli_common import EXIT_INCONCLUSIVE, EXIT_NOT_CERTIFIED, EXIT_OK
from audit.cli_common import progress as _progress
from kernels.errors import InputError
from kernels.gini.noise import powerlaw
from kernels.gini.release import (
    CONSTANT_CHOICES,
    posterior_exact,
    release_gini,
    release_gini_dp_bounds,
)
from kernels.gini.sensitivity import BOUNDS

__all__ = ["CERTIFY", "RELEASE", "mechanisms"]


_RELEASE_HELP = "compute an epsilon-DP Gini index (Lan & Reiter 2025) of incomes"
_RELEASE_DESCRIPTION = (
    "Release the DP Gini index g~ = g(X) + (S(X)/alpha) Z, Z ~ 1/(1+|z|^gamma), on a "
    "built-in real income sample (default) or a CSV column.  Neighbour relation: "
    "replace one record.  Without --upper, U is set privately as in Section 5.1 "
    "(2.5 x a DP estimate of the maximum), spending --epsilon-upper more budget."
)


def _release_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument("--sample", default=None, help="built-in sample name (default: %(default)s)")
    src.add_argument("--data", default=None, help="CSV file with a header row")
    p.add_argument("--column", default=None, help="column of --data to use")
    p.add_argument("--lower", type=float, default=0.0, help="public lower bound L (default 0)")
    p.add_argument(
        "--upper", type=float, default=None, help="public upper bound U (default: DP estimate)"
    )
    p.add_argument("--epsilon", type=float, default=1.0, help="budget of the Gini release")
    p.add_argument(
        "--epsilon-upper",
        type=float,
        default=0.15,
        help="budget of the DP upper bound, split evenly between count and threshold (0.15)",
    )
    p.add_argument("--gamma", type=float, default=2.0, help="shape of density (10), > 1")
    p.add_argument("--constants", choices=CONSTANT_CHOICES, default="alg3")
    p.add_argument("--bound", choices=BOUNDS, default="thm43")
    p.add_argument("--clip", action="store_true", help="clip records outside [L, U]")
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed the noise (TESTING ONLY: a seeded release is reproducible, not private)",
    )


def _cmd_release(a: argparse.Namespace) -> int:
    if a.data is not None:
        x = datasets.load_csv_column(a.data, a.column)
        origin = f"file {a.data!r}" + (f", column {a.column!r}" if a.column else "")
        digest = datasets.file_sha256(a.data)
    else:
        if a.column is not None:
            raise InputError("--column needs --data")
        name = a.sample or datasets.DEFAULT_SAMPLE
        x = datasets.load_sample(name)
        origin = f"built-in sample {name!r} ({datasets.BUILTIN_SAMPLES[name].description})"
        digest = datasets.sample_sha256(name)
    rng = np.random.default_rng(a.seed)
    ub = None
    if a.upper is None:
        comp = release_gini_dp_bounds(
            x,
            a.lower,
            a.epsilon,
            rng,
            epsilon_upper=a.epsilon_upper,
            gamma=a.gamma,
            constants=a.constants,
            bound=a.bound,
        )
        r, ub, eps_total = comp.release, comp.upper_bound, comp.epsilon_total
    else:
        r = release_gini(
            x,
            a.lower,
            a.upper,
            a.epsilon,
            rng,
            gamma=a.gamma,
            constants=a.constants,
            bound=a.bound,
            clip=a.clip,
        )
        eps_total = r.epsilon
    post = posterior_exact(r.value, r.scale, powerlaw(r.gamma))
    c = r.constants
    out = sys.stdout
    w = out.write
    w("dpaudit release: differentially private Gini index (Lan & Reiter 2025, eq. 2)\n")
    w(f"  data            {origin}\n")
    w(f"                  n = {r.n:,}, sha256 {digest[:16]}...\n")
    w("  neighbours      replace one record\n")
    if ub is not None:
        w(
            f"  bounds          L = {r.lower:g}, U = {r.upper:.6g} "
            f"(DP: {ub.inflation:g} x {ub.x_tilde:.6g}, Sec. 5.1, epsilon {ub.epsilon:g})\n"
        )
    else:
        w(f"  bounds          L = {r.lower:g}, U = {r.upper:g} (public)\n")
    w(
        f"  mechanism       g~ = g + (S/alpha) Z, Z ~ 1/(1+|z|^{r.gamma:g}); constants "
        f"'{c.name}': alpha = {c.alpha:.6g}, beta = {c.beta:.6g}\n"
    )
    w(
        f"                  proved loss bound {c.proved_loss_bound:.6g} "
        f"{'<=' if c.proved_dp else '>'} epsilon {c.epsilon:g}\n"
    )
    w(f"  epsilon         Gini {a.epsilon:g}")
    if ub is not None:
        w(f" + upper bound {ub.epsilon:g} = {eps_total:g} total (sequential composition)")
    w("\n")
    if r.snapped is not None:
        w(
            f"  output          clamped to [-{r.snapped.clamp:g}, {r.snapped.clamp:g}] and "
            f"snapped to a grid of {r.snapped.step:.3g} (float safety, Mironov 2012)\n"
        )
    w(f"\n  DP Gini index   {r.value:.6f}\n\n")
    w("  confidential diagnostics (computed from the data; do NOT publish):\n")
    w(
        f"    smooth sensitivity S(X)  {r.smooth_sensitivity:.6g}  (bound {r.bound}, "
        f"max at k = {r.k_argmax}, k scanned 0..{r.k_evaluated})\n"
    )
    w(f"    noise scale S(X)/alpha   {r.scale:.6g}\n")
    w(f"    true Gini g(X)           {r.gini:.6f}\n")
    lo, hi = post.interval
    w(
        f"    posterior (eq. 11, U(0,1) prior, true scale): mean {post.mean:.4f}, "
        f"95% interval [{lo:.4f}, {hi:.4f}]\n"
    )
    if a.seed is not None:
        w("  WARNING: --seed was given; this output is reproducible and NOT private.\n")
    return EXIT_OK


#: documented public bounds for the built-in samples (certify's defaults)
SAMPLE_BOUNDS: dict[str, tuple[float, float]] = {
    "cpssw8_earnings": (0.0, 100.0),  # hourly earnings, max 72.12 USD/h
    "cps91_faminc": (0.0, 150000.0),  # family income, top code 112,500 USD/yr
}

_CERTIFY_HELP = "certify that a DP Gini release on this data keeps its epsilon; write a report"
_CERTIFY_DESCRIPTION = (
            "Check, with evidence, that the DP Gini release (Lan & Reiter 2025) on the given "
            "data and parameters is correct and epsilon-DP (replace-one neighbours): input "
            "validation, kernel vs exact reference on this data, bound validity on subsamples "
            "against brute-force oracles, admissibility of the noise constants, exact privacy "
            "loss on the worst neighbours found, a black-box statistical tester on the release, "
            "and the Bayesian post-processing.  Writes report.json, report.md and report.html. "
            "With no arguments: the built-in CPS earnings sample, L = 0, U = 100, epsilon = 1, "
            "gamma = 2, constants alg3, bound thm43.  Exit codes: 0 CERTIFIED, 1 NOT CERTIFIED "
            "(a link refuted; a replayable counterexample is written), 2 bad input (nothing "
            "written), 3 INCONCLUSIVE (a link could not decide or crashed), 130 interrupted "
            "(the last complete partial report is kept, marked unfinished)."
)


def _certify_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", nargs="?", default=None, help="CSV file with a header row")
    p.add_argument("--column", default=None, help="column of DATA to use")
    p.add_argument(
        "--sample", default=None, help="built-in sample instead of DATA (default cpssw8_earnings)"
    )
    p.add_argument("--lower", type=float, default=None, help="public lower bound L")
    p.add_argument("--upper", type=float, default=None, help="public upper bound U")
    p.add_argument("--epsilon", type=float, default=1.0, help="claimed epsilon (default 1)")
    p.add_argument("--gamma", type=float, default=2.0, help="shape of density (10) (default 2)")
    p.add_argument("--constants", choices=CONSTANT_CHOICES, default="alg3")
    p.add_argument("--bound", choices=BOUNDS, default="thm43")
    p.add_argument("--seed", type=int, default=0, help="seed of the audit's own randomness")
    p.add_argument("--quick", action="store_true", help="smaller searches and sample sizes")
    p.add_argument(
        "--no-snap",
        action="store_true",
        help="audit the plain float64 output g + scale*Z (not snapped to a grid): its "
        "low-order bits leak, which the float-bits link detects",
    )
    p.add_argument(
        "--show-confidential",
        action="store_true",
        help="include the true Gini, S(X) and the replaced records' values in the report",
    )
    p.add_argument("--out", default="reports")
    p.add_argument("--run-id", default=None)


def _certify_source(a: argparse.Namespace) -> tuple[np.ndarray, dict, float, float]:
    if a.data is not None and a.sample is not None:
        raise InputError("give either DATA or --sample, not both")
    if a.data is not None:
        x = datasets.load_csv_column(a.data, a.column)
        src = {"file": str(a.data), "column": a.column, "file_sha256": datasets.file_sha256(a.data)}
        if a.lower is None or a.upper is None:
            raise InputError("--lower and --upper are required with a data file (public bounds)")
        return x, src, a.lower, a.upper
    if a.column is not None:
        raise InputError("--column needs a DATA file")
    name = a.sample or datasets.DEFAULT_SAMPLE
    x = datasets.load_sample(name)
    lo, hi = SAMPLE_BOUNDS.get(name, (None, None))
    lo = a.lower if a.lower is not None else lo
    hi = a.upper if a.upper is not None else hi
    if lo is None or hi is None:
        raise InputError(f"--lower and --upper are required for sample {name!r}")
    return x, {"sample": name, "file_sha256": datasets.sample_sha256(name)}, lo, hi


def _cmd_certify(a: argparse.Namespace) -> int:
    from audit.report import build_report, render_summary_table, write_report
    from proofs.gini.certify import CertifyConfig, certify

    x, src, lo, hi = _certify_source(a)
    cfg = CertifyConfig(
        data=x, source=src, lower=lo, upper=hi, epsilon=a.epsilon, gamma=a.gamma,
        constants=a.constants, bound=a.bound, seed=a.seed, quick=a.quick,
        show_confidential=a.show_confidential, snap=not a.no_snap,
    )
    run_id = a.run_id or f"certify-seed{a.seed}"
    out_dir = Path(a.out) / run_id
    started = datetime.now(UTC).isoformat(timespec="seconds")

    def partial(so_far) -> None:
        write_report(out_dir, build_report(
            "certify", so_far.subject, a.seed, so_far.findings, so_far.parameters, started,
            False, figures=list(so_far.figures),
        ))

    res = certify(cfg, progress=_progress, on_finding=partial)
    rep = build_report(
        "certify", res.subject, a.seed, res.findings, res.parameters, started, True,
        figures=res.figures, certification=res.certification,
    )
    write_report(out_dir, rep)
    print(render_summary_table(rep))
    cert = res.certification
    print(f"\nVERDICT: {cert['verdict']}")
    for r in cert["reasons"]:
        if cert["verdict"] != "CERTIFIED":
            print(f"  - {r}")
    if cert.get("counterexample"):
        print(f"  counterexample: {out_dir / cert['counterexample']}")
    print(f"scope: {cert['scope']}")
    print(f"report: {out_dir / 'report.json'}  {out_dir / 'report.md'}  {out_dir / 'report.html'}")
    return {"CERTIFIED": EXIT_OK, "NOT CERTIFIED": EXIT_NOT_CERTIFIED}.get(
        cert["verdict"], EXIT_INCONCLUSIVE
    )




@dataclass(frozen=True)
class _Command:
    help: str
    description: str
    add: object
    runner: object

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        self.add(parser)  # type: ignore[operator]

    def run(self, args: argparse.Namespace) -> int:
        return self.runner(args)  # type: ignore[operator]


RELEASE = _Command(_RELEASE_HELP, _RELEASE_DESCRIPTION, _release_arguments, _cmd_release)
CERTIFY = _Command(_CERTIFY_HELP, _CERTIFY_DESCRIPTION, _certify_arguments, _cmd_certify)


def mechanisms() -> dict[str, str]:
    """Mechanisms this subject offers to the privacy testers."""
    from proofs.gini.mechanisms import GINI_VARIANTS

    return {f"GiniRelease[{v}]": "g(X) + (S(X)/alpha) Z, Z ~ density (10); replace-one"
            + ("" if v == "correct" else " (deliberately broken)") for v in GINI_VARIANTS}
