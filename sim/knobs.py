"""Rule knobs, declared once: name, default, domain, the label a designer reads, help.

A game lists its knobs as :class:`Knob` declarations and builds its
``Rules`` class from them with :func:`declared`::

    KNOBS = knob_table(
        Knob("players", 4, Int(3, 5), "players"),
        Knob("tokens", DEFAULT_TOKENS, ListOf(Pair(Int(-20, 20), names=("face 1", "face 2")), 1, 4,
             entry="token {n}", form="a list of [face, face] integer pairs"), "casino tokens"),
    )

    @declared(KNOBS)
    class Rules(RuleKnobs):
        def check_combinations(self): ...   # what no single knob's domain says

The declaration is the only place a knob's default and values are written:
it checks a config's values (a :class:`~sim.errors.ConfigError` naming the
knob, or the entry of a list, ``tokens[2][1]``), describes the knob in
``lvsim games`` and the docs, names a value a search varies in words
(``token 3, face 2``), tells which values a search may give an entry, and
says which knobs follow the player count. Checks that join several knobs
(cards set aside must divide among the players) stay with the game, in
``Rules.check_combinations``.
"""

from __future__ import annotations

import dataclasses
import numbers
import re
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Collection, Iterable, Iterator, Mapping, Sequence

from sim.errors import ConfigError, GameError, shown


def is_int(value: Any) -> bool:
    """An integer from TOML or numpy; ``True`` is not one."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def int_in(field: str, value: Any, lo: int, hi: int) -> None:
    """A ConfigError naming ``field`` unless ``value`` is an integer from ``lo`` to ``hi``."""
    if not is_int(value):
        raise ConfigError(field, f"must be an integer, got {shown(value)}")
    if not lo <= value <= hi:
        raise ConfigError(field, f"must be between {lo} and {hi}, got {shown(value)}")


def _either(options: Iterable[str]) -> str:
    options = list(options)
    return options[0] if len(options) == 1 else ", ".join(options[:-1]) + " or " + options[-1]


# --- domains --------------------------------------------------------------------------------


class Domain:
    """The values a knob (or one entry of it) takes."""

    def check(self, value: Any, field: str) -> Any:
        """``value`` as the rules keep it (lists as tuples); a ConfigError naming ``field`` if it is not one."""
        raise NotImplementedError

    def has_form(self, value: Any) -> bool:
        """Whether ``value`` is of the domain's form (a string, a pair of integers), whatever its range: a list of
        entries of the wrong form is refused as a whole before any entry is checked."""
        return True

    def check_entries(self, value: Any, field: str) -> Any:
        """The second pass of a knob whose entries are checked after every knob's form (a list's): ``value``."""
        return value

    def text(self) -> str:
        """The values in a designer's words: ``1 to 10,000``, ``'finite' or 'unlimited'``."""
        raise NotImplementedError

    def plain(self, value: Any) -> Any:
        """``value`` as a config file writes it (tuples as lists)."""
        return value

    def spec(self) -> dict[str, Any]:
        """The domain as ``lvsim games --json`` gives it."""
        raise NotImplementedError

    def entry(self, index: int | str) -> tuple["Domain", str]:
        """The domain of one entry of a list value and how that entry is named; KeyError if it has none."""
        raise KeyError(index)


@dataclass(frozen=True)
class Int(Domain):
    """An integer from ``lo`` to ``hi``."""

    lo: int
    hi: int

    def check(self, value, field):
        int_in(field, value, self.lo, self.hi)
        return int(value)

    def text(self):
        return f"{self.lo:,} to {self.hi:,}"

    def spec(self):
        return {"kind": "integer", "min": self.lo, "max": self.hi}


@dataclass(frozen=True)
class Choice(Domain):
    """One of a few words, each with what it means (``""`` when the word says it)."""

    options: Mapping[str, str]
    summary: str = ""  # the options in short, where listing them all is too long: "'suit:<colour>' or 'value:<0-9>'"
    wrong: str = ""  # the problem with a value not among them, "{value}" standing for it; default "must be …"

    def has_form(self, value):
        return isinstance(value, str)

    def check(self, value, field):
        if not isinstance(value, str) or value not in self.options:
            if self.wrong:
                raise ConfigError(field, self.wrong.format(value=shown(value)))
            raise ConfigError(field, f"must be {_either(repr(o) for o in self.options)}, got {shown(value)}")
        return value

    def text(self):
        if self.summary:
            return self.summary
        return _either(f"'{o}' ({m})" if m else f"'{o}'" for o, m in self.options.items())

    def spec(self):
        return {"kind": "choice", "options": list(self.options)}


@dataclass(frozen=True)
class Flag(Domain):
    """``true`` or ``false``, with what each means."""

    true: str = ""
    false: str = ""

    def check(self, value, field):
        if not isinstance(value, bool):
            raise ConfigError(field, f"must be true or false, got {shown(value)}")
        return value

    def text(self):
        return _either(f"{w} ({m})" if m else w for w, m in (("true", self.true), ("false", self.false)))

    def spec(self):
        return {"kind": "boolean"}


@dataclass(frozen=True)
class OrAuto(Domain):
    """``'auto'`` (the rulebook's value for the table, ``means``) or a value of ``inner``."""

    inner: Domain
    means: str

    def check(self, value, field):
        if isinstance(value, str) and value == "auto":
            return value
        if isinstance(self.inner, Flag):
            if not isinstance(value, bool):
                raise ConfigError(field, f"must be true, false or 'auto', got {shown(value)}")
            return value
        if isinstance(value, str):
            raise ConfigError(field, f"must be a number or 'auto', got {shown(value)}")
        return self.inner.check(value, field)

    def text(self):
        return f"{self.inner.text()}, or 'auto' = {self.means}"

    def spec(self):
        return {"kind": "auto_or", "auto": self.means, "else": self.inner.spec()}


@dataclass(frozen=True)
class Pair(Domain):
    """A fixed-length list of entries, each with its own domain and name (``face 1``, ``face 2``)."""

    items: tuple[Domain, ...]
    names: tuple[str, ...]
    form: str  # "a [face, face] integer pair"
    noun: str = "entries"  # what the entries are, for "faces -20 to 20"

    def has_form(self, value):
        return isinstance(value, (list, tuple)) and len(value) == len(self.items) and all(is_int(v) for v in value)

    def check(self, value, field):
        if not self.has_form(value):
            raise ConfigError(field, f"must be {self.form}, got {shown(value)}")
        return tuple(d.check(v, f"{field}[{i}]") for i, (d, v) in enumerate(zip(self.items, value)))

    def entries_text(self) -> str:
        if len(set(self.items)) == 1:
            return f"{self.noun} {self.items[0].text()}"
        return ", ".join(f"{n} {d.text()}" for n, d in zip(self.names, self.items))

    def text(self):
        return f"{self.form}, {self.entries_text()}"

    def plain(self, value):
        return [d.plain(v) for d, v in zip(self.items, value)]

    def spec(self):
        return {"kind": "tuple", "items": [d.spec() for d in self.items], "names": list(self.names)}

    def entry(self, index):
        if not isinstance(index, int) or not 0 <= index < len(self.items):
            raise KeyError(index)
        return self.items[index], self.names[index]


@dataclass(frozen=True)
class ListOf(Domain):
    """A list of entries of one domain, ``least`` to ``most`` long; entry ``i`` is named ``entry`` with
    n = i + 1 (``token {n}``) or i itself (``seat {i}``, for what the game numbers from 0).

    ``fill``: a shorter list is completed with this entry up to ``most`` long, so that the rules always hold
    ``most`` entries (one per seat: a designer writes the seats that differ); None: a list is kept as long as
    it is written.
    """

    item: Domain
    least: int | None
    most: int | None
    entry_name: str  # "token {n}"
    form: str  # "a list of [face, face] integer pairs"
    noun: str = "entries"  # what the length counts, for "needs between 1 and 4 ordinary tokens"
    fill: Any = None

    def check(self, value, field):
        if not isinstance(value, (list, tuple)):
            raise ConfigError(field, f"must be {self.form}, got {shown(value)}")
        for i, v in enumerate(value):  # the first entry out of form named, not the whole list quoted
            if not self.item.has_form(v):
                what = getattr(self.item, "form", None) or self.item.text()
                raise ConfigError(f"{field}[{i}]", f"must be {what}, got {shown(v)}")
        return tuple(value)

    def check_entries(self, value, field):
        """Each entry in its domain, then the length (after the entries' shape: a short list of bad entries names
        the entry)."""
        out = tuple(self.item.check(v, f"{field}[{i}]") for i, v in enumerate(value))
        least, most = self.least, self.most
        if least is not None and most is not None and not least <= len(value) <= most:
            raise ConfigError(field, f"needs between {least} and {most} {self.noun}, got {len(value)}")
        if self.fill is not None and most is not None:
            out += (self.fill,) * (most - len(out))
        return out

    def text(self):
        size = ""
        if self.least is not None and self.most is not None:
            size = f", {self.least} to {self.most} {self.noun}"
        each = self.item.entries_text() if isinstance(self.item, Pair) else f"each {self.item.text()}"
        return f"{self.form}{size}; {each}"

    def plain(self, value):
        return [self.item.plain(v) for v in value]

    def spec(self):
        return {"kind": "list", "min_length": self.least, "max_length": self.most, "item": self.item.spec()}

    def entry(self, index):
        if not isinstance(index, int) or index < 0 or (self.most is not None and index >= self.most):
            raise KeyError(index)
        return self.item, self.entry_name.format(n=index + 1, i=index)


@dataclass(frozen=True)
class Custom(Domain):
    """A value whose shape only the game checks (a table of symbols, a pay table): ``check`` coerces it."""

    checker: Callable[[Any, str], Any]
    description: str
    to_plain: Callable[[Any], Any] = lambda v: v
    kind: str = "custom"

    def check(self, value, field):
        return self.checker(value, field)

    def text(self):
        return self.description

    def plain(self, value):
        return self.to_plain(value)

    def spec(self):
        return {"kind": self.kind}


# --- knobs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Knob:
    """One rule knob: its name in ``[rules]``, the rulebook's value, the values it takes, and its words.

    ``follows_players``: a value set for one player count (cards set aside),
    put back to its default when a sweep or tune changes the count.
    ``applies``: whether the knob can change a game under these rules (the
    set-aside card's face when no card is set aside cannot); None: always.
    ``entry_applies``: the same for entry ``i`` of a list knob, as
    ``entry_applies(rules, i)`` (a seat's entry when the table has fewer
    seats cannot); None: every entry applies where the knob does.
    ``auto``: the value ``'auto'`` stands for under these rules (a knob of
    domain :class:`OrAuto`), so that a one-step deviation starts from the
    number the rulebook prints (``sim.sensitivity``); None: it has no steps.
    ``step``: one step of an integer under these rules, for the same study and for a tune's search, as
    ``step(rules, path)``, ``path`` the entry of the knob (``()`` the knob itself; ``(2, 0)`` a bill's value):
    dollars move by the smallest bill or the bills' common divisor, not by one dollar; None: one.
    """

    name: str
    default: Any
    domain: Domain
    label: str
    help: str = ""
    follows_players: bool = False
    applies: Callable[[Any], bool] | None = None
    auto: Callable[[Any], Any] | None = None
    entry_applies: Callable[[Any, int], bool] | None = None
    step: Callable[[Any, tuple[int, ...]], int] | None = None

    def values_text(self) -> str:
        """What ``lvsim games`` prints after the default: the values, then what the knob does."""
        return f"{self.domain.text()}{f' ({self.help})' if self.help else ''}"

    def describe(self) -> dict[str, Any]:
        return {"default": self.domain.plain(self.default), "values": self.values_text(), "label": self.label,
                "help": self.help, "domain": self.domain.spec(), "follows_players": self.follows_players}


def knob_table(*knobs: Knob) -> dict[str, Knob]:
    table: dict[str, Knob] = {}
    for k in knobs:
        if k.name in table:
            raise ValueError(f"knob {k.name} is declared twice")
        table[k.name] = k
    return table


_ENTRY = re.compile(r"\[([0-9]+)\]")  # ASCII digits: \d also takes other scripts'
_PATH = re.compile(r"(?:rules\.)?([A-Za-z_][A-Za-z0-9_]*)((?:\[[0-9]+\])*)")


def parse_path(path: str) -> tuple[str, tuple[int, ...]]:
    """``"rules.tokens[2][1]"`` (or ``"tokens[2][1]"``) as ``("tokens", (2, 1))``; ValueError if malformed."""
    match = _PATH.fullmatch(path)
    if match is None:
        raise ValueError(f"not a knob path: {path!r} (write rules.<knob>, optionally with [index])")
    return match.group(1), tuple(int(i) for i in _ENTRY.findall(match.group(2)))


def inert_at(inert: Collection[str], name: str, path: Sequence[int] = ()) -> bool:
    """Whether knob ``name``, or the entry ``path`` of it is under, is among ``inert`` (``RuleKnobs.inert``: what
    cannot change a game under some rules)."""
    return name in inert or (bool(path) and f"{name}[{path[0]}]" in inert)


def knob_label(knobs: Mapping[str, Knob], path: str) -> str:
    """A knob or one entry of it as a designer says it: ``rules.tokens[2][1]`` -> ``token 3, face 2``.

    A path that names no declared knob or entry is given back as written, underscores as spaces.
    """
    try:
        name, indices = parse_path(path)
        knob = knobs[name]
    except (ValueError, KeyError):
        return path.removeprefix("rules.").replace("_", " ")
    words, domain = [], knob.domain
    for i in indices:
        try:
            domain, word = domain.entry(i)
        except KeyError:
            return path.removeprefix("rules.").replace("_", " ")
        words.append(word)
    return ", ".join(words) if words else knob.label


def table_at_players(knobs: Mapping[str, Knob], table: Mapping[str, Any], players: int) -> dict[str, Any]:
    """A ``[rules]`` table moved to ``players``: the knobs that follow the player count go back to their default."""
    out = dict(table)
    if out.get("players", knobs["players"].default) != players:
        for knob in knobs.values():
            if knob.follows_players:
                out.pop(knob.name, None)
    out["players"] = players
    return out


# --- the Rules class -------------------------------------------------------------------------


class RuleKnobs:
    """Base of a game's ``Rules``: checks every knob against its declaration, then the game's own combinations.

    ``KNOBS`` is set by :func:`declared`. A game defines
    ``check_combinations(self)`` for what joins several knobs.
    """

    KNOBS: Mapping[str, Knob] = {}

    def __post_init__(self):
        for knob in self.KNOBS.values():
            with _default_checked(knob, getattr(self, knob.name), type(self).__module__):
                object.__setattr__(self, knob.name, knob.domain.check(getattr(self, knob.name), knob.name))
        for knob in self.KNOBS.values():
            with _default_checked(knob, getattr(self, knob.name), type(self).__module__):
                object.__setattr__(self, knob.name, knob.domain.check_entries(getattr(self, knob.name), knob.name))
        self.check_combinations()

    def check_combinations(self) -> None:
        """What no single knob's domain says (a game overrides it)."""

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None, prefix: str = "rules"):
        """The rules of a ``[rules]`` table: an unknown key or a bad value names ``prefix.key``."""
        data = dict(data or {})
        known = set(cls.KNOBS)
        for key in data:
            if key not in known:
                raise ConfigError(f"{prefix}.{key}", f"unknown key (known: {', '.join(sorted(known))})")
        try:
            return cls(**data)
        except ConfigError as err:
            raise ConfigError(f"{prefix}.{err.field}", err.problem) from None

    def to_dict(self) -> dict[str, Any]:
        """The rules as a ``[rules]`` table holds them (lists, not tuples)."""
        return {k.name: k.domain.plain(getattr(self, k.name)) for k in self.KNOBS.values()}

    def at_players(self, players: int):
        """These rules at another player count; the knobs that follow the count go back to their default."""
        return type(self).from_mapping(table_at_players(self.KNOBS, self.to_dict(), players))

    def inert(self) -> list[str]:
        """The knobs, and the entries of list knobs (``seat_cabbages[3]``), that cannot change a game under these
        rules."""
        out = []
        for k in self.KNOBS.values():
            if k.applies is not None and not k.applies(self):
                out.append(k.name)
            elif k.entry_applies is not None:
                out += [f"{k.name}[{i}]" for i in range(len(getattr(self, k.name))) if not k.entry_applies(self, i)]
        return out

    def differences(self) -> dict[str, Any]:
        """Fields whose value differs from the rulebook game (same player count)."""
        base = type(self)(players=self.players).to_dict()
        return {k: v for k, v in self.to_dict().items() if base[k] != v}


@contextmanager
def _default_checked(knob: Knob, value: Any, module: str) -> Iterator[None]:
    """Refuse a knob's own default, should its domain refuse it, as the fault of the game that declares it (in
    ``module``): as the config's, it would be blamed on every config, naming a value no config gave."""
    try:
        yield
    except ConfigError as err:
        if err.field != knob.name or value is not knob.default:  # the default itself, not a value equal to it (1, True)
            raise
        raise GameError(f"knob {knob.name} of {module}: its default {shown(knob.default)} is not one "
                        f"of its own values ({err.problem})") from None


def declared(knobs: Mapping[str, Knob]):
    """Make the decorated class a frozen dataclass whose fields are ``knobs``, in order, with their defaults."""

    def build(cls):
        annotations = {name: Any for name in knobs}
        namespace_clash = [n for n in knobs if n in cls.__dict__]
        if namespace_clash:
            raise TypeError(f"{cls.__name__} defines {namespace_clash}, which are knobs")
        cls.__annotations__ = {**annotations, **{k: v for k, v in cls.__dict__.get("__annotations__", {}).items()
                                                 if k not in annotations}}
        for knob in knobs.values():
            setattr(cls, knob.name, knob.default)
        cls.KNOBS = knobs
        return dataclasses.dataclass(frozen=True)(cls)

    return build
