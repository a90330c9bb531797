"""The library's own facts (relation, fixed size, bounds) and the rounding-aware neighbours
built at the library's size and from the user's data (audit/privacy/user_mechanism.py
library_facts, audit/privacy/neighbour_search.py constant / data_pairs, the exact check at
a fixed size).

Truths: hand-worked float sums (a left-to-right float64 sum over n records of
``v = 1 + 2^-52`` rounds each addition of the last record's ulp away; an exact sum of the
same records never exceeds U - L); an independent positional neighbour oracle; OpenDP's own
sized domain and metric.  Everything is deterministic (no sampling): no error rates apply,
and each check runs against a twin that must come out the other way.  The OpenDP 0.4.0
case needs that release on ``DPAUDIT_OPENDP040`` (a folder it was pip-installed into with
``--target``); without it the test is skipped with that reason.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from audit.cli import main
from audit.privacy.neighbour_search import (
    SearchSpace,
    data_pairs,
    neighbour_search,
    rounding_values,
)
from audit.privacy.sensitivity_check import check_sensitivity
from audit.privacy.user_mechanism import library_facts
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE
from kernels.errors import InvalidParameterError
from tests.common.neighbour_oracle import positional_neighbours

ROOT = Path(__file__).resolve().parents[2]


def naive_sum(xs):
    s = 0.0
    for x in np.asarray(xs, dtype=np.float64).tolist():
        s += x
    return s


def exact_sum(xs):
    return sum(map(Fraction, np.asarray(xs, dtype=np.float64).tolist()), Fraction(0))


# ------------------------------------------------------------------ facts and flags
class Stated:
    relation = "add-remove"
    size = 64
    lower, upper = 0.0, 1.0
    epsilon = 1.0

    def __call__(self, data):
        return float(np.sum(data))


def test_facts_fill_missing_flags_and_contradictions_name_both():
    f = library_facts(Stated())
    assert (f.relation, f.size, f.lower, f.upper) == (ADD_REMOVE_ONE, 64, 0.0, 1.0)
    assert set(f.from_library) == {"relation", "size", "lower", "upper"}
    same = library_facts(Stated(), relation="add-remove", size=64, lower=0.0, upper=1.0)
    assert same.from_library == ()
    with pytest.raises(InvalidParameterError, match=r"--relation replace-one contradicts "
                       r"the library: .* under add-remove"):
        library_facts(Stated(), relation="replace-one")
    with pytest.raises(InvalidParameterError, match="--size 32 contradicts .* exactly 64"):
        library_facts(Stated(), size=32)
    with pytest.raises(InvalidParameterError, match="--upper 2 contradicts .* upper bound 1"):
        library_facts(Stated(), upper=2.0)
    # an object stating nothing: replace-one, flags as given
    plain = library_facts(lambda d: 0.0, lower=-1.0, upper=1.0)
    assert (plain.relation, plain.size, plain.from_library) == (REPLACE_ONE, None, ())


def test_cli_contradiction_is_exit_2_and_names_both(tmp_path, capsys):
    mod = tmp_path / "facts_mod_q41.py"
    mod.write_text(textwrap.dedent("""
        import numpy as np
        def mech(data, size, rng):
            return float(np.sum(data)) + rng.laplace(0.0, 1.0, size)
        mech.relation = "add-remove"
        mech.epsilon = 1.0
        mech.lower, mech.upper = 0.0, 1.0
    """), encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        code = main(["test", "facts_mod_q41:mech", "--relation", "replace-one",
                     "--out", str(tmp_path / "o")])
    finally:
        sys.path.remove(str(tmp_path))
    err = capsys.readouterr().err
    assert code == 2
    assert "--relation replace-one contradicts the library" in err and "add-remove" in err
    assert not (tmp_path / "o").exists()


def test_opendp_reads_size_bounds_and_refuses_a_contradicting_size():
    dp = pytest.importorskip("opendp.prelude", reason="opendp not installed: pip install "
                             "'dpaudit[opendp]'")
    from audit.extra.opendp import audit_transformation, measurement_mechanism

    dp.enable_features("contrib")
    dom = dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0)), size=16)
    t = dp.t.make_sum(dom, dp.symmetric_distance())
    m = measurement_mechanism(t >> dp.m.then_laplace(1.0), query=t)
    assert (m.relation, m.size, m.lower, m.upper) == ("replace-one", 16, 0.0, 1.0)
    assert m.sensitivity == t.map(2)
    with pytest.raises(InvalidParameterError, match="--size 8 contradicts the library"):
        measurement_mechanism(t >> dp.m.then_laplace(1.0), size=8)
    with pytest.raises(InvalidParameterError, match="--upper 2 contradicts the library"):
        audit_transformation(t, lower=0.0, upper=2.0)
    _, r = audit_transformation(t)
    assert r.space["size"] == 16 and r.evaluated > 20
    assert all(fam for fam in r.by_family)


def test_check_bisection_claim_for_a_measurement_without_map():
    from audit.extra.opendp import measurement_mechanism

    c = 0.7000000000000001

    class OldMeasurement:  # OpenDP 0.4 shape: check only, no metric, no domain
        def check(self, d_in, d_out):
            return d_out >= c * d_in

        def __call__(self, x):
            return float(sum(x))

    pytest.importorskip("opendp", reason="opendp not installed")
    m = measurement_mechanism(OldMeasurement(), metric="SymmetricDistance", size=8,
                              lower=0.0, upper=1.0)
    assert m.epsilon == 2 * c  # d_in = 2 on a sized domain; the bisection is exact
    assert (m.relation, m.size, m.lower, m.upper) == ("replace-one", 8, 0.0, 1.0)


# ------------------------------------------------------------------ rounding-aware families
@pytest.mark.parametrize("rel", [REPLACE_ONE, ADD_REMOVE_ONE])
def test_constant_family_is_built_at_the_data_size_and_is_neighbours(rel):
    sp = SearchSpace(0.0, 1.0, rel, n_max=100, at_sizes=(100,))
    const = [p for p in neighbour_search(sp, ("constant",))]
    assert const
    sizes = {max(p.first.size, p.second.size) for p in const}
    assert 100 in sizes
    for p in const:
        a, b = p.first.tolist(), p.second.tolist()
        assert positional_neighbours(a, b, rel) and all(0.0 <= x <= 1.0 for x in a + b)
        assert len(set(a)) == 1  # all records of D at one value


def test_rounding_values_make_every_addition_round():
    # n copies of a rounding value: the float sum is off the exact sum by many ulps
    n = 1000
    vals = [v for v in rounding_values(0.0, 1.0, n) if v not in (0.0, 0.5, 1.0)]
    assert vals
    worst = max(abs(Fraction(naive_sum([v] * n)) - n * Fraction(v)) for v in vals)
    assert worst > 100 * Fraction(math.ulp(float(n)))


def test_data_pairs_sort_the_records_and_keep_the_size():
    rng = np.random.default_rng(3)
    xs = rng.uniform(0.0, 1.0, 50)
    sp = SearchSpace(0.0, 1.0, REPLACE_ONE, size=50)
    ps = list(data_pairs(xs, sp))
    assert ps and all(p.first.size == p.second.size == 50 for p in ps)
    assert any(np.array_equal(p.first, np.sort(xs)) for p in ps)
    assert any(np.array_equal(p.first, np.sort(xs)[::-1]) for p in ps)
    for p in ps:
        assert positional_neighbours(p.first.tolist(), p.second.tolist(), REPLACE_ONE)
        assert p.change["from_data"] is True
    with pytest.raises(InvalidParameterError, match="exactly --size 64"):
        list(data_pairs(xs, SearchSpace(0.0, 1.0, REPLACE_ONE, size=64)))


def test_exact_check_at_fixed_size_flags_the_float_sum_and_not_its_exact_twin():
    """A sized float sum at n = 1024 claiming U - L = 1 (OpenDP 0.4's claim) exceeds it;
    the exact sum does not; the finding states the domain respected."""
    from audit.privacy.sensitivity_check import sensitivity_finding

    sp = SearchSpace(0.0, 1.0, REPLACE_ONE, size=1024)
    data = np.random.default_rng(0).uniform(0.0, 1.0, 1024)
    bad = check_sensitivity(naive_sum, 1.0, sp, data=data)
    assert bad.refuted and bad.worst["distance"] > 1.0 and bad.worst["n"] == 1024
    f = sensitivity_finding(bad, name="naive sized sum")
    assert f.evidence["domain"]["fixed_size"] == 1024
    assert "every data set of exactly 1024 records (the library's domain)" in f.scope
    # the figures of the pairs built from the holder's records stay out of the scope
    assert re.search(r"data-order: \d+ pairs \(figures in the evidence\)", f.scope)
    assert "data-order" in f.evidence["by_family"]
    good = check_sensitivity(exact_sum, 1.0, sp, data=data)
    assert not good.refuted and good.evaluated == bad.evaluated
    assert "data-order" in good.by_family


OLD = textwrap.dedent("""
    import json, numpy as np
    np.bool8 = np.bool_
    from opendp.mod import enable_features
    from opendp.trans import make_sized_bounded_sum
    from audit.extra.opendp import audit_transformation
    enable_features("contrib")
    t = make_sized_bounded_sum(1024, (0.0, 1.0))
    f, r = audit_transformation(t, lower=0.0, upper=1.0, metric="SymmetricDistance",
                                size=1024)
    print(json.dumps({"verdict": str(f.verdict), "family": r.worst["family"],
                      "n": r.worst["n"], "distance": r.worst["distance"],
                      "claimed": r.worst["claimed"]}))
""")


def test_opendp_040_sized_sum_exact_check_at_the_library_size():
    """OpenDP 0.4.0 (no map, no input metric or domain): the sized bounded sum at
    n = 1024 is refuted at its own size.  pip install --no-deps --target DIR opendp==0.4.0;
    DPAUDIT_OPENDP040=DIR python -m pytest tests/extra/test_library_facts.py"""
    target = os.environ.get("DPAUDIT_OPENDP040")
    if not target or not (Path(target) / "opendp").is_dir():
        pytest.skip("OpenDP 0.4.0 cannot share this environment: set DPAUDIT_OPENDP040 to "
                    "a folder it was pip-installed into with --target")
    env = {**os.environ, "PYTHONPATH": f"{target}{os.pathsep}{ROOT}"}
    out = subprocess.run([sys.executable, "-c", OLD], capture_output=True, text=True,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert res["verdict"] == "refuted" and res["n"] == 1024
    assert res["distance"] > res["claimed"] == 1.0


def test_an_adapter_error_at_import_is_reported_as_itself(tmp_path):
    """A user module whose adapter call raises dpaudit's own clear error while the module
    is imported (e.g. an OpenDP release whose metric cannot be read) is reported with that
    error, not as 'cannot import module'."""
    from audit.privacy.user_mechanism import MechanismLoadError, load_object

    (tmp_path / "adapter_err_q41.py").write_text(textwrap.dedent("""
        from kernels.errors import InvalidParameterError
        raise InvalidParameterError("this OpenDP release does not expose the input metric: "
                                    "pass metric=")
    """), encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(MechanismLoadError) as info:
            load_object("adapter_err_q41:m")
    finally:
        sys.path.remove(str(tmp_path))
    msg = str(info.value)
    assert "does not expose the input metric: pass metric=" in msg
    assert "cannot import module" not in msg


def test_table_input_checked_against_bounds_and_max_pairs_caps_its_pairs(tmp_path):
    from audit.privacy.tabular import read_table
    from audit.privacy.user_audit import plan_audit

    csv = tmp_path / "t.csv"
    csv.write_text("uid,x\n" + "".join(f"{i},{i / 10}\n" for i in range(10)) + "10,7.5\n",
                   encoding="utf-8")
    table = read_table(str(csv), ["uid", "x"])

    def mech(rows, size, rng):
        return float(np.sum(np.asarray(rows)[:, 1])) + rng.laplace(0.0, 1.0, size)

    with pytest.raises(InvalidParameterError, match=r"1 numeric cell\(s\) outside .* column "
                       r"'x'"):
        plan_audit(mech, epsilon=1.0, table=table, unit="uid", lower=0.0, upper=1.0)
    ok = read_table(str(csv), ["uid", "x"]).with_rows(table.rows[:10])
    full = plan_audit(mech, epsilon=1.0, table=ok, unit="uid", lower=0.0, upper=1.0,
                      max_pairs=1000)
    capped = plan_audit(mech, epsilon=1.0, table=ok, unit="uid", lower=0.0, upper=1.0,
                        max_pairs=3)
    assert len(full.pairs) > 3 and len(capped.pairs) == 3
