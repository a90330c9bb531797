"""Regenerate the committed inventory manifests of every subject's coverage table from the
paper texts (run as a script, not collected by pytest):

    PYTHONPATH=. python tests/common/coverage_manifests.py   # write proofs/*/coverage_manifest.json
    PYTHONPATH=. python tests/common/coverage_manifests.py --check  # exit 1 if one differs
    PYTHONPATH=. python tests/common/coverage_manifests.py --table  # the coverage table

The papers live outside the repository (``$DPAUDIT_PAPERS`` or ``../shared/papers``); a
subject whose paper is absent is reported and left alone.  After regenerating, every new key
must be accounted for in the subject's ``coverage.RULES`` (``tests/*/test_coverage.py``).
"""

from __future__ import annotations

import importlib
import json
import sys

from audit.paper_inventory import (
    NOT_A_CLAIM,
    NOT_CHECKED,
    SECTION,
    SPECIFIC,
    coverage_counts,
    inventory,
    load_manifest,
    manifest,
    manifest_diff,
    paper_path,
)

SUBJECTS = ("proofs.gini.coverage", "proofs.freegap.coverage",
            "proofs.subset_optimal.coverage", "proofs.global_sensitivity.coverage")


def table() -> int:
    """The coverage table of every subject from its committed manifest and rules; the
    headline is the share of claim-bearing items mapped specifically."""
    print("| paper | items | not a claim | specific | section only | not checked | "
          "specific share |")
    print("|---|---|---|---|---|---|---|")
    for name in SUBJECTS:
        cov = importlib.import_module(name)
        c = coverage_counts(load_manifest(cov.MANIFEST)["items"], cov.RULES)
        print(f"| {cov.PAPER_FILE} | {c['total']} | {c[NOT_A_CLAIM]} | {c[SPECIFIC]} | "
              f"{c[SECTION]} | {c[NOT_CHECKED]} | {c[SPECIFIC] / c['claims']:.0%} |")
    return 0


def main(argv: list[str]) -> int:
    if "--table" in argv:
        return table()
    check = "--check" in argv
    status = 0
    for name in SUBJECTS:
        cov = importlib.import_module(name)
        path = paper_path(cov.PAPER_FILE)
        if path is None:
            print(f"{name}: paper {cov.PAPER_FILE} not found; skipped")
            continue
        fresh = manifest(cov.PAPER_FILE, inventory(path.read_text(encoding="utf-8")))
        if check:
            committed = load_manifest(cov.MANIFEST)
            gone, new = manifest_diff(committed, fresh)
            stale = committed["items"] != fresh["items"]
            print(f"{name}: {fresh['count']} items; {len(gone)} gone, {len(new)} new"
                  + ("; kinds / patterns / anchors differ" if stale else ""))
            status |= stale
        else:
            cov.MANIFEST.write_text(json.dumps(fresh, indent=1) + "\n", encoding="utf-8")
            print(f"{name}: {fresh['count']} items -> {cov.MANIFEST}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
