"""``dpaudit certify`` for the DP Gini release: the chain and its verdict (:mod:`.chain`),
the context a run hands to its links (:mod:`.context`) and the privacy links
(:mod:`.links`).  The chain imports both; ``links`` imports ``context``; ``context``
imports neither."""
