"""Report layer: build the report document, render it (Markdown, terminal), write it atomically.

See ``schema.md`` in this package for the JSON schema and the byte-identity rule.
"""

from audit.report.markdown import (
    COUNTEREXAMPLE_DIR,
    counterexample_relpath,
    render_markdown,
    render_summary_table,
)
from audit.report.writer import (
    REPORT_SCHEMA,
    atomic_write_text,
    build_report,
    canonical_json,
    strip_timings,
    summarize,
    write_report,
)

__all__ = [
    "COUNTEREXAMPLE_DIR",
    "REPORT_SCHEMA",
    "atomic_write_text",
    "build_report",
    "canonical_json",
    "counterexample_relpath",
    "render_markdown",
    "render_summary_table",
    "strip_timings",
    "summarize",
    "write_report",
]
