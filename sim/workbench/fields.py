"""The page's form as config keys: what a game's form shows, and a filled-in form read as a config.

Every field of the form is named by the config key it sets (``game``,
``run.games``, ``run.seed``, ``rules.<knob>``, ``policies.seats``), and so
is every parameter of the page's URL: the same flat mapping of key to text
is a form, a query string and a request. :func:`config_of` reads it with
the config reader of the command line (``sim.config.config_from_mapping``),
so a refusal is the same line ``lvsim run`` would print, naming the key.

A value is written as in a config file: a number, ``true``/``false``, a
word, or a list or table in JSON (``[[1, 2], [3, 4]]``) or TOML
(``{ a = 1 }``). A field left out keeps the rulebook's value, at the
player count chosen.
"""

from __future__ import annotations

import json
import tomllib
from typing import Any, Mapping

from sim.config import DEFAULT_SEED, Config, config_from_mapping
from sim.errors import ConfigError, shown
from sim.games import GAME_IDS, get_game
from sim.inputs import check_depth, too_deep, too_many_digits

# The keys of the form besides the rules: each is the config key it sets.
GAME_KEY = "game"
RUN_KEYS = ("run.games", "run.seed")
SEATS_KEY = "policies.seats"
RULES_PREFIX = "rules."
# A play's games when the form leaves them out: a first answer within seconds (a config file's default is larger).
WORKBENCH_GAMES = 20_000


def parse_value(text: str, key: str = "value") -> Any:
    """A field's text as the value a config file would hold: JSON or a TOML literal, else the word itself; lists
    and tables nested no deeper than a config file's (a ConfigError naming ``key``)."""
    fail = lambda problem: ConfigError(key, f"is {problem}")  # noqa: E731
    try:
        value = _literal(text.strip())
    except RecursionError:
        raise fail(too_deep()) from None
    except ValueError:  # an integer of more digits than Python converts, which neither JSON nor TOML reads
        raise ConfigError(key, f"holds {too_many_digits()}") from None
    check_depth(value, fail)
    return value


def _literal(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except (tomllib.TOMLDecodeError, KeyError):
        return text


def field_text(value: Any) -> str:
    """A value as its field shows it: a word as itself, anything else as JSON (which :func:`parse_value` reads)."""
    return value if isinstance(value, str) else json.dumps(value)


def seats_value(text: str) -> str | list[str]:
    """``expert`` for every seat, or ``expert, greedy, greedy`` one name a seat, or those names as a JSON or TOML
    list, as a config file writes them."""
    if text.strip().startswith("["):
        return parse_value(text, SEATS_KEY)
    names = [name.strip() for name in text.split(",")]
    return names[0] if len(names) == 1 else names


def config_of(fields: Mapping[str, str]) -> Config:
    """The config a form (or the page's query string) sets; a ConfigError naming the key if it is not one."""
    if GAME_KEY not in fields or not str(fields[GAME_KEY]).strip():
        raise ConfigError(GAME_KEY, f"missing (expected {' or '.join(map(repr, GAME_IDS))})")
    data: dict[str, Any] = {"game": str(fields[GAME_KEY]).strip(), "run": {}, "rules": {}, "policies": {}}
    for key, text in fields.items():
        if key == GAME_KEY:
            continue
        if not isinstance(text, str):
            raise ConfigError(key, f"must be given as text, got {shown(text)}")
        table, dot, name = key.partition(".")
        if not dot or table not in ("run", "rules", "policies") or not name:
            raise ConfigError(key, "unknown field (the page sets game, run.games, run.seed, rules.<knob> and "
                                   "policies.seats)")
        if key == SEATS_KEY:
            data["policies"]["seats"] = seats_value(text)
        elif table == "run" and key not in RUN_KEYS:
            raise ConfigError(key, f"unknown field (the page sets {' and '.join(RUN_KEYS)})")
        else:
            data[table][name] = parse_value(text, key)
    data["run"].setdefault("games", WORKBENCH_GAMES)
    return config_from_mapping(data, name="workbench")


def fields_of(config: Config) -> dict[str, str]:
    """The form's fields that differ from the rulebook game at the config's player count, with game, games
    and seed: the shortest query string that sets ``config`` again."""
    game = config.game_spec
    base = game.Rules.from_mapping({"players": config.players}).to_dict()
    out = {GAME_KEY: config.game, "run.games": str(config.games), "run.seed": str(config.seed)}
    rules = config.rules.to_dict()
    out["rules.players"] = str(config.players)
    for name, value in rules.items():
        if name != "players" and value != base[name]:
            out[RULES_PREFIX + name] = field_text(value)
    seats = config.seats if isinstance(config.seats, str) else ", ".join(config.seats)
    if seats != game.default_policy:
        out[SEATS_KEY] = seats
    return out


def game_form(game_id: str) -> dict[str, Any]:
    """What the page's form shows of a game: each knob's field (key, label, help, domain, the rulebook's value
    at every player count), the policies and their syntax, the headline metrics, the run's defaults."""
    game = get_game(game_id)
    described = game.describe()
    at_players: dict[str, dict[str, str]] = {}
    for players in range(game.min_players, game.max_players + 1):
        try:
            rules = game.Rules.from_mapping({"players": players}).to_dict()
        except ConfigError:  # a count the rulebook has no default table for: no defaults to mark against
            continue
        at_players[str(players)] = {RULES_PREFIX + k: field_text(v) for k, v in rules.items()}
    knobs = [
        {"key": RULES_PREFIX + name, "label": info["label"], "help": info["help"], "values": info["values"],
         "domain": info["domain"], "default": field_text(info["default"])}
        for name, info in described["knobs"].items()
    ]
    policies = [{"name": name, "syntax": info["syntax"], "description": info["description"]}
                for name, info in described["policies"].items()]
    metrics = [{"key": m.name, "label": m.label, "kind": m.kind, "material": m.material}
               for m in game.headline_metrics.values()]
    return {"id": game.id, "title": game.title, "players": described["players"], "knobs": knobs,
            "defaults_at_players": at_players, "policies": policies, "default_policy": game.default_policy,
            "metrics": metrics, "run": {"run.games": str(WORKBENCH_GAMES), "run.seed": str(DEFAULT_SEED)}}
