"""Repository paths for tests that read committed files (examples, sources)."""

from __future__ import annotations

from pathlib import Path

#: the repository root (the folder holding pyproject.toml)
ROOT = Path(__file__).resolve().parents[2]
#: the committed example reports
EXAMPLES = ROOT / "reports" / "examples"
