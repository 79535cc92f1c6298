"""The $ Fever report's tables: pandas DataFrames of a run's :class:`~sim.fever.summary.Tally` (or, for
notebooks, of the per-game records, tallied first)."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from analysis.tables import histogram_table
from sim.fever.summary import Tally

SECONDS_PER_TURN = (10, 15, 20, 30)


tally_of = Tally.of_source  # the tally itself, or the tally of per-game records


def length_histogram(source) -> pd.DataFrame:
    """How many finished games lasted each number of turns."""
    return histogram_table(tally_of(source).turns_finished, "turns")


def minutes_table(summary: Mapping, seconds_per_turn: Sequence[float] = SECONDS_PER_TURN) -> pd.DataFrame:
    """Game length of finished games in minutes, at each pace in seconds per turn."""
    turns = summary["game_length_turns"]
    return pd.DataFrame([{"seconds_per_turn": pace,
                          **{k: (v * pace / 60 if v is not None else np.nan) for k, v in turns.items()}}
                         for pace in seconds_per_turn])


def combinations_table(source, rules) -> pd.DataFrame:
    """Per pay-table pattern: its points, how often it scored a game, its share of all points scored."""
    t = tally_of(source)
    points = sum(t.pattern_points)
    return pd.DataFrame([{"pattern": p, "label": rules.pattern_label(p), "points": rules.paytable[p][1],
                          "per_game": t.pattern_scored[p] / t.games if t.games else np.nan,
                          "share": t.pattern_points[p] / points if points else np.nan}
                         for p in range(t.patterns)])


# --- example games ----------------------------------------------------------------


def example_games(source) -> list[tuple[str, str, int, str]]:
    """``(anchor, title, game, why)``: a typical finished game, the quickest finish, a game the cap ended.

    Among the games of a kind the lowest index is shown, so the choice does
    not depend on how the run was chunked.
    """
    t = tally_of(source)
    counts, first = t.by_length.counts, t.by_length.first
    finished = sorted(k for k in counts if k[0] == 1)
    picks = []
    if finished:
        median = t.turns_finished.percentile(50)
        typical = min(finished, key=lambda k: (abs(k[1] - median), k[1]))
        picks.append(("typical", "A typical game", first[typical],
                      f"it lasted {typical[1]} turns, the median length of a finished game "
                      f"({counts[typical]:,} of {t.games:,} games lasted as long)"))
        quickest = finished[0]
        if quickest != typical:
            picks.append(("quickest", "The quickest finish", first[quickest],
                          f"it was won in {quickest[1]} turns, the fewest of the run"))
    capped = [k for k in counts if k[0] == 0]
    if capped:
        key = min(capped, key=lambda k: first[k])
        picks.append(("unfinished", "A game the turn cap ended", first[key],
                      f"nobody reached the target in {key[1]} turns "
                      f"({sum(counts[k] for k in capped):,} of {t.games:,} games ended so)"))
    return picks
