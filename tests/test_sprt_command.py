"""`arena sprt` and the SPRT's figures against fastchess's: the log-likelihood ratios
its test suite publishes (app/tests/sprt_test.cpp), trinomial and pentanomial, both
models; a case computed here independently (a direct search for the maximum-likelihood
distributions); the command's output, JSON and refusals; and `arena match --sprt
model=normalized`."""

from __future__ import annotations

import json
import math

import pytest

from arena.stats.sprt import NELO_PER_T, SprtParameters, estimate, expected_score
from tests.helpers.cli import run_cli_cleanly as cli

# fastchess's published cases: (model, elo0, elo1, counts, LLR to 2 decimals). Its
# trinomial Stats are (wins, losses, draws); its pentanomial ones (LL, LD, WL, DD, WD,
# WW), WL and DD merged into one category (a pair worth 1 point).
TRINOMIAL = [
    ("normalized", 0, 2, (36433, 36027, 68692), 0.92),
    ("normalized", -1.75, 0.25, (10871, 10650, 20431), 2.30),
    ("logistic", 0.5, 2.5, (21404, 21184, 40708), -1.57),
    ("logistic", 0, 2, (57433, 57030, 106593), -2.59),
]
PENTANOMIAL = [
    ("normalized", 0, 2, (365, 16618, 36029, 200, 16974, 390), 2.25),
    ("normalized", -1.75, 0.25, (127, 4883, 10311, 401, 5150, 104), 3.01),
    ("logistic", 0.5, 2.5, (223, 9863, 20279, 1000, 10037, 246), -3.07),
    ("logistic", 0, 2, (871, 26175, 55003, 980, 26678, 821), -4.98),
]


@pytest.mark.parametrize(("model", "elo0", "elo1", "stats", "published"), TRINOMIAL)
def test_trinomial_llr_matches_fastchess(model: str, elo0: float, elo1: float, stats: tuple[int, int, int],
                                         published: float) -> None:
    wins, losses, draws = stats
    llr = SprtParameters(elo0, elo1, model=model).llr([losses, draws, wins])
    assert llr == pytest.approx(published, abs=0.01)


@pytest.mark.parametrize(("model", "elo0", "elo1", "stats", "published"), PENTANOMIAL)
def test_pentanomial_llr_matches_fastchess(model: str, elo0: float, elo1: float,
                                           stats: tuple[int, int, int, int, int, int], published: float) -> None:
    ll, ld, wl, dd, wd, ww = stats
    llr = SprtParameters(elo0, elo1, model=model).llr([ll, ld, wl + dd, wd, ww])
    assert llr == pytest.approx(published, abs=0.01)
    shown = json.loads(cli("sprt", "--penta", str(ll), str(ld), str(wl + dd), str(wd), str(ww), f"elo0={elo0}",
                           f"elo1={elo1}", f"model={model}", "--json").stdout)
    assert shown["sprt"]["llr"] == pytest.approx(published, abs=0.01)


def _best_log_likelihood(counts: list[float], feasible_w: object) -> float:
    """max sum c log q over trinomial q = (L, D, W) on a constraint, searched directly:
    for each q_L (on a log scale, golden-section search), q_W is the root of the
    constraint (bisection). Nothing of arena.stats.sprt is used."""
    constraint = feasible_w  # (q_L, q_W) -> signed distance from the constraint

    def value(log_a: float) -> float:
        a = math.exp(log_a)
        low, high = 0.0, 1.0 - a
        if constraint(a, low) > 0 or constraint(a, high) < 0:  # type: ignore[operator]
            return -math.inf
        for _ in range(100):
            middle = (low + high) / 2
            low, high = (low, middle) if constraint(a, middle) > 0 else (middle, high)  # type: ignore[operator]
        b = (low + high) / 2
        return counts[0] * math.log(a) + counts[1] * math.log(1 - a - b) + counts[2] * math.log(b)

    left, right = -40.0, math.log(0.999)
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        x1, x2 = right - ratio * (right - left), left + ratio * (right - left)
        left, right = (left, x2) if value(x1) > value(x2) else (x1, right)
    return value((left + right) / 2)


def _independent_llr(counts: list[int], params: SprtParameters) -> float:
    weights = [c if c else 1e-3 for c in counts]  # fastchess's and fishtest's regularisation

    def normalized(t: float) -> object:
        def distance(a: float, b: float) -> float:
            mean = 0.5 * (1 - a - b) + b
            sd = math.sqrt(a * mean**2 + (1 - a - b) * (0.5 - mean) ** 2 + b * (1 - mean) ** 2)
            return mean - 0.5 - t * sd
        return distance

    def logistic(elo: float) -> object:
        return lambda a, b: 0.5 * (1 - a - b) + b - expected_score(elo)

    if params.model == "normalized":
        h0, h1 = normalized(params.elo0 / NELO_PER_T), normalized(params.elo1 / NELO_PER_T)
    else:
        h0, h1 = logistic(params.elo0), logistic(params.elo1)
    return _best_log_likelihood(weights, h1) - _best_log_likelihood(weights, h0)


@pytest.mark.parametrize(("model", "elo0", "elo1", "counts"), [
    ("normalized", 0, 5, [0, 16700, 0]),      # every game drawn: fastchess's own test expects +2.97 here
    ("normalized", 0, 10, [90, 160, 120]),
    ("logistic", -5, 5, [120, 80, 100]),
    ("logistic", 0, 20, [0, 3, 40]),
])
def test_the_llr_is_the_maximum_likelihood_ratio_found_independently(model: str, elo0: float, elo1: float,
                                                                     counts: list[int]) -> None:
    params = SprtParameters(elo0, elo1, model=model)
    assert params.llr(counts) == pytest.approx(_independent_llr(counts, params), abs=2e-3)


def test_all_draws_are_evidence_against_a_stronger_candidate() -> None:
    """16700 draws: fastchess's iteration stops at a tolerance of 1e-4 on the fitted
    probabilities and its test expects +2.97; the maximum-likelihood ratio is -3.45 (the
    independent search above agrees): a sample with no spread at all cannot support
    H1's 'stronger by 5 normalised Elo' better than H0's 'equal'."""
    assert SprtParameters(0, 5, model="normalized").llr([0, 16700, 0]) == pytest.approx(-3.45, abs=0.01)


def test_the_command_prints_llr_bounds_and_decision() -> None:
    result = cli("sprt", "--wdl", "120", "80", "100", "elo0=0", "elo1=5", "model=normalized")
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "SPRT elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized" in text
    assert "results of the candidate: W 120, D 80, L 100 (300 games)" in text
    llr = SprtParameters(0, 5, model="normalized").llr([100, 80, 120])
    assert f"LLR {llr:.2f} (bounds -2.94, 2.94): no decision yet: play on" in text
    found = estimate([100, 80, 120])
    assert f"the candidate's Elo {found.elo:+.1f} [{found.low:+.1f}, {found.high:+.1f}]" in text
    assert found.elo == pytest.approx(-400 * math.log10(1 / 0.5333333 - 1), abs=0.01)
    stronger = " ".join(cli("sprt", "--wdl", "600", "200", "300", "elo1=5").stdout.split())
    assert "H1 accepted: the candidate is stronger: the gain is above elo0 = 0 (nearer elo1 = 5)" in stronger
    weaker = " ".join(cli("sprt", "--penta", "80", "120", "200", "60", "20", "elo0=0", "elo1=5").stdout.split())
    assert "H0 accepted: the gain is below elo1 = 5 (nearer elo0 = 0)" in weaker


def test_the_json_document() -> None:
    data = json.loads(cli("sprt", "--penta", "3", "10", "40", "12", "5", "alpha=0.1", "--json").stdout)
    assert data["counts"] == {"kind": "pentanomial", "LL": 3, "LD": 10, "DD/WL": 40, "WD": 12, "WW": 5}
    assert data["games"] == 140
    params = SprtParameters(alpha=0.1)
    assert data["sprt"]["llr"] == pytest.approx(params.llr([3, 10, 40, 12, 5]))
    assert data["sprt"]["lower"] == pytest.approx(math.log(0.05 / 0.9))
    assert data["sprt"]["upper"] == pytest.approx(math.log(0.95 / 0.1))
    assert data["sprt"]["decision"] is None and data["sprt"]["model"] == "logistic"
    every_win = json.loads(cli("sprt", "--wdl", "30", "0", "0", "--json").stdout)
    assert every_win["candidate"]["elo"] is None  # infinite: not a JSON number
    assert "the baseline has not scored in 30 games" in every_win["candidate"]["text"]


@pytest.mark.parametrize(("args", "message"), [
    ([], "either as --wdl W D L or as --penta"),
    (["--wdl", "1", "2", "3", "--penta", "1", "2", "3", "4", "5"], "either as --wdl"),
    (["--wdl", "0", "0", "0"], "every count is 0"),
    (["--wdl", "1", "-2", "3"], "cannot be negative"),
    (["--wdl", "1", "2", "3", "elo0=5", "elo1=1"], "elo0 (5) must be below elo1 (1)"),
    (["--wdl", "1", "2", "3", "model=bayes"], "model=bayes is not one of logistic, normalized"),
    (["--wdl", "1", "2", "3", "depth=3"], "'depth=3' is not an SPRT setting"),
])
def test_mistakes_are_one_error_line(args: list[str], message: str) -> None:
    result = cli("sprt", *args)
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())


def test_match_takes_the_normalized_model() -> None:
    result = cli("match", "random", "random", "--game", "btt", "--games", "4", "--sprt", "elo1=5",
                 "model=normalized", "--time-per-move", "2", "-q")
    assert result.exit_code == 0, result.output
    assert "SPRT elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized:" in " ".join(result.stdout.split())
    wrong = cli("match", "random", "random", "--game", "btt", "--sprt", "model=bayes")
    assert wrong.exit_code == 2 and "model=bayes is not one of logistic, normalized" in wrong.output
