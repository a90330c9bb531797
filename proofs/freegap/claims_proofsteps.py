"""The proof steps of Section 8 of Ding, Wang, Zhang & Kifer (Theorem 5 and the proof of
Lemma 1), each tested itself on an exact instance -- not through the theorems they prove.

The instance is Noisy-Top-K-with-Gap (Algorithm 1) with the local alignment of eq. (2), as
:mod:`proofs.freegap.smt` writes it (the same generic functions, evaluated on integers instead
of Z3 terms): n = 3 queries, k in {1, 2}, every answer vector q in {0, 1}^3, every neighbour q'
with |q_i - q'_i| <= 1 (27 per q), integer noise H in {-2..2}^3 with the discrete-Laplace mass
f(H) proportional to 2^-(|eta_1| + |eta_2| + |eta_3|) (Lap(2k/eps) discretised with eps = 2k ln 2,
so a = e^eps = 4^k exactly; Section 8: "in the case that H is discrete, simply replace the
density with the probability mass function and the integral by a sum").  Ties (probability > 0
with discrete noise, Appendix A.1) belong to no output pattern and are left out, as in
:mod:`proofs.freegap.smt`.

Steps checked, exhaustively and exactly (integers / Fractions), for every (k, q, q', H, omega):

* condition 1 (Sec. 8) / Definition 4: M(D, H) = omega implies M(D', phi(H)) = omega;
* condition 2 and the proof of Lemma 1: phi is one-to-one, and H is recovered from H' by the
  strong induction of the proof (the unselected noises first, each selected one by eta_i =
  eta'_i - psi(earlier etas));
* condition 4 and the proof of Lemma 1: on every piece where the maxima of eq. (2) are attained
  by fixed indices, the Jacobian (SymPy, symbolic q, q', H) is triangular with 1's on the
  diagonal in the acyclic order, so |det J| = 1;
* the display ln f(H)/f(phi(H)) = sum_i ln f_i(eta_i)/f_i(eta'_i) <= sum_i |eta_i - eta'_i| /
  alpha_i <= eps (conditions (iii) and (iv) of Lemma 1);
* Theorem 5's chain per omega: P(S_{D:omega}) <= a P(phi(S_{D:omega})) <= a P(S_{D':omega}) and
  its sum over the outputs E (the D' side summed over the window {-4..4}^3, which contains
  phi of the D window: a lower bound of the full sum, so the check is sound).

Each finding carries its twins (:mod:`audit.falsifiability`): the same checks on a perturbed
claim or alignment -- a tightened by a factor 2 (eps reduced by ln 2), eq. (2) without its
gap-preserving shift, the acyclic order reversed, the shift taken over every index (a cyclic
map) -- each refuted in the same scope.
"""

from __future__ import annotations

import functools
import itertools
import time
from collections.abc import Sequence
from fractions import Fraction as Q
from typing import Any

import sympy as sp

from audit.falsifiability import decide, twin
from audit.findings import Finding, Method, Verdict, counterexample_document, from_jsonable
from audit.registry import replayer
from proofs.freegap import claim
from proofs.freegap.smt import EXACT, MAX, MECHANISMS, Size, asvt_budgets, stopping_rule_allows
from proofs.text_findings import SPLIT, exhaustive_step_finding, paper_finding

#: the generic semantics of :mod:`proofs.freegap.smt` (Z3 terms or numbers): Algorithm 1 with
#: eq. (2), Algorithm 2 with eq. (3)
_TOPK, _ASVT = MECHANISMS["top-k-gap"], MECHANISMS["adaptive-svt"]

SUBJECT = "paper:ding-et-al-free-gap"
REF = "Ding, Wang, Zhang & Kifer (free gap), Section 8"
N, KS, QVALS, W, WIDE = 3, (1, 2), (0, 1), 2, 4
SCOPE = ("Noisy-Top-K-with-Gap with eq. (2)'s alignment: n = 3, k in {1, 2}, every q in "
         "{0, 1}^3 and every neighbour q' (|q_i - q'_i| <= 1), every integer H in {-2..2}^3 "
         "(D' side: {-4..4}^3), mass 2^-sum|eta_i| (eps = 2k ln 2, a = 4^k); ties (no output "
         "pattern) left out; exact integers / Fractions")


# ------------------------------------------------------------------------- the instance
def pattern(q: Sequence[int], H: Sequence[int], k: int) -> tuple[int, ...] | None:
    """The output index sequence (j_1..j_k) of Algorithm 1 on (q, H), or None on a tie that
    decides it (checked against Algorithm 1's run in :mod:`proofs.freegap.smt`)."""
    size = Size(len(q), k)
    order = tuple(sorted(range(len(q)), key=lambda i: -(q[i] + H[i]))[:k])
    return order if _TOPK.run(q, H, order, size, {}, EXACT) else None


@functools.cache
def output(q: tuple[int, ...], H: tuple[int, ...], k: int) -> tuple | None:
    """omega = (index sequence, gaps) of Algorithm 1, or None on a tie (cached: the scope
    evaluates each (q, H, k) several times)."""
    pat = pattern(q, H, k)
    return None if pat is None else (pat, tuple(_TOPK.outputs(q, H, pat, Size(len(q), k), {})))


def align(q: Sequence[int], qp: Sequence[int], H: Sequence[int], pat: tuple, k: int,
          variant: str = "eq2") -> list[int]:
    """eq. (2) (``eq2``); the twins: ``no-shift`` (eta'_i = eta_i + q_i - q'_i for selected i,
    without the max-difference term) and ``cyclic`` (the max difference over every index,
    selected ones included)."""
    if variant == "eq2":
        return list(_TOPK.align(q, qp, H, pat, Size(len(q), k), {}, "general"))
    idx = range(len(q)) if variant == "cyclic" else ()
    shift = (MAX([qp[i] + H[i] for i in idx]) - MAX([q[i] + H[i] for i in idx])) if idx else 0
    return [H[i] + q[i] - qp[i] + shift if i in pat else H[i] for i in range(len(q))]


def invert(q: Sequence[int], qp: Sequence[int], Hp: Sequence[int], pat: tuple) -> list[int]:
    """H from H' by the proof of Lemma 1's strong induction in eq. (2)'s acyclic order: the
    unselected noises are unchanged; each selected eta_i = eta'_i - (q_i - q'_i + shift), the
    shift a function of the unselected (already recovered) noises only."""
    rest = [i for i in range(len(q)) if i not in pat]
    shift = MAX([qp[i] + Hp[i] for i in rest]) - MAX([q[i] + Hp[i] for i in rest])
    return [Hp[i] - (q[i] - qp[i] + shift) if i in pat else Hp[i] for i in range(len(q))]


def mass(H: Sequence[int]) -> int:
    """The discrete-Laplace mass 2^-sum|eta_i| times 2^(3 WIDE) (an integer on the scope's
    windows; the normaliser and the scale cancel in every inequality checked)."""
    return 2 ** (N * WIDE - sum(abs(e) for e in H))


def cases() -> list[tuple[int, tuple[int, ...], tuple[int, ...]]]:
    """Every (k, q, q') of the scope."""
    return [(k, q, qp) for k in KS for q in itertools.product(QVALS, repeat=N)
            for qp in itertools.product(*[(v - 1, v, v + 1) for v in q])]


@functools.cache
def neighbour_masses(k: int, qp: tuple[int, ...]) -> dict[tuple, int]:
    """P(S_{D':omega} within {-4..4}^3) for every output omega of M(D', .) (unnormalised)."""
    out: dict[tuple, int] = {}
    for H2 in itertools.product(range(-WIDE, WIDE + 1), repeat=N):
        w2 = output(qp, H2, k)
        if w2 is not None:
            out[w2] = out.get(w2, 0) + mass(H2)
    return out


def step_violations(k: int, q: tuple, qp: tuple, variant: str = "eq2",
                    log_a: int | None = None, chain: bool = True) -> dict[str, Any]:
    """Every step of conditions 1-2, the cost display and (``chain``) Theorem 5's chain at
    (k, q, q'), with ``log_a`` = log2 a (default 2k, i.e. eps = 2k ln 2).  Returns the first
    violation of each step (None when it holds) and the largest log2 f(H)/f(phi(H)) the case
    attains."""
    log_a = 2 * k if log_a is None else log_a
    a = 2 ** log_a
    bad: dict[str, Any] = {s: None for s in ("output-kept", "one-to-one", "induction-inverse",
                                              "cost-display", "chain-per-output", "chain-sum")}
    p_d: dict[tuple, int] = {}
    p_img: dict[tuple, int] = {}
    images: dict[tuple, tuple] = {}
    attained = None
    for H in itertools.product(range(-W, W + 1), repeat=N):
        w = output(q, H, k)
        if w is None:
            continue
        Hp = tuple(align(q, qp, H, w[0], k, variant))
        if bad["output-kept"] is None and output(qp, Hp, k) != w:
            bad["output-kept"] = {"H": H, "phi(H)": Hp, "omega": str(w)}
        if bad["one-to-one"] is None and Hp in images and images[Hp] != H:
            bad["one-to-one"] = {"H1": images[Hp], "H2": H, "phi(H)": Hp}
        images[Hp] = H
        if bad["induction-inverse"] is None and tuple(invert(q, qp, Hp, w[0])) != H:
            bad["induction-inverse"] = {"H": H, "phi(H)": Hp}
        # ln f(H)/f(H') = ln2 (sum|eta'| - sum|eta|) <= ln2 sum|eta - eta'| <= eps = log_a ln2
        lr = sum(abs(e) for e in Hp) - sum(abs(e) for e in H)
        moved = sum(abs(x - y) for x, y in zip(H, Hp, strict=True))
        attained = lr if attained is None else max(attained, lr)
        if bad["cost-display"] is None and not lr <= moved <= log_a:
            bad["cost-display"] = {"H": H, "phi(H)": Hp, "log2_ratio": lr, "moved": moved}
        p_d[w] = p_d.get(w, 0) + mass(H)
        p_img[w] = p_img.get(w, 0) + mass(Hp)
    if not chain:
        return {"violations": bad, "attained_log2_ratio": attained}
    wide = neighbour_masses(k, qp)
    p_dp = {w: wide.get(w, 0) for w in p_d}
    for w in p_d:
        if bad["chain-per-output"] is None and not (p_d[w] <= a * p_img[w]
                                                    and p_img[w] <= p_dp[w]):
            bad["chain-per-output"] = {"omega": str(w), "P_D": str(p_d[w]),
                                       "a_P_phi": str(a * p_img[w]), "P_D'": str(p_dp[w])}
    if bad["chain-sum"] is None and not sum(p_d.values()) <= a * sum(p_dp.values()):
        bad["chain-sum"] = {"P_D(E)": str(sum(p_d.values())),
                            "a_P_D'(E)": str(a * sum(p_dp.values()))}
    return {"violations": bad, "attained_log2_ratio": attained}


def _first(variant: str = "eq2", tighten: int = 0,
           chain: bool = True) -> tuple[dict[str, Any], int, int]:
    """The first violation of every step over the scope (case attached), the number of cases
    and the largest log2 ratio attained (as a margin for the tightened twin)."""
    first: dict[str, Any] = {}
    top = 0
    all_cases = cases()
    for k, q, qp in all_cases:
        r = step_violations(k, q, qp, variant, 2 * k - tighten, chain)
        top = max(top, (r["attained_log2_ratio"] or 0) - 2 * k)
        for step, v in r["violations"].items():
            if v is not None and step not in first:
                first[step] = {"k": k, "q": list(q), "q'": list(qp), **v}
    return first, len(all_cases), top


# ------------------------------------------------------------------ Jacobian (symbolic)
def jacobian_problems(order: str = "acyclic") -> list[dict]:
    """For every k, output pattern and choice of the unselected indices attaining the two
    maxima of eq. (2): the Jacobian of phi (SymPy, symbolic q, q', H) permuted to eq. (2)'s
    acyclic order (unselected first; ``reversed`` for the twin) -- is it lower triangular with
    1's on the diagonal and |det J| = 1?"""
    eta = sp.symbols("eta1:4", real=True)
    q = sp.symbols("q1:4", real=True)
    qp = sp.symbols("qp1:4", real=True)
    out = []
    for k in KS:
        for pat in itertools.permutations(range(N), k):
            rest = [i for i in range(N) if i not in pat]
            for a_idx, b_idx in itertools.product(rest, rest):
                shift = (qp[b_idx] + eta[b_idx]) - (q[a_idx] + eta[a_idx])
                phi = [eta[i] + q[i] - qp[i] + shift if i in pat else eta[i] for i in range(N)]
                perm = rest + list(pat)
                if order == "reversed":
                    perm = perm[::-1]
                J = sp.Matrix(phi).jacobian(eta)
                P = J.extract(perm, perm)
                tri = all(sp.simplify(P[r, c]) == 0 for r in range(N) for c in range(r + 1, N))
                diag = all(sp.simplify(P[i, i] - 1) == 0 for i in range(N))
                det = sp.simplify(J.det())
                if not (tri and diag and abs(det) == 1):
                    out.append({"k": k, "pattern": list(pat), "argmax_D": a_idx,
                                "argmax_D'": b_idx, "order": order, "det": str(det),
                                "triangular": tri, "unit_diagonal": diag})
    return out


# ------------------------------------------------------------------------------ the claim
_LEMMA1 = ("one-to-one", "induction-inverse", "cost-display", "output-kept")
_THM5 = ("chain-per-output", "chain-sum")


def _inputs(bad: dict | None) -> dict | None:
    """The replay inputs (k, q, q') of a violation of the Section 8 instance."""
    return {k: bad[k] for k in ("k", "q", "q'") if k in bad} or None if bad else None


@claim("text.freegap.sec8-proof-steps", "Section 8: the proof of Lemma 1 (acyclic => one-to-one "
       "by strong induction, unit triangular Jacobian, the cost display) and Theorem 5's chain "
       "P(S_D:E) <= a P(S_D':E), on Noisy-Top-K-with-Gap with discrete noise (exhaustive, exact)",
       "prove", reference="Section 8 (Theorem 5, proof of Lemma 1)")
def sec8_proof_steps(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    first, n_cases, top = _first()
    shift_bad, _, _ = _first("no-shift", chain=False)
    cyc_bad, _, _ = _first("cyclic", chain=False)
    tight_bad, _, _ = _first(tighten=1)
    jac = jacobian_problems()
    jac_twin = jacobian_problems("reversed")
    scope = SCOPE + f" ({n_cases} (k, q, q') cases)"
    lemma_bad = {s: first.get(s) for s in _LEMMA1}
    twins = {
        "output-kept": twin("eq. (2) without its gap-preserving shift (eta'_i = eta_i + q_i - "
                            "q'_i for selected i)", "refuted" if shift_bad.get("output-kept")
                            else "not-refuted", witness=shift_bad.get("output-kept")),
        "induction-inverse": twin("the shift of eq. (2) taken over every index (a cyclic map): "
                                  "the induction's inverse", "refuted"
                                  if cyc_bad.get("induction-inverse") else "not-refuted",
                                  witness=cyc_bad.get("induction-inverse")),
        "cost-display": twin("eps reduced by ln 2 (a = 4^k / 2)", "refuted"
                             if tight_bad.get("cost-display") else "not-refuted",
                             witness=tight_bad.get("cost-display"),
                             margin={"largest log2 ratio - log2 a": top}),
        "jacobian": twin("the acyclic order reversed (selected noises first)", "refuted"
                         if jac_twin else "not-refuted", witness=jac_twin[:1] or None),
    }
    live = all(t["outcome"] == "refuted" for t in twins.values())
    tw1 = twin("each step perturbed: " + "; ".join(t["perturbation"] for t in twins.values()),
               "refuted" if live else "not-refuted", detail="every part's twin must be refuted")
    bad1 = next((v for v in lemma_bad.values() if v), None) or (
        {"jacobian": jac[0]} if jac else None)
    f1 = exhaustive_step_finding(
        id="text.freegap.sec8-lemma1-steps",
        claim="Section 8, proof of Lemma 1 and conditions 1-4: phi keeps the output (M(D, H) = "
              "omega => M(D', phi(H)) = omega); 'by acyclicity ... eta_pi(1) is uniquely "
              "determined by H' ... by strong induction H is uniquely determined by H', i.e. "
              "phi is one-to-one'; 'J is an upper triangular matrix with 1's on the diagonal ... "
              "|det J| = 1'; 'ln f(H)/f(phi(H)) = sum_i ln f_i(eta_i)/f_i(eta'_i) <= sum_i "
              "|eta_i - eta'_i|/alpha_i <= eps'",
        reference=REF, subject=SUBJECT, violation=bad1, twin=tw1,
        scope=scope + "; Jacobian: SymPy on every k, pattern and argmax piece of eq. (2)",
        evidence={"violations": lemma_bad, "jacobian_problems": jac[:3], "twins": twins},
        seed=seed, started=t0, vacuous_reason="a perturbed step also held in the scope",
        inputs=_inputs(bad1))
    thm_bad = {s: first.get(s) for s in _THM5}
    bad2 = next((v for v in thm_bad.values() if v), None)
    tw2 = twin("a tightened by a factor 2 (eps reduced by ln 2)", "refuted"
               if tight_bad.get("chain-per-output") else "not-refuted",
               witness=tight_bad.get("chain-per-output"))
    f2 = exhaustive_step_finding(
        id="text.freegap.sec8-thm5-chain",
        claim="Section 8, proof of Theorem 5 (discrete case: sums for integrals, b = 1): "
              "P(S_D:E_i) = sum f(H) <= a sum_{phi(S_D:E_i)} f(H') <= a P(S_D':E_i) (the last "
              "by the containment phi(S_D:E_i) in S_D':E_i and f >= 0), and P(S_D:E) = sum_i "
              "P(S_D:E_i) <= a P(S_D':E)",
        reference=REF, subject=SUBJECT, violation=bad2, twin=tw2,
        scope=scope + "; D-side probabilities over the window {-2..2}^3",
        evidence={"violations": thm_bad}, seed=seed, started=t0,
        vacuous_reason="the chain also held with a halved", inputs=_inputs(bad2))
    return [f1, f2]


def _replay(steps: tuple[str, ...]) -> Any:
    def run(inputs: dict) -> tuple[bool, Any, Any, str]:
        inputs = from_jsonable(inputs)
        r = step_violations(int(inputs["k"]), tuple(inputs["q"]), tuple(inputs["q'"]))
        v = {s: r["violations"][s] for s in steps if r["violations"][s] is not None}
        return bool(v), "every step holds", v, f"{v}"
    return run


replayer("text.freegap.sec8-lemma1-steps")(_replay(_LEMMA1))
replayer("text.freegap.sec8-thm5-chain")(_replay(_THM5))


# ============================================================ Section 5.1: Lemma 3 and Theorem 2
def lemma3_violation(x: Sequence[Q], xp: Sequence[Q], bound: Q = Q(1)) -> dict | None:
    """Lemma 3 (|max x - max x'| <= ``bound`` when |x_i - x'_i| <= 1) and its proof: s, t
    maximise x, x'; when x_s >= x'_t, 'x_s >= x'_t >= x'_s >= x_s - 1' and '|x_s - x'_t| = x_s -
    x'_t <= 1'; the other case is the same with x and x' swapped (the 'without loss of
    generality')."""
    m = len(x)
    if abs(max(x) - max(xp)) > bound:
        return {"step": "Lemma 3", "x": x, "x'": xp}
    a, b = (x, xp) if max(x) >= max(xp) else (xp, x)  # the WLOG case, or its mirror
    s = max(range(m), key=lambda i: a[i])
    t = max(range(m), key=lambda i: b[i])
    if not (a[s] >= b[t] >= b[s] >= a[s] - 1):
        return {"step": "x_s >= x'_t >= x'_s >= x_s - 1", "x": x, "x'": xp}
    if not (abs(a[s] - b[t]) == a[s] - b[t] <= a[s] - (a[s] - 1) == 1):
        return {"step": "|x_s - x'_t| = x_s - x'_t <= 1", "x": x, "x'": xp}
    return None


_HALF = tuple(Q(i, 2) for i in range(5))  # 0, 1/2, ..., 2
_STEP = tuple(Q(i, 2) for i in range(-2, 3))  # x'_i - x_i in {-1, -1/2, 0, 1/2, 1}


def lemma3_scope(bound: Q = Q(1)) -> tuple[dict | None, int]:
    """The first violation over every x in {0, 1/2, .., 2}^m, m = 1..3, and every x' with x'_i
    - x_i in {-1, -1/2, 0, 1/2, 1}, and the number of pairs."""
    count = 0
    for m in (1, 2, 3):
        for x in itertools.product(_HALF, repeat=m):
            for d in itertools.product(_STEP, repeat=m):
                count += 1
                v = lemma3_violation(x, tuple(a + b for a, b in zip(x, d, strict=True)), bound)
                if v is not None:
                    return {k: [str(t) for t in v[k]] if k != "step" else v[k]
                            for k in v}, count
    return None, count


def thm2_terms(q: Sequence[int], qp: Sequence[int], H: Sequence[int], sel: tuple[int, ...]
               ) -> tuple[list[int], int]:
    """The selected terms t_i = q_i - q'_i + max_{l unsel}(q'_l + eta_l) - max_{l unsel}(q_l +
    eta_l) and the max difference md of the proof of Theorem 2."""
    rest = [i for i in range(len(q)) if i not in sel]
    md = MAX([qp[i] + H[i] for i in rest]) - MAX([q[i] + H[i] for i in rest])
    return [q[i] - qp[i] + md for i in sel], md


def thm2_violation(q: Sequence[int], qp: Sequence[int], H: Sequence[int], sel: tuple[int, ...],
                   k: int, term_bound: int = 2, mono_bound: int = 1) -> dict | None:
    """The steps of Theorem 2's cost bound at one (q, q', H, selected set): the cost of eq. (2)
    = eps/2k sum_{i in I} |t_i| (display 1); |md| <= 1 (Lemma 3 applied); |t_i| <= |q_i - q'_i|
    + |md| <= 1 + 1 = ``term_bound``; monotone neighbours: q_i - q'_i and md in [-1, 0] x [0, 1]
    (q <= q') or [0, 1] x [-1, 0] (q >= q'), so |t_i| <= ``mono_bound``; cost <= eps/2k 2|I| =
    eps (monotone: eps/2k |I| = eps/2).  eps = 1."""
    terms, md = thm2_terms(q, qp, H, sel)
    Hp = _TOPK.align(q, qp, H, sel, Size(len(q), k), {}, "general")
    moved = sum(abs(a - b) for a, b in zip(H, Hp, strict=True))
    up = all(b >= a for a, b in zip(q, qp, strict=True))
    down = all(b <= a for a, b in zip(q, qp, strict=True))
    cost = Q(moved, 2 * k)
    where = {"q": list(q), "q'": list(qp), "H": list(H), "selected": list(sel)}
    if moved != sum(abs(t) for t in terms):
        return {"step": "cost = eps/2k sum |t_i|", **where}
    if abs(md) > 1:
        return {"step": "|max diff| <= 1 (Lemma 3)", **where}
    for i, t in zip(sel, terms, strict=True):
        if not abs(t) <= abs(q[i] - qp[i]) + abs(md) <= term_bound:
            return {"step": f"|t_i| <= |q_i - q'_i| + |md| <= {term_bound}", "i": i, **where}
        if up and not (-1 <= q[i] - qp[i] <= 0 <= md <= 1 and abs(t) <= mono_bound):
            return {"step": "q <= q': q_i - q'_i in [-1, 0], md in [0, 1], |t_i| <= 1", **where}
        if down and not (0 <= q[i] - qp[i] <= 1 and -1 <= md <= 0 and abs(t) <= mono_bound):
            return {"step": "q >= q': q_i - q'_i in [0, 1], md in [-1, 0], |t_i| <= 1", **where}
    if cost > Q(term_bound * len(sel), 2 * k) or ((up or down)
                                                  and cost > Q(mono_bound * len(sel), 2 * k)):
        return {"step": "cost <= eps/2k 2|I| (monotone: eps/2k |I|)", **where}
    return None


def printed_cost_readings(q: Sequence[int], qp: Sequence[int], H: Sequence[int],
                          sel: tuple[int, ...]) -> dict[str, bool]:
    """The second cost display of Theorem 2's proof as printed, 'eps/2k sum_{i in I} |q_i -
    q'_i| + max(..) - max(..)', under its readings, against the cost of eq. (2) (true/false)."""
    terms, md = thm2_terms(q, qp, H, sel)
    Hp = _TOPK.align(q, qp, H, sel, Size(len(q), len(sel)), {}, "general")
    truth = sum(abs(a - b) for a, b in zip(H, Hp, strict=True))  # eps/2k = 1: moved noise
    dq = [abs(q[i] - qp[i]) for i in sel]
    return {"outside": sum(dq) + md == truth, "inside": sum(d + md for d in dq) == truth,
            "bars": sum(abs(t) for t in terms) == truth}


def thm2_scope(term_bound: int = 2, mono_bound: int = 1,
               readings: bool = True) -> tuple[dict | None, dict, int]:
    """Every (n = 3, k, q in {0, 1}^3, neighbour q', H in {-2..2}^3, selected set of size k):
    the first violation of :func:`thm2_violation`, the first failure of each printed reading and
    the number of cases (``readings`` False: stop at the first violation, readings unchecked)."""
    bad, printed, count = None, {}, 0
    for k in (1, 2):
        for sel in itertools.combinations(range(N), k):
            for _, q, qp in (c for c in cases() if c[0] == k):
                for H in itertools.product(range(-W, W + 1), repeat=N):
                    count += 1
                    if bad is None:
                        bad = thm2_violation(q, qp, H, sel, k, term_bound, mono_bound)
                    if not readings:
                        if bad is not None:
                            return bad, printed, count
                        continue
                    for r, ok in printed_cost_readings(q, qp, H, sel).items():
                        if not ok and r not in printed:
                            printed[r] = {"q": list(q), "q'": list(qp), "H": list(H),
                                          "selected": list(sel)}
    return bad, printed, count


def gap_positive_violation(floor: int = 0) -> dict | None:
    """'Thus each gap is positive: g_i > 0' (``floor`` > 0: the twin g_i > floor) for every
    output of Algorithm 1 on the scope of :func:`cases` (no tie)."""
    for k, q, _ in cases():
        for H in itertools.product(range(-W, W + 1), repeat=N):
            w = output(q, H, k)
            if w is not None and min(w[1]) <= floor:
                return {"k": k, "q": list(q), "H": list(H), "gaps": list(w[1])}
    return None


_PRINTED = {"bars": "(a) the bars enclose q_i - q'_i + max(..) - max(..), as in the first "
                    "display of the proof", "outside": "(b) as printed: eps/2k (sum_{i in I} "
                    "|q_i - q'_i|) + max(..) - max(..)", "inside": "(c) as printed with the "
                    "sum over (|q_i - q'_i| + max(..) - max(..))"}


@claim("text.freegap.sec51-cost-steps", "Section 5.1: Lemma 3 and its proof, 'each gap is "
       "positive', and each step of Theorem 2's cost bound (the displays, the triangle step, "
       "the monotone cases) (exhaustive, exact)", "prove",
       reference="Section 5.1 (Lemma 3, proof of Theorem 2)")
def sec51_cost_steps(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    l3_bad, l3_count = lemma3_scope()
    l3_twin, _ = lemma3_scope(Q(1, 2))
    tw3 = twin("Lemma 3's bound 1 tightened to 1/2", "refuted" if l3_twin else "not-refuted",
               witness=l3_twin)
    out = [exhaustive_step_finding(
        id="text.freegap.lemma3-proof",
        claim="Lemma 3: |max_i x_i - max_i x'_i| <= 1 when |x_i - x'_i| <= 1; its proof: 'without "
              "loss of generality assume x_s >= x'_t. Then x_s >= x'_t >= x'_s >= x_s - 1. Hence "
              "|x_s - x'_t| = x_s - x'_t <= x_s - (x_s - 1) = 1'",
        reference="Ding et al., Section 5.1, Lemma 3", subject=SUBJECT, violation=l3_bad, twin=tw3,
        scope=f"every x in {{0, 1/2, .., 2}}^m, m = 1..3, every x' with x'_i - x_i in {{-1, -1/2, "
              f"0, 1/2, 1}} ({l3_count} pairs), exact; the mirror case (x'_t > x_s) with x, x' "
              "swapped",
        evidence={"violation": l3_bad}, seed=seed, started=t0,
        vacuous_reason="the bound 1/2 also held")]
    bad, printed, count = thm2_scope()
    twin_term, _, _ = thm2_scope(term_bound=1, mono_bound=1, readings=False)
    twin_mono, _, _ = thm2_scope(term_bound=2, mono_bound=0, readings=False)
    gap_bad, gap_twin_bad = gap_positive_violation(), gap_positive_violation(1)
    twins = {"term": twin("|t_i| <= 1 + 1 = 2 tightened to 1 (general neighbours)",
                          "refuted" if twin_term else "not-refuted", witness=twin_term),
             "monotone": twin("the monotone bound |t_i| <= 1 tightened to 0", "refuted"
                              if twin_mono else "not-refuted", witness=twin_mono),
             "gap": twin("'each gap is > 1' (on the integer grid)", "refuted" if gap_twin_bad
                         else "not-refuted", witness=gap_twin_bad)}
    live = all(t["outcome"] == "refuted" for t in twins.values())
    tw = twin("each step tightened: " + "; ".join(t["perturbation"] for t in twins.values()),
              "refuted" if live else "not-refuted", detail="every part's twin must be refuted")
    first = bad or gap_bad
    scope = (f"n = 3, k in {{1, 2}}, every selected set of size k, every q in {{0, 1}}^3 and "
             f"neighbour q' (|q_i - q'_i| <= 1; the monotone cases are the q' >= q and q' <= q "
             f"among them), every integer H in {{-2..2}}^3 ({count} cases), eps = 1, exact")
    out.append(exhaustive_step_finding(
        id="text.freegap.thm2-cost-steps",
        claim="Proof of Theorem 2: 'cost = eps/2k sum |eta'_i - eta_i| = eps/2k sum_{i in I} |q_i "
              "- q'_i + max(q'_l + eta_l) - max(q_l + eta_l)|'; 'apply Lemma 3 ... |max - max| <= "
              "1'; '|...| <= |q_i - q'_i| + |max - max| <= 1 + 1 = 2'; monotone: 'q_i - q'_i in "
              "[-1, 0] and max - max in [0, 1]' (or [0, 1], [-1, 0]), 'in both cases ... in [-1, "
              "1]'; 'cost <= eps/2k sum 2 = eps/2k 2|I|' (monotone: eps/2k |I|); 'each gap is "
              "positive: g_i > 0'",
        reference="Ding et al., Section 5.1 (proof of Theorem 2)", subject=SUBJECT,
        violation=first, twin=tw, scope=scope,
        evidence={"violation": bad, "gap_violation": gap_bad, "twins": twins}, seed=seed,
        started=t0, vacuous_reason="a tightened step also held"))
    readings = {_PRINTED[r]: "refuted" if r in printed else "holds" for r in _PRINTED}
    failing = next((r for r in ("outside", "inside") if r in printed), None)
    verdict = (Verdict.VERIFIED if failing is None else
               SPLIT if "bars" not in printed else Verdict.REFUTED)
    out.append(paper_finding(
        id="text.freegap.thm2-cost-display-printed",
        claim="Proof of Theorem 2, second cost display as printed: 'cost(phi) = eps/2k sum_{i in "
              "I} |q_i - q'_i| + max_{l in I^c}(q'_l + eta_l) - max_{l in I^c}(q_l + eta_l)' "
              "(the absolute value bars close after q'_i; the first display of the proof puts "
              "them around the whole term)",
        reference="Ding et al., Section 5.1 (proof of Theorem 2)", method=Method.EXHAUSTIVE,
        reading=_PRINTED[failing] if failing else "", verdict=verdict, scope=scope,
        evidence={"readings": readings, "first_failure": printed},
        counterexample=counterexample_document(
            "text.freegap.thm2-cost-display-printed", SUBJECT,
            {**printed[failing], "reading": failing}, True, False, None,
            note="the printed display differs from the cost of eq. (2)") if failing else None,
        seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT))
    return out


@replayer("text.freegap.lemma3-proof")
def replay_lemma3(inputs: dict) -> tuple[bool, Any, Any, str]:
    inputs = from_jsonable(inputs)
    v = lemma3_violation(tuple(Q(t) for t in inputs["x"]), tuple(Q(t) for t in inputs["x'"]))
    return v is not None, "every step holds", v, f"{v}"


@replayer("text.freegap.thm2-cost-steps")
def replay_thm2(inputs: dict) -> tuple[bool, Any, Any, str]:
    inputs = from_jsonable(inputs)
    if "gaps" in inputs:
        w = output(tuple(inputs["q"]), tuple(inputs["H"]), int(inputs["k"]))
        return w is not None and min(w[1]) <= 0, "gaps > 0", w, f"{w}"
    sel = tuple(inputs["selected"])
    v = thm2_violation(tuple(inputs["q"]), tuple(inputs["q'"]), tuple(inputs["H"]), sel,
                       len(sel))
    return v is not None, "every step holds", v, f"{v}"


@replayer("text.freegap.thm2-cost-display-printed")
def replay_printed(inputs: dict) -> tuple[bool, Any, Any, str]:
    inputs = from_jsonable(inputs)
    ok = printed_cost_readings(tuple(inputs["q"]), tuple(inputs["q'"]), tuple(inputs["H"]),
                               tuple(inputs["selected"]))
    r = inputs.get("reading", "outside")
    return not ok[r], "the cost of eq. (2)", ok, f"reading {r}: {ok}"


# ====================================================== Section 6.1: Theorem 4's cost display
_THETAS = (Q(1, 4), Q(1, 2), Q(3, 4))


def thm4_violation(pat: tuple[str, ...], d: Sequence[Q], k: int, theta: Q, term_bound: Q = Q(2),
                   mono_bound: Q = Q(1), rule: str = "paper") -> dict | None:
    """The steps of Theorem 4's cost bound for an output pattern (T = top, M = middle, B =
    bottom branch per query) that line 16's stopping ``rule`` allows, and d_i = q_i - q'_i:
    Definition 6's cost of eq. (3) (weights of Lap(1/eps_0), Lap(2/eps_2), Lap(2/eps_1)) =
    eps_0 |eta' - eta| + sum (eps_2/2 |xi'_i - xi_i| + eps_1/2 |eta'_i - eta_i|) = eps_0 +
    sum_I eps_2/2 |1 + d_i| + sum_J eps_1/2 |1 + d_i|; |1 + d_i| <= 1 + |d_i| <= ``term_bound``;
    d_i <= 0 (q_i <= q'_i, monotone): |1 + d_i| <= ``mono_bound``; cost <= eps_0 + eps_2 |I| +
    eps_1 |J| <= eps (= 1)."""
    size, par = Size(len(d), k), {"theta": theta}
    if not stopping_rule_allows(pat, size, par, rule):
        return None  # not an output of Algorithm 2 under this rule
    e0, e1, e2 = asvt_budgets(par, size)
    q, qp = [Q(0)] * len(d), [-x for x in d]
    H = [Q(0)] * (2 * len(d) + 1)
    Hp = _ASVT.align(q, qp, H, pat, size, par, "general")
    weights = _ASVT.weights(size, par)
    cost = sum(w * abs(a - b) for w, a, b in zip(weights, H, Hp, strict=True))
    display1 = e0 * abs(Hp[0] - H[0]) + sum(
        e2 / 2 * abs(Hp[1 + 2 * i] - H[1 + 2 * i]) + e1 / 2 * abs(Hp[2 + 2 * i] - H[2 + 2 * i])
        for i in range(len(d)))
    top = [i for i, t in enumerate(pat) if t == "T"]
    mid = [i for i, t in enumerate(pat) if t == "M"]
    display2 = e0 + sum(e2 / 2 * abs(1 + d[i]) for i in top) + sum(
        e1 / 2 * abs(1 + d[i]) for i in mid)
    where = {"pattern": "".join(pat), "d": [str(x) for x in d], "k": k, "theta": str(theta),
             "rule": rule}
    if not e2 < e1:
        return {"step": "a top-branch answer costs eps_2 < eps_1 (a middle one's cost)", **where}
    if not cost == display1 == display2:
        return {"step": "cost = eps_0 + sum_I eps_2/2 |1 + d_i| + sum_J eps_1/2 |1 + d_i|",
                **where}
    for i in top + mid:
        if not abs(1 + d[i]) <= 1 + abs(d[i]) <= term_bound:
            return {"step": f"|1 + q_i - q'_i| <= 1 + |q_i - q'_i| <= {term_bound}", **where}
        if d[i] <= 0 and abs(1 + d[i]) > mono_bound:
            return {"step": f"q_i <= q'_i: |1 + q_i - q'_i| <= {mono_bound}", **where}
    if not display2 <= e0 + e2 * len(top) + e1 * len(mid) <= 1:
        return {"step": "cost <= eps_0 + eps_2 |I| + eps_1 |J| <= eps", **where}
    return None


def thm4_scope(term_bound: Q = Q(2), mono_bound: Q = Q(1), rule: str = "paper"
               ) -> tuple[dict | None, int]:
    """Every pattern of length 1..3 (m = 3 queries), k in {1, 2, 3}, theta in {1/4, 1/2, 3/4},
    d in {-1, -1/2, 0, 1/2, 1}^len: the first violation and the number of cases."""
    count = 0
    for k in (1, 2, 3):
        size = Size(3, k)
        for pat in _ASVT.patterns(size):
            for theta in _THETAS:
                for d in itertools.product(_STEP, repeat=len(pat)):
                    count += 1
                    v = thm4_violation(pat, d + (Q(0),) * (3 - len(pat)), k, theta,
                                       term_bound, mono_bound, rule)
                    if v is not None:
                        return v, count
    return None, count


@claim("text.freegap.sec61-cost-steps", "Section 6.1: each step of Theorem 4's cost bound "
       "(Definition 6's cost of eq. (3), |1 + q_i - q'_i| <= 2, the monotone |.| <= 1 of "
       "footnote 6, and eps_0 + eps_2 |I| + eps_1 |J| <= eps under line 16) (exhaustive, exact)",
       "prove", reference="Section 6.1 (proof of Theorem 4), footnote 6")
def sec61_cost_steps(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    bad, count = thm4_scope()
    twins = {"term": thm4_scope(term_bound=Q(3, 2))[0],
             "monotone": thm4_scope(mono_bound=Q(1, 2))[0],
             "stopping": thm4_scope(rule="eps")[0]}
    names = {"term": "|1 + q_i - q'_i| <= 2 tightened to 3/2",
             "monotone": "the monotone bound 1 tightened to 1/2",
             "stopping": "line 16's rule 'cost > eps - eps_1' read as 'cost > eps'"}
    parts = {k: twin(names[k], "refuted" if v else "not-refuted", witness=v)
             for k, v in twins.items()}
    live = all(t["outcome"] == "refuted" for t in parts.values())
    tw = twin("each step perturbed: " + "; ".join(names.values()),
              "refuted" if live else "not-refuted", detail="every part's twin must be refuted")
    return [exhaustive_step_finding(
        id="text.freegap.thm4-cost-steps",
        claim="Proof of Theorem 4: 'cost(phi) = eps_0 |eta' - eta| + sum_i (eps_2/2 |xi'_i - "
              "xi_i| + eps_1/2 |eta'_i - eta_i|) = eps_0 + sum_{i in I} eps_2/2 |1 + q_i - q'_i| "
              "+ sum_{i in J} eps_1/2 |1 + q_i - q'_i| <= eps_0 + eps_2 |I| + eps_1 |J| <= eps'; "
              "'|1 + q_i - q'_i| <= 1 + |q_i - q'_i| <= 2'; footnote 6: 'if q_i <= q'_i ... "
              "|1 + q_i - q'_i| <= 1'; the per-branch budgets eps_2 (top), eps_1 (middle), 0",
        reference="Ding et al., Section 6.1 (proof of Theorem 4)", subject=SUBJECT,
        violation=bad, twin=tw,
        scope=f"m = 3 queries, every output pattern of length 1..3 that line 16 allows, k in "
              f"{{1, 2, 3}}, theta in {{1/4, 1/2, 3/4}}, every q_i - q'_i in {{-1, -1/2, 0, 1/2, "
              f"1}} ({count} cases), eps = 1, exact (the alignment shifts do not depend on H)",
        evidence={"violation": bad, "twins": parts}, seed=seed, started=t0,
        vacuous_reason="a perturbed step also held")]


@replayer("text.freegap.thm4-cost-steps")
def replay_thm4(inputs: dict) -> tuple[bool, Any, Any, str]:
    inputs = from_jsonable(inputs)
    d = tuple(Q(x) for x in inputs["d"])
    v = thm4_violation(tuple(inputs["pattern"]), d + (Q(0),) * (3 - len(d)), int(inputs["k"]),
                       Q(inputs["theta"]), rule=inputs.get("rule", "paper"))
    return v is not None, "every step holds", v, f"{v}"


# ========================================== Appendix A.2: the algebra of Theorem 3's proof (BLUE)
def a2_step_problems(k: int, perturb: bool = False) -> tuple[list[str], int]:
    """The symbolic identities of Appendix A.2 for k queries (SymPy, every entry of X, Y, q, xi,
    eta a free symbol), with N the (k-1) x k difference matrix: E(beta) = Xq + YNq (xi, eta
    mean 0); X + YN = I_k is the unbiasedness condition (so X = I_k - YN, eq. (5)); (I_k - YN)
    alpha + Yg = alpha - Y(N alpha - g); N alpha - g = N(xi - eta); eq. (6); beta - q = xi -
    Y theta; the expansion of Phi; dPhi/dY = -xi theta^T - xi theta^T + Y(theta theta^T +
    theta theta^T) (entrywise); (xi theta^T)_ij and the expansion of (theta theta^T)_ij.
    ``perturb`` (the twin): every right-hand side with one sign flipped.  Returns the names of
    the steps that fail and the number of steps checked."""
    s = -1 if perturb else 1
    q = sp.Matrix(sp.symbols(f"q1:{k + 1}"))
    xi = sp.Matrix(sp.symbols(f"xi1:{k + 1}"))
    eta = sp.Matrix(sp.symbols(f"eta1:{k + 1}"))
    Y = sp.Matrix(k, k - 1, lambda r, c: sp.Symbol(f"y{r + 1}_{c + 1}"))
    X = sp.Matrix(k, k, lambda r, c: sp.Symbol(f"x{r + 1}_{c + 1}"))
    Nm = sp.Matrix(k - 1, k, lambda r, c: 1 if c == r else (-1 if c == r + 1 else 0))
    I_k = sp.eye(k)
    alpha, g = q + xi, Nm * (q + eta)
    beta = X * alpha + Y * g
    theta = Nm * (xi - eta)
    zero = {v: 0 for v in list(xi) + list(eta)}
    steps: dict[str, Any] = {}
    steps["E(beta) = Xq + YNq"] = beta.subs(zero) - (X * q + s * Y * Nm * q)
    # unbiasedness for every q: the coefficient matrix of q in E(beta) - q vanishes
    coeff = (X * q + Y * Nm * q - q).jacobian(list(q))
    Xsol = sp.solve(list(coeff), list(X), dict=True)
    steps["X + YN = I_k, X = I_k - YN (5)"] = (
        sp.Matrix(k, k, lambda r, c: Xsol[0][X[r, c]]) - (I_k - s * Y * Nm)
        if len(Xsol) == 1 else sp.Matrix([1]))
    b5 = (I_k - Y * Nm) * alpha + Y * g
    steps["(I - YN) alpha + Yg = alpha - Y(N alpha - g)"] = b5 - (alpha - s * Y * (Nm * alpha - g))
    steps["N alpha - g = N(xi - eta)"] = (Nm * alpha - g) - s * Nm * (xi - eta)
    steps["(6) beta = alpha - YN(xi - eta)"] = b5 - (alpha - s * Y * Nm * (xi - eta))
    steps["beta - q = xi - Y theta"] = (b5 - q) - (xi - s * Y * theta)
    r = xi - Y * theta
    phi = (r.T * r)[0, 0]
    expansion = (xi.T * xi - xi.T * Y * theta - theta.T * Y.T * xi
                 + s * theta.T * Y.T * Y * theta)[0, 0]
    steps["Phi expansion"] = sp.Matrix([phi - expansion])
    grad = sp.Matrix(k, k - 1, lambda a, b: sp.diff(phi, Y[a, b]))
    printed = -xi * theta.T - xi * theta.T + s * Y * (theta * theta.T + theta * theta.T)
    steps["dPhi/dY"] = grad - printed
    x_, e_ = list(xi) + [0], list(eta) + [0]
    steps["(xi theta^T)_ij"] = sp.Matrix(k, k - 1, lambda i, j: (xi * theta.T)[i, j] - x_[i] * (
        x_[j] - s * x_[j + 1] - e_[j] + e_[j + 1]))

    def tt(i: int, j: int) -> Any:
        xi_i, xi_i1, xi_j, xi_j1 = x_[i], x_[i + 1], x_[j], x_[j + 1]
        e_i, e_i1, e_j, e_j1 = e_[i], e_[i + 1], e_[j], e_[j + 1]
        return (xi_i * xi_j + xi_i1 * xi_j1 - xi_i * xi_j1 - xi_i1 * xi_j + e_i * e_j
                + e_i1 * e_j1 - e_i * e_j1 - e_i1 * e_j - (xi_i - xi_i1) * (e_j - e_j1)
                - s * (e_i - e_i1) * (xi_j - xi_j1))
    steps["(theta theta^T)_ij expansion"] = sp.Matrix(
        k - 1, k - 1, lambda i, j: (theta * theta.T)[i, j] - tt(i, j))
    return [name for name, m in steps.items()
            if any(sp.expand(e) != 0 for e in sp.Matrix(m))], len(steps)


@claim("text.freegap.a2-proof-steps", "Appendix A.2: each algebraic step of Theorem 3's proof "
       "(unbiasedness => X = I - YN, eqs. (5)-(6), beta - q = xi - Y theta, Phi and dPhi/dY, the "
       "entries of xi theta^T and theta theta^T) (SymPy, exact, k = 2..5)", "prove",
       reference="Appendix A.2")
def a2_proof_steps(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    ks = (2, 3, 4, 5)
    bad = {k: a2_step_problems(k)[0] for k in ks}
    twin_bad, n_steps = a2_step_problems(3, perturb=True)
    failing = {k: v for k, v in bad.items() if v}
    tw = twin("every step's right-hand side with one sign flipped (k = 3)",
              "refuted" if len(twin_bad) == n_steps else "not-refuted",
              witness={"steps refuted": len(twin_bad), "of": n_steps})
    first_k = min(failing, default=0)
    return [paper_finding(
        id="text.freegap.a2-proof-steps",
        claim="Appendix A.2 (proof of Theorem 3): 'E(beta) = Xq + YNq = q. Therefore X + YN = "
              "I_k and thus X = I_k - YN (5)'; 'beta = (I_k - YN) alpha + Yg = alpha - Y(N alpha "
              "- g)'; 'N alpha - g = N(xi - eta)'; eq. (6); 'beta - q = xi - Y theta'; 'Phi = "
              "E(xi^T xi - xi^T Y theta - theta^T Y^T xi + theta^T Y^T Y theta)'; 'dPhi/dY = "
              "E(0 - xi theta^T - xi theta^T + Y(theta theta^T + theta theta^T))'; '(xi "
              "theta^T)_ij = xi_i(xi_j - xi_{j+1} - eta_j + eta_{j+1})' and the expansion of "
              "(theta theta^T)_ij",
        reference="Ding et al., Appendix A.2", method=Method.SYMBOLIC,
        reading="" if not failing else "as printed",
        verdict=decide(not failing, tw, failed=Verdict.REFUTED,
                       vacuous_reason="a sign-flipped step also held"),
        scope="k = 2, 3, 4, 5; every entry of X, Y, q, xi, eta a free symbol; identities as "
              "polynomials (expanded to 0), before taking expectations; xi_{k+1} = eta_{k+1} = 0 "
              "where an entry formula reaches past k",
        evidence={"failing_steps": failing, "twin": tw},
        counterexample=counterexample_document("text.freegap.a2-proof-steps", SUBJECT,
                                               {"k": first_k}, [], failing.get(first_k), None)
        if failing else None,
        seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT)]


@replayer("text.freegap.a2-proof-steps")
def replay_a2(inputs: dict) -> tuple[bool, Any, Any, str]:
    inputs = from_jsonable(inputs)
    bad, _ = a2_step_problems(int(inputs["k"]))
    return bool(bad), [], bad, f"failing steps: {bad}"
