"""``dpaudit test MODULE:OBJECT``: audit your own mechanism (a command module: it prints
progress on stderr and writes the report).

The mechanism (a vectorised callable ``f(data, size, rng)``, a per-call callable ``f(data)``
/ ``f(data, rng)``, or a class/object with ``sample``; see
:mod:`audit.privacy.user_mechanism`) is tested for its claimed ``--epsilon`` (and
``--delta``) under ``--relation`` (replace-one, add-remove, linf:K, l1:K, trusted,
custom:MODULE:OBJECT: :mod:`audit.privacy.relation`) on neighbouring pairs from

* ``--pairs FILE``: a JSON list of ``[D, D']`` (each a list of numbers), checked to be
  neighbours;
* ``--data FILE --column C --lower L --upper U``: neighbours of a CSV column's data set
  (records replaced by / added as L or U, removed);
* ``--lower L --upper U`` alone: small data sets at the bounds and the neighbour search's
  floating-point bug families (:mod:`audit.privacy.neighbour_search`).

With bounds, an object declaring ``query`` and ``sensitivity`` also gets the exact,
sample-free sensitivity check on data sets of up to ``--n`` records (``user.sensitivity``).
``--epsilon`` may be left out when the object declares its claim.

Testers (:mod:`audit.privacy.user_audit`): the black-box select-then-certify tester with
real-number and float64 bit-level events (sequential by default: it stops at the first look
that flags), and the exact privacy-loss tester when the object declares a location-scale
density.  Writes ``<out>/<run-id>/report.json|md|html`` and one counterexample JSON per
refuted finding; ``dpaudit replay FILE`` re-runs it.

Exit codes: 0 not flagged (not refuted: a sampled test that found nothing, never a proof),
1 flagged (epsilon violated on real-number events at the stated confidence, the exact
check refuted the sensitivity, or the mechanism crashed on a data set), 5 flagged on float64
bit-level events only (word FLAGGED (float64 only)), 2 bad input (nothing written; also a
mechanism that raises on every data set: a harness error, not a finding), 3 inconclusive
(undecided, the time limit reached, or nothing measurable: all outputs NaN/inf or
malformed), 130 interrupted (the report folder holds a complete report marked
unfinished).  The report says the same word as the command (NOT REFUTED / FLAGGED /
FLAGGED (float64 only) / INCONCLUSIVE).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from audit.cli.argtypes import epsilon as epsilon_type
from audit.cli.argtypes import integer, real
from audit.cli.argtypes import run_id as run_id_type
from audit.cli.argtypes import seed as seed_type
from audit.cli.command import Command
from audit.cli.folders import report_dir
from audit.cli.outcomes import EXIT_BAD_INPUT, outcome
from audit.cli.run import finish, start_report
from audit.cli.watchdog import RunDeadline
from audit.cli.watchdog import watchdog as _watchdog
from audit.privacy.import_root import ensure_cwd_on_path
from audit.privacy.user_mechanism import RANDOMNESS, SEED_BITS, STYLES
from audit.untrusted import SAMPLES_MAX
from kernels.errors import InputError
from kernels.validate import shorten

__all__ = ["COMMAND", "StageProgress", "TestCommand"]

#: the black-box findings, one per verdict kind (real-number, float bits)
KIND_IDS = ("user.blackbox", "user.float-bits")
KIND_NAMES = {"user.blackbox": "real-number", "user.float-bits": "float-bits"}


def _flag_kind(findings: list[Any]) -> str:
    """``flagged-float`` when the float64 bit-level finding is the only refuted one (the
    real-number events, the exact check and the crash checks found nothing), else
    ``flagged``."""
    refuted = {f.id for f in findings if f.verdict.value == "refuted"}
    return "flagged-float" if refuted == {"user.float-bits"} else "flagged"


class StageProgress:
    """A progress bar on stderr (tqdm), shown only when stderr is a terminal and neither
    ``--no-progress`` nor ``DPAUDIT_NO_PROGRESS`` is set (redirected stderr gets none).
    On the holder's data (``confidential``) the draws, stages and times are functions of
    the data: the terminal gets one fixed line instead
    (:func:`audit.cli.progress.progress_withheld`)."""

    def __init__(self, enabled: bool, confidential: bool = False) -> None:
        self.enabled = (enabled and sys.stderr.isatty()
                        and os.environ.get("DPAUDIT_NO_PROGRESS") is None)
        self.bar: Any = None
        self.stage = ""
        if self.enabled and confidential:
            from audit.cli.progress import progress_withheld

            progress_withheld("dpaudit test")
            self.enabled = False
        if self.enabled:
            try:
                import tqdm  # noqa: F401
            except ImportError:  # pragma: no cover - tqdm is a dependency
                self.enabled = False

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
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

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _read_pairs(path: str) -> list:
    """``--pairs FILE`` through the untrusted-input layer (a regular file under the size
    cap, JSON without NaN literals, every record a number: :mod:`audit.untrusted`)."""
    from audit.untrusted import check_pairs, load_json

    label = f"--pairs {shorten(repr(path))}"
    return check_pairs(load_json(path, label), label)


TABLE_FORMS = ("array", "structured", "rows", "records", "dataframe")


def _column_list(text: str) -> list[str]:
    names = [c.strip() for c in text.split(",")]
    if not text.strip() or any(not c for c in names) or len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(
            f"expected distinct column names separated by commas, got {text!r}")
    return names


def _read_table(a: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    """The table of --data with --columns / --unit (errors name the flag)."""
    from audit.privacy.tabular import read_table

    if a.data is None:
        raise InputError("--columns / --unit / --form need --data FILE (a CSV or JSON table)")
    if a.column is not None:
        raise InputError("--column (one numeric column) and --columns (a table of rows) "
                         "exclude each other")
    if a.columns is not None and a.unit is not None and a.unit not in a.columns:
        raise InputError(f"--unit {a.unit}: not among --columns {','.join(a.columns)}")
    try:
        table = read_table(a.data, a.columns)
        if a.unit is not None:
            table.column(a.unit)
    except InputError as exc:
        flag = "--unit" if a.unit is not None and "no column" in str(exc) and (
            a.columns is None) else "--columns" if "no column" in str(exc) else "--data"
        raise InputError(f"{flag}: {exc}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"--data {shorten(repr(a.data))}: cannot read a table "
                         f"({shorten(str(exc), 160)})") from None
    if len(table) == 0:
        raise InputError(f"--data {shorten(repr(a.data))}: the table has no rows")
    from audit.table_record import table_record  # an independent read: audit.reader_record

    return table, {"data": "the data holder's file (in the confidential report)",
                   "confidential": {"file": a.data, "columns": list(table.columns),
                                    "unit": a.unit, "records": len(table),
                                    "reader": table_record(a.data, a.columns, table)}}


def _check_form(table: Any, form: str) -> None:
    """The table must fit the form the mechanism takes (checked before anything is
    written: bad input, never a report blaming the mechanism)."""
    from audit.privacy.tabular import to_form

    try:
        to_form(table, form)
    except InputError as exc:
        raise InputError(f"--form {form}: {exc}") from None


class TestCommand(Command):
    """The ``test`` command: its arguments (one block, :meth:`add_arguments`) and run."""

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
        p.add_argument("--epsilon", default=None, type=epsilon_type,
                       help="claimed epsilon (> 0); default: the object's claimed_epsilon "
                       "or epsilon attribute")
        p.add_argument("--delta", default=0.0, type=real(low=0.0, high=1.0, high_open=True),
                       help="claimed delta in [0, 1) (default 0)")
        p.add_argument("--claim", default=None, metavar="SPEC",
                       help="the claim as a trade-off function instead of --epsilon/--delta: "
                       "gdp:mu=M, zcdp:rho=R, rdp:alpha=A:eps=E[,alpha=...], fdp:x:y,..., "
                       "pure:eps=E, approx:eps=E,delta=D (the last two are --epsilon/--delta)")
        p.add_argument("--family", default=None, choices=("gaussian", "none"),
                       help="also test the claim under the Gaussian shift family: the "
                       "outputs are taken to be N(a, s^2) on D and N(a', s^2) on D' (one "
                       "scale); mu = |a - a'| / s is bounded from the outputs and decided "
                       "exactly, after a goodness-of-fit check (default: on when the object "
                       "declares Gaussian noise; none: off)")
        p.add_argument("--relation", default=None,
                       help="neighbour relation (default: the library's, read from the "
                       "adapter's relation attribute, else replace-one; a flag that "
                       "contradicts the library is an error): replace-one, add-remove, linf:K / "
                       "l1:K (query-answer vectors: every answer moves by <= K / the moves "
                       "sum to <= K), trusted (your --pairs, unchecked), or "
                       "custom:MODULE:OBJECT (a function f(D, D') -> bool); records are "
                       "compared position by position in the order the mechanism sees them")
        p.add_argument("--queries", type=integer(low=1), default=10,
                       help="linf:K / l1:K without --pairs: answers per generated pattern "
                       "pair (default 10)")
        src = p.add_mutually_exclusive_group()
        src.add_argument("--data", default=None, help="CSV file with the data set")
        src.add_argument("--pairs", default=None, help="JSON list of [D, D'] pairs")
        p.add_argument("--column", default=None, help="CSV column (with --data)")
        # a table: records are rows (several columns, numbers and categories)
        p.add_argument("--columns", default=None, type=_column_list,
                       help="with --data (CSV or JSON): the table's columns a,b,c; records "
                       "are rows, neighbours replace / add / remove one row")
        p.add_argument("--unit", default=None,
                       help="with --data: the privacy-unit column (e.g. user_id): neighbours "
                       "differ in all rows of one unit")
        p.add_argument("--form", default=None, choices=TABLE_FORMS,
                       help="how the mechanism receives the table (default array)")
        p.add_argument("--lower", default=None, type=real(),
                       help="public lower bound of a record")
        p.add_argument("--upper", default=None, type=real(),
                       help="public upper bound of a record")
        p.add_argument("--clips", action="store_true",
                       help="the mechanism clips records to [--lower, --upper] (default: "
                       "the adapter's clips attribute): data outside the bounds is "
                       "accepted and the search puts records beyond them")
        p.add_argument("--max-pairs", type=integer(low=1), default=12,
                       help="at most this many generated pairs (default 12)")
        p.add_argument("--n", type=integer(low=1), default=1024,
                       help="largest data set the neighbour search builds for the exact "
                            "sensitivity check (default 1024; sampled pairs stay <= 16)")
        p.add_argument("--size", type=integer(low=1), default=None,
                       help="a sized domain: the library accepts data sets of exactly N "
                       "records (default: the adapter's size attribute); every generated "
                       "data set has N records")
        p.add_argument("--seed", type=seed_type, default=0, help="tester seed (default 0)")
        p.add_argument("--seed-bits", type=integer(low=1, high=64), default=SEED_BITS,
                       help="int seeds handed to a mechanism whose randomness is a seed are "
                       "drawn in [0, 2^B) (default 32: numpy RandomState and scikit-learn "
                       "accept no more)")
        p.add_argument("--confidence", default=0.9,
                       type=real(low=0.0, low_open=True, high=1.0, high_open=True),
                       help="confidence of a flag (default 0.9)")
        p.add_argument("--fixed", action="store_true",
                       help="fixed sample sizes instead of sequential stopping")
        p.add_argument("--max-samples", type=integer(low=10, high=SAMPLES_MAX),
                       default=1_048_576,
                       help="largest certification batch per data set (default 1048576, "
                       "at most 2^24: a replay draws it again)")
        p.add_argument("--stop-at-flag", action="store_true",
                       help="sequential: end at the first look that flags (a quicker "
                       "refutation; the bound reported is then that look's, not the best "
                       "the remaining looks on the flagged pair would certify)")
        p.add_argument("--n-select", type=integer(low=10), default=200_000,
                       help="selection outputs per data set (default 200000)")
        p.add_argument("--first-batch", type=integer(low=10), default=2000,
                       help="sequential: first batch per data set (default 2000)")
        p.add_argument("--growth", type=integer(low=2, high=64), default=2,
                       help="sequential: each batch is this many times the previous one "
                       "(default 2; larger: fewer looks, each at a larger share of alpha)")
        p.add_argument("--max-seconds", default=None, type=real(low=0.0, low_open=True),
                       help="wall-time limit: the sequential tester stops after the round "
                       "that passes it, and a watchdog stops the run (e.g. a mechanism that "
                       "never returns) at most 25%% (at least 1 s) later; either way the run "
                       "ends INCONCLUSIVE unless already flagged (a time-out is never a pass)")
        p.add_argument("--chunk-size", type=integer(low=1), default=100_000,
                       help="outputs per call to a vectorised mechanism (default 100000)")
        p.add_argument("--no-float-bits", action="store_true",
                       help="leave out the float64 bit-level events")
        p.add_argument("--no-exact", action="store_true",
                       help="skip the exact-loss tester even if a density is declared")
        p.add_argument("--style", choices=STYLES, default="auto",
                       help="how to call the mechanism (default: from its signature)")
        p.add_argument("--randomness", choices=RANDOMNESS, default="auto",
                       help="what its randomness argument is (default: from its signature)")
        p.add_argument("--no-progress", action="store_true",
                       help="no progress bar (there is none unless stderr is a terminal)")
        p.add_argument("--public-verdict-only", action="store_true",
                       help="with --data: the public report (and stdout) keep only the "
                       "overall verdict; the per-finding verdicts go to the confidential "
                       "report")
        p.add_argument("--out", default="reports", help="report root (default reports)")
        p.add_argument("--run-id", type=run_id_type, default=None,
                       help="report sub-directory name")

    def run(self, a: argparse.Namespace) -> int:
        from audit import datasets

        if (a.lower is None) != (a.upper is None):
            raise InputError("--lower and --upper go together")
        if a.column is not None and a.data is None:
            raise InputError("--column needs --data FILE")
        if a.public_verdict_only and a.data is None:
            raise InputError("--public-verdict-only needs --data FILE (only a run on the data "
                             "holder's data has a public and a confidential report)")
        run_id = (a.run_id if a.run_id is not None else
                  f"test-{a.mechanism.replace(':', '-')}-seed{a.seed}")
        # --out / --run-id checked before anything runs (a derived id too: exit 2)
        report_dir(a.out, run_id)
        data = pairs = table = None
        data_id: dict[str, Any] = {}
        tabular = a.columns is not None or a.unit is not None or a.form is not None
        if tabular:
            table, data_id = _read_table(a)
            _check_form(table, a.form or "array")
        elif a.data is not None:
            data, reader = datasets.read_csv_column(a.data, a.column)
            # the file, its digest and its size name the confidential data: kept in the
            # confidential report (keyed fingerprint, never a plain hash; see below), with
            # the reader's record (checked against the records audited: audit.reader_record)
            data_id = {"data": "the data holder's file (in the confidential report)",
                       "confidential": {"file": a.data, "column": a.column,
                                        "records": int(data.size), "reader": reader}}
        elif a.pairs is not None:
            pairs = _read_pairs(a.pairs)
            data_id = {"pairs_file": a.pairs}

        # the mechanism module is the user's code: import it from the working directory too
        ensure_cwd_on_path()
        from audit.privacy.claims.user_claim import claim_option
        from audit.privacy.user_audit import plan_audit  # scipy: not at CLI start-up
        from audit.privacy.user_mechanism import load_object

        obj = load_object(a.mechanism)
        claim, a.epsilon, a.delta = claim_option(a.claim, a.epsilon, a.delta,
                                                 getattr(obj, "claim", None))
        if a.lower is None and getattr(obj, "lower", None) is None and pairs is None and (
                table is None) and (
                not (a.relation or "").startswith(("linf:", "l1:"))):  # bounds: flag or library
            raise InputError("--data needs the public record bounds --lower and --upper"
                              if data is not None else
                              "give neighbouring data: --pairs FILE, --data FILE --column C "
                              "--lower L --upper U, or --lower L --upper U")
        # the time limit covers the user's relation too (plan_audit checks every pair with
        # it): a relation that never returns is bad input, nothing written
        try:
            with _watchdog(a.max_seconds):
                plan = self._plan(a, plan_audit, obj, pairs, data, table, claim)
        except RunDeadline:
            raise InputError(f"--relation {a.relation}: the neighbour check did not return "
                             f"within --max-seconds {a.max_seconds:g} (plus grace); nothing "
                             "was written") from None
        return self._run(a, plan, run_id, data_id, claim)

    @staticmethod
    def _plan(a: argparse.Namespace, plan_audit: Any, obj: Any, pairs: Any, data: Any,
              table: Any, claim: Any = None) -> Any:
        tabular = table is not None
        return plan_audit(  # a gdp/zcdp/rdp/fdp claim: epsilon 1 is nominal, never tested
            obj, epsilon=1.0 if claim is not None else a.epsilon, delta=a.delta,
            relation=a.relation, pairs=pairs,
            data=data, lower=a.lower, upper=a.upper, seed=a.seed, confidence=a.confidence,
            sequential=not a.fixed, n_select=a.n_select, n_certify=a.max_samples,
            first_batch=a.first_batch, growth=a.growth, float_bits=not a.no_float_bits,
            exact=not a.no_exact, max_pairs=a.max_pairs, n=a.n, max_seconds=a.max_seconds,
            chunk_size=a.chunk_size, style=a.style, randomness=a.randomness,
            seed_bits=a.seed_bits, ref=a.mechanism, queries=a.queries,
            stop_at_flag=a.stop_at_flag, size=a.size, family=a.family,
            clips=True if a.clips else None,
            **({"table": table, "unit": a.unit, "form": a.form or "array"} if tabular else {}))

    def _run(self, a: argparse.Namespace, plan: Any, run_id: str,
             data_id: dict[str, Any], claim: Any = None) -> int:
        from audit.privacy.user_audit import preflight, run_plan
        from audit.report import build_report, counterexample_relpath

        started = datetime.now(UTC).isoformat(timespec="seconds")
        subject = f"mechanism:{a.mechanism}"
        params0 = {**plan.params, **data_id}
        # a run on the holder's data writes a public and a confidential report, whose
        # public part states the run's data-independent budget only (issue 37)
        conf: dict[str, Any] = {}
        if a.data is not None:
            from audit.privacy.public_scope import withhold_data_dependent

            params0 = withhold_data_dependent({**params0, **_budget(a)}, [])
            conf = {"confidential_data": True, "public_verdict_only": a.public_verdict_only}
        t0 = time.perf_counter()
        bar = StageProgress(not a.no_progress, confidential=a.data is not None)
        out_dir = None
        limit = None
        try:
            # the time limit covers every call of the mechanism, the preflight's included
            with _watchdog(a.max_seconds) as limit:
                # a harness error (every data set raises) is bad input: nothing written yet
                malformed = preflight(plan)
                # the folder is this run's from here on: an interrupt leaves an unfinished
                # report, an earlier report and its counterexamples are gone, a second run
                # into it is refused
                out_dir = start_report(a.out, run_id, "test", subject, a.seed, params0,
                                       started, **conf)
                eps = plan.mech.claimed_epsilon
                print(f"dpaudit test: {a.mechanism}, "
                      + (f"claim {claim.spec()}" if claim is not None else f"epsilon {eps:g}"
                         f"{' (declared by the object)' if a.epsilon is None else ''}")
                      +
                      f"{f', delta {a.delta:g}' if a.delta else ''}, {plan.params['relation']}, "
                      f"seed {a.seed}"
                      f"{', fixed sizes' if a.fixed or claim is not None else ', sequential'}",
                      file=sys.stderr, flush=True)
                if claim is not None and not malformed:
                    from audit.privacy.claims.user_claim import run_claim

                    audit = run_claim(plan, claim, bar)
                else:
                    audit = run_plan(plan, bar, malformed)
        except RunDeadline:
            audit = _timed_out(plan, limit, time.perf_counter() - t0)
        finally:
            bar.close()
        reader = (data_id.get("confidential") or {}).get("reader")
        if reader is not None:  # the run audited what the reader read, or INCONCLUSIVE
            from audit.reader_record import check_run

            tab = "columns" in reader  # a table: its rows read (every column checked)
            check_run(audit, reader, a.columns if tab else a.column,
                      data_id["confidential"]["records"] if tab else
                      int(getattr(plan.data, "size", 0)))
        if out_dir is None:  # the time limit hit before the report folder was taken
            out_dir = start_report(a.out, run_id, "test", subject, a.seed, params0, started,
                                   **conf)
        wall = time.perf_counter() - t0
        params = {**audit.parameters, **data_id, "outcome": audit.outcome}
        if a.data is not None:  # a report about confidential data: public + confidential
            from audit import fingerprint
            from audit.privacy.public_scope import withhold_data_dependent

            for f in audit.findings:  # every figure of a run on the data is the holder's
                f.confidential, f.evidence = {**f.evidence, **f.confidential}, {}
            params = withhold_data_dependent({**params, **_budget(a)},
                                             audit.findings)
            holder_key, _ = fingerprint.holder_key(None, out_dir)
            params["confidential"] = fingerprint.keyed_source(params["confidential"],
                                                              holder_key)
            for f in audit.findings:  # every figure of a run on the data is the holder's
                f.confidential, f.evidence = {**f.evidence, **f.confidential}, {}
        key = {"flagged": _flag_kind(audit.findings),
               "not-flagged": "not-refuted"}.get(audit.outcome, "inconclusive")

        def final(oc: dict | None) -> dict:
            return build_report("test", subject, a.seed, audit.findings, params, started,
                                True, total_duration_s=wall, outcome=oc, **conf)

        _, code = finish(out_dir, final, key)
        # a run on the holder's data prints what its public report holds: no time, and
        # with --public-verdict-only no per-finding verdict (issue 37)
        self._summary(audit, None if a.data is not None else wall, out_dir,
                      counterexample_relpath,
                      verdict_only=a.data is not None and a.public_verdict_only)
        return code

    @staticmethod
    def _summary(audit: Any, wall: float | None, out_dir: Path, relpath: Any,
                 verdict_only: bool = False) -> None:
        w = sys.stdout.write
        word = {"flagged": outcome(_flag_kind(audit.findings)).word,
                "not-flagged": "NOT REFUTED", "inconclusive": "INCONCLUSIVE"}[audit.outcome]
        p = audit.parameters
        w(f"{word}: {p['mechanism']} claimed "
          + (p["claim_words"] if p.get("claim") else f"epsilon {p['epsilon']:g}")
          + f" under {p['relation']}\n")
        if verdict_only:
            w("  per-finding verdicts withheld (--public-verdict-only): see the confidential "
              f"report {out_dir / 'confidential' / 'report.json'}\n")
            w(f"  report: {out_dir / 'report.json'}  {out_dir / 'report.md'}  "
              f"{out_dir / 'report.html'}\n")
            return
        kinds = [(KIND_NAMES[f.id], f.verdict.value) for f in audit.findings
                 if f.id in KIND_IDS]
        if kinds:  # one verdict per kind: a float-bit flag never hides the real-number one
            w("  by kind: " + "; ".join(f"{k}: {v}" for k, v in kinds) + "\n")
        for f in audit.findings:
            ev = f.evidence
            line = f"  {f.id:<18} {f.verdict.value:<12}"
            if ev.get("reason"):  # an undecided run says why
                line += f" {ev['reason']}"
            elif f.id in KIND_IDS and ev.get("epsilon_lower") is not None:
                line += (f" [{KIND_NAMES[f.id]}] epsilon_lower "
                         f"{ev['epsilon_lower']:.4g} at {ev['confidence']:g}"
                         f" ({ev.get('samples_total'):,} outputs"
                         f"{', stopped: ' + str(ev['stopped']) if ev.get('stopped') else ''})")
                if "power" in ev:
                    line += (f"; would flag a log-ratio >= "
                             f"{ev['power']['detectable_epsilon_on_event']:.4g} on its event")
            elif f.id == "user.claim" and "in_words" in ev:
                line += f" {ev['in_words']}"
            elif f.id == "user.gaussian-family" and "in_words" in ev:
                line += f" {ev['in_words']}"
            elif f.id == "user.exact-gaussian" and "pairs" in ev:
                line += (f" declared mu <= {max(r.get('mu_up', 0) for r in ev['pairs']):.6g}"
                         f" on {len(ev['pairs'])} pairs")
            elif f.id == "user.exact-loss" and "worst" in ev:
                line += f" worst certified loss {ev['worst']['epsilon_up']:.6g}"
            elif f.id.startswith("user.crash") and ev:  # on the holder's data: confidential
                line += f" {ev.get('exception')}: {str(ev.get('message'))[:60]}"
            w(line + "\n")
            if ev.get("point_mass"):
                w(f"    {ev['point_mass']['sentence']}\n")
            if f.counterexample is not None:
                cx_dir = (out_dir / "confidential" if (out_dir / "confidential").is_dir()
                          else out_dir)
                w(f"    replay: dpaudit replay {cx_dir / relpath(f.id)}\n")
        if not p["reproducible"]:
            w("  note: the mechanism's randomness is not seeded by dpaudit: this run is not "
              "reproducible\n")
        w(("  report: " if wall is None else f"  wall {wall:.1f} s; report: ")
          + f"{out_dir / 'report.json'}  {out_dir / 'report.md'}  {out_dir / 'report.html'}\n")


def _budget(a: argparse.Namespace) -> dict[str, Any]:
    """The pair budget a run on the holder's data states publicly: the --max-pairs cap of a
    column's neighbours, or that a table's row neighbours are used."""
    if a.columns is not None or a.unit is not None or a.form is not None:
        return {"table": True}
    return {"max_pairs": a.max_pairs}


def _timed_out(plan: Any, limit: float | None, wall: float) -> Any:
    """The audit of a run the watchdog stopped: inconclusive, with the reason."""
    from audit.findings import Finding, Method, Verdict
    from audit.privacy.user_audit import UserAudit, blackbox_claim

    mech = plan.mech
    started = getattr(mech, "call_started", None)
    ran = (time.monotonic() - started if started is not None else
           getattr(mech, "interrupted_after", None))
    who = (f"a call of the mechanism had been running for {ran:.1f} s without returning"
           if ran is not None else
           "the mechanism was not being called (every call had returned): dpaudit's own "
           "work overran")
    reason = (f"stopped by the time limit (the watchdog of --max-seconds "
              f"{plan.params['max_seconds']:g}, plus grace: {limit:g} s in all) after "
              f"{wall:.1f} s: {who}")
    f = Finding(
        # the same claim text as a run that ended on its own (a time-out must not show
        # in the public report by a different claim: issue 37)
        id="user.blackbox", claim=blackbox_claim(mech), reference="the mechanism author's claim",
        method=Method.EMPIRICAL, verdict=Verdict.INCONCLUSIVE,
        scope=f"{reason}; nothing decided (a time-out is never a pass)",
        evidence={"outcome": "time-limit", "reason": reason, "stopped": "time-limit"},
        seed=plan.seed, duration_s=wall, subject=f"mechanism:{plan.ref or mech.name}")
    return UserAudit([f], "inconclusive", plan.params, None, [], wall)


COMMAND = TestCommand()


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - convenience
    p = argparse.ArgumentParser(prog="dpaudit test")
    COMMAND.add_arguments(p)
    try:
        return COMMAND.run(p.parse_args(argv))
    except InputError as exc:
        print(f"dpaudit test: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
