"""Where the shared code looks up $ Fever's state (``sim.games.state_module``): it is the reference engine's."""

from sim.fever.records import LAYOUT  # noqa: F401
from sim.fever.rules import PLAY_LOOP, STATE, double_no, keep_actions, player_named, seat_player  # noqa: F401
