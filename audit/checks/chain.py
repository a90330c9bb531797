"""A certify chain: an ordered tuple of :class:`Link` s run by one runner into Findings and a
typed :class:`Certification`.

Each link is a function of a subject-defined context (the data, the public parameters, what
earlier links handed on) returning one or more :class:`audit.findings.Finding`.  The runner
(:meth:`Chain.run`) runs them in order, turns a link that raises into an ``error`` Finding
(never hidden), records each link's wall-clock time in its findings' ``duration_s``, and
reports progress as the link's title and its verdicts only (no timings, no values: progress
goes to stderr, which follows the report's confidentiality rule).

The verdict rule (:func:`certification`), shared by every subject: NOT CERTIFIED when some
finding is refuted (its counterexample named), INCONCLUSIVE when none is refuted but one is
inconclusive or an error (a crashed check proves nothing either way), CERTIFIED otherwise.
Nothing here names a subject, prints or writes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from audit.findings import Finding, Method, Verdict

__all__ = [
    "CERTIFIED",
    "INCONCLUSIVE",
    "NOT_CERTIFIED",
    "Certification",
    "Chain",
    "Link",
    "certification",
]

CERTIFIED = "CERTIFIED"
NOT_CERTIFIED = "NOT CERTIFIED"
INCONCLUSIVE = "INCONCLUSIVE"

C = TypeVar("C")
Progress = Callable[[str], None]


@dataclass(frozen=True)
class Link(Generic[C]):
    """One link: ``key`` (short name, used in the id of a crash finding), ``title`` (what
    progress shows) and ``run(ctx) -> [Finding, ...]``."""

    key: str
    title: str
    run: Callable[[C], list[Finding]]


@dataclass(frozen=True)
class Certification:
    """The chain's verdict.  ``scope`` and ``reasons`` must be computed from public inputs
    only (they go to the public report); ``fingerprint`` (the keyed data fingerprint) is
    confidential and kept in the certification's confidential part."""

    verdict: str
    scope: str
    reasons: tuple[str, ...]
    counterexample: str | None = None
    fingerprint: str | None = None

    def __post_init__(self) -> None:
        if self.verdict not in (CERTIFIED, NOT_CERTIFIED, INCONCLUSIVE):
            raise ValueError(f"Certification.verdict must be one of {CERTIFIED!r}, "
                             f"{NOT_CERTIFIED!r}, {INCONCLUSIVE!r}; got {self.verdict!r}")

    @property
    def outcome_key(self) -> str:
        """The CLI outcome-table key of this verdict."""
        return {CERTIFIED: "certified", NOT_CERTIFIED: "not-certified"}.get(
            self.verdict, "inconclusive")

    def to_dict(self) -> dict[str, Any]:
        """The report's ``certification`` block (``audit/report/schema.md``)."""
        out: dict[str, Any] = {"verdict": self.verdict, "scope": self.scope,
                               "reasons": list(self.reasons)}
        if self.counterexample is not None:
            out["counterexample"] = self.counterexample
        if self.fingerprint is not None:
            out["fingerprint"] = self.fingerprint
        return out


def certification(findings: Sequence[Finding], scope: str,
                  fingerprint: str | None = None) -> Certification:
    """The verdict of a chain's findings (module docstring).  The counterexample named is
    the first refuted finding's, as ``counterexamples/<id>.json``."""
    bad = [f for f in findings if f.verdict is Verdict.REFUTED]
    unsure = [f for f in findings
              if f.verdict in (Verdict.INCONCLUSIVE, Verdict.ERROR, Verdict.VACUOUS)]
    if bad:
        first = bad[0]
        cx = f"counterexamples/{first.id}.json" if first.counterexample else None
        return Certification(NOT_CERTIFIED, scope,
                             tuple(f"{f.id}: {f.verdict.value} — {f.claim}" for f in bad),
                             cx, fingerprint)
    if unsure:
        return Certification(INCONCLUSIVE, scope,
                             tuple(f"{f.id}: {f.verdict.value} — {f.claim}" for f in unsure),
                             None, fingerprint)
    if not findings:  # a run that checked nothing never passes
        return Certification(INCONCLUSIVE, scope, ("no link ran",), None, fingerprint)
    return Certification(CERTIFIED, scope,
                         tuple(f"{f.id}: {f.verdict.value}" for f in findings), None,
                         fingerprint)


@dataclass(frozen=True)
class Chain(Generic[C]):
    """An ordered chain of links; ``reference`` is cited by a crash finding."""

    reference: str
    links: tuple[Link[C], ...]

    def __add__(self, other: Chain[C]) -> Chain[C]:
        return Chain(self.reference, self.links + other.links)

    def run(self, ctx: C, *, subject: str, seed: int | None,
            progress: Progress | None = None,
            on_finding: Callable[[list[Finding]], None] | None = None,
            id_prefix: str = "certify") -> list[Finding]:
        """Run every link on ``ctx`` in order; returns all findings.  ``on_finding(so_far)``
        is called after each link (the CLI rewrites its partial report there)."""
        say = progress or (lambda _s: None)
        findings: list[Finding] = []
        total = len(self.links)
        for i, link in enumerate(self.links, 1):
            say(f"  [{i}/{total}] {link.title} ...")
            t0 = time.perf_counter()
            try:
                got = list(link.run(ctx))
            except Exception as exc:  # a crashing link is reported, never hidden
                got = [Finding(
                    id=f"{id_prefix}.{link.key}.crashed", claim=link.title,
                    reference=self.reference, method=Method.CROSSCHECK,
                    verdict=Verdict.ERROR, scope="check raised before finishing",
                    evidence={"exception_type": type(exc).__name__},
                    # the message may quote values computed from the data
                    confidential={"exception": f"{type(exc).__name__}: {exc}"},
                    seed=seed, subject=subject,
                )]
            dt = time.perf_counter() - t0
            for f in got:
                if f.duration_s == 0.0:
                    f.duration_s = dt / max(len(got), 1)
            findings.extend(got)
            say(f"        {', '.join(f'{f.id} {f.verdict.value}' for f in got)}")
            if on_finding is not None:
                on_finding(findings)
        return findings
