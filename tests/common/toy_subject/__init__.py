"""A toy subject for the engine's tests: noisy sums of records in [lower, upper] with noise
of a law the engine does not own (the hyperbolic secant law, :mod:`.noise_law`).

It is a subject like any other (a :class:`audit.registry.Subject` with claims, a replayer,
mechanisms and a two-link certify chain) but names no paper, so engine tests exercise the
engine, not a real subject.  Every import inside the package is relative: the acceptance
test copies the package into a temporary folder and installs it under another name through
an entry point, exactly as a third party would.

Truths (derived in the modules' docstrings, independent of the engine): the sum of n
records in [L, U] moves by at most U - L between replace-one neighbours; the hyperbolic
secant law's log-density is (pi/2)-Lipschitz, so Z scaled by b gives a location shift d a
privacy loss sup_y |L(y)| = (pi/2) |d| / b exactly (the limit of L in the tails).
"""

from __future__ import annotations

import functools

from audit import registry
from audit.registry import Subject

#: the subject's name (``--subject``)
NAME = "toy-sums"

#: ``@claim(key, title, command)`` for this subject's claims
claim = functools.partial(registry.claim, paper=NAME)

SUBJECT = Subject(
    name=NAME,
    paper="A. Toy, Noisy sums of small records (a test subject, no paper)",
    modules=(f"{__name__}.claims", f"{__name__}.certify"),
    certify=f"{__name__}.command:CERTIFY",
    mechanisms=f"{__name__}.mechanisms:catalogue",
)
