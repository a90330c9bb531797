"""`dpaudit test --data TABLE --columns ... --unit ... --form ...`: mechanisms on tables.

Truths by construction:
* a count of rows + Laplace(1/eps) is eps-DP under add/remove of one row (sensitivity 1;
  Dwork et al. 2006) but not under add/remove of one *unit* that owns 3 rows (sensitivity
  3: true epsilon 3 eps) — the unit relation must flag it, the row relation must not;
* a histogram keyed by category with Laplace noise per bin is eps-DP under add/remove of
  one row (each row moves one bin by 1) — categorical outputs are outputs like any other;
  the same histogram with a tenth of the noise is flagged (the broken twin);
* bad flags exit 2 with the flag named and nothing written.
Runs are seeded (seed 0, deterministic); a correct mechanism is flagged with probability
<= 0.1 per run (the tester's confidence), the broken twins are 3x and 10x above the claim.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from audit.cli import main

MOD = __name__
FAST = ["--max-samples", "4000", "--n-select", "4000", "--first-batch", "2000",
        "--no-float-bits", "--no-progress", "--epsilon", "1"]


def row_count(table, size, rng):
    return float(len(table)) + rng.laplace(0.0, 1.0, size)


CITIES = ("Oslo", "Paris", "Rome")  # public categories: every key is always released


def city_histogram(table, rng):
    counts = dict.fromkeys(CITIES, 0.0)
    for r in table:  # records form: one dict per row
        counts[r["city"]] += 1.0
    return {c: v + rng.laplace(0.0, 1.0) for c, v in counts.items()}


def city_histogram_leaky(table, rng):
    counts = dict.fromkeys(CITIES, 0.0)
    for r in table:
        counts[r["city"]] += 1.0
    return {c: v + rng.laplace(0.0, 0.1) for c, v in counts.items()}


def mean_income_df(df, size, rng):  # the DataFrame form
    return float(df["income"].clip(0, 100).sum()) + rng.laplace(0.0, 100.0, size)


@pytest.fixture
def table(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("user_id,city,income\n"
                 "u1,Paris,10\nu1,Paris,20\nu1,Oslo,30\nu2,Oslo,40\nu3,Rome,50\n")
    return p


def _run(table, tmp_path, obj, *flags):
    out = tmp_path / "rep"
    code = main(["test", f"{MOD}:{obj}", "--data", str(table), "--relation", "add-remove",
                 *FAST, "--out", str(out), *flags])
    reps = list(out.rglob("report.json"))
    return code, (json.loads(reps[0].read_text()) if reps else None), out


def _verdict(rep, fid):
    return next(f["verdict"] for f in rep["findings"] if f["id"] == fid)


def test_rows_vs_privacy_units(table, tmp_path):
    code, rep, out = _run(table, tmp_path / "a", "row_count", "--columns", "user_id,income",
                          "--form", "rows")
    assert code == 0 and _verdict(rep, "user.blackbox") == "not-refuted"
    secret = json.loads(next(out.rglob("confidential/report.json")).read_text())
    # the row count is the data holder's: confidential, not public (issue 37)
    assert "row neighbours of a table (5 rows" in secret["parameters"]["confidential"][
        "pairs_source"]
    public = json.loads(next(p for p in out.rglob("report.json")
                             if "confidential" not in p.parts).read_text())
    assert "pairs_source" not in public["parameters"]
    code, rep, out = _run(table, tmp_path / "b", "row_count", "--columns", "user_id,income",
                          "--unit", "user_id", "--form", "rows")
    assert code == 1 and _verdict(rep, "user.blackbox") == "refuted"
    cx = json.loads(next(out.rglob("user.blackbox.json")).read_text())
    assert cx["inputs"]["pair"]["change"]["op"] in ("remove-unit", "add-unit")
    assert cx["inputs"]["table"]["codec"]["columns"] == ["user_id", "income"]
    assert main(["replay", str(next(out.rglob("user.blackbox.json")))]) == 1


def test_categorical_histogram_records_form(table, tmp_path):
    code, rep, _ = _run(table, tmp_path / "a", "city_histogram", "--columns", "city",
                        "--form", "records")
    assert code == 0, rep and rep["findings"]
    code, rep, _ = _run(table, tmp_path / "b", "city_histogram_leaky", "--columns", "city",
                        "--form", "records")
    assert code == 1


def test_dataframe_form(table, tmp_path):
    pytest.importorskip("pandas", reason="pandas not installed: pip install 'dpaudit[test]'")
    code, _, out = _run(table, tmp_path, "mean_income_df", "--columns", "income,city",
                        "--form", "dataframe")
    secret = json.loads(next(out.rglob("confidential/report.json")).read_text())
    assert code == 0 and secret["parameters"]["confidential"]["pairs"] >= 3


@pytest.mark.parametrize("flags, needle", [
    (["--columns", "user_id,nope"], "--columns"),
    (["--columns", "user_id,income", "--unit", "city"], "--unit city"),
    (["--unit", "nope"], "--unit"),
    (["--columns", "a,,b"], "--columns"),
    (["--form", "matrix"], "--form"),
    (["--columns", "income", "--column", "income"], "--column"),
])
def test_bad_flags_exit_2_naming_the_flag(table, tmp_path, capsys, flags, needle):
    out = tmp_path / "rep"
    argv = ["test", f"{MOD}:row_count", "--data", str(table), *FAST, "--out", str(out),
            *flags]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors (choices, types)
        code = exc.code
    assert code == 2
    assert needle in capsys.readouterr().err
    assert not out.exists() or not any(out.rglob("report.json"))


def test_codes_roundtrip_categories():
    from audit.privacy.table_mechanism import TableCodec
    from audit.privacy.tabular import table_from_rows

    t = table_from_rows([["b", 1.5], ["a", 2.0], ["b", 0.0]], ["c", "x"])
    codec = TableCodec.of([t])
    assert codec.categories == (("a", "b"), ())
    codes = codec.encode(t)
    assert np.array_equal(codes, np.array([[1.0, 1.5], [0.0, 2.0], [1.0, 0.0]]))
    assert codec.decode(codes).rows.tolist() == t.rows.tolist()


def count_exact_when_small(table, size, rng):  # no noise below 5 rows: a point mass
    n = float(len(table))
    return np.full(size, n) if n < 5 else n + rng.laplace(0.0, 1.0, size)


def test_point_mass_on_holder_data_keeps_its_value_confidential(table, tmp_path):
    code, rep, out = _run(table, tmp_path, "count_exact_when_small", "--columns",
                          "user_id,income", "--form", "rows")
    assert code == 1
    public = (out / next(out.iterdir()).name / "report.json").read_text()
    # which neighbour gives a point mass is a function of the data: confidential
    # (issue 37); the public report says FLAGGED
    assert "point mass" not in public and '"verdict": "refuted"' in public
    conf = next(p for p in out.rglob("report.json") if "confidential" in p.parts)
    assert "point mass at 4.0: zero noise" in conf.read_text()
