"""Constants shared by the reference engine, the jitted core and the policies.

Seats are 0-based, card values 1..top. A seat's hand is kept as counts by
value (``hand[v]`` cards of value ``v``), so a hand has no order to leak.

A policy decides from ``pub``, one int64 array with the layout below
holding the table as every seat sees it, and from ``hand``, the counts by
value of its own cards (``MAX_TOP + 1`` long); nothing of the other hands.
"""

GAME_ID = "highcard"
TITLE = "High Card"

# The kinds of decision a seat faces (``decision_kind()`` of the game's state): which card to play.
DECISION_KINDS = ("play",)

MIN_PLAYERS = 2
MAX_PLAYERS = 5
MAX_TOP = 20  # highest card value
MAX_COPIES = 8
MAX_HAND = 12
MAX_ROUNDS = 8

# Random streams of one game: the shuffle is stream 0; seat s's policy draws from stream 1 + s.
STREAM_TABLE = 0
STREAM_POLICY = 1

POLICY_RANDOM = 0
POLICY_GREEDY = 1

TIES_NOBODY = 0
TIES_SHARED = 1

# Layout of ``pub`` (int64).
P_PLAYERS = 0
P_ROUNDS = 1
P_TOP = 2
P_TIES = 3
P_ROUND = 4  # 0-based
P_LEADER = 5
P_SEAT = 6  # the seat to move
P_TURN = 7  # cards played this round before this one
P_BEST = 8  # the highest card played this round (0: none yet)
P_POINTS = 9  # per seat
P_PLAYED = P_POINTS + MAX_PLAYERS  # per seat: its card this round (0: not yet)
P_SEEN = P_PLAYED + MAX_PLAYERS  # [value]: cards of that value played in the game so far
PUB_SIZE = P_SEEN + MAX_TOP + 1
