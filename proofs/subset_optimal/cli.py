"""``dpaudit certify --subject dick-et-al-subset-optimal``: Algorithm 3 on a CSV column or
the built-in CPS sample, with public R and epsilon (see :mod:`.certify` for the rules)."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass

from audit.argtypes import integer, real
from audit.cli_common import (
    EXIT_INCONCLUSIVE,
    EXIT_NOT_CERTIFIED,
    EXIT_OK,
    progress,
)
from kernels.errors import InputError

_POSITIVE = real(low=0.0, low_open=True)

_HELP = "certify Algorithm 3 (Dick et al. subset-optimal mean) on a data column"
_DESCRIPTION = (
    "Exact privacy loss (add/remove one) of the two Algorithm 2 steps of Algorithm 3 on "
    "neighbours of the data (add -R, R, the median; remove min, max, median).  Verdicts: "
    "CERTIFIED (exit 0, only with --n-public), NOT CERTIFIED (exit 1), bad input (exit 2), "
    "INCONCLUSIVE (exit 3).")


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", nargs="?", default=None, help="CSV file with a header row")
    p.add_argument("--column", default=None, help="column of DATA to use")
    p.add_argument("--sample", default=None,
                   help="built-in sample instead of DATA (default cpssw8_earnings)")
    p.add_argument("--R", dest="R", type=_POSITIVE, default=100.0,
                   help="public range: data must lie in [-R, R] (default 100)")
    p.add_argument("--epsilon", type=_POSITIVE, default=1.0, help="eps of each step (default 1)")
    p.add_argument("--gamma", type=_POSITIVE, default=1.0,
                   help="Algorithm 3's gamma (default 1)")
    p.add_argument("--n-public", type=integer(low=1), default=None,
                   help="public size used for alpha, zeta, beta (a twin; default: |D| as "
                        "printed)")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")


def _run(a: argparse.Namespace) -> int:
    from audit import datasets
    from proofs.subset_optimal.certify import certify_alg3

    # bad input raises InputError (its subclasses DataFileError, UnknownSampleError): the
    # dpaudit command line prints it as one line and exits 2
    if a.data is not None and a.sample is not None:
        raise InputError("give either DATA or --sample, not both")
    if a.data is None and a.column is not None:
        raise InputError("--column needs a data file (DATA)")
    if a.data is not None:
        x = datasets.load_csv_column(a.data, a.column)
        src = f"{a.data}:{a.column or '(single column)'}"
    else:
        x = datasets.load_sample(a.sample or datasets.DEFAULT_SAMPLE)
        src = f"built-in sample {a.sample or datasets.DEFAULT_SAMPLE}"
    if x.size == 0:
        raise InputError("the data column is empty")
    outside = int(((x < -a.R) | (x > a.R)).sum())
    if outside:
        raise InputError(f"{outside:,} record(s) lie outside [-R, R] with --R {a.R:g}; raise "
                         "--R (certify audits the data as given)")
    progress(f"certify Algorithm 3 on {src} (n = {x.size}), R = {a.R}, eps = {a.epsilon}")
    res = certify_alg3(x, a.R, a.epsilon, a.gamma, a.n_public)
    if a.json:
        print(json.dumps(res, indent=2, default=float))
    else:
        print(f"data: {src}, n = {res['n']}, relation: add/remove one")
        for r in res["neighbours"]:
            print(f"  {r['op']:6s} {r['value']:>10g}: l-hat step loss {r['l_hat_loss']:.6g}, "
                  f"u-hat step loss {r['u_hat_loss']:.6g} (claimed <= {a.epsilon:g} each)")
        print(f"worst step loss {res['worst_step_loss']:.6g}; printed accounting 3 x eps = "
              f"{res['claimed_total']:g}")
        print(res["verdict"])
    return {"CERTIFIED": EXIT_OK, "NOT CERTIFIED": EXIT_NOT_CERTIFIED}.get(res["verdict"],
                                                                           EXIT_INCONCLUSIVE)


@dataclass(frozen=True)
class _Command:
    help: str
    description: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        _arguments(parser)

    def run(self, args: argparse.Namespace) -> int:
        return _run(args)


CERTIFY = _Command(_HELP, _DESCRIPTION)
