"""Constants shared by the reference engine, the jitted core and the policies. Seats are 0-based, card values
1..top; a hand is kept as counts by value (``hand[v]`` cards of value ``v``), so it has no order to leak."""

GAME_ID = "highcard"
TITLE = "High Card"

# The kinds of decision a seat faces (``decision_kind()`` of the game's state): which card to play.
DECISION_KINDS = ("play",)

MIN_PLAYERS, MAX_PLAYERS = 2, 5
MAX_TOP = 20  # highest card value
MAX_COPIES, MAX_HAND, MAX_ROUNDS = 8, 12, 8

# Random streams of one game: the shuffle is stream 0; seat s's policy draws from stream 1 + s.
STREAM_TABLE, STREAM_POLICY = 0, 1

POLICY_RANDOM, POLICY_GREEDY = 0, 1
TIES_NOBODY, TIES_SHARED = 0, 1

# ``pub`` (int64), the table as every seat sees it and as a policy reads it: the rules; the round (0-based), its
# leader, the seat to move, the cards played this round before it and the highest of them (0: none yet); per
# seat its points and its card this round (0: not yet); per value the cards of that value played in the game.
P_PLAYERS, P_ROUNDS, P_TOP, P_TIES, P_ROUND, P_LEADER, P_SEAT, P_TURN, P_BEST = range(9)
P_POINTS = 9
P_PLAYED = P_POINTS + MAX_PLAYERS
P_SEEN = P_PLAYED + MAX_PLAYERS
PUB_SIZE = P_SEEN + MAX_TOP + 1
