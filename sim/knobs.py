"""What every game's rule knobs share: reading a ``[rules]`` table strictly, and what differs from the rulebook.

A game's ``params.Rules`` is a frozen dataclass that checks its own values
(raising :class:`~sim.errors.ConfigError` naming the knob) and derives from
:class:`RuleKnobs` for the rest.
"""

from __future__ import annotations

from typing import Any, Mapping

from sim.errors import ConfigError


class RuleKnobs:
    """Mixed into a game's frozen ``Rules`` dataclass (which defines ``to_dict`` and ``players``)."""

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None, prefix: str = "rules"):
        """The rules of a ``[rules]`` table: an unknown key or a bad value names ``prefix.key``."""
        data = dict(data or {})
        known = set(cls.__dataclass_fields__)
        for key in data:
            if key not in known:
                raise ConfigError(f"{prefix}.{key}", f"unknown key (known: {', '.join(sorted(known))})")
        try:
            return cls(**data)
        except ConfigError as err:
            raise ConfigError(f"{prefix}.{err.field}", err.problem) from None

    def differences(self) -> dict[str, Any]:
        """Fields whose value differs from the rulebook game (same player count)."""
        base = type(self)(players=self.players).to_dict()
        return {k: v for k, v in self.to_dict().items() if base[k] != v}
