"""What a confirmation plays: the rules, the targets and the settings, from a tune file or a config alone."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sim.errors import ConfigError
from sim.tune.spec import Tables


@dataclass(frozen=True)
class Confirmation(Tables):
    """The rules to confirm (``base``), the targets, and every (player count, policy) to confirm them at."""

    name: str
    base: Any  # a sim.config.Config
    base_path: Path
    targets: tuple
    players: tuple[int, ...]
    policies: tuple[str, ...]
    seed: int  # the tune's search seed, or the config's: the default confirmation seed is derived from it
    dims = ()  # nothing is searched: the rules are the base's


def load_confirmation(tune_file: str | os.PathLike | None, config_file: str | os.PathLike | None = None,
                      players: tuple[int, ...] | None = None, threads: int | None = None) -> Confirmation:
    """The confirmation a tune file asks for (its targets, players and policies), on the rules of
    ``config_file`` when given (e.g. the tune's ``best.toml``), else on the tune's base config.

    With no tune file, the config alone: no targets, its player count and
    its policy (every seat the same), so only the stronger tables are judged.
    """
    from sim.config import load_config

    if tune_file is None and config_file is None:
        raise ConfigError("FILE", "give a tune file (its [targets], [tune] players and policies), "
                                  "or --config CONFIG to judge a rule set against stronger players")
    config = None
    if config_file is not None:
        config = load_config(config_file)
        if threads is not None:
            config = replace(config, threads=threads)
    if tune_file is None:
        seats = set(config.seat_policies)
        if len(seats) != 1:
            raise ConfigError("policies.seats", "lvsim confirm plays one policy at every seat; this config seats "
                                                + ", ".join(config.seat_policies))
        return Confirmation(name=Path(config_file).stem, base=config, base_path=Path(config_file), targets=(),
                            players=tuple(players or (config.players,)), policies=(next(iter(seats)),),
                            seed=config.seed)
    from sim.tune import load_tune

    tune = load_tune(tune_file, threads=threads, searched=False)  # confirm plays the base rules: no [search]
    if config is not None and config.game_spec.id != tune.game.id:
        raise ConfigError("--config", f"plays {config.game_spec.id}, but the tune file's targets are for "
                                      f"{tune.game.id}")
    base, base_path = (config, Path(config_file)) if config is not None else (tune.base, tune.base_path)
    for p in players or ():
        if not tune.game.min_players <= p <= tune.game.max_players:
            raise ConfigError("--players", f"{tune.game.title} is played by {tune.game.min_players} to "
                                           f"{tune.game.max_players} players, got {p}")
    return Confirmation(name=tune.name, base=base, base_path=base_path, targets=tuple(tune.targets),
                        players=tuple(players or tune.players), policies=tuple(tune.policies), seed=tune.seed)
