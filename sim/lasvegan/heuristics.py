"""Hand-written players that judge the current trick: ``greedy`` and ``cautious``.

Both are deterministic (they draw nothing from their random stream) and see
only the public observation ``pub`` and their own hand. ``greedy`` is also
the player the ``lookahead`` policy imagines at every seat in its rollouts,
so it is written to be cheap: a decision is a handful of bit counts per
legal card, with no allocation.

Worth, in this module, is in cabbages for the seat deciding: what a set of
cards would add to its score on this round's machines if it won them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.bits import lowest_nb, pop_lowest_nb, popcount_nb
from sim.lasvegan import enums as E
from sim.lasvegan.mechanics import (
    SEVENS,
    SUIT_MASK,
    VALUE_MASK,
    any_free_slot_nb,
    seat_to_move_nb,
    unplaced_tokens_nb,
)

ALL_CARDS = np.uint64((1 << E.N_CARDS) - 1)
ZEROS = VALUE_MASK[0]

# What winning a 7 is worth beyond its card: the winner places a token, so
# it can put a bad token where it does not hurt itself.
SEVEN_WORTH = 0.5
# Chance that a later seat not known to be void in the led suit is void
# and holds a 0 it throws on the trick.
HIDDEN_VOID_RISK = 0.2
# Tie-breaks are scaled far below any real difference in worth.
TIE = 1e-4
# k / 6 for the few cards of a suit a trick adds: read, not divided, on every card.
SIXTHS = np.arange(0, 16) / 6.0


# --- what cards are worth to a seat --------------------------------------------


@njit(cache=True, inline="always")
def unplaced_token_mean_nb(pub):
    """Mean face of the ordinary tokens not yet placed: what a bare machine may still get."""
    total, n = unplaced_tokens_nb(pub)
    return total / n if n else 0.0


@njit(cache=True, inline="always")
def machine_weight_nb(pub, m, bare):
    """Face of the token on machine ``m``; ``bare`` (the expected face) while it has none."""
    t = pub[E.P_MACHINE_TOKEN + m]
    if t >= 0:
        return float(pub[E.P_TOKEN_VALUE + t])
    return bare


@njit(cache=True, inline="always")
def colour_groups_nb(have, add):
    """Groups of three that ``add`` more cards of a suit bring to ``have``.

    Half the exact count of completed groups, half the smooth ``add / 3``:
    a card that brings a suit to two of a group is already worth something.
    """
    return 0.5 * ((have + add) // 3 - have // 3) + SIXTHS[add]


@njit(cache=True, inline="always")
def machine_terms_nb(pub, m, bare, won, trick):
    """What machine ``m`` makes of the current trick for a seat with won pile ``won``.

    Returns ``(cards, trick_worth, card_worth, danger)``: the cards the
    machine counts; what the trick's cards would add to the seat's score;
    what one more matching card added to the trick adds on top; what a
    matching card costs the seat if it ends up in its pile on its own.
    """
    sticker = pub[E.P_MACHINES + m]
    weight = machine_weight_nb(pub, m, bare)
    if sticker < E.POINTS_BASE:
        cards = SUIT_MASK[sticker]
        have = popcount_nb(won & cards)
        in_trick = popcount_nb(trick & cards)
        trick_worth = weight * colour_groups_nb(have, in_trick)
        card_worth = weight * colour_groups_nb(have, in_trick + 1) - trick_worth
        return cards, trick_worth, card_worth, -weight * colour_groups_nb(have, 1)
    cards = VALUE_MASK[sticker - E.POINTS_BASE]
    return cards, weight * popcount_nb(trick & cards), weight, -weight


@njit(cache=True, inline="always")
def unseen_card_worth_nb(pub, bare, unseen, n_unseen):
    """Average worth of one card the seat has not seen: the expected worth of
    each card still to be played to the trick."""
    if n_unseen == 0:
        return 0.0
    total = 0.0
    for m in range(E.MACHINES_PER_ROUND):
        weight = machine_weight_nb(pub, m, bare)
        sticker = pub[E.P_MACHINES + m]
        if sticker < E.POINTS_BASE:
            total += weight * popcount_nb(unseen & SUIT_MASK[sticker]) / 3.0
        else:
            total += weight * popcount_nb(unseen & VALUE_MASK[sticker - E.POINTS_BASE])
    return total / n_unseen


@njit(cache=True, inline="always")
def trick_count_worth_nb(pub, seat):
    """What one more trick won is worth through the golden machine.

    On MAX every extra trick brings the seat nearer the most-tricks penalty;
    on MIN it lifts the seat off the fewest-tricks penalty. The nearer the
    seat is to the penalised end, the more the trick counts.
    """
    if pub[E.P_GOLDEN_SIDE] == E.NO_SIDE:
        return 0.0
    lo = 1 << 30
    hi = -1
    for s in range(pub[E.P_PLAYERS]):
        if s != seat:
            lo = min(lo, pub[E.P_TRICKS + s])
            hi = max(hi, pub[E.P_TRICKS + s])
    return golden_pull_nb(pub, seat, lo, hi)


@njit(cache=True, inline="always")
def golden_pull_nb(pub, seat, fewest, most):
    """:func:`trick_count_worth_nb` from the fewest and the most tricks the
    other seats have won (for a caller that passes over the seats anyway)."""
    side = pub[E.P_GOLDEN_SIDE]
    if side == E.NO_SIDE:
        return 0.0
    mine = pub[E.P_TRICKS + seat]
    g = float(pub[E.P_GOLDEN_VALUE])
    if side == E.MAX_SIDE:
        return -g / (1 + max(most - (mine + 1), 0))
    return g / (1 + max(mine - fewest, 0))


# --- the current trick -----------------------------------------------------------


@njit(cache=True, inline="always")
def trick_so_far_nb(pub):
    """``(led suit, highest led value, an off-suit 0 was played, cards mask)``; led -1 if empty."""
    n = pub[E.P_TRICK_LEN]
    led = pub[E.P_TRICK_CARDS] // 10 if n > 0 else -1
    best = -1
    zero = False
    mask = np.uint64(0)
    # No branch on the cards played: whether a card follows suit changes
    # from one decision to the next, and no predictor guesses it.
    for i in range(n):
        card = pub[E.P_TRICK_CARDS + i]
        value = card % 10
        follows = card // 10 == led
        best = max(best, value if follows else -1)
        zero |= (value == 0) & (not follows)
        mask |= np.uint64(1) << np.uint64(card)
    return led, best, zero, mask


@njit(cache=True, inline="always")
def takes_lead_nb(card, led, best, zero):
    """Whether ``card`` would win the trick if nobody played after it."""
    if led < 0:
        return True
    if card // 10 != led:
        return card % 10 == 0
    return not zero and card % 10 > best


@njit(cache=True, inline="always")
def lead_takers_nb(led, best, zero):
    """The cards that would win the trick if nobody played after them: the
    mask form of :func:`takes_lead_nb`, for all cards at once."""
    if led < 0:
        return ALL_CARDS
    suit = SUIT_MASK[led]
    takers = ZEROS & ~suit
    if not zero:
        takers |= suit & ~((np.uint64(2) << np.uint64(10 * led + best)) - np.uint64(1))
    return takers


@njit(cache=True, inline="always")
def beaters_nb(card, led, unseen, q, later_voids):
    """What may beat ``card``, now winning the trick: ``(unseen higher cards
    of its suit, unseen 0s of other suits, chance such a 0 beats it)``
    (see :func:`holds_nb`)."""
    if led < 0:
        led = card // 10
    other_zeros = popcount_nb(unseen & ZEROS & ~SUIT_MASK[led])
    higher = 0
    if card // 10 == led:
        above = SUIT_MASK[led] & ~((np.uint64(1) << np.uint64(card + 1)) - np.uint64(1))
        higher = popcount_nb(unseen & above)
    zero_risk = q if later_voids & (1 << led) else q * HIDDEN_VOID_RISK
    return higher, other_zeros, zero_risk


@njit(cache=True, inline="always")
def holds_nb(card, led, unseen, q, later_voids):
    """Chance that ``card``, now winning the trick, is not beaten by a later seat.

    Each unseen card that beats it is with a later seat with chance ``q``
    (their share of the unseen cards). A 0 of another suit only beats it if
    its holder is void in the led suit: certain for a seat that has shown
    it (``later_voids``), ``HIDDEN_VOID_RISK`` otherwise.
    """
    higher, other_zeros, zero_risk = beaters_nb(card, led, unseen, q, later_voids)
    p = 1.0
    for _ in range(higher):
        p *= 1.0 - q
    for _ in range(other_zeros):
        p *= 1.0 - zero_risk
    return p


@njit(cache=True, inline="always")
def later_seats_nb(pub):
    """``(cards, voids)`` of the seats still to play to this trick: how many
    cards they hold and the suits any of them has shown it lacks."""
    players = pub[E.P_PLAYERS]
    cards = voids = np.int64(0)  # not a literal 0 (docs/developing.md, "Compile time")
    for pos in range(pub[E.P_TRICK_LEN] + 1, players):
        s = pub[E.P_TRICK_LEADER] + pos
        if s >= players:
            s -= players
        cards += pub[E.P_HAND_SIZE + s]
        voids |= pub[E.P_VOIDS + s]
    return cards, voids


@njit(cache=True, inline="always")
def unseen_cards_nb(pub, hand):
    """Cards the seat has not seen: in other hands or set aside face down."""
    return ALL_CARDS & ~(np.uint64(pub[E.P_PLAYED]) | hand | np.uint64(pub[E.P_SET_ASIDE]))


# --- greedy ----------------------------------------------------------------------


@njit(cache=True, inline="always")
def machine_danger_nb(pub, m, bare, won):
    """``(cards, danger)`` of :func:`machine_terms_nb`, without the trick's worth."""
    sticker = pub[E.P_MACHINES + m]
    weight = machine_weight_nb(pub, m, bare)
    if sticker < E.POINTS_BASE:
        cards = SUIT_MASK[sticker]
        return cards, -weight * colour_groups_nb(popcount_nb(won & cards), 1)
    return VALUE_MASK[sticker - E.POINTS_BASE], -weight


@njit(cache=True, inline="always")
def on_machines_nb(start, bit, cards0, x0, cards1, x1, cards2, x2):
    """``start`` plus the term ``x`` of each of the round's three machines whose cards (``cards``) hold the
    card ``bit``, added machine by machine."""
    total = start
    if bit & cards0:
        total += x0
    if bit & cards1:
        total += x1
    if bit & cards2:
        total += x2
    return total


@njit(cache=True, inline="always")
def shed_score_nb(card, bit, led, cards0, danger0, cards1, danger1, cards2, danger2):
    """Shedding order for a card that loses (or must win a bad trick): the
    highest card when following suit, the most dangerous one when discarding."""
    danger = on_machines_nb(0.0, bit, cards0, danger0, cards1, danger1, cards2, danger2)
    if led < 0 or card // 10 == led:
        return card % 10 + 0.1 * danger
    return 10.0 * danger + card % 10


@njit(cache=True, inline="always")
def won_trick_worth_nb(card, bit, base, seven, sevens_in_trick, cards0, add0, cards1, add1, cards2, add2):
    """What taking the trick with ``card`` is worth to greedy: the trick's base worth, its 7s (this one
    included) and each machine whose cards ``card`` would add to the won pile."""
    return on_machines_nb(base + seven * (sevens_in_trick + (card % 10 == E.SEVEN)), bit, cards0, add0, cards1, add1,
                          cards2, add2)


# error_model="numpy": every division here is guarded already; Python's
# model would test each divisor again on every decision. _nrt=False (a private
# numba option, hence the pinned numba: tests/test_numba_range.py): greedy
# allocates nothing, and without it every decision paid several atomic
# updates of the observation's reference count.
@njit(cache=True, error_model="numpy", _nrt=False)
def greedy_card_nb(pub, hand, legal):
    """greedy — a player who weighs up the trick in front of it.

    For each card it could play, it works out what the trick would be worth
    if it won it: the cards already in the trick and its own card on this
    round's machines (a points machine with a negative token makes that value
    poison, a colour machine close to a group of three makes that suit
    valuable, a bare machine counts at the average of the tokens still
    unplaced), the cards still to come at their average worth, the golden
    machine (one more trick on MAX brings the penalty closer, on MIN it
    escapes it) and a small bonus per 7, because the winner places a token.
    It weighs that by the chance the card holds against the seats still to
    play, from the cards it has not seen yet.

    A trick it wants, it wins with its cheapest card that is likely to hold;
    a trick it does not want, it ducks with its highest losing card; when it
    cannot follow suit it throws away its most dangerous card. Forced to win
    a bad trick, it does so with its highest card.
    """
    if legal & (legal - np.uint64(1)) == 0:
        return lowest_nb(legal)
    seat = seat_to_move_nb(pub)
    won = np.uint64(pub[E.P_WON + seat])
    bare = unplaced_token_mean_nb(pub)
    led, best, zero, trick = trick_so_far_nb(pub)
    takers = legal & lead_takers_nb(led, best, zero)
    if takers == 0:
        # No card can win: the trick's worth does not matter (every card's
        # is 0), only the order in which cards are shed. About half the
        # decisions with a choice, when following suit.
        cards0, danger0 = machine_danger_nb(pub, 0, bare, won)
        cards1, danger1 = machine_danger_nb(pub, 1, bare, won)
        cards2, danger2 = machine_danger_nb(pub, 2, bare, won)
        choice = -1
        top = -np.inf
        rest = legal
        while rest:
            card, bit, rest = pop_lowest_nb(rest)
            score = 0.0 + TIE * shed_score_nb(card, bit, led, cards0, danger0, cards1, danger1, cards2, danger2)
            if score > top:
                top = score
                choice = card
        return choice

    players = pub[E.P_PLAYERS]
    unseen = unseen_cards_nb(pub, hand)
    n_unseen = popcount_nb(unseen)
    later_cards, later_voids = later_seats_nb(pub)
    q = later_cards / n_unseen if n_unseen else 0.0
    later = players - 1 - pub[E.P_TRICK_LEN]
    cards0, worth0, add0, danger0 = machine_terms_nb(pub, 0, bare, won, trick)
    cards1, worth1, add1, danger1 = machine_terms_nb(pub, 1, bare, won, trick)
    cards2, worth2, add2, danger2 = machine_terms_nb(pub, 2, bare, won, trick)
    # What winning the trick is worth apart from the card chosen.
    # The last seat to play sees no card to come: skip their average worth.
    to_come = later * unseen_card_worth_nb(pub, bare, unseen, n_unseen) if later else 0.0
    base = worth0 + worth1 + worth2 + to_come + trick_count_worth_nb(pub, seat)
    seven = SEVEN_WORTH if any_free_slot_nb(pub) else 0.0
    sevens_in_trick = popcount_nb(trick & SEVENS)

    choice = -1
    top = -np.inf
    rest = legal
    while rest:
        card, bit, rest = pop_lowest_nb(rest)
        ev = 0.0
        if bit & takers:
            worth = won_trick_worth_nb(card, bit, base, seven, sevens_in_trick, cards0, add0, cards1, add1, cards2, add2)
            p = 1.0 if later == 0 else holds_nb(card, led, unseen, q, later_voids)
            ev = p * worth
        if ev > 0.0:
            score = ev - TIE * (card % 10)  # the cheapest card that wins
        else:
            score = ev + TIE * shed_score_nb(card, bit, led, cards0, danger0, cards1, danger1, cards2, danger2)
        if score > top:
            top = score
            choice = card
    return choice


@njit(cache=True, inline="always")
def pile_exposure_nb(sticker, won):
    """How much a seat's won cards are exposed to a machine: cards of its value,
    or groups of three of its suit."""
    if sticker < E.POINTS_BASE:
        return colour_groups_nb(0, popcount_nb(won & SUIT_MASK[sticker]))
    return float(popcount_nb(won & VALUE_MASK[sticker - E.POINTS_BASE]))


@njit(cache=True, error_model="numpy")
def best_placement_nb(pub, opponents, out):
    """The placement with the best score for the placing seat; ``(slot, token, side)`` to ``out``.

    A token of face ``v`` on a machine scores ``v`` times the placing seat's
    exposure to it, minus ``opponents`` times the exposure of the other
    seats (weighted toward the ones with most cabbages). The golden token
    scores its penalty on the others hit minus on itself. Ties go to the
    lowest face, so a bad token is used up where it hurts nobody.
    """
    seat = seat_to_move_nb(pub)
    players = pub[E.P_PLAYERS]
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
        exposure = pile_exposure_nb(sticker, np.uint64(pub[E.P_WON + seat]))
        if opponents > 0.0:
            theirs = 0.0
            for s in range(players):
                if s != seat:
                    theirs += (pub[E.P_CABBAGES + s] + 1) * pile_exposure_nb(sticker, np.uint64(pub[E.P_WON + s]))
            exposure -= opponents * theirs / weight_sum
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
        g = pub[E.P_GOLDEN_VALUE]
        # A seat is hit when tied for the fewest (MIN) or most (MAX) tricks right now.
        fewest = pub[E.P_TRICKS]
        most = fewest
        for s in range(1, players):
            fewest = min(fewest, pub[E.P_TRICKS + s])
            most = max(most, pub[E.P_TRICKS + s])
        for side in (E.MIN_SIDE, E.MAX_SIDE):
            target = fewest if side == E.MIN_SIDE else most
            score = -g * (1.0 if pub[E.P_TRICKS + seat] == target else 0.0)
            if opponents > 0.0:
                theirs = 0.0
                for s in range(players):
                    if s != seat:
                        theirs += (pub[E.P_CABBAGES + s] + 1) * (1.0 if pub[E.P_TRICKS + s] == target else 0.0)
                score += opponents * g * theirs / weight_sum
            if score > top:
                top = score
                out[0] = E.GOLDEN_SLOT
                out[1] = -1
                out[2] = side


@njit(cache=True)
def greedy_placement_nb(pub, hand, out):
    """greedy places a token to help itself and hurt the leaders: the best face
    on the machine it profits from most, the worst face where the others
    (the richest above all) profit, and the golden token on the side that
    hits others and not itself, judged on the cards and tricks won so far."""
    best_placement_nb(pub, 1.0, out)


# --- cautious --------------------------------------------------------------------


@njit(cache=True, inline="always")
def negative_cards_nb(pub):
    """Cards that match a machine holding a negative token."""
    bad = np.uint64(0)
    for m in range(E.MACHINES_PER_ROUND):
        t = pub[E.P_MACHINE_TOKEN + m]
        if t >= 0 and pub[E.P_TOKEN_VALUE + t] < 0:
            sticker = pub[E.P_MACHINES + m]
            if sticker < E.POINTS_BASE:
                bad |= SUIT_MASK[sticker]
            else:
                bad |= VALUE_MASK[sticker - E.POINTS_BASE]
    return bad


@njit(cache=True, inline="always")
def lowest_value_card_nb(cards):
    """The card of lowest value in the non-empty mask ``cards``; of the lowest suit among equals."""
    # Fold the four suits onto one: the lowest value present, then its lowest suit.
    values = cards | (cards >> np.uint64(10)) | (cards >> np.uint64(20)) | (cards >> np.uint64(30))
    return lowest_nb(cards & (ZEROS << np.uint64(lowest_nb(values & np.uint64(0x3FF)))))


# _nrt=False: as greedy_card_nb.
@njit(cache=True, error_model="numpy", _nrt=False)
def cautious_card_nb(pub, hand, legal):
    """cautious — a beginner's rule of thumb: stay out of trouble, play low.

    It never wants a trick that holds a 7 or a card matching a machine with
    a negative token: if its card would win such a trick as it stands, it
    plays something else. Otherwise it plays its lowest card. It does not
    count cards or think about who plays after it.
    """
    if legal & (legal - np.uint64(1)) == 0:
        return lowest_nb(legal)
    led, best, zero, trick = trick_so_far_nb(pub)
    trouble = SEVENS | negative_cards_nb(pub)
    # Whole masks rather than a loop over the cards: which card is played
    # changes from one decision to the next, and a branch on it is
    # mispredicted as often as not.
    takers = legal & lead_takers_nb(led, best, zero)
    avoid = takers if trick & trouble else takers & trouble
    safe = legal & ~avoid
    return lowest_value_card_nb(safe if safe else legal)


@njit(cache=True)
def cautious_placement_nb(pub, hand, out):
    """cautious places a token to protect itself only: the best face where its
    own won cards score, the worst face where it has nothing, and the golden
    token on the side that does not hit it now."""
    best_placement_nb(pub, 0.0, out)
