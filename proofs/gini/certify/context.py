"""The context a ``dpaudit certify`` run of the Gini release hands to its links
(:mod:`proofs.gini.certify.chain`, :mod:`proofs.gini.certify.links`): the configuration, the
validated data, its keyed fingerprint, the exact reference values computed once per run, and
how a counterexample refers to the data (source + keyed fingerprint, never the records or a
plain hash) and reloads it (:func:`reload_data`).

Both link modules import this one; neither imports the other.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from audit import fingerprint as fp
from audit.findings import Finding
from kernels.errors import InvalidParameterError
from kernels.gini.release import CONSTANT_CHOICES, NoiseConstants, noise_constants
from kernels.gini.sensitivity import BOUNDS, SmoothSensitivity, smooth_sensitivity
from kernels.gini.validate import as_incomes, check_gamma
from kernels.validate import check_epsilon
from proofs.gini import reference

__all__ = [
    "PUBLIC_SUBJECT",
    "REF",
    "RTOL",
    "CertifyConfig",
    "CertifyContext",
    "CertifyResult",
    "Progress",
    "data_ref",
    "gini_exact",
    "reload_data",
    "run_fingerprint",
    "smooth_exact",
    "validate",
]

REF = "Lan & Reiter 2025"
#: relative tolerance of kernel vs exact reference on the data
RTOL = 1e-9
#: the subject every finding names in the public report (the data are confidential)
PUBLIC_SUBJECT = "data:confidential"

Progress = Callable[[str], None]


@dataclass(frozen=True)
class CertifyConfig:
    """Everything ``certify`` needs.  ``data`` is validated by :func:`certify`."""

    data: np.ndarray
    source: dict[str, Any]  # how to reload the data: {"sample": name} or {"file": path, ...}
    lower: float
    upper: float
    epsilon: float
    gamma: float = 2.0
    constants: str = "alg3"
    bound: str = "thm43"
    seed: int = 0
    quick: bool = False
    show_confidential: bool = False
    snap: bool = True  # audit the snapped release (kernels.gini.release.snap), as released
    #: the release function under audit (default kernels.gini.release.release_gini, what
    #: ``dpaudit release`` runs); a third party's callable with the same signature + ``size``
    release: Any = None
    #: past one process (issue 16): a LocalCluster of this many workers, or the address of a
    #: running Dask scheduler (exclusive); the black-box certification counts and the exact
    #: Gini run there, with the same figures as the single-process default (None, None)
    workers: int | None = None
    scheduler: str | None = None
    #: the data holder's fingerprint key (:mod:`audit.fingerprint`); None: no fingerprint
    #: (its counterexamples then cannot be replayed)
    key: bytes | None = field(default=None, repr=False)
    #: where the key is kept (:func:`audit.fingerprint.key_reference`), for counterexamples
    key_ref: dict[str, str] | None = None
    #: the reader's record of the holder's file (:func:`audit.datasets.read_csv_column`;
    #: None: a built-in sample, a caller's array or a read on the cluster): kept in the
    #: confidential report and checked against the data certified (audit.reader_record)
    reader: dict[str, Any] | None = None


@dataclass
class CertifyResult:
    """Findings and figures so far; ``certification`` is None until every link has run."""

    findings: list[Finding]
    figures: list[dict[str, Any]]
    certification: dict[str, Any] | None
    parameters: dict[str, Any]
    subject: str


@dataclass
class CertifyContext:
    cfg: CertifyConfig
    xs: np.ndarray  # sorted, validated
    fingerprint: str | None  # keyed (audit.fingerprint), confidential; None: no key given
    subject: str
    rng: np.random.Generator
    figures: list[dict[str, Any]] = field(default_factory=list)
    shared: dict[str, Any] = field(default_factory=dict)  # results one link hands to the next

    @property
    def n(self) -> int:
        return int(self.xs.size)

    @functools.cached_property
    def constants(self) -> NoiseConstants:
        """(alpha, beta) of the configured rule (validated by :func:`_validate`)."""
        cfg = self.cfg
        return noise_constants(cfg.epsilon, cfg.gamma, cfg.constants)  # type: ignore[arg-type]

    @functools.cached_property
    def smooth(self) -> SmoothSensitivity:
        """The kernel's beta-smooth sensitivity of this data (computed once)."""
        cfg = self.cfg
        return smooth_sensitivity(self.xs, cfg.lower, cfg.upper, self.constants.beta,
                                  bound=cfg.bound)  # type: ignore[arg-type]

    @property
    def noise_scale(self) -> float:
        """S(X)/alpha, the release's noise scale on this data (confidential)."""
        return self.smooth.value / self.constants.alpha

def validate(cfg: CertifyConfig) -> np.ndarray:
    xs, _, _ = as_incomes(cfg.data, cfg.lower, cfg.upper, name="data", copy=False)
    check_epsilon(cfg.epsilon)
    check_gamma(cfg.gamma)
    if cfg.constants not in CONSTANT_CHOICES:
        raise InvalidParameterError(
            f"constants must be one of {CONSTANT_CHOICES}, got {cfg.constants!r}"
        )
    if cfg.bound not in BOUNDS:
        raise InvalidParameterError(f"bound must be one of {BOUNDS}, got {cfg.bound!r}")
    if isinstance(cfg.seed, bool) or not isinstance(cfg.seed, int) or cfg.seed < 0:
        raise InvalidParameterError(f"seed must be a non-negative int, got {cfg.seed!r}")
    if cfg.workers is not None and cfg.scheduler is not None:
        raise InvalidParameterError("give either --scheduler or --workers, not both")
    if cfg.workers is not None and (isinstance(cfg.workers, bool)
                                    or not isinstance(cfg.workers, int) or cfg.workers < 1):
        raise InvalidParameterError(f"--workers must be an integer >= 1, got {cfg.workers!r}")
    if cfg.scheduler is not None and (not isinstance(cfg.scheduler, str)
                                      or not cfg.scheduler.strip()):
        raise InvalidParameterError(
            f"--scheduler must be an address such as tcp://host:8786, got {cfg.scheduler!r}")
    return xs


def gini_exact(ctx: CertifyContext) -> Fraction:
    """Eq. (2) of the data exactly (Fraction), once per run: partitioned on the Dask cluster
    when there is one (:func:`proofs.gini.distributed.gini_eq2_partitioned`, the same
    Fraction), else with the smooth sensitivity in one exact pass (:func:`both_exact`)."""
    if "gini_exact" not in ctx.shared:
        c = ctx.shared.get("dask_client")
        if c is not None and ctx.shared.get("dask_partitions") is not None:
            from proofs.gini.distributed import gini_eq2_from_partitions

            ctx.shared["gini_exact"] = gini_eq2_from_partitions(ctx.shared["dask_partitions"],
                                                                c)
        elif c is not None:
            from proofs.gini.distributed import gini_eq2_partitioned

            parts = max(2, 2 * len(c.scheduler_info().get("workers", {})) or 2)
            ctx.shared["gini_exact"] = gini_eq2_partitioned(ctx.xs, parts, dask_client=c)
        else:
            both_exact(ctx)
    return ctx.shared["gini_exact"]


def both_exact(ctx: CertifyContext) -> None:
    """Exact g(X) and S(X) of the configured bound from one exact pass over the records
    (:func:`proofs.gini.reference.gini_and_smooth`), cached for the run."""
    cfg = ctx.cfg
    g, ss = reference.gini_and_smooth(ctx.xs, cfg.lower, cfg.upper, ctx.constants.beta,
                                      bound=cfg.bound)  # type: ignore[arg-type]
    known = ctx.shared.setdefault("gini_exact", g)
    if known != g:  # the cluster's partitions combined to another Gini: not these data
        raise RuntimeError("the exact Gini combined from the Dask partitions differs from "
                           "this process's exact Gini of the same data (partitions stale?)")
    ctx.shared["smooth_exact"] = ss


def smooth_exact(ctx: CertifyContext) -> Any:
    """The exact reference smooth sensitivity of the configured bound, once per run."""
    if "smooth_exact" not in ctx.shared:
        both_exact(ctx)
    return ctx.shared["smooth_exact"]


# --------------------------------------------------------------------------- the links


def run_fingerprint(cfg: CertifyConfig, xs: np.ndarray) -> str | None:
    """The keyed fingerprint of the data (None when the run was given no key: a library
    call; its counterexamples then cannot be replayed, and nothing stands in for the key)."""
    return fp.data_fingerprint(cfg.key, xs) if cfg.key is not None else None


def data_ref(ctx: CertifyContext) -> dict[str, Any]:
    """How a counterexample refers to the data: its source and keyed fingerprint (with
    where the key is kept), never its records or a plain hash."""
    return {"source": ctx.cfg.source,
            "fingerprint": {"value": ctx.fingerprint or fp.UNKEYED,
                            **(ctx.cfg.key_ref or {})}}


def reload_data(inp: dict) -> np.ndarray:
    """The data a certify counterexample refers to (``inp["source"]``: a built-in sample or
    a CSV file and column), sorted, checked against its keyed fingerprint
    (``inp["fingerprint"]``: value and ``key_file``, resolved by ``dpaudit replay``)."""
    from audit import datasets

    src = inp["source"]
    if "sample" in src:
        x = datasets.load_sample(src["sample"])
    else:
        x = datasets.load_csv_column(src["file"], src.get("column"))
    xs = np.sort(np.asarray(x, dtype=np.float64))
    fp.check_reference(inp.get("fingerprint"), xs)
    return xs
