"""Walking a game through OpenSpiel: replaying a reference game's draws and moves, or playing at random."""

import numpy as np


def replayed(spel, chance, moves):
    """The terminal state of ``spel`` reached by taking each chance node's outcome from ``chance`` (an iterator, or
    a function of the state) and each decision from the iterator ``moves``, every one checked to be among the
    state's outcomes or legal actions."""
    state = spel.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcome = chance(state) if callable(chance) else next(chance)
            assert outcome in dict(state.chance_outcomes())
            state.apply_action(outcome)
        else:
            move = next(moves)
            assert move in state.legal_actions()
            state.apply_action(move)
    return state


def played_to(spel, seed, decisions):
    """A state after ``decisions`` random decisions (and the chance nodes up to the next decision), drawn from
    ``seed``: chance outcomes by their probabilities, moves uniformly among the legal ones."""
    rng = np.random.default_rng(seed)
    state = spel.new_initial_state()
    done = 0
    while done < decisions or state.is_chance_node():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            done += 1
    return state


def at_random_decision(game_id: str, rules, seed, decisions):
    """``(state, seat, game state)`` of ``game_id`` under ``rules`` after ``decisions`` random decisions
    (``played_to``): the state, its seat to move, and the reference engine's state under it."""
    from sim.openspiel import load

    state = played_to(load(game_id, rules), seed, decisions)
    return state, state.current_player(), state.table.state


def resamples(state, seat: int, n: int):
    """``n`` resamples of ``state`` from what ``seat`` knows, each checked to keep that and the legal actions."""
    import pyspiel

    text = state.information_state_string(seat)
    for _ in range(n):
        other = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert other.information_state_string(seat) == text
        assert other.legal_actions() == state.legal_actions()
        yield other
