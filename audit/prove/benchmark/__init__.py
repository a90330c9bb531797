"""The ``dpaudit prove`` benchmark: published mechanisms written in the DSL
(:mod:`audit.dsl`), each correct program with a deliberately broken twin, after CheckDP's
benchmark (Wang, Ding, Kifer & Zhang, CCS 2020).  Each program's docstring cites its source
(paper, algorithm number) and, for a twin, what it breaks.

:data:`PROGRAMS` lists them with the claim (eps-DP at eps = 1 under the program's
relation) and the refutation search scope used by the tests (:func:`audit.prove.refute.refute`
keywords: sizes ``n_min..n_max``, base ``values``; ``seeds``: explicit pairs, used where a
witness needs more queries than the grid can afford -- they are then the whole scope).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from audit.prove.benchmark import lattice, noisy_max, sparse_vector, sums

__all__ = ["PROGRAMS", "Program"]


@dataclass(frozen=True)
class Program:
    """One benchmark program: ``correct`` says whether the paper proves the claim."""

    name: str
    program: Any
    correct: bool
    search: dict[str, Any] = field(default_factory=dict)


PROGRAMS: tuple[Program, ...] = (
    Program("svt_lyu1", sparse_vector.svt_lyu1, True),
    Program("svt_lyu1_c2", sparse_vector.svt_lyu1, True, {"params": {"N": 2}}),
    # at c = 1 Alg. 2 has Alg. 1's scales; the threshold redraw matters from c = 2 on
    Program("svt_dwork_roth", sparse_vector.svt_dwork_roth, True, {"params": {"N": 2}}),
    Program("svt_roth_release", sparse_vector.svt_roth_release, False),
    Program("svt_lee_clifton", sparse_vector.svt_lee_clifton, False),
    Program("svt_stoddard", sparse_vector.svt_stoddard, False),
    Program("svt_chen", sparse_vector.svt_chen, False),
    Program("svt_no_threshold_noise", sparse_vector.svt_no_threshold_noise, False,
            {"n_max": 5, "values": [0]}),
    Program("svt_with_gap", sparse_vector.svt_with_gap, True, {"n_max": 2}),
    Program("svt_with_gap_small_noise", sparse_vector.svt_with_gap_small_noise, False,
            {"n_min": 3, "n_max": 3, "values": [0]}),
    Program("adaptive_svt_with_gap", sparse_vector.adaptive_svt_with_gap, True, {"n_max": 2}),
    Program("numeric_sparse", sparse_vector.numeric_sparse, True, {"n_max": 2}),
    # one pair: five queries all moving up (the loss grows by 2/9 per ⊥; 10/9 at n = 5)
    Program("numeric_sparse_reuse_noise", sparse_vector.numeric_sparse_reuse_noise, False,
            {"n_max": 0, "seeds": [([0] * 5, [1] * 5)]}),
    Program("svt_increasing_thresholds", sparse_vector.svt_increasing_thresholds, True),
    Program("svt_decreasing_thresholds", sparse_vector.svt_decreasing_thresholds, True),
    # queries on their thresholds (q_i = T_i = i), d = (1, ..., 1, -1), n = 3..6
    Program("svt_increasing_thresholds_fresh_noise",
            sparse_vector.svt_increasing_thresholds_fresh_noise, False,
            {"n_max": 0, "seeds": [(list(range(n)), [*range(1, n), n - 2])
                                   for n in (3, 4, 5, 6)]}),
    Program("noisy_max", noisy_max.noisy_max, True),
    Program("noisy_max_small_noise", noisy_max.noisy_max_small_noise, False),
    Program("noisy_max_value", noisy_max.noisy_max_value, False),
    Program("noisy_top1_with_gap", noisy_max.noisy_top1_with_gap, True,
            {"n_min": 2, "n_max": 2}),
    Program("noisy_top1_with_gap_half_noise", noisy_max.noisy_top1_with_gap_half_noise, False,
            {"n_min": 2, "n_max": 2}),
    Program("partial_sum", sums.partial_sum, True),
    Program("partial_sum_small_noise", sums.partial_sum_small_noise, False),
    Program("partial_sum_geometric", sums.partial_sum_geometric, True),
    Program("partial_sum_geometric_small_noise", sums.partial_sum_geometric_small_noise,
            False),
    Program("smart_sum", sums.smart_sum, True, {"n_max": 2}),
    Program("smart_sum_no_noise_at_block", sums.smart_sum_no_block_noise, False,
            {"n_max": 2}),
    Program("geometric_with_constant_path", lattice.geometric_with_constant_path, True),
    Program("geometric_with_constant_path_small_noise",
            lattice.geometric_with_constant_path_small_noise, False),
    Program("two_noisy_copies", lattice.two_noisy_copies, True, {"n_max": 2}),
    Program("mirrored_noisy_copies", lattice.mirrored_noisy_copies, False, {"n_max": 2}),
    Program("half_noise_from_four_queries", lattice.half_noise_from_four_queries, False,
            {"n_min": 4, "n_max": 4, "values": [0]}),
)
