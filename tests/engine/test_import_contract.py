"""The import contract of dpaudit's three layers, checked on the source with ``ast``.

Every module under ``audit/``, ``kernels/`` and ``proofs/`` is parsed and every import
statement in it is read, at any depth (inside functions, ``if TYPE_CHECKING:`` blocks,
``try`` fall-backs).  The contract:

(a) layers: ``kernels`` imports nothing from ``audit`` or ``proofs``; ``audit`` (the engine)
    imports nothing from ``proofs`` nor from a subject's kernels package (``kernels/gini``
    etc.; the shared ``kernels/errors.py`` and ``kernels/validate.py`` are allowed);
    ``importlib.import_module("literal")`` counts as an import;
(b) no import cycle between modules (strongly connected components of the module graph; an
    edge ``from p import x`` goes to the submodule ``p.x`` when it exists, else to ``p``);
(c) no import of a ``_private`` name (or ``_private`` submodule) from another module;
(d) subjects are independent: ``kernels/<s>`` and ``proofs/<s>`` import nothing from another
    subject's ``kernels/<t>`` or ``proofs/<t>`` (shared code belongs in the engine or in the
    shared kernel modules).

``import-linter`` is not used: its layers and independence contracts are (a) and (d) here,
and it has no rule for private names; this file needs no extra dependency and no install.

Known violations in files being fixed elsewhere are listed in :data:`ALLOWED`, each with its
file; the test fails on any violation not listed AND on any listed one that no longer
exists, so the list can only shrink.  The truth is the source text itself: the parser is
checked on hand-written snippets with known answers (tests at the bottom).

``python tests/engine/test_import_contract.py`` prints the counts (imports inside
functions, cross-module private imports, cycles).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("audit", "kernels", "proofs")
#: shared kernel modules the engine may import (everything else under kernels/ is a subject's)
SHARED_KERNELS = ("kernels", "kernels.errors", "kernels.validate")

#: known violations, each in a file owned by another piece of work; every entry must still
#: occur (the list only shrinks).  ("cycle", modules) | ("private", file, "module:name") |
#: ("layer", file, "imported module") | ("subject", file, "imported module")
ALLOWED: frozenset[tuple[str, ...]] = frozenset({
    # Mironov's snapping is shared by two subjects but lives in the Gini kernels
    ("subject", "kernels/freegap/mechanisms.py", "kernels.gini.release"),
    ("subject", "proofs/freegap/mechanisms.py", "kernels.gini.release"),
})


@dataclass(frozen=True)
class ImportRef:
    """One imported module (and name, for ``from m import name``) in one file."""

    file: str  # path relative to the repository root
    module: str  # the importing module
    target: str  # the imported module (resolved: submodule when ``name`` is one)
    name: str | None  # the imported name when it is not a module
    in_function: bool
    line: int


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def find_modules(root: Path = ROOT, layers: Iterable[str] = LAYERS) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for layer in layers:
        for p in sorted((root / layer).rglob("*.py")):
            out[module_name(p, root)] = p
    return out


def _resolve(module: str, is_package: bool, level: int, base: str | None) -> str:
    if level == 0:
        return base or ""
    parts = module.split(".")
    pkg = parts if is_package else parts[:-1]
    pkg = pkg[: len(pkg) - (level - 1)]
    return ".".join(pkg + ([base] if base else []))


def _walk(tree: ast.AST) -> Iterator[tuple[ast.AST, bool]]:
    """Every node with a flag: inside a function body."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, inside = stack.pop()
        yield node, inside
        inner = inside or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        stack.extend((c, inner) for c in ast.iter_child_nodes(node))


def imports_of(source: str, module: str, file: str, known: set[str],
               is_package: bool = False) -> list[ImportRef]:
    """The imports of one module's source; only targets inside ``known`` (our modules)."""
    out: list[ImportRef] = []

    def internal(m: str) -> bool:
        return m in known

    for node, inside in _walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for a in node.names:
                if internal(a.name):
                    out.append(ImportRef(file, module, a.name, None, inside, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node.level, node.module)
            for a in node.names:
                sub = f"{base}.{a.name}"
                if internal(sub):
                    out.append(ImportRef(file, module, sub, None, inside, node.lineno))
                elif internal(base):
                    out.append(ImportRef(file, module, base, a.name, inside, node.lineno))
        elif isinstance(node, ast.Call) and node.args and _is_dynamic_import(node.func):
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and internal(
                    arg.value):
                out.append(ImportRef(file, module, arg.value, None, inside, node.lineno))
    return out


def _is_dynamic_import(func: ast.expr) -> bool:
    """``importlib.import_module("m")``, ``import_module("m")`` or ``__import__("m")``."""
    name = func.attr if isinstance(func, ast.Attribute) else (
        func.id if isinstance(func, ast.Name) else "")
    return name in ("import_module", "__import__")


def all_imports(root: Path = ROOT) -> list[ImportRef]:
    mods = find_modules(root)
    known = set(mods)
    refs: list[ImportRef] = []
    for name, path in mods.items():
        refs += imports_of(path.read_text(encoding="utf-8"), name,
                           str(path.relative_to(root)), known, path.name == "__init__.py")
    return refs


def _private(s: str) -> bool:
    return s.startswith("_") and not (s.startswith("__") and s.endswith("__"))


def private_imports(refs: Iterable[ImportRef]) -> set[tuple[str, ...]]:
    out = set()
    for r in refs:
        if r.name is not None and _private(r.name):
            out.add(("private", r.file, f"{r.target}:{r.name}"))
        elif r.name is None and _private(r.target.rsplit(".", 1)[-1]):
            out.add(("private", r.file, r.target))
    return out


def layer_violations(refs: Iterable[ImportRef]) -> set[tuple[str, ...]]:
    out = set()
    for r in refs:
        src, dst = r.module.split(".")[0], r.target.split(".")[0]
        bad = (src == "kernels" and dst in ("audit", "proofs")) or (
            src == "audit" and (dst == "proofs" or (
                dst == "kernels" and r.target not in SHARED_KERNELS)))
        if bad:
            out.add(("layer", r.file, r.target))
    return out


def subject_crossings(refs: Iterable[ImportRef]) -> set[tuple[str, ...]]:
    """Imports from one subject package (``kernels/<s>/``, ``proofs/<s>/``) into another;
    modules directly under kernels/ or proofs/ (e.g. kernels/errors.py) are shared."""
    refs = list(refs)
    packages = {".".join(m.split(".")[:2]) for r in refs for m in (r.module, r.target)
                if m.split(".")[0] in ("kernels", "proofs") and m.count(".") >= 2}

    def subject(module: str) -> str | None:
        two = ".".join(module.split(".")[:2])
        return two.split(".")[1] if two in packages else None

    out = set()
    for r in refs:
        a, b = subject(r.module), subject(r.target)
        if a is not None and b is not None and a != b:
            out.add(("subject", r.file, r.target))
    return out


def cycles(refs: Iterable[ImportRef]) -> set[tuple[str, ...]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    graph: dict[str, set[str]] = {}
    for r in refs:
        if r.target != r.module:
            graph.setdefault(r.module, set()).add(r.target)
            graph.setdefault(r.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: set[tuple[str, ...]] = set()
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.add(("cycle", *sorted(comp)))
    return out


def violations(refs: list[ImportRef]) -> set[tuple[str, ...]]:
    return (private_imports(refs) | layer_violations(refs) | subject_crossings(refs)
            | cycles(refs))


# --------------------------------------------------------------------------------------------
# The contract
# --------------------------------------------------------------------------------------------


def test_the_tree_keeps_the_import_contract() -> None:
    found = violations(all_imports())
    new = sorted(found - ALLOWED)
    gone = sorted(ALLOWED - found)
    assert not new, "import contract broken (layers / cycles / private names):\n" + "\n".join(
        map(str, new))
    assert not gone, ("allow-listed violations no longer exist; delete them from ALLOWED:\n"
                      + "\n".join(map(str, gone)))


# --------------------------------------------------------------------------------------------
# The checker on snippets with known answers
# --------------------------------------------------------------------------------------------

KNOWN = {"audit", "audit.a", "audit.b", "audit.pkg", "audit.pkg.sub", "kernels",
         "kernels.errors", "kernels.gini", "kernels.gini.index", "proofs", "proofs.gini",
         "proofs.shared"}


def _refs(src: str, module: str, is_package: bool = False) -> list[ImportRef]:
    return imports_of(src, module, module.replace(".", "/") + ".py", KNOWN, is_package)


def test_parser_sees_imports_at_any_depth_and_resolves_relative_ones() -> None:
    src = ("import numpy\nfrom audit.b import f\n"
           "def g():\n    from .pkg import sub\n    import kernels.errors\n"
           "if True:\n    from ..gini import index\n"
           "try:\n    m = importlib.import_module('proofs.gini')\nexcept ImportError:\n"
           "    pass\n")
    refs = _refs(src, "audit.a")
    got = {(r.target, r.name, r.in_function) for r in refs}
    assert got == {("audit.b", "f", False), ("audit.pkg.sub", None, True),
                   ("kernels.errors", None, True), ("proofs.gini", None, False)}
    # relative imports resolve against the importing module's own package
    assert {r.target for r in _refs("from .gini import index\n", "kernels.x")} == {
        "kernels.gini.index"}
    assert {r.target for r in _refs("from . import sub\n", "audit.pkg", True)} == {
        "audit.pkg.sub"}


def test_checker_flags_each_kind_of_violation() -> None:
    refs = (_refs("from kernels.gini import index\nfrom kernels.errors import E\n", "audit.a")
            + _refs("from audit.pkg import x\n", "kernels.gini.index")
            + _refs("from audit.b import _hidden\nimport audit.b\n", "audit.a")
            + _refs("def f():\n    from audit.a import y\n", "audit.b"))
    v = violations(refs)
    assert ("layer", "audit/a.py", "kernels.gini.index") in v
    assert ("layer", "kernels/gini/index.py", "audit.pkg") in v
    assert ("private", "audit/a.py", "audit.b:_hidden") in v
    assert ("cycle", "audit.a", "audit.b") in v
    assert not any(x[0] == "layer" and x[2] == "kernels.errors" for x in v)
    cross = violations(
        _refs("from kernels.gini import index\nimport kernels.errors\nimport proofs.shared\n",
              "proofs.freegap.x")
        + _refs("from kernels.gini import index\n", "proofs.gini.y"))
    assert cross == {("subject", "proofs/freegap/x.py", "kernels.gini.index")}
    # a longer cycle, and no false cycle on a diamond
    ring = sum((_refs(f"import audit.{b}\n", f"audit.{a}")
                for a, b in (("a", "b"), ("b", "pkg"), ("pkg", "a"))), [])
    assert cycles(ring) == {("cycle", "audit.a", "audit.b", "audit.pkg")}
    diamond = sum((_refs(f"import audit.{b}\n", f"audit.{a}")
                   for a, b in (("a", "b"), ("a", "pkg"), ("b", "pkg"))), [])
    assert cycles(diamond) == set()


def counts(root: Path = ROOT) -> dict[str, int]:
    refs = all_imports(root)
    ours = {(r.file, r.line) for r in refs if r.in_function}
    anywhere = 0
    for path in find_modules(root).values():
        anywhere += sum(1 for node, inside in _walk(ast.parse(path.read_text(encoding="utf-8")))
                        if inside and isinstance(node, (ast.Import, ast.ImportFrom)))
    return {"imports inside functions (all statements)": anywhere,
            "imports inside functions (of our modules)": len(ours),
            "cross-module private imports": len(private_imports(refs)),
            "cycles": len(cycles(refs)),
            "imports across subjects": len(subject_crossings(refs)),
            "layer violations": len(layer_violations(refs))}


if __name__ == "__main__":
    import sys

    for k, v in counts(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT).items():
        print(f"{k}: {v}")
