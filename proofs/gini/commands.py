"""The Gini subject's commands: ``dpaudit release`` (compute the DP Gini index) and
``dpaudit certify`` (the default certify chain).  Command module: it prints and writes the
report (through :mod:`audit.report`); the checks themselves are in
:mod:`proofs.gini.certify.chain` and return data.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import warnings
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from audit import datasets, fingerprint
from audit.cli.argtypes import EPSILON_MAX, integer, real
from audit.cli.argtypes import epsilon as epsilon_type
from audit.cli.argtypes import run_id as run_id_type
from audit.cli.argtypes import seed as seed_type
from audit.cli.arguments import add_data_arguments, data_choice
from audit.cli.command import FunctionCommand
from audit.cli.outcomes import outcome
from audit.cli.progress import LinkTicker, link_progress
from audit.record_errors import outside_bounds
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


#: door limits (CLI terms): beyond them a link is meaningless or float64 overflows
# EPSILON_MAX (every command's --epsilon bound, audit.cli.argtypes): e^epsilon and the
# admissibility search (grid to 20 is certified)
GAMMA_MAX = 100.0  # |z|^gamma in density (10) overflows float64 for larger shapes
MAGNITUDE_MAX = 1e100  # |L|, |U| and records: float64 sums over n records must not overflow


#: argparse types of the door limits (the rule and the text as typed in one line)
_EPSILON = epsilon_type
_GAMMA = real(low=1.0, low_open=True, high=GAMMA_MAX)
_MAGNITUDE = real(low=-MAGNITUDE_MAX, high=MAGNITUDE_MAX)


def _check_door(a: argparse.Namespace) -> None:
    """The checks that involve two flags, in CLI terms (single-flag ranges are the argparse
    types above), before any data is read or anything written."""
    if a.lower is not None and a.lower < 0:
        raise InputError(f"--lower must be >= 0 (incomes), got {a.lower:g}")
    if a.lower is not None and a.upper is not None and not a.upper > a.lower:
        raise InputError(f"--upper must be greater than --lower, got --lower {a.lower:g} "
                         f"--upper {a.upper:g}")


def _check_records(x: np.ndarray, what: str, lower: float | None,
                   upper: float | None, hint: str = "raise the bound",
                   in_file_order: bool = True) -> None:
    """Records in CLI terms: magnitude, and inside [--lower, --upper] when both are given
    (the first offender's data row; never a count nor a record's value)."""
    big = outside_bounds(np.abs(x), None, MAGNITUDE_MAX, upper_name="in absolute value",
                         in_file_order=in_file_order)
    if big:
        raise InputError(f"{what}: {big} (float64 sums overflow)")
    bad = outside_bounds(x, lower, upper, lower_name="--lower", upper_name="--upper",
                         in_file_order=in_file_order)
    if bad:  # where and what, never a count or a value (issue 37)
        raise InputError(f"{what}: {bad}; {hint}")


def _release_arguments(p: argparse.ArgumentParser) -> None:
    add_data_arguments(p, datasets.DEFAULT_SAMPLE)
    p.add_argument("--lower", type=_MAGNITUDE, default=0.0,
                   help="public lower bound L (default 0)")
    p.add_argument(
        "--upper", type=_MAGNITUDE, default=None,
        help="public upper bound U (default: DP estimate)"
    )
    p.add_argument("--epsilon", type=_EPSILON, default=1.0, help="budget of the Gini release")
    p.add_argument(
        "--epsilon-upper",
        type=_EPSILON,
        default=0.15,
        help="budget of the DP upper bound, split evenly between count and threshold (0.15)",
    )
    p.add_argument("--gamma", type=_GAMMA, default=2.0,
                   help="shape of density (10), > 1")
    p.add_argument("--constants", choices=CONSTANT_CHOICES, default="alg3")
    p.add_argument("--bound", choices=BOUNDS, default="thm43")
    p.add_argument("--clip", action="store_true", help="clip records outside [L, U]")
    p.add_argument(
        "--seed",
        type=seed_type,
        default=None,
        help="seed the noise (TESTING ONLY: a seeded release is reproducible, not private)",
    )
    p.add_argument(
        "--show-confidential",
        action="store_true",
        help="also print diagnostics computed from the data (true Gini, S(X), noise scale, "
        "posterior with the true scale): NOT for publication",
    )


def _cmd_release(a: argparse.Namespace) -> int:
    _check_door(a)
    file, sample = data_choice(a)
    if file is not None:
        x = datasets.load_csv_column(file, a.column)
        origin = f"file {file!r}" + (f", column {a.column!r}" if a.column else "")
        _check_records(x, f"data file {file!r}", None if a.clip else a.lower,
                       None if (a.clip or a.upper is None) else a.upper,
                       "pass --clip to clip them, or widen the bound")
    else:
        name = sample or datasets.DEFAULT_SAMPLE
        x = datasets.load_sample(name)
        _check_records(x, f"sample {name!r}", None if a.clip else a.lower,
                       None if (a.clip or a.upper is None) else a.upper,
                       "pass --clip to clip them, or widen the bound")
        origin = f"built-in sample {name!r} ({datasets.BUILTIN_SAMPLES[name].description})"
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
    c = r.constants
    out = sys.stdout
    w = out.write
    # only the DP value, what it was computed from in public terms (n is public under
    # replace-one), and DP-released bounds; anything else computed from the data is printed
    # only with --show-confidential
    w("dpaudit release: differentially private Gini index (Lan & Reiter 2025, eq. 2)\n")
    w(f"  data            {origin}\n")
    w(f"                  n = {r.n:,}\n")
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
        f"'{c.name}': alpha = {c.alpha:.6g}, beta = {c.beta:.6g}, bound {r.bound}\n"
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
        w(  # B and the grid depend on alpha only (kernels.gini.release.snap_grid): public
            f"  output          clamped to [-{r.snapped.clamp:g}, {r.snapped.clamp:g}] and "
            f"snapped to a grid of {r.snapped.step:.3g} (float safety, Mironov 2012)\n"
        )
    w(f"\n  DP Gini index   {r.value:.6f}\n\n")
    if a.show_confidential:
        post = posterior_exact(r.value, r.scale, powerlaw(r.gamma))
        w("  CONFIDENTIAL diagnostics (--show-confidential; computed from the data, do NOT "
          "publish):\n")
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
    return outcome("released").code


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
    add_data_arguments(p, datasets.DEFAULT_SAMPLE)
    p.add_argument("--lower", type=_MAGNITUDE, default=None, help="public lower bound L")
    p.add_argument("--upper", type=_MAGNITUDE, default=None, help="public upper bound U")
    p.add_argument("--epsilon", type=_EPSILON, default=1.0,
                   help=f"claimed epsilon, in (0, {EPSILON_MAX:g}] (default 1)")
    p.add_argument("--gamma", type=_GAMMA, default=2.0,
                   help=f"shape of density (10), in (1, {GAMMA_MAX:g}] (default 2)")
    p.add_argument("--constants", choices=CONSTANT_CHOICES, default="alg3")
    p.add_argument("--bound", choices=BOUNDS, default="thm43")
    p.add_argument("--seed", type=seed_type, default=0,
                   help="seed of the audit's own randomness")
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
        help="include the true Gini, S(X), the replaced records' values and figures in "
        "absolute units in the report (otherwise withheld or drawn relative to an unstated "
        "centre in units of the noise scale); the report is then NOT shareable",
    )
    dist = p.add_mutually_exclusive_group()
    dist.add_argument("--workers", type=integer(low=1), default=None, metavar="N",
                      help="read and sort a data file in partitions, and run the exact "
                      "Gini and the black-box counts, on a local Dask cluster of N worker "
                      "processes (same figures as without)")
    dist.add_argument("--scheduler", default=None, metavar="ADDRESS",
                      help="the same on a running Dask scheduler, e.g. tcp://host:8786 (the "
                      "data file must be readable at the same path on every worker)")
    p.add_argument("--out", default="reports", help="report folder root (default reports)")
    p.add_argument("--run-id", type=run_id_type, default=None,
                   help="report folder name inside --out")
    fingerprint.add_key_argument(p)


def _certify_source(a: argparse.Namespace, out_dir: Path, dask_client: object = None,
                    ) -> tuple[np.ndarray, dict, float, float, list | None, dict | None]:
    """(data, source reference, L, U, sorted partitions on the cluster or None, the
    reader's record of the file or None: :func:`audit.datasets.read_csv_column`)."""
    file, sample = data_choice(a)
    if file is not None:
        if a.lower is None or a.upper is None:
            raise InputError("--lower and --upper are required with a data file (public bounds)")
        parts = None
        sc = None
        record = None
        if dask_client is not None:  # read and sorted in partitions on the cluster
            from audit.distributed import read_sorted_column

            sc = read_sorted_column(file, a.column, dask_client)
        if sc is not None:  # its record: the file's lines counted on the cluster too
            from audit.column_census import read_record

            x, parts = sc.x, sc.partitions
            record = read_record(file, a.column, x, sc.layout.idx, sc.layout.headerless,
                                 dask_client)
        else:  # single process, or a file that is not plain: the careful path's errors
            x, record = datasets.read_csv_column(file, a.column)
        _check_records(x, f"data file {file!r}", a.lower, a.upper,
                       "widen --lower/--upper (certify audits the data as given)",
                       in_file_order=parts is None)
        # relative to the confidential report, where the counterexamples live
        return (x, datasets.file_reference(file, a.column, out_dir / "confidential"), a.lower,
                a.upper, parts, record)
    name = sample or datasets.DEFAULT_SAMPLE
    x = datasets.load_sample(name)
    lo, hi = SAMPLE_BOUNDS.get(name, (None, None))
    lo = a.lower if a.lower is not None else lo
    hi = a.upper if a.upper is not None else hi
    if lo is None or hi is None:
        raise InputError(f"--lower and --upper are required for sample {name!r}")
    _check_records(x, f"sample {name!r}", lo, hi,
                   "widen --lower/--upper (certify audits the data as given)")
    return x, {"sample": name, "file_sha256": datasets.sample_sha256(name)}, lo, hi, None, None


def _attach_warnings(caught: list, findings: list, start: int) -> None:
    """Numeric warnings raised while links ran go into the evidence of the findings those
    links produced (never printed): message, category and count."""
    if not caught:
        return
    counts: dict[tuple[str, str], int] = {}
    for w in caught:
        key = (w.category.__name__, " ".join(str(w.message).split())[:200])
        counts[key] = counts.get(key, 0) + 1
    caught.clear()
    items = [{"category": c, "message": m, "count": k} for (c, m), k in counts.items()]
    for f in findings[start:] or findings[-1:]:
        f.evidence = {**f.evidence, "numeric_warnings": items}


def _cmd_certify(a: argparse.Namespace) -> int:
    from audit.cli.folders import report_dir

    _check_door(a)
    run_id = a.run_id if a.run_id is not None else f"certify-seed{a.seed}"
    out_dir = report_dir(a.out, run_id)  # --out / --run-id checked before anything is read
    workers, scheduler = getattr(a, "workers", None), getattr(a, "scheduler", None)
    if workers is None and scheduler is None:
        return _certify_run(a, run_id, out_dir, None)
    from audit.distributed import client

    with client(scheduler=scheduler, workers=workers) as c:
        return _certify_run(a, run_id, out_dir, c)


def _certify_run(a: argparse.Namespace, run_id: str, out_dir: Path, dask_client: object,
                 ) -> int:
    from audit.cli.run import finish_certification, start_report, write
    from audit.report import build_report
    from kernels.validate import is_sorted
    from proofs.gini.certify.chain import CertifyConfig, certify, public_parameters
    from proofs.gini.certify.context import PUBLIC_SUBJECT, validate

    x, src, lo, hi, parts, record = _certify_source(a, out_dir, dask_client)
    # the release depends on the multiset only: sorted in place (the array is ours), so the
    # validation below and certify's own take it as it is -- one copy of the data in memory
    if not is_sorted(x):  # the cluster's read is sorted already (a sort costs as much again)
        x.sort()
    cfg = CertifyConfig(
        data=x, source=src, lower=lo, upper=hi, epsilon=a.epsilon, gamma=a.gamma,
        constants=a.constants, bound=a.bound, seed=a.seed, quick=a.quick,
        show_confidential=a.show_confidential, snap=not a.no_snap,
        workers=getattr(a, "workers", None), scheduler=getattr(a, "scheduler", None),
        reader=record,
    )
    xs = validate(cfg)  # bad input ends here: nothing written yet
    key, key_ref = fingerprint.holder_key(a.key_file, out_dir)
    cfg = dataclasses.replace(cfg, key=key, key_ref=key_ref,
                              source=fingerprint.keyed_source(cfg.source, key))
    started = datetime.now(UTC).isoformat(timespec="seconds")
    conf = {"confidential_data": True, "show_confidential": a.show_confidential,
            "public_verdict_only": bool(getattr(a, "public_verdict_only", False))}
    out_dir = start_report(a.out, run_id, "certify", PUBLIC_SUBJECT, a.seed,
                           {**public_parameters(cfg, int(xs.size)), "status": "started"},
                           started, **conf)
    ticker = LinkTicker()
    state = {"seen": 0}

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        shown = link_progress(conf["public_verdict_only"])

        def say(text: str) -> None:
            ticker.stop()
            shown(text)
            if text.rstrip().endswith("..."):
                ticker.start(text.strip().rstrip(". "))

        def partial(so_far) -> None:
            ticker.stop()
            _attach_warnings(caught, so_far.findings, state["seen"])
            state["seen"] = len(so_far.findings)
            write(out_dir, build_report(
                "certify", so_far.subject, a.seed, so_far.findings, so_far.parameters,
                started, False, figures=list(so_far.figures), **conf,
            ))

        try:
            extra = ({} if dask_client is None else
                     {"dask_client": dask_client, "partitions": parts})
            res = certify(cfg, progress=say, on_finding=partial, **extra)
        finally:
            ticker.stop()
        _attach_warnings(caught, res.findings, state["seen"])
    cert = res.certification

    def final(oc: dict | None) -> dict:
        return build_report("certify", res.subject, a.seed, res.findings, res.parameters,
                            started, True, figures=res.figures, certification=cert,
                            outcome=oc, **conf)

    return finish_certification(out_dir, final, cert)


RELEASE = FunctionCommand(_RELEASE_HELP, _RELEASE_DESCRIPTION, _release_arguments, _cmd_release)
CERTIFY = FunctionCommand(_CERTIFY_HELP, _CERTIFY_DESCRIPTION, _certify_arguments, _cmd_certify)


def mechanisms() -> dict[str, str]:
    """Mechanisms this subject offers to the privacy testers."""
    from proofs.gini.mechanisms import GINI_VARIANTS

    return {f"GiniRelease[{v}]": "g(X) + (S(X)/alpha) Z, Z ~ density (10); replace-one"
            + ("" if v == "correct" else " (deliberately broken)") for v in GINI_VARIANTS}
