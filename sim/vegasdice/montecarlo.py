"""The ``montecarlo`` policy: every value shown, tried on imagined rolls.

To choose a value the seat places its dice on that casino in an imagined
copy of the table, then rolls the rest of the round out ``N`` times — every
seat, itself included, rolling the dice it still holds and playing
``greedy`` — and pays the casinos. The value with the best average money
against the other players wins. Every value is tried on the same ``N``
imagined streams of dice (common random numbers), so the comparison between
values is not blurred by the luck of the rolls.

The rollouts play by the same jitted steps as the game kernel
(``mechanics``). What the seat cannot know — the dice not yet rolled — is
drawn from its own stream; the bills of later rounds are not imagined: the
policy plays for this round's money.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.rng import next_nb, seed_stream_nb
from sim.vegasdice import enums as E
from sim.vegasdice.heuristics import greedy_value_nb
from sim.vegasdice.mechanics import casino_gains_nb, next_seat_nb, place_nb, roll_nb


@njit(cache=True)
def play_out_round_nb(sim, seat, rng, own, white):
    """Play the round on ``sim`` to its last die after ``seat``'s turn, every seat greedy."""
    casinos = sim[E.P_CASINOS]
    s = next_seat_nb(sim, seat)
    while s >= 0:
        sim[E.P_SEAT] = s
        roll_nb(rng, sim[E.P_DICE_LEFT + s], sim[E.P_WHITE_LEFT + s], casinos, own, white)
        c = greedy_value_nb(sim, own, white)
        place_nb(sim, s, c, own[c], white[c])
        s = next_seat_nb(sim, s)


@njit(cache=True)
def round_standing_nb(sim, seat, gains):
    """The seat's money from every casino paid out now, times ``players - 1``,
    minus the other players' money."""
    players = sim[E.P_PLAYERS]
    total = 0
    for c in range(sim[E.P_CASINOS]):
        casino_gains_nb(sim, c, gains)
        for o in range(players):
            total += (players - 1) * gains[o] if o == seat else -gains[o]
    return total


@njit(cache=True)
def montecarlo_value_nb(params, pub, own, white, rng):
    """montecarlo:N — the value shown with the best mean standing over N rollouts.

    With a single value shown nothing is drawn. Otherwise one number is
    drawn from the seat's stream; rollout ``k`` rolls from the stream
    ``(that number, k, 0)`` whatever the value tried. Equal means go to the
    value spending fewest of the seat's own dice, then the lowest casino.
    """
    casinos = pub[E.P_CASINOS]
    seat = pub[E.P_SEAT]
    samples = np.int64(params[0])
    shown = 0
    only = -1
    for c in range(casinos):
        if own[c] + white[c] > 0:
            shown += 1
            only = c
    if shown == 1:
        return only
    key = next_nb(rng)
    sim = np.empty_like(pub)
    sub = np.zeros(4, dtype=np.uint64)
    sim_own = np.zeros(E.MAX_CASINOS, dtype=np.int64)
    sim_white = np.zeros(E.MAX_CASINOS, dtype=np.int64)
    gains = np.zeros(E.OWNERS, dtype=np.int64)
    best = -1
    best_total = 0
    for c in range(casinos):
        if own[c] + white[c] == 0:
            continue
        total = 0
        for k in range(samples):
            sim[:] = pub
            place_nb(sim, seat, c, own[c], white[c])
            seed_stream_nb(sub, key, k, 0)
            play_out_round_nb(sim, seat, sub, sim_own, sim_white)
            total += round_standing_nb(sim, seat, gains)
        if best < 0 or total > best_total or (total == best_total and own[c] < own[best]):
            best = c
            best_total = total
    return best
