"""Per-game records, whatever the game: a layout of named fields, each an array per game.

A game's ``records.py`` declares its fields as ``{name: (dims, dtype,
meaning)}``, where ``dims`` are letters for the game's axes (``R`` rounds,
``P`` players, and the game's own), and builds a :class:`RecordLayout`
from them. The layout gives what the machinery needs of any game's
records: empty batches, concatenation, the flat table written to Parquet
(one row per game, one column per cell: ``delta_r0_s2``) and the way
back from its columns to the arrays.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

import numpy as np

FieldSpec = tuple[tuple[str, ...], type, str]  # dims, dtype, meaning


def kernel_struct(module: str, name: str, fields: Iterable[str]) -> type:
    """A named tuple class for one argument of a jitted core: a batch's record arrays, or the rules' numbers
    and arrays. The kernel reads its fields by name (``out.win_share[i, s]``, ``rules.players``), so no
    argument is bound to a position. Assign the class to ``name`` in ``module``: numba's on-disk cache
    keeps the argument types by their import path and finds the class there again."""
    return namedtuple(name, tuple(fields), module=module)


def slice_records(rec: Mapping[str, np.ndarray], sl) -> dict[str, np.ndarray]:
    """The games ``sl`` of a batch (a slice or an index array along the games axis)."""
    return {k: v[sl] for k, v in rec.items()}


@dataclass(frozen=True)
class RecordLayout:
    """The record fields of one game and the sizes of their axes under given rules.

    ``sizes(rules)`` maps each axis letter to its length; ``letters`` maps
    it to the prefix of its index in column names (``P`` -> ``s``: seat);
    ``struct`` is the :func:`kernel_struct` of the fields, in which a batch
    reaches the jitted core (:meth:`as_struct`).
    """

    fields: Mapping[str, FieldSpec]
    struct: type
    minus_one: tuple[str, ...]  # fields that are -1 where nothing happened
    letters: Mapping[str, str]
    sizes: Callable[[object], Mapping[str, int]]

    def field_shape(self, name: str, rules) -> tuple[int, ...]:
        sizes = self.sizes(rules)
        return tuple(sizes[d] for d in self.fields[name][0])

    def empty(self, n_games: int, rules) -> dict[str, np.ndarray]:
        """A preallocated batch: zeros, and -1 where -1 means 'nothing'."""
        out = {}
        for name, (_, dtype, _) in self.fields.items():
            arr = np.zeros((n_games,) + self.field_shape(name, rules), dtype=dtype)
            if name in self.minus_one:
                arr.fill(-1)
            out[name] = arr
        return out

    def as_struct(self, rec: Mapping[str, np.ndarray]):
        """The batch's arrays (not copies) as the kernel's ``out`` argument."""
        return self.struct(**{name: rec[name] for name in self.fields})

    def one_game(self, rules) -> dict[str, np.ndarray]:
        """An empty record of one game: :meth:`empty` without the games axis (the reference engine's record).

        Scalar fields become 0-d arrays, still views into the batch, so ``rec["game"][...] = 3`` fills them.
        """
        return {name: arr.reshape(arr.shape[1:]) for name, arr in self.empty(1, rules).items()}

    def differences(self, a: Mapping[str, np.ndarray], b: Mapping[str, np.ndarray]) -> list[str]:
        """The fields on which two records of one game disagree (empty: the same game)."""
        return [name for name in self.fields if not np.array_equal(np.asarray(a[name]), np.asarray(b[name]))]

    def concat(self, batches: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
        return {k: np.concatenate([b[k] for b in batches]) for k in self.fields}

    def _column_names(self, name: str, shape: tuple[int, ...]) -> list[tuple[str, tuple]]:
        if not shape:
            return [(name, ())]
        dims = self.fields[name][0]
        return [
            (f"{name}_" + "_".join(f"{self.letters[d]}{i}" for d, i in zip(dims, idx)), idx)
            for idx in np.ndindex(*shape)
        ]

    def to_frame(self, rec: Mapping[str, np.ndarray]):
        """One row per game, one flat column per record cell (a pandas DataFrame)."""
        import pandas as pd

        cols = {}
        for name in self.fields:
            arr = rec[name]
            for col, idx in self._column_names(name, arr.shape[1:]):
                cols[col] = arr[(slice(None),) + idx]
        return pd.DataFrame(cols)

    def to_arrow(self, rec: Mapping[str, np.ndarray]):
        """The same table as :meth:`to_frame`, built as a pyarrow Table straight from the arrays.

        This is what a run writes to Parquet: going through pandas costs
        three times as much, a copy per column.
        """
        import pyarrow as pa

        arrays, names = [], []
        for name in self.fields:
            arr = rec[name]
            columns = self._column_names(name, arr.shape[1:])
            if not arr.shape[1:]:
                arrays.append(pa.array(arr))
                names.append(name)
                continue
            cells = np.ascontiguousarray(arr.reshape(len(arr), len(columns)).T)  # one row per column, in C order
            arrays += [pa.array(cell) for cell in cells]
            names += [col for col, _ in columns]
        return pa.Table.from_arrays(arrays, names=names)

    def field_columns(self, name: str, rules) -> list[str]:
        """The flat columns of one field in :meth:`to_frame`, in C order of its cells."""
        return [col for col, _ in self._column_names(name, self.field_shape(name, rules))]

    def field_array(self, batch, name: str, rules, columns: list[str] | None = None) -> np.ndarray:
        """One field of a pyarrow table or batch of flat columns, as an array with a leading games axis."""
        dtype = self.fields[name][1]
        shape = self.field_shape(name, rules)
        columns = self.field_columns(name, rules) if columns is None else columns
        if not shape:
            return batch.column(columns[0]).to_numpy().astype(dtype, copy=False)
        stacked = np.column_stack([batch.column(c).to_numpy() for c in columns]).astype(dtype, copy=False)
        return stacked.reshape((len(stacked),) + shape)
