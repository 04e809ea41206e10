"""Training frames for the card map: randomised renders and labelled real photos, each turned
into (image, targets) at the network's input size."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, fields
from pathlib import Path

import cv2
import numpy as np

from vision.cardmap import MAP_LONG_SIDE
from vision.train.targets import MapTargets, instances_from_quads, targets_from_instances

DATA = Path(__file__).resolve().parents[2] / "data" / "real_photos"  # manifest, labels, splits
LABELS = DATA / "labels"
# The photos themselves are not in the repository (data/real_photos/README.md): where this
# machine keeps them.
PHOTOS = Path(os.environ.get("TABLETOP_PHOTOS", "/work/real_cache"))
# (width, height) of a training frame: a 4:3 camera frame at the long side the map reads
INPUT_SIZE = (MAP_LONG_SIDE, MAP_LONG_SIDE * 3 // 4)


@dataclass
class Example:
    image: np.ndarray  # H x W x 3 uint8 BGR
    targets: MapTargets


def render_example(
    seed: int, size: tuple[int, int] = INPUT_SIZE, stride: int = 2, keys: bool = False, projector: bool = False
) -> Example:
    from vision.synthetic.randomised import training_sample

    s = training_sample(seed, size, keys=keys, projector=projector)
    return Example(s.image, targets_from_instances(s.instances, s.ignore, stride))


def project_render_example(seed: int, size: tuple[int, int] = INPUT_SIZE, stride: int = 2) -> Example:
    """A frame of the project's own renderer (its cards, pawns, hands, sheets and light) from a
    random camera, reduced to `size`: the cards the product referees must stay found."""
    import math
    import random

    from vision.synthetic import Camera, CameraPose, Renderer, random_conditions, random_scene
    from vision.synthetic.layouts import side_by_side_pairs

    rng = random.Random(seed)
    landscape = size[0] >= size[1]
    pose = CameraPose(
        height_mm=rng.uniform(600, 1400),
        tilt_deg=rng.uniform(0, 35),
        yaw_deg=rng.uniform(-180, 180),
        target_mm=(rng.uniform(450, 750), rng.uniform(300, 480)),
    )
    w, h = (1280, 720) if landscape else (720, 1280)
    f = 640 / math.tan(math.radians(rng.uniform(50, 70)) / 2)
    cam = Camera(w, h, f, f, distortion=(rng.uniform(-0.1, 0), 0.02, 0, 0, 0), pose=pose)
    scene = random_scene(seed, n_cards=rng.randint(1, 20), n_pawns=rng.randint(0, 4))
    if rng.random() < 0.25:
        pairs = side_by_side_pairs(
            rng.uniform(0, 180), rng.uniform(10, 40), rng.random() < 0.5, rng.choice([0.0, 1.0, 2.0, 4.0])
        )
        scene = scene.replace(cards=tuple(pairs), pawns=())
    frame = Renderer(cam, random_conditions(seed)).render(scene, seed=seed)
    h, w = frame.image.shape[:2]
    inst = np.zeros((h, w), np.int32)
    for k, card in enumerate(frame.truth["cards"], start=1):
        q = np.asarray(card["corners_px"])
        cv2.fillConvexPoly(inst, np.round(q * 16).astype(np.int32), k, cv2.LINE_8, shift=4)
    # Pawns, hands and held cards are not scored: a pawn on a card is neither the card's edge nor
    # the table (the randomised renders teach hands over cards).
    above = frame.labels > 0
    inst[above] = 0
    image = cv2.resize(frame.image, size, interpolation=cv2.INTER_AREA)
    inst = cv2.resize(inst.astype(np.float32), size, interpolation=cv2.INTER_NEAREST).astype(np.int32)
    ignore = cv2.resize(above.astype(np.uint8), size, interpolation=cv2.INTER_NEAREST) > 0
    return Example(image, targets_from_instances(inst, ignore, stride))


@dataclass
class LabelledPhoto:
    """A real photo and its labels (data/real_photos/labels/<source>/<stem>.json)."""

    source: str
    image_path: Path
    cards: list[np.ndarray]
    ignore: list[np.ndarray]

    @classmethod
    def load(cls, label_path: Path, images: Path) -> LabelledPhoto:
        d = json.loads(label_path.read_text())
        return cls(
            source=d["image"].split("/")[0],
            image_path=images / d["image"],
            cards=[np.asarray(c["corners"], np.float64) for c in d["cards"]],
            ignore=[np.asarray(p["polygon"], np.float64) for p in d.get("ignore", [])],
        )


def labelled_photos(
    images: Path = PHOTOS, sources: set[str] | None = None, labels: Path = LABELS
) -> list[LabelledPhoto]:
    """Every checked label (of `sources`) whose photo is under `images`."""
    out = []
    for p in sorted(labels.glob("*/*.json")):
        if sources is not None and p.parent.name not in sources:
            continue
        d = json.loads(p.read_text())
        if not d.get("checked"):
            continue
        photo = LabelledPhoto.load(p, images)
        if photo.image_path.exists():
            out.append(photo)
    return out


def photo_example(
    photo: LabelledPhoto, rng: np.random.Generator, size: tuple[int, int] = INPUT_SIZE, stride: int = 2
) -> Example:
    """The photo scaled so its long side is what the map reads (or up to 1.6x larger, to see
    small cards as the renders do), turned to the frame's orientation and cropped at random."""
    img = cv2.imread(str(photo.image_path), cv2.IMREAD_COLOR)
    if img is None:
        raise FileNotFoundError(photo.image_path)
    w, h = size
    cards, ignore = photo.cards, photo.ignore
    if (img.shape[1] >= img.shape[0]) != (w >= h):
        img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
        rows = img.shape[1]  # the height before turning
        turn = lambda p: np.stack([rows - 1 - p[:, 1], p[:, 0]], axis=1)  # noqa: E731
        cards, ignore = [turn(c) for c in cards], [turn(p) for p in ignore]
    k = max(w, h) / max(img.shape[:2]) * (1.0 if rng.random() < 0.5 else rng.uniform(1.0, 1.6))
    img = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    ih, iw = img.shape[:2]
    x0 = int(rng.integers(0, max(1, iw - w + 1)))
    y0 = int(rng.integers(0, max(1, ih - h + 1)))
    frame = np.zeros((h, w, 3), np.uint8)
    crop = img[y0 : y0 + h, x0 : x0 + w]
    frame[: crop.shape[0], : crop.shape[1]] = crop
    shift = lambda p: (p + 0.5) * k - 0.5 - [x0, y0]  # noqa: E731
    inst, ign = instances_from_quads((h, w), [shift(c) for c in cards], [shift(p) for p in ignore])
    ign[crop.shape[0] :, :] = True
    ign[:, crop.shape[1] :] = True
    return Example(frame, targets_from_instances(inst, ign, stride))


def augment(ex: Example, rng: np.random.Generator) -> Example:
    """Flips, half turns and a change of light: what a camera on any side of the table sees."""
    img, t = ex.image, ex.targets
    maps = list(t.maps())
    if rng.random() < 0.5:
        img, maps = img[:, ::-1], [m[:, ::-1] for m in maps]
    if rng.random() < 0.5:
        img, maps = img[::-1], [m[::-1] for m in maps]
    img = img.astype(np.float32)
    gain = rng.uniform(0.75, 1.25) * rng.uniform(0.9, 1.1, size=3)
    img = np.clip(img * gain + rng.uniform(-20, 20), 0, 255).astype(np.uint8)
    return Example(np.ascontiguousarray(img), MapTargets(*(np.ascontiguousarray(m) for m in maps)))


def pack(ex: Example) -> tuple[np.ndarray, np.ndarray]:
    """The image and its target maps as bits of one byte per pixel (a pool of 6,400 frames
    with targets at the input's resolution then fits in 8 GB)."""
    bits = np.zeros(ex.targets.interior.shape, np.uint8)
    for b, m in enumerate(ex.targets.maps()):
        bits |= (m > 0.5).astype(np.uint8) << b
    return ex.image, bits


def unpack(image: np.ndarray, maps: np.ndarray) -> Example:
    """The example `pack` packed."""
    return Example(image, MapTargets(*((maps >> b & 1).astype(np.float32) for b in range(len(fields(MapTargets))))))


def crop(ex: Example, share: float, rng: np.random.Generator) -> Example:
    """A random window of `share` of each side (a multiple of 32 px): most of a frame's context
    at a fraction of the cost of a step."""
    if share >= 1:
        return ex
    h, w = ex.image.shape[:2]
    t = ex.targets
    s = h // t.interior.shape[0]  # the network's stride
    ch, cw = int(h * share) // 32 * 32, int(w * share) // 32 * 32
    y = int(rng.integers(0, (h - ch) // s + 1)) * s
    x = int(rng.integers(0, (w - cw) // s + 1)) * s
    cut = lambda m: np.ascontiguousarray(m[y // s : (y + ch) // s, x // s : (x + cw) // s])  # noqa: E731
    return Example(np.ascontiguousarray(ex.image[y : y + ch, x : x + cw]), MapTargets(*(cut(m) for m in t.maps())))
