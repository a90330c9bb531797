"""The HTML report (audit.report.html): escaping, structure, figures, validation, atomic writes."""

from __future__ import annotations

import copy
import json
import math
import re
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.report import (
    build_report,
    canonical_json,
    render_html,
    render_markdown,
    validate_certification,
    validate_figures,
    write_report,
)
from audit.report import writer as writer_module

EVIL = "Claim <script>alert('x')</script> & \"quoted\" </td></table>"

# ----------------------------------------------------------------------------------------------
# a tiny HTML tree builder that also checks that tags balance
# ----------------------------------------------------------------------------------------------

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
         "track", "wbr"}


class Node:
    def __init__(self, tag: str, attrs: dict[str, str | None]) -> None:
        self.tag, self.attrs = tag, attrs
        self.children: list[Node] = []
        self.text: list[str] = []

    def iter(self, tag: str | None = None):
        for child in self.children:
            if tag is None or child.tag == tag:
                yield child
            yield from child.iter(tag)

    def all_text(self) -> str:
        return "".join(self.text) + "".join(c.all_text() for c in self.children)

    def find_id(self, ident: str) -> Node:
        hits = [n for n in self.iter() if n.attrs.get("id") == ident]
        assert len(hits) == 1, f"{len(hits)} elements with id {ident!r}"
        return hits[0]


class TreeChecker(HTMLParser):
    """Builds a Node tree; records every unbalanced / mismatched tag in ``errors``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in _VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(Node(tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag in _VOID:
            self.errors.append(f"end tag for void element <{tag}>")
        elif len(self.stack) == 1 or self.stack[-1].tag != tag:
            self.errors.append(f"</{tag}> does not close <{self.stack[-1].tag}>")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.stack[-1].text.append(data)

    def close(self):
        super().close()
        if len(self.stack) != 1:
            self.errors.append("unclosed: " + ", ".join(n.tag for n in self.stack[1:]))


def parse(text: str) -> Node:
    checker = TreeChecker()
    checker.feed(text)
    checker.close()
    assert checker.errors == [], checker.errors
    return checker.root


def test_checker_catches_unbalanced_markup():
    for bad in ("<div><p>x</div>", "<section><b>x</b>", "<p>x</p></p>", "<br></br>"):
        checker = TreeChecker()
        checker.feed(bad)
        checker.close()
        assert checker.errors, bad


# ----------------------------------------------------------------------------------------------
# fixtures
# ----------------------------------------------------------------------------------------------


def _findings() -> list[Finding]:
    cx = counterexample_document(
        "toy.sum.as-printed",
        "kernels:toy.printed",
        {"x": [1, 2, 3], "k": 1},
        expected=Fraction(2, 7),
        actual=0.2857,
        tolerance={"rtol": 1e-9},
        note="window <starts> late & wrong",
    )
    return [
        Finding(
            id="toy.sum.vs-reference",
            claim=EVIL,
            reference="Toy & Sons 2025, Alg. 1",
            method=Method.CROSSCHECK,
            verdict=Verdict.VERIFIED,
            scope="n <= 60 & 200 data sets",
            evidence={"max_rel_err": 3e-16, "note": "<b>bold</b>", "ratio": Fraction(1, 3)},
            seed=7,
            duration_s=0.25,
            tolerance={"rtol": 1e-9, "atol": 0},
        ),
        Finding(
            id="toy.sum.as-printed",
            claim="Toy & Sons, Algorithm 2: the window covers all optimal replacements",
            reference="Toy & Sons 2025, Alg. 2",
            method=Method.EXHAUSTIVE,
            verdict=Verdict.REFUTED,
            scope="all k-subsets, n <= 8",
            evidence={"failures": 3, "ratio": math.inf},
            counterexample=cx,
            seed=7,
            duration_s=1.5,
        ),
        Finding(
            id="privacy.toy.empirical",
            claim="Toy & Sons, Theorem 4.6: the release is eps-DP",
            reference="",
            method=Method.EMPIRICAL,
            verdict=Verdict.INCONCLUSIVE,
            scope="",
            evidence={"eps_lower_bound": math.nan},
            duration_s=0.1,
        ),
    ]


def _figures() -> list[dict[str, Any]]:
    return [
        {
            "id": "privacy.loss",
            "title": "Loss <vs> k & more",
            "kind": "line",
            "series": [
                {"label": "exact <a>", "x": [0, 1, 2, 3, 4], "y": [0.0, 0.1, 0.2, 0.3, 0.4]},
                {
                    "label": "empirical",
                    "x": np.arange(5),
                    "y": np.array([0, 0.1, np.nan, 0.2, 0.3]),
                },
            ],
            "xlabel": "k",
            "ylabel": "epsilon",
            "caption": "caption with <i>markup</i>",
            "vlines": [{"x": 2, "label": "k* <2>"}],
            "hlines": [{"y": 0.25, "label": "claimed eps = 0.25"}],
        },
        {
            "id": "noise.hist",
            "title": "Noise",
            "kind": "histogram",
            "series": [
                {"label": "a", "x": [0, 1, 2, 3], "y": [5, 0, 2]},
                {"label": "b", "x": [0.5, 1.5, 2.5], "y": [1, 3]},
            ],
            "logy": True,
        },
        {
            "id": "verdicts",
            "title": "Verdict counts",
            "kind": "bars",
            "series": [
                {"label": "ours", "x": ["verified", "refuted"], "y": [5, 1]},
                {"label": "paper", "x": ["refuted", "error"], "y": [3, -1]},
            ],
        },
        {
            "id": "ecdf",
            "title": "ECDF",
            "kind": "step",
            "series": [{"label": "", "x": [0.1, 0.4, 0.9], "y": [1 / 3, 2 / 3, 1.0]}],
        },
    ]


CERT = {
    "verdict": "NOT CERTIFIED",
    "scope": "replace one record, n = 100 & eps = 1",
    "reasons": ["Alg. 2 refuted <see below>"],
    "counterexample": "counterexamples/toy.sum.as-printed.json",
    "data_sha256": "0123456789abcdef" * 4,
}


def _report(figures: Any = None, certification: Any = None) -> dict[str, Any]:
    return build_report(
        "certify",
        "data <sha> & co",
        7,
        _findings(),
        {"eps": 1.0, "note": "<param & more>"},
        "2025-01-01T00:00:00Z",
        True,
        figures=_figures() if figures is None else figures,
        certification=CERT if certification is None else certification,
    )


def _svg_of(root: Node, fid: str) -> Node:
    svgs = list(root.find_id(f"figure-{fid}").iter("svg"))
    assert len(svgs) == 1
    return svgs[0]


def _series_groups(svg: Node) -> list[Node]:
    return [g for g in svg.iter("g") if g.attrs.get("class") == "series"]


# ----------------------------------------------------------------------------------------------
# page structure and escaping
# ----------------------------------------------------------------------------------------------


def test_page_parses_with_balanced_tags_and_is_self_contained():
    page = render_html(_report())
    assert page.startswith("<!DOCTYPE html>\n") and page.endswith("</html>\n")
    root = parse(page)
    assert [n.tag for n in root.children] == ["html"]
    lowered = page.lower()
    for forbidden in ("<script", "<link", "<img", "<iframe", "src=", "@import", "url(",
                      "javascript:", "https://"):
        assert forbidden not in lowered, forbidden
    # the only URL is the SVG namespace name, which is never fetched
    assert set(re.findall(r"https?://[^\s\"']+", page)) == {"http://www.w3.org/2000/svg"}
    # a report without the optional keys renders too, and still balances
    plain = build_report("regress", "s", None, _findings(), {}, "t", False)
    parse(render_html(plain))


def test_every_text_is_escaped_and_decodes_back():
    page = render_html(_report())
    assert "<script" not in page.lower()
    assert "&lt;script&gt;" in page
    for raw in ("<b>bold</b>", "<i>markup</i>", "<starts>", "<vs>", "<see below>", "<sha>",
                "<a>", "<2>", "<param & more>"):
        assert raw not in page, raw
    text = parse(page).all_text()
    # once parsed, the escaped text is exactly the original
    for original in (EVIL, "Loss <vs> k & more", "caption with <i>markup</i>", "exact <a>",
                     "k* <2>", "Alg. 2 refuted <see below>", "window <starts> late & wrong",
                     "data <sha> & co", "Toy & Sons 2025, Alg. 1", "<param & more>"):
        assert original in text, original


def test_every_finding_appears_in_table_and_details():
    report = _report()
    root = parse(render_html(report))
    rows = list(root.find_id("findings").iter("tr"))
    assert len(rows) == 1 + len(report["findings"])
    for f, row in zip(report["findings"], rows[1:], strict=True):
        cells = [td.all_text() for td in row.iter("td")]
        assert cells == [f["id"], f["verdict"], f["method"], f["claim"], f["scope"] or "—"]
        detail = root.find_id(f"finding-{f['id']}")
        assert f["id"] in detail.all_text()
        assert f["verdict"].upper() in detail.all_text()
    refuted = root.find_id("finding-toy.sum.as-printed")
    links = [a.attrs["href"] for a in refuted.iter("a")]
    assert links == ["counterexamples/toy.sum.as-printed.json"]
    assert "dpaudit replay counterexamples/toy.sum.as-printed.json" in refuted.all_text()
    # no counterexample link for findings without one
    assert list(root.find_id("finding-toy.sum.vs-reference").iter("a")) == []
    details = root.find_id("finding-toy.sum.vs-reference").all_text()
    for piece in ("Toy & Sons 2025, Alg. 1", "max_rel_err", "3e-16", "1/3", "rtol", "0.25 s"):
        assert piece in details, piece


def test_header_and_summary():
    report = _report()
    root = parse(render_html(report))
    header = next(root.iter("header")).all_text()
    for piece in ("certify", "data <sha> & co", "Seed7", "Finishedyes", "dpaudit.report/1"):
        assert piece in header.replace("\n", ""), piece
    summary = root.find_id("summary").all_text()
    assert "FAIL" in summary and "PASS" not in summary
    unfinished = build_report("regress", "s", None, [_findings()[0]], {}, "t", False)
    page = render_html(unfinished)
    text = parse(page).find_id("summary").all_text()
    assert "UNFINISHED" in text and "PASS" not in text  # an interrupted run never shows PASS
    assert "did not finish" in page


@pytest.mark.parametrize(
    ("verdict", "css"),
    [("CERTIFIED", "banner-certified"), ("NOT CERTIFIED", "banner-not-certified"),
     ("INCONCLUSIVE", "banner-inconclusive")],
)
def test_certification_banner(verdict, css):
    cert = dict(CERT, verdict=verdict)
    root = parse(render_html(_report(certification=cert)))
    banner = root.find_id("certification")
    assert banner.attrs["class"] == f"banner {css}"
    assert next(banner.iter("div")).all_text() == verdict
    text = banner.all_text()
    assert CERT["scope"] in text and CERT["reasons"][0] in text and CERT["data_sha256"] in text
    assert [a.attrs["href"] for a in banner.iter("a")] == [CERT["counterexample"]]
    # the banner comes before the summary
    main = next(root.iter("main"))
    assert [c.attrs.get("id") for c in main.children][:2] == ["certification", "summary"]


def test_no_banner_and_no_figures_without_the_keys():
    plain = build_report("regress", "s", 1, _findings(), {}, "t", True)
    assert "figures" not in plain and "certification" not in plain
    page = render_html(plain)
    assert 'id="certification"' not in page and "<svg" not in page
    assert 'class="banner' not in page and 'id="figures"' not in page


# ----------------------------------------------------------------------------------------------
# figures
# ----------------------------------------------------------------------------------------------


def test_one_svg_per_figure_with_one_group_per_series():
    report = _report()
    root = parse(render_html(report))
    assert len(list(root.iter("svg"))) == len(report["figures"])
    for spec in report["figures"]:
        svg = _svg_of(root, spec["id"])
        groups = _series_groups(svg)
        assert len(groups) == len(spec["series"]), spec["id"]
        for g, s in zip(groups, spec["series"], strict=True):
            assert next(g.iter("title")).all_text() == s["label"]
            if spec["kind"] in ("line", "step"):
                assert len(list(g.iter("path"))) == 1
            else:
                assert list(g.iter("path")) == [] and list(g.iter("rect"))
        fig_text = root.find_id(f"figure-{spec['id']}").all_text()
        assert spec["title"] in fig_text
        legend_labels = [s["label"] for s in spec["series"] if s["label"]]
        for label in legend_labels:
            assert label in svg.all_text()


def test_line_is_broken_at_nan_and_reference_lines_are_drawn():
    root = parse(render_html(_report()))
    svg = _svg_of(root, "privacy.loss")
    exact, empirical = (next(g.iter("path")).attrs["d"] for g in _series_groups(svg))
    assert exact.count("M") == 1 and exact.count("L") == 4
    assert empirical.count("M") == 2 and empirical.count("L") == 2  # 0,1 | 3,4
    assert "1 non-finite value(s) not shown." in root.find_id("figure-privacy.loss").all_text()
    ref = next(g for g in svg.iter("g") if g.attrs.get("class") == "reflines")
    assert len(list(ref.iter("line"))) == 2
    assert "k* <2>" in ref.all_text() and "claimed eps = 0.25" in ref.all_text()
    axis_text = svg.all_text()
    assert "epsilon" in axis_text and "k" in axis_text


def test_non_finite_x_breaks_the_line_too():
    fig = {"id": "gap", "title": "g", "kind": "line",
           "series": [{"label": "s", "x": [0, "nan", 2, 3, "inf", 5], "y": [1, 2, 3, 4, 5, 6]}]}
    root = parse(render_html(_report(figures=[fig])))
    d = next(_series_groups(_svg_of(root, "gap"))[0].iter("path")).attrs["d"]
    assert d.count("M") == 3 and d.count("L") == 1  # 0 | 2 - 3 | 5
    assert "2 non-finite value(s) not shown." in root.find_id("figure-gap").all_text()


def test_step_path_holds_then_jumps():
    root = parse(render_html(_report()))
    d = next(next(iter(_series_groups(_svg_of(root, "ecdf")))).iter("path")).attrs["d"]
    assert d.count("M") == 1 and d.count("H") == 2 and d.count("V") == 2 and "L" not in d


def test_histogram_and_bars_rect_counts():
    root = parse(render_html(_report()))
    a, b = _series_groups(_svg_of(root, "noise.hist"))
    # log scale: the empty bin (count 0) of series "a" is skipped, not drawn
    assert len(list(a.iter("rect"))) == 2 and len(list(b.iter("rect"))) == 2
    assert "1 non-positive value(s) not shown on the log scale." in root.find_id(
        "figure-noise.hist"
    ).all_text()
    bars = _svg_of(root, "verdicts")
    ours, paper = _series_groups(bars)
    assert len(list(ours.iter("rect"))) == 2 and len(list(paper.iter("rect"))) == 2
    # categories: union in order of first appearance, as tick labels
    ticks = next(g for g in bars.iter("g") if g.attrs.get("class") == "ticks")
    labels = [t.all_text() for t in ticks.iter("text") if t.attrs.get("text-anchor") == "middle"]
    assert [lab[: len(lab) // 2] for lab in labels] == ["verified", "refuted", "error"]
    # the negative bar hangs below the zero line, the positive ones stand on it
    heights = {float(r.attrs["y"]) + float(r.attrs["height"]) for r in ours.iter("rect")}
    assert len(heights) == 1
    neg = list(paper.iter("rect"))[1]
    assert math.isclose(float(neg.attrs["y"]), heights.pop(), abs_tol=0.02)


def test_log_scale_skips_non_positive_values_and_labels_decades():
    fig = {
        "id": "logline",
        "title": "log",
        "kind": "line",
        "logy": True,
        "series": [{"label": "s", "x": [1, 2, 3, 4, 5], "y": [1e-3, 0, -2, 10, 100]}],
        "hlines": [{"y": 0, "label": "zero"}, {"y": 1, "label": "one"}],
    }
    root = parse(render_html(_report(figures=[fig])))
    svg = _svg_of(root, "logline")
    d = next(_series_groups(svg)[0].iter("path")).attrs["d"]
    assert d.count("M") == 2 and d.count("L") == 1  # 1e-3 alone | 10 - 100
    assert "3 non-positive value(s) not shown on the log scale." in root.find_id(
        "figure-logline"
    ).all_text()
    tick_labels = {t.all_text() for t in svg.iter("text") if t.attrs.get("text-anchor") == "end"}
    assert {"0.001", "0.01", "0.1", "1", "10", "100"} <= tick_labels
    ref = next(g for g in svg.iter("g") if g.attrs.get("class") == "reflines")
    assert len(list(ref.iter("line"))) == 1 and "one" in ref.all_text()


def test_figure_without_drawable_data_still_renders():
    fig = {"id": "empty", "title": "e", "kind": "line", "logy": True,
           "series": [{"label": "s", "x": [1, 2], "y": [math.nan, -1.0]}]}
    root = parse(render_html(_report(figures=[fig])))
    assert "no data to show" in root.find_id("figure-empty").all_text()


def test_build_report_stores_figures_in_json_form():
    report = _report()
    text = canonical_json(report)  # no NaN tokens: non-finite values became strings
    emp = report["figures"][0]["series"][1]
    assert emp["x"] == [0, 1, 2, 3, 4] and emp["y"][2] == "nan"
    assert isinstance(emp["x"], list) and isinstance(emp["x"][0], int)
    assert json.loads(text)["certification"] == CERT
    # the page is a function of the JSON document
    assert render_html(json.loads(text)) == render_html(report)


# ----------------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------------


def _bad(path: str, value: Any, base: int = 0) -> list[dict[str, Any]]:
    figs = copy.deepcopy(_figures())
    target: Any = figs[base]
    keys = path.split(".")
    for key in keys[:-1]:
        target = target[int(key)] if key.isdigit() else target[key]
    last = keys[-1]
    if value is _DELETE:
        del target[last]
    elif last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value
    return figs


_DELETE = object()


@pytest.mark.parametrize(
    ("base", "path", "value", "fid", "field"),
    [
        (0, "series.0.y", [1, 2], "privacy.loss", "series[0].y"),
        (0, "series.0.y.1", "abc", "privacy.loss", "series[0].y[1]"),
        (0, "series.0.y.1", True, "privacy.loss", "series[0].y[1]"),
        (0, "series.0.y.1", None, "privacy.loss", "series[0].y[1]"),
        (0, "series.0.x", "0,1,2", "privacy.loss", "series[0].x"),
        (0, "series.0.label", 3, "privacy.loss", "series[0].label"),
        (0, "series.0.colour", "red", "privacy.loss", "colour"),
        (0, "series", [], "privacy.loss", "series"),
        (0, "kind", "pie", "privacy.loss", "kind"),
        (0, "title", _DELETE, "privacy.loss", "title"),
        (0, "title", None, "privacy.loss", "title"),
        (0, "logy", "yes", "privacy.loss", "logy"),
        (0, "caption", 1, "privacy.loss", "caption"),
        (0, "zorder", 1, "privacy.loss", "zorder"),
        (0, "vlines.0.x", "left", "privacy.loss", "vlines[0].x"),
        (0, "vlines.0", {"y": 1, "label": ""}, "privacy.loss", "x"),
        (0, "hlines.0.label", None, "privacy.loss", "hlines[0].label"),
        (0, "hlines", {"y": 1}, "privacy.loss", "hlines"),
        (0, "series.0.y", [object()] * 5, "privacy.loss", "series"),
        (1, "series.0.x", [0, 1, 2], "noise.hist", "series[0].x"),
        (1, "series.0.x", [0, 2, 1, 3], "noise.hist", "series[0].x"),
        (1, "series.0.x", [0, 1, 2, "inf"], "noise.hist", "series[0].x"),
        (2, "series.0.x", [1, 2], "verdicts", "series[0].x"),
        (2, "series.0.x", ["a", "a"], "verdicts", "series[0].x"),
        (2, "series.0.y", [1], "verdicts", "series[0].y"),
        (2, "vlines", [{"x": 1, "label": ""}], "verdicts", "vlines"),
    ],
)
def test_bad_figure_raises_naming_figure_and_field(base, path, value, fid, field):
    figs = _bad(path, value, base)
    for call in (
        lambda: validate_figures(figs),
        lambda: build_report("certify", "s", 1, [], {}, "t", True, figures=figs),
    ):
        with pytest.raises(ValueError) as info:
            call()
        message = str(info.value)
        assert repr(fid) in message and field in message, message
    # a report dict carrying the bad figure (e.g. edited report.json) is refused by the renderer
    report = _report()
    report["figures"] = figs
    with pytest.raises(ValueError, match=re.escape(field)):
        render_html(report)


@pytest.mark.parametrize(
    ("figures", "needle"),
    [
        ("not a list", "figures must be a list"),
        ([1], "figures[0] must be a dict"),
        ([{"id": "Bad Id", "title": "t", "kind": "line", "series": []}], "figures[0]: field 'id'"),
        ([{"title": "t"}], "figures[0]: field 'id'"),
        (_figures() + [_figures()[0]], "duplicate"),
    ],
)
def test_bad_figure_list(figures, needle):
    with pytest.raises(ValueError, match=re.escape(needle)):
        validate_figures(figures)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"verdict": "certified"}, "verdict"),
        ({"verdict": "CERTIFIED", "scope": " "}, "scope"),
        ({"scope": 3}, "scope"),
        ({"reasons": "one reason"}, "reasons"),
        ({"reasons": ["ok", 2]}, "reasons"),
        ({"counterexample": "/etc/passwd"}, "counterexample"),
        ({"counterexample": "../outside.json"}, "counterexample"),
        ({"counterexample": "javascript:alert(1)"}, "counterexample"),
        ({"counterexample": ""}, "counterexample"),
        ({"data_sha256": "abc"}, "data_sha256"),
        ({"data_sha256": "0123456789ABCDEF" * 4}, "data_sha256"),
        ({"extra": 1}, "extra"),
    ],
)
def test_bad_certification_raises_naming_field(change, field):
    cert = dict(CERT, **change)
    for call in (
        lambda: validate_certification(cert),
        lambda: build_report("certify", "s", 1, [], {}, "t", True, certification=cert),
    ):
        with pytest.raises(ValueError, match=re.escape(field)):
            call()
    missing = {k: v for k, v in CERT.items() if k != "reasons"}
    with pytest.raises(ValueError, match="missing field 'reasons'"):
        validate_certification(missing)
    with pytest.raises(ValueError, match="certification must be a dict"):
        validate_certification(["CERTIFIED"])  # type: ignore[arg-type]


def test_minimal_certification_is_accepted():
    cert = {"verdict": "INCONCLUSIVE", "scope": "", "reasons": ()}
    assert validate_certification(cert) == {"verdict": "INCONCLUSIVE", "scope": "", "reasons": []}


# ----------------------------------------------------------------------------------------------
# determinism and byte-identity
# ----------------------------------------------------------------------------------------------


def test_rendering_is_deterministic():
    a, b = _report(), _report()
    assert render_html(a) == render_html(a) == render_html(b)
    before = copy.deepcopy(a)
    render_html(a)
    assert a == before  # rendering does not modify the report


def test_reports_without_the_new_keys_are_unchanged():
    plain = build_report("regress", "s", 1, _findings(), {"n": 2}, "t", True)
    assert set(plain) == {"schema", "command", "subject", "seed", "parameters", "finished",
                          "summary", "findings", "timing"}
    explicit = build_report("regress", "s", 1, _findings(), {"n": 2}, "t", True,
                            figures=None, certification=None)
    assert canonical_json(explicit) == canonical_json(plain)


# ----------------------------------------------------------------------------------------------
# writing
# ----------------------------------------------------------------------------------------------


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.rglob("*") if p.name.endswith(".tmp"))


def test_write_report_writes_html_in_order(tmp_path, monkeypatch):
    report = _report()
    order: list[str] = []
    real = writer_module.atomic_write_text

    def recording(path, text, mode=None):
        order.append(Path(path).relative_to(tmp_path).as_posix())
        real(path, text, mode)

    monkeypatch.setattr(writer_module, "atomic_write_text", recording)
    json_path, md_path = write_report(tmp_path, report)
    assert order == [
        "counterexamples/toy.sum.as-printed.json",
        "report.md",
        "report.html",
        "report.json",
    ]
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == render_html(report)
    assert md_path.read_text(encoding="utf-8") == render_markdown(report)
    assert json_path.read_text(encoding="utf-8") == canonical_json(report)
    assert _leftovers(tmp_path) == []


def test_write_report_without_html(tmp_path):
    write_report(tmp_path, _report(), html=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "counterexamples", "report.json", "report.md"
    ]


def test_render_failure_leaves_directory_untouched(tmp_path):
    good = _report()
    write_report(tmp_path, good)
    names = ("report.json", "report.md", "report.html")
    before = {n: (tmp_path / n).read_bytes() for n in names}

    bad = copy.deepcopy(good)
    bad["findings"][0]["claim"] = "changed"  # would change every file ...
    bad["figures"][0]["series"][0]["y"] = [1.0]  # ... but the figure cannot be rendered
    with pytest.raises(ValueError, match="series\\[0\\].y"):
        write_report(tmp_path, bad)
    assert {n: (tmp_path / n).read_bytes() for n in names} == before
    assert _leftovers(tmp_path) == []

    fresh = tmp_path / "fresh"
    with pytest.raises(ValueError):
        write_report(fresh, bad)
    assert not fresh.exists()

    # an html write that fails midway leaves the old page and no report.json change
    broken = copy.deepcopy(good)
    broken["subject"] = "x" * 1000 + "\ud800"  # cannot be encoded as UTF-8
    with pytest.raises(UnicodeEncodeError):
        write_report(tmp_path, broken)
    assert (tmp_path / "report.html").read_bytes() == before["report.html"]
    assert (tmp_path / "report.json").read_bytes() == before["report.json"]
    assert _leftovers(tmp_path) == []
