"""The ``expert`` policy's scores: the features a fit sees are the ones the player plays by.

The player does not write the features: it sums the same terms grouped by
what they depend on (``fold_card_weights``, ``expert_placement_choice_nb``).
It must make the choice the written features make, whatever the weights."""

import json
from pathlib import Path

import numpy as np
import pytest

from sim.lasvegan import enums as E
from sim.lasvegan.expert import (
    N_CONTEXTS,
    N_FEATURES,
    N_PLACEMENT_CONTEXTS,
    N_PLACEMENT_FEATURES,
    NO_FEATURES,
    PF_EARLIER,
    PF_LOWEST,
    card_features_nb,
    expert_card_nb,
    expert_placement_choice_nb,
    fold_card_weights,
    placement_features_nb,
)
from sim.lasvegan.heuristics import lead_takers_nb, trick_so_far_nb
from sim.lasvegan.mechanics import SUIT_MASK
from sim.lasvegan.expert_card_weights import EXPERT_CARD_WEIGHTS
from sim.lasvegan.expert_placement_weights import EXPERT_PLACEMENT_WEIGHTS
from sim.lasvegan.expert_weights import EXPERT_WEIGHTS
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


def test_a_card_is_chosen_by_the_same_features_a_fit_sees():
    """The player scores with read-only features; a fit reads them written out.
    Both must pick the same card, for the shipped weights and for others."""
    weights = [EXPERT_CARD_WEIGHTS, np.random.default_rng(3).normal(size=(N_CONTEXTS, N_FEATURES))]
    for table in card_choices(300):
        legal = np.uint64(table.legal())
        cards = [c for c in range(E.N_CARDS) if int(legal) >> c & 1]
        for w in weights:
            feats = np.zeros((len(cards), N_FEATURES))
            context, written = card_features_nb(table.pub, np.uint64(table.hand), legal, feats, w)
            _, played = card_features_nb(table.pub, np.uint64(table.hand), legal, NO_FEATURES, w)
            assert played == written == cards[int(np.argmax(feats @ w[context]))]


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


def test_the_player_plays_the_card_the_written_features_choose():
    """The folded weights play the card of the written features' best sum, for
    the shipped weights and for random ones (every term then decides some
    choices), in every kind of choice at 2 to 5 players."""
    rng = np.random.default_rng(5)
    weights = [EXPERT_CARD_WEIGHTS] + [rng.normal(size=(N_CONTEXTS, N_FEATURES)) for _ in range(3)]
    folded = [fold_card_weights(w) for w in weights]
    kinds = {}
    players = set()
    for table in card_choices(600, seed=6):
        legal = np.uint64(table.legal())
        kind = choice_kind(table)
        kinds[kind] = kinds.get(kind, 0) + 1
        players.add(int(table.pub[E.P_PLAYERS]))
        for w, fold in zip(weights, folded):
            _, written = card_features_nb(table.pub, np.uint64(table.hand), legal, NO_FEATURES, w)
            assert expert_card_nb(table.pub, np.uint64(table.hand), legal, fold) == written
    assert len(kinds) == 5 and min(kinds.values()) >= 30, kinds
    assert players == {3, 4, 5}


def test_folded_weights_must_have_a_row_per_context_and_a_column_per_feature():
    with pytest.raises(ValueError, match="shape"):
        fold_card_weights(np.zeros((N_CONTEXTS, N_FEATURES - 1)))


def test_every_card_feature_is_seen_in_real_situations():
    """A feature that is always zero is a bug in its computation, not a feature."""
    none = np.zeros((N_CONTEXTS, N_FEATURES))
    seen = np.zeros(N_FEATURES, dtype=bool)
    for table in card_choices(600):
        feats = np.zeros((E.N_CARDS // 2, N_FEATURES))
        card_features_nb(table.pub, np.uint64(table.hand), np.uint64(table.legal()), feats, none)
        seen |= (feats != 0).any(axis=0)
    assert seen.all(), f"features never set: {np.flatnonzero(~seen).tolist()}"


def test_a_placement_is_chosen_by_the_same_features_a_fit_sees():
    weights = [EXPERT_PLACEMENT_WEIGHTS,
               np.random.default_rng(4).normal(size=(N_PLACEMENT_CONTEXTS, N_PLACEMENT_FEATURES))]
    out = np.zeros(3, dtype=np.int64)
    for table in placements(200):
        moves = options(table)
        for w in weights:
            feats = np.zeros((MAX_OPTIONS, N_PLACEMENT_FEATURES))
            row = placement_features_nb(table.pub, np.uint64(table.hand), feats, w, EXPERT_WEIGHTS, out)
            written = tuple(int(x) for x in out)
            placement_features_nb(table.pub, np.uint64(table.hand), NO_FEATURES, w, EXPERT_WEIGHTS, out)
            assert tuple(out) == written
            # The choice scores highest (tokens showing the same face tie).
            scores = feats[:len(moves)] @ w[row]
            chosen = moves.index(written)
            assert scores[chosen] >= scores.max() - 1e-9 * (1.0 + abs(scores.max()))
            # Nothing is written past the options the seat has.
            assert not feats[len(moves):].any()


def test_the_player_places_as_the_written_features_choose():
    """The player's placement, its terms summed per machine and per side,
    is the one of the written features' best sum (the first of equal
    scores), for the shipped weights and for random ones."""
    rng = np.random.default_rng(7)
    weights = [EXPERT_PLACEMENT_WEIGHTS] + [rng.normal(size=(N_PLACEMENT_CONTEXTS, N_PLACEMENT_FEATURES))
                                            for _ in range(3)]
    out = np.zeros(3, dtype=np.int64)
    golden = 0
    for table in placements(300, seed=8):
        for w in weights:
            placement_features_nb(table.pub, np.uint64(table.hand), NO_FEATURES, w, EXPERT_WEIGHTS, out)
            written = out.tolist()
            expert_placement_choice_nb(table.pub, np.uint64(table.hand), w, EXPERT_WEIGHTS, out)
            assert out.tolist() == written
            golden += written[0] == E.GOLDEN_SLOT
    assert golden > 100


def test_every_placement_feature_is_seen_in_real_situations():
    none = np.zeros((N_PLACEMENT_CONTEXTS, N_PLACEMENT_FEATURES))
    out = np.zeros(3, dtype=np.int64)
    seen = np.zeros(N_PLACEMENT_FEATURES, dtype=bool)
    for table in placements(300):
        feats = np.zeros((MAX_OPTIONS, N_PLACEMENT_FEATURES))
        placement_features_nb(table.pub, np.uint64(table.hand), feats, none, EXPERT_WEIGHTS, out)
        seen |= (feats != 0).any(axis=0)
    assert seen.all(), f"features never set: {np.flatnonzero(~seen).tolist()}"


def test_the_lowest_token_feature_marks_the_worst_free_face_only_when_it_costs():
    """PF_LOWEST is 1 for a token showing the lowest face among the free tokens,
    if that face is below 0, on every machine; 0 for any other option."""
    none = np.zeros((N_PLACEMENT_CONTEXTS, N_PLACEMENT_FEATURES))
    out = np.zeros(3, dtype=np.int64)
    marked = 0
    for table in placements(300):
        pub = table.pub
        faces = {t: int(pub[E.P_TOKEN_VALUE + t]) for t in range(pub[E.P_N_TOKENS]) if not pub[E.P_TOKEN_PLACED + t]}
        feats = np.zeros((MAX_OPTIONS, N_PLACEMENT_FEATURES))
        placement_features_nb(pub, np.uint64(table.hand), feats, none, EXPERT_WEIGHTS, out)
        for j, (_, t, _) in enumerate(options(table)):
            worst = t >= 0 and faces[t] < 0 and faces[t] == min(faces.values())
            assert feats[j, PF_LOWEST] == (1.0 if worst else 0.0)
            marked += worst
    assert marked > 100


def test_the_earlier_score_alone_places_as_the_hand_made_expert_did():
    """Feature PF_EARLIER is the hand-made placement score: weighted alone it
    makes the hand-made player's choices, which the fit starts from
    (``tests/data/pin_hand_made_placements.py`` wrote them down)."""
    pins = json.loads(PINS.read_text(encoding="utf-8"))
    assert len(pins) > 200 and any(p["placement"][0] == E.GOLDEN_SLOT for p in pins)
    w = np.zeros((N_PLACEMENT_CONTEXTS, N_PLACEMENT_FEATURES))
    w[:, PF_EARLIER] = 1.0
    out = np.zeros(3, dtype=np.int64)
    for pin in pins:
        pub = np.array(pin["pub"], dtype=np.int64)
        placement_features_nb(pub, np.uint64(pin["hand"]), NO_FEATURES, w, EXPERT_WEIGHTS, out)
        assert out.tolist() == pin["placement"]
