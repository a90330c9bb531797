"""The registry rejects duplicates of any kind and refuses a refutation it cannot replay.

Each test registers throw-away claims / replayers and removes them again.
"""

from __future__ import annotations

import pytest

from audit import registry
from audit.cli import main
from audit.cli.outcomes import EXIT_OK
from audit.findings import Finding, Method, Verdict, counterexample_document


@pytest.fixture()
def clean_registry():
    claims, replayers = list(registry.CLAIMS), dict(registry.REPLAYERS)
    yield
    registry.CLAIMS[:] = claims
    dict.clear(registry.REPLAYERS)
    dict.update(registry.REPLAYERS, replayers)


def _refuting(check: str):
    def run(budget_s: float, seed: int) -> list[Finding]:
        cx = counterexample_document(check, "paper:toy-a", {"n": 1}, 1, 2, None)
        return [Finding(id="toy-a.claim", claim="c", reference="Eq. (1)",
                        method=Method.EXHAUSTIVE, verdict=Verdict.REFUTED, scope="n = 1",
                        counterexample=cx, subject="paper:toy-a", reading="as printed")]
    return run


def test_duplicate_replayer_rejected_same_one_again_accepted(clean_registry) -> None:
    def first(inputs: dict):
        return True, 1, 2, ""

    def second(inputs: dict):
        return False, 1, 1, ""

    registry.replayer("toy-a.dup")(first)
    registry.replayer("toy-a.dup")(first)  # the same function again (a re-import): fine
    with pytest.raises(ValueError, match="duplicate replayer"):
        registry.replayer("toy-a.dup")(second)
    with pytest.raises(ValueError, match="duplicate replayer"):
        registry.REPLAYERS["toy-a.dup"] = second  # no silent overwrite by assignment either
    assert registry.REPLAYERS["toy-a.dup"] is first


def test_claim_keys_are_namespaced_per_subject(clean_registry) -> None:
    def run(budget_s: float, seed: int) -> list[Finding]:
        return []

    registry.claim("k.same", "t", "search", paper="toy-a")(run)
    registry.claim("k.same", "t", "search", paper="toy-b")(run)  # another subject: fine
    with pytest.raises(ValueError, match="duplicate claim key 'k.same' in subject 'toy-a'"):
        registry.claim("k.same", "t", "prove", paper="toy-a")(run)
    keys = sorted(c.qualified_key for c in registry.CLAIMS if c.key == "k.same")
    assert keys == ["toy-a:k.same", "toy-b:k.same"]


def test_run_claim_refuses_an_unreplayable_refutation(clean_registry) -> None:
    c = registry.Claim("k.cx", "t", "search", _refuting("toy-a.no-replayer"), "toy-a")
    with pytest.raises(registry.MissingReplayerError, match="toy-a.no-replayer"):
        registry.run_claim(c, 1.0, 0)
    registry.replayer("toy-a.no-replayer")(lambda inputs: (True, 1, 2, "still"))
    got = registry.run_claim(c, 1.0, 0)
    assert [f.verdict for f in got] == [Verdict.REFUTED]
    r = registry.replay("toy-a.no-replayer", {"n": 1})
    assert isinstance(r, registry.Replay) and r.still_fails and r.detail == "still"


def test_replay_type_accepts_the_plain_tuple() -> None:
    assert registry.Replay.of((1, "e", "a", "d")) == registry.Replay(True, "e", "a", "d")
    assert registry.Replay.of((0, "e", "a")).detail == ""
    with pytest.raises(TypeError):
        registry.Replay.of([True, 1, 2, ""])


def test_cli_reports_an_unreplayable_claim_as_an_error(clean_registry, toy_subject, tmp_path,
                                                       capsys) -> None:
    """Through ``dpaudit search``: the refutation without a replayer becomes an error
    Finding (exit 1), never a silent refuted result."""
    import json

    registry.claim("toy-a.k", "t", "search", paper=toy_subject.name)(
        _refuting("toy-a.unreplayable"))
    code = main(["search", "--subject", toy_subject.name, "--only", "toy-a.k", "--budget",
                 "1", "--out", str(tmp_path), "--run-id", "r"])
    capsys.readouterr()
    rep = json.loads((tmp_path / "r" / "report.json").read_text())
    assert [f["verdict"] for f in rep["findings"]] == ["error"]
    assert "no replayer" in rep["findings"][0]["evidence"]["exception"]
    assert code != EXIT_OK
