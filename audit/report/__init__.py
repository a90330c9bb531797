"""Report layer: build the report document, render it (Markdown, HTML, terminal), write it
atomically.

See ``schema.md`` in this package for the JSON schema and the byte-identity rule.
"""

from audit.report.confidentiality import (
    CONFIDENTIAL_DIR,
    apply_confidentiality,
    confidential_view,
    public_view,
)
from audit.report.html import render_html
from audit.report.markdown import (
    COUNTEREXAMPLE_DIR,
    counterexample_relpath,
    render_markdown,
    render_summary_table,
)
from audit.report.model import (
    CERTIFICATION_VERDICTS,
    FIGURE_KINDS,
    validate_certification,
    validate_figures,
)
from audit.report.writer import (
    REPORT_SCHEMA,
    atomic_write_text,
    begin_report,
    build_report,
    canonical_json,
    strip_timings,
    summarize,
    write_report,
)

__all__ = [
    "CONFIDENTIAL_DIR",
    "confidential_view",
    "public_view",
    "CERTIFICATION_VERDICTS",
    "COUNTEREXAMPLE_DIR",
    "FIGURE_KINDS",
    "REPORT_SCHEMA",
    "apply_confidentiality",
    "atomic_write_text",
    "begin_report",
    "build_report",
    "canonical_json",
    "counterexample_relpath",
    "render_html",
    "render_markdown",
    "render_summary_table",
    "strip_timings",
    "summarize",
    "validate_certification",
    "validate_figures",
    "write_report",
]
