"""What every game's reference engine shares: illegal moves, the players, the play loop.

A game's ``rules.py`` keeps what is its own — state, observation, moves,
scoring, records and traces of a played game — and takes from here:

* :class:`IllegalMove` — the ``ValueError`` a move the rules forbid raises;
* :class:`JitPolicy` — a jitted policy playing a seat, drawing from the
  seat's own stream exactly as inside the jitted core; a game's subclass
  names its decisions (``choose_card``, ``choose_value``, ...);
* :class:`RandomPolicy` — the base of each game's pure-Python ``random``;
* :class:`Players` — the player for a parsed seat (``seat_player``) and for a
  policy as a config names it (``player_named``);
* :class:`Decision` — a decision declared once (the player's method, the
  jitted policy it calls and what it is handed), from which
  :func:`jit_policy_of` makes the game's ``JitPolicy`` and the
  conformance suite its recorders;
* :class:`PlayLoop` — one game from its ``(seed, game)`` streams to its
  records (and trace): the game gives how the game is played out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping, Sequence

import numpy as np

from sim.rng import Stream


class IllegalMove(ValueError):
    """A move the rules forbid. ``rule`` names the rule broken; the message adds the seat."""

    def __init__(self, seat: int, rule: str):
        self.seat = seat
        self.rule = rule
        super().__init__(f"seat {seat}: {rule}")


class RandomPolicy:
    """The Python twin of a game's jitted ``random``: it draws exactly as the jitted one does.

    A game's subclass gives its decisions; :meth:`from_params` builds it
    from the parameters ``random`` was parsed to (none, unless overridden).
    """

    name = "random"

    @classmethod
    def from_params(cls, params: np.ndarray) -> "RandomPolicy":
        return cls()


class JitPolicy:
    """A jitted policy of a game's ``policies.py`` playing a seat of the reference engine.

    The seat's stream state (the same four xoshiro words the jitted core
    holds) is handed to the kernel and taken back (:meth:`decide`), so the
    policy draws from the seat's own stream exactly as it would inside the
    jitted core. A game's subclass sets ``parse_policy`` and ``n_params``
    and names its decisions.
    """

    parse_policy: ClassVar[Callable[[str], tuple[int, np.ndarray]]]
    n_params: ClassVar[int]
    # True when the game's kernels take the streams as rows of one array and a row index,
    # as the game kernel holds them, rather than one stream's four words.
    stream_rows: ClassVar[bool] = False

    def __init__(self, policy_id: int = 0, params: Sequence[float] | None = None):
        self.policy_id = policy_id
        if params is None:
            params = np.zeros(self.n_params)
        self.params = np.asarray(params, dtype=np.float64)

    @classmethod
    def named(cls, text: str, *context: Any) -> "JitPolicy":
        """``JitPolicy.named("greedy")``: a policy as a config names it."""
        policy_id, params = cls.parse_policy(text)
        return cls(policy_id, params, *context)

    def decide(self, kernel: Callable[..., Any], rng: Stream, *before: Any, after: tuple = ()) -> Any:
        """``kernel(policy_id, params, *before, <the seat's stream>, *after)``, drawing from ``rng``."""
        state = np.array(rng.s, dtype=np.uint64)
        stream = (state.reshape(1, state.shape[0]), 0) if self.stream_rows else (state,)
        out = kernel(self.policy_id, self.params, *before, *stream, *after)
        rng.s = [int(word) for word in state]
        return out


@dataclass(frozen=True)
class Decision:
    """One kind of decision of a game's players, declared once.

    A player answers it with its method ``method(obs, rng)``; the jitted
    policy answers it as ``kernel(policy_id, params, *handed(obs), <the
    seat's stream>)``, ``handed(obs)`` being what the policy is handed from
    the observation, named ``names`` in order (the conformance suite notes
    them, with ``kind``, in either engine). The game kernel calls ``kernel``
    with the same arguments.
    """

    method: str
    kernel: Callable[..., Any]
    handed: Callable[[Any], tuple]
    names: tuple[str, ...]
    kind: str

    def seen(self, handed: Sequence[Any]) -> dict[str, Any]:
        """What the policy is handed, as the conformance suite notes it: copies, by name."""
        return {"decision": self.kind, **{name: np.array(value) for name, value in zip(self.names, handed)}}


def jit_policy_of(decisions: Sequence[Decision], parse_policy: Callable[[str], tuple[int, np.ndarray]],
                  n_params: int, stream_rows: bool = False) -> type[JitPolicy]:
    """The game's ``JitPolicy``: a method per decision, each asking the jitted policy for a whole number."""

    def method(d: Decision):
        def decide(self, obs, rng) -> int:
            return int(self.decide(d.kernel, rng, *d.handed(obs)))

        decide.__name__ = d.method
        return decide

    return type("JitPolicy", (JitPolicy,), {"parse_policy": staticmethod(parse_policy), "n_params": n_params,
                                            "stream_rows": stream_rows, **{d.method: method(d) for d in decisions}})


@dataclass(frozen=True)
class Players:
    """The players at the seats of a game's reference engine: ``seat_player(rules, policy_id, params)`` for a
    parsed seat, ``player_named(rules, text)`` for a policy as a config names it.

    ``jit_policy`` plays a jitted policy; ``random_policy``, when the game writes one, is its Python twin of
    ``random``, played instead of the jitted one; ``own`` maps the id of a policy that only the engine plays
    (``ismcts``) to its player, built as ``own[id](rules, params)``. ``rules_too`` hands the rules to each
    ``JitPolicy`` (a game whose jitted policies read tables of its rules).
    """

    jit_policy: type[JitPolicy]
    random_policy: type[RandomPolicy] | None = None
    own: Mapping[int, Callable[[Any, np.ndarray], Any]] = field(default_factory=dict)
    rules_too: bool = False

    @classmethod
    def of(cls, decisions: Sequence[Decision], policies, stream_rows: bool = False) -> "Players":
        """The players of a game that writes none of its own: its jitted policies at every seat, ``random`` too,
        each answering the game's ``decisions`` (``policies`` is its ``sim.policy_spec.Policies``)."""
        return cls(jit_policy_of(decisions, policies.parse, policies.n_params, stream_rows))

    def seat_player(self, rules, policy_id: int, params):
        """The player for a parsed seat ``(policy_id, params)``."""
        if policy_id in self.own:
            return self.own[policy_id](rules, params)
        context = (rules,) if self.rules_too else ()
        if self.random_policy is None:
            return self.jit_policy(policy_id, params, *context)
        return player_of(policy_id, params, self.random_policy, self.jit_policy, *context)

    def player_named(self, rules, text: str):
        """The player for a policy as a config names it (``"greedy"``)."""
        return self.seat_player(rules, *self.jit_policy.parse_policy(text))

    def random(self):
        """A ``random`` player, for a game played without policies (the rules unneeded)."""
        if self.random_policy is not None:
            return self.random_policy()
        return self.jit_policy.named(RandomPolicy.name)


def player_of(policy_id: int, params, random_policy: type[RandomPolicy], jit_policy: type[JitPolicy], *context: Any):
    """The player for a parsed seat: the Python twin of ``random``, or the jitted policy (handed ``context``).
    :class:`Players` plays its seats so; a game written before it calls this itself (docs/porting.md)."""
    if policy_id == jit_policy.parse_policy(random_policy.name)[0]:
        return random_policy.from_params(params)
    return jit_policy(policy_id, params, *context)


def named(seat_player: Callable[..., Any], parse_policy: Callable[[str], tuple[int, np.ndarray]]):
    """A game written before :class:`Players` (docs/porting.md): its ``player_named(rules, text)``."""
    return lambda rules, text: seat_player(rules, *parse_policy(text))


def player_named_of(engine) -> Callable[[Any, str], Any] | None:
    """A game's ``player_named(rules, text)`` from its engine module (``rules`` or ``state``); for a game written
    before it, its ``policy_named(text)`` (docs/porting.md); None when it has neither."""
    if hasattr(engine, "player_named"):
        return engine.player_named
    if hasattr(engine, "policy_named"):
        return lambda rules, text: engine.policy_named(text)
    return None


@dataclass(frozen=True)
class PlayLoop:
    """One game of the reference engine, start to end, from its streams to its records.

    The table's stream is ``(seed, game, table_stream)`` and seat ``s``
    draws from ``(seed, game, policy_stream + s)``, as in the jitted core.
    ``play_out(rules, table, streams, policies)`` plays the game and
    returns its finished state; ``records(state, game)`` and
    ``trace(state)`` read it.
    """

    table_stream: int
    policy_stream: int
    random_policy: Callable[[], Any]
    play_out: Callable[[Any, Stream, list[Stream], Sequence[Any]], Any]
    records: Callable[[Any, int], dict[str, np.ndarray]]
    trace: Callable[[Any], dict]

    @classmethod
    def of(cls, enums, random_policy, play_out, records, trace) -> "PlayLoop":
        """The loop of a game whose ``enums`` number its streams ``STREAM_TABLE`` and ``STREAM_POLICY``."""
        return cls(enums.STREAM_TABLE, enums.STREAM_POLICY, random_policy, play_out, records, trace)

    def play_game(self, rules, seed: int, game: int, policies: Sequence[Any] | None = None, trace: bool = False):
        """Play game number ``game`` of ``seed``: its records (and its trace when asked).

        Records are a dict of arrays per the game's ``records.RECORD_FIELDS``
        for this one game (no leading games axis). With ``trace=True``
        returns ``(records, trace)``, the trace in the replay format.
        Without ``policies`` every seat plays the Python ``random``.
        """
        if policies is None:
            policies = [self.random_policy()] * rules.players
        if len(policies) != rules.players:
            raise ValueError(f"{len(policies)} policies for {rules.players} players")
        table = Stream(seed, game, self.table_stream)
        streams = [Stream(seed, game, self.policy_stream + seat) for seat in range(rules.players)]
        state = self.play_out(rules, table, streams, policies)
        records = self.records(state, game)
        if trace:
            return records, self.trace(state)
        return records


def engine_of(package: str):
    """A game package's reference engine: its ``rules`` module, else its ``state`` module (the state is then the
    engine); None when it has neither."""
    import importlib
    import importlib.util

    found = [f"{package}.{name}" for name in ("rules", "state") if importlib.util.find_spec(f"{package}.{name}")]
    return importlib.import_module(found[0]) if found else None


def unlike_the_kernel(game, rules, seed: int, seats: Sequence[str], games: Sequence[int] = (0,),
                      recorded: Sequence[Mapping[str, np.ndarray]] | None = None,
                      seated: tuple[np.ndarray, np.ndarray] | None = None) -> list[int]:
    """Those of ``games`` (of ``seed``, every seat as ``seats`` names it) that the reference engine does not play
    as the jitted core records them, or cannot play: a policy's illegal move, or a rule the two engines read
    differently. ``recorded`` holds the games' records as a run stored them (one per game, without the games
    axis); without it the jitted core plays them here. ``seated`` gives the seats as the kernel takes them, ``(ids,
    params)``, in place of their names (a table with a restricted seat, ``sim.decisions``). Empty when the game's
    package has no reference loop to ask (``PLAY_LOOP`` and a player for a policy name, or for a parsed seat when
    ``seated`` is given), or a seat plays a policy only the reference engine plays."""
    package = game.conformance.rpartition(".")[0]  # laid_out names it <package>.conformance
    ids, params = game.parse_seats(list(seats), rules.players) if seated is None else seated
    if not package or game.policies.needs_reference(ids):
        return []
    engine = engine_of(package)
    loop = getattr(engine, "PLAY_LOOP", None)
    if seated is None:
        named = player_named_of(engine) if engine else None
        players = None if named is None else lambda: [named(rules, s) for s in seats]
    else:
        seat_player = getattr(engine, "seat_player", None)
        players = None if seat_player is None else lambda: [seat_player(rules, int(i), p) for i, p in zip(ids, params)]
    if loop is None or players is None:
        return []
    unlike = []
    for at, number in enumerate(games):
        if recorded is None:
            row = {name: values[0] for name, values in game.play_games(rules, seed, number, 1, ids, params,
                                                                        threads=1).items()}
        else:
            row = recorded[at]
        try:
            replayed = loop.play_game(rules, seed, number, players())
        except Exception:  # an illegal move, most often: the kernel played a game the rules do not allow
            unlike.append(number)
            continue
        if game.records.differences(replayed, row):
            unlike.append(number)
    return unlike


def unlike_warning(games: Sequence[int], played: str, how: str = "") -> str:
    """The warning that the reference engine does not play ``games`` of what was ``played`` ("this run") as the
    jitted core did; ``how`` says where the reader sees how (" (the report's example games say how)")."""
    from sim.errors import and_listed

    named = ("game " if len(games) == 1 else "games ") + and_listed(map(str, games))
    return (f"warning: the reference engine does not play {named} of {played} as the jitted core did{how}: the two "
            "disagree, so these results may be wrong; the conformance suite finds where (docs/developing.md)")
