"""The ``dpaudit`` command line.  Only this module (and the report modules) print.

Exit codes: 0 success (regress: nothing refuted; replay: the counterexample no longer
fails); 1 a check was refuted / the counterexample still fails (or an unexpected internal
error, reported with a traceback); 2 bad input or usage (one-line message naming the
problem, nothing written); 130 interrupted (the last complete report is kept).
``certify``: 0 CERTIFIED, 1 NOT CERTIFIED, 2 bad input, 3 INCONCLUSIVE (a link could not
decide or crashed), 130 interrupted.  ``calibrate``: 0 when every run agrees with its known
answer, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from audit import datasets
from audit.protocol import KernelModuleError
from kernels.errors import InputError, NotNumericError
from kernels.noise import powerlaw
from kernels.release import (
    CONSTANT_CHOICES,
    posterior_exact,
    release_gini,
    release_gini_dp_bounds,
)
from kernels.sensitivity import BOUNDS
from proofs.registry import PAPERS

EXIT_OK = 0
EXIT_INTERNAL = 1  # unexpected internal error (also: regress/replay found a failure)
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2


def _add_release(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "release",
        help="compute an epsilon-DP Gini index (Lan & Reiter 2025) of incomes",
        description=(
            "Release the DP Gini index g~ = g(X) + (S(X)/alpha) Z, Z ~ 1/(1+|z|^gamma), on a "
            "built-in real income sample (default) or a CSV column.  Neighbour relation: "
            "replace one record.  Without --upper, U is set privately as in Section 5.1 "
            "(2.5 x a DP estimate of the maximum), spending --epsilon-upper more budget."
        ),
    )
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

EXIT_NOT_CERTIFIED = 1
EXIT_INCONCLUSIVE = 3


def _add_certify(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "certify",
        help="certify that a DP Gini release on this data keeps its epsilon; write a report",
        description=(
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
        ),
    )
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
    from audit.certify import CertifyConfig, certify
    from audit.report import build_report, render_summary_table, write_report

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


def _add_calibrate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "calibrate",
        help="show that the privacy testers pass correct mechanisms and catch broken ones",
        description=(
            "Run the black-box tester and the exact privacy-loss tester on mechanisms with a "
            "known answer (audit/privacy/calibration.py): Laplace at epsilon = 0.1 (target: "
            "certify >= 0.09 at 90%% with 2e7 samples), broken Laplace variants, the DP Gini "
            "release and its broken variants (wrong scale, Laplace noise, local sensitivity), "
            "and float64 bit-level runs.  One Finding per run: verified when the testers agree "
            "with the truth.  Exit 0 if every run agrees, 1 otherwise."
        ),
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quick", action="store_true", help="smaller sample sizes (less power)")
    p.add_argument("--out", default="reports")
    p.add_argument("--run-id", default=None)


def _cmd_calibrate(a: argparse.Namespace) -> int:
    import time

    from audit.privacy.calibration import CALIBRATION_RUNS, run_calibration
    from audit.report import build_report, render_summary_table, write_report

    run_id = a.run_id or f"calibrate-seed{a.seed}"
    out_dir = Path(a.out) / run_id
    started = datetime.now(UTC).isoformat(timespec="seconds")
    params = {"quick": a.quick, "runs": [r.key for r in CALIBRATION_RUNS]}
    findings: list = []
    _progress(f"dpaudit calibrate: {len(CALIBRATION_RUNS)} runs, seed {a.seed}")
    t0 = time.perf_counter()

    def step(f) -> None:
        findings.append(f)
        _progress(f"  {f.id:<36} {f.verdict.value:<12} {f.duration_s:6.1f} s")
        write_report(out_dir, build_report("calibrate", "testers:audit.privacy", a.seed,
                                           findings, params, started, False))

    found, figures = run_calibration(a.seed, a.quick, on_finding=step)
    rep = build_report("calibrate", "testers:audit.privacy", a.seed, found, params, started,
                       True, figures=figures, total_duration_s=time.perf_counter() - t0)
    write_report(out_dir, rep)
    print(render_summary_table(rep))
    print(f"report: {out_dir / 'report.json'}  {out_dir / 'report.md'}  {out_dir / 'report.html'}")
    return EXIT_OK if rep["summary"]["pass"] and not rep["summary"]["inconclusive"] else 1


def _add_regress(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "regress",
        help="cross-check a kernel module against the exact reference and oracles",
        description=(
            "Run every cross-check of audit.crosscheck on a kernel module (default: ours, "
            "kernels.api; the paper as printed: kernels.paper), write reports/<run-id>/"
            "report.json and report.md, print a summary; exit 0 only if nothing was refuted."
        ),
    )
    p.add_argument("--kernels", default="kernels.api", help="kernel module (default %(default)s)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="fewer generated inputs (default)")
    mode.add_argument("--full", action="store_true", help="more inputs, larger n")
    p.add_argument("--seed", type=int, default=0, help="seed of the input search (default 0)")
    p.add_argument("--out", default="reports", help="report directory root (default reports)")
    p.add_argument("--run-id", default=None, help="report sub-directory name")
    p.add_argument("--only", default=None, help="run only checks whose id contains this text")


def _add_replay(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="re-run a stored counterexample and show expected vs actual",
        description="Re-run the check named in a counterexample JSON on its stored input.",
    )
    p.add_argument("file", help="counterexample JSON (reports/<run>/counterexamples/*.json)")
    p.add_argument("--kernels", default=None, help="override the kernel module stored in FILE")


def _add_claims(sub: argparse._SubParsersAction, name: str, what: str) -> None:
    p = sub.add_parser(
        name,
        help=f"check the paper's claims by {what}; write a report",
        description=(
            f"Run the registered '{name}' claims of a paper ({what}; --paper: Lan & Reiter "
            "2025 by default, or Ding et al.'s free-gap paper) within a time budget; one "
            "Finding per claim (verified with its scope / refuted with an exact, "
            "replayable counterexample / inconclusive). Exit 0 when the run completed (refuted "
            "paper claims are results, not failures), 1 if a check itself errored."
        ),
    )
    p.add_argument(
        "--budget",
        type=float,
        default=240.0,
        help="total seconds, shared out evenly; unused time rolls over (default 240)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--only", default=None, help="run only claims whose key contains this text")
    p.add_argument(
        "--paper",
        choices=PAPERS,
        default="lan-reiter-2025",
        help="whose claims to check (the report's subject; default %(default)s)",
    )
    p.add_argument("--out", default="reports")
    p.add_argument("--run-id", default=None)


def _cmd_claims(a: argparse.Namespace) -> int:
    import time

    from audit.findings import Finding, Method, Verdict
    from audit.report import build_report, render_summary_table, write_report
    from proofs.registry import load_all

    if not a.budget > 0:
        raise InputError(f"--budget must be > 0, got {a.budget!r}")
    claims = [c for c in load_all() if c.command == a.command and c.paper == a.paper]
    if a.only:
        claims = [c for c in claims if a.only in c.key]
    if not claims:
        raise InputError(
            f"no {a.command} claims of paper {a.paper!r} match --only {a.only!r}"
        )
    run_id = a.run_id or f"{a.command}-seed{a.seed}"
    out_dir = Path(a.out) / run_id
    started = datetime.now(UTC).isoformat(timespec="seconds")
    params = {
        "budget_s": a.budget,
        "claims": [c.key for c in claims],
        "only": a.only,
        "paper": a.paper,
    }
    subject = f"paper:{a.paper}"
    deadline = time.perf_counter() + a.budget
    findings: list = []
    _progress(f"dpaudit {a.command}: {len(claims)} claims, budget {a.budget:g} s, seed {a.seed}")
    for i, c in enumerate(claims, 1):
        t0 = time.perf_counter()
        # unused budget rolls over: each claim gets an even share of what is left
        per = max(1.0, (deadline - t0) / (len(claims) - i + 1))
        try:
            got = c.run(per, a.seed)
        except Exception as exc:  # a crashing check is reported, never hidden
            got = [
                Finding(
                    id=f"{c.key}.crashed",
                    claim=c.title,
                    reference=f"paper:{a.paper}",
                    method=Method.EXHAUSTIVE,
                    verdict=Verdict.ERROR,
                    scope="check raised before finishing",
                    evidence={"exception": f"{type(exc).__name__}: {exc}"},
                    seed=a.seed,
                    subject=subject,
                )
            ]
        findings.extend(got)
        counts = ", ".join(
            f"{v}: {sum(f.verdict.value == v for f in got)}"
            for v in ("verified", "refuted", "inconclusive", "error")
            if any(f.verdict.value == v for f in got)
        )
        _progress(
            f"  [{i:>2}/{len(claims)}] {c.key:<34} {counts}  ({time.perf_counter() - t0:.1f} s)"
        )
        rep = build_report(a.command, subject, a.seed, findings, params, started,
                           i == len(claims), figures=_claim_figures(findings) or None)
        write_report(out_dir, rep)
    # claims is non-empty, so rep is the complete report written after the last claim
    print(render_summary_table(rep))
    print(f"report: {out_dir / 'report.json'}  {out_dir / 'report.md'}")
    return EXIT_FINDINGS if rep["summary"]["error"] else EXIT_OK


def _claim_figures(findings: list) -> list[dict]:
    """Figures a claim attached to its evidence (``evidence["figures"]``), first per id."""
    seen: dict[str, dict] = {}
    for f in findings:
        for fig in f.evidence.get("figures", []) or []:
            if isinstance(fig, dict) and fig.get("id") not in seen:
                seen[fig["id"]] = fig
    return list(seen.values())


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _cmd_regress(a: argparse.Namespace) -> int:
    from audit.crosscheck import Context, run_checks
    from audit.protocol import load_kernels, provided
    from audit.report import build_report, render_summary_table, write_report

    mod = load_kernels(a.kernels)
    subject = f"kernels:{a.kernels}"
    ctx = Context(
        seed=a.seed,
        mode="full" if a.full else "quick",
        max_n=int(getattr(mod, "DPAUDIT_MAX_N", 3000)),
    )
    run_id = a.run_id or f"regress-{a.kernels}-{ctx.mode}-seed{a.seed}"
    out_dir = Path(a.out) / run_id
    started = datetime.now(UTC).isoformat(timespec="seconds")
    params = {
        "kernels": a.kernels,
        "kernels_name": str(getattr(mod, "DPAUDIT_NAME", a.kernels)),
        "mode": ctx.mode,
        "max_n": ctx.max_n,
        "provided": provided(mod),
        "only": a.only,
    }
    findings: list = []
    reports: list[dict] = []
    _progress(f"dpaudit regress: {params['kernels_name']} ({a.kernels}), {ctx.mode}, seed {a.seed}")

    def on_finding(i: int, total: int, f) -> None:
        findings.append(f)
        _progress(f"  [{i:>2}/{total}] {f.id:<38} {f.verdict.value:<12} {f.duration_s:6.1f} s")
        rep = build_report("regress", subject, a.seed, findings, params, started, i == total)
        write_report(out_dir, rep)
        reports.append(rep)

    selected = None if a.only is None else (lambda c: a.only in c.id)
    run_checks(mod, subject, ctx, only=selected, on_finding=on_finding)
    # the complete report was already built (and written) after the last check
    rep = (
        reports[-1]
        if reports
        else build_report("regress", subject, a.seed, findings, params, started, True)
    )
    print(render_summary_table(rep))
    print(f"report: {out_dir / 'report.json'}  {out_dir / 'report.md'}")
    return EXIT_OK if rep["summary"]["pass"] else EXIT_FINDINGS


def _cmd_replay(a: argparse.Namespace) -> int:
    from audit.crosscheck import _safe_eval, check_by_id
    from audit.findings import from_jsonable
    from audit.protocol import load_kernels

    try:
        doc = json.loads(Path(a.file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read counterexample {a.file!r}: {exc}") from exc
    if not isinstance(doc, dict):
        raise InputError(f"{a.file!r} is not a JSON object")
    if doc.get("schema") != "dpaudit.counterexample/1":
        raise InputError(
            f"{a.file!r} is not a dpaudit counterexample (schema {doc.get('schema')!r})"
        )
    try:
        check = check_by_id(doc["check"])
    except KeyError as exc:
        from proofs.registry import REPLAYERS, load_all

        load_all()
        if doc["check"] not in REPLAYERS:
            raise InputError(str(exc)) from exc
        return _replay_claim(doc, REPLAYERS[doc["check"]])
    subject = doc.get("subject", "")
    name = a.kernels or (subject.split(":", 1)[1] if subject.startswith("kernels:") else "")
    mod = load_kernels(name)
    inputs = from_jsonable(doc["inputs"])
    out = _safe_eval(check.evaluate, mod, inputs)
    w = sys.stdout.write
    w(f"replay {check.id} on {name}\n  claim     {check.claim}\n  reference {check.reference}\n")
    shown = json.dumps(doc["inputs"])
    w(f"  input     {shown[:300]}{'...' if len(shown) > 300 else ''}\n")
    w(f"  expected  {out.expected!r}   (recomputed now by the exact reference / oracle)\n")
    w(f"  actual    {out.actual!r}   (recomputed now by {name})\n")
    w(f"  stored    expected {doc.get('expected')!r}, actual {doc.get('actual')!r}\n")
    w(f"  tolerance {doc.get('tolerance')!r}\n")
    if out.detail:
        w(f"  detail    {out.detail}\n")
    w(f"  => {'STILL FAILS' if not out.ok else 'passes now (no longer reproduces)'}\n")
    return EXIT_FINDINGS if not out.ok else EXIT_OK


def _replay_claim(doc: dict, fn) -> int:
    from audit.findings import from_jsonable

    still, expected, actual, detail = fn(from_jsonable(doc["inputs"]))
    w = sys.stdout.write
    shown = json.dumps(doc["inputs"])
    w(f"replay {doc['check']} (paper claim)\n")
    w(f"  input     {shown[:300]}{'...' if len(shown) > 300 else ''}\n")
    w(f"  expected  {expected!r}   (recomputed now, exact)\n")
    w(f"  actual    {actual!r}   (the printed claim, recomputed now)\n")
    if detail:
        w(f"  detail    {detail}\n")
    w(f"  => {'STILL FAILS' if still else 'passes now (no longer reproduces)'}\n")
    return EXIT_FINDINGS if still else EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dpaudit",
        description="Audit toolkit for differentially private statistics (DP Gini index).",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    _add_certify(sub)
    _add_calibrate(sub)
    _add_release(sub)
    _add_regress(sub)
    _add_replay(sub)
    _add_claims(sub, "prove", "SymPy derivations and Z3")
    _add_claims(sub, "search", "exhaustive and randomised search against exact oracles")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_BAD_INPUT
    try:
        if args.command == "certify":
            return _cmd_certify(args)
        if args.command == "calibrate":
            return _cmd_calibrate(args)
        if args.command == "release":
            return _cmd_release(args)
        if args.command == "regress":
            return _cmd_regress(args)
        if args.command == "replay":
            return _cmd_replay(args)
        if args.command in ("prove", "search"):
            return _cmd_claims(args)
    except (
        InputError,
        NotNumericError,
        datasets.DataFileError,
        datasets.UnknownSampleError,
        KernelModuleError,
    ) as exc:
        print(f"dpaudit {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"dpaudit {args.command}: interrupted", file=sys.stderr)
        return 130
    parser.error(f"unknown command {args.command!r}")
    return EXIT_BAD_INPUT  # pragma: no cover


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
