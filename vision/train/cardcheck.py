"""Train the card check (`vision.cardcheck`): collect what the map detector reports, label it
against the truth, train, export.

    python -m vision.train.cardcheck collect --seeds 30000000:30001600 --photos DIR --out runs/check/data.npz
    python -m vision.train.cardcheck train --data runs/check/data.npz --out runs/check
    python -m vision.train.cardcheck export runs/check/checkpoint.pt --out runs/check/cardcheck.onnx

The check learns from the detector's own reports (`MapCardDetector` without a check), so it
sees what it will be asked about: cards placed on their edges, and what else passes the fit -
keys, tiles of a cloth, a page's blocks, a card's printed frame. Renders come with keyboards
(`keys`), from seeds no map was trained or tuned on (the map: 0..5999 and 20e6..; the benches:
1e6..5e6, 60e6..; the diagnostic renders: 62e6..65e6); real photos from the train split.
A report is a card (1) when it lies on a card at IoU >= `CARD_IOU`, not one (0) when it meets
no card at `LOOSE_IOU` and lies mostly off the parts not to score (decks, fans, cards cut by
the frame); between the two it is not learnt from. Everything random takes the run's seed.
"""

from __future__ import annotations

import argparse
import json
import time
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np
import shapely
import torch
from torch import nn
from torch.nn import functional as F

from vision.cardcheck import CHANNELS, CROP, crops
from vision.detector import side_lengths
from vision.map_detector import MapCardDetector
from vision.synthetic.randomised import BENCH_SIZE, training_sample
from vision.train.data import PHOTOS, labelled_photos
from vision.train.splits import load as load_splits

CARD_IOU = 0.8  # what the benches count as found
LOOSE_IOU = 0.5
IGNORED = 0.5
WIDTHS = (16, 32, 48, 64)
PHOTO_REPEAT = 4  # real photos are few beside the renders, and what the referee faces
# A frame's not-cards weigh at most this many reports together: one keyboard gives up to a
# hundred keys, and left to outweigh everything else they teach that any grid of equal quads -
# a layout of touching cards too - is no card.
FRAME_OTHERS = 5.0


def label(quad: np.ndarray, cards: list[np.ndarray], ignore: list[shapely.Geometry]) -> int:
    """1: a card placed on its edges; 0: not a card; -1: neither (loose, or on what is not scored)."""
    p = shapely.Polygon(quad).buffer(0)
    if p.area <= 0:
        return 0
    best = 0.0
    for c in cards:
        t = shapely.Polygon(c).buffer(0)
        best = max(best, p.intersection(t).area / max(p.union(t).area, 1e-9))
    if best >= CARD_IOU:
        return 1
    if best >= LOOSE_IOU:
        return -1
    if ignore and sum(p.intersection(g).area for g in ignore) / p.area > IGNORED:
        return -1
    return 0


def _reports(
    detector: MapCardDetector, image: np.ndarray, cards: list, ignore: list, whole: list
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops and labels of what `detector` reports on `image`, then of the `whole` cards at
    their true corners (cards; flagged in the third array): the detector merges most cards of
    a touching grid, so its reports alone hold few of them beside a keyboard's many keys."""
    found = [c.corners_px for c in detector.detect(image)]
    ys = np.array([label(q, cards, ignore) for q in found], np.int8)
    quads = [q for q, y in zip(found, ys) if y >= 0] + list(whole)
    ys = np.concatenate([ys[ys >= 0], np.ones(len(whole), np.int8)])
    truth = np.arange(len(ys)) >= len(ys) - len(whole)
    if not quads:
        return np.zeros((0, CHANNELS, CROP, CROP), np.uint8), ys, truth
    return crops(image, detector.last_map, quads), ys, truth


_DETECTOR: MapCardDetector | None = None


def _detector() -> MapCardDetector:
    global _DETECTOR
    if _DETECTOR is None:
        cv2.setNumThreads(1)
        _DETECTOR = MapCardDetector()
    return _DETECTOR


def _render_reports(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    s = training_sample(seed, BENCH_SIZE, keys=True)
    contours, _ = cv2.findContours(s.ignore.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    ignore = [shapely.Polygon(c.reshape(-1, 2)).buffer(0) for c in contours if len(c) >= 3]
    w, h = BENCH_SIZE
    whole = [
        q
        for q, seen in zip(s.quads, s.seen)
        if seen >= 0.95 and q.min() >= 1 and (q[:, 0] <= w - 2).all() and (q[:, 1] <= h - 2).all()
        and side_lengths(q)[0] >= max(w, h) / 70
    ]
    return (*_reports(_detector(), s.image, s.quads, ignore, whole), f"render:{seed}")


def _photo_reports(photo) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    img = cv2.imread(str(photo.image_path), cv2.IMREAD_COLOR)
    ignore = [shapely.Polygon(p).buffer(0) for p in photo.ignore if len(p) >= 3]
    x, y, truth = _reports(_detector(), img, photo.cards, ignore, photo.cards)
    return x, y, truth, f"photo:{photo.image_path.parent.name}/{photo.image_path.name}"


def collect(seeds: range, photos: Path, out: Path, workers: int = 2) -> None:
    """The detector's reports on the renders of `seeds` and the train split's photos, as crops
    with labels, saved to `out` (.npz)."""
    train = labelled_photos(photos, set(load_splits()["train"]))
    t0 = time.time()
    with Pool(workers) as pool:
        parts = pool.map(_photo_reports, train, chunksize=4)
        print(f"{len(train)} photos: {sum(len(p[1]) for p in parts)} crops ({time.time() - t0:.0f} s)", flush=True)
        for i, r in enumerate(pool.imap(_render_reports, seeds, chunksize=8)):
            parts.append(r)
            if (i + 1) % 200 == 0:
                print(f"{i + 1} renders ({time.time() - t0:.0f} s)", flush=True)
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    truth = np.concatenate([p[2] for p in parts])
    origin = np.array([p[3] for p in parts for _ in range(len(p[1]))])
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, x=x, y=y, truth=truth, origin=origin, seeds=np.array([seeds.start, seeds.stop]))
    print(f"{len(y)} crops: {int((~truth).sum())} reports ({int(y[~truth].sum())} cards), {int(truth.sum())} cards at their true corners: {out}")


class CardCheckNet(nn.Module):
    """N x CHANNELS x CROP x CROP (0..1 less 0.5) -> N x 1 logits: is this a card on its edges."""

    def __init__(self, widths: tuple[int, ...] = WIDTHS) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        c = CHANNELS
        for w in widths:
            layers += [
                nn.Conv2d(c, w, 3, padding=1, bias=False),
                nn.BatchNorm2d(w),
                nn.ReLU(inplace=True),
                nn.Conv2d(w, w, 3, stride=2, padding=1, bias=False),
                nn.BatchNorm2d(w),
                nn.ReLU(inplace=True),
            ]
            c = w
        self.features = nn.Sequential(*layers)
        side = CROP // 2 ** len(widths)
        # Flattened, not pooled: where the edges lie against the card's place in the crop tells a
        # card on its edges from one fitted a little off them.
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(c * side * side, 64), nn.ReLU(inplace=True), nn.Linear(64, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def _augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Mirrored either way (a card mirrored is a card), the frame's colours shuffled and its
    brightness and contrast changed (cards and tables of every colour)."""
    n = x.shape[0]
    flip = torch.rand(n, generator=gen) < 0.5
    x = torch.where(flip[:, None, None, None], x.flip(3), x)
    flip = torch.rand(n, generator=gen) < 0.5
    x = torch.where(flip[:, None, None, None], x.flip(2), x)
    perm = torch.stack([torch.randperm(3, generator=gen) for _ in range(n)])
    shuffle = torch.rand(n, generator=gen) < 0.3
    bgr = torch.where(shuffle[:, None, None, None], torch.gather(x[:, :3], 1, perm[:, :, None, None].expand(-1, -1, CROP, CROP)), x[:, :3])
    gain = 0.7 + 0.6 * torch.rand(n, 1, 1, 1, generator=gen)
    shift = 0.2 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    bgr = ((bgr + 0.5) * gain + shift).clamp(0, 1) - 0.5
    return torch.cat([bgr, x[:, 3:]], dim=1)


def _tensor(x: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(x).float() / 255.0 - 0.5


def train(data: list[Path], out: Path, epochs: int = 12, seed: int = 0, held_out: float = 0.15) -> Path:
    """Trains on `data` (files from `collect`); the reports on the last `held_out` of their
    render seeds are held out and scored each epoch. Saves `out/checkpoint.pt`."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    parts = [np.load(d) for d in data]
    x = np.concatenate([z["x"] for z in parts])
    y = np.concatenate([z["y"] for z in parts]).astype(np.float32)
    origin = np.concatenate([z["origin"] for z in parts])
    truth = np.concatenate([z["truth"] if "truth" in z else np.zeros(len(z["y"]), bool) for z in parts])
    renders = np.char.startswith(origin.astype(str), "render:")
    seed_of = np.array([int(o.split(":")[1]) if r else -1 for o, r in zip(origin, renders)])
    cut = np.quantile(seed_of[renders], 1 - held_out) if renders.any() else np.inf
    test = renders & (seed_of >= cut) & ~truth
    fit = ~(renders & (seed_of >= cut))
    repeat = np.where(renders[fit], 1, PHOTO_REPEAT)
    idx = np.repeat(np.flatnonzero(fit), repeat)
    frames, frame = np.unique(origin, return_inverse=True)
    others = np.bincount(frame, weights=(y == 0), minlength=len(frames))
    weight = np.where(y == 0, np.minimum(1.0, FRAME_OTHERS / np.maximum(others[frame], 1)), 1.0).astype(np.float32)
    pos = float((y[idx] * weight[idx]).sum() / weight[idx].sum())
    print(f"train {len(idx)} ({fit.sum()} reports, {pos:.2f} cards), held out {test.sum()}", flush=True)
    model = CardCheckNet()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = epochs * (len(idx) // 128 + 1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=steps)
    # Cards and not-cards weigh alike, whatever their counts.
    pos_weight = torch.tensor((1 - pos) / max(pos, 1e-6))
    out.mkdir(parents=True, exist_ok=True)
    log = []
    for epoch in range(epochs):
        model.train()
        order = idx[torch.randperm(len(idx), generator=gen).numpy()]
        total = 0.0
        for b in range(0, len(order), 128):
            j = order[b : b + 128]
            xb = _augment(_tensor(x[j]), gen)
            loss = F.binary_cross_entropy_with_logits(
                model(xb)[:, 0], torch.from_numpy(y[j]), weight=torch.from_numpy(weight[j]), pos_weight=pos_weight
            )
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(j)
        scores = _scores(model, x[test], y[test])
        log.append({"epoch": epoch + 1, "loss": round(total / len(order), 4), **scores})
        print(log[-1], flush=True)
    summary = [
        {
            "file": d.name,
            "render_seeds": [int(v) for v in z["seeds"]],
            "photo_sources": sorted({str(o).split(":")[1].split("/")[0] for o in z["origin"] if str(o).startswith("photo:")}),
            "crops": int(len(z["y"])),
            "cards": int(z["y"].sum()),
            "not_cards": int((z["y"] == 0).sum()),
        }
        for d, z in zip(data, parts)
    ]
    state = {"model": model.state_dict(), "widths": list(WIDTHS), "log": log, "data": summary, "seed": seed, "epochs": epochs}
    torch.save(state, out / "checkpoint.pt")
    return out / "checkpoint.pt"


@torch.no_grad()
def _scores(model: CardCheckNet, x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Of the held-out reports at 0.5: the share of cards kept and of not-cards dropped."""
    if len(y) == 0:
        return {}
    model.eval()
    p = np.concatenate([model(_tensor(x[i : i + 256]))[:, 0].numpy() for i in range(0, len(x), 256)]) > 0
    return {"cards_kept": round(float(p[y == 1].mean()), 4), "others_dropped": round(float((~p[y == 0]).mean()), 4)}


def export(checkpoint: Path, out: Path) -> Path:
    """The check as ONNX for cv2.dnn (any number of crops), with its model card beside it."""
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    model = CardCheckNet(tuple(state["widths"]))
    model.load_state_dict(state["model"])
    model.eval()
    torch.onnx.export(
        model,
        torch.zeros(1, CHANNELS, CROP, CROP),
        str(out),
        input_names=["crops"],
        output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    card = {
        "version": time.strftime("%Y%m%d", time.gmtime()),
        "input": f"N x {CHANNELS} x {CROP} x {CROP}: B, G, R, map interior, map boundary, inside the frame (0..1 less 0.5)",
        "network": f"CNN, widths {state['widths']}, flattened 4 x 4 then 64 then 1",
        "data": state["data"],
        "seed": state["seed"],
        "epochs": state["epochs"],
        "held_out_renders": state["log"][-1],
    }
    out.with_suffix(".json").write_text(json.dumps(card, indent=1) + "\n")
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.train.cardcheck", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--seeds", default="30000000:30001600", help="START:STOP of the render seeds")
    c.add_argument("--photos", type=Path, default=PHOTOS)
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--workers", type=int, default=2)
    t = sub.add_parser("train")
    t.add_argument("--data", type=Path, nargs="+", required=True)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--epochs", type=int, default=12)
    t.add_argument("--seed", type=int, default=0)
    e = sub.add_parser("export")
    e.add_argument("checkpoint", type=Path)
    e.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    if a.cmd == "collect":
        start, stop = (int(v) for v in a.seeds.split(":"))
        collect(range(start, stop), a.photos, a.out, a.workers)
    elif a.cmd == "train":
        train(a.data, a.out, a.epochs, a.seed)
    else:
        print(export(a.checkpoint, a.out))


if __name__ == "__main__":
    main()
