"""``dpaudit certify --subject toy-sums DATA --lower L --upper U --epsilon E``: the toy
chain (:mod:`.certify`) on a CSV column.  Command module: writes the public report
(report.json / .md / .html) and the confidential one (``confidential/``) through the
engine's report lifecycle, and prints the public summary only."""

from __future__ import annotations

import argparse
import dataclasses
from datetime import UTC, datetime

from audit import datasets, fingerprint
from audit.cli.argtypes import real
from audit.cli.argtypes import run_id as run_id_type
from audit.cli.command import FunctionCommand
from audit.cli.folders import report_dir
from audit.cli.outcomes import outcome
from audit.cli.progress import progress
from audit.cli.run import finish, start_report, write
from audit.report import build_report, public_view, render_summary_table

from .certify import PUBLIC_SUBJECT, ToyConfig, certify_sum, validate

_POSITIVE = real(low=0.0, low_open=True)


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", help="CSV file with a header row")
    p.add_argument("--column", default=None, help="column of DATA to use")
    p.add_argument("--lower", type=real(), default=0.0, help="public lower bound")
    p.add_argument("--upper", type=real(), default=1.0, help="public upper bound")
    p.add_argument("--epsilon", type=_POSITIVE, default=1.0, help="claimed epsilon")
    p.add_argument("--laplace-scale", action="store_true",
                   help="the broken twin: the Laplace scale (U - L)/eps")
    p.add_argument("--out", default="reports", help="report folder root")
    p.add_argument("--run-id", type=run_id_type, default="certify-toy",
                   help="report folder name inside --out")
    fingerprint.add_key_argument(p)


def _run(a: argparse.Namespace) -> int:
    out_dir = report_dir(a.out, a.run_id)
    x = datasets.load_csv_column(a.data, a.column)
    src = datasets.file_reference(a.data, a.column, out_dir / "confidential")
    cfg = ToyConfig(x, src, a.lower, a.upper, a.epsilon, a.laplace_scale)
    validate(cfg)  # bad input ends here: nothing written yet
    key, key_ref = fingerprint.holder_key(a.key_file, out_dir)
    cfg = dataclasses.replace(cfg, key=key, key_ref=key_ref,
                              source=fingerprint.keyed_source(cfg.source, key))
    started = datetime.now(UTC).isoformat(timespec="seconds")
    conf = {"confidential_data": True, "show_confidential": False}
    params = {"lower": a.lower, "upper": a.upper, "epsilon": a.epsilon,
              "laplace_scale": a.laplace_scale, "relation": "replace-one",
              "confidential": {"source": cfg.source}}
    out_dir = start_report(a.out, a.run_id, "certify", PUBLIC_SUBJECT, None,
                           {**params, "status": "started"}, started, **conf)

    def partial(findings: list) -> None:
        write(out_dir, build_report("certify", PUBLIC_SUBJECT, None, findings, params,
                                    started, False, **conf))

    findings, cert = certify_sum(cfg, progress=progress, on_finding=partial)

    def final(oc: dict | None) -> dict:
        return build_report("certify", PUBLIC_SUBJECT, None, findings, params, started, True,
                            certification=cert.to_dict(), outcome=oc, **conf)

    rep, code = finish(out_dir, final, cert.outcome_key)
    print(render_summary_table(public_view(rep)))
    print(f"\nVERDICT: {outcome(cert.outcome_key).word}")
    return code


CERTIFY = FunctionCommand(
    "certify the toy noisy sum on a data column",
    "Exact privacy loss of the toy noisy sum (secant noise) on a CSV column.",
    _arguments, _run)
