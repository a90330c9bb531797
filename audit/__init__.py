"""dpaudit: a verification-focused audit toolkit for differentially private statistics.

The public Python API for auditing **your own mechanism** (the same run as ``dpaudit test
MODULE:OBJECT``)::

    import numpy as np
    from audit import audit_mechanism

    def noisy_sum(data, size, rng):          # vectorised: size outputs per call
        return float(np.sum(data)) + rng.laplace(0.0, 1.0, size)

    result = audit_mechanism(noisy_sum, epsilon=1.0, relation="add-remove",
                             lower=0.0, upper=1.0, float_bits=False, seed=0)
    print(result.outcome)                    # "not-flagged" (not refuted: never "verified")
    for f in result.findings:
        print(f.id, f.verdict.value, f.evidence.get("epsilon_lower"))

A mechanism may be a vectorised callable ``f(data, size, rng)``, a per-call callable
``f(data)`` or ``f(data, rng)`` (dpaudit batches it), or a class/object with a ``sample``
method; ``rng`` may be a numpy Generator, an int seed (``seed`` parameter), or absent (the run
is then marked not reproducible).  See :mod:`audit.privacy.user_mechanism` (adapters),
:mod:`audit.privacy.user_audit` (pairs, testers, findings),
:mod:`audit.privacy.blackbox.sequential` (sequential stopping and its guarantee),
:mod:`audit.privacy.blackbox` (the tester).

Names (imported lazily, so ``import audit`` stays cheap):

* :func:`audit_mechanism` -> :class:`UserAudit` (``findings``, ``outcome`` in
  ``"flagged" | "not-flagged" | "inconclusive"``, ``exit_code`` 1 / 0 / 3);
  ``test_mechanism`` is the same function under its earlier name;
* :func:`wrap_mechanism` -> :class:`UserMechanism` (the adapter, a
  :class:`~audit.protocols.Mechanism`);
* :func:`generated_pairs`, :func:`pairs_from_data`, :func:`pairs_from_list` (neighbours);
* :class:`BlackBoxTester`, :class:`NeighbourPair`, :class:`Finding`, :class:`Verdict`;
* :func:`write_report` / :func:`build_report` (``audit.report``) to write report.json/md/html.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "BlackBoxTester",
    "Finding",
    "NeighbourPair",
    "UserAudit",
    "UserMechanism",
    "Verdict",
    "audit_mechanism",
    "build_report",
    "generated_pairs",
    "pairs_from_data",
    "pairs_from_list",
    "test_mechanism",
    "wrap_mechanism",
    "write_report",
]

#: name -> "module" (the same name there) or "module:name"
_WHERE = {
    "BlackBoxTester": "audit.privacy.blackbox",
    "Finding": "audit.findings",
    "Verdict": "audit.findings",
    "NeighbourPair": "audit.protocols",
    "UserAudit": "audit.privacy.user_audit",
    "generated_pairs": "audit.privacy.user_audit",
    "pairs_from_data": "audit.privacy.user_audit",
    "pairs_from_list": "audit.privacy.user_audit",
    "audit_mechanism": "audit.privacy.user_audit:test_mechanism",
    "test_mechanism": "audit.privacy.user_audit",
    "UserMechanism": "audit.privacy.user_mechanism",
    "wrap_mechanism": "audit.privacy.user_mechanism",
    "build_report": "audit.report",
    "write_report": "audit.report",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        module, _, attr = _WHERE[name].partition(":")
        return getattr(importlib.import_module(module), attr or name)
    raise AttributeError(f"module 'audit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
