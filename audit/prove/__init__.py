"""``dpaudit prove``: prove a DSL mechanism (:mod:`audit.dsl`) epsilon-DP by randomness
alignment synthesis with Z3, or say why not.

Modules: :mod:`~audit.prove.symbolic` (path enumeration by re-execution),
:mod:`~audit.prove.alignment` (templates and the alignment conditions),
:mod:`~audit.prove.noise_dependent` (noise-dependent alignments: their side conditions),
:mod:`~audit.prove.cegis` (the counterexample-guided synthesis loop),
:mod:`~audit.prove.verdict` (typed results), :mod:`audit.cli.commands.prove` (the command).
"""
