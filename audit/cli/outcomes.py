"""The outcome table: the exit code and printed word of every outcome of every command (the
engine's and the subjects').

:data:`OUTCOMES` is the single place that says which word a command prints (and stores in
its report) and which exit code it returns; every command ends through :func:`outcome`.
``README.md`` and ``dpaudit --help`` quote it.  Nothing here prints.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_CODES",
    "EXIT_FINDINGS",
    "EXIT_FLOAT_ONLY",
    "EXIT_INCONCLUSIVE",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_CERTIFIED",
    "EXIT_OK",
    "OUTCOMES",
    "Outcome",
    "outcome",
    "outcome_table",
]

EXIT_OK = 0
EXIT_FINDINGS = 1  # a check refuted / a counterexample still fails / NOT CERTIFIED / FAIL
EXIT_NOT_CERTIFIED = 1
EXIT_BAD_INPUT = 2
EXIT_INCONCLUSIVE = 3
EXIT_INTERNAL = 4  # an unexpected internal error (a bug in dpaudit), one line on stderr
EXIT_FLOAT_ONLY = 5  # test: flagged on float64 bit-level events only (real-number: not)
EXIT_INTERRUPTED = 130


@dataclass(frozen=True)
class Outcome:
    """One row of the outcome table: the word printed (and stored in the report as
    ``outcome``), the exit code, and what it means."""

    key: str
    word: str
    code: int
    meaning: str


#: every outcome of every command: key -> (word, exit code, meaning)
OUTCOMES: dict[str, Outcome] = {o.key: o for o in (
    Outcome("certified", "CERTIFIED", EXIT_OK,
            "certify: no link refuted or undecided (proof links verified, sampled links "
            "not-refuted)"),
    Outcome("not-certified", "NOT CERTIFIED", EXIT_NOT_CERTIFIED,
            "certify: a link refuted (a replayable counterexample is written)"),
    Outcome("inconclusive", "INCONCLUSIVE", EXIT_INCONCLUSIVE,
            "certify / calibrate / regress / test / prove: nothing refuted, but a check could "
            "not decide, was vacuous (could not have failed in its scope), crashed, ran out "
            "of time, or nothing was checked"),
    Outcome("pass", "PASS", EXIT_OK,
            "calibrate / regress: every check agrees (calibrate: every tester matches its "
            "known answer; regress: nothing refuted)"),
    Outcome("fail", "FAIL", EXIT_FINDINGS,
            "calibrate / regress: a check was refuted (regress: a replayable counterexample)"),
    Outcome("completed", "COMPLETED", EXIT_OK,
            "prove / search / reproduce: every claim ran (refuted paper claims are results)"),
    Outcome("check-error", "CHECK ERROR", EXIT_FINDINGS,
            "prove / search / reproduce: a check crashed"),
    Outcome("still-fails", "STILL FAILS", EXIT_FINDINGS,
            "replay: the counterexample still fails"),
    Outcome("passes-now", "PASSES NOW", EXIT_OK,
            "replay: the counterexample no longer reproduces"),
    Outcome("proved", "PROVED", EXIT_OK,
            "prove MODULE:OBJECT: Z3 verified an alignment proof for the stated scope"),
    Outcome("vacuous", "VACUOUS", EXIT_INCONCLUSIVE,
            "prove MODULE:OBJECT: an alignment was verified but its twin (the claim "
            "tightened below the loss the program attains) was not refuted in the scope: the "
            "proof could not have failed there (the reason is printed); never PROVED"),
    Outcome("refuted", "REFUTED", EXIT_FINDINGS,
            "prove MODULE:OBJECT: an exact counterexample violates the claimed epsilon"),
    Outcome("not-refuted", "NOT REFUTED", EXIT_OK,
            "test: the sampled tests found no violation of the claimed epsilon (not a proof)"),
    Outcome("flagged", "FLAGGED", EXIT_FINDINGS,
            "test: the claimed epsilon is violated on real-number events at the stated "
            "confidence, or the exact check refuted the claimed sensitivity, or the "
            "mechanism crashed on a data set (a replayable counterexample is written)"),
    Outcome("flagged-float", "FLAGGED (float64 only)", EXIT_FLOAT_ONLY,
            "test: only the float64 bit-level events flag (the real-number events do not): "
            "the float implementation leaks, the real-number mechanism may be fine"),
    Outcome("released", "RELEASED", EXIT_OK, "release: a DP value was computed and printed"),
    Outcome("listed", "LISTED", EXIT_OK, "subjects / --list: printed"),
    Outcome("subject-error", "SUBJECT ERROR", EXIT_FINDINGS,
            "subjects: an installed subject failed to load (listed)"),
    Outcome("bad-input", "ERROR", EXIT_BAD_INPUT,
            "bad input or usage: one line naming the flag or value; nothing written"),
    Outcome("internal-error", "INTERNAL ERROR", EXIT_INTERNAL,
            "a bug in dpaudit: one line on stderr (DPAUDIT_TRACEBACK=1 shows the traceback)"),
    Outcome("interrupted", "INTERRUPTED", EXIT_INTERRUPTED,
            "SIGINT (Ctrl-C) or SIGTERM: one line on stderr; the last report written is "
            "complete JSON marked unfinished"),
)}

#: every exit code a dpaudit command can return
EXIT_CODES = frozenset(o.code for o in OUTCOMES.values())


def outcome(key: str) -> Outcome:
    """The row of :data:`OUTCOMES` for ``key`` (a KeyError is a programming error)."""
    return OUTCOMES[key]


def outcome_table() -> str:
    """The outcome table as fixed-width text (for ``--help`` epilogs and the README)."""
    return "\n".join(f"  {o.code:>3}  {o.word:<14} {o.meaning}" for o in OUTCOMES.values())
