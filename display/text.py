"""Text in every picture (overview, projector, player view, detect --annotate): one function,
`put_text`, drawing with the bundled DejaVu Sans (display/fonts/, Bitstream Vera licence), so
any name a player types (Zoë, Łukasz, José) shows as written - OpenCV's Hershey fonts are ASCII.

Each string is rasterised once by Pillow into a small grey mask (cached), then blended into the
picture's pixels under it: the frame itself never goes through Pillow, so a per-frame overview
costs a few array operations per label.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path(__file__).resolve().parent / "fonts"
FONT = "DejaVuSans.ttf"
BOLD = "DejaVuSans-Bold.ttf"
# Pixel size of the font at scale 1: the scale numbers the pictures were laid out with (OpenCV's
# Hershey scale) keep giving about the same text height.
PX_PER_SCALE = 30.0
MIN_SCALE = 0.3  # text shrinks to fit no smaller than this (9 px), then is cut with '...'
CAP_HEIGHT = 0.73  # DejaVu Sans: a capital or digit is this fraction of the font's pixel size


@lru_cache(maxsize=128)
def _font(file: str, size_px: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_DIR / file), size_px)


def _size_px(scale: float) -> int:
    return max(6, int(round(scale * PX_PER_SCALE)))


def scale_for_cap_height(height_px: float) -> float:
    """The `scale` whose capitals and digits are `height_px` pixels tall."""
    return height_px / (PX_PER_SCALE * CAP_HEIGHT)


def text_width(text: str, scale: float, thickness: int = 1, font: str = FONT) -> int:
    """Advance width in pixels of one line; `thickness` 2 or more measures bold, as put_text draws."""
    return _width(text, BOLD if thickness >= 2 else font, _size_px(scale))


@lru_cache(maxsize=8192)
def _width(text: str, font: str, size_px: int) -> int:
    # Cached: the overview measures the same labels every frame (fitting, wrapping).
    return int(np.ceil(_font(font, size_px).getlength(text)))


@lru_cache(maxsize=4096)
def _mask(text: str, font: str, size_px: int, stroke: int) -> tuple[np.ndarray, int, int]:
    """The string's coverage (uint8) and where its top-left sits from the baseline origin."""
    f = _font(font, size_px)
    left, top, right, bottom = f.getbbox(text, anchor="ls", stroke_width=stroke)
    w, h = max(1, right - left), max(1, bottom - top)
    patch = Image.new("L", (w, h), 0)
    ImageDraw.Draw(patch).text((-left, -top), text, 255, f, anchor="ls", stroke_width=stroke, stroke_fill=255)
    mask = np.asarray(patch)
    mask.setflags(write=False)
    return mask, left, top


def _blend(img: np.ndarray, mask: np.ndarray, x: int, y: int, colour: object) -> None:
    h, w = img.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + mask.shape[1], w), min(y + mask.shape[0], h)
    if x1 <= x0 or y1 <= y0:
        return
    m = mask[y0 - y : y1 - y, x0 - x : x1 - x]
    roi = img[y0:y1, x0:x1]
    a = m.astype(np.float32) / 255.0
    if roi.ndim == 3:
        a = a[..., None]
        ink = np.asarray(colour, np.float32)[: roi.shape[2]]
    else:
        ink = np.float32(colour if np.isscalar(colour) else np.mean(colour))  # type: ignore[arg-type]
    roi[:] = (roi * (1.0 - a) + ink * a + 0.5).astype(np.uint8)


def put_text(
    img: np.ndarray,
    text: str,
    org: tuple[float, float],
    scale: float = 0.5,
    colour: tuple[int, int, int] | int = (235, 235, 235),
    thickness: int = 1,
    font: str = FONT,
    anchor: str = "left",
    max_width: float | None = None,
    halo: tuple[int, int, int] | int | None = None,
) -> int:
    """Draw one line of text (baseline at org) into img (BGR or grey); `anchor` left|centre|right;
    shrinks to fit `max_width`, then cuts with '...'. `thickness` 2 or more draws bold; `halo`
    rings the letters in that colour (readable on any background). Returns the drawn width."""
    text = str(text)
    if thickness >= 2:
        font = BOLD
    if max_width is not None and text:
        width = text_width(text, scale, font=font)
        if width > max_width:
            scale = max(MIN_SCALE, scale * max_width / width)
        while scale > MIN_SCALE and text_width(text, scale, font=font) > max_width:
            scale = max(MIN_SCALE, scale - 1 / PX_PER_SCALE)  # whole pixels of font size round up
        while len(text) > 3 and text_width(text, scale, font=font) > max_width:
            text = text[:-4] + "..."
    if not text:
        return 0
    size = _size_px(scale)
    width = text_width(text, scale, font=font)
    x = org[0] - (width / 2 if anchor == "centre" else width if anchor == "right" else 0)
    ox, oy = int(round(x)), int(round(org[1]))
    if halo is not None:
        ring, left, top = _mask(text, font, size, max(1, size // 10))
        _blend(img, ring, ox + left, oy + top, halo)
    mask, left, top = _mask(text, font, size, 0)
    _blend(img, mask, ox + left, oy + top, colour)
    return width


def wrap(text: str, scale: float, max_width: float, thickness: int = 1) -> list[str]:
    """Words of `text` in lines no wider than max_width (a longer word gets a line of its own)."""
    lines: list[str] = []
    for word in text.split():
        if lines and text_width(f"{lines[-1]} {word}", scale, thickness) <= max_width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines
