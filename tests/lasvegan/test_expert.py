"""The ``expert`` policy's scores: the features a fit sees are the terms the player sums.

Each score is written once (``choose_card_nb``, ``choose_placement_nb``); a
feature is the score under that feature's unit weights. The player must
choose what the written scores choose, and the scores must be the features'
weighted sum, whatever the weights."""

import json
from pathlib import Path

import numpy as np
import pytest

from sim.lasvegan import enums as E
from sim.lasvegan.expert import (
    EXPERT_CARD_FOLD,
    N_CONTEXTS,
    N_FEATURES,
    N_PLACEMENT_CONTEXTS,
    N_PLACEMENT_FEATURES,
    PF_LOWEST,
    card_features_nb,
    card_scores_nb,
    expert_card_default_nb,
    expert_card_nb,
    expert_placement_choice_nb,
    expert_placement_nb,
    fold_card_weights,
    placement_features_nb,
    placement_scores_nb,
)
from sim.lasvegan.expert_card_weights import EXPERT_CARD_WEIGHTS
from sim.lasvegan.expert_placement_weights import EXPERT_PLACEMENT_WEIGHTS
from sim.lasvegan.expert_weights import EXPERT_WEIGHTS
from sim.lasvegan.heuristics import lead_takers_nb, trick_so_far_nb
from sim.lasvegan.mechanics import SUIT_MASK
from sim.lasvegan.table import Table

MAX_OPTIONS = E.MACHINES_PER_ROUND * E.MAX_TOKENS + 2
PINS = Path(__file__).resolve().parents[1] / "data" / "hand_made_placements.json"
# The fit's feature kernels (tens of seconds to compile, played by no run) compile in one worker, not in each.
pytestmark = pytest.mark.xdist_group("expert-features")


def tables(n, seed, wanted):
    """``n`` rounds dealt at random and played by ``expert`` up to a random point, then by
    ``greedy`` until ``wanted(table)`` (rounds that end first are dealt again)."""
    rng = np.random.default_rng(seed)
    found = []
    k = 0
    while len(found) < n:
        k += 1
        table = Table.dealt_at_random(int(rng.integers(3, 6)), int(rng.integers(2**32)))
        table.advance("expert", int(rng.integers(36)), seed=k)
        while not table.round_over and not wanted(table):
            if table.owed:
                table.place(*table.choose_placement("greedy"))
            else:
                table.play(table.choose_card("greedy"))
        if not table.round_over:
            found.append(table)
    return found


def card_choices(n, seed=1):
    """Card choices with two legal cards or more."""
    return tables(n, seed, lambda t: not t.owed and bin(t.legal()).count("1") >= 2)


def placements(n, seed=2):
    """Placements owed for a 7 (golden token free or not)."""
    return tables(n, seed, lambda t: t.owed > 0)


def options(table):
    """The placements the seat may make, in the features' order."""
    pub = table.pub
    free = [t for t in range(pub[E.P_N_TOKENS]) if not pub[E.P_TOKEN_PLACED + t]]
    moves = [(m, t, E.NO_SIDE) for m in range(E.MACHINES_PER_ROUND) if pub[E.P_MACHINE_TOKEN + m] < 0 for t in free]
    if pub[E.P_GOLDEN_SIDE] == E.NO_SIDE:
        moves += [(E.GOLDEN_SLOT, -1, E.MIN_SIDE), (E.GOLDEN_SLOT, -1, E.MAX_SIDE)]
    return moves


def choice_kind(table):
    """Leading, following with a card that takes, following with none, discarding with a 0, or without."""
    led, best, zero, _ = trick_so_far_nb(table.pub)
    if led < 0:
        return "lead"
    legal = np.uint64(table.legal())
    takes = bool(legal & lead_takers_nb(led, best, zero))
    if legal & SUIT_MASK[led]:
        return "follow and take" if takes else "follow and lose"
    return "discard a 0" if takes else "discard"


def close(a, b):
    return np.allclose(a, b, rtol=1e-12, atol=1e-12)


def test_the_player_plays_the_best_written_score_and_the_scores_are_the_features_weighted():
    """For the shipped weights and random ones (every term then decides some choices), in every kind of
    choice at 3 to 5 players: the card played is the first of the best written scores, and each score is
    the card's features times the weights of its row."""
    rng = np.random.default_rng(5)
    weights = [EXPERT_CARD_WEIGHTS] + [rng.normal(size=(N_CONTEXTS, N_FEATURES)) for _ in range(3)]
    folded = [fold_card_weights(w) for w in weights]
    for fold in folded:  # read-only, as the player's are: the player's compiled choice serves the test too
        fold.flags.writeable = False
    kinds = {}
    players = set()
    for table in card_choices(600, seed=6):
        pub, hand, legal = table.pub, np.uint64(table.hand), np.uint64(table.legal())
        n = bin(int(legal)).count("1")
        cards = [c for c in range(E.N_CARDS) if int(legal) >> c & 1]
        kind = choice_kind(table)
        kinds[kind] = kinds.get(kind, 0) + 1
        players.add(int(pub[E.P_PLAYERS]))
        feats = np.zeros((n, N_FEATURES))
        row = card_features_nb(pub, hand, legal, feats)
        for w, fold in zip(weights, folded):
            scores = np.zeros(n)
            assert card_scores_nb(pub, hand, legal, fold, scores) == (row, expert_card_nb(pub, hand, legal, fold))
            assert expert_card_nb(pub, hand, legal, fold) == cards[int(np.argmax(scores))]
            assert close(scores, feats @ w[row]), kind
    assert len(kinds) == 5 and min(kinds.values()) >= 30, kinds
    assert players == {3, 4, 5}


def test_the_shipped_card_weights_are_what_the_policy_plays():
    for table in card_choices(100, seed=9):
        pub, hand, legal = table.pub, np.uint64(table.hand), np.uint64(table.legal())
        assert expert_card_default_nb(pub, hand, legal) == expert_card_nb(pub, hand, legal, EXPERT_CARD_FOLD)


def test_folded_weights_must_have_a_row_per_context_and_a_column_per_feature():
    with pytest.raises(ValueError, match="shape"):
        fold_card_weights(np.zeros((N_CONTEXTS, N_FEATURES - 1)))


def test_every_card_feature_is_seen_in_real_situations():
    """A feature that is always zero is a bug in its computation, not a feature."""
    seen = np.zeros(N_FEATURES, dtype=bool)
    for table in card_choices(600):
        feats = np.zeros((E.N_CARDS // 2, N_FEATURES))
        card_features_nb(table.pub, np.uint64(table.hand), np.uint64(table.legal()), feats)
        seen |= (feats != 0).any(axis=0)
    assert seen.all(), f"features never set: {np.flatnonzero(~seen).tolist()}"


def test_the_player_places_by_the_best_written_score_and_the_scores_are_the_features_weighted():
    """For the shipped weights and random ones: the player (a token showing the face of one already scored
    skipped) places where the first of the best written scores is, and each option's score is its features
    times the weights of its row; nothing is written past the options."""
    rng = np.random.default_rng(7)
    weights = [EXPERT_PLACEMENT_WEIGHTS] + [rng.normal(size=(N_PLACEMENT_CONTEXTS, N_PLACEMENT_FEATURES))
                                            for _ in range(3)]
    for w in weights:  # read-only, as the player's are: the player's compiled choice serves the test too
        w.flags.writeable = False
    out = np.zeros(3, dtype=np.int64)
    golden = 0
    for table in placements(300, seed=8):
        pub, hand = table.pub, np.uint64(table.hand)
        moves = options(table)
        feats = np.zeros((MAX_OPTIONS, N_PLACEMENT_FEATURES))
        row = placement_features_nb(pub, hand, feats, EXPERT_WEIGHTS)
        assert not feats[len(moves):].any()
        for w in weights:
            scores = np.zeros(MAX_OPTIONS)
            assert placement_scores_nb(pub, hand, w, EXPERT_WEIGHTS, scores, out) == row
            written = out.tolist()
            assert expert_placement_choice_nb(pub, hand, w, EXPERT_WEIGHTS, out) == row and out.tolist() == written
            assert moves.index(tuple(written)) == int(np.argmax(scores[:len(moves)]))
            assert close(scores[:len(moves)], feats[:len(moves)] @ w[row]) and not scores[len(moves):].any()
            golden += written[0] == E.GOLDEN_SLOT
    assert golden > 100


def test_every_placement_feature_is_seen_in_real_situations():
    seen = np.zeros(N_PLACEMENT_FEATURES, dtype=bool)
    for table in placements(300):
        feats = np.zeros((MAX_OPTIONS, N_PLACEMENT_FEATURES))
        placement_features_nb(table.pub, np.uint64(table.hand), feats, EXPERT_WEIGHTS)
        seen |= (feats != 0).any(axis=0)
    assert seen.all(), f"features never set: {np.flatnonzero(~seen).tolist()}"


def test_the_lowest_token_feature_marks_the_worst_free_face_only_when_it_costs():
    """PF_LOWEST is 1 for a token showing the lowest face among the free tokens,
    if that face is below 0, on every machine; 0 for any other option."""
    marked = 0
    for table in placements(300):
        pub = table.pub
        faces = {t: int(pub[E.P_TOKEN_VALUE + t]) for t in range(pub[E.P_N_TOKENS]) if not pub[E.P_TOKEN_PLACED + t]}
        feats = np.zeros((MAX_OPTIONS, N_PLACEMENT_FEATURES))
        placement_features_nb(pub, np.uint64(table.hand), feats, EXPERT_WEIGHTS)
        for j, (_, t, _) in enumerate(options(table)):
            worst = t >= 0 and faces[t] < 0 and faces[t] == min(faces.values())
            assert feats[j, PF_LOWEST] == (1.0 if worst else 0.0)
            marked += worst
    assert marked > 100


def test_the_hand_made_score_alone_places_as_the_hand_made_expert_did():
    """Feature PF_EARLIER is the hand-made placement score: alone it makes the
    hand-made player's choices, which the fit starts from
    (``tests/data/pin_hand_made_placements.py`` wrote them down)."""
    pins = json.loads(PINS.read_text(encoding="utf-8"))
    assert len(pins) > 200 and any(p["placement"][0] == E.GOLDEN_SLOT for p in pins)
    out = np.zeros(3, dtype=np.int64)
    for pin in pins:
        expert_placement_nb(np.array(pin["pub"], dtype=np.int64), np.uint64(pin["hand"]), EXPERT_WEIGHTS, out)
        assert out.tolist() == pin["placement"]
