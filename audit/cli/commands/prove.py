"""``dpaudit prove``: without an argument, the paper claims of kind ``prove`` (SymPy
derivations and Z3, :class:`~audit.cli.commands.claims.ClaimsCommand`); with
``MODULE:OBJECT``, prove a DSL mechanism (:mod:`audit.dsl`) epsilon-DP by
randomness-alignment synthesis with Z3 (:mod:`audit.prove`), or refute it exactly, or say
why neither (a command module: it prints the summary and writes the report).

Outcome (the report says the same word): 0 PROVED (verified for the stated scope: every n <=
``--n-max``, the relation, every eps > 0 or the stated ``--epsilon``, and the proof's twin --
the claim tightened below the loss the program attains -- refuted in that scope:
:mod:`audit.prove.twin`), 1 REFUTED (an exact counterexample from the refutation search),
3 VACUOUS (an alignment verified, but its twin not refuted: the proof could not have failed
in its scope; never PROVED), 2 bad input (not a DSL mechanism, a program
outside the DSL; nothing written), 3 INCONCLUSIVE (no alignment of the templates: the report
names the draw site whose template had no solution and the Z3 counterexample (q, d, noise)).

Writes ``<out>/<run-id>/report.json|md|html`` through the same report functions as
``dpaudit test`` (:func:`audit.cli.run.start_report` / :func:`~audit.cli.run.finish`).
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

from audit.cli.argtypes import epsilon as epsilon_type
from audit.cli.argtypes import finite_float, integer
from audit.cli.commands.claims import ClaimsCommand
from audit.cli.folders import report_dir
from audit.cli.run import finish, start_report
from audit.dsl import RELATIONS, DSLError
from audit.privacy.import_root import ensure_cwd_on_path
from audit.prove.closed_world import DEFAULT_BUDGET, Budget
from kernels.errors import InputError

__all__ = ["COMMAND", "ProveCommand"]


class ProveCommand(ClaimsCommand):
    """``prove``: the paper claims (no positional argument) or a DSL mechanism."""

    def __init__(self) -> None:
        super().__init__("prove", "SymPy derivations and Z3")
        self.help = ("check the paper's claims by SymPy derivations and Z3, or prove a DSL "
                     "mechanism (MODULE:OBJECT) epsilon-DP with Z3 / refute it exactly")
        self.description = (
            f"{self.description}  With MODULE:OBJECT: prove a mechanism written with "
            "audit.dsl epsilon-DP for every number of queries n <= --n-max by synthesising "
            "a randomness alignment (CheckDP-style templates, a counterexample-guided loop "
            "with Z3), or refute it with an exact counterexample; exit 0 proved (for the "
            "stated scope, the proof's twin -- the claim tightened below the loss the "
            "program attains -- refuted there), 1 refuted, 2 bad input, 3 inconclusive or "
            "vacuous (an alignment verified but its twin not refuted: never PROVED).")

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        super().add_arguments(p)  # --seed, --out, --run-id are the claims command's
        p.add_argument("mechanism", metavar="MODULE:OBJECT", nargs="?", default=None,
                       help="a DSL mechanism, e.g. audit.examples.dsl_mechanisms:sparse_vector")
        p.add_argument("--n-max", type=integer(low=1, high=8), default=4,
                       help="prove for every number of queries n <= this (default 4)")
        p.add_argument("--epsilon", default=None, type=epsilon_type,
                       help="prove for this epsilon (default: every eps > 0 when every noise "
                       "scale is c/eps, else the mechanism's claimed epsilon)")
        p.add_argument("--relation", choices=RELATIONS, default=None,
                       help="neighbouring query vectors (default: the mechanism's)")
        p.add_argument("--max-rounds", type=integer(low=1), default=60,
                       help="synthesis/verification rounds at most (default 60)")
        for act in p._actions:  # the claims' --budget (seconds) also takes work units
            if "--budget" in act.option_strings:
                act.type, act.default, act.metavar = _budget_arg, None, "SECONDS|KEY=N,..."
                act.help = (f"{act.help}.  With MODULE:OBJECT: work units bounding the proof, "
                            "KEY=N[,KEY=N...] with KEY steps (lines of the program per run, "
                            "default 200000), draws / branches (per run, default 10000 / "
                            "1000), paths (per n, default 100000), work (draws + branches over "
                            "all runs per n, default 10000), rlimit (Z3 resource units per "
                            "query); a run over it is refused (exit 2) naming the line")
        p.add_argument("--no-refute", action="store_true",
                       help="do not search for an exact counterexample when no alignment is "
                       "found")

    def run(self, a: argparse.Namespace) -> int:
        if a.mechanism is None:
            if isinstance(a.budget, Budget):
                raise InputError("--budget KEY=N (work units) is for MODULE:OBJECT; the paper "
                                 "claims take --budget SECONDS")
            if a.budget is None:
                a.budget = 240.0
            return super().run(a)
        return self._run_mechanism(a)

    def _run_mechanism(self, a: argparse.Namespace) -> int:
        from audit.dsl import Mechanism
        from audit.privacy.user_mechanism import load_object
        from audit.prove.proof import prove_mechanism
        from audit.report import build_report

        if a.mechanism is None:
            raise InputError("give the mechanism as MODULE:OBJECT")
        run_id = (a.run_id if a.run_id is not None else
                  f"prove-{a.mechanism.replace(':', '-')}")
        report_dir(a.out, run_id)  # --out / --run-id checked before anything runs
        ensure_cwd_on_path()  # the user's module, as `dpaudit test` does
        obj = load_object(a.mechanism)
        if not isinstance(obj, Mechanism):
            raise InputError(f"{a.mechanism} is not a DSL mechanism (decorate the function "
                             "with @audit.dsl.mechanism; see audit/dsl.py)")
        started = datetime.now(UTC).isoformat(timespec="seconds")
        eps = None if a.epsilon is None else Fraction(a.epsilon)
        budget = DEFAULT_BUDGET if a.budget is None else a.budget
        if not isinstance(budget, Budget):
            raise InputError(f"--budget {a.budget:g}: with MODULE:OBJECT the budget is work "
                             "units KEY=N[,KEY=N...] (e.g. --budget steps=100000,draws=500), "
                             "never seconds")
        t0 = time.perf_counter()
        try:
            v = prove_mechanism(obj, n_max=a.n_max, epsilon=eps, relation=a.relation,
                                max_rounds=a.max_rounds, refute=not a.no_refute,
                                ref=a.mechanism, budget=budget)
        except DSLError as exc:  # the user's program: bad input, nothing written
            raise InputError(f"{a.mechanism}: {exc}") from None
        wall = time.perf_counter() - t0
        subject = f"mechanism:{a.mechanism}"
        params = {"mechanism": a.mechanism, "n_max": a.n_max, "relation": v.relation,
                  "epsilon": "symbolic" if v.epsilon is None else str(v.epsilon),
                  "max_rounds": a.max_rounds, "refute": not a.no_refute,
                  "budget": budget.text()}
        out_dir = start_report(a.out, run_id, "prove", subject, a.seed, params, started)
        finding = v.to_finding(subject)
        key = {"verified": "proved", "refuted": "refuted", "vacuous": "vacuous"}.get(
            v.status, "inconclusive")

        def final(oc: dict | None) -> dict:
            return build_report("prove", subject, a.seed, [finding],
                                {**params, "outcome": v.status}, started, True,
                                total_duration_s=wall, outcome=oc)

        if v.status == "verified" and v.certificate is not None:
            from audit.cli.commands.prove_certificate import write_certificate

            write_certificate(out_dir, v.certificate)
        _, code = finish(out_dir, final, key)
        self._summary(v, wall, out_dir)
        return code

    @staticmethod
    def _summary(v: Any, wall: float, out_dir: Path) -> None:
        w = sys.stdout.write
        word = {"verified": "PROVED", "refuted": "REFUTED", "vacuous": "VACUOUS"}.get(
            v.status, "INCONCLUSIVE")
        w(f"{word}: claim: {v.claim()}\n  scope: {v.scope_text()}\n")
        w(f"  paths per n: {', '.join(f'n={k}: {c}' for k, c in v.paths.items())}; "
          f"{v.rounds} rounds, {v.examples} counterexamples, {v.solver_calls} Z3 calls\n")
        for line in v.sketch:
            w(f"  {line}\n")
        if v.twin is not None:
            w(f"  twin: {v.twin['perturbation']}: {v.twin['outcome']}"
              f"{' (' + v.twin['detail'] + ')' if v.twin.get('detail') else ''}\n")
        if v.status != "verified":
            w(f"  reason: {v.reason}\n")
            if v.failing_sites:
                w(f"  draw site(s) whose template had no solution: "
                  f"{', '.join(v.failing_sites)}\n")
            if v.counterexample is not None:
                cx = v.counterexample
                w(f"  Z3 counterexample ({cx['kind']}, n={cx['n']}): q={cx['q']} "
                  f"d={cx['d']} noise={cx['noise']}\n")
            if v.witness is not None:
                wt = v.witness
                w(f"  witness: q={wt.get('q')} q'={wt.get('q_prime')} epsilon_witness "
                  f">= {wt.get('epsilon_witness_lower')}\n")
                ind = wt.get("independent")
                if ind:
                    w(f"  confirmed by the independent evaluator: P = {ind['P']}, P' = "
                      f"{ind['P_prime']} (agree to {ind['tolerance']})\n")
        for note in v.notes:
            w(f"  note: {note}\n")
        w(f"  wall {wall:.1f} s; report: {out_dir / 'report.json'}\n")


def _budget_arg(text: str) -> float | Budget:
    """``--budget``: seconds (a number, the paper claims) or work units ``KEY=N,...``."""
    if "=" in text:
        try:
            return Budget.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return finite_float(text)


COMMAND = ProveCommand()

