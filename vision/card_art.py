"""The bundled card art: one back and a distinct face per Master Plan card type.

Product data: the face recogniser enrols these images as its default library
(`vision.faces.FaceLibrary.default`), and the test-scene renderer (`vision.synthetic`) prints
its cards with them.

Each face has a kind-coloured frame, the card's name at the top (and upside down at the
bottom, as printed cards do), and a simple icon in the middle. Everything is drawn with OpenCV
primitives, so the art is deterministic and free of anyone's copyright. A face recogniser
enrols the images that `face_image` returns.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import cv2
import numpy as np

SPACE_CARDS = (
    "Trapdoor",
    "Bomb",
    "Laser Gun",
    "Teleporter",
    "Switch",
    "Control Panel",
    "Supply Drop",
    "Rocket Boots",
    "Tripwire",
    "Empty Lair",
)
STARTING_CARDS = ("Z-Mask", "Dr. Badmahn", "Mysterious M", "Ms. Fyre", "Plutonian Poacher", "Monster Nash")
TROPHY = "Trophy"
CARD_NAMES = (*SPACE_CARDS, *STARTING_CARDS, TROPHY)

# Kind of each card (docs/rules-masterplan.md, "The default deck") -> frame colour (BGR).
# Starting cards and the Trophy get their own.
KIND = {
    "Trapdoor": "trap",
    "Bomb": "trap",
    "Tripwire": "trap",
    "Laser Gun": "weapon",
    "Teleporter": "prize",
    "Supply Drop": "prize",
    "Rocket Boots": "prize",
    "Switch": "special",
    "Control Panel": "special",
    "Empty Lair": "blank",
    **{n: "villain" for n in STARTING_CARDS},
    TROPHY: "trophy",
}
KIND_COLOR = {
    "trap": (40, 40, 190),
    "weapon": (30, 120, 230),
    "prize": (60, 150, 40),
    "special": (180, 90, 30),
    "blank": (120, 120, 120),
    "villain": (110, 30, 110),
    "trophy": (20, 160, 210),
}
CARD_STOCK = (236, 242, 246)  # slightly warm white (BGR)
INK = (30, 30, 30)
DEFAULT_PX_PER_MM = 4.0
CORNER_RADIUS_MM = 3.0

Icon = Callable[[np.ndarray, tuple[int, int], int], None]


def _pt(c: tuple[int, int], dx: float, dy: float, s: int) -> tuple[int, int]:
    return (int(round(c[0] + dx * s)), int(round(c[1] + dy * s)))


def _poly(img: np.ndarray, c: tuple[int, int], s: int, pts: list[tuple[float, float]], color, fill=True, t=2):
    arr = np.array([_pt(c, x, y, s) for x, y in pts], np.int32)
    if fill:
        cv2.fillPoly(img, [arr], color, cv2.LINE_AA)
    else:
        cv2.polylines(img, [arr], True, color, t, cv2.LINE_AA)


# Icons: drawn around centre c with unit s (pixels); coordinates are in units of s.
def _trapdoor(img, c, s):
    _poly(img, c, s, [(-1, -0.6), (1, -0.6), (1, 0.8), (-1, 0.8)], (40, 60, 90))
    _poly(img, c, s, [(-0.85, -0.45), (0.85, -0.45), (0.85, 0.65), (-0.85, 0.65)], (10, 10, 10))
    _poly(img, c, s, [(-1, -0.6), (1, -0.6), (0.7, -1.2), (-0.7, -1.2)], (60, 110, 160))
    for x in (-0.5, 0.0, 0.5):
        cv2.line(img, _pt(c, x, -0.62, s), _pt(c, x * 0.7, -1.18, s), (30, 60, 90), 2, cv2.LINE_AA)


def _bomb(img, c, s):
    cv2.circle(img, _pt(c, 0, 0.2, s), int(0.8 * s), (25, 25, 25), -1, cv2.LINE_AA)
    cv2.circle(img, _pt(c, -0.3, -0.1, s), int(0.18 * s), (200, 200, 200), -1, cv2.LINE_AA)
    _poly(img, c, s, [(0.35, -0.5), (0.7, -0.85), (0.85, -0.7), (0.5, -0.35)], (60, 60, 60))
    cv2.line(img, _pt(c, 0.78, -0.78, s), _pt(c, 1.0, -1.1, s), (40, 90, 140), 3, cv2.LINE_AA)
    for a in range(0, 360, 45):
        r = np.radians(a)
        p0 = _pt(c, 1.0 + 0.1 * np.cos(r), -1.15 + 0.1 * np.sin(r), s)
        p1 = _pt(c, 1.0 + 0.35 * np.cos(r), -1.15 + 0.35 * np.sin(r), s)
        cv2.line(img, p0, p1, (0, 180, 255), 2, cv2.LINE_AA)


def _laser_gun(img, c, s):
    _poly(
        img,
        c,
        s,
        [
            (-1.1, -0.4),
            (0.4, -0.4),
            (0.4, 0.0),
            (-0.5, 0.0),
            (-0.6, 0.8),
            (-1.0, 0.8),
            (-0.9, 0.0),
            (-1.1, 0.0),
        ],
        (90, 90, 90),
    )
    _poly(img, c, s, [(0.4, -0.3), (0.7, -0.3), (0.7, -0.1), (0.4, -0.1)], (40, 40, 40))
    cv2.line(img, _pt(c, 0.75, -0.2, s), _pt(c, 1.3, -0.2, s), (60, 60, 255), max(3, s // 8), cv2.LINE_AA)
    cv2.circle(img, _pt(c, 1.3, -0.2, s), int(0.15 * s), (120, 120, 255), -1, cv2.LINE_AA)


def _teleporter(img, c, s):
    for i, r in enumerate((1.0, 0.75, 0.5, 0.25)):
        col = (200 - 40 * i, 120 + 30 * i, 40 + 50 * i)
        cv2.ellipse(img, _pt(c, 0, 0.6, s), (int(r * s), int(r * 0.35 * s)), 0, 0, 360, col, 3, cv2.LINE_AA)
    for x in (-0.6, 0.0, 0.6):
        cv2.line(img, _pt(c, x, 0.4, s), _pt(c, x, -1.0, s), (220, 200, 80), 2, cv2.LINE_AA)


def _switch(img, c, s):
    _poly(
        img,
        c,
        s,
        [(-1, -0.6), (0.5, -0.6), (0.5, -0.95), (1.1, -0.35), (0.5, 0.25), (0.5, -0.1), (-1, -0.1)],
        (180, 90, 30),
    )
    _poly(
        img,
        c,
        s,
        [(1, 0.3), (-0.5, 0.3), (-0.5, -0.05), (-1.1, 0.55), (-0.5, 1.15), (-0.5, 0.8), (1, 0.8)],
        (30, 140, 200),
    )


def _control_panel(img, c, s):
    _poly(img, c, s, [(-1.1, -0.9), (1.1, -0.9), (1.1, 0.9), (-1.1, 0.9)], (70, 70, 70))
    cols = [(40, 40, 220), (40, 200, 40), (220, 160, 40), (40, 200, 230)]
    for i in range(2):
        for j in range(3):
            cv2.circle(
                img,
                _pt(c, -0.7 + 0.5 * j, -0.45 + 0.55 * i, s),
                int(0.17 * s),
                cols[(i + j) % 4],
                -1,
                cv2.LINE_AA,
            )
    cv2.circle(img, _pt(c, 0.65, 0.0, s), int(0.3 * s), (200, 200, 200), -1, cv2.LINE_AA)
    cv2.line(img, _pt(c, 0.65, 0.0, s), _pt(c, 0.85, -0.2, s), (20, 20, 20), 2, cv2.LINE_AA)
    cv2.rectangle(img, _pt(c, -0.9, 0.45, s), _pt(c, 0.3, 0.7, s), (40, 160, 40), -1, cv2.LINE_AA)


def _supply_drop(img, c, s):
    cv2.ellipse(
        img, _pt(c, 0, -0.4, s), (int(1.0 * s), int(0.7 * s)), 0, 180, 360, (60, 150, 40), -1, cv2.LINE_AA
    )
    for x in (-1.0, -0.35, 0.35, 1.0):
        cv2.line(img, _pt(c, x, -0.4, s), _pt(c, 0, 0.45, s), (40, 40, 40), 1, cv2.LINE_AA)
    _poly(img, c, s, [(-0.4, 0.45), (0.4, 0.45), (0.4, 1.1), (-0.4, 1.1)], (60, 120, 170))
    cv2.line(img, _pt(c, -0.4, 0.78, s), _pt(c, 0.4, 0.78, s), (30, 60, 90), 2, cv2.LINE_AA)


def _rocket_boots(img, c, s):
    _poly(
        img,
        c,
        s,
        [(-0.6, -1.0), (0.0, -1.0), (0.0, 0.2), (0.9, 0.35), (0.9, 0.7), (-0.6, 0.7)],
        (40, 70, 160),
    )
    for i, x in enumerate((-0.45, -0.15, 0.15, 0.45, 0.75)):
        col = (0, 140 + 20 * i, 255)
        _poly(img, c, s, [(x - 0.13, 0.75), (x + 0.13, 0.75), (x, 1.25)], col)


def _tripwire(img, c, s):
    for x in (-1.0, 1.0):
        _poly(
            img, c, s, [(x - 0.08, -0.2), (x + 0.08, -0.2), (x + 0.08, 0.9), (x - 0.08, 0.9)], (60, 90, 120)
        )
    cv2.line(img, _pt(c, -1.0, 0.5, s), _pt(c, 1.0, 0.5, s), (40, 40, 200), 2, cv2.LINE_AA)
    _poly(
        img,
        c,
        s,
        [(-0.3, -1.0), (0.1, -1.0), (0.15, 0.2), (0.55, 0.35), (0.55, 0.5), (-0.3, 0.5)],
        (50, 50, 50),
    )


def _empty_lair(img, c, s):
    cv2.ellipse(
        img, _pt(c, 0, 0.9, s), (int(1.1 * s), int(1.5 * s)), 0, 180, 360, (90, 90, 90), -1, cv2.LINE_AA
    )
    cv2.ellipse(
        img, _pt(c, 0, 0.9, s), (int(0.7 * s), int(1.05 * s)), 0, 180, 360, (15, 15, 15), -1, cv2.LINE_AA
    )
    for x in (-0.4, 0.0, 0.4):
        cv2.circle(img, _pt(c, x, 0.75, s), int(0.06 * s), (150, 150, 150), -1, cv2.LINE_AA)


def _z_mask(img, c, s):
    cv2.ellipse(img, _pt(c, 0, 0, s), (int(1.0 * s), int(0.6 * s)), 0, 0, 360, (30, 30, 30), -1, cv2.LINE_AA)
    for x in (-0.45, 0.45):
        cv2.ellipse(
            img,
            _pt(c, x, -0.05, s),
            (int(0.28 * s), int(0.16 * s)),
            0,
            0,
            360,
            (230, 230, 230),
            -1,
            cv2.LINE_AA,
        )
    _poly(
        img,
        c,
        s,
        [(-0.5, 0.75), (0.5, 0.75), (-0.3, 1.25), (0.5, 1.25)],
        (40, 40, 200),
        fill=False,
        t=max(3, s // 9),
    )


def _dr_badmahn(img, c, s):
    cv2.circle(img, _pt(c, 0, 0.1, s), int(0.9 * s), (120, 170, 210), -1, cv2.LINE_AA)
    for x in (-0.38, 0.38):
        cv2.circle(img, _pt(c, x, -0.05, s), int(0.3 * s), (60, 60, 60), -1, cv2.LINE_AA)
        cv2.circle(img, _pt(c, x, -0.05, s), int(0.2 * s), (200, 230, 120), -1, cv2.LINE_AA)
    cv2.ellipse(
        img, _pt(c, 0, 0.45, s), (int(0.4 * s), int(0.2 * s)), 0, 0, 180, (30, 30, 30), 3, cv2.LINE_AA
    )
    for x in (-0.6, -0.2, 0.2, 0.6):
        cv2.line(img, _pt(c, x, -0.7, s), _pt(c, x * 1.4, -1.15, s), (230, 230, 230), 3, cv2.LINE_AA)


def _mysterious_m(img, c, s):
    _poly(img, c, s, [(0, -1.2), (1.0, 0.2), (0.8, 1.1), (-0.8, 1.1), (-1.0, 0.2)], (70, 30, 50))
    _poly(
        img,
        c,
        s,
        [(-0.55, 0.8), (-0.55, -0.2), (0, 0.35), (0.55, -0.2), (0.55, 0.8)],
        (80, 200, 230),
        fill=False,
        t=max(3, s // 8),
    )


def _ms_fyre(img, c, s):
    _poly(
        img,
        c,
        s,
        [
            (0, -1.2),
            (0.5, -0.3),
            (0.8, -0.6),
            (0.9, 0.4),
            (0.5, 1.0),
            (-0.5, 1.0),
            (-0.9, 0.4),
            (-0.7, -0.5),
            (-0.35, -0.1),
        ],
        (0, 90, 240),
    )
    _poly(img, c, s, [(0, -0.4), (0.4, 0.3), (0.3, 0.9), (-0.3, 0.9), (-0.4, 0.3)], (0, 210, 255))


def _plutonian_poacher(img, c, s):
    cv2.circle(img, _pt(c, 0, 0, s), int(0.65 * s), (170, 140, 200), -1, cv2.LINE_AA)
    cv2.ellipse(
        img, _pt(c, 0, 0, s), (int(1.2 * s), int(0.3 * s)), -20, 0, 360, (60, 90, 150), 3, cv2.LINE_AA
    )
    for i in range(-2, 3):
        cv2.line(
            img, _pt(c, -0.9 + 0.3 * i, 0.9, s), _pt(c, -0.5 + 0.3 * i, 1.3, s), (40, 40, 40), 1, cv2.LINE_AA
        )


def _monster_nash(img, c, s):
    _poly(
        img,
        c,
        s,
        [
            (-1.0, -0.6),
            (-0.6, -1.2),
            (-0.3, -0.7),
            (0.3, -0.7),
            (0.6, -1.2),
            (1.0, -0.6),
            (1.0, 0.9),
            (-1.0, 0.9),
        ],
        (60, 150, 70),
    )
    for x in (-0.4, 0.4):
        cv2.circle(img, _pt(c, x, -0.2, s), int(0.2 * s), (0, 220, 255), -1, cv2.LINE_AA)
        cv2.circle(img, _pt(c, x, -0.2, s), int(0.07 * s), (0, 0, 0), -1, cv2.LINE_AA)
    for i in range(5):
        x = -0.6 + 0.3 * i
        _poly(img, c, s, [(x - 0.12, 0.35), (x + 0.12, 0.35), (x, 0.7)], (245, 245, 245))


def _trophy(img, c, s):
    gold = (30, 190, 235)
    cv2.ellipse(img, _pt(c, 0, -0.6, s), (int(0.8 * s), int(1.0 * s)), 0, 0, 180, gold, -1, cv2.LINE_AA)
    _poly(img, c, s, [(-0.8, -0.62), (0.8, -0.62), (0.8, -0.9), (-0.8, -0.9)], gold)
    for x in (-1, 1):
        cv2.ellipse(
            img, _pt(c, 0.85 * x, -0.35, s), (int(0.3 * s), int(0.35 * s)), 0, 0, 360, gold, 3, cv2.LINE_AA
        )
    _poly(img, c, s, [(-0.12, 0.35), (0.12, 0.35), (0.12, 0.8), (-0.12, 0.8)], gold)
    _poly(img, c, s, [(-0.6, 0.8), (0.6, 0.8), (0.6, 1.1), (-0.6, 1.1)], (20, 120, 170))
    _poly(
        img,
        c,
        s,
        [
            (0, -0.5),
            (0.12, -0.25),
            (0.4, -0.2),
            (0.2, 0.0),
            (0.25, 0.3),
            (0, 0.15),
            (-0.25, 0.3),
            (-0.2, 0.0),
            (-0.4, -0.2),
            (-0.12, -0.25),
        ],
        (245, 245, 245),
    )


ICONS: dict[str, Icon] = {
    "Trapdoor": _trapdoor,
    "Bomb": _bomb,
    "Laser Gun": _laser_gun,
    "Teleporter": _teleporter,
    "Switch": _switch,
    "Control Panel": _control_panel,
    "Supply Drop": _supply_drop,
    "Rocket Boots": _rocket_boots,
    "Tripwire": _tripwire,
    "Empty Lair": _empty_lair,
    "Z-Mask": _z_mask,
    "Dr. Badmahn": _dr_badmahn,
    "Mysterious M": _mysterious_m,
    "Ms. Fyre": _ms_fyre,
    "Plutonian Poacher": _plutonian_poacher,
    "Monster Nash": _monster_nash,
    "Trophy": _trophy,
}


def _size_px(size_mm: tuple[float, float], px_per_mm: float) -> tuple[int, int]:
    return int(round(size_mm[0] * px_per_mm)), int(round(size_mm[1] * px_per_mm))


def _fit_text(img: np.ndarray, text: str, centre_x: int, baseline: int, max_w: int, color) -> None:
    font = cv2.FONT_HERSHEY_DUPLEX
    scale = 1.0
    thick = 2
    (tw, _), _ = cv2.getTextSize(text, font, scale, thick)
    scale = min(1.0, max_w / max(tw, 1)) * img.shape[1] / 252
    thick = max(1, int(round(2 * scale)))
    (tw, _), _ = cv2.getTextSize(text, font, scale, thick)
    cv2.putText(img, text, (centre_x - tw // 2, baseline), font, scale, color, thick, cv2.LINE_AA)


@lru_cache(maxsize=64)
def _face(name: str, size_mm: tuple[float, float], px_per_mm: float) -> np.ndarray:
    if name not in ICONS:
        raise KeyError(f"no art for a card called {name!r}; known cards: {', '.join(CARD_NAMES)}")
    w, h = _size_px(size_mm, px_per_mm)
    img = np.full((h, w, 3), CARD_STOCK, np.uint8)
    m = int(round(3.5 * px_per_mm))  # white border, as printed cards have
    kind = KIND[name]
    col = KIND_COLOR[kind]
    cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), col, -1)
    inner = m + int(round(2.5 * px_per_mm))
    band = int(round(11 * px_per_mm))
    # Name band at the top, light panel for the icon, name again upside down at the bottom.
    cv2.rectangle(img, (inner, inner + band), (w - 1 - inner, h - 1 - inner - band), (225, 235, 240), -1)
    half = np.zeros((band, w - 2 * inner, 3), np.uint8)
    half[:] = col
    _fit_text(
        half, name.upper(), half.shape[1] // 2, int(band * 0.68), int(half.shape[1] * 0.92), (250, 250, 250)
    )
    img[inner : inner + band, inner : w - inner] = half
    img[h - inner - band : h - inner, inner : w - inner] = half[::-1, ::-1]
    s = int(round(min(w - 2 * inner, h - 2 * inner - 2 * band) / 3.4))
    ICONS[name](img, (w // 2, h // 2 - int(0.25 * s)), s)
    # Kind word under the icon: small text, a second cue for the recogniser.
    _fit_text(img, kind.upper(), w // 2, h - inner - band - int(2 * px_per_mm), int(w * 0.3), INK)
    img.flags.writeable = False
    return img


def face_image(
    name: str, size_mm: tuple[float, float] = (63.0, 88.0), px_per_mm: float = DEFAULT_PX_PER_MM
) -> np.ndarray:
    """The face of card `name` (BGR, rectangular: the caller applies `card_mask` for the rounded
    corners). The card's own top edge is row 0. Read-only and cached."""
    return _face(name, (float(size_mm[0]), float(size_mm[1])), float(px_per_mm))


@lru_cache(maxsize=8)
def _back(size_mm: tuple[float, float], px_per_mm: float) -> np.ndarray:
    w, h = _size_px(size_mm, px_per_mm)
    img = np.full((h, w, 3), (60, 25, 20), np.uint8)
    m = int(round(3.5 * px_per_mm))
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (200, 200, 205), m * 2)
    step = int(round(6 * px_per_mm))
    for k in range(-h, w + h, step):
        cv2.line(img, (k, m), (k + h, h - m), (120, 60, 40), 2, cv2.LINE_AA)
        cv2.line(img, (k, h - m), (k + h, m), (120, 60, 40), 2, cv2.LINE_AA)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (200, 200, 205), m * 2)
    # Emblem symmetric under a half turn, so a back never shows which way up the card lies.
    c = (w // 2, h // 2)
    r = int(round(14 * px_per_mm))
    cv2.circle(img, c, r, (40, 180, 230), -1, cv2.LINE_AA)
    cv2.circle(img, c, int(r * 0.8), (60, 25, 20), -1, cv2.LINE_AA)
    pts = np.array(
        [
            [c[0] + r * 0.55 * np.cos(a), c[1] + r * 0.55 * np.sin(a)]
            for a in np.linspace(0, 2 * np.pi, 9)[:-1]
        ],
        np.int32,
    )
    cv2.fillPoly(img, [pts], (40, 180, 230), cv2.LINE_AA)
    cv2.circle(img, c, int(r * 0.25), (60, 25, 20), -1, cv2.LINE_AA)
    img.flags.writeable = False
    return img


def back_image(
    size_mm: tuple[float, float] = (63.0, 88.0), px_per_mm: float = DEFAULT_PX_PER_MM
) -> np.ndarray:
    """The shared card back (BGR, read-only, cached)."""
    return _back((float(size_mm[0]), float(size_mm[1])), float(px_per_mm))


@lru_cache(maxsize=8)
def _mask(size_mm: tuple[float, float], px_per_mm: float, radius_mm: float) -> np.ndarray:
    w, h = _size_px(size_mm, px_per_mm)
    ss = 4  # supersample the rounded corners for a smooth edge
    r = radius_mm * px_per_mm * ss
    big = np.zeros((h * ss, w * ss), np.uint8)
    W, H = w * ss, h * ss
    cv2.rectangle(big, (int(r), 0), (int(W - r), H - 1), 255, -1)
    cv2.rectangle(big, (0, int(r)), (W - 1, int(H - r)), 255, -1)
    for cx, cy in ((r, r), (W - r, r), (W - r, H - r), (r, H - r)):
        cv2.circle(big, (int(cx), int(cy)), int(r), 255, -1)
    m = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    m.flags.writeable = False
    return m


def card_mask(
    size_mm: tuple[float, float] = (63.0, 88.0),
    px_per_mm: float = DEFAULT_PX_PER_MM,
    radius_mm: float = CORNER_RADIUS_MM,
) -> np.ndarray:
    """Alpha (uint8 0..255) of a card with rounded corners, same raster as `face_image`."""
    return _mask((float(size_mm[0]), float(size_mm[1])), float(px_per_mm), float(radius_mm))


def all_faces(
    size_mm: tuple[float, float] = (63.0, 88.0), px_per_mm: float = DEFAULT_PX_PER_MM
) -> dict[str, np.ndarray]:
    """Every face by card name, for a recogniser to enrol."""
    return {n: face_image(n, size_mm, px_per_mm) for n in CARD_NAMES}
