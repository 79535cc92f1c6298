"""Scripted policies of $ Fever, jitted: whether to double, what to play, what to keep.

A policy is named in a config by a compact string; from weakest to
strongest:

* ``random[:P]`` — any legal play, each equally likely; doubles with
  probability ``P`` (default 0.1) when it may; after a double keeps cards
  drawn at random;
* ``greedy[:T]`` — the richest combination it can score now (fewest cards
  on equal points); else the single card that leaves the machine least
  useful to the next player; doubles when the combination a double gives up
  is worth less than ``T`` points (default 2);
* ``montecarlo[:N]`` — every legal play weighed on ``N`` draws of the cards
  it has not seen (default 16): the points it scores now, minus the points
  the next player could score on the machine it leaves (at 1 player, plus
  the points it could score itself next turn); doubles and keeps as
  ``greedy``.

Each seat's policy becomes an id and a row of float parameters, dispatched
inside the kernels. A policy decides from the public observation ``pub``
(see ``enums``), its own hand (counts per symbol), the pay table's arrays
and its own random stream — never other hands or the deck's order. A play
is coded ``symbol * 8 + reel mask``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.fever import enums as E
from sim.fever.mechanics import (
    best_scoring_play_nb,
    combination_nb,
    count_plays_nb,
    held_plays_nb,
    held_symbol_nb,
    mask_cards_nb,
    nth_held_play_nb,
    nth_play_nb,
    play_allowed_nb,
    playable_nb,
    reel_after_nb,
    unseen_nb,
)
from sim.policy_spec import (  # re-exported: the ismcts policy's simulations per decision, every game's
    DEFAULT_ISMCTS_SIMULATIONS as DEFAULT_ISMCTS_SIMULATIONS,
    MAX_ISMCTS_SIMULATIONS as MAX_ISMCTS_SIMULATIONS,
)
from sim.policy_spec import Policies, PolicySpec, fraction, openspiel_search, search, whole
from sim.restricted import agree_nb, at_random_nb, base_id_nb, base_params_nb, note_nb, slow_id_nb, slow_params_nb
from sim.rng import below_at_nb, below_nb, next_at_nb, seed_stream_nb

N_POLICY_PARAMS = 2
DEFAULT_DOUBLE_PROBABILITY = 0.1
DEFAULT_DOUBLE_THRESHOLD = 2
DEFAULT_MONTECARLO_SAMPLES = 16
MAX_MONTECARLO_SAMPLES = 10_000
PERMILLE = 1000

# The ismcts policy (sim.openspiel): Python, played by the reference engine, never by the kernels.
POLICY_ISMCTS = 3
# Restricted play (sim.restricted): a base policy with some kinds of decision made at random; no config names it.
POLICY_RESTRICTED = 4
KIND_DOUBLE, KIND_PLAY, KIND_KEEP = (E.DECISION_KINDS.index(k) for k in ("double", "play", "keep"))
# A double made at random: as random:0.5 decides it, below(1000) < 500. A float, as a seat's parameters are: an
# int would compile random_double_at_nb once more (docs/developing.md, "Compile time").
EVEN = PERMILLE / 2

POLICIES = Policies(
    [
        PolicySpec(
            "random", E.POLICY_RANDOM,
            "Plays any legal play (a symbol on one reel, or on two, three when doubling), each equally likely; "
            "doubles with probability P when it holds a combination: the floor of skill.",
            params=(fraction("P", "the probability of doubling", DEFAULT_DOUBLE_PROBABILITY, PERMILLE),),
        ),
        PolicySpec(
            "greedy", E.POLICY_GREEDY,
            "Scores the richest combination it can now, with fewest cards; else plays the one card that leaves the "
            "machine least useful to the next player, judged on the cards it has not seen; doubles when the "
            "combination a double gives up is worth less than T points; keeps its pairs.",
            params=(whole("T", "the doubling threshold", 0, E.MAX_POINTS + 1, DEFAULT_DOUBLE_THRESHOLD, "points"),),
        ),
        search(
            "montecarlo", E.POLICY_MONTECARLO,
            "Weighs every legal play on N draws of the cards it has not seen: the points it scores now "
            "minus what the next player could score on the machine it leaves (alone: plus what it could score next "
            "turn); doubles and keeps like greedy.",
            "draws per decision", MAX_MONTECARLO_SAMPLES, DEFAULT_MONTECARLO_SAMPLES,
            fixed=(DEFAULT_DOUBLE_THRESHOLD,),  # doubles like greedy's default
        ),
        openspiel_search("ismcts", POLICY_ISMCTS, sampled="a fresh deal of the other hands and the deck",
                         until="the end of every seat's next turn, scored by points won against the others"),
    ],
    N_POLICY_PARAMS,
    E.DECISION_KINDS,
    POLICY_RESTRICTED,
)

# What configs, the reference engine and tests read, derived from the declarations above.
POLICY_IDS, POLICY_SYNTAX, POLICY_DESCRIPTIONS, parse_policy, parse_seats = POLICIES.exports()


# --- random ---------------------------------------------------------------------


@njit(cache=True)
def random_double_at_nb(permille, states, row):
    """random:P — whether to double (the seat holds a combination): ``below(1000) < 1000 P``."""
    return below_at_nb(states, row, PERMILLE) < permille


@njit(cache=True)
def random_play_at_nb(held, states, row):
    """random — one of the legal plays of the ``held`` word (``mechanics.held_nb``), each equally
    likely (play order, ``below(n)``). The game kernel hands it nothing else."""
    n = held_plays_nb(held)
    if n == 0:
        return -1
    return nth_held_play_nb(held, below_at_nb(states, row, n))


@njit(cache=True)
def random_play_nb(pub, hand, states, row):
    """random — one of the legal plays, each equally likely (play order, ``below(n)``)."""
    held = 0
    for x in range(pub[E.P_SYMBOLS]):
        held |= held_symbol_nb(hand[x], x)
    return random_play_at_nb(playable_nb(held, pub[E.P_MAX_PLAY]), states, row)


@njit(cache=True)
def random_keep_nb(pub, hand, states, row, keep):
    """random — keep ``min(3, cards)`` cards, each drawn in turn from those left (symbol order, ``below``)."""
    k = pub[E.P_SYMBOLS]
    left = 0
    for x in range(k):
        keep[x] = 0
        left += hand[x]
    for _ in range(min(E.HAND, left)):
        i = below_at_nb(states, row, left)
        for x in range(k):
            free = hand[x] - keep[x]
            if i < free:
                keep[x] += 1
                break
            i -= free
        left -= 1


# --- greedy ---------------------------------------------------------------------


@njit(cache=True)
def machine_usefulness_nb(pub, symbol, mask, table, points, unseen):
    """How much the machine left by the play is worth to the next player: for every reel and
    every symbol not yet seen, its cards times the points of the machine with that reel covered."""
    k = pub[E.P_SYMBOLS]
    r0 = reel_after_nb(pub, 0, symbol, mask)
    r1 = reel_after_nb(pub, 1, symbol, mask)
    r2 = reel_after_nb(pub, 2, symbol, mask)
    total = 0
    for y in range(k):
        if unseen[y] > 0:
            c = combination_nb(y, r1, r2, table, k)
            if c >= 0:
                total += unseen[y] * points[c]
            c = combination_nb(r0, y, r2, table, k)
            if c >= 0:
                total += unseen[y] * points[c]
            c = combination_nb(r0, r1, y, table, k)
            if c >= 0:
                total += unseen[y] * points[c]
    return total


@njit(cache=True)
def greedy_play_nb(pub, hand, table, points):
    """greedy — the richest scoring play; else the single card leaving the machine least useful
    (the symbol it holds fewest of on equal terms, then play order)."""
    best, best_points = best_scoring_play_nb(pub, hand, table, points)
    if best >= 0:
        return best
    k = pub[E.P_SYMBOLS]
    unseen = np.zeros(E.MAX_SYMBOLS, dtype=np.int64)
    unseen_nb(pub, hand, unseen)
    best_use = -1
    best_held = 0
    for x in range(k):
        if hand[x] > 0:
            for r in range(E.REELS):
                use = machine_usefulness_nb(pub, x, 1 << r, table, points, unseen)
                if best < 0 or use < best_use or (use == best_use and hand[x] < best_held):
                    best = x * 8 + (1 << r)
                    best_use = use
                    best_held = hand[x]
    return best


@njit(cache=True)
def greedy_keep_nb(pub, hand, keep):
    """greedy — keep the symbols held most (pairs can be played together), then those of the
    richest patterns, then the first symbols: at most 3 cards."""
    k = pub[E.P_SYMBOLS]
    for x in range(k):
        keep[x] = 0
    room = E.HAND
    while room > 0:
        best = -1
        for x in range(k):
            free = hand[x] - keep[x]
            if free > 0 and keep[x] == 0:
                if best < 0 or hand[x] > hand[best] or (
                        hand[x] == hand[best] and pub[E.P_SYMBOL_BEST + x] > pub[E.P_SYMBOL_BEST + best]):
                    best = x
        if best < 0:
            break
        take = min(room, hand[best])
        keep[best] = take
        room -= take


# --- montecarlo -----------------------------------------------------------------


@njit(cache=True)
def montecarlo_play_nb(params, pub, hand, table, points, states, row):
    """montecarlo:N — the play with the best points now against the next player's best reply.

    With a single legal play nothing is drawn. Otherwise one number is drawn
    from the seat's stream; draw ``k`` of the unseen cards comes from the
    stream ``(that number, k, 0)`` whatever the play weighed (common random
    numbers). Its first cards refill the reels if the play scores (and the
    rules refill), the next ones make the next player's hand (at 1 player:
    the seat's own hand topped up to 3). Equal totals go to fewer cards,
    then play order.
    """
    n_plays = count_plays_nb(pub, hand)
    if n_plays <= 1:
        return nth_play_nb(pub, hand, 0) if n_plays == 1 else -1
    k = pub[E.P_SYMBOLS]
    samples = np.int64(params[0])
    players = pub[E.P_PLAYERS]
    seat = pub[E.P_SEAT]
    unseen = np.zeros(E.MAX_SYMBOLS, dtype=np.int64)
    m = unseen_nb(pub, hand, unseen)
    pool = np.zeros(max(m, 1), dtype=np.int64)
    j = 0
    for x in range(k):
        for _ in range(unseen[x]):
            pool[j] = x
            j += 1
    width = 2 * E.HAND
    drawn = np.full((samples, width), -1, dtype=np.int64)
    key = next_at_nb(states, row)
    sub = np.zeros(4, dtype=np.uint64)
    scratch = np.zeros(max(m, 1), dtype=np.int64)
    for s in range(samples):
        seed_stream_nb(sub, key, s, 0)
        scratch[:m] = pool[:m]
        for i in range(min(width, m)):
            t = i + below_nb(sub, m - i)
            tmp = scratch[i]
            scratch[i] = scratch[t]
            scratch[t] = tmp
            drawn[s, i] = scratch[i]
    next_seat = (seat + 1) % players
    next_hand_size = pub[E.P_HAND_SIZE + next_seat]
    refill = pub[E.P_REFILL]
    reply = np.zeros(E.MAX_SYMBOLS, dtype=np.int64)
    sim = pub.copy()
    sim[E.P_MAX_PLAY] = E.NORMAL_MAX_PLAY
    best = -1
    best_total = 0
    best_cards = 99
    max_play = pub[E.P_MAX_PLAY]
    for x in range(k):
        if hand[x] == 0:
            continue
        for mask in range(1, 8):
            if not play_allowed_nb(hand, x, mask, max_play):
                continue
            r0 = reel_after_nb(pub, 0, x, mask)
            r1 = reel_after_nb(pub, 1, x, mask)
            r2 = reel_after_nb(pub, 2, x, mask)
            c = combination_nb(r0, r1, r2, table, k)
            now = points[c] if c >= 0 else 0
            cards = mask_cards_nb(mask)
            total = now * samples
            for s in range(samples):
                i = 0
                if c >= 0 and refill:
                    r0 = drawn[s, 0]
                    r1 = drawn[s, 1]
                    r2 = drawn[s, 2]
                    i = E.REELS
                sim[E.P_REELS] = r0
                sim[E.P_REELS + 1] = r1
                sim[E.P_REELS + 2] = r2
                for y in range(k):
                    reply[y] = 0
                if players == 1:
                    held = 0
                    for y in range(k):
                        reply[y] = hand[y] - (cards if y == x else 0)
                        held += reply[y]
                    want = E.HAND - held
                else:
                    want = next_hand_size
                while want > 0 and i < width and drawn[s, i] >= 0:
                    reply[drawn[s, i]] += 1
                    i += 1
                    want -= 1
                _, p = best_scoring_play_nb(sim, reply, table, points)
                total += p if players == 1 else -p
            if best < 0 or total > best_total or (total == best_total and cards < best_cards):
                best = x * 8 + mask
                best_total = total
                best_cards = cards
    return best


# --- dispatch ---------------------------------------------------------------------


@njit(cache=True)
def unrestricted_double_nb(policy_id, params, pub, hand, table, points, states, row):
    if policy_id == E.POLICY_RANDOM:
        return random_double_at_nb(params[0], states, row)
    threshold = params[0] if policy_id == E.POLICY_GREEDY else params[1]
    return pub[E.P_CHEAPEST + pub[E.P_SEAT]] < threshold


@njit(cache=True)
def unrestricted_play_nb(policy_id, params, pub, hand, table, points, states, row):
    if policy_id == E.POLICY_GREEDY:
        return greedy_play_nb(pub, hand, table, points)
    if policy_id == E.POLICY_MONTECARLO:
        return montecarlo_play_nb(params, pub, hand, table, points, states, row)
    return random_play_nb(pub, hand, states, row)


@njit(cache=True)
def unrestricted_keep_nb(policy_id, params, pub, hand, table, points, states, row, keep):
    if policy_id == E.POLICY_RANDOM:
        random_keep_nb(pub, hand, states, row, keep)
    else:
        greedy_keep_nb(pub, hand, keep)


# --- restricted play (sim.restricted) ---------------------------------------------


@njit(cache=True, inline="always")
def restricted_double_nb(params, pub, hand, table, points, states, row):
    """``double``: asked only when the seat may double, so always a choice of two; at random, even odds."""
    ask = note_nb(params, KIND_DOUBLE, 2)
    if at_random_nb(params, KIND_DOUBLE):
        return random_double_at_nb(EVEN, states, row)
    doubled = unrestricted_double_nb(base_id_nb(params), base_params_nb(params), pub, hand, table, points, states, row)
    if ask:
        copy = states[row:row + 1].copy()
        agree_nb(params, KIND_DOUBLE, unrestricted_double_nb(slow_id_nb(params), slow_params_nb(params), pub, hand,
                                                             table, points, copy, np.int64(0)) == doubled)
    return doubled


@njit(cache=True, inline="always")
def restricted_play_nb(params, pub, hand, table, points, states, row):
    """``play``: which symbol on which reels; at random, one of the legal plays as random draws it."""
    held = 0
    for x in range(pub[E.P_SYMBOLS]):
        held |= held_symbol_nb(hand[x], x)
    ask = note_nb(params, KIND_PLAY, held_plays_nb(playable_nb(held, pub[E.P_MAX_PLAY])))
    if at_random_nb(params, KIND_PLAY):
        return random_play_nb(pub, hand, states, row)
    code = unrestricted_play_nb(base_id_nb(params), base_params_nb(params), pub, hand, table, points, states, row)
    if ask:
        copy = states[row:row + 1].copy()
        agree_nb(params, KIND_PLAY, unrestricted_play_nb(slow_id_nb(params), slow_params_nb(params), pub, hand,
                                                         table, points, copy, np.int64(0)) == code)
    return code


@njit(cache=True, inline="always")
def restricted_keep_nb(params, pub, hand, table, points, states, row, keep):
    """``keep``: which cards stay after a double (a choice when more than 3 cards of two symbols or more are held);
    at random, as random keeps them (3 cards drawn one by one)."""
    total = 0
    symbols = 0
    for x in range(pub[E.P_SYMBOLS]):
        total += hand[x]
        if hand[x] > 0:
            symbols += 1
    ask = note_nb(params, KIND_KEEP, 2 if total > E.HAND and symbols > 1 else 1)
    if at_random_nb(params, KIND_KEEP):
        random_keep_nb(pub, hand, states, row, keep)
        return
    unrestricted_keep_nb(base_id_nb(params), base_params_nb(params), pub, hand, table, points, states, row, keep)
    if ask:
        copy = states[row:row + 1].copy()
        other = np.zeros_like(keep)
        unrestricted_keep_nb(slow_id_nb(params), slow_params_nb(params), pub, hand, table, points, copy, np.int64(0), other)
        same = True
        for x in range(pub[E.P_SYMBOLS]):
            if other[x] != keep[x]:
                same = False
        agree_nb(params, KIND_KEEP, same)


# --- dispatch ---------------------------------------------------------------------


@njit(cache=True)
def decide_double_nb(policy_id, params, pub, hand, table, points, states, row):
    """Whether the seat to move doubles (it holds a combination and the rules allow it)."""
    if policy_id == POLICY_RESTRICTED:
        return restricted_double_nb(params, pub, hand, table, points, states, row)
    return unrestricted_double_nb(policy_id, params, pub, hand, table, points, states, row)


@njit(cache=True)
def decide_play_nb(policy_id, params, pub, hand, table, points, states, row):
    """The play (``symbol * 8 + reel mask``) of the seat to move; it holds at least one card."""
    if policy_id == POLICY_RESTRICTED:
        return restricted_play_nb(params, pub, hand, table, points, states, row)
    return unrestricted_play_nb(policy_id, params, pub, hand, table, points, states, row)


@njit(cache=True)
def decide_keep_nb(policy_id, params, pub, hand, table, points, states, row, keep):
    """After a double: fill ``keep[symbol]`` with the cards kept, at most 3; the rest are discarded."""
    if policy_id == POLICY_RESTRICTED:
        restricted_keep_nb(params, pub, hand, table, points, states, row, keep)
    else:
        unrestricted_keep_nb(policy_id, params, pub, hand, table, points, states, row, keep)
