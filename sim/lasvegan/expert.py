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

Token placements are scored the same way (:func:`placement_features_nb`):
what the machine will count for the seat by the end of the round, from its
won cards, its hand and its share of the unseen cards, and for the golden
token how likely the seat is to end the round at the penalised end, here
or at the other end if it leaves the token to someone else.

The card weights (``expert_card_weights.py``) are fitted to ``lookahead``'s
own value of every legal card in many situations
(``bench/train_expert_cards.py``), the placement weights
(``expert_placement_weights.py``) to its value of every placement
(``bench/train_expert_placements.py``); the hand-made placement score they
start from has its own weights (``expert_weights.py``, tuned by
``bench/train_expert.py``). The kernels take the weights as an argument so
a fit can try weights without compiling again.

Like every policy it reads only ``pub``, its own hand and its own random
stream (which it draws from only when ``GOLDEN_SAMPLES`` asks it to weigh
the golden token's side on imagined deals; by default it does not).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.extending import overload

from sim.bits import lowest_nb, pop_lowest_nb, popcount_nb, tuple_item_nb
from sim.lasvegan import enums as E
from sim.lasvegan.expert_card_weights import EXPERT_CARD_WEIGHTS
from sim.lasvegan.expert_placement_weights import EXPERT_PLACEMENT_WEIGHTS
from sim.lasvegan.expert_weights import EXPERT_WEIGHTS
from sim.lasvegan.heuristics import (
    SEVEN_WORTH,
    ZEROS,
    beaters_nb,
    later_seats_nb,
    lead_takers_nb,
    machine_terms_nb,
    machine_weight_nb,
    pile_exposure_nb,
    shed_score_nb,
    trick_count_worth_nb,
    trick_so_far_nb,
    unseen_cards_nb,
    won_trick_worth_nb,
)
from sim.lasvegan.heuristics import TIE as GREEDY_TIE
from sim.lasvegan.lookahead import OBJECTIVE_CABBAGES, TIE_TO_GREEDY, mean_outcomes_nb
from sim.lasvegan.mechanics import (
    SEVENS,
    SUIT_MASK,
    VALUE_MASK,
    free_slot_left_nb,
    seat_to_move_nb,
    unplaced_tokens_nb,
)

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
# Imagined deals on which the golden token's side is weighed again when the
# score places it. None: with the fitted placement score the search moved
# the side away from lookahead's (the share of golden tokens on MAX, 10 to
# 11 points above lookahead:64's at 4 and 5 players with 8 or 32 deals,
# 4 to 6 points with none) and cost rollouts.
GOLDEN_SAMPLES = 0


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
def keep_powers_nb(q):
    """``(1 - q) ** k`` for k = 0..9, each the product :func:`holds_nb`'s loop
    builds one factor at a time (the same floats, so the same decisions)."""
    k = 1.0 - q
    p1 = k
    p2 = p1 * k
    p3 = p2 * k
    p4 = p3 * k
    p5 = p4 * k
    p6 = p5 * k
    p7 = p6 * k
    p8 = p7 * k
    p9 = p8 * k
    return (1.0, p1, p2, p3, p4, p5, p6, p7, p8, p9)


@njit(cache=True, inline="always")
def holds_from_nb(card, led, unseen, q, later_voids, keep):
    """:func:`heuristics.holds_nb` with the chances no later seat beats it,
    one per unseen higher card of the suit, taken from ``keep``
    (:func:`keep_powers_nb`) instead of multiplied out for every card."""
    higher, other_zeros, zero_risk = beaters_nb(card, led, unseen, q, later_voids)
    p = tuple_item_nb(keep, higher)
    for _ in range(other_zeros):
        p *= 1.0 - zero_risk
    return p


# Small whole numbers over 9 and 10, and k seats of n, each the float the
# division gives: a table read instead of a division on every card.
NINTHS = np.arange(-1, 11) / 9.0  # NINTHS[k + 1] == k / 9.0
TENTHS = np.arange(0, E.N_CARDS + 1) / 10.0  # a hand holds at most all the cards
SHARES = np.array([[k / max(n, 1) for k in range(E.MAX_PLAYERS + 1)] for n in range(E.MAX_PLAYERS + 1)])


@njit(cache=True, inline="always")
def machine_view_nb(pub, m, bare, won, trick, unseen):
    """Machine ``m`` for the seat with won pile ``won``: greedy's terms
    (:func:`heuristics.machine_terms_nb`: cards it counts, worth of the trick
    so far, worth of one more matching card in it, danger of a matching card
    alone) and the summed worth of the unseen cards (colour machines at a
    third of their face)."""
    cards, worth, add, danger = machine_terms_nb(pub, m, bare, won, trick)
    seen = machine_weight_nb(pub, m, bare) * popcount_nb(unseen & cards)
    return cards, worth, add, danger, seen / 3.0 if pub[E.P_MACHINES + m] < E.POINTS_BASE else seen


@njit(cache=True, inline="always")
def machine_suits_nb(pub, m, bare, unseen, seen):
    """Machine ``m``'s part in what an unseen card of each suit is worth, once
    per decision: ``(colour suit, worth, value cards, face)``. A colour
    machine gives its suit and ``seen``, its worth on the unseen cards
    (:func:`machine_view_nb`: its face on the unseen cards of its suit, at a
    third; no value cards, face 0); a points machine gives suit -1, worth 0,
    the unseen cards of its value and its face."""
    sticker = pub[E.P_MACHINES + m]
    if sticker < E.POINTS_BASE:
        return sticker, seen, np.uint64(0), 0.0
    return -1, 0.0, unseen & VALUE_MASK[sticker - E.POINTS_BASE], machine_weight_nb(pub, m, bare)


@njit(cache=True, inline="always")
def machine_suit_part_nb(machine, in_suit, suit):
    colour_suit, colour_worth, value_cards, face = machine
    return colour_worth if colour_suit == suit else face * popcount_nb(value_cards & in_suit)


@njit(cache=True, inline="always")
def suit_worth_nb(unseen, free, suit, later, m0, m1, m2):
    """What the ``later`` seats still to play add to a trick of ``suit`` when
    they follow: ``later`` x the mean worth of an unseen card of the suit
    (0 if none is unseen), from the machines' parts
    (:func:`machine_suits_nb`) summed in machine order, a 7 at 0.5 while a
    slot is free. A machine with no part in the suit adds 0.0, which leaves
    the sum's value as skipping it would: the same floats, so the same
    decisions."""
    in_suit = unseen & SUIT_MASK[suit]
    k = popcount_nb(in_suit)
    total = 0.0
    total += machine_suit_part_nb(m0, in_suit, suit)
    total += machine_suit_part_nb(m1, in_suit, suit)
    total += machine_suit_part_nb(m2, in_suit, suit)
    total += 0.5 if free and in_suit & SEVENS else 0.0
    return later * (total / k) if k else 0.0


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


def add_nb(feats, j, w, row, k, x, plain, as_greedy):
    """Feature ``k`` of card ``j`` is ``x``: its term added to both sums (and
    kept in ``feats`` unless that is read-only)."""


@overload(add_nb, inline="always")
def _add_nb(feats, j, w, row, k, x, plain, as_greedy):
    if not feats.mutable:
        def add(feats, j, w, row, k, x, plain, as_greedy):
            t = w[row, k] * np.float64(x)
            return plain + t, as_greedy + t
        return add

    def add_kept(feats, j, w, row, k, x, plain, as_greedy):
        v = np.float64(x)
        feats[j, k] = v
        t = w[row, k] * v
        return plain + t, as_greedy + t

    return add_kept


@njit(cache=True, inline="always")
def card_sums_nb(feats, j, w, row, card, hand, unseen, takes, table):
    """The score of legal card ``card`` (the ``j``-th) twice: as a card greedy
    would not play and as the one it would, its terms summed in one fixed
    order; ``table`` holds what every card of the decision shares
    (:func:`score_cards_nb`). Returns ``(score, score as greedy's card,
    chance it holds)``."""
    (players, led, later, q, later_voids, free, low, ahead, tricks_left, golden,
     trick_worth, later_worth, sevens_in_trick, other_zeros, cards0, add0, danger0, w0,
     cards1, add1, danger1, w1, cards2, add2, danger2, w2, suit_worths, suit_voids, void_share, keep) = table
    bit = np.uint64(1) << np.uint64(card)
    suit = card // 10
    value = card % 10
    clear_nb(feats, j)
    t = w[row, F_GREEDY]
    plain = 0.0 + t * 0.0
    as_greedy = 0.0 + t * 1.0
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
    if takes:
        plain, as_greedy = add_nb(feats, j, w, row, F_WINS, 1.0, plain, as_greedy)
        p = 1.0 if later == 0 else holds_from_nb(card, led, unseen, q, later_voids, keep)
        sevens = sevens_in_trick + (value == E.SEVEN)
        worth = trick_worth + add + later_worth + golden + (0.5 * sevens if free else 0.0)
        plain, as_greedy = add_nb(feats, j, w, row, F_HOLD, p, plain, as_greedy)
        plain, as_greedy = add_nb(feats, j, w, row, F_TRICK_WORTH, p * (trick_worth + add), plain, as_greedy)
        plain, as_greedy = add_nb(feats, j, w, row, F_LATER_WORTH, p * later_worth, plain, as_greedy)
        plain, as_greedy = add_nb(feats, j, w, row, F_GOLDEN, p * golden, plain, as_greedy)
        if free:
            plain, as_greedy = add_nb(feats, j, w, row, F_SEVENS, p * sevens, plain, as_greedy)
        plain, as_greedy = add_nb(feats, j, w, row, F_LOSS, p * min(worth, 0.0) * low, plain, as_greedy)
        plain, as_greedy = add_nb(feats, j, w, row, F_HOLD_LATE, p * tricks_left, plain, as_greedy)
        plain, as_greedy = add_nb(feats, j, w, row, F_LEAD_WORTH, p * ahead, plain, as_greedy)
    plain, as_greedy = add_nb(feats, j, w, row, F_OWN_WORTH, own, plain, as_greedy)
    plain, as_greedy = add_nb(feats, j, w, row, F_GIVEN, (1.0 - p) * given, plain, as_greedy)
    plain, as_greedy = add_nb(feats, j, w, row, F_VALUE, NINTHS[value + 1], plain, as_greedy)
    in_suit = SUIT_MASK[suit]
    above = in_suit & ~((bit << np.uint64(1)) - np.uint64(1))
    higher = popcount_nb(unseen & above)
    plain, as_greedy = add_nb(feats, j, w, row, F_HIGHER, NINTHS[higher + 1], plain, as_greedy)
    plain, as_greedy = add_nb(feats, j, w, row, F_LOWER, NINTHS[popcount_nb(unseen & in_suit & ~above & ~bit) + 1],
                              plain, as_greedy)
    length = popcount_nb(hand & in_suit) - 1
    plain, as_greedy = add_nb(feats, j, w, row, F_LENGTH, NINTHS[length + 1], plain, as_greedy)
    plain, as_greedy = add_nb(feats, j, w, row, F_VOID, length == 0, plain, as_greedy)
    plain, as_greedy = add_nb(feats, j, w, row, F_TOP, (hand & above) == 0, plain, as_greedy)
    plain, as_greedy = add_nb(feats, j, w, row, F_SEVEN, value == E.SEVEN, plain, as_greedy)
    plain, as_greedy = add_nb(feats, j, w, row, F_ZERO, value == 0, plain, as_greedy)
    shown_void = tuple_item_nb(suit_voids, suit)
    plain, as_greedy = add_nb(feats, j, w, row, F_SUIT_VOIDS, tuple_item_nb(void_share, suit), plain, as_greedy)
    if value == E.SEVEN and free:
        plain, as_greedy = add_nb(feats, j, w, row, F_HOLD_EARLY_SEVEN, tricks_left, plain, as_greedy)
    plain, as_greedy = add_nb(feats, j, w, row, F_OWN_LATE, own * tricks_left, plain, as_greedy)
    plain, as_greedy = add_nb(feats, j, w, row, F_LOW_CARD, value <= 2, plain, as_greedy)
    plain, as_greedy = add_nb(feats, j, w, row, F_BIAS_HIGHER0, higher == 0, plain, as_greedy)
    later_suit_worth = tuple_item_nb(suit_worths, suit)
    plain, as_greedy = add_nb(feats, j, w, row, F_SUIT_LATER, p * later_suit_worth, plain, as_greedy)
    plain, as_greedy = add_nb(feats, j, w, row, F_LOSE_SUIT_LATER, (1.0 - p) * later_suit_worth, plain, as_greedy)
    plain, as_greedy = add_nb(feats, j, w, row, F_SUIT_UNSEEN, TENTHS[popcount_nb(unseen & in_suit)], plain, as_greedy)
    plain, as_greedy = add_nb(feats, j, w, row, F_LEAD_SUIT_ZEROS,
                              (other_zeros - popcount_nb(unseen & ZEROS & in_suit)) * shown_void / 4.0,
                              plain, as_greedy)
    return plain, as_greedy, p


@njit(cache=True, inline="always")
def score_cards_nb(pub, hand, legal, feats, w):
    """:func:`card_features_nb`, inlined into the player's kernel and the fit's.

    What every card shares is worked out once per decision, ``greedy``'s
    judgement of each card included (its chance to hold is the one the
    features use), so greedy is not asked separately. Each card's terms are
    summed twice in one pass, in the same fixed order: without the greedy
    feature, and with it for the case that it is greedy's card. The card
    greedy plays keeps the second sum, every other card the first, and the
    best (the lowest on a tie) is played: each score is the same float the
    features' sum in card order gives.
    """
    seat = seat_to_move_nb(pub)
    players = pub[E.P_PLAYERS]
    won = np.uint64(pub[E.P_WON + seat])
    total, n_free = unplaced_tokens_nb(pub)
    bare = total / n_free if n_free else 0.0
    unseen = unseen_cards_nb(pub, hand)
    n_unseen = popcount_nb(unseen)
    later_cards, later_voids = later_seats_nb(pub)
    q = later_cards / n_unseen if n_unseen else 0.0
    led, best, zero, trick = trick_so_far_nb(pub)
    later = players - 1 - pub[E.P_TRICK_LEN]
    tricks_left = TENTHS[pub[E.P_HAND_SIZE + seat]]

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

    golden = trick_count_worth_nb(pub, seat)
    trick_worth = worth0 + worth1 + worth2
    later_worth = later * unseen_worth
    free = free_slot_left_nb(pub, n_free)
    sevens_in_trick = popcount_nb(trick & SEVENS)
    starting = max(pub[E.P_STARTING], 1)
    low = max(0.0, 1.0 - pub[E.P_CABBAGES + seat] / starting)
    richest = -1
    n0 = 0
    n1 = 0
    n2 = 0
    n3 = 0
    for s in range(players):
        other = s != seat
        richest = max(richest, pub[E.P_CABBAGES + s] if other else -1)
        v = pub[E.P_VOIDS + s] & -other
        n0 += v & 1
        n1 += (v >> 1) & 1
        n2 += (v >> 2) & 1
        n3 += (v >> 3) & 1
    ahead = (pub[E.P_CABBAGES + seat] - richest) / 10.0
    other_zeros = popcount_nb(unseen & ZEROS)

    # What the later seats add to a trick of a suit: the led suit's for
    # every card, or when leading each card's own.
    sw = (0.0, 0.0, 0.0, 0.0)
    if later:
        m0 = machine_suits_nb(pub, 0, bare, unseen, unseen0)
        m1 = machine_suits_nb(pub, 1, bare, unseen, unseen1)
        m2 = machine_suits_nb(pub, 2, bare, unseen, unseen2)
        if led >= 0:
            x = suit_worth_nb(unseen, free, led, later, m0, m1, m2)
            sw = (x, x, x, x)
        else:
            sw = (suit_worth_nb(unseen, free, 0, later, m0, m1, m2), suit_worth_nb(unseen, free, 1, later, m0, m1, m2),
                  suit_worth_nb(unseen, free, 2, later, m0, m1, m2), suit_worth_nb(unseen, free, 3, later, m0, m1, m2))
    suit_voids = (float(n0), float(n1), float(n2), float(n3))
    others = players - 1
    void_share = (SHARES[others, n0], SHARES[others, n1], SHARES[others, n2], SHARES[others, n3])
    keep = keep_powers_nb(q)
    table = (players, led, later, q, later_voids, free, low, ahead, tricks_left, golden,
             trick_worth, later_worth, sevens_in_trick, other_zeros, cards0, add0, danger0, w0,
             cards1, add1, danger1, w1, cards2, add2, danger2, w2, sw, suit_voids, void_share, keep)

    # greedy's choice (heuristics.greedy_card_nb, the same floats).
    to_come = later_worth if later else 0.0
    greedy_base = trick_worth + to_come + golden
    seven = SEVEN_WORTH if free else 0.0
    takers = legal & lead_takers_nb(led, best, zero)

    context = CTX_LEAD
    if led >= 0:
        context = CTX_FOLLOW if legal & SUIT_MASK[led] else CTX_DISCARD
    row = 3 * min(max(players - 3, 0), 2) + context
    first = -1
    first_top = -np.inf
    second = -1
    second_top = -np.inf
    greedy = -1
    greedy_top = -np.inf
    greedy_j = 0
    greedy_sum = 0.0
    j = 0
    rest = legal
    while rest:
        card, bit, rest = pop_lowest_nb(rest)
        takes = (bit & takers) != 0
        plain, as_greedy, p = card_sums_nb(feats, j, w, row, card, hand, unseen, takes, table)
        ev = 0.0
        if takes:
            ev = p * won_trick_worth_nb(card, bit, greedy_base, seven, sevens_in_trick, cards0, add0, cards1, add1,
                                        cards2, add2)
        if ev > 0.0:
            greedy_score = ev - GREEDY_TIE * (card % 10)
        else:
            greedy_score = ev + GREEDY_TIE * shed_score_nb(card, bit, led, cards0, danger0, cards1, danger1,
                                                           cards2, danger2)
        if greedy_score > greedy_top:
            greedy_top = greedy_score
            greedy = card
            greedy_j = j
            greedy_sum = as_greedy
        if plain > first_top:
            second, second_top = first, first_top
            first, first_top = card, plain
        elif plain > second_top:
            second, second_top = card, plain
        j += 1
    put_nb(feats, greedy_j, w, row, F_GREEDY, 1.0)  # its features: greedy's card
    other, other_top = (second, second_top) if first == greedy else (first, first_top)
    if other < 0 or greedy_sum > other_top or (greedy_sum == other_top and greedy < other):
        return row, greedy
    return row, other


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
    return score_cards_nb(pub, hand, legal, feats, w)


# error_model="numpy": every division is guarded already. _nrt=False: a
# decision allocates nothing, and reference counts on the observation cost
# atomic updates (as in greedy).
@njit(cache=True, error_model="numpy", _nrt=False)
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
    return score_cards_nb(pub, hand, legal, NO_FEATURES, w)[1]


# Per-option features of a token placement, scored by one weight vector per
# table size (3 and 2, 4, 5 players). An ordinary option puts token face v
# on machine m; its features are v times what the machine will count for
# the seat, now and by the end of the round. A golden option puts the golden
# token (penalty g) on one side; its features are -g times the seat's
# chances of ending the round at that side's end.
N_PLACEMENT_CONTEXTS = 3
PF_EARLIER = 0  # the score of the hand-made placement (EXPERT_WEIGHTS)
PF_NOW = 1  # v x the seat's exposure from the cards it has won
PF_HAND = 2  # v x matching cards in its hand, each by its chance to win its trick
PF_HAND_LOSE = 3  # v x matching cards in its hand it will likely lose
PF_UNSEEN = 4  # v x unseen matching cards / players: its share of the rest
PF_PARTIAL = 5  # colour: v x the seat's cards of the suit beyond whole groups / 3
PF_OTHERS = 6  # v x the others' mean exposure
PF_OTHERS_MAX = 7  # v x the most exposed other seat's exposure
PF_LATE = 8  # v x tricks left / 10
PF_FACE = 9  # v
PF_COLOUR = 10  # v on a colour machine
PF_INSTEAD = 11  # (v - mean face of the other free tokens) x the seat's expected exposure
PF_LOSS_LOW = 12  # a loss the seat expects, scaled by how low its cabbages are
PF_GOLDEN = 13  # placing the golden token at all
PF_G_AT_END = 14  # -g if the seat is at the penalised end now
PF_G_ALONE = 15  # -g if the seat alone is at the penalised end now
PF_G_RISK_SHARP = 16  # -g x its risk from the tricks the hands can still win, sharp
PF_G_RISK_SOFT = 17  # the same, soft
PF_G_MAX = 18  # g on MAX
PF_G_MAX_LATE = 19  # g on MAX x tricks left / 10
PF_G_AT_END_LATE = 20  # -g at the penalised end now x tricks left / 10
PF_G_LEAD = 21  # g x (the seat's projected tricks - the others' mean) / tricks left, signed by side
PF_G_OTHER_SHARP = 22  # g x the seat's risk at the other end, sharp: what it escapes by choosing now
PF_G_OTHER_SOFT = 23  # the same, soft
PF_G_SEVENS_OUT = 24  # g x 7s not yet played outside the seat's hand / 4: chances others get to place it
PF_G_SEVENS_MINE = 25  # g x 7s in the seat's hand / 4: chances it gets to place it later
PF_LOWEST = 26  # 1 for the free token of the lowest face, when that face is below 0
N_PLACEMENT_FEATURES = 27


@njit(cache=True, inline="always")
def golden_extreme_nb(pub, seat, players, own, others, side):
    """The end ``side`` penalises among the projected tricks, when the seat to
    move projects ``own`` more tricks for itself and ``others`` for each
    other seat: the fewest (MIN) or the most (MAX)."""
    extreme = 1e9 if side == E.MIN_SIDE else -1e9
    for s in range(players):
        proj = pub[E.P_TRICKS + s] + (own if s == seat else others)
        extreme = min(extreme, proj) if side == E.MIN_SIDE else max(extreme, proj)
    return extreme


@njit(cache=True, inline="always")
def golden_risk_at_nb(pub, seat, own, others, side, soft, target, extreme):
    """How near seat ``target``'s projected tricks are to the penalised end
    ``extreme`` (:func:`golden_extreme_nb`), from 0 to 1: the risks of every
    seat share one pass over the table."""
    proj = pub[E.P_TRICKS + target] + (own if target == seat else others)
    gap = proj - extreme if side == E.MIN_SIDE else extreme - proj
    return 1.0 / (1.0 + gap / soft)


@njit(cache=True)
def placement_features_nb(pub, hand, feats, w, ew, out):
    """Score every placement the seat may make with the weights ``w`` of its
    table size, put the best in ``out`` and return the context. Options come
    in ``lookahead``'s order (machines, then tokens, then MIN and MAX); the
    features of the ``j``-th go to ``feats[j]`` unless it is read-only.
    ``ew`` are the hand-made weights whose score is feature PF_EARLIER."""
    seat = seat_to_move_nb(pub)
    players = pub[E.P_PLAYERS]
    row = min(max(players - 3, 0), 2)
    unseen = unseen_cards_nb(pub, hand)
    left = pub[E.P_HAND_SIZE + seat]
    late = left / 10.0
    starting = max(pub[E.P_STARTING], 1)
    low = max(0.0, 1.0 - pub[E.P_CABBAGES + seat] / starting)
    weight_sum = 0.0
    for s in range(players):
        if s != seat:
            weight_sum += pub[E.P_CABBAGES + s] + 1
    n_free = 0
    free_sum = 0
    lowest = 0
    for t in range(pub[E.P_N_TOKENS]):
        if pub[E.P_TOKEN_PLACED + t] == 0:
            n_free += 1
            free_sum += pub[E.P_TOKEN_VALUE + t]
            lowest = min(lowest, pub[E.P_TOKEN_VALUE + t])
    mine = np.uint64(pub[E.P_WON + seat])
    out[0] = -1
    out[1] = -1
    out[2] = E.NO_SIDE
    top = -np.inf
    j = 0
    for m in range(E.MACHINES_PER_ROUND):
        if pub[E.P_MACHINE_TOKEN + m] >= 0 or n_free == 0:
            continue
        sticker = pub[E.P_MACHINES + m]
        colour = sticker < E.POINTS_BASE
        cards = SUIT_MASK[sticker] if colour else VALUE_MASK[sticker - E.POINTS_BASE]
        now = pile_exposure_nb(sticker, mine)
        held = popcount_nb(mine & cards)
        # Matching cards in hand, each counted by its chance to take its trick.
        hold = 0.0
        rest = hand & cards
        while rest:
            card = lowest_nb(rest)
            rest &= rest - np.uint64(1)
            suit = card // 10
            above = SUIT_MASK[suit] & ~((np.uint64(1) << np.uint64(card + 1)) - np.uint64(1))
            hold += 1.0 / (1.0 + popcount_nb(unseen & above))
        in_hand = popcount_nb(hand & cards)
        share = popcount_nb(unseen & cards) / players
        if colour:
            hold /= 3.0
            lose = (in_hand / 3.0) - hold
            share /= 3.0
            partial = (held % 3) / 3.0
        else:
            lose = in_hand - hold
            partial = 0.0
        expected = now + hold + share + partial
        theirs = 0.0
        most = 0.0
        weighted = 0.0
        for s in range(players):
            if s != seat:
                x = pile_exposure_nb(sticker, np.uint64(pub[E.P_WON + s]))
                theirs += x
                most = max(most, x)
                weighted += (pub[E.P_CABBAGES + s] + 1) * x
        theirs /= max(players - 1, 1)
        earlier = now + ew[W_FUTURE] * (pile_exposure_nb(sticker, mine | hand) - now)
        earlier -= ew[W_OPPONENTS] * weighted / weight_sum
        for t in range(pub[E.P_N_TOKENS]):
            if pub[E.P_TOKEN_PLACED + t]:
                continue
            v = float(pub[E.P_TOKEN_VALUE + t])
            rest_mean = (free_sum - v) / (n_free - 1) if n_free > 1 else 0.0
            clear_nb(feats, j)
            score = put_nb(feats, j, w, row, PF_EARLIER, v * earlier - TIE * v)
            score += put_nb(feats, j, w, row, PF_NOW, v * now)
            score += put_nb(feats, j, w, row, PF_HAND, v * hold)
            score += put_nb(feats, j, w, row, PF_HAND_LOSE, v * lose)
            score += put_nb(feats, j, w, row, PF_UNSEEN, v * share)
            score += put_nb(feats, j, w, row, PF_PARTIAL, v * partial)
            score += put_nb(feats, j, w, row, PF_OTHERS, v * theirs)
            score += put_nb(feats, j, w, row, PF_OTHERS_MAX, v * most)
            score += put_nb(feats, j, w, row, PF_LATE, v * late)
            score += put_nb(feats, j, w, row, PF_FACE, v)
            score += put_nb(feats, j, w, row, PF_COLOUR, v * colour)
            score += put_nb(feats, j, w, row, PF_INSTEAD, (v - rest_mean) * expected)
            score += put_nb(feats, j, w, row, PF_LOSS_LOW, min(v * expected, 0.0) * low)
            # A plain ``if``: a conditional expression as put_nb's argument compiled to 0 once.
            worst = 0.0
            if v < 0 and v == lowest:
                worst = 1.0
            score += put_nb(feats, j, w, row, PF_LOWEST, worst)
            if score > top:
                top = score
                out[0] = m
                out[1] = t
                out[2] = E.NO_SIDE
            j += 1
    if pub[E.P_GOLDEN_SIDE] == E.NO_SIDE:
        own = min(hand_tricks_nb(hand, unseen), float(left))
        others = (left - own) / max(players - 1, 1)
        g = float(pub[E.P_GOLDEN_VALUE])
        soft = max(ew[W_GOLDEN_SOFT], 1e-3)
        gf = ew[W_GOLDEN_FUTURE]
        lo = 1 << 30
        hi = -1
        lo_n = 0
        hi_n = 0
        for s in range(players):
            x = pub[E.P_TRICKS + s]
            if x < lo:
                lo, lo_n = x, 1
            elif x == lo:
                lo_n += 1
            if x > hi:
                hi, hi_n = x, 1
            elif x == hi:
                hi_n += 1
        mine_tricks = pub[E.P_TRICKS + seat]
        ahead = (own - others) / max(left, 1)
        sevens_mine = popcount_nb(hand & SEVENS)
        sevens_out = popcount_nb(unseen & SEVENS)
        for side in (E.MIN_SIDE, E.MAX_SIDE):
            # The earlier hand-made score of this side.
            extreme = golden_extreme_nb(pub, seat, players, gf * own, gf * others, side)
            risk = golden_risk_at_nb(pub, seat, gf * own, gf * others, side, soft, seat, extreme)
            theirs = 0.0
            for s in range(players):
                if s != seat:
                    theirs += (pub[E.P_CABBAGES + s] + 1) * golden_risk_at_nb(
                        pub, seat, gf * own, gf * others, side, soft, s, extreme)
            earlier = -g * risk + ew[W_OPPONENTS] * g * theirs / weight_sum
            if side == E.MIN_SIDE:
                at_end = mine_tricks == lo
                alone = at_end and lo_n == 1
            else:
                at_end = mine_tricks == hi
                alone = at_end and hi_n == 1
            other = E.MAX_SIDE if side == E.MIN_SIDE else E.MIN_SIDE
            here = golden_extreme_nb(pub, seat, players, own, others, side)
            there = golden_extreme_nb(pub, seat, players, own, others, other)
            clear_nb(feats, j)
            score = put_nb(feats, j, w, row, PF_EARLIER, earlier)
            score += put_nb(feats, j, w, row, PF_GOLDEN, 1.0)
            score += put_nb(feats, j, w, row, PF_G_AT_END, -g * at_end)
            score += put_nb(feats, j, w, row, PF_G_ALONE, -g * alone)
            score += put_nb(feats, j, w, row, PF_G_RISK_SHARP,
                            -g * golden_risk_at_nb(pub, seat, own, others, side, 0.3, seat, here))
            score += put_nb(feats, j, w, row, PF_G_RISK_SOFT,
                            -g * golden_risk_at_nb(pub, seat, own, others, side, 2.0, seat, here))
            on_max = 1.0 if side == E.MAX_SIDE else 0.0
            score += put_nb(feats, j, w, row, PF_G_MAX, g * on_max)
            score += put_nb(feats, j, w, row, PF_G_MAX_LATE, g * late * on_max)
            score += put_nb(feats, j, w, row, PF_G_AT_END_LATE, -g * late * at_end)
            score += put_nb(feats, j, w, row, PF_G_LEAD, g * ahead * (1.0 - 2.0 * on_max))
            score += put_nb(feats, j, w, row, PF_G_OTHER_SHARP,
                            g * golden_risk_at_nb(pub, seat, own, others, other, 0.3, seat, there))
            score += put_nb(feats, j, w, row, PF_G_OTHER_SOFT,
                            g * golden_risk_at_nb(pub, seat, own, others, other, 2.0, seat, there))
            score += put_nb(feats, j, w, row, PF_G_SEVENS_OUT, g * sevens_out / 4.0)
            score += put_nb(feats, j, w, row, PF_G_SEVENS_MINE, g * sevens_mine / 4.0)
            if score > top:
                top = score
                out[0] = E.GOLDEN_SLOT
                out[1] = -1
                out[2] = side
            j += 1
    return row


# Placement weights that score by the hand-made feature alone.
HAND_MADE_PLACEMENT = np.zeros((N_PLACEMENT_CONTEXTS, N_PLACEMENT_FEATURES))
HAND_MADE_PLACEMENT[:, PF_EARLIER] = 1.0


@njit(cache=True)
def expert_placement_nb(pub, hand, w, out):
    """The hand-made placement score alone, with its weights ``w``
    (``expert_weights.py``): a machine's exposure counts the matching cards
    still in the seat's hand too, the others' exposure weighed toward the
    richest, and the golden token goes on the side that will hit others when
    the tricks are all played, judged from the tricks each hand can still
    win. The fitted score starts from it."""
    placement_features_nb(pub, hand, NO_FEATURES, HAND_MADE_PLACEMENT, w, out)


@njit(cache=True)
def expert_placement_search_nb(pub, hand, pw, w, samples, rng, out):
    """The placement scored best by :func:`placement_features_nb` with the
    weights ``pw``; when that is the golden token, whose side decides who
    pays at the end of the round, the seat weighs both sides on ``samples``
    imagined deals played out by ``greedy``, as ``lookahead`` does, and
    keeps the better (its own choice on a tie)."""
    placement_features_nb(pub, hand, NO_FEATURES, pw, w, out)
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


@njit(cache=True, error_model="numpy", _nrt=False)
def expert_card_default_nb(pub, hand, legal):
    return expert_card_nb(pub, hand, legal, EXPERT_CARD_WEIGHTS)


@njit(cache=True)
def expert_placement_default_nb(pub, hand, rng, out):
    expert_placement_search_nb(pub, hand, EXPERT_PLACEMENT_WEIGHTS, EXPERT_WEIGHTS, GOLDEN_SAMPLES, rng, out)


@njit(cache=True)
def expert_placement_at_nb(pub, hand, states, row, out):
    """:func:`expert_placement_default_nb` drawing from ``states[row]`` (the
    game kernel's streams). Without imagined deals nothing is drawn, and the
    stream's view (reference counted, per placement) is not built."""
    if GOLDEN_SAMPLES > 0:
        expert_placement_default_nb(pub, hand, states[row], out)
    else:
        placement_features_nb(pub, hand, NO_FEATURES, EXPERT_PLACEMENT_WEIGHTS, EXPERT_WEIGHTS, out)
