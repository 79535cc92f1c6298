"""The jitted core: batches of Las Vegas games over numpy arrays, their events and draws in the order of
``docs/engine.md`` (section "Las Vegas"), shared with the reference engine.

``play_games`` is the one Python entry point (see ``sim.batches``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.batches import BatchKernel
from sim.rng import below_at_nb, seed_stream_at_nb, shuffle_at_nb
from sim.vegasdice import enums as E
from sim.vegasdice.heuristics import greedy_value_nb
from sim.vegasdice.mechanics import (
    add_bill_nb,
    casino_gains_nb,
    holds_dice_nb,
    next_seat_nb,
    place_nb,
    roll_at_nb,
    start_round_nb,
)
from sim.vegasdice.policies import choose_value_nb, random_value_at_nb
from sim.vegasdice.records import LAYOUT

GAMES_PER_CHUNK = 2048


@njit(cache=True)
def bill_kind_nb(values, value):
    """Index of ``value`` among the distinct bill values, largest first."""
    for k in range(values.shape[0]):
        if values[k] == value:
            return k
    return -1


@njit(cache=True)
def winners_nb(money, held, players, tie_break, kinds, win):
    """Fill ``win[s]`` with 1 for every winner; return ``(winners, seats tied on money)``.

    The richest seats win; among several, ``tie_break`` keeps those with the
    largest bills (``held[s, k]`` counts seat s's bills of the k-th largest
    value: comparing these counts from the largest value down is comparing
    the sorted bill lists, then their lengths) or the most banknotes.
    """
    best = money[0]
    for s in range(1, players):
        best = max(best, money[s])
    tied = 0
    for s in range(players):
        win[s] = 1 if money[s] == best else 0
        tied += win[s]
    if tied > 1 and tie_break == E.TIE_BREAK_BILLS:
        for k in range(kinds):
            most = -1
            for s in range(players):
                if win[s]:
                    most = max(most, held[s, k])
            for s in range(players):
                if win[s] and held[s, k] < most:
                    win[s] = 0
    elif tied > 1 and tie_break == E.TIE_BREAK_COUNT:
        most = -1
        for s in range(players):
            if win[s]:
                n = 0
                for k in range(kinds):
                    n += held[s, k]
                most = max(most, n)
        for s in range(players):
            if win[s]:
                n = 0
                for k in range(kinds):
                    n += held[s, k]
                if n < most:
                    win[s] = 0
    n_win = 0
    for s in range(players):
        n_win += win[s]
    return n_win, tied


@njit(cache=True, error_model="numpy", nogil=True)
def play_chunk_nb(seed, first_game, lo, hi, rules, policy_ids, policy_params, out):
    """Play games ``first_game + lo .. first_game + hi - 1`` into rows ``lo .. hi - 1``.

    One call per chunk rather than per game: the arrays are handed over once,
    and the streams are rows of one array read in place (no row view per draw).
    Scratch is allocated once here and reset per game; ``rngs[stream]`` is
    each stream's state.
    """
    bills, values = rules.bills, rules.values
    players = rules.players
    pub = np.zeros(E.PUB_SIZE, dtype=np.int64)
    rngs = np.zeros((E.STREAM_POLICY + players, 4), dtype=np.uint64)
    pile = np.zeros(max(1, bills.shape[0]), dtype=np.int64)
    held = np.zeros((players, values.shape[0]), dtype=np.int64)
    money = np.zeros(players, dtype=np.int64)
    own = np.zeros(E.MAX_CASINOS, dtype=np.int64)
    white = np.zeros(E.MAX_CASINOS, dtype=np.int64)
    gains = np.zeros(E.OWNERS, dtype=np.int64)
    win = np.zeros(players, dtype=np.int64)
    for i in range(lo, hi):
        game = first_game + i
        players = rules.players
        rounds = rules.rounds
        dice = rules.dice_per_player
        casinos = rules.casinos
        minimum = rules.casino_minimum
        n_white = rules.n_white
        n_extra = rules.n_extra_white
        n_bills = bills.shape[0]
        kinds = values.shape[0]

        seed_stream_at_nb(rngs, E.STREAM_TABLE, seed, game, E.STREAM_TABLE)
        for s in range(players):
            seed_stream_at_nb(rngs, E.STREAM_POLICY + s, seed, game, E.STREAM_POLICY + s)

        # The pile is a ring: bills are drawn at ``head``, put under at ``head + size``.
        for b in range(n_bills):
            pile[b] = bills[b]
        shuffle_at_nb(rngs, E.STREAM_TABLE, pile, n_bills)
        head = 0
        size = n_bills

        pub[:] = 0
        pub[E.P_PLAYERS] = players
        pub[E.P_ROUNDS] = rounds
        pub[E.P_CASINOS] = casinos
        pub[E.P_DICE] = dice
        pub[E.P_WHITE_DICE] = n_white
        held[:, :] = 0
        money[:] = 0

        out.game[i] = game
        rounds_played = 0
        for r in range(rounds):
            first = r % players
            start_round_nb(pub, r, first, dice, n_white)

            # Casinos 1 to C in order: bills until the minimum is reached.
            short = 0
            laid_out = 0
            for c in range(casinos):
                pub[E.P_CASINO_NBILLS + c] = 0
                total = 0
                while total < minimum and size > 0:
                    value = pile[head]
                    head = (head + 1) % n_bills
                    size -= 1
                    add_bill_nb(pub, c, value)
                    total += value
                if total < minimum:
                    short += 1
                out.casino_laid_out[i, r, c] = total
                laid_out += total
            pub[E.P_PILE] = size
            if short > 0 and rules.empty_pile == E.EMPTY_PILE_END:
                out.casino_laid_out[i, r, :] = 0
                break
            rounds_played = r + 1
            out.first_player[i, r] = first
            out.laid_out[i, r] = laid_out
            out.short_casinos[i, r] = short

            # The table's extra white dice (3 players), then the turns.
            for _ in range(n_extra):
                pub[E.P_CASINO_DICE + below_at_nb(rngs, E.STREAM_TABLE, casinos) * E.OWNERS + E.WHITE] += 1
            s = first if holds_dice_nb(pub, first) else next_seat_nb(pub, first)
            while s >= 0:
                pub[E.P_SEAT] = s
                roll_at_nb(rngs, E.STREAM_TABLE, pub[E.P_DICE_LEFT + s], pub[E.P_WHITE_LEFT + s], casinos, own, white)
                # The common policies are called directly, without the dispatch.
                if policy_ids[s] == E.POLICY_RANDOM:
                    c = random_value_at_nb(pub, own, white, rngs, E.STREAM_POLICY + s)
                elif policy_ids[s] == E.POLICY_GREEDY:
                    c = greedy_value_nb(pub, own, white)
                else:
                    c = choose_value_nb(policy_ids[s], policy_params[s], pub, own, white, rngs[E.STREAM_POLICY + s])
                place_nb(pub, s, c, own[c], white[c])
                s = next_seat_nb(pub, s)
            out.turns[i, r] = pub[E.P_TURN]

            # Payout, casino 1 to C: bills the white dice win, then bills nobody
            # won (largest first), go under the pile.
            payouts = 0
            tie_cancels = 0
            white_won = 0
            unclaimed = 0
            for c in range(casinos):
                any_dice = False
                for o in range(E.OWNERS):
                    if pub[E.P_CASINO_DICE + c * E.OWNERS + o] > 0:
                        any_dice = True
                if any_dice:
                    payouts += 1
                if casino_gains_nb(pub, c, gains) > 0:
                    tie_cancels += 1
                taken = 0
                for o in range(players):
                    if gains[o] > 0:
                        taken += 1
                        money[o] += gains[o]
                        held[o, bill_kind_nb(values, gains[o])] += 1
                        out.won[i, r, o] += gains[o]
                        out.bills_won[i, r, o] += 1
                if gains[E.WHITE] > 0:
                    taken += 1
                    white_won += gains[E.WHITE]
                    pile[(head + size) % n_bills] = gains[E.WHITE]
                    size += 1
                base = E.P_CASINO_BILLS + c * E.MAX_CASINO_BILLS
                for k in range(taken, pub[E.P_CASINO_NBILLS + c]):
                    unclaimed += pub[base + k]
                    pile[(head + size) % n_bills] = pub[base + k]
                    size += 1
                for k in range(pub[E.P_CASINO_NBILLS + c]):
                    pub[base + k] = 0
                pub[E.P_CASINO_NBILLS + c] = 0
            out.payouts[i, r] = payouts
            out.tie_cancels[i, r] = tie_cancels
            out.white_won[i, r] = white_won
            out.unclaimed[i, r] = unclaimed
            pub[E.P_PILE] = size
            for o in range(players):
                pub[E.P_MONEY + o] = money[o]
                pub[E.P_BILLS + o] += out.bills_won[i, r, o]

        n_win, tied = winners_nb(money, held, players, rules.tie_break, kinds, win)
        best = 0
        second = 0
        for s in range(players):
            if money[s] >= best:
                second = best
                best = money[s]
            elif money[s] > second:
                second = money[s]
        for s in range(players):
            out.money[i, s] = money[s]
            out.bills[i, s] = pub[E.P_BILLS + s]
            out.win_share[i, s] = 1.0 / n_win if win[s] else 0.0
        out.money_tied[i] = tied
        out.margin[i] = best - second
        out.rounds_played[i] = rounds_played


play_games = BatchKernel(
    kernel=lambda *args: play_chunk_nb(*args),
    layout=LAYOUT,
    most=GAMES_PER_CHUNK,
)
