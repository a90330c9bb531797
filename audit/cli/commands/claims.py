"""``dpaudit prove | search | reproduce``: run a subject's registered claims of one kind
within a time budget; one Finding per claim.  Command module: it prints progress and the
summary and writes the report."""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime

from audit import registry
from audit.cli.argtypes import finite_float, run_id, seed
from audit.cli.command import Command
from audit.cli.outcomes import outcome
from audit.cli.progress import progress
from audit.cli.run import finish, start_report, write
from kernels.errors import InputError

__all__ = ["ClaimsCommand"]


class ClaimsCommand(Command):
    """The claims of kind ``name`` (``prove``, ``search``, ``reproduce``), checked by
    ``what``; ``--subject`` chooses among the installed subjects (default first)."""

    def __init__(self, name: str, what: str) -> None:
        self.name = name
        self.what = what
        self.help = f"check the paper's claims by {what}; write a report"
        self.description = (
            f"Run the registered '{name}' claims of a paper ({what}; --subject: any installed "
            "subject, see dpaudit subjects) within a time budget; one "
            "Finding per claim (verified with its scope / refuted with an exact, "
            "replayable counterexample / inconclusive). Exit 0 when the run completed (refuted "
            "paper claims are results, not failures), 1 if a check itself errored."
        )

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        subs = registry.subjects()
        papers = sorted(subs, key=lambda n: (not subs[n].default, n))
        p.add_argument(
            "--budget",
            type=finite_float,
            default=240.0,
            help="total seconds, shared out evenly and deterministically (no roll-over): a "
            "claim shrinks its documented scope (counted in work: data sets, cases, solver "
            "calls) in proportion when its share is below what that scope needs; the scope "
            "reached is in each finding (default 240)",
        )
        p.add_argument("--seed", type=seed, default=0)
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
        p.add_argument("--run-id", type=run_id, default=None)

    def run(self, a: argparse.Namespace) -> int:
        return _run_claims(a)


def _run_claims(a: argparse.Namespace) -> int:
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
    rid = a.run_id if a.run_id is not None else f"{a.command}-seed{a.seed}"
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
    out_dir = start_report(a.out, rid, a.command, subject, a.seed, params, started)
    # each claim's share depends on the budget and the number of claims only (never on how
    # long earlier claims took), so the scopes, hence the verdicts, do not depend on speed
    per = a.budget / len(claims)
    findings: list = []
    progress(f"dpaudit {a.command}: {len(claims)} claims, budget {a.budget:g} s, seed {a.seed}")
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
            for v in ("verified", "vacuous", "not-refuted", "refuted", "inconclusive", "error")
            if any(f.verdict.value == v for f in got)
        )
        progress(
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
        progress(f"FAIL: our own correct mechanism/kernel refuted: {', '.join(own)}")
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
