"""Worked examples: glue code that puts third-party DP libraries under ``dpaudit test``."""
