"""The engine's two check shapes, shared by every subject.

* :mod:`audit.checks.kernel` — a ``KernelCheck`` (a kernel function against an exact
  reference on generated cases, with tolerance, one-sidedness, failure classes and a
  replayable counterexample) and the one runner every subject's ``regress`` suite uses;
* :mod:`audit.checks.chain` — a ``Chain`` of ``Link``\\ s (each link one Finding) and the one
  runner every subject's ``certify`` uses, with a typed certification.

Neither module names a subject.
"""
