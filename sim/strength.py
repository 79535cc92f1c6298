"""The strength profile: the run's rules and deals played with every seat one strength of player.

What the verdicts of a run look like under each of the game's profile
policies (for Las Vegan ``random``, ``greedy`` and ``expert``:
``strength_games`` each, the same deals for all) and under its slow, strong
policy on a subsample (``strength_lookahead_games``; ``lookahead`` for Las
Vegan). ``analysis.strength`` compares them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sim.config import Config

def strength_profile(config: Config, games: int, lookahead_games: int) -> dict[str, Any]:
    """Headline metrics with every seat each policy in turn, on the run's seed (the same deals)."""
    from analysis.strength import profile_entry, verdict
    from sim.runner import run

    game = config.game_spec
    plan = [(p, games) for p in game.strength_policies if games > 0]
    if lookahead_games > 0 and game.strength_slow_policy is not None:
        plan.append((game.strength_slow_policy, lookahead_games))
    profiles = []
    for policy, n in plan:
        one = replace(config, seats=policy, games=n, skill_gap_games=0, strength_games=0,
                      strength_lookahead_games=0)
        summary = run(one, out=None, keep_records=False, progress=False, report=False).summary
        profiles.append({"policy": policy, "games": n, "metrics": profile_entry(summary, game.strength_metrics)})
    strength = {"profiles": profiles}
    seats = set(config.seat_policies)
    strength["verdict"] = verdict(strength, next(iter(seats)) if len(seats) == 1 else None, game.strength_metrics,
                                  game.strength_order)
    return strength
