"""The camera feed on rendered frames: real vision (detector, recogniser, pawns, tracker) on
vision.synthetic pictures, a real referee session with a real SQLite event file.

One small table: three starting cards and the Trophy, seen by a 720p camera. Monster Nash (the
rightmost starting card) plays first. Frames are 0.5 s apart; the tracker confirms what stays
still for 0.5 s, so each scene is shown for two frames.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from calibration import Calibration
from referee.camera import TableWatcher
from referee.masterplan_camera import CameraFeed, SessionTarget, SetupNotFound, table_setup
from referee.protocol import Request
from referee.session import GameSession
from referee.store import EventStore
from vision.synthetic import PRESETS, Camera, CameraPose, Card, Pawn, Renderer, Scene

# Waits on processes, sockets or a browser with timeouts: one at a time (pyproject.toml).
pytestmark = pytest.mark.xdist_group("processes")

CAM = Camera.for_resolution("720p", pose=CameraPose(height_mm=700.0, tilt_deg=15.0, target_mm=(600.0, 200.0)))
VILLAINS = {"Zed": "Z-Mask", "Fay": "Ms. Fyre", "Nash": "Monster Nash"}
COLORS = {"red": "Zed", "blue": "Fay", "green": "Nash"}
START = [
    Card(1, "Z-Mask", (450.0, 60.0), 0.0, True),
    Card(2, "Ms. Fyre", (600.0, 60.0), 0.0, True),
    Card(3, "Monster Nash", (750.0, 60.0), 0.0, True),
    Card(4, "Trophy", (600.0, 330.0), 0.0, True),
]
# Nash's new card: 40 mm beyond his starting card (a legal jump), then one that would overlap it.
NEW = Card(5, "Empty Lair", (752.0, 188.0), 2.0, False)
OVERLAPPING = Card(6, "Bomb", (780.0, 230.0), 10.0, False)


def _pawns(nash: tuple[float, float] = (750.0, 75.0), on: int = 3) -> tuple[Pawn, ...]:
    return (
        Pawn("Zed", "red", (450.0, 75.0), 1, "disc"),
        Pawn("Fay", "blue", (600.0, 75.0), 2, "disc"),
        Pawn("Nash", "green", nash, on, "disc"),
    )


class Table:
    """Renders scenes, runs vision on them, and plays the game they show through the feed."""

    def __init__(self, tmp_path: Path, policy: str = "ask") -> None:
        self.renderer = Renderer(CAM, PRESETS["wood"])
        self.watcher = TableWatcher(Calibration((1280, 720), image_to_table=CAM.image_to_table), list(COLORS))
        self.store = EventStore(tmp_path / "game.sqlite")
        self.policy = policy
        self.session: GameSession | None = None
        self.feed: CameraFeed | None = None
        self.frame = 0
        self.n = 0

    def show(self, cards, pawns=None, frames: int = 2) -> None:
        scene = Scene(cards=tuple(cards), pawns=pawns if pawns is not None else _pawns())
        for _ in range(frames):
            image = self.renderer.render(scene, seed=self.frame).image
            obs = self.watcher.see(self.frame, self.frame * 0.5, image)
            self.frame += 1
            if self.session is None:
                try:
                    setup = table_setup(obs, VILLAINS, COLORS)
                except SetupNotFound:
                    continue
                config = {
                    "players": [{"name": p, "villain": v} for p, v in VILLAINS.items()],
                    "deck_mode": "physical",
                    "settings": {"close_call_policy": self.policy},
                    **setup.config_layout(),
                }
                self.session = GameSession.start("masterplan", config, 1, self.store)
                self.feed = CameraFeed(SessionTarget(self.session), setup)
                self.feed_setup = setup
            assert self.feed is not None
            self.feed.observe(obs)

    def say(self, player: str, type_: str, **fields) -> dict:
        assert self.session is not None and self.feed is not None
        self.n += 1
        body = {"type": type_, "player": player, **fields}
        reply = self.session.handle(Request(f"t{self.n}", type_, player, body), player).reply
        self.feed.settle()
        return reply

    def events(self) -> list[dict]:
        return [{"type": e["type"], **e["public"]} for _, e in self.store.events()]

    def state(self) -> dict:
        assert self.session is not None
        return self.session.public_state()


def _round_one(t: Table) -> None:
    """Nash places NEW by hand (the camera sees it), the others add nothing; everyone draws."""
    t.show(START)
    t.show([*START, NEW])
    assert t.say("Nash", "skip_step")["ok"] and t.say("Nash", "draw")["ok"]
    for p in ("Fay", "Zed"):
        assert t.say(p, "skip_step")["ok"] and t.say(p, "draw")["ok"]


def test_setup_placement_jump_and_flip(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.show(START)
    assert t.session is not None, "the setup (starting cards and Trophy) was not taken from the camera"
    table = {s["space"]: s for s in t.state()["table"]}
    assert set(table) == {"start:Zed", "start:Fay", "start:Nash", "trophy"}
    assert t.state()["current"] == "Nash"  # rightmost starting card first
    # A card appears during Nash's Add step: it is Nash's placement, where the camera saw it.
    t.show([*START, NEW])
    placed = [e for e in t.events() if e["type"] == "card_placed"]
    assert [(e["player"], e["space"]) for e in placed] == [("Nash", "S5")]
    centre = [sum(c[i] for c in placed[0]["corners"]) / 4 for i in (0, 1)]
    assert abs(centre[0] - 752.0) < 2.0 and abs(centre[1] - 188.0) < 2.0
    # The camera's command is logged like any player's, and the event file replays.
    assert t.session is not None
    replayed = GameSession.resume(t.store)
    assert replayed.public_state()["table"] == t.state()["table"]
    for p in ("Nash", "Fay", "Zed"):
        assert t.say(p, "skip_step")["ok"] and t.say(p, "draw")["ok"]
    assert t.state()["current"] == "Nash" and t.state()["step"] == "move"
    # Nash's pawn settles on his new card: a move, adjudicated by reach with its gap and verdict.
    t.show([*START, NEW], _pawns((752.0, 188.0), 5))
    moves = [s for s in t.feed.history if s.command["type"] == "move"]
    assert len(moves) == 1 and moves[0].ok and moves[0].command["to"] == "S5"
    assert moves[0].measured["verdict"] == "legal"
    assert 35.0 < moves[0].measured["gap_mm"] < 45.0  # 40 mm between the cards' edges
    assert t.state()["waiting"]["for"] == "report_identity"
    # The card is turned face up: the recognised name answers the referee, as "camera".
    t.show([*START, NEW.flipped()], _pawns((752.0, 188.0), 5))
    flips = [e for e in t.events() if e["type"] == "space_flipped"]
    assert [(e["space"], e["name"]) for e in flips] == [("S5", "Empty Lair")]
    reported = [e for e in t.events() if e["type"] == "identity_reported"]
    assert reported[0]["reported_by"] == "camera"
    assert t.state()["step"] == "add" and t.state()["waiting"] is None


def test_overlapping_placement_is_refused_and_reported(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.show(START)
    t.show([*START, NEW])
    t.show([*START, NEW, OVERLAPPING])
    placed = [e["space"] for e in t.events() if e["type"] == "card_placed"]
    assert placed == ["S5"], "an overlapping card must not become a placement"
    refused = [n for n in t.feed.notices if n.kind == "refused"]
    assert len(refused) == 1 and refused[0].code == "overlap"
    assert "overlap" in refused[0].message and "Nash" in refused[0].message
    # The refusal is shown with the public state (displays) and is tried only once.
    t.session.annotations["camera"] = t.feed.status()
    assert any("overlap" in n["message"] for n in t.state()["camera"]["notices"])
    t.show([*START, NEW, OVERLAPPING])
    assert len([n for n in t.feed.notices if n.kind == "refused"]) == 1


def test_manual_command_overrides_the_camera(tmp_path: Path) -> None:
    """A player who reports the name by hand first leaves the camera nothing to report."""
    t = Table(tmp_path)
    _round_one(t)
    t.show([*START, NEW], _pawns((752.0, 188.0), 5))
    assert t.state()["waiting"]["for"] == "report_identity"
    assert t.say("Fay", "report_identity", space="S5", name="Bomb")["ok"]  # a player's correction first
    t.show([*START, NEW.flipped()], _pawns((752.0, 188.0), 5))
    reported = [e for e in t.events() if e["type"] == "identity_reported"]
    assert [(e["name"], e["reported_by"]) for e in reported] == [("Bomb", "Fay")]


@pytest.mark.parametrize("policy", ["strict"])
def test_out_of_reach_jump_is_refused(tmp_path: Path, policy: str) -> None:
    """Nash's pawn lands on a card 120 mm away: refused with the measured gap, pawn goes back."""
    far = Card(5, "Empty Lair", (752.0, 268.0), 0.0, False)
    t = Table(tmp_path, policy)
    t.show(START)
    t.show([*START, far])
    for p in ("Nash", "Fay", "Zed"):
        assert t.say(p, "skip_step")["ok"] and t.say(p, "draw")["ok"]
    t.show([*START, far], _pawns((752.0, 268.0), 5))
    moves = [s for s in t.feed.history if s.command["type"] == "move"]
    assert len(moves) == 1 and not moves[0].ok
    assert moves[0].reply["error"]["code"] == "out_of_reach"
    assert moves[0].measured is None  # not among the destinations within reach
    assert [p["position"] for p in t.state()["players"] if p["name"] == "Nash"] == ["start:Nash"]
    assert any(n.code == "out_of_reach" for n in t.feed.notices)


@pytest.mark.slow  # a long camera scenario, frame by frame
def test_switch_positions_reported_from_the_swapped_cards(tmp_path: Path) -> None:
    """Nash lands on a Switch: the two cards he swaps are the choice, and their new corners
    (each where the other lay) are reported once the camera sees both places change."""
    switch = Card(5, "Switch", (752.0, 188.0), 2.0, False)
    other = Card(6, "Tripwire", (655.0, 200.0), -4.0, False)
    t = Table(tmp_path)
    t.show(START)
    t.show([*START, switch])
    t.show([*START, switch, other])
    for p in ("Nash", "Fay", "Zed"):
        assert t.say(p, "skip_step")["ok"] and t.say(p, "draw")["ok"]
    t.show([*START, switch, other], _pawns((752.0, 188.0), 5))
    t.show([*START, switch.flipped(), other], _pawns((752.0, 188.0), 5))
    waiting = t.state()["waiting"]
    assert waiting["for"] == "choose_target" and waiting["effect"] == "swap_two"
    # Nash swaps them: the face-up Switch (with his pawn) now lies where the Tripwire was.
    swapped = [switch.flipped().moved(other.center_mm), other.moved(switch.center_mm)]
    t.show([*START, *swapped], _pawns(other.center_mm, 5))
    moved = [e for e in t.events() if e["type"] == "spaces_moved"]
    assert len(moved) == 1 and moved[0]["reported_by"] == "camera"
    centres = {s: [sum(c[i] for c in cs) / 4 for i in (0, 1)] for s, cs in moved[0]["positions"].items()}
    assert abs(centres["S5"][0] - 655.0) < 3 and abs(centres["S5"][1] - 200.0) < 3
    assert abs(centres["S6"][0] - 752.0) < 3 and abs(centres["S6"][1] - 188.0) < 3
    chosen = [e for e in t.events() if e["type"] == "target_chosen"]
    assert chosen[0]["spaces"] == ["S5", "S6"] and chosen[0]["player"] == "Nash"
    assert t.state()["step"] == "add" and t.state()["waiting"] is None


def test_camera_thread_feeds_the_service_and_survives_a_failure(tmp_path: Path) -> None:
    """The camera in its own thread, over the inproc PAIR socket into the service loop; a
    subscriber sees the camera's placement as a numbered event. The camera fails once: the
    failure is in the public state, the thread retries, and the game goes on where it was."""
    import threading
    import time

    from referee.camera import CameraThread
    from referee.client import StateMirror
    from referee.service import RefereeService
    from tabletop.commands.referee_camera import Watch
    from vision.sources import SourceError

    t = Table(tmp_path)
    t.show(START)  # setup from the camera, in this thread
    assert t.session is not None
    renderer = t.renderer
    scenes = [Scene(cards=tuple(START), pawns=_pawns()), Scene(cards=(*START, NEW), pawns=_pawns())]
    opened = {"n": 0}
    first_frame = t.frame
    watching = threading.Event()  # the subscriber below is listening

    def frames():
        opened["n"] += 1
        watching.wait(30)
        if opened["n"] == 1:  # the camera shows the table once, then its cable comes out
            yield first_frame, first_frame * 0.5, renderer.render(scenes[0], seed=1).image
            raise SourceError("camera 0 stopped delivering frames: check its cable and power")
        if opened["n"] == 2:  # plugged back in: a card is put down
            for k in range(3):
                i = first_frame + 1 + k
                yield i, i * 0.5, renderer.render(scenes[1], seed=i).image

    service = RefereeService(t.session, "tcp://127.0.0.1:*", "tcp://127.0.0.1:*", heartbeat_s=0.2)
    camera = CameraThread(frames, t.watcher, retry_s=0.1, max_retries=3)
    watch = Watch(t.session, t.feed_setup, camera)  # as `tabletop referee --camera` wires it
    watch.attach(service)
    serving = threading.Thread(target=service.serve, daemon=True)
    serving.start()
    mirror = StateMirror(service.router_endpoint, service.pub_endpoint)
    watching.set()
    try:
        deadline = time.monotonic() + 90  # generous: a loaded shared machine renders slowly
        while time.monotonic() < deadline:
            mirror.poll(0.2)
            if any(e["type"] == "card_placed" for _, e in mirror.events):
                break
        placed = [e for _, e in mirror.events if e["type"] == "card_placed"]
        assert [(e["player"], e["space"]) for e in placed] == [("Nash", "S5")]
        mirror.resync()  # the state after that event (a snapshot)
        assert "stopped delivering" in mirror.state["camera"]["last_problem"] and opened["n"] >= 2
        assert mirror.state["table"][-1]["space"] == "S5"  # the game went on from where it was
        # The camera heard each state published (what a projector would light).
        assert t.watcher.shown is not None and t.watcher.shown[0] == mirror.seq
    finally:
        service.stop()
        serving.join(5)
        camera.stop()
        mirror.close()
        service.close()


# ---- issue 22.17: what the referee waits for, in words ---------------------------------------
MORE = [
    Card(7, "Laser Gun", (620.0, 188.0), 0.0, False),
    Card(8, "Bomb", (880.0, 188.0), 0.0, False),
    Card(9, "Rocket Boots", (490.0, 188.0), 0.0, False),
    Card(10, "Trapdoor", (880.0, 330.0), 0.0, False),
]


def test_cards_put_down_after_the_hand_is_empty_say_what_the_referee_waits_for(tmp_path: Path) -> None:
    """Nobody says skip_step or draw (the camera cannot see it): the next player's cards land in
    Nash's Add step. Once Nash's hand is empty the refusal and the status say what is needed."""
    t = Table(tmp_path)
    t.show(START)
    assert t.feed is not None
    assert t.feed.status()["waiting_for"] == (
        "waiting for Nash to place a card face down, or to end the Add step (skip_step) or draw"
    )
    shown = list(START)
    for card in [NEW, *MORE]:
        shown.append(card)
        t.show(shown)
    hand = next(p["hand_size"] for p in t.state()["players"] if p["name"] == "Nash")
    assert hand == 0 and t.state()["current"] == "Nash" and t.state()["turn"] == 1
    refused = [n for n in t.feed.notices if n.kind == "refused"]
    assert len(refused) == 1 and refused[0].code == "empty_hand"
    assert "Nash has no cards in hand" in refused[0].message and "skip_step or draw" in refused[0].message
    assert "(880, 330) mm" in refused[0].message  # which card, where
    status = t.feed.status()
    assert status["waiting_for"].startswith("waiting for Nash to end the Add step (skip_step) or draw")
    # Said in words in the log, not as raw commands.
    placed = [s for s in t.feed.history if s.command["type"] == "place_card"]
    assert placed[0].describe().startswith("Nash places a card face down as S5 at (752, 188) mm: accepted")
    assert "refused - You have no cards in hand" in placed[-1].describe()
    # A player's own view carries the camera's status too (not only the public state).
    t.session.annotations["camera"] = status
    joined = t.session.handle(Request("j1", "join", "Nash", {"type": "join", "player": "Nash"}), None).reply
    assert joined["ok"] and joined["view"]["camera"]["waiting_for"] == status["waiting_for"]
    # The player ends the turn by command: the referee goes on.
    assert t.say("Nash", "skip_step")["ok"] and t.say("Nash", "draw")["ok"]
    assert t.state()["current"] == "Fay"
    assert t.feed.status()["waiting_for"].startswith("waiting for Fay to place a card")


def test_sample_setup_note_says_which_starting_card_was_misread_and_why() -> None:
    """In the bundled sample the recogniser reads Ms. Fyre's starting card (a pawn on it) as
    Z-Mask; the setup takes it by elimination and says which card, where, and why."""
    import cv2

    from referee.sample import SampleGame

    sample = SampleGame.load(Path(__file__).parents[1] / "sample_images")
    watcher = TableWatcher(sample.calibrate())
    setup = None
    for i, frame in enumerate(sample.frames[:3]):
        obs = watcher.see(i, i * 0.5, cv2.imread(str(frame)))
        try:
            setup = table_setup(obs, sample.villains)
            break
        except SetupNotFound:
            continue
    assert setup is not None
    assert setup.notes == [
        "the starting card at (600, 60) mm was read as Z-Mask, a villain already found on another card"
        " (a pawn on a card hides part of its face); it is taken as Ms. Fyre's, the only starting card"
        " left - check it on the overview"
    ]
    centre = [sum(c[k] for c in setup.starting_cards["Ms. Fyre"]) / 4 for k in (0, 1)]
    assert abs(centre[0] - 600) < 5 and abs(centre[1] - 60) < 5  # the truth: card 2 at (600, 60)


def test_of_two_cards_read_as_one_villain_the_nearer_to_its_face_is_that_villains() -> None:
    """The misread card is the one whose picture is further from the art it was read as,
    whichever order the camera lists them in."""
    from vision.observation import Observation, TrackedCard

    def card(i: int, name: str, x: float, face_distance: float) -> TrackedCard:
        mm = ((x - 31.5, 104.0), (x + 31.5, 104.0), (x + 31.5, 16.0), (x - 31.5, 16.0))
        return TrackedCard(i, mm, (0.3,) * 4, mm, (0.3,) * 4, "up", name, False, 0, face_distance)

    trophy = card(1, "Trophy", 600.0, 0.2)
    zed, fay = card(2, "Z-Mask", 449.0, 0.38), card(3, "Z-Mask", 600.0 + 151.0, 0.40)
    nash = card(4, "Monster Nash", 900.0, 0.3)
    for cards in ((trophy, zed, fay, nash), (trophy, fay, zed, nash)):
        setup = table_setup(Observation(0, 0.0, 1280, 720, cards, (), ()), VILLAINS)
        assert setup.tracks == {2: "start:Zed", 3: "start:Fay", 4: "start:Nash", 1: "trophy"}
        assert setup.notes[0].startswith("the starting card at (751, 60) mm was read as Z-Mask")
