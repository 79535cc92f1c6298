"""The jitted core of High Card: batches of games, in parallel, in the reference engine's order of events and
draws (the README's); game ``i`` depends on ``(seed, i)`` alone, so threads and chunks never change a record."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.batches import BatchKernel
from sim.rng import seed_stream_at_nb, shuffle_at_nb

from lvsim_highcard import enums as E
from lvsim_highcard.policies import choose_card_nb
from lvsim_highcard.records import LAYOUT

GAMES_PER_CHUNK = 4096


@njit(cache=True, nogil=True)
def play_chunk_nb(seed, first_game, lo, hi, rules, policy_ids, policy_params, out):
    """Play games ``first_game + lo .. first_game + hi - 1`` into rows ``lo .. hi - 1``; scratch is allocated
    once and reset per game, ``rngs[stream]`` is each stream's state."""
    deck = rules.deck
    players, rounds, top = rules.players, rules.rounds, rules.top
    hand, ties = rules.hand, rules.ties
    pub = np.zeros(E.PUB_SIZE, dtype=np.int64)
    rngs = np.zeros((E.STREAM_POLICY + players, 4), dtype=np.uint64)
    cards = np.zeros(deck.shape[0], dtype=np.int64)
    hands = np.zeros((players, E.MAX_TOP + 1), dtype=np.int64)  # [seat, value]: cards held
    for i in range(lo, hi):
        game = first_game + i
        for row in range(E.STREAM_POLICY + players):
            seed_stream_at_nb(rngs, row, seed, game, row)
        cards[:] = deck
        shuffle_at_nb(rngs, E.STREAM_TABLE, cards, cards.shape[0])
        hands[:, :] = 0
        for s in range(players):
            for k in range(hand):
                hands[s, cards[s * hand + k]] += 1

        pub[:] = 0
        pub[E.P_PLAYERS], pub[E.P_ROUNDS], pub[E.P_TOP], pub[E.P_TIES] = players, rounds, top, ties
        out.game[i] = game
        for r in range(rounds):
            leader = r % players
            pub[E.P_ROUND], pub[E.P_LEADER], pub[E.P_BEST] = r, leader, 0
            pub[E.P_PLAYED:E.P_PLAYED + players] = 0
            for t in range(players):
                s = (leader + t) % players
                pub[E.P_SEAT], pub[E.P_TURN] = s, t
                card = choose_card_nb(policy_ids[s], policy_params[s], pub, hands[s], rngs, E.STREAM_POLICY + s)
                hands[s, card] -= 1
                pub[E.P_SEEN + card] += 1
                pub[E.P_PLAYED + s] = card
                pub[E.P_BEST] = max(pub[E.P_BEST], card)
                out.card[i, r, s] = card
            # The highest card scores; a tie scores nobody, or every tied seat (rules.ties).
            highest = pub[E.P_PLAYED:E.P_PLAYED + players] == pub[E.P_BEST]
            scored = highest.sum()
            if scored > 1 and ties != E.TIES_SHARED:
                scored = 0
            if scored:
                pub[E.P_POINTS:E.P_POINTS + players] += highest
            out.leader[i, r], out.high[i, r], out.scored[i, r] = leader, pub[E.P_BEST], scored

        points = pub[E.P_POINTS:E.P_POINTS + players]
        most = points.max()
        winning = points == most
        winners = winning.sum()
        out.points[i, :players] = points
        out.win_share[i, :players] = winning / winners
        out.margin[i] = 0 if winners > 1 else most - points[~winning].max()


# ``play_games(rules, seed, first_game, n_games, policy_ids, policy_params, threads=None, chunk=None) -> records``
play_games = BatchKernel(
    # looked up when called, so that a test may run the game loops as Python (tests/conformance)
    kernel=lambda *args: play_chunk_nb(*args),
    layout=LAYOUT,
    most=GAMES_PER_CHUNK,
)
