"""The strength profile: the run's rules and deals played with every seat one strength of player.

What the verdicts of a run look like under ``random``, ``greedy`` and
``expert`` seats (``strength_games`` each, the same deals for all) and
under ``lookahead`` seats on a subsample (``strength_lookahead_games``).
``analysis.strength`` compares them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sim.config import Config

FAST_POLICIES = ("random", "greedy", "expert")
LOOKAHEAD_POLICY = "lookahead:16"


def strength_profile(config: Config, games: int, lookahead_games: int) -> dict[str, Any]:
    """Headline metrics with every seat each policy in turn, on the run's seed (the same deals)."""
    from analysis.strength import profile_entry, verdict
    from sim.runner import run

    plan = [(p, games) for p in FAST_POLICIES if games > 0]
    if lookahead_games > 0:
        plan.append((LOOKAHEAD_POLICY, lookahead_games))
    profiles = []
    for policy, n in plan:
        one = replace(config, seats=policy, games=n, skill_gap_games=0, strength_games=0,
                      strength_lookahead_games=0)
        summary = run(one, out=None, keep_records=False, progress=False, report=False).summary
        profiles.append({"policy": policy, "games": n, "metrics": profile_entry(summary)})
    strength = {"profiles": profiles}
    seats = set(config.seat_policies)
    strength["verdict"] = verdict(strength, next(iter(seats)) if len(seats) == 1 else None)
    return strength
