"""A run: every game of a config played, summarised (skill gap and strength profile included) and written.

:func:`run` is what ``lvsim run`` does. The results are complete and in
place (``sim.runner.staging``) before the HTML report is written: a report
that fails or is interrupted leaves them there and says how to finish it
(``lvsim report DIR``).
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from sim.config import Config, load_config
from sim.estimates.compiling import Alongside, compiles, other_tables
from sim.layout import CONFIG_FILE, DECISIONS_FILE, META_FILE, RECORDS_FILE, REPORT_FILE, SUMMARY_FILE, TALLY_FILE
from sim.reference import unlike_the_kernel, unlike_warning
from sim.runner.chunks import IN_PROCESS, Cluster
from sim.runner.played import GamesPlayed
from sim.runner.provenance import run_meta
from sim.runner.staging import (
    DEFAULT_OUT,
    _DefaultOut,
    check_out_dir,
    default_out_dir,
    out_path,
    staged_directory,
    warn_about_partial_runs,
)


@dataclass(repr=False)
class Results:
    """What a run leaves: its summary and report tally, and its records on disk or in memory.

    ``out_dir`` is None for an in-memory run (``run(config, out=None)``);
    ``records`` is None unless the records were kept in memory. ``tally``
    holds everything the report's tables need (the game's ``sim/<game>/tables`` take it).
    """

    config: Config
    summary: dict[str, Any]
    out_dir: Path | None = None
    records: dict[str, np.ndarray] | None = None
    tally: Any = None  # the game's report tally
    report_seconds: float | None = None  # how long the HTML report took, when one was written

    @property
    def records_path(self) -> Path | None:
        return None if self.out_dir is None else self.out_dir / RECORDS_FILE

    def to_pandas(self) -> pd.DataFrame:
        """The per-game records, one row per game, one column per record cell."""
        if self.records is not None:
            return self.config.game_spec.records.to_frame(self.records)
        if self.records_path is not None:
            return pd.read_parquet(self.records_path)
        raise ValueError("this run kept no records: run it with out=<directory> or keep_records=True")

    def __repr__(self) -> str:
        where = f"out_dir={str(self.out_dir)!r}" if self.out_dir else "in memory"
        return f"<Results {self.config.name!r}: {self.summary['games']:,} games, {where}>"

    def __str__(self) -> str:
        return self.config.game_spec.summary_table(self.summary)


def run(
    config: Config | str | os.PathLike,
    out: str | os.PathLike | None | _DefaultOut = DEFAULT_OUT,
    *,
    keep_records: bool | None = None,
    progress: bool | None = None,
    cluster: Cluster | None = None,
    report: bool = True,
    on_played: Callable[[dict[str, Any]], None] | None = None,
) -> Results:
    """Play every game of ``config`` and return the summary (and records).

    ``config`` is a :class:`~sim.config.Config` or the path of a TOML file.
    ``out`` is the results directory: by default a new
    ``reports/<config name>-<timestamp>/``; an existing directory must be
    empty; None writes nothing. ``progress`` shows a progress bar on
    stderr; by default only when stderr is a terminal. ``cluster`` plays
    the chunks elsewhere (see ``sim.cluster``); the results are the same
    either way. ``report`` writes the HTML report beside the results.
    ``on_played`` is handed the summary of the games alone as soon as they
    are played, before the skill gap, strength profile, sensitivity and
    decisions, which play more games, and the report.

    What stays in memory: the summary and the report tally (``Results.tally``,
    integer sums and histograms: a few kilobytes whatever the number of
    games) and, when ``keep_records`` is true, every game's record (about
    300 bytes a game at 4 players). ``keep_records`` defaults to true only
    when nothing is written (``out=None``); ``run(config, out=None,
    keep_records=False)`` keeps only the tallies, so a notebook can play a
    hundred million games and still draw every table of the report
    (for Las Vegan, ``sim.lasvegan.tables.win_share_by_seat(results.tally)``).
    """
    if not isinstance(config, Config):
        config = load_config(config)
    seat_ids, _ = config.game_spec.parse_seats(config.seat_policies, config.players)
    config.game_spec.policies.check_reference_games(seat_ids, config.games, "run.games")
    if out is None:
        out_dir = None
    elif isinstance(out, _DefaultOut):
        out_dir = default_out_dir(config.name)
    else:
        out_dir = out_path(out)
        check_out_dir(out_dir)
    if keep_records is None:
        keep_records = out_dir is None
    if progress is None:
        progress = sys.stderr.isatty()
    if cluster is None:
        cluster = IN_PROCESS
    with Alongside(config, cluster is IN_PROCESS).watching() as alongside:
        return _run(config, out_dir, keep_records, progress, cluster, report, on_played, alongside)


def _run(config: Config, out_dir: Path | None, keep_records: bool, progress: bool, cluster: Cluster, report: bool,
         on_played: Callable[[dict[str, Any]], None] | None, alongside: Alongside) -> Results:
    if out_dir is None:
        with compiles().as_one():
            played = GamesPlayed(config, keep_records=keep_records)
            _play(played, cluster, progress)
        if on_played is not None:
            on_played(played.summary())
        alongside.wait()
        with compiles().as_one(other_tables(config.game_spec.title)):
            summary = with_sensitivity(config, run_summary(config, played))
        return Results(config, summary, None, played.records(), played.tally.report)

    warn_about_partial_runs(out_dir)
    started = time.perf_counter()
    started_at = datetime.now(timezone.utc)
    with staged_directory(out_dir) as staging:
        (staging / CONFIG_FILE).write_text(config.to_toml(), encoding="utf-8")
        with compiles().as_one(), GamesPlayed(config, staging / RECORDS_FILE, keep_records=keep_records) as played:
            _play(played, cluster, progress)
        if on_played is not None:
            on_played(played.summary())
        from sim.decisions import restricted_tables, run_decisions, unlike_restricted

        alongside.wait()
        with compiles().as_one(other_tables(config.game_spec.title)):
            summary = with_sensitivity(config, run_summary(config, played))
            write_json(staging / SUMMARY_FILE, summary)
            decided = run_decisions(config)  # which decisions matter: beside the summary, which stays as pinned
        if decided is not None:
            write_json(staging / DECISIONS_FILE, decided)
        config.game_spec.report_tally_io.write(staging / TALLY_FILE, played.tally.report)
        meta = run_meta(config, played, out_dir, started_at, time.perf_counter() - started)
        write_json(staging / META_FILE, meta)
    # The results are complete and in place: whatever happens to the report
    # from here on, they stay.
    report_seconds = write_report_or_say_how(out_dir) if report else None
    # The numbers come from the jitted core alone: a stored game the reference engine does not play the same way
    # (a policy's illegal move, a kernel rule the engine does not have) makes them suspect, whatever they look like.
    # The first and last games are asked here; the report asked of its example games (picked by the game).
    from analysis.report_html import replay_mismatches
    from analysis.results import read_game_rows

    checked = sorted({0, config.games - 1})
    unlike = unlike_the_kernel(config.game_spec, config.rules, config.seed, config.seat_policies, checked,
                               read_game_rows(out_dir / RECORDS_FILE, checked, config))
    shown = [] if report_seconds is None else replay_mismatches((out_dir / REPORT_FILE).read_text(encoding="utf-8"))
    if unlike or shown:
        how = " (the report's example games say how)" if shown else ""
        print(unlike_warning(sorted({*unlike, *shown}), "this run", how), file=sys.stderr)
    restricted = [] if decided is None or "skipped" in decided else unlike_restricted(
        config.game_spec, config.rules, config.seat_policies, config.seed)
    if restricted:  # which decisions matter played tables of their own, the restricted player's code in them
        print(unlike_warning([0], restricted_tables(restricted)), file=sys.stderr)
    return Results(config, summary, out_dir, played.records(), played.tally.report, report_seconds)


def run_summary(config: Config, played: "GamesPlayed", config_path: str | os.PathLike | None = None) -> dict[str, Any]:
    """The run's summary, with the skill gap and the strength profile unless switched off.

    ``config_path`` is where the run's config is written (its results'
    ``config.toml``): the strength profile's sentence names it in the command
    that would decide what its games cannot.
    """
    summary = played.summary()
    if config.skill_gap_deals > 0:
        from sim.duel import skill_gap

        summary["skill_gap"] = skill_gap(config.game_spec, config.rules, config.skill_gap_deals, config.seed,
                                         threads=config.threads)
    games, slow_games = config.strength_sizes
    if games > 0 or slow_games > 0:
        summary["strength"] = strength_profile(config, games, slow_games, config_path)
    return summary


def with_sensitivity(config: Config, summary: dict[str, Any]) -> dict[str, Any]:
    """The summary with the report's "What moves the verdict" (``sim.sensitivity``), unless switched off."""
    from sim.sensitivity.study import run_sensitivity

    found = run_sensitivity(config)
    if found is not None:
        summary["sensitivity"] = found
    return summary


def strength_profile(config: Config, games: int, slow_games: int,
                     config_path: str | os.PathLike | None = None) -> dict[str, Any]:
    """The run's rules and deals played with every seat one strength of player, compared on the same deals.

    What the verdicts of a run look like under each of the game's profile
    policies (for Las Vegan ``random``, ``greedy`` and ``expert``:
    ``games`` each, on the run's seed, so the same deals for all) and under
    its slow, strong policy on the first ``slow_games`` of those deals (for
    Las Vegan ``lookahead:16``). Each profile's records stay in memory
    until the profiles are compared (a few megabytes at 10,000 games):
    ``analysis.strength`` pairs them game by game. ``config_path`` is named
    in the command the sentence gives for what the games cannot decide.
    """
    from analysis.strength import Profile, confirm_command, strength_block

    game = config.game_spec
    plan = [(p, games) for p in game.strength_policies if games > 0]
    if slow_games > 0 and game.strength_slow_policy is not None:
        plan.append((game.strength_slow_policy, slow_games))
    profiles = []
    for policy, n in plan:
        one = replace(config, seats=policy, games=n, skill_gap_games=0, strength_games=0, strength_slow_games=0,
                      sensitivity_games=0)
        played = run(one, out=None, keep_records=True, progress=False, report=False)
        profiles.append(Profile.of(game, policy, played.records, played.summary, config.players))
    seats = set(config.seat_policies)
    return strength_block(game, profiles, next(iter(seats)) if len(seats) == 1 else None,
                          confirm_command(None if config_path is None else str(config_path), config.players))


def _play(played: GamesPlayed, cluster: Cluster, progress: bool) -> None:
    """Play every game of the run's config into ``played``."""
    from tqdm import tqdm

    from sim.estimates.compiling import warm_up_said

    config = played.config
    # Compiling (or loading the compiled core from cache) is not playing:
    # keep it out of the timing. A compilation is said as it starts (sim.estimates.compiling).
    warm_up_said(cluster, config)
    bar = tqdm(total=config.games, unit="game", unit_scale=True, disable=not progress, file=sys.stderr, leave=False)
    with bar:
        played.play(0, config.games, cluster, bar)


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def write_report_or_say_how(out_dir: Path) -> float | None:
    """Write the HTML report of the finished results in ``out_dir``; the seconds it took, None if it failed.

    The results are already complete and in place: a report that fails, or
    is interrupted, leaves them there and says in one line how to finish
    the job. Ctrl-C still ends the program, after that line.
    """
    from analysis.report import write_report
    from analysis.report_html import failure_reason

    finish = f"the results are complete in {out_dir}; run 'lvsim report {shlex.quote(str(out_dir))}' to write it"
    started = time.perf_counter()
    try:
        write_report(out_dir)
    except KeyboardInterrupt:
        print(f"interrupted: the HTML report was not written; {finish}", file=sys.stderr)
        raise
    except Exception as err:  # the games and their records are worth keeping without the report
        for leftover in out_dir.glob("report.html*"):
            leftover.unlink()
        print(f"warning: the HTML report could not be written: {failure_reason(err)}; {finish}", file=sys.stderr)
        return None
    return time.perf_counter() - started
