"""Kernel checks: a kernel function against an independent truth, and the one runner.

A :class:`KernelCheck` states one property of the functions a kernel module provides (its
``needs``): an ``evaluate(module, case) -> Outcome`` comparing the module's value with an
exact reference (Fractions, mpmath, brute force) or an oracle, on cases from one of two
sources:

* :class:`Search` - a Hypothesis strategy searched with ``hypothesis.find`` under a seeded
  ``random.Random``, so that a failing input is shrunk to a minimal one, plus pinned cases;
  a pass is ``not-refuted`` over the inputs evaluated (sampled, never exhaustive);
* :class:`Listed` - an explicit list of cases, every one evaluated.  With
  ``exhaustive=True`` the list *is* the stated finite scope and every comparison is exact,
  so a pass is ``verified`` (with that scope) when its broken-kernel twin
  (:mod:`audit.checks.kernel_twin`) is refuted on the same cases, else ``vacuous``;
  otherwise (random cases, statistical tests) ``not-refuted``.

Failures are grouped into *failure classes* (:func:`default_class`: the outcome's class -
the sign of the error, an exception type - or a check's own ``classify``); up to
:data:`MAX_CLASSES` distinct classes are reported per check, so a trivial failure does not
mask another defect.  The most severe class keeps the check's id (the unsafe side of a
one-sided check, then a wrong value, a raise last), the others ``<id>.<class>``; each
carries a replayable counterexample document (:func:`audit.findings.counterexample_document`)
that :func:`replay` re-evaluates.

A one-sided check (``one_sided`` names the safe side, e.g. ``"above"`` for a noise scale or
an upper bound) refutes any amount on the unsafe side; its evaluator reports a signed
relative ``gap`` (negative = unsafe), and the runner states "never below the exact value:
0 of N below" in the evidence.

:class:`KernelSuite` packages a table of checks as a subject's ``regress`` hook
(:class:`audit.registry.RegressSuite`).  This module names no subject; it returns Findings
and never prints.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from audit import falsifiability
from audit.checks.kernel_twin import kernel_twin
from audit.findings import Finding, Method, Verdict, counterexample_document, from_jsonable

__all__ = ["MAX_CLASSES", "Context", "KernelCheck", "KernelSuite", "Listed", "Outcome",
           "Search", "default_class", "replay", "run_check", "run_checks", "safe_eval"]

#: most distinct failure classes (counterexamples) reported per check
MAX_CLASSES = 4


@dataclass(frozen=True)
class Context:
    """What a run fixes for every check: the seed, the mode and the module's size limit."""

    seed: int = 0
    mode: str = "quick"  # quick | full
    max_n: int = 3000  # the kernel module's DPAUDIT_MAX_N or the default

    def examples(self, quick: int, full: int) -> int:
        return quick if self.mode == "quick" else full

    @property
    def big_n(self) -> int:
        return min(self.max_n, 200 if self.mode == "quick" else 3000)


@dataclass
class Outcome:
    """One evaluation: ``ok``, the reference's ``expected`` and the module's ``actual``."""

    ok: bool
    expected: Any
    actual: Any
    detail: str = ""
    err: float = 0.0  # relative error or one-sided shortfall (evidence)
    cls: str = ""  # failure class: below / above / mismatch / raised-<exception> ...
    gap: float | None = None  # one-sided checks: signed relative gap (negative = unsafe)
    where: str = ""  # a raise: the innermost frame, "file.py:line in function"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-") or "mismatch"


def default_class(case: Any, out: Outcome) -> str:
    """The outcome's own class (sign of the error, exception type), else ``mismatch``."""
    return _slug(out.cls or "mismatch")


def safe_eval(fn: Callable[[Any, Any], Outcome], mod: Any, case: Any) -> Outcome:
    """``fn(mod, case)``; an exception of the module on a valid input is a failure of class
    ``raised-<exception>`` (never an abort of the run)."""
    try:
        return fn(mod, case)
    except Exception as exc:
        frames = traceback.extract_tb(exc.__traceback__)
        where = (f"{Path(frames[-1].filename).name}:{frames[-1].lineno} in {frames[-1].name}"
                 if frames else "")
        return Outcome(False, "a value", f"{type(exc).__name__}: {exc}", "subject raised",
                       math.inf, f"raised-{type(exc).__name__}", where=where)


def _severity(cls: str, one_sided: str | None) -> int:
    """Order of the failure classes shown for one check: the unsafe side of a one-sided
    check first, then other wrong values, then a raise (a crash is a defect too, but it
    must not take the check's headline from a wrong value)."""
    unsafe = {"above": "below", "below": "above"}.get(one_sided or "")
    if unsafe is not None and cls == unsafe:
        return 0
    return 2 if cls.startswith("raised-") else 1


def _num(v: float) -> float | str:
    return v if math.isfinite(v) else ("inf" if v > 0 else "-inf")


# ----------------------------------------------------------------------- case sources
@dataclass(frozen=True)
class Search:
    """Hypothesis find-and-shrink over ``strategy(ctx)`` (budget ``examples`` = (quick,
    full)), then the pinned ``fixed(ctx)`` cases.  ``domain(ctx)`` describes the input
    space; ``describe_fixed`` names the pinned cases in the scope."""

    strategy: Callable[[Context], st.SearchStrategy]
    examples: tuple[int, int] = (40, 300)
    fixed: Callable[[Context], list] = lambda ctx: []
    domain: Callable[[Context], str] = lambda ctx: ""
    describe_fixed: Callable[[list], str] = lambda cases: f"{len(cases)} pinned"


@dataclass(frozen=True)
class Listed:
    """Every case of ``make(seed, mode)`` is evaluated.  ``exhaustive``: the list is the
    whole stated finite scope and each comparison exact, so a pass is ``verified``."""

    make: Callable[[int, str], list]
    exhaustive: bool = False


@dataclass(frozen=True)
class KernelCheck:
    """One property of a kernel module, checked against an independent truth."""

    id: str
    claim: str
    reference: str
    method: Method
    needs: tuple[str, ...]
    evaluate: Callable[[Any, Any], Outcome]
    cases: Search | Listed
    tolerance: dict | None = None
    one_sided: str | None = None  # the safe side ("above" / "below"), None = two-sided
    scope: str = ""  # appended to the generated scope text
    classify: Callable[[Any, Outcome], str] = default_class
    #: the check is about the subject's own kernels, correct by claim (evidence marker)
    must_hold: bool = False
    #: one-sided evidence: the word for values beyond float rounding (gini extremes)
    rounding_note: bool = False
    #: one-sided evidence: what the value is compared with
    bound_name: str = "the exact value"
    #: one-sided evidence: also state the smallest safe gap (how tight the bound is)
    report_tightest: bool = False
    #: the twin (issue 42, :mod:`audit.checks.kernel_twin`): (function, position) of a
    #: privacy parameter the broken variant scales up (an exact-loss check's twin)
    twin_arg: tuple[str, int] | None = None
    #: ``needs`` is satisfied by any one of its functions (the check covers each function
    #: the module provides), not all of them
    needs_any: bool = False


# --------------------------------------------------------------------------- runner
def _base(chk: KernelCheck, subject: str, seed: int) -> dict[str, Any]:
    return dict(id=chk.id, claim=chk.claim, reference=chk.reference, method=chk.method,
                seed=seed, subject=subject)


def _search(chk: KernelCheck, src: Search, mod: Any, ctx: Context, seed: int,
            evaluate: Callable[[Any], Outcome]) -> tuple[dict[str, Any], int, list]:
    """Failing cases by class (hypothesis find-and-shrink, then the pinned cases)."""
    n_examples = ctx.examples(*src.examples)
    found: dict[str, Any] = {}

    def search(seen: frozenset[str], rnd: int) -> Any:
        def fails(case: Any) -> bool:
            out = evaluate(case)
            return (not out.ok) and chk.classify(case, out) not in seen

        try:  # hypothesis shrinks what it finds to a minimal input
            return find(src.strategy(ctx), fails,
                        settings=settings(max_examples=n_examples, database=None,
                                          deadline=None, suppress_health_check=list(HealthCheck),
                                          phases=[Phase.generate, Phase.shrink]),
                        random=random.Random(seed + rnd))
        except NoSuchExample:
            return None

    first = search(frozenset(), 0)
    if first is not None:
        found[chk.classify(first, safe_eval(chk.evaluate, mod, first))] = first
        for rnd in range(1, MAX_CLASSES):  # failures of other classes
            more = search(frozenset(found), rnd)
            if more is None:
                break
            found.setdefault(chk.classify(more, safe_eval(chk.evaluate, mod, more)), more)
    fixed = src.fixed(ctx)
    for case in fixed:
        if len(found) >= MAX_CLASSES:
            break
        out = evaluate(case)
        if not out.ok:
            found.setdefault(chk.classify(case, out), case)
    return found, n_examples, fixed


def run_check(chk: KernelCheck, mod: Any, subject: str, ctx: Context) -> list[Finding]:
    """One Finding if nothing fails; otherwise one per failure class (up to
    :data:`MAX_CLASSES`), the first with the check's own id."""
    t0 = time.perf_counter()
    src = chk.cases
    searched = isinstance(src, Search)
    seed = (int(hashlib.sha256(f"{ctx.seed}:{chk.id}".encode()).hexdigest()[:8], 16)
            if searched else ctx.seed)
    base = _base(chk, subject, seed)
    marker = {"must_hold": True} if chk.must_hold else {}
    missing = [n for n in chk.needs if not callable(getattr(mod, n, None))]
    if chk.needs_any and len(missing) < len(chk.needs):
        missing = []
    if missing:
        return [Finding(**base, verdict=Verdict.INCONCLUSIVE,
                        scope=f"not applicable: subject does not provide {', '.join(missing)}",
                        evidence={"missing": missing, **marker},
                        duration_s=time.perf_counter() - t0, tolerance=chk.tolerance)]
    stats = {"cases": 0, "worst_err": 0.0, "sided": 0, "below": 0, "max_above": 0.0,
             "min_above": math.inf}

    def evaluate(case: Any) -> Outcome:
        stats["cases"] += 1
        out = safe_eval(chk.evaluate, mod, case)
        if out.ok:
            stats["worst_err"] = max(stats["worst_err"], out.err)
        if out.gap is not None:
            stats["sided"] += 1
            if out.gap < 0 or out.cls == "below":
                stats["below"] += 1
            elif math.isfinite(out.gap):
                stats["max_above"] = max(stats["max_above"], out.gap)
                stats["min_above"] = min(stats["min_above"], out.gap)
        return out

    evidence: dict[str, Any]
    if isinstance(src, Search):
        found, n_examples, fixed = _search(chk, src, mod, ctx, seed, evaluate)
        scope = (f"{stats['cases']} inputs evaluated (hypothesis search budget {n_examples}, "
                 f"seed {seed}, plus {len(fixed)} fixed: {src.describe_fixed(fixed)}); "
                 f"{src.domain(ctx)}{'; ' + chk.scope if chk.scope else ''}")
        evidence = {"inputs_checked": stats["cases"],
                    "worst_error_passing": _num(stats["worst_err"])}
    else:
        cases = src.make(ctx.seed, ctx.mode)
        found = {}
        gaps: list[tuple[float, int]] = []  # the twin tries the tightest cases first
        for i, case in enumerate(cases):
            out = evaluate(case)
            if not out.ok:
                found.setdefault(chk.classify(case, out), case)
            elif out.gap is not None and math.isfinite(out.gap):
                gaps.append((out.gap, i))
        kind = "exhaustive, exact" if src.exhaustive else ctx.mode
        scope = f"{len(cases)} cases, seed {ctx.seed}, {kind}: {chk.scope}"
        evidence = {"cases": len(cases)}
    evidence.update(marker)
    if stats["sided"]:
        unsafe, safe = (("below", "above") if chk.one_sided != "below" else ("above", "below"))
        rounding = " beyond float rounding" if chk.rounding_note else ""
        evidence["one_sided"] = (
            f"never {unsafe} {chk.bound_name}: {stats['below']} of {stats['sided']} {unsafe}"
            f"{rounding}; largest gap {safe} {stats['max_above']:.3g} (relative)")
        evidence["below_exact"] = stats["below"]
        evidence["largest_relative_gap_above"] = _num(stats["max_above"])
        if chk.report_tightest:
            evidence["smallest_relative_gap"] = _num(stats["min_above"])
    if not found:
        verdict = Verdict.NOT_REFUTED
        if isinstance(src, Listed) and src.exhaustive:  # verified only with a refuted twin
            tw = kernel_twin(chk.evaluate, mod, chk.needs, cases, chk.twin_arg,
                             tightest=[i for _, i in sorted(gaps)] or range(len(cases)))
            evidence["twin"] = tw
            verdict = falsifiability.decide(
                True, tw, failed=Verdict.REFUTED,
                vacuous_reason=f"no broken variant of the kernel tried is refuted on these "
                               f"{len(cases)} cases: the comparison cannot tell it from the "
                               f"real one")
        return [Finding(**base, verdict=verdict, scope=scope, evidence=evidence,
                        duration_s=time.perf_counter() - t0, tolerance=chk.tolerance)]
    if searched:
        evidence["failure_classes"] = sorted(found)
    out_findings = []
    ordered = sorted(found.items(), key=lambda kv: _severity(kv[0], chk.one_sided))
    for j, (cls, bad) in enumerate(ordered[:MAX_CLASSES]):
        out = safe_eval(chk.evaluate, mod, bad)
        ev = {**evidence, "failure_class": cls, "detail": out.detail}
        if out.where:
            ev["raised_at"] = out.where
        if searched:
            ev["error"] = _num(out.err)
        cx = counterexample_document(
            chk.id, subject, bad, out.expected, out.actual, chk.tolerance,
            f"failure class {cls}" + (f"; {out.detail}" if out.detail else ""))
        f = Finding(**base, verdict=Verdict.REFUTED, scope=scope, evidence=ev,
                    counterexample=cx, duration_s=time.perf_counter() - t0,
                    tolerance=chk.tolerance)
        if j:
            f.id = f"{chk.id}.{cls}"
        out_findings.append(f)
    return out_findings


def run_checks(checks: Sequence[KernelCheck], mod: Any, subject: str, ctx: Context, *,
               only: Callable[[KernelCheck], bool] | None = None,
               on_finding: Callable[[int, int, Finding], None] | None = None,
               stop_on_refute: bool = False) -> list[Finding]:
    """Run every (selected) check; ``on_finding(i, total, finding)`` after each one."""
    selected = [c for c in checks if only is None or only(c)]
    out: list[Finding] = []
    for i, c in enumerate(selected, 1):
        got = run_check(c, mod, subject, ctx)
        out.extend(got)
        if on_finding is not None:
            for f in got:
                on_finding(i, len(selected), f)
        if stop_on_refute and any(f.verdict == Verdict.REFUTED for f in got):
            break
    return out


def replay(checks: Sequence[KernelCheck], doc: dict, mod: Any
           ) -> tuple[bool, list[str]] | None:
    """Re-evaluate a stored counterexample: ``(still_fails, lines)``, or None when
    ``doc['check']`` names none of ``checks``."""
    chk = next((c for c in checks if c.id == doc.get("check")), None)
    if chk is None:
        return None
    out = safe_eval(chk.evaluate, mod, from_jsonable(doc["inputs"]))
    shown = json.dumps(doc["inputs"])
    lines = [
        f"replay {chk.id} on {getattr(mod, '__name__', mod)}",
        f"  claim     {chk.claim}",
        f"  reference {chk.reference}",
        f"  input     {shown[:300]}{'...' if len(shown) > 300 else ''}",
        f"  expected  {str(out.expected)[:300]}   (recomputed now by the reference)",
        f"  actual    {str(out.actual)[:300]}   (recomputed now by the kernel module)",
        f"  stored    expected {str(doc.get('expected'))[:300]}, "
        f"actual {str(doc.get('actual'))[:300]}",
        f"  tolerance {doc.get('tolerance')!r}",
    ]
    if out.detail:
        lines.append(f"  detail    {out.detail}")
    return (not out.ok), lines


@dataclass(frozen=True)
class KernelSuite:
    """A subject's ``regress`` hook: its kernel protocol, default module and check table.

    ``parameters(mod, mode)`` (optional) adds the run's parameters to the report."""

    protocol: dict[str, str]
    default_kernels: str
    checks: Sequence[KernelCheck]
    extra_parameters: Callable[[Any, str], dict[str, Any]] = field(
        default=lambda mod, mode: {})

    def context(self, mod: Any, seed: int, mode: str) -> Context:
        return Context(seed=seed, mode=mode, max_n=int(getattr(mod, "DPAUDIT_MAX_N", 3000)))

    def run(self, mod: Any, subject: str, seed: int, mode: str, only: str | None,
            on_finding: Callable[[int, int, Finding], None]) -> None:
        sel = None if only is None else (lambda c: only in c.id)
        run_checks(self.checks, mod, subject, self.context(mod, seed, mode), only=sel,
                   on_finding=on_finding)

    def parameters(self, mod: Any, mode: str) -> dict[str, Any]:
        return self.extra_parameters(mod, mode)

    def check_ids(self) -> list[str]:
        """The ids of the checks this suite runs (``--only`` selects among them)."""
        return [c.id for c in self.checks]

    def replay(self, doc: dict, mod: Any) -> tuple[bool, list[str]] | None:
        return replay(self.checks, doc, mod)

    def check(self, check_id: str) -> KernelCheck:
        for c in self.checks:
            if c.id == check_id:
                return c
        raise KeyError(f"unknown check id {check_id!r}; known: "
                       f"{', '.join(c.id for c in self.checks)}")
