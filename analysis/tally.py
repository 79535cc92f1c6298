"""What every game's tally does the same way: merge exactly, go to JSON and back, be stored, be rebuilt.

A game's tally (``sim/<game>/summary.py``, and the Las Vegan report's
``sim/lasvegan/report_tally.py``) is a dataclass of the sufficient
statistics of a chunk of games: integers, tuples of integers, integer
arrays, and mergeable statistics (``IntHistogram``, ``FirstGames``,
``Moments``, lists of them, a nested tally). Subclassing
:class:`MergeableTally` gives it

* ``merge``: the tally of both chunks, field by field and exactly (the
  fields named in ``SHAPE`` must agree and are kept);
* ``to_json`` / ``from_json``: plain JSON, read back by the fields' types;
* ``write`` / ``read``: ``tally.json`` as one line of JSON;
* ``of_records_file``: the tally of a records file, read in bounded batches;
* equality, field by field, and ``win_unit``;
* the win-share tables by seat and by policy, from the fields ``win_units``,
  ``win_units_sq`` and ``win_cross`` over ``win_games`` games.

A subclass says only what its statistics are (``of``) and, where a field
merges otherwise (histograms counted in a common step), how.
"""

from __future__ import annotations

import json
import operator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping

import numpy as np

from analysis.common import win_unit
from analysis.stats import FirstGames, IntHistogram, Moments

# Record batches read back from a records file hold at most this many games.
READ_BATCH_GAMES = 65_536

# The mergeable statistics a tally's fields may hold, by the name their annotation gives.
STATISTICS = {"IntHistogram": IntHistogram, "FirstGames": FirstGames, "Moments": Moments}


@dataclass(eq=False)
class MergeableTally:
    """Sufficient statistics of a batch of games; the base of every game's tally (see the module)."""

    SHAPE: ClassVar[tuple[str, ...]] = ("players",)  # fields two merged tallies share (a game adds its own)
    WHAT: ClassVar[str] = "tally"  # what a malformed tally.json is not: "not a $ Fever tally"
    LAYOUT: ClassVar[Any] = None  # the game's RecordLayout, to read a records file
    RECORD_FIELDS: ClassVar[tuple[str, ...] | None] = None  # the record fields ``of`` reads (None: all)
    # Fields added since tallies were first written: a tally.json without them (and only them) is an older
    # version's, rebuilt from its records (OutdatedTally), not a malformed one.
    ADDED: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def of(cls, rec: Mapping[str, np.ndarray]):
        """The tally of one batch of game records."""
        raise NotImplementedError

    @classmethod
    def of_source(cls, source):
        """The tally itself, or the tally of per-game records (a notebook's)."""
        return source if isinstance(source, cls) else cls.of(source)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(getattr(self, name) for name in self.SHAPE)

    @property
    def win_unit(self) -> int:
        """Units per win in which the records' win shares are counted (1/k of a win whole for any tie)."""
        return win_unit(self.players)

    @property
    def win_games(self) -> int:
        """The games a seat's win share is a mean over: every game (a game where some end unfinished overrides it)."""
        return self.games

    def win_share_by_seat(self):
        """:func:`analysis.tables.win_share_by_seat` over ``win_games``."""
        from analysis.tables import win_share_by_seat

        return win_share_by_seat(self.win_units, self.win_units_sq, self.win_games, self.win_unit)

    def win_share_by_policy(self, seats):
        """:func:`analysis.tables.win_share_by_policy` over ``win_games``."""
        from analysis.tables import win_share_by_policy

        return win_share_by_policy(self.win_units, self.win_cross, self.win_games, self.win_unit, seats)

    # --- merging -------------------------------------------------------------------------------

    def merge(self, other):
        """The tally of both batches together."""
        if self.shape != other.shape:
            raise ValueError(f"cannot merge tallies of {self._shape_text()} and {other._shape_text()}")
        return type(self)(**{f.name: self.merged_field(f.name, other) for f in fields(self)})

    def merged_field(self, name: str, other) -> Any:
        """One field of the merge of ``self`` and ``other``; a subclass overrides it for a field that
        does not simply add."""
        a, b = getattr(self, name), getattr(other, name)
        return a if name in self.SHAPE else merged(a, b)

    def _shape_text(self) -> str:
        return " x ".join(f"{value} {name}" for name, value in zip(self.SHAPE, self.shape))

    def __eq__(self, other) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(_same(getattr(self, f.name), getattr(other, f.name)) for f in fields(self))

    # --- JSON and files ------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {f.name: to_json(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]):
        """The tally :meth:`to_json` wrote; a ValueError when the data is not one, :class:`OutdatedTally` when an
        older version wrote it without the fields added since (:attr:`ADDED`)."""
        missing = [f.name for f in fields(cls) if isinstance(data, Mapping) and f.name not in data]
        if missing and set(missing) <= set(cls.ADDED):
            raise OutdatedTally(f"a {cls.WHAT} written before {', '.join(missing)} was kept")
        try:
            return cls(**{f.name: from_json(f.type, data[f.name]) for f in fields(cls)})
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"not a {cls.WHAT} ({type(err).__name__}: {err})") from None

    def write(self, path: Path) -> None:
        """The tally as one line of JSON (``tally.json``)."""
        path.write_text(json.dumps(self.to_json(), separators=(",", ":")) + "\n", encoding="utf-8")

    @classmethod
    def read(cls, path: Path):
        """The tally :meth:`write` wrote."""
        return cls.from_json(json.loads(path.read_text(encoding="utf-8")))

    @classmethod
    def of_records_file(cls, path: Path, rules, batch_games: int = READ_BATCH_GAMES):
        """The tally of every game in a records file of ``rules``, read in batches of ``batch_games``."""
        names = cls.LAYOUT.fields if cls.RECORD_FIELDS is None else cls.RECORD_FIELDS
        return tally_of_records_file(cls.of, cls.LAYOUT, names, path, rules, batch_games)


class OutdatedTally(ValueError):
    """A tally.json an older version wrote, lacking fields this one keeps: its records give the tally again."""


def tally_of_records_file(of: Callable[[Mapping[str, np.ndarray]], Any], layout, names, path: Path, rules,
                          batch_games: int = READ_BATCH_GAMES):
    """``of`` (records -> tally) over every game in the records file ``path`` of ``rules``: the record fields
    ``names`` of ``layout``, read ``batch_games`` games at a time, the batches' tallies merged."""
    import pyarrow.parquet as pq

    columns = {name: layout.field_columns(name, rules) for name in names}
    tally = of(layout.empty(0, rules))
    with pq.ParquetFile(path) as parquet:
        for batch in parquet.iter_batches(batch_size=batch_games, columns=[c for cs in columns.values() for c in cs]):
            tally = tally.merge(of({name: layout.field_array(batch, name, rules, cols)
                                    for name, cols in columns.items()}))
    return tally


def win_unit_sums(units: np.ndarray) -> dict[str, Any]:
    """The win-share fields of a tally from each game's win units (``[game, seat]``, integers): ``win_units``,
    ``win_units_sq`` and ``win_cross`` (sums of products of two seats' units), and ``tie_games`` (games whose win
    is shared)."""
    return dict(
        win_units=tuple(int(v) for v in units.sum(axis=0)),
        win_units_sq=tuple(int(v) for v in (units * units).sum(axis=0)),
        win_cross=tuple(int(v) for v in np.einsum("gi,gj->ij", units, units).ravel()),
        tie_games=int(np.count_nonzero((units > 0).sum(axis=1) > 1)),
    )


def merged(a, b):
    """Two values of one field of two tallies, merged: statistics merge, lists of them item by item,
    numbers and arrays (and tuples of numbers, item by item) add."""
    if hasattr(a, "merge"):
        return a.merge(b)
    if isinstance(a, (list, tuple)):
        if all(type(x) is int for x in a):  # numbers: added at once, as item by item
            return type(a)(map(operator.add, a, b))
        return type(a)(merged(x, y) for x, y in zip(a, b))
    return a + b


def to_json(value) -> Any:
    """A field's value as plain JSON."""
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    return value if isinstance(value, str) else int(value)


def from_json(kind: str, raw) -> Any:
    """A field's value read back from JSON by its annotation: ``int``, ``str``, ``np.ndarray``, a statistic's class,
    or a ``tuple[..., ...]`` / ``list[...]`` of one of them."""
    kind = kind.replace(" ", "")
    if kind == "int":
        return int(raw)
    if kind == "str":
        if not isinstance(raw, str):
            raise TypeError(f"{type(raw).__name__} where a name is expected")
        return raw
    if kind == "np.ndarray":
        return np.asarray(raw, dtype=np.int64)
    for start, container in (("tuple[", tuple), ("list[", list)):
        if kind.startswith(start):
            if not isinstance(raw, list):
                raise TypeError(f"{type(raw).__name__} where a list is expected")
            item = kind[len(start):-1].removesuffix(",...")
            return container(from_json(item, v) for v in raw)
    return STATISTICS[kind].from_json(raw)


def _same(a, b) -> bool:
    return np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
