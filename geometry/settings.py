"""One settings object for every geometric rule; defaults from docs/rules-masterplan.md ("Reach")."""

from __future__ import annotations

import math
from dataclasses import dataclass

CLOSE_CALL_POLICIES = ("ask", "lenient", "strict")


@dataclass(frozen=True)
class GeometrySettings:
    """Distances in millimetres.

    reach_mm: a jump is legal when the gap between two cards is strictly less than this; it is
        the short edge of a Space card (63.0 mm for poker size) unless a group overrides it.
    card_short_mm / card_long_mm: the nominal card size, used where a card's own outline is not
        known yet (setup layouts, renderer, detector priors).
    overlap_tolerance: a placement overlaps a card when their intersection area exceeds this
        fraction of the smaller card's area (touching cards and detection wobble are not overlap).
    verdict_k: a measured gap within verdict_k * sigma_gap of reach is `too_close_to_call`.
    close_call_policy: what the referee does with `too_close_to_call`: "ask" a player to measure,
        "lenient" (allow) or "strict" (deny).
    """

    reach_mm: float = 63.0
    card_short_mm: float = 63.0
    card_long_mm: float = 88.0
    overlap_tolerance: float = 0.01
    verdict_k: float = 3.0
    close_call_policy: str = "ask"

    def __post_init__(self) -> None:
        for name in ("reach_mm", "card_short_mm", "card_long_mm"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number of millimetres, not {value!r}")
        if self.card_short_mm > self.card_long_mm:
            raise ValueError(
                f"card_short_mm ({self.card_short_mm}) is longer than card_long_mm ({self.card_long_mm});"
                " swap them"
            )
        if not (0.0 <= self.overlap_tolerance < 1.0):
            raise ValueError(
                f"overlap_tolerance is a fraction of a card's area in [0, 1), not {self.overlap_tolerance!r}"
            )
        if not (math.isfinite(self.verdict_k) and self.verdict_k >= 0):
            raise ValueError(f"verdict_k must be a number >= 0, not {self.verdict_k!r}")
        if self.close_call_policy not in CLOSE_CALL_POLICIES:
            raise ValueError(
                f"close_call_policy must be one of {', '.join(CLOSE_CALL_POLICIES)}, not {self.close_call_policy!r}"
            )

    @classmethod
    def for_card_size(cls, short_mm: float, long_mm: float, **overrides: object) -> GeometrySettings:
        """Settings for a measured card size: reach follows the short edge unless overridden."""
        values: dict[str, object] = {"reach_mm": short_mm, "card_short_mm": short_mm, "card_long_mm": long_mm}
        values.update(overrides)
        return cls(**values)  # type: ignore[arg-type]


DEFAULT_SETTINGS = GeometrySettings()
