"""Benchmark and self-audit scripts (each runnable as ``python tests/bench/NAME.py``); the
tests import their helpers as ``tests.bench.NAME``."""
