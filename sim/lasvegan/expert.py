"""The ``expert`` policy: ``lookahead``'s judgement of a card, distilled into a
score it can compute from the observation alone.

``lookahead`` plays well because it sees where a move leads: that a trick
full of cards of a bad machine costs more than its face, that a card which
loses now hands its worth to another seat, that a high card kept is a trick
won later, where the golden token will hurt at the end of the round.
``expert`` describes every legal card by features that ask those questions
of the observation directly (:func:`card_features_nb`) and plays the card
with the best weighted sum, with no rollout, so it costs several times
``greedy`` rather than hundreds.

The card weights (``expert_card_weights.py``) are fitted to ``lookahead``'s
own value of every legal card in many situations
(``bench/train_expert_cards.py``); the placement weights
(``expert_weights.py``) are tuned by ``bench/train_expert.py``. The kernels
take the weights as an argument so a fit can try weights without compiling
again.

Like every policy it reads only ``pub``, its own hand and its own random
stream (used only to imagine deals for the golden side).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.extending import overload

from sim.bits import lowest_nb, popcount_nb
from sim.lasvegan import enums as E
from sim.lasvegan.expert_card_weights import EXPERT_CARD_WEIGHTS
from sim.lasvegan.expert_weights import EXPERT_WEIGHTS
from sim.lasvegan.heuristics import (
    ZEROS,
    colour_groups_nb,
    greedy_card_nb,
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

# Index of each weight in EXPERT_WEIGHTS, with what it scales. The first
# nine scaled an earlier card play; only the placement weights are read now.
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


@njit(cache=True, inline="always")
def suit_worth_nb(pub, bare, unseen, free, suit):
    """Mean worth of an unseen card of ``suit`` (0 if none is unseen): what each
    seat still to play adds to a trick of that suit when it follows."""
    in_suit = unseen & SUIT_MASK[suit]
    k = popcount_nb(in_suit)
    if k == 0:
        return 0.0
    total = 0.0
    for m in range(E.MACHINES_PER_ROUND):
        sticker = pub[E.P_MACHINES + m]
        weight = machine_weight_nb(pub, m, bare)
        if sticker < E.POINTS_BASE:
            if sticker == suit:
                total += weight * k / 3.0
        else:
            total += weight * popcount_nb(in_suit & VALUE_MASK[sticker - E.POINTS_BASE])
    if free and in_suit & SEVENS:
        total += 0.5
    return total / k


# Per-card features of a card choice, scored by one weight vector per kind of
# choice (CARD_CONTEXTS): leading a trick, following suit, discarding.
CTX_LEAD = 0
CTX_FOLLOW = 1
CTX_DISCARD = 2
# ... and one set of the three per table size: 3 (and 2), 4, 5 players.
N_CONTEXTS = 9
F_GREEDY = 0  # the card greedy would play
F_WINS = 1  # the card wins the trick as it stands
F_HOLD = 2  # chance it wins the trick once every seat has played
F_TRICK_WORTH = 3  # chance x worth of the trick's cards with this one, on the machines
F_LATER_WORTH = 4  # chance x expected worth of the cards still to come
F_GOLDEN = 5  # chance x the golden machine's pull on one more trick
F_SEVENS = 6  # chance x 7s in the trick with this one, when a slot is free
F_LOSS = 7  # chance x a negative worth, scaled by how low the seat's cabbages are
F_OWN_WORTH = 8  # worth of this card alone in the seat's pile
F_GIVEN = 9  # (1 - chance) x worth of this card to the seat that takes it
F_VALUE = 10  # card value / 9
F_HIGHER = 11  # unseen cards of its suit above it / 9
F_LOWER = 12  # unseen cards of its suit below it / 9
F_LENGTH = 13  # cards of its suit left in the hand after it / 9
F_VOID = 14  # playing it leaves the hand void in its suit
F_TOP = 15  # the seat's highest card of that suit
F_SEVEN = 16  # the card is a 7
F_ZERO = 17  # the card is a 0
F_SUIT_VOIDS = 18  # other seats shown void in its suit (they may throw a 0 on it)
F_HOLD_LATE = 19  # chance x tricks left / 10: winning now keeps the lead for more tricks
F_HOLD_EARLY_SEVEN = 20  # the card is a 7 kept in hand while tokens remain (x tricks left / 10)
F_LEAD_WORTH = 21  # chance x how far the seat leads (or trails) the game in cabbages / 10
F_OWN_LATE = 22  # own worth x tricks left / 10: a bad card held is a risk for longer
F_LOW_CARD = 23  # a low card kept for ducking: value <= 2
F_BIAS_HIGHER0 = 24  # no unseen card of its suit above it: a sure winner later
F_SUIT_LATER = 25  # chance x later cards x mean worth of the unseen cards of the trick's suit
F_SUIT_UNSEEN = 26  # unseen cards of its suit / 10: few, and the others throw off-suit cards on it
F_LOSE_SUIT_LATER = 27  # (1 - chance) x later cards x that mean worth (taken by another seat)
F_LEAD_SUIT_ZEROS = 28  # unseen 0s of other suits x shown voids in the card's suit
N_FEATURES = 29


# Passed as ``feats`` by the policy: a read-only array, so the features are
# not written and a decision allocates nothing.
NO_FEATURES = np.zeros((0, 0))
NO_FEATURES.flags.writeable = False


def put_nb(feats, j, w, row, k, x):
    """Feature ``k`` of card ``j`` is ``x``: its part of the card's score, kept
    in ``feats`` unless that is read-only."""


@overload(put_nb, inline="always")
def _put_nb(feats, j, w, row, k, x):
    if not feats.mutable:
        return lambda feats, j, w, row, k, x: w[row, k] * np.float64(x)

    def put(feats, j, w, row, k, x):
        v = np.float64(x)
        feats[j, k] = v
        return w[row, k] * v

    return put


def clear_nb(feats, j):
    """Zero the features of card ``j`` unless ``feats`` is read-only."""


@overload(clear_nb, inline="always")
def _clear_nb(feats, j):
    if not feats.mutable:
        return lambda feats, j: None

    def clear(feats, j):
        feats[j, :] = 0.0

    return clear


@njit(cache=True)
def card_features_nb(pub, hand, legal, feats, w):
    """Score every legal card with the weights ``w`` of its context; return
    ``(context, best card)``. The context is the kind of choice plus
    3 x (players - 3), from 0 at 2 and 3 players. The
    features of the ``j``-th legal card (lowest first) go to ``feats[j]``
    unless ``feats`` is read-only.

    The features look past the trick: what the card is worth to whoever
    takes it, how many unseen cards still beat it, what the hand keeps after
    it (length, voids, a top card, a 7 for a later trick) and how the golden
    machine and the seat's cabbages weigh one more trick.
    """
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
    tricks_left = pub[E.P_HAND_SIZE + seat] / 10.0

    cards0, worth0, add0, danger0, unseen0 = machine_view_nb(pub, 0, bare, won, trick, unseen)
    cards1, worth1, add1, danger1, unseen1 = machine_view_nb(pub, 1, bare, won, trick, unseen)
    cards2, worth2, add2, danger2, unseen2 = machine_view_nb(pub, 2, bare, won, trick, unseen)
    unseen_worth = (unseen0 + unseen1 + unseen2) / n_unseen if n_unseen else 0.0
    # What a card is worth to another seat that takes it: the machines' faces
    # for a card alone (colour machines at a third of their face).
    w0 = machine_weight_nb(pub, 0, bare)
    w1 = machine_weight_nb(pub, 1, bare)
    w2 = machine_weight_nb(pub, 2, bare)
    if pub[E.P_MACHINES + 0] < E.POINTS_BASE:
        w0 /= 3.0
    if pub[E.P_MACHINES + 1] < E.POINTS_BASE:
        w1 /= 3.0
    if pub[E.P_MACHINES + 2] < E.POINTS_BASE:
        w2 /= 3.0

    golden = 0.0
    side = pub[E.P_GOLDEN_SIDE]
    mine = pub[E.P_TRICKS + seat]
    if side != E.NO_SIDE:
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
    trick_worth = worth0 + worth1 + worth2
    later_worth = later * unseen_worth
    free = any_free_slot_nb(pub)
    sevens_in_trick = popcount_nb(trick & SEVENS)
    starting = max(pub[E.P_STARTING], 1)
    low = max(0.0, 1.0 - pub[E.P_CABBAGES + seat] / starting)
    richest = -1
    for s in range(players):
        if s != seat:
            richest = max(richest, pub[E.P_CABBAGES + s])
    ahead = (pub[E.P_CABBAGES + seat] - richest) / 10.0

    other_zeros = popcount_nb(unseen & ZEROS)

    greedy = greedy_card_nb(pub, hand, legal)
    table = 3 * min(max(players - 3, 0), 2)
    context = CTX_LEAD
    worth_suit = -1
    choice = -1
    top = -np.inf
    later_suit_worth = 0.0
    voids_suit = -1
    shown_void = 0.0
    j = 0
    rest = legal
    while rest:
        card = lowest_nb(rest)
        bit = np.uint64(1) << np.uint64(card)
        rest &= rest - np.uint64(1)
        suit = card // 10
        value = card % 10
        if led >= 0:
            context = CTX_FOLLOW if suit == led else CTX_DISCARD
        row = table + context
        clear_nb(feats, j)
        score = 0.0
        score += put_nb(feats, j, w, row, F_GREEDY, card == greedy)
        own = 0.0
        given = 0.0
        add = 0.0
        if bit & cards0:
            own -= danger0
            add += add0
            given += w0
        if bit & cards1:
            own -= danger1
            add += add1
            given += w1
        if bit & cards2:
            own -= danger2
            add += add2
            given += w2
        p = 0.0
        if takes_lead_nb(card, led, best, zero):
            score += put_nb(feats, j, w, row, F_WINS, 1.0)
            p = 1.0 if later == 0 else holds_nb(card, led, unseen, q, later_voids)
            sevens = sevens_in_trick + (value == E.SEVEN)
            worth = trick_worth + add + later_worth + golden + (0.5 * sevens if free else 0.0)
            score += put_nb(feats, j, w, row, F_HOLD, p)
            score += put_nb(feats, j, w, row, F_TRICK_WORTH, p * (trick_worth + add))
            score += put_nb(feats, j, w, row, F_LATER_WORTH, p * later_worth)
            score += put_nb(feats, j, w, row, F_GOLDEN, p * golden)
            if free:
                score += put_nb(feats, j, w, row, F_SEVENS, p * sevens)
            score += put_nb(feats, j, w, row, F_LOSS, p * min(worth, 0.0) * low)
            score += put_nb(feats, j, w, row, F_HOLD_LATE, p * tricks_left)
            score += put_nb(feats, j, w, row, F_LEAD_WORTH, p * ahead)
        score += put_nb(feats, j, w, row, F_OWN_WORTH, own)
        score += put_nb(feats, j, w, row, F_GIVEN, (1.0 - p) * given)
        score += put_nb(feats, j, w, row, F_VALUE, value / 9.0)
        above = SUIT_MASK[suit] & ~((np.uint64(1) << np.uint64(card + 1)) - np.uint64(1))
        higher = popcount_nb(unseen & above)
        score += put_nb(feats, j, w, row, F_HIGHER, higher / 9.0)
        score += put_nb(feats, j, w, row, F_LOWER, popcount_nb(unseen & SUIT_MASK[suit] & ~above & ~bit) / 9.0)
        length = popcount_nb(hand & SUIT_MASK[suit]) - 1
        score += put_nb(feats, j, w, row, F_LENGTH, length / 9.0)
        score += put_nb(feats, j, w, row, F_VOID, length == 0)
        score += put_nb(feats, j, w, row, F_TOP, (hand & above) == 0)
        score += put_nb(feats, j, w, row, F_SEVEN, value == E.SEVEN)
        score += put_nb(feats, j, w, row, F_ZERO, value == 0)
        if suit != voids_suit:
            voids_suit = suit
            shown_void = 0.0
            for other in range(players):
                if other != seat and pub[E.P_VOIDS + other] & (1 << suit):
                    shown_void += 1.0
        score += put_nb(feats, j, w, row, F_SUIT_VOIDS, shown_void / (players - 1))
        if value == E.SEVEN and free:
            score += put_nb(feats, j, w, row, F_HOLD_EARLY_SEVEN, tricks_left)
        score += put_nb(feats, j, w, row, F_OWN_LATE, own * tricks_left)
        score += put_nb(feats, j, w, row, F_LOW_CARD, value <= 2)
        score += put_nb(feats, j, w, row, F_BIAS_HIGHER0, higher == 0)
        trick_suit = suit if led < 0 else led
        if trick_suit != worth_suit:
            worth_suit = trick_suit
            later_suit_worth = later * suit_worth_nb(pub, bare, unseen, free, trick_suit)
        score += put_nb(feats, j, w, row, F_SUIT_LATER, p * later_suit_worth)
        score += put_nb(feats, j, w, row, F_LOSE_SUIT_LATER, (1.0 - p) * later_suit_worth)
        score += put_nb(feats, j, w, row, F_SUIT_UNSEEN, popcount_nb(unseen & SUIT_MASK[suit]) / 10.0)
        score += put_nb(feats, j, w, row, F_LEAD_SUIT_ZEROS, (other_zeros - popcount_nb(unseen & ZEROS & SUIT_MASK[suit])) * shown_void / 4.0)
        if score > top:
            top = score
            choice = card
        j += 1
    return table + context, choice


@njit(cache=True)
def expert_card_nb(pub, hand, legal, w):
    """expert — plays the card a distilled judgement of ``lookahead`` scores best.

    Every legal card is described by the features of
    :func:`card_features_nb` and scored by the weights of the kind of
    choice (leading, following suit, discarding) at this table size, fitted
    so that the scores follow ``lookahead``'s own estimate of each card
    (``bench/train_expert_cards.py``). On a tie it plays the lowest card.
    """
    if legal & (legal - np.uint64(1)) == 0:
        return lowest_nb(legal)
    return card_features_nb(pub, hand, legal, NO_FEATURES, w)[1]


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
    return expert_card_nb(pub, hand, legal, EXPERT_CARD_WEIGHTS)


@njit(cache=True)
def expert_placement_default_nb(pub, hand, rng, out):
    expert_placement_search_nb(pub, hand, EXPERT_WEIGHTS, GOLDEN_SAMPLES, rng, out)
