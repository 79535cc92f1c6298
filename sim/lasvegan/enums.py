"""Constants shared by the reference engine, the jitted core and the policies.

Cards are ``suit * 10 + value`` (suits green, blue, red, purple = 0..3,
values 0..9); a hand is a 40-bit mask with bit ``card`` set.

Machine stickers are small ints: ``0..3`` is a colour machine of that suit,
``10 + k`` a points machine of value ``k``.

The public observation ``pub`` is one int64 array with the fixed layout
below. It holds everything every seat may know (see "Information" in the
rules) and nothing more; a policy receives ``pub`` and its own hand, never
the other hands or a hidden set-aside card.
"""

N_SUITS = 4
N_VALUES = 10
N_CARDS = 40
SUIT_LETTERS = "GBRP"
SUIT_NAMES = ("green", "blue", "red", "purple")
SEVEN = 7

GAME_ID = "lasvegan"
TITLE = "Las Vegan"

# The kinds of decision a seat faces (``decision_kind()`` of the game's state): leading a trick, following
# one, placing a token for a 7 won (an ordinary token on a machine, or the golden token while a machine is free
# too), choosing the golden token's side (when the golden machine is the only free slot).
DECISION_KINDS = ("lead", "follow", "token", "golden")

MIN_PLAYERS = 2
MAX_PLAYERS = 5
MAX_ROUNDS = 4
MACHINES_PER_ROUND = 3
MAX_TOKENS = 8
MAX_MACHINES = 64

# Machine sticker codes.
POINTS_BASE = 10  # points machine of value k is POINTS_BASE + k

# Rows of the per-round amount table: the three ordinary machines in order,
# then the golden machine.
GOLDEN_SLOT = 3
N_SLOTS = 4

# Golden machine sides.
NO_SIDE = -1
MIN_SIDE = 0
MAX_SIDE = 1

# Amount kinds, for the "what drives the swings" breakdown.
KIND_COLOUR = 0
KIND_POINTS = 1
KIND_GOLDEN = 2
N_KINDS = 3

# Random streams of one game: the table (machine pile, token flips, deals)
# is stream 0; seat s's policy draws from stream 1 + s.
STREAM_TABLE = 0
STREAM_POLICY = 1

# Policy ids, dispatched inside the kernels.
POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_CAUTIOUS = 2
POLICY_LOOKAHEAD = 3
POLICY_EPSILON = 4
POLICY_EXPERT = 5

# Reserve modes.
RESERVE_FINITE = 0
RESERVE_UNLIMITED = 1

# Order in which positive nets are paid from a finite reserve.
PAYOUT_NEXT_LEADER = 0  # clockwise from the leader of the next round
PAYOUT_SEAT_ZERO = 1  # clockwise from seat 0

# Layout of the public observation ``pub`` (int64).
P_PLAYERS = 0
P_ROUND = 1  # 0-based round index
P_ROUNDS = 2
P_ROUND_LEADER = 3
P_TRICK_LEADER = 4
P_TRICK_LEN = 5  # cards played in the current trick
P_TRICK_NUMBER = 6  # 0-based trick index within the round
P_PLAYED = 7  # mask of cards played this round, current trick included
P_N_TOKENS = 8
P_GOLDEN_VALUE = 9  # face value of the golden token this round
P_GOLDEN_SIDE = 10  # NO_SIDE, MIN_SIDE or MAX_SIDE
P_GOLDEN_PLACER = 11  # seat that placed the golden token, or -1
P_SET_ASIDE = 12  # mask of set-aside cards when revealed, else 0
P_N_SET_ASIDE = 13
P_RESERVE = 14  # -1 when unlimited
P_STARTING = 15  # starting cabbages (the rules' starting_cabbages: a seat's extra ones are not in it)
P_END_ON_ELIMINATION = 16
P_TRICK_CARDS = 17  # MAX_PLAYERS cards of the current trick, in play order
P_WON = P_TRICK_CARDS + MAX_PLAYERS  # per seat: mask of cards in won tricks
P_TRICKS = P_WON + MAX_PLAYERS  # per seat: tricks won this round
P_VOIDS = P_TRICKS + MAX_PLAYERS  # per seat: mask of suits shown void
P_CABBAGES = P_VOIDS + MAX_PLAYERS  # per seat: cabbages before this round's scoring
P_HAND_SIZE = P_CABBAGES + MAX_PLAYERS  # per seat: cards still in hand
P_MACHINES = P_HAND_SIZE + MAX_PLAYERS  # 3 machine stickers of the round
P_MACHINE_TOKEN = P_MACHINES + MACHINES_PER_ROUND  # token on each machine, or -1
P_MACHINE_PLACER = P_MACHINE_TOKEN + MACHINES_PER_ROUND  # seat that placed it, or -1
P_TOKEN_VALUE = P_MACHINE_PLACER + MACHINES_PER_ROUND  # face value of each token
P_TOKEN_PLACED = P_TOKEN_VALUE + MAX_TOKENS  # 1 if the token is placed
P_PAYOUT_ORDER = P_TOKEN_PLACED + MAX_TOKENS  # PAYOUT_NEXT_LEADER or PAYOUT_SEAT_ZERO
PUB_SIZE = P_PAYOUT_ORDER + 1
