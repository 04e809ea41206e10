"""Renderer speed: ms per frame at 720p and 1080p (`python -m bench.renderer`).

Baseline in the same run: the bare remap of the table raster (the one unavoidable per-pixel
step), so the ratio says how much the scene, light and sensor steps add on top of it.
"""

from __future__ import annotations

import argparse
import time

import cv2

from vision.synthetic import PRESETS, Camera, CameraPose, Hand, Renderer, random_scene


def _ms(fn, repeats: int) -> float:
    fn()
    t = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - t) * 1000 / repeats


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.renderer", description=__doc__)
    p.add_argument("--quick", action="store_true", help="fewer repeats")
    args = p.parse_args(argv)
    repeats = 2 if args.quick else 8
    scene = random_scene(1, n_cards=20).replace(hands=(Hand((600, 350), (600, -380), 60.0),))
    print(f"{'resolution':>10} {'frame ms':>9} {'remap ms':>9} {'ratio':>6}")
    for res in ("720p", "1080p"):
        cam = Camera.for_resolution(
            res, distortion=(-0.06, 0.02, 0, 0, 0), pose=CameraPose(1100, 33, 0, (600, 320))
        )
        r = Renderer(cam, PRESETS["wood"].replace(glare=0.2, motion_blur_px=2.0))
        frame = _ms(lambda r=r: r.render(scene, seed=1), repeats)
        remap = _ms(lambda r=r: cv2.remap(r._albedo, r._map1, r._map2, cv2.INTER_LINEAR), repeats)
        print(f"{res:>10} {frame:9.1f} {remap:9.1f} {frame / remap:6.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
