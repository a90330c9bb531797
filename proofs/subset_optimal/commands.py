"""``dpaudit certify --subject dick-et-al-subset-optimal``: Algorithm 3 on a CSV column or
the built-in CPS sample, with public R and epsilon (see :mod:`.certify` for the chain and the
verdict rules).  Command module: it prints and writes the report (public report in the
report folder, the confidential one in ``confidential/``) through :mod:`audit.report`."""

from __future__ import annotations

import argparse
import dataclasses
from datetime import UTC, datetime

from audit import fingerprint
from audit.cli.argtypes import epsilon as epsilon_type
from audit.cli.argtypes import integer, real
from audit.cli.argtypes import run_id as run_id_type
from audit.cli.command import FunctionCommand
from audit.cli.progress import link_progress, progress
from kernels.errors import InputError

_POSITIVE = real(low=0.0, low_open=True)

_HELP = "certify Algorithm 3 (Dick et al. subset-optimal mean) on a data column"
_DESCRIPTION = (
    "Exact privacy loss (add/remove one) of the two Algorithm 2 steps of Algorithm 3 on "
    "neighbours of the data (add -R, R, the median; remove min, max, median).  Writes a "
    "public report (report.json, .md, .html) and a confidential one (confidential/, kept by "
    "the data holder, with replayable counterexamples).  Verdicts: CERTIFIED (exit 0, only "
    "with --n-public), NOT CERTIFIED (exit 1), bad input (exit 2), INCONCLUSIVE (exit 3).")


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", nargs="?", default=None, help="CSV file with a header row")
    p.add_argument("--column", default=None, help="column of DATA to use")
    p.add_argument("--sample", default=None,
                   help="built-in sample instead of DATA (default cpssw8_earnings)")
    p.add_argument("--R", dest="R", type=_POSITIVE, default=100.0,
                   help="public range: data must lie in [-R, R] (default 100)")
    p.add_argument("--epsilon", type=epsilon_type, default=1.0,
                   help="eps of each step, in (0, 100] (default 1)")
    p.add_argument("--gamma", type=_POSITIVE, default=1.0,
                   help="Algorithm 3's gamma (default 1)")
    p.add_argument("--n-public", type=integer(low=1), default=None,
                   help="public size used for alpha, zeta, beta (a twin; default: |D| as "
                        "printed)")
    p.add_argument("--show-confidential", action="store_true",
                   help="do not strip the public report (it then carries values computed "
                   "from the data: NOT shareable)")
    p.add_argument("--out", default="reports", help="report folder root (default reports)")
    p.add_argument("--run-id", type=run_id_type, default=None,
                   help="report folder name inside --out")
    fingerprint.add_key_argument(p)


def _run(a: argparse.Namespace) -> int:
    from audit import datasets
    from audit.cli.folders import report_dir
    from audit.cli.run import finish_certification, start_report, write
    from audit.report import build_report
    from proofs.subset_optimal import NAME
    from proofs.subset_optimal.certify import (
        PUBLIC_SUBJECT,
        SubsetCertifyConfig,
        certify_alg3,
        public_parameters,
        validate,
    )

    # bad input raises InputError: the dpaudit command line prints one line and exits 2
    if a.data is not None and a.sample is not None:
        raise InputError("give either DATA or --sample, not both")
    if a.data is None and a.column is not None:
        raise InputError("--column needs a data file (DATA)")
    run_id = a.run_id or f"certify-{NAME}"
    out_dir = report_dir(a.out, run_id)  # --out / --run-id checked before anything is read
    record = None  # the reader's record (confidential; checked in subset.input)
    if a.data is not None:
        x, record = datasets.read_csv_column(a.data, a.column)
        src = datasets.file_reference(a.data, a.column, out_dir / "confidential")
    else:
        name = a.sample or datasets.DEFAULT_SAMPLE
        x = datasets.load_sample(name)
        src = {"sample": name}
    cfg = SubsetCertifyConfig(x, src, a.R, a.epsilon, a.gamma, a.n_public, reader=record)
    validate(cfg)  # bad input ends here: nothing written yet
    key, key_ref = fingerprint.holder_key(a.key_file, out_dir)
    cfg = dataclasses.replace(cfg, key=key, key_ref=key_ref,
                              source=fingerprint.keyed_source(cfg.source, key))
    started = datetime.now(UTC).isoformat(timespec="seconds")
    conf = {"confidential_data": True, "show_confidential": a.show_confidential,
            "public_verdict_only": bool(getattr(a, "public_verdict_only", False))}
    params = public_parameters(cfg)
    out_dir = start_report(a.out, run_id, "certify", PUBLIC_SUBJECT, None,
                           {**params, "status": "started"}, started, **conf)
    progress(f"certify Algorithm 3, R = {a.R:g}, eps = {a.epsilon:g} per step, "
             f"gamma = {a.gamma:g}" + (f", n_public = {a.n_public}" if a.n_public else ""))

    def partial(findings: list) -> None:
        write(out_dir, build_report("certify", PUBLIC_SUBJECT, None, findings, params,
                                    started, False, **conf))

    res = certify_alg3(cfg, progress=link_progress(conf["public_verdict_only"]),
                       on_finding=partial)
    cert = res.certification

    def final(oc: dict | None) -> dict:
        return build_report("certify", res.subject, None, res.findings, res.parameters,
                            started, True, certification=cert, outcome=oc, **conf)

    return finish_certification(out_dir, final, cert)


CERTIFY = FunctionCommand(_HELP, _DESCRIPTION, _arguments, _run)
