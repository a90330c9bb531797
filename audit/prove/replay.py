"""The replayer of a ``dpaudit prove MODULE:OBJECT`` refutation: ``dpaudit replay FILE``
re-imports the program, recomputes both exact event probabilities of the witness
(:func:`audit.prove.refute.replay_witness`) and says whether the log-ratio still exceeds the
claimed epsilon.  Importing this module registers the replayer.  Nothing here prints or
writes files.
"""

from __future__ import annotations

from typing import Any

from audit.prove.verdict import FINDING_ID
from audit.registry import replayer

__all__ = ["replay_refutation"]


@replayer(FINDING_ID)
def replay_refutation(inputs: dict[str, Any]) -> tuple[bool, Any, Any, str]:
    from audit.prove.refute import replay_witness

    doc = inputs["witness"]
    w = replay_witness(doc)
    return (w.refutes, f"log-ratio <= {doc['epsilon']}",
            f"log-ratio >= {w.eps_lower} (stored: >= {doc['epsilon_witness_lower']})",
            f"exact probabilities of {w.event.describe()} on q={doc['q']}, "
            f"q'={doc['q_prime']} recomputed")
