"""What the public report of ``dpaudit test --data`` (a user's mechanism audited on a data
holder's confidential data) may say about the work done: its data-independent budget, never
the work itself.

The neighbouring pairs are built from the data, so their number, the records / rows counted
in their source, the outputs a sequential tester drew before it stopped, the time it took and
the draws per second are all functions of the data (on a 0/1 column the pair count says
whether any record is 1; under add/remove the record count is n itself, which is private).
:func:`withhold_data_dependent` moves them into the report's ``confidential`` parts and
leaves in the public report what the command line fixes: the relation, the per-data-set
sample budgets, the pair cap, the time limit, the confidence (issue 37; the neighbour test
is ``tests/engine/report/test_test_data_neighbours.py``).

Nothing here prints or writes files.
"""

from __future__ import annotations

from typing import Any

from audit.findings import Finding, Verdict

__all__ = ["DATA_DEPENDENT_PARAMETERS", "public_budget", "public_scope",
           "withhold_data_dependent"]

#: parameters of a user audit computed from the pairs (hence from the data)
DATA_DEPENDENT_PARAMETERS = ("pairs", "pairs_source", "pairs_rejected")

#: findings whose scope is a function of the public bounds alone (the exact sensitivity
#: check runs on data sets the neighbour search builds in [L, U], never on the data)
_BOUNDS_ONLY = ("user.sensitivity",)

_TAIL = {
    Verdict.NOT_REFUTED: "NOT REFUTED (a sampled test that found nothing is not a proof)",
    Verdict.REFUTED: "FLAGGED at the stated confidence",
    Verdict.INCONCLUSIVE: "undecided (why: in the confidential report)",
    Verdict.VERIFIED: "verified on the pairs tested only (they are in the confidential "
    "report), not for every data set",
    Verdict.ERROR: "error (in the confidential report)",
}


def public_budget(params: dict[str, Any]) -> str:
    """The data-independent budget of a user audit, in words, from its public parameters:
    what was allowed, never what was used."""
    pairs = ("the row neighbours of the data holder's table" if params.get("table")
             else f"at most {params['max_pairs']} neighbours of the data holder's data set"
             if params.get("max_pairs") is not None
             else "neighbours of the data holder's data set")
    text = (f"{pairs} under {params.get('relation')} (their number, records and outputs "
            f"drawn are in the confidential report); at most {params.get('n_select')} "
            f"selection and {params.get('n_certify')} certification outputs per data set")
    if params.get("sequential"):
        text += f", sequential from {params.get('first_batch')}"
    if params.get("max_seconds") is not None:
        text += f"; time limit --max-seconds {float(params['max_seconds']):g}"
    return text + f"; confidence {params.get('confidence')}"


def public_scope(f: Finding, params: dict[str, Any]) -> str:
    """The public scope of a finding of a run on confidential data: the method, the budget
    and what the verdict means (the finding's own scope goes to its confidential part)."""
    tail = _TAIL.get(f.verdict, f.verdict.value)
    if f.id.startswith("user.crash"):
        return ("a data set among the neighbours of the data holder's data set (which one, "
                f"and where it failed: confidential report); {tail}")
    if f.id == "user.exact-loss":
        return (f"exact privacy loss of the declared density on {public_budget(params)}; "
                f"{tail}")
    kind = {"user.blackbox": "real-number", "user.float-bits": "float64 bit-level"}.get(f.id)
    what = f"black-box select-then-certify, {kind} events" if kind else "black-box run"
    return f"{what}; {public_budget(params)}; {tail}"


def withhold_data_dependent(params: dict[str, Any], findings: list[Finding]) -> dict[str, Any]:
    """The parameters of a run on confidential data with the data-dependent ones
    (:data:`DATA_DEPENDENT_PARAMETERS`) moved into ``params["confidential"]``; each finding's
    scope moved into its ``confidential`` part and replaced by :func:`public_scope` (except
    the bounds-only sensitivity check's).  The findings are changed in place; the returned
    dict is new."""
    out = {k: v for k, v in params.items() if k not in DATA_DEPENDENT_PARAMETERS}
    secret = dict(params.get("confidential") or {})
    secret.update({k: params[k] for k in DATA_DEPENDENT_PARAMETERS if k in params})
    out["confidential"] = secret
    for f in findings:
        if f.id in _BOUNDS_ONLY:
            continue
        f.confidential = {**f.confidential, "scope": f.scope}
        f.scope = public_scope(f, out)
    return out
