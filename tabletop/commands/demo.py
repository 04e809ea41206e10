"""`tabletop demo`: the whole pipeline on the bundled sample game (or a live table).

calibrate from the sample's ChArUco photos -> vision on every frame -> the camera feed turns
what it sees into Master Plan commands for a real referee session (SQLite event file) -> the
players' spoken commands (skip a step, draw) at the frames the script gives -> the overview
drawn for every frame (window if there is a display, MP4 always) and the projector view ->
a summary of the game.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from tabletop.commands import CommandError
from tabletop.commands.paths import out_folder
from tabletop.commands.web import add_web_options

DEFAULT_OUT = "tabletop-demo-output"
OVERVIEW_SIZE = (1280, 720)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo",
        help="run the whole referee on the bundled sample game (no camera needed)",
        description=(
            "Run calibration -> vision -> referee -> display on the bundled sample_images/ game and print "
            "a summary of the game; the overview video, projector view, event file and summary go to --out."
        ),
    )
    p.add_argument("--camera", type=int, metavar="N", help="use webcam number N instead of the samples")
    p.add_argument("--samples", metavar="DIR", help="the sample game folder (default: ./sample_images)")
    p.add_argument(
        "--out", default=DEFAULT_OUT, metavar="DIR", help="where the output goes (default: %(default)s)"
    )
    p.add_argument("--frames", type=int, metavar="N", help="only the first N frames (a shorter run)")
    p.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="run vision on frames scaled by this factor (default: %(default)s; 1 = full size, slower)",
    )
    p.add_argument("--no-window", action="store_true", help="never open a window, even with a display")
    p.add_argument(
        "--players",
        default="Monster Nash:Monster Nash,Ms. Fyre:Ms. Fyre,Z-Mask:Z-Mask",
        help="with --camera: the seats as NAME:VILLAIN (default: %(default)s)",
    )
    p.add_argument(
        "--calibration",
        default="calibration.json",
        help="with --camera: the table's calibration file (default: %(default)s)",
    )
    p.add_argument("--pawns", metavar="COLOR=SEAT,...", help="with --camera: each seat's pawn colour")
    p.add_argument(
        "--web",
        type=int,
        metavar="PORT",
        help="with --camera: also serve the web view on PORT (a link per seat for phones, /table)",
    )
    add_web_options(p, port_flag="--web")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.frames is not None and args.frames < 1:
        raise CommandError("--frames must be 1 or more")
    if not 0.2 <= args.scale <= 1.0:
        raise CommandError("--scale must be between 0.2 and 1")
    # the demo writes a folder of files (video, pictures, summary, event file): never a y.gif/ folder
    out_folder(args.out, files=" (the overview video, pictures and summary all go into it)")
    if args.camera is not None:
        return _live(args)
    if args.web is not None:
        raise CommandError(
            "--web goes with --camera: the bundled sample is played straight through, with no referee "
            "service for browsers to follow (run 'tabletop referee ... --web PORT' for a game)"
        )
    from referee.sample import SampleError, SampleGame, find_samples

    try:
        game = SampleGame.load(find_samples(args.samples))
    except SampleError as exc:
        raise CommandError(str(exc)) from None
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandError(f"cannot write to {out}: {exc}") from None
    window = not args.no_window and _has_display()
    result = run_sample(game, out, frames=args.frames, scale=args.scale, window=window, progress=sys.stderr)
    print(result["summary_text"])
    print()
    print("output:")
    for what, path in result["files"].items():
        print(f"  {what:<12} {path}")
    return 0


def _has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or sys.platform in (
        "win32",
        "darwin",
    )


class Progress:
    """A one-line progress bar on a text stream (stderr)."""

    def __init__(self, stream: Any, total: int, label: str) -> None:
        self.stream, self.total, self.label = stream, max(total, 1), label
        self.t0 = time.monotonic()

    def show(self, done: int, note: str = "") -> None:
        if self.stream is None:
            return
        width = 30
        filled = int(width * done / self.total)
        rate = done / max(time.monotonic() - self.t0, 1e-6)
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{self.total}"
            f" {rate:4.1f} frames/s {note[:40]:<40}"
        )
        self.stream.flush()

    def done(self) -> None:
        if self.stream is not None:
            self.stream.write("\n")
            self.stream.flush()


def run_sample(
    game: Any,
    out: Path,
    frames: int | None = None,
    scale: float = 1.0,
    window: bool = False,
    progress: Any = None,
    workers: int | None = None,
) -> dict[str, Any]:
    """Play the sample game through the whole pipeline; return the summary and output paths."""
    from display.overview import render_overview
    from display.projector import render_projector
    from display.sinks import SinkError, VideoEncoder
    from referee.camera import TableWatcher, read_in_parallel
    from referee.masterplan_camera import CameraFeed
    from referee.sample import SampleReferee, virtual_projector
    from referee.session import GameSession
    from referee.store import EventStore

    t_start = time.monotonic()
    paths = game.frames[:frames] if frames else game.frames
    cal = game.calibrate()
    virtual_projector(cal, tuple(game.script.get("table_mm", (1200.0, 900.0))))
    cal_path = out / "calibration.json"
    cal.save(cal_path)
    watcher = TableWatcher(cal, pawn_colors=list(game.pawn_colors), scale=scale)
    db_path = out / "game.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    store = EventStore(db_path)
    referee = SampleReferee(game, store)
    session: GameSession | None = None
    feed: CameraFeed | None = None
    video_path = out / "overview.mp4"
    writer: VideoEncoder | None = VideoEncoder(video_path, 1.0 / game.frame_interval_s)
    png_dir = None
    # The projector picture is taken at the turn with the most legal jumps: at game over
    # nobody can move and it is black.
    showcase: tuple[int, dict[str, Any], int] | None = None  # legal jumps, state, frame
    bar = Progress(progress, len(paths), "tabletop demo")
    picture, drawn_at = None, (-2, -1)
    events: list[dict[str, Any]] = []
    for index, (reading, image) in enumerate(read_in_parallel(paths, watcher.vision, workers)):
        referee.observe(watcher.track(reading, image, index, index * game.frame_interval_s), index)
        session, feed = referee.session, referee.feed
        if session is not None and (session.seq, len(feed.notices) if feed else 0) != drawn_at:
            drawn_at = (session.seq, len(feed.notices) if feed else 0)
            events = [session.adapter.public_event(e) for _, e in store.events()]
            state = session.public_state()
            if feed is not None:
                state = {**state, "camera": feed.status()}
            picture = render_overview("masterplan", state, events[-12:], OVERVIEW_SIZE)
            legal = legal_jumps(state)
            if legal and (showcase is None or legal > showcase[0]):
                showcase = (legal, state, index)
        elif picture is None:
            picture = _waiting_picture(index)
        if writer is not None:
            try:
                writer.write(picture)
            except SinkError:  # no MP4 encoder at all here: a PNG sequence instead
                writer = None
                png_dir = out / "overview"
                png_dir.mkdir(exist_ok=True)
        if png_dir is not None:
            cv2.imwrite(str(png_dir / f"overview_{index:04d}.png"), picture)
        if window:
            cv2.imshow("tabletop demo - overview", picture)
            cv2.waitKey(1)
        bar.show(index + 1, f"turn of {session.game.current}" if session is not None else "waiting for setup")
    bar.done()
    if writer is not None:
        writer.close()
    if window:
        cv2.destroyAllWindows()
    files: dict[str, str] = {"overview": str(png_dir or video_path)}
    if session is None:
        raise CommandError("the camera never saw the starting cards and the Trophy: no game was played")
    state = session.public_state()
    cv2.imwrite(str(out / "overview_last.png"), picture)
    files["last frame"] = str(out / "overview_last.png")
    projector = render_projector(showcase[1] if showcase else state, cal)
    cv2.imwrite(str(out / "projector.png"), projector)
    files["projector"] = str(out / "projector.png")
    summary = summarise(store, feed, referee.spoken)
    summary["seconds"] = round(time.monotonic() - t_start, 1)
    if showcase is not None:
        summary["projector_at"] = {"frame": showcase[2], "legal_jumps": showcase[0]}
    summary["frames"] = len(paths)
    text = summary_text(summary)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out / "summary.txt").write_text(text + "\n")
    files["summary"] = str(out / "summary.txt")
    files["events"] = str(db_path)
    files["calibration"] = str(cal_path)
    store.close()
    return {"summary": summary, "summary_text": text, "files": files}


def _waiting_picture(index: int) -> np.ndarray:
    from display.text import put_text

    img = np.full((OVERVIEW_SIZE[1], OVERVIEW_SIZE[0], 3), 32, np.uint8)
    put_text(img, f"frame {index}: waiting for the camera to see the starting cards and the Trophy",
             (40, OVERVIEW_SIZE[1] // 2), 0.8, (220, 220, 220), max_width=OVERVIEW_SIZE[0] - 80)  # fmt: skip
    return img


def legal_jumps(state: dict[str, Any]) -> int:
    """How many jumps the player to move may make now (the referee's verdict 'legal')."""
    return sum(m.get("verdict") == "legal" and m.get("allowed", True) for m in state.get("moves") or [])


def summarise(store: Any, feed: Any, spoken: list[dict[str, Any]]) -> dict[str, Any]:
    """What happened, from the event file (public parts only) and the camera feed's record."""
    placements, flips, jumps, falls, destroyed = [], [], [], [], []
    winner = None
    gaps = {}
    if feed is not None:
        for s in feed.history:
            if s.command["type"] == "move" and s.measured is not None:
                gaps[(s.seat, s.command["to"], s.frame)] = s.measured
    moves_by_player: dict[str, list[dict[str, Any]]] = {}
    if feed is not None:
        for s in feed.history:
            if s.command["type"] == "move":
                moves_by_player.setdefault(s.seat, []).append(
                    {
                        "to": s.command["to"],
                        "frame": s.frame,
                        "ok": s.ok,
                        "measured": s.measured,
                        "reply": s.reply,
                    }
                )
    for _, whole in store.events():
        e = {"type": whole["type"], **whole["public"]}
        if e["type"] == "card_placed":
            placements.append({"player": e["player"], "space": e["space"]})
        elif e["type"] == "space_flipped":
            flips.append({"space": e["space"], "name": e["name"], "by": e["by"]})
        elif e["type"] == "pawn_moved":
            jump = {"player": e["player"], "from": e["from"], "to": e["to"], "kind": e["kind"]}
            tried = next(
                (m for m in moves_by_player.get(e["player"], []) if m["to"] == e["to"] and m["measured"]),
                None,
            )
            if tried is not None:
                jump["gap_mm"] = tried["measured"]["gap_mm"]
                jump["sigma_gap_mm"] = tried["measured"]["sigma_gap_mm"]
                jump["verdict"] = tried["measured"]["verdict"]
                moves_by_player[e["player"]].remove(tried)
            jumps.append(jump)
        elif e["type"] == "player_fell":
            falls.append({"player": e["player"], "from": e["space"]})
        elif e["type"] == "space_destroyed":
            destroyed.append(e["space"])
        elif e["type"] == "game_over":
            winner = e["winner"]
    refused_moves = [
        {"player": p, **{k: m[k] for k in ("to", "frame", "measured")}, "error": m["reply"].get("error")}
        for p, ms in moves_by_player.items()
        for m in ms
        if not m["ok"]
    ]
    return {
        "placements": placements,
        "flips": flips,
        "jumps": jumps,
        "refused_jumps": refused_moves,
        "falls": falls,
        "destroyed": destroyed,
        "winner": winner,
        "player_commands": spoken,
        "camera_notices": [n.to_json() for n in feed.notices] if feed is not None else [],
    }


def summary_text(s: dict[str, Any]) -> str:
    lines = [f"Master Plan sample game: {s.get('frames', '?')} frames in {s.get('seconds', '?')} s"]
    by: dict[str, list[str]] = {}
    for p in s["placements"]:
        by.setdefault(p["player"], []).append(p["space"])
    names = {f["space"]: f["name"] for f in s["flips"]}
    lines.append("placed:")
    for player, spaces in by.items():
        lines.append(f"  {player}: " + ", ".join(f"{sp} ({names.get(sp, 'face down')})" for sp in spaces))
    lines.append("jumps:")
    for j in s["jumps"]:
        gap = (
            f"gap {j['gap_mm']:.1f} +/- {j['sigma_gap_mm']:.1f} mm, {j['verdict']}"
            if "gap_mm" in j
            else "moved by the rules"
        )
        lines.append(f"  {j['player']}: {j['from']} -> {j['to']} ({j['kind']}; {gap})")
    for j in s["refused_jumps"]:
        lines.append(f"  refused: {j['player']} -> {j['to']}: {(j['error'] or {}).get('message')}")
    lines.append("falls: " + (", ".join(f"{f['player']} (from {f['from']})" for f in s["falls"]) or "none"))
    if s["destroyed"]:
        lines.append("destroyed: " + ", ".join(s["destroyed"]))
    lines.append(f"winner: {s['winner'] or 'nobody yet'}")
    refused = [c for c in s["player_commands"] if not c["reply"].get("ok")]
    for c in refused:
        lines.append(
            f"  player command refused at frame {c['frame']}: {c['command']} - {c['reply']['error']['message']}"
        )
    if s["camera_notices"]:
        lines.append(f"camera notices ({len(s['camera_notices'])}, last 5):")
        for n in s["camera_notices"][-5:]:
            lines.append(f"  frame {n['frame']}: {n['message']}")
    return "\n".join(lines)


def _live(args: argparse.Namespace) -> int:
    """A live table: the referee with the camera feed (as 'tabletop referee --camera N'), for
    the players of --players; displays and players connect to it."""
    from tabletop.commands import referee

    print(
        f"live demo: the referee watches camera {args.camera}; connect the overview with "
        "'tabletop display overview --connect tcp://127.0.0.1:5555' and players with "
        "'tabletop client --connect tcp://127.0.0.1:5555 --player SEAT'"
    )
    live = argparse.Namespace(
        game="masterplan",
        players=args.players,
        virtual=False,
        camera=args.camera,
        video=None,
        images=None,
        calibration=args.calibration,
        pawns=args.pawns,
        db=str(Path(args.out) / "live-game.sqlite"),
        resume=False,
        seed=None,
        option=[],
        bind="127.0.0.1",
        port=5555,
        secure=None,
        web=args.web,
        web_bind=args.web_bind,
        url=args.url,
        no_qr=args.no_qr,
    )
    Path(args.out).mkdir(parents=True, exist_ok=True)
    return referee.run(live)
