"""The ``dpaudit`` command line.  Only command modules (this one, a subject's ``cli``) and
the report modules print or write files.

The engine's commands name no paper: subjects are discovered through the entry-point group
``dpaudit.subjects`` (:mod:`audit.registry`).  ``certify`` runs a subject's certify chain
(``--subject``; default: the subject that declares itself the default), ``release`` and other
subject commands are added by their subjects.

Outcomes and exit codes: one table, :data:`audit.cli_common.OUTCOMES`, used by every command
(``dpaudit --help`` prints it):  0 CERTIFIED / PASS / COMPLETED / PASSES NOW / RELEASED;
1 NOT CERTIFIED / FAIL / CHECK ERROR / STILL FAILS; 2 bad input or usage (one line naming the
flag or value, nothing written); 3 INCONCLUSIVE; 4 internal error (a dpaudit bug; one line,
``DPAUDIT_TRACEBACK=1`` for the traceback); 130 interrupted by SIGINT or SIGTERM (one line;
the last report written is complete JSON marked unfinished).  A run that starts first marks
any earlier report in its folder as replaced (an empty unfinished report); ``--run-id`` is
one folder name inside ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from audit import datasets, registry
from audit.argtypes import integer
from audit.argtypes import run_id as _run_id_type
from audit.argtypes import seed as _seed
from audit.cli_common import (
    EXIT_BAD_INPUT,
    EXIT_FINDINGS,
    EXIT_INCONCLUSIVE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_NOT_CERTIFIED,
    EXIT_OK,
    ArgumentParser,
    finish,
    finite_float,
    flag_names,
    handle_signals,
    interrupted_message,
    outcome,
    outcome_table,
    report_dir,
    start_report,
    write,
)
from audit.cli_common import progress as _progress
from kernels.errors import InputError
from kernels.validate import shorten

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FINDINGS",
    "EXIT_INCONCLUSIVE",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_CERTIFIED",
    "EXIT_OK",
    "build_parser",
    "console",
    "finish",
    "main",
    "start_report",
    "write",
]


def _add_calibrate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "calibrate",
        help="show that the privacy testers pass correct mechanisms and catch broken ones",
        description=(
            "Run the black-box tester and the exact privacy-loss tester on mechanisms with a "
            "known answer (audit/privacy/calibration.py): Laplace at epsilon = 0.1 (target: "
            "certify >= 0.09 at 90% with 2e7 samples), broken Laplace variants, float64 "
            "bit-level runs, and every installed subject's runs (e.g. the DP Gini release and "
            "its broken variants).  One Finding per run: not-refuted when a tester's sampled "
            "answer matches the known one (verified only for the exact tester's certified "
            "bounds), refuted when it does not.  Writes report.json, report.md and "
            "report.html.  Exit 0 if every run matches, 1 if one does not, 3 if one could "
            "not decide."
        ),
    )
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument("--quick", action="store_true", help="smaller sample sizes (less power)")
    p.add_argument("--coverage", action="store_true",
                   help="repeat each tester R times on mechanisms at the claim and test its "
                   "error rate against the nominal one (exact binomial test); power on 2x and "
                   "1.2x twins (audit/privacy/coverage_calibration.py)")
    p.add_argument("--reps", type=integer(low=1), default=None,
                   help="with --coverage: R for every case (default: each case's own)")
    p.add_argument("--only", default=None,
                   help="with --coverage: cases whose key contains this text (comma list: any)")
    p.add_argument("--out", default="reports")
    p.add_argument("--run-id", type=_run_id_type, default=None)


def _cmd_calibrate(a: argparse.Namespace) -> int:
    import time

    from audit.privacy.calibration import all_runs, run_calibration
    from audit.report import build_report

    if a.coverage:
        return _cmd_calibrate_coverage(a)
    if a.reps is not None or a.only is not None:
        raise InputError("--reps and --only need --coverage")
    run_id = a.run_id if a.run_id is not None else f"calibrate-seed{a.seed}"
    started = datetime.now(UTC).isoformat(timespec="seconds")
    runs = all_runs()
    params = {"quick": a.quick, "runs": [r.key for r in runs]}
    out_dir = start_report(a.out, run_id, "calibrate", "testers:audit.privacy", a.seed, params,
                           started)
    findings: list = []
    _progress(f"dpaudit calibrate: {len(runs)} runs, seed {a.seed}")
    t0 = time.perf_counter()

    def step(f) -> None:
        findings.append(f)
        _progress(f"  {f.id:<36} {f.verdict.value:<12} {f.duration_s:6.1f} s")
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


def _finish_calibration(out_dir, seed: int, found: list, figures: list, params: dict,
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


def _cmd_calibrate_coverage(a: argparse.Namespace) -> int:
    import time

    from audit.privacy.coverage_calibration import all_cases, run_coverage, selected
    from audit.report import build_report

    run_id = a.run_id if a.run_id is not None else f"calibrate-coverage-seed{a.seed}"
    started = datetime.now(UTC).isoformat(timespec="seconds")
    keys = [c.key for c in all_cases(a.quick) if selected(c.key, a.only)]
    if not keys:
        raise InputError(f"--only {a.only!r}: no coverage case matches")
    params = {"coverage": True, "quick": a.quick, "reps": a.reps, "only": a.only,
              "cases": keys}
    out_dir = start_report(a.out, run_id, "calibrate", "testers:audit.privacy", a.seed, params,
                           started)
    findings: list = []
    _progress(f"dpaudit calibrate --coverage: {len(keys)} cases, seed {a.seed}")
    t0 = time.perf_counter()

    def step(f) -> None:
        findings.append(f)
        e = f.evidence
        _progress(f"  {f.id:<40} {f.verdict.value:<12} errors {e['errors']}/{e['runs']} "
                  f"(nominal {e['nominal']:g}, p = {e['binomial_p_value']:.3g})  "
                  f"{f.duration_s:6.1f} s")
        write(out_dir, build_report("calibrate", "testers:audit.privacy", a.seed,
                                    findings, params, started, False))

    found, figures = run_coverage(a.seed, a.quick, a.reps, a.only, on_finding=step)
    code = _finish_calibration(out_dir, a.seed, found, figures, params, started,
                               time.perf_counter() - t0)
    print(f"report: {out_dir / 'report.json'}  {out_dir / 'report.md'}  {out_dir / 'report.html'}")
    return code


def _add_claims(sub: argparse._SubParsersAction, name: str, what: str,
                papers: list[str]) -> None:
    p = sub.add_parser(
        name,
        help=f"check the paper's claims by {what}; write a report",
        description=(
            f"Run the registered '{name}' claims of a paper ({what}; --subject: any installed "
            "subject, see dpaudit subjects) within a time budget; one "
            "Finding per claim (verified with its scope / refuted with an exact, "
            "replayable counterexample / inconclusive). Exit 0 when the run completed (refuted "
            "paper claims are results, not failures), 1 if a check itself errored."
        ),
    )
    p.add_argument(
        "--budget",
        type=finite_float,
        default=240.0,
        help="total seconds, shared out evenly and deterministically (no roll-over): a claim "
        "shrinks its documented scope (counted in work: data sets, cases, solver calls) in "
        "proportion when its share is below what that scope needs; the scope reached is in "
        "each finding (default 240)",
    )
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument("--only", default=None, help="run only claims whose key contains this text")
    p.add_argument(
        "--subject",
        "--paper",
        dest="paper",
        choices=papers,
        default=papers[0] if papers else None,
        help="whose claims to check: an installed subject (dpaudit subjects; default "
        "%(default)s); --paper is an alias",
    )
    p.add_argument("--list", action="store_true", help="list the claims and exit")
    p.add_argument("--out", default="reports")
    p.add_argument("--run-id", type=_run_id_type, default=None)


def _cmd_claims(a: argparse.Namespace) -> int:
    import time

    from audit.findings import Finding, Method, Verdict
    from audit.registry import load_all, subject_errors
    from audit.report import build_report, render_summary_table

    if not a.budget > 0:
        raise InputError(f"--budget must be > 0, got {a.budget!r}")
    if a.paper is None:
        raise InputError("--subject: no subject is installed (dpaudit subjects)")
    claims = [c for c in load_all([a.paper]) if c.command == a.command and c.paper == a.paper]
    if a.paper in subject_errors():
        raise InputError(f"--subject {a.paper}: {subject_errors()[a.paper]}")
    if a.only:
        claims = [c for c in claims if a.only in c.key]
    if not claims:
        raise InputError(
            f"no {a.command} claims of paper {a.paper!r} match --only {a.only!r}"
        )
    run_id = a.run_id if a.run_id is not None else f"{a.command}-seed{a.seed}"
    started = datetime.now(UTC).isoformat(timespec="seconds")
    params = {
        "budget_s": a.budget,
        "claims": [c.key for c in claims],
        "only": a.only,
        "paper": a.paper,
    }
    subject = f"paper:{a.paper}"
    if a.list:
        for c in claims:
            print(f"{c.key:<40} {c.title}" + (f"  [{c.reference}]" if c.reference else ""))
        return outcome("listed").code
    out_dir = start_report(a.out, run_id, a.command, subject, a.seed, params, started)
    # each claim's share depends on the budget and the number of claims only (never on how
    # long earlier claims took), so the scopes, hence the verdicts, do not depend on speed
    per = a.budget / len(claims)
    findings: list = []
    _progress(f"dpaudit {a.command}: {len(claims)} claims, budget {a.budget:g} s, seed {a.seed}")
    for i, c in enumerate(claims, 1):
        t0 = time.perf_counter()
        try:
            got = registry.run_claim(c, per, a.seed)
        except Exception as exc:  # a crashing check (or an unreplayable one) is reported
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
            for v in ("verified", "not-refuted", "refuted", "inconclusive", "error")
            if any(f.verdict.value == v for f in got)
        )
        _progress(
            f"  [{i:>2}/{len(claims)}] {c.key:<34} {counts}  ({time.perf_counter() - t0:.1f} s)"
        )
        if i < len(claims):
            write(out_dir, build_report(a.command, subject, a.seed, findings, params, started,
                                        False, figures=_claim_figures(findings) or None))

    def final(oc: dict | None) -> dict:
        return build_report(a.command, subject, a.seed, findings, params, started, True,
                            figures=_claim_figures(findings) or None, outcome=oc)

    rep = final(None)
    # evidence["must_hold"]: our own correct mechanism/kernel - its refutation is a failure
    # (a refuted paper claim is a result)
    own = [f.id for f in findings if f.verdict is Verdict.REFUTED and f.evidence.get("must_hold")]
    if own:
        _progress(f"FAIL: our own correct mechanism/kernel refuted: {', '.join(own)}")
    key = "check-error" if rep["summary"]["error"] else ("fail" if own else "completed")
    rep, code = finish(out_dir, final, key)
    print(render_summary_table(rep))
    print(f"report: {out_dir / 'report.json'}  {out_dir / 'report.md'}  {out_dir / 'report.html'}")
    return code


def _claim_figures(findings: list) -> list[dict]:
    """Figures a claim attached to its evidence (``evidence["figures"]``), first per id."""
    seen: dict[str, dict] = {}
    for f in findings:
        for fig in f.evidence.get("figures", []) or []:
            if isinstance(fig, dict) and fig.get("id") not in seen:
                seen[fig["id"]] = fig
    return list(seen.values())


def _add_subjects(sub: argparse._SubParsersAction) -> None:
    sub.add_parser(
        "subjects",
        help="list the installed subjects (papers, mechanism families) and what they check",
        description="List every subject found through the entry-point group "
        "'dpaudit.subjects': name, paper, number of prove / search claims, mechanisms, "
        "and any subject that failed to load (with its package).",
    )


def _cmd_subjects(a: argparse.Namespace) -> int:
    subs = registry.subjects()
    registry.load_all()
    errors = registry.subject_errors()
    w = sys.stdout.write
    for name, s in subs.items():
        n = {c: sum(1 for k in registry.CLAIMS if k.paper == name and k.command == c)
             for c in ("prove", "search", "reproduce")}
        w(f"{name}\n  paper       {s.paper}\n  package     {s.package or '-'}\n")
        w(f"  claims      prove {n['prove']}, search {n['search']}, reproduce "
          f"{n['reproduce']}\n")
        extras = [x for x, v in (("regress", s.regress), ("certify", s.certify)) if v]
        extras += sorted(s.commands)
        w(f"  commands    {', '.join(extras) or '-'}\n")
        if s.mechanisms:
            try:
                mechs = registry.resolve(s.mechanisms)()
                w(f"  mechanisms  {len(mechs)}: {', '.join(list(mechs)[:6])}"
                  f"{' ...' if len(mechs) > 6 else ''}\n")
            except registry.SubjectLoadError as exc:
                errors.setdefault(name, str(exc))
        if name in errors:
            w(f"  ERROR       {errors[name]}\n")
    for name, msg in errors.items():
        if name not in subs:
            w(f"{name}\n  ERROR       {msg}\n")
    return outcome("subject-error" if errors else "listed").code


def _certify_subjects() -> list[registry.Subject]:
    subs = [s for s in registry.subjects().values() if s.certify]
    return sorted(subs, key=lambda s: (not s.default, s.name))


def _add_certify(sub: argparse._SubParsersAction, argv: Sequence[str]) -> None:
    """``certify``: the options are the chosen subject's (``--subject`` is read first)."""
    subs = _certify_subjects()
    if not subs:
        return
    names = [s.name for s in subs]
    chosen = subs[0]
    argv = list(argv)
    for i, tok in enumerate(argv):
        val = None
        if tok == "--subject" and i + 1 < len(argv):
            val = argv[i + 1]
        elif tok.startswith("--subject="):
            val = tok.split("=", 1)[1]
        if val is not None:
            chosen = next((s for s in subs if s.name == val), chosen)
    try:
        cmd = registry.resolve(chosen.certify)
    except registry.SubjectLoadError:
        return
    others = [n for n in names if n != chosen.name]
    p = sub.add_parser(
        "certify", help=cmd.help, description=getattr(cmd, "description", None),
        usage=f"dpaudit certify [-h] [--subject NAME] [OPTIONS of NAME's chain]\n  (options "
        f"below: --subject {chosen.name}"
        + (f"; see 'dpaudit certify --subject {others[0]} --help'" if others else "")
        + f"; NAME in: {', '.join(names)})")
    p.add_argument("--subject", choices=names, default=chosen.name,
                   help="whose certify chain to run (default %(default)s)")
    cmd.add_arguments(p)
    p.set_defaults(_subject_command=cmd)


def _add_subject_commands(sub: argparse._SubParsersAction) -> None:
    taken = {"certify", "calibrate", "regress", "replay", "prove", "search", "reproduce",
             "subjects", "test"}
    for s in registry.subjects().values():
        for name, ref in sorted(s.commands.items()):
            if name in taken:
                continue
            try:
                cmd = registry.resolve(ref)
            except registry.SubjectLoadError:
                continue
            taken.add(name)
            p = sub.add_parser(name, help=cmd.help, description=getattr(cmd, "description", None))
            cmd.add_arguments(p)
            p.set_defaults(_subject_command=cmd)


def _regress_suites() -> dict[str, object]:
    out = {}
    for name, s in registry.subjects().items():
        if s.regress:
            try:
                out[name] = registry.resolve(s.regress)
            except registry.SubjectLoadError:
                continue
    return out


def _add_regress(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "regress",
        help="cross-check a kernel module against the exact reference and oracles",
        description=(
            "Run every cross-check of a subject's regress suite on a kernel module (default: "
            "each subject's own kernels; --kernels MODULE audits any module implementing a "
            "subject's kernel protocol, e.g. kernels.gini.printed, the Gini paper as printed), "
            "write reports/<run-id>/report.json, report.md and report.html, print a summary; "
            "exit 0 only if nothing was refuted and at least one check ran (a run that "
            "checked nothing never passes: --only matching no check id is bad input, exit 2)."
        ),
    )
    p.add_argument("--kernels", default=None, help="kernel module (default: the subject's own)")
    p.add_argument("--subject", default=None,
                   help="whose protocol the module implements (default: found from the module)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="fewer generated inputs (default)")
    mode.add_argument("--full", action="store_true", help="more inputs, larger n")
    p.add_argument("--seed", type=_seed, default=0, help="seed of the input search (default 0)")
    p.add_argument("--out", default="reports", help="report directory root (default reports)")
    p.add_argument("--run-id", type=_run_id_type, default=None,
                   help="report sub-directory name")
    p.add_argument("--only", default=None, help="run only checks whose id contains this text")


def _suite_for(name: str | None, kernels: str | None) -> tuple[str, object, str]:
    from audit.protocols import load_kernels, provided

    suites = _regress_suites()
    if not suites:
        raise InputError("no installed subject provides a regress suite (dpaudit subjects)")
    if name is not None:
        if name not in suites:
            raise InputError(f"--subject {name}: no regress suite; choose from "
                             f"{', '.join(sorted(suites))}")
        suite = suites[name]
        return name, suite, kernels or suite.default_kernels
    if kernels is None:
        name = next(iter(sorted(suites, key=lambda n: not registry.subjects()[n].default)))
        return name, suites[name], suites[name].default_kernels
    mod = load_kernels(kernels)
    declared = getattr(mod, "DPAUDIT_SUBJECT", None)
    if declared is not None:
        if declared not in suites:
            raise InputError(f"--kernels {kernels}: DPAUDIT_SUBJECT = {declared!r} is not an "
                             f"installed subject with a regress suite")
        return declared, suites[declared], kernels
    best = max(suites, key=lambda n: len(provided(mod, suites[n].protocol)))
    return best, suites[best], kernels


def _cmd_regress(a: argparse.Namespace) -> int:
    from audit.protocols import load_kernels, provided
    from audit.report import build_report, render_summary_table

    if a.kernels is None and a.subject is None:  # every subject's own kernels, one report
        plan = [(n, s, s.default_kernels) for n, s in sorted(
            _regress_suites().items(), key=lambda t: (not registry.subjects()[t[0]].default,
                                                      t[0]))]
        if not plan:
            raise InputError("no installed subject provides a regress suite (dpaudit subjects)")
    else:
        plan = [_suite_for(a.subject, a.kernels)]
    mods = [(subj, suite, kernels, load_kernels(kernels, suite.protocol))
            for subj, suite, kernels in plan]
    kernels = " + ".join(k for _, _, k, _ in mods)
    subject = " + ".join(f"kernels:{k}" for _, _, k, _ in mods)
    mode = "full" if a.full else "quick"
    tag = mods[0][2] if len(mods) == 1 else "all"
    run_id = a.run_id if a.run_id is not None else f"regress-{tag}-{mode}-seed{a.seed}"
    if a.only is not None:
        _check_only(a.only, [suite for _, suite, _, _ in mods])
    report_dir(a.out, run_id)  # bad --out / --run-id: exit 2 before anything runs
    started = datetime.now(UTC).isoformat(timespec="seconds")
    params: dict = {
        "kernels": kernels,
        "kernels_name": " + ".join(str(getattr(m, "DPAUDIT_NAME", k)) for _, _, k, m in mods),
        "subject": " + ".join(s for s, _, _, _ in mods),
        "mode": mode,
        "provided": [n for _, suite, _, m in mods for n in provided(m, suite.protocol)],
        "only": a.only,
    }
    for _, suite, _, m in mods:
        if hasattr(suite, "parameters"):
            params.update(suite.parameters(m, mode))
    findings: list = []
    out_dir = start_report(a.out, run_id, "regress", subject, a.seed, params, started)
    _progress(f"dpaudit regress: {params['kernels_name']} ({kernels}), {mode}, seed {a.seed}")
    for j, (_, suite, kern, mod) in enumerate(mods):
        last_suite = j == len(mods) - 1

        def on_finding(i: int, total: int, f, last_suite: bool = last_suite) -> None:
            findings.append(f)
            _progress(f"  [{i:>2}/{total}] {f.id:<38} {f.verdict.value:<12} {f.duration_s:6.1f} s")
            write(out_dir, build_report("regress", subject, a.seed, findings, params, started,
                                        False))

        suite.run(mod, f"kernels:{kern}", a.seed, mode, a.only, on_finding)
    # one raise seen by several checks is one finding listing its checks
    from audit.checks.root_cause import group_by_root_cause
    from audit.report import counterexample_relpath

    kept = group_by_root_cause(findings)
    for gone in {f.id for f in findings} - {f.id for f in kept}:  # merged: no file of its own
        (out_dir / counterexample_relpath(gone)).unlink(missing_ok=True)
    findings[:] = kept

    def final(oc: dict | None) -> dict:
        return build_report("regress", subject, a.seed, findings, params, started, True,
                            outcome=oc)

    # our own kernels are correct by claim: any refutation (or error) is a failure; a run
    # that checked nothing never passes
    key = ("inconclusive" if not findings else
           "pass" if final(None)["summary"]["pass"] else "fail")
    rep, code = finish(out_dir, final, key)
    print(render_summary_table(rep))
    if not findings:
        print("INCONCLUSIVE: no check ran (nothing was checked)")
    print(f"report: {out_dir / 'report.json'}  {out_dir / 'report.md'}  {out_dir / 'report.html'}")
    return code


def _check_only(only: str, suites: list) -> None:
    """``--only TEXT`` must select at least one check of the suites that list their check
    ids (``check_ids()``); otherwise nothing would be checked: bad input before anything
    is written."""
    known: list[str] = []
    for suite in suites:
        ids = getattr(suite, "check_ids", None)
        if ids is None:
            return  # a suite that cannot list its checks: the run decides (never a pass)
        known.extend(ids())
    if not any(only in k for k in known):
        from kernels.validate import list_some

        raise InputError(f"--only {shorten(repr(only))} matches no check id (nothing would be "
                         f"checked); ids: {list_some(known, 6)}")


def _add_replay(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="re-run a stored counterexample and show expected vs actual",
        description="Re-run the check named in a counterexample JSON on its stored input.",
    )
    p.add_argument("file", help="counterexample JSON (reports/<run>/counterexamples/*.json)")
    p.add_argument("--kernels", default=None, help="override the kernel module stored in FILE")
    p.add_argument("--key-file", default=None, metavar="PATH",
                   help="the data holder's fingerprint key (default: the one the "
                   "counterexample names, beside the confidential report)")


def _cmd_replay(a: argparse.Namespace) -> int:
    from audit.protocols import load_kernels

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
    if not isinstance(doc.get("check"), str):
        raise InputError(f"{a.file!r} names no check")
    if not isinstance(doc.get("inputs"), dict):
        raise InputError(f"{a.file!r} has no inputs object")
    # a data reference is resolved against the working directory, then the report folder
    # (FILE is REPORT/counterexamples/ID.json), so a replay works from any directory
    src = doc["inputs"].get("source")
    if isinstance(src, dict) and "file" in src:
        doc["inputs"]["source"] = datasets.resolve_file_reference(
            src, Path(a.file).resolve().parent.parent)
    fpr = doc["inputs"].get("fingerprint")  # a keyed data fingerprint: find its key
    if isinstance(fpr, dict):
        from audit import fingerprint

        doc["inputs"]["fingerprint"] = fingerprint.resolved_reference(
            fpr, Path(a.file).resolve().parent.parent, a.key_file)
    subject = str(doc.get("subject", ""))
    registry.load_all()
    # a check with a registered replayer (a claim's) is replayed by it; a regress check by
    # its subject's regress suite on the kernel module named in FILE (or --kernels)
    if (subject.startswith("kernels:") and doc["check"] not in registry.REPLAYERS) or a.kernels:
        name = a.kernels or subject.split(":", 1)[1]
        for suite in _regress_suites().values():
            got = suite.replay(doc, load_kernels(name))
            if got is not None:
                still, lines = got
                sys.stdout.write("\n".join(lines) + "\n")
                o = outcome("still-fails" if still else "passes-now")
                sys.stdout.write(f"  => {o.word}\n")
                return o.code
    registry.load_all()
    _load_engine_replayers()
    if doc["check"] not in registry.REPLAYERS:
        raise InputError(f"{a.file}: no installed subject knows check {doc['check']!r}")
    return _replay_claim(doc, registry.REPLAYERS[doc["check"]])


def _load_engine_replayers() -> None:
    """Register the engine's own replayers (calibration runs, ``dpaudit test``): they live
    in modules that only ``replay`` needs, so they are imported here, not at start-up."""
    import audit.privacy.user_audit  # noqa: F401  (registers the dpaudit test replayers)
    from audit.privacy.calibration import all_runs

    all_runs()  # registers calibration.<run> for the engine's and every subject's runs


def _replay_claim(doc: dict, fn) -> int:
    from audit.findings import from_jsonable

    try:
        still, expected, actual, detail = registry.Replay.of(fn(from_jsonable(doc["inputs"])))
    except (KeyError, TypeError) as exc:
        raise InputError(f"counterexample {doc['check']!r}: malformed inputs ({exc})") from None
    w = sys.stdout.write
    shown = json.dumps(doc["inputs"])
    subject = str(doc.get("subject") or "")
    what = ("a certify link on data " + subject.split(":", 1)[1][:24] + "..."
            if subject.startswith("data:") else
            "paper claim " + subject.split(":", 1)[1] if subject.startswith("paper:")
            else subject or "check")
    under_test = ("the release on this data" if subject.startswith("data:")
                  else "the claim under test")
    w(f"replay {doc['check']} ({what})\n")
    w(f"  input     {shown[:300]}{'...' if len(shown) > 300 else ''}\n")
    w(f"  expected  {expected!r}   (recomputed now)\n")
    w(f"  actual    {actual!r}   ({under_test}, recomputed now)\n")
    if detail:
        w(f"  detail    {detail}\n")
    o = outcome("still-fails" if still else "passes-now")
    w(f"  => {o.word}\n")
    return o.code


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    p = ArgumentParser(
        prog="dpaudit",
        description="Audit toolkit for differentially private statistics and mechanisms.",
        epilog="outcomes (every command; exit code, word):\n" + outcome_table(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    subs = registry.subjects()
    papers = sorted(subs, key=lambda n: (not subs[n].default, n))
    _add_certify(sub, argv)
    _add_calibrate(sub)
    from audit.user_test import COMMAND as _test

    _test_parser = sub.add_parser("test", help=_test.help, description=_test.description)
    _test.add_arguments(_test_parser)
    _test_parser.set_defaults(_subject_command=_test)
    _add_subject_commands(sub)
    _add_regress(sub)
    _add_replay(sub)
    _add_claims(sub, "prove", "SymPy derivations and Z3", papers)
    _add_claims(sub, "search", "exhaustive and randomised search against exact oracles", papers)
    _add_claims(sub, "reproduce", "re-running the paper's experiments and figures", papers)
    _add_subjects(sub)
    return p


#: longest one-line message (a message quoting huge input is cut, never a megabyte)
MESSAGE_MAX = 600


def _one_line(text: str) -> str:
    return shorten(" ".join(str(text).split()), MESSAGE_MAX)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``dpaudit`` command; returns its exit code (see the outcome table).  Never
    raises (``SystemExit`` from argparse becomes its code): bad input is one line on stderr
    and exit 2, an interrupt (SIGINT or SIGTERM) one line and 130, a dpaudit bug one line
    and 4."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = "dpaudit"
    flags: dict[str, str] = {}
    with handle_signals():
        try:
            parser = build_parser(argv)
            try:
                args = parser.parse_args(argv)
            except SystemExit as exc:  # --help (0) or a one-line usage error (2)
                return int(exc.code) if isinstance(exc.code, int) else EXIT_BAD_INPUT
            if args.command is None:
                parser.print_help(sys.stderr)
                return EXIT_BAD_INPUT
            command = f"dpaudit {args.command}"
            flags = _flags_of(parser, args.command)
            if getattr(args, "_subject_command", None) is not None:
                return args._subject_command.run(args)
            if args.command == "calibrate":
                return _cmd_calibrate(args)
            if args.command == "regress":
                return _cmd_regress(args)
            if args.command == "replay":
                return _cmd_replay(args)
            if args.command in ("prove", "search", "reproduce"):
                return _cmd_claims(args)
            if args.command == "subjects":
                return _cmd_subjects(args)
            print(f"{command}: error: unknown command {args.command!r}", file=sys.stderr)
            return EXIT_BAD_INPUT
        except InputError as exc:  # every bad input: one base class
            print(f"{command}: error: {_one_line(exc.render(flags))}", file=sys.stderr)
            return outcome("bad-input").code
        except KeyboardInterrupt as exc:
            why = str(exc) if str(exc) in ("SIGINT", "SIGTERM") else "SIGINT"
            print(f"{command}: {interrupted_message(why)}", file=sys.stderr)
            return outcome("interrupted").code
        except SystemExit as exc:  # code under audit called sys.exit: never its exit code
            print(f"{command}: internal error: SystemExit({_one_line(exc.code)}) was raised "
                  "while the command ran (a bug in dpaudit, or user code calling sys.exit; "
                  "set DPAUDIT_TRACEBACK=1 for the traceback)", file=sys.stderr)
            return outcome("internal-error").code
        except BrokenPipeError:
            return EXIT_OK
        except Exception as exc:  # a bug: one line (the traceback on request), never rc 1
            if os.environ.get("DPAUDIT_TRACEBACK"):
                import traceback

                traceback.print_exc()
            print(f"{command}: internal error: {type(exc).__name__}: {_one_line(exc)[:300]} "
                  "(a bug in dpaudit; set DPAUDIT_TRACEBACK=1 for the traceback)",
                  file=sys.stderr)
            return outcome("internal-error").code


def _flags_of(parser: argparse.ArgumentParser, command: str) -> dict[str, str]:
    """The ``dest -> --flag`` table of one command's sub-parser."""
    for act in parser._actions:  # the sub-parsers action (argparse has no public accessor)
        choices = getattr(act, "choices", None)
        if isinstance(choices, dict) and command in choices:
            return flag_names(choices[command])
    return {}


def console() -> None:
    """The ``dpaudit`` executable (and ``python -m audit.cli``): :func:`main`, then exit with
    its code.  SIGINT/SIGTERM are ignored outside :func:`main`'s own handlers, which it
    installs at once and which restore this on return: a signal that arrives after the run
    is over (final report written, handlers gone) cannot replace the run's exit code by a
    KeyboardInterrupt during interpreter shutdown (seen as exit -2 once certify got fast)."""
    import signal

    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, signal.SIG_IGN)
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    console()
