"""Face up or down, and which card: compare a card's rectified image with enrolled images.

Every card is warped to a small upright rectangle (portrait, long edge vertical) and compared,
in both half-turn orientations, with the enrolled back and faces. Each colour channel is
normalised (mean and spread) so exposure and white balance do not matter, and the distance is a
trimmed mean over pixels - the worst quarter is ignored - so partial glare or a pawn standing on
the card does not matter either.

The bundled default library is the bundled card art (`vision.card_art`); enrol a
real deck with `FaceLibrary.enroll` (`tabletop enroll-faces FOLDER`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.light import fit_light

DESC_SIZE = (24, 34)  # width, height of the compared image (portrait)
STORE_SIZE = (126, 176)  # enrolled images are kept at this size (2 px/mm for 63 x 88)
MARGIN = 0.06  # fraction of each side left out (the card's edge, the rounded corners)
TRIM = 0.75  # fraction of pixels (the most similar) that count
# Distance (normalised units) below which a card is the enrolled back / an enrolled face.
BACK_MATCH = 0.55
FACE_MATCH = 0.6
# A back farther than this is surely not the back: the card is face up even if its face is unknown.
NOT_BACK = 0.85
# ... or a face within COVER_MATCH is at most FACE_OVER_BACK x the back's distance: a pawn on a face
# pulls both distances up (a yellow pawn on a white face even looks like the back's yellow ring),
# but leaves the face much the nearer.
FACE_OVER_BACK = 0.8
# A partly covered card: a pixel farther than COVER_PX from every face is the cover; at least
# MIN_UNCOVERED of the card must remain, and the best face must beat the next by COVER_MARGIN.
COVER_PX = 0.8
COVER_CAP = 1.5  # per-pixel distance cap in that comparison
MIN_UNCOVERED = 0.6
# Glare (a lamp's mirror image) adds light that varies across a card, and a pawn on a back hides
# its only print, the target: the plain comparison then finds the back near (under NOT_BACK) but
# not near enough. The back is then fitted under a light model (`_lit_fit`): it is the back
# if that explains at least LIT_BACK of the card within LIT_TOL (camera levels, 0..255). A face
# is print on white card: the back explains little of it under any light.
LIT_TOL = 15.0
LIT_BACK = 0.5
LIT_START, LIT_ROUNDS = 0.6, 4
# ... and its colour (Lab a*b*, where the model explains it) must keep LIT_CHROMA of the back's
# (projected on it) - unless the back is all but grey (chroma under LIT_GREY): then it cannot.
LIT_CHROMA, LIT_GREY = 0.2, 5.0
# Glare washes a face out too: when nothing else names a face-up card, the LIT_RIVALS nearest
# faces are fitted under the light model; the best names it if it explains at least LIT_FACE of
# the card, LIT_MARGIN more than the next, and the printed names (`_read_names`) agree.
LIT_RIVALS, LIT_FACE, LIT_MARGIN = 6, 0.5, 0.08
# A card cut by the frame's edge: the least share of it that must be in the frame to be read.
MIN_SHOWN = 0.35
COVER_MATCH = 0.75
COVER_MARGIN = 0.98
# The nearest face must beat the next by this ratio to be read at once; else look again as above.
AMBIGUOUS = 0.85
# Look-alikes (one kind share frame and colours) differ most in their printed name, at the top and
# again upside down at the bottom, as most card games print it. These bands (fractions of the
# card's height) are compared sharper, on lightness only; faces nearer than NAME_RIVAL x the
# nearest are the rivals; the best name must beat the next by NAME_MARGIN.
NAME_BANDS = ((0.05, 0.21), (0.79, 0.95))
NAME_SIZE = (96, 134)  # width, height of the card image the names are compared on
NAME_SHIFT = 2  # px (at NAME_SIZE) of misplaced corners the comparison allows for
NAME_RIVAL = 1.5
NAME_MARGIN = 0.9
# A pawn on a face can hide its art and look like a look-alike's (a red pawn on a thin blue drawing
# reads as a red-brown one): the art alone then names the wrong face with no rival near. So the
# nearest face's printed name is checked against the other faces within COVER_MATCH too; one of
# them overrules the art only if its name is clearly the printed one (NAME_OVERRULE x the nearest's).
NAME_OVERRULE = 0.7


def upright_corners(corners_px: np.ndarray, upside_down: bool = False) -> np.ndarray:
    """The corners reordered so that corner 0 -> 1 is a short (top) edge of the upright card;
    `upside_down` turns the order by half (the art's top is at the other end)."""
    q = np.asarray(corners_px, dtype=np.float32).reshape(4, 2)
    s01 = np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[3] - q[2])
    s12 = np.linalg.norm(q[2] - q[1]) + np.linalg.norm(q[0] - q[3])
    if s01 > s12:  # q0->q1 is a long edge: start one corner later so the top edge is short
        q = np.roll(q, -1, axis=0)
    return np.roll(q, -2, axis=0) if upside_down else q


def rectify(image: np.ndarray, corners_px: np.ndarray, size: tuple[int, int] = STORE_SIZE) -> np.ndarray:
    """The card warped upright to `size` (w, h portrait). Which end is up is not known (half turn)."""
    return _rectified(image, corners_px, size)[0]


def _rectified(
    image: np.ndarray, corners_px: np.ndarray, size: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray | None]:
    """(`rectify`, 255 where the upright card image shows the frame - None if all of it does: a
    card cut by the frame's edge has a part no camera pixel shows)."""
    q = upright_corners(corners_px)
    w, h = size
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    m = cv2.getPerspectiveTransform(q, dst)
    flags = cv2.INTER_AREA if w < 60 else cv2.INTER_LINEAR
    out = cv2.warpPerspective(image, m, (w, h), flags=flags, borderMode=cv2.BORDER_REPLICATE)
    ih, iw = image.shape[:2]
    # The card's corners in the upright image, mapped back, tell whether any of it is off the frame.
    inv = np.linalg.inv(m)
    edge = np.array([[-0.5, -0.5, 1], [w - 0.5, -0.5, 1], [w - 0.5, h - 0.5, 1], [-0.5, h - 0.5, 1]]) @ inv.T
    edge = edge[:, :2] / edge[:, 2:]
    if edge.min() >= 0 and edge[:, 0].max() <= iw - 1 and edge[:, 1].max() <= ih - 1:
        return out, None
    shown = cv2.warpPerspective(
        np.full((ih, iw), 255, np.uint8), m, (w, h), flags=cv2.INTER_NEAREST, borderValue=0
    )
    return out, shown


def _small(card_img: np.ndarray) -> np.ndarray:
    """The compared part of an upright card image (inside MARGIN), at DESC_SIZE, BGR uint8."""
    h, w = card_img.shape[:2]
    mx, my = int(round(w * MARGIN)), int(round(h * MARGIN))
    inner = card_img[my : h - my, mx : w - mx]
    return cv2.resize(inner, DESC_SIZE, interpolation=cv2.INTER_AREA)


def _lab(card_img: np.ndarray) -> np.ndarray:
    """Lab image (DESC_SIZE, float32, not normalised) of an upright card image."""
    return cv2.cvtColor(_small(card_img), cv2.COLOR_BGR2Lab).astype(np.float32)


def _lit_fit(seen: np.ndarray, ref: np.ndarray, use: np.ndarray | None) -> np.ndarray:
    """Which pixels `use` (all if None; bool, as `seen`) of `seen` (DESC_SIZE, BGR) `ref` explains
    within LIT_TOL under the light model (`fit_light`: a gain per channel times `ref` plus a
    wash linear across the card - glare, uneven light); a pawn is left out of the fit."""
    h, w = seen.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    wash = np.stack([np.ones(h * w, np.float32), xx.ravel() / w - 0.5, yy.ravel() / h - 0.5], axis=1)
    s, r = seen.reshape(-1, 3), ref.reshape(-1, 3)
    at = np.flatnonzero(use.ravel()) if use is not None else np.arange(h * w)
    fit = fit_light(s[at], r[at], wash[at], LIT_TOL, LIT_START, LIT_ROUNDS)
    out = np.zeros(h * w, bool)
    if fit is not None:
        out[at] = fit[1]
    return out.reshape(h, w)


def _lit_share(seen: np.ndarray, ref: np.ndarray, use: np.ndarray | None) -> float:
    """The share of the pixels `use` (all if None) that `_lit_fit` explains."""
    fit = _lit_fit(seen, ref, use)
    return float(fit.sum()) / max(int(fit.size if use is None else use.sum()), 1)


def _chroma(small: np.ndarray) -> np.ndarray:
    """Lab a*, b* (float32, 0 = grey) of a BGR image."""
    return cv2.cvtColor(small, cv2.COLOR_BGR2Lab)[..., 1:].astype(np.float32) - 128.0


def _normalise(lab: np.ndarray, use: np.ndarray | None = None) -> np.ndarray:
    """`lab` with each axis normalised (mean and spread) over the pixels `use` (all if None)."""
    return _normalise_all(lab[None], use)[0]


def _normalise_all(labs: np.ndarray, use: np.ndarray | None = None) -> np.ndarray:
    """Each Lab image of `labs` (M, h, w, 3) normalised as `_normalise` does, at once."""
    labs = labs.astype(np.float32, copy=True)
    m = len(labs)
    ref = labs.reshape(m, -1, 3) if use is None else labs.reshape(m, -1, 3)[:, use.ravel()]
    mean = ref.mean(axis=1)
    ref = ref - mean[:, None]
    labs -= mean[:, None, None]
    # One spread for the lightness, one shared by the two colour axes (a grey card keeps grey).
    labs[..., 0] /= (ref[..., 0].std(axis=1) + 4.0)[:, None, None]
    labs[..., 1:] /= (ref[..., 1:].reshape(m, -1).std(axis=1) + 4.0)[:, None, None, None]
    return labs


def _shown_pixels(shown: np.ndarray) -> np.ndarray:
    """Which descriptor pixels (DESC_SIZE, bool) a card's `shown` mask (as `_rectified`) shows whole."""
    h, w = shown.shape[:2]
    mx, my = int(round(w * MARGIN)), int(round(h * MARGIN))
    small = cv2.resize(shown[my : h - my, mx : w - mx], DESC_SIZE, interpolation=cv2.INTER_AREA)
    return small >= 250


def descriptor(card_img: np.ndarray) -> np.ndarray:
    """Normalised Lab image (DESC_SIZE, float32) of an upright card image."""
    return _normalise(_lab(card_img))


def distance(a: np.ndarray, b: np.ndarray, use: np.ndarray | None = None) -> float:
    return float(distances(a, b[None], use)[0])


def distances(a: np.ndarray, stack: np.ndarray, use: np.ndarray | None = None) -> np.ndarray:
    """Trimmed-mean distances of descriptor `a` to each descriptor of `stack` (M, h, w, 3), as
    one array operation, over the pixels `use` (all if None)."""
    diff = stack.reshape(len(stack), -1, 3) - a.reshape(1, -1, 3)
    if use is not None:
        diff = diff[:, use.ravel()]
    d = np.sqrt(np.einsum("mpc,mpc->mp", diff, diff))
    k = int(d.shape[1] * TRIM)
    return np.partition(d, k, axis=1)[:, :k].mean(axis=1)


@dataclass(frozen=True)
class FaceReading:
    face: str  # "up" | "down" | "unknown"
    name: str | None
    back_distance: float
    face_distance: float
    upside_down: bool  # the name reads from the other end (half turn) - for overlays


class FaceLibrary:
    """Enrolled card back and faces."""

    def __init__(self) -> None:
        self.back: np.ndarray | None = None  # stored upright image
        self.faces: dict[str, np.ndarray] = {}
        self._desc: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._lab: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # the same, not normalised
        self._small: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # the same, BGR (`_small`)
        self._back_desc: tuple[np.ndarray, np.ndarray] | None = None
        self._back_lab: np.ndarray | None = None  # both ways, not normalised
        self._back_small: list[np.ndarray] = []  # both ways, BGR (`_small`)
        self._names: dict[str, tuple[list[np.ndarray], list[np.ndarray]]] = {}  # name bands, both ways
        self._stack: tuple[list[str], np.ndarray] | None = None  # every face, up then down
        self._lab_stack: np.ndarray | None = None  # the same, not normalised

    # ---- building ------------------------------------------------------------------------------
    def set_back(self, card_img: np.ndarray) -> None:
        self.back = _store(card_img)
        self._back_desc = _both(self.back)
        self._back_lab = np.stack([_lab(self.back), _lab(cv2.rotate(self.back, cv2.ROTATE_180))])
        self._back_small = [_small(self.back), _small(cv2.rotate(self.back, cv2.ROTATE_180))]

    def add_face(self, name: str, card_img: np.ndarray) -> None:
        if not name or not name.strip():
            raise ValueError("a card face needs a name")
        self.faces[name] = _store(card_img)
        self._stack = self._lab_stack = None
        self._desc[name] = _both(self.faces[name])
        img = self.faces[name]
        self._lab[name] = (_lab(img), _lab(cv2.rotate(img, cv2.ROTATE_180)))
        self._small[name] = (_small(img), _small(cv2.rotate(img, cv2.ROTATE_180)))
        self._names[name] = (_name_bands(img), _name_bands(cv2.rotate(img, cv2.ROTATE_180)))

    def enroll(self, name: str, photo: np.ndarray, detector=None) -> None:
        """Learn one card from a photo of it alone on the table (or a tight scan of it).

        `name` "back" sets the back. The card is found with the detector; a photo in which no
        card is found is taken as a scan of the card itself.
        """
        img = photo
        if detector is not None:
            cards = detector.detect(photo)
            if len(cards) > 1:
                raise ValueError(f"the photo for {name!r} shows {len(cards)} cards; enrol one card at a time")
            if cards:
                img = rectify(photo, cards[0].corners_px)
        if name.lower() == "back":
            self.set_back(img)
        else:
            self.add_face(name, img)

    @classmethod
    def default(cls) -> FaceLibrary:
        """The bundled card art (`vision.card_art`): the default deck."""
        from vision.card_art import all_faces, back_image

        lib = cls()
        lib.set_back(back_image())
        for name, img in all_faces().items():
            lib.add_face(name, img)
        return lib

    def save(self, path: str | Path) -> None:
        arrays = {f"face:{n}": img for n, img in self.faces.items()}
        if self.back is not None:
            arrays["back"] = self.back
        with open(path, "wb") as fh:
            np.savez_compressed(fh, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> FaceLibrary:
        try:
            data = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise ValueError(f"face library {path} cannot be read ({exc}); enrol the faces again") from None
        lib = cls()
        for key in data.files:
            if key == "back":
                lib.set_back(data[key])
            elif key.startswith("face:"):
                lib.add_face(key[5:], data[key])
        if lib.back is None and not lib.faces:
            raise ValueError(f"face library {path} holds no back and no faces; enrol the faces again")
        return lib

    # ---- reading -------------------------------------------------------------------------------
    def read(self, image: np.ndarray, corners_px: np.ndarray) -> FaceReading:
        img, shown = _rectified(image, corners_px, (DESC_SIZE[0] * 3, DESC_SIZE[1] * 3))
        small = _small(img)
        lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab).astype(np.float32)
        # A card cut by the frame's edge is compared on the part the frame shows only (what the
        # warp makes up beyond the edge - the edge's pixels drawn out - is no card).
        use = None if shown is None else _shown_pixels(shown)
        if use is not None and use.mean() < MIN_SHOWN:
            return FaceReading("unknown", None, np.inf, np.inf, False)
        d = _normalise(lab, use)
        back_d = np.inf
        if self._back_lab is not None:
            backs = np.stack(self._back_desc) if use is None else _normalise_all(self._back_lab, use)
            back_d = float(distances(d, backs, use).min())
        ranked = []
        if self._desc:
            names, stack = self._face_stack(use)
            dist = distances(d, stack, use).reshape(2, -1)  # up, down
            for i, name in enumerate(names):
                du, dd = float(dist[0, i]), float(dist[1, i])
                ranked.append((min(du, dd), name, dd < du))
        ranked.sort()
        best_d, best, flip = ranked[0] if ranked else (np.inf, None, False)
        second_d = ranked[1][0] if len(ranked) > 1 else np.inf
        if back_d < BACK_MATCH and back_d < best_d:
            return FaceReading("down", None, back_d, best_d, False)
        surely_up = (
            back_d > NOT_BACK
            or self._back_desc is None
            or (best_d < COVER_MATCH and best_d < FACE_OVER_BACK * back_d)
        )
        if (best_d < FACE_MATCH and best_d < back_d) or surely_up:
            # Look-alikes (a pawn on one can make it look like another): the printed name decides.
            rivals = [(n, f) for dist, n, f in ranked[:4] if dist < NAME_RIVAL * best_d]
            margin = NAME_MARGIN
            if len(rivals) == 1:
                # No look-alike near by the art; one a pawn makes look far still shows its name.
                rivals += [(n, f) for dist, n, f in ranked[1:4] if dist < COVER_MATCH]
                margin = NAME_OVERRULE
            if len(rivals) > 1 and best_d < COVER_MATCH:
                named = self._read_names(rectify(image, corners_px, NAME_SIZE), rivals, margin)
                if named is not None:
                    d_named = next(dist for dist, n, _ in ranked if n == named[0])
                    return FaceReading("up", named[0], back_d, d_named, named[1])
            if best_d < FACE_MATCH and best_d < AMBIGUOUS * second_d:
                return FaceReading("up", best, back_d, best_d, flip)
            # No face close, or two nearly as close: something covers part of the card (a pawn
            # on it hides the art that tells it from its look-alikes). Look again without it.
            name, d_cov, flip = self._read_covered(lab, use)
            if name is not None:
                return FaceReading("up", name, back_d, d_cov, flip)
            lit = self._read_lit(small, use, ranked[:LIT_RIVALS], image, corners_px)
            if lit is not None:
                d_lit = next(dist for dist, n, _ in ranked if n == lit[0])
                return FaceReading("up", lit[0], back_d, d_lit, lit[1])
            return FaceReading("up", None, back_d, best_d, False)
        # Near the back, not near enough: glare on a back whose target a pawn hides?
        if back_d < NOT_BACK and self._lit_back(small, use):
            return FaceReading("down", None, back_d, best_d, False)
        return FaceReading("unknown", None, back_d, best_d, False)

    def _face_stack(self, use: np.ndarray | None = None) -> tuple[list[str], np.ndarray]:
        """(names, every face's descriptor: up, then down), normalised over the pixels `use`."""
        if self._stack is None:
            names = list(self._desc)
            self._stack = (
                names,
                np.stack([self._desc[n][0] for n in names] + [self._desc[n][1] for n in names]),
            )
            self._lab_stack = np.stack([self._lab[n][0] for n in names] + [self._lab[n][1] for n in names])
        if use is None:
            return self._stack
        return self._stack[0], _normalise_all(self._lab_stack, use)

    def _read_names(
        self, card_img: np.ndarray, rivals: list[tuple[str, bool]], margin: float = NAME_MARGIN
    ) -> tuple[str, bool] | None:
        """Which of the `rivals` (name, upside down) the card is, by the printed name alone: the
        best must beat the next by `margin`. The name is printed twice (top, and upside down at the
        bottom), and a pawn or a finger seldom covers both: each face counts its better band."""
        if len(rivals) < 2:
            return None
        seen = _name_bands(card_img, sharp=False)
        # The seen bands' shifted windows, normalised once for all rivals (per band and size).
        windows: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}

        def distance(i: int, enrolled: np.ndarray) -> float:
            shape = tuple(v - 2 * NAME_SHIFT for v in enrolled.shape)
            if (i, shape) not in windows:
                windows[i, shape] = _shifted_windows(seen[i], shape)
            return _band_distance(windows[i, shape], enrolled)

        scores = []
        for name, flip in rivals:
            bands = self._names[name][1 if flip else 0]
            scores.append((min(distance(i, b) for i, b in zip(range(len(seen)), bands)), name, flip))
        scores.sort()
        (best, name, flip), (second, _, _) = scores[0], scores[1]
        return (name, flip) if best < margin * second else None

    def _lit_back(self, small: np.ndarray, use: np.ndarray | None) -> bool:
        """Whether the light model (`_lit_fit`) explains at least LIT_BACK of the card
        `small` by the back, and the card shows the back's colour there: a gain and a wash per
        channel fit a flat field of any colour, so blank card stock would pass for a plain back
        - but glare whitens a back, it keeps its hue."""
        n = small.shape[0] * small.shape[1] if use is None else int(use.sum())
        for back in self._back_small:
            fit = _lit_fit(small, back, use)
            if fit.sum() < LIT_BACK * n:
                continue
            seen, printed = _chroma(small)[fit].mean(axis=0), _chroma(back)[fit].mean(axis=0)
            if float(printed @ printed) < LIT_GREY**2:
                continue  # a grey back: its colour cannot tell it from blank card
            if float(seen @ printed) >= LIT_CHROMA * float(printed @ printed):
                return True
        return False

    def _read_lit(
        self,
        small: np.ndarray,
        use: np.ndarray | None,
        rivals: list[tuple[float, str, bool]],
        image: np.ndarray,
        corners_px: np.ndarray,
    ) -> tuple[str, bool] | None:
        """Which of the `rivals` (distance, name, upside down) a washed-out face-up card is,
        under the light model (`_lit_fit`), confirmed by its printed name; None if unsure."""
        if len(rivals) < 2:
            return None
        scored = sorted(
            ((_lit_share(small, self._small[n][int(f)], use), n, f) for _, n, f in rivals), reverse=True
        )
        (best, name, flip), (second, other, other_flip) = scored[0], scored[1]
        if best < LIT_FACE or best - second < LIT_MARGIN:
            return None
        named = self._read_names(rectify(image, corners_px, NAME_SIZE), [(name, flip), (other, other_flip)])
        return (name, flip) if named == (name, flip) else None

    def _read_covered(self, lab: np.ndarray, use: np.ndarray | None = None) -> tuple[str | None, float, bool]:
        """The face of a card partly covered by something no enrolled face explains (a pawn, a
        die). Pixels no face comes near are the cover: they are left out, also of each image's
        mean and spread (a big blue pawn shifts them), and the faces compared again on the rest.
        The nearest face counts only if clearly nearer than the next (cards of one kind share
        their frame and differ in the art and title). Only the pixels `use` are seen (all if None)."""
        if len(self._lab) < 2:
            return None, np.inf, False
        d = _normalise(lab, use)
        names, stack = self._face_stack(use)
        n = len(names)
        cands = []
        for i, name in enumerate(names):
            up, down = stack[i], stack[n + i]
            flip = distance(d, down, use) < distance(d, up, use)
            per_px = np.sqrt(((d - (down if flip else up)) ** 2).sum(axis=2))
            cands.append((name, flip, per_px))
        explained = np.min([c[2] for c in cands], axis=0) < COVER_PX
        if use is not None:
            explained &= use
        if explained.mean() < MIN_UNCOVERED * (1.0 if use is None else use.mean()):
            return None, np.inf, False
        d = _normalise(lab, explained)
        scores = []
        for name, flip, _ in cands:
            ref = _normalise(self._lab[name][1 if flip else 0], explained)
            # Capped per pixel: what the cover leaves unexplained costs every face alike.
            per_px = np.minimum(np.sqrt(((d - ref) ** 2).sum(axis=2)), COVER_CAP)
            scores.append((float(per_px[explained].mean()), name, flip))
        scores.sort()
        (best, name, flip), (second, _, _) = scores[0], scores[1]
        if best < COVER_MATCH and best < COVER_MARGIN * second:
            return name, best, flip
        return None, best, False


def _store(card_img: np.ndarray) -> np.ndarray:
    img = np.asarray(card_img)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    h, w = img.shape[:2]
    if w > h:
        img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
    return cv2.resize(img, STORE_SIZE, interpolation=cv2.INTER_AREA)


def _name_bands(card_img: np.ndarray, sharp: bool = True) -> list[np.ndarray]:
    """The name bands (lightness, float32) of an upright card image, at NAME_SIZE. An enrolled
    (`sharp`) image is blurred a little, as a camera sees a card this small."""
    img = cv2.resize(card_img, NAME_SIZE, interpolation=cv2.INTER_AREA)
    light = cv2.cvtColor(img, cv2.COLOR_BGR2Lab)[..., 0].astype(np.float32)
    if sharp:
        light = cv2.GaussianBlur(light, (0, 0), 0.8)
    h, w = light.shape
    mx = int(round(w * MARGIN))
    return [light[int(a * h) : int(b * h), mx : w - mx] for a, b in NAME_BANDS]


def _shifted_windows(seen: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The windows of `shape` in a seen name band at each small shift (corners found a pixel or
    two off), each normalised (mean and spread): (2s+1, 2s+1, h, w)."""
    s = NAME_SHIFT
    win = np.lib.stride_tricks.sliding_window_view(seen, shape)
    win = win[: 2 * s + 1, : 2 * s + 1]
    mean = win.mean(axis=(2, 3), keepdims=True)
    std = win.std(axis=(2, 3), keepdims=True)
    return (win - mean) / (std + 4.0)


def _band_distance(windows: np.ndarray, enrolled: np.ndarray) -> float:
    """Mean difference of a seen name band (its `_shifted_windows`) and an enrolled one, each
    normalised (mean and spread), at the best of the small shifts. Not trimmed: the letters, a
    small part of the band, are what differs."""
    s = NAME_SHIFT
    ref = enrolled[s:-s, s:-s]
    ref = (ref - ref.mean()) / (ref.std() + 4.0)
    return float((np.abs(windows - ref)).mean(axis=(2, 3)).min())


def _both(img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return descriptor(img), descriptor(cv2.rotate(img, cv2.ROTATE_180))
