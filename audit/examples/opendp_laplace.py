"""Glue: OpenDP's Laplace measurement under ``dpaudit test`` (needs the ``opendp`` extra).

The measurement is OpenDP's own: a bounded sum (records clamped to [0, 1]) followed by
``then_laplace(scale)``, under OpenDP's symmetric distance (add/remove one record), so its
claimed epsilon is ``meas.map(1)`` (slightly above 1/scale: OpenDP accounts for float
rounding in the sum).  OpenDP draws noise from its own CSPRNG: the run is not reproducible.

    dpaudit test audit.examples.opendp_laplace:laplace_sum --epsilon 1.0000001 \
        --relation add-remove --lower 0 --upper 1

``laplace_sum_broken``: the same with the scale divided by 10 (true epsilon ~10);
``laplace_mean_crashes``: divides the noisy sum by len(data): ZeroDivisionError on the empty
data set, a neighbour of every one-record data set under add/remove.
"""

import opendp.prelude as dp

dp.enable_features("contrib")
SCALE = 1.0


def _measurement(scale: float):
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance()
    return space >> dp.t.then_clamp((0.0, 1.0)) >> dp.t.then_sum() >> dp.m.then_laplace(scale)


MEAS, BROKEN = _measurement(SCALE), _measurement(SCALE / 10)
EPSILON = MEAS.map(1)  # OpenDP's own privacy map: epsilon for one added/removed record


def laplace_sum(data):
    return MEAS(data.tolist())


def laplace_sum_broken(data):
    return BROKEN(data.tolist())


def laplace_mean_crashes(data):
    return MEAS(data.tolist()) / len(data)
