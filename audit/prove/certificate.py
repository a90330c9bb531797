"""The proof certificate of a PROVED ``dpaudit prove`` result, and its independent re-check.

What a certificate holds (:func:`build_certificate`): the program reference, the scope
(sizes n, relation, epsilon, fixed parameters, whether the path-sensitive refinement or the
noise-dependent term was used), the alignment (every template coefficient), and every
SMT-LIB2 verification query whose UNSAT the proof rests on -- the queries of
:meth:`audit.prove.cegis._Loop.verify` for the final alignment, one per output shape
(cost) and per path (same output), plus (I) / (B) of the noise-dependent conditions when
used -- each with its SHA-256.  Programs are code, not data: the certificate reveals
nothing about any data set, so it is safe in a shareable report.

Scope of a certificate: the "every n <= N" part of the proof.  The queries of the all-n
induction step (:mod:`audit.prove.induction`) are not recorded; for an all-n proof the
re-check re-runs that step on the certificate's alignment with a fresh Z3 (not cvc5) and
says so.

Re-check (:func:`recheck`), each step independent of the prover's run:

1. **rebuild**: the program is re-imported, its paths re-enumerated, the problem rebuilt
   and the certificate's alignment re-verified with a fresh Z3 context; the queries this
   produces must be *identical* (label and text) to the stored ones -- a stored query that
   was weakened, or an alignment whose cost was changed, does not match;
2. **cvc5**: every stored query is parsed and decided by cvc5 (a second SMT solver, its
   own parser and arithmetic; under a resource limit in work units) and must be UNSAT;
3. **fresh Z3**: every stored query is parsed from its text into a new Z3 context and must
   be UNSAT;
4. **concrete points**: the program is *run* concretely (exact rationals) on seeded random
   queries, differences in the relation and noise, and on q + d with the noise shifted by
   the alignment; the two outputs must be equal and the alignment's cost within the bound
   (skipped, and said, for a noise-dependent alignment, whose shift reads the run's other
   draws).

Any disagreement (a query SAT or unknown, a mismatch, a concrete point that breaks the
alignment) rejects the certificate: it is an error, never a pass.  Nothing here prints or
writes files.
"""

from __future__ import annotations

import hashlib
import importlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import z3

from audit import dsl
from audit.dsl import Lin

__all__ = ["CVC5_RLIMIT", "SCHEMA", "Recheck", "build_certificate", "recheck",
           "verification_queries"]

SCHEMA = "dpaudit.proof-certificate/1"
#: cvc5 resource limit per query (its deterministic work units, never seconds)
CVC5_RLIMIT = 200_000_000
#: concrete points tried per certificate (seeded)
CONCRETE_POINTS = 200


class CertificateError(ValueError):
    """The certificate cannot be built or is malformed."""


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _theta_key(site: str, cls: str, k: int) -> str:
    return f"{site}|{cls}|{k}"


def verification_queries(prob: Any, theta: Mapping[tuple[str, str, int], Fraction]
                         ) -> tuple[list[tuple[str, str]], str]:
    """The SMT-LIB2 text of every verification query of ``theta`` on ``prob`` (fresh Z3
    context) and "" when all are UNSAT, else the reason they do not all hold."""
    from audit.prove import cegis
    from audit.prove.alignment import sign_halves

    halves = getattr(prob, "halves", None) or (
        sign_halves(prob) if cegis.signed_alignment(theta) else None)
    if halves:  # a sign-of-difference proof: each half's queries with its own coefficients
        out: list[tuple[str, str]] = []
        for h, sub in halves.items():
            rec, why = verification_queries(sub, cegis.half_theta(dict(theta), h))
            out += [(f"[{h}] {lab}", text) for lab, text in rec]
            if why:
                return out, f"[{h}] {why}"
        return out, ""
    nd = any(u[2] == 2 and v != 0 for u, v in theta.items())
    loop = cegis._Loop(prob, noise_dependent=nd)
    loop.record = []
    full = {u: Fraction(theta.get(u, 0)) for u in loop.theta_vars}
    found = loop.verify(full)
    if found is None:
        return loop.record, "Z3 answered unknown on a verification query"
    if found:
        return loop.record, (f"{len(found)} verification query(ies) are SAT: the alignment "
                             f"does not hold (e.g. {found[0].describe()})")
    return loop.record, ""


def _param_doc(v: Any) -> Any:
    if isinstance(v, (bool, int, str)) or v is None:
        return v
    if isinstance(v, (Fraction, float)):
        return {"fraction": str(Fraction(v))} if isinstance(v, Fraction) else {"float": v}
    raise CertificateError(f"parameter value {v!r} cannot be written in a certificate")


def _param_value(v: Any) -> Any:
    if isinstance(v, dict):
        return Fraction(v["fraction"]) if "fraction" in v else float(v["float"])
    return v


def build_certificate(ref: str, mech: Any, prob: Any,
                      theta: Mapping[tuple[str, str, int], Fraction],
                      all_n: bool) -> dict[str, Any]:
    """The certificate document of a proof (module docstring).  Raises
    :class:`CertificateError` when the final alignment does not re-verify (a prover bug)."""
    queries, why = verification_queries(prob, theta)
    if why:
        raise CertificateError(f"the proved alignment does not re-verify: {why}")
    nd = any(u[2] == 2 and v != 0 for u, v in theta.items())
    return {
        "schema": SCHEMA,
        "program": ref,
        "relation": prob.relation,
        "sizes": list(prob.ns),
        "epsilon": None if prob.eps is None else str(prob.eps),
        "bound": str(prob.bound),
        "refined": bool(prob.refined),
        "noise_dependent": nd,
        "fixed": {k: repr(v) for k, v in prob.fixed.items()},
        "params": {k: _param_doc(v) for k, v in dict(getattr(mech, "params", {})).items()},
        "public": list(prob.public),
        "alignment": {_theta_key(*u): str(v) for u, v in sorted(theta.items())},
        "z3": z3.get_version_string(),
        "all_n": bool(all_n),
        "scope": (f"every n in {list(prob.ns)} (the alignment conditions below); "
                  + ("every n >= 1 by the all-n induction step, whose queries are not "
                     "stored: the re-check re-runs that step with a fresh Z3"
                     if all_n else "no all-n claim")),
        "queries": [{"label": lab, "smt2": text, "sha256": _sha(text)}
                    for lab, text in queries],
    }


# =============================================================================================
# re-check
# =============================================================================================


@dataclass
class Recheck:
    """The outcome of :func:`recheck`: ``ok`` only when every step agreed."""

    ok: bool
    queries: int = 0
    cvc5_unsat: int = 0
    z3_unsat: int = 0
    concrete_points: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: a check that could not run (cvc5 not installed): the certificate is not confirmed
    missing: str = ""


def _load(ref: str) -> Any:
    mod, _, name = ref.partition(":")
    if not mod or not name:
        raise CertificateError(f"program reference {ref!r} is not MODULE:OBJECT")
    return getattr(importlib.import_module(mod), name)


def _theta(doc: Mapping[str, Any]) -> dict[tuple[str, str, int], Fraction]:
    out: dict[tuple[str, str, int], Fraction] = {}
    for key, v in doc["alignment"].items():
        site, rest = key.split("|", 1)  # a class may hold "|" (a sign half: "cls|up")
        cls, k = rest.rsplit("|", 1)
        out[(site, cls, int(k))] = Fraction(v)
    return out


def _problem(mech: Any, doc: Mapping[str, Any]) -> Any:
    from audit.prove.alignment import build_problem, refine_problem

    eps = None if doc.get("epsilon") is None else Fraction(doc["epsilon"])
    prob = build_problem(mech, list(doc["sizes"]), eps, doc["relation"])
    return refine_problem(prob) if doc.get("refined") else prob


def cvc5_decide(text: str) -> str:
    """cvc5's answer ("unsat", "sat", "unknown") on an SMT-LIB2 script with one
    ``(check-sat)``; a parse error is reported as ``error: ...``."""
    import cvc5

    solver = cvc5.Solver()
    solver.setOption("rlimit-per", str(CVC5_RLIMIT))
    parser = cvc5.InputParser(solver)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, "(set-logic ALL)\n" + text,
                          "certificate")
    sm = parser.getSymbolManager()
    answers: list[str] = []
    try:
        while True:
            cmd = parser.nextCommand()
            if cmd.isNull():
                break
            out = cmd.invoke(solver, sm)
            if out and out.strip():
                answers.append(out.strip())
    except RuntimeError as exc:  # cvc5 reports parse / logic errors this way
        return f"error: {exc}"
    return answers[-1] if answers else "error: no check-sat answer"


def z3_decide(text: str) -> str:
    """A fresh Z3 context's answer on the SMT-LIB2 script (random seed fixed:
    :data:`audit.smt_query.SEED`)."""
    from audit.smt_query import SEED

    ctx = z3.Context()
    s = z3.Solver(ctx=ctx)
    s.set("rlimit", 20_000_000 * 5)
    s.set("random_seed", SEED)
    try:
        s.from_string(text)
    except z3.Z3Exception as exc:
        return f"error: {exc}"
    return str(s.check())


def recheck(doc: Mapping[str, Any], *, seed: int = 0, points: int = CONCRETE_POINTS,
            solvers: Sequence[str] = ("cvc5", "z3")) -> Recheck:
    """Re-check a certificate document (module docstring, steps 1-4)."""
    if doc.get("schema") != SCHEMA:
        raise CertificateError(f"not a proof certificate (schema {doc.get('schema')!r})")
    res = Recheck(ok=False, queries=len(doc.get("queries", [])))
    stored = [(q["label"], q["smt2"]) for q in doc["queries"]]
    for q in doc["queries"]:
        if _sha(q["smt2"]) != q.get("sha256"):
            res.problems.append(f"query {q['label']!r}: its text does not match its SHA-256")
    if not stored:
        res.problems.append("the certificate holds no query: it proves nothing")
    mech = _load(doc["program"])
    params = {k: _param_value(v) for k, v in doc.get("params", {}).items()}
    if params:
        mech = mech.at(mech.claimed_epsilon, **params)
    prob = _problem(mech, doc)
    fixed = {k: repr(v) for k, v in prob.fixed.items()}
    if fixed != doc.get("fixed", {}):
        res.problems.append(f"the program's fixed parameters are now {fixed}, the "
                            f"certificate's {doc.get('fixed')}")
    from audit.prove import cegis

    theta = _theta(doc)
    if cegis.signed_alignment(theta) and not getattr(prob, "halves", None):
        from dataclasses import replace

        from audit.prove.alignment import sign_halves

        halves = sign_halves(prob)  # a sign-of-difference proof: each half on its own
        if halves:
            prob = replace(prob, halves=halves)
    again, why = verification_queries(prob, theta)
    if why:
        res.problems.append(f"fresh Z3 on the rebuilt problem with this alignment: {why}")
    elif again != stored:
        diff = next((i for i, (a, b) in enumerate(zip(again, stored, strict=False)) if a != b),
                    min(len(again), len(stored)))
        lab = (stored[diff][0] if diff < len(stored) else again[diff][0])
        res.problems.append(
            f"the stored queries are not the ones the alignment implies ({len(stored)} "
            f"stored, {len(again)} rebuilt; first difference at {lab!r})")
    if "cvc5" in solvers:
        try:
            import cvc5  # noqa: F401
        except ModuleNotFoundError:
            res.missing = ("cvc5 is not installed (pip install 'dpaudit[cvc5]'): the "
                           "second solver did not re-check the queries")
            solvers = [s for s in solvers if s != "cvc5"]
    deciders = [(name, fn) for name, fn in (("cvc5", cvc5_decide), ("fresh Z3", z3_decide))
                if name.split()[-1].lower() in solvers]
    for lab, text in stored:
        for name, decide in deciders:
            a = decide(text)
            if a != "unsat":
                res.problems.append(f"{name} on {lab!r}: {a} (expected unsat)")
            elif name == "cvc5":
                res.cvc5_unsat += 1
            else:
                res.z3_unsat += 1
    if doc.get("all_n") and not why:
        from audit.prove import induction

        ind = induction.prove_all_n(mech, prob, theta)
        if ind.status != "proved" or (ind.theta is not None and ind.theta != theta):
            res.problems.append(f"the all-n induction step re-run with a fresh Z3 does not "
                                f"prove this alignment ({ind.status}: {ind.reason})")
        else:
            res.notes.append("all-n induction step re-run with a fresh Z3: proved (its "
                             "queries are not re-checked by cvc5)")
    if doc.get("noise_dependent"):
        res.notes.append("concrete points skipped: the noise-dependent shift reads the run's "
                         "other draws")
    elif not why:
        done, bad = concrete_points(mech, prob, theta, seed=seed, points=points)
        res.concrete_points = done
        res.problems += bad
        if done == 0:
            res.problems.append("no concrete point could be run: the concrete check "
                                "checked nothing")
    res.ok = not res.problems and not res.missing
    return res


# =============================================================================================
# concrete runs
# =============================================================================================


class _Fixed:
    """Tracer of a concrete run: draw k of a site takes ``noise[(site, k)]`` (or a fresh
    seeded value, recorded); every comparison is then between numbers."""

    def __init__(self, noise: dict[tuple[str, int], Fraction], rng: random.Random,
                 integer_sites: set[str]) -> None:
        self.noise = noise
        self.rng = rng
        self.count: dict[str, int] = {}
        self.integer = integer_sites
        self.used: list[tuple[str, int]] = []
        self.laws: dict[tuple[str, int], str] = {}

    def draw(self, law: str, scale: Any, site: str) -> Lin:
        k = self.count.get(site, 0)
        self.count[site] = k + 1
        c = (site, k)
        if c not in self.noise:
            self.noise[c] = (Fraction(self.rng.randint(-6, 6)) if law == "geometric" else
                             Fraction(self.rng.randint(-4000, 4000), self.rng.randint(1, 997)))
        self.used.append(c)
        self.laws[c] = law
        return Lin(const=self.noise[c])

    def decide(self, expr: Lin, op: str) -> bool:  # pragma: no cover - constants only
        raise CertificateError(f"a comparison over symbolic values ({expr} {op} 0) in a "
                               "concrete run")


def _flat(out: Any) -> list[Any]:
    items = out if isinstance(out, (list, tuple)) else [out]
    flat: list[Any] = []
    for v in items:
        if isinstance(v, (list, tuple)):
            flat += _flat(v)
        elif isinstance(v, Lin):
            flat.append(Fraction(v.const))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            flat.append(Fraction(v))
        else:
            flat.append(v)
    return flat


def _run(mech: Any, q: list[Fraction], eps: Fraction, public: Mapping[str, Fraction],
         noise: dict[tuple[str, int], Fraction], rng: random.Random) -> tuple[Any, _Fixed]:
    kw: dict[str, Any] = {**dict(mech.params), **dict(public)}
    kw[mech.epsilon_param] = eps
    tr = _Fixed(noise, rng, set())
    with dsl.symbolic(tr):
        out = mech.fn([Lin(const=v) for v in q], **kw)
    return _flat(out), tr


def _relation_d(rel: str, n: int, rng: random.Random) -> list[Fraction]:
    steps = [Fraction(-1), Fraction(-1, 2), Fraction(0), Fraction(1, 3), Fraction(1)]
    if rel == "onehot1":
        d = [Fraction(0)] * n
        d[rng.randrange(n)] = rng.choice([Fraction(-1), Fraction(1), Fraction(1, 2)])
        return d
    if rel == "monotone1":
        sign = rng.choice([1, -1])
        return [sign * abs(rng.choice(steps)) for _ in range(n)]
    return [rng.choice(steps) for _ in range(n)]


def _find_path(prob: Any, n: int, q: list[Fraction], public: Mapping[str, Fraction],
               noise: Mapping[tuple[str, int], Fraction]) -> tuple[Any, int] | None:
    """The group and path of the problem whose constraints hold at (q, noise)."""
    for g in prob.groups:
        if g.n != n:
            continue
        for pi, p in enumerate(g.paths):
            env: dict[str, Fraction] = {f"q{i}": v for i, v in enumerate(q)}
            env.update({f"p:{k}": v for k, v in public.items()})
            if any(c not in noise for c in g.coord_of[pi].values()):
                continue
            env.update({var: noise[c] for var, c in g.coord_of[pi].items()})
            if all(_holds(c, env) for c in p.constraints):
                return g, pi
    return None


def _holds(c: Any, env: Mapping[str, Fraction]) -> bool:
    expr = c.expr
    v = expr.const + sum((k * env[name] for name, k in expr.terms.items()), Fraction(0))
    return {">=": v >= 0, ">": v > 0, "<=": v <= 0, "<": v < 0, "==": v == 0}[c.op]


def concrete_points(mech: Any, prob: Any, theta: Mapping[tuple[str, str, int], Fraction], *,
                    seed: int = 0, points: int = CONCRETE_POINTS) -> tuple[int, list[str]]:
    """Run the program on ``points`` seeded random (n, q, d, noise) and on q + d with the
    noise shifted by the alignment: (points run, problems found)."""
    from audit.prove import cegis

    rng = random.Random(seed)
    eps = prob.eps if prob.eps is not None else Fraction(1)
    signed = cegis.signed_alignment(theta)
    done = 0
    problems: list[str] = []
    for k in range(points * 4):
        if done >= points or len(problems) >= 3:
            break
        n = prob.ns[k % len(prob.ns)]
        q = [Fraction(rng.randint(-30, 30), rng.randint(1, 7)) for _ in range(n)]
        d = _relation_d(prob.relation, n, rng)
        if prob.integer:
            q = [Fraction(round(v)) for v in q]
            d = [Fraction(round(v)) for v in d]
        public = {name: Fraction(rng.randint(-20, 20), rng.randint(1, 5))
                  for name in prob.public}
        noise: dict[tuple[str, int], Fraction] = {}
        try:
            out0, tr0 = _run(mech, q, eps, public, noise, rng)
        except (IndexError, dsl.DSLError):
            continue
        hit = _find_path(prob, n, q, public, noise)
        if hit is None:
            continue
        g, _ = hit
        th = theta  # a sign-of-difference proof: the half of this d's sign
        if signed:
            th = cegis.half_theta(dict(theta), "up" if all(v >= 0 for v in d) else "down")
        shifted = dict(noise)
        cost = Fraction(0)
        for c in tr0.used:
            if c not in g.cls:
                problems.append(f"n={n}: draw {c} is not a coordinate of its output group")
                break
            tpl = prob.templates[c[0]]
            cls = g.cls[c]
            delta = g.delta[c]
            dv = delta.const + sum((a * d[int(v[1:])] for v, a in delta.terms.items()),
                                   Fraction(0))
            eta = th.get((c[0], cls, 0), Fraction(0))
            if tpl.anchored:
                eta += th.get((c[0], cls, 1), Fraction(0)) * dv
            shifted[c] = noise[c] + eta
            cost += g.weight[c] * abs(eta)
        else:
            qd = [a + b for a, b in zip(q, d, strict=True)]
            try:
                out1, _ = _run(mech, qd, eps, public, shifted, rng)
            except (IndexError, dsl.DSLError) as exc:
                problems.append(f"n={n}, q={q}, d={d}: the aligned run fails ({exc})")
                continue
            done += 1
            if out1 != out0:
                problems.append(f"n={n}, q={[str(v) for v in q]}, d={[str(v) for v in d]}, "
                                f"noise={ {f'{s}[{i}]': str(v) for (s, i), v in noise.items()} }"
                                f": output {out0} on q but {out1} on q + d with the aligned "
                                "noise")
            if cost > prob.bound:
                problems.append(f"n={n}, d={[str(v) for v in d]}: alignment cost {cost} > "
                                f"bound {prob.bound}")
    return done, problems
