"""The self-audit's comparison: ``dpaudit prove``'s verdict on each generated program against
the truth oracle, as rows, a verdict x truth table and the list of unsound verdicts.

Unsound (the only thing the prover must never do):

* **verified** while the oracle has a certified witness at some n the verdict's scope
  covers (every n it ran, or every n when the all-n step proved it; an all-n proof is also
  searched at n = N_MAX + 1 .. :data:`BEYOND_N`);
* **refuted** while the oracle proves the program private at the witness's n (a bound from
  the literature, or the exact loss of a sums program).

Also checked, for the finite-output families (SVT, Noisy-Max index): the refutation's
``epsilon_witness_lower`` must not exceed the oracle's certified upper bound on the loss of
the witness pair (every event of a pair has a ratio at most the largest single-output
ratio); a larger value is listed as a witness mismatch.  The prover runs with its defaults
(n <= 4, refutation on) under a work-unit scope; the CPU seconds are recorded, never used.
Nothing here prints or writes files.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from audit.prove.proof import prove_mechanism
from audit.prove.selfaudit.families import Generated, generate
from audit.prove.selfaudit.truth import (
    EPS,
    N_MAX,
    Truth,
    pair_loss,
    pair_witness,
    status_at,
    truth,
)
from audit.prove.verdict import ProofVerdict

__all__ = ["BEYOND_N", "Row", "audit_program", "by_cost", "render", "run", "sample"]

#: an all-n proof is also searched for witnesses up to this n
BEYOND_N = 10
VERDICTS = ("verified (all n)", "verified (n <= N)", "vacuous", "refuted", "inconclusive",
            "error")
TRUTHS = ("private", "not private", "undetermined")


@dataclass
class Row:
    """One program's verdict, truth and comparison."""

    name: str
    verdict: str
    truth: str
    first_violation: int | None
    scope: str
    witness_n: int | None = None
    witness_eps: str = ""
    unsound: str = ""
    mismatch: str = ""
    conflicts: list[str] = field(default_factory=list)
    cpu: float = 0.0
    detail: str = ""


def _fractions(xs: Iterable[str]) -> tuple[Fraction, ...]:
    return tuple(Fraction(x) for x in xs)


def audit_program(g: Generated, n_max: int = 4,
                  prover: Callable[..., ProofVerdict] = prove_mechanism) -> Row:
    """Prove ``g`` with ``prover`` (``dpaudit prove``'s), compute its truth, compare (module
    docstring)."""
    tr: Truth = truth(g.spec)
    c0 = time.process_time()
    try:
        v = prover(g.program, n_max=n_max)
    except Exception as exc:  # noqa: BLE001 - a crash is a row of the table, not the end
        return Row(g.spec.name, "error", _truth_label(tr), tr.first_violation(), "-",
                   conflicts=tr.conflicts, cpu=time.process_time() - c0,
                   detail=f"{type(exc).__name__}: {exc}"[:300])
    cpu = time.process_time() - c0
    row = Row(g.spec.name, "", _truth_label(tr), tr.first_violation(), "",
              conflicts=list(tr.conflicts), cpu=cpu)
    if v.status == "verified":
        row.verdict = "verified (all n)" if v.all_n else "verified (n <= N)"
        row.scope = "all n" if v.all_n else "n in {" + ", ".join(map(str, v.sizes)) + "}"
        bad = [n for n in sorted(tr.status) if tr.status[n] == "not-private"
               and (v.all_n or n in v.sizes)]
        if not bad and v.all_n:
            for n in range(N_MAX + 1, BEYOND_N + 1):
                st, _, _, w, _ = status_at(g.spec, n)
                if st == "not-private":
                    bad = [n]
                    row.detail = w.text() if w is not None else "exact loss above eps"
                    break
        if bad:
            n = bad[0]
            w = tr.witness.get(n)
            row.unsound = (f"PROVED ({row.scope}) but not eps-DP at n = {n}"
                           + (f": {w.text()}" if w is not None else f" ({row.detail})"))
        return row
    if v.status == "refuted":
        row.verdict = "refuted"
        wit = v.witness or {}
        q = _fractions(wit.get("q", []))
        qp = _fractions(wit.get("q_prime", []))
        row.witness_n = len(q)
        row.witness_eps = str(wit.get("epsilon_witness_lower", ""))
        row.scope = f"witness at n = {len(q)}"
        n = len(q)
        st = tr.status.get(n) or status_at(g.spec, n)[0]
        if st == "undetermined" and g.spec.family in ("svt", "noisy_max"):
            shift = Fraction(wit.get("params", {}).get("T", "0"))
            pw = pair_witness(g.spec, tuple(x - shift for x in q),
                              tuple(x - shift for x in qp))
            if pw is not None and n in tr.status:  # the oracle confirms the pair itself
                tr.status[n], tr.witness[n] = "not-private", pw
                row.truth = _truth_label(tr)
                row.first_violation = tr.first_violation()
                row.detail = f"truth at n = {n} from the prover's pair, evaluated by the oracle"
        if st == "private":
            row.unsound = (f"REFUTED at n = {n} (q = {[str(x) for x in q]}, q' = "
                           f"{[str(x) for x in qp]}, witness eps >= {row.witness_eps}) but "
                           f"eps-DP there: {tr.argument.get(n) or status_at(g.spec, n)[2]}")
        shift = Fraction(wit.get("params", {}).get("T", "0"))
        loss = pair_loss(g.spec, tuple(x - shift for x in q), tuple(x - shift for x in qp))
        try:
            claimed = float(row.witness_eps)
        except ValueError:
            claimed = float("nan")
        if loss is not None and claimed > loss[1] + 1e-9:
            row.mismatch = (f"witness eps >= {row.witness_eps} but the oracle's loss of the "
                            f"pair is at most {loss[1]:.6f} (q = {[str(x) for x in q]}, "
                            f"q' = {[str(x) for x in qp]}, T = {shift})")
        return row
    # vacuous: an alignment proved whose twin was not refuted (audit/prove/twin.py) -- never
    # counted as verified, so never "unsound", but shown under its own word
    row.verdict = "vacuous" if v.status == "vacuous" else "inconclusive"
    row.scope = "-"
    row.detail = v.reason[:200]
    return row


def _truth_label(tr: Truth) -> str:
    lab = tr.label()
    return "not private" if lab.startswith("not private") else lab


def sample(seed: int, k: int, quick: bool = False) -> list[Generated]:
    """``k`` programs of the family drawn with ``random.Random(seed)`` (a fixed order);
    ``quick``: from the programs other than geometric Sparse Vector (its integer Z3 queries
    take minutes of CPU per program; they run in the whole-family run)."""
    progs = [g for g in generate() if not (quick and _slow(g))]
    rng = random.Random(seed)
    return rng.sample(progs, k)


def _slow(g: Generated) -> bool:
    return g.spec.family == "svt" and g.spec.law == "geometric"


def by_cost(programs: Sequence[Generated]) -> list[Generated]:
    """``programs`` with the geometric Sparse Vector programs last (the slowest to prove)."""
    return [g for g in programs if not _slow(g)] + [g for g in programs if _slow(g)]


def run(programs: Sequence[Generated] | None = None, n_max: int = 4,
        on_row: Callable[[Row], None] | None = None) -> list[Row]:
    """:func:`audit_program` on every program (default: the whole family); ``on_row`` is
    called with each row as it is made (progress for a caller that prints)."""
    rows = []
    for g in (programs if programs is not None else list(generate())):
        rows.append(audit_program(g, n_max))
        if on_row is not None:
            on_row(rows[-1])
    return rows


def render(rows: Sequence[Row]) -> str:
    """The verdict x truth table, the unsound verdicts, witness mismatches and oracle
    conflicts, and one line per program."""
    counts = Counter((r.verdict, r.truth) for r in rows)
    w = 20
    head = "verdict / truth"
    lines = [f"dpaudit prove self-audit: {len(rows)} generated programs, claim eps = {EPS}, "
             f"prover defaults (n <= 4); truth by the independent oracle for n <= {N_MAX}",
             "", f"{head:{w}s}" + "".join(f"{t:>14s}" for t in TRUTHS)
             + f"{'total':>8s}"]
    for v in VERDICTS:
        lines.append(f"{v:{w}s}" + "".join(f"{counts[(v, t)]:>14d}" for t in TRUTHS)
                     + f"{sum(counts[(v, t)] for t in TRUTHS):>8d}")
    unsound = [r for r in rows if r.unsound]
    mism = [r for r in rows if r.mismatch]
    conf = [c for r in rows for c in r.conflicts]
    beyond = [r for r in rows if r.verdict == "verified (n <= N)" and r.first_violation
              and r.first_violation > 4]
    lines += ["", f"unsound verdicts: {len(unsound)} (PROVED for a program not eps-DP within "
              f"the proof's scope: {sum(r.unsound.startswith('PROVED') for r in unsound)}; "
              f"REFUTED for a program eps-DP at the witness's n: "
              f"{sum(r.unsound.startswith('REFUTED') for r in unsound)})"]
    lines += [f"  {r.name}: {r.unsound}" for r in unsound]
    lines.append(f"refutation witnesses above the oracle's bound for their pair: {len(mism)}")
    lines += [f"  {r.name}: {r.mismatch}" for r in mism]
    lines.append(f"oracle conflicts (a witness against a proved bound): {len(conf)}")
    lines += [f"  {c}" for c in conf]
    lines.append(f"verified for n <= 4 and not private from some n in 5..{N_MAX} (correct: "
                 f"outside the scope): {len(beyond)}")
    cpu = sorted(r.cpu for r in rows)
    if cpu:
        lines.append(f"prover CPU seconds: median {cpu[len(cpu) // 2]:.2f}, max {cpu[-1]:.2f}")
    lines += ["", f"{'program':52s} {'verdict':18s} {'truth':13s} {'1st viol.':>9s}  scope"]
    for r in rows:
        fv = "-" if r.first_violation is None else str(r.first_violation)
        extra = f"  witness eps >= {r.witness_eps}" if r.witness_eps else ""
        extra += f"  [{r.detail[:90]}]" if r.verdict in ("error", "inconclusive", "vacuous") else ""
        lines.append(f"{r.name:52s} {r.verdict:18s} {r.truth:13s} {fv:>9s}  {r.scope}{extra}")
    return "\n".join(lines) + "\n"
