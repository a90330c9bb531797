"""``dpaudit regress``: cross-check a kernel module against a subject's exact reference and
oracles (each installed subject's regress suite).  Command module: it prints progress and
the summary and writes the report."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import Any

from audit import registry
from audit.checks.root_cause import group_by_root_cause
from audit.cli.argtypes import run_id, seed
from audit.cli.command import Command
from audit.cli.folders import report_dir
from audit.cli.progress import progress
from audit.cli.run import finish, start_report, write
from audit.findings import Finding, Method, Verdict
from kernels.errors import InputError
from kernels.validate import list_some, shorten

__all__ = ["COMMAND", "RegressCommand", "regress_suites"]


def regress_suites() -> dict[str, Any]:
    """``subject name -> regress suite`` of every installed subject that offers one (a
    suite that cannot be loaded is left out here; :func:`unloadable_suites` names it, and
    ``regress`` over every subject turns it into an error finding, never a silent skip)."""
    return _load_suites()[0]


def unloadable_suites() -> dict[str, str]:
    """``subject name -> one-line reason`` for every installed subject whose regress suite
    (or whose entry point) failed to load."""
    return _load_suites()[1]


def _load_suites() -> tuple[dict[str, Any], dict[str, str]]:
    out: dict[str, Any] = {}
    errors: dict[str, str] = dict(registry.subject_errors())
    for name, s in registry.subjects().items():
        if s.regress:
            try:
                out[name] = registry.resolve(s.regress)
            except registry.SubjectLoadError as exc:
                errors[name] = str(exc)
    return out, errors


class RegressCommand(Command):
    help = "cross-check a kernel module against the exact reference and oracles"
    description = (
        "Run every cross-check of a subject's regress suite on a kernel module (default: "
        "each subject's own kernels; --kernels MODULE audits any module implementing a "
        "subject's kernel protocol, e.g. kernels.gini.printed, the Gini paper as printed), "
        "write reports/<run-id>/report.json, report.md and report.html, print a summary; "
        "over every subject (no --kernels / --subject) it also runs the engine's own "
        "self-checks (engine.*: the searches' reach on planted worst cases, the samplers' "
        "fit to their declared laws); "
        "exit 0 only if nothing was refuted and at least one check ran (a run that "
        "checked nothing never passes: --only matching no check id is bad input, exit 2)."
    )

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("--kernels", default=None,
                       help="kernel module (default: the subject's own)")
        p.add_argument("--subject", default=None,
                       help="whose protocol the module implements (default: found from the "
                       "module)")
        mode = p.add_mutually_exclusive_group()
        mode.add_argument("--quick", action="store_true", help="fewer generated inputs (default)")
        mode.add_argument("--full", action="store_true", help="more inputs, larger n")
        p.add_argument("--seed", type=seed, default=0, help="seed of the input search (default 0)")
        p.add_argument("--out", default="reports", help="report directory root (default reports)")
        p.add_argument("--run-id", type=run_id, default=None,
                       help="report sub-directory name")
        p.add_argument("--only", default=None, help="run only checks whose id contains this text")

    def run(self, a: argparse.Namespace) -> int:
        return _run_regress(a)


def _suite_for(name: str | None, kernels: str | None) -> tuple[str, Any, str]:
    from audit.protocols import load_kernels, provided

    suites = regress_suites()
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


def _run_regress(a: argparse.Namespace) -> int:
    from audit.privacy.self_checks import SELF_CHECK_IDS, run_self_checks, selected
    from audit.protocols import load_kernels, provided
    from audit.report import build_report, counterexample_relpath, render_summary_table

    unloaded: dict[str, str] = {}
    if a.kernels is None and a.subject is None:  # every subject's own kernels, one report
        suites, unloaded = _load_suites()
        plan = [(n, s, s.default_kernels) for n, s in sorted(
            suites.items(), key=lambda t: (not registry.subjects()[t[0]].default, t[0]))]
        if not plan and not unloaded:
            raise InputError("no installed subject provides a regress suite (dpaudit subjects)")
    else:
        plan = [_suite_for(a.subject, a.kernels)]
    mods = []
    for subj, suite, kern in plan:
        if a.kernels is None and a.subject is None:  # a subject's own kernels: its failure
            try:                                      # is an error finding, not bad input
                mods.append((subj, suite, kern, load_kernels(kern, suite.protocol)))
            except InputError as exc:
                unloaded[subj] = f"kernel module {kern}: {exc}"
        else:
            mods.append((subj, suite, kern, load_kernels(kern, suite.protocol)))
    kernels = " + ".join(k for _, _, k, _ in mods)
    subject = " + ".join(f"kernels:{k}" for _, _, k, _ in mods)
    mode = "full" if a.full else "quick"
    tag = mods[0][2] if len(mods) == 1 else "all"
    rid = a.run_id if a.run_id is not None else f"regress-{tag}-{mode}-seed{a.seed}"
    # over every subject, regress also runs the engine's self-checks (search reach, samplers)
    every = a.kernels is None and a.subject is None
    if a.only is not None:
        _check_only(a.only, [suite for _, suite, _, _ in mods],
                    SELF_CHECK_IDS if every else ())
    report_dir(a.out, rid)  # bad --out / --run-id: exit 2 before anything runs
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
    findings: list = [suite_load_error(name, why) for name, why in sorted(unloaded.items())]
    out_dir = start_report(a.out, rid, "regress", subject, a.seed, params, started)
    progress(f"dpaudit regress: {params['kernels_name']} ({kernels}), {mode}, seed {a.seed}")
    for f in findings:
        progress(f"  {f.id:<42} {f.verdict.value:<12} {f.scope}")
    accounts: list[dict] = []
    for j, (subj, suite, kern, mod) in enumerate(mods):
        last_suite = j == len(mods) - 1
        ran: set[int] = set()
        reported: list[int] = []

        def on_finding(i: int, total: int, f, last_suite: bool = last_suite,
                       ran: set[int] = ran, reported: list[int] = reported) -> None:
            ran.add(i)
            reported[:] = [total]
            findings.append(f)
            progress(f"  [{i:>2}/{total}] {f.id:<38} {f.verdict.value:<12} {f.duration_s:6.1f} s")
            write(out_dir, build_report("regress", subject, a.seed, findings, params, started,
                                        False))

        suite.run(mod, f"kernels:{kern}", a.seed, mode, a.only, on_finding)
        account = check_account(subj, suite, a.only, ran, reported[0] if reported else 0)
        accounts.append(account)
        if account["missing"]:
            findings.append(accounting_error(account))
    if every:
        def on_engine(f: Finding) -> None:
            findings.append(f)
            progress(f"  {f.id:<42} {f.verdict.value:<12} {f.duration_s:6.1f} s")

        engine = run_self_checks(a.seed, a.only, on_engine)
        account = {"subject": "engine", "expected": len(selected(a.only)),
                   "announced": len(selected(a.only)), "ran": len(engine),
                   "missing": len(selected(a.only)) - len(engine)}
        accounts.append(account)
        if account["missing"]:
            findings.append(accounting_error(account))
    params["checks_expected_vs_run"] = accounts
    # one raise seen by several checks is one finding listing its checks
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


def suite_load_error(subject: str, why: str) -> Finding:
    """An ERROR finding for a subject whose regress suite cannot be loaded: the run over
    every subject fails instead of silently checking fewer kernels."""
    return registry.load_error_finding("regress.suite-load", subject, "regress suite", why)


def check_account(subject: str, suite: Any, only: str | None, ran: set[int],
                  total_reported: int) -> dict[str, Any]:
    """How many checks the suite declares (its ``check_ids()``, after ``--only``), how many
    the runner said it would run, and how many produced a finding.  Counted from the
    suite's own table, independently of the runner that ran it."""
    ids = getattr(suite, "check_ids", None)
    declared = None if ids is None else [c for c in ids() if only is None or only in c]
    expected = len(declared) if declared is not None else total_reported
    # every index that produced a finding was announced (ran <= announced), so a runner
    # that announced too few is counted here too, once
    missing = max(expected - len(ran), 0)
    return {"subject": subject, "expected": expected, "announced": total_reported,
            "ran": len(ran), "missing": missing}


def accounting_error(account: dict[str, Any]) -> Finding:
    """An ERROR finding for a suite that ran fewer checks than it declares."""
    subj = account["subject"]
    return Finding(
        id=f"regress.check-count.{registry.id_tag(subj)}",
        claim=f"every check of subject {subj!r}'s regress suite ran",
        reference="dpaudit regress: a run that checked less never passes",
        method=Method.EXACT, verdict=Verdict.ERROR,
        scope=(f"{account['expected']} checks declared, {account['announced']} announced by "
               f"the runner, {account['ran']} produced a finding"),
        evidence={**account, "must_hold": True}, subject=f"subject:{subj}")


def _check_only(only: str, suites: list, extra: tuple[str, ...] = ()) -> None:
    """``--only TEXT`` must select at least one check of the suites that list their check
    ids (``check_ids()``) or of ``extra`` (the engine's self-checks); otherwise nothing
    would be checked: bad input before anything is written."""
    known: list[str] = list(extra)
    for suite in suites:
        ids = getattr(suite, "check_ids", None)
        if ids is None:
            return  # a suite that cannot list its checks: the run decides (never a pass)
        known.extend(ids())
    if not any(only in k for k in known):
        raise InputError(f"--only {shorten(repr(only))} matches no check id (nothing would be "
                         f"checked); ids: {list_some(known, 6)}")


COMMAND = RegressCommand()
