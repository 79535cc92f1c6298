"""The recommended rules as something to play: ``best.toml``, and their balance reports at every tuned
setting in ``best/<players>p-<policy>/``."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

from sim.errors import and_listed
from sim.tune.directory import BEST_RUN_DIR
from sim.tune.evaluation import Judged
from sim.tune.spec import Tune
from sim.tune.targets import _finite_or_none, setting_name, watched_value
from sim.tune.text import all_met, describe


def best_setting(tune: Tune) -> tuple[int, str]:
    """The player count and policy ``best.toml`` plays: the tune's own when it has one; of several, the
    base config's player count if tuned (else the first tuned) and the first policy listed."""
    players = tune.base.players if tune.base.players in tune.players else tune.players[0]
    return players, tune.policies[0]


def _best_toml(tune: Tune, best: Judged) -> str:
    players, policy = best_setting(tune)
    config = tune.config(best.values, players, policy, name=f"{tune.name}-best")
    if all_met(tune, best):
        what = f"The rules `lvsim tune {tune.path}` recommends: {describe(tune, best.values)}."
    else:
        what = (f"No candidate `lvsim tune {tune.path}` tried meets every target on a fresh seed; the closest: "
                f"{describe(tune, best.values)}.")
    lines = [f"# {what}",
             "# Verdicts on a fresh seed: " + ", ".join(f"{m} {v}" for m, v in best.verdict(tune).items()) + "."]
    if len(tune.players) > 1 or len(tune.policies) > 1:
        lines.append(f"# Tuned at {and_listed(map(str, tune.players))} players with {and_listed(tune.policies)} at every seat; "
                     f"this file plays {players} players with {policy}: set rules.players and policies.seats for "
                     "the others.")
    else:
        lines.append(f"# Tuned at {players} players with {policy} at every seat, as this file plays.")
    lines.append("# Play them with: lvsim run <this file>")
    body = config.to_toml().splitlines()[1:]  # its own comment line says "resolved config"
    return "\n".join(lines + body) + "\n"


def _best_reports(tune: Tune, best: Judged, out_dir: Path, games: int | None) -> dict[str, Any] | None:
    """Play the recommended rules as normal runs with their balance reports, one per tuned setting, into
    ``best/<players>p-<policy>/``; None if none could be written."""
    from analysis.sweep import summary_row
    from sim.runner import run

    games = games or tune.games
    reports = []
    for players, policy in tune.report_settings():
        config = replace(tune.config(best.values, players, policy, name=f"{tune.name}-best"), games=games)
        sub = f"{BEST_RUN_DIR}/{players}p-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", policy)
        target = out_dir / sub
        played = target / "config.toml"
        if not ((target / "report.html").is_file() and played.is_file()
                and played.read_text(encoding="utf-8") == config.to_toml()):
            if target.exists():
                shutil.rmtree(target)
            run(config, out=target, progress=False, report=True)
        if not (target / "report.html").is_file():
            continue
        summary = json.loads((target / "summary.json").read_text(encoding="utf-8")) \
            if (target / "summary.json").is_file() else {}
        row = {**(summary_row(summary) if summary else {}), "games": games}
        holes = {m: [_finite_or_none(v) for v in watched_value(row, m)] for m in tune.game.rule_holes}
        reports.append({"setting": setting_name(players, policy), "players": players, "policy": policy, "dir": sub,
                        "report": f"{sub}/report.html", "games": games, "rule_holes": holes})
    return {"games": games, "settings": reports} if reports else None
