"""Experiment files: one TOML file per experiment, read strictly.

A config names the game (any id of ``sim.games``: ``"lasvegan"``,
``"vegas-dice"``), how many games to play from which seed, the game's rule
knobs and the policy of each seat::

    game = "lasvegan"

    [run]
    games = 100000
    seed = 1

    [rules]            # every key optional; defaults are the rulebook's game
    players = 4        # the [rules] keys are the game's own (``lvsim games``)

    [policies]         # optional: every seat plays the game's default policy
    seats = "expert"   # one name for every seat, or a list, one per seat

Anything unexpected (an unknown key or table, a wrong type, a value out of
range, an impossible combination, malformed TOML, a missing file) raises a
:class:`~sim.errors.ConfigError` whose message starts with the dotted key:
``rules.players: must be between 2 and 5, got 7``; a rule key of another
game says which game it belongs to.
"""

from __future__ import annotations

import json
import re
from dataclasses import InitVar, dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from sim.errors import ConfigError, shown
from sim.game import Game
from sim.games import DEFAULT_GAME, GAME_IDS, get_game, games_with_rule
from sim.inputs import read_toml

GAMES = GAME_IDS
DEFAULT_GAMES = 100_000
DEFAULT_SEED = 1
MAX_SKILL_GAP_GAMES = 100_000
MAX_STRENGTH_GAMES = 10_000_000
MAX_STRENGTH_SLOW_GAMES = 100_000
# The slow strength policy's games of a large run (what they cost and decide: docs/running.md).
AUTO_SLOW_GAMES = 300
MAX_SENSITIVITY_GAMES = 10_000_000
# TOML integers are signed 64-bit: a larger seed or number of games could not be written back.
MAX_SEED = 2**63 - 1
MAX_GAMES = 2**63 - 1

RUN_KEYS = ("games", "seed", "threads", "skill_gap_games", "strength_games", "strength_slow_games",
            "sensitivity_games")
# Earlier names of run keys, still read: the slow profile policy was Las Vegan's lookahead before it was
# every game's.
RUN_KEY_ALIASES = {"strength_lookahead_games": "strength_slow_games"}
TABLES = ("run", "rules", "policies")
TOP_LEVEL = ("game", *TABLES)

# Where `lvsim run` looks when no config is given: the repository's configs/
# next to the package (the package is installed from the repository).
DEFAULT_CONFIG_PATH = Path(__file__).resolve().parent.parent / "configs" / "default.toml"


@dataclass(frozen=True)
class Config:
    """One experiment: which game, how many games from which seed, rules and seats.

    Build it with :func:`load_config` or directly; either way every field is
    validated. ``seats`` is one policy name for every seat or a tuple with
    one name per seat. ``threads`` of None means all cores; it never changes
    the results.
    """

    name: str = "custom"
    game: str = DEFAULT_GAME
    games: int = DEFAULT_GAMES
    seed: int = DEFAULT_SEED
    threads: int | None = None
    rules: Any = None  # the game's Rules; None = the rulebook game
    seats: str | tuple[str, ...] | None = None  # None: the game's default policy at every seat
    skill_gap_games: int | str = "auto"
    strength_games: int | str = "auto"
    strength_slow_games: int | str = "auto"
    # Games per rule set of the report's "What moves the verdict" (sim.sensitivity); "auto" sizes it from the run.
    sensitivity_games: int | str = "auto"
    # The earlier name of strength_slow_games (RUN_KEY_ALIASES), still taken: a value given replaces it.
    strength_lookahead_games: InitVar[int | str | None] = None

    def __post_init__(self, strength_lookahead_games: int | str | None = None):
        if strength_lookahead_games is not None:
            object.__setattr__(self, "strength_slow_games", strength_lookahead_games)
        if isinstance(self.seats, list):
            object.__setattr__(self, "seats", tuple(self.seats))
        _check_choice("game", self.game, GAMES)
        if self.rules is None:
            object.__setattr__(self, "rules", self.game_spec.Rules())
        if self.seats is None:
            object.__setattr__(self, "seats", self.game_spec.default_policy)
        _check_int("run.games", self.games, low=1)
        if self.games > MAX_GAMES:
            raise ConfigError("run.games", f"must be at most {MAX_GAMES:,} (the largest integer a TOML file holds), "
                                           f"got {shown(self.games)}")
        _check_int("run.seed", self.seed, low=0, high=MAX_SEED)
        if self.threads is not None:
            _check_int("run.threads", self.threads, low=1)
        for key, high in (("skill_gap_games", MAX_SKILL_GAP_GAMES), ("strength_games", MAX_STRENGTH_GAMES),
                          ("strength_slow_games", MAX_STRENGTH_SLOW_GAMES),
                          ("sensitivity_games", MAX_SENSITIVITY_GAMES)):
            value = getattr(self, key)
            if value != "auto":
                if isinstance(value, str):
                    raise ConfigError(f"run.{key}", f"must be a number or 'auto', got {shown(value)}")
                _check_int(f"run.{key}", value, low=0, high=high)
        if not isinstance(self.rules, self.game_spec.Rules):
            raise ConfigError("rules", f"must be a {self.game_spec.title} Rules object, got {shown(self.rules)}")
        _check_seats(self.seats)
        self.game_spec.parse_seats(self.seats, self.rules.players)

    @property
    def game_spec(self) -> Game:
        """The game this config plays (see ``sim.games``)."""
        return get_game(self.game)

    @property
    def title(self) -> str:
        return self.game_spec.title

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def skill_gap_deals(self) -> int:
        """Deals of the skill-gap duels: ``auto`` grows with the run, from
        a quick look for a small run to the game's ``skill_gap_games`` (64
        for Las Vegan, reached at 64,000 games); 0 skips the measurement, as
        does a game of 1 player: one seat has no others to duel."""
        if self.players < 2:
            return 0
        if self.skill_gap_games == "auto":
            return min(self.game_spec.skill_gap_games, max(4, self.games // 1000))
        return self.skill_gap_games

    @property
    def strength_sizes(self) -> tuple[int, int]:
        """Games of the strength profile: per fast policy, and with the game's slow, strong policy.

        ``auto`` plays a tenth of the run with each fast policy (1,000 to
        10,000 games) and a three-hundredth with the slow one (16 to 300
        games: 300 from 90,000 games on, as many as its paired comparison
        needs to settle the smaller headline differences while ``make
        run`` stays within a few seconds of it, docs/running.md); 0 skips that part.
        """
        fast, slow = self.strength_games, self.strength_slow_games
        if fast == "auto":
            fast = min(10_000, max(1_000, self.games // 10))
        if slow == "auto":
            slow = min(AUTO_SLOW_GAMES, max(16, self.games // 300))
        return fast, slow

    @property
    def seat_policies(self) -> tuple[str, ...]:
        """The policy name of every seat, in seat order."""
        if isinstance(self.seats, str):
            return (self.seats,) * self.players
        return tuple(self.seats)

    def with_overrides(self, *, games: int | None = None, seed: int | None = None, players: int | None = None,
                       threads: int | None = None) -> "Config":
        """A copy with the given values replaced (None keeps the file's value).

        A new player count re-checks every rule that depends on it (cards
        set aside, cabbages dealt) and the seat list.
        """
        changes: dict[str, Any] = {k: v for k, v in (("games", games), ("seed", seed), ("threads", threads))
                                   if v is not None}
        if players is not None:
            changes["rules"] = self.game_spec.Rules.from_mapping({**self.rules.to_dict(), "players": players})
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The config as the nested mapping its TOML file holds."""
        run = {key: getattr(self, key) for key in RUN_KEYS if key != "threads" or self.threads is not None}
        seats = self.seats if isinstance(self.seats, str) else list(self.seats)
        return {"game": self.game, "run": run, "rules": self.rules.to_dict(), "policies": {"seats": seats}}

    def to_toml(self) -> str:
        """The resolved config as a TOML file: every rule spelled out, defaults included."""
        data = self.to_dict()
        lines = [f"# Resolved config of experiment {self.name!r}.", f"game = {toml_value(data['game'])}"]
        for table in TABLES:
            lines += ["", f"[{table}]"]
            lines += [f"{key} = {toml_value(value)}" for key, value in data[table].items()]
        return "\n".join(lines) + "\n"


def load_config(path: str | Path, players: int | None = None) -> Config:
    """Read and validate the experiment file at ``path``; its stem is the config's name.

    ``players`` replaces the file's ``rules.players`` before any rule is
    checked, so a rule that only holds at the new count (a deck big enough
    to deal it) is judged at that count.
    """
    path = Path(path)
    data = read_toml(path, lambda problem: ConfigError(str(path), problem), what="config file")
    if players is not None and isinstance(data.get("rules", {}), dict):
        data = {**data, "rules": {**data.get("rules", {}), "players": players}}
    return config_from_mapping(data, name=path.stem)


def config_from_mapping(data: Mapping[str, Any], name: str = "custom") -> Config:
    """Build a Config from the nested mapping of a TOML file, checking every key."""
    _reject_unknown("", data, TOP_LEVEL)
    if "game" not in data:
        raise ConfigError("game", f"missing (expected {' or '.join(map(repr, GAMES))})")
    _check_choice("game", data["game"], GAMES)
    game = get_game(data["game"])
    tables = {}
    for table in TABLES:
        value = data.get(table, {})
        if not isinstance(value, dict):
            raise ConfigError(table, f"must be a table, got {shown(value)}")
        tables[table] = value
    run = _run_table(tables["run"])
    _reject_unknown("policies", tables["policies"], ("seats",))
    _reject_other_games_rules(game, tables["rules"])
    rules = game.Rules.from_mapping(tables["rules"])
    try:
        return Config(name=name, game=data["game"], rules=rules, seats=tables["policies"].get("seats"), **run)
    except ConfigError as err:  # a key the file spells by its earlier name is named so
        spelled = {f"run.{new}": f"run.{old}" for old, new in RUN_KEY_ALIASES.items() if old in tables["run"]}
        if err.field in spelled:
            raise ConfigError(spelled[err.field], err.problem) from None
        raise


def run_key(name: str) -> str:
    """A ``[run]`` key by its current name: an earlier name (:data:`RUN_KEY_ALIASES`) as the key it became."""
    return RUN_KEY_ALIASES.get(name, name)


def with_current_run_keys(data: Mapping[str, Any]) -> dict[str, Any]:
    """A config as ``Config.to_dict`` gives it, any earlier name of a ``[run]`` key as its current one: a sweep
    or tune directory that stored its config before a key was renamed still resumes."""
    if not isinstance(data, Mapping) or not isinstance(data.get("run"), Mapping):
        return data
    return {**data, "run": {run_key(k): v for k, v in data["run"].items()}}


def _run_table(run: Mapping[str, Any]) -> dict[str, Any]:
    """The ``[run]`` table with its keys checked and any earlier name of a key (RUN_KEY_ALIASES) read as its own."""
    _reject_unknown("run", {k: v for k, v in run.items() if k not in RUN_KEY_ALIASES}, RUN_KEYS)
    out = dict(run)
    for old, new in RUN_KEY_ALIASES.items():
        if old in out:
            if new in out:
                raise ConfigError(f"run.{old}", f"is the earlier name of run.{new}: give one of them")
            out[new] = out.pop(old)
    return out


def read_base(data: Mapping[str, Any], base_dir: Path, *, known: tuple[str, ...], starts: str, file: str,
              name: str = "custom") -> tuple[Path, dict[str, Any], Config]:
    """The config a sweep or tune file starts from, its ``base`` (relative to ``base_dir``): the path, the
    mapping and the Config, once every key of the file is one of ``known``.

    ``starts`` says in the refusal of a missing ``base`` what the config is
    to the file ("every cell starts from"), ``file`` what the file is ("sweep file").
    """
    config_keys = sorted(set(data) & set(TOP_LEVEL))
    if config_keys and not set(data) & set(known):  # a config given where the file naming one is wanted
        raise ConfigError("base", f"missing: this file is a config (it has {', '.join(config_keys)}), not a {file}, "
                                  "which names the config it starts from in base")
    _reject_unknown("", data, known)
    if "base" not in data:
        raise ConfigError("base", f"missing (the config file {starts}, relative to the {file})")
    if not isinstance(data["base"], str):
        raise ConfigError("base", f"must be the path of a config file, got {shown(data['base'])}")
    path = base_dir / data["base"]
    mapping = read_toml(path, lambda problem: ConfigError("base", f"{path}: {problem}"))
    try:
        config = config_from_mapping(mapping, name=name)
    except ConfigError as err:
        raise ConfigError(f"base {data['base']}", str(err)) from None
    return path, mapping, config


def _reject_other_games_rules(game: Game, rules: Mapping[str, Any]) -> None:
    """A rule key of another game gets a message saying which game it belongs to."""
    for key in rules:
        if key in game.Rules.__dataclass_fields__:
            continue
        others = [g for g in games_with_rule(key) if g.id != game.id]
        if others:
            owners = " and ".join(f"{g.title} (game = {json.dumps(g.id)})" for g in others)
            raise ConfigError(f"rules.{key}", f"is a rule of {owners}, not of {game.title} (game = {json.dumps(game.id)})")


def rule_keys(game_id: str) -> tuple[str, ...]:
    """The ``[rules]`` keys of a game."""
    return tuple(get_game(game_id).Rules.__dataclass_fields__)


def default_config() -> Config:
    """The rulebook game at 4 players: ``configs/default.toml``, or its built-in twin."""
    if DEFAULT_CONFIG_PATH.is_file():
        return load_config(DEFAULT_CONFIG_PATH)
    return Config(name="default")


# --- checks ----------------------------------------------------------------


def _reject_unknown(table: str, data: Mapping[str, Any], known: tuple[str, ...]) -> None:
    for key in data:
        if key not in known:
            dotted = f"{table}.{key}" if table else key
            what = "table" if isinstance(data[key], dict) else "key"
            # A sweep or tune file names the config it starts from: given where a config is wanted, say so.
            hint = ("; a file with a base is a sweep or tune file (lvsim sweep, lvsim tune, lvsim sensitivity "
                    "--method morris), not a config" if dotted == "base" else "")
            raise ConfigError(dotted, f"unknown {what} (known: {', '.join(known)}){hint}")


def _check_int(name: str, value: Any, low: int, high: int | None = None) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(name, f"must be an integer, got {shown(value)}")
    if high is None and value < low:
        raise ConfigError(name, f"must be at least {low}, got {shown(value)}")
    if high is not None and not low <= value <= high:
        raise ConfigError(name, f"must be between {low} and {high}, got {shown(value)}")


def _check_choice(name: str, value: Any, options: tuple[str, ...]) -> None:
    if value not in options:
        raise ConfigError(name, f"must be {' or '.join(map(repr, options))}, got {shown(value)}")


def _check_seats(seats: Any) -> None:
    if isinstance(seats, str):
        return
    if not isinstance(seats, tuple):
        raise ConfigError("policies.seats", f"must be a policy name or a list of names, got {shown(seats)}")
    for s, name in enumerate(seats):
        if not isinstance(name, str):
            raise ConfigError(f"policies.seats[{s}]", f"must be a policy name, got {shown(name)}")


def toml_value(value: Any) -> str:
    """A TOML literal on one line for the plain values a config holds."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        # An inline table (a $ Fever deck, a pay-table row); keys quoted unless bare.
        items = (f"{k if re.fullmatch(r'[A-Za-z0-9_-]+', k) else json.dumps(k)} = {toml_value(v)}"
                 for k, v in value.items())
        return "{ " + ", ".join(items) + " }"
    if isinstance(value, (bool, int, float, str)):
        # JSON spells these as TOML does (a JSON string, ASCII only, standard escapes, is a TOML basic string).
        return json.dumps(value)
    raise TypeError(f"cannot write {value!r} as a TOML value")
