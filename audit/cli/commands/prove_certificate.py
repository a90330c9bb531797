"""The proof certificate on disk: ``dpaudit prove MODULE:OBJECT`` writes
``<report>/certificate.json`` for a PROVED result, and ``dpaudit replay
<report>/certificate.json`` re-checks it (:func:`audit.prove.certificate.recheck`: the
queries rebuilt from the program and the alignment, cvc5, a fresh Z3, concrete runs) and
prints what agreed.  Exit 0 (PASS) only when every step agrees; a disagreement is exit 1
(FAIL), never a pass; without cvc5 installed the result is INCONCLUSIVE (exit 3).
Command-side module: it prints and writes.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from audit.cli.outcomes import outcome
from kernels.errors import InputError

__all__ = ["CERTIFICATE_FILE", "replay_certificate", "write_certificate"]

CERTIFICATE_FILE = "certificate.json"


def write_certificate(out_dir: Path, cert: dict[str, Any]) -> Path:
    """Write the certificate beside the report (atomically: a temporary file renamed)."""
    path = Path(out_dir) / CERTIFICATE_FILE
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(cert, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def replay_certificate(file: str, doc: dict[str, Any]) -> int:
    """Re-check a certificate document and print the outcome; the exit code."""
    from audit.privacy.import_root import ensure_cwd_on_path
    from audit.prove.certificate import CertificateError, recheck

    ensure_cwd_on_path()  # the user's module, as `dpaudit prove` found it
    try:
        res = recheck(doc)
    except (CertificateError, KeyError, TypeError, ValueError, ModuleNotFoundError,
            AttributeError) as exc:
        raise InputError(f"{file}: not a usable proof certificate ({exc})") from None
    w = sys.stdout.write
    w(f"replay proof certificate of {doc.get('program')} ({doc.get('scope')})\n")
    rebuilt = not any("stored queries" in p or "rebuilt" in p for p in res.problems)
    w("  alignment + queries rebuilt from the program with a fresh Z3: "
      f"{'identical' if rebuilt else 'DIFFERENT'}\n")
    w(f"  cvc5: {res.cvc5_unsat}/{res.queries} queries UNSAT; fresh Z3: "
      f"{res.z3_unsat}/{res.queries} UNSAT\n")
    w(f"  concrete runs of the program with the aligned noise: {res.concrete_points} "
      "points agree\n" if res.concrete_points else "")
    for note in res.notes:
        w(f"  note: {note}\n")
    for p in res.problems:
        w(f"  REJECTED: {p}\n")
    if res.missing and not res.problems:
        w(f"  NOT CONFIRMED: {res.missing}\n")
    o = outcome("pass" if res.ok else "fail" if res.problems else "inconclusive")
    w(f"  => {o.word}\n")
    return o.code
