"""Privacy testers: exact privacy loss, noise admissibility, black-box statistical testing.

See :mod:`audit.protocols` for the shared protocols.
"""
