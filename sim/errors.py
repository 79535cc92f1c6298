"""Errors the command line reports as one line and exit code 2."""


class ConfigError(ValueError):
    """A config value is missing, malformed or impossible.

    ``field`` is the dotted key (``rules.players``); the message reads
    ``rules.players: must be between 2 and 5, got 7``.
    """

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}" if field else problem)


class ScriptError(ValueError):
    """A replay script is illegal or inconsistent; the message names where."""
