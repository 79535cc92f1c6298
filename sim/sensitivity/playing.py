"""The effects of one-step deviations: each played on the base run's seed, deals and players, paired.

Game ``i`` of a seed is dealt alike under every rule set at one player
count, and each seat's policy draws from its own stream, so the base rules
and a deviation are compared on the same games (common random numbers).
An effect is the deviation's headline metric minus the base's, both
summarised from every game exactly as ``sim.run`` would (the tallies
merge exactly): the difference of two plain runs on the same seed.

Its 95% interval is a delete-a-block jackknife over :data:`BLOCKS` blocks
of consecutive games: the difference recomputed with each block left out
of both runs, Student t with ``blocks - 1`` degrees of freedom. Leaving
a block out of both keeps the pairing, and it serves every headline metric
alike, those that are a mean over games (the elimination rate) and those
that are not (the worst seat's advantage, a maximum over seats; the mean
swing, a ratio). For a mean over games it is the batch-means interval.
An inert knob's effect is exactly zero and is not played.

With many deviations some 95% intervals miss 0 by chance, so an effect is
called ``clear`` only if its interval at ``1 - 0.05 / m`` (Bonferroni over
the ``m`` deviations tried for that metric; the same jackknife, Student t
at that level) misses 0. ``delta_ci`` stays the plain 95% interval.
"""

from __future__ import annotations

import math
import sys
from dataclasses import replace
from typing import Any, Callable, Sequence

from sim.errors import ConfigError
from sim.runner.chunks import CHUNK_GAMES, chunk_ranges, play_records
from sim.sensitivity.deviations import Deviation, one_step, plain_value

BLOCKS = 10  # each block costs a few tally merges and summaries, whatever its games
# Fewer games than this per deviation give no interval (a jackknife over two blocks is no interval).
MIN_GAMES = 4


def block_ranges(games: int, blocks: int = BLOCKS) -> list[tuple[int, int]]:
    """``(first_game, n_games)`` of each block: ``min(blocks, games)`` runs of consecutive games, sizes
    differing by at most one."""
    k = max(1, min(blocks, games))
    edges = [games * b // k for b in range(k + 1)]
    return [(edges[b], edges[b + 1] - edges[b]) for b in range(k)]


def block_tallies(config, games: int, blocks: int = BLOCKS, advance: Callable[[int], Any] | None = None) -> list:
    """The game's tally of each block of ``config``'s first ``games`` games, played as a run plays them.

    The games are played in the run's chunks (a kernel call of a few games costs far more per game) and
    each chunk's records are cut at the blocks' edges.
    """
    game = config.game_spec
    ranges = block_ranges(games, blocks)
    out: list = [None] * len(ranges)
    for first, n in chunk_ranges(0, games, CHUNK_GAMES):
        rec = play_records(config, first, n)
        for b, (start, size) in enumerate(ranges):
            lo, hi = max(start, first), min(start + size, first + n)
            if lo >= hi:
                continue
            part = game.tally({k: v[lo - first:hi - first] for k, v in rec.items()})
            out[b] = part if out[b] is None else out[b].merge(part)
        if advance is not None:
            advance(n)
    return out


def metric_values(config, tallies: Sequence) -> dict[str, list]:
    """Each headline metric of the summary of every block together (first), then with each block left out."""
    game = config.game_spec

    def summary(tally) -> dict[str, Any]:
        return game.summarize(tally, game=config.game, seed=config.seed, policies=config.seat_policies)

    k = len(tallies)
    prefix = [tallies[0]]
    for t in tallies[1:]:
        prefix.append(prefix[-1].merge(t))
    suffix = [tallies[-1]]
    for t in reversed(tallies[:-1]):
        suffix.insert(0, t.merge(suffix[0]))
    left_out = []
    if k > 1:
        for b in range(k):
            parts = ([prefix[b - 1]] if b > 0 else []) + ([suffix[b + 1]] if b + 1 < k else [])
            left_out.append(parts[0] if len(parts) == 1 else parts[0].merge(parts[1]))
    summaries = [summary(prefix[-1])] + [summary(t) for t in left_out]
    return {m: [s.get(m) for s in summaries] for m in game.headline_metrics}


def jackknife(base: Sequence, deviated: Sequence) -> tuple[float | None, float | None, int]:
    """``(delta, se, blocks)``: deviated minus base over every game, and the delete-a-block jackknife's standard
    error of it, from the values of :func:`metric_values`; None where undefined (too few games)."""
    if base[0] is None or deviated[0] is None:
        return None, None, 0
    delta = deviated[0] - base[0]
    loo = [d - b for b, d in zip(base[1:], deviated[1:]) if b is not None and d is not None]
    k = len(base) - 1
    if k < 2 or len(loo) < k:
        return delta, None, k
    mean = sum(loo) / k
    return delta, math.sqrt((k - 1) / k * sum((x - mean) ** 2 for x in loo)), k


def paired_effect(base: Sequence, deviated: Sequence) -> dict[str, Any]:
    """``delta`` (deviated minus base, every game) and its jackknife 95% ``delta_ci``, from the values of
    :func:`metric_values`; None where a metric is undefined (too few games)."""
    from analysis.stats import t95

    delta, se, k = jackknife(base, deviated)
    if se is None:
        return {"delta": delta, "delta_ci": None}
    half = t95(k) * se
    return {"delta": delta, "delta_ci": [delta - half, delta + half]}


def clear_level(tried: int) -> float:
    """The confidence an effect's interval needs to be clear among ``tried`` deviations of one metric (Bonferroni):
    ``1 - 0.05 / tried``, so that all of them together mistake noise for an effect in at most 5% of studies."""
    return 1 - 0.05 / max(1, tried)


def is_clear(delta: float | None, se: float | None, blocks: int, tried: int) -> bool:
    """The effect's interval at :func:`clear_level` (the same jackknife, Student t at that level) holds no 0."""
    from analysis.stats import t_quantile

    if delta is None or se is None or blocks < 2:
        return False
    level = clear_level(tried)
    return abs(delta) > t_quantile(0.5 + level / 2, blocks - 1) * se


def effects(config, games: int, *, knobs: Sequence[str] | None = None, blocks: int = BLOCKS,
            deviations: Sequence[Deviation] | None = None, advance: Callable[[int], Any] | None = None
            ) -> list[dict[str, Any]]:
    """Every one-step deviation of ``config``'s rules, played on its seed and seats for ``games`` games.

    One row per (deviation, headline metric): ``knob`` (its dotted path), ``label``, ``from`` and
    ``to`` (the printed values), ``metric``, ``players``, ``games``, ``base`` and ``value`` (the
    metric under the base rules and the deviation), ``delta`` with its 95% ``delta_ci``, ``inert`` (not
    played: exactly zero) and ``clear`` (:func:`is_clear` among the deviations tried for that metric).
    ``advance(n)`` is told of every ``n`` games played.
    """
    if deviations is None:
        deviations = one_step(config.game_spec, config.rules, knobs)
    base = metric_values(config, block_tallies(config, games, blocks, advance))
    rows, spreads = [], []
    for dev in deviations:
        if dev.inert:
            values = base
        else:
            deviated = replace(config, rules=dev.rules)
            values = metric_values(deviated, block_tallies(deviated, games, blocks, advance))
        for metric, base_values in base.items():
            if dev.inert:
                effect = {"delta": 0 if base_values[0] is not None else None,
                          "delta_ci": [0, 0] if base_values[0] is not None else None}
                spreads.append((None, None, 0))
            else:
                effect = paired_effect(base_values, values[metric])
                spreads.append(jackknife(base_values, values[metric]))
            rows.append({"knob": dev.knob, "label": dev.label, "from": plain_value(dev.before),
                         "to": plain_value(dev.after), "metric": metric, "players": config.players,
                         "games": games, "base": base_values[0], "value": values[metric][0], **effect,
                         "inert": dev.inert})
    tried = {m: sum(r["metric"] == m and r["delta"] is not None for r in rows) for m in base}
    for r, spread in zip(rows, spreads):
        r["clear"] = is_clear(*spread, tried[r["metric"]])
    return rows


def games_bar(total: int, progress: bool | None):
    """The progress bar of a study's ``total`` games, on stderr when it is a terminal (``progress`` None)."""
    from tqdm import tqdm

    shown = sys.stderr.isatty() if progress is None else progress
    return tqdm(total=total, unit="game", unit_scale=True, disable=not shown, file=sys.stderr, leave=False)


def write_table_and_page(out_dir, table_file: str, frame, page_file: str, page: Callable[[], str], *,
                         answered: Callable[[], None] | None = None, say: Callable[[str], None] | None = None):
    """``table_file`` (Parquet, from ``frame``), then ``page_file`` (``page()``'s HTML) in ``out_dir`` (new or
    empty), each written whole; the directory is checked before anything is written.

    The table comes first and ``answered()``, if given, is called once it is written, before the page is
    drawn; a page that fails never costs the table: ``say`` (else stderr) is told why in one line, and a
    figure or section that fails is a line on the page (``analysis.report_html.write_page``).
    """
    from analysis.report_html import write_page
    from sim.atomic import write_parquet_atomically
    from sim.runner.staging import check_out_dir, out_path

    out = out_path(out_dir)
    check_out_dir(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError("--out", f"cannot create {out}: {err.strerror or err}") from None
    write_parquet_atomically(out / table_file, frame)
    if answered is not None:
        answered()
    write_page(out / page_file, page, kept=f"the results are in {out / table_file}", say=say)
    return out
