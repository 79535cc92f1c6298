"""What every game's conformance module derives alike, from the game's own declarations.

A game's ``conformance.py`` answers the shared suite (``tests/conformance``);
the hooks that follow from what the game declares — its policies' cheap
forms, its reference engine's :class:`~sim.reference.PlayLoop` and player
for a policy name — are built here, so that each game states only what is
its own. Like the conformance modules, this one is imported by the tests
only: it imports hypothesis.
"""

from __future__ import annotations

import importlib
from types import ModuleType, SimpleNamespace
from typing import Any, Callable, Mapping

import numpy as np
from hypothesis import strategies as st

from sim.reference import PlayLoop
from sim.rng import Stream

# (rules, policy name) -> the reference engine's player for it
Player = Callable[[Any, str], Any]


def searched_and_reference_players(policies, parse_policy, package: str, plain: Callable[[Any, str], Any]):
    """A game's ``is_searched(policy)`` (a policy the reference engine alone plays: OpenSpiel's search, from
    ``package``'s ``state`` module; the search needs the openspiel extra) and ``reference_player(rules, name)``: that module's
    player for a searched policy, ``plain(rules, name)`` for every other."""

    def is_searched(policy: str) -> bool:
        return parse_policy(policy)[0] in policies.reference_only_ids

    def reference_player(rules, name: str):
        if is_searched(name):
            return importlib.import_module(f"{package}.state").player_named(rules, name)
        return plain(rules, name)

    return is_searched, reference_player


def bad_player_counts(fewest: int, most: int) -> list[tuple[dict[str, Any], str]]:
    """The bad [rules] tables every game refuses naming ``players``: one seat too few, one too many, and a count
    given as a string (``fewest .. most`` is the game's range)."""
    return [({"players": fewest - 1}, "players"), ({"players": most + 1}, "players"), ({"players": str(most)}, "players")]


def cheap_policies(policy_forms: Mapping[str, tuple[str, ...]], policies=None) -> tuple[str, ...]:
    """Every cheap form of every policy, in the order ``POLICY_FORMS`` lists them; given the game's ``policies``
    (sim.policy_spec), not those only the reference engine plays (too slow for the drawn seats of many games)."""
    slow = {name for name, spec in policies.specs.items() if spec.reference_only} if policies is not None else set()
    return tuple(form for name, forms in policy_forms.items() if name not in slow for form in forms)


def seat_policies_from(cheap: tuple[str, ...]) -> Callable[[int], Any]:
    """The ``seat_policies`` hook: players -> a strategy drawing one of the ``cheap`` forms per seat."""

    def seat_policies(players: int):
        """A policy per seat, any of the cheap forms."""
        return st.lists(st.sampled_from(cheap), min_size=players, max_size=players)

    return seat_policies


def play_reference_by(loop: PlayLoop, player: Player) -> Callable[..., dict[str, np.ndarray]]:
    """The ``play_reference`` hook: one game played by ``loop`` with ``player(rules, name)`` in each seat."""

    def play_reference(rules, seed: int, game: int, seats: list[str]) -> dict[str, np.ndarray]:
        """Game ``game`` of ``seed`` played by the reference engine, in the kernel's record layout."""
        return loop.play_game(rules, seed, game, [player(rules, s) for s in seats])

    return play_reference


class Recorded:
    """A reference-engine player that notes what it is handed before deciding; a game's subclass
    names its decisions, each noting (:meth:`note`) and then asking ``self.policy``."""

    def __init__(self, policy, log: list):
        self.policy = policy
        self.log = log

    def note(self, seen: dict[str, Any]) -> None:
        self.log.append(seen)


def reference_observations_by(loop: PlayLoop, player: Player, recorded: type[Recorded]) -> Callable[..., list]:
    """The ``reference_observations`` hook: the game played as by :func:`play_reference_by`, each seat's
    player wrapped in ``recorded`` so that what it is handed is noted in order."""

    def reference_observations(rules, seed: int, game: int, seats: list[str]) -> list[dict[str, Any]]:
        """What each policy is handed at every decision of the game, in the reference engine."""
        log: list = []
        loop.play_game(rules, seed, game, [recorded(player(rules, s), log) for s in seats])
        return log

    return reference_observations


def streams_of(loop: PlayLoop) -> Callable[[int], dict[str, int]]:
    """The ``streams`` hook: the random streams of a game, the table's, then one per seat's policy."""

    def streams(players: int) -> dict[str, int]:
        return {"table": loop.table_stream, **{f"seat {s} policy": loop.policy_stream + s for s in range(players)}}

    return streams


def decision_stream(sit) -> Stream:
    """A fresh stream for the seat to move of a situation holding its observation as ``obs``."""
    return Stream(5, 9, sit.obs.seat)


# What a game's conformance module declares, from which :func:`completed` derives the rest.
DECLARED = {
    "PLAY_LOOP": "the reference engine's PlayLoop (sim.reference)",
    "POLICY_FORMS": "policy -> its cheap concrete forms, for every policy of the game",
    "reference_player": "(rules, policy name) -> the reference engine's player for it",
    "Recorded": "a conformance_kit.Recorded that notes what each decision of the reference engine is handed",
}


def completed(module: ModuleType) -> SimpleNamespace:
    """A game's conformance module with the hooks that follow from its declarations (:data:`DECLARED`)
    filled in where the module does not give its own: the cheap policies and a seat strategy over them,
    the streams, the reference engine's plays and observations, the kernel's module (``nb`` beside the
    conformance module) and game loops, and the fresh decision stream of a situation holding ``obs``."""
    hooks = SimpleNamespace(**{k: v for k, v in vars(module).items() if not k.startswith("__")})
    if not all(hasattr(hooks, name) for name in DECLARED):
        return hooks
    loop, player = hooks.PLAY_LOOP, hooks.reference_player
    package = module.__name__.rsplit(".", 1)[0]
    cheap = cheap_policies(hooks.POLICY_FORMS, importlib.import_module(f"{package}.policies").POLICIES)
    derived = {
        "CHEAP_POLICIES": cheap,
        "seat_policies": seat_policies_from(cheap),
        "streams": streams_of(loop),
        "play_reference": play_reference_by(loop, player),
        "reference_observations": reference_observations_by(loop, player, hooks.Recorded),
        "KERNEL_MODULE": f"{package}.nb",
        "KERNEL_LOOPS": ("play_chunk_nb",),
        "decision_stream": decision_stream,
    }
    for name, value in derived.items():
        if not hasattr(hooks, name):
            setattr(hooks, name, value)
    return hooks
