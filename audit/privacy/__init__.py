"""Privacy testers: exact privacy loss, noise admissibility, black-box statistical testing.

See :mod:`audit.privacy.protocols` for the shared protocols.
"""
