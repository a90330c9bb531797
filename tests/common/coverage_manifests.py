"""Regenerate the committed inventory manifests of every subject's coverage table from the
paper texts (run as a script, not collected by pytest):

    PYTHONPATH=. python tests/common/coverage_manifests.py   # write proofs/*/coverage_manifest.json
    PYTHONPATH=. python tests/common/coverage_manifests.py --check  # exit 1 if one differs

The papers live outside the repository (``$DPAUDIT_PAPERS`` or ``../shared/papers``); a
subject whose paper is absent is reported and left alone.  After regenerating, every new key
must be accounted for in the subject's ``coverage.RULES`` (``tests/*/test_coverage.py``).
"""

from __future__ import annotations

import importlib
import json
import sys

from audit.paper_inventory import inventory, load_manifest, manifest, manifest_diff, paper_path

SUBJECTS = ("proofs.gini.coverage", "proofs.freegap.coverage",
            "proofs.subset_optimal.coverage", "proofs.global_sensitivity.coverage")


def main(argv: list[str]) -> int:
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
            gone, new = manifest_diff(load_manifest(cov.MANIFEST), fresh)
            print(f"{name}: {fresh['count']} items; {len(gone)} gone, {len(new)} new")
            status |= bool(gone or new)
        else:
            cov.MANIFEST.write_text(json.dumps(fresh, indent=1) + "\n", encoding="utf-8")
            print(f"{name}: {fresh['count']} items -> {cov.MANIFEST}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
