"""Constants shared by the reference engine, the jitted core and the policies of $ Fever.

Symbols are numbered ``0..symbols-1`` in the order of ``rules.deck``; a
card is its symbol. The machine has three reels, numbered 0..2 inside the
engines and 1..3 in traces; an empty reel (the deck ran dry while
refilling, or ``refill_after_scoring = false``) holds ``EMPTY``.

A play is one symbol and a set of reels, the set a 3-bit mask (bit r:
reel r). Hands are counts per symbol: two cards of one symbol are the
same card to the game.

The public observation ``pub`` is one int64 array with the fixed layout
below: what every seat may know (the machine, scores, combinations held,
hand sizes, counts of the cards discarded, scored and out of the game)
and the rule constants a policy reads. The seat's own hand is handed to
a policy beside it; other hands and the deck's order never are.
"""

GAME_ID = "fever"
TITLE = "$ Fever"

# The kinds of decision a seat faces (``decision_kind()`` of the game's state): whether to double, which
# cards to play on which reels, and after a double which cards to keep (one card at a time).
DECISION_KINDS = ("double", "play", "keep")

MIN_PLAYERS = 1
MAX_PLAYERS = 5
HAND = 3  # cards a player draws up to
REELS = 3
NORMAL_MAX_PLAY = 2  # cards a player may play on a turn without doubling
MAX_SYMBOLS = 16
MAX_SYMBOL_CARDS = 100  # cards of one symbol
MAX_CARDS = 250  # cards in the deck
MAX_PATTERNS = 64
MAX_POINTS = 100  # points of one combination
MAX_TARGET = 100
MAX_TURN_CAP = 10_000
MAX_DOUBLE_EXTRA = 12  # extra cards a double draws
EMPTY = -1
# The plays a hand allows, as one word (``mechanics.held_nb``): bit ``HELD_BITS * n + x`` is set
# when it holds more than ``n`` cards of symbol ``x`` and the turn allows playing ``n + 1``.
HELD_BITS = MAX_SYMBOLS

# Random streams of one game: the table (the deck's shuffles) is stream 0;
# seat s's policy draws from stream 1 + s.
STREAM_TABLE = 0
STREAM_POLICY = 1

# Policy ids, dispatched inside the kernels.
POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_MONTECARLO = 2

# Layout of the public observation ``pub`` (int64).
P_PLAYERS = 0
P_SYMBOLS = 1
P_SEAT = 2  # seat to move
P_TURN = 3  # turns taken before this one
P_TARGET = 4
P_DECK = 5  # cards left in the deck
P_RESHUFFLES = 6  # reshuffles of the discards so far
P_DOUBLE_ON = 7  # 1 when the double-up rule is played
P_DOUBLING = 8  # 1 when the seat to move doubled this turn
P_MAX_PLAY = 9  # cards the seat may play this turn
P_REFILL = 10  # 1 when the reels are refilled after a combination is scored
P_REELS = 11  # [reel]: the symbol showing, EMPTY when none
P_SCORE = P_REELS + REELS  # [seat]: points
P_COMBOS = P_SCORE + MAX_PLAYERS  # [seat]: scored combinations held
P_CHEAPEST = P_COMBOS + MAX_PLAYERS  # [seat]: points of the combination a double gives up (0: none)
P_HAND_SIZE = P_CHEAPEST + MAX_PLAYERS  # [seat]: cards in hand
P_TOTAL = P_HAND_SIZE + MAX_PLAYERS  # [symbol]: cards of the symbol in the game (rules.deck)
P_DISCARDS = P_TOTAL + MAX_SYMBOLS  # [symbol]: cards in the discards
P_SCORED = P_DISCARDS + MAX_SYMBOLS  # [symbol]: cards in combinations held by any seat
P_OUT = P_SCORED + MAX_SYMBOLS  # [symbol]: cards out of the game (given up by doubles)
P_SYMBOL_BEST = P_OUT + MAX_SYMBOLS  # [symbol]: most points of a pattern the symbol can take part in
PUB_SIZE = P_SYMBOL_BEST + MAX_SYMBOLS
