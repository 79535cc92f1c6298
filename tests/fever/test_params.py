"""The rule knobs: defaults from the rules document, strict checks naming the key, the pay table's matching."""

import pytest

from sim.errors import ConfigError
from sim.fever.params import DEFAULT_DECK, Rules


def test_the_defaults_are_the_rules_documents_stand_ins():
    r = Rules()
    assert r.players == 4 and r.target == 10 and r.turn_cap == 200
    assert sum(n for _, n in r.deck) == 52 == len(r.cards)
    assert dict(r.deck) == dict(DEFAULT_DECK)
    assert [p for _, p in r.paytable] == [1, 2, 2, 3, 3, 4, 4, 6]
    assert all(len(set(entries)) == 1 for entries, _ in r.paytable)


def test_a_config_table_reads_as_the_issue_writes_it_and_round_trips():
    table = {
        "players": 4, "target": 10,
        "deck": {"cherry": 10, "lemon": 10, "orange": 8, "plum": 8, "bell": 6, "bar": 5, "double_bar": 3, "seven": 2},
        "paytable": [
            {"symbols": ["seven", "seven", "seven"], "points": 6},
            {"symbols": ["bar|double_bar", "bar|double_bar", "bar|double_bar"], "points": 3},
            {"symbols": ["cherry", "cherry", "*"], "points": 1},
        ],
    }
    r = Rules.from_mapping(table)
    assert Rules.from_mapping(r.to_dict()) == r
    assert r.differences() == {"paytable": table["paytable"]}


@pytest.mark.parametrize("table,key", [
    ({"paytable": [{"symbols": ["cherry", "kiwi", "*"], "points": 1}]}, "rules.paytable[0].symbols"),
    ({"paytable": [{"symbols": ["cherry|kiwi", "*", "*"], "points": 1}]}, "rules.paytable[0].symbols"),
    ({"paytable": [{"symbols": ["seven"] * 3, "points": -2}]}, "rules.paytable[0].points"),
    ({"paytable": [{"symbols": ["seven"] * 3, "points": 0}]}, "rules.paytable[0].points"),
    ({"deck": {"cherry": 14}}, "rules.deck"),
    ({"players": 5, "deck": {"cherry": 17}}, "rules.deck"),
    ({"target": 0}, "rules.target"),
    ({"players": 0}, "rules.players"),
    ({"deck": {"two words": 30}}, "rules.deck"),
    ({"double_up": 1}, "rules.double_up"),
    ({"dealt_combination": "scores"}, "rules.dealt_combination"),
])
def test_bad_knobs_name_their_key(table, key):
    with pytest.raises(ConfigError) as err:
        Rules.from_mapping(table)
    assert err.value.field == key
    assert "\n" not in str(err.value)


def test_a_deck_just_large_enough_to_deal_is_accepted():
    for players in range(1, 6):
        Rules(players=players, deck={"cherry": 3 * players + 3}, paytable=[{"symbols": ["cherry"] * 3, "points": 1}])
        with pytest.raises(ConfigError):
            Rules(players=players, deck={"cherry": 3 * players + 2},
                  paytable=[{"symbols": ["cherry"] * 3, "points": 1}])


def test_patterns_match_in_any_order_unless_the_reels_are_ordered():
    table = [{"symbols": ["cherry", "cherry", "*"], "points": 1}, {"symbols": ["bar|seven", "bar", "*"], "points": 3}]
    deck = {"cherry": 10, "bar": 10, "seven": 10}
    free = Rules(deck=deck, paytable=table)
    ordered = Rules(deck=deck, paytable=table, reels_ordered=True)
    cherry, bar, seven = 0, 1, 2
    assert free.matching_pattern((seven, cherry, cherry)) == 0
    assert ordered.matching_pattern((seven, cherry, cherry)) is None
    assert ordered.matching_pattern((cherry, cherry, seven)) == 0
    # bar bar cherry matches both the cherry pattern? no: one cherry. It matches the bar pattern.
    assert free.matching_pattern((cherry, bar, bar)) == 1
    assert ordered.matching_pattern((seven, bar, cherry)) == 1
    assert ordered.matching_pattern((bar, seven, cherry)) is None
    assert free.matching_pattern((cherry, None, cherry)) is None


def test_the_richest_matching_pattern_scores_and_the_first_listed_on_equal_points():
    deck = {"cherry": 10, "bar": 10}
    table = [{"symbols": ["cherry", "*", "*"], "points": 1}, {"symbols": ["cherry", "cherry", "cherry"], "points": 5},
             {"symbols": ["cherry", "cherry", "*"], "points": 5}]
    r = Rules(deck=deck, paytable=table)
    assert r.matching_pattern((0, 0, 0)) == 1
    assert r.matching_pattern((0, 0, 1)) == 2
    assert r.matching_pattern((0, 1, 1)) == 0
    assert r.matching_pattern((1, 1, 1)) is None
    k = 2
    for a in range(k):
        for b in range(k):
            for c in range(k):
                p = r.matching_pattern((a, b, c))
                assert r.combination_table[(a * k + b) * k + c] == (-1 if p is None else p)


def test_a_pattern_the_deck_cannot_show_is_unreachable():
    assert Rules().unreachable_patterns == (7,)  # three sevens from the stand-in deck's two
    r = Rules(deck={"cherry": 20, "seven": 3}, paytable=[{"symbols": ["seven"] * 3, "points": 6},
                                                         {"symbols": ["seven", "*", "*"], "points": 1},
                                                         {"symbols": ["seven", "seven", "*"], "points": 1}])
    assert r.unreachable_patterns == (2,)  # two sevens and a card always match the first-listed lone seven
    # Three sevens score seven x3; two sevens and a cherry the lone seven, listed first at the same points.
    assert r.why_unreachable(2) == ({}, (0, 1))
    assert Rules().why_unreachable(7) == ({Rules().symbols.index("seven"): 2}, ())  # no machine of three sevens


def test_the_listed_values_of_the_deck_and_the_pay_table_name_every_bound_they_are_checked_against():
    """`lvsim games` and the game's page say what a config may hold: a bound the check enforces is in the listing."""
    from sim.fever import enums as E
    from sim.fever.params import KNOBS

    deck, paytable = KNOBS["deck"].values_text(), KNOBS["paytable"].values_text()
    with pytest.raises(ConfigError, match=f"between 1 and {E.MAX_SYMBOL_CARDS}"):
        Rules.from_mapping({"deck": {"cherry": E.MAX_SYMBOL_CARDS + 1, "lemon": 10}})
    assert f"each 1 to {E.MAX_SYMBOL_CARDS} cards" in deck and f"at most {E.MAX_CARDS} cards" in deck
    with pytest.raises(ConfigError, match=f"needs 1 to {E.MAX_PATTERNS} patterns"):
        Rules.from_mapping({"paytable": [{"symbols": ["cherry"] * 3, "points": 1}] * (E.MAX_PATTERNS + 1)})
    assert f"list of 1 to {E.MAX_PATTERNS} " in paytable
