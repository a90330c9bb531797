"""``dpaudit calibrate``: the privacy testers pass correct mechanisms and catch broken ones
(:mod:`audit.privacy.calibration`; with ``--coverage``, the error rate of each tester
against its nominal one, :mod:`audit.privacy.coverage_calibration`).  Command module: it
prints progress and the summary and writes the report."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from audit.cli.argtypes import integer, run_id, seed
from audit.cli.command import Command
from audit.cli.progress import progress
from audit.cli.run import finish, start_report, write
from kernels.errors import InputError

__all__ = ["COMMAND", "CalibrateCommand"]


class CalibrateCommand(Command):
    help = "show that the privacy testers pass correct mechanisms and catch broken ones"
    description = (
        "Run the black-box tester and the exact privacy-loss tester on mechanisms with a "
        "known answer (audit/privacy/calibration.py): Laplace at epsilon = 0.1 (target: "
        "certify >= 0.09 at 90% with 2e7 samples), broken Laplace variants, float64 "
        "bit-level runs, and every installed subject's runs (e.g. the DP Gini release and "
        "its broken variants).  One Finding per run: not-refuted when a tester's sampled "
        "answer matches the known one (verified only for the exact tester's certified "
        "bounds), refuted when it does not.  Writes report.json, report.md and "
        "report.html.  Exit 0 if every run matches, 1 if one does not, 3 if one could "
        "not decide."
    )

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("--seed", type=seed, default=0)
        p.add_argument("--quick", action="store_true", help="smaller sample sizes (less power)")
        p.add_argument("--coverage", action="store_true",
                       help="repeat each tester R times on mechanisms at the claim and test its "
                       "error rate against the nominal one (exact binomial test); power on 2x "
                       "and 1.2x twins (audit/privacy/coverage_calibration.py)")
        p.add_argument("--claims", action="store_true",
                       help="the claim testers' false-alarm rate and power per definition "
                       "(GDP, zCDP, RDP, (eps, delta) by events and under the Gaussian family) "
                       "on the Gaussian mechanism and its twins (sigma 5/10/30 %% small, zCDP "
                       "off by 2, RDP at the wrong order): 20 seeds correct / 5 per twin at "
                       "10^7 + 10^6 outputs (--reps R: R for every case); minutes of CPU")
        p.add_argument("--reps", type=integer(low=1), default=None,
                       help="with --coverage: R for every case (default: each case's own)")
        p.add_argument("--only", default=None,
                       help="with --coverage: cases whose key contains this text (comma list: "
                       "any)")
        p.add_argument("--out", default="reports")
        p.add_argument("--run-id", type=run_id, default=None)

    def run(self, a: argparse.Namespace) -> int:
        if a.claims:
            return _run_claims(a)
        if a.coverage:
            return _run_coverage(a)
        return _run_plain(a)


def _run_plain(a: argparse.Namespace) -> int:
    from audit.privacy.calibration import all_runs, run_calibration
    from audit.report import build_report

    if a.reps is not None or a.only is not None:
        raise InputError("--reps and --only need --coverage")
    rid = a.run_id if a.run_id is not None else f"calibrate-seed{a.seed}"
    started = datetime.now(UTC).isoformat(timespec="seconds")
    runs = all_runs()
    params = {"quick": a.quick, "runs": [r.key for r in runs]}
    out_dir = start_report(a.out, rid, "calibrate", "testers:audit.privacy", a.seed, params,
                           started)
    findings: list = []
    progress(f"dpaudit calibrate: {len(runs)} runs, seed {a.seed}")
    t0 = time.perf_counter()

    def step(f) -> None:
        findings.append(f)
        progress(f"  {f.id:<36} {f.verdict.value:<12} {f.duration_s:6.1f} s")
        write(out_dir, build_report("calibrate", "testers:audit.privacy", a.seed,
                                    findings, params, started, False))

    found, figures = run_calibration(a.seed, a.quick, on_finding=step)
    code = _finish_calibration(out_dir, a.seed, found, figures, params, started,
                               time.perf_counter() - t0)
    undecided = [f.id for f in found if f.verdict.value == "inconclusive"]
    if undecided and a.quick:
        print(f"undecided at the --quick size: {', '.join(undecided)}; run without --quick "
              "(larger samples) to decide")
    print(f"report: {out_dir / 'report.json'}  {out_dir / 'report.md'}  {out_dir / 'report.html'}")
    return code


def _finish_calibration(out_dir: Path, seed: int, found: list, figures: list, params: dict,
                        started: str, duration_s: float) -> int:
    """The final report of a calibrate run (outcome from its summary), written and printed
    as a table; returns the exit code."""
    from audit.report import build_report, render_summary_table

    def final(oc: dict | None) -> dict:
        return build_report("calibrate", "testers:audit.privacy", seed, found, params,
                            started, True, figures=figures, total_duration_s=duration_s,
                            outcome=oc)

    summary = final(None)["summary"]
    key = ("fail" if not summary["pass"] else
           "inconclusive" if summary["inconclusive"] else "pass")
    rep, code = finish(out_dir, final, key)
    print(render_summary_table(rep))
    return code


def _run_reported(a: argparse.Namespace, rid: str, subject: str, params: dict, title: str,
                  line: Callable[[Any], str],
                  run: Callable[[Callable[[Any], None]], tuple[list, list]]) -> int:
    """A calibrate run that writes its report after every finding (``line`` prints it)
    and finishes with the summary table; ``run(step)`` returns (findings, figures)."""
    from audit.report import build_report

    started = datetime.now(UTC).isoformat(timespec="seconds")
    out_dir = start_report(a.out, rid, "calibrate", subject, a.seed, params, started)
    findings: list = []
    progress(title)
    t0 = time.perf_counter()

    def step(f: Any) -> None:
        findings.append(f)
        progress(line(f))
        write(out_dir, build_report("calibrate", subject, a.seed, findings, params, started,
                                    False))

    found, figures = run(step)
    code = _finish_calibration(out_dir, a.seed, found, figures, params, started,
                               time.perf_counter() - t0)
    print(f"report: {out_dir / 'report.json'}  {out_dir / 'report.md'}  {out_dir / 'report.html'}")
    return code


def _run_coverage(a: argparse.Namespace) -> int:
    from audit.privacy.coverage_calibration import all_cases, run_coverage, selected

    rid = a.run_id if a.run_id is not None else f"calibrate-coverage-seed{a.seed}"
    keys = [c.key for c in all_cases(a.quick) if selected(c.key, a.only)]
    if not keys:
        raise InputError(f"--only {a.only!r}: no coverage case matches")
    params = {"coverage": True, "quick": a.quick, "reps": a.reps, "only": a.only,
              "cases": keys}

    def line(f: Any) -> str:
        e = f.evidence
        test = (f"p = {e['binomial_p_value']:.3g}" if "sprt" not in e else
                f"SPRT: {e['sprt']['decision']}")  # a sequential case: its own decision
        return (f"  {f.id:<40} {f.verdict.value:<12} errors {e['errors']}/{e['runs']} "
                f"(nominal {e['nominal']:g}, {test})  {f.duration_s:6.1f} s")

    return _run_reported(
        a, rid, "testers:audit.privacy", params,
        f"dpaudit calibrate --coverage: {len(keys)} cases, seed {a.seed}", line,
        lambda step: run_coverage(a.seed, a.quick, a.reps, a.only, on_finding=step))


def _run_claims(a: argparse.Namespace) -> int:
    from audit.privacy.claims.claim_calibration import claim_cases, run_claim_calibration

    if a.coverage or a.only is not None or a.quick:
        raise InputError("--claims runs alone (not with --coverage, --only or --quick)")
    rid = a.run_id if a.run_id is not None else f"calibrate-claims-seed{a.seed}"
    reps = (a.reps, a.reps) if a.reps is not None else None
    params = {"claims": True, "reps": a.reps, "cases": [c.key for c in claim_cases(True)]}

    def line(f: Any) -> str:
        e = f.evidence
        return (f"  {f.id:<44} {f.verdict.value:<12} flagged {e['flagged']}/{e['runs']} "
                f"(95% [{e['interval95'][0]:.2f}, {e['interval95'][1]:.2f}])  "
                f"{e['cpu_s_per_run']:.2f} CPU s/run")

    return _run_reported(
        a, rid, "testers:audit.privacy.claims", params,
        f"dpaudit calibrate --claims: {len(params['cases'])} cases, seed {a.seed}", line,
        lambda step: (run_claim_calibration(a.seed, full=True, on_finding=step, reps=reps),
                      []))


COMMAND = CalibrateCommand()
