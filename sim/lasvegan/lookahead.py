"""The ``lookahead`` policy: determinized Monte Carlo over ``greedy`` rollouts.

To choose a move the seat imagines, many times over, where the cards it
cannot see might be (:func:`deal_unseen_nb`), plays each imagined deal out
to the end of the round with every seat playing ``greedy``
(:func:`play_out_round_nb`), and keeps the move whose outcomes are best on
average. Every move is tried on the same imagined deals, so the comparison
between moves is not blurred by the luck of the deals.

The rollouts play by the same jitted steps as the game kernel
(``mechanics``), so they follow the rules exactly; what they cannot know
(other hands, hidden set-aside cards) is sampled.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from sim.bits import lowest_nb, popcount_nb
from sim.lasvegan import enums as E
from sim.lasvegan.heuristics import greedy_card_nb, greedy_placement_nb, unseen_cards_nb
from sim.lasvegan.mechanics import (
    SEVENS,
    SUIT_MASK,
    gather_trick_nb,
    led_suit_nb,
    legal_cards_nb,
    place_token_nb,
    play_card_nb,
    round_amounts_nb,
    seat_to_move_nb,
    settle_nb,
)
from sim.rng import below_nb, shuffle_nb

# What a rollout's outcome measures (params[1] of the policy).
OBJECTIVE_CABBAGES = 0  # the seat's cabbage change in the round
OBJECTIVE_WIN = 1  # its chance to win the game, as estimated after the round
OBJECTIVES = {"cabbages": OBJECTIVE_CABBAGES, "win": OBJECTIVE_WIN}

# Spread (standard deviation) of one round's change in the cabbage gap
# between two seats, about 4 to 5 under greedy play: the scale on which a
# lead is judged safe with rounds still to play.
ROUND_SPREAD = 4.0

ALL_SUITS = (1 << E.N_SUITS) - 1
SET_ASIDE = E.MAX_PLAYERS  # holder index of the face-down set-aside cards
N_HOLDERS = E.MAX_PLAYERS + 1
# Most ordinary placements a seat can choose between, plus the golden sides.
MAX_OPTIONS = E.MACHINES_PER_ROUND * E.MAX_TOKENS + 2
# Head start of greedy's move, far below any real difference of means:
# among equally good moves lookahead plays what greedy would.
TIE_TO_GREEDY = 1e-9


# --- imagining the unseen cards --------------------------------------------------


@njit(cache=True, inline="always")
def deal_fits_nb(need, cap, suits):
    """Whether the cards still to deal (``need`` per suit) fit the holders'
    room (``cap``) given which suits each holder may get (``suits``).

    Hall's condition on the 15 sets of suits: every set of suits needs no
    more cards than the holders who may take any of them have room for.
    """
    for subset in range(1, ALL_SUITS + 1):
        wanted = 0
        for s in range(E.N_SUITS):
            if subset & (1 << s):
                wanted += need[s]
        room = 0
        for h in range(N_HOLDERS):
            if suits[h] & subset:
                room += cap[h]
        if wanted > room:
            return False
    return True


@njit(cache=True)
def deal_unseen_nb(pub, hand, seat, rng, hands, cards, cap, suits, need):
    """Fill ``hands`` with one deal of the cards ``seat`` has not seen that
    agrees with everything it knows: its own hand, every card played, the
    set-aside cards if revealed, each seat's hand size and the suits each
    seat has shown it is void in.

    Cards are dealt one by one in random order, each to a holder chosen in
    proportion to the room it has left among those who may hold its suit,
    and never so that the remaining cards could no longer be placed. With no
    void shown this is a plain shuffle and deal. ``cards``, ``cap``,
    ``suits`` and ``need`` are scratch.
    """
    players = pub[E.P_PLAYERS]
    unseen = unseen_cards_nb(pub, hand)
    n = 0
    rest = unseen
    while rest:
        cards[n] = lowest_nb(rest)
        rest &= rest - np.uint64(1)
        n += 1
    shuffle_nb(rng, cards, n)

    constrained = False
    held = 0
    for h in range(N_HOLDERS):
        cap[h] = 0
        suits[h] = 0
    for s in range(players):
        hands[s] = 0
        if s != seat:
            cap[s] = pub[E.P_HAND_SIZE + s]
            suits[s] = ALL_SUITS & ~pub[E.P_VOIDS + s]
            held += cap[s]
            if suits[s] != ALL_SUITS and cap[s] > 0:
                constrained = True
    hands[seat] = hand
    cap[SET_ASIDE] = n - held
    suits[SET_ASIDE] = ALL_SUITS

    if not constrained:
        k = 0
        for s in range(players):
            for _ in range(cap[s]):
                hands[s] |= np.uint64(1) << np.uint64(cards[k])
                k += 1
        return

    for s in range(E.N_SUITS):
        need[s] = popcount_nb(unseen & SUIT_MASK[s])
    for k in range(n):
        card = cards[k]
        suit = 1 << (card // 10)
        need[card // 10] -= 1
        tried = 0
        while True:
            room = 0
            for h in range(N_HOLDERS):
                if suits[h] & suit and not tried & (1 << h):
                    room += cap[h]
            holder = -1
            if room == 0:
                # Only an observation that no real deal fits gets here
                # (e.g. a hand-built one): ignore the voids for this card.
                for h in range(N_HOLDERS):
                    if holder < 0 and cap[h] > 0:
                        holder = h
                cap[holder] -= 1
                break
            r = below_nb(rng, room)
            for h in range(N_HOLDERS):
                if holder < 0 and suits[h] & suit and not tried & (1 << h):
                    if r < cap[h]:
                        holder = h
                    else:
                        r -= cap[h]
            cap[holder] -= 1
            if deal_fits_nb(need, cap, suits):
                break
            cap[holder] += 1
            tried |= 1 << holder
        if holder < players:
            hands[holder] |= np.uint64(1) << np.uint64(card)


# --- playing a round out -----------------------------------------------------------


@njit(cache=True)
def play_out_round_nb(pub, hands, owed, placement):
    """Every seat plays ``greedy`` until the round's last trick is gathered.

    ``owed`` placements are first made by the leader of the next trick (the
    winner of the trick just gathered), then play goes on card by card; a
    trick's winner places a token for each 7 in it.
    """
    players = pub[E.P_PLAYERS]
    while True:
        if pub[E.P_TRICK_LEN] == players:
            _, owed = gather_trick_nb(pub)
        while owed > 0:
            winner = pub[E.P_TRICK_LEADER]
            greedy_placement_nb(pub, hands[winner], placement)
            place_token_nb(pub, winner, placement)
            owed -= 1
        if pub[E.P_TRICK_LEN] == 0 and pub[E.P_HAND_SIZE + pub[E.P_TRICK_LEADER]] == 0:
            return
        s = seat_to_move_nb(pub)
        legal = legal_cards_nb(hands[s], led_suit_nb(pub))
        play_card_nb(pub, hands, s, greedy_card_nb(pub, hands[s], legal))


@njit(cache=True)
def round_outcome_nb(pub, seat, objective, amount, hit, net, cabbages):
    """What the finished round in ``pub`` means for ``seat``.

    Cabbages: its change after settlement. Win: its estimated chance to win
    the game - its win share if the game ends with this round, otherwise the
    chance of staying ahead of each other seat, with a lead judged against
    the spread of the rounds still to play.
    """
    players = pub[E.P_PLAYERS]
    round_amounts_nb(pub, amount, hit)
    for s in range(players):
        cabbages[s] = pub[E.P_CABBAGES + s]
        net[s] = 0
        for slot in range(E.N_SLOTS):
            net[s] += amount[slot, s]
    reserve = pub[E.P_RESERVE]
    first_payee = pub[E.P_TRICK_LEADER] if pub[E.P_PAYOUT_ORDER] == E.PAYOUT_NEXT_LEADER else 0
    settle_nb(cabbages, net, players, reserve, reserve >= 0, first_payee)
    mine = cabbages[seat]
    if objective == OBJECTIVE_CABBAGES:
        return float(mine - pub[E.P_CABBAGES + seat])

    rounds_left = pub[E.P_ROUNDS] - pub[E.P_ROUND] - 1
    best = mine
    n_best = 0
    anyone_out = False
    for s in range(players):
        best = max(best, cabbages[s])
        anyone_out |= cabbages[s] == 0
    for s in range(players):
        n_best += cabbages[s] == best
    if rounds_left == 0 or (anyone_out and pub[E.P_END_ON_ELIMINATION]):
        return 1.0 / n_best if mine == best else 0.0
    spread = ROUND_SPREAD * math.sqrt(rounds_left)
    p = 1.0
    for s in range(players):
        if s != seat:
            p /= 1.0 + math.exp((cabbages[s] - mine) / spread)
    return p


@njit(cache=True, inline="always")
def placements_owed_nb(pub):
    """Placements still owed for the last trick, this one included.

    Every 7 won so far was placed while a slot was free, and a placement is
    only asked for while one is, so the owed ones are the 7s won minus the
    tokens placed.
    """
    won = np.uint64(0)
    for s in range(pub[E.P_PLAYERS]):
        won |= np.uint64(pub[E.P_WON + s])
    placed = 1 if pub[E.P_GOLDEN_SIDE] != E.NO_SIDE else 0
    for t in range(pub[E.P_N_TOKENS]):
        placed += pub[E.P_TOKEN_PLACED + t]
    return max(1, popcount_nb(won & SEVENS) - placed)


# --- the decisions -------------------------------------------------------------------


@njit(cache=True)
def mean_outcomes_nb(pub, hand, rng, samples, objective, moves, n_moves, placing, totals):
    """Add to ``totals[j]`` the mean outcome of move ``j`` over ``samples`` imagined deals.

    A move is a card to play (``moves[j, 0]``) or, when ``placing``, a
    placement ``moves[j] = (slot, token, side)``. Every move is tried on
    the same deals.
    """
    seat = seat_to_move_nb(pub)
    owed = placements_owed_nb(pub) - 1 if placing else 0
    sim_pub = np.empty_like(pub)
    dealt = np.zeros(E.MAX_PLAYERS, dtype=np.uint64)
    sim_hands = np.zeros(E.MAX_PLAYERS, dtype=np.uint64)
    cards = np.empty(E.N_CARDS, dtype=np.int64)
    cap = np.zeros(N_HOLDERS, dtype=np.int64)
    suits = np.zeros(N_HOLDERS, dtype=np.int64)
    need = np.zeros(E.N_SUITS, dtype=np.int64)
    placement = np.empty(3, dtype=np.int64)
    amount = np.zeros((E.N_SLOTS, E.MAX_PLAYERS), dtype=np.int64)
    hit = np.zeros(E.MAX_PLAYERS, dtype=np.int64)
    net = np.zeros(E.MAX_PLAYERS, dtype=np.int64)
    cabbages = np.zeros(E.MAX_PLAYERS, dtype=np.int64)
    for _ in range(samples):
        deal_unseen_nb(pub, hand, seat, rng, dealt, cards, cap, suits, need)
        for j in range(n_moves):
            sim_pub[:] = pub
            sim_hands[:] = dealt
            if placing:
                place_token_nb(sim_pub, seat, moves[j])
            else:
                play_card_nb(sim_pub, sim_hands, seat, moves[j, 0])
            play_out_round_nb(sim_pub, sim_hands, owed, placement)
            totals[j] += round_outcome_nb(sim_pub, seat, objective, amount, hit, net, cabbages) / samples


@njit(cache=True)
def lookahead_card_nb(params, pub, hand, legal, rng):
    """lookahead — a strong player who thinks ahead by imagining the hidden cards.

    For each card it may play, it imagines ``N`` possible deals of the
    cards it has not seen (consistent with everything played so far and
    with the suits each seat has shown it lacks), plays each one out to the
    end of the round with everybody playing like ``greedy``, and plays the
    card with the best average result: its own cabbage change in the round,
    or (``lookahead:N:win``) its chance to win the game. It imagines the same
    deals for every card, and on a tie it plays what ``greedy`` would.
    """
    n_moves = popcount_nb(legal)
    if n_moves == 1:
        return lowest_nb(legal)
    guess = greedy_card_nb(pub, hand, legal)
    moves = np.empty((n_moves, 3), dtype=np.int64)
    totals = np.zeros(n_moves)
    rest = legal
    for j in range(n_moves):
        moves[j, 0] = lowest_nb(rest)
        rest &= rest - np.uint64(1)
        if moves[j, 0] == guess:
            totals[j] = TIE_TO_GREEDY
    # The flag as a value, not a constant: one compiled copy serves cards and placements alike.
    mean_outcomes_nb(pub, hand, rng, max(1, int(params[0])), int(params[1]), moves, n_moves, np.bool_(False), totals)
    return moves[np.argmax(totals), 0]


@njit(cache=True)
def lookahead_placement_nb(params, pub, hand, rng, out):
    """lookahead places a token the same way it plays: it tries every free
    machine with every token left (and both sides of the golden machine) on
    ``N`` imagined deals, plays them out with ``greedy`` and keeps the best."""
    greedy_placement_nb(pub, hand, out)
    moves = np.empty((MAX_OPTIONS, 3), dtype=np.int64)
    n_moves = np.int64(0)
    any_token = False
    for t in range(pub[E.P_N_TOKENS]):
        any_token |= pub[E.P_TOKEN_PLACED + t] == 0
    for m in range(E.MACHINES_PER_ROUND):
        if pub[E.P_MACHINE_TOKEN + m] >= 0 or not any_token:
            continue
        for t in range(pub[E.P_N_TOKENS]):
            if pub[E.P_TOKEN_PLACED + t] == 0:
                moves[n_moves, 0] = m
                moves[n_moves, 1] = t
                moves[n_moves, 2] = E.NO_SIDE
                n_moves += 1
    if pub[E.P_GOLDEN_SIDE] == E.NO_SIDE:
        for side in (E.MIN_SIDE, E.MAX_SIDE):
            moves[n_moves, 0] = E.GOLDEN_SLOT
            moves[n_moves, 1] = -1
            moves[n_moves, 2] = side
            n_moves += 1
    if n_moves <= 1:
        return
    totals = np.zeros(n_moves)
    for j in range(n_moves):
        if moves[j, 0] == out[0] and moves[j, 1] == out[1] and moves[j, 2] == out[2]:
            totals[j] = TIE_TO_GREEDY
    mean_outcomes_nb(pub, hand, rng, max(1, int(params[0])), int(params[1]), moves, n_moves, np.bool_(True), totals)
    out[:] = moves[np.argmax(totals)]
