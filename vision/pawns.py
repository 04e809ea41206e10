"""Pawns by colour, each assigned to the card it stands on.

A pawn is a compact, solid blob of a player's colour (saturated, bright enough), of a plausible
size relative to a card, standing out from what surrounds it. Printed art can share a player's
colour, so on a card whose face (or back) is known, colour the enrolled art explains under the
light on that card (a gain per channel; for pale colour, which light can make of print, also a
wash smooth across the card such as a lamp's glare, and the sensor's clipping) is not a pawn: a
pawn is what differs from the art. Each colour is one pawn: of several blobs of a colour the
likeliest is reported.

Speed: regions of colour are found on a copy of the frame shrunk so that a card is ~32 px across;
blobs are looked for in them on a copy where a card is still ~60 px across (a pawn ~15 px), with
the art compared once per card there and shapes not judged (thin figures and letters blur); then
each colour's likeliest blob is looked at again, alone, at full resolution - judged whole (a blob
of letters, a strip of a card's frame is not a pawn) and measured for where it stands, the next
likeliest if it fails. Where a pawn stands is where it touches the table: upright things lean
away from the point of the image straight below the camera (`camera_nadir_px`), so the foot is
the blob's end nearest that point - not the bottom of the figure as the picture shows it.

Player colours are configurable (`PawnColors`) and learnable from one frame (`PawnColors.learn`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.light import fit_light

# The colours (BGR) of the bundled pawns; the test-scene renderer (vision.synthetic) paints its
# pawns with them, as it prints its cards with the bundled card art (vision.card_art).
PAWN_COLORS: dict[str, tuple[int, int, int]] = {
    "red": (40, 40, 210),
    "blue": (200, 90, 30),
    "yellow": (30, 210, 235),
    "green": (60, 170, 40),
    "purple": (160, 50, 130),
    "orange": (20, 120, 245),
    "white": (235, 235, 235),
    "black": (35, 35, 35),
}

# Player colours (BGR) of the default pawns. White and black are left out: colour alone cannot
# find them.
DEFAULT_COLORS: dict[str, tuple[int, int, int]] = {
    name: bgr for name, bgr in PAWN_COLORS.items() if name not in ("white", "black")
}
MIN_SATURATION = 150
# A pawn washed out by harsh light: its least saturation, greatest blob size (x a card's area;
# a disc or a standee seen from above shows a few %) and least solidity (a disc, a figure on its
# base: compact, unlike a crescent of a paled printed ring); it must show that it stands up.
PALE_SATURATION, PALE_MAX_AREA, PALE_SOLIDITY = 100, 0.15, 0.8
# Washed out further still, on known art only (where the art tells what is print): its least
# saturation. Light cannot make a colour the art does not print there (`_printed_share`).
WASHED_SATURATION = 60
MIN_VALUE = 90
# The light on a card with known art (`_Light`): fitted to at most LIT_PIXELS of its pixels on
# the shrunk copy, robustly - first to the best LIT_START of them, then to those within LIT_TOL
# (BGR distance) of the fit, LIT_ROUNDS times. A channel at least CLIPPED bright is clipped by
# the sensor: it says only "at least this" (`fit_light`).
LIT_START, LIT_TOL, LIT_ROUNDS, LIT_PIXELS, CLIPPED = 0.6, 40.0, 4, 600, 248
# A pixel one of whose channels alone is clipped shows a hue shifted from its colour's, away from
# that channel's primary (a bright blue's blue clips first, its green catches up: it reads cyan);
# its colour's hue lies from the one seen toward the primary. OpenCV hues of B, G, R.
PRIMARY_HUES = (120, 60, 0)
MAX_HUE_DIST = 12  # OpenCV hue units (0..180)
MIN_CONTRAST = 30.0  # Lab distance between a pawn and its surroundings
# Blob size as a fraction of a card's area (a standee seen from above shows little of itself).
MIN_AREA, MAX_AREA = 0.01, 0.5
# A card is shrunk to about this many pixels across (its square root of area) to look for blobs.
SEARCH_CARD_PX = 32.0
MAX_HOLES = 0.15  # a ring (printed target, coin) encloses a hole; a pawn is solid
HIGHLIGHT_HOLES = 0.3  # at most this much of what a pawn's outline encloses a highlight can pale
MAX_ASPECT = 6.0  # longest / shortest side of a blob's rotated box
MIN_SOLIDITY = 0.6  # blob area / its convex hull's
TABLE_TOL = 60.0  # BGR distance from the table's colour of what surrounds a pawn on the table
ART_TOL = 60.0  # BGR distance under which the enrolled art explains a pixel
# Blobs are looked for on a copy shrunk while a card stays this many pixels across (a pawn ~15).
PROBE_CARD_PX = 60.0
# A region is looked at for a colour with at least this share of a pawn's least area there (on
# the search copy, where thin figures blur into the background and lose pixels).
MIN_SHARE = 0.6
# On the probe copy a thin figure blurs into what is around it: a blob there needs only this
# share of a pawn's least area and of MIN_CONTRAST (full resolution judges it whole).
PROBE_AREA, PROBE_CONTRAST = 0.35, 0.8
# On a card whose art is not known, a blob must show that it stands up (`_stands_up`): at least
# MIN_SHARP of its outline a step of SHARP_STEP (max over B, G, R) and, toward the camera, at
# least MIN_DARK of what is near it darker than DARK_SIDE x the blob and DARK_SIDE_SURFACE x the
# surface around - unless that surface is darker than DARK_SURFACE x the blob.
SHARP_STEP, MIN_SHARP = 60, 0.4
DARK_SIDE, DARK_SIDE_SURFACE, MIN_DARK, DARK_SURFACE = 0.7, 0.8, 0.08, 0.75
# A standee seen edge-on (`_edge_on_standees`): its base's radius as a share of a card's side
# (square root of its area; a 12 mm base by a 63 x 88 mm card), the line's least pixels (x the
# base radius), least saturation, length range (x radius); the base's radius range (x radius),
# least fill of its enclosing circle, and (art not known) brightness under that of the card.
BASE_RADIUS = 0.16
LINE_MIN_PX, LINE_SATURATION, LINE_LENGTH, LINE_WIDTH = 1.0, 100, (0.8, 3.5), 2.0
BASE_SIZE, BASE_FILL, BASE_TOL = (0.6, 1.7), 0.55, 25.0
MAX_LINE_CANDIDATES = 12
# ... and where its base does not stand out from the art under it: the line's least pixels (x the
# base radius) and the most of it the known art's print may explain.
BASELESS_MIN_PX, BASELESS_PRINTED = 4.0, 0.4
# ... and the most of the pixels near it where the art itself (unlit) prints its colour, those
# counted from this saturation up.
BASELESS_INK, ART_SATURATION = 0.4, 60
# Blobs of a colour looked at after a likeliest on known art that does not show it stands up.
MAX_RIVALS = 3
# On known art a blob at least this share of which the art's print of its colour covers, moved
# by up to PRINT_REACH x a card's side (the corners of a card cut by the frame are a few pixels
# out), must show that it stands up (`_printed_share`).
PRINTED_SHARE, PRINT_REACH = 0.7, 0.04


_SHRUNK_ART: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}  # (art, shrunk)
_ART_MEANS: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # id -> (art, mean BGR)
_HUE_TABLES: dict[tuple, tuple[list[str], np.ndarray]] = {}


@dataclass
class PawnColors:
    colors: dict[str, tuple[int, int, int]] = field(default_factory=lambda: dict(DEFAULT_COLORS))

    def hues(self) -> dict[str, float]:
        out = {}
        for name, bgr in self.colors.items():
            hsv = cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2HSV)[0, 0]
            out[name] = float(hsv[0])
        return out

    def hue_table(self) -> tuple[list[str], np.ndarray]:
        """(names, table): table[hue] is 1 + the index of the nearest colour within MAX_HUE_DIST,
        0 if none - every pixel goes to one colour, so one pawn is not two colours."""
        key = tuple(self.colors.items())
        cached = _HUE_TABLES.get(key)
        if cached is not None:
            return cached
        names = list(self.colors)
        hue_of = self.hues()
        hues = np.array([hue_of[n] for n in names], np.float64).reshape(1, -1)
        h = np.arange(256, dtype=np.float64).reshape(-1, 1)
        d = np.abs(h - hues)
        d = np.minimum(d, 180 - d)
        table = np.zeros(256, np.uint8)
        if names:
            best = d.argmin(axis=1)
            ok = d[np.arange(256), best] <= MAX_HUE_DIST
            table[ok] = best[ok] + 1
        table[180:] = 0
        _HUE_TABLES[key] = (names, table)
        return names, table

    def clipped_hue_tables(self) -> np.ndarray:
        """(3, 256): for a pixel whose channel c alone is clipped (B, G, R), table[c][hue] as
        `hue_table`, the colour's hue taken anywhere from the one seen toward c's primary (the
        nearest such colour), else within MAX_HUE_DIST of it."""
        key = ("clipped",) + tuple(self.colors.items())
        cached = _HUE_TABLES.get(key)
        if cached is not None:
            return cached[1]
        names = list(self.colors)
        hue_of = self.hues()
        hues = np.array([hue_of[n] for n in names], np.float64).reshape(1, -1)
        h = np.arange(256, dtype=np.float64).reshape(-1, 1)
        tables = np.zeros((3, 256), np.uint8)
        for c, primary in enumerate(PRIMARY_HUES):
            # Signed hue steps (-90..90) from the seen hue to each colour and to the primary.
            step = (hues - h + 90) % 180 - 90
            to_primary = (primary - h + 90) % 180 - 90
            on_way = (step * to_primary >= 0) & (np.abs(step) <= np.abs(to_primary))
            d = np.where(on_way, np.abs(step), np.where(np.abs(step) <= MAX_HUE_DIST, np.abs(step), np.inf))
            if names:
                best = d.argmin(axis=1)
                ok = np.isfinite(d[np.arange(256), best])
                tables[c][ok] = best[ok] + 1
            tables[c][180:] = 0
        _HUE_TABLES[key] = (names, tables)
        return tables

    @classmethod
    def learn(
        cls, image: np.ndarray, points_px: dict[str, tuple[float, float]], radius: int = 6
    ) -> PawnColors:
        """Player colours from one frame: the median colour around where each pawn stands."""
        colors = {}
        h, w = image.shape[:2]
        for name, (u, v) in points_px.items():
            x0, x1 = max(int(u) - radius, 0), min(int(u) + radius + 1, w)
            y0, y1 = max(int(v) - radius, 0), min(int(v) + radius + 1, h)
            patch = image[y0:y1, x0:x1].reshape(-1, 3)
            if len(patch) == 0:
                raise ValueError(f"the point for {name!r} is outside the image")
            colors[name] = tuple(int(c) for c in np.median(patch, axis=0))
        return cls(colors)


@dataclass(frozen=True)
class PawnSighting:
    color: str
    center_px: tuple[float, float]  # where it stands (its foot on the table), image pixels
    area_px: float
    card_index: int | None  # index into the frame's cards, None = off the cards


# (upright corners of the card in the image - corner 0 -> 1 the top edge of its art -, art image)
CardArt = tuple[np.ndarray, np.ndarray]

_OPEN = np.ones((3, 3), np.uint8)
_CLOSE = np.ones((5, 5), np.uint8)
# The same on the half-size probe copy: a thin figure is 2-3 pixels wide there.
_PROBE_OPEN = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
_PROBE_CLOSE = np.ones((3, 3), np.uint8)
_SUM_BGR = np.ones((1, 3), np.float32)
_SQUARE5 = np.ones((5, 5), np.uint8)


def find_pawns(
    image: np.ndarray,
    cards_px: Sequence[np.ndarray],
    colors: PawnColors | None = None,
    arts: Sequence[CardArt | None] | None = None,
    nadir_px: tuple[float, float] | None = None,
) -> list[PawnSighting]:
    """Pawns in `image`, at most one per colour. `cards_px` are the frame's card corners.

    Printed colour is removed from card i by `arts[i]` (its upright corners and enrolled art,
    compared only where a pawn could be). `nadir_px` is the image point straight below the
    camera (`camera_nadir_px`); without it the camera is taken to look from the image's bottom
    edge, as from a player's seat."""
    colors = colors or PawnColors()
    names, hue_table = colors.hue_table()
    if not names:
        return []
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    full_h, full_w = image.shape[:2]
    cards = [np.asarray(c, np.float32).reshape(4, 2) for c in cards_px]
    if cards:
        card_area = float(np.median([abs(cv2.contourArea(c)) for c in cards]))
    else:
        card_area = full_h * full_w / 150.0
    # Where colour is, on a shrunk copy: one pass over the frame, the rest only there.
    levels = _shrink(image, card_area)
    small, f = levels[-1], 2 ** (len(levels) - 1)
    sh, sw = small.shape[:2]
    cls = _classes(small, hue_table)
    on_cards = np.zeros((sh, sw), np.uint8)
    for c in cards:
        cv2.fillPoly(on_cards, [np.round(c * (16.0 / f)).astype(np.int32)], 255, shift=4)
    off = cv2.bitwise_not(on_cards)
    cls, table_colours = _off_table(cls, on_cards, len(names))
    min_area = MIN_AREA * card_area
    max_area = MAX_AREA * card_area
    # The light on each card with known art, measured when first needed: a gain per channel
    # for vivid colour, fitted fully (`_Light`) for the paler passes.
    gains: list[np.ndarray | None] = [None] * len(cards)
    lights: list[_Light | None] = [None] * len(cards)
    full = _Frame(
        image,
        small,
        f,
        off,
        cards,
        _card_boxes(cards),
        arts,
        gains,
        lights,
        names,
        hue_table,
        table_colours,
        min_area,
        max_area,
        nadir_px,
    )
    # Blobs are looked for on a copy where a card is still ~PROBE_CARD_PX across; each colour's
    # likeliest is then looked at again at full resolution (thin figures, letters in print).
    lv = len(levels) - 1
    while lv > 0 and np.sqrt(card_area) / 2**lv < PROBE_CARD_PX:
        lv -= 1
    hues = colors.hues()
    kept: list[_Blob] = []
    g = 2**lv
    probe = full if lv == 0 else full.scaled(levels[lv], g)
    out = _search(full, probe, cls, g, list(range(1, len(names) + 1)), hues, kept)
    seen = {s.color for s in out}
    missing = [k for k in range(1, len(names) + 1) if names[k - 1] not in seen]
    if missing:
        # Harsh light washes a pawn's colour out: colours not found are looked for again among
        # paler pixels on the cards, where only a compact blob of a pawn's size from above
        # counts (a pale text box is bigger, a printed ring's crescent less compact) that shows
        # that it stands up (against the card alone) - or, on known art, that the art does not
        # explain and that print of its colour could not be (`_blob`). Off the cards nothing
        # explains a patterned cloth's pale patches: not looked at there.
        # Regions are where the pale pixels are (vivid print was looked at already), not its
        # thin pale rims.
        # Glare clips a bright colour's strongest channel, shifting its hue (`_classes`).
        # Washed out further still, a pawn is looked for on known art alone (see `_blob`).
        pale_only = cv2.bitwise_and(on_cards, cv2.compare(cls, 0, cv2.CMP_EQ))
        clipped = colors.clipped_hue_tables()
        # A pale colour is what light could make of print (a wash pales it): there the light on
        # each card is modelled fully, in marks of what the art explains of their own, shared by
        # both paler passes (`replace` keeps them).
        lit_full = dataclasses.replace(full, lit=True, explained=None, _explained_cards={})
        lit_probe = lit_full
        if lv:
            lit_probe = dataclasses.replace(
                probe, lit=True, explained=np.zeros(probe.image.shape[:2], np.uint8), _explained_cards={}
            )
        for saturation in (PALE_SATURATION, WASHED_SATURATION):
            if not missing:
                break
            # Blobs of a colour still missing were none confirmed: they stand for no pawn (a
            # paler pass sees more of one that was too broken up to pass).
            kept[:] = [b for b in kept if b.k not in missing]
            pale_cls = cv2.bitwise_and(_classes(small, hue_table, saturation, clipped), pale_only)
            solid = cv2.morphologyEx(cv2.compare(pale_cls, 0, cv2.CMP_GT), cv2.MORPH_OPEN, _OPEN)
            pale_cls = cv2.bitwise_and(pale_cls, solid)
            pale, pale_probe = (
                dataclasses.replace(
                    fr,
                    min_saturation=saturation,
                    strict=True,
                    clipped_tables=clipped,
                    max_area=PALE_MAX_AREA * card_area / (k * k),
                )
                for fr, k in ((lit_full, 1), (lit_probe, g))
            )
            out += _search(pale, pale_probe if lv else pale, pale_cls, g, missing, hues, kept)
            seen = {s.color for s in out}
            missing = [k for k in missing if names[k - 1] not in seen]
    # A standee right below the camera shows only its edge: a thin line on its base.
    seen = {s.color for s in out}
    missing = [k for k in range(1, len(names) + 1) if names[k - 1] not in seen]
    if missing and cards:
        out += _edge_on_standees(full, missing, card_area, [p.center_px for p in out])
    return out


def _search(
    full: _Frame,
    probe: _Frame,
    cls: np.ndarray,
    g: int,
    colours: list[int],
    hues: dict[str, float],
    kept: list[_Blob],
) -> list[PawnSighting]:
    """Sightings of the `colours` (at most one each): blobs looked for in the regions the shrunk
    copy's classes `cls` show them in, on the `probe` copy (`full` shrunk `g` times), each
    colour's likeliest confirmed at full resolution. `kept` (blobs already taken) is added to."""
    f, names = full.f, full.names
    sh, sw = cls.shape[:2]
    n_cls = len(names) + 1
    wanted = np.zeros(256, np.uint8)
    wanted[colours] = 255
    # Every region of colour is looked at whole (a pawn on print of its own colour is one blob
    # with it, which the art leaves something unexplained around).
    any_colour = cv2.dilate(cv2.LUT(cls, wanted), _OPEN)
    contours, _ = cv2.findContours(any_colour, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    boxes = []
    for c in contours:
        # Pixels of the region (its outline's area plus the half of the outline pixels outside it).
        if (cv2.contourArea(c) + 0.5 * cv2.arcLength(c, True) + 1) * f * f < 0.5 * full.min_area:
            continue
        x, y, w, h = cv2.boundingRect(c)
        boxes.append([x - 1, y - 1, x + w + 1, y + h + 1])
    ph, pw = probe.image.shape[:2]
    found: list[_Blob] = []
    for x0, y0, x1, y1 in _merged(boxes, (sh, sw)):
        # Colours with too few pixels here for a pawn (leniently: shrinking blurs edges): none.
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, sw), min(y1, sh)
        counts = cv2.calcHist([cls[y0:y1, x0:x1]], [0], None, [n_cls], [0, n_cls]).ravel() * (f * f)
        present = [k for k in colours if counts[k] >= MIN_SHARE * full.min_area]
        if present:
            box = (x0 * f // g, y0 * f // g, min(x1 * f // g, pw), min(y1 * f // g, ph))
            found += [b.scaled(g) for b in _blobs_in(probe, box, present)]
    # One pawn seen as two colours (the shaded side of a yellow disc reads orange): the bigger wins.
    found.sort(key=lambda b: -b.area)
    new: list[_Blob] = []
    for b in found:
        if all(_apart(b, o, hues) for o in kept):
            kept.append(b)
            new.append(b)
    # One sighting per colour: the likeliest that full resolution confirms - on known art, the
    # likeliest that also shows that it stands up, if one of the next few does (a pawn beats
    # print of its colour the art fails to explain, however big).
    out = []
    for name in sorted({b.color for b in new}):
        first = None
        left = MAX_RIVALS
        ranked = sorted((b for b in new if b.color == name), key=lambda b: b.rank, reverse=True)
        for i, b in enumerate(ranked):
            if first is not None and (b.tier < first.tier or left == 0):
                break
            sure = b if g == 1 else _confirmed(full, b)
            if sure is None:
                continue
            if first is None:
                first = sure
            else:
                left -= 1
            # The last in line, or one not on known art, is not weighed against others.
            if sure.tier < 2 or (sure is first and i == len(ranked) - 1) or sure.standing():
                first = sure
                break
        if first is not None:
            out.append(PawnSighting(name, first.foot, first.area, first.card))
    return out


def _edge_on_standees(
    fr: _Frame, missing: list[int], card_area: float, found: list[tuple[float, float]]
) -> list[PawnSighting]:
    """Standees of the colours `missing` seen edge-on (from straight above a flat figure shows
    only its edge, a thin coloured line): such a line counts where it crosses a base - a disc of
    a standee base's size that the card's art does not explain (or, on art not known, darker
    than the card) - and the pawn stands at the disc's centre. On known art a long line the
    art does not print counts without a base (a dark base on a dark panel does not stand out),
    away from the feet of the pawns `found` (whose shading can pass for another colour). Looked
    for where the shrunk copy shows a little of the colour (leniently saturated: a thin line
    blurs) on a card."""
    small, f = fr.small, fr.f
    radius = BASE_RADIUS * np.sqrt(card_area)
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    vivid = cv2.inRange(hsv, (0, LINE_SATURATION, MIN_VALUE), (255, 255, 255))
    cls = cv2.bitwise_and(cv2.LUT(cv2.extractChannel(hsv, 0), fr.hue_table), vivid)
    cls = cv2.bitwise_and(cls, cv2.bitwise_not(fr.off))
    out = []
    for k in missing:
        m = cv2.compare(cls, k, cv2.CMP_EQ)
        if not cv2.countNonZero(m):
            continue  # none of the colour: no components to label (a whole frame's labelling)
        n, _, stats, centroids = cv2.connectedComponentsWithStats(m, connectivity=8)
        if n <= 1:
            continue
        sizes = stats[1:, cv2.CC_STAT_AREA] * (f * f)
        order = [j + 1 for j in np.argsort(-sizes) if sizes[j] <= fr.max_area][:MAX_LINE_CANDIDATES]
        best = None
        for j in order:
            at = (float(centroids[j][0] * f + (f - 1) / 2), float(centroids[j][1] * f + (f - 1) / 2))
            got = _on_base(fr, k, at, radius, found)
            if got is not None and (best is None or got[1] > best[1]):
                best = got
        if best is not None:
            foot, line, card = best
            out.append(PawnSighting(fr.names[k - 1], foot, line, card))
    return out


def _on_base(
    fr: _Frame, k: int, at: tuple[float, float], radius: float, feet: list[tuple[float, float]]
) -> tuple[tuple[float, float], float, int] | None:
    """(foot, line pixels, card index) of an edge-on standee of colour k near `at` (full
    resolution), None if there is none: a thin line of the colour, about a base across, lying
    on a disc of a base's size."""
    image = fr.image
    h, w = image.shape[:2]
    half = int(2.5 * radius) + 2
    x0, y0 = max(int(at[0]) - half, 0), max(int(at[1]) - half, 0)
    x1, y1 = min(int(at[0]) + half + 1, w), min(int(at[1]) + half + 1, h)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    roi = image[y0:y1, x0:x1]
    hsv = cv2.cvtColor(roi, cv2.COLOR_BGR2HSV)
    vivid = cv2.inRange(hsv, (0, LINE_SATURATION, MIN_VALUE), (255, 255, 255))
    line = cv2.bitwise_and(
        cv2.compare(cv2.LUT(cv2.extractChannel(hsv, 0), fr.hue_table), k, cv2.CMP_EQ), vivid
    )
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(line, connectivity=8)
    lab = None
    best = None
    # Lines whose base does not stand out: one of the art's colour (a dark base on a dark panel)
    # hides its outline. On known art such a line alone may still be the figure (see `_standee_at`).
    baseless = []
    for j in 1 + np.argsort(-stats[1:, cv2.CC_STAT_AREA])[:4]:
        area = float(stats[j, cv2.CC_STAT_AREA])
        if area < LINE_MIN_PX * radius:
            break
        own = cv2.compare(labels, int(j), cv2.CMP_EQ)
        (_, _), (rw, rh), _ = cv2.minAreaRect(cv2.findNonZero(own))
        length, width = max(rw, rh), max(min(rw, rh), 1.0)
        if not (LINE_LENGTH[0] * radius <= length <= LINE_LENGTH[1] * radius) or not (
            LINE_WIDTH <= width <= length / 3
        ):
            continue  # not a figure's edge about a base across
        if lab is None:
            lab = cv2.cvtColor(roi, cv2.COLOR_BGR2Lab).astype(np.float32)
        found = _base_under(lab, own, centroids[j], radius, fr.hue_table, k)
        if found is not None:
            best = (found, area, own)
            break
        foot = (float(centroids[j][0] + x0), float(centroids[j][1] + y0))
        if area >= BASELESS_MIN_PX * radius and all(
            np.hypot(foot[0] - x, foot[1] - y) > 2 * radius for x, y in feet
        ):  # not a seam of blended colour round another blob, or a pawn found's shading
            baseless.append(((float(centroids[j][0]), float(centroids[j][1])), area, own))
    if best is not None:
        return _standee_at(fr, k, roi, (x0, y0), best, 0.5)
    for cand in baseless:
        got = _standee_at(fr, k, roi, (x0, y0), cand, BASELESS_PRINTED, need_art=True)
        if got is not None:
            return got
    return None


def _standee_at(
    fr: _Frame,
    k: int,
    roi: np.ndarray,
    origin: tuple[int, int],
    cand: tuple[tuple[float, float], float, np.ndarray],
    printed_share: float,
    need_art: bool = False,
) -> tuple[tuple[float, float], float, int] | None:
    """(foot, line pixels, card index) of an edge-on standee of colour k, its line `cand`
    ((foot, pixels, mask) in `roi`, which starts at `origin` of the frame), on the card under
    its foot: on known art at most `printed_share` of the line may be the art's print of its
    colour; `need_art`: only on known art, which must print little of the colour near it (a
    line with no base to vouch for it)."""
    (cx, cy), area, own = cand
    x0, y0 = origin
    foot = (float(cx + x0), float(cy + y0))
    for i in _hit(fr.card_boxes, (int(foot[0]), int(foot[1]), int(foot[0]) + 1, int(foot[1]) + 1)):
        if cv2.pointPolygonTest(fr.cards[i], foot, False) < 0:
            continue
        art = fr.art(i)
        if art is None:
            return None if need_art else (foot, area, i)
        # On known art the line must be what the art does not show (not print of its colour).
        light = fr.gains[i]
        if light is None:
            light = fr.gains[i] = _gain(fr.small, fr.cards[i], fr.f, art[1])
        if light is None:
            return None
        size = (roi.shape[1], roi.shape[0])
        warped = _warp_art(art[1], np.asarray(art[0], np.float32) - (x0, y0), size)
        printed = cv2.bitwise_and(_art_match(roi, warped, light, (x0, y0), fr.f, erode=False), own)
        if cv2.countNonZero(printed) > printed_share * area:
            return None
        if need_art:
            # With no base to vouch for it, the art must print little of the colour around the
            # line at all, however it is lit (print paled by glare matches its art poorly).
            near = cv2.dilate(own, np.ones((7, 7), np.uint8))
            ink = cv2.bitwise_and(
                cv2.compare(_classes(warped, fr.hue_table, ART_SATURATION), k, cv2.CMP_EQ), near
            )
            if cv2.countNonZero(ink) > BASELESS_INK * cv2.countNonZero(near):
                return None
        return foot, area, i
    return None


def _base_under(
    lab: np.ndarray, line: np.ndarray, at: np.ndarray, radius: float, hue_table: np.ndarray, k: int
) -> tuple[float, float] | None:
    """Centre of the base a thin line (`line`, centred at `at`) lies on, in `lab`'s pixels: the
    region of one colour - that right beside the line - around it must be a disc of about a
    base's `radius`. None if it is not."""
    beside = cv2.subtract(cv2.dilate(line, _disc(3)), cv2.dilate(line, _OPEN))
    if not cv2.countNonZero(beside):
        return None
    ref = np.median(lab[beside > 0], axis=0)
    # A figure's edge shows against its base, not on more of its own colour (print's shading).
    ref_bgr = cv2.cvtColor(np.uint8([[np.round(ref)]]), cv2.COLOR_Lab2BGR)
    if _classes(ref_bgr, hue_table, LINE_SATURATION)[0, 0] == k:
        return None
    d = cv2.transform(cv2.multiply(lab - ref, lab - ref), _SUM_BGR)
    base = cv2.bitwise_or(cv2.compare(d, BASE_TOL * BASE_TOL, cv2.CMP_LT), cv2.dilate(line, _OPEN))
    base = cv2.morphologyEx(base, cv2.MORPH_OPEN, _OPEN)
    base = cv2.morphologyEx(base, cv2.MORPH_CLOSE, _CLOSE)
    contours, _ = cv2.findContours(base, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    lx, ly = float(at[0]), float(at[1])
    for c in contours:
        if cv2.pointPolygonTest(c, (lx, ly), False) < 0:
            continue
        (cx, cy), r = cv2.minEnclosingCircle(c)
        a = cv2.contourArea(c)
        if not (BASE_SIZE[0] * radius <= r <= BASE_SIZE[1] * radius):
            return None
        if a < BASE_FILL * np.pi * r * r:
            return None  # not a disc
        if np.hypot(cx - lx, cy - ly) > 0.8 * r:
            return None
        return float(cx), float(cy)
    return None


def _confirmed(fr: _Frame, b: _Blob) -> _Blob | None:
    """Blob `b` (found on a shrunk copy) looked at again at full resolution: its blob there (the
    one standing nearest), None if it is not a pawn there. Looked at around `b` first; a blob
    running on past that is looked at in the whole region `b` was found in (cut short, a strip of
    print could pass for a pawn)."""
    h, w = fr.image.shape[:2]
    x0, y0, x1, y1 = b.box
    reach = max(x1 - x0, y1 - y0)
    # Room for its ring (_contrast) and for what the shrunk copy lost at its edges.
    bw, bh = (x1 - x0) // 2 + 4, (y1 - y0) // 2 + 4
    box = (max(x0 - bw, 0), max(y0 - bh, 0), min(x1 + bw, w), min(y1 + bh, h))
    for look in (box, b.region):
        near = [
            c
            for c in _blobs_in(fr, look, [b.k])
            if np.hypot(c.foot[0] - b.foot[0], c.foot[1] - b.foot[1]) <= reach
        ]
        best = min(near, key=lambda c: np.hypot(c.foot[0] - b.foot[0], c.foot[1] - b.foot[1]), default=None)
        if best is None or look is b.region:
            return best
        cx0, cy0, cx1, cy1 = best.box
        cut = (cx0 <= look[0] < x0) or (cy0 <= look[1] < y0) or (cx1 >= look[2] > x1) or (cy1 >= look[3] > y1)
        if not cut:
            return best
    return None


def _printed_share(fr: _Frame, i: int, k: int, blob: tuple[int, int, int, int], own: np.ndarray) -> float:
    """Whether card i's known art's print of colour k, a little out of place (moved by up to
    PRINT_REACH x a card's side), could be a blob (`own`, in the box `blob` = x y w h of the full
    frame): the greatest share of the blob's pixels it covers so moved (thin printed lines near
    or under a pawn cover little of it). The art's own colours: print is saturated there."""
    art = fr.art(i)
    if art is None:
        return 0.0
    x, y, w, h = blob
    r = max(2, int(round(PRINT_REACH * np.sqrt(fr.min_area / MIN_AREA))))
    size = (w + 2 * r, h + 2 * r)
    warped = _warp_art(art[1], np.asarray(art[0], np.float32) - (x - r, y - r), size, nearest=True)
    inside = np.zeros((size[1], size[0]), np.uint8)
    cv2.fillPoly(inside, [np.round((fr.cards[i] - (x - r, y - r)) * 16).astype(np.int32)], 1, shift=4)
    saturation = min(fr.min_saturation, PALE_SATURATION)
    printed = cv2.compare(_classes(warped, fr.hue_table, saturation), k, cv2.CMP_EQ)
    printed = cv2.bitwise_and(printed, printed, mask=inside)
    if not cv2.countNonZero(printed):
        return 0.0
    # Pixels of the blob the print covers, for every move (dx, dy) within r.
    covered = cv2.matchTemplate((printed > 0).astype(np.float32), own.astype(np.float32), cv2.TM_CCORR)
    return float(covered.max()) / max(int(np.count_nonzero(own)), 1)


def _art_of(arts: Sequence[CardArt | None] | None, i: int) -> CardArt | None:
    return arts[i] if arts is not None and i < len(arts) else None


def _gain(small: np.ndarray, card: np.ndarray, f: int, art: np.ndarray) -> np.ndarray | None:
    """Per-channel gain (frame / art) of the light on a card: its mean colour on the shrunk
    frame against its art's, both a little inside the edge."""
    got = _inside(small, np.asarray(card, np.float32) / f)
    if got is None:
        return None
    (x0, y0, x1, y1), inside = got
    if not cv2.countNonZero(inside):
        return None
    seen = np.array(cv2.mean(small[y0:y1, x0:x1], inside)[:3])
    return (seen + 1) / (_art_mean(art) + 1)


def _inside(small: np.ndarray, q: np.ndarray) -> tuple[tuple[int, int, int, int], np.ndarray] | None:
    """The box (x0, y0, x1, y1) on `small` round the card `q` (corners on `small`) and, in it, the
    card's pixels a little inside its edge (uint8 mask); None if the card is out of view."""
    sh, sw = small.shape[:2]
    box = _box(q, sw, sh)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(inside, [np.round((q - (x0, y0)) * 16).astype(np.int32)], 255, shift=4)
    return box, cv2.erode(inside, _OPEN)


def _art_mean(art: np.ndarray) -> np.ndarray:
    """Mean colour of an art image, 3 % in from its edges (cached)."""
    cached = _ART_MEANS.get(id(art))
    if cached is None or cached[0] is not art:
        if len(_ART_MEANS) > 256:
            _ART_MEANS.clear()
        h, w = art.shape[:2]
        my, mx = int(0.03 * h), int(0.03 * w)
        cached = (art, np.array(cv2.mean(art[my : h - my, mx : w - mx])[:3]))
        _ART_MEANS[id(art)] = cached
    return cached[1]


@dataclass(frozen=True)
class _Light:
    """The light on a card: per channel, its art times a gain plus a wash smooth across the card
    (quadratic in position: uneven light, a lamp's glare), clipped as the sensor clips. Positions
    are in pixels of the frame's shrunk copy, from `centre`, in units of `scale`."""

    coef: np.ndarray  # (3, 7) per channel B G R: the gain, then the wash's 1, u, v, uu, vv, uv
    centre: tuple[float, float]
    scale: float

    def axes(
        self, origin: tuple[float, float], shape: tuple[int, int], f: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """(u, v): positions along x of the columns, along y of the rows, of an image shrunk `f`
        times to the shrunk copy, of `shape` (h, w) from `origin` (x, y) on."""
        h, w = shape
        u = ((origin[0] + np.arange(w, dtype=np.float32) + 0.5) / f - 0.5 - self.centre[0]) / self.scale
        v = ((origin[1] + np.arange(h, dtype=np.float32) + 0.5) / f - 0.5 - self.centre[1]) / self.scale
        return u, v

    def predict(self, warped: np.ndarray, origin: tuple[float, float], f: float) -> np.ndarray:
        """What the art `warped` (onto an image shrunk `f` times to the shrunk copy, its pixel 0 0
        at `origin`) looks like under this light (float32 BGR)."""
        u, v = self.axes(origin, warped.shape[:2], f)
        c = self.coef.astype(np.float32)
        # The wash is a sum of a part along x, a part along y and one of both (u v).
        along_u = c[:, 1] + u[:, None] * c[:, 2] + (u * u)[:, None] * c[:, 4]  # (w, 3)
        along_v = v[:, None] * c[:, 3] + (v * v)[:, None] * c[:, 5]  # (h, 3)
        out = cv2.multiply(warped.astype(np.float32), tuple(float(g) for g in c[:, 0]) + (0.0,))
        out += along_u[None]
        out += along_v[:, None]
        out += np.outer(v, u)[..., None] * c[:, 6]
        return np.clip(out, 0.0, 255.0)

    @classmethod
    def fit(cls, small: np.ndarray, card: np.ndarray, upright: np.ndarray, art: np.ndarray) -> _Light | None:
        """The light on a card (corners `card`, art's upright corners `upright`, both on the shrunk
        copy `small`) from its pixels a little inside the edge (at most LIT_PIXELS of them,
        evenly spread); a pawn on it is left out of the fit, a glare's clipped levels say only
        that the light is at least that bright there. None if too little of it is seen."""
        q = np.asarray(card, np.float32)
        got = _inside(small, q)
        if got is None:
            return None
        (x0, y0, x1, y1), inside = got
        seen = small[y0:y1, x0:x1]
        at = np.flatnonzero(inside)
        n_terms = 7
        if len(at) < 4 * n_terms:
            return None
        at = at[:: -(-len(at) // LIT_PIXELS)]
        warped = _warp_art(art, np.asarray(upright, np.float32) - (x0, y0), (x1 - x0, y1 - y0))
        centre = (float(q[:, 0].mean()), float(q[:, 1].mean()))
        scale = max(float(np.sqrt(abs(cv2.contourArea(q)))), 1.0)
        u, v = cls(np.zeros((3, n_terms)), centre, scale).axes((x0, y0), seen.shape[:2], 1.0)
        u, v = u[at % (x1 - x0)].astype(np.float64), v[at // (x1 - x0)].astype(np.float64)
        s = seen.reshape(-1, 3)[at].astype(np.float64)
        art_at = warped.reshape(-1, 3)[at]
        wash = np.stack([np.ones_like(u), u, v, u * u, v * v, u * v], 1)
        fit = fit_light(s, art_at, wash, LIT_TOL, LIT_START, LIT_ROUNDS, clipped=CLIPPED)
        if fit is None:
            return None
        coef = fit[0]
        return cls(coef, centre, scale)


def _classes(
    image: np.ndarray,
    hue_table: np.ndarray,
    min_saturation: int = MIN_SATURATION,
    clipped_tables: np.ndarray | None = None,
) -> np.ndarray:
    """Per pixel: 1 + the index of its player colour, 0 for none (too grey or too dark). With
    `clipped_tables` (`PawnColors.clipped_hue_tables`), a pixel one of whose channels alone is
    clipped is looked up in that channel's table."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    vivid = cv2.inRange(hsv, (0, min_saturation, MIN_VALUE), (255, 255, 255))
    hue = cv2.extractChannel(hsv, 0)
    out = cv2.LUT(hue, hue_table)
    if clipped_tables is not None:
        clipped = [cv2.compare(ch, CLIPPED, cv2.CMP_GE) for ch in cv2.split(image)]
        for c in range(3):
            alone = cv2.bitwise_and(
                clipped[c], cv2.bitwise_not(cv2.bitwise_or(*(clipped[:c] + clipped[c + 1 :])))
            )
            if cv2.countNonZero(alone):
                cv2.copyTo(cv2.LUT(hue, clipped_tables[c]), alone, out)
    return cv2.bitwise_and(out, vivid)


def _off_table(cls: np.ndarray, on_cards: np.ndarray, n: int) -> tuple[np.ndarray, set[int]]:
    """(`cls` with the table's own colours cleared off the cards, those colours): a colour the
    table itself is made of (red-brown wood) is looked for on the cards only."""
    off = cv2.bitwise_not(on_cards)
    counts = cv2.calcHist([cls], [0], off, [n + 1], [0, n + 1]).ravel()
    table_colours = {k for k in range(1, n + 1) if counts[k] > 0.03 * max(cv2.countNonZero(off), 1)}
    if table_colours:
        # A card's own edge pixels blur with the table's: not a place to look for the table's colour.
        cls = _drop_off_cards(cls, cv2.erode(on_cards, _OPEN), table_colours)
    return cls, table_colours


def _drop_off_cards(cls: np.ndarray, on_cards: np.ndarray, colours: set[int]) -> np.ndarray:
    """`cls` with `colours` cleared where `on_cards` is 0."""
    keep = np.arange(256, dtype=np.uint8)
    keep[list(colours)] = 0
    out = cv2.LUT(cls, keep)
    cv2.copyTo(cls, on_cards, out)
    return out


@dataclass
class _Frame:
    """What every region of one frame is looked at with."""

    image: np.ndarray
    small: np.ndarray
    f: int
    off: np.ndarray  # shrunk: 255 off the cards
    cards: list[np.ndarray]
    card_boxes: np.ndarray  # (n, 4) x0 y0 x1 y1 of each card, full resolution, inclusive
    arts: Sequence[CardArt | None] | None
    # Per card: frame / art, per channel (the light on it), over the whole card (a pawn on it
    # must not bias it), and the light fitted fully (`_Light`, a pawn on it left out) for the
    # paler passes (`lit`); shared by the frame's copies, filled in when first needed.
    gains: list[np.ndarray | None]
    lights: list[_Light | None]
    names: list[str]
    hue_table: np.ndarray
    table_colours: set[int]
    min_area: float
    max_area: float
    nadir_px: tuple[float, float] | None
    probe: bool = False  # a shrunk copy (a pixel of misalignment is averaged away there)
    min_saturation: int = MIN_SATURATION  # of a pawn's pixels
    strict: bool = False  # a paler pass: blobs judged whole, and must stand up unless on known art
    clipped_tables: np.ndarray | None = None  # hues of clipped pixels (`_classes`), in paler passes
    lit: bool = False  # the light on the cards modelled fully (`_Light`), in paler passes
    explained: np.ndarray | None = None  # 255 where the known art explains the colour
    _explained_cards: dict[int, bool] = field(default_factory=dict)
    _on_card: np.ndarray | None = None

    def art(self, i: int) -> CardArt | None:
        return _art_of(self.arts, i)

    def on_card(self, box: tuple[int, int, int, int]) -> np.ndarray:
        """255 on the cards, within `box` (on a shrunk copy drawn for the whole frame, once)."""
        x0, y0, x1, y1 = box
        if not self.probe:
            out = np.zeros((y1 - y0, x1 - x0), np.uint8)
            for i in _hit(self.card_boxes, box):
                q = self.cards[i] - (x0, y0)
                cv2.fillPoly(out, [np.round(q * 16).astype(np.int32)], 255, shift=4)
            return out
        if self._on_card is None:
            self._on_card = np.zeros(self.image.shape[:2], np.uint8)
            for c in self.cards:
                cv2.fillPoly(self._on_card, [np.round(c * 16).astype(np.int32)], 255, shift=4)
        return self._on_card[y0:y1, x0:x1]

    def light(self, i: int) -> _Light | None:
        """The light on card i (known art), fitted on the shrunk copy when first needed."""
        art = self.art(i)
        if self.lights[i] is None and art is not None:
            self.lights[i] = _Light.fit(
                self.small, self.cards[i] / self.f, np.asarray(art[0]) / self.f, art[1]
            )
        return self.lights[i]

    def explain(self, i: int, box: tuple[int, int, int, int]) -> bool:
        """Marks in `explained` the pixels of card i that its known art explains - on a shrunk
        copy the whole card, once; else only within `box`. Whether it could."""
        done = self._explained_cards.get(i)
        if done is not None:
            return done
        art = self.art(i)
        h, w = self.image.shape[:2]
        x0, y0, x1, y1 = (int(v) for v in self.card_boxes[i])
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1 + 1, w), min(y1 + 1, h)
        if not self.probe:  # only `box`, marked in an `explained` of its size
            x0, y0, x1, y1 = max(x0, box[0]), max(y0, box[1]), min(x1, box[2]), min(y1, box[3])
        ok = art is not None and x1 > x0 and y1 > y0
        if ok:
            inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
            q = self.cards[i] - np.array([x0, y0], np.float32)
            cv2.fillPoly(inside, [np.round(q * 16).astype(np.int32)], 255, shift=4)
            corners = np.asarray(art[0], np.float32) - (x0, y0)
            roi = self.image[y0:y1, x0:x1]
            size = (x1 - x0, y1 - y0)
            warped = _warp_art(art[1], corners, size, nearest=self.probe)
            if self.lit:
                light: np.ndarray | _Light | None = self.light(i)
            else:
                if self.gains[i] is None:
                    if self.probe:  # the whole card is here
                        core = cv2.erode(inside, _OPEN)
                        if cv2.countNonZero(core):
                            seen, printed = cv2.mean(roi, core)[:3], cv2.mean(warped, core)[:3]
                            self.gains[i] = (np.array(seen) + 1) / (np.array(printed) + 1)
                    else:
                        self.gains[i] = _gain(self.small, self.cards[i], self.f, art[1])
                light = self.gains[i]
            ok = light is not None
        if ok:
            # A pixel of misalignment is not a pawn; on a shrunk copy it is averaged away already.
            match = _art_match(roi, warped, light, (x0, y0), self.f, erode=not self.probe)
            ox, oy = (0, 0) if self.probe else box[:2]
            if self.explained is None:
                size = (h, w) if self.probe else (box[3] - box[1], box[2] - box[0])
                self.explained = np.zeros(size, np.uint8)
            part = self.explained[y0 - oy : y1 - oy, x0 - ox : x1 - ox]
            cv2.bitwise_or(part, cv2.bitwise_and(match, inside), dst=part)
        if self.probe:
            self._explained_cards[i] = ok
        return ok

    def scaled(self, image: np.ndarray, g: int) -> _Frame:
        """This frame as seen on `image`, the frame shrunk `g` times."""
        cards = [c / g for c in self.cards]
        arts = None
        if self.arts is not None:
            arts = [None if a is None else (np.asarray(a[0], np.float32) / g, a[1]) for a in self.arts]
        nadir = None if self.nadir_px is None else (self.nadir_px[0] / g, self.nadir_px[1] / g)
        return _Frame(
            image,
            self.small,
            self.f // g,
            self.off,
            cards,
            _card_boxes(cards),
            arts,
            self.gains,
            self.lights,
            self.names,
            self.hue_table,
            self.table_colours,
            self.min_area / g / g,
            self.max_area / g / g,
            nadir,
            probe=True,
            min_saturation=self.min_saturation,
            strict=self.strict,
            clipped_tables=self.clipped_tables,
            lit=self.lit,
        )


def _merged(boxes: list[list[int]], shape: tuple[int, int]) -> list[list[int]]:
    """Overlapping boxes (x0, y0, x1, y1) merged, so no region is looked at twice: drawn on a
    mask of `shape`, the bounding boxes of what they cover, until none overlap."""
    while True:
        mask = np.zeros(shape, np.uint8)
        for x0, y0, x1, y1 in boxes:
            cv2.rectangle(mask, (x0, y0), (x1 - 1, y1 - 1), 255, cv2.FILLED)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        merged = []
        for c in contours:
            x, y, w, h = cv2.boundingRect(c)
            merged.append([x, y, x + w, y + h])
        if len(merged) == len(boxes):
            return merged
        boxes = merged


def _blobs_in(fr: _Frame, box: tuple[int, int, int, int], present: list[int]) -> list[_Blob]:
    """Pawn-like blobs of the colours `present` in the region `box` of `fr.image`. On a shrunk
    copy (`fr.probe`), where thin figures and letters blur, shapes are not judged."""
    image, names, min_area, probe = fr.image, fr.names, fr.min_area, fr.probe
    x0, y0, x1, y1 = box
    roi = image[y0:y1, x0:x1]
    rh, rw = roi.shape[:2]
    cls = _classes(roi, fr.hue_table, fr.min_saturation, fr.clipped_tables)
    n_cls = len(names) + 1
    counts = cv2.calcHist([cls], [0], None, [n_cls], [0, n_cls]).ravel()
    # Fewer pixels of a colour than a pawn's least size (the closing below adds a few): none.
    present = [k for k in present if counts[k] >= 0.3 * min_area]
    if not present:
        return []
    # Which pixels the known art explains (cards with colour here).
    explained = None
    if not probe:
        fr.explained = None  # marked afresh for this region
    cb = fr.card_boxes
    for i in _hit(cb, box):
        if fr.art(i) is None:
            continue
        bx0, by0 = max(int(cb[i, 0]) - x0, 0), max(int(cb[i, 1]) - y0, 0)
        bx1, by1 = min(int(cb[i, 2]) + 1 - x0, rw), min(int(cb[i, 3]) + 1 - y0, rh)
        if cv2.countNonZero(cls[by0:by1, bx0:bx1]) and fr.explain(i, box):
            explained = fr.explained[y0:y1, x0:x1] if probe else fr.explained
    if fr.table_colours:
        cls = _drop_off_cards(cls, fr.on_card(box), fr.table_colours)
    # A pawn on print of its own colour (a yellow disc on a yellow target) is still what the art
    # does not explain around it: the blob is kept where it is near that unexplained core.
    near = _disc(max(3, int(round(0.04 * np.sqrt(min_area / MIN_AREA)))))
    unexplained = None if explained is None else cv2.bitwise_not(explained)
    out = []
    k_open, k_close = (_PROBE_OPEN, _PROBE_CLOSE) if probe else (_OPEN, _CLOSE)
    # Least pixels a blob (and what the art leaves of it) may have: half a pawn's on known art,
    # less on the probe copy.
    least = (PROBE_AREA if probe else 0.5) * min_area
    for k in present:
        m = cv2.compare(cls, k, cv2.CMP_EQ)
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, k_open)
        m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, k_close)
        core = m
        if unexplained is not None:
            core = cv2.morphologyEx(cv2.bitwise_and(m, unexplained), cv2.MORPH_OPEN, k_open)
            if cv2.countNonZero(core) < least:
                continue  # all print (no blob below could keep enough of it)
            m = cv2.bitwise_and(m, cv2.dilate(core, near))
        n, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(m, 8, cv2.CV_32S, cv2.CCL_GRANA)
        sizes = stats[:, cv2.CC_STAT_AREA]
        # Of no pawn's size even on known art (_judge says the same, later): not looked at.
        for j in np.flatnonzero((sizes >= least) & (sizes <= fr.max_area)).tolist():
            if j == 0:
                continue  # the background
            x, y, w, h, area = stats[j].tolist()
            own = labels[y : y + h, x : x + w] == j
            core_area = int(np.count_nonzero(core[y : y + h, x : x + w][own]))
            if core_area < least:
                continue  # printed: the art explains nearly all of it
            # The art explains most of it: print, misaligned - or a pawn on print of its own
            # colour (a yellow figure across a yellow ring) that shows that it stands up.
            mostly_print = core_area < 0.25 * area
            if mostly_print and probe:
                continue
            blobs = _blob(fr, roi, box, m, own, k, x, y, w, h, area, probe)
            out += [b for b in blobs if b.standing()] if mostly_print else blobs
    return out


def _stands_up(
    roi: np.ndarray,
    own: np.ndarray,
    x: int,
    y: int,
    w: int,
    h: int,
    away: tuple[float, float],
    card: np.ndarray | None = None,
) -> bool:
    """Whether a blob shows that it stands up rather than lies printed on a card: its outline
    is a sharp edge all round (a colour region of painted art fades out into its neighbours),
    and on its side toward the camera there is something darker than both the blob and the
    surface around - the pawn's own side or base, or its contact shadow. Flat ink on paper has
    the paper all round it, no darker than elsewhere. `away` is the unit image direction in
    which upright things lean (away from the nadir). On a dark surface no shadow shows: a blob
    much brighter than its surroundings passes on its outline alone. Given `card` (255 on the
    cards, as `roi`), only the cards count as around it: the table beyond a card's edge is not
    the side of a pawn standing on the card nor the card it stands on (print at a card's edge
    has it beside it)."""
    side = np.sqrt(float(np.count_nonzero(own)))
    r = max(2, int(round(0.3 * side)))
    rh, rw = roi.shape[:2]
    wx0, wy0, wx1, wy1 = max(x - 2 * r, 0), max(y - 2 * r, 0), min(x + w + 2 * r, rw), min(y + h + 2 * r, rh)
    blob = np.zeros((wy1 - wy0, wx1 - wx0), np.uint8)
    blob[y - wy0 : y - wy0 + h, x - wx0 : x - wx0 + w][own] = 255
    patch = roi[wy0:wy1, wx0:wx1]
    # The outline: the colour changes sharply across it (5x5 morphological gradient).
    grad = cv2.morphologyEx(patch, cv2.MORPH_GRADIENT, _SQUARE5).max(axis=2)
    edge = cv2.subtract(blob, cv2.erode(blob, _OPEN))
    # (A blob with no outline left, all of it cut off by the window, has no sharp one either.)
    sharp = grad[edge > 0] > SHARP_STEP
    if not sharp.size or np.mean(sharp) < MIN_SHARP:
        return False
    # Brightness as max(B, G, R): a pawn's side is its colour, darker.
    v = cv2.max(cv2.max(patch[..., 0], patch[..., 1]), patch[..., 2])
    core = cv2.erode(blob, _OPEN)
    body = float(np.median(v[(core if cv2.countNonZero(core) else blob) > 0]))
    near = cv2.dilate(blob, _disc(r))
    outer = cv2.subtract(cv2.dilate(blob, _disc(2 * r)), near)
    if card is not None:
        on = card[wy0:wy1, wx0:wx1]
        near, outer = cv2.bitwise_and(near, on), cv2.bitwise_and(outer, on)
    if not cv2.countNonZero(outer):
        return True
    surface = float(np.median(v[outer > 0]))
    if surface < DARK_SURFACE * body:
        return True
    ys, xs = np.nonzero(near)
    c = np.array(np.nonzero(blob)[::-1], np.float64).mean(axis=1)
    toward = (xs - c[0]) * away[0] + (ys - c[1]) * away[1] < 0
    dark = v[ys[toward], xs[toward]] < min(DARK_SIDE * body, DARK_SIDE_SURFACE * surface)
    return bool(toward.any()) and float(np.mean(dark)) >= MIN_DARK


def _away(at: tuple[float, float], nadir_px: tuple[float, float] | None) -> tuple[float, float]:
    """Unit image direction in which upright things at `at` lean (away from the nadir)."""
    if nadir_px is None:
        return (0.0, -1.0)
    dx, dy = at[0] - nadir_px[0], at[1] - nadir_px[1]
    n = float(np.hypot(dx, dy))
    return (0.0, -1.0) if n < 1e-6 else (dx / n, dy / n)


def _blob(fr: _Frame, roi, box, m, own, k, x, y, w, h, area, probe) -> list[_Blob]:
    """[the blob as a pawn sighting] if it can be a pawn, else []."""
    x0, y0 = box[0], box[1]
    cards, image = fr.cards, fr.image
    pts = np.column_stack(np.nonzero(own)[::-1]).astype(np.float64) + (x + x0, y + y0)
    foot = _foot(pts, fr.nadir_px)
    on = None
    fx, fy = int(np.floor(foot[0])), int(np.floor(foot[1]))
    for i in _hit(fr.card_boxes, (fx, fy, fx + 2, fy + 2)):
        if cv2.pointPolygonTest(cards[i], foot, False) >= 0:
            on = i
            break
    known = on is not None and fr.art(on) is not None
    at_edge = x + x0 <= 0 or y + y0 <= 0 or x + x0 + w >= image.shape[1] or y + y0 + h >= image.shape[0]
    if at_edge and not known:
        return []  # cut by the frame's edge: where it stands is not seen (or it is print)
    # On known art everything else is explained: a figure seen edge-on (thin) still counts.
    # A pale blob is judged whole even on known art: what the art leaves of paled print (a
    # target's inner ring, cut open) is less compact than a pawn.
    lenient = (known and not fr.strict) or probe
    # A glare highlight on a pawn pales its colour (its hue kept) and brightens it: not a hole
    # in it. (Print inside a printed ring, vivid or paled by blur with darker ink, still is.)
    paled = None
    if not probe and fr.min_saturation > PALE_SATURATION:

        def paled() -> np.ndarray:
            part = roi[y : y + h, x : x + w]
            bright = part.max(axis=2)
            return (
                (_classes(part, fr.hue_table, PALE_SATURATION) == k)
                & (_classes(part, fr.hue_table, fr.min_saturation) == 0)
                & (bright >= np.median(bright[own]))
            )

    info = _judge(
        roi, m, own, x, y, w, h, area, fr.min_area, fr.max_area, lenient=lenient, probe=probe, paled=paled
    )
    if info is None:
        return []
    solidity, ring_bgr = info
    if fr.strict and (on is None or (not probe and solidity < PALE_SOLIDITY)):
        return []  # a pale pass looks on the cards only, for compact blobs (see find_pawns)
    if fr.min_saturation < PALE_SATURATION and not known:
        return []  # washed out this far, only known art tells a pawn from print
    if on is None and not _like_table(fr, foot, ring_bgr):
        return []  # off the known cards yet not on the table: print of an unseen card
    stands: bool | Callable[[], bool] = False
    if not probe and on is not None:
        # On known art it only ranks blobs of one colour, when asked (print the art fails to
        # explain, at a card's edge the table beside it: only the cards count as around it there).
        away, cards_around = _away(foot, fr.nadir_px), fr.strict or known

        def upright() -> bool:
            card = fr.on_card(box) if cards_around else None
            return _stands_up(roi, own, x, y, w, h, away, card)

        stands = upright
        # Light (a gain, glare's white wash, a sensor's clipping) pales a colour and shifts it
        # a little, but cannot make a colour where the art prints none: on known art a blob
        # that print of its colour could be (a few pixels out: a cut card's corners are less
        # sure) must show that it stands up; one no such print could be is no print, however
        # pale (its side and shadow may be clipped white by glare).
        must_stand = not known or _printed_share(fr, on, k, (x + x0, y + y0, w, h), own) >= PRINTED_SHARE
        if must_stand:
            if not upright():
                return []  # colour alone cannot tell it from print
            stands = True
    # How much to trust it: on a card whose art is known (everything else there is explained)
    # most, then on the bare table, least on unknown art.
    tier = 2 if known else (1 if on is None else 0)
    bx, by = x + x0, y + y0
    return [
        _Blob(
            fr.names[k - 1],
            int(k),
            foot,
            float(area),
            on,
            tier,
            solidity,
            (bx, by, bx + w, by + h),
            box,
            stands,
        )
    ]


@dataclass
class _Blob:
    color: str
    k: int  # 1 + index into the colours
    foot: tuple[float, float]
    area: float
    card: int | None
    tier: int
    solidity: float
    box: tuple[int, int, int, int]  # x0 y0 x1 y1 of its pixels
    region: tuple[int, int, int, int] = (0, 0, 0, 0)  # of the region it was found in
    # Whether it shows that it stands up (`_stands_up`, at full resolution; a callable: not
    # looked at yet).
    stands: bool | Callable[[], bool] = False

    def standing(self) -> bool:
        if callable(self.stands):
            self.stands = self.stands()
        return self.stands

    def scaled(self, g: int) -> _Blob:
        """This blob, found on a copy shrunk `g` times, in full-resolution pixels."""
        if g == 1:
            return self
        c = (g - 1) / 2  # a shrunk pixel's centre
        foot = (self.foot[0] * g + c, self.foot[1] * g + c)
        box = (self.box[0] * g, self.box[1] * g, self.box[2] * g, self.box[3] * g)
        region = (self.region[0] * g, self.region[1] * g, self.region[2] * g, self.region[3] * g)
        return _Blob(
            self.color,
            self.k,
            foot,
            self.area * g * g,
            self.card,
            self.tier,
            self.solidity,
            box,
            region,
            self.stands,
        )

    @property
    def rank(self) -> tuple[int, float]:
        return (self.tier, self.area * self.solidity)


def _apart(a: _Blob, b: _Blob, hues: dict[str, float]) -> bool:
    """Whether blobs `a` and `b` (the bigger) are two pawns, not one seen as two colours: far
    apart, or of hues far apart, or both of a pawn's size (two pawns side by side)."""
    d = float(np.hypot(a.foot[0] - b.foot[0], a.foot[1] - b.foot[1]))
    big = np.sqrt(max(a.area, b.area))
    if d <= 0.8 * big:
        return False
    dh = abs(hues[a.color] - hues[b.color])
    neighbours = min(dh, 180 - dh) <= 2 * MAX_HUE_DIST
    return not (neighbours and d <= 1.6 * big and min(a.area, b.area) < 0.5 * max(a.area, b.area))


def _shrink(image: np.ndarray, card_area: float) -> list[np.ndarray]:
    """The image, then halved (area averaging, fast at factor 2) until a card is ~SEARCH_CARD_PX
    across: level i is shrunk 2**i times."""
    levels = [image]
    side = np.sqrt(max(card_area, 1.0))
    while side / 2 ** len(levels) >= SEARCH_CARD_PX and min(levels[-1].shape[:2]) >= 64:
        img = levels[-1]
        h, w = img.shape[:2]
        levels.append(
            cv2.resize(img[: h - h % 2, : w - w % 2], (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        )
    return levels


@functools.cache
def _disc(radius: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))


def _hit(card_boxes: np.ndarray, box: tuple[int, int, int, int]) -> list[int]:
    """Indices of the cards whose boxes meet `box` (x0 y0 x1 y1, x1 y1 excluded)."""
    cb = card_boxes
    x0, y0, x1, y1 = box
    return np.flatnonzero((cb[:, 0] < x1) & (cb[:, 2] >= x0) & (cb[:, 1] < y1) & (cb[:, 3] >= y0)).tolist()


def _card_boxes(cards: list[np.ndarray]) -> np.ndarray:
    """(n, 4) int array: x0 y0 x1 y1 (inclusive) of the pixels each card touches."""
    if not cards:
        return np.zeros((0, 4), np.int64)
    q = np.stack(cards)
    return np.concatenate([np.floor(q.min(axis=1)), np.ceil(q.max(axis=1))], axis=1).astype(np.int64)


def _box(q: np.ndarray, w: int, h: int) -> tuple[int, int, int, int] | None:
    x0, y0 = np.maximum(np.floor(q.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(q.max(axis=0)).astype(int) + 1, [w, h])
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    return int(x0), int(y0), int(x1), int(y1)


def _warp_art(
    art: np.ndarray, corners: np.ndarray, size: tuple[int, int], nearest: bool = False
) -> np.ndarray:
    """The art warped onto `corners` (upright order) in an image of `size` (w, h). `nearest`:
    sampled, not interpolated (3x faster; enough on a shrunk copy)."""
    ah, aw = art.shape[:2]
    # Shrink the art first to about the size it has here: warping then averages no detail away.
    side = max(np.linalg.norm(corners[1] - corners[0]), np.linalg.norm(corners[2] - corners[1]), 2.0)
    k = max(1, int(min(aw, ah) / max(side * 0.7, 1.0)))
    if k > 1:
        key = (id(art), k)
        shrunk = _SHRUNK_ART.get(key)
        if shrunk is None or shrunk[0] is not art:
            if len(_SHRUNK_ART) > 256:
                _SHRUNK_ART.clear()
            shrunk = (art, cv2.resize(art, (max(aw // k, 2), max(ah // k, 2)), interpolation=cv2.INTER_AREA))
            _SHRUNK_ART[key] = shrunk
        art = shrunk[1]
        ah, aw = art.shape[:2]
    src = np.array([[0, 0], [aw - 1, 0], [aw - 1, ah - 1], [0, ah - 1]], np.float32)
    m = cv2.getPerspectiveTransform(src, corners.astype(np.float32))
    return cv2.warpPerspective(art, m, size, flags=cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR)


def _art_match(
    seen: np.ndarray,
    warped: np.ndarray,
    light: np.ndarray | _Light,
    origin: tuple[float, float],
    f: float,
    erode: bool = True,
) -> np.ndarray:
    """255 where the colour of `seen` is the enrolled art's (`warped` onto it; its pixel 0 0 at
    `origin` of an image shrunk `f` times to the frame's shrunk copy) under the `light` on the
    card - a gain per channel, or a `_Light` - within ART_TOL (with `erode`, also where it is so
    one pixel away)."""
    if isinstance(light, _Light):
        expected = light.predict(warped, origin, f)
    else:
        expected = cv2.multiply(warped.astype(np.float32), tuple(float(v) for v in light) + (0.0,))
    d = cv2.absdiff(seen.astype(np.float32), expected)
    d2 = cv2.transform(cv2.multiply(d, d), _SUM_BGR)
    if erode:
        d2 = cv2.erode(d2, _OPEN)
    return cv2.compare(d2, ART_TOL * ART_TOL, cv2.CMP_LT)


def _judge(
    roi, m, own, x, y, w, h, area, min_area, max_area, lenient=False, probe=False, paled=None
) -> tuple[float, np.ndarray] | None:
    """(solidity of its outline, mean colour of its surroundings) of a blob if it can be a pawn,
    else None. A `probe` judges no shapes. `paled()` (as `own`): pixels of its colour, paler,
    that are no hole in it."""
    if not ((PROBE_AREA if probe else 0.5 if lenient else 1.0) * min_area <= area <= max_area):
        return None
    contours, _ = cv2.findContours(own.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    c = max(contours, key=cv2.contourArea)
    hull = cv2.contourArea(cv2.convexHull(c)) + 0.5 * cv2.arcLength(c, True) + 1.0
    filled = np.zeros(own.shape, np.uint8)
    cv2.drawContours(filled, [c], -1, 255, cv2.FILLED)
    enclosed = cv2.countNonZero(filled)
    # The outline's solidity (an L, a crescent): holes in it are judged on their own (a few
    # pixels of a glare-paled pawn that noise takes below a saturation make no L of it).
    solidity = min(enclosed / hull, 1.0)
    if not probe:
        (_, _), (rw, rh), _ = cv2.minAreaRect(c)
        if max(rw, rh) > (2 if lenient else 1) * MAX_ASPECT * max(min(rw, rh), 1.0):
            return None  # a thin strip (a card's printed frame), not a standing figure
        if solidity < (0.6 if lenient else 1.0) * MIN_SOLIDITY:
            return None  # an L or a letter, not a figure
        holes = max(enclosed - area, 0) / max(enclosed, 1)
        if holes > MAX_HOLES and (
            paled is None or holes > HIGHLIGHT_HOLES or _hole_fraction(own | paled(), c) > MAX_HOLES
        ):
            return None  # a ring; a highlight is a spot on a pawn, not most of it (a striped print)
    contrast, ring_bgr = _contrast(roi, m, own, x, y, w, h)
    if contrast < (PROBE_CONTRAST if probe else 1.0) * MIN_CONTRAST:
        return None  # a patch of grain or print, not something standing out
    return solidity, ring_bgr


def _like_table(fr: _Frame, foot: tuple[float, float], ring_bgr: np.ndarray) -> bool:
    """Whether what surrounds a blob off the cards looks like the table around there (the
    median of the off-card pixels within a few card lengths): a pawn on the table does, the
    print of a card the detector did not find does not."""
    sh, sw = fr.off.shape
    r = int(2 * np.sqrt(fr.max_area / MAX_AREA) / fr.f)
    cx, cy = int(foot[0] / fr.f), int(foot[1] / fr.f)
    y0, y1, x0, x1 = max(cy - r, 0), min(cy + r + 1, sh), max(cx - r, 0), min(cx + r + 1, sw)
    sel = fr.off[y0:y1, x0:x1]
    n = cv2.countNonZero(sel)
    if n < 80:
        return True
    # Per-channel medians from histograms (fast, and the same as sorting).
    patch = fr.small[y0:y1, x0:x1]
    table = np.array(
        [
            np.searchsorted(np.cumsum(cv2.calcHist([patch], [ch], sel, [256], [0, 256])), n / 2)
            for ch in range(3)
        ],
        np.float32,
    )
    return float(np.linalg.norm(table - ring_bgr)) < TABLE_TOL


def _hole_fraction(own: np.ndarray, outline: np.ndarray) -> float:
    """Share of the blob's outline that is hole: what its outer `outline` encloses that is not it."""
    filled = np.zeros(own.shape, np.uint8)
    cv2.drawContours(filled, [outline], -1, 255, cv2.FILLED)
    blob = int(np.count_nonzero(own))
    return max(cv2.countNonZero(filled) - blob, 0) / max(cv2.countNonZero(filled), 1)


def _contrast(
    roi: np.ndarray, m: np.ndarray, own: np.ndarray, x: int, y: int, w: int, h: int
) -> tuple[float, np.ndarray]:
    """Lab distance between the blob and the ring around it (other blobs of its colour left out),
    and the ring's mean colour (BGR)."""
    sh, sw = m.shape
    y0, y1 = max(y - h // 2 - 1, 0), min(y + h + h // 2 + 1, sh)
    x0, x1 = max(x - w // 2 - 1, 0), min(x + w + w // 2 + 1, sw)
    ring = cv2.compare(m[y0:y1, x0:x1], 0, cv2.CMP_EQ)
    patch = roi[y0:y1, x0:x1]
    if not cv2.countNonZero(ring):
        return np.inf, np.array(cv2.mean(patch)[:3])
    blob = np.zeros(ring.shape, np.uint8)
    blob[y - y0 : y - y0 + h, x - x0 : x - x0 + w][own] = 255
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2Lab)
    inside = np.array(cv2.mean(lab, blob)[:3])
    around = np.array(cv2.mean(lab, ring)[:3])
    return float(np.linalg.norm(inside - around)), np.array(cv2.mean(patch, ring)[:3], np.float32)


def _foot(pts: np.ndarray, nadir_px: tuple[float, float] | None) -> tuple[float, float]:
    """Where a pawn whose blob is `pts` (full-resolution pixels, x y) touches the table.

    An upright thing leans away from the nadir, so its foot is at the blob's end nearest the
    nadir: a flat figure (a standee's bottom edge, as wide as the figure) stands right there; a
    round end (a disc's rim, a meeple's base) is the near edge of the footprint, whose centre
    lies half the blob's width further in."""
    c = pts.mean(axis=0)
    ux, uy = 0.0, -1.0
    if nadir_px is not None:
        dx, dy = float(c[0]) - nadir_px[0], float(c[1]) - nadir_px[1]
        n = float(np.hypot(dx, dy))
        if n > 1e-6:
            ux, uy = dx / n, dy / n
    # Along (t, away from the nadir) and across (s) the blob, from its centre; s averages 0.
    ts = (pts - c) @ np.array([[ux, -uy], [uy, ux]])
    t, s = ts[:, 0], ts[:, 1]
    width = float(s.max() - s.min() + 1)
    t_near = float(t.min())
    # How round the near end is: the width of a thin slice there, against the blob's width.
    depth = max(2.0, 0.15 * width)
    end = s[t <= t_near + depth]
    end_width = float(end.max() - end.min() + 1)
    round_end = min(max((1.0 - end_width / width) / 0.45, 0.0), 1.0)
    along = t_near + round_end * 0.5 * width
    lateral = float(end.mean()) if round_end < 0.5 else 0.0
    foot = (c[0] + ux * along - uy * lateral, c[1] + uy * along + ux * lateral)
    return (float(foot[0]), float(foot[1]))


def camera_nadir_px(
    to_mm: Callable[[np.ndarray], np.ndarray], width: int, height: int
) -> tuple[float, float] | None:
    """The image point straight below the camera (where upright things lean away from), from the
    image -> table mapping, taking the principal point at the image centre and square pixels.
    None if the mapping does not tell (a camera looking straight down: then it is the centre)."""
    src = np.array(
        [
            [0.2 * width, 0.2 * height],
            [0.8 * width, 0.2 * height],
            [0.8 * width, 0.8 * height],
            [0.2 * width, 0.8 * height],
        ],
        np.float64,
    )
    dst = np.asarray(to_mm(src), np.float64).reshape(4, 2)
    g = cv2.getPerspectiveTransform(dst.astype(np.float32), src.astype(np.float32)).astype(np.float64)
    cx, cy = (width - 1) / 2.0, (height - 1) / 2.0
    g = g / np.linalg.norm(g[:, :2])
    g1, g2 = g[:, 0], g[:, 1]
    a1, b1 = g1[0] - cx * g1[2], g1[1] - cy * g1[2]
    a2, b2 = g2[0] - cx * g2[2], g2[1] - cy * g2[2]
    # The table's axes are perpendicular and equally long seen from the camera: two equations
    # in 1/f^2 (least squares); both vanish for a camera looking straight down.
    coef = np.array([a1 * a2 + b1 * b2, a1 * a1 + b1 * b1 - a2 * a2 - b2 * b2])
    const = np.array([g1[2] * g2[2], g1[2] ** 2 - g2[2] ** 2])
    if float(np.abs(const).max()) < 1e-12 * float(np.abs(coef).max()):
        return (cx, cy)
    inv_f2 = -float(coef @ const) / float(coef @ coef)
    if not np.isfinite(inv_f2) or inv_f2 <= 0:
        return None
    f2 = 1.0 / inv_f2
    k = np.array([[np.sqrt(f2), 0, cx], [0, np.sqrt(f2), cy], [0, 0, 1]])
    kinv = np.linalg.inv(k)
    r1, r2 = kinv @ g1, kinv @ g2
    r3 = np.cross(r1 / np.linalg.norm(r1), r2 / np.linalg.norm(r2))
    vp = k @ r3
    if abs(vp[2]) < 1e-9:
        return None
    return (float(vp[0] / vp[2]), float(vp[1] / vp[2]))
