"""SmartNoise SQL adapter (audit/extra/smartnoise.py): the claim read from SmartNoise's
objects, its noise mechanism run by the black-box tester.

Truths: SmartNoise calibrates Laplace noise for a sum clamped to [L, U] = [0, 1] with one
record per individual, sensitivity max(|L|, |U|) = 1, to epsilon: scale = 1 / epsilon up to
OpenDP's float-rounding allowance (it may only be larger: a smaller scale would break the
claim), so 1 <= scale <= 1.001 at epsilon = 1.  The SQL reader's cost of ``SUM`` at
epsilon = 1 is 1; of ``AVG`` 2 (a SUM and a COUNT, each at epsilon; snsql's documented
composition).  Black-box runs are seeded but SmartNoise's randomness is the OS's (not
reproducible: a correct mechanism is flagged with probability <= 0.1); the broken twin (an
unclamped sum of three times the records: true epsilon 3x the claim) is flagged.  Needs the
``smartnoise`` extra (smartnoise-sql), else skipped with the reason.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("snsql", reason="smartnoise-sql not installed: pip install "
                    "'dpaudit[smartnoise]' (it pins opendp < 0.15: use its own venv)")

from audit import test_mechanism  # noqa: E402
from audit.extra.smartnoise import noise_mechanism, query_mechanism  # noqa: E402
from audit.findings import Verdict  # noqa: E402

SMALL = {"n_select": 2000, "n_certify": 2000, "first_batch": 1000, "max_pairs": 4, "seed": 0,
         "float_bits": False}
META = {"C": {"S": {"t": {"row_privacy": True, "censor_dims": False,
                          "x": {"type": "float", "lower": 0.0, "upper": 1.0,
                                "nullable": False}}}}}


def test_noise_mechanism_claim_and_scale():
    m = noise_mechanism("laplace", epsilon=1.0, lower=0.0, upper=1.0)
    assert m.epsilon == 1.0 and m.relation == "add-remove"
    assert 1.0 <= m.scale <= 1.001
    y = m(np.array([0.5, 2.0]), 5)  # 2.0 clamps to 1.0: centred on 1.5
    assert y.shape == (5,) and len(set(y.tolist())) == 5


def test_query_claim_read_from_the_reader():
    s = query_mechanism("SELECT SUM(x) AS s FROM S.t", META, epsilon=1.0)
    a = query_mechanism("SELECT AVG(x) AS a FROM S.t", META, epsilon=1.0)
    assert s.epsilon == pytest.approx(1.0) and a.epsilon == pytest.approx(2.0)
    assert s(np.array([0.1, 0.9])).shape == (1,)


def test_laplace_not_refuted_and_unclamped_twin_flagged():
    m = noise_mechanism("laplace", epsilon=1.0, lower=0.0, upper=1.0)
    r = test_mechanism(m, lower=0.0, upper=1.0, **SMALL)
    assert {f.id: f for f in r.findings}["user.blackbox"].verdict is Verdict.NOT_REFUTED
    bad = noise_mechanism("laplace", epsilon=1.0, lower=0.0, upper=1.0,
                          query=lambda x: 3.0 * float(np.sum(x)))
    r = test_mechanism(bad, lower=0.0, upper=1.0, **SMALL)
    assert {f.id: f for f in r.findings}["user.blackbox"].verdict is Verdict.REFUTED
