"""The Dick et al. kernel protocol: what a module must provide to be audited by ``dpaudit
regress --subject dick-et-al-subset-optimal`` (names, signatures, meaning).

A kernel module defines some of these functions at module level.  Samplers take a
``numpy.random.Generator`` and draw from it in the documented order (the suite regenerates
the draws to replay them through an exact reference, and feeds scripted generators to
measure the noise scales the kernel really uses).  Checks that need a missing function are
reported ``inconclusive``.  Implementation shipped: :mod:`kernels.subset_optimal.api`.
Neighbour relation of the paper: add/remove one record (Section 2).
"""

from __future__ import annotations

__all__ = ["PROTOCOL"]

PROTOCOL: dict[str, str] = {
    "rank_interval": "rank_interval(tau, data) -> (#{x < tau}, #{x <= tau}): Definition 3 "
    "(Lemma 5)",
    "rank_error": "rank_error(tau, r, data) -> float: Definition 4 (distance from r to the "
    "ranks of tau)",
    "window_loss": "window_loss(tau, r, alpha, data) -> array: Algorithm 2 line 1",
    "approx_threshold": "approx_threshold(tau, r, alpha, beta, data) -> bool: Definition 5",
    "threshold_pieces": "threshold_pieces(data, r, a, b, alpha, epsilon) -> (edges, loss, "
    "prob): Algorithm 2 line 2's piecewise-constant density on [a, b]",
    "threshold_sample": "threshold_sample(data, r, a, b, alpha, epsilon, size, rng) -> "
    "(size,): Algorithm 2 line 3; draws u = rng.random(size) (piece by inverse cdf), then "
    "v = rng.random(size) (position in the piece)",
    "alg1_clipped_core": "alg1_clipped_core(xs, lo, hi, epsilon, rng, clip=True) -> (size,): "
    "Algorithm 1 on clip(D, [lo_i, hi_i]); draws n-noise rng.laplace (size,), then s-noise "
    "rng.laplace (size,)",
    "alg1_sample": "alg1_sample(data, lower, upper, epsilon, size, rng) -> (size,): "
    "Algorithm 1 (public [lower, upper])",
    "alg3_parameters": "alg3_parameters(n, R, epsilon, gamma) -> {alpha, zeta, beta, t_l, "
    "t_u}: Algorithm 3 line 1",
    "alg3_sample": "alg3_sample(data, R, epsilon, gamma, size, rng) -> (size,): Algorithm 3 "
    "(two Algorithm-2 draws, then Algorithm 1 on [min, max] of them)",
    "quantile_index": "quantile_index(n, q) -> int: max(1, ceil(q n)) (lower q-quantile)",
    "len_quantile": "len_quantile(ks, t, q, lo, hi) -> int: len_theta(D, t) for the lower "
    "q-quantile (Appendix C), grid units",
    "len_mean": "len_mean(ks, t, lo, hi) -> int: len_theta(D, t) for the mean (Appendix C)",
    "inv_sen_logits": "inv_sen_logits(ks, lo, hi, prop, scale) -> array: Algorithm 5 line 2, "
    "-scale len_theta(D, t) for t = lo..hi",
    "inv_sen_sample": "inv_sen_sample(ks, lo, hi, prop, scale, size, rng) -> (size,): "
    "Algorithm 5; one rng.choice over lo..hi with p proportional to exp(logits)",
    "alg4_core": "alg4_core(ks, r, l_hat, u_hat, beta) -> list[int]: Algorithm 4 lines 5-6",
    "alg4_parameters": "alg4_parameters(R, epsilon, beta, L, B) -> {eta, r}: Algorithm 4 "
    "line 2",
    "alg4_sample": "alg4_sample(data, R, epsilon, beta, prop, L, B, rng, scale=None, r=None) "
    "-> float: Algorithm 4; draws l-hat then u-hat by Algorithm 2 (window beta/3, eps/4; two "
    "rng.random(1) each), then one Algorithm-5 rng.choice",
}
