"""Sign-of-difference alignment classes (audit/prove/alignment.py sign_halves, cegis stage
_signed) and per-iteration scales in the proof sketch.

Truths: Lyu, Su & Li (PVLDB 2017) Sec. 4: with monotone queries Sparse Vector needs query
noise Lap(c/eps2) only (the alignment: for d >= 0 rho + 1 and a True's nu_i + 1 - d_i; for
d <= 0 rho unchanged and nu_i - d_i), so the program below is eps-DP under monotone1 for
every n; the same scales under linf1 are not (exact witness, refuted by the prover; the
self-audit oracle confirms a certified violation at n = 3, audit/prove/selfaudit/truth.py);
with half that query noise the monotone program is not eps-DP either (oracle witness)."""

from __future__ import annotations

from fractions import Fraction

from audit.dsl import laplace, mechanism
from audit.prove.proof import prove_mechanism
from audit.prove.selfaudit import truth
from audit.prove.selfaudit.spec import Spec


@mechanism(epsilon="eps", relation="monotone1", outputs="bool-list")
def svt_monotone(q, eps, T=0.0, N=1):
    eps1 = eps / 2
    eps2 = eps - eps1
    rho = laplace(1 / eps1)
    out = []
    count = 0
    for i in range(len(q)):
        nu = laplace(N / eps2)
        if q[i] + nu >= T + rho:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="bool-list")
def svt_monotone_scales_on_linf1(q, eps, T=0.0, N=1):
    eps1 = eps / 2
    eps2 = eps - eps1
    rho = laplace(1 / eps1)
    out = []
    count = 0
    for i in range(len(q)):
        nu = laplace(N / eps2)
        if q[i] + nu >= T + rho:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


@mechanism(epsilon="eps", relation="monotone1", outputs="bool-list")
def svt_monotone_half_noise(q, eps, T=0.0, N=1):
    eps1 = eps / 2
    eps2 = eps - eps1
    rho = laplace(1 / eps1)
    out = []
    count = 0
    for i in range(len(q)):
        nu = laplace(N / (2 * eps2))
        if q[i] + nu >= T + rho:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


@mechanism(epsilon="eps", relation="onehot1", outputs="number-list")
def growing_scales(q, eps):
    out = []
    for i in range(len(q)):
        out.append(q[i] + laplace((i + 1) / eps))
    return out


def test_monotone_svt_is_proved_for_every_n_with_the_papers_alignment() -> None:
    v = prove_mechanism(svt_monotone)
    assert v.status == "verified" and v.all_n
    sketch = "\n".join(v.sketch)
    assert "[every d_i >= 0] rho (laplace, scale 2/eps, at most once per run): eta = 1" in sketch
    assert "[every d_i <= 0] rho (laplace, scale 2/eps, at most once per run): eta = 0" in sketch
    assert "1 - delta_k when output[k] is True" in sketch
    # the coefficients of each half, keyed by class|half
    assert v.alignment is not None and v.alignment["rho"]["any|up"][0] == "1"


def test_non_monotone_twin_is_not_proved() -> None:
    v = prove_mechanism(svt_monotone_scales_on_linf1, n_max=3)
    assert v.status == "refuted"
    # the oracle independently: not eps-DP at n <= 3 (certified witness)
    t = truth.truth(Spec("svt", "laplace", "linf1", Fraction(2), Fraction(2), 1), n_max=3)
    assert t.first_violation() is not None


def test_half_noise_monotone_twin_is_not_proved() -> None:
    v = prove_mechanism(svt_monotone_half_noise, n_max=3)
    assert v.status != "verified"
    t = truth.truth(Spec("svt", "laplace", "monotone1", Fraction(1), Fraction(2), 1), n_max=3)
    assert t.first_violation() is not None


def test_sketch_lists_a_scale_per_iteration_when_it_changes() -> None:
    v = prove_mechanism(growing_scales, n_max=3)
    assert v.status == "verified"
    line = next(s for s in v.sketch if s.startswith("draw@") or "laplace" in s)
    assert "per iteration: k = 0: 1/eps, k = 1: 2/eps, k = 2: 3/eps" in line, line


def _theta(alignment: dict[str, dict[str, list[str]]]) -> dict[tuple[str, str, int], Fraction]:
    return {(site, cls, k): Fraction(v) for site, per in alignment.items()
            for cls, vs in per.items() for k, v in enumerate(vs)}


def test_a_signed_alignment_is_rechecked_from_its_printed_coefficients() -> None:
    from audit.prove.alignment import build_problem
    from audit.prove.cegis import check_alignment

    v = prove_mechanism(svt_monotone, n_max=3)
    assert v.alignment is not None
    theta = _theta(v.alignment)
    assert check_alignment(build_problem(svt_monotone, [1, 2, 3]), theta) == []
    # without the threshold shift on the d >= 0 half the alignment breaks (a False at a
    # query that moved up can turn True)
    broken = dict(theta)
    broken[("rho", "any|up", 0)] = Fraction(0)
    assert check_alignment(build_problem(svt_monotone, [1, 2, 3]), broken)


def test_a_signed_proof_certificate_rechecks(tmp_path, monkeypatch) -> None:
    """The certificate of a sign-of-difference proof re-checks (queries rebuilt per half,
    cvc5 / fresh Z3, the all-n step per half, concrete runs with the half of d's sign); with
    the halves' coefficients swapped it is rejected."""
    import importlib
    import inspect
    import textwrap

    from audit.prove.certificate import recheck

    src = "from audit.dsl import laplace, mechanism\n\n" + textwrap.dedent(
        inspect.getsource(svt_monotone))
    (tmp_path / "signed_cert_prog.py").write_text(src, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module("signed_cert_prog")
    v = prove_mechanism(mod.svt_monotone, n_max=3, ref="signed_cert_prog:svt_monotone")
    assert v.status == "verified" and v.certificate is not None, v.reason
    res = recheck(v.certificate, solvers=("z3",))
    assert res.ok or (res.missing and not res.problems), res.problems
    assert res.concrete_points > 0
    swapped = dict(v.certificate)
    swapped["alignment"] = {
        (k.replace("|up|", "|@|").replace("|down|", "|up|").replace("|@|", "|down|")): val
        for k, val in v.certificate["alignment"].items()}
    assert recheck(swapped, solvers=("z3",)).problems
