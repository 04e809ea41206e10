"""Train the pawn map (issue 26): a small network that marks, per pixel of the frame reduced as
for the card map, where a game piece stands and where its foot touches the table, learnt from
the randomised renders with pieces (`training_sample(..., pieces=True)`), not from hue ranges.

    pip install '.[train]'
    python -m vision.train.pawnmap --steps 3000 --out runs/pawnmap   # resumes runs/pawnmap/checkpoint.pt

It marks every piece a player could own - pawns, cones, meeples, discs, standees, and the same
shapes in colours no player has (`PIECE_KINDS`) - and not coins or dice: whose a piece is, and
whether it is anyone's, is its colour's to say, learnt at setup from the pieces on the starting
cards (`vision.pawns.PawnColors`), so any colours the players choose work. Outputs (logits, the
card map's stride): `piece`, the pixels of such a piece that show; `foot`, a peak at each foot
(a Gaussian as wide as a quarter of the footprint), scored with CenterNet's focal loss.

Renders come from seeds PAWN_SEED.. (validation from PAWN_VALIDATION_SEED..), which no other
training or bench uses; everything random takes the run's seed.
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

from vision.cardmap import MODELS
from vision.pawnmap import FOOT_PEAK, OUTPUTS, foot_peaks
from vision.train.__main__ import EMA_DECAY, averaged, averaged_weights, start_run, to_onnx
from vision.train.model import WIDTHS, network
from vision.train.pawntargets import pawn_targets, score_feet

PAWN_SEED = 80_000_000
PAWN_VALIDATION_SEED = 81_000_000
# Pieces are small: a pawn's footprint 8-20 px across in a 1280 px frame, 2-5 map px where the card
# map reads the frame (640 px, stride 2). The pawn map reads the frame at 1280 px (its map then
# 2 frame px a pixel), trained on renders of that size in windows of CROP.
RENDER_SIZE = (1280, 960)
CROP = (512, 384)  # training windows (multiples of 32)
PIECE_WEIGHT = 8.0
FOOT_PRIOR = 0.01  # the foot output starts this likely everywhere (CenterNet's start: its loss
# is summed over every pixel, and from 0.5 the negatives' share swamps the feet's)
CARD_MAP = MODELS / "cardmap.checkpoint.pt"
MODEL = MODELS / "pawnmap.onnx"


def _render(seed: int, stride: int = 2) -> tuple[np.ndarray, np.ndarray]:
    from vision.synthetic.randomised import training_sample

    s = training_sample(seed, RENDER_SIZE, pieces=True)
    return s.image, pawn_targets(s, stride).astype(np.float16)


def render_pool(seeds: list[int], workers: int, stride: int = 2) -> list[tuple[np.ndarray, np.ndarray]]:
    with Pool(workers) as pool:
        return pool.map(functools.partial(_render, stride=stride), seeds, chunksize=8)


def focal_loss(logits: torch.Tensor, target: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss on a heatmap, per foot: a peak (target 1) pulled up,
    every other pixel pushed down less the nearer it is to a foot."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = (target >= 1).float() * weight
    neg = (1 - (target >= 1).float()) * weight
    pos_loss = torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = torch.log(1 - p) * p**2 * (1 - target) ** 4 * neg
    return -(pos_loss + neg_loss).sum() / pos.sum().clamp(min=1.0)


def pawn_loss(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Binary cross-entropy on the piece map, its pixels weighed PIECE_WEIGHT times the rest (a
    frame's pieces cover a few hundredths of it: unweighed, marking none is nearly as good), and
    the focal loss on the feet."""
    w = y[:, 2]
    pw = w * (1 + (PIECE_WEIGHT - 1) * y[:, 0])
    piece = (F.binary_cross_entropy_with_logits(logits[:, 0], y[:, 0], reduction="none") * pw).sum() / w.sum().clamp(
        min=1.0
    )
    return piece + focal_loss(logits[:, 1], y[:, 1], w)


VALIDATION_PEAKS = (0.1, 0.15, 0.2, 0.3, 0.5)  # foot thresholds the validation reports


def validate(model: torch.nn.Module, seeds: list[int], stride: int) -> dict:
    """On validation renders (whole frames): the piece map's IoU, and per foot threshold of
    VALIDATION_PEAKS the feet found and the reports' precision (the threshold that exports is
    chosen from these)."""
    from vision.synthetic.randomised import training_sample

    model.eval()
    n, hit, false = 0, np.zeros(len(VALIDATION_PEAKS)), np.zeros(len(VALIDATION_PEAKS))
    inter = union = 0.0
    with torch.no_grad():
        for s in seeds:
            smp = training_sample(s, RENDER_SIZE, pieces=True)
            x = torch.from_numpy(smp.image).permute(2, 0, 1)[None].float()
            prob = torch.sigmoid(model(x))[0].numpy()
            for i, peak in enumerate(VALIDATION_PEAKS):
                k, h, f = score_feet((foot_peaks(prob[1], peak) + 0.5) * stride - 0.5, smp.pieces)
                hit[i], false[i] = hit[i] + h, false[i] + f
            n += k
            t = pawn_targets(smp, stride)
            inter += float(((prob[0] > 0.5) & (t[0] > 0.5)).sum())
            union += float(((prob[0] > 0.5) | (t[0] > 0.5)).sum())
    model.train()
    return {
        "feet": n,
        "piece_iou": round(inter / max(union, 1.0), 4),
        "by_peak": {
            str(peak): {"recall": round(h / max(n, 1), 4), "precision": round(h / max(h + f, 1), 4)}
            for peak, h, f in zip(VALIDATION_PEAKS, hit.tolist(), false.tolist())
        },
    }


def _batch(pool, idx, rng) -> tuple[torch.Tensor, torch.Tensor]:
    xs, ys = [], []
    cw, ch = CROP
    for i in idx:
        img, t = pool[i]
        h, w = img.shape[:2]
        x0 = int(rng.integers(0, (w - cw) // 2 + 1)) * 2
        y0 = int(rng.integers(0, (h - ch) // 2 + 1)) * 2
        img = img[y0 : y0 + ch, x0 : x0 + cw]
        t = t[:, y0 // 2 : (y0 + ch) // 2, x0 // 2 : (x0 + cw) // 2].astype(np.float32)
        if rng.random() < 0.5:
            img, t = img[:, ::-1], t[:, :, ::-1]
        if rng.random() < 0.5:
            img, t = img[::-1], t[:, ::-1]
        img = np.clip(img.astype(np.float32) * rng.uniform(0.75, 1.25) + rng.uniform(-20, 20), 0, 255)
        xs.append(np.ascontiguousarray(img))
        ys.append(np.ascontiguousarray(t))
    return torch.from_numpy(np.stack(xs)).permute(0, 3, 1, 2), torch.from_numpy(np.stack(ys))


def train(args: argparse.Namespace) -> None:
    ckpt, state = start_run(args)
    widths = tuple(state["widths"]) if state else tuple(int(w) for w in args.widths.split(","))
    model = network("unet", widths, 2, True, len(OUTPUTS))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    step, log = 0, []
    if state:
        # A slim checkpoint (`vision.train --slim`, the one committed between sessions) holds the
        # averaged weights in half precision and no optimizer: Adam's moments start again.
        model.load_state_dict({k: v.float() for k, v in state["model"].items()})
        if "optimizer" in state:
            opt.load_state_dict(state["optimizer"])
        step, log = state["step"], state["log"]
        print(f"resumed at step {step}")
    elif args.init:
        # The card map's weights know edges, cards and tables: every layer of the same shape is
        # taken, the head (other outputs) starts afresh.
        own = model.state_dict()
        weights = averaged_weights(torch.load(args.init, map_location="cpu", weights_only=False))
        taken = {k: v.float() for k, v in weights.items() if k in own and own[k].shape == v.shape}
        model.load_state_dict(taken, strict=False)
        print(f"started from {args.init}: {len(taken)} of {len(own)} tensors")
    if not state:
        with torch.no_grad():
            model.head.bias[1] = float(np.log(FOOT_PRIOR / (1 - FOOT_PRIOR)))
    ema = averaged(model)
    if state and "ema" in state:
        ema.load_state_dict(state["ema"])
    t0 = time.time()
    pool = render_pool(list(range(PAWN_SEED, PAWN_SEED + args.renders)), args.workers)
    val_seeds = list(range(PAWN_VALIDATION_SEED, PAWN_VALIDATION_SEED + args.validation))
    print(f"{len(pool)} renders in {time.time() - t0:.0f} s")
    rng = np.random.default_rng([args.seed, step])
    model.train()
    while step < args.steps:
        lr = args.lr * min(1.0, (step + 1) / 200) * 0.5 * (1 + np.cos(np.pi * step / args.steps))
        for g in opt.param_groups:
            g["lr"] = lr
        x, y = _batch(pool, rng.integers(0, len(pool), args.batch), rng)
        loss = pawn_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema.update_parameters(model)
        step += 1
        if step % 25 == 0:
            print(f"step {step} loss {loss.item():.4f} lr {lr:.5f} {time.time() - t0:.0f} s", flush=True)
        if step % args.every == 0 or step == args.steps:
            v = validate(ema.module, val_seeds, 2)
            log.append({"step": step, **v})
            print(json.dumps(log[-1]), flush=True)
            torch.save(
                {
                    "model": model.state_dict(),
                    "ema": ema.state_dict(),
                    "optimizer": opt.state_dict(),
                    "step": step,
                    "log": log,
                    "widths": list(widths),
                    "render_size": list(RENDER_SIZE),
                    "outputs": list(OUTPUTS),
                    "args": vars(args),
                },
                ckpt,
            )


def export(checkpoint: Path, out: Path = MODEL, foot_peak: float = FOOT_PEAK) -> Path:
    """The checkpoint's averaged weights as ONNX (any frame size, multiples of 32), and their model
    card beside them: version, input, outputs, the training command and its validation log."""
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    model = network("unet", tuple(state["widths"]), 2, True, len(OUTPUTS))
    model.load_state_dict(averaged_weights(state))
    to_onnx(model, out)
    args = {k: v for k, v in state["args"].items() if k not in ("out", "export", "to", "workers", "threads")}
    card = {
        "version": f"{time.strftime('%Y%m%d')}-step{state['step']}",
        "input_long_side": max(state.get("render_size", RENDER_SIZE)),
        "output_stride": 2,
        "outputs": list(OUTPUTS),
        "foot_peak": foot_peak,
        "network": f"U-Net, widths {list(state['widths'])}, the whole frame's context at its coarsest level, input"
        " BGR 0..255 (sides multiples of 32), output logits (piece, foot) at half resolution",
        "weights": f"the moving average of the trained weights (decay {EMA_DECAY})",
        "training_command": "python -m vision.train.pawnmap " + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in args.items()),
        "data": f"vision.synthetic.randomised training_sample(seed, {state.get('render_size', list(RENDER_SIZE))}, pieces=True), seeds"
        f" {PAWN_SEED}..{PAWN_SEED + args['renders'] - 1}; validation seeds {PAWN_VALIDATION_SEED}.."
        f"{PAWN_VALIDATION_SEED + args['validation'] - 1}",
        "validation": state["log"],
    }
    out.with_suffix(".json").write_text(json.dumps(card, indent=1) + "\n")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train.pawnmap", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="runs/pawnmap", help="folder of the checkpoint (resumed from when present)")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--renders", type=int, default=1200, help="renders in the training pool")
    ap.add_argument("--validation", type=int, default=48, help="validation renders")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--every", type=int, default=250, help="validate and save every N steps")
    ap.add_argument("--widths", default=",".join(map(str, WIDTHS)))
    ap.add_argument("--init", default=str(CARD_MAP), help="start from these weights ('' for none)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--export", metavar="CHECKPOINT", help="export a checkpoint's averaged weights to ONNX and stop")
    ap.add_argument("--to", default=str(MODEL), help="where --export writes the weights (their model card beside)")
    ap.add_argument(
        "--foot-peak", type=float, default=FOOT_PEAK, help="with --export: how likely a foot's peak must be (chosen on validation renders)"
    )
    args = ap.parse_args(argv)
    if args.export:
        print(export(Path(args.export), Path(args.to), args.foot_peak))
        return 0
    train(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
