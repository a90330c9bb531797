"""Render a report document (see ``schema.md``) as one self-contained HTML page.

Pure functions of the report dict: no I/O, no printing, no clock.  The page has no external
resources and no JavaScript: CSS is inline and every figure is an inline SVG drawn here.  All
text taken from the report is escaped with :func:`html.escape`.  The same report dict always
gives byte-identical HTML.

The figures are drawn by :mod:`audit.report.svg`; ``figures`` and ``certification`` are
validated by :mod:`audit.report.model` (the validators :func:`audit.report.build_report`
uses too).
"""

from __future__ import annotations

from typing import Any

from audit.findings import Verdict
from audit.report.confidentiality import (
    VERDICTS_WITHHELD,
    confidentiality_text,
    verdicts_withheld,
)
from audit.report.markdown import GOOD_WORDS, compact, counterexample_relpath, overall_word
from audit.report.model import validate_certification, validate_figures
from audit.report.svg import esc, figure_svg, num

__all__ = ["render_html"]

_VALUE_LIMIT = 1000


# ----------------------------------------------------------------------------------------------
# page
# ----------------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;
max-width:1100px;padding:1rem 1.5rem 3rem;color:#1a1a1a;line-height:1.45}
h1{font-size:1.5rem;margin:.5rem 0;overflow-wrap:anywhere}h2{font-size:1.2rem;margin-top:2rem;
border-bottom:1px solid #ddd;padding-bottom:.2rem}h3{font-size:1rem;margin:1.5rem 0 .4rem}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88em}
pre{background:#f5f5f5;padding:.5rem .75rem;overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.92rem}
th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}
dl.meta,dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.5rem 0}
dl.meta dt,dl.kv dt{font-weight:600}dl.meta dd,dl.kv dd{margin:0;overflow-wrap:anywhere}
.banner{border:2px solid;border-radius:6px;padding:.8rem 1.2rem;margin:1rem 0}
.banner .verdict{font-size:1.6rem;font-weight:700;letter-spacing:.03em}
.banner-certified{background:#e7f6ec;border-color:#1e7b3c;color:#124d26}
.banner-not-certified{background:#fdecea;border-color:#b3261e;color:#7a1712}
.banner-inconclusive{background:#fff5e0;border-color:#b26a00;color:#6b4000}
.warning{background:#fff5e0;border-left:4px solid #b26a00;padding:.4rem .8rem}
.pass{color:#1e7b3c;font-weight:700}.fail{color:#b3261e;font-weight:700}
.v-verified{color:#1e7b3c}.v-not-refuted{color:#3d7a55}.v-refuted{color:#b3261e;font-weight:600}
.v-inconclusive{color:#b26a00}.v-vacuous{color:#8a6d00;font-style:italic}.v-error{color:#7a1712;font-weight:600}
figure{margin:1.2rem 0}figcaption{font-weight:600;margin-bottom:.3rem}
figure .caption,figure .note{font-size:.9rem;color:#444;margin:.2rem 0}
svg.plot{max-width:100%;height:auto;display:block}
section.finding{border-top:1px solid #eee;padding-top:.3rem}
footer{margin-top:2rem;color:#555;font-size:.9rem}
""".strip()


def _banner(cert: dict[str, Any]) -> list[str]:
    verdict = cert["verdict"]
    css = "banner-" + verdict.lower().replace(" ", "-")
    out = [
        f'<section class="banner {css}" id="certification" role="status">',
        f'<div class="verdict">{esc(verdict)}</div>',
    ]
    if cert["scope"]:
        out.append(f"<p><strong>Scope:</strong> {esc(cert['scope'])}</p>")
    if cert["reasons"]:
        out.append("<ul>")
        out += [f"<li>{esc(r)}</li>" for r in cert["reasons"]]
        out.append("</ul>")
    if "counterexample" in cert:
        rel = cert["counterexample"]
        out.append(
            f'<p><strong>Counterexample:</strong> <a href="{esc(rel)}"><code>{esc(rel)}</code></a>'
            f"</p>"
        )
    if "data_sha256" in cert:
        out.append(f"<p><strong>Data SHA-256:</strong> <code>{esc(cert['data_sha256'])}</code></p>")
    if "fingerprint" in cert:
        out.append("<p><strong>Data fingerprint (keyed):</strong> "
                   f"<code>{esc(cert['fingerprint'])}</code></p>")
    out.append("</section>")
    return out


def _summary(report: dict[str, Any]) -> list[str]:
    s = report.get("summary") or {}
    findings = report.get("findings") or []
    word = overall_word(report)
    ok = word in GOOD_WORDS
    out = ['<section id="summary">', "<h2>Summary</h2>", "<table>"]
    if verdicts_withheld(report):
        out.append(f'<tr><th>overall</th></tr><tr><td class="{"pass" if ok else "fail"}">'
                   f"{esc(word)}</td></tr></table><p>{esc(VERDICTS_WITHHELD)}</p>")
        out.append("</section>")
        return out
    out.append("<tr>" + "".join(f"<th>{esc(v.value)}</th>" for v in Verdict) + "<th>total</th>"
               "<th>overall</th></tr>")
    cells = "".join(f'<td class="v-{v.value}">{esc(s.get(v.value, 0))}</td>' for v in Verdict)
    overall = f'<td class="{"pass" if ok else "fail"}">{esc(word)}</td>'
    out.append(f"<tr>{cells}<td>{esc(s.get('total', len(findings)))}</td>{overall}</tr>")
    out.append("</table>")
    if report.get("finished") is False:
        out.append('<p class="warning">The run did not finish: the findings are incomplete.</p>')
    out.append("</section>")
    return out


def _findings_table(findings: list[dict[str, Any]]) -> list[str]:
    out = ['<section id="findings">', "<h2>Findings</h2>"]
    if not findings:
        out += ["<p>No findings.</p>", "</section>"]
        return out
    out.append("<table>")
    out.append("<tr><th>id</th><th>verdict</th><th>method</th><th>claim</th><th>scope</th></tr>")
    for f in findings:
        fid = str(f.get("id", ""))
        verdict = str(f.get("verdict", ""))
        out.append(
            f'<tr><td><a href="#finding-{esc(fid)}"><code>{esc(fid)}</code></a></td>'
            f'<td class="v-{esc(verdict)}">{esc(verdict)}</td>'
            f"<td>{esc(f.get('method', ''))}</td>"
            f"<td>{esc(f.get('claim', ''))}</td>"
            f"<td>{esc(f.get('scope', '') or '—')}</td></tr>"
        )
    out += ["</table>", "</section>"]
    return out


def _figures(specs: list[dict[str, Any]]) -> list[str]:
    out = ['<section id="figures">', "<h2>Figures</h2>"]
    for spec in specs:
        svg, notes = figure_svg(spec)
        out.append(f'<figure id="figure-{esc(spec["id"])}">')
        out.append(f"<figcaption>{esc(spec['title'])}</figcaption>")
        out.append(svg)
        if spec.get("caption"):
            out.append(f'<p class="caption">{esc(spec["caption"])}</p>')
        out += [f'<p class="note">{esc(n)}</p>' for n in notes]
        out.append("</figure>")
    out.append("</section>")
    return out


def _kv(pairs: list[tuple[str, str]]) -> list[str]:
    """A definition list; values are already-escaped HTML."""
    out = ['<dl class="kv">']
    for key, value in pairs:
        out.append(f"<dt>{esc(key)}</dt><dd>{value}</dd>")
    out.append("</dl>")
    return out


def _code(value: Any) -> str:
    return f"<code>{esc(compact(value, _VALUE_LIMIT))}</code>"


def _finding_detail(f: dict[str, Any]) -> list[str]:
    fid = str(f.get("id", ""))
    verdict = str(f.get("verdict", ""))
    out = [
        f'<section class="finding" id="finding-{esc(fid)}">',
        f'<h3><code>{esc(fid)}</code> — <span class="v-{esc(verdict)}">{esc(verdict.upper())}'
        "</span></h3>",
        f"<p>{esc(f.get('claim', ''))}</p>",
    ]
    pairs = []
    if f.get("reference"):
        pairs.append(("Reference", esc(f["reference"])))
    pairs.append(("Method", esc(f.get("method", ""))))
    pairs.append(("Scope", esc(f.get("scope") or "(none stated)")))
    if f.get("subject"):
        pairs.append(("Subject", f"<code>{esc(f['subject'])}</code>"))
    pairs.append(
        ("Tolerance", "exact / not applicable" if f.get("tolerance") is None
         else _code(f["tolerance"]))
    )
    pairs.append(("Seed", esc("none" if f.get("seed") is None else f["seed"])))
    if isinstance(f.get("duration_s"), (int, float)) and not isinstance(f["duration_s"], bool):
        pairs.append(("Duration", esc(f"{num(float(f['duration_s']))} s")))
    out += _kv(pairs)
    evidence = f.get("evidence") or {}
    if evidence:
        out.append("<h4>Evidence</h4>")
        out += _kv([(str(k), _code(evidence[k])) for k in sorted(evidence)])
    secret = f.get("confidential") or {}
    if secret:
        out.append("<h4>Confidential (computed from the data)</h4>")
        out += _kv([(str(k), _code(secret[k])) for k in sorted(secret)])
    cx = f.get("counterexample")
    if cx is not None:
        out.append("<h4>Counterexample</h4>")
        if isinstance(cx, dict) and "inputs" in cx:
            cpairs = [
                ("Inputs", _code(cx.get("inputs"))),
                ("Expected", _code(cx.get("expected"))),
                ("Actual", _code(cx.get("actual"))),
            ]
            if cx.get("tolerance") is not None:
                cpairs.append(("Tolerance", _code(cx["tolerance"])))
            if cx.get("note"):
                cpairs.append(("Note", esc(cx["note"])))
        else:
            cpairs = [("Document", _code(cx))]
        rel = counterexample_relpath(fid)
        cpairs.append(("File", f'<a href="{esc(rel)}"><code>{esc(rel)}</code></a>'))
        out += _kv(cpairs)
        out.append(f"<pre><code>dpaudit replay {esc(rel)}</code></pre>")
    out.append("</section>")
    return out


def render_html(report: dict[str, Any]) -> str:
    """The self-contained HTML page of a report document (``report.html``).

    Sections: header (command, subject, seed, finished, parameters), the certification banner
    (when the report has ``certification``), summary counts, a findings table, the figures (when
    the report has ``figures``; inline SVG), per-finding details (reference, evidence,
    counterexample link ``counterexamples/<id>.json``, tolerance, seed, duration) and the timing.
    No external resources, no JavaScript; every report string is HTML-escaped.  Deterministic:
    the same dict gives the same text.  Raises ``ValueError`` (from :func:`validate_figures` /
    :func:`validate_certification`) if the report's ``figures`` or ``certification`` is malformed.
    """
    figures = validate_figures(report["figures"]) if "figures" in report else None
    cert = validate_certification(report["certification"]) if "certification" in report else None
    findings = report.get("findings") or []
    command = str(report.get("command", ""))
    subject = str(report.get("subject", ""))
    seed = report.get("seed")
    finished = report.get("finished")
    title = f"dpaudit {command} — {subject}"

    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title>",
        f"<style>\n{_CSS}\n</style>",
        "</head>",
        "<body>",
        "<header>",
        f"<h1>{esc(title)}</h1>",
    ]
    meta = [
        ("Command", f"<code>{esc(command)}</code>"),
        ("Subject", f"<code>{esc(subject)}</code>"),
        ("Seed", esc("none" if seed is None else seed)),
        ("Finished", "yes" if finished is True else ("no" if finished is False else "unknown")),
        ("Schema", f"<code>{esc(report.get('schema', ''))}</code>"),
    ]
    params = report.get("parameters") or {}
    if params:
        meta.append(("Parameters", _code(params)))
    text = confidentiality_text(report)
    if text is not None:
        meta.append(("Confidentiality", esc(text)))
    out += _kv(meta)
    out.append("</header>")
    out.append("<main>")
    if cert is not None:
        out += _banner(cert)
    out += _summary(report)
    out += _findings_table(findings)
    if figures:
        out += _figures(figures)
    if findings:
        out.append('<section id="details">')
        out.append("<h2>Details</h2>")
        for f in findings:
            out += _finding_detail(f)
        out.append("</section>")
    out.append("</main>")
    timing = report.get("timing")
    if isinstance(timing, dict):
        total = timing.get("total_duration_s")
        total_text = (num(float(total)) if isinstance(total, (int, float)) else str(total))
        out.append(
            f"<footer>Started {esc(timing.get('started_at', '?'))}"
            + (f"; total {esc(total_text)} s." if total is not None else ".")
            + "</footer>"
        )
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
