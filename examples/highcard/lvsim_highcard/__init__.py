"""High Card: a small trick game, played, swept and tuned by lvsim from its own package; its rules and layout are
in the README beside the package."""
