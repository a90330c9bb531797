"""Auditing a user's own mechanism: adapters, pairs, findings, the `dpaudit test` command,
replay.

Every statistical run is seeded.  The truths are independent of the tester: the Laplace
mechanism's epsilon is |f(D) - f(D')| / b in closed form (sum query, records in [0, 1], so 1/b
for b the noise scale); neighbour relations are checked by brute-force multiset comparison;
the float64 bit-level leak of numpy's Laplace sum is the one documented (and tested) in
audit/privacy/blackbox.py.  False-alarm rate of one run: <= 10 % by construction (confidence
0.9); the correct-mechanism runs here use fixed seeds.  Power: the half-scale twin (true
epsilon 2 against a claim of 1) is flagged.
"""

from __future__ import annotations

import json
import random
import textwrap
from collections import Counter

import numpy as np
import pytest

from audit import test_mechanism as audit_mechanism
from audit import wrap_mechanism
from audit.cli import main
from audit.findings import Verdict
from audit.privacy.mechanisms import LaplaceMechanism
from audit.privacy.user_audit import (
    CHECK_CRASH,
    CHECK_EVENT,
    generated_pairs,
    pairs_from_data,
    pairs_from_list,
    power_on_event,
)
from audit.privacy.user_mechanism import MechanismLoadError, load_object
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE
from audit.registry import REPLAYERS
from kernels.errors import InputError, InvalidParameterError

MODULE = textwrap.dedent('''
    import random
    import numpy as np

    def noisy_sum(data, size, rng):
        return float(np.sum(data)) + rng.laplace(0.0, 1.0, size)

    def noisy_sum_half(data, size, rng):
        return float(np.sum(data)) + rng.laplace(0.0, 0.5, size)

    def per_call_seed(data, seed):
        return float(np.sum(data)) + np.random.default_rng(seed).laplace(0.0, 1.0)

    def per_call_rng(data, rng):
        return float(np.sum(data)) + rng.laplace(0.0, 1.0)

    def unseeded(data):
        return float(np.sum(data)) + random.gauss(0.0, 1.0)

    def mean_crashes(data, size, rng):
        return float(np.sum(data)) / len(data) + rng.laplace(0.0, 1.0, size)

    class Sampler:
        def sample(self, data, size, rng):
            return float(np.sum(data)) + rng.laplace(0.0, 1.0, size)
''')


@pytest.fixture
def usermod(tmp_path, monkeypatch):
    name = f"usermech_{abs(hash(str(tmp_path))) % 10**8}"
    (tmp_path / f"{name}.py").write_text(MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    return importlib.import_module(name)


# ----------------------------------------------------------------------------- adapters
def test_adapter_shapes_are_read_from_the_signature(usermod):
    cases = {
        "noisy_sum": ("vectorised", "generator", True),
        "per_call_seed": ("per-call", "seed", True),
        "per_call_rng": ("per-call", "generator", True),
        "unseeded": ("per-call", "none", False),
        "Sampler": ("vectorised", "generator", True),
    }
    for attr, (style, rnd, repro) in cases.items():
        m = wrap_mechanism(getattr(usermod, attr), epsilon=1.0)
        assert (m.style, m.randomness, m.reproducible) == (style, rnd, repro), attr
        y = m.sample(np.array([0.0, 1.0]), 7, np.random.default_rng(0))
        assert np.asarray(y).shape == (7,)


def test_seeded_adapters_are_reproducible_and_unseeded_is_not(usermod):
    for attr in ("noisy_sum", "per_call_seed", "per_call_rng"):
        m = wrap_mechanism(getattr(usermod, attr), epsilon=1.0)
        a = m.sample(np.array([1.0]), 50, np.random.default_rng(3))
        b = m.sample(np.array([1.0]), 50, np.random.default_rng(3))
        assert np.array_equal(a, b), attr
    # Python's random, seeded by dpaudit before each batch ("global")
    g = wrap_mechanism(usermod.unseeded, epsilon=1.0, randomness="global")
    assert g.reproducible
    a = g.sample(np.array([1.0]), 20, np.random.default_rng(5))
    random.random()  # disturb the global state in between
    b = g.sample(np.array([1.0]), 20, np.random.default_rng(5))
    assert np.array_equal(a, b)
    n = wrap_mechanism(usermod.unseeded, epsilon=1.0)
    assert not n.reproducible


def test_per_call_outputs_match_the_function_called_by_hand(usermod):
    m = wrap_mechanism(usermod.per_call_seed, epsilon=1.0)
    rng = np.random.default_rng(9)
    got = m.sample(np.array([0.5]), 5, rng)
    seeds = np.random.default_rng(9).integers(0, 2**32, size=5)  # the default seed range
    want = [0.5 + np.random.default_rng(int(s)).laplace(0.0, 1.0) for s in seeds]
    assert np.array_equal(got, np.array(want))


def test_adapter_bad_input(usermod):
    with pytest.raises(InvalidParameterError, match="relation must be 'replace-one' or"):
        wrap_mechanism(usermod.noisy_sum, epsilon=1.0, relation="swap")
    with pytest.raises(InvalidParameterError, match="no claimed epsilon"):
        wrap_mechanism(usermod.noisy_sum)
    with pytest.raises(InvalidParameterError, match="epsilon must be a finite number > 0"):
        wrap_mechanism(usermod.noisy_sum, epsilon=-1)
    with pytest.raises(MechanismLoadError, match="callable or have a sample method"):
        wrap_mechanism(42, epsilon=1.0)
    with pytest.raises(MechanismLoadError, match="MODULE:OBJECT"):
        load_object("no_colon_here")
    with pytest.raises(MechanismLoadError, match="cannot import module 'no_such_mod_xyz'"):
        load_object("no_such_mod_xyz:f")
    with pytest.raises(MechanismLoadError, match="has no attribute 'nope'"):
        load_object(f"{usermod.__name__}:nope")
    assert issubclass(MechanismLoadError, InputError)


# ----------------------------------------------------------------------------- pairs
def _multiset_neighbours(a, b, relation) -> bool:
    ca, cb = Counter(np.asarray(a).tolist()), Counter(np.asarray(b).tolist())
    if relation == REPLACE_ONE:
        return len(a) == len(b) and sum(((ca - cb) + (cb - ca)).values()) == 2
    return abs(len(a) - len(b)) == 1 and sum(((ca - cb) + (cb - ca)).values()) == 1


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_generated_and_data_pairs_are_neighbours(relation):
    rel = REPLACE_ONE if relation == "replace-one" else ADD_REMOVE_ONE
    pairs = generated_pairs(0.0, 1.0, relation, max_pairs=50)
    pairs += pairs_from_data([0.2, 0.4, 0.4, 0.9], 0.0, 1.0, relation, max_pairs=50)
    assert len(pairs) >= 8
    for p in pairs:
        assert p.relation == rel
        assert _multiset_neighbours(p.first, p.second, rel), (p.first, p.second)
        assert np.all((np.asarray(p.second) >= 0) & (np.asarray(p.second) <= 1))


def test_pairs_from_list_checks_the_relation():
    ok = pairs_from_list([[[0, 1], [1, 1]], {"first": [0.5], "second": [0.0]}], "replace-one")
    assert len(ok) == 2
    assert len(pairs_from_list([[[0, 1], [0, 1, 1]]], "add-remove")) == 1
    with pytest.raises(InvalidParameterError, match=r"pairs\[0\] are not neighbours"):
        pairs_from_list([[[0, 1], [0.5, 0.7]]], "replace-one")
    with pytest.raises(InvalidParameterError, match=r"pairs\[0\] are not neighbours"):
        pairs_from_list([[[0, 1], [0, 1, 1, 1]]], "add-remove")
    with pytest.raises(InvalidParameterError, match="NaN or infinity"):
        pairs_from_list([[[0, float("nan")], [0, 1]]], "replace-one")
    with pytest.raises(InvalidParameterError, match="outside"):
        pairs_from_data([0.5, 2.0], 0.0, 1.0, "replace-one")


# ----------------------------------------------------------------------------- power figure
def test_power_figure_shrinks_towards_the_claim_with_n():
    # counts at p = p' = 0.3: the tester cannot tell 1.0 from the claim 1.0; detectable
    # epsilon must exceed the claim and approach it as n grows (the CP margin ~ 1/sqrt(n))
    d = [power_on_event(int(0.3 * n), int(0.3 * n), n, 0.025, 1.0) for n in (10**3, 10**4,
                                                                            10**5, 10**6)]
    assert all(x > 1.0 for x in d)
    assert d == sorted(d, reverse=True)
    assert d[-1] < 1.02 < d[0]
    # hand check at n = 10^6: margin ~ z(0.975..) * sqrt((1-p)/(np)) per side, two sides, plus
    # the sqrt(0.9) quantiles: roughly (1.96 + 1.62) * 2 * sqrt(0.7 / 3e5) ~ 0.011
    assert 0.005 < d[-1] - 1.0 < 0.02


# ----------------------------------------------------------------------------- the run
SMALL = dict(n_select=20_000, n_certify=20_000, first_batch=1_000, max_pairs=4, seed=0)


def test_correct_mechanism_is_not_flagged_and_never_verified(usermod):
    r = audit_mechanism(usermod.noisy_sum, epsilon=1.0, relation="add-remove", lower=0.0,
                        upper=1.0, float_bits=False, **SMALL)
    f = r.findings[0]
    assert r.outcome == "not-flagged" and r.exit_code == 0
    assert f.verdict is not Verdict.VERIFIED and f.verdict is not Verdict.REFUTED
    assert f.evidence["outcome"] == "not-refuted" and "NOT REFUTED" in f.scope
    assert f.evidence["epsilon_lower"] <= 1.0
    assert 1.0 < f.evidence["power"]["detectable_epsilon_on_event"] < 2.0


def test_half_scale_twin_is_flagged_with_a_replayable_counterexample(usermod):
    ref = f"{usermod.__name__}:noisy_sum_half"
    r = audit_mechanism(usermod.noisy_sum_half, epsilon=1.0, relation="add-remove",
                        lower=0.0, upper=1.0, float_bits=False, **SMALL)
    f = r.findings[0]
    assert r.outcome == "flagged" and r.exit_code == 1
    assert f.verdict is Verdict.REFUTED
    # true epsilon is exactly 2 (closed form 1/b, b = 0.5): the bound lies in (1, 2]
    assert 1.0 < f.evidence["epsilon_lower"] <= 2.0
    assert f.evidence["stopped"] == "flagged"
    cx = f.counterexample
    assert cx["check"] == CHECK_EVENT and cx["inputs"]["mechanism"] == ref
    for key in ("pair", "event", "counts", "seed", "rng_state"):
        assert key in cx["inputs"]
    still, _, actual, detail = REPLAYERS[CHECK_EVENT](json.loads(json.dumps(cx["inputs"])))
    assert still and "identical" in detail
    assert actual == pytest.approx(f.evidence["epsilon_lower"], rel=1e-12)


def test_a_crash_is_a_finding_with_its_input_and_the_other_pairs_are_still_tested(usermod):
    r = audit_mechanism(usermod.mean_crashes, epsilon=1.0, relation="add-remove", lower=0.0,
                        upper=1.0, float_bits=False, **{**SMALL, "max_pairs": 12})
    crash = [f for f in r.findings if f.id.startswith("user.crash")]
    assert crash and crash[0].verdict is Verdict.REFUTED
    assert crash[0].evidence["exception"] == "ZeroDivisionError"
    assert crash[0].evidence["dataset"] == []  # the empty data set: a valid neighbour
    assert r.findings[0].evidence["pairs_used"] > 1  # the run went on
    assert r.outcome == "flagged"
    still, *_ = REPLAYERS[CHECK_CRASH](crash[0].counterexample["inputs"])
    assert still


def test_float_bits_find_the_numpy_laplace_leak(usermod):
    # documented in audit/privacy/blackbox.py: f(D) + Lap(b) in float64 puts the outputs of
    # sum 0 and sum 1 on different grids (last mantissa bit): no finite epsilon
    r = audit_mechanism(usermod.noisy_sum, epsilon=1.0, relation="add-remove", lower=0.0,
                        upper=1.0, float_bits=True, **SMALL)
    f = next(f for f in r.findings if f.id == "user.float-bits")
    assert f.verdict is Verdict.REFUTED
    assert f.evidence["event_family"] == "float-grid"


def test_exact_loss_for_a_declared_density():
    ok = audit_mechanism(LaplaceMechanism(1.0), epsilon=1.0, relation="replace-one",
                         lower=0.0, upper=1.0, float_bits=False, **SMALL)
    ex = next(f for f in ok.findings if f.id == "user.exact-loss")
    assert ex.verdict is Verdict.VERIFIED and "assumes the declared density" in ex.scope
    assert ex.evidence["worst"]["epsilon_up"] == pytest.approx(1.0, rel=1e-12)
    bad = audit_mechanism(LaplaceMechanism(1.0, noise_scale_factor=0.5), epsilon=1.0,
                          relation="replace-one", lower=0.0, upper=1.0, float_bits=False,
                          **SMALL)
    ex = next(f for f in bad.findings if f.id == "user.exact-loss")
    assert ex.verdict is Verdict.REFUTED
    assert ex.evidence["worst"]["value_down"] == pytest.approx(2.0, rel=1e-12)  # 1 / 0.5


def test_time_budget_makes_an_undecided_run_inconclusive(usermod):
    r = audit_mechanism(usermod.noisy_sum, epsilon=1.0, relation="add-remove", lower=0.0,
                        upper=1.0, float_bits=False, max_seconds=1e-6, **SMALL)
    assert r.findings[0].evidence["stopped"] == "time-budget"
    assert r.outcome == "inconclusive" and r.exit_code == 3


# ----------------------------------------------------------------------------- the CLI
def _cli(usermod, tmp_path, obj, *extra):
    return main(["test", f"{usermod.__name__}:{obj}", "--epsilon", "1", "--relation",
                 "add-remove", "--lower", "0", "--upper", "1", "--max-pairs", "4",
                 "--max-samples", "20000", "--n-select", "20000", "--first-batch", "1000",
                 "--no-progress", "--out", str(tmp_path), "--run-id", obj, *extra])


def test_cli_exit_codes_report_and_replay(usermod, tmp_path, capsys, monkeypatch):
    assert _cli(usermod, tmp_path, "noisy_sum", "--no-float-bits") == 0
    out = capsys.readouterr().out
    assert out.startswith("NOT REFUTED")
    rep = json.loads((tmp_path / "noisy_sum" / "report.json").read_text())
    assert rep["command"] == "test" and rep["parameters"]["outcome"] == "not-flagged"
    assert (tmp_path / "noisy_sum" / "report.html").exists()
    assert "NOT REFUTED" in (tmp_path / "noisy_sum" / "report.md").read_text()

    assert _cli(usermod, tmp_path, "noisy_sum_half", "--no-float-bits") == 1
    cx = tmp_path / "noisy_sum_half" / "counterexamples" / "user.blackbox.json"
    assert cx.exists()
    monkeypatch.chdir(tmp_path)  # a replay imports the user's module from the current folder
    assert main(["replay", str(cx)]) == 1
    assert "STILL FAILS" in capsys.readouterr().out

    # per-call, int seed, data from a CSV column
    csv = tmp_path / "d.csv"
    csv.write_text("x,y\n0.1,5\n0.7,6\n0.4,7\n", encoding="utf-8")
    assert _cli(usermod, tmp_path, "per_call_seed", "--no-float-bits", "--data", str(csv),
                "--column", "x") == 0


def test_cli_bad_input_is_exit_2(usermod, tmp_path, capsys):
    assert _cli(usermod, tmp_path, "noisy_sum", "--epsilon", "-1") == 2
    assert "argument --epsilon: must be > 0" in capsys.readouterr().err
    assert main(["test", "nosuchmod_q:f", "--epsilon", "1", "--lower", "0", "--upper",
                 "1"]) == 2
    assert "cannot import module 'nosuchmod_q'" in capsys.readouterr().err
    bad = tmp_path / "p.json"
    bad.write_text("[[[0, 1], [5, 6]]]", encoding="utf-8")
    assert main(["test", f"{usermod.__name__}:noisy_sum", "--epsilon", "1", "--pairs",
                 str(bad)]) == 2
    assert "not neighbours under replace-one" in capsys.readouterr().err
    assert main(["test", f"{usermod.__name__}:noisy_sum", "--epsilon", "1"]) == 2
    assert "give neighbouring data" in capsys.readouterr().err
    assert main(["test", f"{usermod.__name__}:noisy_sum", "--epsilon", "1", "--lower",
                 "1", "--upper", "0"]) == 2
    assert "--upper must be > lower bound L" in capsys.readouterr().err
