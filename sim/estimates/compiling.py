"""Compiling the kernels: said when a command compiles, with how long it usually takes, and timed.

numba compiles a kernel the first time a process calls it, unless the
kernel cache (``sim._kernel_cache``) holds it from an earlier process:
after an install, a ``make clean`` or a change to the kernels' sources, a
command's first game waits for it, from seconds to more than a minute. numba announces each
compilation it really does (a ``numba:compile`` event; a kernel loaded
from the cache raises none), so what is said here is said exactly when a
command compiles, never when it loads: as a game's kernels start compiling,
with the time they took on the machine they were measured on (each game's
``compile_seconds``), then, once that bout of compiling is over, the time
it took here (:class:`Compiles`).

The same events time what this process spent compiling
(:func:`compiled_seconds`): a calibration leaves a call that compiled out
of its fit, and a dry run says what it compiled, which the run it
estimates then loads from the cache instead.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from sim.wording import wrapped


# Where each game's ``compile_seconds`` was measured (docs/running.md, "The first run").
MEASURED_ON = "2 cores"
# Off in the processes that compile a job of sim.precompile: each compiles what it is given, and no more at once.
alongside_allowed = True
# A cluster's workers still loading the kernels after this long are most likely compiling them (loading takes a few
# seconds).
WORKERS_SLOW_SECONDS = 10.0

Say = Callable[[str], None]


def seconds_text(s: float) -> str:
    """A duration as every estimate says it: ``4.2 s``, ``1.3 min``, ``2.0 h``."""
    if s < 60:
        return f"{s:.1f} s"
    if s < 3600:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


def _about(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 60 else f"{seconds / 60:.1f} min"


def usual_text(game_id: str | None) -> str:
    """How long compiling ``game_id``'s kernels usually takes, as said before it starts."""
    from sim.games import GAME_IDS, get_game, loaded_games

    if game_id in GAME_IDS and get_game(game_id).compile_seconds is not None:
        game = get_game(game_id)
        every = game.compile_every_seconds
        more = "" if every is None else f", about {_about(every)} with the kernel of every policy"
        return f"usually about {_about(game.compile_seconds)} on {MEASURED_ON}{more}"
    known = [g.compile_seconds for g in loaded_games() if g.compile_seconds is not None]
    if not known:
        return "a minute or two is usual"
    return f"the games measured take {_about(min(known))} to {_about(max(known))} on {MEASURED_ON}"


def notice(game_id: str | None, title: str) -> str:
    """The line said as a game's kernels start compiling."""
    return (f"Compiling the kernels of {title} (the first use after an install or a change to them; "
            f"{usual_text(game_id)}; they are then kept for later commands) …")


def other_tables(title: str) -> str:
    """What a run compiles after its own games, if anything: said as it starts (:meth:`Compiles.as_one`)."""
    return f"the kernels of {title}'s other tables (skill gap, strength profile, decisions)"


def _game_of(module: str) -> tuple[str, str] | None:
    """``(id, title)`` of the game whose package holds ``module``, None for a kernel of no game's (a shared one)."""
    from sim.games import GAME_MODULES, get_game

    for game_id, game_module in GAME_MODULES.items():
        package = game_module.rpartition(".")[0] or game_module
        if module == package or module.startswith(package + "."):
            return game_id, get_game(game_id).title
    return None


@dataclass
class _Bout:
    """Compilations said as one: those of a group (:meth:`Compiles.as_one`), or outside any group, those of a
    game that follow one another with less than ``QUIET_SECONDS`` between them."""

    what: str | None = None  # a group's "the kernels of …", said when a game already said compiles more inside
    seconds: float = 0.0
    game: tuple[str, str] | None = None  # (id, title) of the game said to be compiling in it
    compiled: str = ""  # what its done line says was compiled ("" while none is owed)


# Outside a group, a game's kernels are said done once nothing has compiled for this long: a command compiles a
# small tally kernel, then its kernel of play, then a statistics kernel, with a moment of play between them.
QUIET_SECONDS = 2.0


class Compiles:
    """What this process has compiled, from numba's ``numba:compile`` events, and who is told when a game compiles.

    Only the outermost compilation is timed: a kernel's callees compile
    inside it. numba compiles under one lock, so the events of one
    compilation never interleave with another's. Each bout of compiling a
    game's kernels is said as it starts ("Compiling the kernels of …" the
    first time, "Compiling more kernels of …" after) and when it is done,
    with the time of the whole bout: a group's at its end, and outside a
    group once nothing has compiled for ``quiet`` seconds (a timer, made by
    ``timer(seconds, call)``), or when a group starts or the command ends
    (:meth:`settle`), whichever comes first.
    """

    def __init__(self, clock: Callable[[], float] = time.perf_counter, quiet: float = QUIET_SECONDS,
                 timer: Callable[[float, Callable[[], None]], Any] | None = None):
        self.clock = clock
        self.quiet = quiet
        self.timer = timer or _daemon_timer
        self.seconds = 0.0
        self.kernels = 0
        self._depth = 0
        self._began = 0.0
        self._said: set[str] = set()  # games whose first notice was said
        self._hearers: list[Say] = []
        self._lock = threading.Lock()
        self._state = threading.RLock()  # the bouts, shared with the timer's thread
        self._group: _Bout | None = None  # inside as_one()
        self._open: _Bout | None = None  # the bout outside any group, until it is said done
        self._pending: Any = None  # the timer that says it done
        self._watchers: list[Callable[[str], None]] = []  # told the game id when a game's kernel starts compiling

    def _opening(self, bout: _Bout, game: tuple[str, str]) -> None:
        """Say that ``game``'s kernels start compiling in ``bout``: the notice the first time, "more" after."""
        bout.game = game
        if game[0] not in self._said:
            self._said.add(game[0])
            self.tell(notice(*game))
            bout.compiled = f"the kernels of {game[1]}"
        else:
            bout.compiled = bout.what or f"more kernels of {game[1]}"
            self.tell(f"Compiling {bout.compiled} …")

    def _close(self, bout: _Bout | None) -> None:
        if bout is not None and bout.compiled:
            self.tell(f"Compiled {bout.compiled} in {seconds_text(bout.seconds)}.")

    def started(self, module: str) -> None:
        with self._state:
            if self._depth == 0:
                self._began = self.clock()
                self._cancel()
                game = _game_of(module)
                if self._group is not None:
                    if game is not None and self._group.game is None:
                        self._opening(self._group, game)
                elif game is not None and (self._open is None or self._open.game != game):
                    self.settle()
                    self._open = _Bout()
                    self._opening(self._open, game)
                if game is not None:
                    with self._lock:
                        watchers = list(self._watchers)
                    for watch in watchers:
                        watch(game[0])
            self._depth += 1

    def ended(self) -> None:
        with self._state:
            self._depth -= 1
            if self._depth == 0:
                took = self.clock() - self._began
                self.seconds += took
                self.kernels += 1
                bout = self._group if self._group is not None else self._open
                if bout is not None:
                    bout.seconds += took
                if self._group is None and self._open is not None:
                    self._pending = self.timer(self.quiet, self._quiet_now)

    def _quiet_now(self) -> None:
        with self._state:
            if self._depth == 0 and self._pending is not None:
                self._pending = None
                self.settle()

    def _cancel(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None

    def settle(self) -> None:
        """Say the bout outside any group done now, if one is owed."""
        with self._state:
            self._cancel()
            bout, self._open = self._open, None
            self._close(bout)

    def forget(self) -> None:
        """Drop the bout outside any group unsaid (the command was interrupted while it compiled)."""
        with self._state:
            self._cancel()
            self._open = None

    def tell(self, line: str) -> None:
        """Tell every hearer ``line``, wrapped at the terminal's 120 columns."""
        with self._lock:
            hearers = list(self._hearers)
        line = wrapped(line)
        for say in hearers:
            try:
                say(line)
            except (OSError, ValueError):  # the stream went away: the compilation goes on regardless
                pass

    @contextmanager
    def as_one(self, what: str | None = None) -> Iterator["Compiles"]:
        """The compilations inside said as one: a game's tallies and kernels compile one after another (a
        small one first), and "compiled in" then says the time of them all. Inside another, part of it.
        ``what`` (``"the kernels of …"``) is said when a game already said compiles more inside, "more kernels
        of …" without it. A bout outside before it is said done first."""
        if self._group is not None:
            yield self
            return
        self.settle()
        group = self._group = _Bout(what)
        try:
            yield self
        except BaseException:  # interrupted or failed: nothing is said done
            group.compiled = ""
            raise
        finally:
            self._group = None
            self._close(group)

    @contextmanager
    def _listed(self, listeners: list, listener: Callable) -> Iterator["Compiles"]:
        with self._lock:
            listeners.append(listener)
        try:
            yield self
        finally:
            with self._lock:
                listeners.remove(listener)

    def watched(self, watch: Callable[[str], None]):
        """While inside, ``watch(game_id)`` is called as each kernel of a game starts compiling in this process."""
        return self._listed(self._watchers, watch)

    def heard(self, say: Say):
        """While inside, ``say`` is told each line said of what compiles."""
        return self._listed(self._hearers, say)


def _daemon_timer(seconds: float, call: Callable[[], None]) -> threading.Timer:
    timer = threading.Timer(seconds, call)
    timer.daemon = True  # never keeps a finished command waiting
    timer.start()
    return timer


_COMPILES: Compiles | None = None
_REGISTERING = threading.Lock()


def compiles() -> Compiles:
    """This process's :class:`Compiles`, listening to numba from the first call on."""
    global _COMPILES
    with _REGISTERING:
        if _COMPILES is None:
            from numba.core import event

            found = Compiles()

            class Heard(event.Listener):
                def on_start(self, ev: Any) -> None:
                    dispatcher = (ev.data or {}).get("dispatcher")
                    found.started(getattr(getattr(dispatcher, "py_func", None), "__module__", "") or "")

                def on_end(self, ev: Any) -> None:
                    found.ended()

            event.register("numba:compile", Heard())
            _COMPILES = found
    return _COMPILES


def compiled_seconds() -> float:
    """Wall seconds this process has spent compiling kernels (since :func:`compiles` was first called)."""
    return compiles().seconds


def compiled_since(mark: float) -> float:
    """Wall seconds spent compiling since ``mark`` (a :func:`compiled_seconds`), as a dry run says them. A bout still
    owed its done line is said done first: it comes before what the caller says of the time."""
    found = compiles()
    found.settle()
    return found.seconds - mark


@contextmanager
def said_to(say: Say) -> Iterator[Compiles]:
    """While inside, ``say`` is told when a game's kernels start compiling in this process, and when they are done;
    on the way out, a bout still owed is said done (or dropped, when the command was interrupted)."""
    compiles().settle()  # a bout before it (of a command before, in this process) is not said to it
    with compiles().heard(say) as found:
        try:
            yield found
        except BaseException:
            found.forget()
            raise
        found.settle()


def warm_up_said(cluster, config) -> None:
    """``cluster.warm_up(config)``, waited for; when a cluster's workers take long, they are compiling: said so.

    Workers have kernel caches of their own (those on this machine share
    this process's), so whether they compile is only known by how long they
    take; this process hears nothing of it.
    """
    from sim.runner.chunks import IN_PROCESS

    if cluster is IN_PROCESS or getattr(cluster, "where", None) == IN_PROCESS.where:
        cluster.warm_up(config)
        return
    found = compiles()
    title = config.game_spec.title
    began = time.perf_counter()
    waited = threading.Event()

    def still_loading() -> None:
        waited.set()
        found.tell(f"The workers are still loading the kernels of {title} after {WORKERS_SLOW_SECONDS:.0f} s: a worker "
                   f"whose kernel cache does not hold them compiles them ({usual_text(config.game)}) …")

    slow = threading.Timer(WORKERS_SLOW_SECONDS, still_loading)
    slow.daemon = True
    slow.start()
    try:
        cluster.warm_up(config)
    finally:
        slow.cancel()
        slow.join()
    if waited.is_set():
        found.tell(f"The workers loaded the kernels of {title} in {seconds_text(time.perf_counter() - began)}.")


# The job of sim.precompile that compiles a game's kernel of every policy (``GAME:every``), for :class:`Alongside`.
EVERY = ":every"


def kernels_alone(game_id: str) -> dict[int, str]:
    """The policies of ``game_id`` with a kernel of their own for a table of them alone (its ``nb`` module's
    ``KERNELS_ALONE``: policy id -> kernel name); empty for a game without."""
    from sim.games import part_module

    return getattr(part_module(game_id, "nb"), "KERNELS_ALONE", {})


def mixed_seats(game_id: str) -> list[str] | None:
    """Two policies of ``game_id`` with kernels alone, at the rulebook's seats: a table that plays the kernel of
    every policy; None for a game with fewer such policies."""
    from sim.games import get_game

    game, alone = get_game(game_id), kernels_alone(game_id)
    names = [name for name, policy_id in game.policies.ids.items() if policy_id in alone]
    if len(names) < 2:
        return None
    players = game.Rules().players
    return names[:1] + names[1:2] * (players - 1)


class Alongside:
    """The kernel of every policy of a run's game compiled in a second process while the run compiles its own.

    Started (:meth:`watching`) only when it can help: the run plays on this
    machine, into a kernel cache, with a core to spare, its own table is one
    policy with a kernel alone, and it plays other tables after it (the skill
    gap, or the strength profile's slow policy, on the kernel of every
    policy). The second process starts as this one is first heard compiling
    the game's kernels (a kernel cache holding them starts none); :meth:`wait`
    waits for it before the other tables, which then load it.
    """

    def __init__(self, config, in_process: bool):
        self.game_id, self.title = config.game, config.game_spec.title
        self.process: subprocess.Popen | None = None
        self.began = 0.0
        self._ended = threading.Thread()  # notes when the second process ends (it may end before the run waits)
        self.seconds = 0.0  # the second process's wall time, start to end
        self.waited = False  # the run's own games are played: what compiles now is its other tables, here
        shared_cache = bool(os.environ.get("NUMBA_CACHE_DIR")) and os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")
        more_tables = config.skill_gap_deals > 0 or config.strength_sizes[1] > 0
        self.wanted = (alongside_allowed and in_process and shared_cache and (os.cpu_count() or 1) > 1 and more_tables
                       and self._alone(config))

    def _alone(self, config) -> bool:
        alone = kernels_alone(self.game_id)
        ids, _ = config.game_spec.parse_seats(config.seat_policies, config.players)
        return len(set(int(i) for i in ids)) == 1 and int(ids[0]) in alone and mixed_seats(self.game_id) is not None

    def _heard(self, game_id: str) -> None:
        if game_id != self.game_id or self.process is not None or self.waited:
            return
        self.began = time.perf_counter()
        try:
            self.process = subprocess.Popen([sys.executable, "-m", "sim.precompile", self.game_id + EVERY],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError:  # no second process: the run compiles it itself, later
            self.wanted = False
            return
        self._ended = threading.Thread(target=self._timed, args=(self.process,), daemon=True)
        self._ended.start()
        compiles().tell(f"Compiling {other_tables(self.title)} alongside, in a second process …")

    @contextmanager
    def watching(self) -> Iterator["Alongside"]:
        """While inside, the second process starts when this one starts compiling; it is stopped if still running
        on the way out (the run failed or was interrupted before :meth:`wait`)."""
        if not self.wanted:
            yield self
            return
        try:
            with compiles().watched(self._heard):
                yield self
        finally:
            if self.process is not None and self.process.poll() is None:
                self.process.terminate()
                self.process.wait()

    def wait(self) -> None:
        """Wait for the second process, if one was started, and say when it is done. A process that failed
        leaves the kernel to compile here, as if none had started. None starts after it: a run whose own
        kernels were loaded compiles its other tables itself, once."""
        self.waited = True
        if self.process is None:
            return
        self._ended.join()
        if self.process.returncode == 0:
            compiles().tell(f"Compiled {other_tables(self.title)} in {seconds_text(self.seconds)}.")
        self.process = None

    def _timed(self, process: subprocess.Popen) -> None:
        process.wait()
        self.seconds = time.perf_counter() - self.began
