"""The prover's self-audit on the whole generated family: ``dpaudit prove`` (defaults,
n <= 4) on every program of :mod:`audit.prove.selfaudit.families` against the independent
truth oracle of :mod:`audit.prove.selfaudit.truth` (n <= 6).

    PYTHONPATH=. python tests/bench/prove_families.py [--sample SEED K] [--part K/M] [--out PATH]

Writes ``reports/bench/prove-families.txt``: the verdict x truth table, the unsound
verdicts (PROVED for a program not eps-DP within the proof's scope, REFUTED for one eps-DP
at the witness's n), refutation witnesses above the oracle's bound for their pair, oracle
self-conflicts, and one row per program.  CPU seconds are for the record only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from audit.prove.selfaudit import families, table  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", nargs=2, type=int, metavar=("SEED", "K"))
    ap.add_argument("--part", help="K/M: only the programs with index = K mod M")
    ap.add_argument("--out", default=str(ROOT / "reports" / "bench" / "prove-families.txt"))
    a = ap.parse_args()
    progs = table.sample(*a.sample) if a.sample else None
    progs = table.by_cost(progs or list(families.generate()))
    if a.part:
        k, m = (int(v) for v in a.part.split("/"))
        progs = [g for i, g in enumerate(progs) if i % m == k]
    done: list[table.Row] = []

    def progress(r: table.Row) -> None:
        done.append(r)
        print(f"{r.name:52s} {r.verdict:18s} {r.truth:13s} {r.cpu:6.2f}s"
              + (f"  UNSOUND: {r.unsound}" if r.unsound else ""), file=sys.stderr, flush=True)
        head = "" if len(done) == len(progs) else (
            f"PARTIAL: {len(done)} of {len(progs)} programs done (the run was still going)\n")
        Path(a.out).write_text(head + table.render(done), encoding="utf-8")

    rows = table.run(progs, on_row=progress)
    text = table.render(rows)
    print(text.split("\n\nprogram")[0])


if __name__ == "__main__":
    main()
