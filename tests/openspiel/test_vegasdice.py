"""Las Vegas (the dice game) through OpenSpiel: the reference engine's game, its chance nodes, a perfect-information
resample."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from sim.openspiel import load  # noqa: E402
from sim.vegasdice.params import Rules  # noqa: E402
from sim.vegasdice.rules import PLAY_LOOP, game_records, player_named  # noqa: E402
from tests.helpers import assert_same_records  # noqa: E402
from tests.openspiel.walk import replayed  # noqa: E402


@pytest.mark.parametrize("players,seats,rules_table", [
    (3, ["greedy", "random", "montecarlo:2"], {}),
    (2, ["random", "greedy"], {"rounds": 6, "bills": [[50000, 4], [90000, 5]], "casinos": 3}),
])
def test_a_game_played_through_openspiel_is_the_reference_engines(players, seats, rules_table):
    """The reference game's pile, rolls and placements as OpenSpiel's chance outcomes and moves: the same
    records. The second rule set empties the shuffled pile, so bills that went under it are laid out again."""
    rules = Rules.from_mapping({"players": players, **rules_table})
    spel = load("vegas-dice", rules)
    for game in range(3):
        reference, trace = PLAY_LOOP.play_game(rules, 7, game, [player_named(rules, s) for s in seats], trace=True)
        pile = iter(rules.bill_values.index(b) for b in trace["pile"])
        faces, moves = [], []
        for played in trace["rounds"]:
            faces += played.get("extra_white", [])
            for turn in played["turns"]:
                faces += turn["roll"] + turn.get("white", [])
                moves.append(turn["place"] - 1)
        faces, played = iter(f - 1 for f in faces), iter(moves)
        state = replayed(spel, lambda state, pile=pile, faces=faces: next(faces if state.table.state.in_round else pile),
                         played)
        assert next(played, None) is None and next(faces, None) is None
        assert_same_records(game_records(state.table.state, game), reference)
        assert state.returns() == pytest.approx(reference["win_share"].tolist())


def test_chance_nodes_have_the_true_probabilities_and_a_resample_is_the_state():
    rules = Rules(players=3)
    state = load("vegas-dice", rules).new_initial_state()
    assert dict(state.chance_outcomes()) == pytest.approx(
        {rules.bill_values.index(v): n / len(rules.pile) for v, n in rules.bills})
    state.apply_action(0)  # a 90,000 bill: one fewer left
    assert dict(state.chance_outcomes())[0] == pytest.approx(4 / 53)
    rng = np.random.default_rng(4)
    while state.is_chance_node() and not state.table.state.in_round:
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    assert dict(state.chance_outcomes()) == pytest.approx({f: 1 / 6 for f in range(6)})  # the table's white dice
    while state.is_chance_node():
        state.apply_action(int(rng.integers(6)))
    seat = state.current_player()
    other = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert str(other) == str(state) and list(other.table.state.pile) == list(state.table.state.pile)
    for s in range(3):
        assert other.information_state_string(s) == state.information_state_string(s)
