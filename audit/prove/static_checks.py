"""The static pass of ``dpaudit prove``: before any run, the mechanism's source and the source
of every function of user code it reaches (helpers in other modules, methods of user classes,
closures) is read as an AST and refused, with the file and line, when it

* references a source of randomness or a clock other than the DSL's samplers: the modules
  ``random``, ``secrets``, ``numpy.random`` (any attribute: ``default_rng``, ``Generator``,
  ``RandomState``, the legacy functions), ``uuid.uuid1`` / ``uuid4``, ``os.urandom`` /
  ``getrandom``, the clocks of ``time`` and ``datetime.now`` / ``utcnow`` / ``today``, or a
  generator object (``random.Random``, a numpy ``Generator`` / ``RandomState`` /
  ``BitGenerator``) bound in its globals, closure or defaults (class 2 of issue 36);
* could intercept dpaudit's control flow (:class:`audit.dsl.DSLSignal`, a
  ``BaseException``): a bare ``except:``, ``except BaseException`` (alone or in a tuple), any
  other reference to ``BaseException`` (``contextlib.suppress(BaseException)``), or a
  ``return`` / ``break`` / ``continue`` in a ``finally`` block (it discards a propagating
  exception) (class 3);
* introspects values in a way no DSL value can answer as the concrete run does: ``type(...)``,
  ``id``, ``vars``, ``dir``, ``globals`` / ``locals``, ``exec`` / ``eval`` / ``compile`` /
  ``__import__``, or ``sys.settrace`` / ``setprofile`` (class 5; ``isinstance``,
  ``__class__``, ``str``/``repr`` and conversions of DSL values are refused when they happen,
  by :class:`audit.dsl.Lin` itself).

Names are *resolved* (against the function's globals, closure and builtins; imports inside the
function too), so aliases (``import numpy as np``, ``from random import random as r``) and
helpers in other modules are followed; a name the function assigns itself is its own.  What
it cannot see: objects reached only through containers or run-time arguments (the run-time
watch of :mod:`audit.prove.closed_world` covers those it can).  Nothing here prints or writes
files.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import inspect
import linecache
import random
import secrets
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audit.dsl import DSLError, Mechanism
from audit.prove.closed_world import RNG_TYPES, forbidden_c_call, forbidden_python
from audit.user_code import is_user_file

__all__ = ["StaticRefusal", "check_program"]


class StaticRefusal(DSLError):
    """The program's source does something the prover cannot soundly run (see the module
    docstring); the message names the file, line and construct."""


_FORBIDDEN_MODULES = {random: "random", secrets: "secrets", np.random: "numpy.random"}
_INTROSPECTION = {"type": "type()", "id": "id()", "vars": "vars()", "dir": "dir()",
                  "globals": "globals()", "locals": "locals()", "exec": "exec()",
                  "eval": "eval()", "compile": "compile()", "__import__": "__import__()"}
_SYS_HOOKS = {sys.settrace: "sys.settrace", sys.setprofile: "sys.setprofile"}


def _forbidden_object(obj: Any) -> str | None:
    """What ``obj`` is when referencing it is a use of randomness / a clock, else None."""
    if isinstance(obj, types.ModuleType):
        for mod, name in _FORBIDDEN_MODULES.items():
            if obj is mod or obj.__name__.startswith(mod.__name__ + "."):
                return f"the module {name}"
        return None
    if isinstance(obj, RNG_TYPES):
        return f"a random generator object ({type(obj).__module__}.{type(obj).__qualname__})"
    if isinstance(obj, type) and issubclass(obj, RNG_TYPES):
        return f"the generator class {obj.__module__}.{obj.__qualname__}"
    found = forbidden_c_call(obj) or forbidden_python(obj)
    if found is not None:
        return found
    home = str(getattr(obj, "__module__", None) or "")
    if callable(obj) and (home == "numpy.random" or home.startswith("numpy.random.")):
        return f"numpy.random.{getattr(obj, '__name__', '?')}"
    try:
        if obj in _SYS_HOOKS:
            return _SYS_HOOKS[obj]
    except TypeError:
        pass
    return None


@dataclass
class _Pass:
    refusals: list[str] = field(default_factory=list)
    seen: set[int] = field(default_factory=set)

    def refuse(self, code: types.CodeType, node: ast.AST, what: str) -> None:
        line = getattr(node, "lineno", code.co_firstlineno)
        text = linecache.getline(code.co_filename, line).strip()
        self.refusals.append(f"{code.co_filename}:{line} ({text}): {what}")

    # functions -------------------------------------------------------------------------------
    def function(self, fn: Any) -> None:
        fn = inspect.unwrap(getattr(fn, "__func__", fn))
        code = getattr(fn, "__code__", None)
        if not isinstance(code, types.CodeType) or id(code) in self.seen:
            return
        self.seen.add(id(code))
        if not is_user_file(code.co_filename):
            return
        node = _function_node(code)
        if node is None:
            self.refusals.append(f"{code.co_filename}:{code.co_firstlineno}: the source of "
                                 f"{code.co_name} cannot be read (the static pass needs the "
                                 "program's source: run it from a file)")
            return
        scope = _Scope(fn, code, node)
        for default in [*(fn.__defaults__ or ()), *(fn.__kwdefaults__ or {}).values()]:
            self.value(default, code, node, "a default argument")
        self.walk(node, scope)

    def value(self, obj: Any, code: types.CodeType, node: ast.AST, where: str) -> None:
        what = _forbidden_object(obj)
        if what is not None:
            self.refuse(code, node, f"{where} is {what}")
        elif _is_user_callable(obj):
            self.user_object(obj)

    def user_object(self, obj: Any) -> None:
        """Follow a user function, bound method, or class (its methods)."""
        if isinstance(obj, type):
            if id(obj) in self.seen:
                return
            self.seen.add(id(obj))
            for v in vars(obj).values():
                f = getattr(v, "__func__", v)
                if isinstance(f, property):
                    for g in (f.fget, f.fset, f.fdel):
                        if g is not None:
                            self.function(g)
                elif inspect.isfunction(f):
                    self.function(f)
            return
        if inspect.ismethod(obj) or inspect.isfunction(obj):
            self.function(obj)
        elif not isinstance(obj, types.ModuleType) and _user_class(type(obj)):
            self.user_object(type(obj))

    # the AST ---------------------------------------------------------------------------------
    def walk(self, root: ast.AST, scope: _Scope) -> None:
        code = scope.code
        for node in ast.walk(root):
            if isinstance(node, ast.ExceptHandler):
                self.handler(node, scope)
            elif isinstance(node, ast.Try | ast.TryStar):
                for stmt in _own(node.finalbody):
                    if isinstance(stmt, ast.Return | ast.Break | ast.Continue):
                        self.refuse(code, stmt, f"a `{type(stmt).__name__.lower()}` in a "
                                    "`finally` block (it would discard dpaudit's own "
                                    "control-flow signal)")
            elif isinstance(node, ast.Import | ast.ImportFrom):
                self.imports(node, scope)
            elif isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Load):
                self.reference(node, scope)

    def handler(self, node: ast.ExceptHandler, scope: _Scope) -> None:
        if node.type is None:
            self.refuse(scope.code, node, "a bare `except:` (it would catch dpaudit's own "
                        "control-flow signal; catch the exceptions you mean, e.g. `except "
                        "Exception`)")
            return
        types_ = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
        for t in types_:
            obj = scope.resolve(t)
            if obj is BaseException or (isinstance(obj, type)
                                        and issubclass(BaseException, obj)):
                self.refuse(scope.code, node, "`except BaseException` (it would catch "
                            "dpaudit's own control-flow signal; catch `Exception` instead)")

    def imports(self, node: ast.Import | ast.ImportFrom, scope: _Scope) -> None:
        for alias in node.names:
            full = alias.name if isinstance(node, ast.Import) else \
                f"{node.module}.{alias.name}" if node.module else alias.name
            obj = scope.import_target(node, alias)
            what = _forbidden_object(obj) if obj is not None else None
            if what is None and any(full == m or full.startswith(m + ".")
                                    for m in ("random", "secrets", "numpy.random")):
                what = f"the module {full}"
            if what is not None:
                self.refuse(scope.code, node, f"an import of {what}")
            elif obj is not None and _is_user_callable(obj):
                self.user_object(obj)

    def reference(self, node: ast.Name | ast.Attribute, scope: _Scope) -> None:
        chain = _chain(node)
        if chain is None:
            return
        head, attrs = chain
        if head in scope.local and head not in scope.imported:
            return
        if head == "BaseException" and not attrs:
            self.refuse(scope.code, node, "a reference to BaseException (it could intercept "
                        "dpaudit's own control-flow signal)")
            return
        obj, found = scope.lookup(head)
        if not found:
            return
        if head in _INTROSPECTION and obj is getattr(builtins, head, None) and not attrs:
            self.refuse(scope.code, node, f"{_INTROSPECTION[head]} (type introspection a "
                        "DSL value cannot answer as a float does; not part of the DSL)")
            return
        path = head
        for a in [None, *attrs]:
            if a is not None:
                try:
                    obj = getattr(obj, a)
                except Exception:  # noqa: BLE001 - an attribute we cannot read statically
                    return
                path += f".{a}"
            what = _forbidden_object(obj)
            if what is not None:
                self.refuse(scope.code, node, f"`{path}` is {what}: randomness or a clock "
                            "outside audit.dsl's samplers is invisible to the prover")
                return
        if _is_user_callable(obj) or (not isinstance(obj, types.ModuleType | type)
                                      and _user_class(type(obj))):
            self.user_object(obj)


class _Scope:
    """Name resolution for one function: its locals (parameters, assignments, imports inside
    it), closure, globals and builtins."""

    def __init__(self, fn: Any, code: types.CodeType, node: ast.AST) -> None:
        self.fn, self.code = fn, code
        self.local: set[str] = set()
        self.imported: dict[str, Any] = {}
        for n in ast.walk(node):
            if isinstance(n, ast.arg):
                self.local.add(n.arg)
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
                self.local.add(n.id)
            elif isinstance(n, ast.Import | ast.ImportFrom):
                for alias in n.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    self.local.add(bound)
                    self.imported[bound] = self.import_target(n, alias, bind=True)
        self.closure: dict[str, Any] = {}
        for name, cell in zip(code.co_freevars, fn.__closure__ or (), strict=False):
            try:
                self.closure[name] = cell.cell_contents
            except ValueError:
                pass

    def import_target(self, node: ast.Import | ast.ImportFrom, alias: ast.alias,
                      bind: bool = False) -> Any:
        """The object an import inside the function binds (``bind``: the bound name's
        object, e.g. the top package for ``import a.b``), None when it cannot be imported."""
        try:
            if isinstance(node, ast.Import):
                mod = importlib.import_module(alias.name)
                if bind and alias.asname is None:
                    return importlib.import_module(alias.name.split(".")[0])
                return mod
            base = node.module or ""
            if node.level:
                pkg = (self.fn.__globals__.get("__package__") or "")
                base = importlib.util.resolve_name("." * node.level + base, pkg)
            mod = importlib.import_module(base)
            if hasattr(mod, alias.name):
                return getattr(mod, alias.name)
            return importlib.import_module(f"{base}.{alias.name}")
        except Exception:  # noqa: BLE001 - an import that fails here fails in the run too
            return None

    def lookup(self, name: str) -> tuple[Any, bool]:
        if name in self.imported:
            return self.imported[name], self.imported[name] is not None
        if name in self.closure:
            return self.closure[name], True
        g = self.fn.__globals__
        if name in g:
            return g[name], True
        b = g.get("__builtins__", builtins)
        b = b if isinstance(b, dict) else vars(b)
        if name in b:
            return b[name], True
        return None, False

    def resolve(self, node: ast.AST) -> Any:
        chain = _chain(node)
        if chain is None:
            return None
        obj, found = self.lookup(chain[0])
        if not found:
            return None
        for a in chain[1]:
            obj = getattr(obj, a, None)
        return obj


def _chain(node: ast.AST) -> tuple[str, list[str]] | None:
    """``a.b.c`` as ``("a", ["b", "c"])``; None when the base is not a plain name."""
    attrs: list[str] = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return node.id, attrs[::-1]


def _own(stmts: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a block, nested blocks included, nested functions / classes not."""
    todo = list(stmts)
    while todo:
        st = todo.pop()
        if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        yield st
        if isinstance(st, ast.For | ast.While | ast.AsyncFor):
            continue  # break / continue inside a loop in finally belong to that loop
        for fld in ("body", "orelse", "finalbody"):
            todo.extend(getattr(st, fld, []) or [])
        for h in getattr(st, "handlers", []) or []:
            todo.extend(h.body)


def _user_class(cls: type) -> bool:
    mod = sys.modules.get(cls.__module__)
    f = getattr(mod, "__file__", None)
    return isinstance(f, str) and is_user_file(f)


def _is_user_callable(obj: Any) -> bool:
    fn = getattr(obj, "__func__", obj)
    code = getattr(fn, "__code__", None)
    if isinstance(code, types.CodeType):
        return is_user_file(code.co_filename)
    return isinstance(obj, type) and _user_class(obj)


def _function_node(code: types.CodeType
                   ) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None:
    try:
        tree = ast.parse("".join(linecache.getlines(code.co_filename)))
    except (SyntaxError, ValueError):
        return None
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == code.co_name:
            first = min([n.lineno, *(d.lineno for d in n.decorator_list)])
            if first == code.co_firstlineno:
                return n
        elif isinstance(n, ast.Lambda) and code.co_name == "<lambda>" \
                and n.lineno == code.co_firstlineno:
            return n
    return None


def check_program(mech: Mechanism) -> None:
    """Run the static pass over ``mech`` (module docstring); raises :class:`StaticRefusal`
    listing every refused construct with its line (at most 10 shown)."""
    p = _Pass()
    p.function(mech.fn)
    for k, v in mech.params.items():
        what = _forbidden_object(v)
        if what is not None:
            p.refusals.append(f"{mech.name}: the parameter {k!r} is {what}")
    if p.refusals:
        unique = list(dict.fromkeys(p.refusals))
        shown = "; ".join(unique[:10])
        more = len(unique) - 10
        raise StaticRefusal(f"{mech.name} is refused before any run: {shown}"
                            + (f" (and {more} more)" if more > 0 else ""))
