"""Replay: a $ Fever game given by hand, played through the reference engine.

A script (JSON) fixes the order of the deck and, turn by turn, whether the
seat doubles, what it plays and what it keeps after a double;
:func:`replay_script` feeds them to :class:`~sim.fever.rules.GameState`,
which checks every move, and returns the game's trace (format in
``docs/replay.md``). The script format::

    {
      "players": 2,
      "rules": {"target": 6},
      "deck": ["cherry", "lemon", "cherry", "bell", "lemon", "cherry", "seven", "plum", "plum"],
      "seed": 0,
      "turns": [
        {"seat": 0, "play": {"symbol": "plum", "reels": [3]}},
        {"double": false, "play": {"symbol": "lemon", "reels": [1, 2]}}
      ],
      "seats": ["greedy", "random"]
    }

``deck`` lists the cards drawn first, top first (the deal: one card to
each seat in turn, three times, then reels 1, 2, 3); the cards it leaves
out follow in the order of ``rules.deck``. ``turns`` gives every scripted
turn in order (``seat``, optional, is checked; ``double`` defaults to
false; ``play`` is null for a seat with no card; ``keep`` lists the cards
kept after a double). When the turns run out before the game ends, the
policies of ``seats`` (optional) play it to the end, drawing from the
streams of ``seed``; without ``seats`` the trace stops there, unfinished.
An empty deck is remade from the discards shuffled by the table stream of
``(seed, 0)``. ``rules`` takes the keys of a config's ``[rules]`` table.
A script that breaks a rule or contradicts itself raises
:class:`~sim.errors.ScriptError` with one line naming the turn, the seat
and the rule.
"""

from __future__ import annotations

from typing import Any

from sim.errors import ConfigError, ScriptError, shown
from sim.fever import enums as E
from sim.fever.params import Rules
from sim.fever.rules import GameState, IllegalMove, Play, game_trace, play_turn, player_named
from sim.rng import Stream
from sim.scripts import check_turn, no_unknown_keys, read_script, script_rules, stacked

SCRIPT_KEYS = ("players", "rules", "deck", "seed", "turns", "seats")
TURN_KEYS = ("seat", "double", "play", "keep")
PLAY_KEYS = ("symbol", "reels")


def replay_path(path) -> dict:
    """Replay the script in the JSON file at ``path``; a ScriptError naming it if it cannot be read."""
    return replay_script(read_script(path))


def replay_script(data: Any) -> dict:
    """Play a scripted game (already parsed from JSON) and return its trace."""
    if not isinstance(data, dict):
        raise ScriptError("a script is a JSON object with 'turns' (and optionally 'players', 'rules', 'deck', "
                          "'seed', 'seats')")
    no_unknown_keys(data, SCRIPT_KEYS, "script")
    rules = script_rules(Rules, data)  # a game of turns, not rounds
    turns = data.get("turns", [])
    if not isinstance(turns, list):
        raise ScriptError("turns: must be a list of turns")
    seed = data.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
        raise ScriptError(f"seed: must be a whole number from 0 to 2**64 - 1, got {shown(seed)}")
    seats = data.get("seats")
    policies = None
    if seats is not None:
        if not isinstance(seats, list) or len(seats) != rules.players or not all(isinstance(s, str) for s in seats):
            raise ScriptError(f"seats: must list one policy name per seat ({rules.players}), got {shown(seats)}")
        try:
            policies = [player_named(rules, s) for s in seats]
        except ConfigError as err:
            raise ScriptError(f"seats: {err.problem}") from None
    table = Stream(seed, 0, E.STREAM_TABLE)
    state = GameState(rules, _deck(data.get("deck", []), rules), table)
    for number, turn in enumerate(turns, start=1):
        if state.game_over:
            how = f"seat {state.winner} won" if state.winner is not None else "the turn cap was reached"
            raise ScriptError(f"turn {number}: the game ended after turn {number - 1} ({how}), but the script goes on")
        _play_turn(state, turn, number, rules)
    if policies is not None:
        streams = [Stream(seed, 0, E.STREAM_POLICY + s) for s in range(rules.players)]
        while not state.game_over:
            play_turn(state, policies[state.to_move], streams[state.to_move])
    return game_trace(state)


def _symbol(name: Any, rules: Rules, where: str) -> int:
    if not isinstance(name, str) or name not in rules.symbols:
        raise ScriptError(f"{where}: {shown(name)} is not a symbol of rules.deck ({', '.join(rules.symbols)})")
    return rules.symbols.index(name)


def _deck(first: Any, rules: Rules) -> list[int]:
    """The deck, top first: the script's cards, then the others in ``rules.deck`` order."""
    if not isinstance(first, list):
        raise ScriptError(f"deck: must be a list of symbol names, top first, got {shown(first)}")

    def none_left(i: int, name: str, x: int) -> ScriptError:
        return ScriptError(f"deck[{i}]: no {name} card is left (rules.deck holds {rules.deck[x][1]})")

    return stacked(first, rules.cards, lambda i, name: _symbol(name, rules, f"deck[{i}]"), none_left)


def _play_turn(state: GameState, turn: Any, number: int, rules: Rules) -> None:
    seat = state.to_move
    at = f"turn {number}, seat {seat}"
    check_turn(turn, TURN_KEYS, at, seat, "'play' (and 'double', 'keep', 'seat')", "plays")
    if "play" not in turn:
        raise ScriptError(f"{at}: missing 'play' (null for a seat with no card)")
    double = turn.get("double", False)
    if not isinstance(double, bool):
        raise ScriptError(f"{at}: double must be true or false, got {shown(double)}")
    state.begin_turn()
    try:
        if double:
            state.double(seat)
        play = turn["play"]
        if play is None:
            state.pass_turn(seat)
        else:
            if not isinstance(play, dict):
                raise ScriptError(f"{at}: play must be an object with 'symbol' and 'reels', or null")
            no_unknown_keys(play, PLAY_KEYS, f"{at}, play")
            reels = play.get("reels")
            if not isinstance(reels, list) or not all(isinstance(r, int) and not isinstance(r, bool) for r in reels):
                raise ScriptError(f"{at}: play.reels must be a list of reel numbers 1 to {E.REELS}, got {shown(reels)}")
            state.play(seat, Play(_symbol(play.get("symbol"), rules, f"{at}, play.symbol"), tuple(r - 1 for r in reels)))
        if state.doubling and state.winner is None:
            if "keep" not in turn:
                raise ScriptError(f"{at}: the seat doubled: 'keep' lists the cards it keeps (at most {E.HAND})")
            keep = turn["keep"]
            if not isinstance(keep, list):
                raise ScriptError(f"{at}: keep must be a list of symbol names, got {shown(keep)}")
            kept = [0] * len(rules.symbols)
            for name in keep:
                kept[_symbol(name, rules, f"{at}, keep")] += 1
            state.keep(seat, kept)
        elif "keep" in turn:
            if state.doubling:
                raise ScriptError(f"{at}: keep is given, but the seat reached the target and won: the game ends "
                                  "before any card is kept")
            raise ScriptError(f"{at}: keep is given, but the seat did not double")
    except IllegalMove as err:
        raise ScriptError(f"{at}: {err.rule}") from None
    state.end_turn()


def script_from_trace(trace: dict, rules: Rules) -> dict:
    """The script that replays a traced game (``play_game(..., trace=True)``) move for move.

    A traced game that reshuffled its discards drew them from its own table
    stream, which a script cannot name: such a game is refused.
    """
    if trace["reshuffles"]:
        raise ValueError("a game that reshuffled its discards cannot be scripted from its trace")
    turns = []
    for t in trace["turns"]:
        turn: dict = {"seat": t["seat"], "double": t["double"], "play": t["play"]}
        if "keep" in t:
            turn["keep"] = t["keep"]
        turns.append(turn)
    return {"players": rules.players, "rules": rules.to_dict(), "deck": trace["deck"], "turns": turns}
