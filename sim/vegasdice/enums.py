"""Constants shared by the reference engine, the jitted core and the policies.

Casinos are numbered 1..casinos in the game's words and in traces; inside
the kernels a casino is its 0-based index ``c`` and a die showing ``v``
belongs to casino ``v - 1``.

Dice on a casino belong to an *owner*: a seat ``0..players-1``, or the
fictitious white player ``WHITE`` of the neutral-dice variant. The owner
axis of the arrays always has ``OWNERS`` entries, whatever the player count.

The public observation ``pub`` is one int64 array with the fixed layout
below. Everything in the game is public except the order of the bill pile
and the dice not yet rolled: a policy receives ``pub``, its own roll and its
own random stream, nothing else.
"""

GAME_ID = "vegas-dice"
TITLE = "Las Vegas"

# The kinds of decision a seat faces (``decision_kind()`` of the game's state): which value of its roll
# to place.
DECISION_KINDS = ("value",)

MIN_PLAYERS = 2
MAX_PLAYERS = 5
MAX_ROUNDS = 10
MIN_CASINOS = 2
MAX_CASINOS = 12
MAX_DICE = 16  # coloured dice per player
MAX_WHITE_DICE = 8  # white dice per player
EXTRA_WHITE_DICE = 2  # rolled for the table at the start of a round at 3 players
MAX_BILL_KINDS = 32  # distinct bill values
MAX_BILLS = 512  # bills in the game
MAX_BILL_VALUE = 10_000_000
MAX_TOTAL_MONEY = 2**31 - 1  # every money record is int32
MAX_CASINO_BILLS = 16  # bills one casino can hold after filling
# Dice of one owner on one casino stay below 63 (at most 16 coloured, or
# 5 x 8 white + 2): the payout keeps numbers of dice as bits of an int64.

# Owners of dice on a casino: seats 0..4, then the white player.
WHITE = MAX_PLAYERS
OWNERS = MAX_PLAYERS + 1

# Random streams of one game: the table (bill pile shuffle, extra white
# dice, every roll) is stream 0; seat s's policy draws from stream 1 + s.
STREAM_TABLE = 0
STREAM_POLICY = 1

# Policy ids, dispatched inside the kernels.
POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_MONTECARLO = 2

# Tie-break of equal money at the end (rules.tie_break).
TIE_BREAK_BILLS = 0  # sorted bill lists compared largest first, then count
TIE_BREAK_COUNT = 1  # more banknotes wins
TIE_BREAK_NONE = 2  # every seat with the most money shares the win

# What happens when the pile cannot bring every casino to the minimum (rules.empty_pile).
EMPTY_PILE_SHORT = 0  # the casinos take what is left; the round is played
EMPTY_PILE_END = 1  # the game ends before that round

# Layout of the public observation ``pub`` (int64).
P_PLAYERS = 0
P_ROUNDS = 1
P_ROUND = 2  # 0-based round index
P_CASINOS = 3
P_FIRST_PLAYER = 4  # seat holding the first-player card this round
P_SEAT = 5  # seat to move
P_TURN = 6  # turns taken this round before this one
P_PILE = 7  # bills left in the pile
P_DICE = 8  # coloured dice per player at the start of a round
P_WHITE_DICE = 9  # white dice per player at the start of a round
P_DICE_LEFT = 10  # per seat: coloured dice not yet placed this round
P_WHITE_LEFT = P_DICE_LEFT + MAX_PLAYERS  # per seat: white dice not yet placed
P_MONEY = P_WHITE_LEFT + MAX_PLAYERS  # per seat: dollars held
P_BILLS = P_MONEY + MAX_PLAYERS  # per seat: banknotes held
P_CASINO_DICE = P_BILLS + MAX_PLAYERS  # [casino * OWNERS + owner]: dice placed
P_CASINO_NBILLS = P_CASINO_DICE + MAX_CASINOS * OWNERS  # per casino: bills on it
P_CASINO_BILLS = P_CASINO_NBILLS + MAX_CASINOS  # [casino * MAX_CASINO_BILLS + k]: values, largest first
PUB_SIZE = P_CASINO_BILLS + MAX_CASINOS * MAX_CASINO_BILLS
