"""The Dask path (audit.distributed) gives the same numbers as the single process:
black-box event counts on a LocalCluster with 2 workers equal the in-process counts integer
for integer, and the partitioned read and sort of a CSV column equals the single-process
sort bit for bit.  (The Gini subject on a cluster: tests/gini/test_distributed.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from audit.distributed import client, count_events, range_partitions  # needs the distributed extra
from audit.privacy.blackbox import Event
from audit.privacy.mechanisms import LaplaceMechanism
from kernels.errors import InvalidParameterError


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


def test_range_partitions_cut_the_sorted_data_in_order() -> None:
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.lognormal(3, 1.2, 4_000), np.zeros(50), np.full(30, 17.25)])
    parts, offs = range_partitions(x, 7)
    assert np.array_equal(np.concatenate(parts), np.sort(x))
    assert offs.tolist() == np.cumsum([0] + [p.size for p in parts[:-1]]).tolist()


def test_bad_cluster_options() -> None:
    with pytest.raises(InvalidParameterError, match="not both"), client("tcp://x:1", 2):
        pass
    # the library names its parameter; the CLI renders it as the flag the user typed
    with pytest.raises(InvalidParameterError, match="^workers must be") as info, \
            client(workers=0):
        pass
    assert info.value.render({"workers": "--workers"}).startswith("--workers must be")


# ------------------------------------------------ partitioned read and sort (issue 16)
def _write(path, header: str, rows: list[str], nl: str = "\n") -> None:
    path.write_bytes((header + nl + nl.join(rows) + nl).encode())


def test_read_sorted_column_equals_the_single_process_sort(cluster, tmp_path) -> None:
    """Blocks of ~4 KB (dozens of seams), 3 value ranges, heavy ties across the cuts, CRLF,
    three columns: the cluster's sorted column is np.sort(load_csv_column) bit for bit, and
    its partitions are that column cut in order."""
    from audit import datasets
    from audit.distributed import read_sorted_column

    rng = np.random.default_rng(11)
    x = np.concatenate([rng.lognormal(3, 1, 3000), np.full(400, 20.0), np.zeros(30)])
    rng.shuffle(x)
    f = tmp_path / "inc.csv"
    _write(f, "id,income,w", [f"{i},{float(v)!r},1" for i, v in enumerate(x)], "\r\n")
    sc = read_sorted_column(f, "income", cluster, parts=3, block_bytes=4096)
    assert sc is not None and sc.blocks > 20
    want = np.sort(datasets.load_csv_column(f, "income"))
    assert sc.x.dtype == np.float64 and np.array_equal(sc.x.view(np.uint64), want.view(np.uint64))
    assert sc.sizes.sum() == x.size and sc.offsets.tolist() == \
        np.concatenate([[0], np.cumsum(sc.sizes)[:-1]]).tolist()
    # the partitions (futures on the cluster), in order, are the sorted data
    assert np.array_equal(np.concatenate(cluster.gather(sc.partitions)), want)


def test_read_sorted_column_leaves_odd_files_to_the_careful_path(cluster, tmp_path) -> None:
    from audit.datasets import DataFileError
    from audit.distributed import read_sorted_column

    odd = tmp_path / "odd.csv"
    _write(odd, "income", ["1.5", "2", "", "3"])  # a blank line inside: not plain
    assert read_sorted_column(odd, None, cluster, block_bytes=4) is None
    quoted = tmp_path / "q.csv"
    _write(quoted, "income", ["1", '"2"'])
    assert read_sorted_column(quoted, None, cluster) is None
    with pytest.raises(DataFileError, match="no column named 'wage'"):
        read_sorted_column(quoted, "wage", cluster)


def test_read_sorted_column_cuts_inside_a_last_line_without_line_end(cluster, tmp_path) -> None:
    """A tentative block cut that falls inside the last line of a file without a final line
    end still reads on the cluster (no needless fall-back), with every value."""
    from audit.datasets import line_cuts
    from audit.distributed import read_sorted_column

    body = "\n".join(str(v) for v in range(1, 40)) + "\n123456789012"
    f = tmp_path / "noeol.csv"
    f.write_text("income\n" + body, encoding="utf-8")
    start = len("income\n")
    block = len(body) - 5  # the first tentative cut lands in "123456789012"
    assert line_cuts(f, start, start + len(body), block) == [start, start + len(body)]
    sc = read_sorted_column(f, None, cluster, block_bytes=block)
    assert sc is not None
    assert sc.x.tolist() == sorted([float(v) for v in range(1, 40)] + [123456789012.0])
