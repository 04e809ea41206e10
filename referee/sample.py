"""The bundled sample game (sample_images/, see its README): where it is, its players, the
calibration computed from its ChArUco photos, and the commands its players give by hand.

What the camera cannot see (a skipped step, a draw) the players send as commands; the script
says at which frame each was given. Ground truth (`ground_truth.jsonl`) is never read here.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration import (
    BoardPlacement,
    BoardSpec,
    Calibration,
    CalibrationError,
    calibrate_intrinsics,
    detect_board,
    fit_table,
)
from calibration.file import now_iso
from calibration.table import map_table, typical_corner_sigma_mm

SAMPLE_DIR = "sample_images"
# Commands the camera cannot see: the demo sends them as the players would press them.
PLAYER_COMMANDS = ("skip_step", "draw")


class SampleError(Exception):
    """The sample folder is missing or incomplete; the message says where it was looked for."""


def find_samples(explicit: str | Path | None = None) -> Path:
    """sample_images/ given, in the current folder, or in the source checkout."""
    if explicit is not None:
        candidates = [Path(explicit)]
    else:
        candidates = [Path.cwd() / SAMPLE_DIR, Path(__file__).resolve().parents[1] / SAMPLE_DIR]
    for c in candidates:
        if (c / "script.json").is_file() and (c / "frames").is_dir():
            return c
    raise SampleError(
        f"no sample game found (looked in {', '.join(str(c) for c in candidates)}): run from the "
        "clone's root folder or give --samples DIR (the folder with script.json and frames/)"
    )


@dataclass(frozen=True)
class SampleGame:
    folder: Path
    script: dict[str, Any]

    @classmethod
    def load(cls, folder: str | Path) -> SampleGame:
        folder = Path(folder)
        try:
            script = json.loads((folder / "script.json").read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise SampleError(f"{folder / 'script.json'} is not readable ({exc})") from None
        return cls(folder, script)

    @property
    def frames(self) -> list[Path]:
        return sorted(p for p in (self.folder / "frames").iterdir() if p.suffix.lower() in (".jpg", ".png"))

    @property
    def frame_interval_s(self) -> float:
        return float(self.script.get("frame_interval_s", 0.5))

    @property
    def villains(self) -> dict[str, str]:
        """Seat -> villain. In the sample each seat is named after its villain."""
        return {p["seat"]: p["seat"] for p in self.script["players"]}

    @property
    def pawn_colors(self) -> dict[str, str]:
        """Colour -> seat, as the players tell the referee at setup."""
        return {p["pawn_color"]: p["seat"] for p in self.script["players"]}

    def config(self, layout: dict[str, Any]) -> dict[str, Any]:
        """A physical-deck Master Plan config for the sample's players and the seen layout."""
        settings = {"reach_mm": float(self.script.get("reach_mm", 63.0))}
        return {
            "players": [{"name": s, "villain": v} for s, v in self.villains.items()],
            "villain_powers": bool(self.script.get("villain_powers", False)),
            "deck_mode": "physical",
            "settings": settings,
            **layout,
        }

    def player_commands(self) -> list[tuple[int, dict[str, Any]]]:
        """(frame, command) for what the players say by hand, at the first frame showing it. A
        draw ends the Add step first (skip_step), as a player pressing 'draw' would."""
        out: list[tuple[int, dict[str, Any]]] = []
        for e in self.script["entries"]:
            if e["kind"] != "command" or e["type"] not in PLAYER_COMMANDS:
                continue
            out.append((int(e["frames"][0]), {"type": e["type"], "player": e["player"]}))
        return out

    # ---- calibration ---------------------------------------------------------------------------
    def board_spec(self) -> BoardSpec:
        """The sample's board, read as `tabletop calibrate` reads it."""
        path = self.folder / "charuco" / "board.json"
        try:
            return BoardSpec.load(path)
        except CalibrationError as exc:
            raise SampleError(f"{path} is not a board description ({exc})") from None

    def board_placement(self, spec: BoardSpec) -> BoardPlacement:
        """Where the board lay on the table for table_pose_1.jpg: what a player measures and
        types into 'tabletop calibrate table --origin X Y --rotation DEG'."""
        photo = json.loads((self.folder / "charuco" / "truth.json").read_text())["photos"][0]
        (cx, cy), angle = photo["board_center_mm"], float(photo["board_angle_deg"])
        w, h = spec.size_mm
        a = math.radians(angle)
        # the reference corner is the bottom-left one: centre minus the rotated half size
        ox = cx - (w / 2 * math.cos(a) - h / 2 * math.sin(a))
        oy = cy - (w / 2 * math.sin(a) + h / 2 * math.cos(a))
        return BoardPlacement((ox, oy), angle)

    def calibrate(self) -> Calibration:
        """Lens from every ChArUco photo, table plane from every table photo (the board in three
        spots, the first where the player measured it): the same
        calibration API `tabletop calibrate intrinsics/table` uses."""
        spec = self.board_spec()
        folder = self.folder / "charuco"
        photos = sorted(folder.glob("intrinsics_*.jpg")) + sorted(folder.glob("table_pose_*.jpg"))
        table_photo = folder / "table_pose_1.jpg"
        if not photos or not table_photo.is_file():
            raise SampleError(f"{folder} has no ChArUco photos (intrinsics_*.jpg, table_pose_1.jpg)")
        views, names = [], []
        for p in photos:
            img = cv2.imread(str(p))
            if img is None:
                raise SampleError(f"{p} is not a readable image")
            try:
                views.append(detect_board(img, spec))
                names.append(p)
            except CalibrationError:
                continue  # a photo without the board is skipped, as 'calibrate intrinsics' does
        lens = calibrate_intrinsics(views)
        placement = self.board_placement(spec)
        # Every table photo shows the board in another spot under the game's camera: the first
        # is where the player measured it, the others are placements the fit finds by itself.
        if table_photo not in names:
            raise SampleError(f"{table_photo} shows no calibration board")
        view = views[names.index(table_photo)]
        others = [p for p in sorted(folder.glob("table_pose_*.jpg")) if p in names and p != table_photo]
        placed = [view] + [views[names.index(p)] for p in others]
        fit = fit_table(view, spec, placement, lens.camera_matrix, lens.distortion)
        cal = Calibration(lens.image_size, lens.camera_matrix, lens.distortion, fit.image_to_table)
        cal.card_mm = tuple(sorted(self.script.get("card_size_mm", (63.0, 88.0)), reverse=True))  # type: ignore[assignment]
        cal.reach_mm = float(self.script.get("reach_mm", 63.0))
        date = now_iso()
        cal.steps["intrinsics"] = {"date": date, **lens.to_step(), "views": [str(p) for p in photos]}
        # The table's pose, visible extent and error map, as 'tabletop calibrate table' fits them:
        # corner sigmas then grow toward the table's far side as the camera's error does.
        plane = map_table(cal, placed, spec, placement)
        cal.steps["table"] = {
            "date": date,
            "intrinsics_date": date,
            **fit.to_step(),
            "photo": str(table_photo),
            "placements": len(placed),
            "corners": plane.corners,
            "placements_mm": [[round(v, 2) for v in p] for p in plane.placements],
        }
        cal.corner_sigma_mm = typical_corner_sigma_mm(cal)
        return cal


def virtual_projector(
    cal: Calibration, table_mm: tuple[float, float], size: tuple[int, int] = (1280, 960)
) -> None:
    """Give `cal` a projector straight above the table filling `size` pixels with the whole
    table: the sample was recorded without a projector, so the demo's projector view shows what a
    projector mounted square over the table would light. Never used on a real table."""
    w, h = table_mm
    k = min(size[0] / w, size[1] / h)
    # table y grows away from the players; the projector's image y grows down toward them
    cal.table_to_projector = np.array(
        [[k, 0, (size[0] - k * w) / 2], [0, -k, (size[1] + k * h) / 2], [0, 0, 1]]
    )
    cal.projector_size = size
    cal.steps["projector"] = {
        "date": now_iso(),
        "table_date": cal.steps.get("table", {}).get("date"),
        "source": "virtual projector square above the table (demo)",
    }


class SampleReferee:
    """Referees the sample game from the camera's Observations, one at a time: starts the game
    when the starting cards and the Trophy are seen, feeds the camera feed, and presses the
    players' own commands (skip a step, draw) once the recorded frame the script gives them is
    reached - pressed again if the referee was still waiting for the table."""

    def __init__(self, game: SampleGame, store: Any) -> None:
        self.game = game
        self.store = store  # referee.store.EventStore
        self.session: Any = None  # referee.session.GameSession, once the setup was seen
        self.feed: Any = None  # referee.masterplan_camera.CameraFeed
        self.spoken: list[dict[str, Any]] = []  # what the players said by hand, with the reply
        self._said = sorted(game.player_commands(), key=lambda fc: fc[0])
        self._retry: list[dict[str, Any]] = []
        self._ids = 0

    def observe(self, obs: Any, recorded_frame: int) -> None:
        """Take the Observation of a frame showing the table as the sample's `recorded_frame`."""
        from referee.masterplan_camera import CameraFeed, SessionTarget, SetupNotFound, table_setup
        from referee.protocol import Request
        from referee.session import GameSession

        if self.session is None:
            try:
                setup = table_setup(obs, self.game.villains, self.game.pawn_colors)
            except SetupNotFound:
                return
            self.session = GameSession.start(
                "masterplan",
                self.game.config(setup.config_layout()),
                self.game.script.get("seed", 0),
                self.store,
            )
            self.feed = CameraFeed(SessionTarget(self.session), setup)
        self.feed.observe(obs)
        due = self._retry + [c for f, c in self._said if f <= recorded_frame]
        self._said = [(f, c) for f, c in self._said if f > recorded_frame]
        self._retry = []
        for command in due:
            if self._retry and self._retry[-1]["player"] == command["player"]:
                self._retry.append(command)  # keep a player's commands in order
                continue
            for body in _as_pressed(command, self.session.public_state()):
                self._ids += 1
                request = Request(f"player-{self._ids}", body["type"], body["player"], body)
                reply = self.session.handle(request, body["player"]).reply
                if not reply.get("ok") and reply["error"]["code"] == "waiting":
                    # the referee still waits for the table (a name, a position): the player
                    # presses again once it is answered
                    self._retry.append(command)
                    break
                self.spoken.append({"frame": recorded_frame, "command": body, "reply": reply})
            self.feed.settle()


def _as_pressed(command: dict[str, Any], state: dict[str, Any]) -> list[dict[str, Any]]:
    """A player who presses 'draw' while still in the Add step ends the step first."""
    if command["type"] == "draw" and state.get("step") == "add" and not state.get("waiting"):
        return [{"type": "skip_step", "player": command["player"]}, command]
    return [command]
