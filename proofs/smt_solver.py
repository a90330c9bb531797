"""One Z3 query, reproducibly, for the paper claims: a re-export of :mod:`audit.smt_query`.

The implementation (SMT-LIB text re-parsed into a fresh context per query, fixed seed, a
resource limit in Z3 work units) lives in ``audit`` so that the user prover
(:mod:`audit.prove`) uses the same one without ``audit`` importing ``proofs``.
"""

from __future__ import annotations

from audit.smt_query import SEED, check

__all__ = ["SEED", "check"]
