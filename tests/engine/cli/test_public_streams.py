"""The public streams of a run on confidential data carry no clock and label what is not
shareable (issue 37): the terminal progress of certify's links shows no elapsed time, a
``dpaudit test --data`` run on a terminal shows no draw counts or rates, Dask's timestamped
log lines are silenced, ``--show-confidential`` output says NOT shareable wherever it names
the report, and ``certify --workers 2`` under a pseudo-terminal gives the same terminal
text on neighbouring data sets (slow).  Each test fails on cebd9d1."""

from __future__ import annotations

import io
import logging
import sys
import time
from pathlib import Path

import pytest

from tests.common.pty_run import pty_run
from tests.common.report_attacks import PLANTED, data, replace, write_csv


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_link_ticker_shows_no_elapsed_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The link's name once, then erased: the same bytes whether it ran 0.1 s or 1.2 s
    (cebd9d1 drew a tqdm bar with '00:00 elapsed' redrawn every half second)."""
    from audit.cli.progress import LinkTicker

    monkeypatch.delenv("DPAUDIT_NO_PROGRESS", raising=False)
    texts = []
    for seconds in (0.1, 1.2):
        term = _Terminal()
        monkeypatch.setattr(sys, "stderr", term)
        t = LinkTicker()
        t.start("[1/9] exact kernel")
        time.sleep(seconds)
        t.stop()
        texts.append(term.getvalue())
    assert texts[0] == texts[1] == "\r[1/9] exact kernel ...\r\x1b[K"


def test_stage_progress_on_confidential_data_is_one_fixed_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On a terminal, ``dpaudit test --data`` progress is one fixed line whatever the
    draws (cebd9d1 drew tqdm bars with the stage's draw counts and draws/s)."""
    from audit.cli.commands.test import StageProgress

    monkeypatch.delenv("DPAUDIT_NO_PROGRESS", raising=False)
    texts = []
    for done in (10, 5000):
        term = _Terminal()
        monkeypatch.setattr(sys, "stderr", term)
        bar = StageProgress(True, confidential=True)
        bar("selection", done, 10_000)
        bar("certification", done, 20_000)
        bar.close()
        texts.append(term.getvalue())
    assert texts[0] == texts[1]
    assert "no progress or times are shown" in texts[0] and "draw" not in texts[0]
    term = _Terminal()  # public data: the bar is still there
    monkeypatch.setattr(sys, "stderr", term)
    bar = StageProgress(True)
    bar("selection", 10, 100)
    bar.close()
    assert "selection" in term.getvalue()


def test_dask_log_lines_are_silenced() -> None:
    """A warning logged by Dask while a local cluster runs (as its nanny does at
    shutdown, with a wall-clock stamp) reaches no handler of Dask's logger (which writes to
    stderr); cebd9d1 left it at INFO: the line was printed.  The loggers' levels are
    restored afterwards."""
    pytest.importorskip("distributed")
    from audit.distributed import client

    dask_logger = logging.getLogger("distributed")
    before = dask_logger.level
    seen = io.StringIO()
    handler = logging.StreamHandler(seen)
    dask_logger.addHandler(handler)
    try:
        with client(workers=1) as c:
            assert c.submit(sum, [1, 2]).result() == 3
            logging.getLogger("distributed.nanny").warning("marker-37 worker still alive")
    finally:
        dask_logger.removeHandler(handler)
    assert "marker-37" not in seen.getvalue()
    assert dask_logger.level == before


def test_show_confidential_is_labelled_not_shareable(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str],
                                                      ) -> None:
    """With --show-confidential the public report's rule, its Markdown and certify's stdout
    say NOT shareable (cebd9d1 printed 'report (public, shareable)' and a rule claiming the
    report holds only public parameters)."""
    from audit.cli.run import finish_certification, start_report
    from audit.report import build_report

    started = "2026-01-01T00:00:00+00:00"
    cert = {"verdict": "CERTIFIED", "scope": "toy", "reasons": []}
    out_dir = start_report(str(tmp_path), "run", "certify", "toy", 0, {}, started,
                           confidential_data=True, show_confidential=True)

    def report(oc: dict) -> dict:
        return build_report("certify", "toy", 0, [], {}, started, True, certification=cert,
                            confidential_data=True, show_confidential=True, outcome=oc)

    finish_certification(out_dir, report, cert)
    out = capsys.readouterr().out
    assert "public, shareable" not in out and "NOT shareable" in out
    md = (out_dir / "report.md").read_text()
    pub = (out_dir / "report.json").read_text()
    for text in (md, pub):
        assert "NOT SHAREABLE" in text
        assert "This public report holds only the public parameters" not in text


@pytest.mark.slow
def test_certify_with_two_workers_on_a_terminal_is_neighbour_invariant(
        tmp_path: Path) -> None:
    """``certify --quick --workers 2`` (a real Dask LocalCluster) under a pseudo-terminal,
    on X and X' (one planted record replaced, same seed): the terminal text is identical
    apart from the report folder (cebd9d1: each link's elapsed time; Dask's warnings when
    its workers shut down late).  About 12 s of CPU per run."""
    pytest.importorskip("distributed")
    x = data(60)
    texts = []
    for k, v in (("X", x), ("X1", replace(x, PLANTED[0], 5.55))):
        csv = write_csv(tmp_path / f"{k}.csv", v)
        text = pty_run(["certify", str(csv), "--lower", "0", "--upper", "100", "--quick",
                        "--workers", "2", "--out", str(tmp_path / k), "--run-id", "run"],
                       tmp_path)
        texts.append(text.replace(str(tmp_path / k), "<OUT>").replace(str(csv), "<CSV>"))
    assert "VERDICT" in texts[0], texts[0][-2000:]
    assert texts[0] == texts[1], (texts[0][-3000:], texts[1][-3000:])


def test_public_verdict_only_strips_a_certification_to_its_verdict() -> None:
    """``certify --public-verdict-only``: the public view keeps the overall verdict, no
    finding, no reason naming a link, no counterexample path; the Markdown shows no count
    per verdict; without the flag the residual names the per-link verdict vector.  (The
    flag is parsed by certify for every subject.)"""
    from audit.cli.app import build_parser
    from audit.findings import Finding, Method, Verdict
    from audit.report import build_report, public_view, render_markdown

    f = Finding(id="certify.link-7", claim="c", reference="r", method=Method.EXACT_LOSS,
                verdict=Verdict.INCONCLUSIVE, scope="s", evidence={}, seed=0)
    cert = {"verdict": "NOT CERTIFIED", "scope": "toy", "reasons": ["certify.link-7 refuted"],
            "counterexample": "counterexamples/certify.link-7.json"}

    def rep(only: bool) -> dict:
        return build_report("certify", "toy", 0, [f], {}, "2026-01-01T00:00:00+00:00", True,
                            certification=cert, confidential_data=True,
                            public_verdict_only=only,
                            outcome={"word": "NOT CERTIFIED", "exit_code": 1})

    full, only = public_view(rep(False)), public_view(rep(True))
    assert "per-link verdict vector" in full["confidentiality"]["residual"]
    assert only["findings"] == [] and set(only["summary"]) == {"pass"}
    assert only["certification"]["reasons"] == []
    assert "counterexample" not in only["certification"]
    assert only["certification"]["verdict"] == "NOT CERTIFIED"
    md = render_markdown(only)
    assert "link-7" not in md and "| inconclusive |" not in md and "NOT CERTIFIED" in md
    args = build_parser(["certify"]).parse_args(["certify", "--public-verdict-only"])
    assert args.public_verdict_only is True


def test_link_progress_hides_verdict_lines_with_public_verdict_only(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A chain's progress says each link's title then its verdicts; with
    --public-verdict-only stderr keeps the titles (the same on every data set) and drops
    the per-link verdicts (they would reveal the vector the public report withholds)."""
    from audit.cli.progress import link_progress

    for only in (False, True):
        say = link_progress(only)
        say("  [1/2] exact kernel ...")
        say("        certify.kernel refuted")
        err = capsys.readouterr().err
        assert "[1/2] exact kernel ..." in err
        assert ("certify.kernel refuted" in err) is not only


def test_a_malformed_cell_is_shown_only_with_show_confidential(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """certify on a file with a name in its numeric column: the error names line and
    column; the cell itself only with --show-confidential, marked NOT shareable (cebd9d1
    echoed it always, unmarked)."""
    from audit.cli import main

    csv = tmp_path / "bad.csv"
    csv.write_text("income\n1\n2\nAlice Smith\n", encoding="utf-8")
    errs = {}
    for extra in ([], ["--show-confidential"]):
        code = main(["certify", str(csv), "--lower", "0", "--upper", "100", "--out",
                     str(tmp_path / "out"), *extra])
        errs[bool(extra)] = capsys.readouterr().err
        assert code == 2 and not (tmp_path / "out").exists()
    assert "line 4" in errs[False] and "'income'" in errs[False]
    assert "Alice" not in errs[False]
    assert "NOT shareable: the cell is 'Alice Smith'" in errs[True]
