"""The Dask path gives the same numbers as the single process (issue 16): black-box event
counts on a LocalCluster with 2 workers equal the in-process counts integer for integer, and
the exact Gini from value-range partitions equals the reference on the whole data."""

from __future__ import annotations

import numpy as np
import pytest

from audit.distributed import client, count_events, range_partitions  # needs the distributed extra
from audit.privacy.blackbox import Event
from audit.privacy.mechanisms import LaplaceMechanism
from kernels.errors import InvalidParameterError
from proofs.gini import reference
from proofs.gini.distributed import gini_eq2_partitioned
from proofs.gini.mechanisms import GiniRelease


@pytest.fixture(scope="module")
def cluster():
    with client(workers=2) as c:
        yield c


def test_counts_equal_single_process(cluster) -> None:
    events = [Event("gt", a=0.5), Event("lt", a=-1.0), Event("in", a=0.0, b=0.25)]
    masks = [e.mask for e in events]
    mech = LaplaceMechanism(0.5)
    data = np.array([0.0, 1.0])
    local = count_events(mech.sample, data, masks, 250_000, entropy=1234, chunk=40_000)
    dist = count_events(mech.sample, data, masks, 250_000, entropy=1234, chunk=40_000,
                        dask_client=cluster)
    assert local.tolist() == dist.tolist()
    # and the counts are the mechanism's law, not an artefact: P(Lap(2) + 1 > 0.5) = 1 - e^{-1/4}/2
    assert abs(local[0] / 250_000 - (1 - 0.5 * np.exp(-0.25))) < 5 * np.sqrt(0.25 / 250_000)
    other = count_events(mech.sample, data, masks, 250_000, entropy=99, chunk=40_000)
    assert other.tolist() != local.tolist()  # a different seed draws different outputs


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


def test_bad_cluster_options() -> None:
    with pytest.raises(InvalidParameterError, match="not both"), client("tcp://x:1", 2):
        pass
    with pytest.raises(InvalidParameterError, match="--workers"), client(workers=0):
        pass
