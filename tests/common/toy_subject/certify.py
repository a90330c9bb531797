"""The toy certify chain (:class:`audit.checks.chain.Chain`, two links) on one data set.

1. ``toy.input`` — every record is finite and inside [lower, upper] (exhaustive over the
   records: verified).  The records' sum, the confidential value, is kept in the finding's
   confidential part.
2. ``toy.exact-loss`` — the exact privacy loss (engine exact-loss tester, through the
   subject's own noise law) of the worst replace-one shift U - L at the mechanism's scale:
   refuted, with a replayable counterexample, when it exceeds eps.  The public figure is
   computed at locations 0 and U - L (the loss of a location shift does not depend on the
   location), so it is a function of the public parameters only; the same loss at the
   data's own location (which reveals the sum) is confidential.

Replace-one neighbours; nothing here prints or writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audit import fingerprint as fp
from audit.checks.chain import Certification, Chain, Link, certification
from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.privacy.exact_loss import pair_loss
from audit.registry import replayer
from kernels.errors import InputError

from .mechanisms import ToySum

__all__ = ["CHAIN", "ToyConfig", "certify_sum", "validate"]

REF = "A. Toy (test subject), Theorem 1"
PUBLIC_SUBJECT = "data:confidential"


@dataclass(frozen=True)
class ToyConfig:
    data: np.ndarray
    source: dict[str, Any]
    lower: float
    upper: float
    epsilon: float
    laplace_scale: bool = False  # the broken twin
    key: bytes | None = field(default=None, repr=False)
    key_ref: dict[str, str] | None = None


@dataclass
class _Context:
    cfg: ToyConfig
    x: np.ndarray
    fingerprint: str | None


def validate(cfg: ToyConfig) -> np.ndarray:
    """The records as float64; :class:`InputError` names the flag, never a record."""
    if not (np.isfinite(cfg.epsilon) and cfg.epsilon > 0):
        raise InputError(f"--epsilon must be a finite number > 0, got {cfg.epsilon!r}")
    if not (np.isfinite(cfg.lower) and np.isfinite(cfg.upper) and cfg.upper > cfg.lower):
        raise InputError(f"--upper must be > --lower, got {cfg.lower!r} and {cfg.upper!r}")
    x = np.asarray(cfg.data, dtype=np.float64).reshape(-1)
    if x.size == 0:
        raise InputError("the data column is empty")
    return x


def _input(ctx: _Context) -> list[Finding]:
    x, cfg = ctx.x, ctx.cfg
    ok = bool(np.all(np.isfinite(x)) and np.all((x >= cfg.lower) & (x <= cfg.upper)))
    return [Finding(
        id="toy.input", claim="every record is finite and inside [lower, upper]",
        reference=REF, method=Method.EXHAUSTIVE,
        verdict=Verdict.VERIFIED if ok else Verdict.REFUTED,
        scope="every record checked", evidence={"lower": cfg.lower, "upper": cfg.upper},
        confidential={"n": int(x.size), "sum": float(np.sum(x)),
                      "data_fingerprint": ctx.fingerprint},
        subject=PUBLIC_SUBJECT)]


def _exact_loss(ctx: _Context) -> list[Finding]:
    cfg = ctx.cfg
    mech = ToySum(cfg.lower, cfg.upper, cfg.epsilon, cfg.laplace_scale)
    d, b = cfg.upper - cfg.lower, mech.scale
    public = pair_loss(mech, 0.0, b, d, b)
    a, _ = mech.location_scale(ctx.x)
    at_data = pair_loss(mech, a, b, a + d, b)
    refuted = public.value_down > cfg.epsilon
    inputs = {"lower": cfg.lower, "upper": cfg.upper, "epsilon": cfg.epsilon,
              "laplace_scale": cfg.laplace_scale}
    cx = counterexample_document(
        "toy.exact-loss", PUBLIC_SUBJECT, inputs, {"max_loss": cfg.epsilon},
        {"loss_down": public.value_down}, None,
        "the worst replace-one shift loses more than eps") if refuted else None
    return [Finding(
        id="toy.exact-loss", claim="the noisy sum is eps-DP under replace-one",
        reference=REF, method=Method.EXACT_LOSS,
        verdict=Verdict.REFUTED if refuted else Verdict.NOT_REFUTED,
        scope="the worst replace-one shift U - L; exact loss at 30 and 60 digits",
        evidence={"claimed_epsilon": cfg.epsilon, "sup_loss": public.epsilon_up,
                  "analytic_check": public.analytic_check, "noise_law": public.family,
                  "certified": public.certified},
        confidential={"loss_at_data": at_data.as_dict()},
        counterexample=cx, subject=PUBLIC_SUBJECT)]


#: the chain (module docstring)
CHAIN: Chain[_Context] = Chain(REF, (
    Link("input", "records inside [lower, upper]", _input),
    Link("exact-loss", "exact loss of the worst shift", _exact_loss),
))


def certify_sum(cfg: ToyConfig, progress: Any = None, on_finding: Any = None
                ) -> tuple[list[Finding], Certification]:
    """Run the chain on ``cfg`` (validated first)."""
    x = validate(cfg)
    fpr = fp.data_fingerprint(cfg.key, x) if cfg.key is not None else None
    findings = CHAIN.run(_Context(cfg, x, fpr), subject=PUBLIC_SUBJECT, seed=None,
                         progress=progress, on_finding=on_finding, id_prefix="toy")
    scope = (f"the data holder's data, records in [{cfg.lower:g}, {cfg.upper:g}], "
             f"eps = {cfg.epsilon:g}, replace-one")
    return findings, certification(findings, scope, fpr)


@replayer("toy.exact-loss")
def replay_exact_loss(inputs: dict) -> tuple[bool, Any, Any, str]:
    """Recompute the public loss from the counterexample's public parameters."""
    eps = float(inputs["epsilon"])
    mech = ToySum(float(inputs["lower"]), float(inputs["upper"]), eps,
                  bool(inputs["laplace_scale"]))
    r = pair_loss(mech, 0.0, mech.scale, mech.upper - mech.lower, mech.scale)
    return r.value_down > eps, f"loss <= {eps:g}", r.epsilon_up, "exact loss recomputed now"
