"""What the shared conformance suite (``tests/conformance``) asks of High Card beyond what it derives from the
package (``sim.conformance_kit.completed``, the decisions from ``state.DECISIONS``): the [rules] tables no single
knob refuses. Imported by the tests only."""

BAD_COMBINATIONS = [({"players": 5, "top": 4, "copies": 2, "hand": 2}, "hand"), ({"hand": 3, "rounds": 4}, "rounds")]
