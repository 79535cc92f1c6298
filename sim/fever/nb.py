"""The jitted core: batches of $ Fever games over numpy arrays, their events and draws in the order of
``docs/engine.md`` (section "$ Fever"), shared with the reference engine.

``play_games`` is the one Python entry point (see ``sim.batches``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.batches import BatchKernel
from sim.fever import enums as E
from sim.fever.mechanics import combination_nb, held_nb, machine_nb, mask_cards_nb
from sim.fever.params import MAX_REDEALS
from sim.fever.policies import (
    decide_double_nb,
    decide_keep_nb,
    decide_play_nb,
    greedy_play_nb,
    random_double_at_nb,
    random_play_at_nb,
)
from sim.fever.records import LAYOUT
from sim.rng import seed_stream_at_nb, shuffle_at_nb

GAMES_PER_CHUNK = 1024
# Combinations one seat can hold: each is worth a point at least, and the game ends at the target.
MAX_HELD = E.MAX_TARGET


@njit(cache=True)
def draw_nb(pub, deck, at, rngs, reshuffle):
    """The top card of the deck (``deck[at[0]:at[1]]``), -1 when there is none.

    An empty deck is first remade from the discards, in symbol order,
    shuffled by the table stream (when the rules reshuffle and there are
    discards). A call rather than in line: in line, its call to the shuffle
    would make every draw reference-count the arrays it is handed. The
    turn's usual draws, from a deck that holds them, are :func:`take_nb`.
    """
    if at[0] == at[1]:
        if reshuffle == 0:
            return -1
        n = 0
        for x in range(pub[E.P_SYMBOLS]):
            for _ in range(pub[E.P_DISCARDS + x]):
                deck[n] = x
                n += 1
            pub[E.P_DISCARDS + x] = 0
        if n == 0:
            return -1
        shuffle_at_nb(rngs, E.STREAM_TABLE, deck, n)
        at[0] = 0
        at[1] = n
        pub[E.P_RESHUFFLES] += 1
    card = deck[at[0]]
    at[0] += 1
    pub[E.P_DECK] = at[1] - at[0]
    return card


@njit(cache=True, inline="always")
def take_nb(pub, deck, at, hands, seat, n):
    """Move the deck's top ``n`` cards to ``hands[seat]``; the caller has checked the deck holds them.

    The common draw: in line and calling nothing, unlike :func:`draw_nb`. A step
    written in line that calls another kernel reference-counts its arrays (an
    atomic add and subtract each) every time it runs.
    """
    top = at[0]
    for c in range(top, top + n):
        hands[seat, deck[c]] += 1
    at[0] = top + n
    pub[E.P_DECK] = at[1] - at[0]
    pub[E.P_HAND_SIZE + seat] += n


@njit(cache=True, inline="always")
def cover_nb(pub, old, symbol, covered):
    """What a reel showing ``old`` shows once ``symbol`` is played on it (``covered`` 1) or not (0).

    A covered card goes to the discards; an empty reel (-1) just takes the
    card. Without a branch: which reels a random play covers is a coin toss
    to the branch predictor."""
    pub[E.P_DISCARDS + max(old, 0)] += covered * (old >= 0)
    return symbol if covered else old


@njit(cache=True, inline="always")
def take_reels_nb(pub, deck, at):
    """Reels 1, 2, 3 from the deck's top cards; the caller has checked the deck holds them (and that the
    rules do not redeal a combination)."""
    top = at[0]
    for r in range(E.REELS):
        pub[E.P_REELS + r] = deck[top + r]
    at[0] = top + E.REELS
    pub[E.P_DECK] = at[1] - at[0]


@njit(cache=True)
def deal_reels_nb(pub, deck, at, rngs, reshuffle, redeal, table, k):
    """Draw reels 1, 2, 3; with ``redeal``, a machine showing a combination goes to the discards and is
    dealt again, at most MAX_REDEALS times."""
    for r in range(E.REELS):
        pub[E.P_REELS + r] = draw_nb(pub, deck, at, rngs, reshuffle)
    if redeal:
        for _ in range(MAX_REDEALS):
            if combination_nb(pub[E.P_REELS], pub[E.P_REELS + 1], pub[E.P_REELS + 2], table, k) < 0:
                break
            for r in range(E.REELS):
                pub[E.P_DISCARDS + pub[E.P_REELS + r]] += 1
            for r in range(E.REELS):
                pub[E.P_REELS + r] = draw_nb(pub, deck, at, rngs, reshuffle)


@njit(cache=True)
def cheapest_nb(held_points, seat, n):
    """Index of the seat's cheapest combination (the first of equally cheap ones), -1 for none."""
    j = -1
    for i in range(n):
        if j < 0 or held_points[seat, i] < held_points[seat, j]:
            j = i
    return j


@njit(cache=True, error_model="numpy", nogil=True)
def play_chunk_nb(seed, first_game, lo, hi, rules, policy_ids, policy_params, out):
    """Play games ``first_game + lo .. first_game + hi - 1`` into rows ``lo .. hi - 1``.

    A game is some 200 turns, so the turn is the unit of cost: a seat's hand
    is read in place (``hands[s, x]``, no row view to reference-count), the
    counts kept per turn live in locals until the game ends, and the random
    policy is handed its legal plays as one word (``mechanics.held_nb``),
    which also answers "could this hand score?" with one AND
    (``Rules.completions``). Scratch is allocated once here and reset per
    game; ``rngs[stream]`` is each stream's state.
    """
    cards, table, points = rules.cards, rules.table, rules.points
    symbol_best, machine_patterns, completions = rules.symbol_best, rules.machine_patterns, rules.completions
    players = rules.players
    pub = np.zeros(E.PUB_SIZE, dtype=np.int64)
    rngs = np.zeros((E.STREAM_POLICY + players, 4), dtype=np.uint64)
    deck = np.zeros(cards.shape[0], dtype=np.int64)
    at = np.zeros(2, dtype=np.int64)
    hands = np.zeros((players, E.MAX_SYMBOLS), dtype=np.int64)
    held_points = np.zeros((players, MAX_HELD), dtype=np.int64)
    held_cards = np.zeros((players, MAX_HELD, E.REELS), dtype=np.int64)
    keep = np.zeros(E.MAX_SYMBOLS, dtype=np.int64)
    k = rules.symbols
    target = rules.target
    double_on = rules.double_up
    double_extra = rules.double_extra_cards
    double_max = rules.double_max_cards
    refill = rules.refill_after_scoring
    reshuffle = rules.reshuffle_discards
    turn_cap = rules.turn_cap
    redeal = rules.dealt_combination
    n_cards = cards.shape[0]
    for i in range(lo, hi):
        game = first_game + i
        for row in range(1 + players):
            seed_stream_at_nb(rngs, row, seed, game, row)
        for c in range(n_cards):
            deck[c] = cards[c]
        shuffle_at_nb(rngs, E.STREAM_TABLE, deck, n_cards)
        at[0] = 0
        at[1] = n_cards

        pub[:] = 0
        pub[E.P_PLAYERS] = players
        pub[E.P_SYMBOLS] = k
        pub[E.P_TARGET] = target
        pub[E.P_DOUBLE_ON] = double_on
        pub[E.P_REFILL] = refill
        pub[E.P_DECK] = n_cards
        for c in range(n_cards):
            pub[E.P_TOTAL + cards[c]] += 1
        for x in range(k):
            pub[E.P_SYMBOL_BEST + x] = symbol_best[x]
        hands[:, :] = 0

        # Set-up: three cards to each seat one at a time, then the three reels.
        # The whole deck holds them (``Rules`` checks it).
        for _ in range(E.HAND):
            for s in range(players):
                take_nb(pub, deck, at, hands, s, 1)
        deal_reels_nb(pub, deck, at, rngs, reshuffle, redeal, table, k)

        out.game[i] = game
        winner = -1
        turns = 0
        could_turns = 0
        full_rounds = 0
        droughts = 0
        passes = 0
        round_could = False
        s = np.int64(0)  # not a literal 0 (docs/developing.md, "Compile time")
        for t in range(turn_cap):
            turns = t + 1
            row = E.STREAM_POLICY + s
            policy = policy_ids[s]
            pub[E.P_SEAT] = s
            pub[E.P_TURN] = t
            pub[E.P_DOUBLING] = 0
            pub[E.P_MAX_PLAY] = E.NORMAL_MAX_PLAY
            max_play = E.NORMAL_MAX_PLAY

            # 1. Double: give up the cheapest combination, draw the extra cards.
            doubled = False
            if double_on and pub[E.P_COMBOS + s] > 0:
                if policy == E.POLICY_RANDOM:
                    doubled = random_double_at_nb(policy_params[s, 0], rngs, row)
                else:
                    doubled = decide_double_nb(policy, policy_params[s], pub, hands[s], table, points, rngs, row)
            if doubled:
                n = pub[E.P_COMBOS + s]
                j = cheapest_nb(held_points, s, n)
                given = held_points[s, j]
                for r in range(E.REELS):
                    x = held_cards[s, j, r]
                    pub[E.P_SCORED + x] -= 1
                    pub[E.P_OUT + x] += 1
                for q in range(j, n - 1):
                    held_points[s, q] = held_points[s, q + 1]
                    for r in range(E.REELS):
                        held_cards[s, q, r] = held_cards[s, q + 1, r]
                n -= 1
                pub[E.P_COMBOS + s] = n
                pub[E.P_SCORE + s] -= given
                j = cheapest_nb(held_points, s, n)
                pub[E.P_CHEAPEST + s] = held_points[s, j] if j >= 0 else 0
                out.doubles[i, s] += 1
                out.double_points_given[i] += given
                if at[1] - at[0] >= double_extra:
                    take_nb(pub, deck, at, hands, s, double_extra)
                else:
                    for _ in range(double_extra):
                        c = draw_nb(pub, deck, at, rngs, reshuffle)
                        if c < 0:
                            break
                        hands[s, c] += 1
                        pub[E.P_HAND_SIZE + s] += 1
                pub[E.P_DOUBLING] = 1
                pub[E.P_MAX_PLAY] = double_max
                max_play = double_max

            # 2. Play: one symbol on one reel or more; 3. a combination showing scores.
            could = False
            if pub[E.P_HAND_SIZE + s] == 0:
                passes += 1
            else:
                # The reels in locals while the play covers them: the pattern they show is then
                # looked up without waiting for stores to pub to be read back.
                r0 = pub[E.P_REELS]
                r1 = pub[E.P_REELS + 1]
                r2 = pub[E.P_REELS + 2]
                # The plays the hand allows as one word: one AND says whether one scores.
                held = held_nb(hands, s, k, max_play)
                could = (held & completions[machine_nb(r0, r1, r2, k)]) != 0
                # The common policies are called directly, without the dispatch.
                if policy == E.POLICY_RANDOM:
                    code = random_play_at_nb(held, rngs, row)
                elif policy == E.POLICY_GREEDY:
                    code = greedy_play_nb(pub, hands[s], table, points)
                else:
                    code = decide_play_nb(policy, policy_params[s], pub, hands[s], table, points, rngs, row)
                x = code >> 3
                mask = code & 7
                r0 = cover_nb(pub, r0, x, mask & 1)
                r1 = cover_nb(pub, r1, x, (mask >> 1) & 1)
                r2 = cover_nb(pub, r2, x, mask >> 2)
                pub[E.P_REELS] = r0
                pub[E.P_REELS + 1] = r1
                pub[E.P_REELS + 2] = r2
                played = mask_cards_nb(mask)
                hands[s, x] -= played
                pub[E.P_HAND_SIZE + s] -= played
                c = machine_patterns[machine_nb(r0, r1, r2, k)]
                if c >= 0:
                    won = points[c]
                    n = pub[E.P_COMBOS + s]
                    held_points[s, n] = won
                    for r in range(E.REELS):
                        x = pub[E.P_REELS + r]
                        held_cards[s, n, r] = x
                        pub[E.P_SCORED + x] += 1
                        pub[E.P_REELS + r] = E.EMPTY
                    pub[E.P_COMBOS + s] = n + 1
                    pub[E.P_SCORE + s] += won
                    j = cheapest_nb(held_points, s, n + 1)
                    pub[E.P_CHEAPEST + s] = held_points[s, j]
                    out.pattern_scored[i, c] += 1
                    out.pattern_points[i, c] += won
                    out.scoring_turns[i, s] += 1
                    if doubled:
                        out.double_scored[i] += 1
                        out.double_points_won[i] += won
                    if pub[E.P_SCORE + s] >= target:
                        winner = s
                    elif refill:
                        if redeal == 0 and at[1] - at[0] >= E.REELS:
                            take_reels_nb(pub, deck, at)
                        else:
                            deal_reels_nb(pub, deck, at, rngs, reshuffle, redeal, table, k)

            # Rounds where no seat could score: the droughts.
            if could:
                could_turns += 1
                round_could = True
            if s == players - 1:
                full_rounds += 1
                if not round_could:
                    droughts += 1
                round_could = False
            if winner >= 0:
                break

            # 4. After a double, keep at most 3 cards; every seat draws up to 3.
            if doubled:
                decide_keep_nb(policy, policy_params[s], pub, hands[s], table, points, rngs, row, keep)
                for x in range(k):
                    gone = hands[s, x] - keep[x]
                    pub[E.P_DISCARDS + x] += gone
                    pub[E.P_HAND_SIZE + s] -= gone
                    hands[s, x] = keep[x]
            # The deck holds the cards wanted on most turns; draw_nb remakes an empty one.
            wanted = E.HAND - pub[E.P_HAND_SIZE + s]
            if at[1] - at[0] >= wanted:
                take_nb(pub, deck, at, hands, s, wanted)
            else:
                while pub[E.P_HAND_SIZE + s] < E.HAND:
                    c = draw_nb(pub, deck, at, rngs, reshuffle)
                    if c < 0:
                        break
                    hands[s, c] += 1
                    pub[E.P_HAND_SIZE + s] += 1
            # The next seat: a counter rather than ``t % players``, a division every turn.
            s = 0 if s == players - 1 else s + 1

        out.winner[i] = winner
        out.turns[i] = turns
        out.rounds[i] = (turns + players - 1) // players
        out.reshuffles[i] = pub[E.P_RESHUFFLES]
        out.could_score_turns[i] += could_turns
        out.full_rounds[i] += full_rounds
        out.drought_rounds[i] += droughts
        out.passes[i] += passes
        for s in range(players):
            out.win_share[i, s] = 1.0 if s == winner else 0.0
            out.score[i, s] = pub[E.P_SCORE + s]
            out.combos[i, s] = pub[E.P_COMBOS + s]


play_games = BatchKernel(
    kernel=lambda *args: play_chunk_nb(*args),
    layout=LAYOUT,
    most=GAMES_PER_CHUNK,
)
