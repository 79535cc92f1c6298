"""One-step deviations of a rule set: every printed value of the rules moved by one step, read off the knobs.

The steps come from each knob's declared domain (``sim.knobs``): an
integer (and each face of a pair, each entry of a list of integers) one
up and one down within its range, by the knob's declared step where it
has one (dollars by the bills they are counted in); a choice (a flag, a machine sticker in
a list) each of its other options; ``'auto'`` starts from the number it
stands for under the rules (the knob's ``auto``). A step the rules refuse
as a whole (cards set aside that no longer divide among the players) is
not a printed rule set and is left out. The table's size (``players``)
is not a step: game ``i`` is dealt alike only at the same player count, so
each count is a study of its own. A knob whose values only the game
checks (a pay table, a deck of symbols) has no declared steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from sim.errors import ConfigError
from sim.knobs import Choice, Domain, Flag, Int, Knob, ListOf, OrAuto, Pair, inert_at, parse_path
from sim.overrides import entry_at, entry_name, put_entry

# The knob that sizes the table: never a step (another count deals other games).
TABLE_SIZE = "players"


@dataclass(frozen=True)
class Deviation:
    """One printed value of the rules changed by one step: ``knob`` (a dotted path a sweep or tune accepts,
    ``rules.tokens[2][1]``) from ``before`` to ``after``; ``rules`` the rules with it changed.

    ``inert``: the knob cannot change a game under the base rules (``Rules.inert``), so the
    deviation's effect is exactly zero and it is not played.
    """

    knob: str
    label: str  # the knob in a designer's words: "token 3, face 2"
    before: Any
    after: Any
    rules: Any
    inert: bool = False


def one_step(game, rules, knobs: Sequence[str] | None = None, *, swaps: bool = True) -> list[Deviation]:
    """Every one-step deviation of ``rules`` (the game's ``Rules``), in the order the knobs are declared.

    ``swaps=False`` leaves out the sticker swaps (:func:`swap_knobs`: a list of kinds, each entry swapped for
    every other kind, a dozen deviations an entry), as a run's report does.

    ``knobs`` keeps only the deviations at or under the given paths (``rules.tokens`` every face of
    every token, ``tokens[2]`` token 3's faces); ValueError names a path that names no knob or
    entry of these rules, or whose knob is the table's size.
    """
    wanted = None if knobs is None else [_checked_path(game, rules, k) for k in knobs]
    table = rules.to_dict()
    inert = set(rules.inert())
    out: list[Deviation] = []
    for knob in game.knobs.values():
        if knob.name == TABLE_SIZE or (not swaps and is_swap(knob.domain)):
            continue
        for path, before, after in _steps(knob, knob.domain, table[knob.name], (), rules):
            if wanted is not None and not any(_under((knob.name, path), w) for w in wanted):
                continue
            changed = rules.to_dict()
            put_entry(changed, knob.name, path, after)
            try:
                deviated = type(rules).from_mapping(changed)
            except ConfigError:
                continue  # not a rule set the rules allow: no printed number
            if deviated == rules:
                continue
            where = entry_name(knob.name, path)
            out.append(Deviation(where, game.knob_label(where), before, after, deviated,
                                 inert_at(inert, knob.name, path)))
    return out


# A list of kinds is "swaps" when each entry has more other kinds than this: its deviations are many.
SWAP_KINDS = 2


def is_swap(domain: Domain) -> bool:
    """A list of choices (Las Vegan's machine stickers), each entry with more than :data:`SWAP_KINDS` kinds."""
    return isinstance(domain, ListOf) and isinstance(domain.item, Choice) and len(domain.item.options) > SWAP_KINDS + 1


def swap_knobs(game) -> list[str]:
    """The knobs whose one-step deviations are sticker swaps (:func:`is_swap`), by name."""
    return [k.name for k in game.knobs.values() if is_swap(k.domain)]


def _steps(knob: Knob, domain: Domain, value: Any, path: tuple[int, ...], rules) -> Iterator[tuple[tuple, Any, Any]]:
    """``(path, before, after)`` of each one-step change of ``value`` (plain, as a config writes it)."""
    if isinstance(domain, OrAuto):
        if value == "auto":
            if knob.auto is None:
                return
            value = knob.auto(rules)
        yield from _steps(knob, domain.inner, value, path, rules)
    elif isinstance(domain, Flag):
        yield path, value, not value
    elif isinstance(domain, Int):
        size = 1 if knob.step is None else knob.step(rules, path)
        for after in (value - size, value + size):
            if domain.lo <= after <= domain.hi:
                yield path, value, after
    elif isinstance(domain, Choice):
        for option in domain.options:
            if option != value:
                yield path, value, option
    elif isinstance(domain, Pair):
        for i, (item, entry) in enumerate(zip(domain.items, value)):
            yield from _steps(knob, item, entry, (*path, i), rules)
    elif isinstance(domain, ListOf):
        for i, entry in enumerate(value):
            yield from _steps(knob, domain.item, entry, (*path, i), rules)
    # Custom: a shape only the game knows has no declared step.


def _checked_path(game, rules, path: str) -> tuple[str, tuple[int, ...]]:
    name, indices = parse_path(path.strip())
    if name not in game.knobs:
        raise ValueError(f"{path!r} names no knob of {game.title} (knobs: {', '.join(game.knobs)})")
    if name == TABLE_SIZE:
        raise ValueError(f"{path!r} is the table's size, not a printed rule: give player counts with --players")
    try:
        entry_at(rules.to_dict(), name, indices)
    except (LookupError, TypeError):
        raise ValueError(f"{path!r} names no entry of these rules' {name}") from None
    return name, indices


def _under(step: tuple[str, tuple[int, ...]], wanted: tuple[str, tuple[int, ...]]) -> bool:
    (name, path), (wanted_name, wanted_path) = step, wanted
    return name == wanted_name and path[:len(wanted_path)] == wanted_path


def plain_value(value: Any) -> Any:
    """A printed value as JSON writes it (tuples as lists)."""
    if isinstance(value, tuple):
        return [plain_value(v) for v in value]
    return value


# --- the run report's section ------------------------------------------------------------------

# "auto" gives each rule set the run's games shared among them, but never fewer than this: a jackknife over
# 10 blocks wants a few games a block.
MIN_AUTO_GAMES = 50


def run_games(config, deviations: Sequence[Deviation] | None = None) -> int:
    """Games per rule set of a run's "What moves the verdict": ``run.sensitivity_games``, or for ``"auto"``
    the run's games shared among the rule sets played (the rules as printed and every deviation but the
    inert ones and the sticker swaps), so the section plays at most the run's own games again; 0 when that
    is fewer than :data:`MIN_AUTO_GAMES` each, or when the key is 0."""
    if config.sensitivity_games != "auto":
        return config.sensitivity_games
    if deviations is None:
        deviations = one_step(config.game_spec, config.rules, swaps=False)
    each = config.games // rule_sets(deviations)
    return each if each >= MIN_AUTO_GAMES else 0


def rule_sets(deviations: Sequence[Deviation]) -> int:
    """The rule sets a run's "What moves the verdict" plays: the rules as printed and each deviation but the
    inert ones."""
    return 1 + sum(not d.inert for d in deviations)


def run_plan(config) -> tuple[list[Deviation], int]:
    """The one-step deviations a run's "What moves the verdict" plays, and its games per rule set: 0 when it
    plays none (no deviation, or :func:`run_games` is 0)."""
    deviations = one_step(config.game_spec, config.rules, swaps=False)
    return deviations, run_games(config, deviations) if deviations else 0
