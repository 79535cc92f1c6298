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
import importlib.util
import itertools
import json
from types import ModuleType, SimpleNamespace
from typing import Any, Callable, Mapping, NamedTuple, Sequence

import numpy as np
from hypothesis import strategies as st

from sim.reference import PlayLoop, engine_of, player_named_of
from sim.rng import Stream

# (rules, policy name) -> the reference engine's player for it
Player = Callable[[Any, str], Any]


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


def recorded_of(decisions) -> type[Recorded]:
    """The ``Recorded`` of a game that declares its decisions (``sim.reference.Decision``): each method notes
    what the policy is handed, then asks the player."""

    def method(d):
        def decide(self, obs, rng):
            self.note(d.seen(d.handed(obs)))
            return getattr(self.policy, d.method)(obs, rng)

        decide.__name__ = d.method
        return decide

    return type("Recorded", (Recorded,), {d.method: method(d) for d in decisions})


def kernel_policy_calls_of(decisions) -> dict[str, Callable]:
    """``KERNEL_POLICY_CALLS`` of a game whose kernel calls each declared decision's jitted policy as its
    players do: what the policy is handed, then the arguments passed on unchanged."""

    def call(d):
        return lambda policy_id, params, *args: (d.seen(args[:len(d.names)]), (policy_id, params, *args))

    return {d.kernel.py_func.__name__: call(d) for d in decisions}


def decide_at_of(decisions) -> Callable[[Any, Any, Stream], Any] | None:
    """``decide_at`` of a game with one kind of decision: the player's answer for the seat to move."""
    if len(decisions) != 1:
        return None
    [d] = decisions
    return lambda state, player, stream: getattr(player, d.method)(state.observe(state.to_move()), stream)


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


# What a game's conformance module declares, from which :func:`completed` derives the rest; each is derived too
# from a game package laid out as High Card's (examples/highcard) when the module does not give it.
DECLARED = {
    "PLAY_LOOP": "the reference engine's PlayLoop (sim.reference)",
    "POLICY_FORMS": "policy -> its cheap concrete forms, for every policy of the game",
    "reference_player": "(rules, policy name) -> the reference engine's player for it",
    "Recorded": "a conformance_kit.Recorded that notes what each decision of the reference engine is handed",
}
# Derived from the reference engine's ``DECISIONS`` (sim.reference.Decision) when it declares them: ``Recorded``,
# ``KERNEL_POLICY_CALLS`` and, for a game with one kind of decision, ``decide_at``.


def part(package: str, name: str) -> ModuleType | None:
    """The module ``name`` of the game's package, or None if it has none."""
    full = f"{package}.{name}"
    return importlib.import_module(full) if importlib.util.find_spec(full) is not None else None


def policy_forms_of(policies) -> dict[str, tuple[str, ...]] | None:
    """``POLICY_FORMS`` when every policy of ``policies`` (sim.policy_spec) is named without parameters: each its
    name alone; None when one needs a parameter (the game then lists its cheap forms)."""
    if any(spec.params for spec in policies.specs.values()):
        return None
    return {name: (name,) for name in policies.specs}


def completed(module: ModuleType | None, package: str | None = None) -> SimpleNamespace:
    """A game's conformance module (None: the game has none) with the hooks that follow from the game's
    declarations filled in where the module does not give its own. From the package: its reference engine's
    loop and players (``PLAY_LOOP``, ``player_named`` of ``rules``, or of ``state`` when the state is the
    engine) and the policies' forms. From the Rules' knob declarations: the rule sets, the bad [rules] tables
    (with the module's ``BAD_COMBINATIONS``), the small config and a sweep's axis. From the state: a replay
    script and, given the module's ``decide_at``, the information-set situations. Then the cheap policies and a
    seat strategy over them, the streams, the reference engine's plays and observations, the kernel's module
    (``nb``) and game loops, and the fresh decision stream of a situation holding ``obs``."""
    package = package or module.__name__.rsplit(".", 1)[0]
    hooks = SimpleNamespace(**({} if module is None else
                               {k: v for k, v in vars(module).items() if not k.startswith("__")}))

    def fill(name: str, value: Callable[[], Any]) -> None:
        if not hasattr(hooks, name):
            found = value()
            if found is not None:
                setattr(hooks, name, found)

    rules_module = engine_of(package)
    policies = importlib.import_module(f"{package}.policies").POLICIES
    game = importlib.import_module(f"{package}.game").GAME
    Rules = game.Rules
    fill("PLAY_LOOP", lambda: getattr(rules_module, "PLAY_LOOP", None))
    fill("reference_player", lambda: player_named_of(rules_module))
    fill("POLICY_FORMS", lambda: policy_forms_of(policies))
    decisions = getattr(rules_module, "DECISIONS", None)
    if decisions is not None:
        fill("Recorded", lambda: recorded_of(decisions))
        fill("KERNEL_POLICY_CALLS", lambda: kernel_policy_calls_of(decisions))
        fill("decide_at", lambda: decide_at_of(decisions))
    fill("rule_sets", lambda: rule_sets_of(Rules))
    fill("BAD_RULES", lambda: bad_rules_of(Rules, getattr(hooks, "BAD_COMBINATIONS", [])))
    fill("SMALL_CONFIG", lambda: small_config_of(game))
    fill("SWEEP_AXIS", lambda: sweep_axis_of(Rules))
    if part(package, "replay") is None:
        fill("REPLAY_SCRIPT", lambda: replay_script_of(game, importlib.import_module(f"{package}.state").STATE))
    if hasattr(hooks, "decide_at") and hasattr(hooks, "reference_player"):
        state_class = importlib.import_module(f"{package}.state").STATE
        more = getattr(hooks, "INFORMATION_RULES", ())
        for name, value in information_hooks(game, state_class, hooks.decide_at, hooks.reference_player,
                                             more).items():
            fill(name, lambda value=value: value)
    if not all(hasattr(hooks, name) for name in DECLARED):
        return hooks
    loop, player = hooks.PLAY_LOOP, hooks.reference_player
    cheap = cheap_policies(hooks.POLICY_FORMS, policies)
    derived = {
        "CHEAP_POLICIES": cheap,
        "seat_policies": seat_policies_from(cheap),
        "streams": streams_of(loop),
        "play_reference": play_reference_by(loop, player),
        "reference_observations": reference_observations_by(loop, player, hooks.Recorded),
        "KERNEL_MODULE": f"{package}.nb",
        "KERNEL_LOOPS": getattr(importlib.import_module(f"{package}.nb"), "KERNEL_LOOPS", ("play_chunk_nb",)),
        "decision_stream": decision_stream,
    }
    for name, value in derived.items():
        if not hasattr(hooks, name):
            setattr(hooks, name, value)
    return hooks


# --- what follows from the Rules' knob declarations (sim.knobs) ---------------------------------

UNKNOWN_KNOB = "no_such_rule"


def domain_values(domain) -> st.SearchStrategy:
    """Any value of a knob's domain, as a config writes it; a Custom domain (its form is the game's) gives none."""
    from sim import knobs as K

    if isinstance(domain, K.Int):
        return st.integers(domain.lo, domain.hi)
    if isinstance(domain, K.Choice):
        return st.sampled_from(list(domain.options))
    if isinstance(domain, K.Flag):
        return st.booleans()
    if isinstance(domain, K.OrAuto):
        return st.one_of(st.just("auto"), domain_values(domain.inner))
    if isinstance(domain, K.Pair):
        return st.tuples(*(domain_values(d) for d in domain.items)).map(list)
    if isinstance(domain, K.ListOf) and domain.least is not None and domain.most is not None:
        return st.lists(domain_values(domain.item), min_size=domain.least, max_size=domain.most)
    return st.nothing()


def rule_sets_of(Rules) -> Callable[[], st.SearchStrategy]:
    """The ``rule_sets`` hook: any valid Rules, each knob drawn over its domain (a knob whose domain the kit cannot
    draw keeps its default), the tables ``check_combinations`` refuses drawn again."""
    from sim.errors import ConfigError

    def valid(table):
        try:
            return Rules.from_mapping(table)
        except ConfigError:
            return None

    def rule_sets() -> st.SearchStrategy:
        """Any valid rule set: every knob drawn over the values it takes."""
        drawn = {name: domain_values(knob.domain) for name, knob in Rules.KNOBS.items()}
        table = st.fixed_dictionaries({name: values for name, values in drawn.items() if not values.is_empty})
        return table.map(valid).filter(lambda rules: rules is not None)

    return rule_sets


def bad_values(domain) -> list[Any]:
    """Values a knob's domain refuses whatever the other knobs: out of its range, or not of its form."""
    from sim import knobs as K

    if isinstance(domain, K.Int):
        return [domain.lo - 1, domain.hi + 1, str(domain.hi)]
    if isinstance(domain, K.Choice):
        return ["-".join(domain.options) + "?"]
    if isinstance(domain, K.Flag):
        return ["yes"]
    if isinstance(domain, K.OrAuto):
        return ["sometimes"]
    if isinstance(domain, (K.Pair, K.ListOf)):
        return ["a list"]
    return []


def bad_rules_of(Rules, combinations: list[tuple[dict[str, Any], str]] = ()) -> list[tuple[dict[str, Any], str]]:
    """The ``BAD_RULES`` hook: for every knob, values its domain refuses; a key no knob has; then the game's own
    ``combinations`` (tables of good values that ``Rules.check_combinations`` refuses, with the key it names)."""
    own = [({name: value}, name) for name, knob in Rules.KNOBS.items() for value in bad_values(knob.domain)]
    return [*own, ({UNKNOWN_KNOB: 1}, UNKNOWN_KNOB), *combinations]


def toml_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value)  # ints, floats, strings and booleans are written alike in JSON and TOML


def small_config_of(game) -> str:
    """The ``SMALL_CONFIG`` hook: the rulebook game's [rules] table, every knob written, and its default policy in
    seat 0 against ``random``."""
    rules = game.Rules()
    lines = ["", "[rules]", *(f"{k} = {toml_value(v)}" for k, v in rules.to_dict().items())]
    seats = [game.default_policy] + ["random"] * (rules.players - 1)
    return "\n".join([*lines, "", "[policies]", f"seats = {toml_value(seats)}", ""])


def sweep_axis_of(Rules) -> tuple[str, tuple[int, int]]:
    """The ``SWEEP_AXIS`` hook: the first integer knob but the players whose two lowest values each make valid
    rules with every other knob at its default."""
    from sim import knobs as K
    from sim.errors import ConfigError

    for name, knob in Rules.KNOBS.items():
        if name == "players" or not isinstance(knob.domain, K.Int) or knob.domain.hi <= knob.domain.lo:
            continue
        values = (knob.domain.lo, knob.domain.lo + 1)
        try:
            for v in values:
                Rules.from_mapping({name: v})
        except ConfigError:
            continue
        return f"rules.{name}", values
    raise LookupError("no integer knob but the players can be swept at its two lowest values")


def replay_script_of(game, state_class) -> str:
    """The ``REPLAY_SCRIPT`` hook of a game replayed by named steps (``sim.replay``): one game of the rulebook
    played through its state, each chance outcome drawn by its probability and each seat playing its first
    legal action."""
    from sim.state import short_name

    rules = game.Rules()
    rng = np.random.default_rng(0)
    state, steps = state_class.new(rules), []
    while not state.is_terminal():
        seat = state.to_move()
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            action = outcomes[rng.choice(len(outcomes), p=np.asarray(probabilities) / sum(probabilities))]
        else:
            action = state.legal_actions()[0]
        steps.append(short_name(state.action_name(seat, action), seat))
        state.apply_action(action)
    return json.dumps({"players": rules.players, "rules": rules.to_dict(), "steps": steps}, indent=1)


# --- situations from the game's state (sim.state): what a seat sees is its observation and private holding ---


class StateSituation(NamedTuple):
    """A game's state at the decision of ``seat``."""

    state: Any
    seat: int


def random_walk(state_class, rules, seed: int):
    """Each state of one game of ``rules`` played at random (``seed``: chance by its probabilities, which must sum
    to 1, each seat any legal action alike), with the action taken there; the last state with None. The state
    is stepped on once the next is asked for: clone one to keep it."""
    rng = np.random.default_rng(seed)
    state = state_class.new(rules)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            assert abs(sum(probabilities) - 1) < 1e-9, f"chance outcomes' probabilities sum to {sum(probabilities)}"
            action = int(rng.choice(outcomes, p=probabilities))
        else:
            action = int(rng.choice(state.legal_actions()))
        yield state, action
        state.apply_action(action)
    yield state, None


def walked(state_class, rules, seed: int, decisions: int, kind: str | None = None):
    """A game of ``rules`` walked at random (:func:`random_walk`), stopped at its decision number ``decisions``
    of kind ``kind`` (of any kind when None), or the last such one it has; None if it has none."""
    seen, last = 0, None
    for state, action in random_walk(state_class, rules, seed):
        if action is None or state.is_chance_node() or kind not in (None, state.decision_kind()):
            continue
        last = state.clone()
        if seen == decisions:
            break
        seen += 1
    return last


def redealt(sit: StateSituation, holder: int, keep: Callable[[Any], bool]) -> StateSituation | None:
    """The situation with every holding ``holder`` cannot see drawn again (``State.resample``), the first of
    a few draws for which ``keep(new state)`` holds; None if none does."""
    for k in range(16):
        other = sit.state.resample(holder, np.array(Stream(7, sit.seat, k).s, dtype=np.uint64))
        if keep(other):
            return sit._replace(state=other)
    return None


def information_hooks(game, state_class, decide_at: Callable[[Any, Any, Stream], Any], player: Player,
                      more_rules: Sequence[Mapping[str, Any]] = ()) -> dict:
    """The information-set hooks (``hidden_pairs``, ``seen_by_seat``, ``unseen_by_seat``, ``seen_otherwise``,
    ``decide``, ``decision_stream``) from the game's state: a seat sees its observation and its private holding,
    cannot see the others' (``State.private``); the situations are random games stopped a few decisions of each
    kind in (the game's ``DECISION_KINDS``), at every player count of the rulebook's rules and under each of
    ``more_rules`` (``[rules]`` tables: what only some rules hide or show), their pairs the others' holdings
    drawn again (``State.resample``). ``decide_at(state, player, stream)`` is the game's: the decision of a
    reference-engine player at the state."""

    def seen_by_seat(sit: StateSituation) -> dict[str, Any]:
        state, seat = sit
        return {"observation": np.array(state.observation(seat)), "private": np.array(state.private(seat))}

    def unseen_by_seat(sit: StateSituation) -> tuple:
        return tuple(sit.state.private(s) for s in range(sit.state.rules.players) if s != sit.seat)

    def hidden_pairs() -> list[tuple[StateSituation, StateSituation]]:
        pairs = []
        tables = [game.Rules().at_players(players) for players in range(game.min_players, game.max_players + 1)]
        kinds = game.policies.decision_kinds or (None,)
        for rules in [*tables, *(game.Rules.from_mapping(table) for table in more_rules)]:
            for kind, seed in itertools.product(kinds, range(3)):
                state = walked(state_class, rules, seed, rules.players + seed, kind)
                if state is None:  # a kind these rules never ask for, or this game never came to
                    continue
                sit = StateSituation(state, state.to_move())
                hidden = unseen_by_seat(sit)
                other = redealt(sit, sit.seat, lambda s, sit=sit, hidden=hidden: unseen_by_seat(sit._replace(state=s)) != hidden)
                if other is not None:
                    pairs.append((sit, other))
        return pairs

    def seen_otherwise(sit: StateSituation) -> list[StateSituation]:
        """The seat's own holding drawn again by another seat's resample."""
        holder = (sit.seat + 1) % sit.state.rules.players
        other = redealt(sit, holder, lambda s: s.private(sit.seat) != sit.state.private(sit.seat))
        return [] if other is None else [other]

    def decide(sit: StateSituation, policy: str, stream: Stream):
        return decide_at(sit.state, player(sit.state.rules, policy), stream)

    def decision_stream(sit: StateSituation) -> Stream:
        return Stream(5, 9, sit.seat)

    return {"hidden_pairs": hidden_pairs, "seen_by_seat": seen_by_seat, "unseen_by_seat": unseen_by_seat,
            "seen_otherwise": seen_otherwise, "decide": decide, "decision_stream": decision_stream}
