"""Morris screening of a tune file's ``[search]`` domains: which knob moves each headline metric over the
whole domain, and which a one-step view at the base rules misjudges (the method: docs/sensitivity.md).

SALib draws the trajectories (on a generator of the tune's seed) and
summarises their elementary effects (mu*, mu, sigma, mu*_conf). Every point
is a rule set played on the tune's seed, deals and seats, so an elementary
effect is the paired difference of two plain runs, divided by the printed
step. A dimension with ``n`` values puts its ``p / 2`` lower levels on
values ``0 .. n - 1 - D`` and its upper ones on the same plus
``D = round(Delta * (n - 1))``, so every jump moves exactly ``D`` printed
units and every sampled value is one of the domain's. A knob is *clear*
when one of its elementary effects is clear after a Bonferroni correction
(each has its own jackknife standard error, ``sim.sensitivity.playing``),
*interacting or non-linear* when its spread beyond the noise exceeds mu*,
and *misjudged* by one step when the two readings differ in clearness,
slope or rank (:data:`RANK_MOVE`).
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from sim.errors import ConfigError, counted
from sim.knobs import inert_at, parse_path
from sim.sensitivity.playing import BLOCKS, block_tallies, effects, games_bar, jackknife, metric_values
from sim.sensitivity.study import tables
from sim.wording import wrapped

DEFAULT_TRAJECTORIES = 10
MAX_DEFAULT_LEVELS = 8
MAX_LEVELS = 64
# A knob misjudged by rank: its place among the clear knobs moves this many or more.
RANK_MOVE = 2
PARQUET_FILE = "morris.parquet"
HTML_FILE = "morris.html"


# --- the levels ----------------------------------------------------------------------------------


def delta_of(levels: int) -> float:
    """SALib's jump on [0, 1] with ``levels`` levels: ``levels / (2 (levels - 1))``."""
    return levels / (2 * (levels - 1))


def default_levels(sizes: Sequence[int]) -> int:
    """The largest domain's size rounded up to even, at least 2 and at most :data:`MAX_DEFAULT_LEVELS`."""
    largest = max(sizes)
    return max(2, min(MAX_DEFAULT_LEVELS, largest + largest % 2))


def level_indices(n: int, levels: int) -> tuple[list[int], int]:
    """``(index, step)``: the domain index (0 .. ``n - 1``) of each of the ``levels`` levels, and the jump
    ``step`` between a lower level and its upper one (every jump moves exactly ``step`` values)."""
    half = levels // 2
    step = min(n - 1, max(1, math.floor(delta_of(levels) * (n - 1) + 0.5)))
    room = n - 1 - step
    lower = [0 if half == 1 else math.floor(j * room / (half - 1) + 0.5) for j in range(half)]
    return lower + [i + step for i in lower], step


def dimensions(tune, levels: int) -> list[dict[str, Any]]:
    """Each searched value: its name, label, domain values, the value at each level and its jump ``step``."""
    out = []
    for d in tune.dims:
        values = d.values()
        if len(values) < 2:
            raise ConfigError(f'search."{d.key}"', f"{d.name} holds one value: nothing to screen")
        index, step = level_indices(len(values), levels)
        out.append({"knob": d.name, "label": tune.game.knob_label(d.name), "values": values,
                    "levels": [values[i] for i in index], "step": step, "choice": d.choices is not None})
    return out


# --- SALib ---------------------------------------------------------------------------------------


def _rng(seed: int, stream: int) -> np.random.Generator:
    """SALib's generator for ``stream`` (0 the sample, 1 the bootstrap of mu*_conf), a pure function of ``seed``:
    no global generator is touched."""
    return np.random.default_rng([seed, stream])


def problem_of(dims: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {"num_vars": len(dims), "names": [d["knob"] for d in dims], "bounds": [[0.0, 1.0]] * len(dims)}


def sample(dims: Sequence[Mapping[str, Any]], trajectories: int, levels: int, seed: int) -> np.ndarray:
    """SALib's Morris sample on [0, 1]: ``trajectories * (len(dims) + 1)`` rows, reproducible from ``seed``."""
    from SALib.sample import morris as morris_sample

    return morris_sample.sample(problem_of(dims), trajectories, num_levels=levels, seed=_rng(seed, 0))


def analyse(dims, X: np.ndarray, Y: np.ndarray, levels: int, seed: int) -> dict[str, np.ndarray]:
    """SALib's mu*, mu, sigma and mu*_conf of one metric, rescaled to a printed step (an integer: per unit; a
    choice: per switch)."""
    from SALib.analyze import morris as morris_analyze

    si = morris_analyze.analyze(problem_of(dims), X, Y, num_levels=levels, seed=_rng(seed, 1))
    scale = np.array([delta_of(levels) / (1 if d["choice"] else d["step"]) for d in dims])
    return {k: np.asarray(si[k], dtype=float) * scale for k in ("mu_star", "mu", "sigma", "mu_star_conf")}


# --- the screen ----------------------------------------------------------------------------------


def _key(values: Mapping[str, Any]) -> str:
    return json.dumps(values, sort_keys=True)


def morris_tables(tune, *, players=None, seats=None, games: int, seed: int) -> list:
    """The tune's base config at each player count (the tune's, or ``players``), with ``seats`` (default: the
    tune's first policy at every seat), on ``games`` games of ``seed``."""
    base = tune.config({}, policy=tune.policies[0], games=games, seed=seed)
    return tables(base, list(players or tune.players), seats)


def point_rules(tune, config, values: Mapping[str, Any]):
    """The rules of one point at ``config``'s count; a point the game refuses names the ``[search]`` key."""
    game = tune.game
    try:
        return game.Rules.from_mapping(game.rules_at_players(tune.rules_table(values), config.players))
    except ConfigError as err:
        shown = ", ".join(f"{k} = {json.dumps(v)}" for k, v in values.items())
        # The key of the knob the rules name, else the first searched: a combination names one of its knobs.
        named = err.field.removeprefix("rules.").split("[")[0]
        key = next((d.key for d in tune.dims if d.knob == named), tune.dims[0].key)
        raise ConfigError(f'search."{key}"', f"the Morris point {shown} is no rule set at {config.players} players: "
                                             f"{err}") from None


def plan_points(tune, configs, trajectories: int, levels: int | None, seed: int):
    """``(dims, levels, X, values, distinct)``: the sample, each row's printed values and, per table, the rules of
    its distinct points (every one checked)."""
    if levels is None:
        levels = default_levels([len(d.values()) for d in tune.dims])
    if levels % 2 or not 2 <= levels <= MAX_LEVELS:
        raise ConfigError("--levels", f"must be an even number from 2 to {MAX_LEVELS} (SALib's Morris grid: half "
                                      f"its levels below the jump, half above), got {levels}")
    dims = dimensions(tune, levels)
    X = sample(dims, trajectories, levels, seed)
    # The printed value of each dimension at each sampled row.
    values = [{d["knob"]: d["levels"][int(round(x * (levels - 1)))] for d, x in zip(dims, row)} for row in X]
    distinct = []
    for config in configs:
        here: dict[str, Any] = {}
        for v in values:
            if _key(v) not in here:
                here[_key(v)] = point_rules(tune, config, v)
        distinct.append(here)
    return dims, levels, X, values, distinct


def elementary_effects(dims, values, played: Mapping[str, Mapping[str, list]], metric: str, trajectories: int):
    """Each dimension's elementary effects on ``metric`` per printed step, ``(effect, se, blocks)`` each, from
    consecutive points of each trajectory (exactly one value moves between them)."""
    out: dict[str, list] = {d["knob"]: [] for d in dims}
    size = len(dims) + 1
    for t in range(trajectories):
        for i in range(t * size, (t + 1) * size - 1):
            a, b = values[i], values[i + 1]
            (moved,) = [d for d in dims if a[d["knob"]] != b[d["knob"]]]
            up = moved["values"].index(b[moved["knob"]]) > moved["values"].index(a[moved["knob"]])
            lo, hi = (a, b) if up else (b, a)
            delta, se, k = jackknife(played[_key(lo)][metric], played[_key(hi)][metric])
            per = 1 if moved["choice"] else moved["step"]
            out[moved["knob"]].append((None if delta is None else delta / per, None if se is None else se / per, k))
    return out


def inert_everywhere(knob: str, rule_sets) -> bool:
    """Whether the searched value ``knob`` (``rules.set_aside_face``, ``rules.seat_cabbages[3]``) cannot change a
    game under any of ``rule_sets`` (``Rules.inert``): its elementary effects are exactly zero."""
    name, path = parse_path(knob)
    return all(inert_at(rules.inert(), name, path) for rules in rule_sets)


def screen(tune, *, trajectories: int = DEFAULT_TRAJECTORIES, levels: int | None = None, games: int | None = None,
           seed: int | None = None, players: Sequence[int] | None = None, seats=None,
           progress: bool | None = None) -> dict[str, Any]:
    """The Morris screen of ``tune``'s ``[search]`` and the one-step study of the same knobs at its base rules, as
    ``lvsim sensitivity TUNEFILE --method morris --json`` prints it (docs/sensitivity.md)."""
    from sim.sensitivity.deviations import one_step
    from sim.sensitivity.playing import is_clear

    games = tune.games if games is None else games
    seed = tune.seed if seed is None else seed
    configs = morris_tables(tune, players=players, seats=seats, games=games, seed=seed)
    dims, levels, X, values, distinct = plan_points(tune, configs, trajectories, levels, seed)
    knobs = [d["knob"] for d in dims]
    steps = [one_step(c.game_spec, c.rules, knobs) for c in configs]
    total = sum(games * (len(here) + 1 + sum(not d.inert for d in devs)) for here, devs in zip(distinct, steps))
    rows: list[dict[str, Any]] = []
    bar = games_bar(total, progress)
    with bar:
        for config, here, devs in zip(configs, distinct, steps):
            played = {}
            for key, rules in here.items():
                one = replace(config, rules=rules)
                played[key] = metric_values(one, block_tallies(one, games, BLOCKS, bar.update))
            onestep = effects(config, games, deviations=devs, advance=bar.update)
            # A value no rule set of the screen lets change a game: its effects are exactly zero, not counted.
            inert = {d["knob"] for d in dims if inert_everywhere(d["knob"], [config.rules, *here.values()])}
            for metric in config.game_spec.headline_metrics:
                Y = np.array([played[_key(v)][metric][0] for v in values], dtype=float)
                ees = elementary_effects(dims, values, played, metric, trajectories)
                tried = sum(e[0] is not None for knob, per in ees.items() if knob not in inert for e in per)
                stats = analyse(dims, X, Y, levels, seed) if np.all(np.isfinite(Y)) else None
                for i, d in enumerate(dims):
                    per = ees[d["knob"]]
                    defined = [e for e in per if e[0] is not None and e[1] is not None]
                    clear = d["knob"] not in inert and any(is_clear(*e, tried) for e in defined)
                    noise = math.sqrt(sum(e[1] ** 2 for e in defined) / len(defined)) if defined else None
                    row = {"players": config.players, "seats": list(config.seat_policies), "knob": d["knob"],
                           "label": d["label"], "metric": metric, "games": games, "effects": len(per),
                           "mu_star": None, "mu": None, "sigma": None, "mu_star_conf": None, "noise": noise,
                           "clear": clear, "interacting": False, "inert": d["knob"] in inert}
                    if stats is not None:
                        row.update({k: float(stats[k][i]) for k in ("mu_star", "mu", "sigma", "mu_star_conf")})
                        beyond = math.sqrt(max(0.0, row["sigma"] ** 2 - (noise or 0.0) ** 2))
                        row["spread_beyond_noise"] = beyond
                        row["interacting"] = bool(clear and beyond > row["mu_star"])
                    row["one_step"] = _one_step_of(d["knob"], metric, onestep)
                    rows.append(row)
            _rank_and_compare([r for r in rows if r["players"] == config.players])
    return {"method": "morris", "game": tune.base.game, "tune": tune.name, "players": [c.players for c in configs],
            "seats": [list(c.seat_policies) for c in configs], "games": games, "seed": seed,
            "trajectories": trajectories, "levels": levels,
            "dims": [{k: d[k] for k in ("knob", "label", "values", "levels", "step", "choice")} for d in dims],
            "rule_sets": [len(here) for here in distinct], "rank_move": RANK_MOVE, "knobs": rows}


def _one_step_of(knob: str, metric: str, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The one-step reading of one searched value: its largest change (per printed step: each is one step) and
    whether any of its changes is clear."""
    mine = [r for r in rows if r["metric"] == metric and (r["knob"] == knob or r["knob"].startswith(knob + "["))
            and r["delta"] is not None]
    if not mine:
        return {"delta": None, "delta_ci": None, "to": None, "clear": False, "changes": 0}
    top = max(mine, key=lambda r: abs(r["delta"]))
    return {"delta": top["delta"], "delta_ci": top["delta_ci"], "from": top["from"], "to": top["to"],
            "clear": any(r["clear"] for r in mine), "changes": len(mine)}


def _rank_and_compare(rows: list[dict[str, Any]]) -> None:
    """Each row's Morris rank (by mu*) and one-step rank (by its largest change) among its metric's knobs, and
    whether the one-step view misjudges it and why: its clear reading differs; it is clear under both and one
    step's size (its 95% interval) lies wholly above or below mu* (its mu*_conf): steeper or flatter at the base
    rules than over the domain; or it is clear under either reading and its two ranks are :data:`RANK_MOVE` or
    more places apart."""
    for metric in dict.fromkeys(r["metric"] for r in rows):
        mine = [r for r in rows if r["metric"] == metric]
        by_mu = sorted(mine, key=lambda r: -(r["mu_star"] or 0.0))
        by_step = sorted(mine, key=lambda r: -abs(r["one_step"]["delta"] or 0.0))
        for i, r in enumerate(by_mu):
            r["rank"] = i + 1
        for i, r in enumerate(by_step):
            r["one_step"]["rank"] = i + 1
        for r in mine:
            why = []
            if r["clear"] and not r["one_step"]["clear"]:
                why.append("off the base rules" if r["one_step"]["changes"] else "not tried one step")
            elif r["one_step"]["clear"] and not r["clear"]:
                why.append("at the base rules only")
            o = r["one_step"]
            if r["clear"] and o["clear"] and o["delta_ci"] and r["mu_star"] is not None:
                # Per printed step both: one step's size against the mean over the domain, each with its interval.
                half, size = (o["delta_ci"][1] - o["delta_ci"][0]) / 2, abs(o["delta"])
                if size - half > r["mu_star"] + r["mu_star_conf"]:
                    why.append("steeper at the base rules")
                elif size + half < r["mu_star"] - r["mu_star_conf"]:
                    why.append("flatter at the base rules")
            mover = r["clear"] or o["clear"]
            if mover and abs(r["rank"] - o["rank"]) >= RANK_MOVE:
                why.append("rank")
            if why and r["interacting"]:
                why.append("interacting or non-linear")
            r["misjudged"] = bool(why)
            r["why"] = why


# --- the plan ------------------------------------------------------------------------------------


def plan_screen(tune, *, trajectories: int = DEFAULT_TRAJECTORIES, levels: int | None = None,
                games: int | None = None, seed: int | None = None, players: Sequence[int] | None = None,
                seats=None, page: bool = False, clock=None) -> dict[str, Any]:
    """What :func:`screen` would play and about how long it takes: at each count, the distinct Morris points and
    the one-step rule sets, each at the cost the base rules are timed at on this machine
    (``sim.sensitivity.study.rule_set_cost``), and with ``page`` the page's plots timed as they are drawn
    (``analysis.sensitivity.morris_page_seconds``); nothing is played or written beyond that timing."""
    from sim.estimates.compiling import compiled_seconds, compiled_since
    from sim.estimates.costs import band, now
    from sim.sensitivity.deviations import one_step
    from sim.sensitivity.study import priced

    compiled = compiled_seconds()
    games = tune.games if games is None else games
    seed = tune.seed if seed is None else seed
    configs = morris_tables(tune, players=players, seats=seats, games=games, seed=seed)
    dims, levels, X, values, distinct = plan_points(tune, configs, trajectories, levels, seed)
    counts = []
    for config, here in zip(configs, distinct):
        devs = one_step(config.game_spec, config.rules, [d["knob"] for d in dims])
        counts.append({"players": config.players, "points": len(values), "distinct_points": len(here),
                       "one_step": len(devs), "inert": sum(d.inert for d in devs),
                       **priced(lambda n, c=config: block_tallies(c, n, BLOCKS),
                                lambda tallies, c=config: metric_values(c, tallies), games,
                                len(here) + 1 + sum(not d.inert for d in devs), clock)})
    page_seconds = 0.0
    if page:
        from analysis.sensitivity import morris_page_seconds

        page_seconds = morris_page_seconds(tune.game, len(configs), len(dims), clock=clock or now)
    return {"method": "morris", "game": tune.base.game, "tune": tune.name, "games": games, "seed": seed,
            "trajectories": trajectories, "levels": levels, "dims": len(dims), "counts": counts,
            "page": page_seconds, "seconds": list(band(sum(c["seconds"] for c in counts) + page_seconds)),
            "compiled_seconds": compiled_since(compiled)}


def plan_text(plan: Mapping[str, Any]) -> str:
    from sim.estimates.costs import about_text, compiled_text, seconds_text
    from sim.sensitivity.study import cost_words

    lines = [wrapped(f"Morris screen of {plan['tune']} ({plan['game']}), seed {plan['seed']}:"),
             wrapped(f"  {counted(plan['dims'], 'searched value')}, {plan['trajectories']} trajectories on "
                     f"{plan['levels']} levels, {plan['games']:,} games per rule set")]
    for c in plan["counts"]:
        inert = f" ({c['inert']} inert, not played)" if c["inert"] else ""
        head = f"{c['players']} players  "
        lines.append(wrapped(f"{head}{c['points']} points ({c['distinct_points']} distinct) and {c['one_step']} one-step "
                             f"changes at the base rules{inert}, {cost_words(c)}", indent=" " * len(head)))
    if plan["page"]:
        lines.append(f"the page ({HTML_FILE}, its plots drawn)  {seconds_text(plan['page'])}")
    lines += ["", *compiled_text(plan.get("compiled_seconds"), "screen"), about_text(plan["seconds"], "played or written")]
    return "\n".join(lines)


# --- files ---------------------------------------------------------------------------------------


def screen_frame(result: Mapping[str, Any]):
    """The screen as a table, one row per (player count, knob, metric), the one-step reading beside it."""
    import pandas as pd

    rows = []
    for r in result["knobs"]:
        o = r["one_step"]
        ci = o.get("delta_ci") or [None, None]
        rows.append({"players": r["players"], "knob": r["knob"], "label": r["label"], "metric": r["metric"],
                     "games": r["games"], "effects": r["effects"], "mu_star": r["mu_star"], "mu": r["mu"],
                     "sigma": r["sigma"], "mu_star_conf": r["mu_star_conf"], "noise": r["noise"], "rank": r["rank"],
                     "clear": r["clear"], "interacting": r["interacting"], "inert": r.get("inert", False),
                     "one_step_delta": o["delta"],
                     "one_step_lo": ci[0], "one_step_hi": ci[1], "one_step_rank": o["rank"],
                     "one_step_clear": o["clear"], "misjudged": r["misjudged"], "why": "; ".join(r["why"]),
                     "seed": result["seed"], "trajectories": result["trajectories"], "levels": result["levels"]})
    floats = ["mu_star", "mu", "sigma", "mu_star_conf", "noise", "one_step_delta", "one_step_lo", "one_step_hi"]
    return pd.DataFrame(rows).astype({k: float for k in floats})


def write_screen(result: Mapping[str, Any], tune, out_dir: str | Path, *, answered: Callable[[], None] | None = None,
                 say: Callable[[str], None] | None = None) -> Path:
    """``morris.parquet``, then ``morris.html`` in ``out_dir`` (``sim.sensitivity.playing.write_table_and_page``)."""
    from analysis.sensitivity import morris_page
    from sim.sensitivity.playing import write_table_and_page

    return write_table_and_page(out_dir, PARQUET_FILE, screen_frame(result), HTML_FILE,
                                lambda: morris_page(result, tune), answered=answered, say=say)
