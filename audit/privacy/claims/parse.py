"""The ``--claim`` syntax: one privacy claim per string, validated.

    pure:eps=1
    approx:eps=1,delta=1e-6
    gdp:mu=1
    zcdp:rho=0.5
    rdp:alpha=2:eps=0.3,alpha=8:eps=1.1
    fdp:0:1,0.5:0.2,1:0            (points x:y of a piecewise-linear trade-off curve)

Every error is an :class:`~kernels.errors.InvalidParameterError` quoting the text given.
``--epsilon E --delta D`` are shorthands for ``approx:eps=E,delta=D`` (``pure`` when D = 0):
:func:`claim_from_epsilon`.
"""

from __future__ import annotations

import math

from audit.privacy.claims.approx import ApproxDP
from audit.privacy.claims.base import Claim
from audit.privacy.claims.fdp import ExplicitFDP
from audit.privacy.claims.gdp import GaussianDP
from audit.privacy.claims.pure import PureDP
from audit.privacy.claims.rdp import RenyiDP
from audit.privacy.claims.zcdp import ZCDP
from kernels.errors import InvalidParameterError

__all__ = ["FAMILIES", "claim_from_epsilon", "parse_claim"]

#: family -> what it takes (for messages)
FAMILIES = {
    "pure": "eps=E",
    "approx": "eps=E,delta=D",
    "gdp": "mu=M",
    "zcdp": "rho=R",
    "rdp": "alpha=A:eps=E[,alpha=A2:eps=E2...]",
    "fdp": "x:y,x:y,... (x from 0 to 1)",
}


def _num(text: str, what: str, spec: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise InvalidParameterError(f"claim {spec!r}: {what} must be a number, got "
                                    f"{text!r}") from None
    if not math.isfinite(v):
        raise InvalidParameterError(f"claim {spec!r}: {what} must be finite, got {text!r}")
    return v


def _keyvals(body: str, spec: str, want: tuple[str, ...]) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in body.split(","):
        key, sep, val = item.partition("=")
        key = key.strip()
        if not sep or key not in want:
            raise InvalidParameterError(f"claim {spec!r}: expected {', '.join(want)} as "
                                        f"key=value, got {item!r}")
        if key in out:
            raise InvalidParameterError(f"claim {spec!r}: {key} given twice")
        out[key] = _num(val.strip(), key, spec)
    missing = [k for k in want if k not in out]
    if missing:
        raise InvalidParameterError(f"claim {spec!r}: missing {', '.join(missing)}")
    return out


def _colon_pairs(body: str, spec: str, what: str) -> list[tuple[str, str]]:
    """The comma-separated items of ``body``, each split at its first colon."""
    out = []
    for item in body.split(","):
        first, sep, second = item.partition(":")
        if not sep:
            raise InvalidParameterError(f"claim {spec!r}: expected {what}, got {item!r}")
        out.append((first, second))
    return out


def parse_claim(spec: str) -> Claim:
    """The claim a ``--claim`` string names (module docstring)."""
    if not isinstance(spec, str):
        raise InvalidParameterError(f"a claim is a string like 'zcdp:rho=0.5', got {spec!r}")
    family, sep, body = spec.strip().partition(":")
    family = family.strip().lower()
    if not sep or family not in FAMILIES or not body.strip():
        raise InvalidParameterError(
            f"claim {spec!r}: expected FAMILY:PARAMS with FAMILY one of "
            + "; ".join(f"{k}:{v}" for k, v in FAMILIES.items()))
    try:
        if family == "pure":
            return PureDP(_keyvals(body, spec, ("eps",))["eps"])
        if family == "approx":
            kv = _keyvals(body, spec, ("eps", "delta"))
            return ApproxDP(kv["eps"], kv["delta"])
        if family == "gdp":
            return GaussianDP(_keyvals(body, spec, ("mu",))["mu"])
        if family == "zcdp":
            return ZCDP(_keyvals(body, spec, ("rho",))["rho"])
        if family == "rdp":
            orders = []
            for first, second in _colon_pairs(body, spec, "alpha=A:eps=E"):
                kv = _keyvals(f"{first},{second}", spec, ("alpha", "eps"))
                orders.append((kv["alpha"], kv["eps"]))
            return RenyiDP(orders)
        return ExplicitFDP([(_num(x, "x", spec), _num(y, "y", spec))
                            for x, y in _colon_pairs(body, spec, "points x:y")])
    except InvalidParameterError as exc:
        msg = str(exc)
        raise InvalidParameterError(msg if msg.startswith("claim ") else
                                    f"claim {spec!r}: {msg}") from None


def claim_from_epsilon(eps: float, delta: float = 0.0) -> Claim:
    """The claim ``--epsilon eps --delta delta`` stands for."""
    return PureDP(eps) if delta == 0 else ApproxDP(eps, delta)
