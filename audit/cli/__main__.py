"""``python -m audit.cli``: the ``dpaudit`` executable."""

from audit.cli.app import console

if __name__ == "__main__":  # pragma: no cover
    console()
