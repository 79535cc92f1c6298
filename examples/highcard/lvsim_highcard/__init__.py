"""High Card: a small trick game, played, swept and tuned by lvsim from its own package.

The rules
---------

A deck holds ``copies`` cards of each value from 1 to ``top``. It is
shuffled once, and each of the ``players`` (2 to 5) is dealt ``hand``
cards face down: seat 0 the first ``hand`` cards off the top, seat 1 the
next, and so on. The rest of the deck is not used.

The game lasts ``rounds`` rounds (at most ``hand``). Round ``r`` (from 0)
is led by seat ``r mod players``; from the leader, clockwise, each seat
plays one card of its hand face up. The highest card of the round scores a
point. When several seats tie for it, ``ties`` decides: ``"nobody"``
scores, or every tied seat scores (``"shared"``).

After the last round the seats with the most points win; several share the
win equally.

What a seat knows: its own hand, the cards played so far (this round's and
every earlier one's) and the points. The other hands and the undealt cards
are hidden. The only chance is the shuffle, drawn from the game's table
stream; a policy draws from its seat's own stream, so changing a policy
never changes a deal.

The package is laid out as every lvsim game: ``enums``, ``params`` (the
knobs), ``records``, ``nb`` (the jitted core), ``policies``, ``state`` (the
reference engine, in the shared state protocol), ``analysis`` (tally,
summary, text table) and ``game`` (the ``GAME`` lvsim finds under the
entry-point group ``lvsim.games``); ``conformance`` holds what the shared
suite cannot derive. The replay, the report and the rest of the suite's
hooks are derived by lvsim.
"""
