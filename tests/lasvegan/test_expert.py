"""The ``expert`` policy's scores: the features a fit sees are the ones the player plays by."""

import numpy as np

from sim.lasvegan import enums as E
from sim.lasvegan.expert import N_CONTEXTS, N_FEATURES, NO_FEATURES, card_features_nb
from sim.lasvegan.expert_card_weights import EXPERT_CARD_WEIGHTS
from sim.lasvegan.table import Table


def card_choices(n, seed=1):
    """Card choices with two legal cards or more, from rounds played by ``expert``."""
    rng = np.random.default_rng(seed)
    found = []
    k = 0
    while len(found) < n:
        k += 1
        table = Table.dealt_at_random(int(rng.integers(3, 6)), int(rng.integers(2**32)))
        table.advance("expert", int(rng.integers(36)), seed=k)
        if table.round_over or table.owed or bin(table.legal()).count("1") < 2:
            continue
        found.append(table)
    return found


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


def test_every_card_feature_is_seen_in_real_situations():
    """A feature that is always zero is a bug in its computation, not a feature."""
    none = np.zeros((N_CONTEXTS, N_FEATURES))
    seen = np.zeros(N_FEATURES, dtype=bool)
    for table in card_choices(600):
        feats = np.zeros((E.N_CARDS // 2, N_FEATURES))
        card_features_nb(table.pub, np.uint64(table.hand), np.uint64(table.legal()), feats, none)
        seen |= (feats != 0).any(axis=0)
    assert seen.all(), f"features never set: {np.flatnonzero(~seen).tolist()}"
