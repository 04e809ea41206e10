"""Printable targets: the ChArUco board on A4 or US Letter as PNG and PDF at exact physical scale,
with a 100 mm ruler bar to check the print, and the board spec as JSON beside them.

The page is drawn at 12 px/mm (304.8 dpi) so that every 25 mm square is exactly 300 pixels. The
PNG carries that resolution in its pHYs chunk; the PDF places the same raster on a page of the
paper's exact size and asks viewers not to scale it when printing (/PrintScaling /None). Both
writers are a few lines of zlib, so no PDF library is needed.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from calibration.board import PAPERS_MM, BoardSpec
from calibration.errors import CalibrationError

PX_PER_MM = 12
MM_PER_PT = 25.4 / 72


def page_spec(paper: str, board: BoardSpec | None = None) -> BoardSpec:
    """The board laid out on a page: centred across, 12 mm from the top (inside every printer's margin)."""
    paper = paper.lower()
    if paper not in PAPERS_MM:
        raise CalibrationError(f"unknown paper {paper!r}: choose one of {', '.join(PAPERS_MM)}")
    board = board or BoardSpec()
    pw, ph = PAPERS_MM[paper]
    bw, bh = board.size_mm
    if bw > pw - 20 or bh > ph - 52:
        raise CalibrationError(f"a {bw:.0f} x {bh:.0f} mm board does not fit on {paper} with its ruler")
    return replace(board, paper=paper, paper_mm=(pw, ph), board_offset_mm=((pw - bw) / 2, 12.0))


def render_page(spec: BoardSpec, px_per_mm: int = PX_PER_MM) -> np.ndarray:
    """The whole printed page as an 8-bit grey image."""
    if spec.paper_mm is None or spec.board_offset_mm is None:
        raise CalibrationError("the board spec has no page layout (use page_spec)")
    s = px_per_mm
    pw, ph = (round(v * s) for v in spec.paper_mm)
    page = np.full((ph, pw), 255, np.uint8)
    cols, rows = spec.squares
    sq = round(spec.square_mm * s)
    if abs(sq - spec.square_mm * s) > 1e-6:
        raise CalibrationError(
            f"square size {spec.square_mm} mm is not a whole number of pixels at {s} px/mm"
        )
    board = spec.cv_board().generateImage((cols * sq, rows * sq), marginSize=0, borderBits=1)
    ox, oy = (round(v * s) for v in spec.board_offset_mm)
    page[oy : oy + rows * sq, ox : ox + cols * sq] = board
    # Ruler: a 100 mm bar with mm ticks, centred under the board.
    y = oy + rows * sq + 8 * s
    x0 = (pw - round(spec.ruler_mm * s)) // 2
    x1 = x0 + round(spec.ruler_mm * s)
    page[y : y + 3 * s, x0:x1] = 0
    for mm in range(int(spec.ruler_mm) + 1):
        tick = 5 if mm % 10 == 0 else 3 if mm % 5 == 0 else 2
        x = x0 + mm * s - (1 if mm == spec.ruler_mm else 0)
        page[y + 3 * s : y + (3 + tick) * s, x : x + 2] = 0
    font = cv2.FONT_HERSHEY_SIMPLEX
    texts = [
        f"THIS BAR MUST MEASURE {spec.ruler_mm:.0f} mm - EACH SQUARE {spec.square_mm:g} mm. PRINT AT 100 % (ACTUAL SIZE).",
        f"tabletop-referee ChArUco {cols}x{rows}, square {spec.square_mm:g} mm, marker {spec.marker_mm:g} mm, "
        f"{spec.dictionary}, {spec.paper}",
        "Lay flat on the table, this text toward the contestant edge; its origin is the board's bottom-left corner.",
    ]
    ty = y + 13 * s
    for text in texts:
        scale = 0.9 * s / 12
        (tw, _), _ = cv2.getTextSize(text, font, scale, 2)
        while tw > pw - 24 * s and scale > 0.3:
            scale *= 0.95
            (tw, _), _ = cv2.getTextSize(text, font, scale, 2)
        cv2.putText(page, text, ((pw - tw) // 2, ty), font, scale, 0, max(1, s // 6), cv2.LINE_AA)
        ty += 6 * s
    return page


def _png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


def write_png(path: str | Path, gray: np.ndarray, px_per_mm: float) -> None:
    """8-bit greyscale PNG with its physical resolution (pHYs, pixels per metre) set."""
    h, w = gray.shape
    raw = b"".join(b"\x00" + gray[r].tobytes() for r in range(h))
    ppm = round(px_per_mm * 1000)
    data = (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
        + _png_chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1))
        + _png_chunk(b"IDAT", zlib.compress(raw, 9))
        + _png_chunk(b"IEND", b"")
    )
    Path(path).write_bytes(data)


def write_pdf(path: str | Path, gray: np.ndarray, page_mm: tuple[float, float], title: str) -> None:
    """One-page PDF of exactly `page_mm` showing `gray` across the whole page."""
    h, w = gray.shape
    wpt, hpt = page_mm[0] / MM_PER_PT, page_mm[1] / MM_PER_PT
    content = f"q {wpt:.4f} 0 0 {hpt:.4f} 0 0 cm /Im0 Do Q".encode()
    image = zlib.compress(gray.tobytes(), 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R /ViewerPreferences << /PrintScaling /None >> >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {wpt:.4f} {hpt:.4f}] "
        "/Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>".encode(),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
        f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(image)} >>\nstream\n".encode()
        + image
        + b"\nendstream",
        f"<< /Title ({title}) /Producer (tabletop-referee) >>".encode(),
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {len(objects)} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    Path(path).write_bytes(bytes(out))


def write_targets(
    out_dir: str | Path, papers: tuple[str, ...] = ("a4", "letter"), board: BoardSpec | None = None
) -> list[Path]:
    """Write board_<paper>.png, .pdf and .json for each paper; return the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for paper in papers:
        spec = page_spec(paper, board)
        page = render_page(spec)
        stem = out / f"board_{spec.paper}"
        write_png(stem.with_suffix(".png"), page, PX_PER_MM)
        write_pdf(
            stem.with_suffix(".pdf"), page, spec.paper_mm, f"tabletop-referee calibration board ({paper})"
        )  # type: ignore[arg-type]
        spec.save(stem.with_suffix(".json"))
        written += [stem.with_suffix(".pdf"), stem.with_suffix(".png"), stem.with_suffix(".json")]
    return written
