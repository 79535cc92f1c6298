"""A whole sensitivity study: one config's rules at each player count asked for, its plan, JSON and files.

:func:`study` is what ``lvsim sensitivity`` does; :func:`plan_study` what
its ``--dry-run`` says (the calibrated cost model of ``sim.estimates``);
:func:`write_study` writes ``sensitivity.parquet`` and ``sensitivity.html``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from sim.errors import ConfigError, counted
from sim.sensitivity.deviations import Deviation, one_step, run_plan, swap_knobs
from sim.sensitivity.playing import BLOCKS, block_tallies, effects, games_bar, metric_values, write_table_and_page
from sim.wording import wrapped

DEFAULT_GAMES = 10_000
PARQUET_FILE = "sensitivity.parquet"
HTML_FILE = "sensitivity.html"


def tables(config, players: Sequence[int] | None = None, seats: str | Sequence[str] | None = None, *,
           field: str = "--seats") -> list:
    """The config at each player count (its own when None), with ``seats`` (one policy or one per seat) put in.

    A count the game does not allow, or a rule that does not hold there, names ``--players``; seats that do not
    fit a count name ``field`` (``--seats``).
    """
    game = config.game_spec
    out = []
    for n in players or [config.players]:
        try:
            rules = game.Rules.from_mapping(game.rules_at_players(config.rules.to_dict(), n))
        except ConfigError as err:
            raise ConfigError("--players", f"{n} players: {err.field}: {err.problem}") from None
        one = replace(config, rules=rules)
        if seats is not None:
            seated = seats if isinstance(seats, str) else tuple(seats)
            game.parse_seats(seated, n, field=field)
            one = replace(one, seats=seated)
        elif not isinstance(one.seats, str) and len(one.seats) != n:
            raise ConfigError("--players", f"the config lists one policy per seat for {config.players} players; "
                                           f"give {field} one policy for every seat")
        out.append(one)
    return out


def also_tables(config, players: Sequence[int] | None, seats: str | Sequence[str], first: Sequence) -> list:
    """The tables played again with ``seats`` (``--also-seats``) beside the ``first`` ones; seats already played
    there are refused: the second table would be the first again, its games doubled for nothing."""
    also = tables(config, players, seats, field="--also-seats")
    for one, played in zip(also, first):
        seated = one.seat_policies
        if seated == played.seat_policies:
            said = f"{seated[0]} at every seat" if len(set(seated)) == 1 else ",".join(seated)
            raise ConfigError("--also-seats", f"{said} is the table already played at {one.players} players: "
                                              "nothing to compare; give other policies")
    return also


def deviations_of(configs: Sequence, knobs: Sequence[str] | None) -> list[list[Deviation]]:
    """Each config's one-step deviations; a knob path that names none names ``--knobs``."""
    out = []
    for config in configs:
        try:
            out.append(one_step(config.game_spec, config.rules, knobs))
        except ValueError as err:
            raise ConfigError("--knobs", str(err)) from None
    return out


def played_games(games: int, deviations: Sequence[Sequence[Deviation]]) -> int:
    """Games a study plays: at each count the base rules' and every deviation's but the inert ones'."""
    return sum(games * (1 + sum(not d.inert for d in devs)) for devs in deviations)


def study(config, games: int = DEFAULT_GAMES, *, players: Sequence[int] | None = None,
          seats: str | Sequence[str] | None = None, knobs: Sequence[str] | None = None,
          also_seats: str | Sequence[str] | None = None, progress: bool | None = None) -> dict[str, Any]:
    """The one-step sensitivity of ``config``'s rules at each of ``players`` (its own count when None), as
    ``lvsim sensitivity --json`` prints it: ``{"game", "players", "seats", "games", "seed", "effects"}``.

    ``also_seats`` (one policy or one per seat, ``--also-seats``) plays every table again with those seats, the
    same deals and the same changes: ``"also": {"seats": [...], "effects": [...]}`` beside the first table's,
    which stays exactly the study without it.
    """
    configs = tables(config, players, seats)
    deviations = deviations_of(configs, knobs)
    also = None if also_seats is None else also_tables(config, players, also_seats, configs)
    bar = games_bar(played_games(games, deviations) * (1 if also is None else 2), progress)
    rows: list[dict[str, Any]] = []
    also_rows: list[dict[str, Any]] = []
    with bar:
        for one, devs in zip(configs, deviations):
            rows += effects(one, games, deviations=devs, advance=bar.update)
        for one, devs in zip(also or [], deviations):
            # The same changes of the same rules: only the seats differ, so the deviations are the first table's.
            also_rows += effects(one, games, deviations=devs, advance=bar.update)
    out = {"game": config.game, "players": [c.players for c in configs],
           "seats": [list(c.seat_policies) for c in configs], "games": games, "seed": config.seed,
           "effects": rows}
    if also is not None:
        out["also"] = {"seats": [list(c.seat_policies) for c in also], "effects": also_rows}
    return out


# The summaries of one rule set (every block together, each left out) are timed this many times, the quickest kept.
SUMMARY_TIMINGS = 3


def rule_set_cost(play: Callable[[int], Any], summarise: Callable[[Any], Any], cap: int, *, clock=None):
    """The cost of one rule set of a study: ``fixed + games * per_game`` seconds (a ``sim.estimates.Cost``).

    ``play(n)`` plays ``n`` games in blocks and returns their tallies, calibrated as every estimate is;
    ``summarise(tallies)``, the jackknife's summaries, costs the same whatever the games: it is timed on the
    largest call's tallies (the quickest of :data:`SUMMARY_TIMINGS`) and added to the fixed part. ``start``
    is what the process's first call took beyond its games, paid once a table.
    """
    from sim.estimates.costs import Cost, calibrate, now

    clock = clock or now
    timed = calibrate(play, cap, start=BLOCKS, clock=clock)
    seconds = []
    for _ in range(SUMMARY_TIMINGS):
        began = clock()
        summarise(timed.result)
        seconds.append(clock() - began)
    return Cost(timed.cost.fixed + min(seconds), timed.cost.per_game, timed.cost.start)


def plan_study(config, games: int = DEFAULT_GAMES, *, players: Sequence[int] | None = None,
               seats: str | Sequence[str] | None = None, knobs: Sequence[str] | None = None,
               also_seats: str | Sequence[str] | None = None, clock=None) -> dict[str, Any]:
    """What :func:`study` would play and about how long it takes: at each count (and again with ``also_seats``,
    timed with those seats), the rules as printed timed on this machine (:func:`rule_set_cost`) and that cost
    paid by every rule set played, nothing written."""
    from sim.estimates.compiling import compiled_seconds, compiled_since
    from sim.estimates.costs import band

    compiled = compiled_seconds()
    configs = tables(config, players, seats)
    deviations = deviations_of(configs, knobs)
    if also_seats is not None:
        also = also_tables(config, players, also_seats, configs)
        deviations = deviations + deviations
        configs = configs + also
    counts = [{"players": one.players, "seats": list(one.seat_policies), "deviations": len(devs),
               "inert": sum(d.inert for d in devs),
               **priced(lambda n, one=one: block_tallies(one, n, BLOCKS),
                        lambda tallies, one=one: metric_values(one, tallies), games,
                        1 + sum(not d.inert for d in devs), clock)}
              for one, devs in zip(configs, deviations)]
    return {"game": config.game, "games": games, "seed": config.seed, "counts": counts,
            "seconds": list(band(sum(c["seconds"] for c in counts))), "compiled_seconds": compiled_since(compiled)}


def priced(play: Callable[[int], Any], summarise: Callable[[Any], Any], games: int, rule_sets: int,
           clock=None) -> dict[str, Any]:
    """A dry run's ``rule_sets`` rule sets of ``games`` games at one count, each at the cost of
    :func:`rule_set_cost`, the process's first call paid once."""
    cost = rule_set_cost(play, summarise, games, clock=clock)
    return {"rule_sets": rule_sets, "games": games * rule_sets,
            "seconds": cost(games * rule_sets, calls=rule_sets) + cost.start, "cost": cost.as_dict()}


def cost_words(count: Mapping[str, Any]) -> str:
    """A dry run's games at one count, their time and what each rule set costs."""
    from sim.estimates.costs import seconds_text

    return (f"{count['games']:,} games, {seconds_text(count['seconds'])} (each rule set {count['cost']['fixed']:.2f} s "
            f"+ {1e3 * count['cost']['per_game']:.2f} ms a game)")


def plan_text(plan: dict[str, Any]) -> str:
    from sim.estimates.costs import about_text, compiled_text

    lines = [f"Sensitivity of {plan['game']}: {plan['games']:,} games per rule set, seed {plan['seed']}"]
    tables_seated = {tuple(c.get("seats", ())) for c in plan["counts"]}
    several = len({tuple(sorted(set(s))) for s in tables_seated}) > 1
    for c in plan["counts"]:
        inert = f" ({c['inert']} inert, not played)" if c["inert"] else ""
        seated = f", {', '.join(dict.fromkeys(c['seats']))}" if several else ""
        head = f"{c['players']} players{seated}  "
        lines.append(wrapped(f"{head}{counted(c['deviations'], 'one-step deviation')}{inert}, {cost_words(c)}",
                             indent=" " * len(head)))
    lines += ["", *compiled_text(plan.get("compiled_seconds"), "study"), about_text(plan["seconds"], "played or written")]
    return "\n".join(lines)


def effects_frame(result: dict[str, Any]):
    """The effects as a table, one row per (player count, seats, deviation, metric): the seats are the study's,
    and with ``also`` the second table's too; printed values as JSON text (they are numbers, words or flags)."""
    import pandas as pd

    seats = {n: ",".join(s) for n, s in zip(result["players"], result["seats"])}
    also = result.get("also")
    tabled = [(r, seats) for r in result["effects"]]
    if also:
        tabled += [(r, {n: ",".join(s) for n, s in zip(result["players"], also["seats"])}) for r in also["effects"]]
    rows = []
    for r, seated in tabled:
        ci = r["delta_ci"] or [None, None]
        rows.append({**{k: v for k, v in r.items() if k not in ("from", "to", "delta_ci")},
                     "from": json.dumps(r["from"]), "to": json.dumps(r["to"]), "delta_lo": ci[0], "delta_hi": ci[1],
                     "seats": seated[r["players"]], "seed": result["seed"]})
    columns = ["players", "seats", "knob", "label", "from", "to", "metric", "games", "base", "value", "delta",
               "delta_lo", "delta_hi", "clear", "inert", "seed"]
    return pd.DataFrame(rows, columns=columns).astype(
        {"base": float, "value": float, "delta": float, "delta_lo": float, "delta_hi": float})


def write_study(result: dict[str, Any], config, out_dir: str | Path, *, answered: Callable[[], None] | None = None,
                say: Callable[[str], None] | None = None) -> Path:
    """``sensitivity.parquet``, then ``sensitivity.html`` in ``out_dir`` (:func:`write_table_and_page`)."""
    from analysis.sensitivity import study_page

    return write_table_and_page(out_dir, PARQUET_FILE, effects_frame(result), HTML_FILE,
                                lambda: study_page(result, config), answered=answered, say=say)


# --- the run report's section (sized by sim.sensitivity.deviations.run_plan) ------------------------


def plan_run_section(config, *, clock=None) -> dict[str, Any]:
    """What a run's "What moves the verdict" would play and about how long it takes (the rule sets
    :func:`run_sensitivity` plays, each at the cost :func:`rule_set_cost` times on this machine)."""
    deviations, games = run_plan(config)
    if games <= 0:
        return {"rule_sets": 0, "games": 0, "seconds": 0.0}
    rule_sets = 1 + sum(not d.inert for d in deviations)
    cost = rule_set_cost(lambda n: block_tallies(config, n, BLOCKS), lambda tallies: metric_values(config, tallies),
                         games, clock=clock)
    return {"rule_sets": rule_sets, "games": games, "seconds": cost(games * rule_sets, calls=rule_sets)}


def run_sensitivity(config) -> dict[str, Any] | None:
    """The summary's ``sensitivity`` of a run: the one-step effects at its player count and seats, on its seed,
    but for the sticker swaps (left to ``lvsim sensitivity``: ``swaps_left``, how many per knob label); None
    when it has none (``sim.sensitivity.deviations.run_games`` is 0)."""
    game = config.game_spec
    deviations, games = run_plan(config)
    if games <= 0:
        return None
    rows = effects(config, games, deviations=deviations)
    knobs = swap_knobs(game)
    swaps = one_step(game, config.rules, [f"rules.{k}" for k in knobs]) if knobs else []
    left = dict(Counter(game.knob_label(d.knob.split("[")[0]) for d in swaps))
    return {"players": [config.players], "games": games, "seed": config.seed,
            "played_games": played_games(games, [deviations]), "swaps_left": left, "effects": rows}
