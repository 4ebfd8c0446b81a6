"""The klondike package: generator reproducibility, input and output validators (Kattis convention, run
as subprocesses), the statistical tolerance's false-rejection rate, the fuzz hooks, and the submissions
against the reference (run directly: none of them is hostile)."""

from __future__ import annotations

import filecmp
import importlib.util
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from reference import klondike as K

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "problems" / "klondike"
INPUT_VALIDATOR = PKG / "input_validators" / "validate.py"
OUTPUT_VALIDATOR = PKG / "output_validator" / "klondike_validator" / "validate.py"
VALUES = json.loads((OUTPUT_VALIDATOR.parent / "reference_values.json").read_text())


def all_inputs() -> list[Path]:
    return sorted((PKG / "data").rglob("*.in"))


def check_input(text: str) -> int:
    return subprocess.run([sys.executable, str(INPUT_VALIDATOR)], input=text.encode(), capture_output=True).returncode


def judge(tmp_path: Path, test_in: str, test_ans: str, output: str) -> tuple[int, str]:
    (tmp_path / "t.in").write_text(test_in)
    (tmp_path / "t.ans").write_text(test_ans)
    feedback = tmp_path / "fb"
    feedback.mkdir(exist_ok=True)
    proc = subprocess.run(
        [sys.executable, str(OUTPUT_VALIDATOR), str(tmp_path / "t.in"), str(tmp_path / "t.ans"), f"{feedback}/"],
        input=output.encode(),
        capture_output=True,
    )
    return proc.returncode, (feedback / "judgemessage.txt").read_text()


def load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# --- generator -------------------------------------------------------------------------------------


def test_generator_reproduces_the_committed_data(tmp_path: Path) -> None:
    out = tmp_path / "data"
    subprocess.run([sys.executable, str(PKG / "generators" / "gen.py"), "--out", str(out)], check=True)
    committed = sorted(p.relative_to(PKG / "data") for p in (PKG / "data").rglob("*") if p.is_file())
    generated = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    assert generated == committed
    for rel in committed:
        assert filecmp.cmp(out / rel, PKG / "data" / rel, shallow=False), rel


def test_data_covers_what_the_issue_asks_for() -> None:
    solve = PKG / "data" / "secret" / "solve"
    deals = {p.stem: [K.parse_deal(line) for line in p.read_text().splitlines()[1:]] for p in solve.glob("*.in")}
    everything = [d for ds in deals.values() for d in ds]
    scores = [K.optimal_score(d) for d in everything]
    assert any(K.no_move_at_start(d) for d in everything)
    assert 52 in scores
    assert any(K.search(d, kings="none").score < s for d, s in zip(everything, scores, strict=True))
    assert sum(K.greedy_score(d) < K.optimal_score(d) for d in deals["05_king_choice"]) >= 5
    # large search spaces (the seed's method): the first-chain deal sizes are recorded by find_deals.py
    notes = (PKG / "generators" / "special_deals.txt").read_text()
    assert max(int(x.split()[-2]) for x in notes.splitlines() if x.startswith("large")) >= 200_000


# --- input validator -----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", all_inputs(), ids=lambda p: str(p.relative_to(PKG / "data")))
def test_every_test_input_is_valid(path: Path) -> None:
    assert check_input(path.read_text()) == 42


def _deal_line(seed: int = 0) -> str:
    return K.format_deal(K.uniform_deal(random.Random(seed)))


@pytest.mark.parametrize(
    "text",
    [
        "solve 1\n" + _deal_line(),  # no final newline
        "solve 2\n" + _deal_line() + "\n",  # one deal missing
        "solve 0\n",
        "solve 1\n" + _deal_line().replace(" ", "  ", 1) + "\n",
        "solve 1\n" + _deal_line() + " \n",
        "solve 1\n" + _deal_line().lower() + "\n",
        "solve 1\n" + " ".join(_deal_line().split()[:51]) + "\n",
        "solve 1\n" + " ".join(_deal_line().split()[:51] + [_deal_line().split()[0]]) + "\n",
        "solve 01\n" + _deal_line() + "\n",
        "solve 1\r\n" + _deal_line() + "\r\n",
        "stats 999 1\n",
        "stats 100001 1\n",
        "stats 1000 2147483648\n",
        "stats 1000\n",
        "stats 1000 1\n\n",
        "play 1\n",
    ],
)
def test_input_validator_rejects(text: str) -> None:
    assert check_input(text) == 43


def test_input_validator_accepts_the_limits() -> None:
    assert check_input("stats 1000 0\n") == 42
    assert check_input("stats 100000 2147483647\n") == 42
    assert check_input("solve 1000\n" + "".join(_deal_line(i) + "\n" for i in range(1000))) == 42


# --- output validator ----------------------------------------------------------------------------------


def test_solve_right_and_wrong_outputs(tmp_path: Path) -> None:
    test_in = "solve 3\n" + "".join(_deal_line(i) + "\n" for i in range(3))
    ans = "".join(f"{K.optimal_score(K.parse_deal(_deal_line(i)))}\n" for i in range(3))
    right = ans.split()
    assert judge(tmp_path, test_in, ans, ans)[0] == 42
    assert judge(tmp_path, test_in, ans, " ".join(right))[0] == 42  # white space is free
    wrong = [str(int(right[0]) + 1), *right[1:]]
    code, message = judge(tmp_path, test_in, ans, "\n".join(wrong) + "\n")
    assert code == 43 and "deal 1" in message
    for bad in (right[:2], [*right, "0"], [right[0], "x", right[2]], [right[0], "-1", right[2]], []):
        assert judge(tmp_path, test_in, ans, "\n".join(bad) + "\n")[0] == 43, bad


def test_stats_accepts_the_reference_values_and_rejects_far_ones(tmp_path: Path) -> None:
    mu, sigma = VALUES["mean"], VALUES["std"]
    ref = K.Summary(VALUES["n"], mu, sigma, VALUES["mean_se"], VALUES["std_se"], VALUES["fourth_central_moment"])
    n = 10_000
    mean_tol, std_tol = K.stats_tolerance(n, ref)
    test_in = f"stats {n} 7\n"
    ok = [f"{mu} {sigma}", f"{mu:.6f} {sigma:.6f} 12.5 0.001", f"{mu + 0.9 * mean_tol} {sigma - 0.9 * std_tol}"]
    for out in ok:
        code, message = judge(tmp_path, test_in, "", out + "\n")
        assert code == 42, (out, message)
    bad = [
        f"{mu + 1.1 * mean_tol} {sigma}",
        f"{mu - 1.1 * mean_tol} {sigma}",
        f"{mu} {sigma + 1.1 * std_tol}",
        f"{mu}",
        f"{mu} {sigma} 1 2 3",
        f"nan {sigma}",
        f"{mu} inf",
        "0.82 one",
    ]
    for out in bad:
        assert judge(tmp_path, test_in, "", out + "\n")[0] == 43, out
    # the tolerance shrinks with N: an estimate fine for N = 1000 is rejected for N = 100 000
    loose = f"{mu + 0.1} {sigma}"
    assert judge(tmp_path, "stats 1000 7\n", "", loose)[0] == 42
    assert judge(tmp_path, "stats 100000 7\n", "", loose)[0] == 43


@pytest.mark.parametrize("n", [1000, 2000, 10_000])
def test_stats_tolerance_rarely_rejects_a_right_program(n: int) -> None:
    """Resample N scores from the stored histogram (the reference's 10^6 deals) many times: the tolerance
    must reject a right estimate far less often than 1 in 200 (4 standard errors: about 1 in 10 000)."""
    hist = VALUES["histogram"]
    values = np.array([int(k) for k in hist], dtype=float)
    probs = np.array(list(hist.values()), dtype=float)
    probs /= probs.sum()
    ref = K.Summary(
        VALUES["n"], VALUES["mean"], VALUES["std"], VALUES["mean_se"], VALUES["std_se"], VALUES["fourth_central_moment"]
    )
    mean_tol, std_tol = K.stats_tolerance(n, ref)
    rng = np.random.default_rng(n)
    trials = 2000
    samples = rng.choice(values, size=(trials, n), p=probs)
    means, stds = samples.mean(axis=1), samples.std(axis=1)
    rejected = (np.abs(means - ref.mean) > mean_tol) | (np.abs(stds - ref.std) > std_tol)
    assert rejected.sum() <= trials // 200


def test_stored_reference_values_are_consistent() -> None:
    hist = {int(k): v for k, v in VALUES["histogram"].items()}
    n = sum(hist.values())
    assert n == VALUES["n"] >= 200_000
    mean = sum(k * v for k, v in hist.items()) / n
    assert mean == pytest.approx(VALUES["mean"], rel=1e-9)
    std = (sum(v * (k - mean) ** 2 for k, v in hist.items()) / n) ** 0.5
    assert std == pytest.approx(VALUES["std"], rel=1e-9)
    assert VALUES["mean_se"] == pytest.approx(std / n**0.5)
    p = K.no_move_probability()
    assert abs(VALUES["no_move_share"] - p) <= 4 * (p * (1 - p) / n) ** 0.5


def test_reference_values_match_a_fresh_run_on_a_prefix() -> None:
    """The bench's stream is deals_for_seed(n, seed): the first 2000 deals' scores must agree with the
    stored histogram's support, and the same call is deterministic."""
    first = [K.optimal_score(d) for d in K.deals_for_seed(2000, VALUES["seed"])]
    again = [K.optimal_score(d) for d in K.deals_for_seed(2000, VALUES["seed"])]
    assert first == again
    assert set(first) <= {int(k) for k in VALUES["histogram"]}


# --- fuzz hooks -----------------------------------------------------------------------------------------

fuzz = load(PKG / "fuzz.py", "_klondike_fuzz_for_tests")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fuzz.strategy())
def test_fuzz_inputs_are_valid_and_answers_are_accepted(test_input: bytes) -> None:
    assert check_input(test_input.decode()) == 42
    answer = fuzz.answer(test_input)
    if test_input.startswith(b"solve"):
        assert fuzz.accepts(test_input, answer, answer)
        wrong = b" ".join(str(int(x) + 1).encode() for x in answer.split())
        assert not fuzz.accepts(test_input, answer, wrong)


# --- submissions (run directly, outside the judge: none of them is hostile) ------------------------------


def run(argv: list[str], text: str) -> str:
    return subprocess.run(argv, input=text, capture_output=True, text=True, check=True, timeout=120).stdout


def sample_solve_input() -> tuple[str, list[int]]:
    rng = random.Random(77)
    deals = [K.uniform_deal(rng) for _ in range(150)]
    specials = [
        K.parse_deal(line.split("#")[0].split(None, 1)[1])
        for line in (PKG / "generators" / "special_deals.txt").read_text().splitlines()
        if line and not line.startswith(("#", "large"))
    ]
    deals += specials
    text = f"solve {len(deals)}\n" + "".join(K.format_deal(d) + "\n" for d in deals)
    return text, [K.optimal_score(d) for d in deals]


def test_accepted_python_agrees_with_the_reference() -> None:
    text, expected = sample_solve_input()
    out = run([sys.executable, "-S", "-B", str(PKG / "submissions" / "accepted" / "closure.py")], text)
    assert [int(x) for x in out.split()] == expected


def test_greedy_is_wrong_somewhere() -> None:
    text, expected = sample_solve_input()
    out = run([sys.executable, "-S", "-B", str(PKG / "submissions" / "wrong_answer" / "greedy.py")], text)
    got = [int(x) for x in out.split()]
    assert all(g <= e for g, e in zip(got, expected, strict=True)) and got != expected


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_accepted_cpp_agrees_with_the_reference(tmp_path: Path) -> None:
    exe = tmp_path / "seed_dfs"
    source = PKG / "submissions" / "accepted" / "seed_dfs.cpp"
    subprocess.run(["g++", "-std=gnu++17", "-O2", "-o", str(exe), str(source)], check=True)
    text, expected = sample_solve_input()
    assert [int(x) for x in run([str(exe)], text).split()] == expected
    # its "count" extra counts the same positions as the reference's table search
    deals = [K.uniform_deal(random.Random(i)) for i in range(30)]
    out = run([str(exe)], "count 30 1000000\n" + "".join(K.format_deal(d) + "\n" for d in deals))
    for d, line in zip(deals, out.splitlines(), strict=True):
        full = K.exhaustive(d)
        assert [int(x) for x in line.split()] == [full.score, full.nodes]
