"""Which real-photo source is train, validation or test: decided by a hash of the source's
name, before any model is measured on it, so nobody picks the easy sources for the test.

    python -m vision.train.splits      # rewrites data/real_photos/splits.json from SOURCES.tsv

Whole sources are split, never photos of one source (its table, camera and cards would be in
both). The photos earlier detectors were tuned on (the project's shared photos) are never test.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data" / "real_photos"
# Sources the hand-written detector was tuned on: never an honest test.
TUNED_ON = {"vimalloc__set-solver", "tmikonen__magic_card_detector"}
TEST_SHARE, VALIDATION_SHARE = 0.45, 0.15
MIN_TEST_SOURCES = 4


def _draw(source: str) -> float:
    return int(hashlib.sha1(source.encode()).hexdigest(), 16) % 10_000 / 10_000


def assign(sources: list[str]) -> dict[str, list[str]]:
    """Test: draw < 0.45, validation: < 0.6, else train; with fewer than MIN_TEST_SOURCES test
    sources, the lowest draws among the rest move to test."""
    out: dict[str, list[str]] = {"train": [], "validation": [], "test": []}
    free = sorted((s for s in set(sources) if s not in TUNED_ON), key=_draw)
    for s in free:
        d = _draw(s)
        out["test" if d < TEST_SHARE else "validation" if d < TEST_SHARE + VALIDATION_SHARE else "train"].append(s)
    for s in free:
        if len(out["test"]) >= MIN_TEST_SOURCES:
            break
        if s not in out["test"] and len(free) - len(out["test"]) > 1:
            for k in ("validation", "train"):
                if s in out[k]:
                    out[k].remove(s)
            out["test"].append(s)
    out["train"] += sorted(s for s in set(sources) if s in TUNED_ON)
    return {k: sorted(v) for k, v in out.items()}


def sources() -> list[str]:
    with open(DATA / "SOURCES.tsv", newline="") as f:
        return sorted({row["image"].split("/")[0] for row in csv.DictReader(f, delimiter="\t")})


def main() -> int:
    split = assign(sources())
    (DATA / "splits.json").write_text(json.dumps(split, indent=1) + "\n")
    for k, v in split.items():
        print(f"{k}: {len(v)} sources: {', '.join(v)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
