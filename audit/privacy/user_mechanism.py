"""Adapters: a user's own mechanism in the shape the privacy testers sample
(:class:`audit.protocols.Mechanism`: ``sample(dataset, size, rng) -> array of size outputs``).

What a user may hand in (``wrap_mechanism(obj, epsilon=..., relation=...)``):

* a **vectorised callable** ``f(data, size, rng)`` returning ``size`` outputs (shape
  ``(size,)`` or ``(size, d)``);
* a **per-call callable** ``f(data)`` or ``f(data, rng)`` returning one output (a number or
  a short vector); dpaudit calls it ``size`` times and stacks the results;
* a **class or object with a ``sample`` method** of either shape (a class is instantiated
  with no arguments).

``data`` is the data set as a 1-D float64 numpy array (``.tolist()`` it for libraries that
want a list).  The randomness argument, when there is one, may be

* ``"generator"``: a :class:`numpy.random.Generator` — the tester's own, so a run is
  reproducible from its seed;
* ``"seed"``: an int — dpaudit draws one int seed per call from the tester's generator, in
  [0, 2^32) by default (numpy's ``RandomState`` and scikit-learn's ``random_state`` accept
  no more; ``seed_bits`` widens the range up to [0, 2^64)), so the run is reproducible as
  well;
* ``"global"``: no argument, but the mechanism draws from Python's :mod:`random` or
  numpy's legacy global state: dpaudit seeds both from the tester's generator before every
  batch (reproducible if those are its only sources);
* ``"none"``: no argument and randomness dpaudit cannot control (an OS or library CSPRNG,
  e.g. OpenDP's samplers): the run is **not reproducible**, and the report says so; a replay
  re-draws fresh outputs and re-checks the bound statistically.

With ``style="auto"`` / ``randomness="auto"`` the shape is read from the signature: three
positional parameters = vectorised ``(data, size, rng)``; two = per-call ``(data, rng)``
unless the second is called ``size``/``n``/``count``/``n_samples`` (vectorised, no rng); one =
per-call ``(data)`` with ``randomness="none"``.  A randomness parameter called ``seed`` (or
annotated ``int``) is given an int seed, any other a Generator.  Both can be forced.

A mechanism that declares a known location-scale density — ``location_scale(data) ->
(location, scale)``, ``noise_logpdf(z)`` and ``noise_logpdf_mp(z)`` (and, for the exact
tester's tail analysis, ``noise = "laplace" | "gaussian"`` or a ``noise_law``, see
:mod:`audit.privacy.noise_laws`) — also gets the exact privacy-loss tester
(:mod:`audit.privacy.exact_loss`); the wrapper passes those through.

Outputs are checked on every call: ``size`` rows of real numbers, shape ``(size,)`` or
``(size, d)`` (per-call outputs all of one shape); anything else raises
:class:`MechanismOutputError` (the tester reports it as a malformed-output problem, not as a
privacy finding).  The wrapper counts the outputs it returned and how many were finite
(``outputs_total`` / ``outputs_finite``): a run whose outputs were all NaN or infinite
measured nothing.

**The library's own facts** (:func:`library_facts`): an adapter (``audit.extra.*``) or a
user's object may state what the library itself says about its input: ``relation`` (e.g.
PyDP: add/remove; an OpenDP metric), ``size`` (a sized domain: the library accepts data
sets of exactly that many records) and ``lower`` / ``upper`` (the record bounds the library
was built with).  They are used when the user gives no flag, and a user's flag that
contradicts one of them is an error naming both (the run would otherwise test the library
against neighbours or data sets it does not claim anything about).

Nothing here prints or writes files.
"""

from __future__ import annotations

import importlib
import inspect
import math
import numbers
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from audit.privacy.relation import parse_relation
from audit.untrusted import EPSILON_MAX
from kernels.errors import InputError, InvalidParameterError
from kernels.validate import check_int, shorten

__all__ = [
    "RANDOMNESS",
    "SEED_BITS",
    "STYLES",
    "MechanismLoadError",
    "MechanismOutputError",
    "LibraryFacts",
    "UserMechanism",
    "library_facts",
    "load_object",
    "normalise_relation",
    "wrap_mechanism",
]

STYLES = ("auto", "vectorised", "per-call")
RANDOMNESS = ("auto", "generator", "seed", "global", "none")
_SIZE_NAMES = {"size", "n", "count", "num", "n_samples", "samples", "k"}
_DENSITY = ("location_scale", "noise_logpdf", "noise_logpdf_mp")
_RETURNED_NONE = ("{name} returned None instead of an output (a number, or a short vector "
                  "of numbers): does it forget to return its result?")
#: default width of the int seeds handed to a ``randomness="seed"`` mechanism: [0, 2^32)
SEED_BITS = 32


class MechanismLoadError(InputError):
    """``MODULE:OBJECT`` cannot be imported, or the object is not a usable mechanism."""


class MechanismOutputError(Exception):
    """The mechanism returned outputs of the wrong shape or type (not ``size`` rows of real
    numbers).  Deliberately not an ``InputError``: the tester must not mistake it for an
    out-of-domain data set."""


def normalise_relation(relation: Any) -> str:
    """Any spelling :func:`audit.privacy.relation.parse_relation` accepts -> the engine's
    name (``"replace-one"``, ``"add-remove-one"``, ``"linf:1"``, ``"l1:2"``, ``"trusted"``,
    ``"custom:MODULE:OBJECT"``)."""
    return parse_relation(relation).name


def load_object(ref: str) -> Any:
    """``"package.module:attr"`` -> the object; one clear error naming what failed."""
    if not isinstance(ref, str) or ":" not in ref:
        raise MechanismLoadError(
            f"mechanism must be given as MODULE:OBJECT (e.g. mypkg.mech:laplace), got {ref!r}")
    mod_name, _, attr = ref.partition(":")
    if not mod_name or not attr:
        raise MechanismLoadError(f"mechanism must be MODULE:OBJECT, got {ref!r}")
    try:
        obj: Any = importlib.import_module(mod_name)
    except SystemExit as exc:  # the module ends the interpreter at import: never our code
        raise MechanismLoadError(
            f"cannot import module {shorten(repr(mod_name))} of {shorten(repr(ref))}: it "
            f"called sys.exit({shorten(repr(exc.code))}) while being imported") from None
    except InputError as exc:  # an adapter's own clear error, raised at the module's import
        raise MechanismLoadError(
            f"{shorten(repr(ref))}: while importing {shorten(repr(mod_name))}: {exc}") from exc
    except Exception as exc:
        raise MechanismLoadError(
            f"cannot import module {shorten(repr(mod_name))} of {shorten(repr(ref))} "
            f"({type(exc).__name__}: {shorten(str(exc), 200)})"
        ) from exc
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise MechanismLoadError(f"module {mod_name!r} has no attribute {attr!r} ({ref})")
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class LibraryFacts:
    """The relation, fixed size and record bounds in force for a run (see the module
    docstring), and which of them were read from the library (``from_library``)."""

    relation: str
    size: int | None
    lower: float | None
    upper: float | None
    from_library: tuple[str, ...] = ()


def _fact(obj: Any, name: str) -> Any:
    """A plain value the object states (a string or a number), else None."""
    v = getattr(obj, name, None)
    if isinstance(v, bool) or not isinstance(v, (str, numbers.Real, np.number)):
        return None
    return v


def library_facts(obj: Any, *, relation: Any = None, size: int | None = None,
                  lower: float | None = None, upper: float | None = None) -> LibraryFacts:
    """Reconcile the user's flags with what ``obj`` states (module docstring): a flag left
    out (None) takes the library's value (the relation defaults to replace-one when neither
    says); a flag that contradicts it raises :class:`InvalidParameterError` naming both."""
    got: list[str] = []
    name = getattr(obj, "__qualname__", None) or type(obj).__name__
    lib_rel = _fact(obj, "relation")
    lib_norm = None
    if lib_rel is not None:
        try:  # a relation dpaudit test cannot name (a DSL program's "monotone1", ...) is
            lib_norm = normalise_relation(lib_rel)  # not a fact about data sets: not read
        except InputError:
            lib_rel = None
    if lib_rel is not None:
        if relation is not None and normalise_relation(relation) != lib_norm:
            raise InvalidParameterError(
                f"--relation {relation} contradicts the library: {name} states its guarantee "
                f"under {lib_rel} (its relation attribute); drop --relation or fix the "
                "adapter")
        if relation is None:
            got.append("relation")
        relation = lib_rel
    lib_size = _fact(obj, "size")
    if lib_size is not None:
        lib_size = check_int(lib_size, "size", low=1)
        if size is not None and int(size) != lib_size:
            raise InvalidParameterError(
                f"--size {size} contradicts the library: {name}'s input domain holds data "
                f"sets of exactly {lib_size} records")
        if size is None:
            got.append("size")
        size = lib_size
    bounds = []
    for flag, given in (("lower", lower), ("upper", upper)):
        lib_v = _fact(obj, flag)
        if lib_v is not None:
            lib_f = float(lib_v)
            if given is not None and float(given) != lib_f:
                raise InvalidParameterError(
                    f"--{flag} {float(given):g} contradicts the library: {name} was built "
                    f"with {flag} bound {lib_f:g}")
            if given is None:
                got.append(flag)
            given = lib_f
        bounds.append(given)
    return LibraryFacts(normalise_relation(relation if relation is not None else
                                           "replace-one"),
                        None if size is None else check_int(size, "size", low=1),
                        bounds[0], bounds[1], tuple(got))


def _positional(fn: Callable[..., Any]) -> list[inspect.Parameter]:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p for p in sig.parameters.values() if p.kind in kinds]


def _is_seed(p: inspect.Parameter) -> bool:
    ann = p.annotation
    return "seed" in p.name.lower() or ann is int or ann == "int"


def _infer(fn: Callable[..., Any], style: str, randomness: str) -> tuple[str, str]:
    params = _positional(fn)
    if style == "auto":
        if len(params) >= 3:
            style = "vectorised"
        elif len(params) == 2 and params[1].name in _SIZE_NAMES:
            style = "vectorised"
        elif len(params) in (1, 2):
            style = "per-call"
        else:
            raise MechanismLoadError(
                f"cannot tell how to call {getattr(fn, '__qualname__', fn)!r} (signature "
                f"with {len(params)} positional parameters); pass style= 'vectorised' "
                "(data, size, rng) or 'per-call' (data[, rng])")
    if randomness == "auto":
        k = 2 if style == "vectorised" else 1
        if len(params) > k:
            randomness = "seed" if _is_seed(params[k]) else "generator"
        else:
            randomness = "none"
    return style, randomness


@dataclass
class UserMechanism:
    """A user's mechanism behind the :class:`audit.protocols.Mechanism` protocol (see the
    module docstring).  ``reproducible`` is False for ``randomness="none"``."""

    target: Any
    call: Callable[..., Any]
    name: str
    claimed_epsilon: float
    relation: str
    style: str
    randomness: str
    delta: float = 0.0
    seed_bits: int = SEED_BITS
    outputs_total: int = 0
    outputs_finite: int = 0
    #: ``time.monotonic()`` when the call in progress began (None between calls): a time
    #: limit that fires tells a mechanism that did not return from dpaudit's own work
    call_started: float | None = None
    #: seconds the last call had run when something from outside (``BaseException``: a
    #: time limit, an interrupt) ended it; None when every call returned or raised itself
    interrupted_after: float | None = None

    @property
    def reproducible(self) -> bool:
        return self.randomness != "none"

    @property
    def declares_density(self) -> bool:
        """True when the target declares location_scale, noise_logpdf and noise_logpdf_mp."""
        return all(callable(getattr(self.target, a, None)) for a in _DENSITY)

    def __getattr__(self, item: str) -> Any:
        # density and noise attributes pass through (exact_loss reads them)
        if item in _DENSITY + ("noise", "noise_name", "noise_law", "gamma",
                               "exact_location_scale"):
            target = self.__dict__.get("target")
            if target is not None and hasattr(target, item):
                return getattr(target, item)
        raise AttributeError(item)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "style": self.style, "randomness": self.randomness,
                "reproducible": self.reproducible, "declares_density": self.declares_density,
                "claimed_epsilon": self.claimed_epsilon, "delta": self.delta,
                "relation": self.relation, "seed_bits": self.seed_bits}

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` outputs on ``dataset`` (checked: module docstring); a ``SystemExit`` from
        the mechanism is turned into an ordinary exception (a crash of the mechanism, not
        the end of dpaudit)."""
        self.call_started = time.monotonic()
        try:
            y = self._call(dataset, size, rng)
        except SystemExit as exc:
            raise RuntimeError(f"the mechanism called sys.exit({exc.code!r})") from None
        except BaseException:
            # stopped from outside mid-call (a time limit, Ctrl-C): say for how long it ran
            self.interrupted_after = time.monotonic() - self.call_started
            raise
        finally:
            self.call_started = None
        y = self._checked(y, size)
        self.outputs_total += int(y.size)
        self.outputs_finite += int(np.count_nonzero(np.isfinite(y)))
        return y

    def _seeds(self, rng: np.random.Generator, size: int | None = None) -> Any:
        top = 2**self.seed_bits
        if self.seed_bits <= 63:
            return rng.integers(0, top, size=size)
        return rng.integers(0, top, size=size, dtype=np.uint64)

    def _call(self, data: Any, size: int, rng: np.random.Generator) -> Any:
        if self.randomness == "global":
            s = int(rng.integers(0, 2**32))
            random.seed(s)
            np.random.seed(s)  # noqa: NPY002 - the legacy global state is what it uses
        if self.style == "vectorised":
            if self.randomness in ("generator",):
                return self.call(data, size, rng)
            if self.randomness == "seed":
                return self.call(data, size, int(self._seeds(rng)))
            return self.call(data, size)
        if self.randomness == "generator":
            out = [self.call(data, rng) for _ in range(size)]
        elif self.randomness == "seed":
            out = [self.call(data, int(s)) for s in self._seeds(rng, size)]
        else:
            out = [self.call(data) for _ in range(size)]
        if any(o is None for o in out):  # numpy would silently read None as NaN
            raise MechanismOutputError(_RETURNED_NONE.format(name=self.name))
        try:
            return np.asarray(out, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            shapes = sorted({np.shape(o) for o in out}, key=str)
            raise MechanismOutputError(
                f"the per-call outputs cannot be stacked into one array of real numbers "
                f"(shapes {shorten(str(shapes))}: {shorten(str(exc))})") from None

    def _checked(self, y: Any, size: int) -> np.ndarray:
        if y is None:
            raise MechanismOutputError(_RETURNED_NONE.format(name=self.name))
        try:
            arr = np.asarray(y)
        except Exception as exc:  # noqa: BLE001 - any object the mechanism returned
            raise MechanismOutputError(
                f"outputs are not an array ({type(exc).__name__})") from None
        if arr.dtype.kind not in "biuf":
            raise MechanismOutputError(
                f"outputs must be real numbers, got dtype {arr.dtype} "
                f"({shorten(repr(arr.ravel()[:3].tolist()))})")
        if arr.ndim not in (1, 2) or arr.shape[0] != size:
            raise MechanismOutputError(
                f"{self.name} must return {size} outputs, shape ({size},) or ({size}, d), "
                f"got shape {np.shape(arr)}")
        return np.asarray(arr, dtype=np.float64)


def _claim(obj: Any, epsilon: Any) -> float:
    if epsilon is None:
        epsilon = getattr(obj, "claimed_epsilon", None)
        if epsilon is None:
            epsilon = getattr(obj, "epsilon", None)
        if epsilon is None:
            raise InvalidParameterError(
                "no claimed epsilon: pass epsilon= (CLI: --epsilon E) or give the mechanism "
                "an 'epsilon' attribute")
    if isinstance(epsilon, bool) or not isinstance(epsilon, (numbers.Real, np.floating)) or not (
            math.isfinite(float(epsilon)) and 0 < float(epsilon) <= EPSILON_MAX):
        raise InvalidParameterError(
            f"must be a finite number > 0 and <= {EPSILON_MAX:g}, got {epsilon!r}",
            param="epsilon")
    return float(epsilon)


def wrap_mechanism(obj: Any, *, epsilon: float | None = None, relation: Any = "replace-one",
                   delta: float = 0.0, name: str | None = None, style: str = "auto",
                   randomness: str = "auto", seed_bits: int = SEED_BITS) -> UserMechanism:
    """Wrap a callable, a class or an object with ``sample`` (module docstring).

    ``epsilon``: the claimed epsilon (default: the object's ``claimed_epsilon`` or
    ``epsilon`` attribute); ``relation``: ``"replace-one"`` or ``"add-remove"``;
    ``style`` in :data:`STYLES`, ``randomness`` in :data:`RANDOMNESS`; ``seed_bits``: int
    seeds are drawn in [0, 2^seed_bits) (1..64, default 32)."""
    if isinstance(obj, UserMechanism):
        return obj
    seed_bits = check_int(seed_bits, "seed_bits", low=1, high=64)
    if style not in STYLES:
        raise InvalidParameterError(f"style must be one of {STYLES}, got {style!r}")
    if randomness not in RANDOMNESS:
        raise InvalidParameterError(f"randomness must be one of {RANDOMNESS}, got {randomness!r}")
    rel = normalise_relation(relation)
    target = obj
    if inspect.isclass(obj):
        try:
            target = obj()
        except Exception as exc:
            raise MechanismLoadError(
                f"cannot instantiate {obj.__qualname__}() with no arguments "
                f"({type(exc).__name__}: {exc}); pass an instance") from exc
    if hasattr(target, "sample") and callable(target.sample):
        call = target.sample
    elif callable(target):
        call = target
    else:
        raise MechanismLoadError(
            f"the mechanism must be a callable or have a sample method; got "
            f"{type(target).__name__}")
    st, rnd = _infer(call, style, randomness)
    eps = _claim(target, epsilon)
    if isinstance(delta, bool) or not isinstance(delta, (numbers.Real, np.floating)) or not (
            0.0 <= float(delta) < 1.0):
        raise InvalidParameterError(f"delta must be a number in [0, 1), got {delta!r}")
    label = name or getattr(target, "name", None) or getattr(
        obj, "__qualname__", None) or type(target).__name__
    return UserMechanism(target=target, call=call, name=str(label), claimed_epsilon=eps,
                         relation=rel, style=st, randomness=rnd, delta=float(delta),
                         seed_bits=seed_bits)
