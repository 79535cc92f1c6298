"""What the commands share: the option types, --game and the cluster options, and the checks of a player
count given on the command line."""

from __future__ import annotations

import click

from sim.errors import ConfigError
from sim.games import DEFAULT_GAME, GAME_IDS


class IntRange(click.IntRange):
    """A whole number within bounds, called an integer in help and refusals ('x' is not a valid integer)."""

    name = "integer"


class FloatRange(click.FloatRange):
    """A number within bounds, called a number in help and refusals ('x' is not a valid number)."""

    name = "number"


class GivenPath(click.Path):
    """A path a command reads: an empty one is refused, naming the argument or option (``error: CONFIG: is
    empty``), rather than read as this directory or as no path given."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            what = "a directory" if not self.file_okay else "a file"
            raise ConfigError(_typed_name(param), f"is empty: name {what}")
        return super().convert(value, param, ctx)


def _typed_name(param: click.Parameter | None) -> str:
    """An argument or option as it is typed or shown in help: CONFIG, FILE, --config."""
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    if param is None:
        return "path"
    return (param.metavar or param.name or "path").strip("[].").upper()


def game_option(help_text: str, default: str = f"{DEFAULT_GAME}; `lvsim games` lists them"):
    """--game ID: the game of a command that reads no config; ``default`` says what no --game means."""
    return click.option(
        "--game", "game_id", type=click.Choice(GAME_IDS), default=None, metavar="ID",
        help=f"{help_text} One of: {', '.join(GAME_IDS)} (default: {default}).",
    )


def _seats_example(game, players: int = 4) -> str:
    """One seat of the game's default player against weaker seats: ``expert,greedy,greedy,greedy``."""
    strong = game.default_policy
    weak = "random" if strong == "greedy" else "greedy"
    return ",".join([strong] + [weak] * (players - 1))


def _game(game_id: str | None):
    from sim.games import get_game

    return get_game(game_id or DEFAULT_GAME, field="--game")


def cluster_options(fn):
    """--workers N / --scheduler ADDRESS: where the games are played (never changes the results)."""
    fn = click.option(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="Play on the Dask cluster whose scheduler is at ADDRESS (e.g. tcp://10.0.0.5:8786).",
    )(fn)
    fn = click.option(
        "--workers",
        type=IntRange(1),
        default=None,
        help="Play on N local worker processes (a Dask LocalCluster on 127.0.0.1).",
    )(fn)
    return fn


def threads_option(help_text: str = "Threads (overrides run.threads). Never changes the results."):
    """--threads N: how many threads play the games (never what they give)."""
    return click.option("--threads", type=IntRange(1), default=None, help=help_text)


def players_option(help_text: str):
    """--players N: the player count, checked by the command against its game's rules."""
    return click.option("--players", type=IntRange(1), default=None, help=help_text)


def out_dir_option(help_text: str):
    """--out DIR: the directory a command writes; ``help_text`` says which may be given and the default."""
    return click.option("--out", type=click.Path(file_okay=False), default=None, help=help_text)


def comma_list_option(name: str, dest: str, item: str, help_text: str):
    """--NAME ITEM[,ITEM...]: a comma-separated list, left as text for the command to read and check."""
    return click.option(name, dest, default=None, metavar=f"{item}[,{item}...]", help=help_text)


def comma_list_options(*rows: tuple[str, str, str, str]):
    """One :func:`comma_list_option` a ``(name, dest, item, help_text)`` row, shown in the rows' order."""

    def apply(fn):
        for row in reversed(rows):
            fn = comma_list_option(*row)(fn)
        return fn

    return apply


dry_run_option = click.option(
    "--dry-run", is_flag=True, help="Say what would be played and the estimated time; play and write nothing."
)


def player_counts(text: str | None, option: str = "--players") -> tuple[int, ...] | None:
    """Player counts given as ``3,4,5``, each once; None when the option is not given."""
    if text is None:
        return None
    items = [t.strip() for t in text.split(",")]
    if not all(t.isascii() and t.isdigit() for t in items):  # '²' is a digit to str.isdigit, but not to int()
        raise ConfigError(option, f"must be player counts separated by commas (e.g. 3,4,5), got {text!r}")
    counts = tuple(int(t) for t in items)
    twice = sorted({p for p in counts if counts.count(p) > 1})
    if twice:
        raise ConfigError(option, f"gives {', '.join(map(str, twice))} more than once; give each player count once")
    return counts


def config_at(config: str, players: int):
    """The config file read at ``players``, every rule checked at that count (a deck may deal it only there);
    a seat list of another count, or a count the game does not allow, names --players."""
    from sim.config import load_config

    try:
        return load_config(config, players=players)
    except ConfigError as err:
        if err.field == "policies.seats":
            _check_seats_carry_over(config, players)
        if err.field != "rules.players":
            raise
        raise ConfigError("--players", err.problem) from None  # the count is the option's, not the file's


def _check_seats_carry_over(config: str, players: int) -> None:
    """Refuse, naming --players, a config whose seat list is one policy per seat of another count."""
    from sim.config import load_config

    try:
        own = load_config(config)
    except ConfigError:
        return  # wrong at its own count too: the file's error stands
    if not isinstance(own.seats, str) and len(own.seats) != players:
        raise ConfigError(
            "--players", f"the config lists one policy per seat for {own.rules.players} players; give "
            f"[policies] seats one policy name for every seat, or a list of {players}"
        )


def _rules_for(game, rules: dict, players: int):
    """The game's rules with ``players`` put in; a count the game does not allow names --players."""
    try:
        return game.Rules.from_mapping({**rules, "players": players})
    except ConfigError as err:
        if err.field != "rules.players":
            raise  # another rule that does not hold at this count names itself
        raise ConfigError("--players", f"{err.problem} for {game.title}") from None
