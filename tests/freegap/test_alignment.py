"""Z3 alignment proofs of Ding et al. (proofs/alignment.py): correct mechanisms are UNSAT
(verified) at small sizes, every broken variant gives a SAT counterexample that replays as
failing through the kernel cores, the exact mirrors and the pattern encodings agree with the
kernels on random inputs, and deliberately wrong alignments are caught (power)."""

from __future__ import annotations

import dataclasses
import json
import zlib
from fractions import Fraction as Q

import numpy as np
import pytest

from audit.cli import main
from audit.registry import REPLAYERS, load_all
from proofs.freegap import smt as A
from proofs.freegap.smt import EXACT, MECHANISMS, Size

SMALL = {
    "noisy-max": [Size(2), Size(3)],
    "noisy-max-monotone": [Size(2), Size(3)],
    "top-k-gap": [Size(3, 1), Size(3, 2), Size(4, 2)],
    "top-k-gap-monotone": [Size(3, 1), Size(3, 2), Size(4, 2)],
    "svt": [Size(2, 1, 1), Size(3, 1, 2)],
    "svt-gap": [Size(2, 1), Size(3, 2)],
    "adaptive-svt": [Size(2, 1), Size(3, 2)],
    "adaptive-svt-ge": [Size(2, 1), Size(3, 2)],
    "adaptive-svt-monotone": [Size(2, 1), Size(3, 2)],
}


@pytest.mark.parametrize("key", A.CORRECT)
def test_correct_mechanisms_are_unsat(key: str) -> None:
    f = A.smt_finding(MECHANISMS[key], 60.0, sizes=SMALL[key])
    assert f.verdict.value == "verified", (key, f.scope, f.evidence)
    for s in f.evidence["per_size"]:
        assert s["complete"]
        for prop, c in s["per_property"].items():
            assert c["sat"] == 0 and c["unknown"] == 0, (key, s["size"], prop)
            assert c["unsat"] == s["patterns"] * len(MECHANISMS[key].cases)


@pytest.mark.parametrize("key", A.BROKEN)
def test_broken_variants_are_sat_and_replay_through_kernels(key: str) -> None:
    f = A.smt_finding(MECHANISMS[key], 60.0)
    assert f.verdict.value == "refuted", (key, f.evidence)
    doc = f.counterexample
    assert doc["check"] == f"freegap.align.{key}"
    inputs = doc["inputs"]
    assert inputs["robust"], "the counterexample was re-solved with a float-safe margin"
    from audit.findings import from_jsonable

    still, _exp, _act, detail = A.replay_alignment(from_jsonable(inputs))
    assert still
    assert "kernels.freegap.broken" in detail  # replayed through the kernel core, not a mirror
    mech = MECHANISMS[key]
    # numeric re-check independent of the replayer's bookkeeping
    size = Size(**inputs["size"])
    par = {k: Q(from_jsonable(v)) for k, v in inputs["params"].items()}
    q = [float(from_jsonable(v)) for v in inputs["q"]]
    qp = [float(from_jsonable(v)) for v in inputs["q_prime"]]
    H = [Q(from_jsonable(v)) for v in inputs["H"]]
    Hp = mech.align([Q(x) for x in q], [Q(x) for x in qp], H, tuple(inputs["pattern"]), size,
                    par, inputs["case"])
    out_d = A.kernel_output(key, q, [float(x) for x in H], size, par)
    out_dp = A.kernel_output(key, qp, [float(x) for x in Hp], size, par)
    assert A.pattern_of(key, out_d) == tuple(inputs["pattern"])
    if inputs["property"] == "output":
        assert not A._close(out_d, out_dp)
    else:
        assert inputs["property"] == "cost"
        assert A._cost(mech, size, par, H, Hp) > mech.bound
        assert A._close(out_d, out_dp)  # the alignment itself works; only its cost fails


def test_failure_modes_of_the_broken_variants() -> None:
    """Which property fails is part of the result (explained in the report)."""
    want = {
        "broken.noisy-max-value": "output",
        "broken.noisy-max-value-repaired": "cost",
        "broken.top-k-half-noise": "cost",
        "broken.svt-no-threshold-noise": "output",
        "broken.svt-no-threshold-noise-repaired": "cost",
        "broken.svt-no-query-noise": "output",
        "broken.svt-release-value": "output",
        "broken.svt-no-halting": "cost",
        "broken.svt-lee-clifton": "cost",
        "broken.adaptive-svt-wrong-stop": "cost",
    }
    assert set(want) == set(A.BROKEN)
    for key, prop in want.items():
        f = A.smt_finding(MECHANISMS[key], 30.0)
        assert f.counterexample["inputs"]["property"] == prop, key


def test_no_alignment_exists_for_svt_without_query_noise(tmp_path) -> None:
    f = A.no_alignment_finding(20.0)
    assert f.verdict.value == "refuted"
    inp = f.counterexample["inputs"]
    from audit.findings import from_jsonable

    still, _e, act, _d = A.replay_no_alignment(from_jsonable(inp))
    assert still and act["empty"] and act["kernel_grid_hits"] == 0
    # through the CLI (registered replayer)
    p = tmp_path / "cx.json"
    p.write_text(json.dumps(f.counterexample))
    assert main(["replay", str(p)]) == 1


def test_cli_replay_of_a_broken_variant(tmp_path, capsys) -> None:
    f = A.smt_finding(MECHANISMS["broken.top-k-half-noise"], 20.0)
    p = tmp_path / "cx.json"
    p.write_text(json.dumps(f.counterexample))
    assert main(["replay", str(p)]) == 1
    assert "STILL FAILS" in capsys.readouterr().out


def test_stopping_rule_findings() -> None:
    f_min, f_twice = A.stopping_findings(30.0, kmax=4)
    assert f_min.verdict.value == "verified" and f_min.evidence["k_checked"] == [1, 2, 3, 4]
    assert f_min.evidence["unsat_queries"] > 0
    assert f_twice.verdict.value == "refuted"
    still, expected, actual, detail = A.replay_twice_as_many({"k": 3, "theta": Q(1, 5),
                                                              "epsilon": Q(1), "sigma": Q(1)})
    assert still and (expected, actual) == (6, 5) and "kernels.freegap.mechanisms" in detail


def test_registry() -> None:
    keys = {c.key for c in load_all()}
    assert {"freegap.align.noisy-max", "freegap.align.top-k-gap", "freegap.align.svt",
            "freegap.align.adaptive-svt", "freegap.align.broken",
            "freegap.align.asvt-stopping"} <= keys
    for key in MECHANISMS:
        assert f"freegap.align.{key}" in REPLAYERS


# ------------------------------------------------------------------ mirrors vs kernels


def _random_case(key: str, rng: np.random.Generator) -> tuple[list, list, Size, dict]:
    mech = MECHANISMS[key]
    if mech.kind == "topk":
        n = int(rng.integers(2, 7))
        size = Size(n, int(rng.integers(1, n)) if mech.outputs is A._topk_gaps else 1)
        q = rng.integers(-3, 4, n).astype(float) * 0.5
        H = rng.laplace(0, 1.5, n)
        return list(q), list(H), size, {}
    if mech.kind == "svt":
        n = int(rng.integers(1, 7))
        size = Size(n, 1, int(rng.integers(1, 4)))
        q = rng.integers(-3, 4, n).astype(float) * 0.5
        H = rng.laplace(0, 1.5, n + 1)
        par = {"T": Q(float(rng.uniform(-1, 1))), "theta": Q(1, 2)}
        return list(q), list(H), size, par
    n = int(rng.integers(1, 7))
    size = Size(n, int(rng.integers(1, 4)))
    q = rng.integers(-3, 4, n).astype(float) * 0.5
    H = rng.laplace(0, 1.5, 2 * n + 1)
    par = {"T": Q(float(rng.uniform(-1, 1))), "sigma": Q(float(rng.uniform(0.2, 3))),
           "theta": Q(float(rng.uniform(0.1, 0.9)))}
    return list(q), list(H), size, par


@pytest.mark.parametrize("key", list(MECHANISMS))
def test_mirror_and_encoding_equal_the_kernel_on_random_inputs(key: str) -> None:
    mech = MECHANISMS[key]
    rng = np.random.default_rng(zlib.crc32(key.encode()))
    seen = set()
    for _ in range(150):
        q, H, size, par = _random_case(key, rng)
        qx, Hx = [Q(v) for v in q], [Q(v) for v in H]
        ex = A.mirror(key, qx, Hx, size, par)
        ker = A.kernel_output(key, q, H, size, par)
        assert ker is not None
        assert A._close(ex, ker), (key, q, H, size, par, ex, ker)
        # the pattern encoding used by Z3, evaluated on the same numbers, picks this output
        pat = A.pattern_of(key, ex)
        seen.add(pat)
        assert mech.run(qx, Hx, pat, size, par, EXACT) is True
        others = [p for p in mech.patterns(size) if p != pat]
        for p in others[:: max(1, len(others) // 10)]:
            assert mech.run(qx, Hx, p, size, par, EXACT) is False, (key, p, pat)
        outs = mech.outputs(qx, Hx, pat, size, par)
        if mech.kind == "asvt":
            assert A._close(outs, [g for _t, g, _b in ex if g is not None])
        elif mech.outputs is A._topk_gaps:
            assert A._close(outs, ex[1])
    assert len(seen) > 3


@pytest.mark.parametrize("key", A.CORRECT)
def test_alignment_numerically_on_random_neighbours(key: str) -> None:
    """M(D', phi(H)) = M(D, H) (kernel, floats) and cost <= bound on random neighbours."""
    mech = MECHANISMS[key]
    rng = np.random.default_rng(7)
    for _ in range(100):
        q, H, size, par = _random_case(key, rng)
        case = mech.cases[int(rng.integers(len(mech.cases)))]
        d = rng.uniform(0, 1, len(q)) if case == "up" else (
            -rng.uniform(0, 1, len(q)) if case == "down" else rng.uniform(-1, 1, len(q)))
        qp = [a + b for a, b in zip(q, d, strict=True)]
        qx, qpx, Hx = [Q(v) for v in q], [Q(v) for v in qp], [Q(v) for v in H]
        pat = A.pattern_of(key, A.mirror(key, qx, Hx, size, par))
        Hp = mech.align(qx, qpx, Hx, pat, size, par, case)
        assert A._close(A.kernel_output(key, q, H, size, par),
                        A.kernel_output(key, qp, [float(x) for x in Hp], size, par))
        assert A._cost(mech, size, par, Hx, Hp) <= mech.bound


# ------------------------------------------------------------------ power of the encoding


def test_wrong_alignment_is_caught() -> None:
    """Eq. (2) without the max-difference term does not preserve the output."""
    def no_shift(q, qp, H, pat, size, par, case):  # noqa: ANN001, ANN202
        return [H[i] + q[i] - qp[i] if i in pat else H[i] for i in range(size.n)]

    mech = dataclasses.replace(MECHANISMS["top-k-gap"], key="mutant", align=no_shift)
    res = A.check_size(mech, Size(3, 1), props=("output",))
    assert res.counts["output"]["sat"] == 1


def test_cyclic_order_and_non_injective_alignment_are_caught() -> None:
    top = MECHANISMS["top-k-gap"]
    wrong_order = dataclasses.replace(top, key="mutant-order",
                                      order=lambda pat, size: list(pat) + [
                                          i for i in range(size.n) if i not in pat])
    res = A.check_size(wrong_order, Size(3, 1), props=("acyclic",))
    assert res.counts["acyclic"]["sat"] == 1

    def collapse(q, qp, H, pat, size, par, case):  # noqa: ANN001, ANN202
        out = top.align(q, qp, H, pat, size, par, case)
        return [out[0], 0 * H[1]] + list(out[2:])  # forgets eta_2

    mech = dataclasses.replace(top, key="mutant-collapse", align=collapse)
    res = A.check_size(mech, Size(3, 1), props=("injective",))
    assert res.counts["injective"]["sat"] == 1


def test_monotone_bound_is_tight_for_general_queries() -> None:
    """eps/2 fails for general (non-monotone) neighbours: Theorem 2 needs monotonicity."""
    mech = dataclasses.replace(MECHANISMS["top-k-gap-monotone"], key="general-half",
                               cases=("general",))
    res = A.check_size(mech, Size(2, 1), props=("cost",))
    assert res.counts["cost"]["sat"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("key", A.CORRECT)
def test_correct_mechanisms_up_to_size_5(key: str) -> None:
    mech = MECHANISMS[key]
    sizes = [s for s in mech.sizes if s.n <= 5]
    f = A.smt_finding(mech, 600.0, sizes=sizes)
    assert f.verdict.value == "verified"
    assert len(f.evidence["per_size"]) == len(sizes)
    assert all(s["complete"] for s in f.evidence["per_size"])
