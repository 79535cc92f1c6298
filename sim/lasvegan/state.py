"""Where the shared code looks up Las Vegan's state (``sim.games.state_module``): it is the reference engine's."""

from sim.lasvegan.records import LAYOUT  # noqa: F401
from sim.lasvegan.rules import (  # noqa: F401
    PLAY_LOOP, STATE, LasveganState, placement_action, player_named, seat_player,
)
