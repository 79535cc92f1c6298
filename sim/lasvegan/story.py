"""Example games told move by move, replayed from their game index and seed.

A batch run keeps one record row per game, not the moves. Because every
game is a pure function of ``(seed, game)`` and the seats' policies, any
game of a run can be played again through the reference engine to see
what happened; :func:`replay_game` does that, and :func:`tell_game` turns
the replay into rounds and tricks a designer can read. Comparing the
replay's record with the run's stored row (:func:`record_differences`)
shows the story is the very game the statistics counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, NamedTuple, Sequence

import numpy as np

from sim.lasvegan import enums as E
from sim.lasvegan.params import Rules
from sim.lasvegan.records import RECORD_FIELDS
from sim.lasvegan.rules import (
    Deal,
    JitPolicy,
    card_name,
    deal_round,
    is_colour_machine,
    parse_card,
    play_game,
    shuffled_pile,
    suit_of,
    value_of,
)
from sim.rng import Stream

_SIDES = {E.MIN_SIDE: "MIN", E.MAX_SIDE: "MAX"}


@dataclass(frozen=True)
class ReplayedGame:
    """One game of a run played again: its record, its trace and the deals it was played on."""

    game: int
    seed: int
    seats: tuple[str, ...]
    records: dict[str, np.ndarray]  # as RECORD_FIELDS, without the games axis
    trace: dict  # the replay format of ``rules.game_trace``
    deals: tuple[Deal, ...]  # one per round played


def replay_game(rules: Rules, seed: int, game: int, seats: Sequence[str]) -> ReplayedGame:
    """Play game ``game`` of ``seed`` again through the reference engine, each seat by its policy name."""
    if len(seats) != rules.players:
        raise ValueError(f"{len(seats)} seat policies for {rules.players} players")
    policies = [JitPolicy.named(name) for name in seats]
    records, trace = play_game(rules, seed, game, policies, trace=True)
    # The table stream holds the machine pile, the token flips and the deals and
    # nothing else, so drawing it again gives the deals the game was played on.
    table = Stream(seed, game, E.STREAM_TABLE)
    pile = shuffled_pile(rules, table)
    deals = tuple(deal_round(rules, table, pile, r) for r in range(len(trace["rounds"])))
    return ReplayedGame(game, seed, tuple(seats), records, trace, deals)


def record_differences(replayed: Mapping[str, np.ndarray], stored: Mapping[str, np.ndarray]) -> list[str]:
    """The record fields on which two records of one game disagree (empty: the same game)."""
    return [name for name in RECORD_FIELDS if not np.array_equal(np.asarray(replayed[name]), np.asarray(stored[name]))]


# --- the game told ------------------------------------------------------------


class Play(NamedTuple):
    seat: int
    card: str  # "B7"


class TrickStory(NamedTuple):
    number: int  # 1-based within the round
    leader: int
    plays: tuple[Play, ...]  # in play order, from the leader
    winner: int
    why: str  # "highest blue", "last off-suit zero"
    placements: tuple[str, ...]  # one sentence per token placed for a 7 in the trick


class SeatScore(NamedTuple):
    seat: int
    tricks: int
    machine_amounts: tuple[int, ...]  # the round's three machines, then golden
    net: int  # before settlement
    change: int  # after settlement
    cabbages: int  # after the round


@dataclass(frozen=True)
class RoundStory:
    number: int  # 1-based
    leader: int
    machines: tuple[str, ...]  # the three machines, then "golden machine"
    machine_tokens: tuple[str, ...]  # "−2 (token −1/−2)", golden last: "MAX, penalty 4"; or "no token"
    token_faces: tuple[int, ...]  # value each ordinary token shows this round
    golden_value: int
    hands: tuple[tuple[str, ...], ...]  # per seat, sorted by suit then value
    set_aside: tuple[str, ...]
    tricks: tuple[TrickStory, ...]
    scores: tuple[SeatScore, ...]
    reserve: int | None
    shortfall: int
    ending: str  # why the game ends here, or ""


@dataclass(frozen=True)
class GameStory:
    game: int
    seats: tuple[str, ...]
    rounds: tuple[RoundStory, ...]
    winners: tuple[int, ...]
    final_cabbages: tuple[int, ...]
    outcome: str  # one sentence


def machine_label(code: int) -> str:
    """``2`` -> ``"red colour machine"``, ``15`` -> ``"points machine 5"``."""
    if is_colour_machine(code):
        return f"{E.SUIT_NAMES[code]} colour machine"
    return f"points machine {code - E.POINTS_BASE}"


def token_label(rules: Rules, token: int, value: int) -> str:
    """An ordinary token by its two faces, as a player sees it: ``"0/−3 token showing −3"``."""
    faces = "/".join(signed(face) for face in rules.tokens[token])
    return f"{faces} token showing {signed(value)}"


def signed(value: int) -> str:
    """A token or cabbage amount with its sign: +1, 0, −3 (a true minus sign)."""
    return f"+{value}" if value > 0 else ("0" if value == 0 else f"\u2212{-value}")


def tell_game(rules: Rules, replayed: ReplayedGame) -> GameStory:
    """The replayed game as rounds, tricks and scores, in the words of the rules."""
    trace, rec = replayed.trace, replayed.records
    rounds = []
    for r, (round_trace, deal) in enumerate(zip(trace["rounds"], replayed.deals)):
        machines = tuple(int(m) for m in rec["machine"][r])
        labels = tuple(machine_label(m) for m in machines)
        tricks = _tell_tricks(rules, round_trace, labels)
        tokens = []
        for m in range(E.MACHINES_PER_ROUND):
            token = int(rec["machine_token"][r][m])
            if token < 0:
                tokens.append("no token")
            else:
                faces = "/".join(signed(face) for face in rules.tokens[token])
                tokens.append(f"{signed(int(rec['machine_value'][r][m]))} (token {faces})")
        side = int(rec["golden_side"][r])
        golden = int(rec["golden_value"][r])
        tokens.append("no token" if side == E.NO_SIDE else f"{_SIDES[side]}, penalty {golden}")
        scores = tuple(
            SeatScore(
                seat=s,
                tricks=round_trace["tricks_won"][s],
                machine_amounts=tuple(row[s] for row in round_trace["machine_amounts"]),
                net=round_trace["net"][s],
                change=int(rec["delta"][r][s]),
                cabbages=round_trace["cabbages"][s],
            )
            for s in range(rules.players)
        )
        rounds.append(
            RoundStory(
                number=r + 1,
                leader=round_trace["leader"],
                machines=labels + ("golden machine",),
                machine_tokens=tuple(tokens),
                token_faces=tuple(pair[face] for pair, face in zip(rules.tokens, deal.token_faces)),
                golden_value=golden,
                hands=tuple(tuple(card_name(c) for c in sorted(hand)) for hand in deal.hands),
                set_aside=tuple(card_name(c) for c in sorted(deal.set_aside)),
                tricks=tricks,
                scores=scores,
                reserve=round_trace["reserve"],
                shortfall=round_trace["shortfall"],
                ending=_ending(rules, round_trace, r),
            )
        )
    final = tuple(int(c) for c in rec["final_cabbages"])
    winners = tuple(trace["winners"])
    return GameStory(
        game=replayed.game,
        seats=replayed.seats,
        rounds=tuple(rounds),
        winners=winners,
        final_cabbages=final,
        outcome=_outcome(winners, final),
    )


def _tell_tricks(rules: Rules, round_trace: dict, machine_labels: Sequence[str]) -> tuple[TrickStory, ...]:
    players = len(round_trace["tricks_won"])
    placements = list(round_trace["placements"])
    stories = []
    for number, trick in enumerate(round_trace["tricks"], start=1):
        cards = [parse_card(c) for c in trick["cards"]]
        plays = tuple(Play((trick["leader"] + i) % players, name) for i, name in enumerate(trick["cards"]))
        # Placements are made one per 7, in trick order, until no slot is left
        # (then the remaining 7s do nothing), so they pair with the 7s in order.
        sevens = sum(value_of(c) == E.SEVEN for c in cards)
        taken, placements = placements[:sevens], placements[sevens:]
        stories.append(
            TrickStory(
                number=number,
                leader=trick["leader"],
                plays=plays,
                winner=trick["winner"],
                why=_why_won(cards),
                placements=tuple(_tell_placement(rules, p, machine_labels) for p in taken)
                + ("a 7 with no free slot does nothing",) * (sevens - len(taken)),
            )
        )
    return tuple(stories)


def _why_won(cards: Sequence[int]) -> str:
    led = suit_of(cards[0])
    zeros = [c for c in cards if value_of(c) == 0 and suit_of(c) != led]
    if zeros:
        return f"{card_name(zeros[-1])}: {'the last ' if len(zeros) > 1 else ''}zero of another suit"
    best = max((c for c in cards if suit_of(c) == led), key=value_of)
    return f"{card_name(best)}: highest {E.SUIT_NAMES[led]}"


def _tell_placement(rules: Rules, p: dict, machine_labels: Sequence[str]) -> str:
    if "golden" in p:
        return f"seat {p['seat']} puts the golden token (penalty {p['value']}) on {p['golden'].upper()}"
    return f"seat {p['seat']} puts the {token_label(rules, p['token'], p['value'])} on the {machine_labels[p['machine']]}"


def _ending(rules: Rules, round_trace: dict, r: int) -> str:
    if not round_trace["game_over"]:
        return ""
    broke = [s for s, c in enumerate(round_trace["cabbages"]) if c == 0]
    if broke and rules.end_on_elimination:
        who = " and ".join(f"seat {s}" for s in broke)
        verb = "has" if len(broke) == 1 else "have"
        return f"{who[0].upper()}{who[1:]} {verb} no cabbages left: the game ends after round {r + 1}."
    return f"That was the last of {rules.rounds} rounds."


def _outcome(winners: Sequence[int], final: Sequence[int]) -> str:
    most = final[winners[0]]
    if len(winners) == 1:
        return f"Seat {winners[0]} wins with {most} cabbages."
    tied = ", ".join(f"seat {s}" for s in winners[:-1]) + f" and seat {winners[-1]}"
    return f"{tied[0].upper()}{tied[1:]} share the win with {most} cabbages each."
