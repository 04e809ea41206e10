"""Render camera frames of a table scene, with ground truth.

How a frame is made (fast: one remap per frame does the perspective and the lens):
1. Flat things (table surface, cards, printed sheets) are drawn in a top-down raster of the
   table at `px_per_mm`, cards from their art by one warpAffine each into a small region.
2. Shadows of everything (cards' thin edges, pawns, hands, held cards) are drawn into a
   raster mask: each object's outline projected along the light onto the table and blurred
   in proportion to its height.
3. A precomputed map takes every pixel of the distorted camera image to its point in the
   raster (inverse lens model, then the table homography); cv2.remap applies it.
4. Things above the table (pawns, held cards, hands) are projected with the lens and drawn in
   the image, over the table, each one labelled so that occlusion can be measured.
5. Light and sensor: static illumination (uneven light, vignetting), shadows, tint, exposure,
   glare, defocus and motion blur, noise and JPEG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from vision.card_art import CARD_STOCK, back_image, card_mask, face_image
from vision.synthetic.camera import Camera
from vision.synthetic.conditions import PRESETS, Conditions
from vision.synthetic.scene import DEFAULT_TABLE, PAWN_COLORS, Card, Hand, HeldCard, Pawn, Scene, Sheet, Table
from vision.synthetic.textures import floor_texture, surface_texture
from vision.synthetic.truth import frame_truth

ART_PX_PER_MM = 4.0
RASTER_MARGIN_MM = 500.0
LAMP_DISTANCE_MM = 1600.0


@dataclass
class Frame:
    """One rendered camera frame: the image (BGR, as `cv2.imread` would load the JPEG), the JPEG
    bytes (None when `jpeg_quality` is None) and its ground truth (JSON-ready dict)."""

    image: np.ndarray
    truth: dict
    jpeg: bytes | None = field(default=None, repr=False)
    # Per pixel, which thing above the table (1-based, in the truth's order of hands, pawns,
    # held cards) covers it, 0 for none: what hides the cards lying flat.
    labels: np.ndarray | None = field(default=None, repr=False)


@lru_cache(maxsize=64)
def _texture(
    name: str | None, face_up: bool, size_mm: tuple[float, float], px_per_mm: float, stock: tuple | None
):
    """Card art (face or back) resampled to the raster scale, with its alpha, tinted to the stock."""
    art = face_image(name, size_mm, ART_PX_PER_MM) if face_up else back_image(size_mm, ART_PX_PER_MM)
    alpha = card_mask(size_mm, ART_PX_PER_MM)
    w = max(2, int(round(size_mm[0] * px_per_mm)))
    h = max(2, int(round(size_mm[1] * px_per_mm)))
    interp = cv2.INTER_AREA if px_per_mm < ART_PX_PER_MM else cv2.INTER_LINEAR
    tex = cv2.resize(art, (w, h), interpolation=interp).astype(np.float32)
    if stock is not None:
        tex *= (np.array(stock, np.float32) / np.array(CARD_STOCK, np.float32))[None, None, :]
    a = cv2.resize(alpha, (w, h), interpolation=interp).astype(np.float32) / 255.0
    return tex, a


class Renderer:
    """Renders scenes on one table seen by one camera under one set of conditions.

    Building a Renderer precomputes what stays fixed (the lens map, the table texture, the
    illumination); `render` then costs a fraction of a second per frame."""

    def __init__(
        self,
        camera: Camera,
        conditions: Conditions = PRESETS["wood"],
        table: Table = DEFAULT_TABLE,
        px_per_mm: float | None = None,
    ) -> None:
        self.camera = camera
        self.conditions = conditions
        self.table = table
        self._setup_raster(px_per_mm)
        self._setup_maps()
        self._setup_light()

    # ---- fixed per renderer ---------------------------------------------------------------------
    def _setup_raster(self, px_per_mm: float | None) -> None:
        cam, t = self.camera, self.table
        foot = cam.table_footprint_mm()
        lo = np.maximum(foot.min(axis=0), [-RASTER_MARGIN_MM, -RASTER_MARGIN_MM])
        hi = np.minimum(foot.max(axis=0), [t.width_mm + RASTER_MARGIN_MM, t.depth_mm + RASTER_MARGIN_MM])
        if px_per_mm is None:
            # Match the finest detail the camera resolves (the nearest table point), within limits.
            u = np.linspace(0, cam.width - 1, 9)
            v = np.linspace(0, cam.height - 1, 9)
            g = np.array([[a, b] for a in u for b in v])
            d = np.linalg.norm(cam.pixels_to_table(g + [1.0, 0.0]) - cam.pixels_to_table(g), axis=1)
            px_per_mm = float(np.clip(1.0 / d.min(), 1.0, 3.0))
        self.px_per_mm = s = float(px_per_mm)
        self.origin_mm = (float(lo[0]), float(hi[1]))  # raster (col, row) = (0, 0) <-> (x0, y1)
        self.raster_shape = (int(math.ceil((hi[1] - lo[1]) * s)) + 1, int(math.ceil((hi[0] - lo[0]) * s)) + 1)
        rows, cols = self.raster_shape
        c = self.conditions
        albedo = floor_texture(self.raster_shape, t.seed, c.floor_bgr)
        # The table rectangle in raster pixels (pixel j covers [x0 + j/s, x0 + (j+1)/s)).
        c0, r0 = self.mm_to_raster(np.array([[0.0, t.depth_mm]]))[0] + 0.5
        c1, r1 = self.mm_to_raster(np.array([[t.width_mm, 0.0]]))[0] + 0.5
        c0, r0 = max(0, int(round(c0))), max(0, int(round(r0)))
        c1, r1 = min(cols, int(round(c1))), min(rows, int(round(r1)))
        if c1 > c0 and r1 > r0:
            albedo[r0:r1, c0:c1] = surface_texture(
                c.surface, (r1 - r0, c1 - c0), s, t.seed, c.surface_bgr, c.surface_texture
            )
            # A darker table edge band (its side face) so the table's border reads as an edge.
            albedo[r0:r1, c0:c1][: max(1, int(s * 3))] *= 0.8
        self._albedo = np.clip(albedo, 0, 255).astype(np.uint8)

    def mm_to_raster(self, pts_mm: np.ndarray) -> np.ndarray:
        """Table mm -> continuous raster coordinates (col, row; pixel centres at integers)."""
        s = self.px_per_mm
        p = np.asarray(pts_mm, dtype=float).reshape(-1, 2)
        return np.column_stack(
            [(p[:, 0] - self.origin_mm[0]) * s - 0.5, (self.origin_mm[1] - p[:, 1]) * s - 0.5]
        )

    def _setup_maps(self) -> None:
        cam = self.camera
        key = (cam.key(), self.px_per_mm, self.origin_mm)
        self._map1, self._map2 = _lens_maps(cam, key, self)

    def _setup_light(self) -> None:
        c, cam, t = self.conditions, self.camera, self.table
        az, el = math.radians(c.light_azimuth_deg), math.radians(c.light_elevation_deg)
        self.light_dir = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
        centre = np.array([t.width_mm / 2, t.depth_mm / 2, 0.0])
        self.lamp_mm = centre + LAMP_DISTANCE_MM * self.light_dir
        # Uneven light: smooth random blotches plus a fall-off away from the lamp, in raster space.
        rng = np.random.default_rng(t.seed + 104729)
        rows, cols = self.raster_shape
        small = rng.standard_normal((4, 5)).astype(np.float32)
        blotch = cv2.resize(small, (cols, rows), interpolation=cv2.INTER_CUBIC)
        gx = np.linspace(self.origin_mm[0], self.origin_mm[0] + cols / self.px_per_mm, cols, dtype=np.float32)
        gy = np.linspace(self.origin_mm[1], self.origin_mm[1] - rows / self.px_per_mm, rows, dtype=np.float32)
        dist = np.sqrt(
            (gx[None, :] - self.lamp_mm[0]) ** 2 + (gy[:, None] - self.lamp_mm[1]) ** 2 + self.lamp_mm[2] ** 2
        )
        field_ = 0.5 * blotch / (np.abs(blotch).max() + 1e-6) - 0.5 * (dist - dist.min()) / (
            np.ptp(dist) + 1e-6
        )
        illum = 1.0 + c.uneven_light * (field_ - field_.max())
        illum_img = cv2.remap(
            illum.astype(np.float32),
            self._map1,
            self._map2,
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        h, w = cam.height, cam.width
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - cam.cx) ** 2 + (yy - cam.cy) ** 2) / float((w / 2) ** 2 + (h / 2) ** 2)
        vig = 1.0 - c.vignetting * r2
        gain = illum_img * vig * c.exposure
        self._gain = np.stack([gain * k for k in c.tint_bgr], axis=-1).astype(np.float32)
        # Specular glare where the lamp's mirror image is seen on the table.
        self._glare = None
        if c.glare > 0:
            cpos = cam.pose.position_mm()
            mirror = self.lamp_mm * [1, 1, -1]
            k = cpos[2] / (cpos[2] - mirror[2])
            hit = cpos + k * (mirror - cpos)
            gu, gv = cam.project(hit[None, :2])[0]
            blob = np.exp(-((xx - gu) ** 2 + (yy - gv) ** 2) / (2 * c.glare_radius_px**2)) * (255 * c.glare)
            self._glare = blob.astype(np.float32)

    # ---- per frame ------------------------------------------------------------------------------
    def render(self, scene: Scene, seed: int = 0) -> Frame:
        """Render `scene`; `seed` drives the sensor noise (everything else is in the scene)."""
        if scene.table != self.table:
            raise ValueError("the scene's table differs from the renderer's; build a Renderer for that table")
        cam, c = self.camera, self.conditions
        albedo = self._albedo.copy()
        shadow = np.zeros(self.raster_shape, np.uint8)
        flat: list[Card | Sheet] = [*scene.sheets, *scene.cards]
        # 1-2: thin shadows of flat things, then the things themselves (erasing shadow under them).
        for obj in flat:
            self._shadow_polygon(shadow, obj.corners_mm(), 0.6, min_blur_mm=0.8)
        for obj in flat:
            self._composite_flat(albedo, shadow, obj)
        above = self._above_table_objects(scene)
        for _, kind, obj in above:
            for poly in self._outline_3d(kind, obj):
                self._shadow_polygon(shadow, poly[:, :2], float(poly[:, 2].mean()), polygon_3d=poly)
        # 3: the lens map.
        img = cv2.remap(
            albedo,
            self._map1,
            self._map2,
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=c.floor_bgr,
        )
        shade = cv2.remap(
            shadow, self._map1, self._map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
        )
        # 4: things above the table, far to near, into the image and the label image.
        labels = np.zeros((cam.height, cam.width), np.int32)
        label_of: dict[int, tuple[str, object]] = {}
        for i, (_, kind, obj) in enumerate(above, start=1):
            label_of[i] = (kind, obj)
            self._draw_above(img, labels, i, kind, obj)
        shade[labels > 0] = 0
        # 5: light and sensor.
        out = img.astype(np.float32) * self._gain
        out *= (1.0 - (c.shadow_strength / 255.0) * shade.astype(np.float32))[..., None]
        if self._glare is not None:
            out += self._glare[..., None]
        if scene.projection is not None:
            out += self._projection_light(scene.projection, img)
        if c.defocus_sigma_px > 0:
            out = cv2.GaussianBlur(out, (0, 0), c.defocus_sigma_px)
        if c.motion_blur_px >= 1:
            out = cv2.filter2D(out, -1, _line_kernel(c.motion_blur_px, c.motion_angle_deg))
        if c.noise_sigma > 0:
            rng = np.random.default_rng(seed)
            sigma = c.noise_sigma * np.sqrt(np.clip(out, 4.0, 255.0) / 128.0)
            out += rng.standard_normal(out.shape, dtype=np.float32) * sigma
        image = np.clip(out + 0.5, 0, 255).astype(np.uint8)
        jpeg = None
        if c.jpeg_quality is not None:
            ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(c.jpeg_quality)])
            jpeg = buf.tobytes()
            image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        truth = frame_truth(scene, cam, labels, label_of)
        truth["conditions"] = c.to_json()
        truth["noise_seed"] = seed
        return Frame(image, truth, jpeg, labels)

    # ---- flat things ----------------------------------------------------------------------------
    def _composite_flat(self, albedo: np.ndarray, shadow: np.ndarray, obj: Card | Sheet) -> None:
        s = self.px_per_mm
        if isinstance(obj, Card):
            tex, alpha = _texture(
                obj.name, obj.face_up, tuple(obj.size_mm), s, self.conditions.card_stock_bgr
            )
        else:
            tex, alpha = _sheet_texture(obj, s)
        th, tw = alpha.shape
        # Texture corner pixels' outer edges map to the object's corners (art TL, TR, BL).
        corners = self.mm_to_raster(obj.corners_mm())
        src = np.float32([[-0.5, -0.5], [tw - 0.5, -0.5], [-0.5, th - 0.5]])
        dst = np.float32([corners[0], corners[1], corners[3]])
        lo = np.floor(corners.min(axis=0)).astype(int) - 2
        hi = np.ceil(corners.max(axis=0)).astype(int) + 3
        rows, cols = self.raster_shape
        x0, y0 = max(lo[0], 0), max(lo[1], 0)
        x1, y1 = min(hi[0], cols), min(hi[1], rows)
        if x1 <= x0 or y1 <= y0:
            return
        m = cv2.getAffineTransform(src, dst - np.float32([x0, y0]))
        size = (x1 - x0, y1 - y0)
        # The colour runs on past the edge (replicated) and alpha alone says how much of a pixel
        # the card covers: a black border mixed into the colour too would count the edge twice
        # (alpha squared), drawing every card ~0.2 px small with a dark rim.
        warped = cv2.warpAffine(tex, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        a = cv2.warpAffine(alpha, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        roi = albedo[y0:y1, x0:x1]
        roi[:] = np.clip(roi * (1 - a[..., None]) + warped * a[..., None], 0, 255).astype(np.uint8)
        sroi = shadow[y0:y1, x0:x1]
        sroi[:] = (sroi * (1 - a)).astype(np.uint8)

    def _shadow_polygon(
        self,
        shadow: np.ndarray,
        pts_mm: np.ndarray,
        height_mm: float,
        min_blur_mm: float = 1.0,
        polygon_3d: np.ndarray | None = None,
    ) -> None:
        """Max-combine the soft shadow of a polygon at `height_mm` into the raster mask."""
        ldx, ldy, ldz = self.light_dir
        if polygon_3d is not None:
            z = polygon_3d[:, 2:3]
            foot = polygon_3d[:, :2] - z * np.array([ldx, ldy]) / ldz
        else:
            foot = np.asarray(pts_mm, float) - height_mm * np.array([ldx, ldy]) / ldz
        sigma = max(min_blur_mm, self.conditions.shadow_softness_mm * height_mm / 10.0) * self.px_per_mm
        r = self.mm_to_raster(foot)
        pad = int(3 * sigma) + 2
        lo = np.floor(r.min(axis=0)).astype(int) - pad
        hi = np.ceil(r.max(axis=0)).astype(int) + pad
        rows, cols = self.raster_shape
        x0, y0, x1, y1 = max(lo[0], 0), max(lo[1], 0), min(hi[0], cols), min(hi[1], rows)
        if x1 <= x0 or y1 <= y0:
            return
        patch = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(patch, [np.round((r - [x0, y0]) * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
        np.maximum(shadow[y0:y1, x0:x1], _soft(patch, sigma), out=shadow[y0:y1, x0:x1])

    def _projection_light(self, proj, img: np.ndarray) -> np.ndarray:
        x0, y0, x1, y1 = proj.extent_mm
        ph, pw = proj.image.shape[:2]
        src = np.float32([[-0.5, -0.5], [pw - 0.5, -0.5], [-0.5, ph - 0.5]])
        dst = np.float32(self.mm_to_raster(np.array([[x0, y1], [x1, y1], [x0, y0]])))
        m = cv2.getAffineTransform(src, dst)
        rows, cols = self.raster_shape
        layer = cv2.warpAffine(proj.image, m, (cols, rows), flags=cv2.INTER_LINEAR)
        light = cv2.remap(layer, self._map1, self._map2, cv2.INTER_LINEAR, borderValue=(0, 0, 0))
        # Light adds in proportion to how much the surface reflects.
        return light.astype(np.float32) * (img.astype(np.float32) / 255.0) * proj.strength

    # ---- above the table ------------------------------------------------------------------------
    def _above_table_objects(self, scene: Scene) -> list[tuple[float, str, object]]:
        cpos = self.camera.pose.position_mm()
        items: list[tuple[float, str, object]] = []
        for p in scene.pawns:
            items.append((float(np.linalg.norm(np.array([*p.center_mm, p.height_mm]) - cpos)), "pawn", p))
        for hc in scene.held_cards:
            items.append((float(np.linalg.norm(np.array([*hc.center_mm, hc.height_mm]) - cpos)), "held", hc))
        for h in scene.hands:
            if h.holding is not None:
                items.append(
                    (
                        float(np.linalg.norm(np.array([*h.holding.center_mm, h.holding.height_mm]) - cpos))
                        + 1e-3,
                        "held",
                        h.holding,
                    )
                )
            items.append((float(np.linalg.norm(np.array([*h.tip_mm, h.height_mm]) - cpos)) - 1e-3, "hand", h))
        # Painter's order: hands always over what they hold and over pawns; otherwise far first.
        order = {"pawn": 0, "held": 1, "hand": 2}
        items.sort(key=lambda t: (order[t[1]], -t[0]))
        return items

    def _outline_3d(self, kind: str, obj: object) -> list[np.ndarray]:
        if kind == "pawn":
            return _pawn_parts(obj, self.camera)  # type: ignore[arg-type]
        if kind == "held":
            return [obj.corners_mm()]  # type: ignore[attr-defined]
        return [p for p, _ in _hand_parts(obj)]  # type: ignore[arg-type]

    def _draw_above(self, img: np.ndarray, labels: np.ndarray, label: int, kind: str, obj: object) -> None:
        if kind == "pawn":
            _draw_pawn(img, labels, label, obj, self.camera)  # type: ignore[arg-type]
        elif kind == "held":
            self._draw_held(img, labels, label, obj)  # type: ignore[arg-type]
        else:
            _draw_hand(img, labels, label, obj, self.camera)  # type: ignore[arg-type]

    def _draw_held(self, img: np.ndarray, labels: np.ndarray, label: int, hc: HeldCard) -> None:
        cam = self.camera
        tex, alpha = _texture(
            hc.name, hc.face_up, tuple(hc.size_mm), ART_PX_PER_MM, self.conditions.card_stock_bgr
        )
        th, tw = alpha.shape
        px = cam.project(hc.corners_mm())
        src = np.float32([[-0.5, -0.5], [tw - 0.5, -0.5], [tw - 0.5, th - 0.5], [-0.5, th - 0.5]])
        roi = _roi(px, cam.width, cam.height, pad=3 + 2 * (hc.count - 1))
        if roi is None:
            return
        x0, y0, x1, y1 = roi
        m = cv2.getPerspectiveTransform(src, np.float32(px - [x0, y0]))
        size = (x1 - x0, y1 - y0)
        warped = cv2.warpPerspective(tex, m, size, flags=cv2.INTER_LINEAR)
        a = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR)
        if hc.count > 1:  # the stack's edge below the top card
            edge = cv2.dilate(
                (a > 0.5).astype(np.uint8), np.ones((2 * hc.count - 1, 1), np.uint8), anchor=(0, 0)
            )
            ea = np.maximum(a, edge.astype(np.float32))
            warped = np.where((a < 0.5)[..., None] & (edge > 0)[..., None], np.float32(200), warped)
            a = ea
        r = img[y0:y1, x0:x1]
        r[:] = np.clip(r * (1 - a[..., None]) + warped * a[..., None], 0, 255).astype(np.uint8)
        labels[y0:y1, x0:x1][a > 0.5] = label


def _roi(px: np.ndarray, w: int, h: int, pad: int = 3) -> tuple[int, int, int, int] | None:
    lo = np.floor(px.min(axis=0)).astype(int) - pad
    hi = np.ceil(px.max(axis=0)).astype(int) + pad
    x0, y0, x1, y1 = max(lo[0], 0), max(lo[1], 0), min(hi[0], w), min(hi[1], h)
    if x1 <= x0 or y1 <= y0:
        return None
    return int(x0), int(y0), int(x1), int(y1)


_MAP_CACHE: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _lens_maps(cam: Camera, key: tuple, r: Renderer) -> tuple[np.ndarray, np.ndarray]:
    """For each pixel of the distorted image, where its ray meets the table, in raster pixels."""
    if key not in _MAP_CACHE:
        h, w = cam.height, cam.width
        yy, xx = np.mgrid[0:h, 0:w]
        px = np.column_stack([xx.ravel(), yy.ravel()]).astype(np.float64)
        table = cam.pixels_to_table(px)
        rc = r.mm_to_raster(table).astype(np.float32)
        mx = rc[:, 0].reshape(h, w)
        my = rc[:, 1].reshape(h, w)
        # Fixed-point maps: faster remap, 1/32 raster pixel precision.
        if len(_MAP_CACHE) > 8:
            _MAP_CACHE.clear()
        _MAP_CACHE[key] = cv2.convertMaps(mx, my, cv2.CV_16SC2)
    return _MAP_CACHE[key]


def _line_kernel(length: float, angle_deg: float) -> np.ndarray:
    n = int(math.ceil(length)) | 1
    k = np.zeros((n, n), np.float32)
    c = n // 2
    a = math.radians(angle_deg)
    dx, dy = math.cos(a) * (length - 1) / 2, math.sin(a) * (length - 1) / 2
    cv2.line(
        k,
        (int(round(c - dx)), int(round(c - dy))),
        (int(round(c + dx)), int(round(c + dy))),
        1.0,
        1,
        cv2.LINE_AA,
    )
    return k / k.sum()


def _sheet_texture(sheet: Sheet, px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
    w = max(2, int(round(sheet.size_mm[0] * px_per_mm)))
    h = max(2, int(round(sheet.size_mm[1] * px_per_mm)))
    im = sheet.image
    if im.ndim == 2:
        im = cv2.cvtColor(im, cv2.COLOR_GRAY2BGR)
    interp = cv2.INTER_AREA if w < im.shape[1] else cv2.INTER_LINEAR
    tex = cv2.resize(im, (w, h), interpolation=interp).astype(np.float32)
    return tex, np.ones((h, w), np.float32)


# ---- pawns ---------------------------------------------------------------------------------------
PAWN_DISC = (11.0, 8.0)  # radius, height (mm)
STANDEE = (22.0, 42.0, 12.0, 4.0)  # width, height, base radius, base height (mm)


def _circle(center: np.ndarray, radius: float, z: float, n: int = 40) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([center[0] + radius * np.cos(a), center[1] + radius * np.sin(a), np.full(n, z)])


def _standee_outline(p: Pawn, cam: Camera) -> np.ndarray:
    """The standee's figure: a flat upright silhouette facing the camera."""
    w, h, _, bh = STANDEE
    c = np.asarray(p.center_mm, float)
    cpos = cam.pose.position_mm()
    view = c - cpos[:2]
    n = np.linalg.norm(view)
    side = np.array([1.0, 0.0]) if n < 1e-6 else np.array([view[1], -view[0]]) / n
    # Head circle on a tapered body, in (sideways, up) mm.
    body = [(-w / 2, 0), (w / 2, 0), (w * 0.3, h * 0.62), (-w * 0.3, h * 0.62)]
    a = np.linspace(-np.pi * 0.2, np.pi * 1.2, 14)
    head = [(w * 0.3 * math.cos(t), h * 0.78 + w * 0.3 * math.sin(t)) for t in a]
    pts = body[:3] + head + body[3:]
    z0 = p.height_mm + bh
    return np.array([[*(c + side * s), z0 + up] for s, up in pts])


def _pawn_parts(p: Pawn, cam: Camera) -> list[np.ndarray]:
    c = np.asarray(p.center_mm, float)
    if p.style == "disc":
        r, h = PAWN_DISC
        return [_circle(c, r, p.height_mm + h)]
    _, _, br, bh = STANDEE
    return [_circle(c, br, p.height_mm + bh), _standee_outline(p, cam)]


def _fill(img: np.ndarray, labels: np.ndarray, label: int, px: np.ndarray, color, cam: Camera) -> None:
    roi = _roi(px, cam.width, cam.height)
    if roi is None:
        return
    x0, y0, x1, y1 = roi
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(m, [np.round((px - [x0, y0]) * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    a = (m.astype(np.float32) / 255.0)[..., None]
    r = img[y0:y1, x0:x1]
    r[:] = np.clip(r * (1 - a) + np.array(color, np.float32) * a, 0, 255).astype(np.uint8)
    labels[y0:y1, x0:x1][m > 127] = label


def _solid(
    img, labels, label, bottom: np.ndarray, top: np.ndarray, side_color, top_color, cam: Camera
) -> None:
    pb, pt = cam.project(bottom), cam.project(top)
    hull = cv2.convexHull(np.concatenate([pb, pt]).astype(np.float32)).reshape(-1, 2)
    _fill(img, labels, label, hull.astype(float), side_color, cam)
    _fill(img, labels, label, pt, top_color, cam)


def _draw_pawn(img, labels, label: int, p: Pawn, cam: Camera) -> None:
    col = np.array(PAWN_COLORS[p.color], float)
    c = np.asarray(p.center_mm, float)
    if p.style == "disc":
        r, h = PAWN_DISC
        _solid(
            img,
            labels,
            label,
            _circle(c, r, p.height_mm),
            _circle(c, r, p.height_mm + h),
            col * 0.6,
            col,
            cam,
        )
        return
    w, sh, br, bh = STANDEE
    _solid(
        img,
        labels,
        label,
        _circle(c, br, p.height_mm),
        _circle(c, br, p.height_mm + bh),
        (40, 40, 40),
        (70, 70, 70),
        cam,
    )
    fig = cam.project(_standee_outline(p, cam))
    _fill(img, labels, label, fig, col * 0.92, cam)
    # A lighter print on the figure so it is not a flat blob.
    inner = fig.mean(axis=0) + (fig - fig.mean(axis=0)) * 0.55
    _fill(img, labels, label, inner, np.minimum(col * 1.25 + 20, 255), cam)


# ---- hands ---------------------------------------------------------------------------------------
def _hand_parts(hand: Hand) -> list[tuple[np.ndarray, str]]:
    """3-D polygons (N x 3, mm) of forearm, palm, fingers and thumb, with their material."""
    tip = np.asarray(hand.tip_mm, float)
    frm = np.asarray(hand.from_mm, float)
    d = tip - frm
    length = float(np.linalg.norm(d))
    d = d / length if length > 1e-6 else np.array([0.0, 1.0])
    n = np.array([-d[1], d[0]])
    k = hand.width_mm / 85.0
    finger, palm = 75.0 * k, 95.0 * k
    z = hand.height_mm

    def at(u: float, v: float, dz: float = 0.0) -> list[float]:
        p = tip - d * u + n * v
        return [p[0], p[1], z + dz + 0.12 * max(u - finger, 0.0)]  # the arm rises toward the player

    parts: list[tuple[np.ndarray, str]] = []
    wrist = finger + palm
    arm_end = max(length, wrist + 60.0)
    half = hand.width_mm / 2
    sleeve_from = wrist + 0.45 * (arm_end - wrist)
    parts.append(
        (
            np.array(
                [
                    at(wrist - 10, -0.36 * hand.width_mm),
                    at(wrist - 10, 0.36 * hand.width_mm),
                    at(sleeve_from + 5, 0.45 * hand.width_mm),
                    at(sleeve_from + 5, -0.45 * hand.width_mm),
                ]
            ),
            "skin",
        )
    )
    parts.append(
        (
            np.array(
                [
                    at(sleeve_from, -0.55 * hand.width_mm),
                    at(sleeve_from, 0.55 * hand.width_mm),
                    at(arm_end, 0.6 * hand.width_mm),
                    at(arm_end, -0.6 * hand.width_mm),
                ]
            ),
            "sleeve",
        )
    )
    a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    parts.append(
        (np.array([at(finger + palm / 2 + palm / 2 * math.cos(t), half * math.sin(t), 5) for t in a]), "skin")
    )
    fw = 0.2 * hand.width_mm
    for i, v in enumerate((-0.31, -0.1, 0.1, 0.31)):
        fl = finger * (0.8 if i in (0, 3) else 1.0)
        vv = v * hand.width_mm
        spread = v * 0.3 * hand.width_mm
        parts.append(
            (_capsule(at, (finger + 10, vv), (finger - fl + fw / 2, vv + spread), fw / 2, 3.0), "skin")
        )
    # The thumb, on the hand's right side (a right hand seen from above, palm down).
    parts.append(
        (
            _capsule(
                at, (finger + palm * 0.75, -half * 0.8), (finger * 0.85, -half - 8 * k), fw / 2 * 1.1, 4.0
            ),
            "skin",
        )
    )
    return parts


def _capsule(at, a: tuple[float, float], b: tuple[float, float], r: float, dz: float) -> np.ndarray:
    """A finger: a rounded bar from a to b in the hand's (u, v) coordinates, r its half width."""
    a_, b_ = np.asarray(a, float), np.asarray(b, float)
    d = b_ - a_
    d = d / max(float(np.linalg.norm(d)), 1e-9)
    n = np.array([-d[1], d[0]])
    pts = [b_ + r * (math.cos(t) * d + math.sin(t) * n) for t in np.linspace(-np.pi / 2, np.pi / 2, 7)]
    pts += [a_ + r * (math.cos(t) * d + math.sin(t) * n) for t in np.linspace(np.pi / 2, 3 * np.pi / 2, 5)]
    return np.array([at(u, v, dz) for u, v in pts])


def _draw_hand(img, labels, label: int, hand: Hand, cam: Camera) -> None:
    parts = _hand_parts(hand)
    projected = []
    for poly, material in parts:
        # Keep every point in front of the camera: clamp depth along the ray (never happens for
        # a hand over the table, but an arm's far end may reach toward the lens).
        cam_pts = cam.to_camera(poly)
        if np.any(cam_pts[:, 2] < 50.0):
            continue
        projected.append((cam.project(poly), material))
    if not projected:
        return
    allpx = np.concatenate([p for p, _ in projected])
    roi = _roi(allpx, cam.width, cam.height, pad=4)
    if roi is None:
        return
    x0, y0, x1, y1 = roi
    size = (y1 - y0, x1 - x0)
    skin_m = np.zeros(size, np.uint8)
    sleeve_m = np.zeros(size, np.uint8)
    for px, material in projected:
        m = skin_m if material == "skin" else sleeve_m
        cv2.fillPoly(m, [np.round((px - [x0, y0]) * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    skin_m = np.where(sleeve_m > 127, 0, skin_m).astype(np.uint8)
    mask = np.maximum(skin_m, sleeve_m).astype(np.float32) / 255.0
    # Rounded look: darker toward the outline (a blurred mask is a cheap thickness estimate).
    scale = max(3.0, 0.02 * max(size))
    thick = cv2.GaussianBlur(mask, (0, 0), scale)
    shading = 0.55 + 0.5 * np.clip(thick * 1.6, 0, 1)
    colour = np.where(
        (sleeve_m > 127)[..., None], np.array(hand.sleeve, np.float32), np.array(hand.skin, np.float32)
    )
    colour = colour * shading[..., None]
    r = img[y0:y1, x0:x1]
    a = mask[..., None]
    r[:] = np.clip(r * (1 - a) + colour * a, 0, 255).astype(np.uint8)
    labels[y0:y1, x0:x1][mask > 0.5] = label


def _soft(mask: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur of a mask; a wide blur is done at a reduced scale (it removes the fine
    detail anyway), which makes a hand's soft shadow ~10x cheaper at 1080p."""
    step = int(sigma // 4)
    if step < 2:
        return cv2.GaussianBlur(mask, (0, 0), sigma)
    h, w = mask.shape
    small = cv2.resize(mask, (max(1, w // step), max(1, h // step)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / step)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
