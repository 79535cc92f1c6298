"""``lvsim confirm``: play a rule set until every target is met or missed, and pair the stronger tables with it.

For every target of a tune file and every setting (player count and policy)
it plays games of the rule set in growing batches and follows each target's
confidence sequence (``analysis.sequential``), stopping a setting once all
its targets are decided or its budget is spent. The game's slow, strong
policy (Las Vegan's ``lookahead:16``) plays the same deals beside it, and
each headline metric's paired difference is followed the same way until it
is clearly material, clearly immaterial, or its share of the budget is
spent; each target is judged at the slow tables too.

Three families of decisions each keep their error at ``alpha`` (5%): the
targets at every setting, the stronger tables' differences, and the targets
at the stronger tables, each split evenly among its decisions (Bonferroni).
Looking after every batch and stopping when decided does not inflate these
errors: every interval is a confidence sequence.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

import numpy as np

from analysis.sequential import ALPHA, FIRST_LOOK, materiality, rho2, verdict
from sim.confirm.judging import Judge, PairedJudge
from sim.confirm.values import duel_values, judgeable, per_game, ratios
from sim.errors import ConfigError, counted
from sim.tune.targets import setting_name
from sim.wording import wrapped

# Games of the first batch of a table: two looks' worth, so the first look comes with the first batch.
FIRST_BATCH = 2 * FIRST_LOOK
# The judged table's first batch at least this (it is fast: a batch is a fraction of a second).
FIRST_FAST_BATCH = 20_000
# The share of the time budget the stronger tables may take while targets are still undecided.
SLOW_SHARE = 0.5
# A slow table's first games under a time budget, played to measure its speed before its first batch is sized.
PILOT = FIRST_LOOK // 8
# A batch is sized to take this share of the time it is given at the speed measured so far: speeds vary.
SAFETY = 0.9
# What a confirmation writes into its --out directory.
CONFIRM_FILE = "confirm.json"
DEFAULT_MAX_GAMES = 5_000_000
DEFAULT_MAX_SLOW_GAMES = 200_000
DEFAULT_MAX_MINUTES = 10.0
# Where the sequences are tightest (they must be fixed before the first look): the judged tables decide in
# hundreds of thousands of games near a target line, the slow ones in thousands to tens of thousands.
TIGHTEST = 200_000
TIGHTEST_SLOW = 20_000


@dataclass
class Setting:
    """One player count and policy: its tables, the games each has played, the judges following them."""

    players: int
    policy: str
    slow: str | None
    config: Any  # the judged table's Config at 1 game; games are played by index
    slow_config: Any
    targets: list = field(default_factory=list)  # [(Target, Judge at the judged table, Judge at the slow table)]
    paired: list = field(default_factory=list)  # [(metric name, material, PairedJudge)]
    games: int = 0
    slow_games: int = 0
    seconds: float = 0.0
    slow_seconds: float = 0.0
    slow_most: int = 0  # the most deals the slow table may play: the judged table's values are kept up to there
    kept: list = field(default_factory=list)  # the judged table's per-game values of the deals the slow one will play
    looked: list = field(default_factory=list)  # [(Target, (estimate, low, high), at the slow table or None)]
    paired_looked: list = field(default_factory=list)  # [(metric name, material, (difference, low, high))]
    duels: list = field(default_factory=list)  # [[Target, SkillDuel, Judge, deals played, seconds]]: skill gaps

    @property
    def name(self) -> str:
        return setting_name(self.players, self.policy)


def confirm(
    tune,
    *,
    seed: int,
    values: Mapping[str, Any] | None = None,
    strict: bool = True,
    max_games: int = DEFAULT_MAX_GAMES,
    max_slow_games: int = DEFAULT_MAX_SLOW_GAMES,
    max_minutes: float = DEFAULT_MAX_MINUTES,
    cluster=None,
    progress: bool = False,
    say: Callable[[str], None] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, Any]:
    """Play ``tune``'s rules (a :class:`sim.tune.Tune`, its base as the rules) until every target is decided.

    ``values`` puts a tune's searched values into the rules (none: the
    base's). A target with no value in each game is refused when
    ``strict``, else left out (a tune judges it on its own replay).
    ``max_minutes`` may be ``math.inf``: then the games played depend on the
    seed alone, never on the machine's speed.

    Returns the confirmation as ``confirm.json`` holds it: ``targets`` (one
    entry per target and setting: verdict, estimate, interval, games, the
    games that would likely decide it, and the verdict at the stronger
    tables) and ``strength`` (one entry per headline metric and setting: the
    paired difference of the stronger tables, and whether it is material).
    """
    from sim.runner import IN_PROCESS

    if math.isnan(max_minutes) or max_minutes <= 0:
        raise ConfigError("max_minutes", f"must be minutes above 0 (math.inf: no limit), got {max_minutes}")
    cluster = cluster or IN_PROCESS
    game = tune.game
    settings = _settings(tune, seed, max_games, max_slow_games, values or {}, strict)
    for s in settings:  # compiling (or loading the compiled kernels) is not playing: kept out of the budget
        cluster.warm_up(s.config)
        if s.slow_config is not None:
            cluster.warm_up(s.slow_config)
        for _, duel, _, _, _ in s.duels:  # played here, on the kernel of every policy: one deal compiles it
            duel_values(game, s.config.rules, duel, seed, 0, 1, s.config.threads)
    started = clock()
    budget = 60 * max_minutes
    stopped = "decided"
    while True:
        _look(settings)
        fast = [s for s in settings if _targets_open(s) and s.games < max_games]
        slow = [s for s in settings if _strength_open(s) and s.slow_games < max_slow_games]
        duels = [(s, d) for s in settings for d in _open_duels(s, max_games)]
        if not fast and not slow and not duels:
            stopped = "decided" if not any(_targets_open(s) or _strength_open(s) or _open_duels(s, math.inf)
                                           for s in settings) else "max-games"
            break
        left = budget - (clock() - started)
        if left <= 0:
            stopped = "max-minutes"
            break
        slow_time_used = sum(s.slow_seconds for s in settings)
        if fast and slow_time_used >= SLOW_SHARE * budget:
            slow = []  # the stronger tables' share is spent while targets are open
        played = _played(settings)
        for s in fast:
            _play_judged(s, game, cluster, _next_batch(s.games, FIRST_FAST_BATCH, max_games,
                                                       _rate(s.games, s.seconds), left / (len(fast) + len(slow))))
            left = budget - (clock() - started)
        for s, d in duels:
            # Timed on its own: a duel's deals cost what its policies cost, not what the judged table's games do.
            pilot = PILOT if game.is_slow([d[1].policy, d[1].against]) else None
            _play_duel(s, d, game, _next_batch(d[3], FIRST_BATCH, max_games, _rate(d[3], d[4]), left / len(duels),
                                               pilot), seed)
            left = budget - (clock() - started)
        # While targets are open the stronger tables play within their share of the budget, not past it.
        slow_left = min(left, SLOW_SHARE * budget - slow_time_used) if fast else left
        for s in slow:
            n = _next_batch(s.slow_games, FIRST_BATCH, max_slow_games, _rate(s.slow_games, s.slow_seconds),
                            max(0.0, slow_left) / len(slow), PILOT)
            _play_slow(s, game, cluster, n, max_games)
            left = budget - (clock() - started)
        if _played(settings) == played:  # the time left holds not one more game of any open table
            stopped = "max-minutes"
            break
        if say is not None and progress:
            say(_progress_line(settings, clock() - started))
    _look(settings)
    return _result(tune, settings, seed, clock() - started, stopped, max_games, max_slow_games, max_minutes)


def confirmable(tune) -> list:
    """The targets of ``tune`` judged game by game: on a metric with a value in each game, not relative."""
    can = judgeable(tune.game)
    duels = {f"skill_gap_{d.name}" for d in tune.game.skill_gap_duels}
    return [t for t in tune.targets if ((t.column in can or t.metric in can) and t.relative is None)
            or t.metric in duels]


def label(target) -> str:
    """A target as a confirmation names it: the worst seat itself (its interval decides, not a corrected
    estimate)."""
    return target.metric if target.column != target.metric else target.label


def check_something_to_judge(tune, max_slow_games: int) -> None:
    """Refuse, naming the options, a confirmation that would judge nothing: no target and no stronger table."""
    if confirmable(tune):
        return
    game = tune.game
    slow = game.strength_slow_policy
    no_targets = "with --config alone (no tune file FILE) there is no target"
    if max_slow_games == 0:
        raise ConfigError("--max-slow-games", f"0 plays no stronger table, and {no_targets}: nothing would be "
                                              "judged; give more stronger games or a tune file's [targets]")
    if slow is None or all(policy == slow for policy in tune.policies):
        stronger = (f"{game.title} has no stronger policy" if slow is None
                    else f"its seats already play {slow}, the stronger policy")
        raise ConfigError("--config", f"{stronger}, and {no_targets}: nothing would be judged")


def _settings(tune, seed: int, max_games: int, max_slow_games: int, values: Mapping[str, Any] | None = None,
              strict: bool = True) -> list[Setting]:
    game = tune.game
    can = judgeable(game)
    targets = confirmable(tune)
    duels = {f"skill_gap_{d.name}": d for d in game.skill_gap_duels}
    for t in tune.targets if strict else ():
        if t.metric in duels:
            continue
        if t.relative is not None:
            raise ConfigError(f"targets.{t.metric}", "a target relative to the fair share is a skill-gap target, "
                                                     "which lvsim confirm does not judge")
        if t not in targets:
            raise ConfigError(f"targets.{t.metric}", "has no value in each game, so it cannot be confirmed game by "
                                                     f"game; lvsim confirm judges {', '.join((*can, *duels))}")
    check_something_to_judge(tune, max_slow_games)
    # A skill-gap duel plays the rules at a player count, whatever the seats' policy: judged once per count.
    counts = len({players for players, _ in tune.settings})
    items = max(1, sum(counts if t.metric in duels else len(tune.settings) for t in targets))
    headline = [m for m in game.strength_metrics.values() if m.name in can]
    ratio_names = set(ratios(game))
    slow_items = max(1, len(headline) * len(tune.settings))
    fast_at, slow_at = max(FIRST_BATCH, min(TIGHTEST, max_games)), max(FIRST_BATCH, min(TIGHTEST_SLOW, max_slow_games))
    r2, r2_slow, r2_pair = rho2(ALPHA / items, fast_at), rho2(ALPHA / items, slow_at), rho2(ALPHA / slow_items, slow_at)
    out, dueled = [], set()
    for players, policy in tune.settings:
        slow = game.strength_slow_policy
        if slow == policy or max_slow_games == 0:
            slow = None
        s = Setting(players, policy, slow, tune.config(values or {}, players, policy, games=1, seed=seed),
                    None if slow is None else tune.config(values or {}, players, slow, games=1, seed=seed),
                    slow_most=max_slow_games)
        for t in targets:
            if t.metric in duels and players in dueled:
                continue
            if t.metric in duels:
                judge = Judge(t.metric, players, ALPHA / items, r2)
                if t.relative == "above_fair":
                    judge.stream.offset = -1 / players
                elif t.relative == "times_fair":
                    judge.stream.scale = 1 / players
                s.duels.append([t, duels[t.metric], judge, 0, 0.0])
                continue
            metric = t.column if t.column in can else t.metric
            s.targets.append((t, Judge(metric, players, ALPHA / items, r2),
                              None if slow is None else Judge(metric, players, ALPHA / items, r2_slow)))
        dueled.add(players)
        if slow is not None:
            s.paired = [(m.name, m.material, PairedJudge(m.name, players, ALPHA / slow_items, r2_pair,
                                                         ratio=m.name in ratio_names)) for m in headline]
        out.append(s)
    return out


def _look(settings: list[Setting]) -> None:
    for s in settings:
        s.looked = [(t, j.look(), None if sj is None else sj.look()) for t, j, sj in s.targets]
        s.looked += [(t, j.look(), None) for t, _, j, _, _ in s.duels]
        s.paired_looked = [(name, material, j.look()) for name, material, j in s.paired]


def _targets_open(s: Setting) -> bool:
    return any(verdict(lo, hi, t.low, t.high) == "undecided" for t, (_, lo, hi), _ in s.looked[:len(s.targets)])


def _open_duels(s: Setting, most: float) -> list:
    """The setting's skill-gap targets still undecided with deals left to play."""
    return [d for d, (t, (_, lo, hi), _) in zip(s.duels, s.looked[len(s.targets):])
            if verdict(lo, hi, t.low, t.high) == "undecided" and d[3] < most]


def _strength_open(s: Setting) -> bool:
    return s.slow is not None and (
        any(materiality(lo, hi, material) == "undecided" for _, material, (_, lo, hi) in s.paired_looked)
        or any(sl is not None and verdict(sl[1], sl[2], t.low, t.high) == "undecided" for t, _, sl in s.looked))


def _rate(games: int, seconds: float) -> float | None:
    return games / seconds if games and seconds > 0 else None


def _next_batch(done: int, first: int, most: int, rate: float | None, seconds: float,
                pilot: int | None = None) -> int:
    """The next batch: the first, then as many games as played so far (the total doubles), within ``seconds`` at
    the speed measured so far and the most games allowed. A table whose speed is not measured yet plays
    ``pilot`` games first when it is given (a slow table) and the time is limited, so that the budget sizes even
    its first batch; the first batch is then played out."""
    n = first if done == 0 else done if done >= first else first - done
    if math.isfinite(seconds):
        if rate is not None:
            n = min(n, int(SAFETY * rate * seconds))
        elif pilot is not None:
            n = min(n, pilot)
    return max(0, min(n, most - done))


def _played(settings: list[Setting]) -> int:
    """Every game played so far, at every table of every setting."""
    return sum(s.games + s.slow_games + sum(d[3] for d in s.duels) for s in settings)


def _play(config, first: int, n: int, game, cluster):
    """Per-game values of games ``first .. first + n`` of ``config``, chunk by chunk in game order (a batch of
    millions of games is never held whole)."""
    for rec, _ in cluster.play(replace(config, games=n), first, n):
        yield per_game(game, rec, config.players)


def _play_judged(s: Setting, game, cluster, n: int) -> None:
    if n <= 0:
        return
    t0 = time.perf_counter()
    for values in _play(s.config, s.games, n, game, cluster):
        for _, judge, _ in s.targets:
            judge.add(values)
        size = len(values["win_share_s0"])
        keep = min(size, s.slow_most - s.games)  # deals the slow table will never reach are not kept
        if s.slow is not None and keep > 0:
            s.kept.append((s.games, {k: v[:keep] for k, v in values.items()}))
        s.games += size
    s.seconds += time.perf_counter() - t0


def _play_duel(s: Setting, d: list, game, n: int, seed: int) -> None:
    """The next ``n`` deals of a skill-gap duel: one seat of the stronger policy, every seat in turn."""
    if n <= 0:
        return
    t, duel, judge, done, _ = d
    t0 = time.perf_counter()
    judge.add({t.metric: duel_values(game, s.config.rules, duel, seed, done, n, s.config.threads)})
    d[3] = done + n
    d[4] += time.perf_counter() - t0


def _kept(s: Setting, first: int, n: int) -> dict[str, np.ndarray]:
    """The judged table's values of deals ``first .. first + n`` (played already)."""
    parts = []
    for start, values in s.kept:
        size = len(next(iter(values.values())))
        lo, hi = max(first, start), min(first + n, start + size)
        if lo < hi:
            parts.append({k: v[lo - start:hi - start] for k, v in values.items()})
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _play_slow(s: Setting, game, cluster, n: int, max_games: int) -> None:
    if n <= 0:
        return
    if s.games < s.slow_games + n:  # the judged table plays every deal the slow one does, first
        _play_judged(s, game, cluster, min(max_games, s.slow_games + n) - s.games)
        n = min(n, s.games - s.slow_games)
        if n <= 0:
            return
    t0 = time.perf_counter()
    for values in _play(s.slow_config, s.slow_games, n, game, cluster):
        size = len(values["win_share_s0"])
        judged = _kept(s, s.slow_games, size)
        for _, _, judge in s.paired:
            judge.add(judged, values)
        for _, _, slow_judge in s.targets:
            slow_judge.add(values)
        s.slow_games += size
    s.slow_seconds += time.perf_counter() - t0
    # Deals the slow table has played are no longer needed.
    s.kept = [(start, v) for start, v in s.kept if start + len(next(iter(v.values()))) > s.slow_games]


def _progress_line(settings: list[Setting], seconds: float) -> str:
    open_ = sum(verdict(lo, hi, t.low, t.high) == "undecided" for s in settings for t, (_, lo, hi), _ in s.looked)
    played = ", ".join(f"{s.players}p {s.games:,}" + (f" + {s.slow_games:,} {s.slow}" if s.slow else "")
                       for s in settings)
    return f"confirm: {seconds:.0f} s, {counted(open_, 'target')} undecided; games {played}"


def _number(x: float) -> float | None:
    return float(x) if x is not None and math.isfinite(x) else None


def _more(need: int | None, games: int) -> int | None:
    """The games more than ``games`` that would likely decide, if any number would; none before the first look,
    where the games to decide are only the first look's floor on a variance of a few games."""
    return None if need is None or games < FIRST_LOOK else max(0, need - games)


def _result(tune, settings: list[Setting], seed: int, seconds: float, stopped: str, max_games: int,
            max_slow_games: int, max_minutes: float) -> dict[str, Any]:
    game = tune.game
    targets, strength = [], []
    for s in settings:
        judges = ([(judge, s.games, None) for _, judge, _ in s.targets]
                  + [(judge, n, s.players) for _, _, judge, n, _ in s.duels])
        for (t, (x, lo, hi), slow), (judge, games, per_deal) in zip(s.looked, judges):
            v = verdict(lo, hi, t.low, t.high)
            more = _more(judge.games_to_decide(t.low, t.high), games) if v == "undecided" else None
            duel = per_deal is not None  # of the rules at a player count, not of the seats' policy
            entry = {"metric": t.metric, "label": label(t), "wanted": t.spelled,
                     "low_bound": t.low, "high_bound": t.high,
                     "setting": counted(s.players, "player") if duel else s.name, "players": s.players,
                     "policy": None if duel else s.policy, "verdict": v, "estimate": _number(x), "low": _number(lo),
                     "high": _number(hi), "games": games, "games_per_deal": per_deal, "more_games": more,
                     "stronger": None}
            if slow is not None:
                sv = verdict(slow[1], slow[2], t.low, t.high)
                entry["stronger"] = {"policy": s.slow, "verdict": sv, "estimate": _number(slow[0]),
                                     "low": _number(slow[1]), "high": _number(slow[2]), "games": s.slow_games}
            targets.append(entry)
        for (name, material, (d, lo, hi)), (_, _, judge) in zip(s.paired_looked, s.paired):
            v = materiality(lo, hi, material)
            more = _more(judge.games_to_decide(material), s.slow_games) if v == "undecided" else None
            strength.append({"metric": name, "label": game.metric[name].label, "setting": s.name,
                             "players": s.players, "policy": s.policy, "against": s.slow, "material": material,
                             "difference": _number(d), "low": _number(lo), "high": _number(hi),
                             "games": s.slow_games, "verdict": v, "more_games": more})
    return {
        "name": tune.name,
        "game": game.id,
        "rules": str(tune.base_path),
        "seed": seed,
        "confidence": 1 - ALPHA,
        "targets": targets,
        "strength": strength,
        "all_met": all(t["verdict"] == "met" for t in targets),
        "all_decided": all(e["verdict"] != "undecided" for e in (*targets, *strength)),
        "stopped": stopped,
        "budget": {"max_games": max_games, "max_slow_games": max_slow_games, "max_minutes": max_minutes},
        "games": {s.name: {"judged": s.games, "stronger": s.slow_games, "stronger_policy": s.slow,
                           "duel_deals": sum(d[3] for d in s.duels),
                           "duel_games": s.players * sum(d[3] for d in s.duels),
                           "seconds": round(s.seconds + s.slow_seconds + sum(d[4] for d in s.duels), 3)} for s in settings},
        "seconds": round(seconds, 3),
    }


def passed(result: Mapping[str, Any]) -> bool:
    """Whether a confirmation answers yes, as ``lvsim confirm``'s exit code 0 says: every target met; with no
    target (a config alone), every comparison with the stronger tables decided."""
    return result["all_met"] if result["targets"] else result["all_decided"]


def default_seed(tune) -> int:
    """A seed of its own: neither the search's deals nor the final replay's, which chose the rules."""
    from sim.config import MAX_SEED
    from sim.tune.spec import FRESH_SEED_STEP

    return (tune.seed + 2 * FRESH_SEED_STEP) % (MAX_SEED + 1)


def plan(spec, *, seed: int, max_games: int, max_slow_games: int, max_minutes: float) -> dict[str, Any]:
    """What a confirmation would play and about how long the most it may play takes; plays only a timing sample.

    Each setting's tables are timed on a few games (``sim.estimates``); the
    confirmation itself stops as soon as everything is decided, so the time
    given is the most it takes: the budget, or every game allowed if sooner.
    """
    from sim.estimates import games_cost
    from sim.estimates.compiling import compiled_seconds, compiled_since
    from sim.estimates.costs import compiled_text, seconds_text

    compiled = compiled_seconds()
    settings = _settings(spec, seed, max_games, max_slow_games)
    judged = (f"judge {counted(len(spec.targets), 'target')}" if spec.targets
              else "compare the stronger tables with the judged policy")
    lines = [f"lvsim confirm would {judged} at {counted(len(settings), 'setting')} on seed {seed}, playing each "
             "until decided:"]
    lines += [f"  {label(t)} {t.spelled}" for t in confirmable(spec)]
    rows = []
    for s in settings:
        # With nothing of its own to judge, the judged table plays only the deals the stronger one does.
        judged_most = max_games if s.targets or s.duels else min(max_games, max_slow_games)
        slow_most = min(max_slow_games, judged_most)  # the stronger tables pair on the judged table's deals
        fast = games_cost(s.config, cap=FIRST_FAST_BATCH).cost
        slow = None if s.slow_config is None else games_cost(s.slow_config, cap=FIRST_BATCH).cost
        rate = 1 / fast.per_game if fast.per_game else None
        slow_rate = 1 / slow.per_game if slow is not None and slow.per_game else None
        rows.append({"setting": s.name, "judged": s.policy, "stronger": s.slow, "judged_games_per_second": rate,
                     "stronger_games_per_second": slow_rate,
                     "seconds_at_most_games": fast(judged_most) + (slow(slow_most) if slow is not None else 0.0)})
        line = f"  {s.name}: {s.policy} up to {judged_most:,} games" + (f" (about {rate:,.0f} games/s)" if rate else "")
        if s.slow:
            line += f"; {s.slow} on the same deals up to {slow_most:,}"
            line += f" (about {slow_rate:,.0f} games/s)" if slow_rate else ""
        for _, duel, _, _, _ in s.duels:
            line += (f"; the skill-gap duel {duel.policy} against {duel.against} up to {max_games:,} deals, each "
                     f"played {s.players} times (one {duel.policy} seat, every seat in turn)")
        lines.append(wrapped(line, indent="    "))
    most = sum((r["seconds_at_most_games"] for r in rows), 0.0)
    # A skill-gap duel is not timed here: with one, only the budget bounds the time.
    limit = 60 * max_minutes if any(s.duels for s in settings) else min(most, 60 * max_minutes)
    compiled = compiled_since(compiled)
    lines += compiled_text(compiled, "confirmation")
    lines.append(wrapped(f"At most about {seconds_text(limit)}: it stops at every decision, at {max_minutes:g} "
                         "minutes (--max-minutes) or at the most games allowed, whichever comes first."))
    return {"seed": seed, "settings": rows, "targets": [t.as_dict() for t in spec.targets],
            "seconds_at_most": limit, "compiled_seconds": compiled, "text": "\n".join(lines)}
