"""Write the bundled sample game: `python -m vision.synthetic.sample_game --out sample_images`.

Deterministic: the same command writes the same files (frames, script, ground truth, ChArUco
photos). See sample_images/README.md for the layout.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import numpy as np

from vision.synthetic.camera import Camera, CameraPose
from vision.synthetic.charuco import BoardSpec, board_corners_mm, board_sheet
from vision.synthetic.conditions import PRESETS, Conditions
from vision.synthetic.game import DEFAULT_DECK, ScriptedGame, sample_game
from vision.synthetic.render import Renderer
from vision.synthetic.scene import Scene, Table

SCRIPT_VERSION = 1
FRAME_INTERVAL_S = 0.5
DISTORTION = (-0.06, 0.02, 0.0005, -0.0003, 0.0)


def game_camera() -> Camera:
    return Camera.for_resolution(
        "1080p",
        hfov_deg=54.0,
        distortion=DISTORTION,
        pose=CameraPose(height_mm=1100.0, tilt_deg=33.0, target_mm=(600.0, 320.0)),
    )


def game_conditions() -> Conditions:
    return PRESETS["green_felt"].replace(
        noise_sigma=2.0, jpeg_quality=72, light_azimuth_deg=115.0, uneven_light=0.22
    )


def script_json(g: ScriptedGame, cam: Camera) -> dict:
    entries = []
    last = len(g.frames) - 1
    for e in g.entries:
        a, b = e["frames"]
        a = min(a, last)
        entries.append({**e, "frames": [a, max(a, min(b, last))]})
    return {
        "version": SCRIPT_VERSION,
        "game": "masterplan",
        "seed": g.seed,
        "villain_powers": False,
        "reach_mm": g.reach_mm,
        "card_size_mm": list(g.size_mm),
        "table_mm": [g.table.width_mm, g.table.depth_mm],
        "players": [
            {"seat": s, "starting_card": g.seats[s].card_id, "pawn_color": g.seats[s].color} for s in g.order
        ],
        "trophy": g.trophy_id,
        "camera": cam.to_json(),
        "frame_interval_s": FRAME_INTERVAL_S,
        "frame_count": len(g.frames),
        # Secret: a referee client never sends these; they let a rules engine replay this game.
        "secret": {
            "hands": g.initial_hands,
            "deck_after_deal": g.drawn + g._rest,
            "deck_counts": DEFAULT_DECK,
        },
        "winner": g.winner,
        "entries": entries,
    }


def write_game(out: Path, quiet: bool = False) -> dict:
    g = sample_game()
    cam = game_camera()
    r = Renderer(cam, game_conditions(), g.table)
    frames_dir = out / "frames"
    frames_dir.mkdir(parents=True, exist_ok=True)
    with open(out / "ground_truth.jsonl", "w") as gt:
        for i, rec in enumerate(g.frames):
            f = r.render(rec.scene, seed=1000 + i)
            name = f"frames/frame_{i:04d}.jpg"
            (out / name).write_bytes(f.jpeg)  # type: ignore[arg-type]
            t = {
                "frame": i,
                "image": name,
                "time_s": round(i * FRAME_INTERVAL_S, 3),
                "entry": rec.entry,
                **f.truth,
            }
            gt.write(json.dumps(t, separators=(",", ":")) + "\n")
            if not quiet and i % 20 == 0:
                print(f"frame {i}/{len(g.frames)}", file=sys.stderr)
    script = script_json(g, cam)
    (out / "script.json").write_text(json.dumps(script, indent=1) + "\n")
    return script


def charuco_poses() -> list[tuple[str, CameraPose, tuple[float, float], float]]:
    """(file stem, camera pose, board centre mm, board angle) for each ChArUco photo."""
    game = game_camera().pose
    return [
        ("table_pose_1", game, (600.0, 330.0), 0.0),
        ("table_pose_2", game, (470.0, 200.0), 12.0),
        ("table_pose_3", game, (730.0, 520.0), -8.0),
        ("intrinsics_1", CameraPose(700.0, 0.0, 0.0, (600.0, 350.0)), (600.0, 350.0), 3.0),
        ("intrinsics_2", CameraPose(650.0, 25.0, 30.0, (560.0, 330.0)), (600.0, 350.0), 0.0),
        ("intrinsics_3", CameraPose(650.0, 30.0, -35.0, (640.0, 360.0)), (600.0, 350.0), -5.0),
        ("intrinsics_4", CameraPose(600.0, 35.0, 180.0, (600.0, 350.0)), (600.0, 350.0), 10.0),
        ("intrinsics_5", CameraPose(750.0, 20.0, 90.0, (620.0, 330.0)), (600.0, 350.0), 0.0),
        ("intrinsics_6", CameraPose(550.0, 15.0, -90.0, (700.0, 300.0)), (640.0, 330.0), 20.0),
    ]


def write_charuco(out: Path) -> None:
    spec = BoardSpec()
    d = out / "charuco"
    d.mkdir(parents=True, exist_ok=True)
    base = game_camera()
    cond = game_conditions().replace(jpeg_quality=85)
    table = Table()
    photos = []
    for stem, pose, centre, angle in charuco_poses():
        cam = Camera(base.width, base.height, base.fx, base.fy, base.cx, base.cy, base.distortion, pose)
        sheet = board_sheet(spec, centre, angle)
        f = Renderer(cam, cond, table).render(Scene(table=table, sheets=(sheet,)), seed=len(photos))
        (d / f"{stem}.jpg").write_bytes(f.jpeg)  # type: ignore[arg-type]
        corners = board_corners_mm(spec, sheet)
        photos.append(
            {
                "image": f"charuco/{stem}.jpg",
                "same_pose_as_game": pose == base.pose,
                "board_center_mm": list(centre),
                "board_angle_deg": angle,
                "charuco_corners_mm": np.round(corners, 4).tolist(),
                "charuco_corners_px": np.round(cam.project(corners), 4).tolist(),
                "camera": cam.to_json(),
            }
        )
    (d / "board.json").write_text(json.dumps(spec.to_json(), indent=1) + "\n")
    (d / "truth.json").write_text(json.dumps({"version": 1, "photos": photos}, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.synthetic.sample_game", description=__doc__)
    p.add_argument(
        "--out", default="sample_images", help="folder to write (its frames/ and charuco/ are replaced)"
    )
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    out = Path(args.out)
    for sub in ("frames", "charuco"):
        if (out / sub).exists():
            shutil.rmtree(out / sub)
    out.mkdir(parents=True, exist_ok=True)
    write_charuco(out)
    script = write_game(out, args.quiet)
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"wrote {script['frame_count']} frames, script and ground truth to {out} ({size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
