"""$ Fever through OpenSpiel: the reference engine's game, its chance nodes, what a seat knows and a resample."""

from collections import Counter

import pytest

pyspiel = pytest.importorskip("pyspiel")

from sim.fever import rules as engine  # noqa: E402
from sim.fever.state import double_no, keep_actions  # noqa: E402
from sim.fever.params import Rules  # noqa: E402
from sim.fever.rules import PLAY_LOOP, game_records, player_named  # noqa: E402
from sim.openspiel import load  # noqa: E402
from tests.helpers import assert_same_records  # noqa: E402
from tests.openspiel.walk import at_random_decision, replayed, resamples  # noqa: E402


SMALL_PAYTABLE = [{"symbols": ["cherry"] * 3, "points": 1}, {"symbols": ["lemon", "lemon", "cherry|lemon"], "points": 2},
                  {"symbols": ["seven", "*", "*"], "points": 3}]


class Logged:
    """A reference-engine player that notes every decision it makes, as OpenSpiel actions."""

    def __init__(self, policy, moves):
        self.policy, self.moves = policy, moves

    def double(self, obs, rng):
        doubles = self.policy.double(obs, rng)
        self.moves.append(double_no(obs.symbols) + doubles)
        return doubles

    def play(self, obs, rng):
        play = self.policy.play(obs, rng)
        self.moves.append(play.code)
        return play

    def keep(self, obs, rng):
        kept = self.policy.keep(obs, rng)
        self.moves += keep_actions(obs.hand, kept)
        return kept


def noting(draw, drawn):
    """The engine's draw, each card it draws (not an empty deck's EMPTY) noted in ``drawn``."""

    def noted(gs):
        card = draw(gs)
        if card >= 0:
            drawn.append(card)
        return card

    return noted


@pytest.mark.parametrize("players,seats,rules_table", [
    (3, ["greedy", "random:0.5", "montecarlo:2"], {}),
    (2, ["random:0.8", "greedy:5"], {"deck": {"cherry": 6, "lemon": 4, "seven": 3}, "paytable": SMALL_PAYTABLE,
                                     "double_extra_cards": 5, "dealt_combination": "redeal", "target": 6,
                                     "turn_cap": 60}),
    (1, ["random:0.3"], {"refill_after_scoring": False, "target": 8, "turn_cap": 40}),
])
def test_a_game_played_through_openspiel_is_the_reference_engines(players, seats, rules_table, monkeypatch):
    """The cards the reference game draws, in order, and its decisions as OpenSpiel's chance outcomes and moves:
    the same records. The small deck runs out and is remade from the discards."""
    rules = Rules.from_mapping({"players": players, **rules_table})
    spel = load("fever", rules)
    reshuffles = 0
    for game in range(3):
        drawn, moves = [], []
        with monkeypatch.context() as m:
            m.setattr(engine.GameState, "draw", noting(engine.GameState.draw, drawn))
            reference = PLAY_LOOP.play_game(rules, 3, game, [Logged(player_named(rules, s), moves) for s in seats])
        cards, played = iter(drawn), iter(moves)
        state = replayed(spel, cards, played)
        assert next(played, None) is None and next(cards, None) is None
        assert_same_records(game_records(state.table.state, game), reference)
        assert state.returns() == pytest.approx(reference["win_share"].tolist())
        reshuffles += int(reference["reshuffles"])
    assert "paytable" not in rules_table or reshuffles > 0


def test_a_draw_is_any_card_left_in_the_deck_each_alike():
    rules = Rules(players=2)
    state = load("fever", rules).new_initial_state()
    deck = Counter(rules.cards)
    assert dict(state.chance_outcomes()) == pytest.approx({x: n / 52 for x, n in deck.items()})
    state.apply_action(7)  # a seven: one of two
    assert dict(state.chance_outcomes())[7] == pytest.approx(1 / 51)


@pytest.mark.parametrize("seed", range(4))
def test_resampling_keeps_what_the_seat_knows_and_deals_the_rest_again(seed):
    state, seat, gs = at_random_decision("fever", Rules(players=4), seed, 6 + 5 * seed)
    others = [s for s in range(4) if s != seat]
    hidden = sum((Counter(dict(enumerate(gs.hands[s]))) for s in others), Counter(gs.deck))
    text = state.information_state_string(seat)
    for s in others:
        assert state.information_state_string(s) != text
    redealt = 0
    for other in resamples(state, seat, 8):
        og = other.table.state
        assert og.hands[seat] == gs.hands[seat]
        assert [sum(h) for h in og.hands] == [sum(h) for h in gs.hands] and len(og.deck) == len(gs.deck)
        assert sum((Counter(dict(enumerate(og.hands[s]))) for s in others), Counter(og.deck)) == hidden
        redealt += og.hands != gs.hands
    assert redealt > 0
