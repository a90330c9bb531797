"""A mechanical inventory of a paper's claim-like items, and its committed manifest.

:func:`inventory` reads a paper's Markdown text and lists, in order:

* every labelled statement (Definition, Lemma, Theorem, Corollary, Proposition, Algorithm,
  Figure, Table, Example, Assumption, Remark, Claim), numbered or not, as one item of its kind;
* every displayed equation (``$$ ... $$`` blocks, appendices included);
* every algorithm line (numbered pseudo-code lines, ``\\leftarrow`` assignments, control
  keywords such as ``for`` / ``if`` / ``return`` at the start of a block);
* every table row (tab-separated or ``|``-separated lines);
* every sentence of the running text (labelled statements included) that contains a
  claim-like pattern (:data:`PATTERNS`: comparatives, "always", "never", "should",
  "minimi/maximi", "at least", "at most", "optimal", "equals", "bounded", "DP" / "private",
  "for all", "guarantee", "tight", "exact", relations such as ``\\leq``, ...).

Front matter before the abstract and the reference list are skipped (they state no claim).

Each item has a stable **key** ``"<section>|<hash>|<first words>"``: the section number the
item sits in (``"3.1"``, ``"A.2"``, ``"abstract"``), the first 8 hex digits of the SHA-256 of
the whitespace-normalised text, and its first six alphanumeric words; a repeated key gets a
``#2``, ``#3`` suffix.  A **manifest** (:func:`manifest`) holds the keys, kinds and matched
pattern names, never the text, so it can be committed beside a subject without copying the
paper.  Guarantee: the same text always gives the same keys in the same order (pure function
of the text; no randomness, no locale).

Papers are found by :func:`paper_path`: the directory named by the environment variable
``DPAUDIT_PAPERS``, else ``shared/papers`` next to the repository or one level above it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "PATTERNS",
    "InventoryItem",
    "Rule",
    "account",
    "inventory",
    "load_manifest",
    "manifest",
    "manifest_diff",
    "paper_path",
]

#: name -> regular expression (case-insensitive) of a claim-like pattern
PATTERNS: dict[str, str] = {
    "comparative": r"\b(more|less|fewer|greater|larger|smaller|higher|lower|better|worse|"
                   r"faster|slower|stronger|weaker|tighter|looser|simpler|easier|harder|exceeds?|outperforms?|"
                   r"improves?|reduces?)\b|\w+er than\b",
    "always-never": r"\b(always|never|cannot|impossible|only if|if and only if|iff)\b",
    "should-must": r"\b(should|must|need(s)? to|required?)\b",
    "extremum": r"\b(minimi[sz]\w*|maximi[sz]\w*|minimum|maximum|minimal|maximal|"
                r"largest|smallest|supremum|infimum|arg ?max|arg ?min)\b|\\(max|min|sup|inf)\b",
    "at-least-most": r"\b(at least|at most|no more than|no less than|up to)\b",
    "optimal": r"\b(optimal\w*|optimum|best|worst)\b",
    "equals": r"\b(equals?|equal to|is equivalent|identical|same)\b",
    "bounded": r"\b(bounded|bounds?|upper bound|lower bound|within)\b",
    "privacy": r"\b(DP|private|privacy|differential(ly)? privacy|differentially private)\b",
    "quantifier": r"\b(for all|for any|for every|for each|there exists?|unique)\b|"
                  r"\\forall|\\exists",
    "guarantee": r"\b(guarantee\w*|ensures?|satisf(y|ies)|holds?|implies|proves?|shows?)\b",
    "tight": r"\b(tight\w*|exact\w*|precisely|sharp)\b",
    "monotone": r"\b(monoton\w*|increas\w*|decreas\w*|converge\w*|unbiased|consistent)\b",
    "order": r"\\(leq|geq|le|ge|ll|gg|lesssim|gtrsim|propto|approx|sim)\b|[≤≥≈<>]|O\(|"
             r"\\mathcal\{O\}",
    "property": r"\b(lipschitz|convex|concave|continuous|symmetric|invariant|linear|bilinear|"
                r"multilinear|piecewise|unimodal|dominat\w*|quasi-\w+|stationary|independent)\b",
    "assertion": r"\b(note that|observe that|it is easy to see|clearly|obviously|recall that|"
                 r"is known|follows)\b",
    "conclusion": r"\b(therefore|thus|hence|whenever|if\b[^.]{0,200}?\bthen)\b",
    "number": r"\b\d+(\.\d+)?\s*%|\b\d{2,}(,\d{3})+\b",
}
_COMPILED = {name: re.compile(rx, re.IGNORECASE) for name, rx in PATTERNS.items()}

_LABEL = re.compile(
    r"^\W*(definition|lemma|theorem|corollary|proposition|algorithm|figure|table|example|"
    r"assumption|remark|claim)\b\s*([A-Z]?[\d.]*\d|[A-Z](?=\b))?", re.IGNORECASE)
_HEADING = re.compile(r"^\s*(?:#+\s*)?(\d+(?:\.\d+)*|[A-H](?:\.\d+)*)\.?\s+(\S.*)$")
_UNNUMBERED = re.compile(r"^\s*(?:#+\s*)?(?:\d+\.\s*)?(abstract|references?|acknowledg\w*|"
                         r"appendix|supplementary material)\s*$", re.IGNORECASE)
_ALGO = re.compile(r"\\leftarrow|←|^\s*-?\s*\d+:?\s+[A-Z]")
_ALGO_BODY = re.compile(r"^\s*(/\*|//|```|(for|foreach|if|else|end|return|while|do|function|"
                        r"input|output)\b)", re.IGNORECASE)
_ABBREV = ("e.g.", "i.e.", "et al.", "Fig.", "fig.", "eq.", "Eq.", "eqs.", "Sec.", "Thm.",
           "resp.", "vs.", "cf.", "Def.", "Prop.", "Lem.", "Cor.", "Alg.", "approx.", "No.",
           "i.i.d.", "w.p.", "a.s.", "w.r.t.", "Ref.", "St.")


@dataclass(frozen=True)
class InventoryItem:
    """One claim-like item of a paper (its text is kept in memory, never in a manifest)."""

    key: str
    section: str
    kind: str  # sentence, equation, algorithm-line, table-row, or a label kind ("theorem")
    patterns: tuple[str, ...]
    text: str


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def _first_words(text: str, n: int = 6) -> str:
    words = re.findall(r"[A-Za-z0-9]+", unicodedata.normalize("NFKC", text))
    return "-".join(w.lower() for w in words[:n]) or "-"


def _patterns(text: str) -> tuple[str, ...]:
    # a footnote mark glued to a word ("2Note that", "1We focus") must not hide the word
    text = re.sub(r"(?<=[\d\u00b2\u00b3\u00b9\u2070-\u2079])(?=[A-Za-z])", " ", text)
    return tuple(name for name, rx in _COMPILED.items() if rx.search(text))


def _heading(line: str) -> tuple[str, str] | None:
    """``(section id, title)`` when ``line`` is a section heading, else None."""
    s = line.strip()
    if not s or len(s) > 90 or "\t" in s:
        return None
    m = _UNNUMBERED.match(s)
    if m:
        word = m.group(1).lower()
        return ("references" if word.startswith("reference") else
                "acknowledgments" if word.startswith("acknowledg") else
                "appendix" if word in ("appendix", "supplementary material") else word), s
    m = _HEADING.match(s)
    if not m:
        return None
    num, title = m.group(1), m.group(2)
    if "$" in s and not re.match(r"^[\dA-H.]+\s+[A-Z][a-z]", s):
        return None
    words = title.split()
    if (not words or words[0] in ("If", "If,", "Let", "Then", "We") or s.endswith((",", ":"))
            or title.rstrip(".").endswith(("then", "and")) or not re.match(r"[A-Za-z]", title)):
        return None
    if "." not in num and num.isalpha() and not re.match(r"[A-Z][A-Za-z]", title):
        return None
    if num.isdigit() and int(num) > 30:
        return None
    if _LABEL.match(title):
        return None
    if re.search(r"[.;]\s+\S", title.rstrip(".")) or len(words) > 16:
        return None
    return num, title


def _blocks(text: str) -> Iterator[tuple[str, str]]:
    """(section, block) for every blank-line separated block; display maths kept whole."""
    section = "front"
    lines = text.splitlines()
    i = 0
    buf: list[str] = []

    def flush() -> Iterator[tuple[str, str]]:
        if buf:
            yield section, "\n".join(buf)
            buf.clear()

    while i < len(lines):
        line = lines[i]
        head = _heading(line) if not buf else None
        if head is not None:
            section = head[0]
            i += 1
            continue
        if line.strip().startswith("$$") and not buf:
            eq = [line]
            closed = line.strip() != "$$" and line.strip().endswith("$$") and len(line.strip()) > 2
            while not closed and i + 1 < len(lines):
                i += 1
                eq.append(lines[i])
                closed = "$$" in lines[i]
            yield section, "\n".join(eq)
            i += 1
            continue
        if not line.strip():
            yield from flush()
        else:
            buf.append(line)
        i += 1
    yield from flush()


def _mask_math(text: str) -> tuple[str, list[str]]:
    parts: list[str] = []

    def keep(m: re.Match) -> str:
        parts.append(m.group(0))
        return f"\x00{len(parts) - 1}\x00"

    return re.sub(r"\$[^$]+\$", keep, text), parts


def _sentences(block: str) -> list[str]:
    masked, parts = _mask_math(block)
    for i, ab in enumerate(_ABBREV):
        masked = masked.replace(ab, f"\x01{i}\x01")
    pieces = re.split(r"(?<=[.!?])[\"')\]*]*\s+(?=[A-Z(\[\x00*\\])", masked)
    out = []
    for p in pieces:
        for i, ab in enumerate(_ABBREV):
            p = p.replace(f"\x01{i}\x01", ab)
        p = re.sub(r"\x00(\d+)\x00", lambda m: parts[int(m.group(1))], p)
        if p.strip():
            out.append(p.strip())
    return out


def _units(block: str) -> list[str]:
    """A prose block cut at its list items ("- ...", "1. ...", "2) ...")."""
    units: list[str] = []
    for ln in block.splitlines():
        if re.match(r"^\s*(-|\*|\d+[.)])\s+\S", ln) or not units:
            units.append(ln)
        else:
            units[-1] += "\n" + ln
    return units


def _is_statement(block: str, label: re.Match) -> bool:
    """A labelled statement ("Lemma 4.1. Fix ...", "Figure 2: ...", "Algorithm 1 Bounded mean
    estimation"), not prose that starts with a name ("Lemma 4.1 shows that ...")."""
    kind = label.group(1).lower()
    after = block[label.end():].lstrip(" *")
    if kind == "algorithm":
        return bool(label.group(2)) and (after.startswith((":", "(")) or (
            "\n" not in block.strip() and len(block) < 150 and not after.startswith(".")))
    return after[:1] in (".", ":", "(", "") or (not label.group(2) and after[:1].isupper())


def _raw_items(text: str) -> Iterator[tuple[str, str, str]]:
    """(section, kind, text) before keys are given."""
    started = not any(_UNNUMBERED.match(ln) and "abstract" in ln.lower()
                      for ln in text.splitlines())
    in_algo = False
    for section, block in _blocks(text):
        if section == "abstract":
            started = True
        if not started and section == "front":
            continue
        started = True
        b = block.strip()
        if section == "references":  # only captions placed after the reference list
            lab = _LABEL.match(b)
            if not (lab and lab.group(1).lower() in ("figure", "table") and _is_statement(b, lab)):
                continue
        if b.startswith("$$"):
            yield section, "equation", b
            continue
        lines = [ln for ln in b.splitlines() if ln.strip()]
        if any("\t" in ln or ln.strip().startswith("|") for ln in lines):
            in_algo = False
            for ln in lines:
                if re.fullmatch(r"[\s|:\-]+", ln):
                    continue
                yield section, "table-row", ln
            continue
        label = _LABEL.match(b)
        words = len(_mask_math(b)[0].split())  # a formula counts as one word
        prose = (b.rstrip("*").endswith(".") and words >= 5) or words >= 12
        if in_algo and not label and (_ALGO.search(b) or _ALGO_BODY.match(b)
                                      or (len(b) < 200 and not prose)):
            for ln in lines:
                yield section, "algorithm-line", ln
            continue
        in_algo = False
        if label and not _is_statement(b, label):
            label = None
        if label:
            kind = label.group(1).lower()
            if True:
                yield section, kind, label.group(0).strip(" *").strip()
                in_algo = kind == "algorithm" and len(b) < 400
                if kind == "algorithm":
                    for ln in lines[1:] if len(lines) > 1 else []:
                        yield section, "algorithm-line", ln
                    if len(lines) > 1:
                        continue
        if _ALGO.search(lines[0]) and not label:
            for ln in lines:
                yield section, "algorithm-line", ln
            continue
        if "\\tag{" in b or re.search(r"\\quad\s*\(\d+\)\s*\$?\s*$", b):
            yield section, "equation", b
        for unit in _units(b):
            for s in _sentences(unit):
                if _patterns(s):
                    yield section, "sentence", s


def inventory(text: str) -> list[InventoryItem]:
    """Every claim-like item of a paper's Markdown ``text``, in order, with stable keys."""
    seen: dict[str, int] = {}
    items: list[InventoryItem] = []
    for section, kind, raw in _raw_items(text):
        norm = _norm(raw)
        digest = hashlib.sha256(norm.encode("utf-8")).hexdigest()[:8]
        key = f"{section}|{digest}|{_first_words(norm)}"
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key = f"{key}#{seen[key]}"
        items.append(InventoryItem(key, section, kind, _patterns(norm), norm))
    return items


def manifest(paper: str, items: list[InventoryItem]) -> dict:
    """The committed form of an inventory: keys, sections, kinds, pattern names; no text."""
    return {
        "paper": paper,
        "generator": "audit.paper_inventory",
        "count": len(items),
        "items": [{"key": it.key, "section": it.section, "kind": it.kind,
                   "patterns": list(it.patterns)} for it in items],
    }


def load_manifest(path: str | Path) -> dict:
    """Read a committed manifest (raises ValueError naming the file when it is malformed)."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or not isinstance(doc.get("items"), list):
        raise ValueError(f"{path}: not an inventory manifest (no 'items' list)")
    if doc.get("count") != len(doc["items"]):
        raise ValueError(f"{path}: count {doc.get('count')} != {len(doc['items'])} items")
    return doc


def manifest_diff(committed: dict, fresh: dict) -> tuple[list[str], list[str]]:
    """(keys only in the committed manifest, keys only in the fresh one)."""
    old = [it["key"] for it in committed["items"]]
    new = [it["key"] for it in fresh["items"]]
    return sorted(set(old) - set(new)), sorted(set(new) - set(old))


def paper_path(filename: str) -> Path | None:
    """Where the paper ``filename`` is on this machine, or None (papers live outside the
    repository: ``$DPAUDIT_PAPERS``, else ``shared/papers`` beside the repository or one
    level above it)."""
    env = os.environ.get("DPAUDIT_PAPERS")
    root = Path(__file__).resolve().parents[1]
    dirs = [Path(env)] if env else [root.parent / "shared" / "papers",
                                    root.parent.parent / "shared" / "papers"]
    for d in dirs:
        p = d / filename
        if p.is_file():
            return p
    return None


@dataclass(frozen=True)
class Rule:
    """How a subject's coverage table accounts for manifest items: the items of ``section``
    (``"*"``: any) whose key's first words start with ``starts`` (or whose hash is ``starts``)
    and whose kind is in
    ``kinds`` (empty: any) are checked by ``keys``, or, when ``keys`` is empty, are
    "not checked" for the reason in ``note``."""

    section: str
    keys: tuple[str, ...]
    note: str = ""
    starts: str = ""
    kinds: tuple[str, ...] = ()

    def matches(self, entry: dict) -> bool:
        _, digest, words = entry["key"].split("|", 2)
        return ((self.section == "*" or entry["section"] == self.section)
                and (words.startswith(self.starts) or digest == self.starts)
                and (not self.kinds or entry["kind"] in self.kinds))


def account(items: list[dict], rules: tuple[Rule, ...]) -> tuple[dict[str, Rule], list[str]]:
    """(manifest key -> the first rule that matches it, keys no rule matches)."""
    found: dict[str, Rule] = {}
    missing: list[str] = []
    for entry in items:
        rule = next((r for r in rules if r.matches(entry)), None)
        if rule is None:
            missing.append(entry["key"])
        else:
            found[entry["key"]] = rule
    return found, missing
