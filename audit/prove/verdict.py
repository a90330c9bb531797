"""The result of ``dpaudit prove MODULE:OBJECT``: a typed verdict with its scope, the
synthesised alignment as a human-readable proof sketch, and its Finding.

* ``verified``: every alignment condition is UNSAT for every n in ``sizes`` (the scope says
  "for every n <= N"), or for every n >= 1 when the all-n step of
  :mod:`audit.prove.induction` proved it by induction over the loop (its invariant
  printed), under the relation, for every eps > 0 (all scales c/eps, cost normalised) or
  for the stated epsilon, with the Z3 settings used;
* ``refuted``: an exact witness (neighbouring q, q', an output event whose exact probability
  ratio exceeds exp(eps)), from :mod:`audit.prove.refute`;
* ``vacuous``: an alignment is verified, but its twin (:mod:`audit.prove.twin`: the claim
  tightened below the loss the program attains) is not refuted in the scope: the proof
  could not have failed there (the reason is stated; never counted as verified);
* ``inconclusive``: no alignment of the templates (naming the draw site(s) whose template had
  no solution and the last Z3 counterexample), a solver ``unknown``, the round limit, or a
  refutation search that found nothing.

Nothing here prints or writes files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.prove.alignment import HALF_RELATIONS, Problem, site_scales
from audit.prove.cegis import half_theta

__all__ = ["FINDING_ID", "ProofVerdict", "proof_sketch"]

FINDING_ID = "prove.alignment"

_CLASS_TEXT = {"any": "", "T": "when output[k] is True", "F": "when output[k] is False",
               "num": "when output[k] is a number", "absent": "when the output ends before k",
               "hit": "when the output index is k", "miss": "when the output index is not k",
               "none": "when output[k] is None", "other": "otherwise",
               "tested-T": "when the first comparison reading the draw held",
               "tested-F": "when the first comparison reading the draw failed",
               "untested": "when no comparison reads the draw"}


def _frac(v: Fraction) -> str:
    return str(v)


def _eta_text(t0: Fraction, t1: Fraction | None, delta: str) -> str:
    parts = []
    if t0 != 0 or not t1:
        parts.append(_frac(t0))
    if t1:
        coef = "" if t1 == 1 else "-" if t1 == -1 else f"{_frac(t1)}*"
        term = f"{coef}{delta}"
        if parts:
            parts.append(f"- {term[1:]}" if term.startswith("-") else f"+ {term}")
        else:
            parts.append(term)
    return " ".join(parts)


def _class_text(cls: str) -> str:
    """The English condition of an output class (``num/hit``: an element class and whether
    the output index is this draw's position)."""
    if "/" in cls:
        base, *rest = cls.split("/")
        parts = [_CLASS_TEXT.get(base, f"when output[k] is {base}") if base not in
                 ("int", "absent") else "", *(_CLASS_TEXT[r] for r in rest)]
        return " and ".join(p for p in parts if p).replace(" and when", " and")
    return _CLASS_TEXT.get(cls, f"when output[k] is {cls}")


def _lin_text(e: Any) -> str:
    """A partner expression with queries as q[i] and draws as site[index]."""
    parts = []
    for k, v in sorted(e.terms.items()):
        name = (f"q[{k[1:]}]" if k.startswith("q") else k[2:] if k.startswith("p:")
                else "{}[{}]".format(*k[1:].rsplit("#", 1)) if k.startswith("@") else k)
        coef = "" if v == 1 else "-" if v == -1 else f"{v}*"
        parts.append(f"{coef}{name}")
    if e.const or not parts:
        parts.append(str(e.const))
    return " + ".join(parts).replace("+ -", "- ")


def _partners_text(prob: Problem, site: str, cls: str) -> str:
    """Up to three partner expressions of ``(site, cls)`` from the largest n, and the
    partner change when the aligned run reads the same partner with unshifted draws."""
    exprs: list[str] = []
    same: list[str] = []
    comp = 0
    for g in sorted(prob.groups, key=lambda g: -g.n):
        for c in g.partner_component:
            if c[0] != site or g.cls[c] != cls:
                continue
            for per in g.partner:
                t = _lin_text(per[c])
                if t not in exprs and len(exprs) < 3:
                    exprs.append(t)
                    dq = type(per[c])({k: v for k, v in per[c].terms.items()
                                       if k.startswith("q")})
                    same.append(_lin_text(dq).replace("q[", "d_").replace("]", ""))
            comp = g.partner_component[c]
        if exprs:
            break
    return (f"P = the output partner of the draw: the rest of output component "
            f"{comp} (flattened) without it, -R/a for output = a*x + R, on the path of the "
            "run on q (e.g. "
            f"{'; '.join(exprs)}); P' = the same on the path of the aligned run on q' (it may "
            "read another draw, e.g. another runner-up); when both read the same draws and "
            f"those are not shifted, P' - P = {' or '.join(same)}; the draws P reads are "
            "shifted independently of the noise (triangular: unit Jacobian), and two runs with "
            "the same unshifted noise and output have the same P (Z3: UNSAT), so the "
            "alignment is one-to-one")


def proof_sketch(prob: Problem, theta: dict[tuple[str, str, int], Fraction]) -> list[str]:
    """One line per draw site: its law, scale (per iteration when it changes) and alignment,
    then the conditions checked; a sign-of-difference proof: both halves, each labelled."""
    if prob.halves:
        return [f"[{HALF_RELATIONS[sub.relation]}] {line}" for h, sub in prob.halves.items()
                for line in proof_sketch(sub, half_theta(theta, h))]
    lines = []
    laws = site_scales(prob)
    for site, tpl in sorted(prob.templates.items()):
        law, scale = laws[site]
        where = "per loop iteration k" if tpl.loop else "at most once per run"
        delta = "delta_k" if tpl.loop else "delta"
        cases = []
        dependent = []
        for cls in tpl.classes:
            t0 = theta[(site, cls, 0)]
            t1 = theta.get((site, cls, 1)) if tpl.anchored else None
            text = _eta_text(t0, t1, delta)
            if theta.get((site, cls, 2), 0):
                text = "(P' - P)" if text == "0" else f"{text} + (P' - P)"
                dependent.append(cls)
            when = _class_text(cls)
            if tpl.position is not None:
                when = when.replace("[k]", f"[{tpl.position}]").replace(
                    "is not k", f"is not {tpl.position}").replace(
                    "is k", f"is {tpl.position}")
            cases.append(f"{text} {when}".strip())
        line = f"{site} ({law}, scale {scale}, {where}): eta = " + "; ".join(cases)
        if tpl.anchored:
            line += (f"  [{delta} = q'-q of the data the draw is added to, e.g. d_k for "
                     "q[k] + noise, the sum of d_i for a sum of queries]")
        for cls in dependent:
            when = _class_text(cls)
            if tpl.position is not None:
                when = when.replace("[k]", f"[{tpl.position}]").replace(
                    "is k", f"is {tpl.position}")
            line += f"  [noise-dependent, {when}: {_partners_text(prob, site, cls)}]"
        lines.append(line)
    bound = ("sum |eta| / c <= 1 for scales c/eps (the same for every eps > 0)"
             if prob.eps is None else f"sum |eta| / scale <= {prob.eps}")
    if any(k == 2 and v for (_, _, k), v in theta.items()):
        lines.append(f"cost on every output and path: {bound}; the run on q' = q + d with the "
                     "aligned noise returns the same output for every run on q off the null "
                     "boundaries of its path (Z3: UNSAT), d in "
                     f"{prob.relation}; the alignment is triangular and one-to-one "
                     "(audit/prove/noise_dependent.py, conditions (S), (B), (I))")
        return lines
    if prob.refined:
        lines.append(f"cost on every output and path signature: {bound}; the run on q' = q + d "
                     "with the aligned noise returns the same output and takes a path with "
                     "the same signature (the first-comparison outcome of every loop draw) on "
                     f"every path (Z3: UNSAT), d in {prob.relation}; the alignment depends "
                     "only on (q, d, output, signature) and the aligned run keeps the "
                     "signature, so it is one translation per signature with disjoint images: "
                     "one-to-one")
        return lines
    lines.append(f"cost on every output: {bound}; the run on q' = q + d with the aligned noise "
                 "returns the same output on every path (Z3: UNSAT), d in "
                 f"{prob.relation}; the alignment depends only on (q, d, output), so it is "
                 "one-to-one on each output's noise set")
    return lines


@dataclass
class ProofVerdict:
    """What ``dpaudit prove`` found for one DSL mechanism."""

    status: str  # "verified", "refuted", "inconclusive", "vacuous" (proved, twin not refuted)
    mechanism: str
    relation: str
    sizes: list[int]
    epsilon: Fraction | None  # None: symbolic (every eps > 0)
    solver: dict[str, Any]
    alignment: dict[str, dict[str, list[str]]] | None = None
    sketch: list[str] = field(default_factory=list)
    paths: dict[int, int] = field(default_factory=dict)
    rounds: int = 0
    examples: int = 0
    solver_calls: int = 0
    failing_sites: list[str] = field(default_factory=list)
    counterexample: dict[str, Any] | None = None
    witness: dict[str, Any] | None = None
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    all_n: bool = False
    partial: dict[str, Any] | None = None  # the largest n <= N the templates do prove
    fixed: dict[str, Any] = field(default_factory=dict)  # int/bool parameters as run
    public: list[str] = field(default_factory=list)  # float parameters: every real value
    invariant: list[str] = field(default_factory=list)  # the all-n step's induction
    #: n in 1..n_max the program could not be run at (its own IndexError), with the error
    unchecked: dict[int, str] = field(default_factory=dict)
    #: the proof certificate (audit.prove.certificate) of a verified result
    certificate: dict[str, Any] | None = None
    #: the alignment proved (verified / vacuous), keyed (site, class, k)
    theta: dict[tuple[str, str, int], Fraction] | None = None
    #: the twin of a proof (:mod:`audit.prove.twin`, :func:`audit.falsifiability.twin`)
    twin: dict[str, Any] | None = None

    def sizes_text(self) -> str:
        """The numbers of queries checked, exactly: ``every n <= 4`` only when every n in
        1..4 was run, else ``n ∈ {1, 3, 4}`` followed by why each missing n was not."""
        if not self.sizes:
            return "no n"
        top = max(self.sizes)
        if sorted(self.sizes) == list(range(1, top + 1)) and not self.unchecked:
            return f"every number of queries n <= {top}"
        text = f"the numbers of queries n ∈ {{{', '.join(map(str, sorted(self.sizes)))}}}"
        for n, why in sorted(self.unchecked.items()):
            text += f" (n = {n} NOT checked: the program crashes there: {why})"
        return text

    def scope_text(self) -> str:
        ns = ("every number of queries n >= 1 (induction over the loop's iterations: "
              f"Z3 for n <= {max(self.sizes)} and for one generic iteration)" if self.all_n else
              self.sizes_text())
        eps = ("every eps > 0 (all noise scales c/eps; cost normalised by eps)"
               if self.epsilon is None else f"epsilon = {self.epsilon}")
        s = self.solver
        params = "".join([f"; {k} = {v!r} (fixed)" for k, v in self.fixed.items()]
                         + [f"; every real {k}" for k in self.public])
        return (f"{ns}; relation {self.relation}; {eps}{params}; real-valued queries, public "
                f"parameters and noise (integers for geometric draws); Z3 {s['z3']}, rlimit "
                f"{s['rlimit']:,} per query, template coefficients in multiples of "
                f"1/{s['grid']} within [-{s['bound']}, {s['bound']}], at most "
                f"{s['max_rounds']} rounds{self._noise_dependent_scope()}")

    def _noise_dependent_scope(self) -> str:
        """The extra template term, when the alignment uses it."""
        used = any(len(ts) > 2 and Fraction(ts[2]) != 0 for cls in (self.alignment or {}).values()
                   for ts in cls.values())
        return ("; plus a noise-dependent partner-change term (coefficient 0 or 1, one greedy "
                "choice of draw classes; triangular and one-to-one map checked)" if used else "")

    def claim(self) -> str:
        eps = "eps" if self.epsilon is None else str(self.epsilon)
        return (f"{self.mechanism} is {eps}-differentially private under {self.relation} "
                "(neighbouring query vectors)")

    def evidence(self) -> dict[str, Any]:
        ev: dict[str, Any] = {
            "status": self.status, "sizes": self.sizes,
            "paths_per_n": {str(k): v for k, v in self.paths.items()},
            "rounds": self.rounds, "examples": self.examples,
            "solver_calls": self.solver_calls, "solver": self.solver,
            "epsilon": "symbolic" if self.epsilon is None else str(self.epsilon),
            "seconds": round(self.seconds, 3)}
        if self.alignment is not None:
            ev["alignment"] = self.alignment
            ev["proof_sketch"] = self.sketch
        if self.failing_sites:
            ev["failing_draw_sites"] = self.failing_sites
        if self.counterexample is not None:
            ev["z3_counterexample"] = self.counterexample
        if self.witness is not None:
            ev["witness"] = self.witness
        if self.partial is not None:
            ev["partial_proof"] = self.partial
        ev["all_n"] = self.all_n
        if self.unchecked:
            ev["unchecked_n"] = {str(k): v for k, v in self.unchecked.items()}
        if self.invariant:
            ev["all_n_invariant"] = self.invariant
        if self.reason:
            ev["reason"] = self.reason
        if self.notes:
            ev["notes"] = self.notes
        if self.twin is not None:
            ev["twin"] = self.twin
        return ev

    def to_finding(self, subject: str) -> Finding:
        verdict = {"verified": Verdict.VERIFIED, "refuted": Verdict.REFUTED,
                   "vacuous": Verdict.VACUOUS}.get(self.status, Verdict.INCONCLUSIVE)
        cx = None
        if self.status == "refuted":
            assert self.witness is not None
            cx = counterexample_document(
                FINDING_ID, subject, {"witness": self.witness},
                expected=f"log-ratio <= {self.witness.get('epsilon')}",
                actual=self.witness.get("epsilon_witness"), tolerance=None,
                note="exact probabilities of one output event on neighbouring q, q'")
        scope = self.scope_text()
        if self.status not in ("verified", "vacuous"):
            scope = f"attempted: {scope}"
        return Finding(
            id=FINDING_ID, claim=self.claim(),
            reference="randomness alignment (CheckDP, Wang, Ding, Kifer & Zhang, CCS 2020)",
            method=Method.SMT, verdict=verdict, scope=scope, evidence=self.evidence(),
            counterexample=cx, duration_s=self.seconds, subject=subject)
