"""Calibration accuracy on rendered views with known truth.

    python -m bench.calibration [--quick] [--seed N]
    python -m bench.calibration --coverage   # whole-view error vs lens views and image coverage
    python -m bench.calibration --blur       # edge width vs blur, and when the board is found
    python -m bench.calibration --error-map  # reported vs true error over the whole table (issue 25)

A known pinhole camera with barrel distortion photographs the printed board (intrinsics views),
then the board lying on the table (table view), then the projector's marker pattern falling on
the table and on cards (projector view). Each step is calibrated from the rendered pixels by
calibration/, and compared with the truth:

    focal error %            goal < 1 %
    reprojection RMS px      goal < 0.5 px
    table error mm RMS       goal < 0.5 mm, over a grid across the whole visible table
    projector error px RMS   goal < 1 projector px, over the projected area on the table

The baseline, run on the same images, is what you get without the lens step: a plain homography
on the raw (distorted) pixels. Ratios are baseline error / calibrated error.

The renderer below (a plane seen through a distorted pinhole, by inverse mapping each
supersampled pixel) is test-side support shared with tests/test_calibration*.py; it lives here,
not in calibration/, and can later merge with vision/synthetic.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, field
from functools import cached_property

import cv2
import numpy as np

from calibration import (
    BoardPlacement,
    BoardSpec,
    Calibration,
    ProjectorPattern,
    calibrate_intrinsics,
    detect_board,
    fit_projector,
    fit_table,
)
from calibration.intrinsics import IntrinsicsResult
from calibration.targets import PX_PER_MM, page_spec, render_page

SSAA = 2  # supersampling per axis


# ---- the renderer ------------------------------------------------------------------------------
@dataclass
class SimCamera:
    """Pinhole camera with OpenCV distortion (k1, k2, p1, p2, k3); the truth of every scene."""

    width: int = 1280
    height: int = 720
    fx: float = 1066.0
    fy: float = 1066.0
    cx: float = 641.3
    cy: float = 358.2
    dist: tuple[float, ...] = (-0.12, 0.06, 0.0005, -0.0003, 0.0)

    @property
    def matrix(self) -> np.ndarray:
        return np.array([[self.fx, 0, self.cx], [0, self.fy, self.cy], [0, 0, 1]], float)

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height

    def project(self, points3: np.ndarray, rvec: np.ndarray, tvec: np.ndarray) -> np.ndarray:
        px, _ = cv2.projectPoints(
            np.asarray(points3, float).reshape(-1, 1, 3), rvec, tvec, self.matrix, np.array(self.dist)
        )
        return px.reshape(-1, 2)

    def ideal_normalized(self, px: np.ndarray) -> np.ndarray:
        """Ideal normalised coordinates of distorted pixels, checked against projectPoints (the truth)."""
        pts = np.asarray(px, np.float64).reshape(-1, 1, 2)
        crit = (cv2.TERM_CRITERIA_COUNT + cv2.TERM_CRITERIA_EPS, 100, 1e-12)
        if hasattr(cv2, "undistortPointsIter"):  # OpenCV 4.x
            n = cv2.undistortPointsIter(pts, self.matrix, np.array(self.dist), None, None, crit)
        else:  # OpenCV 5: criteria became an argument of undistortPoints
            n = cv2.undistortPoints(pts, self.matrix, np.array(self.dist), criteria=crit)
        return n.reshape(-1, 2)

    @cached_property
    def ray_grid(self) -> np.ndarray:
        """Ideal normalised coordinates of every supersampled pixel centre (H*S x W*S x 2), computed
        exactly on a coarse grid and interpolated (the lens field is smooth)."""
        step = 8
        ws, hs = self.width * SSAA, self.height * SSAA
        gx = np.arange(0, ws + step, step, dtype=float)
        gy = np.arange(0, hs + step, step, dtype=float)
        u, v = np.meshgrid((gx + 0.5) / SSAA - 0.5, (gy + 0.5) / SSAA - 0.5)
        n = self.ideal_normalized(np.column_stack([u.ravel(), v.ravel()]))
        back = self.project(np.column_stack([n, np.ones(len(n))]), np.zeros(3), np.zeros(3))
        assert np.abs(back - np.column_stack([u.ravel(), v.ravel()])).max() < 1e-4, (
            "lens inverse did not converge"
        )
        n = n.reshape(len(gy), len(gx), 2).astype(np.float32)
        # Bilinear interpolation of the coarse field at every supersampled pixel.
        mx, my = np.meshgrid(np.arange(ws, dtype=np.float32) / step, np.arange(hs, dtype=np.float32) / step)
        return np.dstack([cv2.remap(n[..., i], mx, my, cv2.INTER_LINEAR) for i in range(2)])

    def plane_coords(self, rvec: np.ndarray, tvec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Plane (z = 0) mm seen by each supersampled pixel, and a mask of pixels that see it."""
        r = cv2.Rodrigues(np.asarray(rvec, float))[0]
        hinv = np.linalg.inv(np.column_stack([r[:, 0], r[:, 1], np.asarray(tvec, float).ravel()]))
        g = self.ray_grid
        q = g[..., 0:1] * hinv[:, 0] + g[..., 1:2] * hinv[:, 1] + hinv[:, 2]
        w = q[..., 2]
        ok = w > 1e-9
        w = np.where(ok, w, 1.0)
        return np.dstack([q[..., 0] / w, q[..., 1] / w]), ok


@dataclass
class Layer:
    """A flat picture on the plane: texture pixels -> plane mm is x_mm = origin + (col + 0.5) / px_per_mm."""

    texture: np.ndarray  # float32 grey, 0..1
    px_per_mm: float
    origin_mm: tuple[float, float] = (0.0, 0.0)
    rotation_deg: float = 0.0  # CCW about origin_mm

    def sample(self, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a = math.radians(self.rotation_deg)
        d = xy - np.asarray(self.origin_mm, np.float32)
        lx = d[..., 0] * math.cos(a) + d[..., 1] * math.sin(a)
        ly = -d[..., 0] * math.sin(a) + d[..., 1] * math.cos(a)
        mx = (lx * self.px_per_mm - 0.5).astype(np.float32)
        my = (ly * self.px_per_mm - 0.5).astype(np.float32)
        val = cv2.remap(self.texture, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        alpha = cv2.remap(
            np.ones_like(self.texture),
            mx,
            my,
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=0,
        )
        return val, alpha


@dataclass
class Scene:
    """Layers on one plane, optional projector light, seen by a camera at (rvec, tvec)."""

    camera: SimCamera
    rvec: np.ndarray
    tvec: np.ndarray
    layers: list[Layer] = field(default_factory=list)
    background: float = 0.35
    ambient: float = 1.0
    projector: np.ndarray | None = None  # projector image (float 0..1)
    plane_to_projector: np.ndarray | None = None
    projector_gain: float = 1.6
    occluders: list[np.ndarray] = field(default_factory=list)  # polygons in image px, drawn dark on top
    noise: float = 1.5
    seed: int = 0

    def render(self) -> np.ndarray:
        xy, ok = self.camera.plane_coords(self.rvec, self.tvec)
        xy = xy.astype(np.float32)
        albedo = np.full(ok.shape, self.background, np.float32)
        for layer in self.layers:
            val, alpha = layer.sample(xy)
            albedo = alpha * val + (1 - alpha) * albedo
        light = np.full(ok.shape, self.ambient, np.float32)
        if self.projector is not None:
            h = self.plane_to_projector
            q = xy[..., 0:1] * h[:, 0] + xy[..., 1:2] * h[:, 1] + h[:, 2]
            mx = (q[..., 0] / q[..., 2]).astype(np.float32)
            my = (q[..., 1] / q[..., 2]).astype(np.float32)
            lit = cv2.remap(
                self.projector.astype(np.float32),
                mx,
                my,
                cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_CONSTANT,
                borderValue=0,
            )
            light = light + self.projector_gain * lit
        img = np.where(ok, albedo * light, 0.05) * 255 * 0.8
        img = cv2.resize(img, self.camera.size, interpolation=cv2.INTER_AREA)
        for poly in self.occluders:
            cv2.fillPoly(img, [np.round(np.asarray(poly) * 16).astype(np.int32)], 40.0, cv2.LINE_AA, 4)
        rng = np.random.default_rng(self.seed)
        img = cv2.GaussianBlur(img, (0, 0), 0.5) + rng.normal(0, self.noise, img.shape)
        return cv2.cvtColor(np.clip(img, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)


# ---- scene builders ----------------------------------------------------------------------------
def page_layer(
    paper: str = "a4", print_scale: float = 1.0, board: BoardSpec | None = None
) -> tuple[Layer, BoardSpec]:
    """The printed page (of `board`, by default the standard board) as a layer in the *board*
    frame, and the nominal spec. A print below 100 % shrinks the picture about the page centre,
    as a printer's 'fit to page' does."""
    spec = page_spec(paper, board)
    page = render_page(spec).astype(np.float32) / 255 * 0.92  # paper is not a perfect white
    if print_scale != 1.0:
        h, w = page.shape
        m = np.array(
            [[print_scale, 0, (1 - print_scale) * w / 2], [0, print_scale, (1 - print_scale) * h / 2]]
        )
        page = cv2.warpAffine(page, m, (w, h), flags=cv2.INTER_AREA, borderValue=0.92)
    ox, oy = spec.board_offset_mm
    pw, ph = spec.paper_mm
    # Board frame origin on the printed page: the board corner moves with the shrink.
    bx = pw / 2 + print_scale * (ox - pw / 2)
    by = ph / 2 + print_scale * (oy - ph / 2)
    return Layer(page, PX_PER_MM, (-bx / print_scale, -by / print_scale), 0.0), spec


def board_pose_in_view(
    camera: SimCamera,
    u: float,
    v: float,
    distance_mm: float,
    tilt_deg: float,
    tilt_dir_deg: float,
    spin_deg: float,
    spec: BoardSpec,
) -> tuple[np.ndarray, np.ndarray]:
    """rvec, tvec of a board whose centre appears near pixel (u, v), `distance_mm` away, tilted
    `tilt_deg` about an axis at `tilt_dir_deg` in its plane and spun `spin_deg` about its normal."""
    ray = np.array([(u - camera.cx) / camera.fx, (v - camera.cy) / camera.fy, 1.0])
    centre = ray / np.linalg.norm(ray) * distance_mm
    spin = cv2.Rodrigues(np.array([0, 0, math.radians(spin_deg)]))[0]
    axis = np.array([math.cos(math.radians(tilt_dir_deg)), math.sin(math.radians(tilt_dir_deg)), 0.0])
    tilt = cv2.Rodrigues(axis * math.radians(tilt_deg))[0]
    r = tilt @ spin
    bw, bh = spec.size_mm
    t = centre - r @ np.array([bw / 2, bh / 2, 0.0])
    return cv2.Rodrigues(r)[0].ravel(), t


SPREAD_SPOTS = [
    (0.5, 0.5),
    (0.2, 0.22),
    (0.8, 0.22),
    (0.2, 0.78),
    (0.8, 0.78),
    (0.5, 0.22),
    (0.5, 0.78),
    (0.15, 0.5),
    (0.85, 0.5),
]
# Views a hurried user takes: the board held near the middle of the picture only.
MIDDLE_SPOTS = [(0.5, 0.5), (0.4, 0.4), (0.6, 0.6), (0.4, 0.6), (0.6, 0.4)]


def intrinsics_views(
    camera: SimCamera,
    n: int,
    seed: int,
    layer: Layer,
    spec: BoardSpec,
    spots: list[tuple[float, float]] = SPREAD_SPOTS,  # noqa: B006  (never mutated)
) -> list[np.ndarray]:
    """`n` photos of the board held around the image (centres at `spots`, image fractions, in
    turn; by default every region is visited), tilts up to 45 degrees."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        fu, fv = spots[i % len(spots)]
        fu, fv = fu + rng.uniform(-0.04, 0.04), fv + rng.uniform(-0.04, 0.04)
        dist = rng.uniform(420, 620) if i % len(spots) == 0 else rng.uniform(480, 700)
        rvec, tvec = board_pose_in_view(
            camera,
            fu * camera.width,
            fv * camera.height,
            dist,
            rng.uniform(15, 45),
            rng.uniform(0, 360),
            rng.uniform(-25, 25),
            spec,
        )
        out.append(Scene(camera, rvec, tvec, [layer], background=0.3, seed=seed * 100 + i).render())
    return out


def table_pose(
    height_mm: float = 900.0, tilt_deg: float = 25.0, target_mm: tuple[float, float] = (600.0, 380.0)
) -> tuple[np.ndarray, np.ndarray]:
    """Camera over the table (the rules' table frame), looking toward +y and down by `tilt_deg`
    from vertical."""
    t = math.radians(tilt_deg)
    right = np.array([1.0, 0, 0])
    forward = np.array([0.0, math.sin(t), -math.cos(t)])
    down = np.cross(forward, right)
    r = np.stack([right, down, forward])
    pos = np.array([target_mm[0], target_mm[1] - height_mm * math.tan(t), height_mm])
    return cv2.Rodrigues(r)[0].ravel(), -r @ pos


def true_table_mm(camera: SimCamera, rvec: np.ndarray, tvec: np.ndarray, px: np.ndarray) -> np.ndarray:
    """Where the rays through distorted pixels meet the table: the truth for table error."""
    r = cv2.Rodrigues(rvec)[0]
    hinv = np.linalg.inv(np.column_stack([r[:, 0], r[:, 1], tvec]))
    n = camera.ideal_normalized(px)
    q = np.column_stack([n, np.ones(len(n))]) @ hinv.T
    return q[:, :2] / q[:, 2:3]


def board_layer_on_table(page: Layer, spec: BoardSpec, placement: BoardPlacement) -> Layer:
    """The page layer moved from the board frame (y down the page) into table mm at `placement`.
    Table = origin + R(rot) @ (bx, H - by): a flip, so the texture is flipped vertically."""
    tex = page.texture[::-1].copy()
    h_px = tex.shape[0]
    # In the flipped texture, row 0 is the page bottom; the board frame's y maps to H - by.
    bh = spec.size_mm[1]
    ox, oy = page.origin_mm  # page top-left in board frame
    page_h_mm = h_px / page.px_per_mm
    local_origin = np.array([ox, bh - (oy + page_h_mm)])  # page bottom-left in the board's sheet frame
    a = math.radians(placement.rotation_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    origin = np.asarray(placement.origin_mm) + rot @ local_origin
    return Layer(tex, page.px_per_mm, (float(origin[0]), float(origin[1])), placement.rotation_deg)


def table_texture(seed: int, extent=(-300.0, -300.0, 1500.0, 1100.0), px_per_mm: float = 1.0) -> Layer:
    """A darker wood-ish table: smooth random grain so homographies cannot lean on a flat field."""
    rng = np.random.default_rng(seed)
    w, h = int((extent[2] - extent[0]) * px_per_mm), int((extent[3] - extent[1]) * px_per_mm)
    grain = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 6)
    grain = 0.33 + 0.05 * grain / (grain.std() + 1e-9)
    return Layer(grain.astype(np.float32), px_per_mm, (extent[0], extent[1]))


def card_layers(seed: int, centres_mm: list[tuple[float, float]], size=(63.0, 88.0)) -> list[Layer]:
    """Plain white cards with a dark frame and dark art: what projector light must cope with."""
    rng = np.random.default_rng(seed)
    out = []
    s = 4.0
    for cx, cy in centres_mm:
        w, h = int(size[0] * s), int(size[1] * s)
        card = np.full((h, w), 0.9, np.float32)
        cv2.rectangle(card, (8, 8), (w - 9, h - 9), 0.25, 10)
        cv2.circle(card, (w // 2, h // 2), int(w * 0.3), float(rng.uniform(0.05, 0.3)), -1)
        rot = float(rng.uniform(0, 360))
        a = math.radians(rot)
        rm = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        origin = np.array([cx, cy]) - rm @ np.array([size[0] / 2, size[1] / 2])
        out.append(Layer(card, s, (float(origin[0]), float(origin[1])), rot))
    return out


def projector_truth(
    table_rect=(80.0, 60.0, 1120.0, 700.0), size=(1920, 1080), keystone: float = 0.04
) -> np.ndarray:
    """A true table mm -> projector px homography: the projector's image covers `table_rect`,
    slightly keystoned (its far edge a little wider)."""
    x0, y0, x1, y1 = table_rect
    k = (x1 - x0) * keystone
    table = np.array(
        [[x0 - k, y1], [x1 + k, y1], [x1, y0], [x0, y0]], np.float32
    )  # far edge is projector top
    w, h = size
    proj = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - 0.5
    return cv2.getPerspectiveTransform(table, proj)


# ---- the benchmark -----------------------------------------------------------------------------
def rms(a: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(a))))


def run(quick: bool, seed: int) -> dict:
    cam = SimCamera()
    page, spec = page_layer("a4")
    t0 = time.perf_counter()
    views = intrinsics_views(cam, 10 if quick else 16, seed, page, spec)
    render_s = time.perf_counter() - t0
    found = []
    for img in views:
        try:
            found.append(detect_board(img, spec))
        except ValueError:
            pass
    lens = calibrate_intrinsics(found)
    focal_err = 100 * max(
        abs(lens.camera_matrix[0, 0] / cam.fx - 1), abs(lens.camera_matrix[1, 1] / cam.fy - 1)
    )

    # Table view: board on the table, camera above the contestant edge looking across.
    placement = BoardPlacement((480.0, 160.0), 8.0)
    rvec, tvec = table_pose()
    layers = [table_texture(seed), board_layer_on_table(page, spec, placement)]
    table_img = Scene(cam, rvec, tvec, layers, seed=seed + 7).render()
    view = detect_board(table_img, spec)
    fit_lens = fit_table(view, spec, placement, lens.camera_matrix, lens.distortion)
    fit_raw = fit_table(view, spec, placement)
    cal = Calibration(cam.size, lens.camera_matrix, lens.distortion, fit_lens.image_to_table)
    raw = Calibration(cam.size, None, None, fit_raw.image_to_table)
    # Whole visible table: a pixel grid over the image (the table fills the view at this pose).
    u, v = np.meshgrid(np.linspace(5, cam.width - 6, 40), np.linspace(5, cam.height - 6, 24))
    px = np.column_stack([u.ravel(), v.ravel()])
    truth = true_table_mm(cam, rvec, tvec, px)
    table_err = np.linalg.norm(cal.pixels_to_table_mm(px) - truth, axis=1)
    table_err_raw = np.linalg.norm(raw.pixels_to_table_mm(px) - truth, axis=1)

    # Projector: the marker pattern on the table with cards under it.
    pattern = ProjectorPattern.for_size(1920, 1080)
    h_true = projector_truth()
    cards = card_layers(seed, [(250, 250), (420, 520), (700, 300), (930, 560), (600, 620)])
    proj_scene = Scene(
        cam,
        rvec,
        tvec,
        [table_texture(seed), *cards],
        ambient=0.35,
        projector=pattern.image().astype(np.float32) / 255,
        plane_to_projector=h_true,
        seed=seed + 11,
    )
    proj_img = proj_scene.render()
    pfit = fit_projector(proj_img, pattern, cal)
    pfit_raw = fit_projector(proj_img, pattern, raw)
    gx, gy = np.meshgrid(np.linspace(120, 1080, 30), np.linspace(80, 680, 20))
    tp = np.column_stack([gx.ravel(), gy.ravel()])
    from calibration.lens import apply_homography

    want = apply_homography(h_true, tp)
    proj_err = np.linalg.norm(apply_homography(pfit.table_to_projector, tp) - want, axis=1)
    proj_err_raw = np.linalg.norm(apply_homography(pfit_raw.table_to_projector, tp) - want, axis=1)
    return {
        "views": len(views),
        "views_used": len(lens.used),
        "render_s": render_s,
        "focal_err_pct": focal_err,
        "reproj_rms_px": lens.rms_px,
        "table_rms_mm": rms(table_err),
        "table_max_mm": float(table_err.max()),
        "table_rms_mm_raw": rms(table_err_raw),
        "holdout_rms_mm": fit_lens.holdout_rms_mm,
        "proj_rms_px": rms(proj_err),
        "proj_rms_px_raw": rms(proj_err_raw),
        "proj_markers": pfit.markers,
        "proj_total_markers": pattern.grid[0] * pattern.grid[1],
    }


def whole_view_error(
    cam: SimCamera, lens: IntrinsicsResult, spec: BoardSpec, page: Layer, seed: int
) -> np.ndarray:
    """True table error (mm) over a pixel grid across the whole view, through `lens` and one
    table view of the board: what a lens set is worth where the game is played."""
    placement = BoardPlacement((480.0, 160.0), 8.0)
    rvec, tvec = table_pose()
    layers = [table_texture(seed), board_layer_on_table(page, spec, placement)]
    view = detect_board(Scene(cam, rvec, tvec, layers, seed=seed + 7).render(), spec)
    fit = fit_table(view, spec, placement, lens.camera_matrix, lens.distortion)
    cal = Calibration(cam.size, lens.camera_matrix, lens.distortion, fit.image_to_table)
    u, v = np.meshgrid(np.linspace(5, cam.width - 6, 40), np.linspace(5, cam.height - 6, 24))
    px = np.column_stack([u.ravel(), v.ravel()])
    return np.linalg.norm(cal.pixels_to_table_mm(px) - true_table_mm(cam, rvec, tvec, px), axis=1)


def coverage_sweep(seeds: tuple[int, ...] = (1, 2, 3)) -> list[dict]:
    """True whole-view error against view count and image coverage: the numbers behind
    `calibration.intrinsics`'s GOOD_* thresholds."""
    cam = SimCamera()
    page, spec = page_layer("a4")
    rows = []
    for spots_name, spots in (("spread", SPREAD_SPOTS), ("middle", MIDDLE_SPOTS)):
        for n in (4, 5, 6, 8, 10, 15):
            for seed in seeds:
                found = [detect_board(img, spec) for img in intrinsics_views(cam, n, seed, page, spec, spots)]
                lens = calibrate_intrinsics(found)
                err = whole_view_error(cam, lens, spec, page, seed)
                g = lens.grade()
                rows.append(
                    {
                        "spots": spots_name,
                        "views": len(lens.used),
                        "seed": seed,
                        "share": lens.share,
                        "corners_lacking": len(lens.corners_lacking()),
                        "rms_mm": rms(err),
                        "max_mm": float(err.max()),
                        "good": g.good,
                    }
                )
    return rows


def blur_sweep() -> list[dict]:
    """Edge width (per 1000 px of image width) against Gaussian blur, and whether the board is
    still found: the numbers behind `calibration.board.BLUR_EDGE_WIDTH`. The last column of each
    row is a bare table, which must not be called blurred."""
    from calibration import CalibrationError
    from calibration.board import edge_width

    rows = []
    for width, height, f in ((800, 450, 667.0), (1280, 720, 1066.0), (1920, 1080, 1600.0)):
        cam = SimCamera(width=width, height=height, fx=f, fy=f, cx=width / 2 + 0.3, cy=height / 2 - 0.2)
        page, spec = page_layer("a4")
        rvec, tvec = table_pose(height_mm=700.0, tilt_deg=20.0, target_mm=(300.0, 250.0))
        scenes = [
            *intrinsics_views(cam, 4, 5, page, spec),
            Scene(cam, rvec, tvec, [table_texture(1)], seed=3).render(),
        ]
        for sigma in (0.0, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0):  # blur in px of an 800 px wide image
            cells = []
            for img in scenes:
                blurred = cv2.GaussianBlur(img, (0, 0), sigma * width / 800) if sigma else img
                try:
                    detect_board(blurred, spec)
                    said = "found"
                except CalibrationError as exc:
                    said = "blurred" if "too blurred" in str(exc) else "no board"
                w = edge_width(cv2.cvtColor(blurred, cv2.COLOR_BGR2GRAY))
                cells.append((w / width * 1000, said))
            rows.append({"width": width, "sigma": sigma, "cells": cells})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.calibration", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 lens views instead of 16")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--coverage",
        action="store_true",
        help="true whole-view error against lens view count and image coverage (the 'good' thresholds)",
    )
    parser.add_argument(
        "--blur", action="store_true", help="edge width against blur, and when the board is still found"
    )
    parser.add_argument(
        "--error-map",
        action="store_true",
        help="the error map each calibration reports against its true error, per case and pooled",
    )
    parser.add_argument(
        "--seeds", default="1,2,3,4", metavar="N,N", help="seeds for --error-map (default 1,2,3,4)"
    )
    args = parser.parse_args(argv)
    if args.error_map:
        from bench.calibration_map import main as error_map_main

        return error_map_main(tuple(int(s) for s in args.seeds.split(",")))
    if args.blur:
        print("image width, blur sigma (px at 800 wide): edge width per 1000 px and what detection says")
        print("for 4 board views, then a bare table")
        for r in blur_sweep():
            cells = " | ".join(f"{w:4.1f} {said:<8}" for w, said in r["cells"])
            print(f"{r['width']:>5} {r['sigma']:>4}: {cells}")
        return 0
    if args.coverage:
        print("lens views   spots   seed  share  corners lacking  whole-view error RMS / max mm  graded")
        for r in coverage_sweep():
            print(
                f"{r['views']:>10}  {r['spots']:>6}  {r['seed']:>5}  {r['share'] * 100:4.0f} %"
                f"  {r['corners_lacking']:>15}  {r['rms_mm']:>17.2f} / {r['max_mm']:.2f}"
                f"  {'good' if r['good'] else 'not good'}"
            )
        return 0
    r = run(args.quick, args.seed)
    print(
        f"calibration benchmark (seed {args.seed}): 1280x720 camera, k1=-0.12 barrel; {r['views']} lens views rendered in {r['render_s']:.1f} s"
    )
    print(f"{'measure':<34} {'calibrated':>11} {'baseline':>11} {'ratio':>7}   goal")
    print(f"{'focal length error %':<34} {r['focal_err_pct']:>11.3f} {'-':>11} {'-':>7}   < 1 %")
    print(
        f"{'reprojection RMS px':<34} {r['reproj_rms_px']:>11.3f} {'-':>11} {'-':>7}   < 0.5 px  ({r['views_used']} views kept)"
    )
    print(
        f"{'table error RMS mm (whole view)':<34} {r['table_rms_mm']:>11.3f} {r['table_rms_mm_raw']:>11.3f}"
        f" {r['table_rms_mm_raw'] / r['table_rms_mm']:>6.1f}x   < 0.5 mm  (max {r['table_max_mm']:.2f} mm; held-out board corners {r['holdout_rms_mm']:.3f} mm)"
    )
    print(
        f"{'projector error RMS projector px':<34} {r['proj_rms_px']:>11.3f} {r['proj_rms_px_raw']:>11.3f}"
        f" {r['proj_rms_px_raw'] / r['proj_rms_px']:>6.1f}x   < 1 px  ({r['proj_markers']}/{r['proj_total_markers']} markers seen, cards under the light)"
    )
    print("baseline: no lens step (a homography on the raw, distorted pixels), same images")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
