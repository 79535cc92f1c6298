"""Which decisions matter: restricted play, one kind of decision at a time (Jaffe et al., AIIDE 2012).

A game's seats decide several kinds of thing (its ``enums.DECISION_KINDS``:
Las Vegan's ``lead``, ``follow``, ``token``, ``golden``). For each kind, one
seat plays the table's policy except that it makes decisions of that kind
uniformly at random among the legal options (``sim.restricted``); every
seat takes that role in turn, on the same deals as the unrestricted table
(the table's stream depends only on ``(seed, game)``, and the restricted
seat draws its random choices from its own stream). What the restriction
costs is paired deal by deal: the unrestricted seat's win share minus the
restricted seat's on the same deal, averaged over the seats, so positive
when the decision carries skill; its 95% interval is Student t's over the
deals.

A census beside it says how often a kind offers more than one legal
option (its choice rate) and, on a bounded sample of those decisions, how
often the game's slow, strong policy (``Game.strength_slow_policy``) would
decide alike: the census seat plays the table's policy and asks the slow
one on a copy of its stream, so its play is the table's.
"""

from __future__ import annotations

import math
import sys
from typing import Sequence

import numpy as np

from analysis.common import num_ci
from analysis.stats import MIN_SAMPLES, TOO_FEW, sample_mean_interval, wilson_interval
from sim import restricted as R
from sim.errors import ConfigError, and_listed, counted, shown
from sim.game import Game
from sim.memory import check_fits
from sim.wording import wrapped

BATCH = 65_536
SLOW_BATCH = 64
# A kind whose cost's 95% interval lies within this much win share of 0 is called near-free.
NEAR_FREE = 0.02
# Per-deal values no further apart than this are alike: a difference of win shares rounds by far less.
ALIKE = 1e-9
# Decisions of each kind the slow policy is asked about in the census, at most (spread over the seats).
AGREEMENT_DECISIONS = 200
# Deals of the census at each seat, at most.
CENSUS_GAMES = 200
EVERY_KIND = "every kind"
# A run's report plays this many times its skill-gap deals (as the skill gap's cheap duels do).
RUN_FACTOR = 20


def table_seats(game: Game, seats: str | Sequence[str] | None, players: int, field: str = "--seats") -> list[str]:
    """The unrestricted table's policies, one per seat: ``seats`` (one name or one per seat), else the game's
    default player at every seat."""
    if seats is None:
        seats = game.default_policy
    if isinstance(seats, str):
        seats = [seats] * players
    seats = [s.strip() if isinstance(s, str) else s for s in seats]
    game.parse_seats(seats, players, field=field)
    return seats


def kind_mask(game: Game, kinds: Sequence[str], field: str = "kinds") -> int:
    """The restricted row's mask of ``kinds`` (names of the game's ``DECISION_KINDS``)."""
    declared = game.policies.decision_kinds
    mask = 0
    for kind in kinds:
        if kind not in declared:
            raise ConfigError(field, f"unknown decision kind {shown(kind)} for {game.title} "
                                     f"(its kinds: {', '.join(declared)})")
        mask |= 1 << declared.index(kind)
    return mask


def _check_game(game: Game, seat_ids: np.ndarray, field: str) -> None:
    policies = game.policies
    if policies.restricted_id is None or not policies.decision_kinds:
        raise ConfigError("game", f"{game.title} declares no kinds of decision and no restricted policy "
                                  "(its policies.POLICIES), so its decisions cannot be restricted")
    if len(policies.decision_kinds) > R.MAX_KINDS:
        raise ConfigError("game", f"{game.title} declares {len(policies.decision_kinds)} kinds of decision; "
                                  f"restricted play tells at most {R.MAX_KINDS} apart")
    if policies.needs_reference(seat_ids):
        raise ConfigError(field, "a seat plays a policy only the reference engine has; restricted play needs the "
                                 "jitted core's policies")


def _wide(game: Game, params: np.ndarray) -> np.ndarray:
    """The table's params rows in restricted rows' width (each policy reads only its own first columns)."""
    n = game.n_policy_params
    out = np.zeros((params.shape[0], R.width(n)), dtype=np.float64)
    out[:, :n] = params
    return out


def restricted_seats(game: Game, ids: np.ndarray, params: np.ndarray, seat: int, mask: int,
                     **watched) -> tuple[np.ndarray, np.ndarray]:
    """A table's seats as the kernel takes them, ``seat`` playing its policy with the kinds of ``mask`` made at
    random (``watched``: its census, ``sim.restricted.row``)."""
    seat_ids = np.array(ids, dtype=np.int64)
    seat_ids[seat] = game.policies.restricted_id
    seat_params = _wide(game, params)
    seat_params[seat] = R.row(game.n_policy_params, mask, int(ids[seat]), params[seat], **watched)
    return seat_ids, seat_params


def unlike_restricted(game: Game, rules, seats: Sequence[str], seed: int, every_kind: bool = True) -> list[str]:
    """The kinds (and ``EVERY_KIND``) whose restricted table the reference engine does not play as the jitted core
    does on its first deal: the ``k``-th made at random by seat ``k % players``, the restricted player's own code
    (``sim.restricted``) played by both engines."""
    from sim.reference import unlike_the_kernel

    ids, params = game.parse_seats(list(seats), rules.players, field="--seats")
    kinds = list(game.policies.decision_kinds)
    masks = [(kind, 1 << k) for k, kind in enumerate(kinds)]
    if every_kind:
        masks.append((EVERY_KIND, (1 << len(kinds)) - 1))
    return [kind for at, (kind, mask) in enumerate(masks) if unlike_the_kernel(
        game, rules, seed, seats, seated=restricted_seats(game, ids, params, at % rules.players, mask))]


def restricted_tables(kinds: Sequence[str]) -> str:
    """``the table with lead made at random``, as a warning names what it played."""
    return f"the table{'s' if len(kinds) > 1 else ''} with {and_listed(kinds)} made at random"


def restricted_win_shares(game: Game, rules, seats: Sequence[str], mask: int, games: int, seed: int,
                          threads: int | None = None, bar=None) -> np.ndarray:
    """Per deal, the mean over seats of the win share of that seat playing its policy with the kinds of ``mask``
    made at random, the others unrestricted: ``games`` values (every seat in turn, on the same deals)."""
    players = rules.players
    ids, params = game.parse_seats(list(seats), players, field="--seats")
    batch = SLOW_BATCH if game.is_slow(seats) else BATCH
    out = np.zeros(games)
    for s in range(players):
        seat_ids, seat_params = restricted_seats(game, ids, params, s, mask)
        for first in range(0, games, batch):
            k = min(batch, games - first)
            rec = game.play_games(rules, seed, first, k, seat_ids, seat_params, threads=threads)
            out[first:first + k] += rec["win_share"][:, s]
            if bar is not None:
                bar.update(k)
    return out / players


def table_win_shares(game: Game, rules, seats: Sequence[str], games: int, seed: int, threads: int | None = None,
                     bar=None) -> np.ndarray:
    """Per deal, the mean over seats of the unrestricted table's win shares."""
    ids, params = game.parse_seats(list(seats), rules.players, field="--seats")
    batch = SLOW_BATCH if game.is_slow(seats) else BATCH
    out = np.zeros(games)
    for first in range(0, games, batch):
        k = min(batch, games - first)
        rec = game.play_games(rules, seed, first, k, ids, params, threads=threads)
        out[first:first + k] = rec["win_share"].mean(axis=1)
        if bar is not None:
            bar.update(k)
    return out


def census(game: Game, rules, seats: Sequence[str], games: int, seed: int, agreement: int = AGREEMENT_DECISIONS,
           bar=None) -> np.ndarray:
    """``(kinds, 4)``: decisions, decisions with a choice, slow policy asked, agreed — every seat watched in turn
    over ``games`` deals, the slow policy asked at most ``agreement`` decisions of each kind in all."""
    players = rules.players
    kinds = len(game.policies.decision_kinds)
    ids, params = game.parse_seats(list(seats), players, field="--seats")
    slow_id, slow_params = -1, None
    slow = game.strength_slow_policy
    if slow is not None and agreement > 0:
        slow_id, slow_params = game.parse_policy(slow)
        if game.policies.needs_reference([slow_id]):
            slow_id, slow_params = -1, None
    budget = max(1, agreement // players)
    total = np.zeros((kinds, R.COUNTED))
    for s in range(players):
        seat_ids, seat_params = restricted_seats(game, ids, params, s, 0, watch=True, budget=budget,
                                                 slow_id=int(slow_id), slow_params=slow_params)
        # One thread: the census adds to the row it is given (sim.restricted).
        game.play_games(rules, seed, 0, games, seat_ids, seat_params, threads=1)
        total += R.counts(seat_params[s], kinds)
        if bar is not None:
            bar.update(games)
    return total


def restriction_cost(game: Game, rules, kinds: Sequence[str], games: int, seed: int,
                     seats: str | Sequence[str] | None = None, threads: int | None = None) -> dict:
    """What making ``kinds`` at random costs a seat, every seat in turn: ``{"cost", "low", "high", "verdict",
    "per_deal"}`` (the per-deal paired costs as an array)."""
    seats = table_seats(game, seats, rules.players)
    ids, _ = game.parse_seats(seats, rules.players, field="--seats")
    _check_game(game, ids, "--seats")
    mask = kind_mask(game, kinds)
    per_deal = (table_win_shares(game, rules, seats, games, seed, threads)
                - restricted_win_shares(game, rules, seats, mask, games, seed, threads))
    mean, low, high = _interval(per_deal)
    return {"cost": mean, "low": low, "high": high, "verdict": verdict(low, high), "per_deal": per_deal}


def run_decisions(config) -> dict | None:
    """The report's table for a run's config: its rules, seats and seed, over ``RUN_FACTOR`` times its skill-gap
    deals; None when the skill gap is off, or a seat is slow or played by the reference engine only (then
    ``{"skipped": why}``)."""
    deals = run_decision_deals(config)
    if deals <= 0:
        return None
    skipped = run_skips_decisions(config)
    if skipped:
        return {"skipped": skipped}
    return decisions(config.game_spec, config.rules, deals, config.seed, seats=list(config.seat_policies),
                     threads=config.threads)


def run_decision_deals(config) -> int:
    """The deals a run of ``config`` plays of each table of which decisions matter: ``RUN_FACTOR`` times its
    skill-gap deals (0 when the skill gap is off)."""
    return config.skill_gap_deals * RUN_FACTOR


def run_skips_decisions(config) -> str | None:
    """Why a run of ``config`` with its skill gap on leaves out which decisions matter; None when it plays them."""
    game, seats = config.game_spec, list(config.seat_policies)
    ids, _ = game.parse_seats(seats, config.players)
    if game.policies.restricted_id is None or game.policies.needs_reference(ids):
        return ("a seat's policy cannot be restricted (the game declares no restricted policy, or the policy is "
                "played by the reference engine)")
    if game.is_slow(seats):
        return "a seat plays a slow search; run lvsim decisions on this config to measure it"
    return None


def run_plays_decisions(config) -> bool:
    """Whether a run of ``config`` plays which decisions matter (:func:`run_decisions`)."""
    return run_decision_deals(config) > 0 and run_skips_decisions(config) is None


def kinds_played(game: Game, rules, seats: str | Sequence[str] | None, games: int,
                 census_games: int | None = None, every_kind: bool = True) -> dict:
    """What :func:`decisions` would play, checked but not played: ``{"kinds", "games", "tables", "census_games",
    "total_games", "text"}``."""
    players = rules.players
    if games < 1:
        raise ConfigError("--games", f"must be at least 1, got {games}")
    seats = table_seats(game, seats, players)
    ids, _ = game.parse_seats(seats, players, field="--seats")
    _check_game(game, ids, "--seats")
    kinds = game.policies.decision_kinds
    census_games = min(games, CENSUS_GAMES) if census_games is None else census_games
    tables = 1 + players * (len(kinds) + (1 if every_kind else 0))
    total = games * tables + census_games * players
    text = (f"{counted(games, 'deal')} at {counted(tables, 'table')} (the unrestricted one, then each of "
            f"{', '.join(kinds)}{' and every kind' if every_kind else ''} restricted at each seat in turn) and a "
            f"census of {counted(census_games, 'deal')} at each seat: {total:,} games")
    return {"kinds": list(kinds), "games": games, "tables": tables, "census_games": census_games,
            "total_games": total, "text": text}


def seconds_of(game: Game, rules, seats: str | Sequence[str] | None, games: int, seed: int,
               threads: int | None = None, census_games: int | None = None, agreement: int = AGREEMENT_DECISIONS,
               every_kind: bool = True) -> float:
    """About how long :func:`decisions` takes here: the unrestricted table timed on a few of its deals, times the
    tables it plays, plus the census timed on a few deals with the slow policy asked in proportion (an upper
    bound: the slow policy stops being asked once it has its decisions)."""
    from sim.estimates.costs import calibrate

    players = rules.players
    seats = table_seats(game, seats, players)
    census_games = min(games, CENSUS_GAMES) if census_games is None else census_games
    tables = 1 + players * (len(game.policies.decision_kinds) + (1 if every_kind else 0))
    table = calibrate(lambda n: table_win_shares(game, rules, seats, n, seed, threads), games).cost
    seconds = tables * table(games)
    if census_games > 0:
        asked = lambda n: max(1, agreement * n // census_games)  # noqa: E731
        watched = calibrate(lambda n: census(game, rules, seats, n, seed, asked(n)), census_games).cost
        seconds += watched(census_games)
    return seconds


def _interval(values: np.ndarray, bound: float = 1.0, offered: bool = False) -> tuple[float, float | None, float | None]:
    """The mean of ``values`` and its 95% interval, kept within ``[-bound, bound]``: a cost in win share lies
    within ±1 (Student t's interval over few deals near the edge would reach past it).

    Values all alike (to within :data:`ALIKE`, the rounding of a difference of win shares) have no spread to
    measure. Of a kind that ``offered`` no choice, nothing is uncertain (the
    value itself: it never costs). Of one that did, some deal may differ from the rest unseen: with none in
    ``n``, such deals are at most a share ``1 - 0.05^(1/n)`` of all (95%), each within ``bound + |v|`` of the
    value ``v``, and the interval is that far either side."""
    n = len(values)
    if np.ptp(values) <= ALIKE:
        v = float(values[0] if np.all(values == values[0]) else values.mean())
        if n < MIN_SAMPLES:
            return v, None, None
        reach = (bound + abs(v)) * (1 - 0.05 ** (1 / n)) if offered else 0.0
        return v, max(v - reach, -bound), min(v + reach, bound)
    mean, low, high = sample_mean_interval(values)
    return mean, (None if math.isnan(low) else max(low, -bound)), (None if math.isnan(high) else min(high, bound))


def verdict(low: float | None, high: float | None, band: float = NEAR_FREE) -> str:
    """``skill`` (the interval lies above 0), ``near-free`` (within ±band of 0), ``better at random`` (below 0),
    ``undecided`` (holds 0 but reaches past the band) or ``too few deals``."""
    if low is None or high is None:
        return "too few deals"
    if low > 0:
        return "skill"
    if high < 0:
        return "better at random"
    if -band <= low and high <= band:
        return "near-free"
    return "undecided"


def decisions(game: Game, rules, games: int, seed: int, seats: str | Sequence[str] | None = None,
              threads: int | None = None, census_games: int | None = None, agreement: int = AGREEMENT_DECISIONS,
              every_kind: bool = True, progress: bool = False, field: str = "--seats",
              games_field: str = "--games") -> dict:
    """What each kind of decision is worth under these rules: restricted play over ``games`` deals.

    Returns ``{"game", "players", "games", "seed", "seats", "slow_policy", "near_free", "census_games",
    "most_skill", "decisions": [{"kind", "cost", "low", "high", "verdict", "decisions", "choice_rate", "asked",
    "agreement", "agreement_low", "agreement_high"}], "every_kind": {...}, "sentence"}``. ``cost`` is the
    win share the restriction costs (the unrestricted seat's minus the restricted seat's, paired by deal),
    ``low``/``high`` its 95% interval (None below ``MIN_SAMPLES`` deals); ``choice_rate`` the share of the
    kind's decisions offering more than one option (0 if the census met none: ``decisions`` is then 0); ``agreement`` the share of
    ``asked`` such decisions on which the slow policy decides alike (None if not asked). ``most_skill`` names
    the costliest kind whose interval lies above 0 and every such kind its paired difference does not tell from
    it (empty when none lies above 0).
    """
    from tqdm import tqdm

    players = rules.players
    if games < 1:
        raise ConfigError(games_field, f"must be at least 1, got {games}")
    seats = table_seats(game, seats, players, field)
    ids, _ = game.parse_seats(seats, players, field=field)
    _check_game(game, ids, field)
    check_fits(games_field, games, 16, "deals")
    kinds = game.policies.decision_kinds
    census_games = min(games, CENSUS_GAMES) if census_games is None else census_games
    runs = 1 + players * (len(kinds) + (1 if every_kind else 0))
    bar = tqdm(total=games * runs + census_games * players, unit="game", unit_scale=True, disable=not progress,
               file=sys.stderr, leave=False)
    with bar:
        table = table_win_shares(game, rules, seats, games, seed, threads, bar)
        per_deal = [table - restricted_win_shares(game, rules, seats, 1 << k, games, seed, threads, bar)
                    for k in range(len(kinds))]
        every_cost = None
        if every_kind:
            every_cost = table - restricted_win_shares(game, rules, seats, (1 << len(kinds)) - 1, games, seed,
                                                       threads, bar)
        counts = census(game, rules, seats, census_games, seed, agreement, bar) if census_games > 0 else None
    # Whether each kind offered a choice: without a census, it may have.
    offered = [counts is None or int(counts[k][1]) > 0 for k in range(len(kinds))]

    def cost_of(values: np.ndarray, any_choice: bool) -> dict:
        mean, low, high = _interval(values, offered=any_choice)
        return {"cost": mean, "low": low, "high": high, "verdict": verdict(low, high)}

    rows = [{"kind": kind, **cost_of(per_deal[k], offered[k])} for k, kind in enumerate(kinds)]
    every = None if every_cost is None else cost_of(every_cost, any(offered))
    slow = game.strength_slow_policy
    for k, row in enumerate(rows):
        seen, choices, asked, agreed = (0, 0, 0, 0) if counts is None else (int(x) for x in counts[k])
        row["decisions"] = seen
        row["choice_rate"] = choices / seen if seen else 0.0  # never met: never a choice
        row["asked"] = asked
        row["agreement"] = agreed / asked if asked else None
        low, high = wilson_interval(agreed, asked) if asked else (None, None)
        row["agreement_low"], row["agreement_high"] = low, high
    result = {
        "game": game.id, "players": players, "games": games, "seed": seed, "seats": list(seats),
        "slow_policy": slow, "near_free": NEAR_FREE, "census_games": census_games,
        "decisions": rows, "every_kind": every, "most_skill": most_skill(rows, per_deal),
    }
    result["sentence"] = sentence(result)
    return result


def most_skill(rows: list[dict], per_deal: list[np.ndarray]) -> list[str]:
    """The kinds that carry the most skill: the costliest kind whose interval lies above 0, with every other such
    kind its paired difference on the same deals does not tell from it (the interval of the difference holds 0).
    Empty when no kind's interval lies above 0."""
    skill = [k for k, row in enumerate(rows) if row["verdict"] == "skill"]
    if not skill:
        return []
    top = max(skill, key=lambda k: rows[k]["cost"])
    tied = []
    for k in skill:
        if k == top:
            continue
        # Both kinds offered choices (each costs something): a difference alike on every deal seen is bounded
        # as a cost alike on every deal is, for the deals unlike them that few deals may not show.
        _, low, _ = _interval(per_deal[top] - per_deal[k], bound=2.0, offered=True)
        if low is None or low <= 0:
            tied.append(k)
    return [rows[k]["kind"] for k in [top] + sorted(tied, key=lambda k: -rows[k]["cost"])]


def cost_interval(row: dict, too_few: str = TOO_FEW) -> str:
    """A cost's 95% interval in win share, as the sentence, the text table and the report write it; ``too_few``
    when there is none."""
    return num_ci((row["low"], row["high"]), 3, too_few)


def _cost(row: dict) -> str:
    return f"{row['cost']:.3f} {cost_interval(row)}"


def sentence(result: dict) -> str:
    """What a designer reads: the kind carrying the most skill, and those near-free, at the sample played."""
    rows = result["decisions"]
    band = result["near_free"]
    deals = counted(result["games"], "deal")
    by = {v: [r for r in rows if r["verdict"] == v] for v in ("skill", "near-free", "undecided", "better at random",
                                                               "too few deals")}
    if len(by["too few deals"]) == len(rows):
        return f"Too few deals to say which decisions matter ({deals}; at least {MIN_SAMPLES} are needed)."
    parts = []
    if by["skill"]:
        top = max(by["skill"], key=lambda r: r["cost"])
        # A decisions.json of an earlier lvsim has no most_skill: its costliest kind alone, as it then said.
        named = {r["kind"]: r for r in rows}
        most = [named[k] for k in result.get("most_skill", [top["kind"]])]
        if len(most) == 1:
            parts.append(f"{top['kind']} carries the most skill: made at random it costs {_cost(top)} of a win "
                         f"share (95% interval, {deals})")
        else:
            names = ", ".join(r["kind"] for r in most[:-1]) + f" and {most[-1]['kind']}"
            costs = ", ".join(f"{r['kind']} {_cost(r)}" for r in most)
            parts.append(f"{names} carry the most skill, not told apart at {deals} (the paired difference's 95% "
                         f"interval holds 0): made at random they cost {costs} of a win share")
        others = [r["kind"] for r in by["skill"] if r not in most]
        if others:
            parts.append(f"{', '.join(others)} also cost{'s' if len(others) == 1 else ''} something "
                         "(interval above 0)")
    else:
        parts.append(f"No kind of decision shows a cost at {deals}")
    if by["near-free"]:
        names = ", ".join(r["kind"] for r in by["near-free"])
        parts.append(f"near-free: {names} (95% interval within ±{band:.2f} of a win share)")
    if by["undecided"]:
        names = ", ".join(r["kind"] for r in by["undecided"])
        parts.append(f"undecided: {names} (interval holds 0 but reaches past ±{band:.2f}; more deals would tell)")
    if by["better at random"]:
        names = ", ".join(r["kind"] for r in by["better at random"])
        parts.append(f"made at random, {names} gain{'s' if len(by['better at random']) == 1 else ''} "
                     "(interval below 0: the policy decides them worse than chance)")
    return "; ".join(parts) + "."


def decisions_table(result: dict, title: str = "") -> str:
    """The result of :func:`decisions` as text: one line per kind, then the sentence."""
    seats = result["seats"]
    table = seats[0] if len(set(seats)) == 1 else ",".join(seats)
    slow = result["slow_policy"]
    lines = [
        f"{title + ': ' if title else ''}{table} at {'every seat' if len(set(seats)) == 1 else 'the seats'}, "
        f"{counted(result['games'], 'deal')} x {counted(result['players'], 'seat')} restricted in turn at "
        f"{counted(result['players'], 'player')} (seed {result['seed']})",
        "",
        f"{'decision':<12}{'cost':>8}   {'95% CI':<18}{'verdict':<18}{'choice rate':>12}   "
        f"{'agrees with ' + slow if slow else ''}",
    ]
    for row in result["decisions"]:
        ci = cost_interval(row, "-")  # the verdict says why
        rate = "-" if row["choice_rate"] is None else f"{row['choice_rate']:.2f}"
        agree = ""
        if slow:
            agree = "-" if row["agreement"] is None else f"{row['agreement']:.2f} of {row['asked']:,}"
        lines.append(f"{row['kind']:<12}{row['cost']:>8.3f}   {ci:<18}{row['verdict']:<18}{rate:>12}   {agree}")
    every = result.get("every_kind")
    if every:
        lines.append(f"{EVERY_KIND:<12}{every['cost']:>8.3f}   {cost_interval(every, '-'):<18}{every['verdict']}")
    census_note = (f"Choice rate over {counted(result['census_games'], 'deal')} x "
                   f"{counted(result['players'], 'seat')}")
    if slow:
        census_note += f"; agreement on at most {AGREEMENT_DECISIONS} decisions of each kind offering a choice"
    lines += ["", wrapped(census_note + "."), wrapped(result["sentence"])]
    return "\n".join(lines)
