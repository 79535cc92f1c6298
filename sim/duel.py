"""How much skill matters: policies against each other on the same deals, for any game.

A *duel* seats a list of policies and plays every deal once per rotation of
that list (in rotation ``k`` seat ``s`` gets ``seats[(s + k) % players]``).
Each policy thus plays every deal from every seat it is given, so the
advantage of a seat and the luck of a deal cancel out. The deals are the
same in every rotation because the table's random stream depends only on
``(seed, game)``.

A policy's win share is the wins of all its seats, averaged over rotations
and deals; against its fair share (its seats / players) it says how much
better than chance that policy does. The confidence interval is taken over
deals: the rotations of one deal are averaged first, since they are played
on the same cards and are not independent. A duel is often short (the skill
gap of a small run plays 4 deals), so the interval is one made for a share
over few clusters (``analysis.stats.share_interval``: Wilson's at the
deals' effective number of games, with Student t's degrees of freedom),
which holds the true win share as often as it says where the normal one
over 4 deals does so in about 83% of seeds at 4 players and 77% at 2
(tests/analysis/test_coverage.py).
Below ``analysis.stats.MIN_SAMPLES`` deals there is no interval, and every
output says "too few deals to say".

The *skill gap* of a run is the game's own list of such duels
(``Game.skill_gap_duels``): one stronger seat against weaker ones.
"""

from __future__ import annotations

import math
import sys
from itertools import permutations
from typing import Sequence

import numpy as np

from analysis.stats import TOO_FEW, TOO_FEW_REASON, share_interval
from sim.errors import ConfigError, counted
from sim.game import Game
from sim.memory import check_fits

BATCH = 65_536
SLOW_BATCH = 64  # deals per batch with a slow policy at the table, so that progress shows


def duel(
    game: Game,
    rules,
    seats: Sequence[str],
    games: int,
    seed: int,
    threads: int | None = None,
    field: str = "--seats",
    progress: bool = False,
    games_field: str = "games",
) -> dict:
    """Play ``games`` deals once per rotation of ``seats``; the win share of each policy.

    Returns ``{"game", "games", "players", "seed", "policies": {name: {"seats",
    "fair_share", "win_share", "win_share_ci", "win_share_ci_reason"}}}`` with
    names in order of first appearance in ``seats``. With fewer than
    ``MIN_SAMPLES`` deals the interval is ``[None, None]`` and ``win_share_ci_reason`` says
    why (``"too few deals to say (...)"``); otherwise the reason is None. ``"no_winner_share"`` is the share of
    games that ended with no winner (0 in a game that always has one). ``progress`` shows a progress bar on
    stderr. ``field`` and
    ``games_field`` are the names a bad seat list or number of games is
    reported under; a number of deals that does not fit in memory is refused.
    """
    from tqdm import tqdm

    players = rules.players
    seats = [s.strip() if isinstance(s, str) else s for s in seats]
    seat_ids, _ = game.parse_seats(seats, players, field=field)
    if games < 1:
        raise ConfigError(games_field, f"must be at least 1, got {games}")
    game.policies.check_reference_games(seat_ids, games * players, games_field)
    names = list(dict.fromkeys(seats))
    check_fits(games_field, games, 8 * len(names), "deals")  # per_deal below
    # per_deal[p, g]: policy p's wins on deal g, summed over its seats, averaged over rotations.
    per_deal = np.zeros((len(names), games))
    batch = SLOW_BATCH if game.is_slow(seats) else BATCH
    bar = tqdm(total=games * players, unit="game", unit_scale=True, disable=not progress, file=sys.stderr, leave=False)
    with bar:
        for k in range(players):
            rotated = [seats[(s + k) % players] for s in range(players)]
            ids, params = game.parse_seats(rotated, players, field=field)
            for first in range(0, games, batch):
                n = min(batch, games - first)
                rec = game.play_games(rules, seed, first, n, ids, params, threads=threads)
                for s, name in enumerate(rotated):
                    per_deal[names.index(name), first:first + n] += rec["win_share"][:, s]
                bar.update(n)
    per_deal /= players
    policies = {}
    for p, name in enumerate(names):
        n_seats = seats.count(name)
        share, interval = _policy_share(per_deal[p], n_seats, players)
        policies[name] = {
            "seats": n_seats,
            "fair_share": n_seats / players,
            "win_share": share,
            "win_share_ci": interval,
            "win_share_ci_reason": TOO_FEW_REASON if None in interval else None,
        }
    # A game may end with no winner ($ Fever's turn cap): its deals' win shares then sum to less than 1.
    no_winner = max(0.0, 1.0 - float(per_deal.sum(axis=0).mean()))
    return {"game": game.id, "games": games, "players": players, "seed": seed, "policies": policies,
            "no_winner_share": no_winner if no_winner > 1e-9 else 0.0}


def tournament(game: Game, rules, policies: Sequence[str], games: int, seed: int, threads: int | None = None) -> dict:
    """Every ordered pairing: one seat of policy A against B at every other seat.

    Returns ``{"games", "players", "seed", "pairs": [{"policy", "against",
    "win_share", "win_share_ci", "fair_share"}, ...]}``.
    """
    pairs = []
    for a, b in permutations(dict.fromkeys(policies), 2):
        result = duel(game, rules, [a] + [b] * (rules.players - 1), games, seed, threads, field="policies")
        pairs.append({"policy": a, "against": b, **_share(result, a)})
    return {"games": games, "players": rules.players, "seed": seed, "pairs": pairs}


def skill_gap(game: Game, rules, games: int, seed: int = 1, threads: int | None = None) -> dict:
    """How far skill carries under these rules: each of the game's skill-gap duels.

    Each duel seats one stronger policy against a weaker one at every other
    seat over ``games`` times its factor of deals; its entry holds the two
    policies' names (``policy``, ``against``), ``games``, ``win_share``,
    ``win_share_ci`` (None below ``MIN_SAMPLES`` deals), ``win_share_ci_reason``
    (why there is no interval, else None), ``fair_share`` (1 / players) and, when some of its games ended with
    no winner, ``no_winner_share``.
    """
    out = {}
    for d in game.skill_gap_duels:
        n = games * d.factor
        result = duel(game, rules, [d.policy] + [d.against] * (rules.players - 1), n, seed, threads,
                      field="skill_gap")
        out[d.name] = {"policy": d.policy, "against": d.against, "games": n, **_share(result, d.policy)}
        if result["no_winner_share"]:  # only in a game that can end with no winner: the others' summaries as before
            out[d.name]["no_winner_share"] = result["no_winner_share"]
    return out


def _policy_share(per_deal: np.ndarray, n_seats: int, players: int) -> tuple[float, list[float | None]]:
    """A policy's win share over the deals and its 95% interval (None ends below ``MIN_SAMPLES`` deals).

    A policy at every seat takes every win of a game that has a winner: when
    every game has one, its share is 1 with nothing uncertain about it (the
    deals' shares are 1 up to the rounding of tied seats' fractions). A game
    without a winner ($ Fever's turn cap) leaves it a share like any other.
    """
    if n_seats == players and np.allclose(per_deal, 1.0, rtol=0.0, atol=1e-9):
        return 1.0, [1.0, 1.0]
    return float(per_deal.mean()), _json_interval(share_interval(per_deal, players))


def _json_interval(interval: tuple[float, float]) -> list[float | None]:
    """An interval as the summary's JSON keeps it: none (nan) as None, so that summary.json stays valid JSON."""
    return [None if math.isnan(x) else x for x in interval]


def _share(result: dict, name: str) -> dict:
    entry = result["policies"][name]
    return {k: entry[k] for k in ("win_share", "win_share_ci", "win_share_ci_reason", "fair_share")}


def duel_table(result: dict) -> str:
    """The result of :func:`duel` as a text table, one line per policy."""
    lines = [
        f"{counted(result['games'], 'deal')} x {counted(result['players'], 'seat rotation')} at "
        f"{counted(result['players'], 'player')} "
        f"(seed {result['seed']})",
        "",
        f"{'policy':<28}{'seats':>6}{'fair share':>12}{'win share':>11}   95% CI",
    ]
    for name, row in result["policies"].items():
        low, high = row["win_share_ci"]
        if row.get("win_share_ci_reason"):
            ci = TOO_FEW
        else:
            ci = "-" if low is None or math.isnan(low) else f"[{low:.3f}, {high:.3f}]"
        lines.append(f"{name:<28}{row['seats']:>6}{row['fair_share']:>12.3f}{row['win_share']:>11.3f}   {ci}")
    no_winner = result.get("no_winner_share", 0.0)
    if no_winner:
        # The two shares as printed add up to 100.0%: both are written from the first rounded to tenths of a point.
        tenths = round(no_winner * 1000)
        some, rest = ((f"{tenths / 10:.1f}%", f"the other {(1000 - tenths) / 10:.1f}%") if tenths
                      else ("Under 0.1%", "over 99.9%"))
        lines += ["", f"{some} of the games ended with no winner: win shares are of all games, and equal players "
                      f"would share only {rest}."]
    return "\n".join(lines)
