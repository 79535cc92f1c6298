"""Rule knobs of $ Fever: one validated, immutable object.

Every knob of the rules document is a field. The symbol deck and the pay
table of the designer's post were lost with its pictures: the defaults are
the rules document's stand-ins (marked **[default]** there and in every
report), for a designer to replace. ``Rules.from_mapping`` reads the
``[rules]`` table of a config and rejects unknown keys, wrong types,
out-of-range values and impossible combinations with a
:class:`~sim.errors.ConfigError` naming the key.

The pay table is a list of patterns on the three reels, each with its
points. A pattern's entries are a symbol, alternatives joined by ``|``
(``"bar|double_bar"``) or ``*`` for any symbol. The reels match a pattern
in any order unless ``reels_ordered`` (then reel 1 matches entry 1, and so
on). When several patterns match, the richest scores (on equal points, the
first listed): one combination per machine.

Decisions where the rules are silent (documented in ``docs/engine.md``):

* a machine dealt or refilled showing a combination scores for nobody; a
  player who covers a reel and leaves a combination showing scores it
  (``dealt_combination = "waits"``); or, a knob, such a machine is put on
  the discards and dealt again (``"redeal"``, at most ``MAX_REDEALS`` times in
  a row, so that a deck of one symbol cannot deal for ever);
* a double gives up the doubling player's cheapest combination (the first
  scored among equally cheap ones);
* a player with no card to play passes.
"""

from __future__ import annotations

from functools import cached_property
from itertools import permutations, product
from typing import Any

import numpy as np

from sim.errors import ConfigError, counted, shown
from sim.knobs import Choice, Custom, Flag, Int, Knob, RuleKnobs, declared, int_in, knob_table
from sim.records import kernel_struct
from sim.fever import enums as E

# The rules document's stand-in deck: symbol -> cards. [default]
DEFAULT_DECK = (
    ("cherry", 10), ("lemon", 10), ("orange", 8), ("plum", 8),
    ("bell", 6), ("bar", 5), ("double_bar", 3), ("seven", 2),
)
# The rules document's stand-in pay table: three of a symbol. [default]
DEFAULT_PAYTABLE = (
    (("cherry",) * 3, 1), (("lemon",) * 3, 2), (("orange",) * 3, 2), (("plum",) * 3, 3),
    (("bell",) * 3, 3), (("bar",) * 3, 4), (("double_bar",) * 3, 4), (("seven",) * 3, 6),
)
ANY = "*"
DEALT_COMBINATION = {"waits": 0, "redeal": 1}
MAX_REDEALS = 10

KNOBS = knob_table(
    Knob("players", 4, Int(E.MIN_PLAYERS, E.MAX_PLAYERS), "players", "1 is a race to the target alone"),
    Knob("target", 10, Int(1, E.MAX_TARGET), "target", "points that win at once"),
    Knob("deck", DEFAULT_DECK,
         Custom(lambda v, field: _coerce_deck(v, field),
                f"table symbol = cards: names of letters, digits and _, 1 to {E.MAX_SYMBOLS} symbols, "
                f"each 1 to {E.MAX_SYMBOL_CARDS} cards, at most {E.MAX_CARDS} cards in all",
                lambda deck: {name: count for name, count in deck}, "table"),
         "symbol deck", "[default: a stand-in for the lost card list]"),
    Knob("paytable", DEFAULT_PAYTABLE,
         Custom(lambda v, field: _coerce_paytable(v, field),
                f"list of 1 to {E.MAX_PATTERNS} {{symbols = [3 entries], points = 1 to {E.MAX_POINTS}}}; an entry is a symbol, "
                "alternatives joined by '|', or '*' for any",
                lambda table: [{"symbols": list(entries), "points": points} for entries, points in table],
                "paytable"),
         "pay table", "[default: a stand-in for the lost pay table]"),
    Knob("reels_ordered", False, Flag(true="reel 1 matches entry 1, ...",
                                      false="the reels match a pattern in any order"), "reels ordered",
         # Order matters only to a pattern whose entries differ: three of one entry match in any order.
         applies=lambda rules: any(len(set(masks)) > 1 for masks in rules.pattern_masks)),
    Knob("double_up", True, Flag(), "double up",
         "whether a player holding a combination may give it up to double"),
    Knob("double_extra_cards", 3, Int(0, E.MAX_DOUBLE_EXTRA), "cards a double draws",
         applies=lambda rules: rules.double_up),
    Knob("double_max_cards", 3, Int(1, E.REELS), "most cards on a doubling turn",
         applies=lambda rules: rules.double_up),
    Knob("refill_after_scoring", True, Flag(true="the reels are refilled from the deck",
                                            false="they stay empty until played on"), "refill after scoring"),
    Knob("reshuffle_discards", True, Flag(true="an empty deck is remade from the discards",
                                          false="players stop drawing"), "reshuffle the discards"),
    Knob("dealt_combination", "waits",
         Choice({"waits": "a machine dealt showing a combination scores for nobody until played on",
                 "redeal": f"it is discarded and dealt again, at most {MAX_REDEALS} times"}),
         "a combination dealt"),
    Knob("turn_cap", 200, Int(1, E.MAX_TURN_CAP), "turn cap",
         "turns after which a game without a winner is recorded as unfinished"),
)


@declared(KNOBS)
class Rules(RuleKnobs):
    def check_combinations(self) -> None:
        """The deck and the pay table: symbols named once, enough cards to deal, patterns on symbols the deck holds."""
        names = [name for name, _ in self.deck]
        if not 1 <= len(names) <= E.MAX_SYMBOLS:
            raise ConfigError("deck", f"needs 1 to {E.MAX_SYMBOLS} symbols, got {len(names)}")
        for name, count in self.deck:
            if not isinstance(name, str) or not name or not name.replace("_", "a").isascii() \
                    or not name.replace("_", "a").isalnum():
                raise ConfigError("deck", f"a symbol is named with letters, digits and _, got {shown(name)}")
            int_in(f"deck.{name}", count, 1, E.MAX_SYMBOL_CARDS)
        if len(set(names)) != len(names):
            raise ConfigError("deck", "names a symbol twice")
        total = sum(count for _, count in self.deck)
        if total > E.MAX_CARDS:
            raise ConfigError("deck", f"holds {total} cards, at most {E.MAX_CARDS}")
        needed = E.HAND * self.players + E.REELS
        if total < needed:
            raise ConfigError(
                "deck", f"holds {counted(total, 'card')}, too few to deal {E.HAND} to each of "
                f"{counted(self.players, 'player')} and "
                f"{E.REELS} to the reels ({needed})"
            )

        if not 1 <= len(self.paytable) <= E.MAX_PATTERNS:
            raise ConfigError("paytable", f"needs 1 to {E.MAX_PATTERNS} patterns, got {len(self.paytable)}")
        known = set(names)
        for i, (entries, points) in enumerate(self.paytable):
            for entry in entries:
                if entry == ANY:
                    continue
                for name in entry.split("|"):
                    if name not in known:
                        raise ConfigError(
                            f"paytable[{i}].symbols",
                            f"names the symbol {shown(name)}, which rules.deck does not hold "
                            f"(symbols: {', '.join(names)}; '*' is any symbol)",
                        )
            int_in(f"paytable[{i}].points", points, 1, E.MAX_POINTS)

    # --- derived -------------------------------------------------------
    @cached_property
    def symbols(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.deck)

    @property
    def cards(self) -> tuple[int, ...]:
        """Every card's symbol, in the order of ``deck`` (before the shuffle)."""
        return tuple(k for k, (_, count) in enumerate(self.deck) for _ in range(count))

    @property
    def patterns(self) -> int:
        return len(self.paytable)

    @cached_property
    def pattern_masks(self) -> tuple[tuple[int, int, int], ...]:
        """Each pattern's entries as bit masks of the symbols they accept."""
        index = {name: k for k, name in enumerate(self.symbols)}
        every = (1 << len(self.symbols)) - 1
        return tuple(
            tuple(every if entry == ANY else sum(1 << index[s] for s in set(entry.split("|"))) for entry in entries)
            for entries, _ in self.paytable
        )

    @property
    def points(self) -> tuple[int, ...]:
        return tuple(p for _, p in self.paytable)

    def matching_pattern(self, reels) -> int | None:
        """The pattern the machine ``reels`` (three symbols, None for an empty reel) shows: the richest
        that matches (on equal points the first listed), None if none does or a reel is empty."""
        reels = tuple(reels)
        if reels not in self._matches:
            empty = any(r is None or r < 0 for r in reels)
            self._matches[reels] = None if empty else self._richest_match(reels)
        return self._matches[reels]

    @cached_property
    def _matches(self) -> dict:
        return {}  # machine -> matching pattern, memoised: the reference engine asks often

    def _richest_match(self, reels: tuple[int, int, int]) -> int | None:
        best = None
        for p in self._patterns_matching(reels):
            if best is None or self.paytable[p][1] > self.paytable[best][1]:
                best = p
        return best

    def _patterns_matching(self, reels: tuple[int, int, int]) -> list[int]:
        """Every pattern the machine ``reels`` (three symbols) matches, in pay-table order: in any order of the
        reels unless ``reels_ordered``."""
        orders = [tuple(reels)] if self.reels_ordered else list(permutations(reels))
        return [p for p, masks in enumerate(self.pattern_masks)
                if any(all(masks[i] >> order[i] & 1 for i in range(3)) for order in orders)]

    def _short_of(self, reels: tuple[int, int, int]) -> dict[int, int]:
        """The symbols the machine ``reels`` shows more cards of than the deck holds -> the cards it holds (empty:
        the deck can show it)."""
        counts = [n for _, n in self.deck]
        return {x: counts[x] for x in set(reels) if reels.count(x) > counts[x]}

    @cached_property
    def symbol_best(self) -> tuple[int, ...]:
        """Per symbol, the most points of a pattern it can take part in (0: none)."""
        return tuple(
            max([p for masks, (_, p) in zip(self.pattern_masks, self.paytable) if any(m >> k & 1 for m in masks)],
                default=0)
            for k in range(len(self.symbols))
        )

    @cached_property
    def combination_table(self) -> np.ndarray:
        """``table[a * K * K + b * K + c]``: the pattern reels showing symbols a, b, c match, -1 for none."""
        k = len(self.symbols)
        table = np.full(k * k * k, -1, dtype=np.int64)
        for a in range(k):
            for b in range(k):
                for c in range(k):
                    p = self.matching_pattern((a, b, c))
                    table[(a * k + b) * k + c] = -1 if p is None else p
        return table

    @cached_property
    def machine_patterns(self) -> np.ndarray:
        """``machine_patterns[machine]``: the pattern the machine shows, -1 for none or an empty reel.
        ``machine = ((r0 + 1) * (K + 1) + r1 + 1) * (K + 1) + r2 + 1``, an empty reel counting as -1
        (``mechanics.machine_nb``): the jitted core's lookup, with no test for an empty reel."""
        k = len(self.symbols)
        table = np.full((k + 1,) * 3, -1, dtype=np.int64)  # index 0: an empty reel
        table[1:, 1:, 1:] = self.combination_table.reshape(k, k, k)
        return table.ravel()

    @cached_property
    def completions(self) -> np.ndarray:
        """``completions[machine]`` (indexed as ``machine_patterns``): bit ``E.HELD_BITS * (n - 1) + x`` set
        when playing n cards of symbol x on some n reels leaves a combination showing. A hand's
        ``held`` word (``mechanics.held_nb``) has the same layout, so one AND tells the jitted core
        whether the hand can score."""
        k = len(self.symbols)
        scores = self.machine_patterns.reshape((k + 1,) * 3) >= 0
        out = np.zeros((k + 1) ** 3, dtype=np.int64)
        reel = np.arange(k + 1)
        a, b, c = np.meshgrid(reel, reel, reel, indexing="ij")
        for x in range(k):
            y = x + 1
            one = scores[y, b, c] | scores[a, y, c] | scores[a, b, y]
            two = scores[y, y, c] | scores[y, b, y] | scores[a, y, y]
            three = np.broadcast_to(scores[y, y, y], one.shape)
            for n, hit in enumerate((one, two, three)):
                out |= hit.ravel().astype(np.int64) << (E.HELD_BITS * n + x)
        return out

    @cached_property
    def unreachable_patterns(self) -> tuple[int, ...]:
        """Patterns no machine the deck can show ever scores: they need more cards of a symbol than the
        deck holds (three sevens from two), or a richer pattern always wins over them."""
        k = len(self.symbols)
        reached = set()
        for a, b, c in product(range(k), repeat=3):
            if not self._short_of((a, b, c)):
                p = self.combination_table[(a * k + b) * k + c]
                if p >= 0:
                    reached.add(int(p))
        return tuple(p for p in range(len(self.paytable)) if p not in reached)

    def why_unreachable(self, p: int) -> tuple[dict[int, int], tuple[int, ...]]:
        """Why pattern ``p`` is never scored: ``short``, each symbol some machine matching it needs more cards of
        than the deck holds -> the cards it holds; ``instead``, the patterns that score in its place on the
        machines matching it that the deck can show (each pays more, or as much and is listed first)."""
        short: dict[int, int] = {}
        instead: set[int] = set()
        for reels in product(range(len(self.symbols)), repeat=3):
            if p not in self._patterns_matching(reels):
                continue
            over = self._short_of(reels)
            short.update(over)
            scored = self.matching_pattern(reels)
            if not over and scored != p:
                instead.add(scored)
        return dict(sorted(short.items())), tuple(sorted(instead))

    def pattern_label(self, p: int) -> str:
        """``seven seven seven``, ``bar|double_bar x3``: a pattern as a report names it."""
        entries = self.paytable[p][0]
        if entries[0] == entries[1] == entries[2]:
            return f"{entries[0]} x3"
        return " ".join(entries)

    # --- conversions ---------------------------------------------------
    def kernel_rules(self) -> "KernelRules":
        """What the jitted core reads of the rules, by name: its numbers, the cards in ``deck`` order, the
        combination table, the points, each symbol's best combination, the machines' patterns and
        completions (``sim.batches``)."""
        return KernelRules(
            players=self.players,
            symbols=len(self.symbols),
            target=self.target,
            double_up=int(self.double_up),
            double_extra_cards=self.double_extra_cards,
            double_max_cards=self.double_max_cards,
            refill_after_scoring=int(self.refill_after_scoring),
            reshuffle_discards=int(self.reshuffle_discards),
            turn_cap=self.turn_cap,
            dealt_combination=DEALT_COMBINATION[self.dealt_combination],
            cards=np.array(self.cards, dtype=np.int64),
            table=self.combination_table.copy(),
            points=np.array(self.points, dtype=np.int64),
            symbol_best=np.array(self.symbol_best, dtype=np.int64),
            machine_patterns=self.machine_patterns,
            completions=self.completions,
        )


KernelRules = kernel_struct(__name__, "KernelRules", (
    "players", "symbols", "target", "double_up", "double_extra_cards", "double_max_cards", "refill_after_scoring",
    "reshuffle_discards", "turn_cap", "dealt_combination", "cards", "table", "points", "symbol_best",
    "machine_patterns", "completions",
))


def _coerce_deck(v: Any, field: str = "deck") -> Any:
    if isinstance(v, dict):
        v = tuple(v.items())
    form = "a table of symbol = number of cards, e.g. { cherry = 10, seven = 2 }"
    if not isinstance(v, (list, tuple)) or not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in v):
        raise ConfigError(field, f"must be {form}, got {shown(v)}")
    return tuple((name, count) for name, count in v)


def _coerce_paytable(v: Any, field: str = "paytable") -> Any:
    form = "a list of { symbols = [three entries], points = n }"
    if not isinstance(v, (list, tuple)):
        raise ConfigError(field, f"must be {form}, got {shown(v)}")
    out = []
    for i, row in enumerate(v):
        if isinstance(row, dict):
            unknown = [k for k in row if k not in ("symbols", "points")]
            if unknown:
                raise ConfigError(f"paytable[{i}].{unknown[0]}", "unknown key (known: points, symbols)")
            for key in ("symbols", "points"):
                if key not in row:
                    raise ConfigError(f"paytable[{i}].{key}", "missing")
            row = (row["symbols"], row["points"])
        if not isinstance(row, (list, tuple)) or len(row) != 2:
            raise ConfigError(f"paytable[{i}]", f"must be {{ symbols = [three entries], points = n }}, got {shown(row)}")
        entries, points = row
        if not isinstance(entries, (list, tuple)) or len(entries) != 3 or not all(isinstance(x, str) for x in entries):
            raise ConfigError(f"paytable[{i}].symbols",
                              f"must be a list of three entries (symbol, 'a|b' or '*'), got {shown(entries)}")
        out.append((tuple(entries), points))
    return tuple(out)
