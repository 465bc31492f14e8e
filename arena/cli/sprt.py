"""`arena sprt --wdl 120 80 100 elo0=0 elo1=5`: the SPRT's log-likelihood ratio, its
bounds and its decision from given counts, without playing (as fastchess and fishtest
compute them): a match's results from elsewhere, or a test's state to check."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from arena.cli.common import console, fail, json_output, print_json
from arena.cli.options import JsonArg, takes
from arena.errors import excerpt
from arena.stats.elo_text import one_sided_bound
from arena.stats.fastchess_text import sprt_verdict
from arena.stats.sprt import MODELS, Estimate, SprtDecision, SprtParameters, estimate

PENTANOMIAL = ("LL", "LD", "DD/WL", "WD", "WW")
"""The pentanomial categories, the candidate's worst pair first (fastchess's order)."""


@dataclass(frozen=True)
class SprtOptions:
    """Everything `arena sprt` takes."""

    settings: Annotated[list[str] | None, typer.Argument(
        metavar="[elo0=N elo1=N alpha=P beta=P model=M]",
        help="The test's settings as `arena match --sprt` takes them (defaults elo0=0 elo1=10 alpha=0.05 beta=0.05 "
        f"model=logistic; models: {', '.join(MODELS)}).")] = None
    wdl: Annotated[tuple[int, int, int] | None, typer.Option(
        "--wdl", metavar="W D L", help="The candidate's wins, draws and losses (games counted one by one).")] = None
    penta: Annotated[tuple[int, int, int, int, int] | None, typer.Option(
        "--penta", metavar="LL LD DD/WL WD WW",
        help="The candidate's pairs of games (same seed, colours swapped) by its points: 0, 1/2, 1 (two draws or a "
        "win and a loss), 3/2 and 2, as fastchess prints them.")] = None
    json_flag: JsonArg = False

    def counts(self) -> tuple[list[int], str]:
        """The counts, the candidate's worst result first, and their kind."""
        if (self.wdl is None) == (self.penta is None):
            raise fail("give the results either as --wdl W D L or as --penta LL LD DD/WL WD WW")
        given = list(self.wdl) if self.wdl is not None else list(self.penta or ())
        if any(n < 0 for n in given):
            raise fail(f"counts cannot be negative: {' '.join(map(str, given))}")
        if not any(given):
            raise fail("every count is 0: give the results of at least one game")
        if self.wdl is not None:
            wins, draws, losses = given
            return [losses, draws, wins], "wdl"
        return given, "pentanomial"

    def parameters(self) -> SprtParameters:
        for item in self.settings or []:
            name = item.partition("=")[0]
            if name not in ("elo0", "elo1", "alpha", "beta", "model"):
                raise fail(f"{excerpt(item)} is not an SPRT setting; write elo0=N, elo1=N, alpha=P, beta=P or "
                           f"model={'|'.join(MODELS)}")
        try:
            return SprtParameters.parse(self.settings or [])
        except ValueError as exc:
            raise fail(f"{exc}") from None


def verdict(decision: SprtDecision | None, params: SprtParameters) -> str:
    """The decision in words, the candidate its subject."""
    if decision is None:
        return "no decision yet: play on"
    return sprt_verdict(decision, params)


def elo_words(found: Estimate) -> str:
    """`the candidate's Elo +23.2 [-10.4, +57.2]`, or the bound the games give when one
    side never scored (an infinite estimate)."""
    if math.isfinite(found.elo):
        low = f"{found.low:+.1f}" if math.isfinite(found.low) else "no lower bound"
        high = f"{found.high:+.1f}" if math.isfinite(found.high) else "no upper bound"
        return f"the candidate's Elo {found.elo:+.1f} [{low}, {high}]"
    limit = one_sided_bound(found.games)
    if found.elo > 0:
        return f"the candidate's Elo > {limit:+.1f} (95% bound: the baseline has not scored in {found.games} games)"
    return f"the candidate's Elo < {-limit:+.1f} (95% bound: the candidate has not scored in {found.games} games)"


@takes(SprtOptions)
def sprt_command(options: SprtOptions) -> None:
    """Compute the SPRT from counts, without playing: the log-likelihood ratio of H1
    (the candidate is elo1 stronger) against H0 (elo0 stronger), its bounds
    log(beta/(1-alpha)) and log((1-beta)/alpha), the decision, and the candidate's
    Elo, normalised Elo and LOS. The same figures `arena match --sprt` stops on, and
    fastchess and fishtest print (docs/matches.md)."""
    with json_output(options.json_flag):
        counts, kind = options.counts()
        params = options.parameters()
        llr = params.llr(counts)
        decision = params.decision(counts)
        found = estimate(counts)
        if kind == "wdl":
            shown = f"W {counts[2]}, D {counts[1]}, L {counts[0]} ({found.games} games)"
        else:
            pairs = ", ".join(f"{name} {n}" for name, n in zip(PENTANOMIAL, counts, strict=True))
            shown = f"pentanomial {pairs} ({sum(counts)} pairs, {found.games} games)"
        console.print(f"SPRT {params.describe()}", highlight=False)
        console.print(f"results of the candidate: {shown}", highlight=False)
        nelo = f", nElo {found.nelo:+.1f}" if math.isfinite(found.nelo) else ""
        console.print(f"{elo_words(found)}{nelo}, LOS {found.los * 100:.1f}%", highlight=False)
        console.print(f"LLR {llr:.2f} (bounds {params.lower_bound:.2f}, {params.upper_bound:.2f}): "
                      f"{verdict(decision, params)}", highlight=False)
        if options.json_flag:
            print_json(document(counts, kind, params, llr, decision, found))


def document(counts: list[int], kind: str, params: SprtParameters, llr: float, decision: SprtDecision | None,
             found: Estimate) -> dict[str, Any]:
    """The JSON of `arena sprt --json`."""
    given: dict[str, Any] = ({"wins": counts[2], "draws": counts[1], "losses": counts[0]} if kind == "wdl"
                             else dict(zip(PENTANOMIAL, counts, strict=True)))
    return {
        "counts": {"kind": kind, **given}, "games": found.games,
        "sprt": {"elo0": params.elo0, "elo1": params.elo1, "alpha": params.alpha, "beta": params.beta,
                 "model": params.model, "llr": llr, "lower": params.lower_bound, "upper": params.upper_bound,
                 "decision": decision, "verdict": verdict(decision, params)},
        "candidate": {"score": found.score, "elo": found.elo, "low": found.low, "high": found.high,
                      "nelo": found.nelo, "los": found.los, "text": elo_words(found)},
    }
