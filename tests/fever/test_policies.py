"""The policies: legal plays only, greedy takes the richest combination, random doubles at its rate,
and each policy is stronger than the one below it in seat-rotated duels on the same deals."""

import math
from functools import partial

import pytest

from sim.duel import duel as shared_duel
from sim.errors import ConfigError
from sim.fever import enums as E
from sim.fever.params import Rules
from sim.fever.policies import parse_policy
from sim.fever.rules import GameState, RandomPolicy, play_game, play_turn, player_named, shuffled_deck
from sim.games import get_game
from sim.rng import Stream

duel = partial(shared_duel, get_game("fever"))

POLICIES = ["random", "random:1", "greedy", "greedy:0", "montecarlo:4"]


def situations(rules, n, seed=0):
    """Seats to move in games played some turns in by random seats."""
    for g in range(n):
        table = Stream(seed, g, E.STREAM_TABLE)
        state = GameState(rules, shuffled_deck(rules, table), table)
        streams = [Stream(seed, g, E.STREAM_POLICY + s) for s in range(rules.players)]
        for _ in range(g % 17):
            if state.game_over:
                break
            play_turn(state, RandomPolicy(0.3), streams[state.to_move])
        if not state.game_over:
            yield state


@pytest.mark.parametrize("policy", POLICIES)
def test_every_play_and_keep_is_legal(policy):
    for players in (1, 3, 5):
        rules = Rules(players=players, double_max_cards=3)
        player = player_named(rules, policy)
        for state in situations(rules, 40, seed=players):
            seat = state.begin_turn()
            rng = Stream(1, 2, seat)
            if state.may_double(seat) and player.double(state.observe(seat), rng):
                state.double(seat)
            if sum(state.hands[seat]):
                play = player.play(state.observe(seat), rng)
                assert play in state.legal_plays(seat)
                state.play(seat, play)
            if state.doubling and state.winner is None:
                kept = player.keep(state.observe(seat), rng)
                assert sum(kept) == min(3, sum(state.hands[seat]))
                state.keep(seat, kept)


def test_greedy_scores_the_richest_combination_it_can():
    rules = Rules(players=2)
    greedy = player_named(rules, "greedy")
    checked = 0
    for state in situations(rules, 300):
        seat = state.begin_turn()
        scoring = [(rules.paytable[p][1], -len(play.reels)) for play in state.legal_plays(seat)
                   if (p := state.pattern_after(play)) is not None]
        if not scoring:
            continue
        play = greedy.play(state.observe(seat), Stream(0, 0, 0))
        p = state.pattern_after(play)
        assert p is not None and (rules.paytable[p][1], -len(play.reels)) == max(scoring)
        checked += 1
    assert checked >= 5


def test_greedy_blocks_the_machine_when_it_cannot_score():
    """With cherry cherry lemon showing and no cherry to play, greedy covers a cherry, not the lemon."""
    rules = Rules(players=2)
    cherry, lemon, bell = 0, 1, 4
    top = [bell, lemon, bell, lemon, lemon, bell, cherry, cherry, lemon]
    state = GameState(rules, top + _rest(rules, top))
    seat = state.begin_turn()
    play = player_named(rules, "greedy").play(state.observe(seat), Stream(0, 0, 0))
    assert play.symbol == bell and play.reels in ((0,), (1,))


def _rest(rules, top):
    rest = list(rules.cards)
    for x in top:
        rest.remove(x)
    return rest


def test_random_doubles_at_its_rate():
    rules = Rules(players=2)
    obs = next(situations(rules, 1)).observe(0)
    for text, p in (("random", 0.1), ("random:0.35", 0.35), ("random:0", 0.0), ("random:1", 1.0)):
        player = player_named(rules, text)
        rng = Stream(9, 9, 9)
        n = 4000
        doubles = sum(player.double(obs, rng) for _ in range(n))
        tolerance = 4 * math.sqrt(p * (1 - p) / n) + 1e-12
        assert abs(doubles / n - p) <= tolerance, text


@pytest.mark.parametrize("text", ["random:2", "random:x", "greedy:-1", "greedy:a", "montecarlo:0",
                                  "montecarlo:1:2", "lookahead", "random:0.5:1"])
def test_bad_policy_names_are_refused(text):
    with pytest.raises(ConfigError):
        parse_policy(text, "policies.seats")


@pytest.mark.slow
@pytest.mark.parametrize("strong,weak,deals", [("greedy", "random", 60), ("montecarlo:16", "greedy", 200)])
def test_each_policy_beats_the_one_below_in_seat_rotated_duels(strong, weak, deals):
    result = duel(Rules(players=4), [strong, weak, weak, weak], deals, seed=2)
    # Unfinished games have no winner, so the shares sum to less than 1: the strong seat is compared
    # with a weak seat's share, not with 1/players.
    share = result["policies"][strong]
    weak_seat = result["policies"][weak]["win_share"] / 3
    assert share["win_share_ci"][0] > weak_seat, (share, weak_seat)


def test_a_duel_says_how_many_games_ended_with_no_winner():
    """The turn cap ends some games with no winner: the win shares and the games nobody won make up every game, and
    the table says the shares fall short of the fair share by that much."""
    from sim.duel import duel_table

    result = duel(Rules(players=3, turn_cap=60), ["greedy", "random", "random"], 40, seed=1)
    won = sum(p["win_share"] for p in result["policies"].values())
    assert 0 < result["no_winner_share"] < 1 and won + result["no_winner_share"] == pytest.approx(1.0)
    assert f"{result['no_winner_share']:.1%} of the games ended with no winner" in duel_table(result)
    every = duel(Rules(players=3), ["greedy"] * 3, 20, seed=1)
    assert every["policies"]["greedy"]["win_share"] + every["no_winner_share"] == pytest.approx(1.0)


def test_the_skill_gap_says_its_games_won_by_no_one_and_a_game_that_always_has_a_winner_says_nothing():
    from analysis.common import skill_gap_lines
    from sim.duel import skill_gap

    gap = skill_gap(get_game("fever"), Rules(players=3, turn_cap=60), 8, seed=1)
    assert all(0 < entry["no_winner_share"] < 1 for entry in gap.values())
    assert all("of games won by no one" in line for line in skill_gap_lines({"skill_gap": gap})[2:])
    from sim.lasvegan.params import Rules as LasVeganRules

    always = skill_gap(get_game("lasvegan"), LasVeganRules(players=3), 4, seed=1)
    assert not any("no_winner_share" in entry for entry in always.values())


def test_the_policy_stream_never_moves_the_deal():
    """Changing a seat's policy changes its decisions, never the deck the game starts from."""
    rules = Rules(players=3)
    a = play_game(rules, 5, 3, [player_named(rules, "random")] * 3, trace=True)[1]
    b = play_game(rules, 5, 3, [player_named(rules, "greedy")] * 3, trace=True)[1]
    assert a["deck"] == b["deck"] and a["turns"] != b["turns"]
