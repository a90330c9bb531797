"""dpaudit's tests, importable as the package ``tests`` (repository root on the path through
pytest's ``pythonpath`` option in pyproject.toml): shared helpers live in :mod:`tests.common`."""
