"""An independent neighbour oracle for tests: lists compared position by position (no
numpy, no code shared with :func:`audit.privacy.neighbour_search.are_neighbours`)."""

from __future__ import annotations

__all__ = ["positional_neighbours"]


def positional_neighbours(a: list[float], b: list[float], relation: str) -> bool:
    """Replace-one: same length, at most one position differs; add/remove (any other
    relation name): one list is the other with exactly one record inserted somewhere."""
    if relation in ("replace-one", "replace"):
        return len(a) == len(b) and sum(x != y for x, y in zip(a, b, strict=True)) <= 1
    big, small = (a, b) if len(a) > len(b) else (b, a)
    return len(big) == len(small) + 1 and any(big[:i] + big[i + 1:] == small
                                              for i in range(len(big)))
