"""Helpers shared by the tests: exact oracles (:mod:`.exact`), the paper-inventory checks
(:mod:`.inventory_checks`, :mod:`.coverage_manifests`), the black-box calibration suite
(:mod:`.power_suite`), the report-privacy attacks (:mod:`.report_attacks`), repository paths
(:mod:`.paths`) and the toy subject the engine tests run on (:mod:`.toy_subject`, registered
for a test by :mod:`.toy`)."""
