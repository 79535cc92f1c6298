"""The ``expert`` policy: ``lookahead``'s judgement distilled into scores it
computes from the observation alone, with no rollout: a card by what the
trick is worth and who will take it, what the card is worth to whoever takes
it, what the hand keeps after it, how the golden machine and the seat's
cabbages weigh one more trick; a token by what its machine will count for the
seat by the end of the round, the golden token by how likely the seat is to
end the round at the penalised end. It reads only ``pub`` and its own hand.

Each score is written once, as the player computes it (:func:`choose_card_nb`,
:func:`choose_placement_nb`), and is linear in its weights, one per feature
(``F_*``, ``PF_*``) and kind of choice: an option's feature is its score under
the weights that are 1 on that feature and 0 elsewhere. So the fits
(``tools/train_expert_cards.py``, ``tools/train_expert_placements.py``) see the
very terms the player sums (:func:`card_features_nb`, :func:`placement_features_nb`).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit
from numba.extending import overload

from sim.bits import lowest_nb, pop_lowest_nb, popcount_nb, quotients_nb, stack_table_nb, sums_nb, tuple_item_nb
from sim.lasvegan import enums as E
from sim.lasvegan.expert_card_weights import EXPERT_CARD_WEIGHTS
from sim.lasvegan.expert_placement_weights import EXPERT_PLACEMENT_WEIGHTS
from sim.lasvegan.expert_weights import EXPERT_WEIGHTS
from sim.lasvegan.heuristics import (SEVEN_WORTH, ZEROS, beaters_nb, golden_pull_nb, later_seats_nb, lead_takers_nb,
                                     machine_danger_nb, machine_terms_nb, machine_weight_nb, pile_exposure_nb,
                                     trick_so_far_nb, unseen_cards_nb)
from sim.lasvegan.heuristics import TIE  # tie-breaks, far below any real difference
from sim.lasvegan.mechanics import SEVENS, SUIT_MASK, VALUE_MASK, free_slot_left_nb, seat_to_move_nb, unplaced_tokens_nb

# The hand-made placement score's weights, in EXPERT_WEIGHTS (tools/train_expert.py).
W_FUTURE = 0  # weight of the cards of a machine still in the seat's hand
W_OPPONENTS = 1  # weight of the others' exposure against the seat's own
W_GOLDEN_FUTURE = 2  # placing the golden token, weight of the tricks the hands will still win
W_GOLDEN_SOFT = 3  # how sharply a seat's golden-token risk grows near the penalised end

# Small whole numbers over 3, 9 and 10, and k of n, each the float the division gives: read, not divided.
NINTHS = np.arange(-1, 11) / 9.0  # NINTHS[k + 1] == k / 9.0
TENTHS = np.arange(0, E.N_CARDS + 1) / 10.0  # a hand holds at most all the cards
THIRDS = np.arange(0, E.N_CARDS + 1) / 3.0
SHARES = np.array([[k / max(n, 1) for k in range(E.N_CARDS + 1)] for n in range(E.MAX_PLAYERS + 1)])
SHARE_THIRDS = SHARES / 3.0
# 1 / (1 + k): a card's chance to win its trick when k unseen cards of its suit beat it.
HOLD_ODDS = 1.0 / (1.0 + np.arange(E.N_CARDS + 1))


def keep_score_nb(scores, j, score):
    """Option ``j`` scores ``score``: kept in ``scores`` unless read-only (the player's: it writes nothing)."""


@overload(keep_score_nb, inline="always")
def _keep_score_nb(scores, j, score):
    if not scores.mutable:
        return lambda scores, j, score: None

    def keep(scores, j, score):
        scores[j] = score

    return keep


NO_SCORES = np.zeros(0)  # the player's
NO_SCORES.flags.writeable = False


# --- cards ------------------------------------------------------------------------

# Kinds of card choice, each with its own weights: leading a trick, following
# suit, discarding; one set of the three per table size (3 and 2, 4, 5 players).
CTX_LEAD = 0
CTX_FOLLOW = 1
CTX_DISCARD = 2
N_CONTEXTS = 9
# Features of a card. "chance" is the chance it wins the trick once every seat has played.
F_GREEDY = 0  # the card greedy would play
F_WINS = 1  # the card wins the trick as it stands
F_HOLD = 2  # chance
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
F_SUIT_VOIDS = 18  # share of the other seats shown void in its suit (they may throw a 0 on it)
F_HOLD_LATE = 19  # chance x tricks left / 10: winning now keeps the lead for more tricks
F_HOLD_EARLY_SEVEN = 20  # the card is a 7 kept in hand while tokens remain (x tricks left / 10)
F_LEAD_WORTH = 21  # chance x how far the seat leads (or trails) the game in cabbages / 10
F_OWN_LATE = 22  # own worth x tricks left / 10: a bad card held is a risk for longer
F_LOW_CARD = 23  # a low card kept for ducking: value <= 2
F_BIAS_HIGHER0 = 24  # no unseen card of its suit above it: a sure winner later
F_SUIT_LATER = 25  # chance x later cards x mean worth of the unseen cards of the trick's suit
F_SUIT_UNSEEN = 26  # unseen cards of its suit / 10: few, and the others throw off-suit cards on it
F_LOSE_SUIT_LATER = 27  # (1 - chance) x later cards x that mean worth (taken by another seat)
F_LEAD_SUIT_ZEROS = 28  # unseen 0s of other suits x shown voids in the card's suit / 4
N_FEATURES = 29

# The card weights folded (fold_card_weights), per row: the terms of a card's value, the unseen cards above
# and below it, the cards its suit keeps in hand and the unseen cards of its suit, each one number per count;
# then the weights as they are, from W on (the weight of feature F_x is fold[row, W + F_x]).
FO_VALUE = 0  # 10: value/9, a 7, a 0, a low card, by value
FO_HIGHER = 10  # 10: unseen cards above it / 9, and none above, by count
FO_LOWER = 20  # 10: unseen cards below it / 9, by count
FO_LENGTH = 30  # 10: cards of its suit left after it / 9, and void, by count
FO_SUIT_UNSEEN = 40  # 11: unseen cards of its suit / 10, by count
W = 51
N_FOLDED = W + N_FEATURES


def fold_card_weights(w) -> np.ndarray:
    """The card weights ``w`` (one row per context, one column per feature) as
    :func:`choose_card_nb` reads them: a card's score is then a few table reads
    instead of twenty-nine products."""
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
    fold[:, W:] = w
    return fold


# The shipped weights as the player reads them, and each feature's unit weights.
EXPERT_CARD_FOLD = fold_card_weights(EXPERT_CARD_WEIGHTS)
# Read-only, as the jitted player holds them (numba freezes a global array read-only): a call from Python with
# them (the fits, the tests) is the player's own compiled choice, not another specialisation of it.
for _shipped in (EXPERT_CARD_FOLD, EXPERT_PLACEMENT_WEIGHTS, EXPERT_WEIGHTS):
    _shipped.flags.writeable = False
UNIT_CARD_FOLDS = np.stack([fold_card_weights(np.eye(N_FEATURES)[[f] * N_CONTEXTS]) for f in range(N_FEATURES)])


# What every legal card of a decision shares (card_terms_nb): the weights' row, the kind of choice, the legal
# cards, the hand, the unseen cards, the legal cards that take the trick as it stands; per machine its cards, the
# cost of a matching card alone in the seat's pile, its worth to a seat that takes it; per suit (a stack table)
# its terms, the weight of a card's chance to hold on the later seats' worth of it, the chance no unseen 0 beats
# it; the weights of a card's own worth, a top card, its worth given away, a 7 kept. Then the trick's (0 when no
# card takes it): the later seats, (1 - q) ** k (no later seat holds one of k unseen cards), each machine's worth
# of one more card, the weights of taking the trick as it stands, of holding it (but for the card's own terms),
# of the card's worth in it, of a 7 in it, of a loss; the trick's worth, a 7's, greedy's.
CardTerms = namedtuple("CardTerms", "row context legal hand unseen takers cards danger taken by_suit own_weight "
                       "top_weight given_weight seven_kept later keeps add wins holds trick_weight seven_holds "
                       "loss_weight worth seven_worth greedy_base seven sevens_in_trick")


# Inlined where called once or twice in the player (the card loop, its running best, the seats' pass, the
# placements' terms): expert plays about 1.15x the games a second; inlining the rest too tripled the compile.
@njit(cache=True, inline="always")
def others_nb(pub, seat, players):
    """``((seats shown void in each suit), the most cabbages another seat holds,
    the fewest and the most tricks another seat has won)`` of the other seats, in one pass."""
    richest = most = -1
    fewest = 1 << 30
    n0 = n1 = n2 = n3 = 0
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
    return (n0, n1, n2, n3), richest, fewest, most


@njit(cache=True, inline="always")
def taken_worth_nb(pub, m, bare):
    """What a card matching machine ``m`` is worth to another seat that takes it:
    the machine's face for a card alone, a colour machine's at a third."""
    w = machine_weight_nb(pub, m, bare)
    return w / 3.0 if pub[E.P_MACHINES + m] < E.POINTS_BASE else w


@njit(cache=True, error_model="numpy")
def machine_view_nb(pub, m, bare, won, trick, unseen):
    """Machine ``m`` for the seat with won pile ``won``: :func:`heuristics.machine_terms_nb` and the summed
    worth of the unseen cards (a colour machine's at a third)."""
    cards, worth, add, danger = machine_terms_nb(pub, m, bare, won, trick)
    seen = machine_weight_nb(pub, m, bare) * popcount_nb(unseen & cards)
    return cards, worth, add, danger, seen / 3.0 if pub[E.P_MACHINES + m] < E.POINTS_BASE else seen


@njit(cache=True, error_model="numpy")
def machine_suits_nb(pub, m, bare, unseen, seen):
    """Machine ``m``'s part in what an unseen card of each suit is worth, once per decision: ``(colour suit,
    worth, value cards, face)``: a colour machine's suit and ``seen``; a points machine's unseen cards and face."""
    sticker = pub[E.P_MACHINES + m]
    if sticker < E.POINTS_BASE:
        return sticker, seen, np.uint64(0), 0.0
    return -1, 0.0, unseen & VALUE_MASK[sticker - E.POINTS_BASE], machine_weight_nb(pub, m, bare)


@njit(cache=True, error_model="numpy")
def suit_worth_nb(unseen, free, suit, later, m0, m1, m2):
    """What the ``later`` seats add to a trick of ``suit`` when they follow: ``later`` x the mean worth of an
    unseen card of the suit (0 if none is unseen), the machines' parts (:func:`machine_suits_nb`) summed in
    machine order, a 7 at 0.5 while a slot is free."""
    in_suit = unseen & SUIT_MASK[suit]
    k = popcount_nb(in_suit)
    total = 0.0
    total += m0[1] if m0[0] == suit else m0[3] * popcount_nb(m0[2] & in_suit)
    total += m1[1] if m1[0] == suit else m1[3] * popcount_nb(m1[2] & in_suit)
    total += m2[1] if m2[0] == suit else m2[3] * popcount_nb(m2[2] & in_suit)
    total += 0.5 if free and in_suit & SEVENS else 0.0
    return later * (total / k) if k else 0.0


@njit(cache=True, error_model="numpy")
def suit_part_nb(fold, row, hand, unseen, suit, other_zeros, shown_void, void_share):
    """The terms every card of ``suit`` shares that do not depend on the trick: its cards left in hand, the
    others shown void in it, its unseen cards, the unseen 0s of other suits those voids may throw."""
    in_suit = SUIT_MASK[suit]
    length = max(popcount_nb(hand & in_suit) - 1, 0)
    k = popcount_nb(unseen & in_suit)
    zeros = other_zeros - popcount_nb(unseen & ZEROS & in_suit)
    return (fold[row, FO_LENGTH + length] + fold[row, W + F_SUIT_VOIDS] * void_share
            + fold[row, FO_SUIT_UNSEEN + k] + fold[row, W + F_LEAD_SUIT_ZEROS] * (zeros * shown_void / 4.0))


@njit(cache=True, error_model="numpy")
def suit_terms_nb(fold, row, hand, unseen, suit, led, q, later_voids, other_zeros, suit_worth, shown_void,
                  void_share):
    """What every legal card of ``suit`` shares when a card may take the trick: ``(the terms of its suit, the
    weight of its chance to hold on the later seats' worth of it, the chance no unseen 0 of another suit beats it)``."""
    part = (suit_part_nb(fold, row, hand, unseen, suit, other_zeros, shown_void, void_share)
            + fold[row, W + F_LOSE_SUIT_LATER] * suit_worth)
    holds = (fold[row, W + F_SUIT_LATER] - fold[row, W + F_LOSE_SUIT_LATER]) * suit_worth
    trick_suit = suit if led < 0 else led
    _, beating, risk = beaters_nb(10 * trick_suit, trick_suit, unseen, q, later_voids)
    f = 1.0 - risk
    f2 = f * f
    # Read, not branched on: how many such 0s are unseen changes from one decision to the next.
    return part, holds, tuple_item_nb((1.0, f, f2, f2 * f), beating)


# Inlined: the terms' tables are on its caller's stack (sim.bits.stack_table_nb), where they must outlive it. Machine
# and suit numbers go over as np.int64: a literal int compiles its callee once per value (docs/developing.md).
@njit(cache=True, inline="always")
def card_terms_nb(pub, hand, legal, fold, trick_now, takers):
    """:class:`CardTerms` of a card choice with the folded weights ``fold``. When the trick is led and no
    legal card takes it (some four choices in ten), the trick's and the later seats' terms, the same for
    every card, are left out, and when following suit so are the suit's."""
    seat = seat_to_move_nb(pub)
    players = pub[E.P_PLAYERS]
    led, _, _, trick = trick_now
    context = CTX_LEAD
    if led >= 0:
        context = CTX_FOLLOW if legal & SUIT_MASK[led] else CTX_DISCARD
    row = 3 * min(max(players - 3, 0), 2) + context
    won = np.uint64(pub[E.P_WON + seat])
    total, n_free = unplaced_tokens_nb(pub)
    bare = total / n_free if n_free else 0.0
    unseen = unseen_cards_nb(pub, hand)
    tricks_left = TENTHS[pub[E.P_HAND_SIZE + seat]]
    free = free_slot_left_nb(pub, n_free)
    seven_kept = fold[row, W + F_HOLD_EARLY_SEVEN] * tricks_left if free else 0.0
    own_weight = fold[row, W + F_OWN_WORTH] + fold[row, W + F_OWN_LATE] * tricks_left
    others = players - 1
    later = 0
    add = (0.0, 0.0, 0.0)
    wins = holds = trick_weight = seven_holds = loss_weight = worth = seven_worth = greedy_base = seven = 0.0
    sevens_in_trick = 0
    if not takers:
        cards0, danger0 = machine_danger_nb(pub, 0, bare, won)
        cards1, danger1 = machine_danger_nb(pub, 1, bare, won)
        cards2, danger2 = machine_danger_nb(pub, 2, bare, won)
        by_suit = stack_table_nb((0.0, 0.0, 0.0, 0.0))
        if context == CTX_DISCARD:
            voids, _, _, _ = others_nb(pub, seat, players)
            other_zeros = popcount_nb(unseen & ZEROS)

            def part(s):
                return suit_part_nb(fold, row, hand, unseen, np.int64(s), other_zeros, voids[s], SHARES[others, voids[s]])
            by_suit = stack_table_nb((part(0), part(1), part(2), part(3)))
        keeps = by_suit
    else:
        n_unseen = popcount_nb(unseen)
        later_cards, later_voids = later_seats_nb(pub)
        q = later_cards / n_unseen if n_unseen else 0.0
        later = players - 1 - pub[E.P_TRICK_LEN]
        cards0, worth0, add0, danger0, seen0 = machine_view_nb(pub, np.int64(0), bare, won, trick, unseen)
        cards1, worth1, add1, danger1, seen1 = machine_view_nb(pub, np.int64(1), bare, won, trick, unseen)
        cards2, worth2, add2, danger2, seen2 = machine_view_nb(pub, np.int64(2), bare, won, trick, unseen)
        add = (add0, add1, add2)
        unseen_worth = (seen0 + seen1 + seen2) / n_unseen if n_unseen else 0.0
        trick_worth = worth0 + worth1 + worth2
        later_worth = later * unseen_worth
        sevens_in_trick = popcount_nb(trick & SEVENS)
        starting = max(pub[E.P_STARTING], 1)
        low = max(0.0, 1.0 - pub[E.P_CABBAGES + seat] / starting)
        voids, richest, fewest, most = others_nb(pub, seat, players)
        golden = golden_pull_nb(pub, seat, fewest, most)
        ahead = (pub[E.P_CABBAGES + seat] - richest) / 10.0
        other_zeros = popcount_nb(unseen & ZEROS)
        # What the later seats add to a trick of a suit: the led suit's for every card, or when leading each
        # card's own (every suit, with no branch on which the hand holds).
        sw = (0.0, 0.0, 0.0, 0.0)
        if later:
            m0 = machine_suits_nb(pub, np.int64(0), bare, unseen, seen0)
            m1 = machine_suits_nb(pub, np.int64(1), bare, unseen, seen1)
            m2 = machine_suits_nb(pub, np.int64(2), bare, unseen, seen2)

            def suit_worth(s):
                return suit_worth_nb(unseen, free, np.int64(s), later, m0, m1, m2)
            if led >= 0:
                x = suit_worth(led)
                sw = (x, x, x, x)
            else:
                sw = (suit_worth(0), suit_worth(1), suit_worth(2), suit_worth(3))
        holds = (fold[row, W + F_HOLD] + fold[row, W + F_TRICK_WORTH] * trick_worth
                 + fold[row, W + F_LATER_WORTH] * later_worth + fold[row, W + F_GOLDEN] * golden
                 + fold[row, W + F_HOLD_LATE] * tricks_left + fold[row, W + F_LEAD_WORTH] * ahead)
        worth = trick_worth + later_worth + golden
        if free:
            holds += fold[row, W + F_SEVENS] * sevens_in_trick
            worth += 0.5 * sevens_in_trick
            seven_holds = fold[row, W + F_SEVENS]
            seven_worth = 0.5
        loss_weight = fold[row, W + F_LOSS] * low
        wins = fold[row, W + F_WINS]
        trick_weight = fold[row, W + F_TRICK_WORTH]
        greedy_base = trick_worth + (later_worth if later else 0.0) + golden
        seven = SEVEN_WORTH if free else 0.0

        def terms(s):
            n = tuple_item_nb(voids, s)
            return suit_terms_nb(fold, row, hand, unseen, np.int64(s), led, q, later_voids, other_zeros,
                                 tuple_item_nb(sw, s), float(n), SHARES[others, n])
        if context == CTX_FOLLOW:  # every legal card is of the led suit
            sl, hl, zl = terms(led)
            by_suit = stack_table_nb((sl, sl, sl, sl, hl, hl, hl, hl, zl, zl, zl, zl))
        else:
            (s0, h0, z0), (s1, h1, z1), (s2, h2, z2), (s3, h3, z3) = terms(0), terms(1), terms(2), terms(3)
            by_suit = stack_table_nb((s0, s1, s2, s3, h0, h1, h2, h3, z0, z1, z2, z3))
        keeps = stack_table_nb((1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0))
        for k in range(1, 10):  # one factor at a time
            keeps[k] = keeps[k - 1] * (1.0 - q)
    return CardTerms(row=row, context=context, legal=legal, hand=hand, unseen=unseen, takers=takers,
                     cards=(cards0, cards1, cards2), danger=(danger0, danger1, danger2),
                     taken=(taken_worth_nb(pub, np.int64(0), bare), taken_worth_nb(pub, np.int64(1), bare),
                            taken_worth_nb(pub, np.int64(2), bare)),
                     by_suit=by_suit, own_weight=own_weight,
                     top_weight=fold[row, W + F_TOP], given_weight=fold[row, W + F_GIVEN], seven_kept=seven_kept,
                     later=later, keeps=keeps, add=add, wins=wins, holds=holds, trick_weight=trick_weight,
                     seven_holds=seven_holds, loss_weight=loss_weight, worth=worth, seven_worth=seven_worth,
                     greedy_base=greedy_base, seven=seven, sevens_in_trick=sevens_in_trick)


@njit(cache=True, inline="always")
def two_best_nb(card, score, best, best_top, second, second_top):
    """The two best cards and their scores once ``card`` scores ``score`` (on a tie the earlier stays ahead), as
    selects: which card leads changes from card to card, and no predictor guesses it."""
    better = score > best_top
    return (card if better else best, score if better else best_top,
            best if better else (card if score > second_top else second),
            best_top if better else max(second_top, score))


@njit(cache=True, inline="always")
def score_cards_nb(context, none_takes, t, fold, scores):
    """Every legal card's score (the ``j``-th, lowest first, to ``scores[j]``) but the greedy term, for a choice
    of kind ``context`` in which some card takes the trick or ``none_takes`` (one loop for every kind: a copy per
    kind compiled several times slower for no measured speed), and ``greedy``'s judgement of each card
    (:func:`heuristics.greedy_card_nb`, the same floats). Returns ``(best, its score, second, its score, greedy's
    card, its score)``."""
    row = t.row
    best = second = greedy = np.int64(-1)
    best_top = second_top = greedy_top = -np.inf
    greedy_plain = 0.0
    j = 0
    rest = t.legal
    while rest:
        card, bit, rest = pop_lowest_nb(rest)
        suit = card // 10
        value = card - 10 * suit
        is_seven = value == E.SEVEN
        seven_f = np.float64(is_seven)
        m0 = np.float64((bit & t.cards[0]) != 0)
        m1 = np.float64((bit & t.cards[1]) != 0)
        m2 = np.float64((bit & t.cards[2]) != 0)
        own = 0.0 - t.danger[0] * m0 - t.danger[1] * m1 - t.danger[2] * m2
        given = 0.0 + t.taken[0] * m0 + t.taken[1] * m1 + t.taken[2] * m2
        in_suit = SUIT_MASK[suit]
        above = in_suit & ~((bit << np.uint64(1)) - np.uint64(1))
        higher = popcount_nb(t.unseen & above)
        score = (fold[row, FO_VALUE + value] + t.by_suit[suit] + fold[row, FO_HIGHER + higher]
                 + fold[row, FO_LOWER + popcount_nb(t.unseen & in_suit & ~above & ~bit)] + t.own_weight * own)
        if none_takes:
            score += t.given_weight * given
        score += t.top_weight * np.float64((t.hand & above) == 0)
        score += t.seven_kept * seven_f
        ev = 0.0
        if not none_takes:
            takes_f = 1.0 if context == CTX_LEAD else np.float64((bit & t.takers) != 0)
            add = 0.0 + t.add[0] * m0 + t.add[1] * m1 + t.add[2] * m2
            greedy_worth = (t.greedy_base + t.seven * (t.sevens_in_trick + is_seven) + t.add[0] * m0
                            + t.add[1] * m1 + t.add[2] * m2)
            held = 1.0 if t.later == 0 else t.keeps[higher if context != CTX_DISCARD else 0] * t.by_suit[8 + suit]
            p = held * takes_f
            gain = t.holds + t.trick_weight * add + t.by_suit[4 + suit] + t.seven_holds * seven_f
            score += t.wins * takes_f + p * gain + t.loss_weight * (p * min(t.worth + add + t.seven_worth * seven_f,
                                                                            0.0))
            ev = p * greedy_worth
            score += t.given_weight * ((1.0 - p) * given)
        keep_score_nb(scores, j, score)
        j += 1
        # greedy sheds its highest card following suit, its most dangerous discarding.
        shed = (value + 0.1 * -own) if context != CTX_DISCARD else (10.0 * -own + value)
        greedy_score = (ev - TIE * value) if ev > 0.0 else (ev + TIE * shed)
        # The running best of greedy's scores as selects, like two_best_nb.
        better = greedy_score > greedy_top
        greedy, greedy_top, greedy_plain = (card if better else greedy, greedy_score if better else greedy_top,
                                            score if better else greedy_plain)
        best, best_top, second, second_top = two_best_nb(card, score, best, best_top, second, second_top)
    return best, best_top, second, second_top, greedy, greedy_plain


@njit(cache=True, error_model="numpy")
def choose_card_nb(pub, hand, legal, fold, scores):
    """``(the weights' row, the card played, greedy's card)`` with the folded
    weights ``fold``; each legal card's score (lowest card first) to ``scores``."""
    trick_now = trick_so_far_nb(pub)
    led, best, zero, _ = trick_now
    takers = legal & lead_takers_nb(led, best, zero)
    t = card_terms_nb(pub, hand, legal, fold, trick_now, takers)
    scored = score_cards_nb(t.context, not takers, t, fold, scores)
    best, best_top, second, second_top, greedy, greedy_plain = scored
    # Greedy's card with the greedy term against the best other card, the lower card on a tie.
    as_greedy = greedy_plain + fold[t.row, W + F_GREEDY]
    other, other_top = (second, second_top) if best == greedy else (best, best_top)
    if other < 0 or as_greedy > other_top or (as_greedy == other_top and greedy < other):
        return t.row, greedy, greedy
    return t.row, other, greedy


# error_model="numpy": every division is guarded already. _nrt=False: a
# decision allocates nothing, and reference counts on the observation cost
# atomic updates (as in greedy; tests/test_numba_range.py says why numba is pinned).
@njit(cache=True, error_model="numpy", _nrt=False)
def expert_card_nb(pub, hand, legal, fold):
    """expert — plays the card a distilled judgement of ``lookahead`` scores best.

    Every legal card is scored by the weights ``fold`` (:func:`fold_card_weights`)
    of the kind of choice (leading, following suit, discarding) at this table
    size, fitted so that the scores follow ``lookahead``'s own estimate of each
    card (``tools/train_expert_cards.py``). On a tie it plays the lowest card."""
    if legal & (legal - np.uint64(1)) == 0:
        return lowest_nb(legal)
    return choose_card_nb(pub, hand, legal, fold, NO_SCORES)[1]


@njit(cache=True, error_model="numpy")
def card_scores_nb(pub, hand, legal, fold, scores):
    """:func:`expert_card_nb` with every legal card's score (greedy's term
    included) written to ``scores``, lowest card first: ``(row, card played)``."""
    row, card, greedy = choose_card_nb(pub, hand, legal, fold, scores)
    scores[popcount_nb(legal & ((np.uint64(1) << np.uint64(greedy)) - np.uint64(1)))] += fold[row, W + F_GREEDY]
    return row, card


@njit(cache=True, error_model="numpy")
def card_features_nb(pub, hand, legal, feats):
    """The features of every legal card (lowest first) to ``feats[j]``, each its score under that feature's unit
    weights; returns the weights' row (the kind of choice plus 3 x (players - 3), from 0 at 2 and 3 players)."""
    row = 0
    for f in range(N_FEATURES):
        scores = feats[:, f].copy()  # contiguous, as the tests' and the fits' scores: one compiled card score
        row, _ = card_scores_nb(pub, hand, legal, UNIT_CARD_FOLDS[f], scores)
        feats[:, f] = scores
    return row


# --- token placements ---------------------------------------------------------------

# Features of a placement, with one weight vector per table size (3 and 2, 4, 5
# players). An ordinary option puts token face v on machine m; a golden option
# puts the golden token (penalty g) on one side.
N_PLACEMENT_CONTEXTS = 3
PF_EARLIER = 0  # the hand-made score (EXPERT_WEIGHTS)
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

# Placement weights that score by one feature alone: the hand-made score, and each feature's unit weights.
UNIT_PLACEMENT = np.stack([np.eye(N_PLACEMENT_FEATURES)[[f] * N_PLACEMENT_CONTEXTS]
                           for f in range(N_PLACEMENT_FEATURES)])
HAND_MADE_PLACEMENT = UNIT_PLACEMENT[PF_EARLIER]

assert E.MAX_PLAYERS == 5, "choose_placement_nb asks five seats' gaps to the golden ends"
assert E.MAX_TOKENS == 8, "choose_placement_nb keeps eight tokens' terms"


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
def machine_others_nb(pub, seat, players, sticker, mine, hand, now, weight_sum, ew):
    """The other seats on the machine with ``sticker``: ``(their mean exposure,
    the most exposed one's, the hand-made score of one point of face there)``,
    the last from the seat's exposure ``now``, its won cards and its hand,
    and the others' exposure weighed by their cabbages."""
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
def scored_tokens_nb(pub, every):
    """The free tokens to score, as a bit mask: all of them if ``every``, else
    those showing a face no earlier free token shows (on one machine tokens of
    the same face score the same, and the first of them is kept)."""
    firsts = 0
    seen = 0
    for t in range(pub[E.P_N_TOKENS]):
        if pub[E.P_TOKEN_PLACED + t]:
            continue
        face = pub[E.P_TOKEN_VALUE + t]
        known = False
        rest = seen
        while rest and not every:
            u = lowest_nb(rest)
            rest &= rest - 1
            known |= pub[E.P_TOKEN_VALUE + u] == face
        if not known:
            firsts |= 1 << t
        seen |= 1 << t
    return firsts


@njit(cache=True, inline="always")
def near_ends_nb(gaps, softs):
    """``1 / (1 + gap / soft)`` for each gap, the divisions done together (:func:`sim.bits.quotients_nb`)."""
    return quotients_nb(1.0, sums_nb(1.0, quotients_nb(gaps, softs)))


@njit(cache=True, error_model="numpy")
def choose_placement_nb(pub, hand, w, ew, every, scores, out):
    """The placement scored best with the weights ``w`` (``ew`` the hand-made
    score's) to ``out``, each option's score to ``scores`` in ``lookahead``'s
    order (machines, then tokens, then MIN and MAX); returns the weights' row.
    Unless ``every``, a token showing the face of an earlier free token is not
    scored (it would tie, and the earlier is kept). An ordinary token's terms
    are, all but three, its face times a term of the machine, summed once per machine."""
    seat = seat_to_move_nb(pub)
    players = pub[E.P_PLAYERS]
    row = min(max(players - 3, 0), 2)
    unseen = unseen_cards_nb(pub, hand)
    mine = np.uint64(pub[E.P_WON + seat])  # the seat's won cards
    left = pub[E.P_HAND_SIZE + seat]
    late = left / 10.0
    low = max(0.0, 1.0 - pub[E.P_CABBAGES + seat] / max(pub[E.P_STARTING], 1))  # how low its cabbages are
    weight_sum = 0.0  # the others' cabbages + 1
    for s in range(players):
        if s != seat:
            weight_sum += pub[E.P_CABBAGES + s] + 1
    n_free = free_sum = lowest = 0  # free tokens, their faces summed, the lowest face (or 0)
    for t in range(pub[E.P_N_TOKENS]):
        if pub[E.P_TOKEN_PLACED + t] == 0:
            n_free += 1
            free_sum += pub[E.P_TOKEN_VALUE + t]
            lowest = min(lowest, pub[E.P_TOKEN_VALUE + t])
    tokens = scored_tokens_nb(pub, every)
    # Each token's own terms, the same on every machine: its face, how far it is above the other free
    # tokens' mean face, the bonus for the lowest face when below 0.
    faces = stack_table_nb((0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    instead = stack_table_nb((0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    lowest_bonus = stack_table_nb((0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    rest = tokens
    while rest:
        t = lowest_nb(rest)
        rest &= rest - 1
        v = float(pub[E.P_TOKEN_VALUE + t])
        faces[t] = v
        instead[t] = v - ((free_sum - v) / (n_free - 1) if n_free > 1 else 0.0)
        lowest_bonus[t] = w[row, PF_LOWEST] if v < 0 and v == lowest else 0.0
    # The best option so far is kept as selects and written to ``out`` once: which option leads changes
    # from one to the next, and no predictor guesses it.
    best_m, best_t, best_side, top = -1, -1, E.NO_SIDE, -np.inf
    j = 0
    for m in range(E.MACHINES_PER_ROUND):
        if pub[E.P_MACHINE_TOKEN + m] >= 0 or n_free == 0:
            continue
        sticker = pub[E.P_MACHINES + m]
        colour = sticker < E.POINTS_BASE
        cards = SUIT_MASK[sticker] if colour else VALUE_MASK[sticker - E.POINTS_BASE]
        now = pile_exposure_nb(sticker, mine)
        held = popcount_nb(mine & cards)
        hold = hand_holds_nb(hand & cards, unseen)
        in_hand = popcount_nb(hand & cards)
        if colour:
            hold /= 3.0
            lose = THIRDS[in_hand] - hold
            share = SHARE_THIRDS[players, popcount_nb(unseen & cards)]
            partial = THIRDS[held % 3]
        else:
            lose = in_hand - hold
            share = SHARES[players, popcount_nb(unseen & cards)]
            partial = 0.0
        expected = now + hold + share + partial
        theirs, most, earlier = machine_others_nb(pub, seat, players, sticker, mine, hand, now, weight_sum, ew)
        # What one point of face is worth on this machine: every term that is the face times a term of it.
        per_face = (w[row, PF_EARLIER] * (earlier - TIE) + w[row, PF_NOW] * now + w[row, PF_HAND] * hold
                    + w[row, PF_HAND_LOSE] * lose + w[row, PF_UNSEEN] * share + w[row, PF_PARTIAL] * partial
                    + w[row, PF_OTHERS] * theirs + w[row, PF_OTHERS_MAX] * most + w[row, PF_LATE] * late
                    + w[row, PF_FACE] + w[row, PF_COLOUR] * colour)
        rest = tokens
        while rest:
            t = lowest_nb(rest)
            rest &= rest - 1
            v = faces[t]
            score = (v * per_face + w[row, PF_INSTEAD] * (instead[t] * expected)
                     + w[row, PF_LOSS_LOW] * (min(v * expected, 0.0) * low)) + lowest_bonus[t]
            keep_score_nb(scores, j, score)
            j += 1
            better = score > top
            top = score if better else top
            best_m = m if better else best_m
            best_t = t if better else best_t
    if pub[E.P_GOLDEN_SIDE] == E.NO_SIDE:
        # The tricks the seat's hand may still win, and each other seat's.
        own = min(hand_holds_nb(hand, unseen) + 0.5 * popcount_nb(hand & ZEROS), float(left))
        others = (left - own) / max(players - 1, 1)
        g = float(pub[E.P_GOLDEN_VALUE])
        soft = max(ew[W_GOLDEN_SOFT], 1e-3)
        gf = ew[W_GOLDEN_FUTURE]
        # The ends of the tricks won so far (and how many seats are at each), and of the projected tricks,
        # with and without the hand-made score's damping.
        lo, hi, lo_n, hi_n = 1 << 30, -1, 0, 0
        fewest = damped_fewest = 1e9
        most_tricks = damped_most = -1e9
        for s in range(players):
            x = pub[E.P_TRICKS + s]
            lo_n = 1 if x < lo else lo_n + (x == lo)
            lo = min(lo, x)
            hi_n = 1 if x > hi else hi_n + (x == hi)
            hi = max(hi, x)
            proj = x + (own if s == seat else others)
            fewest = min(fewest, proj)
            most_tricks = max(most_tricks, proj)
            damped = x + (gf * own if s == seat else gf * others)
            damped_fewest = min(damped_fewest, damped)
            damped_most = max(damped_most, damped)
        mine_tricks = pub[E.P_TRICKS + seat]
        ahead = (own - others) / max(left, 1)
        sevens = (w[row, PF_G_SEVENS_OUT] * (g * popcount_nb(unseen & SEVENS) / 4.0)
                  + w[row, PF_G_SEVENS_MINE] * (g * popcount_nb(hand & SEVENS) / 4.0))
        # Every nearness to an end the two sides read, worked out together (the divider is what they wait on):
        # each other seat's to either end, weighed by its cabbages, for the hand-made score; the seat's own
        # to either end, sharp and soft; the seat's own to either end with the hand-made score's damping.

        def gaps(s):
            """Seat ``s``'s projected tricks' gaps to the fewest and to the most, and its weight (cabbages + 1),
            all 0 for a seat that is not another seat at the table, so it adds 0.0 to the sums."""
            counted = s < players and s != seat
            damped = pub[E.P_TRICKS + s] + gf * others
            return (damped - damped_fewest if counted else 0.0, damped_most - damped if counted else 0.0,
                    float(pub[E.P_CABBAGES + s] + 1) if counted else 0.0)
        g0, g1, g2, g3, g4 = gaps(0), gaps(1), gaps(2), gaps(3), gaps(4)
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
            at_end = mine_tricks == (hi if on_max else lo)
            alone = at_end and (hi_n if on_max else lo_n) == 1
            score = (w[row, PF_EARLIER] * earlier + w[row, PF_GOLDEN] + w[row, PF_G_AT_END] * (-g * at_end)
                     + w[row, PF_G_ALONE] * (-g * alone)
                     + w[row, PF_G_RISK_SHARP] * (-g * (max_sharp if on_max else min_sharp))
                     + w[row, PF_G_RISK_SOFT] * (-g * (max_soft if on_max else min_soft))
                     + w[row, PF_G_AT_END_LATE] * (-g * late * at_end)
                     + w[row, PF_G_OTHER_SHARP] * (g * (min_sharp if on_max else max_sharp))
                     + w[row, PF_G_OTHER_SOFT] * (g * (min_soft if on_max else max_soft))
                     + sevens)
            if on_max:
                score += (w[row, PF_G_MAX] * g + w[row, PF_G_MAX_LATE] * (g * late)
                          - w[row, PF_G_LEAD] * (g * ahead))
            else:
                score += w[row, PF_G_LEAD] * (g * ahead)
            keep_score_nb(scores, j, score)
            j += 1
            better = score > top
            top = score if better else top
            best_m = E.GOLDEN_SLOT if better else best_m
            best_t = -1 if better else best_t
            best_side = side if better else best_side
    out[0], out[1], out[2] = best_m, best_t, best_side
    return row


@njit(cache=True, error_model="numpy", _nrt=False)
def expert_placement_choice_nb(pub, hand, w, ew, out):
    """The placement the weights ``w`` (one row per table size, one column per
    ``PF_*`` feature; ``tools/train_expert_placements.py``) score best, to
    ``out``: ``ew`` are the hand-made score's weights. Returns the weights' row."""
    return choose_placement_nb(pub, hand, w, ew, False, NO_SCORES, out)


@njit(cache=True, error_model="numpy")
def placement_scores_nb(pub, hand, w, ew, scores, out):
    """:func:`expert_placement_choice_nb`, every option's score (every free token's) to ``scores``."""
    return choose_placement_nb(pub, hand, w, ew, True, scores, out)


@njit(cache=True, error_model="numpy")
def placement_features_nb(pub, hand, feats, ew):
    """The features of every placement the seat may make, in ``lookahead``'s order, to ``feats[j]``, each its
    score under that feature's unit weights; returns the weights' row (3 and 2, 4, 5 players)."""
    out = np.empty(3, dtype=np.int64)
    row = 0
    for f in range(N_PLACEMENT_FEATURES):
        scores = feats[:, f].copy()  # contiguous, as the tests' and the fits' scores: one compiled placement score
        row = placement_scores_nb(pub, hand, UNIT_PLACEMENT[f], ew, scores, out)
        feats[:, f] = scores
    return row


@njit(cache=True, error_model="numpy")
def expert_placement_nb(pub, hand, ew, out):
    """The hand-made placement score alone (``PF_EARLIER``), with its weights
    ``ew``: a machine's exposure counts the matching cards still in the seat's
    hand, the others' exposure weighed toward the richest, and the golden token
    goes on the side that will hit others, judged from the tricks each hand can still win."""
    expert_placement_choice_nb(pub, hand, HAND_MADE_PLACEMENT, ew, out)


@njit(cache=True, error_model="numpy", _nrt=False)
def expert_card_default_nb(pub, hand, legal):
    return expert_card_nb(pub, hand, legal, EXPERT_CARD_FOLD)


# _nrt=False: the game kernel calls this for every placement (as on the card choice).
@njit(cache=True, _nrt=False)
def expert_placement_at_nb(pub, hand, states, row, out):
    """The shipped placement, as the game kernel calls a policy with its streams (expert draws nothing)."""
    expert_placement_choice_nb(pub, hand, EXPERT_PLACEMENT_WEIGHTS, EXPERT_WEIGHTS, out)


@njit(cache=True, error_model="numpy")
def expert_placement_default_nb(pub, hand, rng, out):
    """The shipped placement, as a policy with its stream ``rng`` (drawing nothing)."""
    expert_placement_choice_nb(pub, hand, EXPERT_PLACEMENT_WEIGHTS, EXPERT_WEIGHTS, out)
