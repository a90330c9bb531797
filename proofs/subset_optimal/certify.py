"""Certify Algorithm 3 (Dick et al.) on one data set: a certify chain
(:class:`audit.checks.chain.Chain`) whose links compute the exact per-step privacy loss of
its two Algorithm 2 calls on add/remove neighbours of the data (the composition in Theorem
1's proof charges eps to each step).

Links (each one Finding):

1. ``subset.input`` — the records are finite and inside [-R, R]; R, eps, gamma > 0.
2. ``subset.step-l-hat`` / ``subset.step-u-hat`` — the exact loss (mpmath, rounded up) of
   the step on six neighbours: add -R, add R, add the median record; remove the minimum,
   the maximum, the median record.  Refuted when a neighbour's loss (rounded down) exceeds
   eps, with a replayable counterexample naming the neighbour by its rank in the sorted
   data and the data by source + keyed fingerprint.
3. ``subset.every-neighbour`` — with a public size (``n_public``) alpha, zeta, beta are
   public; the largest change of each threshold step's score over *every* add/remove
   neighbour is computed exactly from the finite set of (count, rank) patterns a neighbour
   induces at an output (:func:`score_sensitivity`), giving the loss bound eps * max|Delta K|
   per step (exponential mechanism); its twin, a rank that moves by 2 per record, is
   rejected by the same computation.  The printed algorithm (alpha = gamma/|D|) moves the
   window with the neighbour: inconclusive.
4. ``subset.step-mean`` — the third step (line 4, Algorithm 1 on [l-hat, u-hat]): its exact
   loss over every neighbour and window, eps/2 + eps/2 under the clipping reading (named
   in the finding); its twin, the printed "run on D" without clipping, is refuted.

CERTIFIED's scope names every step of the released mu-hat and the links covering it
(:data:`STEP_COVERAGE`).

Verdicts (the chain rule): NOT CERTIFIED when a step is refuted (the printed accounting
eps + eps + eps = 3 eps fails on this data set), CERTIFIED only with ``n_public`` and every
tested loss <= eps and every link verified, INCONCLUSIVE otherwise.

Neighbour relation add/remove one: the size n is *not* public (it differs between
neighbours), so n goes to the confidential part unless given as ``n_public``.  Nothing here
prints or writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from audit import falsifiability
from audit import fingerprint as fp
from audit.checks.chain import Chain, Link, certification
from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.reader_record import input_check
from audit.registry import replayer
from kernels.errors import InputError
from proofs.subset_optimal.privacy import alg2_loss, alg3_params_exact

__all__ = [
    "CHAIN",
    "NEIGHBOURS",
    "SubsetCertifyConfig",
    "SubsetCertifyResult",
    "certify_alg3",
    "validate",
]

REF = "Dick, Kulesza, Sun & Suresh, Algorithm 3, Theorem 1"
PUBLIC_SUBJECT = "data:confidential"
#: the neighbours searched, in public terms (which record: by its rank in the sorted data)
NEIGHBOURS = ("add -R", "add R", "add the median record", "remove the minimum record",
              "remove the maximum record", "remove the median record")
_STEPS = (("t_l", "subset.step-l-hat", "l-hat"), ("t_u", "subset.step-u-hat", "u-hat"))


@dataclass(frozen=True)
class SubsetCertifyConfig:
    """Everything the chain needs; ``data`` is validated by :func:`validate`."""

    data: np.ndarray
    source: dict[str, Any]  # {"sample": name} or a file reference (audit.datasets)
    R: float
    epsilon: float
    gamma: float = 1.0
    n_public: int | None = None
    key: bytes | None = field(default=None, repr=False)
    key_ref: dict[str, str] | None = None
    #: the reader's record of the holder's file (audit.datasets.read_csv_column; None for
    #: a built-in sample): confidential, checked against the records certified
    reader: dict[str, Any] | None = None


@dataclass
class SubsetCertifyResult:
    findings: list[Finding]
    certification: dict[str, Any]
    parameters: dict[str, Any]
    subject: str


@dataclass
class _Context:
    cfg: SubsetCertifyConfig
    xs: list[Fraction]  # sorted
    fingerprint: str | None
    subject: str = PUBLIC_SUBJECT
    shared: dict[str, Any] = field(default_factory=dict)


def validate(cfg: SubsetCertifyConfig) -> np.ndarray:
    """The data as sorted float64; raises :class:`InputError` naming the flag (never a
    record's value: the data are confidential)."""
    for name, v in (("--R", cfg.R), ("--epsilon", cfg.epsilon), ("--gamma", cfg.gamma)):
        if not (isinstance(v, (int, float)) and np.isfinite(v) and v > 0):
            raise InputError(f"{name} must be a finite number > 0, got {v!r}")
    if cfg.n_public is not None and (isinstance(cfg.n_public, bool) or cfg.n_public < 1):
        raise InputError(f"--n-public must be >= 1, got {cfg.n_public}")
    x = np.asarray(cfg.data, dtype=np.float64).reshape(-1)
    if x.size == 0:
        raise InputError("the data column is empty")
    if not np.all(np.isfinite(x)):
        raise InputError("the data column holds a non-finite value")
    if np.any(x < -cfg.R) or np.any(x > cfg.R):
        raise InputError(f"some records lie outside [-R, R] with --R {cfg.R:g} (certify "
                         "audits the data as given: widen --R)")
    return np.sort(x)


def _neighbour(xs: list[Fraction], which: int, R: Fraction) -> tuple[list[Fraction], dict]:
    """Neighbour ``which`` (index into :data:`NEIGHBOURS`) and its confidential description
    (op, and the rank of the record added or removed)."""
    n = len(xs)
    med = n // 2
    if which in (0, 1):
        v = -R if which == 0 else R
        return sorted([*xs, v]), {"op": "add", "value": "-R" if which == 0 else "R"}
    if which == 2:
        return sorted([*xs, xs[med]]), {"op": "add", "rank": med}
    rank = {3: 0, 4: n - 1, 5: med}[which]
    d2 = list(xs)
    del d2[rank]
    return d2, {"op": "remove", "rank": rank}


def _step_loss(xs: list[Fraction], d2: list[Fraction], key: str, cfg: SubsetCertifyConfig
               ) -> dict[str, Any]:
    n, n2 = len(xs), len(d2)
    Rf, eps, g = Fraction(cfg.R), Fraction(cfg.epsilon), Fraction(cfg.gamma)
    a1 = alg3_params_exact(n, Rf, eps, g, cfg.n_public)["alpha"]
    a2 = alg3_params_exact(n2, Rf, eps, g, cfg.n_public)["alpha"]

    def r1() -> Any:
        return alg3_params_exact(n, Rf, eps, g, cfg.n_public)[key]

    def r2() -> Any:
        return alg3_params_exact(n2, Rf, eps, g, cfg.n_public)[key]

    return alg2_loss(xs, r1, a1, d2, r2, a2, -Rf, Rf, eps).as_dict()


def _data_ref(ctx: _Context) -> dict[str, Any]:
    return {"source": ctx.cfg.source,
            "fingerprint": {"value": ctx.fingerprint or fp.UNKEYED, **(ctx.cfg.key_ref or {})}}


def _input_twin(cfg: SubsetCertifyConfig) -> dict[str, Any]:
    """The input check run on the data with one record at 2R appended: refuted when
    :func:`validate` rejects it."""
    from dataclasses import replace

    bad = replace(cfg, data=np.append(np.asarray(cfg.data, dtype=np.float64), 2 * cfg.R))
    tw = falsifiability.rejection_twin(lambda: validate(bad), "the data with one record at 2R "
                                       "appended", InputError)
    return {**tw, "witness": {"added_record": "2R"}}


def _input(ctx: _Context) -> list[Finding]:
    cfg = ctx.cfg
    tw = _input_twin(cfg)
    rc = input_check(cfg.reader, cfg.source.get("column"), len(ctx.xs))
    return [Finding(
        id="subset.input",
        claim="the records are finite and inside [-R, R]; R, eps and gamma are valid",
        reference=f"{REF}; DESIGN.md 'Bad input'",
        method=Method.EXHAUSTIVE,
        verdict=Verdict.INCONCLUSIVE if rc.problems else falsifiability.decide(
            True, tw, failed=Verdict.ERROR,
            vacuous_reason="a record outside [-R, R] is accepted"),
        scope="every record checked: finite, in [-R, R]" + rc.scope,
        evidence={"R": cfg.R, "epsilon": cfg.epsilon, "gamma": cfg.gamma,
                  "n_public": cfg.n_public, "twin": tw},
        # add/remove one: the true size differs between neighbours, it is not public;
        # the reader's record names the holder's column
        confidential={"n": len(ctx.xs), "data_fingerprint": ctx.fingerprint,
                      **rc.confidential},
        subject=ctx.subject,
    )]


def _step_link(key: str, fid: str, name: str) -> Link[_Context]:
    def run(ctx: _Context) -> list[Finding]:
        cfg = ctx.cfg
        eps = float(cfg.epsilon)
        rows = []
        for which in range(len(NEIGHBOURS)):
            d2, change = _neighbour(ctx.xs, which, Fraction(cfg.R))
            loss = _step_loss(ctx.xs, d2, key, cfg)
            rows.append({"neighbour": NEIGHBOURS[which], "change": change,
                         "loss_up": loss["epsilon_up"], "loss_down": loss["value_down"],
                         "event": [float(e) for e in loss["event"]]})
        worst = max(rows, key=lambda r: r["loss_down"])
        worst_up = max(r["loss_up"] for r in rows)
        if worst["loss_down"] > eps:
            verdict = Verdict.REFUTED
        elif worst_up <= eps:
            verdict = Verdict.NOT_REFUTED  # six neighbours, not every one
        else:
            verdict = Verdict.INCONCLUSIVE
        cx = None
        if verdict is Verdict.REFUTED:
            cx = counterexample_document(
                fid, ctx.subject,
                {**_data_ref(ctx), "R": cfg.R, "epsilon": cfg.epsilon, "gamma": cfg.gamma,
                 "n_public": cfg.n_public, "step": key, "change": worst["change"]},
                {"max_loss": eps}, {"loss_down": worst["loss_down"],
                                    "loss_up": worst["loss_up"]}, None,
                f"the {name} step of Algorithm 3 (an Algorithm 2 call charged eps) loses more "
                "than eps between the data and this add/remove neighbour (rank in the sorted "
                "data, 0-based)")
        return [Finding(
            id=fid,
            claim=f"the {name} step of Algorithm 3 (an Algorithm 2 call) is eps-DP on "
            "add/remove neighbours of this data (Theorem 1's accounting charges eps to it)",
            reference=f"{REF}; Algorithm 2, Theorem 2",
            method=Method.EXACT_LOSS,
            verdict=verdict,
            scope=f"{len(NEIGHBOURS)} add/remove neighbours of this data ("
            + "; ".join(NEIGHBOURS) + "); exact loss with mpmath at 30 and 60 digits, "
            "rounded up",
            evidence={"claimed_per_step": eps, "claimed_total": 3 * eps,
                      "relation": "add-remove-one", "neighbours": list(NEIGHBOURS)},
            # the losses, the witness events (output values next to the records) and the
            # ranks of the records added or removed are functions of the data
            confidential={"worst_loss_down": worst["loss_down"], "worst_loss_up": worst_up,
                          "rows": rows},
            counterexample=cx,
            subject=ctx.subject,
        )]

    return Link(key, f"exact loss of the {name} step on six neighbours", run)


#: the count patterns (delta c_<, delta c_<=) an added record induces at an output tau: below
#: the window (both counts + 1), inside it (c_<= + 1), above it (none); a removed record the
#: negatives.  Every add/remove neighbour induces one of these at every tau.
ADD_PATTERNS = ((0, 0), (0, 1), (1, 1))


def rank_shift(key: str, dn: int) -> int:
    """How much the step's rank moves when |D| moves by ``dn`` (public size: alpha, zeta, beta
    are public; Algorithm 3 line 1: t_l = 1/eps + beta does not move, t_u = |D| - 1/eps -
    beta moves with |D|)."""
    return 0 if key == "t_l" else dn


def score_sensitivity(key: str) -> tuple[int, dict[str, Any]]:
    """Largest change of the step's score K(tau) = max(0, c_< - r, r - c_<=) (Algorithm 2 line
    1, :meth:`ExactPieces.losses`) at any output tau over *every* add/remove neighbour, with the
    neighbour kind and count pattern attaining it.

    Exact and exhaustive: at each tau a neighbour changes (c_<, c_<=, r) by one of the integer
    patterns of :data:`ADD_PATTERNS` (negated for a removal) with the rank shift of
    :func:`rank_shift`; max(0, a, b) is 1-Lipschitz in the sup norm, so |Delta K| <= max(|d1 -
    dr|, |d2 - dr|), attained by some tau of a data set where neither clip binds."""
    best: tuple[int, dict[str, Any]] = (-1, {})
    for kind, sign in (("add", 1), ("remove", -1)):
        dr = rank_shift(key, sign)
        for d1, d2 in ADD_PATTERNS:
            g = max(abs(sign * d1 - dr), abs(sign * d2 - dr))
            if g > best[0]:
                best = (g, {"neighbour": kind, "pattern": (sign * d1, sign * d2),
                            "rank_shift": dr})
    return best


def _check_rank_shift(cfg: SubsetCertifyConfig, key: str) -> bool:
    """The shifts of :func:`rank_shift` against Algorithm 3 line 1 evaluated at 60 digits."""
    import mpmath

    n = cfg.n_public or 1
    Rf, eps, g = Fraction(cfg.R), Fraction(cfg.epsilon), Fraction(cfg.gamma)
    with mpmath.workdps(60):
        base = alg3_params_exact(n + 1, Rf, eps, g, cfg.n_public)[key]
        return all(abs(alg3_params_exact(n + 1 + dn, Rf, eps, g, cfg.n_public)[key] - base
                       - rank_shift(key, dn)) < mpmath.mpf(10) ** -50 for dn in (-1, 1))


def _every_neighbour(ctx: _Context) -> list[Finding]:
    cfg = ctx.cfg
    if cfg.n_public is None:
        return [Finding(
            id="subset.every-neighbour",
            claim="every add/remove neighbour (not only the six tested) keeps each threshold "
            "step eps-DP",
            reference=f"{REF}; Theorem 2 (Algorithm 2 with public r and alpha)",
            method=Method.EXACT,
            verdict=Verdict.INCONCLUSIVE,
            scope="the printed algorithm sets alpha = gamma/|D| from the data: the window "
            "itself moves with the neighbour, no bound over every neighbour is computed",
            evidence={"n_public": None},
            subject=ctx.subject,
        )]
    eps = Fraction(cfg.epsilon)
    per_step: dict[str, Any] = {}
    ok = True
    for key, _fid, name in _STEPS:
        sens, at = score_sensitivity(key)
        bound = eps * sens  # eps/2 * sens for the density, eps/2 * sens for the normaliser
        shift_ok = _check_rank_shift(cfg, key)
        ok = ok and shift_ok and bound <= eps
        per_step[name] = {"score_sensitivity": sens, "attained_by": at,
                          "loss_bound": bound, "rank_shift_checked_60_digits": shift_ok}
    # twin: the same computation on a broken rank (t_u moving by 2 per record, i.e. the
    # printed t_u = |D| - ... with |D| counted twice) - refuted: sensitivity 2, bound 2 eps
    broken = max(max(abs(sign * d1 - 2 * sign), abs(sign * d2 - 2 * sign))
                 for sign in (1, -1) for d1, d2 in ADD_PATTERNS)
    tw = falsifiability.twin(
        "the u-hat rank moving by 2 per added/removed record (a broken t_u): the same "
        "exhaustive pattern computation", "refuted" if eps * broken > eps else "not-refuted",
        witness={"neighbour": "add", "pattern": (0, 0), "rank_shift": 2},
        margin={"score_sensitivity": broken, "loss_bound": eps * broken, "claimed": eps},
        detail="sensitivity 2 and no bound <= eps: the check rejects this rank")
    verdict = falsifiability.decide(ok, tw, failed=Verdict.INCONCLUSIVE,
                                    vacuous_reason="no broken rank is rejected")
    return [Finding(
        id="subset.every-neighbour",
        claim="every add/remove neighbour (not only the six tested) keeps each threshold step "
        "(l-hat, u-hat) eps-DP",
        reference=f"{REF}; Theorem 2 (Algorithm 2 with public r and alpha); exponential "
        "mechanism with density exp(-eps/2 K)",
        method=Method.EXHAUSTIVE,
        verdict=verdict,
        scope="public size n_public: alpha, zeta, beta public; every add/remove neighbour, "
        "through the finite set of (count, rank) patterns a neighbour induces at an output "
        "(3 per kind); loss bound eps * max |Delta K| computed exactly in integers / Fractions",
        evidence={"n_public": cfg.n_public, "per_step": per_step, "claimed_per_step": eps,
                  "twin": tw},
        subject=ctx.subject,
    )]


def mean_step_loss(eps: Fraction, clipped: bool, R: Fraction,
                   window: tuple[Fraction, Fraction]) -> Fraction:
    """Exact loss of Algorithm 3 line 4 (Algorithm 1 on [l, u] = ``window``, the public
    outputs of the two earlier steps) over every add/remove neighbour with a record in
    [-R, R]: count |Delta n| eps/2 = eps/2, plus the sum's sup_v |x(v) - m| eps / (u - l) with
    x(v) the record clipped to [l, u] (clipping reading: sup = (u - l)/2) or the record itself
    (printed line 4, "run on D": sup = R + |m|)."""
    lo, hi = window
    m = (lo + hi) / 2
    reach = max(abs(lo - m), abs(hi - m)) if clipped else R + abs(m)
    return eps / 2 + reach * eps / (hi - lo)


CLIP_READING = ("clipping reading: Algorithm 3 line 4 runs Algorithm 1 on D clipped to "
                "[l-hat, u-hat] (the printed line says 'run on D'; unclipped, the step is "
                "not eps-DP)")


def _mean_step(ctx: _Context) -> list[Finding]:
    """The third step of the released mechanism: computed over every neighbour and every
    window the earlier steps can output, exactly."""
    cfg = ctx.cfg
    eps, R = Fraction(cfg.epsilon), Fraction(cfg.R)
    # the loss depends on the window only through u - l (clipped): check a window family
    # that spans [-R, R] at several widths, exactly; the formula is symbolic in (l, u)
    windows = [(-R, R), (-R, Fraction(0)), (-R / 8, R / 8), (R / 3, R / 2)]
    clipped = {str(w): mean_step_loss(eps, True, R, w) for w in windows}
    ok = all(v <= eps for v in clipped.values())
    wit = (Fraction(0), R / 2)
    printed = mean_step_loss(eps, False, R, wit)
    tw = falsifiability.twin(
        "the printed line 4 (Algorithm 1 run on D unclipped): the same exact loss",
        "refuted" if printed > eps else "not-refuted",
        witness={"l_hat": wit[0], "u_hat": wit[1], "added_record": R},
        margin={"loss": printed, "claimed": eps})
    return [Finding(
        id="subset.step-mean",
        claim="the mean step of Algorithm 3 (line 4: Algorithm 1 on [l-hat, u-hat]) is "
        "eps-DP on add/remove neighbours, whatever window the threshold steps released",
        reference=f"{REF}; Algorithm 3 line 4; Algorithm 1; Lemma 2",
        method=Method.EXACT,
        verdict=falsifiability.decide(ok, tw, failed=Verdict.REFUTED,
                                      vacuous_reason="the unclipped step is not rejected"),
        scope="every add/remove neighbour with a record in [-R, R], every window [l, u] in "
        "[-R, R]: loss = eps/2 (count) + eps (u - l)/2 / (u - l) (clipped sum) exactly, "
        f"evaluated in Fractions at {len(windows)} windows; " + CLIP_READING,
        evidence={"claimed_per_step": eps, "loss_at_windows": clipped, "twin": tw},
        reading=CLIP_READING,
        subject=ctx.subject,
    )]


#: the chain (module docstring)
CHAIN: Chain[_Context] = Chain(REF, (
    Link("input", "input validation", _input),
    *(_step_link(k, fid, name) for k, fid, name in _STEPS),
    Link("every-neighbour", "the threshold steps' loss bound over every neighbour (public "
         "size)", _every_neighbour),
    Link("step-mean", "the mean step's exact loss over every neighbour", _mean_step),
))

#: every step of the released mu-hat and the links that cover it (named in CERTIFIED's scope)
STEP_COVERAGE = (
    ("l-hat (Algorithm 2, rank t_l)", "subset.step-l-hat (six neighbours, exact), "
     "subset.every-neighbour (every neighbour, bound)"),
    ("u-hat (Algorithm 2, rank t_u)", "subset.step-u-hat (six neighbours, exact), "
     "subset.every-neighbour (every neighbour, bound)"),
    ("mean (Algorithm 1 on [l-hat, u-hat])", "subset.step-mean (every neighbour, exact; "
     "clipping reading)"),
)


def public_parameters(cfg: SubsetCertifyConfig) -> dict[str, Any]:
    src = cfg.source if isinstance(cfg.source, dict) else {}
    return {
        "data": (f"built-in sample {src['sample']!r}" if "sample" in src else
                 "the data holder's file (source and fingerprint in the confidential report)"),
        "R": cfg.R, "epsilon": cfg.epsilon, "gamma": cfg.gamma, "n_public": cfg.n_public,
        "relation": "add-remove-one", "claimed_total": 3 * float(cfg.epsilon),
        "claimed_per_step": float(cfg.epsilon),
        "confidential": {"source": cfg.source},
    }


def certify_alg3(cfg: SubsetCertifyConfig, progress: Any = None,
                 on_finding: Any = None) -> SubsetCertifyResult:
    """Run the chain on ``cfg`` (validated first: :class:`InputError` before any check)."""
    x = validate(cfg)
    fpr = fp.data_fingerprint(cfg.key, x) if cfg.key is not None else None
    ctx = _Context(cfg, [Fraction(float(v)) for v in x], fpr)
    findings = CHAIN.run(ctx, subject=ctx.subject, seed=None, progress=progress,
                         on_finding=on_finding, id_prefix="subset")
    scope = (f"the data holder's data (identified by a keyed fingerprint in the confidential "
             f"report), R = {cfg.R:g}, eps = {cfg.epsilon:g} per step, gamma = {cfg.gamma:g}, "
             + (f"public size {cfg.n_public}" if cfg.n_public is not None else
                "size from the data (as printed)")
             + "; neighbour relation add/remove one; total 3 eps over the steps: "
             + "; ".join(f"{step} <- {links}" for step, links in STEP_COVERAGE))
    cert = certification(findings, scope, fpr).to_dict()
    return SubsetCertifyResult(findings, cert, public_parameters(cfg), ctx.subject)


def _replay_step(inp: dict) -> tuple[bool, Any, Any, str]:
    """Reload the data (keyed fingerprint checked), rebuild the neighbour and recompute the
    step's exact loss now."""
    from audit import datasets

    src = inp["source"]
    x = (datasets.load_sample(src["sample"]) if "sample" in src else
         datasets.load_csv_column(src["file"], src.get("column")))
    xs = np.sort(np.asarray(x, dtype=np.float64))
    fp.check_reference(inp["fingerprint"], xs)
    cfg = SubsetCertifyConfig(xs, src, float(inp["R"]), float(inp["epsilon"]),
                              float(inp["gamma"]), inp.get("n_public"))
    fx = [Fraction(float(v)) for v in xs]
    c = inp["change"]
    if c["op"] == "add":
        v = ({"-R": -Fraction(cfg.R), "R": Fraction(cfg.R)}[c["value"]] if "value" in c
             else fx[int(c["rank"])])
        d2 = sorted([*fx, v])
    else:
        d2 = list(fx)
        del d2[int(c["rank"])]
    loss = _step_loss(fx, d2, inp["step"], cfg)
    eps = float(inp["epsilon"])
    return (loss["value_down"] > eps, f"step loss <= {eps:g}", loss["epsilon_up"],
            "exact loss recomputed now (rounded up)")


replayer("subset.step-l-hat")(_replay_step)
replayer("subset.step-u-hat")(_replay_step)
