"""Census of the verified findings with and without a refuted twin (issue 42) over the committed
example reports ``reports/examples/*/report.json`` (the confidential copies of the certify
examples are left out: they repeat the public findings).

Counts per example report (its command and run id) and per subject, with
:func:`audit.falsifiability.tally`: ``verified``, ``with twin``, ``without twin``, ``vacuous``.
``--rev REV`` reads the reports as committed at a git revision instead of the work tree (the
"before" of a change: ``--rev 24d67b5``); ``--list`` also names every verified finding without
a twin; ``--diff REV`` lists the findings whose verdict differs between REV and the reports
read (ids added or removed included).  Exit 0 always (a census, not a gate:
tests/engine/test_verdict_rules.py enforces the rule on the ids in
``falsifiability.TWIN_REQUIRED``).

    python tests/bench/twin_census.py [--rev REV] [--list] [--diff REV]
"""

from __future__ import annotations

import argparse
import json
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

from audit import falsifiability

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = "reports/examples"
KEYS = ("verified", "verified_with_twin", "verified_without_twin", "vacuous")


def reports(rev: str | None) -> dict[str, dict[str, Any]]:
    """Run id -> report document, from the work tree or from git revision ``rev``."""
    if rev is None:
        paths = sorted((ROOT / EXAMPLES).glob("*/report.json"))
        return {p.parent.name: json.loads(p.read_text()) for p in paths}
    listing = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "-r", "--name-only", rev,
                              EXAMPLES], check=True, capture_output=True, text=True).stdout
    out = {}
    for path in sorted(listing.split()):
        parts = path.split("/")
        if len(parts) == 4 and parts[3] == "report.json":
            text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{path}"],
                                  check=True, capture_output=True, text=True).stdout
            out[parts[2]] = json.loads(text)
    return out


def census(docs: dict[str, dict[str, Any]]) -> tuple[dict[str, dict[str, int]],
                                                      dict[str, dict[str, int]], list[str]]:
    """(per run id, per subject, ids of verified findings without a refuted twin)."""
    per_run: dict[str, dict[str, int]] = {}
    per_subject: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(KEYS, 0))
    missing = []
    for run, doc in docs.items():
        per_run[run] = falsifiability.tally(doc["findings"])
        for f in doc["findings"]:
            t = falsifiability.tally([f])
            for k in KEYS:
                per_subject[str(f.get("subject", "?"))][k] += t[k]
            if t["verified_without_twin"]:
                missing.append(f"{run}: {f['id']}")
    return per_run, dict(per_subject), missing


def verdict_changes(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]
                    ) -> list[str]:
    """``run: id before -> after`` for every finding whose verdict differs (or that exists on
    one side only: verdict ``-``)."""
    out = []
    for run in sorted(set(before) | set(after)):
        old = {f["id"]: f["verdict"] for f in before.get(run, {}).get("findings", [])}
        new = {f["id"]: f["verdict"] for f in after.get(run, {}).get("findings", [])}
        for fid in sorted(set(old) | set(new)):
            if old.get(fid) != new.get(fid):
                out.append(f"{run}: {fid} {old.get(fid, '-')} -> {new.get(fid, '-')}")
    return out


def _table(title: str, rows: dict[str, dict[str, int]]) -> list[str]:
    out = [title, f"  {'':<40} {'verified':>8} {'w/ twin':>8} {'no twin':>8} {'vacuous':>8}"]
    total = dict.fromkeys(KEYS, 0)
    for name, t in sorted(rows.items()):
        if not any(t.values()):
            continue
        out.append(f"  {name[:40]:<40} " + " ".join(f"{t[k]:>8}" for k in KEYS))
        for k in KEYS:
            total[k] += t[k]
    out.append(f"  {'total':<40} " + " ".join(f"{total[k]:>8}" for k in KEYS))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", default=None, help="git revision to read the reports from")
    ap.add_argument("--list", action="store_true", help="name every verified finding "
                    "without a refuted twin")
    ap.add_argument("--diff", default=None, metavar="REV", help="list verdict changes from "
                    "the reports committed at REV")
    a = ap.parse_args()
    docs = reports(a.rev)
    per_run, per_subject, missing = census(docs)
    where = f"git {a.rev}" if a.rev else "work tree"
    lines = _table(f"verified findings and twins per example report ({where})", per_run)
    lines += _table("per subject", per_subject)
    if a.list:
        lines += ["verified without a refuted twin:", *(f"  {m}" for m in missing)]
    if a.diff:
        lines += [f"verdict changes since {a.diff}:",
                  *(f"  {c}" for c in verdict_changes(reports(a.diff), docs))]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
