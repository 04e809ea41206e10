"""Pure geometry of the table in millimetres: card outlines, reach, placement, the reach graph.

Imports nothing of ours (docs/architecture.md, "Layers"). Everything configurable lives in GeometrySettings.
"""

from geometry.card import CardId, CardOutline
from geometry.graph import ReachGraph
from geometry.placement import Overlap, overlaps
from geometry.reach import (
    Reach,
    Verdict,
    gap_mm,
    measure_pairs,
    measure_reach,
    measure_reaches,
    reach_verdict,
    reach_zone,
)
from geometry.settings import CLOSE_CALL_POLICIES, DEFAULT_SETTINGS, GeometrySettings

__all__ = [
    "CLOSE_CALL_POLICIES",
    "DEFAULT_SETTINGS",
    "CardId",
    "CardOutline",
    "GeometrySettings",
    "Overlap",
    "Reach",
    "ReachGraph",
    "Verdict",
    "gap_mm",
    "measure_pairs",
    "measure_reach",
    "measure_reaches",
    "overlaps",
    "reach_verdict",
    "reach_zone",
]
