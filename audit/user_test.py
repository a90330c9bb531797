"""``dpaudit test MODULE:OBJECT``: audit your own mechanism (a command module: it prints
progress on stderr and writes the report).

The mechanism (a vectorised callable ``f(data, size, rng)``, a per-call callable ``f(data)``
/ ``f(data, rng)``, or a class/object with ``sample``; see
:mod:`audit.privacy.user_mechanism`) is tested for its claimed ``--epsilon`` (and
``--delta``) under ``--relation replace-one|add-remove`` on neighbouring pairs from

* ``--pairs FILE``: a JSON list of ``[D, D']`` (each a list of numbers), checked to be
  neighbours;
* ``--data FILE --column C --lower L --upper U``: neighbours of a CSV column's data set
  (records replaced by / added as L or U, removed);
* ``--lower L --upper U`` alone: small generated data sets and their neighbours.

Testers (:mod:`audit.privacy.user_audit`): the black-box select-then-certify tester with
real-number and float64 bit-level events (sequential by default: it stops at the first look
that flags), and the exact privacy-loss tester when the object declares a location-scale
density.  Writes ``<out>/<run-id>/report.json|md|html`` and one counterexample JSON per
refuted finding; ``dpaudit replay FILE`` re-runs it.

Exit codes: 0 not flagged (not refuted: a sampled test that found nothing, never a proof),
1 flagged (epsilon violated at the stated confidence, or the mechanism crashed on a data
set), 2 bad input, 3 inconclusive.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from audit.cli_common import EXIT_BAD_INPUT
from audit.privacy.user_mechanism import RANDOMNESS, STYLES
from kernels.errors import InputError

__all__ = ["COMMAND", "TestCommand"]


class _Progress:
    """A progress bar on stderr (tqdm when installed, else a throttled line)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Any = None
        self.last = 0.0
        self.stage = ""
        try:
            import tqdm  # noqa: F401

            self.tqdm = True
        except ImportError:
            self.tqdm = False

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.tqdm:
            from tqdm import tqdm

            if self.bar is None or stage != self.stage:
                if self.bar is not None:
                    self.bar.close()
                self.bar = tqdm(total=total, desc=stage, unit="draw", file=sys.stderr,
                                leave=False)
                self.stage = stage
            self.bar.total = max(total, done)
            self.bar.n = done
            self.bar.refresh()
            return
        now = time.perf_counter()
        if now - self.last < 0.5 and done < total:
            return
        self.last = now
        pct = 100.0 * done / total if total else 100.0
        print(f"\r  {stage}: {done:,} / {total:,} outputs ({pct:5.1f} %)", end="",
              file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.enabled and not self.tqdm and self.last:
            print(file=sys.stderr, flush=True)


def _number(text: str, flag: str, *, lo: float | None = None, lo_open: bool = True,
            hi: float | None = None) -> float:
    try:
        v = float(text)
    except (TypeError, ValueError):
        raise InputError(f"{flag} must be a number, got {text!r}") from None
    if not math.isfinite(v):
        raise InputError(f"{flag} must be finite, got {text!r}")
    if lo is not None and (v <= lo if lo_open else v < lo):
        raise InputError(f"{flag} must be {'>' if lo_open else '>='} {lo:g}, got {text!r}")
    if hi is not None and not v < hi:
        raise InputError(f"{flag} must be < {hi:g}, got {text!r}")
    return v


def _read_pairs(path: str) -> list:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"--pairs {path}: cannot read a JSON list of pairs ({exc})") from exc
    if not isinstance(doc, list):
        raise InputError(f"--pairs {path}: expected a JSON list of [D, D'] pairs, got "
                         f"{type(doc).__name__}")
    return doc


class TestCommand:
    """The ``test`` command object (``add_arguments`` / ``run``)."""

    __test__ = False  # not a pytest test class
    help = "audit your own mechanism (MODULE:OBJECT) for its claimed epsilon; write a report"
    description = (
        "Test a user-supplied mechanism for (epsilon, delta)-DP with the black-box tester "
        "(real-number and float64 bit-level events; sequential: stops at the first look "
        "that flags) and, when it declares a location-scale density, the exact privacy-loss "
        "tester.  MECHANISM is MODULE:OBJECT: a vectorised callable f(data, size, rng), a "
        "per-call callable f(data) or f(data, rng) (batched by dpaudit), or a class/object "
        "with a sample method; rng may be a numpy Generator, an int seed, or absent (then "
        "the run is not reproducible).  Exit 0 not flagged (not refuted, never 'verified'), "
        "1 flagged, 2 bad input, 3 inconclusive."
    )

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("mechanism", metavar="MODULE:OBJECT",
                       help="the mechanism, e.g. audit.examples.opendp_laplace:laplace_sum")
        p.add_argument("--epsilon", default=None,
                       help="claimed epsilon (> 0); default: the object's epsilon attribute")
        p.add_argument("--delta", default="0", help="claimed delta in [0, 1) (default 0)")
        p.add_argument("--relation", choices=("replace-one", "add-remove"),
                       default="replace-one", help="neighbour relation (default %(default)s)")
        src = p.add_mutually_exclusive_group()
        src.add_argument("--data", default=None, help="CSV file with the data set")
        src.add_argument("--pairs", default=None, help="JSON list of [D, D'] pairs")
        p.add_argument("--column", default=None, help="CSV column (with --data)")
        p.add_argument("--lower", default=None, help="public lower bound of a record")
        p.add_argument("--upper", default=None, help="public upper bound of a record")
        p.add_argument("--max-pairs", type=int, default=12,
                       help="at most this many generated pairs (default 12)")
        p.add_argument("--n", type=int, default=1024,
                       help="largest data set the neighbour search builds for the exact "
                            "sensitivity check (default 1024; sampled pairs stay <= 64)")
        p.add_argument("--seed", type=int, default=0, help="tester seed (default 0)")
        p.add_argument("--confidence", default="0.9",
                       help="confidence of a flag (default 0.9)")
        p.add_argument("--fixed", action="store_true",
                       help="fixed sample sizes instead of sequential stopping")
        p.add_argument("--max-samples", type=int, default=200_000,
                       help="largest certification batch per data set (default 200000)")
        p.add_argument("--n-select", type=int, default=200_000,
                       help="selection outputs per data set (default 200000)")
        p.add_argument("--first-batch", type=int, default=2000,
                       help="sequential: first batch per data set (default 2000)")
        p.add_argument("--max-seconds", default=None,
                       help="sequential: stop after the round that passes this wall time "
                       "(then inconclusive unless flagged)")
        p.add_argument("--chunk-size", type=int, default=100_000,
                       help="outputs per call to a vectorised mechanism (default 100000)")
        p.add_argument("--no-float-bits", action="store_true",
                       help="leave out the float64 bit-level events")
        p.add_argument("--no-exact", action="store_true",
                       help="skip the exact-loss tester even if a density is declared")
        p.add_argument("--style", choices=STYLES, default="auto",
                       help="how to call the mechanism (default: from its signature)")
        p.add_argument("--randomness", choices=RANDOMNESS, default="auto",
                       help="what its randomness argument is (default: from its signature)")
        p.add_argument("--no-progress", action="store_true", help="no progress bar")
        p.add_argument("--out", default="reports", help="report root (default reports)")
        p.add_argument("--run-id", default=None, help="report sub-directory name")

    def run(self, a: argparse.Namespace) -> int:
        from audit import datasets
        from audit.report import build_report, counterexample_relpath, write_report

        eps = None if a.epsilon is None else _number(a.epsilon, "--epsilon", lo=0.0)
        delta = _number(a.delta, "--delta", lo=0.0, lo_open=False, hi=1.0)
        conf = _number(a.confidence, "--confidence", lo=0.0, hi=1.0)
        max_s = None if a.max_seconds is None else _number(a.max_seconds, "--max-seconds",
                                                           lo=0.0)
        for flag, v, least in (("--max-samples", a.max_samples, 10),
                               ("--n-select", a.n_select, 10),
                               ("--first-batch", a.first_batch, 10),
                               ("--chunk-size", a.chunk_size, 1),
                               ("--max-pairs", a.max_pairs, 1), ("--seed", a.seed, 0)):
            if v < least:
                raise InputError(f"{flag} must be >= {least}, got {v}")
        lower = None if a.lower is None else _number(a.lower, "--lower")
        upper = None if a.upper is None else _number(a.upper, "--upper")
        if (lower is None) != (upper is None):
            raise InputError("--lower and --upper go together")
        if a.column is not None and a.data is None:
            raise InputError("--column needs --data FILE")
        data = pairs = None
        data_id: dict[str, Any] = {}
        if a.data is not None:
            if lower is None:
                raise InputError("--data needs the public record bounds --lower and --upper")
            data = datasets.load_csv_column(a.data, a.column)
            data_id = {"data_file": a.data, "data_sha256": datasets.file_sha256(a.data),
                       "column": a.column, "records": int(data.size)}
        elif a.pairs is not None:
            pairs = _read_pairs(a.pairs)
            data_id = {"pairs_file": a.pairs}
        elif lower is None:
            raise InputError("give neighbouring data: --pairs FILE, --data FILE --column C "
                             "--lower L --upper U, or --lower L --upper U")

        # the mechanism module is the user's code: import it from the working directory too
        if "" not in sys.path and str(Path.cwd()) not in sys.path:
            sys.path.insert(0, str(Path.cwd()))
        from audit.privacy.user_mechanism import load_object

        obj = load_object(a.mechanism)
        started = datetime.now(UTC).isoformat(timespec="seconds")
        t0 = time.perf_counter()
        bar = _Progress(not a.no_progress)
        print(f"dpaudit test: {a.mechanism}, epsilon "
              f"{'from the object' if eps is None else format(eps, 'g')}"
              f"{f', delta {delta:g}' if delta else ''}, {a.relation}, seed {a.seed}"
              f"{', fixed sizes' if a.fixed else ', sequential'}", file=sys.stderr, flush=True)
        from audit.privacy.user_audit import test_mechanism  # scipy: not at CLI start-up

        try:
            audit = test_mechanism(
                obj, epsilon=eps, delta=delta, relation=a.relation, pairs=pairs, data=data,
                lower=lower, upper=upper, seed=a.seed, confidence=conf,
                sequential=not a.fixed, n_select=a.n_select, n_certify=a.max_samples,
                first_batch=a.first_batch, float_bits=not a.no_float_bits,
                exact=not a.no_exact, max_pairs=a.max_pairs, n=a.n, max_seconds=max_s,
                chunk_size=a.chunk_size, style=a.style, randomness=a.randomness,
                ref=a.mechanism, progress=bar)
        finally:
            bar.close()
        wall = time.perf_counter() - t0
        params = {**audit.parameters, **data_id, "outcome": audit.outcome}
        run_id = a.run_id or f"test-{a.mechanism.replace(':', '-')}-seed{a.seed}"
        out_dir = Path(a.out) / run_id
        rep = build_report("test", f"mechanism:{a.mechanism}", a.seed, audit.findings, params,
                           started, True, total_duration_s=wall)
        write_report(out_dir, rep)
        self._summary(audit, wall, out_dir, counterexample_relpath)
        return audit.exit_code

    @staticmethod
    def _summary(audit: Any, wall: float, out_dir: Path, relpath: Any) -> None:
        w = sys.stdout.write
        word = {"flagged": "FLAGGED", "not-flagged": "NOT REFUTED",
                "inconclusive": "INCONCLUSIVE"}[audit.outcome]
        p = audit.parameters
        w(f"{word}: {p['mechanism']} claimed epsilon {p['epsilon']:g} under {p['relation']}\n")
        for f in audit.findings:
            ev = f.evidence
            line = f"  {f.id:<18} {f.verdict.value:<12}"
            if f.id == "user.blackbox" and ev.get("epsilon_lower") is not None:
                line += (f" epsilon_lower {ev['epsilon_lower']:.4g} at {ev['confidence']:g}"
                         f" ({ev.get('samples_total'):,} outputs"
                         f"{', stopped: ' + str(ev['stopped']) if ev.get('stopped') else ''})")
                if "power" in ev:
                    line += (f"; would flag a log-ratio >= "
                             f"{ev['power']['detectable_epsilon_on_event']:.4g} on its event")
            elif f.id == "user.exact-loss" and "worst" in ev:
                line += f" worst certified loss {ev['worst']['epsilon_up']:.6g}"
            elif f.id.startswith("user.crash"):
                line += f" {ev.get('exception')}: {str(ev.get('message'))[:60]}"
            w(line + "\n")
            if f.counterexample is not None:
                w(f"    replay: dpaudit replay {out_dir / relpath(f.id)}\n")
        if not p["reproducible"]:
            w("  note: the mechanism's randomness is not seeded by dpaudit: this run is not "
              "reproducible\n")
        w(f"  wall {wall:.1f} s; report: {out_dir / 'report.json'}  {out_dir / 'report.md'}  "
          f"{out_dir / 'report.html'}\n")


COMMAND = TestCommand()


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - convenience
    p = argparse.ArgumentParser(prog="dpaudit test")
    COMMAND.add_arguments(p)
    try:
        return COMMAND.run(p.parse_args(argv))
    except InputError as exc:
        print(f"dpaudit test: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
