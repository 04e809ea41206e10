"""Train the card map, resume it, export it.

    pip install '.[train]'
    python -m vision.train --steps 6000 --out runs/cardmap          # resumes runs/cardmap/checkpoint.pt
    python -m vision.train --export runs/cardmap/checkpoint.pt      # -> vision/models/cardmap.onnx

Renders are made from seeds 0..renders-1 (validation renders from VALIDATION_SEED on, never
trained on); real photos come from the train split of data/real_photos (splits.json) where
they are on this machine (`--photos`, the folder the manifest's images are in). Everything
random takes the run's seed, so the same command on the same data gives the same weights.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

from vision.cardmap import MAP_LONG_SIDE
from vision.train.data import (
    INPUT_SIZE,
    PHOTOS,
    Example,
    augment,
    crop,
    labelled_photos,
    pack,
    photo_example,
    project_render_example,
    render_example,
    unpack,
)
from vision.train.model import OUTPUTS, TEXT_DETECTOR, TEXT_DETECTOR_FILE, WIDTHS, network
from vision.train.quantize import CALIBRATION_PHOTOS, CALIBRATION_RENDERS, calibration_frames, quantize
from vision.train.sampling import HardSampler
from vision.train.splits import load as load_splits

# Seeds of the project's own renderer's frames in training, and of the validation frames (both
# renderers), far from the benchmarks' seeds (1e6..5e6), which no training run may see.
PROJECT_SEED = 20_000_000
VALIDATION_SEED = 50_000_000
ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "vision" / "models" / "cardmap.onnx"
BOUNDARY_WEIGHT = 4.0  # boundary pixels are few, and missing one merges two cards
WARMUP_STEPS = 200
# The weights exported are an exponential moving average of the trained ones over about the last
# 1 / (1 - EMA_DECAY) steps (batch-norm statistics averaged alike): checkpoints of one run 250
# steps apart found 61-68 % of one seed's rendered cards, and the average of two checkpoints made
# by hand, their batch-norm statistics halved, was worse than either.
EMA_DECAY = 0.999


def _render(seed: int, stride: int = 2, keys: bool = False, projector: bool = False) -> tuple[np.ndarray, np.ndarray]:
    size = INPUT_SIZE if seed % 4 else INPUT_SIZE[::-1]  # a quarter of the frames portrait
    if seed % VALIDATION_SEED >= PROJECT_SEED:
        return pack(project_render_example(seed, size, stride))
    return pack(render_example(seed, size, stride, keys, projector))


def render_pool(
    seeds: list[int],
    workers: int,
    cache: Path | None = None,
    stride: int = 2,
    keys: bool = False,
    projector: bool = False,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The frames of `seeds` with targets for a network of `stride` (with keyboards when `keys`,
    a projector's light when `projector`),
    from `cache` when an earlier run of the same seeds and settings saved them (renders are
    deterministic in their seed: the cache only saves time)."""
    if cache is not None and cache.exists():
        with np.load(cache) as z:
            # Caches from before the packed targets name no stride, and are made again; those
            # from before keyboards name no keys, and have none.
            # Caches from before the core have no core bit, and are made again.
            same = "stride" in z and int(z["stride"]) == stride and z["seeds"].tolist() == list(seeds) and "core" in z
            same = same and ("keys" in z and bool(z["keys"])) == keys
            same = same and ("projector" in z and bool(z["projector"])) == projector
            # A cache drawn before the renderer or the targets changed holds other frames: its
            # first one tells.
            first = _render(seeds[0], stride, keys, projector) if same and seeds else None
            if first is not None and np.array_equal(z["image0"], first[0]) and np.array_equal(z["maps0"], first[1]):
                return [(z[f"image{i}"], z[f"maps{i}"]) for i in range(len(seeds))]
            print(f"{cache} holds other frames (other seeds, settings or renderer): drawn again")
    with Pool(workers) as pool:
        frames = pool.map(functools.partial(_render, stride=stride, keys=keys, projector=projector), seeds, chunksize=8)
    if cache is not None:
        arrays = {f"image{i}": f[0] for i, f in enumerate(frames)} | {f"maps{i}": f[1] for i, f in enumerate(frames)}
        np.savez(cache, seeds=np.array(seeds), stride=stride, keys=keys, projector=projector, core=True, **arrays)
    return frames


def _batch(examples: list[Example]) -> tuple[torch.Tensor, torch.Tensor]:
    x = torch.from_numpy(np.stack([e.image for e in examples])).permute(0, 3, 1, 2).float()
    # Channels: interior, boundary, weight, core (the weight third, where it always was).
    y = torch.from_numpy(
        np.stack([np.stack([e.targets.interior, e.targets.boundary, e.targets.weight, e.targets.core]) for e in examples])
    )
    return x, y


def shared_boundary(y: torch.Tensor) -> torch.Tensor:
    """Of the target boundary `y[:, 1]`, the pixels where two cards meet: card (interior) all
    around, where a card's edge against the table always has table beside it."""
    off_card = F.max_pool2d(1 - y[:, 0:1], 3, stride=1, padding=1)[:, 0]
    return y[:, 1] * (1 - off_card)


def map_loss(logits: torch.Tensor, y: torch.Tensor, shared_weight: float = 0.0) -> torch.Tensor:
    """Weighted binary cross-entropy on interior and boundary (and core, for a network that marks
    it), plus a soft Dice on the boundary (it keeps the thin band from fading out where cards are
    few). `shared_weight` weighs the boundary where two cards meet that much more again: missing
    it merges the two, and such pixels are few beside the edges against the table."""
    w = y[:, 2]
    denom = w.sum().clamp(min=1.0)
    interior = (F.binary_cross_entropy_with_logits(logits[:, 0], y[:, 0], reduction="none") * w).sum() / denom
    bw = w * (1 + (BOUNDARY_WEIGHT - 1) * y[:, 1] + shared_weight * shared_boundary(y))
    boundary = (F.binary_cross_entropy_with_logits(logits[:, 1], y[:, 1], reduction="none") * bw).sum() / denom
    p = torch.sigmoid(logits[:, 1]) * w
    dice = 1 - (2 * (p * y[:, 1]).sum() + 1) / (p.sum() + (y[:, 1] * w).sum() + 1)
    loss = interior + boundary + 0.5 * dice
    if logits.shape[1] > 2:
        loss = loss + (F.binary_cross_entropy_with_logits(logits[:, 2], y[:, 3], reduction="none") * w).sum() / denom
    return loss


@torch.no_grad()
def map_scores(model: torch.nn.Module, examples: list[Example]) -> dict[str, float]:
    """Interior IoU and boundary F1 at 0.5 over the scored pixels of `examples` (and core IoU, for
    a network that marks it)."""
    model.eval()
    tp = np.zeros(3)
    fp = np.zeros(3)
    fn = np.zeros(3)
    by_shape: dict[tuple, list[Example]] = {}
    for e in examples:
        by_shape.setdefault(e.image.shape, []).append(e)
    batches = [same[i : i + 8] for same in by_shape.values() for i in range(0, len(same), 8)]
    for b in batches:
        x, y = _batch(b)
        p = (model(x) > 0).numpy()
        t = y[:, [0, 1, 3][: p.shape[1]]].numpy() > 0.5
        w = y[:, 2:3].numpy() > 0.5
        n = p.shape[1]
        tp[:n] += (p & t & w).sum(axis=(0, 2, 3))
        fp[:n] += (p & ~t & w).sum(axis=(0, 2, 3))
        fn[:n] += (~p & t & w).sum(axis=(0, 2, 3))
    model.train()
    iou = tp / np.maximum(1, tp + fp + fn)
    f1 = 2 * tp[1] / max(1, 2 * tp[1] + fp[1] + fn[1])
    out = {"interior_iou": round(float(iou[0]), 4), "boundary_f1": round(float(f1), 4)}
    if model.outputs > 2:
        out["core_iou"] = round(float(iou[2]), 4)
    return out


def export(checkpoint: Path, out: Path = MODEL, photos: Path | None = PHOTOS, int8: bool = False) -> Path:
    """The trained weights as ONNX, with any frame size (multiples of 32): their moving average
    (`EMA_DECAY`) where the checkpoint keeps one; with `int8` in 8 bits (`vision.train.quantize`,
    the activations' ranges measured on training renders and the train photos under `photos`)."""
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    model = _network(state)
    model.load_state_dict(averaged_weights(state))
    if int8:
        with tempfile.TemporaryDirectory() as tmp:
            float32 = to_onnx(model, Path(tmp) / "float32.onnx")
            quantize(float32, out, calibration_frames(photos), _long_sides(state)[-1])
    else:
        to_onnx(model, out)
    write_card(state, out.with_suffix(".json"), int8=int8)
    return out


def to_onnx(model: torch.nn.Module, out: Path) -> Path:
    """The network as ONNX for cv2.dnn, taking frames of any size (multiples of 32)."""
    model.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    x = torch.zeros(1, 3, INPUT_SIZE[1], INPUT_SIZE[0])
    torch.onnx.export(
        model,
        x,
        str(out),
        input_names=["image"],
        output_names=["logits"],
        dynamic_axes={"image": {2: "height", 3: "width"}, "logits": {2: "map_height", 3: "map_width"}},
        opset_version=17,
        dynamo=False,
    )
    return out


def averaged(model: torch.nn.Module) -> torch.optim.swa_utils.AveragedModel:
    """The moving average (`EMA_DECAY`) of `model`'s weights and batch-norm statistics, updated by
    `update_parameters(model)` after each step; torch's own, not a hand-written copy loop."""
    swa = torch.optim.swa_utils
    return swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(EMA_DECAY), use_buffers=True)


def averaged_weights(state: dict) -> dict:
    """A checkpoint's weights to use: their moving average when it keeps one (runs from before it
    keep only the trained weights)."""
    ema = state.get("ema")
    if ema is None:
        return state["model"]
    return {k.removeprefix("module."): v for k, v in ema.items() if k.startswith("module.")}


def slim(checkpoint: Path) -> Path:
    """The checkpoint without its optimizer state, its weights the moving average (the ones
    exported) in half precision, beside it (`<name>.slim.pt`): a sixth of the size, for carrying a training run
    from one session to the next in the repository. A run resumed from it starts from the
    averaged weights, and its average starts again there."""
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    state.pop("optimizer", None)
    # In half precision: the wider network's weights are 6 MB in float32. A run from them loads
    # them back into float32 (`load_state_dict` converts), and training moves them far more than
    # half precision's rounding (about 1e-3 of each weight) does.
    state["model"] = {k: v.half() if v.is_floating_point() else v for k, v in averaged_weights(state).items()}
    # Its weights are the average even with the average's copy gone: the model card says so.
    state["averaged"] = state.pop("ema", None) is not None or state.get("averaged", False)
    out = checkpoint.with_suffix(".slim.pt")
    torch.save(state, out)
    return out


def _long_sides(state: dict) -> list[int]:
    """The frames' long side in each run: the weights read frames at their last run's (runs
    before it was recorded: 512)."""
    return [r.get("input_long_side", 512) for r in state.get("runs", [])] or [MAP_LONG_SIDE]


def write_card(state: dict, path: Path, int8: bool = False) -> None:
    """The model card beside the weights: what it was trained on, how, and how it scored."""
    args = state["args"]
    old = json.loads(path.read_text()) if path.exists() else {}
    splits = load_splits()
    runs = state.get("runs", [])
    version = f"{time.strftime('%Y%m%d')}-step{state['step']}" + ("-int8" if int8 else "")
    sides = _long_sides(state)
    stride = state.get("stride", 2)
    card = {
        "version": version,
        "input_long_side": sides[-1],
        "output_stride": stride,
        "network": (
            f"PP-OCRv4's text detector (PaddleOCR, Apache-2.0; rapidocr-onnxruntime's {TEXT_DETECTOR_FILE[1]}) "
            "to its head's half-resolution features, then a 1 x 1 convolution"
            if state.get("backbone") == TEXT_DETECTOR
            else f"U-Net, widths {list(state['widths'])}"
            + (", with the whole frame's context at its coarsest level" if state.get("scene") else "")
        )
        + f", input BGR 0..255 with long side {sides[-1]} px "
        f"(sides multiples of 32), output logits ({', '.join(OUTPUTS[: state.get('outputs', 2)])}) at "
        + ("half resolution" if stride == 2 else "the input's resolution (a pixel shuffle of the half-resolution features)"),
        "weights": (
            f"the moving average of the trained weights over their last steps (decay {EMA_DECAY})"
            if "ema" in state or state.get("averaged")
            else "the trained weights at their last step"
        )
        + (
            f"; in 8 bits (vision.train.quantize: onnxruntime's static QDQ quantization, weights per channel,"
            f" activations' ranges from training renders seeds 0..{CALIBRATION_RENDERS - 1} and up to"
            f" {CALIBRATION_PHOTOS} train photos)"
            if int8
            else ""
        ),
        # One command per run; each later one resumed the weights of the one before.
        "training_commands": [_command(r["args"]) for r in runs] or [_command(args)],
        "input_long_side_per_run": sides,
        "data": {
            "randomised_renders": f"vision.synthetic.randomised seeds 0..{args['renders'] - 1}",
            "project_renders": f"vision.train.data.project_render_example seeds {PROJECT_SEED}..{PROJECT_SEED + args['project_renders'] - 1}",
            "real_photos_train_sources": splits["train"],
            "real_photos_trained_on_per_run": [r["train_photos"] for r in runs],
            "validation": f"renders seeds {VALIDATION_SEED}.. and the validation sources {splits['validation']}",
            "test_sources_never_trained_or_tuned_on": splits["test"],
        },
        "validation_log": state["log"],
        # Kept from the card before: figures a bench run wrote for these weights' predecessors are
        # dropped, as they no longer hold.
        "test": old.get("test", {}) if old.get("version") == version else {},
    }
    path.write_text(json.dumps(card, indent=1) + "\n")


def _network(state: dict) -> torch.nn.Module:
    """The network a checkpoint's weights are for (checkpoints from before an option lack it)."""
    return network(
        state.get("backbone", "unet"),
        tuple(state["widths"]),
        state.get("stride", 2),
        state.get("scene", False),
        state.get("outputs", 2),
    )


def _head_with_core(init: dict, own: dict) -> dict:
    """From weights without the core (`vision.cardmap.CORE_SHARE`), a head that marks it: their head,
    its core output a copy of their interior, so the run starts where they were (a card's core
    lies within its interior) and learns only where the core ends. Empty for any other pair."""
    if init.get("outputs", 2) != 2:
        return {}
    out = {}
    # A stride-2 head's keys (a stride-1 head is a pixel shuffle, and starts afresh).
    for k in ("head.weight", "head.bias"):
        v = init["model"].get(k)
        if v is not None and k in own and own[k].shape == (3, *v.shape[1:]):
            out[k] = torch.cat([v, v[:1]])
    return out


def _command(args: dict) -> str:
    """The command line of a run's arguments (a flag alone when set, left out when not)."""
    words = []
    for k, v in args.items():
        if k == "out" or v is None or v is False or v == "":
            continue
        words.append(f"--{k.replace('_', '-')}" + ("" if v is True else f" {v}"))
    return " ".join(["python -m vision.train", *words])


def start_run(args: argparse.Namespace) -> tuple[Path, dict | None]:
    """A run's start: torch seeded and given its threads; the run's checkpoint (in `args.out`,
    made if need be) and what it holds when the run resumes from it (None for a new run)."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ckpt = out / "checkpoint.pt"
    return ckpt, torch.load(ckpt, map_location="cpu", weights_only=False) if ckpt.exists() else None


def train(args: argparse.Namespace) -> None:
    ckpt, state = start_run(args)
    init = None
    if state is None and args.init:
        init = torch.load(args.init, map_location="cpu", weights_only=False)
    if state:
        model = _network(state)
    elif init:
        # (a run from other weights keeps their network: its widths, or the text detector's)
        model = network(init.get("backbone", "unet"), tuple(init["widths"]), args.stride, args.scene)
    else:
        model = network(args.backbone, tuple(int(w) for w in args.widths.split(",")), args.stride, args.scene)
    stride = model.stride
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    step, log, runs = 0, [], []
    if init:
        # A new run from another's weights: every layer of the same shape is taken (a new head
        # for another stride starts afresh).
        own = model.state_dict()
        weights = averaged_weights(init)
        taken = {k: v for k, v in weights.items() if k in own and own[k].shape == v.shape}
        taken |= _head_with_core(init | {"model": weights}, own)
        model.load_state_dict(taken, strict=False)
        # The runs that made those weights stay on record: the model card lists every command.
        runs = init.get("runs", [])
        print(f"started from {args.init} (step {init['step']}): {len(taken)} of {len(own)} tensors")
    if state:
        model.load_state_dict(state["model"])
        # A slim checkpoint (`--slim`, the one committed between sessions) has no optimizer
        # state: Adam's moments start again, which a few hundred steps make good.
        if "optimizer" in state:
            opt.load_state_dict(state["optimizer"])
        step, log, runs = state["step"], state["log"], state.get("runs", [])
        print(f"resumed at step {step} (widths {list(model.widths)})")
    ema = averaged(model)
    if state and "ema" in state:
        ema.load_state_dict(state["ema"])
    t0 = time.time()
    seeds = list(range(args.renders)) + list(range(PROJECT_SEED, PROJECT_SEED + args.project_renders))
    cache = Path(args.pool_cache) if args.pool_cache else None
    pool = render_pool(seeds, args.workers, cache, stride, args.keys, args.projector)
    val_seeds = [VALIDATION_SEED + i for i in range(48)] + [VALIDATION_SEED + PROJECT_SEED + i for i in range(16)]
    val_pool = render_pool(val_seeds, args.workers, stride=stride, keys=args.keys, projector=args.projector)
    val_renders = [unpack(*p) for p in val_pool]
    print(f"{len(pool)} renders in {time.time() - t0:.0f} s")
    landscape = np.array([i for i, p in enumerate(pool) if p[0].shape[1] > p[0].shape[0]])
    portrait = np.array([i for i, p in enumerate(pool) if p[0].shape[1] < p[0].shape[0]])
    splits = load_splits()
    photos_dir = Path(args.photos)
    train_photos = labelled_photos(photos_dir, set(splits["train"]))
    # The losses kept for each frame go with the checkpoint while the pool and photos are the same.
    kept = state.get("hard_losses") if state else None
    if kept is not None and (len(kept["renders"]) != len(pool) or len(kept["photos"]) != len(train_photos)):
        kept = None
    hard_renders = HardSampler(len(pool), args.hard_share, kept["renders"] if kept else None)
    hard_photos = HardSampler(len(train_photos), args.hard_share, kept["photos"] if kept else None)
    all_photos = np.arange(len(train_photos))
    val_photos = labelled_photos(photos_dir, set(splits["validation"]))
    vrng = np.random.default_rng(VALIDATION_SEED)
    val_real = [photo_example(p, vrng, stride=stride) for p in val_photos]
    print(f"real photos: {len(train_photos)} train, {len(val_photos)} validation")
    # What this run (one resumption of the weights' training) was given, for the model card.
    runs = runs + [
        {
            "from_step": step,
            # The network's own: a run from other weights (`--init`, or resumed) keeps theirs.
            "args": {k: v for k, v in vars(args).items() if k != "export"}
            | {"widths": ",".join(map(str, model.widths)), "backbone": model.backbone},
            "input_long_side": MAP_LONG_SIDE,
            "train_photos": [f"{p.source}/{p.image_path.name}" for p in train_photos],
        }
    ]
    rng = np.random.default_rng([args.seed, step])
    model.train()
    while step < args.steps:
        warm = min(1.0, (step + 1) / WARMUP_STEPS)
        lr = args.lr * warm * 0.5 * (1 + math.cos(math.pi * step / args.steps))
        for g in opt.param_groups:
            g["lr"] = lr
        # One shape per batch: a quarter of the batches portrait.
        size = INPUT_SIZE[::-1] if rng.random() < 0.25 else INPUT_SIZE
        renders = portrait if size != INPUT_SIZE else landscape
        batch, drawn = [], []
        for _ in range(args.batch):
            if train_photos and rng.random() < args.real_share:
                i = hard_photos.draw(rng, all_photos)
                ex = photo_example(train_photos[i], rng, size, stride)
                drawn.append((hard_photos, i))
            else:
                i = hard_renders.draw(rng, renders)
                ex = unpack(*pool[i])
                drawn.append((hard_renders, i))
            batch.append(crop(augment(ex, rng), args.crop, rng))
        x, y = _batch(batch)
        logits = model(x)
        loss = map_loss(logits, y, args.shared_weight)
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema.update_parameters(model)
        if args.hard_share > 0:
            with torch.no_grad():
                for k, (sampler, i) in enumerate(drawn):
                    sampler.report(i, map_loss(logits[k : k + 1], y[k : k + 1], args.shared_weight).item())
        step += 1
        if step % 50 == 0:
            print(f"step {step} loss {loss.item():.4f} lr {lr:.5f} {time.time() - t0:.0f} s", flush=True)
        if step % args.every == 0 or step == args.steps:
            entry = {"step": step, "renders": map_scores(model, val_renders)}
            if val_real:
                entry["real"] = map_scores(model, val_real)
            entry["averaged"] = {"renders": map_scores(ema.module, val_renders)}
            if val_real:
                entry["averaged"]["real"] = map_scores(ema.module, val_real)
            log.append(entry)
            print(json.dumps(entry), flush=True)
            torch.save(
                {
                    "model": model.state_dict(),
                    "optimizer": opt.state_dict(),
                    "ema": ema.state_dict(),
                    "step": step,
                    "log": log,
                    "backbone": model.backbone,
                    "widths": model.widths,
                    "stride": model.stride,
                    "scene": model.scene,
                    "outputs": model.outputs,
                    "args": vars(args),
                    "runs": runs,
                    "hard_losses": {"renders": hard_renders.loss, "photos": hard_photos.loss},
                },
                ckpt,
            )
    print(f"done: {ckpt}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train", description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="runs/cardmap", help="folder of the checkpoint (resumed from when present)")
    ap.add_argument("--steps", type=int, default=6000)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--renders", type=int, default=6000, help="renders in the training pool (seeds 0..N-1)")
    ap.add_argument(
        "--project-renders", type=int, default=600, help="frames of the project's own renderer in the pool"
    )
    ap.add_argument("--real-share", type=float, default=0.3, help="share of training frames from real photos")
    ap.add_argument("--photos", default=str(PHOTOS), help="folder holding the real photos")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--crop", type=float, default=0.75, help="train on windows of this share of each side")
    ap.add_argument("--pool-cache", default="", help="an .npz to keep the rendered pool in between runs")
    ap.add_argument("--every", type=int, default=250, help="validate and save every N steps")
    ap.add_argument(
        "--hard-share", type=float, default=0.0,
        help="share of the frames drawn by their last loss rather than uniformly (vision.train.sampling)",
    )
    ap.add_argument(
        "--shared-weight", type=float, default=0.0,
        help="weigh the boundary where two cards meet this much more (touching cards the map merges)",
    )
    ap.add_argument(
        "--keys", action="store_true",
        help="renders hold a keyboard or a keypad now and then (grids of keys: not cards)",
    )
    ap.add_argument(
        "--projector", action="store_true",
        help="renders lit by a projector's rings, arcs and labels now and then (light on the table: not cards)",
    )
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument(
        "--widths", default=",".join(map(str, WIDTHS)), help="channels per level of a new network (a resumed one keeps its own)"
    )
    ap.add_argument(
        "--stride", type=int, default=2, choices=(1, 2),
        help="a new network's map: at half the input's resolution (2) or at it (1)",
    )
    ap.add_argument(
        "--scene", action="store_true",
        help="a new network sees the whole frame at its coarsest level (vision.train.model: `scene`)",
    )
    ap.add_argument(
        "--backbone", default="unet", choices=("unet", TEXT_DETECTOR),
        help="a new network: the U-Net, or PP-OCRv4's text detector's layers, learnt on real photos (vision.train.model)",
    )
    ap.add_argument(
        "--init", metavar="CHECKPOINT", help="a new run starts from these weights (the layers whose shapes match)"
    )
    ap.add_argument("--export", metavar="CHECKPOINT", help="export a checkpoint to ONNX and stop")
    ap.add_argument(
        "--int8", action="store_true",
        help="with --export: in 8 bits (activations' ranges from training renders and the train photos under --photos;"
        " not shipped: see README)",
    )
    ap.add_argument("--slim", metavar="CHECKPOINT", help="write CHECKPOINT without its optimizer state (to commit) and stop")
    args = ap.parse_args(argv)
    if args.export:
        print(export(Path(args.export), photos=Path(args.photos), int8=args.int8))
        return 0
    if args.slim:
        print(slim(Path(args.slim)))
        return 0
    train(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
