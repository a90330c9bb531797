"""Black-box statistical privacy tester: sample a mechanism on neighbouring data sets,
select an output event on one sample, certify it on a fresh one, and report a lower bound
on the mechanism's epsilon that holds with a stated confidence.

Guarantee: with probability >= ``confidence`` over the tester's sampling, the mechanism's
true epsilon on the tested pairs is >= ``epsilon_lower``; ``violates`` = ``epsilon_lower >
claimed_epsilon``.  A non-violation is NOT a proof of privacy.  Cites StatDP (Ding et al.
2018), DP-Sniper (Bichsel et al. 2021), Clopper & Pearson (1934), Mironov (2012).  The
argument, the event families, the measured calibration and the float pitfalls are in
``README.md`` beside this package's modules.

Modules, each importing only the ones above it: :mod:`.statistics` (Clopper-Pearson,
Bonferroni), :mod:`.events`, :mod:`.candidates`, :mod:`.crashes`, :mod:`.sampling`,
:mod:`.settings`, :mod:`.results`, then the two schedules :mod:`.fixed` and
:mod:`.sequential`, and :mod:`.tester` (``BlackBoxTester.run``).
"""

from audit.privacy.blackbox.crashes import MechanismCrash
from audit.privacy.blackbox.events import Event
from audit.privacy.blackbox.settings import DEFAULT_N_CERTIFY, DEFAULT_N_SELECT
from audit.privacy.blackbox.statistics import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    log_ratio,
)
from audit.privacy.blackbox.tester import BlackBoxTester

__all__ = [
    "DEFAULT_N_CERTIFY",
    "DEFAULT_N_SELECT",
    "BlackBoxTester",
    "Event",
    "MechanismCrash",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "log_ratio",
]
