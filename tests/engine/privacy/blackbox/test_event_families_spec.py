"""The black-box tester's candidate event families against their documented definitions
(audit/privacy/blackbox/README.md, "float-grid": {y in binade [2^e, 2^(e+1)) with sign s AND
the last k mantissa bits == b} (k = 1..3), and the same patterns in any binade;
``candidates.quantile_levels``: even levels plus geometric tail levels down to ~5/n).

Truths: the expected event sets enumerated here from the float64 encoding read with
``struct`` (sign bit, biased exponent), and the levels' stated end points.  A family that
loses the last-bit patterns keeps the best ratio (a union's ratio is at most its parts'
largest: the mediant inequality) but halves the counts behind it: a loss of power that no
known-answer twin at the calibrate sizes shows, so the family is checked as specified.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from audit.privacy.blackbox import BlackBoxTester
from audit.privacy.blackbox.candidates import candidates, quantile_levels


def _sign_expo(v: float) -> tuple[int, int]:
    (u,) = struct.unpack("<Q", struct.pack("<d", v))
    return u >> 63, (u >> 52) & 0x7FF


def test_float_grid_family_has_every_last_k_bits_pattern_globally_and_per_binade() -> None:
    rng = np.random.default_rng(3)
    ya = np.concatenate([rng.uniform(1, 2, 300), rng.uniform(4, 8, 200),
                         -rng.uniform(0.5, 1, 100)]).reshape(-1, 1)
    yb = np.concatenate([rng.uniform(1, 2, 250), rng.uniform(4, 8, 250),
                         -rng.uniform(0.5, 1, 100)]).reshape(-1, 1)
    s = BlackBoxTester(float_grid=True, intervals=False,
                       families=("float-grid",)).event_settings()
    got = {e.bits for e in candidates(ya, yb, s).events if e.kind == "bits"}
    binades = {_sign_expo(float(v)) for v in np.concatenate([ya, yb]).ravel()}
    assert len(binades) == 3
    want = {(0, -1, k, p) for k in (1, 2, 3) for p in range(2**k)}
    want |= {(sg, ex, k, p) for sg, ex in binades for k in (1, 2, 3) for p in range(2**k)}
    assert got == want, sorted(want ^ got)[:8]


@pytest.mark.parametrize("n", [1000, 10_000, 1_000_000])
def test_threshold_levels_reach_the_tails_down_to_five_over_n(n: int) -> None:
    lv = quantile_levels(n, 64, 24)
    assert lv.size == 64 + 2 * 24
    assert lv[0] == pytest.approx(5.0 / n, rel=1e-12)
    assert lv[-1] == pytest.approx(1.0 - 5.0 / n, rel=1e-12)
    assert set(np.round(np.arange(1, 65) / 65, 15)) <= set(np.round(lv, 15))
    assert np.all(np.diff(lv) > 0)


def test_threshold_levels_without_tails_when_five_over_n_is_not_below_the_last_tail() -> None:
    lv = quantile_levels(100, 64, 24)  # 5/n = 0.05: no geometric tail levels
    assert np.array_equal(lv, np.arange(1, 65) / 65)
