"""Counterexamples, pairs and tables are untrusted input (issue 38): every case a hostile
sender tried, each with its exit code and message.

Every case failed on main cebd9d1 (replay ran ``os.system`` and said PASSES NOW, imported
code from a folder the file named, echoed files outside its folder, passed on nothing,
blocked on a FIFO, crashed with exit 4 on malformed fields; ``test`` wrote an unfinished
report for a table the form cannot carry, accepted --epsilon 750 and crashed, coerced blank
cells and JSON ``true``; a custom relation returning a truthy string counted as neighbours).

A real counterexample is made once per module by ``dpaudit test`` on a mechanism with half
the noise it claims (``half``: true epsilon 2, claimed 1), plus a signed one (a run on a
data file has the holder's key).  Sentinels: ``evil/i38evil.py`` writes a marker file when
imported; ``evil/secret.txt`` must never be echoed.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from audit.cli import main
from audit.privacy.tabular import read_table
from kernels.errors import InputError

MECH = '''import numpy as np


def half(data, size, rng):
    """Laplace with half the scale epsilon = 1 needs: true epsilon 2."""
    return float(np.sum(data)) + rng.laplace(0.0, 0.5, size)


def fair(data, size, rng):
    return float(np.sum(data)) + rng.laplace(0.0, 1.0, size)


def says_yes(a, b):
    return "no"            # a truthy string, not True


def says_array(a, b):
    return np.ones(2) > 0


def exits(a, b):
    raise SystemExit(3)


def hangs(a, b):
    while True:
        pass


def sleeper(data, size, rng):
    while True:
        pass


from os import system  # noqa: E402,F401  (a stdlib callable re-exported)
'''

EVIL = '''from pathlib import Path
Path(__file__).with_name("IMPORTED").write_text("imported")


def run(data, size, rng):
    return 0.0


def rel(a, b):
    return True
'''

SECRET = "TOPSECRET-LINE-1\nTOPSECRET-LINE-2\n"


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """code/ (the user's module), evil/ (a sentinel module and file), a real flagged
    counterexample (rep/half) and a signed one (rep/signed, a run on a data file)."""
    root = tmp_path_factory.mktemp("untrusted")
    code, evil = root / "code", root / "evil"
    code.mkdir()
    evil.mkdir()
    (code / "i38mech.py").write_text(MECH, encoding="utf-8")
    (evil / "i38evil.py").write_text(EVIL, encoding="utf-8")
    (evil / "secret.txt").write_text(SECRET, encoding="utf-8")
    (code / "d.csv").write_text("x\n0.2\n0.9\n0.4\n", encoding="utf-8")
    old = os.getcwd()
    os.chdir(code)
    try:
        common = ["--epsilon", "1", "--lower", "0", "--upper", "1", "--max-samples",
                  "4000", "--first-batch", "2000", "--n-select", "4000", "--no-float-bits",
                  "--no-progress", "--out", str(root / "rep")]
        assert main(["test", "i38mech:half", "--relation", "add-remove", *common,
                     "--run-id", "half"]) == 1
        assert main(["test", "i38mech:half", "--data", "d.csv", "--column", "x", *common,
                     "--run-id", "signed"]) == 1
    finally:
        os.chdir(old)
        sys.modules.pop("i38mech", None)
    return {"root": root, "code": code, "evil": evil,
            "cx": root / "rep" / "half" / "counterexamples" / "user.blackbox.json",
            "signed": root / "rep" / "signed" / "confidential" / "counterexamples" /
            "user.blackbox.json"}


def _doc(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _replay(work: dict[str, Path], doc: dict[str, Any] | None, capsys: Any,
            monkeypatch: pytest.MonkeyPatch, *extra: str, cwd: Path | None = None,
            name: str = "user.blackbox.json") -> tuple[int, str, str]:
    """Write ``doc`` as a counterexample in a fresh report folder and replay it from
    ``cwd`` (default: the user's code folder)."""
    if doc is None:
        path = work["cx"]
    else:
        d = work["root"] / "crafted" / "counterexamples"
        d.mkdir(parents=True, exist_ok=True)
        path = d / name
        path.write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.chdir(cwd or work["code"])
    monkeypatch.setattr(sys, "path", list(sys.path))
    for m in ("i38mech", "i38evil"):
        monkeypatch.delitem(sys.modules, m, raising=False)
    code = main(["replay", str(path), *extra])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _not_imported(work: dict[str, Path]) -> bool:
    return not (work["evil"] / "IMPORTED").exists() and "i38evil" not in sys.modules


# ------------------------------------------------------------------- the genuine file
def test_genuine_counterexample_still_fails_and_names_what_ran(work, capsys, monkeypatch):
    code, out, err = _replay(work, None, capsys, monkeypatch)
    assert code == 1, err
    assert "STILL FAILS" in out
    assert "imports   mechanism module i38mech from " + str(work["code"] / "i38mech.py") in out
    assert "ran       mechanism i38mech:half, relation add-remove-one" in out
    assert "unsigned" in out  # no key in a run without data: said so
    doc = _doc(work["cx"])
    assert "import_path" not in doc["inputs"]  # what to run, never where from
    assert set(doc["inputs"]["environment"]) >= {"numpy", "dpaudit"}


# ------------------------------------------------------------------- code named by the file
def test_import_path_outside_the_folder_is_refused(work, capsys, monkeypatch):
    doc = _doc(work["cx"])
    doc["inputs"].update(mechanism="i38evil:run", import_path=str(work["evil"]))
    doc["subject"] = "mechanism:i38evil:run"
    code, out, err = _replay(work, doc, capsys, monkeypatch)
    assert code == 2 and "lies outside the counterexample's folder" in err
    assert "--trust-code" in err and "PASSES NOW" not in out
    assert _not_imported(work)


@pytest.mark.parametrize("ref", ["os:system", "builtins:eval", "subprocess:run",
                                 "i38mech:system"])
def test_standard_library_callables_are_refused(work, capsys, monkeypatch, ref):
    doc = _doc(work["cx"])
    doc["inputs"]["mechanism"] = ref
    doc["subject"] = f"mechanism:{ref}"
    code, out, err = _replay(work, doc, capsys, monkeypatch)
    assert code == 2, (out, err)
    assert "standard-library" in err or "standard library" in err
    assert "PASSES NOW" not in out


def test_custom_relation_is_not_imported_from_elsewhere(work, capsys, monkeypatch):
    doc = _doc(work["cx"])
    doc["inputs"]["relation"] = "custom:i38evil:rel"
    code, _, err = _replay(work, doc, capsys, monkeypatch)
    assert code == 2 and "no module 'i38evil'" in err
    assert _not_imported(work)
    doc["inputs"]["relation"] = "custom:os:system"
    code, _, err = _replay(work, doc, capsys, monkeypatch)
    assert code == 2 and "standard-library" in err


def test_kernels_subject_is_not_imported_from_elsewhere(work, capsys, monkeypatch):
    doc = {"schema": "dpaudit.counterexample/1", "check": "gini.some-check",
           "subject": "kernels:i38evil", "inputs": {}, "expected": 1, "actual": 2}
    monkeypatch.syspath_prepend(str(work["evil"]))  # even on sys.path: not a trusted place
    code, _, err = _replay(work, doc, capsys, monkeypatch)
    assert code == 2 and "outside the installed environment" in err, err
    assert _not_imported(work)


def test_swapped_mechanism_is_refused_not_misattributed(work, capsys, monkeypatch):
    doc = _doc(work["cx"])
    doc["inputs"]["mechanism"] = "i38mech:fair"  # the subject still names half
    code, out, err = _replay(work, doc, capsys, monkeypatch)
    assert code == 2 and "subject and code disagree" in err
    assert "PASSES NOW" not in out


def test_signed_file_verifies_and_an_altered_one_is_refused(work, capsys, monkeypatch):
    code, out, err = _replay(work, None, capsys, monkeypatch)  # warm: module importable
    signed = _doc(work["signed"])
    assert signed["signature"]["alg"] == "hmac-sha256"
    monkeypatch.chdir(work["code"])
    code = main(["replay", str(work["signed"])])
    out = capsys.readouterr().out
    assert code == 1 and "MAC verified" in out
    for field, value in (("relation", "linf:1"), ("mechanism", "i38mech:fair"),
                         ("epsilon", 5.0)):
        doc = copy.deepcopy(signed)
        doc["inputs"][field] = value
        altered = work["signed"].with_name(f"altered-{field}.json")
        altered.write_text(json.dumps(doc), encoding="utf-8")
        code = main(["replay", str(altered)])
        err = capsys.readouterr().err
        assert code == 2 and "differs from what its keyed MAC covers" in err, (field, err)
    doc = copy.deepcopy(signed)
    doc["subject"] = "mechanism:i38mech:fair"
    altered = work["signed"].with_name("altered-subject.json")
    altered.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["replay", str(altered)]) == 2


# ------------------------------------------------------------------- files named by the file
def _certify_doc() -> dict[str, Any]:
    src = (Path(__file__).resolve().parents[3] / "reports" / "examples" / "certify-unsnapped"
           / "confidential" / "counterexamples" / "certify.float-bits.json")
    doc = _doc(src)
    doc.pop("signature")
    return doc


@pytest.mark.parametrize("where", ["absolute", "dotdot"])
def test_data_path_outside_the_folder_is_never_read(work, capsys, monkeypatch, where):
    doc = _certify_doc()
    secret = work["evil"] / "secret.txt"
    if where == "absolute":
        doc["inputs"]["source"].update(file=str(secret), file_from_report="nope.csv")
    else:
        doc["inputs"]["source"].update(file="nope.csv",
                                       file_from_report="../../evil/secret.txt")
    code, out, err = _replay(work, doc, capsys, monkeypatch, name="certify.float-bits.json")
    assert code == 2 and "pass --data FILE" in err
    assert "TOPSECRET" not in out + err


def test_pair_rank_out_of_range_is_an_error_not_a_pass(work, capsys, monkeypatch):
    """The certify replay of a pair whose rank is out of range evaluated nothing: exit 2
    (main: actual None ... PASSES NOW, exit 0)."""
    doc = _certify_doc()
    doc["inputs"]["pairs"] = [{"new": 2.0, "op": "replace", "rank": 99}]
    data = Path(__file__).resolve().parents[3] / "reports" / "examples" / "data" / "toy4.csv"
    key = (Path(__file__).resolve().parents[3] / "reports" / "examples" / "certify-unsnapped"
           / "confidential" / "fingerprint.key")
    code, out, err = _replay(work, doc, capsys, monkeypatch, "--data", str(data),
                             "--key-file", str(key), name="certify.float-bits.json")
    assert code == 2, (out, err)
    assert "PASSES NOW" not in out
    assert "evaluated nothing" in err or "rank" in err


def _cli(args: list[str], cwd: Path, timeout: float = 60.0) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "audit.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_devices_and_fifos_are_refused_before_reading(work, capsys, monkeypatch):
    """In process: main blocked for ever on these (and ignored SIGINT); a refusal comes
    from ``stat`` before any open, so a regression would hang here, not pass."""
    fifo = work["root"] / "a.fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    monkeypatch.chdir(work["code"])
    for args in (["replay", "/dev/zero"], ["replay", str(fifo)],
                 ["replay", str(work["cx"]), "--key-file", "/dev/zero"],
                 ["replay", str(work["cx"]), "--key-file", str(fifo)]):
        assert main(args) == 2, args
        assert "not a regular file" in capsys.readouterr().err


@pytest.mark.parametrize("field, value, needle", [
    ("n", 10**30, "inputs.n"),
    ("n", 2**62, "inputs.n"),
    ("chunk_size", 0, "inputs.chunk_size"),
    ("epsilon", 1e6, "inputs.epsilon"),
    ("epsilon", 750, "inputs.epsilon"),
    ("direction_index", 7, "inputs.direction_index"),
    ("alpha_per_bound", 0, "inputs.alpha_per_bound"),
    ("seed_bits", 1000, "inputs.seed_bits"),
    ("pair", {"first": "abc", "second": [1]}, "inputs.pair.first"),
    ("pair", {"first": [True], "second": [1.0]}, "inputs.pair.first[0]"),
    ("counts", {"first": 10**9, "second": 0}, "inputs.counts.first"),
    ("rng_state", {"bit_generator": "seed"}, "inputs.rng_state"),
    ("event", "x", "inputs.event"),
    ("mechanism", "../../evil:run", "inputs.mechanism"),
    ("relation", 5, "inputs.relation"),
])
def test_malformed_fields_are_exit_2_naming_the_field(work, capsys, monkeypatch, field,
                                                      value, needle):
    doc = _doc(work["cx"])
    doc["inputs"][field] = value
    code, out, err = _replay(work, doc, capsys, monkeypatch)
    assert code == 2, (field, out, err)
    assert needle in err, err


def test_numbers_of_a_million_digits_are_refused_at_once(work, capsys, monkeypatch):
    text = work["cx"].read_text(encoding="utf-8").replace('"n": 4000', '"n": ' + "9" * 10**6)
    path = work["root"] / "crafted" / "counterexamples" / "big.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    monkeypatch.chdir(work["code"])
    t0 = time.process_time()
    assert main(["replay", str(path)]) == 2
    assert "digit" in capsys.readouterr().err
    assert time.process_time() - t0 < 5


def test_malformed_inputs_of_other_checks_are_exit_2(work, capsys, monkeypatch):
    """A file whose inputs do not fit the check named (a paper claim's replayer) is bad
    input: ValueError, KeyError, TypeError ... inside the replayer are exit 2, not 4."""
    src = (Path(__file__).resolve().parents[3] / "reports" / "examples" / "prove" /
           "counterexamples")
    doc = _doc(sorted(src.glob("*.json"))[0])
    for inputs in ({}, {"x": "nan"}, {k: "bad" for k in doc["inputs"]}):
        d = {**doc, "inputs": inputs}
        code, _, err = _replay(work, d, capsys, monkeypatch)
        assert code == 2, (inputs, err)


# ------------------------------------------------------------------- prove, from another shell
DSL = '''from audit.examples.dsl_mechanisms import noisy_max_half_noise as mech  # noqa: F401
'''


@pytest.mark.slow  # a prove run and two fresh interpreters: ~25 s
def test_prove_counterexample_replays_from_a_fresh_shell(work, capsys, monkeypatch):
    """A genuine ``dpaudit prove MODULE:OBJECT`` refutation replays from a fresh process in
    the module's folder (main: exit 4, module not found); a swapped program is refused."""
    (work["code"] / "i38dsl.py").write_text(DSL, encoding="utf-8")
    monkeypatch.chdir(work["code"])
    out = work["root"] / "rep"
    r = _cli(["prove", "i38dsl:mech", "--n-max", "2", "--epsilon", "1", "--out", str(out),
              "--run-id", "dsl"], work["code"], timeout=300)
    assert r.returncode == 1, r.stderr
    cx = out / "dsl" / "counterexamples" / "prove.alignment.json"
    r = _cli(["replay", str(cx)], work["code"], timeout=300)
    assert r.returncode == 1 and "STILL FAILS" in r.stdout, r.stderr
    assert "program audit.prove.benchmark" in r.stdout  # the header names what ran
    doc = _doc(cx)
    doc["inputs"]["witness"]["program"] = "audit.prove.benchmark.noisy_max:noisy_max"
    code, _, err = _replay(work, doc, capsys, monkeypatch, name="prove.alignment.json")
    assert code == 2 and "subject and code disagree" in err


# ------------------------------------------------------------------- dpaudit test inputs
def _test_cli(work: dict[str, Path], capsys: Any, monkeypatch: pytest.MonkeyPatch,
              *args: str) -> tuple[int, str, Path]:
    out = work["root"] / f"out-{time.monotonic_ns()}"
    monkeypatch.chdir(work["code"])
    monkeypatch.delitem(sys.modules, "i38mech", raising=False)
    code = main(["test", *args, "--out", str(out), "--no-progress", "--max-samples", "4000",
                 "--first-batch", "2000", "--n-select", "4000", "--no-float-bits"])
    return code, capsys.readouterr().err, out


def test_table_the_form_cannot_carry_is_exit_2_nothing_written(work, capsys, monkeypatch):
    (work["code"] / "cities.csv").write_text("age,city\n30,paris\n40,rome\n50,oslo\n",
                                             encoding="utf-8")
    code, err, out = _test_cli(work, capsys, monkeypatch, "i38mech:fair", "--epsilon", "1",
                               "--data", "cities.csv", "--columns", "age,city")
    assert code == 2 and not out.exists()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "column(s) city hold categories" in lines[0]
    assert "mechanism rejected" not in err


@pytest.mark.parametrize("command", ["test", "prove"])
@pytest.mark.parametrize("eps", ["100.5", "750", "1e308"])
def test_epsilon_above_100_is_refused_by_every_command(work, capsys, monkeypatch, command,
                                                       eps):
    monkeypatch.chdir(work["code"])
    args = (["test", "i38mech:fair", "--lower", "0", "--upper", "1"] if command == "test"
            else ["prove", "audit.examples.dsl_mechanisms:sparse_vector"])
    out = work["root"] / "eps-out"
    code = main([*args, "--epsilon", eps, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "<= 100" in err and not out.exists()


def test_certify_and_test_share_the_epsilon_bound() -> None:
    from audit.cli.argtypes import EPSILON_MAX, epsilon
    from audit.untrusted import EPSILON_MAX as LAYER_MAX

    assert EPSILON_MAX == LAYER_MAX == 100.0
    assert epsilon("100") == 100.0
    with pytest.raises(Exception, match="<= 100"):
        epsilon("100.0001")


@pytest.mark.parametrize("text, needle", [
    ("age,city\n30,paris\n,rome\n", "row 2, column 'age': blank cell"),
    ("age,city\n30,paris\n40,\n", "row 2, column 'city': blank cell"),
    ("age\n30\nforty\n", "numbers or categories, not both"),
])
def test_table_cells_follow_the_column_rule(tmp_path, text, needle):
    p = tmp_path / "t.csv"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=needle):
        read_table(p)


def test_json_true_is_not_a_number_and_bom_is_stripped(tmp_path):
    p = tmp_path / "t.json"
    p.write_text(json.dumps([{"a": 1, "b": True}, {"a": 2, "b": False}]), encoding="utf-8")
    with pytest.raises(InputError, match="true is neither a number nor text"):
        read_table(p)
    c = tmp_path / "bom.csv"
    c.write_bytes("\ufeffage,city\n30,paris\n".encode())
    t = read_table(c, ["age", "city"])  # main: "no column(s) ['age']" (the BOM kept)
    assert t.columns == ("age", "city") and t.rows[0, 0] == 30.0


@pytest.mark.parametrize("rel, needle", [
    ("says_yes", "returned 'no' (str); it must return True or False"),
    ("says_array", "it must return True or False"),
    ("exits", "called sys.exit(3)"),
])
def test_custom_relation_results_are_checked(work, capsys, monkeypatch, rel, needle):
    pairs = work["code"] / "pairs.json"
    pairs.write_text(json.dumps([[[0.1, 0.2], [0.1, 0.3]]]), encoding="utf-8")
    code, err, out = _test_cli(work, capsys, monkeypatch, "i38mech:fair", "--epsilon", "1",
                               "--pairs", "pairs.json", "--relation", f"custom:i38mech:{rel}")
    assert code == 2 and needle in err, err
    assert not out.exists()


def test_hanging_relation_is_stopped_by_the_watchdog(work, capsys, monkeypatch):
    pairs = work["code"] / "pairs.json"
    pairs.write_text(json.dumps([[[0.1, 0.2], [0.1, 0.3]]]), encoding="utf-8")
    t0 = time.monotonic()
    code, err, out = _test_cli(work, capsys, monkeypatch, "i38mech:fair", "--epsilon", "1",
                               "--pairs", "pairs.json", "--relation", "custom:i38mech:hangs",
                               "--max-seconds", "0.5")
    assert code == 2 and "did not return within --max-seconds" in err, err
    assert time.monotonic() - t0 < 30 and not out.exists()


def test_replay_watchdog_stops_a_hanging_mechanism(work, capsys, monkeypatch):
    doc = _doc(work["cx"])
    doc["inputs"]["mechanism"] = "i38mech:sleeper"
    doc["subject"] = "mechanism:i38mech:sleeper"
    t0 = time.monotonic()
    code, out, err = _replay(work, doc, capsys, monkeypatch, "--max-seconds", "0.5")
    assert code == 3 and "INCONCLUSIVE" in out and "PASSES NOW" not in out, (out, err)
    assert time.monotonic() - t0 < 30


@pytest.mark.parametrize("doc, needle", [
    ([[[0.1, True], [0.1, 0.3]]], "record 2: must be a number, got True"),
    ([[[0.1], [0.2], [0.3]]], "pair 1 must be [D, D']"),
    ({"a": 1}, "expected a JSON list"),
])
def test_pairs_file_is_checked(work, capsys, monkeypatch, doc, needle):
    pairs = work["code"] / "bad-pairs.json"
    pairs.write_text(json.dumps(doc), encoding="utf-8")
    code, err, out = _test_cli(work, capsys, monkeypatch, "i38mech:fair", "--epsilon", "1",
                               "--pairs", "bad-pairs.json")
    assert code == 2 and needle in err, err
    assert not out.exists()


# ------------------------------------------------------------------- the fuzz
# Hypothesis mutates the real counterexample field by field (1-3 mutations: replace a value
# by a hostile one, delete a field, add import_path / source / signature) and replays it in
# process.  Asserted for every example: exit in {0, 1, 2} (never 4), at most FUZZ_WALL_S
# seconds, the sentinel module never imported and nothing imported from outside the trusted
# places (sys.modules checked), no file opened outside the allowed folders (an audit hook),
# the sentinel secret never printed.  Default: 25 examples (seeded by hypothesis'
# derandomize); slow: 400.
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FUZZ_WALL_S = 60.0
_OPENED: list[str] = []
_RECORDING = [False]


def _hook(event: str, args: tuple) -> None:
    # the replay runs in the main thread: threads left by other tests are not recorded
    if _RECORDING[0] and event == "open" and args and isinstance(args[0], (str, bytes)) \
            and threading.current_thread() is threading.main_thread():
        _OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(_hook)  # records only while a fuzz example runs (hooks cannot be removed)

_HOSTILE = [None, True, False, 0, -1, 1, 3, 2**24 + 1, 2**63, 10**30, 0.5, 1e308, -1e308,
            "", "x", "nan", "inf", "os:system", "builtins:eval", "i38evil:run",
            "i38mech:fair", "custom:i38evil:rel", "custom:os:system", "kernels:i38evil",
            "../../evil/secret.txt", "/dev/zero", [], {}, [1, 2], [True], {"a": 1},
            {"bit_generator": "MT19937"}, "mechanism:i38evil:run"]


def _paths(obj: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:3]):
            out += _paths(v, (*prefix, i))
    return out


def _mutate(doc: Any, path: tuple, op: str, value: Any, evil: Path) -> None:
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    last = path[-1]
    if op == "attack" and isinstance(doc.get("inputs"), dict):  # a coordinated swap
        ref = value if isinstance(value, str) and ":" in value else "i38evil:run"
        doc["subject"] = f"mechanism:{ref}"
        doc["inputs"].update(mechanism=ref, import_path=str(evil))
    elif op == "delete" and isinstance(parent, dict):
        parent.pop(last, None)
    elif op == "add" and isinstance(doc.get("inputs"), dict):
        doc["inputs"].update({"import_path": str(evil)} if value is None else
                             {"source": {"file": str(evil / "secret.txt"),
                                         "file_from_report": "../../evil/secret.txt"}}
                             if value is True else {"signature": value})
    else:
        parent[last] = value


def _allowed_roots(work: dict[str, Path]) -> list[str]:
    import audit

    repo = Path(audit.__file__).resolve().parents[1]
    return [os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, repo, work["code"],
                                          work["root"] / "crafted", "/dev/null", "/proc",
                                          "/sys", "/dev/urandom", "/etc/localtime")]


def _fuzz_one(work: dict[str, Path], data: Any, capsys: Any) -> None:
    from audit.trusted_code import is_inside

    doc = _doc(work["cx"])
    paths = _paths(doc)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        op = data.draw(st.sampled_from(["replace", "replace", "delete", "add", "attack"]),
                       label="op")
        path = data.draw(st.sampled_from(paths), label="field")
        value = data.draw(st.sampled_from(_HOSTILE), label="value")
        try:
            _mutate(doc, path, op, value, work["evil"])
        except (KeyError, IndexError, TypeError):
            continue  # the field is gone after an earlier mutation
    d = work["root"] / "crafted" / "counterexamples"
    d.mkdir(parents=True, exist_ok=True)
    path = d / "fuzz.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    before = set(sys.modules)
    _OPENED.clear()
    _RECORDING[0] = True
    t0 = time.monotonic()
    try:
        code = main(["replay", str(path)])
    finally:
        _RECORDING[0] = False
    wall = time.monotonic() - t0
    cap = capsys.readouterr()
    assert code in (0, 1, 2), (code, cap.err[-400:], json.dumps(doc)[:600])
    assert wall < FUZZ_WALL_S, wall
    assert _not_imported(work) and "TOPSECRET" not in cap.out + cap.err
    roots = [*_allowed_roots(work), *[os.path.realpath(p) for p in sys.path if p]]
    for name in set(sys.modules) - before:
        f = getattr(sys.modules[name], "__file__", None)
        assert f is None or any(is_inside(f, r) for r in roots), (name, f)
    allowed = _allowed_roots(work)
    outside = [p for p in _OPENED if not any(is_inside(os.path.abspath(p), r)
                                             for r in allowed)]
    assert not outside, outside


def _fuzz_test(examples: int) -> Any:
    """A Hypothesis test of ``examples`` mutated files (seeded: derandomize)."""
    @settings(max_examples=examples, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture,
                                     HealthCheck.too_slow])
    @given(data=st.data())
    def fuzz(work, capsys, monkeypatch, data):
        monkeypatch.chdir(work["code"])
        monkeypatch.setattr(sys, "path", list(sys.path))
        _fuzz_one(work, data, capsys)

    return fuzz


test_fuzz_replay_of_mutated_counterexamples = _fuzz_test(25)
test_fuzz_replay_of_mutated_counterexamples_many = pytest.mark.slow(_fuzz_test(400))


# ------------------------------------------------------------------- exit 2 writes nothing
#: one bad input per command that gets past argument parsing where the command allows it
#: (the run is refused inside, after reading files): exit 2, and nothing written anywhere
EXIT2 = {
    "certify": (["certify", "ragged.csv", "--lower", "0", "--upper", "3", "--out", "o"],
                "has 2 fields"),
    "calibrate": (["calibrate", "--seed", "x", "--out", "o"], "--seed"),
    "test": (["test", "i38mech:fair", "--epsilon", "1", "--data", "cities.csv",
              "--columns", "age,city", "--out", "o"], "hold categories"),
    "release": (["release", "ragged.csv", "--lower", "0", "--upper", "3"], "has 2 fields"),
    "regress": (["regress", "--kernels", "i38nosuch", "--out", "o"], "cannot import"),
    "replay": (["replay", "hostile.json"], "standard-library"),
    "prove": (["prove", "audit.examples.opendp_laplace:laplace_sum", "--out", "o"],
              "not a DSL mechanism"),
    "search": (["search", "--budget", "-1", "--out", "o"], "--budget"),
    "reproduce": (["reproduce", "--budget", "-1", "--out", "o"], "--budget"),
    "subjects": (["subjects", "--nope"], "unrecognized"),
}


def test_every_command_has_an_exit_2_case() -> None:
    from audit.cli.app import command_table

    assert {name for name, _ in command_table()} <= set(EXIT2)


@pytest.mark.parametrize("name", sorted(EXIT2))
def test_exit_2_writes_nothing(work, capsys, monkeypatch, tmp_path, name):
    argv, needle = EXIT2[name]
    (tmp_path / "ragged.csv").write_text("x\n1\n,\n2\n", encoding="utf-8")
    (tmp_path / "cities.csv").write_text("age,city\n30,paris\n40,rome\n", encoding="utf-8")
    (tmp_path / "i38mech.py").write_text(MECH, encoding="utf-8")
    hostile = _doc(work["cx"])
    hostile["inputs"]["mechanism"] = "os:system"
    hostile["subject"] = "mechanism:os:system"
    (tmp_path / "hostile.json").write_text(json.dumps(hostile), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "i38mech", raising=False)
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and needle in err, (name, err)
    after = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")
             if "__pycache__" not in p.parts}
    assert after == {p: t for p, t in before.items() if "__pycache__" not in p.parts}, name


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="POSIX signals")
def test_sigint_ends_a_hanging_replay(work):
    """A replay whose mechanism never returns ends on SIGINT with exit 130 (the FIFO and
    device cases never get that far: refused before opening)."""
    import signal

    doc = _doc(work["cx"])
    doc["inputs"]["mechanism"] = "i38mech:sleeper"
    doc["subject"] = "mechanism:i38mech:sleeper"
    d = work["root"] / "crafted" / "counterexamples"
    d.mkdir(parents=True, exist_ok=True)
    (d / "sleeper.json").write_text(json.dumps(doc), encoding="utf-8")
    p = subprocess.Popen([sys.executable, "-m", "audit.cli", "replay", str(d / "sleeper.json")],
                         cwd=work["code"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert p.stdout is not None
        for line in p.stdout:  # the mechanism is imported (shown first), then runs forever
            if line.startswith("  imports"):
                break
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        assert p.wait(timeout=30) == 130
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
