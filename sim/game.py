"""The game contract: what the shared machinery knows of a game, and nothing more.

Every game is one package — under ``sim/`` for a shipped game, its own
distribution for a plugin, laid out alike — with the same file roles:
``params.py`` (its rule knobs, checked strictly), ``rules.py`` (the
readable reference engine), ``nb.py`` (the jitted core), ``policies.py``,
``records.py`` (its record layout), ``summary.py`` (its tally and
summary; without it, derived from the metrics it declares),
``report.py`` (its report sections) — and one small module,
``game.py``, whose ``GAME`` is a :class:`Game`: the game's id and title,
its knobs and policies, its record fields, its summary, report and
skill-gap duels.

The runner, config reader, sweeps, duels, the Dask cluster and the command
line reach a game only through ``sim.games.get_game(id)``; they never
import a game package. What every game shares — random streams, chunked
running, Parquet staging, intervals, sweeps, duels, the report's shell —
lives once outside the game packages.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

from sim.errors import GameError
from sim.knobs import Knob, knob_label, table_at_players
from sim.metrics import (
    CLUSTER, FIRST_PLAYER_ADVANTAGE, RATE, ROUND, SEAT_METRICS, STUDENT_T, TIE_RATE, WILSON, Metric, by_name,
)

if TYPE_CHECKING:  # the machinery's command line starts without numpy
    import numpy as np

    from sim.policy_spec import Policies
    from sim.records import RecordLayout


@dataclass(frozen=True)
class SkillDuel:
    """One duel of a run's skill gap: one ``policy`` seat against ``against`` at every other seat.

    It plays ``factor`` times the run's skill-gap deals (a cheap duel plays
    more of them, for a tighter interval).
    """

    name: str
    policy: str
    against: str
    factor: int = 1


@dataclass(frozen=True)
class Game:
    """One game as the machinery sees it. Each field is a plain value or a function of the game's own types.

    ``Rules`` is the game's rule-knob class: ``Rules.from_mapping(table,
    prefix)`` checks a ``[rules]`` table, ``rules.to_dict()`` gives it back,
    ``rules.players`` and the game's ``table_shape`` size its records. ``play_games``
    is the jitted core's entry point: ``(rules, seed, first_game, n_games,
    policy_ids, policy_params, threads=None) -> records``. A tally is the
    game's mergeable statistics of a batch of records (an
    ``analysis.tally.MergeableTally``: ``tally.games``, ``tally.merge(other)``,
    ``tally.report`` what the report needs beyond the summary, stored as
    ``tally.json``). ``metrics`` declares what the summary measures
    (``sim.metrics``); the strength profile, sweeps and tunes read their
    metrics off it. A game that writes no summary (``laid_out`` gives None for
    the fields of :data:`DERIVED`) has them derived from its metrics' values
    in each game (``analysis.declared``).
    """

    id: str
    title: str
    Rules: type
    policies: "Policies"  # the game's policies as declared (sim.policy_spec): syntax, parameters, descriptions
    min_players: int
    max_players: int
    play_games: Callable[..., dict[str, np.ndarray]]
    records: RecordLayout
    tally: Callable[[Mapping[str, np.ndarray]], Any]  # records -> tally
    summarize: Callable[..., dict[str, Any]]  # (tally, *, game, seed, seconds, policies) -> summary
    summary_table: Callable[[Mapping[str, Any]], str]
    report_tally_io: "TallyIO"
    build_report: Callable[[Any], str]  # analysis.results.RunResults -> HTML
    replay_path: Callable[[str | Path], dict]
    skill_gap_duels: tuple[SkillDuel, ...]
    skill_gap_games: int  # deals of the skill gap for a large run
    # Every seat one of these, on strength_games each, weakest first (the first is the floor the others are
    # compared from; see ``strength_order``).
    strength_policies: tuple[str, ...]
    strength_slow_policy: str | None  # and this one on strength_lookahead_games
    # Every metric of the game's summary that the machinery reads, declared once (sim.metrics): the
    # headline metrics in the order the strength profile shows them, then the others.
    metrics: tuple[Metric, ...]
    # Every seat's policy when a config has no [policies]: the strongest policy costing
    # at most about ten times greedy's (bench/bench_defaults.py measures the choice).
    default_policy: str
    sweep_panels: tuple[str, ...]  # the 4 metrics of a sweep's figure, in panel order
    sweep_heatmap: tuple[str, ...]  # metrics of a sweep's heat maps
    per_game: Callable[..., dict[str, np.ndarray]]  # (records, players, win unit) -> paired values, integers
    # The module answering the conformance suite's questions (tests/conformance),
    # e.g. "sim.lasvegan.conformance"; imported only by the tests.
    conformance: str = ""
    # Seconds to compile the kernels of the game's default config into an empty cache on 2 cores with nothing else
    # running (numba compiles on one thread: its CPU seconds), said when a command starts compiling them; None when
    # not measured (docs/running.md, "The first run").
    compile_seconds: float | None = None
    # A game whose kernel of play calls some policies directly (its ``nb`` module's ``KERNELS_ALONE``): the seconds,
    # measured as above, of its kernel of every policy (a mixed table, the skill gap, the strength profile), said
    # beside ``compile_seconds``; None for a game with one kernel of play.
    compile_every_seconds: float | None = None
    # (records, players) -> {metric: (numerators, denominators)}, integers per game, for the headline metrics
    # that are ratios of sums over games (mean |swing| per round: cabbages moved over seat-rounds played) or
    # means over some of the games (turns per finished game): the strength profile pairs them game by game.
    # Optional: a game without it has them compared from its summary of groups of games (analysis.strength).
    per_game_ratios: Callable[..., dict[str, tuple[np.ndarray, np.ndarray]]] | None = None
    # A game whose summary is derived from its declared metrics (``laid_out``'s ``sizes``): each rules value besides
    # the players that sizes its records, and the record axis it sizes, (("rounds", "R"),).
    record_sizes: tuple[tuple[str, str], ...] = ()
    # The record fields per_game reads, so that a sweep reads only those of its records files; () (the default):
    # those per_game is seen to read (analysis.sweep.paired_fields).
    per_game_fields: tuple[str, ...] = ()

    def __post_init__(self):
        if self.tally is None:  # a package without a summary module: derived from the declared metrics
            for name, value in derived(self).items():
                object.__setattr__(self, name, value)
        for name in ("per_game", "per_game_ratios"):
            value = getattr(self, name)
            if isinstance(value, OwnOrDeclared):
                object.__setattr__(self, name, value.bound(self))
        declared = by_name(self.metrics)
        for role, names in (("sweep_panels", self.sweep_panels), ("sweep_heatmap", self.sweep_heatmap)):
            for name in names:
                if name not in declared:
                    raise ValueError(f"{self.id}: {role} names {name!r}, which is not among the game's metrics")
        # Tallies of other player counts must not merge, and a sweep's widest table is the one of the most
        # seats: the shape a tally keeps starts with its players, whatever else (rounds, ...) follows.
        shape = tuple(self.report_tally_io.names)
        if shape[:1] != ("players",):
            raise ValueError(f"{self.id}: report_tally_io's shape is {shape!r}: it must start with 'players', "
                             "the first size of every tally, then any other the rules give (e.g. 'rounds')")

    @property
    def strength_order(self) -> tuple[str, ...]:
        """The profiles a run's is compared with, strongest first: every strength policy above the weakest."""
        return tuple(reversed(self.strength_policies[1:]))

    # --- the policy declarations as each part of the machinery reads them ----

    @property
    def policy_syntax(self) -> Mapping[str, str]:
        """Policy -> how it is written in a config."""
        return self.policies.syntax

    @property
    def policy_descriptions(self) -> Mapping[str, str]:
        return self.policies.descriptions

    @property
    def parse_policy(self) -> Callable[[str, str], tuple[int, np.ndarray]]:
        return self.policies.parse

    @property
    def n_policy_params(self) -> int:
        return self.policies.n_params

    # --- the metric declarations as each part of the machinery reads them ----

    @property
    def metric(self) -> dict[str, Metric]:
        """Every declared metric by name."""
        return by_name(self.metrics)

    @property
    def headline_metrics(self) -> dict[str, Metric]:
        """The metrics a designer judges rules by, in the order the reports show them."""
        return {m.name: m for m in self.metrics if m.headline}

    @property
    def strength_metrics(self) -> dict[str, Metric]:
        """The strength profile's metrics: the headline ones."""
        return self.headline_metrics

    @property
    def paired_metrics(self) -> dict[str, str]:
        """Metrics a sweep compares game by game -> title: those of the sweep's figure first, in its order."""
        paired = [m for m in self.metrics if m.paired]
        first = {name: i for i, name in enumerate(self.sweep_panels)}
        paired.sort(key=lambda m: first.get(m.name, len(first)))  # stable: the others in declaration order
        return {m.name: m.title for m in paired}

    @property
    def sweep_plotted(self) -> dict[str, tuple[str, float, bool]]:
        """The sweep figure's metrics -> (axis label, scale shown, signed)."""
        declared = self.metric
        return {name: (declared[name].axis_label, declared[name].scale, declared[name].signed)
                for name in self.sweep_panels}

    @property
    def rule_holes(self) -> dict[str, str]:
        """Rates of the rules' holes -> what each counts: a sweep flags the cells where one rises well above
        the baseline's, a tune its side effects."""
        return {m.name: m.hole for m in self.metrics if m.hole}

    @property
    def round_lists(self) -> tuple[str, ...]:
        """Summary lists indexed by round rather than by seat."""
        return tuple(m.name for m in self.metrics if m.per == ROUND)

    # --- derived, the same for every game ------------------------------------

    def parse_seats(self, seats: str | Sequence[str], players: int, field: str = "policies.seats"):
        return self.policies.parse_seats(seats, players, field)

    def rules_from_mapping(self, table: Mapping[str, Any] | None, prefix: str = "rules"):
        return self.Rules.from_mapping(table, prefix)

    def empty_tally(self, rules):
        return self.tally(self.records.empty(0, rules))

    @property
    def knobs(self) -> Mapping[str, Knob]:
        """The rule knobs as ``Rules`` declares them (sim.knobs): default, domain, label, help."""
        return self.Rules.KNOBS

    def table_shape(self, rules) -> tuple[int, ...]:
        """The sizes the rules give a game's records and tallies (players, rounds, ...: ``report_tally_io.names``)."""
        return tuple(self.report_tally_io.rules_shape(rules))

    def knob_label(self, path: str) -> str:
        """A knob or one entry of it as a designer says it: ``rules.tokens[2][1]`` -> ``token 3, face 2``."""
        return knob_label(self.knobs, path)

    def rules_at_players(self, table: Mapping[str, Any], players: int) -> dict[str, Any]:
        """A ``[rules]`` table moved to another player count: knobs that follow the count go back to default."""
        return table_at_players(self.knobs, table, players)

    @property
    def slow_policies(self) -> tuple[str, ...]:
        """The policies declared ``slow`` (searches): a run plays them in small batches so that progress shows."""
        return tuple(name for name, spec in self.policies.specs.items() if spec.slow)

    def is_slow(self, seats: Sequence[str]) -> bool:
        return any(str(s).strip().split(":")[0] in self.slow_policies for s in seats)

    def describe(self) -> dict[str, Any]:
        """The game as ``lvsim games --json`` prints it: title, knobs (default, domain), policies."""
        knobs = {name: knob.describe() for name, knob in self.knobs.items()}
        policies = {
            name: {"syntax": self.policy_syntax[name], "description": self.policies.listed[name]}
            for name in self.policy_syntax
        }
        return {"title": self.title, "players": [self.min_players, self.max_players], "knobs": knobs,
                "policies": policies}


@dataclass(frozen=True)
class TallyIO:
    """How a game's report tally is stored (``tally.json``) and rebuilt from a records file."""

    write: Callable[[Path, Any], None]
    read: Callable[[Path], Any]
    from_records_file: Callable[[Path, Any], Any]  # (records path, rules) -> report tally
    shape: Callable[[Any], tuple]  # report tally -> what must match the rules (players, rounds, ...)
    rules_shape: Callable[[Any], tuple]  # rules -> the same
    names: tuple[str, ...]  # what each number of the shape counts, "players" first: ("players", "rounds")

    @classmethod
    def of(cls, tally_class: str, shape: tuple[str, ...]) -> "TallyIO":
        """The storage of a report tally class ``"module:Class"`` (an ``analysis.tally.MergeableTally``),
        imported when first used; ``shape`` names the rules' values its merges keep (the class's SHAPE),
        ``"players"`` first (a :class:`Game` refuses any other)."""
        return cls(
            write=lambda path, tally: tally.write(path),
            read=lazy(f"{tally_class}.read"),
            from_records_file=lazy(f"{tally_class}.of_records_file"),
            shape=lambda tally: tuple(getattr(tally, name) for name in shape),
            rules_shape=lambda rules: tuple(getattr(rules, name) for name in shape),
            names=shape,
        )


def laid_out(package: str, summary: str | None = None, report: str | None = None,
             sizes: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The fields of a Game found where a game package keeps them, as ``Game(**laid_out(...), ...)`` takes them.

    ``package`` holds ``enums`` (``GAME_ID``, ``TITLE``, ``MIN_PLAYERS``, ``MAX_PLAYERS``), ``params.Rules``,
    ``policies.POLICIES``, ``records.LAYOUT``, ``nb.play_games``, ``state.STATE`` (a ``replay`` module's
    ``replay_path`` if it has one, else the shared replay of named steps) and the conformance hooks; ``summary``
    (default: ``<package>.summary``) the tally ``Tally``, ``summarize`` and ``summary_table``, the values paired
    game by game coming from the metrics' ``of_games`` (:class:`OwnOrDeclared`); ``report`` (default:
    ``<package>.report``; without it, the shared report of the declared metrics) ``build_report``.

    A package without a summary module has its tally, summary, text table, per-game values and
    ``report_tally_io`` derived from the metrics it declares with their value in each game (``Metric.of_games``,
    ``analysis.declared``); ``sizes`` then names each rules value besides the players that sizes its records, and
    the record axis it sizes (``{"rounds": "R"}``): tallies of other sizes never merge.
    The kernels and the analysis are imported when first used.
    """
    import importlib
    import importlib.util

    def part(module: str):
        name = f"{package}.{module}"
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as missing:
            if missing.name != name:
                raise
            raise GameError(f"{package} has no module {module}.py, which every game has (docs/developing.md, "
                            "'The package')") from None

    def declared(module: str, name: str):
        found = getattr(part(module), name, None)
        if found is None:
            raise GameError(f"{package}.{module} declares no {name}, which every game's {module}.py does "
                            "(docs/developing.md, 'The package')")
        return found

    if importlib.util.find_spec(f"{package}.nb") is None:  # imported when first used, but refused now
        part("nb")
    report = report or f"{package}.report"
    fields = dict(
        id=declared("enums", "GAME_ID"),
        title=declared("enums", "TITLE"),
        min_players=declared("enums", "MIN_PLAYERS"),
        max_players=declared("enums", "MAX_PLAYERS"),
        Rules=declared("params", "Rules"),
        policies=declared("policies", "POLICIES"),
        records=declared("records", "LAYOUT"),
        play_games=routed(package),
        replay_path=replayed(package),
        conformance=f"{package}.conformance",
        build_report=reported(package, report),
    )
    if summary is None and importlib.util.find_spec(f"{package}.summary") is None:
        return {**fields, **dict.fromkeys(DERIVED), "record_sizes": tuple((sizes or {}).items())}
    summary = summary or f"{package}.summary"
    return {**fields, **dict(
        tally=lazy(f"{summary}:Tally.of"),
        summarize=lazy(f"{summary}:summarize"),
        summary_table=lazy(f"{summary}:summary_table"),
        per_game=OwnOrDeclared(f"{summary}:paired_values"),
        per_game_ratios=OwnOrDeclared(f"{summary}:ratio_values"),
    )}


@dataclass(frozen=True)
class OwnOrDeclared:
    """A game's per-game values: its summary module's ``paired_values`` or ``ratio_values`` if it writes one (the
    contract before metrics declared their values), else derived from the metrics' ``of_games``
    (``analysis.declared``); bound to the game when it is made, looked up at the first call."""

    function: str  # "package.summary:paired_values"

    def bound(self, game: "Game") -> Callable[..., Any]:
        import functools
        import importlib

        module_name, _, attr = self.function.partition(":")
        own, declared = lazy(self.function), functools.partial(lazy(f"analysis.declared:{attr}"), game)

        def call(*args, **kwargs):
            return (own if hasattr(importlib.import_module(module_name), attr) else declared)(*args, **kwargs)

        call.__qualname__ = self.function
        return call


# What every derived summary holds besides the metrics (analysis.common.run_fields, the runner's sections): no
# metric of a game's own may take one of these names.
SUMMARY_KEYS = ("game", "title", "players", "games", "seed", "policies", "seconds", "games_per_second", "skill_gap",
                "strength", "sensitivity")

# The fields of a Game derived from its declared metrics when its package has no summary module.
DERIVED = ("tally", "summarize", "summary_table", "per_game", "per_game_ratios", "report_tally_io")


def derived(game: Game) -> dict[str, Any]:
    """The analysis fields of ``game`` derived from its declared metrics (``analysis.declared``), each bound to it."""
    import functools

    def bound(name: str) -> Callable[..., Any]:
        return functools.partial(lazy(f"analysis.declared:{name}"), game)

    taken = {*SUMMARY_KEYS, *(m.name for m in (*SEAT_METRICS, TIE_RATE)), *(name for name, _ in game.record_sizes)}
    for m in game.metrics:
        if m.of_games is not None and m.name in taken:
            raise ValueError(f"{game.id}: metric {m.name} has the name of a number every summary has of its own, "
                             "which it would overwrite: name the game's metric otherwise")
        if m.paired and m.name not in (FIRST_PLAYER_ADVANTAGE.name, TIE_RATE.name) and (m.of_games is None or m.per):
            raise ValueError(f"{game.id}: metric {m.name} is paired, so a sweep compares its value in each game: "
                             "it declares that value (of_games), one number (or one ratio) per game, not one a seat")
        if m.of_games is not None and m.interval not in (WILSON, STUDENT_T, CLUSTER):
            raise ValueError(f"{game.id}: metric {m.name}: a value in each game is tallied with a {WILSON}, "
                             f"{STUDENT_T} or {CLUSTER} interval, not {m.interval!r}")
        if m.of_games is not None and m.interval == WILSON and m.kind != RATE:
            raise ValueError(f"{game.id}: metric {m.name}: a {WILSON} interval is a rate's, not a {m.kind}'s")
    summarize, names = bound("summarize"), tuple(name for name, _ in game.record_sizes)
    return dict(
        tally=bound("tally_of"),
        summarize=lambda tally, *, game=None, **kwargs: summarize(tally, **kwargs),  # the game is this one
        summary_table=bound("summary_table"),
        per_game=bound("paired_values"),
        per_game_ratios=bound("ratio_values"),
        report_tally_io=TallyIO(
            write=lambda path, tally: tally.write(path),
            read=lazy("analysis.declared:DeclaredTally.read"),
            from_records_file=bound("of_records_file"),
            shape=lambda tally: (tally.players, *tally.sizes),
            rules_shape=lambda rules: tuple(getattr(rules, name) for name in ("players", *names)),
            names=("players", *names),
        ),
    )


def routed(package: str) -> Callable[..., Any]:
    """The game's ``play_games``: its jitted core (``nb.play_games``), unless a seat plays a policy the core does
    not have (a ``reference_only`` one of ``policies.POLICIES``): then the reference engine plays the batch, in
    the same record layout (``sim.openspiel.reference``)."""
    kernel = lazy(f"{package}.nb:play_games")
    reference = lazy("sim.openspiel.reference:play_games")

    def play_games(rules, seed, first_game, n_games, policy_ids, policy_params, *args, **kwargs):
        import importlib

        check = getattr(_between_batches, "check", None)
        if check is not None:
            check()
        if importlib.import_module(f"{package}.policies").POLICIES.needs_reference(policy_ids):
            return reference(package, rules, seed, first_game, n_games, policy_ids, policy_params, *args, **kwargs)
        return kernel(rules, seed, first_game, n_games, policy_ids, policy_params, *args, **kwargs)

    play_games.__qualname__ = f"{package}.nb:play_games"
    return play_games


_between_batches = threading.local()


@contextmanager
def checked_between_batches(check: Callable[[], None]) -> Iterator[None]:
    """Call ``check`` before every batch of games this thread plays, of any game, in every part of a run (its
    table, skill gap, strength profile, sensitivity, decisions): it raises to stop the run (a play the
    workbench's page cancelled)."""
    previous = getattr(_between_batches, "check", None)
    _between_batches.check = check
    try:
        yield
    finally:
        _between_batches.check = previous


def reported(package: str, report: str) -> Callable[[Any], str]:
    """The game's ``build_report``: its report module's, or else the shared report built from its declared
    metrics (``analysis.player_sections.default_report``)."""
    import importlib.util

    if importlib.util.find_spec(report) is not None:
        return lazy(f"{report}:build_report")

    def build_report(results) -> str:
        from analysis.player_sections import default_report

        return default_report(results, package)

    build_report.__qualname__ = f"{package}:build_report"
    return build_report


def replayed(package: str) -> Callable[[str | Path], dict]:
    """The game's ``replay_path``: its own ``replay`` module's, or else the shared replay of named steps
    (``sim.replay``) played through its state (``<package>.state.STATE``)."""
    import importlib.util

    if importlib.util.find_spec(f"{package}.replay") is not None:
        return lazy(f"{package}.replay:replay_path")

    def replay_path(path) -> dict:
        import importlib

        from sim.replay import replay_script
        from sim.scripts import read_script

        if importlib.util.find_spec(f"{package}.state") is None:
            raise GameError(f"{package} has neither replay.py nor state.py, so no script of it can be replayed "
                            "(docs/porting.md)")
        state, params = (importlib.import_module(f"{package}.{part}") for part in ("state", "params"))
        return replay_script(state.STATE, params.Rules, read_script(path))

    replay_path.__qualname__ = f"{package}:replay_path"
    return replay_path


def lazy(target: str) -> Callable[..., Any]:
    """``"package.module:name.attr"`` as a function that imports it when called.

    Keeps ``import sim.games`` light: a game's analysis (pandas, matplotlib)
    loads only when a summary or report is wanted. The target is looked up
    on every call (a dictionary lookup once imported), so a patched
    function — a kernel that fails on purpose in a test — is the one called.
    """
    module_name, _, attr_path = target.partition(":")
    parts = attr_path.split(".")

    def call(*args, **kwargs):
        import importlib

        obj: Any = importlib.import_module(module_name)
        for part in parts:
            obj = getattr(obj, part)
        return obj(*args, **kwargs)

    call.__name__ = parts[-1]
    call.__qualname__ = target
    return call
