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
(``tools/train_expert_cards.py``), the placement weights
(``expert_placement_weights.py``) to its value of every placement
(``tools/train_expert_placements.py``); the hand-made placement score they
start from has its own weights (``expert_weights.py``, tuned by
``tools/train_expert.py``). The kernels take the weights as an argument so
a fit can try weights without compiling again.

Like every policy it reads only ``pub``, its own hand and its own random
stream (which it draws from only when ``GOLDEN_SAMPLES`` asks it to weigh
the golden token's side on imagined deals; by default it does not).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.extending import overload

from sim.bits import lowest_nb, pop_lowest_nb, popcount_nb, quotients_nb, stack_table_nb, sums_nb, tuple_item_nb
from sim.lasvegan import enums as E
from sim.lasvegan.expert_card_weights import EXPERT_CARD_WEIGHTS
from sim.lasvegan.expert_placement_weights import EXPERT_PLACEMENT_WEIGHTS
from sim.lasvegan.expert_weights import EXPERT_WEIGHTS
from sim.lasvegan.heuristics import (
    SEVEN_WORTH,
    ZEROS,
    beaters_nb,
    golden_pull_nb,
    later_seats_nb,
    lead_takers_nb,
    machine_terms_nb,
    machine_danger_nb,
    machine_weight_nb,
    pile_exposure_nb,
    shed_score_nb,
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


# 1 / (1 + k): a card's chance to win its trick when k unseen cards of its
# suit beat it, each the float the division gives.
HOLD_ODDS = 1.0 / (1.0 + np.arange(E.N_CARDS + 1))


@njit(cache=True, inline="always")
def hand_holds_nb(cards, unseen):
    """The cards of ``cards`` (in the seat's hand), each counted by its chance
    to take its trick: 1 over one more than the unseen cards above it in its suit."""
    hold = 0.0
    rest = cards
    while rest:
        card, bit, rest = pop_lowest_nb(rest)
        hold += HOLD_ODDS[popcount_nb(unseen & SUIT_MASK[card // 10] & ~((bit << np.uint64(1)) - np.uint64(1)))]
    return hold


@njit(cache=True, inline="always")
def hand_tricks_nb(hand, unseen):
    """Tricks a hand may still win: its cards no unseen card of the suit beats,
    and its 0s (which win when thrown on another suit), counted fractionally."""
    return hand_holds_nb(hand, unseen) + 0.5 * popcount_nb(hand & ZEROS)


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
def others_nb(pub, seat, players):
    """``(n0, n1, n2, n3, richest, fewest, most)``: how many other seats have
    shown a void in each suit, the most cabbages another seat holds, and
    the fewest and most tricks another seat has won, in one pass."""
    richest = -1
    fewest = 1 << 30
    most = -1
    n0 = 0
    n1 = 0
    n2 = 0
    n3 = 0
    for s in range(players):
        other = s != seat
        richest = max(richest, pub[E.P_CABBAGES + s] if other else -1)
        tricks = pub[E.P_TRICKS + s]
        fewest = min(fewest, tricks if other else 1 << 30)
        most = max(most, tricks if other else -1)
        v = pub[E.P_VOIDS + s] & -other
        n0 += v & 1
        n1 += (v >> 1) & 1
        n2 += (v >> 2) & 1
        n3 += (v >> 3) & 1
    return n0, n1, n2, n3, richest, fewest, most


@njit(cache=True, inline="always")
def taken_worths_nb(pub, bare):
    """What a card is worth on each machine to another seat that takes it:
    the machine's face for a card alone, a colour machine's at a third."""
    w0 = machine_weight_nb(pub, 0, bare)
    w1 = machine_weight_nb(pub, 1, bare)
    w2 = machine_weight_nb(pub, 2, bare)
    if pub[E.P_MACHINES + 0] < E.POINTS_BASE:
        w0 /= 3.0
    if pub[E.P_MACHINES + 1] < E.POINTS_BASE:
        w1 /= 3.0
    if pub[E.P_MACHINES + 2] < E.POINTS_BASE:
        w2 /= 3.0
    return w0, w1, w2


@njit(cache=True, inline="always")
def card_decision_nb(pub, hand, legal, trick_now):
    """What every legal card of a decision shares, worked out once:
    ``(row, unseen, takers, table, greedy_base, seven)``: the weights' row
    (kind of choice and table size), the unseen cards, the cards that take
    the trick as it stands, the terms of :func:`card_sums_nb`'s ``table``,
    and what :func:`greedy_score_nb` adds to every card's worth.
    ``trick_now`` is the trick so far (:func:`heuristics.trick_so_far_nb`)."""
    seat = seat_to_move_nb(pub)
    players = pub[E.P_PLAYERS]
    won = np.uint64(pub[E.P_WON + seat])
    total, n_free = unplaced_tokens_nb(pub)
    bare = total / n_free if n_free else 0.0
    unseen = unseen_cards_nb(pub, hand)
    n_unseen = popcount_nb(unseen)
    later_cards, later_voids = later_seats_nb(pub)
    q = later_cards / n_unseen if n_unseen else 0.0
    led, best, zero, trick = trick_now
    later = players - 1 - pub[E.P_TRICK_LEN]
    tricks_left = TENTHS[pub[E.P_HAND_SIZE + seat]]

    cards0, worth0, add0, danger0, unseen0 = machine_view_nb(pub, 0, bare, won, trick, unseen)
    cards1, worth1, add1, danger1, unseen1 = machine_view_nb(pub, 1, bare, won, trick, unseen)
    cards2, worth2, add2, danger2, unseen2 = machine_view_nb(pub, 2, bare, won, trick, unseen)
    unseen_worth = (unseen0 + unseen1 + unseen2) / n_unseen if n_unseen else 0.0
    w0, w1, w2 = taken_worths_nb(pub, bare)

    trick_worth = worth0 + worth1 + worth2
    later_worth = later * unseen_worth
    free = free_slot_left_nb(pub, n_free)
    sevens_in_trick = popcount_nb(trick & SEVENS)
    starting = max(pub[E.P_STARTING], 1)
    low = max(0.0, 1.0 - pub[E.P_CABBAGES + seat] / starting)
    n0, n1, n2, n3, richest, fewest, most = others_nb(pub, seat, players)
    golden = golden_pull_nb(pub, seat, fewest, most)
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
            # Every suit, with no branch on which the hand holds (no card reads the others').
            sw = (suit_worth_nb(unseen, free, 0, later, m0, m1, m2), suit_worth_nb(unseen, free, 1, later, m0, m1, m2),
                  suit_worth_nb(unseen, free, 2, later, m0, m1, m2), suit_worth_nb(unseen, free, 3, later, m0, m1, m2))
    suit_voids = (float(n0), float(n1), float(n2), float(n3))
    others = players - 1
    void_share = (SHARES[others, n0], SHARES[others, n1], SHARES[others, n2], SHARES[others, n3])
    keep = keep_powers_nb(q)
    table = (players, led, later, q, later_voids, free, low, ahead, tricks_left, golden,
             trick_worth, later_worth, sevens_in_trick, other_zeros, cards0, add0, danger0, w0,
             cards1, add1, danger1, w1, cards2, add2, danger2, w2, sw, suit_voids, void_share, keep)

    # greedy's judgement of each card (heuristics.greedy_card_nb, the same floats).
    to_come = later_worth if later else 0.0
    greedy_base = trick_worth + to_come + golden
    seven = SEVEN_WORTH if free else 0.0
    takers = legal & lead_takers_nb(led, best, zero)

    context = CTX_LEAD
    if led >= 0:
        context = CTX_FOLLOW if legal & SUIT_MASK[led] else CTX_DISCARD
    row = 3 * min(max(players - 3, 0), 2) + context
    return row, unseen, takers, table, greedy_base, seven


@njit(cache=True, inline="always")
def next_card_nb(rest):
    """The lowest card of the non-empty mask ``rest``: ``(card, its bit, the
    mask without it, its suit, its value)``."""
    card, bit, rest = pop_lowest_nb(rest)
    suit = card // 10
    return card, bit, rest, suit, card - 10 * suit


@njit(cache=True, inline="always")
def two_best_nb(card, score, best, best_top, second, second_top):
    """The two best cards and their scores once ``card`` scores ``score``
    (cards come lowest first; on a tie the earlier stays ahead), as selects:
    which card leads changes from card to card, and no predictor guesses it."""
    better = score > best_top
    return (card if better else best, score if better else best_top,
            best if better else (card if score > second_top else second),
            best_top if better else max(second_top, score))


@njit(cache=True, inline="always")
def running_best_nb(card, score, kept, best, best_top, best_kept):
    """The running best card once ``card`` scores ``score`` (the earlier kept
    on a tie), with a number ``kept`` that goes with it, as selects, like
    :func:`two_best_nb`: greedy's card among the legal ones."""
    better = score > best_top
    return (card if better else best, score if better else best_top, kept if better else best_kept)


@njit(cache=True, inline="always")
def greedy_score_nb(card, bit, takes, p, table, greedy_base, seven):
    """``greedy``'s score of ``card`` (:func:`heuristics.greedy_card_nb`, the
    same floats), from the chance ``p`` that it holds: greedy plays the
    card that scores highest."""
    (players, led, later, q, later_voids, free, low, ahead, tricks_left, golden,
     trick_worth, later_worth, sevens_in_trick, other_zeros, cards0, add0, danger0, w0,
     cards1, add1, danger1, w1, cards2, add2, danger2, w2, suit_worths, suit_voids, void_share, keep) = table
    ev = 0.0
    if takes:
        ev = p * won_trick_worth_nb(card, bit, greedy_base, seven, sevens_in_trick, cards0, add0, cards1, add1,
                                    cards2, add2)
    if ev > 0.0:
        return ev - GREEDY_TIE * (card % 10)
    return ev + GREEDY_TIE * shed_score_nb(card, bit, led, cards0, danger0, cards1, danger1, cards2, danger2)


@njit(cache=True, inline="always")
def score_cards_nb(pub, hand, legal, feats, w):
    """:func:`card_features_nb`, inlined into the fit's kernels.

    What every card shares is worked out once per decision
    (:func:`card_decision_nb`), ``greedy``'s judgement of each card included
    (its chance to hold is the one the features use), so greedy is not
    asked separately. Each card's terms are summed twice in one pass, in
    the same fixed order: without the greedy feature, and with it for the
    case that it is greedy's card. The card greedy plays keeps the second
    sum, every other card the first, and the best (the lowest on a tie) is
    played: each score is the same float the features' sum in card order
    gives.
    """
    row, unseen, takers, table, greedy_base, seven = card_decision_nb(pub, hand, legal, trick_so_far_nb(pub))
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
        greedy_score = greedy_score_nb(card, bit, takes, p, table, greedy_base, seven)
        if greedy_score > greedy_top:
            greedy_top = greedy_score
            greedy = card
            greedy_j = j
            greedy_sum = as_greedy
        first, first_top, second, second_top = two_best_nb(card, plain, first, first_top, second, second_top)
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


# The card weights folded for play (fold_card_weights): per row, the terms
# that depend on one small count read as one number each (a card's value;
# unseen cards above and below it; the cards of its suit left in hand; the
# unseen cards of its suit), then the weights of the other terms.
FO_VALUE = 0  # 10: value/9, a 7, a 0, a low card, by value
FO_HIGHER = 10  # 10: unseen cards above it / 9, and none above, by count
FO_LOWER = 20  # 10: unseen cards below it / 9, by count
FO_LENGTH = 30  # 10: cards of its suit left after it / 9, and void, by count
FO_SUIT_UNSEEN = 40  # 11: unseen cards of its suit / 10, by count
FO_SCALARS = 51
# The weights of the other terms, in the order of F_*, from FO_SCALARS on.
FOLDED_SCALARS = (F_GREEDY, F_WINS, F_HOLD, F_TRICK_WORTH, F_LATER_WORTH, F_GOLDEN, F_SEVENS, F_LOSS, F_OWN_WORTH,
                  F_GIVEN, F_TOP, F_SUIT_VOIDS, F_HOLD_LATE, F_HOLD_EARLY_SEVEN, F_LEAD_WORTH, F_OWN_LATE,
                  F_SUIT_LATER, F_LOSE_SUIT_LATER, F_LEAD_SUIT_ZEROS)
FO_GREEDY, FO_WINS, FO_HOLD, FO_TRICK_WORTH, FO_LATER_WORTH, FO_GOLDEN, FO_SEVENS, FO_LOSS, FO_OWN_WORTH, \
    FO_GIVEN, FO_TOP, FO_SUIT_VOIDS, FO_HOLD_LATE, FO_HOLD_EARLY_SEVEN, FO_LEAD_WORTH, FO_OWN_LATE, \
    FO_SUIT_LATER, FO_LOSE_SUIT_LATER, FO_LEAD_SUIT_ZEROS = range(FO_SCALARS, FO_SCALARS + len(FOLDED_SCALARS))
N_FOLDED = FO_SCALARS + len(FOLDED_SCALARS)


def fold_card_weights(w) -> np.ndarray:
    """The card weights ``w`` (one row per context, one column per feature of
    :func:`card_features_nb`) as :func:`expert_card_nb` plays them: every
    term that is a weight times a function of one small count (a card's
    value, the unseen cards above or below it, the cards its suit keeps in
    hand, the unseen cards of its suit) becomes one number per count, so a
    card's score is a few table reads instead of twenty-nine products."""
    w = np.asarray(w, dtype=np.float64)
    if w.shape != (N_CONTEXTS, N_FEATURES):
        raise ValueError(f"card weights must have shape {(N_CONTEXTS, N_FEATURES)}, got {w.shape}")
    k = np.arange(10)
    column = lambda f: w[:, f:f + 1]  # noqa: E731
    fold = np.zeros((N_CONTEXTS, N_FOLDED))
    fold[:, FO_VALUE:FO_VALUE + 10] = (column(F_VALUE) * NINTHS[k + 1] + column(F_SEVEN) * (k == E.SEVEN)
                                       + column(F_ZERO) * (k == 0) + column(F_LOW_CARD) * (k <= 2))
    fold[:, FO_HIGHER:FO_HIGHER + 10] = column(F_HIGHER) * NINTHS[k + 1] + column(F_BIAS_HIGHER0) * (k == 0)
    fold[:, FO_LOWER:FO_LOWER + 10] = column(F_LOWER) * NINTHS[k + 1]
    fold[:, FO_LENGTH:FO_LENGTH + 10] = column(F_LENGTH) * NINTHS[k + 1] + column(F_VOID) * (k == 0)
    fold[:, FO_SUIT_UNSEEN:FO_SUIT_UNSEEN + 11] = column(F_SUIT_UNSEEN) * TENTHS[:11]
    fold[:, FO_SCALARS:] = w[:, list(FOLDED_SCALARS)]
    return fold


# The shipped weights as the player reads them.
EXPERT_CARD_FOLD = fold_card_weights(EXPERT_CARD_WEIGHTS)


@njit(cache=True, inline="always")
def suit_part_nb(fold, row, hand, unseen, suit, other_zeros, shown_void, void_share):
    """The terms every card of ``suit`` shares that do not depend on the trick:
    the cards of the suit left in hand, the other seats shown void in it,
    its unseen cards and the unseen 0s of other suits those voids may throw
    (for a suit not in the hand, a number no card reads)."""
    in_suit = SUIT_MASK[suit]
    length = max(popcount_nb(hand & in_suit) - 1, 0)
    k = popcount_nb(unseen & in_suit)
    zeros = other_zeros - popcount_nb(unseen & ZEROS & in_suit)
    return (fold[row, FO_LENGTH + length] + fold[row, FO_SUIT_VOIDS] * void_share + fold[row, FO_SUIT_UNSEEN + k]
            + fold[row, FO_LEAD_SUIT_ZEROS] * (zeros * shown_void / 4.0))


@njit(cache=True, inline="always")
def no_zero_nb(unseen, led, q, later_voids):
    """The chance that no unseen 0 of a suit other than ``led`` beats a card
    winning a trick of suit ``led``: :func:`holds_from_nb`'s factors for
    those 0s, multiplied in the same order."""
    _, beating, risk = beaters_nb(10 * led, led, unseen, q, later_voids)
    f = 1.0 - risk
    f2 = f * f
    # Read, not branched on: how many such 0s are unseen changes from one decision to the next.
    return tuple_item_nb((1.0, f, f2, f2 * f), beating)


@njit(cache=True, inline="always")
def suit_terms_nb(fold, row, hand, unseen, suit, led, q, later_voids, other_zeros, suit_worth, shown_void,
                  void_share):
    """What every legal card of ``suit`` shares: ``(the terms of its suit,
    the weight of its chance to hold on the later seats' worth of the suit,
    the chance no unseen 0 of another suit beats it)``."""
    part = (suit_part_nb(fold, row, hand, unseen, suit, other_zeros, shown_void, void_share)
            + fold[row, FO_LOSE_SUIT_LATER] * suit_worth)
    holds = (fold[row, FO_SUIT_LATER] - fold[row, FO_LOSE_SUIT_LATER]) * suit_worth
    return part, holds, no_zero_nb(unseen, suit if led < 0 else led, q, later_voids)


# Before a choice's first card: ``(best card, its score, second best, its
# score, greedy's card, its greedy score, its score before the greedy term)``.
NO_CARD_YET = (-1, -np.inf, -1, -np.inf, -1, -np.inf, 0.0)


@njit(cache=True, inline="always")
def no_taker_nb(pub, hand, legal, led, fold):
    """:func:`expert_card_nb` when a trick is led and no legal card takes it,
    some four choices in ten: following suit with only cards that lose, or
    discarding with no 0. No card's chance to hold is needed, and the terms
    of the trick and of the later seats are the same for every card, so a
    card's score keeps its own terms (its value, the unseen cards above and
    below it, a top card, a 7 kept, its worth on the machines to the seat
    and to whoever takes it) and, when discarding, its suit's. The card
    played is the one the whole score picks, but for scores equal to the
    last bits of a float."""
    seat = seat_to_move_nb(pub)
    players = pub[E.P_PLAYERS]
    following = (legal & SUIT_MASK[led]) != 0
    row = 3 * min(max(players - 3, 0), 2) + (CTX_FOLLOW if following else CTX_DISCARD)
    won = np.uint64(pub[E.P_WON + seat])
    total, n_free = unplaced_tokens_nb(pub)
    bare = total / n_free if n_free else 0.0
    unseen = unseen_cards_nb(pub, hand)
    cards0, danger0 = machine_danger_nb(pub, 0, bare, won)
    cards1, danger1 = machine_danger_nb(pub, 1, bare, won)
    cards2, danger2 = machine_danger_nb(pub, 2, bare, won)
    w0, w1, w2 = taken_worths_nb(pub, bare)
    tricks_left = TENTHS[pub[E.P_HAND_SIZE + seat]]
    seven_kept = fold[row, FO_HOLD_EARLY_SEVEN] * tricks_left if free_slot_left_nb(pub, n_free) else 0.0
    own_weight = fold[row, FO_OWN_WORTH] + fold[row, FO_OWN_LATE] * tricks_left
    top_weight = fold[row, FO_TOP]
    given_weight = fold[row, FO_GIVEN]
    # Discarding, the cards' suits differ: each suit's terms (the later seats' worth of the trick is the led suit's,
    # the same for every card).
    by_suit = stack_table_nb((0.0, 0.0, 0.0, 0.0))
    if not following:
        n0, n1, n2, n3, _, _, _ = others_nb(pub, seat, players)
        others = players - 1
        other_zeros = popcount_nb(unseen & ZEROS)
        by_suit = stack_table_nb((suit_part_nb(fold, row, hand, unseen, 0, other_zeros, n0, SHARES[others, n0]),
                                  suit_part_nb(fold, row, hand, unseen, 1, other_zeros, n1, SHARES[others, n1]),
                                  suit_part_nb(fold, row, hand, unseen, 2, other_zeros, n2, SHARES[others, n2]),
                                  suit_part_nb(fold, row, hand, unseen, 3, other_zeros, n3, SHARES[others, n3])))
    best, best_top, second, second_top, greedy, greedy_top, greedy_plain = NO_CARD_YET
    rest = legal
    while rest:
        card, bit, rest, suit, value = next_card_nb(rest)
        m0 = np.float64((bit & cards0) != 0)
        m1 = np.float64((bit & cards1) != 0)
        m2 = np.float64((bit & cards2) != 0)
        own = 0.0 - danger0 * m0 - danger1 * m1 - danger2 * m2
        given = 0.0 + w0 * m0 + w1 * m1 + w2 * m2
        in_suit = SUIT_MASK[suit]
        above = in_suit & ~((bit << np.uint64(1)) - np.uint64(1))
        score = (fold[row, FO_VALUE + value] + by_suit[suit] + fold[row, FO_HIGHER + popcount_nb(unseen & above)]
                 + fold[row, FO_LOWER + popcount_nb(unseen & in_suit & ~above & ~bit)] + own_weight * own
                 + given_weight * given)
        score += top_weight * np.float64((hand & above) == 0)
        score += seven_kept * np.float64(value == E.SEVEN)
        # greedy sheds its highest card following suit, its most dangerous discarding.
        if following:
            greedy_score = 0.0 + GREEDY_TIE * (value + 0.1 * -own)
        else:
            greedy_score = 0.0 + GREEDY_TIE * (10.0 * -own + value)
        greedy, greedy_top, greedy_plain = running_best_nb(card, greedy_score, score, greedy, greedy_top,
                                                           greedy_plain)
        best, best_top, second, second_top = two_best_nb(card, score, best, best_top, second, second_top)
    return greedy_or_other_nb(fold[row, FO_GREEDY], greedy, greedy_plain, best, best_top, second, second_top)


@njit(cache=True, inline="always")
def greedy_or_other_nb(greedy_weight, greedy, greedy_plain, best, best_top, second, second_top):
    """The card played, from greedy's card with its score before the greedy
    term and the two best scores before it: greedy's card with its term
    added against the best other card, the lower card on a tie."""
    as_greedy = greedy_plain + greedy_weight
    other, other_top = (second, second_top) if best == greedy else (best, best_top)
    if other < 0 or as_greedy > other_top or (as_greedy == other_top and greedy < other):
        return greedy
    return other


@njit(cache=True, inline="always")
def score_legal_nb(context, args):
    """:func:`expert_card_nb`'s loop over the legal cards of a choice of kind
    ``context`` (a constant where it is called, so each kind's loop drops
    what the kind decides: leading, every card takes the trick as it
    stands; leading and following, every card is of the trick's suit),
    with the decision's terms ``args`` (as :func:`expert_card_nb` packs
    them). Returns ``(best card, its score, second, its score, greedy's
    card, its score before the greedy term)``."""
    (legal, takers, hand, unseen, fold, row, later, by_suit, keeps, cards0, cards1, cards2, danger0, danger1, danger2,
     add0, add1, add2, w0, w1, w2, greedy_base, seven, sevens_in_trick, own_weight, top_weight, seven_kept, holds,
     trick_weight, seven_holds, wins, loss_weight, worth, seven_worth, given_weight) = args
    best, best_top, second, second_top, greedy, greedy_top, greedy_plain = NO_CARD_YET
    rest = legal
    while rest:
        card, bit, rest, suit, value = next_card_nb(rest)
        is_seven = value == E.SEVEN
        seven_f = np.float64(is_seven)
        takes_f = 1.0 if context == CTX_LEAD else np.float64((bit & takers) != 0)
        m0 = np.float64((bit & cards0) != 0)
        m1 = np.float64((bit & cards1) != 0)
        m2 = np.float64((bit & cards2) != 0)
        own = 0.0 - danger0 * m0 - danger1 * m1 - danger2 * m2
        add = 0.0 + add0 * m0 + add1 * m1 + add2 * m2
        given = 0.0 + w0 * m0 + w1 * m1 + w2 * m2
        greedy_worth = greedy_base + seven * (sevens_in_trick + is_seven) + add0 * m0 + add1 * m1 + add2 * m2
        in_suit = SUIT_MASK[suit]
        above = in_suit & ~((bit << np.uint64(1)) - np.uint64(1))
        higher = popcount_nb(unseen & above)
        lower = popcount_nb(unseen & in_suit & ~above & ~bit)
        score = (fold[row, FO_VALUE + value] + by_suit[suit] + fold[row, FO_HIGHER + higher]
                 + fold[row, FO_LOWER + lower] + own_weight * own)
        score += top_weight * np.float64((hand & above) == 0)
        score += seven_kept * seven_f
        in_led = context != CTX_DISCARD
        held = 1.0 if later == 0 else keeps[higher if in_led else 0] * by_suit[8 + suit]
        p = held * takes_f
        gain = holds + trick_weight * add + by_suit[4 + suit] + seven_holds * seven_f
        score += wins * takes_f + p * gain + loss_weight * (p * min(worth + add + seven_worth * seven_f, 0.0))
        ev = p * greedy_worth
        score += given_weight * ((1.0 - p) * given)
        shed = (value + 0.1 * -own) if in_led else (10.0 * -own + value)
        greedy_score = (ev - GREEDY_TIE * value) if ev > 0.0 else (ev + GREEDY_TIE * shed)
        greedy, greedy_top, greedy_plain = running_best_nb(card, greedy_score, score, greedy, greedy_top,
                                                           greedy_plain)
        best, best_top, second, second_top = two_best_nb(card, score, best, best_top, second, second_top)
    return best, best_top, second, second_top, greedy, greedy_plain


# error_model="numpy": every division is guarded already. _nrt=False: a
# decision allocates nothing, and reference counts on the observation cost
# atomic updates (as in greedy).
@njit(cache=True, error_model="numpy", _nrt=False)
def expert_card_nb(pub, hand, legal, fold):
    """expert — plays the card a distilled judgement of ``lookahead`` scores best.

    Every legal card is described by the features of
    :func:`card_features_nb` and scored by the weights of the kind of
    choice (leading, following suit, discarding) at this table size, fitted
    so that the scores follow ``lookahead``'s own estimate of each card
    (``tools/train_expert_cards.py``). On a tie it plays the lowest card.

    The weights come folded (:func:`fold_card_weights`) and the score is
    the features' weighted sum with its terms grouped by what they depend
    on: the decision, the card's suit (worked out once per suit), the card.
    So a score may differ from :func:`card_features_nb`'s in the last bits
    of a float, and the card played only where two cards' scores are that
    close. The chance a card holds is the features' too, its factors for
    the unseen 0s of other suits multiplied out once per suit.
    """
    if legal & (legal - np.uint64(1)) == 0:
        return lowest_nb(legal)
    trick_now = trick_so_far_nb(pub)
    led, best, zero, _ = trick_now
    if led >= 0 and not legal & lead_takers_nb(led, best, zero):
        return no_taker_nb(pub, hand, legal, led, fold)
    row, unseen, takers, table, greedy_base, seven = card_decision_nb(pub, hand, legal, trick_now)
    (players, led, later, q, later_voids, free, low, ahead, tricks_left, golden,
     trick_worth, later_worth, sevens_in_trick, other_zeros, cards0, add0, danger0, w0,
     cards1, add1, danger1, w1, cards2, add2, danger2, w2, suit_worths, suit_voids, void_share, keep) = table
    # The decision's part of a taking card's terms, and of every card's.
    holds = (fold[row, FO_HOLD] + fold[row, FO_TRICK_WORTH] * trick_worth + fold[row, FO_LATER_WORTH] * later_worth
             + fold[row, FO_GOLDEN] * golden + fold[row, FO_HOLD_LATE] * tricks_left
             + fold[row, FO_LEAD_WORTH] * ahead)
    worth = trick_worth + later_worth + golden
    seven_holds = 0.0
    seven_kept = 0.0
    seven_worth = 0.0
    if free:
        holds += fold[row, FO_SEVENS] * sevens_in_trick
        worth += 0.5 * sevens_in_trick
        seven_holds = fold[row, FO_SEVENS]
        seven_kept = fold[row, FO_HOLD_EARLY_SEVEN] * tricks_left
        seven_worth = 0.5
    own_weight = fold[row, FO_OWN_WORTH] + fold[row, FO_OWN_LATE] * tricks_left
    loss_weight = fold[row, FO_LOSS] * low
    wins = fold[row, FO_WINS]
    top_weight = fold[row, FO_TOP]
    given_weight = fold[row, FO_GIVEN]
    trick_weight = fold[row, FO_TRICK_WORTH]
    if led >= 0 and legal & SUIT_MASK[led]:
        # Following suit: every legal card is of the led suit.
        sl, hl, zl = suit_terms_nb(fold, row, hand, unseen, led, led, q, later_voids, other_zeros, suit_worths[led],
                                   suit_voids[led], void_share[led])
        by_suit = stack_table_nb((sl, sl, sl, sl, hl, hl, hl, hl, zl, zl, zl, zl))
    else:
        s0, h0, z0 = suit_terms_nb(fold, row, hand, unseen, 0, led, q, later_voids, other_zeros, suit_worths[0],
                                   suit_voids[0], void_share[0])
        s1, h1, z1 = suit_terms_nb(fold, row, hand, unseen, 1, led, q, later_voids, other_zeros, suit_worths[1],
                                   suit_voids[1], void_share[1])
        s2, h2, z2 = suit_terms_nb(fold, row, hand, unseen, 2, led, q, later_voids, other_zeros, suit_worths[2],
                                   suit_voids[2], void_share[2])
        s3, h3, z3 = suit_terms_nb(fold, row, hand, unseen, 3, led, q, later_voids, other_zeros, suit_worths[3],
                                   suit_voids[3], void_share[3])
        by_suit = stack_table_nb((s0, s1, s2, s3, h0, h1, h2, h3, z0, z1, z2, z3))
    keeps = stack_table_nb(keep)
    # The same loop three times, each knowing the kind of choice: leading, every card takes the trick as
    # it stands and is of the suit it leads; following suit, every card is of the led suit; discarding, none.
    args = (legal, takers, hand, unseen, fold, row, later, by_suit, keeps, cards0, cards1, cards2, danger0, danger1,
            danger2, add0, add1, add2, w0, w1, w2, greedy_base, seven, sevens_in_trick, own_weight, top_weight,
            seven_kept, holds, trick_weight, seven_holds, wins, loss_weight, worth, seven_worth, given_weight)
    if led < 0:
        best, best_top, second, second_top, greedy, greedy_plain = score_legal_nb(CTX_LEAD, args)
    elif legal & SUIT_MASK[led]:
        best, best_top, second, second_top, greedy, greedy_plain = score_legal_nb(CTX_FOLLOW, args)
    else:
        best, best_top, second, second_top, greedy, greedy_plain = score_legal_nb(CTX_DISCARD, args)
    return greedy_or_other_nb(fold[row, FO_GREEDY], greedy, greedy_plain, best, best_top, second, second_top)


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
def near_end_nb(gap, soft):
    """How near a seat ``gap`` projected tricks from the penalised end is to
    it, from 0 to 1, ``soft`` saying how fast that falls with the gap."""
    return 1.0 / (1.0 + gap / soft)


assert E.MAX_PLAYERS == 5, "expert_placement_choice_nb asks seat_gaps_nb of five seats"
assert E.MAX_TOKENS == 8, "expert_placement_choice_nb keeps eight tokens' terms"


@njit(cache=True, inline="always")
def seat_gaps_nb(pub, s, seat, players, damped_others, damped_fewest, damped_most):
    """Seat ``s``'s part in the others' risk at the golden ends, for the
    earlier score: ``(its projected tricks' gap to the fewest, to the most,
    its weight: its cabbages + 1)``; a seat that is not another seat at
    the table gets gaps of 0 (a nearness of 1) and weight 0, so it adds
    0.0 to the sums. The placement asks it of seats 0 to 4, the largest
    table."""
    counted = s < players and s != seat
    damped = pub[E.P_TRICKS + s] + damped_others
    return (damped - damped_fewest if counted else 0.0, damped_most - damped if counted else 0.0,
            float(pub[E.P_CABBAGES + s] + 1) if counted else 0.0)


@njit(cache=True, inline="always")
def near_ends_nb(gaps, softs):
    """:func:`near_end_nb` of each gap with its softness, the divisions done
    together (:func:`sim.bits.quotients_nb`): the same floats."""
    return quotients_nb(1.0, sums_nb(1.0, quotients_nb(gaps, softs)))


@njit(cache=True, inline="always")
def golden_risk_at_nb(pub, seat, own, others, side, soft, target, extreme):
    """How near seat ``target``'s projected tricks are to the penalised end
    ``extreme`` (:func:`golden_extreme_nb`), from 0 to 1: the risks of every
    seat share one pass over the table."""
    proj = pub[E.P_TRICKS + target] + (own if target == seat else others)
    return near_end_nb(proj - extreme if side == E.MIN_SIDE else extreme - proj, soft)


@njit(cache=True, inline="always")
def placement_setup_nb(pub, hand):
    """What every option of a placement shares: ``(seat, players, weights'
    row, unseen cards, the seat's won cards, cards left in hand, that / 10, how low the seat's
    cabbages are, the others' cabbages + 1 summed, free tokens, their faces
    summed, the lowest face or 0)``."""
    seat = seat_to_move_nb(pub)
    players = pub[E.P_PLAYERS]
    row = min(max(players - 3, 0), 2)
    unseen = unseen_cards_nb(pub, hand)
    mine = np.uint64(pub[E.P_WON + seat])
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
    return seat, players, row, unseen, mine, left, late, low, weight_sum, n_free, free_sum, lowest


@njit(cache=True, inline="always")
def machine_hand_nb(pub, m, mine, hand, unseen):
    """Machine ``m`` for the seat with won cards ``mine``: ``(sticker, whether
    it counts a colour, the cards it counts, the seat's exposure now, its
    won cards there, its matching cards in hand each counted by its chance
    to take its trick, its matching cards in hand)``."""
    sticker = pub[E.P_MACHINES + m]
    colour = sticker < E.POINTS_BASE
    cards = SUIT_MASK[sticker] if colour else VALUE_MASK[sticker - E.POINTS_BASE]
    now = pile_exposure_nb(sticker, mine)
    held = popcount_nb(mine & cards)
    hold = hand_holds_nb(hand & cards, unseen)
    return sticker, colour, cards, now, held, hold, popcount_nb(hand & cards)


@njit(cache=True, inline="always")
def machine_others_nb(pub, seat, players, sticker, mine, hand, now, weight_sum, ew):
    """The other seats on the machine with ``sticker``: ``(their mean exposure,
    the most exposed one's, the hand-made score of one point of face there)``,
    the last from the seat's exposure ``now``, its won cards ``mine`` and its
    hand, and the others' exposure weighed by their cabbages."""
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
    return theirs, most, earlier


@njit(cache=True, inline="always")
def golden_setup_nb(pub, hand, unseen, left, players, ew):
    """What both sides of the golden token share: ``(the tricks the seat's
    hand may still win, those each other seat may, the penalty, the
    softness of the risk, the damping of the projection, the fewest tricks
    won so far and how many seats have them, the most and how many)``."""
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
    return own, others, g, soft, gf, lo, lo_n, hi, hi_n


@njit(cache=True)
def placement_features_nb(pub, hand, feats, w, ew, out):
    """Score every placement the seat may make with the weights ``w`` of its
    table size, put the best in ``out`` and return the context. Options come
    in ``lookahead``'s order (machines, then tokens, then MIN and MAX); the
    features of the ``j``-th go to ``feats[j]`` unless it is read-only.
    ``ew`` are the hand-made weights whose score is feature PF_EARLIER."""
    seat, players, row, unseen, mine, left, late, low, weight_sum, n_free, free_sum, lowest = placement_setup_nb(pub, hand)
    out[0] = -1
    out[1] = -1
    out[2] = E.NO_SIDE
    top = -np.inf
    j = 0
    for m in range(E.MACHINES_PER_ROUND):
        if pub[E.P_MACHINE_TOKEN + m] >= 0 or n_free == 0:
            continue
        sticker, colour, cards, now, held, hold, in_hand = machine_hand_nb(pub, m, mine, hand, unseen)
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
        theirs, most, earlier = machine_others_nb(pub, seat, players, sticker, mine, hand, now, weight_sum, ew)
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
        own, others, g, soft, gf, lo, lo_n, hi, hi_n = golden_setup_nb(pub, hand, unseen, left, players, ew)
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


# k / 3 and, per table size n, k cards / n and that / 3: the floats the divisions give.
THIRDS = np.arange(0, E.N_CARDS + 1) / 3.0
CARD_SHARES = np.array([[k / max(n, 1) for k in range(E.N_CARDS + 1)] for n in range(E.MAX_PLAYERS + 1)])
CARD_SHARE_THIRDS = CARD_SHARES / 3.0


@njit(cache=True, inline="always")
def first_of_face_nb(pub):
    """The free tokens that show a face no earlier free token shows, as a
    bit mask: on one machine tokens of the same face score the same and the
    first of them is kept, so only these need scoring."""
    firsts = 0
    seen = 0
    for t in range(pub[E.P_N_TOKENS]):
        if pub[E.P_TOKEN_PLACED + t]:
            continue
        face = pub[E.P_TOKEN_VALUE + t]
        known = False
        rest = seen
        while rest:
            u = lowest_nb(rest)
            rest &= rest - 1
            known |= pub[E.P_TOKEN_VALUE + u] == face
        if not known:
            firsts |= 1 << t
        seen |= 1 << t
    return firsts


@njit(cache=True, error_model="numpy", _nrt=False)
def expert_placement_choice_nb(pub, hand, w, ew, out):
    """The placement :func:`placement_features_nb` scores best with the
    weights ``w``, to ``out``, without writing any feature: each option's
    score is the features' weighted sum with its terms grouped by what they
    depend on. An ordinary token's terms are, all but three, its face times
    a term of the machine, so each machine's are summed once, and a token
    showing the face of an earlier free token is not scored again (it
    would tie, and the earlier is kept). The golden token's two sides share
    their passes over the table and the seat's nearness to each end. A
    score may differ from the features' sum in the last bits of a float,
    and the placement only where two options' scores are that close."""
    seat, players, row, unseen, mine, left, late, low, weight_sum, n_free, free_sum, lowest = placement_setup_nb(pub, hand)
    firsts = first_of_face_nb(pub)
    # Each token's own terms, the same on every machine: its face, how far it is above the other free
    # tokens' mean face, the bonus for the lowest face when below 0.
    faces = stack_table_nb((0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    instead = stack_table_nb((0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    lowest_bonus = stack_table_nb((0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    rest = firsts
    while rest:
        t = lowest_nb(rest)
        rest &= rest - 1
        v = float(pub[E.P_TOKEN_VALUE + t])
        faces[t] = v
        instead[t] = v - ((free_sum - v) / (n_free - 1) if n_free > 1 else 0.0)
        lowest_bonus[t] = w[row, PF_LOWEST] if v < 0 and v == lowest else 0.0
    # The best option so far is kept as selects and written to ``out`` once: which option leads changes
    # from one to the next, and no predictor guesses it.
    best_m = -1
    best_t = -1
    best_side = E.NO_SIDE
    top = -np.inf
    for m in range(E.MACHINES_PER_ROUND):
        if pub[E.P_MACHINE_TOKEN + m] >= 0 or n_free == 0:
            continue
        sticker, colour, cards, now, held, hold, in_hand = machine_hand_nb(pub, m, mine, hand, unseen)
        share = CARD_SHARES[players, popcount_nb(unseen & cards)]
        if colour:
            hold /= 3.0
            lose = THIRDS[in_hand] - hold
            share = CARD_SHARE_THIRDS[players, popcount_nb(unseen & cards)]
            partial = THIRDS[held % 3]
        else:
            lose = in_hand - hold
            partial = 0.0
        expected = now + hold + share + partial
        theirs, most, earlier = machine_others_nb(pub, seat, players, sticker, mine, hand, now, weight_sum, ew)
        # What one point of face is worth on this machine: every term that is the face times a term of it.
        per_face = (w[row, PF_EARLIER] * (earlier - TIE) + w[row, PF_NOW] * now + w[row, PF_HAND] * hold
                    + w[row, PF_HAND_LOSE] * lose + w[row, PF_UNSEEN] * share + w[row, PF_PARTIAL] * partial
                    + w[row, PF_OTHERS] * theirs + w[row, PF_OTHERS_MAX] * most + w[row, PF_LATE] * late
                    + w[row, PF_FACE] + w[row, PF_COLOUR] * colour)
        rest = firsts
        while rest:
            t = lowest_nb(rest)
            rest &= rest - 1
            v = faces[t]
            score = (v * per_face + w[row, PF_INSTEAD] * (instead[t] * expected)
                     + w[row, PF_LOSS_LOW] * (min(v * expected, 0.0) * low)) + lowest_bonus[t]
            better = score > top
            top = score if better else top
            best_m = m if better else best_m
            best_t = t if better else best_t
    if pub[E.P_GOLDEN_SIDE] == E.NO_SIDE:
        own, others, g, soft, gf, lo, lo_n, hi, hi_n = golden_setup_nb(pub, hand, unseen, left, players, ew)
        # The ends of the projected tricks, with and without the earlier score's damping.
        mine_tricks = pub[E.P_TRICKS + seat]
        fewest = 1e9
        most_tricks = -1e9
        damped_fewest = 1e9
        damped_most = -1e9
        for s in range(players):
            x = pub[E.P_TRICKS + s]
            proj = x + (own if s == seat else others)
            fewest = min(fewest, proj)
            most_tricks = max(most_tricks, proj)
            damped = x + (gf * own if s == seat else gf * others)
            damped_fewest = min(damped_fewest, damped)
            damped_most = max(damped_most, damped)
        ahead = (own - others) / max(left, 1)
        sevens = (w[row, PF_G_SEVENS_OUT] * (g * popcount_nb(unseen & SEVENS) / 4.0)
                  + w[row, PF_G_SEVENS_MINE] * (g * popcount_nb(hand & SEVENS) / 4.0))
        # Every nearness to an end the two sides read, worked out together (the divider is what they wait on):
        # each other seat's to either end, weighed by its cabbages, for the earlier score; the seat's own
        # to either end, sharp and soft; the seat's own to either end with the earlier score's damping.
        damped_others = gf * others
        g0 = seat_gaps_nb(pub, 0, seat, players, damped_others, damped_fewest, damped_most)
        g1 = seat_gaps_nb(pub, 1, seat, players, damped_others, damped_fewest, damped_most)
        g2 = seat_gaps_nb(pub, 2, seat, players, damped_others, damped_fewest, damped_most)
        g3 = seat_gaps_nb(pub, 3, seat, players, damped_others, damped_fewest, damped_most)
        g4 = seat_gaps_nb(pub, 4, seat, players, damped_others, damped_fewest, damped_most)
        projected = mine_tricks + own
        damped_mine = mine_tricks + gf * own
        near = near_ends_nb((g0[0], g0[1], g1[0], g1[1], g2[0], g2[1], g3[0], g3[1], g4[0], g4[1],
                             projected - fewest, projected - fewest, most_tricks - projected, most_tricks - projected,
                             damped_mine - damped_fewest, damped_most - damped_mine),
                            (soft, soft, soft, soft, soft, soft, soft, soft, soft, soft,
                             0.3, 2.0, 0.3, 2.0, soft, soft))
        theirs_min = 0.0 + g0[2] * near[0] + g1[2] * near[2] + g2[2] * near[4] + g3[2] * near[6] + g4[2] * near[8]
        theirs_max = 0.0 + g0[2] * near[1] + g1[2] * near[3] + g2[2] * near[5] + g3[2] * near[7] + g4[2] * near[9]
        min_sharp, min_soft, max_sharp, max_soft, risk_min, risk_max = near[10:]
        opponents = ew[W_OPPONENTS] * g
        theirs_min, theirs_max = quotients_nb((opponents * theirs_min, opponents * theirs_max),
                                              (weight_sum, weight_sum))
        for side in (E.MIN_SIDE, E.MAX_SIDE):
            on_max = side == E.MAX_SIDE
            earlier = -g * (risk_max if on_max else risk_min) + (theirs_max if on_max else theirs_min)
            if on_max:
                at_end = mine_tricks == hi
                alone = at_end and hi_n == 1
            else:
                at_end = mine_tricks == lo
                alone = at_end and lo_n == 1
            score = (w[row, PF_EARLIER] * earlier + w[row, PF_GOLDEN] + w[row, PF_G_AT_END] * (-g * at_end)
                     + w[row, PF_G_ALONE] * (-g * alone)
                     + w[row, PF_G_RISK_SHARP] * (-g * (max_sharp if on_max else min_sharp))
                     + w[row, PF_G_RISK_SOFT] * (-g * (max_soft if on_max else min_soft))
                     + w[row, PF_G_AT_END_LATE] * (-g * late * at_end)
                     + w[row, PF_G_OTHER_SHARP] * (g * (min_sharp if on_max else max_sharp))
                     + w[row, PF_G_OTHER_SOFT] * (g * (min_soft if on_max else max_soft))
                     + sevens)
            if on_max:
                score += w[row, PF_G_MAX] * g + w[row, PF_G_MAX_LATE] * (g * late) - w[row, PF_G_LEAD] * (g * ahead)
            else:
                score += w[row, PF_G_LEAD] * (g * ahead)
            better = score > top
            top = score if better else top
            best_m = E.GOLDEN_SLOT if better else best_m
            best_t = -1 if better else best_t
            best_side = side if better else best_side
    out[0] = best_m
    out[1] = best_t
    out[2] = best_side
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
    expert_placement_choice_nb(pub, hand, pw, w, out)
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
    return expert_card_nb(pub, hand, legal, EXPERT_CARD_FOLD)


@njit(cache=True)
def expert_placement_default_nb(pub, hand, rng, out):
    expert_placement_search_nb(pub, hand, EXPERT_PLACEMENT_WEIGHTS, EXPERT_WEIGHTS, GOLDEN_SAMPLES, rng, out)


# _nrt=False: the game kernel calls this for every placement, and reference
# counts on its arrays cost atomic updates (as on the card choice).
@njit(cache=True, _nrt=False)
def expert_placement_at_nb(pub, hand, states, row, out):
    """:func:`expert_placement_default_nb` drawing from ``states[row]`` (the
    game kernel's streams). Without imagined deals nothing is drawn, and the
    stream's view is not built."""
    if GOLDEN_SAMPLES > 0:
        expert_placement_default_nb(pub, hand, states[row], out)
    else:
        expert_placement_choice_nb(pub, hand, EXPERT_PLACEMENT_WEIGHTS, EXPERT_WEIGHTS, out)
