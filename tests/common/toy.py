"""The toy subject (:mod:`tests.common.toy_subject`) registered in this process for a test:
``with installed_toy() as subject: ...`` (or the ``toy_subject`` fixture of
``tests/conftest.py``).  On exit its claims are dropped and its modules forgotten, so the
next use registers them afresh."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from audit import registry
from audit.registry import Subject
from tests.common.toy_subject import NAME, SUBJECT

PACKAGE = "tests.common.toy_subject"
#: the modules that register claims / replayers when imported
REGISTERING = (f"{PACKAGE}.claims", f"{PACKAGE}.certify", f"{PACKAGE}.command")


@contextmanager
def installed_toy() -> Iterator[Subject]:
    registry.register_subject(SUBJECT)
    try:
        yield registry.subjects()[NAME]
    finally:
        registry.CLAIMS[:] = [c for c in registry.CLAIMS if c.paper != NAME]
        for check in ("toy.laplace-scale", "toy.exact-loss"):
            registry.REPLAYERS.pop(check, None)
        for mod in REGISTERING:
            sys.modules.pop(mod, None)
        registry.rediscover()
