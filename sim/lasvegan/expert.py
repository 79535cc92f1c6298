"""The ``expert`` policy: ``greedy``'s way of weighing a trick, with the
judgement of ``lookahead`` distilled into a few tuned weights.

``lookahead`` plays well because it sees where a move leads: that a trick
full of cards of a bad machine costs more than its face, that a seat low on
cabbages must not gamble, where the golden token will hurt at the end of the
round rather than now. ``expert`` asks the same questions of the
observation directly, with no rollout, so it costs a few times ``greedy``.

How much each consideration counts is a weight in ``EXPERT_WEIGHTS``
(``expert_weights.py``), tuned so that ``expert`` picks the moves
``lookahead:N`` values most, over many situations (``bench/train_expert.py``
writes that file and says how). The kernels take the weights as an argument
so a tuning run can try weights without compiling again.

Like every policy it reads only ``pub``, its own hand and nothing else; it
draws nothing from its random stream.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.bits import lowest_nb, popcount_nb
from sim.lasvegan import enums as E
from sim.lasvegan.expert_weights import EXPERT_WEIGHTS
from sim.lasvegan.heuristics import (
    ZEROS,
    colour_groups_nb,
    holds_nb,
    later_seats_nb,
    machine_weight_nb,
    pile_exposure_nb,
    trick_so_far_nb,
    takes_lead_nb,
    unplaced_token_mean_nb,
    unseen_cards_nb,
)
from sim.lasvegan.lookahead import OBJECTIVE_CABBAGES, TIE_TO_GREEDY, mean_outcomes_nb
from sim.lasvegan.mechanics import SEVENS, SUIT_MASK, VALUE_MASK, any_free_slot_nb, seat_to_move_nb

# Index of each weight in EXPERT_WEIGHTS, with what it scales.
W_SEVEN = 0  # worth of placing a token, per 7 in a trick won
W_HIDDEN_VOID = 1  # chance a later seat not known void throws a 0 on the trick
W_GOLDEN_TRICK = 2  # the golden machine's pull on one more trick
W_LATER_CARDS = 3  # worth of the cards still to come to the trick, per card
W_LOSS = 4  # extra weight of a loss over a gain, grows as the seat's cabbages run low
W_THRESHOLD = 5  # a trick is wanted only above this worth
W_DUCK_DANGER = 6  # following suit, how much a card's danger outweighs its height in shedding
W_DISCARD_DANGER = 7  # discarding, the same
W_LEAD_LOW = 8  # leading, preference for low cards of long suits (they lose the trick)
W_FUTURE = 9  # placing, weight of the cards of a machine still in the seat's hand
W_OPPONENTS = 10  # placing, weight of the others' exposure against the seat's own
W_GOLDEN_FUTURE = 11  # placing the golden token, weight of the tricks the hands will still win
W_GOLDEN_SOFT = 12  # how sharply a seat's golden-token risk grows near the penalised end
N_WEIGHTS = 13

# Tie-breaks, far below any real difference.
TIE = 1e-4
# Imagined deals per move when the golden token may be placed.
GOLDEN_SAMPLES = 8


@njit(cache=True, inline="always")
def hand_tricks_nb(hand, unseen):
    """Tricks a hand may still win: its cards no unseen card of the suit beats,
    and its 0s (which win when thrown on another suit), counted fractionally."""
    total = 0.0
    for s in range(E.N_SUITS):
        mine = hand & SUIT_MASK[s]
        if not mine:
            continue
        theirs = unseen & SUIT_MASK[s]
        rest = mine
        while rest:
            card = lowest_nb(rest)
            rest &= rest - np.uint64(1)
            above = SUIT_MASK[s] & ~((np.uint64(1) << np.uint64(card + 1)) - np.uint64(1))
            higher = popcount_nb(theirs & above)
            total += 1.0 / (1.0 + higher)
    total += 0.5 * popcount_nb(hand & ZEROS)
    return total


@njit(cache=True, inline="always")
def machine_view_nb(pub, m, bare, won, trick, unseen):
    """Machine ``m`` for the seat with won pile ``won``: ``(cards it counts,
    worth of the trick so far, worth of one more matching card in it, danger
    of a matching card alone, summed worth of the unseen cards)``."""
    sticker = pub[E.P_MACHINES + m]
    weight = machine_weight_nb(pub, m, bare)
    if sticker < E.POINTS_BASE:
        cards = SUIT_MASK[sticker]
        have = popcount_nb(won & cards)
        in_trick = popcount_nb(trick & cards)
        worth = weight * colour_groups_nb(have, in_trick)
        add = weight * colour_groups_nb(have, in_trick + 1) - worth
        return cards, worth, add, -weight * colour_groups_nb(have, 1), weight * popcount_nb(unseen & cards) / 3.0
    cards = VALUE_MASK[sticker - E.POINTS_BASE]
    return cards, weight * popcount_nb(trick & cards), weight, -weight, weight * popcount_nb(unseen & cards)


@njit(cache=True)
def expert_card_nb(pub, hand, legal, w):
    """expert — greedy's weighing of the trick, with lookahead's judgement.

    Like ``greedy`` it works out what the trick is worth if it wins it (the
    cards in it and the ones still to come on this round's machines, the
    golden machine, the tokens its 7s let it place) and the chance its card
    holds. Unlike ``greedy`` it weighs a loss more than a gain the fewer
    cabbages it has left, wants a trick only when it is clearly worth it,
    and when it leads a trick it does not want it leads low in a long suit.
    """
    if legal & (legal - np.uint64(1)) == 0:
        return lowest_nb(legal)
    seat = seat_to_move_nb(pub)
    players = pub[E.P_PLAYERS]
    won = np.uint64(pub[E.P_WON + seat])
    bare = unplaced_token_mean_nb(pub)
    unseen = unseen_cards_nb(pub, hand)
    n_unseen = popcount_nb(unseen)
    later_cards, later_voids = later_seats_nb(pub)
    q = later_cards / n_unseen if n_unseen else 0.0
    led, best, zero, trick = trick_so_far_nb(pub)
    later = players - 1 - pub[E.P_TRICK_LEN]

    cards0, worth0, add0, danger0, unseen0 = machine_view_nb(pub, 0, bare, won, trick, unseen)
    cards1, worth1, add1, danger1, unseen1 = machine_view_nb(pub, 1, bare, won, trick, unseen)
    cards2, worth2, add2, danger2, unseen2 = machine_view_nb(pub, 2, bare, won, trick, unseen)
    unseen_worth = (unseen0 + unseen1 + unseen2) / n_unseen if n_unseen else 0.0

    # The golden machine's pull on one more trick.
    golden = 0.0
    side = pub[E.P_GOLDEN_SIDE]
    if side != E.NO_SIDE:
        mine = pub[E.P_TRICKS + seat]
        lo = 1 << 30
        hi = -1
        for s in range(players):
            if s != seat:
                lo = min(lo, pub[E.P_TRICKS + s])
                hi = max(hi, pub[E.P_TRICKS + s])
        g = float(pub[E.P_GOLDEN_VALUE])
        if side == E.MAX_SIDE:
            golden = -g / (1 + max(hi - (mine + 1), 0))
        else:
            golden = g / (1 + max(mine - lo, 0))

    base = worth0 + worth1 + worth2 + w[W_LATER_CARDS] * later * unseen_worth + w[W_GOLDEN_TRICK] * golden
    seven = w[W_SEVEN] if any_free_slot_nb(pub) else 0.0
    sevens_in_trick = popcount_nb(trick & SEVENS)
    # Losses weigh more as the seat's cabbages run low: elimination ends the game.
    starting = max(pub[E.P_STARTING], 1)
    low = max(0.0, 1.0 - pub[E.P_CABBAGES + seat] / starting)
    loss_weight = 1.0 + w[W_LOSS] * low

    choice = -1
    top = -np.inf
    rest = legal
    while rest:
        card = lowest_nb(rest)
        bit = np.uint64(1) << np.uint64(card)
        rest &= rest - np.uint64(1)
        ev = 0.0
        if takes_lead_nb(card, led, best, zero):
            worth = base + seven * (sevens_in_trick + (card % 10 == E.SEVEN))
            if bit & cards0:
                worth += add0
            if bit & cards1:
                worth += add1
            if bit & cards2:
                worth += add2
            if worth < 0.0:
                worth *= loss_weight
            p = 1.0 if later == 0 else holds_nb(card, led, unseen, q, later_voids) ** (1.0 + w[W_HIDDEN_VOID])
            ev = p * worth - w[W_THRESHOLD]
        if ev > 0.0:
            score = ev - TIE * (card % 10)
        else:
            d = 0.0
            if bit & cards0:
                d += danger0
            if bit & cards1:
                d += danger1
            if bit & cards2:
                d += danger2
            if led < 0:
                length = popcount_nb(hand & SUIT_MASK[card // 10])
                shed = card % 10 + w[W_DUCK_DANGER] * d + w[W_LEAD_LOW] * (length - card % 10)
                score = min(ev, 0.0) + TIE * shed
            elif card // 10 == led:
                score = min(ev, 0.0) + TIE * (card % 10 + w[W_DUCK_DANGER] * d)
            else:
                score = min(ev, 0.0) + TIE * (w[W_DISCARD_DANGER] * d + card % 10)
        if score > top:
            top = score
            choice = card
    return choice


@njit(cache=True)
def expert_placement_nb(pub, hand, w, out):
    """expert places a token looking at the end of the round, not only at the
    cards won so far: a machine's exposure counts the matching cards still in
    its hand too, and the golden token goes on the side that will hit others
    when the tricks are all played, judged from the tricks each hand can
    still win. The others' exposure is weighed toward the richest."""
    seat = seat_to_move_nb(pub)
    players = pub[E.P_PLAYERS]
    unseen = unseen_cards_nb(pub, hand)
    weight_sum = 0.0
    for s in range(players):
        if s != seat:
            weight_sum += pub[E.P_CABBAGES + s] + 1
    out[0] = -1
    out[1] = -1
    out[2] = E.NO_SIDE
    top = -np.inf
    for m in range(E.MACHINES_PER_ROUND):
        if pub[E.P_MACHINE_TOKEN + m] >= 0:
            continue
        sticker = pub[E.P_MACHINES + m]
        mine = np.uint64(pub[E.P_WON + seat])
        exposure = pile_exposure_nb(sticker, mine)
        future = pile_exposure_nb(sticker, mine | hand) - exposure
        exposure += w[W_FUTURE] * future
        theirs = 0.0
        for s in range(players):
            if s != seat:
                theirs += (pub[E.P_CABBAGES + s] + 1) * pile_exposure_nb(sticker, np.uint64(pub[E.P_WON + s]))
        exposure -= w[W_OPPONENTS] * theirs / weight_sum
        for t in range(pub[E.P_N_TOKENS]):
            if pub[E.P_TOKEN_PLACED + t]:
                continue
            v = pub[E.P_TOKEN_VALUE + t]
            score = v * exposure - TIE * v
            if score > top:
                top = score
                out[0] = m
                out[1] = t
    if pub[E.P_GOLDEN_SIDE] == E.NO_SIDE:
        # Tricks each seat ends the round with, as far as it can tell: its
        # own from its hand, the others' sharing the rest.
        left = pub[E.P_HAND_SIZE + seat]
        own = min(hand_tricks_nb(hand, unseen), float(left))
        others = (left - own) / max(players - 1, 1)
        g = pub[E.P_GOLDEN_VALUE]
        soft = max(w[W_GOLDEN_SOFT], 1e-3)
        for golden_side in (E.MIN_SIDE, E.MAX_SIDE):
            # A seat's risk: how near its projected tricks are to the penalised end.
            extreme = 1e9 if golden_side == E.MIN_SIDE else -1e9
            for s in range(players):
                proj = pub[E.P_TRICKS + s] + w[W_GOLDEN_FUTURE] * (own if s == seat else others)
                extreme = min(extreme, proj) if golden_side == E.MIN_SIDE else max(extreme, proj)
            score = 0.0
            theirs = 0.0
            for s in range(players):
                proj = pub[E.P_TRICKS + s] + w[W_GOLDEN_FUTURE] * (own if s == seat else others)
                gap = proj - extreme if golden_side == E.MIN_SIDE else extreme - proj
                risk = 1.0 / (1.0 + gap / soft)
                if s == seat:
                    score -= g * risk
                else:
                    theirs += (pub[E.P_CABBAGES + s] + 1) * risk
            score += w[W_OPPONENTS] * g * theirs / weight_sum
            if score > top:
                top = score
                out[0] = E.GOLDEN_SLOT
                out[1] = -1
                out[2] = golden_side


@njit(cache=True)
def expert_card_default_nb(pub, hand, legal):
    return expert_card_nb(pub, hand, legal, EXPERT_WEIGHTS)


@njit(cache=True)
def expert_placement_search_nb(pub, hand, w, samples, rng, out):
    """The placement of :func:`expert_placement_nb`; when that is the golden
    token, whose side decides who pays at the end of the round, the seat
    weighs both sides on ``samples`` imagined deals played out by
    ``greedy``, as ``lookahead`` does, and keeps the better (its own
    choice on a tie)."""
    expert_placement_nb(pub, hand, w, out)
    if out[0] != E.GOLDEN_SLOT or samples <= 0:
        return
    moves = np.empty((2, 3), dtype=np.int64)
    n_moves = 2
    for j, side in enumerate((E.MIN_SIDE, E.MAX_SIDE)):
        moves[j, 0] = E.GOLDEN_SLOT
        moves[j, 1] = -1
        moves[j, 2] = side
    totals = np.zeros(n_moves)
    for j in range(n_moves):
        if moves[j, 0] == out[0] and moves[j, 1] == out[1] and moves[j, 2] == out[2]:
            totals[j] = TIE_TO_GREEDY
    mean_outcomes_nb(pub, hand, rng, samples, OBJECTIVE_CABBAGES, moves, n_moves, True, totals)
    out[:] = moves[np.argmax(totals)]


@njit(cache=True)
def expert_card_default_nb(pub, hand, legal):
    return expert_card_nb(pub, hand, legal, EXPERT_WEIGHTS)


@njit(cache=True)
def expert_placement_default_nb(pub, hand, rng, out):
    expert_placement_search_nb(pub, hand, EXPERT_WEIGHTS, GOLDEN_SAMPLES, rng, out)
