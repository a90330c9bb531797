"""The Gini subject on a Dask cluster (audit.distributed): the release's black-box counts
on a LocalCluster with 2 workers equal the in-process counts integer for integer, the exact
Gini from value-range partitions equals the reference on the whole data, ``dpaudit certify
--workers 2`` writes what the single process writes, and partitions of other data are
caught."""

from __future__ import annotations

import json

import numpy as np
import pytest

from audit.distributed import client, count_events, range_partitions  # needs the distributed extra
from audit.privacy.blackbox import Event
from proofs.gini import reference
from proofs.gini.distributed import gini_eq2_partitioned
from proofs.gini.mechanisms import GiniRelease


@pytest.fixture(scope="module")
def cluster():
    with client(workers=2) as c:
        yield c


def _write(path, header: str, rows: list[str], nl: str = "\n") -> None:
    path.write_bytes((header + nl + nl.join(rows) + nl).encode())


def test_gini_release_counts_on_cluster(cluster) -> None:
    mech = GiniRelease(1.0, 2.0, 1.0)
    x = np.array([1.0, 1.0, 2.0, 2.0])
    masks = [Event("gt", a=0.3).mask, Event("lt", a=0.1).mask]
    a = count_events(mech.sample, x, masks, 60_000, entropy=[3, 1], chunk=7_000)
    b = count_events(mech.sample, x, masks, 60_000, entropy=[3, 1], chunk=7_000,
                     dask_client=cluster)
    assert a.tolist() == b.tolist()


def test_partitioned_exact_gini(cluster) -> None:
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.lognormal(3, 1.2, 40_000), np.zeros(50), np.full(30, 17.25)])
    truth = reference.gini_eq2(x)
    assert gini_eq2_partitioned(x, parts=5, dask_client=cluster) == truth
    assert gini_eq2_partitioned(x, parts=1) == truth
    parts, offs = range_partitions(x, 7)
    assert np.array_equal(np.concatenate(parts), np.sort(x))
    assert offs.tolist() == np.cumsum([0] + [p.size for p in parts[:-1]]).tolist()


def test_gini_from_the_clusters_partitions_equals_the_reference(cluster, tmp_path) -> None:
    """A CSV column read and sorted on the cluster (blocks of ~4 KB, ties across the cuts,
    CRLF): its partitions combine to the exact Gini of the reference."""
    from audit.distributed import read_sorted_column
    from proofs.gini.distributed import gini_eq2_from_partitions

    rng = np.random.default_rng(11)
    x = np.concatenate([rng.lognormal(3, 1, 3000), np.full(400, 20.0), np.zeros(30)])
    rng.shuffle(x)
    f = tmp_path / "inc.csv"
    _write(f, "id,income,w", [f"{i},{float(v)!r},1" for i, v in enumerate(x)], "\r\n")
    sc = read_sorted_column(f, "income", cluster, parts=3, block_bytes=4096)
    assert sc is not None
    assert gini_eq2_from_partitions(sc.partitions, cluster) == reference.gini_eq2(x)


def test_certify_cli_on_a_local_cluster_equals_single_process(tmp_path, capsys) -> None:
    """`dpaudit certify FILE --workers 2` (data read and sorted on the cluster, exact Gini
    combined from the partitions, black-box counts there) writes the same verdict, figures
    and findings as the single-process run on the same file and seed."""
    import json

    from audit.cli import main
    from audit.cli.outcomes import EXIT_OK

    x = np.round(np.random.default_rng(3).lognormal(10.0, 1.0, 3000), 2)
    f = tmp_path / "inc.csv"
    _write(f, "income", [f"{v:.2f}" for v in x])
    U = str(float(np.ceil(x.max() * 2.5)))
    reps = []
    for extra, out in (([], "one"), (["--workers", "2"], "two")):
        code = main(["certify", str(f), "--lower", "0", "--upper", U, "--quick", "--seed", "4",
                     "--out", str(tmp_path / out), "--run-id", "r", *extra])
        printed = capsys.readouterr()
        assert code == EXIT_OK, printed.out
        # the cluster run really read and sorted the data there (progress goes to stderr)
        assert ("data read and sorted there" in printed.err) == bool(extra), printed.err
        rep = json.loads((tmp_path / out / "r" / "report.json").read_text())
        reps.append(rep)
    one, two = reps

    def strip(r):
        keep = {k: r[k] for k in ("certification", "figures") if k in r}
        keep["findings"] = [(g["id"], g["verdict"], g.get("evidence")) for g in r["findings"]]
        return json.dumps(keep, sort_keys=True, default=str)

    assert one["certification"]["verdict"] == "CERTIFIED"
    assert strip(one) == strip(two)


def test_partitions_of_other_data_are_caught(cluster, tmp_path) -> None:
    """The Gini combined from the cluster's partitions is checked against this process's
    exact pass: partitions of another data set (one record changed) make the run fail
    loudly (not CERTIFIED, the mismatch named) instead of certifying the wrong Gini."""
    from audit.distributed import read_sorted_column
    from proofs.gini.certify.chain import CertifyConfig, certify

    x = np.round(np.random.default_rng(5).lognormal(10.0, 1.0, 800), 2)
    y = x.copy()
    y[0] += 1.0
    f = tmp_path / "other.csv"
    _write(f, "income", [f"{v:.2f}" for v in y])
    sc = read_sorted_column(f, None, cluster, parts=2)
    U = float(np.ceil(x.max() * 2.5))
    res = certify(CertifyConfig(np.sort(x), {"sample": "t"}, 0.0, U, 1.0, quick=True, seed=1),
                  dask_client=cluster, partitions=sc.partitions)
    assert res.certification["verdict"] != "CERTIFIED"
    # the crash message quotes data-derived values: it is in the findings' confidential part
    assert "partitions" in json.dumps([f.confidential for f in res.findings], default=str)
