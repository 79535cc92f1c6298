"""The jitted core: batches of Las Vegan games over numpy arrays, their events and draws in the order of
``docs/engine.md``, shared with the reference engine.

``play_games`` is the one Python entry point (see ``sim.batches``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.bits import bit_nb, lowest_nb
from sim.lasvegan import enums as E
from sim.lasvegan.mechanics import (
    any_free_slot_nb,
    gather_trick_nb,
    led_suit_nb,
    legal_cards_nb,
    place_token_nb,
    play_card_nb,
    round_amounts_nb,
    settle_nb,
    start_round_nb,
)
from sim.lasvegan.expert import expert_card_default_nb, expert_placement_at_nb
from sim.lasvegan.heuristics import (
    cautious_card_nb,
    cautious_placement_nb,
    greedy_card_nb,
    greedy_placement_nb,
)
from sim.lasvegan.policies import (
    choose_card_nb,
    choose_placement_nb,
    random_card_at_nb,
    random_placement_at_nb,
)
from sim.lasvegan.records import LAYOUT
from sim.batches import BatchKernel
from sim.rng import coin_at_nb, seed_stream_at_nb, shuffle_at_nb

GAMES_PER_CHUNK = 2048


def chunk_kernel(random, greedy, cautious, expert, others):
    """The jitted chunk of games for tables of the policies flagged: ``random``, ``greedy``, ``cautious`` and
    ``expert``, called directly, and ``others``, every policy through the general dispatch. numba drops the
    branches of the policies left out before compiling, so a kernel for one policy compiles in a fraction of
    the time of the kernel for all; for the policies it plays, it plays the same games draw for draw."""

    @njit(cache=True, error_model="numpy", nogil=True)
    def play_chunk_nb(seed, first_game, start, stop, rules, policy_ids, policy_params, out):
        """Play games ``first_game + start .. first_game + stop - 1`` into output rows ``start .. stop - 1``.

        One call per chunk, the games looped inside: passing the rules' and the
        records' arrays costs reference counting per call (on arrays every thread shares), which
        per game was a large part of a game's time. Scratch is allocated once
        here and reset per game.
        """
        machines, tokens, golden, seat_starting = rules.machines, rules.tokens, rules.golden, rules.seat_starting
        players = rules.players
        rounds = rules.rounds
        finite = rules.reserve_mode == E.RESERVE_FINITE
        end_on_elim = rules.end_on_elimination != 0
        n_set_aside = rules.n_set_aside
        revealed = rules.set_aside_revealed != 0
        next_leader_pays_first = rules.payout_order == E.PAYOUT_NEXT_LEADER
        hand_size = (E.N_CARDS - n_set_aside) // players
        n_tokens = tokens.shape[0]
        n_machines = machines.shape[0]

        pub = np.zeros(E.PUB_SIZE, dtype=np.int64)
        hands = np.zeros(players, dtype=np.uint64)
        # Row STREAM_TABLE is the table's stream, row STREAM_POLICY + s seat s's.
        rngs = np.zeros((E.STREAM_POLICY + players, 4), dtype=np.uint64)
        deck = np.zeros(E.N_CARDS, dtype=np.int64)
        pile = np.zeros(n_machines, dtype=np.int64)
        placement = np.zeros(3, dtype=np.int64)
        cabbages = np.zeros(players, dtype=np.int64)
        before = np.zeros(players, dtype=np.int64)
        net = np.zeros(players, dtype=np.int64)
        hit = np.zeros(players, dtype=np.int64)
        amount = np.zeros((E.N_SLOTS, players), dtype=np.int64)

        for i in range(start, stop):
            game = first_game + i
            for stream in range(E.STREAM_POLICY + players):
                seed_stream_at_nb(rngs, stream, seed, game, stream)

            for m in range(n_machines):
                pile[m] = machines[m]
            shuffle_at_nb(rngs, E.STREAM_TABLE, pile, n_machines)

            for s in range(players):
                cabbages[s] = seat_starting[s]
            reserve = rules.starting_reserve

            for k in range(E.PUB_SIZE):
                pub[k] = 0
            pub[E.P_PLAYERS] = players
            pub[E.P_ROUNDS] = rounds
            pub[E.P_N_TOKENS] = n_tokens
            pub[E.P_N_SET_ASIDE] = n_set_aside
            pub[E.P_STARTING] = rules.starting_cabbages
            pub[E.P_END_ON_ELIMINATION] = rules.end_on_elimination
            pub[E.P_PAYOUT_ORDER] = rules.payout_order

            out.game[i] = game
            leader = np.int64(0)
            seven_no_slot = 0
            zero_on = 0
            elim_round = 0
            rounds_played = 0
            for r in range(rounds):
                rounds_played = r + 1
                for s in range(players):
                    if cabbages[s] == 0:
                        zero_on += 1
                out.round_leader[i, r] = leader

                # Table: machines, token flips, deal.
                for m in range(E.MACHINES_PER_ROUND):
                    out.machine[i, r, m] = pile[E.MACHINES_PER_ROUND * r + m]
                    pub[E.P_MACHINES + m] = pile[E.MACHINES_PER_ROUND * r + m]
                for t in range(n_tokens):
                    pub[E.P_TOKEN_VALUE + t] = tokens[t, coin_at_nb(rngs, E.STREAM_TABLE)]
                golden_value = golden[coin_at_nb(rngs, E.STREAM_TABLE)]
                out.golden_value[i, r] = golden_value
                for c in range(E.N_CARDS):
                    deck[c] = c
                shuffle_at_nb(rngs, E.STREAM_TABLE, deck, E.N_CARDS)
                for s in range(players):
                    h = np.uint64(0)
                    for j in range(s * hand_size, (s + 1) * hand_size):
                        h |= bit_nb(deck[j])
                    hands[s] = h
                set_aside = np.uint64(0)
                for j in range(players * hand_size, E.N_CARDS):
                    set_aside |= bit_nb(deck[j])

                shown = set_aside if revealed else np.uint64(0)
                start_round_nb(pub, r, leader, golden_value, shown, reserve, cabbages, hand_size)

                # Tricks: each seat's policy plays a legal card; the winner of a
                # trick places one token per 7 in it, then leads the next trick.
                for _trick in range(hand_size):
                    lead_seat = pub[E.P_TRICK_LEADER]
                    for turn in range(players):
                        # seat_to_move_nb without its division.
                        s = lead_seat + turn
                        if s >= players:
                            s -= players
                        legal = legal_cards_nb(hands[s], led_suit_nb(pub))
                        # The common policies are called directly: building the
                        # views the general dispatch takes costs a third of the time.
                        policy = policy_ids[s]
                        if random and policy == E.POLICY_RANDOM:
                            card = random_card_at_nb(legal, rngs, E.STREAM_POLICY + s)
                        elif greedy and policy == E.POLICY_GREEDY:
                            card = greedy_card_nb(pub, hands[s], legal)
                        elif cautious and policy == E.POLICY_CAUTIOUS:
                            card = cautious_card_nb(pub, hands[s], legal)
                        elif expert and policy == E.POLICY_EXPERT:
                            card = expert_card_default_nb(pub, hands[s], legal)
                        elif others:
                            card = choose_card_nb(
                                policy, policy_params[s], pub, hands[s], legal, rngs[E.STREAM_POLICY + s]
                            )
                        else:
                            card = lowest_nb(legal)  # never: the table plays none of the other policies
                        play_card_nb(pub, hands, s, card)
                    winner, sevens = gather_trick_nb(pub)
                    for _ in range(sevens):
                        # No free slot: the 7 does nothing, and no policy is asked
                        # (so none draws from its stream), as in the reference engine.
                        if not any_free_slot_nb(pub):
                            seven_no_slot += 1
                            continue
                        policy = policy_ids[winner]
                        if random and policy == E.POLICY_RANDOM:
                            random_placement_at_nb(pub, rngs, E.STREAM_POLICY + winner, placement)
                        elif greedy and policy == E.POLICY_GREEDY:
                            greedy_placement_nb(pub, hands[winner], placement)
                        elif cautious and policy == E.POLICY_CAUTIOUS:
                            cautious_placement_nb(pub, hands[winner], placement)
                        elif expert and policy == E.POLICY_EXPERT:
                            expert_placement_at_nb(pub, hands[winner], rngs, E.STREAM_POLICY + winner, placement)
                        elif others:
                            choose_placement_nb(
                                policy, policy_params[winner], pub, hands[winner],
                                rngs[E.STREAM_POLICY + winner], placement,
                            )
                        if not place_token_nb(pub, winner, placement):
                            seven_no_slot += 1
                trick_leader = pub[E.P_TRICK_LEADER]

                # Scoring.
                round_amounts_nb(pub, amount, hit)
                for s in range(players):
                    net[s] = 0
                for m in range(E.MACHINES_PER_ROUND):
                    t = pub[E.P_MACHINE_TOKEN + m]
                    out.machine_token[i, r, m] = t
                    out.machine_placer[i, r, m] = pub[E.P_MACHINE_PLACER + m]
                    if t < 0:
                        continue
                    out.machine_value[i, r, m] = pub[E.P_TOKEN_VALUE + t]
                    kind = E.KIND_COLOUR if pub[E.P_MACHINES + m] < E.POINTS_BASE else E.KIND_POINTS
                    for s in range(players):
                        out.amount[i, r, kind, s] += amount[m, s]
                        net[s] += amount[m, s]
                out.golden_side[i, r] = pub[E.P_GOLDEN_SIDE]
                out.golden_placer[i, r] = pub[E.P_GOLDEN_PLACER]
                for s in range(players):
                    out.amount[i, r, E.KIND_GOLDEN, s] = amount[E.GOLDEN_SLOT, s]
                    net[s] += amount[E.GOLDEN_SLOT, s]
                    out.tricks[i, r, s] = pub[E.P_TRICKS + s]

                # Settlement.
                for s in range(players):
                    before[s] = cabbages[s]
                first_payee = trick_leader if next_leader_pays_first else 0
                reserve, out.shortfall[i, r] = settle_nb(cabbages, net, players, reserve, finite, first_payee)
                any_zero = False
                for s in range(players):
                    out.delta[i, r, s] = cabbages[s] - before[s]
                    if cabbages[s] == 0:
                        any_zero = True

                leader = trick_leader
                if any_zero and elim_round == 0:
                    elim_round = r + 1
                if any_zero and end_on_elim:
                    break

            best = cabbages[0]
            for s in range(1, players):
                best = max(best, cabbages[s])
            n_best = 0
            for s in range(players):
                if cabbages[s] == best:
                    n_best += 1
            for s in range(players):
                out.final_cabbages[i, s] = cabbages[s]
                out.win_share[i, s] = 1.0 / n_best if cabbages[s] == best else 0.0
            out.rounds_played[i] = rounds_played
            out.elim_round[i] = elim_round
            out.reserve_end[i] = reserve
            out.seven_no_slot[i] = seven_no_slot
            out.zero_playing_on[i] = zero_on

    return play_chunk_nb


# The kernel of every policy, and one per policy the loop calls directly, for a table of that policy alone
# (a first run of the default config, every seat expert, compiles only what it plays). Module attributes,
# so that a test may run each as Python (tests/conformance).
play_chunk_nb = chunk_kernel(True, True, True, True, True)
play_random_chunk_nb = chunk_kernel(True, False, False, False, False)
play_greedy_chunk_nb = chunk_kernel(False, True, False, False, False)
play_cautious_chunk_nb = chunk_kernel(False, False, True, False, False)
play_expert_chunk_nb = chunk_kernel(False, False, False, True, False)
KERNELS_ALONE = {E.POLICY_RANDOM: "play_random_chunk_nb", E.POLICY_GREEDY: "play_greedy_chunk_nb",
                 E.POLICY_CAUTIOUS: "play_cautious_chunk_nb", E.POLICY_EXPERT: "play_expert_chunk_nb"}
KERNEL_LOOPS = ("play_chunk_nb", *KERNELS_ALONE.values())


def kernel_for(policy_ids) -> str:
    """The name of the chunk kernel that plays a table of ``policy_ids``: the kernel of a policy alone when
    every seat plays it and the kernel of every policy is not compiled in this process yet, else that one."""
    first = int(policy_ids[0])
    if first in KERNELS_ALONE and (policy_ids == first).all() and not getattr(play_chunk_nb, "signatures", None):
        return KERNELS_ALONE[first]
    return "play_chunk_nb"


def play_any_chunk(seed, first_game, start, stop, rules, policy_ids, policy_params, out):
    """Play a chunk on :func:`kernel_for`'s kernel (looked up when called, so that a test may swap it)."""
    globals()[kernel_for(policy_ids)](seed, first_game, start, stop, rules, policy_ids, policy_params, out)


play_games = BatchKernel(
    kernel=play_any_chunk,
    layout=LAYOUT,
    most=GAMES_PER_CHUNK,
)
