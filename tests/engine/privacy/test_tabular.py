"""Tabular data sets (audit/privacy/tabular.py): rows as records, forms, row and
privacy-unit neighbours.

Truths: hand-written files and the rows typed here; the brute-force definition of row
neighbours (same number of rows and exactly one row differs, or one row inserted/removed);
for units, the set of unit ids and the row counts by hand.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from audit.privacy.tabular import read_table, row_pairs, table_from_rows, to_form
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE
from kernels.errors import InvalidParameterError


@pytest.fixture
def csv_file(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("user,age,income,city\nu1,30,100.5,Paris\nu2,41,80,Oslo\nu1,30,7,Paris\n")
    return p


def test_csv_rows_numbers_and_categories(csv_file):
    t = read_table(csv_file)
    assert t.columns == ("user", "age", "income", "city")
    assert t.rows.tolist() == [["u1", 30.0, 100.5, "Paris"], ["u2", 41.0, 80.0, "Oslo"],
                               ["u1", 30.0, 7.0, "Paris"]]
    num = read_table(csv_file, columns=["income", "age"])
    assert to_form(num, "array").tolist() == [[100.5, 30.0], [80.0, 41.0], [7.0, 30.0]]
    s = to_form(t, "structured")
    assert s["income"].tolist() == [100.5, 80.0, 7.0] and s["city"].tolist()[1] == "Oslo"
    assert to_form(t, "records")[1] == {"user": "u2", "age": 41.0, "income": 80.0,
                                        "city": "Oslo"}
    with pytest.raises(InvalidParameterError, match="numeric"):
        to_form(t, "array")


def test_json_objects_and_lists(tmp_path):
    p = tmp_path / "o.json"
    p.write_text(json.dumps([{"x": 1, "y": "a"}, {"x": 2.5, "y": "b"}]))
    assert read_table(p).rows.tolist() == [[1.0, "a"], [2.5, "b"]]
    q = tmp_path / "l.json"
    q.write_text(json.dumps([[1, 2], [3, 4]]))
    assert read_table(q, columns=["a", "b"]).rows.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(InvalidParameterError, match="column names"):
        read_table(q)
    r = tmp_path / "bad.json"
    r.write_text(json.dumps([{"x": 1}, {"y": 2}]))
    with pytest.raises(InvalidParameterError, match="row 2"):
        read_table(r)


def test_ragged_row_is_an_error_naming_it(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text("a,b\n1,2\n3\n")
    with pytest.raises(InvalidParameterError, match="row 2 has 1 cells"):
        read_table(p)


def _one_row_differs(a, b):
    return len(a) == len(b) and sum(x != y for x, y in zip(a, b, strict=True)) == 1


def _one_row_inserted(a, b):
    big, small = (a, b) if len(a) > len(b) else (b, a)
    return len(big) == len(small) + 1 and any(big[:i] + big[i + 1:] == small
                                              for i in range(len(big)))


def test_row_neighbours_by_definition(csv_file):
    t = read_table(csv_file)
    rep = row_pairs(t, REPLACE_ONE, new_rows=[["u9", 99, 0, "Rome"]])
    assert len(rep) == 3
    for p in rep:
        assert _one_row_differs(p.first.rows.tolist(), p.second.rows.tolist())
    ar = row_pairs(t, ADD_REMOVE_ONE, new_rows=[["u9", 99, 0, "Rome"]])
    assert {p.change["op"] for p in ar} == {"remove-row", "add-row"}
    for p in ar:
        assert _one_row_inserted(p.first.rows.tolist(), p.second.rows.tolist())
    with pytest.raises(InvalidParameterError, match="4 cells"):
        row_pairs(t, REPLACE_ONE, new_rows=[[1, 2]])


def test_privacy_unit_neighbours(csv_file):
    t = read_table(csv_file)
    ar = row_pairs(t, ADD_REMOVE_ONE, unit="user")
    removed = {p.change["unit"]: len(p.first) - len(p.second) for p in ar}
    assert removed == {"u1": 2, "u2": 1}  # u1 owns two rows: both leave together
    for p in ar:
        assert p.change["unit"] not in p.second.column("user").tolist()
    rep = row_pairs(t, REPLACE_ONE, unit="user")
    assert {(p.change["unit"], p.change["template"]) for p in rep} == {("u1", "u2"),
                                                                       ("u2", "u1")}


def test_dataframe_form_when_pandas_installed():
    pytest.importorskip("pandas", reason="pandas not installed")
    t = table_from_rows([[1, "a"], [2, "b"]], ["x", "y"])
    df = to_form(t, "dataframe")
    assert list(df.columns) == ["x", "y"] and df["x"].tolist() == [1.0, 2.0]
    assert read_table(df).rows.tolist() == t.rows.tolist()


def test_array_rows_compare_as_records():
    t = table_from_rows([[0.0, 1.0], [1.0, 0.0]], ["a", "b"])
    p = row_pairs(t, REPLACE_ONE, new_rows=[[1.0, 1.0]], positions=[0])[0]
    a, b = to_form(p.first, "array"), to_form(p.second, "array")
    assert np.array_equal(b, np.array([[1.0, 1.0], [1.0, 0.0]]))
    assert a.shape == (2, 2)
