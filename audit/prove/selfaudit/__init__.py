"""The prover's self-audit: generated DSL program families (:mod:`.families`) whose true
privacy loss is computed by an oracle that shares no code with the prover (:mod:`.truth`,
reading only the mathematical description :class:`.spec.Spec`), and the comparison of the
two (:mod:`.table`).  Nothing here prints or writes files."""
