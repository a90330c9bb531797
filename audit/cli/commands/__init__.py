"""The engine's commands, one module each (``calibrate``, ``certify``, ``claims`` for
prove / search / reproduce, ``regress``, ``replay``, ``subjects``, ``test``); the command
table that orders them is :func:`audit.cli.app.command_table`."""
