"""Privacy claims as trade-off functions (Dong, Roth & Su 2019): pure epsilon, (epsilon,
delta), mu-GDP, rho-zCDP, (alpha, epsilon)-RDP and explicit f-DP curves behind one
interface (:class:`~audit.privacy.claims.base.Claim`), their ``--claim`` syntax, reference
trade-off curves of the Gaussian, Laplace and discrete Gaussian mechanisms, and the
certified verdict of a black-box run against a claim
(:mod:`audit.privacy.claims.certify`).  Nothing here prints or writes files.
"""

from audit.privacy.claims.approx import ApproxDP
from audit.privacy.claims.base import Claim, CornerVerdict
from audit.privacy.claims.fdp import ExplicitFDP
from audit.privacy.claims.gdp import GaussianDP
from audit.privacy.claims.parse import claim_from_epsilon, parse_claim
from audit.privacy.claims.pure import PureDP
from audit.privacy.claims.rdp import RenyiDP
from audit.privacy.claims.zcdp import ZCDP

__all__ = ["ZCDP", "ApproxDP", "Claim", "CornerVerdict", "ExplicitFDP", "GaussianDP",
           "PureDP", "RenyiDP", "claim_from_epsilon", "parse_claim"]
