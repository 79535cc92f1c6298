"""Which decisions shape the game: the cards a seat plays, or where it places tokens.

Run: ``.venv/bin/python bench/bench_split.py [--players 4] [--games 1000] [--deals 150]
[--mix greedy/lookahead:64 ...]``.

Each ``--mix CARDS/PLACEMENTS`` is a player who plays its cards as policy
CARDS and places its tokens as policy PLACEMENTS. CARDS may hand some kinds
of card choice to another policy: ``expert+lookahead:16@discards`` plays
like ``expert`` except when it cannot follow suit, where it plays like
``lookahead:16`` (kinds: ``leads``, ``follows`` for following suit,
``discards``; several joined by ``,``). For each one:

1. Profile: every seat that player, on the same deals (the reference
   engine, seed 2026): elimination rate and mean rounds with 95% intervals,
   and the share of placed golden tokens put on MAX.
2. Duel (``--deals`` > 0): one seat that player and every other seat
   ``--against`` (default ``lookahead:32``), seats rotated on each deal
   (seed 777); its mean win share with a 95% interval over deals.

The games run on the reference engine, which calls the jitted policies for
each decision, so the mixes need no kernel of their own; it is slow (tens of
games per second with a lookahead part) but the decisions are the jitted
core's own.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from sim.lasvegan import enums as E
from sim.lasvegan.params import Rules
from sim.lasvegan.rules import JitPolicy, play_game

Z95 = 1.959963984540054
PROFILE_SEED = 2026
DUEL_SEED = 777


KINDS = ("leads", "follows", "discards")


def choice_kind(obs) -> str:
    """Leading a trick, following its suit, or discarding (void in it)."""
    if not obs.trick:
        return "leads"
    led = obs.trick[0] // 10
    return "follows" if any(card // 10 == led for card in obs.hand) else "discards"


class SplitPolicy:
    """Plays its cards as one policy (some kinds of card choice as another) and
    places its tokens as another."""

    def __init__(self, cards: str, placements: str):
        base, _, rest = cards.partition("+")
        other, _, kinds = rest.partition("@")
        self.cards = JitPolicy.named(base)
        self.other = JitPolicy.named(other) if other else None
        self.kinds = set(kinds.split(",")) if kinds else set()
        if not self.kinds <= set(KINDS) or bool(self.other) != bool(self.kinds):
            raise SystemExit(f"{cards!r}: expected BASE or BASE+OTHER@KINDS with kinds among {', '.join(KINDS)}")
        self.placements = JitPolicy.named(placements)

    def choose_card(self, obs, legal, rng):
        if self.other is not None and choice_kind(obs) in self.kinds:
            return self.other.choose_card(obs, legal, rng)
        return self.cards.choose_card(obs, legal, rng)

    def choose_placement(self, obs, rng):
        return self.placements.choose_placement(obs, rng)


def mean_ci(x) -> tuple[float, float, float]:
    x = np.asarray(x, dtype=float)
    m = float(x.mean())
    half = Z95 * float(x.std(ddof=1)) / math.sqrt(len(x)) if len(x) > 1 else math.nan
    return m, m - half, m + half


def profile(policy: SplitPolicy, players: int, games: int) -> str:
    rules = Rules(players=players)
    elim, rounds, on_max, placed = [], [], 0, 0
    for g in range(games):
        rec = play_game(rules, PROFILE_SEED, g, [policy] * players)
        elim.append(float(rec["elim_round"] > 0))
        rounds.append(float(rec["rounds_played"]))
        on_max += int((rec["golden_side"] == E.MAX_SIDE).sum())
        placed += int((rec["golden_side"] >= 0).sum())
    e, r = mean_ci(elim), mean_ci(rounds)
    return (f"elimination {100 * e[0]:5.1f}% [{100 * e[1]:5.1f}, {100 * e[2]:5.1f}]  "
            f"rounds {r[0]:.2f} [{r[1]:.2f}, {r[2]:.2f}]  golden on MAX {100 * on_max / max(placed, 1):5.1f}%")


def duel(policy: SplitPolicy, against: str, players: int, deals: int) -> str:
    rules = Rules(players=players)
    other = JitPolicy.named(against)
    per_deal = []
    for g in range(deals):
        share = 0.0
        for seat in range(players):
            seats = [policy if s == seat else other for s in range(players)]
            share += float(play_game(rules, DUEL_SEED, g, seats)["win_share"][seat])
        per_deal.append(share / players)
    m, lo, hi = mean_ci(per_deal)
    return f"one seat against {against}: win share {m:.3f} [{lo:.3f}, {hi:.3f}], fair {1 / players:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=1000, help="profile games per mix (0: none)")
    parser.add_argument("--deals", type=int, default=0, help="duel deals per mix, seats rotated on each (0: none)")
    parser.add_argument("--against", default="lookahead:32")
    parser.add_argument("--mix", action="append", help="CARDS/PLACEMENTS, e.g. greedy/lookahead:64 (repeatable)")
    args = parser.parse_args()
    mixes = args.mix or ["greedy/greedy", "greedy/lookahead:64", "expert/expert", "expert/lookahead:64"]
    for mix in mixes:
        cards, _, placements = mix.partition("/")
        policy_placements = placements or cards.partition("+")[0]
        policy = SplitPolicy(cards, policy_placements)
        started = time.perf_counter()
        if args.games:
            print(f"{args.players}p  cards {cards:>13}  placements {policy_placements:>13}  {args.games} games  "
                  f"{profile(policy, args.players, args.games)}  ({time.perf_counter() - started:.0f} s)", flush=True)
        started = time.perf_counter()
        if args.deals:
            print(f"{args.players}p  cards {cards:>13}  placements {policy_placements:>13}  {args.deals} deals  "
                  f"{duel(policy, args.against, args.players, args.deals)}  ({time.perf_counter() - started:.0f} s)",
                  flush=True)


if __name__ == "__main__":
    main()
