"""Deliberately broken black-box testers for the coverage tests (a test must be able to
fail): each patches the real tester through pytest's ``monkeypatch``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from audit.privacy.blackbox import settings as bb_settings

__all__ = ["certify_on_selection_draws"]


def certify_on_selection_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """The certification counts taken on the selection draws (reused, rescaled to the
    certification size) instead of fresh ones: the bounds hold far less often than their
    confidence says."""
    seen: dict[bytes, np.ndarray] = {}
    draw = bb_settings.TesterSettings.draw_chunked

    def draw_and_keep(self: Any, mechanism: Any, dataset: Any, n: int, rng: Any, d: Any,
                      tick: Any = None) -> np.ndarray:
        y = draw(self, mechanism, dataset, n, rng, d, tick)
        seen[np.asarray(dataset, dtype=np.float64).tobytes()] = y
        return y

    def count_reused(self: Any, mechanism: Any, dataset: Any, events: Any, n: int, rng: Any,
                     d: Any, tick: Any = None) -> np.ndarray:
        y = seen[np.asarray(dataset, dtype=np.float64).tobytes()]
        k = np.array([np.count_nonzero(e.mask(y)) for e in events])
        return np.round(k * (n / y.shape[0])).astype(np.int64)

    monkeypatch.setattr(bb_settings.TesterSettings, "draw_chunked", draw_and_keep)
    monkeypatch.setattr(bb_settings.TesterSettings, "count", count_reused)
