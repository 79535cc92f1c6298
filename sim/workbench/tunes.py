"""Tunes asked for from the page: the page's rules as the base, the designer's search and targets, as ``lvsim tune``.

A tune from the page is a tune file whose ``base`` is the form's config:
the page sends its fields and the tables a tune file holds besides
``base`` (``[search]``, ``[targets]``, ``[tune]``, in TOML), and
:func:`tune_of` writes the form's config beside them and reads the pair
with the tune file reader of the command line (``sim.tune.load_tune``), so
a refusal is the line ``lvsim tune`` would print, naming the key. The tune
is played by :func:`sim.tune.tune` into a directory of the workbench's own,
on the workbench's one worker thread (never beside a play), through
:class:`Counted`, which counts its games for the progress bar and stops it
between two chunks when it is cancelled. Before it plays, its time is
estimated as ``lvsim tune --dry-run`` estimates it: a tune estimated to take
more than :data:`MAX_TUNE_SECONDS` is refused without playing.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from sim.config import Config
from sim.errors import ConfigError, counted
from sim.inputs import parse_toml
from sim.workbench.fields import config_of, fields_of
from sim.workbench.states import CANCELLED, DONE, ESTIMATING, QUEUED, REFUSED, Cancelled, ending

# A tune from the page takes at most this long on this machine, estimated before it starts.
MAX_TUNE_SECONDS = 600.0
BASE_FILE = "base.toml"
TUNE_FILE = "tune.toml"
# The template's small search: few candidates, few games, so that it answers in a minute or two.
TEMPLATE_BUDGET = 12
TEMPLATE_GAMES = 1_000

# A tune's states are a play's (sim.workbench.states), tuning in place of playing and measuring.
TUNING = "tuning"


@dataclass
class TuneJob:
    """One tune asked for from the page, and where it stands."""

    id: str
    config: Config  # the base: the page's rules, seats, games and seed
    tables: str  # the [search], [targets] and [tune] tables, as the page sent them
    dir: Path
    state: str = QUEUED
    games_played: int = 0
    games_said: list[int] | None = None  # the games the estimate says the tune plays: fewest, likely, most
    estimate: list[float] | None = None
    answer: dict[str, Any] | None = None
    best_fields: dict[str, str] | None = None  # the recommended rules as the form's fields
    error: str | None = None
    asked_at: float = field(default_factory=time.perf_counter)
    seconds: float | None = None
    cancel: threading.Event = field(default_factory=threading.Event)

    @property
    def out_dir(self) -> Path:
        return self.dir / "tune"

    def view(self) -> dict[str, Any]:
        """The tune as the page reads it."""
        return {"id": self.id, "state": self.state, "fields": fields_of(self.config), "tables": self.tables,
                "games_played": self.games_played, "games_said": self.games_said,
                "estimate": self.estimate, "answer": self.answer, "best_fields": self.best_fields,
                "error": self.error, "seconds": self.seconds}


def tune_of(fields: Mapping[str, str], tables: str, where: Path):
    """The tune the page asks for, its files written into ``where``: the form's config as the base, ``tables``
    (TOML: ``[search]``, ``[targets]``, ``[tune]``) as the rest of the tune file. A ConfigError naming the key
    if either is refused."""
    from sim.tune import load_tune

    config = config_of(fields)
    if not isinstance(tables, str):
        raise ConfigError("tune", "must be the tune file's tables as TOML text")
    try:  # JSON's \u escapes may spell half a character, which no file holds (TOML reads it in a comment)
        tables.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ConfigError("tune", f"is not UTF-8 text: character {err.start + 1:,} is {tables[err.start]!r}, half "
                                  "of a surrogate pair") from None
    data = parse_toml(tables, lambda problem: ConfigError("tune", f"is {problem}"))
    if "base" in data:
        raise ConfigError("tune.base", "is the page's rules: leave `base` out and set the rules in the form")
    where.mkdir(parents=True, exist_ok=True)
    (where / BASE_FILE).write_text(config.to_toml(), encoding="utf-8")
    (where / TUNE_FILE).write_text(f'base = "{BASE_FILE}"\n\n{tables}', encoding="utf-8")
    return config, load_tune(where / TUNE_FILE)


def template(config: Config) -> str:
    """A small tune of ``config``'s game the page offers to start from: one integer knob around its value,
    the first headline rate into 40-60%, at the config's player count and seats."""
    game = config.game_spec
    rules = config.rules.to_dict()
    search = '# "rules.<knob>" = { range = [low, high] }'
    for name, knob in game.knobs.items():
        spec = knob.domain.spec()
        value = rules.get(name)
        if name == "players" or knob.follows_players or spec.get("kind") != "integer" or not isinstance(value, int):
            continue
        if knob.applies is not None and not knob.applies(config.rules):
            continue
        low, high = max(spec["min"], value - 2), min(spec["max"], value + 2)
        if low < high:
            search = f'"rules.{name}" = {{ range = [{low}, {high}] }}   # {knob.label}'
            break
    rates = [m for m in game.headline_metrics.values() if m.kind == "rate"]
    metric = (rates or list(game.headline_metrics.values()))[0]
    target = (f"{metric.name} = [0.40, 0.60]   # {metric.label}" if metric.kind == "rate"
              else f"{metric.name} = {{ near = 0 }}   # {metric.label}")
    seats = list(dict.fromkeys(config.seat_policies))
    policies = f'policies = ["{seats[0]}"]' if len(seats) == 1 else "# policies: the seats' policies, one a table"
    return (f"# What to vary, what to aim for, and how much to play. The form's rules are the base.\n"
            f"[search]\n{search}\n\n"
            f"[targets]\n{target}\n\n"
            f"[tune]\nplayers = [{config.players}]\n{policies}\n"
            f"budget = {TEMPLATE_BUDGET}   # candidates to try\n"
            f"games = {TEMPLATE_GAMES}   # games per candidate at first\n"
            f"seed = {config.seed}\n")


class Counted:
    """Where a tune's chunks are played: where ``inner`` plays them, counted for the progress bar, cancellable."""

    def __init__(self, inner, job: TuneJob):
        self.inner = inner
        self.job = job

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _seen(self, records: Mapping[str, Any]) -> None:
        if self.job.cancel.is_set():
            raise Cancelled
        self.job.games_played += len(next(iter(records.values()))) if records else 0

    def play(self, config: Config, first_game: int, n_games: int) -> Iterator[tuple[dict, Any]]:
        if self.job.cancel.is_set():
            raise Cancelled
        for records, tally in self.inner.play(config, first_game, n_games):
            self._seen(records)
            yield records, tally

    def play_many(self, jobs, chunk_games: int):
        if self.job.cancel.is_set():
            raise Cancelled
        for i, records, tally in self.inner.play_many(jobs, chunk_games):
            self._seen(records)
            yield i, records, tally


def refusal(job: TuneJob, tune, max_seconds: float) -> str | None:
    """The line refusing a tune estimated to take longer than the workbench allows; None if it may play.
    Sets the job's estimate and the games it says."""
    from sim.estimates import plan_tune, span_text

    plan = plan_tune(tune, report=False)
    low, high = plan["seconds"]
    job.estimate = [low, high]
    job.games_said = [plan["games_per_setting"][end] * len(plan["settings"]) for end in ("low", "likely", "high")]
    if low <= max_seconds:
        return None
    return (f"tune.budget: {counted(tune.budget, 'candidate')} of {tune.games:,} games would take about "
            f"{span_text(low, high)} on this machine; the workbench tunes for at most {max_seconds:.0f} s: "
            "try fewer candidates or games, or run `lvsim tune` on the downloaded files")


def play_tune(job: TuneJob, tune, max_seconds: float) -> None:
    """Estimate, then play ``job``'s tune into its directory; its state says how it ended."""
    from sim.config import load_config
    from sim.runner import IN_PROCESS
    from sim.tune import tune as run_tune
    from sim.tune.directory import BEST_FILE

    if job.cancel.is_set():
        job.state = CANCELLED
        return
    with ending(job):
        job.state = ESTIMATING
        line = refusal(job, tune, max_seconds)
        if line is not None:
            job.state, job.error = REFUSED, line
            return
        job.state = TUNING
        results = run_tune(tune, job.out_dir, cluster=Counted(IN_PROCESS, job), progress=False, report=False)
        summary = results.summary
        job.answer = {key: summary[key] for key in ("verdict", "recommendation", "side_effects", "candidates_tried")}
        # The recommended rules and seats, played with the page's games and seed.
        best = fields_of(load_config(job.out_dir / BEST_FILE))
        job.best_fields = {**best, "run.games": str(job.config.games), "run.seed": str(job.config.seed)}
        job.seconds = time.perf_counter() - job.asked_at
        job.state = DONE

