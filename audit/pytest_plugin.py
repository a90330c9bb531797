"""A pytest plugin (entry point ``pytest11``: loaded by every pytest run where dpaudit is
installed) so that a DP library's own test suite audits its mechanisms in CI.

In a test::

    def test_sum_is_private(dp_audit):
        dp_audit(my_noisy_sum, claim=1.0, relation="add-remove", domain=(0.0, 1.0))

    @pytest.mark.dp_audit(claim=1.0, domain=(0.0, 1.0))     # defaults for the fixture
    def test_mean(dp_audit):
        dp_audit(my_noisy_mean)

``dp_audit(mechanism, *, claim, relation, domain, data, delta, seed, budget, fail_on)``
runs :func:`audit.audit_mechanism` (the black-box tester, real-number and float64-bit
events, and the exact sensitivity check when the mechanism exposes ``query`` /
``sensitivity``) and returns its :class:`~audit.privacy.user_audit.UserAudit`; on a flag
the test fails with a message naming the finding, its bound, the stated false-alarm rate
and the commands that replay it: ``dpaudit replay FILE`` (the counterexample, written
under pytest's temporary folder) and the ``dpaudit test`` line of the whole run.

* ``claim``: the claimed epsilon (default: the mechanism's own ``epsilon`` attribute, as
  the adapters in :mod:`audit.extra` set it); ``relation``: default the mechanism's own,
  else replace-one; ``domain``: ``(lower, upper)`` or ``{"lower", "upper", "size"}``
  (default: the mechanism's ``lower`` / ``upper`` / ``size``).
* **Seeded**: ``seed`` (default 0); a mechanism that takes a seed or a generator is then
  reproducible; one drawing from its library's own CSPRNG is not (the message says so).
* **Budgets** (work units, never seconds): ``budget="ci"`` (default: 20,000 outputs per
  data set for selection, at most 40,000 for certification, 6 pairs) or ``"thorough"``
  (the CLI's defaults), or a dict of :func:`audit.audit_mechanism` keywords.
* **False alarms**: the run's confidence is ``0.999`` unless ``confidence=`` says
  otherwise, so a mechanism that keeps its claim fails the test with probability at most
  ``1 - confidence`` = 0.1 % per call (both verdict kinds together; the exact check has
  none); the failure message states it.
* ``fail_on``: the outcomes that fail the test: ``("flagged", "flagged-float")`` by
  default (a float64-only flag fails too; its message says "float64 only");
  ``("flagged",)`` tolerates float64-only flags.  An INCONCLUSIVE run passes with a
  warning (never silently: ``pytest.warns`` can catch :class:`DPAuditInconclusive`).

This module is test tooling: it raises pytest's failure and writes the counterexample into
pytest's temporary folder; the audit itself is :mod:`audit.privacy.user_audit`.
"""

from __future__ import annotations

import json
import shlex
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

__all__ = ["BUDGETS", "DPAuditInconclusive", "dp_audit", "pytest_configure", "run_dp_audit"]

#: work budgets (keywords of :func:`audit.audit_mechanism`): CI-fast and the CLI's own
BUDGETS: dict[str, dict[str, Any]] = {
    "ci": {"n_select": 20_000, "n_certify": 40_000, "first_batch": 5_000, "max_pairs": 6},
    "thorough": {},
}
#: default confidence of a dp_audit run: a correct mechanism fails a test w.p. <= 0.1 %
CI_CONFIDENCE = 0.999
FAIL_ON = ("flagged", "flagged-float")


class DPAuditInconclusive(UserWarning):
    """A dp_audit run decided nothing (time or work budget, unmeasurable outputs)."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "dp_audit(**kw): defaults for the dp_audit fixture (claim, relation, "
        "domain, budget, seed, ...): dpaudit's differential-privacy audit")


def _domain(domain: Any) -> dict[str, Any]:
    if domain is None:
        return {}
    if isinstance(domain, Mapping):
        unknown = set(domain) - {"lower", "upper", "size"}
        if unknown:
            raise ValueError(f"dp_audit domain= keys are lower, upper, size; got {sorted(unknown)}")
        return dict(domain)
    lower, upper = domain
    return {"lower": lower, "upper": upper}


def _kind(audit: Any) -> str | None:
    if audit.outcome != "flagged":
        return None
    refuted = {f.id for f in audit.findings if f.verdict.value == "refuted"}
    return "flagged-float" if refuted == {"user.float-bits"} else "flagged"


def _cli_line(ref: str | None, kw: Mapping[str, Any], audit: Any) -> str:
    if not ref:
        return ("(the mechanism is not importable as MODULE:OBJECT: define it at module "
                "level to get a dpaudit test command)")
    p = audit.parameters
    args = ["dpaudit", "test", ref, "--epsilon", f"{p['epsilon']!r}", "--relation",
            str(p["relation"]), "--seed", str(p["seed"]), "--confidence",
            f"{p['confidence']!r}"]
    for flag, key in (("--lower", "lower"), ("--upper", "upper"), ("--size", "size"),
                      ("--n-select", "n_select"), ("--max-samples", "n_certify"),
                      ("--first-batch", "first_batch"), ("--max-pairs", "max_pairs")):
        if kw.get(key) is not None:
            args += [flag, str(kw[key])]
    if p.get("delta"):
        args += ["--delta", f"{p['delta']!r}"]
    return shlex.join(args)


def run_dp_audit(mechanism: Any, *, claim: float | None = None, relation: Any = None,
                 domain: Any = None, data: Any = None, pairs: Any = None,
                 delta: float = 0.0, seed: int = 0, budget: str | Mapping[str, Any] = "ci",
                 confidence: float = CI_CONFIDENCE, fail_on: tuple[str, ...] = FAIL_ON,
                 out_dir: Path | None = None, ref: str | None = None) -> Any:
    """The fixture's work (module docstring): run the audit, fail the current test on a
    flag in ``fail_on`` (``pytest.fail`` with the replay commands), warn on INCONCLUSIVE,
    return the :class:`~audit.privacy.user_audit.UserAudit`."""
    from audit.privacy.user_audit import test_mechanism

    bud = dict(BUDGETS[budget]) if isinstance(budget, str) else dict(budget)
    kw: dict[str, Any] = {**bud, **_domain(domain), "relation": relation, "seed": seed,
                          "confidence": confidence, "delta": delta}
    if claim is not None:
        kw["epsilon"] = claim
    if data is not None:
        kw["data"] = data
    if pairs is not None:
        kw["pairs"] = pairs
    audit = test_mechanism(mechanism, ref=ref, **kw)
    kind = _kind(audit)
    if audit.outcome == "inconclusive":
        reasons = "; ".join(str(f.evidence.get("reason") or f.scope)[:200]
                            for f in audit.findings if f.verdict.value == "inconclusive")
        warnings.warn(DPAuditInconclusive(f"dp_audit decided nothing: {reasons}"),
                      stacklevel=3)
    if kind is None or kind not in fail_on:
        return audit
    lines = [f"dp_audit: FLAGGED{' (float64 only)' if kind == 'flagged-float' else ''}: "
             f"{audit.parameters['mechanism']} claimed epsilon "
             f"{audit.parameters['epsilon']:g} under {audit.parameters['relation']}"]
    for f in audit.findings:
        if f.verdict.value != "refuted":
            continue
        ev = f.evidence
        what = (f"epsilon_lower {ev['epsilon_lower']:.4g} at confidence "
                f"{ev.get('confidence', confidence):g}" if "epsilon_lower" in ev else
                f"distance {ev['worst']['distance']!r} > claimed {ev['worst']['claimed']!r}"
                if ev.get("worst") else str(ev.get("message", ""))[:120])
        lines.append(f"  {f.id}: {what}")
        if f.counterexample is not None and out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            path = out_dir / f"{f.id}.json"
            path.write_text(json.dumps(f.counterexample, indent=1, default=str),
                            encoding="utf-8")
            lines.append(f"    replay: dpaudit replay {path}")
    shown = str(audit.parameters["mechanism"])  # MODULE:OBJECT when importable
    lines.append(f"  rerun: {_cli_line(ref or (shown if ':' in shown else None), kw, audit)}")
    lines.append(f"  false-alarm rate: a mechanism that keeps its claim is flagged with "
                 f"probability <= {1 - confidence:.3g} (confidence {confidence:g}, both "
                 "verdict kinds together; the exact sensitivity check has none)")
    if not audit.parameters.get("reproducible", True):
        lines.append("  note: the mechanism's randomness is not seeded by dpaudit: a rerun "
                     "draws fresh outputs")
    pytest.fail("\n".join(lines), pytrace=False)
    return audit  # pragma: no cover - pytest.fail raises


@pytest.fixture
def dp_audit(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., Any]:
    """``dp_audit(mechanism, **kw)``: audit ``mechanism`` and fail this test on a flag
    (module docstring); a ``@pytest.mark.dp_audit(**kw)`` marker gives defaults."""
    marker = request.node.get_closest_marker("dp_audit")
    defaults = dict(marker.kwargs) if marker is not None else {}

    def run(mechanism: Any, **kw: Any) -> Any:
        return run_dp_audit(mechanism, **{**defaults, **kw}, out_dir=tmp_path / "dpaudit")

    return run
